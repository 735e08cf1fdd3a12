/* cr-op-scalars.h — one small tensor op taken apart into its scalar graph,
 * from the run record alone: `c = a @ b` of 2×2 matrices becomes the four
 * elements of a, the four of b, the eight products a[i, k]·b[k, j] and the
 * four sums c[i, j], each edge with its local derivative ∂to/∂from at the
 * recorded values. With a backward step of the op, every scalar node gets
 * its gradient: an output element gets the step's incoming gradient at that
 * element, and every other node the sum over its out-edges of (the gradient
 * of the edge's end × the edge's local derivative): the chain rule one
 * element at a time. The input elements' gradients then equal what the
 * step sent to each input (the sum-to-shape of a broadcast included, as a
 * sum over the edges of a broadcast element).
 *
 * The expansion recomputes every output element from the input values and
 * refuses the op when a value differs from the record's (an option it does
 * not know, such as alpha=2 or reduction='sum' where it expects a mean).
 *
 * Ops covered (by grad_fn): elementwise add, sub, rsub, mul, div, neg, pow
 * (a tensor or a number on either side, with broadcasting), relu, tanh,
 * sigmoid, exp, log, sqrt, sin, cos, abs, reciprocal, and with their
 * recorded parameters leaky_relu, hardtanh, elu/selu, celu, softplus,
 * threshold (and the in-place elu_, leaky_relu_, celu_, threshold_),
 * hard/softshrink, silu, gelu, log_sigmoid, rsqrt, erf, tan,
 * atan, asin, acos, atanh, sinh, cosh, log1p, expm1, exp2, log2, log10,
 * sign; sum and mean (all
 * elements, or over dims); max, min, amax and amin (max(dim)'s gradient
 * to the index it took, the others' shared among ties); prod, norm and
 * linalg.vector_norm (p = 0, 1, 2, ∞ or any), var and std (their
 * correction), logsumexp, cumsum, cumprod, logcumsumexp, cummax and
 * cummin; median (all elements, or over a dim), kthvalue and mode; addcmul, addcdiv, clamp (number or tensor bounds) and where;
 * copysign, logaddexp2, lerp, prelu and glu; cdist (p = 0, 1, 2, ∞ or any, batched) and
 * bilinear (TrilinearBackward0, each term x1·A·x2 a node); the backwards
 * of tanh, sigmoid, elu, leaky_relu, hardtanh, softplus, gelu,
 * log_sigmoid, hardswish, the shrinks, threshold, mse, smooth_l1, huber,
 * softmax and log_softmax run as ops (a double backward: *BackwardBackward0);
 * mm, mv, dot, bmm, addmv and addmm (nn.Linear's x@W.T+b); softmax and
 * log_softmax; mse_loss, smooth_l1_loss and huber_loss (mean, sum or none),
 * binary_cross_entropy and binary_cross_entropy_with_logits (weight, pos_weight) and nll_loss (cross_entropy's second
 * half; mean, sum or none, with class weights and ignore_index); conv1d and
 * conv2d and their transposed forms (each output a sum of the products that
 * reach it), max_pool2d and avg_pool2d and their adaptive forms;
 * layer_norm, batch_norm and group_norm (each group's mean and variance as
 * nodes, then x̂ and the affine; batch norm in eval from its running
 * statistics); gather, embedding (padding_idx's row gets no gradient,
 * scale_grad_by_freq divides), index_select, indexing with a tensor,
 * pack_padded_sequence, sort, topk, masked_select, Tensor.unfold,
 * select, slices, cat, stack, masked_fill, x[idx] = v (index_put, its
 * accumulating form too); F.pad (constant, reflect,
 * replicate), repeat, flip, roll, tril, triu, diag and diagonal; unbind, split, chunk and
 * unsafe_split (several outputs, their elements stepped one output after
 * the other); views, reshapes, squeeze/unsqueeze, clone, t, transpose,
 * permute, expand. Dims,
 * a convolution's and a pool's geometry and eps are the op's recorded
 * arguments (CrRecordOp.arguments). A custom Function is refused with why
 * (its backward is the script's code), a convolution's, a pool's or layer
 * norm's backward run as an op and PyTorch's NotImplemented node with why,
 * any other op with its name
 * (CR_EXC_NOT_IMPLEMENTED_ERROR).
 *
 * An input whose values the record does not keep (an unnamed result inside
 * cross_entropy's label smoothing) is recomputed from the op that made it,
 * by that op's own scalar graph, forward only. An input the script never
 * named is called by what made it: "x[:]", "log_softmax(x)", "mul at line
 * 6" (cr-op-scalars-names.c).
 *
 * Size: the op's inputs and output together hold at most
 * CR_OP_SCALARS_MAX_ELEMENTS elements, and the graph at most
 * CR_OP_SCALARS_MAX_NODES nodes (a 4×4 @ 4×4 matmul: 48 elements, 64
 * products). */
#pragma once

#include "cr-run-record.h"

G_BEGIN_DECLS

#define CR_OP_SCALARS_MAX_ELEMENTS 64
#define CR_OP_SCALARS_MAX_NODES    256

typedef enum {
  CR_SCALAR_NODE_INPUT,    /* an element of one of the op's tensor inputs */
  CR_SCALAR_NODE_INNER,    /* a value between: a product a[0, 0]·b[0, 0] of a matmul */
  CR_SCALAR_NODE_OUTPUT,   /* an element of the op's output */
} CrScalarNodeKind;

