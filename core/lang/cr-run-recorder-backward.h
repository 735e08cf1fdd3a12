/* cr-run-recorder-backward.h — the backward side of the run record: every
 * backward call (t.backward(), torch.autograd.backward, torch.autograd.grad,
 * and so autograd.functional and double backward) and its steps, filled
 * from the engine's observer (cr-engine.h) while the call runs.
 *
 * A step holds what a student needs to check the chain rule at one node:
 * the hooks that ran on its incoming gradients and what they returned
 * (register_hook, retain_grad), the incoming gradients after them, and per
 * input the local gradient, the product, the sum-to-shape of a broadcast and
 * the gradient sent on; a custom Function's own backward; every second and
 * later gradient added into a buffer, with the running sum; a leaf's .grad
 * before and after its AccumulateGrad. Saved tensors are marked freed at the
 * step that freed them, and a failing node's error points at its step.
 *
 * Private to core/lang; cr-torch-backward-record.c drives it from the same
 * observer calls that make --trace-backward. Nothing here runs unless the
 * run records (cr_run_recorder_get). */
#pragma once

#include "cr-interp.h"
#include "cr-engine.h"
#include "cr-tensor.h"
#include "cr-native.h"

G_BEGIN_DECLS

typedef struct _CrBackwardRecorder CrBackwardRecorder;

/* A new backward call in the record, started from roots at the statement
 * running now; root_name is the numerator of every ∂ ("L"). NULL when the
 * run records nothing. */
CrBackwardRecorder *cr_backward_recorder_begin  (CrInterp             *self,
                                                 CrTensor *const      *roots,
                                                 guint                 n_roots,
                                                 const char           *root_name);
/* With several roots, the gradient each starts from (grad_roots may be
 * NULL, or hold NULL: the implicit 1 of a scalar root). NULL-safe. */
void                cr_backward_recorder_set_root_grads (CrBackwardRecorder *self,
                                                         CrTensor *const    *roots,
                                                         CrTensor *const    *grad_roots,
                                                         guint               n_roots);
/* What kind of call it is: retain_graph, create_graph, and autograd.grad
 * (options->inputs without accumulate_inputs). NULL-safe. */
void                cr_backward_recorder_set_options (CrBackwardRecorder      *self,
                                                      const CrBackwardOptions *options);
/* The observer's calls (see CrBackwardObserver). */
void                cr_backward_recorder_step   (CrBackwardRecorder   *self,
                                                 const CrBackwardStep *step);
void                cr_backward_recorder_accumulate (CrBackwardRecorder *self,
                                                     CrNode             *node,
                                                     guint32             input_nr,
                                                     CrTensor           *contribution,
                                                     CrTensor           *running_sum);
void                cr_backward_recorder_hook   (CrBackwardRecorder   *self,
                                                 CrNode               *node,
                                                 guint32               output_nr,
                                                 const CrTensorHook   *hook,
                                                 CrTensor             *before,
                                                 CrTensor             *after);
/* A hook that raised: listed among the step's hooks, raised set. */
void                cr_backward_recorder_hook_raised (CrBackwardRecorder *self,
                                                      CrNode             *node,
                                                      guint32             output_nr,
                                                      const CrTensorHook *hook,
                                                      CrTensor           *before);
void                cr_backward_recorder_failed (CrBackwardRecorder   *self,
                                                 CrNode               *node,
                                                 CrTensor *const      *grad_outputs,
                                                 const GError         *error);
/* The call's error when it failed before any node ran (a root's gradient
 * of the wrong shape); a no-op when a node's failure recorded it already. */
void                cr_backward_recorder_error  (CrBackwardRecorder   *self,
                                                 const GError         *error);
/* Ends the call and frees self (NULL-safe). */
void                cr_backward_recorder_end    (CrBackwardRecorder   *self,
                                                 gboolean              succeeded);

/* For the recorder, from cr-torch-function.c: the script's function behind
 * a register_hook hook, NULL for a hook that is not the script's; a custom
 * autograd.Function node's backward, NULL for any other node. Borrowed. */
CrValue            *cr_torch_hook_function      (const CrTensorHook   *hook);
CrValue            *cr_torch_custom_backward_function (CrNode         *node);

/* torch._C._record_module_hook(hook, grad_input, returned), called by the
 * prelude's nn.Module after each full backward hook: a hook call of kind
 * MODULE on the step of the node running it. */
CrValue            *cr_torch_native_record_module_hook (CR_NATIVE_PARAMS);

/* Attached to the observer_data of cr_interp_backward_begin (the run
 * cr-torch-backward-record.c keeps): the call's options, from run_backward. */
void                cr_interp_backward_set_options (CrInterp                *self,
                                                    gpointer                 observer_data,
                                                    const CrBackwardOptions *options);
/* The gradients a backward call of several roots starts from (see
 * cr_backward_recorder_set_root_grads), from run_backward. */
void                cr_interp_backward_set_root_grads (CrInterp        *self,
                                                       gpointer         observer_data,
                                                       CrTensor *const *roots,
                                                       CrTensor *const *grad_roots,
                                                       guint            n_roots);
/* The error a backward call failed with, before cr_interp_backward_end. */
void                cr_interp_backward_set_error   (CrInterp                *self,
                                                    gpointer                 observer_data,
                                                    const GError            *error);

G_END_DECLS
