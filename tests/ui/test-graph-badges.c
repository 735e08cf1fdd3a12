/* test-graph-badges.c — what the graph draws of the run record as of a
 * step (render/cr-graph-render-badges.c), on the records of small scripts:
 * no gradient before backward, each gradient by its edge as its step sends
 * it, a leaf's .grad once written (after its hook), a hook's name, the
 * failing node of an in-place error and its culprit, and "freed" never on
 * ops that saved nothing; an error inside a closed module call on its
 * group; captions of ops made in a loop with their iterations. Headless:
 * the ASan build runs it. */
#include "cr-graph-groups.h"
#include "cr-graph-regions.h"
#include "cr-graph-render.h"
#include "cr-graph-render-badges.h"
#include "cr-script-run.h"
#include "ui-test-util.h"

#include <string.h>

/* The badges' texts of model drawn at step. */
static GPtrArray *
badges_at (const CrGraphModel  *model,
           const CrGraphLayout *layout,
           int                  step)
{
  GPtrArray *drawn = g_ptr_array_new_with_free_func (g_free);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 64, 64);
  cairo_t *cr = cairo_create (surface);
  CrGraphBadgeOptions options = { .current_step = step, .k = 1, .lw = 1, .drawn = drawn };
  cr_graph_render_badges (cr, model, layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return drawn;
}

static gboolean
has_text (GPtrArray  *drawn,
          const char *text)
{
  for (guint i = 0; i < drawn->len; i++)
    if (strcmp (g_ptr_array_index (drawn, i), text) == 0)
      return TRUE;
  return FALSE;
}

static void
test_badges (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
    "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = (x * b).sum()\n"
    "b.register_hook(lambda g: g * 10)\n"
    "y.backward()\n", "bc.py");
  g_assert_nonnull (model);
  g_assert_nonnull (model->record);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  g_assert_nonnull (layout);

  /* Before backward: no gradient on the graph yet. */
  g_autoptr (GPtrArray) before = badges_at (model, layout, -1);
  g_assert_cmpuint (before->len, ==, 0);

  /* After MulBackward0 (step 2): b's gradient [5, 7, 9] by its edge. */
  g_autoptr (GPtrArray) mul = badges_at (model, layout, 1);
  g_assert_true (has_text (mul, "[5, 7, 9]"));
  g_assert_false (has_text (mul, ".grad [50, 70, 90]"));

  /* At the end: b.grad written, after the hook multiplied it by 10. */
  g_autoptr (GPtrArray) end = badges_at (model, layout, (int) model->n_steps - 1);
  g_assert_true (has_text (end, ".grad [50, 70, 90]"));
  g_assert_true (has_text (end, "hook <lambda>"));
  /* Drawn as its .grad now, not also by the edge. */
  g_assert_false (has_text (end, "[5, 7, 9]"));
}

static void
test_badges_error (void)
{
  /* A run that fails, as the window makes it. */
  CrInterpOptions run_options = { 0 };
  CrScriptRun run;
  cr_script_run ("import torch\n"
                 "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                 "b = a * 2\n"
                 "c = b.sigmoid()\n"
                 "c.add_(1)\n"
                 "L = c.sum()\n"
                 "L.backward()\n", -1, "inplace.py", &run_options, FALSE, &run);
  g_assert_nonnull (run.message);
  g_assert_nonnull (run.models);
  g_assert_cmpuint (run.models->len, ==, 1);
  g_autoptr (CrGraphModel) model = cr_graph_model_ref (g_ptr_array_index (run.models, 0));
  cr_script_run_clear (&run);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  g_autoptr (GPtrArray) drawn = badges_at (model, layout, -1);
  /* The failing node and the culprit, from the start. */
  g_assert_true (has_text (drawn, "✕ RuntimeError"));
  g_assert_true (has_text (drawn, "modified in place · line 5"));
  /* The culprit's saved tensor is "modified", never "freed". */
  const CrGraphNode *sigmoid = NULL;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (g_strcmp0 (n->title, "SigmoidBackward0") == 0)
        sigmoid = n;
    }
  g_assert_nonnull (sigmoid);
  g_assert_false (cr_graph_render_badges_op_freed (model, sigmoid, (int) model->n_steps - 1));
  /* Ops that saved nothing are never drawn "freed", even after they ran. */
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (g_strcmp0 (n->title, "AddBackward0") == 0 || g_strcmp0 (n->title, "SumBackward0") == 0)
        g_assert_false (cr_graph_render_badges_op_freed (model, n, (int) model->n_steps - 1));
    }
}

