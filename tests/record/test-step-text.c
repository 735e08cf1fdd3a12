/* test-step-text.c — a step told as sections of items (cr-step-text.h), the
 * structure the step card lays out and the handout prints: a chain-rule
 * formula's terms with their roles and values, a broadcast sum's dims, the
 * fan-in's "sum so far", a hook's factor under its own line, a leaf's
 * .grad before and after, an error's section, a forward op's sections; and
 * the plain text made from them. Headless, so the ASan build runs it. The
 * card is held to the same text in tests/ui/test-card-text.c. */
#include "cr-step-text.h"
#include "record-test-util.h"

#include <string.h>

static const CrStepTextSection *
section_of (const CrStepText      *text,
            CrStepTextSectionKind  kind)
{
  for (guint i = 0; i < text->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (s->kind == kind)
        return s;
    }
  g_error ("no section of kind %d", kind);
  return NULL;
}

static const CrStepTextItem *
item (const CrStepTextSection *s,
      guint                    i)
{
  g_assert_cmpuint (i, <, s->items->len);
  return g_ptr_array_index (s->items, i);
}

static const CrStepTextTerm *
term (const CrStepTextItem *f,
      guint                 i)
{
  g_assert_cmpint (f->kind, ==, CR_STEP_TEXT_FORMULA);
  g_assert_cmpuint (i, <, f->terms->len);
  return g_ptr_array_index (f->terms, i);
}

/* The first step of backward call 0 titled title. */
static CrStepText *
step_titled (const CrRunRecord *record,
             const char        *title)
{
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  for (guint i = 0; i < bw->steps->len; i++)
    {
      CrStepText *text = cr_step_text_new (record, 0, (int) i);
      if (strcmp (text->title, title) == 0)
        return text;
      cr_step_text_free (text);
    }
  g_error ("no step %s", title);
  return NULL;
}

static const char *const broadcast_script =
  "import torch\n"
  "w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
  "b = torch.tensor([0.5, -1.0], requires_grad=True)\n"
  "x = torch.tensor([[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]])\n"
  "h = x @ w + b\n"
  "L = (h * h).sum() + h.sum()\n"
  "L.backward()\n";

