/* cr-cuda-abi.h — the plain C contract between the engine (core/cuda/) and the
 * loadable CUDA module (gpu/, libchainrule-cuda.so).
 *
 * The module is a kernel library: it knows nothing of CrTensor, GLib or
 * autograd. core/cr-device.c opens it with GModule and calls its one entry,
 * cr_cuda_module_get_api(), which fills a CrCudaApi table of function pointers.
 * core/cuda/cr-cuda-backend.c builds the engine's CrBackend (core/cpu/
 * cr-backend.h) on top of that table: it checks shapes and dtypes, broadcasts,
 * promotes, allocates outputs and turns error codes into Python exceptions.
 * So the kernels below may assume the preconditions each one lists; breaking
 * one is a bug in core, and a kernel that notices it returns
 * CR_CUDA_ERR_INVALID rather than crashing.
 *
 * This header is included by C (core, gnu11) and by CUDA C++ (the .cu files of gpu/, C++17),
 * and needs only <stddef.h>, <stdint.h> and the op lists of core/ (cr-unary-ops.def,
 * cr-unary-rule.h, cr-binary-ops.def, cr-binary-rule.h: plain C, no GLib).
 *
 * ---- Conventions ----------------------------------------------------------
 *
 * Results. Every function returns CR_CUDA_OK (0) or a CrCudaStatus code, and on
 * failure writes a one-line, NUL-terminated message into the caller's buffer
 * (msg, msg_size; msg may be NULL or msg_size 0: then nothing is written). No
 * function exits, aborts, throws or prints. After a failed launch the module
 * clears CUDA's non-sticky error state (cudaGetLastError) so the next call
 * starts clean; a sticky error (a kernel fault) makes every later call fail
 * with CR_CUDA_ERR_RUNTIME, which core reports as PyTorch does ("CUDA error:
 * ...").
 *
 * Tensors. A tensor argument is a const CrCudaTensor * (below): the device base
 * pointer of its storage, dtype, ndim (0..8), shape, strides and offset, both
 * in ELEMENTS. Element i (multi-index i_0..i_{n-1}) is at
 *   ((T *) data)[offset + sum_d i_d * strides[d]].
 * Strides may be 0 (broadcast, only for inputs). An elementwise input may
 * also have negative strides (copy from torch.flip's view); every other
 * stride is nonnegative. An ndim-0 tensor holds one element.
 * Shapes are ALREADY BROADCAST by core: for the elementwise kernels every
 * operand has exactly out's ndim and shape (a broadcast input has stride 0
 * where it was expanded), so a kernel never broadcasts itself. numel may be 0:
 * then the kernel does nothing and returns CR_CUDA_OK (it must not launch a
 * grid of 0 blocks, which is a CUDA error).
 *
 * Outputs. Output tensors are written through their strides too (out may be a
 * strided view for the *_into ops), but core guarantees an output never
 * overlaps an input partially: it is either disjoint from every input or
 * exactly equal to one (same data, offset, shape and strides: the in-place
 * case out = a, which an elementwise kernel handles naturally because each
 * thread reads element i and then writes element i). Outputs never have
 * stride 0 on a dim of size > 1.
 *
 * Streams and synchronisation. The module owns ONE non-blocking stream; every
 * kernel, memset and device-to-device copy is enqueued on it and the call
 * returns without waiting (asynchronous). Functions that hand a value to the
 * host wait for the stream and say so: copy_d2h, synchronize, count_nonzero,
 * allclose, take and put (the last two to report a bad index as the CPU does).
 * Because there is one stream, a block freed to the caching allocator may be
 * reused by the next kernel without events: stream order keeps the old reads
 * before the new writes.
 *
 * Dtypes. CrCudaDType values equal the engine's CrDType (core/cr-types.h);
 * core/cuda checks that with static asserts. bool is one byte, 0 or 1 (a
 * kernel that writes bool writes exactly 0 or 1). Each kernel lists the dtypes
 * it must accept; for any other it returns CR_CUDA_ERR_UNSUPPORTED with a
 * message naming the kernel and dtype, e.g. "\"abs_cuda\" not implemented for
 * 'Bool'" (core usually checks first and gives PyTorch's own text).
 *
 * Indexing. Element counts and offsets are int64_t throughout; a kernel must
 * not assume numel < 2^31 (use 64-bit linear indices, or grid-stride loops).
 *
 * Op codes. CrCudaUnaryOp and CrCudaBinaryOp have the values of the engine's
 * CrUnaryOp and CrBinaryOp: both are generated from core's op lists
 * (cr-unary-ops.def, cr-binary-ops.def), checked by static asserts in
 * core/cuda; a new op is a new row at the end of its list.
 *
 * CrBackend members and the kernels they use (core/cuda):
 *   unary, binary(_into), add_scaled(_into), clamp, where, fill -> the kernel
 *     of the same name (operands cast to the compute dtype with copy first);
 *   copy_into, cast, contiguous copies, cat -> copy (cat: one copy into each
 *     slice of the output); host <-> device -> copy_h2d / copy_d2h (+ copy
 *     for a strided side);
 *   sum, mean, prod, sum_to_shape, max_all, any, all -> reduce (any/all then
 *     copy_d2h of one bool); max_dim, argmax -> max_dim (argmax: values NULL);
 *   softmax(_backward), allclose, take, put -> the kernel of the same name;
 *   mm, bmm -> gemm; nonzero_flat -> count_nonzero, then nonzero_flat.
 *   conv2d, conv2d_input_grad, conv2d_weight_grad -> im2col / col2im and
 *     gemm (batch = groups), copy for the layout changes, add_scaled for the
 *     bias; the pooling members -> the kernel of the same name.
 * Random numbers are not in the ABI: they are made on the CPU by the
 * engine's seeded generator and copied, so a seed gives the same numbers on
 * both devices.
 *
 * Versioning. CR_CUDA_ABI_VERSION changes whenever a member of CrCudaApi,
 * CrCudaTensor or an enum changes meaning or position. get_api refuses a
 * different version, so a stale module is "not available", never a crash.
 *
 * Kernel entry points. Each table member (past the memory group, which lives
 * in gpu/cr-cuda-module.cu and gpu/cr-cuda-memory.cu) is an extern "C"
 * function named cr_cuda_k_<member> with the member's signature, defined in
 * one of gpu/cr-cuda-{elementwise,reduce,softmax,matmul,index,conv,pool}.cu. The module
 * refers to them as WEAK symbols (CR_CUDA_KERNEL_WEAK, gpu/cr-cuda-private.h), so a kernel not
 * written yet leaves its member NULL and core reports "<op> is not implemented
 * on CUDA yet" instead of failing to link. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "../core/cr-unary-rule.h"
#include "../core/cr-binary-rule.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_CUDA_ABI_VERSION 2   /* 2: int32/uint8, the binary rows, unary parameters, conv and pool */
#define CR_CUDA_MAX_DIMS    8

