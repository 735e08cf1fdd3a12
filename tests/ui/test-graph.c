/* test-graph.c — the graph model, its layout and its drawing, headless. */
#include "cr-graph-model.h"
#include "cr-graph-layout.h"
#include "cr-graph-render.h"
#include "cr-graph-render-same.h"
#include "cr-step-text.h"
#include "cr-tensor.h"
#include "ui-test-util.h"

#include <math.h>
#include <string.h>

static CrGraphModel *
model_of_example (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", name, NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  return cr_ui_test_model_from_script (source, path);
}

static char *
example_source (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", name, NULL);
  char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  return source;
}

static const CrGraphNode *
find_node (const CrGraphModel *model,
           CrGraphNodeKind     kind,
           const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == kind && strcmp (n->title, title) == 0)
        return n;
    }
  return NULL;
}

static const CrGraphNode *
node_at (const CrGraphModel *model,
         guint               id)
{
  g_assert_cmpuint (id, <, model->nodes->len);
  return g_ptr_array_index (model->nodes, id);
}

/* Asserts that a snapshot holds expected (row-major, n values). */
static void
assert_values (const CrTensorSnapshot *s,
               const double           *expected,
               guint                   n)
{
  g_assert_nonnull (s);
  g_assert_cmpint (s->numel, ==, n);
  g_assert_cmpint (s->n_values, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (s->values[i], expected[i], 1e-6);
}

static gboolean
has_node (const CrGraphModel *model,
          CrGraphNodeKind     kind,
          const char         *title)
{
  return find_node (model, kind, title) != NULL;
}

static void
test_model_toy (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_assert_nonnull (model);
  /* A view of the run's record. */
  g_assert_nonnull (model->record);
  g_assert_cmpint (model->backward, ==, 0);
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
  g_assert_null (cr_graph_model_find_step (model, -1));
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
  /* Forward flows left to right, except that each AccumulateGrad sits in
   * its leaf's column, right under the leaf's card (one column less). */
  guint n_pairs = 0;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      const CrGraphBox *a = &layout->nodes[e->from], *b = &layout->nodes[e->to];
      const CrGraphPath *p = &layout->edges[i];
      g_assert_cmpuint (p->n_points, >=, 4);
      if (from->kind == CR_GRAPH_NODE_LEAF && to->kind == CR_GRAPH_NODE_ACCUMULATE)
        {
          n_pairs++;
          g_assert_cmpfloat (b->x, <, a->x + a->width);
          g_assert_cmpfloat (a->x, <, b->x + b->width);
          g_assert_cmpfloat (b->y, >=, a->y + a->height);
          g_assert_cmpfloat (b->y, <=, a->y + a->height + 2 * CR_GRAPH_LAYOUT_PAIR_GAP);
          /* A short drop from the card to the pill, with no shape label. */
          g_assert_true (p->has_arrow);
          g_assert_false (p->has_label);
          g_assert_cmpfloat (fabs (p->arrow_y - b->y), <, 0.5);
        }
      else
        g_assert_cmpfloat (a->x + a->width, <, b->x);
    }
  g_assert_cmpuint (n_pairs, ==, 5);
  /* The toy network was 1613 points wide with AccumulateGrad in a column
   * of its own; now it must fit a 900 pixel pane (16 pixel margins) at
   * 75 %, where its smallest text is still legible: (900 - 32) / 0.75. */
  g_assert_cmpfloat (layout->width, <=, (900 - 32) / 0.75);

  /* Presentation mode: larger type and spacing, all in proportion, so that
   * the canvas fits it as well (at a zoom smaller by the same factor). */
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, TRUE);
  g_autoptr (CrGraphLayout) big = cr_graph_render_layout_cached (model, cache, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (big->width, >, layout->width);
  g_assert_cmpfloat (big->width, <=, layout->width * CR_GRAPH_RENDER_PRESENT_TYPE * 1.05);
  g_assert_cmpfloat (big->height, <=, layout->height * CR_GRAPH_RENDER_PRESENT_TYPE * 1.05);
  for (guint i = 0; i < big->n_nodes; i++)
    for (guint j = i + 1; j < big->n_nodes; j++)
      g_assert_false (overlap (&big->nodes[i], &big->nodes[j]));
  cr_graph_render_cache_free (cache);
}

/* Every example lays out without two boxes overlapping, every box inside
 * the drawing, and each paired AccumulateGrad under its leaf. */
static void
test_layout_examples (void)
{
  const char *names[] = {
    "02-requires-grad.py", "03-vector-backward.py", "04-one-layer-network.py",
    "07-leaf-and-retain-grad.py", "10-neuron.py", "11-mlp-training.py",
    "13-custom-function.py", "14-hooks.py",
  };
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autoptr (CrGraphModel) model = model_of_example (names[k]);
      g_autoptr (GError) error = NULL;
      g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, &error);
      g_assert_no_error (error);
      for (guint i = 0; i < layout->n_nodes; i++)
        {
          const CrGraphBox *a = &layout->nodes[i];
          g_assert_cmpfloat (a->x, >=, 0);
          g_assert_cmpfloat (a->y, >=, 0);
          g_assert_cmpfloat (a->x + a->width, <=, layout->width + 0.01);
          g_assert_cmpfloat (a->y + a->height, <=, layout->height + 0.01);
          for (guint j = i + 1; j < layout->n_nodes; j++)
            g_assert_false (overlap (a, &layout->nodes[j]));
        }
      guint n_acc = 0, n_under = 0;
      for (guint i = 0; i < model->edges->len; i++)
        {
          const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
          const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
          const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
          if (to->kind != CR_GRAPH_NODE_ACCUMULATE || from->kind != CR_GRAPH_NODE_LEAF)
            continue;
          n_acc++;
          const CrGraphBox *a = &layout->nodes[e->from], *b = &layout->nodes[e->to];
          n_under += b->x < a->x + a->width && a->x < b->x + b->width && b->y >= a->y + a->height;
        }
      g_assert_cmpuint (n_acc, >, 0);
      g_assert_cmpuint (n_under, ==, n_acc);
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


/* ---- steps ------------------------------------------------------------------ */

/* The toy example's tensors (data/examples/01-toy-network.py). */
static const double toy_a[9] = { 0.5, -1.0, 1.5, 2.0, 1.0, -0.5, 1.0, 3.0, -2.0 };
static const double toy_w1[9] = { 1.0, 2.0, -1.0, 0.5, 0.5, 0.5, -1.5, 1.0, 2.0 };
static const double toy_w2[9] = { 0.25, -0.5, 1.0, 1.0, -1.0, 2.0, 0.5, 1.5, -0.25 };
static const double toy_w3[9] = { 1.0, -1.0, 1.0, 2.0, 0.5, -2.0, 1.0, 1.5, 1.0 };
static const double toy_w4[9] = { -0.5, 1.0, 2.0, 1.0, 1.0, 0.25, 2.0, -1.0, 0.5 };

/* The leaves' .grad after L.backward(), as PyTorch 1.13 prints them
 * (/usr/bin/python3 with torch running the same script). */
