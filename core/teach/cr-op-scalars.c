/* cr-op-scalars.c — a small tensor op's scalar graph, from the run record
 * (cr-op-scalars.h): which ops, their per-element equations and local
 * derivatives, and the chain rule one element at a time. The ops' own
 * expansions are in cr-op-scalars-elementwise.c and cr-op-scalars-shapes.c;
 * the text that `chainrule explain-op` prints is in cr-op-scalars-format.c. */
#include "cr-op-scalars-private.h"

#include "cr-error.h"
#include "cr-paths.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
  const char *grad_fn;
  Kind        kind;
} OpName;

static const OpName op_names[] = {
  { "AddBackward0", KIND_ADD }, { "AddBackward1", KIND_ADD },
  { "SubBackward0", KIND_SUB }, { "SubBackward1", KIND_SUB },
  { "RsubBackward0", KIND_RSUB }, { "RsubBackward1", KIND_RSUB },
  { "MulBackward0", KIND_MUL }, { "MulBackward1", KIND_MUL },
  { "DivBackward0", KIND_DIV }, { "DivBackward1", KIND_DIV },
  { "PowBackward0", KIND_POW }, { "PowBackward1", KIND_POW },
  { "NegBackward0", KIND_NEG }, { "ReluBackward0", KIND_RELU },
  { "TanhBackward0", KIND_TANH }, { "SigmoidBackward0", KIND_SIGMOID },
  { "ExpBackward0", KIND_EXP }, { "LogBackward0", KIND_LOG },
  { "SqrtBackward0", KIND_SQRT }, { "SinBackward0", KIND_SIN },
  { "CosBackward0", KIND_COS }, { "AbsBackward0", KIND_ABS },
  { "ReciprocalBackward0", KIND_RECIPROCAL },
  { "SumBackward0", KIND_SUM }, { "SumBackward1", KIND_SUM },
  { "MeanBackward0", KIND_MEAN }, { "MeanBackward1", KIND_MEAN },
  { "MmBackward0", KIND_MATMUL }, { "MvBackward0", KIND_MATMUL },
  { "DotBackward0", KIND_MATMUL }, { "AddmmBackward0", KIND_ADDMM },
  { "AddmvBackward0", KIND_ADDMM },
  { "SoftmaxBackward0", KIND_SOFTMAX }, { "LogSoftmaxBackward0", KIND_LOG_SOFTMAX },
  { "MseLossBackward0", KIND_MSE },
  { "BinaryCrossEntropyWithLogitsBackward0", KIND_BCE_LOGITS },
  { "BinaryCrossEntropyBackward0", KIND_BCE },
  { "NllLossBackward0", KIND_NLL }, { "NllLoss2DBackward0", KIND_NLL },
  { "ViewBackward0", KIND_VIEW }, { "ReshapeAliasBackward0", KIND_VIEW },
  { "UnsafeViewBackward0", KIND_VIEW }, { "UnsqueezeBackward0", KIND_VIEW },
  { "UnsqueezeBackward1", KIND_VIEW }, { "SqueezeBackward0", KIND_VIEW },
  { "SqueezeBackward1", KIND_VIEW }, { "SqueezeBackward2", KIND_VIEW },
  { "SqueezeBackward3", KIND_VIEW }, { "CloneBackward0", KIND_VIEW },
  { "AliasBackward0", KIND_VIEW }, { "ContiguousBackward0", KIND_VIEW },
  { "ToCopyBackward0", KIND_VIEW },
  { "TBackward0", KIND_T }, { "ExpandBackward0", KIND_EXPAND },
  { "BmmBackward0", KIND_MATMUL },
  { "ConvolutionBackward0", KIND_CONV },
  { "MaxPool2DWithIndicesBackward0", KIND_MAX_POOL }, { "AvgPool2DBackward0", KIND_AVG_POOL },
  { "AdaptiveAvgPool2DBackward0", KIND_ADAPTIVE_AVG_POOL },
  { "AdaptiveMaxPool2DBackward0", KIND_ADAPTIVE_MAX_POOL },
  { "NativeLayerNormBackward0", KIND_LAYER_NORM }, { "NativeBatchNormBackward0", KIND_BATCH_NORM },
  { "GatherBackward0", KIND_TAKE }, { "IndexSelectBackward0", KIND_TAKE },
  /* Reflect and replicate pads, a diagonal: the record keeps each output
   * element's place in the input. */
  { "ReflectionPad1DBackward0", KIND_TAKE }, { "ReflectionPad2DBackward0", KIND_TAKE },
  { "ReflectionPad3DBackward0", KIND_TAKE }, { "ReplicationPad1DBackward0", KIND_TAKE },
  { "ReplicationPad2DBackward0", KIND_TAKE }, { "ReplicationPad3DBackward0", KIND_TAKE },
  { "DiagonalBackward0", KIND_TAKE }, { "AsStridedBackward0", KIND_TAKE },
  { "IndexBackward0", KIND_TAKE }, { "EmbeddingBackward0", KIND_TAKE },
  /* pack_padded_sequence, sort, topk, masked_select, Tensor.unfold: each
   * output element's place in the input. */
  { "PackPaddedSequenceBackward0", KIND_TAKE }, { "SortBackward0", KIND_TAKE },
  { "TopkBackward0", KIND_TAKE }, { "MaskedSelectBackward0", KIND_TAKE },
  { "UnfoldBackward0", KIND_TAKE },
  { "SelectBackward0", KIND_SELECT },
  { "CatBackward0", KIND_CAT }, { "StackBackward0", KIND_STACK },
  { "SliceBackward0", KIND_SLICE }, { "NativeGroupNormBackward0", KIND_GROUP_NORM },
  { "MaskedFillBackward0", KIND_MASKED_FILL }, { "MaskedFillBackward1", KIND_MASKED_FILL },
  { "UnbindBackward0", KIND_SPLIT }, { "SplitBackward0", KIND_SPLIT },
  { "SplitWithSizesBackward0", KIND_SPLIT }, { "UnsafeSplitBackward0", KIND_SPLIT },
  { "UnsafeSplitWithSizesBackward0", KIND_SPLIT },
  { "TransposeBackward0", KIND_PERMUTE }, { "PermuteBackward0", KIND_PERMUTE },
  { "MaxBackward0", KIND_EXTREMUM }, { "MaxBackward1", KIND_EXTREMUM },
  { "MinBackward0", KIND_EXTREMUM }, { "MinBackward1", KIND_EXTREMUM },
  { "AmaxBackward0", KIND_EXTREMUM }, { "AminBackward0", KIND_EXTREMUM },
  { "SmoothL1LossBackward0", KIND_ROBUST_LOSS }, { "HuberLossBackward0", KIND_ROBUST_LOSS },
  { "CdistBackward0", KIND_CDIST }, { "TrilinearBackward0", KIND_BILINEAR },
};