/* ---- status codes -------------------------------------------------------- */

typedef enum {
  CR_CUDA_OK                = 0,
  CR_CUDA_ERR_OUT_OF_MEMORY = 1,  /* cudaMalloc failed even after emptying the cache */
  CR_CUDA_ERR_RUNTIME       = 2,  /* a CUDA runtime error; msg: cudaGetErrorString (name) */
  CR_CUDA_ERR_CUBLAS        = 3,  /* a cuBLAS status; msg: "CUBLAS_STATUS_... when calling ..." */
  CR_CUDA_ERR_UNSUPPORTED   = 4,  /* dtype or op the kernel does not handle */
  CR_CUDA_ERR_INVALID       = 5,  /* a broken precondition (a bug in core) */
  CR_CUDA_ERR_INDEX         = 6,  /* take/put: msg is PyTorch's IndexError text */
  CR_CUDA_ERR_NO_DEVICE     = 7,  /* no driver / no device (device_count, init) */
  CR_CUDA_ERR_ABI           = 8,  /* get_api: the caller wants another ABI version */
} CrCudaStatus;

/* ---- dtypes and tensors --------------------------------------------------- */

typedef enum {
  CR_CUDA_BOOL    = 0,   /* uint8_t, 0 or 1 */
  CR_CUDA_INT64   = 1,   /* int64_t */
  CR_CUDA_FLOAT32 = 2,   /* float */
  CR_CUDA_FLOAT64 = 3,   /* double */
  CR_CUDA_INT32   = 4,   /* int32_t */
  CR_CUDA_UINT8   = 5,   /* uint8_t, 0..255 */
  CR_CUDA_DTYPE_COUNT
} CrCudaDType;

