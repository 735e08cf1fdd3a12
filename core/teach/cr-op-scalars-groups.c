/* cr-op-scalars-groups.c — the ops whose every output element is one
 * formula of a group of input elements, taken apart (cr-op-scalars.h):
 * prod, norm and linalg.vector_norm (p = 0, 1, 2, ∞, −∞ or any other),
 * var and std (their correction), logsumexp over the recorded dims, the
 * trace (the sum of a matrix's diagonal), and
 * the cumulative ones, cumsum, cumprod, logcumsumexp, cummax and cummin,
 * whose group is the elements up to it along the recorded dim (cummax's
 * gradient goes to the one element its saved indices name); median,
 * kthvalue and mode over a dim (the element their indices name) and the
 * median of all elements (shared among the elements equal to it, as
 * PyTorch's evenly_distribute_backward does). Each edge carries the
 * whole derivative of the output element by that input element: var's
 * 2·(x − x̄)/(N − correction) already holds what the element changes in
 * the mean x̄ (those shares sum to zero), and prod's is the product of
 * the others, which is right with zeros among them too. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  GROUP_PROD, GROUP_NORM, GROUP_VAR, GROUP_STD, GROUP_LOGSUMEXP,
  GROUP_TRACE, GROUP_PICK, GROUP_MEDIAN,
  GROUP_CUMSUM, GROUP_CUMPROD, GROUP_LOGCUMSUMEXP, GROUP_CUMMAX, GROUP_CUMMIN,
} GroupOp;

typedef struct {
  const char *grad_fn;
  GroupOp     op;
  const char *operation;   /* the output node's operation */
} GroupName;

static const GroupName group_names[] = {
  { "ProdBackward0", GROUP_PROD, "Π" }, { "ProdBackward1", GROUP_PROD, "Π" },
  { "NormBackward0", GROUP_NORM, "norm" }, { "NormBackward1", GROUP_NORM, "norm" },
  { "LinalgVectorNormBackward0", GROUP_NORM, "norm" },
  { "VarBackward0", GROUP_VAR, "var" }, { "StdBackward0", GROUP_STD, "std" },
  { "LogsumexpBackward0", GROUP_LOGSUMEXP, "logsumexp" },
  { "TraceBackward0", GROUP_TRACE, "Σ" },
  { "CumsumBackward0", GROUP_CUMSUM, "Σ" }, { "CumprodBackward0", GROUP_CUMPROD, "Π" },
  { "LogcumsumexpBackward0", GROUP_LOGCUMSUMEXP, "logsumexp" },
  { "CummaxBackward0", GROUP_CUMMAX, "max" }, { "CumminBackward0", GROUP_CUMMIN, "min" },
  { "MedianBackward0", GROUP_MEDIAN, "median" }, { "MedianBackward1", GROUP_PICK, "median" },
  { "KthvalueBackward0", GROUP_PICK, "kthvalue" }, { "ModeBackward0", GROUP_PICK, "mode" },
};

gboolean
scalars_is_group_op (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (group_names); i++)
    if (strcmp (grad_fn, group_names[i].grad_fn) == 0)
      return TRUE;
  return FALSE;
}

/* One output element being made: its group and what the rule fills in. */
typedef struct {
  Build                *b;
  const CrRecordTensor *in;
  const double         *x;       /* the input's values */
  const gint64         *at;      /* the group: n elements, flat in `in` */
  guint                 n;
  const char           *Y;       /* the output element's label */
  double                p;       /* a norm's order */
  double                correction; /* var's and std's */
  gint64                taken;   /* cummax's, cummin's: the member its saved index names */
  double                value;   /* out: the output element */
  double               *local;   /* out: n local derivatives */
  char                **text;    /* out: n formulas (owned) */
  GString              *eq;      /* out: the equation's right side */
  GString              *num;     /* out: the same with the values */
} Group;

static char *
member (const Group *g,
        guint        i)
{
  return scalars_input_label (g->b->record, g->in, g->at[i]);
}

/* "a·b·c" of the group's labels but member `skip` (n: none), or the
 * count of them when they are many. */
