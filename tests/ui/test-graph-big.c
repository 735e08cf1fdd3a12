/* test-graph-big.c — what keeps big graphs fast and small, without a
 * screen: the tile cache (cr-graph-tiles.h) paints a tile once and drops
 * its tiles when what they show changes; the SVG export (cr-graph-svg.h)
 * stays within a size per node and draws what Cairo drew; far out, the
 * type too small to read is left out; the edge labels'
 * placement (bucketed) keeps the same labels as the plain quadratic one. */
#include "cr-graph-tiles.h"
#include "cr-graph-svg.h"
#include "cr-graph-render.h"
#include "cr-graph-render-badges.h"
#include "ui-test-util.h"

#include <cairo-svg.h>
#include <glib/gstdio.h>
#include <string.h>

/* ---- tiles ----------------------------------------------------------------- */

static guint paints;

static void
paint_count (cairo_t  *cr,
             double    x0,
             double    y0,
             double    side,
             gpointer  user_data)
{
  /* The clip is the tile's square, in the graph's pixels. */
  double clip[4];
  cairo_clip_extents (cr, &clip[0], &clip[1], &clip[2], &clip[3]);
  g_assert_cmpfloat (clip[0], ==, x0);
  g_assert_cmpfloat (clip[1], ==, y0);
  g_assert_cmpfloat (clip[2], ==, x0 + side);
  g_assert_cmpfloat (clip[3], ==, y0 + side);
  cairo_set_source_rgb (cr, 1, 0, 0);
  cairo_paint (cr);
  paints++;
}

static const CrGraphTilesKey base_key = {
  .zoom = 1.0, .scale = 1, .step = -1, .selected = -1, .style = 0,
  .model = &base_key, .layout = &paints,
};

static void
test_tiles_kept (void)
{
  CrGraphTiles *tiles = cr_graph_tiles_new (64, 16);
  g_assert_true (cr_graph_tiles_set_key (tiles, &base_key));
  paints = 0;
  CrGraphTile *t = cr_graph_tiles_get (tiles, 1, -2, paint_count, NULL);
  g_assert_cmpint (t->i, ==, 1);
  g_assert_cmpint (t->j, ==, -2);
  g_assert_cmpint (cairo_image_surface_get_width (t->surface), ==, 64);
  /* Asked again: the same tile, not painted again. */
  g_assert_true (cr_graph_tiles_get (tiles, 1, -2, paint_count, NULL) == t);
  g_assert_cmpuint (paints, ==, 1);
  g_assert_cmpuint (cr_graph_tiles_n_painted (tiles), ==, 1);
  /* The same key again keeps it. */
  CrGraphTilesKey same = base_key;
  g_assert_false (cr_graph_tiles_set_key (tiles, &same));
  g_assert_true (cr_graph_tiles_lookup (tiles, 1, -2) == t);
  cr_graph_tiles_free (tiles);
}

/* Every field of the key drops the tiles when it changes: a step, the
 * selection, the zoom, the style, presentation, the model or layout. */
static void
test_tiles_dropped (void)
{
  CrGraphTiles *tiles = cr_graph_tiles_new (64, 16);
  int other;
  for (int field = 0; field < 8; field++)
    {
      cr_graph_tiles_set_key (tiles, &base_key);
      cr_graph_tiles_get (tiles, 0, 0, paint_count, NULL);
      g_assert_cmpuint (cr_graph_tiles_count (tiles), ==, 1);
      CrGraphTilesKey k = base_key;
      switch (field)
        {
        case 0: k.step = 3; break;
        case 1: k.selected = 7; break;
        case 2: k.zoom = 1.25; break;
        case 3: k.style = 1; break;
        case 4: k.presentation = TRUE; break;
        case 5: k.model = &other; break;
        case 6: k.layout = &other; break;
        default: k.scale = 2; break;
        }
      g_assert_true (cr_graph_tiles_set_key (tiles, &k));
      g_assert_cmpuint (cr_graph_tiles_count (tiles), ==, 0);
      g_assert_null (cr_graph_tiles_lookup (tiles, 0, 0));
      if (field == 7)
        {
          /* Twice the device pixels for the same square. */
          CrGraphTile *t = cr_graph_tiles_get (tiles, 0, 0, paint_count, NULL);
          g_assert_cmpint (cairo_image_surface_get_width (t->surface), ==, 128);
        }
    }
  cr_graph_tiles_free (tiles);
}

