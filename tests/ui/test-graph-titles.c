/* test-graph-titles.c — what is written beside the graph's lines stays
 * readable: no edge crosses an open group's title (a title moves along its
 * strip to a clear place, and where there is none the edges are cut under
 * it), and every edge's shape label and tensor name is drawn, clear of
 * every node, title and other label (a blocked label moves along its edge
 * or beside it). Checked on every example and on the micrograd-style and
 * MLP scripts, with every group open and as the first view opens them,
 * left to right and top to bottom, in the window's and presentation's
 * type. */
#include "cr-graph-groups.h"
#include "cr-graph-render.h"
#include "cr-graph-render-badges.h"
#include "cr-graph-titles.h"
#include "ui-test-util.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* The first view of a graph too big to read whole shows about this many
 * nodes (ui/cr-graph-canvas-groups.c). */
#define FIRST_VIEW_NODES 40

typedef struct {
  guint    titles, moved, crossed, labels, names;
  gboolean crowded;      /* labels or names may be left out: count them */
  guint    left_out;
} Counts;

typedef struct {
  double x0, y0, x1, y1;
  gboolean met;
} Rect4;

static void
piece_meets (double   ax,
             double   ay,
             double   bx,
             double   by,
             gpointer data)
{
  Rect4 *r = data;
  if (!r->met)
    r->met = cr_graph_titles_segment_meets (ax, ay, bx, by, r->x0, r->y0, r->x1, r->y1);
}

static gboolean
meet (const double *a,
      const double *b)
{
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

/* model (a collapse's model when collapse is not NULL) laid out one way at
 * one size: its titles and labels checked. */
static void
check_view (const CrGraphModel    *model,
            const char            *what,
            CrGraphLayoutDirection direction,
            gboolean               presentation,
            Counts                *counts)
{
  g_autoptr (GError) error = NULL;
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, presentation);
  CrGraphLayout *layout = cr_graph_render_layout_directed (model, cache, direction, &error);
  g_assert_no_error (error);
  double k = presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0;
  const char *way = direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM ? "top to bottom" : "left to right";

  /* The titles: clear of every edge, or crossed (the edges cut under it). */
  g_autoptr (GArray) titles = cr_graph_titles_place (model, layout, k, NULL);
  for (guint i = 0; i < titles->len; i++)
    {
      const CrGraphTitle *t = &g_array_index (titles, CrGraphTitle, i);
      const CrGraphBox *b = &layout->clusters[i];
      if (t->width <= 0)
        continue;
      counts->titles++;
      g_assert_cmpfloat (t->x, >=, b->x);
      g_assert_cmpfloat (t->x + t->width, <=, b->x + b->width + 1e-6);
      if (t->x > b->x + CR_GRAPH_TITLE_IN_X * k + 1e-6)
        counts->moved++;
      if (t->crossed)
        {
          const CrGraphCluster *c = g_ptr_array_index (model->clusters, i);
          g_test_message ("%s (%s%s): no place along its strip is clear for the title '%s'; the "
                          "edges are cut under it", what, way, presentation ? ", presentation" : "",
                          c->title);
          counts->crossed++;
          continue;
        }
      for (guint e = 0; e < layout->n_edges; e++)
        {
          Rect4 r = { t->x, t->y, t->x + t->width, t->y + t->height, FALSE };
          cr_graph_path_foreach_piece (&layout->edges[e], piece_meets, &r);
          if (r.met)
            {
              const CrGraphCluster *c = g_ptr_array_index (model->clusters, i);
              g_error ("%s (%s%s): edge %u crosses the title '%s' (%g, %g, %g×%g)", what, way,
                       presentation ? ", presentation" : "", e, c->title, t->x, t->y, t->width,
                       t->height);
            }
        }
    }

  /* Every label and name drawn, on nothing else. */
  g_autofree double *boxes = cr_graph_render_label_boxes (cache, layout);
  g_autoptr (GArray) obstacles = g_array_new (FALSE, FALSE, 4 * sizeof (double));
  for (guint n = 0; n < layout->n_nodes; n++)
    {
      const CrGraphBox *b = &layout->nodes[n];
      double r[4] = { b->x, b->y, b->x + b->width, b->y + b->height };
      g_array_append_vals (obstacles, r, 1);
    }
  g_autoptr (GArray) title_boxes = cr_graph_badges_title_boxes (model, layout, k);
  for (guint i = 0; i < title_boxes->len; i++)
    {
      const CrGraphBadgeBox *t = &g_array_index (title_boxes, CrGraphBadgeBox, i);
      double r[4] = { t->x0, t->y0, t->x1, t->y1 };
      g_array_append_vals (obstacles, r, 1);
    }
  for (guint e = 0; e < layout->n_edges && e < model->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
      const CrGraphPath *p = &layout->edges[e];
      const double *b = boxes + CR_GRAPH_BADGES_LABEL_BOX * e;
      if (!p->has_label || !edge->label || !*edge->label)
        continue;
      if (!(b[2] > b[0]) && counts->crowded)
        {
          counts->left_out++;
          continue;
        }
      if (!(b[2] > b[0]))
        g_error ("%s (%s%s): the label '%s' of edge %u is left out", what, way,
                 presentation ? ", presentation" : "", edge->label, e);
      counts->labels++;
      if (edge->tensor_name && *edge->tensor_name)
        {
          if (!(b[6] > b[4]) && counts->crowded)
            counts->left_out++;
          else if (!(b[6] > b[4]))
            g_error ("%s (%s%s): the name '%s' of edge %u is left out", what, way,
                     presentation ? ", presentation" : "", edge->tensor_name, e);
          counts->names++;
        }
      for (int part = 0; part < 2; part++)
        {
          const double *r = b + 4 * part;
          if (!(r[2] > r[0]))
            continue;
          for (guint o = 0; o < obstacles->len; o++)
            if (meet (r, &g_array_index (obstacles, double, 4 * o)))
              g_error ("%s (%s%s): the %s of edge %u (%g, %g – %g, %g) lies on %s %u", what, way,
                       presentation ? ", presentation" : "", part ? "name" : "label", e, r[0], r[1],
                       r[2], r[3], o < layout->n_nodes ? "node" : "title",
                       o < layout->n_nodes ? o : o - layout->n_nodes);
          g_array_append_vals (obstacles, r, 1);
        }
    }
  cr_graph_layout_free (layout);
  cr_graph_render_cache_free (cache);
}