static const struct {
  const char *leaf;
  double      grad[9];
} toy_torch_grads[] = {
  { "a",  { -0.875, 2.5, -1.0, -2.0, 0.75, 0.5, 0.5, 0.0, -1.875 } },
  { "w1", { -0.5, -1.0, -1.5, -4.0, -0.5, -1.0, -1.0, -4.5, 2.0 } },
  { "w2", { 0.25, 1.0, -3.0, -2.0, -1.0, 0.125, -2.0, 3.0, 1.0 } },
  { "w3", { -0.5, 2.0, 1.5, -1.0, -0.5, 0.25, 1.5, -3.0, 4.0 } },
  { "w4", { -0.125, -0.5, -1.5, -2.0, 1.0, 1.0, -0.5, -4.5, -0.5 } },
};

static CrGraphModel *
toy_model (GString *trace)
{
  g_autofree char *source = example_source ("01-toy-network.py");
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, NULL, trace);
  g_assert_cmpuint (models->len, ==, 1);
  return cr_graph_model_ref (g_ptr_array_index (models, 0));
}

/* The step titled title whose caption starts with caption_prefix; its
 * index in *index. */
static const CrRecordStep *
find_step (const CrGraphModel *model,
           const char         *title,
           const char         *caption_prefix)
{
  for (guint s = 0; s < model->n_steps; s++)
    {
      const CrRecordStep *step = cr_graph_model_get_record_step (model, (int) s);
      if (strcmp (step->title, title) == 0 && step->caption
          && g_str_has_prefix (step->caption, caption_prefix))
        return step;
    }
  return NULL;
}

/* The input named name of step, and its index in step->inputs. */
static const CrRecordStepInput *
step_input (const CrRecordStep *step,
            const char         *name,
            guint              *index)
{
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (g_strcmp0 (in->name, name) == 0)
        {
          if (index)
            *index = i;
          return in;
        }
    }
  return NULL;
}

/* The record tensor a node draws. */
static const CrRecordTensor *
node_tensor (const CrGraphModel *model,
             const CrGraphNode  *node)
{
  g_assert_cmpint (node->tensor, >=, 0);
  return g_ptr_array_index (model->record->tensors, node->tensor);
}

/* The record op a node draws. */
static const CrRecordOp *
node_op (const CrGraphModel *model,
         const CrGraphNode  *node)
{
  g_assert_cmpint (node->op, >=, 0);
  return g_ptr_array_index (model->record->ops, node->op);
}

/* The chain rule's line as the step card and the trace write it. */
static char *
product_text (const CrRecordStep      *step,
              const CrRecordStepInput *in)
{
  if (!in->local || step->incoming->len != 1)
    return NULL;
  const CrRecordGrad *incoming = g_ptr_array_index (step->incoming, 0);
  return g_strdup_printf ("%s = %s × %s", in->outgoing.name, incoming->name, in->local_name);
}

static void
test_steps_toy (void)
{
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  g_assert_cmpuint (model->n_steps, ==, 12);
  const CrRecordBackward *call = cr_graph_model_get_backward (model);
  g_assert_nonnull (call);
  g_assert_cmpuint (call->steps->len, ==, 12);
  g_assert_null (cr_graph_model_get_record_step (model, 12));
  g_assert_null (cr_graph_model_get_record_step (model, -1));
  g_assert_cmpstr (model->title, ==, "L.backward() · line 21");
  g_assert_cmpint (model->span.line, ==, 21);
  g_assert_true (model->succeeded);
  g_assert_cmpstr (call->root_name, ==, "L");

  /* Step 0: L's SumBackward0 receives ∂L/∂L = 1 and shows its rule. */
  const CrRecordStep *sum = cr_graph_model_get_record_step (model, 0);
  g_assert_cmpstr (sum->title, ==, "SumBackward0");
  g_assert_cmpstr (sum->caption, ==, "L = (10 - d).sum(), line 16");
  g_assert_cmpuint (sum->incoming->len, ==, 1);
  const CrRecordGrad *one = g_ptr_array_index (sum->incoming, 0);
  g_assert_cmpstr (one->name, ==, "∂L/∂L");
  g_assert_cmpint (one->value->ndim, ==, 0);
  g_assert_cmpfloat (one->value->values[0], ==, 1.0);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (one->value), ==, "1.");
  g_assert_nonnull (sum->rule);
  g_assert_cmpuint (sum->inputs->len, ==, 1);
  const CrRecordStepInput *rsub_in = g_ptr_array_index (sum->inputs, 0);
  g_assert_null (rsub_in->local);
  g_assert_null (rsub_in->product);
  g_assert_cmpstr (rsub_in->outgoing.name, ==, "∂L/∂(10 - d)");
  g_assert_true (cr_graph_model_find_step_node (model, 0) == cr_graph_model_find_step (model, 0));

  /* b = w1 * a: L = Σ(10 - w3*b - w4*c) gives ∂L/∂b = -w3; the local
   * gradients of a product are the other factor. */
  const CrRecordStep *mul = find_step (model, "MulBackward0", "b = w1 * a");
  g_assert_nonnull (mul);
  g_assert_cmpstr (mul->caption, ==, "b = w1 * a, line 13");
  g_assert_null (mul->rule);
  g_assert_cmpuint (mul->incoming->len, ==, 1);
  const CrRecordGrad *dl_db = g_ptr_array_index (mul->incoming, 0);
  g_assert_cmpstr (dl_db->name, ==, "∂L/∂b");
  double minus_w3[9], local_w1[9], out_w1[9], out_a[9];
  for (guint i = 0; i < 9; i++)
    {
      minus_w3[i] = -toy_w3[i];
      local_w1[i] = toy_a[i];
      out_w1[i] = -toy_w3[i] * toy_a[i];
      out_a[i] = -toy_w3[i] * toy_w1[i];
    }
  assert_values (dl_db->value, minus_w3, 9);
  g_assert_cmpuint (mul->inputs->len, ==, 2);
  guint w1_index = 0, a_index = 0;
  const CrRecordStepInput *w1 = step_input (mul, "w1", &w1_index);
  g_assert_nonnull (w1);
  g_assert_cmpstr (w1->local_name, ==, "∂b/∂w1");
  g_assert_cmpstr (w1->outgoing.name, ==, "∂L/∂w1");
  g_autofree char *product = product_text (mul, w1);
  g_assert_cmpstr (product, ==, "∂L/∂w1 = ∂L/∂b × ∂b/∂w1");
  assert_values (w1->local, local_w1, 9);
  /* No broadcast: the product is the gradient sent on. */
  g_assert_null (w1->reduction);
  assert_values (w1->product, out_w1, 9);
  assert_values (w1->outgoing.value, out_w1, 9);
  const CrRecordStepInput *a = step_input (mul, "a", &a_index);
  g_assert_nonnull (a);
  g_assert_cmpstr (a->local_name, ==, "∂b/∂a");
  assert_values (a->local, toy_w1, 9);
  assert_values (a->outgoing.value, out_a, 9);

  /* The gradient goes along the model's edge from w1's AccumulateGrad. */
  const CrGraphNode *mul_node = cr_graph_model_find_op (model, mul->op);
  g_assert_nonnull (mul_node);
  g_assert_cmpint (mul_node->kind, ==, CR_GRAPH_NODE_OP);
  g_assert_cmpstr (mul_node->caption, ==, "b = w1 * a");
  g_assert_true (cr_graph_model_find_step_node (model, (int) mul->index) == mul_node);
  const CrGraphNode *w1_to = cr_graph_model_find_step_input_node (model, w1);
  g_assert_nonnull (w1_to);
  guint w1_edge = cr_graph_model_find_step_input_edge (model, (int) mul->index, w1_index);
  g_assert_cmpuint (w1_edge, <, model->edges->len);
  const CrGraphEdge *edge = g_ptr_array_index (model->edges, w1_edge);
  g_assert_cmpuint (edge->to, ==, mul_node->id);
  g_assert_cmpuint (edge->from, ==, w1_to->id);
  g_assert_cmpint (w1_to->kind, ==, CR_GRAPH_NODE_ACCUMULATE);
  g_assert_cmpstr (node_tensor (model, w1_to)->label, ==, "w1");
  g_assert_cmpuint (cr_graph_model_find_step_input_edge (model, (int) mul->index, a_index), !=, w1_edge);

  /* a is used twice: c = w2 * a ran first and sent -w4*w2, then b's step
   * adds -w3*w1; the sum is the whole ∂L/∂a. */
  g_assert_cmpuint (mul->accumulations->len, ==, 1);
  const CrRecordAccumulation *acc = g_ptr_array_index (mul->accumulations, 0);
  g_assert_cmpstr (acc->name, ==, "∂L/∂a");
  g_assert_cmpint (acc->to_op, <, 0);
  g_assert_true (cr_graph_model_find_accumulate (model, acc->tensor)
                 == cr_graph_model_find_step_input_node (model, a));
  double sum_a[9];
  for (guint i = 0; i < 9; i++)
    sum_a[i] = -toy_w3[i] * toy_w1[i] - toy_w4[i] * toy_w2[i];
  assert_values (acc->contribution, out_a, 9);
  assert_values (acc->sum, sum_a, 9);
  const CrRecordStep *mul_c = find_step (model, "MulBackward0", "c = w2 * a");
  g_assert_nonnull (mul_c);
  g_assert_cmpuint (mul_c->index, <, mul->index);
  g_assert_cmpuint (mul_c->accumulations->len, ==, 0);
  guint n_accumulations = 0;
  for (guint s = 0; s < model->n_steps; s++)
    n_accumulations += cr_graph_model_get_record_step (model, (int) s)->accumulations->len;
  g_assert_cmpuint (n_accumulations, ==, 1);

  /* Every AccumulateGrad step ends with PyTorch's .grad. */
  guint n_leaf_steps = 0;
  for (guint s = 0; s < model->n_steps; s++)
    {
      const CrRecordStep *step = cr_graph_model_get_record_step (model, (int) s);
      if (step->kind != CR_RECORD_STEP_ACCUMULATE)
        {
          g_assert_cmpint (step->leaf, <, 0);
          continue;
        }
      n_leaf_steps++;
      g_assert_cmpstr (step->title, ==, "AccumulateGrad");
      const CrGraphNode *acc_node = cr_graph_model_find_step_node (model, (int) s);
      g_assert_nonnull (acc_node);
      g_assert_cmpint (acc_node->kind, ==, CR_GRAPH_NODE_ACCUMULATE);
      const char *leaf = node_tensor (model, acc_node)->label;
      g_assert_cmpstr (step->caption, ==, leaf);
      g_assert_null (step->grad_before);
      g_assert_cmpuint (step->inputs->len, ==, 0);
      gboolean found = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (toy_torch_grads); k++)
        if (strcmp (toy_torch_grads[k].leaf, leaf) == 0)
          {
            assert_values (step->grad_after, toy_torch_grads[k].grad, 9);
            found = TRUE;
          }
      g_assert_true (found);
      g_autofree char *incoming = g_strdup_printf ("∂L/∂%s", leaf);
      g_assert_cmpstr (((CrRecordGrad *) g_ptr_array_index (step->incoming, 0))->name, ==, incoming);
    }
  g_assert_cmpuint (n_leaf_steps, ==, 5);
}

