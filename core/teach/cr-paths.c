/* cr-paths.c — every path from one element of a leaf to the loss, over the
 * run record (cr-paths.h). */
#include "cr-paths.h"
#include "cr-op-scalars.h"

#include "cr-error.h"
#include "cr-run-record.h"

#include <math.h>
#include <string.h>

/* A walk stops past this many hops in all, kept paths or not: a graph whose
 * paths multiply (a chain of fan-outs) is cut, and says so. */
#define MAX_WORK 5000000

typedef struct {
  const CrRecordStep *step;
  guint               input;
} Use;

typedef struct {
  gint64 element;
  double factor;
} Edge;

typedef struct {
  const CrRunRecord      *record;
  const CrRecordBackward *backward;
  GHashTable             *uses;      /* tensor id -> GArray of Use */
  guint                   max_paths;
  CrPathSum              *result;
  GArray                 *stack;     /* CrPathHop */
  GError                 *error;
  guint64                 work;
  gboolean                stop;
} Walk;

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           int                id)
{
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

static gint64
numel_of (int           ndim,
          const gint64 *shape)
{
  gint64 n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  return n;
}

/* The element of a tensor of shape (to_ndim, to) that element `flat` of a
 * tensor of shape (from_ndim, from) broadcasts from; -1 when the shapes
 * do not broadcast that way. */
static gint64
broadcast_source (gint64        flat,
                  int           from_ndim,
                  const gint64 *from,
                  int           to_ndim,
                  const gint64 *to)
{
  if (to_ndim > from_ndim)
    return -1;
  gint64 index[CR_MAX_DIMS];
  for (int d = from_ndim - 1; d >= 0; d--)
    {
      index[d] = from[d] > 0 ? flat % from[d] : 0;
      flat = from[d] > 0 ? flat / from[d] : 0;
    }
  gint64 out = 0;
  int lead = from_ndim - to_ndim;
  for (int d = 0; d < to_ndim; d++)
    {
      gint64 size = to[d], i = index[d + lead];
      if (size != 1 && size != from[d + lead])
        return -1;
      out = out * size + (size == 1 ? 0 : i);
    }
  return out;
}

static gboolean
value_at (const CrTensorSnapshot *snapshot,
          gint64                  element,
          double                 *out)
{
  if (!snapshot || element < 0 || element >= snapshot->n_values)
    return FALSE;
  *out = snapshot->values[element];
  return TRUE;
}

static gboolean
refuse (const CrRunRecord *record,
        GError          **error,
        const CrRecordOp *op,
        const char       *why)
{
  /* A notebook's line by its cell: "(cell 3, line 2)". */
  g_autofree char *where = cr_run_record_line_text (record, (int) op->span.line, FALSE);
  g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
               "a path goes through %s (%s), %s", op->grad_fn, where, why);
  return FALSE;
}

