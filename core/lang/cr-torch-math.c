/* cr-torch-math.c — the functions that exist as torch.NAME and as tensor
 * methods (torch.add(x, y) and x.add(y)), and torch.nn.functional's: each is
 * one native that takes its input from self when called as a method. */
#include "cr-cuda.h"
#include "cr-torch-private.h"
#include "cr-run-recorder-coach.h"
#include "cr-torch-native.h"
#include "cr-ops-nnf.h"
#include "cr-kernels.h"
#include "cr-grad-mode.h"

#include <string.h>
#include <math.h>

/* The input of a function with varargs after it (x.view(2, 3) and
 * torch.reshape(x, (2, 3))): the tensor and the remaining arguments. */
static CrTensor *
split_input (const char      *fname,
             CrValue         *self,
             CrValue *const  *args,
             guint            n_args,
             CrValue *const **out_rest,
             guint           *out_n_rest,
             GError         **error)
{
  if (self != NULL)
    {
      *out_rest = args;
      *out_n_rest = n_args;
      return self->u.tensor;
    }
  if (n_args == 0 || args[0]->kind != CR_VALUE_TENSOR)
    {
      if (n_args == 0)
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "%s() missing 1 required positional arguments: \"input\"", fname);
      else
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "%s(): argument 'input' (position 1) must be Tensor, not %s",
                     fname, cr_torch_type_name (args[0]));
      return NULL;
    }
  *out_rest = args + 1;
  *out_n_rest = n_args - 1;
  return args[0]->u.tensor;
}

static gboolean
no_kwargs (const char *fname,
           guint       n_kwargs,
           const CrKwarg *kwargs,
           GError    **error)
{
  if (n_kwargs == 0)
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "%s() got an unexpected keyword argument '%s'", fname, kwargs[0].name);
  return FALSE;
}

/* ---- elementwise unary ------------------------------------------------ */

/* (The functions with a gradient: cr-torch-unary.c, from cr-unary-ops.def.) */

/* Kernels without a gradient: logical_not. */
typedef struct {
  const char *name;
  CrUnaryOp   op;
} KernelUnaryInfo;

static const KernelUnaryInfo kunary_logical_not = { "logical_not", CR_UNARY_LOGICAL_NOT };

NATIVE (native_kernel_unary)
{
  const KernelUnaryInfo *info = data;
  PARSE (info->name, "input");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_kernel_unary (info->op, x, error));
}

/* Where x is neither infinite nor NaN (|x| ≠ inf and x == x), bool. */
static CrTensor *
finite_mask (const CrTensor  *x,
             GError         **error)
{
  g_autoptr(CrTensor) inf = cr_tensor_new_scalar (INFINITY, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) ab = NULL;
  g_autoptr(CrTensor) finite = NULL;
  g_autoptr(CrTensor) number = NULL;

  inf->is_wrapped_number = TRUE;
  if ((ab = cr_kernel_unary (CR_UNARY_ABS, x, error)) == NULL
      || (finite = cr_kernel_binary (CR_BINARY_NE, ab, inf, error)) == NULL
      || (number = cr_kernel_binary (CR_BINARY_EQ, x, x, error)) == NULL)
    return NULL;
  return cr_kernel_binary (CR_BINARY_LOGICAL_AND, finite, number, error);
}

/* isnan, isinf, isfinite: bool masks, never recorded (x != x is NaN). */
NATIVE (native_isnan)
{
  int which = GPOINTER_TO_INT (data);
  g_autoptr(CrTensor) inf = cr_tensor_new_scalar (INFINITY, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) ab = NULL;
  PARSE (which == 0 ? "isnan" : which == 1 ? "isinf" : "isfinite", "input");
  TENSOR_ARG (x, 0);

  inf->is_wrapped_number = TRUE;
  if (which == 0)
    return cr_torch_wrap (cr_kernel_binary (CR_BINARY_NE, x, x, error));
  if (which == 2)
    return cr_torch_wrap (finite_mask (x, error));
  ab = cr_kernel_unary (CR_UNARY_ABS, x, error);
  if (ab == NULL)
    return NULL;
  return cr_torch_wrap (cr_kernel_binary (CR_BINARY_EQ, ab, inf, error));
}

NATIVE (native_square)
{
  PARSE ("square", "input");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_pow_scalar (x, 2.0, error));
}

