/* cr-coach.c — runs the coach's detectors over a finished record, in the
 * order cr-coach-private.h gives, and orders their findings by line. */
#include "cr-coach-private.h"

static const CrCoachDetector detectors[] = {
  cr_coach_detect_update_outside_no_grad,
  cr_coach_detect_zero_grad_forgotten,
  cr_coach_detect_non_leaf_grad,
  cr_coach_detect_backward_twice,
  cr_coach_detect_in_place_saved,
  cr_coach_detect_int_requires_grad,
  cr_coach_detect_gradient_cut,
  cr_coach_detect_grad_overwritten,
};

GArray *
cr_coach_notes_new (void)
{
  return g_array_new (FALSE, TRUE, sizeof (CrCoachNote));
}

static gint
by_line (gconstpointer a,
         gconstpointer b)
{
  const CrRecordFinding *fa = *(const CrRecordFinding *const *) a;
  const CrRecordFinding *fb = *(const CrRecordFinding *const *) b;
  if (fa->span.line != fb->span.line)
    return fa->span.line < fb->span.line ? -1 : 1;
  return (fa->span.column > fb->span.column) - (fa->span.column < fb->span.column);
}

void
cr_coach_examine (CrRunRecord *record,
                  GArray      *notes)
{
  g_return_if_fail (record != NULL);
  g_autoptr (GArray) no_notes = notes ? NULL : cr_coach_notes_new ();
  CrCoach coach = { record, record->source ? record->source : "", notes ? notes : no_notes, NULL, NULL, 0 };
  guint before = record->findings->len;
  for (guint i = 0; i < G_N_ELEMENTS (detectors); i++)
    detectors[i] (&coach);
  g_clear_pointer (&coach.op_first_backward, g_array_unref);
  g_clear_pointer (&coach.lines, g_strfreev);
  /* A stable sort of the new findings alone: by line, the order the
   * detectors found them within one. */
  if (record->findings->len - before > 1)
    {
      GPtrArray *found = g_ptr_array_new ();
      for (guint i = before; i < record->findings->len; i++)
        g_ptr_array_add (found, record->findings->pdata[i]);
      g_ptr_array_sort (found, by_line);
      for (guint i = 0; i < found->len; i++)
        record->findings->pdata[before + i] = found->pdata[i];
      g_ptr_array_unref (found);
    }
}

const char *
cr_coach_short_title (const char *kind)
{
  static const struct { const char *kind, *words; } shorts[] = {
    { CR_COACH_ZERO_GRAD_FORGOTTEN,    "gradients add up" },
    { CR_COACH_UPDATE_OUTSIDE_NO_GRAD, "no longer a leaf" },
    { CR_COACH_NON_LEAF_GRAD,          ".grad of a non-leaf" },
    { CR_COACH_BACKWARD_TWICE,         "backward twice" },
    { CR_COACH_IN_PLACE_SAVED,         "saved, then changed in place" },
    { CR_COACH_INT_REQUIRES_GRAD,      "integers get no gradient" },
    { CR_COACH_GRADIENT_CUT,           "cut from the graph" },
    { CR_COACH_GRAD_OVERWRITTEN,       "gradient overwritten" },
  };
  for (guint i = 0; kind && i < G_N_ELEMENTS (shorts); i++)
    if (g_str_equal (kind, shorts[i].kind))
      return shorts[i].words;
  return kind ? kind : "";
}
