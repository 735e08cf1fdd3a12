/* test-graph-paths.c — a leaf element's paths walked on the graph
 * (render/cr-path-tour.h, render/cr-graph-highlight.h), headless: the
 * nodes and edges each path lights on 01-toy-network, the sum view's text
 * against .grad, and on every example every path lighting its leaf and its
 * root, and its sum saying .grad. */
#include "cr-config.h"
#include "cr-path-tour.h"
#include "cr-error.h"
#include "ui-test-util.h"

#include <string.h>

static char *
read_example (const char *name)
{
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, name, NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static int
leaf_named (const CrRunRecord *record,
            const char        *label)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = record->tensors->pdata[i];
      if (t->origin == CR_RECORD_TENSOR_LEAF && g_strcmp0 (t->label, label) == 0)
        return (int) i;
    }
  return -1;
}

/* The lit nodes' titles and captions, "a|AccumulateGrad|MulBackward0 c = w2 * a|...",
 * in node order (new string). */
static char *
lit_titles (CrGraphHighlight   *highlight,
            const CrGraphModel *model)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < model->nodes->len; i++)
    if (cr_graph_highlight_node_lit (highlight, model, i))
      {
        const CrGraphNode *n = model->nodes->pdata[i];
        g_string_append_printf (s, "%s%s%s%s", s->len ? "|" : "", n->title,
                                n->caption ? " " : "", n->caption ? n->caption : "");
      }
  return g_string_free (s, FALSE);
}

static guint
count_lit_edges (CrGraphHighlight   *highlight,
                 const CrGraphModel *model)
{
  guint n = 0;
  for (guint e = 0; e < model->edges->len; e++)
    n += cr_graph_highlight_edge_lit (highlight, model, e);
  return n;
}

static void
test_toy_network (void)
{
  g_autofree char *source = read_example ("01-toy-network.py");
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, "01-toy-network.py");
  int a = leaf_named (model->record, "a");
  g_assert_cmpint (a, >=, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathTour) tour = cr_path_tour_new (model->record, model->backward, a, 0, &error);
  g_assert_no_error (error);
  /* Two paths (through c, then through b) and their sum. */
  g_assert_cmpuint (cr_path_tour_get_n_views (tour), ==, 3);
  g_assert_cmpuint (cr_path_tour_get_view (tour), ==, 0);

  g_autofree char *title0 = cr_path_tour_title (tour);
  g_assert_cmpstr (title0, ==, "Path 1 of 2 from a[0, 0]");
  g_autofree char *chain0 = cr_path_tour_chain (tour);
  g_assert_cmpstr (chain0, ==, "a[0, 0] → c[0, 0] → (w4 * c)[0, 0] → d[0, 0] → (10 - d)[0, 0] → L");
  g_autofree char *product0 = cr_path_tour_product (tour);
  g_assert_cmpstr (product0, ==, "0.25 × (-0.5) × 1 × (-1) × 1 = 0.125");
  g_autoptr (CrGraphHighlight) h0 = cr_path_tour_highlight (tour);
  g_autofree char *lit0 = lit_titles (h0, model);
  /* The leaf, its AccumulateGrad, c's op, w4 * c's, the add, 10 - d, the sum, L;
   * not b's ops, not the other leaves. */
  g_assert_cmpuint (cr_graph_highlight_count_nodes (h0, model), ==, 8);
  g_assert_nonnull (strstr (lit0, "MulBackward0 c = w2 * a"));
  g_assert_null (strstr (lit0, "b = w1 * a"));
  g_assert_null (strstr (lit0, "w1"));
  g_assert_cmpuint (count_lit_edges (h0, model), ==, 7);

  cr_path_tour_set_view (tour, 1);
  g_autofree char *product1 = cr_path_tour_product (tour);
  g_assert_cmpstr (product1, ==, "1 × 1 × 1 × (-1) × 1 = -1");
  g_autoptr (CrGraphHighlight) h1 = cr_path_tour_highlight (tour);
  g_autofree char *lit1 = lit_titles (h1, model);
  g_assert_nonnull (strstr (lit1, "MulBackward0 b = w1 * a"));
  g_assert_null (strstr (lit1, "c = w2 * a"));
  g_assert_cmpuint (cr_graph_highlight_count_nodes (h1, model), ==, 8);

  /* The last view: both paths lit, their sum = a.grad[0, 0] (-0.875). */
  cr_path_tour_set_view (tour, 99);
  g_assert_cmpuint (cr_path_tour_get_view (tour), ==, 2);
  g_assert_true (cr_path_tour_is_sum_view (tour));
  g_autofree char *title2 = cr_path_tour_title (tour);
  g_assert_cmpstr (title2, ==, "All 2 paths from a[0, 0]");
  g_autofree char *product2 = cr_path_tour_product (tour);
  g_assert_cmpstr (product2, ==, "0.125 + (-1) = -0.875 = a.grad[0, 0]");
  g_assert_cmpfloat_with_epsilon (cr_path_tour_get_sum (tour)->grad, -0.875, 1e-6);
  g_autoptr (CrGraphHighlight) h2 = cr_path_tour_highlight (tour);
  g_assert_cmpuint (cr_graph_highlight_count_nodes (h2, model), ==, 10);
  g_assert_cmpuint (count_lit_edges (h2, model), ==, 10);

  /* w3[1, 2] has one path: w3 * b, the add, 10 - d, the sum. */
  int w3 = leaf_named (model->record, "w3");
  g_autoptr (CrPathTour) one = cr_path_tour_new (model->record, model->backward, w3, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cr_path_tour_get_n_views (one), ==, 2);
  cr_path_tour_set_view (one, 1);
  g_autofree char *one_sum = cr_path_tour_product (one);
  g_assert_true (g_str_has_suffix (one_sum, "= w3.grad[1, 2]"));
}

