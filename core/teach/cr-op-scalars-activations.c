/* cr-op-scalars-activations.c — the elementwise functions beyond
 * relu/tanh/σ taken apart (cr-op-scalars.h): leaky_relu, hardtanh, elu
 * (selu), celu, softplus, silu, gelu, threshold, the shrinks, log_sigmoid,
 * rsqrt, erf, erfinv, hardswish, hardsigmoid, mish, sinc, deg2rad,
 * rad2deg and the trigonometric and hyperbolic functions. Each output
 * element is f(x) of its input element, with f'(x) on the edge; the
 * parameters are the op's recorded arguments (leaky_relu's negative_slope,
 * softplus's beta and threshold, ...), with PyTorch's defaults. Where
 * PyTorch's backward takes a convention (hardtanh's 0 at the bounds,
 * threshold's x ≤ threshold), the edge has the same. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  double p[3];   /* the parameters, in the table's order */
} Params;

typedef double (*ValueFunc) (double x, const Params *p);
/* f'(x) (y = f(x)), and its formula in terms of X, the element's label, into text. */
typedef double (*LocalFunc) (double x, double y, const Params *p, const char *X, char **text);

typedef struct {
  const char *grad_fn;
  const char *name;              /* in the equations: "leaky_relu" */
  const char *params[3];         /* recorded argument names, NULL: none */
  double      defaults[3];
  ValueFunc   value;
  LocalFunc   local;
} Activation;

static double sigma (double x) { return 1 / (1 + exp (-x)); }

static double lrelu (double x, const Params *p) { return x > 0 ? x : p->p[0] * x; }
static double
lrelu_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = x > 0 ? g_strdup_printf ("1 (%s > 0)", X) : g_strdup_printf ("%g (%s ≤ 0)", p->p[0], X);
  return x > 0 ? 1 : p->p[0];
}

static double htanh (double x, const Params *p) { return x < p->p[0] ? p->p[0] : x > p->p[1] ? p->p[1] : x; }
static double
htanh_d (double x, double y, const Params *p, const char *X, char **text)
{
  gboolean inside = x > p->p[0] && x < p->p[1];
  *text = inside ? g_strdup_printf ("1 (%g < %s < %g)", p->p[0], X, p->p[1])
                 : g_strdup_printf ("0 (%s outside (%g, %g))", X, p->p[0], p->p[1]);
  return inside ? 1 : 0;
}

/* elu(x) = scale·x for x > 0, scale·alpha·(e^(input_scale·x) − 1) else. */
static double elu (double x, const Params *p) { return x > 0 ? p->p[1] * x : p->p[1] * p->p[0] * (exp (p->p[2] * x) - 1); }
static double
elu_d (double x, double y, const Params *p, const char *X, char **text)
{
  if (x > 0)
    {
      *text = g_strdup_printf ("%g (%s > 0)", p->p[1], X);
      return p->p[1];
    }
  *text = g_strdup_printf ("%g·e^(%g·%s)", p->p[1] * p->p[0] * p->p[2], p->p[2], X);
  return p->p[1] * p->p[0] * p->p[2] * exp (p->p[2] * x);
}

static double celu (double x, const Params *p) { return x > 0 ? x : p->p[0] * (exp (x / p->p[0]) - 1); }
static double
celu_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = x > 0 ? g_strdup_printf ("1 (%s > 0)", X) : g_strdup_printf ("e^(%s/%g)", X, p->p[0]);
  return x > 0 ? 1 : exp (x / p->p[0]);
}

static double softplus (double x, const Params *p) { return p->p[0] * x > p->p[1] ? x : log1p (exp (p->p[0] * x)) / p->p[0]; }
static double
softplus_d (double x, double y, const Params *p, const char *X, char **text)
{
  if (p->p[0] * x > p->p[1])
    {
      *text = g_strdup_printf ("1 (%g·%s > %g)", p->p[0], X, p->p[1]);
      return 1;
    }
  *text = p->p[0] == 1 ? g_strdup_printf ("σ(%s)", X) : g_strdup_printf ("σ(%g·%s)", p->p[0], X);
  return sigma (p->p[0] * x);
}

static double silu (double x, const Params *p) { return x * sigma (x); }
static double
silu_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("σ(%s)·(1 + %s·(1 − σ(%s)))", X, X, X);
  return sigma (x) * (1 + x * (1 - sigma (x)));
}

