/* mock-cuda-module.c — a stand-in for libchainrule-cuda.so that keeps "device"
 * memory on the host, so that the engine's side of the CUDA backend
 * (core/cuda, cr-device.c's loading, the script layer's .cuda()/.cpu()/
 * device=, reprs, sync points, errors) runs on machines without a GPU.
 *
 * It implements the whole ABI with plain loops in double precision on the
 * host (int64 in exact, wrapping integer arithmetic, as the module and the
 * CPU), reading and writing through the descriptors exactly as the ABI says
 * (gemm checks the layout promise). With CHAINRULE_MOCK_CUDA_FEW set it has
 * only copy, fill, binary and reduce, and core must report the others as
 * "... is not implemented on CUDA yet". It says nothing about the real
 * kernels (suite gpu does). A malloc over 1 GiB fails as out of memory.
 * Plain C; loaded through CHAINRULE_CUDA_MODULE. */
#include "gpu/cr-cuda-abi.h"
#include "core/cr-special-math.h"
#include "core/cr-binary-math.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static size_t allocated;

/* CHAINRULE_MOCK_CUDA_GUARD=1: "device" blocks are mapped PROT_NONE outside
 * the module's own calls, so host code of the engine that reads a CUDA
 * tensor's memory directly (as it cannot on a GPU) crashes here too. */
typedef struct Block {
  void         *ptr;
  size_t        size;
  struct Block *next;
} Block;

static Block *blocks;
static int guard = -1;

static int
guarded (void)
{
  if (guard < 0)
    guard = getenv ("CHAINRULE_MOCK_CUDA_GUARD") != NULL;
  return guard;
}

static void
protect_all (int prot)
{
  for (Block *b = blocks; b != NULL; b = b->next)
    mprotect (b->ptr, b->size, prot);
}

#define ENTER() do { if (guarded ()) protect_all (PROT_READ | PROT_WRITE); } while (0)
#define LEAVE() do { if (guarded ()) protect_all (PROT_NONE); } while (0)

static int
set_msg (int code, char *msg, size_t msg_size, const char *format, ...)
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

static int
device_count (int *out_count, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  *out_count = 1;
  return CR_CUDA_OK;
}

static int
device_name (int device, char *name, size_t name_size, char *msg, size_t msg_size)
{
  (void) device; (void) msg; (void) msg_size;
  snprintf (name, name_size, "Mock CUDA device (host memory)");
  return CR_CUDA_OK;
}

static int
init (char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  return CR_CUDA_OK;
}

static int
mem_get_info (size_t *out_free, size_t *out_total, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  *out_total = (size_t) 1 << 30;
  *out_free = *out_total - allocated;
  return CR_CUDA_OK;
}

static int
mock_malloc (size_t nbytes, void **out_ptr, char *msg, size_t msg_size)
{
  if (nbytes > ((size_t) 1 << 30))
    return set_msg (CR_CUDA_ERR_OUT_OF_MEMORY, msg, msg_size, "cudaMalloc: out of memory");
  if (guarded ())
    {
      size_t size = (nbytes + 4095) / 4096 * 4096 + 4096;
      Block *b = malloc (sizeof *b);
      void *p = mmap (NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (b == NULL || p == MAP_FAILED)
        {
          free (b);
          return set_msg (CR_CUDA_ERR_OUT_OF_MEMORY, msg, msg_size, "cudaMalloc: out of memory");
        }
      b->ptr = p;
      b->size = size;
      b->next = blocks;
      blocks = b;
      *out_ptr = p;
    }
  else
    {
      *out_ptr = calloc (1, nbytes > 0 ? nbytes : 1);
      if (*out_ptr == NULL)
        return set_msg (CR_CUDA_ERR_OUT_OF_MEMORY, msg, msg_size, "cudaMalloc: out of memory");
    }
  allocated += nbytes;
  return CR_CUDA_OK;
}

static int
mock_free (void *ptr, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  if (!guarded ())
    {
      free (ptr);
      return CR_CUDA_OK;
    }
  for (Block **b = &blocks; *b != NULL; b = &(*b)->next)
    if ((*b)->ptr == ptr)
      {
        Block *dead = *b;
        *b = dead->next;
        munmap (dead->ptr, dead->size);
        free (dead);
        break;
      }
  return CR_CUDA_OK;
}

static int
empty_cache (char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  return CR_CUDA_OK;
}

static int
memory_stats (CrCudaMemoryStats *out, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  memset (out, 0, sizeof *out);
  out->allocated = out->reserved = allocated;
  return CR_CUDA_OK;
}

static int
mock_memset_impl (void *dst, int value, size_t nbytes, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  memset (dst, value, nbytes);
  return CR_CUDA_OK;
}

static int
mock_copy_bytes_impl (void *dst, const void *src, size_t nbytes, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  memmove (dst, src, nbytes);
  return CR_CUDA_OK;
}

static int
synchronize (char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  return CR_CUDA_OK;
}

/* ---- element access ---------------------------------------------------------- */

static int64_t
numel (const CrCudaTensor *t)
{
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++)
    n *= t->shape[i];
  return n;
}

static void *
element (const CrCudaTensor *t, int64_t index)
{
  static const size_t sizes[] = { 1, 8, 4, 8, 4, 1 };
  int64_t off = t->offset;

  for (int i = t->ndim - 1; i >= 0; i--)
    {
      off += (index % t->shape[i]) * t->strides[i];
      index /= t->shape[i];
    }
  return (char *) t->data + off * (int64_t) sizes[t->dtype];
}

static double
load (const CrCudaTensor *t, int64_t i)
{
  void *p = element (t, i);
  switch (t->dtype)
    {
    case CR_CUDA_BOOL: return *(uint8_t *) p != 0;
    case CR_CUDA_INT64: return (double) *(int64_t *) p;
    case CR_CUDA_FLOAT32: return *(float *) p;
    case CR_CUDA_INT32: return *(int32_t *) p;
    case CR_CUDA_UINT8: return *(uint8_t *) p;
    default: return *(double *) p;
    }
}

/* The ABI's float -> int64 cast (x86's cvttsd2si, the CPU's
 * cr_double_to_int64): NaN and values out of range give INT64_MIN, without
 * the C cast's UB. */
static int64_t
to_int64 (double v)
{
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
    return (int64_t) v;
  return INT64_MIN;
}

/* The same to int32 (cvttsd2si to 32 bits); uint8 keeps its low byte. */
static int32_t
to_int32 (double v)
{
  if (v > -2147483649.0 && v < 2147483648.0)
    return (int32_t) v;
  return INT32_MIN;
}

static void
store (const CrCudaTensor *t, int64_t i, double v)
{
  void *p = element (t, i);
  switch (t->dtype)
    {
    case CR_CUDA_BOOL: *(uint8_t *) p = v != 0.0; break;
    case CR_CUDA_INT64: *(int64_t *) p = to_int64 (v); break;
    case CR_CUDA_FLOAT32: *(float *) p = (float) v; break;
    case CR_CUDA_INT32: *(int32_t *) p = to_int32 (v); break;
    case CR_CUDA_UINT8: *(uint8_t *) p = (uint8_t) (uint32_t) to_int32 (v); break;
    default: *(double *) p = v; break;
    }
}

