/* cr-graph-model.c — the graph model's values: making, freeing, keys and
 * the queries the canvas and the cards ask of it. Built from a run record
 * by cr-graph-model-record.c. */
#include "cr-graph-model-private.h"

#include <string.h>

/* ---- model values ---------------------------------------------------------- */

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
  g_free (n);
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
  g_free (self->title);
  if (self->private_index)
    g_hash_table_unref (self->private_index);
  if (self->private_step_edges)
    g_ptr_array_unref (self->private_step_edges);
  if (self->clusters)
    g_ptr_array_unref (self->clusters);
  cr_run_record_unref (self->record);
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

CrGraphModel *
cr_graph_model_new (void)
{
  CrGraphModel *self = g_new0 (CrGraphModel, 1);
  self->ref_count = 1;
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->edges = g_ptr_array_new_with_free_func (edge_free);
  self->succeeded = TRUE;
  self->backward = -1;
  return self;
}

CrGraphNode *
cr_graph_model_add_node (CrGraphModel    *self,
                         CrGraphNodeKind  kind,
                         const char      *title)
{
  CrGraphNode *n = g_new0 (CrGraphNode, 1);
  n->id = self->nodes->len;
  n->kind = kind;
  n->title = g_strdup (title);
  n->step = -1;
  n->op = -1;
  n->tensor = -1;
  g_ptr_array_add (self->nodes, n);
  return n;
}

CrGraphEdge *
cr_graph_model_add_edge (CrGraphModel *self,
                         guint         from,
                         guint         to,
                         char         *label)   /* taken */
{
  CrGraphEdge *e = g_new0 (CrGraphEdge, 1);
  e->from = from;
  e->to = to;
  e->label = label;
  e->tensor = -1;
  e->input = -1;
  g_ptr_array_add (self->edges, e);
  return e;
}


/* The code of a one-line span, from the script text (NULL when unknown). */
char *
cr_graph_span_text (const char   *source,
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

char *
cr_graph_shorten (char *text)   /* taken */
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

/* Keys survive an edit of the script that keeps the graph's shape: names
 * and code, never lines or ids. */
void
cr_graph_model_assign_keys (CrGraphModel *self)
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
          {
            /* The record's key when it has one: it knows module paths. */
            const CrRecordOp *op = self->record && n->op >= 0 && (guint) n->op < self->record->ops->len
                                   ? g_ptr_array_index (self->record->ops, n->op) : NULL;
            if (op && op->key)
              base = g_strdup (op->key);
            else
              base = g_strdup_printf ("op:%s:%s", n->title, n->caption ? n->caption : "");
          }
          break;
        case CR_GRAPH_NODE_ACCUMULATE:
          {
            /* The leaf it writes, by name. */
            const CrRecordTensor *t = self->record && n->tensor >= 0
                                      && (guint) n->tensor < self->record->tensors->len
                                      ? g_ptr_array_index (self->record->tensors, n->tensor) : NULL;
            base = g_strconcat ("acc:", t && t->label ? t->label : "leaf", NULL);
          }
          break;
        case CR_GRAPH_NODE_OUTPUT:
          base = g_strconcat ("out:", n->title, NULL);
          break;
        case CR_GRAPH_NODE_NO_GRAD:
          base = g_strconcat ("nograd:", n->title, NULL);
          break;
        case CR_GRAPH_NODE_DETACHED:
          base = g_strconcat ("detached:", n->title, NULL);
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




/* ---- queries --------------------------------------------------------------- */

const CrGraphNode *
cr_graph_model_find_step (const CrGraphModel *self,
                          int                 step)
{
  /* Nodes no step ran have step -1 too: that is not "the node of step -1". */
  if (step < 0)
    return NULL;
  /* From the record, at once: the node of the step's op or leaf; in a
   * collapsed model (cr-graph-groups.h) a step of a node inside a closed
   * group is shown by the group's node. The stepper and the canvas ask
   * this for every step of a 5,000-node graph. */
  if (self->record && self->private_index)
    return cr_graph_model_find_step_node (self, step);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (self->nodes, i);
      if (n->step == step)
        return n;
    }
  return NULL;
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

