/* cr-ops.h — the differentiable ops: what a script's torch.* calls, tensor
 * methods and operators do.
 *
 * Each computes its forward with the kernels (cpu/cr-kernels.h) and, when grad
 * mode is on and an input requires grad, records a node whose row is in the op
 * table (autograd/cr-op-table.h). Inputs are borrowed; the result is a new ref,
 * or NULL with a GError carrying PyTorch's exception type and message.
 *
 * Python numbers reach these as 0-d tensors with is_wrapped_number set (the
 * interpreter wraps them), so `x * 2` is cr_mul(x, 2) and its grad_fn shows the
 * number's edge as (None, 0), as PyTorch's does. */
#pragma once

#include "cr-types.h"
#include "cr-kernels.h"
#include "cr-op-table.h"

G_BEGIN_DECLS

/* ---- elementwise (cr-ops-elementwise.c) -------------------------------- */
CrTensor *cr_add            (CrTensor *a, CrTensor *b, GError **error);
/* a + alpha * b (torch.add(a, b, alpha=)) */
CrTensor *cr_add_alpha      (CrTensor *a, CrTensor *b, double alpha, GError **error);
CrTensor *cr_sub            (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_sub_alpha      (CrTensor *a, CrTensor *b, double alpha, GError **error);
/* a - alpha * number, number a wrapped number: SubBackward0 keeping alpha */
CrTensor *cr_sub_number_alpha (CrTensor *a, CrTensor *number, double alpha, GError **error);
CrTensor *cr_mul            (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_div            (CrTensor *a, CrTensor *b, GError **error);
/* number - a: RsubBackward1 */
CrTensor *cr_rsub_scalar    (CrTensor *a, double number, GError **error);
/* number - alpha * a, number a wrapped number: RsubBackward1 keeping alpha */
CrTensor *cr_rsub_scalar_alpha (CrTensor *a, CrTensor *number, double alpha, GError **error);
/* b - alpha * a, b a tensor (torch.rsub(a, b, alpha=)): RsubBackward0 */
CrTensor *cr_rsub_alpha     (CrTensor *a, CrTensor *b, double alpha, GError **error);
/* a ** number: PowBackward0 */
CrTensor *cr_pow_scalar     (CrTensor *a, double exponent, GError **error);
/* a ** b (either may be a wrapped number): PowBackward1 */
CrTensor *cr_pow            (CrTensor *a, CrTensor *b, GError **error);
/* torch.pow(number, a): PowBackward2; integral as in cr_ops_wrap_number */
CrTensor *cr_pow_number_base(double base, gboolean integral, CrTensor *a, GError **error);
/* torch.linalg.inv, det and solve (A X = B, B a matrix or a vector) of
 * batches of square matrices (cr-ops-linalg-solve.c). */
CrTensor *cr_linalg_inv     (CrTensor *a, GError **error);
CrTensor *cr_linalg_det     (CrTensor *a, GError **error);
CrTensor *cr_linalg_solve   (CrTensor *a, CrTensor *b, GError **error);
/* F.unfold (x (N, C, H, W) or (C, H, W) to its blocks as columns,
 * Im2ColBackward0) and F.fold (columns added into an image of out_h ×
 * out_w, Col2ImBackward0); geometry: kernel, dilation, padding, stride,
 * each (height, width) (cr-ops-im2col.c). */
CrTensor *cr_im2col         (CrTensor *x, const gint64 *geometry, GError **error);
CrTensor *cr_col2im         (CrTensor *cols, gint64 out_h, gint64 out_w, const gint64 *geometry,
                             GError **error);
/* F.glu(x, dim): the first half of x along dim times σ of the second
 * (GluBackward0, cr-ops-glu.c). */
CrTensor *cr_glu            (CrTensor *x, int dim, GError **error);
/* torch.xlogy(number, y): XlogyBackward1 (cr-ops-xlogy-number.c). */
CrTensor *cr_xlogy_number_self (double number, gboolean integral, CrTensor *other,
                                GError **error);
CrTensor *cr_maximum        (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_minimum        (CrTensor *a, CrTensor *b, GError **error);
/* Comparisons, logic, floor division and remainder: no gradient. */
CrTensor *cr_binary_nograd  (CrBinaryOp op, CrTensor *a, CrTensor *b, GError **error);
/* a op b for an op PyTorch has no derivative of (floor_divide; remainder of
 * a number): recorded as NotImplemented over the inputs that require grad. */
CrTensor *cr_binary_no_derivative (CrBinaryOp op, CrTensor *a, CrTensor *b, GError **error);
/* x.div(other, rounding_mode='floor' (floor TRUE) | 'trunc'): DivBackward2. */
CrTensor *cr_div_rounding (CrTensor *x, CrTensor *other, gboolean floor, GError **error);

/* ---- the rows of core/cr-binary-ops.def (cr-ops-binary.c) --------------- */
/* op(a, b) for a CR_BINARY_OP row (CR_OP_ATAN2 ...); b may be a wrapped
 * number, which is then an input without a gradient (MulBackward0 of 2 * x). */
CrTensor *cr_binary         (CrOpId op, CrTensor *a, CrTensor *b, GError **error);
/* op(a, number) as PyTorch's .Scalar overload records it: the row's scalar
 * grad_fn (FmodBackward0, MulBackward1), one input; number a wrapped number. */
CrTensor *cr_binary_scalar  (CrOpId op, CrTensor *a, CrTensor *number, GError **error);
/* The same for a C double (a formula's `grad * 2`: MulBackward1). */
CrTensor *cr_binary_number  (CrOpId op, CrTensor *a, double number, GError **error);
/* self.op_(other) (number: other is a Python number, the .Scalar row), with
 * the rules of cr_inplace_binary. */
gboolean  cr_inplace_binary_row (CrOpId op, CrTensor *self, CrTensor *other, gboolean number,
                             GError **error);

/* One function for every unary elementwise op with a row of
 * core/cr-unary-ops.def (NEG EXP ... LEAKY_RELU ELU GELU ...); a row with
 * parameters gets its defaults. */
CrTensor *cr_unary          (CrOpId op, CrTensor *x, GError **error);

/* The numbers a row takes besides its tensor (its params column), and which
 * of them came as Python ints: grad_fn._saved_<name> shows 6, not 6.0. */
typedef struct {
  double value[CR_UNARY_MAX_PARAMS];
  guint  int_mask;
} CrUnaryParams;

/* op(x) with parameters (NULL: the row's defaults); the row's check fails
 * with PyTorch's RuntimeError ("lambda must be greater or equal to 0, ..."). */
CrTensor *cr_unary_p        (CrOpId op, CrTensor *x, const CrUnaryParams *params,
                             GError **error);
/* Parameter i of op's row: PyTorch's name ("negative_slope"), its default
 * (NAN: the script must give it), whether that is an int, and whether the
 * script passes it (F.elu passes alpha, not scale); FALSE past the last. */
gboolean  cr_ops_unary_param (CrOpId op, guint i, const char **out_name, double *out_default,
                             gboolean *out_int_default, gboolean *out_in_script);
CrTensor *cr_neg            (CrTensor *x, GError **error);
CrTensor *cr_exp            (CrTensor *x, GError **error);
CrTensor *cr_log            (CrTensor *x, GError **error);
CrTensor *cr_tanh           (CrTensor *x, GError **error);
CrTensor *cr_sigmoid        (CrTensor *x, GError **error);
CrTensor *cr_relu           (CrTensor *x, GError **error);
CrTensor *cr_sqrt           (CrTensor *x, GError **error);
CrTensor *cr_clamp          (CrTensor *x, gboolean has_min, double min,
                             gboolean has_max, double max, GError **error);
CrTensor *cr_where          (CrTensor *cond, CrTensor *a, CrTensor *b, GError **error);
/* self + weight·(end − self): a tensor weight (LerpBackward1), or number
 * when weight is NULL (LerpBackward0); in place into self (cr-ops-lerp.c). */
CrTensor *cr_lerp           (CrTensor *self, CrTensor *end, CrTensor *weight, double number,
                             GError **error);
gboolean  cr_lerp_          (CrTensor *self, CrTensor *end, CrTensor *weight, double number,
                             GError **error);
/* x where x > 0, else weight·x, weight one number or one per channel (dim
 * 1): F.prelu, nn.PReLU (PreluBackward0; cr-ops-prelu.c). */
CrTensor *cr_prelu          (CrTensor *x, CrTensor *weight, GError **error);
/* What nan_to_num puts for NaN and the infinities (theirs: the dtype's
 * largest and lowest numbers unless given). */
typedef struct {
  double   nan;
  gboolean has_posinf, has_neginf;
  double   posinf, neginf;
} CrNanToNum;
/* NanToNumBackward0, and in place (cr-ops-nan-to-num.c). */
CrTensor *cr_nan_to_num     (CrTensor *x, const CrNanToNum *with, GError **error);
gboolean  cr_nan_to_num_    (CrTensor *self, const CrNanToNum *with, GError **error);
/* clamp with tensor bounds (either may be NULL, not both), broadcast with
 * x: op CLAMP_TENSOR (torch.clamp, ClampBackward0), CLAMP_MIN_TENSOR (lo
 * only) or CLAMP_MAX_TENSOR (hi only); the in-place form writes into self
 * (cr-ops-clamp-tensor.c). */
CrTensor *cr_clamp_tensor   (CrOpId op, CrTensor *x, CrTensor *lo, CrTensor *hi,
                             GError **error);
gboolean  cr_clamp_tensor_  (CrOpId op, CrTensor *self, CrTensor *lo, CrTensor *hi,
                             GError **error);
/* self + value * t1 * t2, or self + value * t1 / t2 when divide (torch.addcmul,
 * torch.addcdiv); value is a 0-d (wrapped number) tensor. cr-ops-pointwise.c */
CrTensor *cr_addc           (CrTensor *self, CrTensor *t1, CrTensor *t2, CrTensor *value,
                             gboolean divide, GError **error);
/* The same into self (addcmul_, addcdiv_): PyTorch's in-place rules. */
gboolean  cr_addc_          (CrTensor *self, CrTensor *t1, CrTensor *t2, CrTensor *value,
                             gboolean divide, GError **error);
/* self.add_(other, alpha=) / self.sub_(other, alpha=) for op ADD / SUB. */
gboolean  cr_add_alpha_     (CrTensor *self, CrOpId op, CrTensor *other, double alpha,
                             GError **error);

CrTensor *cr_silu           (CrTensor *x, GError **error);

/* Fused backward helpers; differentiable themselves (double backward). */
CrTensor *cr_tanh_backward      (CrTensor *grad, CrTensor *out, GError **error);
CrTensor *cr_sigmoid_backward   (CrTensor *grad, CrTensor *out, GError **error);
CrTensor *cr_threshold_backward (CrTensor *grad, CrTensor *x, GError **error);
/* F.leaky_relu's backward, LeakyReluBackwardBackward0 (cr-ops-activation-backward.c) */
CrTensor *cr_leaky_relu_backward (CrTensor *grad, CrTensor *self, double negative_slope,
                                  GError **error);
/* hardtanh's, hardshrink's (soft: softshrink's) and F.threshold's backward:
 * HardtanhBackwardBackward0, ... (cr-ops-activation-backward.c) */
CrTensor *cr_hardtanh_backward  (CrTensor *grad, CrTensor *self, double min_val, double max_val,
                                  GError **error);
CrTensor *cr_shrink_backward    (CrTensor *grad, CrTensor *self, double lambd, gboolean soft,
                                  GError **error);
CrTensor *cr_threshold_backward_at (CrTensor *grad, CrTensor *self, double threshold,
                                    GError **error);
/* elu's (selu's, celu's) backward from its input or (is_result) its output:
 * EluBackwardBackward0 */
CrTensor *cr_elu_backward       (CrTensor *grad, CrTensor *self_or_result, double alpha,
                                  double scale, double input_scale, gboolean is_result,
                                  GError **error);
/* softplus's backward: SoftplusBackwardBackward0 */
CrTensor *cr_softplus_backward  (CrTensor *grad, CrTensor *self, double beta, double threshold,
                                  GError **error);
/* gelu's (approximate 0 none, 1 tanh), logsigmoid's, hardswish's backward:
 * GeluBackwardBackward0, LogSigmoidBackwardBackward0, HardswishBackwardBackward0
 * (cr-ops-curved-backward.c) */
CrTensor *cr_gelu_backward      (CrTensor *grad, CrTensor *self, double approximate,
                                  GError **error);
CrTensor *cr_log_sigmoid_backward (CrTensor *grad, CrTensor *self, GError **error);
CrTensor *cr_hardswish_backward (CrTensor *grad, CrTensor *self, GError **error);
/* hardsigmoid's backward, whose own derivative PyTorch lacks: a
 * torch::autograd::NotImplemented node (cr-ops-not-implemented.c) */
CrTensor *cr_hardsigmoid_backward (CrTensor *grad, CrTensor *self, GError **error);
/* softmax's (log: log_softmax's) backward from its output: SoftmaxBackwardDataBackward0
 * (cr-ops-softmax-backward.c) */
CrTensor *cr_softmax_backward_data (CrTensor *grad, CrTensor *out, int dim, gboolean log,
                                    GError **error);

/* ---- reductions (cr-ops-reduce.c) -------------------------------------- */
CrTensor *cr_sum            (CrTensor *x, GError **error);
CrTensor *cr_sum_dim        (CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                             GError **error);
CrTensor *cr_mean           (CrTensor *x, GError **error);
CrTensor *cr_mean_dim       (CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                             GError **error);
CrTensor *cr_prod           (CrTensor *x, GError **error);
/* x.prod(dim, keepdim): ProdBackward1 */
CrTensor *cr_prod_dim       (CrTensor *x, int dim, gboolean keepdim, GError **error);
CrTensor *cr_max_all        (CrTensor *x, GError **error);
CrTensor *cr_min_all        (CrTensor *x, GError **error);
/* values (differentiable) and indices (int64, *out_indices, new ref). */
CrTensor *cr_max_dim        (CrTensor *x, int dim, gboolean keepdim,
                             CrTensor **out_indices, GError **error);
CrTensor *cr_min_dim        (CrTensor *x, int dim, gboolean keepdim,
                             CrTensor **out_indices, GError **error);
/* sort / topk along dim: values (differentiable) and indices (int64,
 * *out_indices, new ref); a stable order, NaN as the largest (cr-ops-sort.c). */
CrTensor *cr_sort           (CrTensor *x, int dim, gboolean descending,
                             CrTensor **out_indices, GError **error);
CrTensor *cr_topk           (CrTensor *x, gint64 k, int dim, gboolean largest,
                             CrTensor **out_indices, GError **error);
/* torch.median() (MedianBackward0; NaN when x has one, or none), and the
 * value picked from each slice along dim with its index (int64,
 * *out_indices, new ref): median(dim) (MedianBackward1), kthvalue (k from
 * 1, KthvalueBackward0), mode (ModeBackward0), picking among equal values
 * as PyTorch 1.13's CPU kernels do (cr-ops-sort.c). */
CrTensor *cr_median_all     (CrTensor *x, GError **error);
CrTensor *cr_median_dim     (CrTensor *x, int dim, gboolean keepdim,
                             CrTensor **out_indices, GError **error);
CrTensor *cr_kthvalue       (CrTensor *x, gint64 k, int dim, gboolean keepdim,
                             CrTensor **out_indices, GError **error);
CrTensor *cr_mode           (CrTensor *x, int dim, gboolean keepdim,
                             CrTensor **out_indices, GError **error);
/* var / std over dims (n_dims 0: everything), dividing by N - correction
 * (1: unbiased, 0: not; none below 0): VarBackward0 / StdBackward0
 * (cr-ops-stats.c). */
CrTensor *cr_var            (CrTensor *x, const int *dims, int n_dims, double correction,
                             gboolean keepdim, GError **error);
CrTensor *cr_std            (CrTensor *x, const int *dims, int n_dims, double correction,
                             gboolean keepdim, GError **error);
/* amax / amin / logsumexp over dims (n_dims 0: everything). */
CrTensor *cr_amax           (CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                             GError **error);
CrTensor *cr_amin           (CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                             GError **error);
CrTensor *cr_logsumexp      (CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                             GError **error);
CrTensor *cr_cumsum         (CrTensor *x, int dim, GError **error);
/* The running product along dim (CumprodBackward0; cr-ops-cumulative.c). */
CrTensor *cr_cumprod        (CrTensor *x, int dim, GError **error);
/* log Σ exp along dim, running (LogcumsumexpBackward0; floats only). */
CrTensor *cr_logcumsumexp   (CrTensor *x, int dim, GError **error);
/* The running max (is_min: min) along dim and, in *out_indices (new ref),
 * where it was met: CummaxBackward0 / CumminBackward0 (cr-ops-cummax.c). */
CrTensor *cr_cummaxmin      (CrTensor *x, int dim, gboolean is_min, CrTensor **out_indices,
                             GError **error);
/* p-norm over everything (p = 2 for x.norm()). */
CrTensor *cr_norm           (CrTensor *x, double p, GError **error);
/* p-norm along dims (x.norm(dim=1)): NormBackward1 too. */
/* torch.linalg.vector_norm: the same, as LinalgVectorNormBackward0
 * (cr-ops-reduce.c). */
CrTensor *cr_linalg_vector_norm (CrTensor *x, double ord, const int *dims, int n_dims,
                             gboolean keepdim, GError **error);
CrTensor *cr_norm_dim       (CrTensor *x, double p, const int *dims, int n_dims,
                             gboolean keepdim, GError **error);
/* Sum x down to shape: the broadcast reduction that backward formulas use
 * (returns x itself, a new ref, when shapes match). Differentiable. */
CrTensor *cr_sum_to_shape   (CrTensor *x, const gint64 *shape, int ndim, GError **error);

/* ---- copies and casts (cr-ops-elementwise.c) --------------------------- */
CrTensor *cr_clone          (CrTensor *x, GError **error);
/* .float() .double() .long() .bool() .to(dtype): x itself when same dtype. */
CrTensor *cr_to_dtype       (CrTensor *x, CrDType dtype, GError **error);
/* A new tensor sharing x's storage and version counter, no history. */
CrTensor *cr_detach         (CrTensor *x);
/* detach_(): drops x's history in place (a RuntimeError for a view). */
gboolean  cr_detach_        (CrTensor *x, GError **error);

/* ---- in place (cr-ops-inplace.c) --------------------------------------- */
/* self op= other for ADD SUB MUL DIV (and POW_SCALAR with a wrapped number):
 * PyTorch's rules for leaves, the version counter bumped, and, when recording,
 * self's history extended (z += 1 makes z.grad_fn an AddBackward0). */
gboolean  cr_inplace_binary (CrOpId op, CrTensor *self, CrTensor *other, GError **error);
/* exp_(), log_(), relu_() ... for the ops of cr_unary: the same rules;
 * a formula that needs the old value gets a recorded clone of it. */
gboolean  cr_inplace_unary  (CrOpId op, CrTensor *self, GError **error);
/* The same with parameters (NULL: the row's defaults). The node is the
 * row's, or its CR_UNARY_INPLACE line's (leaky_relu_: LeakyReluBackward1). */
gboolean  cr_inplace_unary_p (CrOpId op, CrTensor *self, const CrUnaryParams *params,
                             GError **error);
gboolean  cr_zero_          (CrTensor *self, GError **error);
/* t_(), unsqueeze_(dim), squeeze_() and squeeze_(dim): self's geometry
 * changed in place (TBackward1, UnsqueezeBackward1, SqueezeBackward2/3). */
gboolean  cr_t_             (CrTensor *self, GError **error);
gboolean  cr_unsqueeze_     (CrTensor *self, int dim, GError **error);
gboolean  cr_squeeze_       (CrTensor *self, gboolean has_dim, int dim, GError **error);
gboolean  cr_fill_          (CrTensor *self, double value, GError **error);
gboolean  cr_copy_          (CrTensor *self, CrTensor *src, GError **error);
gboolean  cr_clamp_         (CrTensor *self, gboolean has_min, double min,
                             gboolean has_max, double max, GError **error);
/* self.clamp_min_(number) (ClampMinBackward0), clamp_max_ when is_max. */
gboolean  cr_clamp_bound_   (CrTensor *self, gboolean is_max, double bound, GError **error);

/* ---- pieces (cr-ops-pieces.c) ----------------------------------------- */
/* The pieces as views, in a GPtrArray of CrTensor* (owned): x.split(n, dim)
 * (and chunk), x.split([sizes], dim), x.unbind(dim). */
GPtrArray *cr_split         (CrTensor *x, gint64 split_size, int dim, GError **error);
/* x's elements where mask (bool, broadcast with x) is true, 1-d:
 * MaskedSelectBackward0 (cr-ops-masked-select.c). */
CrTensor  *cr_masked_select (CrTensor *x, CrTensor *mask, GError **error);
/* The same pieces sharing x's memory but not its view state: UnsafeSplitBackward0. */
GPtrArray *cr_unsafe_split  (CrTensor *x, gint64 split_size, int dim, GError **error);
GPtrArray *cr_split_with_sizes (CrTensor *x, const gint64 *sizes, guint n, int dim,
                                GError **error);
GPtrArray *cr_unbind        (CrTensor *x, int dim, GError **error);
CrTensor *cr_flip           (CrTensor *x, const int *dims, int n_dims, GError **error);
CrTensor *cr_triu           (CrTensor *x, gint64 diagonal, GError **error);
CrTensor *cr_tril           (CrTensor *x, gint64 diagonal, GError **error);
CrTensor *cr_trace          (CrTensor *x, GError **error);
/* x.repeat(r0, r1, ...): n >= x->ndim repeats (RepeatBackward0). */
CrTensor *cr_repeat         (CrTensor *x, const gint64 *repeats, int n, GError **error);

/* ---- shape (cr-ops-shape.c): views share storage where PyTorch's do ----- */
CrTensor *cr_t              (CrTensor *x, GError **error);          /* TBackward0 */
CrTensor *cr_mT             (CrTensor *x, GError **error);          /* .T: PermuteBackward0 */
CrTensor *cr_transpose      (CrTensor *x, int dim0, int dim1, GError **error);
CrTensor *cr_permute        (CrTensor *x, const int *dims, int n_dims, GError **error);
/* shape may hold one -1. view needs compatible strides (PyTorch's "view size is
 * not compatible with input tensor's size and stride ... Use .reshape(...)
 * instead."); reshape views when it can, else copies. */
CrTensor *cr_view           (CrTensor *x, const gint64 *shape, int ndim, GError **error);
CrTensor *cr_reshape        (CrTensor *x, const gint64 *shape, int ndim, GError **error);
CrTensor *cr_flatten        (CrTensor *x, int start_dim, int end_dim, GError **error);
CrTensor *cr_unsqueeze      (CrTensor *x, int dim, GError **error);
CrTensor *cr_squeeze        (CrTensor *x, GError **error);
CrTensor *cr_squeeze_dim    (CrTensor *x, int dim, GError **error);
/* -1 keeps a size. */
CrTensor *cr_expand         (CrTensor *x, const gint64 *shape, int ndim, GError **error);
CrTensor *cr_contiguous     (CrTensor *x, GError **error);
CrTensor *cr_cat            (CrTensor *const *xs, guint n, int dim, GError **error);
CrTensor *cr_stack          (CrTensor *const *xs, guint n, int dim, GError **error);

/* ---- indexing (cr-ops-index.c): Python's x[...] and x[...] = v --------- */
typedef enum {
  CR_INDEX_INT,         /* x[2] */
  CR_INDEX_SLICE,       /* x[1:3], x[::2]; has_* false for omitted parts */
  CR_INDEX_NONE,        /* x[None] */
  CR_INDEX_ELLIPSIS,    /* x[...] */
  CR_INDEX_TENSOR,      /* x[idx] (int64, advanced) or x[mask] (bool) */
} CrIndexKind;

typedef struct {
  CrIndexKind  kind;
  gint64       value;                       /* CR_INDEX_INT */
  gint64       start, stop, step;           /* CR_INDEX_SLICE */
  gboolean     has_start, has_stop, has_step;
  CrTensor    *tensor;                      /* CR_INDEX_TENSOR, borrowed */
} CrIndexItem;

/* Basic indexing gives views (SelectBackward0, SliceBackward0); tensor indices
 * give copies (IndexBackward0). Errors are PyTorch's IndexErrors. */
CrTensor *cr_index_get      (CrTensor *x, const CrIndexItem *items, guint n, GError **error);
/* x[items] = value (value broadcast), in place: PyTorch's leaf rules, the
 * version bumped, history through CopySlices / IndexPutBackward0. */
gboolean  cr_index_set      (CrTensor *x, const CrIndexItem *items, guint n,
                             CrTensor *value, GError **error);
/* x.index_put_(indices, value, accumulate): as x[indices] = value, adding
 * into x where accumulate (repeated positions add up). */
gboolean  cr_index_put_     (CrTensor *x, const CrIndexItem *items, guint n,
                             CrTensor *value, gboolean accumulate, GError **error);
/* torch.index_put: the same on a copy of x (a new ref), IndexPutBackward0
 * over (x, value). */
CrTensor *cr_index_put      (CrTensor *x, const CrIndexItem *items, guint n,
                             CrTensor *value, gboolean accumulate, GError **error);

/* x.masked_fill(mask, value): value a 0-d tensor (or wrapped number); the
 * result has broadcast(x, mask)'s shape. MaskedFillBackward0. */
CrTensor *cr_masked_fill    (CrTensor *x, CrTensor *mask, CrTensor *value, GError **error);
/* The same in place: self takes the result (and the node); FALSE on error. */
gboolean  cr_masked_fill_   (CrTensor *self, CrTensor *mask, CrTensor *value, GError **error);

/* torch.gather (GatherBackward0), index_select (IndexSelectBackward0) and
 * diag (DiagBackward0), with PyTorch's checks and messages (cr-ops-gather.c). */
CrTensor *cr_gather         (CrTensor *x, int dim, CrTensor *index, GError **error);
/* scatter / scatter_add of src (or of value when src is NULL: scatter
 * only), out of place or into self (inplace: self's new ref back);
 * ScatterBackward0/1, ScatterAddBackward0 (cr-ops-scatter.c). */
CrTensor *cr_scatter_full   (CrTensor *self, int dim, CrTensor *index, CrTensor *src,
                             double value, gboolean add, gboolean inplace, GError **error);
/* index_add / index_add_ (IndexAddBackward0), alpha times source. */
CrTensor *cr_index_add_full (CrTensor *self, int dim, CrTensor *index, CrTensor *source,
                             double alpha, gboolean inplace, GError **error);
/* torch.nonzero: the coordinates (n, ndim) of the nonzero elements, int64,
 * in row-major order; no graph (cr-ops-nonzero.c). */
CrTensor *cr_nonzero        (CrTensor *x, GError **error);
CrTensor *cr_index_select   (CrTensor *x, int dim, CrTensor *index, GError **error);
/* x.unfold(dim, size, step): windows of size along dim every step, a view
 * (UnfoldBackward0); x.as_strided(shape, strides, offset): a view of x's
 * storage with that geometry (AsStridedBackward0), offset x's own unless
 * has_offset (cr-ops-strided-views.c). */
CrTensor *cr_unfold         (CrTensor *x, int dim, gint64 size, gint64 step, GError **error);
CrTensor *cr_as_strided     (CrTensor *x, const gint64 *shape, int ndim, const gint64 *strides,
                             gboolean has_offset, gint64 offset, GError **error);
/* torch.take_along_dim: gather along dim after broadcasting input and
 * indices but along it; without a dim, of both flattened. */
CrTensor *cr_take_along_dim (CrTensor *x, CrTensor *indices, gboolean has_dim, int dim,
                             GError **error);
/* torch._pack_padded_sequence: the rows of input (T, B, *), or (B, T, *)
 * when batch_first, that sequences of lengths (int64, CPU, decreasing)
 * cover, step by step, and in *out_batch_sizes (new ref) the batch size of
 * each step: PackPaddedSequenceBackward0 (cr-ops-packed-sequence.c). */
CrTensor *cr_pack_padded_sequence (CrTensor *input, CrTensor *lengths, gboolean batch_first,
                             CrTensor **out_batch_sizes, GError **error);
CrTensor *cr_diag           (CrTensor *x, gint64 diagonal, GError **error);

/* ---- linear algebra (cr-ops-linalg.c) ---------------------------------- */
/* torch.matmul / @: dot (1-d,1-d), mv, mm, vector-matrix (SqueezeBackward3 on
 * top of MmBackward0), batched with broadcasting (BmmBackward0). */
CrTensor *cr_matmul         (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_mm             (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_mv             (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_dot            (CrTensor *a, CrTensor *b, GError **error);
CrTensor *cr_bmm            (CrTensor *a, CrTensor *b, GError **error);
/* bias + a @ b, bias broadcast to the product (torch.addmm, F.linear): AddmmBackward0 */
CrTensor *cr_addmm          (CrTensor *bias, CrTensor *a, CrTensor *b, GError **error);
/* beta * bias + alpha * (a @ b) (torch.addmm's beta= and alpha=): AddmmBackward0 */
CrTensor *cr_addmm_scaled   (CrTensor *bias, CrTensor *a, CrTensor *b, double beta,
                             double alpha, GError **error);
/* beta * self + alpha * (product), self broadcast to the product's shape
 * (cr-ops-products.c): mat @ vec (AddmvBackward0), vec1 ⊗ vec2
 * (AddrBackward0), batch1 @ batch2 (BaddbmmBackward0) and its sum over the
 * batch (AddbmmBackward0). */
CrTensor *cr_addmv          (CrTensor *self, CrTensor *mat, CrTensor *vec, double beta,
                             double alpha, GError **error);
CrTensor *cr_addr           (CrTensor *self, CrTensor *vec1, CrTensor *vec2, double beta,
                             double alpha, GError **error);
CrTensor *cr_baddbmm        (CrTensor *self, CrTensor *batch1, CrTensor *batch2, double beta,
                             double alpha, GError **error);
CrTensor *cr_addbmm         (CrTensor *self, CrTensor *batch1, CrTensor *batch2, double beta,
                             double alpha, GError **error);
/* Their in-place forms (self.addmm_(a, b) ...): product (one of the
 * functions above) computed, written into self, and op's node made self's
 * history (cr-ops-inplace-forms.c). */
typedef CrTensor *(*CrScaledProductFn) (CrTensor *self, CrTensor *a, CrTensor *b, double beta,
                                        double alpha, GError **error);
gboolean  cr_scaled_product_ (CrOpId op, CrScaledProductFn product, CrTensor *self, CrTensor *a,
                             CrTensor *b, double beta, double alpha, GError **error);
/* self.cumsum_(dim), self.cumprod_(dim) (product TRUE). */
gboolean  cr_cumulative_    (CrTensor *self, int dim, gboolean product, GError **error);
/* x.narrow(dim, start, length) (SliceBackward0), x.select(dim, index)
 * (SelectBackward0): views, with PyTorch's checks; torch.diff (n-th
 * differences along dim, prepend and append joined first; NULL when not
 * given): n == 0 a copy, n < 0 a new ref to x (cr-ops-narrow.c). */
CrTensor *cr_narrow         (CrTensor *x, int dim, gint64 start, gint64 length, GError **error);
CrTensor *cr_select_index   (CrTensor *x, int dim, gint64 index, GError **error);
CrTensor *cr_diff           (CrTensor *x, gint64 n, int dim, CrTensor *prepend, CrTensor *append,
                             GError **error);
/* torch.tensordot: a's dims_a contracted with b's dims_b (n_dims each,
 * negative allowed), composed of sum, permute, reshape and mm as PyTorch's
 * composite is, so no node of its own (cr-ops-products.c). */
CrTensor *cr_tensordot      (CrTensor *a, CrTensor *b, const gint64 *dims_a,
                             const gint64 *dims_b, int n_dims, GError **error);
/* The cross product of 3-vectors along dim, a and b broadcast
 * (LinalgCrossBackward0; cr-ops-cross.c); cr_cross without a dim takes a's
 * first dim of size 3, as torch.cross(dim=None). */
CrTensor *cr_linalg_cross   (CrTensor *a, CrTensor *b, int dim, GError **error);
CrTensor *cr_cross          (CrTensor *a, CrTensor *b, gboolean has_dim, int dim,
                             GError **error);

/* ---- neural-network functions (cr-ops-nn.c) ---------------------------- */
typedef enum {
  CR_REDUCTION_NONE,
  CR_REDUCTION_MEAN,
  CR_REDUCTION_SUM,
} CrReduction;

CrTensor *cr_softmax        (CrTensor *x, int dim, GError **error);
CrTensor *cr_log_softmax    (CrTensor *x, int dim, GError **error);
CrTensor *cr_mse_loss       (CrTensor *input, CrTensor *target, CrReduction reduction,
                             GError **error);
/* F.huber_loss (target broadcast to input through expand): HuberLossBackward0. */
CrTensor *cr_huber_loss     (CrTensor *input, CrTensor *target, CrReduction reduction,
                             double delta, GError **error);
/* F.smooth_l1_loss (same shapes): SmoothL1LossBackward0 (cr-ops-smooth-l1.c). */
CrTensor *cr_smooth_l1_loss (CrTensor *input, CrTensor *target, CrReduction reduction,
                             double beta, GError **error);
/* The gradients of loss's node (CR_OP_MSE_LOSS, SMOOTH_L1_LOSS, HUBER_LOSS;
 * param its beta or delta) for the inputs that need one, each an op:
 * MseLossBackwardBackward0, ... (cr-ops-loss-backward.c) */
gboolean  cr_pair_loss_grads    (CrOpId loss, const CrNode *node, CrTensor *grad, CrTensor *self,
                                 CrTensor *target, CrReduction reduction, double param,
                                 CrTensor **grad_inputs, GError **error);
CrTensor *cr_bce_with_logits(CrTensor *input, CrTensor *target, CrReduction reduction,
                             GError **error);
/* With weight and pos_weight broadcast to input's shape (either NULL: none). */
CrTensor *cr_bce_with_logits_full (CrTensor *input, CrTensor *target, CrTensor *weight,
                             CrTensor *pos_weight, CrReduction reduction, GError **error);
CrTensor *cr_binary_cross_entropy (CrTensor *input, CrTensor *target, CrReduction reduction,
                             GError **error);
/* With a weight broadcast to input's shape (NULL: none), as F.binary_cross_entropy's. */
CrTensor *cr_binary_cross_entropy_weighted (CrTensor *input, CrTensor *target,
                             CrTensor *weight, CrReduction reduction, GError **error);
/* logp (N, C) or (C), target int64 (N) or 0-d. */
CrTensor *cr_nll_loss       (CrTensor *logp, CrTensor *target, CrReduction reduction,
                             GError **error);
/* With class weights (NULL: none; C values) and targets equal to
 * ignore_index skipped (-100 in PyTorch); the mean divides by the total
 * weight of the targets kept. */
CrTensor *cr_nll_loss_full  (CrTensor *logp, CrTensor *target, CrTensor *weight,
                             gint64 ignore_index, CrReduction reduction, GError **error);
/* log_softmax(dim=1) then nll_loss, as PyTorch composes it. */
CrTensor *cr_cross_entropy  (CrTensor *logits, CrTensor *target, CrReduction reduction,
                             GError **error);
CrTensor *cr_cross_entropy_full (CrTensor *logits, CrTensor *target, CrTensor *weight,
                             gint64 ignore_index, CrReduction reduction, GError **error);

G_END_DECLS
