/* cr-autograd-private.h — what autograd/ and ops/ share that scripts never see:
 * the per-thread sequence counter and span, and the release of saved tensors. */
#pragma once

#include "cr-node.h"
#include "cr-tensor.h"

G_BEGIN_DECLS

/* The next node's sequence number (per thread, as PyTorch's). */
guint64       cr_autograd_next_sequence_nr (void);
/* The span set by cr_autograd_set_current_span() (borrowed, never NULL). */
const CrSpan *cr_autograd_get_current_span (void);

/* cr_autograd_set_history(), taking the caller's reference on node (a node
 * just made: no atomic increment and decrement on it). */
void          cr_autograd_set_history_take (CrTensor       *out,
                                            CrNode         *node,
                                            guint32         output_nr);

/* A hook's references (see struct _CrTensorHook); unref takes NULL. */
CrTensorHook *cr_tensor_hook_ref           (CrTensorHook   *hook);
void          cr_tensor_hook_unref         (gpointer        hook);

/* Free node's saved tensors (a backward without retain_graph did it). */
void          cr_node_release_saved        (CrNode         *node);

/* The meta of t, for edges and for the engine's output validation; its
 * sizes are copied to dims (t->ndim of them). */
void          cr_tensor_meta_set           (CrTensorMeta   *meta,
                                            gint64         *dims,
                                            const CrTensor *t);

/* What few nodes need: a user's autograd.Function and retain_grad(). */
struct _CrNodeExtra {
  GPtrArray            *retained;        /* weak CrTensor*: outputs that called retain_grad() */
  CrCustomBackwardFunc  custom_backward;
  gpointer              custom_data;
  GDestroyNotify        custom_destroy;
};

G_END_DECLS
