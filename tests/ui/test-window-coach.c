/* test-window-coach.c — the mistakes coach in the window: an example shows
 * no advice; a script that backpropagates twice through a freed graph gets
 * its line tinted and the coach's bar; the bar's Fix edits the code, the
 * script runs again, the advice is gone and the corrected run is shown
 * beside the original (its window, what changed). A forgotten zero_grad's
 * comparison has the two loss curves and the parameter's .grad, and
 * Compare shows it before Fix, the script unchanged. The
 * window's Export Handout writes the call shown. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-compare-window.h"
#include "cr-window-private.h"
#include "cr-examples.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

#define COMPARE_TITLE "The Corrected Run Beside the Original"

/* The comparison window open now, or NULL. */
static GtkWindow *
compare_window (void)
{
  GtkWindow *found = NULL;
  GList *all = gtk_window_list_toplevels ();
  for (GList *l = all; l; l = l->next)
    if (g_strcmp0 (gtk_window_get_title (l->data), COMPARE_TITLE) == 0)
      found = l->data;
  g_list_free (all);
  return found;
}

/* Every label's text under widget, one a line. */
static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

static guint
count_drawing_areas (GtkWidget *widget)
{
  guint n = GTK_IS_DRAWING_AREA (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    n += count_drawing_areas (child);
  return n;
}

/* The drawing areas under widget, in order, appended to out. */
static void
collect_drawing_areas (GtkWidget *widget,
                       GPtrArray *out)
{
  if (GTK_IS_DRAWING_AREA (widget))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    collect_drawing_areas (child, out);
}

/* How the comparison draws: its first graph's zoom and its first chart's
 * height (the first drawing area that is not a graph), once laid out. */
static void
compare_sizes (GtkWindow *compare,
               double    *graph_scale,
               int       *chart_height)
{
  g_autoptr (GPtrArray) areas = g_ptr_array_new ();
  collect_drawing_areas (GTK_WIDGET (compare), areas);
  g_assert_cmpuint (areas->len, ==, 4);
  GtkWidget *graph = g_ptr_array_index (areas, 0), *chart = g_ptr_array_index (areas, 2);
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((cr_coach_compare_graph_scale (graph) <= 0 || gtk_widget_get_height (chart) <= 0)
         && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  *graph_scale = cr_coach_compare_graph_scale (graph);
  g_assert_cmpfloat (*graph_scale, >, 0);
  g_assert_cmpfloat (cr_coach_compare_graph_scale (chart), ==, 0);
  *chart_height = gtk_widget_get_height (chart);
}

static GtkTextBuffer *
buffer_of (CrWindow *window)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
}

static void
test_fix_runs_again (void)
{
  g_autofree char *path = g_build_filename (cr_examples_dir (), "01-toy-network.py", NULL);
  CrWindow *window = cr_ui_test_open_path (path, 0, 0);
  /* An example makes no mistake. */
  g_assert_false (cr_window_coach_shown (window));

  gtk_text_buffer_set_text (buffer_of (window),
                            "import torch\n"
                            "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                            "loss = (w.exp() * w).sum()\n"
                            "loss.backward()\n"
                            "loss.backward()\n", -1);
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (cr_window_coach_shown (window));
  g_assert_true (cr_ui_test_line_has_tag (window, 5, "coach-line"));
  g_assert_false (cr_ui_test_line_has_tag (window, 3, "coach-line"));

  cr_window_coach_apply_fix (window);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer_of (window), &start, &end);
  g_autofree char *text = gtk_text_buffer_get_text (buffer_of (window), &start, &end, FALSE);
  g_assert_nonnull (strstr (text, "loss.backward(retain_graph=True)\nloss.backward()\n"));
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_false (cr_window_coach_shown (window));
  g_assert_false (cr_ui_test_line_has_tag (window, 5, "coach-line"));
  /* The corrected run beside the original: two graphs, what changed. */
  GtkWindow *compare = compare_window ();
  g_assert_nonnull (compare);
  g_autoptr (GString) labels = g_string_new (NULL);
  collect_labels (GTK_WIDGET (compare), labels);
  g_assert_nonnull (strstr (labels->str, "Fixed line 5. The error is gone."));
  g_assert_nonnull (strstr (labels->str, "As written"));
  g_assert_nonnull (strstr (labels->str, "Stops at line 5: RuntimeError"));
  g_assert_nonnull (strstr (labels->str, "With the fix"));
  g_assert_cmpuint (count_drawing_areas (GTK_WIDGET (compare)), ==, 2);
  gtk_window_destroy (compare);
  /* The toast's Compare opens it again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.coach-compare", NULL));
  g_assert_nonnull ((compare = compare_window ()));
  gtk_window_destroy (compare);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Waits (at most 20 s) for the comparison window to open. */
static GtkWindow *
wait_compare_window (void)
{
  gint64 until = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  GtkWindow *compare = NULL;
  while (!(compare = compare_window ()) && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  return compare;
}

/* Types the coach's zero_grad-forgotten mistake into window's editor and
 * waits for its run, which the coach finds wrong. Returns the script (new). */
static char *
type_zero_grad_forgotten (CrWindow *window)
{
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "app", "coach",
                                            "zero-grad-forgotten.py", NULL);
  char *script = NULL;
  g_assert_true (g_file_get_contents (path, &script, NULL, NULL));
  gtk_text_buffer_set_text (buffer_of (window), script, -1);
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (cr_window_coach_shown (window));
  return script;
}

/* Compare before Fix: the fixed text runs in the background, the editor
 * keeps the script as written; the comparison's own Fix then edits it,
 * and its run does not open the same comparison again. */
static void
test_compare_before_fix (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  g_autofree char *script = type_zero_grad_forgotten (window);
  guint runs = window->n_runs_shown;

  cr_window_coach_compare_fix (window);
  GtkWindow *compare = wait_compare_window ();
  g_assert_nonnull (compare);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer_of (window), &start, &end);
  g_autofree char *text = gtk_text_buffer_get_text (buffer_of (window), &start, &end, FALSE);
  g_assert_cmpstr (text, ==, script);
  g_assert_cmpuint (window->n_runs_shown, ==, runs);
  g_assert_true (cr_window_coach_shown (window));
  g_autoptr (GString) labels = g_string_new (NULL);
  collect_labels (GTK_WIDGET (compare), labels);
  g_assert_nonnull (strstr (labels->str, "the last loss 38.03"));
  g_assert_nonnull (strstr (labels->str, "With the fix (not applied yet)"));
  g_assert_nonnull (strstr (labels->str, "If line 12 were fixed, the last loss would go from 38.03 to "
                                         "0.6084 and the coach would find nothing more."));
  g_assert_nonnull (strstr (labels->str, "6 backward calls, the last loss 0.6084"));
  g_assert_cmpuint (count_drawing_areas (GTK_WIDGET (compare)), ==, 4);
  /* A second Compare opens it again at once, from the runs kept. */
  gtk_window_destroy (compare);
  cr_window_coach_compare_fix (window);
  g_assert_nonnull ((compare = compare_window ()));

  /* Its Fix edits the script, closes it, and the fixed run comes. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (compare), "win.coach-fix-compared", NULL));
  gtk_window_destroy (compare);
  gtk_text_buffer_get_bounds (buffer_of (window), &start, &end);
  g_autofree char *fixed = gtk_text_buffer_get_text (buffer_of (window), &start, &end, FALSE);
  g_assert_cmpstr (fixed, !=, script);
  g_assert_nonnull (strstr (fixed, "zero_grad()"));
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  g_assert_false (cr_window_coach_shown (window));
  g_assert_null (compare_window ());
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A window at 1366x768 whose forgotten zero_grad the coach's Fix mended:
 * the comparison it opened (asserted open). */
static GtkWindow *
compare_zero_grad_fixed (CrWindow **window)
{
  *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  g_autofree char *script = type_zero_grad_forgotten (*window);
  cr_window_coach_apply_fix (*window);
  cr_ui_test_wait_run_finished (*window);
  cr_ui_test_wait_window_idle (*window);
  GtkWindow *compare = compare_window ();
  g_assert_nonnull (compare);
  return compare;
}

/* A forgotten zero_grad: the loss over the calls of both runs, and the
 * parameter's .grad over them. */
static void
test_compare_zero_grad (void)
{
  CrWindow *window = NULL;
  GtkWindow *compare = compare_zero_grad_fixed (&window);
  g_autoptr (GString) labels = g_string_new (NULL);
  collect_labels (GTK_WIDGET (compare), labels);
  g_assert_nonnull (strstr (labels->str, "Last loss 38.03 → 0.6084. The coach finds nothing more."));
  g_assert_nonnull (strstr (labels->str, "6 backward calls, the last loss 38.03"));
  g_assert_nonnull (strstr (labels->str, "6 backward calls, the last loss 0.6084"));
  /* Two graphs, the loss chart and model.bias's .grad. */
  g_assert_cmpuint (count_drawing_areas (GTK_WIDGET (compare)), ==, 4);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (compare), "presentation"));
  double scale = 0;
  int chart_height = 0;
  compare_sizes (compare, &scale, &chart_height);
  gtk_window_destroy (compare);
  /* Presenting, it opens again for the room: presentation's type, most of
   * the window; its graphs zoomed so that their smallest type (edge
   * labels, 8.5 points, 1.3 times larger) is 20 px, the charts' text in
   * presentation's type and the charts taller for it. */
  cr_window_set_presentation (window, TRUE);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.coach-compare", NULL));
  g_assert_nonnull ((compare = compare_window ()));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (compare), "presentation"));
  int width = 0, height = 0;
  gtk_window_get_default_size (compare, &width, &height);
  g_assert_cmpint (width, >=, gtk_widget_get_width (GTK_WIDGET (window)) * 9 / 10);
  g_assert_cmpint (height, >=, gtk_widget_get_height (GTK_WIDGET (window)) * 9 / 10);
  double present_scale = 0;
  int present_chart_height = 0;
  compare_sizes (compare, &present_scale, &present_chart_height);
  g_assert_cmpfloat (present_scale, >=, 20 / (8.5 * 1.3) - 1e-9);
  g_assert_cmpfloat (present_scale, >, scale);
  g_assert_cmpint (present_chart_height, >, chart_height * 5 / 4);
  gtk_window_destroy (compare);
  cr_window_set_presentation (window, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Waits (at most 10 s) until compare has drawn at other sizes than
 * *scale and *chart_height (a toggle of presentation laid out) and they
 * have settled (the same for 300 ms), then reads them. */
static void
wait_compare_resized (GtkWindow *compare,
                      double    *scale,
                      int       *chart_height)
{
  double was_scale = *scale;
  int was_height = *chart_height;
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint same = 0;
  while (same < 6 && g_get_monotonic_time () < until)
    {
      double last_scale = *scale;
      int last_height = *chart_height;
      cr_ui_test_spin (50);
      compare_sizes (compare, scale, chart_height);
      gboolean moved = *scale != was_scale && *chart_height != was_height;
      same = moved && *scale == last_scale && *chart_height == last_height ? same + 1 : 0;
    }
}

/* The clicker's F5 over compare: window's presentation toggled, to
 * presenting; then compare's sizes once it has followed (*scale and
 * *chart_height: before, then after). */
static void
press_f5_over (GtkWindow *compare,
               CrWindow  *window,
               gboolean   presenting,
               double    *scale,
               int       *chart_height)
{
  g_assert_true (cr_ui_test_press_shortcut (GTK_WIDGET (compare), GDK_KEY_F5, 0));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation") == presenting);
  wait_compare_resized (compare, scale, chart_height);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (compare), "presentation") == presenting);
}

