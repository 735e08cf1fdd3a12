/* test-canvas-groups.c — module code on the canvas: a model with module
 * calls shows as groups, the depth control's level closes and opens them,
 * a click on a closed group opens it and one on an open group's title
 * closes it, a step inside a closed group lights
 * the group, next/previous step over a closed group as one unit, and the
 * open groups survive a re-run. Under xvfb-run. CR_TEST_SHOT_DIR, when set,
 * gets PNGs of each level (for looking at). */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-overview.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <math.h>
#include <stdlib.h>
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

typedef struct {
  GtkWindow     *window;
  CrGraphCanvas *canvas;
} Fixture;

static gboolean
canvas_allocated (gpointer data)
{
  GtkWidget *canvas = data;
  return gtk_widget_get_width (canvas) >= 200 && gtk_widget_get_mapped (canvas);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 900, 500);
  f->canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (f->canvas, FALSE);
  gtk_window_set_child (f->window, GTK_WIDGET (f->canvas));
  gtk_window_present (f->window);
  g_autoptr (GError) error = NULL;
  CrGraphModel *model = cr_ui_test_model_from_script (SCRIPT, NULL);
  g_assert_nonnull (model);
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model, &error));
  g_assert_no_error (error);
  g_assert_true (cr_ui_test_wait_until (canvas_allocated, f->canvas, 10));
  cr_ui_test_iterate ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (f->window);
  cr_ui_test_iterate ();
}

static const CrGraphModel *
shown (Fixture *f)
{
  return cr_graph_canvas_get_model (f->canvas);
}

static int
node_titled (const CrGraphModel *model,
             const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    if (g_strcmp0 (((CrGraphNode *) g_ptr_array_index (model->nodes, i))->title, title) == 0)
      return (int) i;
  return -1;
}

static guint
n_groups (const CrGraphModel *model)
{
  guint n = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    n += ((CrGraphNode *) g_ptr_array_index (model->nodes, i))->kind == CR_GRAPH_NODE_GROUP;
  return n;
}

static void
shoot (Fixture    *f,
       const char *name)
{
  const char *dir = g_getenv ("CR_TEST_SHOT_DIR");
  if (!dir)
    return;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_export (f->canvas, path, &error));
}

/* The depth control's level: 0 shows Net as one node, each level more. */
static void
test_levels (Fixture       *f,
             gconstpointer  data)
{
  guint height = cr_graph_canvas_get_group_height (f->canvas);
  /* Net, layers, the fold of the blocks, a block, its Linear. */
  g_assert_cmpuint (height, ==, 5);
  /* About 40 nodes fit: everything open but the fold, the repeated block
   * shown once. */
  g_assert_cmpuint (cr_graph_canvas_get_group_level (f->canvas), ==, 2);
  guint full = f->canvas->full_model->nodes->len;
  g_assert_cmpuint (n_groups (shown (f)), ==, 1);
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), >=, 0);
  g_assert_cmpint (node_titled (shown (f), "head.weight"), >=, 0);
  g_assert_nonnull (shown (f)->clusters);
  shoot (f, "groups-level-5.png");

  cr_graph_canvas_set_group_level (f->canvas, 0);
  cr_ui_test_iterate ();
  g_assert_cmpuint (cr_graph_canvas_get_group_level (f->canvas), ==, 0);
  /* x, Net, loss's sum and loss. */
  g_assert_cmpuint (shown (f)->nodes->len, ==, 4);
  g_assert_cmpint (node_titled (shown (f), "Net"), >=, 0);
  g_assert_cmpint (cr_graph_canvas_get_n_steps (f->canvas), ==, 20);
  shoot (f, "groups-level-0.png");

  cr_graph_canvas_set_group_level (f->canvas, 2);
  cr_ui_test_iterate ();
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), >=, 0);
  g_assert_cmpint (node_titled (shown (f), "head · Linear"), <, 0);
  g_assert_cmpint (node_titled (shown (f), "head.weight"), >=, 0);
  shoot (f, "groups-level-2.png");

  cr_graph_canvas_set_group_level (f->canvas, 99);
  cr_ui_test_iterate ();
  g_assert_cmpuint (shown (f)->nodes->len, ==, full);
}