/* A failing op inside a closed module call: the group's node carries the
 * error's ring and tag (and the culprit's), until the group is opened. */
/* Whether a badge's text starts with prefix. */
static gboolean
has_prefix (GPtrArray  *drawn,
            const char *prefix)
{
  for (guint i = 0; i < drawn->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (drawn, i), prefix))
      return TRUE;
  return FALSE;
}

/* The coach's findings ring their node: a forgotten zero_grad shows the
 * parameter's .grad growing over the call drawn (not on the first call,
 * before it grew); an update outside no_grad rings the op it recorded. */
static void
test_badges_findings (void)
{
  CrInterpOptions run_options = { .coach = TRUE };
  CrScriptRun run;
  cr_script_run ("import torch\n"
                 "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                 "opt = torch.optim.SGD([w], lr=0.1)\n"
                 "for i in range(3):\n"
                 "    loss = (w * w).sum()\n"
                 "    loss.backward()\n"
                 "    opt.step()\n", -1, "zero.py", &run_options, TRUE, &run);
  g_assert_null (run.message);
  g_assert_cmpuint (run.models->len, ==, 3);
  g_autoptr (GPtrArray) models = g_ptr_array_ref (run.models);
  cr_script_run_clear (&run);
  CrGraphModel *first = g_ptr_array_index (models, 0), *last = g_ptr_array_index (models, 2);
  g_assert_cmpuint (last->record->findings->len, ==, 1);
  g_autoptr (CrGraphLayout) first_layout = cr_graph_render_layout (first, NULL);
  g_autoptr (GPtrArray) first_drawn = badges_at (first, first_layout, -1);
  g_assert_false (has_prefix (first_drawn, "⚠"));
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (last, NULL);
  g_autoptr (GPtrArray) drawn = badges_at (last, layout, -1);
  /* w after two updates, each with the sum of the gradients so far:
   * [0.8, -1.6] then [0.44, -0.88]; .grad held [3.6, -7.2] and adds
   * 2w = [0.88, -1.76]. */
  g_assert_true (has_text (drawn, "⚠ .grad adds up: [3.6, -7.2] → [4.48, -8.96]"));

  cr_script_run ("import torch\n"
                 "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                 "for i in range(2):\n"
                 "    loss = (w * w).sum()\n"
                 "    loss.backward(retain_graph=True)\n"
                 "    w = w - 0.1 * w.grad\n", -1, "update.py", &run_options, FALSE, &run);
  g_autoptr (CrGraphModel) model = cr_graph_model_ref (g_ptr_array_index (run.models, run.models->len - 1));
  cr_script_run_clear (&run);
  g_assert_cmpuint (model->record->findings->len, >=, 1);
  g_autoptr (CrGraphLayout) update_layout = cr_graph_render_layout (model, NULL);
  g_autoptr (GPtrArray) update_drawn = badges_at (model, update_layout, -1);
  g_assert_true (has_prefix (update_drawn, "⚠ line 6: no longer a leaf"));
}

