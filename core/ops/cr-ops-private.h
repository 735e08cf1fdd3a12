/* cr-ops-private.h — helpers the op files share for recording and for writing
 * backward formulas (not for the interpreter or the UI). */
#pragma once

#include "cr-ops.h"
#include "cr-node.h"
#include "cr-autograd-private.h"

G_BEGIN_DECLS

/* When grad mode is on and one of inputs requires grad: a node for op over
 * inputs, made out's history (output 0). Returns the node, borrowed (out owns
 * it), to save tensors and arguments on; NULL when nothing was recorded.
 * Integer and bool results never record (they cannot require grad). */
CrNode   *cr_ops_record          (CrOpId           op,
                                  CrTensor *const *inputs,
                                  guint            n_inputs,
                                  CrTensor        *out);
/* Keeps the Python number node took in place of a tensor in its args
 * (number), for the run record; cr_ops_record notes a wrapped number input
 * itself. */
void      cr_ops_note_number     (CrNode          *node,
                                  double           number,
                                  gboolean         is_int);
/* The same for number when it is a wrapped Python number
 * (cr_ops_wrap_number); nothing for another tensor. */
void      cr_ops_note_wrapped_number (CrNode         *node,
                                      const CrTensor *number);

/* A Python number as an op operand: a 0-d wrapped tensor (is_wrapped_number),
 * int64 when value is integral and integral is TRUE, float64 otherwise, so it
 * never changes the dtype of the tensor it meets. */
CrTensor *cr_ops_wrap_number     (double           value,
                                  gboolean         integral);

/* Zeros of meta's shape and dtype. */
CrTensor *cr_ops_zeros_meta      (const CrTensorMeta *meta,
                                  GError         **error);
/* A 0-d zero of t's dtype (PyTorch's at::zeros({}, grad.options())). */
CrTensor *cr_ops_zero_scalar_like(const CrTensor  *t);

/* Makes node the grad_fn of out (output 0) and drops the caller's reference. */
static inline void
cr_ops_attach (CrTensor *out,
               CrNode   *node)
{
  cr_autograd_set_history_take (out, node, 0);
}

/* Records op's node for out = beta·self + alpha·(a ∘ b), inputs {self, a,
 * b} (addmm, addmv, addr, baddbmm, addbmm): beta and alpha as its scalars
 * when either is not 1, as PyTorch saves them; a saved for b's gradient, b
 * for a's. Returns out (NULL stays NULL). */
CrTensor *cr_ops_record_scaled_product (CrOpId    op,
                                        CrTensor *inputs[3],
                                        double    beta,
                                        double    alpha,
                                        CrTensor *out);

/* What that node keeps (the scalars, a and b), on a node made elsewhere
 * (the in-place forms' rebased node). */
void      cr_ops_keep_scaled_product (CrNode   *node,
                                      CrTensor *inputs[3],
                                      double    beta,
                                      double    alpha);

/* Records op over inputs for an in-place write into inputs[0] (self, with
 * its history before the write) and makes the node self's history, through
 * CopySlices when self is a view (PyTorch's rebase_history; cr-ops-inplace.c).
 * The node (borrowed), or NULL when not recording. */
CrNode   *cr_ops_rebase_history  (CrOpId           op,
                                  CrTensor *const *inputs,
                                  guint            n_inputs);

/* Unpacks the saved slots from first_slot on without using them: a tensor
 * PyTorch's node keeps only to show it (_saved_index, _saved_self) still
 * fails the backward when it was changed in place, as PyTorch's does. */
gboolean  cr_ops_check_saved_from (CrNode         *node,
                                   guint           first_slot,
                                   GError        **error);

/* t times the node's args->scalar[which] when one was given (PyTorch's
 * maybe_multiply: the factor 1 records nothing, another MulBackward1); a
 * new ref (addmm's and its relatives' beta and alpha). */
CrTensor *cr_ops_maybe_multiply  (CrNode          *node,
                                  int              which,
                                  CrTensor        *t,
                                  GError         **error);

/* Does input i of node need a gradient (has an edge)? */
static inline gboolean
cr_ops_needs_grad (const CrNode *node,
                   guint         i)
{
  return node->next[i].node != NULL;
}

/* t * number and t + number in a formula, recorded under create_graph as
 * PyTorch's C++ `t * 2` (mul.Scalar: MulBackward1) and `t + 1` (add.Scalar:
 * AddBackward1). */
CrTensor *cr_ops_mul_number      (CrTensor        *t,
                                  double           number,
                                  GError         **error);
CrTensor *cr_ops_add_number      (CrTensor        *t,
                                  double           number,
                                  GError         **error);

