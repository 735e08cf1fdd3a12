/* cr-ops-elementwise.c — differentiable elementwise ops, copies and casts.
 *
 * (The functions of one tensor are in cr-ops-unary.c, from their rows in
 * core/cr-unary-ops.def; mul, div, maximum and the other functions of two
 * tensors are in cr-ops-binary.c, from core/cr-binary-ops.def.)
 *
 * Each op: its forward through the kernels, its row (PyTorch's grad_fn name,
 * the local-gradient rule as text and as a tensor for the step view) and its
 * backward formula. The formulas follow PyTorch 1.13's derivatives.yaml and
 * are written with the differentiable ops, so that a create_graph backward
 * records the same kind of graph PyTorch's does (x ** 3 twice differentiated
 * gives 6x). Broadcast gradients are summed back to each input's shape by the
 * engine (validate_outputs), as in PyTorch, not here.
 *
 * Saved-tensor slots: binary ops keep a in 0, b in 1 (and the output in 2);
 * unary ops keep their input or output in 0. Like PyTorch, an op saves only
 * what the gradients it will have to compute need, which decides whether a
 * second backward fails ((x + 2) can be differentiated twice, (x * 2) not). */
#include "cr-ops-private.h"
#include "cr-cuda.h"

#include <math.h>

#include "cr-autograd-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* ---- add, sub, rsub ---------------------------------------------------- */

static gboolean
add_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  double alpha = node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  if (cr_ops_needs_grad (node, 0))
    grad_inputs[0] = cr_tensor_ref (grads[0]);
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, alpha == 1.0 ? cr_tensor_ref (grads[0]) : cr_ops_mul_number (grads[0], alpha, error));
  return TRUE;
}

static CrTensor *
add_local_grad (CrNode  *node,
                guint    input,
                GError **error)
{
  double alpha = node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  return cr_ops_full_output (node, input == 0 ? 1.0 : alpha, error);
}

const CrOpInfo cr_op_row_ADD = {
  CR_OP_ADD, "add", "AddBackward0", 2, "+",
  "∂(a+b)/∂a = 1,  ∂(a+b)/∂b = 1",
  add_backward, add_local_grad
};

/* a + sign·alpha·b as add (sign 1) or sub (sign −1): the kernel's plain
 * add or sub when alpha is 1, else one fused multiply-add, recorded as op
 * over a and b with alpha (not signed) in args.scalar[0]. */
static CrTensor *
add_or_sub (CrOpId        op,
            CrBinaryOp    plain,
            double        sign,
            CrTensor     *a,
            CrTensor     *b,
            double        alpha,
            GError      **error)
{
  CrTensor *inputs[2] = { a, b };
  CrTensor *out = alpha == 1.0 ? cr_kernel_binary (plain, a, b, error)
                               : cr_kernel_add_scaled (a, b, sign * alpha, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, inputs, 2, out)) != NULL && alpha != 1.0)
    {
      cr_node_args (node)->scalar[0] = alpha;
      cr_node_args (node)->has_scalar[0] = TRUE;
    }
  return out;
}

CrTensor *
cr_add (CrTensor  *a,
        CrTensor  *b,
        GError   **error)
{
  return add_or_sub (CR_OP_ADD, CR_BINARY_ADD, 1.0, a, b, 1.0, error);
}

CrTensor *
cr_add_alpha (CrTensor  *a,
              CrTensor  *b,
              double     alpha,
              GError   **error)
{
  return add_or_sub (CR_OP_ADD, CR_BINARY_ADD, 1.0, a, b, alpha, error);
}

/* args.scalar[0], when set: sub's alpha (a − alpha·b). */
static gboolean
sub_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  double alpha = node->args != NULL && node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  if (cr_ops_needs_grad (node, 0))
    grad_inputs[0] = cr_tensor_ref (grads[0]);
  if (cr_ops_needs_grad (node, 1))
    {
      /* PyTorch's maybe_multiply (-grad, alpha). */
      g_autoptr(CrTensor) negated = cr_neg (grads[0], error);

      if (negated == NULL)
        return FALSE;
      SET_GRAD (1, alpha == 1.0 ? g_steal_pointer (&negated)
                                : cr_ops_mul_number (negated, alpha, error));
    }
  return TRUE;
}

