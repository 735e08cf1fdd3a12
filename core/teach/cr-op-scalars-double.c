/* cr-op-scalars-double.c — an op's backward run as an op, as a double
 * backward (create_graph=True) records it, taken apart (cr-op-scalars.h).
 *
 * An activation's backward is z = g·f′(s), one element of the incoming
 * gradient g (broadcast) and one of s, the activation's input or output:
 * its edges are f′(s) from g and g·f″(s) from s (tanh's 1 − y², whose
 * derivative by y is −2y). A loss's backward is z = g·c·ℓ′(x − t) with c
 * 1/N for a mean: edges c·ℓ′ from g, ±g·c·ℓ″ from x and the target.
 * softmax's backward from its output y is z = y·(g − Σ g·y) along the
 * recorded dim, log_softmax's z = g − exp(y)·Σ g: every element of the
 * row reaches every element of its row. The parameters and the reduction
 * are the op's recorded arguments.
 *
 * The backwards of convolutions, pools and layer norm are refused with
 * why (scalars_double_backward_refusal): each of their elements is a sum
 * over a window or a row that the op itself, opened, already shows; so is
 * the NotImplemented node of a backward without a derivative. */
#include "cr-op-scalars-private.h"

#include "cr-paths.h"

#include <math.h>
#include <string.h>

/* f′(s) and f″(s) of an activation at s with its parameters p, each with
 * its formula in S, the element's label. */
typedef double (*Slope) (double s, const double *p, const char *S, char **text);

typedef struct {
  const char *grad_fn;
  const char *name;          /* the function whose derivative it is: "tanh" */
  const char *of;            /* what s is: "x" (the input) or "y" (the output) */
  const char *params[4];
  double      defaults[4];
  Slope       first, second;
} ActivationBackward;

static double sigma (double x) { return 1 / (1 + exp (-x)); }

static double
tanh_1 (double y, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("1 − %s²", S);
  return 1 - y * y;
}
static double
tanh_2 (double y, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("−2·%s", S);
  return -2 * y;
}
static double
sigmoid_1 (double y, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("%s·(1 − %s)", S, S);
  return y * (1 - y);
}
static double
sigmoid_2 (double y, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("1 − 2·%s", S);
  return 1 - 2 * y;
}
static double
zero_2 (double s, const double *p, const char *S, char **text)
{
  *text = g_strdup ("0 (f′ is constant by pieces)");
  return 0;
}
static double
lrelu_1 (double x, const double *p, const char *S, char **text)
{
  *text = x > 0 ? g_strdup_printf ("1 (%s > 0)", S) : g_strdup_printf ("%g (%s ≤ 0)", p[0], S);
  return x > 0 ? 1 : p[0];
}
static double
htanh_1 (double x, const double *p, const char *S, char **text)
{
  gboolean inside = x > p[0] && x < p[1];
  *text = inside ? g_strdup_printf ("1 (%g < %s < %g)", p[0], S, p[1])
                 : g_strdup_printf ("0 (%s outside (%g, %g))", S, p[0], p[1]);
  return inside ? 1 : 0;
}
static double
shrink_1 (double x, const double *p, const char *S, char **text)
{
  gboolean outside = x < -p[0] || x > p[0];
  *text = outside ? g_strdup_printf ("1 (|%s| > %g)", S, p[0]) : g_strdup_printf ("0 (|%s| ≤ %g)", S, p[0]);
  return outside ? 1 : 0;
}
static double
threshold_1 (double x, const double *p, const char *S, char **text)
{
  *text = x > p[0] ? g_strdup_printf ("1 (%s > %g)", S, p[0]) : g_strdup_printf ("0 (%s ≤ %g)", S, p[0]);
  return x > p[0] ? 1 : 0;
}
/* elu: p alpha, scale, input_scale, is_result. From the output y ≤ 0,
 * f′ = input_scale·(y + alpha·scale). */