/* model with every group open, and as the first view opens it. */
static void
check_model (CrGraphModel *model,
             const char   *what,
             Counts       *counts)
{
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new (model);
  for (int view = 0; view < 2; view++)
    {
      g_autofree gboolean *open = view == 0 ? cr_graph_groups_open_to_level (groups, groups->height)
                                            : cr_graph_groups_open_first_view (groups, FIRST_VIEW_NODES, NULL);
      g_autoptr (CrGraphCollapse) collapse = cr_graph_collapse_new (groups, open);
      for (int way = 0; way < 2; way++)
        for (int presentation = 0; presentation < 2; presentation++)
          check_view (collapse->model, what,
                      way ? CR_GRAPH_LAYOUT_TOP_TO_BOTTOM : CR_GRAPH_LAYOUT_LEFT_TO_RIGHT,
                      presentation, counts);
    }
}

static void
check_script (const char *path,
              Counts     *counts)
{
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autofree char *name = g_path_get_basename (path);
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, name, NULL);
  for (guint m = 0; m < models->len; m++)
    check_model (g_ptr_array_index (models, m), name, counts);
}

static void
test_examples (void)
{
  g_autoptr (GDir) d = g_dir_open (CR_EXAMPLES_SOURCE_DIR, 0, NULL);
  g_assert_nonnull (d);
  Counts counts = { 0 };
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (CR_EXAMPLES_SOURCE_DIR, name, NULL);
      check_script (path, &counts);
    }
  g_test_message ("examples: %u titles (%u moved along their strip, %u crossed), %u labels, %u names",
                  counts.titles, counts.moved, counts.crossed, counts.labels, counts.names);
  g_assert_cmpuint (counts.titles, >, 10);
  g_assert_cmpuint (counts.labels, >, 200);
}

/* The micrograd-style MLP (tests/data/micrograd-mlp.py) made small enough
 * for dot: its inputs' edges run through every neuron's box. */
static char *
micrograd_small (void)
{
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (CR_BIG_GRAPH_SCRIPT, &source, NULL, NULL));
  g_auto (GStrv) parts = g_strsplit (source, "MLP(4, [32, 32, 1])", 2);
  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  return g_strjoin ("MLP(3, [4, 4, 1])", parts[0], parts[1], NULL);
}

