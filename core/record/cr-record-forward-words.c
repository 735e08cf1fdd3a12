/* cr-record-forward-words.c — what each forward op does, in words a
 * student follows: one line of a table per grad_fn (or family), with the
 * Python number an op took in place of a tensor where the record kept it.
 * The ops whose meaning lies in their arguments (a pool's kernel, the dims
 * a reduction runs along) are cr-record-forward-special.c's; the rest of
 * the telling (names, the element worked out) cr-record-forward.c's. */
#include "cr-record-forward-private.h"

#include <math.h>
#include <string.h>

/* ---- the table ------------------------------------------------------------- */

#define UNARY(GRAD_FN, GLYPH, SAYS) \
  { GRAD_FN, CR_FORWARD_UNARY, GLYPH, GLYPH "({0})", SAYS, NULL }
#define OTHER(GRAD_FN, FORM, SAYS) \
  { GRAD_FN, CR_FORWARD_OTHER, NULL, FORM, SAYS, NULL }

static const CrForwardWords op_words[] = {
  { "AddBackward*", CR_FORWARD_BINARY, "+", "{0} + {1}", "adds {0} and {1}", "adds {n} to {0}" },
  { "SubBackward*", CR_FORWARD_BINARY, "-", "{0} - {1}", "subtracts {1} from {0}", "subtracts {n} from {0}" },
  { "RsubBackward*", CR_FORWARD_OTHER, NULL, "{n} - {0}", "subtracts {0} from {1}", "subtracts {0} from {n}" },
  { "MulBackward*", CR_FORWARD_BINARY, "×", "{0} * {1}", "multiplies {0} by {1}", "multiplies {0} by {n}" },
  { "DivBackward*", CR_FORWARD_BINARY, "/", "{0} / {1}", "divides {0} by {1}", "divides {0} by {n}" },
  { "PowBackward2", CR_FORWARD_OTHER, NULL, "{n} ** {0}", "raises {n} to the power {0}", NULL },
  { "PowBackward*", CR_FORWARD_OTHER, NULL, "{0} ** {1}", "raises {0} to the power {1}", "raises {0} to the power {n}" },
  { "NegBackward0", CR_FORWARD_UNARY, "-", "-{0}", "negates {0}", NULL },
  UNARY ("ReluBackward0", "relu", "keeps what is positive in {0} and sets the rest to 0"),
  UNARY ("TanhBackward0", "tanh", "squashes {0} into (-1, 1) with tanh"),
  { "SigmoidBackward0", CR_FORWARD_UNARY, "σ", "sigmoid({0})",
    "squashes {0} into (0, 1) with σ(x) = 1 / (1 + e^-x)", NULL },
  UNARY ("ExpBackward0", "exp", "raises e to the power of {0}"),
  UNARY ("LogBackward0", "log", "takes the natural logarithm of {0}"),
  UNARY ("SqrtBackward0", "sqrt", "takes the square root of {0}"),
  UNARY ("AbsBackward0", "abs", "takes the absolute value of {0}"),
  UNARY ("SinBackward0", "sin", "takes the sine of {0}"),
  UNARY ("CosBackward0", "cos", "takes the cosine of {0}"),
  UNARY ("TanBackward0", "tan", "takes the tangent of {0}"),
  UNARY ("AsinBackward0", "asin", "takes the arcsine of {0}: the angle whose sine it is"),
  UNARY ("AcosBackward0", "acos", "takes the arccosine of {0}: the angle whose cosine it is"),
  UNARY ("AtanBackward0", "atan", "takes the arctangent of {0}: the angle whose tangent it is"),
  UNARY ("SinhBackward0", "sinh", "takes the hyperbolic sine of {0}: (e^x − e^-x) / 2"),
  UNARY ("CoshBackward0", "cosh", "takes the hyperbolic cosine of {0}: (e^x + e^-x) / 2"),
  UNARY ("AsinhBackward0", "asinh", "takes the inverse hyperbolic sine of {0}"),
  UNARY ("AcoshBackward0", "acosh", "takes the inverse hyperbolic cosine of {0}"),
  UNARY ("AtanhBackward0", "atanh", "takes the inverse hyperbolic tangent of {0}"),
  UNARY ("ErfBackward0", "erf", "takes the error function of {0}: 2/√π ∫₀ˣ e^(−t²) dt"),
  UNARY ("ErfcBackward0", "erfc", "takes the complementary error function of {0}: 1 − erf(x)"),
  OTHER ("ErfinvBackward0", "erfinv({0})", "takes the inverse error function of {0}: the y with erf(y) = x"),
  UNARY ("Exp2Backward0", "exp2", "raises 2 to the power of {0}"),
  UNARY ("Expm1Backward0", "expm1", "computes e^x − 1 of {0}, exact for small x"),
  UNARY ("Log2Backward0", "log2", "takes the base-2 logarithm of {0}"),
  UNARY ("Log10Backward0", "log10", "takes the base-10 logarithm of {0}"),
  UNARY ("Log1PBackward0", "log1p", "computes log(1 + x) of {0}, exact for small x"),
  UNARY ("ReciprocalBackward0", "reciprocal", "takes 1 / x of each element of {0}"),
  UNARY ("RsqrtBackward0", "rsqrt", "takes 1 / √x of each element of {0}"),
  UNARY ("FloorBackward0", "floor", "rounds {0} down to a whole number (its gradient is 0)"),
  UNARY ("CeilBackward0", "ceil", "rounds {0} up to a whole number (its gradient is 0)"),
  UNARY ("RoundBackward0", "round", "rounds {0} to the nearest whole number, halves to even "
                                     "(its gradient is 0)"),
  UNARY ("TruncBackward0", "trunc", "drops the fraction of {0}, rounding toward 0 (its gradient is 0)"),
  UNARY ("FracBackward0", "frac", "keeps the fraction of {0}: x − trunc(x)"),
  UNARY ("SignBackward0", "sign", "gives the sign of {0}: -1, 0 or 1 (its gradient is 0)"),
  UNARY ("SgnBackward0", "sgn", "gives the sign of {0}: -1, 0 or 1 (its gradient is 0)"),
  UNARY ("Deg2RadBackward0", "deg2rad", "turns the degrees in {0} into radians: x · π/180"),
  UNARY ("Rad2DegBackward0", "rad2deg", "turns the radians in {0} into degrees: x · 180/π"),
  UNARY ("SincBackward0", "sinc", "computes sin(πx) / (πx) of {0} (1 at 0)"),
  UNARY ("SiluBackward0", "silu", "weights {0} by its own sigmoid: x · σ(x) (SiLU, swish)"),
  UNARY ("MishBackward0", "mish", "computes x · tanh(softplus(x)) of {0} (Mish)"),
  { "LogSigmoidBackward0", CR_FORWARD_UNARY, "logsigmoid", "logsigmoid({0})",
    "takes the log of the sigmoid of {0}: −log(1 + e^-x)", NULL },
  UNARY ("HardsigmoidBackward0", "hardsigmoid", "bends {0} into [0, 1] with straight lines: "
                                                 "x/6 + 1/2, clamped"),
  UNARY ("HardswishBackward0", "hardswish", "weights {0} by its hard sigmoid: x · clamp(x + 3, 0, 6) / 6"),
  OTHER ("Atan2Backward0", "atan2({0}, {1})", "takes the angle of the point ({1}, {0}) from the x axis: "
                                               "atan2(y, x) element by element"),
  OTHER ("HypotBackward0", "hypot({0}, {1})", "computes √(x² + y²) of {0} and {1}, element by element"),
  OTHER ("MaximumBackward0", "maximum({0}, {1})", "takes the larger of {0} and {1}, element by element"),
  OTHER ("MinimumBackward0", "minimum({0}, {1})", "takes the smaller of {0} and {1}, element by element"),
  OTHER ("FmaxBackward0", "fmax({0}, {1})", "takes the larger of {0} and {1}, element by element, "
                                             "ignoring NaN"),
  OTHER ("FminBackward0", "fmin({0}, {1})", "takes the smaller of {0} and {1}, element by element, "
                                             "ignoring NaN"),
  { "FmodBackward*", CR_FORWARD_OTHER, NULL, "fmod({0}, {1})",
    "takes the remainder of {0} divided by {1}, with {0}'s sign (C's fmod)",
    "takes the remainder of {0} divided by {n}, with {0}'s sign (C's fmod)" },
  { "RemainderBackward*", CR_FORWARD_OTHER, NULL, "{0} % {1}",
    "takes the remainder of {0} divided by {1}, with {1}'s sign (Python's %)",
    "takes the remainder of {0} divided by {n}, with the sign of {n} (Python's %)" },
  { "CopysignBackward*", CR_FORWARD_OTHER, NULL, "copysign({0}, {1})",
    "takes the size of {0} with the sign of {1}, element by element",
    "takes the size of {0} with the sign of {n}" },
  { "XlogyBackward1", CR_FORWARD_OTHER, NULL, "xlogy({n}, {0})",
    "computes a number times log({0})", "computes {n} · log({0})" },
  { "XlogyBackward*", CR_FORWARD_OTHER, NULL, "xlogy({0}, {1})",
    "computes x · log(y) of {0} and {1}, 0 where x is 0", "computes x · log({n}) of {0}, 0 where x is 0" },
  OTHER ("LogaddexpBackward0", "logaddexp({0}, {1})", "computes log(e^x + e^y) of {0} and {1} without "
                                                       "overflowing"),
  OTHER ("Logaddexp2Backward0", "logaddexp2({0}, {1})", "computes log₂(2^x + 2^y) of {0} and {1} without "
                                                         "overflowing"),
  { "SumBackward0", CR_FORWARD_SUM, NULL, "{0}.sum()", "adds up all the elements of {0}", NULL },
  { "MeanBackward0", CR_FORWARD_MEAN, NULL, "{0}.mean()", "averages all the elements of {0}", NULL },
  { "MmBackward0", CR_FORWARD_MATMUL, NULL, "{0} @ {1}",
    "multiplies the matrices {0} and {1}: each element is a row of {0} times a column of {1}, summed", NULL },
  OTHER ("MvBackward0", "{0} @ {1}", "multiplies the matrix {0} by the vector {1}"),
  OTHER ("DotBackward0", "{0} @ {1}", "multiplies {0} and {1} element by element and adds up"),
  OTHER ("BmmBackward0", "{0} @ {1}", "multiplies the matrices of {0} and {1}, batch by batch"),
  OTHER ("AddmmBackward0", "{0} + {1} @ {2}", "multiplies {1} by the matrix {2} and adds {0}: "
                                               "a linear layer's output"),
  OTHER ("TBackward*", "{0}.t()", "transposes {0} (rows become columns)"),
  OTHER ("ViewBackward0", "{0}.view()", "reshapes {0} (the same numbers)"),
  OTHER ("ReshapeAliasBackward0", "{0}.reshape()", "reshapes {0} (the same numbers)"),
  OTHER ("UnsafeViewBackward0", "{0}.reshape()", "reshapes {0} (the same numbers)"),
  OTHER ("AliasBackward0", "{0}", "passes {0} on unchanged (an alias of it)"),
  OTHER ("ContiguousBackward0", "{0}.contiguous()", "copies {0} into memory laid out row by row "
                                                     "(the same numbers)"),
  OTHER ("ExpandBackward0", "{0}.expand()", "repeats {0} along dims of size 1 (broadcast)"),
  OTHER ("SqueezeBackward*", "{0}.squeeze()", "removes dims of size 1 from {0}"),
  OTHER ("IndexBackward0", "{0}[index]", "picks elements of {0} by index"),
  OTHER ("CloneBackward0", "{0}.clone()", "copies {0}"),
  OTHER ("MaskedFillBackward*", "{0}.masked_fill(mask, value)", "fills {0} where the mask is True"),
  OTHER ("MaskedSelectBackward0", "{0}[mask]", "picks the elements of {0} where the mask is True, "
                                                "in order, as one row"),
  OTHER ("MaskedScatterBackward0", "{0}.masked_scatter(mask, {1})",
         "copies {0} and fills the places where the mask is True with {1}'s elements, in order"),
  OTHER ("IndexPutBackward0", "{0}[index] = {1}", "copies {0} and puts {1} at the places the index picks"),
  OTHER ("SoftmaxBackward0", "softmax({0})", "turns {0} into probabilities: e^x / Σ e^x"),
  OTHER ("LogSoftmaxBackward0", "log_softmax({0})", "takes the log of the softmax of {0}"),
  OTHER ("NllLossBackward0", "nll_loss({0}, target)",
         "picks each row's log-probability at its target, negates and averages them"),
  OTHER ("BinaryCrossEntropyBackward0", "binary_cross_entropy({0}, {1})",
         "the binary cross-entropy of the probabilities {0} against {1}"),
  OTHER ("BinaryCrossEntropyWithLogitsBackward0", "binary_cross_entropy_with_logits({0}, {1})",
         "the binary cross-entropy of σ({0}) against {1}"),
  OTHER ("DiagonalBackward0", "{0}.diagonal()", "takes the diagonal of {0}: the elements [i, i]"),
  OTHER ("TraceBackward0", "{0}.trace()", "adds up the diagonal of {0}: Σ x[i, i]"),
  OTHER ("AsStridedBackward0", "{0}.as_strided()", "reads {0}'s memory through sizes and strides of "
                                                   "its own (a view)"),
  OTHER ("CopySlices", "{0}[…] = …", "writes the result of an in-place op on a view back into "
                                      "the tensor it views, {0}"),
  OTHER ("CopyBackwards", "{0}.copy_({1})", "copies {1}'s values into {0}"),
  OTHER ("TrilinearBackward0", "bilinear({0}, {1}, {2})",
         "an nn.Bilinear's form: each output is Σ x1[i] · W[o, i, j] · x2[j] of {0}, the weight {1} "
         "and {2}"),
  OTHER ("NanToNumBackward0", "{0}.nan_to_num()", "copies {0} with each NaN and infinity replaced by a "
                                                   "finite number (0 and the dtype's largest by default)"),
  OTHER ("ZeroBackward0", "{0}.zero_()", "sets every element of {0} to 0"),
  OTHER ("FillBackward*", "{0}.fill_(value)", "sets every element of {0} to one value"),
  OTHER ("PackPaddedSequenceBackward0", "pack_padded_sequence({0})",
         "packs the padded sequences of {0} time step by time step, leaving out the padding"),
  OTHER ("LinalgInvExBackward0", "inv({0})", "inverts the matrix {0}: the A⁻¹ with A A⁻¹ = I"),
  OTHER ("LinalgDetBackward0", "det({0})", "takes the determinant of the matrix {0}: how much it "
                                           "scales volumes"),
  OTHER ("LinalgSolveExBackward0", "solve({0}, {1})", "solves {0} X = {1} for X: A⁻¹B without "
                                                      "forming A⁻¹"),
  OTHER ("Im2ColBackward0", "unfold({0})", "cuts {0} into the blocks a convolution's kernel sees, "
                                         "each block a column"),
  OTHER ("Col2ImBackward0", "fold({0})", "adds the columns of {0} back into an image, block by "
                                         "block, summing where blocks overlap"),
  OTHER ("GluBackward0", "glu({0})", "splits {0} in two halves a and b along a dim and lets σ(b) "
                                     "gate a: a · σ(b)"),
  OTHER ("MedianBackward0", "{0}.median()", "takes the middle value of {0}, the lower of the two "
                                            "middle ones for an even count (ties share the gradient)"),
  OTHER ("MedianBackward1", "{0}.median(dim)", "takes the middle value of each slice of {0} along a "
                                               "dim, with its index"),
  OTHER ("KthvalueBackward0", "{0}.kthvalue(k)", "takes the k-th smallest value of each slice of {0} "
                                                 "along a dim, with its index"),
  OTHER ("ModeBackward0", "{0}.mode(dim)", "takes the most frequent value of each slice of {0} along "
                                           "a dim (the smallest of a tie), with its index"),
};

