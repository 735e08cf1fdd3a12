/* cr-record-forward-special.c — the forward ops whose meaning lies in
 * their arguments, told with them: a pool's kernel, stride and padding,
 * the dims of a reduction, a norm's shape and eps, an activation's
 * parameters, a pad's sizes, roll's shifts, upsampling's mode and size, a
 * loss's reduction; and by family, a custom Function's forward() and the
 * backward ops of create_graph=True. The plain table is
 * cr-record-forward-words.c's. */
#include "cr-record-forward-private.h"

#include "cr-record-names.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

/* ---- arguments ---------------------------------------------------------------- */

static gboolean
has_value (const CrRecordArgument *a)
{
  return a && a->n_values > 0 && a->kind != CR_RECORD_ARGUMENT_NONE;
}

/* Argument name's first value, or fallback. */
static double
number_of (const CrRecordOp *op,
           const char       *name,
           double            fallback)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  return has_value (a) ? a->values[0] : fallback;
}

/* " along dim 1", " along dims 0 and 2"; "" when argument name is absent
 * or empty (all dims) (new string). */
static char *
along_dims (const CrRecordOp *op,
            const char       *name)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  if (!has_value (a))
    return g_strdup ("");
  GString *s = g_string_new (a->n_values == 1 ? " along dim " : " along dims ");
  for (int i = 0; i < a->n_values; i++)
    g_string_append_printf (s, "%s%g", i == 0 ? "" : i + 1 == a->n_values ? " and " : ", ", a->values[i]);
  return g_string_free (s, FALSE);
}

/* "2×2", "(1, 2)" of an int tuple argument: its values joined by sep
 * (new string; NULL when absent). */
static char *
tuple_of (const CrRecordOp *op,
          const char       *name,
          const char       *sep)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  if (!has_value (a))
    return NULL;
  GString *s = g_string_new (NULL);
  for (int i = 0; i < a->n_values; i++)
    g_string_append_printf (s, "%s%g", i ? sep : "", a->values[i]);
  return g_string_free (s, FALSE);
}

