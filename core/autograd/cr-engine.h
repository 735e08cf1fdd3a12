/* cr-engine.h — the one backward engine: tensor.backward(), torch.autograd.grad
 * and the step-by-step view all run through cr_autograd_run().
 *
 * Order is PyTorch's: nodes become ready when every gradient they will receive
 * has arrived (dependency counting from the roots), and among ready nodes the one
 * with the highest sequence number runs first (AccumulateGrad nodes, whose
 * sequence number is the largest, run as soon as they are ready). No recursion:
 * a 45k-node path is fine.
 *
 * An observer sees each node as it runs: incoming gradient(s), each input's
 * local gradient where the op has an elementwise one, and the gradients it
 * sends on; and every time a gradient buffer gets a second (third, ...)
 * contribution, the contribution and the running sum. All tensors passed to
 * the observer are borrowed for the duration of the call; ref what you keep. */
#pragma once

#include "cr-types.h"
#include "cr-node.h"

G_BEGIN_DECLS

typedef struct {
  guint            index;           /* 0, 1, 2 ... in execution order */
  CrNode          *node;
  guint            n_outputs;
  CrTensor *const *grad_outputs;    /* ∂L/∂out per output (NULL where none) */
  guint            n_inputs;
  CrTensor *const *local_grads;     /* ∂out/∂in per input, NULL where none */
  CrTensor *const *grad_inputs;     /* sent on, per input (NULL: no edge) */
  /* AccumulateGrad only: the leaf and its .grad before and after. */
  CrTensor        *leaf;
  CrTensor        *grad_before;     /* NULL when .grad was None */
  CrTensor        *grad_after;
  /* Per input (NULL itself when no input was): the gradient as the backward
   * formula returned it, before the engine summed it to the input's shape (a
   * broadcast input) or cast it to the input's dtype; NULL where it did
   * neither, so grad_inputs[i] is that gradient. */
  CrTensor *const *unreduced_grads;
} CrBackwardStep;

typedef struct {
  void (*step)        (gpointer              user_data,
                       const CrBackwardStep *step);
  /* A second or later gradient reached input input_nr of node. */
  void (*accumulate)  (gpointer              user_data,
                       CrNode               *node,
                       guint32               input_nr,
                       CrTensor             *contribution,
                       CrTensor             *running_sum);
  /* A hook ran on the gradient reaching output output_nr of node (a tensor
   * hook or retain_grad()'s, among node's pre-hooks; for a leaf's own hooks,
   * node is its AccumulateGrad), before node runs: before is the gradient
   * it was called with, after the one it returned (NULL: it returned None,
   * the gradient goes on unchanged). May be NULL. */
  void (*hook)        (gpointer              user_data,
                       CrNode               *node,
                       guint32               output_nr,
                       const struct _CrTensorHook *hook,
                       CrTensor             *before,
                       CrTensor             *after);
  /* Running node failed (its hooks, its backward formula, the gradients it
   * returned or adding them into their receivers' buffers) with error; index
   * is its step's; grad_outputs what it was given, after the hooks that ran
   * (NULL once they are gone). The run stops. May be NULL. */
  void (*failed)      (gpointer              user_data,
                       CrNode               *node,
                       guint                 index,
                       CrTensor *const      *grad_outputs,
                       const GError         *error);
  /* A hook (as for hook above) raised error on before, the gradient it was
   * called with; failed follows for node. May be NULL. */
  void (*hook_raised) (gpointer              user_data,
                       CrNode               *node,
                       guint32               output_nr,
                       const struct _CrTensorHook *hook,
                       CrTensor             *before,
                       const GError         *error);
} CrBackwardObserver;

typedef struct {
  gboolean                   retain_graph;
  gboolean                   create_graph;
  /* torch.autograd.grad: compute the gradient of inputs instead of
   * accumulating into leaves' .grad. */
  CrTensor *const           *inputs;
  guint                      n_inputs;
  gboolean                   allow_unused;
  /* tensor.backward(inputs=...): with inputs set, run only what reaches them
   * and accumulate into their .grad (leaves through AccumulateGrad and their
   * hooks, non-leaves through retain_grad's hook, which the caller installs)
   * instead of returning the gradients; out_grads may be NULL. */
  gboolean                   accumulate_inputs;
  const CrBackwardObserver  *observer;       /* may be NULL */
  gpointer                   observer_data;
  /* Checked between nodes; set it (from any thread) to cancel. */
  const gint                *cancel_flag;    /* may be NULL */
} CrBackwardOptions;

/* tensor.backward(gradient) over several roots. grad_roots[i] may be NULL for a
 * scalar root (implicit 1; otherwise PyTorch's "grad can be implicitly created
 * only for scalar outputs"). With options->inputs set, returns in *out_grads a
 * new array (n_inputs entries, each a new ref or NULL when unused) instead of
 * writing .grad (unless options->accumulate_inputs); pass NULL for out_grads
 * otherwise. */
gboolean   cr_autograd_run      (CrTensor *const         *roots,
                                 CrTensor *const         *grad_roots,
                                 guint                    n_roots,
                                 const CrBackwardOptions *options,
                                 CrTensor              ***out_grads,
                                 GError                 **error);

/* Convenience for t.backward(gradient, retain_graph, create_graph). */
gboolean   cr_tensor_backward   (CrTensor                *self,
                                 CrTensor                *gradient,
                                 gboolean                 retain_graph,
                                 gboolean                 create_graph,
                                 const CrBackwardObserver *observer,
                                 gpointer                 observer_data,
                                 GError                 **error);

G_END_DECLS
