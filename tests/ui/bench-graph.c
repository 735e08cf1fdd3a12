/* bench-graph.c — how fast a large graph lays out and draws.
 *
 * Builds a synthetic model of about 500 nodes (a chain of ops, each with a
 * leaf weight through AccumulateGrad and a constant input, so the chain has
 * branches), then times: measuring and laying it out, one whole drawing,
 * 60 frames drawn afresh at views across it in a 1366x768 window, and a
 * drag across it as the canvas pans: from tiles (cr-graph-tiles.h), each
 * painted once, a frame placing the tiles in view as GSK's Cairo renderer
 * does and painting those not painted yet, with one tile painted ahead
 * between frames (the canvas's idle prefetch). Times are wall clock and,
 * in brackets, this thread's CPU time, which a busy machine disturbs less.
 * Goals: layout + draw under 300 ms, a pan frame under 16 ms. Not a test:
 * timings depend on the machine; it prints them.
 * Graphs over CR_GRAPH_LAYOUT_DOT_MAX_NODES get the layered layout; dot's
 * time on the same graph is printed beside it (up to 2,500 nodes: beyond,
 * dot takes too long to wait for).
 *
 *   bench-graph [N_NODES [OUT.png|svg|pdf]]
 *   bench-graph SCRIPT.py [OUT.png|svg|pdf]   the graph a script makes, e.g.
 *                                             tests/data/micrograd-mlp.py (5,000 nodes) */
#include "cr-graph-model.h"
#include "cr-graph-layout.h"
#include "cr-graph-items.h"
#include "cr-graph-render.h"
#include "cr-graph-render-same.h"
#include "cr-graph-tiles.h"
#include "ui-test-util.h"

#include <cairo-svg.h>
#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FRAME_W 1366
#define FRAME_H 768

static guint
add_node (CrGraphModel    *model,
          CrGraphNodeKind  kind,
          const char      *title,
          const char      *symbol,
          char            *caption,
          const char      *shape,
          const char      *preview,
          char            *key)
{
  CrGraphNode *n = g_new0 (CrGraphNode, 1);
  n->id = model->nodes->len;
  n->kind = kind;
  n->title = g_strdup (title);
  n->symbol = g_strdup (symbol);
  n->caption = caption;
  n->shape = g_strdup (shape);
  n->preview = g_strdup (preview);
  n->key = key;
  n->step = -1;
  g_ptr_array_add (model->nodes, n);
  return n->id;
}

static void
add_edge (CrGraphModel *model,
          guint         from,
          guint         to,
          const char   *label)
{
  CrGraphEdge *e = g_new0 (CrGraphEdge, 1);
  e->from = from;
  e->to = to;
  e->label = g_strdup (label);
  g_ptr_array_add (model->edges, e);
}

static CrGraphModel *
synthetic_model (guint n_nodes)
{
  /* An empty model (no roots) owns what is added to it and frees it. */
  CrGraphModel *model = cr_graph_model_new ();
  g_free (model->title);
  model->title = g_strdup ("synthetic chain");

  const char *preview = "[[ 0.50, -1.00,  1.50],\n [ 2.00,  1.00, -0.50],\n [ 1.00,  3.00, -2.00]]";
  guint blocks = MAX (n_nodes / 4, 1);
  guint x = add_node (model, CR_GRAPH_NODE_LEAF, "x", NULL, NULL, "3×3", preview, g_strdup ("leaf:x"));
  guint prev = x;
  for (guint k = 0; k < blocks; k++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "w%u", k);
      guint w = add_node (model, CR_GRAPH_NODE_LEAF, name, NULL, NULL, "3×3", preview,
                          g_strdup_printf ("leaf:%s", name));
      guint acc = add_node (model, CR_GRAPH_NODE_ACCUMULATE, "AccumulateGrad", NULL, NULL,
                            NULL, NULL, g_strdup_printf ("acc:%s", name));
      g_snprintf (name, sizeof name, "c%u", k);
      guint c = add_node (model, CR_GRAPH_NODE_CONSTANT, name, NULL, NULL, "3×3",
                          "[[1., 0., 0.],\n [0., 1., 0.],\n [0., 0., 1.]]",
                          g_strdup_printf ("const:%s", name));
      gboolean mul = k % 2 == 0;
      char *caption = g_strdup_printf ("h%u = h%u %s w%u + c%u", k + 1, k, mul ? "*" : "@", k, k);
      guint op = add_node (model, CR_GRAPH_NODE_OP, mul ? "MulBackward0" : "MmBackward0",
                           mul ? "×" : "@", caption, NULL, NULL,
                           g_strdup_printf ("op:%u", k));
      add_edge (model, w, acc, "3×3");
      add_edge (model, acc, op, "3×3");
      add_edge (model, c, op, "3×3");
      add_edge (model, prev, op, "3×3");
      prev = op;
    }
  guint out = add_node (model, CR_GRAPH_NODE_OUTPUT, "L", NULL, NULL, "scalar", "86.31",
                        g_strdup ("out:L"));
  add_edge (model, prev, out, "scalar");
  return model;
}

