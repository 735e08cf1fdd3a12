/* cr-editor-wrap.c — the script's long lines wrapped for a room
 * (cr-editor-wrap.h). A line's further rows hang by a paragraph tag with
 * a negative indent (Pango's hanging indent: the first row stays, the
 * others start that far in), its line's indentation and four columns
 * more. One tag per depth of indentation, in the buffer's table. */
#include "cr-config.h"
#include "cr-editor-wrap.h"

#include <gtksourceview/gtksource.h>

#define WRAP_DATA "cr-editor-wrap"
/* Further rows start this many columns past their line's indentation. */
#define HANG_COLUMNS 4
/* Deeper than this, the hang stops growing: the rows keep room to read. */
#define MAX_HANG_COLUMNS 16

typedef struct {
  GtkTextBuffer *buffer;   /* owned ref: the buffer the tags are in */
  GPtrArray     *tags;     /* of GtkTextTag (borrowed from the buffer's
                            * table) or NULL, by hang in columns */
  double         column;   /* one column of the type, in pixels */
  gulong         changed;  /* the buffer's "changed" while wrapped, 0 */
} Wrap;

static void
wrap_free (gpointer data)
{
  Wrap *w = data;
  g_clear_signal_handler (&w->changed, w->buffer);
  g_ptr_array_unref (w->tags);
  g_object_unref (w->buffer);
  g_free (w);
}

double
cr_editor_wrap_column_width (GtkTextView *view,
                             double       font_pt)
{
  PangoContext *context = gtk_widget_create_pango_context (GTK_WIDGET (view));
  PangoFontDescription *font = pango_font_description_from_string ("Monospace");
  pango_font_description_set_size (font, (int) (font_pt * PANGO_SCALE));
  PangoFontMetrics *metrics = pango_context_get_metrics (context, font, NULL);
  double width = (double) pango_font_metrics_get_approximate_char_width (metrics) / PANGO_SCALE;
  pango_font_metrics_unref (metrics);
  pango_font_description_free (font);
  g_object_unref (context);
  return width;
}

static void
size_tag (const Wrap *w,
          GtkTextTag *tag,
          guint       hang)
{
  g_object_set (tag, "indent", -(int) (hang * w->column + 0.5), NULL);
}

/* The tag for rows that hang hang columns. */
static GtkTextTag *
hang_tag (Wrap  *w,
          guint  hang)
{
  if (hang >= w->tags->len)
    g_ptr_array_set_size (w->tags, hang + 1);
  GtkTextTag *tag = g_ptr_array_index (w->tags, hang);
  if (!tag)
    {
      /* No hyphen where a name breaks: in code it reads as a minus. */
      tag = gtk_text_buffer_create_tag (w->buffer, NULL, "insert-hyphens", FALSE, NULL);
      size_tag (w, tag, hang);
      g_ptr_array_index (w->tags, hang) = tag;
    }
  return tag;
}

static void
remove_tags (Wrap *w)
{
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (w->buffer, &start, &end);
  for (guint i = 0; i < w->tags->len; i++)
    if (g_ptr_array_index (w->tags, i))
      gtk_text_buffer_remove_tag (w->buffer, g_ptr_array_index (w->tags, i), &start, &end);
}

/* The columns of indentation of the line at iter (a tab to its next stop). */
static guint
indentation (GtkTextIter *iter,
             guint        tab_width)
{
  guint columns = 0;
  GtkTextIter at = *iter;
  for (;; gtk_text_iter_forward_char (&at))
    {
      gunichar c = gtk_text_iter_get_char (&at);
      if (c == ' ')
        columns++;
      else if (c == '\t')
        columns += tab_width - columns % tab_width;
      else
        return columns;
    }
}

static void
hang_lines (Wrap        *w,
            GtkTextView *view)
{
  remove_tags (w);
  guint tab_width = GTK_SOURCE_IS_VIEW (view) ? gtk_source_view_get_tab_width (GTK_SOURCE_VIEW (view)) : 8;
  int lines = gtk_text_buffer_get_line_count (w->buffer);
  for (int line = 0; line < lines; line++)
    {
      GtkTextIter start, next;
      gtk_text_buffer_get_iter_at_line (w->buffer, &start, line);
      next = start;
      if (!gtk_text_iter_forward_line (&next))
        gtk_text_iter_forward_to_end (&next);
      if (gtk_text_iter_equal (&start, &next))
        continue;
      guint hang = MIN (indentation (&start, tab_width) + HANG_COLUMNS, MAX_HANG_COLUMNS);
      gtk_text_buffer_apply_tag (w->buffer, hang_tag (w, hang), &start, &next);
    }
}

/* An edit may have changed a line's indentation, or made a new line. */
static void
on_changed (GtkTextBuffer *buffer,
            GtkTextView   *view)
{
  hang_lines (g_object_get_data (G_OBJECT (view), WRAP_DATA), view);
}

void
cr_editor_wrap_set (GtkTextView *view,
                    gboolean     wrap,
                    double       font_pt)
{
  g_return_if_fail (GTK_IS_TEXT_VIEW (view));
  Wrap *w = g_object_get_data (G_OBJECT (view), WRAP_DATA);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  if (!w || w->buffer != buffer)
    {
      if (!wrap && !w)
        return;
      w = g_new0 (Wrap, 1);
      w->buffer = g_object_ref (buffer);
      w->tags = g_ptr_array_new ();
      g_object_set_data_full (G_OBJECT (view), WRAP_DATA, w, wrap_free);
    }
  gtk_text_view_set_wrap_mode (view, wrap ? GTK_WRAP_WORD_CHAR : GTK_WRAP_NONE);
  if (!wrap)
    {
      g_clear_signal_handler (&w->changed, w->buffer);
      remove_tags (w);
      return;
    }
  w->column = cr_editor_wrap_column_width (view, font_pt);
  for (guint i = 0; i < w->tags->len; i++)
    if (g_ptr_array_index (w->tags, i))
      size_tag (w, g_ptr_array_index (w->tags, i), i);
  if (!w->changed)
    {
      /* Disconnected by wrap_free at the latest, as the view goes. */
      w->changed = g_signal_connect (buffer, "changed", G_CALLBACK (on_changed), view);
      hang_lines (w, view);
    }
}