/* F.relu(input, inplace=False), F.sigmoid, F.tanh */
NATIVE (native_f_relu)
{
  gboolean inplace;
  PARSE ("relu", "input | inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_bool (&a, 1, FALSE, &inplace, error))
    return NULL;
  if (inplace)
    {
      /* x.relu_(): ReluBackward0, as PyTorch records it. */
      if (!cr_inplace_unary (CR_OP_RELU, x, error))
        return NULL;
      return cr_value_ref (a.values[0]);
    }
  return cr_torch_wrap (cr_relu (x, error));
}

NATIVE (native_f_sigmoid)
{
  PARSE ("sigmoid", "input");
  TENSOR_ARG (x, 0);

  cr_interp_warn (interp, "UserWarning",
                  "nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.");
  return cr_torch_wrap (cr_sigmoid (x, error));
}

NATIVE (native_f_tanh)
{
  PARSE ("tanh", "input");
  TENSOR_ARG (x, 0);

  cr_interp_warn (interp, "UserWarning",
                  "nn.functional.tanh is deprecated. Use torch.tanh instead.");
  return cr_torch_wrap (cr_tanh (x, error));
}

/* ---- elementwise binary ---------------------------------------------- */

typedef struct {
  const char *name;
  int         kind;     /* BIN_*: add, sub, mul, div, rsub (the others: cr-torch-binary.c) */
} BinaryInfo;

enum {
  BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_RSUB,
};

static const BinaryInfo binary_add = { "add", BIN_ADD };
static const BinaryInfo binary_sub = { "sub", BIN_SUB };
static const BinaryInfo binary_mul = { "mul", BIN_MUL };
static const BinaryInfo binary_div = { "div", BIN_DIV };
static const BinaryInfo binary_rsub = { "rsub", BIN_RSUB };

void
cr_torch_mark_float_scalar (CrTensor          *out,
                            const CrTorchArgs *a,
                            int                i,
                            guint              slot)
{
  if (out != NULL && out->grad_fn != NULL && cr_torch_args_has (a, i)
      && a->values[i]->kind == CR_VALUE_FLOAT)
    cr_node_args (out->grad_fn)->scalar_float_mask |= 1u << slot;
}

static CrValue *
wrap_with_float_scalar (CrTensor          *out,
                        const CrTorchArgs *a,
                        int                i,
                        guint              slot)
{
  cr_torch_mark_float_scalar (out, a, i, slot);
  return cr_torch_wrap (out);
}

NATIVE (native_binary)
{
  const BinaryInfo *info = data;
  g_autoptr(CrTensor) other = NULL;
  CrTensor *x;
  double alpha = 1.0;
  const char *spec;

  switch (info->kind)
    {
    case BIN_ADD: case BIN_SUB: case BIN_RSUB:
      spec = "input other | * alpha";
      break;
    case BIN_DIV:
      spec = "input other | * rounding_mode";
      break;
    default:
      spec = "input other";
      break;
    }

  PARSE (info->name, spec);
  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  other = cr_torch_args_tensor_or_number (&a, 1, error);
  if (other == NULL)
    return NULL;

  switch (info->kind)
    {
    case BIN_ADD:
    case BIN_SUB:
    case BIN_RSUB:
      if (!cr_torch_args_double (&a, 2, 1.0, &alpha, error))
        return NULL;
      if (info->kind == BIN_RSUB)
        {
          if (alpha == 1.0 && other->is_wrapped_number)
            return cr_torch_wrap (cr_rsub_scalar (x, cr_tensor_read_flat (other, 0), error));
          if (other->is_wrapped_number)
            return cr_torch_wrap (cr_rsub_scalar_alpha (x, other, alpha, error));
          return wrap_with_float_scalar (cr_rsub_alpha (x, other, alpha, error), &a, 2, 0);
        }
      if (alpha != 1.0 && info->kind == BIN_SUB && other->is_wrapped_number)
        return cr_torch_wrap (cr_sub_number_alpha (x, other, alpha, error));
      if (alpha != 1.0 && info->kind == BIN_SUB)
        return wrap_with_float_scalar (cr_sub_alpha (x, other, alpha, error), &a, 2, 0);
      if (alpha != 1.0)
        return wrap_with_float_scalar (cr_add_alpha (x, other, alpha, error), &a, 2, 0);
      if (info->kind == BIN_ADD)
        return cr_torch_wrap (cr_add (x, other, error));
      return cr_torch_wrap (cr_sub (x, other, error));
    case BIN_DIV:
      if (cr_torch_args_has (&a, 2))
        {
          CrValue *mode = a.values[2];
          if (mode->kind == CR_VALUE_STR && (strcmp (mode->u.str.data, "floor") == 0
                                             || strcmp (mode->u.str.data, "trunc") == 0))
            return cr_torch_wrap (cr_div_rounding (x, other,
                                                   strcmp (mode->u.str.data, "floor") == 0,
                                                   error));
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       "found '%s'", mode->kind == CR_VALUE_STR ? mode->u.str.data : "?");
          return NULL;
        }
      return cr_torch_wrap (cr_div (x, other, error));
    default:
      return cr_torch_wrap (cr_mul (x, other, error));
    }
}

/* pow(input, exponent): a Python number exponent is PowBackward0, a tensor
 * PowBackward1, and a number input (torch.pow(2, x)) PowBackward2. */
NATIVE (native_pow)
{
  double exponent;
  PARSE ("pow", "input exponent");

  if (a.values[0]->kind != CR_VALUE_TENSOR)
    {
      CrTensor *e;
      double base;

      if (!cr_value_is_number (a.values[0])
          || !cr_torch_value_is_number (a.values[0], &base))
        {
          cr_torch_args_type_error (&a, 0, "Tensor", error);
          return NULL;
        }
      e = cr_torch_args_tensor (&a, 1, error);
      if (e == NULL)
        return NULL;
      return cr_torch_wrap (cr_pow_number_base (base, a.values[0]->kind != CR_VALUE_FLOAT,
                                                e, error));
    }

  if (a.values[1]->kind == CR_VALUE_TENSOR)
    return cr_torch_wrap (cr_pow (a.values[0]->u.tensor, a.values[1]->u.tensor, error));
  if (a.values[1]->kind != CR_VALUE_NONE && cr_value_is_number (a.values[1])
      && cr_torch_value_is_number (a.values[1], &exponent))
    {
      /* An integer tensor to a float power is float32, as in PyTorch. */
      CrTensor *x = a.values[0]->u.tensor;
      g_autoptr(CrTensor) base = a.values[1]->kind == CR_VALUE_FLOAT
                                 && !cr_dtype_is_floating (x->dtype)
                                 ? cr_to_dtype (x, CR_DTYPE_FLOAT32, error)
                                 : cr_tensor_ref (x);
      if (base == NULL)
        return NULL;
      return cr_torch_wrap (cr_pow_scalar (base, exponent, error));
    }
  cr_torch_args_type_error (&a, 1, "Tensor", error);
  return NULL;
}

static gboolean
clamp_bounds (CrTorchArgs *a,
              gboolean    *has_min,
              double      *min,
              gboolean    *has_max,
              double      *max,
              GError     **error)
{
  *has_min = cr_torch_args_has (a, 1);
  *has_max = cr_torch_args_has (a, 2);
  if (*has_min && !cr_torch_value_is_number (a->values[1], min))
    {
      cr_torch_args_type_error (a, 1, "Number", error);
      return FALSE;
    }
  if (*has_max && !cr_torch_value_is_number (a->values[2], max))
    {
      cr_torch_args_type_error (a, 2, "Number", error);
      return FALSE;
    }
  if (!*has_min && !*has_max)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.clamp: At least one of 'min' or 'max' must not be None");
      return FALSE;
    }
  return TRUE;
}

/* Parameter i as a tensor bound (clamp's Tensor overload), else NULL. */
static CrTensor *
tensor_bound (const CrTorchArgs *a,
              guint              i)
{
  return cr_torch_args_has (a, i) && a->values[i]->kind == CR_VALUE_TENSOR
         ? a->values[i]->u.tensor : NULL;
}

/* Which of clamp's overloads min and max (parameters 1 and 2) pick: TRUE
 * (*error unset) for the Tensor one, FALSE for the Number one, FALSE with
 * PyTorch's TypeError when a tensor meets a number. */
