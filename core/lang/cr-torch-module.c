/* cr-torch-module.c — the modules a script imports (torch, torch.nn,
 * torch.nn.functional, torch.autograd, torch.optim, torch.cuda), tensor
 * creation (torch.tensor, zeros, randn, arange ...), grad-mode context
 * managers and decorators, and torch.manual_seed. */
#include "cr-cuda.h"
#include "cr-torch-private.h"
#include "cr-interp-private.h"
#include "cr-kernels.h"
#include "cr-grad-mode.h"
#include "cr-leaf-observer.h"
#include "cr-device.h"
#include "cr-run-recorder.h"
#include "cr-run-recorder-backward.h"
#include "cr-run-recorder-training.h"

#include <string.h>
#include <math.h>

#include "cr-native.h"

/* ---- torch.tensor(data) ----------------------------------------------- */

typedef enum { KIND_BOOL, KIND_INT, KIND_FLOAT } LeafKind;

static gboolean
leaf_kind (CrValue  *v,
           LeafKind *out,
           GError  **error)
{
  switch (v->kind)
    {
    case CR_VALUE_BOOL:
      *out = KIND_BOOL;
      return TRUE;
    case CR_VALUE_INT:
      *out = KIND_INT;
      return TRUE;
    case CR_VALUE_FLOAT:
      *out = KIND_FLOAT;
      return TRUE;
    case CR_VALUE_TENSOR:
      if (v->u.tensor->numel != 1 || v->u.tensor->ndim != 0)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                               "only one element tensors can be converted to Python scalars");
          return FALSE;
        }
      *out = v->u.tensor->dtype == CR_DTYPE_BOOL ? KIND_BOOL
             : cr_dtype_is_integral (v->u.tensor->dtype) ? KIND_INT : KIND_FLOAT;
      return TRUE;
    case CR_VALUE_NONE:
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Could not infer dtype of NoneType");
      return FALSE;
    case CR_VALUE_STR:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "new(): invalid data type '%s'",
                   cr_torch_type_name (v));
      return FALSE;
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "Could not infer dtype of %s",
                   cr_torch_type_name (v));
      return FALSE;
    }
}

static gboolean
is_seq (CrValue *v)
{
  return v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE;
}

static void
store_leaf (CrTensor *t,
            gint64    pos,
            CrValue  *v)
{
  gpointer base = cr_tensor_data (t);
  gint64 i = 0;
  double d = 0.0;
  gboolean exact_int = FALSE;

  switch (v->kind)
    {
    case CR_VALUE_BOOL:
      i = v->u.b ? 1 : 0;
      d = (double) i;
      exact_int = TRUE;
      break;
    case CR_VALUE_INT:
      i = v->u.i;
      d = (double) i;
      exact_int = TRUE;
      break;
    case CR_VALUE_FLOAT:
      d = v->u.f;
      break;
    case CR_VALUE_TENSOR:
      if (cr_dtype_is_integral (v->u.tensor->dtype))
        {
          i = cr_tensor_read_flat_int (v->u.tensor, 0);
          d = (double) i;
          exact_int = TRUE;
        }
      else
        d = cr_tensor_read_flat (v->u.tensor, 0);
      break;
    default:
      break;
    }

  switch (t->dtype)
    {
    case CR_DTYPE_BOOL:
      ((guint8 *) base)[pos] = exact_int ? i != 0 : d != 0.0;
      break;
    case CR_DTYPE_INT64:
      /* Floats truncate toward zero, as torch.tensor([1.5], dtype=torch.long). */
      ((gint64 *) base)[pos] = exact_int ? i : (isfinite (d) ? (gint64) d : 0);
      break;
    case CR_DTYPE_INT32:
      ((gint32 *) base)[pos] = exact_int ? (gint32) (guint32) (guint64) i : cr_double_to_int32 (d);
      break;
    case CR_DTYPE_UINT8:
      ((guint8 *) base)[pos] = exact_int ? (guint8) (guint64) i : cr_double_to_uint8 (d);
      break;
    case CR_DTYPE_FLOAT32:
      ((float *) base)[pos] = (float) d;
      break;
    case CR_DTYPE_FLOAT64:
    default:
      ((double *) base)[pos] = d;
      break;
    }
}

CrTensor *
cr_torch_tensor_from_data (CrValue   *data,
                           gboolean   has_dtype,
                           CrDType    dtype,
                           GError   **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  CrValue *v = data;
  LeafKind kind = KIND_BOOL;
  gboolean any_leaf = FALSE;
  g_autoptr(GPtrArray) leaves = NULL;
  /* An explicit stack of (sequence, next index) per depth. */
  CrValue *seqs[CR_MAX_DIMS];
  guint next[CR_MAX_DIMS];
  int depth;
  CrTensor *t;

  /* The shape follows the first element at each depth. */
  while (is_seq (v))
    {
      if (ndim == CR_MAX_DIMS)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Chainrule supports at most %d dimensions", CR_MAX_DIMS);
          return NULL;
        }
      shape[ndim++] = cr_seq_len (v);
      if (cr_seq_len (v) == 0)
        break;
      v = cr_seq_get (v, 0);
    }

  leaves = g_ptr_array_new ();
  if (ndim == 0)
    g_ptr_array_add (leaves, data);
  else
    {
      depth = 0;
      seqs[0] = data;
      next[0] = 0;
      while (depth >= 0)
        {
          CrValue *seq = seqs[depth];
          CrValue *item;

          if (next[depth] == cr_seq_len (seq))
            {
              depth--;
              continue;
            }
          item = cr_seq_get (seq, next[depth]++);
          if (depth + 1 < ndim)
            {
              if (!is_seq (item))
                {
                  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "not a sequence");
                  return NULL;
                }
              if ((gint64) cr_seq_len (item) != shape[depth + 1])
                {
                  g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                               "expected sequence of length %" G_GINT64_FORMAT
                               " at dim %d (got %u)", shape[depth + 1], depth + 1,
                               cr_seq_len (item));
                  return NULL;
                }
              depth++;
              seqs[depth] = item;
              next[depth] = 0;
              continue;
            }
          if (is_seq (item))
            {
              g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "must be real number, not %s", cr_torch_type_name (item));
              return NULL;
            }
          g_ptr_array_add (leaves, item);
        }
    }

  for (guint i = 0; i < leaves->len; i++)
    {
      LeafKind k;
      if (!leaf_kind (leaves->pdata[i], &k, error))
        return NULL;
      kind = any_leaf ? MAX (kind, k) : k;
      any_leaf = TRUE;
    }

  if (!has_dtype)
    dtype = !any_leaf || kind == KIND_FLOAT ? CR_DTYPE_FLOAT32
            : kind == KIND_INT ? CR_DTYPE_INT64 : CR_DTYPE_BOOL;

  t = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
  if (t == NULL)
    return NULL;
  for (guint i = 0; i < leaves->len; i++)
    store_leaf (t, i, leaves->pdata[i]);
  return t;
}