static void
test_badges_error_in_group (void)
{
  CrInterpOptions run_options = { 0 };
  CrScriptRun run;
  cr_script_run ("import torch\n"
                 "import torch.nn as nn\n"
                 "class Block(nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.fc = nn.Linear(3, 3)\n"
                 "    def forward(self, x):\n"
                 "        h = torch.sigmoid(self.fc(x))\n"
                 "        h.add_(1)\n"
                 "        return h\n"
                 "block = Block()\n"
                 "x = torch.ones(2, 3)\n"
                 "L = block(x).sum()\n"
                 "L.backward()\n", -1, "group.py", &run_options, FALSE, &run);
  g_assert_nonnull (run.message);
  g_assert_cmpuint (run.models->len, ==, 1);
  g_autoptr (CrGraphModel) model = cr_graph_model_ref (g_ptr_array_index (run.models, 0));
  cr_script_run_clear (&run);
  g_autoptr (CrGraphGroups) groups = cr_graph_groups_new (model);
  g_assert_cmpuint (groups->height, >, 0);

  /* Every group closed: the failing SigmoidBackward0 is hidden in one. */
  g_autofree gboolean *closed = cr_graph_groups_open_to_level (groups, 0);
  g_autoptr (CrGraphCollapse) collapse = cr_graph_collapse_new (groups, closed);
  const CrRecordError *e = g_ptr_array_index (model->record->errors, 0);
  const CrGraphNode *failing = cr_graph_model_find_op (collapse->model, e->op);
  g_assert_nonnull (failing);
  g_assert_cmpint (failing->kind, ==, CR_GRAPH_NODE_GROUP);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (collapse->model, NULL);
  g_autoptr (GPtrArray) drawn = badges_at (collapse->model, layout, -1);
  g_assert_true (has_text (drawn, "✕ RuntimeError"));
  g_assert_true (has_text (drawn, "modified in place · line 9"));

  /* Open: on the op itself, as without groups. */
  g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
  g_autoptr (CrGraphCollapse) opened = cr_graph_collapse_new (groups, open);
  failing = cr_graph_model_find_op (opened->model, e->op);
  g_assert_cmpstr (failing->title, ==, "SigmoidBackward0");
  g_autoptr (CrGraphLayout) open_layout = cr_graph_render_layout (opened->model, NULL);
  g_autoptr (GPtrArray) open_drawn = badges_at (opened->model, open_layout, -1);
  g_assert_true (has_text (open_drawn, "✕ RuntimeError"));
  g_assert_true (has_text (open_drawn, "modified in place · line 9"));
}

/* The graph's captions in a loop tell its iterations apart, as the
 * record's labels do (not three times "y = y * w"). */
static void
test_loop_captions (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "w = torch.tensor(2.0, requires_grad=True)\n"
    "y = torch.tensor(1.0)\n"
    "for i in range(3):\n"
    "    y = y * w\n"
    "y.backward()\n", "loop.py");
  g_assert_nonnull (model);
  g_autoptr (GPtrArray) captions = g_ptr_array_new ();
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_OP)
        g_ptr_array_add (captions, n->caption);
    }
  g_assert_cmpuint (captions->len, ==, 3);
  g_assert_true (has_text (captions, "y₁ = y * w"));
  g_assert_true (has_text (captions, "y₂ = y₁ * w"));
  g_assert_true (has_text (captions, "y₃ = y₂ * w"));
}

/* ---- nothing drawn on anything else -------------------------------------- */

typedef struct {
  double      x0, y0, x1, y1;
  int         node;             /* a node's box: its id; a badge: the node it sits on */
  gboolean    is_node;
  const char *what;
} Item;

static gboolean
items_meet (const Item *a,
            const Item *b)
{
  const double eps = 0.01;
  return a->x0 < b->x1 - eps && b->x0 < a->x1 - eps && a->y0 < b->y1 - eps && b->y0 < a->y1 - eps;
}

/* One frame of model at step: no badge, shape label or tensor name lies on
 * a node (a badge may lie on the node it is about), on a label or on
 * another badge. Returns how many badges it drew. */
