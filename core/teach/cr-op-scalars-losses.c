/* cr-op-scalars-losses.c — the element-wise losses taken apart
 * (cr-op-scalars.h): mse_loss, binary_cross_entropy and
 * binary_cross_entropy_with_logits, each element's cost summed, averaged
 * or kept per element (reduction='none') as the op's recorded reduction
 * says, times its weight where one was given (a class weight broadcast to
 * the input; with logits also pos_weight, which scales the cost of the
 * positive label). The local derivatives are PyTorch's: for the input,
 * 2(x − t), w(p − t)/(p(1 − p)), and w((pw·t + 1 − t)σ(x) − pw·t); for the
 * target, their partners −2(x − t), −w·logit(p), and w(log(1 − σ(x)) −
 * pw·log σ(x)). */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

enum { REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM };  /* PyTorch's enum */

typedef enum { LOSS_MSE, LOSS_BCE, LOSS_BCE_LOGITS } LossKind;

/* A saved tensor of the op by name, all n of its values, or NULL. */
static const double *
saved_values (const CrRecordOp *op,
              const char       *name,
              gint64            n)
{
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (g_strcmp0 (saved->name, name) == 0 && saved->value && saved->value->n_values == n)
        return saved->value->values;
    }
  return NULL;
}

/* log that PyTorch's binary_cross_entropy clamps at −100. */
static double
clamped_log (double v)
{
  return MAX (log (v), -100.0);
}

static double
sigmoid (double v)
{
  return 1 / (1 + exp (-v));
}

/* One element's cost, and its derivatives by x and by t. */
static double
element_cost (LossKind  kind,
              double    x,
              double    t,
              double    w,
              double    pw,
              double   *dx,
              double   *dt)
{
  switch (kind)
    {
    case LOSS_MSE:
      *dx = 2 * (x - t);
      *dt = -2 * (x - t);
      return (x - t) * (x - t);
    case LOSS_BCE:
      *dx = w * (x - t) / MAX ((1 - x) * x, 1e-12);
      *dt = -w * log (x / (1 - x));
      return -w * (t * clamped_log (x) + (1 - t) * clamped_log (1 - x));
    case LOSS_BCE_LOGITS:
    default:
      {
        double s = sigmoid (x);
        *dx = w * ((pw * t + 1 - t) * s - pw * t);
        *dt = w * (log1p (-s) - pw * log (s));
        /* (1 − t)x + (1 + (pw − 1)t)·log(1 + e^−x), written to stay finite. */
        double softplus_neg = log1p (exp (-fabs (x))) + MAX (-x, 0);
        return w * ((1 - t) * x + (1 + (pw - 1) * t) * softplus_neg);
      }
    }
}

/* "bce(x[0], t[0])", with the weights that are not 1. */
static char *
element_text (LossKind    kind,
              const char *X,
              const char *T,
              double      w,
              double      pw)
{
  GString *s = g_string_new (NULL);
  if (w != 1)
    {
      scalars_append_number (s, w);
      g_string_append (s, "·");
    }
  if (kind == LOSS_MSE)
    g_string_append_printf (s, "(%s − %s)²", X, T);
  else if (kind == LOSS_BCE)
    g_string_append_printf (s, "bce(%s, %s)", X, T);
  else if (pw != 1)
    g_string_append_printf (s, "bce(σ(%s), %s, pos_weight=%g)", X, T, pw);
  else
    g_string_append_printf (s, "bce(σ(%s), %s)", X, T);
  return g_string_free (s, FALSE);
}

/* The local derivatives' formulas, over the mean's divisor (empty: none). */
static void
local_texts (LossKind    kind,
             const char *X,
             const char *T,
             double      w,
             double      pw,
             const char *over,
             char      **x_text,
             char      **t_text)
{
  g_autofree char *W = w != 1 ? g_strdup_printf ("%g·", w) : g_strdup ("");
  g_autofree char *P = pw != 1 ? g_strdup_printf ("%g·", pw) : g_strdup ("");
  switch (kind)
    {
    case LOSS_MSE:
      *x_text = g_strdup_printf ("2·(%s − %s)%s", X, T, over);
      *t_text = g_strdup_printf ("−2·(%s − %s)%s", X, T, over);
      break;
    case LOSS_BCE:
      *x_text = g_strdup_printf ("%s(%s − %s)/(%s·(1 − %s))%s", W, X, T, X, X, over);
      *t_text = g_strdup_printf ("−%slogit(%s)%s", W, X, over);
      break;
    case LOSS_BCE_LOGITS:
      if (pw != 1)
        {
          *x_text = g_strdup_printf ("%s((%s%s + 1 − %s)·σ(%s) − %s%s)%s", W, P, T, T, X, P, T, over);
          *t_text = g_strdup_printf ("%s(log(1 − σ(%s)) − %slog σ(%s))%s", W, X, P, X, over);
        }
      else
        {
          *x_text = g_strdup_printf ("%s(σ(%s) − %s)%s", W, X, T, over);
          *t_text = g_strdup_printf ("−%s%s%s", W, X, over);
        }
      break;
    }
}

