/* cr-ops-unary.c — the differentiable functions of one tensor, made from
 * their rows in core/cr-unary-ops.def: forward (the kernel, and what backward
 * needs saved in slot 0), the autograd row, the backward formula and the step
 * view's local gradient.
 *
 * A row's formula is an expression over G (the incoming gradient) and X or Y
 * (the saved input or output) with the differentiable ops below, so a
 * create_graph backward records a graph of real ops and can be differentiated
 * again. The local gradient ∂out/∂x is the same formula with G = 1, run with
 * grad mode off: one formula, no second copy of the derivative. */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

#include <math.h>

/* ---- the formula vocabulary --------------------------------------------- */

/* (Marked unused: not every word is in a formula at every moment.) */
/* One evaluation of a formula: every intermediate it makes is owned by temps
 * (the result is borrowed from there); the first failure sets err and makes
 * every later step NULL. */
typedef struct {
  CrTensor  *grad;      /* G, borrowed */
  CrTensor  *saved;     /* X or Y, borrowed; NULL when the row saves nothing */
  GPtrArray *temps;
  GError    *err;
} Fx;

typedef CrTensor *(*FormulaFunc) (Fx *fx);

static CrTensor *
fx_keep (Fx       *fx,
         CrTensor *t)
{
  if (t != NULL)
    g_ptr_array_add (fx->temps, t);
  return t;
}

typedef CrTensor *(*BinaryOpFunc) (CrTensor *a, CrTensor *b, GError **error);