/* The kernel of a unary op of cr_unary and what its formula saves in slot 0
 * (0: nothing, 1: the input, 2: the output); FALSE for any other op. */
gboolean  cr_ops_unary_info      (CrOpId           op,
                                  CrUnaryOp       *kernel,
                                  int             *save);
/* The node of op's in-place form (op itself, or its CR_UNARY_INPLACE row). */
CrOpId    cr_ops_unary_inplace_node (CrOpId        op);
/* op's parameters: given, or the row's defaults when NULL, then the row's
 * check (FALSE with PyTorch's error). */
gboolean  cr_ops_unary_params_resolve (CrOpId               op,
                                  const CrUnaryParams *given,
                                  CrUnaryParams       *out,
                                  GError             **error);
/* Keeps a row's parameters in node's args (scalar[i], scalar_int_mask). */
void      cr_ops_unary_params_keep (CrNode             *node,
                                  CrOpId               op,
                                  const CrUnaryParams *params);

/* max (is_min: min) of x over the sorted dims, kept as size 1; kernels
 * only, no graph (cr-ops-stats.c). */
CrTensor *cr_ops_extremum_keepdim (const CrTensor *x,
                                  const int       *dims,
                                  int              n_dims,
                                  gboolean         is_min,
                                  GError         **error);

/* torch.clamp's check that a bound is given (clamp and clamp_). */
gboolean  cr_ops_check_clamp_bounds (gboolean      has_min,
                                  gboolean         has_max,
                                  GError         **error);

/* PyTorch's maybe_wrap_dim: makes *dim non-negative for a tensor of ndim
 * dims (a 0-d tensor accepts -1 and 0); IndexError when out of range. */
gboolean  cr_ops_wrap_dim        (int             *dim,
                                  int              ndim,
                                  GError         **error);

/* x seen as (outer, size, inner) around dim, for loops along a dim: the
 * product of the sizes before dim, dim's size (1 for a 0-d x) and the
 * product of those after it. */
void      cr_ops_split_at_dim    (const CrTensor  *x,
                                  int              dim,
                                  gint64          *outer,
                                  gint64          *size,
                                  gint64          *inner);

/* The backward formulas the value-picking reductions share
 * (cr-ops-reduce.c): evenly_distribute_backward (max(), min(), median();
 * the input in slot 0, the result in slot 1) and
 * value_selecting_reduction_backward (max(dim), median(dim), kthvalue,
 * mode; the indices in slot 0, args.dims[0] and args.keepdim). */
gboolean  cr_ops_evenly_distribute_backward (CrNode          *node,
                                             CrTensor *const *grads,
                                             CrTensor       **grad_inputs,
                                             GError         **error);
gboolean  cr_ops_value_selecting_backward   (CrNode          *node,
                                             CrTensor *const *grads,
                                             CrTensor       **grad_inputs,
                                             GError         **error);

/* Differentiable gather and scatter over flat (row-major) positions, from
 * cr-ops-index.c: x.flatten()[pos] reshaped like pos (IndexBackward0), and
 * grad summed into zeros of meta's geometry at pos (IndexPutBackward0). */
CrTensor *cr_ops_take_flat       (CrTensor        *x,
                                  CrTensor        *pos,
                                  GError         **error);
CrTensor *cr_ops_scatter_add_flat (CrTensor           *grad,
                                   CrTensor           *pos,
                                   const CrTensorMeta *meta,
                                   GError            **error);

/* Positions are worked out on the host (bounds checks need the index values
 * there); this moves a host positions tensor to the device of the tensor it
 * indexes, taking pos (NULL passes through). A no-op on the CPU. */
CrTensor *cr_ops_positions_to    (CrTensor        *pos,
                                  CrDeviceType     device,
                                  GError         **error);

/* A view of x sharing its storage; view_base is the tensor owning the memory. */
CrTensor *cr_ops_make_view       (CrTensor        *x,
                                  const gint64    *shape,
                                  int              ndim,
                                  const gint64    *strides,
                                  gint64           offset);

/* Backward-formula shorthands: a saved tensor (failing the backward, or
 * returning NULL from a local-gradient function, when it cannot be had) and
 * grad_inputs[i] from an expression, failing the backward on NULL. */
#define SAVED(var, slot)                                               \
  g_autoptr(CrTensor) var = cr_node_get_saved (node, (slot), error);   \
  if (var == NULL)                                                     \
    return FALSE

#define SAVED_OR_NULL(var, slot)                                       \
  g_autoptr(CrTensor) var = cr_node_get_saved (node, (slot), error);   \
  if (var == NULL)                                                     \
    return NULL