/* A click on a closed group opens it, in place; other groups stay closed. */
static void
test_click_opens (Fixture       *f,
                  gconstpointer  data)
{
  cr_graph_canvas_set_group_level (f->canvas, 1);
  cr_ui_test_iterate ();
  int layers = node_titled (shown (f), "layers · Sequential");
  g_assert_cmpint (layers, >=, 0);
  g_assert_cmpint (node_titled (shown (f), "head · Linear"), >=, 0);
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (f->canvas, layers, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  cr_ui_test_iterate ();
  g_assert_cmpint (node_titled (shown (f), "layers · Sequential"), <, 0);
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), >=, 0);
  g_assert_cmpint (node_titled (shown (f), "head · Linear"), >=, 0);
  /* A click on an open group's title closes it again. */
  const CrGraphCollapse *c = f->canvas->collapse;
  const CrGraphLayout *layout = f->canvas->layout;
  g_assert_cmpuint (layout->n_clusters, ==, c->boxes->len);
  int box = -1;
  for (guint i = 0; i < c->boxes->len; i++)
    if (g_strcmp0 (((CrGraphGroupBox *) g_ptr_array_index (c->boxes, i))->title, "layers · Sequential") == 0)
      box = (int) i;
  g_assert_cmpint (box, >=, 0);
  const CrGraphBox *b = &layout->clusters[box];
  cr_graph_canvas_click_at (f->canvas, f->canvas->tx + f->canvas->zoom * (b->x + 12),
                            f->canvas->ty + f->canvas->zoom * (b->y + 6));
  cr_ui_test_iterate ();
  g_assert_cmpint (node_titled (shown (f), "layers · Sequential"), >=, 0);
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), <, 0);
  layers = node_titled (shown (f), "layers · Sequential");
  g_assert_true (cr_graph_canvas_node_center (f->canvas, layers, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  cr_ui_test_iterate ();
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), >=, 0);

  /* A click on an ordinary node selects it, as ever. */
  int sum = node_titled (shown (f), "SumBackward0");
  g_assert_true (cr_graph_canvas_node_center (f->canvas, sum, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, sum);

  /* A re-run of the script keeps what was open. */
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, cr_ui_test_model_from_script (SCRIPT, NULL),
                                             &error));
  cr_ui_test_iterate ();
  g_assert_cmpint (node_titled (shown (f), "layers.0–2 · Block × 3"), >=, 0);
  g_assert_cmpint (node_titled (shown (f), "head · Linear"), >=, 0);
}

/* Stepping: the steps inside a closed group are one unit, the group lit. */
static void
test_step_units (Fixture       *f,
                 gconstpointer  data)
{
  cr_graph_canvas_set_group_level (f->canvas, 1);
  cr_ui_test_iterate ();
  const CrGraphModel *m = shown (f);
  int head = node_titled (m, "head · Linear");
  int layers = node_titled (m, "layers · Sequential");
  g_assert_cmpint (head, >=, 0);
  g_assert_cmpint (layers, >=, 0);
  int n = (int) cr_graph_canvas_get_n_steps (f->canvas);
  g_assert_cmpint (n, ==, 20);

  /* Forward from the start: SumBackward0, then all of head at once. */
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, +1), ==, 0);
  cr_graph_canvas_set_step (f->canvas, 0);
  int after_head = cr_graph_canvas_step_unit (f->canvas, +1);
  g_assert_cmpint (after_head, >, 1);
  cr_graph_canvas_set_step (f->canvas, after_head);
  g_assert_cmpuint (f->canvas->collapse->step_node[after_head], ==, (guint) head);
  /* The group is the node of every step inside it (the step label, the
   * scroll to the step, the overview ask the model so). */
  g_assert_cmpuint (cr_graph_model_find_step (m, after_head)->id, ==, (guint) head);
  g_assert_cmpuint (cr_graph_model_find_step (m, after_head - 1)->id, ==, (guint) head);
  /* The group is what the drawing lights for any step inside it. */
  int lit = cr_graph_collapse_shown_step (f->canvas->collapse, after_head);
  g_assert_cmpint (((CrGraphNode *) g_ptr_array_index (m->nodes, head))->step, ==, lit);
  /* On into layers, back to head, back to the sum. */
  int in_layers = cr_graph_canvas_step_unit (f->canvas, +1);
  g_assert_cmpuint (f->canvas->collapse->step_node[in_layers], ==, (guint) layers);
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, -1), ==, 0);
  cr_graph_canvas_set_step (f->canvas, in_layers);
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, -1), ==, after_head);
  /* The last unit ends at the last step. */
  cr_graph_canvas_set_step (f->canvas, n - 1);
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, +1), ==, n - 1);
  shoot (f, "groups-step.png");

  /* Opening a group keeps the step. */
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (f->canvas, layers, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, n - 1);
}

