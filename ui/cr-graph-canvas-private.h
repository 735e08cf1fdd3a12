/* cr-graph-canvas-private.h — what tests need to reach inside the canvas:
 * the hit test and a click, without synthesising pointer events. */
#pragma once

#include "cr-graph-canvas.h"

G_BEGIN_DECLS

/* The node under (x, y) in widget coordinates, or -1. */
int      cr_graph_canvas_pick        (CrGraphCanvas *self,
                                      double         x,
                                      double         y);
/* What a primary click at (x, y) does: select the node there or clear. */
void     cr_graph_canvas_click_at    (CrGraphCanvas *self,
                                      double         x,
                                      double         y);
/* Where node_id's centre is drawn now, in widget coordinates. */
gboolean cr_graph_canvas_node_center (CrGraphCanvas *self,
                                      int            node_id,
                                      double        *x,
                                      double        *y);

G_END_DECLS