#define SET_GRAD(i, expr)                                              \
  G_STMT_START {                                                       \
    grad_inputs[(i)] = (expr);                                         \
    if (grad_inputs[(i)] == NULL)                                      \
      return FALSE;                                                    \
  } G_STMT_END

/* Local-gradient helpers for the step view (kernels only: never recorded).
 * t OP number, number OP t; t broadcast and cast to the node's output (a
 * copy); a tensor of the output's shape full of value; take_to_output takes t
 * and returns it broadcast to the output (NULL stays NULL). */
CrTensor *cr_ops_k_num           (CrBinaryOp op, const CrTensor *t, double number,
                                  GError **error);
CrTensor *cr_ops_k_rnum          (CrBinaryOp op, double number, const CrTensor *t,
                                  GError **error);
CrTensor *cr_ops_to_output_meta  (const CrNode *node, const CrTensor *t, GError **error);
CrTensor *cr_ops_full_output     (const CrNode *node, double value, GError **error);
CrTensor *cr_ops_take_to_output  (const CrNode *node, CrTensor *t, GError **error);

/* A 0-d tensor viewed as 1-d, for kernels that want a dim, and a result
 * viewed back as 0-d when ndim is 0 (other tensors: a new ref to t). */
CrTensor *cr_ops_as_1d           (CrTensor *t);
CrTensor *cr_ops_as_0d           (CrTensor *t, int ndim);

/* The backward and local gradient of the gated activation backwards
 * (cr-ops-activation-backward.c), for F.threshold's nodes, which share
 * relu's THRESHOLD_BACKWARD row (args.ints[0] 1). */
gboolean  cr_ops_gated_backward_backward   (CrNode          *node,
                                            CrTensor *const *grads,
                                            CrTensor       **grad_inputs,
                                            GError         **error);
CrTensor *cr_ops_gated_backward_local_grad (CrNode          *node,
                                            guint            input,
                                            GError         **error);

/* What PyTorch's logsigmoid keeps as its buffer, e^−|x| (an empty tensor
 * on CUDA, as its CUDA forward keeps); kernels only, a new ref
 * (cr-ops-curved-backward.c). */
CrTensor *cr_ops_log_sigmoid_buffer (CrTensor  *x,
                                     GError   **error);

/* Layer norm's backward under create_graph (cr-ops-layer-norm-backward.c):
 * makes grads[0..2] (input, weight, bias; computed with grad mode off, NULL
 * where not wanted) the outputs of one NativeLayerNormBackwardBackward0 over
 * (grad_out, input, mean, rstd, weight, bias) when grad mode is on and one
 * of those requires grad. weight and bias may be NULL. */
void      cr_ops_layer_norm_backward_record (CrTensor        *grad_out,
                                             CrTensor        *input,
                                             CrTensor        *mean,
                                             CrTensor        *rstd,
                                             CrTensor        *weight,
                                             CrTensor        *bias,
                                             int              n_normalized,
                                             double           eps,
                                             CrTensor *const *grads);

/* The losses on a device (cr-ops-loss-device.c), forward and backward
 * without recording; cr-ops-nn.c checks the arguments and records. */
#define CR_OPS_IGNORE_INDEX (-100)
/* An nll_loss's geometry: input (N, C, rest...) or (C); target (N, rest...)
 * or 0-d; R the product of rest. */
typedef struct {
  gint64 N, C, R;
} CrNllShape;

CrTensor *cr_ops_bce_logits_device (CrTensor *x, CrTensor *y, GError **error);
/* *bad is set (and NULL returned, no error) when an input is outside [0, 1]. */
CrTensor *cr_ops_bce_device      (CrTensor *x, CrTensor *y, gboolean *bad, GError **error);
/* With weight and pos_weight (either may be NULL), expanded to input's
 * shape and cast to dtype on the device. */
CrTensor *cr_ops_bce_logits_weighted_device (CrTensor *input, CrTensor *target,
                                  CrTensor *weight, CrTensor *pos_weight, CrDType dtype,
                                  GError **error);
/* weight: the class weights or NULL. *divisor: what the mean divides by. */
CrTensor *cr_ops_nll_forward_device (const CrNllShape *s, CrTensor *logp, CrTensor *target,
                                  CrTensor *weight, gint64 ignore_index,
                                  CrReduction reduction, gint64 *count, double *divisor,
                                  GError **error);
CrTensor *cr_ops_nll_backward_device (const CrTensorMeta *meta, const CrNllShape *s,
                                  CrTensor *target, CrTensor *weight, gint64 ignore_index,
                                  CrTensor *grad, CrReduction reduction, double scale,
                                  GError **error);

G_END_DECLS
