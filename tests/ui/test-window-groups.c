/* test-window-groups.c — module code in the window: a closed group in the
 * inspector (its ops, parameters with .grad as of the step, an Open
 * button), the keys' actions that open and close groups and change the
 * depth level, and play stepping a closed group as one unit, as next does.
 * Under xvfb-run; looks inside the window through its private header.
 * CR_TEST_SHOT_DIR, when set, gets PNGs of the window at 1366x768 (dark
 * too when CR_TEST_DARK is set), for looking at. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-window-private.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#define SCRIPT \
  "import torch\n" \
  "import torch.nn as nn\n" \
  "class Block(nn.Module):\n" \
  "    def __init__(self):\n" \
  "        super().__init__()\n" \
  "        self.lin = nn.Linear(4, 4)\n" \
  "    def forward(self, x):\n" \
  "        return torch.tanh(self.lin(x))\n" \
  "class Net(nn.Module):\n" \
  "    def __init__(self):\n" \
  "        super().__init__()\n" \
  "        self.layers = nn.Sequential(Block(), Block(), Block())\n" \
  "        self.head = nn.Linear(4, 1)\n" \
  "    def forward(self, x):\n" \
  "        return self.head(self.layers(x))\n" \
  "torch.manual_seed(0)\n" \
  "model = Net()\n" \
  "x = torch.ones(2, 4)\n" \
  "loss = model(x).sum()\n" \
  "loss.backward()\n"

static CrWindow *
open_script (char **path)
{
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("cr-groups-XXXXXX.py", path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (*path, SCRIPT, -1, &error));
  CrWindow *window = cr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  if (g_getenv ("CR_TEST_DARK") && *g_getenv ("CR_TEST_DARK"))
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
  g_autoptr (GFile) file = g_file_new_for_path (*path);
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  return window;
}

static void
close_window (CrWindow *window,
              char     *path)
{
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_iterate ();
  g_unlink (path);
  g_free (path);
}

/* The window as drawn, to CR_TEST_SHOT_DIR/name when that is set. */
static void
shoot (CrWindow   *window,
       const char *name)
{
  const char *dir = g_getenv ("CR_TEST_SHOT_DIR");
  if (!dir)
    return;
  cr_ui_test_spin (300);
  GtkWidget *widget = GTK_WIDGET (window);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  g_autoptr (GskRenderNode) node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (widget));
  g_autoptr (GdkTexture) texture = gsk_renderer_render_texture (
    renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static void
activate (CrWindow   *window,
          const char *name)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), name, NULL));
}

/* The shown model's group node whose title holds text, -1: none. */
static int
group_node (CrWindow   *window,
            const char *text)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_GROUP && strstr (n->title, text))
        return (int) i;
    }
  return -1;
}

/* Whether a label (or button) under widget says text, in part. */
static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  const char *s = GTK_IS_LABEL (widget) ? gtk_label_get_text (GTK_LABEL (widget))
                  : GTK_IS_BUTTON (widget) ? gtk_button_get_label (GTK_BUTTON (widget)) : NULL;
  if (s && strstr (s, text))
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (shows_text (c, text))
      return TRUE;
  return FALSE;
}

static void
test_inspector (void)
{
  char *path = NULL;
  CrWindow *window = open_script (&path);
  /* The first view folds the three equal blocks into one closed node. */
  int fold = group_node (window, "Block × 3");
  g_assert_cmpint (fold, >=, 0);
  cr_graph_canvas_set_selected (window->canvas, fold);
  cr_ui_test_iterate ();
  g_assert_true (shows_text (window->inspector, "layers.0–2 · Block × 3"));
  g_assert_true (shows_text (window->inspector, "Repeated blocks, closed"));
  g_assert_true (shows_text (window->inspector, "AddmmBackward0"));
  g_assert_true (shows_text (window->inspector, "TanhBackward0"));
  g_assert_true (shows_text (window->inspector, "layers.0.lin.weight"));
  g_assert_true (shows_text (window->inspector, "layers.2.lin.bias"));
  g_assert_true (shows_text (window->inspector, "Open"));
  /* .grad is None before backward reaches them, a tensor after. */
  g_assert_true (shows_text (window->inspector, ".grad is None before backward"));
  activate (window, "win.step-last");
  cr_ui_test_iterate ();
  g_assert_false (shows_text (window->inspector, ".grad is None"));
  g_autofree char *last = g_strdup_printf (".grad as of step %u",
                                           cr_graph_canvas_get_n_steps (window->canvas));
  g_assert_true (shows_text (window->inspector, last));
  gtk_stack_set_visible_child_name (window->sidebar_stack, "node");
  shoot (window, "inspector-group.png");

  /* Its Open button's action opens it. */
  guint before = cr_graph_canvas_get_model (window->canvas)->nodes->len;
  activate (window, "win.group-open");
  cr_ui_test_iterate ();
  g_assert_cmpint (group_node (window, "Block × 3"), <, 0);
  g_assert_cmpuint (cr_graph_canvas_get_model (window->canvas)->nodes->len, >, before);
  close_window (window, path);
}

