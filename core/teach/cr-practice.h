/* cr-practice.h — predict, then reveal: the questions a backward step of
 * the run record asks a learner, and the checker of their answers.
 *
 * At each backward step the learner works out what the step computes
 * before they see it: the gradient the node sends on to each input (and,
 * one level harder, each input's local gradient first), the gradient that
 * reaches a tensor along two paths (the fan-in sum), the .grad an
 * AccumulateGrad step leaves; at a step of the forward pass, the value
 * the op computes from its inputs. They type a number or the entries of a small
 * tensor ("[1, 2; 3, 4]", "[[1, 2], [3, 4]]", "1 2 3 4", "-1/3"), or pick
 * one of the question's choices. The checker says right, right within
 * tolerance, wrong or wrong shape, and why, in sentences a student reads:
 * the rule (∂(a·b)/∂a = b), the product (incoming × local), the sum over a
 * broadcast dim, a flipped sign, a transposed matrix, the other path's
 * contribution that was left out.
 *
 * Tolerance: an entry x typed for the exact e is right when
 *   |x − e| ≤ max (1e-3·|e|, 1e-4·m, 1e-6)
 * where m is the largest |entry| of the whole answer: relative 1e-3 (four
 * significant digits typed are enough), with an absolute floor that lets
 * an entry printed as 0.0000 beside a 1.5 be typed as 0, and float32's
 * rounding near zero pass. Within 1e-6·max (1, |e|) it is exact (RIGHT);
 * within the tolerance but not exact it is CLOSE.
 *
 * Everything here is computed from the record alone (no engine, no
 * screen); a question holds a reference to its record. */
#pragma once

#include "cr-run-record.h"

G_BEGIN_DECLS

/* How much of the step is hidden. */
typedef enum {
  CR_PRACTICE_LEVEL_SENT,        /* the gradient sent on; the local gradient is shown */
  CR_PRACTICE_LEVEL_LOCAL,       /* harder: the local gradient too, asked first */
} CrPracticeLevel;

/* What a question asks for. */
typedef enum {
  CR_PRACTICE_ASK_SENT,          /* ∂L/∂in: what the node sends to input `input` */
  CR_PRACTICE_ASK_LOCAL,         /* ∂out/∂in: input `input`'s local gradient */
  CR_PRACTICE_ASK_FAN_IN,        /* the sum so far of accumulation `input` of the step:
                                  * gradient that reached one tensor along several paths */
  CR_PRACTICE_ASK_LEAF_GRAD,     /* an AccumulateGrad step: the leaf's .grad after it */
  CR_PRACTICE_ASK_FORWARD,       /* a forward step: the value the op computes from its
                                  * inputs ("What is c = a * b?") */
} CrPracticeAsk;

typedef enum {
  CR_PRACTICE_RIGHT,             /* every entry exact (to float32's precision) */
  CR_PRACTICE_CLOSE,             /* right within the tolerance, not exact */
  CR_PRACTICE_WRONG,             /* the right shape, a wrong value */
  CR_PRACTICE_WRONG_SHAPE,       /* the wrong number or arrangement of entries */
  CR_PRACTICE_UNREADABLE,        /* not a number or a tensor the parser reads */
} CrPracticeVerdictKind;

/* The mistake a wrong answer (or a distractor choice) looks like. */
typedef enum {
  CR_PRACTICE_MISTAKE_NONE,           /* right, or a wrong value the checker cannot place */
  CR_PRACTICE_MISTAKE_SIGN,           /* −answer */
  CR_PRACTICE_MISTAKE_NO_PRODUCT,     /* the incoming gradient passed on unchanged */
  CR_PRACTICE_MISTAKE_LOCAL_ONLY,     /* the local gradient, not times the incoming one */
  CR_PRACTICE_MISTAKE_OTHER_LOCAL,    /* times the other input's local gradient (∂(a·b)/∂a
                                       * taken as a, not b) */
  CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM, /* the product before its sum to the input's shape */
  CR_PRACTICE_MISTAKE_MEAN_NOT_SUM,   /* a broadcast's product averaged, not summed */
  CR_PRACTICE_MISTAKE_TRANSPOSED,     /* the answer's transpose */
  CR_PRACTICE_MISTAKE_ONE_PATH,       /* one path's contribution, not the fan-in sum */
  CR_PRACTICE_MISTAKE_GRAD_BEFORE,    /* AccumulateGrad: the new gradient only, without what
                                       * .grad already held */
  CR_PRACTICE_MISTAKE_PRODUCT_AS_LOCAL, /* asked the local gradient, gave incoming × local */
} CrPracticeMistake;

