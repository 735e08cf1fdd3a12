/* test-graph-labels.c — what the graph writes by its nodes and edges: an
 * edge's shape label is never drawn under (or over) a node, for every
 * example in the normal and the presentation sizes; a tensor's box says
 * the shape the script made (x = torch.ones(5) is 5, not the 1×5 view a
 * matmul used). */
#include "cr-config.h"
#include "cr-graph-render.h"
#include "ui-test-util.h"

#include <pango/pangocairo.h>
#include <string.h>

/* A label's box as the renderer draws it: its text at the label size in
 * the renderer's font, in a pill 8 points wider and 2 taller. */
static void
label_half_size (const char *text,
                 double      k,
                 double     *half_w,
                 double     *half_h)
{
  static PangoContext *context;
  if (!context)
    context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  PangoLayout *layout = pango_layout_new (context);
  PangoFontDescription *font = pango_font_description_from_string ("Cantarell, Noto Sans, DejaVu Sans, sans-serif");
  pango_font_description_set_absolute_size (font, cr_graph_render_label_size () * k * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  int w, h;
  pango_layout_get_size (layout, &w, &h);
  g_object_unref (layout);
  *half_w = ((double) w / PANGO_SCALE + 8.0 * k) / 2;
  *half_h = ((double) h / PANGO_SCALE + 2.0 * k) / 2;
}

static gboolean
overlaps (double x0, double y0, double x1, double y1, const CrGraphBox *b)
{
  return x0 < b->x + b->width && b->x < x1 && y0 < b->y + b->height && b->y < y1;
}

/* Every labelled edge of model laid out: its label clear of every node.
 * Returns how many labels were checked. */
static guint
check_model (const CrGraphModel *model,
             const char         *what,
             gboolean            presentation)
{
  g_autoptr (GError) error = NULL;
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, presentation);
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, &error);
  cr_graph_render_cache_free (cache);
  g_assert_no_error (error);
  double k = presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0;
  guint checked = 0;
  for (guint i = 0; i < layout->n_edges && i < model->edges->len; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (!p->has_label || !e->label)
        continue;
      double hw, hh;
      label_half_size (e->label, k, &hw, &hh);
      for (guint n = 0; n < layout->n_nodes; n++)
        if (overlaps (p->label_x - hw, p->label_y - hh, p->label_x + hw, p->label_y + hh,
                      &layout->nodes[n]))
          {
            const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
            g_error ("%s%s: the label '%s' of edge %u (%g, %g) lies on node %u '%s' "
                     "(%g, %g, %g×%g)", what, presentation ? " (presentation)" : "", e->label, i, p->label_x, p->label_y, n,
                     node->title ? node->title : "", layout->nodes[n].x, layout->nodes[n].y,
                     layout->nodes[n].width, layout->nodes[n].height);
          }
      checked++;
    }
  cr_graph_layout_free (layout);
  return checked;
}

static void
test_examples (void)
{
  const char *dir = CR_EXAMPLES_SOURCE_DIR;
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint checked = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, name, NULL);
      for (guint m = 0; m < models->len; m++)
        {
          checked += check_model (g_ptr_array_index (models, m), name, FALSE);
          checked += check_model (g_ptr_array_index (models, m), name, TRUE);
        }
    }
  g_test_message ("%u edge labels checked", checked);
  g_assert_cmpuint (checked, >, 50);
}

static const CrGraphNode *
node_titled (const CrGraphModel *model,
             const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (g_strcmp0 (n->title, title) == 0)
        return n;
    }
  return NULL;
}

static void
test_vector_shape (void)
{
  const char *source =
    "import torch\n"
    "torch.manual_seed(0)\n"
    "lin = torch.nn.Linear(5, 3)\n"
    "x = torch.ones(5)\n"
    "y = lin(x).sum()\n"
    "y.backward()\n";
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, NULL);
  const CrGraphNode *x = node_titled (model, "x");
  g_assert_nonnull (x);
  g_assert_cmpstr (x->shape, ==, "5");
  g_assert_nonnull (node_titled (model, "MmBackward0"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graph-labels/examples", test_examples);
  g_test_add_func ("/ui/graph-labels/vector-shape", test_vector_shape);
  return g_test_run ();
}
