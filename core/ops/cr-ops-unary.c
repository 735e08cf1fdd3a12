/* cr-ops-unary.c — the differentiable functions of one tensor, made from
 * their rows in core/cr-unary-ops.def: forward (the kernel, and what backward
 * needs saved in slot 0), the autograd row, the backward formula, the step
 * view's local gradient, and a row's parameters (their defaults and check;
 * a node keeps them in args->scalar, where the formula reads P0..).
 *
 * A row's formula is an expression over G (the incoming gradient) and X or Y
 * (the saved input or output) with the differentiable ops below, so a
 * create_graph backward records a graph of real ops and can be differentiated
 * again. The local gradient ∂out/∂x is the same formula with G = 1, run with
 * grad mode off: one formula, no second copy of the derivative. */
#include "cr-ops-private.h"
#include "cr-ops-formula.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

#include <math.h>
#include <string.h>

/* ---- the formula vocabulary --------------------------------------------- */

/* One evaluation of a formula (cr-ops-formula.h): G, the intermediates and
 * the first error in f; X or Y, the saved tensor, borrowed (NULL when the
 * row saves nothing); P0 P1 P2, the node's parameters (zeros without). */
typedef struct {
  CrFormula     f;
  CrTensor     *saved;
  const double *p;
} Fx;

typedef CrTensor *(*FormulaFunc) (Fx *fx);

/* a * n with n a wrapped 0-d tensor: MulBackward0, as PyTorch's
 * wrapped_scalar_tensor in a formula (deg2rad's). */
