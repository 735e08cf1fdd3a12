/* test-window-paths.c — a leaf's paths walked on the graph in the window
 * (ui/cr-window-paths.c) on 01-toy-network: W on the leaf selected starts
 * at its first path, the clicker's keys go from path to path (the lit set
 * of each on the canvas, the card's words), the last view sums them to
 * a.grad, Esc leaves; the inspector's element indices and Walk button
 * walk another element; `--select a` starts with a selected. Runs under
 * xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas.h"
#include "cr-examples.h"
#include "cr-path-tour.h"
#include "cr-training-view.h"
#include "ui-test-gui.h"

#include <math.h>
#include <string.h>

static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_labels (c, out);
}

static GtkWidget *
find_by_class (GtkWidget  *widget,
               const char *css_class)
{
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_by_class (c, css_class);
      if (found)
        return found;
    }
  return NULL;
}

static void
find_all (GtkWidget *widget,
          GType      type,
          GPtrArray *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    find_all (c, type, out);
}

/* The path card's words, or NULL while it is hidden (new string). */
static char *
card_text (CrWindow *window)
{
  GtkWidget *card = find_by_class (GTK_WIDGET (window), "cr-path-card");
  g_assert_nonnull (card);
  if (!gtk_widget_get_visible (card))
    return NULL;
  GString *s = g_string_new (NULL);
  collect_labels (card, s);
  return g_string_free (s, FALSE);
}

/* The titles (and captions) of the nodes the canvas lights. */
static char *
lit_nodes (CrWindow *window,
           guint    *count)
{
  CrGraphCanvas *canvas = window->canvas;
  CrGraphHighlight *highlight = cr_graph_canvas_get_highlight (canvas);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (highlight);
  GString *s = g_string_new (NULL);
  *count = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    if (cr_graph_highlight_node_lit (highlight, model, i))
      {
        const CrGraphNode *n = model->nodes->pdata[i];
        g_string_append_printf (s, "%s %s|", n->title, n->caption ? n->caption : "");
        (*count)++;
      }
  return g_string_free (s, FALSE);
}

static int
leaf_named (const CrRunRecord *record,
            const char        *label)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = record->tensors->pdata[i];
      if (t->origin == CR_RECORD_TENSOR_LEAF && g_strcmp0 (t->label, label) == 0)
        return (int) i;
    }
  return -1;
}

static void
test_walk (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  g_assert_nonnull (model);
  int a = leaf_named (model->record, "a");
  g_assert_cmpint (a, >=, 0);
  g_assert_null (card_text (window));

  /* W does nothing with no leaf selected, and Right steps the stepper. */
  cr_graph_canvas_set_selected (window->canvas, -1);
  cr_ui_test_press_key (window, GDK_KEY_w);
  g_assert_null (cr_window_paths_get_tour (window));

  /* W on the leaf a (its AccumulateGrad selected): a[0, 0]'s first path. */
  const CrGraphNode *acc = cr_graph_model_find_accumulate (model, a);
  g_assert_nonnull (acc);
  cr_graph_canvas_set_selected (window->canvas, (int) acc->id);
  int step = cr_graph_canvas_get_step (window->canvas);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_w));
  g_assert_nonnull (cr_window_paths_get_tour (window));
  g_autofree char *card0 = card_text (window);
  g_assert_nonnull (card0);
  g_assert_nonnull (strstr (card0, "Path 1 of 2 from a[0, 0]"));
  g_assert_nonnull (strstr (card0, "a[0, 0] → c[0, 0] → (w4 * c)[0, 0] → d[0, 0] → (10 - d)[0, 0] → L"));
  g_assert_nonnull (strstr (card0, "0.25 × (-0.5) × 1 × (-1) × 1 = 0.125"));
  guint n0 = 0;
  g_autofree char *lit0 = lit_nodes (window, &n0);
  g_assert_cmpuint (n0, ==, 8);
  g_assert_nonnull (strstr (lit0, "c = w2 * a"));
  g_assert_null (strstr (lit0, "b = w1 * a"));

  /* The clicker's Page Down: the second path; the stepper stays. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  g_assert_cmpint (cr_graph_canvas_get_step (window->canvas), ==, step);
  g_autofree char *card1 = card_text (window);
  g_assert_nonnull (strstr (card1, "Path 2 of 2 from a[0, 0]"));
  g_assert_nonnull (strstr (card1, "1 × 1 × 1 × (-1) × 1 = -1"));
  guint n1 = 0;
  g_autofree char *lit1 = lit_nodes (window, &n1);
  g_assert_cmpuint (n1, ==, 8);
  g_assert_nonnull (strstr (lit1, "b = w1 * a"));
  g_assert_null (strstr (lit1, "c = w2 * a"));

  /* Right: all of them, and their sum equal to a.grad[0, 0]. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  g_autofree char *card2 = card_text (window);
  g_assert_nonnull (strstr (card2, "All 2 paths from a[0, 0]"));
  const CrPathSum *sum = cr_path_tour_get_sum (cr_window_paths_get_tour (window));
  g_autofree char *grad_text = g_strdup_printf ("= %.6g = a.grad[0, 0]", sum->grad);
  g_assert_cmpfloat_with_epsilon (sum->grad, -0.875, 1e-6);
  g_assert_nonnull (strstr (card2, grad_text));
  guint n2 = 0;
  g_autofree char *lit2 = lit_nodes (window, &n2);
  g_assert_cmpuint (n2, ==, 10);
  /* Past the end it stays; Page Up goes back; Home to the first. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 2);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Up));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 1);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Home));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 0);

  /* Esc leaves: nothing lit, no card, and the keys step again. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  g_assert_null (cr_window_paths_get_tour (window));
  g_assert_null (cr_graph_canvas_get_highlight (window->canvas));
  g_assert_null (card_text (window));

  /* The inspector of the leaf: an index per dimension and Walk. */
  const CrGraphNode *leaf = cr_graph_model_find_tensor (model, a);
  cr_graph_canvas_set_selected (window->canvas, (int) leaf->id);
  cr_ui_test_iterate ();
  g_autoptr (GPtrArray) spins = g_ptr_array_new ();
  find_all (window->inspector, GTK_TYPE_SPIN_BUTTON, spins);
  g_assert_cmpuint (spins->len, ==, 2);
  gtk_spin_button_set_value (spins->pdata[0], 1);
  gtk_spin_button_set_value (spins->pdata[1], 2);
  g_autoptr (GString) inspector = g_string_new (NULL);
  collect_labels (window->inspector, inspector);
  g_assert_nonnull (strstr (inspector->str, "Paths to the loss"));
  g_assert_nonnull (strstr (inspector->str, "= a.grad[1, 2] once this backward ran"));
  g_autoptr (GPtrArray) buttons = g_ptr_array_new ();
  find_all (window->inspector, GTK_TYPE_BUTTON, buttons);
  GtkWidget *walk = NULL;
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (buttons->pdata[i]), "_Walk") == 0)
      walk = buttons->pdata[i];
  g_assert_nonnull (walk);
  g_signal_emit_by_name (walk, "clicked");
  g_autofree char *card3 = card_text (window);
  g_assert_nonnull (card3);
  g_assert_nonnull (strstr (card3, "Path 1 of 2 from a[1, 2]"));

  /* Another graph shown (a re-run, the call picker): the walk ends. */
  cr_window_show_model (window, window->model_index);
  g_assert_null (cr_window_paths_get_tour (window));
  g_assert_null (card_text (window));

  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_iterate ();
}

