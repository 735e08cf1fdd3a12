/* cr-torch-tensor-ops.c — tensors as Python operands: arithmetic and
 * comparison operators (with PyTorch's graph shapes for the reflected forms),
 * augmented assignment in place, indexing, len(), format() and .item(). */
#include "cr-cuda.h"
#include "cr-torch-private.h"
#include "cr-kernels.h"
#include "cr-pyformat.h"

#include <string.h>

static gboolean
is_operand (CrValue *v)
{
  return v->kind == CR_VALUE_TENSOR || v->kind == CR_VALUE_INT || v->kind == CR_VALUE_FLOAT
         || v->kind == CR_VALUE_BOOL;
}

/* A wrapped 0-d tensor for a Python number (is_wrapped_number), or the
 * tensor itself; new ref. */
static CrTensor *
operand (CrValue  *v,
         GError  **error)
{
  if (v->kind == CR_VALUE_TENSOR)
    return cr_tensor_ref (v->u.tensor);
  return cr_value_to_tensor (v, error);
}

/* The scalar forms (cr_pow_scalar, cr_rsub_scalar) take a double and keep
 * the tensor's dtype; a Python float with an integer tensor promotes to the
 * default float dtype first, as PyTorch's type promotion does. */
static CrTensor *
promote_for_float (CrTensor  *t,
                   CrValue   *number,
                   GError   **error)
{
  if (number->kind == CR_VALUE_FLOAT && !cr_dtype_is_floating (t->dtype))
    return cr_to_dtype (t, CR_DTYPE_FLOAT32, error);
  return cr_tensor_ref (t);
}

static CrTensor *
bitwise (CrBinOp   op,
         CrTensor *a,
         CrTensor *b,
         GError  **error)
{
  static const char *names[] = { "bitwise_or_cpu", "bitwise_xor_cpu", "bitwise_and_cpu" };
  const char *name = names[op - CR_BINOP_BITOR];

  if (a->dtype == CR_DTYPE_BOOL && b->dtype == CR_DTYPE_BOOL)
    {
      CrBinaryOp k = op == CR_BINOP_BITAND ? CR_BINARY_LOGICAL_AND
                     : op == CR_BINOP_BITOR ? CR_BINARY_LOGICAL_OR : CR_BINARY_NE;
      return cr_binary_nograd (k, a, b, error);
    }
  if (cr_dtype_is_integral (a->dtype) || cr_dtype_is_integral (b->dtype))
    {
      if (cr_dtype_is_floating (a->dtype) || cr_dtype_is_floating (b->dtype))
        goto float_error;
      return cr_binary_nograd (op == CR_BINOP_BITAND ? CR_BINARY_BITWISE_AND
                               : op == CR_BINOP_BITOR ? CR_BINARY_BITWISE_OR
                               : CR_BINARY_BITWISE_XOR, a, b, error);
    }
float_error:
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
               "\"%s\" not implemented for '%s'", name,
               cr_dtype_is_floating (a->dtype) && a->dtype == CR_DTYPE_FLOAT64 ? "Double"
               : cr_dtype_is_floating (a->dtype) ? "Float"
               : b->dtype == CR_DTYPE_FLOAT64 ? "Double" : "Float");
  return NULL;
}

