/* cr-torch-products.c — torch.addmv, addr, baddbmm and addbmm and their
 * Tensor methods, beta= and alpha= keyword-only as in PyTorch 1.13 (the ops
 * are in core/ops/cr-ops-products.c), their in-place forms and addmm_
 * (core/ops/cr-ops-inplace-forms.c); torch.cross, Tensor.cross and the
 * module torch.linalg: cross (core/ops/cr-ops-cross.c), vector_norm,
 * matrix_norm and norm (core/ops/cr-ops-reduce.c), inv, det and solve
 * (core/ops/cr-ops-linalg-solve.c, also torch.inverse and torch.det). */
#include "cr-torch-native.h"
#include "cr-node.h"

#include <math.h>

typedef struct {
  const char        *name;
  const char        *spec;
  CrScaledProductFn  func;
  CrOpId             op;      /* its node, for the in-place form */
} ScaledProductInfo;

static const ScaledProductInfo product_addmv =
  { "addmv", "input mat vec | * beta alpha", cr_addmv, CR_OP_ADDMV };
static const ScaledProductInfo product_addr =
  { "addr", "input vec1 vec2 | * beta alpha", cr_addr, CR_OP_ADDR };
static const ScaledProductInfo product_baddbmm =
  { "baddbmm", "input batch1 batch2 | * beta alpha", cr_baddbmm, CR_OP_BADDBMM };
static const ScaledProductInfo product_addbmm =
  { "addbmm", "input batch1 batch2 | * beta alpha", cr_addbmm, CR_OP_ADDBMM };
/* addmm's out-of-place form is native_addmm (cr-torch-math.c). */
static const ScaledProductInfo product_addmm =
  { "addmm", "input mat1 mat2 | * beta alpha", cr_addmm_scaled, CR_OP_ADDMM };

/* beta * input + alpha * (a product): one node whose _saved_beta and
 * _saved_alpha show the numbers as the script wrote them. */
NATIVE (native_scaled_product)
{
  const ScaledProductInfo *info = data;
  double beta = 1.0, alpha = 1.0;
  PARSE (info->name, info->spec);
  TENSOR_ARG (self_tensor, 0);
  TENSOR_ARG (left, 1);
  TENSOR_ARG (right, 2);

  if ((cr_torch_args_has (&a, 3) && !cr_torch_args_double (&a, 3, 1.0, &beta, error))
      || (cr_torch_args_has (&a, 4) && !cr_torch_args_double (&a, 4, 1.0, &alpha, error)))
    return NULL;
  CrTensor *out = info->func (self_tensor, left, right, beta, alpha, error);
  cr_torch_mark_float_scalar (out, &a, 3, 0);   /* _saved_beta */
  cr_torch_mark_float_scalar (out, &a, 4, 1);   /* _saved_alpha */
  return cr_torch_wrap (out);
}

/* self.addmv_(mat, vec, *, beta=1, alpha=1) and the others: self, its
 * history extended by the op's node. */
NATIVE (native_scaled_product_)
{
  const ScaledProductInfo *info = data;
  double beta = 1.0, alpha = 1.0;
  g_autofree char *name = g_strconcat (info->name, "_", NULL);
  PARSE (name, info->spec);
  TENSOR_ARG (self_tensor, 0);
  TENSOR_ARG (left, 1);
  TENSOR_ARG (right, 2);

  if ((cr_torch_args_has (&a, 3) && !cr_torch_args_double (&a, 3, 1.0, &beta, error))
      || (cr_torch_args_has (&a, 4) && !cr_torch_args_double (&a, 4, 1.0, &alpha, error))
      || !cr_scaled_product_ (info->op, info->func, self_tensor, left, right, beta, alpha, error))
    return NULL;
  cr_torch_mark_float_scalar (self_tensor, &a, 3, 0);   /* _saved_beta */
  cr_torch_mark_float_scalar (self_tensor, &a, 4, 1);   /* _saved_alpha */
  return cr_value_ref (a.values[0]);
}

/* torch.cross(input, other, dim=None): without dim, the input's first dim
 * of size 3. */
