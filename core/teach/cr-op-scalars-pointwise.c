/* cr-op-scalars-pointwise.c — the element-wise ops of several tensors or
 * bounds, taken apart (cr-op-scalars.h), their inputs broadcast to the
 * output: addcmul and addcdiv (self + value·t1·t2, self + value·t1/t2),
 * clamp with number bounds (the recorded min and max) or tensor ones, and
 * where (each element from x where the saved condition holds, else from
 * y). The local derivatives are PyTorch's: clamp passes the gradient to x
 * where min ≤ x ≤ max, to a tensor min where x < min (and min < max), to a
 * tensor max where x > max (or max < min); where sends it to the side it
 * took, nothing to the other. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

typedef enum { POINTWISE_ADDCMUL, POINTWISE_ADDCDIV, POINTWISE_CLAMP, POINTWISE_WHERE } PointwiseOp;

typedef struct {
  const char *grad_fn;
  PointwiseOp op;
} PointwiseName;

static const PointwiseName pointwise_names[] = {
  { "AddcmulBackward0", POINTWISE_ADDCMUL }, { "AddcdivBackward0", POINTWISE_ADDCDIV },
  { "ClampBackward0", POINTWISE_CLAMP }, { "ClampBackward1", POINTWISE_CLAMP },
  { "ClampMinBackward0", POINTWISE_CLAMP }, { "ClampMaxBackward0", POINTWISE_CLAMP },
  { "ClampMinBackward1", POINTWISE_CLAMP }, { "ClampMaxBackward1", POINTWISE_CLAMP },
  { "WhereBackward0", POINTWISE_WHERE },
};

gboolean
scalars_is_pointwise_op (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (pointwise_names); i++)
    if (strcmp (grad_fn, pointwise_names[i].grad_fn) == 0)
      return TRUE;
  return FALSE;
}

/* One input as the output reads it: element o's source, label and value. */
typedef struct {
  const CrRecordTensor *t;   /* NULL: not given */
  const double         *values;
  guint                 base;
} Operand;

static Operand
operand (Build *b,
         guint  i)
{
  Operand a = { 0 };
  a.t = i < b->op->inputs->len ? scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, i))
                               : NULL;
  if (a.t)
    {
      a.values = scalars_input_values (b, a.t);
      a.base = scalars_input_nodes (b, a.t);
    }
  return a;
}

static gint64
source_of (const Build   *b,
           const Operand *a,
           gint64         o)
{
  return scalars_broadcast_source (o, b->out->ndim, b->out->shape, a->t->ndim, a->t->shape);
}

static double
value_at (const Build   *b,
          const Operand *a,
          gint64         o)
{
  return a->values[source_of (b, a, o)];
}

static char *
label_at (const Build   *b,
          const Operand *a,
          gint64         o)
{
  return scalars_input_label (b->record, a->t, source_of (b, a, o));
}

static void
edge_from (Build         *b,
           const Operand *a,
           gint64         o,
           guint          out,
           double         local,
           char          *text)
{
  scalars_add_edge (b, a->base + (guint) source_of (b, a, o), out, local, text);
}

/* addcmul's or addcdiv's value: the recorded one, else the one the output
 * says, read where its term is largest (the float32 output rounds least
 * there) and checked at every element as it is made; NaN when none can. */
static double
addc_value (Build         *b,
            gboolean       divide,
            const Operand *self,
            const Operand *t1,
            const Operand *t2)
{
  const CrRecordArgument *value = cr_record_op_argument (b->op, "value");
  if (value && value->n_values == 1)
    return value->values[0];
  double found = NAN, largest = 0;
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      double term = divide ? value_at (b, t1, o) / value_at (b, t2, o)
                           : value_at (b, t1, o) * value_at (b, t2, o);
      double out = scalars_output_value (b, o);
      if (isfinite (term) && fabs (term) > largest && !isnan (out))
        {
          largest = fabs (term);
          found = (out - value_at (b, self, o)) / term;
        }
    }
  return found;
}

static gboolean
build_addc (Build   *b,
            gboolean divide)
{
  Operand self = operand (b, 0), t1 = operand (b, 1), t2 = operand (b, 2);
  if (!self.t || !t1.t || !t2.t)
    return scalars_fail (b, "has an input the record does not keep");
  double v = addc_value (b, divide, &self, &t1, &t2);
  if (isnan (v))
    return scalars_fail (b, "has a value the record does not keep");
  const char *op = divide ? "/" : "·";
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *S = label_at (b, &self, o), *A = label_at (b, &t1, o), *B = label_at (b, &t2, o);
      double s = value_at (b, &self, o), a = value_at (b, &t1, o), c = value_at (b, &t2, o);
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_string_append_printf (eq, "%s = %s + ", Y, S);
      scalars_append_number (eq, v);
      g_string_append_printf (eq, "·%s%s%s", A, op, B);
      scalars_append_number (num, s);
      g_string_append (num, " + ");
      scalars_append_number (num, v);
      g_string_append (num, "·");
      scalars_append_number (num, a);
      g_string_append (num, op);
      scalars_append_number (num, c);
      guint out = scalars_add_output (b, o, divide ? "addcdiv" : "addcmul", g_string_free (eq, FALSE),
                                      g_string_free (num, FALSE), s + v * (divide ? a / c : a * c));
      edge_from (b, &self, o, out, 1, g_strdup ("1"));
      if (divide)
        {
          edge_from (b, &t1, o, out, v / c, g_strdup_printf ("%g/%s", v, B));
          edge_from (b, &t2, o, out, -v * a / (c * c), g_strdup_printf ("%g·%s/%s²", -v, A, B));
        }
      else
        {
          edge_from (b, &t1, o, out, v * c, g_strdup_printf ("%g·%s", v, B));
          edge_from (b, &t2, o, out, v * a, g_strdup_printf ("%g·%s", v, A));
        }
    }
  return b->error == NULL;
}

