/* cr-step-text.h — a step of the story told in words: a backward step, a
 * forward op, and what a practice question on either gives, as sections
 * (a heading, a colour role) of items (formulas as terms with the values
 * they show, rules, sentences, footnotes). The window's card
 * (ui/cr-step-card-layout.c) lays them out with widgets, the handout
 * (render/cr-handout.c) prints them; both take every word from here, so
 * the two never say different things (tests/ui/test-card-text.c holds the
 * card to cr_step_text_plain()). Plain data in, plain data out (no
 * screen). */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* Which pass of the story a step is in. */
typedef enum {
  CR_STEP_TEXT_FORWARD,
  CR_STEP_TEXT_BACKWARD,
  CR_STEP_TEXT_BEFORE,     /* a card before any step: how to step, or why there is
                            * nothing to step */
} CrStepTextPass;

/* What a section, or a term of a formula, is about, for its colour: the
 * gradient that arrives (blue), the node's local gradients (purple), what
 * it sends on or writes (green), an error (red); plain: no colour. */
typedef enum {
  CR_STEP_TEXT_IN,
  CR_STEP_TEXT_LOCAL,
  CR_STEP_TEXT_OUT,
  CR_STEP_TEXT_ERROR,
  CR_STEP_TEXT_PLAIN,
} CrStepTextRole;

/* What a section tells, so that a reader can dress it (the card gives the
 * hooks and a custom backward their own look, practice keeps the incoming
 * and local sections, an error is drawn as one). */
typedef enum {
  CR_STEP_TEXT_SECTION_ROOTS,          /* "Roots added up" */
  CR_STEP_TEXT_SECTION_HOOKS,          /* "Hook", "Hooks", "Retained gradient" */
  CR_STEP_TEXT_SECTION_INCOMING,       /* "Incoming gradient(s)" */
  CR_STEP_TEXT_SECTION_LEAF_GRAD,      /* "w.grad": what AccumulateGrad wrote */
  CR_STEP_TEXT_SECTION_CUSTOM,         /* "Your backward" */
  CR_STEP_TEXT_SECTION_LOCAL,          /* "Local gradient(s)" */
  CR_STEP_TEXT_SECTION_SENT,           /* "Sent on" */
  CR_STEP_TEXT_SECTION_ACCUMULATED,    /* "Accumulated": contributions and the sum so far */
  CR_STEP_TEXT_SECTION_ERROR,          /* the error a call stopped with; heading: its lead */
  CR_STEP_TEXT_SECTION_FORWARD_WHAT,   /* "What it computes" */
  CR_STEP_TEXT_SECTION_FORWARD_RESULT, /* "With the numbers" */
  CR_STEP_TEXT_SECTION_FORWARD_EXAMPLE,/* "One element of it", "Worked out" */
  CR_STEP_TEXT_SECTION_FORWARD_NEXT,   /* no heading: what comes next in the story */
  CR_STEP_TEXT_SECTION_GRAD_BEFORE,    /* a question's "w.grad before" */
  CR_STEP_TEXT_SECTION_RULE,           /* a question's "Rule", when the local gradients are asked */
  CR_STEP_TEXT_SECTION_FORWARD_INPUTS, /* a forward question's "Its inputs" */
  CR_STEP_TEXT_SECTION_INTRO,          /* no heading: what there is to step, in sentences */
  CR_STEP_TEXT_SECTION_ROLES,          /* no heading: the chain rule's three roles, each a
                                        * formula: what (WORDS) and its gradient (NAME),
                                        * in the role's colour */
  CR_STEP_TEXT_SECTION_KEYS,           /* "Keys": a formula a row, its KEYs then what they do */
} CrStepTextSectionKind;

/* One item of a section, in the order it is told. */
typedef enum {
  CR_STEP_TEXT_FORMULA,    /* terms joined by operators: "∂L/∂w1 = ∂L/∂b × ∂b/∂w1 = 2 × 3 = 6" */
  CR_STEP_TEXT_RULE,       /* a local rule, "∂C/∂A = G·Bᵀ", in the section's colour */
  CR_STEP_TEXT_NOTE,       /* a footnote on what comes before it */
  CR_STEP_TEXT_SENTENCE,   /* a sentence of the telling: "It multiplies w3 by b ..." */
} CrStepTextItemKind;

/* What a term of a formula shows. */
typedef enum {
  CR_STEP_TEXT_NAME,       /* a gradient's name, "∂L/∂b" (the card stacks it as a fraction) */
  CR_STEP_TEXT_WORDS,      /* words set in monospace: "hook double_it (line 4):", "returns" */
  CR_STEP_TEXT_VALUE,      /* a tensor's values */
  CR_STEP_TEXT_HOW,        /* how a broadcast sum reduces: "summed over dim 0 to b's shape 3" */
  CR_STEP_TEXT_KEY,        /* a key to press: "Space", "PgDn" (the card draws a keycap) */
} CrStepTextTermKind;

/* One term of a formula, with the operator that leads into it. */
typedef struct {
  CrStepTextTermKind      kind;
  const char             *op;           /* static: "=", "×", "→", "+=", "+", ",", "Σ"; NULL: none */
  char                   *text;         /* the term in words; a VALUE's brief, "[2, 4, 6]" */
  CrStepTextRole          role;         /* its colour */
  const CrTensorSnapshot *value;        /* VALUE: borrowed from the record (NULL: None) */
  char                   *caption;      /* small words over a VALUE: "sum so far"; NULL */
  gboolean                break_before; /* the formula's natural line break: the numbers
                                         * under the names */
} CrStepTextTerm;

