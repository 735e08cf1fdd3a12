/* test-canvas-tiles.c — the canvas draws its graph from tiles painted once:
 * a pan only places them, a change of step, selection or zoom paints them
 * again (and shows it): a zoom all of them, a step, a selection, a lit path
 * or a re-run (module boxes and all) only those it touches, the render nodes are those the renderer paints
 * fastest, and a big graph glides between layouts without placing its edge
 * labels at every frame; so is the minimap's miniature. Run under GSK's Cairo renderer (the tests' env)
 * and once more under GL. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-examples.h"
#include "cr-graph-overview.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <string.h>

/* A chain of ops with a few leaves: wider than the canvas at 100 %. */
#define SCRIPT_CHAIN \
  "import torch\n" \
  "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n" \
  "w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n" \
  "h = x\n" \
  "for i in range(12):\n" \
  "    h = (h * w + x).tanh()\n" \
  "loss = h.sum()\n" \
  "loss.backward()\n"

/* Over 300 nodes (the canvas's miniature threshold), with module calls to
 * open and close. */
#define SCRIPT_BIG_MODULES \
  "import torch\n" \
  "class Neuron:\n" \
  "    def __init__(self, n):\n" \
  "        self.w = [torch.tensor(0.1 * i, requires_grad=True) for i in range(n)]\n" \
  "    def __call__(self, x):\n" \
  "        act = torch.tensor(0.0, requires_grad=True)\n" \
  "        for wi, xi in zip(self.w, x):\n" \
  "            act = act + wi * xi\n" \
  "        return act.tanh()\n" \
  "x = [torch.tensor(0.1 * i) for i in range(4)]\n" \
  "for layer in range(3):\n" \
  "    x = [Neuron(len(x))(x) for _ in range(8)]\n" \
  "loss = x[0]\n" \
  "for t in x[1:]:\n" \
  "    loss = loss + t\n" \
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
show (Fixture    *f,
      const char *script)
{
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 700, 450);
  f->canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (f->canvas, FALSE);
  gtk_window_set_child (f->window, GTK_WIDGET (f->canvas));
  gtk_window_present (f->window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, cr_ui_test_model_from_script (script, NULL),
                                             &error));
  g_assert_no_error (error);
  g_assert_true (cr_ui_test_wait_until (canvas_allocated, f->canvas, 10));
  cr_ui_test_iterate ();
}

static void
hide (Fixture *f)
{
  gtk_window_destroy (f->window);
  cr_ui_test_iterate ();
}

/* One frame of the canvas, as the renderer would get it (owned). */
static GskRenderNode *
snapshot (CrGraphCanvas *canvas)
{
  GtkSnapshot *s = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (canvas)->snapshot (GTK_WIDGET (canvas), s);
  GskRenderNode *node = gtk_snapshot_free_to_node (s);
  g_assert_nonnull (node);
  return node;
}

/* The frame painted with Cairo (owned). */
static cairo_surface_t *
paint (CrGraphCanvas *canvas)
{
  int w = gtk_widget_get_width (GTK_WIDGET (canvas)), h = gtk_widget_get_height (GTK_WIDGET (canvas));
  GskRenderNode *node = snapshot (canvas);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (surface);
  gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  gsk_render_node_unref (node);
  cairo_surface_flush (surface);
  return surface;
}

static guint
pixels_differing (cairo_surface_t *a,
                  cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  guint n = 0;
  for (int y = 0; y < h; y++)
    n += memcmp (pa + y * stride, pb + y * stride, 4 * w) != 0;
  return n;
}

/* At 100 %, a few pixels of pan paint no tile; the frame moves with it. */
static void
test_pan_places (void)
{
  Fixture f;
  show (&f, SCRIPT_CHAIN);
  cr_graph_canvas_set_zoom (f.canvas, 1.0);
  cairo_surface_t *before = paint (f.canvas);
  guint painted = cr_graph_tiles_n_painted (f.canvas->tiles);
  g_assert_cmpuint (painted, >, 0);
  g_assert_cmpuint (cr_graph_tiles_count (f.canvas->tiles), >, 0);
  cr_graph_canvas_move_to (f.canvas, f.canvas->tx + 5, f.canvas->ty + 3);
  cairo_surface_t *after = paint (f.canvas);
  g_assert_cmpuint (cr_graph_tiles_n_painted (f.canvas->tiles), ==, painted);
  g_assert_cmpuint (pixels_differing (before, after), >, 0);
  cairo_surface_destroy (before);
  cairo_surface_destroy (after);
  hide (&f);
}

