/* cr-dialog-present.h — a window of its own (the numeric check's table, the
 * coach's comparison) opened over a window that presents: read from the back
 * of the room as the window under it is. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* While parent is in presentation (its "presentation" CSS class), dialog
 * takes presentation's type (the class; the window's scale provider sizes
 * every window.presentation of the display) and nine tenths of the room
 * parent presents in (its monitor's size, else its own), never less than
 * its own default size; when parent leaves presentation, dialog does too
 * and takes its own size again. It follows each toggle for as long as it
 * lives: a dialog that draws by itself watches its own "presentation"
 * class (notify::css-classes). F5 over dialog starts or stops
 * presentation as over parent. Call it once, dialog transient for parent,
 * before it is presented; parent may be NULL (nothing changes). */
void cr_dialog_follow_presentation (GtkWindow *dialog,
                                    GtkWindow *parent);

G_END_DECLS
