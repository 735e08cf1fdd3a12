/* cr-torch-tensor-methods.c — what `t.NAME` gives for a tensor: its
 * attributes (shape, grad, grad_fn, requires_grad, data ...), settable ones
 * (t.requires_grad = ..., t.grad = ..., t.data = ...), and its methods: those
 * below plus the ones shared with torch.NAME (cr-torch-math.c). */
#include "cr-cuda.h"
#include "cr-device.h"
#include "cr-torch-private.h"
#include "cr-run-recorder-coach.h"
#include "cr-run-recorder-training.h"
#include "cr-kernels.h"
#include "cr-grad-mode.h"

#include <string.h>

#include "cr-native.h"

#define PARSE(fname, spec) \
  CrTorchArgs a; \
  if (!cr_torch_args_parse (&a, fname, spec, self, args, n_args, kwargs, n_kwargs, error)) \
    return NULL

#define SELF_TENSOR (self->u.tensor)

static const char non_leaf_grad_warning[] =
  "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
  "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
  "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
  "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
  "instead. See github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered "
  "internally at  ./build/aten/src/ATen/core/TensorBody.h:480.)";

/* Dimension wrapping with PyTorch's IndexError. */
static gboolean
wrap_dim (gint64  dim,
          int     ndim,
          int    *out,
          GError **error)
{
  gint64 n = MAX (ndim, 1);

  if (dim < -n || dim >= n)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")",
                   -n, n - 1, dim);
      return FALSE;
    }
  *out = (int) (dim < 0 ? dim + n : dim);
  return TRUE;
}

/* ---- sizes and layout ------------------------------------------------- */

NATIVE (native_size)
{
  gint64 dim;
  int d;
  PARSE ("size", "self | dim");

  if (!cr_torch_args_has (&a, 1))
    return cr_value_new_size (SELF_TENSOR->shape, SELF_TENSOR->ndim);
  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  if (SELF_TENSOR->ndim == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions",
                   dim);
      return NULL;
    }
  if (!wrap_dim (dim, SELF_TENSOR->ndim, &d, error))
    return NULL;
  return cr_value_new_int (SELF_TENSOR->shape[d]);
}

NATIVE (native_stride)
{
  gint64 dim;
  int d;
  PARSE ("stride", "self | dim");

  if (!cr_torch_args_has (&a, 1))
    {
      CrValue *items[CR_MAX_DIMS];
      CrValue *tuple;
      for (int i = 0; i < SELF_TENSOR->ndim; i++)
        items[i] = cr_value_new_int (SELF_TENSOR->strides[i]);
      tuple = cr_value_new_tuple (items, SELF_TENSOR->ndim);
      for (int i = 0; i < SELF_TENSOR->ndim; i++)
        cr_value_unref (items[i]);
      return tuple;
    }
  if (!cr_torch_args_int (&a, 1, 0, &dim, error) || !wrap_dim (dim, SELF_TENSOR->ndim, &d, error))
    return NULL;
  return cr_value_new_int (SELF_TENSOR->ndim == 0 ? 1 : SELF_TENSOR->strides[d]);
}

NATIVE (native_dim)
{
  PARSE ((const char *) data, "self");
  return cr_value_new_int (SELF_TENSOR->ndim);
}

/* Also torch.numel(x): the tensor is the first parameter, not always self. */
NATIVE (native_numel)
{
  CrTensor *x;
  PARSE ((const char *) data, "input");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  return cr_value_new_int (x->numel);
}

NATIVE (native_storage_offset)
{
  PARSE ("storage_offset", "self");
  return cr_value_new_int (SELF_TENSOR->offset);
}

NATIVE (native_is_contiguous)
{
  PARSE ("is_contiguous", "self");
  return cr_value_new_bool (cr_tensor_is_contiguous (SELF_TENSOR));
}

NATIVE (native_is_floating_point)
{
  CrTensor *x;
  PARSE ("is_floating_point", "input");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  return cr_value_new_bool (cr_dtype_is_floating (x->dtype));
}

/* Whether self shares another tensor's storage as its view. */
NATIVE (native_is_view)
{
  PARSE ("_is_view", "self");
  return cr_value_new_bool (SELF_TENSOR->view_base != NULL);
}

/* movedim(input, source, destination), also moveaxis: the dims of source
 * put at destination, the others in their order (PermuteBackward0). */
NATIVE (native_movedim)
{
  int src[CR_MAX_DIMS], dst[CR_MAX_DIMS], order[CR_MAX_DIMS];
  int n_src = 0, n_dst = 0;
  gboolean taken[CR_MAX_DIMS] = { FALSE }, placed[CR_MAX_DIMS] = { FALSE };
  CrTensor *x;
  PARSE ((const char *) data, "input source destination");

  if ((x = cr_torch_args_tensor (&a, 0, error)) == NULL
      || !cr_torch_args_dims (&a, 1, src, &n_src, error)
      || !cr_torch_args_dims (&a, 2, dst, &n_dst, error))
    return NULL;
  if (n_src != n_dst)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "movedim: Invalid source or destination dims: source (%d dims) should "
                   "contain the same number of dims as destination (%d dims)", n_src, n_dst);
      return NULL;
    }
  for (int i = 0; i < n_src; i++)
    {
      if (!wrap_dim (src[i], x->ndim, &src[i], error) || !wrap_dim (dst[i], x->ndim, &dst[i], error))
        return NULL;
      if (taken[src[i]] || placed[dst[i]])
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "movedim: repeated dim in `%s`",
                       taken[src[i]] ? "source" : "destination");
          return NULL;
        }
      taken[src[i]] = placed[dst[i]] = TRUE;
      order[dst[i]] = src[i];
    }
  for (int d = 0, next = 0; d < x->ndim; d++)
    if (!placed[d])
      {
        while (taken[next])
          next++;
        order[d] = next++;
      }
  return cr_torch_wrap (cr_permute (x, order, x->ndim, error));
}

/* self.unfold(dimension, size, step): sliding windows, a view. */
NATIVE (native_unfold)
{
  gint64 dim, size, step;
  PARSE ("unfold", "self dimension size step");

  if (!cr_torch_args_int (&a, 1, 0, &dim, error) || !cr_torch_args_int (&a, 2, 0, &size, error)
      || !cr_torch_args_int (&a, 3, 0, &step, error))
    return NULL;
  return cr_torch_wrap (cr_unfold (SELF_TENSOR, (int) CLAMP (dim, G_MININT, G_MAXINT), size, step,
                                   error));
}