CrValue *
cr_torch_binary_op (CrInterp  *interp,
                    CrBinOp    op,
                    CrValue   *a,
                    CrValue   *b,
                    GError   **error)
{
  g_autoptr(CrTensor) ta = NULL;
  g_autoptr(CrTensor) tb = NULL;
  gboolean a_number, b_number;

  if (!is_operand (a) || !is_operand (b))
    return NULL;
  a_number = a->kind != CR_VALUE_TENSOR;
  b_number = b->kind != CR_VALUE_TENSOR;

  switch (op)
    {
    case CR_BINOP_MATMUL:
      if (a_number || b_number)
        return NULL;
      return cr_torch_wrap (cr_matmul (a->u.tensor, b->u.tensor, error));

    case CR_BINOP_SUB:
      if (a_number)
        {
          /* 10 - x: PyTorch's __rsub__, RsubBackward1. */
          g_autoptr(CrTensor) x = NULL;
          double number;
          if (a->kind == CR_VALUE_BOOL || b->u.tensor->dtype == CR_DTYPE_BOOL)
            {
              g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "Subtraction, the `-` operator, with a bool tensor is not "
                                   "supported. If you are trying to invert a mask, use the `~` "
                                   "or `logical_not()` operator instead.");
              return NULL;
            }
          x = promote_for_float (b->u.tensor, a, error);
          if (x == NULL)
            return NULL;
          cr_value_to_double (a, &number, NULL);
          return cr_torch_wrap (cr_rsub_scalar (x, number, error));
        }
      break;

    case CR_BINOP_DIV:
      if (a_number)
        {
          /* 1 / x is x.reciprocal() * 1 in PyTorch (__rtruediv__). */
          g_autoptr(CrTensor) r = cr_unary (CR_OP_RECIPROCAL, b->u.tensor, error);
          if (r == NULL)
            return NULL;
          ta = operand (a, error);
          if (ta == NULL)
            return NULL;
          return cr_torch_wrap (cr_mul (r, ta, error));
        }
      break;

    case CR_BINOP_POW:
      if (b_number)
        {
          /* x ** 2: PowBackward0; 2 ** x and x ** y below: PowBackward1. */
          g_autoptr(CrTensor) x = promote_for_float (a->u.tensor, b, error);
          double exponent;
          if (x == NULL)
            return NULL;
          cr_value_to_double (b, &exponent, NULL);
          return cr_torch_wrap (cr_pow_scalar (x, exponent, error));
        }
      break;

    default:
      break;
    }

  ta = operand (a, error);
  if (ta == NULL)
    return NULL;
  tb = operand (b, error);
  if (tb == NULL)
    return NULL;
  if (a_number && (op == CR_BINOP_ADD || op == CR_BINOP_MUL))
    {
      /* 2 * x is x.__rmul__(2), which is x.mul(2): the tensor is the
       * node's first input, as next_functions shows. */
      CrTensor *swap = ta;
      ta = tb;
      tb = swap;
    }

  switch (op)
    {
    case CR_BINOP_ADD:
      return cr_torch_wrap (cr_add (ta, tb, error));
    case CR_BINOP_SUB:
      return cr_torch_wrap (cr_sub (ta, tb, error));
    case CR_BINOP_MUL:
      return cr_torch_wrap (cr_mul (ta, tb, error));
    case CR_BINOP_DIV:
      return cr_torch_wrap (cr_div (ta, tb, error));
    case CR_BINOP_POW:
      return cr_torch_wrap (cr_pow (ta, tb, error));
    case CR_BINOP_FLOORDIV:
      return cr_torch_wrap (cr_binary_no_derivative (CR_BINARY_FLOOR_DIVIDE, ta, tb, error));
    case CR_BINOP_MOD:
      /* x % 2: RemainderBackward0; x % y: RemainderBackward1; 7 % x has no
       * gradient (PyTorch's NotImplemented). */
      if (b_number)
        return cr_torch_wrap (cr_binary_scalar (CR_OP_REMAINDER, ta, tb, error));
      if (a_number)
        return cr_torch_wrap (cr_binary_no_derivative (CR_BINARY_REMAINDER, ta, tb, error));
      return cr_torch_wrap (cr_binary (CR_OP_REMAINDER, ta, tb, error));
    case CR_BINOP_BITAND:
    case CR_BINOP_BITOR:
    case CR_BINOP_BITXOR:
      return cr_torch_wrap (bitwise (op, ta, tb, error));
    case CR_BINOP_LSHIFT:
      return cr_torch_wrap (cr_binary_nograd (CR_BINARY_BITWISE_LEFT_SHIFT, ta, tb, error));
    case CR_BINOP_RSHIFT:
      return cr_torch_wrap (cr_binary_nograd (CR_BINARY_BITWISE_RIGHT_SHIFT, ta, tb, error));
    default:
      return NULL;
    }
}

