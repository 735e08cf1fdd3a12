/* test-graph-groups.c — module calls as groups over a graph model, "× N"
 * folds, levels, and the collapse of a model into a smaller one, on models
 * and module calls built by hand. */
#include "cr-graph-groups.h"
#include "cr-graph-groups-private.h"
#include "cr-record-text.h"
#include "ui-test-util.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
  CrRunRecord            *record;
  CrGraphModel           *model;
  GArray                 *facts;   /* of CrGraphGroupsNodeFacts, by node */
} Fixture;

static void
fixture_init (Fixture *f)
{
  f->record = cr_run_record_new ("t.py", NULL);
  f->model = cr_graph_model_new ();
  f->facts = g_array_new (FALSE, TRUE, sizeof (CrGraphGroupsNodeFacts));
}

static void
fixture_clear (Fixture *f)
{
  cr_graph_model_unref (f->model);
  cr_run_record_unref (f->record);
  g_array_unref (f->facts);
}

static int
add_call (Fixture    *f,
          const char *path,
          const char *class_name,
          int         parent)
{
  CrRecordModuleCall *c = cr_run_record_add_module_call (f->record);
  c->path = g_strdup (path);
  c->class_name = g_strdup (class_name);
  c->parent = parent;
  c->depth = parent < 0 ? 0 : ((CrRecordModuleCall *) g_ptr_array_index (f->record->module_calls, parent))->depth + 1;
  return (int) c->id;
}

static guint
add_node (Fixture         *f,
          CrGraphNodeKind  kind,
          const char      *title,
          int              call,
          gboolean         parameter)
{
  CrGraphNode *n = cr_graph_model_add_node (f->model, kind, title);
  n->key = g_strdup_printf ("%s:%u", title, n->id);
  CrGraphGroupsNodeFacts facts = { call, 0, parameter };
  g_array_append_val (f->facts, facts);
  return n->id;
}

static void
add_edge (Fixture *f,
          guint    from,
          guint    to)
{
  cr_graph_model_add_edge (f->model, from, to, g_strdup ("3"));
}

static CrGraphGroups *
groups_new (Fixture *f)
{
  return cr_graph_groups_new_with_facts (f->model, (CrGraphGroupsNodeFacts *) f->facts->data,
                                         f->record->module_calls);
}

/* x -> Net(fc1: Linear (weight), relu: ReLU, fc2: Linear) -> L */
typedef struct {
  guint x, w1, acc1, mm1, relu, w2, mm2, out;
} Net;

static Net
build_net (Fixture *f)
{
  Net n;
  int net = add_call (f, "", "Net", -1);
  int fc1 = add_call (f, "fc1", "Linear", net);
  int relu = add_call (f, "relu", "ReLU", net);
  int fc2 = add_call (f, "fc2", "Linear", net);
  n.x = add_node (f, CR_GRAPH_NODE_CONSTANT, "x", -1, FALSE);
  n.w1 = add_node (f, CR_GRAPH_NODE_LEAF, "fc1.weight", -1, TRUE);
  n.acc1 = add_node (f, CR_GRAPH_NODE_ACCUMULATE, "AccumulateGrad", -1, TRUE);
  n.mm1 = add_node (f, CR_GRAPH_NODE_OP, "MmBackward0", fc1, FALSE);
  n.relu = add_node (f, CR_GRAPH_NODE_OP, "ReluBackward0", relu, FALSE);
  n.w2 = add_node (f, CR_GRAPH_NODE_LEAF, "fc2.weight", -1, TRUE);
  n.mm2 = add_node (f, CR_GRAPH_NODE_OP, "MmBackward0", fc2, FALSE);
  n.out = add_node (f, CR_GRAPH_NODE_OUTPUT, "L", -1, FALSE);
  add_edge (f, n.x, n.mm1);
  /* As a backward call's graph draws it: the leaf feeds its AccumulateGrad,
   * which feeds the op. */
  add_edge (f, n.w1, n.acc1);
  add_edge (f, n.acc1, n.mm1);
  add_edge (f, n.mm1, n.relu);
  add_edge (f, n.relu, n.mm2);
  add_edge (f, n.w2, n.mm2);
  add_edge (f, n.mm2, n.out);
  return n;
}

static const CrGraphGroup *
group_of (const CrGraphGroups *g,
          guint                node)
{
  return cr_graph_groups_get (g, g->node_group[node]);
}

static void
test_module_tree (void)
{
  Fixture f;
  fixture_init (&f);
  Net n = build_net (&f);
  g_autoptr (CrGraphGroups) g = groups_new (&f);

  g_assert_cmpuint (g->groups->len, ==, 4);
  g_assert_cmpuint (g->top->len, ==, 1);
  g_assert_cmpuint (g->height, ==, 2);
  const CrGraphGroup *net = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpstr (net->title, ==, "Net");
  g_assert_cmpint (net->kind, ==, CR_GRAPH_GROUP_MODULE);
  g_assert_cmpuint (net->children->len, ==, 3);
  g_assert_cmpuint (net->n_ops, ==, 3);
  const CrGraphGroup *fc1 = cr_graph_groups_get (g, g_array_index (net->children, guint, 0));
  g_assert_cmpstr (fc1->title, ==, "fc1 · Linear");
  g_assert_cmpuint (fc1->level, ==, 1);
  g_assert_cmpint (fc1->parent, ==, (int) net->id);
  g_assert_cmpstr (cr_graph_groups_get (g, g_array_index (net->children, guint, 1))->title, ==,
                   "relu · ReLU");
  /* A parameter goes in the call that uses it, its AccumulateGrad with it;
   * the input and the output stay outside. */
  g_assert_true (group_of (g, n.mm1) == fc1);
  g_assert_true (group_of (g, n.w1) == fc1);
  g_assert_true (group_of (g, n.acc1) == fc1);
  g_assert_cmpstr (group_of (g, n.w2)->title, ==, "fc2 · Linear");
  g_assert_cmpint (g->node_group[n.x], ==, -1);
  g_assert_cmpint (g->node_group[n.out], ==, -1);
  g_assert_true (cr_graph_groups_contains (g, net->id, n.w2));
  g_assert_false (cr_graph_groups_contains (g, fc1->id, n.w2));
  g_assert_nonnull (cr_graph_groups_find_key (g, fc1->key));
  g_assert_true (cr_graph_groups_find_key (g, fc1->key) == fc1);

  /* Levels: 0 shows Net closed; 1 its three calls closed; 2 everything. */
  g_autofree gboolean *open0 = cr_graph_groups_open_to_level (g, 0);
  g_autofree gboolean *open1 = cr_graph_groups_open_to_level (g, 1);
  g_autofree gboolean *open2 = cr_graph_groups_open_to_level (g, 2);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open0), ==, 3);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open1), ==, 5);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open2), ==, 8);
  g_assert_cmpuint (cr_graph_groups_level_for (g, 100), ==, 2);
  g_assert_cmpuint (cr_graph_groups_level_for (g, 5), ==, 1);
  g_assert_cmpuint (cr_graph_groups_level_for (g, 2), ==, 0);
  g_assert_cmpint (cr_graph_groups_closed_group_of (g, open1, n.w1), ==, (int) fc1->id);
  g_assert_cmpint (cr_graph_groups_closed_group_of (g, open0, n.w1), ==, (int) net->id);
  g_assert_true (cr_graph_groups_node_visible (g, open2, n.w1));
  g_assert_true (cr_graph_groups_node_visible (g, open0, n.x));
  fixture_clear (&f);
}