static guint
check_frame (const CrGraphModel  *model,
             const CrGraphLayout *layout,
             const double        *label_boxes,
             int                  step,
             double               k,
             const char          *what)
{
  g_autoptr (GPtrArray) drawn = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) placed = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 8, 8);
  cairo_t *cr = cairo_create (surface);
  CrGraphBadgeOptions options = {
    .current_step = step, .k = k, .lw = k, .drawn = drawn, .label_boxes = label_boxes,
    .placed = placed,
  };
  cr_graph_render_badges (cr, model, layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_assert_cmpuint (drawn->len, ==, placed->len);

  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (Item));
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      Item it = { b->x, b->y, b->x + b->width, b->y + b->height, (int) i, TRUE, n->title };
      g_array_append_val (items, it);
    }
  for (guint i = 0; i < layout->n_edges; i++)
    {
      const double *b = label_boxes + CR_GRAPH_BADGES_LABEL_BOX * i;
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (b[2] > b[0])
        {
          Item it = { b[0], b[1], b[2], b[3], -1, FALSE, e->label };
          g_array_append_val (items, it);
        }
      if (b[6] > b[4])
        {
          Item it = { b[4], b[5], b[6], b[7], -1, FALSE, e->tensor_name };
          g_array_append_val (items, it);
        }
    }
  /* The titles of open groups' and no_grad regions' boxes: labels and
   * badges keep clear of them. */
  g_autoptr (GArray) titles = cr_graph_badges_title_boxes (model, layout, k);
  guint n_groups = model->clusters ? model->clusters->len : 0;
  g_autoptr (GArray) regions = cr_graph_regions_boxes (model, layout, k);
  g_assert_cmpuint (titles->len, ==, (layout->n_clusters == n_groups ? n_groups : 0) + regions->len);
  for (guint i = 0; i < titles->len; i++)
    {
      const CrGraphBadgeBox *t = &g_array_index (titles, CrGraphBadgeBox, i);
      const char *title = i < titles->len - regions->len
                            ? ((CrGraphCluster *) g_ptr_array_index (model->clusters, i))->title
                            : g_array_index (regions, CrGraphRegionBox, i - (titles->len - regions->len)).title;
      /* Not a node's own badge: -2 is no node. */
      Item it = { t->x0, t->y0, t->x1, t->y1, -2, TRUE, title };
      g_array_append_val (items, it);
    }
  for (guint i = 0; i < placed->len; i++)
    {
      const CrGraphBadgeBox *b = &g_array_index (placed, CrGraphBadgeBox, i);
      Item it = { b->x0, b->y0, b->x1, b->y1, b->node, FALSE, g_ptr_array_index (drawn, i) };
      g_array_append_val (items, it);
    }
  const Item *it = (const Item *) items->data;
  for (guint i = 0; i < items->len; i++)
    for (guint j = i + 1; j < items->len; j++)
      {
        if (it[i].is_node && it[j].is_node)
          continue;
        /* A badge on its own node (a hook's tag, "freed"). */
        if ((it[i].is_node && it[j].node == it[i].node) || (it[j].is_node && it[i].node == it[j].node))
          continue;
        if (items_meet (&it[i], &it[j]))
          g_error ("%s, step %d: '%s' (%g, %g – %g, %g) lies on '%s' (%g, %g – %g, %g)", what,
                   step + 1, it[j].what, it[j].x0, it[j].y0, it[j].x1, it[j].y1, it[i].what,
                   it[i].x0, it[i].y0, it[i].x1, it[i].y1);
      }
  /* Nor on the ring around the current step's node (the node whose step
   * it is; 4 points out, 3 lines wide, as cr-graph-render.c draws it): in
   * the presented notebook shot two gradients touched LogBackward0's. */
  const CrGraphNode *now = NULL;
  for (guint i = 0; step >= 0 && i < layout->n_nodes && !now; i++)
    if (((const CrGraphNode *) g_ptr_array_index (model->nodes, i))->step == step)
      now = g_ptr_array_index (model->nodes, i);
  if (now)
    {
      const CrGraphBox *b = &layout->nodes[now->id];
      double r = 4 * k + 1.5 * k;
      Item ring = { b->x - r, b->y - r, b->x + b->width + r, b->y + b->height + r, (int) now->id, TRUE,
                    "the current step's ring" };
      for (guint i = 0; i < placed->len; i++)
        {
          const CrGraphBadgeBox *p = &g_array_index (placed, CrGraphBadgeBox, i);
          Item badge = { p->x0, p->y0, p->x1, p->y1, p->node, FALSE, g_ptr_array_index (drawn, i) };
          if (badge.node != ring.node && items_meet (&ring, &badge))
            g_error ("%s, step %d: '%s' (%g, %g – %g, %g) lies on %s (%g, %g – %g, %g)", what, step + 1,
                     badge.what, badge.x0, badge.y0, badge.x1, badge.y1, ring.what, ring.x0, ring.y0,
                     ring.x1, ring.y1);
        }
    }
  return placed->len;
}

