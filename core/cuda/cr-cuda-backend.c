/* cr-cuda-backend.c — the CrBackend of CR_DEVICE_CUDA on top of the module's
 * kernel ABI (gpu/cr-cuda-abi.h).
 *
 * The engine's cr_kernel_* functions send any call that involves a CUDA
 * tensor here (cr-backend.h). This file does what the CPU kernels do before
 * their loops: PyTorch's dtype rules and messages, broadcasting (an expanded
 * operand gets stride 0), output allocation on the device; then one ABI call.
 * A kernel the module does not have (a NULL member) is a RuntimeError "<op>
 * is not implemented on CUDA yet"; a CUDA failure is a RuntimeError with
 * PyTorch's wording. Nothing here waits for the GPU except where a value
 * must reach the host (any/all/allclose, take/put index checks, nonzero's
 * count, copies to the host).
 *
 * A 0-d CPU tensor may meet CUDA tensors (a Python number, `x * 2`, or
 * torch.tensor(2.)), as in PyTorch: it is uploaded. Any other CPU tensor is
 * the mixed-device RuntimeError. */
#include "cr-cuda.h"
#include "cr-cuda-private.h"
#include "cr-ops.h"
#include "cr-ops-private.h"
#include "cr-node.h"

#include <math.h>
#include <string.h>

/* The ABI's codes are the engine's, by value. */
#define SAME(a, b) G_STATIC_ASSERT ((int) (a) == (int) (b))
SAME (CR_CUDA_BOOL, CR_DTYPE_BOOL); SAME (CR_CUDA_INT64, CR_DTYPE_INT64);
SAME (CR_CUDA_FLOAT32, CR_DTYPE_FLOAT32); SAME (CR_CUDA_FLOAT64, CR_DTYPE_FLOAT64);
SAME (CR_CUDA_DTYPE_COUNT, CR_DTYPE_COUNT); SAME (CR_CUDA_MAX_DIMS, CR_MAX_DIMS);
#define CR_UNARY_OP(ID, ...) SAME (CR_CUDA_UNARY_##ID, CR_UNARY_##ID);
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "cr-unary-ops.def"
SAME (CR_CUDA_UNARY_COUNT, CR_UNARY_COUNT);
#define CR_BINARY_OP(ID, ...) SAME (CR_CUDA_BINARY_##ID, CR_BINARY_##ID);
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "cr-binary-ops.def"
SAME (CR_CUDA_BINARY_COUNT, CR_BINARY_COUNT);
#undef SAME

const CrCudaApi *cr_cuda_api;
#define api cr_cuda_api
#define MSG_SIZE CR_CUDA_MSG_SIZE
#define CALL CR_CUDA_CALL
#define check cr_cuda_check
#define describe cr_cuda_describe
#define describe_expanded cr_cuda_describe_expanded
#define new_out cr_cuda_new_out
#define as_dtype cr_cuda_as_dtype
#define contiguous cr_cuda_contiguous
#define operand cr_cuda_operand

/* ---- errors ------------------------------------------------------------------ */

/* "2.00 GiB" as PyTorch's format_size. */
static void
format_size (char *buf, gsize size, guint64 bytes)
{
  if (bytes < 1024)
    g_snprintf (buf, size, "%" G_GUINT64_FORMAT " bytes", bytes);
  else if (bytes < (guint64) 1 << 20)
    g_snprintf (buf, size, "%.2f KiB", bytes / 1024.0);
  else if (bytes < (guint64) 1 << 30)
    g_snprintf (buf, size, "%.2f MiB", bytes / 1048576.0);
  else
    g_snprintf (buf, size, "%.2f GiB", bytes / 1073741824.0);
}

static void
set_oom_error (GError **error, gsize nbytes)
{
  CrCudaMemoryStats stats = { 0 };
  size_t free_b = 0, total_b = 0;
  char msg[MSG_SIZE];
  char s_try[32], s_total[32], s_alloc[32], s_free[32], s_res[32];

  api->memory_stats (&stats, msg, sizeof msg);
  api->mem_get_info (&free_b, &total_b, msg, sizeof msg);
  format_size (s_try, sizeof s_try, nbytes);
  format_size (s_total, sizeof s_total, total_b);
  format_size (s_alloc, sizeof s_alloc, stats.allocated);
  format_size (s_free, sizeof s_free, free_b);
  format_size (s_res, sizeof s_res, stats.reserved);
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "CUDA out of memory. Tried to allocate %s (GPU 0; %s total capacity; %s already "
               "allocated; %s free; %s reserved in total by PyTorch) If reserved memory is >> "
               "allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
               "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
               s_try, s_total, s_alloc, s_free, s_res);
}

