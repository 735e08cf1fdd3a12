/* ui-test-script.c — see ui-test-script.h. */
#include "cr-config.h"
#include "ui-test-script.h"

#include <math.h>

char *
cr_ui_test_script_text (CrWindow *window)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

double
cr_ui_test_final_grad (CrWindow   *window,
                       const char *name)
{
  const CrRunRecord *record = window->run_record;
  g_assert_nonnull (record);
  g_assert_cmpuint (record->backwards->len, >, 0);
  int backward = (int) record->backwards->len - 1;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->origin != CR_RECORD_TENSOR_LEAF || g_strcmp0 (t->name, name) != 0)
        continue;
      const CrTensorSnapshot *grad = cr_run_record_grad_at (record, (int) i, backward, (int) bw->steps->len - 1);
      g_assert_nonnull (grad);
      g_assert_cmpint (grad->n_values, >=, 1);
      return grad->values[0];
    }
  g_assert_not_reached ();
  return NAN;
}

GtkWidget *
cr_ui_test_find_named (GtkWidget  *widget,
                       const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = cr_ui_test_find_named (child, name);
      if (found)
        return found;
    }
  return NULL;
}
