/* cr-graph-model-record.c — a graph model as a view of a CrRunRecord.
 *
 * What is drawn for one backward call: from its roots back along each op's
 * input tensors, breadth-first with an explicit queue (graphs can be 45k
 * ops deep). A tensor an op made is drawn as its op (its edges out carry the
 * tensor's name); a leaf that requires grad as a leaf box and its
 * AccumulateGrad; a tensor that gets no gradient as a box of its own kind
 * (constant, made under no_grad, detached), once however often it is used;
 * a root as an output box. Inputs the record does not know (-1: Python
 * numbers) get no node.
 *
 * Nodes say which record item they draw (op, tensor); the steps are the
 * record's, with the edge each step input travels worked out once. What a
 * tensor holds (values, .grad at a step, saved tensors) stays in the
 * record: the inspector and the cards read it there. */
#include "cr-graph-model-private.h"

#include "cr-run-record.h"
#include "cr-record-text.h"
#include "cr-tensor-format.h"

#include <string.h>

/* Beyond this many elements a preview says nothing a card can show. */
#define PREVIEW_MAX_NUMEL 16

/* Lookups from record items to nodes: one table, three kinds of key. */
typedef enum { INDEX_OP, INDEX_TENSOR, INDEX_ACCUMULATE } IndexKind;

static gpointer
index_key (IndexKind kind,
           int       item)
{
  return GSIZE_TO_POINTER (((gsize) item << 2) | kind);
}

static const CrGraphNode *
index_lookup (const CrGraphModel *self,
              IndexKind           kind,
              int                 item)
{
  if (!self || !self->private_index || item < 0)
    return NULL;
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (self->private_index, index_key (kind, item)));
  return id > 0 && id <= self->nodes->len ? g_ptr_array_index (self->nodes, id - 1) : NULL;
}

static void
index_set (CrGraphModel *self,
           IndexKind     kind,
           int           item,
           guint         node)
{
  g_hash_table_insert (self->private_index, index_key (kind, item), GUINT_TO_POINTER (node + 1));
}

static const CrRecordTensor *
record_tensor (const CrRunRecord *record,
               int                tensor)
{
  return tensor >= 0 && (guint) tensor < record->tensors->len
         ? g_ptr_array_index (record->tensors, tensor) : NULL;
}

static const CrRecordOp *
record_op (const CrRunRecord *record,
           int                op)
{
  return op >= 0 && (guint) op < record->ops->len ? g_ptr_array_index (record->ops, op) : NULL;
}

/* ---- what a node shows ---------------------------------------------------- */

typedef struct {
  CrGraphModel *model;
  CrRunRecord  *record;
  GQueue        queue;          /* of GINT_TO_POINTER (op + 1): ops whose inputs are not
                                 * drawn yet */
} Builder;

/* Rows a card shows of a taller matrix: the first ones, a ⋮ and the last. */
#define PREVIEW_MAX_ROWS 4

/* text (print()'s values, one row a line) as a grid: without the brackets
 * and commas, which took a third of a 3×3 card's width, the columns kept
 * aligned, and the rows of a tall matrix elided (the inspector shows the
 * whole value). New string. */
static char *
compact_grid (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);
  glong indent = G_MAXLONG;
  for (guint i = 0; i < n; i++)
    {
      /* Each bracket becomes a space and each comma nothing: the columns
       * stay aligned, since every row has its commas at the same places. */
      GString *row = g_string_new (NULL);
      for (const char *c = lines[i]; *c; c++)
        if (*c == '[' || *c == ']')
          g_string_append_c (row, ' ');
        else if (*c != ',')
          g_string_append_c (row, *c);
      while (row->len > 0 && row->str[row->len - 1] == ' ')
        g_string_truncate (row, row->len - 1);
      glong lead = (glong) strspn (row->str, " ");
      if (row->len > 0)
        indent = MIN (indent, lead);
      g_free (lines[i]);
      lines[i] = g_string_free (row, FALSE);
    }
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      if (n > PREVIEW_MAX_ROWS && i >= PREVIEW_MAX_ROWS - 2 && i < n - 1)
        {
          if (i == PREVIEW_MAX_ROWS - 2)
            g_string_append (out, out->len ? "\n⋮" : "⋮");
          continue;
        }
      const char *row = lines[i];
      row += MIN ((glong) strlen (row), indent == G_MAXLONG ? 0 : indent);
      if (*row == '\0')
        continue;
      if (out->len)
        g_string_append_c (out, '\n');
      g_string_append (out, row);
    }
  return g_string_free (out, FALSE);
}