gboolean
cr_torch_inplace_op (CrInterp  *interp,
                     CrBinOp    op,
                     CrValue   *a,
                     CrValue   *b,
                     GError   **error)
{
  g_autoptr(CrTensor) tb = NULL;
  CrOpId id;

  if (a->kind != CR_VALUE_TENSOR || !is_operand (b))
    return FALSE;

  switch (op)
    {
    case CR_BINOP_ADD: id = CR_OP_ADD; break;
    case CR_BINOP_SUB: id = CR_OP_SUB; break;
    case CR_BINOP_MUL: id = CR_OP_MUL; break;
    case CR_BINOP_DIV: id = CR_OP_DIV; break;
    case CR_BINOP_POW:
      if (b->kind == CR_VALUE_TENSOR)
        return FALSE;
      id = CR_OP_POW_SCALAR;
      break;
    case CR_BINOP_MOD:
      tb = operand (b, error);
      return tb != NULL
             && cr_inplace_binary_row (CR_OP_REMAINDER, a->u.tensor, tb,
                                       b->kind != CR_VALUE_TENSOR, error);
    default:
      /* //=, @= ...: rebinding to a OP b gives the same values. */
      return FALSE;
    }

  tb = operand (b, error);
  if (tb == NULL)
    return FALSE;
  return cr_inplace_binary (id, a->u.tensor, tb, error);
}

CrValue *
cr_torch_unary_op (CrInterp  *interp,
                   CrUnOp     op,
                   CrValue   *a,
                   GError   **error)
{
  CrTensor *t;

  if (a->kind != CR_VALUE_TENSOR)
    return NULL;
  t = a->u.tensor;

  switch (op)
    {
    case CR_UNOP_NEG:
      if (t->dtype == CR_DTYPE_BOOL)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                               "Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.");
          return NULL;
        }
      return cr_torch_wrap (cr_neg (t, error));
    case CR_UNOP_POS:
      return cr_value_ref (a);
    case CR_UNOP_NOT:
      {
        gboolean truth;
        if (!cr_value_truthy (interp, a, &truth, error))
          return NULL;
        return cr_value_new_bool (!truth);
      }
    case CR_UNOP_INVERT:
      if (t->dtype == CR_DTYPE_BOOL)
        return cr_torch_wrap (cr_kernel_unary (CR_UNARY_LOGICAL_NOT, t, error));
      if (cr_dtype_is_integral (t->dtype))
        {
          /* ~n == -n - 1 */
          g_autoptr(CrTensor) n = cr_kernel_unary (CR_UNARY_NEG, t, error);
          g_autoptr(CrTensor) one = cr_tensor_new_scalar (1.0, CR_DTYPE_INT64);
          if (n == NULL)
            return NULL;
          one->is_wrapped_number = TRUE;
          return cr_torch_wrap (cr_kernel_binary (CR_BINARY_SUB, n, one, error));
        }
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "~ (operator.invert) is only implemented on integer and "
                           "Boolean-type tensors");
      return NULL;
    default:
      return NULL;
    }
}

CrValue *
cr_torch_compare (CrInterp  *interp,
                  CrCmpOp    op,
                  CrValue   *a,
                  CrValue   *b,
                  GError   **error)
{
  g_autoptr(CrTensor) ta = NULL;
  g_autoptr(CrTensor) tb = NULL;
  CrBinaryOp k;

  if (op == CR_CMP_IN || op == CR_CMP_NOT_IN)
    {
      /* element in t: (t == element).any() */
      g_autoptr(CrTensor) eq = NULL;
      gboolean found;

      if (b->kind != CR_VALUE_TENSOR || !is_operand (a))
        return NULL;
      ta = operand (a, error);
      if (ta == NULL)
        return NULL;
      eq = cr_kernel_binary (CR_BINARY_EQ, b->u.tensor, ta, error);
      if (eq == NULL)
        return NULL;
      found = cr_kernel_any (eq);
      return cr_value_new_bool (op == CR_CMP_IN ? found : !found);
    }
  if (op == CR_CMP_IS || op == CR_CMP_IS_NOT)
    return NULL;

  if (!is_operand (a) || !is_operand (b))
    {
      /* Tensor.__eq__ with anything else is False (None, a string ...). */
      if (op == CR_CMP_EQ)
        return cr_value_new_bool (FALSE);
      if (op == CR_CMP_NE)
        return cr_value_new_bool (TRUE);
      return NULL;
    }

  switch (op)
    {
    case CR_CMP_EQ: k = CR_BINARY_EQ; break;
    case CR_CMP_NE: k = CR_BINARY_NE; break;
    case CR_CMP_LT: k = CR_BINARY_LT; break;
    case CR_CMP_LE: k = CR_BINARY_LE; break;
    case CR_CMP_GT: k = CR_BINARY_GT; break;
    case CR_CMP_GE: k = CR_BINARY_GE; break;
    default:
      return NULL;
    }
  ta = operand (a, error);
  if (ta == NULL)
    return NULL;
  tb = operand (b, error);
  if (tb == NULL)
    return NULL;
  return cr_torch_wrap (cr_binary_nograd (k, ta, tb, error));
}