/* A step, a selection or a zoom paints the tiles again, and the frame
 * shows the change (a stale tile would not). */
static void
test_changes_repaint (void)
{
  Fixture f;
  show (&f, SCRIPT_CHAIN);
  cr_graph_canvas_set_zoom (f.canvas, 1.0);
  /* The loss's node in sight: the first step is there. */
  cr_graph_canvas_set_step (f.canvas, 0);
  cairo_surface_t *frame = paint (f.canvas);
  for (int change = 0; change < 3; change++)
    {
      guint painted = cr_graph_tiles_n_painted (f.canvas->tiles);
      switch (change)
        {
        case 0:
          cr_graph_canvas_set_step (f.canvas, 1);
          break;
        case 1:
          cr_graph_canvas_set_selected (f.canvas, f.canvas->model->nodes->len - 1);
          break;
        default:
          cr_graph_canvas_set_zoom (f.canvas, 0.8);
          break;
        }
      cairo_surface_t *next = paint (f.canvas);
      g_assert_cmpuint (cr_graph_tiles_n_painted (f.canvas->tiles), >, painted);
      g_assert_cmpuint (pixels_differing (frame, next), >, 0);
      cairo_surface_destroy (frame);
      frame = next;
      /* Nothing changed: nothing painted. */
      painted = cr_graph_tiles_n_painted (f.canvas->tiles);
      cairo_surface_destroy (paint (f.canvas));
      g_assert_cmpuint (cr_graph_tiles_n_painted (f.canvas->tiles), ==, painted);
    }
  cairo_surface_destroy (frame);
  hide (&f);
}

/* A few ops without a loop (a loop's body is a group, whose drawing is not
 * compared); the same after an edit that changes no picture (a comment,
 * spaces), then after one that changes a value shown on a leaf. */
#define SCRIPT_NET(X0) \
  "import torch\n" \
  "x = torch.tensor([" X0 ", 2.0, 3.0], requires_grad=True)\n" \
  "w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n" \
  "h = (x * w + x).tanh()\n" \
  "h = (h * w + x).tanh()\n" \
  "loss = (h * w).sum()\n" \
  "loss.backward()\n"
#define SCRIPT_NET_COMMENTED "# the same graph, commented\n" SCRIPT_NET ("1.0") "  \n"

/* A re-run that draws the same picture keeps the tiles (none painted, the
 * same frame), at a step as before the first; one that changes a value
 * paints again those that show it (before the backward pass, the cards
 * with values; at a step, the gradients too: all), and the frame is the
 * one painting every tile gives. */
