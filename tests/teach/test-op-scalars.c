/* test-op-scalars.c — a small op's scalar graph (core/teach/cr-op-scalars.h):
 * on every example and on the scalars_* cases, every op the view can open
 * opens, and the sum over each input element's scalar edges of (incoming
 * gradient × local derivative) equals what the record's backward step sent
 * to that element; a 2x2 matmul's graph has its eight products and four
 * sums; element-by-element stepping adds up; other ops are refused by name. */
#include "teach-test-util.h"
#include "cr-interp.h"
#include "cr-op-scalars.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

static int
op_named (const CrRunRecord *record,
          const char        *grad_fn)
{
  for (guint i = 0; i < record->ops->len; i++)
    if (g_strcmp0 (((const CrRecordOp *) record->ops->pdata[i])->grad_fn, grad_fn) == 0)
      return (int) i;
  g_error ("no %s in the record", grad_fn);
  return -1;
}

static CrRunRecord *
record_file (const char *dir,
             const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  return teach_test_record_script (source, name);
}

/* Opens every op of record that can be opened, in every backward step that
 * ran it; returns how many input elements were compared with the step. */
static guint
check_record (const CrRunRecord *record,
              const char        *name,
              guint             *opened)
{
  guint compared = 0;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = record->ops->pdata[i];
      g_autofree char *why = NULL;
      if (!cr_op_scalars_can_open (record, (int) i, &why))
        {
          /* Only ops of another kind and custom Functions are left closed:
           * every op of a kind covered opens, parameters updated by a
           * training loop included. */
          if (!strstr (why, "is not one the scalar view takes apart")
              && !(op->custom_function && strstr (why, "is a custom Function")))
            g_error ("%s: %s (%s) not opened: %s", name, op->grad_fn,
                     op->caption ? op->caption : "", why);
          g_test_message ("%s: %s not opened: %s", name, op->grad_fn, why);
          continue;
        }
      for (guint c = 0; c < record->backwards->len; c++)
        {
          const CrRecordBackward *call = record->backwards->pdata[c];
          for (guint s = 0; s < call->steps->len; s++)
            {
              const CrRecordStep *step = call->steps->pdata[s];
              if (step->kind != CR_RECORD_STEP_NODE || step->op != (int) i || step->failed)
                continue;
              g_autoptr (GError) error = NULL;
              g_autoptr (CrOpScalars) scalars = cr_op_scalars_new (record, (int) i, (int) c,
                                                                   (int) s, &error);
              if (!scalars)
                g_error ("%s: %s (%s) does not open: %s", name, op->grad_fn,
                         op->caption ? op->caption : "", error->message);
              g_assert_cmpint (scalars->step, ==, (int) s);
              (*opened)++;
              for (guint n = 0; n < scalars->nodes->len; n++)
                {
                  const CrScalarNode *node = scalars->nodes->pdata[n];
                  if (node->kind != CR_SCALAR_NODE_INPUT)
                    continue;
                  double sent = cr_op_scalars_sent (scalars, record, node->tensor, node->element);
                  if (isnan (sent))
                    continue;
                  if (!cr_op_scalars_same_grad (node->grad, sent))
                    g_error ("%s: %s (%s): %s: the scalar edges give %.9g, the step sent %.9g",
                             name, op->grad_fn, op->caption ? op->caption : "", node->label,
                             node->grad, sent);
                  /* Stepping element by element ends where the step did. */
                  double all = cr_op_scalars_grad_upto (scalars, node->tensor, node->element,
                                                        scalars->n_sub_steps);
                  g_assert_true (cr_op_scalars_same_grad (all, sent));
                  compared++;
                }
              g_autofree char *text = cr_op_scalars_format (scalars, record);
              g_assert_null (strstr (text, "DIFFERENT"));
            }
        }
    }
  return compared;
}

