/* cr-graph-overview.h — the minimap of a graph canvas: the whole laid-out
 * graph in miniature, the part the canvas shows outlined, the current
 * step's node marked; a click or drag moves the canvas there. It shows
 * itself only while the canvas shows part of its graph (a big graph, or a
 * small one at a readable zoom in a small pane, or one too big for
 * presentation's type). Put it in the canvas's GtkOverlay, in its top left
 * corner; the canvas does not keep nodes out from under it (it is a map of
 * them), but in presentation it moves to the corner that covers the fewest. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-canvas.h"

G_BEGIN_DECLS

#define CR_TYPE_GRAPH_OVERVIEW (cr_graph_overview_get_type ())
G_DECLARE_FINAL_TYPE (CrGraphOverview, cr_graph_overview, CR, GRAPH_OVERVIEW, GtkWidget)

/* Property: "canvas" (CrGraphCanvas, weak). */
GtkWidget     *cr_graph_overview_new        (CrGraphCanvas   *canvas);
CrGraphCanvas *cr_graph_overview_get_canvas (CrGraphOverview *self);
void           cr_graph_overview_set_canvas (CrGraphOverview *self,
                                             CrGraphCanvas   *canvas);
/* Where a point of the overview (widget coordinates) is in the graph
 * (layout points); FALSE without a graph. For tests. */
gboolean       cr_graph_overview_to_graph   (CrGraphOverview *self,
                                             double           x,
                                             double           y,
                                             double          *gx,
                                             double          *gy);

/* The colour a node of kind stands for in miniature (the overview, and the
 * canvas zoomed out too far for text). */
void           cr_graph_overview_kind_color (CrGraphNodeKind  kind,
                                             gboolean         dark,
                                             GdkRGBA         *color);

G_END_DECLS
