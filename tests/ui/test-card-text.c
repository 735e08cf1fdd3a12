/* test-card-text.c — the step card says what core's CrStepText says, word
 * for word: at every forward op and every backward step of every example
 * (and of scripts for what the examples lack: roots added up, hooks that
 * raise, in-place errors, broadcasts, custom Functions), the card's visible
 * text, read back from its widgets, equals cr_step_text_plain() of the
 * same step but for layout (white space). The handout prints that text, so
 * the card and the handout cannot drift apart again. The cards before the
 * first step (how to step, or why there is nothing to step) are held to
 * core's cr_step_text_new_intro() and its kin the same way. With practice on, a
 * card that asks gives what cr_step_text_new_given() (or a forward op's
 * _forward_given) says, as the handout's question page prints it, at both
 * levels; the questions themselves are left out. A value counts by the
 * brief the text gives it (the grid of numbers is the tensor view's, tested
 * in test-cards.c). Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-step-card.h"
#include "cr-step-card-practice.h"
#include "cr-step-text.h"
#include "cr-record-forward.h"
#include "cr-script-run.h"
#include "ui-test-gui.h"

#include <string.h>

/* The card's words in order: a value by its brief, a name drawn as a
 * fraction or a title by its whole text, every other label as shown. */
static void
collect (GtkWidget *widget,
         GString   *out)
{
  /* Practice's questions are practice's own (cr-practice.h). */
  if (!gtk_widget_get_visible (widget) || gtk_widget_has_css_class (widget, "cr-practice-ask"))
    return;
  const char *value = g_object_get_data (G_OBJECT (widget), "cr-value-text");
  const char *whole = g_object_get_data (G_OBJECT (widget), "cr-text");
  if (value || whole)
    {
      g_string_append_printf (out, "%s\n", value ? value : whole);
      return;
    }
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect (c, out);
}

/* text without its layout: no white space, no soft breaks. */
static char *
squeeze (const char *text)
{
  GString *out = g_string_new (NULL);
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_isspace (c) || c == 0x200B || c == 0x00AD || c == 0x2060)
        continue;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

static guint n_compared;
/* Every card's plain text, for the scripts' checks of what they show. */
static GString *told;

static void
assert_same (GtkWidget  *card,
             CrStepText *text,
             const char *where)
{
  g_assert_nonnull (text);
  GString *shown = g_string_new (NULL);
  collect (card, shown);
  g_autofree char *plain = cr_step_text_plain (text);
  g_autofree char *a = squeeze (shown->str);
  g_autofree char *b = squeeze (plain);
  if (strcmp (a, b) != 0)
    g_error ("%s: the card says\n%s\nbut the step text\n%s", where, shown->str, plain);
  if (told)
    g_string_append (told, plain);
  g_string_free (shown, TRUE);
  cr_step_text_free (text);
  n_compared++;
}

/* The card before the first step of model, as cr-step-card.c chooses it:
 * a backward call's intro; else the error the script stopped with before
 * any call; else a graph without backward. */
static CrStepText *
intro_of (const CrGraphModel *model)
{
  const CrRunRecord *record = model->record;
  if (!record)
    return cr_step_text_new_no_backward (model->title);
  if (model->backward >= 0)
    return cr_step_text_new_intro (record, model->backward);
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *error = g_ptr_array_index (record->errors, i);
      if (error->backward < 0)
        return cr_step_text_new_forward_error (record, error, model->title);
    }
  return cr_step_text_new_no_backward (model->title);
}

/* Every forward op and backward step of the calls of models (the first
 * two and the last, as the handout tells a training loop), and the card
 * before their first step. */
