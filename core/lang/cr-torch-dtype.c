/* cr-torch-dtype.c — torch.dtype (torch.float32 ...), torch.finfo and
 * torch.device objects. */
#include "cr-torch-private.h"
#include "cr-device.h"

#include <float.h>
#include <string.h>

/* ---- torch.finfo ------------------------------------------------------ */

/* The limits of a float dtype, as numpy's finfo and torch.finfo give them. */
typedef struct {
  CrDType     dtype;
  int         bits;
  double      eps, max, tiny, resolution;
} FloatInfo;

static const FloatInfo float_infos[] = {
  { CR_DTYPE_FLOAT32, 32, FLT_EPSILON, FLT_MAX, FLT_MIN, 1e-06 },
  { CR_DTYPE_FLOAT64, 64, DBL_EPSILON, DBL_MAX, DBL_MIN, 1e-15 },
};

static const char *
float_name (CrDType dtype)
{
  return dtype == CR_DTYPE_FLOAT64 ? "float64" : "float32";
}

static CrValue *
finfo_get_attr (CrInterp    *interp,
                CrValue     *self,
                const char  *name,
                GError     **error)
{
  const FloatInfo *f = self->u.object.data;

  if (strcmp (name, "bits") == 0)
    return cr_value_new_int (f->bits);
  if (strcmp (name, "eps") == 0)
    return cr_value_new_float (f->eps);
  if (strcmp (name, "max") == 0)
    return cr_value_new_float (f->max);
  if (strcmp (name, "min") == 0)
    return cr_value_new_float (-f->max);
  if (strcmp (name, "tiny") == 0 || strcmp (name, "smallest_normal") == 0)
    return cr_value_new_float (f->tiny);
  if (strcmp (name, "resolution") == 0)
    return cr_value_new_float (f->resolution);
  if (strcmp (name, "dtype") == 0)
    return cr_value_new_str (float_name (f->dtype));
  return NULL;
}

static char *
finfo_repr (CrValue *self)
{
  const FloatInfo *f = self->u.object.data;

  return g_strdup_printf ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, "
                          "tiny=%g, dtype=%s)", f->resolution, -f->max, f->max, f->eps, f->tiny,
                          f->tiny, float_name (f->dtype));
}

static const CrObjectType finfo_type = {
  .name = "torch.finfo",
  .get_attr = finfo_get_attr,
  .repr = finfo_repr,
};

/* torch.finfo(type=None): the default dtype's limits without one. */
CrValue *
cr_torch_native_finfo (CrInterp       *interp,
                       CrValue        *self,
                       CrValue *const *args,
                       guint           n_args,
                       const CrKwarg  *kwargs,
                       guint           n_kwargs,
                       gpointer        data,
                       GError        **error)
{
  CrTorchArgs a;
  CrDType dtype = CR_DTYPE_FLOAT32;   /* the default dtype */

  if (!cr_torch_args_parse (&a, "finfo", "| type", NULL, args, n_args, kwargs, n_kwargs, error))
    return NULL;
  if (cr_torch_args_has (&a, 0) && !cr_torch_value_get_dtype (a.values[0], &dtype))
    {
      cr_torch_args_type_error (&a, 0, "torch.dtype", error);
      return NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (float_infos); i++)
    if (float_infos[i].dtype == dtype)
      return cr_value_new_object (&finfo_type, (gpointer) &float_infos[i]);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                       "handle 'torch.finfo'");
  return NULL;
}

/* ---- torch.dtype ------------------------------------------------------ */

static char *
dtype_repr (CrValue *self)
{
  return g_strdup (cr_dtype_name ((CrDType) (GPOINTER_TO_INT (self->u.object.data) - 1)));
}

static gboolean
dtype_equal (CrValue *a,
             CrValue *b)
{
  return a->kind == CR_VALUE_OBJECT && b->kind == CR_VALUE_OBJECT
         && a->u.object.type == b->u.object.type
         && a->u.object.data == b->u.object.data;
}

static CrValue *
dtype_get_attr (CrInterp    *interp,
                CrValue     *self,
                const char  *name,
                GError     **error)
{
  CrDType dtype = (CrDType) (GPOINTER_TO_INT (self->u.object.data) - 1);

  if (strcmp (name, "is_floating_point") == 0)
    return cr_value_new_bool (cr_dtype_is_floating (dtype));
  if (strcmp (name, "itemsize") == 0)
    return cr_value_new_int ((gint64) cr_dtype_size (dtype));
  return NULL;
}

static gconstpointer
dtype_identity (CrValue *self)
{
  /* The same address for every torch.float32 value, as the one object
   * PyTorch has. */
  static const char ids[CR_DTYPE_COUNT + 1];
  return &ids[GPOINTER_TO_INT (self->u.object.data)];
}

static const CrObjectType dtype_type = {
  .name = "torch.dtype",
  .get_attr = dtype_get_attr,
  .repr = dtype_repr,
  .equal = dtype_equal,
  .identity = dtype_identity,
};

CrValue *
cr_torch_dtype_new (CrDType dtype)
{
  return cr_value_new_object (&dtype_type, GINT_TO_POINTER ((int) dtype + 1));
}

gboolean
cr_torch_value_get_dtype (CrValue *v,
                          CrDType *out)
{
  if (v == NULL || v->kind != CR_VALUE_OBJECT || v->u.object.type != &dtype_type)
    return FALSE;
  *out = (CrDType) (GPOINTER_TO_INT (v->u.object.data) - 1);
  return TRUE;
}

