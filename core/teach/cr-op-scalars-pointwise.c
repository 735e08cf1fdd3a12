/* cr-op-scalars-pointwise.c — the element-wise ops of several tensors or
 * bounds, taken apart (cr-op-scalars.h), their inputs broadcast to the
 * output: addcmul and addcdiv (self + value·t1·t2, self + value·t1/t2),
 * clamp with number bounds (the recorded min and max) or tensor ones, and
 * where (each element from x where the saved condition holds, else from
 * y), lerp (a + w·(b − a)), prelu (x, or w·x for x ≤ 0, w one number or
 * one per channel, dim 1) and glu (a·σ(b), a and b the halves of the
 * recorded dim). The local derivatives are PyTorch's: clamp passes the gradient to x
 * where min ≤ x ≤ max, to a tensor min where x < min (and min < max), to a
 * tensor max where x > max (or max < min); where sends it to the side it
 * took, nothing to the other. And the functions of two elements:
 * maximum, minimum, fmax, fmin, xlogy, atan2, hypot, logaddexp,
 * logaddexp2, copysign, pow of a number, fmod and remainder (a number on one side as the record keeps it). */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

typedef enum {
  POINTWISE_ADDCMUL, POINTWISE_ADDCDIV, POINTWISE_CLAMP, POINTWISE_WHERE, POINTWISE_LERP,
  POINTWISE_PRELU, POINTWISE_GLU,
} PointwiseOp;

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
  { "LerpBackward0", POINTWISE_LERP }, { "LerpBackward1", POINTWISE_LERP },
  { "PreluBackward0", POINTWISE_PRELU }, { "GluBackward0", POINTWISE_GLU },
};

/* A function of two elements: its value and its derivatives by a and by
 * b (y = f(a, b)), each with its formula in terms of A and B, the
 * elements' labels. */
typedef double (*Binary) (double a, double b);
typedef double (*BinaryLocal) (double a, double b, double y, const char *A, const char *B, char **text);

typedef struct {
  const char *grad_fn;
  const char *name;         /* in the equations: "maximum" */
  int         number;       /* 0: two tensors; 1: a number as a, 2: a number as b */
  Binary      value;
  BinaryLocal by_a, by_b;
} BinaryFunction;

/* maximum and minimum share a tie's gradient half and half; fmax and fmin
 * give it to a, and skip a NaN (PyTorch's backwards). */
static double maximum_f (double a, double b) { return isnan (a) || isnan (b) ? NAN : MAX (a, b); }
static double minimum_f (double a, double b) { return isnan (a) || isnan (b) ? NAN : MIN (a, b); }
static double
extreme_share (double mine, double other, gboolean largest, const char *A, char **text)
{
  /* PyTorch masks the loser, so a NaN on either side loses to nothing. */
  gboolean wins = largest ? !(mine < other) : !(mine > other);
  *text = mine == other ? g_strdup ("½ (a tie)") : wins ? g_strdup_printf ("1 (%s is the %s)", A,
                                                                           largest ? "larger" : "smaller")
                                                        : g_strdup ("0");
  return mine == other ? 0.5 : wins ? 1 : 0;
}
static double max_a (double a, double b, double y, const char *A, const char *B, char **t) { return extreme_share (a, b, TRUE, A, t); }
static double max_b (double a, double b, double y, const char *A, const char *B, char **t) { return extreme_share (b, a, TRUE, B, t); }
static double min_a (double a, double b, double y, const char *A, const char *B, char **t) { return extreme_share (a, b, FALSE, A, t); }
static double min_b (double a, double b, double y, const char *A, const char *B, char **t) { return extreme_share (b, a, FALSE, B, t); }
static double fmax_f (double a, double b) { return isnan (b) || a >= b ? a : b; }
static double fmin_f (double a, double b) { return isnan (b) || a <= b ? a : b; }
static double
taken (gboolean by_a, gboolean a_taken, const char *X, char **text)
{
  gboolean mine = by_a == a_taken;
  *text = mine ? g_strdup_printf ("1 (%s is taken)", X) : g_strdup ("0");
  return mine ? 1 : 0;
}
static double fmax_a (double a, double b, double y, const char *A, const char *B, char **t) { return taken (TRUE, isnan (b) || a >= b, A, t); }
static double fmax_b (double a, double b, double y, const char *A, const char *B, char **t) { return taken (FALSE, isnan (b) || a >= b, B, t); }
static double fmin_a (double a, double b, double y, const char *A, const char *B, char **t) { return taken (TRUE, isnan (b) || a <= b, A, t); }
static double fmin_b (double a, double b, double y, const char *A, const char *B, char **t) { return taken (FALSE, isnan (b) || a <= b, B, t); }