/* Turns a failed ABI call into a GError; returns FALSE. */
gboolean
cr_cuda_check (int code, const char *msg, GError **error)
{
  if (code == CR_CUDA_OK)
    return TRUE;
  switch (code)
    {
    case CR_CUDA_ERR_INDEX:
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR, msg);
      break;
    case CR_CUDA_ERR_UNSUPPORTED:
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, msg);
      break;
    case CR_CUDA_ERR_INVALID:
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "internal error in Chainrule's CUDA backend: %s", msg);
      break;
    case CR_CUDA_ERR_OUT_OF_MEMORY:
      /* Scratch memory of a kernel; outputs go through alloc_device. */
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "CUDA out of memory. %s", msg);
      break;
    default:
      /* PyTorch: "CUDA error: an illegal memory access was encountered". */
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "CUDA error: %s", msg);
      break;
    }
  return FALSE;
}

gboolean
cr_cuda_not_implemented (const char *what, GError **error)
{
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "%s is not implemented on CUDA yet", what);
  return FALSE;
}

void
cr_set_mixed_device_error (GError       **error,
                           CrDeviceType   first,
                           CrDeviceType   second)
{
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "Expected all tensors to be on the same device, but found at least two devices, "
               "%s and %s!", cr_device_name (first), cr_device_name (second));
}

/* ---- the storage allocator ------------------------------------------------------ */

static gpointer
alloc_device (gsize nbytes, gboolean zeroed, gpointer *out_backend_data, GError **error)
{
  char msg[MSG_SIZE] = "";
  void *ptr = NULL;
  int code = api->malloc (nbytes, &ptr, msg, sizeof msg);

  *out_backend_data = NULL;
  if (code == CR_CUDA_ERR_OUT_OF_MEMORY)
    {
      set_oom_error (error, nbytes);
      return NULL;
    }
  if (!check (code, msg, error))
    return NULL;
  if (zeroed && !check (api->memset (ptr, 0, nbytes, msg, sizeof msg), msg, error))
    {
      api->free (ptr, msg, sizeof msg);
      return NULL;
    }
  return ptr;
}

static void
free_device (gpointer data, gpointer backend_data)
{
  char msg[MSG_SIZE];
  /* Never fails for a pointer malloc handed out; nothing to report to. */
  api->free (data, msg, sizeof msg);
}

static const CrStorageAllocator device_allocator = { alloc_device, free_device };

/* ---- descriptors ------------------------------------------------------------------ */

void
cr_cuda_describe (const CrTensor *t, CrCudaTensor *d)
{
  memset (d, 0, sizeof *d);
  d->data = t->storage->data;
  d->dtype = t->dtype;
  d->ndim = t->ndim;
  d->offset = t->offset;
  for (int i = 0; i < t->ndim; i++)
    {
      d->shape[i] = t->shape[i];
      d->strides[i] = t->shape[i] == 1 ? 0 : t->strides[i];
    }
}

/* t broadcast to shape (trailing dims aligned; the caller has checked). */
void
cr_cuda_describe_expanded (const CrTensor *t, const gint64 *shape, int ndim, CrCudaTensor *d)
{
  int lead = ndim - t->ndim;

  describe (t, d);
  d->ndim = ndim;
  for (int i = ndim - 1; i >= 0; i--)
    {
      int j = i - lead;
      d->shape[i] = shape[i];
      d->strides[i] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
}

/* A contiguous output tensor described with keepdim geometry: x's ndim, size
 * 1 where reduced (mask), the output's strides elsewhere. */
void
cr_cuda_describe_keepdim (const CrTensor *out, const CrTensor *x, guint32 mask, CrCudaTensor *d)
{
  gint64 stride = 1;

  memset (d, 0, sizeof *d);
  d->data = out->storage->data;
  d->dtype = out->dtype;
  d->ndim = x->ndim;
  d->offset = out->offset;
  for (int i = x->ndim - 1; i >= 0; i--)
    {
      gboolean reduced = (mask >> i) & 1;
      d->shape[i] = reduced ? 1 : x->shape[i];
      d->strides[i] = reduced || d->shape[i] == 1 ? 0 : stride;
      stride *= d->shape[i];
    }
}

CrTensor *
cr_cuda_new_out (const gint64 *shape, int ndim, CrDType dtype, GError **error)
{
  return cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CUDA, error);
}

/* ---- operands ------------------------------------------------------------------- */

/* t as a CUDA operand: a new ref when it is one, an upload of a 0-d CPU
 * tensor, else the mixed-device error (device is the op's CUDA device). */
