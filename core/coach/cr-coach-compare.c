/* cr-coach-compare.c — series of two runs to compare (cr-coach-compare.h). */
#include "cr-coach-compare.h"

#include "cr-record-text.h"

#include <math.h>

GArray *
cr_coach_losses (const CrRunRecord *record)
{
  if (!record || record->backwards->len == 0)
    return NULL;
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      int root = bw->roots->len == 1 ? g_array_index (bw->roots, int, 0) : -1;
      const CrRecordTensor *t = root >= 0 && (guint) root < record->tensors->len
                                ? g_ptr_array_index (record->tensors, root) : NULL;
      if (!t || !t->value || t->value->numel != 1 || t->value->n_values < 1)
        {
          g_array_unref (values);
          return NULL;
        }
      double v = t->value->values[0];
      g_array_append_val (values, v);
    }
  return values;
}

GArray *
cr_coach_grad_history (const CrRunRecord *record,
                       int                tensor)
{
  if (!record || tensor < 0 || (guint) tensor >= record->tensors->len
      || record->backwards->len == 0)
    return NULL;
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      const CrTensorSnapshot *grad = cr_run_record_grad_at (record, tensor, (int) b,
                                                            (int) bw->steps->len - 1);
      double v = grad && grad->n_values > 0 ? grad->values[0] : NAN;
      g_array_append_val (values, v);
    }
  return values;
}

int
cr_coach_same_leaf (const CrRunRecord *record,
                    int                tensor,
                    const CrRunRecord *other)
{
  const char *label = cr_record_tensor_label (record, tensor, NULL);
  if (!label || !other)
    return -1;
  for (guint i = 0; i < other->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (other->tensors, i);
      if (t->origin == CR_RECORD_TENSOR_LEAF && g_strcmp0 (t->label, label) == 0)
        return (int) i;
    }
  return -1;
}

char *
cr_coach_series_text (const GArray *values)
{
  GString *out = g_string_new (NULL);
  guint n = values ? values->len : 0;
  for (guint i = 0; i < n; i++)
    {
      if (n > 6 && i == 4)
        {
          g_string_append (out, ", …");
          i = n - 2;
          continue;
        }
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      double v = g_array_index (values, double, i);
      if (isnan (v))
        g_strlcpy (number, "None", sizeof number);
      else
        g_ascii_formatd (number, sizeof number, "%.4g", v);
      g_string_append_printf (out, "%s%s", i ? ", " : "", number);
    }
  if (n > 6)
    g_string_append_printf (out, " (%u calls)", n);
  return g_string_free (out, FALSE);
}