static void
free_counted (gpointer data)
{
  (*(int *) data)++;
}

/* The view's tiles; the next one to paint ahead, nearest first and only
 * where the drawing is; eviction keeps the tiles near the view. */
static void
test_tiles_range (void)
{
  CrGraphTiles *tiles = cr_graph_tiles_new (100, 16);
  cr_graph_tiles_set_key (tiles, &base_key);
  int range[4];
  /* The graph's origin 150 px left of and 20 px below the view's corner. */
  cr_graph_tiles_range (tiles, -150.4, 20, 250, 100, range);
  g_assert_cmpint (range[0], ==, 1);
  g_assert_cmpint (range[1], ==, -1);
  g_assert_cmpint (range[2], ==, 3);
  g_assert_cmpint (range[3], ==, 0);

  int i, j;
  const int view[4] = { 0, 0, 1, 0 };
  /* The view first, then the ring around it, never outside the drawing
   * (250 × 150 px: tiles 0..2 across, 0..1 down). */
  g_assert_true (cr_graph_tiles_next_missing (tiles, view, 1, 250, 150, &i, &j));
  g_assert_cmpint (i, ==, 0);
  g_assert_cmpint (j, ==, 0);
  cr_graph_tiles_get (tiles, 0, 0, paint_count, NULL);
  cr_graph_tiles_get (tiles, 1, 0, paint_count, NULL);
  guint n = 0;
  while (cr_graph_tiles_next_missing (tiles, view, 1, 250, 150, &i, &j))
    {
      g_assert_cmpint (i, >=, 0);
      g_assert_cmpint (i, <=, 2);
      g_assert_cmpint (j, >=, 0);
      g_assert_cmpint (j, <=, 1);
      cr_graph_tiles_get (tiles, i, j, paint_count, NULL);
      n++;
    }
  g_assert_cmpuint (n, ==, 4);
  g_assert_false (cr_graph_tiles_next_missing (tiles, view, 1, 250, 150, &i, &j));

  /* Full past 8 under the limit: tiles far from the view go, with their
   * caller's data. */
  int freed = 0;
  for (int k = 0; k < 10; k++)
    {
      CrGraphTile *t = cr_graph_tiles_get (tiles, 20 + k, 20, paint_count, NULL);
      t->data = &freed;
      t->data_free = free_counted;
    }
  g_assert_cmpuint (cr_graph_tiles_count (tiles), ==, 16);
  g_assert_true (cr_graph_tiles_full (tiles));
  cr_graph_tiles_evict (tiles, view);
  g_assert_cmpint (freed, ==, 10);
  g_assert_cmpuint (cr_graph_tiles_count (tiles), ==, 6);
  g_assert_nonnull (cr_graph_tiles_lookup (tiles, 2, 1));
  cr_graph_tiles_free (tiles);
}

/* ---- SVG ------------------------------------------------------------------- */