/* int64 elements exactly (a double holds only 53 bits of them). */
static int64_t
load_i (const CrCudaTensor *t, int64_t i)
{
  void *p = element (t, i);
  switch (t->dtype)
    {
    case CR_CUDA_BOOL: return *(uint8_t *) p != 0;
    case CR_CUDA_INT64: return *(int64_t *) p;
    case CR_CUDA_INT32: return *(int32_t *) p;
    case CR_CUDA_UINT8: return *(uint8_t *) p;
    case CR_CUDA_FLOAT32: return to_int64 (*(float *) p);
    default: return to_int64 (*(double *) p);
    }
}

static void
store_i (const CrCudaTensor *t, int64_t i, int64_t v)
{
  void *p = element (t, i);
  switch (t->dtype)
    {
    case CR_CUDA_BOOL: *(uint8_t *) p = v != 0; break;
    case CR_CUDA_INT64: *(int64_t *) p = v; break;
    case CR_CUDA_INT32: *(int32_t *) p = (int32_t) (uint32_t) (uint64_t) v; break;
    case CR_CUDA_UINT8: *(uint8_t *) p = (uint8_t) (uint64_t) v; break;
    case CR_CUDA_FLOAT32: *(float *) p = (float) v; break;
    default: *(double *) p = (double) v; break;
    }
}

/* int64 arithmetic wraps around as PyTorch's, in unsigned arithmetic (a
 * signed overflow is UB). */
static int64_t wrap_add (int64_t a, int64_t b) { return (int64_t) ((uint64_t) a + (uint64_t) b); }
static int64_t wrap_mul (int64_t a, int64_t b) { return (int64_t) ((uint64_t) a * (uint64_t) b); }

/* ---- the elementwise kernels' promises ----------------------------------------------- */

/* What gpu/cr-cuda-elementwise.cuh's plan_init checks before any elementwise
 * kernel: each operand (NULL: none) matches out (the ABI's
 * cr_cuda_operand_matches_output), and out does not have stride 0 everywhere
 * (its elements are written in parallel). The module refuses a broken promise
 * with CR_CUDA_ERR_INVALID, and so does the mock, or core could break one here
 * unseen and fail on a GPU only. Negative strides (torch.flip's view) are
 * allowed: the module once refused them while the mock copied them. */
static int
elementwise_promises (const char *what, int n, const CrCudaTensor *const *operands,
                      char *msg, size_t msg_size)
{
  const CrCudaTensor *out = operands[0];
  int64_t n_out = numel (out);
  int all_zero = 1;

  for (int k = 0; k < n; k++)
    {
      const CrCudaTensor *t = operands[k];
      if (t == NULL)
        continue;
      if (!cr_cuda_operand_matches_output (t, out, n_out))
        return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                        "%s: operand %d does not have the output's shape", what, k);
    }
  for (int d = 0; d < out->ndim; d++)
    if (out->shape[d] > 1 && out->strides[d] != 0)
      all_zero = 0;
  if (n_out > 1 && all_zero)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                    "%s: output has stride 0 on a dim of size > 1", what);
  return CR_CUDA_OK;
}

#define PROMISES(what, ...)                                                              \
  do {                                                                                   \
    const CrCudaTensor *operands_[] = { __VA_ARGS__ };                                   \
    int code_ = elementwise_promises (what, (int) (sizeof operands_ / sizeof operands_[0]), \
                                      operands_, msg, msg_size);                         \
    if (code_ != CR_CUDA_OK)                                                             \
      return code_;                                                                      \
  } while (0)

/* ---- kernels ------------------------------------------------------------------- */

static int
copy_impl (const CrCudaTensor *out, const CrCudaTensor *src, char *msg, size_t msg_size)
{
  PROMISES ("copy", out, src);
  for (int64_t i = 0, n = numel (out); i < n; i++)
    if (src->dtype == CR_CUDA_INT64 || src->dtype == CR_CUDA_INT32 || src->dtype == CR_CUDA_UINT8)
      store_i (out, i, load_i (src, i));
    else
      store (out, i, load (src, i));
  return CR_CUDA_OK;
}

static int
fill_impl (const CrCudaTensor *out, double value, char *msg, size_t msg_size)
{
  PROMISES ("fill", out);
  for (int64_t i = 0, n = numel (out); i < n; i++)
    store (out, i, value);
  return CR_CUDA_OK;
}

/* The CPU's vectorised functions that rows of core/cr-unary-ops.def call, in
 * libm's double precision (float32 is computed in double, then rounded). */
static double cr_vexp (double x) { return exp (x); }
static double cr_vlog (double x) { return log (x); }
static double cr_vtanh (double x) { return tanh (x); }
static double cr_vsigmoid (double x) { return 1.0 / (1.0 + exp (-x)); }

/* The rows' values: D for float32/float64, I for int64 (exact, wrapping), B
 * for bool, for the dtypes the header says each op takes; a CPU_ONLY row's
 * expressions are not compiled here (the module has no kernel for it). */
#define NONE ((void) v, 0)
#define P0 (p[0])
#define P1 (p[1])
#define P2 (p[2])
#define MOCK_VEC(...)      __VA_ARGS__
#define MOCK_SCALAR(...)   __VA_ARGS__
#define MOCK_CPU_ONLY(...)
static double
unary_double (int op, double v, const double *p)
{
  (void) p;
  switch (op)
    {
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, ...) \
    MOCK_##vec (case CR_CUDA_UNARY_##ID: return (double) (D);)
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "core/cr-unary-ops.def"
    default:
      return NAN;
    }
}

static int64_t
unary_int64 (int op, int64_t v, const double *p)
{
  (void) p;
  switch (op)
    {
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, ...) \
    MOCK_##vec (case CR_CUDA_UNARY_##ID: return (int64_t) (I);)
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "core/cr-unary-ops.def"
    default:
      return 0;
    }
}

static uint8_t
unary_bool (int op, uint8_t v, const double *p)
{
  (void) p;
  switch (op)
    {
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, ...) \
    MOCK_##vec (case CR_CUDA_UNARY_##ID: return (uint8_t) (B);)
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "core/cr-unary-ops.def"
    default:
      return 0;
    }
}
#undef NONE
#undef P0
#undef P1
#undef P2
#undef MOCK_VEC
#undef MOCK_SCALAR
#undef MOCK_CPU_ONLY