/* xlogy: a·log(b), 0 where a is 0. */
static double xlogy_f (double a, double b) { return a == 0 && !isnan (b) ? 0 : a * log (b); }
static double
xlogy_a (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("log(%s)", B);
  return a == 0 && b <= 0 ? 0 : xlogy_f (1, b);
}
static double
xlogy_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("%s/%s", A, B);
  return a / b;
}

static double atan2_f (double a, double b) { return atan2 (a, b); }
static double
atan2_a (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("%s/(%s² + %s²)", B, A, B);
  return b / (a * a + b * b);
}
static double
atan2_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("−%s/(%s² + %s²)", A, A, B);
  return -a / (a * a + b * b);
}

static double hypot_f (double a, double b) { return hypot (a, b); }
static double
hypot_a (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("%s/hypot(%s, %s)", A, A, B);
  return a / y;
}
static double
hypot_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("%s/hypot(%s, %s)", B, A, B);
  return b / y;
}

/* logaddexp and logaddexp2: log(e^a + e^b), log2(2^a + 2^b); each side's
 * share of the sum, 1/(1 + e^(other − mine)) (2^ for logaddexp2). */
static double
sum_share (double mine, double other, gboolean two, const char *Mine, const char *Other, char **text)
{
  *text = g_strdup_printf (two ? "1/(1 + 2^(%s − %s))" : "1/(1 + exp(%s − %s))", Other, Mine);
  return 1 / (1 + (two ? exp2 (other - mine) : exp (other - mine)));
}
static double logaddexp_f (double a, double b) { return MAX (a, b) + log1p (exp (-fabs (a - b))); }
static double logaddexp_a (double a, double b, double y, const char *A, const char *B, char **t) { return sum_share (a, b, FALSE, A, B, t); }
static double logaddexp_b (double a, double b, double y, const char *A, const char *B, char **t) { return sum_share (b, a, FALSE, B, A, t); }
static double logaddexp2_f (double a, double b) { return MAX (a, b) + log2 (1 + exp2 (-fabs (a - b))); }
static double logaddexp2_a (double a, double b, double y, const char *A, const char *B, char **t) { return sum_share (a, b, TRUE, A, B, t); }
static double logaddexp2_b (double a, double b, double y, const char *A, const char *B, char **t) { return sum_share (b, a, TRUE, B, A, t); }

/* copysign: |a| with b's sign. a's derivative is y/a, ±1 (0 where a is 0,
 * as PyTorch masks it); b's sign is a step, whose derivative is 0. */
static double copysign_f (double a, double b) { return copysign (a, b); }
static double
copysign_a (double a, double b, double y, const char *A, const char *B, char **text)
{
  double local = a == 0 ? 0 : y / a;
  *text = a == 0 ? g_strdup_printf ("0 (%s = 0)", A)
                 : g_strdup_printf (local > 0 ? "1 (%s keeps its sign)" : "−1 (%s changes sign)", A);
  return local;
}
static double
copysign_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup ("0 (only its sign is read)");
  return 0;
}

/* pow(number, x): c^x, by x c^x·log c. */
static double pow_f (double a, double b) { return pow (a, b); }
static double
pow_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  /* A zero base sends nothing to an exponent ≥ 0 (PyTorch's mask of 0·log 0). */
  *text = a == 0 && b >= 0 ? g_strdup_printf ("0 (0^%s with %s ≥ 0)", B, B)
                           : g_strdup_printf ("%s^%s·log(%s)", A, B, A);
  return a == 0 && b >= 0 ? 0 : y * log (a);
}