/* The step card and `--trace-backward` say the same thing: the trace holds
 * every step's text (cr_step_text_plain, which the card is held to by
 * test-card-text), in order, indented. */
static void
test_steps_match_trace (void)
{
  g_autoptr (GString) trace = g_string_new (NULL);
  g_autoptr (CrGraphModel) model = toy_model (trace);
  const char *from = strstr (trace->str, "backward #1");
  g_assert_nonnull (from);
  for (guint s = 0; s < model->n_steps; s++)
    {
      g_autoptr (CrStepText) text = cr_step_text_new (model->record, model->backward, (int) s);
      g_autofree char *plain = cr_step_text_plain (text);
      g_auto (GStrv) lines = g_strsplit (plain, "\n", -1);
      GString *indented = g_string_new (NULL);
      for (guint l = 0; lines[l] && (lines[l + 1] || *lines[l]); l++)
        g_string_append_printf (indented, *lines[l] ? "  %s\n" : "%s\n", lines[l]);
      const char *block = strstr (from, indented->str);
      if (!block)
        g_error ("step %u is not in the trace as the card tells it:\n%s", s + 1, indented->str);
      from = block + indented->len;
      g_string_free (indented, TRUE);
    }
}

static void
test_freed (void)
{
  /* The toy example's backward had no retain_graph: every op's saved
   * tensors are gone, but what they were is still known. */
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  const CrRecordStep *mul = find_step (model, "MulBackward0", "b = w1 * a");
  const CrGraphNode *n = cr_graph_model_find_op (model, mul->op);
  g_assert_true (n->freed);
  const CrRecordOp *op_b = node_op (model, n);
  g_assert_cmpuint (op_b->saved->len, ==, 2);
  for (guint k = 0; k < op_b->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op_b->saved, k);
      g_assert_cmpint (saved->freed_backward, ==, 0);
      g_assert_true (cr_run_record_saved_freed_at (model->record, n->op, k, 0,
                                                   (int) model->n_steps - 1));
      g_autofree char *shape = cr_graph_format_shape (saved->shape, saved->ndim);
      g_assert_cmpstr (shape, ==, "3×3");
    }
  /* The record still has the tensor the op made. */
  const CrRecordTensor *made = g_ptr_array_index (model->record->tensors,
                                                  g_array_index (op_b->outputs, int, 0));
  g_assert_cmpstr (made->label, ==, "b");
  g_assert_cmpint (made->origin, ==, CR_RECORD_TENSOR_RESULT);
  g_assert_cmpstr (op_b->grad_fn, ==, "MulBackward0");
  double b[9];
  for (guint i = 0; i < 9; i++)
    b[i] = toy_w1[i] * toy_a[i];
  assert_values (made->value, b, 9);

  /* With retain_graph=True, they stay, with their values. */
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "w = torch.tensor([3.0, -1.0], requires_grad=True)\n"
    "y = (x * w).sum()\n"
    "y.backward(retain_graph=True)\n", NULL, NULL);
  const CrGraphModel *kept = g_ptr_array_index (models, 0);
  const CrGraphNode *op = find_node (kept, CR_GRAPH_NODE_OP, "MulBackward0");
  g_assert_nonnull (op);
  g_assert_false (op->freed);
  const CrRecordOp *rop = node_op (kept, op);
  g_assert_cmpuint (rop->saved->len, ==, 2);
  gboolean saw_self = FALSE, saw_other = FALSE;
  for (guint k = 0; k < rop->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (rop->saved, k);
      g_assert_cmpint (saved->freed_backward, <, 0);
      g_autofree char *shape = cr_graph_format_shape (saved->shape, saved->ndim);
      g_assert_cmpstr (shape, ==, "2");
      const double x[2] = { 1.0, 2.0 }, w[2] = { 3.0, -1.0 };
      if (strcmp (saved->name, "self") == 0)
        {
          assert_values (saved->value, x, 2);
          saw_self = TRUE;
        }
      else if (strcmp (saved->name, "other") == 0)
        {
          assert_values (saved->value, w, 2);
          saw_other = TRUE;
        }
    }
  g_assert_true (saw_self && saw_other);

  /* Kept by a first call, freed by a second: each call's graph says its own. */
  g_autoptr (GPtrArray) twice = cr_ui_test_models_from_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x * x).sum()\n"
    "y.backward(retain_graph=True)\n"
    "y.backward()\n", NULL, NULL);
  g_assert_cmpuint (twice->len, ==, 2);
  g_assert_false (find_node (g_ptr_array_index (twice, 0), CR_GRAPH_NODE_OP, "MulBackward0")->freed);
  g_assert_true (find_node (g_ptr_array_index (twice, 1), CR_GRAPH_NODE_OP, "MulBackward0")->freed);
}

