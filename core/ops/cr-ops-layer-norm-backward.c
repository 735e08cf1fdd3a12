/* cr-ops-layer-norm-backward.c — layer norm's backward as one op, as
 * PyTorch 1.13 records it under create_graph: native_layer_norm_backward,
 * whose node NativeLayerNormBackwardBackward0 has the three gradients
 * (input, weight, bias) as its outputs and edges to (grad_out, input, mean,
 * rstd, weight, bias); mean and rstd never require grad, and bias gets no
 * gradient from it (PyTorch's `bias: Tensor()`), yet both show in
 * next_functions.
 *
 * The values come from layer norm's own backward (cr-ops-norm.c, run with
 * grad mode off), so a create_graph backward gives the same numbers as a
 * plain one. This node's backward is PyTorch's layer_norm_double_backward,
 * written with differentiable ops, and like it takes the saved mean μ and
 * rstd r as constants (so a third derivative agrees with PyTorch's, which
 * does not see them move with x). Over the N normalized elements of a row,
 * with d = x − μ, ĝ = g·w, Σ a sum over the row, and the incoming gradients
 * u (of ∂x), p (of ∂w), q (of ∂b):
 *   ∂/∂x = d·r³·(Σu·Σĝ/N − Σu·ĝ + 3r²·Σĝd·Σud/N)/N
 *          + r³·Σud/N·(Σĝ/N − ĝ) + r³·Σĝd/N·(Σu/N − u)
 *          + r·g·p − r·Σgp/N − d·r³·Σgpd/N
 *   ∂/∂w = Σ_batch g·F(u, 1),   ∂/∂g = F(u, w) + p·d·r + q,
 *   F(v, γ) = γ·r/N·(N·v − Σv − d·r²·Σvd)   (layer norm's own ∂x for v)
 * PyTorch drops q (and p) when there is no weight: so does this.
 *
 * Slots: 0 grad_out, 1 input, 2 mean, 3 rstd (the stat layout, size 1 over
 * the normalized dims), 4 weight (when given). args.ints[0]: the number of
 * normalized dims. */
#include "cr-ops-private.h"
#include "cr-ops-formula.h"
#include "cr-tensor.h"

enum { IN_GRAD_OUT, IN_INPUT, IN_MEAN, IN_RSTD, IN_WEIGHT, IN_BIAS, N_INPUTS };

/* One evaluation: the formula's state and the row geometry. */
typedef struct {
  CrFormula  f;
  int        dims[CR_MAX_DIMS];   /* the normalized dims: the last n_dims */
  int        n_dims;
  double     n;                   /* elements per row */
  CrTensor  *d;                   /* x − μ */
  CrTensor  *r;                   /* rstd */
  CrTensor  *r2, *r3;             /* r², r³ */
} Eval;

static CrTensor *
mul (Eval *e, CrTensor *a, CrTensor *b)
{
  return cr_formula_binary (&e->f, CR_OP_MUL, a, b);
}

static CrTensor *
add (Eval *e, CrTensor *a, CrTensor *b)
{
  return cr_formula_tensors (&e->f, cr_add, a, b);
}

static CrTensor *
sub (Eval *e, CrTensor *a, CrTensor *b)
{
  return cr_formula_tensors (&e->f, cr_sub, a, b);
}

static CrTensor *
div_n (Eval *e, CrTensor *a, double n)
{
  return cr_formula_number (&e->f, CR_OP_DIV, a, n);
}

