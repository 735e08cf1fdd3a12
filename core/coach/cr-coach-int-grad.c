/* cr-coach-int-grad.c — requires_grad on a tensor of integers ("Only
 * Tensors of floating point and complex dtype can require gradients"):
 * torch.tensor([1, 2, 3]) is torch.int64. The fix makes it float: a dtype
 * given, or .float() before requires_grad_(). */
#include "cr-coach-private.h"

#include <string.h>

/* The statement rewritten with a float dtype, new string; NULL: none known. */
static char *
with_float_dtype (const char *line)
{
  g_auto (GStrv) m = NULL;
  /* dtype=torch.long given: float32 instead. */
  if (cr_coach_match ("^(.*\\bdtype\\s*=\\s*)torch\\.(u?int\\d*|long|short|bool|uint8)\\b(.*)$", line, &m))
    return g_strdup_printf ("%storch.float32%s", m[1], m[3]);
  g_clear_pointer (&m, g_strfreev);
  /* A factory's requires_grad=True: a dtype before it. */
  if (cr_coach_match ("^(.*[(,]\\s*)(requires_grad\\s*=.*)$", line, &m))
    return g_strdup_printf ("%sdtype=torch.float32, %s", m[1], m[2]);
  g_clear_pointer (&m, g_strfreev);
  /* x.requires_grad_() or x.requires_grad = True as a statement: x made
   * float first, then asked for its gradient. */
  if (cr_coach_match ("^(\\s*)([A-Za-z_][\\w.]*)\\.requires_grad_\\((.*)\\)\\s*$", line, &m))
    return g_strdup_printf ("%s%s = %s.float().requires_grad_(%s)", m[1], m[2], m[2], m[3]);
  g_clear_pointer (&m, g_strfreev);
  if (cr_coach_match ("^(\\s*)([A-Za-z_][\\w.]*)\\.requires_grad\\s*=\\s*True\\s*$", line, &m))
    return g_strdup_printf ("%s%s = %s.float().requires_grad_()", m[1], m[2], m[2]);
  g_clear_pointer (&m, g_strfreev);
  /* y = torch.tensor([1, 2]).requires_grad_() */
  if (cr_coach_match ("^(.*)(\\.requires_grad_\\(.*)$", line, &m))
    return g_strdup_printf ("%s.float()%s", m[1], m[2]);
  return NULL;
}

void
cr_coach_detect_int_requires_grad (CrCoach *coach)
{
  const CrRunRecord *record = coach->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      if (!err->message
          || (!g_str_has_prefix (err->message, "Only Tensors of floating point")
              && !g_str_has_prefix (err->message, "only Tensors of floating point")))
        continue;
      if (cr_coach_has_finding (coach, CR_COACH_INT_REQUIRES_GRAD, err->span.line))
        continue;
      CrRecordFinding *f = cr_coach_add (coach, CR_COACH_INT_REQUIRES_GRAD, &err->span,
        g_strdup ("requires_grad on a tensor of integers"),
        g_strdup ("Gradients are defined only for floating-point (and complex) tensors: a "
                  "gradient is a rate of change, and integers cannot change by a little. "
                  "torch.tensor([1, 2, 3]) holds integers, so its dtype is torch.int64. "
                  "Make the tensor float: write the numbers as 1., 2., 3., or give "
                  "dtype=torch.float32."));
      f->tensor = err->tensor;
      if (cr_coach_last_line (&err->span) != err->span.line)
        continue;
      g_autofree char *line = cr_coach_line (coach->source, err->span.line);
      g_autofree char *fixed = line ? with_float_dtype (line) : NULL;
      if (fixed)
        cr_coach_fix_lines (coach, f, err->span.line, err->span.line, fixed);
    }
}