/* Whether node (of the shown model) is drawn inside the canvas. */
static gboolean
in_sight (Fixture *f,
          int      node)
{
  double x, y;
  if (node < 0 || !cr_graph_canvas_node_center (f->canvas, node, &x, &y))
    return FALSE;
  return x >= 0 && y >= 0 && x <= gtk_widget_get_width (GTK_WIDGET (f->canvas))
         && y <= gtk_widget_get_height (GTK_WIDGET (f->canvas));
}

/* The node that shows the current step now. */
static int
step_node (Fixture *f)
{
  const CrGraphNode *n = cr_graph_model_find_step (shown (f), cr_graph_canvas_get_step (f->canvas));
  return n ? (int) n->id : -1;
}

/* The view as far from the step's node (or node) as a pan goes: the
 * graph's opposite corner in a corner of the canvas. */
static void
look_away_from (Fixture *f,
                int      node)
{
  const CrGraphLayout *layout = f->canvas->layout;
  g_assert_cmpint (node, >=, 0);
  const CrGraphBox *b = &layout->nodes[node];
  cr_graph_canvas_move_to (f->canvas, b->x + b->width / 2 < layout->width / 2 ? -1e6 : 1e6,
                           b->y + b->height / 2 < layout->height / 2 ? -1e6 : 1e6);
  g_assert_false (in_sight (f, node));
}

static void
look_away (Fixture *f)
{
  look_away_from (f, step_node (f));
}

/* After an open, a close or a new depth the current step stays in sight,
 * and stepping into a closed group brings the group into sight; opening
 * the group the step is in shows the step's own node, and stepping then
 * goes one step at a time inside it. */