/* Every example: each reached leaf's first element, every path lighting
 * the leaf and the call's root, the sum view saying .grad. */
static void
test_examples (void)
{
  g_autoptr (GDir) dir = g_dir_open (CR_SOURCE_EXAMPLES_DIR, 0, NULL);
  g_assert_nonnull (dir);
  const char *name;
  guint walked = 0, refused = 0;
  while ((name = g_dir_read_name (dir)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *source = read_example (name);
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, name, NULL);
      for (guint m = 0; m < models->len; m++)
        {
          const CrGraphModel *model = models->pdata[m];
          if (model->backward < 0)
            continue;
          const CrRecordBackward *call = model->record->backwards->pdata[model->backward];
          if (call->kind != CR_RECORD_BACKWARD_CALL)
            continue;
          for (guint t = 0; t < model->record->tensors->len; t++)
            {
              const CrRecordTensor *leaf = model->record->tensors->pdata[t];
              if (leaf->origin != CR_RECORD_TENSOR_LEAF || !cr_graph_model_find_accumulate (model, (int) t))
                continue;
              g_autoptr (GError) error = NULL;
              g_autoptr (CrPathTour) tour = cr_path_tour_new (model->record, model->backward,
                                                              (int) t, 0, &error);
              if (!tour)
                {
                  g_test_message ("%s: %s: %s", name, leaf->label, error->message);
                  g_assert_true (g_error_matches (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR)
                                 || g_error_matches (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR));
                  refused++;
                  continue;
                }
              const CrPathSum *sum = cr_path_tour_get_sum (tour);
              const CrGraphNode *leaf_node = cr_graph_model_find_accumulate (model, (int) t);
              for (guint v = 0; v < cr_path_tour_get_n_views (tour); v++)
                {
                  cr_path_tour_set_view (tour, v);
                  g_autoptr (CrGraphHighlight) h = cr_path_tour_highlight (tour);
                  if (sum->paths->len == 0)
                    continue;
                  g_assert_true (cr_graph_highlight_node_lit (h, model, leaf_node->id));
                  for (guint r = 0; r < call->roots->len && v < sum->paths->len; r++)
                    {
                      const CrPath *path = sum->paths->pdata[v];
                      int root = g_array_index (path->hops, CrPathHop, path->hops->len - 1).tensor;
                      const CrGraphNode *root_node = cr_graph_model_find_tensor (model, root);
                      if (root_node)
                        g_assert_true (cr_graph_highlight_node_lit (h, model, root_node->id));
                    }
                }
              g_autofree char *product = cr_path_tour_product (tour);
              if (!sum->truncated && !sum->hooks_changed && sum->paths->len > 0
                  && sum->grad == sum->grad)
                {
                  g_autofree char *says = g_strdup_printf ("= %s.grad", leaf->label);
                  if (!strstr (product, says))
                    g_error ("%s: %s: %s", name, leaf->label, product);
                }
              walked++;
            }
        }
    }
  g_test_message ("%u leaves walked, %u refused", walked, refused);
  g_assert_cmpuint (walked, >=, 20);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-paths/toy-network", test_toy_network);
  g_test_add_func ("/graph-paths/examples", test_examples);
  return g_test_run ();
}