static const char *
label_at (const GPtrArray *labels,
          guint            i,
          const char      *fallback)
{
  return i < labels->len ? (const char *) labels->pdata[i] : fallback;
}

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           const GArray      *ids,
           guint              i)
{
  int id = ids && i < ids->len ? g_array_index (ids, int, i) : -1;
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

/* The op's first output's shape, "3×4" (new string; NULL: not known). */
static char *
out_shape (const CrRunRecord *record,
           const CrRecordOp  *op,
           int                from_dim)
{
  const CrRecordTensor *t = tensor_at (record, op->outputs, 0);
  if (!t || t->ndim <= from_dim)
    return NULL;
  return cr_record_shape_text (t->shape + from_dim, t->ndim - from_dim);
}

/* ", averaged" / ", added up" / ", one a row": what a loss's reduction
 * (0 none, 1 mean, 2 sum) does with the losses. */
static const char *
reduced (const CrRecordOp *op)
{
  int how = (int) number_of (op, "reduction", 1);
  return how == 0 ? ", one loss an element" : how == 2 ? ", added up" : ", averaged";
}

/* ---- the sentences that need arguments ---------------------------------------- */

typedef struct {
  const CrRunRecord *record;
  const CrRecordOp  *op;
  const GPtrArray   *labels;
  const char        *x;          /* the first input's name */
  const char        *y;          /* the second's */
} Ctx;

static char *
say_leaky_relu (const Ctx *c)
{
  g_autofree char *slope = cr_forward_number_string (number_of (c->op, "negative_slope", 0.01));
  return g_strdup_printf ("keeps what is positive in %s and multiplies the rest by the negative slope %s",
                          c->x, slope);
}

static char *
say_elu (const Ctx *c)
{
  g_autofree char *alpha = cr_forward_number_string (number_of (c->op, "alpha", 1));
  double scale = number_of (c->op, "scale", 1);
  if (scale != 1)
    {
      g_autofree char *s = cr_forward_number_string (scale);
      return g_strdup_printf ("applies SELU to %s: %s·x where x > 0, else %s·%s·(e^x − 1)",
                              c->x, s, s, alpha);
    }
  return g_strdup_printf ("keeps what is positive in %s and bends the rest to α·(e^x − 1), α = %s "
                          "(ELU)", c->x, alpha);
}

static char *
say_celu (const Ctx *c)
{
  g_autofree char *alpha = cr_forward_number_string (number_of (c->op, "alpha", 1));
  return g_strdup_printf ("keeps what is positive in %s and bends the rest to α·(e^(x/α) − 1), α = %s "
                          "(CELU)", c->x, alpha);
}

static char *
say_softplus (const Ctx *c)
{
  g_autofree char *beta = cr_forward_number_string (number_of (c->op, "beta", 1));
  g_autofree char *limit = cr_forward_number_string (number_of (c->op, "threshold", 20));
  return g_strdup_printf ("smooths relu over %s: log(1 + e^(βx)) / β with β = %s, and x itself where "
                          "βx > %s", c->x, beta, limit);
}

static char *
say_hardtanh (const Ctx *c)
{
  g_autofree char *low = cr_forward_number_string (number_of (c->op, "min_val", -1));
  g_autofree char *high = cr_forward_number_string (number_of (c->op, "max_val", 1));
  return g_strdup_printf ("clamps %s into [%s, %s] (hardtanh)", c->x, low, high);
}

static char *
say_threshold (const Ctx *c)
{
  g_autofree char *limit = cr_forward_number_string (number_of (c->op, "threshold", 0));
  g_autofree char *value = cr_forward_number_string (number_of (c->op, "value", 0));
  return g_strdup_printf ("keeps %s where it is above %s and puts %s elsewhere", c->x, limit, value);
}

static char *
say_shrink (const Ctx *c)
{
  g_autofree char *lambd = cr_forward_number_string (number_of (c->op, "lambd", 0.5));
  if (g_str_has_prefix (c->op->grad_fn, "Hard"))
    return g_strdup_printf ("keeps %s where |x| > %s and sets the rest to 0 (hardshrink)", c->x, lambd);
  return g_strdup_printf ("moves %s toward 0 by %s, and sets what is within %s of 0 to 0 (softshrink)",
                          c->x, lambd, lambd);
}

static char *
say_gelu (const Ctx *c)
{
  const CrRecordArgument *approximate = cr_record_op_argument (c->op, "approximate");
  if (has_value (approximate) && approximate->values[0] != 0)
    return g_strdup_printf ("weights %s by the chance that a standard normal is below it, x·Φ(x), "
                            "with approximate='tanh': ½x·(1 + tanh(√(2/π)·(x + 0.044715x³)))", c->x);
  return g_strdup_printf ("weights %s by the chance that a standard normal is below it: x·Φ(x) "
                          "(GELU, exact)", c->x);
}

static char *
say_clamp (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  const CrRecordArgument *lo = cr_record_op_argument (c->op, "min");
  const CrRecordArgument *hi = cr_record_op_argument (c->op, "max");
  g_autofree char *low = has_value (lo) ? cr_forward_number_string (lo->values[0]) : NULL;
  g_autofree char *high = has_value (hi) ? cr_forward_number_string (hi->values[0]) : NULL;
  gboolean tensor_bounds = c->op->inputs && c->op->inputs->len > 1;
  if (tensor_bounds)
    return g_strdup_printf ("clamps %s between the bounds %s, element by element", c->x,
                            label_at (c->labels, 1, "a tensor"));
  if (g_str_has_prefix (g, "ClampMin") || (low && !high))
    return low ? g_strdup_printf ("raises what is below %s in %s to %s", low, c->x, low)
               : g_strdup_printf ("raises what is below a bound in %s to it", c->x);
  if (g_str_has_prefix (g, "ClampMax") || (high && !low))
    return high ? g_strdup_printf ("lowers what is above %s in %s to %s", high, c->x, high)
                : g_strdup_printf ("lowers what is above a bound in %s to it", c->x);
  if (low && high)
    return g_strdup_printf ("clamps %s into [%s, %s]", c->x, low, high);
  return g_strdup_printf ("clamps %s into a range", c->x);
}

/* ---- reductions ---- */

static char *
say_var_std (const Ctx *c)
{
  gboolean std = g_str_has_prefix (c->op->grad_fn, "Std");
  g_autofree char *along = along_dims (c->op, "dim");
  double correction = number_of (c->op, "correction", 1);
  g_autofree char *divisor = correction == 0 ? g_strdup ("N")
                             : g_strdup_printf ("N − %g", correction);
  return g_strdup_printf ("takes the %s of %s%s: %s, dividing by %s%s",
                          std ? "standard deviation" : "variance", c->x,
                          *along ? along : " (all its elements)",
                          std ? "the square root of the mean squared distance from the mean"
                              : "the mean squared distance from the mean",
                          divisor, correction == 1 ? " (Bessel's correction)" : "");
}

static char *
say_reduce (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  g_autofree char *along = along_dims (c->op, "dim");
  const char *all = *along ? along : "";
  if (g_str_has_prefix (g, "SumBackward"))
    return g_strdup_printf ("adds up %s%s", c->x, *along ? along : " along a dim");
  if (g_str_has_prefix (g, "MeanBackward"))
    return g_strdup_printf ("averages %s%s", c->x, *along ? along : " along a dim");
  if (g_str_has_prefix (g, "Logsumexp"))
    return g_strdup_printf ("computes log Σ e^x of %s%s: a smooth maximum", c->x, all);
  if (g_str_has_prefix (g, "Prod"))
    return *along ? g_strdup_printf ("multiplies together the elements of %s%s", c->x, along)
                  : g_strdup_printf ("multiplies together all the elements of %s", c->x);
  if (g_str_has_prefix (g, "Amax") || g_str_has_prefix (g, "Amin"))
    return g_strdup_printf ("takes the %s element of %s%s (ties share the gradient)",
                            g[1] == 'm' && g[2] == 'a' ? "largest" : "smallest", c->x, all);
  if (g_str_has_prefix (g, "MaxBackward") || g_str_has_prefix (g, "MinBackward"))
    return g_strdup_printf ("takes the %s element of %s%s", g[1] == 'a' ? "largest" : "smallest", c->x,
                            *along ? along : "");
  /* norm(p) and linalg.vector_norm(ord). */
  double p = number_of (c->op, g_str_has_prefix (g, "Norm") ? "p" : "ord", 2);
  if (p == 2)
    return g_strdup_printf ("takes the length of %s%s: √(Σ x²), the 2-norm", c->x, all);
  if (p == 1)
    return g_strdup_printf ("adds up the sizes of %s%s: Σ |x|, the 1-norm", c->x, all);
  if (isinf (p))
    return g_strdup_printf ("takes the largest size in %s%s: max |x|, the %s-norm", c->x, all,
                            p > 0 ? "inf" : "-inf");
  g_autofree char *ps = cr_forward_number_string (p);
  return g_strdup_printf ("takes the %s-norm of %s%s: (Σ |x|^%s)^(1/%s)", ps, c->x, all, ps, ps);
}

static char *
say_running (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  int dim = (int) number_of (c->op, "dim", 0);
  if (g_str_has_prefix (g, "Cumsum"))
    return g_strdup_printf ("adds up %s along dim %d as it goes: each element is the sum of those up to it",
                            c->x, dim);
  if (g_str_has_prefix (g, "Cumprod"))
    return g_strdup_printf ("multiplies %s along dim %d as it goes: each element is the product of those "
                            "up to it", c->x, dim);
  if (g_str_has_prefix (g, "Logcumsumexp"))
    return g_strdup_printf ("computes log Σ e^x of %s along dim %d as it goes, up to each element", c->x, dim);
  return g_strdup_printf ("keeps the running %s of %s along dim %d: each element is the %s of those up to "
                          "it", g[3] == 'm' && g[4] == 'a' ? "maximum" : "minimum", c->x, dim,
                          g[3] == 'm' && g[4] == 'a' ? "largest" : "smallest");
}

/* ---- shapes ---- */

static char *
say_repeat (const Ctx *c)
{
  const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
  const CrRecordTensor *out = tensor_at (c->record, c->op->outputs, 0);
  if (!in || !out || out->ndim < in->ndim)
    return g_strdup_printf ("repeats %s along its dims, tiling it", c->x);
  GString *times = g_string_new (NULL);
  for (int d = 0; d < out->ndim; d++)
    {
      int from = d - (out->ndim - in->ndim);
      gint64 size = from >= 0 ? in->shape[from] : 1;
      g_string_append_printf (times, "%s%" G_GINT64_FORMAT, d ? ", " : "", size ? out->shape[d] / size : 0);
    }
  char *s = g_strdup_printf ("tiles %s, repeating it (%s) times along its dims", c->x, times->str);
  g_string_free (times, TRUE);
  return s;
}

static char *
say_roll (const Ctx *c)
{
  const CrRecordArgument *shifts = cr_record_op_argument (c->op, "shifts");
  if (!has_value (shifts))
    return g_strdup_printf ("rolls the elements of %s along a dim: those pushed off one end come back "
                            "at the other", c->x);
  /* Without dims the elements shift in reading order, as if flat (one
   * shift); a vector's one shift reads the same either way. */
  const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
  if (shifts->n_values == 1 && in && in->ndim > 1)
    return g_strdup_printf ("shifts the elements of %s by %g place%s in reading order, as if it were flat; "
                            "those pushed off the end come back at the start", c->x, shifts->values[0],
                            shifts->values[0] == 1 ? "" : "s");
  GString *s = g_string_new ("shifts the elements of ");
  g_string_append (s, c->x);
  gboolean first = TRUE;
  for (int d = 0; d < shifts->n_values; d++)
    if (shifts->values[d] != 0)
      {
        g_string_append_printf (s, "%s%g place%s along dim %d", first ? " by " : " and ", shifts->values[d],
                                fabs (shifts->values[d]) == 1 ? "" : "s", d);
        first = FALSE;
      }
  g_string_append (s, first ? " by nothing" : "; those pushed off one end come back at the other");
  return g_string_free (s, FALSE);
}

static char *
say_flip (const Ctx *c)
{
  g_autofree char *along = along_dims (c->op, "dims");
  return g_strdup_printf ("reverses the order of %s%s", c->x, along);
}

/* tril/triu: the triangle kept, and its diagonal when it is not the main one. */
static char *
say_triangle (const Ctx *c)
{
  gboolean lower = g_str_has_prefix (c->op->grad_fn, "Tril");
  double k = number_of (c->op, "diagonal", 0);
  g_autofree char *which = k == 0 ? g_strdup ("the diagonal")
                           : g_strdup_printf ("the diagonal %g %s the main one", fabs (k),
                                              k > 0 ? "above" : "below");
  return g_strdup_printf ("keeps the %s triangle of %s (on and %s %s) and sets the rest to 0",
                          lower ? "lower" : "upper", c->x, lower ? "below" : "above", which);
}

static char *
say_diag (const Ctx *c)
{
  const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
  if (in && in->ndim == 1)
    return g_strdup_printf ("puts %s on the diagonal of a square matrix of zeros", c->x);
  return g_strdup_printf ("takes the diagonal of %s: the elements [i, i]", c->x);
}

static char *
say_shape_op (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  if (g_str_has_prefix (g, "Transpose"))
    {
      const CrRecordArgument *d0 = cr_record_op_argument (c->op, "dim0");
      const CrRecordArgument *d1 = cr_record_op_argument (c->op, "dim1");
      if (has_value (d0) && has_value (d1))
        return g_strdup_printf ("swaps dims %g and %g of %s", d0->values[0], d1->values[0], c->x);
      return g_strdup_printf ("swaps two dims of %s", c->x);
    }
  if (g_str_has_prefix (g, "Permute"))
    {
      g_autofree char *order = tuple_of (c->op, "dims", ", ");
      return order ? g_strdup_printf ("reorders the dims of %s as (%s)", c->x, order)
                   : g_strdup_printf ("reorders the dims of %s", c->x);
    }
  if (g_str_has_prefix (g, "Unsqueeze"))
    {
      const CrRecordArgument *dim = cr_record_op_argument (c->op, "dim");
      return has_value (dim) ? g_strdup_printf ("adds a dim of size 1 to %s at dim %g", c->x, dim->values[0])
                             : g_strdup_printf ("adds a dim of size 1 to %s", c->x);
    }
  if (g_str_has_prefix (g, "Select"))
    {
      const CrRecordArgument *dim = cr_record_op_argument (c->op, "dim");
      const CrRecordArgument *index = cr_record_op_argument (c->op, "index");
      if (has_value (dim) && has_value (index))
        return g_strdup_printf ("takes slice %g of %s along dim %g", index->values[0], c->x, dim->values[0]);
      return g_strdup_printf ("takes one slice of %s", c->x);
    }
  if (g_str_has_prefix (g, "Slice"))
    {
      const CrRecordArgument *dim = cr_record_op_argument (c->op, "dim");
      if (!has_value (dim))
        return g_strdup_printf ("takes a range of %s", c->x);
      /* start and end are clamped to the dim: end is one past the last. */
      double start = number_of (c->op, "start", 0), end = number_of (c->op, "end", 0);
      double step = MAX (number_of (c->op, "step", 1), 1);
      const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
      int d = (int) dim->values[0];
      double count = end > start ? ceil ((end - start) / step) : 0;
      if (in && d >= 0 && d < in->ndim && start == 0 && step == 1 && end >= (double) in->shape[d])
        return g_strdup_printf ("takes all of %s along dim %d", c->x, d);
      if (count == 1)
        return g_strdup_printf ("takes position %g of %s along dim %d, keeping the dim", start, c->x, d);
      if (step == 1)
        return g_strdup_printf ("takes positions %g to %g of %s along dim %d", start, end - 1, c->x, d);
      return g_strdup_printf ("takes every %g%s position of %s along dim %d, from %g to %g", step,
                              step == 2 ? "nd" : step == 3 ? "rd" : "th", c->x, d, start,
                              start + (count - 1) * step);
    }
  if (g_str_has_prefix (g, "Cat") || g_str_has_prefix (g, "Stack"))
    {
      const CrRecordArgument *dim = cr_record_op_argument (c->op, "dim");
      gboolean stack = g[0] == 'S';
      GString *s = g_string_new (stack ? "stacks " : "joins ");
      g_autoptr (GPtrArray) present = cr_forward_present_labels (c->op, c->labels);
      for (guint i = 0; i < present->len; i++)
        g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == present->len ? " and " : ", ",
                                (const char *) present->pdata[i]);
      if (present->len == 0)
        g_string_append (s, "its inputs");
      if (has_value (dim))
        g_string_append_printf (s, stack ? " along a new dim %g" : " along dim %g", dim->values[0]);
      else
        g_string_append (s, stack ? " along a new dim" : " along a dim");
      return g_string_free (s, FALSE);
    }
  return NULL;
}