static void
check_models (GPtrArray  *models,
              const char *name)
{
  GtkWidget *card = g_object_ref_sink (cr_step_card_new ());
  for (guint m = 0; m < models->len; m++)
    {
      if (m >= 2 && m + 1 < models->len)
        continue;
      const CrGraphModel *model = g_ptr_array_index (models, m);
      const CrRunRecord *record = model->record;
      cr_step_card_set_step (CR_STEP_CARD (card), model, -1);
      g_autofree char *before = g_strdup_printf ("%s call %d, before its first step", name, model->backward);
      assert_same (card, intro_of (model), before);
      if (!record)
        continue;
      g_autoptr (GArray) ops = cr_record_forward_ops (record, model->backward);
      for (guint i = 0; i < ops->len; i++)
        {
          int op = g_array_index (ops, int, i);
          cr_step_card_set_forward (CR_STEP_CARD (card), model, op, i, ops->len);
          g_autofree char *where = g_strdup_printf ("%s call %d, forward %u", name, model->backward, i);
          assert_same (card, cr_step_text_new_forward (record, op, i, ops->len, model->backward >= 0),
                       where);
        }
      if (model->backward < 0)
        continue;
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, model->backward);
      for (guint s = 0; s < bw->steps->len; s++)
        {
          cr_step_card_set_step (CR_STEP_CARD (card), model, (int) s);
          g_autofree char *where = g_strdup_printf ("%s call %d, backward %u", name, model->backward, s);
          assert_same (card, cr_step_text_new (record, model->backward, (int) s), where);
        }
    }
  g_object_unref (card);
}

static int
by_name (gconstpointer a,
         gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* With practice on, a card that asks shows what core's question gives:
 * cr_step_text_new_given(), at either level, and a forward op's inputs. */
static void
check_practice (GPtrArray  *models,
                const char *name)
{
  static const CrPracticeLevel levels[] = { CR_PRACTICE_LEVEL_SENT, CR_PRACTICE_LEVEL_LOCAL };
  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      GtkWidget *card = g_object_ref_sink (cr_step_card_new ());
      cr_step_card_set_practice (CR_STEP_CARD (card), TRUE, levels[l]);
      const CrGraphModel *model = g_ptr_array_index (models, models->len - 1);
      const CrRunRecord *record = model->record;
      g_autoptr (GArray) ops = cr_record_forward_ops (record, model->backward);
      for (guint i = 0; i < ops->len; i++)
        {
          int op = g_array_index (ops, int, i);
          cr_step_card_set_forward (CR_STEP_CARD (card), model, op, i, ops->len);
          if (!cr_step_card_practice_hides (CR_STEP_CARD (card)))
            continue;
          g_autofree char *where = g_strdup_printf ("%s, forward %u asked", name, i);
          assert_same (card, cr_step_text_new_forward_given (record, op, i, ops->len), where);
        }
      const CrRecordBackward *bw = model->backward >= 0
                                   ? g_ptr_array_index (record->backwards, model->backward) : NULL;
      for (guint s = 0; bw && s < bw->steps->len; s++)
        {
          cr_step_card_set_step (CR_STEP_CARD (card), model, (int) s);
          if (!cr_step_card_practice_hides (CR_STEP_CARD (card)))
            continue;
          g_autofree char *where = g_strdup_printf ("%s, backward %u asked at level %u", name, s, l);
          assert_same (card, cr_step_text_new_given (record, model->backward, (int) s,
                                                     levels[l] != CR_PRACTICE_LEVEL_SENT),
                       where);
        }
      g_object_unref (card);
    }
}

static void
test_examples (void)
{
  g_autoptr (GDir) dir = g_dir_open (CR_EXAMPLES_SOURCE_DIR, 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; (n = g_dir_read_name (dir));)
    if (g_str_has_suffix (n, ".py"))
      g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, by_name);
  g_assert_cmpuint (names->len, >=, 14);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (CR_EXAMPLES_SOURCE_DIR, name, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (source, path, NULL);
      check_models (models, name);
      check_practice (models, name);
    }
  g_test_message ("%u cards compared", n_compared);
}

