/* cr-leaf-observer.h — who wants to know when a tensor becomes a leaf that
 * requires grad, and when such a leaf first enters a graph: `chainrule
 * check` re-runs a script with one leaf nudged just before the statement
 * that first uses it (core/lang/cr-torch-grad-probe.h). One observer per thread
 * (the thread running a script), NULL nearly always. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef enum {
  CR_LEAF_MADE,   /* requires_grad turned on for a tensor without a grad_fn
                   * (requires_grad=True, requires_grad_(), nn.Parameter) */
  CR_LEAF_USED,   /* an op made an edge to it: its AccumulateGrad node was made
                   * (again after the graph holding the last one was freed) */
} CrLeafEvent;

typedef void (*CrLeafObserverFunc) (CrTensor    *leaf,
                                    CrLeafEvent  event,
                                    gpointer     user_data);

/* Sets this thread's observer (NULL: none); replaces any. */
void cr_autograd_set_leaf_observer (CrLeafObserverFunc func,
                                    gpointer           user_data);
/* Tells this thread's observer, if any, of event for leaf. */
void cr_autograd_notify_leaf       (CrTensor          *leaf,
                                    CrLeafEvent        event);

G_END_DECLS
