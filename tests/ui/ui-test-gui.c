/* ui-test-gui.c — see ui-test-gui.h. */
#include "ui-test-gui.h"

#include <adwaita.h>

void
cr_ui_test_init_gtk (int    *argc,
                     char ***argv)
{
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (argc, argv, NULL);
  adw_init ();
}

static gboolean
window_idle (gpointer window)
{
  return !cr_window_is_busy (window);
}

void
cr_ui_test_wait_window_idle (CrWindow *window)
{
  g_assert_true (cr_ui_test_wait_until (window_idle, window, 30));
}