/* as_strided(input, size, stride, storage_offset=None) */
NATIVE (native_as_strided)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS], offset = 0;
  int ndim, n_strides;
  CrTensor *x;
  PARSE ("as_strided", "input size stride | storage_offset");

  if ((x = cr_torch_args_tensor (&a, 0, error)) == NULL
      || !cr_torch_parse_size ("as_strided", "size", &a.values[1], 1, shape, &ndim, error)
      || !cr_torch_parse_size ("as_strided", "stride", &a.values[2], 1, strides, &n_strides, error)
      || (cr_torch_args_has (&a, 3) && !cr_torch_args_int (&a, 3, 0, &offset, error)))
    return NULL;
  if (ndim != n_strides)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "mismatch in length of strides and shape");
      return NULL;
    }
  return cr_torch_wrap (cr_as_strided (x, shape, ndim, strides, cr_torch_args_has (&a, 3), offset,
                                       error));
}

/* Made under torch.inference_mode() (its storage was). */
NATIVE (native_is_inference)
{
  PARSE ("is_inference", "self");
  return cr_value_new_bool (SELF_TENSOR->storage != NULL && SELF_TENSOR->storage->is_inference);
}

NATIVE (native_element_size)
{
  PARSE ("element_size", "self");
  return cr_value_new_int ((gint64) cr_dtype_size (SELF_TENSOR->dtype));
}

NATIVE (native_item)
{
  PARSE ("item", "self");
  cr_coach_watch_cut (interp, SELF_TENSOR, "item");
  return cr_torch_tensor_item (SELF_TENSOR, error);
}

NATIVE (native_tolist)
{
  PARSE ("tolist", "self");
  cr_coach_watch_cut (interp, SELF_TENSOR, "tolist");
  /* A value per element: checked against the memory budget first (a
   * 4-byte float becomes a ~60-byte value). */
  if (!cr_value_check_alloc_n ((gsize) SELF_TENSOR->numel, CR_VALUE_BYTES + CR_VALUE_ITEM_BYTES, error))
    return NULL;
  return cr_torch_tensor_tolist (SELF_TENSOR);
}

/* ---- conversions ------------------------------------------------------ */

static CrValue *
convert (CrValue  *self,
         CrDType   dtype,
         GError  **error)
{
  CrTensor *r = cr_to_dtype (SELF_TENSOR, dtype, error);

  if (r == NULL)
    return NULL;
  /* x.float() is x when x is already float32, as in PyTorch. */
  if (r == SELF_TENSOR)
    {
      cr_tensor_unref (r);
      return cr_value_ref (self);
    }
  return cr_value_new_tensor_take (r);
}

NATIVE (native_convert)
{
  CrDType dtype = (CrDType) GPOINTER_TO_INT (data);
  PARSE (cr_dtype_short_name (dtype), "self");
  return convert (self, dtype, error);
}

NATIVE (native_unsupported_convert)
{
  PARSE ((const char *) data, "self");
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "dtype torch.%s is not supported by Chainrule", "float16");
  return NULL;
}

/* x on device in dtype as a value: self when nothing changes. */
static CrValue *
move (CrValue      *self,
      CrDeviceType  device,
      CrDType       dtype,
      GError      **error)
{
  CrTensor *r;

  if (SELF_TENSOR->device == device)
    return convert (self, dtype, error);
  r = cr_to_device (SELF_TENSOR, device, dtype, error);
  return r != NULL ? cr_value_new_tensor_take (r) : NULL;
}

/* to(dtype), to(device), to(device, dtype), to(other), to(dtype=, device=) */
NATIVE (native_to)
{
  CrDType dtype = SELF_TENSOR->dtype;
  CrDeviceType device = SELF_TENSOR->device;

  if (n_args > 2)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "to() received an invalid combination of arguments - got %u positional "
                   "arguments", n_args);
      return NULL;
    }
  for (guint i = 0; i < n_args + n_kwargs; i++)
    {
      CrValue *v = i < n_args ? args[i] : kwargs[i - n_args].value;
      const char *kw = i < n_args ? NULL : kwargs[i - n_args].name;

      if (kw != NULL && (strcmp (kw, "non_blocking") == 0 || strcmp (kw, "copy") == 0
                         || strcmp (kw, "memory_format") == 0))
        continue;
      if (kw != NULL && strcmp (kw, "dtype") != 0 && strcmp (kw, "device") != 0
          && strcmp (kw, "other") != 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "to() got an unexpected keyword argument '%s'", kw);
          return NULL;
        }
      if (v->kind == CR_VALUE_NONE)
        continue;
      if (cr_torch_value_get_dtype (v, &dtype))
        continue;
      else if (v->kind == CR_VALUE_TENSOR)
        {
          /* to(other): other's dtype and device. */
          dtype = v->u.tensor->dtype;
          device = v->u.tensor->device;
        }
      else if (v->kind == CR_VALUE_OBJECT && strcmp (v->u.object.type->name, "torch.dtype") == 0)
        {
          g_autofree char *repr = cr_value_repr (interp, v, NULL);
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "dtype %s is not supported by Chainrule", repr);
          return NULL;
        }
      else if (!cr_torch_value_to_device (v, &device, error))
        return NULL;
    }
  return move (self, device, dtype, error);
}

NATIVE (native_cpu)
{
  PARSE ("cpu", "self");
  return move (self, CR_DEVICE_CPU, SELF_TENSOR->dtype, error);
}

NATIVE (native_cuda)
{
  CrDeviceType device = CR_DEVICE_CUDA;
  PARSE ("cuda", "self | device non_blocking");

  if (cr_torch_args_has (&a, 1) && a.values[1]->kind != CR_VALUE_NONE
      && !cr_torch_value_to_device (a.values[1], &device, error))
    return NULL;
  if (device != CR_DEVICE_CUDA)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Invalid device, must be cuda device");
      return NULL;
    }
  if (!cr_device_check_usable (CR_DEVICE_CUDA, error))
    return NULL;
  return move (self, CR_DEVICE_CUDA, SELF_TENSOR->dtype, error);
}