static char *
tensor_preview (const CrTensorSnapshot *value)
{
  if (!value || value->numel > PREVIEW_MAX_NUMEL || value->numel == 0)
    return NULL;
  CrPrintOptions options;
  cr_print_options_init_default (&options);
  options.precision = 2;
  options.linewidth = 40;
  g_autofree char *text = cr_tensor_snapshot_format (value, &options);
  if (!text || value->ndim == 0)
    return g_steal_pointer (&text);
  return compact_grid (text);
}

static const char *
tensor_title (const CrRecordTensor *t,
              const char           *fallback)
{
  if (t->label)
    return t->label;
  return t->name ? t->name : fallback;
}

static void
fill_tensor (Builder              *b,
             CrGraphNode          *n,
             const CrRecordTensor *t)
{
  n->tensor = (int) t->id;
  n->shape = cr_graph_format_shape (t->shape, t->ndim);
  n->preview = tensor_preview (t->value);
  n->device = g_strdup (t->device);
  n->span = t->span;
}

static gboolean
is_cpu (const char *device)
{
  return !device || strcmp (device, "cpu") == 0;
}

static void
fill_op (Builder          *b,
         CrGraphNode      *n,
         const CrRecordOp *op)
{
  n->op = (int) op->id;
  n->symbol = g_strdup (op->symbol);
  /* In a loop the names carry their iterations: "y₃ = y₂ * w". */
  n->caption = cr_graph_shorten (op->caption ? cr_record_op_caption (b->record, (int) op->id)
                                             : cr_graph_span_text (b->record->source, &op->span));
  n->span = op->span;

  int out = op->outputs->len > 0 ? g_array_index (op->outputs, int, 0) : -1;
  const CrRecordTensor *made = record_tensor (b->record, out);
  if (made && !is_cpu (made->device))
    n->device = g_strdup (made->device);
  /* "freed" only where a saved tensor was (Add and Sum save nothing), by
   * this call or an earlier one: a later call's freeing is not this one's. */
  int call = b->model->backward;
  for (guint k = 0; k < op->saved->len; k++)
    {
      int freed_by = ((const CrRecordSaved *) g_ptr_array_index (op->saved, k))->freed_backward;
      n->freed |= freed_by >= 0 && freed_by <= call;
    }
}

/* ---- the walk ------------------------------------------------------------- */

static guint
op_node (Builder *b,
         int      op_id)
{
  const CrGraphNode *found = index_lookup (b->model, INDEX_OP, op_id);
  if (found)
    return found->id;
  const CrRecordOp *op = record_op (b->record, op_id);
  CrGraphNode *n = cr_graph_model_add_node (b->model, CR_GRAPH_NODE_OP,
                                            op && op->grad_fn ? op->grad_fn : "?");
  index_set (b->model, INDEX_OP, op_id, n->id);
  if (op)
    {
      fill_op (b, n, op);
      /* As op + 1: GINT_TO_POINTER (0) would read as the queue's end. */
      g_queue_push_tail (&b->queue, GINT_TO_POINTER (op_id + 1));
    }
  return n->id;
}

/* A leaf's AccumulateGrad, with its leaf box before it. */
static guint
accumulate_node (Builder              *b,
                 const CrRecordTensor *t)
{
  const CrGraphNode *found = index_lookup (b->model, INDEX_ACCUMULATE, (int) t->id);
  if (found)
    return found->id;
  CrGraphNode *acc = cr_graph_model_add_node (b->model, CR_GRAPH_NODE_ACCUMULATE, "AccumulateGrad");
  index_set (b->model, INDEX_ACCUMULATE, (int) t->id, acc->id);
  acc->tensor = (int) t->id;
  if (!is_cpu (t->device))
    acc->device = g_strdup (t->device);
  const CrGraphNode *leaf = index_lookup (b->model, INDEX_TENSOR, (int) t->id);
  guint leaf_id;
  if (leaf)
    leaf_id = leaf->id;
  else
    {
      CrGraphNode *n = cr_graph_model_add_node (b->model, CR_GRAPH_NODE_LEAF, tensor_title (t, "leaf"));
      fill_tensor (b, n, t);
      index_set (b->model, INDEX_TENSOR, (int) t->id, n->id);
      leaf_id = n->id;
    }
  CrGraphEdge *e = cr_graph_model_add_edge (b->model, leaf_id, acc->id,
                                            cr_graph_format_shape (t->shape, t->ndim));
  e->tensor = (int) t->id;
  return acc->id;
}