static gboolean
has_edge (const CrGraphModel *m,
          guint               from,
          guint               to)
{
  for (guint i = 0; i < m->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (m->edges, i);
      if (e->from == from && e->to == to)
        return TRUE;
    }
  return FALSE;
}

static void
test_collapse (void)
{
  Fixture f;
  fixture_init (&f);
  Net n = build_net (&f);
  ((CrGraphNode *) g_ptr_array_index (f.model->nodes, n.mm2))->step = 0;
  ((CrGraphNode *) g_ptr_array_index (f.model->nodes, n.relu))->step = 1;
  ((CrGraphNode *) g_ptr_array_index (f.model->nodes, n.mm1))->step = 2;
  ((CrGraphNode *) g_ptr_array_index (f.model->nodes, n.acc1))->step = 3;
  f.model->n_steps = 4;
  g_autoptr (CrGraphGroups) g = groups_new (&f);

  /* Net open, its calls closed: x -> fc1 -> relu -> fc2 -> L. */
  g_autofree gboolean *open = cr_graph_groups_open_to_level (g, 1);
  g_autoptr (CrGraphCollapse) c = cr_graph_collapse_new (g, open);
  const CrGraphModel *m = c->model;
  g_assert_cmpuint (m->nodes->len, ==, 5);
  guint x = c->node_of[n.x], fc1 = c->node_of[n.mm1], relu = c->node_of[n.relu];
  guint fc2 = c->node_of[n.mm2], out = c->node_of[n.out];
  g_assert_cmpuint (c->node_of[n.w1], ==, fc1);
  g_assert_cmpuint (c->node_of[n.acc1], ==, fc1);
  const CrGraphNode *fc1_node = g_ptr_array_index (m->nodes, fc1);
  g_assert_cmpint (fc1_node->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_cmpstr (fc1_node->title, ==, "fc1 · Linear");
  g_assert_cmpint (fc1_node->step, ==, 2);
  g_assert_cmpint (c->group_of[fc1], ==, g->node_group[n.mm1]);
  g_assert_cmpuint (c->full_node[x], ==, n.x);
  g_assert_cmpuint (c->full_node[fc1], ==, G_MAXUINT);
  g_assert_cmpstr (((CrGraphNode *) g_ptr_array_index (m->nodes, x))->title, ==, "x");
  g_assert_cmpuint (m->edges->len, ==, 4);
  g_assert_true (has_edge (m, x, fc1));
  g_assert_true (has_edge (m, fc1, relu));
  g_assert_true (has_edge (m, relu, fc2));
  g_assert_true (has_edge (m, fc2, out));
  g_assert_cmpuint (m->n_steps, ==, 4);
  /* Net is open: one box, a cluster for the layout, holding the calls. */
  g_assert_cmpuint (c->boxes->len, ==, 1);
  g_assert_nonnull (m->clusters);
  g_assert_cmpuint (m->clusters->len, ==, 1);
  const CrGraphCluster *net_cluster = g_ptr_array_index (m->clusters, 0);
  g_assert_cmpstr (net_cluster->title, ==, "Net");
  g_assert_cmpint (net_cluster->parent, ==, -1);
  g_assert_cmpuint (net_cluster->nodes->len, ==, 3);

  /* Stepping: fc1's two steps (MmBackward0, AccumulateGrad) are one unit. */
  g_assert_cmpint (cr_graph_collapse_next_step (c, -1, 1), ==, 0);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 1, 1), ==, 3);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 2, 1), ==, 3);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 3, 1), ==, 4);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 3, -1), ==, 1);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 2, -1), ==, 1);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 1, -1), ==, 0);
  g_assert_cmpint (cr_graph_collapse_next_step (c, 0, -1), ==, -1);
  g_assert_cmpuint (c->step_node[3], ==, fc1);

  /* All open: the same graph as the full model. */
  g_autofree gboolean *all = cr_graph_groups_open_to_level (g, g->height);
  g_autoptr (CrGraphCollapse) whole = cr_graph_collapse_new (g, all);
  g_assert_cmpuint (whole->model->nodes->len, ==, f.model->nodes->len);
  g_assert_cmpuint (whole->model->edges->len, ==, f.model->edges->len);
  /* Nested clusters: Net, then its three calls inside it. */
  g_assert_cmpuint (whole->model->clusters->len, ==, 4);
  g_assert_cmpint (((CrGraphCluster *) g_ptr_array_index (whole->model->clusters, 1))->parent, ==, 0);
  const CrGraphCluster *fc1_cluster = g_ptr_array_index (whole->model->clusters, 1);
  g_assert_cmpstr (fc1_cluster->title, ==, "fc1 · Linear");
  g_assert_cmpuint (fc1_cluster->nodes->len, ==, 3);   /* weight, its AccumulateGrad, mm */
  /* The layout keeps each call's nodes inside its box. */
  g_autofree double *sizes = g_new (double, 2 * whole->model->nodes->len);
  for (guint i = 0; i < whole->model->nodes->len; i++)
    {
      sizes[2 * i] = 60;
      sizes[2 * i + 1] = 30;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGraphLayout) layout = cr_graph_layout_new (whole->model, sizes, 8.0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (layout->n_clusters, ==, 4);
  for (guint i = 0; i < whole->model->clusters->len; i++)
    {
      const CrGraphCluster *cl = g_ptr_array_index (whole->model->clusters, i);
      const CrGraphBox *box = &layout->clusters[i];
      for (guint k = 0; k < cl->nodes->len; k++)
        {
          const CrGraphBox *b = &layout->nodes[g_array_index (cl->nodes, guint, k)];
          g_assert_cmpfloat (b->x, >=, box->x - 0.5);
          g_assert_cmpfloat (b->y, >=, box->y - 0.5);
          g_assert_cmpfloat (b->x + b->width, <=, box->x + box->width + 0.5);
          g_assert_cmpfloat (b->y + b->height, <=, box->y + box->height + 0.5);
        }
    }
  for (guint i = 0; i < f.model->nodes->len; i++)
    g_assert_cmpuint (whole->full_node[whole->node_of[i]], ==, i);
  g_assert_cmpint (cr_graph_collapse_next_step (whole, 2, 1), ==, 3);
  fixture_clear (&f);
}