/* type() -> "torch.FloatTensor"; type(torch.float64) or type("torch.DoubleTensor") casts. */
NATIVE (native_type)
{
  CrDType dtype;
  PARSE ("type", "self | dtype non_blocking");

  if (!cr_torch_args_has (&a, 1))
    return cr_value_new_str (cr_dtype_legacy_name (SELF_TENSOR->dtype));
  /* x.type(torch.IntTensor): the legacy class, a native named as its type. */
  if (a.values[1]->kind == CR_VALUE_NATIVE && a.values[1]->u.native.self == NULL)
    for (int d = 0; d < CR_DTYPE_COUNT; d++)
      if (strcmp (a.values[1]->u.native.name, cr_dtype_legacy_name ((CrDType) d) + strlen ("torch.")) == 0)
        return convert (self, (CrDType) d, error);
  if (a.values[1]->kind == CR_VALUE_STR)
    {
      for (int d = 0; d < CR_DTYPE_COUNT; d++)
        if (strcmp (a.values[1]->u.str.data, cr_dtype_legacy_name ((CrDType) d)) == 0)
          return convert (self, (CrDType) d, error);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "invalid type: '%s'", a.values[1]->u.str.data);
      return NULL;
    }
  {
    gboolean set;
    if (!cr_torch_args_dtype (&a, 1, &dtype, &set, error))
      return NULL;
  }
  return convert (self, dtype, error);
}

NATIVE (native_numpy)
{
  CrTensor *x;
  PARSE ("numpy", "self");

  /* PyTorch's own checks come first, so a script sees the error it would. */
  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  if (x->requires_grad)
    g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                         "Can't call numpy() on Tensor that requires grad. "
                         "Use tensor.detach().numpy() instead.");
  else if (x->device != CR_DEVICE_CPU)
    g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                         "can't convert cuda:0 device type tensor to numpy. Use "
                         "Tensor.cpu() to copy the tensor to host memory first.");
  else
    g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                         "numpy is not available in Chainrule");
  return NULL;
}

/* ---- autograd state --------------------------------------------------- */

NATIVE (native_requires_grad_)
{
  gboolean flag;
  PARSE ("requires_grad_", "self | requires_grad");

  if (!cr_torch_args_bool (&a, 1, TRUE, &flag, error))
    return NULL;
  if (!cr_tensor_set_requires_grad (SELF_TENSOR, flag, error))
    return NULL;
  return cr_value_ref (self);
}

NATIVE (native_detach_)
{
  PARSE ("detach_", "self");
  if (!cr_detach_ (SELF_TENSOR, error))
    return NULL;
  return cr_value_ref (self);
}

NATIVE (native_type_as)
{
  CrTensor *other;
  PARSE ("type_as", "self other");

  other = cr_torch_args_tensor (&a, 1, error);
  if (other == NULL)
    return NULL;
  return cr_torch_wrap (cr_to_dtype (SELF_TENSOR, other->dtype, error));
}

NATIVE (native_retain_grad)
{
  PARSE ("retain_grad", "self");
  if (!cr_tensor_retain_grad (SELF_TENSOR, error))
    return NULL;
  return cr_value_none ();
}

/* ---- in place --------------------------------------------------------- */

NATIVE (native_zero_)
{
  PARSE ("zero_", "self");
  if (!cr_zero_ (SELF_TENSOR, error))
    return NULL;
  return cr_value_ref (self);
}

NATIVE (native_fill_)
{
  double value;
  PARSE ("fill_", "self value");

  if (!cr_torch_args_double (&a, 1, 0.0, &value, error))
    return NULL;
  if (!cr_fill_ (SELF_TENSOR, value, error))
    return NULL;
  return cr_value_ref (self);
}

typedef struct {
  const char *name;
  CrOpId      op;
} InplaceInfo;

static const InplaceInfo inplace_add = { "add_", CR_OP_ADD };
static const InplaceInfo inplace_sub = { "sub_", CR_OP_SUB };
static const InplaceInfo inplace_mul = { "mul_", CR_OP_MUL };
static const InplaceInfo inplace_div = { "div_", CR_OP_DIV };
static const InplaceInfo inplace_pow = { "pow_", CR_OP_POW_SCALAR };

NATIVE (native_inplace)
{
  const InplaceInfo *info = data;
  g_autoptr(CrTensor) other = NULL;
  double alpha = 1.0;
  gboolean has_alpha = info->op == CR_OP_ADD || info->op == CR_OP_SUB;
  PARSE (info->name, has_alpha ? "self other | * alpha" : "self other");

  other = cr_torch_args_tensor_or_number (&a, 1, error);
  if (other == NULL)
    return NULL;
  if (has_alpha && !cr_torch_args_double (&a, 2, 1.0, &alpha, error))
    return NULL;
  if (alpha != 1.0 ? !cr_add_alpha_ (SELF_TENSOR, info->op, other, alpha, error)
                    : !cr_inplace_binary (info->op, SELF_TENSOR, other, error))
    return NULL;
  return cr_value_ref (self);
}

NATIVE (native_clamp_)
{
  gboolean has_min, has_max;
  double min = 0, max = 0;
  GError *local = NULL;
  PARSE (data != NULL ? (const char *) data : "clamp_", "self | min max");

  if (cr_torch_clamp_takes_tensors (&a, &local))
    {
      CrTensor *lo = cr_torch_args_has (&a, 1) ? a.values[1]->u.tensor : NULL;
      CrTensor *hi = cr_torch_args_has (&a, 2) ? a.values[2]->u.tensor : NULL;

      return cr_clamp_tensor_ (CR_OP_CLAMP_TENSOR, SELF_TENSOR, lo, hi, error) ? cr_value_ref (self)
                                                                               : NULL;
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  has_min = cr_torch_args_has (&a, 1);
  has_max = cr_torch_args_has (&a, 2);
  if ((has_min && !cr_torch_args_double (&a, 1, 0.0, &min, error))
      || (has_max && !cr_torch_args_double (&a, 2, 0.0, &max, error)))
    return NULL;
  if (!has_min && !has_max)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.clamp: At least one of 'min' or 'max' must not be None");
      return NULL;
    }
  if (!cr_clamp_ (SELF_TENSOR, has_min, min, has_max, max, error))
    return NULL;
  return cr_value_ref (self);
}

/* self.clamp_min_(min), self.clamp_max_(max) (data TRUE): a tensor bound or
 * a number. */