/* One of a question's choices. */
typedef struct {
  char              *text;       /* "[0.5, -1, 1.5]", "−2.25" as the card shows it */
  gboolean           right;
  CrPracticeMistake  mistake;    /* what a wrong choice is built from */
} CrPracticeChoice;

typedef struct {
  CrRunRecord       *record;     /* a reference held */
  int                backward;   /* index in record->backwards; -1: FORWARD */
  int                step;       /* index in that call's steps; FORWARD: the op's index
                                  * in record->ops */
  CrPracticeAsk      ask;
  int                input;      /* SENT, LOCAL: index in step->inputs; FAN_IN: in
                                  * step->accumulations; LEAF_GRAD: -1 */
  char              *name;       /* what is asked: "∂L/∂w1", "∂b/∂w1", "w4.grad" */
  char              *prompt;     /* one sentence: "What does this step send on to w1?" */
  const CrTensorSnapshot *expected; /* the answer, borrowed from record */
  GPtrArray         *choices;    /* of CrPracticeChoice*: 3 to 5, the right one among
                                  * them, in an order fixed by the step */
} CrPracticeQuestion;

typedef struct {
  CrPracticeVerdictKind kind;
  CrPracticeMistake     mistake;
  char                 *headline;  /* "Right.", "Right within tolerance.", "Not quite.",
                                    * "Wrong shape.", "Can't read that." */
  char                 *why;       /* a few sentences: what was wrong and why, or how
                                    * the answer comes about; plain text, no markup */
  char                 *answer;    /* the right answer as text, "[-1, 2, 0.5]" */
  double                max_error; /* the largest |typed − answer| over the entries
                                    * (NaN unless the shapes agree) */
} CrPracticeVerdict;

/* The questions step `step` of backward call `backward` asks at level (new
 * array of CrPracticeQuestion*, owning; empty when it asks none: a step
 * that failed, a custom Function's backward, a tensor of more than 64
 * entries or one whose values the record does not keep). In the order the
 * card shows them: per input its local gradient (LEVEL_LOCAL), then what
 * is sent on; the fan-in sums last. */
GPtrArray         *cr_practice_questions (const CrRunRecord *record,
                                          int                backward,
                                          int                step,
                                          CrPracticeLevel    level);
/* The question forward op `op` (index in record->ops) asks: what it
 * computes (new owning array, of one question or none: an op whose inputs'
 * or result's values the record does not keep, of more than 64 entries, of
 * several outputs, in place or a custom Function). */
GPtrArray         *cr_practice_forward_questions (const CrRunRecord *record,
                                                  int                op);
void               cr_practice_question_free (CrPracticeQuestion *self);  /* NULL-safe */

/* The verdict on `typed` (new; never NULL). */
CrPracticeVerdict *cr_practice_check        (const CrPracticeQuestion *question,
                                             const char               *typed);
/* The verdict on choice `choice` (index in question->choices). */
CrPracticeVerdict *cr_practice_check_choice (const CrPracticeQuestion *question,
                                             guint                     choice);
void               cr_practice_verdict_free (CrPracticeVerdict *self);    /* NULL-safe */

/* Whether a verdict counts as right for the score (RIGHT or CLOSE). */
gboolean           cr_practice_verdict_is_right (const CrPracticeVerdict *self);

/* ---- typed answers (cr-practice-answer.c) ---------------------------------- */

/* A typed number or tensor: its entries row-major and the shape its
 * brackets or rows gave (ndim 0: one bare number; 1: a flat list). */
typedef struct {
  GArray *values;                /* of double */
  int     ndim;
  gint64  shape[CR_MAX_DIMS];
} CrPracticeAnswer;

/* Reads "2", "-1.5e-3", "−1/3", "1 2 3 4", "1, 2, 3", "[1, 2; 3, 4]",
 * "[[1, 2], [3, 4]]", "tensor([1., 2.])". NULL with error (CR_EXC_VALUE_ERROR,
 * a sentence for the learner) when it is none of those or ragged. */
CrPracticeAnswer  *cr_practice_answer_parse (const char  *text,
                                             GError     **error);
void               cr_practice_answer_free  (CrPracticeAnswer *self);    /* NULL-safe */

/* values (row-major, shape) as the card and the choices write them:
 * "-2.25", "[0.5, -1]", "[[1, 2], [3, 4]]", numbers by %.4g (new string). */
char              *cr_practice_values_text  (const double *values,
                                             const gint64 *shape,
                                             int           ndim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrPracticeQuestion, cr_practice_question_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrPracticeVerdict, cr_practice_verdict_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrPracticeAnswer, cr_practice_answer_free)

G_END_DECLS