typedef struct {
  CrScalarNodeKind kind;
  int       tensor;     /* INPUT, OUTPUT: the tensor (index in record->tensors); INNER: -1 */
  gint64    element;    /* INPUT, OUTPUT: row-major in that tensor; INNER: -1 */
  char     *label;      /* "a[0, 1]", "c[0, 0]", "a[0, 0]·b[0, 0]" */
  char     *operation;  /* how it is made from its in-edges: "+", "×", "tanh", "Σ";
                         * NULL for an input */
  char     *equation;   /* INNER, OUTPUT: "c[0, 0] = a[0, 0]·b[0, 0] + a[0, 1]·b[1, 0]";
                         * NULL for an input */
  char     *numbers;    /* the equation's right side with the values: "1·5 + 2·7";
                         * NULL for an input, or where it would say no more */
  double    value;      /* its forward value */
  double    grad;       /* ∂L/∂node (NaN without a backward step) */
  guint     sub_step;   /* OUTPUT, INNER: the output element's place in the backward
                         * step taken element by element (0-based); INPUT: 0 */
} CrScalarNode;

typedef struct {
  guint     from;       /* node index: the edge's start feeds its end */
  guint     to;
  double    local;      /* ∂to/∂from at the recorded values */
  char     *local_text; /* the local derivative as a formula: "b[0, 0]", "1 − c[1]²" */
  double    product;    /* grad(to) × local: this edge's share of grad(from) (NaN
                         * without a backward step) */
  guint     sub_step;   /* the output element whose gradient it carries (as the node's) */
} CrScalarEdge;

typedef struct {
  int        op;         /* index in record->ops */
  int        backward;   /* the backward call whose step gave the gradients, -1: none */
  int        step;       /* that step's index in the call, -1: none */
  char      *title;      /* "c = a @ b · MmBackward0: (2, 2) @ (2, 2) → (2, 2)" */
  GPtrArray *nodes;      /* of CrScalarNode*: the inputs' elements (operand order,
                          * row-major), then for each output element (row-major) the
                          * inner nodes it needs and itself: an edge always goes
                          * from a node to a later one */
  GPtrArray *edges;      /* of CrScalarEdge*, grouped by sub_step */
  guint      n_sub_steps; /* the output's elements: the backward step element by element */
  GArray    *inputs;     /* of int: the op's tensor inputs with nodes here (index in
                          * record->tensors, each once) */
} CrOpScalars;

/* Whether op (index in record->ops) is small enough and of a kind that can
 * be opened; with why not (a new string) when not. Cheap: no expansion. */
gboolean     cr_op_scalars_can_open (const CrRunRecord *record,
                                     int                op,
                                     char             **why_not);

/* The scalar graph of op (index in record->ops), with the gradients of
 * step `step` of backward call `backward` (which must be a step of that
 * op), or of the op's first step in any call when backward is -1 (none:
 * no gradients). NULL with error when the op is too big, not covered, or
 * the record does not keep its values. */
CrOpScalars *cr_op_scalars_new      (const CrRunRecord *record,
                                     int                op,
                                     int                backward,
                                     int                step,
                                     GError           **error);
void         cr_op_scalars_free     (CrOpScalars       *self);   /* NULL-safe */

/* The gradient of input element `element` of tensor `tensor` summed over the
 * sub-steps before `upto` (upto = n_sub_steps: all of it), for stepping
 * element by element; NaN without gradients or when no node is that element. */
double       cr_op_scalars_grad_upto (const CrOpScalars *self,
                                      int                tensor,
                                      gint64             element,
                                      guint              upto);
/* The node of tensor's element `element`, or -1. */
int          cr_op_scalars_find_node (const CrOpScalars *self,
                                      int                tensor,
                                      gint64             element);

/* The gradient the op's backward step sent to tensor's element, summed over
 * the step's inputs that are that tensor (x * x sends two); NaN when there
 * is no step or it sent none there. */
double       cr_op_scalars_sent      (const CrOpScalars *self,
                                      const CrRunRecord *record,
                                      int                tensor,
                                      gint64             element);
/* How many input elements' gradients differ from what the step sent (0
 * without a step). */
guint        cr_op_scalars_count_disagreements (const CrOpScalars *self,
                                                const CrRunRecord *record);
/* Whether a scalar graph's gradient and the step's agree: float32 steps. */
gboolean     cr_op_scalars_same_grad (double scalar_graph,
                                      double sent);

/* The forward equations and the per-element chain rule, as
 * `chainrule explain-op` prints them (new string). */
char        *cr_op_scalars_format   (const CrOpScalars *self,
                                     const CrRunRecord *record);

/* One position of the backward step taken element by element, as the
 * window's scalar view says it: position 0 is before any element (the
 * forward equations' values); position k + 1 is output element k, its
 * equation, its incoming gradient and what each input element gets from
 * it (new string, a few lines of plain text). */
char        *cr_op_scalars_format_position (const CrOpScalars *self,
                                            const CrRunRecord *record,
                                            guint              position);

/* The input element (flat, in `in`) that element j of `out` is, for op a
 * SelectBackward0 or SliceBackward0 node, by its recorded dim and index or
 * start and step; -1 for another op or when the record keeps no such
 * arguments. The one rule the scalar view and the paths walk share. */
gint64       cr_op_scalars_view_source (const CrRecordOp     *op,
                                        const CrRecordTensor *in,
                                        const CrRecordTensor *out,
                                        gint64                j);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrOpScalars, cr_op_scalars_free)

G_END_DECLS
