/* cr-interp-import.c — `import`: the modules written in C (math, _random,
 * time), torch's through the binding, and those written as prelude source,
 * cached by dotted name as Python's sys.modules caches them. */
#include "cr-interp-private.h"

#include <string.h>

/* ---- imports --------------------------------------------------------------------------------- */

CrValue *
cr_interp_import (CrInterp    *self,
                  const char  *dotted,
                  GError     **error)
{
  CrValue *m = g_hash_table_lookup (self->modules, dotted);
  if (m)
    return cr_value_ref (m);
  if (strcmp (dotted, "math") == 0)
    m = cr_math_module_new ();
  else if (strcmp (dotted, "_random") == 0)
    m = cr_pyrandom_module_new ();
  else if (strcmp (dotted, "time") == 0)
    m = cr_time_module_new ();
  else if (g_str_has_prefix (dotted, "math."))
    {
      cr_interp_set_error (error, CR_EXC_MODULE_NOT_FOUND_ERROR,
                           "No module named '%s'; 'math' is not a package", dotted);
      return NULL;
    }
  else if (cr_binding.owns_module (dotted))
    {
      /* A prelude module (torch.nn ...) caches itself before it runs, as
       * Python's sys.modules does, so that its imports may name it. */
      gboolean handled = FALSE;
      m = cr_prelude_import (self, dotted, &handled, error);
      if (handled)
        return m;
      m = cr_binding.import (self, dotted, error);
      if (!m)
        return NULL;
    }
  else
    {
      /* Other modules written as prelude source (itertools). */
      gboolean handled = FALSE;
      m = cr_prelude_import (self, dotted, &handled, error);
      if (handled)
        return m;
      g_autofree char *top = g_strdup (dotted);
      char *dot = strchr (top, '.');
      if (dot)
        *dot = '\0';
      cr_interp_set_error (error, CR_EXC_MODULE_NOT_FOUND_ERROR, "No module named '%s'", top);
      return NULL;
    }
  g_hash_table_insert (self->modules, g_strdup (dotted), cr_value_ref (m));
  return m;
}
