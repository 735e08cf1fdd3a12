/* cr-dialog-present.c — a dialog over a presenting window
 * (cr-dialog-present.h). */
#include "cr-config.h"
#include "cr-dialog-present.h"

void
cr_dialog_follow_presentation (GtkWindow *dialog,
                               GtkWindow *parent)
{
  g_return_if_fail (GTK_IS_WINDOW (dialog));
  if (!parent || !gtk_widget_has_css_class (GTK_WIDGET (parent), "presentation"))
    return;
  gtk_widget_add_css_class (GTK_WIDGET (dialog), "presentation");
  /* A table or two graphs in a corner of the projector read as small as
   * the window's own type did: most of the screen, the presenting window
   * still showing at its edges. */
  int width = 0, height = 0;
  gtk_window_get_default_size (dialog, &width, &height);
  gtk_window_set_default_size (dialog,
                               MAX (width, gtk_widget_get_width (GTK_WIDGET (parent)) * 9 / 10),
                               MAX (height, gtk_widget_get_height (GTK_WIDGET (parent)) * 9 / 10));
}