/* ---- creation options: dtype=, device=, requires_grad= ----------------- */

typedef struct {
  gboolean      has_dtype;
  CrDType       dtype;
  CrDeviceType  device;
  gboolean      has_device;   /* device= was given (else the default device) */
  gboolean      requires_grad;
} Options;

/* Takes the factory keywords out of kwargs; the others are left for the
 * caller in *rest (TypeError when the caller takes none). */
static gboolean
parse_options (const char     *fname,
               const CrKwarg  *kwargs,
               guint           n_kwargs,
               const char     *extra,     /* another keyword the caller takes, or NULL */
               CrValue       **out_extra,
               Options        *o,
               GError        **error)
{
  o->has_dtype = FALSE;
  o->dtype = CR_DTYPE_FLOAT32;
  o->device = cr_device_get_default ();
  o->has_device = FALSE;
  o->requires_grad = FALSE;
  if (out_extra != NULL)
    *out_extra = NULL;

  for (guint k = 0; k < n_kwargs; k++)
    {
      const char *name = kwargs[k].name;
      CrValue *v = kwargs[k].value;

      if (strcmp (name, "dtype") == 0)
        {
          if (v->kind == CR_VALUE_NONE)
            continue;
          if (!cr_torch_value_get_dtype (v, &o->dtype))
            {
              if (v->kind == CR_VALUE_OBJECT
                  && strcmp (v->u.object.type->name, "torch.dtype") == 0)
                {
                  g_autofree char *repr = cr_value_repr (NULL, v, NULL);
                  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                               "dtype %s is not supported by Chainrule", repr);
                }
              else
                g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                             "%s(): argument 'dtype' must be torch.dtype, not %s", fname,
                             cr_torch_type_name (v));
              return FALSE;
            }
          o->has_dtype = TRUE;
        }
      else if (strcmp (name, "device") == 0)
        {
          o->has_device = v->kind != CR_VALUE_NONE;
          if (v->kind != CR_VALUE_NONE && !cr_torch_value_to_device (v, &o->device, error))
            return FALSE;
        }
      else if (strcmp (name, "requires_grad") == 0)
        {
          if (v->kind != CR_VALUE_BOOL)
            {
              g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "%s(): argument 'requires_grad' must be bool, not %s", fname,
                           cr_torch_type_name (v));
              return FALSE;
            }
          o->requires_grad = v->u.b;
        }
      else if (strcmp (name, "layout") == 0 || strcmp (name, "pin_memory") == 0
               || strcmp (name, "memory_format") == 0 || strcmp (name, "generator") == 0
               || (strcmp (name, "out") == 0 && v->kind == CR_VALUE_NONE))
        continue;
      else if (extra != NULL && strcmp (name, extra) == 0)
        *out_extra = v;
      else
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got an unexpected keyword argument '%s'", fname, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* requires_grad=True on a new tensor (the result takes t). */
static CrValue *
finish (CrTensor  *t,
        Options   *o,
        GError   **error)
{
  if (t == NULL)
    return NULL;
  /* Made on the CPU (torch.tensor's data, arange, random numbers from our
   * generator): one copy to the device, as PyTorch's tensor(..., device=). */
  if (t->device != o->device)
    {
      CrTensor *moved = cr_tensor_to_device (t, o->device, error);
      cr_tensor_unref (t);
      if (moved == NULL)
        return NULL;
      t = moved;
    }
  if (o->requires_grad)
    {
      if (!cr_dtype_is_floating (t->dtype))
        {
          cr_tensor_unref (t);
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                               "Only Tensors of floating point and complex dtype can require "
                               "gradients");
          return NULL;
        }
      t->requires_grad = TRUE;
      cr_autograd_notify_leaf (t, CR_LEAF_MADE);
    }
  return cr_value_new_tensor_take (t);
}

NATIVE (native_tensor)
{
  Options o;
  CrTensor *t;
  CrValue *source;

  if (!parse_options ("tensor", kwargs, n_kwargs, "data", &source, &o, error))
    return NULL;
  if (n_args + (source != NULL) != 1)
    {
      if (n_args + (source != NULL) == 0)
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                             "tensor() missing 1 required positional arguments: \"data\"");
      else
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "tensor() takes 1 positional argument but %u were given", n_args);
      return NULL;
    }
  if (source == NULL)
    source = args[0];
  self = source;
  if (self->kind == CR_VALUE_TENSOR)
    {
      /* torch.tensor(t) copies, with PyTorch's advice. */
      cr_interp_warn (interp, "UserWarning",
                      "To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).");
      t = o.has_dtype ? cr_kernel_cast (self->u.tensor, o.dtype, error)
                      : cr_tensor_copy (self->u.tensor, error);
    }
  else
    t = cr_torch_tensor_from_data (self, o.has_dtype, o.dtype, error);
  return finish (t, &o, error);
}

/* torch.as_tensor(data, dtype=None, device=None): a tensor already of that
 * dtype and device is itself; another is converted (x.to's node); other
 * data is read as torch.tensor reads it. */
NATIVE (native_as_tensor)
{
  Options o;
  CrValue *source;
  CrTorchArgs a;

  if (!cr_torch_args_parse (&a, "as_tensor", "data | dtype device", NULL, args, n_args, kwargs,
                            n_kwargs, error)
      || !parse_options ("as_tensor", kwargs + (n_kwargs > 0 && strcmp (kwargs[0].name, "data") == 0),
                         n_kwargs - (n_kwargs > 0 && strcmp (kwargs[0].name, "data") == 0),
                         NULL, NULL, &o, error))
    return NULL;
  source = a.values[0];
  if (n_args > 1 && !cr_torch_value_get_dtype (args[1], &o.dtype))
    {
      cr_torch_args_type_error (&a, 1, "torch.dtype", error);
      return NULL;
    }
  o.has_dtype = o.has_dtype || n_args > 1;
  if (source->kind == CR_VALUE_TENSOR)
    {
      CrTensor *t = source->u.tensor;
      CrDType dtype = o.has_dtype ? o.dtype : t->dtype;
      CrDeviceType device = o.has_device ? o.device : t->device;

      if (dtype == t->dtype && device == t->device)
        return cr_value_ref (source);
      if (device == t->device)
        return cr_torch_wrap (cr_to_dtype (t, dtype, error));
      return cr_torch_wrap (cr_to_device (t, device, dtype, error));
    }
  o.requires_grad = FALSE;
  return finish (cr_torch_tensor_from_data (source, o.has_dtype, o.dtype, error), &o, error);
}