/* gelu: x·Φ(x); with approximate='tanh' (p[0] = 1), ½x(1 + tanh(u)) with
 * u = √(2/π)(x + 0.044715x³). */
#define GELU_K 0.7978845608028654   /* √(2/π) */
static double
gelu (double x, const Params *p)
{
  if (p->p[0] == 1)
    return 0.5 * x * (1 + tanh (GELU_K * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1 + erf (x / M_SQRT2));
}
static double
gelu_d (double x, double y, const Params *p, const char *X, char **text)
{
  if (p->p[0] == 1)
    {
      double t = tanh (GELU_K * (x + 0.044715 * x * x * x));
      *text = g_strdup_printf ("½(1 + tanh u) + ½%s·(1 − tanh² u)·√(2/π)(1 + 0.134145·%s²), "
                               "u = √(2/π)(%s + 0.044715·%s³)", X, X, X, X);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_K * (1 + 3 * 0.044715 * x * x);
    }
  *text = g_strdup_printf ("Φ(%s) + %s·φ(%s)", X, X, X);
  return 0.5 * (1 + erf (x / M_SQRT2)) + x * exp (-0.5 * x * x) / sqrt (2 * M_PI);
}

static double threshold (double x, const Params *p) { return x > p->p[0] ? x : p->p[1]; }
static double
threshold_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = x > p->p[0] ? g_strdup_printf ("1 (%s > %g)", X, p->p[0])
                      : g_strdup_printf ("0 (%s ≤ %g)", X, p->p[0]);
  return x > p->p[0] ? 1 : 0;
}

static double hshrink (double x, const Params *p) { return fabs (x) > p->p[0] ? x : 0; }
static double sshrink (double x, const Params *p) { return x > p->p[0] ? x - p->p[0] : x < -p->p[0] ? x + p->p[0] : 0; }
static double
shrink_d (double x, double y, const Params *p, const char *X, char **text)
{
  gboolean out = fabs (x) > p->p[0];
  *text = out ? g_strdup_printf ("1 (|%s| > %g)", X, p->p[0]) : g_strdup_printf ("0 (|%s| ≤ %g)", X, p->p[0]);
  return out ? 1 : 0;
}

static double log_sigmoid (double x, const Params *p) { return fmin (x, 0) - log1p (exp (-fabs (x))); }
static double
log_sigmoid_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1 − σ(%s)", X);
  return 1 - sigma (x);
}

static double rsqrt_f (double x, const Params *p) { return 1 / sqrt (x); }
static double
rsqrt_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("−½·%s^(−3/2)", X);
  return -0.5 * pow (x, -1.5);
}

static double erf_f (double x, const Params *p) { return erf (x); }
static double
erf_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("(2/√π)·e^(−%s²)", X);
  return M_2_SQRTPI * exp (-x * x);
}

static double tan_f (double x, const Params *p) { return tan (x); }
static double
tan_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1 + tan²%s", X);
  return 1 + tan (x) * tan (x);
}

static double atan_f (double x, const Params *p) { return atan (x); }
static double
atan_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/(1 + %s²)", X);
  return 1 / (1 + x * x);
}

static double asin_f (double x, const Params *p) { return asin (x); }
static double
asin_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/√(1 − %s²)", X);
  return 1 / sqrt (1 - x * x);
}

static double acos_f (double x, const Params *p) { return acos (x); }
static double
acos_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("−1/√(1 − %s²)", X);
  return -1 / sqrt (1 - x * x);
}

static double atanh_f (double x, const Params *p) { return atanh (x); }
static double
atanh_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/(1 − %s²)", X);
  return 1 / (1 - x * x);
}

static double sinh_f (double x, const Params *p) { return sinh (x); }
static double
sinh_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("cosh %s", X);
  return cosh (x);
}

static double cosh_f (double x, const Params *p) { return cosh (x); }
static double
cosh_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("sinh %s", X);
  return sinh (x);
}

static double log1p_f (double x, const Params *p) { return log1p (x); }
static double
log1p_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/(1 + %s)", X);
  return 1 / (1 + x);
}

static double expm1_f (double x, const Params *p) { return expm1 (x); }
static double
expm1_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("e^%s", X);
  return exp (x);
}

