/* cr-window-leaf-edit.c — a leaf's value written back into the script
 * (cr-window-leaf-edit.h). */
#include "cr-config.h"
#include "cr-window-leaf-edit.h"

#include "cr-inspector-edit.h"
#include "cr-number-literal.h"

#include <gio/gio.h>
#include <string.h>

/* The buffer's iter at a record's 1-based line and column (code points). */
static void
iter_at_position (GtkTextBuffer *buffer,
                  int            line,
                  int            column,
                  GtkTextIter   *iter)
{
  if (!gtk_text_buffer_get_iter_at_line_offset (buffer, iter, MAX (line - 1, 0), MAX (column - 1, 0)))
    gtk_text_buffer_get_iter_at_line (buffer, iter, MAX (line - 1, 0));
}

gboolean
cr_window_write_leaf_value (CrWindow    *self,
                            guint        tensor,
                            const char  *typed,
                            GError     **error)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (typed != NULL, FALSE);
  const CrRunRecord *record = self->run_record;
  const CrRecordTensor *t = record && tensor < record->tensors->len
                            ? g_ptr_array_index (record->tensors, tensor) : NULL;
  if (!t || t->origin != CR_RECORD_TENSOR_LEAF || !t->value || t->value->n_values != 1)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "Only a leaf of one element can be edited here");
      return FALSE;
    }
  if (!self->model_from_editor || t->span.line <= 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "This leaf was not made by a line of the script");
      return FALSE;
    }
  CrNumberLiteral typed_literal;
  if (!cr_number_literal_parse (typed, &typed_literal))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "“%s” is not a number", typed);
      return FALSE;
    }
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start, end, first, last;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  g_autofree char *text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  iter_at_position (buffer, t->span.line, t->span.column, &first);
  if (t->span.end_line > 0)
    iter_at_position (buffer, t->span.end_line, t->span.end_column, &last);
  else
    {
      last = first;
      gtk_text_iter_forward_to_line_end (&last);
    }
  gsize from = (gsize) (g_utf8_offset_to_pointer (text, gtk_text_iter_get_offset (&first)) - text);
  gsize to = (gsize) (g_utf8_offset_to_pointer (text, gtk_text_iter_get_offset (&last)) - text);
  CrNumberLiteral literal;
  if (!cr_number_literal_find (text, -1, from, to, t->value->values[0], &literal))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "Its value is written as no single number on line %d: edit the script there",
                   t->span.line);
      return FALSE;
    }
  g_autofree char *replacement = cr_number_literal_replacement (&literal, typed);
  GtkTextIter a, b;
  gtk_text_buffer_get_iter_at_offset (buffer, &a, (int) g_utf8_pointer_to_offset (text, text + literal.start));
  gtk_text_buffer_get_iter_at_offset (buffer, &b, (int) g_utf8_pointer_to_offset (text, text + literal.end));
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &a, &b);
  gtk_text_buffer_insert (buffer, &a, replacement, -1);
  gtk_text_buffer_end_user_action (buffer);
  return TRUE;
}

static gboolean
edit_leaf_cb (guint        tensor,
              const char  *typed,
              gpointer     user_data,
              GError     **error)
{
  return cr_window_write_leaf_value (CR_WINDOW (user_data), tensor, typed, error);
}

void
cr_window_leaf_edit_init (CrWindow *self)
{
  if (self->inspector)
    cr_inspector_set_leaf_editor (CR_INSPECTOR (self->inspector), edit_leaf_cb, self);
}
