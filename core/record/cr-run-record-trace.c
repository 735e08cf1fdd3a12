/* cr-run-record-trace.c — a backward call of the run record as the text of
 * --trace-backward (the format is in cr-run-record-trace.h).
 *
 * Every step is told by core's CrStepText (cr-step-text.h), as plain text:
 * the words the step card shows and the handout prints, so that the
 * terminal, the window and the paper never say different things. This file
 * adds only the call's heading and the indent. */
#include "cr-run-record-trace.h"

#include "cr-record-text.h"
#include "cr-step-text.h"

#include <string.h>

/* ---- source text ------------------------------------------------------------ */

/* The text a span covers in the record's source (its first line only, with
 * an ellipsis past it), or NULL. */
static char *
span_text (const CrRunRecord *record,
           const CrSpan      *span)
{
  if (!record->source || span->line <= 0)
    return NULL;
  const char *line = record->source;
  for (int l = 1; l < span->line && line; l++)
    {
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  if (!line)
    return NULL;
  const char *eol = strchr (line, '\n');
  g_autofree char *whole = g_strndup (line, eol ? (gsize) (eol - line) : strlen (line));
  if (!g_utf8_validate (whole, -1, NULL))
    return NULL;
  glong len = g_utf8_strlen (whole, -1);
  glong start = span->column > 0 ? MIN ((glong) span->column - 1, len) : 0;
  glong end = len;
  if (span->end_line == span->line && span->end_column > span->column)
    end = MIN ((glong) span->end_column - 1, len);
  const char *from = g_utf8_offset_to_pointer (whole, start);
  const char *to = g_utf8_offset_to_pointer (whole, end);
  char *text = g_strstrip (g_strndup (from, (gsize) (to - from)));
  if (span->end_line > span->line)
    {
      char *more = g_strconcat (text, " …", NULL);
      g_free (text);
      text = more;
    }
  return text;
}

/* ---- the call ---------------------------------------------------------------- */

/* Appends text's lines, each after indent (an empty line stays empty). */
static void
append_indented (GString    *out,
                 const char *text,
                 const char *indent)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      if (!lines[i + 1] && !*lines[i])
        break;   /* the text's own last newline */
      if (*lines[i])
        g_string_append_printf (out, "%s%s\n", indent, lines[i]);
      else
        g_string_append_c (out, '\n');
    }
}

char *
cr_run_record_trace_backward (const CrRunRecord *record,
                              guint              backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (backward >= record->backwards->len)
    return g_strdup ("");
  const CrRecordBackward *b = record->backwards->pdata[backward];
  GString *out = g_string_new (NULL);
  g_autofree char *call = span_text (record, &b->span);
  g_autofree char *where = cr_run_record_line_text (record, b->span.line, FALSE);
  if (call)
    g_string_append_printf (out, "backward #%u: %s at %s\n", backward + 1, call, where);
  else
    g_string_append_printf (out, "backward #%u\n", backward + 1);
  for (guint i = 0; b->steps && i < b->steps->len; i++)
    {
      g_autoptr (CrStepText) text = cr_step_text_new (record, (int) backward, (int) i);
      if (!text)
        continue;
      g_autofree char *plain = cr_step_text_plain (text);
      g_string_append_c (out, '\n');
      append_indented (out, plain, "  ");
    }
  /* A call that failed before its first step: its error, as a step's. */
  if (!b->succeeded && (!b->steps || b->steps->len == 0))
    {
      const CrRecordError *error = b->error >= 0 && (guint) b->error < record->errors->len
                                   ? record->errors->pdata[b->error] : NULL;
      g_autoptr (CrStepTextSection) s = cr_step_text_error_section (record, error,
                                                                    CR_STEP_TEXT_FAILED_LEAD);
      g_autofree char *plain = cr_step_text_section_plain (s);
      g_string_append_c (out, '\n');
      append_indented (out, plain, "  ");
    }
  return g_string_free (out, FALSE);
}
