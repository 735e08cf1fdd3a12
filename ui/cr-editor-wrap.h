/* cr-editor-wrap.h — the script's long lines wrapped for a room: a clicker
 * cannot scroll sideways, and a line cut at the editor's edge hides what
 * the room should read. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Wraps view's long lines (wrap TRUE, at a space where it can) or shows
 * each line on one row again (FALSE). Wrapped, a line's further rows are
 * indented four columns past the line's own indentation, so that they read
 * as its continuation and not as code of its own; the line's number stays
 * on its first row (GtkSourceView numbers lines). font_pt: the size of
 * view's monospace type in points, which the columns are measured in; call
 * again when it changes. Edits are followed while wrapped. */
void cr_editor_wrap_set (GtkTextView *view,
                         gboolean     wrap,
                         double       font_pt);

/* The width in pixels of one column of view's monospace type at font_pt
 * points: what the hanging rows are measured in, and what a pane that
 * should hold so many columns of the script asks for. */
double cr_editor_wrap_column_width (GtkTextView *view,
                                    double       font_pt);

G_END_DECLS
