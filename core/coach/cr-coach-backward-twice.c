/* cr-coach-backward-twice.c — a second backward through a graph whose
 * saved tensors the first backward freed: PyTorch's "Trying to backward
 * through the graph a second time". The fix keeps them on the first call
 * (retain_graph=True); the explanation also names the other way out,
 * building the graph again. */
#include "cr-coach-private.h"

#include <string.h>

/* The backward call that freed what op saved, -1 when not known. */
static int
freeing_backward (const CrRunRecord *record,
                  int                op)
{
  if (op < 0 || (guint) op >= record->ops->len)
    return -1;
  const CrRecordOp *o = g_ptr_array_index (record->ops, op);
  for (guint i = 0; i < o->saved->len; i++)
    {
      const CrRecordSaved *s = g_ptr_array_index (o->saved, i);
      if (s->freed_backward >= 0)
        return s->freed_backward;
    }
  return -1;
}

/* In line text of the call at span, where its argument list closes: the
 * byte offset of the ')' of the first "backward(" or "grad(" from the
 * span's column; *empty when it has no arguments. FALSE: not found. */
static gboolean
call_close (const char   *text,
            const CrSpan *span,
            gsize        *close,
            gboolean     *empty)
{
  const char *from = g_utf8_offset_to_pointer (text, MAX (span->column - 1, 0));
  const char *open = NULL;
  for (const char *names[] = { "backward(", "grad(" }, **n = names; n < names + 2 && !open; n++)
    {
      const char *at = strstr (from, *n);
      if (at)
        open = at + strlen (*n) - 1;
    }
  if (!open)
    return FALSE;
  int depth = 0;
  for (const char *p = open; *p; p++)
    {
      if (*p == '(' || *p == '[' || *p == '{')
        depth++;
      else if (*p == ')' || *p == ']' || *p == '}')
        {
          if (--depth == 0)
            {
              *close = (gsize) (p - text);
              const char *q = open + 1;
              while (q < p && (*q == ' ' || *q == '\t'))
                q++;
              *empty = q == p;
              return TRUE;
            }
        }
    }
  return FALSE;
}

void
cr_coach_detect_backward_twice (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      if (!err->message || !g_str_has_prefix (err->message, "Trying to backward through the graph a second time"))
        continue;
      if (cr_coach_has_finding (coach, CR_COACH_BACKWARD_TWICE, err->span.line))
        continue;
      int first = freeing_backward (record, err->op);
      if (first < 0)
        {
          /* The last backward before that freed what it went through. */
          for (int b = (err->backward >= 0 ? err->backward : (int) record->backwards->len) - 1; b >= 0 && first < 0; b--)
            {
              const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
              if (bw->succeeded && !bw->retain_graph)
                first = b;
            }
        }
      const CrRecordBackward *freer = first >= 0 ? g_ptr_array_index (record->backwards, first) : NULL;
      const CrRecordOp *op = err->op >= 0 && (guint) err->op < record->ops->len
                             ? g_ptr_array_index (record->ops, err->op) : NULL;

      GString *why = g_string_new (NULL);
      g_autofree char *err_line = cr_run_record_line_text (record, err->span.line, FALSE);
      g_autofree char *freer_line = freer ? cr_run_record_line_text (record, freer->span.line, FALSE)
                                          : NULL;
      if (freer && freer->span.line == err->span.line)
        g_string_append_printf (why,
          "The backward call on %s runs more than once through the same graph: the graph "
          "was built once (before the loop) and the first backward freed the tensors it saved. ",
          err_line);
      else if (freer)
        g_string_append_printf (why,
          "The backward call on %s freed the tensors the graph saved for its backward pass; "
          "the call on %s needs them again. ", freer_line, err_line);
      else
        g_string_append (why, "An earlier backward call freed the tensors this graph saved for its "
                              "backward pass, and this call needs them again. ");
      if (op)
        g_string_append_printf (why, "%s needs what it saved to compute its local gradients. ", op->grad_fn);
      g_string_append (why,
        "Either keep them: retain_graph=True on the first call (the gradients then add up in "
        ".grad), or build the graph again (run the forward pass again) before each backward.");

      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_BACKWARD_TWICE, &err->span,
                                         g_strdup ("backward through the same graph twice"),
                                         g_string_free (why, FALSE));
      f->op = err->op;
      f->backward = err->backward;
      if (!freer)
        continue;
      g_autofree char *text = cr_coach_line (coach->source, freer->span.line);
      gsize close;
      gboolean empty;
      if (text && call_close (text, &freer->span, &close, &empty))
        cr_coach_fix_insert_at (f, freer->span.line, cr_coach_column_of (text, close),
                                empty ? "retain_graph=True" : ", retain_graph=True");
    }
}