static void
test_constant (void)
{
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = (x * 2).detach()\n"
    "z = (x * y).sum()\n"
    "z.backward()\n", NULL, NULL);
  g_assert_cmpuint (models->len, ==, 1);
  const CrGraphModel *model = g_ptr_array_index (models, 0);
  /* y is detached: drawn as such, not as a plain constant. */
  const CrGraphNode *y = find_node (model, CR_GRAPH_NODE_DETACHED, "y");
  g_assert_nonnull (y);
  g_assert_cmpstr (y->shape, ==, "3");
  g_assert_cmpstr (y->key, ==, "detached:y");
  const CrRecordTensor *ry = node_tensor (model, y);
  g_assert_false (ry->requires_grad);
  g_assert_cmpint (ry->origin, ==, CR_RECORD_TENSOR_DETACHED);
  g_assert_cmpint (ry->op, <, 0);
  const CrGraphNode *mul = find_node (model, CR_GRAPH_NODE_OP, "MulBackward0");
  g_assert_nonnull (mul);
  gboolean edge_found = FALSE;
  guint n_constants = 0;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      edge_found |= e->from == y->id && e->to == mul->id;
    }
  for (guint i = 0; i < model->nodes->len; i++)
    n_constants += CR_GRAPH_NODE_KIND_IS_CONSTANT (node_at (model, i)->kind);
  g_assert_true (edge_found);
  /* `x * 2` made y without a graph; the 2 itself is no node. */
  g_assert_cmpuint (n_constants, ==, 1);
  /* The step sends a gradient to x only. */
  const CrRecordStep *step = cr_graph_model_get_record_step (model, mul->step);
  guint n_sent = 0;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (in->outgoing.value)
        {
          n_sent++;
          g_assert_cmpstr (in->name, ==, "x");
        }
    }
  g_assert_cmpuint (n_sent, ==, 1);

  /* A Python number operand is no node either. */
  g_autoptr (GPtrArray) numbers = cr_ui_test_models_from_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x * 2 + 1).sum()\n"
    "y.backward()\n", NULL, NULL);
  const CrGraphModel *m2 = g_ptr_array_index (numbers, 0);
  for (guint i = 0; i < m2->nodes->len; i++)
    g_assert_false (CR_GRAPH_NODE_KIND_IS_CONSTANT (node_at (m2, i)->kind));
}

static void
test_two_backwards (void)
{
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (
    "import torch\n"
    "x = torch.tensor(2.0, requires_grad=True)\n"
    "y = x * x\n"
    "y.backward()\n"
    "z = x.exp()\n"
    "z.backward()\n", NULL, NULL);
  g_assert_cmpuint (models->len, ==, 2);
  const CrGraphModel *first = g_ptr_array_index (models, 0);
  const CrGraphModel *second = g_ptr_array_index (models, 1);
  g_assert_cmpstr (first->title, ==, "y.backward() · line 4");
  g_assert_cmpstr (second->title, ==, "z.backward() · line 6");
  g_assert_nonnull (find_node (first, CR_GRAPH_NODE_OP, "MulBackward0"));
  g_assert_nonnull (find_node (second, CR_GRAPH_NODE_OP, "ExpBackward0"));
  g_assert_null (find_node (second, CR_GRAPH_NODE_OP, "MulBackward0"));
  /* x * x: one input twice, so two contributions meet at x. */
  const CrRecordStep *mul = cr_graph_model_get_record_step (first, 0);
  g_assert_cmpuint (mul->inputs->len, ==, 2);
  g_assert_cmpuint (mul->accumulations->len, ==, 1);
  const CrRecordAccumulation *acc = g_ptr_array_index (mul->accumulations, 0);
  g_assert_cmpfloat_with_epsilon (acc->sum->values[0], 4.0, 1e-6);
  /* x * x: each input has its own edge, both into Mul. */
  guint e0 = cr_graph_model_find_step_input_edge (first, 0, 0);
  guint e1 = cr_graph_model_find_step_input_edge (first, 0, 1);
  g_assert_cmpuint (e0, <, first->edges->len);
  g_assert_cmpuint (e1, <, first->edges->len);
  g_assert_cmpuint (e0, !=, e1);
  /* Each AccumulateGrad step shows .grad before and after its own call. */
  const CrRecordStep *leaf = cr_graph_model_get_record_step (second, (int) second->n_steps - 1);
  g_assert_cmpint (leaf->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  g_assert_cmpstr (((CrRecordTensor *) g_ptr_array_index (second->record->tensors, leaf->leaf))->label,
                   ==, "x");
  g_assert_cmpfloat_with_epsilon (leaf->grad_before->values[0], 4.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (leaf->grad_after->values[0], 4.0 + exp (2.0), 1e-5);

  /* Without a backward call: the forward graph alone. */
  g_autoptr (GPtrArray) forward = cr_ui_test_models_from_script (
    "import torch\n"
    "a = torch.ones(2, requires_grad=True)\n"
    "d = (a * 3).sum()\n", NULL, NULL);
  g_assert_cmpuint (forward->len, ==, 1);
  const CrGraphModel *f = g_ptr_array_index (forward, 0);
  g_assert_cmpstr (f->title, ==, "forward graph of d");
  g_assert_cmpuint (f->n_steps, ==, 0);
  g_assert_null (cr_graph_model_get_record_step (f, 0));

  g_autoptr (GPtrArray) none = cr_ui_test_models_from_script ("x = 1\n", NULL, NULL);
  g_assert_cmpuint (none->len, ==, 0);
}

static void
test_keys (void)
{
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  g_autoptr (GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = node_at (model, i);
      g_assert_nonnull (n->key);
      g_assert_true (g_hash_table_add (keys, n->key));
    }
  const char *expected[] = { "leaf:w1", "acc:w1", "out:L", "op:MulBackward0:b = w1 * a",
                             "op:MulBackward0:d = w3 * b + w4 * c",
                             "op:MulBackward0:d = w3 * b + w4 * c#2" };
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_hash_table_contains (keys, expected[i]));

  /* Stable across runs of the same script. */
  g_autoptr (CrGraphModel) again = toy_model (NULL);
  for (guint i = 0; i < again->nodes->len; i++)
    g_assert_true (g_hash_table_contains (keys, node_at (again, i)->key));
}

/* The toy network names b, c and d: the edges leaving their ops carry the
 * names; edges out of leaves and AccumulateGrad, and unnamed results such as
 * w3 * b, carry none. */
static void
test_edge_tensor_names (void)
{
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphNode *from = node_at (model, e->from);
      if (from->kind != CR_GRAPH_NODE_OP)
        g_assert_null (e->tensor_name);
      else if (e->tensor_name)
        {
          const CrRecordTensor *t = g_ptr_array_index (model->record->tensors, e->tensor);
          g_assert_cmpint (t->op, ==, from->op);
          g_assert_cmpstr (e->tensor_name, ==, t->label);
          g_ptr_array_add (names, e->tensor_name);
        }
    }
  g_assert_cmpuint (names->len, ==, 3);
  for (const char *const *want = (const char *const[]) { "b", "c", "d", NULL }; *want; want++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < names->len; i++)
        found |= g_strcmp0 (names->pdata[i], *want) == 0;
      g_assert_true (found);
    }
}

