/* cr-ops-formula.c — the steps of the .def rows' backward formulas (see
 * cr-ops-formula.h). */
#include "cr-ops-private.h"
#include "cr-ops-formula.h"
#include "cr-ops-nnf.h"

#include "cr-error.h"
#include "cr-tensor.h"

void
cr_formula_init (CrFormula *f,
                 CrTensor  *grad)
{
  f->grad = grad;
  f->temps = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  f->err = NULL;
}

CrTensor *
cr_formula_end (CrFormula  *f,
                CrTensor   *result,
                const char *what,
                GError    **error)
{
  if (result != NULL)
    cr_tensor_ref (result);
  else if (f->err != NULL)
    g_propagate_error (error, g_steal_pointer (&f->err));
  else
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "%s's formula gave no tensor", what);
  g_clear_error (&f->err);
  g_clear_pointer (&f->temps, g_ptr_array_unref);
  return result;
}

CrTensor *
cr_formula_keep (CrFormula *f,
                 CrTensor  *t)
{
  if (t != NULL)
    g_ptr_array_add (f->temps, t);
  return t;
}

CrTensor *
cr_formula_tensors (CrFormula            *f,
                    CrFormulaTensorsFunc  fn,
                    CrTensor             *a,
                    CrTensor             *b)
{
  if (f->err != NULL || a == NULL || b == NULL)
    return NULL;
  return cr_formula_keep (f, fn (a, b, &f->err));
}

CrTensor *
cr_formula_binary (CrFormula *f,
                   CrOpId     op,
                   CrTensor  *a,
                   CrTensor  *b)
{
  if (f->err != NULL || a == NULL || b == NULL)
    return NULL;
  return cr_formula_keep (f, cr_binary (op, a, b, &f->err));
}

CrTensor *
cr_formula_unary (CrFormula *f,
                  CrOpId     op,
                  CrTensor  *a)
{
  if (f->err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (f, cr_unary (op, a, &f->err));
}

CrTensor *
cr_formula_number (CrFormula *f,
                   CrOpId     op,
                   CrTensor  *a,
                   double     n)
{
  if (f->err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (f, op == CR_OP_ADD ? cr_add_scalar (a, n, &f->err)
                                             : cr_binary_number (op, a, n, &f->err));
}

CrTensor *
cr_formula_pow_number (CrFormula *f,
                       CrTensor  *a,
                       double     n)
{
  if (f->err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (f, cr_pow_scalar (a, n, &f->err));
}

CrTensor *
cr_formula_kernel (CrFormula  *f,
                   CrBinaryOp  op,
                   CrTensor   *a,
                   CrTensor   *b)
{
  if (f->err != NULL || a == NULL || b == NULL)
    return NULL;
  return cr_formula_keep (f, cr_kernel_binary (op, a, b, &f->err));
}

CrTensor *
cr_formula_kernel_number (CrFormula  *f,
                          CrBinaryOp  op,
                          CrTensor   *a,
                          double      n)
{
  g_autoptr(CrTensor) number = NULL;

  if (f->err != NULL || a == NULL)
    return NULL;
  number = cr_ops_wrap_number (n, FALSE);
  return cr_formula_keep (f, cr_kernel_binary (op, a, number, &f->err));
}

CrTensor *
cr_formula_kernel_unary (CrFormula *f,
                         CrUnaryOp  op,
                         CrTensor  *a)
{
  if (f->err != NULL || a == NULL)
    return NULL;
  return cr_formula_keep (f, cr_kernel_unary (op, a, &f->err));
}

CrTensor *
cr_formula_where (CrFormula *f,
                  CrTensor  *mask,
                  CrTensor  *a,
                  CrTensor  *b)
{
  if (f->err != NULL || mask == NULL || a == NULL || b == NULL)
    return NULL;
  return cr_formula_keep (f, cr_where (mask, a, b, &f->err));
}

CrTensor *
cr_formula_zeros (CrFormula *f)
{
  CrTensor *g = f->grad;

  if (f->err != NULL)
    return NULL;
  return cr_formula_keep (f, cr_tensor_new_zeros (g->shape, g->ndim, g->dtype, g->device, &f->err));
}

CrTensor *
cr_formula_fail (CrFormula  *f,
                 const char *message)
{
  if (f->err == NULL)
    g_set_error_literal (&f->err, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, message);
  return NULL;
}
