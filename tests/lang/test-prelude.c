/* test-prelude.c — the prelude (core/lang/prelude) seen from a run: what
 * torch.nn's script code does shows up as the user's code, never as its own.
 * Graph nodes carry the span of the script line that called into the prelude,
 * an error's span is the innermost script line, tracebacks name the prelude's
 * files as PyTorch's, warnings point at the script. */
#include "cr-interp.h"
#include "lang-test-run.h"
#include "cr-node.h"
#include "cr-tensor.h"

#include <string.h>

typedef LangTestRun Run;

static void
run_clear (Run *r)
{
  lang_test_run_clear (r);
}

static gboolean
run_script (const char *source,
            gboolean    record,
            Run        *r)
{
  CrInterpOptions o = { .record_backward = record };
  gboolean ok = lang_test_run ("net.py", source, &o, r);
  if (!ok && r->error)
    g_test_message ("%s", r->error->traceback);
  return ok;
}

static const char net_source[] =
  "import torch\n"                                         /* 1 */
  "import torch.nn as nn\n"                                /* 2 */
  "import torch.nn.functional as F\n"                      /* 3 */
  "class Net(nn.Module):\n"                                /* 4 */
  "    def __init__(self):\n"                              /* 5 */
  "        super().__init__()\n"                           /* 6 */
  "        self.fc1 = nn.Linear(2, 3)\n"                   /* 7 */
  "        self.fc2 = nn.Linear(3, 1)\n"                   /* 8 */
  "    def forward(self, x):\n"                            /* 9 */
  "        h = F.relu(self.fc1(x))\n"                      /* 10 */
  "        return self.fc2(h)\n"                           /* 11 */
  "model = Net()\n"                                        /* 12 */
  "seq = nn.Sequential(nn.Linear(3, 2), nn.Tanh())\n"      /* 13 */
  "out = model(torch.ones(4, 2))\n"                        /* 14 */
  "y = seq(torch.ones(4, 3)).sum()\n"                      /* 15 */
  "loss = nn.MSELoss()(out, torch.zeros(4, 1)) + y\n"      /* 16 */
  "loss.backward()\n";                                     /* 17 */

/* Every node made while running nn's code is attributed to the script: the
 * user's forward (lines 10, 11) or the line calling the module (15, 16). */
static void
test_node_spans (void)
{
  static const int lines[] = { 10, 11, 15, 16 };
  Run r;

  g_assert_true (run_script (net_source, TRUE, &r));
  g_autoptr (CrRunRecord) record = cr_interp_get_run_record (r.interp);
  g_assert_cmpuint (record->backwards->len, ==, 1);
  const CrRecordBackward *rec = g_ptr_array_index (record->backwards, 0);
  guint n_ops = 0;
  for (guint i = 0; i < rec->steps->len; i++)
    {
      const CrRecordStep *s = rec->steps->pdata[i];
      gboolean user_line = FALSE;

      if (s->kind == CR_RECORD_STEP_ACCUMULATE)
        {
          /* Parameters are called as named_parameters() calls them. */
          const CrRecordTensor *leaf = g_ptr_array_index (record->tensors, s->leaf);
          const char *name = leaf->label;
          g_test_message ("AccumulateGrad of %s", name);
          g_assert_nonnull (name);
          g_assert_true (g_str_has_suffix (name, "fc1.weight") || g_str_has_suffix (name, "fc1.bias")
                         || g_str_has_suffix (name, "fc2.weight") || g_str_has_suffix (name, "fc2.bias")
                         || g_str_has_suffix (name, "0.weight") || g_str_has_suffix (name, "0.bias"));
          continue;
        }
      const CrRecordOp *op = g_ptr_array_index (record->ops, s->op);
      for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
        user_line |= op->span.line == lines[k];
      g_test_message ("%s at line %d: %s", s->title, op->span.line, s->caption ? s->caption : "");
      g_assert_true (user_line);
      g_assert_nonnull (s->caption);
      g_assert_null (strstr (s->caption, "input"));
      n_ops++;
    }
  /* Add, MseLoss, Sum, Tanh, Addmm x3, T x3, Relu */
  g_assert_cmpuint (n_ops, ==, 11);
  run_clear (&r);
}

/* An error raised in nn's code: the traceback goes through the prelude's
 * files, the error's span (what the window underlines) is the script's. */
