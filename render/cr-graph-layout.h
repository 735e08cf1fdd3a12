/* cr-graph-layout.h — where each node of a CrGraphModel goes, from graphviz's
 * `dot`, or for big graphs from a faster layered layout of our own (forward
 * flowing left to right, or top to bottom, in both). All coordinates are in points with y
 * growing downwards, as Cairo draws. */
#pragma once

#include <glib.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

/* The edge label size the layout's spacing is made for; larger sizes
 * (presentation mode) scale every gap with them. */
#define CR_GRAPH_LAYOUT_LABEL_SIZE 8.5
/* The space between a leaf's card and its AccumulateGrad pill under it. */
#define CR_GRAPH_LAYOUT_PAIR_GAP   10.0
/* Blank kept around the nodes inside a layout's width and height, in
 * points (times the type's scale in presentation). */
#define CR_GRAPH_LAYOUT_PAD        8.0
/* Graphs with more nodes than this are laid out by the layered layout. */
#define CR_GRAPH_LAYOUT_DOT_MAX_NODES 400

/* Which way forward flows: inputs on the left and the loss on the right,
 * or inputs at the top and the loss at the bottom (a pane taller than
 * wide; chains then fit whole at a readable size). */
typedef enum {
  CR_GRAPH_LAYOUT_LEFT_TO_RIGHT,
  CR_GRAPH_LAYOUT_TOP_TO_BOTTOM,
} CrGraphLayoutDirection;

typedef struct {
  double x, y;                  /* the box's top-left corner */
  double width, height;
} CrGraphBox;

typedef struct {
  guint       n_points;         /* 1 + 3k: a cubic Bézier path, as Cairo's curve_to takes it */
  double     *points;           /* x0, y0, x1, y1, ... (owned) */
  gboolean    has_arrow;
  double      arrow_x, arrow_y; /* the arrow's tip, on the target's border */
  gboolean    has_label;
  double      label_x, label_y; /* the label's centre */
} CrGraphPath;

typedef struct {
  double       width, height;   /* the whole drawing */
  guint        n_nodes;
  CrGraphBox  *nodes;           /* by node id (owned) */
  guint        n_edges;
  CrGraphPath *edges;           /* by edge index (owned) */
  guint        n_clusters;      /* model->clusters' boxes (0: none laid out, as by the
                                 * layered layout; draw around the nodes then) */
  CrGraphBox  *clusters;        /* by cluster index (owned) */
  CrGraphLayoutDirection direction;
  gboolean     beside;          /* made by cr_graph_layout_new_beside with leaves
                                 * beside their ops */
} CrGraphLayout;

/* Lay out model with nodes of the given sizes (width/height pairs in points
 * by node id, from cr_graph_render_measure()); edge labels get room for text
 * of label_font_size points. A leaf that only feeds its AccumulateGrad shares
 * its column: the AccumulateGrad box sits under the leaf's, as wide, and
 * the edge between them is a short straight drop without a label. NULL with
 * error when graphviz fails. */
CrGraphLayout *cr_graph_layout_new  (const CrGraphModel *model,
                                     const double       *node_sizes,
                                     double              label_font_size,
                                     GError            **error);
/* The layered layout cr_graph_layout_new uses above
 * CR_GRAPH_LAYOUT_DOT_MAX_NODES nodes, where dot takes seconds: ranks by
 * longest path (inputs pulled next to their first user), long edges through
 * virtual nodes, a few barycentre sweeps against crossings, and each rank's
 * nodes placed near their neighbours. Linear-ish: 5,000 nodes in tens of
 * milliseconds. Never fails. */
CrGraphLayout *cr_graph_layout_new_layered (const CrGraphModel *model,
                                            const double       *node_sizes,
                                            double              label_font_size);
/* Graphviz's dot whatever the size (cr_graph_layout_new picks): for
 * comparisons. */
CrGraphLayout *cr_graph_layout_new_dot     (const CrGraphModel *model,
                                            const double       *node_sizes,
                                            double              label_font_size,
                                            GError            **error);
/* The same in the given direction (the functions above: left to right). */
CrGraphLayout *cr_graph_layout_new_directed         (const CrGraphModel     *model,
                                                     const double           *node_sizes,
                                                     double                  label_font_size,
                                                     CrGraphLayoutDirection  direction,
                                                     GError                **error);
CrGraphLayout *cr_graph_layout_new_layered_directed (const CrGraphModel     *model,
                                                     const double           *node_sizes,
                                                     double                  label_font_size,
                                                     CrGraphLayoutDirection  direction);
CrGraphLayout *cr_graph_layout_new_dot_directed     (const CrGraphModel     *model,
                                                     const double           *node_sizes,
                                                     double                  label_font_size,
                                                     CrGraphLayoutDirection  direction,
                                                     GError                **error);
/* Top to bottom, for a long chain that does not fit a pane whole: a leaf
 * that feeds one op and nothing else (with its AccumulateGrad pill) stands
 * beside that op, its first input on the left and the others on the
 * right, rather than in a rank of its own above it; the ranks are the
 * ops' alone and the graph is about as tall as its chain. Graphs with open
 * groups, or without such leaves, get dot's layout (beside FALSE). NULL
 * with error when graphviz fails. */
CrGraphLayout *cr_graph_layout_new_beside (const CrGraphModel *model,
                                           const double       *node_sizes,
                                           double              label_font_size,
                                           GError            **error);
CrGraphLayout *cr_graph_layout_copy (const CrGraphLayout *self);   /* deep; NULL-safe */
void           cr_graph_layout_free (CrGraphLayout      *self);   /* NULL-safe */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphLayout, cr_graph_layout_free)

G_END_DECLS
