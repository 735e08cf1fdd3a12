/* cr-coach-text.c — the coach's findings and fixes, and the script's text
 * they are made from. Spans are 1-based lines and character (not byte)
 * columns, as everywhere in the record. */
#include "cr-coach-private.h"

#include <string.h>

/* ---- the script's text ------------------------------------------------------ */

/* Where line (1-based) starts in source, NULL past the end; *len: its
 * length in bytes without the newline. */
static const char *
line_at (const char *source,
         int         line,
         gsize      *len)
{
  if (!source || line <= 0)
    return NULL;
  const char *p = source;
  for (int i = 1; i < line; i++)
    {
      p = strchr (p, '\n');
      if (!p)
        return NULL;
      p++;
    }
  const char *end = strchr (p, '\n');
  gsize n = end ? (gsize) (end - p) : strlen (p);
  if (n > 0 && p[n - 1] == '\r')
    n--;
  if (!end && n == 0 && line > 1)
    return NULL;
  *len = n;
  return p;
}

char *
cr_coach_line (const char *source,
               int         line)
{
  gsize len = 0;
  const char *p = line_at (source, line, &len);
  return p ? g_strndup (p, len) : NULL;
}

const char *
cr_coach_source_line (CrCoach *coach,
                      int      line)
{
  if (!coach->lines)
    {
      coach->lines = g_strsplit (coach->source, "\n", -1);
      coach->n_lines = g_strv_length (coach->lines);
    }
  if (line <= 0 || (guint) line > coach->n_lines)
    return NULL;
  return coach->lines[line - 1];
}

char *
cr_coach_indent (const char *text)
{
  gsize n = 0;
  while (text && (text[n] == ' ' || text[n] == '\t'))
    n++;
  return g_strndup (text ? text : "", n);
}

char *
cr_coach_trimmed (const char *text)
{
  return g_strstrip (g_strdup (text ? text : ""));
}

int
cr_coach_last_line (const CrSpan *span)
{
  return span->end_line > span->line ? span->end_line : span->line;
}

char *
cr_coach_statement (const char   *source,
                    const CrSpan *span)
{
  if (span->line <= 0)
    return NULL;
  GString *out = g_string_new (NULL);
  for (int l = span->line; l <= cr_coach_last_line (span); l++)
    {
      g_autofree char *text = cr_coach_line (source, l);
      if (!text)
        break;
      if (out->len)
        g_string_append_c (out, ' ');
      g_string_append (out, g_strstrip (text));
    }
  return g_string_free (out, FALSE);
}

int
cr_coach_column_of (const char *text,
                    gsize       offset)
{
  return (int) g_utf8_strlen (text, (gssize) offset) + 1;
}

gboolean
cr_coach_match (const char   *pattern,
                const char   *text,
                char       ***groups)
{
  if (groups)
    *groups = NULL;
  if (!text)
    return FALSE;
  g_autoptr (GRegex) regex = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  g_return_val_if_fail (regex != NULL, FALSE);
  if (!g_regex_match (regex, text, 0, &match))
    return FALSE;
  if (groups)
    *groups = g_match_info_fetch_all (match);
  return TRUE;
}

