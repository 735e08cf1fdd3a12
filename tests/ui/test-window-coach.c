/* test-window-coach.c — the mistakes coach in the window: an example shows
 * no advice; a script that backpropagates twice through a freed graph gets
 * its line tinted and the coach's bar; the bar's Fix edits the code, the
 * script runs again, and the advice is gone. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-examples.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <string.h>

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  *finished = TRUE;
}

static void
wait_for_run_finished (CrWindow *window)
{
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
}

static GtkTextBuffer *
buffer_of (CrWindow *window)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
}

static gboolean
line_has_tag (CrWindow   *window,
              int         line,
              const char *tag_name)
{
  GtkTextBuffer *buffer = buffer_of (window);
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);
  if (!tag)
    return FALSE;
  GtkTextIter iter;
  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  return gtk_text_iter_has_tag (&iter, tag);
}

static void
test_fix_runs_again (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autofree char *path = g_build_filename (cr_examples_dir (), "01-toy-network.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  /* An example makes no mistake. */
  g_assert_false (cr_window_coach_shown (window));

  gtk_text_buffer_set_text (buffer_of (window),
                            "import torch\n"
                            "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                            "loss = (w.exp() * w).sum()\n"
                            "loss.backward()\n"
                            "loss.backward()\n", -1);
  wait_for_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (cr_window_coach_shown (window));
  g_assert_true (line_has_tag (window, 5, "coach-line"));
  g_assert_false (line_has_tag (window, 3, "coach-line"));

  cr_window_coach_apply_fix (window);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer_of (window), &start, &end);
  g_autofree char *text = gtk_text_buffer_get_text (buffer_of (window), &start, &end, FALSE);
  g_assert_nonnull (strstr (text, "loss.backward(retain_graph=True)\nloss.backward()\n"));
  wait_for_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_false (cr_window_coach_shown (window));
  g_assert_false (line_has_tag (window, 5, "coach-line"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-coach/fix-runs-again", test_fix_runs_again);
  return g_test_run ();
}
