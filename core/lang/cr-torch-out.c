/* cr-torch-out.c — torch.f(..., out=t): the result written into t, as
 * PyTorch's out= overloads do. Every torch.* function of the tables goes
 * through this trampoline; a call without out= costs one kwargs scan.
 *
 * PyTorch's rules: out= takes no part in autograd (RuntimeError when an
 * argument requires grad while grad mode is on); the result type must be
 * castable to t's dtype (no float into an integer tensor, nothing but bool
 * into bool); t is resized when its shape differs (with a deprecation
 * warning unless it was empty); the call returns t itself. */
#include "cr-torch-native.h"
#include "cr-grad-mode.h"
#include "cr-kernels.h"

#include <string.h>

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

static gboolean
value_requires_grad (CrValue *v)
{
  if (v->kind == CR_VALUE_TENSOR)
    return v->u.tensor->requires_grad;
  if (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE)
    for (guint i = 0; i < cr_seq_len (v); i++)
      if (cr_seq_get (v, i)->kind == CR_VALUE_TENSOR && cr_seq_get (v, i)->u.tensor->requires_grad)
        return TRUE;
  return FALSE;
}

static char *
shape_text (const CrTensor *t)
{
  GString *s = g_string_new ("[");
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static gboolean
write_out (CrInterp        *interp,
           CrTensor        *out,
           const CrTensor  *result,
           GError         **error)
{
  gboolean same_shape = out->ndim == result->ndim
                        && memcmp (out->shape, result->shape, sizeof (gint64) * out->ndim) == 0;

  if (!can_cast (result->dtype, out->dtype))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "result type %s can't be cast to the desired output type %s",
                   cr_dtype_scalar_name (result->dtype), cr_dtype_scalar_name (out->dtype));
      return FALSE;
    }
  /* The rules only: the version moves once, after the write (below). */
  if (!cr_autograd_check_inplace_rules (out, error))
    return FALSE;
  if (!same_shape)
    {
      g_autoptr(CrTensor) fresh = cr_tensor_new_empty (result->shape, result->ndim, out->dtype,
                                                       out->device, error);
      if (fresh == NULL)
        return FALSE;
      if (out->numel != 0)
        {
          g_autofree char *had = shape_text (out);
          g_autofree char *needed = shape_text (result);
          g_autofree char *message = g_strdup_printf (
            "An output with one or more elements was resized since it had shape %s, which "
            "does not match the required output shape %s. This behavior is deprecated, and "
            "in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
            "zero elements with t.resize_(0).", had, needed);
          cr_interp_warn (interp, "UserWarning", message);
        }
      cr_tensor_set_source (out, fresh);
    }
  if (!cr_kernel_copy_into (out, result, error))
    return FALSE;
  cr_tensor_bump_version (out);
  return TRUE;
}

CrValue *
cr_torch_native_with_out (CrInterp        *interp,
                          CrValue         *self,
                          CrValue *const  *args,
                          guint            n_args,
                          const CrKwarg   *kwargs,
                          guint            n_kwargs,
                          gpointer         data,
                          GError         **error)
{
  const CrTorchFunc *f = data;
  CrValue *out = NULL;
  guint out_at = 0;
  g_autofree CrKwarg *rest = NULL;
  g_autoptr(CrValue) result = NULL;
  g_autoptr(CrValue) out_dtype = NULL;
  guint n_rest;

  for (guint k = 0; k < n_kwargs; k++)
    if (strcmp (kwargs[k].name, "out") == 0)
      {
        out = kwargs[k].value;
        out_at = k;
      }
  if (out == NULL)
    return f->fn (interp, self, args, n_args, kwargs, n_kwargs, f->data, error);
  if (out->kind != CR_VALUE_TENSOR && out->kind != CR_VALUE_NONE)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s(): argument 'out' must be Tensor, not %s", f->name,
                   cr_torch_type_name (out));
      return NULL;
    }

  /* One more slot: a factory's dtype= taken from out. */
  rest = g_new (CrKwarg, n_kwargs + 1);
  for (guint k = 0, j = 0; k < n_kwargs; k++)
    if (k != out_at)
      rest[j++] = kwargs[k];
  n_rest = n_kwargs - 1;
  if (out->kind == CR_VALUE_NONE)
    return f->fn (interp, self, args, n_args, rest, n_rest, f->data, error);
  if (f->where & CR_TORCH_FACTORY)
    {
      gboolean has_dtype = FALSE;
      for (guint k = 0; k < n_kwargs - 1; k++)
        has_dtype |= strcmp (rest[k].name, "dtype") == 0;
      if (!has_dtype)
        {
          out_dtype = cr_torch_dtype_new (out->u.tensor->dtype);
          rest[n_kwargs - 1].name = "dtype";
          rest[n_kwargs - 1].value = out_dtype;
          n_rest++;
        }
    }

  if (cr_grad_mode_is_enabled ())
    {
      gboolean needs_grad = out->u.tensor->requires_grad;
      for (guint i = 0; i < n_args && !needs_grad; i++)
        needs_grad = value_requires_grad (args[i]);
      for (guint k = 0; k < n_rest && !needs_grad; k++)
        needs_grad = value_requires_grad (rest[k].value);
      if (needs_grad)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "%s(): functions with out=... arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad.", f->name);
          return NULL;
        }
    }

  result = f->fn (interp, self, args, n_args, rest, n_rest, f->data, error);
  if (result == NULL)
    return NULL;
  if (result->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() got an unexpected keyword argument 'out'", f->name);
      return NULL;
    }
  if (!write_out (interp, out->u.tensor, result->u.tensor, error))
    return NULL;
  return cr_value_ref (out);
}