typedef struct {
  void    *data;                          /* device pointer: the storage's base */
  int32_t  dtype;                         /* CrCudaDType */
  int32_t  ndim;                          /* 0..CR_CUDA_MAX_DIMS */
  int64_t  offset;                        /* elements from data to element 0 */
  int64_t  shape[CR_CUDA_MAX_DIMS];       /* entries >= ndim are unused */
  int64_t  strides[CR_CUDA_MAX_DIMS];     /* elements (see "Tensors" above) */
} CrCudaTensor;

/* The elementwise members' promise about an operand t: out's ndim and shape,
 * an offset >= 0, and storage wherever there are elements (out_numel > 0).
 * The module refuses a broken promise with CR_CUDA_ERR_INVALID, and the tests'
 * mock module checks it with this same function. */
static inline int
cr_cuda_operand_matches_output (const CrCudaTensor *t,
                                const CrCudaTensor *out,
                                int64_t             out_numel)
{
  if (t->ndim != out->ndim || t->offset < 0 || (t->data == NULL && out_numel > 0))
    return 0;
  for (int d = 0; d < out->ndim; d++)
    if (t->shape[d] != out->shape[d])
      return 0;
  return 1;
}

/* ---- op codes (values = core's CrUnaryOp / CrBinaryOp) --------------------- */

/* Generated from the op list, which keeps the first values in place: a new
 * op is a new value at the end (core/cr-unary-ops.def says what each op
 * computes for each dtype). */
typedef enum {
#define CR_UNARY_OP(ID, ...) CR_CUDA_UNARY_##ID,
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
  CR_CUDA_UNARY_COUNT
} CrCudaUnaryOp;

/* Whether unary op computes in dtype itself (core has cast x to it): its
 * row's rule (core/cr-unary-rule.h, core's own) and CUDA column; the module
 * and the tests' mock both ask. */
#ifdef __cplusplus
#define CR_CUDA_CONSTEXPR constexpr
#else
#define CR_CUDA_CONSTEXPR
#endif
#define CR_CUDA_HAS_KERNEL_VEC      1
#define CR_CUDA_HAS_KERNEL_SCALAR   1
#define CR_CUDA_HAS_KERNEL_CPU_ONLY 0

static inline CR_CUDA_CONSTEXPR int
cr_cuda_unary_rule (int op)
{
  switch (op)
    {
#define CR_UNARY_OP(ID, name, alias, rule, ...) \
    case CR_CUDA_UNARY_##ID: return CR_UNARY_RULE_##rule;
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
    default:
      return -1;
    }
}

static inline CR_CUDA_CONSTEXPR int
cr_cuda_unary_takes (int op, int dtype)
{
  switch (op)
    {
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, ...) \
    case CR_CUDA_UNARY_##ID: \
      return CR_CUDA_HAS_KERNEL_##vec && cr_unary_rule_takes (CR_UNARY_RULE_##rule, dtype);
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
    default:
      return 0;
    }
}

typedef enum {
#define CR_BINARY_OP(ID, ...) CR_CUDA_BINARY_##ID,
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "../core/cr-binary-ops.def"
  CR_CUDA_BINARY_COUNT
} CrCudaBinaryOp;

/* The dtype binary op computes in when its operands promote to promoted
 * (core has cast a and b to it), or -1 for one the row's rule refuses
 * (core/cr-binary-rule.h, core's own); the module and the tests' mock both
 * ask. */
static inline CR_CUDA_CONSTEXPR int
cr_cuda_binary_rule (int op)
{
  switch (op)
    {
#define CR_BINARY_OP(ID, name, alias, rule, ...) \
    case CR_CUDA_BINARY_##ID: return CR_BINARY_RULE_##rule;
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "../core/cr-binary-ops.def"
    default:
      return -1;
    }
}