static double
elu_1 (double s, const double *p, const char *S, char **text)
{
  if (s > 0)
    {
      *text = g_strdup_printf ("%g (%s > 0)", p[1], S);
      return p[1];
    }
  if (p[3] != 0)
    {
      *text = g_strdup_printf ("%g·(%s + %g)", p[2], S, p[0] * p[1]);
      return p[2] * (s + p[0] * p[1]);
    }
  *text = g_strdup_printf ("%g·exp(%g·%s)", p[2] * p[1] * p[0], p[2], S);
  return p[2] * p[1] * p[0] * exp (p[2] * s);
}
static double
elu_2 (double s, const double *p, const char *S, char **text)
{
  if (s > 0)
    {
      *text = g_strdup_printf ("0 (%s > 0)", S);
      return 0;
    }
  if (p[3] != 0)
    {
      *text = g_strdup_printf ("%g", p[2]);
      return p[2];
    }
  *text = g_strdup_printf ("%g·exp(%g·%s)", p[2] * p[2] * p[1] * p[0], p[2], S);
  return p[2] * p[2] * p[1] * p[0] * exp (p[2] * s);
}
/* softplus: p beta, threshold; linear above threshold/beta. */
static double
softplus_1 (double x, const double *p, const char *S, char **text)
{
  if (x * p[0] > p[1])
    {
      *text = g_strdup_printf ("1 (%g·%s > %g)", p[0], S, p[1]);
      return 1;
    }
  *text = g_strdup_printf ("σ(%g·%s)", p[0], S);
  return sigma (p[0] * x);
}
static double
softplus_2 (double x, const double *p, const char *S, char **text)
{
  if (x * p[0] > p[1])
    {
      *text = g_strdup_printf ("0 (%g·%s > %g)", p[0], S, p[1]);
      return 0;
    }
  double s = sigma (p[0] * x);
  *text = g_strdup_printf ("%g·σ(%g·%s)·(1 − σ(%g·%s))", p[0], p[0], S, p[0], S);
  return p[0] * s * (1 - s);
}
/* gelu (exact): x·Φ(x), f′ = Φ(x) + x·φ(x), f″ = φ(x)·(2 − x²). */
static double phi (double x) { return exp (-x * x / 2) / sqrt (2 * M_PI); }
static double
gelu_1 (double x, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("Φ(%s) + %s·φ(%s)", S, S, S);
  return 0.5 * (1 + erf (x / M_SQRT2)) + x * phi (x);
}
static double
gelu_2 (double x, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("φ(%s)·(2 − %s²)", S, S);
  return phi (x) * (2 - x * x);
}
/* gelu's tanh approximation: x·(1 + tanh u)/2 with u = √(2/π)·(x + 0.044715·x³). */
static double
gelu_tanh_u (double x, double *du, double *ddu)
{
  double k = sqrt (2 / M_PI), c = 0.044715;
  *du = k * (1 + 3 * c * x * x);
  *ddu = 6 * k * c * x;
  return tanh (k * (x + c * x * x * x));
}
static double
gelu_tanh_1 (double x, const double *p, const char *S, char **text)
{
  double du, ddu, t = gelu_tanh_u (x, &du, &ddu);
  *text = g_strdup_printf ("(1 + tanh u)/2 + %s·(1 − tanh² u)·u′/2, u = √(2/π)·(%s + 0.044715·%s³)", S, S, S);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du;
}
static double
gelu_tanh_2 (double x, const double *p, const char *S, char **text)
{
  double du, ddu, t = gelu_tanh_u (x, &du, &ddu);
  *text = g_strdup_printf ("(1 − tanh² u)·(u′ + %s·(u″ − 2·tanh u·u′²)/2)", S);
  return (1 - t * t) * (du + 0.5 * x * (ddu - 2 * t * du * du));
}
static double
log_sigmoid_1 (double x, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("1 − σ(%s)", S);
  return 1 - sigma (x);
}
static double
log_sigmoid_2 (double x, const double *p, const char *S, char **text)
{
  *text = g_strdup_printf ("−σ(%s)·(1 − σ(%s))", S, S);
  return -sigma (x) * (1 - sigma (x));
}
/* hardswish: 0 below −3, x/3 + ½ up to 3, 1 above (PyTorch's). */
static double
hardswish_1 (double x, const double *p, const char *S, char **text)
{
  if (x < -3 || x > 3)
    {
      *text = g_strdup_printf (x < -3 ? "0 (%s < −3)" : "1 (%s > 3)", S);
      return x < -3 ? 0 : 1;
    }
  *text = g_strdup_printf ("%s/3 + ½", S);
  return x / 3 + 0.5;
}
static double
hardswish_2 (double x, const double *p, const char *S, char **text)
{
  gboolean inside = x > -3 && x < 3;
  *text = inside ? g_strdup ("⅓ (−3 < x < 3)") : g_strdup ("0");
  return inside ? 1.0 / 3 : 0;
}

