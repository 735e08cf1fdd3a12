/* cr-graph-render-same.h — whether two drawings are the same picture.
 *
 * A re-run of an edited script often draws exactly what it drew before: an
 * edit in a comment, a space at the end of a line, a value that shows
 * nowhere. Its model, layout and text cache are new objects all the same,
 * so the canvas, whose painted tiles are keyed by those objects, would paint
 * every tile again; with this it keeps them.
 *
 * Two drawings are the same when everything cr_graph_render () draws from
 * them is: the options, the layout's geometry, each node's and edge's text,
 * kind and step, the saved tensors freed as of the step, the grad-mode
 * regions, the edge labels' places, and the badges of the record's state at
 * the step (their texts and places, and the nodes an error rings). A
 * highlight, a module call's box (collapse) or a fading (node_alpha) makes
 * them differ unless all is the very same objects: their content is not
 * compared. */
#pragma once

#include <glib.h>

#include "cr-graph-render.h"

G_BEGIN_DECLS

/* One drawing as cr_graph_render () takes it; options->cache must be set
 * (made for model), options->label_boxes may be. All borrowed. */
typedef struct {
  const CrGraphModel         *model;
  const CrGraphLayout        *layout;
  const CrGraphRenderOptions *options;
} CrGraphDrawing;

gboolean cr_graph_render_same_drawing (const CrGraphDrawing *a,
                                       const CrGraphDrawing *b);
/* Whether b draws what a drew but for the texts of some nodes (a value
 * scrubbed, before the backward pass: the values on the leaves' and the
 * output's cards change, and nothing else): TRUE, and where those nodes
 * are drawn appended to dirty (of double: x0, y0, x1, y1 in layout
 * points, each node's box with what is drawn around it); nothing appended:
 * the same picture. FALSE: more differs. */
gboolean cr_graph_render_drawing_changes (const CrGraphDrawing *a,
                                          const CrGraphDrawing *b,
                                          GArray               *dirty);

G_END_DECLS
