/* cr-inspector-group.h — the inspector's view of a closed module call (a
 * CR_GRAPH_NODE_GROUP node of a collapsed model): the ops inside it by
 * grad_fn, the backward steps it stands for, its parameters with their .grad
 * as of the stepper's step, and a button to open it (win.group-open). */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

/* The sections for group node `node` of model, as of step (-1: before the
 * first) of the model's backward call: a new floating widget. The model
 * must keep its record (a model built by hand gives the op count alone). */
GtkWidget *cr_inspector_group_new (const CrGraphModel *model,
                                   const CrGraphNode  *node,
                                   int                 step);

G_END_DECLS