static char *
say_pad (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  gboolean constant = g_str_has_prefix (g, "ConstantPad");
  g_autofree char *pads = tuple_of (c->op, constant ? "pad" : "padding", ", ");
  const char *how = constant ? "" : g_str_has_prefix (g, "Reflection")
                    ? " by mirroring it at its edges (reflect)"
                    : " by repeating its edge values (replicate)";
  g_autofree char *number = cr_forward_number_text (c->op);
  g_autofree char *with = constant ? g_strdup_printf (" with %s", number ? number : "a constant") : g_strdup ("");
  if (!pads)
    return g_strdup_printf ("pads %s%s%s", c->x, with, how);
  return g_strdup_printf ("pads %s%s%s: (%s) is how much goes before and after each of its last dims, "
                          "the last dim first", c->x, with, how, pads);
}

static char *
say_to_copy (const Ctx *c)
{
  const CrRecordTensor *out = tensor_at (c->record, c->op->outputs, 0);
  const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
  const char *to = out && out->dtype ? out->dtype : NULL;
  if (to && in && in->dtype && strcmp (to, in->dtype) != 0)
    return g_strdup_printf ("copies %s as %s (from %s)", c->x, to, in->dtype);
  if (out && in && g_strcmp0 (out->device, in->device) != 0 && out->device)
    return g_strdup_printf ("copies %s to the device %s", c->x, out->device);
  return g_strdup_printf ("copies %s (a dtype or device change)", c->x);
}

