/* cr-window-stubs.c — TEMPORARY (helper G): weak stand-ins for API that other
 * helpers are writing right now, so the window links meanwhile. Each real
 * definition replaces its stand-in at link time. Deleted before the end. */
#include "cr-config.h"
#include "cr-graph-canvas.h"
#include "cr-step-card.h"
#include "cr-inspector.h"

#define WEAK __attribute__ ((weak))

WEAK int cr_graph_canvas_get_selected (CrGraphCanvas *self) { return -1; }
WEAK void cr_graph_canvas_set_selected (CrGraphCanvas *self, int node_id) { }
WEAK double cr_graph_canvas_get_zoom (CrGraphCanvas *self) { return 1.0; }
WEAK void cr_graph_canvas_zoom_in (CrGraphCanvas *self) { }
WEAK void cr_graph_canvas_zoom_out (CrGraphCanvas *self) { }
WEAK void cr_graph_canvas_zoom_fit (CrGraphCanvas *self) { }
WEAK void cr_graph_canvas_set_dimmed (CrGraphCanvas *self, gboolean dimmed) { }
WEAK void cr_graph_canvas_set_presentation (CrGraphCanvas *self, gboolean presentation) { }

WEAK GType cr_step_card_get_type (void) { return GTK_TYPE_WIDGET; }
WEAK GtkWidget *cr_step_card_new (void) { return gtk_label_new ("(step card)"); }
WEAK void cr_step_card_set_step (CrStepCard *self, const CrGraphModel *model, int step) { }
WEAK GType cr_inspector_get_type (void) { return GTK_TYPE_WIDGET; }
WEAK GtkWidget *cr_inspector_new (void) { return gtk_label_new ("(inspector)"); }
WEAK void cr_inspector_show_node (CrInspector *self, const CrGraphModel *model, int node_id) { }
