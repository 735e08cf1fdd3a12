/* cr-graph-render-badges.h — what the run record says about the graph as of
 * the current step, drawn over it: the gradient each step has sent so far,
 * as a small value label by the edge it travelled back along; a leaf's .grad
 * once AccumulateGrad wrote it; a hook that changed a gradient on the node
 * that used it; the node an error stopped at (ringed, with the error's type)
 * and an in-place error's culprit ("modified in place · line N"); the
 * node of each mistake the coach found (ringed in amber, "⚠ line 12: ..."); an op
 * whose saved tensors were freed ("freed"). Called by cr-graph-render.c
 * after the nodes.
 *
 * Nothing drawn here lies on anything else: each badge goes to the first
 * of its places that is clear of the nodes (but its own), the done checks,
 * the titles of group and region boxes, the edges' shape labels and the
 * badges placed before it; a badge that
 * must show (the current step's, an error, "freed") then tries a shorter
 * text, then a free place further out with a thin leader line to what it
 * labels, and is left out when there is none. A badge keeps inside the
 * drawing (the canvas fits the drawing in view; the pane cuts what lies
 * past it): a place past its edge is moved back inside, and one past it
 * is taken only where the drawing has no free room. The shape labels themselves
 * are placed by cr_graph_badges_label_boxes (), which leaves out a label
 * (or the tensor name over it) that would lie on a node, on an earlier
 * label or on a group's or region's title. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-layout.h"
#include "cr-graph-model.h"

G_BEGIN_DECLS

/* Above this many nodes only the current step's gradients are labelled:
 * a label per edge would hide the graph. */
#define CR_GRAPH_BADGES_MAX_NODES 150

typedef struct {
  int           current_step;   /* -1: before the first step (no gradient yet) */
  gboolean      dark;
  double        k;              /* type and spacing scale (presentation: larger) */
  double        lw;             /* line width scale */
  const double *clip;           /* x0, y0, x1, y1: what to draw (badges outside are skipped) */
  GPtrArray    *drawn;          /* when set, each badge's text is appended to it (new
                                 * strings; for tests) */
  const double *label_boxes;    /* the edges' shape labels as drawn, from
                                 * cr_graph_badges_label_boxes (); NULL: each label's
                                 * box estimated from its centre */
  GArray       *placed;         /* when set, of CrGraphBadgeBox: each badge's box is
                                 * appended to it, in the order of `drawn` (for tests) */
  GArray       *items;          /* when set, of CrGraphItem (cr-graph-items.h): each
                                 * badge and ring drawn is appended to it */
} CrGraphBadgeOptions;

/* Where a badge was drawn. */
typedef struct {
  double x0, y0, x1, y1;
  int    node;                  /* the node whose edge it sits on (a hook, "freed"),
                                 * which it may overlap; -1: none */
} CrGraphBadgeBox;

/* Values in cr_graph_badges_label_boxes ()'s array per edge. */
#define CR_GRAPH_BADGES_LABEL_BOX 8

/* Where each edge's shape label and the tensor name with it are drawn:
 * by edge, the pill's x0, y0, x1, y1, then the name's (over the pill left
 * to right, before it top to bottom, where ranks are close); all 0 where
 * the edge has none, and the name's 0 where it has no name. A label that
 * would lie on a node or on an earlier label moves (see _clear_of).
 * label_sizes: by edge, the label's text width and height, then the
 * name's (0: none), at type scale k (new array of
 * CR_GRAPH_BADGES_LABEL_BOX * layout->n_edges + 1). */
double  *cr_graph_badges_label_boxes     (const CrGraphLayout       *layout,
                                          const double              *label_sizes,
                                          double                     k);

/* The same, keeping clear of titles too (of CrGraphBadgeBox, from
 * cr_graph_badges_title_boxes (); NULL: none). A label that the layout
 * put on a node, a title (an edge into a box crosses its title strip),
 * an arrowhead or an earlier label goes to the first clear one of its
 * spots (cr_graph_badges_label_spot ()) with its name, else without it,
 * else over an arrowhead, and is left out only when no spot is clear. */
double  *cr_graph_badges_label_boxes_clear_of (const CrGraphLayout *layout,
                                               const double        *label_sizes,
                                               double               k,
                                               const GArray        *titles);
/* Spot index (0: the layout's place) for edge's label of size (the
 * label's text width and height, then its name's, 0: none, at type scale
 * k): box gets the pill's and the name's rectangles, as in the label
 * boxes' array (CR_GRAPH_BADGES_LABEL_BOX values; the name's 0 when size
 * has none). FALSE past the last spot. In order: the layout's place, then
 * along the edge from the middle out, then beside the edge on either
 * side, then as far again, its name on the side away from the edge. */
gboolean cr_graph_badges_label_spot      (const CrGraphLayout       *layout,
                                          guint                      edge,
                                          const double              *size,
                                          double                     k,
                                          guint                      index,
                                          double                    *box);

/* The box (x0, y0, x1, y1) around path's arrowhead as cr-graph-render.c
 * draws it at type scale k, which labels keep clear of. FALSE: none. */
gboolean cr_graph_badges_arrowhead_box   (const CrGraphPath         *path,
                                          double                     k,
                                          double                    *box);

/* The titles drawn on the graph's boxes as layout placed model's nodes,
 * type scaled by k: each open group's (model->clusters laid out by layout,
 * its title at its box's top-left as cr-graph-groups-draw.c draws it) and
 * each grad-mode region's (cr-graph-regions.c). Labels and badges keep
 * clear of them. A new array of CrGraphBadgeBox (node -1), empty when none. */
GArray  *cr_graph_badges_title_boxes     (const CrGraphModel        *model,
                                          const CrGraphLayout       *layout,
                                          double                     k);

void     cr_graph_render_badges          (cairo_t                   *cr,
                                          const CrGraphModel        *model,
                                          const CrGraphLayout       *layout,
                                          const CrGraphBadgeOptions *options);
/* Whether op node's saved tensors are freed as of current_step of the
 * model's backward call (the record's saved-tensor life; a node whose
 * saved tensor was modified in place is "modified", not "freed"). Without
 * a record: node->freed once its step has run. */
gboolean cr_graph_render_badges_op_freed (const CrGraphModel        *model,
                                          const CrGraphNode         *node,
                                          int                        current_step);

G_END_DECLS