/* ---- indexing --------------------------------------------------------- */

#define MAX_INDEX_ITEMS 16

typedef struct {
  CrIndexItem  items[MAX_INDEX_ITEMS];
  guint        n;
  GPtrArray   *owned;     /* tensors made from lists */
} IndexList;

static void
index_list_clear (IndexList *list)
{
  g_clear_pointer (&list->owned, g_ptr_array_unref);
}

static gboolean
slice_bound (CrValue  *v,
             gint64   *out,
             gboolean *has,
             GError  **error)
{
  if (v == NULL || v->kind == CR_VALUE_NONE)
    {
      *has = FALSE;
      return TRUE;
    }
  if (cr_torch_value_is_int (v, out))
    {
      *has = TRUE;
      return TRUE;
    }
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "slice indices must be integers or None or have an __index__ method");
  return FALSE;
}

static gboolean
add_index_item (IndexList *list,
                CrValue   *v,
                GError   **error)
{
  CrIndexItem *item;
  gint64 i;

  if (list->n >= MAX_INDEX_ITEMS)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR, "too many indices");
      return FALSE;
    }
  item = &list->items[list->n];
  memset (item, 0, sizeof *item);

  switch (v->kind)
    {
    case CR_VALUE_INT:
      item->kind = CR_INDEX_INT;
      item->value = v->u.i;
      break;
    case CR_VALUE_BOOL:
      if (!v->u.b)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                               "indexing with False is not supported by Chainrule");
          return FALSE;
        }
      /* x[True] adds a dimension of size 1, as x[None] does. */
      item->kind = CR_INDEX_NONE;
      break;
    case CR_VALUE_NONE:
      item->kind = CR_INDEX_NONE;
      break;
    case CR_VALUE_ELLIPSIS:
      item->kind = CR_INDEX_ELLIPSIS;
      break;
    case CR_VALUE_SLICE:
      item->kind = CR_INDEX_SLICE;
      if (!slice_bound (v->u.slice.start, &item->start, &item->has_start, error)
          || !slice_bound (v->u.slice.stop, &item->stop, &item->has_stop, error)
          || !slice_bound (v->u.slice.step, &item->step, &item->has_step, error))
        return FALSE;
      if (item->has_step && item->step <= 0)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                               item->step == 0 ? "slice step cannot be zero"
                                               : "step must be greater than zero");
          return FALSE;
        }
      break;
    case CR_VALUE_TENSOR:
      if (v->u.tensor->ndim == 0 && v->u.tensor->dtype == CR_DTYPE_INT64
          && cr_torch_value_is_int (v, &i))
        {
          item->kind = CR_INDEX_INT;
          item->value = i;
          break;
        }
      if (cr_dtype_is_floating (v->u.tensor->dtype))
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                               "tensors used as indices must be long, byte or bool tensors");
          return FALSE;
        }
      item->kind = CR_INDEX_TENSOR;
      item->tensor = v->u.tensor;
      /* A uint8 index is a mask, as PyTorch 1.13 still reads it (with a
       * deprecation warning). */
      if (v->u.tensor->dtype == CR_DTYPE_UINT8)
        {
          CrTensor *mask = cr_kernel_cast (v->u.tensor, CR_DTYPE_BOOL, error);

          if (mask == NULL)
            return FALSE;
          if (list->owned == NULL)
            list->owned = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
          g_ptr_array_add (list->owned, mask);
          item->tensor = mask;
        }
      break;
    case CR_VALUE_LIST:
      {
        CrTensor *t = cr_torch_tensor_from_data (v, FALSE, CR_DTYPE_INT64, error);
        if (t == NULL)
          return FALSE;
        if (list->owned == NULL)
          list->owned = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
        g_ptr_array_add (list->owned, t);
        if (cr_dtype_is_floating (t->dtype))
          {
            g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                                 "tensors used as indices must be long, byte or bool "
                                 "tensors");
            return FALSE;
          }
        item->kind = CR_INDEX_TENSOR;
        item->tensor = t;
      }
      break;
    case CR_VALUE_RANGE:
      {
        /* x[range(1, 5, 2)] is x[[1, 3]]: PyTorch takes any sequence. */
        gint64 start = v->u.range.start, stop = v->u.range.stop, step = v->u.range.step;
        gint64 n = step > 0 ? (stop > start ? (gint64) (((guint64) stop - (guint64) start - 1)
                                                        / (guint64) step) + 1 : 0)
                            : (start > stop ? (gint64) (((guint64) start - (guint64) stop - 1)
                                                        / (0 - (guint64) step)) + 1 : 0);
        CrTensor *t = cr_tensor_new_empty (&n, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
        gint64 *data;
        if (t == NULL)
          return FALSE;
        if (list->owned == NULL)
          list->owned = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
        g_ptr_array_add (list->owned, t);
        data = cr_tensor_data (t);
        for (gint64 k = 0; k < n; k++)
          data[k] = start + k * step;
        item->kind = CR_INDEX_TENSOR;
        item->tensor = t;
      }
      break;
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                   "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                   "Variables are valid indices (got %s)", cr_torch_type_name (v));
      return FALSE;
    }
  list->n++;
  return TRUE;
}