/* Model at every step, left to right, top to bottom and with its leaves
 * beside their ops (where it has such leaves), in the window's and in
 * presentation's sizes; *frames and *badges count what it checked. */
static void
check_model (const CrGraphModel *model,
             const char         *name,
             guint              *frames,
             guint              *badges)
{
  for (int present = 0; present < 2; present++)
    for (int down = 0; down < 3; down++)
      {
        CrGraphRenderCache *cache = cr_graph_render_cache_new (model, present);
        double k = present ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0;
        g_autoptr (GError) error = NULL;
        g_autoptr (CrGraphLayout) layout =
          down == 2 ? cr_graph_layout_new_beside (model, cr_graph_render_cache_sizes (cache),
                                                  cr_graph_render_label_size () * k, &error)
                    : cr_graph_render_layout_directed (model, cache, down ? CR_GRAPH_LAYOUT_TOP_TO_BOTTOM
                                                                          : CR_GRAPH_LAYOUT_LEFT_TO_RIGHT,
                                                       &error);
        g_assert_no_error (error);
        if (down == 2 && !layout->beside)
          {
            cr_graph_render_cache_free (cache);
            continue;
          }
        g_autofree double *boxes = cr_graph_render_label_boxes (cache, layout);
        cr_graph_render_cache_free (cache);
        g_autofree char *what = g_strdup_printf ("%s%s%s", name,
                                                 down == 2 ? " beside" : down ? " top to bottom" : "",
                                                 present ? " (presentation)" : "");
        for (int step = -1; step < (int) model->n_steps; step++, (*frames)++)
          *badges += check_frame (model, layout, boxes, step, k, what);
      }
}

/* Model's collapsed views as the window shows them: the first view, each
 * level, and each group open with its ancestors (the rest closed), so
 * that open groups' titles meet edges and closed groups' nodes. */
static void
check_collapsed_views (CrGraphModel *model,
                       const char   *name,
                       guint        *views,
                       guint        *frames,
                       guint        *badges)
{
  CrGraphGroups *groups = cr_graph_groups_new (model);
  GPtrArray *opens = g_ptr_array_new_with_free_func (g_free);
  /* 40: the window's first view (CR_GRAPH_CANVAS_GROUP_NODES). */
  g_ptr_array_add (opens, cr_graph_groups_open_first_view (groups, 40, NULL));
  for (guint level = 1; level <= groups->height; level++)
    g_ptr_array_add (opens, cr_graph_groups_open_to_level (groups, level));
  for (guint g = 0; groups->groups->len <= 40 && g < groups->groups->len; g++)
    {
      gboolean *open = g_new0 (gboolean, groups->groups->len);
      for (int p = (int) g; p >= 0; p = cr_graph_groups_get (groups, p)->parent)
        open[p] = TRUE;
      g_ptr_array_add (opens, open);
    }
  for (guint i = 0; groups->height > 0 && i < opens->len; i++)
    {
      CrGraphCollapse *collapse = cr_graph_collapse_new (groups, g_ptr_array_index (opens, i));
      g_autofree char *what = g_strdup_printf ("%s, view %u", name, i);
      check_model (collapse->model, what, frames, badges);
      cr_graph_collapse_free (collapse);
      (*views)++;
    }
  g_ptr_array_unref (opens);
  cr_graph_groups_free (groups);
}

/* Every example and the nested loops' script, whole and in collapsed
 * views: nothing lies on anything else. */