const CrRecordTensor *
scalars_tensor_at (const CrRunRecord *record,
           int                id)
{
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

const CrRecordTensor *
scalars_input_at (const Build *b,
                  guint        i)
{
  return i < b->op->inputs->len ? scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, i))
                                : NULL;
}

const CrTensorSnapshot *
scalars_positions (const CrRecordOp *op,
                   gint64            n)
{
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (saved->internal && g_strcmp0 (saved->name, "positions") == 0 && saved->value
          && saved->value->n_values == n)
        return saved->value;
    }
  return NULL;
}

gint64
scalars_numel_of (const CrRecordTensor *t)
{
  gint64 n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

gboolean
scalars_lookup_kind (const char *grad_fn,
             Kind       *out)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (op_names); i++)
    if (strcmp (grad_fn, op_names[i].grad_fn) == 0)
      {
        *out = op_names[i].kind;
        return TRUE;
      }
  /* The families whose files keep their own tables of grad_fns. */
  static const struct {
    gboolean (*has) (const char *grad_fn);
    Kind       kind;
  } families[] = {
    { scalars_is_activation, KIND_ACTIVATION }, { scalars_is_group_op, KIND_GROUP },
    { scalars_is_copy_op, KIND_COPY }, { scalars_is_pointwise_op, KIND_POINTWISE },
    { scalars_is_double_backward, KIND_DOUBLE_BACKWARD },
  };
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (families); i++)
    if (families[i].has (grad_fn))
      {
        *out = families[i].kind;
        return TRUE;
      }
  return FALSE;
}

gboolean
scalars_kind_is_unary (Kind kind)
{
  return kind >= KIND_NEG && kind <= KIND_RECIPROCAL;
}

gboolean
scalars_kind_is_binary (Kind kind)
{
  return kind <= KIND_POW;
}

