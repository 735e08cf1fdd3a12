/* cr-cpu-elementwise.c — binary elementwise ops with broadcasting and type
 * promotion (cr_kernel_binary and its in-place form), a + alpha*b, clamp and
 * where.
 *
 * The ops and their row functions come from core/cr-binary-ops.def. Every
 * op runs in the compute dtype of its row's rule (PyTorch's result type,
 * float32 for true division of integers). An operand of another dtype is converted first: a
 * single value goes on the stack, a tensor is cast into a temporary. The loops
 * then see operands of one type: a contiguous row, a row against a scalar, or a
 * strided row, each its own loop so that gcc vectorises it. */
#include "cr-cpu-private.h"
#include "cr-cpu-torch-math.h"
#include "cr-binary-math.h"

#include <float.h>
#include <math.h>

/* One row of out[i] = EXPR(x = a[i], y = b[i]) (p[0] = out, p[1] = a, p[2] = b).
 * PRELUDE runs once per row (reads ctx). */
#define DEFINE_ZIP_ROW(name, TO, T, PRELUDE, EXPR)                             \
  CR_ROW_FUNC (name)                                                           \
  {                                                                            \
    TO *restrict o = (TO *) p[0];                                              \
    const T *restrict a = (const T *) p[1];                                    \
    const T *restrict b = (const T *) p[2];                                    \
    gint64 so = s[0], sa = s[1], sb = s[2];                                    \
    PRELUDE;                                                                   \
                                                                               \
    if (so == 1 && sa == 1 && sb == 1)                                         \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          T x = a[i], y = b[i];                                                \
          o[i] = (EXPR);                                                       \
        }                                                                      \
    else if (so == 1 && sa == 1 && sb == 0)                                    \
      {                                                                        \
        T y = b[0];                                                            \
        for (gint64 i = 0; i < n; i++)                                         \
          {                                                                    \
            T x = a[i];                                                        \
            o[i] = (EXPR);                                                     \
          }                                                                    \
      }                                                                        \
    else if (so == 1 && sa == 0 && sb == 1)                                    \
      {                                                                        \
        T x = a[0];                                                            \
        for (gint64 i = 0; i < n; i++)                                         \
          {                                                                    \
            T y = b[i];                                                        \
            o[i] = (EXPR);                                                     \
          }                                                                    \
      }                                                                        \
    else                                                                       \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          T x = a[i * sa], y = b[i * sb];                                      \
          o[i * so] = (EXPR);                                                  \
        }                                                                      \
  }

#define NO_PRELUDE (void) ctx

/* pow with PyTorch's fast paths for common exponents (same results as its
 * pow_tensor_scalar_optimized kernel). VPOW is what its vectorised loop
 * computes: on a row whose operands are contiguous or a single value, blocks
 * of 16 go through VPOW and the tail of n % 16 through POW (libm), as
 * cpu_kernel_vec does; other strides are all POW. */
#define DEFINE_POW_ROW(name, T, POW, VPOW, SQRT)                               \
  CR_ROW_FUNC (name)                                                           \
  {                                                                            \
    T *restrict o = (T *) p[0];                                                \
    const T *restrict a = (const T *) p[1];                                    \
    const T *restrict b = (const T *) p[2];                                    \
    gint64 so = s[0], sa = s[1], sb = s[2];                                    \
    gint64 n_vec = n - n % 16;                                                 \
                                                                               \
    if (sb == 0 && so == 1 && sa == 1)                                         \
      {                                                                        \
        T y = b[0];                                                            \
        if (y == 2)                                                            \
          for (gint64 i = 0; i < n; i++) o[i] = a[i] * a[i];                   \
        else if (y == 3)                                                       \
          for (gint64 i = 0; i < n; i++) o[i] = a[i] * a[i] * a[i];            \
        else if (y == (T) 0.5)                                                 \
          for (gint64 i = 0; i < n; i++) o[i] = SQRT (a[i]);                   \
        else if (y == (T) -0.5)                                                \
          for (gint64 i = 0; i < n; i++) o[i] = 1 / SQRT (a[i]);               \
        else if (y == -1)                                                      \
          for (gint64 i = 0; i < n; i++) o[i] = 1 / a[i];                      \
        else if (y == -2)                                                      \
          for (gint64 i = 0; i < n; i++) o[i] = 1 / (a[i] * a[i]);             \
        else                                                                   \
          for (gint64 i = 0; i < n; i++)                                       \
            o[i] = i < n_vec ? VPOW (a[i], y) : POW (a[i], y);                 \
        return;                                                                \
      }                                                                        \
    if (so != 1 || (sa != 0 && sa != 1) || (sb != 0 && sb != 1))              \
      n_vec = 0;                                                               \
    for (gint64 i = 0; i < n; i++)                                             \
      o[i * so] = i < n_vec ? VPOW (a[i * sa], b[i * sb])                      \
                            : POW (a[i * sa], b[i * sb]);                      \
  }