NATIVE (native_clamp_bound_)
{
  gboolean is_max = GPOINTER_TO_INT (data);
  double bound;
  PARSE (is_max ? "clamp_max_" : "clamp_min_", is_max ? "self max" : "self min");

  if (a.values[1]->kind == CR_VALUE_TENSOR)
    {
      CrTensor *t = a.values[1]->u.tensor;

      if (!cr_clamp_tensor_ (is_max ? CR_OP_CLAMP_MAX_TENSOR : CR_OP_CLAMP_MIN_TENSOR, SELF_TENSOR,
                             is_max ? NULL : t, is_max ? t : NULL, error))
        return NULL;
      return cr_value_ref (self);
    }
  if (!cr_torch_value_is_number (a.values[1], &bound))
    {
      cr_torch_args_type_error (&a, 1, "Number", error);
      return NULL;
    }
  if (!cr_clamp_bound_ (SELF_TENSOR, is_max, bound, error))
    return NULL;
  /* _saved_min shows the bound as given: 1, not 1.0. */
  if (SELF_TENSOR->grad_fn != NULL && SELF_TENSOR->grad_fn->op->id == (is_max ? CR_OP_CLAMP_MAX
                                                                               : CR_OP_CLAMP_MIN)
      && a.values[1]->kind == CR_VALUE_INT)
    cr_node_args (SELF_TENSOR->grad_fn)->scalar_int_mask |= 1u;
  return cr_value_ref (self);
}

NATIVE (native_copy_)
{
  CrTensor *src;
  PARSE ("copy_", "self src | non_blocking");

  src = cr_torch_args_tensor (&a, 1, error);
  if (src == NULL)
    return NULL;
  if (!cr_copy_ (SELF_TENSOR, src, error))
    return NULL;
  return cr_value_ref (self);
}

/* The options of new_zeros, new_ones, new_empty and new_full: dtype and
 * device (self's unless given) and requires_grad, from the keywords. */
static CrTensor *
new_like_self (const char     *fname,
               CrTensor       *self,
               const gint64   *shape,
               int             ndim,
               double          value,
               const CrKwarg  *kwargs,
               guint           n_kwargs,
               GError        **error)
{
  CrDType dtype = self->dtype;
  CrDeviceType device = self->device;
  gboolean set, requires_grad;
  CrTorchArgs a;
  CrTensor *t;

  if (!cr_torch_args_parse (&a, fname, "| * dtype device requires_grad layout pin_memory", NULL,
                            NULL, 0, kwargs, n_kwargs, error)
      || !cr_torch_args_dtype (&a, 0, &dtype, &set, error)
      || !cr_torch_args_device (&a, 1, &device, &set, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &requires_grad, error))
    return NULL;
  if (!set)
    device = self->device;
  t = cr_tensor_new_full (shape, ndim, value, dtype, device, error);
  if (t != NULL && requires_grad && !cr_tensor_set_requires_grad (t, TRUE, error))
    g_clear_pointer (&t, cr_tensor_unref);
  return t;
}

/* new_zeros(*size), new_ones(*size), new_empty(*size) (data 0, 1, 2):
 * self's dtype and device unless given. new_empty's memory is zeros here,
 * which a script cannot tell from any other contents it did not write. */
NATIVE (native_new_filled)
{
  static const char *const names[] = { "new_zeros", "new_ones", "new_empty" };
  guint which = MIN (GPOINTER_TO_UINT (data), 2);
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  if (!cr_torch_parse_size (names[which], "size", args, n_args, shape, &ndim, error))
    return NULL;
  return cr_torch_wrap (new_like_self (names[which], SELF_TENSOR, shape, ndim, which == 1 ? 1.0 : 0.0,
                                       kwargs, n_kwargs, error));
}

/* new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False) */
NATIVE (native_new_full)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  double value;
  CrTorchArgs a;
  g_autofree CrKwarg *named = g_new (CrKwarg, MAX (n_kwargs, 1));
  g_autofree CrKwarg *options = g_new (CrKwarg, MAX (n_kwargs, 1));
  guint n_named = 0, n_options = 0;

  /* size and fill_value may come by keyword; the others are options. */
  for (guint k = 0; k < n_kwargs; k++)
    if (strcmp (kwargs[k].name, "size") == 0 || strcmp (kwargs[k].name, "fill_value") == 0)
      named[n_named++] = kwargs[k];
    else
      options[n_options++] = kwargs[k];
  if (!cr_torch_args_parse (&a, "new_full", "self size fill_value", self, args, n_args, named,
                            n_named, error))
    return NULL;
  if (a.values[1]->kind != CR_VALUE_TUPLE && a.values[1]->kind != CR_VALUE_LIST)
    {
      cr_torch_args_type_error (&a, 1, "tuple of SymInts", error);
      return NULL;
    }
  if (!cr_torch_parse_size ("new_full", "size", &a.values[1], 1, shape, &ndim, error))
    return NULL;
  if (!cr_torch_value_is_number (a.values[2], &value))
    {
      cr_torch_args_type_error (&a, 2, "Number", error);
      return NULL;
    }
  return cr_torch_wrap (new_like_self ("new_full", SELF_TENSOR, shape, ndim, value, options,
                                       n_options, error));
}

/* ---- var, std, logsumexp, amax, amin, cumsum (cr-ops-stats.c) -------- */

/* var(input, dim=None, unbiased=True, keepdim=False), also var(input, unbiased)
 * and var(input, dim, *, correction=1, keepdim=False). In PyTorch 1.13
 * correction= needs dim (None is fine) and no unbiased, and is an int. */
