/* cr-cuda-memory.cu — the module's stream, its caching allocator, copies
 * between host and device, and the error helpers every kernel file uses.
 *
 * The allocator keeps freed blocks in free lists keyed by rounded size, so a
 * training loop that makes the same tensors every step calls cudaMalloc only
 * in its first step. There is one stream, so a block freed here can be handed
 * to the next kernel without an event: stream order puts every earlier read
 * of the block before the new owner's writes. When cudaMalloc fails, the
 * cached blocks go back to the driver (cudaFree) and the allocation is tried
 * once more.
 *
 * Thread safety: one mutex around the lists and statistics; the interpreter
 * runs scripts off the UI thread, one at a time, but the UI may query stats. */
#include "cr-cuda-private.h"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace {

struct Allocator {
  std::mutex mutex;
  /* rounded size -> cached free blocks of exactly that size */
  std::map<size_t, std::vector<void *>> cache;
  /* live block -> its rounded size */
  std::unordered_map<void *, size_t> live;
  CrCudaMemoryStats stats;
};

Allocator *
allocator ()
{
  /* Never destroyed: blocks may be freed by tensors that outlive static
   * destructors at exit. */
  static Allocator *a = new Allocator ();
  return a;
}

cudaStream_t module_stream = nullptr;
std::once_flag stream_once;
cudaError_t stream_error = cudaSuccess;

size_t
round_size (size_t nbytes)
{
  const size_t small = 512, large = (size_t) 2 << 20;
  if (nbytes == 0)
    nbytes = 1;
  if (nbytes < ((size_t) 1 << 20))
    return (nbytes + small - 1) / small * small;
  return (nbytes + large - 1) / large * large;
}

/* Frees every cached block; the caller holds the mutex. */
cudaError_t
release_cache_locked (Allocator *a)
{
  cudaError_t first = cudaSuccess;
  for (auto &entry : a->cache)
    {
      for (void *p : entry.second)
        {
          cudaError_t err = cudaFree (p);
          if (err != cudaSuccess && first == cudaSuccess)
            first = err;
          a->stats.reserved -= entry.first;
        }
      entry.second.clear ();
    }
  a->cache.clear ();
  return first;
}

}  // namespace

/* ---- messages ----------------------------------------------------------------- */

extern "C" int
cr_cuda_set_msg (int code, char *msg, size_t msg_size, const char *format, ...)
{
  if (msg != NULL && msg_size > 0)
    {
      va_list args;
      va_start (args, format);
      vsnprintf (msg, msg_size, format, args);
      va_end (args);
    }
  return code;
}

extern "C" int
cr_cuda_fail (cudaError_t err, const char *what, char *msg, size_t msg_size)
{
  /* Clears the error if it is not sticky; a sticky one stays and every later
   * call reports it, which is what PyTorch does after a device fault. */
  cudaGetLastError ();
  return cr_cuda_set_msg (err == cudaErrorMemoryAllocation ? CR_CUDA_ERR_OUT_OF_MEMORY
                                                           : CR_CUDA_ERR_RUNTIME,
                          msg, msg_size, "%s: %s (%s)", what, cudaGetErrorString (err),
                          cudaGetErrorName (err));
}

extern "C" int
cr_cuda_check_launch (const char *what, char *msg, size_t msg_size)
{
  cudaError_t err = cudaGetLastError ();
  return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, what, msg, msg_size);
}

/* ---- the stream ----------------------------------------------------------------- */

extern "C" int
cr_cuda_memory_init (char *msg, size_t msg_size)
{
  std::call_once (stream_once, [] {
    stream_error = cudaSetDevice (0);
    if (stream_error == cudaSuccess)
      stream_error = cudaStreamCreateWithFlags (&module_stream, cudaStreamNonBlocking);
  });
  if (stream_error != cudaSuccess)
    return cr_cuda_fail (stream_error, "creating the CUDA stream", msg, msg_size);
  return CR_CUDA_OK;
}

extern "C" cudaStream_t
cr_cuda_stream (void)
{
  return module_stream;
}

extern "C" int
cr_cuda_stream_synchronize (char *msg, size_t msg_size)
{
  cudaError_t err = cudaStreamSynchronize (module_stream);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaStreamSynchronize", msg, msg_size);
  return CR_CUDA_OK;
}

/* ---- the caching allocator ----------------------------------------------------------- */

