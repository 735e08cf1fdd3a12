/* cr-graph-model-engine.c — the older way to a graph model: walking the
 * engine's graph (CrNode/CrTensor) and copying core/lang's CrStepRecord.
 * Kept until every caller builds its models from the run record
 * (cr-graph-model-record.c); then this file goes.
 *
 * The walk is breadth-first with an explicit queue (graphs can be 45k nodes
 * deep), from the roots along each node's next edges; a hash table gives each
 * engine node its model node once, so a tensor used twice is drawn once with
 * two out-edges. Inputs without an edge (no gradient) become constant nodes,
 * Python numbers excepted. */
#include "cr-graph-model-private.h"

#include "cr-device.h"
#include "cr-dtype.h"
#include "cr-node.h"
#include "cr-tensor.h"
#include "cr-tensor-format.h"

#include <string.h>

/* Beyond this many elements a preview says nothing a card can show. */
#define PREVIEW_MAX_NUMEL 16

/* ---- building ------------------------------------------------------------ */

/* All the snapshots of one model together keep at most this many values
 * (32 MiB): a long backward over big tensors still gets its statistics and
 * shapes, only the heat maps of its last steps go. */
#define MODEL_MAX_VALUES (4 * 1024 * 1024)

typedef struct {
  CrGraphModel *model;
  const char   *source;
  GHashTable   *ids;          /* CrNode* -> model id */
  GHashTable   *leaves;       /* CrTensor* (leaf) -> model id */
  GHashTable   *constants;    /* CrSavedRecord.identity -> model id */
  GHashTable   *input_edges;  /* CrNode* -> guint[n_inputs]: the model edge of each input */
  GHashTable   *named;        /* CrNode* -> const char*: a global whose tensor it made */
  GHashTable   *named_tensor; /* CrNode* -> CrTensor* (that global's tensor) */
  GHashTable   *node_steps;   /* CrNode* -> const CrStepRecord* (the first that ran it) */
  GQueue        queue;
  gint64        values_left;
} Builder;

static void
builder_init (Builder    *b,
              const char *source)
{
  memset (b, 0, sizeof *b);
  b->model = cr_graph_model_new ();
  b->source = source;
  b->ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  b->leaves = g_hash_table_new (g_direct_hash, g_direct_equal);
  b->constants = g_hash_table_new (g_direct_hash, g_direct_equal);
  b->input_edges = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  b->named = g_hash_table_new (g_direct_hash, g_direct_equal);
  b->named_tensor = g_hash_table_new (g_direct_hash, g_direct_equal);
  b->node_steps = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_queue_init (&b->queue);
  b->values_left = MODEL_MAX_VALUES;
}

static void
builder_clear (Builder *b)
{
  g_hash_table_unref (b->ids);
  g_hash_table_unref (b->leaves);
  g_hash_table_unref (b->constants);
  g_hash_table_unref (b->input_edges);
  g_hash_table_unref (b->named);
  g_hash_table_unref (b->named_tensor);
  g_hash_table_unref (b->node_steps);
  g_queue_clear (&b->queue);
}

static CrTensorSnapshot *
snap (Builder        *b,
      const CrTensor *t)
{
  if (!t)
    return NULL;
  CrTensorSnapshot *s = cr_tensor_snapshot_new_limited (t, MAX (b->values_left, 0));
  b->values_left -= s->n_values;
  return s;
}

/* The tensors the script's globals name, by the node that made them (for
 * the inspector of an op node). Several names for one tensor: the one it was
 * first bound to, else the smallest, so that runs agree. */
static void
builder_add_globals (Builder    *b,
                     GHashTable *globals)
{
  if (!globals)
    return;
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, globals);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const CrValue *v = value;
      if (!v || v->kind != CR_VALUE_TENSOR || !v->u.tensor->grad_fn || v->u.tensor->output_nr != 0)
        continue;
      CrTensor *t = v->u.tensor;
      const char *name = key;
      const char *old = g_hash_table_lookup (b->named, t->grad_fn);
      const char *first = cr_tensor_get_name (t);
      if (old && g_strcmp0 (old, first) == 0)
        continue;
      if (old && g_strcmp0 (name, first) != 0 && strcmp (old, name) < 0)
        continue;
      g_hash_table_insert (b->named, t->grad_fn, (gpointer) name);
      g_hash_table_insert (b->named_tensor, t->grad_fn, t);
    }
}

