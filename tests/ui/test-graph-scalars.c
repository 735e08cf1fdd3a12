/* test-graph-scalars.c — a small op's scalar graph as a graph model
 * (render/cr-graph-model-scalars.h): a 2x2 matmul gives its eight input
 * cards, eight products, four sums and four output cards, the edges carry
 * the local derivatives, each output element is one step, and it lays out
 * and draws in both styles, at every element (CR_TEST_SCALARS_PNG=DIR
 * keeps the drawings to look at). Headless. */
#include "cr-graph-model-scalars.h"
#include "cr-graph-render.h"
#include "cr-interp.h"

#include <string.h>

static void
discard_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  (void) text;
  (void) is_stderr;
  (void) user_data;
}

static CrRunRecord *
record_script (const char *source)
{
  CrInterpOptions o = { .output = discard_output, .record_backward = TRUE };
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, "mm.py", NULL, &error);
  g_assert_no_error (error);
  CrInterp *interp = cr_interp_new (&o);
  CrScriptError *script_error = NULL;
  g_assert_true (cr_interp_run (interp, module, &script_error));
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return record;
}

static int
op_named (const CrRunRecord *record,
          const char        *grad_fn)
{
  for (guint i = 0; i < record->ops->len; i++)
    if (g_strcmp0 (((const CrRecordOp *) record->ops->pdata[i])->grad_fn, grad_fn) == 0)
      return (int) i;
  return -1;
}

static void
test_matmul (void)
{
  g_autoptr (CrRunRecord) record = record_script (
    "import torch\n"
    "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
    "b = torch.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)\n"
    "c = a @ b\n"
    "(c * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) scalars = cr_op_scalars_new (record, op_named (record, "MmBackward0"),
                                                       -1, -1, &error);
  g_assert_no_error (error);
  const char *keep = g_getenv ("CR_TEST_SCALARS_PNG");
  for (guint sub = 0; sub <= scalars->n_sub_steps; sub++)
    {
      g_autoptr (CrGraphModel) model = cr_graph_model_new_from_op_scalars (scalars, record, sub);
      guint kinds[CR_GRAPH_NODE_GROUP + 1] = { 0 };
      for (guint i = 0; i < model->nodes->len; i++)
        kinds[((const CrGraphNode *) model->nodes->pdata[i])->kind]++;
      g_assert_cmpuint (kinds[CR_GRAPH_NODE_LEAF], ==, 8);
      g_assert_cmpuint (kinds[CR_GRAPH_NODE_OP], ==, 12);
      g_assert_cmpuint (kinds[CR_GRAPH_NODE_OUTPUT], ==, 4);
      g_assert_cmpuint (model->edges->len, ==, 4 + 24);
      /* a[0, 0] → a[0, 0]·b[0, 0] is multiplied by b[0, 0] = 5 on the way back. */
      const CrGraphEdge *first = NULL;
      for (guint i = 0; i < model->edges->len && !first; i++)
        {
          const CrGraphEdge *e = model->edges->pdata[i];
          if (e->from == 0)
            first = e;
        }
      g_assert_nonnull (first);
      g_assert_cmpstr (first->label, ==, "5");
      /* a[0, 0]'s card: its value, and its gradient as of the elements done:
       * 5 after c[0, 0], 17 after c[0, 1] too. */
      const CrGraphNode *a00 = model->nodes->pdata[0];
      g_assert_cmpstr (a00->title, ==, "a[0, 0] = 1");
      const char *want = sub == 0 ? "grad 0" : sub == 1 ? "grad 5" : "grad 17";
      g_assert_cmpstr (a00->preview, ==, want);

      for (int style = 0; style < 2; style++)
        {
          g_autoptr (GError) layout_error = NULL;
          CrGraphLayout *layout = cr_graph_render_layout (model, &layout_error);
          g_assert_no_error (layout_error);
          g_assert_cmpfloat (layout->width, >, 100);
          cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                                 (int) layout->width + 1,
                                                                 (int) layout->height + 1);
          cairo_t *cr = cairo_create (surface);
          CrGraphRenderOptions options;
          cr_graph_render_options_init (&options);
          options.style = style ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
          options.draw_background = TRUE;
          options.current_step = (int) sub - 1;  /* the element just done */
          cr_graph_render (cr, model, layout, &options);
          g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
          if (keep)
            {
              g_autofree char *name = g_strdup_printf ("%s/scalars-%u-%s.png", keep, sub,
                                                       style ? "dark" : "light");
              cairo_surface_write_to_png (surface, name);
            }
          cairo_destroy (cr);
          cairo_surface_destroy (surface);
          cr_graph_layout_free (layout);
        }
    }
}

/* Every op of the scalars_* cases and of example 12 that opens lays out
 * and draws, at its first element and with every element done. */
static void
test_every_op (void)
{
  const char *scripts[] = { "tests/app/cases/scalars_broadcast.py",
                            "tests/app/cases/scalars_linear.py",
                            "tests/app/cases/scalars_matmul.py",
                            "tests/app/cases/scalars_distance.py",
                            "tests/app/cases/scalars_double_backward.py",
                            "data/examples/12-softmax-cross-entropy.py" };
  const char *keep = g_getenv ("CR_TEST_SCALARS_PNG");
  guint drawn = 0;
  for (guint k = 0; k < G_N_ELEMENTS (scripts); k++)
    {
      g_autofree char *path = g_build_filename (CR_SOURCE_ROOT, scripts[k], NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (CrRunRecord) record = record_script (source);
      for (guint op = 0; op < record->ops->len; op++)
        {
          if (!cr_op_scalars_can_open (record, (int) op, NULL))
            continue;
          g_autoptr (GError) error = NULL;
          g_autoptr (CrOpScalars) scalars = cr_op_scalars_new (record, (int) op, -1, -1, &error);
          g_assert_no_error (error);
          for (guint sub = 1; sub <= scalars->n_sub_steps; sub += MAX (scalars->n_sub_steps - 1, 1))
            {
              g_autoptr (CrGraphModel) model = cr_graph_model_new_from_op_scalars (scalars, record,
                                                                                  sub);
              CrGraphLayout *layout = cr_graph_render_layout (model, &error);
              g_assert_no_error (error);
              cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                                     (int) layout->width + 1,
                                                                     (int) layout->height + 1);
              cairo_t *cr = cairo_create (surface);
              CrGraphRenderOptions options;
              cr_graph_render_options_init (&options);
              options.draw_background = TRUE;
              options.current_step = (int) sub - 1;
              cr_graph_render (cr, model, layout, &options);
              g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
              if (keep)
                {
                  g_autofree char *name = g_strdup_printf ("%s/case%u-op%u-%u.png", keep, k, op, sub);
                  cairo_surface_write_to_png (surface, name);
                }
              cairo_destroy (cr);
              cairo_surface_destroy (surface);
              cr_graph_layout_free (layout);
              drawn++;
            }
        }
    }
  g_test_message ("%u drawings", drawn);
  g_assert_cmpuint (drawn, >=, 50);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-scalars/matmul", test_matmul);
  g_test_add_func ("/graph-scalars/every-op", test_every_op);
  return g_test_run ();
}
