/* cr-graph-observer.h — who wants to see the graph as ops make it: the run
 * record keeps the values of small tensors that the script never holds
 * (a result made inside nn.Linear or F.cross_entropy, or by a double
 * backward; the target a loss subtracted), which are gone, or out of
 * reach, by the time it walks the graph back from what the script saw.
 * One observer per thread (the thread running a script), NULL nearly
 * always. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef struct {
  /* node was made over inputs (n_inputs, in edge order; an entry may be
   * NULL). Borrowed for the call. */
  void (*node_made)   (CrNode           *node,
                       CrTensor *const  *inputs,
                       guint             n_inputs,
                       gpointer          user_data);
  /* out became output output_nr of node. Borrowed for the call; out's
   * values may still be written after it (ops record, then fill), so an
   * observer that wants them keeps a reference and reads them later. */
  void (*history_set) (CrTensor         *out,
                       CrNode           *node,
                       guint32           output_nr,
                       gpointer          user_data);
} CrGraphObserver;

/* Sets this thread's observer (NULL: none; borrowed until replaced). */
void cr_autograd_set_graph_observer (const CrGraphObserver *observer,
                                     gpointer               user_data);

/* For core/autograd: tell this thread's observer, if any. */
void cr_autograd_notify_node_made   (CrNode                *node,
                                     CrTensor *const       *inputs,
                                     guint                  n_inputs);
void cr_autograd_notify_history     (CrTensor              *out,
                                     CrNode                *node,
                                     guint32                output_nr);

G_END_DECLS