/* float32: SLEEF's powf in the vectorised blocks, as PyTorch on AVX2. */
DEFINE_POW_ROW (own_POW_f, float, powf, cr_torch_powf, sqrtf)
DEFINE_POW_ROW (own_POW_d, double, pow, pow, sqrt)

/* ---- rows --------------------------------------------------------------- */

/* The row functions of every op of cr-binary-ops.def, one per dtype; the
 * table below refers to all four, the driver calls only those of the dtypes
 * its rule computes in (the others compute NONE, a 0). */
#define NONE ((void) x, (void) y, 0)
/* The result's C type: bool for COMPARE, else the computing type. */
#define OUT_ARITH(T)       T
#define OUT_ARITH_BOOL(T)  T
#define OUT_FLOAT(T)       T
#define OUT_FLOATS_ONLY(T) T
#define OUT_COMPARE(T)     guint8
#define OUT_INTEGERS(T)    T
#define OUT_INT64(T)       T
/* The float rows of a ZIP row, or an OWN row's hand-written ones. With an
 * FMA clone, a row that calls fmaf (tanh_backward, as PyTorch's kernel
 * rounds once) gets the instruction rather than libm's call; core's
 * -ffp-contract=off keeps every other row's roundings as written. */
#define FLOAT_ROWS_ZIP(ID, rule, F, D)                                         \
  CR_FMA_CLONES                                                                \
  DEFINE_ZIP_ROW (own_##ID##_f, OUT_##rule (float), float, NO_PRELUDE, F)      \
  CR_FMA_CLONES                                                                \
  DEFINE_ZIP_ROW (own_##ID##_d, OUT_##rule (double), double, NO_PRELUDE, D)
#define FLOAT_ROWS_OWN(ID, rule, F, D)

#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, ...)              \
  FLOAT_ROWS_##cpu (ID, rule, F, D)                                                   \
  DEFINE_ZIP_ROW (i_##ID, OUT_##rule (gint64), gint64, NO_PRELUDE, I)                 \
  DEFINE_ZIP_ROW (b_##ID, OUT_##rule (guint8), guint8, NO_PRELUDE, B)
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "cr-binary-ops.def"
#undef NONE

#define WRAP_I(EXPR) ((gint64) (EXPR))

/* a + alpha * b: ctx points at alpha in the compute dtype. One rounding, as
 * PyTorch's vectorised add (Vectorized::fmadd) on a CPU with FMA, so that an
 * optimizer's add_(grad, alpha=-lr) gives PyTorch's bits; the FMA clone is
 * vectorised, the default one calls libm's exact fma. */
CR_FMA_CLONES DEFINE_ZIP_ROW (add_scaled_f, float, float, const float alpha = *(const float *) ctx,
                              fmaf (alpha, y, x))
CR_FMA_CLONES DEFINE_ZIP_ROW (add_scaled_d, double, double,
                              const double alpha = *(const double *) ctx, fma (alpha, y, x))
DEFINE_ZIP_ROW (add_scaled_i, gint64, gint64, const guint64 alpha = *(const guint64 *) ctx,
                WRAP_I ((guint64) x + alpha * (guint64) y))
DEFINE_ZIP_ROW (add_scaled_b, guint8, guint8, const guint8 alpha = *(const guint8 *) ctx,
                x | (alpha & y))

/* The internal op for a + alpha*b shares the driver. */
#define OP_ADD_SCALED CR_BINARY_COUNT

typedef struct {
  CrRowFunc rows[CR_DTYPE_COUNT];
} BinaryInfo;

#define CR_BINARY_OP(ID, ...)                                                          \
  [CR_BINARY_##ID] = { { [CR_DTYPE_BOOL] = b_##ID, [CR_DTYPE_INT64] = i_##ID,           \
                         [CR_DTYPE_FLOAT32] = own_##ID##_f,                             \
                         [CR_DTYPE_FLOAT64] = own_##ID##_d } },
#define CR_BINARY_KERNEL CR_BINARY_OP
static const BinaryInfo binary_info[] = {
#include "cr-binary-ops.def"
  [OP_ADD_SCALED] = { { [CR_DTYPE_BOOL] = add_scaled_b, [CR_DTYPE_INT64] = add_scaled_i,
                        [CR_DTYPE_FLOAT32] = add_scaled_f, [CR_DTYPE_FLOAT64] = add_scaled_d } },
};
G_STATIC_ASSERT (G_N_ELEMENTS (binary_info) == CR_BINARY_COUNT + 1);

/* ---- the driver ---------------------------------------------------------- */

typedef struct {
  CrDType  compute;     /* the dtype the rows see */
  CrDType  result;      /* what the op gives */
  CrRowFunc row;
} BinaryPlan;

gboolean
cr_cpu_binary_dtypes (guint            op,
                      const CrTensor  *a,
                      const CrTensor  *b,
                      gboolean         on_cuda,
                      CrDType         *out_compute,
                      CrDType         *out_result,
                      GError         **error)
{
  CrDType promoted = cr_dtype_result_type (a, b);

  if (op == CR_BINARY_SUB && (a->dtype == CR_DTYPE_BOOL || b->dtype == CR_DTYPE_BOOL))
    {
      if (a->dtype == CR_DTYPE_BOOL && b->dtype == CR_DTYPE_BOOL)
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                             "Subtraction, the `-` operator, with two bool tensors is not "
                             "supported. Use the `^` or `logical_xor()` operator instead.");
      else
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                             "Subtraction, the `-` operator, with a bool tensor is not "
                             "supported. If you are trying to invert a mask, use the `~` or "
                             "`logical_not()` operator instead.");
      return FALSE;
    }
  if (op == OP_ADD_SCALED)
    {
      *out_compute = *out_result = promoted;
      return TRUE;
    }
  if (!cr_binary_op_dtypes (op, promoted, on_cuda, out_compute, out_result, error))
    return FALSE;
  /* Only a Python int exponent is known here (a tensor's values are not
   * read); a wrapped number lives on the host whatever the other operand. */
  if (op == CR_BINARY_POW && *out_compute == CR_DTYPE_INT64 && b->is_wrapped_number
      && b->device == CR_DEVICE_CPU && cr_tensor_get_flat (b, 0) < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Integers to negative integer powers are not allowed.");
      return FALSE;
    }
  return TRUE;
}

/* Chooses the compute dtype and checks PyTorch's dtype rules. */
static gboolean
plan_binary (guint            op,
             const CrTensor  *a,
             const CrTensor  *b,
             double           alpha,
             BinaryPlan      *plan,
             GError         **error)
{
  if (!cr_cpu_binary_dtypes (op, a, b, FALSE, &plan->compute, &plan->result, error))
    return FALSE;
  plan->row = binary_info[op].rows[plan->compute];
  if (plan->row == NULL)
    {
      cr_cpu_set_not_implemented (error, op == OP_ADD_SCALED ? "add" : cr_binary_op_name (op),
                                  plan->compute);
      return FALSE;
    }
  if (op == OP_ADD_SCALED && !cr_cpu_check_alpha (plan->compute, alpha, error))
    return FALSE;
  return TRUE;
}

static void
find_zero_row (gint64        n,
               char *const  *p,
               const gint64 *s,
               gpointer      ctx)
{
  const gint64 *x = (const gint64 *) p[0];
  gboolean *found = ctx;

  for (gint64 i = 0; i < n; i++)
    if (x[i * s[0]] == 0)
      *found = TRUE;
}

/* An operand as the rows read it: a tensor of the compute dtype, or a single
 * value converted onto the stack. */
typedef struct {
  const CrTensor *t;
  CrTensor       *owned;
  CrDType         dtype;
  gboolean        is_scalar;
  CrScalarBuf     scalar;
} Operand;

static gboolean
operand_init (Operand         *op,
              const CrTensor  *t,
              CrDType          ct,
              const CrTensor  *out,
              GError         **error)
{
  op->t = t;
  op->owned = NULL;
  op->dtype = ct;
  op->is_scalar = FALSE;
  if (t->numel == 1)
    {
      cr_cpu_convert_scalar (&op->scalar, ct, cr_cpu_data (t), t->dtype);
      op->is_scalar = TRUE;
    }
  else if (t->dtype != ct)
    {
      op->owned = cr_cpu_cast (t, ct, error);
      op->t = op->owned;
    }
  else if (out != NULL && cr_cpu_overlaps_differently (out, t))
    {
      /* x += x.t(): read a copy, not memory being written. */
      op->owned = cr_tensor_copy (t, error);
      op->t = op->owned;
    }
  return op->t != NULL;
}

static void
operand_clear (Operand *op)
{
  g_clear_pointer (&op->owned, cr_tensor_unref);
}

/* Runs out = row(a, b) over out's shape. */
static void
run_rows (CrRowFunc     row,
          CrTensor     *out,
          Operand      *operands,
          int           n_operands,
          gpointer      ctx)
{
  const CrTensor *tensors[CR_ITER_MAX_OPERANDS];
  gboolean all_scalar = TRUE;
  CrCpuIter iter;

  for (int i = 0; i < n_operands; i++)
    all_scalar = all_scalar && operands[i].is_scalar;

  if (out->numel == 1 && all_scalar)
    {
      static const gint64 unit_strides[CR_ITER_MAX_OPERANDS] = { 1, 1, 1, 1 };
      char *ptrs[CR_ITER_MAX_OPERANDS] = { cr_cpu_data (out) };

      for (int i = 0; i < n_operands; i++)
        ptrs[i + 1] = (char *) &operands[i].scalar;
      row (1, ptrs, unit_strides, ctx);
      return;
    }

  /* Small contiguous operands of out's shape (the common case in scalar and
   * small-tensor scripts): one row, no iterator. Large ones go through the
   * iterator, which splits them over the thread pool. */
  if (out->numel < 2 * CR_PARALLEL_GRAIN && cr_cpu_is_contiguous (out))
    {
      gint64 strides[CR_ITER_MAX_OPERANDS] = { 1 };
      char *ptrs[CR_ITER_MAX_OPERANDS] = { cr_cpu_data (out) };
      gboolean simple = TRUE;

      for (int i = 0; simple && i < n_operands; i++)
        {
          const CrTensor *t = operands[i].t;

          if (operands[i].is_scalar)
            {
              ptrs[i + 1] = (char *) &operands[i].scalar;
              strides[i + 1] = 0;
            }
          else if (t->numel == out->numel && cr_cpu_is_contiguous (t))
            {
              ptrs[i + 1] = cr_cpu_data (t);
              strides[i + 1] = 1;
            }
          else
            simple = FALSE;
        }
      if (simple)
        {
          if (out->numel > 0)
            row (out->numel, ptrs, strides, ctx);
          return;
        }
    }

  tensors[0] = out;
  for (int i = 0; i < n_operands; i++)
    tensors[i + 1] = operands[i].is_scalar ? NULL : operands[i].t;
  cr_cpu_iter_init (&iter, out->shape, out->ndim, tensors, n_operands + 1);
  for (int i = 0; i < n_operands; i++)
    if (operands[i].is_scalar)
      cr_cpu_iter_set_scalar (&iter, i + 1, &operands[i].scalar, cr_cpu_itemsize (operands[i].dtype));
  cr_cpu_iter_run (&iter, row, ctx);
}

/* Computes op into out, whose dtype is plan->result and whose shape is the
 * broadcast shape. */
static gboolean
binary_run (guint             op,
            const BinaryPlan *plan,
            CrTensor         *out,
            const CrTensor   *a,
            const CrTensor   *b,
            double            alpha,
            GError          **error)
{
  Operand operands[2];
  CrScalarBuf alpha_buf;
  gboolean ok = FALSE;

  if (!operand_init (&operands[0], a, plan->compute, out, error))
    return FALSE;
  if (!operand_init (&operands[1], b, plan->compute, out, error))
    goto out;

  if (plan->compute == CR_DTYPE_INT64 && op != OP_ADD_SCALED && cr_binary_op_divides (op))
    {
      gboolean zero = FALSE;

      if (operands[1].is_scalar)
        zero = operands[1].scalar.i == 0;
      else
        {
          const CrTensor *t = operands[1].t;
          CrCpuIter iter;

          cr_cpu_iter_init (&iter, t->shape, t->ndim, &t, 1);
          cr_cpu_iter_run (&iter, find_zero_row, &zero);
        }
      if (zero)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "ZeroDivisionError");
          goto out;
        }
    }

  if (op == OP_ADD_SCALED)
    cr_cpu_convert_scalar (&alpha_buf, plan->compute, &alpha, CR_DTYPE_FLOAT64);

  run_rows (plan->row, out, operands, 2, &alpha_buf);
  ok = TRUE;

out:
  operand_clear (&operands[0]);
  operand_clear (&operands[1]);
  return ok;
}

static CrTensor *
binary_new (guint            op,
            const CrTensor  *a,
            const CrTensor  *b,
            double           alpha,
            GError         **error)
{
  BinaryPlan plan;
  gint64 shape[CR_MAX_DIMS];
  const gint64 *out_shape = a->shape;
  int ndim = a->ndim;
  CrTensor *out;

  if (!plan_binary (op, a, b, alpha, &plan, error))
    return NULL;
  if (!cr_shape_equal (a->shape, a->ndim, b->shape, b->ndim))
    {
      if (!cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
        return NULL;
      out_shape = shape;
    }
  out = cr_tensor_new_empty (out_shape, ndim, plan.result, CR_DEVICE_CPU, error);
  if (out != NULL && !binary_run (op, &plan, out, a, b, alpha, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

gboolean
cr_cpu_check_alpha (CrDType   ct,
                    double    alpha,
                    GError  **error)
{
  if (!cr_dtype_is_floating (ct) && alpha != floor (alpha))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "For integral input tensors, argument alpha must not be a "
                           "floating point number.");
      return FALSE;
    }
  return TRUE;
}

/* PyTorch's canCast: no float into an integer, nothing but bool into bool. */
static gboolean
can_cast (CrDType from,
          CrDType to)
{
  if (cr_dtype_is_floating (from) && !cr_dtype_is_floating (to))
    return FALSE;
  if (from != CR_DTYPE_BOOL && to == CR_DTYPE_BOOL)
    return FALSE;
  return TRUE;
}

gboolean
cr_cpu_check_into (const CrTensor  *out,
                   const CrTensor  *a,
                   const CrTensor  *b,
                   CrDType          result,
                   gint64          *shape,
                   int             *ndim,
                   GError         **error)
{
  if (!cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, ndim, error))
    return FALSE;
  if (!cr_shape_equal (out->shape, out->ndim, shape, *ndim))
    {
      g_autofree char *s1 = cr_shape_to_string (out->shape, out->ndim);
      g_autofree char *s2 = cr_shape_to_string (shape, *ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "output with shape %s doesn't match the broadcast shape %s", s1, s2);
      return FALSE;
    }
  if (!can_cast (result, out->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "result type %s can't be cast to the desired output type %s",
                   cr_dtype_scalar_name (result), cr_dtype_scalar_name (out->dtype));
      return FALSE;
    }
  return TRUE;
}

static gboolean
binary_into (guint            op,
             CrTensor        *out,
             const CrTensor  *a,
             const CrTensor  *b,
             double           alpha,
             GError         **error)
{
  BinaryPlan plan;
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  if (!plan_binary (op, a, b, alpha, &plan, error)
      || !cr_cpu_check_into (out, a, b, plan.result, shape, &ndim, error))
    return FALSE;

  if (plan.result != out->dtype)
    {
      g_autoptr(CrTensor) tmp = binary_new (op, a, b, alpha, error);

      return tmp != NULL && cr_kernel_copy_into (out, tmp, error);
    }
  return binary_run (op, &plan, out, a, b, alpha, error);
}

/* An op with an int32/uint8 operand, on any device: computed in int64 from
 * the operands brought to their common dtype, the result cast back
 * (cr-cpu-narrow.c). *out_result: the dtype PyTorch gives. */
static CrTensor *
binary_widened (guint            op,
                const CrTensor  *a,
                const CrTensor  *b,
                double           alpha,
                CrDType         *out_result,
                GError         **error)
{
  CrDType common = cr_dtype_result_type (a, b);
  CrDType compute;
  g_autoptr(CrTensor) wa = NULL;
  g_autoptr(CrTensor) wb = NULL;
  CrTensor *wide;

  /* The op's rule as for int64; an int64 result is the common dtype. */
  *out_result = common;
  if (op != OP_ADD_SCALED
      && !cr_binary_op_dtypes (op, cr_dtype_is_narrow_integer (common) ? CR_DTYPE_INT64 : common,
                               cr_cpu_device2 (a, b) != CR_DEVICE_CPU, &compute, out_result, error))
    return NULL;
  if (*out_result == CR_DTYPE_INT64)
    *out_result = common;
  wa = cr_cpu_widen (a, common, error);
  wb = wa != NULL ? cr_cpu_widen (b, common, error) : NULL;
  if (wb == NULL)
    return NULL;
  /* PyTorch 1.13 shifts int32 and uint8 as C ints, whose shift count x86
   * takes mod 32 (int64's mod 64 is the kernel's own). */
  if ((op == CR_BINARY_BITWISE_LEFT_SHIFT || op == CR_BINARY_BITWISE_RIGHT_SHIFT)
      && cr_dtype_is_narrow_integer (common))
    {
      g_autoptr(CrTensor) mask = cr_tensor_new_scalar (31, CR_DTYPE_INT64);
      CrTensor *count = cr_kernel_binary (CR_BINARY_BITWISE_AND, wb, mask, error);

      if (count == NULL)
        return NULL;
      g_clear_pointer (&wb, cr_tensor_unref);
      wb = count;
    }
  wide = op == OP_ADD_SCALED ? cr_kernel_add_scaled (wa, wb, alpha, error)
                             : cr_kernel_binary (op, wa, wb, error);
  return cr_cpu_narrow (wide, *out_result, error);
}

/* binary_widened into out, with PyTorch's check that the result casts to
 * out's dtype. */
static gboolean
binary_widened_into (guint            op,
                     CrTensor        *out,
                     const CrTensor  *a,
                     const CrTensor  *b,
                     double           alpha,
                     GError         **error)
{
  CrDType result;
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  CrTensor *wide = binary_widened (op, a, b, alpha, &result, error);

  if (wide == NULL)
    return FALSE;
  if (!cr_cpu_check_into (out, a, b, result, shape, &ndim, error))
    {
      cr_tensor_unref (wide);
      return FALSE;
    }
  return cr_cpu_store_wide (out, wide, error);
}

CrTensor *
cr_kernel_binary (CrBinaryOp       op,
                  const CrTensor  *a,
                  const CrTensor  *b,
                  GError         **error)
{
  CrDType result;

  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, NULL);
  if (G_UNLIKELY (cr_cpu_is_narrow (a) || cr_cpu_is_narrow (b)))
    return binary_widened (op, a, b, 0.0, &result, error);
  CR_DISPATCH (cr_cpu_device2 (a, b), binary, error, NULL, op, a, b, error);
  return binary_new (op, a, b, 0.0, error);
}

gboolean
cr_kernel_binary_into (CrBinaryOp       op,
                       CrTensor        *out,
                       const CrTensor  *a,
                       const CrTensor  *b,
                       GError         **error)
{
  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, FALSE);
  if (G_UNLIKELY (cr_cpu_is_narrow (a) || cr_cpu_is_narrow (b)))
    return binary_widened_into (op, out, a, b, 0.0, error);
  CR_DISPATCH (out->device != CR_DEVICE_CPU ? out->device : cr_cpu_device2 (a, b),
               binary_into, error, FALSE, op, out, a, b, error);
  return binary_into (op, out, a, b, 0.0, error);
}

