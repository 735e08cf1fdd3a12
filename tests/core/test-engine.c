/* test-engine.c — the backward engine against PyTorch 1.13: execution order,
 * accumulation, retain_graph, retain_grad, hooks, no_grad, autograd.grad,
 * in-place rules, version counters, deep graphs.
 *
 * Expected numbers and orders come from /usr/bin/python3 with torch 1.13 (the
 * orders from a prehook registered on every grad_fn, see each test). */
#include <math.h>
#include <string.h>

#include "cr-engine.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-node.h"
#include "cr-ops.h"
#include "cr-tensor.h"

/* ---- helpers ----------------------------------------------------------- */

static CrTensor *
vec (const double *values,
     gint64        n,
     gboolean      requires_grad,
     const char   *name)
{
  CrTensor *t = cr_tensor_new_zeros (&n, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);

  g_assert_nonnull (t);
  for (gint64 i = 0; i < n; i++)
    cr_tensor_set_flat (t, i, values[i]);
  if (requires_grad)
    g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  if (name != NULL)
    cr_tensor_set_name (t, name);
  return t;
}

static CrTensor *
scalar (double   value,
        gboolean requires_grad)
{
  CrTensor *t = cr_tensor_new_scalar (value, CR_DTYPE_FLOAT32);

  if (requires_grad)
    g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  return t;
}

static CrTensor *
number (double value)
{
  CrTensor *t = cr_tensor_new_scalar (value, value == floor (value) ? CR_DTYPE_INT64
                                                                      : CR_DTYPE_FLOAT64);

  t->is_wrapped_number = TRUE;
  return t;
}

static void
assert_values (const CrTensor *t,
               const double   *expected,
               gint64          n)
{
  g_assert_nonnull (t);
  g_assert_cmpint (t->numel, ==, n);
  for (gint64 i = 0; i < n; i++)
    {
      double v = cr_tensor_get_flat (t, i);

      if (fabs (v - expected[i]) > 1e-5 * MAX (1.0, fabs (expected[i])))
        g_error ("element %" G_GINT64_FORMAT ": %.9g, expected %.9g", i, v, expected[i]);
    }
}

static void
backward_ok (CrTensor *root)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_tensor_backward (root, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* Takes both refs, returns op(a, b). */
#define OK(expr) ({ g_autoptr(GError) _e = NULL; CrTensor *_t = (expr); g_assert_no_error (_e); g_assert_nonnull (_t); _t; })

typedef struct {
  GPtrArray *names;
  guint      n_accumulate;
  gboolean   saw_local;
} Recorder;

static void
record_step (gpointer              user_data,
             const CrBackwardStep *step)
{
  Recorder *rec = user_data;

  if (step->leaf != NULL)
    g_ptr_array_add (rec->names, g_strdup_printf ("AccumulateGrad(%s)",
                                                  cr_tensor_get_name (step->leaf)));
  else
    g_ptr_array_add (rec->names, g_strdup (cr_node_name (step->node)));
  for (guint i = 0; i < step->n_inputs; i++)
    if (step->local_grads != NULL && step->local_grads[i] != NULL)
      rec->saw_local = TRUE;
}

static void
record_accumulate (gpointer  user_data,
                   CrNode   *node,
                   guint32   input_nr,
                   CrTensor *contribution,
                   CrTensor *running_sum)
{
  ((Recorder *) user_data)->n_accumulate++;
}

static const CrBackwardObserver recorder_observer = { record_step, record_accumulate };

static void
backward_recorded (CrTensor   *root,
                   Recorder   *rec)
{
  g_autoptr(GError) error = NULL;

  rec->names = g_ptr_array_new_with_free_func (g_free);
  g_assert_true (cr_tensor_backward (root, NULL, FALSE, FALSE, &recorder_observer, rec, &error));
  g_assert_no_error (error);
}

static void
assert_order (Recorder           *rec,
              const char *const  *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, rec->names->len); i++)
    g_assert_cmpstr (rec->names->pdata[i], ==, expected[i]);
  g_assert_cmpuint (rec->names->len, ==, n);
  g_ptr_array_unref (rec->names);
  rec->names = NULL;
}

/* ---- order ------------------------------------------------------------- */

/* a, b, c = [1, 2], [3, 4], [5, 6]
 * d = a * b; e = d + c; f = e.exp(); g = (f * d).sum() */
static void
test_order_shared_product (void)
{
  const double av[] = { 1, 2 }, bv[] = { 3, 4 }, cv[] = { 5, 6 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) b = vec (bv, 2, TRUE, "b");
  g_autoptr(CrTensor) c = vec (cv, 2, TRUE, "c");
  g_autoptr(CrTensor) d = OK (cr_mul (a, b, &_e));
  g_autoptr(CrTensor) e = OK (cr_add (d, c, &_e));
  g_autoptr(CrTensor) f = OK (cr_exp (e, &_e));
  g_autoptr(CrTensor) fd = OK (cr_mul (f, d, &_e));
  g_autoptr(CrTensor) g = OK (cr_sum (fd, &_e));
  Recorder rec = { 0 };
  const char *const order[] = {
    "SumBackward0", "MulBackward0", "ExpBackward0", "AddBackward0", "AccumulateGrad(c)",
    "MulBackward0", "AccumulateGrad(a)", "AccumulateGrad(b)", NULL
  };
  const double ag[] = { 35771.49609375, 43293752.0 };
  const double bg[] = { 11923.83203125, 21646876.0 };
  const double cg[] = { 8942.8740234375, 9620834.0 };

  backward_recorded (g, &rec);
  assert_order (&rec, order);
  /* d's gradient arrives twice (from f * d and through e). */
  g_assert_cmpuint (rec.n_accumulate, ==, 1);
  g_assert_true (rec.saw_local);
  assert_values (a->grad, ag, 2);
  assert_values (b->grad, bg, 2);
  assert_values (c->grad, cg, 2);
}

/* x = a.tanh(); y = x.sin(); z = x.cos(); w = (y * z + x).sum() */
static void
test_order_diamond (void)
{
  const double av[] = { 1, 2 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) x = OK (cr_tanh (a, &_e));
  g_autoptr(CrTensor) y = OK (cr_unary (CR_OP_SIN, x, &_e));
  g_autoptr(CrTensor) z = OK (cr_unary (CR_OP_COS, x, &_e));
  g_autoptr(CrTensor) yz = OK (cr_mul (y, z, &_e));
  g_autoptr(CrTensor) s = OK (cr_add (yz, x, &_e));
  g_autoptr(CrTensor) w = OK (cr_sum (s, &_e));
  Recorder rec = { 0 };
  const char *const order[] = {
    "SumBackward0", "AddBackward0", "MulBackward0", "CosBackward0", "SinBackward0",
    "TanhBackward0", "AccumulateGrad(a)", NULL
  };
  const double ag[] = { 0.43996086716651917, 0.045943696051836014 };

  backward_recorded (w, &rec);
  assert_order (&rec, order);
  g_assert_cmpuint (rec.n_accumulate, ==, 2);
  assert_values (a->grad, ag, 2);
}

