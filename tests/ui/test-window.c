/* test-window.c — the window on the toy example: the run finishes, the canvas
 * gets the backward call's graph, and the step actions walk through it with
 * the right enabled states. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window.h"
#include "cr-examples.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <unistd.h>

/* 01-toy-network.py's L.backward() runs 12 steps (`chainrule run
 * --trace-backward` prints them). */
#define TOY_STEPS 12

static gboolean
timed_out_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;
  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_for_run (CrWindow *window)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (30, timed_out_cb, &timed_out);
  /* The run is scheduled by the edit; wait until it started and finished. */
  while (!timed_out && cr_window_is_busy (window))
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (id);
}

static gboolean
enabled (CrWindow   *window,
         const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

static void
test_toy_network (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autofree char *path = g_build_filename (cr_examples_dir (), "01-toy-network.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (cr_window_is_busy (window));
  wait_for_run (window);

  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_nonnull (cr_graph_canvas_get_model (canvas));
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, TOY_STEPS);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_false (enabled (window, "step-back"));
  g_assert_true (enabled (window, "step-forward"));

  for (int i = 0; i < TOY_STEPS; i++)
    {
      g_assert_true (enabled (window, "step-forward"));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-forward", NULL));
      g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, i);
      g_assert_true (enabled (window, "step-back"));
    }
  g_assert_false (enabled (window, "step-forward"));
  g_assert_false (enabled (window, "step-last"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-back", NULL));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_STEPS - 2);
  g_assert_true (enabled (window, "step-forward"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-first", NULL));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_false (enabled (window, "step-back"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_script_error (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (g_getenv ("CR_TEST_BAD_SCRIPT"));
  g_assert_true (cr_window_open_file (window, file, NULL));
  wait_for_run (window);
  /* No tensor requires grad before the error: no graph, nothing to step. */
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_null (cr_graph_canvas_get_model (canvas));
  g_assert_false (enabled (window, "step-forward"));
  g_assert_false (enabled (window, "step-back"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  /* No session bus under xvfb-run: without this the accessibility bridge
   * warns, and G_DEBUG=fatal-warnings makes that fatal. */
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  gtk_source_init ();

  g_autofree char *bad = g_build_filename (g_get_tmp_dir (), "cr-test-window-XXXXXX.py", NULL);
  int fd = g_mkstemp (bad);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (bad, "x = 1\nraise ValueError('boom')\n", -1, NULL));
  g_setenv ("CR_TEST_BAD_SCRIPT", bad, TRUE);

  g_test_add_func ("/ui/window/toy-network", test_toy_network);
  g_test_add_func ("/ui/window/script-error", test_script_error);
  int status = g_test_run ();
  g_unlink (bad);
  return status;
}