static gboolean
build_index (CrValue   *index,
             IndexList *list,
             GError   **error)
{
  list->n = 0;
  list->owned = NULL;
  if (index->kind == CR_VALUE_TUPLE)
    {
      guint n = cr_seq_len (index);
      for (guint i = 0; i < n; i++)
        if (!add_index_item (list, cr_seq_get (index, i), error))
          return FALSE;
      return TRUE;
    }
  return add_index_item (list, index, error);
}

CrValue *
cr_torch_tensor_getitem (CrInterp  *interp,
                         CrValue   *t,
                         CrValue   *index,
                         GError   **error)
{
  IndexList list;
  CrTensor *r = NULL;

  if (build_index (index, &list, error))
    r = cr_index_get (t->u.tensor, list.items, list.n, error);
  index_list_clear (&list);
  return cr_torch_wrap (r);
}

gboolean
cr_torch_tensor_setitem (CrInterp  *interp,
                         CrValue   *t,
                         CrValue   *index,
                         CrValue   *value,
                         GError   **error)
{
  IndexList list;
  g_autoptr(CrTensor) v = NULL;
  gboolean ok = FALSE;

  if (!is_operand (value))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "can't assign a %s to a %s",
                   cr_torch_type_name (value), cr_dtype_legacy_name (t->u.tensor->dtype));
      return FALSE;
    }
  v = operand (value, error);
  if (v == NULL)
    return FALSE;
  if (build_index (index, &list, error))
    ok = cr_index_set (t->u.tensor, list.items, list.n, v, error);
  index_list_clear (&list);
  return ok;
}

gboolean
cr_torch_tensor_len (CrValue  *t,
                     gint64   *out_len,
                     GError  **error)
{
  if (t->u.tensor->ndim == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "len() of a 0-d tensor");
      return FALSE;
    }
  *out_len = t->u.tensor->shape[0];
  return TRUE;
}

/* ---- Python values ---------------------------------------------------- */

CrValue *
cr_torch_tensor_item (CrTensor  *t,
                      GError   **error)
{
  if (t->numel != 1)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "only one element tensors can be converted to Python scalars");
      return NULL;
    }
  switch (t->dtype)
    {
    case CR_DTYPE_BOOL:
      return cr_value_new_bool (cr_tensor_read_flat (t, 0) != 0.0);
    case CR_DTYPE_INT64:
    case CR_DTYPE_INT32:
    case CR_DTYPE_UINT8:
      return cr_value_new_int (cr_tensor_read_flat_int (t, 0));
    default:
      /* A float32 element becomes the double of that float (0.1 ->
       * 0.10000000149011612), as Python sees it. */
      return cr_value_new_float (cr_tensor_read_flat (t, 0));
    }
}