NATIVE (native_var_std)
{
  static const char *const method_options[] = {
    "tuple of ints dim, *, int correction, bool keepdim",
    "tuple of ints dim, bool unbiased, bool keepdim",
    "bool unbiased",
    "tuple of names dim, *, int correction, bool keepdim",
    "tuple of names dim, bool unbiased, bool keepdim",
    NULL
  };
  static const char *const function_options[] = {
    "Tensor input, tuple of ints dim, *, int correction, bool keepdim, Tensor out",
    "Tensor input, tuple of ints dim, bool unbiased, bool keepdim, *, Tensor out",
    "Tensor input, bool unbiased",
    "Tensor input, tuple of names dim, *, int correction, bool keepdim, Tensor out",
    "Tensor input, tuple of names dim, bool unbiased, bool keepdim, *, Tensor out",
    NULL
  };
  gboolean is_std = GPOINTER_TO_INT (data);
  int dims[CR_MAX_DIMS];
  int n_dims = 0;
  gboolean unbiased, keepdim;
  gint64 correction = 1;
  CrTensor *x, *out;
  PARSE (is_std ? "std" : "var", "input | dim unbiased keepdim * correction");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  if (a.values[4] != NULL)
    {
      CrValue *c = a.values[4];

      if (a.values[1] == NULL || a.values[2] != NULL
          || (c->kind != CR_VALUE_NONE && c->kind != CR_VALUE_INT))
        {
          cr_torch_invalid_combination (is_std ? "std" : "var",
                                        self != NULL ? method_options : function_options,
                                        args, n_args, kwargs, n_kwargs, error);
          return NULL;
        }
      if (c->kind == CR_VALUE_INT && !cr_torch_args_int (&a, 4, 1, &correction, error))
        return NULL;
      if (!cr_torch_args_dims (&a, 1, dims, &n_dims, error)
          || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
        return NULL;
    }
  else if (cr_torch_args_has (&a, 1) && a.values[1]->kind == CR_VALUE_BOOL
           && !cr_torch_args_has (&a, 2) && !cr_torch_args_has (&a, 3))
    {
      unbiased = a.values[1]->u.b;
      correction = unbiased ? 1 : 0;
      keepdim = FALSE;
    }
  else if (!cr_torch_args_dims (&a, 1, dims, &n_dims, error)
           || !cr_torch_args_bool (&a, 2, TRUE, &unbiased, error)
           || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  else
    correction = unbiased ? 1 : 0;
  out = is_std ? cr_std (x, dims, n_dims, (double) correction, keepdim, error)
               : cr_var (x, dims, n_dims, (double) correction, keepdim, error);
  /* correction=None divides by N - 1 and shows as None in _saved_correction. */
  if (out != NULL && out->grad_fn != NULL && a.values[4] != NULL
      && a.values[4]->kind == CR_VALUE_NONE)
    cr_node_args (out->grad_fn)->has_scalar[0] = FALSE;
  return cr_torch_wrap (out);
}

typedef CrTensor *(*DimsReduceFunc) (CrTensor *x, const int *dims, int n_dims,
                                     gboolean keepdim, GError **error);

/* amax(input, dim=(), keepdim=False), amin, logsumexp(input, dim, keepdim=False). */
NATIVE (native_dims_reduce)
{
  const char *name = data;
  gboolean is_lse = strcmp (name, "logsumexp") == 0;
  DimsReduceFunc fn = is_lse ? cr_logsumexp : strcmp (name, "amax") == 0 ? cr_amax : cr_amin;
  int dims[CR_MAX_DIMS];
  int n_dims = 0;
  gboolean keepdim;
  CrTensor *x;
  PARSE (name, is_lse ? "input dim | keepdim" : "input | dim keepdim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_dims (&a, 1, dims, &n_dims, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error))
    return NULL;
  return cr_torch_wrap (fn (x, dims, n_dims, keepdim, error));
}

/* cumsum, cumprod (data 1) and logcumsumexp (data 2; cr-ops-cumulative.c). */
NATIVE (native_cumsum)
{
  static const char *const names[] = { "cumsum", "cumprod", "logcumsumexp" };
  CrTensor *(*const funcs[]) (CrTensor *, int, GError **) = { cr_cumsum, cr_cumprod,
                                                              cr_logcumsumexp };
  guint which = MIN (GPOINTER_TO_UINT (data), 2);
  gint64 dim;
  CrTensor *x;
  PARSE (names[which], "input dim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  return cr_torch_wrap (funcs[which] (x, (int) dim, error));
}

/* self.cumsum_(dim), self.cumprod_(dim) (data 1; cr-ops-inplace-forms.c). */
NATIVE (native_cumulative_)
{
  gint64 dim;
  PARSE (data != NULL ? "cumprod_" : "cumsum_", "self dim");

  if (!cr_torch_args_int (&a, 1, 0, &dim, error)
      || !cr_cumulative_ (SELF_TENSOR, (int) dim, data != NULL, error))
    return NULL;
  return cr_value_ref (self);
}

/* ---- split, chunk, unbind, flip, triu, tril, trace (cr-ops-pieces.c) -- */

static CrValue *
pieces_tuple (GPtrArray *pieces)
{
  g_autoptr(GPtrArray) items = NULL;
  CrValue *tuple;

  if (pieces == NULL)
    return NULL;
  items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  for (guint i = 0; i < pieces->len; i++)
    g_ptr_array_add (items, cr_value_new_tensor_take (cr_tensor_ref (pieces->pdata[i])));
  tuple = cr_value_new_tuple ((CrValue *const *) items->pdata, items->len);
  g_ptr_array_unref (pieces);
  return tuple;
}

/* split(tensor, split_size_or_sections, dim=0); data non-NULL: unsafe_split
 * (an int split_size only). */
NATIVE (native_split)
{
  gboolean unsafe = data != NULL;
  gint64 dim;
  CrTensor *x;
  CrValue *sizes;
  PARSE (unsafe ? "unsafe_split" : "split",
         unsafe ? "input split_size | dim" : "input split_size_or_sections | dim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 2, 0, &dim, error))
    return NULL;
  sizes = a.values[1];
  if (!unsafe && (sizes->kind == CR_VALUE_LIST || sizes->kind == CR_VALUE_TUPLE))
    {
      gint64 lengths[64];
      guint n = sizes->u.seq.items->len;

      if (n > G_N_ELEMENTS (lengths))
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                               "split into more than 64 sections is not supported by "
                               "Chainrule yet");
          return NULL;
        }
      for (guint i = 0; i < n; i++)
        {
          CrValue *v = sizes->u.seq.items->pdata[i];
          if (v->kind != CR_VALUE_INT)
            {
              cr_torch_args_type_error (&a, 1, "int", error);
              return NULL;
            }
          lengths[i] = v->u.i;
        }
      return pieces_tuple (cr_split_with_sizes (x, lengths, n, (int) dim, error));
    }
  if (sizes->kind != CR_VALUE_INT)
    {
      cr_torch_args_type_error (&a, 1, "int", error);
      return NULL;
    }
  return pieces_tuple (unsafe ? cr_unsafe_split (x, sizes->u.i, (int) dim, error)
                              : cr_split (x, sizes->u.i, (int) dim, error));
}

/* chunk(input, chunks, dim=0): split into pieces of ceil(size / chunks);
 * data non-NULL: unsafe_chunk. */
NATIVE (native_chunk)
{
  GPtrArray *(*split) (CrTensor *, gint64, int, GError **) = data != NULL ? cr_unsafe_split
                                                                          : cr_split;
  gint64 chunks, dim;
  int d;
  CrTensor *x;
  PARSE (data != NULL ? "unsafe_chunk" : "chunk", "input chunks | dim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 1, 1, &chunks, error)
      || !cr_torch_args_int (&a, 2, 0, &dim, error))
    return NULL;
  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "chunk expects at least a 1-dimensional tensor");
      return NULL;
    }
  if (chunks <= 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "chunk expects `chunks` to be greater than 0, got: %" G_GINT64_FORMAT, chunks);
      return NULL;
    }
  d = (int) dim;
  if (d < -x->ndim || d >= x->ndim)
    return pieces_tuple (split (x, 1, d, error));   /* the IndexError */
  if (d < 0)
    d += x->ndim;
  return pieces_tuple (split (x, MAX ((x->shape[d] + chunks - 1) / chunks, 1), d, error));
}

