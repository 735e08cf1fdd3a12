/* test-graph-layout.c — the layered layout for big graphs: on graphs run
 * from scripts (a micrograd-style scalar MLP, the toy network) every box
 * has its measured size, none overlaps another, all lie inside the drawing,
 * every edge runs forward from its source's right end to an arrow on its
 * target's left border, a leaf sits over its AccumulateGrad; open module
 * calls get boxes that nest and never meet a sibling's; and
 * cr_graph_layout_new hands graphs above CR_GRAPH_LAYOUT_DOT_MAX_NODES to it.
 * Also dot's layout with leaves beside their ops (a long chain's). */
#include "cr-graph-groups.h"
#include "cr-graph-layout.h"
#include "cr-graph-render.h"
#include "ui-test-util.h"

#include <math.h>

/* A scalar MLP built from user classes, as micrograd does: nin inputs,
 * hidden layers, one output. */
static char *
mlp_script (int nin,
            int hidden,
            int layers)
{
  return g_strdup_printf (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "class Neuron:\n"
    "    def __init__(self, nin):\n"
    "        self.w = [torch.tensor(torch.rand(()).item() - 0.5, requires_grad=True) for _ in range(nin)]\n"
    "        self.b = torch.tensor(0.0, requires_grad=True)\n"
    "    def __call__(self, x):\n"
    "        act = self.b\n"
    "        for wi, xi in zip(self.w, x):\n"
    "            act = act + wi * xi\n"
    "        return act.tanh()\n"
    "sizes = [%d] + [%d] * %d + [1]\n"
    "layers = [[Neuron(sizes[i]) for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]\n"
    "x = [torch.tensor(0.1 * i) for i in range(%d)]\n"
    "for layer in layers:\n"
    "    x = [n(x) for n in layer]\n"
    "loss = (x[0] - 1.0) ** 2\n"
    "loss.backward()\n",
    nin, hidden, layers, nin);
}

#define TOY \
  "import torch\n" \
  "a = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)\n" \
  "w1 = torch.tensor([[1.0, 2.0], [0.5, 0.5]], requires_grad=True)\n" \
  "w2 = torch.tensor([[0.25, -0.5], [1.0, -1.0]], requires_grad=True)\n" \
  "b = w1 * a\n" \
  "c = w2 * a\n" \
  "d = b + c * b\n" \
  "L = (10 - d).sum()\n" \
  "L.backward()\n"

static gboolean
boxes_overlap (const CrGraphBox *a,
               const CrGraphBox *b)
{
  return a->x < b->x + b->width - 0.01 && b->x < a->x + a->width - 0.01
         && a->y < b->y + b->height - 0.01 && b->y < a->y + a->height - 0.01;
}