static void
test_svg_compact (void)
{
  const char *cairo_svg =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
    "width=\"100.5pt\" height=\"50.123456pt\" viewBox=\"0 0 100.5 50.123456\" version=\"1.1\">\n"
    "<defs>\n"
    "<g>\n"
    "<symbol overflow=\"visible\" id=\"glyph0-1\">\n"
    "<path style=\"stroke:none;\" d=\"M 0.953125 -8.609375 L 2.9375 -8.609375 Z \"/>\n"
    "</symbol>\n"
    "</g>\n"
    "<clipPath id=\"clip1\">\n"
    "  <path d=\"M 14735 10552 L 14816 10552 Z M 14735 10552 \"/>\n"
    "</clipPath>\n"
    "</defs>\n"
    "<g id=\"surface1\">\n"
    "<path style=\"fill:none;stroke-width:1.4;stroke-linecap:round;stroke-linejoin:miter;"
    "stroke:rgb(60.392157%,60%,58.823529%);stroke-opacity:1;stroke-miterlimit:10;\" "
    "d=\"M 7195.800781 -10235.816406 C 7223 10235.816406 0.004 -0.004 1e-05 12.345 \"/>\n"
    "<path style=\" stroke:none;fill-rule:nonzero;fill:rgb(0%,0%,0%);fill-opacity:0.035;\" d=\"M 1 2 Z\"/>\n"
    "<g clip-path=\"url(#clip1)\" clip-rule=\"nonzero\">\n"
    "<g style=\"fill:rgb(100%,100%,100%);fill-opacity:1;\">\n"
    "  <use xlink:href=\"#glyph0-1\" x=\"-12\" y=\"218.847656\"/>\n"
    "</g>\n"
    "</g>\n"
    "<path style=\"stroke:none;fill-rule:nonzero;fill:rgb(0%,0%,0%);fill-opacity:0.035;\" d=\"M 3 4 Z\"/>\n"
    "<g style=\"fill:rgb(14.117647%,12.156863%,19.215686%);fill-opacity:1;\">\n"
    "  <use xlink:href=\"#glyph0-1\" x=\"100.5\" y=\"20.123\"/>\n"
    "  <use xlink:href=\"#glyph0-2\" x=\"106.254\" y=\"20.123\"/>\n"
    "</g>\n"
    "</g>\n"
    "</svg>\n";
  g_autoptr (GString) small = cr_graph_svg_compact (cairo_svg);
  const char *expected =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
    "width=\"100.5pt\" height=\"50.12pt\" viewBox=\"0 0 100.5 50.12\" version=\"1.1\">\n"
    "<style>\n"
    ".s0{stroke:none}\n"
    ".s1{fill:none;stroke-width:1.4;stroke-linecap:round;stroke:#9a9996;stroke-miterlimit:10}\n"
    ".s2{stroke:none;fill:#000000;fill-opacity:0.035}\n"
    ".s3{fill:#ffffff}\n"
    ".s4{fill:#241f31}\n"
    "</style>\n"
    "<defs>\n"
    "<g>\n"
    "<symbol overflow=\"visible\" id=\"g0-1\">\n"
    "<path class=\"s0\" d=\"M 0.95 -8.61 L 2.94 -8.61 Z \"/>\n"
    "</symbol>\n"
    "</g>\n"
    "<clipPath id=\"clip1\">\n"
    "<path d=\"M 14735 10552 L 14816 10552 Z M 14735 10552 \"/>\n"
    "</clipPath>\n"
    "</defs>\n"
    "<g id=\"surface1\">\n"
    "<path class=\"s1\" d=\"M 7195.8 -10235.82 C 7223 10235.82 0 0 0 12.35 \"/>\n"
    "<path class=\"s2\" d=\"M 1 2 Z\"/>\n"
    "<g clip-path=\"url(#clip1)\" clip-rule=\"nonzero\">\n"
    "<g class=\"s3\">\n"
    "<use xlink:href=\"#g0-1\" x=\"-12\" y=\"218.85\"/>\n"
    "</g>\n"
    "</g>\n"
    "<path class=\"s2\" d=\"M 3 4 Z\"/>\n"
    "<g class=\"s4\" transform=\"translate(100.5,20.12)\">\n"
    "<use xlink:href=\"#g0-1\"/>\n"
    "<use xlink:href=\"#g0-2\" x=\"5.75\"/>\n"
    "</g>\n"
    "</g>\n"
    "</svg>\n";
  g_assert_cmpstr (small->str, ==, expected);
}

