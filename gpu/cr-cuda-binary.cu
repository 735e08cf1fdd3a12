/* cr-cuda-binary.cu — the binary elementwise ops of the CUDA backend: the
 * table members binary (in place too: out may equal a) and add_scaled (a +
 * alpha*b) of gpu/cr-cuda-abi.h, on the launch engine of
 * gpu/cr-cuda-elementwise.cuh.
 *
 * They mirror core/cpu/cr-cpu-elementwise.c op for op, with the same formulas
 * in the same order, so that the arithmetic ops give the CPU's bits: where a
 * product feeds a sum (a + alpha*b, the backward helpers) __fmul_rn & co keep
 * nvcc from fusing them into an FMA, which would round once instead of twice.
 * Core has promoted and cast both operands to the compute dtype (the ABI). */
#include "cr-cuda-elementwise.cuh"

namespace {

/* ---- binary ops (cr-cpu-elementwise.c) --------------------------------------------- */

/* a + alpha*b shares the binary machinery as one more op. */
constexpr int OP_ADD_SCALED = CR_CUDA_BINARY_COUNT;

constexpr bool
binary_is_compare (int op)
{
  return op >= CR_CUDA_BINARY_EQ && op <= CR_CUDA_BINARY_LOGICAL_OR;
}

constexpr bool
binary_valid (int op, int dtype)
{
  switch (op)
    {
    case CR_CUDA_BINARY_ADD:
    case CR_CUDA_BINARY_MUL:
    case CR_CUDA_BINARY_MAXIMUM:
    case CR_CUDA_BINARY_MINIMUM:
    case OP_ADD_SCALED:
      return true;
    case CR_CUDA_BINARY_DIV:
    case CR_CUDA_BINARY_TANH_BACKWARD:
    case CR_CUDA_BINARY_SIGMOID_BACKWARD:
      return dtype == CR_CUDA_FLOAT32 || dtype == CR_CUDA_FLOAT64;
    case CR_CUDA_BINARY_SUB:
    case CR_CUDA_BINARY_POW:
    case CR_CUDA_BINARY_FLOOR_DIVIDE:
    case CR_CUDA_BINARY_REMAINDER:
    case CR_CUDA_BINARY_RELU_BACKWARD:
      return dtype != CR_CUDA_BOOL;
    default:
      return binary_is_compare (op);
    }
}

/* int64 pow by squaring; negative exponents as the CPU (and PyTorch). */
__device__ __forceinline__ int64_t
ipow (int64_t base, int64_t exp)
{
  int64_t result = 1;

  if (exp < 0)
    {
      if (base == 1)
        return 1;
      if (base == -1)
        return (exp & 1) ? -1 : 1;
      return 0;
    }
  while (exp)
    {
      if (exp & 1)
        result = wrap_mul (result, base);
      exp >>= 1;
      base = wrap_mul (base, base);
    }
  return result;
}

/* PyTorch's div_floor for floating point, as the CPU. */
template <typename T>
__device__ __forceinline__ T
floordiv_float (T a, T b)
{
  T mod, div, floordiv;

  if (b == 0)
    return a / b;
  mod = m_fmod (a, b);
  div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1;
  if (div != 0)
    {
      floordiv = m_floor (div);
      if (div - floordiv > T (0.5))
        floordiv += 1;
    }
  else
    floordiv = m_copysign (T (0), a / b);
  return floordiv;
}

template <int OP, typename T>
struct BinaryFn
{
  typedef typename std::conditional<binary_is_compare (OP), uint8_t, T>::type Out;

  T    alpha;        /* OP_ADD_SCALED */
  bool fast_pow;     /* POW: b is one value; its common exponents take the CPU's short cuts */

