/* cr-cuda.h — the engine's side of the CUDA backend (core/cuda/): the
 * CrBackend table built on the module's kernel ABI (gpu/cr-cuda-abi.h), the
 * device storage allocator, and moving tensors between devices.
 *
 * Plain C, always compiled: nothing here needs CUDA headers. Without the
 * module (no nvcc at build time, no driver at run time) the backend is never
 * installed and every CUDA request is PyTorch's "Found no NVIDIA driver"
 * RuntimeError from cr_device_check_usable(). */
#pragma once

#include "cr-tensor.h"

G_BEGIN_DECLS

struct CrCudaApi;

/* Takes the module's table (it must outlive the process), registers the
 * storage allocator and the CrBackend of CR_DEVICE_CUDA. Called by
 * cr-device.c once the module is loaded, init succeeded and a device exists. */
void      cr_cuda_backend_install  (const struct CrCudaApi *api);

/* The device factory functions put new tensors on when the script names none
 * (`chainrule run --device cuda`); per thread, set by cr_interp_run(). */
void         cr_device_set_default   (CrDeviceType type);
CrDeviceType cr_device_get_default   (void);

/* The name of CUDA device 0 ("NVIDIA H100 80GB HBM3"), NULL without one. */
const char *cr_cuda_get_device_name (void);

/* x on device: x itself (a new ref) when it is there already, else a
 * contiguous copy (a synchronizing copy when it goes to the host). Not
 * differentiable by itself (see cr_to_device for the op). */
CrTensor *cr_tensor_to_device      (const CrTensor  *x,
                                    CrDeviceType     device,
                                    GError         **error);

/* cr_tensor_get_flat() / _int() for a tensor on any device: a CUDA element
 * is copied to the host (synchronous). For .item(), bool(), indices. */
double    cr_tensor_read_flat      (const CrTensor  *t,
                                    gint64           index);
gint64    cr_tensor_read_flat_int  (const CrTensor  *t,
                                    gint64           index);

/* x.to(device, dtype) as an op: a copy on device in dtype, recorded as
 * ToCopyBackward0 (args.dtype = x's dtype). x itself (new ref) when nothing
 * changes. NOTE: the backward of ToCopyBackward0 (core/ops) casts the
 * gradient back; it must also move it back to the input's device. */
CrTensor *cr_to_device             (CrTensor        *x,
                                    CrDeviceType     device,
                                    CrDType          dtype,
                                    GError         **error);

/* torch.cuda.synchronize(): waits for every queued kernel; reports the first
 * asynchronous CUDA error as a RuntimeError. TRUE without a backend. */
gboolean  cr_cuda_synchronize      (GError         **error);

/* For tests: the elements of a CUDA convolution's column matrix per chunk
 * of the batch (0: the default, 16M), so that small cases take several
 * chunks. */
void      cr_cuda_set_conv_chunk_elements (gint64 elements);

/* The error of an op that got tensors on two devices, with PyTorch's text:
 * "Expected all tensors to be on the same device, but found at least two
 * devices, cuda:0 and cpu!" (first, second in operand order). */
void      cr_set_mixed_device_error (GError        **error,
                                    CrDeviceType     first,
                                    CrDeviceType     second);

G_END_DECLS