static CrGraphNodeKind
input_kind (const CrRecordTensor *t)
{
  switch (t->origin)
    {
    case CR_RECORD_TENSOR_NO_GRAD:  return CR_GRAPH_NODE_NO_GRAD;
    case CR_RECORD_TENSOR_DETACHED: return CR_GRAPH_NODE_DETACHED;
    case CR_RECORD_TENSOR_LEAF:
    case CR_RECORD_TENSOR_RESULT:
    case CR_RECORD_TENSOR_CONSTANT:
    default:                        return CR_GRAPH_NODE_CONSTANT;
    }
}

/* A tensor without history that requires grad: a leaf, also one that was
 * detached (or made under no_grad) and then given requires_grad_(). */
static gboolean
is_leaf (const CrRecordTensor *t)
{
  return t->origin == CR_RECORD_TENSOR_LEAF
         || (t->origin != CR_RECORD_TENSOR_RESULT && t->requires_grad);
}

/* The node an op input comes from. */
static guint
input_node (Builder              *b,
            const CrRecordTensor *t)
{
  if (t->origin == CR_RECORD_TENSOR_RESULT && record_op (b->record, t->op))
    return op_node (b, t->op);
  if (is_leaf (t))
    return accumulate_node (b, t);
  const CrGraphNode *found = index_lookup (b->model, INDEX_TENSOR, (int) t->id);
  if (found)
    return found->id;
  CrGraphNodeKind kind = input_kind (t);
  CrGraphNode *n = cr_graph_model_add_node (b->model, kind, tensor_title (t, "constant"));
  fill_tensor (b, n, t);
  index_set (b->model, INDEX_TENSOR, (int) t->id, n->id);
  return n->id;
}

static void
walk (Builder *b)
{
  gpointer item;
  while ((item = g_queue_pop_head (&b->queue)))
    {
      int op_id = GPOINTER_TO_INT (item) - 1;
      const CrRecordOp *op = record_op (b->record, op_id);
      guint to = index_lookup (b->model, INDEX_OP, op_id)->id;
      for (guint i = 0; i < op->inputs->len; i++)
        {
          const CrRecordTensor *t = record_tensor (b->record, g_array_index (op->inputs, int, i));
          if (!t)
            continue;
          guint from = input_node (b, t);
          CrGraphEdge *e = cr_graph_model_add_edge (b->model, from, to,
                                                    cr_graph_format_shape (t->shape, t->ndim));
          e->tensor = (int) t->id;
          e->input = (int) i;
          /* An intermediate tensor the script named shows on its edge. */
          if (t->origin == CR_RECORD_TENSOR_RESULT && t->name)
            e->tensor_name = g_strdup (t->label ? t->label : t->name);
        }
    }
}

static void
add_root (Builder *b,
          int      tensor)
{
  const CrRecordTensor *t = record_tensor (b->record, tensor);
  if (!t)
    return;
  const CrRecordOp *op = t->origin == CR_RECORD_TENSOR_RESULT ? record_op (b->record, t->op) : NULL;
  if (!op)
    {
      /* A leaf as the root: backward goes straight to its AccumulateGrad. */
      if (index_lookup (b->model, INDEX_TENSOR, tensor))
        return;
      CrGraphNode *leaf = cr_graph_model_add_node (b->model,
                                                   is_leaf (t) ? CR_GRAPH_NODE_LEAF : input_kind (t),
                                                   tensor_title (t, "tensor"));
      fill_tensor (b, leaf, t);
      index_set (b->model, INDEX_TENSOR, tensor, leaf->id);
      return;
    }
  guint from = op_node (b, t->op);
  CrGraphNode *out = cr_graph_model_add_node (b->model, CR_GRAPH_NODE_OUTPUT, tensor_title (t, "output"));
  fill_tensor (b, out, t);
  out->span = op->span;
  index_set (b->model, INDEX_TENSOR, tensor, out->id);
  CrGraphEdge *e = cr_graph_model_add_edge (b->model, from, out->id,
                                            cr_graph_format_shape (t->shape, t->ndim));
  e->tensor = tensor;
}

