/* cr-graph-highlight.h — a part of the graph lit and the rest dimmed: the
 * paths of the chain rule (core/teach/cr-paths.h) shown one at a time.
 *
 * A highlight is said in the run record's terms, not a model's: "tensor t
 * flowing into op o", so that the same highlight lights whichever model
 * draws the record (the full graph, or a collapsed view whose closed
 * groups stand for many ops). The drawing asks it which of a model's nodes
 * and edges are lit (cr_graph_highlight_resolve). */
#pragma once

#include <glib.h>

#include "cr-graph-model.h"
#include "cr-paths.h"

G_BEGIN_DECLS

/* The op of a flow into the leaf's AccumulateGrad, and into the output box
 * of a root. */
#define CR_GRAPH_HIGHLIGHT_ACCUMULATE (-2)
#define CR_GRAPH_HIGHLIGHT_ROOT       (-1)

typedef struct _CrGraphHighlight CrGraphHighlight;

/* An empty highlight (nothing lit, everything dimmed), one reference. */
CrGraphHighlight *cr_graph_highlight_new      (void);
CrGraphHighlight *cr_graph_highlight_ref      (CrGraphHighlight   *self);
void              cr_graph_highlight_unref    (CrGraphHighlight   *self);   /* NULL-safe */

/* Lights record tensor `tensor` where it flows into record op `op`
 * (CR_GRAPH_HIGHLIGHT_ACCUMULATE: into its AccumulateGrad; _ROOT: as a root
 * of the backward call), and the nodes at both ends. */
void              cr_graph_highlight_add_flow (CrGraphHighlight   *self,
                                               int                 tensor,
                                               int                 op);
/* Lights every hop of path: the leaf and its AccumulateGrad, each op it
 * goes through, and the root. */
void              cr_graph_highlight_add_path (CrGraphHighlight   *self,
                                               const CrPath       *path);

/* Which nodes and edges of model are lit: arrays of model->nodes->len and
 * model->edges->len flags, borrowed from self until the next call with
 * another model (made once per model and kept). */
void              cr_graph_highlight_resolve  (CrGraphHighlight   *self,
                                               const CrGraphModel *model,
                                               const guint8      **nodes,
                                               const guint8      **edges);
/* How many nodes of model are lit. */
guint             cr_graph_highlight_count_nodes (CrGraphHighlight   *self,
                                                  const CrGraphModel *model);
/* Whether node `node` of model is lit; edge likewise. */
gboolean          cr_graph_highlight_node_lit (CrGraphHighlight   *self,
                                               const CrGraphModel *model,
                                               guint               node);
gboolean          cr_graph_highlight_edge_lit (CrGraphHighlight   *self,
                                               const CrGraphModel *model,
                                               guint               edge);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphHighlight, cr_graph_highlight_unref)

G_END_DECLS
