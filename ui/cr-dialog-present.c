/* cr-dialog-present.c — a dialog over a presenting window
 * (cr-dialog-present.h). */
#include "cr-config.h"
#include "cr-dialog-present.h"

/* The dialog's size of its own, before presentation made it larger: what
 * it goes back to when presentation stops. */
#define OWN_SIZE "cr-dialog-own-size"

static gboolean
presenting (GtkWindow *window)
{
  return gtk_widget_has_css_class (GTK_WIDGET (window), "presentation");
}

/* The room a presenting parent has: its monitor (it is fullscreen there,
 * or about to be), else its own size. */
static void
presenting_room (GtkWindow *parent,
                 int       *width,
                 int       *height)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (parent));
  GdkMonitor *monitor = surface ? gdk_display_get_monitor_at_surface (gdk_surface_get_display (surface),
                                                                      surface) : NULL;
  if (monitor)
    {
      GdkRectangle geometry;
      gdk_monitor_get_geometry (monitor, &geometry);
      *width = geometry.width;
      *height = geometry.height;
      return;
    }
  *width = gtk_widget_get_width (GTK_WIDGET (parent));
  *height = gtk_widget_get_height (GTK_WIDGET (parent));
}

/* Back to the dialog's own size once its content has taken the window's
 * type: sooner, the window would keep the height that presentation's
 * larger type asked for. */
static void
restore_own_size (GdkFrameClock *clock,
                  GtkWindow     *dialog)
{
  g_signal_handlers_disconnect_by_func (clock, restore_own_size, dialog);
  const int *own = g_object_get_data (G_OBJECT (dialog), OWN_SIZE);
  if (!presenting (dialog))
    gtk_window_set_default_size (dialog, own[0], own[1]);
}

/* dialog takes parent's presentation, or leaves it: the class and the size. */
static void
follow (GtkWindow *dialog,
        GtkWindow *parent)
{
  gboolean presentation = presenting (parent);
  if (presentation == presenting (dialog))
    return;
  const int *own = g_object_get_data (G_OBJECT (dialog), OWN_SIZE);
  if (presentation)
    {
      gtk_widget_add_css_class (GTK_WIDGET (dialog), "presentation");
      /* A table or two graphs in a corner of the projector read as small
       * as the window's own type did: most of the screen, the presenting
       * window still showing at its edges. */
      int width = 0, height = 0;
      presenting_room (parent, &width, &height);
      gtk_window_set_default_size (dialog, MAX (own[0], width * 9 / 10), MAX (own[1], height * 9 / 10));
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (dialog), "presentation");
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (dialog));
  if (clock)
    g_signal_connect_object (clock, "after-paint", G_CALLBACK (restore_own_size), dialog, 0);
  else
    gtk_window_set_default_size (dialog, own[0], own[1]);
}

static void
on_parent_classes (GtkWindow  *parent,
                   GParamSpec *pspec,
                   GtkWindow  *dialog)
{
  follow (dialog, parent);
}

/* F5 over the dialog is F5 over the window it belongs to: a clicker's
 * key starts or stops presentation wherever the focus is. */
static gboolean
toggle_parent_presentation (GtkWidget *dialog,
                            GVariant  *args,
                            gpointer   data)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (dialog));
  return parent && gtk_widget_activate_action (GTK_WIDGET (parent), "win.presentation", NULL);
}

void
cr_dialog_follow_presentation (GtkWindow *dialog,
                               GtkWindow *parent)
{
  g_return_if_fail (GTK_IS_WINDOW (dialog));
  if (!parent)
    return;
  int *own = g_new (int, 2);
  gtk_window_get_default_size (dialog, &own[0], &own[1]);
  g_object_set_data_full (G_OBJECT (dialog), OWN_SIZE, own, g_free);
  follow (dialog, parent);
  /* F5 while it is open: the same look as opened then. */
  g_signal_connect_object (parent, "notify::css-classes", G_CALLBACK (on_parent_classes), dialog, 0);
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_F5, 0),
                      gtk_callback_action_new (toggle_parent_presentation, NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (dialog), keys);
}