/* What the examples do not show. */
static const struct {
  const char *name;
  const char *shows;     /* words some card of it says */
  const char *source;
} scripts[] = {
  { "roots added up", "sum so far",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 3\n"
    "torch.autograd.backward([y, y], [torch.ones(2), torch.ones(2)])\n" },
  { "a hook that raises", "raised ValueError",
    "import torch\n"
    "def bad(g):\n"
    "    raise ValueError('no')\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 2\n"
    "y.register_hook(bad)\n"
    "try:\n"
    "    y.sum().backward()\n"
    "except ValueError:\n"
    "    pass\n" },
  { "a hook that scales, retain_grad", "It multiplied the gradient by 10.",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = x * 2\n"
    "y.retain_grad()\n"
    "y.register_hook(lambda g: g * 10)\n"
    "z = (y * y).sum()\n"
    "z.backward()\n" },
  { "a saved tensor modified in place", "modified in place at line 4",
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "b = a.sigmoid()\n"
    "b.mul_(2)\n"
    "try:\n"
    "    b.sum().backward()\n"
    "except RuntimeError:\n"
    "    pass\n" },
  { "a broadcast, fan-in and matmul", "Σ summed over dim 0",
    "import torch\n"
    "w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
    "b = torch.tensor([0.5, -1.0], requires_grad=True)\n"
    "x = torch.tensor([[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]])\n"
    "h = x @ w + b\n"
    "L = (h * h).sum() + h.sum()\n"
    "L.backward()\n" },
  { "no backward call", "This script builds a graph but never calls .backward()",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x * 3).sum()\n" },
  { "a backward call that fails", "The backward call stopped with an error after 0 steps.",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 3\n"
    "try:\n"
    "    y.backward()\n"
    "except RuntimeError:\n"
    "    pass\n" },
  { "a big tensor", "20×30 in",
    "import torch\n"
    "torch.manual_seed(0)\n"
    "w = torch.randn(20, 30, requires_grad=True)\n"
    "L = (w * w).mean()\n"
    "L.backward()\n" },
};

/* The cards with nothing to step: no graph at all, and a script that
 * stopped with an error before any backward call. */
static void
test_nothing_to_step (void)
{
  GtkWidget *card = g_object_ref_sink (cr_step_card_new ());
  cr_step_card_set_step (CR_STEP_CARD (card), NULL, -1);
  told = g_string_new (NULL);
  assert_same (card, cr_step_text_new_no_graph (), "no graph");
  g_assert_nonnull (strstr (told->str, "No graph yet"));

  CrInterpOptions options = { 0 };
  CrScriptRun run;
  cr_script_run ("import torch\n"
                 "x = torch.ones(2, requires_grad=True)\n"
                 "y = x * 2\n"
                 "z = y.view(3)\n", -1, "t.py", &options, TRUE, &run);
  g_assert_nonnull (run.message);
  g_assert_cmpuint (run.models->len, >, 0);
  const CrGraphModel *model = g_ptr_array_index (run.models, 0);
  g_assert_cmpint (model->backward, <, 0);
  cr_step_card_set_step (CR_STEP_CARD (card), model, -1);
  assert_same (card, intro_of (model), "stopped before backward");
  g_assert_nonnull (strstr (told->str, "The script stopped with an error at line 4, before any backward call."));
  g_assert_nonnull (strstr (told->str, "RuntimeError: shape '[3]' is invalid for input of size 2"));
  cr_script_run_clear (&run);
  g_string_free (told, TRUE);
  told = NULL;
  g_object_unref (card);
}

static void
test_scripts (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr (GPtrArray) models = cr_ui_test_models_from_script (scripts[i].source, "t.py", NULL);
      told = g_string_new (NULL);
      check_models (models, scripts[i].name);
      if (!strstr (told->str, scripts[i].shows))
        g_error ("%s: no card says \"%s\":\n%s", scripts[i].name, scripts[i].shows, told->str);
      g_string_free (told, TRUE);
      told = NULL;
    }
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/card-text/examples", test_examples);
  g_test_add_func ("/card-text/scripts", test_scripts);
  g_test_add_func ("/card-text/nothing-to-step", test_nothing_to_step);
  return g_test_run ();
}