static char *
product_text (const Group *g,
              guint        skip)
{
  guint others = skip < g->n ? g->n - 1 : g->n;
  if (others == 0)
    return g_strdup ("1");
  if (others > 4)
    return g_strdup_printf ("the product of the other %u", others);
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < g->n; j++)
    if (j != skip)
      {
        g_autofree char *X = member (g, j);
        g_string_append_printf (s, "%s%s", s->len ? "·" : "", X);
      }
  return g_string_free (s, FALSE);
}

/* Appends each member's term, joined by sep: before, the label, after to
 * eq; before, the value, after to num. */
static void
append_terms (Group      *g,
              const char *sep,
              const char *before,
              const char *after)
{
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      if (i)
        {
          g_string_append (g->eq, sep);
          g_string_append (g->num, sep);
        }
      g_string_append_printf (g->eq, "%s%s%s", before, X, after);
      g_string_append (g->num, before);
      scalars_append_number (g->num, g->x[g->at[i]]);
      g_string_append (g->num, after);
    }
}

static void
rule_prod (Group *g)
{
  g->value = 1;
  for (guint i = 0; i < g->n; i++)
    g->value *= g->x[g->at[i]];
  append_terms (g, "·", "", "");
  for (guint i = 0; i < g->n; i++)
    {
      /* The product of the others: a zero among them makes it 0, the
       * zero's own is theirs (PyTorch's prod_backward). */
      double others = 1;
      for (guint j = 0; j < g->n; j++)
        if (j != i)
          others *= g->x[g->at[j]];
      g->local[i] = others;
      g->text[i] = product_text (g, i);
    }
}

static double
sign_of (double v)
{
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

static void
rule_norm (Group *g)
{
  double p = g->p;
  if (isinf (p))
    {
      /* max |x| (min for −∞): its gradient shared among the ties, as amax's. */
      gboolean largest = p > 0;
      double best = NAN;
      for (guint i = 0; i < g->n; i++)
        {
          double a = fabs (g->x[g->at[i]]);
          if (i == 0 || (largest ? a > best : a < best))
            best = a;
        }
      guint ties = 0;
      for (guint i = 0; i < g->n; i++)
        ties += fabs (g->x[g->at[i]]) == best;
      g->value = best;
      g_string_append (g->eq, largest ? "max(" : "min(");
      g_string_append (g->num, largest ? "max(" : "min(");
      append_terms (g, ", ", "|", "|");
      g_string_append_c (g->eq, ')');
      g_string_append_c (g->num, ')');
      for (guint i = 0; i < g->n; i++)
        {
          g_autofree char *X = member (g, i);
          double v = g->x[g->at[i]];
          gboolean taken = fabs (v) == best;
          g->local[i] = taken ? sign_of (v) / ties : 0;
          g->text[i] = !taken ? g_strdup ("0")
                       : ties > 1 ? g_strdup_printf ("sign(%s)/%u (%u ties share it)", X, ties, ties)
                       : g_strdup_printf ("sign(%s) (the largest |x|)", X);
        }
      return;
    }
  if (p == 0)
    {
      g->value = 0;
      for (guint i = 0; i < g->n; i++)
        g->value += g->x[g->at[i]] != 0;
      append_terms (g, " + ", "(", " ≠ 0)");
      for (guint i = 0; i < g->n; i++)
        {
          g->local[i] = 0;
          g->text[i] = g_strdup ("0 (a count)");
        }
      return;
    }
  double sum = 0;
  for (guint i = 0; i < g->n; i++)
    sum += pow (fabs (g->x[g->at[i]]), p);
  g->value = p == 1 ? sum : p == 2 ? sqrt (sum) : pow (sum, 1 / p);
  if (p == 1)
    append_terms (g, " + ", "|", "|");
  else
    {
      g_string_append (g->eq, p == 2 ? "√(" : "(");
      g_string_append (g->num, p == 2 ? "√(" : "(");
      if (p == 2)
        append_terms (g, " + ", "", "²");
      else
        {
          g_autofree char *power = g_strdup_printf ("|^%g", p);
          append_terms (g, " + ", "|", power);
        }
      g_autofree char *root = p == 2 ? g_strdup (")") : g_strdup_printf (")^(1/%g)", p);
      g_string_append (g->eq, root);
      g_string_append (g->num, root);
    }
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      double v = g->x[g->at[i]];
      /* A zero norm sends nothing back (PyTorch masks its 0/0). */
      if (p == 1)
        {
          g->local[i] = sign_of (v);
          g->text[i] = g_strdup_printf ("sign(%s)", X);
        }
      else if (p == 2)
        {
          g->local[i] = g->value == 0 ? 0 : v / g->value;
          g->text[i] = g_strdup_printf ("%s/%s", X, g->Y);
        }
      else
        {
          g->local[i] = g->value == 0 ? 0
                        : sign_of (v) * pow (fabs (v), p - 1) / pow (g->value, p - 1);
          g->text[i] = g_strdup_printf ("sign(%s)·|%s|^%g/%s^%g", X, X, p - 1, g->Y, p - 1);
        }
    }
}

