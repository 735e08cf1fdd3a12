/* cr-op-scalars-private.h — what the files of a small op's scalar graph
 * share (core/teach/cr-op-scalars*.c): the op kinds, the builder's state,
 * and the helpers that make nodes and edges. Not installed. */
#pragma once

#include "cr-op-scalars.h"

G_BEGIN_DECLS

/* What the op computes, element by element. */
typedef enum {
  KIND_ADD, KIND_SUB, KIND_RSUB, KIND_MUL, KIND_DIV, KIND_POW,          /* binary */
  KIND_NEG, KIND_RELU, KIND_TANH, KIND_SIGMOID, KIND_EXP, KIND_LOG,      /* unary */
  KIND_SQRT, KIND_SIN, KIND_COS, KIND_ABS, KIND_RECIPROCAL,
  KIND_SUM, KIND_MEAN,                                                  /* reductions */
  KIND_MATMUL, KIND_ADDMM,
  KIND_SOFTMAX, KIND_LOG_SOFTMAX,
  KIND_MSE, KIND_BCE_LOGITS,
  KIND_VIEW, KIND_T, KIND_EXPAND,
  KIND_NLL,
  KIND_CONV, KIND_MAX_POOL, KIND_AVG_POOL,                              /* layers */
  KIND_LAYER_NORM, KIND_BATCH_NORM,
  KIND_TAKE, KIND_SELECT, KIND_CAT, KIND_STACK,                         /* pieces */
  KIND_SLICE, KIND_GROUP_NORM, KIND_ADAPTIVE_AVG_POOL, KIND_ADAPTIVE_MAX_POOL,
  KIND_MASKED_FILL, KIND_SPLIT, KIND_PERMUTE, KIND_ACTIVATION, KIND_EXTREMUM,
  KIND_ROBUST_LOSS, KIND_GROUP, KIND_COPY, KIND_BCE, KIND_POINTWISE,
  KIND_CDIST, KIND_BILINEAR, KIND_DOUBLE_BACKWARD,
} Kind;

/* One op being taken apart. */
typedef struct {
  const CrRunRecord    *record;
  const CrRecordOp     *op;
  Kind                  kind;
  CrOpScalars          *self;
  const CrRecordTensor *out;
  const CrRecordStep   *step;     /* the backward step giving gradients, or NULL */
  const char           *root;     /* the loss's name, "L" */
  GHashTable           *bases;    /* input tensor id -> its first node index + 1 */
  GHashTable           *derived;  /* tensor id -> values found from its view's input (owned) */
  guint                 sub_step; /* the output element being built */
  guint                 sub_step_base; /* an op of several outputs: the elements of the
                                   * outputs before b->out */
  GError               *error;
  guint                 depth;    /* 0: the op opened; n: an op opened n levels below it
                                   * to recompute values the record does not keep */
  GHashTable           *recomputed; /* tensor id -> its recomputed values, NULL: none
                                   * (owned by the outermost opening, shared) */
} Build;

/* Tensor id of the record, or NULL. */
const CrRecordTensor *scalars_tensor_at (const CrRunRecord *record, int id);
gint64 scalars_numel_of (const CrRecordTensor *t);
gboolean scalars_lookup_kind (const char *grad_fn, Kind *out);
gboolean scalars_kind_is_unary (Kind kind);
gboolean scalars_kind_is_binary (Kind kind);
char *scalars_shape_text (const CrRecordTensor *t);
/* "a[0, 1]" (new string). */
char *scalars_element_label (const CrRecordTensor *t, gint64 element);
/* What the scalar view calls tensor t: its label, or for one the script
 * never named what made it, "x[:]", "log_softmax(x)", "mul at line 6"
 * (new string; cr-op-scalars-names.c). */
char *scalars_tensor_name (const CrRunRecord *record, const CrRecordTensor *t);
/* An input element's name: an unnamed transpose of a named tensor as
 * "W.T[0, 1]" (new string). */
char *scalars_input_label (const CrRunRecord *record, const CrRecordTensor *t, gint64 element);
/* A value as a factor or term: negative ones in parentheses. */
void scalars_append_number (GString *s, double v);
/* A number as an op on t's dtype compares with it: PyTorch's kernels cast
 * a threshold or a bound to the tensor's type (0.3 as a float32 is
 * 0.30000001, which a float32 x = 0.3 does not exceed). */
double scalars_in_dtype (const CrRecordTensor *t, double v);
/* Whether a value computed here is the one recorded (float32 results). */
gboolean scalars_same_value (double computed, double recorded);
/* The element of shape `to` that element `flat` of the broadcast shape
 * `from` reads. */
gint64 scalars_broadcast_source (gint64 flat, int from_ndim, const gint64 *from, int to_ndim,
                        const gint64 *to);
