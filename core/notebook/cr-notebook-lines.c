/* cr-notebook-lines.c — "cell 3, line 2" for a line of a notebook's run
 * (cr_notebook_line_text in cr-notebook.h). */
#include "cr-notebook.h"

#include <string.h>

/* The cells of the last script asked about, found again only when another
 * script comes (compared by content: a record's text is short, and a new
 * record may reuse an old one's address). Graphs ask for every node. */
static GMutex cache_lock;
static char   *cache_script;
static GArray *cache_cells;

static gboolean
find_line (const char *script,
           int         line,
           guint      *number,
           int        *cell_line)
{
  g_mutex_lock (&cache_lock);
  if (!cache_script || strcmp (cache_script, script) != 0)
    {
      g_free (cache_script);
      g_clear_pointer (&cache_cells, g_array_unref);
      cache_script = g_strdup (script);
      cache_cells = cr_notebook_code_cells (script);
    }
  gboolean found = FALSE;
  for (guint i = 0; i < cache_cells->len && !found; i++)
    {
      const CrNotebookLines *cell = &g_array_index (cache_cells, CrNotebookLines, i);
      if (line >= cell->first_line && line <= cell->last_line)
        {
          *number = cell->number;
          *cell_line = line - cell->first_line + 1;
          found = TRUE;
        }
    }
  g_mutex_unlock (&cache_lock);
  return found;
}

char *
cr_notebook_line_text (const CrRunRecord *record,
                       int                line,
                       gboolean           capital)
{
  guint number = 0;
  int cell_line = 0;
  if (record && record->source && record->filename && line > 0
      && cr_notebook_is_path (record->filename)
      && find_line (record->source, line, &number, &cell_line))
    return g_strdup_printf ("%s %u, line %d", capital ? "Cell" : "cell", number, cell_line);
  return g_strdup_printf ("%s %d", capital ? "Line" : "line", line);
}