static void
rule_var (Group *g,
          gboolean std)
{
  double mean = 0, ss = 0;
  for (guint i = 0; i < g->n; i++)
    mean += g->x[g->at[i]];
  mean /= g->n;
  for (guint i = 0; i < g->n; i++)
    ss += (g->x[g->at[i]] - mean) * (g->x[g->at[i]] - mean);
  /* PyTorch divides the value by max(0, N − correction), which makes it
   * inf (or NaN) past N, and the gradient by N − correction itself. */
  double d = g->n - g->correction;
  double var = ss / MAX (d, 0);
  g->value = std ? sqrt (var) : var;
  g_string_append (g->eq, std ? "√((" : "(");
  g_string_append (g->num, std ? "√((" : "(");
  /* The numbers show x̄'s value where the equation has x̄. */
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      g_string_append_printf (g->eq, "%s(%s − x̄)²", i ? " + " : "", X);
      g_string_append (g->num, i ? " + (" : "(");
      scalars_append_number (g->num, g->x[g->at[i]]);
      g_string_append (g->num, " − ");
      scalars_append_number (g->num, mean);
      g_string_append (g->num, ")²");
    }
  g_autofree char *divisor = d > 0 ? g_strdup_printf (")/%g%s", d, std ? ")" : "")
                                    : g_strdup_printf (")/max(0, %g)%s", d, std ? ")" : "");
  g_string_append (g->eq, divisor);
  g_string_append (g->num, divisor);
  /* Where x̄ comes from, once. */
  g_string_append (g->eq, ",  x̄ = (");
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      g_string_append_printf (g->eq, "%s%s", i ? " + " : "", X);
    }
  g_string_append_printf (g->eq, ")/%u", g->n);
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      double dev = g->x[g->at[i]] - mean;
      g->local[i] = std ? dev / (d * g->value) : 2 * dev / d;
      g->text[i] = std ? g_strdup_printf ("(%s − x̄)/(%g·%s)", X, d, g->Y)
                       : g_strdup_printf ("2·(%s − x̄)/%g", X, d);
    }
}

static void
rule_logsumexp (Group *g)
{
  double top = -INFINITY, sum = 0;
  for (guint i = 0; i < g->n; i++)
    top = MAX (top, g->x[g->at[i]]);
  for (guint i = 0; i < g->n; i++)
    sum += exp (g->x[g->at[i]] - top);
  g->value = isinf (top) ? top : top + log (sum);
  g_string_append (g->eq, "log(");
  g_string_append (g->num, "log(");
  append_terms (g, " + ", "exp(", ")");
  g_string_append_c (g->eq, ')');
  g_string_append_c (g->num, ')');
  for (guint i = 0; i < g->n; i++)
    {
      g_autofree char *X = member (g, i);
      g->local[i] = exp (g->x[g->at[i]] - g->value);
      g->text[i] = g_strdup_printf ("exp(%s − %s)", X, g->Y);
    }
}