/* rand, randn and their _like forms are in cr-torch-random.c. */
typedef enum { FILL_ZEROS, FILL_ONES, FILL_EMPTY } Fill;

static const char *fill_names[] = { "zeros", "ones", "empty" };

static CrTensor *
make_filled (CrInterp     *interp,
             Fill          fill,
             const gint64 *shape,
             int           ndim,
             CrDType       dtype,
             CrDeviceType  device,
             GError      **error)
{
  switch (fill)
    {
    case FILL_ZEROS:
    case FILL_EMPTY:
      /* Uninitialised memory would print garbage differently on every run;
       * zeros keep a script's output reproducible. */
      return cr_tensor_new_zeros (shape, ndim, dtype, device, error);
    case FILL_ONES:
    default:
      return cr_tensor_new_full (shape, ndim, 1.0, dtype, device, error);
    }
}

/* zeros(*size, dtype=, device=, requires_grad=) and friends. */
NATIVE (native_filled)
{
  Fill fill = (Fill) GPOINTER_TO_INT (data);
  const char *name = fill_names[fill];
  Options o;
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  CrValue *size_kw;

  if (!parse_options (name, kwargs, n_kwargs, "size", &size_kw, &o, error))
    return NULL;
  if (size_kw != NULL)
    {
      if (n_args > 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got multiple values for argument 'size'", name);
          return NULL;
        }
      args = &size_kw;
      n_args = 1;
    }
  if (n_args == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() missing 1 required positional arguments: \"size\"", name);
      return NULL;
    }
  if (!cr_torch_parse_size (name, "size", args, n_args, shape, &ndim, error))
    return NULL;
  return finish (make_filled (interp, fill, shape, ndim, o.has_dtype ? o.dtype : CR_DTYPE_FLOAT32,
                              o.device, error),
                 &o, error);
}

/* torch.Tensor(2, 3), torch.FloatTensor([1, 2]), torch.LongTensor(...):
 * sizes give zeros, a sequence gives its data. */
NATIVE (native_legacy_constructor)
{
  CrDType dtype = (CrDType) GPOINTER_TO_INT (data);
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  const char *name = cr_dtype_legacy_name (dtype) + strlen ("torch.");

  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() got an unexpected keyword argument '%s'", name, kwargs[0].name);
      return NULL;
    }
  if (n_args == 0)
    {
      gint64 zero = 0;
      return cr_torch_wrap (cr_tensor_new_zeros (&zero, 1, dtype, CR_DEVICE_CPU, error));
    }
  if (n_args == 1 && (is_seq (args[0]) && !args[0]->u.seq.is_size))
    return cr_torch_wrap (cr_torch_tensor_from_data (args[0], TRUE, dtype, error));
  if (n_args == 1 && args[0]->kind == CR_VALUE_TENSOR)
    return cr_torch_wrap (cr_kernel_cast (args[0]->u.tensor, dtype, error));
  if (!cr_torch_parse_size (name, "size", args, n_args, shape, &ndim, error))
    return NULL;
  return cr_torch_wrap (cr_tensor_new_zeros (shape, ndim, dtype, CR_DEVICE_CPU, error));
}

/* zeros_like(input, dtype=None, ...), full_like(input, fill_value, ...) */
NATIVE (native_like)
{
  Fill fill = (Fill) (GPOINTER_TO_INT (data) & 0xff);
  gboolean full = (GPOINTER_TO_INT (data) & 0x100) != 0;
  const char *name = full ? "full_like" : fill == FILL_ZEROS ? "zeros_like"
                     : fill == FILL_ONES ? "ones_like" : "empty_like";
  Options o;
  CrValue *input_kw, *value_kw = NULL;
  CrValue *input;
  CrTensor *x;
  CrDType dtype;
  double value = 0.0;

  if (!parse_options (name, kwargs, n_kwargs, "input", &input_kw, &o, error))
    return NULL;
  input = n_args > 0 ? args[0] : input_kw;
  if (full)
    value_kw = n_args > 1 ? args[1] : NULL;
  if (n_args > (full ? 2u : 1u))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() takes %d positional argument%s but %u were given", name,
                   full ? 2 : 1, full ? "s" : "", n_args);
      return NULL;
    }
  if (input == NULL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() missing 1 required positional arguments: \"input\"", name);
      return NULL;
    }
  if (input->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s(): argument 'input' (position 1) must be Tensor, not %s", name,
                   cr_torch_type_name (input));
      return NULL;
    }
  x = input->u.tensor;
  dtype = o.has_dtype ? o.dtype : x->dtype;
  /* *_like follow the input's device unless device= says otherwise. */
  if (!o.has_device)
    o.device = x->device;
  if (full)
    {
      if (value_kw == NULL)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "full_like() missing 1 required positional arguments: \"fill_value\"");
          return NULL;
        }
      if (!cr_torch_value_is_number (value_kw, &value))
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "full_like(): argument 'fill_value' (position 2) must be Number, not %s",
                       cr_torch_type_name (value_kw));
          return NULL;
        }
      return finish (cr_tensor_new_full (x->shape, x->ndim, value, dtype, o.device, error),
                     &o, error);
    }
  return finish (make_filled (interp, fill, x->shape, x->ndim, dtype, o.device, error),
                 &o, error);
}