/* Everything the renderer relies on, for any layout of model. */
static void
check_layout (const CrGraphModel  *model,
              const CrGraphLayout *layout,
              const double        *sizes)
{
  guint n = model->nodes->len;
  g_assert_cmpuint (layout->n_nodes, ==, n);
  g_assert_cmpuint (layout->n_edges, ==, model->edges->len);
  for (guint i = 0; i < n; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      /* A pair's card and pill share the unit's width; heights are as measured. */
      g_assert_cmpfloat (b->width, >=, sizes[2 * i] - 1e-6);
      g_assert_cmpfloat (fabs (b->height - sizes[2 * i + 1]), <, 1e-6);
      g_assert_cmpfloat (b->x, >=, 0);
      g_assert_cmpfloat (b->y, >=, 0);
      g_assert_cmpfloat (b->x + b->width, <=, layout->width + 1e-6);
      g_assert_cmpfloat (b->y + b->height, <=, layout->height + 1e-6);
    }
  /* No overlaps: boxes sorted by x, each compared with those it could meet. */
  g_autofree guint *by_x = g_new (guint, n + 1);
  for (guint i = 0; i < n; i++)
    by_x[i] = i;
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && layout->nodes[by_x[j]].x < layout->nodes[by_x[j - 1]].x; j--)
      {
        guint t = by_x[j];
        by_x[j] = by_x[j - 1];
        by_x[j - 1] = t;
      }
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      {
        const CrGraphBox *a = &layout->nodes[by_x[i]], *b = &layout->nodes[by_x[j]];
        if (b->x >= a->x + a->width)
          break;
        if (boxes_overlap (a, b))
          g_error ("nodes %u and %u overlap", by_x[i], by_x[j]);
      }
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphPath *p = &layout->edges[i];
      const CrGraphBox *s = &layout->nodes[e->from], *t = &layout->nodes[e->to];
      g_assert_cmpuint (p->n_points, >=, 4);
      g_assert_cmpuint ((p->n_points - 1) % 3, ==, 0);
      g_assert_true (p->has_arrow);
      const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      if (from->kind == CR_GRAPH_NODE_LEAF && to->kind == CR_GRAPH_NODE_ACCUMULATE
          && fabs (s->x - t->x) < 1e-6)
        {
          /* A pair: the pill right under the card, as wide. */
          g_assert_cmpfloat (t->y, >, s->y + s->height);
          g_assert_cmpfloat (fabs (s->width - t->width), <, 1e-6);
          continue;
        }
      if (layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM)
        {
          /* Forward: from the source's bottom to the target's top border. */
          g_assert_cmpfloat (fabs (p->points[1] - (s->y + s->height)), <, 1e-6);
          g_assert_cmpfloat (fabs (p->arrow_y - t->y), <, 1e-6);
          g_assert_cmpfloat (p->arrow_x, >=, t->x);
          g_assert_cmpfloat (p->arrow_x, <=, t->x + t->width);
          g_assert_cmpfloat (s->y + s->height, <, t->y);
          for (guint k = 0; k < p->n_points; k++)
            g_assert_cmpfloat (p->points[2 * k + 1], <=, t->y + 1e-6);
          continue;
        }
      /* Forward: from the source's right end to the target's left border. */
      g_assert_cmpfloat (fabs (p->points[0] - (s->x + s->width)), <, 1e-6);
      g_assert_cmpfloat (fabs (p->arrow_x - t->x), <, 1e-6);
      g_assert_cmpfloat (p->arrow_y, >=, t->y);
      g_assert_cmpfloat (p->arrow_y, <=, t->y + t->height);
      g_assert_cmpfloat (s->x + s->width, <, t->x);
      for (guint k = 0; k < p->n_points; k++)
        g_assert_cmpfloat (p->points[2 * k], <=, t->x + 1e-6);
    }
}

static void
test_layered_toy (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (TOY, NULL);
  g_autofree double *sizes = cr_graph_render_measure (model);
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new_layered (model, sizes,
                                                                  cr_graph_render_label_size ());
  check_layout (model, layout, sizes);
  /* Shape labels sit on their edges. */
  guint labels = 0;
  for (guint i = 0; i < layout->n_edges; i++)
    labels += layout->edges[i].has_label;
  g_assert_cmpuint (labels, >, 0);
}

static void
test_layered_mlp (void)
{
  g_autofree char *script = mlp_script (3, 6, 2);
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (script, NULL);
  g_assert_cmpuint (model->nodes->len, >, 200);
  g_autofree double *sizes = cr_graph_render_measure (model);
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new_layered (model, sizes,
                                                                  cr_graph_render_label_size ());
  check_layout (model, layout, sizes);
  /* Laid out in columns, not one endless row or a tower. */
  g_assert_cmpfloat (layout->width / layout->height, <, 20);
  g_assert_cmpfloat (layout->width / layout->height, >, 0.2);
  /* The same graph gives the same drawing. */
  g_autoptr (CrGraphLayout) again = cr_graph_layout_new_layered (model, sizes,
                                                                 cr_graph_render_label_size ());
  g_assert_cmpfloat (again->width, ==, layout->width);
  for (guint i = 0; i < layout->n_nodes; i++)
    g_assert_cmpfloat (again->nodes[i].y, ==, layout->nodes[i].y);
}

static gboolean
box_inside (const CrGraphBox *inner,
            const CrGraphBox *outer)
{
  return inner->x >= outer->x - 1e-6 && inner->y >= outer->y - 1e-6
         && inner->x + inner->width <= outer->x + outer->width + 1e-6
         && inner->y + inner->height <= outer->y + outer->height + 1e-6;
}

/* Each cluster's box holds its nodes and its clusters' boxes; no other
 * node and no sibling's box (top-level boxes are siblings too) meets it. */