/* layers: Sequential of three equal Blocks (each a Linear), then a head. */
static void
test_fold_equal_blocks (void)
{
  Fixture f;
  fixture_init (&f);
  int seq = add_call (&f, "layers", "Sequential", -1);
  guint prev = add_node (&f, CR_GRAPH_NODE_CONSTANT, "x", -1, FALSE);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *path = g_strdup_printf ("layers.%d", i);
      g_autofree char *lin = g_strdup_printf ("layers.%d.lin", i);
      int block = add_call (&f, path, "Block", seq);
      int linear = add_call (&f, lin, "Linear", block);
      guint mm = add_node (&f, CR_GRAPH_NODE_OP, "MmBackward0", linear, FALSE);
      guint act = add_node (&f, CR_GRAPH_NODE_OP, "TanhBackward0", block, FALSE);
      add_edge (&f, prev, mm);
      add_edge (&f, mm, act);
      prev = act;
    }
  int head = add_call (&f, "head", "Linear", -1);
  guint mm = add_node (&f, CR_GRAPH_NODE_OP, "MmBackward0", head, FALSE);
  add_edge (&f, prev, mm);
  g_autoptr (CrGraphGroups) g = groups_new (&f);

  g_assert_cmpuint (g->top->len, ==, 2);
  const CrGraphGroup *layers = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpstr (layers->title, ==, "layers · Sequential");
  g_assert_cmpuint (layers->children->len, ==, 1);
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (layers->children, guint, 0));
  g_assert_cmpint (fold->kind, ==, CR_GRAPH_GROUP_REPEAT);
  g_assert_cmpuint (fold->repeat, ==, 3);
  g_assert_cmpstr (fold->path, ==, "layers.0–2");
  g_assert_cmpstr (fold->title, ==, "layers.0–2 · Block × 3");
  g_assert_cmpuint (fold->level, ==, 1);
  g_assert_cmpuint (fold->n_ops, ==, 6);
  const CrGraphGroup *block1 = cr_graph_groups_get (g, g_array_index (fold->children, guint, 1));
  g_assert_cmpstr (block1->title, ==, "layers.1 · Block");
  g_assert_cmpuint (block1->level, ==, 2);
  g_assert_cmpuint (g->height, ==, 4);
  /* The head is a Linear like the blocks' but not a block: no fold with them. */
  g_assert_cmpstr (cr_graph_groups_get (g, g_array_index (g->top, guint, 1))->title, ==, "head · Linear");

  /* The first view: the fold closed, everything else open. */
  guint first_level = 0;
  g_autofree gboolean *first = cr_graph_groups_open_first_view (g, 40, &first_level);
  g_assert_cmpuint (first_level, ==, 4);
  g_assert_true (first[layers->id]);
  g_assert_false (first[fold->id]);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, first), ==, 3);
  g_free (g_steal_pointer (&first));
  first = cr_graph_groups_open_first_view (g, 2, &first_level);
  g_assert_cmpuint (first_level, ==, 0);

  /* Level 1: the fold closed, one node for the three blocks. */
  g_autofree gboolean *open = cr_graph_groups_open_to_level (g, 1);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open), ==, 3);
  g_autoptr (CrGraphCollapse) c = cr_graph_collapse_new (g, open);
  g_assert_cmpuint (c->model->nodes->len, ==, 3);
  const CrGraphNode *node = g_ptr_array_index (c->model->nodes, c->node_of[1]);
  g_assert_cmpint (node->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_cmpstr (node->title, ==, "layers.0–2 · Block × 3");
  g_assert_cmpstr (node->caption, ==, "6 ops");
  g_assert_true (g_str_has_prefix (node->key, "group:"));
  /* Its key says what it stands for (the inspector titles it so). */
  g_assert_cmpint (cr_graph_group_node_kind (node), ==, CR_GRAPH_GROUP_REPEAT);
  g_autofree gboolean *open2 = cr_graph_groups_open_to_level (g, 2);
  g_autoptr (CrGraphCollapse) c2 = cr_graph_collapse_new (g, open2);
  const CrGraphNode *block = g_ptr_array_index (c2->model->nodes, c2->node_of[1]);
  g_assert_cmpint (block->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_cmpint (cr_graph_group_node_kind (block), ==, CR_GRAPH_GROUP_MODULE);

  /* Keys are unique and stable. */
  g_autoptr (GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < g->groups->len; i++)
    g_assert_true (g_hash_table_add (keys, ((CrGraphGroup *) g_ptr_array_index (g->groups, i))->key));
  fixture_clear (&f);
}

/* A user class's calls (micrograd's Neuron) group as CALL groups; calls of
 * one module twice in a row fold. */
static void
test_user_class_calls (void)
{
  Fixture f;
  fixture_init (&f);
  int mlp = add_call (&f, "", "MLP", -1);
  ((CrRecordModuleCall *) g_ptr_array_index (f.record->module_calls, mlp))->user_class = TRUE;
  guint prev = add_node (&f, CR_GRAPH_NODE_CONSTANT, "x", -1, FALSE);
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *path = g_strdup_printf ("neurons.%d", i);
      int neuron = add_call (&f, path, "Neuron", mlp);
      ((CrRecordModuleCall *) g_ptr_array_index (f.record->module_calls, neuron))->user_class = TRUE;
      guint w = add_node (&f, CR_GRAPH_NODE_LEAF, "w", -1, TRUE);
      guint mul = add_node (&f, CR_GRAPH_NODE_OP, "MulBackward0", neuron, FALSE);
      add_edge (&f, prev, mul);
      add_edge (&f, w, mul);
    }
  g_autoptr (CrGraphGroups) g = groups_new (&f);
  const CrGraphGroup *top = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpint (top->kind, ==, CR_GRAPH_GROUP_CALL);
  g_assert_cmpstr (top->title, ==, "MLP");
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (top->children, guint, 0));
  g_assert_cmpint (fold->kind, ==, CR_GRAPH_GROUP_REPEAT);
  g_assert_cmpstr (fold->title, ==, "neurons.0–1 · Neuron × 2");
  const CrGraphGroup *n0 = cr_graph_groups_get (g, g_array_index (fold->children, guint, 0));
  g_assert_cmpint (n0->kind, ==, CR_GRAPH_GROUP_CALL);
  g_assert_true (group_of (g, 1) == n0);   /* the first w */
  fixture_clear (&f);
}

