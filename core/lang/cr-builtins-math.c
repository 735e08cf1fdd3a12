/* cr-builtins-math.c — the numeric builtins: abs, round, pow (with Python's
 * three-argument modular form, a negative exponent being a modular inverse)
 * and divmod. Each defers to the operand's own method (__abs__, __round__,
 * ...) where Python does. */
#include "cr-interp-private.h"

#include <math.h>
#include <string.h>

#include "cr-native.h"

static CrValue *
call_method_by_name (CrInterp    *self,
                     CrValue     *obj,
                     const char  *name,
                     CrValue *const *args,
                     guint        n_args,
                     GError     **error)
{
  CrValue *m = cr_interp_getattr (self, obj, name, error);
  if (!m)
    return NULL;
  CrValue *r = cr_interp_call (self, m, args, n_args, NULL, 0, error);
  cr_value_unref (m);
  return r;
}

NATIVE (b_abs)
{
  if (!cr_builtin_no_kwargs ("abs", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("abs", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  switch (v->kind)
    {
    case CR_VALUE_INT:
      if (v->u.i == G_MININT64)
        {
          cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR,
                               "integer result too large (Chainrule's ints are 64-bit)");
          return NULL;
        }
      return cr_value_new_int (v->u.i < 0 ? -v->u.i : v->u.i);
    case CR_VALUE_BOOL:
      return cr_value_new_int (v->u.b);
    case CR_VALUE_FLOAT:
      return cr_value_new_float (fabs (v->u.f));
    case CR_VALUE_TENSOR:
      return interp->tensor_slots->abs (interp, v, error);
    case CR_VALUE_INSTANCE:
      if (cr_instance_method (v, "__abs__"))
        return call_method_by_name (interp, v, "__abs__", NULL, 0, error);
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "bad operand type for abs(): '%s'",
                       cr_value_type_name (v));
  return NULL;
}

NATIVE (b_round)
{
  CrValue *x = NULL, *nd = NULL;
  if (!cr_args_parse ("round", args, n_args, kwargs, n_kwargs, error, "number", &x, "|ndigits", &nd,
                      NULL))
    return NULL;
  if (nd && nd->kind == CR_VALUE_NONE)
    nd = NULL;
  gint64 ndigits = 0;
  if (nd && !cr_builtin_int_arg (nd, &ndigits, error))
    return NULL;
  switch (x->kind)
    {
    case CR_VALUE_INT:
    case CR_VALUE_BOOL:
      {
        gint64 i = x->kind == CR_VALUE_INT ? x->u.i : x->u.b;
        if (!nd || ndigits >= 0)
          return cr_value_new_int (i);
        if (ndigits < -18)
          return cr_value_new_int (0);
        gint64 p = 1;
        for (gint64 k = 0; k < -ndigits; k++)
          p *= 10;
        gint64 q = i / p, r = i % p;
        if (r < 0)
          {
            r += p;
            q--;
          }
        if (2 * r > p || (2 * r == p && (q & 1)))
          q++;
        return cr_value_new_int (q * p);
      }
    case CR_VALUE_FLOAT:
      {
        double d = x->u.f;
        if (!nd)
          {
            double r = nearbyint (d);   /* the default rounding mode is half-to-even */
            return cr_builtin_float_to_int (r, error);
          }
        if (!isfinite (d))
          return cr_value_ref (x);
        if (ndigits > 300)
          return cr_value_ref (x);
        if (ndigits >= 0)
          {
            char buf[512];
            g_snprintf (buf, sizeof buf, "%.*f", (int) ndigits, d);
            return cr_value_new_float (g_ascii_strtod (buf, NULL));
          }
        double p = pow (10.0, (double) -ndigits);
        double r = nearbyint (d / p) * p;
        return cr_value_new_float (isfinite (r) ? r : 0.0 * d);
      }
    case CR_VALUE_TENSOR:
      return interp->tensor_slots->round (interp, x, error);
    case CR_VALUE_INSTANCE:
      if (cr_instance_method (x, "__round__"))
        return call_method_by_name (interp, x, "__round__", nd ? &nd : NULL, nd ? 1 : 0, error);
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "type %s doesn't define __round__ method",
                       cr_value_type_name (x));
  return NULL;
}

/* An int argument of three-argument pow (bool is an int). */
static gboolean
pow_int_arg (CrValue *v,
             gint64  *out)
{
  if (v->kind == CR_VALUE_INT)
    *out = v->u.i;
  else if (v->kind == CR_VALUE_BOOL)
    *out = v->u.b;
  else
    return FALSE;
  return TRUE;
}

/* The inverse of b modulo m (0 <= b < m), by the extended Euclidean
 * algorithm; FALSE when gcd(b, m) != 1. */
static gboolean
pow_mod_inverse (__int128  b,
                 __int128  m,
                 __int128 *out)
{
  __int128 r0 = m, r1 = b, t0 = 0, t1 = 1;
  while (r1 != 0)
    {
      __int128 q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
      r0 = r1;
      r1 = r2;
      t0 = t1;
      t1 = t2;
    }
  if (r0 != 1)
    return FALSE;
  *out = ((t0 % m) + m) % m;
  return TRUE;
}

NATIVE (b_pow)
{
  CrValue *base = NULL, *exp = NULL, *mod = NULL;
  if (!cr_args_parse ("pow", args, n_args, kwargs, n_kwargs, error, "base", &base, "exp", &exp,
                      "|mod", &mod, NULL))
    return NULL;
  if (!mod || mod->kind == CR_VALUE_NONE)
    return cr_binary_op (interp, CR_BINOP_POW, base, exp, error);
  gint64 base_i, exp_i, mod_i;
  if (!pow_int_arg (base, &base_i) || !pow_int_arg (exp, &exp_i) || !pow_int_arg (mod, &mod_i))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "pow() 3rd argument not allowed unless all arguments are integers");
      return NULL;
    }
  if (mod_i == 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "pow() 3rd argument cannot be 0");
      return NULL;
    }
  /* CPython's long_pow: the work is done modulo |mod| (in 128 bits, so
   * that -(-2**63) and the products fit); a negative exponent raises the
   * inverse of base (Python 3.8+); a negative mod shifts the result into
   * (mod, 0]. */
  __int128 m = mod_i < 0 ? -(__int128) mod_i : (__int128) mod_i;
  __int128 b = (((__int128) base_i % m) + m) % m;
  unsigned __int128 e = exp_i < 0 ? (unsigned __int128) (-(__int128) exp_i) : (unsigned __int128) exp_i;
  if (exp_i < 0 && !pow_mod_inverse (b, m, &b))
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "base is not invertible for the given modulus");
      return NULL;
    }
  __int128 result = m == 1 ? 0 : 1;
  for (; e > 0; e >>= 1)
    {
      if (e & 1)
        result = (result * b) % m;
      b = (b * b) % m;
    }
  if (mod_i < 0 && result != 0)
    result -= m;
  return cr_value_new_int ((gint64) result);
}