static int
unary_impl (int op, const CrCudaTensor *out, const CrCudaTensor *x, const double *p, char *msg,
            size_t msg_size)
{
  int logical = cr_cuda_unary_rule (op) == CR_UNARY_RULE_LOGICAL;

  PROMISES ("unary", out, x);
  if (op < 0 || op >= CR_CUDA_UNARY_COUNT)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "no unary op %d", op);
  if (out->dtype != (logical ? CR_CUDA_BOOL : x->dtype))
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "unary: output dtype %d for input %d",
                    out->dtype, x->dtype);
  if (!cr_cuda_unary_takes (op, x->dtype))
    return set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                    "\"unary op %d\" not implemented for dtype %d", op, x->dtype);
  for (int64_t i = 0, n = numel (out); i < n; i++)
    {
      if (x->dtype == CR_CUDA_INT64 && !logical)
        store_i (out, i, unary_int64 (op, load_i (x, i), p));
      else if (x->dtype == CR_CUDA_INT64)
        store (out, i, (double) unary_int64 (op, load_i (x, i), p));
      else if (x->dtype == CR_CUDA_BOOL)
        store (out, i, (double) unary_bool (op, (uint8_t) (load (x, i) != 0.0), p));
      else
        store (out, i, unary_double (op, load (x, i), p));
    }
  return CR_CUDA_OK;
}

/* The rows' values of core/cr-binary-ops.def: D for float32/float64 (float32
 * computed in double, then rounded), I for int64 (exact, wrapping; a zero
 * divisor gives 0 as in the module), B for bool. */
#define NONE ((void) x, (void) y, 0)
static double
binary_double (int op, double x, double y)
{
  switch (op)
    {
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, ...) \
    case CR_CUDA_BINARY_##ID: return (double) (D);
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "core/cr-binary-ops.def"
    default:
      return NAN;
    }
}

static int64_t
binary_int64 (int op, int64_t x, int64_t y)
{
  switch (op)
    {
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, ...) \
    case CR_CUDA_BINARY_##ID: return (int64_t) (I);
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "core/cr-binary-ops.def"
    default:
      return 0;
    }
}

static uint8_t
binary_bool (int op, uint8_t x, uint8_t y)
{
  switch (op)
    {
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, ...) \
    case CR_CUDA_BINARY_##ID: return (uint8_t) (B);
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "core/cr-binary-ops.def"
    default:
      return 0;
    }
}
#undef NONE

static int
binary_impl (int op, const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
        char *msg, size_t msg_size)
{
  int is_compare = cr_cuda_binary_rule (op) == CR_BINARY_RULE_COMPARE;
  PROMISES ("binary", out, a, b);
  if (op < 0 || op >= CR_CUDA_BINARY_COUNT)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "no binary op %d", op);
  if (b->dtype != a->dtype || out->dtype != (is_compare ? CR_CUDA_BOOL : a->dtype))
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                    "binary: dtypes %d, %d -> %d do not match the op", a->dtype, b->dtype,
                    out->dtype);
  if (!cr_cuda_binary_takes (op, a->dtype))
    return set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                    "\"binary op %d\" not implemented for dtype %d", op, a->dtype);
  for (int64_t i = 0, n = numel (out); i < n; i++)
    {
      if (a->dtype == CR_CUDA_INT64 && !is_compare)
        store_i (out, i, binary_int64 (op, load_i (a, i), load_i (b, i)));
      else if (a->dtype == CR_CUDA_INT64)
        store (out, i, (double) binary_int64 (op, load_i (a, i), load_i (b, i)));
      else if (a->dtype == CR_CUDA_BOOL)
        store (out, i, (double) binary_bool (op, (uint8_t) (load (a, i) != 0.0),
                                             (uint8_t) (load (b, i) != 0.0)));
      else
        store (out, i, binary_double (op, load (a, i), load (b, i)));
    }
  return CR_CUDA_OK;
}

static int
add_scaled_impl (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b, double alpha,
            char *msg, size_t msg_size)
{
  PROMISES ("add_scaled", out, a, b);
  if (b->dtype != a->dtype || out->dtype != a->dtype)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "add_scaled: dtypes differ");
  for (int64_t i = 0, n = numel (out); i < n; i++)
    if (a->dtype == CR_CUDA_INT64)
      store_i (out, i, wrap_add (load_i (a, i), wrap_mul (to_int64 (alpha), load_i (b, i))));
    else
      store (out, i, load (a, i) + alpha * load (b, i));
  return CR_CUDA_OK;
}

static int
clamp_impl (const CrCudaTensor *out, const CrCudaTensor *x, int has_min, double min, int has_max,
       double max, char *msg, size_t msg_size)
{
  PROMISES ("clamp", out, x);
  if (out->dtype != x->dtype)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "clamp: output and input dtypes differ");
  if (x->dtype == CR_CUDA_INT64)
    {
      /* Whole-number bounds; 2^63 saturates (the ABI). */
      int64_t lo = !has_min ? INT64_MIN : min >= 9223372036854775808.0 ? INT64_MAX : to_int64 (min);
      int64_t hi = !has_max ? INT64_MAX : max >= 9223372036854775808.0 ? INT64_MAX : to_int64 (max);
      for (int64_t i = 0, n = numel (out); i < n; i++)
        {
          int64_t v = load_i (x, i);
          v = v < lo ? lo : v;
          store_i (out, i, v > hi ? hi : v);
        }
      return CR_CUDA_OK;
    }
  for (int64_t i = 0, n = numel (out); i < n; i++)
    {
      double v = load (x, i);
      /* Both bounds and one NaN: NaN (PyTorch 1.13); one NaN bound keeps x. */
      if (has_min && has_max && (isnan (min) || isnan (max)))
        v = NAN;
      if (has_min && v < min)
        v = min;
      if (has_max && v > max)
        v = max;
      store (out, i, v);
    }
  return CR_CUDA_OK;
}

static int
where_impl (const CrCudaTensor *out, const CrCudaTensor *cond, const CrCudaTensor *a,
       const CrCudaTensor *b, char *msg, size_t msg_size)
{
  PROMISES ("where", out, cond, a, b);
  if (cond->dtype != CR_CUDA_BOOL || a->dtype != out->dtype || b->dtype != out->dtype)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                    "where: expected a bool condition and one dtype for a, b and out");
  for (int64_t i = 0, n = numel (out); i < n; i++)
    if (out->dtype == CR_CUDA_INT64)
      store_i (out, i, load (cond, i) != 0 ? load_i (a, i) : load_i (b, i));
    else
      store (out, i, load (cond, i) != 0 ? load (a, i) : load (b, i));
  return CR_CUDA_OK;
}

/* The output position (in out's logical order) of x's element i, for outputs
 * in keepdim layout over the dims of mask. */
static int64_t
out_index (const CrCudaTensor *x, uint32_t mask, int64_t i)
{
  int64_t o = 0, scale = 1;
  for (int d = x->ndim - 1; d >= 0; d--)
    {
      int64_t k = i % x->shape[d];
      i /= x->shape[d];
      if (!((mask >> d) & 1))
        {
          o += k * scale;
          scale *= x->shape[d];
        }
    }
  return o;
}