static void
test_step_in_sight (Fixture       *f,
                    gconstpointer  data)
{
  cr_graph_canvas_set_group_level (f->canvas, 99);
  cr_ui_test_iterate ();
  int n = (int) cr_graph_canvas_get_n_steps (f->canvas);
  /* A step deep in the blocks: the first TanhBackward0's. */
  int tanh_step = -1;
  for (guint i = 0; i < shown (f)->nodes->len && tanh_step < 0; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (shown (f)->nodes, i);
      if (g_strcmp0 (node->title, "TanhBackward0") == 0)
        tanh_step = node->step;
    }
  g_assert_cmpint (tanh_step, >, 0);
  g_assert_cmpint (tanh_step, <, n);
  cr_graph_canvas_set_step (f->canvas, tanh_step);
  g_assert_true (in_sight (f, step_node (f)));

  /* A new depth: the closed group holding the step is in sight. */
  look_away (f);
  cr_graph_canvas_set_group_level (f->canvas, 1);
  cr_ui_test_iterate ();
  const CrGraphNode *layers = g_ptr_array_index (shown (f)->nodes, step_node (f));
  g_assert_cmpint (layers->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_cmpstr (layers->title, ==, "layers · Sequential");
  g_assert_true (in_sight (f, step_node (f)));
  g_assert_cmpint (cr_graph_collapse_next_step (f->canvas->collapse, tanh_step - 1, +1), >, tanh_step);

  /* O on the step's group (nothing selected): open, the step's node in
   * sight; it is the group inside (the fold) or the op itself. */
  cr_graph_canvas_set_selected (f->canvas, -1);
  look_away (f);
  g_assert_true (cr_graph_canvas_open_group (f->canvas));
  cr_ui_test_iterate ();
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, tanh_step);
  g_assert_true (in_sight (f, step_node (f)));
  while (((CrGraphNode *) g_ptr_array_index (shown (f)->nodes, step_node (f)))->kind == CR_GRAPH_NODE_GROUP)
    {
      look_away (f);
      g_assert_true (cr_graph_canvas_open_group (f->canvas));
      cr_ui_test_iterate ();
      g_assert_true (in_sight (f, step_node (f)));
    }
  g_assert_cmpstr (((CrGraphNode *) g_ptr_array_index (shown (f)->nodes, step_node (f)))->title, ==,
                   "TanhBackward0");
  /* Open, the group steps inside: the step is a unit of its own now
   * (closed, it was inside the run of layers' steps). */
  g_assert_cmpint (cr_graph_collapse_next_step (f->canvas->collapse, tanh_step - 1, +1), ==, tanh_step);
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, +1), >, tanh_step);
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, -1), <, tanh_step);

  /* C closes the group around the step: its node in sight. */
  cr_graph_canvas_set_selected (f->canvas, -1);
  look_away (f);
  g_assert_true (cr_graph_canvas_close_group (f->canvas));
  cr_ui_test_iterate ();
  g_assert_true (in_sight (f, step_node (f)));

  /* Stepping into a closed group from afar: the group in sight, and the
   * group steps as one unit. */
  cr_graph_canvas_set_group_level (f->canvas, 1);
  cr_graph_canvas_set_step (f->canvas, 0);
  look_away (f);
  int unit = cr_graph_canvas_step_unit (f->canvas, +1);
  g_assert_cmpint (unit, >, 1);
  cr_graph_canvas_set_step (f->canvas, unit);
  g_assert_cmpint (((CrGraphNode *) g_ptr_array_index (shown (f)->nodes, step_node (f)))->kind, ==,
                   CR_GRAPH_NODE_GROUP);
  g_assert_true (in_sight (f, step_node (f)));

  /* No step: the group opened is what comes into sight. */
  cr_graph_canvas_set_step (f->canvas, -1);
  cr_graph_canvas_set_group_level (f->canvas, 1);
  int head = node_titled (shown (f), "head · Linear");
  g_assert_cmpint (head, >=, 0);
  cr_graph_canvas_set_selected (f->canvas, head);
  look_away_from (f, head);
  g_assert_true (cr_graph_canvas_open_group (f->canvas));
  cr_ui_test_iterate ();
  g_assert_true (in_sight (f, node_titled (shown (f), "AddmmBackward0")));

  /* No step, a new depth: the selected node stays in sight. */
  cr_graph_canvas_set_group_level (f->canvas, 99);
  int sum = node_titled (shown (f), "SumBackward0");
  cr_graph_canvas_set_selected (f->canvas, sum);
  look_away_from (f, sum);
  cr_graph_canvas_set_group_level (f->canvas, 1);
  cr_ui_test_iterate ();
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, node_titled (shown (f), "SumBackward0"));
  g_assert_true (in_sight (f, cr_graph_canvas_get_selected (f->canvas)));
}

/* The overview (the minimap) draws a closed group as the group box it is:
 * in the group boxes' blue where the grey of an unknown kind was; it fades
 * over the current step's node. */
