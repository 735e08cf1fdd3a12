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
/* Practice: the step whose answer is hidden (-1: none). While it is the
 * step shown, what it writes (a leaf's .grad, a gradient it reaches) reads
 * "?", hidden until you answer, and the paths and scalar graph that would
 * give it away wait too. */
void       cr_inspector_set_hidden_step (CrInspector *self,
                                         int          step);
/* Practice at a forward step: the record op whose result's value is the
 * question (-1: none) reads "?" until answered. */
void       cr_inspector_set_hidden_op   (CrInspector *self,
                                         int          op);

G_END_DECLS