CrTensor *
cr_kernel_add_scaled (const CrTensor  *a,
                      const CrTensor  *b,
                      double           alpha,
                      GError         **error)
{
  CrDType result;

  if (G_UNLIKELY (cr_cpu_is_narrow (a) || cr_cpu_is_narrow (b)))
    return binary_widened (OP_ADD_SCALED, a, b, alpha, &result, error);
  CR_DISPATCH (cr_cpu_device2 (a, b), add_scaled, error, NULL, a, b, alpha, error);
  return binary_new (OP_ADD_SCALED, a, b, alpha, error);
}

gboolean
cr_kernel_add_scaled_into (CrTensor        *out,
                           const CrTensor  *b,
                           double           alpha,
                           GError         **error)
{
  if (G_UNLIKELY (cr_cpu_is_narrow (out) || cr_cpu_is_narrow (b)))
    return binary_widened_into (OP_ADD_SCALED, out, out, b, alpha, error);
  CR_DISPATCH (cr_cpu_device2 (out, b), add_scaled_into, error, FALSE, out, b, alpha, error);
  return binary_into (OP_ADD_SCALED, out, out, b, alpha, error);
}

/* ---- clamp ---------------------------------------------------------------- */

#define DEFINE_CLAMP_ROW(name, T)                                              \
  CR_ROW_FUNC (name)                                                           \
  {                                                                            \
    T *restrict o = (T *) p[0];                                                \
    const T *restrict x = (const T *) p[1];                                    \
    const T lo = ((const T *) ctx)[0], hi = ((const T *) ctx)[1];              \
    gint64 so = s[0], sx = s[1];                                               \
                                                                               \
    if (so == 1 && sx == 1)                                                    \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          T v = x[i];                                                          \
          v = v < lo ? lo : v;                                                 \
          o[i] = v > hi ? hi : v;                                              \
        }                                                                      \
    else                                                                       \
      for (gint64 i = 0; i < n; i++)                                           \
        {                                                                      \
          T v = x[i * sx];                                                     \
          v = v < lo ? lo : v;                                                 \
          o[i * so] = v > hi ? hi : v;                                         \
        }                                                                      \
  }

