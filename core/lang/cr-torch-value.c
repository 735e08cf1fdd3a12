/* cr-torch-value.c — a tensor as a value of the runtime: how it is made
 * and freed, and the type slots through which the runtime's own builtins
 * (repr, bool, float, int, operator.index, id, hash, type, abs, round,
 * attributes of its own) work with it without knowing what a tensor is. */
#include "cr-torch-private.h"
#include "cr-interp-private.h"
#include "cr-binding.h"
#include "cr-cuda.h"
#include "cr-node.h"
#include "cr-object.h"
#include "cr-type-slots.h"

CrValue *
cr_value_new_tensor (CrTensor *tensor)
{
  return cr_value_new_tensor_take (cr_tensor_ref (tensor));
}

CrTensor *
cr_value_to_tensor (CrValue  *v,
                    GError  **error)
{
  CrTensor *t;
  switch (v->kind)
    {
    case CR_VALUE_TENSOR:
      return cr_tensor_ref (v->u.tensor);
    case CR_VALUE_BOOL:
      t = cr_tensor_new_scalar (v->u.b, CR_DTYPE_BOOL);
      break;
    case CR_VALUE_INT:
      t = cr_tensor_new_scalar ((double) v->u.i, CR_DTYPE_INT64);
      if (v->u.i > (G_GINT64_CONSTANT (1) << 53) || v->u.i < -(G_GINT64_CONSTANT (1) << 53))
        *(gint64 *) cr_tensor_data (t) = v->u.i;
      break;
    case CR_VALUE_FLOAT:
      t = cr_tensor_new_scalar (v->u.f, CR_DTYPE_FLOAT64);
      break;
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "expected Tensor as argument, but got %s", cr_value_type_name (v));
      return NULL;
    }
  t->is_wrapped_number = 1;
  return t;
}

const char *
cr_torch_tensor_print_name (CrValue *tensor)
{
  CrValue *cls = cr_object_script_class (tensor);
  if (!cls)
    return "tensor";
  CrValue *module = g_hash_table_lookup (cls->u.cls.attrs, "__module__");
  if (module && module->kind == CR_VALUE_STR && g_str_has_prefix (module->u.str.data, "torch."))
    return "tensor";
  return cls->u.cls.name;
}

/* ---- the slots --------------------------------------------------------- */

static void
tensor_free_payload (CrValue *v)
{
  cr_tensor_unref (v->u.tensor);
}

static gconstpointer
tensor_identity (CrValue *v)
{
  return v->u.tensor;
}

static char *
tensor_repr (CrInterp *interp,
             CrValue  *v)
{
  CrPrintOptions defaults;
  const CrPrintOptions *options;
  if (interp)
    options = cr_interp_get_print_options (interp);
  else
    {
      cr_print_options_init_default (&defaults);
      options = &defaults;
    }
  return cr_tensor_format_named (v->u.tensor, options, cr_torch_tensor_print_name (v));
}

static gboolean
tensor_truthy (CrValue   *v,
               gboolean  *out,
               GError   **error)
{
  CrTensor *t = v->u.tensor;
  if (t->numel == 1)
    {
      *out = cr_tensor_read_flat (t, 0) != 0.0;
      return TRUE;
    }
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       t->numel == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                     : "Boolean value of Tensor with more than one value is ambiguous");
  return FALSE;
}

static gboolean
one_element (CrTensor  *t,
             GError   **error)
{
  if (t->numel == 1)
    return TRUE;
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                       "only one element tensors can be converted to Python scalars");
  return FALSE;
}

static gboolean
tensor_to_double (CrValue  *v,
                  double   *out,
                  GError  **error)
{
  if (!one_element (v->u.tensor, error))
    return FALSE;
  *out = cr_tensor_read_flat (v->u.tensor, 0);
  return TRUE;
}

/* int(t): an integral tensor's item; a floating one's goes through float. */
static gboolean
tensor_to_int (CrValue  *v,
               gint64   *out,
               GError  **error)
{
  CrTensor *t = v->u.tensor;
  if (cr_dtype_is_floating (t->dtype) || !one_element (t, error))
    return FALSE;
  *out = cr_tensor_read_flat_int (t, 0);
  return TRUE;
}

/* Tensor.__index__: a 0-d integral tensor. */
static gboolean
tensor_as_index (CrValue *v,
                 gint64  *out)
{
  CrTensor *t = v->u.tensor;
  if (t->numel != 1 || t->ndim != 0 || cr_dtype_is_floating (t->dtype))
    return FALSE;
  *out = cr_tensor_read_flat_int (t, 0);
  return TRUE;
}