/* fmod and remainder: a − trunc(a/b)·b, a − floor(a/b)·b. */
static double fmod_f (double a, double b) { return fmod (a, b); }
static double remainder_f (double a, double b) { double r = fmod (a, b); return r != 0 && (r < 0) != (b < 0) ? r + b : r; }
static double
one_a (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup ("1");
  return 1;
}
static double
fmod_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("−trunc(%s/%s)", A, B);
  return -trunc (a / b);
}
static double
remainder_b (double a, double b, double y, const char *A, const char *B, char **text)
{
  *text = g_strdup_printf ("−floor(%s/%s)", A, B);
  return -floor (a / b);
}

static const BinaryFunction binary_functions[] = {
  { "MaximumBackward0", "maximum", 0, maximum_f, max_a, max_b },
  { "MinimumBackward0", "minimum", 0, minimum_f, min_a, min_b },
  { "FmaxBackward0", "fmax", 0, fmax_f, fmax_a, fmax_b },
  { "FminBackward0", "fmin", 0, fmin_f, fmin_a, fmin_b },
  { "XlogyBackward0", "xlogy", 0, xlogy_f, xlogy_a, xlogy_b },
  { "XlogyBackward1", "xlogy", 1, xlogy_f, xlogy_a, xlogy_b },
  { "XlogyBackward2", "xlogy", 2, xlogy_f, xlogy_a, xlogy_b },
  { "Atan2Backward0", "atan2", 0, atan2_f, atan2_a, atan2_b },
  { "HypotBackward0", "hypot", 0, hypot_f, hypot_a, hypot_b },
  { "LogaddexpBackward0", "logaddexp", 0, logaddexp_f, logaddexp_a, logaddexp_b },
  { "Logaddexp2Backward0", "logaddexp2", 0, logaddexp2_f, logaddexp2_a, logaddexp2_b },
  { "CopysignBackward0", "copysign", 0, copysign_f, copysign_a, copysign_b },
  { "CopysignBackward1", "copysign", 2, copysign_f, copysign_a, NULL },
  { "PowBackward2", "pow", 1, pow_f, NULL, pow_b },
  { "FmodBackward0", "fmod", 2, fmod_f, one_a, NULL },
  { "FmodBackward1", "fmod", 0, fmod_f, one_a, fmod_b },
  { "RemainderBackward0", "remainder", 2, remainder_f, one_a, NULL },
  { "RemainderBackward1", "remainder", 0, remainder_f, one_a, remainder_b },
};

static const BinaryFunction *
binary_function (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (binary_functions); i++)
    if (strcmp (grad_fn, binary_functions[i].grad_fn) == 0)
      return &binary_functions[i];
  return NULL;
}