/* Ops outside any call from several loop iterations: a group each. */
static void
test_iterations (void)
{
  Fixture f;
  fixture_init (&f);
  guint prev = add_node (&f, CR_GRAPH_NODE_LEAF, "h", -1, FALSE);
  for (guint i = 1; i <= 3; i++)
    {
      guint op = add_node (&f, CR_GRAPH_NODE_OP, "TanhBackward0", -1, FALSE);
      g_array_index (f.facts, CrGraphGroupsNodeFacts, op).iteration = i;
      add_edge (&f, prev, op);
      prev = op;
    }
  g_autoptr (CrGraphGroups) g = groups_new (&f);
  /* Three equal loop bodies fold. */
  g_assert_cmpuint (g->top->len, ==, 1);
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpint (fold->kind, ==, CR_GRAPH_GROUP_REPEAT);
  g_assert_cmpstr (fold->title, ==, "iterations 1–3 × 3");
  g_assert_cmpuint (fold->children->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const CrGraphGroup *it = cr_graph_groups_get (g, g_array_index (fold->children, guint, i));
      g_autofree char *title = g_strdup_printf ("iteration %u", i + 1);
      g_assert_cmpint (it->kind, ==, CR_GRAPH_GROUP_ITERATION);
      g_assert_cmpstr (it->title, ==, title);
      g_assert_cmpuint (it->nodes->len, ==, 1);
    }

  /* One iteration only (a training step's graph): no group. */
  Fixture one;
  fixture_init (&one);
  guint a = add_node (&one, CR_GRAPH_NODE_OP, "TanhBackward0", -1, FALSE);
  g_array_index (one.facts, CrGraphGroupsNodeFacts, a).iteration = 7;
  g_autoptr (CrGraphGroups) none = groups_new (&one);
  g_assert_cmpuint (none->groups->len, ==, 0);
  g_assert_cmpuint (none->height, ==, 0);
  g_assert_cmpuint (cr_graph_groups_level_for (none, 40), ==, 0);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (none, 0);
  g_autoptr (CrGraphCollapse) c = cr_graph_collapse_new (none, open);
  g_assert_cmpuint (c->model->nodes->len, ==, 1);
  fixture_clear (&one);
  fixture_clear (&f);
}

/* The tree of groups as text: "title [child, child]", top groups
 * separated by " | ". */
static void
append_tree (GString             *s,
             const CrGraphGroups *g,
             guint                group)
{
  const CrGraphGroup *x = cr_graph_groups_get (g, (int) group);
  g_string_append (s, x->title);
  if (x->children->len == 0)
    return;
  g_string_append (s, " [");
  for (guint i = 0; i < x->children->len; i++)
    {
      if (i)
        g_string_append (s, ", ");
      append_tree (s, g, g_array_index (x->children, guint, i));
    }
  g_string_append (s, "]");
}

static char *
tree_text (const CrGraphGroups *g)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < g->top->len; i++)
    {
      if (i)
        g_string_append (s, " | ");
      append_tree (s, g, g_array_index (g->top, guint, i));
    }
  return g_string_free (s, FALSE);
}

/* An op outside any call at loop path (depth numbers), after prev. */
static guint
add_loop_op (Fixture    *f,
             const char *title,
             guint       prev,
             guint       depth,
             ...)
{
  guint op = add_node (f, CR_GRAPH_NODE_OP, title, -1, FALSE);
  CrGraphGroupsNodeFacts *facts = &g_array_index (f->facts, CrGraphGroupsNodeFacts, op);
  va_list ap;
  va_start (ap, depth);
  facts->loop_depth = depth;
  for (guint i = 0; i < depth; i++)
    facts->loop_path[i] = va_arg (ap, guint);
  va_end (ap);
  facts->iteration = depth ? facts->loop_path[depth - 1] : 0;
  add_edge (f, prev, op);
  return op;
}

/* Nested loops (an epoch loop around a batch loop) fold as nested groups,
 * titled with the iteration path; a second loop at the same depth is a
 * loop of its own (its iterations never fold with the first's), and an
 * inner loop that ran once adds no level. */
static void
test_nested_iterations (void)
{
  Fixture f;
  fixture_init (&f);
  guint prev = add_node (&f, CR_GRAPH_NODE_LEAF, "w", -1, FALSE);
  for (guint e = 1; e <= 2; e++)
    {
      for (guint b = 1; b <= 3; b++)
        {
          prev = add_loop_op (&f, "MulBackward0", prev, 2, e, b);
          prev = add_loop_op (&f, "AddBackward0", prev, 2, e, b);
        }
      /* After the batches, in the epoch. */
      prev = add_loop_op (&f, "DivBackward0", prev, 1, e);
    }
  /* A second loop at the top: its iterations start again. */
  for (guint i = 1; i <= 2; i++)
    prev = add_loop_op (&f, "MulBackward0", prev, 1, i);
  /* A third whose inner loop ran once per iteration. */
  for (guint i = 1; i <= 2; i++)
    prev = add_loop_op (&f, "TanhBackward0", prev, 2, i, 1);
  g_autoptr (CrGraphGroups) g = groups_new (&f);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   "iterations 1–2 × 2 ["
                     "iteration 1 [iterations 1,1 – 1,3 × 3 [iteration 1,1, iteration 1,2, iteration 1,3]], "
                     "iteration 2 [iterations 2,1 – 2,3 × 3 [iteration 2,1, iteration 2,2, iteration 2,3]]] | "
                   "iterations 1–2 × 2 [iteration 1, iteration 2] | "
                   "iterations 1–2 × 2 [iteration 1, iteration 2]");
  const CrGraphGroup *epochs = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  const CrGraphGroup *epoch2 = cr_graph_groups_get (g, g_array_index (epochs->children, guint, 1));
  g_assert_cmpint (epoch2->kind, ==, CR_GRAPH_GROUP_ITERATION);
  g_assert_cmpuint (epoch2->loop_depth, ==, 1);
  g_assert_cmpuint (epoch2->loop_path[0], ==, 2);
  /* The epoch's own op is in it, the batches' in theirs. */
  g_assert_cmpuint (epoch2->nodes->len, ==, 1);
  g_assert_cmpuint (epoch2->n_ops, ==, 7);
  const CrGraphGroup *batches = cr_graph_groups_get (g, g_array_index (epoch2->children, guint, 0));
  const CrGraphGroup *batch = cr_graph_groups_get (g, g_array_index (batches->children, guint, 2));
  g_assert_cmpuint (batch->loop_depth, ==, 2);
  g_assert_cmpuint (batch->loop_path[0], ==, 2);
  g_assert_cmpuint (batch->loop_path[1], ==, 3);
  g_assert_cmpuint (batch->nodes->len, ==, 2);
  /* Keys differ between the two loops' "iteration 1". */
  const CrGraphGroup *second = cr_graph_groups_get (g, g_array_index (g->top, guint, 1));
  const CrGraphGroup *second1 = cr_graph_groups_get (g, g_array_index (second->children, guint, 0));
  const CrGraphGroup *epoch1 = cr_graph_groups_get (g, g_array_index (epochs->children, guint, 0));
  g_assert_cmpstr (second1->title, ==, epoch1->title);
  g_assert_cmpstr (second1->key, !=, epoch1->key);
  /* Levels: the epochs' fold, an epoch, the batches' fold, a batch. */
  g_assert_cmpuint (g->height, ==, 4);
  /* An epoch closed is a loop iteration's node. */
  g_autofree gboolean *open = cr_graph_groups_open_to_level (g, 1);
  g_autoptr (CrGraphCollapse) c = cr_graph_collapse_new (g, open);
  const CrGraphNode *closed = g_ptr_array_index (c->model->nodes, c->node_of[g_array_index (batch->nodes, guint, 0)]);
  g_assert_cmpint (closed->kind, ==, CR_GRAPH_NODE_GROUP);
  g_assert_cmpstr (closed->title, ==, "iteration 2");
  g_assert_cmpint (cr_graph_group_node_kind (closed), ==, CR_GRAPH_GROUP_ITERATION);
  fixture_clear (&f);
}