char *
scalars_shape_text (const CrRecordTensor *t)
{
  GString *s = g_string_new ("(");
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
  g_string_append (s, t->ndim == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

char *
scalars_element_label (const CrRecordTensor *t,
               gint64                element)
{
  g_autofree char *index = cr_record_element_text (t, element);
  return g_strdup_printf ("%s%s", t->label ? t->label : "?", index);
}

/* An element's name in the equations: a tensor the script never named by
 * what made it (scalars_tensor_name), its iterations kept. */
char *
scalars_input_label (const CrRunRecord    *record,
             const CrRecordTensor *t,
             gint64                element)
{
  if (!t->label || t->label[0] != '[')
    return scalars_element_label (t, element);
  g_autofree char *name = scalars_tensor_name (record, t);
  g_autofree char *index = cr_record_element_text (t, element);
  /* A name with an operator in it is one term: "(a + b)[0]", "x.T[0, 1]" is not. */
  gboolean wrap = strpbrk (name, " ") && name[0] != '(' && index[0];
  return g_strdup_printf (wrap ? "(%s)%s" : "%s%s", name, index);
}

/* A value as a factor or term in the numbers: negative ones in parentheses. */
void
scalars_append_number (GString *s,
               double   v)
{
  v = v == 0 ? 0 : v;  /* -0 prints as 0 */
  g_string_append_printf (s, v < 0 ? "(%.4g)" : "%.4g", v);
}

double
scalars_in_dtype (const CrRecordTensor *t,
                  double                v)
{
  return t && g_strcmp0 (t->dtype, "torch.float32") == 0 ? (double) (float) v : v;
}

gboolean
scalars_same_value (double computed,
            double recorded)
{
  if (isnan (computed) || isnan (recorded))
    return isnan (computed) && isnan (recorded);
  if (isinf (computed) || isinf (recorded))
    return computed == recorded;
  return fabs (computed - recorded) <= 1e-4 + 1e-4 * fabs (recorded);
}

/* Element of a tensor of shape `to` that element `flat` of the broadcast
 * shape `from` reads (to has at most from's dims). */
gint64
scalars_broadcast_source (gint64        flat,
                  int           from_ndim,
                  const gint64 *from,
                  int           to_ndim,
                  const gint64 *to)
{
  gint64 index[CR_MAX_DIMS];
  for (int d = from_ndim - 1; d >= 0; d--)
    {
      index[d] = from[d] > 0 ? flat % from[d] : 0;
      flat = from[d] > 0 ? flat / from[d] : 0;
    }
  gint64 out = 0;
  int lead = from_ndim - to_ndim;
  for (int d = 0; d < to_ndim; d++)
    out = out * to[d] + (to[d] == 1 ? 0 : index[d + lead]);
  return out;
}

gboolean
scalars_broadcasts_to (const CrRecordTensor *t,
               const CrRecordTensor *out)
{
  if (t->ndim > out->ndim)
    return FALSE;
  int lead = out->ndim - t->ndim;
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != 1 && t->shape[d] != out->shape[d + lead])
      return FALSE;
  return TRUE;
}

/* How deep a chain of unkept tensors is recomputed (an unnamed result of
 * an unnamed result of ...: cross_entropy's label smoothing is 7 ops). */
#define RECOMPUTE_MAX_DEPTH 12

static const double *recompute_values (const CrRunRecord    *record,
                                       const CrRecordTensor *t,
                                       guint                 depth,
                                       GHashTable           *cache);

/* The values of t: its snapshot when the record keeps all of them, else
 * recomputed (borrowed), else NULL. */
static const double *
known_values (const CrRunRecord    *record,
              const CrRecordTensor *t,
              guint                 depth,
              GHashTable           *cache)
{
  if (t->value && t->value->n_values >= scalars_numel_of (t))
    return t->value->values;
  return recompute_values (record, t, depth, cache);
}

/* The values of a tensor the record keeps none of, made by a view, a
 * transpose, an expand or a select of one whose values it keeps or can
 * find (nn.Linear's W.t(), a batched matmul's expanded operands): new
 * array, or NULL. Cheaper than taking the view apart, and the view's input
 * may be larger than the scalar view opens. */
static double *
view_values (const CrRunRecord    *record,
             const CrRecordTensor *t,
             guint                 depth,
             GHashTable           *cache)
{
  const CrRecordOp *op = t->origin == CR_RECORD_TENSOR_RESULT && t->op >= 0
                         && (guint) t->op < record->ops->len ? record->ops->pdata[t->op] : NULL;
  Kind kind;
  if (!op || op->inputs->len < 1 || !scalars_lookup_kind (op->grad_fn, &kind)
      || (kind != KIND_VIEW && kind != KIND_T && kind != KIND_EXPAND && kind != KIND_SELECT
          && kind != KIND_SLICE && kind != KIND_PERMUTE))
    return NULL;
  const CrRecordTensor *in = scalars_tensor_at (record, g_array_index (op->inputs, int, 0));
  gint64 n = scalars_numel_of (t), in_n = in ? scalars_numel_of (in) : 0;
  if (!in || (kind != KIND_EXPAND && kind != KIND_SELECT && kind != KIND_SLICE && in_n != n))
    return NULL;
  if (kind == KIND_EXPAND && !scalars_broadcasts_to (in, t))
    return NULL;
  const double *from = known_values (record, in, depth + 1, cache);
  if (!from)
    return NULL;
  g_autofree double *values = g_new (double, MAX (n, 1));
  for (gint64 j = 0; j < n; j++)
    {
      gint64 src = j;
      if (kind == KIND_T && in->ndim == 2)
        src = (j % in->shape[0]) * in->shape[1] + j / in->shape[0];
      else if (kind == KIND_EXPAND)
        src = scalars_broadcast_source (j, t->ndim, t->shape, in->ndim, in->shape);
      else if (kind == KIND_SELECT || kind == KIND_SLICE)
        src = scalars_view_source (op, kind, in, t, j);
      else if (kind == KIND_PERMUTE)
        src = scalars_permute_source (op, in, t, j);
      if (src < 0 || src >= in_n)
        return NULL;
      values[j] = from[src];
    }
  return g_steal_pointer (&values);
}

/* A parameter's value as an op in a training loop read it: what the last
 * update of it (optimizer.step(), or the script's own) left, among those
 * made before the backward call that ran the op; NULL when none was (the
 * tensor's own snapshot is then its value) or the record does not keep
 * all its values. */
static const CrTensorSnapshot *
updated_value (const CrRunRecord    *record,
               int                   op,
               const CrRecordTensor *t)
{
  if (t->origin != CR_RECORD_TENSOR_LEAF || !record->updates || record->updates->len == 0)
    return NULL;
  int first_call = -1;
  for (guint c = 0; c < record->backwards->len && first_call < 0; c++)
    {
      const CrRecordBackward *call = record->backwards->pdata[c];
      for (guint k = 0; k < call->steps->len && first_call < 0; k++)
        {
          const CrRecordStep *step = call->steps->pdata[k];
          if (step->kind == CR_RECORD_STEP_NODE && step->op == op)
            first_call = (int) c;
        }
    }
  if (first_call < 0)
    return NULL;
  const CrTensorSnapshot *found = NULL;
  for (guint u = 0; u < record->updates->len; u++)
    {
      const CrRecordUpdate *update = record->updates->pdata[u];
      if (update->tensor == (int) t->id && update->backward >= 0 && update->backward < first_call
          && update->after && update->after->n_values >= scalars_numel_of (t))
        found = update->after;
    }
  return found;
}

/* The values of input tensor t as the op read them: as the op saved them
 * when it did (a parameter changes between the iterations of a training
 * loop, and the tensor's own snapshot is from when it was made), else the
 * tensor's snapshot. */
const double *
scalars_input_values (Build                *b,
              const CrRecordTensor *t)
{
  for (guint i = 0; i < b->op->saved->len; i++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value
          && saved->value->n_values == scalars_numel_of (t) && saved->value->numel == scalars_numel_of (t))
        return saved->value->values;
    }
  const CrTensorSnapshot *updated = updated_value (b->record, (int) b->op->id, t);
  if (updated)
    return updated->values;
  if (t->value && t->value->n_values >= scalars_numel_of (t))
    return t->value->values;
  const double *recomputed = recompute_values (b->record, t, b->depth, b->recomputed);
  if (recomputed)
    return recomputed;
  /* A view's input is its output's values in the same order. */
  double *same = g_hash_table_lookup (b->derived, GINT_TO_POINTER (t->id));
  if (!same && b->kind == KIND_VIEW && b->out->value
      && b->out->value->n_values >= scalars_numel_of (t))
    {
      same = g_memdup2 (b->out->value->values, sizeof (double) * (gsize) scalars_numel_of (t));
      g_hash_table_insert (b->derived, GINT_TO_POINTER (t->id), same);
    }
  return same;
}

