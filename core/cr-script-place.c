/* cr-script-place.c — how a place in the user's script is named
 * (see cr-script-place.h). */
#include "cr-script-place.h"

char *
cr_cell_line_text (guint    number,
                   int      cell_line,
                   gboolean capital)
{
  return g_strdup_printf ("%s %u, line %d", capital ? "Cell" : "cell", number, cell_line);
}