/* full(size, fill_value): the dtype follows the value (bool, int64, float32). */
NATIVE (native_full)
{
  Options o;
  CrValue *size_kw, *value;
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  double fill;
  CrDType dtype;

  if (!parse_options ("full", kwargs, n_kwargs, "fill_value", &value, &o, error))
    return NULL;
  size_kw = n_args > 0 ? args[0] : NULL;
  if (n_args > 1)
    {
      if (value != NULL || n_args > 2)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "full() takes 2 positional arguments but %u were given", n_args);
          return NULL;
        }
      value = args[1];
    }
  if (size_kw == NULL || value == NULL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "full() missing 1 required positional arguments: \"%s\"",
                   size_kw == NULL ? "size" : "fill_value");
      return NULL;
    }
  if (!is_seq (size_kw))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "full(): argument 'size' (position 1) must be tuple of SymInts, not %s",
                   cr_torch_type_name (size_kw));
      return NULL;
    }
  if (!cr_torch_parse_size ("full", "size", &size_kw, 1, shape, &ndim, error))
    return NULL;
  if (!cr_torch_value_is_number (value, &fill))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "full(): argument 'fill_value' (position 2) must be Number, not %s",
                   cr_torch_type_name (value));
      return NULL;
    }
  if (o.has_dtype)
    dtype = o.dtype;
  else if (value->kind == CR_VALUE_BOOL)
    dtype = CR_DTYPE_BOOL;
  else if (value->kind == CR_VALUE_INT)
    dtype = CR_DTYPE_INT64;
  else if (value->kind == CR_VALUE_TENSOR)
    dtype = value->u.tensor->dtype;
  else
    dtype = CR_DTYPE_FLOAT32;
  return finish (cr_tensor_new_full (shape, ndim, fill, dtype, o.device, error), &o, error);
}

/* A Python number (or 0-d tensor) for arange/linspace; *is_float when it is
 * a float. */
static gboolean
number_arg (const char *fname,
            const char *pname,
            int         position,
            CrValue    *v,
            double     *out,
            gboolean   *is_float,
            GError    **error)
{
  if (!cr_torch_value_is_number (v, out))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s(): argument '%s' (position %d) must be Number, not %s",
                   fname, pname, position, cr_torch_type_name (v));
      return FALSE;
    }
  if (v->kind == CR_VALUE_FLOAT
      || (v->kind == CR_VALUE_TENSOR && cr_dtype_is_floating (v->u.tensor->dtype)))
    *is_float = TRUE;
  return TRUE;
}

/* arange(end), arange(start, end, step=1) */
NATIVE (native_arange)
{
  Options o;
  CrValue *kw_start, *values[3] = { NULL, NULL, NULL };
  double nums[3] = { 0.0, 0.0, 1.0 };
  static const char *names[] = { "start", "end", "step" };
  gboolean is_float = FALSE;

  if (!parse_options ("arange", kwargs, n_kwargs, "end", &kw_start, &o, error))
    return NULL;
  if (n_args > 3)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "arange() takes from 1 to 3 positional arguments but %u were given", n_args);
      return NULL;
    }
  if (n_args == 1 || (n_args == 0 && kw_start != NULL))
    values[1] = n_args == 1 ? args[0] : kw_start;
  else
    for (guint i = 0; i < n_args; i++)
      values[i] = args[i];
  if (values[1] == NULL)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "arange() missing 1 required positional arguments: \"end\"");
      return NULL;
    }
  for (int i = 0; i < 3; i++)
    if (values[i] != NULL
        && !number_arg ("arange", names[i], n_args == 1 ? 1 : i + 1, values[i], &nums[i],
                        &is_float, error))
      return NULL;
  return finish (cr_tensor_new_arange (nums[0], nums[1], nums[2],
                                       o.has_dtype ? o.dtype
                                       : is_float ? CR_DTYPE_FLOAT32 : CR_DTYPE_INT64,
                                       error),
                 &o, error);
}

NATIVE (native_linspace)
{
  Options o;
  CrTorchArgs a;
  double start, end;
  gint64 steps;
  gboolean is_float = FALSE;
  CrKwarg rest[4];
  guint n_rest = 0, n_opts = 0;
  CrKwarg opts[8];

  /* start, end, steps are ordinary parameters; the rest are options. */
  for (guint k = 0; k < n_kwargs; k++)
    {
      if (strcmp (kwargs[k].name, "start") == 0 || strcmp (kwargs[k].name, "end") == 0
          || strcmp (kwargs[k].name, "steps") == 0)
        {
          if (n_rest < G_N_ELEMENTS (rest))
            rest[n_rest++] = kwargs[k];
        }
      else if (n_opts < G_N_ELEMENTS (opts))
        opts[n_opts++] = kwargs[k];
    }
  if (!parse_options ("linspace", opts, n_opts, NULL, NULL, &o, error))
    return NULL;
  if (!cr_torch_args_parse (&a, "linspace", "start end steps", NULL, args, n_args, rest, n_rest,
                            error))
    return NULL;
  if (!number_arg ("linspace", "start", 1, a.values[0], &start, &is_float, error)
      || !number_arg ("linspace", "end", 2, a.values[1], &end, &is_float, error)
      || !cr_torch_args_int (&a, 2, 0, &steps, error))
    return NULL;
  if (steps < 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "number of steps must be non-negative");
      return NULL;
    }
  return finish (cr_tensor_new_linspace (start, end, steps,
                                         o.has_dtype ? o.dtype : CR_DTYPE_FLOAT32, error),
                 &o, error);
}

NATIVE (native_eye)
{
  Options o;
  CrTorchArgs a;
  gint64 n, m;
  CrKwarg rest[2];
  guint n_rest = 0, n_opts = 0;
  CrKwarg opts[8];

  for (guint k = 0; k < n_kwargs; k++)
    {
      if (strcmp (kwargs[k].name, "n") == 0 || strcmp (kwargs[k].name, "m") == 0)
        {
          if (n_rest < G_N_ELEMENTS (rest))
            rest[n_rest++] = kwargs[k];
        }
      else if (n_opts < G_N_ELEMENTS (opts))
        opts[n_opts++] = kwargs[k];
    }
  if (!parse_options ("eye", opts, n_opts, NULL, NULL, &o, error))
    return NULL;
  if (!cr_torch_args_parse (&a, "eye", "n | m", NULL, args, n_args, rest, n_rest, error)
      || !cr_torch_args_int (&a, 0, 0, &n, error))
    return NULL;
  if (!cr_torch_args_int (&a, 1, n, &m, error))
    return NULL;
  if (n < 0 || m < 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s must be greater or equal to 0, got %" G_GINT64_FORMAT,
                   n < 0 ? "n" : "m", n < 0 ? n : m);
      return NULL;
    }
  return finish (cr_tensor_new_eye (n, m, o.has_dtype ? o.dtype : CR_DTYPE_FLOAT32, error),
                 &o, error);
}

