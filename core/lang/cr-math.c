/* cr-math.c — the math module (the one module besides torch a script may
 * import): its functions with CPython's domain and range errors. */
#include "cr-interp-private.h"

#include <math.h>

#include "cr-native.h"

/* ---- math ---------------------------------------------------------------------------------------------- */

typedef double (*MathFunc1) (double);

NATIVE (math_unary)
{
  MathFunc1 fn = (MathFunc1) data;
  if (!cr_builtin_no_kwargs ("math function", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("math function", n_args, 1, 1, error))
    return NULL;
  double x;
  if (args[0]->kind == CR_VALUE_STR || !cr_value_to_double (args[0], &x, NULL))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "must be real number, not %s",
                           cr_value_type_name (args[0]));
      return NULL;
    }
  double r = fn (x);
  if (isnan (r) && !isnan (x))
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "math domain error");
      return NULL;
    }
  if (isinf (r) && isfinite (x))
    {
      if (fn == log || fn == log2 || fn == log10)
        cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "math domain error");
      else
        cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "math range error");
      return NULL;
    }
  return cr_value_new_float (r);
}

NATIVE (math_log)
{
  if (!cr_builtin_no_kwargs ("log", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("log", n_args, 1, 2, error))
    return NULL;
  double x, b = M_E;
  if (!cr_value_to_double (args[0], &x, error) || (n_args == 2 && !cr_value_to_double (args[1], &b, error)))
    return NULL;
  if (x <= 0 || b <= 0 || b == 1.0)
    {
      cr_interp_set_error (error, x <= 0 || b <= 0 ? CR_EXC_VALUE_ERROR : CR_EXC_ZERO_DIVISION_ERROR,
                           x <= 0 || b <= 0 ? "math domain error" : "float division by zero");
      return NULL;
    }
  return cr_value_new_float (n_args == 2 ? log (x) / log (b) : log (x));
}

NATIVE (math_floor_ceil)
{
  if (!cr_builtin_no_kwargs ("floor", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("floor", n_args, 1, 1, error))
    return NULL;
  if (args[0]->kind == CR_VALUE_INT || args[0]->kind == CR_VALUE_BOOL)
    return cr_value_new_int (args[0]->kind == CR_VALUE_INT ? args[0]->u.i : args[0]->u.b);
  double x;
  if (!cr_value_to_double (args[0], &x, error))
    return NULL;
  return cr_builtin_float_to_int (data ? ceil (x) : floor (x), error);
}

NATIVE (math_pow)
{
  double x, y;
  if (!cr_builtin_no_kwargs ("pow", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("pow", n_args, 2, 2, error)
      || !cr_value_to_double (args[0], &x, error) || !cr_value_to_double (args[1], &y, error))
    return NULL;
  if (x == 0.0 && y < 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "math domain error");
      return NULL;
    }
  double r = pow (x, y);
  if (isnan (r) && !isnan (x) && !isnan (y))
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "math domain error");
      return NULL;
    }
  if (isinf (r) && isfinite (x) && isfinite (y))
    {
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "math range error");
      return NULL;
    }
  return cr_value_new_float (r);
}

NATIVE (math_isclose)
{
  CrValue *a = NULL, *b = NULL, *rel = NULL, *abs_tol = NULL;
  if (!cr_args_parse ("isclose", args, n_args, kwargs, n_kwargs, error, "a", &a, "b", &b,
                      "|$rel_tol", &rel, "$abs_tol", &abs_tol, NULL))
    return NULL;
  double x, y, rt = 1e-9, at = 0.0;
  if (!cr_value_to_double (a, &x, error) || !cr_value_to_double (b, &y, error)
      || (rel && !cr_value_to_double (rel, &rt, error))
      || (abs_tol && !cr_value_to_double (abs_tol, &at, error)))
    return NULL;
  if (x == y)
    return cr_value_new_bool (TRUE);
  if (isinf (x) || isinf (y))
    return cr_value_new_bool (FALSE);
  double diff = fabs (y - x);
  return cr_value_new_bool ((diff <= fabs (rt * y)) || (diff <= fabs (rt * x)) || diff <= at);
}