static void
test_examples (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint compared = 0, opened = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autoptr (CrRunRecord) record = record_file (dir, name);
      compared += check_record (record, name, &opened);
    }
  g_test_message ("examples: %u steps opened, %u input elements compared", opened, compared);
  /* 11-mlp-training's ops in all its 201 iterations among them. */
  g_assert_cmpuint (opened, >=, 1400);
  g_assert_cmpuint (compared, >=, 15000);
}

static void
test_cases (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "app", "cases", NULL);
  const char *names[] = { "scalars_matmul.py", "scalars_broadcast.py", "scalars_linear.py",
                          "scalars_conv.py", "scalars_norm.py", "scalars_pieces.py",
                          "scalars_alpha.py", "scalars_transposed.py", "scalars_nll_weights.py",
                          "scalars_split.py", "scalars_activations.py", "scalars_extrema.py",
                          "scalars_robust.py", "scalars_reductions.py", "scalars_copies.py",
                          "scalars_pointwise.py", "scalars_functions.py", "scalars_options.py" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (CrRunRecord) record = record_file (dir, names[i]);
      guint opened = 0;
      guint compared = check_record (record, names[i], &opened);
      g_test_message ("%s: %u steps opened, %u input elements compared", names[i], opened,
                      compared);
      /* Every op of these scripts opens: none is left out. */
      guint steps = 0;
      for (guint c = 0; c < record->backwards->len; c++)
        {
          const CrRecordBackward *call = record->backwards->pdata[c];
          for (guint s = 0; s < call->steps->len; s++)
            steps += ((const CrRecordStep *) call->steps->pdata[s])->kind == CR_RECORD_STEP_NODE;
        }
      g_assert_cmpuint (opened, ==, steps);
      g_assert_cmpuint (compared, >, 10);
    }
}

static void
test_matmul_structure (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
    "b = torch.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)\n"
    "c = a @ b\n"
    "(c * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()\n", "mm.py");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) s = cr_op_scalars_new (record, op_named (record, "MmBackward0"), -1,
                                                 -1, &error);
  g_assert_no_error (error);
  guint kinds[3] = { 0, 0, 0 };
  for (guint i = 0; i < s->nodes->len; i++)
    kinds[((const CrScalarNode *) s->nodes->pdata[i])->kind]++;
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_INPUT], ==, 8);
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_INNER], ==, 8);
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_OUTPUT], ==, 4);
  g_assert_cmpuint (s->edges->len, ==, 8 * 2 + 8);
  g_assert_cmpuint (s->n_sub_steps, ==, 4);
  int c00 = cr_op_scalars_find_node (s, 2, 0);
  g_assert_cmpint (c00, >=, 0);
  const CrScalarNode *node = s->nodes->pdata[c00];
  g_assert_cmpstr (node->equation, ==, "c[0, 0] = a[0, 0]·b[0, 0] + a[0, 1]·b[1, 0]");
  g_assert_cmpstr (node->numbers, ==, "1·5 + 2·7");
  g_assert_cmpfloat (node->value, ==, 19);
  g_assert_cmpfloat (node->grad, ==, 1);
  /* ∂L/∂a = G·Bᵀ with G = [[1, 2], [3, 4]]: a[0, 0] gets 1·5 + 2·6 = 17,
   * 5 from c[0, 0] (sub-step 0) and 12 from c[0, 1] (sub-step 1). */
  g_assert_cmpfloat (cr_op_scalars_grad_upto (s, 0, 0, 0), ==, 0);
  g_assert_cmpfloat (cr_op_scalars_grad_upto (s, 0, 0, 1), ==, 5);
  g_assert_cmpfloat (cr_op_scalars_grad_upto (s, 0, 0, 2), ==, 17);
  g_assert_cmpfloat (cr_op_scalars_grad_upto (s, 0, 0, 4), ==, 17);
  g_assert_cmpuint (cr_op_scalars_count_disagreements (s, record), ==, 0);
  /* Every edge goes from a node to a later one, and edges come by sub-step. */
  guint last = 0;
  for (guint i = 0; i < s->edges->len; i++)
    {
      const CrScalarEdge *edge = s->edges->pdata[i];
      g_assert_cmpuint (edge->from, <, edge->to);
      g_assert_cmpuint (edge->sub_step, >=, last);
      last = edge->sub_step;
    }
  g_autofree char *text = cr_op_scalars_format (s, record);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "/∂a[0, 0] = ∂L/∂c[0, 0]·b[0, 0] + ∂L/∂c[0, 1]·b[0, 1]\n"
                                  "              = 1·5 + 2·6\n"
                                  "              = 17   (the step sent 17)\n"));
}

