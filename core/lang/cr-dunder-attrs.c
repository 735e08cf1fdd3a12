/* cr-dunder-attrs.c — operator methods read as attributes: x.__add__(y),
 * t.__getitem__(0), (2).__mul__(3), obj.__repr__(). The interpreter runs
 * `x + y` without looking such a method up, so builtin values (int, float,
 * str, list, tuple, dict, set), tensors and instances that do not define
 * one get it here: a native bound to the receiver that runs the operator
 * the name stands for (cr_binary_op, cr_compare_op, len(), ...), and so
 * gives what the operator gives, grad_fn included.
 *
 * Python's NotImplemented is kept where a script can see it: int.__add__
 * of a float, str.__eq__ of an int and object.__eq__ of another object
 * return it rather than computing. */
#include "cr-interp-private.h"
#include "cr-dunder-attrs.h"

#include <string.h>

#include "cr-native.h"

/* Receiver kinds, as bits, that have a given method. */
enum {
  R_TENSOR = 1 << 0,
  R_INT = 1 << 1,       /* int and bool */
  R_FLOAT = 1 << 2,
  R_STR = 1 << 3,
  R_LIST = 1 << 4,
  R_TUPLE = 1 << 5,
  R_DICT = 1 << 6,
  R_SET = 1 << 7,
  R_OBJECT = 1 << 8,    /* an instance of a script's class */
};

#define R_NUMBER (R_INT | R_FLOAT)
#define R_SEQ (R_STR | R_LIST | R_TUPLE)
#define R_CONTAINER (R_SEQ | R_DICT | R_SET)
#define R_ALL (R_TENSOR | R_NUMBER | R_CONTAINER | R_OBJECT)

typedef enum {
  D_BINARY,      /* a op arg */
  D_REFLECTED,   /* arg op a */
  D_INPLACE,     /* a op= arg, a returned */
  D_UNARY,       /* op a */
  D_COMPARE,     /* a cmp arg */
  D_CONTAINS,    /* arg in a */
  D_GETITEM,
  D_SETITEM,
  D_DELITEM,
  D_INDEX,       /* operator.index(a) */
  D_BUILTIN,     /* builtin(a) or builtin(a, arg): len, repr, str, hash, ... */
} DunderKind;

typedef struct {
  const char *name;
  DunderKind  kind;
  int         op;          /* CrBinOp, CrUnOp or CrCmpOp */
  const char *builtin;     /* D_BUILTIN: the builtin's name */
  guint       n_args;      /* arguments after the receiver */
  guint       receivers;   /* R_* bits */
} Dunder;

#define BIN(n, o, r) { "__" n "__", D_BINARY, o, NULL, 1, r }, \
                     { "__r" n "__", D_REFLECTED, o, NULL, 1, r }, \
                     { "__i" n "__", D_INPLACE, o, NULL, 1, R_TENSOR }
#define CMP(n, o, r) { "__" n "__", D_COMPARE, o, NULL, 1, r }
#define CALL(n, b, k, r) { "__" n "__", D_BUILTIN, 0, b, k, r }

