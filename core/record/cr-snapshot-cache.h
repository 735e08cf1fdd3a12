/* cr-snapshot-cache.h — the last few tensors a recorder snapshotted, so that
 * the same tensor at the same version is snapshotted once and its snapshot
 * shared (cr_tensor_snapshot_share): a backward step's outgoing gradient is
 * also its product (no broadcast) and the next step's incoming gradient.
 *
 * It holds a reference to each tensor it remembers, so that a tensor's
 * address is never another tensor's while it is remembered; only a few are,
 * so no gradient lives much longer than it would. */
#pragma once

#include <glib.h>

#include "cr-types.h"
#include "cr-tensor-snapshot.h"

G_BEGIN_DECLS

typedef struct _CrSnapshotCache CrSnapshotCache;

CrSnapshotCache  *cr_snapshot_cache_new    (void);
void              cr_snapshot_cache_free   (CrSnapshotCache  *self);   /* NULL-safe */
/* Forgets every tensor (their references dropped). */
void              cr_snapshot_cache_clear  (CrSnapshotCache  *self);
/* A new hold on the snapshot taken of tensor with its data as it is now
 * (same storage, offset and version), or NULL. */
CrTensorSnapshot *cr_snapshot_cache_lookup (CrSnapshotCache  *self,
                                            const CrTensor   *tensor);
/* Remembers snapshot (the cache takes a hold of its own) as tensor's value
 * now, forgetting the oldest. */
void              cr_snapshot_cache_insert (CrSnapshotCache  *self,
                                            const CrTensor   *tensor,
                                            CrTensorSnapshot *snapshot);

G_END_DECLS
