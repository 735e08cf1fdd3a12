/* cr-torch-saved.c — grad_fn._saved_self and its kind: what a node saved
 * for backward, under PyTorch 1.13's attribute names (MulBackward0's
 * _saved_self / _saved_other, ExpBackward0's _saved_result, SumBackward1's
 * _saved_dim, ConvolutionBackward0's _saved_stride, ...). A slot the op did
 * not need is None, as in PyTorch; one a backward freed is PyTorch's
 * "Trying to backward through the graph a second time" error.
 *
 * Dims show wrapped: cat([x, x], dim=-1) on a 2-d x gives _saved_dim 1.
 * PyTorch 1.13 keeps the negative dim as given and shows it as an unsigned
 * 64-bit number, 2**64 + dim (18446744073709551615 for -1, and in tuples too:
 * SumBackward1's (18446744073709551615,)); Chainrule's ints are 64-bit and
 * signed, so no int here holds that, and the wrapped dim, which is what the
 * backward uses, is shown instead. A dim given non-negative shows as in
 * PyTorch. */
#include "cr-torch-private.h"
#include "cr-node.h"
#include "cr-ops-conv.h"

#include <string.h>

/* Where a saved value lives in the node. */
typedef enum {
  SAVED_TENSOR,        /* a saved tensor's slot (arg) */
  SAVED_SCALAR,        /* args->scalar[arg] as a Scalar (2, or 2.5) */
  SAVED_NUMBER,        /* args->scalar[arg] as the script gave it (scalar_int_mask): 1 or 1.0 */
  SAVED_DOUBLE,        /* args->scalar[arg] as a double (2.0) */
  SAVED_SCALAR_OR_ONE, /* args->scalar[arg], 1 when not set (addmm's beta, alpha) */
  SAVED_SCALAR_OR_NONE,/* args->scalar[arg], None when not set (clamp's bounds) */
  SAVED_INT,           /* args->ints[arg] (a reduction: 0 none, 1 mean, 2 sum) */
  SAVED_BOOL,          /* args->ints[arg] as a bool */
  SAVED_INPUT_DIM,     /* input 0's size along dim arg (group norm's N, C) */
  SAVED_INPUT_HXW,     /* input 0's elements per sample and channel (group norm's HxW) */
  SAVED_TRAILING_SIZES,/* input 0's last args->ints[0] sizes (layer norm's normalized_shape) */
  SAVED_DIMS,          /* args->dims as a tuple; () for all dims */
  SAVED_DIMS_OR_NONE,  /* the same, None unless args->ints[0] says dims were given */
  SAVED_DIM,           /* args->dims[arg] as an int */
  SAVED_KEEPDIM,       /* args->keepdim */
  SAVED_INPUT_SIZES,   /* input arg's sizes as a tuple */
  SAVED_INPUT_NUMEL,   /* input 0's element count */
  SAVED_CONV,          /* the convolution's geometry: arg is a ConvField */
  SAVED_PADS,          /* args->dims[0 .. args->ints[0]) as a tuple (a pad's sizes) */
  SAVED_INDEX_IF_SET,  /* args->ints[arg]; no such attribute when negative (embedding's
                        * padding_idx: PyTorch shows none as 2**64 - 1, which no
                        * 64-bit int holds) */
  SAVED_DIMS_PAIR,     /* (args->dims[arg], args->dims[arg + 1]) (a pool's kernel) */
  SAVED_INPUT_SIZE_AT, /* input arg / 16's size along dim arg % 16 (addbmm's
                        * batch1_argsize_0) */
  SAVED_OUTPUT_SIZE_IF_GIVEN, /* args->dims[0 .. n_dims) when args->ints[0] says the
                        * size was given, None else (upsampling's output_size) */
  SAVED_SCALES_IF_GIVEN, /* args->scalar[0 .. n_dims) as floats when given, None else
                        * (upsampling's scale_factors) */
  SAVED_ROLL_SHIFTS,   /* roll's shift of every dim (args->dims), or (args->ints[1],)
                        * when it rolled as if flattened (cr-ops-roll.c) */
} SavedKind;

typedef enum {
  CONV_STRIDE,
  CONV_PADDING,
  CONV_DILATION,
  CONV_OUTPUT_PADDING,
  CONV_GROUPS,
  CONV_TRANSPOSED,
  CONV_BIAS_SIZES,
} ConvField;

typedef struct {
  CrOpId      op;
  const char *name;    /* without the _saved_ prefix */
  int         slot;    /* a saved tensor's slot; -1: args->scalar[0] */
  SavedKind   kind;    /* SAVED_TENSOR (0) unless given */
} SavedName;

#define CONV_ROWS(OP)                                                                  \
  { OP, "input", 0, SAVED_TENSOR }, { OP, "weight", 1, SAVED_TENSOR },                   \
  { OP, "stride", CONV_STRIDE, SAVED_CONV }, { OP, "padding", CONV_PADDING, SAVED_CONV }, \
  { OP, "dilation", CONV_DILATION, SAVED_CONV },                                         \
  { OP, "output_padding", CONV_OUTPUT_PADDING, SAVED_CONV },                             \
  { OP, "groups", CONV_GROUPS, SAVED_CONV }, { OP, "transposed", CONV_TRANSPOSED, SAVED_CONV }, \
  { OP, "bias_sym_sizes_opt", CONV_BIAS_SIZES, SAVED_CONV }

#define PAD_ROWS(OP) \
  { OP, "self", 1, SAVED_TENSOR }, { OP, "padding", 0, SAVED_PADS }

#define DIMS_KEEPDIM(OP, DIMS_KIND) \
  { OP, "dim", 0, DIMS_KIND }, { OP, "keepdim", 0, SAVED_KEEPDIM }

