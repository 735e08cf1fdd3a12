/* cr-coach-report.c — the coach's advice on stderr, and the corrected run.
 *
 *   coach: line 12: gradients add up over iterations: zero_grad() is missing
 *     w.grad still held ... (the explanation, wrapped)
 *     fix: line 14:
 *       optimizer.zero_grad()
 *
 * The corrected run applies every fix at once (fixes that overlap one
 * already taken are left out), runs the result as the original ran, and
 * says what changed. */
#include "cr-config.h"
#include "cr-coach-report.h"

#include "cr-coach.h"
#include "cr-coach-compare.h"
#include "cr-interp.h"
#include "cr-interp-cells.h"
#include "cr-script-load.h"
#include "cr-script-place.h"

#include <string.h>

#define WRAP_WIDTH 78

/* text wrapped at WRAP_WIDTH characters, each line after indent. */
static void
write_wrapped (FILE       *out,
               const char *indent,
               const char *text)
{
  g_auto (GStrv) words = g_strsplit_set (text, " \n", -1);
  glong column = 0;
  for (char **w = words; *w; w++)
    {
      if (!**w)
        continue;
      glong len = g_utf8_strlen (*w, -1);
      if (column > 0 && column + 1 + len > WRAP_WIDTH)
        {
          fputc ('\n', out);
          column = 0;
        }
      if (column == 0)
        {
          fputs (indent, out);
          column = (glong) strlen (indent);
        }
      else
        {
          fputc (' ', out);
          column++;
        }
      fputs (*w, out);
      column += len;
    }
  if (column > 0)
    fputc ('\n', out);
}

static void
write_finding (FILE                  *out,
               const CrRunRecord     *record,
               const CrRecordFinding *f)
{
  g_autofree char *where = cr_run_record_line_text (record, f->span.line, FALSE);
  fprintf (out, "coach: %s: %s\n", where, f->title ? f->title : f->kind);
  if (f->explanation)
    write_wrapped (out, "  ", f->explanation);
  g_autofree char *fixed = cr_coach_fixed_line (record->source, f);
  if (!fixed)
    return;
  /* A new line goes after the fix span's line: it is counted as the
   * line after it (in a notebook, of the same cell). */
  gboolean new_line = f->fix[0] == '\n';
  g_autofree char *fix_where = cr_run_record_line_text (record, f->fix_span.line, FALSE);
  if (new_line)
    {
      int cell_line = 0;
      const CrRecordCell *cell = cr_run_record_cell_at (record, f->fix_span.line, &cell_line);
      g_free (fix_where);
      fix_where = cell ? cr_cell_line_text (cell->number, cell_line + 1, FALSE)
                       : g_strdup_printf ("line %d", f->fix_span.line + 1);
    }
  fprintf (out, "  fix: %s%s:\n", fix_where, f->fix_span.line == f->fix_span.end_line
                                              && f->fix_span.column == f->fix_span.end_column
                                              && f->fix[0] == '\n' ? " (a new line)" : "");
  g_auto (GStrv) lines = g_strsplit (fixed, "\n", -1);
  for (char **l = lines; *l; l++)
    fprintf (out, "    %s\n", *l);
}

/* ---- the corrected run ---------------------------------------------------- */

static int
last_line (const CrSpan *span)
{
  return span->end_line > span->line ? span->end_line : span->line;
}

static gint
by_fix_position_descending (gconstpointer a,
                            gconstpointer b)
{
  const CrRecordFinding *fa = *(const CrRecordFinding *const *) a;
  const CrRecordFinding *fb = *(const CrRecordFinding *const *) b;
  if (fa->fix_span.line != fb->fix_span.line)
    return fa->fix_span.line > fb->fix_span.line ? -1 : 1;
  return (fa->fix_span.column < fb->fix_span.column) - (fa->fix_span.column > fb->fix_span.column);
}

/* source with every fix of record applied, bottom up so that the spans
 * above stay right; a fix on a line another fix took is left out. New
 * string; *n_applied: how many. */
static char *
apply_fixes (const CrRunRecord *record,
             guint             *n_applied)
{
  g_autoptr (GPtrArray) fixes = g_ptr_array_new ();
  for (guint i = 0; i < record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      if (f->fix)
        g_ptr_array_add (fixes, (gpointer) f);
    }
  g_ptr_array_sort (fixes, by_fix_position_descending);
  char *text = g_strdup (record->source);
  int taken_from = G_MAXINT;   /* the first line a fix took so far */
  *n_applied = 0;
  for (guint i = 0; i < fixes->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (fixes, i);
      if (last_line (&f->fix_span) >= taken_from)
        continue;
      char *next = cr_coach_apply_fix (text, f);
      if (!next)
        continue;
      g_free (text);
      text = next;
      taken_from = f->fix_span.line;
      (*n_applied)++;
    }
  return text;
}

static void
capture_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  g_string_append (user_data, text);
}