/* A micrograd-style scalar network: many small nodes, as the 5,000-node
 * benchmark graph but quick. */
#define SCRIPT_SCALAR_MLP \
  "import torch\n" \
  "x = [torch.tensor(0.1 * i) for i in range(4)]\n" \
  "for layer in range(2):\n" \
  "    out = []\n" \
  "    for j in range(6):\n" \
  "        act = torch.tensor(0.0, requires_grad=True)\n" \
  "        for xi in x:\n" \
  "            act = act + torch.tensor(0.5, requires_grad=True) * xi\n" \
  "        out.append(act.tanh())\n" \
  "    x = out\n" \
  "loss = x[0]\n" \
  "for t in x[1:]:\n" \
  "    loss = loss + t\n" \
  "loss.backward()\n"

static cairo_status_t
append_to_string (void                *closure,
                  const unsigned char *data,
                  unsigned int         length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

static guint
count (const char *text,
       const char *what)
{
  guint n = 0;
  for (const char *p = strstr (text, what); p; p = strstr (p + 1, what))
    n++;
  return n;
}

/* The exported SVG stays under a size per node and edge, and holds every
 * shape and glyph that Cairo drew. Before: ~6,500 bytes per node. */
static void
test_svg_size (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (SCRIPT_SCALAR_MLP, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, &error);
  g_assert_no_error (error);
  g_autofree char *dir = g_dir_make_tmp ("cr-svg-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "graph.svg", NULL);
  g_assert_true (cr_graph_render_to_file (model, layout, NULL, path, &error));
  g_assert_no_error (error);
  g_autofree char *svg = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &svg, &length, NULL));
  guint items = model->nodes->len + model->edges->len;
  g_test_message ("%u nodes, %u edges: %zu bytes, %.0f per node or edge", model->nodes->len,
                  model->edges->len, length, (double) length / items);
  g_assert_cmpuint (length, <, 1600 * items);

  /* The same drawing as Cairo's own SVG of it: every path and glyph. */
  g_autoptr (GString) raw = g_string_new (NULL);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_to_string, raw,
                                                                  layout->width, layout->height);
  cairo_t *cr = cairo_create (surface);
  cr_graph_render (cr, model, layout, NULL);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_test_message ("Cairo's own: %zu bytes", raw->len);
  g_assert_cmpuint (count (svg, "<path "), ==, count (raw->str, "<path "));
  g_assert_cmpuint (count (svg, "<use "), ==, count (raw->str, "<use "));
  g_assert_cmpuint (count (svg, "<use "), >, 0);
  g_assert_cmpuint (count (svg, "style=\""), ==, 0);
  g_assert_cmpuint (count (svg, "rgb("), ==, 0);
  g_assert_null (strstr (svg, ".000"));
  g_unlink (path);
  g_rmdir (dir);
}

/* How many glyphs (SVG <use>) a drawing of model holds at text_scale. */
static guint
glyphs_drawn (const CrGraphModel  *model,
              const CrGraphLayout *layout,
              double               text_scale)
{
  g_autoptr (GString) svg = g_string_new (NULL);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_to_string, svg,
                                                                  layout->width, layout->height);
  cairo_t *cr = cairo_create (surface);
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.text_scale = text_scale;
  cr_graph_render (cr, model, layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return count (svg->str, "<use ");
}

/* Level of detail: shown where the small type would be under
 * CR_GRAPH_RENDER_MIN_TEXT_PX, the captions, values and edge labels are
 * left out, the titles kept; at a readable size (or unknown: export) all
 * of it is drawn. */
static void
test_small_type_left_out (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (SCRIPT_SCALAR_MLP, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, &error);
  g_assert_no_error (error);
  guint all = glyphs_drawn (model, layout, 0);
  guint near = glyphs_drawn (model, layout, 1.0);
  guint far = glyphs_drawn (model, layout, 0.4);
  g_test_message ("glyphs: %u at export, %u at 100 %%, %u at 40 %%", all, near, far);
  g_assert_cmpuint (near, ==, all);
  g_assert_cmpuint (far, <, all * 3 / 4);
  g_assert_cmpuint (far, >, 0);
}

