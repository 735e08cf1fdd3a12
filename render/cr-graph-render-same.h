/* cr-graph-render-same.h — where two drawings differ.
 *
 * A re-run of an edited script often draws what it drew before, or nearly
 * (an edit in a comment; a value that shows on two cards); a step moves
 * the rings, checks and gradients of a few nodes; a path of the chain rule
 * lights a few and fades the rest. The canvas keeps the tiles it painted
 * but those that show a difference, found from the drawings' items
 * (cr-graph-items.h): everything cr_graph_render () draws from a drawing is
 * in them, a node's texts, rings and fading, an edge's path and state, a
 * label's and a badge's place and text; what all of the drawing shares
 * (style, type size, module and region boxes, the pulse) is a whole item,
 * and when that differs everything is drawn again. */
#pragma once

#include <glib.h>

#include "cr-graph-render.h"

G_BEGIN_DECLS

/* One drawing as cr_graph_render () takes it; options->cache should be set
 * (made for model: else shaped for each call), options->label_boxes may be.
 * All borrowed. */
typedef struct {
  const CrGraphModel         *model;
  const CrGraphLayout        *layout;
  const CrGraphRenderOptions *options;
} CrGraphDrawing;

/* The items of d, as cr_graph_render () would draw it whole (a new array
 * of CrGraphItem; options->items is ignored). */
GArray  *cr_graph_render_drawing_items   (const CrGraphDrawing *d);
/* Whether a and b are the same picture. */
gboolean cr_graph_render_same_drawing    (const CrGraphDrawing *a,
                                          const CrGraphDrawing *b);
/* Whether b differs from a in places only: TRUE, and those places appended
 * to dirty (of double: x0, y0, x1, y1 in layout points; nothing appended:
 * the same picture). FALSE: something the whole drawing shares differs. */
gboolean cr_graph_render_drawing_changes (const CrGraphDrawing *a,
                                          const CrGraphDrawing *b,
                                          GArray               *dirty);

/* The digest of what the whole drawing shares, for cr-graph-render.c's
 * whole item: the options that style everything, the type and line scales
 * (k, lw), the module calls' boxes and their titles (titles: as placed,
 * or NULL when none are drawn) and the grad-mode regions. */
guint64  cr_graph_render_whole_digest    (const CrGraphModel         *model,
                                          const CrGraphLayout        *layout,
                                          const CrGraphRenderOptions *options,
                                          const GArray               *titles,
                                          double                      k,
                                          double                      lw);

G_END_DECLS