NATIVE (native_cross)
{
  gint64 dim = -1;
  PARSE ("cross", "input other | dim");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (cr_torch_args_has (&a, 2) && !cr_torch_args_int (&a, 2, -1, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_cross (x, y, cr_torch_args_has (&a, 2), (int) dim, error));
}

/* torch.linalg.cross(input, other, *, dim=-1) */
NATIVE (native_linalg_cross)
{
  gint64 dim = -1;
  PARSE ("linalg_cross", "input other | * dim");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_args_int (&a, 2, -1, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_linalg_cross (x, y, (int) dim, error));
}

/* One of tensordot's dims lists: an int or a list/tuple of ints. */
static gboolean
read_dims_list (CrValue    *v,
                gint64     *out,
                int        *n,
                GError    **error)
{
  if (cr_torch_value_is_int (v, &out[0]))
    {
      *n = 1;
      return TRUE;
    }
  if (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE)
    {
      GPtrArray *items = v->u.seq.items;

      *n = (int) MIN (items->len, CR_MAX_DIMS + 1);
      for (int i = 0; i < *n; i++)
        if (!cr_torch_value_is_int (items->pdata[i], &out[i]))
          break;
        else if (i == *n - 1)
          return TRUE;
      if (*n == 0)
        return TRUE;
    }
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "tensordot(): argument 'dims_self' must be tuple of ints, not %s",
               cr_torch_type_name (v));
  return FALSE;
}

/* torch.tensordot(a, b, dims=2): dims an int n (a's last n dims against
 * b's first n) or a pair of dim lists, as torch/functional.py reads it. */
NATIVE (native_tensordot)
{
  gint64 dims_a[CR_MAX_DIMS + 1], dims_b[CR_MAX_DIMS + 1], count = 2;
  int n_a = 0, n_b = 0;
  PARSE ("tensordot", "a b | dims out");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);
  CrValue *dims = cr_torch_args_has (&a, 2) ? a.values[2] : NULL;

  if (cr_torch_args_has (&a, 3))
    {
      cr_torch_args_type_error (&a, 3, "None", error);
      return NULL;
    }
  if (dims == NULL || cr_torch_value_is_int (dims, &count))
    {
      if (count < 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "tensordot expects dims >= 0, but got dims=%" G_GINT64_FORMAT, count);
          return NULL;
        }
      if (count > CR_MAX_DIMS)
        count = CR_MAX_DIMS + 1;   /* more dims than any tensor: fails as PyTorch's */
      for (gint64 i = 0; i < count; i++)
        {
          dims_a[i] = i - count;
          dims_b[i] = i;
        }
      n_a = n_b = (int) count;
    }
  else if ((dims->kind == CR_VALUE_LIST || dims->kind == CR_VALUE_TUPLE)
           && dims->u.seq.items->len == 2)
    {
      if (!read_dims_list (dims->u.seq.items->pdata[0], dims_a, &n_a, error)
          || !read_dims_list (dims->u.seq.items->pdata[1], dims_b, &n_b, error))
        return NULL;
    }
  else
    {
      g_autofree char *text = cr_value_str (interp, dims, error);
      if (text == NULL)
        return NULL;
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensordot expects dims to be int or Tuple[List[int], List[int]] or "
                   "List[List[int]] containing two lists, but got dims=%s", text);
      return NULL;
    }
  if (n_a != n_b)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "both dimension lists should have same length");
      return NULL;
    }
  return cr_torch_wrap (cr_tensordot (x, y, dims_a, dims_b, n_a, error));
}

/* ---- torch.linalg's norms ------------------------------------------------ */

/* An ord argument: a number (*is_int when the script gave an int) or, when
 * strings are allowed, "fro" (*fro). */
static gboolean
read_ord (const CrTorchArgs *a,
          guint              i,
          double            *ord,
          gboolean          *is_int,
          gboolean          *fro,
          GError           **error)
{
  CrValue *v = a->values[i];
  gint64 as_int;

  if (fro != NULL)
    *fro = FALSE;
  *is_int = cr_torch_value_is_int (v, &as_int);
  if (*is_int)
    {
      *ord = (double) as_int;
      return TRUE;
    }
  if (cr_torch_value_is_number (v, ord))
    return TRUE;
  if (fro != NULL && v->kind == CR_VALUE_STR && g_str_equal (v->u.str.data, "fro"))
    {
      *fro = TRUE;
      *ord = 2.0;
      *is_int = TRUE;
      return TRUE;
    }
  if (v->kind == CR_VALUE_STR && g_str_equal (v->u.str.data, "nuc"))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "torch.linalg.norm(ord='nuc') is not supported by Chainrule yet");
      return FALSE;
    }
  cr_torch_args_type_error (a, i, "Number", error);
  return FALSE;
}