/* torch.Size([2, 3]) */
NATIVE (native_size)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;

  if (n_kwargs > 0 || n_args > 1)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "Size() takes at most 1 argument");
      return NULL;
    }
  if (n_args == 1)
    {
      if (!is_seq (args[0]))
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "'%s' object is not iterable", cr_torch_type_name (args[0]));
          return NULL;
        }
      if (!cr_torch_parse_size ("Size", "sizes", args, 1, shape, &ndim, error))
        return NULL;
    }
  return cr_value_new_size (shape, ndim);
}

NATIVE (native_is_tensor)
{
  CrTorchArgs a;
  if (!cr_torch_args_parse (&a, "is_tensor", "obj", NULL, args, n_args, kwargs, n_kwargs, error))
    return NULL;
  return cr_value_new_bool (a.values[0]->kind == CR_VALUE_TENSOR);
}

NATIVE (native_get_default_dtype)
{
  CrTorchArgs a;
  if (!cr_torch_args_parse (&a, "get_default_dtype", "", NULL, args, n_args, kwargs, n_kwargs,
                            error))
    return NULL;
  return cr_torch_dtype_new (CR_DTYPE_FLOAT32);
}

/* ---- grad mode -------------------------------------------------------- */

typedef enum { MODE_NO_GRAD, MODE_ENABLE_GRAD, MODE_SET } ModeKind;

typedef struct {
  ModeKind kind;
  gboolean enabled;
  gboolean prev;
  gboolean inference;   /* torch.inference_mode(mode): enabled is !mode */
  gboolean prev_inference;
} GradMode;

static const char *
grad_mode_class (GradMode *m)
{
  switch (m->kind)
    {
    case MODE_NO_GRAD:
      return m->inference ? "torch.autograd.grad_mode.inference_mode"
                          : "torch.autograd.grad_mode.no_grad";
    case MODE_ENABLE_GRAD: return "torch.autograd.grad_mode.enable_grad";
    case MODE_SET: default: return "torch.autograd.grad_mode.set_grad_enabled";
    }
}

static char *
grad_mode_repr (CrValue *self)
{
  GradMode *m = self->u.object.data;
  return g_strdup_printf ("<%s object at %p>", grad_mode_class (m), (gpointer) m);
}

static gboolean
grad_mode_enter (CrInterp  *interp,
                 CrValue   *self,
                 CrValue  **out_as,
                 GError   **error)
{
  GradMode *m = self->u.object.data;

  /* set_grad_enabled() switched when it was made; entering changes nothing. */
  if (m->kind != MODE_SET)
    {
      m->prev = cr_grad_mode_set_enabled (m->enabled);
      if (m->inference)
        m->prev_inference = cr_inference_mode_set_enabled (!m->enabled);
      cr_run_recorder_region_enter (interp, m->inference ? CR_RECORD_REGION_INFERENCE
                                            : m->enabled ? CR_RECORD_REGION_ENABLE_GRAD
                                            : CR_RECORD_REGION_NO_GRAD);
    }
  if (out_as != NULL)
    *out_as = cr_value_none ();
  return TRUE;
}

static gboolean
grad_mode_exit (CrInterp  *interp,
                CrValue   *self,
                GError   **error)
{
  GradMode *m = self->u.object.data;

  cr_grad_mode_set_enabled (m->prev);
  if (m->inference)
    cr_inference_mode_set_enabled (m->prev_inference);
  if (m->kind != MODE_SET)
    cr_run_recorder_region_exit (interp);
  else
    cr_run_recorder_grad_enabled (interp, m->prev);
  return TRUE;
}

/* What a decorator keeps of its mode: grad mode on inside, and whether it
 * is an inference_mode (then inference mode is on when grad mode is off). */
#define DECORATOR_ENABLED   1
#define DECORATOR_INFERENCE 2

/* The function a grad-mode decorator wraps: runs self (the function) with
 * the mode set, restoring it whatever happens. */
static CrValue *
decorated_call (CrInterp       *interp,
                CrValue        *self,
                CrValue *const *args,
                guint           n_args,
                const CrKwarg  *kwargs,
                guint           n_kwargs,
                gpointer        data,
                GError        **error)
{
  int mode = GPOINTER_TO_INT (data);
  gboolean enabled = (mode & DECORATOR_ENABLED) != 0;
  gboolean inference = (mode & DECORATOR_INFERENCE) != 0;
  gboolean prev = cr_grad_mode_set_enabled (enabled);
  gboolean prev_inference = inference ? cr_inference_mode_set_enabled (!enabled) : FALSE;
  /* The region is the decorated def, body and all, when it is the script's. */
  const CrSpan *def = NULL;
  if (self->kind == CR_VALUE_FUNCTION && self->u.function->code->node
      && !(self->u.function->scope && self->u.function->scope->is_prelude))
    def = &self->u.function->code->node->span;
  cr_run_recorder_region_enter_at (interp, enabled ? CR_RECORD_REGION_ENABLE_GRAD
                                           : inference ? CR_RECORD_REGION_INFERENCE
                                           : CR_RECORD_REGION_NO_GRAD, def);
  CrValue *result = cr_interp_call (interp, self, args, n_args, kwargs, n_kwargs, error);

  cr_run_recorder_region_exit (interp);
  cr_grad_mode_set_enabled (prev);
  if (inference)
    cr_inference_mode_set_enabled (prev_inference);
  return result;
}

/* @torch.no_grad(): calling the object with a function decorates it. */
static CrValue *
grad_mode_call (CrInterp       *interp,
                CrValue        *self,
                CrValue *const *args,
                guint           n_args,
                const CrKwarg  *kwargs,
                guint           n_kwargs,
                GError        **error)
{
  GradMode *m = self->u.object.data;

  if (n_args != 1 || n_kwargs != 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "__call__() takes 2 positional arguments but %u were given", n_args + 1);
      return NULL;
    }
  return cr_value_new_native ("decorate_context", decorated_call, args[0],
                              GINT_TO_POINTER ((m->enabled ? DECORATOR_ENABLED : 0)
                                               | (m->inference ? DECORATOR_INFERENCE : 0)));
}

static const CrObjectType grad_mode_type = {
  .name = "grad_mode",
  .destroy = g_free,
  .call = grad_mode_call,
  .repr = grad_mode_repr,
  .enter = grad_mode_enter,
  .exit = grad_mode_exit,
};

static CrValue *
grad_mode_new (ModeKind kind,
               gboolean enabled)
{
  GradMode *m = g_new0 (GradMode, 1);

  m->kind = kind;
  m->enabled = enabled;
  m->prev = cr_grad_mode_is_enabled ();
  return cr_value_new_object (&grad_mode_type, m);
}