NATIVE (math_predicate)
{
  double x;
  if (!cr_builtin_no_kwargs ("isnan", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("isnan", n_args, 1, 1, error)
      || !cr_value_to_double (args[0], &x, error))
    return NULL;
  int which = GPOINTER_TO_INT (data);
  return cr_value_new_bool (which == 0 ? isnan (x) : which == 1 ? isinf (x) : isfinite (x));
}

NATIVE (math_fsum_prod)
{
  if (!cr_builtin_no_kwargs ("fsum", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("fsum", n_args, 1, 1, error))
    return NULL;
  CrValue *list = cr_iter_to_list (interp, args[0], error);
  if (!list)
    return NULL;
  gboolean prod = GPOINTER_TO_INT (data);
  double acc = prod ? 1.0 : 0.0, comp = 0.0;
  for (guint i = 0; i < list->u.seq.items->len; i++)
    {
      double x;
      if (!cr_value_to_double (list->u.seq.items->pdata[i], &x, error))
        {
          cr_value_unref (list);
          return NULL;
        }
      if (prod)
        acc *= x;
      else
        {
          /* Neumaier summation: close to fsum for teaching-sized inputs. */
          double t = acc + x;
          comp += fabs (acc) >= fabs (x) ? (acc - t) + x : (x - t) + acc;
          acc = t;
        }
    }
  cr_value_unref (list);
  return cr_value_new_float (acc + comp);
}

static double math_degrees (double x) { return x * (180.0 / M_PI); }
static double math_radians (double x) { return x * (M_PI / 180.0); }

CrValue *
cr_math_module_new (void)
{
  CrValue *m = cr_value_new_module ("math");
  static const struct { const char *name; MathFunc1 fn; } unary[] = {
    { "sqrt", sqrt }, { "exp", exp }, { "log2", log2 }, { "log10", log10 }, { "log1p", log1p },
    { "expm1", expm1 }, { "sin", sin }, { "cos", cos }, { "tan", tan }, { "asin", asin },
    { "acos", acos }, { "atan", atan }, { "sinh", sinh }, { "cosh", cosh }, { "tanh", tanh },
    { "fabs", fabs }, { "erf", erf }, { "erfc", erfc }, { "gamma", tgamma }, { "lgamma", lgamma },
    { "trunc", trunc }, { "degrees", math_degrees }, { "radians", math_radians },
  };
  for (guint i = 0; i < G_N_ELEMENTS (unary); i++)
    {
      CrValue *f = cr_value_new_native (unary[i].name, math_unary, NULL, (gpointer) unary[i].fn);
      cr_value_set_member (m, unary[i].name, f);
      cr_value_unref (f);
    }
  static const struct { const char *name; CrNativeFunc fn; gpointer data; } others[] = {
    { "log", math_log, NULL }, { "floor", math_floor_ceil, NULL },
    { "ceil", math_floor_ceil, GINT_TO_POINTER (1) }, { "pow", math_pow, NULL },
    { "isclose", math_isclose, NULL }, { "isnan", math_predicate, GINT_TO_POINTER (0) },
    { "isinf", math_predicate, GINT_TO_POINTER (1) }, { "isfinite", math_predicate, GINT_TO_POINTER (2) },
    { "fsum", math_fsum_prod, GINT_TO_POINTER (0) }, { "prod", math_fsum_prod, GINT_TO_POINTER (1) },
  };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      CrValue *f = cr_value_new_native (others[i].name, others[i].fn, NULL, others[i].data);
      cr_value_set_member (m, others[i].name, f);
      cr_value_unref (f);
    }
  static const struct { const char *name; double value; } constants[] = {
    { "pi", M_PI }, { "e", M_E }, { "tau", 2 * M_PI }, { "inf", INFINITY }, { "nan", NAN },
  };
  for (guint i = 0; i < G_N_ELEMENTS (constants); i++)
    {
      CrValue *c = cr_value_new_float (constants[i].value);
      cr_value_set_member (m, constants[i].name, c);
      cr_value_unref (c);
    }
  return m;
}
