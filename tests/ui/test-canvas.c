/* test-canvas.c — the graph canvas: zoom within bounds, fit, selection by
 * API, Tab order and click (through the hit test), selection and view kept
 * across an edited script's new model, scrolling the current step into view,
 * export to PNG/SVG/PDF, and the dimmed and presentation looks. Runs under
 * xvfb-run; reaches the hit test through the canvas's private header. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-overview.h"
#include "cr-examples.h"
#include "cr-window.h"
#include "cr-window-private.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define SCRIPT_A_START \
  "import torch\n" \
  "a = torch.tensor([1.0, 2.0], requires_grad=True)\n" \
  "w = torch.tensor([3.0, 4.0], requires_grad=True)\n" \
  "c = torch.tensor([0.5, 0.5])\n" \
  "b = w * a\n" \
  "d = b + c\n"

#define SCRIPT_A \
  SCRIPT_A_START \
  "L = d.sum()\n" \
  "L.backward()\n"

/* SCRIPT_A edited: one more op before the loss. */
#define SCRIPT_A2 \
  SCRIPT_A_START \
  "e = d * d\n" \
  "L = e.sum()\n" \
  "L.backward()\n"

#define SCRIPT_B \
  "import torch\n" \
  "x = torch.tensor(2.0, requires_grad=True)\n" \
  "y = x.exp()\n" \
  "y.backward()\n"

static CrGraphModel *
model_of (const char *source)
{
  CrGraphModel *model = cr_ui_test_model_from_script (source, NULL);
  g_assert_nonnull (model);
  return model;
}

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

/* Runs the main loop until the canvas has its size and has drawn. */
static void
wait_allocated (CrGraphCanvas *canvas)
{
  g_assert_true (cr_ui_test_wait_until (canvas_allocated, canvas, 10));
  cr_ui_test_iterate ();
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 800, 500);
  f->canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (f->canvas, FALSE);
  gtk_window_set_child (f->window, GTK_WIDGET (f->canvas));
  gtk_window_present (f->window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (data ? data : SCRIPT_A), &error));
  g_assert_no_error (error);
  wait_allocated (f->canvas);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (f->window);
  cr_ui_test_iterate ();
}

static guint
n_nodes (Fixture *f)
{
  return cr_graph_canvas_get_model (f->canvas)->nodes->len;
}

static int
node_with_key_prefix (const CrGraphModel *model,
                      const char         *prefix)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->key && g_str_has_prefix (n->key, prefix))
        return (int) i;
    }
  return -1;
}

static gboolean
all_nodes_visible (Fixture *f)
{
  int w = gtk_widget_get_width (GTK_WIDGET (f->canvas));
  int h = gtk_widget_get_height (GTK_WIDGET (f->canvas));
  for (guint i = 0; i < n_nodes (f); i++)
    {
      double x, y;
      g_assert_true (cr_graph_canvas_node_center (f->canvas, (int) i, &x, &y));
      if (x < 0 || y < 0 || x > w || y > h)
        return FALSE;
    }
  return TRUE;
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              guint      *count)
{
  (*count)++;
}

static void
test_zoom (Fixture       *f,
           gconstpointer  data)
{
  /* At first readable: the smallest type (edge labels, captions) at 11
   * pixels, no larger. */
  double z = cr_graph_canvas_get_zoom (f->canvas);
  g_assert_cmpfloat (fabs (z * cr_graph_render_label_size () - 11.0), <, 1e-6);

  guint notified = 0;
  g_signal_connect (f->canvas, "notify::zoom", G_CALLBACK (count_notify), &notified);
  cr_graph_canvas_zoom_in (f->canvas);
  g_assert_cmpfloat (cr_graph_canvas_get_zoom (f->canvas), >, z * 1.1);
  g_assert_cmpuint (notified, ==, 1);
  cr_graph_canvas_zoom_out (f->canvas);
  g_assert_cmpfloat (fabs (cr_graph_canvas_get_zoom (f->canvas) - z), <, 1e-9);
  g_assert_cmpuint (notified, ==, 2);

  /* Bounded both ways, whatever is asked. */
  for (int i = 0; i < 40; i++)
    cr_graph_canvas_zoom_in (f->canvas);
  double top = cr_graph_canvas_get_zoom (f->canvas);
  g_assert_cmpfloat (top, <=, 4.0);
  g_assert_cmpfloat (top, >=, 2.0);
  cr_graph_canvas_set_zoom (f->canvas, 1e9);
  g_assert_cmpfloat (cr_graph_canvas_get_zoom (f->canvas), ==, top);
  cr_graph_canvas_set_zoom (f->canvas, 0.0);
  double bottom = cr_graph_canvas_get_zoom (f->canvas);
  g_assert_cmpfloat (bottom, >, 0.0);
  g_assert_cmpfloat (bottom, <=, 0.1);
  g_object_set (f->canvas, "zoom", 1.5, NULL);
  double got = 0;
  g_object_get (f->canvas, "zoom", &got, NULL);
  g_assert_cmpfloat (fabs (got - 1.5), <, 1e-9);

  /* Fit shows every node again. */
  cr_graph_canvas_set_zoom (f->canvas, 4.0);
  g_assert_false (all_nodes_visible (f));
  cr_graph_canvas_zoom_fit (f->canvas);
  g_assert_true (all_nodes_visible (f));
  g_assert_cmpfloat (cr_graph_canvas_get_zoom (f->canvas) * cr_graph_render_label_size (), <=, 11.0 + 1e-6);

  /* Animated, the zoom glides there; a second step goes on from where the
   * first is heading. */
  cr_graph_canvas_set_animate (f->canvas, TRUE);
  z = cr_graph_canvas_get_zoom (f->canvas);
  cr_graph_canvas_zoom_in (f->canvas);
  cr_graph_canvas_zoom_in (f->canvas);
  cr_ui_test_spin (500);
  g_assert_cmpfloat (fabs (cr_graph_canvas_get_zoom (f->canvas) - z * 1.25 * 1.25), <, 1e-6);
}

