/* cr-ops-binary.c — the differentiable functions of two tensors, made from
 * their rows in core/cr-binary-ops.def: forward (the kernel, and what
 * backward needs saved: a in slot 0, b in 1, the output in 2), in place, the
 * autograd rows (op(a, b) and op(a, number), PyTorch's .Scalar overload),
 * the backward formulas and the step view's local gradients.
 *
 * A row's formula is an expression over G (the incoming gradient), A, B (the
 * saved operands) and Y (the saved output) with the differentiable ops
 * below, so a create_graph backward records a graph of real ops. The local
 * gradient ∂out/∂input is the same formula with G = 1, run with grad mode
 * off. Broadcast gradients are summed back to each input's shape by the
 * engine, as in PyTorch. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-ops-formula.h"
#include "cr-cuda.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* ---- the formula vocabulary --------------------------------------------- */

/* One evaluation of a formula (cr-ops-formula.h): G, the intermediates and
 * the first error in f; A, B and Y, the saved operands, borrowed (NULL when
 * not saved). */
typedef struct {
  CrFormula  f;
  CrTensor  *a;
  CrTensor  *b;
  CrTensor  *y;
} Fx;

typedef CrTensor *(*FormulaFunc) (Fx *fx);

/* n ** a: PowBackward2 */
G_GNUC_UNUSED static CrTensor *
fx_rpow_number (Fx *fx, double n, CrTensor *a)
{
  if (fx->f.err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (&fx->f, cr_pow_number_base (n, n == (double) (gint64) n, a, &fx->f.err));
}

/* t.masked_fill(mask, n): MaskedFillBackward0 */
G_GNUC_UNUSED static CrTensor *
fx_masked_fill (Fx *fx, CrTensor *t, CrTensor *mask, double n)
{
  g_autoptr(CrTensor) number = NULL;

  if (fx->f.err != NULL || t == NULL || mask == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return cr_formula_keep (&fx->f, cr_masked_fill (t, mask, number, &fx->f.err));
}

/* at::zeros({}, grad.options()) */
G_GNUC_UNUSED static CrTensor *
fx_zero (Fx *fx)
{
  if (fx->f.err != NULL)
    return NULL;
  return cr_formula_keep (&fx->f, cr_ops_zero_scalar_like (fx->f.grad));
}

#define G                  (fx->f.grad)
#define A                  (fx->a)
#define B                  (fx->b)
#define Y                  (fx->y)
#define MUL(a, b)          cr_formula_binary (&fx->f, CR_OP_MUL, (a), (b))
#define DIV(a, b)          cr_formula_binary (&fx->f, CR_OP_DIV, (a), (b))
#define ADD(a, b)          cr_formula_tensors (&fx->f, cr_add, (a), (b))
#define SUB(a, b)          cr_formula_tensors (&fx->f, cr_sub, (a), (b))
#define NEG(a)             cr_formula_unary (&fx->f, CR_OP_NEG, (a))
#define MULN(a, n)         cr_formula_number (&fx->f, CR_OP_MUL, (a), (n))
#define DIVN(a, n)         cr_formula_number (&fx->f, CR_OP_DIV, (a), (n))
#define ADDN(a, n)         cr_formula_number (&fx->f, CR_OP_ADD, (a), (n))
#define POWN(a, n)         cr_formula_pow_number (&fx->f, (a), (n))
#define RPOWN(n, a)        fx_rpow_number (fx, (n), (a))
#define U(OP, a)           cr_formula_unary (&fx->f, CR_OP_##OP, (a))
#define BIN(OP, a, b)      cr_formula_binary (&fx->f, CR_OP_##OP, (a), (b))
#define WHERE(m, a, b)     cr_formula_where (&fx->f, (m), (a), (b))
#define K(OP, a, b)        cr_formula_kernel (&fx->f, CR_BINARY_##OP, (a), (b))
#define KN(OP, a, n)       cr_formula_kernel_number (&fx->f, CR_BINARY_##OP, (a), (n))
#define KU(OP, a)          cr_formula_kernel_unary (&fx->f, CR_UNARY_##OP, (a))
#define OR(a, b)           cr_formula_kernel (&fx->f, CR_BINARY_LOGICAL_OR, (a), (b))
#define AND(a, b)          cr_formula_kernel (&fx->f, CR_BINARY_LOGICAL_AND, (a), (b))
#define MASKED_FILL(t, m, n) fx_masked_fill (fx, (t), (m), (n))
#define ZERO()             fx_zero (fx)
#define ZEROS()            cr_formula_zeros (&fx->f)

/* ---- the rows ------------------------------------------------------------ */

/* When a saved tensor is kept: its column of SAVES (a, b, out). */
enum { SAVE_NEVER, SAVE_ALWAYS, SAVE_FOR_A, SAVE_FOR_B };

/* One function per formula of a row. */
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, grad_a, grad_b, ...)                                             \
  static CrTensor *grad_a_##ID (Fx *fx) { return (grad_a); }                                 \
  static CrTensor *grad_b_##ID (Fx *fx) { return (grad_b); }
#include "cr-binary-ops.def"

#undef G
#undef A
#undef B
#undef Y
#undef MUL
#undef DIV
#undef ADD
#undef SUB
#undef NEG
#undef MULN
#undef DIVN
#undef ADDN
#undef POWN
#undef RPOWN
#undef U
#undef BIN
#undef WHERE
#undef K
#undef KN
#undef KU
#undef OR
#undef AND
#undef MASKED_FILL
#undef ZERO
#undef ZEROS

typedef struct {
  CrBinaryOp  kernel;
  CrOpId      tensor_op;     /* op(a, b): the row's ID */
  CrOpId      number_op;     /* op(a, number): ID_SCALAR */
  int         save[3];       /* a, b, out: SAVE_* */
  FormulaFunc grad[2];
} BinaryOp;

#define SAVES(a, b, out) { SAVE_##a, SAVE_##b, SAVE_##out }
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, ...)                                                             \
  [CR_OP_##ID] = { CR_BINARY_##ID, CR_OP_##ID, CR_OP_##ID##_SCALAR, saves,                     \
                   { grad_a_##ID, grad_b_##ID } },                                           \
  [CR_OP_##ID##_SCALAR] = { CR_BINARY_##ID, CR_OP_##ID, CR_OP_##ID##_SCALAR, saves,            \
                            { grad_a_##ID, grad_b_##ID } },
static const BinaryOp binary_ops[CR_OP_COUNT] = {
#include "cr-binary-ops.def"
};
#undef SAVES

static const BinaryOp *
binary_op (CrOpId op)
{
  g_return_val_if_fail ((guint) op < CR_OP_COUNT && binary_ops[op].grad[0] != NULL, NULL);
  return &binary_ops[op];
}

/* The formula of input i for grad (G): a new ref, or NULL with error set. */
static CrTensor *
run_formula (CrNode    *node,
             guint      i,
             CrTensor  *grad,
             GError   **error)
{
  const BinaryOp *bop = binary_op (node->op->id);
  CrTensor *saved[3] = { NULL, NULL, NULL };
  CrTensor *result = NULL;
  Fx fx = { { grad, NULL, NULL }, NULL, NULL, NULL };

  for (guint s = 0; s < 3; s++)
    if (s < node->n_saved && node->saved[s].was_saved
        && (saved[s] = cr_node_get_saved (node, s, error)) == NULL)
      goto out;
  fx.a = saved[0];
  fx.b = saved[1];
  fx.y = saved[2];
  cr_formula_init (&fx.f, grad);
  result = cr_formula_end (&fx.f, bop->grad[i] (&fx), "a binary op", error);
out:
  for (guint s = 0; s < 3; s++)
    g_clear_pointer (&saved[s], cr_tensor_unref);
  return result;
}

static gboolean
binary_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  for (guint i = 0; i < node->n_inputs; i++)
    if (cr_ops_needs_grad (node, i))
      SET_GRAD (i, run_formula (node, i, grads[0], error));
  return TRUE;
}

static CrTensor *
binary_local_grad (CrNode  *node,
                   guint    input,
                   GError **error)
{
  g_autoptr(CrTensor) ones = cr_ops_full_output (node, 1.0, error);
  gboolean was_enabled;
  CrTensor *local;

  if (ones == NULL)
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  local = run_formula (node, input, ones, error);
  cr_grad_mode_set_enabled (was_enabled);
  return cr_ops_take_to_output (node, local, error);
}

#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, grad_a, grad_b, text, ...)                                       \
  const CrOpInfo cr_op_row_##ID = {                                                          \
    CR_OP_##ID, name, grad_fn, 2, symbol, text, binary_backward, binary_local_grad            \
  };                                                                                         \
  const CrOpInfo cr_op_row_##ID##_SCALAR = {                                                 \
    CR_OP_##ID##_SCALAR, name, (scalar) != NULL ? (scalar) : (grad_fn), 1, symbol, text,       \
    binary_backward, binary_local_grad                                                       \
  };
#include "cr-binary-ops.def"

/* ---- forward ------------------------------------------------------------- */

/* Whether operand s (0 a, 1 b, 2 the output) is kept for the formulas,
 * given which inputs need a gradient. */
static gboolean
wants (const BinaryOp *bop,
       guint           s,
       gboolean        grad_a,
       gboolean        grad_b)
{
  switch (bop->save[s])
    {
    case SAVE_ALWAYS:
      return TRUE;
    case SAVE_FOR_A:
      return grad_a;
    case SAVE_FOR_B:
      return grad_b;
    default:
      return FALSE;
    }
}

static gboolean
keeps (const BinaryOp *bop,
       const CrNode   *node,
       guint           s)
{
  return wants (bop, s, cr_ops_needs_grad (node, 0),
                node->n_inputs > 1 && cr_ops_needs_grad (node, 1));
}

/* Records op over a and b (b a number when op is the row's number op). */
static void
record (const BinaryOp *bop,
        CrOpId          op,
        CrTensor       *a,
        CrTensor       *b,
        CrTensor       *out)
{
  CrTensor *inputs[2] = { a, b };
  CrNode *node = cr_ops_record (op, inputs, op == bop->number_op ? 1 : 2, out);

  if (node == NULL)
    return;
  if (op == bop->number_op)
    cr_ops_note_wrapped_number (node, b);
  if (keeps (bop, node, 0))
    cr_node_save (node, 0, a, FALSE);
  if (keeps (bop, node, 1))
    cr_node_save (node, 1, b, FALSE);
  if (keeps (bop, node, 2))
    cr_node_save (node, 2, out, TRUE);
}

CrTensor *
cr_binary (CrOpId     op,
           CrTensor  *a,
           CrTensor  *b,
           GError   **error)
{
  const BinaryOp *bop = binary_op (op);
  CrTensor *out;

  g_return_val_if_fail (bop != NULL, NULL);
  out = cr_kernel_binary (bop->kernel, a, b, error);
  if (out != NULL)
    record (bop, bop->tensor_op, a, b, out);
  return out;
}

CrTensor *
cr_binary_scalar (CrOpId     op,
                  CrTensor  *a,
                  CrTensor  *number,
                  GError   **error)
{
  const BinaryOp *bop = binary_op (op);
  CrTensor *out;

  g_return_val_if_fail (bop != NULL, NULL);
  out = cr_kernel_binary (bop->kernel, a, number, error);
  if (out != NULL)
    record (bop, bop->number_op, a, number, out);
  return out;
}

CrTensor *
cr_binary_number (CrOpId     op,
                  CrTensor  *a,
                  double     number,
                  GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (number, FALSE);

  return cr_binary_scalar (op, a, n, error);
}

/* Saves other in slot for a formula. If other shares self's memory (x *= x),
 * keeping other itself would be a cycle (self owns the node); an alias that
 * counts as the node's output gives PyTorch's stale-tensor error instead. */
static void
save_other (CrNode   *node,
            CrTensor *self,
            CrTensor *other,
            guint32   version_before)
{
  if (other->storage == self->storage)
    {
      cr_node_save (node, 1, other, TRUE);
      node->saved[1].version = version_before;
    }
  else
    cr_node_save (node, 1, other, FALSE);
}

gboolean
cr_inplace_binary_row (CrOpId     op,
                       CrTensor  *self,
                       CrTensor  *other,
                       gboolean   number,
                       GError   **error)
{
  const BinaryOp *bop = binary_op (op);
  CrTensor *inputs[2] = { self, other };
  g_autoptr(CrTensor) old_self = NULL;
  gboolean recording;
  guint32 version_before;
  CrNode *node;

  g_return_val_if_fail (bop != NULL, FALSE);
  op = number ? bop->number_op : bop->tensor_op;
  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;

  /* A formula that reads a needs self's old value: PyTorch's original_self
   * = self.clone(), recorded, so that a double backward reaches self's
   * earlier history through it. */
  recording = cr_autograd_should_record (inputs, number ? 1 : 2) && cr_dtype_is_floating (self->dtype);
  if (recording && wants (bop, 0, self->requires_grad, !number && other->requires_grad)
      && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;

  version_before = cr_tensor_version (self);
  if (!cr_kernel_binary_into (bop->kernel, self, self, other, error))
    return FALSE;
  cr_tensor_bump_version (self);

  if (!recording || (node = cr_ops_rebase_history (op, inputs, number ? 1 : 2)) == NULL)
    return TRUE;
  /* x.fmod_(2)'s 2, as the out-of-place row keeps it (the run record's "number"). */
  if (number)
    cr_ops_note_number (node, cr_tensor_read_flat (other, 0), other->dtype == CR_DTYPE_INT64);
  if (keeps (bop, node, 0) && old_self != NULL)
    cr_node_save (node, 0, old_self, FALSE);
  if (keeps (bop, node, 1))
    save_other (node, self, other, version_before);
  if (keeps (bop, node, 2))
    {
      /* The output is self, or for a view the alias the node wrote. */
      g_autoptr(CrTensor) value = cr_tensor_alias (self);

      cr_node_save (node, 2, self->grad_fn == node ? self : value, self->grad_fn == node);
    }
  return TRUE;
}

CrTensor *cr_mul     (CrTensor *a, CrTensor *b, GError **error) { return cr_binary (CR_OP_MUL, a, b, error); }
CrTensor *cr_div     (CrTensor *a, CrTensor *b, GError **error) { return cr_binary (CR_OP_DIV, a, b, error); }
CrTensor *cr_maximum (CrTensor *a, CrTensor *b, GError **error) { return cr_binary (CR_OP_MAXIMUM, a, b, error); }
CrTensor *cr_minimum (CrTensor *a, CrTensor *b, GError **error) { return cr_binary (CR_OP_MINIMUM, a, b, error); }