/* The recorded value of output element e, NaN when the record does not
 * keep it (an unnamed matmul result that a squeeze hides). */
double
scalars_output_value (const Build *b,
              gint64       e)
{
  const CrTensorSnapshot *v = b->out->value;
  return v && e < v->n_values ? v->values[e] : NAN;
}

static gboolean
has_saved_values (const CrRecordOp     *op,
                  const CrRecordTensor *t)
{
  for (guint i = 0; i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value && saved->value->n_values == scalars_numel_of (t))
        return TRUE;
    }
  return FALSE;
}

/* Whether op ran in a loop iteration after the first: a parameter it
 * reads may have changed since its snapshot was taken. */
static gboolean
later_iteration (const CrRecordOp *op)
{
  for (guint d = 0; d < op->loop_depth && d < CR_RECORD_MAX_LOOP_PATH; d++)
    if (op->loop_path[d] > 1)
      return TRUE;
  return op->iteration > 1;
}

/* Whether the record keeps every value of op's outputs: then a leaf read
 * in a later loop iteration can be taken at its snapshot, as building the
 * scalar graph checks each output element against the record and refuses
 * the op if the leaf had changed. */
static gboolean
outputs_kept (const CrRunRecord *record,
              const CrRecordOp  *op)
{
  for (guint k = 0; k < op->outputs->len; k++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->outputs, int, k));
      if (!t || !t->value || t->value->n_values < scalars_numel_of (t))
        return FALSE;
    }
  return op->outputs->len > 0;
}

/* Whether the record keeps every value of tensor t as op read it (in a
 * saved slot or its own snapshot). */
static gboolean
has_values (const CrRunRecord    *record,
            const CrRecordOp     *op,
            const CrRecordTensor *t,
            guint                 depth,
            GHashTable           *cache)
{
  gint64 n = scalars_numel_of (t);
  for (guint i = 0; i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value && saved->value->n_values == n)
        return TRUE;
    }
  if (t->value && t->value->n_values >= n)
    return TRUE;
  if (recompute_values (record, t, depth, cache))
    return TRUE;
  /* A view's input is its output's values in the same order. */
  Kind kind;
  const CrRecordTensor *out = op->outputs->len
                              ? scalars_tensor_at (record, g_array_index (op->outputs, int, 0)) : NULL;
  return scalars_lookup_kind (op->grad_fn, &kind) && kind == KIND_VIEW && out && out->value
         && out->value->n_values >= n && scalars_numel_of (out) == n;
}

gboolean
scalars_fail (Build      *b,
      const char *format,
      ...)
{
  if (b->error)
    return FALSE;
  va_list ap;
  va_start (ap, format);
  g_autofree char *why = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (&b->error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR, "%s (line %u) %s",
               b->op->grad_fn ? b->op->grad_fn : "the op", b->op->span.line, why);
  return FALSE;
}

/* ---- nodes and edges ------------------------------------------------------ */

static void
node_free (gpointer data)
{
  CrScalarNode *node = data;
  g_free (node->label);
  g_free (node->operation);
  g_free (node->equation);
  g_free (node->numbers);
  g_free (node);
}

static void
edge_free (gpointer data)
{
  CrScalarEdge *edge = data;
  g_free (edge->local_text);
  g_free (edge);
}

guint
scalars_add_node (Build            *b,
          CrScalarNodeKind  kind,
          int               tensor,
          gint64            element,
          char             *label,      /* owned */
          const char       *operation,
          char             *equation,   /* owned */
          char             *numbers,    /* owned */
          double            value)
{
  CrScalarNode *node = g_new0 (CrScalarNode, 1);
  node->kind = kind;
  node->tensor = tensor;
  node->element = element;
  node->label = label;
  node->operation = g_strdup (operation);
  node->equation = equation;
  node->numbers = numbers;
  node->value = value == 0 ? 0 : value;  /* no "-0" in the equations */
  node->grad = NAN;
  node->sub_step = kind == CR_SCALAR_NODE_INPUT ? 0 : b->sub_step;
  g_ptr_array_add (b->self->nodes, node);
  return b->self->nodes->len - 1;
}

void
scalars_add_edge (Build      *b,
          guint       from,
          guint       to,
          double      local,
          char       *local_text)   /* owned */
{
  CrScalarEdge *edge = g_new0 (CrScalarEdge, 1);
  edge->from = from;
  edge->to = to;
  edge->local = local == 0 ? 0 : local;  /* no "-0" on an edge */
  edge->local_text = local_text;
  edge->product = NAN;
  edge->sub_step = b->sub_step;
  g_ptr_array_add (b->self->edges, edge);
}

/* The nodes of input tensor t, made once however often the op reads it
 * (x * x has one x): its first node. */
guint
scalars_input_nodes (Build                *b,
             const CrRecordTensor *t)
{
  gpointer known = g_hash_table_lookup (b->bases, GINT_TO_POINTER (t->id));
  if (known)
    return GPOINTER_TO_UINT (known) - 1;
  guint base = b->self->nodes->len;
  for (gint64 e = 0; e < scalars_numel_of (t); e++)
    scalars_add_node (b, CR_SCALAR_NODE_INPUT, (int) t->id, e, scalars_input_label (b->record, t, e), NULL, NULL,
              NULL,
              scalars_input_values (b, t)[e]);
  g_hash_table_insert (b->bases, GINT_TO_POINTER (t->id), GUINT_TO_POINTER (base + 1));
  g_array_append_val (b->self->inputs, t->id);
  return base;
}

/* Output element e, computed here as `value`: refused when the record
 * says otherwise. Takes equation and numbers. */