  __device__ __forceinline__ Out
  operator() (T x, T y) const
  {
    if constexpr (OP == CR_CUDA_BINARY_ADD)
      {
        if constexpr (is_bool_v<T>)
          return x | y;
        else if constexpr (is_float_v<T>)
          return x + y;
        else
          return wrap_add (x, y);
      }
    else if constexpr (OP == CR_CUDA_BINARY_SUB)
      {
        if constexpr (is_float_v<T>)
          return x - y;
        else
          return wrap_sub (x, y);
      }
    else if constexpr (OP == CR_CUDA_BINARY_MUL)
      {
        if constexpr (is_bool_v<T>)
          return x & y;
        else if constexpr (is_float_v<T>)
          return x * y;
        else
          return wrap_mul (x, y);
      }
    else if constexpr (OP == CR_CUDA_BINARY_DIV)
      return x / y;
    else if constexpr (OP == CR_CUDA_BINARY_POW)
      {
        if constexpr (is_float_v<T>)
          {
            /* pow_tensor_scalar_optimized's cases, taken by the CPU when the
             * exponent is one value. */
            if (fast_pow)
              {
                if (y == T (2))
                  return x * x;
                if (y == T (3))
                  return x * x * x;
                if (y == T (0.5))
                  return m_sqrt (x);
                if (y == T (-0.5))
                  return T (1) / m_sqrt (x);
                if (y == T (-1))
                  return T (1) / x;
                if (y == T (-2))
                  return T (1) / (x * x);
              }
            return m_pow (x, y);
          }
        else
          return ipow (x, y);
      }
    else if constexpr (OP == CR_CUDA_BINARY_MAXIMUM)
      {
        if constexpr (is_bool_v<T>)
          return x | y;
        else if constexpr (is_float_v<T>)
          return x != x ? x : (x > y ? x : y);      /* NaN propagates */
        else
          return x > y ? x : y;
      }
    else if constexpr (OP == CR_CUDA_BINARY_MINIMUM)
      {
        if constexpr (is_bool_v<T>)
          return x & y;
        else if constexpr (is_float_v<T>)
          return x != x ? x : (x < y ? x : y);
        else
          return x < y ? x : y;
      }
    else if constexpr (OP == CR_CUDA_BINARY_FLOOR_DIVIDE)
      {
        if constexpr (is_float_v<T>)
          return floordiv_float (x, y);
        else
          {
            /* Division by zero writes 0 (the ABI: core raises first where
             * it can); INT64_MIN // -1 wraps. Neither may fault. */
            if (y == 0)
              return 0;
            if (y == -1)
              return (int64_t) (0ull - (uint64_t) x);
            int64_t q = x / y;
            return ((x % y) != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
          }
      }
    else if constexpr (OP == CR_CUDA_BINARY_REMAINDER)
      {
        if constexpr (is_float_v<T>)
          {
            T mod = m_fmod (x, y);
            return (mod != 0 && (y < 0) != (mod < 0)) ? mod + y : mod;
          }
        else
          {
            if (y == 0 || y == -1)
              return 0;
            int64_t r = x % y;
            return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
          }
      }
    else if constexpr (OP == CR_CUDA_BINARY_EQ)
      return x == y;
    else if constexpr (OP == CR_CUDA_BINARY_NE)
      return x != y;
    else if constexpr (OP == CR_CUDA_BINARY_LT)
      return x < y;
    else if constexpr (OP == CR_CUDA_BINARY_LE)
      return x <= y;
    else if constexpr (OP == CR_CUDA_BINARY_GT)
      return x > y;
    else if constexpr (OP == CR_CUDA_BINARY_GE)
      return x >= y;
    else if constexpr (OP == CR_CUDA_BINARY_LOGICAL_AND)
      return (x != T (0)) & (y != T (0));
    else if constexpr (OP == CR_CUDA_BINARY_LOGICAL_OR)
      return (x != T (0)) | (y != T (0));
    else if constexpr (OP == CR_CUDA_BINARY_TANH_BACKWARD)
      return mul_rn (x, sub_rn (T (1), mul_rn (y, y)));            /* x * (1 - y*y) */
    else if constexpr (OP == CR_CUDA_BINARY_SIGMOID_BACKWARD)
      return mul_rn (mul_rn (x, sub_rn (T (1), y)), y);            /* x * (1 - y) * y */
    else if constexpr (OP == CR_CUDA_BINARY_RELU_BACKWARD)
      return y <= T (0) ? T (0) : x;
    else
      {
        static_assert (OP == OP_ADD_SCALED, "unknown binary op");
        if constexpr (is_bool_v<T>)
          return x | (alpha & y);
        else
          return add_rn (x, mul_rn (alpha, y));                    /* x + alpha*y */
      }
  }
};

const char *const binary_names[] = {
  "add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide", "remainder",
  "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "tanh_backward",
  "sigmoid_backward", "threshold_backward", "add_scaled",
};
static_assert (sizeof binary_names / sizeof binary_names[0] == CR_CUDA_BINARY_COUNT + 1,
               "a name per binary op");

template <int OP>
int
binary_op (const Plan &plan, int dtype, double alpha, char *msg, size_t msg_size)
{
  const char *what = binary_names[OP];

  switch (dtype)
    {
#define CASE(DT, T)                                                                \
    case DT:                                                                       \
      if constexpr (binary_valid (OP, DT))                                         \
        {                                                                          \
          BinaryFn<OP, T> f;                                                       \
          f.alpha = convert<T> (alpha);                                            \
          f.fast_pow = plan.one[2];                                                \
          return launch<typename BinaryFn<OP, T>::Out, T, T> (plan, f, what, msg, msg_size); \
        }                                                                          \
      break;
    CASE (CR_CUDA_BOOL, uint8_t)
    CASE (CR_CUDA_INT64, int64_t)
    CASE (CR_CUDA_FLOAT32, float)
    CASE (CR_CUDA_FLOAT64, double)
#undef CASE
    default:
      break;
    }
  return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                          "\"%s_cuda\" not implemented for '%s'", what, dtype_name (dtype));
}

/* Checks the dtypes the binary ABI promises: a and b of the compute dtype, out
 * of that or bool for comparisons. */
int
binary_run (int op, const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
            double alpha, char *msg, size_t msg_size)
{
  const CrCudaTensor *operands[3] = { out, a, b };
  const char *what = binary_names[op];
  int dtype, out_dtype, status;
  Plan plan;

  if (out == nullptr || a == nullptr || b == nullptr)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: NULL tensor", what);
  dtype = a->dtype;
  out_dtype = binary_is_compare (op) ? CR_CUDA_BOOL : dtype;
  if (b->dtype != dtype || out->dtype != out_dtype)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: dtypes %s, %s -> %s do not match the op", what,
                            dtype_name (a->dtype), dtype_name (b->dtype),
                            dtype_name (out->dtype));
  status = plan_init (&plan, operands, 3, what, msg, msg_size);
  if (status != CR_CUDA_OK)
    return status;

