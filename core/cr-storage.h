/* cr-storage.h — reference-counted memory that tensors (and their views) share.
 *
 * The version counter lives here because PyTorch shares it between a tensor, its
 * views and its detach()ed aliases: an in-place change through any of them makes
 * a tensor saved for backward stale. */
#pragma once

#include "cr-types.h"
#include "cr-memory.h"

G_BEGIN_DECLS

struct _CrStorage {
  gint          ref_count;
  CrDeviceType  device;
  gsize         nbytes;
  gpointer      data;
  guint32       version;
  gboolean      is_inference;   /* made under torch.inference_mode(): is_inference() */
  gpointer      backend_data;   /* owned by the device's backend (e.g. a CUDA block) */
};

/* Uninitialised memory of nbytes on device. Fails with a RuntimeError (PyTorch's
 * allocator message) past the memory limit or when the system has none. */
CrStorage   *cr_storage_new            (CrDeviceType   device,
                                        gsize          nbytes,
                                        GError       **error);
/* The same, filled with zero bytes. */
CrStorage   *cr_storage_new_zeroed     (CrDeviceType   device,
                                        gsize          nbytes,
                                        GError       **error);
CrStorage   *cr_storage_ref            (CrStorage     *storage);
void         cr_storage_unref          (CrStorage     *storage);   /* NULL-safe */

/* Whether storages made from now on, on this thread, are inference
 * storages (torch.inference_mode() sets it through autograd's
 * cr_inference_mode_set_enabled); returns the previous state. */
gboolean     cr_storage_set_inference  (gboolean       inference);

/* TRUE when the data lives inside the storage struct (small CPU blocks). */
gboolean     cr_storage_is_inline      (const CrStorage *storage);

/* How a device backend (gpu/) allocates its memory; registered once at start-up.
 * alloc returns the device pointer (or NULL with error) and may set
 * *out_backend_data; zeroed asks for zero-filled memory. */
typedef struct {
  gpointer (*alloc) (gsize      nbytes,
                     gboolean   zeroed,
                     gpointer  *out_backend_data,
                     GError   **error);
  void     (*free)  (gpointer   data,
                     gpointer   backend_data);
} CrStorageAllocator;

void         cr_storage_set_allocator  (CrDeviceType              device,
                                        const CrStorageAllocator *allocator);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrStorage, cr_storage_unref)

G_END_DECLS
