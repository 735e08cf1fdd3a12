/* cr-graph-render.h — draw a laid-out CrGraphModel with Cairo and Pango:
 * the canvas and `chainrule export` share this. Sizes are in points at
 * scale 1; scale the Cairo context to zoom. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-model.h"
#include "cr-graph-layout.h"

G_BEGIN_DECLS

typedef enum {
  CR_GRAPH_STYLE_LIGHT,
  CR_GRAPH_STYLE_DARK,
} CrGraphStyle;

typedef struct {
  CrGraphStyle  style;
  int           current_step;     /* highlight the node of this backward step; -1: none */
  gboolean      draw_background;  /* fill the whole drawing first */
} CrGraphRenderOptions;

void            cr_graph_render_options_init (CrGraphRenderOptions       *options);

/* Each node's size (width, height pairs by node id, new array of 2 * n_nodes). */
double         *cr_graph_render_measure      (const CrGraphModel         *model);
/* The font size edge labels are drawn at (for cr_graph_layout_new). */
double          cr_graph_render_label_size   (void);
/* Measure and lay out in one go. */
CrGraphLayout  *cr_graph_render_layout       (const CrGraphModel         *model,
                                              GError                    **error);
void            cr_graph_render              (cairo_t                    *cr,
                                              const CrGraphModel         *model,
                                              const CrGraphLayout        *layout,
                                              const CrGraphRenderOptions *options);

G_END_DECLS
