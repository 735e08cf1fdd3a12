/* cr-script-place.h — how a place in the user's script is named.
 *
 * A notebook's code cells count their lines anew, so a line there is
 * "cell 3, line 2". The interpreter's tracebacks and warnings, the notebook
 * layer and the record all name such a line, some before any record
 * exists, so the one spelling sits here, below all of them: it knows no
 * tensor, and the language runtime may include it (tests/lang/check-runtime-layer). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The words for line cell_line (1-based) of code cell number: "cell 3,
 * line 2" ("Cell 3, line 2" with capital; new string). */
char *cr_cell_line_text (guint    number,
                         int      cell_line,
                         gboolean capital);

G_END_DECLS
