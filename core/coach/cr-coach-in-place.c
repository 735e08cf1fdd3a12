/* cr-coach-in-place.c — a tensor that an op saved for its backward formula
 * was changed in place afterwards, so backward refuses it ("one of the
 * variables needed for gradient computation has been modified by an
 * inplace operation"). The fix makes the change make a new tensor:
 * `y += 1` -> `y = y + 1`, `y.add_(1)` -> `y = y.add(1)`; an item assigned
 * (`y[0] = 5`) changes a copy made just before. */
#include "cr-coach-private.h"

#include <string.h>

/* The culprit statement rewritten out of place, new string; NULL: no
 * rewrite known. */
static char *
out_of_place (const char *line)
{
  g_auto (GStrv) m = NULL;
  if (cr_coach_match ("^(\\s*)([A-Za-z_][\\w.]*)\\s*(\\+|-|\\*|/|@)=\\s*(.+?)\\s*$", line, &m))
    {
      /* Parentheses where the right side has operators and could bind
       * otherwise: y -= a + b is y = y - (a + b). */
      gboolean wrap = strcmp (m[3], "+") != 0 && strpbrk (m[4], "+-*/@ ") != NULL;
      return g_strdup_printf ("%s%s = %s %s %s%s%s", m[1], m[2], m[2], m[3],
                              wrap ? "(" : "", m[4], wrap ? ")" : "");
    }
  g_clear_pointer (&m, g_strfreev);
  if (cr_coach_match ("^(\\s*)([A-Za-z_][\\w.]*)\\.([a-z][a-z0-9_]*[a-z0-9])_\\((.*)\\)\\s*$", line, &m))
    {
      if (strcmp (m[3], "zero") == 0 || strcmp (m[3], "fill") == 0 || strcmp (m[3], "copy") == 0)
        return NULL;
      return g_strdup_printf ("%s%s = %s.%s(%s)", m[1], m[2], m[2], m[3], m[4]);
    }
  g_clear_pointer (&m, g_strfreev);
  /* y[0] = 5: the item changes a copy, which the rest of the script uses. */
  if (cr_coach_match ("^(\\s*)([A-Za-z_]\\w*)\\[.*\\]\\s*(=|\\+=|-=|\\*=|/=)", line, &m))
    return g_strdup_printf ("%s%s = %s.clone()\n%s", m[1], m[2], m[2], line);
  return NULL;
}

void
cr_coach_detect_in_place_saved (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      if (!err->message || !strstr (err->message, "has been modified by an inplace operation"))
        continue;
      if (cr_coach_has_finding (coach, CR_COACH_IN_PLACE_SAVED, err->span.line))
        continue;
      const CrRecordOp *op = err->op >= 0 && (guint) err->op < record->ops->len
                             ? g_ptr_array_index (record->ops, err->op) : NULL;
      const char *name = cr_coach_tensor_name (coach, err->tensor);
      g_autofree char *culprit = cr_coach_statement (coach->source, &err->culprit_span);

      GString *why = g_string_new (NULL);
      g_autofree char *op_line = op ? cr_run_record_line_text (record, op->span.line, FALSE) : NULL;
      g_autofree char *culprit_line = cr_run_record_line_text (record, err->culprit_span.line, TRUE);
      if (op && op->caption)
        g_string_append_printf (why, "%s (%s, %s) saved %s to compute its local gradient. ",
                                op->grad_fn, op->caption, op_line, name);
      else
        g_string_append_printf (why, "%s saved %s to compute its local gradient. ",
                                op ? op->grad_fn : "An op", name);
      if (culprit)
        g_string_append_printf (why, "%s (%s) then changed %s in place, ", culprit_line, culprit,
                                name);
      else
        g_string_append_printf (why, "Then %s was changed in place, ", name);
      g_string_append (why,
        "so the value saved is no longer the one the forward pass used, and backward refuses "
        "it (the tensor's version counter moved on). Make the change create a new tensor "
        "instead of overwriting the saved one.");

      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_IN_PLACE_SAVED,
                                         err->culprit_span.line > 0 ? &err->culprit_span : &err->span,
                                         g_strdup_printf ("%s was changed in place after an op saved it",
                                                          name),
                                         g_string_free (why, FALSE));
      f->op = err->op;
      f->tensor = err->tensor;
      f->backward = err->backward;
      if (err->culprit_span.line <= 0 || cr_coach_last_line (&err->culprit_span) != err->culprit_span.line)
        continue;
      g_autofree char *line = cr_coach_line (coach->source, err->culprit_span.line);
      g_autofree char *fixed = line ? out_of_place (line) : NULL;
      if (fixed)
        cr_coach_fix_lines (coach, f, err->culprit_span.line, err->culprit_span.line, fixed);
    }
}