/* s = (a * a + b * a + c * b).sum() */
static void
test_order_reused_leaves (void)
{
  const double av[] = { 1, 2 }, bv[] = { 3, 4 }, cv[] = { 5, 6 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) b = vec (bv, 2, TRUE, "b");
  g_autoptr(CrTensor) c = vec (cv, 2, TRUE, "c");
  /* Python's evaluation order: c * b is made after a * a + b * a. */
  g_autoptr(CrTensor) aa = OK (cr_mul (a, a, &_e));
  g_autoptr(CrTensor) ba = OK (cr_mul (b, a, &_e));
  g_autoptr(CrTensor) s1 = OK (cr_add (aa, ba, &_e));
  g_autoptr(CrTensor) cb = OK (cr_mul (c, b, &_e));
  g_autoptr(CrTensor) s2 = OK (cr_add (s1, cb, &_e));
  g_autoptr(CrTensor) s = OK (cr_sum (s2, &_e));
  Recorder rec = { 0 };
  const char *const order[] = {
    "SumBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad(c)", "AddBackward0",
    "MulBackward0", "AccumulateGrad(b)", "MulBackward0", "AccumulateGrad(a)", NULL
  };
  const double ag[] = { 5, 8 }, bg[] = { 6, 8 }, cg[] = { 3, 4 };

  backward_recorded (s, &rec);
  assert_order (&rec, order);
  assert_values (a->grad, ag, 2);
  assert_values (b->grad, bg, 2);
  assert_values (c->grad, cg, 2);
}

/* W = [[1, -2], [0.5, 1]]; h = (W @ a).relu(); out = (h.sigmoid() * b).mean() */
static void
test_order_layer (void)
{
  const double av[] = { 1, 2 }, bv[] = { 3, 4 }, wv[] = { 1, -2, 0.5, 1 };
  const gint64 wshape[] = { 2, 2 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) b = vec (bv, 2, TRUE, "b");
  g_autoptr(CrTensor) W = cr_tensor_new_zeros (wshape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) Wa = NULL;
  g_autoptr(CrTensor) h = NULL;
  g_autoptr(CrTensor) sg = NULL;
  g_autoptr(CrTensor) sb = NULL;
  g_autoptr(CrTensor) out = NULL;
  Recorder rec = { 0 };
  const char *const order[] = {
    "MeanBackward0", "MulBackward0", "AccumulateGrad(b)", "SigmoidBackward0", "ReluBackward0",
    "MvBackward0", "AccumulateGrad(W)", "AccumulateGrad(a)", NULL
  };

  for (int i = 0; i < 4; i++)
    cr_tensor_set_flat (W, i, wv[i]);
  g_assert_true (cr_tensor_set_requires_grad (W, TRUE, NULL));
  cr_tensor_set_name (W, "W");
  Wa = OK (cr_matmul (W, a, &_e));
  h = OK (cr_relu (Wa, &_e));
  sg = OK (cr_sigmoid (h, &_e));
  sb = OK (cr_mul (sg, b, &_e));
  out = OK (cr_mean (sb, &_e));
  backward_recorded (out, &rec);
  assert_order (&rec, order);
}

/* torch.autograd.backward([q.sum(), r.sum()]) with p = a * 2; q = p * 3; r = a + b:
 * a.grad = [7, 7], b.grad = [1, 1]; prehooks on every node fire in the order
 * below (rs's SumBackward0 is newer than qs's, so it runs first). */
static void
test_multiple_roots (void)
{
  const double av[] = { 1, 2 }, bv[] = { 3, 4 }, ag[] = { 7, 7 }, bg[] = { 1, 1 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) b = vec (bv, 2, TRUE, "b");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) three = number (3);
  g_autoptr(CrTensor) p = OK (cr_mul (a, two, &_e));
  g_autoptr(CrTensor) q = OK (cr_mul (p, three, &_e));
  g_autoptr(CrTensor) r = OK (cr_add (a, b, &_e));
  g_autoptr(CrTensor) qs = OK (cr_sum (q, &_e));
  g_autoptr(CrTensor) rs = OK (cr_sum (r, &_e));
  g_autoptr(GError) error = NULL;
  CrTensor *roots[] = { qs, rs };
  CrBackwardOptions options = { 0 };
  Recorder rec = { 0 };
  const char *const order[] = {
    "SumBackward0", "SumBackward0", "AddBackward0", "AccumulateGrad(b)", "MulBackward0",
    "MulBackward0", "AccumulateGrad(a)", NULL
  };

  rec.names = g_ptr_array_new_with_free_func (g_free);
  options.observer = &recorder_observer;
  options.observer_data = &rec;
  g_assert_true (cr_autograd_run (roots, NULL, 2, &options, NULL, &error));
  g_assert_no_error (error);
  assert_order (&rec, order);
  assert_values (a->grad, ag, 2);
  assert_values (b->grad, bg, 2);
}

/* p = a * a; torch.autograd.backward([p, p.sum()], [tensor([1., 10.]), None])
 * gives a.grad = [4, 44]: both roots reach p's node. */
static void
test_multiple_roots_shared (void)
{
  const double av[] = { 1, 2 }, gv[] = { 1, 10 }, ag[] = { 4, 44 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) g = vec (gv, 2, FALSE, NULL);
  g_autoptr(CrTensor) p = OK (cr_mul (a, a, &_e));
  g_autoptr(CrTensor) ps = OK (cr_sum (p, &_e));
  g_autoptr(GError) error = NULL;
  CrTensor *roots[] = { p, ps };
  CrTensor *grads[] = { g, NULL };

  g_assert_true (cr_autograd_run (roots, grads, 2, NULL, NULL, &error));
  g_assert_no_error (error);
  assert_values (a->grad, ag, 2);
}

/* Ties: several AccumulateGrad nodes (equal sequence numbers) ready at once
 * leave PyTorch's std::priority_queue in its own order. Leaf hooks record it:
 *   torch.cat([a, b, c, d]).sum().backward()          -> a c b d
 *   torch.cat([a, b, c, d, e, f]).sum().backward()    -> a c f e b d
 *   torch.stack([a, b, c, d, e]).sum().backward()     -> a c e b d */
static gboolean
record_leaf_hook (const CrTensor  *grad,
                  CrTensor       **out,
                  gpointer         user_data,
                  GError         **error)
{
  g_string_append (((GString **) user_data)[0], ((const char **) user_data)[1]);
  return TRUE;
}

