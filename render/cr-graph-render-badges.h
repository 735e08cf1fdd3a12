/* cr-graph-render-badges.h — what the run record says about the graph as of
 * the current step, drawn over it: the gradient each step has sent so far,
 * as a small value label by the edge it travelled back along; a leaf's .grad
 * once AccumulateGrad wrote it; a hook that changed a gradient on the node
 * that used it; the node an error stopped at (ringed, with the error's type)
 * and an in-place error's culprit ("modified in place · line N"). Called by
 * cr-graph-render.c after the nodes. */
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
} CrGraphBadgeOptions;

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