static void
test_info (void)
{
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  const CrGraphNode *w1 = find_node (model, CR_GRAPH_NODE_LEAF, "w1");
  const CrRecordTensor *t = node_tensor (model, w1);
  g_assert_cmpstr (t->label, ==, "w1");
  g_assert_cmpint (t->origin, ==, CR_RECORD_TENSOR_LEAF);
  g_assert_true (t->requires_grad);
  g_assert_false (t->retains_grad);
  g_assert_cmpint (t->op, <, 0);
  g_assert_cmpstr (t->dtype, ==, "torch.float32");
  g_assert_cmpstr (t->device, ==, "cpu");
  g_assert_cmpstr (w1->device, ==, "cpu");
  assert_values (t->value, toy_w1, 9);
  /* .grad: None before the backward call, PyTorch's after it. */
  g_assert_null (cr_run_record_grad_at (model->record, w1->tensor, 0, -1));
  assert_values (cr_run_record_grad_at (model->record, w1->tensor, 0, (int) model->n_steps - 1),
                 toy_torch_grads[1].grad, 9);

  const CrGraphNode *out = find_node (model, CR_GRAPH_NODE_OUTPUT, "L");
  const CrRecordTensor *l_tensor = node_tensor (model, out);
  g_assert_cmpstr (((CrRecordOp *) g_ptr_array_index (model->record->ops, l_tensor->op))->grad_fn,
                   ==, "SumBackward0");
  g_assert_cmpint (l_tensor->origin, ==, CR_RECORD_TENSOR_RESULT);
  g_assert_null (cr_run_record_grad_at (model->record, out->tensor, 0, (int) model->n_steps - 1));
  /* L = Σ (10 - w3*w1*a - w4*w2*a) */
  double l = 0;
  for (guint i = 0; i < 9; i++)
    l += 10 - toy_w3[i] * toy_w1[i] * toy_a[i] - toy_w4[i] * toy_w2[i] * toy_a[i];
  g_assert_cmpfloat_with_epsilon (l_tensor->value->values[0], l, 1e-4);
  g_assert_cmpstr (out->shape, ==, "scalar");

  /* An op: what it saved. 10 - d saves nothing, so nothing of it is freed
   * (the "freed" badge on Rsub, Add and Sum was wrong). */
  const CrGraphNode *rsub = find_node (model, CR_GRAPH_NODE_OP, "RsubBackward1");
  g_assert_cmpint (rsub->tensor, <, 0);
  g_assert_cmpstr (node_op (model, rsub)->grad_fn, ==, "RsubBackward1");
  g_assert_false (rsub->freed);
  g_assert_cmpuint (node_op (model, rsub)->saved->len, ==, 0);
}

static void
test_snapshot (void)
{
  const float data[4] = { 1, 2, 3, 4 };
  const gint64 shape[2] = { 2, 2 };
  g_autoptr (CrTensor) t = cr_tensor_new_from_data (data, shape, 2, CR_DTYPE_FLOAT32, NULL);
  CrTensorSnapshot *s = cr_tensor_snapshot_new (t);
  g_assert_cmpint (s->ndim, ==, 2);
  g_assert_cmpint (s->shape[1], ==, 2);
  g_assert_cmpint (s->numel, ==, 4);
  g_assert_cmpstr (s->dtype, ==, "torch.float32");
  g_assert_cmpstr (s->device, ==, "cpu");
  g_assert_cmpfloat (s->min, ==, 1.0);
  g_assert_cmpfloat (s->max, ==, 4.0);
  g_assert_cmpfloat_with_epsilon (s->mean, 2.5, 1e-12);
  /* torch.std: with Bessel's correction, sqrt(5/3). */
  g_assert_cmpfloat_with_epsilon (s->std, sqrt (5.0 / 3.0), 1e-12);
  g_assert_cmpstr (s->text, ==, "[[1., 2.],\n [3., 4.]]");
  CrTensorSnapshot *c = cr_tensor_snapshot_copy (s);
  cr_tensor_snapshot_free (s);
  g_assert_cmpstr (c->text, ==, "[[1., 2.],\n [3., 4.]]");
  g_assert_cmpfloat (c->values[3], ==, 4.0);
  cr_tensor_snapshot_free (c);
  g_assert_null (cr_tensor_snapshot_new (NULL));
  cr_tensor_snapshot_free (NULL);

  g_autoptr (CrTensor) half = cr_tensor_new_scalar (2.5, CR_DTYPE_FLOAT32);
  s = cr_tensor_snapshot_new (half);
  g_assert_cmpstr (s->text, ==, "2.5000");
  g_assert_true (isnan (s->std));
  cr_tensor_snapshot_free (s);

  const gboolean flags[3] = { TRUE, FALSE, TRUE };
  const guint8 bools[3] = { flags[0], flags[1], flags[2] };
  const gint64 three = 3;
  g_autoptr (CrTensor) b = cr_tensor_new_from_data (bools, &three, 1, CR_DTYPE_BOOL, NULL);
  s = cr_tensor_snapshot_new (b);
  g_assert_cmpstr (s->dtype, ==, "torch.bool");
  g_assert_cmpfloat (s->values[0], ==, 1.0);
  g_assert_cmpfloat (s->values[1], ==, 0.0);
  g_assert_cmpstr (s->text, ==, "[ True, False,  True]");
  cr_tensor_snapshot_free (s);

  const gint64 none = 0;
  g_autoptr (CrTensor) empty = cr_tensor_new_zeros (&none, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  s = cr_tensor_snapshot_new (empty);
  g_assert_cmpint (s->n_values, ==, 0);
  g_assert_true (isnan (s->mean) && isnan (s->std) && isnan (s->min) && isnan (s->max));
  cr_tensor_snapshot_free (s);

  /* Big: the first values kept, the stats over all, no text. */
  const gint64 big = 5000;
  g_autoptr (CrTensor) r = cr_tensor_new_arange (0, (double) big, 1, CR_DTYPE_FLOAT64, NULL);
  g_assert_nonnull (r);
  s = cr_tensor_snapshot_new (r);
  g_assert_cmpint (s->numel, ==, big);
  g_assert_cmpint (s->n_values, ==, CR_SNAPSHOT_MAX_VALUES);
  g_assert_cmpfloat (s->values[CR_SNAPSHOT_MAX_VALUES - 1], ==, CR_SNAPSHOT_MAX_VALUES - 1);
  g_assert_cmpfloat (s->max, ==, big - 1);
  g_assert_cmpfloat_with_epsilon (s->mean, (big - 1) / 2.0, 1e-9);
  g_assert_null (s->text);
  cr_tensor_snapshot_free (s);
}

static void
test_find_line (void)
{
  g_autoptr (CrGraphModel) model = toy_model (NULL);
  const CrGraphNode *n = cr_graph_model_find_line (model, 13);
  g_assert_nonnull (n);
  g_assert_cmpstr (n->title, ==, "MulBackward0");
  g_assert_cmpstr (n->caption, ==, "b = w1 * a");
  n = cr_graph_model_find_line (model, 16);
  g_assert_nonnull (n);
  g_assert_cmpint (n->kind, ==, CR_GRAPH_NODE_OP);
  g_assert_null (cr_graph_model_find_line (model, 1));
  g_assert_null (cr_graph_model_find_line (model, 0));
  g_assert_null (cr_graph_model_find_line (model, 500));
}

static void
test_ref (void)
{
  CrGraphModel *model = toy_model (NULL);
  g_assert_true (cr_graph_model_ref (model) == model);
  cr_graph_model_unref (model);
  /* Still alive after one unref of two. */
  g_assert_cmpuint (model->n_steps, ==, 12);
  cr_graph_model_unref (model);
  cr_graph_model_unref (NULL);
}

/* ---- models from a hand-built run record ------------------------------------ */

/* A 1-d float snapshot of n values. */
static CrTensorSnapshot *
snap_of (const double *values,
         int           n)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = 1;
  s->shape[0] = n;
  s->numel = n;
  s->n_values = n;
  s->values = g_memdup2 (values, sizeof (double) * (gsize) n);
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  return s;
}

