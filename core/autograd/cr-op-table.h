/* cr-op-table.h — one row per differentiable op: its name, PyTorch's grad_fn
 * name, arity, a symbol for the graph, the text of its local-gradient rule for the
 * inspector, and its backward formula.
 *
 * Adding an op: a line in CR_OP_LIST below, its row (`const CrOpInfo
 * cr_op_row_NAME`, next to its forward in ops/), its kernels, nothing else;
 * an elementwise function of one tensor: only its row in core/cr-unary-ops.def.
 * A missing row is a link error; tests/core/test-op-table.c checks the rest. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* X(ID): grad_fn names are in the rows; the comment is only a reminder. */
#define CR_OP_LIST(X) \
  X (ACCUMULATE_GRAD)     /* AccumulateGrad */                         \
  X (CUSTOM)              /* <ClassName>Backward (autograd.Function) */ \
  X (ADD)                 /* AddBackward0 */                           \
  X (SUB)                 /* SubBackward0 */                           \
  X (RSUB)                /* RsubBackward1: scalar - tensor */         \
  X (POW_SCALAR)          /* PowBackward0: tensor ** number */         \
  X (POW)                 /* PowBackward1: tensor ** tensor */         \
  X (POW_NUMBER_BASE)     /* PowBackward2: torch.pow(number, tensor) */ \
  X (CLAMP)               /* ClampBackward1 */                         \
  X (WHERE)               /* WhereBackward0 */                         \
  X (ADDCMUL)             /* AddcmulBackward0 */                       \
  X (ADDCDIV)             /* AddcdivBackward0 */                       \
  X (TANH_BACKWARD)       /* TanhBackwardBackward0 */                  \
  X (SIGMOID_BACKWARD)    /* SigmoidBackwardBackward0 */               \
  X (THRESHOLD_BACKWARD)  /* ThresholdBackwardBackward0 */             \
  X (LEAKY_RELU_BACKWARD) /* LeakyReluBackwardBackward0 */            \
  X (HARDTANH_BACKWARD)   /* HardtanhBackwardBackward0 */             \
  X (HARDSHRINK_BACKWARD) /* HardshrinkBackwardBackward0 */           \
  X (SOFTSHRINK_BACKWARD) /* SoftshrinkBackwardBackward0 */           \
  X (ELU_BACKWARD)        /* EluBackwardBackward0: elu, selu, celu */ \
  X (SOFTPLUS_BACKWARD)   /* SoftplusBackwardBackward0 */             \
  X (SOFTMAX_BACKWARD_DATA) /* SoftmaxBackwardDataBackward0 */       \
  X (LOG_SOFTMAX_BACKWARD_DATA) /* LogSoftmaxBackwardDataBackward0 */ \
  X (SUM)                 /* SumBackward0 */                           \
  X (SUM_DIM)             /* SumBackward1 */                           \
  X (MEAN)                /* MeanBackward0 */                          \
  X (MEAN_DIM)            /* MeanBackward1 */                          \
  X (PROD)                /* ProdBackward0 */                          \
  X (MAX_ALL)             /* MaxBackward1 */                           \
  X (MIN_ALL)             /* MinBackward1 */                           \
  X (MAX_DIM)             /* MaxBackward0 */                           \
  X (MIN_DIM)             /* MinBackward0 */                           \
  X (NORM)                /* LinalgVectorNormBackward0 */              \
  X (VAR)                 /* VarBackward0 */                           \
  X (STD)                 /* StdBackward0 */                           \
  X (LOGSUMEXP)           /* LogsumexpBackward0 */                     \
  X (AMAX)                /* AmaxBackward0 */                          \
  X (AMIN)                /* AminBackward0 */                          \
  X (CUMSUM)              /* CumsumBackward0 */                        \
  X (SMOOTH_L1_LOSS)      /* SmoothL1LossBackward0 */                  \
  X (SPLIT)               /* SplitBackward0: split, chunk */           \
  X (SPLIT_WITH_SIZES)    /* SplitWithSizesBackward0 */                \
  X (UNBIND)              /* UnbindBackward0 */                        \
  X (FLIP)                /* FlipBackward0 */                          \
  X (TRIU)                /* TriuBackward0 */                          \
  X (TRIL)                /* TrilBackward0 */                          \
  X (TRACE)               /* TraceBackward0 */                         \
  X (REPEAT)              /* RepeatBackward0 */                        \
  X (CLONE)               /* CloneBackward0 */                         \
  X (TO_COPY)             /* ToCopyBackward0: dtype casts */           \
  X (T)                   /* TBackward0 */                             \
  X (TRANSPOSE)           /* TransposeBackward0 */                     \
  X (PERMUTE)             /* PermuteBackward0 (also .T) */             \
  X (VIEW)                /* ViewBackward0 */                          \
  X (RESHAPE_ALIAS)       /* ReshapeAliasBackward0 */                  \
  X (UNSAFE_VIEW)         /* UnsafeViewBackward0 */                    \
  X (UNSQUEEZE)           /* UnsqueezeBackward0 */                     \
  X (SQUEEZE)             /* SqueezeBackward0: all size-1 dims */      \
  X (SQUEEZE_DIM)         /* SqueezeBackward1 */                       \
  X (SQUEEZE_INPLACE_DIM) /* SqueezeBackward3 (matmul of a vector) */  \
  X (T_INPLACE)           /* TBackward1: t_() */                       \
  X (UNSQUEEZE_INPLACE)   /* UnsqueezeBackward1: unsqueeze_(dim) */    \
  X (SQUEEZE_INPLACE)     /* SqueezeBackward2: squeeze_() */           \
  X (EXPAND)              /* ExpandBackward0 */                        \
  X (SELECT)              /* SelectBackward0 */                        \
  X (SLICE)               /* SliceBackward0 */                         \
  X (INDEX)               /* IndexBackward0 */                         \
  X (INDEX_PUT)           /* IndexPutBackward0 */                      \
  X (GATHER)              /* GatherBackward0 */                        \
  X (INDEX_SELECT)        /* IndexSelectBackward0 */                   \
  X (DIAG)                /* DiagBackward0 */                          \
  X (SCATTER_ADD)         /* ScatterAddBackward0: gather's gradient */ \
  X (INDEX_ADD)           /* IndexAddBackward0 */                      \
  X (COPY_SLICES)         /* CopySlices */                             \
  X (MASKED_FILL)         /* MaskedFillBackward0 */                    \
  X (FILL)                /* FillBackward0 */                          \
  X (ZERO)                /* ZeroBackward0 */                          \
  X (COPY)                /* CopyBackwards */                          \
  X (CAT)                 /* CatBackward0 */                           \
  X (STACK)               /* StackBackward0 */                         \
  X (MM)                  /* MmBackward0 */                            \
  X (MV)                  /* MvBackward0 */                            \
  X (DOT)                 /* DotBackward0 */                           \
  X (BMM)                 /* BmmBackward0 */                           \
  X (ADDMM)               /* AddmmBackward0: nn.Linear */              \
  X (SOFTMAX)             /* SoftmaxBackward0 */                       \
  X (LOG_SOFTMAX)         /* LogSoftmaxBackward0 */                    \
  X (MSE_LOSS)            /* MseLossBackward0 */                       \
  X (BCE_WITH_LOGITS)     /* BinaryCrossEntropyWithLogitsBackward0 */  \
  X (BCE)                 /* BinaryCrossEntropyBackward0 */            \
  X (NLL_LOSS)            /* NllLossBackward0 */                       \
  X (ALIAS)               /* AliasBackward0: x[...] */                 \
  X (AS_STRIDED)          /* AsStridedBackward0: a view written through */ \
  X (NATIVE_LAYER_NORM)   /* NativeLayerNormBackward0 */               \
  X (NATIVE_BATCH_NORM)   /* NativeBatchNormBackward0 */               \
  X (NATIVE_GROUP_NORM)   /* NativeGroupNormBackward0 */               \
  X (EMBEDDING)           /* EmbeddingBackward0 */                     \
  X (DIAGONAL)            /* DiagonalBackward0 */                      \
  X (CONSTANT_PAD_ND)     /* ConstantPadNdBackward0 */                 \
  X (REFLECTION_PAD1D)    /* ReflectionPad1DBackward0 */               \
  X (REFLECTION_PAD2D)    /* ReflectionPad2DBackward0 */               \
  X (REFLECTION_PAD3D)    /* ReflectionPad3DBackward0 */               \
  X (REPLICATION_PAD1D)   /* ReplicationPad1DBackward0 */              \
  X (REPLICATION_PAD2D)   /* ReplicationPad2DBackward0 */              \
  X (REPLICATION_PAD3D)   /* ReplicationPad3DBackward0 */              \
  X (CLAMP_MIN)           /* ClampMinBackward0 */                      \
  X (CLAMP_MAX)           /* ClampMaxBackward0 */                      \
  X (ADD_SCALAR)          /* AddBackward1: at::add(tensor, scalar) */  \
  X (TRILINEAR)           /* TrilinearBackward0: F.bilinear */         \
  X (INDEX_COPY)          /* IndexCopyBackward0 */                     \
  X (CDIST)               /* CdistBackward0 */                         \
  X (ROLL)                /* RollBackward0 */                          \
  X (CONVOLUTION)         /* ConvolutionBackward0 (also transposed) */ \
  X (CONVOLUTION_WEIGHT)  /* ConvolutionBackwardBackward0: weight grad */ \
  X (MAX_POOL2D)          /* MaxPool2DWithIndicesBackward0 */          \
  X (MAX_POOL2D_BACKWARD) /* MaxPool2DWithIndicesBackwardBackward0 */  \
  X (ADAPTIVE_MAX_POOL2D) /* AdaptiveMaxPool2DBackward0 */             \
  X (AVG_POOL2D)          /* AvgPool2DBackward0 */                     \
  X (AVG_POOL2D_BACKWARD) /* AvgPool2DBackwardBackward0 */             \
  X (ADAPTIVE_AVG_POOL2D) /* AdaptiveAvgPool2DBackward0 */             \
  X (ADAPTIVE_AVG_POOL2D_BACKWARD) /* AdaptiveAvgPool2DBackwardBackward0 */ \
  X (HUBER_LOSS)          /* HuberLossBackward0 */                     \
  X (NLL_LOSS2D)          /* NllLoss2DBackward0: nll_loss over (N, C, d...) */ \
  X (CONVOLUTION_INPUT)   /* ConvolutionBackwardBackward0: input grad */ \
  X (CIRCULAR_PAD)        /* CopySlices: F.pad(mode='circular') */ \
  X (PROD_DIM)            /* ProdBackward1 */                          \
  X (ADAPTIVE_MAX_POOL2D_BACKWARD) /* AdaptiveMaxPool2DBackwardBackward0 */ \
  X (CONVOLUTION_BIAS)    /* ConvolutionBackwardBackward0: bias grad */ \
  X (SORT)                /* SortBackward0 */                          \
  X (TOPK)                /* TopkBackward0 */                          \
  X (SCATTER)             /* ScatterBackward0: scatter(dim, index, src) */ \
  X (SCATTER_VALUE)       /* ScatterBackward1: scatter(dim, index, value) */ \
  X (GELU_BACKWARD)       /* GeluBackwardBackward0 */                 \
  X (LOG_SIGMOID_BACKWARD) /* LogSigmoidBackwardBackward0 */          \
  X (HARDSWISH_BACKWARD)  /* HardswishBackwardBackward0 */             \
  X (MSE_LOSS_BACKWARD)   /* MseLossBackwardBackward0 */               \
  X (SMOOTH_L1_LOSS_BACKWARD) /* SmoothL1LossBackwardBackward0 */      \
  X (HUBER_LOSS_BACKWARD) /* HuberLossBackwardBackward0 */             \
  X (RSUB_TENSOR)         /* RsubBackward0: rsub(tensor, tensor, alpha) */ \
  X (NATIVE_LAYER_NORM_BACKWARD) /* NativeLayerNormBackwardBackward0 */ \
  X (UNSAFE_SPLIT)        /* UnsafeSplitBackward0: unsafe_split, unsafe_chunk (RNN gates) */ \
  X (MASKED_SELECT)       /* MaskedSelectBackward0 */                  \
  X (MASKED_SCATTER)      /* MaskedScatterBackward0: masked_select's backward */ \
  X (DIV_MODE)            /* DivBackward2: div(rounding_mode=) */     \
  X (ADDMV)               /* AddmvBackward0 */                         \
  X (ADDR)                /* AddrBackward0 */                          \
  X (BADDBMM)             /* BaddbmmBackward0 */                       \
  X (ADDBMM)              /* AddbmmBackward0 */                        \
  X (CUMPROD)             /* CumprodBackward0 */                       \
  X (LINALG_CROSS)        /* LinalgCrossBackward0: cross, linalg.cross */ \
  X (LOGCUMSUMEXP)        /* LogcumsumexpBackward0 */                  \
  X (LINALG_VECTOR_NORM)  /* LinalgVectorNormBackward0 */              \
  X (CLAMP_TENSOR)        /* ClampBackward0: clamp(min=t, max=t) */    \
  X (CLAMP_MIN_TENSOR)    /* ClampMinBackward1 */                      \
  X (CLAMP_MAX_TENSOR)    /* ClampMaxBackward1 */                      \
  X (CUMMAX)              /* CummaxBackward0 */                        \
  X (CUMMIN)              /* CumminBackward0 */                        \
  X (PACK_PADDED_SEQUENCE) /* PackPaddedSequenceBackward0 */           \
  X (LERP_SCALAR)         /* LerpBackward0: a number weight */         \
  X (LERP)                /* LerpBackward1: a tensor weight */         \
  X (NAN_TO_NUM)          /* NanToNumBackward0 */                      \
  X (UNFOLD)              /* UnfoldBackward0: Tensor.unfold */         \
  X (PRELU)               /* PreluBackward0 */                         \
  X (UPSAMPLE_NEAREST1D) /* UpsampleNearest1DBackward1 */ \
  X (UPSAMPLE_NEAREST2D) /* UpsampleNearest2DBackward1 */ \
  X (UPSAMPLE_NEAREST3D) /* UpsampleNearest3DBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT1D) /* UpsampleNearestExact1DBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT2D) /* UpsampleNearestExact2DBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT3D) /* UpsampleNearestExact3DBackward1 */ \
  X (UPSAMPLE_LINEAR1D) /* UpsampleLinear1DBackward1 */ \
  X (UPSAMPLE_BILINEAR2D) /* UpsampleBilinear2DBackward1 */ \
  X (UPSAMPLE_TRILINEAR3D) /* UpsampleTrilinear3DBackward1 */ \
  X (UPSAMPLE_NEAREST1D_BACKWARD) /* UpsampleNearest1DBackwardBackward1 */ \
  X (UPSAMPLE_NEAREST2D_BACKWARD) /* UpsampleNearest2DBackwardBackward1 */ \
  X (UPSAMPLE_NEAREST3D_BACKWARD) /* UpsampleNearest3DBackwardBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT1D_BACKWARD) /* UpsampleNearestExact1DBackwardBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT2D_BACKWARD) /* UpsampleNearestExact2DBackwardBackward1 */ \
  X (UPSAMPLE_NEAREST_EXACT3D_BACKWARD) /* UpsampleNearestExact3DBackwardBackward1 */ \
  X (UPSAMPLE_LINEAR1D_BACKWARD) /* UpsampleLinear1DBackwardBackward1 */ \
  X (UPSAMPLE_BILINEAR2D_BACKWARD) /* UpsampleBilinear2DBackwardBackward1 */ \
  X (UPSAMPLE_TRILINEAR3D_BACKWARD) /* UpsampleTrilinear3DBackwardBackward1 */ \
  X (XLOGY_NUMBER_SELF)   /* XlogyBackward1: xlogy(number, tensor) */   \
  X (MEDIAN_ALL)          /* MedianBackward0 */                        \
  X (MEDIAN_DIM)          /* MedianBackward1 */                        \
  X (KTHVALUE)            /* KthvalueBackward0 */                      \
  X (MODE)                /* ModeBackward0 */                          \
  X (GLU)                 /* GluBackward0 */                           \
  X (LINALG_INV)          /* LinalgInvExBackward0: linalg.inv, inverse */ \
  X (LINALG_DET)          /* LinalgDetBackward0: linalg.det, det */    \
  X (LINALG_SOLVE)        /* LinalgSolveExBackward0 */                 \
  X (IM2COL)              /* Im2ColBackward0: F.unfold */              \
  X (COL2IM)              /* Col2ImBackward0: F.fold */                \
  X (NOT_IMPLEMENTED)     /* NotImplemented (name(): torch::autograd::) */