static gboolean
is_view_like (const char *grad_fn)
{
  static const char *const names[] = {
    "ViewBackward0", "ReshapeAliasBackward0", "UnsafeViewBackward0", "UnsqueezeBackward0",
    "SqueezeBackward0", "SqueezeBackward1", "CloneBackward0", "AliasBackward0",
    "ToCopyBackward0", "ContiguousBackward0", "SqueezeBackward2", "SqueezeBackward3",
    "UnsqueezeBackward1", "BackwardHookFunctionBackward",
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (grad_fn, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* mm's Jacobian entries for its operand `which` (0: A of (n, k), 1: B of (k, m)),
 * element e of it, from the other operand's recorded values. */
static gboolean
mm_edges (const CrRunRecord *record,
          const CrRecordOp  *op,
          int                a_id,
          int                b_id,
          guint              which,
          gint64             e,
          GArray            *edges,
          GError           **error)
{
  const CrRecordTensor *a = tensor_at (record, a_id), *b = tensor_at (record, b_id);
  if (!a || !b || a->ndim < 1 || a->ndim > 2 || b->ndim < 1 || b->ndim > 2)
    return refuse (record, error, op, "whose operands are not two recorded matrices");
  /* matmul hands mm a vector as a row (x @ W) or a column (W @ v). */
  gint64 n = a->ndim == 2 ? a->shape[0] : 1, k = a->shape[a->ndim - 1];
  gint64 m = b->ndim == 2 ? b->shape[1] : 1;
  /* The other operand as the op saved it: a parameter's own value is the
   * one it was recorded with, and an optimizer changes it in place later. */
  int other_id = which == 0 ? b_id : a_id;
  const CrTensorSnapshot *other = which == 0 ? b->value : a->value;
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (saved->tensor == other_id && saved->value && !saved->internal)
        other = saved->value;
    }
  if (!other || other->n_values < (which == 0 ? k * m : n * k))
    return refuse (record, error, op, "whose other operand's values the record does not keep");
  if (which == 0)
    {
      gint64 r = e / k, kk = e % k;
      for (gint64 c = 0; c < m; c++)
        g_array_append_val (edges, ((Edge) { r * m + c, other->values[kk * m + c] }));
    }
  else
    {
      gint64 kk = e / m, c = e % m;
      for (gint64 r = 0; r < n; r++)
        g_array_append_val (edges, ((Edge) { r * m + c, other->values[r * k + kk] }));
    }
  return TRUE;
}

/* softmax and log_softmax along their recorded dim: out[j] = x[j] - log Σ
 * exp x (log_softmax) has ∂out[j]/∂x[i] = δij - p[i], softmax's p[j] (δij
 * - p[i]), p the softmax, over the elements of one slice along dim. */
static gboolean
softmax_edges (const CrRunRecord    *record,
               const CrRecordOp     *op,
               const CrRecordTensor *out,
               gint64                e,
               GArray               *edges,
               GError              **error)
{
  gboolean log = op->grad_fn[0] == 'L';
  const CrTensorSnapshot *value = out->value;
  gint64 n = numel_of (out->ndim, out->shape);
  if (!value || value->n_values < n || out->ndim < 1)
    return refuse (record, error, op, "whose result's values the record does not keep");
  const CrRecordArgument *arg = cr_record_op_argument (op, "dim");
  gint64 given = arg && arg->n_values == 1 ? (gint64) arg->values[0] : G_MININT64;
  int dim = given >= -out->ndim && given < out->ndim ? (int) (given < 0 ? given + out->ndim : given)
                                                    : -1;
  if (dim < 0)
    return refuse (record, error, op, "whose dim the record does not keep");
  gint64 size = out->shape[dim], inner = 1;
  for (int k = dim + 1; k < out->ndim; k++)
    inner *= out->shape[k];
  gint64 first = e - ((e / inner) % size) * inner;
  for (gint64 k = 0; k < size; k++)
    {
      gint64 j = first + k * inner;
      double pe = log ? exp (value->values[e]) : value->values[e];
      double pj = log ? exp (value->values[j]) : value->values[j];
      double delta = j == e ? 1.0 : 0.0;
      double d = log ? delta - pe : pj * (delta - pe);
      g_array_append_val (edges, ((Edge) { j, d }));
    }
  return TRUE;
}

/* Ops each of whose output elements is one element of their input, where
 * the record keeps which ("positions", flat in the input). */
static gboolean
is_gather (const char *grad_fn)
{
  return strcmp (grad_fn, "IndexSelectBackward0") == 0 || strcmp (grad_fn, "IndexBackward0") == 0
         || strcmp (grad_fn, "GatherBackward0") == 0;
}

static gboolean
gather_edges (const CrRunRecord    *record,
              const CrRecordOp     *op,
              const CrRecordTensor *out,
              const CrRecordTensor *in,
              gint64                e,
              GArray               *edges,
              GError              **error)
{
  const CrTensorSnapshot *positions = NULL;
  for (guint s = 0; s < op->saved->len && !positions; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (saved->internal && g_strcmp0 (saved->name, "positions") == 0)
        positions = saved->value;
    }
  gint64 out_numel = numel_of (out->ndim, out->shape), in_numel = numel_of (in->ndim, in->shape);
  if (!positions || positions->n_values != out_numel)
    return refuse (record, error, op, "whose elements' places in its input the record does not "
                                      "keep");
  for (gint64 j = 0; j < out_numel; j++)
    {
      double p = positions->values[j];
      if (p < 0 || p >= (double) in_numel)
        return refuse (record, error, op, "whose elements' places are not in its input");
      if ((gint64) p == e)
        g_array_append_val (edges, ((Edge) { j, 1.0 }));
    }
  return TRUE;
}

/* select and slice: each output element is the input element their
 * recorded dim and index (or start and step) say. */
static gboolean
view_edges (const CrRunRecord    *record,
            const CrRecordOp     *op,
            const CrRecordTensor *out,
            const CrRecordTensor *in,
            gint64                e,
            GArray               *edges,
            GError              **error)
{
  gint64 out_numel = numel_of (out->ndim, out->shape);
  for (gint64 j = 0; j < out_numel; j++)
    {
      gint64 from = cr_op_scalars_view_source (op, in, out, j);
      if (from < 0)
        return refuse (record, error, op, "whose dim and index (or start and step) the record "
                                          "does not keep");
      if (from == e)
        g_array_append_val (edges, ((Edge) { j, 1.0 }));
    }
  return TRUE;
}

/* The elements of use's output that element e of its input `tensor` feeds,
 * each with ∂out[j]/∂in[e]. */
static gboolean
use_edges (const CrRunRecord *record,
           const Use         *use,
           const CrRecordTensor *in,
           gint64             e,
           GArray            *edges,
           GError           **error)
{
  const CrRecordOp *op = record->ops->pdata[use->step->op];
  const CrRecordStepInput *input = use->step->inputs->pdata[use->input];
  if (op->outputs->len != 1)
    return refuse (record, error, op, "which has several outputs");
  const CrRecordTensor *out = tensor_at (record, g_array_index (op->outputs, int, 0));
  if (!out)
    return refuse (record, error, op, "whose output the record does not keep");
  gint64 out_numel = numel_of (out->ndim, out->shape);
  const char *name = op->grad_fn ? op->grad_fn : "";

  if (input->local)
    {
      const CrTensorSnapshot *local = input->local;
      if (local->n_values < local->numel)
        return refuse (record, error, op, "whose local gradient's values the record does not keep");
      for (gint64 j = 0; j < out_numel; j++)
        {
          if (broadcast_source (j, out->ndim, out->shape, in->ndim, in->shape) != e)
            continue;
          gint64 l = broadcast_source (j, out->ndim, out->shape, local->ndim, local->shape);
          if (l < 0)
            return refuse (record, error, op, "whose local gradient has another shape than its output");
          g_array_append_val (edges, ((Edge) { j, local->values[l] }));
        }
      return TRUE;
    }
  if (strcmp (name, "SumBackward0") == 0 || strcmp (name, "MeanBackward0") == 0)
    {
      double d = name[0] == 'S' ? 1.0 : 1.0 / (double) numel_of (in->ndim, in->shape);
      g_array_append_val (edges, ((Edge) { 0, d }));
      return TRUE;
    }
  if (is_view_like (name))
    {
      if (out_numel != numel_of (in->ndim, in->shape))
        return refuse (record, error, op, "whose output has another number of elements");
      g_array_append_val (edges, ((Edge) { e, 1.0 }));
      return TRUE;
    }
  if (strcmp (name, "ExpandBackward0") == 0)
    {
      for (gint64 j = 0; j < out_numel; j++)
        if (broadcast_source (j, out->ndim, out->shape, in->ndim, in->shape) == e)
          g_array_append_val (edges, ((Edge) { j, 1.0 }));
      return TRUE;
    }
  if (strcmp (name, "TBackward0") == 0)
    {
      gint64 j = in->ndim < 2 ? e : (e % in->shape[1]) * in->shape[0] + e / in->shape[1];
      g_array_append_val (edges, ((Edge) { j, 1.0 }));
      return TRUE;
    }
  if (strcmp (name, "MmBackward0") == 0 && op->inputs->len == 2)
    return mm_edges (record, op, g_array_index (op->inputs, int, 0),
                     g_array_index (op->inputs, int, 1), use->input, e, edges, error);
  if (strcmp (name, "AddmmBackward0") == 0 && op->inputs->len == 3)
    {
      if (use->input == 0)
        {
          for (gint64 j = 0; j < out_numel; j++)
            if (broadcast_source (j, out->ndim, out->shape, in->ndim, in->shape) == e)
              g_array_append_val (edges, ((Edge) { j, 1.0 }));
          return TRUE;
        }
      return mm_edges (record, op, g_array_index (op->inputs, int, 1),
                       g_array_index (op->inputs, int, 2), use->input - 1, e, edges, error);
    }
  if (strcmp (name, "LogSoftmaxBackward0") == 0 || strcmp (name, "SoftmaxBackward0") == 0)
    return softmax_edges (record, op, out, e, edges, error);
  if (strcmp (name, "SelectBackward0") == 0 || strcmp (name, "SliceBackward0") == 0)
    return view_edges (record, op, out, in, e, edges, error);
  if (is_gather (name))
    return gather_edges (record, op, out, in, e, edges, error);
  /* Any op with one output element (a loss): its Jacobian is the gradient it
   * sent back over the one it got. */
  double incoming = 0;
  const CrTensorSnapshot *sent = input->outgoing.value;
  if (out_numel == 1 && use->step->incoming->len == 1
      && value_at (((const CrRecordGrad *) use->step->incoming->pdata[0])->value, 0, &incoming)
      && incoming != 0 && sent && sent->n_values == sent->numel
      && sent->numel == numel_of (in->ndim, in->shape))
    {
      g_array_append_val (edges, ((Edge) { 0, sent->values[e] / incoming }));
      return TRUE;
    }
  if (op->custom_function)
    return refuse (record, error, op, "a custom Function: its backward is the script's own "
                                      "code, and the record keeps only what it returned, not "
                                      "its derivative for each element");
  return refuse (record, error, op, "whose per-element derivatives the record does not keep "
                                    "(paths follow elementwise ops, sum, mean, views, expand, t, "
                                    "mm, addmm, softmax, log_softmax, select, slices, index_select, "
                                    "indexing with a tensor, gather and ops with one output "
                                    "element)");
}

/* The gradient the call starts root `index` from, at element e. */
static gboolean
root_factor (const Walk *walk,
             guint       index,
             gint64      e,
             double     *out)
{
  const CrRecordBackward *b = walk->backward;
  int root = g_array_index (b->roots, int, index);
  if (b->root_grads->len > index)
    return value_at (((const CrRecordGrad *) b->root_grads->pdata[index])->value, e, out);
  const CrRecordTensor *t = tensor_at (walk->record, root);
  if (t && numel_of (t->ndim, t->shape) == 1)
    {
      *out = 1.0;
      return TRUE;
    }
  /* y.backward(v): v is what the root's own step got. */
  for (guint s = 0; t && s < b->steps->len; s++)
    {
      const CrRecordStep *step = b->steps->pdata[s];
      if (step->kind == CR_RECORD_STEP_NODE && step->op == t->op
          && t->output_nr < step->incoming->len)
        return value_at (((const CrRecordGrad *) step->incoming->pdata[t->output_nr])->value,
                         e, out);
    }
  return FALSE;
}

static void
keep_path (Walk *walk)
{
  CrPathSum *result = walk->result;
  if (result->paths->len >= walk->max_paths)
    {
      result->truncated = TRUE;
      walk->stop = TRUE;
      return;
    }
  CrPath *path = g_new0 (CrPath, 1);
  path->hops = g_array_copy (walk->stack);
  path->product = 1;
  for (guint h = 0; h < path->hops->len; h++)
    path->product *= g_array_index (path->hops, CrPathHop, h).factor;
  result->sum += path->product;
  g_ptr_array_add (result->paths, path);
}

static void
walk_from (Walk   *walk,
           int     tensor,
           gint64  element)
{
  if (walk->stop || walk->error)
    return;
  if (++walk->work > MAX_WORK)
    {
      walk->result->truncated = TRUE;
      walk->stop = TRUE;
      return;
    }
  const CrRunRecord *record = walk->record;
  const CrRecordTensor *t = tensor_at (record, tensor);
  const CrRecordBackward *b = walk->backward;

  for (guint r = 0; r < b->roots->len; r++)
    if (g_array_index (b->roots, int, r) == tensor)
      {
        double factor = 0;
        if (!root_factor (walk, r, element, &factor))
          {
            g_set_error (&walk->error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                         "the record keeps no gradient for the root %s", t->label);
            return;
          }
        g_array_append_val (walk->stack, ((CrPathHop) { tensor, element, -1, factor }));
        keep_path (walk);
        g_array_set_size (walk->stack, walk->stack->len - 1);
        if (walk->stop)
          return;
      }

  GArray *uses = g_hash_table_lookup (walk->uses, GINT_TO_POINTER (tensor));
  for (guint u = 0; uses && u < uses->len && !walk->stop && !walk->error; u++)
    {
      const Use *use = &g_array_index (uses, Use, u);
      g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (Edge));
      if (!use_edges (record, use, t, element, edges, &walk->error))
        return;
      const CrRecordOp *op = record->ops->pdata[use->step->op];
      int out = g_array_index (op->outputs, int, 0);
      for (guint k = 0; k < edges->len && !walk->stop && !walk->error; k++)
        {
          const Edge *edge = &g_array_index (edges, Edge, k);
          g_array_append_val (walk->stack,
                              ((CrPathHop) { tensor, element, (int) op->id, edge->factor }));
          walk_from (walk, out, edge->element);
          g_array_set_size (walk->stack, walk->stack->len - 1);
        }
    }
}

static void
path_free (gpointer data)
{
  CrPath *path = data;
  g_array_unref (path->hops);
  g_free (path);
}

void
cr_path_sum_free (CrPathSum *self)
{
  if (!self)
    return;
  g_ptr_array_unref (self->paths);
  g_free (self);
}

CrPathSum *
cr_path_sum_new (const CrRunRecord *record,
                 int                leaf,
                 gint64             element,
                 guint              max_paths,
                 GError           **error)
{
  /* The first .backward() call that reaches the leaf, else the first. */
  int first = -1;
  for (guint i = 0; i < record->backwards->len; i++)
    {
      const CrRecordBackward *b = record->backwards->pdata[i];
      if (b->kind != CR_RECORD_BACKWARD_CALL)
        continue;
      if (first < 0)
        first = (int) i;
      for (guint s = 0; s < b->steps->len; s++)
        {
          const CrRecordStep *step = b->steps->pdata[s];
          if (step->kind == CR_RECORD_STEP_ACCUMULATE && step->leaf == leaf)
            return cr_path_sum_new_in_call (record, (int) i, leaf, element, max_paths, error);
        }
    }
  if (first >= 0)
    return cr_path_sum_new_in_call (record, first, leaf, element, max_paths, error);
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "the script calls no .backward(): there are no paths to the loss");
  return NULL;
}

