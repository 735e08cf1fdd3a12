/* cr-run-recorder-training.h — the run record's parameter updates
 * (record->updates, cr-run-record.h): each parameter's share of an
 * optimizer's step, told by the prelude's Optimizer through two natives,
 * and the script's own updates (`w -= lr * w.grad` under no_grad, `p.data
 * -= ...`), seen by the version observer. Private to core/lang; the run
 * recorder owns the watch.
 *
 * Every function is a no-op when the run records nothing. */
#pragma once

#include "cr-interp.h"

G_BEGIN_DECLS

typedef struct _CrTrainingWatch CrTrainingWatch;

CrTrainingWatch *cr_training_watch_new  (void);
void             cr_training_watch_free (CrTrainingWatch *watch);   /* NULL-safe */

/* t's values changed in place (the version observer): with grad mode off,
 * after a backward, on a leaf that requires grad (or its .data), that is a
 * manual update. */
void cr_training_watch_bump      (CrInterp *interp,
                                  CrTensor *t);
/* t.grad was read: a leaf's storage is remembered, so that a change
 * through t.data is known as t's. */
void cr_training_watch_grad_read (CrInterp *interp,
                                  CrTensor *t);
/* print() wrote text: inside a loop, after a backward call, each number
 * it shows after a word ("loss 0.25", "acc=0.9", "loss: 1e-3") enters the
 * record's printed numbers. */
void cr_training_watch_printed   (CrInterp   *interp,
                                  const char *text);
/* At the end of the run: the updates' names where their tensor had none
 * when they were taken. */
void cr_training_watch_run_end   (CrInterp *interp);

/* torch._C._record_step(optimizer) and torch._C._record_update(group_index,
 * group, param, state, after) into c_module (the torch binding's torch._C),
 * with torch._C._recording(): whether the run records. */
void cr_training_install_natives (CrValue  *c_module);

G_END_DECLS
