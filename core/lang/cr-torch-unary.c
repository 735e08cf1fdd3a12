/* cr-torch-unary.c — the script names of every differentiable function of one
 * tensor, from the bind and params columns of its row in
 * core/cr-unary-ops.def: torch.x(t, ...), t.x(...), t.x_(...), torch.x_(t, ...),
 * F.x(t, ..., inplace=False), F.x_(t, ...), and the CR_UNARY_ALIAS names
 * whose parameters are fixed (F.relu6, F.selu). A row's parameters are the
 * arguments after the tensor, named and defaulted as its params column says. */
#include "cr-torch-native.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char   *name;        /* for argument errors: "exp" */
  const char   *inplace;     /* "exp_" */
  CrOpId        op;
  gboolean      fixed;       /* an alias: params below, none from the script */
  CrUnaryParams params;
} UnaryBinding;

#define CR_UNARY_OP(ID, name, ...) [CR_OP_##ID] = { name, name "_", CR_OP_##ID, FALSE, { { 0 } } },
static const UnaryBinding bindings[CR_OP_COUNT] = {
#include "cr-unary-ops.def"
};


/* The spec of b's arguments after input: the script's parameters of its row,
 * those without a default first, then with_inplace's "inplace"; their count
 * in *out_n. Names point into the row's strings. */
static void
params_spec (const UnaryBinding *b,
             gboolean            with_inplace,
             GString            *spec,
             guint              *out_n)
{
  const char *name;
  double fallback;
  gboolean in_script;
  guint n = 0;

  g_string_assign (spec, "input");
  for (int pass = 0; pass < 2 && !b->fixed; pass++)
    {
      if (pass == 1)
        g_string_append (spec, " |");
      for (guint i = 0; cr_ops_unary_param (b->op, i, &name, &fallback, NULL, &in_script); i++)
        if (in_script && (pass == 0) == isnan (fallback))
          {
            g_string_append_printf (spec, " %s", name);
            n++;
          }
    }
  if (b->fixed)
    g_string_append (spec, " |");
  if (with_inplace)
    g_string_append (spec, " inplace");
  *out_n = n;
}

/* The parameters of b from the parsed arguments a (1.. in spec order):
 * given, else the row's defaults; a Python int is remembered as one. */
static gboolean
params_from_args (const UnaryBinding  *b,
                  const CrTorchArgs   *a,
                  CrUnaryParams       *out,
                  GError             **error)
{
  const char *name;
  double fallback;
  gboolean int_default, in_script;
  guint k = 1;

  if (b->fixed)
    {
      *out = b->params;
      return TRUE;
    }
  memset (out, 0, sizeof *out);
  /* The required ones came first in the spec. */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; cr_ops_unary_param (b->op, i, &name, &fallback, &int_default, &in_script);
         i++)
      {
        gint64 as_int;

        if ((pass == 0) != (in_script && isnan (fallback)))
          continue;
        if (!in_script)
          {
            out->value[i] = fallback;
            out->int_mask |= (guint) int_default << i;
            continue;
          }
        if (!cr_torch_args_double (a, k, fallback, &out->value[i], error))
          return FALSE;
        if (cr_torch_args_has (a, k) ? cr_torch_value_is_int (a->values[k], &as_int) : int_default)
          out->int_mask |= 1u << i;
        k++;
      }
  return TRUE;
}

/* One call: torch.x(input, ...) / x.x(...), F.x(input, ..., inplace=False)
 * when with_inplace, or in place (x.x_(...), torch.x_, F.x_). */
