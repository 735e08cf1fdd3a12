/* cr-cpu-private.h — what the CPU kernel files share: device dispatch, dim
 * checks, scalar loads and stores, and the strided broadcasting iterator.
 * Private to core/cpu/. */
#pragma once

#include "cr-kernels.h"
#include "cr-backend.h"
#include "cr-error.h"
#include "cr-shape-rules.h"

#include <string.h>

G_BEGIN_DECLS

/* Elements below which a loop never goes to the thread pool (a loop of fewer
 * than twice this runs on the calling thread). Waking a worker costs more
 * than half of a pass over a few hundred KiB, the more so while OpenBLAS's
 * own threads spin between sgemms (a training step's parameter-sized
 * updates stay on one thread). */
#define CR_PARALLEL_GRAIN 131072

/* Runs the backend of the first non-CPU tensor among the arguments instead of the
 * CPU loops. Use at the top of each cr_kernel_* function. */
#define CR_DISPATCH(device, member, error, fail, ...)                          \
  G_STMT_START {                                                               \
    if (G_UNLIKELY ((device) != CR_DEVICE_CPU))                                \
      {                                                                        \
        const CrBackend *be_ = cr_backend_get ((device), (error));             \
        if (be_ == NULL)                                                       \
          return fail;                                                         \
        if (be_->member == NULL)                                               \
          {                                                                    \
            g_set_error ((error), CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,         \
                         "%s is not implemented on the %s backend",            \
                         #member, be_->name);                                  \
            return fail;                                                       \
          }                                                                    \
        return be_->member (__VA_ARGS__);                                      \
      }                                                                        \
  } G_STMT_END

/* cr_dtype_size(), cr_tensor_data() and cr_tensor_is_contiguous() without a
 * call: the per-op overhead on small tensors is what these loops pay most. */
static inline gsize
cr_cpu_itemsize (CrDType dtype)
{
  static const guint8 sizes[CR_DTYPE_COUNT] = { 1, 8, 4, 8, 4, 1 };

  return sizes[dtype];
}

static inline char *
cr_cpu_data (const CrTensor *t)
{
  return (char *) t->storage->data + (gsize) t->offset * cr_cpu_itemsize (t->dtype);
}

static inline gboolean
cr_cpu_is_contiguous (const CrTensor *t)
{
  if (t->ndim == 0)
    return TRUE;
  if (t->ndim == 1)
    return t->strides[0] == 1 || t->shape[0] <= 1;
  return cr_tensor_is_contiguous (t);
}

static inline CrDeviceType
cr_cpu_device2 (const CrTensor *a,
                const CrTensor *b)
{
  return a->device != CR_DEVICE_CPU ? a->device : b->device;
}

/* Wraps a negative dim; PyTorch's IndexError when out of range. A 0-d tensor
 * accepts -1 and 0. */
gboolean  cr_cpu_wrap_dim          (int        dim,
                                    int        ndim,
                                    int       *out_dim,
                                    GError   **error);

/* ---- scalars ------------------------------------------------------------ */

static inline double
cr_cpu_load_double (const void *p,
                    CrDType     dtype)
{
  switch (dtype)
    {
    case CR_DTYPE_BOOL:    return *(const guint8 *) p != 0;
    case CR_DTYPE_INT64:   return (double) *(const gint64 *) p;
    case CR_DTYPE_FLOAT32: return *(const float *) p;
    case CR_DTYPE_FLOAT64: return *(const double *) p;
    case CR_DTYPE_INT32:   return *(const gint32 *) p;
    case CR_DTYPE_UINT8:   return *(const guint8 *) p;
    case CR_DTYPE_COUNT:
    default:               return 0.0;
    }
}

/* Float sums in PyTorch 1.13's order (cr-cpu-cascade-sum.c): n contiguous
 * elements, or out[c] = sum over r < reduce of x[r * inner + c]. */
float   cr_cpu_cascade_sum_f      (const float *x, gint64 n);
double  cr_cpu_cascade_sum_d      (const double *x, gint64 n);
void    cr_cpu_cascade_sum_cols_f (const float *x, gint64 reduce, gint64 inner, float *out);
void    cr_cpu_cascade_sum_cols_d (const double *x, gint64 reduce, gint64 inner, double *out);
/* The sum of every element of a strided x (the data at its offset), in the
 * order PyTorch walks a non-contiguous tensor; FALSE for a stride of 0. */
gboolean cr_cpu_cascade_sum_strided_f (const float *x, const gint64 *shape,
                                       const gint64 *strides, int ndim, float *out);
gboolean cr_cpu_cascade_sum_strided_d (const double *x, const gint64 *shape,
                                       const gint64 *strides, int ndim, double *out);

/* Converts one element between dtypes as a cast kernel does: floats to
 * integers truncate, anything to bool is "!= 0". */
static inline void
cr_cpu_convert_scalar (void       *dst,
                       CrDType     dst_dtype,
                       const void *src,
                       CrDType     src_dtype)
{
  if (dst_dtype == src_dtype)
    {
      memcpy (dst, src, cr_cpu_itemsize (dst_dtype));
      return;
    }
  /* Integers go to integers by two's-complement truncation (no double on
   * the way: int64 values above 2**53 stay exact). */
  if (src_dtype != CR_DTYPE_BOOL && !cr_dtype_is_floating (src_dtype)
      && dst_dtype != CR_DTYPE_BOOL)
    {
      gint64 v = src_dtype == CR_DTYPE_INT64 ? *(const gint64 *) src
                 : src_dtype == CR_DTYPE_INT32 ? *(const gint32 *) src
                 : *(const guint8 *) src;

      switch (dst_dtype)
        {
        case CR_DTYPE_INT64:   *(gint64 *) dst = v; break;
        case CR_DTYPE_INT32:   *(gint32 *) dst = (gint32) (guint32) (guint64) v; break;
        case CR_DTYPE_UINT8:   *(guint8 *) dst = (guint8) (guint64) v; break;
        case CR_DTYPE_FLOAT32: *(float *) dst = (float) v; break;
        case CR_DTYPE_FLOAT64: *(double *) dst = (double) v; break;
        case CR_DTYPE_BOOL:
        case CR_DTYPE_COUNT:
        default: break;
        }
      return;
    }
  {
    double v = cr_cpu_load_double (src, src_dtype);

    switch (dst_dtype)
      {
      case CR_DTYPE_BOOL:    *(guint8 *) dst = v != 0.0; break;
      case CR_DTYPE_INT64:   *(gint64 *) dst = cr_double_to_int64 (v); break;
      case CR_DTYPE_FLOAT32: *(float *) dst = (float) v; break;
      case CR_DTYPE_FLOAT64: *(double *) dst = v; break;
      case CR_DTYPE_INT32:   *(gint32 *) dst = cr_double_to_int32 (v); break;
      case CR_DTYPE_UINT8:   *(guint8 *) dst = cr_double_to_uint8 (v); break;
      case CR_DTYPE_COUNT:
      default: break;
      }
  }
}

/* ---- int32 and uint8 (cr-cpu-narrow.c) ----------------------------------- */

/* x for a kernel that computes integers in int64: a new ref of x unless x is
 * int32/uint8, else x cast to int64 on its device (first to common when that
 * is int32/uint8, so a Python -1 meets uint8 as 255). */
CrTensor *cr_cpu_widen             (const CrTensor  *x,
                                    CrDType          common,
                                    GError         **error);
/* Takes wide (which may be NULL): it cast to dtype when wide is int64 and
 * dtype int32/uint8, else wide itself. */
CrTensor *cr_cpu_narrow            (CrTensor        *wide,
                                    CrDType          dtype,
                                    GError         **error);
/* Copies wide (taken, may be NULL) into out with out's dtype. */
gboolean  cr_cpu_store_wide        (CrTensor        *out,
                                    CrTensor        *wide,
                                    GError         **error);

static inline gboolean
cr_cpu_is_narrow (const CrTensor *t)
{
  return t->dtype == CR_DTYPE_INT32 || t->dtype == CR_DTYPE_UINT8;
}

/* Largest element type, for scalar buffers on the stack. */
typedef union {
  guint8 b;
  gint32 i32;
  gint64 i;
  float  f;
  double d;
} CrScalarBuf;

/* ---- the strided iterator ------------------------------------------------
 *
 * Up to CR_ITER_MAX_OPERANDS tensors (operand 0 is the output) walked over one
 * shape. Broadcast dims have stride 0. Dims of size 1 are dropped and adjacent
 * dims that are contiguous in every operand are merged, so a contiguous
 * problem becomes one row. A row function gets the inner dim: its length, the
 * operands' pointers and their strides in elements. */

#define CR_ITER_MAX_OPERANDS 4

typedef void (*CrRowFunc) (gint64        n,
                           char *const  *ptrs,
                           const gint64 *strides,
                           gpointer      ctx);

typedef struct {
  int     n_operands;
  int     ndim;                                     /* >= 1 */
  gint64  numel;
  gint64  shape[CR_MAX_DIMS];
  gint64  strides[CR_ITER_MAX_OPERANDS][CR_MAX_DIMS];   /* bytes */
  gsize   itemsize[CR_ITER_MAX_OPERANDS];
  char   *data[CR_ITER_MAX_OPERANDS];
  gint64  inner_strides[CR_ITER_MAX_OPERANDS];          /* elements */
} CrCpuIter;

/* Sets iter up over shape; each operand is broadcast to it (its trailing dims
 * aligned; the caller has checked that the shapes broadcast). */
void      cr_cpu_iter_init             (CrCpuIter          *iter,
                                    const gint64    *shape,
                                    int              ndim,
                                    const CrTensor  *const *operands,
                                    int              n_operands);
/* An operand that is a single value held elsewhere (a converted scalar):
 * stride 0 everywhere. Call right after cr_cpu_iter_init, before cr_cpu_iter_run. */
void      cr_cpu_iter_set_scalar       (CrCpuIter          *iter,
                                    int              operand,
                                    void            *data,
                                    gsize            itemsize);
/* Calls fn over all rows, on the thread pool when the problem is large. */
void      cr_cpu_iter_run              (CrCpuIter          *iter,
                                    CrRowFunc        fn,
                                    gpointer         ctx);

/* The same on the calling thread only, rows in order. */
void      cr_cpu_iter_run_serial       (CrCpuIter          *iter,
                                    CrRowFunc        fn,
                                    gpointer         ctx);

/* ---- row functions ------------------------------------------------------
 *
 * One row of out[i] = EXPR(v) with v = x[i] (p[0] = out, p[1] = x): separate
 * loops for the contiguous and the broadcast-scalar case so that gcc vectorises
 * them. CR_VEC_CLONES adds an AVX2 copy picked at load time; with gcc it is
 * x86-64-v3 (AVX2 + FMA), so that the explicit fmaf of PyTorch's SLEEF
 * functions (cr-cpu-torch-math.h) is an instruction and their rows vectorise.
 * core is built with -ffp-contract=off: no other multiply-add is fused, so
 * both copies give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CR_VEC_CLONES __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define CR_VEC_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif

/* The head of a CrRowFunc definition, for the macros that define rows. */
/* Before a row function whose expression calls fma/fmaf: an FMA-instruction
 * clone picked at load time where the CPU has FMA, libm's exact fma where not
 * (the result is the same, one rounding, either way). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CR_FMA_CLONES __attribute__ ((target_clones ("fma", "default")))
#else
#define CR_FMA_CLONES
#endif

#define CR_ROW_FUNC(name)                                                      \
  static void                                                                  \
  name (gint64        n,                                                       \
        char *const  *p,                                                       \
        const gint64 *s,                                                       \
        gpointer      ctx)

#define CR_DEFINE_MAP_ROW(attrs, name, TO, TI, EXPR)                           \
  attrs CR_ROW_FUNC (name)                                                     \
  {                                                                            \
    TO *restrict o = (TO *) p[0];                                              \
    const TI *restrict x = (const TI *) p[1];                                  \
    gint64 so = s[0], sx = s[1];                                               \
                                                                               \
    if (so == 1 && sx == 1)                                                    \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          TI v = x[i];                                                         \
          o[i] = (EXPR);                                                       \
        }                                                                      \
    else if (so == 1 && sx == 0)                                               \
      {                                                                        \
        TI v = x[0];                                                           \
        TO r_ = (EXPR);                                                        \
        for (gint64 i = 0; i < n; i++)                                         \
          o[i] = r_;                                                           \
      }                                                                        \
    else                                                                       \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          TI v = x[i * sx];                                                    \
          o[i * so] = (EXPR);                                                  \
        }                                                                      \
  }

/* ---- shared helpers between the kernel files -------------------------------- */

/* The result of a raw cast (for operands whose dtype differs from the compute
 * dtype); same as cr_kernel_cast without dispatch. */
CrTensor *cr_cpu_cast              (const CrTensor  *x,
                                    CrDType          dtype,
                                    GError         **error);

/* TRUE when a and b are views of one storage that read it in different
 * orders, so that writing one while reading the other would see half-written
 * data (the caller copies first). */
gboolean  cr_cpu_overlaps_differently (const CrTensor *a,
                                    const CrTensor  *b);

/* exp(x) / exp(x - max) loops over a float buffer, used by softmax and random. */
void      cr_cpu_vexp_f32          (gint64           n,
                                    float           *out,
                                    const float     *x,
                                    float            shift);
void      cr_cpu_vexp_f64          (gint64           n,
                                    double          *out,
                                    const double    *x,
                                    double           shift);

/* The dims of a reduction as a bit mask of x's dims (all of them when
 * n_dims == 0; none for a 0-d x): wrapped, PyTorch's errors for an out of
 * range or repeated dim. */
gboolean  cr_cpu_reduce_dims       (const CrTensor  *x,
                                    const int       *dims,
                                    int              n_dims,
                                    guint32         *out_mask,
                                    GError         **error);

/* The dtype binary op (a CrBinaryOp) computes in and that of its result:
 * its row's rule (cr_binary_op_dtypes) over the result type of a and b, and
 * the checks every backend shares, with PyTorch's RuntimeErrors: no
 * subtraction with a bool operand; no int64 pow to a negative Python int. */
gboolean  cr_cpu_binary_dtypes     (guint            op,
                                    const CrTensor  *a,
                                    const CrTensor  *b,
                                    gboolean         on_cuda,
                                    CrDType         *out_compute,
                                    CrDType         *out_result,
                                    GError         **error);

/* add's "alpha must be integral for integral inputs" (ct the compute dtype). */
gboolean  cr_cpu_check_alpha       (CrDType          ct,
                                    double           alpha,
                                    GError         **error);
/* The checks of out = op(a, b) into an existing out: a and b broadcast
 * (shape, *ndim get the broadcast shape), out has that shape, and result
 * (the op's result dtype) can be cast to out's dtype (PyTorch's canCast). */
gboolean  cr_cpu_check_into        (const CrTensor  *out,
                                    const CrTensor  *a,
                                    const CrTensor  *b,
                                    CrDType          result,
                                    gint64          *shape,
                                    int             *ndim,
                                    GError         **error);

/* clamp's dtype rule every backend shares (PyTorch 1.13): *out_dtype gets
 * the compute and result dtype (an int64 tensor with a bound that no int64
 * holds computes in float32), *out_fill_nan whether the result is all NaN
 * (both bounds given and one NaN; a single NaN bound leaves x as it is).
 * FALSE with PyTorch's RuntimeError for a bound past float32's range. */
gboolean  cr_cpu_clamp_rule        (CrDType          dtype,
                                    gboolean         has_min,
                                    double           min,
                                    gboolean         has_max,
                                    double           max,
                                    CrDType         *out_dtype,
                                    gboolean        *out_fill_nan,
                                    GError         **error);
/* An int64 clamp bound from a double the rule kept int64: 2**63 (a script's
 * 2**63 - 1 rounded on its way through a double) saturates. */
gint64    cr_cpu_clamp_bound_to_int64 (double        v);

/* take/put's "<what>(): Expected a long tensor for index" unless int64. */
gboolean  cr_cpu_check_index_dtype (const CrTensor  *index,
                                    const char      *what,
                                    GError         **error);

/* torch.cat into a new tensor on device (the CUDA backend's cat too): PyTorch's
 * checks and promotion, 1-d empty inputs skipped, each input written into
 * its slice with cr_kernel_copy_into. n > 0. */
CrTensor *cr_cpu_cat_on            (CrTensor *const *tensors,
                                    guint            n,
                                    int              dim,
                                    CrDeviceType     device,
                                    GError         **error);

/* Wrong-dtype message of PyTorch's dispatch macros:
 * "\"abs_cpu\" not implemented for 'Bool'". */
void      cr_cpu_set_not_implemented (GError       **error,
                                    const char      *kernel,
                                    CrDType          dtype);

G_END_DECLS