/* ---- edge label placement --------------------------------------------------- */

static gboolean
overlap (const double *a,
         double        x0,
         double        y0,
         double        x1,
         double        y1)
{
  return a[0] < x1 && x0 < a[2] && a[1] < y1 && y0 < a[3];
}

/* The placement without its buckets, each spot tested against every node
 * and every label kept before it: the reference. */
static double *
label_boxes_reference (const CrGraphLayout *layout,
                       const double        *sizes,
                       double               k)
{
  guint n = layout->n_edges;
  double *boxes = g_new0 (double, CR_GRAPH_BADGES_LABEL_BOX * n + 1);
  g_autoptr (GArray) kept = g_array_new (FALSE, FALSE, 4 * sizeof (double));
  for (guint i = 0; i < n; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      const double *size = sizes + 4 * i;
      if (!p->has_label || size[0] <= 0)
        continue;
      double *b = boxes + CR_GRAPH_BADGES_LABEL_BOX * i;
      double spot[CR_GRAPH_BADGES_LABEL_BOX];
      gboolean found = FALSE;
      /* Clear of arrowheads first; over one only when nothing else is clear. */
      for (int over_arrows = 0; over_arrows <= 1 && !found; over_arrows++)
        for (int with_name = size[2] > 0; with_name >= 0 && !found; with_name--)
          for (guint s = 0; !found && cr_graph_badges_label_spot (layout, i, size, k, s, spot); s++)
            {
              gboolean clear = TRUE;
              for (int part = 0; part <= with_name && clear; part++)
                {
                  const double *r = spot + 4 * part;
                  for (guint j = 0; j < layout->n_nodes && clear; j++)
                    {
                      const CrGraphBox *nb = &layout->nodes[j];
                      clear = !overlap (r, nb->x, nb->y, nb->x + nb->width, nb->y + nb->height);
                    }
                  for (guint j = 0; j < kept->len && clear; j++)
                    {
                      const double *o = &g_array_index (kept, double, 4 * j);
                      clear = !overlap (r, o[0], o[1], o[2], o[3]);
                    }
                  for (guint j = 0; j < n && clear && !over_arrows; j++)
                    {
                      double a[4];
                      if (cr_graph_badges_arrowhead_box (&layout->edges[j], k, a))
                        clear = !overlap (r, a[0], a[1], a[2], a[3]);
                    }
                }
              found = clear;
              if (found && !with_name)
                spot[4] = spot[5] = spot[6] = spot[7] = 0;
            }
      if (!found)
        continue;
      memcpy (b, spot, sizeof spot);
      g_array_append_vals (kept, b, 1);
      if (b[6] > b[4])
        g_array_append_vals (kept, b + 4, 1);
    }
  return boxes;
}

/* Label sizes for model: its own labels at about 0.6 em a character, or
 * (`every`) one on every edge, of sizes that vary, most with a name. */
static double *
label_sizes (const CrGraphModel  *model,
             const CrGraphLayout *layout,
             double               k,
             gboolean             every)
{
  double em = cr_graph_render_label_size () * k;
  double *sizes = g_new0 (double, 4 * layout->n_edges + 4);
  for (guint i = 0; i < layout->n_edges && i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      double *s = sizes + 4 * i;
      if (every)
        {
          s[0] = (2 + i % 7) * 0.6 * em, s[1] = 1.25 * em;
          if (i % 3)
            s[2] = (1 + i % 5) * 0.62 * em, s[3] = 1.25 * em;
          continue;
        }
      if (e->label)
        s[0] = g_utf8_strlen (e->label, -1) * 0.6 * em, s[1] = 1.25 * em;
      if (e->tensor_name)
        s[2] = g_utf8_strlen (e->tensor_name, -1) * 0.62 * em, s[3] = 1.25 * em;
    }
  return sizes;
}

