/* cr-coach-cut.c — a value cut from the graph where a gradient was
 * expected, a loss that cannot move:
 *   loss = torch.tensor(out.item(), requires_grad=True)   a new leaf: the
 *        backward stops at it and no parameter gets a gradient;
 *   pred = model(x).detach() ... loss.backward()   "element 0 of tensors
 *        does not require grad and does not have a grad_fn".
 * The interpreter notes every .item(), .tolist(), .detach() and .data of a
 * tensor that requires grad; the coach speaks only when a backward shows
 * the cut mattered. The fix drops the cut. */
#include "cr-coach-private.h"

#include <string.h>

/* The cut's statement without the cut, new string; NULL: none known. */
static char *
without_cut (const char *line,
             const char *what)
{
  g_auto (GStrv) m = NULL;
  if (strcmp (what, "item") == 0
      && cr_coach_match ("^(.*)torch\\.tensor\\((.+?)\\.item\\(\\)\\s*(,\\s*requires_grad\\s*=\\s*True\\s*)?\\)(.*)$",
                         line, &m))
    return g_strdup_printf ("%s%s%s", m[1], m[2], m[4]);
  g_clear_pointer (&m, g_strfreev);
  const char *pattern = strcmp (what, "item") == 0 ? "^(.*?)\\.item\\(\\)(.*)$"
                        : strcmp (what, "detach") == 0 ? "^(.*?)\\.detach\\(\\)(.*)$"
                        : strcmp (what, "data") == 0 ? "^(.*?)\\.data\\b(.*)$" : NULL;
  if (pattern && cr_coach_match (pattern, line, &m))
    return g_strdup_printf ("%s%s", m[1], m[2]);
  return NULL;
}

/* Whether a cut's statement assigns what it cut (print(loss.item()) cuts
 * nothing that matters). */
static gboolean
assigns (const char *line)
{
  return line && !strstr (line, "print(")
         && cr_coach_match ("^\\s*[A-Za-z_][\\w.\\[\\], ]*\\s*(=|\\+=|-=)[^=]", line, NULL);
}

static void
add (CrCoach           *coach,
     const CrCoachNote *cut,
     const CrSpan      *span,
     int                tensor,
     int                backward,
     gboolean           failed)
{
  if (cr_coach_has_finding (coach, CR_COACH_GRADIENT_CUT, span->line))
    return;
  const char *what = cut->what;
  const char *how = strcmp (what, "item") == 0
    ? ".item() turns the tensor into a Python number, which remembers nothing of how it was "
      "computed"
    : strcmp (what, "tolist") == 0
    ? ".tolist() turns the tensor into Python numbers, which remember nothing of how they were "
      "computed"
    : strcmp (what, "detach") == 0
    ? ".detach() gives the same values cut from the graph, with no grad_fn"
    : ".data gives the same values cut from the graph, with no grad_fn";
  const char *effect = failed
    ? "What is computed from it requires no grad, so the backward has no graph to go through "
      "(\"element 0 of tensors does not require grad\")."
    : "A tensor made from it with requires_grad=True is a new leaf: the backward stops right "
      "there, no parameter gets a gradient, and the loss cannot move.";
  g_autofree char *where = cr_run_record_line_text (coach->record, cut->span.line, TRUE);
  CrRecordFinding *f = cr_coach_add (coach, CR_COACH_GRADIENT_CUT, span,
    g_strdup_printf ("the loss is cut from the graph by .%s%s", what,
                     strcmp (what, "data") == 0 ? "" : "()"),
    g_strdup_printf ("%s: %s. %s Keep the tensor itself where a gradient is expected; "
                     "use .%s%s only for what should not be trained, or to print.",
                     where, how, effect, what, strcmp (what, "data") == 0 ? "" : "()"));
  f->tensor = tensor;
  f->backward = backward;
  if (cr_coach_last_line (&cut->span) != cut->span.line)
    return;
  g_autofree char *line = cr_coach_line (coach->source, cut->span.line);
  g_autofree char *fixed = line ? without_cut (line, what) : NULL;
  if (fixed)
    cr_coach_fix_lines (coach, f, cut->span.line, cut->span.line, fixed);
}

void
cr_coach_detect_gradient_cut (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  /* A backward that failed for want of a graph: the last cut assigned
   * before it. */
  for (guint e = 0; e < record->errors->len; e++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, e);
      if (!err->message || !g_str_has_prefix (err->message, "element 0 of tensors does not require grad"))
        continue;
      const CrCoachNote *cut = NULL;
      for (guint i = 0; i < coach->notes->len; i++)
        {
          const CrCoachNote *n = &g_array_index (coach->notes, CrCoachNote, i);
          if (n->kind != CR_COACH_NOTE_GRADIENT_CUT || n->n_errors > e)
            continue;
          g_autofree char *line = cr_coach_line (coach->source, n->span.line);
          if (assigns (line))
            cut = n;
        }
      if (cut)
        add (coach, cut, &cut->span, cut->tensor, err->backward, TRUE);
    }
  /* A backward from a leaf made on the line of a cut. */
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      if (bw->roots->len != 1)
        continue;
      int root = g_array_index (bw->roots, int, 0);
      if (root < 0)
        continue;
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, root);
      if (t->origin != CR_RECORD_TENSOR_LEAF || t->span.line <= 0)
        continue;
      for (guint i = 0; i < coach->notes->len; i++)
        {
          const CrCoachNote *n = &g_array_index (coach->notes, CrCoachNote, i);
          if (n->kind == CR_COACH_NOTE_GRADIENT_CUT && n->span.line == t->span.line
              && n->n_backwards <= b)
            {
              add (coach, n, &n->span, root, (int) b, FALSE);
              break;
            }
        }
    }
}