gboolean
cr_forward_words_match (const char *pattern,
             const char *grad_fn)
{
  gsize n = strlen (pattern);
  if (n > 0 && pattern[n - 1] == '*')
    return strncmp (pattern, grad_fn, n - 1) == 0;
  return strcmp (pattern, grad_fn) == 0;
}

const CrForwardWords *
cr_forward_words_for (const CrRecordOp *op)
{
  if (!op->grad_fn || op->custom_function)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (op_words); i++)
    if (cr_forward_words_match (op_words[i].grad_fn, op->grad_fn))
      return &op_words[i];
  return NULL;
}

double
cr_forward_apply_unary (const char *glyph,
                        double      x)
{
  static const struct { const char *glyph; double (*f) (double); } functions[] = {
    { "tanh", tanh }, { "exp", exp }, { "log", log }, { "sqrt", sqrt }, { "abs", fabs },
    { "sin", sin }, { "cos", cos }, { "tan", tan }, { "asin", asin }, { "acos", acos },
    { "atan", atan }, { "sinh", sinh }, { "cosh", cosh }, { "asinh", asinh },
    { "acosh", acosh }, { "atanh", atanh }, { "erf", erf }, { "erfc", erfc },
    { "exp2", exp2 }, { "expm1", expm1 }, { "log2", log2 }, { "log10", log10 },
    { "log1p", log1p }, { "floor", floor }, { "ceil", ceil }, { "round", nearbyint },
    { "trunc", trunc },
  };
  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    if (strcmp (glyph, functions[i].glyph) == 0)
      return functions[i].f (x);
  double sigmoid = 1 / (1 + exp (-x));
  if (strcmp (glyph, "-") == 0) return -x;
  if (strcmp (glyph, "relu") == 0) return x > 0 ? x : 0;
  if (strcmp (glyph, "σ") == 0) return sigmoid;
  if (strcmp (glyph, "reciprocal") == 0) return 1 / x;
  if (strcmp (glyph, "rsqrt") == 0) return 1 / sqrt (x);
  if (strcmp (glyph, "frac") == 0) return x - trunc (x);
  if (strcmp (glyph, "sign") == 0 || strcmp (glyph, "sgn") == 0) return (x > 0) - (x < 0);
  if (strcmp (glyph, "deg2rad") == 0) return x * G_PI / 180;
  if (strcmp (glyph, "rad2deg") == 0) return x * 180 / G_PI;
  if (strcmp (glyph, "sinc") == 0) return x == 0 ? 1 : sin (G_PI * x) / (G_PI * x);
  if (strcmp (glyph, "silu") == 0) return x * sigmoid;
  if (strcmp (glyph, "mish") == 0) return x * tanh (log1p (exp (x)));
  if (strcmp (glyph, "logsigmoid") == 0) return log (sigmoid);
  if (strcmp (glyph, "hardsigmoid") == 0) return CLAMP (x / 6 + 0.5, 0, 1);
  if (strcmp (glyph, "hardswish") == 0) return x * CLAMP (x + 3, 0, 6) / 6;
  return NAN;
}