static void
extra_free_notify (gpointer data)
{
  cr_object_extra_free (data);
}

/* A tensor's extra lives in the tensor, so that every value wrapping it
 * (t, t.grad's owner, a list's item) sees the same class and attributes. */
static CrObjectExtra *
tensor_extra (CrValue  *v,
              gboolean  create)
{
  CrTensor *t = v->u.tensor;
  if (t->script_data == NULL && create)
    {
      t->script_data = g_new0 (CrObjectExtra, 1);
      t->script_data_free = extra_free_notify;
    }
  return t->script_data;
}

/* type(t): torch.Tensor, printed as <class 'torch.Tensor'>. */
static CrValue *
tensor_type (CrInterp *interp,
             CrValue  *v)
{
  (void) v;
  CrValue *torch = cr_interp_loaded_module (interp, "torch");
  CrValue *t = torch ? cr_value_get_member (torch, "Tensor") : NULL;
  if (t && t->kind == CR_VALUE_CLASS && !cr_value_get_member (t, "__module__"))
    {
      CrValue *m = cr_value_new_str ("torch");
      cr_value_set_member (t, "__module__", m);
      cr_value_unref (m);
    }
  return t;
}

static CrValue *
call_method (CrInterp    *interp,
             CrValue     *v,
             const char  *name,
             GError     **error)
{
  CrValue *m = cr_torch_tensor_getattr (interp, v, name, error);
  if (!m)
    return NULL;
  CrValue *r = cr_interp_call (interp, m, NULL, 0, NULL, 0, error);
  cr_value_unref (m);
  return r;
}

static CrValue *
tensor_abs (CrInterp  *interp,
            CrValue   *v,
            GError   **error)
{
  return call_method (interp, v, "abs", error);
}

static CrValue *
tensor_round (CrInterp  *interp,
              CrValue   *v,
              GError   **error)
{
  return call_method (interp, v, "round", error);
}

/* Iterating over a tensor takes t[i] for i < len(t). */
static gboolean
tensor_iter_len (CrValue  *v,
                 gint64   *out,
                 GError  **error)
{
  if (v->u.tensor->ndim == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "iteration over a 0-d tensor");
      return FALSE;
    }
  return cr_torch_tensor_len (v, out, error);
}

/* The operators run ops too: an op that saved an inference tensor for
 * backward fails the operator as it does a torch function
 * (cr_node_take_save_error). */
static CrValue *
checked (CrValue  *result,
         GError  **error)
{
  if (!cr_node_take_save_error (result != NULL ? error : NULL))
    g_clear_pointer (&result, cr_value_unref);
  return result;
}

static CrValue *
binary_op (CrInterp  *interp,
           CrBinOp    op,
           CrValue   *a,
           CrValue   *b,
           GError   **error)
{
  return checked (cr_torch_binary_op (interp, op, a, b, error), error);
}

static gboolean
inplace_op (CrInterp  *interp,
            CrBinOp    op,
            CrValue   *a,
            CrValue   *b,
            GError   **error)
{
  gboolean ok = cr_torch_inplace_op (interp, op, a, b, error);

  return cr_node_take_save_error (ok ? error : NULL) && ok;
}

static CrValue *
unary_op (CrInterp  *interp,
          CrUnOp     op,
          CrValue   *a,
          GError   **error)
{
  return checked (cr_torch_unary_op (interp, op, a, error), error);
}

static CrValue *
getitem (CrInterp  *interp,
         CrValue   *v,
         CrValue   *index,
         GError   **error)
{
  return checked (cr_torch_tensor_getitem (interp, v, index, error), error);
}

const CrTypeSlots cr_torch_tensor_slots = {
  .name = "Tensor",
  .getattr = cr_torch_tensor_getattr,
  .setattr = cr_torch_tensor_setattr,
  .binary_op = binary_op,
  .inplace_op = inplace_op,
  .unary_op = unary_op,
  .compare = cr_torch_compare,
  .contains = cr_torch_tensor_contains,
  .getitem = getitem,
  .setitem = cr_torch_tensor_setitem,
  .len = cr_torch_tensor_len,
  .format = cr_torch_tensor_format,
  .dir = cr_torch_tensor_dir,
  .free_payload = tensor_free_payload,
  .identity = tensor_identity,
  .repr = tensor_repr,
  .truthy = tensor_truthy,
  .to_double = tensor_to_double,
  .to_int = tensor_to_int,
  .as_index = tensor_as_index,
  .extra = tensor_extra,
  .type = tensor_type,
  .abs = tensor_abs,
  .round = tensor_round,
  .iter_len = tensor_iter_len,
};