static void
test_select (Fixture       *f,
             gconstpointer  data)
{
  guint n = n_nodes (f);
  g_assert_cmpuint (n, >=, 6);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, -1);

  guint notified = 0;
  g_signal_connect (f->canvas, "notify::selected", G_CALLBACK (count_notify), &notified);
  cr_graph_canvas_set_selected (f->canvas, 2);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, 2);
  g_assert_cmpuint (notified, ==, 1);
  cr_graph_canvas_set_selected (f->canvas, 2);
  g_assert_cmpuint (notified, ==, 1);
  cr_graph_canvas_set_selected (f->canvas, (int) n + 5);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, -1);

  /* Tab order: every node once, left to right, then top to bottom, then
   * around to the first again. */
  g_autofree int *order = g_new (int, n);
  g_autofree gboolean *seen = g_new0 (gboolean, n);
  for (guint i = 0; i < n; i++)
    {
      cr_graph_canvas_select_next (f->canvas, FALSE);
      order[i] = cr_graph_canvas_get_selected (f->canvas);
      g_assert_cmpint (order[i], >=, 0);
      g_assert_false (seen[order[i]]);
      seen[order[i]] = TRUE;
      if (i > 0)
        {
          double x0, y0, x1, y1;
          cr_graph_canvas_node_center (f->canvas, order[i - 1], &x0, &y0);
          cr_graph_canvas_node_center (f->canvas, order[i], &x1, &y1);
          g_assert_true (x1 > x0 + 0.5 || (fabs (x1 - x0) <= 2.0 && y1 > y0));
        }
    }
  cr_graph_canvas_select_next (f->canvas, FALSE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, order[0]);
  cr_graph_canvas_select_next (f->canvas, TRUE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, order[n - 1]);
  cr_graph_canvas_select_next (f->canvas, TRUE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, order[n - 2]);
  cr_graph_canvas_set_selected (f->canvas, -1);
  cr_graph_canvas_select_next (f->canvas, TRUE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, order[n - 1]);
}

static void
test_click (Fixture       *f,
            gconstpointer  data)
{
  for (guint i = 0; i < n_nodes (f); i++)
    {
      double x, y;
      g_assert_true (cr_graph_canvas_node_center (f->canvas, (int) i, &x, &y));
      g_assert_cmpint (cr_graph_canvas_pick (f->canvas, x, y), ==, (int) i);
      cr_graph_canvas_click_at (f->canvas, x, y);
      g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, (int) i);
    }
  /* The corner is margin: a click there clears the selection. */
  g_assert_cmpint (cr_graph_canvas_pick (f->canvas, 2, 2), ==, -1);
  cr_graph_canvas_click_at (f->canvas, 2, 2);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, -1);

  /* Zoomed in, the hit test follows the view. */
  cr_graph_canvas_set_zoom (f->canvas, 2.0);
  int mid = (int) n_nodes (f) / 2;
  double x, y;
  cr_graph_canvas_node_center (f->canvas, mid, &x, &y);
  g_assert_cmpint (cr_graph_canvas_pick (f->canvas, x, y), ==, mid);
}

/* The canvas's motion controller (enter, motion, leave). */
static GtkEventController *
motion_controller (CrGraphCanvas *canvas)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (canvas));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_MOTION (c))
        return c;
    }
  g_assert_not_reached ();
  return NULL;
}

/* A pointer resting where the canvas appeared rings no node (in the
 * presented shots one sat on the screen's centre node); once it moves
 * over the graph, the node under it is hovered. */
static void
test_hover_after_motion (Fixture       *f,
                         gconstpointer  data)
{
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (f->canvas, 0, &x, &y));
  GtkEventController *motion = motion_controller (f->canvas);
  g_signal_emit_by_name (motion, "enter", x, y);
  g_signal_emit_by_name (motion, "motion", x, y);
  g_assert_cmpint (f->canvas->hovered, ==, -1);
  g_signal_emit_by_name (motion, "motion", x + 1, y);
  g_assert_cmpint (f->canvas->hovered, ==, 0);
  g_signal_emit_by_name (motion, "leave");
  g_assert_cmpint (f->canvas->hovered, ==, -1);
  /* Back in where it left: at rest again until it moves. */
  g_signal_emit_by_name (motion, "enter", x + 1, y);
  g_assert_cmpint (f->canvas->hovered, ==, -1);
  /* Presented, no node is ringed as hovered, moved or not (the neuron's
   * presented shots had b ringed: the window moved under the pointer). */
  cr_graph_canvas_set_presentation (f->canvas, TRUE);
  g_assert_true (cr_graph_canvas_node_center (f->canvas, 0, &x, &y));
  g_signal_emit_by_name (motion, "motion", x, y);
  g_signal_emit_by_name (motion, "motion", x + 1, y);
  g_assert_cmpint (f->canvas->hovered, ==, -1);
}

/* Each node's centre on screen, by key. */
static GHashTable *
screen_centers (Fixture *f)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const CrGraphModel *model = cr_graph_canvas_get_model (f->canvas);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      double *c = g_new (double, 2);
      g_assert_true (cr_graph_canvas_node_center (f->canvas, (int) i, &c[0], &c[1]));
      g_hash_table_insert (table, g_strdup (n->key), c);
    }
  return table;
}

/* The mean movement of the nodes in both; returns how many. */
static guint
mean_shift (GHashTable *before,
            GHashTable *after,
            double     *sx,
            double     *sy)
{
  GHashTableIter iter;
  gpointer key, value;
  guint n = 0;
  *sx = *sy = 0;
  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const double *b = g_hash_table_lookup (before, key), *a = value;
      if (!b)
        continue;
      *sx += a[0] - b[0];
      *sy += a[1] - b[1];
      n++;
    }
  if (n)
    {
      *sx /= n;
      *sy /= n;
    }
  return n;
}