/* model's labels placed both ways, alike to the bit; also with the drawing
 * said to be half its size, so that boxes lie past the buckets' range.
 * Returns how many labels and names were kept. */
static guint
compare_label_boxes (const CrGraphModel *model,
                     const char         *what,
                     gboolean            presentation)
{
  g_autoptr (GError) error = NULL;
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, presentation);
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, &error);
  cr_graph_render_cache_free (cache);
  g_assert_no_error (error);
  double k = presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0;
  double width = layout->width, height = layout->height;
  guint kept = 0;
  for (int variant = 0; variant < 4; variant++)
    {
      layout->width = variant & 2 ? width / 2 : width;
      layout->height = variant & 2 ? height / 2 : height;
      g_autofree double *sizes = label_sizes (model, layout, k, variant & 1);
      gint64 t0 = g_get_monotonic_time ();
      g_autofree double *want = label_boxes_reference (layout, sizes, k);
      gint64 t1 = g_get_monotonic_time ();
      g_autofree double *got = cr_graph_badges_label_boxes (layout, sizes, k);
      gint64 t2 = g_get_monotonic_time ();
      if (layout->n_nodes > 1000)
        g_test_message ("%s, variant %d: placed in %.1f ms, %.1f ms before the buckets", what,
                        variant, (t2 - t1) / 1e3, (t1 - t0) / 1e3);
      for (guint i = 0; i < CR_GRAPH_BADGES_LABEL_BOX * layout->n_edges; i++)
        {
          if (got[i] != want[i])
            g_error ("%s%s, variant %d: edge %u's box value %u is %g, not %g", what,
                     presentation ? " (presentation)" : "", variant, i / CR_GRAPH_BADGES_LABEL_BOX,
                     i % CR_GRAPH_BADGES_LABEL_BOX, got[i], want[i]);
          if (i % 4 == 2 && got[i] > got[i - 2])
            kept++;
        }
    }
  cr_graph_layout_free (layout);
  return kept;
}

static void
test_label_boxes_examples (void)
{
  g_autoptr (GDir) d = g_dir_open (CR_EXAMPLES_SOURCE_DIR, 0, NULL);
  g_assert_nonnull (d);
  guint kept = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (CR_EXAMPLES_SOURCE_DIR, name, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, name, NULL);
      for (guint m = 0; m < models->len; m++)
        for (int presentation = 0; presentation < 2; presentation++)
          kept += compare_label_boxes (g_ptr_array_index (models, m), name, presentation);
    }
  g_test_message ("%u labels and names kept alike", kept);
  g_assert_cmpuint (kept, >, 100);
}

/* The 5,000-node benchmark graph, every group open. */
static void
test_label_boxes_big (void)
{
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (CR_BIG_GRAPH_SCRIPT, &source, NULL, NULL));
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, CR_BIG_GRAPH_SCRIPT);
  g_assert_cmpuint (model->nodes->len, >, 4000);
  guint kept = compare_label_boxes (model, "micrograd-mlp.py", FALSE);
  g_test_message ("%u nodes: %u labels and names kept alike", model->nodes->len, kept);
  g_assert_cmpuint (kept, >, 1000);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-big/tiles/kept", test_tiles_kept);
  g_test_add_func ("/graph-big/tiles/dropped", test_tiles_dropped);
  g_test_add_func ("/graph-big/tiles/range", test_tiles_range);
  g_test_add_func ("/graph-big/svg/compact", test_svg_compact);
  g_test_add_func ("/graph-big/svg/size", test_svg_size);
  g_test_add_func ("/graph-big/svg/small-type-left-out", test_small_type_left_out);
  g_test_add_func ("/graph-big/label-boxes/examples", test_label_boxes_examples);
  g_test_add_func ("/graph-big/label-boxes/big", test_label_boxes_big);
  return g_test_run ();
}