G_GNUC_UNUSED static CrTensor *
fx_mul_wrapped (Fx *fx, CrTensor *a, double n)
{
  g_autoptr(CrTensor) number = NULL;

  if (fx->f.err != NULL || a == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return cr_formula_keep (&fx->f, cr_mul (a, number, &fx->f.err));
}

G_GNUC_UNUSED static CrTensor *
fx_div_number (Fx *fx, CrTensor *a, double n)
{
  g_autoptr(CrTensor) number = NULL;

  if (fx->f.err != NULL || a == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return cr_formula_keep (&fx->f, cr_div (a, number, &fx->f.err));
}

/* The backward ops of the piecewise-linear activations over (g, x)
 * (LeakyReluBackwardBackward0, ...: cr-ops-activation-backward.c). */
typedef enum { GATE_LEAKY_RELU, GATE_HARDTANH, GATE_HARDSHRINK, GATE_SOFTSHRINK, GATE_THRESHOLD } Gate;

G_GNUC_UNUSED static CrTensor *
fx_gate (Fx *fx, Gate gate, CrTensor *g, CrTensor *x, double p0, double p1)
{
  GError **error = &fx->f.err;

  if (fx->f.err != NULL || g == NULL || x == NULL)
    return NULL;
  switch (gate)
    {
    case GATE_LEAKY_RELU:
      return cr_formula_keep (&fx->f, cr_leaky_relu_backward (g, x, p0, error));
    case GATE_HARDTANH:
      return cr_formula_keep (&fx->f, cr_hardtanh_backward (g, x, p0, p1, error));
    case GATE_HARDSHRINK:
    case GATE_SOFTSHRINK:
      return cr_formula_keep (&fx->f, cr_shrink_backward (g, x, p0, gate == GATE_SOFTSHRINK, error));
    default:
      return cr_formula_keep (&fx->f, cr_threshold_backward_at (g, x, p0, error));
    }
}

/* elu_backward(g, x or y, alpha, scale, input_scale, is_result):
 * EluBackwardBackward0 */
G_GNUC_UNUSED static CrTensor *
fx_elu_backward (Fx *fx, CrTensor *g, CrTensor *saved, double alpha, double scale,
                 double input_scale, gboolean is_result)
{
  if (fx->f.err != NULL || g == NULL || saved == NULL)
    return NULL;
  return cr_formula_keep (&fx->f, cr_elu_backward (g, saved, alpha, scale, input_scale, is_result,
                                                   &fx->f.err));
}

/* softplus_backward(g, x, beta, threshold): SoftplusBackwardBackward0 */
G_GNUC_UNUSED static CrTensor *
fx_softplus_backward (Fx *fx, CrTensor *g, CrTensor *x, double beta, double threshold)
{
  if (fx->f.err != NULL || g == NULL || x == NULL)
    return NULL;
  return cr_formula_keep (&fx->f, cr_softplus_backward (g, x, beta, threshold, &fx->f.err));
}

/* The backward ops of gelu, logsigmoid and hardswish over (g, x)
 * (GeluBackwardBackward0, ...: cr-ops-curved-backward.c), and hardsigmoid's
 * (CR_OP_HARDSIGMOID: a NotImplemented node, cr-ops-not-implemented.c). */
G_GNUC_UNUSED static CrTensor *
fx_curved_backward (Fx *fx, CrOpId op, CrTensor *g, CrTensor *x, double approximate)
{
  if (fx->f.err != NULL || g == NULL || x == NULL)
    return NULL;
  switch (op)
    {
    case CR_OP_GELU_BACKWARD:
      return cr_formula_keep (&fx->f, cr_gelu_backward (g, x, approximate, &fx->f.err));
    case CR_OP_LOG_SIGMOID_BACKWARD:
      return cr_formula_keep (&fx->f, cr_log_sigmoid_backward (g, x, &fx->f.err));
    case CR_OP_HARDSIGMOID:
      return cr_formula_keep (&fx->f, cr_hardsigmoid_backward (g, x, &fx->f.err));
    default:
      return cr_formula_keep (&fx->f, cr_hardswish_backward (g, x, &fx->f.err));
    }
}

/* n - a in a formula. */
G_GNUC_UNUSED static CrTensor *
fx_rsub_number (Fx *fx, double n, CrTensor *a)
{
  g_autoptr(CrTensor) filled = NULL;

  if (fx->f.err != NULL || a == NULL)
    return NULL;
  filled = cr_tensor_new_full (a->shape, a->ndim, n, a->dtype, a->device, &fx->f.err);
  if (filled == NULL)
    return NULL;
  return cr_formula_keep (&fx->f, cr_sub (filled, a, &fx->f.err));
}

#define G                  (fx->f.grad)
#define X                  (fx->saved)
#define Y                  (fx->saved)
#define MUL(a, b)          cr_formula_tensors (&fx->f, cr_mul, (a), (b))
#define DIV(a, b)          cr_formula_tensors (&fx->f, cr_div, (a), (b))
#define ADD(a, b)          cr_formula_tensors (&fx->f, cr_add, (a), (b))
#define SUB(a, b)          cr_formula_tensors (&fx->f, cr_sub, (a), (b))
#define NEG(a)             cr_formula_unary (&fx->f, CR_OP_NEG, (a))
#define MULN(a, n)         cr_formula_number (&fx->f, CR_OP_MUL, (a), (n))
#define MULW(a, n)         fx_mul_wrapped (fx, (a), (n))
#define DIVN(a, n)         fx_div_number (fx, (a), (n))
#define ADDN(a, n)         cr_formula_number (&fx->f, CR_OP_ADD, (a), (n))
#define RSUBN(n, a)        fx_rsub_number (fx, (n), (a))
#define POWN(a, n)         cr_formula_pow_number (&fx->f, (a), (n))
#define U(OP, a)           cr_formula_unary (&fx->f, CR_OP_##OP, (a))
#define GTN(a, n)          cr_formula_kernel_number (&fx->f, CR_BINARY_GT, (a), (n))
#define LTN(a, n)          cr_formula_kernel_number (&fx->f, CR_BINARY_LT, (a), (n))
#define GEN(a, n)          cr_formula_kernel_number (&fx->f, CR_BINARY_GE, (a), (n))
#define LEN(a, n)          cr_formula_kernel_number (&fx->f, CR_BINARY_LE, (a), (n))
#define EQN(a, n)          cr_formula_kernel_number (&fx->f, CR_BINARY_EQ, (a), (n))
#define AND(a, b)          cr_formula_kernel (&fx->f, CR_BINARY_LOGICAL_AND, (a), (b))
#define WHERE(m, a, b)     cr_formula_where (&fx->f, (m), (a), (b))
#define TANH_BW(g, y)      cr_formula_tensors (&fx->f, cr_tanh_backward, (g), (y))
#define SIGMOID_BW(g, y)   cr_formula_tensors (&fx->f, cr_sigmoid_backward, (g), (y))
#define THRESHOLD_BW(g, x) cr_formula_tensors (&fx->f, cr_threshold_backward, (g), (x))
#define LRELU_BW(g, x, s)  fx_gate (fx, GATE_LEAKY_RELU, (g), (x), (s), 0.0)
#define HARDTANH_BW(g, x, lo, hi) fx_gate (fx, GATE_HARDTANH, (g), (x), (lo), (hi))
#define SHRINK_BW(g, x, l, soft) fx_gate (fx, (soft) ? GATE_SOFTSHRINK : GATE_HARDSHRINK, (g), (x), (l), 0.0)
#define THRESHOLD_AT_BW(g, x, t) fx_gate (fx, GATE_THRESHOLD, (g), (x), (t), 0.0)
#define ELU_BW(g, x, a, s, i, r) fx_elu_backward (fx, (g), (x), (a), (s), (i), (r))
#define SOFTPLUS_BW(g, x, b, t) fx_softplus_backward (fx, (g), (x), (b), (t))
#define GELU_BW(g, x, a)   fx_curved_backward (fx, CR_OP_GELU_BACKWARD, (g), (x), (a))
#define LOG_SIGMOID_BW(g, x) fx_curved_backward (fx, CR_OP_LOG_SIGMOID_BACKWARD, (g), (x), 0.0)
#define HARDSWISH_BW(g, x) fx_curved_backward (fx, CR_OP_HARDSWISH_BACKWARD, (g), (x), 0.0)
#define HARDSIGMOID_BW(g, x) fx_curved_backward (fx, CR_OP_HARDSIGMOID, (g), (x), 0.0)
#define ZEROS()            cr_formula_zeros (&fx->f)
#define P0                 (fx->p[0])
#define P1                 (fx->p[1])
#define P2                 (fx->p[2])
#define CHECKED(cond, message, expr) ((cond) ? (expr) : cr_formula_fail (&fx->f, (message)))

/* ---- the rows ------------------------------------------------------------ */

enum { SAVE_NOTHING, SAVE_INPUT, SAVE_OUTPUT };

/* One function per row's formula. */
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, ...)                                                          \
  static CrTensor *formula_##ID (Fx *fx) { return (formula); }
#define CR_UNARY_INPLACE(ID, OF, name, grad_fn, symbol, save, formula, text)               \
  static CrTensor *formula_##ID (Fx *fx) { return (formula); }
#include "cr-unary-ops.def"

#undef G
#undef X
#undef Y
#undef MUL
#undef DIV
#undef ADD
#undef SUB
#undef NEG
#undef MULN
#undef MULW
#undef ADDN
#undef DIVN
#undef RSUBN
#undef POWN
#undef U
#undef GTN
#undef LTN
#undef GEN
#undef LEN
#undef EQN
#undef AND
#undef WHERE
#undef TANH_BW
#undef SIGMOID_BW
#undef THRESHOLD_BW
#undef LRELU_BW
#undef HARDTANH_BW
#undef SHRINK_BW
#undef THRESHOLD_AT_BW
#undef ELU_BW
#undef SOFTPLUS_BW
#undef GELU_BW
#undef LOG_SIGMOID_BW
#undef HARDSWISH_BW
#undef HARDSIGMOID_BW
#undef ZEROS
#undef P0
#undef P1
#undef P2
#undef CHECKED

/* ---- parameters ---------------------------------------------------------- */

typedef gboolean (*CheckFunc) (const double *p, GError **error);

/* A CHECK's message with its "%g" (P0 as C++'s ostream prints it), without
 * a format string that the compiler cannot see. */
static gboolean
check_failed (const char  *message,
              double       p0,
              GError     **error)
{
  const char *at = strstr (message, "%g");
  g_autoptr(GString) text = g_string_new (message);

  if (at != NULL)
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      g_snprintf (number, sizeof number, "%g", p0);
      g_string_erase (text, at - message, 2);
      g_string_insert (text, at - message, number);
    }
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, text->str);
  return FALSE;
}

