/* cr-torch-upsample.c — torch._C._nn.upsample_nearest1d/2d/3d,
 * _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d
 * and upsample_trilinear3d with the signatures F.interpolate calls them by
 * (input, output_size, [align_corners,] scale_factors), one of the two
 * sizes None. The prelude's F.interpolate (torch/nn/functional.py) checks
 * its arguments as PyTorch's does; the ops are core/ops/cr-ops-upsample.c. */
#include "cr-torch-native.h"
#include "cr-ops-nnf.h"

typedef struct {
  const char     *name;
  CrUpsampleMode  mode;
  int             n;
} UpsampleInfo;

/* A list or tuple of n numbers into out; TypeError otherwise. */
static gboolean
read_numbers (const CrTorchArgs *a,
              guint              i,
              int                n,
              gboolean           integers,
              double            *out,
              GError           **error)
{
  CrValue *v = a->values[i];
  GPtrArray *items;

  if (v->kind != CR_VALUE_LIST && v->kind != CR_VALUE_TUPLE)
    {
      cr_torch_args_type_error (a, i, integers ? "tuple of ints" : "tuple of floats", error);
      return FALSE;
    }
  items = v->u.seq.items;
  if ((int) items->len != n)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "It is expected %s to be of size %d but got %u",
                   integers ? "output_size" : "scale_factors", n, items->len);
      return FALSE;
    }
  for (int k = 0; k < n; k++)
    {
      gint64 as_int;
      if (integers ? !cr_torch_value_is_int (items->pdata[k], &as_int)
                   : !cr_torch_value_is_number (items->pdata[k], &out[k]))
        {
          cr_torch_args_type_error (a, i, integers ? "tuple of ints" : "tuple of floats", error);
          return FALSE;
        }
      if (integers)
        out[k] = (double) as_int;
    }
  return TRUE;
}

NATIVE (native_upsample)
{
  const UpsampleInfo *info = data;
  gboolean linear = info->mode == CR_UPSAMPLE_LINEAR;
  CrUpsampleParams p = { .mode = info->mode, .n = info->n };
  double sizes[3];
  PARSE (info->name, linear ? "input output_size align_corners scale_factors"
                            : "input output_size scale_factors");
  TENSOR_ARG (x, 0);
  guint scales_arg = linear ? 3 : 2;

  p.has_output_size = cr_torch_args_has (&a, 1);
  p.has_scales = cr_torch_args_has (&a, scales_arg);
  if (p.has_output_size && !read_numbers (&a, 1, info->n, TRUE, sizes, error))
    return NULL;
  for (int k = 0; p.has_output_size && k < info->n; k++)
    p.output_size[k] = (gint64) sizes[k];
  if (p.has_scales && !read_numbers (&a, scales_arg, info->n, FALSE, p.scales, error))
    return NULL;
  if (linear && !cr_torch_args_bool (&a, 2, FALSE, &p.align_corners, error))
    return NULL;
  return cr_torch_wrap (cr_upsample (x, &p, error));
}

static const UpsampleInfo upsamples[] = {
  { "upsample_nearest1d", CR_UPSAMPLE_NEAREST, 1 },
  { "upsample_nearest2d", CR_UPSAMPLE_NEAREST, 2 },
  { "upsample_nearest3d", CR_UPSAMPLE_NEAREST, 3 },
  { "_upsample_nearest_exact1d", CR_UPSAMPLE_NEAREST_EXACT, 1 },
  { "_upsample_nearest_exact2d", CR_UPSAMPLE_NEAREST_EXACT, 2 },
  { "_upsample_nearest_exact3d", CR_UPSAMPLE_NEAREST_EXACT, 3 },
  { "upsample_linear1d", CR_UPSAMPLE_LINEAR, 1 },
  { "upsample_bilinear2d", CR_UPSAMPLE_LINEAR, 2 },
  { "upsample_trilinear3d", CR_UPSAMPLE_LINEAR, 3 },
};

#define F CR_TORCH_IN_F

const CrTorchFunc cr_torch_upsample_funcs[] = {
  { "upsample_nearest1d", native_upsample, F, (gpointer) &upsamples[0] },
  { "upsample_nearest2d", native_upsample, F, (gpointer) &upsamples[1] },
  { "upsample_nearest3d", native_upsample, F, (gpointer) &upsamples[2] },
  { "_upsample_nearest_exact1d", native_upsample, F, (gpointer) &upsamples[3] },
  { "_upsample_nearest_exact2d", native_upsample, F, (gpointer) &upsamples[4] },
  { "_upsample_nearest_exact3d", native_upsample, F, (gpointer) &upsamples[5] },
  { "upsample_linear1d", native_upsample, F, (gpointer) &upsamples[6] },
  { "upsample_bilinear2d", native_upsample, F, (gpointer) &upsamples[7] },
  { "upsample_trilinear3d", native_upsample, F, (gpointer) &upsamples[8] },
};

const guint cr_torch_n_upsample_funcs = G_N_ELEMENTS (cr_torch_upsample_funcs);