/* Whether binary op takes operands of dtype (the compute dtype core chose). */
static inline CR_CUDA_CONSTEXPR int
cr_cuda_binary_takes (int op, int dtype)
{
  return cr_cuda_binary_rule (op) >= 0
         && cr_binary_rule_compute (cr_cuda_binary_rule (op), dtype) == dtype;
}

typedef enum {
  CR_CUDA_REDUCE_SUM,
  CR_CUDA_REDUCE_PROD,
  CR_CUDA_REDUCE_MEAN,    /* sum / (number of reduced elements); 0 elements: NaN */
  CR_CUDA_REDUCE_MAX,     /* NaN propagates; never called on 0 elements */
  CR_CUDA_REDUCE_MIN,
  CR_CUDA_REDUCE_ANY,     /* out bool: some element != 0; 0 elements: false */
  CR_CUDA_REDUCE_ALL,     /* out bool: every element != 0; 0 elements: true */
  CR_CUDA_REDUCE_COUNT
} CrCudaReduceOp;

typedef struct {
  size_t allocated;        /* bytes in blocks handed out (rounded sizes) */
  size_t peak_allocated;
  size_t reserved;         /* bytes obtained from cudaMalloc (in use + cached) */
  size_t peak_reserved;
  uint64_t n_allocs;       /* calls to malloc */
  uint64_t n_cuda_mallocs; /* of which went to cudaMalloc (cache misses) */
} CrCudaMemoryStats;

/* The message buffer every function takes last. */
#define CR_CUDA_MSG char *msg, size_t msg_size

/* Convolution geometry for im2col / col2im (cr-kernels-conv.h's
 * CrConvGeom plus the kernel and output sizes): output position (oy, ox)
 * and tap (i, j) read input (oy*stride[0] - padding[0] + i*dilation[0],
 * ox*stride[1] - padding[1] + j*dilation[1]); out[] = (oh, ow). */
typedef struct {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  int64_t out[2];
} CrCudaConvGeom;

/* Pooling geometry: core's CrPoolGeom (core/cpu/cr-kernels-conv.h says what
 * each field means; the windows and divisors are the CPU's exactly). */
typedef struct {
  int32_t adaptive;
  int32_t count_include_pad;
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  int64_t in[2];               /* H, W */
  int64_t out[2];              /* oh, ow */
  int64_t divisor_override;    /* 0: none */
} CrCudaPoolGeom;

/* ---- the table -------------------------------------------------------------
 *
 * Members are grouped; core treats a NULL member as "not implemented on CUDA
 * yet". The memory group is never NULL in a module that get_api accepts. */