static const Dunder dunders[] = {
  BIN ("add", CR_BINOP_ADD, R_TENSOR | R_NUMBER | R_SEQ),
  BIN ("sub", CR_BINOP_SUB, R_TENSOR | R_NUMBER | R_SET),
  BIN ("mul", CR_BINOP_MUL, R_TENSOR | R_NUMBER | R_SEQ),
  BIN ("matmul", CR_BINOP_MATMUL, R_TENSOR),
  BIN ("truediv", CR_BINOP_DIV, R_TENSOR | R_NUMBER),
  BIN ("floordiv", CR_BINOP_FLOORDIV, R_TENSOR | R_NUMBER),
  BIN ("mod", CR_BINOP_MOD, R_TENSOR | R_NUMBER | R_STR),
  BIN ("pow", CR_BINOP_POW, R_TENSOR | R_NUMBER),
  BIN ("lshift", CR_BINOP_LSHIFT, R_TENSOR | R_INT),
  BIN ("rshift", CR_BINOP_RSHIFT, R_TENSOR | R_INT),
  BIN ("and", CR_BINOP_BITAND, R_TENSOR | R_INT | R_SET),
  BIN ("or", CR_BINOP_BITOR, R_TENSOR | R_INT | R_SET | R_DICT),
  BIN ("xor", CR_BINOP_BITXOR, R_TENSOR | R_INT | R_SET),
  /* The in-place forms other than a tensor's. */
  { "__iadd__", D_INPLACE, CR_BINOP_ADD, NULL, 1, R_LIST },
  { "__imul__", D_INPLACE, CR_BINOP_MUL, NULL, 1, R_LIST },
  { "__ior__", D_INPLACE, CR_BINOP_BITOR, NULL, 1, R_DICT | R_SET },
  { "__neg__", D_UNARY, CR_UNOP_NEG, NULL, 0, R_TENSOR | R_NUMBER },
  { "__pos__", D_UNARY, CR_UNOP_POS, NULL, 0, R_TENSOR | R_NUMBER },
  { "__invert__", D_UNARY, CR_UNOP_INVERT, NULL, 0, R_TENSOR | R_INT },
  CMP ("eq", CR_CMP_EQ, R_ALL),
  CMP ("ne", CR_CMP_NE, R_ALL),
  CMP ("lt", CR_CMP_LT, R_ALL),
  CMP ("le", CR_CMP_LE, R_ALL),
  CMP ("gt", CR_CMP_GT, R_ALL),
  CMP ("ge", CR_CMP_GE, R_ALL),
  { "__contains__", D_CONTAINS, 0, NULL, 1, R_TENSOR | R_CONTAINER },
  { "__getitem__", D_GETITEM, 0, NULL, 1, R_TENSOR | R_SEQ | R_DICT },
  { "__setitem__", D_SETITEM, 0, NULL, 2, R_TENSOR | R_LIST | R_DICT },
  { "__delitem__", D_DELITEM, 0, NULL, 1, R_LIST | R_DICT },
  { "__index__", D_INDEX, 0, NULL, 0, R_TENSOR | R_INT },
  CALL ("abs", "abs", 0, R_TENSOR | R_NUMBER),
  CALL ("len", "len", 0, R_TENSOR | R_CONTAINER),
  CALL ("iter", "iter", 0, R_TENSOR | R_CONTAINER),
  CALL ("reversed", "reversed", 0, R_TENSOR | R_LIST | R_DICT),
  CALL ("bool", "bool", 0, R_TENSOR | R_NUMBER),
  CALL ("int", "int", 0, R_TENSOR | R_NUMBER),
  CALL ("float", "float", 0, R_TENSOR | R_NUMBER),
  CALL ("repr", "repr", 0, R_ALL),
  CALL ("str", "str", 0, R_ALL),
  CALL ("format", "format", 1, R_ALL),
  CALL ("hash", "hash", 0, R_TENSOR | R_NUMBER | R_STR | R_TUPLE | R_OBJECT),
};

static guint
kind_bit (CrValueKind kind)
{
  switch (kind)
    {
    case CR_VALUE_TENSOR: return R_TENSOR;
    case CR_VALUE_BOOL:
    case CR_VALUE_INT: return R_INT;
    case CR_VALUE_FLOAT: return R_FLOAT;
    case CR_VALUE_STR: return R_STR;
    case CR_VALUE_LIST: return R_LIST;
    case CR_VALUE_TUPLE: return R_TUPLE;
    case CR_VALUE_DICT: return R_DICT;
    case CR_VALUE_INSTANCE: return R_OBJECT;
    default: return 0;
    }
}

static guint
receiver_bit (CrValue *v)
{
  return cr_value_is_set (v) ? R_SET : kind_bit (v->kind);
}

/* int.__add__(2.5) and str.__eq__(1) are NotImplemented in Python: the
 * other operand is not of a kind the receiver's method knows. */
static gboolean
other_is_foreign (CrValue *self,
                  CrValue *other,
                  DunderKind kind)
{
  guint mine = receiver_bit (self), theirs = receiver_bit (other);
  if (mine & R_INT)
    return !(theirs & R_INT);
  if (mine & R_FLOAT)
    return !(theirs & R_NUMBER);
  /* A container's comparisons only know their own kind; its + and *
   * raise Python's own TypeError instead. */
  return kind == D_COMPARE && (mine & R_CONTAINER) && mine != theirs;
}

static CrValue *
call_builtin (CrInterp      *interp,
              const char    *name,
              CrValue       *receiver,
              CrValue *const *args,
              guint          n_args,
              GError       **error)
{
  CrValue *fn = g_hash_table_lookup (interp->builtins, name);
  CrValue *all[2] = { receiver, n_args ? args[0] : NULL };
  return cr_interp_call (interp, fn, all, 1 + n_args, NULL, 0, error);
}

static CrValue *
compare_object (CrCmpOp  op,
                CrValue *a,
                CrValue *b)
{
  /* object.__eq__: identity, else NotImplemented (and so for !=). */
  if ((op == CR_CMP_EQ || op == CR_CMP_NE) && a == b)
    return cr_value_new_bool (op == CR_CMP_EQ);
  return cr_value_ref (cr_value_not_implemented ());
}

