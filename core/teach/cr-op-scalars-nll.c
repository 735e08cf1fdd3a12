/* cr-op-scalars-nll.c — nll_loss taken apart (cr-op-scalars.h), the second
 * half of cross_entropy: each row's log-probability at its target, times
 * its class's weight, negated; summed, or averaged over the weights of the
 * rows counted, or one output per row (reduction='none'). A row whose
 * target is ignore_index counts for nothing. The targets and the weights
 * are the op's saved ones; the reduction its recorded argument. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

enum { REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM };  /* PyTorch's enum */

typedef struct {
  const CrRecordTensor   *in;
  gint64                  rows, classes;
  gint64                  spread;       /* the elements of a sample per class (nll_loss2d's
                                         * H·W; 1 for (N, C)) */
  const CrTensorSnapshot *target;
  const CrTensorSnapshot *weight;       /* NULL: every class weighs 1 */
  const CrRecordTensor   *weight_tensor; /* the script's weight tensor, when the record knows it */
  int                     reduction;
  gint64                  ignored;      /* a class whose rows count for nothing, -1: none */
} Nll;

/* Where row r's class t is in the input: (N, C) row-major, or for
 * (N, C, H, W) sample r / (H·W) at class t and place r mod (H·W). */
static gint64
logp_index (const Nll *nll,
            gint64     r,
            gint64     t)
{
  return ((r / nll->spread) * nll->classes + t) * nll->spread + r % nll->spread;
}

/* Row r's target class, -1 when the row counts for nothing. */
static gint64
row_class (const Nll *nll,
           gint64     r)
{
  gint64 t = (gint64) nll->target->values[r];
  return t < 0 || t >= nll->classes || t == nll->ignored ? -1 : t;
}

static double
class_weight (const Nll *nll,
              gint64     t)
{
  return nll->weight ? nll->weight->values[t] : 1;
}

/* The sum of the counted rows' −w·logp, and of their weights. */
static void
nll_sums (const Nll    *nll,
          const double *logp,
          double       *loss,
          double       *weights)
{
  *loss = 0;
  *weights = 0;
  for (gint64 r = 0; r < nll->rows; r++)
    {
      gint64 t = row_class (nll, r);
      if (t < 0)
        continue;
      *loss -= class_weight (nll, t) * logp[logp_index (nll, r, t)];
      *weights += class_weight (nll, t);
    }
}

/* Whether the rows counted with nll->ignored give what the record says. */
static gboolean
matches_record (const Build  *b,
                const Nll    *nll,
                const double *logp)
{
  if (nll->reduction == REDUCTION_NONE)
    {
      for (gint64 r = 0; r < nll->rows; r++)
        {
          gint64 t = row_class (nll, r);
          double v = t < 0 ? 0 : -class_weight (nll, t) * logp[logp_index (nll, r, t)];
          double recorded = scalars_output_value (b, r);
          if (!isnan (recorded) && !scalars_same_value (v, recorded))
            return FALSE;
        }
      return TRUE;
    }
  double loss, weights;
  nll_sums (nll, logp, &loss, &weights);
  double v = nll->reduction == REDUCTION_MEAN ? loss / weights : loss;
  double recorded = scalars_output_value (b, 0);
  return isnan (recorded) || scalars_same_value (v, recorded);
}

/* "w[3]·" before a log-probability: the weight's name and index (new string). */
static char *
weight_label (const Nll *nll,
              gint64     t)
{
  if (nll->weight_tensor && nll->weight_tensor->label && nll->weight_tensor->label[0] != '[')
    return scalars_element_label (nll->weight_tensor, t);
  return g_strdup_printf ("weight[%" G_GINT64_FORMAT "]", t);
}

/* Row r's term into eq and num: "w[3]·logp[1, 3]", "3·(−1.16)". */
static void
append_term (Build     *b,
             const Nll *nll,
             gint64     r,
             gint64     t,
             GString   *eq,
             GString   *num)
{
  const double *logp = scalars_input_values (b, nll->in);
  g_autofree char *X = scalars_input_label (b->record, nll->in, logp_index (nll, r, t));
  if (nll->weight)
    {
      g_autofree char *WL = weight_label (nll, t);
      g_string_append_printf (eq, "%s·%s", WL, X);
      scalars_append_number (num, class_weight (nll, t));
      g_string_append (num, "·");
    }
  else
    g_string_append (eq, X);
  scalars_append_number (num, logp[logp_index (nll, r, t)]);
}

/* reduction='none': y[r] = −w[t]·logp[r, t], 0 for a row not counted. */
static gboolean
build_rows (Build     *b,
            const Nll *nll,
            guint      base)
{
  const double *logp = scalars_input_values (b, nll->in);
  for (gint64 r = 0; r < nll->rows; r++)
    {
      b->sub_step = (guint) r;
      gint64 t = row_class (nll, r);
      g_autofree char *Y = scalars_input_label (b->record, b->out, r);
      if (t < 0)
        {
          scalars_add_output (b, r, "nll", g_strdup_printf ("%s = 0 (its target is ignored)", Y),
                              NULL, 0);
          continue;
        }
      GString *eq = g_string_new (NULL), *num = g_string_new ("−");
      g_string_append_printf (eq, "%s = −", Y);
      append_term (b, nll, r, t, eq, num);
      double w = class_weight (nll, t);
      guint out = scalars_add_output (b, r, "nll", g_string_free (eq, FALSE),
                                      g_string_free (num, FALSE), -w * logp[logp_index (nll, r, t)]);
      g_autofree char *WL = nll->weight ? weight_label (nll, t) : NULL;
      scalars_add_edge (b, base + (guint) (logp_index (nll, r, t)), out, -w,
                        WL ? g_strdup_printf ("−%s", WL) : g_strdup ("−1"));
    }
  return b->error == NULL;
}