static const ActivationBackward activation_backwards[] = {
  { "TanhBackwardBackward0", "tanh", "y", { NULL }, { 0 }, tanh_1, tanh_2 },
  { "SigmoidBackwardBackward0", "σ", "y", { NULL }, { 0 }, sigmoid_1, sigmoid_2 },
  { "LeakyReluBackwardBackward0", "leaky_relu", "x", { "negative_slope" }, { 0.01 }, lrelu_1, zero_2 },
  { "HardtanhBackwardBackward0", "hardtanh", "x", { "min_val", "max_val" }, { -1, 1 }, htanh_1, zero_2 },
  { "HardshrinkBackwardBackward0", "hardshrink", "x", { "lambd" }, { 0.5 }, shrink_1, zero_2 },
  { "SoftshrinkBackwardBackward0", "softshrink", "x", { "lambd" }, { 0.5 }, shrink_1, zero_2 },
  { "ThresholdBackwardBackward0", "threshold", "x", { "threshold" }, { 0 }, threshold_1, zero_2 },
  { "EluBackwardBackward0", "elu", "x", { "alpha", "scale", "input_scale", "is_result" }, { 1, 1, 1, 0 },
    elu_1, elu_2 },
  { "SoftplusBackwardBackward0", "softplus", "x", { "beta", "threshold" }, { 1, 20 }, softplus_1,
    softplus_2 },
  { "GeluBackwardBackward0", "gelu", "x", { "approximate" }, { 0 }, gelu_1, gelu_2 },
  { "LogSigmoidBackwardBackward0", "log_sigmoid", "x", { NULL }, { 0 }, log_sigmoid_1, log_sigmoid_2 },
  { "HardswishBackwardBackward0", "hardswish", "x", { NULL }, { 0 }, hardswish_1, hardswish_2 },
};

typedef enum { LOSS_MSE, LOSS_SMOOTH_L1, LOSS_HUBER } LossKind;

static const struct {
  const char *grad_fn;
  const char *name;
  LossKind    loss;
  const char *param;     /* beta, delta; NULL: none */
} loss_backwards[] = {
  { "MseLossBackwardBackward0", "mse_loss", LOSS_MSE, NULL },
  { "SmoothL1LossBackwardBackward0", "smooth_l1_loss", LOSS_SMOOTH_L1, "beta" },
  { "HuberLossBackwardBackward0", "huber_loss", LOSS_HUBER, "delta" },
};

static const struct {
  const char *grad_fn;
  const char *why;
} refusals[] = {
  { "ConvolutionBackwardBackward0", "is a convolution's backward run as an op (a double backward): "
    "each element is a sum over a window of gradient·weight or gradient·input products, the same "
    "products the convolution itself shows opened" },
  { "MaxPool2DWithIndicesBackwardBackward0", "is a max pool's backward run as an op (a double "
    "backward): it routes each gradient to the element the saved indices name, as the pool "
    "itself shows opened" },
  { "AdaptiveMaxPool2DBackwardBackward0", "is an adaptive max pool's backward run as an op (a "
    "double backward): it routes each gradient to the element the saved indices name, as the "
    "pool itself shows opened" },
  { "AvgPool2DBackwardBackward0", "is an average pool's backward run as an op (a double "
    "backward): it spreads each gradient over its window, as the pool itself shows opened" },
  { "AdaptiveAvgPool2DBackwardBackward0", "is an adaptive average pool's backward run as an op "
    "(a double backward): it spreads each gradient over its window, as the pool itself shows "
    "opened" },
  { "NativeLayerNormBackwardBackward0", "is layer norm's backward run as an op (a double "
    "backward): its three outputs each depend on a whole row of the gradient and the statistics, "
    "more than one element's equation can show; open the layer norm itself" },
  { "NotImplemented", "is PyTorch's NotImplemented node: the backward that made it has no "
    "derivative of its own (hardsigmoid's has none in PyTorch 1.13), so there is no local "
    "derivative to draw, and a backward through it fails" },
};