static void
test_keys (void)
{
  char *path = NULL;
  CrWindow *window = open_script (&path);
  CrGraphCanvas *canvas = window->canvas;
  guint height = cr_graph_canvas_get_group_height (canvas);
  guint level = cr_graph_canvas_get_group_level (canvas);
  g_assert_cmpuint (height, >=, 2);

  /* Nothing selected, before the first step: nothing to open or close. */
  cr_graph_canvas_set_selected (canvas, -1);
  g_assert_false (cr_graph_canvas_open_group (canvas));
  g_assert_false (cr_graph_canvas_close_group (canvas));

  /* O on the selected fold opens it; C on a node inside one of its blocks
   * closes that block and selects it, C again closes the fold. */
  cr_graph_canvas_set_selected (canvas, group_node (window, "Block × 3"));
  activate (window, "win.group-open");
  g_assert_cmpint (group_node (window, "Block × 3"), <, 0);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  int tanh = -1;
  for (guint i = 0; i < model->nodes->len && tanh < 0; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_OP && g_str_equal (n->title, "TanhBackward0"))
        tanh = (int) i;
    }
  if (tanh < 0)
    {
      /* The blocks show closed: open the first one. */
      cr_graph_canvas_set_selected (canvas, group_node (window, "Block"));
      g_assert_true (cr_graph_canvas_open_group (canvas));
      model = cr_graph_canvas_get_model (canvas);
      for (guint i = 0; i < model->nodes->len && tanh < 0; i++)
        {
          const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
          if (n->kind == CR_GRAPH_NODE_OP && g_str_equal (n->title, "TanhBackward0"))
            tanh = (int) i;
        }
    }
  g_assert_cmpint (tanh, >=, 0);
  cr_graph_canvas_set_selected (canvas, tanh);
  activate (window, "win.group-close");
  int closed = cr_graph_canvas_get_selected (canvas);
  g_assert_cmpint (closed, >=, 0);
  const CrGraphNode *sel = g_ptr_array_index (cr_graph_canvas_get_model (canvas)->nodes, closed);
  g_assert_cmpint (sel->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_true (strstr (sel->title, "Block") != NULL);
  activate (window, "win.group-close");
  g_assert_cmpint (group_node (window, "Block × 3"), >=, 0);

  /* [ and ] : one level less, one more, within 0 .. height. */
  cr_graph_canvas_set_group_level (canvas, level);
  activate (window, "win.depth-more");
  g_assert_cmpuint (cr_graph_canvas_get_group_level (canvas), ==, MIN (level + 1, height));
  cr_graph_canvas_set_group_level (canvas, 1);
  activate (window, "win.depth-less");
  g_assert_cmpuint (cr_graph_canvas_get_group_level (canvas), ==, 0);
  activate (window, "win.depth-less");
  g_assert_cmpuint (cr_graph_canvas_get_group_level (canvas), ==, 0);
  close_window (window, path);
}

static void
on_step (CrGraphCanvas *canvas,
         GParamSpec    *pspec,
         GArray        *visited)
{
  int step = cr_graph_canvas_get_step (canvas);
  g_array_append_val (visited, step);
}

