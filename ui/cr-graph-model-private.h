/* cr-graph-model-private.h — shared by the files that build graph models. */
#pragma once

#include "cr-graph-model.h"

G_BEGIN_DECLS

/* cr_tensor_snapshot_new() keeping at most max_values values (0: none); the
 * statistics and text still cover the whole tensor. A model's snapshots
 * share a budget so that a long backward over big tensors stays small. */
CrTensorSnapshot *cr_tensor_snapshot_new_limited (const CrTensor *tensor,
                                                  gint64          max_values);

G_END_DECLS