/* One function per row's check (the last word of its params column). */
#define P0 (p[0])
#define P1 (p[1])
#define P2 (p[2])
#define NO_PARAMS                 TRUE
#define PARAMS(n, a, b, c, check) check
#define NO_CHECK                  TRUE
#define CHECK(cond, message)      ((cond) ? TRUE : check_failed ((message), P0, error))
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr, params)                                     \
  static gboolean check_##ID (const double *p, GError **error) { return (params); }
#include "cr-unary-ops.def"
#undef P0
#undef P1
#undef P2
#undef NO_PARAMS
#undef PARAMS
#undef NO_CHECK
#undef CHECK

typedef struct {
  guint       n;                              /* parameters */
  guint       n_script;                       /* of them, the script's arguments */
  const char *names[CR_UNARY_MAX_PARAMS];
  double      defaults[CR_UNARY_MAX_PARAMS];  /* NAN: REQUIRED */
  guint       int_mask;                       /* bit i: defaults[i] is an int literal */
  CheckFunc   check;
} ParamsInfo;

#define REQUIRED                  NAN
#define NO_PARAM                  (NULL, 0.0)
#define PARAM_NAME(name, value)   name
#define PARAM_VALUE(name, value)  (value)
#define PARAM_IS_INT(name, value) _Generic ((value), int: 1u, default: 0u)
#define PARAM_COUNT(name, value)  _Generic ((name), char *: 1u, default: 0u)
#define NO_PARAMS                 0, 0, { NULL, NULL, NULL }, { 0, 0, 0 }, 0
#define PARAMS(n_script, a, b, c, check)                                       \
  PARAM_COUNT a + PARAM_COUNT b + PARAM_COUNT c, n_script,                     \
  { PARAM_NAME a, PARAM_NAME b, PARAM_NAME c },                                \
  { PARAM_VALUE a, PARAM_VALUE b, PARAM_VALUE c },                             \
  PARAM_IS_INT a | PARAM_IS_INT b << 1 | PARAM_IS_INT c << 2
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr, params)                                     \
  [CR_OP_##ID] = { params, check_##ID },
static const ParamsInfo params_info[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};
#undef REQUIRED
#undef NO_PARAM
#undef PARAM_NAME
#undef PARAM_VALUE
#undef PARAM_IS_INT
#undef PARAM_COUNT
#undef NO_PARAMS
#undef PARAMS

/* ---- the rows ------------------------------------------------------------ */

typedef struct {
  CrUnaryOp   kernel;
  int         save;
  FormulaFunc formula;
  CrOpId      base;           /* the row of its kernel and parameters: itself, or OF */
} UnaryOp;

#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, ...) \
  [CR_OP_##ID] = { CR_UNARY_##ID, SAVE_##save, formula_##ID, CR_OP_##ID },
#define CR_UNARY_INPLACE(ID, OF, name, grad_fn, symbol, save, ...)                          \
  [CR_OP_##ID] = { CR_UNARY_##OF, SAVE_##save, formula_##ID, CR_OP_##OF },
static const UnaryOp unary_ops[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};

/* The node of a row's in-place form where PyTorch's is another (0: the
 * row's own). */
#define CR_UNARY_OP(...)
#define CR_UNARY_INPLACE(ID, OF, ...) [CR_OP_##OF] = CR_OP_##ID,
static const CrOpId inplace_nodes[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};

static const UnaryOp *
unary_op (CrOpId op)
{
  g_return_val_if_fail ((guint) op < CR_OP_COUNT && unary_ops[op].formula != NULL, NULL);
  return &unary_ops[op];
}

/* The formula of op for grad (G), saved (X or Y) and the node's parameters:
 * a new ref, or NULL with error set. */
static CrTensor *
run_formula (const UnaryOp  *u,
             CrTensor       *grad,
             CrTensor       *saved,
             const double   *params,
             GError        **error)
{
  Fx fx = { { NULL, NULL, NULL }, saved, params };

  cr_formula_init (&fx.f, grad);
  return cr_formula_end (&fx.f, u->formula (&fx), "a unary op", error);
}

static gboolean
unary_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  const UnaryOp *u = unary_op (node->op->id);
  g_autoptr(CrTensor) saved = NULL;

  if (u->save != SAVE_NOTHING && (saved = cr_node_get_saved (node, 0, error)) == NULL)
    return FALSE;
  SET_GRAD (0, run_formula (u, grads[0], saved, node->args->scalar, error));
  return TRUE;
}

static CrTensor *
unary_local_grad (CrNode  *node,
                  guint    input,
                  GError **error)
{
  const UnaryOp *u = unary_op (node->op->id);
  g_autoptr(CrTensor) saved = NULL;
  g_autoptr(CrTensor) ones = NULL;
  gboolean was_enabled;
  CrTensor *local;

  if (u->save != SAVE_NOTHING && (saved = cr_node_get_saved (node, 0, error)) == NULL)
    return NULL;
  ones = cr_ops_full_output (node, 1.0, error);
  if (ones == NULL)
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  local = run_formula (u, ones, saved, node->args->scalar, error);
  cr_grad_mode_set_enabled (was_enabled);
  return cr_ops_take_to_output (node, local, error);
}

#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, ...)                                                    \
  const CrOpInfo cr_op_row_##ID = {                                                        \
    CR_OP_##ID, name, grad_fn, 1, symbol, text, unary_backward, unary_local_grad           \
  };
#define CR_UNARY_INPLACE(ID, OF, name, grad_fn, symbol, save, formula, text)               \
  const CrOpInfo cr_op_row_##ID = {                                                        \
    CR_OP_##ID, name, grad_fn, 1, symbol, text, unary_backward, unary_local_grad           \
  };