DEFINE_CLAMP_ROW (clamp_f, float)
DEFINE_CLAMP_ROW (clamp_d, double)
DEFINE_CLAMP_ROW (clamp_i, gint64)

/* An integral bound in int64's range; 2**63 is a script's 2**63 - 1 rounded
 * on its way through a double. */
static gboolean
clamp_bound_is_int64 (double v)
{
  return v == floor (v) && v >= -9223372036854775808.0 && v <= 9223372036854775808.0;
}

gint64
cr_cpu_clamp_bound_to_int64 (double v)
{
  return v >= 9223372036854775808.0 ? G_MAXINT64 : (gint64) v;
}

gboolean
cr_cpu_clamp_rule (CrDType    dtype,
                   gboolean   has_min,
                   double     min,
                   gboolean   has_max,
                   double     max,
                   CrDType   *out_dtype,
                   gboolean  *out_fill_nan,
                   GError   **error)
{
  CrDType ct = dtype;

  /* A bound that no int64 holds (non-integral, NaN, infinite, too large)
   * promotes an integer tensor like a wrapped float. */
  if (ct == CR_DTYPE_INT64
      && ((has_min && !clamp_bound_is_int64 (min)) || (has_max && !clamp_bound_is_int64 (max))))
    ct = CR_DTYPE_FLOAT32;
  if (ct == CR_DTYPE_FLOAT32
      && ((has_min && isfinite (min) && fabs (min) > FLT_MAX)
          || (has_max && isfinite (max) && fabs (max) > FLT_MAX)))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "value cannot be converted to type float without overflow");
      return FALSE;
    }
  *out_dtype = ct;
  /* PyTorch 1.13's clamp with both bounds fills NaN when either is NaN. */
  *out_fill_nan = has_min && has_max && (isnan (min) || isnan (max));
  return TRUE;
}