static void
test_order_ties (void)
{
  const char *names[] = { "a", "b", "c", "d", "e", "f" };
  g_autoptr(GString) order = g_string_new (NULL);
  gpointer hook_data[6][2];
  CrTensor *leaves[6];
  struct { guint n; gboolean stack; const char *expected; } cases[] = {
    { 4, FALSE, "acbd" }, { 6, FALSE, "acfebd" }, { 5, TRUE, "acebd" },
  };

  for (int i = 0; i < 6; i++)
    {
      const double one = 1;

      leaves[i] = vec (&one, 1, TRUE, names[i]);
      hook_data[i][0] = order;
      hook_data[i][1] = (gpointer) names[i];
      cr_tensor_register_hook (leaves[i], record_leaf_hook, hook_data[i], NULL, NULL);
    }
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(CrTensor) joined = cases[c].stack ? OK (cr_stack (leaves, cases[c].n, 0, &_e))
                                                  : OK (cr_cat (leaves, cases[c].n, 0, &_e));
      g_autoptr(CrTensor) s = OK (cr_sum (joined, &_e));

      g_string_truncate (order, 0);
      backward_ok (s);
      g_assert_cmpstr (order->str, ==, cases[c].expected);
    }
  for (int i = 0; i < 6; i++)
    cr_tensor_unref (leaves[i]);
}

/* ---- accumulation, retain_graph ----------------------------------------- */

/* (a * 3).sum().backward(); (a * a).sum().backward() -> a.grad = [5, 7], and a
 * reference to the old .grad sees the sum (PyTorch adds in place). */
static void
test_accumulate (void)
{
  const double av[] = { 1, 2 }, first[] = { 3, 3 }, ag[] = { 5, 7 };
  g_autoptr(CrTensor) a = vec (av, 2, TRUE, "a");
  g_autoptr(CrTensor) three = number (3);
  g_autoptr(CrTensor) a3 = OK (cr_mul (a, three, &_e));
  g_autoptr(CrTensor) s1 = OK (cr_sum (a3, &_e));
  g_autoptr(CrTensor) aa = OK (cr_mul (a, a, &_e));
  g_autoptr(CrTensor) s2 = OK (cr_sum (aa, &_e));
  g_autoptr(CrTensor) old = NULL;

  backward_ok (s1);
  assert_values (a->grad, first, 2);
  g_assert_null (a->grad->grad_fn);
  g_assert_false (a->grad->requires_grad);
  old = cr_tensor_ref (a->grad);
  backward_ok (s2);
  g_assert_true (a->grad == old);
  assert_values (a->grad, ag, 2);
}

static void
test_backward_twice (void)
{
  const double av[] = { 1, 2, 3 }, twice[] = { 4, 4, 4 }, three_times[] = { 6, 6, 6 };
  g_autoptr(CrTensor) x = vec (av, 3, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) m = OK (cr_mul (x, two, &_e));
  g_autoptr(CrTensor) ms = OK (cr_sum (m, &_e));
  g_autoptr(CrTensor) p = OK (cr_add (x, two, &_e));
  g_autoptr(CrTensor) ps = OK (cr_sum (p, &_e));
  g_autoptr(GError) error = NULL;

  /* retain_graph keeps the saved tensors */
  g_assert_true (cr_tensor_backward (ms, NULL, TRUE, FALSE, NULL, NULL, &error));
  g_assert_true (cr_tensor_backward (ms, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
  assert_values (x->grad, twice, 3);
  g_assert_false (cr_tensor_backward (ms, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "Trying to backward through the graph a second time (or directly access "
                   "saved tensors after they have already been freed). Saved intermediate "
                   "values of the graph are freed when you call .backward() or "
                   "autograd.grad(). Specify retain_graph=True if you need to backward through "
                   "the graph a second time or if you need to access saved tensors after "
                   "calling backward.");
  g_clear_error (&error);

  /* x + 2 saves nothing: PyTorch lets it go backward twice. */
  cr_tensor_unref (g_steal_pointer (&x->grad));
  backward_ok (ps);
  backward_ok (ps);
  {
    const double two_each[] = { 2, 2, 2 };
    assert_values (x->grad, two_each, 3);
  }
  (void) three_times;
}

/* ---- retain_grad and hooks --------------------------------------------- */

static gboolean
times_ten_hook (const CrTensor  *grad,
                CrTensor       **out,
                gpointer         user_data,
                GError         **error)
{
  g_autoptr(CrTensor) ten = number (10);

  *out = cr_mul ((CrTensor *) grad, ten, error);
  if (user_data != NULL)
    (*(int *) user_data)++;
  return *out != NULL;
}

/* x = [1, 2]
 * A: z = x*2; z.retain_grad(); z.register_hook(g*10) -> z.grad [1, 1], x.grad [20, 20]
 * B: hook first, then retain_grad -> z.grad [10, 10], x.grad [20, 20]
 * C: z.retain_grad(); (z.sum() + z.sum()).backward(retain_graph) -> z.grad [2, 2];
 *    z.sum().backward() -> [3, 3], a new tensor (accumulated out of place). */
static void
test_retain_grad (void)
{
  const double xv[] = { 1, 2 }, ones[] = { 1, 1 }, tens[] = { 10, 10 }, twenties[] = { 20, 20 };
  const double twos[] = { 2, 2 }, threes[] = { 3, 3 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_tensor_retain_grad (z, &error));
    g_assert_cmpuint (cr_tensor_register_hook (z, times_ten_hook, NULL, NULL, &error), >, 0);
    s = OK (cr_sum (z, &_e));
    backward_ok (s);
    assert_values (z->grad, ones, 2);
    assert_values (x->grad, twenties, 2);
  }
  g_clear_pointer (&x->grad, cr_tensor_unref);
  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) s = NULL;

    g_assert_cmpuint (cr_tensor_register_hook (z, times_ten_hook, NULL, NULL, &error), >, 0);
    g_assert_true (cr_tensor_retain_grad (z, &error));
    s = OK (cr_sum (z, &_e));
    backward_ok (s);
    assert_values (z->grad, tens, 2);
    assert_values (x->grad, twenties, 2);
  }
  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) s1 = NULL;
    g_autoptr(CrTensor) s2 = NULL;
    g_autoptr(CrTensor) s = NULL;
    CrTensor *first;

    g_assert_true (cr_tensor_retain_grad (z, &error));
    s1 = OK (cr_sum (z, &_e));
    s2 = OK (cr_sum (z, &_e));
    s = OK (cr_add (s1, s2, &_e));
    g_assert_true (cr_tensor_backward (s, NULL, TRUE, FALSE, NULL, NULL, &error));
    assert_values (z->grad, twos, 2);
    first = z->grad;
    backward_ok (s1);
    assert_values (z->grad, threes, 2);
    g_assert_true (z->grad != first);
    g_clear_pointer (&s2, cr_tensor_unref);
  }
  /* Retaining on a tensor without grad is PyTorch's error; on a leaf a no-op. */
  {
    g_autoptr(CrTensor) plain = vec (xv, 2, FALSE, NULL);

    g_assert_false (cr_tensor_retain_grad (plain, &error));
    g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
    g_assert_cmpstr (error->message, ==,
                     "can't retain_grad on Tensor that has requires_grad=False");
    g_clear_error (&error);
    g_assert_cmpuint (cr_tensor_register_hook (plain, times_ten_hook, NULL, NULL, &error), ==, 0);
    g_assert_cmpstr (error->message, ==,
                     "cannot register a hook on a tensor that doesn't require gradient");
    g_clear_error (&error);
    g_assert_true (cr_tensor_retain_grad (x, &error));
  }
}

