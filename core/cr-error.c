/* cr-error.c — error domains and Python exception names. */
#include "cr-error.h"

#include <string.h>

G_DEFINE_QUARK (cr-core-error-quark, cr_core_error)
G_DEFINE_QUARK (cr-lang-error-quark, cr_lang_error)

static const char *const exception_names[] = {
  [CR_EXC_RUNTIME_ERROR]         = "RuntimeError",
  [CR_EXC_VALUE_ERROR]           = "ValueError",
  [CR_EXC_TYPE_ERROR]            = "TypeError",
  [CR_EXC_INDEX_ERROR]           = "IndexError",
  [CR_EXC_KEY_ERROR]             = "KeyError",
  [CR_EXC_NAME_ERROR]            = "NameError",
  [CR_EXC_UNBOUND_LOCAL_ERROR]   = "UnboundLocalError",
  [CR_EXC_ATTRIBUTE_ERROR]       = "AttributeError",
  [CR_EXC_SYNTAX_ERROR]          = "SyntaxError",
  [CR_EXC_INDENTATION_ERROR]     = "IndentationError",
  [CR_EXC_ZERO_DIVISION_ERROR]   = "ZeroDivisionError",
  [CR_EXC_OVERFLOW_ERROR]        = "OverflowError",
  [CR_EXC_NOT_IMPLEMENTED_ERROR] = "NotImplementedError",
  [CR_EXC_MEMORY_ERROR]          = "MemoryError",
  [CR_EXC_RECURSION_ERROR]       = "RecursionError",
  [CR_EXC_MODULE_NOT_FOUND_ERROR]= "ModuleNotFoundError",
  [CR_EXC_IMPORT_ERROR]          = "ImportError",
  [CR_EXC_ASSERTION_ERROR]       = "AssertionError",
  [CR_EXC_STOP_ITERATION]        = "StopIteration",
  [CR_EXC_KEYBOARD_INTERRUPT]    = "KeyboardInterrupt",
  [CR_EXC_TIMEOUT_ERROR]         = "TimeoutError",
  [CR_EXC_EXCEPTION]             = "Exception",
  [CR_EXC_TAB_ERROR]             = "TabError",
  [CR_EXC_GENERATOR_EXIT]        = "GeneratorExit",
};
G_STATIC_ASSERT (G_N_ELEMENTS (exception_names) == CR_EXC_COUNT);

const char *
cr_exception_name (CrException code)
{
  if ((guint) code >= CR_EXC_COUNT)
    return "Exception";
  return exception_names[code];
}

gboolean
cr_exception_from_name (const char  *name,
                        CrException *out_code)
{
  for (guint i = 0; i < CR_EXC_COUNT; i++)
    if (strcmp (exception_names[i], name) == 0)
      {
        *out_code = (CrException) i;
        return TRUE;
      }
  return FALSE;
}