CrPathSum *
cr_path_sum_new_in_call (const CrRunRecord *record,
                         int                backward_index,
                         int                leaf,
                         gint64             element,
                         guint              max_paths,
                         GError           **error)
{
  const CrRecordBackward *backward = backward_index >= 0
                                     && (guint) backward_index < record->backwards->len
                                     ? record->backwards->pdata[backward_index] : NULL;
  if (!backward || backward->kind != CR_RECORD_BACKWARD_CALL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "no .backward() call: there are no paths to the loss");
      return NULL;
    }
  const CrRecordTensor *t = tensor_at (record, leaf);
  if (!t || t->origin != CR_RECORD_TENSOR_LEAF)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "%s is no leaf that requires grad",
                   t && t->label ? t->label : "the tensor");
      return NULL;
    }
  gint64 numel = numel_of (t->ndim, t->shape);
  if (element < 0 || element >= numel)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "element %" G_GINT64_FORMAT " is out of range for %s, which has %"
                   G_GINT64_FORMAT " elements", element, t->label, numel);
      return NULL;
    }

  const CrRecordStep *accumulate = NULL;
  g_autoptr (GHashTable) uses = g_hash_table_new_full (NULL, NULL, NULL,
                                                       (GDestroyNotify) g_array_unref);
  gboolean hooks_changed = FALSE;
  for (guint s = 0; s < backward->steps->len; s++)
    {
      const CrRecordStep *step = backward->steps->pdata[s];
      for (guint h = 0; h < step->hooks->len; h++)
        {
          const CrRecordHookCall *hook = step->hooks->pdata[h];
          hooks_changed |= hook->kind != CR_RECORD_HOOK_RETAIN_GRAD && hook->after != NULL;
        }
      if (step->kind == CR_RECORD_STEP_ACCUMULATE && step->leaf == leaf)
        accumulate = step;
      if (step->kind != CR_RECORD_STEP_NODE || step->op < 0 || step->failed)
        continue;
      for (guint i = 0; i < step->inputs->len; i++)
        {
          const CrRecordStepInput *input = step->inputs->pdata[i];
          if (input->tensor < 0 || !input->outgoing.value)
            continue;
          GArray *list = g_hash_table_lookup (uses, GINT_TO_POINTER (input->tensor));
          if (!list)
            {
              list = g_array_new (FALSE, FALSE, sizeof (Use));
              g_hash_table_insert (uses, GINT_TO_POINTER (input->tensor), list);
            }
          g_array_append_val (list, ((Use) { step, i }));
        }
    }
  if (!accumulate)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s is not reached by %s: no path leads from it to the loss", t->label,
                   backward->title);
      return NULL;
    }

  CrPathSum *result = g_new0 (CrPathSum, 1);
  result->leaf = leaf;
  result->element = element;
  result->backward = backward_index;
  result->paths = g_ptr_array_new_with_free_func (path_free);
  result->hooks_changed = hooks_changed;
  result->grad = NAN;
  if (accumulate->incoming->len > 0)
    value_at (((const CrRecordGrad *) accumulate->incoming->pdata[0])->value, element,
              &result->grad);

  Walk walk = {
    .record = record,
    .backward = backward,
    .uses = uses,
    .max_paths = MAX (max_paths, 1),
    .result = result,
    .stack = g_array_new (FALSE, FALSE, sizeof (CrPathHop)),
  };
  walk_from (&walk, leaf, element);
  g_array_unref (walk.stack);
  if (walk.error)
    {
      g_propagate_error (error, walk.error);
      cr_path_sum_free (result);
      return NULL;
    }
  return result;
}

