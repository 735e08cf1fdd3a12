/* cr-graph-model.c — copy the engine's backward graph into a CrGraphModel.
 *
 * The walk is breadth-first with an explicit queue (graphs can be 45k nodes
 * deep), from the roots along each node's next edges; a hash table gives each
 * engine node its model node once, so a tensor used twice is drawn once with
 * two out-edges. */
#include "cr-graph-model.h"

#include "cr-node.h"
#include "cr-tensor.h"
#include "cr-tensor-format.h"

#include <string.h>

/* Beyond this many elements a preview says nothing a card can show. */
#define PREVIEW_MAX_NUMEL 16

static void
node_free (gpointer data)
{
  CrGraphNode *n = data;
  g_free (n->title);
  g_free (n->symbol);
  g_free (n->caption);
  g_free (n->shape);
  g_free (n->preview);
  g_free (n);
}

static void
edge_free (gpointer data)
{
  CrGraphEdge *e = data;
  g_free (e->label);
  g_free (e);
}

void
cr_graph_model_free (CrGraphModel *self)
{
  if (!self)
    return;
  g_ptr_array_unref (self->nodes);
  g_ptr_array_unref (self->edges);
  g_free (self);
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

static CrGraphModel *
model_new (void)
{
  CrGraphModel *self = g_new0 (CrGraphModel, 1);
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->edges = g_ptr_array_new_with_free_func (edge_free);
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

/* A step label is "MulBackward0 (b = w1*a, line 5)": the part in
 * parentheses without the line is the best caption there is. */
static char *
caption_from_label (const char *label)
{
  const char *open = label ? strchr (label, '(') : NULL;
  if (!open)
    return NULL;
  const char *close = strrchr (open, ')');
  const char *comma = g_strrstr (open, ", line ");
  const char *end = comma ? comma : close;
  if (!end || end <= open + 1)
    return NULL;
  return g_strndup (open + 1, (gsize) (end - open - 1));
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

/* Add a model node for an engine node (and its leaf, for AccumulateGrad). */
static guint
node_for (CrGraphModel *self,
          GHashTable   *ids,
          GQueue       *queue,
          CrNode       *node,
          const char   *source)
{
  gpointer found;
  if (g_hash_table_lookup_extended (ids, node, NULL, &found))
    return GPOINTER_TO_UINT (found);

  CrGraphNode *n;
  if (node->variable)
    {
      n = add_node (self, CR_GRAPH_NODE_ACCUMULATE, cr_node_name (node));
      const char *name = cr_tensor_get_name (node->variable);
      CrGraphNode *leaf = add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "leaf");
      fill_tensor (leaf, node->variable);
      add_edge (self, leaf->id, n->id,
                cr_graph_format_shape (node->variable->shape, node->variable->ndim));
    }
  else
    {
      n = add_node (self, CR_GRAPH_NODE_OP, cr_node_name (node));
      if (node->op && node->op->symbol)
        n->symbol = g_strdup (node->op->symbol);
      n->caption = shorten (span_text (source, &node->span));
    }
  n->span = node->span;
  g_hash_table_insert (ids, node, GUINT_TO_POINTER (n->id));
  g_queue_push_tail (queue, node);
  return n->id;
}

static void
walk (CrGraphModel *self,
      GHashTable   *ids,
      GQueue       *queue,
      const char   *source)
{
  CrNode *node;
  while ((node = g_queue_pop_head (queue)))
    {
      guint to = GPOINTER_TO_UINT (g_hash_table_lookup (ids, node));
      for (guint i = 0; i < node->n_inputs; i++)
        {
          CrNode *next = node->next[i].node;
          if (!next)
            continue;
          guint from = node_for (self, ids, queue, next, source);
          const CrTensorMeta *meta = node->input_meta ? &node->input_meta[i] : NULL;
          add_edge (self, from, to, meta ? cr_graph_format_shape (meta->shape, meta->ndim) : NULL);
        }
    }
}

static void
add_roots (CrGraphModel    *self,
           GHashTable      *ids,
           GQueue          *queue,
           CrTensor *const *roots,
           guint            n_roots,
           const char      *source)
{
  for (guint r = 0; r < n_roots; r++)
    {
      CrTensor *t = roots[r];
      if (!t)
        continue;
      const char *name = cr_tensor_get_name (t);
      if (!t->grad_fn)
        {
          /* A leaf as the root: backward goes straight to its AccumulateGrad. */
          CrGraphNode *leaf = add_node (self, CR_GRAPH_NODE_LEAF, name ? name : "tensor");
          fill_tensor (leaf, t);
          continue;
        }
      guint op = node_for (self, ids, queue, t->grad_fn, source);
      CrGraphNode *out = add_node (self, CR_GRAPH_NODE_OUTPUT, name ? name : "output");
      fill_tensor (out, t);
      add_edge (self, op, out->id, cr_graph_format_shape (t->shape, t->ndim));
    }
  walk (self, ids, queue, source);
}

CrGraphModel *
cr_graph_model_new_from_tensors (CrTensor *const *roots,
                                 guint            n_roots,
                                 const char      *source)
{
  CrGraphModel *self = model_new ();
  g_autoptr (GHashTable) ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  GQueue queue = G_QUEUE_INIT;
  add_roots (self, ids, &queue, roots, n_roots, source);
  return self;
}

CrGraphModel *
cr_graph_model_new_from_record (const CrBackwardRecord *record,
                                const char             *source)
{
  g_return_val_if_fail (record != NULL, NULL);
  CrGraphModel *self = model_new ();
  g_autoptr (GHashTable) ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  GQueue queue = G_QUEUE_INIT;
  add_roots (self, ids, &queue, (CrTensor *const *) record->roots->pdata, record->roots->len, source);
  self->n_steps = record->steps->len;
  for (guint s = 0; s < record->steps->len; s++)
    {
      const CrStepRecord *step = g_ptr_array_index (record->steps, s);
      gpointer found;
      if (!step->node || !g_hash_table_lookup_extended (ids, step->node, NULL, &found))
        continue;
      CrGraphNode *n = g_ptr_array_index (self->nodes, GPOINTER_TO_UINT (found));
      if (n->step < 0)
        n->step = (int) s;
      if (n->kind == CR_GRAPH_NODE_OP)
        {
          char *caption = shorten (caption_from_label (step->label));
          if (caption)
            {
              g_free (n->caption);
              n->caption = caption;
            }
        }
    }
  return self;
}

CrGraphModel *
cr_graph_model_new_from_interp (CrInterp   *interp,
                                const char *source)
{
  guint n = cr_interp_get_n_backward_records (interp);
  if (n > 0)
    return cr_graph_model_new_from_record (cr_interp_get_backward_record (interp, n - 1), source);

  CrTensor *newest = NULL;
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, cr_interp_get_globals (interp));
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      CrValue *v = value;
      if (!v || v->kind != CR_VALUE_TENSOR || !v->u.tensor->grad_fn)
        continue;
      if (!newest || v->u.tensor->grad_fn->sequence_nr > newest->grad_fn->sequence_nr)
        newest = v->u.tensor;
    }
  if (!newest)
    return NULL;
  return cr_graph_model_new_from_tensors (&newest, 1, source);
}

const CrGraphNode *
cr_graph_model_find_step (const CrGraphModel *self,
                          int                 step)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (self->nodes, i);
      if (n->step == step)
        return n;
    }
  return NULL;
}