/* int64 sum, prod (wrapping), max and min, exact. */
static int
reduce_int64 (int op, const CrCudaTensor *out, const CrCudaTensor *x, uint32_t dims_mask)
{
  int64_t n_out = numel (out), n = numel (x);
  int64_t *acc = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (int64_t));
  char *seen = calloc ((size_t) (n_out > 0 ? n_out : 1), 1);

  for (int64_t o = 0; o < n_out; o++)
    acc[o] = op == CR_CUDA_REDUCE_PROD;
  for (int64_t i = 0; i < n; i++)
    {
      int64_t o = out_index (x, dims_mask, i), v = load_i (x, i);
      switch (op)
        {
        case CR_CUDA_REDUCE_SUM: acc[o] = wrap_add (acc[o], v); break;
        case CR_CUDA_REDUCE_PROD: acc[o] = wrap_mul (acc[o], v); break;
        default:
          if (!seen[o] || (op == CR_CUDA_REDUCE_MAX ? v > acc[o] : v < acc[o]))
            acc[o] = v;
          break;
        }
      seen[o] = 1;
    }
  for (int64_t o = 0; o < n_out; o++)
    store_i (out, o, acc[o]);
  free (acc);
  free (seen);
  return CR_CUDA_OK;
}

static int
reduce_impl (int op, const CrCudaTensor *out, const CrCudaTensor *x, uint32_t dims_mask,
        char *msg, size_t msg_size)
{
  int64_t n_out = numel (out), n = numel (x);
  double *acc = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (double));
  int64_t *count = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (int64_t));

  (void) msg; (void) msg_size;
  if (x->dtype == CR_CUDA_INT64 && op != CR_CUDA_REDUCE_MEAN && op != CR_CUDA_REDUCE_ANY
      && op != CR_CUDA_REDUCE_ALL)
    {
      free (acc);
      free (count);
      return reduce_int64 (op, out, x, dims_mask);
    }
  for (int64_t i = 0; i < n; i++)
    {
      int64_t o = out_index (x, dims_mask, i);
      double v = load (x, i), a = acc[o];
      int first = count[o]++ == 0;
      switch (op)
        {
        case CR_CUDA_REDUCE_SUM: case CR_CUDA_REDUCE_MEAN: a += v; break;
        case CR_CUDA_REDUCE_PROD: a = first ? v : a * v; break;
        case CR_CUDA_REDUCE_MAX:
        case CR_CUDA_REDUCE_MIN:
          /* NaN propagates: once there, it stays. */
          if (first || (!isnan (a) && (isnan (v) || (op == CR_CUDA_REDUCE_MAX ? v > a : v < a))))
            a = v;
          break;
        case CR_CUDA_REDUCE_ANY: a = (first ? 0 : a) != 0 || v != 0; break;
        default: a = (first ? 1 : a) != 0 && v != 0; break;
        }
      acc[o] = a;
    }
  for (int64_t o = 0; o < n_out; o++)
    {
      double v = acc[o];
      if (count[o] == 0)
        v = op == CR_CUDA_REDUCE_PROD || op == CR_CUDA_REDUCE_ALL ? 1 : op == CR_CUDA_REDUCE_MEAN ? NAN : 0;
      else if (op == CR_CUDA_REDUCE_MEAN)
        v /= (double) count[o];
      store (out, o, v);
    }
  free (acc);
  free (count);
  return CR_CUDA_OK;
}

static int
max_dim_impl (const CrCudaTensor *values, const CrCudaTensor *indices, const CrCudaTensor *x, int dim,
         int is_min, char *msg, size_t msg_size)
{
  int64_t n_out = numel (indices), n = numel (x);
  double *best = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (double));
  int64_t *best_i = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (int64_t));
  int64_t *where_ = calloc ((size_t) (n_out > 0 ? n_out : 1), sizeof (int64_t));
  char *seen = calloc ((size_t) (n_out > 0 ? n_out : 1), 1);

  (void) msg; (void) msg_size;
  for (int64_t i = 0; i < n; i++)
    {
      int64_t o = out_index (x, 1u << dim, i), rest = i, k = 0;
      double v = load (x, i);
      int64_t vi = x->dtype == CR_CUDA_INT64 ? load_i (x, i) : 0;
      int better;
      for (int d = x->ndim - 1; d >= dim; d--)
        {
          k = rest % x->shape[d];
          rest /= x->shape[d];
        }
      if (x->dtype == CR_CUDA_INT64)
        better = is_min ? vi < best_i[o] : vi > best_i[o];
      else
        better = !isnan (best[o]) && (isnan (v) || (is_min ? v < best[o] : v > best[o]));
      if (!seen[o] || better)
        {
          best[o] = v;
          best_i[o] = vi;
          where_[o] = k;
          seen[o] = 1;
        }
    }
  for (int64_t o = 0; o < n_out; o++)
    {
      if (values != NULL && x->dtype == CR_CUDA_INT64)
        store_i (values, o, best_i[o]);
      else if (values != NULL)
        store (values, o, best[o]);
      *(int64_t *) element (indices, o) = where_[o];
    }
  free (best);
  free (best_i);
  free (where_);
  free (seen);
  return CR_CUDA_OK;
}

static int
allclose_impl (const CrCudaTensor *a, const CrCudaTensor *b, double rtol, double atol, int *out_result,
          char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  *out_result = 1;
  for (int64_t i = 0, n = numel (a); i < n; i++)
    {
      double x = load (a, i), y = load (b, i);
      if (!(x == y || fabs (x - y) <= atol + rtol * fabs (y)))
        *out_result = 0;
    }
  return CR_CUDA_OK;
}

/* Visits the rows along dim: fn(base index of the row's first element, stride
 * in logical index units, length). */
static int
softmax_any (const CrCudaTensor *res, const CrCudaTensor *g, const CrCudaTensor *y, int dim,
             int log_, int backward)
{
  int64_t len = y->shape[dim], inner = 1, n = numel (y);

  for (int d = dim + 1; d < y->ndim; d++)
    inner *= y->shape[d];
  for (int64_t base = 0; base < n; base++)
    {
      /* base is a row start when its index along dim is 0. */
      if ((base / inner) % len != 0)
        continue;
      if (!backward)
        {
          double m = -INFINITY, s = 0;
          for (int64_t k = 0; k < len; k++)
            m = fmax (m, load (y, base + k * inner));
          for (int64_t k = 0; k < len; k++)
            s += exp (load (y, base + k * inner) - m);
          for (int64_t k = 0; k < len; k++)
            {
              double v = load (y, base + k * inner) - m;
              store (res, base + k * inner, log_ ? v - log (s) : exp (v) / s);
            }
        }
      else
        {
          double s = 0;
          for (int64_t k = 0; k < len; k++)
            s += log_ ? load (g, base + k * inner)
                      : load (g, base + k * inner) * load (y, base + k * inner);
          for (int64_t k = 0; k < len; k++)
            {
              double gv = load (g, base + k * inner), yv = load (y, base + k * inner);
              store (res, base + k * inner, log_ ? gv - exp (yv) * s : yv * (gv - s));
            }
        }
    }
  return CR_CUDA_OK;
}

static int
softmax_impl (const CrCudaTensor *out, const CrCudaTensor *x, int dim, int log_, char *msg,
         size_t msg_size)
{
  (void) msg; (void) msg_size;
  return softmax_any (out, NULL, x, dim, log_, 0);
}

