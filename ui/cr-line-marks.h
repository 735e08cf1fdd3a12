/* cr-line-marks.h — whole lines of the editor tinted: an error's lines
 * (cr-window-errors.c) and the coach's findings (cr-window-coach.c), each
 * with a tag of its own in a faint colour that suits the style. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* buffer's tag `name` (made on first use), its paragraph background set to
 * light or dark (CSS colours) by the style now in use; borrowed. */
GtkTextTag *cr_line_marks_tag   (GtkTextBuffer *buffer,
                                 const char    *name,
                                 const char    *light,
                                 const char    *dark);
/* Removes tag from the whole buffer. */
void        cr_line_marks_clear (GtkTextBuffer *buffer,
                                 GtkTextTag    *tag);
/* Tags 1-based line whole; nothing for a line the buffer lacks. */
void        cr_line_marks_add   (GtkTextBuffer *buffer,
                                 GtkTextTag    *tag,
                                 int            line);

G_END_DECLS