/* mean or sum: L = −(Σ w[t]·logp[r, t]) / Σ w[t] over the rows counted. */
static gboolean
build_total (Build     *b,
             const Nll *nll,
             guint      base)
{
  const double *logp = scalars_input_values (b, nll->in);
  double loss, weights;
  nll_sums (nll, logp, &loss, &weights);
  gboolean mean = nll->reduction == REDUCTION_MEAN;
  double divisor = mean ? weights : 1;
  b->sub_step = 0;
  GString *eq = g_string_new (NULL), *num = g_string_new ("−(");
  GString *denominator = g_string_new (NULL);
  g_autofree char *Y = scalars_input_label (b->record, b->out, 0);
  g_string_append_printf (eq, "%s = −(", Y);
  guint k = 0;
  for (gint64 r = 0; r < nll->rows; r++)
    {
      gint64 t = row_class (nll, r);
      if (t < 0)
        continue;
      if (k++)
        {
          g_string_append (eq, " + ");
          g_string_append (num, " + ");
          g_string_append (denominator, " + ");
        }
      append_term (b, nll, r, t, eq, num);
      g_autofree char *WL = nll->weight ? weight_label (nll, t) : NULL;
      g_string_append (denominator, WL ? WL : "1");
    }
  g_string_append_c (eq, ')');
  g_string_append_c (num, ')');
  /* The mean divides by the rows counted, or by their weights' sum. */
  if (mean && nll->weight)
    {
      g_string_append_printf (eq, k > 1 ? "/(%s)" : "/%s", denominator->str);
      g_string_append_printf (num, "/%.4g", divisor);
    }
  else if (mean && k > 1)
    {
      g_string_append_printf (eq, "/%u", k);
      g_string_append_printf (num, "/%u", k);
    }
  g_string_free (denominator, TRUE);
  guint out = scalars_add_output (b, 0, "nll", g_string_free (eq, FALSE),
                                  g_string_free (num, FALSE), divisor ? loss / divisor : NAN);
  for (gint64 r = 0; r < nll->rows; r++)
    {
      gint64 t = row_class (nll, r);
      if (t < 0)
        continue;
      g_autofree char *WL = nll->weight ? weight_label (nll, t) : NULL;
      char *text;
      if (WL && mean)
        text = g_strdup_printf ("−%s/%.4g", WL, divisor);
      else if (WL)
        text = g_strdup_printf ("−%s", WL);
      else if (mean && divisor != 1)
        text = g_strdup_printf ("−1/%g", divisor);
      else
        text = g_strdup ("−1");
      scalars_add_edge (b, base + (guint) (logp_index (nll, r, t)), out,
                        -class_weight (nll, t) / divisor, text);
    }
  return b->error == NULL;
}

gboolean
scalars_build_nll (Build *b)
{
  Nll nll = { .ignored = -1 };
  nll.in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  if (!nll.in || nll.in->ndim < 1)
    return scalars_fail (b, "has an input of no dims");
  /* (C), (N, C), or nll_loss2d's (N, C, H, W): a row per target element. */
  nll.classes = nll.in->shape[nll.in->ndim == 1 ? 0 : 1];
  nll.spread = 1;
  for (int d = 2; d < nll.in->ndim; d++)
    nll.spread *= nll.in->shape[d];
  nll.rows = nll.in->ndim == 1 ? 1 : nll.in->shape[0] * nll.spread;
  for (guint i = 0; i < b->op->saved->len; i++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[i];
      if (strcmp (saved->name, "target") == 0)
        nll.target = saved->value;
      else if (strcmp (saved->name, "weight") == 0 && saved->value)
        {
          nll.weight = saved->value;
          nll.weight_tensor = scalars_tensor_at (b->record, saved->tensor);
        }
    }
  if (!nll.target || nll.target->n_values < nll.rows)
    return scalars_fail (b, "has targets the record does not keep");
  if (nll.weight && nll.weight->n_values < nll.classes)
    return scalars_fail (b, "has class weights the record does not keep");
  const CrRecordArgument *reduction = cr_record_op_argument (b->op, "reduction");
  nll.reduction = reduction && reduction->n_values == 1 ? (int) reduction->values[0]
                  : scalars_numel_of (b->out) == 1 ? REDUCTION_MEAN : REDUCTION_NONE;
  if (nll.reduction == REDUCTION_NONE ? scalars_numel_of (b->out) != nll.rows
                                      : scalars_numel_of (b->out) != 1)
    return scalars_fail (b, "has an output of another size than its reduction gives");
  /* ignore_index as the record keeps it; where it keeps none, the target
   * class (if any) whose rows left out give the recorded loss (an index
   * outside the classes, the default −100, leaves its rows out anyway). */
  const double *logp = scalars_input_values (b, nll.in);
  const CrRecordArgument *ignore_index = cr_record_op_argument (b->op, "ignore_index");
  if (ignore_index && ignore_index->n_values == 1)
    nll.ignored = (gint64) ignore_index->values[0];
  else if (!matches_record (b, &nll, logp))
    for (gint64 r = 0; r < nll.rows; r++)
      {
        nll.ignored = (gint64) nll.target->values[r];
        if (nll.ignored >= 0 && nll.ignored < nll.classes && matches_record (b, &nll, logp))
          break;
        nll.ignored = -1;
      }
  guint base = scalars_input_nodes (b, nll.in);
  return nll.reduction == REDUCTION_NONE ? build_rows (b, &nll, base) : build_total (b, &nll, base);
}