static int
softmax_backward_impl (const CrCudaTensor *grad_in, const CrCudaTensor *grad, const CrCudaTensor *out,
                  int dim, int log_, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  return softmax_any (grad_in, grad, out, dim, log_, 1);
}

/* Checks the ABI's layout promise for one matrix of a gemm operand. */
static int
gemm_layout_ok (const CrCudaTensor *t)
{
  int64_t rows = t->shape[1], cols = t->shape[2];
  return (t->strides[2] == 1 && t->strides[1] >= (cols > 1 ? cols : 1))
         || (t->strides[1] == 1 && t->strides[2] >= (rows > 1 ? rows : 1));
}

static int
gemm_impl (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b, char *msg,
      size_t msg_size)
{
  int64_t B = a->shape[0], n = a->shape[1], k = a->shape[2], m = b->shape[2];

  if (a->ndim != 3 || b->ndim != 3 || out->ndim != 3 || !gemm_layout_ok (a) || !gemm_layout_ok (b)
      || b->shape[1] != k || out->shape[1] != n || out->shape[2] != m)
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "gemm: layout outside the ABI");
  for (int64_t bi = 0; bi < B; bi++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < m; j++)
        {
          double s = 0;
          for (int64_t p = 0; p < k; p++)
            s += load (a, (bi * n + i) * k + p) * load (b, (bi * k + p) * m + j);
          store (out, (bi * n + i) * m + j, s);
        }
  return CR_CUDA_OK;
}

static int
check_positions (const CrCudaTensor *index, int64_t size, char *msg, size_t msg_size)
{
  for (int64_t i = 0, n = numel (index); i < n; i++)
    {
      int64_t p = *(int64_t *) element (index, i);
      if (p < -size || p >= size)
        return set_msg (CR_CUDA_ERR_INDEX, msg, msg_size,
                        "index %lld is out of bounds for dimension 0 with size %lld",
                        (long long) p, (long long) size);
    }
  return CR_CUDA_OK;
}

static int
take_impl (const CrCudaTensor *out, const CrCudaTensor *x, const CrCudaTensor *index, char *msg,
      size_t msg_size)
{
  int64_t size = numel (x);
  int code = check_positions (index, size, msg, msg_size);

  if (code != CR_CUDA_OK)
    return code;
  for (int64_t i = 0, n = numel (index); i < n; i++)
    {
      int64_t p = *(int64_t *) element (index, i);
      if (x->dtype == CR_CUDA_INT64)
        store_i (out, i, load_i (x, p < 0 ? p + size : p));
      else
        store (out, i, load (x, p < 0 ? p + size : p));
    }
  return CR_CUDA_OK;
}

static int
put_impl (const CrCudaTensor *dst, const CrCudaTensor *index, const CrCudaTensor *values,
     int accumulate, char *msg, size_t msg_size)
{
  int64_t size = numel (dst);
  int code = check_positions (index, size, msg, msg_size);

  if (code != CR_CUDA_OK)
    return code;
  for (int64_t i = 0, n = numel (index); i < n; i++)
    {
      int64_t p = *(int64_t *) element (index, i);
      p = p < 0 ? p + size : p;
      if (dst->dtype == CR_CUDA_INT64)
        store_i (dst, p, accumulate ? wrap_add (load_i (dst, p), load_i (values, i))
                                    : load_i (values, i));
      else
        store (dst, p, accumulate ? load (dst, p) + load (values, i) : load (values, i));
    }
  return CR_CUDA_OK;
}

static int
count_nonzero_impl (const CrCudaTensor *x, int64_t *out_count, char *msg, size_t msg_size)
{
  (void) msg; (void) msg_size;
  *out_count = 0;
  for (int64_t i = 0, n = numel (x); i < n; i++)
    *out_count += load (x, i) != 0;
  return CR_CUDA_OK;
}

static int
nonzero_flat_impl (const CrCudaTensor *out, const CrCudaTensor *mask, char *msg, size_t msg_size)
{
  int64_t k = 0;
  (void) msg; (void) msg_size;
  for (int64_t i = 0, n = numel (mask); i < n; i++)
    if (load (mask, i) != 0)
      store (out, k++, (double) i);
  return CR_CUDA_OK;
}

/* The entry points: the blocks are readable only inside them. */

static int
mock_memset (void *dst, int value, size_t nbytes, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = mock_memset_impl (dst, value, nbytes, msg, msg_size);
  LEAVE ();
  return r;
}

static int
mock_copy_bytes (void *dst, const void *src, size_t nbytes, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = mock_copy_bytes_impl (dst, src, nbytes, msg, msg_size);
  LEAVE ();
  return r;
}

static int
copy (const CrCudaTensor *out, const CrCudaTensor *src, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = copy_impl (out, src, msg, msg_size);
  LEAVE ();
  return r;
}

static int
fill (const CrCudaTensor *out, double value, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = fill_impl (out, value, msg, msg_size);
  LEAVE ();
  return r;
}

static int
unary (int op, const CrCudaTensor *out, const CrCudaTensor *x, char *msg, size_t msg_size)
{
  static const double no_params[3];
  int r;
  ENTER ();
  r = unary_impl (op, out, x, no_params, msg, msg_size);
  LEAVE ();
  return r;
}

static int
unary_params (int op, const CrCudaTensor *out, const CrCudaTensor *x, const double *params,
              char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = unary_impl (op, out, x, params, msg, msg_size);
  LEAVE ();
  return r;
}

static int
binary (int op, const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
        char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = binary_impl (op, out, a, b, msg, msg_size);
  LEAVE ();
  return r;
}

static int
add_scaled (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b, double alpha,
            char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = add_scaled_impl (out, a, b, alpha, msg, msg_size);
  LEAVE ();
  return r;
}

static int
clamp (const CrCudaTensor *out, const CrCudaTensor *x, int has_min, double min, int has_max,
       double max, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = clamp_impl (out, x, has_min, min, has_max, max, msg, msg_size);
  LEAVE ();
  return r;
}

static int
where (const CrCudaTensor *out, const CrCudaTensor *cond, const CrCudaTensor *a,
       const CrCudaTensor *b, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = where_impl (out, cond, a, b, msg, msg_size);
  LEAVE ();
  return r;
}

static int
reduce (int op, const CrCudaTensor *out, const CrCudaTensor *x, uint32_t dims_mask,
        char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = reduce_impl (op, out, x, dims_mask, msg, msg_size);
  LEAVE ();
  return r;
}

static int
max_dim (const CrCudaTensor *values, const CrCudaTensor *indices, const CrCudaTensor *x, int dim,
         int is_min, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = max_dim_impl (values, indices, x, dim, is_min, msg, msg_size);
  LEAVE ();
  return r;
}

static int
allclose (const CrCudaTensor *a, const CrCudaTensor *b, double rtol, double atol, int *out_result,
          char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = allclose_impl (a, b, rtol, atol, out_result, msg, msg_size);
  LEAVE ();
  return r;
}

