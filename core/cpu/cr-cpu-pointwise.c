/* cr-cpu-pointwise.c — addcmul and addcdiv, the three-tensor pointwise ops
 * that the optimizers' updates are made of, with PyTorch's CPU roundings:
 *
 *   addcmul: fma (value * t1, t2, self)   (Vectorized's a + v * b * c, which
 *            gcc contracts to one FMA on a CPU that has it; PyTorch 1.13's
 *            AVX2 kernel does so on every element, tail included)
 *   addcdiv: self + (value * t1) / t2
 *
 * so that Adam's exp_avg_sq.addcmul_ and param.addcdiv_ give PyTorch's bits. */
#include "cr-kernels.h"
#include "cr-cpu-private.h"

#include <math.h>

typedef struct {
  CrScalarBuf value;   /* in the compute dtype */
} AddcContext;

/* p[0] = out, p[1] = self, p[2] = t1, p[3] = t2 */
#define DEFINE_ADDC_ROW(name, T, EXPR)                                         \
  CR_FMA_CLONES CR_ROW_FUNC (name)                                             \
  {                                                                            \
    T *restrict o = (T *) p[0];                                                \
    const T *restrict x = (const T *) p[1];                                    \
    const T *restrict a = (const T *) p[2];                                    \
    const T *restrict b = (const T *) p[3];                                    \
    const T v = *(const T *) ctx;                                              \
    gint64 so = s[0], sx = s[1], sa = s[2], sb = s[3];                         \
                                                                               \
    if (so == 1 && sx == 1 && sa == 1 && sb == 1)                              \
      for (gint64 i = 0; i < n; i++)                                           \
        o[i] = (EXPR (x[i], a[i], b[i]));                                      \
    else                                                                       \
      for (gint64 i = 0; i < n; i++)                                           \
        o[i * so] = (EXPR (x[i * sx], a[i * sa], b[i * sb]));                  \
  }

#define ADDCMUL_F(x, a, b) fmaf (v * (a), (b), (x))
#define ADDCMUL_D(x, a, b) fma (v * (a), (b), (x))
#define ADDCDIV(x, a, b)   ((x) + (v * (a)) / (b))

DEFINE_ADDC_ROW (addcmul_f, float, ADDCMUL_F)
DEFINE_ADDC_ROW (addcmul_d, double, ADDCMUL_D)
DEFINE_ADDC_ROW (addcdiv_f, float, ADDCDIV)
DEFINE_ADDC_ROW (addcdiv_d, double, ADDCDIV)

gboolean
cr_kernel_addc_fits (const CrTensor *out,
                     const CrTensor *self,
                     const CrTensor *t1,
                     const CrTensor *t2)
{
  const CrTensor *all[] = { out, self, t1, t2 };
  gint64 shape[CR_MAX_DIMS], shape3[CR_MAX_DIMS];
  int ndim, ndim3;

  if (!cr_dtype_is_floating (out->dtype))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i]->dtype != out->dtype || all[i]->device != CR_DEVICE_CPU)
      return FALSE;
  /* out's shape must be the broadcast of the three, and out must not
   * overlap an input other than by being it. */
  if (!cr_shape_broadcast (self->shape, self->ndim, t1->shape, t1->ndim, shape, &ndim, NULL)
      || !cr_shape_broadcast (shape, ndim, t2->shape, t2->ndim, shape3, &ndim3, NULL)
      || !cr_shape_equal (shape3, ndim3, out->shape, out->ndim))
    return FALSE;
  for (guint i = 1; i < G_N_ELEMENTS (all); i++)
    if (all[i] != out && cr_cpu_overlaps_differently (out, all[i]))
      return FALSE;
  return TRUE;
}

void
cr_kernel_addc (CrTensor       *out,
                const CrTensor *self,
                const CrTensor *t1,
                const CrTensor *t2,
                double          value,
                gboolean        divide)
{
  const CrTensor *operands[] = { out, self, t1, t2 };
  AddcContext ctx;
  CrRowFunc row;
  CrCpuIter iter;

  g_return_if_fail (cr_kernel_addc_fits (out, self, t1, t2));

  if (out->dtype == CR_DTYPE_FLOAT32)
    {
      ctx.value.f = (float) value;
      row = divide ? addcdiv_f : addcmul_f;
    }
  else
    {
      ctx.value.d = value;
      row = divide ? addcdiv_d : addcmul_d;
    }
  if (out->numel == 0)
    return;
  cr_cpu_iter_init (&iter, out->shape, out->ndim, operands, G_N_ELEMENTS (operands));
  cr_cpu_iter_run (&iter, row, &ctx);
}
