/* cr-widget-same.h — whether two widget trees show the same thing, so that a
 * panel rebuilt after a re-run can keep the one on screen: a new tree is
 * measured, its text shaped and laid out again, which was most of the frame
 * that shows an edit's result. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE when a and b (unparented or not) are trees of the same widget types
 * with the same texts, style classes, layout properties and children, as the
 * card builders (cr-card-style.h, cr-tensor-view.h, cr-formula-flow.h) make
 * them. A widget type it does not know makes it FALSE: a tree it cannot
 * compare is rebuilt, never kept wrongly. */
gboolean cr_widget_same (GtkWidget *a,
                         GtkWidget *b);

G_END_DECLS