static void
test_keep_across_models (Fixture       *f,
                         gconstpointer  data)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (f->canvas);
  int w = node_with_key_prefix (model, "leaf:w");
  if (w < 0)
    {
      g_test_skip ("the model has no node keys");
      return;
    }
  g_autofree char *key = g_strdup (((CrGraphNode *) g_ptr_array_index (model->nodes, w))->key);
  cr_graph_canvas_set_selected (f->canvas, w);
  cr_graph_canvas_set_zoom (f->canvas, 1.3);
  cr_graph_canvas_set_step (f->canvas, 1);

  /* The edited script: one more op. Same keys, so the same node stays
   * selected, the zoom stays, and the step goes back to before backward. */
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_A2), &error));
  g_assert_no_error (error);
  model = cr_graph_canvas_get_model (f->canvas);
  int sel = cr_graph_canvas_get_selected (f->canvas);
  g_assert_cmpint (sel, >=, 0);
  g_assert_cmpstr (((CrGraphNode *) g_ptr_array_index (model->nodes, sel))->key, ==, key);
  g_assert_cmpfloat (fabs (cr_graph_canvas_get_zoom (f->canvas) - 1.3), <, 1e-9);
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, -1);

  /* The nodes that remain stay where they were on screen, on average. */
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_A), &error));
  g_autoptr (GHashTable) before = screen_centers (f);
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_A2), &error));
  g_autoptr (GHashTable) after = screen_centers (f);
  double sx = 0, sy = 0;
  guint matched = mean_shift (before, after, &sx, &sy);
  g_assert_cmpuint (matched, >=, 5);
  g_assert_cmpfloat (fabs (sx), <, 1.0);
  g_assert_cmpfloat (fabs (sy), <, 1.0);

  /* A graph with nothing in common: no selection, fitted anew. */
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_B), &error));
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, -1);
  cr_ui_test_iterate ();
  g_assert_true (all_nodes_visible (f));

  /* No model: empty, nothing selected. */
  g_assert_true (cr_graph_canvas_take_model (f->canvas, NULL, &error));
  g_assert_null (cr_graph_canvas_get_model (f->canvas));
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (f->canvas), ==, 0);
  cr_graph_canvas_select_next (f->canvas, FALSE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, -1);
}

static void
test_step_scrolls (Fixture       *f,
                   gconstpointer  data)
{
  guint n_steps = cr_graph_canvas_get_n_steps (f->canvas);
  g_assert_cmpuint (n_steps, >, 2);
  cr_graph_canvas_set_step (f->canvas, 99);
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, (int) n_steps - 1);
  cr_graph_canvas_set_step (f->canvas, -7);
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, -1);

  /* Zoomed far in, each step's node is brought into view. */
  cr_graph_canvas_set_zoom (f->canvas, 4.0);
  int w = gtk_widget_get_width (GTK_WIDGET (f->canvas));
  int h = gtk_widget_get_height (GTK_WIDGET (f->canvas));
  const CrGraphModel *model = cr_graph_canvas_get_model (f->canvas);
  for (guint s = 0; s < n_steps; s++)
    {
      cr_graph_canvas_set_step (f->canvas, (int) s);
      const CrGraphNode *node = cr_graph_model_find_step (model, (int) s);
      g_assert_nonnull (node);
      double x, y;
      cr_graph_canvas_node_center (f->canvas, (int) node->id, &x, &y);
      g_assert_cmpfloat (x, >=, 0);
      g_assert_cmpfloat (x, <=, w);
      g_assert_cmpfloat (y, >=, 0);
      g_assert_cmpfloat (y, <=, h);
    }
}

/* With animations on, the nodes that remain start where they were and glide
 * to their new places; new nodes fade in. */
static void
test_morph (Fixture       *f,
            gconstpointer  data)
{
  cr_graph_canvas_set_animate (f->canvas, TRUE);
  cr_graph_canvas_set_zoom (f->canvas, 1.0);
  g_autoptr (GHashTable) before = screen_centers (f);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_A2), &error));
  g_autoptr (GHashTable) start = screen_centers (f);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, start);
  guint matched = 0;
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const double *b = g_hash_table_lookup (before, key), *a = value;
      if (!b)
        continue;
      g_assert_cmpfloat (fabs (a[0] - b[0]), <, 1.0);
      g_assert_cmpfloat (fabs (a[1] - b[1]), <, 1.0);
      matched++;
    }
  g_assert_cmpuint (matched, >=, 5);

  cr_ui_test_spin (600);
  /* Done: where the new layout puts them, and the same again with the
   * animations off. */
  g_autoptr (GHashTable) end = screen_centers (f);
  double moved = 0;
  g_hash_table_iter_init (&iter, end);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const double *a = value, *b = g_hash_table_lookup (before, key);
      if (b)
        moved = MAX (moved, hypot (a[0] - b[0], a[1] - b[1]));
    }
  /* (The edit moves some of them: otherwise this test shows nothing.) */
  g_assert_cmpfloat (moved, >, 2.0);
  cr_graph_canvas_set_animate (f->canvas, FALSE);
  g_autoptr (GHashTable) still = screen_centers (f);
  g_hash_table_iter_init (&iter, end);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const double *a = value, *b = g_hash_table_lookup (still, key);
      g_assert_cmpfloat (fabs (a[0] - b[0]), <, 0.01);
      g_assert_cmpfloat (fabs (a[1] - b[1]), <, 0.01);
    }
}

static void
check_magic (const char *path,
             const char *magic,
             gsize       at_most)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 100);
  g_assert_nonnull (g_strstr_len (contents, (gssize) MIN (length, at_most), magic));
}

static guint32
png_width (const char *path)
{
  g_autofree guint8 *contents = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, (char **) &contents, &length, NULL));
  g_assert_cmpuint (length, >, 24);
  return (guint32) contents[16] << 24 | (guint32) contents[17] << 16
         | (guint32) contents[18] << 8 | contents[19];
}

static void
test_export (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cr-canvas-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *png = g_build_filename (dir, "graph.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "graph.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "graph.PDF", NULL);
  g_autofree char *bad = g_build_filename (dir, "graph.txt", NULL);
  g_autofree char *big = g_build_filename (dir, "big.png", NULL);

  cr_graph_canvas_set_step (f->canvas, 2);
  cr_graph_canvas_set_selected (f->canvas, 1);
  g_assert_true (cr_graph_canvas_export (f->canvas, png, &error));
  g_assert_no_error (error);
  check_magic (png, "\x89PNG\r\n", 8);
  g_assert_true (cr_graph_canvas_export (f->canvas, svg, &error));
  check_magic (svg, "<svg", 400);
  g_assert_true (cr_graph_canvas_export (f->canvas, pdf, &error));
  check_magic (pdf, "%PDF-", 8);
  g_assert_false (cr_graph_canvas_export (f->canvas, bad, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));

  /* Presentation mode draws larger. */
  cr_graph_canvas_set_presentation (f->canvas, TRUE);
  g_assert_true (cr_graph_canvas_export (f->canvas, big, &error));
  g_assert_cmpuint (png_width (big), >, png_width (png) * 11 / 10);
  cr_graph_canvas_set_presentation (f->canvas, FALSE);

  /* Nothing to export without a graph. */
  cr_graph_canvas_take_model (f->canvas, NULL, NULL);
  g_assert_false (cr_graph_canvas_export (f->canvas, png, &error));
  g_assert_nonnull (error);

  const char *files[] = { png, svg, pdf, big };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    g_unlink (files[i]);
  g_rmdir (dir);
}