static int
softmax (const CrCudaTensor *out, const CrCudaTensor *x, int dim, int log_, char *msg,
         size_t msg_size)
{
  int r;
  ENTER ();
  r = softmax_impl (out, x, dim, log_, msg, msg_size);
  LEAVE ();
  return r;
}

static int
softmax_backward (const CrCudaTensor *grad_in, const CrCudaTensor *grad, const CrCudaTensor *out,
                  int dim, int log_, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = softmax_backward_impl (grad_in, grad, out, dim, log_, msg, msg_size);
  LEAVE ();
  return r;
}

static int
gemm (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b, char *msg,
      size_t msg_size)
{
  int r;
  ENTER ();
  r = gemm_impl (out, a, b, msg, msg_size);
  LEAVE ();
  return r;
}

static int
take (const CrCudaTensor *out, const CrCudaTensor *x, const CrCudaTensor *index, char *msg,
      size_t msg_size)
{
  int r;
  ENTER ();
  r = take_impl (out, x, index, msg, msg_size);
  LEAVE ();
  return r;
}

static int
put (const CrCudaTensor *dst, const CrCudaTensor *index, const CrCudaTensor *values,
     int accumulate, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = put_impl (dst, index, values, accumulate, msg, msg_size);
  LEAVE ();
  return r;
}

static int
count_nonzero (const CrCudaTensor *x, int64_t *out_count, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = count_nonzero_impl (x, out_count, msg, msg_size);
  LEAVE ();
  return r;
}

static int
nonzero_flat (const CrCudaTensor *out, const CrCudaTensor *mask, char *msg, size_t msg_size)
{
  int r;
  ENTER ();
  r = nonzero_flat_impl (out, mask, msg, msg_size);
  LEAVE ();
  return r;
}

/* ---- convolution columns and pooling (the CPU's semantics, in double) -------- */

/* Element (i0, i1, i2[, i3]) of a 3-d or 4-d descriptor, by logical index. */
static int64_t
pos3 (const CrCudaTensor *t, int64_t a, int64_t b, int64_t c)
{
  return (a * t->shape[1] + b) * t->shape[2] + c;
}

static int
conv_cols_check (const CrCudaTensor *cols, const CrCudaTensor *x, const CrCudaConvGeom *g,
                 char *msg, size_t msg_size)
{
  if (cols->ndim != 2 || x->ndim != 4 || cols->dtype != x->dtype
      || cols->shape[0] != x->shape[1] * g->kernel[0] * g->kernel[1]
      || cols->shape[1] != x->shape[0] * g->out[0] * g->out[1])
    return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "im2col/col2im: shapes outside the ABI");
  if (x->dtype != CR_CUDA_FLOAT32 && x->dtype != CR_CUDA_FLOAT64 && x->dtype != CR_CUDA_INT64)
    return set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "im2col: dtype not supported");
  return CR_CUDA_OK;
}

/* The input position of output o and tap k along axis a, or -1 outside. */
static int64_t
conv_tap (const CrCudaConvGeom *g, int a, int64_t o, int64_t k, int64_t size)
{
  int64_t i = o * g->stride[a] - g->padding[a] + k * g->dilation[a];
  return i >= 0 && i < size ? i : -1;
}

static int
im2col_impl (const CrCudaTensor *cols, const CrCudaTensor *x, const CrCudaConvGeom *g,
             char *msg, size_t msg_size)
{
  int code = conv_cols_check (cols, x, g, msg, msg_size);
  int64_t nb = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t kh = g->kernel[0], kw = g->kernel[1], oh = g->out[0], ow = g->out[1];

  if (code != CR_CUDA_OK)
    return code;
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++)
        for (int64_t b = 0; b < nb; b++)
          for (int64_t oy = 0; oy < oh; oy++)
            for (int64_t ox = 0; ox < ow; ox++)
              {
                int64_t r = (c * kh + i) * kw + j, q = (b * oh + oy) * ow + ox;
                int64_t iy = conv_tap (g, 0, oy, i, H), ix = conv_tap (g, 1, ox, j, W);
                int64_t src = ((b * C + c) * H + iy) * W + ix;
                int64_t dst = r * cols->shape[1] + q;

                if (x->dtype == CR_CUDA_INT64)
                  store_i (cols, dst, iy < 0 || ix < 0 ? 0 : load_i (x, src));
                else
                  store (cols, dst, iy < 0 || ix < 0 ? 0.0 : load (x, src));
              }
  return CR_CUDA_OK;
}

static int
col2im_impl (const CrCudaTensor *x, const CrCudaTensor *cols, const CrCudaConvGeom *g,
             char *msg, size_t msg_size)
{
  int code = conv_cols_check (cols, x, g, msg, msg_size);
  int64_t nb = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t kh = g->kernel[0], kw = g->kernel[1], oh = g->out[0], ow = g->out[1];
  int64_t n = nb * C * H * W;
  double *acc;
  int64_t *acc_i;

  if (code != CR_CUDA_OK)
    return code;
  /* Every element is written: the sums start from zero here. */
  acc = calloc ((size_t) (n > 0 ? n : 1), sizeof *acc);
  acc_i = calloc ((size_t) (n > 0 ? n : 1), sizeof *acc_i);
  if (acc == NULL || acc_i == NULL)
    {
      free (acc);
      free (acc_i);
      return set_msg (CR_CUDA_ERR_OUT_OF_MEMORY, msg, msg_size, "col2im: out of host memory");
    }
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < kh; i++)
      for (int64_t j = 0; j < kw; j++)
        for (int64_t b = 0; b < nb; b++)
          for (int64_t oy = 0; oy < oh; oy++)
            for (int64_t ox = 0; ox < ow; ox++)
              {
                int64_t r = (c * kh + i) * kw + j, q = (b * oh + oy) * ow + ox;
                int64_t iy = conv_tap (g, 0, oy, i, H), ix = conv_tap (g, 1, ox, j, W);
                int64_t at = ((b * C + c) * H + iy) * W + ix;

                if (iy < 0 || ix < 0)
                  continue;
                if (x->dtype == CR_CUDA_INT64)
                  acc_i[at] = wrap_add (acc_i[at], load_i (cols, r * cols->shape[1] + q));
                else
                  acc[at] += load (cols, r * cols->shape[1] + q);
              }
  for (int64_t k = 0; k < n; k++)
    {
      if (x->dtype == CR_CUDA_INT64)
        store_i (x, k, acc_i[k]);
      else
        store (x, k, acc[k]);
    }
  free (acc);
  free (acc_i);
  return CR_CUDA_OK;
}

/* cr-kernels-conv.h's window of output o along axis a. */
typedef struct {
  int64_t first, end, step, span;
} PoolWin;