extern "C" int
cr_cuda_malloc (size_t nbytes, void **out_ptr, char *msg, size_t msg_size)
{
  Allocator *a = allocator ();
  size_t size = round_size (nbytes);
  void *p = nullptr;
  std::lock_guard<std::mutex> lock (a->mutex);

  *out_ptr = nullptr;
  try
    {
      auto it = a->cache.find (size);
      if (it != a->cache.end () && !it->second.empty ())
        {
          p = it->second.back ();
          it->second.pop_back ();
        }
      else
        {
          cudaError_t err = cudaMalloc (&p, size);
          if (err == cudaErrorMemoryAllocation)
            {
              /* Out of memory: give the cache back and try once more. */
              cudaGetLastError ();
              cudaStreamSynchronize (module_stream);
              release_cache_locked (a);
              err = cudaMalloc (&p, size);
            }
          if (err != cudaSuccess)
            {
              cr_cuda_fail (err, "cudaMalloc", msg, msg_size);
              return err == cudaErrorMemoryAllocation ? CR_CUDA_ERR_OUT_OF_MEMORY
                                                      : CR_CUDA_ERR_RUNTIME;
            }
          a->stats.n_cuda_mallocs++;
          a->stats.reserved += size;
          if (a->stats.reserved > a->stats.peak_reserved)
            a->stats.peak_reserved = a->stats.reserved;
        }
      a->live[p] = size;
    }
  catch (const std::bad_alloc &)
    {
      /* Host memory for the bookkeeping ran out: keep the device block out of
       * reach rather than leak the error. */
      if (p != nullptr)
        cudaFree (p);
      return cr_cuda_set_msg (CR_CUDA_ERR_OUT_OF_MEMORY, msg, msg_size,
                              "host memory ran out in the CUDA allocator");
    }
  a->stats.n_allocs++;
  a->stats.allocated += size;
  if (a->stats.allocated > a->stats.peak_allocated)
    a->stats.peak_allocated = a->stats.allocated;
  *out_ptr = p;
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_free (void *ptr, char *msg, size_t msg_size)
{
  Allocator *a = allocator ();

  if (ptr == nullptr)
    return CR_CUDA_OK;
  std::lock_guard<std::mutex> lock (a->mutex);
  auto it = a->live.find (ptr);
  if (it == a->live.end ())
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "free of a pointer the CUDA allocator did not hand out");
  size_t size = it->second;
  a->live.erase (it);
  a->stats.allocated -= size;
  try
    {
      a->cache[size].push_back (ptr);
    }
  catch (const std::bad_alloc &)
    {
      a->stats.reserved -= size;
      cudaFree (ptr);
    }
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_empty_cache (char *msg, size_t msg_size)
{
  Allocator *a = allocator ();
  cudaError_t err = cudaStreamSynchronize (module_stream);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaStreamSynchronize", msg, msg_size);
  std::lock_guard<std::mutex> lock (a->mutex);
  err = release_cache_locked (a);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaFree", msg, msg_size);
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_memory_stats (CrCudaMemoryStats *out, char *msg, size_t msg_size)
{
  Allocator *a = allocator ();
  (void) msg;
  (void) msg_size;
  std::lock_guard<std::mutex> lock (a->mutex);
  *out = a->stats;
  return CR_CUDA_OK;
}

/* ---- copies ------------------------------------------------------------------------ */

extern "C" int
cr_cuda_memset (void *dst, int byte_value, size_t nbytes, char *msg, size_t msg_size)
{
  if (nbytes == 0)
    return CR_CUDA_OK;
  cudaError_t err = cudaMemsetAsync (dst, byte_value, nbytes, module_stream);
  return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, "cudaMemsetAsync", msg, msg_size);
}

extern "C" int
cr_cuda_copy_h2d (void *dst, const void *src, size_t nbytes, char *msg, size_t msg_size)
{
  if (nbytes == 0)
    return CR_CUDA_OK;
  /* From pageable memory the runtime stages src before returning, so the
   * caller may free it at once (CUDA runtime API, "API synchronization
   * behavior"). GPU RUN: confirm with a test that frees src right away. */
  cudaError_t err = cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyHostToDevice, module_stream);
  return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, "cudaMemcpyAsync (host to device)",
                                                         msg, msg_size);
}

extern "C" int
cr_cuda_copy_d2h (void *dst, const void *src, size_t nbytes, char *msg, size_t msg_size)
{
  cudaError_t err = cudaSuccess;
  if (nbytes > 0)
    err = cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToHost, module_stream);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaMemcpyAsync (device to host)", msg, msg_size);
  /* Always wait: the caller reads dst next, and this is where an earlier
   * kernel's asynchronous error surfaces. */
  return cr_cuda_stream_synchronize (msg, msg_size);
}

extern "C" int
cr_cuda_copy_d2d (void *dst, const void *src, size_t nbytes, char *msg, size_t msg_size)
{
  if (nbytes == 0)
    return CR_CUDA_OK;
  cudaError_t err = cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToDevice, module_stream);
  return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, "cudaMemcpyAsync (device to device)",
                                                         msg, msg_size);
}