/* Draws the canvas as GTK would and counts the pixels that differ from
 * the top-left one (the background). */
static guint
drawn_pixels (CrGraphCanvas *canvas,
              double        *mean_alpha)
{
  int w = gtk_widget_get_width (GTK_WIDGET (canvas));
  int h = gtk_widget_get_height (GTK_WIDGET (canvas));
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (canvas)->snapshot (GTK_WIDGET (canvas), snapshot);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (surface);
  gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  gsk_render_node_unref (node);
  cairo_surface_flush (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint differ = 0;
  double alpha = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 px = *(const guint32 *) (data + y * stride + 4 * x);
        alpha += (px >> 24) / 255.0;
        differ += (px >> 24) > 0x20;
      }
  cairo_surface_destroy (surface);
  *mean_alpha = alpha / MAX (w * h, 1);
  return differ;
}

static void
test_looks (Fixture       *f,
            gconstpointer  data)
{
  double plain_alpha, dimmed_alpha, alpha;
  guint plain = drawn_pixels (f->canvas, &plain_alpha);
  g_assert_cmpuint (plain, >, 1000);

  guint notified = 0;
  g_signal_connect (f->canvas, "notify::dimmed", G_CALLBACK (count_notify), &notified);
  cr_graph_canvas_set_dimmed (f->canvas, TRUE);
  g_assert_cmpuint (notified, ==, 1);
  gboolean dimmed = FALSE;
  g_object_get (f->canvas, "dimmed", &dimmed, NULL);
  g_assert_true (dimmed);
  drawn_pixels (f->canvas, &dimmed_alpha);
  /* Faded: the same drawing, less opaque. */
  g_assert_cmpfloat (dimmed_alpha, <, plain_alpha * 0.8);
  g_assert_cmpfloat (dimmed_alpha, >, 0);
  cr_graph_canvas_set_dimmed (f->canvas, FALSE);

  cr_graph_canvas_set_presentation (f->canvas, TRUE);
  gboolean presentation = FALSE;
  g_object_get (f->canvas, "presentation", &presentation, NULL);
  g_assert_true (presentation);
  g_assert_cmpuint (drawn_pixels (f->canvas, &alpha), >, 1000);
  /* The selection and the step survive the new layout. */
  cr_graph_canvas_set_selected (f->canvas, 1);
  cr_graph_canvas_set_step (f->canvas, 1);
  cr_graph_canvas_set_presentation (f->canvas, FALSE);
  g_assert_cmpint (cr_graph_canvas_get_selected (f->canvas), ==, 1);
  g_assert_cmpint (cr_graph_canvas_get_step (f->canvas), ==, 1);
  g_assert_cmpuint (drawn_pixels (f->canvas, &alpha), >, 1000);

  /* Dark style, with the animations on: draws, and frames keep coming. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  cr_graph_canvas_set_animate (f->canvas, TRUE);
  cr_graph_canvas_set_step (f->canvas, 2);
  g_assert_cmpuint (drawn_pixels (f->canvas, &alpha), >, 1000);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (f->canvas, model_of (SCRIPT_A2), &error));
  cr_ui_test_spin (400);
  g_assert_cmpuint (drawn_pixels (f->canvas, &alpha), >, 1000);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

/* The toy network in a canvas of w x h pixels. */
static CrGraphCanvas *
toy_canvas (int         w,
            int         h,
            GtkWindow **window)
{
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "01-toy-network.py", NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (*window, w, h);
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_window_set_child (*window, GTK_WIDGET (canvas));
  gtk_window_present (*window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (source), &error));
  wait_allocated (canvas);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), ==, w);
  return canvas;
}

/* Where node's box is on the canvas: inside the widget? */
static gboolean
box_visible (CrGraphCanvas *canvas,
             int            node)
{
  const CrGraphBox *b = &canvas->layout->nodes[node];
  double x0 = canvas->tx + canvas->zoom * b->x, x1 = x0 + canvas->zoom * b->width;
  double y0 = canvas->ty + canvas->zoom * b->y, y1 = y0 + canvas->zoom * b->height;
  return x0 >= -0.5 && y0 >= -0.5 && x1 <= gtk_widget_get_width (GTK_WIDGET (canvas)) + 0.5
         && y1 <= gtk_widget_get_height (GTK_WIDGET (canvas)) + 0.5;
}

/* The far end of the graph's flow (its right, or its bottom) on the
 * canvas, and the canvas's own there. */
static void
flow_end (CrGraphCanvas *canvas,
          double        *graph_end,
          double        *canvas_end)
{
  gboolean down = canvas->layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  *graph_end = down ? canvas->ty + canvas->zoom * canvas->layout->height
                    : canvas->tx + canvas->zoom * canvas->layout->width;
  *canvas_end = down ? gtk_widget_get_height (GTK_WIDGET (canvas))
                     : gtk_widget_get_width (GTK_WIDGET (canvas));
}

/* Every first view is readable: its smallest type at 11 pixels (20 in
 * presentation); a graph that fits so is whole, a bigger one shows its
 * output (or the current step's node) and the rest by panning. */
