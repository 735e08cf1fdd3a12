/* cr-graph-forward.c — which nodes of a graph are computed at a forward
 * step (cr-graph-forward.h). */
#include "cr-graph-forward.h"

#include "cr-record-forward.h"

GArray *
cr_graph_forward_ops (const CrGraphModel *model)
{
  GArray *shown = g_array_new (FALSE, FALSE, sizeof (int));
  if (!model || !model->record)
    return shown;
  g_autoptr (GArray) ops = cr_record_forward_ops (model->record, model->backward);
  for (guint i = 0; i < ops->len; i++)
    {
      int op = g_array_index (ops, int, i);
      if (cr_graph_model_find_op (model, op))
        g_array_append_val (shown, op);
    }
  return shown;
}

/* The node the result of op is drawn as (a root's output box), or NULL. */
static const CrGraphNode *
result_node (const CrGraphModel *model,
             const CrRecordOp   *op)
{
  for (guint i = 0; op->outputs && i < op->outputs->len; i++)
    {
      const CrGraphNode *n = cr_graph_model_find_tensor (model, g_array_index (op->outputs, int, i));
      if (n)
        return n;
    }
  return NULL;
}

guint8 *
cr_graph_forward_states (const CrGraphModel *model,
                         const GArray       *ops,
                         int                 step)
{
  guint n = model->nodes->len;
  guint8 *states = g_new0 (guint8, n + 1);
  /* Inputs are there from the start; AccumulateGrad belongs to backward. */
  for (guint i = 0; i < n; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (node->kind == CR_GRAPH_NODE_ACCUMULATE)
        states[i] = CR_GRAPH_FORWARD_NOT_YET;
    }
  if (!model->record)
    return states;
  /* Later ops first, so that a closed group holding ops on both sides of
   * the step reads as computed up to it, and as computing at it. */
  for (int pass = 0; pass < 3; pass++)
    for (guint i = 0; i < ops->len; i++)
      {
        int at = (int) i;
        if ((pass == 0 && at <= step) || (pass == 1 && at >= step) || (pass == 2 && at != step))
          continue;
        CrGraphForwardState state = pass == 0 ? CR_GRAPH_FORWARD_NOT_YET
                                    : pass == 1 ? CR_GRAPH_FORWARD_DONE : CR_GRAPH_FORWARD_NOW;
        int index = g_array_index (ops, int, i);
        if (index < 0 || (guint) index >= model->record->ops->len)
          continue;
        const CrRecordOp *op = g_ptr_array_index (model->record->ops, index);
        const CrGraphNode *node = cr_graph_model_find_op (model, index);
        if (node)
          states[node->id] = state;
        const CrGraphNode *result = result_node (model, op);
        if (result && result != node)
          states[result->id] = state == CR_GRAPH_FORWARD_NOW ? CR_GRAPH_FORWARD_DONE : state;
      }
  return states;
}