static void
test_chain_and_broadcast (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("bc.py", broadcast_script, NULL);
  /* h = x @ w + b: b's gradient is the product summed over dim 0. */
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  CrStepText *add = NULL;
  for (guint i = 0; i < bw->steps->len && !add; i++)
    {
      CrStepText *t = cr_step_text_new (record, 0, (int) i);
      if (strcmp (t->title, "AddBackward0") == 0 && strstr (t->caption, "x @ w + b"))
        add = t;
      else
        cr_step_text_free (t);
    }
  g_assert_nonnull (add);
  const CrStepTextSection *sent = section_of (add, CR_STEP_TEXT_SECTION_SENT);
  g_assert_cmpint (sent->role, ==, CR_STEP_TEXT_OUT);
  /* ∂L/∂b = ∂L/∂h × ∂h/∂b = [..] × [..] = [..], then Σ on its own line. */
  const CrStepTextItem *to_b = NULL, *sum = NULL;
  for (guint i = 0; i + 1 < sent->items->len; i++)
    if (item (sent, i + 1)->reduction)
      {
        to_b = item (sent, i);
        sum = item (sent, i + 1);
      }
  g_assert_nonnull (sum);
  static const CrStepTextTermKind kinds[] = { CR_STEP_TEXT_NAME, CR_STEP_TEXT_NAME, CR_STEP_TEXT_NAME,
                                              CR_STEP_TEXT_VALUE, CR_STEP_TEXT_VALUE, CR_STEP_TEXT_VALUE };
  static const CrStepTextRole roles[] = { CR_STEP_TEXT_OUT, CR_STEP_TEXT_IN, CR_STEP_TEXT_LOCAL,
                                          CR_STEP_TEXT_IN, CR_STEP_TEXT_LOCAL, CR_STEP_TEXT_OUT };
  static const char *const ops[] = { NULL, "=", "×", "=", "×", "=" };
  g_assert_cmpuint (to_b->terms->len, ==, G_N_ELEMENTS (kinds));
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_assert_cmpint (term (to_b, i)->kind, ==, kinds[i]);
      g_assert_cmpint (term (to_b, i)->role, ==, roles[i]);
      g_assert_cmpstr (term (to_b, i)->op, ==, ops[i]);
    }
  g_assert_true (term (to_b, 3)->break_before);
  g_assert_cmpstr (term (to_b, 0)->text, ==, "∂L/∂b");
  /* The product has the broadcast shape 3×2. */
  g_assert_cmpint (term (to_b, 5)->value->ndim, ==, 2);
  g_assert_cmpint (sum->reduction->n_dims, ==, 1);
  g_assert_cmpint (sum->reduction->dims[0], ==, 0);
  g_assert_cmpint (term (sum, 0)->kind, ==, CR_STEP_TEXT_HOW);
  g_assert_cmpstr (term (sum, 0)->op, ==, "Σ");
  g_assert_cmpstr (sum->text, ==, "Σ summed over dim 0 to b's shape 2 = [15, 13]");
  /* The old views of the same items: the formula's lines, the notes. */
  g_assert_cmpuint (sent->lines->len, >, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (sent->notes, sent->notes->len - 1),
                            "b was broadcast to 3×2"));
  /* A long formula's plain lines: one "= ..." a line under the first. */
  g_autoptr (GPtrArray) lines = cr_step_text_item_lines (to_b);
  g_assert_cmpuint (lines->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "∂L/∂b = ∂L/∂h × ∂h/∂b");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (lines, 1), "      = [["));
  cr_step_text_free (add);

  /* h reaches both factors of h * h and the other sum: its gradients add
   * up, each with the sum so far. */
  gboolean fan_in = FALSE;
  for (guint i = 0; i < bw->steps->len; i++)
    {
      g_autoptr (CrStepText) t = cr_step_text_new (record, 0, (int) i);
      for (guint k = 0; k < t->sections->len; k++)
        {
          const CrStepTextSection *s = g_ptr_array_index (t->sections, k);
          if (s->kind != CR_STEP_TEXT_SECTION_ACCUMULATED)
            continue;
          const CrStepTextItem *f = item (s, 0);
          g_assert_cmpstr (term (f, 1)->op, ==, "+=");
          g_assert_cmpstr (term (f, 2)->op, ==, "→");
          g_assert_cmpstr (term (f, 2)->caption, ==, "sum so far");
          g_assert_nonnull (strstr (f->text, " += "));
          fan_in = TRUE;
        }
    }
  g_assert_true (fan_in);

  /* AccumulateGrad: the leaf's .grad before (None) and after. */
  g_autoptr (CrStepText) leaf = step_titled (record, "AccumulateGrad");
  g_assert_true (leaf->accumulate);
  g_assert_cmpstr (leaf->symbol, ==, "+=");
  const CrStepTextSection *grad = section_of (leaf, CR_STEP_TEXT_SECTION_LEAF_GRAD);
  const CrStepTextItem *f = item (grad, 0);
  g_assert_cmpint (term (f, 0)->kind, ==, CR_STEP_TEXT_WORDS);
  g_assert_null (term (f, 1)->value);
  g_assert_cmpstr (term (f, 1)->text, ==, "None");
  g_assert_cmpstr (term (f, 2)->op, ==, "→");
  g_assert_cmpint (item (grad, 1)->kind, ==, CR_STEP_TEXT_NOTE);
  g_autofree char *plain = cr_step_text_plain (leaf);
  g_assert_true (g_str_has_prefix (plain, "+=\nBackward "));
  g_assert_nonnull (strstr (plain, "\n  b.grad: None → [15, 13]\n"));
}