/* Counts the nodes and edges whose boxes reach into x0..x1, y0..y1. */
static void
in_sight (const CrGraphLayout *layout,
          double               x0,
          double               y0,
          double               x1,
          double               y1,
          guint               *nodes,
          guint               *edges)
{
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      *nodes += b->x < x1 && b->x + b->width > x0 && b->y < y1 && b->y + b->height > y0;
    }
  for (guint i = 0; i < layout->n_edges; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      double ex0 = G_MAXDOUBLE, ey0 = G_MAXDOUBLE, ex1 = -G_MAXDOUBLE, ey1 = -G_MAXDOUBLE;
      for (guint k = 0; k < p->n_points; k++)
        {
          ex0 = MIN (ex0, p->points[2 * k]);
          ex1 = MAX (ex1, p->points[2 * k]);
          ey0 = MIN (ey0, p->points[2 * k + 1]);
          ey1 = MAX (ey1, p->points[2 * k + 1]);
        }
      *edges += p->n_points > 0 && ex0 < x1 && ex1 > x0 && ey0 < y1 && ey1 > y0;
    }
}

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

static cairo_status_t
count_bytes (void                *closure,
             const unsigned char *data,
             unsigned int         length)
{
  *(gsize *) closure += length;
  return CAIRO_STATUS_SUCCESS;
}

/* This thread's CPU time, in ms. */
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Mean and worst of a series of times. */
typedef struct {
  double total, worst, cpu_total, cpu_worst;
  guint  n, over_budget;
} Series;

static void
series_add (Series *s,
            double  ms,
            double  cpu)
{
  s->total += ms;
  s->worst = MAX (s->worst, ms);
  s->cpu_total += cpu;
  s->cpu_worst = MAX (s->cpu_worst, cpu);
  s->over_budget += ms > 16.0;
  s->n++;
}

static void
series_print (const char   *what,
              const Series *s)
{
  if (s->n == 0)
    {
      printf ("%-28s       (none)\n", what);
      return;
    }
  printf ("%-28s %8.2f ms mean, %.2f ms worst (CPU %.2f, %.2f) over %u, %u over 16 ms\n", what,
          s->total / s->n, s->worst, s->cpu_total / s->n, s->cpu_worst, s->n, s->over_budget);
}

typedef struct {
  const CrGraphModel   *model;
  const CrGraphLayout  *layout;
  CrGraphRenderOptions *options;
  double                zoom;
  Series               *painted;
} TilePaint;

/* A tile as the canvas paints one (its dot grid aside), timed. */
static void
paint_tile (cairo_t  *cr,
            double    x0,
            double    y0,
            double    side,
            gpointer  user_data)
{
  TilePaint *tp = user_data;
  gint64 t = g_get_monotonic_time ();
  double c = cpu_ms ();
  cairo_scale (cr, tp->zoom, tp->zoom);
  cr_graph_render (cr, tp->model, tp->layout, tp->options);
  series_add (tp->painted, (g_get_monotonic_time () - t) / 1000.0, cpu_ms () - c);
}

/* A drag across the graph at `zoom`: the view's centre moves 12 pixels a
 * frame along the chain of ops (output to input, through `n_stops` of them),
 * for at most max_frames frames. Each frame paints the tiles in view not
 * painted yet and places them all; between frames one tile next to the
 * view is painted ahead. */