static char *
tensor_preview (const CrTensor *t)
{
  if (t->numel > PREVIEW_MAX_NUMEL || t->numel == 0)
    return NULL;
  CrPrintOptions options;
  cr_print_options_init_default (&options);
  options.precision = 2;
  options.linewidth = 40;
  return cr_tensor_format_data (t, &options, 0);
}

static void
fill_tensor (CrGraphNode    *n,
             const CrTensor *t)
{
  n->shape = cr_graph_format_shape (t->shape, t->ndim);
  n->preview = tensor_preview (t);
  n->device = g_strdup (cr_device_name (t->device));
}

/* The inspector's view of a tensor. */
static void
fill_info (Builder         *b,
           CrGraphNodeInfo *info,
           const CrTensor  *t,
           const char      *name)
{
  info->has_tensor = TRUE;
  g_free (info->name);
  info->name = g_strdup (name ? name : cr_tensor_get_name (t));
  info->value = snap (b, t);
  info->grad = snap (b, t->grad);
  info->grad_fn = t->grad_fn ? g_strdup_printf ("<%s>", cr_node_name (t->grad_fn)) : NULL;
  info->is_leaf = t->grad_fn == NULL;
  info->requires_grad = t->requires_grad;
  info->retains_grad = t->retains_grad;
  info->dtype = g_strdup (cr_dtype_name (t->dtype));
  info->device = g_strdup (cr_device_name (t->device));
}

static guint
describe_saved (Builder       *b,
                CrNode        *node,
                CrSavedRecord *out)
{
  guint n = cr_node_describe_saved (node, out);
  const CrStepRecord *rec = g_hash_table_lookup (b->node_steps, node);
  for (guint k = 0; k < n && rec; k++)
    if (!out[k].known)
      for (guint j = 0; j < rec->n_saved; j++)
        if (rec->saved[j].slot == out[k].slot && rec->saved[j].known)
          out[k] = rec->saved[j];
  return n;
}

static void
fill_op_info (Builder     *b,
              CrGraphNode *n,
              CrNode      *node)
{
  CrGraphNodeInfo *info = &n->info;
  CrTensor *made = g_hash_table_lookup (b->named_tensor, node);
  if (made)
    fill_info (b, info, made, g_hash_table_lookup (b->named, node));
  else
    {
      info->grad_fn = g_strdup_printf ("<%s>", cr_node_name (node));
      info->requires_grad = TRUE;
      if (node->n_outputs > 0 && node->output_meta)
        {
          info->dtype = g_strdup (cr_dtype_name (node->output_meta[0].dtype));
          info->device = g_strdup (cr_device_name (node->output_meta[0].device));
        }
    }
  n->freed = node->released;
  if (node->n_outputs > 0 && node->output_meta && node->output_meta[0].device != CR_DEVICE_CPU)
    n->device = g_strdup (cr_device_name (node->output_meta[0].device));

  CrSavedRecord saved[CR_NODE_MAX_SAVED];
  guint n_saved = describe_saved (b, node, saved);
  for (guint k = 0; k < n_saved; k++)
    {
      const CrSavedRecord *r = &saved[k];
      CrGraphSaved *s = g_new0 (CrGraphSaved, 1);
      s->name = r->name ? g_strdup (r->name) : g_strdup_printf ("saved %u", r->slot);
      s->shape = r->known ? cr_graph_format_shape (r->shape, r->ndim) : g_strdup ("?");
      const CrTensor *t = node->saved[r->slot].tensor;
      s->freed = t == NULL;
      s->value = snap (b, t);
      g_ptr_array_add (info->saved, s);
    }
}

