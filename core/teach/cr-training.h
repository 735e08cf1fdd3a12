/* cr-training.h — a training loop read off the run record: the loss of
 * each backward call, each parameter's values over its updates, and each
 * update told as its rule with the numbers (cr-training-rules.h: SGD with
 * momentum, dampening, Nesterov and weight decay; Adam and AdamW with
 * AMSGrad; RMSprop; Adagrad; a manual `w -= lr * w.grad`). What
 * `chainrule train` prints and the window's Training view shows; plain
 * data and text, no drawing. */
#pragma once

#include "cr-run-record.h"

G_BEGIN_DECLS

/* One backward call with a one-element loss. */
typedef struct {
  guint  backward;    /* index in record->backwards */
  guint  iteration;   /* the call's loop iteration, 0: none */
  double loss;
} CrTrainingPoint;

/* A parameter the run updated, and its updates in order. */
typedef struct {
  int     tensor;     /* index in record->tensors, -1: unknown */
  char   *name;       /* its label: "fc1.weight" */
  GArray *updates;    /* of guint: indices in record->updates */
} CrTrainingParam;

/* A number the script printed in its loop, over the backward calls: each
 * name of each print line (record->printed) whose values are not all
 * whole numbers (a step counter says nothing). */
typedef struct {
  char   *name;       /* "loss" */
  int     line;       /* the print statement's */
  GArray *points;     /* of CrTrainingPoint: backward, iteration, the value as loss */
} CrTrainingSeries;

/* The printed series, in the order they were first printed. New GPtrArray
 * of CrTrainingSeries* (it frees them). */
GPtrArray  *cr_training_printed_series (const CrRunRecord    *record);

/* The loss curve: a point per backward call whose first root has one
 * element, in order. New GArray of CrTrainingPoint. */
GArray     *cr_training_loss_curve    (const CrRunRecord     *record);
/* Whether the record is of a training loop: two or more backward calls
 * with a loss, or any parameter update. */
gboolean    cr_training_is_loop       (const CrRunRecord     *record);
/* The parameters updated, in the order of their first update. New
 * GPtrArray of CrTrainingParam* (it frees them). */
GPtrArray  *cr_training_params        (const CrRunRecord     *record);
/* The updates that came after backward call `backward` and before the
 * next one (indices in record->updates). New GArray of guint. */
GArray     *cr_training_updates_after (const CrRunRecord     *record,
                                       int                    backward);
/* The update's rule, one line: "p ← p − lr·g", "m ← β₁·m + (1−β₁)·g; …"
 * (static text). */
const char *cr_training_rule          (const CrRecordUpdate  *update);
/* The update told line by line with its numbers, for element `element`
 * (row-major; clamped to the tensor) and the whole tensor where it is
 * small: a heading ("SGD step 3 · W1 · lr = 0.5"), each line of the rule
 * with the element's numbers, then the parameter before and after. New
 * string, lines ending in '\n'. */
char       *cr_training_explain       (const CrRunRecord     *record,
                                       const CrRecordUpdate  *update,
                                       gint64                 element);
/* The same for a narrow pane: each rule's arithmetic on the line under
 * it, its result on the next (narrow TRUE). */
char       *cr_training_explain_narrow (const CrRunRecord    *record,
                                        const CrRecordUpdate *update,
                                        gint64                element,
                                        gboolean              narrow);
/* The pieces of cr_training_explain_narrow, for a page that lays them out
 * itself. The update's heading: "W · Adam step 3, line 12 · iteration 3 ·
 * shape [2, 8]" (new string). */
char       *cr_training_update_heading (const CrRunRecord    *record,
                                        const CrRecordUpdate *update);
/* Its options worth saying: "lr = 0.01, beta1 β₁ = 0.9, …"; NULL when none
 * is (new string). */
char       *cr_training_update_options (const CrRecordUpdate *update);
/* A number as the rules write it: 5 significant digits, "?" for NaN (new
 * string). */
char       *cr_training_number_text    (double                value);
/* A snapshot's values as a flat list, "0.5, -1.2, …" (up to 16, all kept),
 * else "norm N, mean M"; "None" for NULL (new string). */
char       *cr_training_values_list    (const CrTensorSnapshot *snapshot);
/* A snapshot's values as Python's tolist() prints them (nested lists,
 * repr of each double; a 0-d tensor as one number), or "norm N" when its
 * values were cut. New string. */
char       *cr_training_values_text   (const CrTensorSnapshot *snapshot);
/* An element's index as the script writes it: "[0, 1]"; "" for a 0-d
 * tensor. New string. */
char       *cr_training_index_text    (const CrTensorSnapshot *snapshot,
                                       gint64                  element);

G_END_DECLS