typedef struct {
  CrRunRecord   *record;      /* NULL when it did not parse */
  CrScriptError *error;       /* the uncaught error, NULL */
  char          *syntax_error;
} Rerun;

static void
rerun_clear (Rerun *r)
{
  g_clear_pointer (&r->record, cr_run_record_unref);
  g_clear_pointer (&r->error, cr_script_error_free);
  g_clear_pointer (&r->syntax_error, g_free);
}

static void
run_fixed (const char        *source,
           const CrRunRecord *record,
           const gint        *cancel_flag,
           Rerun             *out)
{
  /* Run as the original ran: a notebook's script as its cells (its IPython
   * lines handled), so that texts say "cell n, line m" again. */
  CrScriptText text = {
    .source = (char *) source,
    .length = strlen (source),
    .filename = record->filename,
    .notebook = record->cells && record->cells->len > 0,
  };
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GArray) cells = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_script_text_parse (&text, cancel_flag, &cells, &span,
                                                         &parse_error);
  if (!module)
    {
      g_autofree char *where = cr_run_record_line_text (record, span.line, FALSE);
      out->syntax_error = g_strdup_printf ("%s: %s", where, parse_error->message);
      return;
    }
  g_autoptr (GString) output = g_string_new (NULL);
  CrInterpOptions io = {
    .output = capture_output,
    .output_data = output,
    .cancel_flag = cancel_flag,
    .record_backward = TRUE,
    .coach = TRUE,
  };
  CrInterp *interp = cr_interp_new (&io);
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->data, cells->len);
  cr_interp_run (interp, module, &out->error);
  out->record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
}

/* Whether the two series print the same, value by value. */
static gboolean
same_values (const GArray *a,
             const GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (x, sizeof x, "%.4g", g_array_index (a, double, i));
      g_ascii_formatd (y, sizeof y, "%.4g", g_array_index (b, double, i));
      if (strcmp (x, y) != 0)
        return FALSE;
    }
  return TRUE;
}

static const CrRecordError *
last_error (const CrRunRecord *record)
{
  return record && record->errors->len ? g_ptr_array_index (record->errors, record->errors->len - 1)
                                       : NULL;
}

static void
report_rerun (FILE              *out,
              const CrRunRecord *record,
              gboolean           failed,
              const gint        *cancel_flag)
{
  guint n_applied = 0;
  g_autofree char *fixed = apply_fixes (record, &n_applied);
  if (n_applied == 0)
    return;
  Rerun rerun = { 0 };
  run_fixed (fixed, record, cancel_flag, &rerun);
  fprintf (out, "coach: the corrected run (%u fix%s applied):\n", n_applied, n_applied == 1 ? "" : "es");
  if (rerun.syntax_error)
    {
      fprintf (out, "  the corrected script does not parse: %s\n", rerun.syntax_error);
      rerun_clear (&rerun);
      return;
    }
  const CrRecordError *before = failed ? last_error (record) : NULL;
  g_autofree char *before_where = before ? cr_run_record_line_text (record, before->span.line, FALSE)
                                         : NULL;
  if (before && !rerun.error)
    fprintf (out, "  the error is gone (%s: %s): the script runs to the end\n", before_where,
             before->type);
  else if (rerun.error)
    {
      g_autofree char *first = g_strdup (rerun.error->message ? rerun.error->message : "");
      char *nl = strchr (first, '\n');
      if (nl)
        *nl = '\0';
      g_autofree char *where = cr_run_record_line_text (rerun.record ? rerun.record : record,
                                                        rerun.error->span.line, FALSE);
      fprintf (out, "  %s: %s: %s: %s\n", before ? "it still fails" : "the corrected script fails",
               where, cr_exception_name (rerun.error->type), first);
    }
  g_autoptr (GArray) loss_before = cr_coach_losses (record);
  g_autoptr (GArray) loss_after = cr_coach_losses (rerun.record);
  if (loss_before && loss_after && (loss_before->len > 1 || loss_after->len > 1)
      && !same_values (loss_before, loss_after))
    {
      g_autofree char *b = cr_coach_series_text (loss_before);
      g_autofree char *a = cr_coach_series_text (loss_after);
      fprintf (out, "  the loss at each backward call:\n    before: %s\n    after:  %s\n", b, a);
    }
  if (rerun.record && rerun.record->findings->len == 0)
    fputs ("  the coach finds nothing more\n", out);
  for (guint i = 0; rerun.record && i < rerun.record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (rerun.record->findings, i);
      fprintf (out, "  the coach still finds: line %d: %s\n", f->span.line, f->title);
    }
  rerun_clear (&rerun);
}

void
cr_coach_report (FILE              *out,
                 const CrRunRecord *record,
                 gboolean           failed,
                 gboolean           rerun,
                 const gint        *cancel_flag)
{
  if (!record || record->findings->len == 0)
    return;
  for (guint i = 0; i < record->findings->len; i++)
    write_finding (out, record, g_ptr_array_index (record->findings, i));
  if (rerun)
    report_rerun (out, record, failed, cancel_flag);
  fflush (out);
}
