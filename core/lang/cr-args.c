/* cr-args.c — Python-style argument binding for natives, with CPython's
 * TypeError texts. */
#include "cr-value.h"

#include <stdarg.h>
#include <string.h>

#define MAX_PARAMS 32

typedef struct {
  const char  *name;
  CrValue    **out;
  gboolean     optional;
  gboolean     kwonly;
} Param;

void
cr_args_missing_error (GError     **error,
                       const char  *fname,
                       const char  *kind,
                       const char **names,
                       guint        n)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s() missing %u required %s argument%s: ", fname, n, kind,
                          n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, n == 2 ? " and " : (i == n - 1 ? ", and " : ", "));
      g_string_append_printf (s, "'%s'", names[i]);
    }
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, s->str);
  g_string_free (s, TRUE);
}

gboolean
cr_args_parse (const char     *fname,
               CrValue *const *args,
               guint           n_args,
               const CrKwarg  *kwargs,
               guint           n_kwargs,
               GError        **error,
               ...)
{
  Param params[MAX_PARAMS];
  guint n_params = 0, n_positional = 0, n_required_positional = 0;
  gboolean optional = FALSE, kwonly = FALSE;
  va_list ap;

  va_start (ap, error);
  for (const char *spec = va_arg (ap, const char *); spec; spec = va_arg (ap, const char *))
    {
      CrValue **out = va_arg (ap, CrValue **);
      g_return_val_if_fail (n_params < MAX_PARAMS, FALSE);
      for (; *spec == '|' || *spec == '$'; spec++)
        {
          if (*spec == '|')
            optional = TRUE;
          else
            kwonly = TRUE;
        }
      params[n_params] = (Param) { spec, out, optional, kwonly };
      *out = NULL;
      if (!kwonly)
        {
          n_positional++;
          if (!optional)
            n_required_positional++;
        }
      n_params++;
    }
  va_end (ap);

  if (n_args > n_positional)
    {
      if (n_required_positional == n_positional)
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "%s() takes %u positional argument%s but %u %s given", fname,
                     n_positional, n_positional == 1 ? "" : "s", n_args,
                     n_args == 1 ? "was" : "were");
      else
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "%s() takes from %u to %u positional arguments but %u %s given", fname,
                     n_required_positional, n_positional, n_args, n_args == 1 ? "was" : "were");
      return FALSE;
    }
  for (guint i = 0; i < n_args; i++)
    *params[i].out = args[i];

  for (guint k = 0; k < n_kwargs; k++)
    {
      guint i;
      for (i = 0; i < n_params; i++)
        if (strcmp (params[i].name, kwargs[k].name) == 0)
          break;
      if (i == n_params)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got an unexpected keyword argument '%s'", fname, kwargs[k].name);
          return FALSE;
        }
      if (*params[i].out != NULL)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got multiple values for argument '%s'", fname, kwargs[k].name);
          return FALSE;
        }
      *params[i].out = kwargs[k].value;
    }

  const char *missing[MAX_PARAMS];
  guint n_missing = 0;
  for (guint i = 0; i < n_params; i++)
    if (!params[i].optional && !params[i].kwonly && *params[i].out == NULL)
      missing[n_missing++] = params[i].name;
  if (n_missing)
    {
      cr_args_missing_error (error, fname, "positional", missing, n_missing);
      return FALSE;
    }
  for (guint i = 0; i < n_params; i++)
    if (!params[i].optional && params[i].kwonly && *params[i].out == NULL)
      missing[n_missing++] = params[i].name;
  if (n_missing)
    {
      cr_args_missing_error (error, fname, "keyword-only", missing, n_missing);
      return FALSE;
    }
  return TRUE;
}