NATIVE (native_unbind)
{
  gint64 dim;
  CrTensor *x;
  PARSE ("unbind", "input | dim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  return pieces_tuple (cr_unbind (x, (int) dim, error));
}

/* x.flip(0, 1), x.flip((0, 1)), torch.flip(x, (0,)) */
NATIVE (native_flip)
{
  int dims[CR_MAX_DIMS];
  int n_dims = 0;
  CrTensor *x;

  if (self != NULL && self->kind == CR_VALUE_TENSOR && n_kwargs == 0)
    {
      gint64 shape[CR_MAX_DIMS];
      if (!cr_torch_parse_size ("flip", "dims", args, n_args, shape, &n_dims, error))
        return NULL;
      for (int i = 0; i < n_dims; i++)
        dims[i] = (int) CLAMP (shape[i], G_MININT, G_MAXINT);
      x = SELF_TENSOR;
    }
  else
    {
      PARSE ("flip", "input dims");
      x = cr_torch_args_tensor (&a, 0, error);
      if (x == NULL || !cr_torch_args_dims (&a, 1, dims, &n_dims, error))
        return NULL;
    }
  return cr_torch_wrap (cr_flip (x, dims, n_dims, error));
}

/* x.repeat(2, 3), x.repeat((2, 3)) */
NATIVE (native_repeat)
{
  gint64 repeats[CR_MAX_DIMS];
  int n;

  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "repeat() got an unexpected keyword argument '%s'", kwargs[0].name);
      return NULL;
    }
  if (!cr_torch_parse_size ("repeat", "repeats", args, n_args, repeats, &n, error))
    return NULL;
  return cr_torch_wrap (cr_repeat (SELF_TENSOR, repeats, n, error));
}

NATIVE (native_triangle)
{
  gboolean upper = GPOINTER_TO_INT (data);
  gint64 diagonal;
  CrTensor *x;
  PARSE (upper ? "triu" : "tril", "input | diagonal");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 1, 0, &diagonal, error))
    return NULL;
  return cr_torch_wrap (upper ? cr_triu (x, diagonal, error) : cr_tril (x, diagonal, error));
}

NATIVE (native_trace)
{
  CrTensor *x;
  PARSE ("trace", "input");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  return cr_torch_wrap (cr_trace (x, error));
}

/* ---- the table -------------------------------------------------------- */