#define UPSAMPLE_ROWS(OP) \
  { OP, "input_sym_sizes", 0, SAVED_INPUT_SIZES }, { OP, "output_size", 0, SAVED_OUTPUT_SIZE_IF_GIVEN }, \
  { OP, "scale_factors", 0, SAVED_SCALES_IF_GIVEN }, \
  { OP##_BACKWARD, "output_size", 0, SAVED_OUTPUT_SIZE_IF_GIVEN }, \
  { OP##_BACKWARD, "scale_factors", 0, SAVED_SCALES_IF_GIVEN }

#define UPSAMPLE_ALIGN(OP) \
  { OP, "align_corners", 1, SAVED_BOOL }, { OP##_BACKWARD, "align_corners", 1, SAVED_BOOL }

static const SavedName saved_names[] = {
  { CR_OP_MUL, "self", 0 }, { CR_OP_MUL, "other", 1 },
  { CR_OP_DIV, "self", 0 }, { CR_OP_DIV, "other", 1 },
  { CR_OP_MAXIMUM, "self", 0 }, { CR_OP_MAXIMUM, "other", 1 },
  { CR_OP_MINIMUM, "self", 0 }, { CR_OP_MINIMUM, "other", 1 },
  { CR_OP_WHERE, "condition", 0 },
  { CR_OP_POW_SCALAR, "self", 0 }, { CR_OP_POW_SCALAR, "exponent", -1 },
  { CR_OP_POW, "self", 0 }, { CR_OP_POW, "exponent", 1 }, { CR_OP_POW, "result", 2 },
  { CR_OP_MM, "self", 0 }, { CR_OP_MM, "mat2", 1 },
  { CR_OP_BMM, "self", 0 }, { CR_OP_BMM, "mat2", 1 },
  { CR_OP_MV, "self", 0 }, { CR_OP_MV, "vec", 1 },
  { CR_OP_DOT, "self", 0 }, { CR_OP_DOT, "tensor", 1 },
  { CR_OP_ADDMM, "mat1", 0 }, { CR_OP_ADDMM, "mat2", 1 },
  { CR_OP_ADDCMUL, "tensor1", 0 }, { CR_OP_ADDCMUL, "tensor2", 1 },
  { CR_OP_ADDCMUL, "value", 2 },
  { CR_OP_ADDCDIV, "tensor1", 0 }, { CR_OP_ADDCDIV, "tensor2", 1 },
  { CR_OP_ADDCDIV, "value", 2 },
  /* add/sub's alpha, a Scalar: 1 unless given. */
  { CR_OP_ADD, "alpha", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_SUB, "alpha", 0, SAVED_SCALAR_OR_ONE },
  { CR_OP_RSUB, "alpha", 1, SAVED_SCALAR_OR_ONE },  /* rsub(number, x): alpha is always 1 here */
  { CR_OP_RSUB_TENSOR, "alpha", 0, SAVED_SCALAR_OR_ONE },
  { CR_OP_ADDMM, "beta", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_ADDMM, "alpha", 1, SAVED_SCALAR_OR_ONE },
  { CR_OP_ADDMM, "mat1_sym_sizes", 1, SAVED_INPUT_SIZES },
  { CR_OP_ADDMM, "mat2_sym_sizes", 2, SAVED_INPUT_SIZES },
  { CR_OP_ADDMV, "mat", 0 }, { CR_OP_ADDMV, "vec", 1 },
  { CR_OP_ADDMV, "beta", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_ADDMV, "alpha", 1, SAVED_SCALAR_OR_ONE },
  { CR_OP_ADDR, "vec1", 0 }, { CR_OP_ADDR, "vec2", 1 },
  { CR_OP_ADDR, "beta", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_ADDR, "alpha", 1, SAVED_SCALAR_OR_ONE },
  { CR_OP_BADDBMM, "batch1", 0 }, { CR_OP_BADDBMM, "batch2", 1 },
  { CR_OP_BADDBMM, "beta", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_BADDBMM, "alpha", 1, SAVED_SCALAR_OR_ONE },
  { CR_OP_ADDBMM, "batch1", 0 }, { CR_OP_ADDBMM, "batch2", 1 },
  { CR_OP_ADDBMM, "beta", 0, SAVED_SCALAR_OR_ONE }, { CR_OP_ADDBMM, "alpha", 1, SAVED_SCALAR_OR_ONE },
  { CR_OP_ADDBMM, "batch1_argsize_0", 1 * 16 + 0, SAVED_INPUT_SIZE_AT },
  { CR_OP_ADDBMM, "batch1_argsize_1", 1 * 16 + 1, SAVED_INPUT_SIZE_AT },
  { CR_OP_ADDBMM, "batch2_argsize_2", 2 * 16 + 2, SAVED_INPUT_SIZE_AT },
  /* Reductions. */
  { CR_OP_SUM, "self_sym_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_SUM_DIM, "self_sym_sizes", 0, SAVED_INPUT_SIZES }, DIMS_KEEPDIM (CR_OP_SUM_DIM, SAVED_DIMS),
  { CR_OP_MEAN, "self_sizes", 0, SAVED_INPUT_SIZES }, { CR_OP_MEAN, "self_numel", 0, SAVED_INPUT_NUMEL },
  { CR_OP_MEAN_DIM, "self", 0 }, { CR_OP_MEAN_DIM, "self_sym_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_MEAN_DIM, SAVED_DIMS),
  { CR_OP_PROD, "self", 0 }, { CR_OP_PROD, "result", 1 },
  { CR_OP_PROD_DIM, "self", 0 }, { CR_OP_PROD_DIM, "result", 1 },
  { CR_OP_PROD_DIM, "dim", 0, SAVED_DIM }, { CR_OP_PROD_DIM, "keepdim", 0, SAVED_KEEPDIM },
  { CR_OP_MAX_ALL, "self", 0 }, { CR_OP_MAX_ALL, "result", 1 },
  { CR_OP_MIN_ALL, "self", 0 }, { CR_OP_MIN_ALL, "result", 1 },
  { CR_OP_MAX_DIM, "indices", 0 }, { CR_OP_MAX_DIM, "self_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_MAX_DIM, SAVED_DIM),
  { CR_OP_MIN_DIM, "indices", 0 }, { CR_OP_MIN_DIM, "self_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_MIN_DIM, SAVED_DIM),
  { CR_OP_MEDIAN_ALL, "self", 0 }, { CR_OP_MEDIAN_ALL, "result", 1 },
  { CR_OP_MEDIAN_DIM, "indices", 0 }, { CR_OP_MEDIAN_DIM, "self_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_MEDIAN_DIM, SAVED_DIM),
  { CR_OP_KTHVALUE, "indices", 0 }, { CR_OP_KTHVALUE, "self_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_KTHVALUE, SAVED_DIM),
  { CR_OP_GLU, "self", 0 }, { CR_OP_GLU, "dim", 0, SAVED_DIM },
  { CR_OP_LINALG_INV, "inverse", 0 },
  { CR_OP_LINALG_DET, "A", 0 }, { CR_OP_LINALG_DET, "result", 1 },
  { CR_OP_LINALG_SOLVE, "A", 0 }, { CR_OP_LINALG_SOLVE, "result", 1 },
  { CR_OP_MODE, "indices", 0 }, { CR_OP_MODE, "self_sizes", 0, SAVED_INPUT_SIZES },
  DIMS_KEEPDIM (CR_OP_MODE, SAVED_DIM),
  { CR_OP_SORT, "indices", 1 }, { CR_OP_SORT, "dim", 0, SAVED_DIM },
  { CR_OP_SORT, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_TOPK, "indices", 1 }, { CR_OP_TOPK, "dim", 0, SAVED_DIM },
  { CR_OP_TOPK, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_AMAX, "self", 0 }, { CR_OP_AMAX, "result", 1 }, DIMS_KEEPDIM (CR_OP_AMAX, SAVED_DIMS),
  { CR_OP_AMIN, "self", 0 }, { CR_OP_AMIN, "result", 1 }, DIMS_KEEPDIM (CR_OP_AMIN, SAVED_DIMS),
  { CR_OP_VAR, "self", 0 }, { CR_OP_VAR, "correction", 0, SAVED_SCALAR_OR_NONE },
  DIMS_KEEPDIM (CR_OP_VAR, SAVED_DIMS_OR_NONE),
  { CR_OP_STD, "self", 0 }, { CR_OP_STD, "result", 1 }, { CR_OP_STD, "correction", 0, SAVED_SCALAR_OR_NONE },
  DIMS_KEEPDIM (CR_OP_STD, SAVED_DIMS_OR_NONE),
  { CR_OP_LOGSUMEXP, "self", 0 }, { CR_OP_LOGSUMEXP, "result", 1 },
  DIMS_KEEPDIM (CR_OP_LOGSUMEXP, SAVED_DIMS),
  { CR_OP_NORM, "self", 0 }, { CR_OP_NORM, "result", 1 }, { CR_OP_NORM, "p", 0, SAVED_SCALAR },
  DIMS_KEEPDIM (CR_OP_NORM, SAVED_DIMS),
  { CR_OP_CUMSUM, "dim", 0, SAVED_DIM },
  { CR_OP_LINALG_CROSS, "self", 0 }, { CR_OP_LINALG_CROSS, "other", 1 },
  { CR_OP_LINALG_CROSS, "dim", 0, SAVED_DIM },
  /* F.interpolate's ops and, under create_graph, their backwards. */
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST1D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST2D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST3D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST_EXACT1D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST_EXACT2D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_NEAREST_EXACT3D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_LINEAR1D), UPSAMPLE_ALIGN (CR_OP_UPSAMPLE_LINEAR1D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_BILINEAR2D), UPSAMPLE_ALIGN (CR_OP_UPSAMPLE_BILINEAR2D),
  UPSAMPLE_ROWS (CR_OP_UPSAMPLE_TRILINEAR3D), UPSAMPLE_ALIGN (CR_OP_UPSAMPLE_TRILINEAR3D),
  { CR_OP_LINALG_VECTOR_NORM, "self", 0 }, { CR_OP_LINALG_VECTOR_NORM, "result", 1 },
  { CR_OP_LINALG_VECTOR_NORM, "ord", 0, SAVED_NUMBER },
  DIMS_KEEPDIM (CR_OP_LINALG_VECTOR_NORM, SAVED_DIMS_OR_NONE),
  { CR_OP_LOGCUMSUMEXP, "self", 0 }, { CR_OP_LOGCUMSUMEXP, "result", 1 },
  { CR_OP_LOGCUMSUMEXP, "dim", 0, SAVED_DIM },
  { CR_OP_CUMPROD, "self", 0 }, { CR_OP_CUMPROD, "result", 1 }, { CR_OP_CUMPROD, "dim", 0, SAVED_DIM },
  { CR_OP_SOFTMAX, "result", 0 }, { CR_OP_SOFTMAX, "dim", 0, SAVED_DIM },
  { CR_OP_LOG_SOFTMAX, "result", 0 }, { CR_OP_LOG_SOFTMAX, "dim", 0, SAVED_DIM },
  /* Convolutions (the input gradient of one shows as ConvolutionBackwardBackward0). */
  CONV_ROWS (CR_OP_CONVOLUTION),
  /* Shapes. */
  { CR_OP_VIEW, "self_sym_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_RESHAPE_ALIAS, "self_sym_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_EXPAND, "self_sym_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_PERMUTE, "dims", 0, SAVED_DIMS },
  { CR_OP_TRANSPOSE, "dim0", 0, SAVED_DIM }, { CR_OP_TRANSPOSE, "dim1", 1, SAVED_DIM },
  { CR_OP_UNSQUEEZE, "dim", 0, SAVED_DIM },
  { CR_OP_CAT, "dim", 0, SAVED_DIM }, { CR_OP_STACK, "dim", 0, SAVED_DIM },
  { CR_OP_SPLIT, "dim", 0, SAVED_DIM }, { CR_OP_SPLIT_WITH_SIZES, "dim", 0, SAVED_DIM },
  { CR_OP_UNBIND, "dim", 0, SAVED_DIM }, { CR_OP_FLIP, "dims", 0, SAVED_DIMS },
  { CR_OP_SELECT, "dim", 0, SAVED_DIM }, { CR_OP_SELECT, "index", 0, SAVED_INT },
  { CR_OP_SELECT, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_SQUEEZE_DIM, "dim", 0, SAVED_DIM },
  { CR_OP_SQUEEZE_DIM, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_CLAMP, "self", 0 }, { CR_OP_CLAMP, "min", 0, SAVED_SCALAR_OR_NONE },
  { CR_OP_CLAMP, "max", 1, SAVED_SCALAR_OR_NONE },
  /* Normalizations (args->ints[0]: layer norm's normalized dims, group
   * norm's groups; ints[1]: batch norm in training). */
  { CR_OP_NATIVE_BATCH_NORM, "input", 0 }, { CR_OP_NATIVE_BATCH_NORM, "weight", 1 },
  { CR_OP_NATIVE_BATCH_NORM, "eps", 0, SAVED_DOUBLE },
  { CR_OP_NATIVE_BATCH_NORM, "training", 1, SAVED_BOOL },
  /* The statistics used (empty in eval), and the module's running buffers
   * as they were left. */
  { CR_OP_NATIVE_BATCH_NORM, "result1", 2 }, { CR_OP_NATIVE_BATCH_NORM, "result2", 3 },
  { CR_OP_NATIVE_BATCH_NORM, "running_mean", 4 }, { CR_OP_NATIVE_BATCH_NORM, "running_var", 5 },
  { CR_OP_NATIVE_LAYER_NORM, "input", 0 }, { CR_OP_NATIVE_LAYER_NORM, "weight", 1 },
  { CR_OP_NATIVE_LAYER_NORM, "normalized_shape", 0, SAVED_TRAILING_SIZES },
  { CR_OP_NATIVE_GROUP_NORM, "input", 0 }, { CR_OP_NATIVE_GROUP_NORM, "weight", 1 },
  { CR_OP_NATIVE_GROUP_NORM, "eps", 0, SAVED_DOUBLE },
  { CR_OP_NATIVE_GROUP_NORM, "group", 0, SAVED_INT },
  { CR_OP_NATIVE_GROUP_NORM, "N", 0, SAVED_INPUT_DIM },
  { CR_OP_NATIVE_GROUP_NORM, "C", 1, SAVED_INPUT_DIM },
  { CR_OP_NATIVE_GROUP_NORM, "HxW", 0, SAVED_INPUT_HXW },
  { CR_OP_NATIVE_GROUP_NORM, "result1", 2 }, { CR_OP_NATIVE_GROUP_NORM, "result2", 3 },
  /* Losses: the reduction as PyTorch's enum. */
  { CR_OP_MSE_LOSS, "self", 0 }, { CR_OP_MSE_LOSS, "target", 1 },
  { CR_OP_MSE_LOSS, "reduction", 0, SAVED_INT },
  { CR_OP_HUBER_LOSS, "self", 0 }, { CR_OP_HUBER_LOSS, "target", 1 },
  { CR_OP_HUBER_LOSS, "reduction", 0, SAVED_INT }, { CR_OP_HUBER_LOSS, "delta", 0, SAVED_DOUBLE },
  { CR_OP_SMOOTH_L1_LOSS, "self", 0 }, { CR_OP_SMOOTH_L1_LOSS, "target", 1 },
  { CR_OP_SMOOTH_L1_LOSS, "reduction", 0, SAVED_INT },
  { CR_OP_SMOOTH_L1_LOSS, "beta", 0, SAVED_DOUBLE },
  { CR_OP_NATIVE_LAYER_NORM, "result1", 2 }, { CR_OP_NATIVE_LAYER_NORM, "result2", 3 },
  { CR_OP_NATIVE_LAYER_NORM, "bias", 4 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "grad_out", 0 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "input", 1 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "mean", 2 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "rstd", 3 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "weight", 4 },
  { CR_OP_NATIVE_LAYER_NORM_BACKWARD, "normalized_shape", 0, SAVED_TRAILING_SIZES },
  /* Pools, bounds, masks. */
  { CR_OP_MAX_POOL2D, "result1", 0 }, { CR_OP_MAX_POOL2D, "self", 1 },
  { CR_OP_AVG_POOL2D, "self", 0 },
  { CR_OP_CLAMP_MIN, "self", 0 }, { CR_OP_CLAMP_MAX, "self", 0 },
  { CR_OP_CLAMP_TENSOR, "self", 0 }, { CR_OP_CLAMP_TENSOR, "min", 1 },
  { CR_OP_CLAMP_TENSOR, "max", 2 },
  { CR_OP_CLAMP_MIN_TENSOR, "self", 0 }, { CR_OP_CLAMP_MIN_TENSOR, "min", 1 },
  { CR_OP_CLAMP_MAX_TENSOR, "self", 0 }, { CR_OP_CLAMP_MAX_TENSOR, "max", 1 },
  { CR_OP_CUMMAX, "self", 0 }, { CR_OP_CUMMAX, "indices", 1 }, { CR_OP_CUMMAX, "dim", 0, SAVED_DIM },
  { CR_OP_CUMMIN, "self", 0 }, { CR_OP_CUMMIN, "indices", 1 }, { CR_OP_CUMMIN, "dim", 0, SAVED_DIM },
  { CR_OP_PACK_PADDED_SEQUENCE, "batch_first", 0, SAVED_BOOL },
  { CR_OP_PACK_PADDED_SEQUENCE, "input_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_PACK_PADDED_SEQUENCE, "result1", 1 },
  { CR_OP_LERP_SCALAR, "weight", 0, SAVED_NUMBER },
  { CR_OP_XLOGY_NUMBER_SELF, "self", 0, SAVED_NUMBER }, { CR_OP_XLOGY_NUMBER_SELF, "other", 0 },
  { CR_OP_LERP, "self", 0 }, { CR_OP_LERP, "end", 1 }, { CR_OP_LERP, "weight", 2 },
  { CR_OP_NAN_TO_NUM, "self", 0 },
  { CR_OP_UNFOLD, "dimension", 0, SAVED_DIM }, { CR_OP_UNFOLD, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_UNFOLD, "size", 0, SAVED_INT }, { CR_OP_UNFOLD, "step", 1, SAVED_INT },
  { CR_OP_PRELU, "self", 0 }, { CR_OP_PRELU, "weight", 1 },
  { CR_OP_CLAMP_MIN, "min", 0, SAVED_NUMBER }, { CR_OP_CLAMP_MAX, "max", 0, SAVED_NUMBER },
  { CR_OP_CDIST, "x1", 0 }, { CR_OP_CDIST, "x2", 1 }, { CR_OP_CDIST, "result", 2 },
  { CR_OP_CDIST, "p", 0, SAVED_DOUBLE },
  { CR_OP_MASKED_FILL, "mask", 0 },
  { CR_OP_MASKED_SELECT, "self", 1 }, { CR_OP_MASKED_SELECT, "mask", 2 },
  { CR_OP_MASKED_SCATTER, "mask", 1 },
  { CR_OP_DIV_MODE, "self", 0 }, { CR_OP_DIV_MODE, "other", 1 },
  /* The backward ops of activations (a create_graph backward's nodes). */
  { CR_OP_SOFTPLUS_BACKWARD, "grad_output", 0 }, { CR_OP_SOFTPLUS_BACKWARD, "self", 1 },
  { CR_OP_GELU_BACKWARD, "grad_output", 0 }, { CR_OP_GELU_BACKWARD, "self", 1 },
  { CR_OP_LOG_SIGMOID_BACKWARD, "grad_output", 0 }, { CR_OP_LOG_SIGMOID_BACKWARD, "self", 1 },
  { CR_OP_LOG_SIGMOID_BACKWARD, "buffer", 2 }, { CR_OP_LOG_SIGMOID, "buffer", 1 },
  { CR_OP_HARDSWISH_BACKWARD, "grad_output", 0 }, { CR_OP_HARDSWISH_BACKWARD, "self", 1 },
  /* Takes: slot 0 is the positions of our own; the rest is kept to show. */
  { CR_OP_GATHER, "index", 1 }, { CR_OP_GATHER, "self", 2 },
  { CR_OP_GATHER, "dim", 0, SAVED_DIM }, { CR_OP_GATHER, "sparse_grad", 3, SAVED_BOOL },
  { CR_OP_INDEX_SELECT, "index", 1 }, { CR_OP_INDEX_SELECT, "dim", 0, SAVED_DIM },
  { CR_OP_INDEX_SELECT, "self_sizes", 0, SAVED_INPUT_SIZES },
  { CR_OP_EMBEDDING, "indices", 2 }, { CR_OP_EMBEDDING, "weight", 3 },
  { CR_OP_EMBEDDING, "padding_idx", 0, SAVED_INDEX_IF_SET },
  { CR_OP_EMBEDDING, "scale_grad_by_freq", 1, SAVED_BOOL },
  { CR_OP_EMBEDDING, "sparse", 3, SAVED_BOOL },
  { CR_OP_INDEX_PUT, "accumulate", 0, SAVED_BOOL },
  { CR_OP_CONSTANT_PAD_ND, "pad", 0, SAVED_PADS },
  PAD_ROWS (CR_OP_REFLECTION_PAD1D), PAD_ROWS (CR_OP_REFLECTION_PAD2D),
  PAD_ROWS (CR_OP_REFLECTION_PAD3D), PAD_ROWS (CR_OP_REPLICATION_PAD1D),
  PAD_ROWS (CR_OP_REPLICATION_PAD2D), PAD_ROWS (CR_OP_REPLICATION_PAD3D),
  { CR_OP_BCE, "self", 0 }, { CR_OP_BCE, "target", 1 },
  { CR_OP_BCE, "reduction", 0, SAVED_INT },
  { CR_OP_BCE_WITH_LOGITS, "self", 0 }, { CR_OP_BCE_WITH_LOGITS, "target", 1 },
  { CR_OP_BCE_WITH_LOGITS, "reduction", 0, SAVED_INT },
  /* nll_loss keeps what PyTorch's node keeps; its ignore_index is left out
   * (PyTorch shows -100 as 2**64 - 100, which no 64-bit int holds). */
  { CR_OP_NLL_LOSS, "self", 2 }, { CR_OP_NLL_LOSS, "target", 0 },
  { CR_OP_NLL_LOSS, "weight", 1 }, { CR_OP_NLL_LOSS, "total_weight", 3 },
  { CR_OP_NLL_LOSS, "reduction", 0, SAVED_INT },
  { CR_OP_NLL_LOSS2D, "self", 2 }, { CR_OP_NLL_LOSS2D, "target", 0 },
  { CR_OP_NLL_LOSS2D, "weight", 1 }, { CR_OP_NLL_LOSS2D, "total_weight", 3 },
  { CR_OP_NLL_LOSS2D, "reduction", 0, SAVED_INT },
};

/* A row of core/cr-binary-ops.def keeps self in slot 0, other in 1 and
 * result in 2 when its formulas need them (its SAVES column): *out_slot for
 * key, FALSE when the op has no such attribute (its op(a, number) twin has
 * no other unless a's gradient needs it). */
enum { SAVE_NEVER, SAVE_ALWAYS, SAVE_FOR_A, SAVE_FOR_B };

static gboolean
binary_saved_slot (CrOpId      op,
                   const char *key,
                   int        *out_slot)
{
  static const char *const keys[3] = { "self", "other", "result" };
  const int *kept = NULL;
  gboolean number = FALSE;

  switch (op)
    {
#define SAVES(a, b, out) { SAVE_##a, SAVE_##b, SAVE_##out }
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, ...)                                                             \
    case CR_OP_##ID##_SCALAR:                                                                \
      number = TRUE;                                                                         \
      G_GNUC_FALLTHROUGH;                                                                    \
    case CR_OP_##ID:                                                                         \
      {                                                                                      \
        static const int row[3] = saves;                                                     \
        kept = row;                                                                          \
      }                                                                                      \
      break;
#include "cr-binary-ops.def"
#undef SAVES
    default:
      return FALSE;
    }
  for (int slot = 0; slot < 3; slot++)
    if (strcmp (key, keys[slot]) == 0 && kept[slot] != SAVE_NEVER
        && !(number && kept[slot] == SAVE_FOR_B))
      {
        *out_slot = slot;
        return TRUE;
      }
  return FALSE;
}

/* The rows of core/cr-unary-ops.def come after CR_OP_LIST's. */
#define COUNT_ONE(name) + 1
static const int first_unary_op = 0 CR_OP_LIST (COUNT_ONE);
#undef COUNT_ONE

/* A number as PyTorch shows a Scalar: 2 for an integral exponent, else 2.5. */
static CrValue *
scalar_value (double v)
{
  /* The range first: casting inf or nan to an integer is undefined. */
  if (v > -1e15 && v < 1e15 && v == (double) (gint64) v)
    return cr_value_new_int ((gint64) v);
  return cr_value_new_float (v);
}

static CrValue *
saved_slot (CrNode     *node,
            int         slot,
            gboolean    as_scalar,
            GError    **error)
{
  if ((guint) slot >= node->n_saved || !node->saved[slot].was_saved)
    return cr_value_none ();
  CrTensor *t = cr_node_get_saved (node, slot, error);
  if (t == NULL)
    return NULL;
  if (as_scalar)
    {
      /* addcmul's value, kept as a 0-d wrapped number. */
      CrValue *v = cr_dtype_is_integral (t->dtype) ? cr_value_new_int (cr_tensor_get_flat_int (t, 0))
                                              : cr_value_new_float (cr_tensor_get_flat (t, 0));
      cr_tensor_unref (t);
      return v;
    }
  return cr_value_new_tensor_take (t);
}

/* A tuple of ints. */
static CrValue *
int_tuple (const gint64 *values,
           int           n)
{
  CrValue *items[CR_MAX_DIMS] = { NULL, };
  CrValue *tuple;

  for (int i = 0; i < n; i++)
    items[i] = cr_value_new_int (values[i]);
  tuple = cr_value_new_tuple (items, (guint) n);
  for (int i = 0; i < n; i++)
    cr_value_unref (items[i]);
  return tuple;
}

static CrValue *
dims_tuple (const CrOpArgs *args)
{
  gint64 dims[CR_MAX_DIMS];

  for (int i = 0; i < args->n_dims; i++)
    dims[i] = args->dims[i];
  return int_tuple (dims, args->n_dims);
}

static CrValue *
conv_field (CrNode    *node,
            ConvField  field)
{
  CrConvParams p;

  if (!cr_convolution_node_params (node, &p))
    return cr_value_none ();
  switch (field)
    {
    case CONV_STRIDE:
      return int_tuple (p.stride, p.spatial);
    case CONV_PADDING:
      return int_tuple (p.padding, p.spatial);
    case CONV_DILATION:
      return int_tuple (p.dilation, p.spatial);
    case CONV_OUTPUT_PADDING:
      return int_tuple (p.output_padding, p.spatial);
    case CONV_GROUPS:
      return cr_value_new_int (p.groups);
    case CONV_TRANSPOSED:
      return cr_value_new_bool (p.transposed);
    case CONV_BIAS_SIZES:
    default:
      {
        /* Optional sizes: (0,) without a bias, as PyTorch shows them. */
        gint64 none = 0;
        if (node->n_inputs > 2 && node->input_meta[2].ndim > 0)
          return int_tuple (node->input_meta[2].shape, node->input_meta[2].ndim);
        return int_tuple (&none, 1);
      }
    }
}

/* A saved argument that is not a tensor, from the node's args and input
 * metadata (a new ref). */
static CrValue *
saved_argument (CrNode          *node,
                const SavedName *entry)
{
  const CrOpArgs *args = node->args;
  int arg = entry->slot;

  switch (entry->kind)
    {
    case SAVED_SCALAR:
      return scalar_value (args->scalar[arg]);
    case SAVED_NUMBER:
      if ((args->scalar_int_mask >> arg) & 1)
        return cr_value_new_int ((gint64) args->scalar[arg]);
      return cr_value_new_float (args->scalar[arg]);
    case SAVED_DOUBLE:
      return cr_value_new_float (args->scalar[arg]);
    case SAVED_SCALAR_OR_ONE:
      if (args->has_scalar[arg] && ((args->scalar_float_mask >> arg) & 1))
        return cr_value_new_float (args->scalar[arg]);
      return scalar_value (args->has_scalar[arg] ? args->scalar[arg] : 1.0);
    case SAVED_SCALAR_OR_NONE:
      return args->has_scalar[arg] ? scalar_value (args->scalar[arg]) : cr_value_none ();
    case SAVED_INT:
      return cr_value_new_int (args->ints[arg]);
    case SAVED_BOOL:
      return cr_value_new_bool (args->ints[arg] != 0);
    case SAVED_INPUT_DIM:
      return cr_value_new_int (arg < node->input_meta[0].ndim ? node->input_meta[0].shape[arg] : 1);
    case SAVED_INPUT_SIZE_AT:
      {
        const CrTensorMeta *meta = &node->input_meta[MIN ((guint) arg / 16, node->n_inputs - 1)];
        return cr_value_new_int (arg % 16 < meta->ndim ? meta->shape[arg % 16] : 1);
      }
    case SAVED_INPUT_HXW:
      {
        gint64 hxw = 1;
        for (int d = 2; d < node->input_meta[0].ndim; d++)
          hxw *= node->input_meta[0].shape[d];
        return cr_value_new_int (hxw);
      }
    case SAVED_TRAILING_SIZES:
      {
        const CrTensorMeta *meta = &node->input_meta[0];
        int n = (int) CLAMP (args->ints[0], 0, meta->ndim);
        return int_tuple (meta->shape + meta->ndim - n, n);
      }
    case SAVED_DIMS:
      return dims_tuple (args);
    case SAVED_ROLL_SHIFTS:
      return args->ints[0] ? int_tuple (&args->ints[1], 1) : dims_tuple (args);
    case SAVED_DIMS_OR_NONE:
      return args->ints[0] ? dims_tuple (args) : cr_value_none ();
    case SAVED_DIM:
      return cr_value_new_int (args->dims[arg]);
    case SAVED_KEEPDIM:
      return cr_value_new_bool (args->keepdim);
    case SAVED_INPUT_SIZES:
      return (guint) arg < node->n_inputs
             ? int_tuple (node->input_meta[arg].shape, node->input_meta[arg].ndim)
             : cr_value_none ();
    case SAVED_INPUT_NUMEL:
      {
        gint64 numel = 1;
        for (int d = 0; d < node->input_meta[0].ndim; d++)
          numel *= node->input_meta[0].shape[d];
        return cr_value_new_int (numel);
      }
    case SAVED_CONV:
      return conv_field (node, (ConvField) arg);
    case SAVED_PADS:
      {
        gint64 pads[CR_MAX_DIMS];
        int n = (int) CLAMP (args->ints[0], 0, CR_MAX_DIMS);

        for (int i = 0; i < n; i++)
          pads[i] = args->dims[i];
        return int_tuple (pads, n);
      }
    case SAVED_INDEX_IF_SET:
      return cr_value_new_int (args->ints[arg]);
    case SAVED_OUTPUT_SIZE_IF_GIVEN:
      {
        gint64 sizes[CR_MAX_DIMS];
        if (!args->ints[0])
          return cr_value_none ();
        for (int i = 0; i < args->n_dims; i++)
          sizes[i] = args->dims[i];
        return int_tuple (sizes, args->n_dims);
      }
    case SAVED_SCALES_IF_GIVEN:
      {
        CrValue *items[3] = { NULL, };
        CrValue *tuple;
        int n = MIN (args->n_dims, 3);
        if (!args->has_scalar[0])
          return cr_value_none ();
        for (int i = 0; i < n; i++)
          items[i] = cr_value_new_float (args->scalar[i]);
        tuple = cr_value_new_tuple (items, (guint) n);
        for (int i = 0; i < n; i++)
          cr_value_unref (items[i]);
        return tuple;
      }
    case SAVED_DIMS_PAIR:
      {
        gint64 pair[2] = { args->dims[arg], args->dims[arg + 1] };
        return int_tuple (pair, 2);
      }
    case SAVED_TENSOR:
    default:
      return cr_value_none ();
    }
}

const char *
cr_torch_saved_internal_name (const CrNode *node,
                              guint         slot)
{
  const CrTensor *t = node->saved[slot].tensor;

  if (node->saved[slot].is_output || node->op == NULL || node->op->id == CR_OP_CUSTOM)
    return NULL;
  if (t != NULL && !cr_dtype_is_integral (t->dtype))
    return "kept";
  return "positions";
}

const char *
cr_torch_saved_tensor_name (const CrNode *node,
                            guint         slot)
{
  static const char *const binary_keys[3] = { "self", "other", "result" };

  if (node->op == NULL || slot >= node->n_saved)
    return NULL;
  /* The binary cross-entropies' weights from slot 2 on, expanded to the
   * input's shape (PyTorch keeps them as given): with logits, those given
   * (args->ints[1]: 1 weight, 2 pos_weight). */
  if (node->op->id == CR_OP_BCE && slot == 2)
    return "weight";
  if (node->op->id == CR_OP_BCE_WITH_LOGITS && slot >= 2)
    return slot == 2 && (node->args->ints[1] & 1) ? "weight" : "pos_weight";
  for (guint i = 0; i < G_N_ELEMENTS (saved_names); i++)
    if (saved_names[i].op == node->op->id && saved_names[i].kind == SAVED_TENSOR
        && saved_names[i].slot == (int) slot)
      return saved_names[i].name;
  for (guint k = 0; k < G_N_ELEMENTS (binary_keys); k++)
    {
      int kept;
      if (binary_saved_slot (node->op->id, binary_keys[k], &kept) && kept == (int) slot)
        return binary_keys[k];
    }
  if (node->op->arity == 1 && (int) node->op->id >= first_unary_op && slot == 0)
    return node->saved[0].is_output ? "result" : "self";
  return NULL;
}

static void
add_saved_name (GPtrArray  *names,
                const char *key,
                gboolean    is_tensor)
{
  g_autofree char *saved = g_strconcat ("_saved_", key, NULL);
  g_ptr_array_add (names, (gpointer) g_intern_string (saved));
  if (is_tensor)
    {
      g_autofree char *raw = g_strconcat ("_raw_saved_", key, NULL);
      g_ptr_array_add (names, (gpointer) g_intern_string (raw));
    }
}

/* The same lookups as cr_torch_node_saved_attr, listed instead of matched. */
void
cr_torch_node_saved_attr_names (CrNode    *node,
                                GPtrArray *names)
{
  static const char *const binary_keys[3] = { "self", "other", "result" };

  if (node->op == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (saved_names); i++)
    if (saved_names[i].op == node->op->id
        && !(saved_names[i].kind == SAVED_INDEX_IF_SET && node->args->ints[saved_names[i].slot] < 0))
      add_saved_name (names, saved_names[i].name,
                      saved_names[i].kind == SAVED_TENSOR && saved_names[i].slot >= 0);
  for (guint k = 0; k < G_N_ELEMENTS (binary_keys); k++)
    {
      int slot;
      if (binary_saved_slot (node->op->id, binary_keys[k], &slot))
        add_saved_name (names, binary_keys[k], TRUE);
    }
  if (node->op->arity == 1 && (int) node->op->id >= first_unary_op && node->n_saved > 0
      && node->saved[0].was_saved)
    add_saved_name (names, node->saved[0].is_output ? "result" : "self", TRUE);
  {
    const char *param;
    for (guint i = 0; cr_ops_unary_param (node->op->id, i, &param, NULL, NULL, NULL); i++)
      add_saved_name (names, param, FALSE);
  }
}

CrValue *
cr_torch_node_saved_attr (CrNode      *node,
                          const char  *name,
                          gboolean    *found,
                          GError     **error)
{
  const char *key;

  *found = FALSE;
  if (!g_str_has_prefix (name, "_saved_") || node->op == NULL)
    return NULL;
  key = name + strlen ("_saved_");

  for (guint i = 0; i < G_N_ELEMENTS (saved_names); i++)
    if (saved_names[i].op == node->op->id && strcmp (saved_names[i].name, key) == 0)
      {
        if (saved_names[i].kind == SAVED_INDEX_IF_SET && node->args->ints[saved_names[i].slot] < 0)
          return NULL;
        *found = TRUE;
        if (saved_names[i].kind != SAVED_TENSOR)
          return saved_argument (node, &saved_names[i]);
        if (saved_names[i].slot < 0)
          return node->args->has_scalar[0] ? scalar_value (node->args->scalar[0])
                                           : cr_value_none ();
        return saved_slot (node, saved_names[i].slot, strcmp (key, "value") == 0, error);
      }

  /* A function of two tensors: its other is a Scalar in its number twin. */
  {
    int slot;

    if (binary_saved_slot (node->op->id, key, &slot))
      {
        *found = TRUE;
        return saved_slot (node, slot, slot == 1 && node->op->arity == 1, error);
      }
  }

  /* An elementwise function of one tensor saves its input (_saved_self)
   * or its output (_saved_result) in slot 0. */
  if (node->op->arity == 1 && (int) node->op->id >= first_unary_op && node->n_saved > 0
      && node->saved[0].was_saved
      && strcmp (key, node->saved[0].is_output ? "result" : "self") == 0)
    {
      *found = TRUE;
      return saved_slot (node, 0, FALSE, error);
    }

  /* A unary row's parameters (_saved_negative_slope), as the script gave
   * them: 6 for an int, 6.0 for a float; gelu's approximate as its string. */
  {
    const char *param;

    for (guint i = 0; cr_ops_unary_param (node->op->id, i, &param, NULL, NULL, NULL); i++)
      if (strcmp (param, key) == 0)
        {
          double v = node->args->scalar[i];

          *found = TRUE;
          if (strcmp (param, "approximate") == 0)
            return cr_value_new_str (v == 0 ? "none" : "tanh");
          if ((node->args->scalar_int_mask >> i) & 1)
            return cr_value_new_int ((gint64) v);
          return cr_value_new_float (v);
        }
  }
  return NULL;
}

/* Numbers the run record keeps that PyTorch's node does not show, or shows
 * as the script gave them (max_pool2d's stride () for "the kernel"): the
 * values the op used, in the pool rows' layout (cr-ops-pool.c). */
#define POOL_ROWS(OP)                                                                    \
  { OP, "kernel_size", 0, SAVED_DIMS_PAIR }, { OP, "stride", 2, SAVED_DIMS_PAIR },         \
  { OP, "padding", 4, SAVED_DIMS_PAIR }

static const SavedName recorded_names[] = {
  { CR_OP_NATIVE_LAYER_NORM, "eps", 0, SAVED_DOUBLE },
  POOL_ROWS (CR_OP_MAX_POOL2D), { CR_OP_MAX_POOL2D, "dilation", 6, SAVED_DIMS_PAIR },
  POOL_ROWS (CR_OP_AVG_POOL2D), { CR_OP_AVG_POOL2D, "count_include_pad", 1, SAVED_BOOL },
  { CR_OP_AVG_POOL2D, "divisor_override", 2, SAVED_INT },
  /* x[a:b:c] as it ran: start and end clamped to the dim (PyTorch's node
   * keeps them as given, an end left out as 2**63 - 1). */
  { CR_OP_SLICE, "dim", 0, SAVED_DIM }, { CR_OP_SLICE, "start", 0, SAVED_INT },
  { CR_OP_SLICE, "end", 1, SAVED_INT }, { CR_OP_SLICE, "step", 2, SAVED_INT },
  /* tril's and triu's diagonal (PyTorch shows a negative one as 2**64 + k). */
  { CR_OP_TRIL, "diagonal", 0, SAVED_INT }, { CR_OP_TRIU, "diagonal", 0, SAVED_INT },
  /* roll's shift of every dim of its input, or the one shift of its
   * elements in order when it rolled flattened (each in [0, size)). */
  { CR_OP_ROLL, "shifts", 0, SAVED_ROLL_SHIFTS },
  /* nll_loss's ignore_index as given (PyTorch shows -100 as 2**64 - 100):
   * the scalar view tells an ignored row by it. */
  { CR_OP_NLL_LOSS, "ignore_index", 1, SAVED_INT },
  { CR_OP_NLL_LOSS2D, "ignore_index", 1, SAVED_INT },
  /* An activation's or a loss's backward run as an op (a double backward):
   * the parameters and the reduction it used, which the scalar view's
   * equations need (cr-ops-activation-backward.c, cr-ops-loss-backward.c). */
  { CR_OP_LEAKY_RELU_BACKWARD, "negative_slope", 0, SAVED_DOUBLE },
  { CR_OP_HARDTANH_BACKWARD, "min_val", 0, SAVED_DOUBLE },
  { CR_OP_HARDTANH_BACKWARD, "max_val", 1, SAVED_DOUBLE },
  { CR_OP_HARDSHRINK_BACKWARD, "lambd", 0, SAVED_DOUBLE },
  { CR_OP_SOFTSHRINK_BACKWARD, "lambd", 0, SAVED_DOUBLE },
  { CR_OP_THRESHOLD_BACKWARD, "threshold", 0, SAVED_DOUBLE },
  { CR_OP_ELU_BACKWARD, "alpha", 0, SAVED_DOUBLE }, { CR_OP_ELU_BACKWARD, "scale", 1, SAVED_DOUBLE },
  { CR_OP_ELU_BACKWARD, "input_scale", 2, SAVED_DOUBLE },
  { CR_OP_ELU_BACKWARD, "is_result", 0, SAVED_BOOL },
  { CR_OP_SOFTPLUS_BACKWARD, "beta", 0, SAVED_DOUBLE },
  { CR_OP_SOFTPLUS_BACKWARD, "threshold", 1, SAVED_DOUBLE },
  { CR_OP_GELU_BACKWARD, "approximate", 0, SAVED_DOUBLE },
  { CR_OP_MSE_LOSS_BACKWARD, "reduction", 0, SAVED_INT },
  { CR_OP_SMOOTH_L1_LOSS_BACKWARD, "reduction", 0, SAVED_INT },
  { CR_OP_SMOOTH_L1_LOSS_BACKWARD, "beta", 0, SAVED_DOUBLE },
  { CR_OP_HUBER_LOSS_BACKWARD, "reduction", 0, SAVED_INT },
  { CR_OP_HUBER_LOSS_BACKWARD, "delta", 0, SAVED_DOUBLE },
  { CR_OP_SOFTMAX_BACKWARD_DATA, "dim", 0, SAVED_DIM },
  { CR_OP_LOG_SOFTMAX_BACKWARD_DATA, "dim", 0, SAVED_DIM },
};

void
cr_torch_node_saved_numbers (CrNode             *node,
                             CrTorchSavedNumber  func,
                             gpointer            data)
{
  if (node->op == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (saved_names); i++)
    {
      const SavedName *entry = &saved_names[i];
      if (entry->op != node->op->id
          || (entry->kind == SAVED_TENSOR && entry->slot >= 0)
          || (entry->kind == SAVED_INDEX_IF_SET && node->args->ints[entry->slot] < 0))
        continue;
      g_autoptr (CrValue) v = entry->kind != SAVED_TENSOR ? saved_argument (node, entry)
                              : node->args->has_scalar[0] ? scalar_value (node->args->scalar[0])
                              : cr_value_none ();
      func (entry->name, v, data);
    }
  for (guint i = 0; i < G_N_ELEMENTS (recorded_names); i++)
    if (recorded_names[i].op == node->op->id)
      {
        g_autoptr (CrValue) v = saved_argument (node, &recorded_names[i]);
        func (recorded_names[i].name, v, data);
      }
  /* addcmul's and addcdiv's value, a 0-d tensor the node keeps, as a number
   * (the scalar view's equations read it). */
  if (node->op->id == CR_OP_ADDCMUL || node->op->id == CR_OP_ADDCDIV)
    {
      g_autoptr (CrValue) value = saved_slot (node, 2, TRUE, NULL);
      if (value)
        func ("value", value, data);
    }
  /* gelu's approximate as an int: 0 'none', 1 'tanh'. */
  const char *param;
  for (guint i = 0; cr_ops_unary_param (node->op->id, i, &param, NULL, NULL, NULL); i++)
    {
      double v = node->args->scalar[i];
      g_autoptr (CrValue) value = (node->args->scalar_int_mask >> i) & 1 || strcmp (param, "approximate") == 0
                                  ? cr_value_new_int ((gint64) v) : cr_value_new_float (v);
      func (param, value, data);
    }
  /* The Python number the op took in place of a tensor (x + 1's 1), which
   * PyTorch's node does not keep. */
  if (node->args->has_number)
    {
      g_autoptr (CrValue) value = node->args->number_is_int ? cr_value_new_int ((gint64) node->args->number)
                                                            : cr_value_new_float (node->args->number);
      func ("number", value, data);
    }
}