typedef struct CrCudaApi {
  int    abi_version;   /* CR_CUDA_ABI_VERSION, set by get_api */
  size_t struct_size;   /* sizeof (CrCudaApi) as the module knows it */

  /* == Devices (gpu/cr-cuda-module.cu); synchronous, no stream needed ====== */

  /* Number of CUDA devices. No driver / no device: CR_CUDA_ERR_NO_DEVICE with
   * the runtime's message ("no CUDA-capable device is detected"). */
  int (*device_count)  (int *out_count, CR_CUDA_MSG);
  /* Marketing name of device ("NVIDIA H100 80GB HBM3") into name/name_size. */
  int (*device_name)   (int device, char *name, size_t name_size, CR_CUDA_MSG);
  /* Compute capability (9, 0 on H100/H200). */
  int (*device_capability) (int device, int *out_major, int *out_minor, CR_CUDA_MSG);
  /* Selects device 0, creates the stream and the cuBLAS handle (lazily, on
   * first gemm). Idempotent; every other function below may assume it has
   * succeeded. Core calls it once, right after get_api. */
  int (*init)          (CR_CUDA_MSG);
  /* cudaMemGetInfo: free and total bytes on the device. */
  int (*mem_get_info)  (size_t *out_free, size_t *out_total, CR_CUDA_MSG);

  /* == Memory (gpu/cr-cuda-memory.cu) ====================================== *
   * A caching allocator: blocks are rounded up (512 B granularity below 1 MiB,
   * 2 MiB above) and kept in size-keyed free lists when freed; malloc reuses a
   * cached block of the same rounded size before calling cudaMalloc. When
   * cudaMalloc fails, the cache is released (cudaFree of every cached block,
   * after a stream synchronize) and cudaMalloc is tried once more. Thread-safe
   * (a mutex), as the interpreter may run scripts off the UI thread. */

  /* *out_ptr = a device block of at least nbytes (256-byte aligned); nbytes 0
   * gives a valid unique non-NULL pointer. Failure: CR_CUDA_ERR_OUT_OF_MEMORY,
   * msg: the runtime's text. Not zeroed. */
  int (*malloc)        (size_t nbytes, void **out_ptr, CR_CUDA_MSG);
  /* Returns ptr (from malloc; NULL is a no-op) to the cache. Never waits. */
  int (*free)          (void *ptr, CR_CUDA_MSG);
  /* cudaFree every cached (unused) block, after synchronizing the stream. */
  int (*empty_cache)   (CR_CUDA_MSG);
  int (*memory_stats)  (CrCudaMemoryStats *out, CR_CUDA_MSG);

  /* Byte fill of nbytes at dst (cudaMemsetAsync). Asynchronous. */
  int (*memset)        (void *dst, int byte_value, size_t nbytes, CR_CUDA_MSG);
  /* Host (pageable) -> device. Returns once src may be reused or freed by the
   * caller (the runtime has staged it); the device copy is ordered on the
   * stream before every later kernel. */
  int (*copy_h2d)      (void *dst_device, const void *src_host, size_t nbytes, CR_CUDA_MSG);
  /* Device -> host. SYNCHRONOUS: waits for every earlier kernel on the stream
   * (so it also reports their asynchronous errors) and for the copy. */
  int (*copy_d2h)      (void *dst_host, const void *src_device, size_t nbytes, CR_CUDA_MSG);
  /* Device -> device, nbytes, the ranges do not overlap. Asynchronous. */
  int (*copy_d2d)      (void *dst_device, const void *src_device, size_t nbytes, CR_CUDA_MSG);
  /* Waits for the stream; reports the first asynchronous error. */
  int (*synchronize)   (CR_CUDA_MSG);

  /* == Elementwise (gpu/cr-cuda-elementwise.cu); all asynchronous ========= *
   * All operands have out's shape (broadcast by core: stride 0). */

  /* out = op(x): the row of op in core/cr-unary-ops.def. dtypes: the
   * compute dtype of the row's rule (core casts first), for every op except
   * the LOGICAL ones, whose out is bool and x any dtype; the values are the
   * row's F, D, I, B expressions, computed with CUDA's precise functions
   * (sigmoid 1/(1+exp(-x)), relu x > 0 ? x : 0 (NaN -> NaN), sign -1/0/1 with
   * sign(NaN) = 0, rsqrt 1/sqrt, round half to even). A dtype the rule
   * refuses, or a CPU_ONLY row: CR_CUDA_ERR_UNSUPPORTED. */
  int (*unary)         (int op, const CrCudaTensor *out, const CrCudaTensor *x, CR_CUDA_MSG);

  /* out = op(a, b): the row of op in core/cr-binary-ops.def. dtypes:
   * a->dtype == b->dtype == the compute dtype of the row's rule (core has
   * promoted and cast; cr_cuda_binary_takes), out->dtype that or bool for
   * the COMPARE rows (EQ..LOGICAL_OR); the values are the row's F, D, I, B
   * expressions. int64 FLOOR_DIVIDE/REMAINDER/FMOD with b == 0 write 0 (the
   * CPU raises "ZeroDivisionError" first, as core does after counting b's
   * zeros; a GPU run must not fault). int64 POW with a negative exponent: 1
   * if a == 1, (-1)^b if a == -1, else 0 (core rejects it as PyTorch does
   * when it can see it). A float POW whose b is one value takes the CPU's
   * short cuts for exponents 2, 3, 0.5, -0.5, -1, -2. A dtype the rule
   * refuses: CR_CUDA_ERR_UNSUPPORTED. */
  int (*binary)        (int op, const CrCudaTensor *out, const CrCudaTensor *a,
                        const CrCudaTensor *b, CR_CUDA_MSG);

  /* out = a + alpha * b; one dtype for all three (float32/float64/int64; for
   * int64 alpha is an integer value). out may equal a (in place). */
  int (*add_scaled)    (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
                        double alpha, CR_CUDA_MSG);

  /* out = min(max(x, lo), hi) for the bounds that apply; NaN stays NaN, and
   * so does x with a single NaN bound; both bounds given and one NaN gives
   * NaN everywhere (PyTorch 1.13). x->dtype == out->dtype (float32/float64/
   * int64; for int64 the bounds are whole numbers in [-2^63, 2^63], 2^63
   * meaning INT64_MAX). */
  int (*clamp)         (const CrCudaTensor *out, const CrCudaTensor *x, int has_min, double min,
                        int has_max, double max, CR_CUDA_MSG);

  /* out = cond != 0 ? a : b. cond is bool; a, b, out one dtype (any of the 4). */
  int (*where)         (const CrCudaTensor *out, const CrCudaTensor *cond, const CrCudaTensor *a,
                        const CrCudaTensor *b, CR_CUDA_MSG);

  /* Every element of out = value converted to out's dtype as a C cast does
   * (bool: value != 0). Any dtype, any strides. */
  int (*fill)          (const CrCudaTensor *out, double value, CR_CUDA_MSG);

  /* out = (out's dtype) src, elementwise, through both sets of strides; the
   * cast of the CPU's cr_cpu_convert_scalar: float -> int64 truncates, int64
   * -> float rounds, anything -> bool is != 0 (NaN -> 1), bool -> 0/1. Any
   * dtype pair. src has out's shape (stride 0 where broadcast); out and src
   * do not overlap (core copies first when they would). */
  int (*copy)          (const CrCudaTensor *out, const CrCudaTensor *src, CR_CUDA_MSG);

  /* == Reductions (gpu/cr-cuda-reduce.cu) ================================= */

  /* out = op over the dims d with bit d of dims_mask set. out->ndim ==
   * x->ndim, out->shape[d] == 1 for reduced dims and x->shape[d] otherwise
   * (keepdim layout; core reshapes). dims_mask == 0 copies (a reduction over
   * no dim). dtypes: SUM PROD MEAN MAX MIN: x->dtype == out->dtype (float32/
   * float64/int64; MEAN float only; core casts bool/int64 for sum to int64
   * first); ANY/ALL: x any dtype, out bool. Accumulate float32 in float and
   * float64 in double; the order of additions is free (core's tests compare
   * with a tolerance). Asynchronous. */
  int (*reduce)        (int op, const CrCudaTensor *out, const CrCudaTensor *x,
                        uint32_t dims_mask, CR_CUDA_MSG);

  /* Max (or min when is_min) along dim with its position: values (may be NULL:
   * argmax) and indices (int64) have x's shape with shape[dim] == 1. The
   * index is the FIRST position of the extreme value; a NaN is the extreme
   * (the first NaN wins), as PyTorch. x: float32/float64/int64/bool, values
   * the same dtype. x->shape[dim] >= 1 (core raises for 0). x->ndim >= 1
   * (core views a 0-d tensor as shape [1]). Asynchronous. */
  int (*max_dim)       (const CrCudaTensor *values, const CrCudaTensor *indices,
                        const CrCudaTensor *x, int dim, int is_min, CR_CUDA_MSG);

  /* *out_result = 1 when |a - b| <= atol + rtol * |b| for every element (NaN
   * never close; inf close only to the same inf), else 0. a, b: the same
   * shape (broadcast) and dtype (float32/float64; int64/bool compare exactly).
   * SYNCHRONOUS. */
  int (*allclose)      (const CrCudaTensor *a, const CrCudaTensor *b, double rtol, double atol,
                        int *out_result, CR_CUDA_MSG);

  /* == Softmax (gpu/cr-cuda-softmax.cu); asynchronous ===================== */

  /* out = softmax(x) (log_softmax when log) along dim (0 <= dim < ndim;
   * core views 0-d as [1]). x, out: one float dtype, x's shape. Stable
   * (subtract the max). */
  int (*softmax)       (const CrCudaTensor *out, const CrCudaTensor *x, int dim, int log,
                        CR_CUDA_MSG);
  /* grad_in = out * (grad - sum(grad * out, dim))       (softmax)
   * grad_in = grad - exp(out) * sum(grad, dim)          (log_softmax)
   * grad, out, grad_in: one float dtype, one shape. */
  int (*softmax_backward) (const CrCudaTensor *grad_in, const CrCudaTensor *grad,
                        const CrCudaTensor *out, int dim, int log, CR_CUDA_MSG);

  /* == Matrix products (gpu/cr-cuda-matmul.cu, cuBLAS); asynchronous ====== */

  /* out[i] = a[i] @ b[i] for i < B: a (B, n, k), b (B, k, m), out (B, n, m),
   * all ndim 3, one dtype (float32: cublasSgemmStridedBatched, float64: D).
   * Each matrix of a and b is either row-major (strides[2] == 1, strides[1]
   * >= max(1, last dim)) or column-major (strides[1] == 1, strides[2] >=
   * max(1, rows)): a transposed contiguous tensor is passed as is and becomes
   * a cuBLAS transpose flag; core copies anything else. The batch stride
   * strides[0] may be 0 (the same matrix for every i). out is contiguous.
   * k == 0 writes zeros. B, n, m, k fit in int (core checks). Uses the
   * module's stream (cublasSetStream) and no tensor-core TF32 for float32
   * (CUBLAS_DEFAULT_MATH, as PyTorch 1.13's allow_tf32 = False default). */
  int (*gemm)          (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
                        CR_CUDA_MSG);

  /* == Indexing (gpu/cr-cuda-index.cu) ==================================== */

  /* out[i] = x[flat position index[i]] where a flat position counts x's
   * elements in row-major LOGICAL order (through x's strides); negative
   * positions wrap once (p + numel(x)). index: int64, any strides, out's shape;
   * out: x's dtype, contiguous. A position outside [-numel, numel) makes the
   * call fail with CR_CUDA_ERR_INDEX and msg "index 5 is out of bounds for
   * dimension 0 with size 3" (the first offending index in index order, or any
   * one). SYNCHRONOUS (to read the error flag back). */
  int (*take)          (const CrCudaTensor *out, const CrCudaTensor *x,
                        const CrCudaTensor *index, CR_CUDA_MSG);
  /* dst[flat position index[i]] = values[i] (or += when accumulate; bool
   * accumulates with |), through dst's strides. values: dst's dtype, index's
   * shape (broadcast by core), any strides; index int64. Positions wrap and
   * fail as in take; when a position fails nothing is written (check first).
   * Without accumulate, duplicate positions leave one of the values (which is
   * unspecified, as in PyTorch on CUDA); with accumulate every value is added
   * (atomicAdd: float32, float64, int64 as unsigned long long). SYNCHRONOUS. */
  int (*put)           (const CrCudaTensor *dst, const CrCudaTensor *index,
                        const CrCudaTensor *values, int accumulate, CR_CUDA_MSG);
  /* *out_count = number of elements != 0 (NaN counts) of x (any dtype).
   * SYNCHRONOUS. */
  int (*count_nonzero) (const CrCudaTensor *x, int64_t *out_count, CR_CUDA_MSG);
  /* out (int64, 1-d, contiguous, count_nonzero(mask) elements) = the flat
   * logical positions of mask's nonzero elements, ascending. Asynchronous. */
  int (*nonzero_flat)  (const CrCudaTensor *out, const CrCudaTensor *mask, CR_CUDA_MSG);
  /* == Convolution and pooling (gpu/cr-cuda-conv.cu, gpu/cr-cuda-pool.cu);
   * asynchronous. core/cuda/cr-cuda-conv.c builds conv2d and its two
   * adjoints from im2col / col2im and gemm, as the CPU does. ============== */

  /* cols (C*kh*kw, nb*oh*ow), row (c*kh + i)*kw + j, column b*oh*ow +
   * oy*ow + ox = x[b, c] at tap (i, j) of output (oy, ox), 0 in the
   * padding. x (nb, C, H, W), any strides; cols any strides (contiguous in
   * practice), cols' shape as stated (else CR_CUDA_ERR_INVALID). dtypes:
   * float32/float64/int64, one for both. */
  int (*im2col)        (const CrCudaTensor *cols, const CrCudaTensor *x,
                        const CrCudaConvGeom *geom, CR_CUDA_MSG);
  /* The adjoint: x[b, c, y, x] = the sum of the cols entries that im2col
   * would read from it, in (i, j, oy, ox) order; every element of x is
   * WRITTEN (not accumulated), 0 where no tap reads it. Gathers, so no
   * atomics and the CPU's order of additions per element. */
  int (*col2im)        (const CrCudaTensor *x, const CrCudaTensor *cols,
                        const CrCudaConvGeom *geom, CR_CUDA_MSG);
  /* Max over each window of the planes x (P, H, W) -> values (P, oh, ow)
   * and int64 indices (flat y*W + x in the plane): taps in row-major
   * order, the first maximum wins, every NaN replaces the maximum (the
   * CPU's rule). float32/float64; values x's dtype; any strides. */
  int (*max_pool2d)    (const CrCudaTensor *values, const CrCudaTensor *indices,
                        const CrCudaTensor *x, const CrCudaPoolGeom *geom, CR_CUDA_MSG);
  /* gx (P, H, W) = gy (P, oh, ow) summed at indices (P, oh, ow), every
   * element of gx written (a gather over the windows that hold it, in
   * ascending output order: the CPU's order). Indices outside the plane are
   * ignored. float32/float64. */
  int (*max_pool2d_backward) (const CrCudaTensor *gx, const CrCudaTensor *gy,
                        const CrCudaTensor *indices, const CrCudaPoolGeom *geom, CR_CUDA_MSG);
  /* out (P, oh, ow) = g (P, H, W) at indices (double backward); an index
   * outside the plane gives 0. float32/float64. */
  int (*max_pool2d_gather) (const CrCudaTensor *out, const CrCudaTensor *g,
                        const CrCudaTensor *indices, const CrCudaPoolGeom *geom, CR_CUDA_MSG);
  /* out (P, oh, ow) = window sums / divisor (cr-kernels-conv.h); an empty
   * window gives 0. float32/float64, and int64 when not adaptive (C's
   * division). */
  int (*avg_pool2d)    (const CrCudaTensor *out, const CrCudaTensor *x,
                        const CrCudaPoolGeom *geom, CR_CUDA_MSG);
  /* The adjoint: gx (P, H, W), every element written, = the sum of gy /
   * divisor over the windows that hold it, in ascending output order.
   * float32/float64. */
  int (*avg_pool2d_backward) (const CrCudaTensor *gx, const CrCudaTensor *gy,
                        const CrCudaPoolGeom *geom, CR_CUDA_MSG);

  /* == Unary rows with parameters (gpu/cr-cuda-elementwise.cu) ============= */

  /* unary for a row of core/cr-unary-ops.def with a params column (hardtanh,
   * leaky_relu, elu, softplus, gelu, ...): params holds 3 doubles, P0 P1 P2
   * of the row's expressions (the module copies them before returning).
   * Everything else as unary. Asynchronous. */
  int (*unary_params)  (int op, const CrCudaTensor *out, const CrCudaTensor *x,
                        const double *params, CR_CUDA_MSG);
} CrCudaApi;

/* The module's one exported entry. Fills *api (every member; unwritten kernels
 * NULL) when abi_version == CR_CUDA_ABI_VERSION and returns CR_CUDA_OK, else
 * CR_CUDA_ERR_ABI and leaves *api zeroed. Does not touch the GPU, so it
 * succeeds on a machine without a driver. */
typedef int (*CrCudaGetApiFunc) (int abi_version, CrCudaApi *api);
#define CR_CUDA_GET_API_SYMBOL "cr_cuda_module_get_api"

/* The kernel files' definitions (cr_cuda_k_<member>) and the services they
 * share with gpu/cr-cuda-memory.cu (the stream, scratch memory, error
 * messages) are declared in gpu/cr-cuda-private.h, which core never sees. */


#ifdef __cplusplus
}
#endif