/* ---- numbers ------------------------------------------------------------------ */

char *
cr_forward_number_string (double v)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  g_ascii_formatd (buffer, sizeof buffer, "%.4g", v == 0 ? 0.0 : v);
  return g_strdup (buffer);
}

gboolean
cr_forward_number (const CrRecordOp *op,
                   double           *value)
{
  const CrRecordArgument *number = cr_record_op_argument (op, "number");
  if (number && number->n_values > 0)
    {
      *value = number->values[0];
      return TRUE;
    }
  /* Records from before the record kept "number": mul's and div's
   * saved other, pow's exponent. */
  for (guint i = 0; op->saved && i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor < 0 && g_strcmp0 (saved->name, "other") == 0 && saved->value
          && saved->value->numel == 1 && saved->value->n_values == 1)
        {
          *value = saved->value->values[0];
          return TRUE;
        }
    }
  const CrRecordArgument *exponent = cr_record_op_argument (op, "exponent");
  if (exponent && exponent->n_values > 0 && g_strcmp0 (op->grad_fn, "PowBackward0") == 0)
    {
      *value = exponent->values[0];
      return TRUE;
    }
  return FALSE;
}

char *
cr_forward_number_text (const CrRecordOp *op)
{
  double value;
  return cr_forward_number (op, &value) ? cr_forward_number_string (value) : NULL;
}