/* A Python number wrapped for the op (`x * 2`): no node for it. Known
 * exactly when the op saved it; otherwise a 0-d input of a dtype that only a
 * wrapped number would bring to a floating op. */
static gboolean
is_number_input (const CrNode        *node,
                 guint                i,
                 const CrSavedRecord *r)
{
  if (r && r->known)
    return r->is_number;
  const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
  if (!m || m->ndim != 0)
    return FALSE;
  CrDType out = node->n_outputs > 0 && node->output_meta ? node->output_meta[0].dtype : CR_DTYPE_FLOAT32;
  return m->dtype == CR_DTYPE_INT64 || m->dtype == CR_DTYPE_BOOL
         || (m->dtype == CR_DTYPE_FLOAT64 && out != CR_DTYPE_FLOAT64);
}

/* The node of an input that gets no gradient (requires_grad=False,
 * detached, made under no_grad), or G_MAXUINT for a Python number. */
static guint
constant_for (Builder             *b,
              CrNode              *node,
              guint                i,
              const CrSavedRecord *r)
{
  if (is_number_input (node, i, r))
    return G_MAXUINT;
  gpointer found;
  if (r && r->identity && g_hash_table_lookup_extended (b->constants, r->identity, NULL, &found))
    return GPOINTER_TO_UINT (found);

  const char *name = r ? r->variable : NULL;
  CrGraphNode *n = cr_graph_model_add_node (b->model, CR_GRAPH_NODE_CONSTANT, name ? name : "constant");
  const CrTensor *t = r && !r->is_output ? node->saved[r->slot].tensor : NULL;
  const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
  if (t)
    {
      fill_tensor (n, t);
      fill_info (b, &n->info, t, name);
    }
  else
    {
      if (m)
        {
          n->shape = cr_graph_format_shape (m->shape, m->ndim);
          n->device = g_strdup (cr_device_name (m->device));
          n->info.dtype = g_strdup (cr_dtype_name (m->dtype));
          n->info.device = g_strdup (cr_device_name (m->device));
        }
      n->info.name = g_strdup (name);
      /* Whatever it was, it got no gradient: a tensor without history. */
      n->info.is_leaf = TRUE;
    }
  if (r && r->identity)
    g_hash_table_insert (b->constants, (gpointer) r->identity, GUINT_TO_POINTER (n->id));
  return n->id;
}

/* The intermediate tensor an edge carries when the script named it ("b" for
 * `b = w1 * a`), so that intermediate tensors show in the graph without a
 * column of their own (new string), or NULL. */
static char *
edge_tensor_name (const CrGraphModel *model,
                  guint               from,
                  guint32             output_nr)
{
  const CrGraphNode *source = g_ptr_array_index (model->nodes, from);
  if (source->kind != CR_GRAPH_NODE_OP || output_nr != 0)
    return NULL;
  return g_strdup (source->info.name);
}

/* The model node of an engine node (and its leaf, for AccumulateGrad). */
static guint
node_for (Builder *b,
          CrNode  *node)
{
  gpointer found;
  if (g_hash_table_lookup_extended (b->ids, node, NULL, &found))
    return GPOINTER_TO_UINT (found);

  CrGraphModel *self = b->model;
  CrGraphNode *n;
  if (node->variable)
    {
      CrTensor *v = node->variable;
      n = cr_graph_model_add_node (self, CR_GRAPH_NODE_ACCUMULATE, cr_node_name (node));
      const char *name = cr_tensor_get_name (v);
      CrGraphNode *leaf = cr_graph_model_add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "leaf");
      fill_tensor (leaf, v);
      fill_info (b, &leaf->info, v, NULL);
      g_hash_table_insert (b->leaves, v, GUINT_TO_POINTER (leaf->id));
      /* AccumulateGrad shows the leaf it writes, with its .grad. */
      fill_info (b, &n->info, v, NULL);
      if (v->device != CR_DEVICE_CPU)
        n->device = g_strdup (cr_device_name (v->device));
      cr_graph_model_add_edge (self, leaf->id, n->id, cr_graph_format_shape (v->shape, v->ndim));
    }
  else
    {
      n = cr_graph_model_add_node (self, CR_GRAPH_NODE_OP, cr_node_name (node));
      if (node->op && node->op->symbol)
        n->symbol = g_strdup (node->op->symbol);
      n->caption = cr_graph_shorten (cr_graph_span_text (b->source, &node->span));
      fill_op_info (b, n, node);
    }
  n->span = node->span;
  g_hash_table_insert (b->ids, node, GUINT_TO_POINTER (n->id));
  g_queue_push_tail (&b->queue, node);
  return n->id;
}

