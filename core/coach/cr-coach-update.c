/* cr-coach-update.c — a parameter update outside torch.no_grad():
 *   w -= lr * w.grad      on a leaf that requires grad fails ("a leaf
 *                         Variable that requires grad is being used in an
 *                         in-place operation");
 *   w = w - lr * w.grad   runs, but records an op: w is now its output, a
 *                         non-leaf, whose .grad stays None (PyTorch warns),
 *                         and the graph grows with every iteration.
 * The fix: the update in place, under torch.no_grad(). */
#include "cr-coach-private.h"

#include <string.h>

/* lines first..last of the source (one statement) under
 * `with torch.no_grad():`, its body indented by 4 more; new string. */
static char *
under_no_grad (CrCoach    *coach,
               int         first,
               int         last,
               const char *replacement)
{
  g_autofree char *first_text = cr_coach_line (coach->source, first);
  g_autofree char *indent = cr_coach_indent (first_text);
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "%swith torch.no_grad():", indent);
  if (replacement)
    {
      g_string_append_printf (out, "\n%s    %s", indent, replacement);
      return g_string_free (out, FALSE);
    }
  for (int l = first; l <= last; l++)
    {
      g_autofree char *text = cr_coach_line (coach->source, l);
      g_string_append_printf (out, "\n    %s", text ? text : "");
    }
  return g_string_free (out, FALSE);
}

/* The leaf's in-place error. */
static void
detect_in_place_leaf (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      if (!err->message || !strstr (err->message, "leaf Variable that requires grad is being used in an in-place operation"))
        continue;
      if (err->span.line <= 0 || cr_coach_has_finding (coach, CR_COACH_UPDATE_OUTSIDE_NO_GRAD, err->span.line))
        continue;
      int leaf = err->operands && err->operands->len ? g_array_index (err->operands, int, 0) : err->tensor;
      const char *name = cr_coach_tensor_name (coach, leaf);
      g_autofree char *statement = cr_coach_statement (coach->source, &err->span);
      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_UPDATE_OUTSIDE_NO_GRAD, &err->span,
        g_strdup_printf ("%s is changed in place while autograd records", name),
        g_strdup_printf ("%s is a leaf that requires grad: a tensor autograd computes gradients "
                         "for. Changing it in place while autograd records (%s) would make the "
                         "graph's own record of it wrong, so PyTorch refuses. A parameter update "
                         "is no part of the model's computation: do it under torch.no_grad(), "
                         "where nothing is recorded.", name, statement ? statement : "this line"));
      f->tensor = leaf;
      int last = cr_coach_last_line (&err->span);
      g_autofree char *fixed = under_no_grad (coach, err->span.line, last, NULL);
      cr_coach_fix_lines (coach, f, err->span.line, last, fixed);
    }
}

/* `w = w - lr * w.grad`: a result bound to the name of the tensor whose
 * .grad the same statement reads. */
static void
detect_rebinding (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->origin != CR_RECORD_TENSOR_RESULT || !t->name || t->op < 0 || t->span.line <= 0
          || cr_coach_last_line (&t->span) != t->span.line
          || cr_coach_has_finding (coach, CR_COACH_UPDATE_OUTSIDE_NO_GRAD, t->span.line))
        continue;
      /* Only once the update mattered: a later backward went through it
       * (the next iteration trains the non-leaf). A one-off that shows
       * what w = w - ... makes is no mistake. */
      if (cr_coach_first_backward (coach, t->op) < 0)
        continue;
      const char *line = cr_coach_source_line (coach, t->span.line);
      g_autofree char *grad = g_strconcat (t->name, ".grad", NULL);
      if (!line || !strstr (line, grad))
        continue;
      g_autofree char *name = g_regex_escape_string (t->name, -1);
      g_autofree char *assign = g_strdup_printf ("^(\\s*)%s\\s*=\\s*(.*\\b%s\\.grad\\b.*?)\\s*$", name, name);
      g_auto (GStrv) m = NULL;
      if (!cr_coach_match (assign, line, &m))
        continue;
      g_autofree char *update = NULL;
      g_auto (GStrv) rhs = NULL;
      g_autofree char *minus = g_strdup_printf ("^%s\\s*(-|\\+)\\s*(.+)$", name);
      if (cr_coach_match (minus, m[2], &rhs))
        update = g_strdup_printf ("%s %s= %s", t->name, rhs[1], rhs[2]);
      else
        update = g_strdup_printf ("%s.copy_(%s)", t->name, m[2]);
      const CrRecordOp *op = g_ptr_array_index (record->ops, t->op);
      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_UPDATE_OUTSIDE_NO_GRAD, &t->span,
        g_strdup_printf ("the update makes %s a non-leaf", t->name),
        g_strdup_printf ("This line runs while autograd records, so %s - ... is one more op of "
                         "the graph (%s), and the name %s now holds its output: a non-leaf, no "
                         "longer the parameter you created. After the next backward its .grad "
                         "is None (PyTorch warns), and the graph grows by these ops with every "
                         "iteration. Update the parameter in place, under torch.no_grad(), "
                         "where nothing is recorded.", t->name, op->grad_fn, t->name));
      f->tensor = (int) i;
      f->op = t->op;
      g_autofree char *fixed = under_no_grad (coach, t->span.line, t->span.line, update);
      cr_coach_fix_lines (coach, f, t->span.line, t->span.line, fixed);
    }
}

void
cr_coach_detect_update_outside_no_grad (CrCoach *coach)
{
  detect_in_place_leaf (coach);
  detect_rebinding (coach);
}
