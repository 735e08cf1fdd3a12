/* cr-cuda-elementwise.cu — elementwise kernels of the CUDA backend: unary
 * functions, clamp, where, fill and copies/casts between any two strided
 * layouts (the table members unary, clamp, where, fill and copy of
 * gpu/cr-cuda-abi.h; binary and add_scaled are in gpu/cr-cuda-binary.cu, the
 * launch engine both use in gpu/cr-cuda-elementwise.cuh).
 *
 * The ABI's preconditions are assumed (and checked cheaply, a broken one
 * giving CR_CUDA_ERR_INVALID): core has broadcast every operand to out's shape
 * (stride 0) and cast it to the compute dtype; an output is disjoint from the
 * inputs or exactly equal to one.
 *
 * They mirror core/cpu/cr-cpu-unary.c and cr-cpu-copy.c op for op, with the
 * same formulas. The transcendental functions are CUDA's precise ones (expf,
 * tanhf, ...: within 1-4 ulp of the CPU's), never the __expf intrinsics. */
#include "cr-cuda-elementwise.cuh"

namespace {

/* ---- unary functions (cr-cpu-unary.c) --------------------------------------------- */

/* Which dtypes each op computes in, from its row (core has cast first). */
constexpr bool
unary_valid (int op, int dtype)
{
  return cr_cuda_unary_takes (op, dtype) != 0;
}

constexpr bool
unary_is_logical (int op)
{
  return cr_cuda_unary_rule (op) == CR_UNARY_RULE_LOGICAL;
}

/* The row's expression for v of type T (only instantiated for the dtypes
 * unary_valid allows); P0 P1 P2 are the row's parameters, 0 for a row
 * without. */
#define NONE T (0)
#define P0 p0
#define P1 p1
#define P2 p2
template <int OP, typename T>
struct UnaryFn
{
  typedef typename std::conditional<unary_is_logical (OP), uint8_t, T>::type Out;

  double p0, p1, p2;

  __device__ __forceinline__ Out
  operator() (T v) const
  {
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, ...)           \
    if constexpr (OP == CR_CUDA_UNARY_##ID)                                       \
      CR_ROW_EXPRESSION (T, Out, F, D, I, B)                                      \
    else
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
    return Out (0);
  }
};
#undef NONE
#undef P0
#undef P1
#undef P2

const char *const unary_names[] = {
#define CR_UNARY_OP(ID, name, ...) name,
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
};
static_assert (sizeof unary_names / sizeof unary_names[0] == CR_CUDA_UNARY_COUNT,
               "a name per unary op");

template <int OP>
int
unary_op (const Plan &plan, int dtype, const double *params, char *msg, size_t msg_size)
{
  const char *what = unary_names[OP];

  return with_row_dtype (dtype, what, msg, msg_size, [&] (auto dt, auto zero) -> int {
    typedef decltype (zero) T;
    if constexpr (unary_valid (OP, decltype (dt)::value))
      return launch<typename UnaryFn<OP, T>::Out, T> (
        plan, UnaryFn<OP, T> { params[0], params[1], params[2] }, what, msg, msg_size);
    return kRowDtypeRefused;
  });
}

/* ---- clamp, where, copies ------------------------------------------------------------ */

template <typename T>
struct ClampFn
{
  T    lo, hi;
  bool all_nan;      /* both bounds given, one NaN: lo (NaN) everywhere, as PyTorch 1.13 */