static void
drag_pan (int                  side,
          double               zoom,
          cairo_surface_t     *surface,
          const CrGraphModel  *model,
          const CrGraphLayout *layout,
          CrGraphRenderOptions *options,
          const GArray        *stops,
          guint                max_frames,
          Series              *frames,
          Series              *painted,
          Series              *ahead)
{
  CrGraphTiles *tiles = cr_graph_tiles_new (side, 64 * 512 * 512 / (side * side));
  CrGraphTilesKey key = { .zoom = zoom, .scale = 1, .step = options->current_step,
                          .selected = options->selected, .model = model, .layout = layout };
  cr_graph_tiles_set_key (tiles, &key);
  TilePaint tp = { model, layout, options, zoom, painted };
  TilePaint tp_ahead = { model, layout, options, zoom, ahead };
  guint n = 0;
  for (guint s = 0; s + 1 < stops->len && n < max_frames; s++)
    {
      const double *a = &g_array_index (stops, double, 0) + 2 * s;
      double dx = a[2] - a[0], dy = a[3] - a[1], len = hypot (dx, dy);
      for (double d = 0; d < len && n < max_frames; d += 12.0, n++)
        {
          double cx = (a[0] + dx * d / len) * zoom, cy = (a[1] + dy * d / len) * zoom;
          double tx = round (FRAME_W / 2.0 - cx), ty = round (FRAME_H / 2.0 - cy);
          gint64 t = g_get_monotonic_time ();
          double c = cpu_ms ();
          int range[4];
          cr_graph_tiles_range (tiles, tx, ty, FRAME_W, FRAME_H, range);
          cr_graph_tiles_evict (tiles, range);
          cairo_t *cr = cairo_create (surface);
          cairo_set_source_rgb (cr, 1, 1, 1);
          cairo_paint (cr);
          for (int j = range[1]; j <= range[3]; j++)
            for (int i = range[0]; i <= range[2]; i++)
              {
                CrGraphTile *tile = cr_graph_tiles_get (tiles, i, j, paint_tile, &tp);
                cairo_set_source_surface (cr, tile->surface, tx + i * side, ty + j * side);
                cairo_paint (cr);
              }
          cairo_destroy (cr);
          cairo_surface_flush (surface);
          series_add (frames, (g_get_monotonic_time () - t) / 1000.0, cpu_ms () - c);
          /* Idle time: one tile ahead. */
          int i, j;
          if (!cr_graph_tiles_full (tiles)
              && cr_graph_tiles_next_missing (tiles, range, 1, layout->width * zoom,
                                            layout->height * zoom, &i, &j))
            cr_graph_tiles_get (tiles, i, j, paint_tile, &tp_ahead);
        }
    }
  cr_graph_tiles_free (tiles);
}