static double exp2_f (double x, const Params *p) { return exp2 (x); }
static double
exp2_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("2^%s·ln 2", X);
  return exp2 (x) * M_LN2;
}

static double log2_f (double x, const Params *p) { return log2 (x); }
static double
log2_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/(%s·ln 2)", X);
  return 1 / (x * M_LN2);
}

static double log10_f (double x, const Params *p) { return log10 (x); }
static double
log10_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/(%s·ln 10)", X);
  return 1 / (x * M_LN10);
}

static double erfc_f (double x, const Params *p) { return erfc (x); }
static double
erfc_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("−(2/√π)·e^(−%s²)", X);
  return -M_2_SQRTPI * exp (-x * x);
}

static double asinh_f (double x, const Params *p) { return asinh (x); }
static double
asinh_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/√(%s² + 1)", X);
  return 1 / sqrt (x * x + 1);
}

static double acosh_f (double x, const Params *p) { return acosh (x); }
static double
acosh_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("1/√(%s² − 1)", X);
  return 1 / sqrt (x * x - 1);
}

static double floor_f (double x, const Params *p) { return floor (x); }
static double ceil_f (double x, const Params *p) { return ceil (x); }
/* torch.round rounds half to even. */
static double round_f (double x, const Params *p) { return nearbyint (x); }
static double trunc_f (double x, const Params *p) { return trunc (x); }
static double frac_f (double x, const Params *p) { return x - trunc (x); }
static double
one_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup ("1");
  return 1;
}

static double sign_f (double x, const Params *p) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static double
zero_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup ("0 (flat)");
  return 0;
}

/* hardswish: x·relu6(x + 3)/6; PyTorch's slope (x/3 + ½) covers −3 ≤ x ≤ 3. */
static double hswish (double x, const Params *p) { return x * MIN (MAX (x + 3, 0), 6) / 6; }
static double
hswish_d (double x, double y, const Params *p, const char *X, char **text)
{
  if (x < -3)
    {
      *text = g_strdup_printf ("0 (%s < −3)", X);
      return 0;
    }
  if (x <= 3)
    {
      *text = g_strdup_printf ("%s/3 + ½", X);
      return x / 3 + 0.5;
    }
  *text = g_strdup_printf ("1 (%s > 3)", X);
  return 1;
}

/* hardsigmoid: relu6(x + 3)/6, slope ⅙ strictly inside (−3, 3). */
static double hsigmoid (double x, const Params *p) { return MIN (MAX (x + 3, 0), 6) / 6; }
static double
hsigmoid_d (double x, double y, const Params *p, const char *X, char **text)
{
  gboolean inside = x > -3 && x < 3;
  *text = inside ? g_strdup_printf ("1/6 (−3 < %s < 3)", X) : g_strdup_printf ("0 (%s outside (−3, 3))", X);
  return inside ? 1.0 / 6 : 0;
}

/* mish: x·tanh(softplus(x)). */
static double softplus1 (double x) { return x > 20 ? x : log1p (exp (x)); }
static double mish (double x, const Params *p) { return x * tanh (softplus1 (x)); }
static double
mish_d (double x, double y, const Params *p, const char *X, char **text)
{
  double t = tanh (softplus1 (x));
  *text = g_strdup_printf ("tanh(softplus(%s)) + %s·σ(%s)·(1 − tanh²(softplus(%s)))", X, X, X, X);
  return t + x * sigma (x) * (1 - t * t);
}

/* sinc: sin(πx)/(πx), 1 at 0 where PyTorch's slope is 0. */
static double sinc (double x, const Params *p) { return x == 0 ? 1 : sin (M_PI * x) / (M_PI * x); }
static double
sinc_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("(π%s·cos(π%s) − sin(π%s))/(π%s²)", X, X, X, X);
  return x == 0 ? 0 : (M_PI * x * cos (M_PI * x) - sin (M_PI * x)) / (M_PI * x * x);
}

static double deg2rad (double x, const Params *p) { return x * (M_PI / 180); }
static double
deg2rad_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup ("π/180");
  return M_PI / 180;
}

static double rad2deg (double x, const Params *p) { return x * (180 / M_PI); }
static double
rad2deg_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup ("180/π");
  return 180 / M_PI;
}