  __device__ __forceinline__ T
  operator() (T v) const
  {
    if (all_nan)
      return lo;
    v = v < lo ? lo : v;                 /* NaN fails both tests and stays; so does a */
    return v > hi ? hi : v;              /* single NaN bound */
  }
};

/* The float bounds of clamp: an absent one is infinite; both given and one
 * NaN makes both NaN (the CPU's rule, also applied by core before the call). */
template <typename T>
ClampFn<T>
clamp_float_bounds (int has_min, double min, int has_max, double max)
{
  ClampFn<T> f = { has_min ? (T) min : -(T) INFINITY, has_max ? (T) max : (T) INFINITY, false };

  if (has_min && has_max && (min != min || max != max))
    {
      f.lo = f.hi = (T) NAN;
      f.all_nan = true;
    }
  return f;
}

/* An int64 bound (a whole number): 2^63, a script's 2^63 - 1 rounded through
 * a double, saturates as on the CPU (convert would give INT64_MIN). */
inline int64_t
clamp_int64_bound (double v)
{
  return v >= 9223372036854775808.0 ? INT64_MAX : convert<int64_t> (v);
}

template <typename T>
struct WhereFn
{
  __device__ __forceinline__ T
  operator() (uint8_t c, T a, T b) const
  {
    return c ? a : b;
  }
};

template <typename To, typename From>
struct ConvertFn
{
  __device__ __forceinline__ To
  operator() (From v) const
  {
    return convert<To> (v);
  }
};

template <typename To>
int
copy_from (const Plan &plan, int src_dtype, char *msg, size_t msg_size)
{
  switch (src_dtype)
    {
    case CR_CUDA_BOOL:
      return launch<To, uint8_t> (plan, ConvertFn<To, uint8_t> (), "copy", msg, msg_size);
    case CR_CUDA_INT64:
      return launch<To, int64_t> (plan, ConvertFn<To, int64_t> (), "copy", msg, msg_size);
    case CR_CUDA_FLOAT32:
      return launch<To, float> (plan, ConvertFn<To, float> (), "copy", msg, msg_size);
    case CR_CUDA_FLOAT64:
      return launch<To, double> (plan, ConvertFn<To, double> (), "copy", msg, msg_size);
    case CR_CUDA_INT32:
      return launch<To, int32_t> (plan, ConvertFn<To, int32_t> (), "copy", msg, msg_size);
    case CR_CUDA_UINT8:
      return launch<To, byte_t> (plan, ConvertFn<To, byte_t> (), "copy", msg, msg_size);
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "copy: bad dtype %d",
                              src_dtype);
    }
}

/* fill: the value is held by the kernel (no device operand). */
template <typename T>
int
fill_as (const Plan &plan, double value, char *msg, size_t msg_size)
{
  return launch_srcs<T> (plan, ConvertFn<T, T> (), "fill", msg, msg_size,
                        src_of<T> (plan, 1, convert<T> (value)));
}

template <typename T>
int
where_as (const Plan &plan, char *msg, size_t msg_size)
{
  return launch<T, uint8_t, T, T> (plan, WhereFn<T> (), "where", msg, msg_size);
}

} // namespace

/* ---- the ABI entries ------------------------------------------------------------------- */

extern "C" int
cr_cuda_k_unary (int op, const CrCudaTensor *out, const CrCudaTensor *x, char *msg,
                 size_t msg_size)
{
  static const double no_params[3] = { 0, 0, 0 };

  return cr_cuda_k_unary_params (op, out, x, no_params, msg, msg_size);
}

extern "C" int
cr_cuda_k_unary_params (int op, const CrCudaTensor *out, const CrCudaTensor *x,
                        const double *params, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[2] = { out, x };
  Plan plan;
  int status;

  if (op < 0 || op >= CR_CUDA_UNARY_COUNT)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "unknown unary op %d", op);
  if (out == nullptr || x == nullptr || params == nullptr)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: NULL argument",
                            unary_names[op]);
  if (out->dtype != (unary_is_logical (op) ? (int) CR_CUDA_BOOL : x->dtype))
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: output dtype %s for input %s", unary_names[op],
                            dtype_name (out->dtype), dtype_name (x->dtype));
  status = plan_init (&plan, operands, 2, unary_names[op], msg, msg_size);
  if (status != CR_CUDA_OK)
    return status;

  switch (op)
    {
#define CR_UNARY_OP(ID, ...) \
    case CR_CUDA_UNARY_##ID:                                                        \
      return unary_op<CR_CUDA_UNARY_##ID> (plan, x->dtype, params, msg, msg_size);
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "../core/cr-unary-ops.def"
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "unknown unary op %d", op);
    }
}

extern "C" int
cr_cuda_k_clamp (const CrCudaTensor *out, const CrCudaTensor *x, int has_min, double min,
                 int has_max, double max, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[2] = { out, x };
  Plan plan;
  int status;

  if (out == nullptr || x == nullptr || out->dtype != x->dtype)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "clamp: output and input dtypes differ");
  status = plan_init (&plan, operands, 2, "clamp", msg, msg_size);
  if (status != CR_CUDA_OK)
    return status;

  switch (x->dtype)
    {
    case CR_CUDA_FLOAT32:
      return launch<float, float> (plan, clamp_float_bounds<float> (has_min, min, has_max, max),
                                   "clamp", msg, msg_size);
    case CR_CUDA_FLOAT64:
      return launch<double, double> (plan, clamp_float_bounds<double> (has_min, min, has_max, max),
                                     "clamp", msg, msg_size);
    case CR_CUDA_INT64:
      {
        ClampFn<int64_t> f = { has_min ? clamp_int64_bound (min) : INT64_MIN,
                               has_max ? clamp_int64_bound (max) : INT64_MAX, false };
        return launch<int64_t, int64_t> (plan, f, "clamp", msg, msg_size);
      }
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                              "\"clamp_cuda\" not implemented for '%s'", dtype_name (x->dtype));
    }
}