CrValue *
cr_torch_grad_mode_new (gboolean enabled)
{
  return grad_mode_new (enabled ? MODE_ENABLE_GRAD : MODE_NO_GRAD, enabled);
}

NATIVE (native_no_grad)
{
  CrTorchArgs a;
  int kind = GPOINTER_TO_INT (data);  /* 0 no_grad, 1 enable_grad, 2 inference_mode */
  const char *name = kind == 1 ? "enable_grad" : kind == 2 ? "inference_mode" : "no_grad";

  if (n_args > (kind == 2 ? 1u : 0u))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s.__init__() takes %s positional argument%s but %u were given", name,
                   kind == 2 ? "from 1 to 2" : "1", kind == 2 ? "s" : "", n_args + 1);
      return NULL;
    }
  if (!cr_torch_args_parse (&a, name, kind == 2 ? "| mode" : "", NULL, args, n_args, kwargs,
                            n_kwargs, error))
    return NULL;
  if (kind == 2)
    {
      /* inference_mode(False) turns grad mode back on inside. */
      gboolean on;
      CrValue *mode;

      if (!cr_torch_args_bool (&a, 0, TRUE, &on, error))
        return NULL;
      mode = grad_mode_new (MODE_NO_GRAD, !on);
      ((GradMode *) mode->u.object.data)->inference = TRUE;
      return mode;
    }
  return cr_torch_grad_mode_new (kind == 1);
}

NATIVE (native_is_inference_mode_enabled)
{
  CrTorchArgs a;

  if (!cr_torch_args_parse (&a, "is_inference_mode_enabled", "", NULL, args, n_args, kwargs,
                            n_kwargs, error))
    return NULL;
  return cr_value_new_bool (cr_inference_mode_is_enabled ());
}

NATIVE (native_set_grad_enabled)
{
  CrTorchArgs a;
  CrValue *m;

  if (!cr_torch_args_parse (&a, "set_grad_enabled", "mode", NULL, args, n_args, kwargs,
                            n_kwargs, error))
    return NULL;
  if (a.values[0]->kind != CR_VALUE_BOOL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "enabled must be a bool (got %s)", cr_torch_type_name (a.values[0]));
      return NULL;
    }
  m = grad_mode_new (MODE_SET, a.values[0]->u.b);
  cr_grad_mode_set_enabled (a.values[0]->u.b);
  cr_run_recorder_grad_enabled (interp, a.values[0]->u.b);
  return m;
}

NATIVE (native_is_grad_enabled)
{
  CrTorchArgs a;

  if (!cr_torch_args_parse (&a, "is_grad_enabled", "", NULL, args, n_args, kwargs, n_kwargs,
                            error))
    return NULL;
  return cr_value_new_bool (cr_grad_mode_is_enabled ());
}

/* ---- torch.cuda ------------------------------------------------------- */

NATIVE (native_cuda_is_available)
{
  return cr_value_new_bool (cr_cuda_is_available ());
}

NATIVE (native_cuda_device_count)
{
  return cr_value_new_int (cr_cuda_device_count ());
}

/* torch.cuda.synchronize(), current_device(): PyTorch's error without a
 * usable device. */
NATIVE (native_cuda_no_driver)
{
  if (!cr_cuda_is_available ())
    {
      cr_torch_set_no_cuda_error (error);
      return NULL;
    }
  if (GPOINTER_TO_INT (data))
    return cr_value_new_int (0);
  /* synchronize(): waits for the queued kernels; an asynchronous CUDA error
   * surfaces here as a RuntimeError, as in PyTorch. */
  if (!cr_cuda_synchronize (error))
    return NULL;
  return cr_value_none ();
}

/* torch.cuda.get_device_name(): "NVIDIA H100 80GB HBM3". */
NATIVE (native_cuda_get_device_name)
{
  if (!cr_cuda_is_available ())
    {
      cr_torch_set_no_cuda_error (error);
      return NULL;
    }
  return cr_value_new_str (cr_cuda_get_device_name ());
}

NATIVE (native_noop)
{
  return cr_value_none ();
}

/* ---- the modules ------------------------------------------------------ */

static void
add_native (CrValue      *module,
            const char   *name,
            CrNativeFunc  fn,
            gpointer      data)
{
  g_autoptr(CrValue) v = cr_value_new_native (name, fn, NULL, data);
  cr_value_set_member (module, name, v);
}

static void
add_value (CrValue    *module,
           const char *name,
           CrValue    *take)
{
  cr_value_set_member (module, name, take);
  cr_value_unref (take);
}

const CrTorchFuncTable cr_torch_func_tables[] = {
  { cr_torch_unary_funcs, &cr_torch_n_unary_funcs },
  { cr_torch_math_funcs, &cr_torch_n_math_funcs },
  { cr_torch_loss_funcs, &cr_torch_n_loss_funcs },
  { cr_torch_conv_funcs, &cr_torch_n_conv_funcs },
  { cr_torch_print_funcs, &cr_torch_n_print_funcs },
  { cr_torch_storage_funcs, &cr_torch_n_storage_funcs },
  { cr_torch_activation_funcs, &cr_torch_n_activation_funcs },
  { cr_torch_binary_funcs, &cr_torch_n_binary_funcs },
  { cr_torch_nnf_funcs, &cr_torch_n_nnf_funcs },
  { cr_torch_einsum_funcs, &cr_torch_n_einsum_funcs },
  { cr_torch_sort_funcs, &cr_torch_n_sort_funcs },
  { cr_torch_scatter_funcs, &cr_torch_n_scatter_funcs },
  { cr_torch_method_funcs, &cr_torch_n_method_funcs },
  { cr_torch_random_funcs, &cr_torch_n_random_funcs },
  { cr_torch_generator_funcs, &cr_torch_n_generator_funcs },
  { cr_torch_pointwise_funcs, &cr_torch_n_pointwise_funcs },
  { cr_torch_repeat_funcs, &cr_torch_n_repeat_funcs },
  { cr_torch_counting_funcs, &cr_torch_n_counting_funcs },
  { cr_torch_products_funcs, &cr_torch_n_products_funcs },
  { cr_torch_upsample_funcs, &cr_torch_n_upsample_funcs },
  { cr_torch_narrow_funcs, &cr_torch_n_narrow_funcs },
  { cr_torch_packed_funcs, &cr_torch_n_packed_funcs },
};
const guint cr_torch_n_func_tables = G_N_ELEMENTS (cr_torch_func_tables);

