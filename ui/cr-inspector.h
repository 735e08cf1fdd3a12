/* cr-inspector.h — everything about one node of the graph: value, grad,
 * grad_fn, is_leaf, requires_grad, retains_grad, shape, dtype, device and,
 * for an op, its saved tensors and whether backward freed them (or an
 * in-place statement changed them), all as of the stepper's step, read from
 * the model's run record. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

#define CR_TYPE_INSPECTOR (cr_inspector_get_type ())
G_DECLARE_FINAL_TYPE (CrInspector, cr_inspector, CR, INSPECTOR, GtkWidget)

GtkWidget *cr_inspector_new       (void);
/* Shows node `node_id` of model (-1 or NULL model: a hint to click a node)
 * as of the step last given to cr_inspector_set_step(). Keeps a reference
 * on model, to show the node again when the step changes. */
void       cr_inspector_show_node (CrInspector        *self,
                                   const CrGraphModel *model,
                                   int                 node_id);
/* The stepper's step in the model's backward call (-1: before its first
 * step): .grad, freed saved tensors and "ran at" follow it. */
void       cr_inspector_set_step  (CrInspector        *self,
                                   int                 step);
int        cr_inspector_get_step  (CrInspector        *self);

G_END_DECLS