static void
frame (cairo_surface_t          *surface,
       const CrGraphModel       *model,
       const CrGraphLayout      *layout,
       CrGraphRenderOptions     *options,
       double                    zoom,
       double                    tx,
       double                    ty)
{
  cairo_t *cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_translate (cr, tx, ty);
  cairo_scale (cr, zoom, zoom);
  cr_graph_render (cr, model, layout, options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
}

int
main (int    argc,
      char **argv)
{
  CrGraphModel *model;
  if (argc > 1 && g_str_has_suffix (argv[1], ".py"))
    {
      g_autofree char *source = NULL;
      if (!g_file_get_contents (argv[1], &source, NULL, NULL))
        {
          fprintf (stderr, "bench-graph: cannot read %s\n", argv[1]);
          return 1;
        }
      gint64 run_start = g_get_monotonic_time ();
      model = cr_ui_test_model_from_script (source, argv[1]);
      printf ("%s: %u nodes, %u edges (run + record + model: %.1f ms)\n", argv[1],
              model->nodes->len, model->edges->len, ms_since (run_start));
    }
  else
    {
      guint n_nodes = argc > 1 ? (guint) MAX (atoi (argv[1]), 8) : 500;
      model = synthetic_model (n_nodes);
      printf ("synthetic graph: %u nodes, %u edges\n", model->nodes->len, model->edges->len);
    }

  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  double shape_ms = ms_since (start);
  start = g_get_monotonic_time ();
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, &error);
  double layout_ms = ms_since (start);
  if (!layout)
    {
      fprintf (stderr, "bench-graph: %s\n", error->message);
      return 1;
    }
  printf ("drawing size: %.0f × %.0f pt\n", layout->width, layout->height);

  start = g_get_monotonic_time ();
  CrGraphLayout *plain = cr_graph_render_layout (model, NULL);
  double plain_ms = ms_since (start);
  cr_graph_layout_free (plain);

  /* The other layout on the same graph, for comparison. */
  gboolean layered = model->nodes->len > CR_GRAPH_LAYOUT_DOT_MAX_NODES;
  double other_ms = NAN;
  if (!layered)
    {
      start = g_get_monotonic_time ();
      cr_graph_layout_free (cr_graph_layout_new_layered (model, cr_graph_render_cache_sizes (cache),
                                                         cr_graph_render_label_size ()));
      other_ms = ms_since (start);
    }
  else if (model->nodes->len <= 2500)
    {
      /* Dot itself, which cr_graph_layout_new would not use here. */
      start = g_get_monotonic_time ();
      g_autoptr (GError) dot_error = NULL;
      cr_graph_layout_free (cr_graph_layout_new_dot (model, cr_graph_render_cache_sizes (cache),
                                                     cr_graph_render_label_size (), &dot_error));
      other_ms = ms_since (start);
    }

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, FRAME_W, FRAME_H);
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.draw_background = FALSE;
  options.cache = cache;
  options.current_step = -1;
  options.selected = 5;

  /* The whole graph in one window: every node is drawn. */
  double fit_zoom = MIN (FRAME_W / layout->width, FRAME_H / layout->height);
  start = g_get_monotonic_time ();
  frame (surface, model, layout, &options, fit_zoom, 0, 0);
  double whole_ms = ms_since (start);

  /* Views at 100 % drawn afresh (no tiles): 60 frames at ops along the
   * chain from the output back to the input, as a person reading the graph
   * would. */
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_OP)
        g_array_append_val (ops, i);
    }
  double total = 0, worst = 0;
  guint seen_nodes = 0, seen_edges = 0;
  for (int i = 0; i < 60; i++)
    {
      guint op = g_array_index (ops, guint, (ops->len - 1) * (59 - i) / 59);
      const CrGraphBox *b = &layout->nodes[op];
      double tx = FRAME_W / 2.0 - (b->x + b->width / 2);
      double ty = FRAME_H / 2.0 - (b->y + b->height / 2);
      gint64 t = g_get_monotonic_time ();
      frame (surface, model, layout, &options, 1.0, tx, ty);
      in_sight (layout, -tx, -ty, FRAME_W - tx, FRAME_H - ty, &seen_nodes, &seen_edges);
      double ms = ms_since (t);
      total += ms;
      worst = MAX (worst, ms);
    }

  /* A drag along the same chain, from tiles, the edge labels placed once
   * for all of them as the canvas does. */
  start = g_get_monotonic_time ();
  double *label_boxes = cr_graph_render_label_boxes (cache, layout);
  double labels_ms = ms_since (start);
  options.label_boxes = label_boxes;
  GArray *stops = g_array_new (FALSE, FALSE, sizeof (double));
  for (int i = 0; i < 60; i++)
    {
      guint op = g_array_index (ops, guint, (ops->len - 1) * (59 - i) / 59);
      const CrGraphBox *b = &layout->nodes[op];
      double c[2] = { b->x + b->width / 2, b->y + b->height / 2 };
      g_array_append_vals (stops, c, 2);
    }
  g_array_unref (ops);
  /* At 100 % from 512 and 256 px tiles; then at 50 % (8.5 pt text at
   * 4.25 px) from 512 px tiles, as the canvas paints them: the drag moves
   * 12 px a frame along the same path, so it covers twice the graph; then
   * far out, at 15 %, where a tile holds hundreds of edges and no text. */
  static const int sides[] = { 512, 256, 512, 512 };
  static const double zooms[] = { 1.0, 1.0, 0.5, 0.15 };
  Series drag[4] = { { 0 } }, painted[4] = { { 0 } }, ahead[4] = { { 0 } };
  for (guint k = 0; k < G_N_ELEMENTS (sides); k++)
    {
      options.text_scale = zooms[k];
      drag_pan (sides[k], zooms[k], surface, model, layout, &options, stops, 600, &drag[k],
                &painted[k], &ahead[k]);
    }
  options.text_scale = 0;
  g_array_unref (stops);

  /* A step as the canvas takes it: the drawing's items at the new step,
   * and where they differ from the last step's (the tiles painted again
   * are those; the rest stay). */
  Series step_items = { 0 }, step_diff = { 0 };
  guint dirty_boxes = 0;
  options.text_scale = 1.0;
  CrGraphDrawing drawing = { model, layout, &options };
  options.current_step = 0;
  GArray *last = cr_graph_render_drawing_items (&drawing);
  for (int step = 1; step <= 20; step++)
    {
      options.current_step = step;
      gint64 t = g_get_monotonic_time ();
      double c = cpu_ms ();
      GArray *now = cr_graph_render_drawing_items (&drawing);
      series_add (&step_items, ms_since (t), cpu_ms () - c);
      g_autoptr (GArray) dirty = g_array_new (FALSE, FALSE, sizeof (double));
      t = g_get_monotonic_time ();
      c = cpu_ms ();
      cr_graph_items_diff (last, now, dirty);
      series_add (&step_diff, ms_since (t), cpu_ms () - c);
      dirty_boxes += dirty->len / 4;
      g_array_unref (last);
      last = now;
    }
  guint n_items = last->len;
  g_array_unref (last);
  options.current_step = -1;
  options.text_scale = 0;
  options.label_boxes = NULL;
  g_free (label_boxes);

  /* The same frames shaping text on the fly, as without a cache. */
  options.cache = NULL;
  start = g_get_monotonic_time ();
  frame (surface, model, layout, &options, 1.0, 0, 0);
  double uncached_ms = ms_since (start);

  printf ("shape text (cache):         %8.1f ms\n", shape_ms);
  printf ("%s layout:%s %8.1f ms\n", layered ? "layered" : "graphviz",
          layered ? "             " : "            ", layout_ms);
  if (!isnan (other_ms))
    printf ("%s layout, same graph: %6.1f ms (for comparison)\n", layered ? "dot" : "layered", other_ms);
  else if (layered)
    printf ("dot layout, same graph:        (not timed: minutes at this size)\n");
  printf ("cr_graph_render_layout:     %8.1f ms (measure + layout, no cache)\n", plain_ms);
  printf ("draw whole graph %dx%d:  %8.1f ms (zoom %.3f)\n", FRAME_W, FRAME_H, whole_ms, fit_zoom);
  printf ("layout + first draw:        %8.1f ms (goal < 300)\n", shape_ms + layout_ms + whole_ms);
  printf ("in sight per pan frame:     %8.1f nodes, %.1f edges (mean)\n", seen_nodes / 60.0,
          seen_edges / 60.0);
  printf ("frame drawn afresh at 100 %%: %8.2f ms mean, %.2f ms max over 60 (no tiles)\n",
          total / 60, worst);
  printf ("place the edge labels:      %8.1f ms (once per layout)\n", labels_ms);
  for (guint k = 0; k < G_N_ELEMENTS (sides); k++)
    {
      printf ("drag at %.0f %%, 12 px a frame, from %d px tiles:\n", 100 * zooms[k], sides[k]);
      series_print ("  pan frame (goal < 16)", &drag[k]);
      series_print ("  a tile painted in a frame", &painted[k]);
      series_print ("  a tile painted ahead", &ahead[k]);
    }
  printf ("a step, keeping the tiles it leaves alone (%u items, %.1f boxes differ a step):\n",
          n_items, dirty_boxes / 20.0);
  series_print ("  the drawing's items", &step_items);
  series_print ("  where they differ", &step_diff);
  printf ("one frame without cache:    %8.1f ms\n", uncached_ms);

  if (argc > 2)
    {
      /* bench-graph N OUT.png|svg|pdf: also write the drawing, to look at. */
      options.cache = cache;
      start = g_get_monotonic_time ();
      if (!cr_graph_render_to_file (model, layout, &options, argv[2], &error))
        fprintf (stderr, "bench-graph: %s\n", error->message);
      double write_ms = ms_since (start);
      g_autoptr (GFile) out = g_file_new_for_path (argv[2]);
      g_autoptr (GFileInfo) info = g_file_query_info (out, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                      G_FILE_QUERY_INFO_NONE, NULL, NULL);
      goffset size = info ? g_file_info_get_size (info) : 0;
      printf ("%s written:  %8.1f ms, %" G_GOFFSET_FORMAT " bytes (%.0f per node)\n", argv[2],
              write_ms, size, (double) size / model->nodes->len);
      if (g_str_has_suffix (argv[2], ".svg"))
        {
          /* What Cairo's SVG surface writes for the same drawing. */
          gsize raw = 0;
          cairo_surface_t *svg = cairo_svg_surface_create_for_stream (count_bytes, &raw, layout->width,
                                                                      layout->height);
          cairo_t *cr = cairo_create (svg);
          cr_graph_render (cr, model, layout, &options);
          cairo_destroy (cr);
          cairo_surface_destroy (svg);
          printf ("the same drawing as Cairo writes it: %zu bytes (%.0f per node)\n", raw,
                  (double) raw / model->nodes->len);
        }
    }
  cairo_surface_destroy (surface);
  cr_graph_layout_free (layout);
  cr_graph_render_cache_free (cache);
  cr_graph_model_unref (model);
  return 0;
}
