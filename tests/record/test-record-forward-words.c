/* test-record-forward-words.c — every forward op of every conformance case
 * (tests/app/cases) and every example is told in words of its own: no op
 * falls back to the sentence for an op no words describe ("computes
 * native_foo of x", CrForwardText.generic). A new op that a case uses
 * fails here until cr-record-forward-words.c says what it does. Each
 * script runs through the interpreter with its output left out; one that
 * stops with an error is told up to where it stopped. A Python number an
 * op took (masked_fill's, scatter's and F.pad's value, 2 - x's 2) is told
 * by value, in the sentence and in the element worked out; a pad that
 * copies its input says where an element in the padding comes from. */
#include "cr-interp.h"
#include "record-test-util.h"
#include "cr-record-forward.h"
#include "cr-record-text.h"

#include <string.h>

/* The record of the script at path, NULL when it does not parse (the
 * cases hold syntax errors on purpose). */
static CrRunRecord *
record_of (const char *path)
{
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autofree char *name = g_path_get_basename (path);
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, name, NULL, &error);
  if (!module)
    return NULL;
  CrInterpOptions options = { .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  cr_interp_run (interp, module, &script_error);
  cr_script_error_free (script_error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return record;
}

typedef struct {
  GHashTable *told;       /* grad_fn -> TRUE: told in words of its own */
  GHashTable *generic;    /* grad_fn -> the first script (new string) */
  guint       n_ops;
  guint       n_scripts;
} Survey;

static void
survey_dir (Survey     *survey,
            const char *dir_path)
{
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *entry; (entry = g_dir_read_name (dir));)
    if (g_str_has_suffix (entry, ".py"))
      g_ptr_array_add (names, g_strdup (entry));
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autoptr (CrRunRecord) record = record_of (path);
      if (!record)
        continue;
      survey->n_scripts++;
      for (guint op = 0; op < record->ops->len; op++)
        {
          g_autoptr (CrForwardText) text = cr_forward_text_new (record, (int) op);
          const CrRecordOp *o = record->ops->pdata[op];
          g_assert_nonnull (text);
          g_assert_nonnull (text->sentence);
          survey->n_ops++;
          const char *g = o->grad_fn ? o->grad_fn : "(none)";
          if (!text->generic)
            g_hash_table_add (survey->told, g_strdup (g));
          else if (!g_hash_table_contains (survey->generic, g))
            g_hash_table_insert (survey->generic, g_strdup (g),
                                 g_strdup_printf ("%s: \"%s\"", name, text->sentence));
        }
    }
}

static void
test_every_op_told (gconstpointer data)
{
  const char *const *dirs = data;
  Survey survey = {
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
    0, 0,
  };
  for (guint i = 0; dirs[i]; i++)
    survey_dir (&survey, dirs[i]);
  g_test_message ("%u scripts, %u ops, %u grad_fns told in words of their own", survey.n_scripts,
                  survey.n_ops, g_hash_table_size (survey.told));
  if (g_hash_table_size (survey.generic) > 0)
    {
      GString *list = g_string_new (NULL);
      GHashTableIter iter;
      gpointer key, value;
      g_hash_table_iter_init (&iter, survey.generic);
      while (g_hash_table_iter_next (&iter, &key, &value))
        g_string_append_printf (list, "  %s (%s)\n", (const char *) key, (const char *) value);
      g_error ("%u grad_fns have no words of their own:\n%s", g_hash_table_size (survey.generic), list->str);
    }
  /* The cases were found and ran: they use well over 200 kinds of op. */
  g_assert_cmpuint (survey.n_scripts, >, 300);
  g_assert_cmpuint (g_hash_table_size (survey.told), >, 200);
  g_hash_table_unref (survey.told);
  g_hash_table_unref (survey.generic);
}

/* The text of the op whose caption is caption in record. */
static CrForwardText *
text_of (const CrRunRecord *record,
         const char        *caption)
{
  for (guint op = 0; op < record->ops->len; op++)
    {
      g_autofree char *c = cr_record_op_caption (record, (int) op);
      if (g_strcmp0 (c, caption) == 0)
        return cr_forward_text_new (record, (int) op);
    }
  g_error ("no op with the caption %s", caption);
}

/* What an op's text should say: its sentence holds sentence, its worked
 * element is example (NULL: any, or none). */
typedef struct {
  const char *caption, *sentence, *example;
} Told;

/* Each op of want says what it should; with example_required, an op
 * without an example in want still works one out. */
static void
assert_told (const CrRunRecord *record,
             const Told        *want,
             guint              n,
             gboolean           example_required)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (CrForwardText) text = text_of (record, want[i].caption);
      if (!strstr (text->sentence, want[i].sentence))
        g_error ("%s: \"%s\" does not say \"%s\"", want[i].caption, text->sentence, want[i].sentence);
      if (want[i].example)
        g_assert_cmpstr (text->example, ==, want[i].example);
      else if (example_required)
        g_assert_nonnull (text->example);
    }
}

