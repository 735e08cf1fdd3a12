/* cr-graph-model.c — copy the engine's backward graph into a CrGraphModel.
 *
 * The walk is breadth-first with an explicit queue (graphs can be 45k nodes
 * deep), from the roots along each node's next edges; a hash table gives each
 * engine node its model node once, so a tensor used twice is drawn once with
 * two out-edges. Inputs without an edge (no gradient) become constant nodes,
 * Python numbers excepted.
 *
 * Each recorded step becomes a CrGraphStep with the names the interpreter
 * wrote down when the step ran (the --trace-backward names) and snapshots of
 * its tensors; each node gets the inspector's facts: its tensor, .grad, and
 * an op's saved tensors, described before a backward freed them. */
#include "cr-graph-model-private.h"

#include "cr-device.h"
#include "cr-dtype.h"
#include "cr-node.h"
#include "cr-tensor.h"
#include "cr-tensor-format.h"

#include <string.h>

/* Beyond this many elements a preview says nothing a card can show. */
#define PREVIEW_MAX_NUMEL 16

/* ---- model values ---------------------------------------------------------- */

static void
saved_free (gpointer data)
{
  CrGraphSaved *s = data;
  g_free (s->name);
  g_free (s->shape);
  cr_tensor_snapshot_free (s->value);
  g_free (s);
}

static void
node_info_clear (CrGraphNodeInfo *info)
{
  g_free (info->name);
  cr_tensor_snapshot_free (info->value);
  cr_tensor_snapshot_free (info->grad);
  g_free (info->grad_fn);
  g_free (info->dtype);
  g_free (info->device);
  if (info->saved)
    g_ptr_array_unref (info->saved);
}

static void
node_free (gpointer data)
{
  CrGraphNode *n = data;
  g_free (n->title);
  g_free (n->symbol);
  g_free (n->caption);
  g_free (n->shape);
  g_free (n->preview);
  g_free (n->key);
  g_free (n->device);
  node_info_clear (&n->info);
  g_free (n);
}

static void
grad_clear (CrGraphGrad *g)
{
  g_free (g->name);
  cr_tensor_snapshot_free (g->value);
}

static void
grad_free (gpointer data)
{
  grad_clear (data);
  g_free (data);
}

static void
step_input_free (gpointer data)
{
  CrGraphStepInput *in = data;
  g_free (in->input_name);
  g_free (in->local_name);
  cr_tensor_snapshot_free (in->local);
  grad_clear (&in->outgoing);
  g_free (in->product);
  g_free (in);
}

static void
accumulation_free (gpointer data)
{
  CrGraphAccumulation *a = data;
  g_free (a->name);
  cr_tensor_snapshot_free (a->contribution);
  cr_tensor_snapshot_free (a->sum);
  g_free (a);
}

static void
step_free (gpointer data)
{
  CrGraphStep *s = data;
  g_free (s->title);
  g_free (s->caption);
  g_free (s->root);
  g_ptr_array_unref (s->incoming);
  g_free (s->rule);
  g_ptr_array_unref (s->inputs);
  g_ptr_array_unref (s->accumulations);
  g_free (s->leaf_name);
  cr_tensor_snapshot_free (s->grad_before);
  cr_tensor_snapshot_free (s->grad_after);
  g_free (s);
}

static void
edge_free (gpointer data)
{
  CrGraphEdge *e = data;
  g_free (e->label);
  g_free (e->tensor_name);
  g_free (e);
}

