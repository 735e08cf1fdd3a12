/* cr-coach-overwrite.c — a manual gradient written with `=` where paths
 * meet (micrograd's classic bug): in a hand-written backward,
 * `self.grad = other.data * out.grad` replaces the gradient another path
 * stored a moment ago, before anything read it. By the multivariate chain
 * rule the paths' gradients add up: `+=`. The interpreter notes each such
 * replacement (core/lang/cr-run-recorder-coach.c); this turns them into findings. */
#include "cr-coach-private.h"

#include <string.h>

void
cr_coach_detect_grad_overwritten (CrCoach *coach)
{
  for (guint i = 0; i < coach->notes->len; i++)
    {
      const CrCoachNote *n = &g_array_index (coach->notes, CrCoachNote, i);
      if (n->kind != CR_COACH_NOTE_GRAD_OVERWRITTEN || n->span.line <= 0
          || cr_coach_has_finding (coach, CR_COACH_GRAD_OVERWRITTEN, n->span.line))
        continue;
      g_autofree char *line = cr_coach_line (coach->source, n->span.line);
      g_autofree char *other = cr_coach_statement (coach->source, &n->other_span);
      g_autofree char *other_line = cr_run_record_line_text (coach->record, n->other_span.line, FALSE);
      g_autofree char *where = n->other_span.line == n->span.line
        ? g_strdup ("by this same line, for another path")
        : g_strdup_printf ("by %s (%s)", other_line, other ? other : "");
      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_GRAD_OVERWRITTEN, &n->span,
        g_strdup ("a gradient written with = where paths meet"),
        g_strdup_printf ("This value is used more than once, so several paths lead from it to the "
                         "loss, and each path sends it a gradient. The gradient stored %s had not "
                         "been used yet when this line replaced it with =, so that path is lost. "
                         "By the multivariate chain rule the paths' gradients add up: write += "
                         "(and set .grad to 0 before each backward pass).", where));
      g_auto (GStrv) m = NULL;
      if (cr_coach_last_line (&n->span) == n->span.line
          && cr_coach_match ("^(\\s*[A-Za-z_][\\w.\\[\\]]*\\.grad)\\s*=\\s*(.*)$", line, &m))
        {
          g_autofree char *fixed = g_strdup_printf ("%s += %s", m[1], m[2]);
          cr_coach_fix_lines (coach, f, n->span.line, n->span.line, fixed);
        }
    }
}