char *
cr_coach_value_text (const CrTensorSnapshot *value)
{
  if (!value)
    return g_strdup ("None");
  const char *text = value->numel <= 16 ? cr_tensor_snapshot_get_text (value) : NULL;
  if (text && !strchr (text, '\n'))
    return g_strdup (text);
  GString *shape = g_string_new (NULL);
  for (int d = 0; d < value->ndim; d++)
    g_string_append_printf (shape, d ? "×%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, value->shape[d]);
  char *out = g_strdup_printf ("a %s tensor with mean %.4g", shape->str, value->mean);
  g_string_free (shape, TRUE);
  return out;
}

int
cr_coach_first_backward (CrCoach *coach,
                         int      op)
{
  const CrRunRecord *record = coach->record;
  if (!coach->op_first_backward)
    {
      /* One pass over every step, not one per question. */
      coach->op_first_backward = g_array_sized_new (FALSE, FALSE, sizeof (int), record->ops->len);
      g_array_set_size (coach->op_first_backward, record->ops->len);
      for (guint i = 0; i < record->ops->len; i++)
        g_array_index (coach->op_first_backward, int, i) = -1;
      for (guint b = record->backwards->len; b-- > 0;)
        {
          const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
          for (guint k = 0; k < bw->steps->len; k++)
            {
              const CrRecordStep *step = g_ptr_array_index (bw->steps, k);
              if (step->kind == CR_RECORD_STEP_NODE && step->op >= 0
                  && (guint) step->op < record->ops->len && !step->failed)
                g_array_index (coach->op_first_backward, int, step->op) = (int) b;
            }
        }
    }
  if (op < 0 || (guint) op >= coach->op_first_backward->len)
    return -1;
  return g_array_index (coach->op_first_backward, int, op);
}

const char *
cr_coach_tensor_name (CrCoach *coach,
                      int      tensor)
{
  if (tensor < 0 || (guint) tensor >= coach->record->tensors->len)
    return "a tensor";
  const CrRecordTensor *t = g_ptr_array_index (coach->record->tensors, tensor);
  if (t->module_path)
    return t->module_path;
  if (t->name)
    return t->name;
  return t->label ? t->label : "a tensor";
}

/* ---- findings --------------------------------------------------------------- */

CrRecordFinding *
cr_coach_add (CrCoach      *coach,
              const char   *kind,
              const CrSpan *span,
              char         *title,
              char         *explanation)
{
  CrRecordFinding *f = cr_run_record_add_finding (coach->record);
  f->kind = g_strdup (kind);
  f->span = *span;
  f->title = title;
  f->explanation = explanation;
  return f;
}

gboolean
cr_coach_has_finding (CrCoach    *coach,
                      const char *kind,
                      int         line)
{
  for (guint i = 0; i < coach->record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (coach->record->findings, i);
      if (f->span.line == line && (!kind || strcmp (f->kind, kind) == 0))
        return TRUE;
    }
  return FALSE;
}

void
cr_coach_fix_lines (CrCoach         *coach,
                    CrRecordFinding *finding,
                    int              first,
                    int              last,
                    const char      *text)
{
  g_autofree char *last_text = cr_coach_line (coach->source, last);
  if (!last_text)
    return;
  finding->fix_span = (CrSpan) { first, 1, last, (int) g_utf8_strlen (last_text, -1) + 1 };
  g_free (finding->fix);
  finding->fix = g_strdup (text);
}

void
cr_coach_fix_insert_after (CrCoach         *coach,
                           CrRecordFinding *finding,
                           int              line,
                           const char      *line_text)
{
  g_autofree char *text = cr_coach_line (coach->source, line);
  if (!text)
    return;
  int end = (int) g_utf8_strlen (text, -1) + 1;
  finding->fix_span = (CrSpan) { line, end, line, end };
  g_free (finding->fix);
  finding->fix = g_strconcat ("\n", line_text, NULL);
}

void
cr_coach_fix_insert_at (CrRecordFinding *finding,
                        int              line,
                        int              column,
                        const char      *text)
{
  finding->fix_span = (CrSpan) { line, column, line, column };
  g_free (finding->fix);
  finding->fix = g_strdup (text);
}

/* ---- applying a fix ----------------------------------------------------------- */

/* The byte offset of (line, column) in source; FALSE when outside it (the
 * column may be one past the line's end). */
static gboolean
offset_of (const char *source,
           int         line,
           int         column,
           gsize      *out)
{
  gsize len = 0;
  const char *p = line_at (source, line, &len);
  if (!p || column <= 0)
    return FALSE;
  glong chars = g_utf8_strlen (p, (gssize) len);
  if (column - 1 > chars)
    return FALSE;
  *out = (gsize) (g_utf8_offset_to_pointer (p, column - 1) - source);
  return TRUE;
}

char *
cr_coach_apply_fix (const char            *source,
                    const CrRecordFinding *finding)
{
  g_return_val_if_fail (finding != NULL, NULL);
  gsize from, to;
  if (!source || !finding->fix
      || !offset_of (source, finding->fix_span.line, finding->fix_span.column, &from)
      || !offset_of (source, finding->fix_span.end_line, finding->fix_span.end_column, &to)
      || to < from)
    return NULL;
  GString *out = g_string_new_len (source, (gssize) from);
  g_string_append (out, finding->fix);
  g_string_append (out, source + to);
  return g_string_free (out, FALSE);
}

char *
cr_coach_fixed_line (const char            *source,
                     const CrRecordFinding *finding)
{
  g_autofree char *fixed = cr_coach_apply_fix (source, finding);
  if (!fixed)
    return NULL;
  /* The lines the fix leaves: those it rewrites, or those it inserts after
   * a newline. */
  int first = finding->fix_span.line;
  int last = first;
  for (const char *p = finding->fix; *p; p++)
    last += *p == '\n';
  if (finding->fix[0] == '\n')
    first++;
  GString *out = g_string_new (NULL);
  for (int l = first; l <= last; l++)
    {
      g_autofree char *text = cr_coach_line (fixed, l);
      if (!text)
        break;
      if (l > first)
        g_string_append_c (out, '\n');
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}