#include "cr-unary-ops.def"

/* ---- forward ------------------------------------------------------------- */

gboolean
cr_ops_unary_params_resolve (CrOpId               op,
                             const CrUnaryParams *given,
                             CrUnaryParams       *out,
                             GError             **error)
{
  const ParamsInfo *info;

  g_return_val_if_fail (unary_op (op) != NULL, FALSE);
  info = &params_info[unary_ops[op].base];
  if (given != NULL)
    *out = *given;
  else
    {
      memcpy (out->value, info->defaults, sizeof out->value);
      out->int_mask = info->int_mask;
    }
  return info->n == 0 || info->check (out->value, error);
}

void
cr_ops_unary_params_keep (CrNode              *node,
                          CrOpId               op,
                          const CrUnaryParams *params)
{
  CrOpArgs *args;

  if (params_info[unary_ops[op].base].n == 0)
    return;
  args = cr_node_args (node);
  for (guint i = 0; i < CR_UNARY_MAX_PARAMS; i++)
    args->scalar[i] = params->value[i];
  args->scalar_int_mask = params->int_mask;
}

CrTensor *
cr_unary_p (CrOpId               op,
            CrTensor            *x,
            const CrUnaryParams *params,
            GError             **error)
{
  const UnaryOp *u = unary_op (op);
  CrUnaryParams resolved;
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (u != NULL, NULL);
  if (!cr_ops_unary_params_resolve (op, params, &resolved, error))
    return NULL;
  out = cr_kernel_unary_p (u->kernel, x, resolved.value, error);
  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      cr_ops_unary_params_keep (node, op, &resolved);
      if (u->save == SAVE_INPUT)
        cr_node_save (node, 0, x, FALSE);
      else if (u->save == SAVE_OUTPUT)
        cr_node_save (node, 0, out, TRUE);
      if (op == CR_OP_LOG_SIGMOID)
        {
          /* Kept only to show (_saved_buffer), as PyTorch's node keeps it. */
          g_autoptr(CrTensor) buffer = cr_ops_log_sigmoid_buffer (x, error);

          if (buffer == NULL)
            g_clear_pointer (&out, cr_tensor_unref);
          cr_node_save (node, 1, buffer, FALSE);
        }
    }
  return out;
}

