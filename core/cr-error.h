/* cr-error.h — errors are values: a GError whose code is the Python exception
 * type the script will see, in one of two domains (the engine and the language).
 * The interpreter adds the source span; a GUI underlines it, the runner prints
 * a Python-style traceback ending in "RuntimeError: <PyTorch's message>". */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

#define CR_CORE_ERROR (cr_core_error_quark ())
#define CR_LANG_ERROR (cr_lang_error_quark ())

/* The code of a Chainrule GError is the Python exception class it stands for. */
typedef enum {
  CR_EXC_RUNTIME_ERROR,
  CR_EXC_VALUE_ERROR,
  CR_EXC_TYPE_ERROR,
  CR_EXC_INDEX_ERROR,
  CR_EXC_KEY_ERROR,
  CR_EXC_NAME_ERROR,
  CR_EXC_UNBOUND_LOCAL_ERROR,
  CR_EXC_ATTRIBUTE_ERROR,
  CR_EXC_SYNTAX_ERROR,
  CR_EXC_INDENTATION_ERROR,
  CR_EXC_ZERO_DIVISION_ERROR,
  CR_EXC_OVERFLOW_ERROR,
  CR_EXC_NOT_IMPLEMENTED_ERROR,
  CR_EXC_MEMORY_ERROR,
  CR_EXC_RECURSION_ERROR,
  CR_EXC_MODULE_NOT_FOUND_ERROR,
  CR_EXC_IMPORT_ERROR,
  CR_EXC_ASSERTION_ERROR,
  CR_EXC_STOP_ITERATION,
  CR_EXC_KEYBOARD_INTERRUPT,   /* the run was cancelled (UI edit, --timeout) */
  CR_EXC_TIMEOUT_ERROR,
  CR_EXC_EXCEPTION,            /* a bare `raise Exception(...)` */
  CR_EXC_TAB_ERROR,            /* a subclass of IndentationError */
  CR_EXC_GENERATOR_EXIT,       /* what close() raises inside a generator */
  CR_EXC_COUNT
} CrException;

GQuark      cr_core_error_quark     (void);
GQuark      cr_lang_error_quark     (void);

/* "RuntimeError", "ValueError", ... */
const char *cr_exception_name       (CrException code);

/* Look a Python exception class up by name; FALSE when unknown. */
gboolean    cr_exception_from_name  (const char  *name,
                                     CrException *out_code);

G_END_DECLS