static void
test_hooks (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("hooks.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = x * 2\n"
    "y.register_hook(lambda g: g * 10)\n"
    "z = (y * y).sum()\n"
    "z.backward()\n", NULL);
  /* The hook runs on y's gradient, before the step of y = x * 2. */
  g_autoptr (CrStepText) mul = NULL;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  for (guint i = 0; i < bw->steps->len && !mul; i++)
    {
      CrStepText *t = cr_step_text_new (record, 0, (int) i);
      if (strstr (t->caption, "y = x * 2"))
        mul = t;
      else
        cr_step_text_free (t);
    }
  g_assert_nonnull (mul);
  g_assert_cmpstr (mul->caption, ==, "y = x * 2 · line 3");
  const CrStepTextSection *hooks = section_of (mul, CR_STEP_TEXT_SECTION_HOOKS);
  /* The hook's line, its factor under it, then the section's note. */
  const CrStepTextItem *line = item (hooks, 0);
  g_assert_cmpstr (line->text, ==, "hook <lambda> (line 4): [4, 8, 12] → [40, 80, 120]");
  g_assert_cmpint (item (hooks, 1)->kind, ==, CR_STEP_TEXT_NOTE);
  g_assert_cmpstr (item (hooks, 1)->text, ==, "It multiplied the gradient by 10.");
  g_assert_nonnull (strstr (item (hooks, 2)->text, "register_hook()"));
}

static void
test_error (void)
{
  gboolean ok = TRUE;
  g_autoptr (CrRunRecord) record = record_test_run ("inplace.py",
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "b = a.sigmoid()\n"
    "b.mul_(2)\n"
    "b.sum().backward()\n", &ok);
  g_assert_false (ok);
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  g_assert_false (bw->succeeded);
  g_autoptr (CrStepText) last = cr_step_text_new (record, 0, (int) bw->steps->len - 1);
  const CrStepTextSection *error = g_ptr_array_index (last->sections, last->sections->len - 1);
  g_assert_cmpint (error->kind, ==, CR_STEP_TEXT_SECTION_ERROR);
  g_assert_cmpint (error->role, ==, CR_STEP_TEXT_ERROR);
  g_assert_cmpstr (error->heading, ==, CR_STEP_TEXT_STOPPED_LEAD);
  g_assert_true (g_str_has_prefix (item (error, 0)->text, "RuntimeError: one of the variables"));
  gboolean culprit = FALSE;
  for (guint i = 1; i < error->items->len; i++)
    culprit |= strstr (item (error, i)->text, "modified in place at line 4") != NULL;
  g_assert_true (culprit);
  /* The same section for a lead of the caller's. */
  const CrRecordError *e = g_ptr_array_index (record->errors, 0);
  CrStepTextSection *own = cr_step_text_error_section (record, e, "It stopped.");
  g_assert_cmpstr (own->heading, ==, "It stopped.");
  g_assert_cmpuint (own->items->len, ==, error->items->len);
  g_assert_cmpuint (own->lines->len, ==, 1);
  cr_step_text_section_free (own);
}

static void
test_forward (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("fw.py", broadcast_script, NULL);
  /* Op 0: x @ w, a 3×2 matrix under its name. */
  g_autoptr (CrStepText) mm = cr_step_text_new_forward (record, 0, 0, 6, TRUE);
  g_assert_cmpint (mm->pass, ==, CR_STEP_TEXT_FORWARD);
  g_assert_cmpstr (mm->count, ==, "Forward 1 of 6");
  g_assert_cmpstr (mm->caption, ==, "line 5 · grad_fn MmBackward0");
  const CrStepTextSection *what = section_of (mm, CR_STEP_TEXT_SECTION_FORWARD_WHAT);
  g_assert_cmpint (item (what, 0)->kind, ==, CR_STEP_TEXT_SENTENCE);
  g_assert_true (g_str_has_prefix (item (what, 0)->text, "It multiplies the matrices x and w"));
  const CrStepTextItem *result = item (section_of (mm, CR_STEP_TEXT_SECTION_FORWARD_RESULT), 0);
  g_assert_cmpint (term (result, 1)->kind, ==, CR_STEP_TEXT_VALUE);
  g_assert_true (term (result, 1)->break_before);
  g_assert_null (term (result, 1)->op);
  const CrStepTextSection *next = section_of (mm, CR_STEP_TEXT_SECTION_FORWARD_NEXT);
  g_assert_null (next->heading);
  /* The last op: what comes next is backward. */
  g_autoptr (CrStepText) last = cr_step_text_new_forward (record, 5, 5, 6, TRUE);
  g_assert_nonnull (strstr (item (section_of (last, CR_STEP_TEXT_SECTION_FORWARD_NEXT), 0)->text,
                            "Next, backward goes through the same graph"));
  g_assert_null (cr_step_text_new_forward (record, 99, 0, 1, TRUE));
}