/* torch.int32, torch.float16 ...: printable and comparable, refused by every
 * function that takes a dtype. data is the static name. */
static char *
unsupported_dtype_repr (CrValue *self)
{
  return g_strdup (self->u.object.data);
}

static const CrObjectType unsupported_dtype_type = {
  .name = "torch.dtype",
  .repr = unsupported_dtype_repr,
  .equal = dtype_equal,
};

CrValue *
cr_torch_unsupported_dtype_new (const char *name)
{
  return cr_value_new_object (&unsupported_dtype_type, (gpointer) name);
}

/* ---- torch.device ----------------------------------------------------- */

/* A device value's data: (type + 1) | (index + 1) << 8, index -1 for none
 * (torch.device('cuda') has no index; a tensor's .device is cuda:0). */
#define DEVICE_DATA(type, index) GINT_TO_POINTER (((int) (type) + 1) | (((index) + 1) << 8))

static CrDeviceType
device_type_of (CrValue *self)
{
  return (CrDeviceType) ((GPOINTER_TO_INT (self->u.object.data) & 0xff) - 1);
}

static int
device_index_of (CrValue *self)
{
  return (GPOINTER_TO_INT (self->u.object.data) >> 8) - 1;
}

static const char *
device_type_name (CrValue *self)
{
  return device_type_of (self) == CR_DEVICE_CUDA ? "cuda" : "cpu";
}

static char *
device_repr (CrValue *self)
{
  if (device_index_of (self) >= 0)
    return g_strdup_printf ("device(type='%s', index=%d)", device_type_name (self),
                            device_index_of (self));
  return g_strdup_printf ("device(type='%s')", device_type_name (self));
}

static char *
device_str (CrValue *self)
{
  if (device_index_of (self) >= 0)
    return g_strdup_printf ("%s:%d", device_type_name (self), device_index_of (self));
  return g_strdup (device_type_name (self));
}

static CrValue *
device_get_attr (CrInterp    *interp,
                 CrValue     *self,
                 const char  *name,
                 GError     **error)
{
  if (strcmp (name, "type") == 0)
    return cr_value_new_str (device_type_name (self));
  if (strcmp (name, "index") == 0)
    {
      if (device_index_of (self) >= 0)
        return cr_value_new_int (device_index_of (self));
      return cr_value_none ();
    }
  return NULL;
}

static const CrObjectType device_type = {
  .name = "torch.device",
  .get_attr = device_get_attr,
  .repr = device_repr,
  .equal = dtype_equal,
  .str = device_str,
};

static CrValue *
device_new_indexed (CrDeviceType device,
                    int          index)
{
  return cr_value_new_object (&device_type, DEVICE_DATA (device, index));
}

/* A tensor's .device: cpu, or cuda:0 (PyTorch's tensors always carry an
 * index on CUDA). */
CrValue *
cr_torch_device_new (CrDeviceType device)
{
  return device_new_indexed (device, device == CR_DEVICE_CUDA ? 0 : -1);
}

void
cr_torch_set_no_cuda_error (GError **error)
{
  cr_device_check_usable (CR_DEVICE_CUDA, error);
}

gboolean
cr_torch_value_to_device (CrValue       *v,
                          CrDeviceType  *out,
                          GError       **error)
{
  CrDeviceType device;

  if (v->kind == CR_VALUE_OBJECT && v->u.object.type == &device_type)
    device = device_type_of (v);
  else if (v->kind == CR_VALUE_STR)
    {
      if (!cr_device_parse (v->u.str.data, &device, NULL, error))
        return FALSE;
    }
  else if (v->kind == CR_VALUE_INT)
    device = CR_DEVICE_CUDA;
  else
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "expected a torch.device or a string, not %s", cr_torch_type_name (v));
      return FALSE;
    }

  /* PyTorch's "Found no NVIDIA driver ..." when CUDA cannot be used here. */
  if (!cr_device_check_usable (device, error))
    return FALSE;
  *out = device;
  return TRUE;
}

/* torch.device("cpu"), torch.device("cuda", 0), torch.device(type="cpu") */
CrValue *
cr_torch_native_device (CrInterp       *interp,
                        CrValue        *self,
                        CrValue *const *args,
                        guint           n_args,
                        const CrKwarg  *kwargs,
                        guint           n_kwargs,
                        gpointer        data,
                        GError        **error)
{
  CrTorchArgs a;
  CrDeviceType device;
  int index = -1;
  CrValue *v;

  if (!cr_torch_args_parse (&a, "device", "type | index", NULL, args, n_args,
                            kwargs, n_kwargs, error))
    return NULL;
  v = a.values[0];
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type == &device_type)
    return cr_value_ref (v);
  /* torch.device(0) is the first CUDA device. */
  if (v->kind == CR_VALUE_INT && v->u.i >= 0 && v->u.i < 1000)
    return device_new_indexed (CR_DEVICE_CUDA, (int) v->u.i);
  if (v->kind != CR_VALUE_STR)
    {
      cr_torch_args_type_error (&a, 0, "str", error);
      return NULL;
    }
  if (!cr_device_parse (v->u.str.data, &device, &index, error))
    return NULL;
  /* torch.device('cuda', 0) */
  if (cr_torch_args_has (&a, 1) && a.values[1]->kind == CR_VALUE_INT)
    {
      if (index >= 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "type (string) must not include an index because index was passed "
                       "explicitly: %s", v->u.str.data);
          return NULL;
        }
      index = (int) CLAMP (a.values[1]->u.i, -1, 999);
    }
  return device_new_indexed (device, index < 1000 ? index : 999);
}