gboolean
cr_torch_clamp_takes_tensors (const CrTorchArgs *a,
                              GError           **error)
{
  gboolean tensors = FALSE, numbers = FALSE;
  GString *got;

  for (guint i = 1; i <= 2; i++)
    if (cr_torch_args_has (a, i))
      {
        if (a->values[i]->kind == CR_VALUE_TENSOR)
          tensors = TRUE;
        else
          numbers = TRUE;
      }
  if (!tensors || !numbers)
    return tensors;
  /* PyTorch lists the positional arguments, then the keywords sorted by
   * name (max before min). */
  got = g_string_new (NULL);
  for (guint i = 0; i <= 2; i++)
    if (a->values[i] != NULL && a->positions[i] != 0)
      g_string_append_printf (got, "%s%s", got->len > 0 ? ", " : "",
                              cr_torch_type_name (a->values[i]));
  for (guint i = 2; i >= 1; i--)
    if (a->values[i] != NULL && a->positions[i] == 0)
      g_string_append_printf (got, "%s%s=%s", got->len > 0 ? ", " : "", i == 1 ? "min" : "max",
                              cr_torch_type_name (a->values[i]));
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "%s() received an invalid combination of arguments - got (%s), but expected one "
               "of:\n * (Tensor input, Tensor min, Tensor max, *, Tensor out)\n"
               " * (Tensor input, Number min, Number max, *, Tensor out)\n",
               a->fname, got->str);
  g_string_free (got, TRUE);
  return FALSE;
}

NATIVE (native_clamp)
{
  gboolean has_min, has_max;
  double min = 0, max = 0;
  GError *local = NULL;
  PARSE ((const char *) data, "input | min max");
  TENSOR_ARG (x, 0);

  if (cr_torch_clamp_takes_tensors (&a, &local))
    return cr_torch_wrap (cr_clamp_tensor (CR_OP_CLAMP_TENSOR, x, tensor_bound (&a, 1),
                                           tensor_bound (&a, 2), error));
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (!clamp_bounds (&a, &has_min, &min, &has_max, &max, error))
    return NULL;
  return cr_torch_wrap (cr_clamp (x, has_min, min, has_max, max, error));
}

/* clamp_min(input, min), clamp_max(input, max) */
NATIVE (native_clamp_bound)
{
  gboolean is_max = GPOINTER_TO_INT (data);
  double bound;
  PARSE (is_max ? "clamp_max" : "clamp_min", is_max ? "input max" : "input min");
  TENSOR_ARG (x, 0);

  if (a.values[1]->kind == CR_VALUE_TENSOR)
    return cr_torch_wrap (cr_clamp_tensor (is_max ? CR_OP_CLAMP_MAX_TENSOR : CR_OP_CLAMP_MIN_TENSOR,
                                           x, is_max ? NULL : a.values[1]->u.tensor,
                                           is_max ? a.values[1]->u.tensor : NULL, error));
  if (!cr_torch_value_is_number (a.values[1], &bound))
    {
      cr_torch_args_type_error (&a, 1, "Number", error);
      return NULL;
    }
  /* ClampMinBackward0 / ClampMaxBackward0, as PyTorch records them. */
  CrTensor *out = is_max ? cr_clamp_max (x, bound, error) : cr_clamp_min (x, bound, error);
  /* _saved_min shows the bound as given: 1, not 1.0. */
  if (out != NULL && out->grad_fn != NULL && a.values[1]->kind == CR_VALUE_INT)
    cr_node_args (out->grad_fn)->scalar_int_mask |= 1u;
  return cr_torch_wrap (out);
}

NATIVE (native_where)
{
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) y = NULL;
  PARSE ("where", "condition input other");
  TENSOR_ARG (cond, 0);

  x = cr_torch_args_tensor_or_number (&a, 1, error);
  if (x == NULL)
    return NULL;
  y = cr_torch_args_tensor_or_number (&a, 2, error);
  if (y == NULL)
    return NULL;
  if (cond->dtype != CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "where expected condition to be a boolean tensor, but got a tensor with "
                   "dtype %s", cr_dtype_scalar_name (cond->dtype));
      return NULL;
    }
  return cr_torch_wrap (cr_where (cond, x, y, error));
}

/* masked_select(input, mask) */
NATIVE (native_masked_select)
{
  CrTensor *x, *mask;
  PARSE ("masked_select", "input mask");

  x = cr_torch_args_tensor (&a, 0, error);
  mask = x != NULL ? cr_torch_args_tensor (&a, 1, error) : NULL;
  if (mask == NULL)
    return NULL;
  return cr_torch_wrap (cr_masked_select (x, mask, error));
}

NATIVE (native_masked_fill)
{
  g_autoptr(CrTensor) value = NULL;
  PARSE ("masked_fill", "input mask value");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (mask, 1);

  value = cr_torch_args_tensor_or_number (&a, 2, error);
  if (value == NULL)
    return NULL;
  return cr_torch_wrap (cr_masked_fill (x, mask, value, error));
}

NATIVE (native_masked_fill_)
{
  g_autoptr(CrTensor) value = NULL;
  PARSE ("masked_fill_", "input mask value");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (mask, 1);

  value = cr_torch_args_tensor_or_number (&a, 2, error);
  if (value == NULL || !cr_masked_fill_ (x, mask, value, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

/* ---- reductions ------------------------------------------------------- */

typedef enum { RED_SUM, RED_MEAN, RED_PROD } Reduction;

static CrValue *
reduce (CrInterp       *interp,
        CrValue        *self,
        CrValue *const *args,
        guint           n_args,
        const CrKwarg  *kwargs,
        guint           n_kwargs,
        Reduction       kind,
        GError        **error)
{
  static const char *names[] = { "sum", "mean", "prod" };
  int dims[CR_MAX_DIMS];
  int n_dims;
  gboolean keepdim, has_dtype;
  CrDType dtype;
  g_autoptr(CrTensor) input = NULL;
  PARSE (names[kind], "input | dim keepdim * dtype");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_dims (&a, 1, dims, &n_dims, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error)
      || !cr_torch_args_dtype (&a, 3, &dtype, &has_dtype, error))
    return NULL;
  if (kind == RED_PROD && n_dims > 1)
    {
      cr_torch_args_type_error (&a, 1, "int", error);
      return NULL;
    }

  if (kind == RED_MEAN)
    {
      CrDType out = has_dtype ? dtype : x->dtype;
      if (!cr_dtype_is_floating (out))
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "mean(): could not infer output dtype. %s dtype must be either a "
                       "floating point or complex dtype. Got: %s",
                       has_dtype ? "Optional" : "Input", cr_dtype_scalar_name (out));
          return NULL;
        }
    }

  input = has_dtype ? cr_to_dtype (x, dtype, error) : cr_tensor_ref (x);
  if (input == NULL)
    return NULL;

  switch (kind)
    {
    case RED_SUM:
      if (n_dims == 0 && !cr_torch_args_has (&a, 1) && !keepdim)
        return cr_torch_wrap (cr_sum (input, error));
      return cr_torch_wrap (cr_sum_dim (input, dims, n_dims, keepdim, error));
    case RED_MEAN:
      if (n_dims == 0 && !cr_torch_args_has (&a, 1) && !keepdim)
        return cr_torch_wrap (cr_mean (input, error));
      return cr_torch_wrap (cr_mean_dim (input, dims, n_dims, keepdim, error));
    case RED_PROD:
    default:
      if (n_dims == 0)
        return cr_torch_wrap (cr_prod (input, error));
      return cr_torch_wrap (cr_prod_dim (input, dims[0], keepdim, error));
    }
}