static CrTensor *
sub_local_grad (CrNode  *node,
                guint    input,
                GError **error)
{
  double alpha = node->args != NULL && node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  return cr_ops_full_output (node, input == 0 ? 1.0 : -alpha, error);
}

const CrOpInfo cr_op_row_SUB = {
  CR_OP_SUB, "sub", "SubBackward0", 2, "−",
  "∂(a−b)/∂a = 1,  ∂(a−b)/∂b = −1",
  sub_backward, sub_local_grad
};

CrTensor *
cr_sub (CrTensor  *a,
        CrTensor  *b,
        GError   **error)
{
  return add_or_sub (CR_OP_SUB, CR_BINARY_SUB, -1.0, a, b, 1.0, error);
}

/* a.sub(b, alpha=): PyTorch's sub is add with −alpha, one fused multiply-add
 * a + (−alpha)·b, and one SubBackward0 node over a and b. */
CrTensor *
cr_sub_alpha (CrTensor  *a,
              CrTensor  *b,
              double     alpha,
              GError   **error)
{
  return add_or_sub (CR_OP_SUB, CR_BINARY_SUB, -1.0, a, b, alpha, error);
}

/* x.sub(number, alpha=): PyTorch's Scalar overload. The value is x − (number·alpha
 * folded into one wrapped number), as Chainrule has computed it; PyTorch's
 * last float32 bit can differ (its rounding of the product varies with the
 * position in its vector loop). One SubBackward0 over x and the number,
 * keeping alpha (_saved_alpha). */
CrTensor *
cr_sub_number_alpha (CrTensor  *a,
                     CrTensor  *number,
                     double     alpha,
                     GError   **error)
{
  CrTensor *inputs[2] = { a, number };
  double product = cr_tensor_read_flat (number, 0) * alpha;
  g_autoptr(CrTensor) scaled = NULL;
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (number->is_wrapped_number, NULL);
  /* inf too: PyTorch refuses any float there. */
  if (!cr_dtype_is_floating (cr_dtype_result_type (a, number))
      && !(isfinite (alpha) && alpha == floor (alpha)))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "For integral input tensors, argument alpha must not be a "
                           "floating point number.");
      return NULL;
    }
  scaled = cr_tensor_new_scalar (product, number->dtype == CR_DTYPE_INT64
                                          && fabs (alpha) < 0x1p63
                                          && alpha == (double) (gint64) alpha
                                          ? CR_DTYPE_INT64 : CR_DTYPE_FLOAT64);
  scaled->is_wrapped_number = TRUE;
  out = cr_kernel_binary (CR_BINARY_SUB, a, scaled, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_SUB, inputs, 2, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = alpha;
      cr_node_args (node)->has_scalar[0] = TRUE;
    }
  return out;
}

/* args.scalar[1], when set: rsub's alpha (number − alpha·x). */
static double
rsub_alpha (CrNode *node)
{
  return node->args != NULL && node->args->has_scalar[1] ? node->args->scalar[1] : 1.0;
}

static gboolean
rsub_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  double alpha = rsub_alpha (node);
  g_autoptr(CrTensor) negated = cr_neg (grads[0], error);

  if (negated == NULL)
    return FALSE;
  /* PyTorch's maybe_multiply (-grad, alpha). */
  SET_GRAD (0, alpha == 1.0 ? g_steal_pointer (&negated)
                            : cr_ops_mul_number (negated, alpha, error));
  return TRUE;
}

static CrTensor *
rsub_local_grad (CrNode  *node,
                 guint    input,
                 GError **error)
{
  return cr_ops_full_output (node, -rsub_alpha (node), error);
}

/* args.scalar[0]: the number; scalar[1]: alpha, when given. */
const CrOpInfo cr_op_row_RSUB = {
  CR_OP_RSUB, "rsub", "RsubBackward1", 1, "−",
  "∂(c−x)/∂x = −1",
  rsub_backward, rsub_local_grad
};

CrTensor *
cr_rsub_scalar (CrTensor  *a,
                double     number,
                GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (number, TRUE);
  CrTensor *out = cr_kernel_binary (CR_BINARY_SUB, n, a, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_RSUB, &a, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = number;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_ops_note_number (node, number, n->dtype == CR_DTYPE_INT64);
    }
  return out;
}