/* `chainrule --select a FILE`: the first run's leaf a selected, the keys
 * on the graph, so that W walks it; a name not on the graph is told. */
static void
test_select_named (void)
{
  for (guint missing = 0; missing < 2; missing++)
    {
      CrWindow *window = cr_window_new (NULL);
      gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
      cr_window_select_named_on_run (window, missing ? "nothing_called_so" : "a");
      g_autofree char *path = g_build_filename (cr_examples_dir (), "01-toy-network.py", NULL);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_assert_true (cr_window_open_file (window, file, NULL));
      gtk_window_present (GTK_WINDOW (window));
      cr_ui_test_wait_window_idle (window);
      int selected = cr_graph_canvas_get_selected (window->canvas);
      if (missing)
        {
          g_assert_cmpint (selected, ==, -1);
          gtk_window_destroy (GTK_WINDOW (window));
          continue;
        }
      g_assert_cmpint (selected, >=, 0);
      const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
      const CrGraphNode *node = g_ptr_array_index (model->nodes, selected);
      g_assert_cmpint (node->kind, ==, CR_GRAPH_NODE_LEAF);
      g_assert_cmpstr (node->title, ==, "a");
      g_assert_true (cr_ui_test_press_key (window, GDK_KEY_w));
      g_autofree char *card = card_text (window);
      g_assert_nonnull (card);
      g_assert_nonnull (strstr (card, "Path 1 of 2 from a[0, 0]"));
      gtk_window_destroy (GTK_WINDOW (window));
    }
}

/* While walking, the arrows and Space go from path to path only where the
 * focus leaves them to the window (the graph, the stepper): not in the
 * editor, not on the Training page's loss curve, which takes its own. */
static void
test_keys_follow_focus (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  int w1 = leaf_named (model->record, "W1");
  g_assert_cmpint (w1, >=, 0);
  const CrGraphNode *acc = cr_graph_model_find_accumulate (model, w1);
  g_assert_nonnull (acc);
  cr_graph_canvas_set_selected (window->canvas, (int) acc->id);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_w));
  const CrPathTour *tour = cr_window_paths_get_tour (window);
  g_assert_nonnull (tour);
  g_assert_cmpuint (cr_path_tour_get_view (tour), ==, 0);

  /* The editor: its arrows move its cursor. */
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->source_view)));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) != GTK_WIDGET (window));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_space) != GTK_WIDGET (window));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 0);

  /* The loss curve: its Right picks the next backward call. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  cr_ui_test_spin (100);
  GtkWidget *curve = cr_training_view_get_curve (CR_TRAINING_VIEW (window->training_view));
  g_assert_true (gtk_widget_grab_focus (curve));
  CrTrainingView *view = CR_TRAINING_VIEW (window->training_view);
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Home) == curve);
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) == curve);
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 1);
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 0);

  /* The graph: the walk's. The clicker's Page Down goes on wherever. */
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->canvas)));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) == GTK_WIDGET (window));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 1);
  g_assert_true (gtk_widget_grab_focus (curve));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Page_Down) == GTK_WIDGET (window));
  g_assert_cmpuint (cr_path_tour_get_view (cr_window_paths_get_tour (window)), ==, 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-paths/walk", test_walk);
  g_test_add_func ("/window-paths/select-named", test_select_named);
  g_test_add_func ("/window-paths/keys-follow-focus", test_keys_follow_focus);
  return g_test_run ();
}