static void
test_same_picture_kept (void)
{
  for (int step = -1; step <= 2; step += 3)
    {
      Fixture f;
      show (&f, SCRIPT_NET ("1.0"));
      cr_graph_canvas_set_zoom (f.canvas, 1.0);
      cr_graph_canvas_set_step (f.canvas, step);
      cairo_surface_t *frame = paint (f.canvas);
      CrGraphTiles *tiles = f.canvas->tiles;
      guint painted = cr_graph_tiles_n_painted (tiles);
      g_assert_cmpuint (painted, >, 0);

      g_autoptr (GError) error = NULL;
      g_assert_true (cr_graph_canvas_take_model (
        f.canvas, cr_ui_test_model_from_script (SCRIPT_NET_COMMENTED, NULL), &error));
      /* The window puts the stepper back where it was. */
      cr_graph_canvas_set_step (f.canvas, step);
      cairo_surface_t *again = paint (f.canvas);
      g_assert_true (f.canvas->tiles == tiles);
      g_assert_cmpuint (cr_graph_tiles_n_painted (f.canvas->tiles), ==, painted);
      g_assert_cmpuint (pixels_differing (frame, again), ==, 0);

      /* x[0] from 1 to 4: its card and the loss's show other values, of
       * the same widths (the layout stays). */
      g_assert_true (cr_graph_canvas_take_model (
        f.canvas, cr_ui_test_model_from_script (SCRIPT_NET ("4.0"), NULL), &error));
      cr_graph_canvas_set_step (f.canvas, step);
      cairo_surface_t *other = paint (f.canvas);
      CrGraphTiles *now = f.canvas->tiles;
      guint repainted = cr_graph_tiles_n_painted (now) - (now == tiles ? painted : 0);
      g_test_message ("step %d: %u of %u tiles painted again", step, repainted, painted);
      g_assert_cmpuint (repainted, >, 0);
      g_assert_cmpuint (pixels_differing (again, other), >, 0);
      if (step < 0)
        {
          /* Before the backward pass only the cards' values differ: the
           * other tiles stay. */
          g_assert_true (now == tiles);
          g_assert_cmpuint (repainted, <, painted);
        }
      /* Whatever was kept, the frame is the one painting it all gives. */
      cr_graph_tiles_clear (f.canvas->tiles);
      cairo_surface_t *whole = paint (f.canvas);
      g_assert_cmpuint (pixels_differing (other, whole), ==, 0);
      cairo_surface_destroy (frame);
      cairo_surface_destroy (again);
      cairo_surface_destroy (other);
      cairo_surface_destroy (whole);
      hide (&f);
    }
}

/* nn.Module code: its calls are boxes (the collapse), and a comment edit
 * re-runs it into the same picture. */
#define SCRIPT_MODULES(COMMENT) \
  COMMENT \
  "import torch\n" \
  "import torch.nn as nn\n" \
  "torch.manual_seed(0)\n" \
  "class Net(nn.Module):\n" \
  "    def __init__(self):\n" \
  "        super().__init__()\n" \
  "        self.fc1 = nn.Linear(3, 4)\n" \
  "        self.fc2 = nn.Linear(4, 2)\n" \
  "    def forward(self, x):\n" \
  "        return self.fc2(torch.tanh(self.fc1(x)))\n" \
  "net = Net()\n" \
  "x = torch.tensor([[1.0, 2.0, 3.0]])\n" \
  "loss = net(x).sum()\n" \
  "loss.backward()\n"

/* The frame with the tiles kept is the one painting every tile gives
 * (a stale tile would show); how many tiles were painted for it. */
static guint
assert_frame_whole (Fixture    *f,
                    const char *what)
{
  guint painted = cr_graph_tiles_n_painted (f->canvas->tiles);
  cairo_surface_t *kept = paint (f->canvas);
  guint repainted = cr_graph_tiles_n_painted (f->canvas->tiles) - painted;
  cr_graph_tiles_clear (f->canvas->tiles);
  guint before = cr_graph_tiles_n_painted (f->canvas->tiles);
  cairo_surface_t *whole = paint (f->canvas);
  guint all = cr_graph_tiles_n_painted (f->canvas->tiles) - before;
  g_test_message ("%s: %u of %u tiles painted again", what, repainted, all);
  g_assert_cmpuint (pixels_differing (kept, whole), ==, 0);
  cairo_surface_destroy (kept);
  cairo_surface_destroy (whole);
  return repainted;
}

/* Module code keeps its tiles across a re-run that draws the same
 * picture, with its call boxes closed and open. */
static void
test_groups_kept (void)
{
  for (guint level = 0; level <= 1; level++)
    {
      Fixture f;
      show (&f, SCRIPT_MODULES (""));
      g_assert_cmpuint (cr_graph_canvas_get_group_height (f.canvas), >, 0);
      cr_graph_canvas_set_group_level (f.canvas, level);
      g_assert_nonnull (f.canvas->collapse);
      cr_graph_canvas_set_zoom (f.canvas, 1.0);
      cr_graph_canvas_set_step (f.canvas, 1);
      cairo_surface_destroy (paint (f.canvas));
      guint painted = cr_graph_tiles_n_painted (f.canvas->tiles);
      const CrGraphLayout *layout = f.canvas->layout;
      g_autoptr (GError) error = NULL;
      g_assert_true (cr_graph_canvas_take_model (
        f.canvas, cr_ui_test_model_from_script (SCRIPT_MODULES ("# the same net\n"), NULL), &error));
      g_assert_no_error (error);
      cr_graph_canvas_set_step (f.canvas, 1);
      g_assert_nonnull (f.canvas->collapse);
      g_assert_true (f.canvas->layout != layout);
      cairo_surface_destroy (paint (f.canvas));
      g_test_message ("level %u: %u tiles painted after the re-run", level,
                      cr_graph_tiles_n_painted (f.canvas->tiles) - painted);
      g_assert_cmpuint (cr_graph_tiles_n_painted (f.canvas->tiles), ==, painted);
      assert_frame_whole (&f, "re-run");
      hide (&f);
    }
}

