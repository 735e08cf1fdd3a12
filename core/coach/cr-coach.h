/* cr-coach.h — the mistakes coach: recognises the classic autograd mistakes
 * in a finished run and explains each, pinned to its line, a node and a
 * tensor of the graph, with the fix as one edit of the script's text
 * (issue 12).
 *
 * The coach reads the run record (core/record/cr-run-record.h) and a few
 * notes the interpreter took while the script ran, of what the record does
 * not keep (a .grad read that gave None, a parameter changed in place, a
 * value turned into a Python number). It adds its findings to
 * record->findings; `chainrule run --coach` prints them, the window pins
 * them to the code and the graph.
 *
 * Silence matters as much as detection: each detector fires only on the
 * evidence of its mistake (gradients that grew from one iteration to the
 * next of a loop that also changed the parameter, not an intended
 * accumulation over a batch loop), and says nothing where it is unsure. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* The kinds of finding (CrRecordFinding.kind). */
#define CR_COACH_ZERO_GRAD_FORGOTTEN    "zero-grad-forgotten"
#define CR_COACH_UPDATE_OUTSIDE_NO_GRAD "update-outside-no-grad"
#define CR_COACH_NON_LEAF_GRAD          "non-leaf-grad"
#define CR_COACH_BACKWARD_TWICE         "backward-twice"
#define CR_COACH_IN_PLACE_SAVED         "in-place-saved"
#define CR_COACH_INT_REQUIRES_GRAD      "int-requires-grad"
#define CR_COACH_GRADIENT_CUT           "gradient-cut"
#define CR_COACH_GRAD_OVERWRITTEN       "grad-overwritten"

/* What the interpreter saw that the record does not keep. */
typedef enum {
  CR_COACH_NOTE_NON_LEAF_GRAD,     /* .grad of a non-leaf read: None, with PyTorch's
                                    * warning; tensor: the non-leaf */
  CR_COACH_NOTE_LEAF_UPDATED,      /* a leaf's values changed in place (optimizer.step(),
                                    * w -= lr * w.grad under no_grad, w.data -= ...);
                                    * tensor: the leaf */
  CR_COACH_NOTE_GRADIENT_CUT,      /* .item(), .tolist(), .detach() or .data of a tensor
                                    * that requires grad; what says which */
  CR_COACH_NOTE_GRAD_OVERWRITTEN,  /* obj.grad = v on an object (no tensor) whose .grad
                                    * held a gradient nothing had read yet; other_span:
                                    * the statement that stored that gradient */
} CrCoachNoteKind;

typedef struct {
  CrCoachNoteKind  kind;
  CrSpan           span;           /* the script's statement running */
  CrSpan           other_span;     /* GRAD_OVERWRITTEN: see above; else {0} */
  int              tensor;         /* index in the record's tensors, -1 */
  guint            n_backwards;    /* backward calls in the record when it happened */
  guint            n_errors;       /* errors in the record when it happened */
  const char      *what;           /* GRADIENT_CUT: "item", "tolist", "detach", "data"
                                    * (static); else NULL */
} CrCoachNote;

/* A new, empty array of CrCoachNote for the interpreter to fill. */
GArray     *cr_coach_notes_new     (void);

/* Examines record and notes (may be NULL) and appends every finding to
 * record->findings, ordered by line. Call once, when the record is
 * complete (its uncaught error included). */
void        cr_coach_examine       (CrRunRecord            *record,
                                    GArray                 *notes);

/* source with finding's fix applied (new string); NULL when the finding
 * has no fix or its span lies outside source. */
char       *cr_coach_apply_fix     (const char             *source,
                                    const CrRecordFinding  *finding);

/* A few words for a finding of kind, short enough for a badge on the
 * graph: "gradients add up", "no longer a leaf" (static); the kind itself
 * when unknown. */
const char *cr_coach_short_title   (const char             *kind);

/* The lines the fix leaves where it applies, for "fix: ..." (new string,
 * several lines separated by '\n', no last newline); NULL without a fix. */
char       *cr_coach_fixed_line    (const char             *source,
                                    const CrRecordFinding  *finding);

G_END_DECLS
