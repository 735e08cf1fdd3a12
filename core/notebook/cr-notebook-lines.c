/* cr-notebook-lines.c — "cell 3, line 2" for a line of a notebook's run
 * (cr_notebook_line_text in cr-notebook.h): the record's own cells say it
 * (cr_run_record_line_text), so that every text names a line one way. */
#include "cr-notebook.h"

char *
cr_notebook_line_text (const CrRunRecord *record,
                       int                line,
                       gboolean           capital)
{
  return cr_run_record_line_text (record, line, capital);
}