static CrRecordTensor *
add_tensor (CrRunRecord          *record,
            const char           *name,
            CrRecordTensorOrigin  origin,
            int                   op)
{
  static const double three[3] = { 1.0, 2.0, 3.0 };
  CrRecordTensor *t = cr_run_record_add_tensor (record);
  t->name = g_strdup (name);
  t->label = g_strdup (name);
  t->origin = origin;
  t->op = op;
  t->ndim = 1;
  t->shape[0] = 3;
  t->dtype = g_strdup ("torch.float32");
  t->device = g_strdup ("cpu");
  t->requires_grad = origin == CR_RECORD_TENSOR_LEAF || origin == CR_RECORD_TENSOR_RESULT;
  t->value = snap_of (three, 3);
  return t;
}

static CrRecordOp *
add_op (CrRunRecord *record,
        const char  *grad_fn,
        const char  *caption,
        int          in0,
        int          in1,
        int          out)
{
  CrRecordOp *op = cr_run_record_add_op (record);
  op->grad_fn = g_strdup (grad_fn);
  op->caption = g_strdup (caption);
  g_array_append_val (op->inputs, in0);
  g_array_append_val (op->inputs, in1);
  g_array_append_val (op->outputs, out);
  return op;
}

static void
add_step_input (CrRecordStep *step,
                int           tensor,
                int           to_op,
                int           to_leaf,
                const char   *name,
                gboolean      gets_grad)
{
  static const double grad[3] = { 4.0, 5.0, 6.0 };
  CrRecordStepInput *in = cr_record_step_add_input (step);
  in->tensor = tensor;
  in->to_op = to_op;
  in->to_leaf = to_leaf;
  in->name = g_strdup (name);
  if (gets_grad)
    {
      in->outgoing.name = g_strdup_printf ("∂L/∂%s", name);
      in->outgoing.value = snap_of (grad, 3);
    }
}

/* y = w * x; s = y + d; L = s * n, with w a leaf, x a constant, d detached,
 * n made under no_grad; one backward from L that frees Mul's saved tensors. */