/* z = x * 2; z.retain_grad(); z.mul_(3); z.sum().backward() -> z.grad = [1, 1]
 * (the retain_grad follows z to its new grad_fn); with register_hook before the
 * mul_, the hook stays on MulBackward0 and sees [3, 3]. */
static void
test_retain_grad_inplace (void)
{
  const double xv[] = { 1, 2 }, ones[] = { 1, 1 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) three = number (3);
  g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_tensor_retain_grad (z, &error));
  g_assert_true (cr_inplace_binary (CR_OP_MUL, z, three, &error));
  g_assert_no_error (error);
  s = OK (cr_sum (z, &_e));
  backward_ok (s);
  assert_values (z->grad, ones, 2);
}

/* z = x * 2; z.register_hook(g * 10); (z * z).sum().backward() -> x.grad [80, 160];
 * leaf hooks run before AccumulateGrad; torch.autograd.grad ignores both. */
static void
test_hooks (void)
{
  const double xv[] = { 1, 2 }, xg[] = { 80, 160 }, leaf_g[] = { 30, 30 }, plain[] = { 3, 3 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) three = number (3);
  g_autoptr(GError) error = NULL;
  int calls = 0;

  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) zz = NULL;
    g_autoptr(CrTensor) s = NULL;

    cr_tensor_register_hook (z, times_ten_hook, &calls, NULL, &error);
    zz = OK (cr_mul (z, z, &_e));
    s = OK (cr_sum (zz, &_e));
    backward_ok (s);
    assert_values (x->grad, xg, 2);
    g_assert_cmpint (calls, ==, 1);
  }
  g_clear_pointer (&x->grad, cr_tensor_unref);
  {
    guint id = cr_tensor_register_hook (x, times_ten_hook, &calls, NULL, &error);
    g_autoptr(CrTensor) x3 = OK (cr_mul (x, three, &_e));
    g_autoptr(CrTensor) s = OK (cr_sum (x3, &_e));
    CrBackwardOptions options = { 0 };
    CrTensor **grads = NULL;

    options.inputs = &x;
    options.n_inputs = 1;
    options.retain_graph = TRUE;
    g_assert_true (cr_autograd_run (&s, NULL, 1, &options, &grads, &error));
    assert_values (grads[0], plain, 2);
    g_assert_null (x->grad);
    cr_tensor_unref (grads[0]);
    g_free (grads);

    backward_ok (s);
    assert_values (x->grad, leaf_g, 2);
    g_assert_cmpint (calls, ==, 2);
    cr_tensor_remove_hook (x, id);
  }
}

/* A hook that removes hooks while the backward calls them. */
typedef struct {
  CrTensor *tensor;
  guint     ids[2];
  int       calls;
} RemovingHook;

static gboolean
remove_both_hook (const CrTensor  *grad,
                  CrTensor       **out,
                  gpointer         user_data,
                  GError         **error)
{
  RemovingHook *state = user_data;

  state->calls++;
  cr_tensor_remove_hook (state->tensor, state->ids[0]);
  cr_tensor_remove_hook (state->tensor, state->ids[1]);
  return TRUE;
}

static gboolean
drop_tensor_hook (const CrTensor  *grad,
                  CrTensor       **out,
                  gpointer         user_data,
                  GError         **error)
{
  g_clear_pointer ((CrTensor **) user_data, cr_tensor_unref);
  return TRUE;
}

/* PyTorch 1.13 calls a copy of a tensor's hook list: a hook that removes
 * itself and the next one (on z, then on the leaf x) leaves both to run this
 * time, none the next. z = x * 2; z.sum().backward() -> x.grad [200, 200].
 * A retained tensor dropped by an earlier hook of its grad_fn is not written. */