NATIVE (native_sum)
{
  return reduce (interp, self, args, n_args, kwargs, n_kwargs, RED_SUM, error);
}

NATIVE (native_mean)
{
  return reduce (interp, self, args, n_args, kwargs, n_kwargs, RED_MEAN, error);
}

NATIVE (native_prod)
{
  return reduce (interp, self, args, n_args, kwargs, n_kwargs, RED_PROD, error);
}

/* torch.broadcast_tensors(*tensors): each expanded to the common shape
 * (ExpandBackward0), one already of that shape as itself. */
NATIVE (native_broadcast_tensors)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);

  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "broadcast_tensors() got an unexpected keyword argument '%s'", kwargs[0].name);
      return NULL;
    }
  for (guint i = 0; i < n_args; i++)
    {
      if (args[i]->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "expected Tensor as element %u in argument 0, but got %s", i,
                       cr_torch_type_name (args[i]));
          return NULL;
        }
      if (!cr_shape_broadcast (shape, ndim, args[i]->u.tensor->shape, args[i]->u.tensor->ndim,
                               shape, &ndim, error))
        return NULL;
    }
  for (guint i = 0; i < n_args; i++)
    {
      CrTensor *t = args[i]->u.tensor;

      if (cr_shape_equal (t->shape, t->ndim, shape, ndim))
        g_ptr_array_add (items, cr_value_ref (args[i]));
      else
        {
          CrTensor *expanded = cr_expand (t, shape, ndim, error);

          if (expanded == NULL)
            return NULL;
          g_ptr_array_add (items, cr_value_new_tensor_take (expanded));
        }
    }
  return cr_value_new_tuple ((CrValue **) items->pdata, items->len);
}

/* torch.return_types.max(values=..., indices=...): unpacks like a tuple. */
typedef struct {
  const char *name;      /* "max", static */
  CrValue    *values;
  CrValue    *indices;
} ReturnPair;

static void
return_pair_free (gpointer data)
{
  ReturnPair *pair = data;
  cr_value_unref (pair->values);
  cr_value_unref (pair->indices);
  g_free (pair);
}

static CrValue *
return_pair_get_attr (CrInterp    *interp,
                      CrValue     *self,
                      const char  *name,
                      GError     **error)
{
  ReturnPair *pair = self->u.object.data;

  if (strcmp (name, "values") == 0)
    return cr_value_ref (pair->values);
  if (strcmp (name, "indices") == 0)
    return cr_value_ref (pair->indices);
  return NULL;
}

static char *
return_pair_repr (CrValue *self)
{
  ReturnPair *pair = self->u.object.data;
  CrPrintOptions options;
  g_autofree char *v = NULL;
  g_autofree char *i = NULL;

  cr_print_options_init_default (&options);
  v = cr_tensor_format (pair->values->u.tensor, &options);
  i = cr_tensor_format (pair->indices->u.tensor, &options);
  return g_strdup_printf ("torch.return_types.%s(\nvalues=%s,\nindices=%s)", pair->name, v, i);
}

static CrValue *
return_pair_as_tuple (CrValue *self)
{
  ReturnPair *pair = self->u.object.data;
  CrValue *items[2] = { pair->values, pair->indices };
  return cr_value_new_tuple (items, 2);
}

/* One type per function, as PyTorch's structseqs are: type(x.max(1)) is
 * torch.return_types.max, and each is a tuple (isinstance checks as_tuple). */
#define RETURN_PAIR_TYPE(fn) { \
  .name = "torch.return_types." fn, \
  .destroy = return_pair_free, \
  .get_attr = return_pair_get_attr, \
  .repr = return_pair_repr, \
  .as_tuple = return_pair_as_tuple, \
}

static const CrObjectType return_pair_types[] = {
  RETURN_PAIR_TYPE ("max"),
  RETURN_PAIR_TYPE ("min"),
  RETURN_PAIR_TYPE ("sort"),
  RETURN_PAIR_TYPE ("topk"),
  RETURN_PAIR_TYPE ("cummax"),
  RETURN_PAIR_TYPE ("cummin"),
  RETURN_PAIR_TYPE ("median"),
  RETURN_PAIR_TYPE ("kthvalue"),
  RETURN_PAIR_TYPE ("mode"),
};

static const CrObjectType *
return_pair_type (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (return_pair_types); i++)
    if (strcmp (return_pair_types[i].name + strlen ("torch.return_types."), name) == 0)
      return &return_pair_types[i];
  g_return_val_if_reached (&return_pair_types[0]);
}

static CrValue *
return_pair_new (const char *name,
                 CrTensor   *values,
                 CrTensor   *indices)
{
  ReturnPair *pair = g_new0 (ReturnPair, 1);

  pair->name = name;
  pair->values = cr_value_new_tensor_take (values);
  pair->indices = cr_value_new_tensor_take (indices);
  return cr_value_new_object (return_pair_type (name), pair);
}

CrValue *
cr_torch_return_pair_new (const char *name,
                          CrTensor   *values,
                          CrTensor   *indices)
{
  return return_pair_new (name, values, indices);
}