static CrRunRecord *
hand_record (void)
{
  static const double grad[3] = { 4.0, 5.0, 6.0 };
  CrRunRecord *record = cr_run_record_new ("hand.py", "y = w * x\ns = y + d\nL = s * n\nL.backward()\n");
  add_tensor (record, "w", CR_RECORD_TENSOR_LEAF, -1);              /* 0 */
  add_tensor (record, "x", CR_RECORD_TENSOR_CONSTANT, -1);          /* 1 */
  add_tensor (record, "y", CR_RECORD_TENSOR_RESULT, 0);             /* 2 */
  add_tensor (record, "d", CR_RECORD_TENSOR_DETACHED, -1)->source = 0; /* 3 */
  add_tensor (record, "s", CR_RECORD_TENSOR_RESULT, 1);             /* 4 */
  add_tensor (record, "n", CR_RECORD_TENSOR_NO_GRAD, -1);           /* 5 */
  add_tensor (record, "L", CR_RECORD_TENSOR_RESULT, 2);             /* 6 */
  CrRecordOp *mul = add_op (record, "MulBackward0", "y = w * x", 0, 1, 2);
  add_op (record, "AddBackward0", "s = y + d", 2, 3, 4);
  CrRecordOp *mul2 = add_op (record, "MulBackward0", "L = s * n", 4, 5, 6);
  mul->symbol = g_strdup ("×");
  for (guint k = 0; k < 2; k++)
    {
      CrRecordSaved *saved = cr_record_op_add_saved (mul);
      saved->name = g_strdup (k ? "other" : "self");
      saved->tensor = (int) k;
      saved->ndim = 1;
      saved->shape[0] = 3;
      saved->freed_backward = 0;
      saved->freed_step = 2;
    }
  CrRecordSaved *kept = cr_record_op_add_saved (mul2);
  kept->name = g_strdup ("self");
  kept->tensor = 4;
  kept->value = snap_of (grad, 3);

  CrRecordBackward *call = cr_run_record_add_backward (record);
  call->title = g_strdup ("L.backward() · line 4");
  call->span = (CrSpan) { .line = 4, .column = 1, .end_line = 4, .end_column = 13 };
  call->root_name = g_strdup ("L");
  call->succeeded = TRUE;
  int root = 6;
  g_array_append_val (call->roots, root);
  const int ops[3] = { 2, 1, 0 };
  for (guint k = 0; k < 3; k++)
    {
      CrRecordStep *step = cr_record_backward_add_step (call);
      step->kind = CR_RECORD_STEP_NODE;
      step->op = ops[k];
      step->title = g_strdup (k == 1 ? "AddBackward0" : "MulBackward0");
      CrRecordGrad *in = cr_record_step_add_incoming (step);
      in->name = g_strdup (k == 0 ? "∂L/∂L" : k == 1 ? "∂L/∂s" : "∂L/∂y");
      in->value = snap_of (grad, 3);
    }
  CrRecordStep *s0 = g_ptr_array_index (call->steps, 0);
  add_step_input (s0, 4, 1, -1, "s", TRUE);
  add_step_input (s0, 5, -1, -1, "n", FALSE);
  CrRecordStepInput *local = g_ptr_array_index (s0->inputs, 0);
  local->local_name = g_strdup ("∂L/∂s");
  local->local = snap_of (grad, 3);
  CrRecordStep *s1 = g_ptr_array_index (call->steps, 1);
  add_step_input (s1, 2, 0, -1, "y", TRUE);
  add_step_input (s1, 3, -1, -1, "d", FALSE);
  CrRecordStep *s2 = g_ptr_array_index (call->steps, 2);
  add_step_input (s2, 0, -1, 0, "w", TRUE);
  add_step_input (s2, 1, -1, -1, "x", FALSE);
  CrRecordStep *acc = cr_record_backward_add_step (call);
  acc->kind = CR_RECORD_STEP_ACCUMULATE;
  acc->leaf = 0;
  acc->title = g_strdup ("AccumulateGrad");
  acc->caption = g_strdup ("w");
  acc->grad_after = snap_of (grad, 3);
  for (guint k = 0; k < call->steps->len; k++)
    ((CrRecordStep *) g_ptr_array_index (call->steps, k))->index = k;
  return record;
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
test_record_model (void)
{
  CrRunRecord *record = hand_record ();
  CrGraphModel *model = cr_graph_model_new_from_run_record (record, 0);
  /* The model holds its own reference. */
  cr_run_record_unref (record);
  g_assert_nonnull (model);
  g_assert_true (model->record == record);
  g_assert_cmpint (model->backward, ==, 0);
  g_assert_cmpstr (model->title, ==, "L.backward() · line 4");
  g_assert_cmpint (model->span.line, ==, 4);
  g_assert_true (model->succeeded);

  /* Mul, L, Add, n, Mul, d, AccumulateGrad, w, x; 8 edges. */
  g_assert_cmpuint (model->nodes->len, ==, 9);
  g_assert_cmpuint (model->edges->len, ==, 8);
  const CrGraphNode *w = node_titled (model, "w");
  const CrGraphNode *x = node_titled (model, "x");
  const CrGraphNode *d = node_titled (model, "d");
  const CrGraphNode *n = node_titled (model, "n");
  const CrGraphNode *L = node_titled (model, "L");
  g_assert_cmpint (w->kind, ==, CR_GRAPH_NODE_LEAF);
  g_assert_cmpint (x->kind, ==, CR_GRAPH_NODE_CONSTANT);
  g_assert_cmpint (d->kind, ==, CR_GRAPH_NODE_DETACHED);
  g_assert_cmpint (n->kind, ==, CR_GRAPH_NODE_NO_GRAD);
  g_assert_cmpint (L->kind, ==, CR_GRAPH_NODE_OUTPUT);
  g_assert_cmpstr (w->key, ==, "leaf:w");
  g_assert_cmpstr (x->key, ==, "const:x");
  g_assert_cmpstr (d->key, ==, "detached:d");
  g_assert_cmpstr (n->key, ==, "nograd:n");
  g_assert_cmpstr (w->shape, ==, "3");
  /* A card's values as a grid: no brackets or commas. */
  g_assert_cmpstr (w->preview, ==, "1. 2. 3.");

  /* Each node says what it draws, and the lookups find it. */
  g_assert_true (cr_graph_model_find_tensor (model, 0) == w);
  g_assert_true (cr_graph_model_find_tensor (model, 1) == x);
  g_assert_true (cr_graph_model_find_tensor (model, 3) == d);
  g_assert_true (cr_graph_model_find_tensor (model, 6) == L);
  g_assert_null (cr_graph_model_find_tensor (model, 2));   /* y: Mul's out-edge */
  g_assert_null (cr_graph_model_find_tensor (model, 99));
  const CrGraphNode *acc = cr_graph_model_find_accumulate (model, 0);
  g_assert_cmpint (acc->kind, ==, CR_GRAPH_NODE_ACCUMULATE);
  g_assert_cmpint (acc->tensor, ==, 0);
  for (int op = 0; op < 3; op++)
    {
      const CrGraphNode *node = cr_graph_model_find_op (model, op);
      g_assert_nonnull (node);
      g_assert_cmpint (node->kind, ==, CR_GRAPH_NODE_OP);
      g_assert_cmpint (node->op, ==, op);
      /* Steps ran Mul (op 2), Add, Mul (op 0), then w's AccumulateGrad. */
      g_assert_cmpint (node->step, ==, 2 - op);
    }
  g_assert_cmpint (acc->step, ==, 3);
  g_assert_cmpstr (cr_graph_model_find_op (model, 0)->caption, ==, "y = w * x");
  g_assert_cmpstr (cr_graph_model_find_op (model, 0)->symbol, ==, "×");
  g_assert_null (cr_graph_model_find_op (model, 5));

  /* "freed" only on the op whose saved tensors a backward freed. */
  g_assert_true (cr_graph_model_find_op (model, 0)->freed);
  g_assert_false (cr_graph_model_find_op (model, 1)->freed);
  g_assert_false (cr_graph_model_find_op (model, 2)->freed);
  g_assert_cmpuint (node_op (model, cr_graph_model_find_op (model, 1))->saved->len, ==, 0);

  /* The intermediate tensors' names ride on their edges. */
  guint named = 0;
  for (guint e = 0; e < model->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
      g_assert_cmpint (edge->tensor, >=, 0);
      if (edge->tensor_name)
        {
          named++;
          g_assert_cmpint (edge->tensor, ==, strcmp (edge->tensor_name, "y") == 0 ? 2 : 4);
          g_assert_cmpint (edge->input, ==, 0);
        }
    }
  g_assert_cmpuint (named, ==, 2);

  /* The steps are the record's. */
  g_assert_cmpuint (model->n_steps, ==, 4);
  const CrRecordBackward *call = cr_graph_model_get_backward (model);
  g_assert_true (call == g_ptr_array_index (record->backwards, 0));
  g_assert_true (cr_graph_model_get_record_step (model, 1) == g_ptr_array_index (call->steps, 1));
  g_assert_null (cr_graph_model_get_record_step (model, 4));
  g_assert_null (cr_graph_model_get_record_step (model, -1));
  const CrRecordStep *first = cr_graph_model_get_record_step (model, 0);
  guint edge = cr_graph_model_find_step_input_edge (model, 0, 0);
  g_assert_cmpuint (edge, <, model->edges->len);
  const CrGraphEdge *e = g_ptr_array_index (model->edges, edge);
  g_assert_cmpuint (e->to, ==, cr_graph_model_find_op (model, 2)->id);
  g_assert_cmpuint (e->from, ==, cr_graph_model_find_op (model, 1)->id);
  g_assert_true (cr_graph_model_find_step_input_node (model, g_ptr_array_index (first->inputs, 0))
                 == cr_graph_model_find_op (model, 1));
  /* n gets no gradient but its edge is drawn; w's goes into its AccumulateGrad. */
  guint n_edge = cr_graph_model_find_step_input_edge (model, 0, 1);
  g_assert_cmpuint (((CrGraphEdge *) g_ptr_array_index (model->edges, n_edge))->from, ==, n->id);
  const CrRecordStep *third = cr_graph_model_get_record_step (model, 2);
  g_assert_true (cr_graph_model_find_step_input_node (model, g_ptr_array_index (third->inputs, 0)) == acc);
  guint w_edge = cr_graph_model_find_step_input_edge (model, 2, 0);
  g_assert_cmpuint (((CrGraphEdge *) g_ptr_array_index (model->edges, w_edge))->from, ==, acc->id);

  g_assert_true (cr_graph_model_find_step_node (model, 0) == cr_graph_model_find_op (model, 2));
  g_assert_true (cr_graph_model_find_step_node (model, 3) == acc);
  g_assert_null (cr_graph_model_find_step_node (model, 4));
  const CrTensorSnapshot *w_grad = cr_run_record_grad_at (record, w->tensor, 0, 3);
  g_assert_nonnull (w_grad);
  g_assert_cmpfloat (w_grad->values[2], ==, 6.0);
  g_assert_null (cr_run_record_grad_at (record, w->tensor, 0, 2));

  /* Drawn, in both styles, with its new kinds. */
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  g_assert_nonnull (layout);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) layout->width,
                                                         (int) layout->height);
  cairo_t *cr = cairo_create (surface);
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.current_step = 1;
  cr_graph_render (cr, model, layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  cr_graph_model_unref (model);
}