#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_method_funcs[] = {
  { "size", native_size, M, NULL },
  { "stride", native_stride, M, NULL },
  { "dim", native_dim, M, (gpointer) "dim" },
  { "ndimension", native_dim, M, (gpointer) "ndimension" },
  { "numel", native_numel, CR_TORCH_IN_TORCH | M, (gpointer) "numel" },
  { "nelement", native_numel, M, (gpointer) "nelement" },
  { "storage_offset", native_storage_offset, M, NULL },
  { "is_contiguous", native_is_contiguous, M, NULL },
  { "is_floating_point", native_is_floating_point, CR_TORCH_IN_TORCH | M, NULL },
  { "is_inference", native_is_inference, M, NULL },
  { "_is_view", native_is_view, M, NULL },
  { "unfold", native_unfold, M, NULL },
  { "as_strided", native_as_strided, CR_TORCH_IN_TORCH | M, NULL },
  { "movedim", native_movedim, CR_TORCH_IN_TORCH | M, (gpointer) "movedim" },
  { "moveaxis", native_movedim, CR_TORCH_IN_TORCH | M, (gpointer) "moveaxis" },
  { "element_size", native_element_size, M, NULL },
  { "item", native_item, M, NULL },
  { "tolist", native_tolist, M, NULL },
  { "bool", native_convert, M, GINT_TO_POINTER (CR_DTYPE_BOOL) },
  { "long", native_convert, M, GINT_TO_POINTER (CR_DTYPE_INT64) },
  { "float", native_convert, M, GINT_TO_POINTER (CR_DTYPE_FLOAT32) },
  { "double", native_convert, M, GINT_TO_POINTER (CR_DTYPE_FLOAT64) },
  { "int", native_convert, M, GINT_TO_POINTER (CR_DTYPE_INT32) },
  { "byte", native_convert, M, GINT_TO_POINTER (CR_DTYPE_UINT8) },
  { "half", native_unsupported_convert, M, (gpointer) "half" },
  { "to", native_to, M, NULL },
  { "cpu", native_cpu, M, NULL },
  { "cuda", native_cuda, M, NULL },
  { "type", native_type, M, NULL },
  { "numpy", native_numpy, M, NULL },
  { "requires_grad_", native_requires_grad_, M, NULL },
  { "retain_grad", native_retain_grad, M, NULL },
  { "detach_", native_detach_, M, NULL },
  { "type_as", native_type_as, M, NULL },
  { "register_hook", cr_torch_native_register_hook, M, NULL },
  { "backward", cr_torch_native_backward, M, NULL },
  { "zero_", native_zero_, M, NULL },
  { "fill_", native_fill_, M, NULL },
  { "add_", native_inplace, M, (gpointer) &inplace_add },
  { "sub_", native_inplace, M, (gpointer) &inplace_sub },
  { "mul_", native_inplace, M, (gpointer) &inplace_mul },
  { "div_", native_inplace, M, (gpointer) &inplace_div },
  { "pow_", native_inplace, M, (gpointer) &inplace_pow },
  { "clamp_", native_clamp_, M, NULL },
  { "clip_", native_clamp_, M, (gpointer) "clip_" },
  { "clamp_min_", native_clamp_bound_, M, GINT_TO_POINTER (FALSE) },
  { "clamp_max_", native_clamp_bound_, M, GINT_TO_POINTER (TRUE) },
  { "var", native_var_std, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (FALSE) },
  { "std", native_var_std, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (TRUE) },
  { "amax", native_dims_reduce, M | CR_TORCH_IN_TORCH, (gpointer) "amax" },
  { "amin", native_dims_reduce, M | CR_TORCH_IN_TORCH, (gpointer) "amin" },
  { "logsumexp", native_dims_reduce, M | CR_TORCH_IN_TORCH, (gpointer) "logsumexp" },
  { "cumsum", native_cumsum, M | CR_TORCH_IN_TORCH, NULL },
  { "cumprod", native_cumsum, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (1) },
  { "logcumsumexp", native_cumsum, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (2) },
  { "cumsum_", native_cumulative_, M, NULL },
  { "cumprod_", native_cumulative_, M, GINT_TO_POINTER (1) },
  { "split", native_split, M | CR_TORCH_IN_TORCH, NULL },
  { "chunk", native_chunk, M | CR_TORCH_IN_TORCH, NULL },
  { "unsafe_split", native_split, M | CR_TORCH_IN_TORCH, (gpointer) "unsafe" },
  { "unsafe_chunk", native_chunk, M | CR_TORCH_IN_TORCH, (gpointer) "unsafe" },
  { "unbind", native_unbind, M | CR_TORCH_IN_TORCH, NULL },
  { "flip", native_flip, M | CR_TORCH_IN_TORCH, NULL },
  { "triu", native_triangle, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (TRUE) },
  { "tril", native_triangle, M | CR_TORCH_IN_TORCH, GINT_TO_POINTER (FALSE) },
  { "trace", native_trace, M | CR_TORCH_IN_TORCH, NULL },
  { "repeat", native_repeat, M, NULL },
  { "copy_", native_copy_, M, NULL },
  { "new_zeros", native_new_filled, M, GINT_TO_POINTER (0) },
  { "new_ones", native_new_filled, M, GINT_TO_POINTER (1) },
  { "new_empty", native_new_filled, M, GINT_TO_POINTER (2) },
  { "new_full", native_new_full, M, NULL },
};

const guint cr_torch_n_method_funcs = G_N_ELEMENTS (cr_torch_method_funcs);

/* ---- attributes ------------------------------------------------------- */

typedef enum {
  ATTR_NONE,
  ATTR_SHAPE,
  ATTR_DTYPE,
  ATTR_DEVICE,
  ATTR_GRAD,
  ATTR_GRAD_FN,
  ATTR_REQUIRES_GRAD,
  ATTR_IS_LEAF,
  ATTR_DATA,
  ATTR_T,
  ATTR_MT,
  ATTR_NDIM,
  ATTR_RETAINS_GRAD,
  ATTR_IS_CUDA,
  ATTR_VERSION,
  ATTR_OUTPUT_NR,
  ATTR_LAYOUT,
} Attr;

static const struct {
  const char *name;
  Attr        attr;
} attrs[] = {
  { "shape", ATTR_SHAPE },
  { "dtype", ATTR_DTYPE },
  { "device", ATTR_DEVICE },
  { "grad", ATTR_GRAD },
  { "grad_fn", ATTR_GRAD_FN },
  { "requires_grad", ATTR_REQUIRES_GRAD },
  { "is_leaf", ATTR_IS_LEAF },
  { "data", ATTR_DATA },
  { "T", ATTR_T },
  { "mT", ATTR_MT },
  { "ndim", ATTR_NDIM },
  { "retains_grad", ATTR_RETAINS_GRAD },
  { "is_cuda", ATTR_IS_CUDA },
  { "_version", ATTR_VERSION },
  { "output_nr", ATTR_OUTPUT_NR },
  { "layout", ATTR_LAYOUT },
};

/* name -> (Attr) or (method entry | 1): one lookup per t.NAME, built once. */
static GHashTable *
member_table (void)
{
  static gsize initialized = 0;
  static GHashTable *table = NULL;

  if (g_once_init_enter (&initialized))
    {
      GHashTable *t = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint k = 0; k < cr_torch_n_func_tables; k++)
        for (guint i = 0; i < *cr_torch_func_tables[k].n_funcs; i++)
          {
            const CrTorchFunc *f = &cr_torch_func_tables[k].funcs[i];
            if (f->where & CR_TORCH_IN_TENSOR)
              g_hash_table_insert (t, (gpointer) f->name, (gpointer) f);
          }
      for (guint i = 0; i < G_N_ELEMENTS (attrs); i++)
        g_hash_table_insert (t, (gpointer) attrs[i].name, GINT_TO_POINTER (attrs[i].attr));
      table = t;
      g_once_init_leave (&initialized, 1);
    }
  return table;
}

static gboolean
is_attr (gpointer entry)
{
  return GPOINTER_TO_SIZE (entry) < 64;
}

const CrTorchFunc *
cr_torch_lookup_method (const char *name)
{
  gpointer entry = g_hash_table_lookup (member_table (), name);

  if (entry == NULL || is_attr (entry))
    return NULL;
  return entry;
}

static CrValue *
get_grad (CrInterp *interp,
          CrTensor *t)
{
  cr_coach_watch_grad_read (interp, t);
  cr_training_watch_grad_read (interp, t);
  if (t->grad_fn != NULL && !t->retains_grad && t->grad == NULL)
    cr_interp_warn (interp, "UserWarning", non_leaf_grad_warning);
  if (t->grad == NULL)
    return cr_value_none ();
  return cr_value_new_tensor (t->grad);
}