gboolean
scalars_is_double_backward (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (activation_backwards); i++)
    if (strcmp (grad_fn, activation_backwards[i].grad_fn) == 0)
      return TRUE;
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (loss_backwards); i++)
    if (strcmp (grad_fn, loss_backwards[i].grad_fn) == 0)
      return TRUE;
  return g_strcmp0 (grad_fn, "SoftmaxBackwardDataBackward0") == 0
         || g_strcmp0 (grad_fn, "LogSoftmaxBackwardDataBackward0") == 0;
}

const char *
scalars_double_backward_refusal (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (refusals); i++)
    if (strcmp (grad_fn, refusals[i].grad_fn) == 0)
      return refusals[i].why;
  return NULL;
}

/* An input broadcast to the output: its element under output element o. */
static gint64
under (const Build          *b,
       const CrRecordTensor *t,
       gint64                o)
{
  return scalars_broadcast_source (o, b->out->ndim, b->out->shape, t->ndim, t->shape);
}

/* The incoming gradient's element: the record's name, or PyTorch's
 * "grad_output[0, 1]" for the unnamed one the first backward made. */
static char *
grad_label (const Build          *b,
            const CrRecordTensor *g,
            gint64                e)
{
  if (g->label)
    return scalars_input_label (b->record, g, e);
  g_autofree char *index = cr_record_element_text (g, e);
  return g_strdup_printf ("grad_output%s", index);
}

/* g's nodes, made once, named as grad_label names them. */
static guint
grad_nodes (Build                *b,
            const CrRecordTensor *g)
{
  guint base = scalars_input_nodes (b, g);
  for (gint64 e = 0; !g->label && e < scalars_numel_of (g); e++)
    {
      CrScalarNode *node = b->self->nodes->pdata[base + (guint) e];
      g_free (node->label);
      node->label = grad_label (b, g, e);
    }
  return base;
}

static double
param_of (const CrRecordOp *op,
          const char       *name,
          double            fallback)
{
  const CrRecordArgument *arg = name ? cr_record_op_argument (op, name) : NULL;
  return arg && arg->n_values == 1 ? arg->values[0] : fallback;
}

static gboolean
build_activation_backward (Build                    *b,
                           const ActivationBackward *a)
{
  const CrRecordTensor *g = scalars_input_at (b, 0), *s = scalars_input_at (b, 1);
  if (!g || !s || !scalars_broadcasts_to (g, b->out) || !scalars_broadcasts_to (s, b->out))
    return scalars_fail (b, "has an input the record does not keep");
  double p[4];
  for (guint k = 0; k < 4; k++)
    {
      if (a->params[k] && !cr_record_op_argument (b->op, a->params[k]))
        return scalars_fail (b, "keeps no %s", a->params[k]);
      p[k] = scalars_in_dtype (s, param_of (b->op, a->params[k], a->defaults[k]));
    }
  /* gelu's approximate='tanh' has its own derivatives. */
  Slope first_of = a->first, second_of = a->second;
  if (strcmp (a->name, "gelu") == 0 && p[0] != 0)
    first_of = gelu_tanh_1, second_of = gelu_tanh_2;
  const double *gv = scalars_input_values (b, g), *sv = scalars_input_values (b, s);
  guint g_base = grad_nodes (b, g), s_base = scalars_input_nodes (b, s);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 gi = under (b, g, o), si = under (b, s, o);
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *G = grad_label (b, g, gi);
      g_autofree char *S = scalars_input_label (b->record, s, si);
      g_autofree char *first_text = NULL, *second_text = NULL;
      double first = first_of (sv[si], p, S, &first_text);
      double second = second_of (sv[si], p, S, &second_text);
      GString *num = g_string_new (NULL);
      scalars_append_number (num, gv[gi]);
      g_string_append (num, "·");
      scalars_append_number (num, first);
      guint out = scalars_add_output (b, o, "×", g_strdup_printf ("%s = %s·%s′(%s)", Y, G, a->name, S),
                                      g_string_free (num, FALSE), gv[gi] * first);
      scalars_add_edge (b, g_base + (guint) gi, out, first, g_steal_pointer (&first_text));
      scalars_add_edge (b, s_base + (guint) si, out, gv[gi] * second,
                        g_strdup_printf ("%s·(%s)", G, second_text));
    }
  return b->error == NULL;
}