static void
test_hooks_removed_while_running (void)
{
  const double xv[] = { 1, 2 }, hooked[] = { 200, 200 }, plain[] = { 2, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(GError) error = NULL;
  int calls = 0;

  for (int leaf = 0; leaf < 2; leaf++)
    {
      g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
      g_autoptr(CrTensor) s = OK (cr_sum (z, &_e));
      RemovingHook state = { .tensor = leaf ? x : z };

      calls = 0;
      state.ids[0] = cr_tensor_register_hook (state.tensor, remove_both_hook, &state, NULL, &error);
      state.ids[1] = cr_tensor_register_hook (state.tensor, times_ten_hook, &calls, NULL, &error);
      cr_tensor_register_hook (state.tensor, times_ten_hook, &calls, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (cr_tensor_backward (s, NULL, TRUE, FALSE, NULL, NULL, &error));
      g_assert_no_error (error);
      assert_values (x->grad, hooked, 2);
      g_assert_cmpint (state.calls, ==, 1);
      g_assert_cmpint (calls, ==, 2);
      g_clear_pointer (&x->grad, cr_tensor_unref);

      backward_ok (s);
      g_assert_cmpint (state.calls, ==, 1);
      g_assert_cmpint (calls, ==, 3);
      assert_values (x->grad, (const double[]) { 20, 20 }, 2);
      g_clear_pointer (&x->grad, cr_tensor_unref);
    }

  {
    g_autoptr(CrTensor) y = vec (xv, 2, TRUE, "y");
    CrTensor *z = OK (cr_mul (y, two, &_e));
    g_autoptr(CrTensor) s = OK (cr_sum (z, &_e));

    cr_tensor_register_hook (z, drop_tensor_hook, &z, NULL, &error);
    g_assert_true (cr_tensor_retain_grad (z, &error));
    g_assert_cmpint (z->ref_count, ==, 1);   /* the hook frees it */
    backward_ok (s);
    g_assert_null (z);
    assert_values (y->grad, plain, 2);
  }
}

/* ---- no_grad, detach --------------------------------------------------- */

static void
test_no_grad (void)
{
  const double xv[] = { 1, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) y = NULL;
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(CrTensor) dy = NULL;
  g_autoptr(GError) error = NULL;
  gboolean prev = cr_grad_mode_set_enabled (FALSE);

  y = OK (cr_mul (x, two, &_e));
  cr_grad_mode_set_enabled (prev);
  g_assert_true (cr_grad_mode_is_enabled ());
  g_assert_null (y->grad_fn);
  g_assert_false (y->requires_grad);

  d = cr_detach (x);
  g_assert_false (d->requires_grad);
  g_assert_true (d->storage == x->storage);
  dy = OK (cr_mul (d, two, &_e));
  g_assert_null (dy->grad_fn);

  g_assert_false (cr_tensor_backward (y, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "element 0 of tensors does not require grad and does not have a grad_fn");
}

/* ---- graph structure --------------------------------------------------- */

static void
test_next_functions (void)
{
  const double xv[] = { 1, 2 }, yv[] = { 3, 4 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) y = vec (yv, 2, TRUE, "y");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) m = OK (cr_mul (x, two, &_e));
  g_autoptr(CrTensor) r = OK (cr_rsub_scalar (x, 10, &_e));
  g_autoptr(CrTensor) p = OK (cr_pow_scalar (x, 2, &_e));
  g_autoptr(CrTensor) rp = OK (cr_pow (two, x, &_e));
  g_autoptr(CrTensor) pp = OK (cr_pow (x, y, &_e));
  g_autoptr(CrTensor) mm = OK (cr_mul (m, y, &_e));

  /* x * 2: ((AccumulateGrad, 0), (None, 0)) */
  g_assert_cmpstr (cr_node_name (m->grad_fn), ==, "MulBackward0");
  g_assert_cmpuint (m->grad_fn->n_inputs, ==, 2);
  g_assert_cmpstr (cr_node_name (m->grad_fn->next[0].node), ==, "AccumulateGrad");
  g_assert_true (m->grad_fn->next[0].node->variable == x);
  g_assert_null (m->grad_fn->next[1].node);
  /* the same AccumulateGrad node is shared by every use of x */
  g_assert_true (x->grad_accumulator == m->grad_fn->next[0].node);
  g_assert_true (r->grad_fn->next[0].node == x->grad_accumulator);
  /* 10 - x: RsubBackward1 with one edge; x ** 2: PowBackward0 with one */
  g_assert_cmpstr (cr_node_name (r->grad_fn), ==, "RsubBackward1");
  g_assert_cmpuint (r->grad_fn->n_inputs, ==, 1);
  g_assert_cmpstr (cr_node_name (p->grad_fn), ==, "PowBackward0");
  g_assert_cmpuint (p->grad_fn->n_inputs, ==, 1);
  /* 2 ** x: PowBackward1, ((None, 0), (AccumulateGrad, 0)) */
  g_assert_cmpstr (cr_node_name (rp->grad_fn), ==, "PowBackward1");
  g_assert_null (rp->grad_fn->next[0].node);
  g_assert_nonnull (rp->grad_fn->next[1].node);
  g_assert_cmpstr (cr_node_name (pp->grad_fn), ==, "PowBackward1");
  /* (x * 2) * y: the first edge is MulBackward0, output 0 */
  g_assert_true (mm->grad_fn->next[0].node == m->grad_fn);
  g_assert_cmpuint (mm->grad_fn->next[0].input_nr, ==, 0);
  g_assert_true (mm->grad_fn->sequence_nr > m->grad_fn->sequence_nr);
  g_assert_cmpuint (x->grad_accumulator->sequence_nr, ==, G_MAXUINT64);
}

/* The AccumulateGrad node lives while a graph uses it, and no longer. */
static void
test_grad_accumulator_lifetime (void)
{
  const double xv[] = { 1, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  CrTensor *m = OK (cr_mul (x, two, &_e));

  g_assert_nonnull (x->grad_accumulator);
  g_assert_cmpint (x->ref_count, ==, 2);   /* the node owns a ref on its leaf */
  cr_tensor_unref (m);
  g_assert_null (x->grad_accumulator);
  g_assert_cmpint (x->ref_count, ==, 1);
}

/* ---- errors of backward() ---------------------------------------------- */

static void
test_backward_errors (void)
{
  const double xv[] = { 1, 2 }, gv[] = { 1, 1, 1 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) plain = vec (xv, 2, FALSE, NULL);
  g_autoptr(CrTensor) g3 = vec (gv, 3, FALSE, NULL);
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) m = OK (cr_mul (x, two, &_e));
  g_autoptr(GError) error = NULL;

  g_assert_false (cr_tensor_backward (m, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_cmpstr (error->message, ==, "grad can be implicitly created only for scalar outputs");
  g_clear_error (&error);

  g_assert_false (cr_tensor_backward (m, g3, FALSE, FALSE, NULL, NULL, &error));
  g_assert_cmpstr (error->message, ==,
                   "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and "
                   "output[0] has a shape of torch.Size([2]).");
  g_clear_error (&error);

  /* torch.tensor([1., 2.]).backward(): the requires_grad check comes first */
  g_assert_false (cr_tensor_backward (plain, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_cmpstr (error->message, ==,
                   "element 0 of tensors does not require grad and does not have a grad_fn");
  g_clear_error (&error);

  /* A float64 gradient for a float32 output is cast (x.grad stays float32). */
  {
    const double ones[] = { 1, 1 }, twos[] = { 2, 2 };
    gint64 n = 2;
    g_autoptr(CrTensor) gd = cr_tensor_new_from_data ((const double[]) { 1, 1 }, &n, 1,
                                                      CR_DTYPE_FLOAT64, NULL);

    g_assert_true (cr_tensor_backward (m, gd, FALSE, FALSE, NULL, NULL, &error));
    g_assert_cmpint (x->grad->dtype, ==, CR_DTYPE_FLOAT32);
    assert_values (x->grad, twos, 2);
    (void) ones;
  }

  /* A leaf as its own root. */
  {
    const double gv2[] = { 5, 6 }, sum[] = { 7, 8 };
    g_autoptr(CrTensor) g2 = vec (gv2, 2, FALSE, NULL);

    g_assert_true (cr_tensor_backward (x, g2, FALSE, FALSE, NULL, NULL, &error));
    assert_values (x->grad, sum, 2);
    /* the user's gradient was copied, not adopted */
    g_assert_true (x->grad != g2);
  }
}

/* ---- torch.autograd.grad ----------------------------------------------- */

static CrTensor **
grad_of (CrTensor  *root,
         CrTensor **inputs,
         guint      n_inputs,
         gboolean   create_graph,
         gboolean   allow_unused,
         GError   **error)
{
  CrBackwardOptions options = { 0 };
  CrTensor **grads = NULL;

  options.inputs = inputs;
  options.n_inputs = n_inputs;
  options.create_graph = create_graph;
  options.retain_graph = create_graph;
  options.allow_unused = allow_unused;
  if (!cr_autograd_run (&root, NULL, 1, &options, &grads, error))
    return NULL;
  return grads;
}

static void
free_grads (CrTensor **grads,
            guint      n)
{
  for (guint i = 0; i < n; i++)
    cr_tensor_unref (grads[i]);
  g_free (grads);
}

/* x = 2; g = grad(x ** 3, x, create_graph=True) = 12 (MulBackward0);
 * grad(g, x) = 6x = 12. */
static void
test_autograd_grad_second_order (void)
{
  g_autoptr(CrTensor) x = scalar (2.0, TRUE);
  g_autoptr(CrTensor) y = OK (cr_pow_scalar (x, 3, &_e));
  g_autoptr(GError) error = NULL;
  CrTensor **g1 = grad_of (y, &x, 1, TRUE, FALSE, &error);
  CrTensor **g2 = NULL;

  g_assert_no_error (error);
  g_assert_cmpfloat (cr_tensor_get_flat (g1[0], 0), ==, 12.0);
  g_assert_nonnull (g1[0]->grad_fn);
  g_assert_cmpstr (cr_node_name (g1[0]->grad_fn), ==, "MulBackward0");
  g_assert_null (x->grad);
  g2 = grad_of (g1[0], &x, 1, FALSE, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (cr_tensor_get_flat (g2[0], 0), ==, 12.0);
  g_assert_null (g2[0]->grad_fn);
  free_grads (g1, 1);
  free_grads (g2, 1);
}

/* y = x ** 3 at 2: y.backward(create_graph=True) -> x.grad = 12 with grad_fn
 * CopyBackwards; a second one -> 24 with AddBackward0. */
static void
test_create_graph_accumulate (void)
{
  g_autoptr(CrTensor) x = scalar (2.0, TRUE);
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < 2; i++)
    {
      g_autoptr(CrTensor) y = OK (cr_pow_scalar (x, 3, &_e));

      g_assert_true (cr_tensor_backward (y, NULL, FALSE, TRUE, NULL, NULL, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpfloat (cr_tensor_get_flat (x->grad, 0), ==, 24.0);
  g_assert_cmpstr (cr_node_name (x->grad->grad_fn), ==, "AddBackward0");
  g_assert_cmpstr (cr_node_name (x->grad->grad_fn->next[0].node), ==, "CopyBackwards");
  g_assert_null (x->grad->grad_fn->next[0].node->next[0].node);
  /* the graph of x.grad owns x's AccumulateGrad node (PyTorch's cycle);
   * dropping .grad breaks it */
  g_clear_pointer (&x->grad, cr_tensor_unref);
}

static void
test_autograd_grad_errors (void)
{
  const double xv[] = { 1, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) u = vec (xv, 2, TRUE, "u");
  g_autoptr(CrTensor) c = vec (xv, 2, FALSE, NULL);
  g_autoptr(GError) error = NULL;
  CrTensor **grads;

  {
    g_autoptr(CrTensor) xx = OK (cr_mul (x, x, &_e));
    g_autoptr(CrTensor) y = OK (cr_sum (xx, &_e));
    CrTensor *inputs[] = { x, u };

    g_assert_null (grad_of (y, inputs, 2, FALSE, FALSE, &error));
    g_assert_cmpstr (error->message, ==,
                     "One of the differentiated Tensors appears to not have been used in the "
                     "graph. Set allow_unused=True if this is the desired behavior.");
    g_clear_error (&error);
    /* PyTorch checks after running: the graph is freed by then. */
    g_assert_false (cr_tensor_backward (y, NULL, FALSE, FALSE, NULL, NULL, &error));
    g_assert_true (g_str_has_prefix (error->message, "Trying to backward through the graph"));
    g_clear_error (&error);
  }
  {
    g_autoptr(CrTensor) xx = OK (cr_mul (x, x, &_e));
    g_autoptr(CrTensor) y = OK (cr_sum (xx, &_e));
    CrTensor *inputs[] = { c };

    g_assert_null (grad_of (y, inputs, 1, FALSE, FALSE, &error));
    g_assert_cmpstr (error->message, ==, "One of the differentiated Tensors does not require grad");
    g_clear_error (&error);
  }
  {
    const double twos[] = { 2, 2 };
    g_autoptr(CrTensor) two = number (2);
    g_autoptr(CrTensor) x2 = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) y = OK (cr_sum (x2, &_e));
    CrTensor *inputs[] = { x, u };

    grads = grad_of (y, inputs, 2, FALSE, TRUE, &error);
    g_assert_no_error (error);
    assert_values (grads[0], twos, 2);
    g_assert_null (grads[1]);
    free_grads (grads, 2);
  }
  /* The gradient of a non-leaf, without running the nodes below it. */
  {
    const double ones[] = { 1, 1 };
    g_autoptr(CrTensor) two = number (2);
    g_autoptr(CrTensor) x2 = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) y = OK (cr_sum (x2, &_e));

    grads = grad_of (y, &x2, 1, FALSE, FALSE, &error);
    g_assert_no_error (error);
    assert_values (grads[0], ones, 2);
    free_grads (grads, 1);
    /* MulBackward0 did not run, so its saved tensors are still there */
    g_assert_false (x2->grad_fn->released);
  }
}

/* ---- deep graphs ------------------------------------------------------- */

/* 100k nodes: y = y * 1.00001, backward, teardown: no recursion anywhere
 * (the default 8 MiB stack would overflow long before with recursive
 * teardown of tensor -> grad_fn -> saved tensor -> grad_fn ...). The value is
 * checked against 1.00001 ** 100000 in float32 arithmetic, loosely. */
static void
test_long_chain (void)
{
  g_autoptr(CrTensor) x = scalar (1.0, TRUE);
  g_autoptr(CrTensor) factor = number (1.00001);
  CrTensor *y = cr_tensor_ref (x);
  const int n = 100000;

  for (int i = 0; i < n; i++)
    {
      CrTensor *next = OK (cr_mul (y, factor, &_e));

      cr_tensor_unref (y);
      y = next;
    }
  backward_ok (y);
  g_assert_cmpfloat (fabs (cr_tensor_get_flat (x->grad, 0) - exp (n * log (1.00001))), <, 0.05);
  cr_tensor_unref (y);   /* frees 100k nodes and their saved tensors */
  g_assert_null (x->grad_accumulator);
}

/* ---- version counter --------------------------------------------------- */

static void
test_version_counter (void)
{
  const double xv[] = { 1, 2, 3 };
  g_autoptr(CrTensor) x = vec (xv, 3, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) one = number (1);
  g_autoptr(GError) error = NULL;

  /* a = x * 2; b = a * a; a.add_(1) */
  {
    g_autoptr(CrTensor) a = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) b = OK (cr_mul (a, a, &_e));
    g_autoptr(CrTensor) s = OK (cr_sum (b, &_e));

    g_assert_true (cr_inplace_binary (CR_OP_ADD, a, one, &error));
    g_assert_false (cr_tensor_backward (s, NULL, FALSE, FALSE, NULL, NULL, &error));
    g_assert_cmpstr (error->message, ==,
                     "one of the variables needed for gradient computation has been modified by "
                     "an inplace operation: [torch.FloatTensor [3]], which is output 0 of "
                     "AddBackward0, is at version 1; expected version 0 instead. Hint: enable "
                     "anomaly detection to find the operation that failed to compute its "
                     "gradient, with torch.autograd.set_detect_anomaly(True).");
    g_clear_error (&error);
  }
  /* y = [1, 2, 3] (no grad); b = x * y; y.add_(1) */
  {
    g_autoptr(CrTensor) y = vec (xv, 3, FALSE, NULL);
    g_autoptr(CrTensor) b = OK (cr_mul (x, y, &_e));
    g_autoptr(CrTensor) s = OK (cr_sum (b, &_e));

    g_assert_true (cr_inplace_binary (CR_OP_ADD, y, one, &error));
    g_assert_false (cr_tensor_backward (s, NULL, FALSE, FALSE, NULL, NULL, &error));
    g_assert_cmpstr (error->message, ==,
                     "one of the variables needed for gradient computation has been modified by "
                     "an inplace operation: [torch.FloatTensor [3]] is at version 1; expected "
                     "version 0 instead. Hint: enable anomaly detection to find the operation "
                     "that failed to compute its gradient, with "
                     "torch.autograd.set_detect_anomaly(True).");
    g_clear_error (&error);
  }
  /* s = 2 (0-d); e = s.exp(); e.add_(1); e.backward(): output 0 of ExpBackward0 */
  {
    g_autoptr(CrTensor) s = scalar (2.0, TRUE);
    g_autoptr(CrTensor) e = OK (cr_exp (s, &_e));

    g_assert_true (cr_inplace_binary (CR_OP_ADD, e, one, &error));
    g_assert_false (cr_tensor_backward (e, NULL, FALSE, FALSE, NULL, NULL, &error));
    g_assert_cmpstr (error->message, ==,
                     "one of the variables needed for gradient computation has been modified by "
                     "an inplace operation: [torch.FloatTensor []], which is output 0 of "
                     "ExpBackward0, is at version 1; expected version 0 instead. Hint: enable "
                     "anomaly detection to find the operation that failed to compute its "
                     "gradient, with torch.autograd.set_detect_anomaly(True).");
  }
}

/* ---- in-place rules ---------------------------------------------------- */

static void
test_inplace_rules (void)
{
  const double xv[] = { 1, 2, 3 };
  g_autoptr(CrTensor) x = vec (xv, 3, TRUE, "x");
  g_autoptr(CrTensor) one = number (1);
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(GError) error = NULL;
  guint32 version = cr_tensor_version (x);

  g_assert_false (cr_inplace_binary (CR_OP_ADD, x, one, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "a leaf Variable that requires grad is being used in an in-place operation.");
  g_clear_error (&error);
  g_assert_false (cr_zero_ (x, &error));
  g_clear_error (&error);
  g_assert_cmpuint (cr_tensor_version (x), ==, version);

  /* Under no_grad it is how SGD updates weights: allowed, version bumped. */
  {
    const double after[] = { 0, 1, 2 };
    gboolean prev = cr_grad_mode_set_enabled (FALSE);

    g_assert_true (cr_inplace_binary (CR_OP_SUB, x, one, &error));
    cr_grad_mode_set_enabled (prev);
    g_assert_no_error (error);
    assert_values (x, after, 3);
    g_assert_cmpuint (cr_tensor_version (x), ==, version + 1);
    g_assert_null (x->grad_fn);
    g_assert_true (x->requires_grad);
  }

  /* z = x * 2; z += 1; z *= 2; z -= 1 */
  {
    const double zg[] = { 4, 4, 4 };
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    CrNode *mul = z->grad_fn;
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_inplace_binary (CR_OP_ADD, z, one, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "AddBackward0");
    g_assert_true (z->grad_fn->next[0].node == mul);
    g_assert_null (z->grad_fn->next[1].node);
    g_assert_true (cr_inplace_binary (CR_OP_MUL, z, two, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "MulBackward0");
    g_assert_true (cr_inplace_binary (CR_OP_SUB, z, one, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "SubBackward0");
    g_assert_cmpstr (cr_node_name (z->grad_fn->next[0].node->next[0].node), ==, "AddBackward0");
    s = OK (cr_sum (z, &_e));
    backward_ok (s);
    assert_values (x->grad, zg, 3);
    g_clear_pointer (&x->grad, cr_tensor_unref);
  }

  /* A tensor without history that takes part of one: zeros += x */
  {
    const double ones[] = { 1, 1, 1 };
    gint64 n = 3;
    g_autoptr(CrTensor) acc = cr_tensor_new_zeros (&n, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_inplace_binary (CR_OP_ADD, acc, x, &error));
    g_assert_cmpstr (cr_node_name (acc->grad_fn), ==, "AddBackward0");
    g_assert_null (acc->grad_fn->next[0].node);
    g_assert_true (acc->requires_grad);
    s = OK (cr_sum (acc, &_e));
    backward_ok (s);
    assert_values (x->grad, ones, 3);
    g_clear_pointer (&x->grad, cr_tensor_unref);
  }

  /* z.mul_(y) with y requiring grad needs z's old value: d/dy = old z. */
  {
    const double yv[] = { 5, 6, 7 }, xg[] = { 10, 12, 14 }, yg[] = { 0, 2, 4 };
    g_autoptr(CrTensor) y = vec (yv, 3, TRUE, "y");
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_inplace_binary (CR_OP_MUL, z, y, &error));
    s = OK (cr_sum (z, &_e));
    backward_ok (s);
    assert_values (x->grad, xg, 3);
    assert_values (y->grad, yg, 3);
    g_clear_pointer (&x->grad, cr_tensor_unref);
  }

  /* zero_, fill_, copy_ and clamp_ keep PyTorch's names */
  {
    const double yv[] = { -1, 0.5, 4 }, yg[] = { 1, 1, 1 }, cg[] = { 0, 1, 0 };
    g_autoptr(CrTensor) y = vec (yv, 3, TRUE, "y");
    g_autoptr(CrTensor) z = OK (cr_clone (x, &_e));
    g_autoptr(CrTensor) w = OK (cr_clone (y, &_e));
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_zero_ (z, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "ZeroBackward0");
    g_assert_true (cr_fill_ (z, 3, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "FillBackward2");
    g_assert_true (cr_copy_ (z, y, &error));
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "CopyBackwards");
    s = OK (cr_sum (z, &_e));
    backward_ok (s);
    assert_values (y->grad, yg, 3);
    /* zero_ cut x off: zeros flow back to it (x.grad = [0, 0, 0] in PyTorch) */
    assert_values (x->grad, (const double[]) { 0, 0, 0 }, 3);
    g_clear_pointer (&y->grad, cr_tensor_unref);
    g_clear_pointer (&s, cr_tensor_unref);

    g_assert_true (cr_clamp_ (w, TRUE, 0, TRUE, 1, &error));
    g_assert_cmpstr (cr_node_name (w->grad_fn), ==, "ClampBackward1");
    s = OK (cr_sum (w, &_e));
    backward_ok (s);
    assert_values (y->grad, cg, 3);
  }

  /* view of a leaf */
  {
    gint64 shape = 2, stride = 1;
    g_autoptr(CrTensor) v = cr_tensor_new_view (x, &shape, 1, &stride, x->offset);

    v->view_base = cr_tensor_ref (x);
    g_assert_false (cr_inplace_binary (CR_OP_ADD, v, one, &error));
    g_assert_cmpstr (error->message, ==,
                     "a view of a leaf Variable that requires grad is being used in an "
                     "in-place operation.");
  }
}

/* In place through a view of a non-leaf: the base's history gets the write.
 *   x = [[1, 2], [3, 4]]; z = x * 2; y = z[0]; y.add_(10); (y * y).sum().backward()
 *     -> y.grad_fn AsStridedBackward0, z.grad_fn CopySlices, x.grad [[48, 56], [0, 0]]
 *   z = x * 2; y = z[:, 1]; y.mul_(x[0]); (z * z).sum().backward()
 *     -> z [[2, 4], [6, 16]], x.grad [[40, 272], [24, 128]] */
static void
test_inplace_view (void)
{
  const gint64 shape[] = { 2, 2 };
  g_autoptr(CrTensor) x = cr_tensor_new_zeros (shape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) ten = number (10);
  g_autoptr(GError) error = NULL;
  CrIndexItem row0[] = { { .kind = CR_INDEX_INT, .value = 0 } };
  CrIndexItem col1[] = { { .kind = CR_INDEX_SLICE }, { .kind = CR_INDEX_INT, .value = 1 } };

  for (int i = 0; i < 4; i++)
    cr_tensor_set_flat (x, i, i + 1);
  g_assert_true (cr_tensor_set_requires_grad (x, TRUE, NULL));
  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) y = OK (cr_index_get (z, row0, 1, &_e));
    g_autoptr(CrTensor) yy = NULL;
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_inplace_binary (CR_OP_ADD, y, ten, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (cr_node_name (y->grad_fn), ==, "AsStridedBackward0");
    g_assert_cmpstr (cr_node_name (z->grad_fn), ==, "CopySlices");
    g_assert_cmpstr (cr_node_name (z->grad_fn->next[0].node), ==, "MulBackward0");
    assert_values (z, (const double[]) { 12, 14, 6, 8 }, 4);
    yy = OK (cr_mul (y, y, &_e));
    s = OK (cr_sum (yy, &_e));
    backward_ok (s);
    assert_values (x->grad, (const double[]) { 48, 56, 0, 0 }, 4);
    g_clear_pointer (&x->grad, cr_tensor_unref);
  }
  {
    g_autoptr(CrTensor) z = OK (cr_mul (x, two, &_e));
    g_autoptr(CrTensor) y = OK (cr_index_get (z, col1, 2, &_e));
    g_autoptr(CrTensor) x0 = OK (cr_index_get (x, row0, 1, &_e));
    g_autoptr(CrTensor) zz = NULL;
    g_autoptr(CrTensor) s = NULL;

    g_assert_true (cr_inplace_binary (CR_OP_MUL, y, x0, &error));
    g_assert_no_error (error);
    assert_values (z, (const double[]) { 2, 4, 6, 16 }, 4);
    zz = OK (cr_mul (z, z, &_e));
    s = OK (cr_sum (zz, &_e));
    backward_ok (s);
    assert_values (x->grad, (const double[]) { 40, 272, 24, 128 }, 4);
    g_clear_pointer (&x->grad, cr_tensor_unref);
  }
  /* A view of the leaf itself has a grad_fn (SelectBackward0) and is still
   * refused: the leaf would take CopySlices as its history, a cycle. */
  {
    g_autoptr(CrTensor) v = OK (cr_index_get (x, row0, 1, &_e));

    g_assert_nonnull (v->grad_fn);
    g_assert_false (cr_inplace_binary (CR_OP_ADD, v, ten, &error));
    g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
    g_assert_cmpstr (error->message, ==, "a view of a leaf Variable that requires grad is "
                                         "being used in an in-place operation.");
    g_clear_error (&error);
    g_assert_null (x->grad_fn);
    assert_values (x, (const double[]) { 1, 2, 3, 4 }, 4);
  }
}

/* requires_grad_() errors */
static void
test_requires_grad_flag (void)
{
  const double xv[] = { 1, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) y = OK (cr_mul (x, two, &_e));
  gint64 n = 2;
  g_autoptr(CrTensor) i = cr_tensor_new_zeros (&n, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_tensor_set_requires_grad (y, TRUE, &error));
  g_assert_false (cr_tensor_set_requires_grad (y, FALSE, &error));
  g_assert_cmpstr (error->message, ==,
                   "you can only change requires_grad flags of leaf variables. If you want to "
                   "use a computed variable in a subgraph that doesn't require differentiation "
                   "use var_no_grad = var.detach().");
  g_clear_error (&error);
  g_assert_false (cr_tensor_set_requires_grad (i, TRUE, &error));
  g_assert_cmpstr (error->message, ==, "only Tensors of floating point dtype can require gradients");
  g_clear_error (&error);
  g_assert_true (cr_tensor_set_requires_grad (i, FALSE, &error));
}

/* ---- cancellation ------------------------------------------------------ */

static void
test_cancel (void)
{
  const double xv[] = { 1, 2 };
  g_autoptr(CrTensor) x = vec (xv, 2, TRUE, "x");
  g_autoptr(CrTensor) two = number (2);
  g_autoptr(CrTensor) m = OK (cr_mul (x, two, &_e));
  g_autoptr(CrTensor) s = OK (cr_sum (m, &_e));
  g_autoptr(GError) error = NULL;
  gint cancel = 1;
  CrBackwardOptions options = { 0 };

  options.cancel_flag = &cancel;
  g_assert_false (cr_autograd_run (&s, NULL, 1, &options, NULL, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_KEYBOARD_INTERRUPT);
  g_assert_null (x->grad);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/engine/order/shared-product", test_order_shared_product);
  g_test_add_func ("/core/engine/order/diamond", test_order_diamond);
  g_test_add_func ("/core/engine/order/reused-leaves", test_order_reused_leaves);
  g_test_add_func ("/core/engine/order/layer", test_order_layer);
  g_test_add_func ("/core/engine/order/ties", test_order_ties);
  g_test_add_func ("/core/engine/multiple-roots", test_multiple_roots);
  g_test_add_func ("/core/engine/multiple-roots-shared", test_multiple_roots_shared);
  g_test_add_func ("/core/engine/accumulate", test_accumulate);
  g_test_add_func ("/core/engine/backward-twice", test_backward_twice);
  g_test_add_func ("/core/engine/retain-grad", test_retain_grad);
  g_test_add_func ("/core/engine/retain-grad-inplace", test_retain_grad_inplace);
  g_test_add_func ("/core/engine/hooks", test_hooks);
  g_test_add_func ("/core/engine/hooks-removed-while-running", test_hooks_removed_while_running);
  g_test_add_func ("/core/engine/no-grad", test_no_grad);
  g_test_add_func ("/core/engine/next-functions", test_next_functions);
  g_test_add_func ("/core/engine/grad-accumulator-lifetime", test_grad_accumulator_lifetime);
  g_test_add_func ("/core/engine/backward-errors", test_backward_errors);
  g_test_add_func ("/core/engine/autograd-grad/second-order", test_autograd_grad_second_order);
  g_test_add_func ("/core/engine/autograd-grad/errors", test_autograd_grad_errors);
  g_test_add_func ("/core/engine/create-graph-accumulate", test_create_graph_accumulate);
  g_test_add_func ("/core/engine/long-chain", test_long_chain);
  g_test_add_func ("/core/engine/version-counter", test_version_counter);
  g_test_add_func ("/core/engine/inplace", test_inplace_rules);
  g_test_add_func ("/core/engine/inplace-view", test_inplace_view);
  g_test_add_func ("/core/engine/requires-grad-flag", test_requires_grad_flag);
  g_test_add_func ("/core/engine/cancel", test_cancel);

  return g_test_run ();
}