/* The source of a file in the source tree (owned). */
static char *
source_file (const char *relative)
{
  g_autofree char *path = g_build_filename (CR_SOURCE_ROOT, relative, NULL);
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/* The record script with nested loops: the backward call's graph folds
 * the first loop's two iterations, each the fold of its three inner ones,
 * and the second loop's (a function with a loop of its own, called in a
 * loop) apart from them. */
static void
test_nested_loops_script (void)
{
  g_autofree char *source = source_file ("tests/record/scripts/nested_loops.py");
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, "nested_loops.py");
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   /* Two loops at the top: each titled by its line. */
                   "line 8 · iterations 1–2 × 2 ["
                     "line 8 · iteration 1 [iterations 1,1 – 1,3 × 3 [iteration 1,1, iteration 1,2, iteration 1,3]], "
                     "line 8 · iteration 2 [iterations 2,1 – 2,3 × 3 [iteration 2,1, iteration 2,2, iteration 2,3]]] | "
                   /* scaled()'s loop: only its last h is in the graph, so
                    * no level of its own. */
                   "line 16 · iterations 1–2 × 2 [line 16 · iteration 1, line 16 · iteration 2]");
  /* Every op of a loop is in its iteration's group (of the innermost loop
   * that ran twice or more here). */
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      const CrRecordOp *op = n->kind == CR_GRAPH_NODE_OP && n->op >= 0
                             ? g_ptr_array_index (model->record->ops, n->op) : NULL;
      if (!op || op->loop_depth == 0)
        continue;
      const CrGraphGroup *in = cr_graph_groups_get (g, g->node_group[i]);
      g_assert_nonnull (in);
      g_assert_cmpint (in->kind, ==, CR_GRAPH_GROUP_ITERATION);
      g_assert_cmpuint (in->loop_depth, <=, op->loop_depth);
      g_assert_cmpuint (in->loop_depth, >=, op->loop_depth - 1);
      g_assert_cmpmem (in->loop_path, in->loop_depth * sizeof (guint), op->loop_path,
                       in->loop_depth * sizeof (guint));
    }
}

/* The loop statement around a line, from the script's text. */
static void
test_loop_line (void)
{
  const char *source =
    "import torch\n"                    /* 1 */
    "for i in range(2):\n"              /* 2 */
    "    # a comment\n"                 /* 3 */
    "    while i < 1:\n"                /* 4 */
    "\n"                                /* 5 */
    "        y = i\n"                   /* 6 */
    "        break\n"                   /* 7 */
    "def f(t):\n"                       /* 8 */
    "    for k in range(2):\n"          /* 9 */
    "        t = t * 2\n"               /* 10 */
    "    return t\n";                   /* 11 */
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 6, 0), ==, 4);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 6, 1), ==, 2);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 6, 2), ==, 0);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 4, 0), ==, 2);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 10, 0), ==, 9);
  /* A function's caller's loops are not found in the function. */
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 10, 1), ==, 0);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 1, 0), ==, 0);
  g_assert_cmpuint (cr_graph_groups_loop_line (source, 99, 0), ==, 0);
  g_assert_cmpuint (cr_graph_groups_loop_line (NULL, 6, 0), ==, 0);
}

/* Whether text writes an iteration path with dots ("iteration 2.3"),
 * the form the labels' "y₂,₃" and the group titles do not use. */
static gboolean
has_dotted_iteration (const char *text)
{
  return text && g_regex_match_simple ("iterations? [0-9]+\\.[0-9]", text, 0, 0);
}

/* An iteration path reads one way wherever it is written: picker, trace,
 * captions, the inspector's and card's iteration line, group titles. */
static void
test_iteration_path_forms (void)
{
  g_autoptr (GString) trace = g_string_new (NULL);
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (
    "import torch\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "for i in range(2):\n"
    "    for j in range(3):\n"
    "        y = (w * (i + j)).sum()\n"
    "        y.backward()\n", "forms.py", trace);
  g_assert_cmpuint (models->len, ==, 6);
  const CrRunRecord *record = ((CrGraphModel *) g_ptr_array_index (models, 0))->record;
  g_assert_false (has_dotted_iteration (trace->str));
  g_assert_nonnull (strstr (trace->str, "iteration 2,3"));
  for (guint b = 0; b < record->backwards->len; b++)
    {
      g_autofree char *picker = cr_record_backward_picker_title (record, b);
      g_assert_false (has_dotted_iteration (picker));
      if (b == record->backwards->len - 1)
        g_assert_cmpstr (picker, ==, "#6 · y.backward() · line 6 · iteration 2,3");
    }
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      g_autofree char *caption = cr_record_op_caption (record, (int) i);
      g_autofree char *where = cr_record_iteration_text (op->loop_path, op->loop_depth);
      g_assert_false (has_dotted_iteration (caption));
      g_assert_false (has_dotted_iteration (op->caption));
      g_assert_false (has_dotted_iteration (where));
    }

  g_autofree char *source = source_file ("tests/record/scripts/nested_loops.py");
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (source, "nested_loops.py");
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  for (guint i = 0; i < g->groups->len; i++)
    g_assert_false (has_dotted_iteration (((CrGraphGroup *) g_ptr_array_index (g->groups, i))->title));
}

/* The MLP training example: a backward call's graph holds one iteration
 * of the training loop, so no iteration group, whichever call is shown. */
static void
test_training_loop_example (void)
{
  g_autofree char *source = source_file ("data/examples/11-mlp-training.py");
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, "11-mlp-training.py", NULL);
  g_assert_cmpuint (models->len, ==, 201);
  for (guint i = 0; i < models->len; i += 50)
    {
      CrGraphModel *model = g_ptr_array_index (models, i);
      g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
      g_assert_cmpuint (g->groups->len, ==, 0);
    }
}

/* A model called in each iteration of a loop, its loss summed: the
 * iterations fold, and the parameters every iteration uses go in the fold
 * (not outside every group), so that the first view is a few nodes. */
static void
test_loop_shared_parameters (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))\n"
    "x = torch.ones(2, 3)\n"
    "loss = 0\n"
    "for i in range(3):\n"
    "    loss = loss + model(x * i).sum()\n"
    "loss.backward()\n", NULL);
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   "iterations 1–3 × 3 ["
                     "iteration 1 [Sequential [0 · Linear, 1 · Tanh, 2 · Linear]], "
                     "iteration 2 [Sequential [0 · Linear, 1 · Tanh, 2 · Linear]], "
                     "iteration 3 [Sequential [0 · Linear, 1 · Tanh, 2 · Linear]]]");
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  guint params = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind != CR_GRAPH_NODE_LEAF && n->kind != CR_GRAPH_NODE_ACCUMULATE)
        continue;
      params += n->kind == CR_GRAPH_NODE_LEAF;
      g_assert_cmpint (g->node_group[i], ==, (int) fold->id);
    }
  g_assert_cmpuint (params, ==, 4);
  /* The first view: the fold closed, the inputs, the output. */
  guint level;
  g_autofree gboolean *open = cr_graph_groups_open_first_view (g, 40, &level);
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open), <=, 8);
}