/* torch.rsub(a, number, alpha=): number + (−alpha)·a in one rounding, as
 * PyTorch's sub(number, a, alpha) computes it; one RsubBackward1 keeping
 * alpha (_saved_alpha). */
CrTensor *
cr_rsub_scalar_alpha (CrTensor  *a,
                      CrTensor  *number,
                      double     alpha,
                      GError   **error)
{
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (number->is_wrapped_number, NULL);
  out = cr_kernel_add_scaled (number, a, -alpha, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_RSUB, &a, 1, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      args->scalar[0] = cr_tensor_read_flat (number, 0);
      args->has_scalar[0] = TRUE;
      args->scalar[1] = alpha;
      args->has_scalar[1] = TRUE;
      cr_ops_note_number (node, args->scalar[0], number->dtype == CR_DTYPE_INT64);
    }
  return out;
}

/* RSUB_TENSOR: torch.rsub(a, b, alpha=) with b a
 * tensor: b − alpha·a, one RsubBackward0 over (a, b), as PyTorch's
 * rsub.Tensor. args.scalar[0]: alpha, when given. */
static gboolean
rsub_tensor_backward (CrNode          *node,
                      CrTensor *const *grads,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  double alpha = node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  if (cr_ops_needs_grad (node, 0))
    {
      /* PyTorch's maybe_multiply (-grad, alpha). */
      g_autoptr(CrTensor) negated = cr_neg (grads[0], error);

      if (negated == NULL)
        return FALSE;
      SET_GRAD (0, alpha == 1.0 ? g_steal_pointer (&negated)
                                : cr_ops_mul_number (negated, alpha, error));
    }
  if (cr_ops_needs_grad (node, 1))
    grad_inputs[1] = cr_tensor_ref (grads[0]);
  return TRUE;
}

static CrTensor *
rsub_tensor_local_grad (CrNode  *node,
                        guint    input,
                        GError **error)
{
  double alpha = node->args->has_scalar[0] ? node->args->scalar[0] : 1.0;

  return cr_ops_full_output (node, input == 0 ? -alpha : 1.0, error);
}

const CrOpInfo cr_op_row_RSUB_TENSOR = {
  CR_OP_RSUB_TENSOR, "rsub", "RsubBackward0", 2, "−",
  "∂(b−a)/∂a = −1,  ∂(b−a)/∂b = 1",
  rsub_tensor_backward, rsub_tensor_local_grad
};

CrTensor *
cr_rsub_alpha (CrTensor  *a,
               CrTensor  *b,
               double     alpha,
               GError   **error)
{
  CrTensor *inputs[2] = { a, b };
  CrTensor *out = alpha == 1.0 ? cr_kernel_binary (CR_BINARY_SUB, b, a, error)
                               : cr_kernel_add_scaled (b, a, -alpha, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_RSUB_TENSOR, inputs, 2, out)) != NULL
      && alpha != 1.0)
    {
      cr_node_args (node)->scalar[0] = alpha;
      cr_node_args (node)->has_scalar[0] = TRUE;
    }
  return out;
}

/* ---- where, clamp ------------------------------------------------------ */

static gboolean
where_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  SAVED (cond, 0);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_where (cond, grads[0], zero, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_where (cond, zero, grads[0], error));
  return TRUE;
}

static CrTensor *
where_local_grad (CrNode  *node,
                  guint    input,
                  GError **error)
{
  SAVED_OR_NULL (cond, 0);
  g_autoptr(CrTensor) one = cr_tensor_new_scalar (1.0, node->output_meta[0].dtype);
  g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, node->output_meta[0].dtype);

  return cr_ops_take_to_output (node, input == 0 ? cr_kernel_where (cond, one, zero, error)
                                          : cr_kernel_where (cond, zero, one, error), error);
}

/* Inputs (edges) are a and b; the condition is saved in slot 0. */
const CrOpInfo cr_op_row_WHERE = {
  CR_OP_WHERE, "where", "WhereBackward0", 2, "where",
  "∂where(c,a,b)/∂a = 1 where c else 0,  ∂/∂b = 1 where ¬c else 0",
  where_backward, where_local_grad
};

CrTensor *
cr_where (CrTensor  *cond,
          CrTensor  *a,
          CrTensor  *b,
          GError   **error)
{
  CrTensor *inputs[2] = { a, b };
  CrTensor *out = cr_kernel_where (cond, a, b, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_WHERE, inputs, 2, out)) != NULL)
    cr_node_save (node, 0, cond, FALSE);
  return out;
}