/* One item: a formula's terms, or a sentence. */
typedef struct {
  CrStepTextItemKind  kind;
  char               *text;             /* the whole item on one line */
  GPtrArray          *terms;            /* of CrStepTextTerm*; empty but for a FORMULA */
  CrRecordReduction  *reduction;        /* a broadcast sum's dims (its Σ formula, or the
                                         * note that tells it); NULL: none */
} CrStepTextItem;

/* One section of the card: a heading and its items, in the order told.
 * lines and notes are the same items as plain strings: the formulas (a
 * long one over several lines) and rules, then the footnotes. */
typedef struct {
  char                  *heading;      /* "Incoming gradient"; an error's lead; NULL: none */
  CrStepTextRole         role;
  GPtrArray             *lines;        /* of char*: "∂L/∂w1 = ∂L/∂b × ∂b/∂w1 = 2 × 3 = 6" */
  GPtrArray             *notes;        /* of char*: "× is elementwise here: ..." */
  GPtrArray             *items;        /* of CrStepTextItem*: everything, in order */
  CrStepTextSectionKind  kind;
} CrStepTextSection;

/* A whole step: its header and its sections (free with cr_step_text_free). */
typedef struct {
  char      *count;             /* "Backward 3 of 12"; NULL before any step */
  char      *title;             /* "MulBackward0", "AccumulateGrad" */
  char      *symbol;            /* the op's glyph, "×", "+="; NULL */
  char      *caption;           /* "b = w1*a · line 13 · iteration 2"; NULL */
  GPtrArray *sections;          /* of CrStepTextSection* */
  CrStepTextPass pass;
  gboolean   accumulate;        /* an AccumulateGrad step */
} CrStepText;

/* Step `step` of backward call `backward` of record in words; NULL when
 * there is no such step. Its VALUE terms borrow the record's snapshots:
 * free the text before the record. */
CrStepText *cr_step_text_new   (const CrRunRecord *record,
                                int                backward,
                                int                step);
void        cr_step_text_free  (CrStepText        *self);   /* NULL-safe */
/* Forward step `index` of n told: record op `op` computing (the words of
 * core/record/cr-record-forward.h); has_backward: a backward pass follows.
 * NULL when op has no forward text. */
CrStepText *cr_step_text_new_forward (const CrRunRecord *record,
                                      int                op,
                                      guint              index,
                                      guint              n,
                                      gboolean           has_backward);
/* What a question on a step gives (practice): the step's header and its
 * incoming gradient, then for AccumulateGrad the leaf's .grad before, else
 * the local gradients, or with hide_local only the rule they follow. Told
 * nothing of what is sent on. The card that asks and the handout's
 * question page both show it. NULL when there is no such step. */
CrStepText *cr_step_text_new_given   (const CrRunRecord *record,
                                      int                backward,
                                      int                step,
                                      gboolean           hide_local);
/* What a question on forward op `op` gives: its header, what it computes
 * and its inputs' values, not its result. NULL as cr_step_text_new_forward. */
CrStepText *cr_step_text_new_forward_given (const CrRunRecord *record,
                                            int                op,
                                            guint              index,
                                            guint              n);
/* The card before step 1 of backward call `backward`: how to step through
 * it (the forward pass first, the chain rule's three roles, the keys) and
 * the error it stopped with. NULL when there is no such call. */
CrStepText *cr_step_text_new_intro         (const CrRunRecord   *record,
                                            int                  backward);
/* The card of a graph that no backward call uses (title: the graph's,
 * NULL: none); of no graph at all; and of a script that stopped with
 * error before any backward call (title as the first). */
CrStepText *cr_step_text_new_no_backward   (const char          *title);
CrStepText *cr_step_text_new_no_graph      (void);
CrStepText *cr_step_text_new_forward_error (const CrRunRecord   *record,
                                            const CrRecordError *error,
                                            const char          *title);
/* The step as plain text: the header's lines (the op's glyph, when it has
 * one, on a line of its own first), then each section's heading
 * and its items in order, formulas and rules indented, a long formula over
 * several lines (new string, lines end in '\n'). */
char       *cr_step_text_plain (const CrStepText  *self);
/* One section as cr_step_text_plain() prints it: its heading and its
 * items (new string, lines end in '\n'). */
char       *cr_step_text_section_plain (const CrStepTextSection *s);
/* An item as plain lines, as cr_step_text_plain() prints it (without the
 * indent): a long formula over several, one "= ..." a line (new array of
 * new strings). */
GPtrArray  *cr_step_text_item_lines (const CrStepTextItem *item);
/* The section that tells the error a backward call (or the script) stopped
 * with, under lead (new; error may be NULL: the lead alone). */
CrStepTextSection *cr_step_text_error_section (const CrRunRecord   *record,
                                               const CrRecordError *error,
                                               const char          *lead);
void        cr_step_text_section_free (CrStepTextSection *s);   /* NULL-safe */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrStepText, cr_step_text_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrStepTextSection, cr_step_text_section_free)

/* ---- the sentences, one by one (the card builds its widgets with them) ---- */

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
extern const char *const CR_STEP_TEXT_FAILED_LEAD;
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