static void
test_overview_groups (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 700, 420);
  GtkOverlay *overlay = GTK_OVERLAY (gtk_overlay_new ());
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_overlay_set_child (overlay, GTK_WIDGET (canvas));
  GtkWidget *overview = cr_graph_overview_new (canvas);
  gtk_widget_set_halign (overview, GTK_ALIGN_START);
  gtk_widget_set_valign (overview, GTK_ALIGN_START);
  gtk_overlay_add_overlay (overlay, overview);
  gtk_window_set_child (window, GTK_WIDGET (overlay));
  gtk_window_present (window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, cr_ui_test_model_from_script (SCRIPT, NULL), &error));
  g_assert_true (cr_ui_test_wait_until (canvas_allocated, canvas, 10));
  /* layers and head closed, the view on a part of the graph. */
  cr_graph_canvas_set_group_level (canvas, 1);
  cr_graph_canvas_set_zoom (canvas, 3.0);
  for (int waited = 0; waited < 50 && !gtk_widget_get_visible (overview); waited++)
    cr_ui_test_spin (50);
  g_assert_true (gtk_widget_get_visible (overview));
  cr_ui_test_spin (200);

  int w = gtk_widget_get_width (overview), h = gtk_widget_get_height (overview);
  /* Its own drawing, now (a widget paintable would wait for a frame). */
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (overview)->snapshot (overview, snapshot);
  g_autoptr (GskRenderNode) node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_autoptr (GdkTexture) texture = gsk_renderer_render_texture (renderer, node,
                                                                &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsize stride = (gsize) w * 4;
  g_autofree guint8 *pixels = g_malloc (stride * h);
  gdk_texture_download (texture, pixels, stride);

  /* Where a closed group's box lies on the overview (its points mapped
   * back from the overview's corners). */
  double gx0, gy0, gx1, gy1;
  g_assert_true (cr_graph_overview_to_graph (CR_GRAPH_OVERVIEW (overview), 0, 0, &gx0, &gy0));
  g_assert_true (cr_graph_overview_to_graph (CR_GRAPH_OVERVIEW (overview), w, h, &gx1, &gy1));
  const CrGraphModel *m = cr_graph_canvas_get_model (canvas);
  guint groups = 0;
  for (guint i = 0; i < m->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (m->nodes, i);
      if (n->kind != CR_GRAPH_NODE_GROUP)
        continue;
      groups++;
      const CrGraphBox *b = &canvas->layout->nodes[i];
      int x0 = (int) ceil ((b->x - gx0) / (gx1 - gx0) * w), x1 = (int) floor ((b->x + b->width - gx0) / (gx1 - gx0) * w);
      int y0 = (int) ceil ((b->y - gy0) / (gy1 - gy0) * h), y1 = (int) floor ((b->y + b->height - gy0) / (gy1 - gy0) * h);
      guint blue = 0, grey = 0, all = 0;
      for (int y = MAX (y0, 0); y < MIN (y1, h); y++)
        for (int x = MAX (x0, 0); x < MIN (x1, w); x++)
          {
            const guint8 *p = pixels + y * stride + 4 * x;   /* B, G, R, A */
            all++;
            blue += p[0] > p[2] + 20;
            grey += abs (p[0] - 0x96) < 6 && abs (p[1] - 0x99) < 6 && abs (p[2] - 0x9a) < 6;
          }
      g_test_message ("%s: %u of %u pixels blue, %u grey", n->title, blue, all, grey);
      g_assert_cmpuint (all, >, 0);
      g_assert_cmpuint (blue, >, all / 3);
      g_assert_cmpuint (grey, ==, 0);
    }
  g_assert_cmpuint (groups, ==, 2);

  /* The current step's node where the overview sits (the top left): the
   * overview moves to another corner, or fades where every corner would
   * hide it, so that the node reads; away from it, it is whole. */
  cr_graph_canvas_set_step (canvas, 0);
  const CrGraphNode *step = cr_graph_model_find_step (m, 0);
  g_assert_nonnull (step);
  const CrGraphBox *sb = &canvas->layout->nodes[step->id];
  cr_graph_canvas_move_to (canvas, 12 - canvas->zoom * sb->x, 12 - canvas->zoom * sb->y);
  cr_ui_test_spin (200);
  g_assert_true (gtk_widget_get_visible (overview));
  graphene_rect_t map_bounds;
  g_assert_true (gtk_widget_compute_bounds (overview, GTK_WIDGET (canvas), &map_bounds));
  graphene_rect_t step_rect = GRAPHENE_RECT_INIT (canvas->tx + canvas->zoom * sb->x,
                                                  canvas->ty + canvas->zoom * sb->y,
                                                  canvas->zoom * sb->width,
                                                  canvas->zoom * sb->height);
  g_assert_true (!graphene_rect_intersection (&map_bounds, &step_rect, NULL)
                 || gtk_widget_get_opacity (overview) < 0.5);
  g_assert_false (gtk_widget_get_halign (overview) == GTK_ALIGN_START
                  && gtk_widget_get_valign (overview) == GTK_ALIGN_START);
  cr_graph_canvas_move_to (canvas, 350 - canvas->zoom * sb->x, 250 - canvas->zoom * sb->y);
  cr_ui_test_spin (200);
  g_assert_true (gtk_widget_get_visible (overview));
  g_assert_cmpfloat (gtk_widget_get_opacity (overview), ==, 1.0);
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

/* The depth control follows the canvas and sets its level. */
static void
test_depth_control (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *control = cr_graph_depth_control_new (f->canvas);
  g_object_ref_sink (control);
  g_assert_true (gtk_widget_get_visible (control));
  GtkWidget *spin = gtk_widget_get_prev_sibling (gtk_widget_get_last_child (control));
  GtkWidget *mixed = gtk_widget_get_last_child (control);
  g_assert_true (GTK_IS_LABEL (mixed));
  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  /* Never focused: its text would take the stepper's keys. */
  g_assert_false (gtk_widget_get_can_focus (spin));
  for (GtkWidget *c = gtk_widget_get_first_child (spin); c; c = gtk_widget_get_next_sibling (c))
    g_assert_false (gtk_widget_get_focusable (c));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 2);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 1);
  g_assert_cmpuint (cr_graph_canvas_get_group_level (f->canvas), ==, 1);
  g_assert_cmpint (node_titled (shown (f), "head · Linear"), >=, 0);
  g_assert_false (gtk_widget_get_visible (mixed));
  g_assert_false (cr_graph_canvas_get_group_level_mixed (f->canvas));

  /* A group opened by hand: no one depth shows the view, and the control
   * says so beside the depth last set. */
  int layers = node_titled (shown (f), "layers · Sequential");
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (f->canvas, layers, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  cr_ui_test_iterate ();
  g_assert_true (cr_graph_canvas_get_group_level_mixed (f->canvas));
  g_assert_true (gtk_widget_get_visible (mixed));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 1);
  /* Closed again by hand: the view is depth 1's again. */
  cr_graph_canvas_set_selected (f->canvas, node_titled (shown (f), "layers.0–2 · Block × 3"));
  g_assert_true (cr_graph_canvas_close_group (f->canvas));
  cr_ui_test_iterate ();
  g_assert_false (cr_graph_canvas_get_group_level_mixed (f->canvas));
  g_assert_false (gtk_widget_get_visible (mixed));
  /* Open again, then + sets one depth: not mixed. */
  layers = node_titled (shown (f), "layers · Sequential");
  g_assert_true (cr_graph_canvas_node_center (f->canvas, layers, &x, &y));
  cr_graph_canvas_click_at (f->canvas, x, y);
  cr_ui_test_iterate ();
  g_assert_true (gtk_widget_get_visible (mixed));
  gtk_spin_button_spin (GTK_SPIN_BUTTON (spin), GTK_SPIN_STEP_FORWARD, 1);
  cr_ui_test_iterate ();
  g_assert_cmpuint (cr_graph_canvas_get_group_level (f->canvas), ==, 2);
  g_assert_false (cr_graph_canvas_get_group_level_mixed (f->canvas));
  g_assert_false (gtk_widget_get_visible (mixed));

  /* A graph without module code: no control. */
  g_autoptr (GError) error = NULL;
  CrGraphModel *plain = cr_ui_test_model_from_script (
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n", NULL);
  g_assert_true (cr_graph_canvas_take_model (f->canvas, plain, &error));
  g_assert_cmpuint (cr_graph_canvas_get_group_height (f->canvas), ==, 0);
  g_assert_false (gtk_widget_get_visible (control));
  g_assert_cmpint (cr_graph_canvas_step_unit (f->canvas, +1), ==, 0);
  g_object_unref (control);
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add ("/ui/canvas-groups/levels", Fixture, NULL, fixture_setup, test_levels, fixture_teardown);
  g_test_add ("/ui/canvas-groups/click-opens", Fixture, NULL, fixture_setup, test_click_opens,
              fixture_teardown);
  g_test_add ("/ui/canvas-groups/step-units", Fixture, NULL, fixture_setup, test_step_units,
              fixture_teardown);
  g_test_add ("/ui/canvas-groups/step-in-sight", Fixture, NULL, fixture_setup, test_step_in_sight,
              fixture_teardown);
  g_test_add_func ("/ui/canvas-groups/overview", test_overview_groups);
  g_test_add ("/ui/canvas-groups/depth-control", Fixture, NULL, fixture_setup, test_depth_control,
              fixture_teardown);
  return g_test_run ();
}