/* A comparison open when presentation starts follows it at once, as one
 * opened while presenting: presentation's type, most of the window, the
 * graphs zoomed to read and the charts taller; and back when it stops.
 * The clicker's F5 does it with the comparison in front. */
static void
test_compare_follows_presentation (void)
{
  CrWindow *window = NULL;
  GtkWindow *compare = compare_zero_grad_fixed (&window);
  int own_width = 0, own_height = 0;
  gtk_window_get_default_size (compare, &own_width, &own_height);
  double scale = 0;
  int chart_height = 0;
  compare_sizes (compare, &scale, &chart_height);

  double present_scale = scale;
  int present_chart_height = chart_height;
  press_f5_over (compare, window, TRUE, &present_scale, &present_chart_height);
  int width = 0, height = 0;
  gtk_window_get_default_size (compare, &width, &height);
  g_assert_cmpint (width, >=, gtk_widget_get_width (GTK_WIDGET (window)) * 9 / 10);
  g_assert_cmpint (height, >=, gtk_widget_get_height (GTK_WIDGET (window)) * 9 / 10);
  g_assert_cmpfloat (present_scale, >=, 20 / (8.5 * 1.3) - 1e-9);
  g_assert_cmpint (present_chart_height, >, chart_height * 5 / 4);
  /* On a 1366x768 projector it fits the nine tenths of the screen it
   * takes, both charts whole (the graphs and charts give way). */
  int least_height = 0;
  gtk_widget_measure (GTK_WIDGET (compare), GTK_ORIENTATION_VERTICAL, 1366 * 9 / 10, &least_height, NULL,
                      NULL, NULL);
  g_assert_cmpint (least_height, <=, 768 * 9 / 10);

  /* Presentation ends: the window's look, and its own size, again. */
  double after_scale = present_scale;
  int after_chart_height = present_chart_height;
  press_f5_over (compare, window, FALSE, &after_scale, &after_chart_height);
  gtk_window_get_default_size (compare, &width, &height);
  g_assert_cmpint (width, ==, own_width);
  g_assert_cmpint (height, ==, own_height);
  g_assert_cmpfloat_with_epsilon (after_scale, scale, 1e-9);
  g_assert_cmpint (after_chart_height, ==, chart_height);
  gtk_window_destroy (compare);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Export Handout from the window: the call shown, a page per step; for
 * practice, with its question pages. */
static void
test_handout (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  g_autofree char *dir = g_dir_make_tmp ("chainrule-handout-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "toy.pdf", NULL);
  guint n_pages = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_export_handout (window, path, &n_pages, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_pages, ==, 20);   /* the title, 7 forward ops, 12 steps */
  g_autofree char *pdf = NULL;
  g_assert_true (g_file_get_contents (path, &pdf, NULL, NULL));
  g_assert_true (g_str_has_prefix (pdf, "%PDF-"));
  /* The dialog's choices: every call (01 makes one) and practice, a
   * question page before each of the 19 steps and ops that ask. */
  g_assert_true (cr_window_export_handout_full (window, path, TRUE, TRUE, &n_pages, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_pages, ==, 39);
  g_remove (path);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A window too short for the whole graph opens on the node the coach's
 * finding rings (model.bias), whole: the output alone put it out of sight. */
static void
test_first_view_shows_finding (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "app", "coach",
                                            "zero-grad-forgotten.py", NULL);
  CrWindow *window = cr_ui_test_open_path (path, 1366, 520);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (cr_window_coach_shown (window));
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_cmpuint (model->record->findings->len, >, 0);
  const CrRecordFinding *f = g_ptr_array_index (model->record->findings, 0);
  const CrGraphNode *node = cr_graph_model_find_tensor (model, f->tensor);
  g_assert_nonnull (node);
  const CrGraphBox *b = &canvas->layout->nodes[node->id];
  double w = gtk_widget_get_width (GTK_WIDGET (canvas));
  double h = gtk_widget_get_height (GTK_WIDGET (canvas));
  /* Not the whole graph at once: the first view had to choose. */
  g_assert_cmpfloat (canvas->zoom * canvas->layout->height, >, h);
  g_assert_cmpfloat (canvas->tx + canvas->zoom * b->x, >=, 0);
  g_assert_cmpfloat (canvas->ty + canvas->zoom * b->y, >=, 0);
  g_assert_cmpfloat (canvas->tx + canvas->zoom * (b->x + b->width), <=, w);
  g_assert_cmpfloat (canvas->ty + canvas->zoom * (b->y + b->height), <=, h);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-coach/fix-runs-again", test_fix_runs_again);
  g_test_add_func ("/window-coach/compare-zero-grad", test_compare_zero_grad);
  g_test_add_func ("/window-coach/compare-before-fix", test_compare_before_fix);
  g_test_add_func ("/window-coach/compare-follows-presentation", test_compare_follows_presentation);
  g_test_add_func ("/window-coach/handout", test_handout);
  g_test_add_func ("/window-coach/first-view-shows-finding", test_first_view_shows_finding);
  return g_test_run ();
}