static void
walk (Builder *b)
{
  CrNode *node;
  while ((node = g_queue_pop_head (&b->queue)))
    {
      guint to = GPOINTER_TO_UINT (g_hash_table_lookup (b->ids, node));
      guint *edges = g_new (guint, MAX (node->n_inputs, 1));
      g_hash_table_insert (b->input_edges, node, edges);
      CrSavedRecord saved[CR_NODE_MAX_SAVED];
      guint n_saved = node->variable ? 0 : describe_saved (b, node, saved);
      for (guint i = 0; i < node->n_inputs; i++)
        {
          CrNode *next = node->next[i].node;
          const CrTensorMeta *meta = node->input_meta ? &node->input_meta[i] : NULL;
          guint from;
          edges[i] = G_MAXUINT;
          if (next)
            from = node_for (b, next);
          else
            {
              const CrSavedRecord *r = NULL;
              for (guint k = 0; k < n_saved && !r; k++)
                if (saved[k].input == (int) i)
                  r = &saved[k];
              from = constant_for (b, node, i, r);
              if (from == G_MAXUINT)
                continue;
            }
          edges[i] = b->model->edges->len;
          cr_graph_model_add_edge (b->model, from, to, meta ? cr_graph_format_shape (meta->shape, meta->ndim) : NULL);
          CrGraphEdge *edge = g_ptr_array_index (b->model->edges, edges[i]);
          edge->tensor_name = edge_tensor_name (b->model, from, next ? node->next[i].input_nr : 0);
        }
    }
}

static void
add_roots (Builder         *b,
           CrTensor *const *roots,
           guint            n_roots)
{
  CrGraphModel *self = b->model;
  for (guint r = 0; r < n_roots; r++)
    {
      CrTensor *t = roots[r];
      if (!t)
        continue;
      const char *name = cr_tensor_get_name (t);
      if (!t->grad_fn)
        {
          /* A leaf as the root: backward goes straight to its AccumulateGrad. */
          if (g_hash_table_contains (b->leaves, t))
            continue;
          CrGraphNode *leaf = cr_graph_model_add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "tensor");
          fill_tensor (leaf, t);
          fill_info (b, &leaf->info, t, NULL);
          g_hash_table_insert (b->leaves, t, GUINT_TO_POINTER (leaf->id));
          continue;
        }
      guint op = node_for (b, t->grad_fn);
      CrGraphNode *out = cr_graph_model_add_node (self, CR_GRAPH_NODE_OUTPUT, name ? name : "output");
      fill_tensor (out, t);
      fill_info (b, &out->info, t, NULL);
      out->span = t->grad_fn->span;
      cr_graph_model_add_edge (self, op, out->id, cr_graph_format_shape (t->shape, t->ndim));
    }
  walk (b);
}

static guint
model_id (Builder *b,
          CrNode  *node)
{
  gpointer found;
  if (node && g_hash_table_lookup_extended (b->ids, node, NULL, &found))
    return GPOINTER_TO_UINT (found);
  /* A leaf root has no AccumulateGrad node of its own: its leaf stands in. */
  if (node && node->variable && g_hash_table_lookup_extended (b->leaves, node->variable, NULL, &found))
    return GPOINTER_TO_UINT (found);
  return G_MAXUINT;
}