static CrValue *
run_dunder (CrInterp       *interp,
            const Dunder   *d,
            CrValue        *receiver,
            CrValue *const *args,
            guint           n_args,
            guint           n_kwargs,
            GError        **error)
{
  if (n_kwargs)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no keyword arguments", d->name);
      return NULL;
    }
  if (n_args != d->n_args)
    {
      /* CPython's slot wrappers' text */
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "expected %u argument%s, got %u",
                           d->n_args, d->n_args == 1 ? "" : "s", n_args);
      return NULL;
    }
  CrValue *arg = n_args ? args[0] : NULL;
  if ((d->kind == D_BINARY || d->kind == D_REFLECTED || d->kind == D_COMPARE)
      && other_is_foreign (receiver, arg, d->kind))
    return cr_value_ref (cr_value_not_implemented ());
  switch (d->kind)
    {
    case D_BINARY:
      return cr_binary_op (interp, (CrBinOp) d->op, receiver, arg, error);
    case D_REFLECTED:
      return cr_binary_op (interp, (CrBinOp) d->op, arg, receiver, error);
    case D_INPLACE:
      return cr_inplace_op (interp, (CrBinOp) d->op, receiver, arg, error);
    case D_UNARY:
      return cr_unary_op (interp, (CrUnOp) d->op, receiver, error);
    case D_COMPARE:
      if (receiver->kind == CR_VALUE_INSTANCE)
        return compare_object ((CrCmpOp) d->op, receiver, arg);
      return cr_compare_op (interp, (CrCmpOp) d->op, receiver, arg, error);
    case D_CONTAINS:
      return cr_compare_op (interp, CR_CMP_IN, arg, receiver, error);
    case D_GETITEM:
      return cr_interp_getitem (interp, receiver, arg, error);
    case D_SETITEM:
      return cr_interp_setitem (interp, receiver, args[0], args[1], error) ? cr_value_none () : NULL;
    case D_DELITEM:
      return cr_interp_delitem (interp, receiver, arg, error) ? cr_value_none () : NULL;
    case D_INDEX:
      {
        gint64 i;
        if (cr_value_as_index (receiver, &i))
          return cr_value_new_int (i);
        cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                             "only integer tensors of a single element can be converted to an index");
        return NULL;
      }
    case D_BUILTIN:
      return call_builtin (interp, d->builtin, receiver, args, n_args, error);
    default:
      g_assert_not_reached ();
    }
}

/* Bound: self is the receiver; data the definition. */
NATIVE (bound_dunder)
{
  (void) kwargs;
  return run_dunder (interp, data, self, args, n_args, n_kwargs, error);
}

/* Read through a builtin type (int.__add__(2, 3)): the receiver comes first. */
NATIVE (unbound_dunder)
{
  (void) kwargs;
  const Dunder *d = data;
  CrValue *k = g_hash_table_lookup (self->u.cls.attrs, "__cr_kind__");
  if (n_args == 0 || receiver_bit (args[0]) != kind_bit ((CrValueKind) k->u.i))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "descriptor '%s' of '%s' object needs an argument", d->name,
                           self->u.cls.name);
      return NULL;
    }
  return run_dunder (interp, d, args[0], args + 1, n_args - 1, n_kwargs, error);
}

static const Dunder *
find_dunder (const char *name,
             guint       receiver)
{
  if (name[0] != '_' || name[1] != '_' || receiver == 0)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (dunders); i++)
    if ((dunders[i].receivers & receiver) && strcmp (dunders[i].name, name) == 0)
      return &dunders[i];
  return NULL;
}

CrValue *
cr_dunder_attribute (CrInterp   *self,
                     CrValue    *obj,
                     const char *name)
{
  const Dunder *d = find_dunder (name, receiver_bit (obj));
  if (!d)
    return NULL;
  return cr_value_new_native (d->name, bound_dunder, obj, (gpointer) d);
}

CrValue *
cr_dunder_unbound (CrInterp   *self,
                   CrValue    *cls,
                   const char *name)
{
  CrValue *k = g_hash_table_lookup (cls->u.cls.attrs, "__cr_kind__");
  if (!k || k->kind != CR_VALUE_INT || k->u.i < 0 || k->u.i == CR_VALUE_TENSOR)
    return NULL;
  const Dunder *d = find_dunder (name, kind_bit ((CrValueKind) k->u.i));
  if (!d)
    return NULL;
  return cr_value_new_native (d->name, unbound_dunder, cls, (gpointer) d);
}