/* ---- taking elements ---- */

static char *
say_take (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  int dim = (int) number_of (c->op, "dim", 0);
  if (g_str_has_prefix (g, "Gather"))
    return g_strdup_printf ("picks elements of %s along dim %d by an index tensor: each output element "
                            "is %s at the index's position in that dim", c->x, dim, c->x);
  if (g_str_has_prefix (g, "IndexSelect"))
    return g_strdup_printf ("picks whole slices of %s along dim %d, in the order an index gives", c->x, dim);
  if (g_str_has_prefix (g, "IndexAdd"))
    return g_strdup_printf ("copies %s and adds %s's slices into the slices an index picks", c->x, c->y);
  if (g_str_has_prefix (g, "IndexCopy"))
    return g_strdup_printf ("copies %s with the slices an index picks replaced by %s's", c->x, c->y);
  if (g_str_has_prefix (g, "ScatterAdd"))
    return g_strdup_printf ("copies %s and adds each element of %s into the place an index gives", c->x, c->y);
  if (g_str_has_prefix (g, "Scatter"))
    {
      g_autofree char *number = cr_forward_number_text (c->op);
      if (c->op->inputs && c->op->inputs->len > 1 && g_array_index (c->op->inputs, int, 1) >= 0)
        return g_strdup_printf ("copies %s and writes each element of %s into the place an index gives",
                                c->x, c->y);
      return g_strdup_printf ("copies %s and writes %s into the places an index gives", c->x,
                              number ? number : "a number");
    }
  if (g_str_has_prefix (g, "Sort"))
    return g_strdup_printf ("sorts %s along dim %d (the indices say where each came from)", c->x, dim);
  const CrRecordTensor *out = tensor_at (c->record, c->op->outputs, 0);
  if (out && dim >= 0 && dim < out->ndim)
    return g_strdup_printf ("keeps the %" G_GINT64_FORMAT " largest elements of %s along dim %d", out->shape[dim],
                            c->x, dim);
  return g_strdup_printf ("keeps the k largest elements of %s along a dim", c->x);
}

static char *
say_where (const Ctx *c)
{
  g_autofree char *number = cr_forward_number_text (c->op);
  const char *other = c->op->inputs && c->op->inputs->len > 1 && g_array_index (c->op->inputs, int, 1) < 0
                      ? (number ? number : "a number") : c->y;
  return g_strdup_printf ("takes %s where the condition is True and %s where it is False", c->x, other);
}

/* ---- layers ---- */