  switch (op)
    {
#define CASE(OP) case OP: return binary_op<OP> (plan, dtype, alpha, msg, msg_size);
    CASE (CR_CUDA_BINARY_ADD)
    CASE (CR_CUDA_BINARY_SUB)
    CASE (CR_CUDA_BINARY_MUL)
    CASE (CR_CUDA_BINARY_DIV)
    CASE (CR_CUDA_BINARY_POW)
    CASE (CR_CUDA_BINARY_MAXIMUM)
    CASE (CR_CUDA_BINARY_MINIMUM)
    CASE (CR_CUDA_BINARY_FLOOR_DIVIDE)
    CASE (CR_CUDA_BINARY_REMAINDER)
    CASE (CR_CUDA_BINARY_EQ)
    CASE (CR_CUDA_BINARY_NE)
    CASE (CR_CUDA_BINARY_LT)
    CASE (CR_CUDA_BINARY_LE)
    CASE (CR_CUDA_BINARY_GT)
    CASE (CR_CUDA_BINARY_GE)
    CASE (CR_CUDA_BINARY_LOGICAL_AND)
    CASE (CR_CUDA_BINARY_LOGICAL_OR)
    CASE (CR_CUDA_BINARY_TANH_BACKWARD)
    CASE (CR_CUDA_BINARY_SIGMOID_BACKWARD)
    CASE (CR_CUDA_BINARY_RELU_BACKWARD)
    CASE (OP_ADD_SCALED)
#undef CASE
    default:
      return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "unknown binary op %d", op);
    }
}

} // namespace

/* ---- the ABI entries ------------------------------------------------------------------- */

extern "C" int
cr_cuda_k_binary (int op, const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
                  char *msg, size_t msg_size)
{
  if (op < 0 || op >= CR_CUDA_BINARY_COUNT)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "unknown binary op %d", op);
  return binary_run (op, out, a, b, 0.0, msg, msg_size);
}

extern "C" int
cr_cuda_k_add_scaled (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
                      double alpha, char *msg, size_t msg_size)
{
  return binary_run (OP_ADD_SCALED, out, a, b, alpha, msg, msg_size);
}
