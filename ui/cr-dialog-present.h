/* cr-dialog-present.h — a window of its own (the numeric check's table, the
 * coach's comparison) opened over a window that presents: read from the back
 * of the room as the window under it is. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* When parent is in presentation (its "presentation" CSS class), dialog
 * takes presentation's type (the class; the window's scale provider sizes
 * every window.presentation of the display) and nine tenths of parent's
 * size, never less than its own default size. Otherwise nothing changes.
 * Call it before dialog is presented; parent may be NULL. */
void cr_dialog_follow_presentation (GtkWindow *dialog,
                                    GtkWindow *parent);

G_END_DECLS
