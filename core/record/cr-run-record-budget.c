/* cr-run-record-budget.c — cutting the numbers a record keeps down to a
 * budget after the fact.
 *
 * --trace-backward prints each backward call from the record as soon as it
 * ends, so while a call runs its snapshots may keep every value the trace
 * prints; once printed, the record keeps only what its shared budget
 * allows, as it would have without the trace. */
#include "cr-run-record.h"

/* Snapshots of up to this many elements have a text (cr-tensor-snapshot.c),
 * which may yet be formatted from their values: they keep them all, which
 * costs no more than the text would. */
#define SNAPSHOT_TEXT_MAX_NUMEL 64

/* Keeps at most *budget of s's values, charging what it keeps. */
static void
limit_snapshot (CrTensorSnapshot *s,
                gint64           *budget)
{
  if (!s)
    return;
  gint64 keep = s->numel <= SNAPSHOT_TEXT_MAX_NUMEL ? s->n_values : CLAMP (*budget, 0, s->n_values);
  if (keep < s->n_values)
    {
      if (keep == 0)
        g_clear_pointer (&s->values, g_free);
      else
        s->values = g_renew (double, s->values, keep);
      s->n_values = keep;
    }
  *budget -= keep;
}

static void
limit_step (CrRecordStep *step,
            gint64       *budget)
{
  for (guint i = 0; step->hooks && i < step->hooks->len; i++)
    {
      CrRecordHookCall *hook = step->hooks->pdata[i];
      limit_snapshot (hook->before, budget);
      limit_snapshot (hook->after, budget);
    }
  for (guint i = 0; step->incoming && i < step->incoming->len; i++)
    limit_snapshot (((CrRecordGrad *) step->incoming->pdata[i])->value, budget);
  for (guint i = 0; step->inputs && i < step->inputs->len; i++)
    {
      CrRecordStepInput *in = step->inputs->pdata[i];
      limit_snapshot (in->local, budget);
      limit_snapshot (in->product, budget);
      limit_snapshot (in->outgoing.value, budget);
    }
  for (guint i = 0; step->accumulations && i < step->accumulations->len; i++)
    {
      CrRecordAccumulation *a = step->accumulations->pdata[i];
      limit_snapshot (a->contribution, budget);
      limit_snapshot (a->sum, budget);
    }
  limit_snapshot (step->grad_before, budget);
  limit_snapshot (step->grad_after, budget);
}

gint64
cr_run_record_limit_step_values (CrRunRecord *self,
                                 guint        first_backward,
                                 gint64       budget)
{
  g_return_val_if_fail (self != NULL, budget);
  for (guint b = first_backward; b < self->backwards->len; b++)
    {
      CrRecordBackward *backward = self->backwards->pdata[b];
      for (guint k = 0; backward->steps && k < backward->steps->len; k++)
        limit_step (backward->steps->pdata[k], &budget);
    }
  return budget;
}