/* A number bound of clamp: the recorded one, NaN for None or not kept. */
static double
number_bound (const CrRecordOp *op,
              const char       *name)
{
  const CrRecordArgument *bound = cr_record_op_argument (op, name);
  return bound && bound->n_values == 1 ? bound->values[0] : NAN;
}

static gboolean
build_clamp (Build *b)
{
  const char *grad_fn = b->op->grad_fn;
  /* Tensor bounds: ClampBackward0, ClampMinBackward1, ClampMaxBackward1. */
  gboolean tensors = strcmp (grad_fn, "ClampBackward0") == 0
                     || (g_str_has_suffix (grad_fn, "Backward1") && strcmp (grad_fn, "ClampBackward1") != 0);
  gboolean has_min = !g_str_has_prefix (grad_fn, "ClampMax"), has_max = !g_str_has_prefix (grad_fn, "ClampMin");
  Operand x = operand (b, 0), lo = { 0 }, hi = { 0 };
  double min_number = NAN, max_number = NAN;
  if (tensors)
    {
      guint next = 1;
      lo = has_min ? operand (b, next++) : lo;
      hi = has_max ? operand (b, next) : hi;
    }
  else
    {
      min_number = has_min ? number_bound (b->op, "min") : NAN;
      max_number = has_max ? number_bound (b->op, "max") : NAN;
      if (has_min && !cr_record_op_argument (b->op, "min"))
        return scalars_fail (b, "has a min the record does not keep");
      if (has_max && !cr_record_op_argument (b->op, "max"))
        return scalars_fail (b, "has a max the record does not keep");
    }
  if (!x.t)
    return scalars_fail (b, "has an input the record does not keep");
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      double xv = value_at (b, &x, o);
      gboolean lo_set = lo.t || !isnan (min_number), hi_set = hi.t || !isnan (max_number);
      double lov = lo.t ? value_at (b, &lo, o) : min_number;
      double hiv = hi.t ? value_at (b, &hi, o) : max_number;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *X = label_at (b, &x, o);
      g_autofree char *L = lo.t ? label_at (b, &lo, o) : g_strdup_printf ("%g", lov);
      g_autofree char *H = hi.t ? label_at (b, &hi, o) : g_strdup_printf ("%g", hiv);
      double value = xv;
      if (lo_set && value < lov)
        value = lov;
      if (hi_set && value > hiv)
        value = hiv;
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_string_append_printf (eq, "%s = clamp(%s, min=%s, max=%s)", Y, X, lo_set ? L : "None",
                              hi_set ? H : "None");
      g_string_append (num, "clamp(");
      scalars_append_number (num, xv);
      g_string_append (num, ", ");
      if (lo_set)
        scalars_append_number (num, lov);
      else
        g_string_append (num, "None");
      g_string_append (num, ", ");
      if (hi_set)
        scalars_append_number (num, hiv);
      else
        g_string_append (num, "None");
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, o, "clamp", g_string_free (eq, FALSE), g_string_free (num, FALSE),
                                      value);
      gboolean inside = (!lo_set || xv >= lov) && (!hi_set || xv <= hiv);
      edge_from (b, &x, o, out, inside ? 1 : 0,
                 g_strdup (inside ? "1 (inside the bounds)" : "0 (clamped)"));
      if (lo.t)
        {
          gboolean takes = xv < lov && (!hi_set || lov < hiv);
          edge_from (b, &lo, o, out, takes ? 1 : 0, g_strdup (takes ? "1 (the min it took)" : "0"));
        }
      if (hi.t)
        {
          gboolean takes = xv > hiv || (lo_set && hiv < lov);
          edge_from (b, &hi, o, out, takes ? 1 : 0, g_strdup (takes ? "1 (the max it took)" : "0"));
        }
    }
  return b->error == NULL;
}

static gboolean
build_where (Build *b)
{
  Operand x = operand (b, 0), y = operand (b, 1);
  const CrRecordSaved *condition = NULL;
  for (guint s = 0; s < b->op->saved->len; s++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[s];
      if (g_strcmp0 (saved->name, "condition") == 0 && saved->value
          && saved->value->n_values == saved->value->numel)
        condition = saved;
    }
  if (!condition || condition->ndim > b->out->ndim)
    return scalars_fail (b, "has a condition the record does not keep");
  if (!x.t || !y.t)
    return scalars_fail (b, "takes a number the record does not keep");
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 c = scalars_broadcast_source (o, b->out->ndim, b->out->shape, condition->ndim,
                                           condition->shape);
      gboolean holds = condition->value->values[c] != 0;
      const Operand *taken = holds ? &x : &y;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *T = label_at (b, taken, o);
      guint out = scalars_add_output (b, o, "where",
                                      g_strdup_printf ("%s = %s (the condition %s)", Y, T,
                                                       holds ? "holds" : "is false"),
                                      NULL, value_at (b, taken, o));
      edge_from (b, taken, o, out, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

gboolean
scalars_build_pointwise (Build *b)
{
  for (guint i = 0; i < G_N_ELEMENTS (pointwise_names); i++)
    if (strcmp (b->op->grad_fn, pointwise_names[i].grad_fn) == 0)
      switch (pointwise_names[i].op)
        {
        case POINTWISE_ADDCMUL: return build_addc (b, FALSE);
        case POINTWISE_ADDCDIV: return build_addc (b, TRUE);
        case POINTWISE_CLAMP: return build_clamp (b);
        case POINTWISE_WHERE: return build_where (b);
        }
  return scalars_fail (b, "is not one the scalar view takes apart");
}
