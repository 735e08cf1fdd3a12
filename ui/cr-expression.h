/* cr-expression.h — expression mode's language: a formula such as
 * `a*b + c*log(d)` or `tanh(w1*x1 + w2*x2 + b)`, its free variables, and the
 * script that builds it from scalar leaves and calls backward on it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The free variables of formula in order of first use (new array of char*,
 * free-func set); names of functions (log, exp, tanh, sigmoid, relu, sin, cos,
 * sqrt, abs, ...) and constants (pi, e) are not variables. NULL with a
 * CR_LANG_ERROR (the SyntaxError message) when formula is not an expression. */
GPtrArray *cr_expression_variables (const char         *formula,
                                    GError            **error);
/* The equivalent script (new string): `import torch`, one
 * `name = torch.tensor(value, requires_grad=True)` per variable, `out = ...`
 * with functions spelled torch.log etc., `out.backward()`, and prints of out
 * and each variable's grad. */
char      *cr_expression_to_script (const char         *formula,
                                    const char *const  *names,
                                    const double       *values,
                                    guint               n_variables);
/* (Added by expression mode.) to_script gives NULL when the formula is not
 * an expression or has no variables; a variable missing from names gets its
 * default value. */
/* The value a variable starts with: deterministic, varied (2.0, -1.0, 0.5,
 * 3.0, ... in order of first use), positive inside log and sqrt, and the
 * micrograd neuron's values for tanh(w1*x1 + w2*x2 + b). 1.0 for a name that
 * is not one of formula's variables. */
double     cr_expression_default_value (const char *formula,
                                        const char *name);

G_END_DECLS