static char *
say_norm_layer (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  g_autofree char *eps = cr_forward_number_string (number_of (c->op, "eps", 1e-5));
  gboolean affine = c->op->inputs && c->op->inputs->len > 2 && g_array_index (c->op->inputs, int, 1) >= 0;
  g_autofree char *then = affine ? g_strdup_printf (", then scales by %s and adds %s",
                                                    label_at (c->labels, 1, "the weight"),
                                                    label_at (c->labels, 2, "the bias"))
                                 : g_strdup ("");
  if (g_str_has_prefix (g, "NativeBatchNorm"))
    {
      const CrRecordArgument *training = cr_record_op_argument (c->op, "training");
      if (has_value (training) && training->values[0] == 0)
        return g_strdup_printf ("normalizes each channel of %s with the running mean and variance: "
                                "(x − mean) / √(var + %s)%s (eval mode)", c->x, eps, then);
      return g_strdup_printf ("normalizes each channel of %s over the batch: (x − mean) / √(var + %s), "
                              "with the batch's own mean and variance%s", c->x, eps, then);
    }
  if (g_str_has_prefix (g, "NativeLayerNorm"))
    {
      g_autofree char *shape = tuple_of (c->op, "normalized_shape", "×");
      return g_strdup_printf ("normalizes %s over its last %s%s: (x − mean) / √(var + %s) for each one%s",
                              c->x, shape ? "dims, of shape " : "dims", shape ? shape : "", eps, then);
    }
  double groups = number_of (c->op, "group", 1);
  return g_strdup_printf ("normalizes %s in %g groups of channels: (x − mean) / √(var + %s) within each "
                          "group of each sample%s", c->x, groups, eps, then);
}

static char *
say_pool (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  gboolean max = g_str_has_prefix (g, "MaxPool") || g_str_has_prefix (g, "AdaptiveMax");
  if (g_str_has_prefix (g, "Adaptive"))
    {
      g_autofree char *shape = out_shape (c->record, c->op, 2);
      return g_strdup_printf ("%s windows of %s, sized to give %s values per channel",
                              max ? "takes the largest value in" : "averages", c->x, shape ? shape : "its");
    }
  g_autofree char *kernel = tuple_of (c->op, "kernel_size", "×");
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s each %s window of %s", max ? "takes the largest value in" : "averages",
                          kernel ? kernel : "kernel", c->x);
  g_autofree char *stride = tuple_of (c->op, "stride", ", ");
  g_autofree char *padding = tuple_of (c->op, "padding", ", ");
  g_autofree char *dilation = tuple_of (c->op, "dilation", ", ");
  if (stride)
    g_string_append_printf (s, ", stride (%s)", stride);
  if (padding && strspn (padding, "0, ") != strlen (padding))
    g_string_append_printf (s, ", padding (%s)", padding);
  if (dilation && strspn (dilation, "1, ") != strlen (dilation))
    g_string_append_printf (s, ", dilation (%s)", dilation);
  if (!max && padding && strspn (padding, "0, ") != strlen (padding))
    g_string_append (s, number_of (c->op, "count_include_pad", 1) != 0 ? ", the padding's zeros counted"
                                                                       : ", the padding not counted");
  double divisor = number_of (c->op, "divisor_override", 0);
  if (!max && divisor > 0)
    g_string_append_printf (s, ", dividing by %g", divisor);
  return g_string_free (s, FALSE);
}

static char *
say_upsample (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  const char *mode = strstr (g, "NearestExact") ? "nearest-exact: each output takes the input element "
                                                  "nearest its centre"
                     : strstr (g, "Nearest") ? "nearest: each output takes the input element its "
                                               "position falls in"
                     : strstr (g, "Trilinear") ? "trilinear: each output mixes the 8 nearest inputs"
                     : strstr (g, "Bilinear") ? "bilinear: each output mixes the 4 nearest inputs"
                     : "linear: each output mixes the 2 nearest inputs";
  g_autofree char *shape = out_shape (c->record, c->op, 2);
  const CrRecordArgument *corners = cr_record_op_argument (c->op, "align_corners");
  return g_strdup_printf ("resizes %s to %s by %s%s", c->x, shape ? shape : "a new size", mode,
                          has_value (corners) && corners->values[0] != 0 ? " (corners aligned)" : "");
}

static char *
say_loss (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  if (g_str_has_prefix (g, "Huber"))
    {
      g_autofree char *delta = cr_forward_number_string (number_of (c->op, "delta", 1));
      return g_strdup_printf ("the Huber loss of %s against %s: ½(x − y)² where |x − y| < %s, else "
                              "%s·(|x − y| − ½·%s)%s", c->x, c->y, delta, delta, delta, reduced (c->op));
    }
  if (g_str_has_prefix (g, "SmoothL1"))
    {
      g_autofree char *beta = cr_forward_number_string (number_of (c->op, "beta", 1));
      return g_strdup_printf ("the smooth L1 loss of %s against %s: ½(x − y)²/%s where |x − y| < %s, else "
                              "|x − y| − ½·%s%s", c->x, c->y, beta, beta, beta, reduced (c->op));
    }
  /* MseLoss */
  int how = (int) number_of (c->op, "reduction", 1);
  return g_strdup_printf ("%s the squared differences of %s and %s%s", how == 0 ? "takes" : how == 2 ? "adds up"
                          : "averages", c->x, c->y, how == 0 ? ", one an element" : "");
}

static char *
say_cdist (const Ctx *c)
{
  double p = number_of (c->op, "p", 2);
  if (p == 2)
    return g_strdup_printf ("measures the distance between each row of %s and each row of %s: "
                            "√(Σ (a − b)²)", c->x, c->y);
  g_autofree char *ps = cr_forward_number_string (p);
  return g_strdup_printf ("measures the distance between each row of %s and each row of %s: "
                          "the %s-norm of their difference", c->x, c->y, ps);
}