gboolean scalars_broadcasts_to (const CrRecordTensor *t, const CrRecordTensor *out);
/* Input tensor t's values as the op read them (borrowed). */
const double *scalars_input_values (Build *b, const CrRecordTensor *t);
/* The recorded value of output element e, NaN when not kept. */
double scalars_output_value (const Build *b, gint64 e);
/* Sets b's error (the first only): the op named, then why. FALSE. */
gboolean scalars_fail (Build *b, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Appends a node made in output element b->sub_step; takes label,
 * equation and numbers. */
guint scalars_add_node (Build *b, CrScalarNodeKind kind, int tensor, gint64 element, char *label,
                        const char *operation, char *equation, char *numbers, double value);
/* Appends an edge; takes local_text. */
void scalars_add_edge (Build *b, guint from, guint to, double local, char *local_text);
/* The first node of input tensor t's elements, made once. */
guint scalars_input_nodes (Build *b, const CrRecordTensor *t);
/* Output element e computed here as value (refused when the record says
 * otherwise); takes equation and numbers. */
guint scalars_add_output (Build *b, gint64 e, const char *operation, char *equation, char *numbers,
                        double value);
/* What step sent to tensor's element, summed over its inputs that are
 * that tensor; NaN: none. */
double scalars_step_sent (const CrRecordStep *step, int tensor, gint64 element);
/* The step's incoming gradient at element (0 for None; NaN: not kept). */
double scalars_incoming_at (const CrRecordStep *step, gint64 element);
/* The builders, one per family of ops: FALSE with b->error. */
gboolean scalars_build_elementwise (Build *b);
/* For each element of in, the element of out it is summed into over the
 * dims in mask; FALSE when out's shape is not that. */
gboolean scalars_reduce_map (const CrRecordTensor *in, const CrRecordTensor *out, guint mask,
                        gint64 *map);
/* A dim as the op used it (-1 of a 2-d input is 1); -1 when out of range. */
int scalars_wrap_dim (gint64 dim, int ndim);
/* The dims the record says the op reduced over, as a mask of in's dims;
 * FALSE when it keeps none. */
gboolean scalars_reduced_mask (Build *b, const CrRecordTensor *in, guint *mask);
/* The dims of a recorded "dim" (an int or a tuple) as a mask of an ndim
 * tensor's: all of them where dim is NULL, None or (); FALSE for a dim out
 * of range. */
gboolean scalars_dims_mask (const CrRecordArgument *dim, int ndim, guint *mask);
/* The op's tensor input i, NULL when it has none there or the record
 * does not know it. */
const CrRecordTensor *scalars_input_at (const Build *b, guint i);
/* The op's own "positions" (where each output element came from, or went),
 * all n of them; NULL when the record keeps none. */
const CrTensorSnapshot *scalars_positions (const CrRecordOp *op, gint64 n);
gboolean scalars_build_reduction (Build *b);
gboolean scalars_build_matmul (Build *b);
gboolean scalars_build_softmax (Build *b);
/* cr-op-scalars-losses.c: mse_loss, binary_cross_entropy (with logits). */
gboolean scalars_build_loss (Build *b);
gboolean scalars_build_view (Build *b);
/* The input element (flat) that element j of a transpose's or a permute's
 * output is, by the op's recorded dims; -1 when the record keeps none. */
gint64 scalars_permute_source (const CrRecordOp *op, const CrRecordTensor *in,
                               const CrRecordTensor *out, gint64 j);
gboolean scalars_build_nll (Build *b);
/* cr-op-scalars-nn.c */
gboolean scalars_build_conv (Build *b);
gboolean scalars_build_pool (Build *b);
gboolean scalars_build_norm (Build *b);
/* cr-op-scalars-pieces.c */
/* Output element o copies element `from` of input tensor `in` (its nodes
 * start at base): "y[1] = x[0]", the edge 1. */
void scalars_add_copy (Build *b, const CrRecordTensor *in, guint base, gint64 o, gint64 from);
/* The index of flat element e of shape (ndim, shape), one per dim, and back. */
void scalars_unravel (gint64 e, int ndim, const gint64 *shape, gint64 *index);
gint64 scalars_ravel (int ndim, const gint64 *shape, const gint64 *index);
gboolean scalars_build_take (Build *b);
gboolean scalars_build_select (Build *b);
gboolean scalars_build_slice (Build *b);
/* The input element (flat) that element j of a select's or a slice's
 * output views, by the op's recorded dim, index or start and step; -1
 * when the record keeps none. */
gint64 scalars_view_source (const CrRecordOp *op, Kind kind, const CrRecordTensor *in,
                            const CrRecordTensor *out, gint64 j);
gboolean scalars_build_join (Build *b);
gboolean scalars_build_masked_fill (Build *b);
gboolean scalars_build_split (Build *b);
/* cr-op-scalars-activations.c: whether grad_fn is one of its functions. */
gboolean scalars_is_activation (const char *grad_fn);
gboolean scalars_build_activation (Build *b);
/* cr-op-scalars-extrema.c: max, min, amax, amin. */
gboolean scalars_build_extremum (Build *b);
/* cr-op-scalars-robust.c: smooth_l1_loss, huber_loss. */
gboolean scalars_build_robust_loss (Build *b);
/* cr-op-scalars-groups.c: prod, norms, var, std, logsumexp, cumsum,
 * cumprod, logcumsumexp; whether grad_fn is one of them. */
gboolean scalars_is_group_op (const char *grad_fn);
gboolean scalars_build_group (Build *b);
/* cr-op-scalars-copies.c: constant pads, repeat, flip, tril, triu, diag. */
gboolean scalars_is_copy_op (const char *grad_fn);
gboolean scalars_build_copy (Build *b);
/* cr-op-scalars-distance.c: cdist (KIND_CDIST) and bilinear's
 * TrilinearBackward0 (KIND_BILINEAR). */
gboolean scalars_build_distance (Build *b);
/* cr-op-scalars-double.c: an activation's, a loss's or softmax's backward
 * run as an op (a double backward); whether grad_fn is one it opens, and
 * why it refuses a convolution's, a pool's or layer norm's (static; NULL:
 * not one of those). */
gboolean scalars_is_double_backward (const char *grad_fn);
const char *scalars_double_backward_refusal (const char *grad_fn);
gboolean scalars_build_double_backward (Build *b);
/* cr-op-scalars-pointwise.c: addcmul, addcdiv, clamp, where. */
gboolean scalars_is_pointwise_op (const char *grad_fn);
gboolean scalars_build_pointwise (Build *b);

G_END_DECLS