/* The step card of one recorded step: the same names and numbers as the
 * --trace-backward text for it (cr-backward-record.c's trace_step). */
static CrGraphStep *
step_from_record (Builder            *b,
                  const CrStepRecord *rec,
                  guint               index)
{
  CrGraphStep *gs = cr_graph_step_new (index);
  CrNode *node = rec->node;
  const char *root = rec->root_name ? rec->root_name : "out";
  gs->node = model_id (b, node);
  gs->title = g_strdup (node ? cr_node_name (node) : "?");
  gs->caption = g_strdup (rec->caption);
  gs->root = g_strdup (root);
  gs->rule = g_strdup (rec->rule);

  for (guint o = 0; o < rec->n_outputs; o++)
    {
      CrGraphGrad *g = g_new0 (CrGraphGrad, 1);
      g->name = cr_graph_partial (root, rec->output_names ? rec->output_names[o] : NULL);
      g->value = snap (b, rec->grad_outputs[o]);
      g_ptr_array_add (gs->incoming, g);
    }

  const guint *edges = node ? g_hash_table_lookup (b->input_edges, node) : NULL;
  for (guint i = 0; i < rec->n_inputs; i++)
    {
      if (!rec->grad_inputs[i] || !node || !node->next || !node->next[i].node)
        continue;
      const char *iname = rec->input_names ? rec->input_names[i] : NULL;
      CrGraphStepInput *in = g_new0 (CrGraphStepInput, 1);
      in->to_node = model_id (b, node->next[i].node);
      in->edge = edges ? edges[i] : G_MAXUINT;
      in->input_name = g_strdup (iname);
      in->outgoing.name = cr_graph_partial (root, iname);
      in->outgoing.value = snap (b, rec->grad_inputs[i]);
      CrTensor *local = rec->local_grads[i];
      /* As the trace: the chain rule only for one output with a local gradient. */
      if (local && rec->n_outputs == 1)
        {
          const char *out = rec->local_name ? rec->local_name : "out";
          in->local_name = g_strdup_printf ("∂%s/∂%s", out, iname ? iname : "?");
          in->local = snap (b, local);
          in->product = g_strdup_printf ("%s = ∂%s/∂%s × %s", in->outgoing.name, root, out,
                                         in->local_name);
        }
      g_ptr_array_add (gs->inputs, in);
    }

  for (guint k = 0; rec->accumulations && k < rec->accumulations->len; k++)
    {
      const CrAccumulationRecord *a = g_ptr_array_index (rec->accumulations, k);
      CrGraphAccumulation *ga = g_new0 (CrGraphAccumulation, 1);
      ga->name = cr_graph_partial (root, a->name);
      ga->node = model_id (b, a->node);
      ga->contribution = snap (b, a->contribution);
      ga->sum = snap (b, a->sum);
      g_ptr_array_add (gs->accumulations, ga);
    }

  if (node && node->variable)
    {
      const char *leaf = rec->leaf ? cr_tensor_get_name (rec->leaf) : NULL;
      gs->leaf_name = g_strdup (leaf ? leaf : rec->caption);
      gs->grad_before = snap (b, rec->grad_before);
      gs->grad_after = snap (b, rec->grad_after);
    }
  return gs;
}

/* ---- models ---------------------------------------------------------------- */

static CrGraphModel *
builder_finish (Builder *b)
{
  cr_graph_model_assign_keys (b->model);
  CrGraphModel *model = b->model;
  builder_clear (b);
  return model;
}

static CrGraphModel *
model_from_tensors (CrTensor *const *roots,
                    guint            n_roots,
                    const char      *source,
                    GHashTable      *globals)
{
  Builder b;
  builder_init (&b, source);
  builder_add_globals (&b, globals);
  add_roots (&b, roots, n_roots);
  return builder_finish (&b);
}

CrGraphModel *
cr_graph_model_new_from_tensors (CrTensor *const *roots,
                                 guint            n_roots,
                                 const char      *source)
{
  return model_from_tensors (roots, n_roots, source, NULL);
}