static void
test_error_in_prelude (void)
{
  Run r;

  g_assert_false (run_script ("import torch\n"
                              "import torch.nn as nn\n"
                              "lin = nn.Linear(2, 3)\n"
                              "y = lin(torch.ones(4, 5))\n", FALSE, &r));
  g_assert_nonnull (r.error);
  g_assert_cmpint (r.error->type, ==, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (r.error->message, ==,
                   "mat1 and mat2 shapes cannot be multiplied (4x5 and 2x3)");
  g_assert_cmpint (r.error->span.line, ==, 4);
  g_assert_nonnull (strstr (r.error->traceback,
                            "  File \"net.py\", line 4, in <module>\n"
                            "    y = lin(torch.ones(4, 5))\n"));
  g_assert_nonnull (strstr (r.error->traceback,
                            "  File \"<chainrule>/torch/nn/modules/module.py\", line "));
  g_assert_nonnull (strstr (r.error->traceback, ", in _call_impl\n"));
  g_assert_nonnull (strstr (r.error->traceback,
                            "  File \"<chainrule>/torch/nn/modules/linear.py\", line "));
  g_assert_nonnull (strstr (r.error->traceback,
                            "    return F.linear(input, self.weight, self.bias)\n"));
  run_clear (&r);
}

/* A warning raised inside nn's code points at the script's line. */
static void
test_warning_points_at_script (void)
{
  Run r;

  g_assert_true (run_script ("import torch\n"
                             "import torch.nn as nn\n"
                             "sm = nn.Softmax()\n"
                             "p = sm(torch.ones(2, 2))\n", FALSE, &r));
  g_assert_cmpstr (r.err, ==,
                   "net.py:4: UserWarning: Implicit dimension choice for softmax has been "
                   "deprecated. Change the call to include dim=X as an argument.\n"
                   "  p = sm(torch.ones(2, 2))\n");
  run_clear (&r);
}

/* Every spelling of the import gives the same module objects, and a script
 * that imports torch alone reaches torch.nn as an attribute. */
static void
test_import_spellings (void)
{
  Run r;

  g_assert_true (run_script ("import torch\n"
                             "a = torch.nn\n"
                             "import torch.nn as nn\n"
                             "from torch import nn as nn2\n"
                             "from torch.nn import Linear, Module\n"
                             "import torch.nn.functional as F\n"
                             "from torch.nn import functional as F2\n"
                             "print(a is nn, nn is nn2, Linear is nn.Linear, F is F2,\n"
                             "      Module is torch.nn.modules.module.Module, F is torch.nn.functional)\n"
                             "print(nn.Linear, nn.Module.__module__)\n",
                             FALSE, &r));
  g_assert_cmpstr (r.out, ==,
                   "True True True True True True\n"
                   "<class 'torch.nn.modules.linear.Linear'> torch.nn.modules.module\n");
  run_clear (&r);
}

/* Names PyTorch has and Chainrule lacks say so. */
static void
test_missing_names (void)
{
  Run r;

  g_assert_false (run_script ("import torch.nn as nn\n"
                              "layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])\n", FALSE, &r));
  g_assert_cmpint (r.error->type, ==, CR_EXC_NOT_IMPLEMENTED_ERROR);
  g_assert_cmpstr (r.error->message, ==, "torch.nn.AdaptiveLogSoftmaxWithLoss is not supported by Chainrule yet");
  g_assert_cmpint (r.error->span.line, ==, 2);
  run_clear (&r);

  g_assert_false (run_script ("import torch.nn as nn\n"
                              "x = nn.Linaer\n", FALSE, &r));
  g_assert_cmpint (r.error->type, ==, CR_EXC_ATTRIBUTE_ERROR);
  g_assert_cmpstr (r.error->message, ==,
                   "module 'torch.nn' has no attribute 'Linaer'. Did you mean: 'Linear'?");
  run_clear (&r);
}

/* Two runs in one process (the window re-runs on every edit): the second
 * reuses the parsed prelude and gets fresh classes of its own. */
static void
test_two_runs (void)
{
  for (int i = 0; i < 2; i++)
    {
      Run r;
      g_assert_true (run_script ("import torch\n"
                                 "import torch.nn as nn\n"
                                 "nn.Module.tag = 1\n"
                                 "print(hasattr(nn.Linear, 'tag'), nn.Linear(1, 1).weight.shape)\n",
                                 FALSE, &r));
      g_assert_cmpstr (r.out, ==, "True torch.Size([1, 1])\n");
      run_clear (&r);
    }
}

/* The window runs scripts on worker threads: two runs at once share the
 * parsed prelude (parsed under a lock, read only afterwards). */
static gpointer
run_in_thread (gpointer data)
{
  for (int i = 0; i < 3; i++)
    {
      Run r;
      gboolean ok = run_script ("import torch\n"
                                "import torch.nn as nn\n"
                                "net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))\n"
                                "print(net(torch.ones(4, 2)).shape)\n", FALSE, &r);
      gboolean same = ok && g_str_equal (r.out, "torch.Size([4, 1])\n");
      run_clear (&r);
      if (!same)
        return GINT_TO_POINTER (FALSE);
    }
  return GINT_TO_POINTER (TRUE);
}

static void
test_threads (void)
{
  GThread *threads[2];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("prelude-run", run_in_thread, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (GPOINTER_TO_INT (g_thread_join (threads[i])));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/prelude/node-spans", test_node_spans);
  g_test_add_func ("/lang/prelude/error-in-prelude", test_error_in_prelude);
  g_test_add_func ("/lang/prelude/warning-points-at-script", test_warning_points_at_script);
  g_test_add_func ("/lang/prelude/import-spellings", test_import_spellings);
  g_test_add_func ("/lang/prelude/missing-names", test_missing_names);
  g_test_add_func ("/lang/prelude/two-runs", test_two_runs);
  g_test_add_func ("/lang/prelude/threads", test_threads);
  return g_test_run ();
}