/* A step, a selection, a lit path, a forward step and practice's hidden
 * gradients each paint again only the tiles they touch, and the frame is
 * the one painting every tile gives. */
static void
test_changes_touch_few (void)
{
  Fixture f;
  show (&f, SCRIPT_MODULES (""));
  /* Every call open: the parameters show (and their boxes). */
  cr_graph_canvas_set_group_level (f.canvas, 99);
  cr_graph_canvas_set_zoom (f.canvas, 1.0);
  cairo_surface_destroy (paint (f.canvas));
  guint n_steps = cr_graph_canvas_get_n_steps (f.canvas);
  g_assert_cmpuint (n_steps, >, 4);
  guint fewer = 0, changes = 0;
  for (int step = 0; step < (int) n_steps; step++)
    {
      cr_graph_canvas_set_step (f.canvas, step);
      g_autofree char *what = g_strdup_printf ("step %d", step);
      guint all = cr_graph_tiles_count (f.canvas->tiles);
      fewer += assert_frame_whole (&f, what) < all;
      changes++;
    }
  /* The canvas's model: a leaf's .grad flow lit. */
  const CrGraphModel *model = f.canvas->model;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind != CR_GRAPH_NODE_LEAF)
        continue;
      cr_graph_canvas_set_selected (f.canvas, (int) i);
      guint all = cr_graph_tiles_count (f.canvas->tiles);
      fewer += assert_frame_whole (&f, "selection") < all;
      CrGraphHighlight *h = cr_graph_highlight_new ();
      cr_graph_highlight_add_flow (h, n->tensor, CR_GRAPH_HIGHLIGHT_ACCUMULATE);
      cr_graph_canvas_set_highlight (f.canvas, h);
      assert_frame_whole (&f, "highlight");
      cr_graph_canvas_set_highlight (f.canvas, NULL);
      fewer += assert_frame_whole (&f, "highlight gone") < all;
      changes += 2;
      break;
    }
  g_assert_cmpuint (changes, ==, n_steps + 2);
  cr_graph_canvas_set_hide_step_gradients (f.canvas, TRUE);
  guint all = cr_graph_tiles_count (f.canvas->tiles);
  fewer += assert_frame_whole (&f, "practice") < all;
  cr_graph_canvas_set_forward_step (f.canvas, 1);
  assert_frame_whole (&f, "forward step");
  cr_graph_canvas_set_forward_step (f.canvas, 2);
  fewer += assert_frame_whole (&f, "next forward step") < all;
  changes += 2;
  g_test_message ("%u of %u changes painted fewer than every tile", fewer, changes);
  g_assert_cmpuint (fewer, ==, changes);
  hide (&f);
}

/* Every example stepped through its backward and forward steps with the
 * tiles kept: each frame is the one painting every tile gives (a box
 * drawn past its item's would leave a stale tile). In presentation
 * (larger type, thicker lines), the first steps. */