guint
scalars_add_output (Build      *b,
            gint64      e,
            const char *operation,
            char       *equation,
            char       *numbers,
            double      value)
{
  double recorded = scalars_output_value (b, e);
  gboolean kept = !isnan (recorded) || (b->out->value && e < b->out->value->n_values);
  guint node = scalars_add_node (b, CR_SCALAR_NODE_OUTPUT, (int) b->out->id, e,
                         scalars_input_label (b->record, b->out, e), operation, equation, numbers,
                         kept ? recorded : value);
  if (kept && !scalars_same_value (value, recorded))
    {
      g_autofree char *label = scalars_input_label (b->record, b->out, e);
      scalars_fail (b, "does not compute what the record says: %s is %.6g, the scalar equation gives "
               "%.6g (an option the expansion does not know?)", label, recorded, value);
    }
  return node;
}

/* Input element's gradient that the step sent, summed over the step's
 * inputs that are that tensor; NaN when not known. */
double
scalars_step_sent (const CrRecordStep *step,
           int                 tensor,
           gint64              element)
{
  double sum = 0;
  gboolean any = FALSE;
  for (guint i = 0; step && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *input = step->inputs->pdata[i];
      const CrTensorSnapshot *v = input->outgoing.value;
      if (input->tensor != tensor || !v || element >= v->n_values)
        continue;
      sum += v->values[element];
      any = TRUE;
    }
  return any ? sum : NAN;
}

double
scalars_incoming_at (const CrRecordStep *step,
             gint64              element)
{
  if (!step || step->incoming->len == 0)
    return NAN;
  const CrTensorSnapshot *v = ((const CrRecordGrad *) step->incoming->pdata[0])->value;
  if (!v)
    return 0;  /* None: the output's gradient is zero */
  return element < v->n_values ? v->values[element] : NAN;
}

/* ---- the chain rule ------------------------------------------------------ */

/* The incoming gradient at element of output tensor `tensor`: of an op
 * with several outputs (unbind, split), the one of that output. */
static double
incoming_of (const CrRecordStep *step,
             int                 tensor,
             gint64              element)
{
  for (guint i = 0; step && step->incoming->len > 1 && i < step->incoming->len; i++)
    {
      const CrRecordGrad *grad = step->incoming->pdata[i];
      if (grad->tensor == tensor)
        return !grad->value ? 0 : element < grad->value->n_values ? grad->value->values[element] : NAN;
    }
  return scalars_incoming_at (step, element);
}

static int
edge_by_end_descending (gconstpointer a,
                        gconstpointer b)
{
  const CrScalarEdge *x = *(CrScalarEdge *const *) a, *y = *(CrScalarEdge *const *) b;
  return x->to < y->to ? 1 : x->to > y->to ? -1 : 0;
}

/* Every node's gradient: an output element's is the step's incoming one;
 * any other node's the sum over its out-edges of grad(end) × local. Edges
 * go from earlier nodes to later ones, so taking them by their end, last
 * first, finishes a node's gradient before any edge into it is used. */
static void
propagate (CrOpScalars        *self,
           const CrRecordStep *step)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      CrScalarNode *node = self->nodes->pdata[i];
      node->grad = node->kind == CR_SCALAR_NODE_OUTPUT
                   ? incoming_of (step, node->tensor, node->element) : 0;
    }
  /* Borrowed pointers: a copy would take the edges' free function along. */
  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (self->edges->len);
  for (guint i = 0; i < self->edges->len; i++)
    g_ptr_array_add (order, self->edges->pdata[i]);
  g_ptr_array_sort (order, edge_by_end_descending);
  for (guint i = 0; i < order->len; i++)
    {
      CrScalarEdge *edge = order->pdata[i];
      CrScalarNode *to = self->nodes->pdata[edge->to], *from = self->nodes->pdata[edge->from];
      edge->product = to->grad * edge->local;
      edge->product = edge->product == 0 ? 0 : edge->product;
      from->grad += edge->product;
    }
}

/* ---- entry points ---------------------------------------------------------- */

static const CrRecordStep *
find_step (const CrRunRecord *record,
           int                op,
           int               *backward,
           int               *step)
{
  for (guint c = 0; c < record->backwards->len; c++)
    {
      if (*backward >= 0 && (int) c != *backward)
        continue;
      const CrRecordBackward *call = record->backwards->pdata[c];
      for (guint s = 0; s < call->steps->len; s++)
        {
          const CrRecordStep *st = call->steps->pdata[s];
          if (st->kind != CR_RECORD_STEP_NODE || st->op != op || st->failed)
            continue;
          if (*backward >= 0 && *step >= 0 && (int) s != *step)
            continue;
          *backward = (int) c;
          *step = (int) s;
          return st;
        }
    }
  *backward = -1;
  *step = -1;
  return NULL;
}

/* cr_op_scalars_can_open for an op opened `depth` levels down to recompute
 * a tensor the record keeps no values of; cache: as recompute_values's. */
