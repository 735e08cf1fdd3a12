/* cr-torch-unary.c — the script names of every differentiable function of one
 * tensor, from the bind column of its row in core/cr-unary-ops.def:
 * torch.x(t), t.x(), t.x_(), torch.x_(t) and F.x(t, inplace=False). */
#include "cr-torch-native.h"

typedef struct {
  const char *name;       /* for argument errors: "exp" */
  const char *inplace;    /* "exp_" */
  CrOpId      op;
} UnaryBinding;

#define CR_UNARY_OP(ID, name, ...) [CR_OP_##ID] = { name, name "_", CR_OP_##ID },
static const UnaryBinding bindings[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};

NATIVE (native_unary)
{
  const UnaryBinding *b = data;
  PARSE (b->name, "input");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_unary (b->op, x, error));
}

/* x.exp_() and torch.exp_(x): x itself, its history extended. */
NATIVE (native_unary_)
{
  const UnaryBinding *b = data;
  PARSE (b->inplace, "input");
  TENSOR_ARG (x, 0);

  if (!cr_inplace_unary (b->op, x, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

/* F.x(input, inplace=False) */
NATIVE (native_f_unary)
{
  const UnaryBinding *b = data;
  gboolean inplace;
  PARSE (b->name, "input | inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_bool (&a, 1, FALSE, &inplace, error))
    return NULL;
  if (!inplace)
    return cr_torch_wrap (cr_unary (b->op, x, error));
  if (!cr_inplace_unary (b->op, x, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

/* The bind column's words, as sets of CrTorchWhere. */
enum {
  TORCH = 1 << 0, METHOD = 1 << 1, INPLACE = 1 << 2, TORCH_INPLACE = 1 << 3,
  FUNCTIONAL = 1 << 4,
  EVERYWHERE = TORCH | METHOD | INPLACE | TORCH_INPLACE,
};
#define WHERE_PLAIN(bind)   ((((bind) & TORCH) ? CR_TORCH_IN_TORCH : 0)                \
                             | (((bind) & METHOD) ? CR_TORCH_IN_TENSOR : 0))
#define WHERE_INPLACE(bind) ((((bind) & TORCH_INPLACE) ? CR_TORCH_IN_TORCH : 0)        \
                             | (((bind) & INPLACE) ? CR_TORCH_IN_TENSOR : 0))
#define WHERE_F(bind)       (((bind) & FUNCTIONAL) ? CR_TORCH_IN_F : 0)

/* Four entries a row; those of names a row does not have are in no module
 * (where 0) and never looked at. */
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr)                                             \
  { name, native_unary, WHERE_PLAIN (bind), (gpointer) &bindings[CR_OP_##ID] },            \
  { (alias) != NULL ? (alias) : name, native_unary, (alias) != NULL ? WHERE_PLAIN (bind) : 0, \
    (gpointer) &bindings[CR_OP_##ID] },                                                   \
  { name "_", native_unary_, WHERE_INPLACE (bind), (gpointer) &bindings[CR_OP_##ID] },     \
  { name, native_f_unary, WHERE_F (bind), (gpointer) &bindings[CR_OP_##ID] },
const CrTorchFunc cr_torch_unary_funcs[] = {
#include "cr-unary-ops.def"
};

const guint cr_torch_n_unary_funcs = G_N_ELEMENTS (cr_torch_unary_funcs);