/* max(input), max(input, dim, keepdim=False), max(input, other) */
static CrValue *
max_min (CrInterp       *interp,
         CrValue        *self,
         CrValue *const *args,
         guint           n_args,
         const CrKwarg  *kwargs,
         guint           n_kwargs,
         gboolean        is_min,
         GError        **error)
{
  const char *name = is_min ? "min" : "max";
  gint64 dim;
  gboolean keepdim;
  PARSE (name, "input | dim keepdim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_has (&a, 1))
    {
      if (cr_torch_args_has (&a, 2))
        {
          cr_torch_args_type_error (&a, 2, "int", error);
          return NULL;
        }
      return cr_torch_wrap (is_min ? cr_min_all (x, error) : cr_max_all (x, error));
    }
  if (a.values[1]->kind == CR_VALUE_TENSOR && !cr_torch_value_is_int (a.values[1], &dim))
    {
      CrTensor *other = a.values[1]->u.tensor;
      return cr_torch_wrap (is_min ? cr_minimum (x, other, error) : cr_maximum (x, other, error));
    }
  if (!cr_torch_args_int (&a, 1, 0, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error))
    return NULL;
  {
    CrTensor *indices = NULL;
    CrTensor *values = is_min ? cr_min_dim (x, (int) dim, keepdim, &indices, error)
                              : cr_max_dim (x, (int) dim, keepdim, &indices, error);
    if (values == NULL)
      return NULL;
    return return_pair_new (name, values, indices);
  }
}

NATIVE (native_max)
{
  return max_min (interp, self, args, n_args, kwargs, n_kwargs, FALSE, error);
}

NATIVE (native_min)
{
  return max_min (interp, self, args, n_args, kwargs, n_kwargs, TRUE, error);
}

NATIVE (native_argmax)
{
  gint64 dim;
  gboolean keepdim;
  gboolean is_min = GPOINTER_TO_INT (data);
  PARSE (is_min ? "argmin" : "argmax", "input | dim keepdim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error))
    return NULL;
  return cr_torch_wrap (cr_kernel_argmax (x, cr_torch_args_has (&a, 1), (int) dim, keepdim,
                                          is_min, error));
}

/* norm(input, p='fro', dim=None, keepdim=False) */
NATIVE (native_norm)
{
  double p = 2.0;
  int dims[CR_MAX_DIMS];
  int n_dims;
  gboolean keepdim;
  PARSE ("norm", "input | p dim keepdim * dtype");
  TENSOR_ARG (x, 0);

  if (cr_torch_args_has (&a, 1))
    {
      CrValue *pv = a.values[1];
      if (pv->kind == CR_VALUE_STR && strcmp (pv->u.str.data, "fro") == 0)
        p = 2.0;
      else if (!cr_torch_value_is_number (pv, &p))
        {
          cr_torch_args_type_error (&a, 1, "Number", error);
          return NULL;
        }
    }
  if (!cr_torch_args_dims (&a, 2, dims, &n_dims, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  if (n_dims == 0)
    return cr_torch_wrap (cr_norm (x, p, error));
  if (n_dims == 2 && (!cr_torch_args_has (&a, 1) || a.values[1]->kind == CR_VALUE_STR))
    {
      /* PyTorch 1.13's frobenius_norm over two dims: sqrt(sum(x * x, dims)). */
      g_autoptr(CrTensor) sq = cr_mul (x, x, error);
      g_autoptr(CrTensor) s = sq != NULL ? cr_sum_dim (sq, dims, n_dims, keepdim, error) : NULL;
      return s != NULL ? cr_torch_wrap (cr_sqrt (s, error)) : NULL;
    }
  return cr_torch_wrap (cr_norm_dim (x, p, dims, n_dims, keepdim, error));
}

/* all / any, over everything or along one dim. */
NATIVE (native_all_any)
{
  gboolean is_any = GPOINTER_TO_INT (data);
  gint64 dim;
  gboolean keepdim;
  PARSE (is_any ? "any" : "all", "input | dim keepdim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error))
    return NULL;
  if (!cr_torch_args_has (&a, 1))
    {
      gboolean r = is_any ? cr_kernel_any (x) : cr_kernel_all (x);
      return cr_value_new_tensor_take (cr_tensor_new_scalar (r ? 1.0 : 0.0, CR_DTYPE_BOOL));
    }
  {
    /* any(dim) = sum(x != 0, dim) > 0; all(dim) = sum(x == 0, dim) == 0. */
    g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, x->dtype);
    g_autoptr(CrTensor) mask = NULL;
    g_autoptr(CrTensor) count = NULL;
    int d = (int) dim;

    zero->is_wrapped_number = TRUE;
    mask = cr_kernel_binary (is_any ? CR_BINARY_NE : CR_BINARY_EQ, x, zero, error);
    if (mask == NULL)
      return NULL;
    count = cr_kernel_sum (mask, &d, 1, keepdim, error);
    if (count == NULL)
      return NULL;
    {
      g_autoptr(CrTensor) z = cr_tensor_new_scalar (0.0, CR_DTYPE_INT64);
      z->is_wrapped_number = TRUE;
      return cr_torch_wrap (cr_kernel_binary (is_any ? CR_BINARY_GT : CR_BINARY_EQ, count, z,
                                              error));
    }
  }
}

NATIVE (native_allclose)
{
  double rtol, atol;
  gboolean result = FALSE;
  PARSE ("allclose", "input other | rtol atol equal_nan");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_args_double (&a, 2, 1e-05, &rtol, error)
      || !cr_torch_args_double (&a, 3, 1e-08, &atol, error))
    return NULL;
  if (!cr_kernel_allclose (x, y, rtol, atol, &result, error))
    return NULL;
  return cr_value_new_bool (result);
}

NATIVE (native_equal)
{
  PARSE ("equal", "input other");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_shape_equal (x->shape, x->ndim, y->shape, y->ndim))
    return cr_value_new_bool (FALSE);
  {
    g_autoptr(CrTensor) eq = cr_kernel_binary (CR_BINARY_EQ, x, y, error);
    if (eq == NULL)
      return NULL;
    return cr_value_new_bool (cr_kernel_all (eq));
  }
}

/* ---- linear algebra --------------------------------------------------- */

typedef CrTensor *(*BinaryTensorFunc) (CrTensor *a, CrTensor *b, GError **error);

typedef struct {
  const char      *name;
  const char      *spec;
  BinaryTensorFunc func;
} LinalgInfo;

static const LinalgInfo linalg_matmul = { "matmul", "input other", cr_matmul };
static const LinalgInfo linalg_mm = { "mm", "input mat2", cr_mm };
static const LinalgInfo linalg_mv = { "mv", "input vec", cr_mv };
static const LinalgInfo linalg_dot = { "dot", "input tensor", cr_dot };
static const LinalgInfo linalg_bmm = { "bmm", "input mat2", cr_bmm };

NATIVE (native_linalg)
{
  const LinalgInfo *info = data;
  PARSE (info->name, info->spec);
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  return cr_torch_wrap (info->func (x, y, error));
}

/* torch.addmm(input, mat1, mat2, *, beta=1, alpha=1) and input.addmm(...):
 * one AddmmBackward0 node (nn.Linear's). */
NATIVE (native_addmm)
{
  double beta = 1.0, alpha = 1.0;
  PARSE ("addmm", "input mat1 mat2 | * beta alpha");
  TENSOR_ARG (bias, 0);
  TENSOR_ARG (m1, 1);
  TENSOR_ARG (m2, 2);

  if ((cr_torch_args_has (&a, 3) && !cr_torch_args_double (&a, 3, 1.0, &beta, error))
      || (cr_torch_args_has (&a, 4) && !cr_torch_args_double (&a, 4, 1.0, &alpha, error)))
    return NULL;
  CrTensor *out = cr_addmm_scaled (bias, m1, m2, beta, alpha, error);
  cr_torch_mark_float_scalar (out, &a, 3, 0);   /* _saved_beta */
  return wrap_with_float_scalar (out, &a, 4, 1);   /* _saved_alpha */
}

/* ---- shapes ----------------------------------------------------------- */

NATIVE (native_t)
{
  PARSE ("t", "input");
  TENSOR_ARG (x, 0);
  return cr_torch_wrap (cr_t (x, error));
}

/* gather and index_select share (input, dim, index). */
NATIVE (native_gather)
{
  gint64 dim;
  gboolean gather = data == NULL;
  PARSE (gather ? "gather" : "index_select", "input dim index");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  {
    TENSOR_ARG (index, 2);
    return cr_torch_wrap (gather ? cr_gather (x, (int) dim, index, error)
                                 : cr_index_select (x, (int) dim, index, error));
  }
}

/* take_along_dim(input, indices, dim=None) (cr-ops-gather.c) */
NATIVE (native_take_along_dim)
{
  gint64 dim = 0;
  PARSE ("take_along_dim", "input indices | dim");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (indices, 1);

  if (cr_torch_args_has (&a, 2) && !cr_torch_args_int (&a, 2, 0, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_take_along_dim (x, indices, cr_torch_args_has (&a, 2), (int) dim, error));
}

/* isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False): PyTorch's
 * |a − b| finite and ≤ atol + |rtol·b|, equal values (infinities too)
 * close, NaN close to NaN only with equal_nan. No graph. */
NATIVE (native_isclose)
{
  double rtol, atol;
  gboolean equal_nan;
  g_autoptr(CrTensor) equal = NULL;
  g_autoptr(CrTensor) diff = NULL;
  g_autoptr(CrTensor) gap = NULL;
  g_autoptr(CrTensor) scale = NULL;
  g_autoptr(CrTensor) allowed = NULL;
  g_autoptr(CrTensor) within = NULL;
  g_autoptr(CrTensor) close = NULL;
  g_autoptr(CrTensor) xf = NULL;
  g_autoptr(CrTensor) yf = NULL;
  g_autoptr(CrTensor) scaled = NULL;
  g_autoptr(CrTensor) finite = NULL;
  g_autoptr(CrTensor) finite_within = NULL;
  g_autoptr(CrTensor) r = NULL;
  g_autoptr(CrTensor) t = NULL;
  PARSE ("isclose", "input other | rtol atol equal_nan");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_args_double (&a, 2, 1e-05, &rtol, error)
      || !cr_torch_args_double (&a, 3, 1e-08, &atol, error)
      || !cr_torch_args_bool (&a, 4, FALSE, &equal_nan, error))
    return NULL;
  r = cr_tensor_new_scalar (rtol, CR_DTYPE_FLOAT64);
  t = cr_tensor_new_scalar (atol, CR_DTYPE_FLOAT64);
  if (x->dtype != y->dtype)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s did not match %s", cr_dtype_short_name (x->dtype),
                   cr_dtype_short_name (y->dtype));
      return NULL;
    }
  if ((equal = cr_kernel_binary (CR_BINARY_EQ, x, y, error)) == NULL)
    return NULL;
  if (equal_nan)
    {
      g_autoptr(CrTensor) x_nan = cr_kernel_binary (CR_BINARY_NE, x, x, error);
      g_autoptr(CrTensor) y_nan = x_nan != NULL ? cr_kernel_binary (CR_BINARY_NE, y, y, error) : NULL;
      g_autoptr(CrTensor) both = y_nan != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, x_nan, y_nan,
                                                                   error) : NULL;
      CrTensor *with_nan = both != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_OR, equal, both, error)
                                        : NULL;

      if (with_nan == NULL)
        return NULL;
      cr_tensor_unref (equal);
      equal = with_nan;
    }
  /* Integers are compared as floats of the default dtype. */
  if (!cr_dtype_is_floating (x->dtype)
      && ((xf = cr_kernel_cast (x, CR_DTYPE_FLOAT32, error)) == NULL
          || (yf = cr_kernel_cast (y, CR_DTYPE_FLOAT32, error)) == NULL))
    return NULL;
  r->is_wrapped_number = TRUE;
  t->is_wrapped_number = TRUE;
  if ((diff = cr_kernel_binary (CR_BINARY_SUB, xf != NULL ? xf : x, yf != NULL ? yf : y, error)) == NULL
      || (gap = cr_kernel_unary (CR_UNARY_ABS, diff, error)) == NULL
      || (scaled = cr_kernel_binary (CR_BINARY_MUL, r, yf != NULL ? yf : y, error)) == NULL
      || (scale = cr_kernel_unary (CR_UNARY_ABS, scaled, error)) == NULL
      || (allowed = cr_kernel_binary (CR_BINARY_ADD, t, scale, error)) == NULL
      || (within = cr_kernel_binary (CR_BINARY_LE, gap, allowed, error)) == NULL
      || (finite = finite_mask (gap, error)) == NULL
      || (finite_within = cr_kernel_binary (CR_BINARY_LOGICAL_AND, finite, within, error)) == NULL
      || (close = cr_kernel_binary (CR_BINARY_LOGICAL_OR, equal, finite_within, error)) == NULL)
    return NULL;
  return cr_torch_wrap (g_steal_pointer (&close));
}