/* A model called in a batch loop inside an epoch loop: nested iteration
 * groups, placed by the calls' loop paths; a loop inside the model's
 * forward adds no level of its own. */
static void
test_nested_loop_calls (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Rep(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(2, 2)\n"
    "    def forward(self, x):\n"
    "        for k in range(1):\n"
    "            x = self.lin(torch.tanh(x))\n"
    "        return x\n"
    "torch.manual_seed(0)\n"
    "model = Rep()\n"
    "x = torch.ones(3, 2)\n"
    "total = 0\n"
    "for epoch in range(2):\n"
    "    for batch in range(2):\n"
    "        total = total + model(x * (batch + 1)).sum()\n"
    "total.backward()\n", NULL);
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   "iterations 1–2 × 2 ["
                     "iteration 1 [iterations 1,1 – 1,2 × 2 [iteration 1,1 [Rep [lin · Linear]], "
                       "iteration 1,2 [Rep [lin · Linear]]]], "
                     "iteration 2 [iterations 2,1 – 2,2 × 2 [iteration 2,1 [Rep [lin · Linear]], "
                       "iteration 2,2 [Rep [lin · Linear]]]]]");
}

/* nn.Sequential of equal layers folds as "Linear × 3", and of a repeated
 * pair as "Linear, ReLU × 3". */
static void
test_sequential_equal_layers (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "same = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4))\n"
    "pairs = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),\n"
    "                      nn.Linear(4, 4), nn.ReLU())\n"
    "x = torch.ones(2, 4)\n"
    "loss = pairs(same(x)).sum()\n"
    "loss.backward()\n", NULL);
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   "Sequential [0–2 · Linear × 3 [0 · Linear, 1 · Linear, 2 · Linear]] | "
                   "Sequential [0–5 · Linear, ReLU × 3 [0 · Linear, 1 · ReLU, 2 · Linear, 3 · ReLU, "
                   "4 · Linear, 5 · ReLU]]");
}

/* A script's model, as the window gets it: groups from the record. */
static void
test_from_script (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Block(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(4, 4)\n"
    "    def forward(self, x):\n"
    "        return torch.tanh(self.lin(x))\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layers = nn.Sequential(Block(), Block(), Block())\n"
    "        self.head = nn.Linear(4, 1)\n"
    "    def forward(self, x):\n"
    "        return self.head(self.layers(x))\n"
    "torch.manual_seed(0)\n"
    "model = Net()\n"
    "x = torch.ones(2, 4)\n"
    "loss = model(x).sum()\n"
    "loss.backward()\n", NULL);
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_assert_cmpuint (g->top->len, ==, 1);
  const CrGraphGroup *net = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpstr (net->title, ==, "Net");
  /* layers (a fold of the three blocks inside), head. */
  g_assert_cmpuint (net->children->len, ==, 2);
  const CrGraphGroup *layers = cr_graph_groups_get (g, g_array_index (net->children, guint, 0));
  g_assert_cmpstr (layers->title, ==, "layers · Sequential");
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (layers->children, guint, 0));
  g_assert_cmpstr (fold->title, ==, "layers.0–2 · Block × 3");
  const CrGraphGroup *head = cr_graph_groups_get (g, g_array_index (net->children, guint, 1));
  g_assert_cmpstr (head->title, ==, "head · Linear");
  /* Every parameter in its call's group, under its module path. */
  guint params = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind != CR_GRAPH_NODE_LEAF)
        continue;
      params++;
      const CrGraphGroup *in = cr_graph_groups_get (g, g->node_group[i]);
      g_assert_nonnull (in);
      g_assert_true (g_str_has_prefix (n->title, in->path));
      g_assert_true (g_str_has_suffix (n->title, ".weight") || g_str_has_suffix (n->title, ".bias"));
    }
  g_assert_cmpuint (params, ==, 8);
}

/* A micrograd-style scalar MLP of about 5,000 nodes (tests/data's): the
 * user classes' calls group it, and a level shows about 40 nodes, fast. */
#define MICROGRAD_MLP \
  "import torch\n" \
  "torch.manual_seed(0)\n" \
  "class Neuron:\n" \
  "    def __init__(self, nin):\n" \
  "        self.w = [torch.tensor(torch.rand(()).item() * 2 - 1, requires_grad=True) for _ in range(nin)]\n" \
  "        self.b = torch.tensor(0.0, requires_grad=True)\n" \
  "    def __call__(self, x):\n" \
  "        act = self.b\n" \
  "        for wi, xi in zip(self.w, x):\n" \
  "            act = act + wi * xi\n" \
  "        return act.tanh()\n" \
  "class Layer:\n" \
  "    def __init__(self, nin, nout):\n" \
  "        self.neurons = [Neuron(nin) for _ in range(nout)]\n" \
  "    def __call__(self, x):\n" \
  "        return [n(x) for n in self.neurons]\n" \
  "class MLP:\n" \
  "    def __init__(self, nin, nouts):\n" \
  "        sizes = [nin] + nouts\n" \
  "        self.layers = [Layer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]\n" \
  "    def __call__(self, x):\n" \
  "        for layer in self.layers:\n" \
  "            x = layer(x)\n" \
  "        return x[0]\n" \
  "model = MLP(4, [32, 32, 1])\n" \
  "x = [torch.tensor(v) for v in [0.5, -1.0, 2.0, 0.25]]\n" \
  "y = model(x)\n" \
  "loss = (y - 1.0) ** 2\n" \
  "loss.backward()\n"

static void
test_big_scalar_mlp (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (MICROGRAD_MLP, NULL);
  g_assert_nonnull (model);
  g_assert_cmpuint (model->nodes->len, >, 4000);

  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  gint64 t1 = g_get_monotonic_time ();
  guint level = cr_graph_groups_level_for (g, 40);
  g_autofree gboolean *open = cr_graph_groups_open_to_level (g, level);
  g_autoptr (CrGraphCollapse) c = cr_graph_collapse_new (g, open);
  gint64 t2 = g_get_monotonic_time ();
  g_test_message ("%u nodes: groups in %.1f ms, level %u and its collapse (%u nodes) in %.1f ms",
                  model->nodes->len, (t1 - t0) / 1000.0, level, c->model->nodes->len,
                  (t2 - t1) / 1000.0);

  /* MLP; layers.0 and .1 fold as Layer × 2? No: their sizes differ (4 and
   * 32 inputs); the neurons of each layer fold. */
  const CrGraphGroup *mlp = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  g_assert_cmpstr (mlp->title, ==, "MLP");
  g_assert_cmpint (mlp->kind, ==, CR_GRAPH_GROUP_CALL);
  g_assert_cmpuint (mlp->children->len, ==, 3);
  const CrGraphGroup *layer0 = cr_graph_groups_get (g, g_array_index (mlp->children, guint, 0));
  g_assert_cmpstr (layer0->title, ==, "layers.0 · Layer");
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (layer0->children, guint, 0));
  g_assert_cmpstr (fold->title, ==, "layers.0.neurons.0–31 · Neuron × 32");
  g_assert_cmpuint (c->model->nodes->len, <=, 40);
  g_assert_cmpuint (c->model->nodes->len, >=, 5);
  /* Every weight in its neuron. */
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_LEAF)
        g_assert_cmpint (g->node_group[i], >=, 0);
    }
}