CrTensor *
cr_kernel_clamp (const CrTensor  *x,
                 gboolean         has_min,
                 double           min,
                 gboolean         has_max,
                 double           max,
                 GError         **error)
{
  CrDType ct = x->dtype;
  gboolean fill_nan;
  Operand operand;
  CrTensor *out;
  union {
    float  f[2];
    double d[2];
    gint64 i[2];
  } bounds;
  CrRowFunc row;

  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_cpu_narrow (cr_kernel_clamp (wide, has_min, min, has_max, max, error),
                                           x->dtype, error)
                          : NULL;
    }
  CR_DISPATCH (x->device, clamp, error, NULL, x, has_min, min, has_max, max, error);

  if (!has_min && !has_max)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.clamp: At least one of 'min' or 'max' must not be None");
      return NULL;
    }
  if (ct == CR_DTYPE_BOOL)
    {
      cr_cpu_set_not_implemented (error, "clamp_scalar_cpu", ct);
      return NULL;
    }
  /* With one bound, a NaN bound leaves x as it is: the rows below. */
  if (!cr_cpu_clamp_rule (x->dtype, has_min, min, has_max, max, &ct, &fill_nan, error))
    return NULL;
  if (fill_nan)
    return cr_tensor_new_full (x->shape, x->ndim, NAN, ct, CR_DEVICE_CPU, error);

  switch (ct)
    {
    case CR_DTYPE_FLOAT32:
      bounds.f[0] = has_min ? (float) min : -INFINITY;
      bounds.f[1] = has_max ? (float) max : INFINITY;
      row = clamp_f;
      break;
    case CR_DTYPE_FLOAT64:
      bounds.d[0] = has_min ? min : -INFINITY;
      bounds.d[1] = has_max ? max : INFINITY;
      row = clamp_d;
      break;
    case CR_DTYPE_INT64:
    case CR_DTYPE_BOOL:
    case CR_DTYPE_COUNT:
    default:
      bounds.i[0] = has_min ? cr_cpu_clamp_bound_to_int64 (min) : G_MININT64;
      bounds.i[1] = has_max ? cr_cpu_clamp_bound_to_int64 (max) : G_MAXINT64;
      row = clamp_i;
      break;
    }

  out = cr_tensor_new_empty (x->shape, x->ndim, ct, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  if (!operand_init (&operand, x, ct, NULL, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  run_rows (row, out, &operand, 1, &bounds);
  operand_clear (&operand);
  return out;
}

/* ---- where ---------------------------------------------------------------- */

#define DEFINE_WHERE_ROW(name, T)                                              \
  CR_ROW_FUNC (name)                                                           \
  {                                                                            \
    T *restrict o = (T *) p[0];                                                \
    const guint8 *restrict c = (const guint8 *) p[1];                          \
    const T *restrict a = (const T *) p[2];                                    \
    const T *restrict b = (const T *) p[3];                                    \
                                                                               \
    if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1)                      \
      for (gint64 i = 0; i < n; i++)                                           \
        o[i] = c[i] ? a[i] : b[i];                                             \
    else                                                                       \
      for (gint64 i = 0; i < n; i++)                                           \
        o[i * s[0]] = c[i * s[1]] ? a[i * s[2]] : b[i * s[3]];                 \
  }

DEFINE_WHERE_ROW (where_b, guint8)
DEFINE_WHERE_ROW (where_i, gint64)
DEFINE_WHERE_ROW (where_f, float)
DEFINE_WHERE_ROW (where_d, double)

static const CrRowFunc where_rows[CR_DTYPE_COUNT] = { where_b, where_i, where_f, where_d };

CrTensor *
cr_kernel_where (const CrTensor  *cond,
                 const CrTensor  *a,
                 const CrTensor  *b,
                 GError         **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  CrDType ct;
  Operand operands[3];
  CrTensor *out = NULL;
  CrDeviceType device = cr_cpu_device2 (cond, a) != CR_DEVICE_CPU ? cr_cpu_device2 (cond, a) : b->device;

  if (G_UNLIKELY (cr_cpu_is_narrow (a) || cr_cpu_is_narrow (b)))
    {
      CrDType common = cr_dtype_result_type (a, b);
      g_autoptr(CrTensor) wa = cr_cpu_widen (a, common, error);
      g_autoptr(CrTensor) wb = wa != NULL ? cr_cpu_widen (b, common, error) : NULL;

      return wb != NULL ? cr_cpu_narrow (cr_kernel_where (cond, wa, wb, error), common, error) : NULL;
    }
  CR_DISPATCH (device, where, error, NULL, cond, a, b, error);

  if (cond->dtype != CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                   cr_dtype_scalar_name (cond->dtype));
      return NULL;
    }
  if (!cr_shape_broadcast (cond->shape, cond->ndim, a->shape, a->ndim, shape, &ndim, error)
      || !cr_shape_broadcast (shape, ndim, b->shape, b->ndim, shape, &ndim, error))
    return NULL;

  ct = cr_dtype_result_type (a, b);
  if (!operand_init (&operands[0], cond, CR_DTYPE_BOOL, NULL, error))
    return NULL;
  if (!operand_init (&operands[1], a, ct, NULL, error))
    goto out;
  if (!operand_init (&operands[2], b, ct, NULL, error))
    {
      operand_clear (&operands[1]);
      goto out;
    }
  out = cr_tensor_new_empty (shape, ndim, ct, CR_DEVICE_CPU, error);
  if (out != NULL)
    run_rows (where_rows[ct], out, operands, 3, NULL);
  operand_clear (&operands[1]);
  operand_clear (&operands[2]);
out:
  operand_clear (&operands[0]);
  return out;
}