static gboolean
can_open_at (const CrRunRecord *record,
             int                op_index,
             guint              depth,
             GHashTable        *cache,
             char             **why_not)
{
  const CrRecordOp *op = op_index >= 0 && (guint) op_index < record->ops->len
                         ? record->ops->pdata[op_index] : NULL;
  Kind kind = KIND_VIEW;
  const char *why = NULL;
  g_autofree char *why_owned = NULL;
  if (!op)
    why = "there is no such op";
  else if (op->custom_function)
    why_owned = g_strdup_printf ("%s (line %u) is a custom Function: its backward is the "
                                 "script's own code (%s.backward), not a formula the scalar "
                                 "view can take apart element by element",
                                 op->grad_fn ? op->grad_fn : op->custom_function, op->span.line,
                                 op->custom_function);
  else if (scalars_double_backward_refusal (op->grad_fn))
    why_owned = g_strdup_printf ("%s (line %u) %s", op->grad_fn, op->span.line,
                                 scalars_double_backward_refusal (op->grad_fn));
  else if (!scalars_lookup_kind (op->grad_fn, &kind))
    why_owned = g_strdup_printf ("%s (line %u) is not one the scalar view takes apart",
                                 op->grad_fn ? op->grad_fn : "this op", op->span.line);
  else if (op->outputs->len != 1 && kind != KIND_SPLIT)
    why = "the op has several outputs";
  else if (op->outputs->len == 0)
    why = "the record does not keep the op's output";
  else
    {
      gint64 total = 0;
      g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
      /* The inputs, then every output (unbind's and split's several). */
      for (guint i = 0; i < op->inputs->len + op->outputs->len && !why; i++)
        {
          int id = i < op->inputs->len ? g_array_index (op->inputs, int, i)
                                       : g_array_index (op->outputs, int, i - op->inputs->len);
          const CrRecordTensor *t = scalars_tensor_at (record, id);
          if (!t)
            {
              if (i >= op->inputs->len)
                why = "the record does not keep the op's output";
              continue;
            }
          if (!g_hash_table_add (seen, GINT_TO_POINTER (id)))
            continue;
          gint64 n = scalars_numel_of (t);
          total += n;
          if (i < op->inputs->len && !has_values (record, op, t, depth, cache))
            why_owned = g_strdup_printf ("the record does not keep the values of %s",
                                         t->label ? t->label : "its input");
          else if (i < op->inputs->len && t->origin == CR_RECORD_TENSOR_LEAF
                   && !has_saved_values (op, t) && later_iteration (op)
                   && !updated_value (record, op_index, t) && !outputs_kept (record, op))
            why_owned = g_strdup_printf ("the record keeps %s's value from before the loop's "
                                         "first iteration only (no update of it), and this op "
                                         "ran in a later one",
                                         t->label ? t->label : "a leaf");
        }
      if (!why && total > CR_OP_SCALARS_MAX_ELEMENTS)
        why_owned = g_strdup_printf ("its inputs and output hold %" G_GINT64_FORMAT
                                     " elements; the scalar view opens ops of up to %d",
                                     total, CR_OP_SCALARS_MAX_ELEMENTS);
    }
  gboolean can = !why && !why_owned;
  if (why_not)
    *why_not = why_owned ? g_steal_pointer (&why_owned) : g_strdup (why);
  return can;
}

gboolean
cr_op_scalars_can_open (const CrRunRecord *record,
                        int                op_index,
                        char             **why_not)
{
  g_autoptr (GHashTable) cache = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return can_open_at (record, op_index, 0, cache, why_not);
}

static gint64
node_estimate (const CrRunRecord *record,
               const CrRecordOp  *op,
               Kind               kind)
{
  gint64 n = 0;
  for (guint i = 0; i < op->inputs->len; i++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->inputs, int, i));
      n += t ? scalars_numel_of (t) : 0;
    }
  const CrRecordTensor *out = scalars_tensor_at (record, g_array_index (op->outputs, int, 0));
  for (guint k = 0; k < op->outputs->len; k++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->outputs, int, k));
      n += t ? scalars_numel_of (t) : 0;
    }
  if (kind == KIND_MATMUL || kind == KIND_ADDMM)
    {
      guint first = kind == KIND_ADDMM ? 1 : 0;
      const CrRecordTensor *A = first < op->inputs->len
                                ? scalars_tensor_at (record, g_array_index (op->inputs, int, first)) : NULL;
      n += A && A->ndim > 0 ? scalars_numel_of (out) * A->shape[A->ndim - 1] : 0;
    }
  else if (kind == KIND_CONV && op->inputs->len > 1)
    {
      /* A product per output element and weight element of its group: the
       * weight's elements over the output channels (a transposed
       * convolution's weight is (C, O/groups, …), a convolution's (O, …)). */
      const CrRecordTensor *w = scalars_tensor_at (record, g_array_index (op->inputs, int, 1));
      n += w && out->ndim > 1 && out->shape[1] > 0
           ? scalars_numel_of (out) * (scalars_numel_of (w) / out->shape[1]) : 0;
    }
  else if (kind == KIND_LAYER_NORM || kind == KIND_BATCH_NORM || kind == KIND_GROUP_NORM)
    n += 2 * scalars_numel_of (out);  /* x̂ and the statistics, at most */
  else if (kind == KIND_BILINEAR && op->inputs->len > 1)
    {
      /* A product per output element and (i, j) of the weight (O, I, J). */
      const CrRecordTensor *w = scalars_tensor_at (record, g_array_index (op->inputs, int, 1));
      n += w && w->ndim == 3 && w->shape[0] > 0 ? scalars_numel_of (out) * (scalars_numel_of (w) / w->shape[0]) : 0;
    }
  return n;
}

/* Op op_index's scalar graph, with the gradients of step st (NULL: none);
 * depth and cache as can_open_at's. The op is one that can be opened. */
