/* cr-record-lines.c — a line of a run's script as its reader counts it:
 * "cell 3, line 2" in a notebook, "line 12" in a plain script
 * (cr_run_record_line_text in cr-run-record.h; cr_cell_line_text, in
 * core/cr-script-place.h, names a cell's line where no record is at hand).
 *
 * The cells are the record's own (the interpreter ran the script as those
 * cells), so the record alone says where a line is, in the process that
 * ran the script and in the window that got its record. */
#include "cr-run-record.h"
#include "cr-script-place.h"

void
cr_run_record_add_cell (CrRunRecord *self,
                        guint        number,
                        int          first_line,
                        int          last_line)
{
  g_return_if_fail (self != NULL);
  CrRecordCell cell = { number, first_line, last_line };
  g_array_append_val (self->cells, cell);
}

const CrRecordCell *
cr_run_record_cell_at (const CrRunRecord *self,
                       int                line,
                       int               *cell_line)
{
  if (!self || !self->cells || line <= 0)
    return NULL;
  /* The cells are in order and apart: a binary search, as a graph asks for
   * every node's line. */
  guint low = 0, high = self->cells->len;
  while (low < high)
    {
      guint mid = low + (high - low) / 2;
      const CrRecordCell *cell = &g_array_index (self->cells, CrRecordCell, mid);
      if (line < cell->first_line)
        high = mid;
      else if (line > cell->last_line)
        low = mid + 1;
      else
        {
          if (cell_line)
            *cell_line = line - cell->first_line + 1;
          return cell;
        }
    }
  return NULL;
}

char *
cr_run_record_line_text (const CrRunRecord *self,
                         int                line,
                         gboolean           capital)
{
  int cell_line = 0;
  const CrRecordCell *cell = cr_run_record_cell_at (self, line, &cell_line);
  if (cell)
    return cr_cell_line_text (cell->number, cell_line, capital);
  return g_strdup_printf ("%s %d", capital ? "Line" : "line", line);
}