static CrValue *
call_unary (const UnaryBinding  *b,
            gboolean             inplace_form,
            gboolean             with_inplace,
            CrValue             *self,
            CrValue *const      *args,
            guint                n_args,
            const CrKwarg       *kwargs,
            guint                n_kwargs,
            GError             **error)
{
  g_autoptr(GString) spec = g_string_new (NULL);
  CrUnaryParams params;
  gboolean inplace = inplace_form;
  CrTorchArgs a;
  CrTensor *x;
  guint n;

  params_spec (b, with_inplace, spec, &n);
  if (!cr_torch_args_parse (&a, inplace_form ? b->inplace : b->name, spec->str, self, args,
                            n_args, kwargs, n_kwargs, error)
      || (x = cr_torch_args_tensor (&a, 0, error)) == NULL
      || !params_from_args (b, &a, &params, error)
      || (with_inplace && !cr_torch_args_bool (&a, n + 1, FALSE, &inplace, error)))
    return NULL;
  if (!inplace)
    return cr_torch_wrap (cr_unary_p (b->op, x, &params, error));
  if (!cr_inplace_unary_p (b->op, x, &params, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

NATIVE (native_unary)
{
  return call_unary (data, FALSE, FALSE, self, args, n_args, kwargs, n_kwargs, error);
}

/* x.exp_() and torch.exp_(x): x itself, its history extended. */
NATIVE (native_unary_)
{
  return call_unary (data, TRUE, FALSE, self, args, n_args, kwargs, n_kwargs, error);
}

/* F.x(input, ..., inplace=False) */
NATIVE (native_f_unary)
{
  return call_unary (data, FALSE, TRUE, self, args, n_args, kwargs, n_kwargs, error);
}

/* F.gelu(input, *, approximate='none'): the row's P0, 0 'none' or 1 'tanh'
 * (-1 for another string, which the row's check refuses). */
NATIVE (native_gelu)
{
  CrUnaryParams params = { { 0 }, 0 };
  PARSE ("gelu", "input | * approximate");
  TENSOR_ARG (x, 0);

  if (cr_torch_args_has (&a, 1))
    {
      CrValue *v = a.values[1];

      if (v->kind != CR_VALUE_STR)
        {
          cr_torch_args_type_error (&a, 1, "str", error);
          return NULL;
        }
      params.value[0] = strcmp (v->u.str.data, "none") == 0   ? 0
                        : strcmp (v->u.str.data, "tanh") == 0 ? 1
                                                              : -1;
    }
  return cr_torch_wrap (cr_unary_p (CR_OP_GELU, x, &params, error));
}

/* The bind column's words, as sets of CrTorchWhere. */
enum {
  TORCH = 1 << 0, METHOD = 1 << 1, INPLACE = 1 << 2, TORCH_INPLACE = 1 << 3,
  FUNCTIONAL = 1 << 4,            /* F.x(input, ..., inplace=False) */
  FUNCTIONAL_PURE = 1 << 5,       /* F.x(input, ...) */
  FUNCTIONAL_INPLACE = 1 << 6,    /* F.x_(input, ...) */
  EVERYWHERE = TORCH | METHOD | INPLACE | TORCH_INPLACE,
};
#define WHERE_PLAIN(bind)   ((((bind) & TORCH) ? CR_TORCH_IN_TORCH : 0)                \
                             | (((bind) & METHOD) ? CR_TORCH_IN_TENSOR : 0)            \
                             | (((bind) & FUNCTIONAL_PURE) ? CR_TORCH_IN_F : 0))
#define WHERE_INPLACE(bind) ((((bind) & TORCH_INPLACE) ? CR_TORCH_IN_TORCH : 0)        \
                             | (((bind) & INPLACE) ? CR_TORCH_IN_TENSOR : 0)           \
                             | (((bind) & FUNCTIONAL_INPLACE) ? CR_TORCH_IN_F : 0))
#define WHERE_F(bind)       (((bind) & FUNCTIONAL) ? CR_TORCH_IN_F : 0)

/* Four entries a row; those of names a row does not have are in no module
 * (where 0) and never looked at. */
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr, params)                                     \
  { name, native_unary, WHERE_PLAIN (bind), (gpointer) &bindings[CR_OP_##ID] },            \
  { (alias) != NULL ? (alias) : name, native_unary, (alias) != NULL ? WHERE_PLAIN (bind) : 0, \
    (gpointer) &bindings[CR_OP_##ID] },                                                   \
  { name "_", native_unary_, WHERE_INPLACE (bind), (gpointer) &bindings[CR_OP_##ID] },     \
  { name, native_f_unary, WHERE_F (bind), (gpointer) &bindings[CR_OP_##ID] },
/* An alias's binding: a compound literal (static at file scope). */
#define IS_INT(value) _Generic ((value), int: 1u, default: 0u)
#define ALIAS_BINDING(OF, name, p0, p1, p2)                                                \
  (gpointer) &(const UnaryBinding) {                                                       \
    name, name "_", CR_OP_##OF, TRUE,                                                      \
    { { p0, p1, p2 }, IS_INT (p0) | IS_INT (p1) << 1 | IS_INT (p2) << 2 }                  \
  }
#define CR_UNARY_ALIAS(OF, name, bind, p0, p1, p2)                                         \
  { name, native_unary, WHERE_PLAIN (bind), ALIAS_BINDING (OF, name, p0, p1, p2) },        \
  { name "_", native_unary_, WHERE_INPLACE (bind), ALIAS_BINDING (OF, name, p0, p1, p2) }, \
  { name, native_f_unary, WHERE_F (bind), ALIAS_BINDING (OF, name, p0, p1, p2) },
const CrTorchFunc cr_torch_unary_funcs[] = {
#include "cr-unary-ops.def"
  { "gelu", native_gelu, CR_TORCH_IN_F, NULL },
};
#undef IS_INT
#undef ALIAS_BINDING

const guint cr_torch_n_unary_funcs = G_N_ELEMENTS (cr_torch_unary_funcs);