static char *
say_products (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  double beta = number_of (c->op, "beta", 1), alpha = number_of (c->op, "alpha", 1);
  g_autofree char *b = beta != 1 ? g_strdup_printf ("%g·", beta) : g_strdup ("");
  g_autofree char *a = alpha != 1 ? g_strdup_printf ("%g·", alpha) : g_strdup ("");
  const char *z = label_at (c->labels, 2, "…");
  if (g_str_has_prefix (g, "Addmv"))
    return g_strdup_printf ("computes %s%s + %s(%s @ %s): the matrix %s times the vector %s, added to %s",
                            b, c->x, a, c->y, z, c->y, z, c->x);
  if (g_str_has_prefix (g, "Addr"))
    return g_strdup_printf ("computes %s%s + %s(outer product of %s and %s): each element [i, j] adds "
                            "%s[i]·%s[j]", b, c->x, a, c->y, z, c->y, z);
  if (g_str_has_prefix (g, "Baddbmm"))
    return g_strdup_printf ("computes %s%s + %s(%s @ %s), batch by batch", b, c->x, a, c->y, z);
  if (g_str_has_prefix (g, "Addbmm"))
    return g_strdup_printf ("computes %s%s + %s(the sum over the batch of %s @ %s)", b, c->x, a, c->y, z);
  /* addcmul, addcdiv: the value they scale by, when kept. */
  g_autofree char *value = NULL;
  for (guint i = 0; c->op->saved && i < c->op->saved->len; i++)
    {
      const CrRecordSaved *saved = c->op->saved->pdata[i];
      if (g_strcmp0 (saved->name, "value") == 0 && saved->value && saved->value->n_values == 1)
        value = cr_forward_number_string (saved->value->values[0]);
    }
  const CrRecordArgument *v = cr_record_op_argument (c->op, "value");
  if (!value && has_value (v))
    value = cr_forward_number_string (v->values[0]);
  g_autofree char *scaled = value && strcmp (value, "1") != 0 ? g_strdup_printf ("%s·", value) : g_strdup ("");
  return g_strdup_printf ("adds %s%s %s %s to %s, element by element", scaled, c->y,
                          g_str_has_prefix (g, "Addcdiv") ? "/" : "×", z, c->x);
}

static char *
say_cross (const Ctx *c)
{
  return g_strdup_printf ("takes the cross product of %s and %s along dim %g: a vector at right angles "
                          "to both", c->x, c->y, number_of (c->op, "dim", 0));
}

static char *
say_nll (const Ctx *c)
{
  const CrRecordArgument *reduction = cr_record_op_argument (c->op, "reduction");
  int how = has_value (reduction) ? (int) reduction->values[0] : 1;
  g_autofree char *weight = NULL;
  for (guint k = 0; c->op->saved && k < c->op->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (c->op->saved, k);
      if (g_strcmp0 (saved->name, "weight") == 0)
        weight = cr_forward_tensor_name (c->record, saved->tensor, "w");
    }
  /* NllLoss2D: a class per pixel rather than per row. */
  const char *each = strstr (c->op->grad_fn, "2D") ? "pixel" : "row";
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "picks each %s's log-probability at its target", each);
  if (!weight)
    g_string_append (s, how == 0 ? " and negates it: one loss each"
                        : how == 2 ? ", negates and adds them up"
                        : ", negates and averages them");
  else if (how == 0)
    g_string_append_printf (s, " and negates it, times its class's weight: %s[t]·(−%s[t]) each, "
                            "t its target", weight, c->x);
  else if (how == 2)
    g_string_append_printf (s, ", negates them and adds them up weighted by class: Σ %s[t]·(−%s[t]), "
                            "t each %s's target", weight, c->x, each);
  else
    g_string_append_printf (s, ", negates them and takes their mean weighted by class: "
                            "Σ %s[t]·(−%s[t]) / Σ %s[t], t each %s's target", weight, c->x, weight, each);
  return g_string_free (s, FALSE);
}

/* ", stride 2", ", padding (1, 0)": an int tuple argument when it is not
 * all `usual`. */
static void
append_geometry (GString          *s,
                 const CrRecordOp *op,
                 const char       *name,
                 double            usual)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  if (!a || a->n_values == 0)
    return;
  gboolean all_same = TRUE, usual_only = TRUE;
  for (int i = 0; i < a->n_values; i++)
    {
      all_same = all_same && a->values[i] == a->values[0];
      usual_only = usual_only && a->values[i] == usual;
    }
  if (usual_only)
    return;
  g_string_append_printf (s, ", %s ", name);
  if (all_same)
    g_string_append_printf (s, "%g", a->values[0]);
  else
    for (int i = 0; i < a->n_values; i++)
      g_string_append_printf (s, "%s%g%s", i ? ", " : "(", a->values[i], i + 1 == a->n_values ? ")" : "");
}

/* A convolution, plain or transposed, with its bias and the geometry that
 * is not the default: "computes the 2-d transposed convolution of x with
 * kernel w, plus the bias b, stride 2". */
static char *
say_convolution (const Ctx *c)
{
  const CrRecordOp *op = c->op;
  const CrRecordArgument *transposed = cr_record_op_argument (op, "transposed");
  const CrRecordArgument *stride = cr_record_op_argument (op, "stride");
  gboolean is_transposed = transposed && transposed->n_values > 0 && transposed->values[0] != 0;
  GString *s = g_string_new ("computes the ");
  if (stride && stride->n_values > 0)
    g_string_append_printf (s, "%d-d ", stride->n_values);
  g_string_append_printf (s, "%sconvolution of %s with kernel %s", is_transposed ? "transposed " : "",
                          c->x, label_at (c->labels, 1, "its weight"));
  if (op->inputs && op->inputs->len > 2 && g_array_index (op->inputs, int, 2) >= 0 && c->labels->len > 2)
    g_string_append_printf (s, ", plus the bias %s", (const char *) c->labels->pdata[2]);
  append_geometry (s, op, "stride", 1);
  append_geometry (s, op, "padding", 0);
  if (is_transposed)
    append_geometry (s, op, "output_padding", 0);
  append_geometry (s, op, "dilation", 1);
  const CrRecordArgument *groups = cr_record_op_argument (op, "groups");
  if (groups && groups->n_values > 0 && groups->values[0] > 1)
    g_string_append_printf (s, ", in %g groups", groups->values[0]);
  g_string_append (s, is_transposed
                   ? ": each input element adds the kernel, scaled by it, into the output"
                   : ": each output element is a window of the input times the kernel, summed");
  return g_string_free (s, FALSE);
}