gboolean
scalars_build_loss (Build *b)
{
  const CrRecordOp *op = b->op;
  LossKind kind = b->kind == KIND_MSE ? LOSS_MSE : b->kind == KIND_BCE ? LOSS_BCE : LOSS_BCE_LOGITS;
  const CrRecordTensor *x = scalars_input_at (b, 0), *t = scalars_input_at (b, 1);
  if (!x || !t || scalars_numel_of (x) != scalars_numel_of (t))
    return scalars_fail (b, "has a target the record does not keep, or of another size");
  gint64 n = scalars_numel_of (x);
  /* Weights expanded to the input's shape, as the op saved them. */
  const double *w = kind != LOSS_MSE ? saved_values (op, "weight", n) : NULL;
  const double *pw = kind == LOSS_BCE_LOGITS ? saved_values (op, "pos_weight", n) : NULL;
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (g_str_has_prefix (saved->name, "saved") || ((g_strcmp0 (saved->name, "weight") == 0 && !w)
                                                      || (g_strcmp0 (saved->name, "pos_weight") == 0 && !pw)))
        return scalars_fail (b, "has weights the record does not keep");
    }
  const double *xv = scalars_input_values (b, x), *tv = scalars_input_values (b, t);
  g_autofree double *cost = g_new (double, MAX (n, 1));
  g_autofree double *dx = g_new (double, MAX (n, 1));
  g_autofree double *dt = g_new (double, MAX (n, 1));
  double total = 0;
  for (gint64 e = 0; e < n; e++)
    {
      cost[e] = element_cost (kind, xv[e], tv[e], w ? w[e] : 1, pw ? pw[e] : 1, &dx[e], &dt[e]);
      total += cost[e];
    }
  /* The recorded reduction; where the record keeps none, what the output says. */
  const CrRecordArgument *reduction_arg = cr_record_op_argument (op, "reduction");
  int reduction = reduction_arg && reduction_arg->n_values == 1 ? (int) reduction_arg->values[0]
                  : scalars_numel_of (b->out) != 1 || n == 1 ? REDUCTION_NONE
                  : scalars_same_value (total, scalars_output_value (b, 0)) ? REDUCTION_SUM
                  : REDUCTION_MEAN;
  if (reduction == REDUCTION_NONE ? scalars_numel_of (b->out) != n : scalars_numel_of (b->out) != 1)
    return scalars_fail (b, "has an output of another size than its reduction gives");
  const char *name = kind == LOSS_MSE ? "mse" : "bce";
  double divisor = reduction == REDUCTION_MEAN ? (double) n : 1;
  g_autofree char *over = divisor > 1 ? g_strdup_printf ("/%g", divisor) : g_strdup ("");
  guint xb = scalars_input_nodes (b, x), tb = scalars_input_nodes (b, t);
  guint out = 0;
  if (reduction != REDUCTION_NONE)
    {
      g_autofree char *Y = scalars_input_label (b->record, b->out, 0);
      GString *eq = g_string_new (NULL), *num = g_string_new (divisor > 1 ? "(" : "");
      g_string_append_printf (eq, "%s = %s", Y, divisor > 1 ? "(" : "");
      for (gint64 e = 0; e < n; e++)
        {
          g_autofree char *X = scalars_input_label (b->record, x, e);
          g_autofree char *T = scalars_input_label (b->record, t, e);
          g_autofree char *term = element_text (kind, X, T, w ? w[e] : 1, pw ? pw[e] : 1);
          g_string_append_printf (eq, "%s%s", e ? " + " : "", term);
          if (e)
            g_string_append (num, " + ");
          scalars_append_number (num, cost[e]);
        }
      g_string_append_printf (eq, "%s%s", divisor > 1 ? ")" : "", over);
      g_string_append_printf (num, "%s%s", divisor > 1 ? ")" : "", over);
      b->sub_step = 0;
      out = scalars_add_output (b, 0, name, g_string_free (eq, FALSE), g_string_free (num, FALSE),
                                total / divisor);
    }
  for (gint64 e = 0; e < n; e++)
    {
      g_autofree char *X = scalars_input_label (b->record, x, e);
      g_autofree char *T = scalars_input_label (b->record, t, e);
      if (reduction == REDUCTION_NONE)
        {
          b->sub_step = (guint) e;
          g_autofree char *Y = scalars_input_label (b->record, b->out, e);
          g_autofree char *term = element_text (kind, X, T, w ? w[e] : 1, pw ? pw[e] : 1);
          GString *num = g_string_new (NULL);
          scalars_append_number (num, cost[e]);
          out = scalars_add_output (b, e, name, g_strdup_printf ("%s = %s", Y, term),
                                    g_string_free (num, FALSE), cost[e]);
        }
      char *x_text = NULL, *t_text = NULL;
      local_texts (kind, X, T, w ? w[e] : 1, pw ? pw[e] : 1, over, &x_text, &t_text);
      scalars_add_edge (b, xb + (guint) e, out, dx[e] / divisor, x_text);
      scalars_add_edge (b, tb + (guint) e, out, dt[e] / divisor, t_text);
    }
  return b->error == NULL;
}