static PoolWin
pool_window (const CrCudaPoolGeom *g, int a, int64_t o)
{
  PoolWin w;
  int64_t size = g->in[a];

  if (g->adaptive)
    {
      w.first = o * size / g->out[a];
      w.end = ((o + 1) * size + g->out[a] - 1) / g->out[a];
      w.step = 1;
      w.span = w.end - w.first;
    }
  else
    {
      int64_t d = g->dilation[a], start = o * g->stride[a] - g->padding[a];
      int64_t last = start + (g->kernel[a] - 1) * d, hi = start + g->kernel[a];

      w.first = start < 0 ? start + (-start + d - 1) / d * d : start;
      w.end = last + 1 < size ? last + 1 : size;
      w.step = d;
      w.span = (hi < size + g->padding[a] ? hi : size + g->padding[a]) - start;
    }
  return w;
}

static double
pool_divisor (const CrCudaPoolGeom *g, const PoolWin *y, const PoolWin *x)
{
  int64_t ny = y->end - y->first, nx = x->end - x->first;

  if (g->divisor_override != 0)
    return (double) g->divisor_override;
  if (g->count_include_pad && !g->adaptive)
    return (double) (y->span * x->span);
  return (double) ((ny > 0 ? ny : 0) * (nx > 0 ? nx : 0));
}

/* t is (P, h, w) with the given sizes. */
static int
pool_planes_ok (const CrCudaTensor *t, int64_t P, int64_t h, int64_t w)
{
  return t->ndim == 3 && t->shape[0] == P && t->shape[1] == h && t->shape[2] == w;
}

static int
pool_invalid (const char *what, char *msg, size_t msg_size)
{
  return set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: shapes outside the ABI", what);
}

static int
pool_unsupported (const char *what, char *msg, size_t msg_size)
{
  return set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "%s: dtype not supported", what);
}

static int
max_pool2d_impl (const CrCudaTensor *values, const CrCudaTensor *indices, const CrCudaTensor *x,
                 const CrCudaPoolGeom *g, char *msg, size_t msg_size)
{
  int64_t P = x->ndim == 3 ? x->shape[0] : -1;

  if (!pool_planes_ok (x, P, g->in[0], g->in[1]) || !pool_planes_ok (values, P, g->out[0], g->out[1])
      || !pool_planes_ok (indices, P, g->out[0], g->out[1]) || indices->dtype != CR_CUDA_INT64)
    return pool_invalid ("max_pool2d", msg, msg_size);
  if (x->dtype != CR_CUDA_FLOAT32 && x->dtype != CR_CUDA_FLOAT64)
    return pool_unsupported ("max_pool2d", msg, msg_size);
  for (int64_t p = 0; p < P; p++)
    for (int64_t oy = 0; oy < g->out[0]; oy++)
      for (int64_t ox = 0; ox < g->out[1]; ox++)
        {
          PoolWin y = pool_window (g, 0, oy), xw = pool_window (g, 1, ox);
          double best = -INFINITY;
          int64_t at = y.first * g->in[1] + xw.first;

          for (int64_t iy = y.first; iy < y.end; iy += y.step)
            for (int64_t ix = xw.first; ix < xw.end; ix += xw.step)
              {
                double v = load (x, pos3 (x, p, iy, ix));
                if (v > best || isnan (v))
                  {
                    best = v;
                    at = iy * g->in[1] + ix;
                  }
              }
          store (values, pos3 (values, p, oy, ox), best);
          store_i (indices, pos3 (indices, p, oy, ox), at);
        }
  return CR_CUDA_OK;
}

static int
max_pool2d_backward_impl (const CrCudaTensor *gx, const CrCudaTensor *gy,
                          const CrCudaTensor *indices, const CrCudaPoolGeom *g, char *msg,
                          size_t msg_size)
{
  int64_t P = gy->ndim == 3 ? gy->shape[0] : -1, plane = g->in[0] * g->in[1];

  if (!pool_planes_ok (gy, P, g->out[0], g->out[1]) || !pool_planes_ok (gx, P, g->in[0], g->in[1])
      || !pool_planes_ok (indices, P, g->out[0], g->out[1]) || indices->dtype != CR_CUDA_INT64)
    return pool_invalid ("max_pool2d_backward", msg, msg_size);
  if (gy->dtype != CR_CUDA_FLOAT32 && gy->dtype != CR_CUDA_FLOAT64)
    return pool_unsupported ("max_pool2d_backward", msg, msg_size);
  for (int64_t p = 0; p < P; p++)
    {
      for (int64_t k = 0; k < plane; k++)
        store (gx, p * plane + k, 0.0);
      for (int64_t o = 0; o < g->out[0] * g->out[1]; o++)
        {
          int64_t k = load_i (indices, p * g->out[0] * g->out[1] + o);
          if (k >= 0 && k < plane)
            store (gx, p * plane + k,
                   load (gx, p * plane + k) + load (gy, p * g->out[0] * g->out[1] + o));
        }
    }
  return CR_CUDA_OK;
}

static int
max_pool2d_gather_impl (const CrCudaTensor *out, const CrCudaTensor *src,
                        const CrCudaTensor *indices, const CrCudaPoolGeom *g, char *msg,
                        size_t msg_size)
{
  int64_t P = src->ndim == 3 ? src->shape[0] : -1, plane = g->in[0] * g->in[1];
  int64_t oplane = g->out[0] * g->out[1];

  if (!pool_planes_ok (src, P, g->in[0], g->in[1]) || !pool_planes_ok (out, P, g->out[0], g->out[1])
      || !pool_planes_ok (indices, P, g->out[0], g->out[1]) || indices->dtype != CR_CUDA_INT64)
    return pool_invalid ("max_pool2d_gather", msg, msg_size);
  if (src->dtype != CR_CUDA_FLOAT32 && src->dtype != CR_CUDA_FLOAT64)
    return pool_unsupported ("max_pool2d_gather", msg, msg_size);
  for (int64_t p = 0; p < P; p++)
    for (int64_t o = 0; o < oplane; o++)
      {
        int64_t k = load_i (indices, p * oplane + o);
        store (out, p * oplane + o, k >= 0 && k < plane ? load (src, p * plane + k) : 0.0);
      }
  return CR_CUDA_OK;
}

