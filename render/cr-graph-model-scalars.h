/* cr-graph-model-scalars.h — one small tensor op's scalar graph
 * (core/teach/cr-op-scalars.h) as a graph model that the renderer draws
 * like any other: each input element a card (dim and dashed when it gets
 * no gradient), each product or sum an op pill with its glyph, each output
 * element a card after its pill; every edge labelled with its local
 * derivative. The output element k, with its pills, is "step" k of the
 * model: drawn as the current step, the chain rule of that element is lit
 * and the elements before it are ticked, so that the backward step of the
 * op is walked element by element with the renderer's own stepping look. */
#pragma once

#include "cr-graph-model.h"
#include "cr-op-scalars.h"

G_BEGIN_DECLS

/* A new model (one reference, record NULL, n_steps 0: each node's step is
 * its output element's index, -1 for inputs). sub_step: the values shown
 * are the gradients as of that many output elements done (n_sub_steps:
 * all). The model's nodes are scalars' nodes in order, then one card per
 * output element (the pills keep the scalar nodes' indices). */
CrGraphModel *cr_graph_model_new_from_op_scalars (const CrOpScalars *scalars,
                                                  const CrRunRecord *record,
                                                  guint              sub_step);

G_END_DECLS