/* A long chain of alternating blocks (A, B, A, B, ...: no block repeats
 * on its own) folds as one "A, B × 10" node, so that the first view shows
 * a handful of nodes instead of 20 closed groups in a column; open, it
 * shows the 20. */
static void
test_fold_periodic_chain (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "class A(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(4, 4)\n"
    "    def forward(self, x):\n"
    "        return torch.tanh(self.lin(x))\n"
    "class B(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(4, 4)\n"
    "    def forward(self, x):\n"
    "        return torch.relu(self.lin(x)) * 2\n"
    "torch.manual_seed(0)\n"
    "layers = []\n"
    "for i in range(10):\n"
    "    layers.append(A())\n"
    "    layers.append(B())\n"
    "layers.append(A())\n"
    "model = nn.Sequential(*layers)\n"
    "x = torch.ones(2, 4)\n"
    "loss = model(x).sum()\n"
    "loss.backward()\n", NULL);
  g_assert_nonnull (model);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_assert_cmpuint (g->top->len, ==, 1);
  const CrGraphGroup *seq = cr_graph_groups_get (g, g_array_index (g->top, guint, 0));
  /* The ten pairs, then the odd A out. */
  g_assert_cmpuint (seq->children->len, ==, 2);
  const CrGraphGroup *fold = cr_graph_groups_get (g, g_array_index (seq->children, guint, 0));
  g_assert_cmpint (fold->kind, ==, CR_GRAPH_GROUP_REPEAT);
  g_assert_cmpstr (fold->title, ==, "0–19 · A, B × 10");
  g_assert_cmpuint (fold->repeat, ==, 10);
  g_assert_cmpuint (fold->children->len, ==, 20);
  const CrGraphGroup *last = cr_graph_groups_get (g, g_array_index (seq->children, guint, 1));
  g_assert_cmpstr (last->title, ==, "20 · A");

  /* The first view: x, the fold, the last A open (its Linear closed or
   * open), the sum and loss: a short column. Opening the fold shows the
   * 20 blocks. */
  guint level = 0;
  g_autofree gboolean *open = cr_graph_groups_open_first_view (g, 40, &level);
  g_assert_false (open[fold->id]);
  guint first = cr_graph_groups_count_visible (g, open);
  g_test_message ("first view: %u nodes (level %u)", first, level);
  g_assert_cmpuint (first, <=, 20);
  open[fold->id] = TRUE;
  g_assert_cmpuint (cr_graph_groups_count_visible (g, open), >=, first + 19);
}

static void
test_cluster_free (gpointer data)
{
  CrGraphCluster *c = data;
  g_free (c->title);
  g_array_unref (c->nodes);
  g_free (c);
}

static guint8
alpha_at (cairo_surface_t *surface,
          int              x,
          int              y)
{
  cairo_surface_flush (surface);
  const guint8 *row = cairo_image_surface_get_data (surface) + y * cairo_image_surface_get_stride (surface);
  return row[4 * x + 3];   /* ARGB32, little-endian: alpha last */
}

/* The minimap's faint boxes: around their nodes when the layout has no
 * cluster boxes (the layered layout of big graphs), a parent's around its
 * child's; the laid-out boxes when it has them; nothing outside. */
static void
test_minimap_marks (void)
{
  g_autoptr (CrGraphModel) model = cr_graph_model_new ();
  for (int i = 0; i < 3; i++)
    cr_graph_model_add_node (model, CR_GRAPH_NODE_OP, "op");
  model->clusters = g_ptr_array_new_with_free_func (test_cluster_free);
  for (int i = 0; i < 2; i++)
    {
      CrGraphCluster *c = g_new0 (CrGraphCluster, 1);
      c->parent = i - 1;   /* the second in the first */
      c->title = g_strdup ("c");
      c->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      g_ptr_array_add (model->clusters, c);
    }
  guint inner = 1;
  g_array_append_val (((CrGraphCluster *) g_ptr_array_index (model->clusters, 1))->nodes, inner);

  CrGraphBox nodes[3] = { { 0 } };
  nodes[0] = (CrGraphBox) { .x = 150, .y = 10, .width = 20, .height = 10 };    /* outside */
  nodes[1] = (CrGraphBox) { .x = 50, .y = 50, .width = 20, .height = 10 };     /* in both */
  nodes[2] = (CrGraphBox) { .x = 150, .y = 150, .width = 20, .height = 10 };   /* outside */
  CrGraphLayout layout = { .width = 200, .height = 200, .n_nodes = 3, .nodes = nodes };

  for (int laid_out = 0; laid_out < 2; laid_out++)
    {
      CrGraphBox boxes[2] = {
        { .x = 20, .y = 20, .width = 80, .height = 70 },
        { .x = 35, .y = 35, .width = 50, .height = 40 },
      };
      layout.n_clusters = laid_out ? 2 : 0;
      layout.clusters = laid_out ? boxes : NULL;
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 200, 200);
      cairo_t *cr = cairo_create (surface);
      cr_graph_draw_cluster_marks (cr, model, &layout, 1.0, FALSE);
      cairo_destroy (cr);
      /* Inside both boxes: two faint fills. */
      guint8 both = alpha_at (surface, 60, 55);
      g_assert_cmpuint (both, >, 0);
      g_assert_cmpuint (both, <, 80);
      /* In the outer box alone (the node's 10 pt pad, then 9 pt more; or
       * the laid-out box's ring): one fill, fainter. */
      guint8 outer = laid_out ? alpha_at (surface, 27, 55) : alpha_at (surface, 35, 55);
      g_assert_cmpuint (outer, >, 0);
      g_assert_cmpuint (outer, <, both);
      /* Nothing elsewhere. */
      g_assert_cmpuint (alpha_at (surface, 160, 15), ==, 0);
      g_assert_cmpuint (alpha_at (surface, 5, 5), ==, 0);
      g_assert_cmpuint (alpha_at (surface, 160, 155), ==, 0);
      cairo_surface_destroy (surface);
    }
  /* Scaled down to a few pixels a box, still drawn. */
  layout.n_clusters = 0;
  layout.clusters = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 20, 20);
  cairo_t *cr = cairo_create (surface);
  cr_graph_draw_cluster_marks (cr, model, &layout, 0.05, TRUE);
  cairo_destroy (cr);
  g_assert_cmpuint (alpha_at (surface, 3, 3), >, 0);
  cairo_surface_destroy (surface);
}

/* Pixels in x0..x1, y0..y1 of an ARGB32 surface that are ink: opaque and
 * dark (text, or a border), or blue-tinted (a group's fill). */