G_GNUC_UNUSED static CrTensor *
fx_binary (Fx *fx, BinaryOpFunc fn, CrTensor *a, CrTensor *b)
{
  if (fx->err != NULL || a == NULL || b == NULL)
    return NULL;
  return fx_keep (fx, fn (a, b, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_unary (Fx *fx, CrOpId op, CrTensor *a)
{
  if (fx->err != NULL || a == NULL)
    return NULL;
  return fx_keep (fx, cr_unary (op, a, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_neg (Fx *fx, CrTensor *a)
{
  return fx_unary (fx, CR_OP_NEG, a);
}

G_GNUC_UNUSED static CrTensor *
fx_mul_number (Fx *fx, CrTensor *a, double n)
{
  if (fx->err != NULL || a == NULL)
    return NULL;
  return fx_keep (fx, cr_ops_mul_number (a, n, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_add_number (Fx *fx, CrTensor *a, double n)
{
  if (fx->err != NULL || a == NULL)
    return NULL;
  return fx_keep (fx, cr_ops_add_number (a, n, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_div_number (Fx *fx, CrTensor *a, double n)
{
  g_autoptr(CrTensor) number = NULL;

  if (fx->err != NULL || a == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return fx_keep (fx, cr_div (a, number, &fx->err));
}

/* n - a: RsubBackward1, as PyTorch's `1 - x` in a formula. */
G_GNUC_UNUSED static CrTensor *
fx_rsub_number (Fx *fx, double n, CrTensor *a)
{
  if (fx->err != NULL || a == NULL)
    return NULL;
  return fx_keep (fx, cr_rsub_scalar (a, n, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_pow_number (Fx *fx, CrTensor *a, double n)
{
  if (fx->err != NULL || a == NULL)
    return NULL;
  return fx_keep (fx, cr_pow_scalar (a, n, &fx->err));
}

/* a OP n as a bool mask (comparisons have no gradient). */
G_GNUC_UNUSED static CrTensor *
fx_compare (Fx *fx, CrBinaryOp op, CrTensor *a, double n)
{
  g_autoptr(CrTensor) number = NULL;

  if (fx->err != NULL || a == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return fx_keep (fx, cr_kernel_binary (op, a, number, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_and (Fx *fx, CrTensor *a, CrTensor *b)
{
  if (fx->err != NULL || a == NULL || b == NULL)
    return NULL;
  return fx_keep (fx, cr_kernel_binary (CR_BINARY_LOGICAL_AND, a, b, &fx->err));
}

G_GNUC_UNUSED static CrTensor *
fx_where (Fx *fx, CrTensor *mask, CrTensor *a, CrTensor *b)
{
  if (fx->err != NULL || mask == NULL || a == NULL || b == NULL)
    return NULL;
  return fx_keep (fx, cr_where (mask, a, b, &fx->err));
}

/* zeros_like(G) */
G_GNUC_UNUSED static CrTensor *
fx_zeros (Fx *fx)
{
  CrTensor *g = fx->grad;

  if (fx->err != NULL)
    return NULL;
  return fx_keep (fx, cr_tensor_new_zeros (g->shape, g->ndim, g->dtype, g->device, &fx->err));
}

#define G                  (fx->grad)
#define X                  (fx->saved)
#define Y                  (fx->saved)
#define MUL(a, b)          fx_binary (fx, cr_mul, (a), (b))
#define DIV(a, b)          fx_binary (fx, cr_div, (a), (b))
#define ADD(a, b)          fx_binary (fx, cr_add, (a), (b))
#define SUB(a, b)          fx_binary (fx, cr_sub, (a), (b))
#define NEG(a)             fx_neg (fx, (a))
#define MULN(a, n)         fx_mul_number (fx, (a), (n))
#define DIVN(a, n)         fx_div_number (fx, (a), (n))
#define ADDN(a, n)         fx_add_number (fx, (a), (n))
#define RSUBN(n, a)        fx_rsub_number (fx, (n), (a))
#define POWN(a, n)         fx_pow_number (fx, (a), (n))
#define U(OP, a)           fx_unary (fx, CR_OP_##OP, (a))
#define GTN(a, n)          fx_compare (fx, CR_BINARY_GT, (a), (n))
#define LTN(a, n)          fx_compare (fx, CR_BINARY_LT, (a), (n))
#define GEN(a, n)          fx_compare (fx, CR_BINARY_GE, (a), (n))
#define LEN(a, n)          fx_compare (fx, CR_BINARY_LE, (a), (n))
#define EQN(a, n)          fx_compare (fx, CR_BINARY_EQ, (a), (n))
#define AND(a, b)          fx_and (fx, (a), (b))
#define WHERE(m, a, b)     fx_where (fx, (m), (a), (b))
#define TANH_BW(g, y)      fx_binary (fx, cr_tanh_backward, (g), (y))
#define SIGMOID_BW(g, y)   fx_binary (fx, cr_sigmoid_backward, (g), (y))
#define THRESHOLD_BW(g, x) fx_binary (fx, cr_threshold_backward, (g), (x))
#define ZEROS()            fx_zeros (fx)

/* ---- the rows ------------------------------------------------------------ */

enum { SAVE_NOTHING, SAVE_INPUT, SAVE_OUTPUT };

/* One function per row's formula. */
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, ...)                                                          \
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
#undef ZEROS

typedef struct {
  CrUnaryOp   kernel;
  int         save;
  FormulaFunc formula;
} UnaryOp;

#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, ...) \
  [CR_OP_##ID] = { CR_UNARY_##ID, SAVE_##save, formula_##ID },
static const UnaryOp unary_ops[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};

static const UnaryOp *
unary_op (CrOpId op)
{
  g_return_val_if_fail ((guint) op < CR_OP_COUNT && unary_ops[op].formula != NULL, NULL);
  return &unary_ops[op];
}

/* The formula of op for grad (G) and saved (X or Y): a new ref, or NULL with
 * error set. */
static CrTensor *
run_formula (const UnaryOp  *u,
             CrTensor       *grad,
             CrTensor       *saved,
             GError        **error)
{
  Fx fx = { grad, saved, g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref), NULL };
  CrTensor *result = u->formula (&fx);

  if (result != NULL)
    cr_tensor_ref (result);
  else if (fx.err != NULL)
    g_propagate_error (error, g_steal_pointer (&fx.err));
  else
    g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "a unary op's formula gave no tensor");
  g_clear_error (&fx.err);
  g_ptr_array_unref (fx.temps);
  return result;
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
  SET_GRAD (0, run_formula (u, grads[0], saved, error));
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
  local = run_formula (u, ones, saved, error);
  cr_grad_mode_set_enabled (was_enabled);
  return cr_ops_take_to_output (node, local, error);
}

#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, ...)                                                    \
  const CrOpInfo cr_op_row_##ID = {                                                        \
    CR_OP_##ID, name, grad_fn, 1, symbol, text, unary_backward, unary_local_grad           \
  };
#include "cr-unary-ops.def"

/* ---- forward ------------------------------------------------------------- */

CrTensor *
cr_unary (CrOpId     op,
          CrTensor  *x,
          GError   **error)
{
  const UnaryOp *u = unary_op (op);
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (u != NULL, NULL);
  out = cr_kernel_unary (u->kernel, x, error);
  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      if (u->save == SAVE_INPUT)
        cr_node_save (node, 0, x, FALSE);
      else if (u->save == SAVE_OUTPUT)
        cr_node_save (node, 0, out, TRUE);
    }
  return out;
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

CrTensor *cr_neg     (CrTensor *x, GError **error) { return cr_unary (CR_OP_NEG, x, error); }
CrTensor *cr_exp     (CrTensor *x, GError **error) { return cr_unary (CR_OP_EXP, x, error); }
CrTensor *cr_log     (CrTensor *x, GError **error) { return cr_unary (CR_OP_LOG, x, error); }
CrTensor *cr_tanh    (CrTensor *x, GError **error) { return cr_unary (CR_OP_TANH, x, error); }
CrTensor *cr_sigmoid (CrTensor *x, GError **error) { return cr_unary (CR_OP_SIGMOID, x, error); }
CrTensor *cr_relu    (CrTensor *x, GError **error) { return cr_unary (CR_OP_RELU, x, error); }
CrTensor *cr_sqrt    (CrTensor *x, GError **error) { return cr_unary (CR_OP_SQRT, x, error); }
CrTensor *cr_silu    (CrTensor *x, GError **error) { return cr_unary (CR_OP_SILU, x, error); }
