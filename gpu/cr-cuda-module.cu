/* cr-cuda-module.cu — the entry points of the loadable CUDA backend.
 *
 * core/cr-device.c opens this module with GModule on first use, so one build
 * starts on a machine without a CUDA driver and reports
 * torch.cuda.is_available() == False there. Every entry point reports failure
 * as a return value plus a message, never by exiting.
 *
 * Today the module answers device queries; the kernels of the CUDA backend come
 * with the CUDA issue. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#define CR_CUDA_MODULE_ABI 1

static void
write_message (char *buffer, size_t size, const char *what, cudaError_t err)
{
  if (buffer != NULL && size > 0)
    snprintf (buffer, size, "%s: %s (%s)", what, cudaGetErrorString (err), cudaGetErrorName (err));
}

extern "C" int
cr_cuda_module_abi_version (void)
{
  return CR_CUDA_MODULE_ABI;
}

/* The number of CUDA devices, or -1 with a message (no driver, no device). */
extern "C" int
cr_cuda_module_device_count (char *message, size_t message_size)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess)
    {
      write_message (message, message_size, "cudaGetDeviceCount", err);
      cudaGetLastError ();   /* clear the sticky error state */
      return -1;
    }
  return count;
}

/* The name of device i ("NVIDIA H100 80GB HBM3"), 0 on success. */
extern "C" int
cr_cuda_module_device_name (int device, char *name, size_t name_size)
{
  cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties (&prop, device);
  if (err != cudaSuccess)
    {
      write_message (name, name_size, "cudaGetDeviceProperties", err);
      return -1;
    }
  snprintf (name, name_size, "%s", prop.name);
  return 0;
}