static void
check_cluster_boxes (const CrGraphModel  *model,
                     const CrGraphLayout *layout)
{
  guint nc = model->clusters->len;
  g_assert_cmpuint (layout->n_clusters, ==, nc);
  /* in[c * n + node]: node lies in cluster c or one inside it. */
  guint n = model->nodes->len;
  g_autofree gboolean *in = g_new0 (gboolean, nc * n + 1);
  for (guint c = nc; c-- > 0;)
    {
      const CrGraphCluster *cl = g_ptr_array_index (model->clusters, c);
      for (guint j = 0; j < cl->nodes->len; j++)
        in[c * n + g_array_index (cl->nodes, guint, j)] = TRUE;
      if (cl->parent >= 0)
        for (guint i = 0; i < n; i++)
          in[cl->parent * n + i] |= in[c * n + i];
    }
  for (guint c = 0; c < nc; c++)
    {
      const CrGraphCluster *cl = g_ptr_array_index (model->clusters, c);
      const CrGraphBox *box = &layout->clusters[c];
      g_assert_cmpfloat (box->width, >, 0);
      for (guint i = 0; i < n; i++)
        {
          if (in[c * n + i])
            g_assert_true (box_inside (&layout->nodes[i], box));
          else if (boxes_overlap (&layout->nodes[i], box))
            g_error ("node %u lies on the box of cluster %u '%s'", i, c, cl->title);
        }
      if (cl->parent >= 0)
        g_assert_true (box_inside (box, &layout->clusters[cl->parent]));
      for (guint d = c + 1; d < nc; d++)
        {
          const CrGraphCluster *other = g_ptr_array_index (model->clusters, d);
          if (other->parent == cl->parent && boxes_overlap (box, &layout->clusters[d]))
            g_error ("the boxes of sibling clusters %u '%s' and %u '%s' meet", c, cl->title,
                     d, other->title);
        }
    }
}

/* Sibling calls of equal structure (a layer's neurons: the same class,
 * as many nodes) start in the same rank: side by side across the ranks,
 * not a staircase. Returns how many such pairs it checked. */
static guint
check_siblings_align (const CrGraphModel  *model,
                      const CrGraphLayout *layout)
{
  gboolean down = layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  guint checked = 0;
  for (guint c = 0; c < model->clusters->len; c++)
    for (guint d = c + 1; d < model->clusters->len; d++)
      {
        const CrGraphCluster *a = g_ptr_array_index (model->clusters, c);
        const CrGraphCluster *b = g_ptr_array_index (model->clusters, d);
        /* "layers.0 · Neuron": the class; a call without a path: "Neuron". */
        const char *ca = a->title ? g_strrstr (a->title, " · ") : NULL;
        const char *cb = b->title ? g_strrstr (b->title, " · ") : NULL;
        ca = ca ? ca : a->title;
        cb = cb ? cb : b->title;
        if (a->parent != b->parent || a->nodes->len == 0 || a->nodes->len != b->nodes->len
            || !ca || g_strcmp0 (ca, cb) != 0)
          continue;
        const CrGraphBox *x = &layout->clusters[c], *y = &layout->clusters[d];
        double along_a = down ? x->y : x->x, along_b = down ? y->y : y->x;
        if (fabs (along_a - along_b) > 1.0)
          g_error ("the sibling calls %u '%s' and %u '%s' start %g points apart along the ranks",
                   c, a->title, d, b->title, along_b - along_a);
        checked++;
      }
  return checked;
}

/* The micrograd-style MLP with every Neuron call open: boxes in both
 * directions, and with the layered layout a graph of its size gets. */
static void
test_layered_boxes (void)
{
  g_autofree char *script = mlp_script (3, 6, 2);
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (script, NULL);
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new (model);
  g_assert_cmpuint (groups->height, >, 0);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
  g_autoptr (CrGraphCollapse) collapse = cr_graph_collapse_new (groups, open);
  const CrGraphModel *shown = collapse->model;
  g_assert_nonnull (shown->clusters);
  g_assert_cmpuint (shown->clusters->len, >, 10);
  g_autofree double *sizes = cr_graph_render_measure (shown);
  for (int down = 0; down < 2; down++)
    {
      g_autoptr (CrGraphLayout) layout = cr_graph_layout_new_layered_directed (
        shown, sizes, cr_graph_render_label_size (),
        down ? CR_GRAPH_LAYOUT_TOP_TO_BOTTOM : CR_GRAPH_LAYOUT_LEFT_TO_RIGHT);
      check_layout (shown, layout, sizes);
      check_cluster_boxes (shown, layout);
      g_assert_cmpuint (check_siblings_align (shown, layout), >, 10);
      /* To look at: CR_TEST_PNG_DIR=/tmp writes the two drawings there. */
      const char *dir = g_getenv ("CR_TEST_PNG_DIR");
      if (dir)
        {
          CrGraphRenderOptions options;
          cr_graph_render_options_init (&options);
          options.collapse = collapse;
          g_autofree char *name = g_strdup_printf ("layered-boxes-%s.png", down ? "down" : "right");
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_assert_true (cr_graph_render_to_file (shown, layout, &options, path, NULL));
        }
    }
}

/* The 5,000-node micrograd MLP with every call open: what the boxes cost
 * the layered layout (printed; a busy machine varies), and they hold. */
