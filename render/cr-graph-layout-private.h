/* cr-graph-layout-private.h — what the two layouts share: graphviz's dot
 * (cr-graph-layout.c) for graphs a person reads whole, and the layered
 * layout of our own (cr-graph-layout-layered.c) for big ones. */
#pragma once

#include "cr-graph-layout.h"

G_BEGIN_DECLS

/* The scale of the blank between nodes (the gap between a rank's nodes,
 * a pair's gap; cr_graph_layout_rank_gap has its own) for edge labels of label_font_size: the type's own up to the
 * window's size; above it (presentation) the blank stays the window's, so
 * that a projected graph at 20 px type is still whole on the screen. */
static inline double
cr_graph_layout_gap_scale (double label_font_size)
{
  return MIN (label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE, 1.0);
}

/* A leaf whose only edge goes to its AccumulateGrad, which nothing else
 * feeds, is laid out as one unit with it: partner[i] is the other node of
 * i's pair, or -1 (new array of model->nodes->len + 1). */
int           *cr_graph_layout_find_pairs   (const CrGraphModel *model);
/* The short straight edge from a paired leaf's card down to its pill. */
void           cr_graph_layout_pair_edge    (CrGraphPath        *path,
                                             const CrGraphBox   *leaf,
                                             const CrGraphBox   *acc);
/* The space between ranks (points): room for the commonest edge label. */
double         cr_graph_layout_rank_gap     (const CrGraphModel *model,
                                             double              label_font_size,
                                             CrGraphLayoutDirection direction);
/* Puts each labelled edge's label on the middle of its path (above a level
 * edge too short for it); one label for edges that would pile theirs up.
 * Goes by self->direction. */
void           cr_graph_layout_place_labels (CrGraphLayout      *self,
                                             const CrGraphModel *model,
                                             double              label_font_size);
/* Dot's layout of model without the nodes where left_out[i] (NULL: none),
 * and without edge labels (cr_graph_layout_place_labels places them):
 * left-out nodes get empty boxes and their edges empty paths. */
CrGraphLayout *cr_graph_layout_dot_without  (const CrGraphModel *model,
                                             const double       *node_sizes,
                                             double              label_font_size,
                                             CrGraphLayoutDirection direction,
                                             const gboolean     *left_out,
                                             GError            **error);
/* The layered layout (see cr_graph_layout_new_layered), with the pairs. */
CrGraphLayout *cr_graph_layout_layered      (const CrGraphModel *model,
                                             const double       *node_sizes,
                                             double              label_font_size,
                                             const int          *partner,
                                             CrGraphLayoutDirection direction);

G_END_DECLS