static void
test_refused (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = torch.div(x, torch.ones(3) * 2, rounding_mode='floor')\n"
    "big = torch.ones(8, 8, requires_grad=True)\n"
    "z = big * 2\n"
    "w = x.add(x, alpha=2)\n"
    "(y.sum() + z.sum() + w.sum()).backward()\n", "refused.py");
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;
  g_assert_false (cr_op_scalars_can_open (record, op_named (record, "DivBackward2"), &why));
  g_assert_nonnull (strstr (why, "DivBackward2 (line 3)"));
  g_autoptr (CrOpScalars) none = cr_op_scalars_new (record, op_named (record, "DivBackward2"), -1, -1,
                                                     &error);
  g_assert_null (none);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR);
  g_clear_error (&error);
  g_clear_pointer (&why, g_free);
  /* big * 2: 64 + 64 elements. */
  g_assert_false (cr_op_scalars_can_open (record, op_named (record, "MulBackward0"), &why));
  g_assert_nonnull (strstr (why, "128 elements"));
  /* add with alpha opens (it was refused): alpha scales the other operand. */
  g_autoptr (CrOpScalars) alpha = cr_op_scalars_new (record, op_named (record, "AddBackward0"), -1, -1,
                                                     &error);
  g_assert_no_error (error);
  const CrScalarNode *w0 = NULL;
  for (guint i = 0; i < alpha->nodes->len && !w0; i++)
    if (((const CrScalarNode *) alpha->nodes->pdata[i])->kind == CR_SCALAR_NODE_OUTPUT)
      w0 = alpha->nodes->pdata[i];
  g_assert_nonnull (w0);
  g_assert_cmpstr (w0->equation, ==, "w[0] = x[0] + 2·x[0]");

  /* A custom Function: its backward is the script's. */
  g_autoptr (CrRunRecord) custom = teach_test_record_script (
    "import torch\n"
    "class Double(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * 2\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "Double.apply(x).sum().backward()\n", "custom.py");
  g_clear_pointer (&why, g_free);
  g_assert_false (cr_op_scalars_can_open (custom, op_named (custom, "DoubleBackward"), &why));
  g_assert_nonnull (strstr (why, "is a custom Function: its backward is the script's own code "
                                 "(Double.backward)"));
}

/* A 2x2 kernel over a 3x3 input: each of the four outputs is the bias
 * plus four products of its window; x[1, 1] is in every window. */
static void
test_conv_structure (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "x = torch.arange(9.0).view(1, 1, 3, 3).requires_grad_()\n"
    "w = torch.tensor([[[[1.0, -1.0], [2.0, 0.5]]]], requires_grad=True)\n"
    "b = torch.tensor([0.5], requires_grad=True)\n"
    "y = F.conv2d(x, w, b)\n"
    "(y * torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])).sum().backward()\n", "conv.py");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) s = cr_op_scalars_new (record, op_named (record, "ConvolutionBackward0"),
                                                 -1, -1, &error);
  g_assert_no_error (error);
  guint kinds[3] = { 0, 0, 0 };
  for (guint i = 0; i < s->nodes->len; i++)
    kinds[((const CrScalarNode *) s->nodes->pdata[i])->kind]++;
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_INPUT], ==, 9 + 4 + 1);
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_INNER], ==, 16);
  g_assert_cmpuint (kinds[CR_SCALAR_NODE_OUTPUT], ==, 4);
  int y00 = cr_op_scalars_find_node (s, 3, 0);
  g_assert_cmpint (y00, >=, 0);
  const CrScalarNode *node = s->nodes->pdata[y00];
  g_assert_cmpstr (node->equation, ==, "y[0, 0, 0, 0] = b[0] + x[0, 0, 0, 0]·w[0, 0, 0, 0] + "
                   "x[0, 0, 0, 1]·w[0, 0, 0, 1] + x[0, 0, 1, 0]·w[0, 0, 1, 0] + "
                   "x[0, 0, 1, 1]·w[0, 0, 1, 1]");
  g_assert_cmpfloat (node->value, ==, 0.5 + 0 - 1 + 6 + 2);
  /* x[1, 1] (element 4) is in all four windows, under each kernel element:
   * 1·0.5 + 2·2 + 3·(-1) + 4·1. */
  g_assert_cmpfloat (cr_op_scalars_grad_upto (s, 0, 4, s->n_sub_steps), ==, 0.5 + 4 - 3 + 4);
  g_assert_cmpuint (cr_op_scalars_count_disagreements (s, record), ==, 0);
}

