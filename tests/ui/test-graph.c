/* test-graph.c — the graph model, its layout and its drawing, headless. */
#include "cr-graph-model.h"
#include "cr-graph-layout.h"
#include "cr-graph-render.h"

#include <string.h>

static CrGraphModel *
model_of_example (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", name, NULL);
  g_autofree char *source = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &source, &length, NULL));
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_parse (source, (gssize) length, path, &span, &error);
  g_assert_no_error (error);
  CrInterpOptions io = { .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&io);
  CrScriptError *script_error = NULL;
  g_assert_true (cr_interp_run (interp, module, &script_error));
  CrGraphModel *model = cr_graph_model_new_from_interp (interp, source);
  /* The model is a value: it outlives the interpreter. */
  cr_interp_free (interp);
  return model;
}

static gboolean
has_node (const CrGraphModel *model,
          CrGraphNodeKind     kind,
          const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == kind && strcmp (n->title, title) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_model_toy (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_assert_nonnull (model);
  const char *leaves[] = { "a", "w1", "w2", "w3", "w4" };
  for (guint i = 0; i < G_N_ELEMENTS (leaves); i++)
    g_assert_true (has_node (model, CR_GRAPH_NODE_LEAF, leaves[i]));
  g_assert_true (has_node (model, CR_GRAPH_NODE_OP, "MulBackward0"));
  g_assert_true (has_node (model, CR_GRAPH_NODE_OP, "AddBackward0"));
  g_assert_true (has_node (model, CR_GRAPH_NODE_OP, "SumBackward0"));
  g_assert_true (has_node (model, CR_GRAPH_NODE_ACCUMULATE, "AccumulateGrad"));
  g_assert_true (has_node (model, CR_GRAPH_NODE_OUTPUT, "L"));
  /* 5 leaves, 5 AccumulateGrad, 4 Mul, Add, Rsub, Sum, the output L. */
  g_assert_cmpuint (model->nodes->len, ==, 18);
  /* leaf->acc 5, acc->mul 6 (a twice), mul->mul 2, mul->add 2, add->rsub,
   * rsub->sum, sum->L. */
  g_assert_cmpuint (model->edges->len, ==, 18);
  g_assert_cmpuint (model->n_steps, >, 0);
  const CrGraphNode *first = cr_graph_model_find_step (model, 0);
  g_assert_nonnull (first);
  g_assert_cmpstr (first->title, ==, "SumBackward0");
}

static gboolean
overlap (const CrGraphBox *a,
         const CrGraphBox *b)
{
  return a->x < b->x + b->width && b->x < a->x + a->width
         && a->y < b->y + b->height && b->y < a->y + a->height;
}

static void
test_layout_toy (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (layout->n_nodes, ==, model->nodes->len);
  g_assert_cmpuint (layout->n_edges, ==, model->edges->len);
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CrGraphBox *a = &layout->nodes[i];
      g_assert_cmpfloat (a->x, >=, 0);
      g_assert_cmpfloat (a->y, >=, 0);
      g_assert_cmpfloat (a->x + a->width, <=, layout->width);
      g_assert_cmpfloat (a->y + a->height, <=, layout->height);
      for (guint j = i + 1; j < layout->n_nodes; j++)
        g_assert_false (overlap (a, &layout->nodes[j]));
    }
  /* Forward flows left to right: every leaf is left of the output. */
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      g_assert_cmpfloat (layout->nodes[e->from].x, <, layout->nodes[e->to].x);
      g_assert_cmpuint (layout->edges[i].n_points, >=, 4);
    }
}

static void
test_render_toy (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  g_assert_nonnull (layout);
  for (int style = 0; style < 2; style++)
    {
      int w = (int) layout->width, h = (int) layout->height;
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      cairo_t *cr = cairo_create (surface);
      CrGraphRenderOptions options;
      cr_graph_render_options_init (&options);
      options.style = style ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
      options.current_step = 2;
      cr_graph_render (cr, model, layout, &options);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      const guint8 *data = cairo_image_surface_get_data (surface);
      int stride = cairo_image_surface_get_stride (surface);
      guint32 background = *(const guint32 *) data;
      guint differ = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          differ += *(const guint32 *) (data + y * stride + 4 * x) != background;
      /* The cards cover a good part of the drawing. */
      g_assert_cmpuint (differ, >, (guint) (w * h / 20));
      cairo_surface_destroy (surface);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graph/model-toy", test_model_toy);
  g_test_add_func ("/ui/graph/layout-toy", test_layout_toy);
  g_test_add_func ("/ui/graph/render-toy", test_render_toy);
  return g_test_run ();
}