static void
test_fit (void)
{
  double label = cr_graph_render_label_size ();
  /* A 900 pixel pane (1920x1080): the toy network readable, around its
   * output, with no empty band wider than the margin at the output's end. */
  GtkWindow *window;
  CrGraphCanvas *canvas = toy_canvas (900, 640, &window);
  g_assert_cmpfloat (fabs (canvas->zoom * label - 11.0), <, 1e-6);
  int out = -1;
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  for (guint i = 0; i < model->nodes->len; i++)
    if (((const CrGraphNode *) g_ptr_array_index (model->nodes, i))->kind == CR_GRAPH_NODE_OUTPUT)
      out = (int) i;
  g_assert_cmpint (out, >=, 0);
  g_assert_true (box_visible (canvas, out));
  double end, canvas_end;
  flow_end (canvas, &end, &canvas_end);
  g_assert_cmpfloat (end, <=, canvas_end);
  g_assert_cmpfloat (end, >=, canvas_end - 20);
  /* Presentation mode: type a room reads, 20 pixels. */
  cr_graph_canvas_set_presentation (canvas, TRUE);
  g_assert_cmpfloat (canvas->zoom * label * CR_GRAPH_RENDER_PRESENT_TYPE, >=, 20.0 - 1e-6);
  g_assert_true (box_visible (canvas, out));
  gtk_window_destroy (window);
  cr_ui_test_iterate ();

  /* A narrow tall pane (1366x768): the same, around the output. */
  canvas = toy_canvas (560, 650, &window);
  model = cr_graph_canvas_get_model (canvas);
  g_assert_cmpfloat (canvas->zoom * label, >=, 11.0 - 1e-6);
  g_assert_true (box_visible (canvas, out));
  /* Taller than wide: top to bottom, the inputs above the output. */
  g_assert_cmpint (canvas->layout->direction, ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  flow_end (canvas, &end, &canvas_end);
  g_assert_cmpfloat (end, <=, canvas_end);
  g_assert_cmpfloat (end, >=, canvas_end - 20);

  /* Stepping to a node at the far left, then into presentation mode: the
   * new first view keeps the current step's node in sight, readable. */
  int last = (int) cr_graph_canvas_get_n_steps (canvas) - 1;
  cr_graph_canvas_set_step (canvas, last);
  const CrGraphNode *node = cr_graph_model_find_step (model, last);
  g_assert_true (box_visible (canvas, (int) node->id));
  cr_graph_canvas_set_presentation (canvas, TRUE);
  g_assert_true (box_visible (canvas, (int) node->id));
  g_assert_cmpfloat (canvas->zoom * label * CR_GRAPH_RENDER_PRESENT_TYPE, >=, 20.0 - 1e-6);
  gtk_window_destroy (window);
  cr_ui_test_iterate ();

  /* A small graph in a big pane: whole, at the readable size (no poster). */
  GtkWindow *big = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (big, 1000, 700);
  canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_window_set_child (big, GTK_WIDGET (canvas));
  gtk_window_present (big);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (SCRIPT_B), &error));
  wait_allocated (canvas);
  g_assert_cmpfloat (fabs (canvas->zoom * label - 11.0), <, 1e-6);
  for (guint i = 0; i < canvas->layout->n_nodes; i++)
    g_assert_true (box_visible (canvas, (int) i));
  gtk_window_destroy (big);
  cr_ui_test_iterate ();
}

/* A bar floating over the canvas in its overlay, as the window's stepper
 * (bottom, centred) and zoom buttons (top right) do. */
static GtkWidget *
floating_bar (GtkOverlay *overlay,
              int         width,
              GtkAlign    halign,
              GtkAlign    valign)
{
  GtkWidget *bar = gtk_button_new_with_label ("controls");
  gtk_widget_set_size_request (bar, width, 46);
  gtk_widget_set_halign (bar, halign);
  gtk_widget_set_valign (bar, valign);
  gtk_widget_set_margin_top (bar, 12);
  gtk_widget_set_margin_bottom (bar, 18);
  gtk_widget_set_margin_end (bar, 12);
  gtk_overlay_add_overlay (overlay, bar);
  return bar;
}

/* node's box on the canvas is clear of widget's allocation. */
static gboolean
box_clear_of (CrGraphCanvas *canvas,
              int            node,
              GtkWidget     *widget)
{
  graphene_rect_t r;
  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (canvas), &r));
  const CrGraphBox *b = &canvas->layout->nodes[node];
  double x0 = canvas->tx + canvas->zoom * b->x, x1 = x0 + canvas->zoom * b->width;
  double y0 = canvas->ty + canvas->zoom * b->y, y1 = y0 + canvas->zoom * b->height;
  return x1 <= r.origin.x || x0 >= r.origin.x + r.size.width
         || y1 <= r.origin.y || y0 >= r.origin.y + r.size.height;
}

static gboolean
fully_shown (CrGraphCanvas *canvas,
             int            node)
{
  return box_visible (canvas, node);
}

/* No node of a first view sits under a control floating over the canvas,
 * nor does the current step's node while stepping; a control shown after
 * the graph (as the window shows its stepper) moves the first view clear. */
static void
test_fit_floating (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 700, 320);
  GtkOverlay *overlay = GTK_OVERLAY (gtk_overlay_new ());
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_overlay_set_child (overlay, GTK_WIDGET (canvas));
  GtkWidget *stepper = floating_bar (overlay, 480, GTK_ALIGN_CENTER, GTK_ALIGN_END);
  GtkWidget *zoom = floating_bar (overlay, 170, GTK_ALIGN_END, GTK_ALIGN_START);
  gtk_widget_set_visible (stepper, FALSE);
  gtk_window_set_child (window, GTK_WIDGET (overlay));
  gtk_window_present (window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (SCRIPT_B), &error));
  wait_allocated (canvas);
  /* The stepper comes after the graph, as in the window. */
  gtk_widget_set_visible (stepper, TRUE);
  cr_ui_test_spin (100);
  g_assert_cmpfloat (canvas->zoom * cr_graph_render_label_size (), >=, 11.0 - 1e-6);
  for (guint i = 0; i < canvas->layout->n_nodes; i++)
    {
      g_assert_true (fully_shown (canvas, (int) i));
      g_assert_true (box_clear_of (canvas, (int) i, stepper));
      g_assert_true (box_clear_of (canvas, (int) i, zoom));
    }

  /* A bigger graph stepped through at a large zoom: each step's node is
   * brought out from under the stepper. */
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (SCRIPT_A), &error));
  cr_graph_canvas_set_zoom (canvas, 2.5);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  for (guint s = 0; s < cr_graph_canvas_get_n_steps (canvas); s++)
    {
      cr_graph_canvas_set_step (canvas, (int) s);
      const CrGraphNode *node = cr_graph_model_find_step (model, (int) s);
      g_assert_true (box_clear_of (canvas, (int) node->id, stepper));
    }
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

