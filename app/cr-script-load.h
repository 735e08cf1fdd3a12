/* cr-script-load.h — the script of `chainrule check` and `chainrule paths`:
 * read (FILE '-': stdin; a notebook: its code cells) and parsed, or the error printed as python3 would
 * (can't open file, SyntaxError). */
#pragma once

#include "cr-ast.h"

G_BEGIN_DECLS

/* The parsed module (owned by the caller), NULL after printing why to
 * stderr under the name `command` ("chainrule check"). A notebook (.ipynb)
 * gives its script with cell markers, as one script. */
CrAstModule *cr_script_load (const char *command,
                             const char *file,
                             const gint *cancel_flag);
/* The same, and for a notebook its cells (*out_cells: a GArray of
 * CrScriptCell for cr_interp_set_cells, owned by the caller; NULL for a
 * script), so that it runs as `chainrule run` runs it: an error ends its
 * cell, display() shows. */
CrAstModule *cr_script_load_cells (const char  *command,
                                   const char  *file,
                                   const gint  *cancel_flag,
                                   GArray     **out_cells);
/* The same, the script read from stdin (file "-") named stdin_name in
 * tracebacks and the record (NULL: "<stdin>"). A name ending with .ipynb
 * says the text is a notebook's script with cell markers, as the window
 * shows a notebook: it runs as those cells. */
CrAstModule *cr_script_load_named (const char  *command,
                                   const char  *file,
                                   const char  *stdin_name,
                                   const gint  *cancel_flag,
                                   GArray     **out_cells);

G_END_DECLS