/* The elementwise functions of one tensor are rows of core/cr-unary-ops.def
 * (CR_UNARY_OP, and CR_UNARY_INPLACE for the nodes of some in-place forms),
 * which also gives their rows here (ops/cr-ops-unary.c); those of two
 * tensors are rows of core/cr-binary-ops.def (CR_BINARY_OP: ID for op(a, b)
 * and ID_SCALAR for op(a, number), ops/cr-ops-binary.c). */
typedef enum {
#define CR_OP_ENUM(name) CR_OP_##name,
  CR_OP_LIST (CR_OP_ENUM)
#undef CR_OP_ENUM
#define CR_UNARY_OP(ID, ...) CR_OP_##ID,
#define CR_UNARY_INPLACE(ID, ...) CR_OP_##ID,
#include "cr-unary-ops.def"
#define CR_BINARY_OP(ID, ...) CR_OP_##ID, CR_OP_##ID##_SCALAR,
#include "cr-binary-ops.def"
  CR_OP_COUNT
} CrOpId;

/* Backward: given the gradient of each output (grad_outputs[i] NULL when no
 * gradient reached that output), set grad_inputs[i] (new refs) for every input
 * whose edge needs it (node->next[i].node != NULL), NULL for the others.
 * Written with the differentiable ops of ops/cr-ops.h so that it runs on every
 * backend and records a graph itself when create_graph is on. */