static gboolean
build_loss_backward (Build    *b,
                     guint     which)
{
  const CrRecordTensor *g = scalars_input_at (b, 0), *x = scalars_input_at (b, 1);
  const CrRecordTensor *t = scalars_input_at (b, 2);
  LossKind loss = loss_backwards[which].loss;
  const char *pname = loss_backwards[which].param;
  if (!g || !x || !t || !scalars_broadcasts_to (g, b->out) || !scalars_broadcasts_to (x, b->out)
      || !scalars_broadcasts_to (t, b->out))
    return scalars_fail (b, "has an input the record does not keep");
  const CrRecordArgument *reduction = cr_record_op_argument (b->op, "reduction");
  if (!reduction || reduction->n_values != 1 || (pname && !cr_record_op_argument (b->op, pname)))
    return scalars_fail (b, "keeps no reduction or %s", pname ? pname : "parameter");
  double param = param_of (b->op, pname, 1);
  /* 1 mean: divided by every element of the loss's input. */
  double c = reduction->values[0] == 1 ? 1.0 / (double) scalars_numel_of (b->out) : 1;
  double k = loss == LOSS_MSE ? 2 * c : c;
  const double *gv = scalars_input_values (b, g), *xv = scalars_input_values (b, x);
  const double *tv = scalars_input_values (b, t);
  guint g_base = grad_nodes (b, g), x_base = scalars_input_nodes (b, x);
  guint t_base = scalars_input_nodes (b, t);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 gi = under (b, g, o), xi = under (b, x, o), ti = under (b, t, o);
      double d = xv[xi] - tv[ti], first, second;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *G = grad_label (b, g, gi);
      g_autofree char *X = scalars_input_label (b->record, x, xi);
      g_autofree char *T = scalars_input_label (b->record, t, ti);
      g_autofree char *D = g_strdup_printf ("(%s − %s)", X, T);
      g_autofree char *slope = NULL;
      gboolean curved;
      if (loss == LOSS_MSE)
        {
          first = d, second = 1, curved = TRUE;
          slope = g_strdup (D);
        }
      else if (loss == LOSS_SMOOTH_L1)
        {
          curved = param > 0 && fabs (d) < param;
          first = curved ? d / param : d > 0 ? 1 : d < 0 ? -1 : 0;
          second = curved ? 1 / param : 0;
          slope = curved ? g_strdup_printf ("%s/%g", D, param) : g_strdup_printf ("sign%s", D);
        }
      else
        {
          curved = fabs (d) <= param;
          first = curved ? d : param * (d > 0 ? 1 : d < 0 ? -1 : 0);
          second = curved ? 1 : 0;
          slope = curved ? g_strdup (D) : g_strdup_printf ("%g·sign%s", param, D);
        }
      GString *num = g_string_new (NULL);
      scalars_append_number (num, gv[gi]);
      g_string_append_printf (num, "·%.4g·", k);
      scalars_append_number (num, first);
      guint out = scalars_add_output (b, o, "×", g_strdup_printf ("%s = %s·%.4g·%s", Y, G, k, slope),
                                      g_string_free (num, FALSE), gv[gi] * k * first);
      scalars_add_edge (b, g_base + (guint) gi, out, k * first, g_strdup_printf ("%.4g·%s", k, slope));
      double by_x = gv[gi] * k * second;
      scalars_add_edge (b, x_base + (guint) xi, out, by_x,
                        curved ? g_strdup_printf ("%s·%.4g", G, k * second) : g_strdup ("0 (ℓ′ is flat here)"));
      scalars_add_edge (b, t_base + (guint) ti, out, -by_x,
                        curved ? g_strdup_printf ("−%s·%.4g", G, k * second) : g_strdup ("0 (ℓ′ is flat here)"));
    }
  return b->error == NULL;
}

/* softmax's backward z = y·(g − Σ g·y), log_softmax's z = g − exp(y)·Σ g,
 * each sum over the element's row along dim. */
