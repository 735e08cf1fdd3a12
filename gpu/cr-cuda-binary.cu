/* cr-cuda-binary.cu — the binary elementwise ops of the CUDA backend: the
 * table members binary (in place too: out may equal a) and add_scaled (a +
 * alpha*b) of gpu/cr-cuda-abi.h, on the launch engine of
 * gpu/cr-cuda-elementwise.cuh.
 *
 * The functor is generated from the rows of core/cr-binary-ops.def: the same
 * F, D, I, B expressions as the CPU's rows, so that the arithmetic ops give the
 * CPU's bits: where a product feeds a sum (a + alpha*b, the backward helpers)
 * __fmul_rn & co (cr_mul_rn in a row) keep nvcc from fusing them into an FMA,
 * which would round once instead of twice. Core has promoted and cast both
 * operands to the compute dtype (the ABI). */
#include "cr-cuda-elementwise.cuh"
#include "../core/cr-binary-math.h"

namespace {

/* ---- binary ops (cr-cpu-elementwise.c) --------------------------------------------- */

/* a + alpha*b shares the binary machinery as one more op. */
constexpr int OP_ADD_SCALED = CR_CUDA_BINARY_COUNT;

constexpr bool
binary_is_compare (int op)
{
  return op != OP_ADD_SCALED && cr_cuda_binary_rule (op) == CR_BINARY_RULE_COMPARE;
}

/* Whether op computes in dtype: its row's rule (a + alpha*b: every dtype). */
constexpr bool
binary_valid (int op, int dtype)
{
  return op == OP_ADD_SCALED || cr_cuda_binary_takes (op, dtype);
}

/* The rows' F, D, I, B of core/cr-binary-ops.def, for x and y of type T. */
#define NONE ((void) x, (void) y, 0)
template <int OP, typename T>
struct BinaryFn
{
  typedef typename std::conditional<binary_is_compare (OP), uint8_t, T>::type Out;

  T    alpha;        /* OP_ADD_SCALED */
  bool fast_pow;     /* POW: b is one value; its common exponents take the CPU's short cuts */

  __device__ __forceinline__ Out
  operator() (T x, T y) const
  {
    if constexpr (OP == CR_CUDA_BINARY_POW && is_float_v<T>)
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
      }
    if constexpr (OP == OP_ADD_SCALED)
      {
        if constexpr (is_bool_v<T>)
          return x | (alpha & y);
        else
          return add_rn (x, mul_rn (alpha, y));                    /* x + alpha*y */
      }
    else
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, ...)        \
    if constexpr (OP == CR_CUDA_BINARY_##ID)                                    \
      CR_ROW_EXPRESSION (T, Out, F, D, I, B)                                    \
    else
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "../core/cr-binary-ops.def"
    return Out (0);
  }
};
#undef NONE

const char *const binary_names[] = {
#define CR_BINARY_OP(ID, name, ...) name,
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "../core/cr-binary-ops.def"
  "add_scaled",
};
static_assert (sizeof binary_names / sizeof binary_names[0] == CR_CUDA_BINARY_COUNT + 1,
               "a name per binary op");

template <int OP>
int
binary_op (const Plan &plan, int dtype, double alpha, char *msg, size_t msg_size)
{
  const char *what = binary_names[OP];

  return with_row_dtype (dtype, what, msg, msg_size, [&] (auto dt, auto zero) -> int {
    typedef decltype (zero) T;
    if constexpr (binary_valid (OP, decltype (dt)::value))
      {
        BinaryFn<OP, T> f;
        f.alpha = convert<T> (alpha);
        f.fast_pow = plan.one[2];
        return launch<typename BinaryFn<OP, T>::Out, T, T> (plan, f, what, msg, msg_size);
      }
    return kRowDtypeRefused;
  });
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
#define CR_BINARY_OP(ID, ...) CASE (CR_CUDA_BINARY_##ID)
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "../core/cr-binary-ops.def"
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