static CrOpScalars *
build_scalars (const CrRunRecord  *record,
               int                 op_index,
               const CrRecordStep *st,
               guint               depth,
               GHashTable         *cache,
               GError            **error)
{
  const CrRecordOp *op = record->ops->pdata[op_index];
  Kind kind = KIND_VIEW;
  scalars_lookup_kind (op->grad_fn, &kind);
  gint64 estimate = node_estimate (record, op, kind);
  if (estimate > CR_OP_SCALARS_MAX_NODES)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "its scalar graph would have %" G_GINT64_FORMAT " nodes; the scalar view "
                   "draws at most %d", estimate, CR_OP_SCALARS_MAX_NODES);
      return NULL;
    }
  /* A binary op's number may come first (2 - x, xlogy(2, x)). */
  if (op->inputs->len == 0 || (!scalars_kind_is_binary (kind) && kind != KIND_POINTWISE
                               && g_array_index (op->inputs, int, 0) < 0))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "%s (line %u) has an input the record does not keep", op->grad_fn,
                   op->span.line);
      return NULL;
    }

  CrOpScalars *self = g_new0 (CrOpScalars, 1);
  self->op = op_index;
  self->backward = -1;
  self->step = -1;
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->edges = g_ptr_array_new_with_free_func (edge_free);
  self->inputs = g_array_new (FALSE, FALSE, sizeof (int));
  Build b = {
    .record = record,
    .op = op,
    .kind = kind,
    .self = self,
    .out = scalars_tensor_at (record, g_array_index (op->outputs, int, 0)),
    .step = st,
    .bases = g_hash_table_new (NULL, NULL),
    .derived = g_hash_table_new_full (NULL, NULL, NULL, g_free),
    .depth = depth,
    .recomputed = cache,
  };
  /* Every input's values first: the builders read them without asking. */
  gboolean ok = TRUE;
  for (guint i = 0; i < op->inputs->len && ok; i++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->inputs, int, i));
      if (t && !scalars_input_values (&b, t))
        ok = scalars_fail (&b, "reads %s, whose values the record does not keep",
                           t->label ? t->label : "an input");
    }
  if (!ok)
    ;
  else if (scalars_kind_is_binary (kind) || scalars_kind_is_unary (kind))
    ok = scalars_build_elementwise (&b);
  else if (kind == KIND_SUM || kind == KIND_MEAN)
    ok = scalars_build_reduction (&b);
  else if (kind == KIND_MATMUL || kind == KIND_ADDMM)
    ok = scalars_build_matmul (&b);
  else if (kind == KIND_SOFTMAX || kind == KIND_LOG_SOFTMAX)
    ok = scalars_build_softmax (&b);
  else if (kind == KIND_MSE || kind == KIND_BCE_LOGITS || kind == KIND_BCE)
    ok = scalars_build_loss (&b);
  else if (kind == KIND_NLL)
    ok = scalars_build_nll (&b);
  else if (kind == KIND_CONV)
    ok = scalars_build_conv (&b);
  else if (kind == KIND_MAX_POOL || kind == KIND_AVG_POOL || kind == KIND_ADAPTIVE_AVG_POOL
           || kind == KIND_ADAPTIVE_MAX_POOL)
    ok = scalars_build_pool (&b);
  else if (kind == KIND_LAYER_NORM || kind == KIND_BATCH_NORM || kind == KIND_GROUP_NORM)
    ok = scalars_build_norm (&b);
  else if (kind == KIND_TAKE)
    ok = scalars_build_take (&b);
  else if (kind == KIND_SELECT)
    ok = scalars_build_select (&b);
  else if (kind == KIND_SLICE)
    ok = scalars_build_slice (&b);
  else if (kind == KIND_CAT || kind == KIND_STACK)
    ok = scalars_build_join (&b);
  else if (kind == KIND_MASKED_FILL)
    ok = scalars_build_masked_fill (&b);
  else if (kind == KIND_SPLIT)
    ok = scalars_build_split (&b);
  else if (kind == KIND_ACTIVATION)
    ok = scalars_build_activation (&b);
  else if (kind == KIND_EXTREMUM)
    ok = scalars_build_extremum (&b);
  else if (kind == KIND_ROBUST_LOSS)
    ok = scalars_build_robust_loss (&b);
  else if (kind == KIND_GROUP)
    ok = scalars_build_group (&b);
  else if (kind == KIND_COPY)
    ok = scalars_build_copy (&b);
  else if (kind == KIND_POINTWISE)
    ok = scalars_build_pointwise (&b);
  else if (kind == KIND_CDIST || kind == KIND_BILINEAR)
    ok = scalars_build_distance (&b);
  else if (kind == KIND_DOUBLE_BACKWARD)
    ok = scalars_build_double_backward (&b);
  else
    ok = scalars_build_view (&b);
  g_hash_table_unref (b.bases);
  g_hash_table_unref (b.derived);
  if (!ok)
    {
      g_propagate_error (error, b.error);
      cr_op_scalars_free (self);
      return NULL;
    }
  /* The output elements in order, unbind's and split's outputs one after the other. */
  self->n_sub_steps = 0;
  for (guint k = 0; k < op->outputs->len; k++)
    {
      const CrRecordTensor *out = scalars_tensor_at (record, g_array_index (op->outputs, int, k));
      self->n_sub_steps += out ? (guint) scalars_numel_of (out) : 0;
    }
  if (st)
    propagate (self, st);
  return self;
}

/* Values of t recomputed from the op that made it, when the record keeps
 * none (an unnamed result inside cross_entropy): the op's scalar graph,
 * forward only, `depth` levels below the op being opened. Borrowed from
 * cache (tensor id -> values, NULL: cannot be found). */
static const double *
recompute_values (const CrRunRecord    *record,
                  const CrRecordTensor *t,
                  guint                 depth,
                  GHashTable           *cache)
{
  gpointer found;
  if (g_hash_table_lookup_extended (cache, GINT_TO_POINTER (t->id), NULL, &found))
    return found;
  /* Taken as unknown while it is being found: a cycle ends there. */
  g_hash_table_insert (cache, GINT_TO_POINTER (t->id), NULL);
  double *values = depth < RECOMPUTE_MAX_DEPTH ? view_values (record, t, depth, cache) : NULL;
  const CrRecordOp *op = t->origin == CR_RECORD_TENSOR_RESULT && t->op >= 0
                         && (guint) t->op < record->ops->len ? record->ops->pdata[t->op] : NULL;
  if (!values && op && depth < RECOMPUTE_MAX_DEPTH
      && can_open_at (record, t->op, depth + 1, cache, NULL))
    {
      g_autoptr (CrOpScalars) made = build_scalars (record, t->op, NULL, depth + 1, cache, NULL);
      gint64 n = scalars_numel_of (t), filled = 0;
      values = made ? g_new0 (double, MAX (n, 1)) : NULL;
      for (guint i = 0; made && i < made->nodes->len; i++)
        {
          const CrScalarNode *node = made->nodes->pdata[i];
          if (node->kind == CR_SCALAR_NODE_OUTPUT && node->tensor == (int) t->id
              && node->element >= 0 && node->element < n)
            {
              values[node->element] = node->value;
              filled++;
            }
        }
      if (values && filled != n)
        g_clear_pointer (&values, g_free);
    }
  g_hash_table_insert (cache, GINT_TO_POINTER (t->id), values);
  return values;
}