typedef gboolean (*CrBackwardFunc)   (CrNode          *node,
                                      CrTensor *const *grad_outputs,
                                      CrTensor       **grad_inputs,
                                      GError         **error);

/* The local gradient ∂out/∂input[i], elementwise, for the step-by-step view
 * (only for ops where it is an elementwise tensor: unary and binary
 * elementwise ops). Returns a new ref in the output's shape, or NULL (no error)
 * when the op has none. Never records a graph. */
typedef CrTensor *(*CrLocalGradFunc) (CrNode          *node,
                                      guint            input,
                                      GError         **error);

typedef struct {
  CrOpId           id;
  const char      *name;            /* "mul" */
  const char      *grad_fn_name;    /* "MulBackward0" */
  int              arity;           /* tensor inputs; -1 when variable (cat, custom) */
  const char      *symbol;          /* "×", "+", "exp", "@", "Σ": the graph's op glyph */
  const char      *local_grad_text; /* "∂(a·b)/∂a = b,  ∂(a·b)/∂b = a" */
  CrBackwardFunc   backward;
  CrLocalGradFunc  local_grad;      /* NULL when there is no elementwise local gradient */
} CrOpInfo;

#define CR_OP_ROW_EXTERN(name) extern const CrOpInfo cr_op_row_##name;
CR_OP_LIST (CR_OP_ROW_EXTERN)
#undef CR_OP_ROW_EXTERN
#define CR_UNARY_OP(ID, ...) extern const CrOpInfo cr_op_row_##ID;
#define CR_UNARY_INPLACE CR_UNARY_OP
#include "cr-unary-ops.def"
#define CR_BINARY_OP(ID, ...) \
  extern const CrOpInfo cr_op_row_##ID; extern const CrOpInfo cr_op_row_##ID##_SCALAR;
#include "cr-binary-ops.def"

/* The row of op (borrowed, static). */
const CrOpInfo *cr_op_info (CrOpId op);

G_END_DECLS