/* The vector norm with _saved_ord shown as the script gave it. */
static CrValue *
vector_norm_value (CrTensor   *x,
                   double      ord,
                   gboolean    ord_is_int,
                   const int  *dims,
                   int         n_dims,
                   gboolean    keepdim,
                   GError    **error)
{
  CrTensor *out = cr_linalg_vector_norm (x, ord, dims, n_dims, keepdim, error);

  if (out != NULL && out->grad_fn != NULL && ord_is_int)
    cr_node_args (out->grad_fn)->scalar_int_mask |= 1u;
  return cr_torch_wrap (out);
}

/* linalg.matrix_norm for ord 1, -1, inf, -inf: the vector 1-norm down one
 * dim, then amax/amin down the other (PyTorch 1.13's composite); "fro" and
 * None: the vector 2-norm over both dims. */
static CrValue *
matrix_norm_value (CrTensor   *x,
                   double      ord,
                   gboolean    fro,
                   const int  *given_dims,
                   gboolean    keepdim,
                   GError    **error)
{
  int dims[2] = { given_dims[0], given_dims[1] };
  double magnitude = fabs (ord);
  g_autoptr(CrTensor) sums = NULL;

  for (int i = 0; i < 2; i++)
    {
      if (dims[i] < -x->ndim || dims[i] >= x->ndim)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                       "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                       -x->ndim, x->ndim - 1, dims[i]);
          return NULL;
        }
      if (dims[i] < 0)
        dims[i] += x->ndim;
    }
  if (fro)
    return vector_norm_value (x, 2.0, TRUE, dims, 2, keepdim, error);
  if (magnitude == 2.0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "torch.linalg.matrix_norm(ord=2) is not supported by Chainrule yet");
      return NULL;
    }
  if (magnitude != 1.0 && !isinf (magnitude))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.matrix_norm: Order %g not supported.", ord);
      return NULL;
    }
  if (isinf (magnitude))
    {
      int swap = dims[0];
      dims[0] = dims[1];
      dims[1] = swap;
    }
  if (!keepdim && dims[0] < dims[1])
    dims[1]--;
  sums = cr_linalg_vector_norm (x, 1.0, &dims[0], 1, keepdim, error);
  if (sums == NULL)
    return NULL;
  return cr_torch_wrap (ord > 0 ? cr_amax (sums, &dims[1], 1, keepdim, error)
                                : cr_amin (sums, &dims[1], 1, keepdim, error));
}

/* torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None) */
NATIVE (native_vector_norm)
{
  double ord = 2.0;
  gboolean ord_is_int = TRUE;
  int dims[CR_MAX_DIMS], n_dims;
  gboolean keepdim;
  PARSE ("linalg_vector_norm", "x | ord dim keepdim * dtype");
  TENSOR_ARG (x, 0);

  if ((cr_torch_args_has (&a, 1) && !read_ord (&a, 1, &ord, &ord_is_int, NULL, error))
      || !cr_torch_args_dims (&a, 2, dims, &n_dims, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  return vector_norm_value (x, ord, ord_is_int, dims, n_dims, keepdim, error);
}

/* torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False) */
NATIVE (native_matrix_norm)
{
  double ord = 2.0;
  gboolean ord_is_int, fro = TRUE;
  int dims[CR_MAX_DIMS] = { -2, -1 }, n_dims = 2;
  gboolean keepdim;
  PARSE ("linalg_matrix_norm", "A | ord dim keepdim * dtype");
  TENSOR_ARG (x, 0);

  if ((cr_torch_args_has (&a, 1) && !read_ord (&a, 1, &ord, &ord_is_int, &fro, error))
      || (cr_torch_args_has (&a, 2) && !cr_torch_args_dims (&a, 2, dims, &n_dims, error))
      || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  if (n_dims != 2 || x->ndim < 2)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
      return NULL;
    }
  return matrix_norm_value (x, ord, fro, dims, keepdim, error);
}

/* torch.linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
 * PyTorch 1.13's choice between the vector and the matrix norm. */
NATIVE (native_linalg_norm)
{
  double ord = 2.0;
  gboolean ord_is_int = FALSE, fro = FALSE, has_ord;
  int dims[CR_MAX_DIMS], n_dims;
  gboolean keepdim;
  PARSE ("linalg_norm", "A | ord dim keepdim * dtype");
  TENSOR_ARG (x, 0);

  has_ord = cr_torch_args_has (&a, 1);
  if ((has_ord && !read_ord (&a, 1, &ord, &ord_is_int, &fro, error))
      || !cr_torch_args_dims (&a, 2, dims, &n_dims, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  if (n_dims > 0 && n_dims != 1 && n_dims != 2)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [%d, %d, %d%s]",
                   dims[0], dims[1], dims[2], n_dims > 3 ? ", ..." : "");
      return NULL;
    }
  if (n_dims == 0 && has_ord && x->ndim != 1 && x->ndim != 2)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                   "Got %dD.", x->ndim);
      return NULL;
    }
  if (has_ord && (n_dims == 2 || (n_dims == 0 && x->ndim == 2)))
    {
      if (n_dims == 0)
        {
          dims[0] = 0;
          dims[1] = 1;
        }
      return matrix_norm_value (x, ord, fro, dims, keepdim, error);
    }
  return vector_norm_value (x, ord, ord_is_int, dims, n_dims, keepdim, error);
}