CrTensor *
cr_cuda_operand (const CrTensor *t, GError **error)
{
  if (t->device == CR_DEVICE_CUDA)
    return cr_tensor_ref ((CrTensor *) t);
  if (t->ndim == 0)
    {
      CrTensor *up = cr_tensor_to_device (t, CR_DEVICE_CUDA, error);
      if (up != NULL)
        up->is_wrapped_number = t->is_wrapped_number;
      return up;
    }
  cr_set_mixed_device_error (error, CR_DEVICE_CUDA, t->device);
  return NULL;
}

/* t converted to dtype on the device (a new ref when it already is). */
CrTensor *
cr_cuda_as_dtype (const CrTensor *t, CrDType dtype, GError **error)
{
  CrCudaTensor dout, dsrc;
  CrTensor *out;

  if (t->dtype == dtype)
    return cr_tensor_ref ((CrTensor *) t);
  out = new_out (t->shape, t->ndim, dtype, error);
  if (out == NULL)
    return NULL;
  describe (out, &dout);
  describe (t, &dsrc);
  if (out->numel > 0 && !CALL (copy, &dout, &dsrc))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

CrTensor *
cr_cuda_contiguous (const CrTensor *t, GError **error)
{
  return cr_tensor_contiguous ((CrTensor *) t, error);
}

/* ---- copies between devices -------------------------------------------------------- */

static gboolean
same_storage (const CrTensor *a, const CrTensor *b)
{
  return a->storage == b->storage;
}

gboolean
cr_cuda_copy_into (CrTensor *dst, const CrTensor *src, GError **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  char msg[MSG_SIZE] = "";

  if (!cr_shape_broadcast (dst->shape, dst->ndim, src->shape, src->ndim, shape, &ndim, error))
    return FALSE;
  if (!cr_shape_equal (shape, ndim, dst->shape, dst->ndim))
    {
      g_autofree char *s1 = cr_shape_to_string (src->shape, src->ndim);
      g_autofree char *s2 = cr_shape_to_string (dst->shape, dst->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "The expanded size of the tensor must match the existing size %s vs %s",
                   s1, s2);
      return FALSE;
    }
  if (dst->numel == 0)
    return TRUE;

  if (dst->device == CR_DEVICE_CUDA && src->device == CR_DEVICE_CUDA)
    {
      CrCudaTensor dd, ds;
      g_autoptr(CrTensor) tmp = NULL;

      /* A source that shares the destination's storage is copied first (the
       * ABI's copy needs disjoint operands; the exact same view is a no-op
       * apart from a cast, which the temporary also covers). */
      if (same_storage (dst, src))
        {
          tmp = cr_tensor_copy (src, error);
          if (tmp == NULL)
            return FALSE;
          src = tmp;
        }
      describe (dst, &dd);
      describe_expanded (src, dst->shape, dst->ndim, &ds);
      return CALL (copy, &dd, &ds);
    }

  if (dst->device == CR_DEVICE_CUDA)
    {
      /* Host -> device: a contiguous host block of dst's shape and dtype,
       * then one upload (into dst directly when it is contiguous). */
      g_autoptr(CrTensor) host = cr_tensor_new_empty (dst->shape, dst->ndim, dst->dtype,
                                                      CR_DEVICE_CPU, error);
      g_autoptr(CrTensor) staging = NULL;
      CrTensor *target = dst;

      if (host == NULL || !cr_kernel_copy_into (host, src, error))
        return FALSE;
      if (!cr_tensor_is_contiguous (dst))
        {
          staging = new_out (dst->shape, dst->ndim, dst->dtype, error);
          if (staging == NULL)
            return FALSE;
          target = staging;
        }
      if (!check (api->copy_h2d (cr_tensor_data (target), cr_tensor_data (host),
                                 host->numel * cr_dtype_size (host->dtype), msg, sizeof msg),
                  msg, error))
        return FALSE;
      if (staging != NULL)
        {
          CrCudaTensor dd, ds;
          describe (dst, &dd);
          describe (staging, &ds);
          return CALL (copy, &dd, &ds);
        }
      return TRUE;
    }

  /* Device -> host: the source contiguous on the device in dst's dtype, one
   * download (synchronous), then the CPU's copy into dst's geometry. */
  {
    g_autoptr(CrTensor) dev = NULL;
    g_autoptr(CrTensor) dev_c = NULL;
    g_autoptr(CrTensor) host = NULL;

    dev = as_dtype (src, dst->dtype, error);
    dev_c = dev != NULL ? contiguous (dev, error) : NULL;
    if (dev_c == NULL)
      return FALSE;
    host = cr_tensor_new_empty (dev_c->shape, dev_c->ndim, dev_c->dtype, CR_DEVICE_CPU, error);
    if (host == NULL
        || !check (api->copy_d2h (cr_tensor_data (host), cr_tensor_data (dev_c),
                                  host->numel * cr_dtype_size (host->dtype), msg, sizeof msg),
                   msg, error))
      return FALSE;
    return cr_kernel_copy_into (dst, host, error);
  }
}

CrTensor *
cr_tensor_to_device (const CrTensor *x, CrDeviceType device, GError **error)
{
  CrTensor *out;

  if (x->device == device)
    return cr_tensor_ref ((CrTensor *) x);
  if (!cr_device_check_usable (device, error))
    return NULL;
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, device, error);
  if (out != NULL && !cr_kernel_copy_into (out, x, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

gboolean
cr_cuda_synchronize (GError **error)
{
  char msg[MSG_SIZE] = "";

  if (api == NULL)
    return TRUE;
  return check (api->synchronize (msg, sizeof msg), msg, error);
}

gboolean
cr_cuda_fill (CrTensor *dst, double value, GError **error)
{
  CrCudaTensor d;

  if (dst->numel == 0)
    return TRUE;
  describe (dst, &d);
  return CALL (fill, &d, value);
}

CrTensor *
cr_cuda_cast (const CrTensor *x, CrDType dtype, GError **error)
{
  g_autoptr(CrTensor) xd = operand (x, error);

  return xd != NULL ? as_dtype (xd, dtype, error) : NULL;
}

/* ---- installation ------------------------------------------------------------------ */

void
cr_cuda_backend_install (const CrCudaApi *table)
{
  g_return_if_fail (table != NULL && api == NULL);
  api = table;
  cr_storage_set_allocator (CR_DEVICE_CUDA, &device_allocator);
  cr_backend_register (CR_DEVICE_CUDA, &cr_cuda_backend);
}

/* ---- single elements for the script layer ------------------------------------------- */

/* Storage offset (elements) of t's logical row-major index. */
static gint64
flat_offset (const CrTensor *t, gint64 index)
{
  gint64 offset = t->offset;

  for (int i = t->ndim - 1; i >= 0; i--)
    {
      gint64 size = t->shape[i];
      offset += (index % size) * t->strides[i];
      index /= size;
    }
  return offset;
}

/* One element of a CUDA tensor into buf (synchronous: every queued kernel
 * finishes first). A failure is reported as a warning and reads 0: the
 * callers (item(), bool(), printing) have no error channel, and the next op
 * reports the same sticky CUDA error properly. */
static void
read_device_element (const CrTensor *t, gint64 index, CrScalarBuf *buf)
{
  char msg[MSG_SIZE] = "";
  gsize isz = cr_dtype_size (t->dtype);
  const char *src = (const char *) t->storage->data + flat_offset (t, index) * (gint64) isz;

  memset (buf, 0, sizeof *buf);
  if (api == NULL || api->copy_d2h (buf, src, isz, msg, sizeof msg) != CR_CUDA_OK)
    g_warning ("reading a CUDA tensor failed: %s", msg);
}

double
cr_tensor_read_flat (const CrTensor *t, gint64 index)
{
  CrScalarBuf buf;

  if (t->device == CR_DEVICE_CPU)
    return cr_tensor_get_flat (t, index);
  read_device_element (t, index, &buf);
  return cr_cpu_load_double (&buf, t->dtype);
}

gint64
cr_tensor_read_flat_int (const CrTensor *t, gint64 index)
{
  CrScalarBuf buf;

  if (t->device == CR_DEVICE_CPU)
    return cr_tensor_get_flat_int (t, index);
  read_device_element (t, index, &buf);
  return t->dtype == CR_DTYPE_INT64 ? buf.i : (gint64) cr_cpu_load_double (&buf, t->dtype);
}

/* ---- the differentiable transfer --------------------------------------------------- */

CrTensor *
cr_to_device (CrTensor *x, CrDeviceType device, CrDType dtype, GError **error)
{
  g_autoptr(CrTensor) moved = NULL;
  CrTensor *out;
  CrNode *node;

  if (x->device == device)
    return cr_to_dtype (x, dtype, error);
  moved = cr_tensor_to_device (x, device, error);
  if (moved == NULL)
    return NULL;
  /* One node for the move (and cast), as PyTorch's ToCopyBackward0; the
   * moved tensor is a fresh copy with no history. */
  out = moved->dtype == dtype ? cr_tensor_ref (moved) : cr_kernel_cast (moved, dtype, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_TO_COPY, &x, 1, out)) != NULL)
    cr_node_args (node)->dtype = x->dtype;
  return out;
}
