/* cr-coach-zero-grad.c — a forgotten zero_grad(): a backward added its
 * gradient to a .grad that still held the last iteration's, after the
 * parameter had been updated with it. Every update then uses the sum of
 * all gradients so far.
 *
 * It fires only on that evidence: a leaf's AccumulateGrad found a .grad
 * that was neither None nor zero, and between the backward that wrote that
 * .grad and this one the leaf's values changed in place (an optimizer
 * step, w -= lr * w.grad under no_grad). Gradients summed over a batch
 * loop on purpose, with one update after the loop, change no leaf in
 * between, and say nothing. */
#include "cr-coach-private.h"

#include <math.h>
#include <string.h>

/* Whether a snapshot is None or all zeros. */
static gboolean
is_zero (const CrTensorSnapshot *s)
{
  return !s || (s->numel > 0 && s->min == 0 && s->max == 0) || s->numel == 0;
}

/* leaf -> GArray of const CrCoachNote*: its updates, in the order noted
 * (so by n_backwards). */
static GHashTable *
updates_by_leaf (CrCoach *coach)
{
  GHashTable *updates = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                               (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < coach->notes->len; i++)
    {
      const CrCoachNote *n = &g_array_index (coach->notes, CrCoachNote, i);
      if (n->kind != CR_COACH_NOTE_LEAF_UPDATED || n->tensor < 0)
        continue;
      GPtrArray *list = g_hash_table_lookup (updates, GINT_TO_POINTER (n->tensor));
      if (!list)
        {
          list = g_ptr_array_new ();
          g_hash_table_insert (updates, GINT_TO_POINTER (n->tensor), list);
        }
      g_ptr_array_add (list, (gpointer) n);
    }
  return updates;
}

/* The first of a leaf's updates noted after backward call `after` ran and
 * before call `before` began; NULL: none. */
static const CrCoachNote *
update_between (GPtrArray *list,
                int        after,
                int        before)
{
  /* The first noted after `after`: a binary search, the list is sorted. */
  guint lo = 0, hi = list ? list->len : 0;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const CrCoachNote *n = g_ptr_array_index (list, mid);
      if ((int) n->n_backwards > after)
        hi = mid;
      else
        lo = mid + 1;
    }
  if (!list || lo >= list->len)
    return NULL;
  const CrCoachNote *n = g_ptr_array_index (list, lo);
  return (int) n->n_backwards <= before ? n : NULL;
}

/* The fix: after the update statement, a line that zeroes what it used. */
static void
set_fix (CrCoach         *coach,
         CrRecordFinding *f,
         const CrSpan    *update,
         const char      *leaf_name)
{
  int last = cr_coach_last_line (update);
  g_autofree char *first_text = cr_coach_line (coach->source, update->line);
  g_autofree char *indent = cr_coach_indent (first_text);
  g_autofree char *statement = cr_coach_statement (coach->source, update);
  g_auto (GStrv) step = NULL;
  g_auto (GStrv) target = NULL;
  g_autofree char *line = NULL;
  if (cr_coach_match ("^([A-Za-z_][\\w.]*)\\.step\\(", statement, &step))
    line = g_strdup_printf ("%s%s.zero_grad()", indent, step[1]);
  else if (cr_coach_match ("^([A-Za-z_][\\w.\\[\\]]*?)(\\.data)?(\\s*[-+*/]=|\\.[a-z]+_\\()", statement, &target))
    line = g_strdup_printf ("%s%s.grad.zero_()", indent, target[1]);
  else if (leaf_name && cr_coach_match ("^[A-Za-z_][\\w.]*$", leaf_name, NULL))
    line = g_strdup_printf ("%s%s.grad.zero_()", indent, leaf_name);
  if (line)
    cr_coach_fix_insert_after (coach, f, last, line);
}

/* leaf -> GArray of int: the backward calls that accumulated into it, in
 * order. */
static GHashTable *
accumulations_by_leaf (const CrRunRecord *record)
{
  GHashTable *writes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                              (GDestroyNotify) g_array_unref);
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      for (guint k = 0; k < bw->steps->len; k++)
        {
          const CrRecordStep *step = g_ptr_array_index (bw->steps, k);
          if (step->kind != CR_RECORD_STEP_ACCUMULATE || step->leaf < 0)
            continue;
          GArray *list = g_hash_table_lookup (writes, GINT_TO_POINTER (step->leaf));
          if (!list)
            {
              list = g_array_new (FALSE, FALSE, sizeof (int));
              g_hash_table_insert (writes, GINT_TO_POINTER (step->leaf), list);
            }
          int bi = (int) b;
          if (list->len == 0 || g_array_index (list, int, list->len - 1) != bi)
            g_array_append_val (list, bi);
        }
    }
  return writes;
}