/* torch.linalg.matmul(input, other): torch.matmul under linalg's name. */
NATIVE (native_linalg_matmul)
{
  PARSE ("linalg_matmul", "input other");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  return cr_torch_wrap (cr_matmul (x, y, error));
}

/* torch.linalg.inv(A) and linalg.det(A); torch.inverse, torch.det and the
 * Tensor methods (data: the name PyTorch's messages give). */
NATIVE (native_linalg_inv)
{
  PARSE (data != NULL ? (const char *) data : "linalg_inv", data != NULL ? "input" : "A");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_linalg_inv (x, error));
}

NATIVE (native_linalg_det)
{
  PARSE (data != NULL ? (const char *) data : "linalg_det", data != NULL ? "input" : "A");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_linalg_det (x, error));
}

/* torch.linalg.solve(A, B, *, left=True) */
NATIVE (native_linalg_solve)
{
  gboolean left;
  PARSE ("linalg_solve", "A B | * left");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_args_bool (&a, 2, TRUE, &left, error))
    return NULL;
  if (!left)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "torch.linalg.solve(left=False) is not supported by Chainrule yet");
      return NULL;
    }
  return cr_torch_wrap (cr_linalg_solve (x, y, error));
}

CrValue *
cr_torch_linalg_module_new (void)
{
  static const struct { const char *name; CrNativeFunc fn; } funcs[] = {
    { "cross", native_linalg_cross },
    { "vector_norm", native_vector_norm },
    { "matrix_norm", native_matrix_norm },
    { "norm", native_linalg_norm },
    { "matmul", native_linalg_matmul },
    { "inv", native_linalg_inv },
    { "det", native_linalg_det },
    { "solve", native_linalg_solve },
  };
  CrValue *m = cr_value_new_module ("torch.linalg");

  for (guint i = 0; i < G_N_ELEMENTS (funcs); i++)
    {
      g_autoptr(CrValue) fn = cr_value_new_native (funcs[i].name, funcs[i].fn, NULL, NULL);
      cr_value_set_member (m, funcs[i].name, fn);
    }
  cr_torch_install_missing_hook (m, "torch.linalg");
  return m;
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_products_funcs[] = {
  { "addmv", native_scaled_product, T | M, (gpointer) &product_addmv },
  { "addr", native_scaled_product, T | M, (gpointer) &product_addr },
  { "baddbmm", native_scaled_product, T | M, (gpointer) &product_baddbmm },
  { "addbmm", native_scaled_product, T | M, (gpointer) &product_addbmm },
  { "addmm_", native_scaled_product_, M, (gpointer) &product_addmm },
  { "addmv_", native_scaled_product_, M, (gpointer) &product_addmv },
  { "addr_", native_scaled_product_, M, (gpointer) &product_addr },
  { "baddbmm_", native_scaled_product_, M, (gpointer) &product_baddbmm },
  { "addbmm_", native_scaled_product_, M, (gpointer) &product_addbmm },
  { "cross", native_cross, T | M, NULL },
  { "tensordot", native_tensordot, T, NULL },
  { "inverse", native_linalg_inv, T | M, (gpointer) "inverse" },
  { "det", native_linalg_det, T | M, (gpointer) "det" },
};

const guint cr_torch_n_products_funcs = G_N_ELEMENTS (cr_torch_products_funcs);