static const char forward_words_script[] =
  "import torch\n"
  "import torch.nn.functional as F\n"
  "x = torch.tensor([[[[1.0, -2.0], [0.5, 3.0]]]], requires_grad=True)\n"
  "k = torch.tensor([[[[0.5, -1.0], [2.0, 0.25]]]], requires_grad=True)\n"
  "b = torch.tensor([0.1], requires_grad=True)\n"
  "y = F.conv_transpose2d(x, k, b)\n"
  "z = F.conv_transpose2d(x, k, stride=2)\n"
  "p = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0]], requires_grad=True)\n"
  "logp = F.log_softmax(p, dim=1)\n"
  "w = torch.tensor([0.5, 2.0, 1.0])\n"
  "l = F.nll_loss(logp, torch.tensor([0, 2]), weight=w)\n"
  "s = F.nll_loss(logp, torch.tensor([0, 2]), reduction='sum')\n"
  "f = p * 2\n"
  "q = f[:, :1] * torch.arange(2.0).view(2, 1)\n"
  "u, v = p.unbind(0)\n"
  "loss = y.sum() + z.sum() + l + s + q.sum() + (u * v).sum()\n"
  "loss.backward()\n";

/* The sentence of the forward card of the n-th op (0: the first) whose
 * grad_fn is grad_fn (new string). */
static char *
forward_sentence (const CrRunRecord *record,
                  const char        *grad_fn,
                  guint              n)
{
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      if (g_strcmp0 (op->grad_fn, grad_fn) != 0 || n-- > 0)
        continue;
      g_autoptr (CrStepText) text = cr_step_text_new_forward (record, (int) i, 0, 1, TRUE);
      return g_strdup (item (section_of (text, CR_STEP_TEXT_SECTION_FORWARD_WHAT), 0)->text);
    }
  g_error ("no op %s #%u", grad_fn, n);
  return NULL;
}

/* The forward card says what the op did with the arguments it had: a
 * transposed convolution as one, nll_loss's weights and reduction, and a
 * name for every input (an unnamed slice, a constant), never "?". */
static void
test_forward_words (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("words.py", forward_words_script, NULL);
  g_autofree char *y = forward_sentence (record, "ConvolutionBackward0", 0);
  g_assert_true (g_str_has_prefix (y, "It computes the 2-d transposed convolution of x with kernel k, "
                                      "plus the bias b:"));
  g_autofree char *z = forward_sentence (record, "ConvolutionBackward0", 1);
  g_assert_true (g_str_has_prefix (z, "It computes the 2-d transposed convolution of x with kernel k, "
                                      "stride 2:"));
  g_assert_null (strstr (z, "a number"));
  g_autofree char *l = forward_sentence (record, "NllLossBackward0", 0);
  g_assert_nonnull (strstr (l, "Σ w[t]·(−logp[t]) / Σ w[t]"));
  g_autofree char *s = forward_sentence (record, "NllLossBackward0", 1);
  g_assert_nonnull (strstr (s, "negates and adds them up"));
  g_assert_null (strstr (s, "averages"));
  /* f[:, :1] is f[:] then [:, :1] (recorded outer first): the outer one
   * takes its range of "(f[:])". */
  g_autofree char *outer = forward_sentence (record, "SliceBackward0", 0);
  g_autofree char *inner = forward_sentence (record, "SliceBackward0", 1);
  g_assert_cmpstr (inner, ==, "It takes all of f along dim 0 (2×3).");
  g_assert_cmpstr (outer, ==, "It takes position 0 of (f[:]) along dim 1, keeping the dim (2×1).");
  g_autofree char *q = forward_sentence (record, "MulBackward0", 1);
  g_assert_cmpstr (q, ==, "It multiplies (f[:, :1]) by [[0], [1]], element by element (2×1).");
  g_autofree char *u = forward_sentence (record, "UnbindBackward0", 0);
  g_assert_cmpstr (u, ==, "It takes p apart along dim 0 into its 2 slices, one output each (3).");
  for (guint i = 0; i < record->ops->len; i++)
    {
      g_autoptr (CrStepText) text = cr_step_text_new_forward (record, (int) i, 0, 1, TRUE);
      const char *said = item (section_of (text, CR_STEP_TEXT_SECTION_FORWARD_WHAT), 0)->text;
      g_assert_null (strstr (said, "?"));
      g_assert_null (strstr (said, "Convolution of"));
    }
}