static void
test_examples_whole (void)
{
  /* What is drawn does not depend on the renderer: once is enough. */
  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "gl") == 0)
    {
      g_test_skip ("the same under GL");
      return;
    }
  g_autoptr (GDir) dir = g_dir_open (cr_examples_dir (), 0, NULL);
  g_assert_nonnull (dir);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name (dir));)
    for (int presentation = 0; presentation <= 1; presentation++)
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (cr_examples_dir (), name, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      Fixture f;
      show (&f, source);
      cr_graph_canvas_set_presentation (f.canvas, presentation);
      cr_graph_canvas_set_zoom (f.canvas, 1.0);
      cairo_surface_destroy (paint (f.canvas));
      guint kept = 0, changes = 0;
      guint n_steps = MIN (cr_graph_canvas_get_n_steps (f.canvas), presentation ? 8 : 40);
      for (int step = 0; step < (int) n_steps; step++, changes++)
        {
          cr_graph_canvas_set_step (f.canvas, step);
          g_autofree char *what = g_strdup_printf ("%s step %d", name, step);
          guint all = cr_graph_tiles_count (f.canvas->tiles);
          kept += assert_frame_whole (&f, what) < all;
        }
      guint n_forward = MIN (cr_graph_canvas_get_n_forward_steps (f.canvas), presentation ? 3 : 12);
      for (int step = 0; step < (int) n_forward; step++, changes++)
        {
          cr_graph_canvas_set_forward_step (f.canvas, step);
          g_autofree char *what = g_strdup_printf ("%s forward %d", name, step);
          guint all = cr_graph_tiles_count (f.canvas->tiles);
          kept += assert_frame_whole (&f, what) < all;
        }
      g_test_message ("%s%s: %u of %u changes kept some tiles", name,
                      presentation ? " (presentation)" : "", kept, changes);
      hide (&f);
      n += !presentation;
    }
  g_assert_cmpuint (n, >=, 14);
}

static gboolean
has_node_type (GskRenderNode     *node,
               GskRenderNodeType  type)
{
  if (gsk_render_node_get_node_type (node) == type)
    return TRUE;
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        if (has_node_type (gsk_container_node_get_child (node, i), type))
          return TRUE;
      return FALSE;
    case GSK_CLIP_NODE:
      return has_node_type (gsk_clip_node_get_child (node), type);
    case GSK_ROUNDED_CLIP_NODE:
      return has_node_type (gsk_rounded_clip_node_get_child (node), type);
    case GSK_TRANSFORM_NODE:
      return has_node_type (gsk_transform_node_get_child (node), type);
    case GSK_OPACITY_NODE:
      return has_node_type (gsk_opacity_node_get_child (node), type);
    default:
      return FALSE;
    }
}

/* GSK's Cairo renderer converts a texture's pixels at every frame: under
 * it the tiles are Cairo nodes; under GL, textures. */
static void
test_nodes_by_renderer (void)
{
  Fixture f;
  show (&f, SCRIPT_CHAIN);
  cr_graph_canvas_set_zoom (f.canvas, 1.0);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (f.window));
  g_assert_nonnull (renderer);
  gboolean cairo = GSK_IS_CAIRO_RENDERER (renderer);
  g_test_message ("renderer %s", G_OBJECT_TYPE_NAME (renderer));
  GskRenderNode *node = snapshot (f.canvas);
  g_assert_cmpint (f.canvas->tiles_as_cairo, ==, cairo);
  g_assert_true (has_node_type (node, cairo ? GSK_CAIRO_NODE : GSK_TEXTURE_NODE));
  g_assert_false (has_node_type (node, cairo ? GSK_TEXTURE_NODE : GSK_CAIRO_NODE));
  gsk_render_node_unref (node);
  hide (&f);
}

static gboolean
overview_allocated (gpointer data)
{
  GtkWidget *overview = data;
  return gtk_widget_get_mapped (overview) && gtk_widget_get_width (overview) > 0;
}

/* The minimap's miniature, painted once, is placed as the tiles are: a
 * Cairo node under GSK's Cairo renderer (a texture would be converted at
 * every frame), a texture under GL. */