static char *
say_pieces (const Ctx *c)
{
  g_autofree char *along = along_dims (c->op, "dim");
  guint pieces = c->op->outputs ? c->op->outputs->len : 0;
  if (g_str_has_prefix (c->op->grad_fn, "Unbind"))
    return g_strdup_printf ("takes %s apart%s into its %u slices, one output each", c->x, along, pieces);
  return g_strdup_printf ("cuts %s%s into %u pieces, one output each", c->x, along, pieces);
}

static char *
say_embedding (const Ctx *c)
{
  const CrRecordArgument *padding = cr_record_op_argument (c->op, "padding_idx");
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "looks up rows of the table %s: each index picks its row", c->x);
  if (has_value (padding))
    g_string_append_printf (s, " (row %g, the padding_idx, will get no gradient)", padding->values[0]);
  return g_string_free (s, FALSE);
}

static char *
say_masked_fill (const Ctx *c)
{
  g_autofree char *number = cr_forward_number_text (c->op);
  if (g_strcmp0 (c->op->grad_fn, "MaskedFillBackward1") == 0 && c->labels->len > 1
      && g_array_index (c->op->inputs, int, 1) >= 0)
    return g_strdup_printf ("copies %s with the value %s put where the mask is True", c->x, c->y);
  return g_strdup_printf ("copies %s with %s put where the mask is True", c->x, number ? number : "a value");
}

static const char *
joined (GString         *s,
        const GPtrArray *present)
{
  for (guint i = 0; i < present->len; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == present->len ? " and " : ", ",
                            (const char *) present->pdata[i]);
  if (present->len == 0)
    g_string_append (s, "its inputs");
  return s->str;
}

/* A backward op recorded under create_graph=True (GeluBackwardBackward0
 * is the op that computed gelu's gradient): what it is the gradient of. */
static char *
say_gradient_op (const Ctx *c)
{
  const char *g = c->op->grad_fn;
  const char *cut = strstr (g, "Backward");
  g_autofree char *stem = g_strndup (g, (gsize) (cut - g));
  g_autofree char *f = cr_record_op_function_name (stem);
  g_autoptr (GPtrArray) present = cr_forward_present_labels (c->op, c->labels);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "computes %s's gradient from ", f);
  joined (s, present);
  g_string_append (s, ", as an op of its own that can be differentiated again (create_graph=True)");
  return g_string_free (s, FALSE);
}

/* An autograd.Function's forward(), or the pass-through node that a
 * module's full backward hooks put in the graph. */
static char *
say_custom (const Ctx *c)
{
  g_autoptr (GPtrArray) present = cr_forward_present_labels (c->op, c->labels);
  GString *s = g_string_new (NULL);
  if (g_strcmp0 (c->op->custom_function, "BackwardHookFunction") == 0)
    {
      g_string_append (s, "passes ");
      joined (s, present);
      g_string_append (s, " on unchanged, so that the module's backward hooks see the gradient");
      return g_string_free (s, FALSE);
    }
  g_string_append_printf (s, "runs %s.forward() on ", c->op->custom_function);
  joined (s, present);
  g_string_append (s, ": an op of your own, whose backward() is yours too");
  return g_string_free (s, FALSE);
}

/* softmax, log_softmax: along the dim they normalize; "each row" when it
 * is the last dim of a matrix. */
static char *
say_softmax (const Ctx *c)
{
  gboolean log = g_str_has_prefix (c->op->grad_fn, "Log");
  const CrRecordTensor *in = tensor_at (c->record, c->op->inputs, 0);
  const CrRecordArgument *dim = cr_record_op_argument (c->op, "dim");
  g_autofree char *where = !has_value (dim) || (in && in->ndim == 2 && dim->values[0] == 1)
                           ? g_strdup_printf ("each row of %s", c->x)
                           : g_strdup_printf ("%s along dim %g", c->x, dim->values[0]);
  return log ? g_strdup_printf ("takes the log of the softmax of %s: x − log Σ e^x", where)
             : g_strdup_printf ("turns %s into probabilities: e^x / Σ e^x", where);
}

/* Tensor.unfold: windows along a dim, as a new last dim. */
static char *
say_unfold (const Ctx *c)
{
  const CrRecordArgument *dim = cr_record_op_argument (c->op, "dimension");
  const CrRecordArgument *size = cr_record_op_argument (c->op, "size");
  const CrRecordArgument *step = cr_record_op_argument (c->op, "step");
  if (!has_value (dim) || !has_value (size) || !has_value (step))
    return g_strdup_printf ("cuts %s into windows along a dim, each window a new last dim (a view)", c->x);
  return g_strdup_printf ("cuts %s into windows of %g along dim %g, one every %g, each window along a new "
                          "last dim (a view)", c->x, size->values[0], dim->values[0], step->values[0]);
}

/* lerp: a step from start toward end by the weight, a number or a tensor. */
static char *
say_lerp (const Ctx *c)
{
  const CrRecordArgument *w = cr_record_op_argument (c->op, "weight");
  if (has_value (w))
    {
      g_autofree char *weight = cr_forward_number_string (w->values[0]);
      return g_strdup_printf ("moves %s toward %s by the weight %s: %s + %s·(%s − %s), element by element",
                              c->x, c->y, weight, c->x, weight, c->y, c->x);
    }
  const char *weight = label_at (c->labels, 2, "the weight");
  return g_strdup_printf ("moves %s toward %s by the weights %s: %s + %s·(%s − %s), element by element",
                          c->x, c->y, weight, c->x, weight, c->y, c->x);
}

