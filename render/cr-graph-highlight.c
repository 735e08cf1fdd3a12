/* cr-graph-highlight.c — the lit part of a graph (cr-graph-highlight.h). */
#include "cr-graph-highlight.h"

typedef struct {
  int tensor;
  int op;
} Flow;

struct _CrGraphHighlight
{
  gint    ref_count;
  GArray *flows;              /* of Flow, without repeats */
  /* The last model resolved, by address, and its flags. */
  gconstpointer model;
  guint   n_nodes, n_edges;
  guint8 *nodes;
  guint8 *edges;
};

CrGraphHighlight *
cr_graph_highlight_new (void)
{
  CrGraphHighlight *self = g_new0 (CrGraphHighlight, 1);
  self->ref_count = 1;
  self->flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  return self;
}

CrGraphHighlight *
cr_graph_highlight_ref (CrGraphHighlight *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
cr_graph_highlight_unref (CrGraphHighlight *self)
{
  if (!self || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_array_unref (self->flows);
  g_free (self->nodes);
  g_free (self->edges);
  g_free (self);
}

static void
forget_model (CrGraphHighlight *self)
{
  self->model = NULL;
  g_clear_pointer (&self->nodes, g_free);
  g_clear_pointer (&self->edges, g_free);
}

void
cr_graph_highlight_add_flow (CrGraphHighlight *self,
                             int               tensor,
                             int               op)
{
  g_return_if_fail (self != NULL);
  for (guint i = 0; i < self->flows->len; i++)
    {
      const Flow *f = &g_array_index (self->flows, Flow, i);
      if (f->tensor == tensor && f->op == op)
        return;
    }
  g_array_append_val (self->flows, ((Flow) { tensor, op }));
  forget_model (self);
}

void
cr_graph_highlight_add_path (CrGraphHighlight *self,
                             const CrPath     *path)
{
  g_return_if_fail (self != NULL && path != NULL);
  for (guint h = 0; h < path->hops->len; h++)
    {
      const CrPathHop *hop = &g_array_index (path->hops, CrPathHop, h);
      /* The leaf reaches its first op through its AccumulateGrad box. */
      if (h == 0)
        cr_graph_highlight_add_flow (self, hop->tensor, CR_GRAPH_HIGHLIGHT_ACCUMULATE);
      cr_graph_highlight_add_flow (self, hop->tensor,
                                   hop->op >= 0 ? hop->op : CR_GRAPH_HIGHLIGHT_ROOT);
    }
}

/* The node a flow goes into on model, or NULL where model does not draw it. */
static const CrGraphNode *
flow_target (const CrGraphModel *model,
             const Flow         *flow)
{
  if (flow->op >= 0)
    return cr_graph_model_find_op (model, flow->op);
  if (flow->op == CR_GRAPH_HIGHLIGHT_ACCUMULATE)
    return cr_graph_model_find_accumulate (model, flow->tensor);
  return cr_graph_model_find_tensor (model, flow->tensor);
}

void
cr_graph_highlight_resolve (CrGraphHighlight   *self,
                            const CrGraphModel *model,
                            const guint8      **nodes,
                            const guint8      **edges)
{
  g_return_if_fail (self != NULL && model != NULL);
  if (self->model != model || self->n_nodes != model->nodes->len
      || self->n_edges != model->edges->len)
    {
      forget_model (self);
      self->model = model;
      self->n_nodes = model->nodes->len;
      self->n_edges = model->edges->len;
      self->nodes = g_new0 (guint8, self->n_nodes + 1);
      self->edges = g_new0 (guint8, self->n_edges + 1);
      /* node id -> the tensors flowing into it (as GINT_TO_POINTER (t + 1)). */
      g_autoptr (GHashTable) into = g_hash_table_new_full (NULL, NULL, NULL,
                                                           (GDestroyNotify) g_hash_table_unref);
      for (guint i = 0; i < self->flows->len; i++)
        {
          const Flow *f = &g_array_index (self->flows, Flow, i);
          const CrGraphNode *target = flow_target (model, f);
          if (!target || target->id >= self->n_nodes)
            continue;
          self->nodes[target->id] = 1;
          GHashTable *set = g_hash_table_lookup (into, GUINT_TO_POINTER (target->id + 1));
          if (!set)
            {
              set = g_hash_table_new (NULL, NULL);
              g_hash_table_insert (into, GUINT_TO_POINTER (target->id + 1), set);
            }
          g_hash_table_add (set, GINT_TO_POINTER (f->tensor + 1));
        }
      for (guint e = 0; e < self->n_edges; e++)
        {
          const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
          GHashTable *set = g_hash_table_lookup (into, GUINT_TO_POINTER (edge->to + 1));
          if (!set || edge->tensor < 0 || edge->from >= self->n_nodes
              || !g_hash_table_contains (set, GINT_TO_POINTER (edge->tensor + 1)))
            continue;
          self->edges[e] = 1;
          self->nodes[edge->from] = 1;
        }
    }
  if (nodes)
    *nodes = self->nodes;
  if (edges)
    *edges = self->edges;
}

guint
cr_graph_highlight_count_nodes (CrGraphHighlight   *self,
                                const CrGraphModel *model)
{
  const guint8 *nodes = NULL;
  cr_graph_highlight_resolve (self, model, &nodes, NULL);
  guint n = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    n += nodes[i];
  return n;
}

gboolean
cr_graph_highlight_node_lit (CrGraphHighlight   *self,
                             const CrGraphModel *model,
                             guint               node)
{
  const guint8 *nodes = NULL;
  cr_graph_highlight_resolve (self, model, &nodes, NULL);
  return node < model->nodes->len && nodes[node];
}

gboolean
cr_graph_highlight_edge_lit (CrGraphHighlight   *self,
                             const CrGraphModel *model,
                             guint               edge)
{
  const guint8 *edges = NULL;
  cr_graph_highlight_resolve (self, model, NULL, &edges);
  return edge < model->edges->len && edges[edge];
}
