/* cr-step-card-private.h — what the step card's files share: the record a
 * card is built from, and the builders of its parts (cr-step-card.c: one
 * step; cr-step-card-intro.c: before the first step, or nothing to step;
 * cr-step-card-layout.c: core's words laid out). */
#pragma once

#include "cr-step-card.h"
#include "cr-step-text.h"

G_BEGIN_DECLS

/* Practice's state on a card (cr-step-card-practice.c). */
typedef struct _CrStepCardPractice CrStepCardPractice;

/* What one card is built from: the record (borrowed for the build only). */
typedef struct {
  const CrRunRecord      *record;
  const CrRecordBackward *backward;   /* NULL: a forward graph */
  int                     backward_index;
  CrStepCardPractice     *practice;   /* the card's (borrowed), NULL: never turned on */
} CrStepCardCtx;

/* Record op `op` (borrowed), or NULL when out of range. */
static inline const CrRecordOp *
cr_step_card_record_op (const CrStepCardCtx *c,
                        int                  op)
{
  if (op < 0 || (guint) op >= c->record->ops->len)
    return NULL;
  return g_ptr_array_index (c->record->ops, op);
}

/* cr-step-card-intro.c: the card's content (a new floating widget) with no
 * graph; for a script that stopped with error before any backward call
 * (title: the forward graph's); for a graph without backward; and before
 * the first step of c's backward call: core's words (cr_step_text_new_intro
 * and its kin) laid out. */
GtkWidget *cr_step_card_build_no_graph      (void);
GtkWidget *cr_step_card_build_forward_error (const CrRunRecord   *record,
                                             const CrRecordError *error,
                                             const char          *title);
GtkWidget *cr_step_card_build_forward_intro (const char          *title);
GtkWidget *cr_step_card_build_intro         (const CrStepCardCtx *c);

/* cr-step-card-layout.c: a step as core tells it (CrStepText) laid out
 * with widgets: its header (a new floating widget); section s, or every
 * section of text, appended to box; text's first section of kind (borrowed,
 * NULL: none). */
GtkWidget *cr_step_card_layout_header   (const CrStepText        *text);
/* The CSS class of a role's colour (CR_ROLE_IN, ...; NULL: plain). */
const char *cr_step_card_role_class     (CrStepTextRole           role);
void       cr_step_card_layout_section  (GtkWidget               *box,
                                         const CrStepTextSection *s);
void       cr_step_card_layout_sections (GtkWidget               *box,
                                         const CrStepText        *text);
const CrStepTextSection *cr_step_card_text_section (const CrStepText      *text,
                                                    CrStepTextSectionKind  kind);
/* The card's practice state, made on first use (owned by the card). */
CrStepCardPractice *cr_step_card_get_practice_state (CrStepCard *self);

/* cr-step-card-practice.c: the practice state of card (which it owns);
 * the card's class's practice signal ("practice-changed": the score or a
 * reveal changed); whether step (of c) is asked now, which also makes it
 * the step practice rebuilds after an answer; the card that asks it; and
 * the verdicts heading the step once revealed. */
CrStepCardPractice *cr_step_card_practice_new        (CrStepCard          *card);
void                cr_step_card_practice_free       (CrStepCardPractice  *self);
void                cr_step_card_practice_class_init (GObjectClass        *klass);
void                cr_step_card_practice_showing    (CrStepCardPractice  *self,
                                                      const CrRunRecord   *record,
                                                      int                  backward,
                                                      int                  step);
gboolean            cr_step_card_practice_asks       (const CrStepCardCtx *c,
                                                      const CrRecordStep  *step);
GtkWidget          *cr_step_card_practice_build      (const CrStepCardCtx *c,
                                                      const CrRecordStep  *step);
void                cr_step_card_practice_add_outcome (GtkWidget          *box,
                                                       const CrStepCardCtx *c,
                                                       const CrRecordStep *step);

/* cr-step-card-forward.c: forward step `index` of n, record op `op` (a
 * new floating widget); has_backward: a backward pass follows. */
GtkWidget *cr_step_card_build_forward_step (const CrRunRecord *record,
                                            int                op,
                                            guint              index,
                                            guint              n,
                                            gboolean           has_backward);
/* The same step asked, not told (practice): its header, what the op does
 * and its inputs' values, without its result (a new floating box). */
GtkWidget *cr_step_card_build_forward_ask  (const CrRunRecord *record,
                                            int                op,
                                            guint              index,
                                            guint              n);

/* cr-step-card.c: shows forward step `index` of n (record op `op`) as
 * cr_step_card_set_forward() does, from a record (practice's rebuild). */
void       cr_step_card_show_record_forward (CrStepCard        *self,
                                             const CrRunRecord *record,
                                             int                op,
                                             guint              index,
                                             guint              n,
                                             gboolean           has_backward);

/* cr-step-card-practice.c, a forward step: the card that asks what op
 * computes (NULL: practice is off, the op asks nothing or is revealed),
 * and, once revealed, the verdicts added to box (the card that tells). */
GtkWidget *cr_step_card_practice_forward    (CrStepCardPractice *self,
                                             const CrRunRecord  *record,
                                             int                 op,
                                             guint               index,
                                             guint               n,
                                             gboolean            has_backward);
void       cr_step_card_practice_add_forward_outcome (GtkWidget          *box,
                                                      CrStepCardPractice *self);

G_END_DECLS
