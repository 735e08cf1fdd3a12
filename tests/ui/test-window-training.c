/* test-window-training.c — the Training page: its loss curve has one point
 * per backward call, a click on a point picks that call (the view's mark,
 * its updates told, the window's picker and graph); a script without a loop
 * hides the page. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-training-view.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

static CrTrainingView *
training_view_of (CrWindow *window)
{
  return CR_TRAINING_VIEW (window->training_view);
}

static gboolean
laid_out (gpointer data)
{
  double x, y;
  return cr_training_view_get_point_position (data, 0, &x, &y);
}

static void
picked_cb (CrTrainingView *view,
           int             backward,
           int            *out)
{
  *out = backward;
}

/* The MLP example trains 201 iterations with SGD: 201 points, and each
 * point clicked picks its call. */
static void
test_mlp_points (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  g_assert_nonnull (window->run_record);
  guint n_calls = window->run_record->backwards->len;
  g_assert_cmpuint (n_calls, ==, 201);
  /* "step   0  loss 0.2388" every 40 steps: six losses, six step counts. */
  g_assert_cmpuint (window->run_record->printed->len, ==, 12);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), ==, "training");
  CrTrainingView *view = training_view_of (window);
  g_assert_cmpuint (cr_training_view_get_n_points (view), ==, n_calls);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  /* The last call is shown first, and marked. */
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, (int) n_calls - 1);

  int picked = -1;
  gulong handler = g_signal_connect (view, "backward-picked", G_CALLBACK (picked_cb), &picked);
  guint probes[] = { 0, 1, 57, 100, 200 };
  for (guint k = 0; k < G_N_ELEMENTS (probes); k++)
    {
      double x, y;
      g_assert_true (cr_training_view_get_point_position (view, probes[k], &x, &y));
      g_assert_cmpint (cr_training_view_click (view, x, y), ==, (int) probes[k]);
      g_assert_cmpint (picked, ==, (int) probes[k]);
      g_assert_cmpint (cr_training_view_get_chosen (view), ==, (int) probes[k]);
      /* The window follows: the picker's call and the graph's. */
      g_assert_cmpuint (window->model_index, ==, probes[k]);
      g_assert_cmpuint (gtk_drop_down_get_selected (window->call_dropdown), ==, probes[k]);
      g_autofree char *step = g_strdup_printf ("SGD step %u", probes[k] + 1);
      g_assert_nonnull (strstr (cr_training_view_get_text (view), step));
    }
  /* The picker moves the mark too. */
  gtk_drop_down_set_selected (window->call_dropdown, 3);
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 3);
  /* Far above the plot, no point. */
  g_assert_cmpint (cr_training_view_click (view, 10, -100), ==, -1);
  g_signal_handler_disconnect (view, handler);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A few Adam steps, each point its own call; the text tells the moments. */
static void
test_adam_script (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "chainrule-test-training.py", NULL);
  g_assert_true (g_file_set_contents (path,
    "import torch\n"
    "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
    "opt = torch.optim.Adam([w], lr=0.1)\n"
    "for i in range(4):\n"
    "    loss = (w ** 2).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n", -1, NULL));
  CrWindow *window = cr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  g_assert_cmpuint (cr_training_view_get_n_points (view), ==, 4);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  double x, y;
  g_assert_true (cr_training_view_get_point_position (view, 1, &x, &y));
  g_assert_cmpint (cr_training_view_click (view, x, y), ==, 1);
  const char *text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "w · Adam step 2"));
  g_assert_nonnull (strstr (text, "m ← β₁·m + (1−β₁)·g"));
  g_assert_nonnull (strstr (text, "m̂ = m / (1 − β₁ᵗ)"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* One backward call and no update: no Training page. */
static void
test_no_loop (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  GtkWidget *scroller = gtk_widget_get_ancestor (window->training_view, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_false (gtk_stack_page_get_visible (gtk_stack_get_page (window->sidebar_stack, scroller)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), !=, "training");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-training/mlp-points", test_mlp_points);
  g_test_add_func ("/window-training/adam-script", test_adam_script);
  g_test_add_func ("/window-training/no-loop", test_no_loop);
  return g_test_run ();
}
