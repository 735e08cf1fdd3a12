/* cr-inspector.h — everything about one node of the graph: value, grad,
 * grad_fn, is_leaf, requires_grad, retains_grad, shape, dtype, device and,
 * for an op, its saved tensors and whether backward freed them. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

#define CR_TYPE_INSPECTOR (cr_inspector_get_type ())
G_DECLARE_FINAL_TYPE (CrInspector, cr_inspector, CR, INSPECTOR, GtkWidget)

GtkWidget *cr_inspector_new       (void);
/* Shows node `node_id` of model (-1 or NULL model: a hint to click a node).
 * Builds its content at once and keeps no pointer to model. */
void       cr_inspector_show_node (CrInspector        *self,
                                   const CrGraphModel *model,
                                   int                 node_id);

G_END_DECLS