CrTensor *
cr_unary (CrOpId     op,
          CrTensor  *x,
          GError   **error)
{
  return cr_unary_p (op, x, NULL, error);
}

gboolean
cr_ops_unary_info (CrOpId     op,
                   CrUnaryOp *kernel,
                   int       *save)
{
  if ((guint) op >= CR_OP_COUNT || unary_ops[op].formula == NULL)
    return FALSE;
  *kernel = unary_ops[op].kernel;
  *save = unary_ops[op].save;
  return TRUE;
}

CrOpId
cr_ops_unary_inplace_node (CrOpId op)
{
  g_return_val_if_fail (unary_op (op) != NULL, op);
  return inplace_nodes[op] != 0 ? inplace_nodes[op] : op;
}

gboolean
cr_ops_unary_param (CrOpId       op,
                    guint        i,
                    const char **out_name,
                    double      *out_default,
                    gboolean    *out_int_default,
                    gboolean    *out_in_script)
{
  const ParamsInfo *info;

  if ((guint) op >= CR_OP_COUNT || unary_ops[op].formula == NULL)
    return FALSE;
  info = &params_info[unary_ops[op].base];
  if (i >= info->n)
    return FALSE;
  if (out_name != NULL)
    *out_name = info->names[i];
  if (out_default != NULL)
    *out_default = info->defaults[i];
  if (out_int_default != NULL)
    *out_int_default = (info->int_mask >> i) & 1;
  if (out_in_script != NULL)
    *out_in_script = i < info->n_script;
  return TRUE;
}

CrTensor *cr_neg     (CrTensor *x, GError **error) { return cr_unary (CR_OP_NEG, x, error); }
CrTensor *cr_exp     (CrTensor *x, GError **error) { return cr_unary (CR_OP_EXP, x, error); }
CrTensor *cr_log     (CrTensor *x, GError **error) { return cr_unary (CR_OP_LOG, x, error); }
CrTensor *cr_tanh    (CrTensor *x, GError **error) { return cr_unary (CR_OP_TANH, x, error); }
CrTensor *cr_sigmoid (CrTensor *x, GError **error) { return cr_unary (CR_OP_SIGMOID, x, error); }
CrTensor *cr_relu    (CrTensor *x, GError **error) { return cr_unary (CR_OP_RELU, x, error); }
CrTensor *cr_sqrt    (CrTensor *x, GError **error) { return cr_unary (CR_OP_SQRT, x, error); }
CrTensor *cr_silu    (CrTensor *x, GError **error) { return cr_unary (CR_OP_SILU, x, error); }
