/* cr-op-scalars-robust.c — smooth_l1_loss and huber_loss taken apart
 * (cr-op-scalars.h): each element's d = x − t costs ½d²/β (½d² for huber)
 * inside |d| < β (δ), and |d| − ½β (δ·(|d| − ½δ)) outside; summed, averaged
 * or one output per element (reduction='none'), as the op's recorded
 * reduction says. ∂/∂x is d/β (d) inside, ±1 (±δ) outside; ∂/∂t its
 * negative. beta 0 leaves no inside: the L1 loss. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

enum { REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM };  /* PyTorch's enum */

typedef struct {
  gboolean huber;
  double   limit;   /* smooth_l1's beta, huber's delta */
} Robust;

static double
robust_value (const Robust *r,
              double        d)
{
  double a = fabs (d);
  if (r->huber)
    return a < r->limit ? 0.5 * d * d : r->limit * (a - 0.5 * r->limit);
  return a < r->limit ? 0.5 * d * d / r->limit : a - 0.5 * r->limit;
}

/* ∂/∂x of the element's cost, and its formula with D the difference's text. */
static double
robust_local (const Robust *r,
              double        d,
              const char   *D,
              char        **text)
{
  if (fabs (d) < r->limit)
    {
      *text = r->huber ? g_strdup (D) : g_strdup_printf ("%s/%g", D, r->limit);
      return r->huber ? d : d / r->limit;
    }
  double sign = d > 0 ? 1 : d < 0 ? -1 : 0;
  *text = r->huber ? g_strdup_printf ("%g·sign(%s)", r->limit, D) : g_strdup_printf ("sign(%s)", D);
  return r->huber ? r->limit * sign : sign;
}

gboolean
scalars_build_robust_loss (Build *b)
{
  const CrRecordOp *op = b->op;
  Robust r = { .huber = g_str_has_prefix (op->grad_fn, "Huber") };
  const CrRecordArgument *limit = cr_record_op_argument (op, r.huber ? "delta" : "beta");
  r.limit = limit && limit->n_values == 1 ? limit->values[0] : 1.0;
  const CrRecordArgument *reduction_arg = cr_record_op_argument (op, "reduction");
  int reduction = reduction_arg && reduction_arg->n_values == 1 ? (int) reduction_arg->values[0]
                  : REDUCTION_MEAN;
  const CrRecordTensor *x = scalars_input_at (b, 0), *t = scalars_input_at (b, 1);
  if (!x || !t || scalars_numel_of (x) != scalars_numel_of (t))
    return scalars_fail (b, "has a target the record does not keep, or of another size");
  gint64 n = scalars_numel_of (x);
  if (reduction == REDUCTION_NONE ? scalars_numel_of (b->out) != n : scalars_numel_of (b->out) != 1)
    return scalars_fail (b, "has an output of another size than its reduction gives");
  /* beta 0 is the L1 loss: |d|, sign(d) (PyTorch's slope 0 at d = 0). */
  const char *name = r.huber ? "huber" : "smooth_l1";
  const double *xv = scalars_input_values (b, x), *tv = scalars_input_values (b, t);
  guint xb = scalars_input_nodes (b, x), tb = scalars_input_nodes (b, t);
  double divisor = reduction == REDUCTION_MEAN ? (double) n : 1;
  GString *eq = NULL, *num = NULL;
  double total = 0;
  guint out = 0;
  if (reduction != REDUCTION_NONE)
    {
      g_autofree char *Y = scalars_input_label (b->record, b->out, 0);
      eq = g_string_new (NULL);
      num = g_string_new (divisor > 1 ? "(" : "");
      g_string_append_printf (eq, "%s = %s", Y, divisor > 1 ? "(" : "");
      for (gint64 e = 0; e < n; e++)
        {
          g_autofree char *X = scalars_input_label (b->record, x, e);
          g_autofree char *T = scalars_input_label (b->record, t, e);
          g_string_append_printf (eq, "%s%s(%s − %s)", e ? " + " : "", name, X, T);
          if (e)
            g_string_append (num, " + ");
          g_string_append_printf (num, "%.4g", robust_value (&r, xv[e] - tv[e]));
          total += robust_value (&r, xv[e] - tv[e]);
        }
      if (divisor > 1)
        {
          g_string_append_printf (eq, ")/%g", divisor);
          g_string_append_printf (num, ")/%g", divisor);
        }
      b->sub_step = 0;
      out = scalars_add_output (b, 0, name, g_string_free (eq, FALSE), g_string_free (num, FALSE),
                                total / divisor);
    }
  for (gint64 e = 0; e < n; e++)
    {
      double d = xv[e] - tv[e];
      g_autofree char *X = scalars_input_label (b->record, x, e);
      g_autofree char *T = scalars_input_label (b->record, t, e);
      g_autofree char *D = g_strdup_printf ("(%s − %s)", X, T);
      if (reduction == REDUCTION_NONE)
        {
          b->sub_step = (guint) e;
          g_autofree char *Y = scalars_input_label (b->record, b->out, e);
          GString *one = g_string_new (NULL);
          g_string_append_printf (one, "%s(", name);
          scalars_append_number (one, xv[e]);
          g_string_append (one, " − ");
          scalars_append_number (one, tv[e]);
          g_string_append_c (one, ')');
          out = scalars_add_output (b, e, name, g_strdup_printf ("%s = %s%s", Y, name, D),
                                    g_string_free (one, FALSE), robust_value (&r, d));
        }
      char *text = NULL;
      double local = robust_local (&r, d, D, &text);
      char *x_text = divisor > 1 ? g_strdup_printf ("%s/%g", text, divisor) : g_strdup (text);
      char *t_text = divisor > 1 ? g_strdup_printf ("−%s/%g", text, divisor) : g_strdup_printf ("−%s", text);
      g_free (text);
      scalars_add_edge (b, xb + (guint) e, out, local / divisor, x_text);
      scalars_add_edge (b, tb + (guint) e, out, -local / divisor, t_text);
    }
  return b->error == NULL;
}