/* The mask min <= x <= max (bool), for clamp's gradient. */
static CrTensor *
clamp_mask (CrNode          *node,
            const CrTensor  *x,
            GError         **error)
{
  const CrOpArgs *args = node->args;
  g_autoptr(CrTensor) lo = NULL;
  g_autoptr(CrTensor) hi = NULL;

  if (args->has_scalar[0] && (lo = cr_ops_k_num (CR_BINARY_GE, x, args->scalar[0], error)) == NULL)
    return NULL;
  if (args->has_scalar[1] && (hi = cr_ops_k_num (CR_BINARY_LE, x, args->scalar[1], error)) == NULL)
    return NULL;
  if (lo != NULL && hi != NULL)
    return cr_kernel_binary (CR_BINARY_LOGICAL_AND, lo, hi, error);
  return cr_tensor_ref (lo != NULL ? lo : hi);
}

static gboolean
clamp_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  SAVED (x, 0);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
  g_autoptr(CrTensor) mask = clamp_mask (node, x, error);

  SET_GRAD (0, mask != NULL ? cr_where (mask, grads[0], zero, error) : NULL);
  return TRUE;
}

static CrTensor *
clamp_local_grad (CrNode  *node,
                  guint    input,
                  GError **error)
{
  SAVED_OR_NULL (x, 0);
  g_autoptr(CrTensor) mask = clamp_mask (node, x, error);

  return cr_ops_take_to_output (node, g_steal_pointer (&mask), error);
}

/* args.scalar[0] / has_scalar[0]: min; scalar[1] / has_scalar[1]: max. The
 * input is saved in slot 0. */
const CrOpInfo cr_op_row_CLAMP = {
  CR_OP_CLAMP, "clamp", "ClampBackward1", 1, "clamp",
  "∂clamp(x)/∂x = 1 where min ≤ x ≤ max, else 0",
  clamp_backward, clamp_local_grad
};