/* The overview shows while the canvas shows part of its graph, maps its
 * points to the graph's, and hides when the whole graph is in view. */
static void
test_overview (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 420, 400);
  GtkOverlay *overlay = GTK_OVERLAY (gtk_overlay_new ());
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_overlay_set_child (overlay, GTK_WIDGET (canvas));
  CrGraphOverview *overview = CR_GRAPH_OVERVIEW (cr_graph_overview_new (canvas));
  gtk_widget_set_halign (GTK_WIDGET (overview), GTK_ALIGN_START);
  gtk_widget_set_valign (GTK_WIDGET (overview), GTK_ALIGN_START);
  gtk_overlay_add_overlay (overlay, GTK_WIDGET (overview));
  g_assert_true (cr_graph_overview_get_canvas (overview) == canvas);
  gtk_window_set_child (window, GTK_WIDGET (overlay));
  gtk_window_present (window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (SCRIPT_A), &error));
  wait_allocated (canvas);
  cr_ui_test_spin (200);
  /* Readable, SCRIPT_A does not fit 420 pixels: part of it, and the map. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overview)));
  cr_ui_test_spin (100);
  int w = gtk_widget_get_width (GTK_WIDGET (overview)), h = gtk_widget_get_height (GTK_WIDGET (overview));
  g_assert_cmpint (w, >, 20);
  g_assert_cmpint (h, >, 20);
  g_assert_cmpint (w, <=, 168);
  double gx0, gy0, gx1, gy1;
  g_assert_true (cr_graph_overview_to_graph (overview, 0, 0, &gx0, &gy0));
  g_assert_true (cr_graph_overview_to_graph (overview, w, h, &gx1, &gy1));
  g_assert_cmpfloat (gx0, <=, 0);
  g_assert_cmpfloat (gx1, >=, canvas->layout->width);
  g_assert_true (gy0 <= 0 || gy1 >= canvas->layout->height);
  /* The selected node put under the map's corner: the map goes to a
   * corner where it hides it not (coach-light: it hid model.weight). */
  int node = (int) canvas->layout->n_nodes / 2;
  cr_graph_canvas_set_selected (canvas, node);
  const CrGraphBox *b = &canvas->layout->nodes[node];
  graphene_rect_t map;
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (overview), GTK_WIDGET (canvas), &map));
  cr_graph_canvas_move_to (canvas, map.origin.x + 10 - canvas->zoom * b->x,
                           map.origin.y + 10 - canvas->zoom * b->y);
  cr_ui_test_spin (200);
  graphene_rect_t box = GRAPHENE_RECT_INIT (canvas->tx + canvas->zoom * b->x, canvas->ty + canvas->zoom * b->y,
                                            canvas->zoom * b->width, canvas->zoom * b->height);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overview)));
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (overview), GTK_WIDGET (canvas), &map));
  g_assert_false (graphene_rect_intersection (&map, &box, NULL));
  /* Fitting the whole graph: nothing left to map. */
  cr_graph_canvas_zoom_fit (canvas);
  cr_ui_test_spin (200);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (overview)));
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

/* A scalar network of about 800 nodes, no module code. */
#define SCRIPT_BIG \
  "import torch\n" \
  "x = [torch.tensor(0.1 * i) for i in range(4)]\n" \
  "for layer in range(2):\n" \
  "    out = []\n" \
  "    for j in range(12):\n" \
  "        act = torch.tensor(0.0, requires_grad=True)\n" \
  "        for xi in x:\n" \
  "            act = act + torch.tensor(0.5, requires_grad=True) * xi\n" \
  "        out.append(act.tanh())\n" \
  "    x = out\n" \
  "loss = x[0]\n" \
  "for t in x[1:]:\n" \
  "    loss = loss + t\n" \
  "loss.backward()\n"

/* A big graph fitted whole is drawn in miniature (no text at a size no
 * one reads), and quickly; panning it again only places tiles. */
static void
test_big_zoomed_out (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 800, 500);
  CrGraphCanvas *canvas = CR_GRAPH_CANVAS (cr_graph_canvas_new ());
  cr_graph_canvas_set_animate (canvas, FALSE);
  gtk_window_set_child (window, GTK_WIDGET (canvas));
  gtk_window_present (window);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (SCRIPT_BIG), &error));
  wait_allocated (canvas);
  cr_graph_canvas_set_group_level (canvas, cr_graph_canvas_get_group_height (canvas));
  g_assert_cmpuint (canvas->layout->n_nodes, >, CR_GRAPH_LAYOUT_DOT_MAX_NODES);
  cr_graph_canvas_zoom_fit (canvas);
  g_assert_cmpfloat (canvas->zoom * cr_graph_render_label_size (), <, 2.5);
  double alpha;
  gint64 start = g_get_monotonic_time ();
  g_assert_cmpuint (drawn_pixels (canvas, &alpha), >, 500);
  double first_ms = (g_get_monotonic_time () - start) / 1000.0;
  /* Panned a little: the same tiles, placed elsewhere. */
  cr_graph_canvas_move_to (canvas, canvas->tx + 5, canvas->ty + 3);
  start = g_get_monotonic_time ();
  g_assert_cmpuint (drawn_pixels (canvas, &alpha), >, 500);
  double pan_ms = (g_get_monotonic_time () - start) / 1000.0;
  g_test_message ("%u nodes whole: first frame %.1f ms, panned %.1f ms", canvas->layout->n_nodes,
                  first_ms, pan_ms);
  g_assert_cmpuint (cr_graph_tiles_count (canvas->tiles), >, 0);
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

typedef struct {
  CrGraphCanvas *canvas;
  int            width, height;
} SizeWait;

static gboolean
canvas_sized (gpointer data)
{
  const SizeWait *s = data;
  return gtk_widget_get_width (GTK_WIDGET (s->canvas)) == s->width
         && gtk_widget_get_height (GTK_WIDGET (s->canvas)) == s->height;
}

static CrGraphLayoutDirection
resize_to (GtkWindow     *window,
           CrGraphCanvas *canvas,
           int            width,
           int            height)
{
  gtk_window_set_default_size (window, width, height);
  SizeWait s = { canvas, width, height };
  g_assert_true (cr_ui_test_wait_until (canvas_sized, &s, 10));
  cr_ui_test_iterate ();
  return canvas->layout->direction;
}