static void
test_never_overlap (void)
{
  g_autoptr (GDir) d = g_dir_open (CR_SOURCE_EXAMPLES_DIR, 0, NULL);
  g_assert_nonnull (d);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".py"))
      g_ptr_array_add (paths, g_build_filename (CR_SOURCE_EXAMPLES_DIR, name, NULL));
  g_ptr_array_add (paths, g_build_filename (CR_SOURCE_EXAMPLES_DIR, "..", "..", "tests", "record",
                                            "scripts", "nested_loops.py", NULL));
  guint frames = 0, badges = 0, views = 0;
  for (guint p = 0; p < paths->len; p++)
    {
      const char *path = g_ptr_array_index (paths, p);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, base, NULL);
      for (guint m = 0; m < models->len; m++)
        {
          CrGraphModel *model = g_ptr_array_index (models, m);
          g_autofree char *what = g_strdup_printf ("%s model %u", base, m);
          check_model (model, what, &frames, &badges);
          check_collapsed_views (model, what, &views, &frames, &badges);
        }
    }
  g_test_message ("%u frames (%u collapsed views), %u badges: none on another, a label, a "
                  "node or a title", frames, views, badges);
  g_assert_cmpuint (frames, >, 100);
  g_assert_cmpuint (views, >, 10);
}

/* A label the layout put on a title moves along its edge past it; one
 * on a node still goes. By hand: an edge straight down from (50, 20) to
 * (50, 120), its label's place at (50, 60). */
static void
test_label_past_title (void)
{
  CrGraphBox nodes[2] = { { 20, 0, 60, 20 }, { 20, 120, 60, 20 } };
  double points[8] = { 50, 20, 50, 53, 50, 87, 50, 120 };
  CrGraphPath edge = { .n_points = 4, .points = points, .has_label = TRUE,
                       .label_x = 50, .label_y = 60 };
  CrGraphLayout layout = { .width = 100, .height = 140, .n_nodes = 2, .nodes = nodes,
                           .n_edges = 1, .edges = &edge };
  const double sizes[4] = { 20, 10, 0, 0 };
  g_autoptr (GArray) titles = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  CrGraphBadgeBox title = { 10, 52, 90, 66, -1 };
  g_array_append_val (titles, title);

  g_autofree double *moved = cr_graph_badges_label_boxes_clear_of (&layout, sizes, 1.0, titles);
  g_assert_cmpfloat (moved[2], >, moved[0]);
  g_assert_true (moved[3] <= title.y0 || moved[1] >= title.y1);
  g_assert_cmpfloat_with_epsilon ((moved[0] + moved[2]) / 2, 50, 1e-9);
  g_assert_cmpfloat (moved[1], >=, 20);
  g_assert_cmpfloat (moved[3], <=, 120);

  /* Without the title: where the layout put it. */
  g_autofree double *kept = cr_graph_badges_label_boxes (&layout, sizes, 1.0);
  g_assert_cmpfloat_with_epsilon ((kept[1] + kept[3]) / 2, 60, 1e-9);

  /* A title over the whole edge: no place, left out. */
  g_array_index (titles, CrGraphBadgeBox, 0) = (CrGraphBadgeBox) { 10, 20, 90, 120, -1 };
  g_autofree double *gone = cr_graph_badges_label_boxes_clear_of (&layout, sizes, 1.0, titles);
  g_assert_cmpfloat (gone[2], ==, 0);
}

/* What the badges cost a frame on the toy network's last step (every step's
 * labels): the canvas draws them with each frame it paints. */
static void
test_badges_time (void)
{
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "01-toy-network.py", NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, path);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1366, 768);
  cairo_t *cr = cairo_create (surface);
  CrGraphBadgeOptions options = { .current_step = (int) model->n_steps - 1, .k = 1, .lw = 1 };
  gint64 start = g_get_monotonic_time ();
  for (int i = 0; i < 20; i++)
    cr_graph_render_badges (cr, model, layout, &options);
  double ms = (g_get_monotonic_time () - start) / 1000.0 / 20;
  g_test_message ("badges of the toy network's last step: %.2f ms a frame", ms);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-badges/steps", test_badges);
  g_test_add_func ("/graph-badges/error", test_badges_error);
  g_test_add_func ("/graph-badges/error-in-group", test_badges_error_in_group);
  g_test_add_func ("/graph-badges/findings", test_badges_findings);
  g_test_add_func ("/graph-badges/loop-captions", test_loop_captions);
  g_test_add_func ("/graph-badges/time", test_badges_time);
  g_test_add_func ("/graph-badges/never-overlap", test_never_overlap);
  g_test_add_func ("/graph-badges/label-past-title", test_label_past_title);
  return g_test_run ();
}
