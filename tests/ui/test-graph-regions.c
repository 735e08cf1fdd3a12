/* test-graph-regions.c — grad-mode regions drawn on the graph
 * (render/cr-graph-regions.c): example 05's no_grad result in a box titled
 * "no_grad · line 18", hanging off w by a dashed edge, and its detached
 * tensor too; a no_grad tensor used in backward boxed in its region;
 * ops under enable_grad inside no_grad boxed as enable_grad; the boxes
 * hold their nodes and nothing else, and draw in light and dark; a closed
 * module call's view keeps the detached edge dashed. Headless. */
#include "cr-graph-groups.h"
#include "cr-graph-regions.h"
#include "cr-graph-render.h"
#include "ui-test-util.h"

#include <string.h>

static const CrGraphNode *
node_titled (const CrGraphModel *model,
             CrGraphNodeKind     kind,
             const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == kind && g_strcmp0 (n->title, title) == 0)
        return n;
    }
  return NULL;
}

static gboolean
box_holds (const CrGraphRegionBox *box,
           const CrGraphBox       *b)
{
  return b->x >= box->x && b->y >= box->y && b->x + b->width <= box->x + box->width
         && b->y + b->height <= box->y + box->height;
}

static gboolean
box_meets (const CrGraphRegionBox *box,
           const CrGraphBox       *b)
{
  return b->x < box->x + box->width && box->x < b->x + b->width
         && b->y < box->y + box->height && box->y < b->y + b->height;
}

/* Each box holds its nodes; no other node lies in it, and its title lies
 * on no node. */
static void
check_boxes (const CrGraphModel  *model,
             const CrGraphLayout *layout,
             GArray              *boxes)
{
  for (guint i = 0; i < boxes->len; i++)
    {
      const CrGraphRegionBox *box = &g_array_index (boxes, CrGraphRegionBox, i);
      g_autoptr (GHashTable) in = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint j = 0; j < box->nodes->len; j++)
        {
          guint n = g_array_index (box->nodes, guint, j);
          g_assert_true (box_holds (box, &layout->nodes[n]));
          g_hash_table_add (in, GUINT_TO_POINTER (n));
        }
      CrGraphRegionBox title = { .x = box->title_x, .y = box->title_y,
                                 .width = box->title_width, .height = box->title_height };
      for (guint n = 0; n < layout->n_nodes; n++)
        {
          g_assert_false (box_meets (&title, &layout->nodes[n]));
          if (!g_hash_table_contains (in, GUINT_TO_POINTER (n)))
            g_assert_false (box_meets (box, &layout->nodes[n]));
        }
    }
}

static void
draw_both_styles (const CrGraphModel  *model,
                  const CrGraphLayout *layout)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 64, 64);
  cairo_t *cr = cairo_create (surface);
  cr_graph_regions_draw (cr, model, layout, FALSE, 1.0);
  cr_graph_regions_draw (cr, model, layout, TRUE, CR_GRAPH_RENDER_PRESENT_TYPE);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_example_05 (void)
{
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "05-no-grad-detach.py", NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, path);
  g_assert_nonnull (model);

  /* The tensors where the script stopped gradients, on their sources. */
  const CrGraphNode *z_no_grad = node_titled (model, CR_GRAPH_NODE_NO_GRAD, "z");
  const CrGraphNode *z_det = node_titled (model, CR_GRAPH_NODE_DETACHED, "z_det");
  const CrGraphNode *z = node_titled (model, CR_GRAPH_NODE_OUTPUT, "z");
  g_assert_nonnull (z_no_grad);
  g_assert_nonnull (z_det);
  g_assert_nonnull (z);
  guint stopped = 0;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->to == z_det->id)
        {
          g_assert_true (e->stops_gradient);
          g_assert_cmpuint (e->from, ==, z->id);
          stopped++;
        }
      if (e->to == z_no_grad->id)
        {
          g_assert_true (e->stops_gradient);
          stopped++;
        }
    }
  g_assert_cmpuint (stopped, ==, 2);

  for (int down = 0; down < 2; down++)
    {
      CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
      g_autoptr (CrGraphLayout) layout = cr_graph_render_layout_directed (
        model, cache, down ? CR_GRAPH_LAYOUT_TOP_TO_BOTTOM : CR_GRAPH_LAYOUT_LEFT_TO_RIGHT, NULL);
      cr_graph_render_cache_free (cache);
      g_assert_nonnull (layout);
      g_autoptr (GArray) boxes = cr_graph_regions_boxes (model, layout, 1.0);
      g_assert_cmpuint (boxes->len, ==, 1);
      const CrGraphRegionBox *box = &g_array_index (boxes, CrGraphRegionBox, 0);
      g_assert_cmpstr (box->title, ==, "no_grad · line 18");
      g_assert_cmpuint (box->nodes->len, ==, 1);
      g_assert_cmpuint (g_array_index (box->nodes, guint, 0), ==, z_no_grad->id);
      check_boxes (model, layout, boxes);
      draw_both_styles (model, layout);
    }
}

