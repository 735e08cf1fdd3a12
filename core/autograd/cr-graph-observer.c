/* cr-graph-observer.c — the thread's graph observer (cr-graph-observer.h). */
#include "cr-graph-observer.h"

static __thread const CrGraphObserver *graph_observer;
static __thread gpointer graph_observer_data;

void
cr_autograd_set_graph_observer (const CrGraphObserver *observer,
                                gpointer               user_data)
{
  graph_observer = observer;
  graph_observer_data = user_data;
}

void
cr_autograd_notify_node_made (CrNode          *node,
                              CrTensor *const *inputs,
                              guint            n_inputs)
{
  if (G_UNLIKELY (graph_observer != NULL) && graph_observer->node_made)
    graph_observer->node_made (node, inputs, n_inputs, graph_observer_data);
}

void
cr_autograd_notify_history (CrTensor *out,
                            CrNode   *node,
                            guint32   output_nr)
{
  if (G_UNLIKELY (graph_observer != NULL) && graph_observer->history_set)
    graph_observer->history_set (out, node, output_nr, graph_observer_data);
}