static CrValue *
get_attr (CrInterp *interp,
          CrValue  *v,
          Attr      attr,
          GError  **error)
{
  CrTensor *t = v->u.tensor;

  switch (attr)
    {
    case ATTR_SHAPE:
      return cr_value_new_size (t->shape, t->ndim);
    case ATTR_DTYPE:
      return cr_torch_dtype_new (t->dtype);
    case ATTR_DEVICE:
      return cr_torch_device_new (t->device);
    case ATTR_GRAD:
      return get_grad (interp, t);
    case ATTR_GRAD_FN:
      return cr_torch_node_value (t->grad_fn);
    case ATTR_REQUIRES_GRAD:
      return cr_value_new_bool (t->requires_grad);
    case ATTR_IS_LEAF:
      return cr_value_new_bool (t->grad_fn == NULL);
    case ATTR_DATA:
      cr_coach_watch_data_read (interp, t);
      cr_coach_watch_cut (interp, t, "data");
      return cr_value_new_tensor_take (cr_tensor_alias_unversioned (t));
    case ATTR_T:
      {
        int dims[CR_MAX_DIMS];
        for (int i = 0; i < t->ndim; i++)
          dims[i] = t->ndim - 1 - i;
        if (t->ndim != 2 && t->ndim != 0)
          {
            g_autofree char *message = g_strdup_printf (
              "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
              "is deprecated and it will throw an error in a future release. Consider "
              "`x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - "
              "1, -1, -1))` to reverse the dimensions of a tensor. (Triggered internally at  "
              "./aten/src/ATen/native/TensorShape.cpp:3277.)");
            cr_interp_warn (interp, "UserWarning", message);
          }
        return cr_torch_wrap (cr_permute (t, dims, t->ndim, error));
      }
    case ATTR_MT:
      if (t->ndim < 2)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "tensor.mT is only supported on matrices or batches of matrices. Got "
                       "%d-D tensor.", t->ndim);
          return NULL;
        }
      return cr_torch_wrap (cr_transpose (t, -2, -1, error));
    case ATTR_NDIM:
      return cr_value_new_int (t->ndim);
    case ATTR_RETAINS_GRAD:
      return cr_value_new_bool (t->retains_grad);
    case ATTR_IS_CUDA:
      return cr_value_new_bool (t->device == CR_DEVICE_CUDA);
    case ATTR_VERSION:
      return cr_value_new_int (cr_tensor_version (t));
    case ATTR_OUTPUT_NR:
      return cr_value_new_int (t->output_nr);
    case ATTR_LAYOUT:
      return cr_value_new_str ("torch.strided");
    case ATTR_NONE:
    default:
      return NULL;
    }
}

CrValue *
cr_torch_tensor_getattr (CrInterp    *interp,
                         CrValue     *t,
                         const char  *name,
                         GError     **error)
{
  gpointer entry = g_hash_table_lookup (member_table (), name);

  if (entry == NULL)
    {
      const char *suggestion;
      if (cr_torch_is_unsupported_name ("torch.Tensor", name))
        {
          cr_torch_missing_attribute_error ("torch.Tensor", name, error);
          return NULL;
        }
      suggestion = cr_torch_tensor_suggest_attribute (name);
      if (suggestion)
        g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                     "'Tensor' object has no attribute '%s'. Did you mean: '%s'?",
                     name, suggestion);
      else
        g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                     "'Tensor' object has no attribute '%s'", name);
      return NULL;
    }
  if (is_attr (entry))
    return get_attr (interp, t, (Attr) GPOINTER_TO_INT (entry), error);
  {
    const CrTorchFunc *f = entry;
    return cr_value_new_native (f->name, f->fn, t, f->data);
  }
}

static gboolean
set_grad (CrInterp  *interp,
          CrTensor  *t,
          CrValue   *value,
          GError   **error)
{
  CrTensor *g;

  if (value->kind == CR_VALUE_NONE)
    {
      g_clear_pointer (&t->grad, cr_tensor_unref);
      return TRUE;
    }
  if (value->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "assigned grad expected to be a Tensor or None but got grad of type%s",
                   cr_torch_type_name (value));
      return FALSE;
    }
  g = value->u.tensor;
  if (g->dtype != t->dtype)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "assigned grad has data of a different type");
      return FALSE;
    }
  if (g->device != t->device)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "assigned grad has data located on a different device");
      return FALSE;
    }
  if (!cr_shape_equal (g->shape, g->ndim, t->shape, t->ndim))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "assigned grad has data of a different size");
      return FALSE;
    }
  if (g == t)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "can't assign Variable as its own grad");
      return FALSE;
    }
  if (g->grad_fn)
    cr_torch_break_grad_cycles_at_end (interp, &g, 1);
  cr_tensor_ref (g);
  cr_tensor_unref (t->grad);
  t->grad = g;
  return TRUE;
}

/* t.data = other: t now looks at other's storage, with other's geometry and
 * dtype, keeping its own autograd identity. */
static gboolean
set_data (CrTensor  *t,
          CrValue   *value,
          GError   **error)
{
  CrTensor *src;

  if (value->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "Variable data has to be a tensor, but got %s", cr_torch_type_name (value));
      return FALSE;
    }
  src = value->u.tensor;
  cr_tensor_set_source (t, src);
  return TRUE;
}

gboolean
cr_torch_tensor_setattr (CrInterp    *interp,
                         CrValue     *v,
                         const char  *name,
                         CrValue     *value,
                         GError     **error)
{
  CrTensor *t = v->u.tensor;
  gpointer entry = g_hash_table_lookup (member_table (), name);

  if (entry != NULL && is_attr (entry))
    {
      switch ((Attr) GPOINTER_TO_INT (entry))
        {
        case ATTR_REQUIRES_GRAD:
          if (value->kind != CR_VALUE_BOOL)
            {
              g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "requires_grad must be a bool");
              return FALSE;
            }
          return cr_tensor_set_requires_grad (t, value->u.b, error);
        case ATTR_GRAD:
          return set_grad (interp, t, value, error);
        case ATTR_DATA:
          return set_data (t, value, error);
        default:
          break;
        }
      g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                   "attribute '%s' of 'torch._C._TensorBase' objects is not writable", name);
      return FALSE;
    }
  if (entry != NULL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                   "'Tensor' object attribute '%s' is read-only", name);
      return FALSE;
    }
  /* Not a member: the caller keeps it as the tensor object's own attribute. */
  return FALSE;
}