/* erfinv: Winitzki's closed form, then Newton's steps on erf(y) = x. */
static double
erfinv_f (double x, const Params *p)
{
  if (x <= -1 || x >= 1)
    return x == 1 ? INFINITY : x == -1 ? -INFINITY : NAN;
  double a = 0.147, l = log (1 - x * x), t = 2 / (M_PI * a) + l / 2;
  double y = copysign (sqrt (sqrt (t * t - l / a) - t), x);
  for (int i = 0; i < 3; i++)
    y -= (erf (y) - x) / (M_2_SQRTPI * exp (-y * y));
  return y;
}
static double
erfinv_d (double x, double y, const Params *p, const char *X, char **text)
{
  *text = g_strdup_printf ("(√π/2)·exp(erfinv(%s)²)", X);
  return 0.5 * sqrt (M_PI) * exp (y * y);
}

static const Activation activations[] = {
  { "LeakyReluBackward0", "leaky_relu", { "negative_slope" }, { 0.01 }, lrelu, lrelu_d },
  { "HardtanhBackward0", "hardtanh", { "min_val", "max_val" }, { -1, 1 }, htanh, htanh_d },
  { "EluBackward0", "elu", { "alpha", "scale", "input_scale" }, { 1, 1, 1 }, elu, elu_d },
  { "CeluBackward0", "celu", { "alpha" }, { 1 }, celu, celu_d },
  { "SoftplusBackward0", "softplus", { "beta", "threshold" }, { 1, 20 }, softplus, softplus_d },
  { "SiluBackward0", "silu", { NULL }, { 0 }, silu, silu_d },
  /* approximate: the record's 0 'none', 1 'tanh'. */
  { "GeluBackward0", "gelu", { "approximate" }, { 0 }, gelu, gelu_d },
  { "ThresholdBackward0", "threshold", { "threshold", "value" }, { 0, 0 }, threshold, threshold_d },
  /* The in-place forms (elu_, leaky_relu_, celu_, threshold_): PyTorch's
   * backward reads the result or the saved input, at the same derivative. */
  { "EluBackward1", "elu", { "alpha", "scale", "input_scale" }, { 1, 1, 1 }, elu, elu_d },
  { "LeakyReluBackward1", "leaky_relu", { "negative_slope" }, { 0.01 }, lrelu, lrelu_d },
  { "CeluBackward1", "celu", { "alpha" }, { 1 }, celu, celu_d },
  { "ThresholdBackward1", "threshold", { "threshold", "value" }, { 0, 0 }, threshold, threshold_d },
  { "HardshrinkBackward0", "hardshrink", { "lambd" }, { 0.5 }, hshrink, shrink_d },
  { "SoftshrinkBackward0", "softshrink", { "lambd" }, { 0.5 }, sshrink, shrink_d },
  { "LogSigmoidBackward0", "log_sigmoid", { NULL }, { 0 }, log_sigmoid, log_sigmoid_d },
  { "RsqrtBackward0", "rsqrt", { NULL }, { 0 }, rsqrt_f, rsqrt_d },
  { "ErfBackward0", "erf", { NULL }, { 0 }, erf_f, erf_d },
  { "TanBackward0", "tan", { NULL }, { 0 }, tan_f, tan_d },
  { "AtanBackward0", "atan", { NULL }, { 0 }, atan_f, atan_d },
  { "AsinBackward0", "asin", { NULL }, { 0 }, asin_f, asin_d },
  { "AcosBackward0", "acos", { NULL }, { 0 }, acos_f, acos_d },
  { "AtanhBackward0", "atanh", { NULL }, { 0 }, atanh_f, atanh_d },
  { "SinhBackward0", "sinh", { NULL }, { 0 }, sinh_f, sinh_d },
  { "CoshBackward0", "cosh", { NULL }, { 0 }, cosh_f, cosh_d },
  { "Log1PBackward0", "log1p", { NULL }, { 0 }, log1p_f, log1p_d },
  { "Expm1Backward0", "expm1", { NULL }, { 0 }, expm1_f, expm1_d },
  { "Exp2Backward0", "exp2", { NULL }, { 0 }, exp2_f, exp2_d },
  { "Log2Backward0", "log2", { NULL }, { 0 }, log2_f, log2_d },
  { "Log10Backward0", "log10", { NULL }, { 0 }, log10_f, log10_d },
  { "ErfcBackward0", "erfc", { NULL }, { 0 }, erfc_f, erfc_d },
  { "AsinhBackward0", "asinh", { NULL }, { 0 }, asinh_f, asinh_d },
  { "AcoshBackward0", "acosh", { NULL }, { 0 }, acosh_f, acosh_d },
  { "FloorBackward0", "floor", { NULL }, { 0 }, floor_f, zero_d },
  { "CeilBackward0", "ceil", { NULL }, { 0 }, ceil_f, zero_d },
  { "RoundBackward0", "round", { NULL }, { 0 }, round_f, zero_d },
  { "TruncBackward0", "trunc", { NULL }, { 0 }, trunc_f, zero_d },
  { "FracBackward0", "frac", { NULL }, { 0 }, frac_f, one_d },
  { "SignBackward0", "sign", { NULL }, { 0 }, sign_f, zero_d },
  { "SgnBackward0", "sgn", { NULL }, { 0 }, sign_f, zero_d },
  { "HardswishBackward0", "hardswish", { NULL }, { 0 }, hswish, hswish_d },
  { "HardsigmoidBackward0", "hardsigmoid", { NULL }, { 0 }, hsigmoid, hsigmoid_d },
  { "MishBackward0", "mish", { NULL }, { 0 }, mish, mish_d },
  { "SincBackward0", "sinc", { NULL }, { 0 }, sinc, sinc_d },
  { "Deg2RadBackward0", "deg2rad", { NULL }, { 0 }, deg2rad, deg2rad_d },
  { "Rad2DegBackward0", "rad2deg", { NULL }, { 0 }, rad2deg, rad2deg_d },
  { "ErfinvBackward0", "erfinv", { NULL }, { 0 }, erfinv_f, erfinv_d },
};