static void
test_record_forward (void)
{
  g_autoptr (CrRunRecord) record = hand_record ();
  g_autoptr (CrGraphModel) forward = cr_graph_model_new_from_run_record (record, -1);
  g_assert_nonnull (forward);
  g_assert_cmpint (forward->backward, ==, -1);
  g_assert_cmpstr (forward->title, ==, "forward graph of L");
  g_assert_cmpuint (forward->n_steps, ==, 0);
  g_assert_null (cr_graph_model_get_backward (forward));
  g_assert_null (cr_graph_model_get_record_step (forward, 0));
  g_assert_cmpuint (forward->nodes->len, ==, 9);
  g_assert_null (cr_graph_model_new_from_run_record (record, 1));

  g_autoptr (GPtrArray) models = cr_graph_models_new_from_run_record (record);
  g_assert_cmpuint (models->len, ==, 1);
  g_assert_cmpint (((CrGraphModel *) g_ptr_array_index (models, 0))->backward, ==, 0);

  /* No op at all: no graph. */
  g_autoptr (CrRunRecord) empty = cr_run_record_new (NULL, NULL);
  g_assert_null (cr_graph_model_new_from_run_record (empty, -1));
  g_autoptr (GPtrArray) none = cr_graph_models_new_from_run_record (empty);
  g_assert_cmpuint (none->len, ==, 0);
}

/* Inputs that get no gradient say why: made under no_grad, detached; a
 * detached tensor given requires_grad_() is a leaf of its own. */
static void
test_record_kinds (void)
{
  g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (
    "import torch\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    n = w * 2\n"
    "d = w.detach()\n"
    "e = w.detach()\n"
    "e.requires_grad_()\n"
    "L = (w * n * d + e).sum()\n"
    "L.backward()\n", NULL, NULL);
  g_assert_cmpuint (models->len, ==, 1);
  const CrGraphModel *model = g_ptr_array_index (models, 0);
  const CrGraphNode *n = node_titled (model, "n");
  const CrGraphNode *d = node_titled (model, "d");
  const CrGraphNode *e = node_titled (model, "e");
  g_assert_nonnull (n);
  g_assert_nonnull (d);
  g_assert_nonnull (e);
  g_assert_cmpint (n->kind, ==, CR_GRAPH_NODE_NO_GRAD);
  g_assert_cmpstr (n->key, ==, "nograd:n");
  g_assert_cmpint (d->kind, ==, CR_GRAPH_NODE_DETACHED);
  g_assert_cmpint (e->kind, ==, CR_GRAPH_NODE_LEAF);
  const CrGraphNode *acc = cr_graph_model_find_accumulate (model, e->tensor);
  g_assert_nonnull (acc);
  g_assert_cmpint (acc->kind, ==, CR_GRAPH_NODE_ACCUMULATE);
  g_assert_cmpint (acc->step, >=, 0);
  g_assert_true (cr_graph_model_find_tensor (model, n->tensor) == n);
  const CrRecordTensor *rn = g_ptr_array_index (model->record->tensors, n->tensor);
  g_assert_cmpint (rn->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
}

/* A leaf card shows its values as an aligned grid, a tall matrix's
 * middle rows elided (the inspector has the whole value). */
static void
test_preview_grid (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "w = torch.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], requires_grad=True)\n"
    "v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]],\n"
    "                 requires_grad=True)\n"
    "s = torch.tensor(2.5, requires_grad=True)\n"
    "((w @ w.t()).sum() + v.sum() * s).backward()\n", "grid.py");
  g_assert_nonnull (model);
  g_assert_cmpstr (node_titled (model, "w")->preview, ==,
                   "1.00 -2.00  0.50\n"
                   "0.25  3.00 -1.00");
  g_assert_cmpstr (node_titled (model, "v")->preview, ==,
                   "1.  2.\n"
                   "3.  4.\n"
                   "⋮\n"
                   "9. 10.");
  g_assert_cmpstr (node_titled (model, "s")->preview, ==, "2.50");
}

/* A drawing told as items (cr-graph-render-same.h): the same drawing
 * again differs nowhere; the next step differs in places only (the nodes
 * and edges it rings, checks and labels), all inside the drawing; another
 * style differs as a whole. */
static void
test_items (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  g_autoptr (GError) error = NULL;
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, &error);
  g_assert_no_error (error);
  CrGraphRenderOptions a, b;
  cr_graph_render_options_init (&a);
  a.cache = cache;
  a.current_step = 1;
  b = a;
  CrGraphDrawing da = { model, layout, &a }, db = { model, layout, &b };
  g_assert_true (cr_graph_render_same_drawing (&da, &db));
  g_autoptr (GArray) items = cr_graph_render_drawing_items (&da);
  g_assert_cmpuint (items->len, >, model->nodes->len + model->edges->len);

  g_autoptr (GArray) dirty = g_array_new (FALSE, FALSE, sizeof (double));
  b.current_step = 2;
  g_assert_true (cr_graph_render_drawing_changes (&da, &db, dirty));
  g_assert_cmpuint (dirty->len, >, 0);
  g_assert_cmpuint (dirty->len % 4, ==, 0);
  for (guint i = 0; i < dirty->len; i += 4)
    {
      const double *r = &g_array_index (dirty, double, i);
      g_assert_cmpfloat (r[0], <, r[2]);
      g_assert_cmpfloat (r[0], >, -40);
      g_assert_cmpfloat (r[2], <, layout->width + 40);
    }
  g_assert_false (cr_graph_render_same_drawing (&da, &db));

  b.current_step = a.current_step;
  b.style = CR_GRAPH_STYLE_DARK;
  g_array_set_size (dirty, 0);
  g_assert_false (cr_graph_render_drawing_changes (&da, &db, dirty));
  g_assert_cmpuint (dirty->len, ==, 0);
  cr_graph_layout_free (layout);
  cr_graph_render_cache_free (cache);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graph/model-toy", test_model_toy);
  g_test_add_func ("/ui/graph/layout-toy", test_layout_toy);
  g_test_add_func ("/ui/graph/layout-examples", test_layout_examples);
  g_test_add_func ("/ui/graph/render-toy", test_render_toy);
  g_test_add_func ("/ui/graph/steps-toy", test_steps_toy);
  g_test_add_func ("/ui/graph/steps-match-trace", test_steps_match_trace);
  g_test_add_func ("/ui/graph/freed", test_freed);
  g_test_add_func ("/ui/graph/constant", test_constant);
  g_test_add_func ("/ui/graph/two-backwards", test_two_backwards);
  g_test_add_func ("/ui/graph/keys", test_keys);
  g_test_add_func ("/ui/graph/info", test_info);
  g_test_add_func ("/ui/graph/edge-tensor-names", test_edge_tensor_names);
  g_test_add_func ("/ui/graph/snapshot", test_snapshot);
  g_test_add_func ("/ui/graph/find-line", test_find_line);
  g_test_add_func ("/ui/graph/ref", test_ref);
  g_test_add_func ("/ui/graph/record-model", test_record_model);
  g_test_add_func ("/ui/graph/preview-grid", test_preview_grid);
  g_test_add_func ("/ui/graph/record-forward", test_record_forward);
  g_test_add_func ("/ui/graph/record-kinds", test_record_kinds);
  g_test_add_func ("/ui/graph/items", test_items);
  return g_test_run ();
}