/* The graph flows the way that shows it best at the pane's shape, and
 * does not turn on every resize or on an edit. */
static void
test_direction_follows_pane (void)
{
  GtkWindow *window;
  CrGraphCanvas *canvas = toy_canvas (560, 650, &window);
  g_assert_cmpint (canvas->layout->direction, ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  /* A little wider than tall: still top to bottom (it shows the graph bigger). */
  g_assert_cmpint (resize_to (window, canvas, 640, 600), ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  /* Wide and low: left to right, then back when tall again. */
  g_assert_cmpint (resize_to (window, canvas, 1400, 500), ==, CR_GRAPH_LAYOUT_LEFT_TO_RIGHT);
  g_assert_cmpint (resize_to (window, canvas, 1300, 520), ==, CR_GRAPH_LAYOUT_LEFT_TO_RIGHT);
  g_assert_cmpint (resize_to (window, canvas, 560, 650), ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  /* An edited script keeps the way its graph flows. */
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "01-toy-network.py", NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autofree char *edited = g_strconcat (source, "e = L * 2\n", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_graph_canvas_take_model (canvas, model_of (edited), &error));
  g_assert_cmpint (canvas->layout->direction, ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  gtk_window_destroy (window);
  cr_ui_test_iterate ();
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static gboolean
first_view_fitted (gpointer data)
{
  CrGraphCanvas *canvas = data;
  return canvas->layout && !canvas->need_fit && gtk_widget_get_width (GTK_WIDGET (canvas)) > 200;
}

/* Whether the first view of canvas shows every node whole, clear of the
 * floating controls, with its smallest type at 11 pixels at least. */
static gboolean
first_view_whole (CrGraphCanvas *canvas,
                  double         min_type_px)
{
  g_assert_true (cr_ui_test_wait_until (first_view_fitted, canvas, 10));
  /* The floating controls settle (the step card may widen the side pane). */
  cr_ui_test_spin (200);
  double type = cr_graph_render_label_size () * (canvas->presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1);
  if (canvas->zoom * type < min_type_px - 1e-6)
    return FALSE;
  /* The controls floating over the canvas (the stepper, zoom, depth). */
  GtkWidget *self = GTK_WIDGET (canvas);
  g_autoptr (GArray) controls = g_array_new (FALSE, FALSE, sizeof (graphene_rect_t));
  for (GtkWidget *child = gtk_widget_get_first_child (gtk_widget_get_parent (self)); child;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t r;
      /* As cr-graph-canvas-floating.c: what takes no clicks (a hint) and
       * the overview (a map of the nodes) may lie over nodes. */
      if (child != self && gtk_widget_get_visible (child) && gtk_widget_get_can_target (child)
          && !CR_IS_GRAPH_OVERVIEW (child) && gtk_widget_compute_bounds (child, self, &r)
          && r.size.width > 0 && r.size.height > 0)
        g_array_append_val (controls, r);
    }
  for (guint i = 0; i < canvas->layout->n_nodes; i++)
    {
      const CrGraphBox *b = &canvas->layout->nodes[i];
      graphene_rect_t box = GRAPHENE_RECT_INIT (canvas->tx + canvas->zoom * b->x,
                                                canvas->ty + canvas->zoom * b->y,
                                                canvas->zoom * b->width, canvas->zoom * b->height);
      if (box.origin.x < -0.5 || box.origin.y < -0.5
          || box.origin.x + box.size.width > gtk_widget_get_width (self) + 0.5
          || box.origin.y + box.size.height > gtk_widget_get_height (self) + 0.5)
        {
          g_test_message ("node %u at %.0f,%.0f %.0fx%.0f is off the canvas", i, box.origin.x,
                          box.origin.y, box.size.width, box.size.height);
          return FALSE;
        }
      for (guint c = 0; c < controls->len; c++)
        {
          const graphene_rect_t *r = &g_array_index (controls, graphene_rect_t, c);
          if (graphene_rect_intersection (&box, r, NULL))
            {
              g_test_message ("node %u at %.0f,%.0f %.0fx%.0f is under a control at %.0f,%.0f %.0fx%.0f",
                              i, box.origin.x, box.origin.y, box.size.width, box.size.height,
                              r->origin.x, r->origin.y, r->size.width, r->size.height);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* Whether name is in the NULL-terminated list. */
static gboolean
listed (const char *const *list,
        const char        *name)
{
  return g_strv_contains (list, name);
}

/* The first view of window's canvas in presentation (20 px type), which
 * is left again afterwards. */
static gboolean
presentation_whole (CrWindow *window)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
  cr_ui_test_spin (150);
  gboolean ok = first_view_whole (canvas, 20.0);
  g_test_message ("  presentation: %s (%.0fx%.0f at %.0f %%, pane %dx%d)", ok ? "whole" : "cut",
                  canvas->layout->width, canvas->layout->height, canvas->zoom * 100,
                  gtk_widget_get_width (GTK_WIDGET (canvas)),
                  gtk_widget_get_height (GTK_WIDGET (canvas)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
  cr_ui_test_spin (150);
  return ok;
}

/* Whether the sidebar's least width is at most most pixels (what the
 * window gives it: 305 at 1366x768, 30 % in presentation); else says which
 * page widens it. Every page counts, shown or not: the sidebar's stack is
 * as wide as its widest page, and a wider sidebar narrows the graph. */
static gboolean
sidebar_within (CrWindow   *window,
                int         most,
                const char *what)
{
  int least = 0;
  gtk_widget_measure (window->sidebar, GTK_ORIENTATION_HORIZONTAL, -1, &least, NULL, NULL, NULL);
  if (least <= most)
    return TRUE;
  g_autoptr (GString) pages = g_string_new (NULL);
  for (GtkWidget *page = gtk_widget_get_first_child (GTK_WIDGET (window->sidebar_stack)); page;
       page = gtk_widget_get_next_sibling (page))
    {
      int page_least = 0;
      gtk_widget_measure (page, GTK_ORIENTATION_HORIZONTAL, -1, &page_least, NULL, NULL, NULL);
      g_string_append_printf (pages, " %s %d px;",
                              gtk_stack_page_get_name (gtk_stack_get_page (window->sidebar_stack, page)),
                              page_least);
    }
  g_test_message ("%s: the sidebar needs %d px, more than the %d it gets (pages:%s)", what, least,
                  most, pages->str);
  return FALSE;
}

/* The yardstick: the first view of every example is readable
 * (smallest type >= 11 px, 20 px in presentation) and whole, no node under
 * a floating control, in the window and in presentation, at 1366x768 and
 * 1920x1080. Those too big for the graph pane whichever way they flow
 * are listed; every other one must fit. */
static void
test_examples_first_view (void)
{
  /* At 129 % (8.5 pt type at 11 px) in the 644x664 px graph pane (the
   * stepper and the zoom buttons in a bar under it), every example is
   * whole: 11-mlp-training's nine-op chain with its leaves beside their
   * ops (464x735 pt ranked, 441x502 so). A graph listed here would open
   * around its output (or error), the overview showing the rest. */
  /* The sidebar keeps the graph its 644 px with a third page (Training,
   * with several backward calls: 08, 11), whose switcher buttons were 134
   * px each (style.css); the test's window has the app's style sheet. */
  static const char *const too_big[] = {
    NULL
  };
  /* Presentation opens with the script hidden: the graph pane is about
   * 970x758 at 1366x768 and 1357x1070 at 1920x1080, nothing floating over
   * it (the step's label heads the card). At 20 px type (181 %), with
   * presentation's compact drawing (titles barely larger than the labels,
   * thin padding, ranks a label high with the labels beside their edges,
   * a detached tensor beside its source, the output beside the op that
   * makes it, leaves beside their ops kept within the graph's height, op
   * pills without a disc, a rank's nodes 7 points apart) and the layout's
   * pad allowed off screen, every example is whole at 1920x1080 and at
   * 1366x768, where about 544x427 layout points fit (181 % of them in
   * pixels; 533 before the sidebar's pages gave up 20 px of their sides):
   * the widest, 01, is 525x425 (it was 580x475 with discs, the output in
   * a rank of its own and 10 points between nodes). */
  static const char *const too_big_present[] = {
    NULL
  };
  static const char *const too_big_present_1080[] = {
    NULL
  };
  g_autoptr (GDir) dir = g_dir_open (cr_examples_dir (), 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (dir));)
    if (g_str_has_suffix (name, ".py"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  guint whole = 0, present_whole = 0, big_whole = 0, big_present_whole = 0;
  g_autoptr (GString) cut = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      CrWindow *window = cr_window_new (NULL);
      gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
      g_autofree char *path = g_build_filename (cr_examples_dir (), name, NULL);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GError) error = NULL;
      g_assert_true (cr_window_open_file (window, file, &error));
      gtk_window_present (GTK_WINDOW (window));
      cr_ui_test_wait_window_idle (window);
      CrGraphCanvas *canvas = cr_window_get_canvas (window);
      gboolean ok = first_view_whole (canvas, 11.0);
      g_test_message ("%s: %s (%u nodes, %.0fx%.0f at %.0f %%, pane %dx%d, %s)", name,
                      ok ? "whole" : "cut", canvas->layout->n_nodes,
                      canvas->layout->width, canvas->layout->height, canvas->zoom * 100,
                      gtk_widget_get_width (GTK_WIDGET (canvas)),
                      gtk_widget_get_height (GTK_WIDGET (canvas)),
                      canvas->layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM ? "down" : "across");
      whole += ok;
      if (!ok && !listed (too_big, name))
        g_string_append_printf (cut, " %s", name);
      if (!sidebar_within (window, 305, name))
        g_string_append_printf (cut, " %s(sidebar)", name);
      ok = presentation_whole (window);
      present_whole += ok;
      if (!ok && !listed (too_big_present, name))
        g_string_append_printf (cut, " %s(presentation)", name);
      gtk_window_set_default_size (GTK_WINDOW (window), 1920, 1080);
      cr_ui_test_spin (150);
      ok = first_view_whole (canvas, 11.0);
      big_whole += ok;
      if (!ok && !listed (too_big, name))
        g_string_append_printf (cut, " %s(1920x1080)", name);
      ok = presentation_whole (window);
      big_present_whole += ok;
      if (!ok && !listed (too_big_present_1080, name))
        g_string_append_printf (cut, " %s(presentation 1920x1080)", name);
      gtk_window_destroy (GTK_WINDOW (window));
      cr_ui_test_iterate ();
    }
  g_test_message ("%u of %u examples whole at 1366x768, %u in presentation (20 px type); "
                  "at 1920x1080 %u, %u in presentation", whole, names->len, present_whole,
                  big_whole, big_present_whole);
  g_assert_cmpstr (cut->str, ==, "");
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);

  g_test_add ("/ui/canvas/zoom", Fixture, NULL, fixture_setup, test_zoom, fixture_teardown);
  g_test_add ("/ui/canvas/select", Fixture, NULL, fixture_setup, test_select, fixture_teardown);
  g_test_add ("/ui/canvas/click", Fixture, NULL, fixture_setup, test_click, fixture_teardown);
  g_test_add ("/ui/canvas/hover-after-motion", Fixture, NULL, fixture_setup, test_hover_after_motion,
              fixture_teardown);
  g_test_add ("/ui/canvas/keep-across-models", Fixture, NULL, fixture_setup,
              test_keep_across_models, fixture_teardown);
  g_test_add ("/ui/canvas/step-scrolls", Fixture, NULL, fixture_setup, test_step_scrolls,
              fixture_teardown);
  g_test_add ("/ui/canvas/morph", Fixture, NULL, fixture_setup, test_morph, fixture_teardown);
  g_test_add ("/ui/canvas/export", Fixture, NULL, fixture_setup, test_export, fixture_teardown);
  g_test_add ("/ui/canvas/looks", Fixture, NULL, fixture_setup, test_looks, fixture_teardown);
  g_test_add_func ("/ui/canvas/fit", test_fit);
  g_test_add_func ("/ui/canvas/fit-floating", test_fit_floating);
  g_test_add_func ("/ui/canvas/overview", test_overview);
  g_test_add_func ("/ui/canvas/big-zoomed-out", test_big_zoomed_out);
  g_test_add_func ("/ui/canvas/direction-follows-pane", test_direction_follows_pane);
  g_test_add_func ("/ui/canvas/examples-first-view", test_examples_first_view);
  return g_test_run ();
}