/* What a question gives: never what is sent on. */
static void
test_given (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("given.py", broadcast_script, NULL);
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  gboolean leaf = FALSE, rule = FALSE;
  for (guint i = 0; i < bw->steps->len; i++)
    for (int hide = 0; hide <= 1; hide++)
      {
        g_autoptr (CrStepText) given = cr_step_text_new_given (record, 0, (int) i, hide);
        g_autoptr (CrStepText) told = cr_step_text_new (record, 0, (int) i);
        g_assert_cmpstr (given->count, ==, told->count);
        g_assert_cmpstr (given->title, ==, told->title);
        for (guint k = 0; k < given->sections->len; k++)
          {
            const CrStepTextSection *s = g_ptr_array_index (given->sections, k);
            g_assert_cmpint (s->kind, !=, CR_STEP_TEXT_SECTION_SENT);
            g_assert_cmpint (s->kind, !=, CR_STEP_TEXT_SECTION_LEAF_GRAD);
            g_assert_cmpint (s->kind, !=, CR_STEP_TEXT_SECTION_ACCUMULATED);
            if (hide)
              g_assert_cmpint (s->kind, !=, CR_STEP_TEXT_SECTION_LOCAL);
            if (s->kind == CR_STEP_TEXT_SECTION_GRAD_BEFORE)
              {
                g_assert_true (g_str_has_suffix (s->heading, ".grad before"));
                g_assert_cmpstr (item (s, 0)->text, ==, "None");
                leaf = TRUE;
              }
            if (s->kind == CR_STEP_TEXT_SECTION_RULE)
              {
                g_assert_cmpint (item (s, 0)->kind, ==, CR_STEP_TEXT_RULE);
                rule = TRUE;
              }
          }
      }
  g_assert_true (leaf);
  g_assert_true (rule);
  g_assert_null (cr_step_text_new_given (record, 0, 99, FALSE));

  /* A forward op's: its inputs, by name, not its result. */
  g_autoptr (CrStepText) mm = cr_step_text_new_forward_given (record, 0, 0, 6);
  g_assert_cmpuint (mm->sections->len, ==, 2);
  const CrStepTextSection *inputs = section_of (mm, CR_STEP_TEXT_SECTION_FORWARD_INPUTS);
  g_assert_cmpstr (inputs->heading, ==, "Its inputs");
  g_assert_cmpstr (term (item (inputs, 0), 0)->text, ==, "x =");
  g_assert_cmpstr (term (item (inputs, 1), 0)->text, ==, "w =");
  g_assert_cmpint (term (item (inputs, 1), 1)->value->numel, ==, 4);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/step-text/chain-and-broadcast", test_chain_and_broadcast);
  g_test_add_func ("/step-text/hooks", test_hooks);
  g_test_add_func ("/step-text/error", test_error);
  g_test_add_func ("/step-text/forward", test_forward);
  g_test_add_func ("/step-text/forward-words", test_forward_words);
  g_test_add_func ("/step-text/given", test_given);
  return g_test_run ();
}
