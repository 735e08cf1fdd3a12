/* cr-storage.c — reference-counted memory shared by a tensor and its views.
 *
 * A script of scalar arithmetic creates and frees a storage per op, so the
 * storage struct comes from cr-slab and data of up to
 * CR_STORAGE_INLINE_BYTES lives inside the struct: a 0-d op costs no malloc.
 * Larger CPU blocks are 64-byte aligned (whole AVX vectors, no split lines) and
 * counted against the process-wide memory limit. */
#include "cr-storage.h"
#include "cr-error.h"
#include "cr-slab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CR_STORAGE_INLINE_BYTES 64
#define CPU_ALIGNMENT           64

typedef struct _StorageBlock StorageBlock;

struct _StorageBlock {
  CrStorage     storage;
  /* Aligned for any element type and for 16-byte vector loads. */
  gint64        inline_data[CR_STORAGE_INLINE_BYTES / sizeof (gint64)] __attribute__ ((aligned (16)));
};

static gsize memory_limit = (gsize) 4 << 30;
static gsize memory_in_use;

static CrStorageAllocator device_allocators[CR_DEVICE_CUDA + 1];

/* A block holds the struct and, for small CPU data, the data: only as much
 * of inline_data as nbytes needs (a 0-d tensor's storage is one cache line). */
static inline gsize
block_size (gboolean inline_data,
            gsize    nbytes)
{
  return G_STRUCT_OFFSET (StorageBlock, inline_data) + (inline_data ? (nbytes + 15) & ~(gsize) 15 : 0);
}

static StorageBlock *
block_alloc (gboolean inline_data,
             gsize    nbytes)
{
  return cr_slab_alloc (block_size (inline_data, nbytes));
}

static void
block_free (StorageBlock *block,
            gboolean      inline_data,
            gsize         nbytes)
{
  cr_slab_free (block, block_size (inline_data, nbytes));
}

/* ---- large CPU buffers ----------------------------------------------------
 *
 * A loop over big tensors frees and allocates buffers of the same sizes over
 * and over; fresh ones from the system cost a page fault per 4 KiB (at 16 MiB,
 * more than the arithmetic on them). So:
 *   - a buffer of 2 MiB or more is mapped on its own, 2 MiB-aligned and
 *     marked for transparent huge pages (8 faults for 16 MiB, not 4096);
 *   - freed buffers of 64 KiB and more (a training step's activations and
 *     gradients) are kept for reuse, most recent first, within a byte cap:
 *     what is kept never grows past it, whatever the script does (not under
 *     AddressSanitizer, which must see every free).
 * Sizes from 64 KiB up are rounded to 4 KiB, from 1 MiB up to 64 KiB, so
 * that similar requests share buffers and a buffer's size is known from the
 * storage's nbytes. */

#if defined(__SANITIZE_ADDRESS__)
# define BIG_CACHE_DISABLED 1
#elif defined(__has_feature)
# if __has_feature (address_sanitizer)
#  define BIG_CACHE_DISABLED 1
# endif
#endif

#define BIG_MIN_BYTES  ((gsize) 64 << 10)
#define BIG_HUGE_BYTES ((gsize) 2 << 20)

static inline gsize
big_size (gsize nbytes)
{
  gsize granule = nbytes >= ((gsize) 1 << 20) ? (gsize) 64 << 10 : (gsize) 4 << 10;

  return nbytes >= BIG_MIN_BYTES ? (nbytes + granule - 1) & ~(granule - 1) : nbytes;
}

