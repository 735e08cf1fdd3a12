/* test-op-table.c — the op table: every row present and in its place, PyTorch
 * 1.13's grad_fn names (checked with /usr/bin/python3: x.t().grad_fn.name()
 * etc.), readable texts, and elementwise local gradients that agree with the
 * backward formulas (grad_input = grad_output · local_grad, the chain rule the
 * step view displays). */
#include <math.h>
#include <string.h>

#include "cr-engine.h"
#include "cr-node.h"
#include "cr-op-table.h"
#include "cr-ops.h"
#include "cr-tensor.h"

static const struct {
  CrOpId      id;
  const char *grad_fn_name;
} expected_names[] = {
  { CR_OP_ACCUMULATE_GRAD, "AccumulateGrad" },
  { CR_OP_ADD, "AddBackward0" },
  { CR_OP_SUB, "SubBackward0" },
  { CR_OP_RSUB, "RsubBackward1" },
  { CR_OP_MUL, "MulBackward0" },
  { CR_OP_DIV, "DivBackward0" },
  { CR_OP_POW_SCALAR, "PowBackward0" },
  { CR_OP_POW, "PowBackward1" },
  { CR_OP_POW_NUMBER_BASE, "PowBackward2" },
  { CR_OP_NEG, "NegBackward0" },
  { CR_OP_EXP, "ExpBackward0" },
  { CR_OP_LOG, "LogBackward0" },
  { CR_OP_SIN, "SinBackward0" },
  { CR_OP_COS, "CosBackward0" },
  { CR_OP_TANH, "TanhBackward0" },
  { CR_OP_SIGMOID, "SigmoidBackward0" },
  { CR_OP_RELU, "ReluBackward0" },
  { CR_OP_SQRT, "SqrtBackward0" },
  { CR_OP_RSQRT, "RsqrtBackward0" },
  { CR_OP_ABS, "AbsBackward0" },
  { CR_OP_SIGN, "SignBackward0" },
  { CR_OP_RECIPROCAL, "ReciprocalBackward0" },
  { CR_OP_LOG1P, "Log1PBackward0" },
  { CR_OP_EXPM1, "Expm1Backward0" },
  { CR_OP_FLOOR, "FloorBackward0" },
  { CR_OP_CEIL, "CeilBackward0" },
  { CR_OP_ROUND, "RoundBackward0" },
  { CR_OP_TAN, "TanBackward0" },
  { CR_OP_ATAN, "AtanBackward0" },
  { CR_OP_ASIN, "AsinBackward0" },
  { CR_OP_ACOS, "AcosBackward0" },
  { CR_OP_SINH, "SinhBackward0" },
  { CR_OP_COSH, "CoshBackward0" },
  { CR_OP_ASINH, "AsinhBackward0" },
  { CR_OP_ACOSH, "AcoshBackward0" },
  { CR_OP_ATANH, "AtanhBackward0" },
  { CR_OP_ERF, "ErfBackward0" },
  { CR_OP_ERFC, "ErfcBackward0" },
  { CR_OP_EXP2, "Exp2Backward0" },
  { CR_OP_LOG10, "Log10Backward0" },
  { CR_OP_LOG2, "Log2Backward0" },
  { CR_OP_TRUNC, "TruncBackward0" },
  { CR_OP_FRAC, "FracBackward0" },
  { CR_OP_HARDSIGMOID, "HardsigmoidBackward0" },
  { CR_OP_HARDSWISH, "HardswishBackward0" },
  { CR_OP_MISH, "MishBackward0" },
  { CR_OP_LOG_SIGMOID, "LogSigmoidBackward0" },
  { CR_OP_ERFINV, "ErfinvBackward0" },
  { CR_OP_SGN, "SgnBackward0" },
  { CR_OP_DEG2RAD, "Deg2RadBackward0" },
  { CR_OP_RAD2DEG, "Rad2DegBackward0" },
  { CR_OP_SINC, "SincBackward0" },
  { CR_OP_HARDTANH, "HardtanhBackward0" },
  { CR_OP_CELU, "CeluBackward0" },
  { CR_OP_THRESHOLD, "ThresholdBackward0" },
  { CR_OP_HARDSHRINK, "HardshrinkBackward0" },
  { CR_OP_SOFTSHRINK, "SoftshrinkBackward0" },
  { CR_OP_LEAKY_RELU_, "LeakyReluBackward1" },
  { CR_OP_ELU_, "EluBackward1" },
  { CR_OP_CELU_, "CeluBackward1" },
  { CR_OP_THRESHOLD_, "ThresholdBackward1" },
  { CR_OP_CLAMP, "ClampBackward1" },
  { CR_OP_MAXIMUM, "MaximumBackward0" },
  { CR_OP_MINIMUM, "MinimumBackward0" },
  { CR_OP_MUL_SCALAR, "MulBackward1" },
  { CR_OP_DIV_SCALAR, "DivBackward1" },
  { CR_OP_MAXIMUM_SCALAR, "MaximumBackward0" },
  { CR_OP_MINIMUM_SCALAR, "MinimumBackward0" },
  { CR_OP_REMAINDER, "RemainderBackward1" },
  { CR_OP_REMAINDER_SCALAR, "RemainderBackward0" },
  { CR_OP_ATAN2, "Atan2Backward0" },
  { CR_OP_ATAN2_SCALAR, "Atan2Backward0" },
  { CR_OP_HYPOT, "HypotBackward0" },
  { CR_OP_HYPOT_SCALAR, "HypotBackward0" },
  { CR_OP_COPYSIGN, "CopysignBackward0" },
  { CR_OP_COPYSIGN_SCALAR, "CopysignBackward1" },
  { CR_OP_XLOGY, "XlogyBackward0" },
  { CR_OP_XLOGY_SCALAR, "XlogyBackward2" },
  { CR_OP_LOGADDEXP, "LogaddexpBackward0" },
  { CR_OP_LOGADDEXP_SCALAR, "LogaddexpBackward0" },
  { CR_OP_LOGADDEXP2, "Logaddexp2Backward0" },
  { CR_OP_LOGADDEXP2_SCALAR, "Logaddexp2Backward0" },
  { CR_OP_FMAX, "FmaxBackward0" },
  { CR_OP_FMAX_SCALAR, "FmaxBackward0" },
  { CR_OP_FMIN, "FminBackward0" },
  { CR_OP_FMIN_SCALAR, "FminBackward0" },
  { CR_OP_FMOD, "FmodBackward1" },
  { CR_OP_FMOD_SCALAR, "FmodBackward0" },
  { CR_OP_WHERE, "WhereBackward0" },
  { CR_OP_ADDCMUL, "AddcmulBackward0" },
  { CR_OP_ADDCDIV, "AddcdivBackward0" },
  { CR_OP_TANH_BACKWARD, "TanhBackwardBackward0" },
  { CR_OP_SIGMOID_BACKWARD, "SigmoidBackwardBackward0" },
  { CR_OP_THRESHOLD_BACKWARD, "ThresholdBackwardBackward0" },
  { CR_OP_LEAKY_RELU_BACKWARD, "LeakyReluBackwardBackward0" },
  { CR_OP_HARDTANH_BACKWARD, "HardtanhBackwardBackward0" },
  { CR_OP_HARDSHRINK_BACKWARD, "HardshrinkBackwardBackward0" },
  { CR_OP_SOFTSHRINK_BACKWARD, "SoftshrinkBackwardBackward0" },
  { CR_OP_ELU_BACKWARD, "EluBackwardBackward0" },
  { CR_OP_SOFTPLUS_BACKWARD, "SoftplusBackwardBackward0" },
  { CR_OP_GELU_BACKWARD, "GeluBackwardBackward0" },
  { CR_OP_LOG_SIGMOID_BACKWARD, "LogSigmoidBackwardBackward0" },
  { CR_OP_HARDSWISH_BACKWARD, "HardswishBackwardBackward0" },
  { CR_OP_MSE_LOSS_BACKWARD, "MseLossBackwardBackward0" },
  { CR_OP_SMOOTH_L1_LOSS_BACKWARD, "SmoothL1LossBackwardBackward0" },
  { CR_OP_HUBER_LOSS_BACKWARD, "HuberLossBackwardBackward0" },
  { CR_OP_NOT_IMPLEMENTED, "NotImplemented" },   /* name(): torch::autograd::NotImplemented */
  { CR_OP_SOFTMAX_BACKWARD_DATA, "SoftmaxBackwardDataBackward0" },
  { CR_OP_LOG_SOFTMAX_BACKWARD_DATA, "LogSoftmaxBackwardDataBackward0" },
  { CR_OP_SUM, "SumBackward0" },
  { CR_OP_SUM_DIM, "SumBackward1" },
  { CR_OP_MEAN, "MeanBackward0" },
  { CR_OP_MEAN_DIM, "MeanBackward1" },
  { CR_OP_PROD, "ProdBackward0" },
  { CR_OP_MAX_ALL, "MaxBackward1" },
  { CR_OP_MIN_ALL, "MinBackward1" },
  { CR_OP_MAX_DIM, "MaxBackward0" },
  { CR_OP_MIN_DIM, "MinBackward0" },
  { CR_OP_NORM, "NormBackward1" },          /* x.norm(), torch.norm(x) */
  { CR_OP_VAR, "VarBackward0" },            /* x.var(), torch.var(x, 1) */
  { CR_OP_STD, "StdBackward0" },
  { CR_OP_LOGSUMEXP, "LogsumexpBackward0" },
  { CR_OP_AMAX, "AmaxBackward0" },
  { CR_OP_AMIN, "AminBackward0" },
  { CR_OP_CUMSUM, "CumsumBackward0" },
  { CR_OP_CUMPROD, "CumprodBackward0" },
  { CR_OP_LOGCUMSUMEXP, "LogcumsumexpBackward0" },
  { CR_OP_CLAMP_TENSOR, "ClampBackward0" },
  { CR_OP_CLAMP_MIN_TENSOR, "ClampMinBackward1" },
  { CR_OP_CLAMP_MAX_TENSOR, "ClampMaxBackward1" },
  { CR_OP_CUMMAX, "CummaxBackward0" },
  { CR_OP_CUMMIN, "CumminBackward0" },
  { CR_OP_PACK_PADDED_SEQUENCE, "PackPaddedSequenceBackward0" },
  { CR_OP_LERP_SCALAR, "LerpBackward0" },
  { CR_OP_LERP, "LerpBackward1" },
  { CR_OP_NAN_TO_NUM, "NanToNumBackward0" },
  { CR_OP_UNFOLD, "UnfoldBackward0" },
  { CR_OP_PRELU, "PreluBackward0" },
  { CR_OP_LINALG_VECTOR_NORM, "LinalgVectorNormBackward0" },
  { CR_OP_LINALG_CROSS, "LinalgCrossBackward0" },
  { CR_OP_UPSAMPLE_NEAREST1D, "UpsampleNearest1DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST1D_BACKWARD, "UpsampleNearest1DBackwardBackward1" },
  { CR_OP_UPSAMPLE_NEAREST2D, "UpsampleNearest2DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST2D_BACKWARD, "UpsampleNearest2DBackwardBackward1" },
  { CR_OP_UPSAMPLE_NEAREST3D, "UpsampleNearest3DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST3D_BACKWARD, "UpsampleNearest3DBackwardBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT1D, "UpsampleNearestExact1DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT1D_BACKWARD, "UpsampleNearestExact1DBackwardBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT2D, "UpsampleNearestExact2DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT2D_BACKWARD, "UpsampleNearestExact2DBackwardBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT3D, "UpsampleNearestExact3DBackward1" },
  { CR_OP_UPSAMPLE_NEAREST_EXACT3D_BACKWARD, "UpsampleNearestExact3DBackwardBackward1" },
  { CR_OP_UPSAMPLE_LINEAR1D, "UpsampleLinear1DBackward1" },
  { CR_OP_UPSAMPLE_LINEAR1D_BACKWARD, "UpsampleLinear1DBackwardBackward1" },
  { CR_OP_UPSAMPLE_BILINEAR2D, "UpsampleBilinear2DBackward1" },
  { CR_OP_UPSAMPLE_BILINEAR2D_BACKWARD, "UpsampleBilinear2DBackwardBackward1" },
  { CR_OP_UPSAMPLE_TRILINEAR3D, "UpsampleTrilinear3DBackward1" },
  { CR_OP_UPSAMPLE_TRILINEAR3D_BACKWARD, "UpsampleTrilinear3DBackwardBackward1" },
  { CR_OP_XLOGY_NUMBER_SELF, "XlogyBackward1" },
  { CR_OP_MEDIAN_ALL, "MedianBackward0" },
  { CR_OP_MEDIAN_DIM, "MedianBackward1" },
  { CR_OP_KTHVALUE, "KthvalueBackward0" },
  { CR_OP_MODE, "ModeBackward0" },
  { CR_OP_GLU, "GluBackward0" },
  { CR_OP_LINALG_INV, "LinalgInvExBackward0" },
  { CR_OP_LINALG_DET, "LinalgDetBackward0" },
  { CR_OP_LINALG_SOLVE, "LinalgSolveExBackward0" },
  { CR_OP_IM2COL, "Im2ColBackward0" },
  { CR_OP_COL2IM, "Col2ImBackward0" },
  { CR_OP_LEAKY_RELU, "LeakyReluBackward0" },
  { CR_OP_ELU, "EluBackward0" },
  { CR_OP_SOFTPLUS, "SoftplusBackward0" },
  { CR_OP_SILU, "SiluBackward0" },
  { CR_OP_GELU, "GeluBackward0" },
  { CR_OP_SMOOTH_L1_LOSS, "SmoothL1LossBackward0" },
  { CR_OP_SPLIT, "SplitBackward0" },
  { CR_OP_SPLIT_WITH_SIZES, "SplitWithSizesBackward0" },
  { CR_OP_UNBIND, "UnbindBackward0" },
  { CR_OP_FLIP, "FlipBackward0" },
  { CR_OP_TRIU, "TriuBackward0" },
  { CR_OP_TRIL, "TrilBackward0" },
  { CR_OP_TRACE, "TraceBackward0" },
  { CR_OP_REPEAT, "RepeatBackward0" },
  { CR_OP_CLONE, "CloneBackward0" },
  { CR_OP_TO_COPY, "ToCopyBackward0" },
  { CR_OP_FILL, "FillBackward2" },          /* x.fill_(1) */
  { CR_OP_ZERO, "ZeroBackward0" },
  { CR_OP_COPY, "CopyBackwards" },          /* as printed: <CopyBackwards> */
  { CR_OP_T, "TBackward0" },
  { CR_OP_TRANSPOSE, "TransposeBackward0" },
  { CR_OP_PERMUTE, "PermuteBackward0" },
  { CR_OP_VIEW, "ViewBackward0" },
  { CR_OP_RESHAPE_ALIAS, "ReshapeAliasBackward0" },
  { CR_OP_UNSAFE_VIEW, "UnsafeViewBackward0" },
  { CR_OP_UNSQUEEZE, "UnsqueezeBackward0" },
  { CR_OP_SQUEEZE, "SqueezeBackward0" },
  { CR_OP_SQUEEZE_DIM, "SqueezeBackward1" },
  { CR_OP_SQUEEZE_INPLACE_DIM, "SqueezeBackward3" },
  { CR_OP_EXPAND, "ExpandBackward0" },
  { CR_OP_SELECT, "SelectBackward0" },
  { CR_OP_SLICE, "SliceBackward0" },
  { CR_OP_INDEX, "IndexBackward0" },
  { CR_OP_INDEX_PUT, "IndexPutBackward0" },
  { CR_OP_T_INPLACE, "TBackward1" },
  { CR_OP_UNSQUEEZE_INPLACE, "UnsqueezeBackward1" },
  { CR_OP_SQUEEZE_INPLACE, "SqueezeBackward2" },
  { CR_OP_GATHER, "GatherBackward0" },
  { CR_OP_INDEX_SELECT, "IndexSelectBackward0" },
  { CR_OP_DIAG, "DiagBackward0" },
  { CR_OP_SCATTER_ADD, "ScatterAddBackward0" },
  { CR_OP_INDEX_ADD, "IndexAddBackward0" },
  { CR_OP_COPY_SLICES, "CopySlices" },
  { CR_OP_MASKED_FILL, "MaskedFillBackward0" },
  { CR_OP_CAT, "CatBackward0" },
  { CR_OP_STACK, "StackBackward0" },
  { CR_OP_MM, "MmBackward0" },
  { CR_OP_ADDMM, "AddmmBackward0" },
  { CR_OP_MV, "MvBackward0" },
  { CR_OP_DOT, "DotBackward0" },
  { CR_OP_BMM, "BmmBackward0" },
  { CR_OP_ADDMV, "AddmvBackward0" },
  { CR_OP_ADDR, "AddrBackward0" },
  { CR_OP_BADDBMM, "BaddbmmBackward0" },
  { CR_OP_ADDBMM, "AddbmmBackward0" },
  { CR_OP_SOFTMAX, "SoftmaxBackward0" },
  { CR_OP_LOG_SOFTMAX, "LogSoftmaxBackward0" },
  { CR_OP_MSE_LOSS, "MseLossBackward0" },
  { CR_OP_BCE_WITH_LOGITS, "BinaryCrossEntropyWithLogitsBackward0" },
  { CR_OP_BCE, "BinaryCrossEntropyBackward0" },
  { CR_OP_NLL_LOSS, "NllLossBackward0" },
  { CR_OP_ALIAS, "AliasBackward0" },            /* x[...] */
  { CR_OP_AS_STRIDED, "AsStridedBackward0" },   /* z[0].add_(1): the view's new grad_fn */
  { CR_OP_NATIVE_LAYER_NORM, "NativeLayerNormBackward0" },
  { CR_OP_NATIVE_BATCH_NORM, "NativeBatchNormBackward0" },
  { CR_OP_NATIVE_GROUP_NORM, "NativeGroupNormBackward0" },
  { CR_OP_EMBEDDING, "EmbeddingBackward0" },
  { CR_OP_DIAGONAL, "DiagonalBackward0" },
  { CR_OP_CONSTANT_PAD_ND, "ConstantPadNdBackward0" },
  { CR_OP_REFLECTION_PAD1D, "ReflectionPad1DBackward0" },
  { CR_OP_REFLECTION_PAD2D, "ReflectionPad2DBackward0" },
  { CR_OP_REFLECTION_PAD3D, "ReflectionPad3DBackward0" },
  { CR_OP_REPLICATION_PAD1D, "ReplicationPad1DBackward0" },
  { CR_OP_REPLICATION_PAD2D, "ReplicationPad2DBackward0" },
  { CR_OP_REPLICATION_PAD3D, "ReplicationPad3DBackward0" },
  { CR_OP_CLAMP_MIN, "ClampMinBackward0" },
  { CR_OP_CLAMP_MAX, "ClampMaxBackward0" },
  { CR_OP_ADD_SCALAR, "AddBackward1" },
  { CR_OP_TRILINEAR, "TrilinearBackward0" },
  { CR_OP_INDEX_COPY, "IndexCopyBackward0" },
  { CR_OP_CDIST, "CdistBackward0" },
  { CR_OP_ROLL, "RollBackward0" },
  { CR_OP_CONVOLUTION, "ConvolutionBackward0" },
  { CR_OP_CONVOLUTION_WEIGHT, "ConvolutionBackwardBackward0" },
  { CR_OP_MAX_POOL2D, "MaxPool2DWithIndicesBackward0" },
  { CR_OP_MAX_POOL2D_BACKWARD, "MaxPool2DWithIndicesBackwardBackward0" },
  { CR_OP_ADAPTIVE_MAX_POOL2D, "AdaptiveMaxPool2DBackward0" },
  { CR_OP_AVG_POOL2D, "AvgPool2DBackward0" },
  { CR_OP_AVG_POOL2D_BACKWARD, "AvgPool2DBackwardBackward0" },
  { CR_OP_ADAPTIVE_AVG_POOL2D, "AdaptiveAvgPool2DBackward0" },
  { CR_OP_ADAPTIVE_AVG_POOL2D_BACKWARD, "AdaptiveAvgPool2DBackwardBackward0" },
  { CR_OP_HUBER_LOSS, "HuberLossBackward0" },
  { CR_OP_NLL_LOSS2D, "NllLoss2DBackward0" },
  { CR_OP_CONVOLUTION_INPUT, "ConvolutionBackwardBackward0" },
  { CR_OP_CIRCULAR_PAD, "CopySlices" },
  { CR_OP_PROD_DIM, "ProdBackward1" },
  { CR_OP_ADAPTIVE_MAX_POOL2D_BACKWARD, "AdaptiveMaxPool2DBackwardBackward0" },
  { CR_OP_CONVOLUTION_BIAS, "ConvolutionBackwardBackward0" },
  { CR_OP_SORT, "SortBackward0" },
  { CR_OP_TOPK, "TopkBackward0" },
  { CR_OP_SCATTER, "ScatterBackward0" },
  { CR_OP_SCATTER_VALUE, "ScatterBackward1" },
  { CR_OP_RSUB_TENSOR, "RsubBackward0" },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "NativeLayerNormBackwardBackward0" },
  { CR_OP_UNSAFE_SPLIT, "UnsafeSplitBackward0" },
  { CR_OP_MASKED_SELECT, "MaskedSelectBackward0" },
  { CR_OP_MASKED_SCATTER, "MaskedScatterBackward0" },
  { CR_OP_DIV_MODE, "DivBackward2" },
};

/* A binary row without PyTorch's .Scalar overload: its op(a, number) row
 * has the op(a, b) row's name (and is never recorded by a binding). */
static gboolean
is_scalar_twin (guint op)
{
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, ...) \
  if (op == CR_OP_##ID##_SCALAR && (scalar) == NULL)                                       \
    return TRUE;
#include "cr-binary-ops.def"
  return FALSE;
}

/* Names PyTorch gives the nodes of more than one of our rows. */
static gboolean
is_shared_name (const char *grad_fn_name)
{
  return strcmp (grad_fn_name, "ConvolutionBackwardBackward0") == 0
         || strcmp (grad_fn_name, "CopySlices") == 0;
}

static void
test_rows (void)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < CR_OP_COUNT; i++)
    {
      const CrOpInfo *row = cr_op_info (i);

      g_assert_nonnull (row);
      g_assert_cmpint (row->id, ==, i);
      g_assert_nonnull (row->name);
      g_assert_cmpstr (row->name, !=, "");
      g_assert_true (g_utf8_validate (row->symbol, -1, NULL));
      g_assert_cmpuint (g_utf8_strlen (row->symbol, -1), >=, 1);
      g_assert_cmpuint (g_utf8_strlen (row->symbol, -1), <=, 12);
      g_assert_true (g_utf8_validate (row->local_grad_text, -1, NULL));
      g_assert_cmpstr (row->local_grad_text, !=, "");
      g_assert_cmpint (row->arity, >=, -1);
      /* every op but the engine's own nodes has a backward formula */
      if (i != CR_OP_ACCUMULATE_GRAD && i != CR_OP_CUSTOM)
        g_assert_nonnull (row->backward);
      /* grad_fn names are unique but for PyTorch's shared ones */
      g_assert_true (is_shared_name (row->grad_fn_name) || is_scalar_twin (i)
                     || !g_hash_table_contains (names, row->grad_fn_name));
      g_hash_table_add (names, (gpointer) row->grad_fn_name);
    }
}