/* layer_norm: a mean and a variance per row as nodes between, x̂ from them. */
static void
test_layer_norm_structure (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "x = torch.tensor([[1.0, 2.0, 4.0], [0.0, -1.0, 1.0]], requires_grad=True)\n"
    "y = F.layer_norm(x, (3,))\n"
    "(y * torch.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]])).sum().backward()\n", "ln.py");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) s = cr_op_scalars_new (record, op_named (record,
                                                                   "NativeLayerNormBackward0"),
                                                 -1, -1, &error);
  g_assert_no_error (error);
  const CrScalarNode *mean = NULL, *var = NULL;
  for (guint i = 0; i < s->nodes->len; i++)
    {
      const CrScalarNode *node = s->nodes->pdata[i];
      if (g_strcmp0 (node->label, "μ[0]") == 0)
        mean = node;
      else if (g_strcmp0 (node->label, "σ²[0]") == 0)
        var = node;
    }
  g_assert_nonnull (mean);
  g_assert_nonnull (var);
  g_assert_cmpstr (mean->equation, ==, "μ[0] = (x[0, 0] + x[0, 1] + x[0, 2])/3");
  g_assert_true (fabs (mean->value - 7.0 / 3) < 1e-9);
  g_assert_true (fabs (var->value - 14.0 / 9) < 1e-9);
  g_assert_cmpuint (cr_op_scalars_count_disagreements (s, record), ==, 0);
  /* Stepped element by element, y[0, 0] alone (its incoming gradient 1)
   * sends x[0, 0] ∂y[0, 0]/∂x[0, 0] = r·(1 − 1/3 − x̂²/3), through μ and σ²
   * as well as directly, though μ and σ² serve the whole row. */
  double r = 1 / sqrt (14.0 / 9 + 1e-5), xhat = (1 - 7.0 / 3) * r;
  g_assert_cmpfloat_with_epsilon (cr_op_scalars_grad_upto (s, 0, 0, 1),
                                  r * (2.0 / 3 - xhat * xhat / 3), 1e-5);
  g_assert_true (cr_op_scalars_same_grad (cr_op_scalars_grad_upto (s, 0, 0, s->n_sub_steps),
                                          cr_op_scalars_sent (s, record, 0, 0)));
  g_autofree char *text = cr_op_scalars_format (s, record);
  g_assert_nonnull (strstr (text, "  σ²[1] = ((x[1, 0] − μ[1])² + (x[1, 1] − μ[1])² + "
                                  "(x[1, 2] − μ[1])²)/3\n"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/op-scalars/examples", test_examples);
  g_test_add_func ("/op-scalars/cases", test_cases);
  g_test_add_func ("/op-scalars/matmul-structure", test_matmul_structure);
  g_test_add_func ("/op-scalars/refused", test_refused);
  g_test_add_func ("/op-scalars/conv-structure", test_conv_structure);
  g_test_add_func ("/op-scalars/layer-norm-structure", test_layer_norm_structure);
  return g_test_run ();
}
