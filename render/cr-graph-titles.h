/* cr-graph-titles.h — where an open group's title ("fc1 · Linear") is
 * written on its laid-out box: the one place that the drawing
 * (cr-graph-groups-draw.c), the labels' and badges' obstacles
 * (cr-graph-render-badges.c) and the canvas's clicks ask.
 *
 * A title sits in the strip that the layout leaves at the top of its box,
 * as far left as it goes without an edge crossing its letters: edges into
 * a box, and long edges passing over it, cross that strip. Where no place
 * along the strip is clear, the title keeps its first place and is
 * `crossed`: the edges are drawn under it, cut where they meet it
 * (cr_graph_titles_clip_out), so that its letters stay readable. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-layout.h"
#include "cr-graph-model.h"

G_BEGIN_DECLS

/* The title's type: bold sans of this size (points at type scale 1), and
 * its first place, in from its box's top-left corner (layout points at
 * type scale 1). */
#define CR_GRAPH_TITLE_FONT  "Sans Bold"
#define CR_GRAPH_TITLE_SIZE  8.5
#define CR_GRAPH_TITLE_IN_X  8.0
#define CR_GRAPH_TITLE_IN_Y  6.0
/* Kept clear around a title's letters (layout points at type scale 1). */
#define CR_GRAPH_TITLE_MARGIN 2.0

typedef struct {
  double   x, y;              /* the text's top-left corner, layout points */
  double   width, height;     /* the text's size; 0: no title (none, or out of the clip) */
  gboolean crossed;           /* no place along the strip was clear of the edges */
} CrGraphTitle;

/* The title of each of model's clusters as layout placed them (by cluster
 * index; a new array of model->clusters->len CrGraphTitle), type scaled by
 * k; empty when layout has no boxes for them (layout->n_clusters differs).
 * clip (x0, y0, x1, y1; NULL: all): only the titles whose strip (the top
 * of their box) reaches into it are placed (the others have width 0); a
 * title's place does not depend on the clip. */
GArray  *cr_graph_titles_place     (const CrGraphModel  *model,
                                    const CrGraphLayout *layout,
                                    double               k,
                                    const double        *clip);

/* TRUE when the segment (x0, y0)-(x1, y1) meets the rectangle. */
gboolean cr_graph_titles_segment_meets (double x0, double y0, double x1, double y1,
                                        double rx0, double ry0, double rx1, double ry1);

/* Calls fn on each straight piece of path as drawn (each Bézier segment
 * flattened, then the arrow's tail), in layout points. */
typedef void (*CrGraphPathPieceFunc) (double x0, double y0, double x1, double y1, gpointer data);
void     cr_graph_path_foreach_piece (const CrGraphPath    *path,
                                      CrGraphPathPieceFunc  fn,
                                      gpointer              data);

/* The box holding path as drawn (its control points and arrow tip):
 * ext gets x0, y0, x1, y1. */
void     cr_graph_path_bounds        (const CrGraphPath    *path,
                                      double               *ext);

/* Clips cr to everything but the crossed titles of titles (with their
 * margin): what the edges are drawn through. Returns FALSE (cr untouched)
 * when no title is crossed; else the caller restores cr after drawing. */
gboolean cr_graph_titles_clip_out  (cairo_t             *cr,
                                    const GArray        *titles,
                                    double               k);

G_END_DECLS