static guint
count_pixels (cairo_surface_t *surface,
              int              x0,
              int              y0,
              int              x1,
              int              y1,
              gboolean         dark_ink)
{
  cairo_surface_flush (surface);
  guint n = 0;
  for (int y = y0; y < y1; y++)
    {
      const guint8 *row = cairo_image_surface_get_data (surface) + y * cairo_image_surface_get_stride (surface);
      for (int x = x0; x < x1; x++)
        {
          const guint8 *p = row + 4 * x;   /* B, G, R, A (premultiplied) */
          if (p[3] < 200)
            continue;
          if (dark_ink ? p[2] < 90 : p[0] > p[2] + 20)
            n++;
        }
    }
  return n;
}

/* A closed group on the minimap: the box it is, blue and opaque, with its
 * title inside where the box is wide enough (the class part and count when
 * the whole title is too long), and no title on a narrow box. */
static void
test_minimap_group_mark (void)
{
  g_autoptr (CrGraphModel) model = cr_graph_model_new ();
  CrGraphNode *node = cr_graph_model_add_node (model, CR_GRAPH_NODE_GROUP,
                                               "layers.0.neurons.0–31 · Neuron × 32");
  for (int wide = 0; wide < 2; wide++)
    {
      /* 300 x 40 points at s = 0.25: 75 x 10 pixels; 80 points: 20 pixels. */
      CrGraphBox b = { .x = 40, .y = 40, .width = wide ? 300 : 80, .height = 40 };
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 120, 40);
      cairo_t *cr = cairo_create (surface);
      cr_graph_draw_group_mark (cr, node, &b, 0.25, FALSE);
      cairo_destroy (cr);
      int x0 = 10, x1 = 10 + (wide ? 75 : 20);
      /* Filled: most of the inside is the group's blue. */
      guint fill = count_pixels (surface, x0 + 2, 12, x1 - 2, 18, FALSE);
      g_assert_cmpuint (fill, >, (guint) ((x1 - x0 - 4) * 6 / 3));
      /* Ink inside the border: the title, on the wide box only. */
      guint ink = count_pixels (surface, x0 + 2, 11, x1 - 2, 19, TRUE);
      if (wide)
        g_assert_cmpuint (ink, >, 20);
      else
        g_assert_cmpuint (ink, ==, 0);
      /* Nothing far outside. */
      g_assert_cmpuint (alpha_at (surface, 110, 2), ==, 0);
      cairo_surface_destroy (surface);
    }
}

/* The micrograd MLP with 3 inputs, layers of 3 and 1. */
static char *
micrograd_small (void)
{
  g_auto (GStrv) parts = g_strsplit (MICROGRAD_MLP, "MLP(4, [32, 32, 1])", 2);
  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  g_auto (GStrv) inputs = g_strsplit (parts[1], "[0.5, -1.0, 2.0, 0.25]", 2);
  g_assert_cmpuint (g_strv_length (inputs), ==, 2);
  return g_strconcat (parts[0], "MLP(3, [3, 1])", inputs[0], "[0.5, -1.0, 2.0]", inputs[1], NULL);
}

/* A loop inside a module's forward groups by iteration as a loop at the
 * top does: a block applied three times folds "× 3"; a micrograd neuron's
 * loop over its inputs too. A loop whose iterations are one call each (an
 * MLP's over its layers) adds no level. */
static void
test_loop_in_forward (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(2, 2)\n"
    "    def forward(self, x):\n"
    "        for i in range(3):\n"
    "            x = torch.tanh(self.lin(x))\n"
    "        return x\n"
    "net = Net()\n"
    "net(torch.ones(1, 2)).sum().backward()\n", NULL);
  g_autoptr (CrGraphGroups) g = cr_graph_groups_new (model);
  g_autofree char *tree = tree_text (g);
  g_test_message ("%s", tree);
  g_assert_cmpstr (tree, ==,
                   "Net [iterations 1–3 × 3 [iteration 1 [lin · Linear], iteration 2 [lin · Linear], "
                   "iteration 3 [lin · Linear]]]");

  g_autofree char *source = micrograd_small ();
  g_autoptr (CrGraphModel) mlp = cr_ui_test_model_from_script (source, NULL);
  g_autoptr (CrGraphGroups) m = cr_graph_groups_new (mlp);
  g_autofree char *mlp_tree = tree_text (m);
  g_test_message ("%s", mlp_tree);
  const char *neuron = "Neuron [iterations 1–3 × 3 [iteration 1, iteration 2, iteration 3]]";
  g_autofree char *want = g_strconcat ("MLP [layers.0 · Layer [layers.0.neurons.0–2 · Neuron × 3 [",
                                       "layers.0.neurons.0 · ", neuron, ", layers.0.neurons.1 · ",
                                       neuron, ", layers.0.neurons.2 · ", neuron,
                                       "]], layers.1 · Layer [layers.1.neurons.0 · ", neuron, "]]",
                                       NULL);
  g_assert_cmpstr (mlp_tree, ==, want);
  /* Each iteration holds its product and sum. */
  guint iterations = 0;
  for (guint i = 0; i < m->groups->len; i++)
    {
      const CrGraphGroup *it = cr_graph_groups_get (m, (int) i);
      if (it->kind != CR_GRAPH_GROUP_ITERATION)
        continue;
      g_assert_cmpuint (it->n_ops, ==, 2);
      iterations++;
    }
  g_assert_cmpuint (iterations, ==, 12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graph-groups/module-tree", test_module_tree);
  g_test_add_func ("/graph-groups/collapse", test_collapse);
  g_test_add_func ("/graph-groups/fold", test_fold_equal_blocks);
  g_test_add_func ("/graph-groups/user-class", test_user_class_calls);
  g_test_add_func ("/graph-groups/iterations", test_iterations);
  g_test_add_func ("/graph-groups/nested-iterations", test_nested_iterations);
  g_test_add_func ("/graph-groups/nested-loops-script", test_nested_loops_script);
  g_test_add_func ("/graph-groups/loop-line", test_loop_line);
  g_test_add_func ("/graph-groups/iteration-path-forms", test_iteration_path_forms);
  g_test_add_func ("/graph-groups/training-loop-example", test_training_loop_example);
  g_test_add_func ("/graph-groups/loop-shared-parameters", test_loop_shared_parameters);
  g_test_add_func ("/graph-groups/sequential-equal-layers", test_sequential_equal_layers);
  g_test_add_func ("/graph-groups/nested-loop-calls", test_nested_loop_calls);
  g_test_add_func ("/graph-groups/from-script", test_from_script);
  g_test_add_func ("/graph-groups/big-scalar-mlp", test_big_scalar_mlp);
  g_test_add_func ("/graph-groups/minimap-marks", test_minimap_marks);
  g_test_add_func ("/graph-groups/minimap-group-mark", test_minimap_group_mark);
  g_test_add_func ("/graph-groups/fold-periodic-chain", test_fold_periodic_chain);
  g_test_add_func ("/graph-groups/loop-in-forward", test_loop_in_forward);
  return g_test_run ();
}