/* cummax, cummin: the member the op's saved index names, the others 0. */
static void
rule_taken (Group      *g,
            const char *name)
{
  g_string_append_printf (g->eq, "%s(", name);
  g_string_append_printf (g->num, "%s(", name);
  append_terms (g, ", ", "", "");
  g_string_append_c (g->eq, ')');
  g_string_append_c (g->num, ')');
  g->value = g->x[g->at[g->taken]];
  for (guint i = 0; i < g->n; i++)
    {
      g->local[i] = i == g->taken ? 1 : 0;
      g->text[i] = g_strdup (i == g->taken ? "1 (the index it took)" : "0");
    }
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* median(): the lower middle of the sorted elements, its gradient shared
 * among the elements equal to it; NaN where any is NaN, shared among the
 * NaNs (PyTorch's median and evenly_distribute_backward). */
static void
rule_median (Group *g)
{
  g_autofree double *sorted = g_new (double, g->n);
  gboolean any_nan = FALSE;
  for (guint i = 0; i < g->n; i++)
    {
      sorted[i] = g->x[g->at[i]];
      any_nan |= isnan (sorted[i]);
    }
  qsort (sorted, g->n, sizeof (double), compare_doubles);
  g->value = any_nan ? NAN : sorted[(g->n - 1) / 2];
  g_string_append (g->eq, "median(");
  g_string_append (g->num, "median(");
  append_terms (g, ", ", "", "");
  g_string_append_c (g->eq, ')');
  g_string_append_c (g->num, ')');
  guint ties = 0;
  for (guint i = 0; i < g->n; i++)
    ties += g->x[g->at[i]] == g->value || (any_nan && isnan (g->x[g->at[i]]));
  for (guint i = 0; i < g->n; i++)
    {
      gboolean taken = g->x[g->at[i]] == g->value || (any_nan && isnan (g->x[g->at[i]]));
      g->local[i] = taken ? 1.0 / ties : 0;
      g->text[i] = !taken ? g_strdup ("0")
                   : ties > 1 ? g_strdup_printf (any_nan ? "1/%u (%u NaNs share it)" : "1/%u (%u equal the median)",
                                                 ties, ties)
                   : g_strdup (any_nan ? "1 (the NaN)" : "1 (the median)");
    }
}

static void
rule_sum (Group *g)
{
  g->value = 0;
  for (guint i = 0; i < g->n; i++)
    g->value += g->x[g->at[i]];
  append_terms (g, " + ", "", "");
  for (guint i = 0; i < g->n; i++)
    {
      g->local[i] = 1;
      g->text[i] = g_strdup ("1");
    }
}

gboolean
scalars_build_group (Build *b)
{
  const GroupName *name = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (group_names); i++)
    if (strcmp (b->op->grad_fn, group_names[i].grad_fn) == 0)
      name = &group_names[i];
  const CrRecordTensor *in = scalars_input_at (b, 0);
  if (!name || !in)
    return scalars_fail (b, "is not one the scalar view takes apart");
  gboolean cumulative = name->op >= GROUP_CUMSUM;
  gint64 in_numel = scalars_numel_of (in), out_numel = scalars_numel_of (b->out);
  g_autofree gint64 *map = g_new (gint64, MAX (in_numel, 1));
  /* A cumulative op: element o's group is the line along dim up to o. */
  gint64 inner = 1, length = 1;
  if (cumulative)
    {
      const CrRecordArgument *dim = cr_record_op_argument (b->op, "dim");
      int d = dim && dim->n_values == 1 ? scalars_wrap_dim ((gint64) dim->values[0], in->ndim) : -1;
      if (d < 0 && in->ndim > 0)
        return scalars_fail (b, "runs along a dim the record does not keep");
      if (in_numel != out_numel)
        return scalars_fail (b, "has an output of another size than its input");
      for (int k = d + 1; d >= 0 && k < in->ndim; k++)
        inner *= in->shape[k];
      /* A 0-d input's dim 0 is its one element. */
      length = d >= 0 && in->ndim > 0 ? in->shape[d] : 1;
    }
  else if (name->op == GROUP_TRACE)
    {
      /* The diagonal of a matrix into one element; the rest reaches none. */
      if (in->ndim != 2 || out_numel != 1)
        return scalars_fail (b, "takes the trace of no matrix");
      for (gint64 e = 0; e < in_numel; e++)
        map[e] = e / in->shape[1] == e % in->shape[1] ? 0 : -1;
    }
  else
    {
      guint mask;
      /* The recorded dims; all of them where it keeps None or () (prod(), norm()). */
      if (!scalars_dims_mask (cr_record_op_argument (b->op, "dim"), in->ndim, &mask))
        return scalars_fail (b, "reduces over a dim out of range");
      if (in->ndim > 0 && !scalars_reduce_map (in, b->out, mask, map))
        return scalars_fail (b, "has an output whose shape is not its input's reduced");
      if (in->ndim == 0)
        map[0] = 0;
    }
  const CrRecordArgument *order = cr_record_op_argument (b->op, "p");
  if (!order)
    order = cr_record_op_argument (b->op, "ord");
  const CrRecordArgument *correction = cr_record_op_argument (b->op, "correction");
  if (name->op == GROUP_NORM && order && order->n_values != 1)
    return scalars_fail (b, "has an order p the record does not keep");

  /* cummax's and cummin's indices: the position along dim each took. */
  const CrTensorSnapshot *indices = NULL;
  for (guint s = 0; s < b->op->saved->len; s++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[s];
      if (g_strcmp0 (saved->name, "indices") == 0 && saved->value && saved->value->n_values == out_numel)
        indices = saved->value;
    }
  if ((name->op == GROUP_CUMMAX || name->op == GROUP_CUMMIN || name->op == GROUP_PICK) && !indices)
    return scalars_fail (b, "keeps no indices to tell which element each output took");

  const double *x = scalars_input_values (b, in);
  guint base = scalars_input_nodes (b, in);
  g_autofree gint64 *at = g_new (gint64, MAX (in_numel, 1));
  g_autofree double *local = g_new (double, MAX (in_numel, 1));
  g_autofree char **text = g_new0 (char *, MAX (in_numel, 1));
  for (gint64 o = 0; o < out_numel; o++)
    {
      b->sub_step = (guint) o;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      Group g = {
        .b = b, .in = in, .x = x, .at = at, .Y = Y,
        .p = order && order->n_values == 1 ? order->values[0] : 2,
        .correction = correction && correction->n_values == 1 ? correction->values[0] : 1,
        .local = local, .text = text,
        .eq = g_string_new (NULL), .num = g_string_new (NULL),
      };
      if (cumulative)
        {
          gint64 position = (o / inner) % length, first = o - position * inner;
          for (gint64 k = 0; k <= position; k++)
            at[g.n++] = first + k * inner;
        }
      else
        for (gint64 e = 0; e < in_numel; e++)
          if (map[e] == o)
            at[g.n++] = e;
      g.taken = indices ? (gint64) indices->values[o] : -1;
      if (g.n == 0 || (indices && (g.taken < 0 || g.taken >= g.n)))
        {
          g_string_free (g.eq, TRUE);
          g_string_free (g.num, TRUE);
          return scalars_fail (b, "has an output element no input element reaches");
        }
      switch (name->op)
        {
        case GROUP_PROD: case GROUP_CUMPROD: rule_prod (&g); break;
        case GROUP_NORM: rule_norm (&g); break;
        case GROUP_VAR: rule_var (&g, FALSE); break;
        case GROUP_STD: rule_var (&g, TRUE); break;
        case GROUP_LOGSUMEXP: case GROUP_LOGCUMSUMEXP: rule_logsumexp (&g); break;
        case GROUP_CUMSUM: case GROUP_TRACE: rule_sum (&g); break;
        case GROUP_CUMMAX: rule_taken (&g, "max"); break;
        case GROUP_CUMMIN: rule_taken (&g, "min"); break;
        case GROUP_PICK: rule_taken (&g, name->operation); break;
        case GROUP_MEDIAN: rule_median (&g); break;
        }
      g_autofree char *equation = g_strdup_printf ("%s = %s", Y, g.eq->str);
      g_string_free (g.eq, TRUE);
      guint out = scalars_add_output (b, o, name->operation, g_steal_pointer (&equation),
                                      g_string_free (g.num, FALSE), g.value);
      for (guint i = 0; i < g.n; i++)
        scalars_add_edge (b, base + (guint) at[i], out, local[i], g_steal_pointer (&text[i]));
    }
  return b->error == NULL;
}