static void
test_layered_boxes_big (void)
{
  g_autofree char *script = mlp_script (4, 32, 2);
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (script, NULL);
  g_assert_cmpuint (model->nodes->len, >, 4000);
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new (model);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
  g_autoptr (CrGraphCollapse) collapse = cr_graph_collapse_new (groups, open);
  const CrGraphModel *shown = collapse->model;
  g_autofree double *sizes = cr_graph_render_measure (shown);
  gint64 start = g_get_monotonic_time ();
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new_layered (shown, sizes,
                                                                  cr_graph_render_label_size ());
  double boxed = (g_get_monotonic_time () - start) / 1000.0;
  g_autofree double *flat_sizes = cr_graph_render_measure (model);
  start = g_get_monotonic_time ();
  g_autoptr (CrGraphLayout) flat = cr_graph_layout_new_layered (model, flat_sizes,
                                                                cr_graph_render_label_size ());
  double unboxed = (g_get_monotonic_time () - start) / 1000.0;
  g_test_message ("%u nodes, %u open calls: layered layout %.1f ms with their boxes, "
                  "%.1f ms without (%.0f x %.0f points, %.0f x %.0f)", shown->nodes->len,
                  shown->clusters ? shown->clusters->len : 0, boxed, unboxed, layout->width,
                  layout->height, flat->width, flat->height);
  check_cluster_boxes (shown, layout);
}

static void
test_big_goes_layered (void)
{
  /* About 5,000 nodes: dot would take seconds. */
  g_autofree char *script = mlp_script (4, 32, 2);
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (script, NULL);
  g_assert_cmpuint (model->nodes->len, >, CR_GRAPH_LAYOUT_DOT_MAX_NODES);
  g_test_message ("%u nodes, %u edges", model->nodes->len, model->edges->len);
  g_autofree double *sizes = cr_graph_render_measure (model);
  gint64 start = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new (model, sizes,
                                                          cr_graph_render_label_size (), &error);
  double ms = (g_get_monotonic_time () - start) / 1000.0;
  g_assert_no_error (error);
  g_test_message ("laid out in %.1f ms", ms);
  check_layout (model, layout, sizes);
  g_autoptr (CrGraphLayout) layered = cr_graph_layout_new_layered (model, sizes,
                                                                   cr_graph_render_label_size ());
  g_assert_cmpfloat (layered->width, ==, layout->width);
  g_assert_cmpfloat (layered->height, ==, layout->height);
  /* Generous (sanitizers, a loaded machine): dot needs seconds here. */
  g_assert_cmpfloat (ms, <, 1500);
}

/* Top to bottom, for a pane taller than wide: the layered layout keeps
 * every promise turned a quarter, and dot puts the inputs above the loss;
 * the chain of the toy network is then taller than wide. */