static void
test_micrograd_small (void)
{
  Counts counts = { .crowded = TRUE };
  g_autofree char *source = micrograd_small ();
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, "micrograd-small.py", NULL);
  for (guint m = 0; m < models->len; m++)
    check_model (g_ptr_array_index (models, m), "micrograd-small.py", &counts);
  g_test_message ("micrograd, small: %u titles (%u moved, %u crossed), %u labels, %u names, "
                  "%u labels or names left out", counts.titles, counts.moved, counts.crossed,
                  counts.labels, counts.names, counts.left_out);
  /* Its neurons' edges run close together: a few labels find no place. */
  g_assert_cmpuint (counts.left_out, <=, (counts.labels + counts.names) / 50);
  g_assert_cmpuint (counts.titles, >, 20);
  /* Its inputs' edges cross the neurons' strips: the titles moved. */
  g_assert_cmpuint (counts.moved, >, 0);
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The 5,000-node micrograd MLP (the layered layout), every group open,
 * left to right: the titles only (labels crowd there by design). */
static void
test_micrograd_big (void)
{
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (CR_BIG_GRAPH_SCRIPT, &source, NULL, NULL));
  g_autoptr (CrGraphModel) full = cr_ui_test_model_from_script (source, CR_BIG_GRAPH_SCRIPT);
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new (full);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
  g_autoptr (CrGraphCollapse) collapse = cr_graph_collapse_new (groups, open);
  const CrGraphModel *model = collapse->model;
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  g_autoptr (GError) error = NULL;
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, &error);
  g_assert_no_error (error);
  gint64 t0 = thread_cpu_us ();
  g_autoptr (GArray) titles = cr_graph_titles_place (model, layout, 1.0, NULL);
  gint64 t1 = thread_cpu_us ();
  guint crossed = 0, moved = 0;
  for (guint i = 0; i < titles->len; i++)
    {
      const CrGraphTitle *t = &g_array_index (titles, CrGraphTitle, i);
      if (t->width <= 0)
        continue;
      if (t->crossed)
        {
          crossed++;
          continue;
        }
      moved += t->x > layout->clusters[i].x + CR_GRAPH_TITLE_IN_X + 1e-6;
      for (guint e = 0; e < layout->n_edges; e++)
        {
          Rect4 r = { t->x, t->y, t->x + t->width, t->y + t->height, FALSE };
          cr_graph_path_foreach_piece (&layout->edges[e], piece_meets, &r);
          g_assert_false (r.met);
        }
    }
  g_test_message ("%u titles placed in %.1f ms of CPU time: %u moved, %u crossed", titles->len, (t1 - t0) / 1e3,
                  moved, crossed);
  g_assert_cmpuint (titles->len, >, 50);
  cr_graph_layout_free (layout);
  cr_graph_render_cache_free (cache);
}

/* Where a title is crossed, the edges drawn after cr_graph_titles_clip_out
 * leave its rectangle as it was. */
static void
test_clip_out (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 100, 60);
  cairo_t *cr = cairo_create (surface);
  g_autoptr (GArray) titles = g_array_new (FALSE, TRUE, sizeof (CrGraphTitle));
  CrGraphTitle t = { 20, 20, 40, 12, TRUE }, clear = { 70, 40, 20, 10, FALSE };
  g_array_append_val (titles, t);
  g_array_append_val (titles, clear);
  g_assert_true (cr_graph_titles_clip_out (cr, titles, 1.0));
  cairo_set_source_rgb (cr, 1, 0, 0);
  cairo_set_line_width (cr, 4);
  cairo_move_to (cr, 40, 0);
  cairo_line_to (cr, 40, 60);
  cairo_move_to (cr, 0, 45);
  cairo_line_to (cr, 100, 45);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_surface_flush (surface);
  const guint32 *px = (const guint32 *) cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface) / 4;
  /* Inside the crossed title: untouched; above and below it: drawn; a
   * title not crossed does not cut. */
  for (int y = 20; y < 32; y++)
    g_assert_cmphex (px[y * stride + 40], ==, 0);
  g_assert_cmphex (px[5 * stride + 40], !=, 0);
  g_assert_cmphex (px[50 * stride + 40], !=, 0);
  g_assert_cmphex (px[45 * stride + 80], !=, 0);
  /* Nothing crossed: nothing clipped. */
  g_array_index (titles, CrGraphTitle, 0).crossed = FALSE;
  g_assert_false (cr_graph_titles_clip_out (cr, titles, 1.0));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graph-titles/clip-out", test_clip_out);
  g_test_add_func ("/ui/graph-titles/examples", test_examples);
  g_test_add_func ("/ui/graph-titles/micrograd-small", test_micrograd_small);
  g_test_add_func ("/ui/graph-titles/micrograd-big", test_micrograd_big);
  return g_test_run ();
}