static gboolean
build_softmax_backward (Build   *b,
                        gboolean log)
{
  const CrRecordTensor *g = scalars_input_at (b, 0), *y = scalars_input_at (b, 1);
  const CrRecordArgument *dim_arg = cr_record_op_argument (b->op, "dim");
  gint64 n = scalars_numel_of (b->out);
  if (!g || !y || scalars_numel_of (g) != n || scalars_numel_of (y) != n)
    return scalars_fail (b, "has an input the record does not keep");
  int dim = dim_arg && dim_arg->n_values == 1 ? scalars_wrap_dim ((gint64) dim_arg->values[0], b->out->ndim)
                                              : -1;
  if (dim < 0)
    return scalars_fail (b, "keeps no dim");
  gint64 length = b->out->ndim ? b->out->shape[dim] : 1, inner = 1;
  for (int d = dim + 1; d < b->out->ndim; d++)
    inner *= b->out->shape[d];
  const double *gv = scalars_input_values (b, g), *yv = scalars_input_values (b, y);
  guint g_base = grad_nodes (b, g), y_base = scalars_input_nodes (b, y);
  for (gint64 o = 0; o < n; o++)
    {
      b->sub_step = (guint) o;
      gint64 position = (o / inner) % MAX (length, 1), first = o - position * inner;
      double sum = 0;
      for (gint64 k = 0; k < length; k++)
        sum += log ? gv[first + k * inner] : gv[first + k * inner] * yv[first + k * inner];
      g_autofree char *Z = scalars_input_label (b->record, b->out, o);
      g_autofree char *G = grad_label (b, g, o);
      g_autofree char *Y = scalars_input_label (b->record, y, o);
      double value = log ? gv[o] - exp (yv[o]) * sum : yv[o] * (gv[o] - sum);
      GString *num = g_string_new (NULL);
      if (log)
        {
          scalars_append_number (num, gv[o]);
          g_string_append_printf (num, " − exp(%.4g)·", yv[o]);
          scalars_append_number (num, sum);
        }
      else
        {
          scalars_append_number (num, yv[o]);
          g_string_append (num, "·(");
          scalars_append_number (num, gv[o]);
          g_string_append (num, " − ");
          scalars_append_number (num, sum);
          g_string_append (num, ")");
        }
      guint out = scalars_add_output (b, o, log ? "log_softmax′" : "softmax′",
                                      log ? g_strdup_printf ("%s = %s − exp(%s)·Σ g", Z, G, Y)
                                          : g_strdup_printf ("%s = %s·(%s − Σ g·y)", Z, Y, G),
                                      g_string_free (num, FALSE), value);
      for (gint64 k = 0; k < length; k++)
        {
          gint64 j = first + k * inner;
          g_autofree char *Gj = grad_label (b, g, j);
          g_autofree char *Yj = scalars_input_label (b->record, y, j);
          double by_g, by_y;
          char *g_text, *y_text;
          if (log)
            {
              by_g = (j == o) - exp (yv[o]);
              by_y = j == o ? -exp (yv[o]) * sum : 0;
              g_text = j == o ? g_strdup_printf ("1 − exp(%s)", Y) : g_strdup_printf ("−exp(%s)", Y);
              y_text = j == o ? g_strdup_printf ("−exp(%s)·Σ g", Y) : g_strdup ("0");
            }
          else
            {
              by_g = yv[o] * ((j == o) - yv[j]);
              by_y = (j == o ? gv[o] - sum : 0) - yv[o] * gv[j];
              g_text = j == o ? g_strdup_printf ("%s·(1 − %s)", Y, Y) : g_strdup_printf ("−%s·%s", Y, Yj);
              y_text = j == o ? g_strdup_printf ("%s − Σ g·y − %s·%s", G, Y, G)
                              : g_strdup_printf ("−%s·%s", Y, Gj);
            }
          scalars_add_edge (b, g_base + (guint) j, out, by_g, g_text);
          scalars_add_edge (b, y_base + (guint) j, out, by_y, y_text);
        }
    }
  return b->error == NULL;
}

gboolean
scalars_build_double_backward (Build *b)
{
  for (guint i = 0; i < G_N_ELEMENTS (activation_backwards); i++)
    if (strcmp (b->op->grad_fn, activation_backwards[i].grad_fn) == 0)
      return build_activation_backward (b, &activation_backwards[i]);
  for (guint i = 0; i < G_N_ELEMENTS (loss_backwards); i++)
    if (strcmp (b->op->grad_fn, loss_backwards[i].grad_fn) == 0)
      return build_loss_backward (b, i);
  return build_softmax_backward (b, strcmp (b->op->grad_fn, "LogSoftmaxBackwardDataBackward0") == 0);
}