NATIVE (b_divmod)
{
  if (!cr_builtin_no_kwargs ("divmod", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("divmod", n_args, 2, 2, error))
    return NULL;
  CrValue *a = args[0], *b = args[1];
  if (cr_value_is_number (a) && cr_value_is_number (b)
      && (a->kind == CR_VALUE_FLOAT || b->kind == CR_VALUE_FLOAT))
    {
      double y;
      cr_value_to_double (b, &y, NULL);
      if (y == 0.0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "float divmod()");
          return NULL;
        }
    }
  CrValue *q = cr_binary_op (interp, CR_BINOP_FLOORDIV, a, b, error);
  if (!q)
    return NULL;
  CrValue *r = cr_binary_op (interp, CR_BINOP_MOD, a, b, error);
  if (!r)
    {
      cr_value_unref (q);
      return NULL;
    }
  CrValue *items[2] = { q, r };
  CrValue *t = cr_value_new_tuple (items, 2);
  cr_value_unref (q);
  cr_value_unref (r);
  return t;
}

void
cr_builtins_math_install (CrInterp *self)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
    { "abs", b_abs },
    { "round", b_round },
    { "pow", b_pow },
    { "divmod", b_divmod },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    g_hash_table_insert (self->builtins, g_strdup (natives[i].name),
                         cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL));
}