static void
test_play_units (void)
{
  char *path = NULL;
  CrWindow *window = open_script (&path);
  CrGraphCanvas *canvas = window->canvas;
  /* Everything closed: the steps of the whole model run as one unit or a few. */
  cr_graph_canvas_set_group_level (canvas, 0);
  /* The units that next goes through, from the start of the backward pass
   * (past the forward ops). */
  cr_ui_test_skip_forward (window);
  g_autoptr (GArray) units = g_array_new (FALSE, FALSE, sizeof (int));
  int n = (int) cr_graph_canvas_get_n_steps (canvas);
  while (cr_graph_canvas_get_step (canvas) < n - 1)
    {
      activate (window, "win.step-forward");
      int step = cr_graph_canvas_get_step (canvas);
      g_array_append_val (units, step);
    }
  g_assert_cmpuint (units->len, <, (guint) n);
  activate (window, "win.step-first");

  /* Play visits the same steps, and no others. */
  g_autoptr (GArray) visited = g_array_new (FALSE, FALSE, sizeof (int));
  gulong handler = g_signal_connect (canvas, "notify::step", G_CALLBACK (on_step), visited);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "speed", g_variant_new_string ("2"));
  activate (window, "win.play");
  for (int waited = 0; waited < 100 && visited->len < units->len; waited++)
    cr_ui_test_spin (100);
  cr_ui_test_spin (700);
  g_signal_handler_disconnect (canvas, handler);
  g_assert_cmpuint (visited->len, ==, units->len);
  for (guint i = 0; i < units->len; i++)
    g_assert_cmpint (g_array_index (visited, int, i), ==, g_array_index (units, int, i));
  close_window (window, path);
}

/* Whether the current step's node is drawn in the part of the canvas that
 * no floating control (the stepper, the zoom buttons) covers. */
static gboolean
step_in_sight (CrGraphCanvas *canvas)
{
  const CrGraphNode *n = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas),
                                                   cr_graph_canvas_get_step (canvas));
  double x, y, area[4];
  if (!n || !cr_graph_canvas_node_center (canvas, (int) n->id, &x, &y))
    return FALSE;
  cr_graph_canvas_free_area (canvas, canvas->layout->width, canvas->layout->height, 0, area);
  return x >= area[0] && x <= area[2] && y >= area[1] && y <= area[3];
}

/* In the window, with the stepper and the zoom buttons over the canvas:
 * after each key that opens, closes or changes the depth, the current
 * step's node (or the closed group holding it) is in sight, even from a
 * view panned away from it. */
static void
test_step_in_sight (void)
{
  char *path = NULL;
  CrWindow *window = open_script (&path);
  CrGraphCanvas *canvas = window->canvas;
  cr_graph_canvas_set_animate (canvas, FALSE);
  cr_graph_canvas_set_group_level (canvas, 99);
  cr_ui_test_iterate ();
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  int step = -1;
  for (guint i = 0; i < model->nodes->len && step < 0; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (g_str_equal (n->title, "TanhBackward0"))
        step = n->step;
    }
  g_assert_cmpint (step, >, 0);
  cr_graph_canvas_set_step (canvas, step);
  cr_graph_canvas_set_selected (canvas, -1);
  const char *keys[] = { "win.depth-less", "win.depth-less", "win.group-open", "win.depth-more",
                         "win.group-close", "win.group-open" };
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      /* Pan to the graph's far corner from the step. */
      const CrGraphNode *n = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), step);
      const CrGraphBox *b = &canvas->layout->nodes[n->id];
      cr_graph_canvas_move_to (canvas, b->x < canvas->layout->width / 2 ? -1e6 : 1e6,
                               b->y < canvas->layout->height / 2 ? -1e6 : 1e6);
      g_assert_false (step_in_sight (canvas));
      activate (window, keys[k]);
      cr_graph_canvas_set_selected (canvas, -1);
      cr_ui_test_iterate ();
      g_test_message ("%s: the step on %s", keys[k],
                      cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), step)->title);
      g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, step);
      g_assert_true (step_in_sight (canvas));
    }
  close_window (window, path);
}

int
main (int   argc,
      char *argv[])
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/ui/window-groups/inspector", test_inspector);
  g_test_add_func ("/ui/window-groups/keys", test_keys);
  g_test_add_func ("/ui/window-groups/play-units", test_play_units);
  g_test_add_func ("/ui/window-groups/step-in-sight", test_step_in_sight);
  return g_test_run ();
}