/* A tensor made under no_grad and used in backward; enable_grad inside it. */
static void
test_backward_regions (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "w = torch.tensor([3.0, 4.0], requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    c = a * 2\n"
    "    with torch.enable_grad():\n"
    "        d = w * w\n"
    "y = (c * d).sum()\n"
    "y.backward()\n", "regions.py");
  g_assert_nonnull (model);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  g_autoptr (GArray) boxes = cr_graph_regions_boxes (model, layout, 1.0);
  g_assert_cmpuint (boxes->len, ==, 2);
  const CrGraphNode *c = node_titled (model, CR_GRAPH_NODE_NO_GRAD, "c");
  g_assert_nonnull (c);
  gboolean seen_no_grad = FALSE, seen_enable = FALSE;
  for (guint i = 0; i < boxes->len; i++)
    {
      const CrGraphRegionBox *box = &g_array_index (boxes, CrGraphRegionBox, i);
      if (g_str_has_prefix (box->title, "no_grad · line 4"))
        {
          seen_no_grad = TRUE;
          /* c alone: w * w ran under the enable_grad inside. */
          g_assert_cmpuint (box->nodes->len, ==, 1);
          g_assert_cmpuint (g_array_index (box->nodes, guint, 0), ==, c->id);
        }
      if (strcmp (box->title, "enable_grad · line 6") == 0)
        {
          seen_enable = TRUE;
          /* w * w's MulBackward0 alone. */
          g_assert_cmpuint (box->nodes->len, ==, 1);
          const CrGraphNode *n = g_ptr_array_index (model->nodes, g_array_index (box->nodes, guint, 0));
          g_assert_cmpstr (n->title, ==, "MulBackward0");
          g_assert_cmpstr (n->caption, ==, "d = w * w");
        }
    }
  g_assert_true (seen_no_grad);
  g_assert_true (seen_enable);
  check_boxes (model, layout, boxes);
  draw_both_styles (model, layout);
}

/* A forward graph with a module call closed into one node: the edge from
 * it to a tensor detached from its output still stops gradients (drawn
 * dashed). */
static void
test_collapsed_keeps_stop (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "lin = nn.Linear(2, 2)\n"
    "x = torch.tensor([[1.0, 2.0]])\n"
    "h = lin(x)\n"
    "d = h.detach()\n"
    "y = h.sum()\n", "collapsed.py");
  g_assert_nonnull (model);
  const CrGraphNode *d = node_titled (model, CR_GRAPH_NODE_DETACHED, "d");
  g_assert_nonnull (d);
  CrGraphGroups *groups = cr_graph_groups_new (model);
  g_assert_cmpuint (groups->height, >, 0);
  gboolean *closed = cr_graph_groups_open_to_level (groups, 0);
  CrGraphCollapse *collapse = cr_graph_collapse_new (groups, closed);
  const CrGraphModel *shown = collapse->model;
  guint d_shown = collapse->node_of[d->id];
  guint stopped = 0;
  for (guint i = 0; i < shown->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (shown->edges, i);
      if (e->to != d_shown)
        continue;
      /* From the closed call: lin's output is inside it. */
      const CrGraphNode *from = g_ptr_array_index (shown->nodes, e->from);
      g_assert_cmpint (from->kind, ==, CR_GRAPH_NODE_GROUP);
      g_assert_true (e->stops_gradient);
      stopped++;
    }
  g_assert_cmpuint (stopped, ==, 1);
  /* The other edges still carry gradients. */
  for (guint i = 0; i < shown->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (shown->edges, i);
      if (e->to != d_shown)
        g_assert_false (e->stops_gradient);
    }
  cr_graph_collapse_free (collapse);
  g_free (closed);
  cr_graph_groups_free (groups);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-regions/example-05", test_example_05);
  g_test_add_func ("/graph-regions/backward", test_backward_regions);
  g_test_add_func ("/graph-regions/collapsed-keeps-stop", test_collapsed_keeps_stop);
  return g_test_run ();
}