CrGraphModel *
cr_graph_model_ref (CrGraphModel *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
cr_graph_model_unref (CrGraphModel *self)
{
  if (!self || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_ptr_array_unref (self->nodes);
  g_ptr_array_unref (self->edges);
  g_ptr_array_unref (self->steps);
  g_free (self->title);
  g_free (self);
}

void
cr_graph_model_free (CrGraphModel *self)
{
  cr_graph_model_unref (self);
}

char *
cr_graph_format_shape (const gint64 *shape,
                       int           ndim)
{
  if (ndim <= 0 || !shape)
    return g_strdup ("scalar");
  GString *s = g_string_new (NULL);
  for (int i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "×" : "", shape[i]);
  return g_string_free (s, FALSE);
}

static CrGraphStep *
step_new (guint index)
{
  CrGraphStep *s = g_new0 (CrGraphStep, 1);
  s->index = index;
  s->node = G_MAXUINT;
  s->incoming = g_ptr_array_new_with_free_func (grad_free);
  s->inputs = g_ptr_array_new_with_free_func (step_input_free);
  s->accumulations = g_ptr_array_new_with_free_func (accumulation_free);
  return s;
}

static CrGraphModel *
model_new (void)
{
  CrGraphModel *self = g_new0 (CrGraphModel, 1);
  self->ref_count = 1;
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->edges = g_ptr_array_new_with_free_func (edge_free);
  self->steps = g_ptr_array_new_with_free_func (step_free);
  self->succeeded = TRUE;
  return self;
}

static CrGraphNode *
add_node (CrGraphModel    *self,
          CrGraphNodeKind  kind,
          const char      *title)
{
  CrGraphNode *n = g_new0 (CrGraphNode, 1);
  n->id = self->nodes->len;
  n->kind = kind;
  n->title = g_strdup (title);
  n->step = -1;
  n->info.saved = g_ptr_array_new_with_free_func (saved_free);
  g_ptr_array_add (self->nodes, n);
  return n;
}

static void
add_edge (CrGraphModel *self,
          guint         from,
          guint         to,
          char         *label)   /* taken */
{
  CrGraphEdge *e = g_new0 (CrGraphEdge, 1);
  e->from = from;
  e->to = to;
  e->label = label;
  g_ptr_array_add (self->edges, e);
}

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
  b->model = model_new ();
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

/* The code of a one-line span, from the script text (NULL when unknown). */
static char *
span_text (const char   *source,
           const CrSpan *span)
{
  if (!source || span->line <= 0 || span->end_line != span->line || span->end_column <= span->column)
    return NULL;
  const char *p = source;
  for (int line = 1; line < span->line && p; line++)
    {
      p = strchr (p, '\n');
      if (p)
        p++;
    }
  if (!p)
    return NULL;
  gsize line_len = strcspn (p, "\n");
  gsize start = (gsize) span->column - 1;
  gsize end = (gsize) span->end_column - 1;
  if (end > line_len || start >= end)
    return NULL;
  char *text = g_strndup (p + start, end - start);
  return g_strstrip (text);
}

/* A step caption is "b = w1*a, line 5": without the line it is the node's. */
static char *
caption_without_line (const char *caption)
{
  if (!caption)
    return NULL;
  const char *comma = g_strrstr (caption, ", line ");
  return g_strndup (caption, comma ? (gsize) (comma - caption) : strlen (caption));
}

static char *
shorten (char *text)   /* taken */
{
  if (text && g_utf8_strlen (text, -1) > 28)
    {
      char *cut = g_utf8_offset_to_pointer (text, 27);
      *cut = '\0';
      char *shorter = g_strconcat (text, "…", NULL);
      g_free (text);
      return shorter;
    }
  return text;
}

/* The saved tensors of node as the model shows them: described now, or,
 * for slots a backward already freed, as its step record described them
 * before (NULL when none did). */
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
  CrGraphNode *n = add_node (b->model, CR_GRAPH_NODE_CONSTANT, name ? name : "constant");
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
      n = add_node (self, CR_GRAPH_NODE_ACCUMULATE, cr_node_name (node));
      const char *name = cr_tensor_get_name (v);
      CrGraphNode *leaf = add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "leaf");
      fill_tensor (leaf, v);
      fill_info (b, &leaf->info, v, NULL);
      g_hash_table_insert (b->leaves, v, GUINT_TO_POINTER (leaf->id));
      /* AccumulateGrad shows the leaf it writes, with its .grad. */
      fill_info (b, &n->info, v, NULL);
      if (v->device != CR_DEVICE_CPU)
        n->device = g_strdup (cr_device_name (v->device));
      add_edge (self, leaf->id, n->id, cr_graph_format_shape (v->shape, v->ndim));
    }
  else
    {
      n = add_node (self, CR_GRAPH_NODE_OP, cr_node_name (node));
      if (node->op && node->op->symbol)
        n->symbol = g_strdup (node->op->symbol);
      n->caption = shorten (span_text (b->source, &node->span));
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
          add_edge (b->model, from, to, meta ? cr_graph_format_shape (meta->shape, meta->ndim) : NULL);
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
          CrGraphNode *leaf = add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "tensor");
          fill_tensor (leaf, t);
          fill_info (b, &leaf->info, t, NULL);
          g_hash_table_insert (b->leaves, t, GUINT_TO_POINTER (leaf->id));
          continue;
        }
      guint op = node_for (b, t->grad_fn);
      CrGraphNode *out = add_node (self, CR_GRAPH_NODE_OUTPUT, name ? name : "output");
      fill_tensor (out, t);
      fill_info (b, &out->info, t, NULL);
      out->span = t->grad_fn->span;
      add_edge (self, op, out->id, cr_graph_format_shape (t->shape, t->ndim));
    }
  walk (b);
}

