/* cr-step-text.h — a backward step told in words: the step card's headings
 * and sentences. The window's card (ui/cr-step-card*.c) lays them out with
 * widgets, the handout (render/cr-handout.c) prints them; both take every
 * word from here, so the two never say different things. Plain strings
 * from plain data (no screen). */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* What a section is about, for its colour: the gradient that arrives
 * (blue), the node's local gradients (purple), what it sends on or writes
 * (green), an error (red). */
typedef enum {
  CR_STEP_TEXT_IN,
  CR_STEP_TEXT_LOCAL,
  CR_STEP_TEXT_OUT,
  CR_STEP_TEXT_ERROR,
} CrStepTextRole;

/* One section of the card: a heading, its formulas (one a line, with the
 * numbers), then its footnotes (sentences). */
typedef struct {
  char           *heading;      /* "Incoming gradient"; NULL: none (an error's lead) */
  CrStepTextRole  role;
  GPtrArray      *lines;        /* of char*: "∂L/∂w1 = ∂L/∂b × ∂b/∂w1 = 2 × 3 = 6" */
  GPtrArray      *notes;        /* of char*: "× is elementwise here: ..." */
} CrStepTextSection;

/* A whole step: its header and its sections (free with cr_step_text_free). */
typedef struct {
  char      *count;             /* "Backward 3 of 12" */
  char      *title;             /* "MulBackward0", "AccumulateGrad" */
  char      *symbol;            /* the op's glyph, "×", "+="; NULL */
  char      *caption;           /* "b = w1*a · line 13 · iteration 2"; NULL */
  GPtrArray *sections;          /* of CrStepTextSection* */
} CrStepText;

/* Step `step` of backward call `backward` of record in words; NULL when
 * there is no such step. */
CrStepText *cr_step_text_new   (const CrRunRecord *record,
                                int                backward,
                                int                step);
void        cr_step_text_free  (CrStepText        *self);   /* NULL-safe */
/* The step as plain text: the header's lines, then each section's heading,
 * its lines indented, its notes (new string, lines end in '\n'). */
char       *cr_step_text_plain (const CrStepText  *self);

/* ---- the sentences, one by one (the card builds its widgets with them) ---- */

/* Which pass of the story a step is in. */
typedef enum {
  CR_STEP_TEXT_FORWARD,
  CR_STEP_TEXT_BACKWARD,
} CrStepTextPass;
/* Where a step is in the story, as the card's header and the stepper's
 * label both say it: "Forward 3 of 7", "Backward 5 of 12" (new string). */
char       *cr_step_text_story_count     (CrStepTextPass     pass,
                                          guint              index,
                                          guint              n);
/* A backward step's: "Backward 3 of 12" (new string). */
char       *cr_step_text_count           (guint              index,
                                          guint              n_steps);
/* The step's caption: raw ("b = w1*a, line 13") as "b = w1*a · line 13",
 * with " · iteration N" when iteration > 0 and it does not say it; NULL
 * for NULL (new string). */
char       *cr_step_text_caption         (const char        *raw,
                                          guint              iteration);
/* The caption of step: its own, its op's, or for AccumulateGrad its leaf's
 * label; with the op's iteration (new string, NULL: none). */
char       *cr_step_text_step_caption    (const CrRunRecord *record,
                                          const CrRecordStep *step);
/* The heading of a step's hooks: "Hook", "Hooks" or "Retained gradient"
 * (static; NULL when it ran none). */
const char *cr_step_text_hooks_heading   (const CrRecordStep *step);
/* The footnote under a step's hooks (static). */
const char *cr_step_text_hooks_note      (gboolean           raised,
                                          gboolean           changed);
extern const char *const CR_STEP_TEXT_RETAIN_NOTE;
extern const char *const CR_STEP_TEXT_ROOTS_NOTE;
extern const char *const CR_STEP_TEXT_CUSTOM_NOTE;
extern const char *const CR_STEP_TEXT_ELEMENTWISE_NOTE;
extern const char *const CR_STEP_TEXT_ACCUMULATED_NOTE;
extern const char *const CR_STEP_TEXT_NO_GRADIENT_NOTE;
extern const char *const CR_STEP_TEXT_STOPPED_LEAD;
/* What an error's footnotes say: the node it failed at, the call that
 * freed its saved tensors, the statement that modified one in place (new
 * array of new strings; error may be NULL: empty). */
GPtrArray  *cr_step_text_error_notes     (const CrRunRecord   *record,
                                          const CrRecordError *error);
/* "It multiplied the gradient by 10." / "It returned the same gradient."
 * (new string). */
char       *cr_step_text_hook_factor     (double             factor);
/* What AccumulateGrad did to leaf's .grad (new string). */
char       *cr_step_text_leaf_note       (const char        *leaf,
                                          gboolean           held_before);
/* For a rule that is not elementwise: how it turns the incoming gradient
 * (named incoming_name when the rule says G; may be NULL) into each
 * input's (new string). */
char       *cr_step_text_rule_note       (const char        *rule,
                                          const char        *incoming_name);
/* input was broadcast to shape from_shape ("2×3") (new string). */
char       *cr_step_text_broadcast_note  (const char        *input,
                                          const char        *from_shape);
/* The rule "∂C/∂A = G·Bᵀ, ∂C/∂B = Aᵀ·G" split into its formulas at the
 * commas outside brackets (new array of new strings). */
GPtrArray  *cr_step_text_split_rule      (const char        *rule);

G_END_DECLS