/* The first backward call after b that accumulated into the leaf of list;
 * G_MAXINT: none. */
static int
next_write (GArray *list,
            int     b)
{
  for (guint i = 0; list && i < list->len; i++)
    if (g_array_index (list, int, i) > b)
      return g_array_index (list, int, i);
  return G_MAXINT;
}

void
cr_coach_detect_zero_grad_forgotten (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  /* leaf -> the last backward call that accumulated into it, + 1 */
  g_autoptr (GHashTable) last_write = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* update statements already explained: line -> TRUE */
  g_autoptr (GHashTable) explained = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* leaves already told about: once each */
  g_autoptr (GHashTable) told = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) updates = updates_by_leaf (coach);
  if (g_hash_table_size (updates) == 0)
    return;
  g_autoptr (GHashTable) writes = accumulations_by_leaf (record);
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      for (guint k = 0; k < bw->steps->len; k++)
        {
          const CrRecordStep *step = g_ptr_array_index (bw->steps, k);
          if (step->kind != CR_RECORD_STEP_ACCUMULATE || step->leaf < 0)
            continue;
          gpointer key = GINT_TO_POINTER (step->leaf);
          int previous = GPOINTER_TO_INT (g_hash_table_lookup (last_write, key)) - 1;
          g_hash_table_insert (last_write, key, GINT_TO_POINTER ((int) b + 1));
          if (previous < 0 || is_zero (step->grad_before) || g_hash_table_contains (told, key))
            continue;
          const CrCoachNote *update = update_between (g_hash_table_lookup (updates, key),
                                                      previous, (int) b);
          if (!update || update->span.line <= 0)
            continue;
          /* And the sum was used: an update followed before the next
           * backward into the leaf (a GAN's generator step adds into the
           * discriminator's .grad, which is zeroed before its next update:
           * no mistake). */
          GPtrArray *leaf_updates = g_hash_table_lookup (updates, key);
          if (!update_between (leaf_updates, (int) b,
                               next_write (g_hash_table_lookup (writes, key), (int) b)))
            continue;
          g_hash_table_add (told, key);
          if (g_hash_table_contains (explained, GINT_TO_POINTER (update->span.line)))
            continue;
          g_hash_table_add (explained, GINT_TO_POINTER (update->span.line));

          const char *name = cr_coach_tensor_name (coach, step->leaf);
          const CrRecordBackward *prev = g_ptr_array_index (record->backwards, previous);
          g_autofree char *before = cr_coach_value_text (step->grad_before);
          g_autofree char *after = cr_coach_value_text (step->grad_after);
          g_autofree char *when_prev = prev->iteration
                                       ? g_strdup_printf ("iteration %u", prev->iteration)
                                       : cr_run_record_line_text (record, prev->span.line, FALSE);
          g_autofree char *when_now = bw->iteration
                                      ? g_strdup_printf ("iteration %u", bw->iteration)
                                      : cr_run_record_line_text (record, bw->span.line, FALSE);
          g_autofree char *update_line = cr_run_record_line_text (record, update->span.line, FALSE);
          CrRecordFinding *f = cr_coach_add (coach, CR_COACH_ZERO_GRAD_FORGOTTEN, &bw->span,
            g_strdup ("gradients add up over iterations: zero_grad() is missing"),
            g_strdup_printf ("%s.grad still held %s from the backward of %s when the backward of "
                             "%s added its own gradient to it (giving %s). backward() adds into "
                             ".grad, it never overwrites it, and nothing set it back to zero after "
                             "%s used it to update %s. So every update uses the sum of all "
                             "the gradients so far, and the steps grow. Zero the gradients once per "
                             "iteration, after the update (or before the backward).",
                             name, before, when_prev, when_now, after, update_line, name));
          f->tensor = step->leaf;
          f->backward = (int) b;
          const CrRecordTensor *leaf = g_ptr_array_index (record->tensors, step->leaf);
          set_fix (coach, f, &update->span, leaf->name);
        }
    }
}