void
cr_torch_add_funcs (CrValue *module,
                    guint    where)
{
  for (guint t = 0; t < cr_torch_n_func_tables; t++)
    for (guint i = 0; i < *cr_torch_func_tables[t].n_funcs; i++)
      {
        const CrTorchFunc *f = &cr_torch_func_tables[t].funcs[i];
        if (!(f->where & where))
          continue;
        if (where == CR_TORCH_IN_TORCH)
          add_native (module, f->name, cr_torch_native_with_out, (gpointer) f);
        else
          add_native (module, f->name, f->fn, f->data);
      }
}

/* torch._C._warn(message, category="UserWarning"): the prelude's
 * warnings.warn, shown once per line of the script as Python's are. */
NATIVE (native_c_warn)
{
  CrTorchArgs a;

  if (!cr_torch_args_parse (&a, "_warn", "message | category", NULL, args, n_args, kwargs,
                            n_kwargs, error))
    return NULL;
  if (a.values[0]->kind != CR_VALUE_STR
      || (cr_torch_args_has (&a, 1) && a.values[1]->kind != CR_VALUE_STR))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "_warn(): message and category must be str");
      return NULL;
    }
  cr_interp_warn (interp, cr_torch_args_has (&a, 1) ? a.values[1]->u.str.data : "UserWarning",
                  a.values[0]->u.str.data);
  return cr_value_none ();
}

static CrValue *
autograd_module_new (void)
{
  CrValue *m = cr_value_new_module ("torch._C._autograd");
  add_native (m, "grad", cr_torch_native_grad, NULL);
  add_native (m, "backward", cr_torch_native_autograd_backward, NULL);
  add_value (m, "Function", cr_torch_function_class_new ());
  cr_torch_install_missing_hook (m, "torch.autograd");
  return m;
}

/* torch._C._set_name(tensor, name): what the trace and the graph call a
 * module's parameter ("fc1.weight", as named_parameters() says). */
NATIVE (native_c_set_name)
{
  if (n_args != 2 || n_kwargs != 0 || args[0]->kind != CR_VALUE_TENSOR
      || args[1]->kind != CR_VALUE_STR)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "_set_name() takes a tensor and a str");
      return NULL;
    }
  /* A renaming: the module path grows as modules nest (0.weight, then
   * seq.0.weight), while cr_tensor_set_name keeps a first name. */
  args[0]->u.tensor->name = NULL;
  cr_tensor_set_name (args[0]->u.tensor, args[1]->u.str.data);
  return cr_value_none ();
}

/* torch._C._nn: the native functions of torch.nn.functional. The prelude's
 * torch/nn/functional.py takes them all and adds what is written in script. */
static CrValue *
c_module_new (void)
{
  CrValue *c = cr_value_new_module ("torch._C");
  add_native (c, "_warn", native_c_warn, NULL);
  add_native (c, "_set_name", native_c_set_name, NULL);
  add_native (c, "_record_module_hook", cr_torch_native_record_module_hook, NULL);
  /* torch.autograd (the prelude) re-exports grad, backward and Function. */
  add_value (c, "_autograd", autograd_module_new ());
  cr_torch_install_missing_native (c);
  cr_training_install_natives (c);
  CrValue *nn = cr_value_new_module ("torch._C._nn");
  cr_torch_add_funcs (nn, CR_TORCH_IN_F);
  add_value (c, "_nn", nn);
  return c;
}

static CrValue *
cuda_module_new (void)
{
  CrValue *m = cr_value_new_module ("torch.cuda");
  add_native (m, "is_available", native_cuda_is_available, NULL);
  add_native (m, "device_count", native_cuda_device_count, NULL);
  add_native (m, "synchronize", native_cuda_no_driver, GINT_TO_POINTER (FALSE));
  add_native (m, "current_device", native_cuda_no_driver, GINT_TO_POINTER (TRUE));
  add_native (m, "get_device_name", native_cuda_get_device_name, NULL);
  add_native (m, "manual_seed", native_noop, NULL);
  add_native (m, "manual_seed_all", native_noop, NULL);
  cr_torch_install_missing_hook (m, "torch.cuda");
  return m;
}

/* torch.Tensor: a class named "Tensor" (isinstance(x, torch.Tensor)) whose
 * native __cr_new__ (the interpreter calls it instead of making an
 * instance) builds tensors: torch.Tensor(3, 5). */
static CrValue *
tensor_class_new (void)
{
  CrValue *cls = cr_value_new_class ("Tensor", NULL);
  CrValue *module = cr_value_new_str ("torch");

  /* Printed as <class 'torch.Tensor'>, as type(t) is. */
  cr_value_set_member (cls, "__module__", module);
  cr_value_unref (module);
  add_native (cls, "__cr_new__", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_FLOAT32));
  cr_torch_tensor_class_install (cls);
  return cls;
}

/* torch.zeros(..., out=t) and the like: through cr-torch-out.c. */
static const CrTorchFunc factory_funcs[] = {
  { "zeros", native_filled, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, GINT_TO_POINTER (FILL_ZEROS) },
  { "ones", native_filled, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, GINT_TO_POINTER (FILL_ONES) },
  { "empty", native_filled, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, GINT_TO_POINTER (FILL_EMPTY) },
  { "full", native_full, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, NULL },
  { "arange", native_arange, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, NULL },
  { "linspace", native_linspace, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, NULL },
  { "eye", native_eye, CR_TORCH_IN_TORCH | CR_TORCH_FACTORY, NULL },
};