/* A forward graph also shows where the script stopped gradients: each
 * tensor it named that was made under no_grad or detached, from a tensor
 * the graph draws, hangs off that tensor's node by a dashed edge (example
 * 05's `z` under `with torch.no_grad():` and `z_det = z.detach()`), the
 * newest few when there are many. */
#define STOPPED_MAX 16

static void
add_stopped (Builder *b)
{
  guint added = 0;
  for (guint i = b->record->tensors->len; i-- > 0 && added < STOPPED_MAX;)
    {
      const CrRecordTensor *t = g_ptr_array_index (b->record->tensors, i);
      if ((t->origin != CR_RECORD_TENSOR_NO_GRAD && t->origin != CR_RECORD_TENSOR_DETACHED)
          || !t->name || t->requires_grad || index_lookup (b->model, INDEX_TENSOR, (int) t->id))
        continue;
      const CrRecordTensor *from = record_tensor (b->record, t->source);
      if (!from)
        continue;
      const CrGraphNode *source = index_lookup (b->model, INDEX_TENSOR, (int) from->id);
      if (!source && from->origin == CR_RECORD_TENSOR_RESULT)
        source = index_lookup (b->model, INDEX_OP, from->op);
      if (!source)
        source = index_lookup (b->model, INDEX_ACCUMULATE, (int) from->id);
      if (!source)
        continue;
      guint source_id = source->id;
      CrGraphNode *n = cr_graph_model_add_node (b->model, input_kind (t), tensor_title (t, "tensor"));
      fill_tensor (b, n, t);
      index_set (b->model, INDEX_TENSOR, (int) t->id, n->id);
      CrGraphEdge *e = cr_graph_model_add_edge (b->model, source_id, n->id,
                                                cr_graph_format_shape (t->shape, t->ndim));
      e->tensor = (int) t->id;
      e->stops_gradient = TRUE;
      added++;
    }
}

/* A forward graph of a run that stopped with an error starts from the
 * tensors of the op that failed (the input and the weight of an nn.Linear
 * that raised a shape error), so that each can be marked: the newest
 * result may be anything the walk behind them recorded. Returns the first
 * (the one at fault), -1: none. */
static int
add_error_roots (Builder *b)
{
  const CrRecordError *e = NULL;
  for (guint i = b->record->errors->len; i-- > 0 && !e;)
    {
      const CrRecordError *err = g_ptr_array_index (b->record->errors, i);
      if (err->backward < 0 && err->op < 0 && err->operands->len > 0)
        e = err;
    }
  if (!e)
    return -1;
  for (guint i = 0; i < e->operands->len; i++)
    add_root (b, g_array_index (e->operands, int, i));
  return g_array_index (e->operands, int, 0);
}

/* ---- steps ------------------------------------------------------------------ */

static const CrGraphNode *
step_node (const CrGraphModel *self,
           const CrRecordStep *step)
{
  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    return cr_graph_model_find_accumulate (self, step->leaf);
  return cr_graph_model_find_op (self, step->op);
}

/* The edge a step's input travels along: into the step's node, carrying
 * the input's tensor. into: by node id, the edges into it (NULL: look
 * through all the edges). */
static guint
match_input_edge (const CrGraphModel *self,
                  GPtrArray          *into,
                  const CrRecordStep *rs,
                  guint               input_index)
{
  if (!rs || input_index >= rs->inputs->len)
    return G_MAXUINT;
  const CrGraphNode *node = step_node (self, rs);
  const CrRecordStepInput *in = g_ptr_array_index (rs->inputs, input_index);
  if (!node || in->tensor < 0)
    return G_MAXUINT;
  /* A tensor used twice by one op (x * x) has two edges: the k-th input
   * naming it takes the k-th edge carrying it. */
  guint nth = 0;
  for (guint i = 0; i < input_index; i++)
    nth += ((const CrRecordStepInput *) g_ptr_array_index (rs->inputs, i))->tensor == in->tensor;
  GArray *candidates = into ? g_ptr_array_index (into, node->id) : NULL;
  guint n = into ? candidates->len : self->edges->len;
  for (guint k = 0; k < n; k++)
    {
      guint e = into ? g_array_index (candidates, guint, k) : k;
      const CrGraphEdge *edge = g_ptr_array_index (self->edges, e);
      if (edge->to == node->id && edge->tensor == in->tensor && nth-- == 0)
        return e;
    }
  return G_MAXUINT;
}

