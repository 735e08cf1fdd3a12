/* cr-torch-binary.c — the script names of the functions of two tensors, from
 * the bind column of their rows in core/cr-binary-ops.def: torch.x(a, b),
 * a.x(b) and a.x_(b), with PyTorch's argument rules (a Python number for b
 * only where the row says NUMBER, and then PyTorch's .Scalar op). The rows
 * without a gradient (comparisons, logic, floor_divide) call the kernel. */
#include "cr-torch-native.h"

typedef struct {
  const char *name;       /* for argument errors: "atan2" */
  const char *inplace;    /* "atan2_" */
  CrOpId      op;         /* CR_BINARY_OP rows; CR_OP_COUNT for a kernel row */
  CrBinaryOp  kernel;
  guint       bind;
} BinaryBinding;

/* The bind column's words. */
enum {
  TORCH = 1 << 0, METHOD = 1 << 1, INPLACE = 1 << 2, NUMBER = 1 << 3, NUMBER_FIRST = 1 << 4,
};

#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, grad_a, grad_b, text, bind)                                      \
  [CR_BINARY_##ID] = { name, name "_", CR_OP_##ID, CR_BINARY_##ID, bind },
#define CR_BINARY_KERNEL(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar,      \
                         symbol, saves, grad_a, grad_b, text, bind)                          \
  [CR_BINARY_##ID] = { name, name "_", CR_OP_COUNT, CR_BINARY_##ID, bind },
static const BinaryBinding bindings[CR_BINARY_COUNT] = {
#include "cr-binary-ops.def"
};

/* The operand at i: a tensor (borrowed into *out as a new ref), or a Python
 * number as a wrapped 0-d tensor where allowed; else PyTorch's TypeError. */
static gboolean
operand (CrTorchArgs  *a,
         guint         i,
         gboolean      number_ok,
         CrTensor    **out,
         gboolean     *is_number,
         GError      **error)
{
  CrValue *v = a->values[i];

  *is_number = v != NULL && v->kind != CR_VALUE_TENSOR && cr_value_is_number (v);
  if (*is_number && number_ok)
    *out = cr_value_to_tensor (v, error);
  else
    {
      CrTensor *t = cr_torch_args_tensor (a, i, error);

      *out = t != NULL ? cr_tensor_ref (t) : NULL;
    }
  return *out != NULL;
}

NATIVE (native_binary_row)
{
  const BinaryBinding *b = data;
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) other = NULL;
  gboolean x_number, other_number;
  PARSE (b->name, "input other");

  if (!operand (&a, 0, (b->bind & NUMBER_FIRST) != 0, &x, &x_number, error)
      || !operand (&a, 1, (b->bind & NUMBER) != 0, &other, &other_number, error))
    return NULL;
  if (x_number && other_number)
    {
      cr_torch_args_type_error (&a, 0, "Tensor", error);
      return NULL;
    }
  if (b->op == CR_OP_COUNT)
    return cr_torch_wrap (b->kernel == CR_BINARY_FLOOR_DIVIDE
                          ? cr_binary_no_derivative (b->kernel, x, other, error)
                          : cr_binary_nograd (b->kernel, x, other, error));
  if (other_number)
    return cr_torch_wrap (cr_binary_scalar (b->op, x, other, error));
  /* torch.remainder(5, x) (remainder.Scalar_Tensor) has no derivative in
   * PyTorch: NotImplemented, as 5 % x. */
  if (x_number && b->kernel == CR_BINARY_REMAINDER)
    return cr_torch_wrap (cr_binary_no_derivative (b->kernel, x, other, error));
  /* torch.xlogy(2, y) is xlogy.Scalar_Self: a node of its own. */
  if (x_number && b->kernel == CR_BINARY_XLOGY)
    {
      double number = 0;

      cr_torch_value_is_number (a.values[0], &number);
      return cr_torch_wrap (cr_xlogy_number_self (number, x->dtype == CR_DTYPE_INT64, other,
                                                  error));
    }
  return cr_torch_wrap (cr_binary (b->op, x, other, error));
}

/* a.x_(b): a itself, its history extended. */
NATIVE (native_binary_row_)
{
  const BinaryBinding *b = data;
  g_autoptr(CrTensor) other = NULL;
  gboolean other_number;
  PARSE (b->inplace, "input other");
  TENSOR_ARG (x, 0);

  if (!operand (&a, 1, (b->bind & NUMBER) != 0, &other, &other_number, error))
    return NULL;
  if (b->op != CR_OP_COUNT)
    {
      if (!cr_inplace_binary_row (b->op, x, other, other_number, error))
        return NULL;
    }
  else
    {
      if (!cr_autograd_check_inplace_rules (x, error)
          || !cr_kernel_binary_into (b->kernel, x, x, other, error))
        return NULL;
      cr_tensor_bump_version (x);
    }
  return cr_value_ref (a.values[0]);
}

#define WHERE_PLAIN(bind)   ((((bind) & TORCH) ? CR_TORCH_IN_TORCH : 0)                \
                             | (((bind) & METHOD) ? CR_TORCH_IN_TENSOR : 0))
#define WHERE_INPLACE(bind) (((bind) & INPLACE) ? CR_TORCH_IN_TENSOR : 0)

/* Three entries a row; those of names a row does not have are in no module
 * (where 0) and never looked at. */
#define CR_BINARY_OP(ID, name, alias, rule, errors, cpu, F, D, I, B, grad_fn, scalar, symbol, \
                     saves, grad_a, grad_b, text, bind)                                      \
  { name, native_binary_row, WHERE_PLAIN (bind), (gpointer) &bindings[CR_BINARY_##ID] },      \
  { (alias) != NULL ? (alias) : name, native_binary_row, (alias) != NULL ? WHERE_PLAIN (bind) : 0, \
    (gpointer) &bindings[CR_BINARY_##ID] },                                                  \
  { name "_", native_binary_row_, WHERE_INPLACE (bind), (gpointer) &bindings[CR_BINARY_##ID] },
#define CR_BINARY_KERNEL CR_BINARY_OP
const CrTorchFunc cr_torch_binary_funcs[] = {
#include "cr-binary-ops.def"
};

const guint cr_torch_n_binary_funcs = G_N_ELEMENTS (cr_torch_binary_funcs);
