/* cr-storage.c — reference-counted memory shared by a tensor and its views.
 *
 * A script of scalar arithmetic creates and frees a storage per op, so the
 * storage struct comes from a small per-thread free list and data of up to
 * CR_STORAGE_INLINE_BYTES lives inside the struct: a 0-d op costs no malloc.
 * Larger CPU blocks are 64-byte aligned (whole AVX vectors, no split lines) and
 * counted against the process-wide memory limit. */
#include "cr-storage.h"
#include "cr-error.h"

#include <stdlib.h>
#include <string.h>

#define CR_STORAGE_INLINE_BYTES 64
#define POOL_MAX                512
#define CPU_ALIGNMENT           64

typedef struct _StorageBlock StorageBlock;

struct _StorageBlock {
  CrStorage     storage;
  StorageBlock *next_free;
  /* Aligned for any element type and for 16-byte vector loads. */
  gint64        inline_data[CR_STORAGE_INLINE_BYTES / sizeof (gint64)] __attribute__ ((aligned (16)));
};

static gsize memory_limit = (gsize) 4 << 30;
static gsize memory_in_use;

static CrStorageAllocator device_allocators[CR_DEVICE_CUDA + 1];

static __thread StorageBlock *pool_head;
static __thread guint         pool_count;
static __thread gboolean      pool_registered;

static void
pool_drain (gpointer unused)
{
  while (pool_head != NULL)
    {
      StorageBlock *block = pool_head;

      pool_head = block->next_free;
      g_free (block);
    }
  pool_count = 0;
}

/* Frees the calling thread's free list when the thread exits. */
static GPrivate pool_private = G_PRIVATE_INIT (pool_drain);

static StorageBlock *
block_alloc (void)
{
  StorageBlock *block = pool_head;

  if (G_LIKELY (block != NULL))
    {
      pool_head = block->next_free;
      pool_count--;
      return block;
    }

  if (G_UNLIKELY (!pool_registered))
    {
      pool_registered = TRUE;
      g_private_set (&pool_private, GINT_TO_POINTER (1));
    }
  return g_new (StorageBlock, 1);
}

static void
block_free (StorageBlock *block)
{
  if (G_LIKELY (pool_count < POOL_MAX && pool_registered))
    {
      block->next_free = pool_head;
      pool_head = block;
      pool_count++;
      return;
    }
  g_free (block);
}

static void
set_alloc_error (GError **error,
                 gsize    nbytes)
{
  /* PyTorch 1.13's text when its CPU allocator fails. */
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: "
               "can't allocate memory: you tried to allocate %" G_GSIZE_FORMAT " bytes. "
               "Error code 12 (Cannot allocate memory)", nbytes);
}

static gboolean
reserve_memory (gsize    nbytes,
                GError **error)
{
  gsize old = g_atomic_pointer_add (&memory_in_use, nbytes);

  if (G_UNLIKELY (old + nbytes > g_atomic_pointer_get (&memory_limit) || old + nbytes < old))
    {
      g_atomic_pointer_add (&memory_in_use, -(gssize) nbytes);
      set_alloc_error (error, nbytes);
      return FALSE;
    }
  return TRUE;
}

static void
release_memory (gsize nbytes)
{
  g_atomic_pointer_add (&memory_in_use, -(gssize) nbytes);
}

static CrStorage *
storage_new (CrDeviceType   device,
             gsize          nbytes,
             gboolean       zeroed,
             GError       **error)
{
  StorageBlock *block;
  CrStorage *storage;

  if (device == CR_DEVICE_CPU && nbytes <= CR_STORAGE_INLINE_BYTES)
    {
      block = block_alloc ();
      storage = &block->storage;
      storage->data = block->inline_data;
      if (zeroed)
        memset (block->inline_data, 0, sizeof block->inline_data);
    }
  else if (device == CR_DEVICE_CPU)
    {
      gpointer data = NULL;

      if (!reserve_memory (nbytes, error))
        return NULL;
      if (posix_memalign (&data, CPU_ALIGNMENT, nbytes) != 0 || data == NULL)
        {
          release_memory (nbytes);
          set_alloc_error (error, nbytes);
          return NULL;
        }
      /* Fresh mmap()ed pages are already zero, but malloc may hand back
       * recycled memory; the memset of a large block touches pages the
       * caller writes next anyway. */
      if (zeroed)
        memset (data, 0, nbytes);
      block = block_alloc ();
      storage = &block->storage;
      storage->data = data;
    }
  else
    {
      const CrStorageAllocator *allocator = &device_allocators[device];
      gpointer backend_data = NULL;
      gpointer data;

      if (allocator->alloc == NULL)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Torch not compiled with CUDA enabled");
          return NULL;
        }
      if (!reserve_memory (nbytes, error))
        return NULL;
      data = allocator->alloc (nbytes, zeroed, &backend_data, error);
      if (data == NULL && nbytes > 0)
        {
          release_memory (nbytes);
          return NULL;
        }
      block = block_alloc ();
      storage = &block->storage;
      storage->data = data;
      storage->backend_data = backend_data;
    }

  storage->ref_count = 1;
  storage->device = device;
  storage->nbytes = nbytes;
  storage->version = 0;
  if (device == CR_DEVICE_CPU)
    storage->backend_data = NULL;
  return storage;
}

CrStorage *
cr_storage_new (CrDeviceType   device,
                gsize          nbytes,
                GError       **error)
{
  return storage_new (device, nbytes, FALSE, error);
}

CrStorage *
cr_storage_new_zeroed (CrDeviceType   device,
                       gsize          nbytes,
                       GError       **error)
{
  return storage_new (device, nbytes, TRUE, error);
}

CrStorage *
cr_storage_ref (CrStorage *storage)
{
  g_return_val_if_fail (storage != NULL, NULL);
  g_atomic_int_inc (&storage->ref_count);
  return storage;
}

void
cr_storage_unref (CrStorage *storage)
{
  StorageBlock *block;

  if (storage == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&storage->ref_count))
    return;

  block = (StorageBlock *) storage;
  if (storage->data != (gpointer) block->inline_data)
    {
      if (storage->device == CR_DEVICE_CPU)
        free (storage->data);
      else if (device_allocators[storage->device].free != NULL)
        device_allocators[storage->device].free (storage->data, storage->backend_data);
      release_memory (storage->nbytes);
    }
  block_free (block);
}

gboolean
cr_storage_is_inline (const CrStorage *storage)
{
  return storage->data == (gconstpointer) ((const StorageBlock *) storage)->inline_data;
}

void
cr_storage_set_allocator (CrDeviceType              device,
                          const CrStorageAllocator *allocator)
{
  g_return_if_fail (device != CR_DEVICE_CPU && (guint) device < G_N_ELEMENTS (device_allocators));
  if (allocator != NULL)
    device_allocators[device] = *allocator;
  else
    memset (&device_allocators[device], 0, sizeof device_allocators[device]);
}

void
cr_memory_set_limit (gsize bytes)
{
  g_atomic_pointer_set (&memory_limit, bytes);
}

gsize
cr_memory_get_limit (void)
{
  return g_atomic_pointer_get (&memory_limit);
}

gsize
cr_memory_in_use (void)
{
  return g_atomic_pointer_get (&memory_in_use);
}