static void
add_steps (CrGraphModel           *self,
           const CrRecordBackward *backward)
{
  self->n_steps = backward->steps->len;
  for (guint s = 0; s < backward->steps->len; s++)
    {
      const CrRecordStep *step = g_ptr_array_index (backward->steps, s);
      CrGraphNode *n = (CrGraphNode *) step_node (self, step);
      if (n && n->step < 0)
        n->step = (int) s;
    }
  /* Each step input's edge, once: the edges into each node first. */
  g_autoptr (GPtrArray) into = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < self->nodes->len; i++)
    g_ptr_array_add (into, g_array_new (FALSE, FALSE, sizeof (guint)));
  for (guint e = 0; e < self->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (self->edges, e);
      g_array_append_val (g_ptr_array_index (into, edge->to), e);
    }
  self->private_step_edges = g_ptr_array_new_full (backward->steps->len,
                                                   (GDestroyNotify) g_array_unref);
  for (guint s = 0; s < backward->steps->len; s++)
    {
      const CrRecordStep *step = g_ptr_array_index (backward->steps, s);
      GArray *edges = g_array_sized_new (FALSE, FALSE, sizeof (guint), step->inputs->len);
      for (guint i = 0; i < step->inputs->len; i++)
        {
          guint e = match_input_edge (self, into, step, i);
          g_array_append_val (edges, e);
        }
      g_ptr_array_add (self->private_step_edges, edges);
    }
}

/* ---- models ------------------------------------------------------------------ */

static void
builder_init (Builder     *b,
              CrRunRecord *record,
              int          backward)
{
  memset (b, 0, sizeof *b);
  b->record = record;
  b->model = cr_graph_model_new ();
  b->model->record = cr_run_record_ref (record);
  b->model->backward = backward;
  b->model->private_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_queue_init (&b->queue);
}

/* The newest op output the script named, else the newest op output; -1. */
static int
newest_result (const CrRunRecord *record)
{
  int unnamed = -1;
  for (guint k = record->ops->len; k-- > 0;)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, k);
      for (guint o = 0; o < op->outputs->len; o++)
        {
          int id = g_array_index (op->outputs, int, o);
          const CrRecordTensor *t = record_tensor (record, id);
          if (!t)
            continue;
          if (t->name)
            return id;
          if (unnamed < 0)
            unnamed = id;
        }
    }
  return unnamed;
}

static char *
backward_title (const CrRunRecord      *record,
                const CrRecordBackward *backward)
{
  if (backward->title)
    return g_strdup (backward->title);
  g_autofree char *text = cr_graph_span_text (record->source, &backward->span);
  g_autofree char *where = cr_run_record_line_text (record, backward->span.line, FALSE);
  if (text)
    return g_strdup_printf ("%s · %s", text, where);
  if (backward->span.line > 0)
    return g_strdup_printf ("backward · %s", where);
  return g_strdup ("backward");
}

CrGraphModel *
cr_graph_model_new_from_run_record (CrRunRecord *record,
                                    int          backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  const CrRecordBackward *call = NULL;
  int root = -1;
  if (backward >= 0)
    {
      if ((guint) backward >= record->backwards->len)
        return NULL;
      call = g_ptr_array_index (record->backwards, backward);
    }
  else if ((root = newest_result (record)) < 0)
    return NULL;

  Builder b;
  builder_init (&b, record, backward);
  CrGraphModel *self = b.model;
  if (call)
    for (guint r = 0; r < call->roots->len; r++)
      add_root (&b, g_array_index (call->roots, int, r));
  else
    {
      int at_fault = add_error_roots (&b);
      if (at_fault >= 0)
        root = at_fault;
      else
        add_root (&b, root);
    }
  walk (&b);
  if (!call)
    add_stopped (&b);

  if (call)
    {
      self->span = call->span;
      self->succeeded = call->succeeded;
      self->title = backward_title (record, call);
      add_steps (self, call);
    }
  else
    {
      const CrRecordTensor *t = record_tensor (record, root);
      self->title = g_strdup_printf ("forward graph of %s", tensor_title (t, "the result"));
    }
  g_queue_clear (&b.queue);
  cr_graph_model_assign_keys (self);
  return self;
}