static int
avg_pool2d_impl (const CrCudaTensor *out, const CrCudaTensor *x, const CrCudaPoolGeom *g,
                 char *msg, size_t msg_size)
{
  int64_t P = x->ndim == 3 ? x->shape[0] : -1;

  if (!pool_planes_ok (x, P, g->in[0], g->in[1]) || !pool_planes_ok (out, P, g->out[0], g->out[1]))
    return pool_invalid ("avg_pool2d", msg, msg_size);
  if (x->dtype != CR_CUDA_FLOAT32 && x->dtype != CR_CUDA_FLOAT64
      && (x->dtype != CR_CUDA_INT64 || g->adaptive))
    return pool_unsupported ("avg_pool2d", msg, msg_size);
  for (int64_t p = 0; p < P; p++)
    for (int64_t oy = 0; oy < g->out[0]; oy++)
      for (int64_t ox = 0; ox < g->out[1]; ox++)
        {
          PoolWin y = pool_window (g, 0, oy), xw = pool_window (g, 1, ox);
          double sum = 0;
          int64_t sum_i = 0, div;

          if (y.first >= y.end || xw.first >= xw.end)
            {
              store (out, pos3 (out, p, oy, ox), 0.0);
              continue;
            }
          for (int64_t iy = y.first; iy < y.end; iy += y.step)
            for (int64_t ix = xw.first; ix < xw.end; ix += xw.step)
              {
                if (x->dtype == CR_CUDA_INT64)
                  sum_i = wrap_add (sum_i, load_i (x, pos3 (x, p, iy, ix)));
                else
                  sum += load (x, pos3 (x, p, iy, ix));
              }
          if (x->dtype != CR_CUDA_INT64)
            {
              store (out, pos3 (out, p, oy, ox), sum / pool_divisor (g, &y, &xw));
              continue;
            }
          div = (int64_t) pool_divisor (g, &y, &xw);
          /* C's division; / -1 wraps as negation does (no INT64_MIN / -1 trap). */
          store_i (out, pos3 (out, p, oy, ox),
                   div == 0 ? 0 : div == -1 ? (int64_t) (0u - (uint64_t) sum_i) : sum_i / div);
        }
  return CR_CUDA_OK;
}

static int
avg_pool2d_backward_impl (const CrCudaTensor *gx, const CrCudaTensor *gy,
                          const CrCudaPoolGeom *g, char *msg, size_t msg_size)
{
  int64_t P = gy->ndim == 3 ? gy->shape[0] : -1, plane = g->in[0] * g->in[1];

  if (!pool_planes_ok (gy, P, g->out[0], g->out[1]) || !pool_planes_ok (gx, P, g->in[0], g->in[1]))
    return pool_invalid ("avg_pool2d_backward", msg, msg_size);
  if (gy->dtype != CR_CUDA_FLOAT32 && gy->dtype != CR_CUDA_FLOAT64)
    return pool_unsupported ("avg_pool2d_backward", msg, msg_size);
  for (int64_t p = 0; p < P; p++)
    {
      for (int64_t k = 0; k < plane; k++)
        store (gx, p * plane + k, 0.0);
      for (int64_t oy = 0; oy < g->out[0]; oy++)
        for (int64_t ox = 0; ox < g->out[1]; ox++)
          {
            PoolWin y = pool_window (g, 0, oy), xw = pool_window (g, 1, ox);
            double share;

            if (y.first >= y.end || xw.first >= xw.end)
              continue;
            share = load (gy, pos3 (gy, p, oy, ox)) / pool_divisor (g, &y, &xw);
            for (int64_t iy = y.first; iy < y.end; iy += y.step)
              for (int64_t ix = xw.first; ix < xw.end; ix += xw.step)
                store (gx, pos3 (gx, p, iy, ix), load (gx, pos3 (gx, p, iy, ix)) + share);
          }
    }
  return CR_CUDA_OK;
}

#define MOCK_GUARDED(name, params, args)                                        \
static int                                                                      \
name params                                                                     \
{                                                                               \
  int r;                                                                        \
  ENTER ();                                                                     \
  r = name##_impl args;                                                         \
  LEAVE ();                                                                     \
  return r;                                                                     \
}

MOCK_GUARDED (im2col, (const CrCudaTensor *cols, const CrCudaTensor *x, const CrCudaConvGeom *g,
                       char *msg, size_t msg_size), (cols, x, g, msg, msg_size))
MOCK_GUARDED (col2im, (const CrCudaTensor *x, const CrCudaTensor *cols, const CrCudaConvGeom *g,
                       char *msg, size_t msg_size), (x, cols, g, msg, msg_size))
MOCK_GUARDED (max_pool2d, (const CrCudaTensor *values, const CrCudaTensor *indices,
                           const CrCudaTensor *x, const CrCudaPoolGeom *g, char *msg,
                           size_t msg_size), (values, indices, x, g, msg, msg_size))
MOCK_GUARDED (max_pool2d_backward, (const CrCudaTensor *gx, const CrCudaTensor *gy,
                                    const CrCudaTensor *indices, const CrCudaPoolGeom *g,
                                    char *msg, size_t msg_size),
              (gx, gy, indices, g, msg, msg_size))
MOCK_GUARDED (max_pool2d_gather, (const CrCudaTensor *out, const CrCudaTensor *src,
                                  const CrCudaTensor *indices, const CrCudaPoolGeom *g,
                                  char *msg, size_t msg_size),
              (out, src, indices, g, msg, msg_size))
MOCK_GUARDED (avg_pool2d, (const CrCudaTensor *out, const CrCudaTensor *x,
                           const CrCudaPoolGeom *g, char *msg, size_t msg_size),
              (out, x, g, msg, msg_size))
MOCK_GUARDED (avg_pool2d_backward, (const CrCudaTensor *gx, const CrCudaTensor *gy,
                                    const CrCudaPoolGeom *g, char *msg, size_t msg_size),
              (gx, gy, g, msg, msg_size))

int cr_cuda_module_get_api (int abi_version, CrCudaApi *api);

__attribute__ ((visibility ("default"))) int
cr_cuda_module_get_api (int abi_version, CrCudaApi *api)
{
  memset (api, 0, sizeof *api);
  if (abi_version != CR_CUDA_ABI_VERSION)
    return CR_CUDA_ERR_ABI;
  api->abi_version = CR_CUDA_ABI_VERSION;
  api->struct_size = sizeof *api;
  api->device_count = device_count;
  api->device_name = device_name;
  api->init = init;
  api->mem_get_info = mem_get_info;
  api->malloc = mock_malloc;
  api->free = mock_free;
  api->empty_cache = empty_cache;
  api->memory_stats = memory_stats;
  api->memset = mock_memset;
  api->copy_h2d = mock_copy_bytes;
  api->copy_d2h = mock_copy_bytes;
  api->copy_d2d = mock_copy_bytes;
  api->synchronize = synchronize;
  api->copy = copy;
  api->fill = fill;
  if (getenv ("CHAINRULE_MOCK_CUDA_FEW") != NULL)
    {
      /* Only a few kernels: the rest must be "not implemented on CUDA yet". */
      api->binary = binary;
      api->reduce = reduce;
      return CR_CUDA_OK;
    }
  api->unary = unary;
  api->unary_params = unary_params;
  api->binary = binary;
  api->add_scaled = add_scaled;
  api->clamp = clamp;
  api->where = where;
  api->reduce = reduce;
  api->max_dim = max_dim;
  api->allclose = allclose;
  api->softmax = softmax;
  api->softmax_backward = softmax_backward;
  api->gemm = gemm;
  api->take = take;
  api->put = put;
  api->count_nonzero = count_nonzero;
  api->nonzero_flat = nonzero_flat;
  api->im2col = im2col;
  api->col2im = col2im;
  api->max_pool2d = max_pool2d;
  api->max_pool2d_backward = max_pool2d_backward;
  api->max_pool2d_gather = max_pool2d_gather;
  api->avg_pool2d = avg_pool2d;
  api->avg_pool2d_backward = avg_pool2d_backward;
  return CR_CUDA_OK;
}