CrOpScalars *
cr_op_scalars_new (const CrRunRecord *record,
                   int                op_index,
                   int                backward,
                   int                step,
                   GError           **error)
{
  g_autoptr (GHashTable) cache = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autofree char *why = NULL;
  if (!can_open_at (record, op_index, 0, cache, &why))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR, "%s", why);
      return NULL;
    }
  const CrRecordOp *op = record->ops->pdata[op_index];
  const CrRecordStep *st = find_step (record, op_index, &backward, &step);
  CrOpScalars *self = build_scalars (record, op_index, st, 0, cache, error);
  if (!self)
    return NULL;
  self->backward = backward;
  self->step = step;
  Kind kind = KIND_VIEW;
  scalars_lookup_kind (op->grad_fn, &kind);

  /* "c = a @ b · MmBackward0: (2, 2) @ (2, 2) → (2, 2)" */
  GString *title = g_string_new (NULL);
  if (op->caption)
    g_string_append_printf (title, "%s · ", op->caption);
  g_string_append_printf (title, "%s: ", op->grad_fn);
  for (guint i = 0; i < op->inputs->len; i++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->inputs, int, i));
      /* A binary op's other side is a number; a layer's missing weight or bias None. */
      g_autofree char *shape = t ? scalars_shape_text (t)
                               : g_strdup (scalars_kind_is_binary (kind)
                                           || (kind == KIND_POINTWISE && cr_record_op_argument (op, "number"))
                                           ? "number" : "None");
      g_string_append_printf (title, "%s%s", i ? (kind == KIND_MATMUL || kind == KIND_ADDMM) && i
                                                 == op->inputs->len - 1 ? " @ " : ", " : "",
                              shape);
    }
  g_string_append (title, " →");
  for (guint k = 0; k < op->outputs->len; k++)
    {
      const CrRecordTensor *t = scalars_tensor_at (record, g_array_index (op->outputs, int, k));
      g_autofree char *out_shape = t ? scalars_shape_text (t) : g_strdup ("?");
      g_string_append_printf (title, k ? ", %s" : " %s", out_shape);
    }
  self->title = g_string_free (title, FALSE);
  return self;
}

void
cr_op_scalars_free (CrOpScalars *self)
{
  if (!self)
    return;
  g_free (self->title);
  g_ptr_array_unref (self->nodes);
  g_ptr_array_unref (self->edges);
  g_array_unref (self->inputs);
  g_free (self);
}

int
cr_op_scalars_find_node (const CrOpScalars *self,
                         int                tensor,
                         gint64             element)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->tensor == tensor && node->element == element)
        return (int) i;
    }
  return -1;
}

/* What the output elements before `upto` alone send back: their incoming
 * gradients, the others' taken as zero, through the chain rule again. A
 * node several output elements share (a norm's mean) then passes on only
 * their part, where its edge's product holds all of it. */
double
cr_op_scalars_grad_upto (const CrOpScalars *self,
                         int                tensor,
                         gint64             element,
                         guint              upto)
{
  int node = cr_op_scalars_find_node (self, tensor, element);
  if (node < 0 || self->step < 0)
    return NAN;
  double sum = 0;
  if (upto >= self->n_sub_steps)
    {
      for (guint i = 0; i < self->edges->len; i++)
        {
          const CrScalarEdge *edge = self->edges->pdata[i];
          if (edge->from == (guint) node)
            sum += edge->product;
        }
      return sum;
    }
  g_autofree double *grad = g_new0 (double, self->nodes->len);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *n = self->nodes->pdata[i];
      if (n->kind == CR_SCALAR_NODE_OUTPUT && n->sub_step < upto)
        grad[i] = n->grad;
    }
  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (self->edges->len);
  for (guint i = 0; i < self->edges->len; i++)
    g_ptr_array_add (order, self->edges->pdata[i]);
  g_ptr_array_sort (order, edge_by_end_descending);
  for (guint i = 0; i < order->len; i++)
    {
      const CrScalarEdge *edge = order->pdata[i];
      double share = grad[edge->to] * edge->local;
      grad[edge->from] += share;
      if (edge->from == (guint) node)
        sum += share;
    }
  return sum == 0 ? 0 : sum;
}

double
cr_op_scalars_sent (const CrOpScalars *self,
                    const CrRunRecord *record,
                    int                tensor,
                    gint64             element)
{
  if (self->backward < 0 || (guint) self->backward >= record->backwards->len)
    return NAN;
  const CrRecordBackward *call = record->backwards->pdata[self->backward];
  if (self->step < 0 || (guint) self->step >= call->steps->len)
    return NAN;
  return scalars_step_sent (call->steps->pdata[self->step], tensor, element);
}

gboolean
cr_op_scalars_same_grad (double scalar_graph,
                         double sent)
{
  if (isnan (scalar_graph) || isnan (sent))
    return isnan (scalar_graph) && isnan (sent);
  if (isinf (scalar_graph) || isinf (sent))
    return scalar_graph == sent;
  return fabs (scalar_graph - sent) <= 1e-5 + 1e-4 * fabs (sent);
}

guint
cr_op_scalars_count_disagreements (const CrOpScalars *self,
                                   const CrRunRecord *record)
{
  guint count = 0;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->kind != CR_SCALAR_NODE_INPUT)
        continue;
      double sent = cr_op_scalars_sent (self, record, node->tensor, node->element);
      if (!isnan (sent) && !cr_op_scalars_same_grad (node->grad, sent))
        count++;
    }
  return count;
}
