/* cr-window-leaf-edit.c — a leaf's value written back into the script, and
 * the editor it is typed in, opened from the graph (cr-window-leaf-edit.h). */
#include "cr-config.h"
#include "cr-window-leaf-edit.h"

#include "cr-graph-canvas.h"
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

/* Tensor of record, when it is what can be edited: a leaf of one element
 * made by a line of the script in the editor; else NULL with error. */
static const CrRecordTensor *
leaf_to_edit (CrWindow           *self,
              const CrRunRecord  *record,
              int                 tensor,
              GError            **error)
{
  const CrRecordTensor *t = record && tensor >= 0 && (guint) tensor < record->tensors->len
                            ? g_ptr_array_index (record->tensors, tensor) : NULL;
  if (!t || t->origin != CR_RECORD_TENSOR_LEAF || !t->value || t->value->n_values != 1)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "Only a leaf of one element can be edited here");
      return NULL;
    }
  if (!self->model_from_editor || record != self->run_record || t->span.line <= 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "This leaf was not made by a line of the script");
      return NULL;
    }
  return t;
}

gboolean
cr_window_write_leaf_value (CrWindow    *self,
                            guint        tensor,
                            const char  *typed,
                            GError     **error)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (typed != NULL, FALSE);
  const CrRecordTensor *t = leaf_to_edit (self, self->run_record, (int) MIN (tensor, (guint) G_MAXINT), error);
  if (!t)
    return FALSE;
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

/* The leaf a node of the graph shown draws, when it can be edited. */
static const CrRecordTensor *
node_leaf (CrWindow           *self,
           const CrGraphModel *model,
           int                 node_id)
{
  if (!model || node_id < 0 || (guint) node_id >= model->nodes->len)
    return NULL;
  const CrGraphNode *node = g_ptr_array_index (model->nodes, node_id);
  if (!CR_GRAPH_NODE_KIND_IS_TENSOR (node->kind))
    return NULL;
  return leaf_to_edit (self, model->record, node->tensor, NULL);
}

static const char *
action_hint (const CrGraphModel *model,
             guint               node_id,
             gpointer            user_data)
{
  return node_leaf (CR_WINDOW (user_data), model, (int) node_id)
         ? "Double-click, or Enter when selected: edit its value" : NULL;
}

gboolean
cr_window_edit_leaf_at_node (CrWindow *self,
                             int       node_id)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  const CrRecordTensor *t = node_leaf (self, cr_graph_canvas_get_model (self->canvas), node_id);
  if (!t)
    return FALSE;
  GtkWidget *popover = cr_leaf_edit_popover_new (t, edit_leaf_cb, self);
  cr_graph_canvas_popup_at_node (self->canvas, popover, node_id);
  return TRUE;
}

static gboolean
on_node_activated (CrGraphCanvas *canvas,
                   int            node_id,
                   CrWindow      *self)
{
  return cr_window_edit_leaf_at_node (self, node_id);
}

void
cr_window_leaf_edit_init (CrWindow *self)
{
  if (self->inspector)
    cr_inspector_set_leaf_editor (CR_INSPECTOR (self->inspector), edit_leaf_cb, self);
  /* The canvas goes with the window: the window outlives its callbacks. */
  cr_graph_canvas_set_action_hint (self->canvas, action_hint, self);
  g_signal_connect (self->canvas, "node-activated", G_CALLBACK (on_node_activated), self);
}