char *
cr_record_element_text (const CrRecordTensor *tensor,
                        gint64                element)
{
  if (tensor->ndim == 0)
    return g_strdup ("");
  gint64 index[CR_MAX_DIMS];
  for (int d = tensor->ndim - 1; d >= 0; d--)
    {
      index[d] = tensor->shape[d] > 0 ? element % tensor->shape[d] : 0;
      element = tensor->shape[d] > 0 ? element / tensor->shape[d] : 0;
    }
  GString *s = g_string_new ("[");
  for (int d = 0; d < tensor->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, index[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
append_hop_tensor (GString           *s,
                   const CrRunRecord *record,
                   const CrPathHop   *hop)
{
  const CrRecordTensor *t = tensor_at (record, hop->tensor);
  g_autofree char *index = t ? cr_record_element_text (t, hop->element) : g_strdup ("");
  g_string_append_printf (s, "%s%s", t && t->label ? t->label : "?", index);
}

char *
cr_path_sum_format (const CrPathSum   *self,
                    const CrRunRecord *record)
{
  GString *s = g_string_new (NULL);
  const CrRecordTensor *leaf = tensor_at (record, self->leaf);
  const CrRecordBackward *b = record->backwards->pdata[self->backward];
  g_autofree char *index = cr_record_element_text (leaf, self->element);
  g_string_append_printf (s, "Paths from %s%s to the loss of %s.\n", leaf->label, index, b->title);
  g_string_append (s, "Each arrow multiplies by a local derivative, d(next)/d(this);\n"
                      "a path's product is its share of the gradient, and the shares add up.\n\n");
  guint width = 1;
  for (guint n = self->paths->len; n >= 10; n /= 10)
    width++;
  for (guint p = 0; p < self->paths->len; p++)
    {
      const CrPath *path = self->paths->pdata[p];
      g_string_append_printf (s, "%*u. ", width, p + 1);
      for (guint h = 0; h < path->hops->len; h++)
        {
          const CrPathHop *hop = &g_array_index (path->hops, CrPathHop, h);
          append_hop_tensor (s, record, hop);
          if (hop->op >= 0)
            g_string_append_printf (s, " -(%.6g)-> ", hop->factor);
          else if (hop->factor != 1.0)
            g_string_append_printf (s, " -(gradient %.6g)-> L", hop->factor);
        }
      g_string_append_printf (s, "\n%*s  product %.10g\n", width, "", path->product);
    }
  if (self->truncated)
    g_string_append_printf (s, "\nThere are more paths than these %u (--max raises the cap): "
                               "their sum is only part of the gradient.\n", self->paths->len);
  g_string_append_printf (s, "\nSum over %s%u path%s: %.10g\n", self->truncated ? "the first " : "",
                          self->paths->len, self->paths->len == 1 ? "" : "s", self->sum);
  if (isnan (self->grad))
    g_string_append_printf (s, "%s.grad%s: not kept in the record\n", leaf->label, index);
  else
    {
      double tolerance = 1e-5 + 1e-4 * fabs (self->grad);
      gboolean same = fabs (self->sum - self->grad) <= tolerance;
      g_string_append_printf (s, "%s.grad%s from the backward: %.10g (%s)\n", leaf->label, index,
                              self->grad, same ? "the same" : "DIFFERENT");
    }
  if (self->hooks_changed)
    g_string_append (s, "A hook changed a gradient during this backward call: .grad is not "
                        "the plain sum of the paths there.\n");
  return g_string_free (s, FALSE);
}
