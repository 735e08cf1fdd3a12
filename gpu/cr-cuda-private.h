/* cr-cuda-private.h — what the .cu files of gpu/ share and core never sees:
 * the kernel entry points (one per CrCudaApi member, cr_cuda_k_<member>, see
 * cr-cuda-abi.h for each one's contract) and the module's services (the one
 * stream, scratch memory from the caching allocator, error messages), defined
 * in gpu/cr-cuda-memory.cu. CUDA C++ only. */
#pragma once

#include "cr-cuda-abi.h"

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In gpu/cr-cuda-module.cu these are weak references (an unwritten kernel is
 * NULL); everywhere else ordinary declarations. */
#ifdef CR_CUDA_KERNEL_WEAK
#define CR_CUDA_KERNEL __attribute__ ((weak))
#else
#define CR_CUDA_KERNEL
#endif

CR_CUDA_KERNEL int cr_cuda_k_unary (int op, const CrCudaTensor *out, const CrCudaTensor *x,
                                    CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_unary_params (int op, const CrCudaTensor *out,
                                           const CrCudaTensor *x, const double *params,
                                           CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_binary (int op, const CrCudaTensor *out, const CrCudaTensor *a,
                                     const CrCudaTensor *b, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_add_scaled (const CrCudaTensor *out, const CrCudaTensor *a,
                                         const CrCudaTensor *b, double alpha, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_clamp (const CrCudaTensor *out, const CrCudaTensor *x, int has_min,
                                    double min, int has_max, double max, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_where (const CrCudaTensor *out, const CrCudaTensor *cond,
                                    const CrCudaTensor *a, const CrCudaTensor *b, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_fill (const CrCudaTensor *out, double value, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_copy (const CrCudaTensor *out, const CrCudaTensor *src, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_reduce (int op, const CrCudaTensor *out, const CrCudaTensor *x,
                                     uint32_t dims_mask, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_max_dim (const CrCudaTensor *values, const CrCudaTensor *indices,
                                      const CrCudaTensor *x, int dim, int is_min, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_allclose (const CrCudaTensor *a, const CrCudaTensor *b, double rtol,
                                       double atol, int *out_result, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_softmax (const CrCudaTensor *out, const CrCudaTensor *x, int dim,
                                      int log, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_softmax_backward (const CrCudaTensor *grad_in,
                                               const CrCudaTensor *grad,
                                               const CrCudaTensor *out, int dim, int log,
                                               CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_gemm (const CrCudaTensor *out, const CrCudaTensor *a,
                                   const CrCudaTensor *b, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_take (const CrCudaTensor *out, const CrCudaTensor *x,
                                   const CrCudaTensor *index, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_put (const CrCudaTensor *dst, const CrCudaTensor *index,
                                  const CrCudaTensor *values, int accumulate, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_count_nonzero (const CrCudaTensor *x, int64_t *out_count,
                                            CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_nonzero_flat (const CrCudaTensor *out, const CrCudaTensor *mask,
                                           CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_im2col (const CrCudaTensor *cols, const CrCudaTensor *x,
                                     const CrCudaConvGeom *geom, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_col2im (const CrCudaTensor *x, const CrCudaTensor *cols,
                                     const CrCudaConvGeom *geom, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_max_pool2d (const CrCudaTensor *values, const CrCudaTensor *indices,
                                         const CrCudaTensor *x, const CrCudaPoolGeom *geom,
                                         CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_max_pool2d_backward (const CrCudaTensor *gx, const CrCudaTensor *gy,
                                                  const CrCudaTensor *indices,
                                                  const CrCudaPoolGeom *geom, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_max_pool2d_gather (const CrCudaTensor *out, const CrCudaTensor *g,
                                                const CrCudaTensor *indices,
                                                const CrCudaPoolGeom *geom, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_avg_pool2d (const CrCudaTensor *out, const CrCudaTensor *x,
                                         const CrCudaPoolGeom *geom, CR_CUDA_MSG);
CR_CUDA_KERNEL int cr_cuda_k_avg_pool2d_backward (const CrCudaTensor *gx, const CrCudaTensor *gy,
                                                  const CrCudaPoolGeom *geom, CR_CUDA_MSG);

/* Shared services of gpu/cr-cuda-memory.cu for the kernel files. */

/* Selects device 0 and creates the stream (once); the table's init. */
int  cr_cuda_memory_init (CR_CUDA_MSG);
/* The table's memory group (see CrCudaApi). */
int  cr_cuda_empty_cache (CR_CUDA_MSG);
int  cr_cuda_memory_stats (CrCudaMemoryStats *out, CR_CUDA_MSG);
int  cr_cuda_memset (void *dst, int byte_value, size_t nbytes, CR_CUDA_MSG);
int  cr_cuda_copy_h2d (void *dst, const void *src, size_t nbytes, CR_CUDA_MSG);
int  cr_cuda_copy_d2h (void *dst, const void *src, size_t nbytes, CR_CUDA_MSG);
int  cr_cuda_copy_d2d (void *dst, const void *src, size_t nbytes, CR_CUDA_MSG);

/* The module's one stream (created by init). Launch every kernel on it. */
cudaStream_t cr_cuda_stream (void);
/* Scratch memory from the caching allocator (the table's malloc/free). */
int  cr_cuda_malloc (size_t nbytes, void **out_ptr, CR_CUDA_MSG);
int  cr_cuda_free   (void *ptr, CR_CUDA_MSG);
/* Waits for the stream (the table's synchronize). */
int  cr_cuda_stream_synchronize (CR_CUDA_MSG);
/* Formats "what: cudaGetErrorString(err) (cudaGetErrorName(err))" into msg,
 * clears the non-sticky error state (cudaGetLastError) and returns
 * CR_CUDA_ERR_RUNTIME (CR_CUDA_ERR_OUT_OF_MEMORY for cudaErrorMemoryAllocation). */
int  cr_cuda_fail   (cudaError_t err, const char *what, CR_CUDA_MSG);
/* After a launch: cudaGetLastError() -> CR_CUDA_OK or cr_cuda_fail (err, what). */
int  cr_cuda_check_launch (const char *what, CR_CUDA_MSG);
/* printf-style message into msg (NULL/0-safe); returns code. */
int  cr_cuda_set_msg (int code, CR_CUDA_MSG, const char *format, ...)
  __attribute__ ((format (printf, 4, 5)));


#ifdef __cplusplus
}
#endif