static CrValue *
element_value (CrTensor *t,
               gint64    flat)
{
  switch (t->dtype)
    {
    case CR_DTYPE_BOOL:
      return cr_value_new_bool (cr_tensor_read_flat (t, flat) != 0.0);
    case CR_DTYPE_INT64:
    case CR_DTYPE_INT32:
    case CR_DTYPE_UINT8:
      return cr_value_new_int (cr_tensor_read_flat_int (t, flat));
    default:
      return cr_value_new_float (cr_tensor_read_flat (t, flat));
    }
}

/* Nested lists built without recursion: walking the elements in row-major
 * order, a new list opens at every level whose trailing indices are all zero. */
CrValue *
cr_torch_tensor_tolist (CrTensor *t)
{
  /* A CUDA tensor comes to the host in one copy, not one per element. */
  g_autoptr(CrTensor) host = t->device != CR_DEVICE_CPU
                             ? cr_tensor_to_device (t, CR_DEVICE_CPU, NULL) : NULL;
  CrValue *stack[CR_MAX_DIMS];
  gint64 idx[CR_MAX_DIMS] = { 0 };
  gint64 n = 1;
  int m = 0;
  CrValue *root;

  if (host != NULL)
    t = host;

  if (t->ndim == 0)
    return element_value (t, 0);

  /* Walk the dims before the first empty one; under an empty dim the leaves
   * are empty lists ([[], []] for shape (2, 0)). */
  while (m < t->ndim && t->shape[m] > 0)
    n *= t->shape[m++];
  root = cr_value_new_list ();
  if (m == 0)
    return root;
  stack[0] = root;

  for (gint64 flat = 0; flat < n; flat++)
    {
      int j0 = m - 1;
      CrValue *leaf;

      while (j0 >= 1 && idx[j0] == 0)
        j0--;
      for (int j = j0 + 1; j < m; j++)
        {
          CrValue *child = cr_value_new_list ();
          cr_list_append (stack[j - 1], child);
          cr_value_unref (child);
          stack[j] = child;
        }
      leaf = m == t->ndim ? element_value (t, flat) : cr_value_new_list ();
      cr_list_append (stack[m - 1], leaf);
      cr_value_unref (leaf);

      for (int d = m - 1; d >= 0; d--)
        {
          if (++idx[d] < t->shape[d])
            break;
          idx[d] = 0;
        }
    }
  return root;
}

char *
cr_torch_tensor_format (CrInterp  *interp,
                        CrValue   *t,
                        const char *spec,
                        GError   **error)
{
  CrTensor *tensor = t->u.tensor;

  if (tensor->ndim == 0)
    {
      /* Tensor.__format__: a 0-d tensor formats its item, also for an empty
       * spec (f"{loss}" prints 2.0). */
      switch (tensor->dtype)
        {
        case CR_DTYPE_BOOL:
          {
            gboolean b = cr_tensor_read_flat (tensor, 0) != 0.0;
            if (spec == NULL || spec[0] == '\0')
              return g_strdup (b ? "True" : "False");
            return cr_py_format_int (b ? 1 : 0, spec, error);
          }
        case CR_DTYPE_INT64:
        case CR_DTYPE_INT32:
        case CR_DTYPE_UINT8:
          return cr_py_format_int (cr_tensor_read_flat_int (tensor, 0), spec ? spec : "", error);
        default:
          if (spec == NULL || spec[0] == '\0')
            return cr_py_float_repr (cr_tensor_read_flat (tensor, 0));
          return cr_py_format_float (cr_tensor_read_flat (tensor, 0), spec, error);
        }
    }
  if (spec != NULL && spec[0] != '\0')
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "unsupported format string passed to Tensor.__format__");
      return NULL;
    }
  return cr_value_str (interp, t, error);
}