gboolean
scalars_is_pointwise_op (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (pointwise_names); i++)
    if (strcmp (grad_fn, pointwise_names[i].grad_fn) == 0)
      return TRUE;
  return binary_function (grad_fn) != NULL;
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
  a.t = scalars_input_at (b, i);
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
      min_number = has_min ? scalars_in_dtype (x.t, number_bound (b->op, "min")) : NAN;
      max_number = has_max ? scalars_in_dtype (x.t, number_bound (b->op, "max")) : NAN;
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
  /* where(c, x, 0.0): a Python number on one side, the record's. */
  const CrRecordArgument *number = cr_record_op_argument (b->op, "number");
  if ((!x.t || !y.t) && (!number || number->n_values != 1 || (!x.t && !y.t)))
    return scalars_fail (b, "takes a number the record does not keep");
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 c = scalars_broadcast_source (o, b->out->ndim, b->out->shape, condition->ndim,
                                           condition->shape);
      gboolean holds = condition->value->values[c] != 0;
      const Operand *taken = holds ? &x : &y;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *T = taken->t ? label_at (b, taken, o) : g_strdup_printf ("%g", number->values[0]);
      guint out = scalars_add_output (b, o, "where",
                                      g_strdup_printf ("%s = %s (the condition %s)", Y, T,
                                                       holds ? "holds" : "is false"),
                                      NULL, taken->t ? value_at (b, taken, o) : number->values[0]);
      if (taken->t)
        edge_from (b, taken, o, out, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

/* f(a, b), a number on one side where the table says: the record's. */
static gboolean
build_binary (Build                *b,
              const BinaryFunction *f)
{
  Operand a = { 0 }, c = { 0 };
  const CrRecordArgument *given = cr_record_op_argument (b->op, "number");
  double number = given && given->n_values == 1 ? given->values[0] : NAN;
  if (f->number)
    (f->number == 1 ? &c : &a)[0] = operand (b, 0);
  else
    {
      /* Two inputs, of which one may be a number (an input the record
       * marks unknown, -1). */
      a = operand (b, 0);
      c = operand (b, 1);
    }
  if ((!a.t || !c.t) && isnan (number))
    return scalars_fail (b, "was given a number the record does not keep");
  if (!a.t && !c.t)
    return scalars_fail (b, "has an input the record does not keep");
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      double av = a.t ? value_at (b, &a, o) : number, cv = c.t ? value_at (b, &c, o) : number;
      g_autofree char *A = a.t ? label_at (b, &a, o) : g_strdup_printf ("%g", number);
      g_autofree char *C = c.t ? label_at (b, &c, o) : g_strdup_printf ("%g", number);
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      double y = f->value (av, cv);
      GString *num = g_string_new (NULL);
      g_string_append_printf (num, "%s(", f->name);
      scalars_append_number (num, av);
      g_string_append (num, ", ");
      scalars_append_number (num, cv);
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, o, f->name, g_strdup_printf ("%s = %s(%s, %s)", Y, f->name, A, C),
                                      g_string_free (num, FALSE), y);
      char *text = NULL;
      if (a.t && f->by_a)
        {
          double local = f->by_a (av, cv, y, A, C, &text);
          edge_from (b, &a, o, out, local, text);
        }
      if (c.t && f->by_b)
        {
          double local = f->by_b (av, cv, y, A, C, &text);
          edge_from (b, &c, o, out, local, text);
        }
    }
  return b->error == NULL;
}

/* lerp(a, b, w) = a + w·(b − a), w a tensor (LerpBackward1) or the
 * recorded number: by a 1 − w, by b w, by a tensor w b − a. */
static gboolean
build_lerp (Build *b)
{
  Operand a = operand (b, 0), e = operand (b, 1), w = operand (b, 2);
  const CrRecordArgument *number = cr_record_op_argument (b->op, "weight");
  if (!a.t || !e.t || (!w.t && (!number || number->n_values != 1)))
    return scalars_fail (b, "has an input or a weight the record does not keep");
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      double av = value_at (b, &a, o), ev = value_at (b, &e, o);
      double wv = w.t ? value_at (b, &w, o) : number->values[0];
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *A = label_at (b, &a, o), *E = label_at (b, &e, o);
      g_autofree char *W = w.t ? label_at (b, &w, o) : g_strdup_printf ("%g", wv);
      GString *num = g_string_new (NULL);
      scalars_append_number (num, av);
      g_string_append (num, " + ");
      scalars_append_number (num, wv);
      g_string_append (num, "·(");
      scalars_append_number (num, ev);
      g_string_append (num, " − ");
      scalars_append_number (num, av);
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, o, "lerp", g_strdup_printf ("%s = %s + %s·(%s − %s)", Y, A, W, E, A),
                                      g_string_free (num, FALSE), av + wv * (ev - av));
      edge_from (b, &a, o, out, 1 - wv, g_strdup_printf ("1 − %s", W));
      edge_from (b, &e, o, out, wv, g_strdup (W));
      if (w.t)
        edge_from (b, &w, o, out, ev - av, g_strdup_printf ("%s − %s", E, A));
    }
  return b->error == NULL;
}

