/* cr-training-rules.h — one element of one optimizer step worked out by
 * its rule, PyTorch 1.13's single-tensor update (torch/optim/sgd.py,
 * adam.py, adamw.py, rmsprop.py, adagrad.py) in double from the numbers the
 * record keeps before the step: the parameter, its .grad, the optimizer's
 * state and options. Each line of the rule carries its arithmetic and its
 * result, and the step's results (the parameter after, each state entry
 * after) can be held against what the record kept after the step: the
 * rule told is the rule that ran. Plain data; cr-training.h writes it as
 * text. */
#pragma once

#include "cr-run-record.h"

G_BEGIN_DECLS

/* One line of a rule with its numbers: "m ← β₁·m + (1−β₁)·g", then
 * "0.9 × 0 + 0.1 × -2.9", then -0.29. */
typedef struct {
  char   *rule;
  char   *arithmetic;     /* NULL: the line is its result alone ("g = p.grad") */
  double  result;         /* NaN: a number the record does not keep */
} CrTrainingRuleLine;

/* A state entry as the rule leaves it: ("exp_avg", -0.289). */
typedef struct {
  const char *name;       /* static */
  double      value;
} CrTrainingRuleState;

typedef struct {
  /* TRUE: the lines are the optimizer's rule, worked from the numbers
   * before the step. FALSE: its rule is not told (an optimizer other than
   * SGD, Adam, AdamW, RMSprop, Adagrad; or a manual update, which the
   * lines tell from the parameter before and after). */
  gboolean   told;
  GPtrArray *lines;       /* of CrTrainingRuleLine* */
  double     after;       /* the parameter's element after, by the rule; NaN: not told */
  GArray    *state;       /* of CrTrainingRuleState: each state entry after, by the rule */
} CrTrainingWorked;

/* Works out element `element` (row-major; clamped to the parameter) of
 * `update`. New; cr_training_worked_free. */
CrTrainingWorked *cr_training_work           (const CrRecordUpdate *update,
                                              gint64                element);
void              cr_training_worked_free    (CrTrainingWorked     *worked);
/* The state entry `name` by the rule; NaN when the rule has none. */
double            cr_training_worked_state   (const CrTrainingWorked *worked,
                                              const char             *name);
/* Whether the optimizer's rule is told ("SGD", "Adam", "AdamW", "RMSprop",
 * "Adagrad"). */
gboolean          cr_training_rule_is_told   (const CrRecordUpdate *update);
/* An element's value in a snapshot: a one-element snapshot's only value
 * for any element; NaN when the snapshot is NULL or does not keep it (a
 * big tensor keeps a few of its values). */
double            cr_training_value_at       (const CrTensorSnapshot *snapshot,
                                              gint64                  element);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrTrainingWorked, cr_training_worked_free)

G_END_DECLS