NATIVE (native_diag)
{
  gint64 diagonal;
  PARSE ("diag", "input | diagonal");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &diagonal, error))
    return NULL;
  return cr_torch_wrap (cr_diag (x, diagonal, error));
}

/* t_, unsqueeze_ and squeeze_ return self. */
NATIVE (native_t_)
{
  PARSE ("t_", "input");
  TENSOR_ARG (x, 0);

  if (!cr_t_ (x, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

NATIVE (native_unsqueeze_)
{
  gint64 dim;
  PARSE ("unsqueeze_", "input dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error) || !cr_unsqueeze_ (x, (int) dim, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

NATIVE (native_squeeze_)
{
  gint64 dim = 0;
  gboolean has_dim;
  PARSE ("squeeze_", "input | dim");
  TENSOR_ARG (x, 0);

  has_dim = cr_torch_args_has (&a, 1);
  if ((has_dim && !cr_torch_args_int (&a, 1, 0, &dim, error))
      || !cr_squeeze_ (x, has_dim, (int) dim, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

NATIVE (native_transpose)
{
  gint64 d0, d1;
  PARSE ((const char *) data, "input dim0 dim1");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &d0, error) || !cr_torch_args_int (&a, 2, 0, &d1, error))
    return NULL;
  return cr_torch_wrap (cr_transpose (x, (int) d0, (int) d1, error));
}

/* x.permute(1, 0), x.permute((1, 0)), torch.permute(x, (1, 0)) */
NATIVE (native_permute)
{
  CrValue *const *rest;
  guint n_rest;
  gint64 shape[CR_MAX_DIMS];
  int dims[CR_MAX_DIMS];
  int n;
  CrTensor *x;

  if (!no_kwargs ("permute", n_kwargs, kwargs, error))
    return NULL;
  x = split_input ("permute", self, args, n_args, &rest, &n_rest, error);
  if (x == NULL)
    return NULL;
  if (self == NULL && n_rest != 1)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "permute() takes 2 positional arguments but %u were given", n_args);
      return NULL;
    }
  if (!cr_torch_parse_size ("permute", "dims", rest, n_rest, shape, &n, error))
    return NULL;
  for (int i = 0; i < n; i++)
    dims[i] = (int) CLAMP (shape[i], G_MININT, G_MAXINT);
  return cr_torch_wrap (cr_permute (x, dims, n, error));
}

/* x.view(2, 3), x.view((2, 3)), x.reshape(...), torch.reshape(x, (2, 3)),
 * x.expand(...) */
typedef CrTensor *(*ShapeFunc) (CrTensor *x, const gint64 *shape, int ndim, GError **error);

typedef struct {
  const char *name;
  const char *pname;
  ShapeFunc   func;
} ShapeInfo;

static const ShapeInfo shape_view = { "view", "size", cr_view };
static const ShapeInfo shape_reshape = { "reshape", "shape", cr_reshape };
static const ShapeInfo shape_expand = { "expand", "size", cr_expand };
static const ShapeInfo shape_broadcast_to = { "broadcast_to", "size", cr_expand };

NATIVE (native_shape)
{
  const ShapeInfo *info = data;
  CrValue *const *rest;
  guint n_rest;
  gint64 shape[CR_MAX_DIMS];
  int n;
  CrTensor *x;

  if (!no_kwargs (info->name, n_kwargs, kwargs, error))
    return NULL;
  x = split_input (info->name, self, args, n_args, &rest, &n_rest, error);
  if (x == NULL)
    return NULL;
  if (self == NULL)
    {
      if (n_rest != 1)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() takes 2 positional arguments but %u were given", info->name, n_args);
          return NULL;
        }
      if (rest[0]->kind != CR_VALUE_TUPLE && rest[0]->kind != CR_VALUE_LIST)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s(): argument '%s' (position 2) must be tuple of SymInts, not %s",
                       info->name, info->pname, cr_torch_type_name (rest[0]));
          return NULL;
        }
    }
  if (!cr_torch_parse_size (info->name, info->pname, rest, n_rest, shape, &n, error))
    return NULL;
  return cr_torch_wrap (info->func (x, shape, n, error));
}

NATIVE (native_expand_as)
{
  PARSE ("expand_as", "input other");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (other, 1);
  return cr_torch_wrap (cr_expand (x, other->shape, other->ndim, error));
}

NATIVE (native_view_as)
{
  PARSE ("view_as", "input other");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (other, 1);
  return cr_torch_wrap (cr_view (x, other->shape, other->ndim, error));
}

NATIVE (native_reshape_as)
{
  PARSE ("reshape_as", "input other");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (other, 1);
  return cr_torch_wrap (cr_reshape (x, other->shape, other->ndim, error));
}

NATIVE (native_flatten)
{
  gint64 start, end;
  PARSE ("flatten", "input | start_dim end_dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &start, error) || !cr_torch_args_int (&a, 2, -1, &end, error))
    return NULL;
  return cr_torch_wrap (cr_flatten (x, (int) start, (int) end, error));
}

NATIVE (native_unsqueeze)
{
  gint64 dim;
  PARSE ("unsqueeze", "input dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_unsqueeze (x, (int) dim, error));
}

NATIVE (native_squeeze)
{
  gint64 dim;
  PARSE ("squeeze", "input | dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_has (&a, 1))
    return cr_torch_wrap (cr_squeeze (x, error));
  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_squeeze_dim (x, (int) dim, error));
}

NATIVE (native_contiguous)
{
  PARSE ("contiguous", "input");
  TENSOR_ARG (x, 0);
  return cr_torch_wrap (cr_contiguous (x, error));
}

NATIVE (native_clone)
{
  PARSE ("clone", "input");
  TENSOR_ARG (x, 0);
  return cr_torch_wrap (cr_clone (x, error));
}

/* ravel: contiguous().view(-1), as PyTorch composes it. */
NATIVE (native_ravel)
{
  gint64 flat = -1;
  g_autoptr(CrTensor) c = NULL;
  PARSE ("ravel", "input");
  TENSOR_ARG (x, 0);

  c = cr_contiguous (x, error);
  return c != NULL ? cr_torch_wrap (cr_view (c, &flat, 1, error)) : NULL;
}

/* outer(input, vec2): input.reshape(n, 1) * vec2, as PyTorch composes it. */
NATIVE (native_outer)
{
  g_autoptr(CrTensor) col = NULL;
  gint64 shape[2] = { 0, 1 };
  PARSE ("outer", "input vec2");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (x->ndim != 1 || y->ndim != 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "outer: Expected 1-D argument %s, but got %d-D",
                   x->ndim != 1 ? "self" : "vec2", x->ndim != 1 ? x->ndim : y->ndim);
      return NULL;
    }
  shape[0] = x->shape[0];
  col = cr_reshape (x, shape, 2, error);
  return col != NULL ? cr_torch_wrap (cr_mul (col, y, error)) : NULL;
}

NATIVE (native_detach)
{
  PARSE ("detach", "input");
  TENSOR_ARG (x, 0);
  cr_coach_watch_cut (interp, x, "detach");
  return cr_value_new_tensor_take (cr_detach (x));
}

/* cat(tensors, dim=0), stack(tensors, dim=0) */
NATIVE (native_cat)
{
  gboolean is_stack = GPOINTER_TO_INT (data);
  const char *name = is_stack ? "stack" : "cat";
  g_autoptr(GPtrArray) tensors = NULL;
  gint64 dim;
  CrValue *seq;
  guint n;
  PARSE (name, "tensors | dim");

  seq = a.values[0];
  if (seq->kind != CR_VALUE_LIST && seq->kind != CR_VALUE_TUPLE)
    {
      cr_torch_args_type_error (&a, 0, "tuple of Tensors", error);
      return NULL;
    }
  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  n = cr_seq_len (seq);
  if (n == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   is_stack ? "stack expects a non-empty TensorList"
                            : "torch.cat(): expected a non-empty list of Tensors");
      return NULL;
    }
  tensors = g_ptr_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    {
      CrValue *item = cr_seq_get (seq, i);
      if (item->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "expected Tensor as element %u in argument 0, but got %s",
                       i, cr_torch_type_name (item));
          return NULL;
        }
      g_ptr_array_add (tensors, item->u.tensor);
    }
  if (is_stack)
    return cr_torch_wrap (cr_stack ((CrTensor *const *) tensors->pdata, n, (int) dim, error));
  return cr_torch_wrap (cr_cat ((CrTensor *const *) tensors->pdata, n, (int) dim, error));
}