static gpointer
huge_alloc (gsize size)
{
  guint8 *raw = mmap (NULL, size + BIG_HUGE_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  guint8 *data;
  gsize head;

  if (raw == MAP_FAILED)
    return NULL;
  head = (BIG_HUGE_BYTES - ((guintptr) raw & (BIG_HUGE_BYTES - 1))) & (BIG_HUGE_BYTES - 1);
  data = raw + head;
  if (head > 0)
    munmap (raw, head);
  munmap (data + size, BIG_HUGE_BYTES - head);
  if (cr_slab_huge_pages ())
    madvise (data, size, MADV_HUGEPAGE);
  return data;
}

/* A buffer of size (rounded) bytes from the system. */
static gpointer
system_alloc (gsize size)
{
  gpointer data = NULL;

  if (size >= BIG_HUGE_BYTES)
    return huge_alloc (size);
  if (posix_memalign (&data, CPU_ALIGNMENT, size) != 0)
    return NULL;
  return data;
}

static void
system_free (gpointer data,
             gsize    size)
{
  if (size >= BIG_HUGE_BYTES)
    munmap (data, size);
  else
    free (data);
}

#ifndef BIG_CACHE_DISABLED
#define BIG_SLOTS 128

typedef struct {
  gpointer data;
  gsize    size;
} BigBuffer;

static GMutex    big_lock;
static BigBuffer big_cache[BIG_SLOTS];      /* oldest first */
static guint     big_len;
static gsize     big_bytes;

/* At most a quarter of the memory limit, and 512 MiB. */
static gsize
big_cap (void)
{
  return MIN ((gsize) 512 << 20, cr_memory_get_limit () / 4);
}

static gpointer
big_take (gsize size)
{
  gpointer data = NULL;

  g_mutex_lock (&big_lock);
  for (guint i = big_len; i-- > 0;)
    if (big_cache[i].size == size)
      {
        data = big_cache[i].data;
        memmove (&big_cache[i], &big_cache[i + 1], (big_len - i - 1) * sizeof (BigBuffer));
        big_len--;
        big_bytes -= size;
        break;
      }
  g_mutex_unlock (&big_lock);
  return data;
}

/* Keeps data, giving back the oldest buffers to make room; FALSE when it
 * is too big to keep at all. */
static gboolean
big_keep (gpointer data,
          gsize    size)
{
  gsize cap = big_cap ();
  BigBuffer evicted[BIG_SLOTS];
  guint n_evicted = 0;

  if (size > cap)
    return FALSE;
  g_mutex_lock (&big_lock);
  while (big_len > 0 && (big_len == BIG_SLOTS || big_bytes + size > cap))
    {
      evicted[n_evicted++] = big_cache[0];
      big_bytes -= big_cache[0].size;
      memmove (&big_cache[0], &big_cache[1], --big_len * sizeof (BigBuffer));
    }
  big_cache[big_len].data = data;
  big_cache[big_len].size = size;
  big_len++;
  big_bytes += size;
  g_mutex_unlock (&big_lock);
  for (guint i = 0; i < n_evicted; i++)
    system_free (evicted[i].data, evicted[i].size);
  return TRUE;
}
#endif

static gpointer
cpu_alloc (gsize nbytes)
{
  gsize size = big_size (nbytes);

#ifndef BIG_CACHE_DISABLED
  if (size >= BIG_MIN_BYTES)
    {
      gpointer data = big_take (size);

      if (data != NULL)
        return data;
    }
#endif
  return system_alloc (size);
}

static void
cpu_free (gpointer data,
          gsize    nbytes)
{
  gsize size = big_size (nbytes);

#ifndef BIG_CACHE_DISABLED
  if (size >= BIG_MIN_BYTES && big_keep (data, size))
    return;
#endif
  system_free (data, size);
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

/* The interpreter gives back in batches what it charged in others (and
 * from any thread), so the total may dip below zero for a moment: it is read
 * as signed. */
static inline gssize
memory_in_use_signed (void)
{
  return (gssize) g_atomic_pointer_get (&memory_in_use);
}

gboolean
cr_memory_reserve (gsize nbytes)
{
  gsize limit = g_atomic_pointer_get (&memory_limit);
  gssize old;

  if (G_UNLIKELY (nbytes > limit))
    return FALSE;
  old = (gssize) g_atomic_pointer_add (&memory_in_use, nbytes);
  if (G_UNLIKELY (old > 0 && (gsize) old + nbytes > limit))
    {
      g_atomic_pointer_add (&memory_in_use, -(gssize) nbytes);
      return FALSE;
    }
  return TRUE;
}

void
cr_memory_charge (gssize nbytes)
{
  g_atomic_pointer_add (&memory_in_use, nbytes);
}

gboolean
cr_memory_exceeded (void)
{
  gssize used = memory_in_use_signed ();

  return used > 0 && (gsize) used > g_atomic_pointer_get (&memory_limit);
}

gboolean
cr_memory_fits (gsize nbytes)
{
  gsize limit = g_atomic_pointer_get (&memory_limit);
  gssize used = memory_in_use_signed ();

  return nbytes <= limit && (used <= 0 || (gsize) used <= limit - nbytes);
}

static gboolean
reserve_memory (gsize    nbytes,
                GError **error)
{
  if (G_UNLIKELY (!cr_memory_reserve (nbytes)))
    {
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

/* Per thread, as inference mode is in PyTorch. */
static __thread gboolean new_storage_is_inference;

gboolean
cr_storage_set_inference (gboolean inference)
{
  gboolean previous = new_storage_is_inference;

  new_storage_is_inference = inference;
  return previous;
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
      block = block_alloc (TRUE, nbytes);
      storage = &block->storage;
      storage->data = block->inline_data;
      if (zeroed)
        memset (block->inline_data, 0, nbytes);
    }
  else if (device == CR_DEVICE_CPU)
    {
      gpointer data = NULL;

      if (!reserve_memory (nbytes, error))
        return NULL;
      data = cpu_alloc (nbytes);
      if (data == NULL)
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
      block = block_alloc (FALSE, nbytes);
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
      /* Device memory is not the host's: the process-wide limit (which
       * protects the machine's RAM) does not apply, and the device's
       * allocator reports its own out-of-memory error ("CUDA out of
       * memory. Tried to allocate ..."). */
      data = allocator->alloc (nbytes, zeroed, &backend_data, error);
      if (data == NULL && nbytes > 0)
        return NULL;
      block = block_alloc (FALSE, nbytes);
      storage = &block->storage;
      storage->data = data;
      storage->backend_data = backend_data;
    }

  storage->ref_count = 1;
  storage->device = device;
  storage->nbytes = nbytes;
  storage->version = 0;
  storage->is_inference = new_storage_is_inference;
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
  gboolean is_inline;

  if (storage == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&storage->ref_count))
    return;

  block = (StorageBlock *) storage;
  is_inline = storage->data == (gpointer) block->inline_data;
  if (!is_inline)
    {
      if (storage->device == CR_DEVICE_CPU)
        {
          cpu_free (storage->data, storage->nbytes);
          release_memory (storage->nbytes);
        }
      else if (device_allocators[storage->device].free != NULL)
        device_allocators[storage->device].free (storage->data, storage->backend_data);
    }
  block_free (block, is_inline, storage->nbytes);
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
  return (gsize) MAX (memory_in_use_signed (), 0);
}
