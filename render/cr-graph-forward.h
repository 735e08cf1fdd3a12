/* cr-graph-forward.h — the graph as it stands at a step of the forward
 * pass: which nodes are computed already, which one computes now, which
 * are not computed yet (drawn faint, their values hidden). Said per node
 * of a model (a closed group is computing while any op in it is), from the
 * record's forward ops (cr_record_forward_ops). */
#pragma once

#include <glib.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

typedef enum {
  CR_GRAPH_FORWARD_DONE,      /* computed (inputs are, from the start) */
  CR_GRAPH_FORWARD_NOW,       /* the op computing at this step, and its result */
  CR_GRAPH_FORWARD_NOT_YET,   /* not computed yet: faint, no values */
} CrGraphForwardState;

/* The forward ops of model's graph, in the order they ran: the record ops
 * model draws (cr_record_forward_ops of its backward call, those shown).
 * New array of int (record op indices); empty without a record. */
GArray *cr_graph_forward_ops    (const CrGraphModel *model);
/* Each node's CrGraphForwardState (a new array of model->nodes->len bytes)
 * when forward step `step` (index in ops) is the one shown. */
guint8 *cr_graph_forward_states (const CrGraphModel *model,
                                 const GArray       *ops,
                                 int                 step);

G_END_DECLS