/* prelu: the negative side scaled by a learned slope, one or one per channel. */
static char *
say_prelu (const Ctx *c)
{
  return g_strdup_printf ("keeps %s where it is positive and multiplies it by the learned slope %s "
                          "elsewhere (one slope per channel when there are several)", c->x, c->y);
}

static char *
say_not_implemented (const Ctx *c)
{
  return g_strdup_printf ("computes a function of %s that has no gradient formula: a backward through it "
                          "raises an error", c->x);
}

typedef char *(*SaySentence) (const Ctx *c);

static const struct {
  const char  *grad_fn;         /* as the table's: a prefix when it ends in '*' */
  SaySentence  say;
} special_words[] = {
  { "ConvolutionBackward0", say_convolution },
  { "NllLoss*", say_nll },
  { "UnbindBackward0", say_pieces }, { "SplitBackward0", say_pieces }, { "SplitWithSizesBackward0", say_pieces },
  { "UnsafeSplit*", say_pieces },
  { "EmbeddingBackward0", say_embedding },
  { "MaskedFillBackward*", say_masked_fill },
  { "LeakyReluBackward*", say_leaky_relu }, { "EluBackward*", say_elu }, { "CeluBackward*", say_celu },
  { "SoftplusBackward*", say_softplus }, { "HardtanhBackward*", say_hardtanh },
  { "ThresholdBackward*", say_threshold }, { "SoftshrinkBackward*", say_shrink },
  { "HardshrinkBackward*", say_shrink }, { "GeluBackward*", say_gelu },
  { "ClampBackward*", say_clamp }, { "ClampMinBackward*", say_clamp }, { "ClampMaxBackward*", say_clamp },
  { "VarBackward*", say_var_std }, { "StdBackward*", say_var_std },
  { "SumBackward1", say_reduce }, { "MeanBackward1", say_reduce }, { "LogsumexpBackward*", say_reduce },
  { "ProdBackward*", say_reduce }, { "AmaxBackward*", say_reduce }, { "AminBackward*", say_reduce },
  { "MaxBackward*", say_reduce }, { "MinBackward*", say_reduce }, { "NormBackward*", say_reduce },
  { "LinalgVectorNormBackward*", say_reduce },
  { "CumsumBackward*", say_running }, { "CumprodBackward*", say_running },
  { "LogcumsumexpBackward*", say_running }, { "CummaxBackward*", say_running },
  { "CumminBackward*", say_running },
  { "RepeatBackward*", say_repeat }, { "RollBackward*", say_roll }, { "FlipBackward*", say_flip },
  { "DiagBackward*", say_diag }, { "TrilBackward*", say_triangle }, { "TriuBackward*", say_triangle },
  { "TransposeBackward*", say_shape_op }, { "PermuteBackward*", say_shape_op },
  { "UnsqueezeBackward*", say_shape_op }, { "SelectBackward*", say_shape_op },
  { "SliceBackward*", say_shape_op }, { "CatBackward*", say_shape_op }, { "StackBackward*", say_shape_op },
  { "ConstantPadNdBackward*", say_pad }, { "ReflectionPad*", say_pad }, { "ReplicationPad*", say_pad },
  { "ToCopyBackward*", say_to_copy },
  { "GatherBackward*", say_take }, { "IndexSelectBackward*", say_take }, { "IndexAddBackward*", say_take },
  { "IndexCopyBackward*", say_take }, { "ScatterAddBackward*", say_take }, { "ScatterBackward*", say_take },
  { "SortBackward*", say_take }, { "TopkBackward*", say_take },
  { "WhereBackward*", say_where },
  { "NativeBatchNormBackward0", say_norm_layer }, { "NativeLayerNormBackward0", say_norm_layer },
  { "NativeGroupNormBackward0", say_norm_layer },
  { "MaxPool2DWithIndicesBackward0", say_pool }, { "AvgPool2DBackward0", say_pool },
  { "AdaptiveAvgPool2DBackward0", say_pool }, { "AdaptiveMaxPool2DBackward0", say_pool },
  { "Upsample*", say_upsample },
  { "HuberLossBackward0", say_loss }, { "SmoothL1LossBackward0", say_loss }, { "MseLossBackward0", say_loss },
  { "CdistBackward0", say_cdist },
  { "AddmvBackward0", say_products }, { "AddrBackward0", say_products }, { "BaddbmmBackward0", say_products },
  { "AddbmmBackward0", say_products }, { "AddcmulBackward0", say_products },
  { "AddcdivBackward0", say_products },
  { "LinalgCrossBackward0", say_cross }, { "LerpBackward*", say_lerp },
  { "PreluBackward0", say_prelu },
  { "SoftmaxBackward0", say_softmax }, { "LogSoftmaxBackward0", say_softmax },
  { "UnfoldBackward0", say_unfold },
  { "NotImplemented", say_not_implemented },
};

char *
cr_forward_words_special (const CrRunRecord *record,
                          const CrRecordOp  *op,
                          const GPtrArray   *labels)
{
  const char *g = op->grad_fn;
  if (!g)
    return NULL;
  Ctx c = { record, op, labels, label_at (labels, 0, "its input"), label_at (labels, 1, "its other input") };
  if (op->custom_function)
    return say_custom (&c);
  /* A backward op of a create_graph backward: its name holds "Backward"
   * twice (GeluBackwardBackward0), or "BackwardData" (softmax's). */
  const char *first = strstr (g, "Backward");
  if (first && first != g && (strstr (first + 1, "Backward") || g_str_has_prefix (first, "BackwardData")))
    return say_gradient_op (&c);
  for (guint i = 0; i < G_N_ELEMENTS (special_words); i++)
    if (cr_forward_words_match (special_words[i].grad_fn, g))
      return special_words[i].say (&c);
  return NULL;
}