static void
test_grad_fn_names (void)
{
  /* every row but CUSTOM, whose name is the user's class */
  g_assert_cmpuint (G_N_ELEMENTS (expected_names), ==, CR_OP_COUNT - 1);
  for (guint i = 0; i < G_N_ELEMENTS (expected_names); i++)
    g_assert_cmpstr (cr_op_info (expected_names[i].id)->grad_fn_name, ==,
                     expected_names[i].grad_fn_name);
}

/* The elementwise ops of autograd/ and ops/cr-ops-{elementwise,inplace}.c say
 * their rule with a ∂ and have a tensor for it. */
static void
test_local_grad_rows (void)
{
  const CrOpId elementwise[] = {
    CR_OP_ADD, CR_OP_SUB, CR_OP_RSUB, CR_OP_MUL, CR_OP_DIV, CR_OP_POW_SCALAR, CR_OP_POW,
#define CR_UNARY_OP(ID, ...) CR_OP_##ID,
#include "cr-unary-ops.def"
#define CR_BINARY_OP(ID, ...) CR_OP_##ID, CR_OP_##ID##_SCALAR,
#include "cr-binary-ops.def"
    CR_OP_CLAMP, CR_OP_WHERE, CR_OP_TANH_BACKWARD,
    CR_OP_SIGMOID_BACKWARD, CR_OP_THRESHOLD_BACKWARD, CR_OP_LEAKY_RELU_BACKWARD,
    CR_OP_HARDTANH_BACKWARD, CR_OP_HARDSHRINK_BACKWARD, CR_OP_SOFTSHRINK_BACKWARD, CR_OP_CLONE, CR_OP_TO_COPY, CR_OP_FILL,
    CR_OP_ZERO, CR_OP_COPY,
  };

  for (guint i = 0; i < G_N_ELEMENTS (elementwise); i++)
    {
      const CrOpInfo *row = cr_op_info (elementwise[i]);

      g_assert_nonnull (row->local_grad);
      g_assert_nonnull (strstr (row->local_grad_text, "∂"));
    }
  g_assert_cmpint (cr_op_info (CR_OP_MUL)->arity, ==, 2);
  g_assert_cmpint (cr_op_info (CR_OP_RSUB)->arity, ==, 1);
  g_assert_cmpint (cr_op_info (CR_OP_POW_SCALAR)->arity, ==, 1);
  g_assert_cmpint (cr_op_info (CR_OP_EXP)->arity, ==, 1);
  g_assert_cmpint (cr_op_info (CR_OP_WHERE)->arity, ==, 2);
  g_assert_cmpint (cr_op_info (CR_OP_CUSTOM)->arity, ==, -1);
}