static void
test_top_to_bottom (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (TOY, NULL);
  g_autofree double *sizes = cr_graph_render_measure (model);
  double label = cr_graph_render_label_size ();
  g_autoptr (CrGraphLayout) layered
    = cr_graph_layout_new_layered_directed (model, sizes, label, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  g_assert_cmpint (layered->direction, ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  check_layout (model, layered, sizes);
  g_autofree char *script = mlp_script (3, 6, 2);
  g_autoptr (CrGraphModel) mlp = cr_ui_test_model_from_script (script, NULL);
  g_autofree double *mlp_sizes = cr_graph_render_measure (mlp);
  g_autoptr (CrGraphLayout) tower
    = cr_graph_layout_new_layered_directed (mlp, mlp_sizes, label, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  check_layout (mlp, tower, mlp_sizes);

  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) dot
    = cr_graph_layout_new_dot_directed (model, sizes, label, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM, &error);
  g_assert_no_error (error);
  g_autoptr (CrGraphLayout) wide = cr_graph_layout_new_dot (model, sizes, label, &error);
  g_assert_no_error (error);
  g_assert_cmpint (wide->direction, ==, CR_GRAPH_LAYOUT_LEFT_TO_RIGHT);
  g_assert_cmpfloat (dot->height / dot->width, >, wide->height / wide->width);
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphBox *s = &dot->nodes[e->from], *t = &dot->nodes[e->to];
      g_assert_cmpfloat (s->y + s->height / 2, <, t->y + t->height / 2);
      /* A label never on a box at either end. */
      const CrGraphPath *p = &dot->edges[i];
      if (p->has_label)
        g_assert_false (p->label_x > t->x && p->label_x < t->x + t->width
                        && p->label_y > t->y && p->label_y < t->y + t->height);
    }
}

/* A two-layer network's training step, as the MLP example runs it. */
#define MLP \
  "import torch\n" \
  "import torch.nn.functional as F\n" \
  "X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])\n" \
  "Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])\n" \
  "W1 = torch.tensor([[0.5, -0.4, 0.3, 0.8], [-0.6, 0.7, 0.9, -0.2]], requires_grad=True)\n" \
  "b1 = torch.tensor([0.1, 0.0, -0.1, 0.2], requires_grad=True)\n" \
  "W2 = torch.tensor([[0.7], [-0.5], [0.6], [-0.9]], requires_grad=True)\n" \
  "b2 = torch.tensor([0.05], requires_grad=True)\n" \
  "hidden = torch.tanh(X @ W1 + b1)\n" \
  "pred = torch.sigmoid(hidden @ W2 + b2)\n" \
  "loss = F.mse_loss(pred, Y)\n" \
  "loss.backward()\n"

/* Leaves beside their ops: the chain alone sets the height (the MLP's
 * nine ops were 735 points tall ranked, as each weight took a rank);
 * every box as measured, none on another, each leaf's edge coming level
 * into its op's side, the first input from the left. */
static void
test_beside (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (MLP, NULL);
  g_autofree double *sizes = cr_graph_render_measure (model);
  double label = cr_graph_render_label_size ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) ranked
    = cr_graph_layout_new_dot_directed (model, sizes, label, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM, &error);
  g_assert_no_error (error);
  g_autoptr (CrGraphLayout) beside = cr_graph_layout_new_beside (model, sizes, label, &error);
  g_assert_no_error (error);
  g_assert_false (ranked->beside);
  g_assert_true (beside->beside);
  g_assert_cmpint (beside->direction, ==, CR_GRAPH_LAYOUT_TOP_TO_BOTTOM);
  g_assert_cmpfloat (beside->height, <, 0.75 * ranked->height);
  g_test_message ("beside %.0fx%.0f pt, ranked %.0fx%.0f", beside->width, beside->height, ranked->width,
                  ranked->height);
  guint n = model->nodes->len, sides = 0;
  for (guint i = 0; i < n; i++)
    {
      const CrGraphBox *b = &beside->nodes[i];
      g_assert_cmpfloat (fabs (b->height - sizes[2 * i + 1]), <, 1e-6);
      g_assert_cmpfloat (b->x, >=, 0);
      g_assert_cmpfloat (b->y, >=, 0);
      g_assert_cmpfloat (b->x + b->width, <=, beside->width + 1e-6);
      g_assert_cmpfloat (b->y + b->height, <=, beside->height + 1e-6);
      for (guint j = i + 1; j < n; j++)
        if (boxes_overlap (b, &beside->nodes[j]))
          g_error ("nodes %u and %u overlap", i, j);
    }
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphPath *p = &beside->edges[i];
      const CrGraphBox *t = &beside->nodes[e->to];
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      g_assert_cmpuint (p->n_points, >=, 4);
      g_assert_true (p->has_arrow);
      if (to->kind != CR_GRAPH_NODE_OP || fabs (p->arrow_y - (t->y + t->height / 2)) > 1e-6)
        continue;
      /* Into the op's side, level: the left one for its first input. */
      gboolean from_left = fabs (p->arrow_x - t->x) < 1e-6;
      g_assert_true (from_left || fabs (p->arrow_x - (t->x + t->width)) < 1e-6);
      g_assert_cmpint (from_left, ==, e->input == 0);
      sides++;
    }
  /* X and W1 by the first matmul, b1, W2, b2 and Y by theirs. */
  g_assert_cmpuint (sides, ==, 6);
}

static void
test_empty (void)
{
  g_autoptr (CrGraphModel) model = cr_graph_model_new ();
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new_layered (model, NULL,
                                                                  cr_graph_render_label_size ());
  g_assert_cmpuint (layout->n_nodes, ==, 0);
  g_assert_cmpuint (layout->n_edges, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graph-layout/layered-toy", test_layered_toy);
  g_test_add_func ("/ui/graph-layout/layered-mlp", test_layered_mlp);
  g_test_add_func ("/ui/graph-layout/big-goes-layered", test_big_goes_layered);
  g_test_add_func ("/ui/graph-layout/layered-boxes", test_layered_boxes);
  g_test_add_func ("/ui/graph-layout/layered-boxes-big", test_layered_boxes_big);
  g_test_add_func ("/ui/graph-layout/top-to-bottom", test_top_to_bottom);
  g_test_add_func ("/ui/graph-layout/beside", test_beside);
  g_test_add_func ("/ui/graph-layout/empty", test_empty);
  return g_test_run ();
}
