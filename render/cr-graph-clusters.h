/* cr-graph-clusters.h — a model's clusters (CrGraphModel.clusters: open
 * module calls) as graphviz "cluster" subgraphs, so that dot keeps each
 * call's nodes together and leaves room for its title, and their boxes read
 * back into the layout. For cr-graph-layout.c. */
#pragma once

#include <gvc.h>

#include "cr-graph-layout.h"

G_BEGIN_DECLS

/* Adds model->clusters to g as nested cluster subgraphs holding their nodes
 * (gnodes by model node id; NULL entries skipped), with room for a title of
 * label_font_size. Returns the subgraphs by cluster index (new array), NULL
 * when the model has no clusters. */
Agraph_t **cr_graph_clusters_add  (Agraph_t           *g,
                                   const CrGraphModel *model,
                                   Agnode_t          **gnodes,
                                   double              label_font_size);
/* After gvLayout: each cluster's box into layout->clusters, with x0 and top
 * as the nodes' (x - x0, top - y). Takes subgraphs (NULL: nothing). */
void       cr_graph_clusters_read (CrGraphLayout      *layout,
                                   const CrGraphModel *model,
                                   Agraph_t          **subgraphs,
                                   double              x0,
                                   double              top);

G_END_DECLS