/* ---- local gradients agree with the backward formulas ------------------- */

typedef struct {
  guint n_checked;
} Checker;

static void
check_step (gpointer              user_data,
            const CrBackwardStep *step)
{
  Checker *checker = user_data;

  if (step->leaf != NULL || step->local_grads == NULL)
    return;
  for (guint i = 0; i < step->n_inputs; i++)
    {
      CrTensor *local = step->local_grads[i];
      CrTensor *sent = step->grad_inputs[i];
      CrTensor *incoming = step->grad_outputs[0];

      if (sent == NULL)
        continue;
      g_assert_nonnull (local);
      g_assert_cmpint (local->numel, ==, incoming->numel);
      for (gint64 k = 0; k < sent->numel; k++)
        {
          double expected = cr_tensor_get_flat (incoming, k) * cr_tensor_get_flat (local, k);
          double got = cr_tensor_get_flat (sent, k);

          if (fabs (expected - got) > 1e-12 * MAX (1.0, fabs (expected)))
            g_error ("%s input %u element %" G_GINT64_FORMAT ": grad_output·local = %.17g, "
                     "backward sent %.17g", cr_node_name (step->node), i, k, expected, got);
        }
      checker->n_checked++;
    }
}

static const CrBackwardObserver checker_observer = { check_step, NULL };

