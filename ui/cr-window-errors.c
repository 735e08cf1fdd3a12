/* cr-window-errors.c — an error of the run pinned to the code: the line that
 * raised it and, for an in-place error, the statement that changed the saved
 * tensor, marked in the editor beside PyTorch's text. (The failing node is
 * marked on the graph by render/cr-graph-render-badges.c, from the same
 * record.) */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-line-marks.h"

#define ERROR_LINE_TAG "error-line"

void
cr_window_pin_errors (CrWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  /* Adwaita's error red, faint enough to read the code through. */
  GtkTextTag *tag = cr_line_marks_tag (buffer, ERROR_LINE_TAG, "rgba(224,27,36,0.13)",
                                       "rgba(255,123,99,0.18)");
  cr_line_marks_clear (buffer, tag);

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
      cr_line_marks_add (buffer, tag, e->span.line);
      cr_line_marks_add (buffer, tag, e->culprit_span.line);
    }
  cr_window_pin_findings (self);
}
