/* cr-window-errors.c — an error of the run pinned to the code: the line that
 * raised it and, for an in-place error, the statement that changed the saved
 * tensor, marked in the editor beside PyTorch's text. (The failing node is
 * marked on the graph by render/cr-graph-render-badges.c, from the same
 * record.) */
#include "cr-config.h"
#include "cr-window-private.h"

#include <adwaita.h>

#define ERROR_LINE_TAG "error-line"

static GtkTextTag *
error_line_tag (GtkTextBuffer *buffer)
{
  GtkTextTagTable *tags = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (tags, ERROR_LINE_TAG);
  if (!tag)
    tag = gtk_text_buffer_create_tag (buffer, ERROR_LINE_TAG, NULL);
  /* Adwaita's error red, faint enough to read the code through, on either style. */
  GdkRGBA red;
  gdk_rgba_parse (&red, adw_style_manager_get_dark (adw_style_manager_get_default ())
                        ? "rgba(255,123,99,0.18)" : "rgba(224,27,36,0.13)");
  g_object_set (tag, "paragraph-background-rgba", &red, NULL);
  return tag;
}

static void
mark_line (GtkTextBuffer *buffer,
           GtkTextTag    *tag,
           int            line)
{
  if (line <= 0 || line > gtk_text_buffer_get_line_count (buffer))
    return;
  GtkTextIter start, end;
  gtk_text_buffer_get_iter_at_line (buffer, &start, line - 1);
  end = start;
  gtk_text_iter_forward_line (&end);
  gtk_text_buffer_apply_tag (buffer, tag, &start, &end);
}

void
cr_window_pin_errors (CrWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextTag *tag = error_line_tag (buffer);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, tag, &start, &end);

  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  /* Spans refer to the text that ran: an example shown without the editor's
   * text, or a stale graph, has nothing to mark. */
  if (!model || !model->record || !self->model_from_editor)
    return;
  const CrRunRecord *record = model->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (record->errors, i);
      /* A backward error belongs to the call shown; a forward one to every view. */
      if (e->backward >= 0 && e->backward != model->backward)
        continue;
      mark_line (buffer, tag, e->span.line);
      mark_line (buffer, tag, e->culprit_span.line);
    }
  cr_window_pin_findings (self);
}