/* Σ over the row, kept as size 1. */
static CrTensor *
row_sum (Eval *e, CrTensor *a)
{
  if (e->f.err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (&e->f, cr_sum_dim (a, e->dims, e->n_dims, TRUE, &e->f.err));
}

/* F(v, γ) = γ·r/N·(N·v − Σv − d·r²·Σvd); gamma NULL: γ = 1. */
static CrTensor *
layer_norm_input_grad (Eval *e, CrTensor *v, CrTensor *gamma)
{
  CrTensor *h0 = div_n (e, gamma != NULL ? mul (e, gamma, e->r) : e->r, e->n);
  CrTensor *nv = cr_formula_number (&e->f, CR_OP_MUL, v, e->n);
  CrTensor *h1 = sub (e, sub (e, nv, row_sum (e, v)),
                      mul (e, mul (e, e->d, e->r2), row_sum (e, mul (e, v, e->d))));

  return mul (e, h0, h1);
}

/* ∂/∂x from u (may be NULL), and from p (NULL without a weight). */
static CrTensor *
input_grad (Eval *e, CrTensor *g, CrTensor *ghat, CrTensor *u, CrTensor *p)
{
  CrTensor *total = NULL;

  if (u != NULL)
    {
      CrTensor *dr3 = mul (e, e->d, e->r3);
      CrTensor *s_gd = row_sum (e, mul (e, ghat, e->d));
      CrTensor *s_g = row_sum (e, ghat);
      CrTensor *s_u = row_sum (e, u);
      CrTensor *s_ud = row_sum (e, mul (e, u, e->d));
      CrTensor *all = add (e, sub (e, div_n (e, mul (e, s_u, s_g), e->n),
                                   row_sum (e, mul (e, u, ghat))),
                           cr_formula_number (&e->f, CR_OP_MUL,
                                              mul (e, mul (e, e->r2, s_gd), s_ud),
                                              3.0 / e->n));
      CrTensor *t0 = div_n (e, mul (e, dr3, all), e->n);
      CrTensor *t1 = mul (e, div_n (e, mul (e, s_ud, e->r3), e->n),
                          sub (e, div_n (e, s_g, e->n), ghat));
      CrTensor *t2 = mul (e, div_n (e, mul (e, s_gd, e->r3), e->n),
                          sub (e, div_n (e, s_u, e->n), u));

      total = add (e, add (e, t0, t1), t2);
    }
  if (p != NULL)
    {
      CrTensor *gp = mul (e, g, p);
      CrTensor *t0 = mul (e, gp, e->r);
      CrTensor *t1 = div_n (e, mul (e, e->r, row_sum (e, gp)), -e->n);
      CrTensor *t2 = div_n (e, mul (e, mul (e, e->d, e->r3), row_sum (e, mul (e, gp, e->d))),
                            -e->n);
      CrTensor *term = add (e, add (e, t0, t1), t2);

      total = total != NULL ? add (e, total, term) : term;
    }
  return total;
}

static gboolean
layer_norm_backward_backward (CrNode          *node,
                              CrTensor *const *grads,
                              CrTensor       **grad_inputs,
                              GError         **error)
{
  CrTensor *u = grads[0], *p = grads[1], *q = grads[2];
  g_autoptr(CrTensor) weight = NULL;
  CrTensor *ghat;
  Eval e;
  SAVED (g, 0);
  SAVED (x, 1);
  SAVED (mean, 2);
  SAVED (rstd, 3);

  if (4 < node->n_saved && node->saved[4].was_saved
      && (weight = cr_node_get_saved (node, 4, error)) == NULL)
    return FALSE;
  if (weight == NULL)
    p = q = NULL;
  if (u == NULL && p == NULL && q == NULL)
    return TRUE;

  cr_formula_init (&e.f, g);
  e.n_dims = (int) CLAMP (node->args->ints[0], 0, x->ndim);
  e.n = 1.0;
  for (int i = 0; i < e.n_dims; i++)
    {
      e.dims[i] = x->ndim - e.n_dims + i;
      e.n *= (double) x->shape[e.dims[i]];
    }
  e.d = sub (&e, x, mean);
  e.r = rstd;
  e.r2 = cr_formula_pow_number (&e.f, rstd, 2.0);
  e.r3 = cr_formula_pow_number (&e.f, rstd, 3.0);
  ghat = weight != NULL ? mul (&e, g, weight) : g;

  if (cr_ops_needs_grad (node, IN_INPUT))
    {
      CrTensor *gx = input_grad (&e, g, ghat, u, p);

      grad_inputs[IN_INPUT] = gx != NULL ? cr_tensor_ref (gx) : NULL;
    }
  if (cr_ops_needs_grad (node, IN_WEIGHT) && weight != NULL && u != NULL && e.f.err == NULL)
    {
      CrTensor *full = mul (&e, g, layer_norm_input_grad (&e, u, NULL));

      if (full != NULL)
        grad_inputs[IN_WEIGHT] = cr_sum_to_shape (full, weight->shape, weight->ndim, &e.f.err);
    }
  if (cr_ops_needs_grad (node, IN_GRAD_OUT))
    {
      CrTensor *sum = u != NULL ? layer_norm_input_grad (&e, u, weight) : NULL;

      if (p != NULL)
        {
          CrTensor *term = mul (&e, mul (&e, p, e.d), e.r);
          sum = sum != NULL ? add (&e, sum, term) : term;
        }
      if (q != NULL)
        sum = sum != NULL ? add (&e, sum, q) : q;
      if (sum != NULL && e.f.err == NULL
          && !cr_shape_equal (sum->shape, sum->ndim, g->shape, g->ndim))
        sum = cr_formula_keep (&e.f, cr_expand (sum, g->shape, g->ndim, &e.f.err));
      grad_inputs[IN_GRAD_OUT] = sum != NULL ? cr_tensor_ref (sum) : NULL;
    }
  g_clear_pointer (&e.f.temps, g_ptr_array_unref);
  if (e.f.err != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&e.f.err));
      for (guint i = 0; i < N_INPUTS; i++)
        g_clear_pointer (&grad_inputs[i], cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_NATIVE_LAYER_NORM_BACKWARD = {
  CR_OP_NATIVE_LAYER_NORM_BACKWARD, "native_layer_norm_backward",
  "NativeLayerNormBackwardBackward0", N_INPUTS, "LN′",
  "(∂x, ∂w, ∂b) of layer norm:  ∂/∂g = w·T(u) + p·x̂ + q,  ∂/∂w = Σ g·T(u),  "
  "∂/∂x through r and x̂;  T(v) = σ⁻¹(v − mean v − x̂·mean(v·x̂))",
  layer_norm_backward_backward, NULL
};

void
cr_ops_layer_norm_backward_record (CrTensor        *grad_out,
                                   CrTensor        *input,
                                   CrTensor        *mean,
                                   CrTensor        *rstd,
                                   CrTensor        *weight,
                                   CrTensor        *bias,
                                   int              n_normalized,
                                   double           eps,
                                   CrTensor *const *grads)
{
  CrTensor *inputs[N_INPUTS] = { grad_out, input, mean, rstd, weight, bias };
  CrNode *node;
  CrOpArgs *args;

  if (!cr_autograd_should_record (inputs, N_INPUTS))
    return;
  node = cr_node_new (CR_OP_NATIVE_LAYER_NORM_BACKWARD, inputs, N_INPUTS, 3);
  for (guint i = 0; i < 3; i++)
    if (grads[i] != NULL)
      cr_autograd_set_history (grads[i], node, i);
  args = cr_node_args (node);
  args->ints[0] = n_normalized;
  args->scalar[0] = eps;
  cr_node_save (node, 0, grad_out, FALSE);
  cr_node_save (node, 1, input, FALSE);
  cr_node_save (node, 2, mean, FALSE);
  cr_node_save (node, 3, rstd, FALSE);
  cr_node_save (node, 4, weight, FALSE);
  cr_node_unref (node);
}
