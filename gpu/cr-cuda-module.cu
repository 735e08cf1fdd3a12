/* cr-cuda-module.cu — the one exported entry of the loadable CUDA backend
 * (cr_cuda_module_get_api) and the device queries.
 *
 * core/cr-device.c opens this module with GModule on first use, so one build
 * starts on a machine without a CUDA driver and reports
 * torch.cuda.is_available() == False there: get_api touches no GPU, and
 * device_count turns "no driver" into an error code. The kernels are weak
 * references (CR_CUDA_KERNEL_WEAK): a kernel file that is not built leaves its
 * member NULL, which core reports as "not implemented on CUDA yet". */
#define CR_CUDA_KERNEL_WEAK 1
#include "cr-cuda-private.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

static int
device_count (int *out_count, char *msg, size_t msg_size)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  *out_count = 0;
  if (err != cudaSuccess)
    {
      cr_cuda_fail (err, "cudaGetDeviceCount", msg, msg_size);
      return CR_CUDA_ERR_NO_DEVICE;
    }
  *out_count = count;
  if (count == 0)
    return cr_cuda_set_msg (CR_CUDA_ERR_NO_DEVICE, msg, msg_size, "no CUDA device was found");
  return CR_CUDA_OK;
}

static int
device_name (int device, char *name, size_t name_size, char *msg, size_t msg_size)
{
  cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties (&prop, device);

  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaGetDeviceProperties", msg, msg_size);
  if (name != NULL && name_size > 0)
    snprintf (name, name_size, "%s", prop.name);
  return CR_CUDA_OK;
}

static int
device_capability (int device, int *out_major, int *out_minor, char *msg, size_t msg_size)
{
  cudaError_t err = cudaDeviceGetAttribute (out_major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute (out_minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaDeviceGetAttribute", msg, msg_size);
  return CR_CUDA_OK;
}

static int
mem_get_info (size_t *out_free, size_t *out_total, char *msg, size_t msg_size)
{
  cudaError_t err = cudaMemGetInfo (out_free, out_total);
  if (err != cudaSuccess)
    return cr_cuda_fail (err, "cudaMemGetInfo", msg, msg_size);
  return CR_CUDA_OK;
}

extern "C" __attribute__ ((visibility ("default"))) int
cr_cuda_module_get_api (int abi_version, CrCudaApi *api)
{
  if (api == NULL)
    return CR_CUDA_ERR_INVALID;
  memset (api, 0, sizeof *api);
  if (abi_version != CR_CUDA_ABI_VERSION)
    return CR_CUDA_ERR_ABI;

  api->abi_version = CR_CUDA_ABI_VERSION;
  api->struct_size = sizeof *api;

  api->device_count = device_count;
  api->device_name = device_name;
  api->device_capability = device_capability;
  api->init = cr_cuda_memory_init;
  api->mem_get_info = mem_get_info;

  api->malloc = cr_cuda_malloc;
  api->free = cr_cuda_free;
  api->empty_cache = cr_cuda_empty_cache;
  api->memory_stats = cr_cuda_memory_stats;
  api->memset = cr_cuda_memset;
  api->copy_h2d = cr_cuda_copy_h2d;
  api->copy_d2h = cr_cuda_copy_d2h;
  api->copy_d2d = cr_cuda_copy_d2d;
  api->synchronize = cr_cuda_stream_synchronize;

  /* Weak: NULL where the kernel file is not (yet) part of the module. */
  api->unary = cr_cuda_k_unary;
  api->unary_params = cr_cuda_k_unary_params;
  api->binary = cr_cuda_k_binary;
  api->add_scaled = cr_cuda_k_add_scaled;
  api->clamp = cr_cuda_k_clamp;
  api->where = cr_cuda_k_where;
  api->fill = cr_cuda_k_fill;
  api->copy = cr_cuda_k_copy;
  api->reduce = cr_cuda_k_reduce;
  api->max_dim = cr_cuda_k_max_dim;
  api->allclose = cr_cuda_k_allclose;
  api->softmax = cr_cuda_k_softmax;
  api->softmax_backward = cr_cuda_k_softmax_backward;
  api->gemm = cr_cuda_k_gemm;
  api->take = cr_cuda_k_take;
  api->put = cr_cuda_k_put;
  api->count_nonzero = cr_cuda_k_count_nonzero;
  api->nonzero_flat = cr_cuda_k_nonzero_flat;
  api->im2col = cr_cuda_k_im2col;
  api->col2im = cr_cuda_k_col2im;
  api->max_pool2d = cr_cuda_k_max_pool2d;
  api->max_pool2d_backward = cr_cuda_k_max_pool2d_backward;
  api->max_pool2d_gather = cr_cuda_k_max_pool2d_gather;
  api->avg_pool2d = cr_cuda_k_avg_pool2d;
  api->avg_pool2d_backward = cr_cuda_k_avg_pool2d_backward;
  return CR_CUDA_OK;
}
