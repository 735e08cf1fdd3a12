/* cr-line-marks.c — tinted editor lines (cr-line-marks.h). */
#include "cr-config.h"
#include "cr-line-marks.h"

#include <adwaita.h>

GtkTextTag *
cr_line_marks_tag (GtkTextBuffer *buffer,
                   const char    *name,
                   const char    *light,
                   const char    *dark)
{
  GtkTextTagTable *tags = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (tags, name);
  if (!tag)
    tag = gtk_text_buffer_create_tag (buffer, name, NULL);
  GdkRGBA colour;
  gdk_rgba_parse (&colour, adw_style_manager_get_dark (adw_style_manager_get_default ()) ? dark : light);
  g_object_set (tag, "paragraph-background-rgba", &colour, NULL);
  return tag;
}

void
cr_line_marks_clear (GtkTextBuffer *buffer,
                     GtkTextTag    *tag)
{
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, tag, &start, &end);
}

void
cr_line_marks_add (GtkTextBuffer *buffer,
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