extern "C" int
cr_cuda_k_where (const CrCudaTensor *out, const CrCudaTensor *cond, const CrCudaTensor *a,
                 const CrCudaTensor *b, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[4] = { out, cond, a, b };
  Plan plan;
  int status;

  if (out == nullptr || cond == nullptr || a == nullptr || b == nullptr
      || cond->dtype != CR_CUDA_BOOL || a->dtype != out->dtype || b->dtype != out->dtype)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "where: expected a bool condition and one dtype for a, b and out");
  status = plan_init (&plan, operands, 4, "where", msg, msg_size);
  if (status != CR_CUDA_OK)
    return status;

  switch (out->dtype)
    {
    case CR_CUDA_BOOL:    return where_as<uint8_t> (plan, msg, msg_size);
    case CR_CUDA_INT64:   return where_as<int64_t> (plan, msg, msg_size);
    case CR_CUDA_FLOAT32: return where_as<float> (plan, msg, msg_size);
    case CR_CUDA_FLOAT64: return where_as<double> (plan, msg, msg_size);
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "where: bad dtype %d",
                              out->dtype);
    }
}

extern "C" int
cr_cuda_k_fill (const CrCudaTensor *out, double value, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[2] = { out, nullptr };
  Plan plan;
  int status = plan_init (&plan, operands, 2, "fill", msg, msg_size);

  if (status != CR_CUDA_OK)
    return status;
  if (plan.numel == 0)
    return CR_CUDA_OK;

  /* zeros() and zero_grad(): all-zero bits over a block are a memset. */
  if (value == 0.0 && !signbit (value) && plan.contiguous)
    {
      cudaError_t err = cudaMemsetAsync (plan.ptr[0], 0,
                                         (size_t) plan.numel * dtype_size (out->dtype),
                                         stream ());
      return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, "fill", msg, msg_size);
    }

  switch (out->dtype)
    {
    case CR_CUDA_BOOL:    return fill_as<uint8_t> (plan, value, msg, msg_size);
    case CR_CUDA_INT64:   return fill_as<int64_t> (plan, value, msg, msg_size);
    case CR_CUDA_FLOAT32: return fill_as<float> (plan, value, msg, msg_size);
    case CR_CUDA_FLOAT64: return fill_as<double> (plan, value, msg, msg_size);
    case CR_CUDA_INT32:   return fill_as<int32_t> (plan, value, msg, msg_size);
    case CR_CUDA_UINT8:   return fill_as<byte_t> (plan, value, msg, msg_size);
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "fill: bad dtype %d",
                              out->dtype);
    }
}

extern "C" int
cr_cuda_k_copy (const CrCudaTensor *out, const CrCudaTensor *src, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[2] = { out, src };
  Plan plan;
  int status;

  if (out == nullptr || src == nullptr)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "copy: NULL tensor");
  status = plan_init (&plan, operands, 2, "copy", msg, msg_size);
  if (status != CR_CUDA_OK)
    return status;
  if (plan.numel == 0)
    return CR_CUDA_OK;

  /* Same dtype, both one block in the same order: the copy engine's memcpy. */
  if (out->dtype == src->dtype && plan.contiguous && !plan.one[1])
    {
      cudaError_t err = cudaMemcpyAsync (plan.ptr[0], plan.ptr[1],
                                         (size_t) plan.numel * dtype_size (out->dtype),
                                         cudaMemcpyDeviceToDevice, stream ());
      return err == cudaSuccess ? CR_CUDA_OK : cr_cuda_fail (err, "copy", msg, msg_size);
    }

  switch (out->dtype)
    {
    case CR_CUDA_BOOL:    return copy_from<uint8_t> (plan, src->dtype, msg, msg_size);
    case CR_CUDA_INT64:   return copy_from<int64_t> (plan, src->dtype, msg, msg_size);
    case CR_CUDA_FLOAT32: return copy_from<float> (plan, src->dtype, msg, msg_size);
    case CR_CUDA_FLOAT64: return copy_from<double> (plan, src->dtype, msg, msg_size);
    case CR_CUDA_INT32:   return copy_from<int32_t> (plan, src->dtype, msg, msg_size);
    case CR_CUDA_UINT8:   return copy_from<byte_t> (plan, src->dtype, msg, msg_size);
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size, "copy: bad dtype %d",
                              out->dtype);
    }
}