GPtrArray *
cr_graph_models_new_from_run_record (CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  GPtrArray *models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
  for (guint i = 0; i < record->backwards->len; i++)
    {
      CrGraphModel *model = cr_graph_model_new_from_run_record (record, (int) i);
      if (model)
        g_ptr_array_add (models, model);
    }
  if (record->backwards->len == 0)
    {
      CrGraphModel *forward = cr_graph_model_new_from_run_record (record, -1);
      if (forward)
        g_ptr_array_add (models, forward);
    }
  return models;
}

/* ---- lookups -------------------------------------------------------------------- */

const CrRecordBackward *
cr_graph_model_get_backward (const CrGraphModel *self)
{
  if (!self || !self->record || self->backward < 0
      || (guint) self->backward >= self->record->backwards->len)
    return NULL;
  return g_ptr_array_index (self->record->backwards, self->backward);
}

const CrRecordStep *
cr_graph_model_get_record_step (const CrGraphModel *self,
                                int                 step)
{
  const CrRecordBackward *backward = cr_graph_model_get_backward (self);
  if (!backward || step < 0 || (guint) step >= backward->steps->len)
    return NULL;
  return g_ptr_array_index (backward->steps, step);
}

const CrGraphNode *
cr_graph_model_find_op (const CrGraphModel *self,
                        int                 op)
{
  return index_lookup (self, INDEX_OP, op);
}

const CrGraphNode *
cr_graph_model_find_tensor (const CrGraphModel *self,
                            int                 tensor)
{
  return index_lookup (self, INDEX_TENSOR, tensor);
}

const CrGraphNode *
cr_graph_model_find_accumulate (const CrGraphModel *self,
                                int                 leaf)
{
  const CrGraphNode *acc = index_lookup (self, INDEX_ACCUMULATE, leaf);
  return acc ? acc : index_lookup (self, INDEX_TENSOR, leaf);
}

const CrGraphNode *
cr_graph_model_find_step_input_node (const CrGraphModel      *self,
                                     const CrRecordStepInput *input)
{
  if (!input)
    return NULL;
  if (input->to_op >= 0)
    return cr_graph_model_find_op (self, input->to_op);
  if (input->to_leaf >= 0)
    return cr_graph_model_find_accumulate (self, input->to_leaf);
  return NULL;
}

guint
cr_graph_model_find_step_input_edge (const CrGraphModel *self,
                                     int                 step,
                                     guint               input_index)
{
  const CrRecordStep *rs = cr_graph_model_get_record_step (self, step);
  if (!rs || input_index >= rs->inputs->len)
    return G_MAXUINT;
  if (self->private_step_edges && (guint) step < self->private_step_edges->len)
    {
      GArray *edges = g_ptr_array_index (self->private_step_edges, step);
      return input_index < edges->len ? g_array_index (edges, guint, input_index) : G_MAXUINT;
    }
  return match_input_edge (self, NULL, rs, input_index);
}

const CrGraphNode *
cr_graph_model_find_step_node (const CrGraphModel *self,
                               int                 step)
{
  const CrRecordStep *rs = cr_graph_model_get_record_step (self, step);
  return rs ? step_node (self, rs) : NULL;
}

void
cr_graph_model_index_node (CrGraphModel      *self,
                           const CrGraphNode *from,
                           guint              node)
{
  g_return_if_fail (self != NULL && from != NULL);
  if (!self->private_index)
    self->private_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  if (from->op >= 0)
    index_set (self, INDEX_OP, from->op, node);
  if (from->tensor >= 0)
    index_set (self, from->kind == CR_GRAPH_NODE_ACCUMULATE ? INDEX_ACCUMULATE : INDEX_TENSOR,
               from->tensor, node);
}