gboolean
cr_ops_check_clamp_bounds (gboolean   has_min,
                           gboolean   has_max,
                           GError   **error)
{
  if (!has_min && !has_max)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.clamp: At least one of 'min' or 'max' must not be None");
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_clamp (CrTensor  *x,
          gboolean   has_min,
          double     min,
          gboolean   has_max,
          double     max,
          GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_check_clamp_bounds (has_min, has_max, error))
    return NULL;
  out = cr_kernel_clamp (x, has_min, min, has_max, max, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_CLAMP, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = min;
      cr_node_args (node)->has_scalar[0] = has_min;
      cr_node_args (node)->scalar[1] = max;
      cr_node_args (node)->has_scalar[1] = has_max;
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}

/* ---- fused backward helpers (their own rows give double backward) ------ */

/* Slots: 0 the incoming gradient, 1 the saved tanh/sigmoid output or relu
 * input. */

static gboolean
tanh_backward_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs,
                        GError **error)
{
  SAVED (out, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_tanh_backward (grads[0], out, error));
  if (cr_ops_needs_grad (node, 1))
    {
      /* grad * (-2 * out * grad_output) */
      SAVED (go, 0);
      g_autoptr(CrTensor) m2 = cr_ops_mul_number (out, -2.0, error);
      g_autoptr(CrTensor) m2g = m2 != NULL ? cr_mul (m2, go, error) : NULL;

      SET_GRAD (1, m2g != NULL ? cr_mul (grads[0], m2g, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
tanh_backward_local_grad (CrNode *node, guint input, GError **error)
{
  SAVED_OR_NULL (out, 1);
  if (input == 0)
    {
      g_autoptr(CrTensor) sq = cr_kernel_binary (CR_BINARY_MUL, out, out, error);

      return cr_ops_take_to_output (node, sq != NULL ? cr_ops_k_rnum (CR_BINARY_SUB, 1.0, sq, error) : NULL,
                             error);
    }
  else
    {
      SAVED_OR_NULL (go, 0);
      g_autoptr(CrTensor) m2 = cr_ops_k_num (CR_BINARY_MUL, out, -2.0, error);

      return cr_ops_take_to_output (node, m2 != NULL ? cr_kernel_binary (CR_BINARY_MUL, m2, go, error)
                                              : NULL, error);
    }
}

const CrOpInfo cr_op_row_TANH_BACKWARD = {
  CR_OP_TANH_BACKWARD, "tanh_backward", "TanhBackwardBackward0", 2, "tanh′",
  "g·(1 − y²):  ∂/∂g = 1 − y²,  ∂/∂y = −2·g·y",
  tanh_backward_backward, tanh_backward_local_grad
};

static gboolean
sigmoid_backward_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs,
                           GError **error)
{
  SAVED (out, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_sigmoid_backward (grads[0], out, error));
  if (cr_ops_needs_grad (node, 1))
    {
      /* grad * grad_output * (-2 * out + 1) */
      SAVED (go, 0);
      g_autoptr(CrTensor) gg = cr_mul (grads[0], go, error);
      g_autoptr(CrTensor) m2 = gg != NULL ? cr_ops_mul_number (out, -2.0, error) : NULL;
      g_autoptr(CrTensor) m21 = m2 != NULL ? cr_ops_add_number (m2, 1.0, error) : NULL;

      SET_GRAD (1, m21 != NULL ? cr_mul (gg, m21, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
sigmoid_backward_local_grad (CrNode *node, guint input, GError **error)
{
  SAVED_OR_NULL (out, 1);
  if (input == 0)
    {
      g_autoptr(CrTensor) one_minus = cr_ops_k_rnum (CR_BINARY_SUB, 1.0, out, error);

      return cr_ops_take_to_output (node, one_minus != NULL ? cr_kernel_binary (CR_BINARY_MUL, out,
                                                                          one_minus, error)
                                                     : NULL, error);
    }
  else
    {
      SAVED_OR_NULL (go, 0);
      g_autoptr(CrTensor) m2 = cr_ops_k_num (CR_BINARY_MUL, out, -2.0, error);
      g_autoptr(CrTensor) m21 = m2 != NULL ? cr_ops_k_num (CR_BINARY_ADD, m2, 1.0, error) : NULL;

      return cr_ops_take_to_output (node, m21 != NULL ? cr_kernel_binary (CR_BINARY_MUL, go, m21, error)
                                               : NULL, error);
    }
}

const CrOpInfo cr_op_row_SIGMOID_BACKWARD = {
  CR_OP_SIGMOID_BACKWARD, "sigmoid_backward", "SigmoidBackwardBackward0", 2, "σ′",
  "g·y·(1 − y):  ∂/∂g = y·(1 − y),  ∂/∂y = g·(1 − 2y)",
  sigmoid_backward_backward, sigmoid_backward_local_grad
};

static gboolean
threshold_backward_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs,
                             GError **error)
{
  if (node->args->ints[0] == 1)
    return cr_ops_gated_backward_backward (node, grads, grad_inputs, error);
  if (cr_ops_needs_grad (node, 0))
    {
      SAVED (x, 1);
      SET_GRAD (0, cr_threshold_backward (grads[0], x, error));
    }
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_tensor_new_zeros (grads[0]->shape, grads[0]->ndim, grads[0]->dtype,
                                      grads[0]->device, error));
  return TRUE;
}

static CrTensor *
threshold_backward_local_grad (CrNode *node, guint input, GError **error)
{
  if (node->args->ints[0] == 1)
    return cr_ops_gated_backward_local_grad (node, input, error);
  if (input == 0)
    {
      SAVED_OR_NULL (x, 1);
      return cr_ops_take_to_output (node, cr_ops_k_num (CR_BINARY_GT, x, 0.0, error), error);
    }
  return cr_ops_full_output (node, 0.0, error);
}

/* The threshold is 0 (relu); args.scalar[0] holds it. */
const CrOpInfo cr_op_row_THRESHOLD_BACKWARD = {
  CR_OP_THRESHOLD_BACKWARD, "threshold_backward", "ThresholdBackwardBackward0", 2, "ReLU′",
  "g·[x > 0]:  ∂/∂g = [x > 0],  ∂/∂x = 0",
  threshold_backward_backward, threshold_backward_local_grad
};

static CrTensor *
fused_backward (CrOpId      op,
                CrBinaryOp  kop,
                CrTensor   *grad,
                CrTensor   *saved,
                GError    **error)
{
  CrTensor *inputs[2] = { grad, saved };
  CrTensor *out = cr_kernel_binary (kop, grad, saved, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, inputs, 2, out)) != NULL)
    {
      cr_node_save (node, 1, saved, FALSE);
      if (cr_ops_needs_grad (node, 1) && op != CR_OP_THRESHOLD_BACKWARD)
        cr_node_save (node, 0, grad, FALSE);
      cr_node_args (node)->has_scalar[0] = op == CR_OP_THRESHOLD_BACKWARD;
    }
  return out;
}

CrTensor *
cr_tanh_backward (CrTensor  *grad,
                  CrTensor  *out,
                  GError   **error)
{
  return fused_backward (CR_OP_TANH_BACKWARD, CR_BINARY_TANH_BACKWARD, grad, out, error);
}

CrTensor *
cr_sigmoid_backward (CrTensor  *grad,
                     CrTensor  *out,
                     GError   **error)
{
  return fused_backward (CR_OP_SIGMOID_BACKWARD, CR_BINARY_SIGMOID_BACKWARD, grad, out, error);
}

CrTensor *
cr_threshold_backward (CrTensor  *grad,
                       CrTensor  *x,
                       GError   **error)
{
  return fused_backward (CR_OP_THRESHOLD_BACKWARD, CR_BINARY_RELU_BACKWARD, grad, x, error);
}

/* ---- comparisons and other gradient-free binary ops --------------------- */

CrTensor *
cr_binary_nograd (CrBinaryOp   op,
                  CrTensor    *a,
                  CrTensor    *b,
                  GError     **error)
{
  return cr_kernel_binary (op, a, b, error);
}

/* ---- copies and casts -------------------------------------------------- */

static gboolean
identity_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs, GError **error)
{
  grad_inputs[0] = cr_tensor_ref (grads[0]);
  return TRUE;
}

static CrTensor *
ones_local_grad (CrNode *node, guint input, GError **error)
{
  return cr_ops_full_output (node, 1.0, error);
}

const CrOpInfo cr_op_row_CLONE = {
  CR_OP_CLONE, "clone", "CloneBackward0", 1, "clone",
  "∂clone(x)/∂x = 1", identity_backward, ones_local_grad
};

CrTensor *
cr_clone (CrTensor  *x,
          GError   **error)
{
  CrTensor *out = cr_tensor_copy (x, error);

  if (out != NULL)
    cr_ops_record (CR_OP_CLONE, &x, 1, out);
  return out;
}

static gboolean
to_copy_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs, GError **error)
{
  /* x.to(device) / x.cuda() / x.cpu(): the gradient goes back to the
   * input's device (and dtype), as a recorded copy under create_graph. */
  if (grads[0]->device != node->input_meta[0].device)
    SET_GRAD (0, cr_to_device (grads[0], node->input_meta[0].device, node->args->dtype, error));
  else
    SET_GRAD (0, cr_to_dtype (grads[0], node->args->dtype, error));
  return TRUE;
}

/* args.dtype: the input's dtype (the gradient is cast back to it). */
const CrOpInfo cr_op_row_TO_COPY = {
  CR_OP_TO_COPY, "_to_copy", "ToCopyBackward0", 1, "cast",
  "∂x.to(dtype)/∂x = 1 (the gradient is cast back)", to_copy_backward, ones_local_grad
};

CrTensor *
cr_to_dtype (CrTensor  *x,
             CrDType    dtype,
             GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (x->dtype == dtype)
    return cr_tensor_ref (x);
  out = cr_kernel_cast (x, dtype, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_TO_COPY, &x, 1, out)) != NULL)
    cr_node_args (node)->dtype = x->dtype;
  return out;
}

CrTensor *
cr_detach (CrTensor *x)
{
  return cr_tensor_alias (x);
}

gboolean
cr_detach_ (CrTensor  *x,
            GError   **error)
{
  if (x->view_base != NULL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Can't detach views in-place. Use detach() instead. If you are "
                           "using DistributedDataParallel (DDP) for training, and "
                           "gradient_as_bucket_view is set as True, gradients are views of "
                           "DDP buckets, and hence detach_() cannot be called on these "
                           "gradients. To fix this error, please refer to the "
                           "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                           "the solution.");
      return FALSE;
    }
  g_clear_pointer (&x->grad_fn, cr_node_unref);
  x->output_nr = 0;
  x->requires_grad = FALSE;
  return TRUE;
}