static void
test_overview_by_renderer (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 700, 450);
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  GtkWidget *overlay = gtk_overlay_new ();
  gtk_overlay_set_child (GTK_OVERLAY (overlay), GTK_WIDGET (canvas));
  GtkWidget *overview = cr_graph_overview_new (canvas);
  gtk_widget_set_halign (overview, GTK_ALIGN_START);
  gtk_widget_set_valign (overview, GTK_ALIGN_START);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), overview);
  gtk_window_set_child (window, overlay);
  gtk_window_present (window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, cr_ui_test_model_from_script (SCRIPT_BIG_MODULES, NULL),
                                             &error));
  g_assert_no_error (error);
  g_assert_true (cr_ui_test_wait_until (canvas_allocated, canvas, 10));
  /* Near enough that the canvas shows part of the graph: the map shows. */
  cr_graph_canvas_set_zoom (canvas, 1.0);
  g_assert_true (cr_ui_test_wait_until (overview_allocated, overview, 10));
  gboolean cairo = GSK_IS_CAIRO_RENDERER (gtk_native_get_renderer (GTK_NATIVE (window)));
  for (int frame = 0; frame < 2; frame++)
    {
      GtkSnapshot *s = gtk_snapshot_new ();
      GTK_WIDGET_GET_CLASS (overview)->snapshot (overview, s);
      GskRenderNode *node = gtk_snapshot_free_to_node (s);
      g_assert_nonnull (node);
      g_assert_true (has_node_type (node, GSK_CAIRO_NODE));
      g_assert_true (has_node_type (node, GSK_TEXTURE_NODE) == !cairo);
      gsk_render_node_unref (node);
    }
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

/* Opening every module call of a big graph glides its nodes to the new
 * layout: zoomed out, frames drawn in miniature; near, without placing the
 * edge labels at each frame; settled, the labels are placed once for all
 * the tiles. */
static void
test_big_glide (void)
{
  Fixture f;
  show (&f, SCRIPT_BIG_MODULES);
  cr_graph_canvas_set_animate (f.canvas, TRUE);
  guint height = cr_graph_canvas_get_group_height (f.canvas);
  g_assert_cmpuint (height, >, 0);
  cr_graph_canvas_set_group_level (f.canvas, height);
  g_assert_cmpuint (f.canvas->layout->n_nodes, >, 300);
  for (int zoomed = 0; zoomed < 2; zoomed++)
    {
      if (zoomed)
        {
          cr_graph_canvas_set_group_level (f.canvas, 0);
          cr_graph_canvas_set_zoom (f.canvas, 1.0);
          cr_graph_canvas_set_group_level (f.canvas, height);
        }
      gboolean glided = FALSE;
      for (int i = 0; i < 200 && f.canvas->morphing; i++)
        {
          glided = TRUE;
          gint64 start = g_get_monotonic_time ();
          cairo_surface_destroy (paint (f.canvas));
          g_test_message ("glide frame %s: %.1f ms", zoomed ? "at 100 %" : "fitted",
                          (g_get_monotonic_time () - start) / 1000.0);
          cr_ui_test_spin (30);
        }
      g_assert_true (glided);
      g_assert_false (f.canvas->morphing);
      cairo_surface_destroy (paint (f.canvas));
    }
  /* Settled at 100 %: the labels placed once, for this layout. */
  g_assert_nonnull (f.canvas->label_boxes);
  g_assert_true (f.canvas->label_boxes_for[1] == f.canvas->layout);
  const double *boxes = f.canvas->label_boxes;
  cr_graph_canvas_move_to (f.canvas, f.canvas->tx - 40, f.canvas->ty);
  cairo_surface_destroy (paint (f.canvas));
  g_assert_true (f.canvas->label_boxes == boxes);
  hide (&f);
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/ui/canvas-tiles/pan-places", test_pan_places);
  g_test_add_func ("/ui/canvas-tiles/changes-repaint", test_changes_repaint);
  g_test_add_func ("/ui/canvas-tiles/same-picture-kept", test_same_picture_kept);
  g_test_add_func ("/ui/canvas-tiles/groups-kept", test_groups_kept);
  g_test_add_func ("/ui/canvas-tiles/changes-touch-few", test_changes_touch_few);
  g_test_add_func ("/ui/canvas-tiles/examples-whole", test_examples_whole);
  g_test_add_func ("/ui/canvas-tiles/nodes-by-renderer", test_nodes_by_renderer);
  g_test_add_func ("/ui/canvas-tiles/big-glide", test_big_glide);
  g_test_add_func ("/ui/canvas-tiles/overview-by-renderer", test_overview_by_renderer);
  return g_test_run ();
}
