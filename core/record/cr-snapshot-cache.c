/* cr-snapshot-cache.c — the last few tensors snapshotted, with their
 * snapshots (cr-snapshot-cache.h). A ring: the repeats it is for come within
 * a step or two, so a handful of entries finds them, a scan of them costs
 * less than a hash, and few gradients are kept alive by it. */
#include "cr-snapshot-cache.h"

#include "cr-tensor.h"

#define CACHE_ENTRIES 8

typedef struct {
  CrTensor         *tensor;    /* a reference: its address stays its own */
  gconstpointer     storage;   /* compared, never dereferenced */
  gint64            offset;
  guint32           version;
  CrTensorSnapshot *snapshot;  /* a hold of the cache's own */
} Entry;

struct _CrSnapshotCache {
  Entry entries[CACHE_ENTRIES];
  guint next;                  /* the entry the next insert replaces */
};

CrSnapshotCache *
cr_snapshot_cache_new (void)
{
  return g_new0 (CrSnapshotCache, 1);
}

static void
entry_clear (Entry *e)
{
  g_clear_pointer (&e->tensor, cr_tensor_unref);
  g_clear_pointer (&e->snapshot, cr_tensor_snapshot_free);
}

void
cr_snapshot_cache_clear (CrSnapshotCache *self)
{
  if (!self)
    return;
  for (guint i = 0; i < CACHE_ENTRIES; i++)
    entry_clear (&self->entries[i]);
  self->next = 0;
}

void
cr_snapshot_cache_free (CrSnapshotCache *self)
{
  cr_snapshot_cache_clear (self);
  g_free (self);
}

CrTensorSnapshot *
cr_snapshot_cache_lookup (CrSnapshotCache *self,
                          const CrTensor  *tensor)
{
  if (!self || !tensor)
    return NULL;
  for (guint i = 0; i < CACHE_ENTRIES; i++)
    {
      const Entry *e = &self->entries[i];
      if (e->tensor == tensor && e->storage == (gconstpointer) tensor->storage
          && e->offset == tensor->offset && e->version == cr_tensor_version (tensor))
        return cr_tensor_snapshot_share (e->snapshot);
    }
  return NULL;
}

void
cr_snapshot_cache_insert (CrSnapshotCache  *self,
                          const CrTensor   *tensor,
                          CrTensorSnapshot *snapshot)
{
  if (!self || !tensor || !snapshot)
    return;
  Entry *e = &self->entries[self->next];
  self->next = (self->next + 1) % CACHE_ENTRIES;
  entry_clear (e);
  e->tensor = cr_tensor_ref ((CrTensor *) tensor);
  e->storage = tensor->storage;
  e->offset = tensor->offset;
  e->version = cr_tensor_version (tensor);
  e->snapshot = cr_tensor_snapshot_share (snapshot);
}
