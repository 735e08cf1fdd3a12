/* cr-script-load.h — the script of `chainrule check` and `chainrule paths`:
 * read (FILE '-': stdin) and parsed, or the error printed as python3 would
 * (can't open file, SyntaxError). */
#pragma once

#include "cr-ast.h"

G_BEGIN_DECLS

/* The parsed module (owned by the caller), NULL after printing why to
 * stderr under the name `command` ("chainrule check"). */
CrAstModule *cr_script_load (const char *command,
                             const char *file,
                             const gint *cancel_flag);

G_END_DECLS
