/* cr-script-load.h — a headless command's script: read (FILE '-': stdin; a
 * notebook: its code cells, as a script with cell markers) and parsed, or
 * the error printed as python3 would (can't open file, SyntaxError). Each
 * step on its own for `chainrule run` and `export`, which do more between
 * them; cr_script_load() for the others. */
#pragma once

#include "cr-ast.h"

G_BEGIN_DECLS

/* A script as read. */
typedef struct {
  char     *source;     /* its text; a notebook's: its script with cell markers */
  gsize     length;
  char     *filename;   /* as tracebacks name it: the absolute path, or stdin's name */
  gboolean  notebook;   /* it runs as cells */
} CrScriptText;

/* Reads file into text (cleared first); the script from stdin (file "-")
 * is named stdin_name (NULL: "<stdin>"), and a name ending with .ipynb
 * says it is a notebook's script with cell markers, as the window shows a
 * notebook. FALSE after printing why to stderr, each line starting with
 * command ("chainrule check"). */
gboolean     cr_script_text_read         (CrScriptText        *text,
                                          const char          *command,
                                          const char          *file,
                                          const char          *stdin_name);
void         cr_script_text_clear        (CrScriptText        *text);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CrScriptText, cr_script_text_clear)

/* Parses text under cancel_flag (Ctrl-C, the time limit) and the memory
 * budget, though never to less than 64 MiB; a notebook's cells go to
 * *out_cells (a GArray of CrScriptCell for cr_interp_set_cells, owned by
 * the caller; NULL for a script or when out_cells is NULL). The module
 * (owned by the caller), or NULL with *span and *error. */
CrAstModule *cr_script_text_parse        (const CrScriptText  *text,
                                          const gint          *cancel_flag,
                                          GArray             **out_cells,
                                          CrSpan              *span,
                                          GError             **error);
/* Prints a parse error to stderr as python3 does: a SyntaxError with its
 * line and caret, else "KeyboardInterrupt", "MemoryError: ...". */
void         cr_script_print_parse_error (const CrScriptText  *text,
                                          const CrSpan        *span,
                                          const GError        *error);

/* Both steps: the parsed module (owned by the caller), NULL after printing
 * why to stderr. out_cells as cr_script_text_parse: with them a notebook
 * runs as `chainrule run` runs it (an error ends its cell, display()
 * shows); without, as one script. */
CrAstModule *cr_script_load              (const char          *command,
                                          const char          *file,
                                          const char          *stdin_name,
                                          const gint          *cancel_flag,
                                          GArray             **out_cells);

G_END_DECLS