static gboolean
build_prelu (Build *b)
{
  const CrRecordTensor *x = scalars_input_at (b, 0), *w = scalars_input_at (b, 1);
  if (!x || !w || scalars_numel_of (x) != scalars_numel_of (b->out))
    return scalars_fail (b, "has an input the record does not keep");
  gint64 channels = scalars_numel_of (w), inner = 1;
  if (channels != 1 && (x->ndim < 2 || x->shape[1] != channels))
    return scalars_fail (b, "has a weight that is neither one number nor one per channel");
  for (int d = 2; d < x->ndim; d++)
    inner *= x->shape[d];
  const double *xv = scalars_input_values (b, x), *wv = scalars_input_values (b, w);
  guint x_base = scalars_input_nodes (b, x), w_base = scalars_input_nodes (b, w);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 c = channels == 1 ? 0 : (o / inner) % channels;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *X = scalars_input_label (b->record, x, o);
      g_autofree char *W = scalars_input_label (b->record, w, c);
      gboolean positive = xv[o] > 0;
      GString *num = g_string_new (NULL);
      if (!positive)
        {
          scalars_append_number (num, wv[c]);
          g_string_append (num, "·");
        }
      scalars_append_number (num, xv[o]);
      guint out = scalars_add_output (b, o, "prelu",
                                      positive ? g_strdup_printf ("%s = %s (%s > 0)", Y, X, X)
                                               : g_strdup_printf ("%s = %s·%s (%s ≤ 0)", Y, W, X, X),
                                      g_string_free (num, FALSE), positive ? xv[o] : wv[c] * xv[o]);
      scalars_add_edge (b, x_base + (guint) o, out, positive ? 1 : wv[c],
                        positive ? g_strdup_printf ("1 (%s > 0)", X) : g_strdup (W));
      scalars_add_edge (b, w_base + (guint) c, out, positive ? 0 : xv[o],
                        positive ? g_strdup ("0") : g_strdup (X));
    }
  return b->error == NULL;
}

static double sigma (double v) { return 1 / (1 + exp (-v)); }

static gboolean
build_glu (Build *b)
{
  const CrRecordTensor *x = scalars_input_at (b, 0);
  const CrRecordArgument *dim_arg = cr_record_op_argument (b->op, "dim");
  int dim = x && dim_arg && dim_arg->n_values == 1 ? scalars_wrap_dim ((gint64) dim_arg->values[0], x->ndim) : -1;
  if (!x || dim < 0 || x->ndim == 0 || b->out->ndim != x->ndim || x->shape[dim] != 2 * b->out->shape[dim])
    return scalars_fail (b, "halves a dim the record does not keep");
  gint64 inner = 1, half = b->out->shape[dim];
  for (int d = dim + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  const double *xv = scalars_input_values (b, x);
  guint base = scalars_input_nodes (b, x);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      /* o's place along dim is i; a is the input's i there, b its i + half. */
      gint64 outer = o / (inner * half), i = (o / inner) % half, rest = o % inner;
      gint64 ea = (outer * 2 * half + i) * inner + rest, eb = ea + half * inner;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *A = scalars_input_label (b->record, x, ea);
      g_autofree char *B = scalars_input_label (b->record, x, eb);
      double s = sigma (xv[eb]);
      GString *num = g_string_new (NULL);
      scalars_append_number (num, xv[ea]);
      g_string_append (num, "·σ(");
      scalars_append_number (num, xv[eb]);
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, o, "glu", g_strdup_printf ("%s = %s·σ(%s)", Y, A, B),
                                      g_string_free (num, FALSE), xv[ea] * s);
      scalars_add_edge (b, base + (guint) ea, out, s, g_strdup_printf ("σ(%s)", B));
      scalars_add_edge (b, base + (guint) eb, out, xv[ea] * s * (1 - s),
                        g_strdup_printf ("%s·σ(%s)·(1 − σ(%s))", A, B, B));
    }
  return b->error == NULL;
}

gboolean
scalars_build_pointwise (Build *b)
{
  const BinaryFunction *f = binary_function (b->op->grad_fn);
  if (f)
    return build_binary (b, f);
  for (guint i = 0; i < G_N_ELEMENTS (pointwise_names); i++)
    if (strcmp (b->op->grad_fn, pointwise_names[i].grad_fn) == 0)
      switch (pointwise_names[i].op)
        {
        case POINTWISE_ADDCMUL: return build_addc (b, FALSE);
        case POINTWISE_ADDCDIV: return build_addc (b, TRUE);
        case POINTWISE_CLAMP: return build_clamp (b);
        case POINTWISE_WHERE: return build_where (b);
        case POINTWISE_LERP: return build_lerp (b);
        case POINTWISE_PRELU: return build_prelu (b);
        case POINTWISE_GLU: return build_glu (b);
        }
  return scalars_fail (b, "is not one the scalar view takes apart");
}
