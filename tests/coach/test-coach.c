/* test-coach.c — the mistakes coach (core/coach/) on scripts run in
 * process: silent where a script does on purpose what a mistake does by
 * accident (gradients summed over micro-batches, a one-off w = w - ...,
 * .item() to print, .detach() for a metric, a micrograd engine with +=),
 * firing where it should; and fixes applied to text (insertions, rewrites,
 * columns counted in characters). */
#include "cr-config.h"
#include "cr-coach.h"
#include "cr-interp.h"

#include <string.h>

static void
discard (const char *text,
         gboolean    is_stderr,
         gpointer    user_data)
{
}

/* The record of source's coached run (new ref). */
static CrRunRecord *
coached_run (const char *source)
{
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_parse_with_options (source, -1, "<test>", NULL, &span, &error);
  g_assert_no_error (error);
  CrInterpOptions options = { .output = discard, .record_backward = TRUE, .coach = TRUE };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  cr_interp_run (interp, module, &script_error);
  cr_script_error_free (script_error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  g_assert_nonnull (record);
  return record;
}

/* The kinds found, "kind@line,kind@line" (new string). */
static char *
kinds (const CrRunRecord *record)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      g_string_append_printf (out, "%s%s@%d", i ? "," : "", f->kind, f->span.line);
    }
  return g_string_free (out, FALSE);
}

static void
assert_finds (const char *source,
              const char *want)
{
  g_autoptr (CrRunRecord) record = coached_run (source);
  g_autofree char *found = kinds (record);
  g_assert_cmpstr (found, ==, want);
}

static void
test_silent_on_purpose (void)
{
  /* Gradients summed over two micro-batches, zeroed once per update. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "opt = torch.optim.SGD([w], lr=0.1)\n"
                "for step in range(3):\n"
                "    opt.zero_grad()\n"
                "    for micro in range(2):\n"
                "        loss = (w * (micro + 1)).sum() ** 2\n"
                "        loss.backward()\n"
                "    opt.step()\n"
                "    print(loss.item())\n", "");
  /* Gradients summed over a batch loop, one update after it. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0], requires_grad=True)\n"
                "for x in [1.0, 2.0, 3.0]:\n"
                "    (w * x).sum().backward()\n"
                "with torch.no_grad():\n"
                "    w -= 0.1 * w.grad\n", "");
  /* A GAN's two steps: the generator's backward adds into the
   * discriminator's .grad after its update, zeroed before the next. */
  assert_finds ("import torch\n"
                "d = torch.tensor([0.5], requires_grad=True)\n"
                "g = torch.tensor([2.0], requires_grad=True)\n"
                "opt_d = torch.optim.SGD([d], lr=0.1)\n"
                "opt_g = torch.optim.SGD([g], lr=0.1)\n"
                "for i in range(3):\n"
                "    opt_d.zero_grad()\n"
                "    loss_d = (d * g.detach() - 1) ** 2\n"
                "    loss_d.sum().backward()\n"
                "    opt_d.step()\n"
                "    opt_g.zero_grad()\n"
                "    loss_g = (d * g + 1) ** 2\n"
                "    loss_g.sum().backward()\n"
                "    opt_g.step()\n", "");
  /* w = w - lr * w.grad once, to show what it makes. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "(w * w).sum().backward()\n"
                "w = w - 0.5 * w.grad\n"
                "print(w.is_leaf, w.grad_fn)\n", "");
  /* .detach() for a metric, .item() to print; .grad of a non-leaf read
   * before any backward. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "y = w * 3\n"
                "print(y.grad)\n"
                "metric = y.detach().mean()\n"
                "loss = y.sum()\n"
                "loss.backward()\n"
                "print(loss.item(), metric.item())\n", "");
  /* retain_grad(), then .grad of the non-leaf. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "y = w * 3\n"
                "y.retain_grad()\n"
                "y.sum().backward()\n"
                "print(y.grad)\n", "");
  /* A micrograd engine with +=, a value used twice. */
  assert_finds ("class V:\n"
                "    def __init__(self, d, ch=()):\n"
                "        self.data = d\n"
                "        self.grad = 0\n"
                "        self.ch = ch\n"
                "        self.back = lambda: None\n"
                "    def __mul__(self, o):\n"
                "        out = V(self.data * o.data, (self, o))\n"
                "        def back():\n"
                "            self.grad += o.data * out.grad\n"
                "            o.grad += self.data * out.grad\n"
                "        out.back = back\n"
                "        return out\n"
                "a = V(3.0)\n"
                "b = a * a\n"
                "b.grad = 1\n"
                "b.back()\n"
                "print(a.grad)\n"
                /* out -> back -> out: the interpreter frees no cycles. */
                "b.back = None\n", "");
}