static CrGraphModel *
model_from_record (const CrBackwardRecord *record,
                   const char             *source,
                   GHashTable             *globals)
{
  Builder b;
  builder_init (&b, source);
  builder_add_globals (&b, globals);
  /* Steps first, so that nodes a backward freed find their saved tensors
   * as the record described them. */
  for (guint s = 0; s < record->steps->len; s++)
    {
      const CrStepRecord *step = g_ptr_array_index (record->steps, s);
      if (step->node && !g_hash_table_contains (b.node_steps, step->node))
        g_hash_table_insert (b.node_steps, step->node, (gpointer) step);
    }
  add_roots (&b, (CrTensor *const *) record->roots->pdata, record->roots->len);

  CrGraphModel *self = b.model;
  self->span = record->span;
  self->succeeded = record->succeeded;
  g_autofree char *text = cr_graph_span_text (source, &record->span);
  if (text)
    self->title = g_strdup_printf ("%s · line %d", text, record->span.line);
  else if (record->span.line > 0)
    self->title = g_strdup_printf ("backward · line %d", record->span.line);
  else
    self->title = g_strdup ("backward");

  self->n_steps = record->steps->len;
  for (guint s = 0; s < record->steps->len; s++)
    {
      const CrStepRecord *step = g_ptr_array_index (record->steps, s);
      CrGraphStep *gs = step_from_record (&b, step, s);
      g_ptr_array_add (self->steps, gs);
      if (gs->node == G_MAXUINT)
        continue;
      CrGraphNode *n = g_ptr_array_index (self->nodes, gs->node);
      if (n->step < 0)
        n->step = (int) s;
      if (n->kind == CR_GRAPH_NODE_OP && step->caption)
        {
          g_free (n->caption);
          n->caption = cr_graph_shorten (cr_graph_caption_without_line (step->caption));
        }
    }
  return builder_finish (&b);
}

CrGraphModel *
cr_graph_model_new_from_record (const CrBackwardRecord *record,
                                const char             *source)
{
  g_return_val_if_fail (record != NULL, NULL);
  return model_from_record (record, source, NULL);
}

/* The forward graph of the newest tensor with a grad_fn among the globals. */
static CrGraphModel *
forward_model (CrInterp   *interp,
               const char *source)
{
  GHashTable *globals = cr_interp_get_globals (interp);
  CrTensor *newest = NULL;
  const char *newest_name = NULL;
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, globals);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      CrValue *v = value;
      if (!v || v->kind != CR_VALUE_TENSOR || !v->u.tensor->grad_fn)
        continue;
      guint64 seq = v->u.tensor->grad_fn->sequence_nr;
      if (!newest || seq > newest->grad_fn->sequence_nr
          || (seq == newest->grad_fn->sequence_nr && strcmp (key, newest_name) < 0))
        {
          newest = v->u.tensor;
          newest_name = key;
        }
    }
  if (!newest)
    return NULL;
  CrGraphModel *model = model_from_tensors (&newest, 1, source, globals);
  const char *name = cr_tensor_get_name (newest);
  model->title = g_strdup_printf ("forward graph of %s", name ? name : newest_name);
  return model;
}

CrGraphModel *
cr_graph_model_new_from_interp (CrInterp   *interp,
                                const char *source)
{
  guint n = cr_interp_get_n_backward_records (interp);
  if (n > 0)
    return model_from_record (cr_interp_get_backward_record (interp, n - 1), source,
                              cr_interp_get_globals (interp));
  return forward_model (interp, source);
}

GPtrArray *
cr_graph_models_new_from_interp (CrInterp   *interp,
                                 const char *source)
{
  GPtrArray *models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
  guint n = cr_interp_get_n_backward_records (interp);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (models, model_from_record (cr_interp_get_backward_record (interp, i), source,
                                                cr_interp_get_globals (interp)));
  if (n == 0)
    {
      CrGraphModel *forward = forward_model (interp, source);
      if (forward)
        g_ptr_array_add (models, forward);
    }
  return models;
}