static CrTensor *
leaf (const double *values,
      gboolean      requires_grad)
{
  gint64 n = 4;
  CrTensor *t = cr_tensor_new_from_data (values, &n, 1, CR_DTYPE_FLOAT64, NULL);

  if (requires_grad)
    cr_tensor_set_requires_grad (t, TRUE, NULL);
  return t;
}

static CrTensor *
wrapped (double value)
{
  CrTensor *t = cr_tensor_new_scalar (value, CR_DTYPE_FLOAT64);

  t->is_wrapped_number = TRUE;
  return t;
}

static void
test_local_grads_match_backward (void)
{
  const double av[] = { 0.5, 1.25, 2.0, 0.8 }, bv[] = { 1.5, -0.75, 0.3, 2.5 };
  const double gv[] = { 0.3, -1.1, 2.0, 0.7 };
  const gboolean mask[] = { TRUE, FALSE, FALSE, TRUE };
  g_autoptr(CrTensor) a = leaf (av, TRUE);
  g_autoptr(CrTensor) b = leaf (bv, TRUE);
  g_autoptr(CrTensor) g = leaf (gv, FALSE);
  g_autoptr(CrTensor) two = wrapped (2.5);
  g_autoptr(CrTensor) cond = leaf ((const double[]) { 1, 0, 0, 1 }, FALSE);
  g_autoptr(CrTensor) cond_bool = cr_tensor_new_zeros ((const gint64[]) { 4 }, 1, CR_DTYPE_BOOL,
                                                       CR_DEVICE_CPU, NULL);
  Checker checker = { 0 };
  GPtrArray *outs = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  /* every row of cr-unary-ops.def, on inputs inside its domain */
  const CrOpId unary[] = {
#define CR_UNARY_OP(ID, ...) CR_OP_##ID,
#include "cr-unary-ops.def"
  };
  g_autoptr(CrTensor) a_half = leaf ((const double[]) { 0.125, -0.3, 0.5, 0.2 }, TRUE);
  g_autoptr(CrTensor) a_above = leaf ((const double[]) { 1.5, 2.25, 3.0, 1.8 }, TRUE);

  for (int i = 0; i < 4; i++)
    cr_tensor_set_flat (cond_bool, i, mask[i]);
  (void) cond;

  g_ptr_array_add (outs, cr_add (a, b, NULL));
  g_ptr_array_add (outs, cr_add_alpha (a, b, -3.0, NULL));
  g_ptr_array_add (outs, cr_sub (a, b, NULL));
  g_ptr_array_add (outs, cr_rsub_scalar (a, 4, NULL));
  g_ptr_array_add (outs, cr_mul (a, b, NULL));
  g_ptr_array_add (outs, cr_mul (a, two, NULL));
  g_ptr_array_add (outs, cr_div (a, b, NULL));
  g_ptr_array_add (outs, cr_pow_scalar (a, 2.5, NULL));
  g_ptr_array_add (outs, cr_pow (a, b, NULL));
  g_ptr_array_add (outs, cr_maximum (a, b, NULL));
  g_ptr_array_add (outs, cr_minimum (a, b, NULL));
  g_ptr_array_add (outs, cr_where (cond_bool, a, b, NULL));
  g_ptr_array_add (outs, cr_clamp (b, TRUE, 0, TRUE, 1, NULL));
  g_ptr_array_add (outs, cr_tanh_backward (a, b, NULL));
  g_ptr_array_add (outs, cr_sigmoid_backward (a, b, NULL));
  g_ptr_array_add (outs, cr_threshold_backward (a, b, NULL));
  g_ptr_array_add (outs, cr_leaky_relu_backward (a, b, 0.2, NULL));
  g_ptr_array_add (outs, cr_hardtanh_backward (a, b, -0.5, 1.0, NULL));
  g_ptr_array_add (outs, cr_shrink_backward (a, b, 0.5, FALSE, NULL));
  g_ptr_array_add (outs, cr_shrink_backward (a, b, 0.5, TRUE, NULL));
  g_ptr_array_add (outs, cr_threshold_backward_at (a, b, 0.7, NULL));
  g_ptr_array_add (outs, cr_clone (a, NULL));
  g_ptr_array_add (outs, cr_to_dtype (a, CR_DTYPE_FLOAT32, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (unary); i++)
    g_ptr_array_add (outs, cr_unary (unary[i],
                                     unary[i] == CR_OP_RELU || unary[i] == CR_OP_HARDSWISH ? b
                                     : unary[i] == CR_OP_ASIN || unary[i] == CR_OP_ACOS
                                       || unary[i] == CR_OP_ATANH || unary[i] == CR_OP_ERFINV ? a_half
                                     : unary[i] == CR_OP_ACOSH ? a_above : a, NULL));

  for (guint i = 0; i < outs->len; i++)
    {
      CrTensor *out = outs->pdata[i];
      g_autoptr(CrTensor) gi = cr_to_dtype (g, out->dtype, NULL);
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (out);
      cr_tensor_backward (out, gi, FALSE, FALSE, &checker_observer, &checker, &error);
      g_assert_no_error (error);
    }
  /* two inputs for 12 of the binary ops, one for the rest */
  g_assert_cmpuint (checker.n_checked, >=, outs->len + 11);
  g_ptr_array_unref (outs);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/op-table/rows", test_rows);
  g_test_add_func ("/core/op-table/grad-fn-names", test_grad_fn_names);
  g_test_add_func ("/core/op-table/local-grad-rows", test_local_grad_rows);
  g_test_add_func ("/core/op-table/local-grads-match-backward", test_local_grads_match_backward);

  return g_test_run ();
}