/* ---- the table -------------------------------------------------------- */

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
#define F CR_TORCH_IN_F

const CrTorchFunc cr_torch_math_funcs[] = {
  { "logical_not", native_kernel_unary, T | M, (gpointer) &kunary_logical_not },
  { "square", native_square, T | M, NULL },
  { "isnan", native_isnan, T | M, GINT_TO_POINTER (0) },
  { "isinf", native_isnan, T | M, GINT_TO_POINTER (1) },
  { "isfinite", native_isnan, T | M, GINT_TO_POINTER (2) },
  { "relu", native_f_relu, F, NULL },
  { "sigmoid", native_f_sigmoid, F, NULL },
  { "tanh", native_f_tanh, F, NULL },

  { "add", native_binary, T | M, (gpointer) &binary_add },
  { "sub", native_binary, T | M, (gpointer) &binary_sub },
  { "subtract", native_binary, T | M, (gpointer) &binary_sub },
  { "rsub", native_binary, T, (gpointer) &binary_rsub },
  { "mul", native_binary, T | M, (gpointer) &binary_mul },
  { "multiply", native_binary, T | M, (gpointer) &binary_mul },
  { "div", native_binary, T | M, (gpointer) &binary_div },
  { "divide", native_binary, T | M, (gpointer) &binary_div },
  { "true_divide", native_binary, T | M, (gpointer) &binary_div },
  { "pow", native_pow, T | M, NULL },
  { "clamp", native_clamp, T | M, (gpointer) "clamp" },
  { "clip", native_clamp, T | M, (gpointer) "clip" },
  { "clamp_min", native_clamp_bound, T | M, GINT_TO_POINTER (FALSE) },
  { "clamp_max", native_clamp_bound, T | M, GINT_TO_POINTER (TRUE) },
  { "where", native_where, T, NULL },
  { "broadcast_tensors", native_broadcast_tensors, T, NULL },
  { "take_along_dim", native_take_along_dim, T | M, NULL },
  { "isclose", native_isclose, T | M, NULL },
  { "masked_fill", native_masked_fill, T | M, NULL },
  { "masked_fill_", native_masked_fill_, M, NULL },
  { "masked_select", native_masked_select, T | M, NULL },

  { "sum", native_sum, T | M, NULL },
  { "mean", native_mean, T | M, NULL },
  { "prod", native_prod, T | M, NULL },
  { "max", native_max, T | M, NULL },
  { "min", native_min, T | M, NULL },
  { "argmax", native_argmax, T | M, GINT_TO_POINTER (FALSE) },
  { "argmin", native_argmax, T | M, GINT_TO_POINTER (TRUE) },
  { "norm", native_norm, T | M, NULL },
  { "all", native_all_any, T | M, GINT_TO_POINTER (FALSE) },
  { "any", native_all_any, T | M, GINT_TO_POINTER (TRUE) },
  { "allclose", native_allclose, T | M, NULL },
  { "equal", native_equal, T | M, NULL },

  { "matmul", native_linalg, T | M, (gpointer) &linalg_matmul },
  { "mm", native_linalg, T | M, (gpointer) &linalg_mm },
  { "mv", native_linalg, T | M, (gpointer) &linalg_mv },
  { "dot", native_linalg, T | M, (gpointer) &linalg_dot },
  { "bmm", native_linalg, T | M, (gpointer) &linalg_bmm },
  { "addmm", native_addmm, T | M, NULL },

  { "t", native_t, T | M, NULL },
  { "t_", native_t_, M, NULL },
  { "unsqueeze_", native_unsqueeze_, M, NULL },
  { "squeeze_", native_squeeze_, M, NULL },
  { "gather", native_gather, T | M, NULL },
  { "index_select", native_gather, T | M, GINT_TO_POINTER (1) },
  { "diag", native_diag, T | M, NULL },
  { "transpose", native_transpose, T | M, (gpointer) "transpose" },
  { "swapaxes", native_transpose, T | M, (gpointer) "swapaxes" },
  { "permute", native_permute, T | M, NULL },
  { "view", native_shape, M, (gpointer) &shape_view },
  { "reshape", native_shape, T | M, (gpointer) &shape_reshape },
  { "expand", native_shape, M, (gpointer) &shape_expand },
  { "broadcast_to", native_shape, T | M, (gpointer) &shape_broadcast_to },
  { "ravel", native_ravel, T | M, NULL },
  { "outer", native_outer, T | M, NULL },
  { "ger", native_outer, T | M, NULL },
  { "expand_as", native_expand_as, M, NULL },
  { "view_as", native_view_as, M, NULL },
  { "reshape_as", native_reshape_as, M, NULL },
  { "flatten", native_flatten, T | M, NULL },
  { "unsqueeze", native_unsqueeze, T | M, NULL },
  { "squeeze", native_squeeze, T | M, NULL },
  { "contiguous", native_contiguous, M, NULL },
  { "clone", native_clone, T | M, NULL },
  { "detach", native_detach, T | M, NULL },
  { "cat", native_cat, T, GINT_TO_POINTER (FALSE) },
  { "concat", native_cat, T, GINT_TO_POINTER (FALSE) },
  { "stack", native_cat, T, GINT_TO_POINTER (TRUE) },

};

const guint cr_torch_n_math_funcs = G_N_ELEMENTS (cr_torch_math_funcs);
