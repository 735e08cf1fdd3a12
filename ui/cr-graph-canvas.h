/* cr-graph-canvas.h — a widget that draws the graph of a run, fit to its
 * size, in the libadwaita light or dark style, with the current backward step
 * highlighted. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

#define CR_TYPE_GRAPH_CANVAS (cr_graph_canvas_get_type ())
G_DECLARE_FINAL_TYPE (CrGraphCanvas, cr_graph_canvas, CR, GRAPH_CANVAS, GtkWidget)

GtkWidget          *cr_graph_canvas_new         (void);
/* Takes model (NULL clears the canvas); lays it out. FALSE with error when the
 * layout failed (the canvas is then empty). The step goes back to -1. */
gboolean            cr_graph_canvas_take_model  (CrGraphCanvas *self,
                                                 CrGraphModel  *model,
                                                 GError       **error);
const CrGraphModel *cr_graph_canvas_get_model   (CrGraphCanvas *self);
guint               cr_graph_canvas_get_n_steps (CrGraphCanvas *self);
/* -1: before the backward call (nothing highlighted); 0 .. n_steps - 1. */
int                 cr_graph_canvas_get_step    (CrGraphCanvas *self);
void                cr_graph_canvas_set_step    (CrGraphCanvas *self,
                                                 int            step);

G_END_DECLS
