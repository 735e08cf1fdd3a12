/* cr-coach-non-leaf.c — .grad of a non-leaf read: None, with PyTorch's
 * warning. backward fills .grad only for leaves; an intermediate result's
 * gradient flows through it and is not kept unless retain_grad() asked.
 * The fix asks, on the line after the tensor was made. */
#include "cr-coach-private.h"

#include <string.h>

/* Whether an earlier finding already explains why name is a non-leaf (an
 * update outside no_grad rebound it). */
static gboolean
explained (CrCoach    *coach,
           const char *name)
{
  for (guint i = 0; name && i < coach->record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (coach->record->findings, i);
      if (strcmp (f->kind, CR_COACH_UPDATE_OUTSIDE_NO_GRAD) == 0 && f->tensor >= 0
          && g_strcmp0 (cr_coach_tensor_name (coach, f->tensor), name) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_root (const CrRunRecord *record,
         int                backward,
         int                tensor)
{
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  for (guint i = 0; i < bw->roots->len; i++)
    if (g_array_index (bw->roots, int, i) == tensor)
      return TRUE;
  return FALSE;
}

void
cr_coach_detect_non_leaf_grad (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < coach->notes->len; i++)
    {
      const CrCoachNote *note = &g_array_index (coach->notes, CrCoachNote, i);
      if (note->kind != CR_COACH_NOTE_NON_LEAF_GRAD || note->tensor < 0
          || (guint) note->tensor >= record->tensors->len)
        continue;
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, note->tensor);
      /* Only a read after a backward went through the tensor, and not of
       * that backward's root (whose gradient is 1 by definition): before,
       * a leaf's .grad is None too, and nothing was expected. */
      int ran = cr_coach_first_backward (coach, t->op);
      if (ran < 0 || (guint) ran >= note->n_backwards || is_root (record, ran, note->tensor))
        continue;
      if (explained (coach, t->name) || cr_coach_has_finding (coach, CR_COACH_NON_LEAF_GRAD, note->span.line))
        continue;
      const char *name = cr_coach_tensor_name (coach, note->tensor);
      const CrRecordOp *op = t->op >= 0 ? g_ptr_array_index (record->ops, t->op) : NULL;
      g_autofree char *op_line = op ? cr_run_record_line_text (record, op->span.line, FALSE) : NULL;
      g_autofree char *made = op ? g_strdup_printf (" (the output of %s, %s)", op->grad_fn, op_line)
                                 : g_strdup ("");
      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_NON_LEAF_GRAD, &note->span,
        g_strdup_printf ("%s.grad of a non-leaf is None", name),
        g_strdup_printf ("%s is not a leaf%s: it was computed from tensors that require grad. "
                         "backward() fills .grad only for leaves, the tensors you created with "
                         "requires_grad=True; the gradient of an intermediate result flows "
                         "through it to the leaves and is not kept. Ask for it with "
                         "%s.retain_grad() before backward().", name, made, name));
      f->tensor = note->tensor;
      f->op = t->op;
      /* retain_grad() right after the statement that made it, when the
       * script named it there. */
      if (t->name && t->span.line > 0)
        {
          int last = cr_coach_last_line (&t->span);
          g_autofree char *text = cr_coach_line (coach->source, t->span.line);
          g_autofree char *indent = cr_coach_indent (text);
          g_autofree char *call = g_strdup_printf ("%s%s.retain_grad()", indent, t->name);
          cr_coach_fix_insert_after (coach, f, last, call);
        }
    }
}
