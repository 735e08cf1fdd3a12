/* cr-notebook-lines.c — a marked script's cells as a record holds them
 * (cr_notebook_cells_record in cr-notebook.h), so that a run that left no
 * record names its lines as every record does: cr_run_record_line_text is
 * the one definition of "cell 3, line 2". */
#include "cr-notebook.h"

CrRunRecord *
cr_notebook_cells_record (const char *script,
                          const char *filename)
{
  CrRunRecord *record = cr_run_record_new (filename, script);
  g_autoptr (GArray) cells = cr_notebook_code_cells (script);
  for (guint i = 0; i < cells->len; i++)
    {
      const CrNotebookLines *cell = &g_array_index (cells, CrNotebookLines, i);
      cr_run_record_add_cell (record, cell->number, cell->first_line, cell->last_line);
    }
  return record;
}