static void
test_numbers_told (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("numbers.py",
    "import torch\n"
    "import torch.nn.functional as F\n"
    "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
    "m = torch.tensor([[True, False, True], [False, True, False]])\n"
    "a = x.masked_fill(m, -1.5)\n"
    "b = x.scatter(1, torch.tensor([[0], [2]]), 7.0)\n"
    "c = F.pad(x, (1, 2), value=0.5)\n"
    "d = 2 - x\n"
    "e = F.pad(x, (0, 1))\n"
    "f = x * 1\n"
    "f.masked_fill_(m, 0.0)\n"
    "f.scatter_(0, torch.tensor([[1, 0, 1]]), -3.0)\n"
    "(a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum()).backward()\n", NULL);
  static const Told want[] = {
    { "a = x.masked_fill(m, -1.5)", "copies x with -1.5 put where the mask is True",
      "a[1,1] = -1.5, where the mask is True; a[1,2] = x[1,2] = 6, where it is False" },
    { "b = x.scatter(1, torch.tensor([[0], [2]]), 7.0)", "copies x and writes 7 into the places an index gives",
      "b[1,2] = 7, a place the index gives; b[1,1] = x[1,1] = 5, a place it does not" },
    { "c = F.pad(x, (1, 2), value=0.5)", "pads x with 0.5",
      "c[1,5] = 0.5, padding; c[1,3] = x[1,2] = 6" },
    { "d = 2 - x", "subtracts x from 2", "d[1,2] = 2 - x[1,2] = 2 - 6 = -4" },
    { "e = F.pad(x, (0, 1))", "pads x with 0", "e[1,3] = 0, padding; e[1,2] = x[1,2] = 6" },
    { "f.masked_fill_(m, 0.0)", "with 0 put where the mask is True", NULL },
    { "f.scatter_(0, torch.tensor([[1, 0, 1]]), -3.0)", "writes -3 into the places an index gives", NULL },
  };
  assert_told (record, want, G_N_ELEMENTS (want), TRUE);
}

/* Reflect and replicate pads copy their input: the element worked out is
 * the last one in the padding, with the input element it reads and why;
 * roll without dims shifts the elements in reading order. */
static void
test_copies_told (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("copies.py",
    "import torch\n"
    "import torch.nn.functional as F\n"
    "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
    "y = F.pad(x, (2, 1), mode='reflect')\n"
    "z = F.pad(x, (2, 1), mode='replicate')\n"
    "u = F.pad(x, (2, 0), mode='reflect')\n"
    "x4 = x.view(1, 1, 2, 3)\n"
    "w = F.pad(x4, (1, 2, 1, 0), mode='reflect')\n"
    "r = torch.roll(x, -2)\n"
    "q = torch.roll(x, 1, 1)\n"
    "(y.sum() + z.sum() + u.sum() + w.sum() + r.sum() + q.sum()).backward()\n", NULL);
  static const Told want[] = {
    { "y = F.pad(x, (2, 1), mode='reflect')", "pads x by mirroring it at its edges",
      "y[1,5] = x[1,1] = 5, padding, mirrored at the edge x[1,2] (1 place out, as many in); y[1,4] = x[1,2] = 6" },
    { "z = F.pad(x, (2, 1), mode='replicate')", "pads x by repeating its edge values",
      "z[1,5] = x[1,2] = 6, padding, the edge x[1,2] repeated; z[1,4] = x[1,2] = 6" },
    /* Padded before only: mirrored at the first element. */
    { "u = F.pad(x, (2, 0), mode='reflect')", "pads x by mirroring it at its edges",
      "u[1,1] = x[1,1] = 5, padding, mirrored at the edge x[1,0] (1 place out, as many in); u[1,4] = x[1,2] = 6" },
    /* Padded along two dims: the last element padded along one of them. */
    { "w = F.pad(x4, (1, 2, 1, 0), mode='reflect')", "pads x4 by mirroring it",
      "w[0,0,2,5] = x4[0,0,1,0] = 4, padding, mirrored at the edge x4[0,0,1,2] (2 places out, as many in); "
      "w[0,0,2,3] = x4[0,0,1,2] = 6" },
    { "r = torch.roll(x, -2)", "shifts the elements of x by 4 places in reading order, as if it were flat", NULL },
    { "q = torch.roll(x, 1, 1)", "shifts the elements of x by 1 place along dim 1", NULL },
  };
  assert_told (record, want, G_N_ELEMENTS (want), FALSE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *cases = g_test_build_filename (G_TEST_DIST, "app", "cases", NULL);
  g_autofree char *examples = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", NULL);
  const char *dirs[] = { cases, examples, NULL };
  g_test_add_data_func ("/record-forward-words/every-op-told", dirs, test_every_op_told);
  g_test_add_func ("/record-forward-words/numbers", test_numbers_told);
  g_test_add_func ("/record-forward-words/copies", test_copies_told);
  return g_test_run ();
}