gboolean
scalars_is_activation (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (activations); i++)
    if (strcmp (grad_fn, activations[i].grad_fn) == 0)
      return TRUE;
  return FALSE;
}

gboolean
scalars_build_activation (Build *b)
{
  const Activation *a = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (activations) && !a; i++)
    if (g_strcmp0 (b->op->grad_fn, activations[i].grad_fn) == 0)
      a = &activations[i];
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  if (!a || !in || scalars_numel_of (in) != scalars_numel_of (b->out))
    return scalars_fail (b, "has an output of another size than its input");
  Params p;
  for (guint k = 0; k < 3; k++)
    {
      const CrRecordArgument *arg = a->params[k] ? cr_record_op_argument (b->op, a->params[k]) : NULL;
      p.p[k] = scalars_in_dtype (in, arg && arg->n_values == 1 ? arg->values[0] : a->defaults[k]);
    }
  /* A record without gelu's approximate=: the exact form, which the
   * recorded output must then confirm. */
  gboolean tanh_gelu = strcmp (a->name, "gelu") == 0 && p.p[0] == 1;
  if (strcmp (a->name, "gelu") == 0 && !cr_record_op_argument (b->op, "approximate")
      && (!b->out->value || b->out->value->n_values < scalars_numel_of (b->out)))
    return scalars_fail (b, "keeps no output to tell gelu's approximate= by");
  const double *xv = scalars_input_values (b, in);
  guint base = scalars_input_nodes (b, in);
  for (gint64 j = 0; j < scalars_numel_of (b->out); j++)
    {
      b->sub_step = (guint) j;
      g_autofree char *X = scalars_input_label (b->record, in, j);
      g_autofree char *Y = scalars_input_label (b->record, b->out, j);
      double y = a->value (xv[j], &p);
      GString *num = g_string_new (NULL);
      g_string_append_printf (num, "%s(", a->name);
      scalars_append_number (num, xv[j]);
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, j, a->name,
                                      g_strdup_printf (tanh_gelu ? "%s = %s(%s, approximate='tanh')"
                                                                 : "%s = %s(%s)", Y, a->name, X),
                                      g_string_free (num, FALSE), y);
      char *text = NULL;
      double local = a->local (xv[j], y, &p, X, &text);
      scalars_add_edge (b, base + (guint) j, out, local, text);
    }
  return b->error == NULL;
}