/* Keys survive an edit of the script that keeps the graph's shape: names
 * and code, never lines or ids. */
static void
assign_keys (CrGraphModel *self)
{
  g_autoptr (GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* base -> the next number to try: a loop body's 10k nodes share a base. */
  g_autoptr (GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      CrGraphNode *n = g_ptr_array_index (self->nodes, i);
      g_autofree char *base = NULL;
      switch (n->kind)
        {
        case CR_GRAPH_NODE_LEAF:
          base = g_strconcat ("leaf:", n->title, NULL);
          break;
        case CR_GRAPH_NODE_OP:
          base = g_strdup_printf ("op:%s:%s", n->title, n->caption ? n->caption : "");
          break;
        case CR_GRAPH_NODE_ACCUMULATE:
          base = g_strconcat ("acc:", n->info.name ? n->info.name : "leaf", NULL);
          break;
        case CR_GRAPH_NODE_OUTPUT:
          base = g_strconcat ("out:", n->title, NULL);
          break;
        case CR_GRAPH_NODE_CONSTANT:
        default:
          base = g_strconcat ("const:", n->title, NULL);
          break;
        }
      char *key = g_strdup (base);
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (next, base));
      for (k = MAX (k, 2); g_hash_table_contains (used, key); k++)
        {
          g_free (key);
          key = g_strdup_printf ("%s#%u", base, k);
        }
      g_hash_table_insert (next, g_strdup (base), GUINT_TO_POINTER (k));
      g_hash_table_add (used, g_strdup (key));
      n->key = key;
    }
}

/* ---- steps ----------------------------------------------------------------- */

static char *
partial (const char *root,
         const char *name)
{
  return g_strdup_printf ("∂%s/∂%s", root, name ? name : "?");
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
  CrGraphStep *gs = step_new (index);
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
      g->name = partial (root, rec->output_names ? rec->output_names[o] : NULL);
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
      in->outgoing.name = partial (root, iname);
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
      ga->name = partial (root, a->name);
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
  assign_keys (b->model);
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
  g_autofree char *text = span_text (source, &record->span);
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
          n->caption = shorten (caption_without_line (step->caption));
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

/* ---- queries --------------------------------------------------------------- */

const CrGraphNode *
cr_graph_model_find_step (const CrGraphModel *self,
                          int                 step)
{
  /* Nodes no step ran have step -1 too: that is not "the node of step -1". */
  if (step < 0)
    return NULL;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (self->nodes, i);
      if (n->step == step)
        return n;
    }
  return NULL;
}

const CrGraphStep *
cr_graph_model_get_step (const CrGraphModel *self,
                         int                 step)
{
  if (!self || step < 0 || (guint) step >= self->steps->len)
    return NULL;
  return g_ptr_array_index (self->steps, step);
}

const CrGraphNode *
cr_graph_model_find_line (const CrGraphModel *self,
                          int                 line)
{
  const CrGraphNode *best = NULL;
  if (!self || line <= 0)
    return NULL;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (self->nodes, i);
      const CrSpan *sp = &n->span;
      if (sp->line <= 0 || line < sp->line || line > MAX (sp->end_line, sp->line))
        continue;
      if (!best)
        {
          best = n;
          continue;
        }
      /* The innermost: fewer lines, then fewer columns; among equals the
       * op that made it over the tensors drawn beside it. */
      int lines = MAX (sp->end_line, sp->line) - sp->line;
      const CrSpan *bs = &best->span;
      int best_lines = MAX (bs->end_line, bs->line) - bs->line;
      int width = lines == 0 ? sp->end_column - sp->column : G_MAXINT;
      int best_width = best_lines == 0 ? bs->end_column - bs->column : G_MAXINT;
      if (lines < best_lines || (lines == best_lines && width < best_width)
          || (lines == best_lines && width == best_width && n->kind == CR_GRAPH_NODE_OP
              && best->kind != CR_GRAPH_NODE_OP))
        best = n;
    }
  return best;
}