static CrValue *
torch_module_new (void)
{
  CrValue *torch = cr_value_new_module ("torch");
  static const struct { const char *name; CrDType dtype; } dtypes[] = {
    { "float32", CR_DTYPE_FLOAT32 }, { "float", CR_DTYPE_FLOAT32 },
    { "float64", CR_DTYPE_FLOAT64 }, { "double", CR_DTYPE_FLOAT64 },
    { "int64", CR_DTYPE_INT64 }, { "long", CR_DTYPE_INT64 },
    { "int32", CR_DTYPE_INT32 }, { "int", CR_DTYPE_INT32 },
    { "uint8", CR_DTYPE_UINT8 }, { "bool", CR_DTYPE_BOOL },
  };
  static const struct { const char *name; const char *repr; } unsupported[] = {
    { "int16", "torch.int16" }, { "short", "torch.int16" }, { "int8", "torch.int8" },
    { "float16", "torch.float16" }, { "half", "torch.float16" },
    { "bfloat16", "torch.bfloat16" }, { "complex64", "torch.complex64" },
    { "cfloat", "torch.complex64" }, { "complex128", "torch.complex128" },
    { "cdouble", "torch.complex128" },
  };

  cr_torch_add_funcs (torch, CR_TORCH_IN_TORCH);

  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    add_value (torch, dtypes[i].name, cr_torch_dtype_new (dtypes[i].dtype));
  for (guint i = 0; i < G_N_ELEMENTS (unsupported); i++)
    add_value (torch, unsupported[i].name, cr_torch_unsupported_dtype_new (unsupported[i].repr));

  add_native (torch, "tensor", native_tensor, NULL);
  add_native (torch, "as_tensor", native_as_tensor, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (factory_funcs); i++)
    add_native (torch, factory_funcs[i].name, cr_torch_native_with_out, (gpointer) &factory_funcs[i]);
  add_native (torch, "zeros_like", native_like, GINT_TO_POINTER (FILL_ZEROS));
  add_native (torch, "ones_like", native_like, GINT_TO_POINTER (FILL_ONES));
  add_native (torch, "empty_like", native_like, GINT_TO_POINTER (FILL_EMPTY));
  add_native (torch, "full_like", native_like, GINT_TO_POINTER (0x100));

  add_native (torch, "FloatTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_FLOAT32));
  add_native (torch, "DoubleTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_FLOAT64));
  add_native (torch, "LongTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_INT64));
  add_native (torch, "BoolTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_BOOL));
  add_native (torch, "IntTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_INT32));
  add_native (torch, "ByteTensor", native_legacy_constructor, GINT_TO_POINTER (CR_DTYPE_UINT8));
  add_value (torch, "Tensor", tensor_class_new ());
  add_native (torch, "Size", native_size, NULL);
  add_native (torch, "device", cr_torch_native_device, NULL);
  add_native (torch, "finfo", cr_torch_native_finfo, NULL);
  add_native (torch, "is_tensor", native_is_tensor, NULL);
  add_native (torch, "get_default_dtype", native_get_default_dtype, NULL);
  add_native (torch, "no_grad", native_no_grad, GINT_TO_POINTER (FALSE));
  add_native (torch, "enable_grad", native_no_grad, GINT_TO_POINTER (TRUE));
  add_native (torch, "inference_mode", native_no_grad, GINT_TO_POINTER (2));
  add_native (torch, "is_inference_mode_enabled", native_is_inference_mode_enabled, NULL);
  add_native (torch, "set_grad_enabled", native_set_grad_enabled, NULL);
  add_native (torch, "is_grad_enabled", native_is_grad_enabled, NULL);
  add_value (torch, "default_generator", cr_torch_default_generator_new ());
  add_value (torch, "random", cr_torch_random_module_new ());
  add_value (torch, "inf", cr_value_new_float (INFINITY));
  add_value (torch, "nan", cr_value_new_float (NAN));

  /* torch.nn is the prelude's (core/lang/prelude), run when first reached. */
  add_value (torch, "_C", c_module_new ());
  add_value (torch, "cuda", cuda_module_new ());
  add_value (torch, "linalg", cr_torch_linalg_module_new ());
  cr_torch_install_missing_hook (torch, "torch");
  return torch;
}

CrValue *
cr_torch_import (CrInterp    *interp,
                 const char  *dotted_name,
                 GError     **error)
{
  g_auto(GStrv) parts = NULL;
  CrValue *module;

  if (strcmp (dotted_name, "torch") != 0 && !g_str_has_prefix (dotted_name, "torch."))
    {
      g_autofree char *first = g_strndup (dotted_name, strcspn (dotted_name, "."));
      g_set_error (error, CR_LANG_ERROR, CR_EXC_MODULE_NOT_FOUND_ERROR,
                   "No module named '%s'", first);
      return NULL;
    }

  /* The tree is built once per run (a few hundred small values); a
   * submodule is taken from the interpreter's `torch`, so that every
   * spelling of an import gives the same object. */
  if (strcmp (dotted_name, "torch") != 0)
    module = cr_interp_import (interp, "torch", error);
  else
    module = torch_module_new ();
  if (module == NULL)
    return NULL;
  if (strcmp (dotted_name, "torch") == 0)
  {
    /* torch.dtype is the class type() gives for a dtype, so that
     * isinstance(torch.float32, torch.dtype) holds. */
    CrValue *f32 = cr_torch_dtype_new (CR_DTYPE_FLOAT32);
    CrValue *dtype_cls = cr_interp_type_of (interp, f32);
    if (dtype_cls)
      cr_value_set_member (module, "dtype", dtype_cls);
    cr_value_unref (f32);
    CrValue *generator_cls = cr_torch_generator_class (interp);
    if (generator_cls)
      cr_value_set_member (module, "Generator", generator_cls);
  }
  parts = g_strsplit (dotted_name, ".", -1);
  for (guint i = 1; parts[i] != NULL; i++)
    {
      /* getattr, not a member lookup: a prelude submodule (torch.nn) is
       * run when first reached. */
      GError *local = NULL;
      g_autoptr(CrValue) child = cr_interp_getattr_opt (interp, module, parts[i], &local);
      if (g_error_matches (local, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR))
        g_clear_error (&local);
      if (local != NULL)
        {
          cr_value_unref (module);
          g_propagate_error (error, local);
          return NULL;
        }
      if (child == NULL || child->kind != CR_VALUE_MODULE)
        {
          cr_value_unref (module);
          /* Python names the first missing part: "No module named 'torch.foo'";
           * a part PyTorch has says that Chainrule lacks it. */
          {
            GString *name = g_string_new (parts[0]);
            for (guint j = 1; j < i; j++)
              g_string_append_printf (name, ".%s", parts[j]);
            if (cr_torch_is_unsupported_name (name->str, parts[i]))
              cr_torch_missing_attribute_error (name->str, parts[i], error);
            else
              {
                g_string_append_printf (name, ".%s", parts[i]);
                g_set_error (error, CR_LANG_ERROR, CR_EXC_MODULE_NOT_FOUND_ERROR,
                             "No module named '%s'", name->str);
              }
            g_string_free (name, TRUE);
          }
          return NULL;
        }
      cr_value_ref (child);
      cr_value_unref (module);
      module = child;
    }
  return module;
}