static void
test_fires (void)
{
  /* w = w - ... trained again: the update, and not the non-leaf .grad it
   * causes. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "for i in range(3):\n"
                "    loss = (w * w).sum()\n"
                "    loss.backward()\n"
                "    if w.grad is None:\n"
                "        break\n"
                "    w = w - 0.1 * w.grad\n", "update-outside-no-grad@8");
  /* A micrograd engine with =, a value used twice (x * x). */
  assert_finds ("class V:\n"
                "    def __init__(self, d, ch=()):\n"
                "        self.data = d\n"
                "        self.grad = 0\n"
                "        self.back = lambda: None\n"
                "    def __mul__(self, o):\n"
                "        out = V(self.data * o.data, (self, o))\n"
                "        def back():\n"
                "            self.grad = o.data * out.grad\n"
                "            o.grad = self.data * out.grad\n"
                "        out.back = back\n"
                "        return out\n"
                "a = V(3.0)\n"
                "b = a * a\n"
                "b.grad = 1\n"
                "b.back()\n"
                "b.back = None\n", "grad-overwritten@10");
  /* A manual update under no_grad, never zeroed. */
  assert_finds ("import torch\n"
                "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                "for i in range(3):\n"
                "    loss = (w * w).sum()\n"
                "    loss.backward()\n"
                "    with torch.no_grad():\n"
                "        w -= 0.1 * w.grad\n", "zero-grad-forgotten@5");
}

static void
test_fix_text (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("t.py", "a = 1\n    é = b.x_()\nc = 3\n");
  CrRecordFinding *f = cr_run_record_add_finding (record);
  /* No fix. */
  g_assert_null (cr_coach_apply_fix (record->source, f));
  g_assert_null (cr_coach_fixed_line (record->source, f));
  /* An insertion at a column counted in characters (é is two bytes). */
  f->fix_span = (CrSpan) { 2, 10, 2, 10 };
  f->fix = g_strdup ("y");
  g_autofree char *inserted = cr_coach_apply_fix (record->source, f);
  g_assert_cmpstr (inserted, ==, "a = 1\n    é = by.x_()\nc = 3\n");
  /* A new line after line 1. */
  g_free (f->fix);
  f->fix_span = (CrSpan) { 1, 6, 1, 6 };
  f->fix = g_strdup ("\nz = 2");
  g_autofree char *line_after = cr_coach_apply_fix (record->source, f);
  g_assert_cmpstr (line_after, ==, "a = 1\nz = 2\n    é = b.x_()\nc = 3\n");
  g_autofree char *shown = cr_coach_fixed_line (record->source, f);
  g_assert_cmpstr (shown, ==, "z = 2");
  /* Line 2 rewritten as two lines. */
  g_free (f->fix);
  f->fix_span = (CrSpan) { 2, 1, 2, 15 };
  f->fix = g_strdup ("    é = b\n    é = é.x()");
  g_autofree char *rewritten = cr_coach_apply_fix (record->source, f);
  g_assert_cmpstr (rewritten, ==, "a = 1\n    é = b\n    é = é.x()\nc = 3\n");
  g_autofree char *two = cr_coach_fixed_line (record->source, f);
  g_assert_cmpstr (two, ==, "    é = b\n    é = é.x()");
  /* A span past the text. */
  f->fix_span = (CrSpan) { 9, 1, 9, 1 };
  g_assert_null (cr_coach_apply_fix (record->source, f));
  f->fix_span = (CrSpan) { 1, 40, 1, 40 };
  g_assert_null (cr_coach_apply_fix (record->source, f));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coach/silent-on-purpose", test_silent_on_purpose);
  g_test_add_func ("/coach/fires", test_fires);
  g_test_add_func ("/coach/fix-text", test_fix_text);
  return g_test_run ();
}
