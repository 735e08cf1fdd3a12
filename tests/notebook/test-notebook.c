/* test-notebook.c — Jupyter notebooks: the JSON reader, the .ipynb ->
 * script conversion, cells found from their markers, IPython's lines, the
 * cell-by-cell run, and the seed notebook (computational-graphs.ipynb, with
 * the outputs its author's Jupyter stored, from ../shared/seeds/) printing
 * what those outputs show, cell by cell. */
#include "cr-interp.h"
#include "cr-json.h"
#include "cr-notebook.h"

#include <string.h>

/* ---- JSON ---------------------------------------------------------------- */

static void
test_json_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrJson) json = cr_json_parse ("{\"a\": [1, -2.5e1, true, false, null],"
                                           " \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", \"a\": {}}",
                                           -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (json);
  /* The last of a repeated member. */
  g_assert_cmpint (cr_json_get (json, "a")->kind, ==, CR_JSON_OBJECT);
  const CrJson *list = json->items->pdata[0];
  g_assert_cmpint (list->items->len, ==, 5);
  g_assert_cmpfloat (((CrJson *) list->items->pdata[1])->number, ==, -25.0);
  g_assert_true (((CrJson *) list->items->pdata[2])->boolean);
  g_assert_false (((CrJson *) list->items->pdata[3])->boolean);
  g_assert_cmpint (((CrJson *) list->items->pdata[4])->kind, ==, CR_JSON_NULL);
  g_assert_cmpstr (cr_json_get_string (cr_json_get (json, "s")), ==, "x\xc3\xa9\xf0\x9f\x98\x80\n\"");
  g_assert_null (cr_json_get (json, "missing"));
  g_assert_null (cr_json_get (list, "a"));
}

static void
test_json_refused (void)
{
  const char *bad[] = {
    "", "{", "[1,]", "{\"a\" 1}", "\"\\x\"", "\"abc", "[1] 2", "tru", "\"a\tb\"", "\xff",
    "{\"a\":}", "[-]", "01x",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrJson) json = cr_json_parse (bad[i], -1, &error);
      g_assert_null (json);
      g_assert_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR);
      g_assert_true (g_str_has_prefix (error->message, "bad JSON at line 1"));
    }
  /* Deep nesting is refused, not a stack overflow. */
  GString *deep = g_string_new (NULL);
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  g_autoptr (GError) error = NULL;
  g_assert_null (cr_json_parse (deep->str, (gssize) deep->len, &error));
  g_assert_nonnull (strstr (error->message, "nested too deeply"));
  g_string_free (deep, TRUE);
}

/* ---- conversion ---------------------------------------------------------- */

static const char SMALL_NOTEBOOK[] =
  "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": ["
  " {\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": [\"# Title\\n\", \"\\n\", \"Text\"]},"
  " {\"cell_type\": \"code\", \"execution_count\": 3, \"metadata\": {}, \"outputs\": ["
  "   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"1\\n\"]},"
  "   {\"output_type\": \"execute_result\", \"execution_count\": 3, \"metadata\": {},"
  "    \"data\": {\"text/plain\": [\"2\"]}}],"
  "  \"source\": \"print(1)\\r\\n1 + 1\"},"
  " {\"cell_type\": \"code\", \"execution_count\": null, \"metadata\": {}, \"outputs\": [],"
  "  \"source\": []},"
  " {\"cell_type\": \"raw\", \"metadata\": {}, \"source\": \"raw text\\n\"}"
  "]}";

static void
test_convert (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrNotebook) notebook = cr_notebook_parse (SMALL_NOTEBOOK, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (notebook->cells->len, ==, 4);
  const CrNotebookCell *code = notebook->cells->pdata[1];
  g_assert_cmpint (code->kind, ==, CR_NOTEBOOK_CELL_CODE);
  g_assert_cmpint (code->execution_count, ==, 3);
  g_assert_cmpuint (code->number, ==, 1);
  g_assert_cmpint (code->outputs->len, ==, 2);
  const CrNotebookOutput *result = code->outputs->pdata[1];
  g_assert_cmpstr (result->output_type, ==, "execute_result");
  g_assert_cmpstr (result->text, ==, "2");
  g_autofree char *script = cr_notebook_to_script (notebook);
  g_assert_cmpstr (script, ==,
                   "# %% [markdown]\n"
                   "# # Title\n"
                   "#\n"
                   "# Text\n"
                   "\n"
                   "# %% [1]\n"
                   "print(1)\n"
                   "1 + 1\n"
                   "\n"
                   "# %% [2]\n"
                   "\n"
                   "# %% [raw]\n"
                   "# raw text\n");
  g_assert_true (cr_notebook_is_path ("a/b.IPYNB"));
  g_assert_false (cr_notebook_is_path ("a/ipynb.py"));
}

static void
test_convert_refused (void)
{
  const char *bad[] = { "[]", "{\"cells\": 3}", "{\"nbformat\": 3, \"worksheets\": []}", "{" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebook) notebook = cr_notebook_parse (bad[i], -1, &error);
      g_assert_null (notebook);
      g_assert_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR);
    }
}

/* ---- cells from markers ---------------------------------------------------- */

static CrNotebookProgram *
program_of (const char *script)
{
  g_autoptr (GError) error = NULL;
  CrSpan span;
  CrNotebookProgram *program = cr_notebook_program_new (script, -1, "nb.ipynb", NULL, &span, &error);
  g_assert_no_error (error);
  g_assert_nonnull (program);
  return program;
}

static const CrScriptCell *
cell_of (CrNotebookProgram *program,
         guint              i)
{
  g_assert_cmpuint (i, <, program->cells->len);
  return &g_array_index (program->cells, CrScriptCell, i);
}

static void
test_cells (void)
{
  g_autoptr (CrNotebookProgram) program = program_of (
    "# %% [markdown]\n"          /* 1 */
    "# text\n"                   /* 2 */
    "# %% [4]\n"                 /* 3 */
    "x = 1\n"                    /* 4 */
    "%matplotlib inline\n"       /* 5 */
    "# %%\n"                     /* 6 */
    "!pip install torch\n"       /* 7 */
    "if x:\n"                    /* 8 */
    "    %time y = x\n"          /* 9 */
    "# %% [raw]\n"               /* 10 */
    "not code\n"                 /* 11 */
    "# %% [9]\n"                 /* 12 */
    "%%bash\n"                   /* 13 */
    "echo hi\n");                /* 14 */
  g_assert_cmpuint (program->cells->len, ==, 3);
  const CrScriptCell *a = cell_of (program, 0), *b = cell_of (program, 1), *c = cell_of (program, 2);
  g_assert_cmpuint (a->number, ==, 4);
  g_assert_cmpint (a->first_line, ==, 4);
  g_assert_cmpint (a->last_line, ==, 5);
  g_assert_null (a->notes);   /* %matplotlib changes nothing a text run shows */
  g_assert_null (a->syntax_message);
  /* A plain marker counts the code cells. */
  g_assert_cmpuint (b->number, ==, 2);
  g_assert_cmpint (b->first_line, ==, 7);
  g_assert_cmpint (b->last_line, ==, 9);
  g_assert_cmpstr (b->notes, ==,
                   "chainrule: cell 2, line 1: skipped the shell command !pip install torch\n"
                   "chainrule: cell 2, line 3: ran without %time: Chainrule does not time statements\n");
  g_assert_cmpuint (c->number, ==, 9);
  g_assert_cmpstr (c->notes, ==, "chainrule: cell 9: skipped: a %%bash cell is not Python\n");
  /* The module: `x = 1` and the `if` (the raw cell's text is no code);
   * its source is the text as written. */
  g_assert_cmpuint (program->module->n_body, ==, 2);
  g_assert_nonnull (strstr (program->module->source, "%time y = x"));
}

static void
test_cells_syntax (void)
{
  g_autoptr (CrNotebookProgram) program = program_of (
    "# %% [1]\n"
    "a = 1\n"
    "# %% [2]\n"
    "with a:\n"
    "    inference code goes here\n"
    "# %% [3]\n"
    "b = (\n");
  const CrScriptCell *two = cell_of (program, 1), *three = cell_of (program, 2);
  g_assert_cmpint (two->syntax_type, ==, CR_EXC_SYNTAX_ERROR);
  g_assert_cmpstr (two->syntax_message, ==, "invalid syntax");
  g_assert_cmpint (two->syntax_span.line, ==, 5);
  g_assert_cmpstr (two->syntax_text, ==,
                   "  File \"nb.ipynb\", cell 2, line 2\n"
                   "    inference code goes here\n"
                   "              ^^^^\n"
                   "SyntaxError: invalid syntax\n");
  g_assert_cmpstr (three->syntax_message, ==, "'(' was never closed");
  g_assert_cmpuint (program->module->n_body, ==, 1);
  /* No marker at all: the whole text is cell 1. */
  g_autoptr (CrNotebookProgram) plain = program_of ("x = 1\ny = 2\n");
  g_assert_cmpuint (plain->cells->len, ==, 1);
  g_assert_cmpuint (cell_of (plain, 0)->number, ==, 1);
}

/* ---- running cells ------------------------------------------------------- */

typedef struct {
  CrInterp  *interp;
  GString   *out;
  GString   *err;
  GPtrArray *cell_out;   /* GString* per cell number */
  GPtrArray *cell_err;
} Run;

static GString *
cell_buffer (GPtrArray *buffers,
             guint      number)
{
  while (buffers->len <= number)
    g_ptr_array_add (buffers, g_string_new (NULL));
  return buffers->pdata[number];
}

static void
collect (const char *text,
         gboolean    is_stderr,
         gpointer    user_data)
{
  Run *run = user_data;
  g_string_append (is_stderr ? run->err : run->out, text);
  guint cell = run->interp ? cr_interp_running_cell (run->interp) : 0;
  g_string_append (cell_buffer (is_stderr ? run->cell_err : run->cell_out, cell), text);
}

static void
buffer_free (gpointer data)
{
  g_string_free (data, TRUE);
}

static void
run_free (Run *run)
{
  g_string_free (run->out, TRUE);
  g_string_free (run->err, TRUE);
  g_ptr_array_unref (run->cell_out);
  g_ptr_array_unref (run->cell_err);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* Runs script as notebook cells; *ok: whether every cell ran. */
static Run *
run_script (const char *script,
            gboolean   *ok,
            guint      *n_failed,
            gboolean    record)
{
  Run *run = g_new0 (Run, 1);
  run->out = g_string_new (NULL);
  run->err = g_string_new (NULL);
  run->cell_out = g_ptr_array_new_with_free_func (buffer_free);
  run->cell_err = g_ptr_array_new_with_free_func (buffer_free);
  g_autoptr (CrNotebookProgram) program = program_of (script);
  CrInterpOptions options = { .output = collect, .output_data = run, .record_backward = record };
  run->interp = cr_interp_new (&options);
  cr_interp_set_cells (run->interp, (const CrScriptCell *) (gpointer) program->cells->data,
                       program->cells->len);
  CrScriptError *error = NULL;
  *ok = cr_interp_run (run->interp, program->module, &error);
  if (!*ok)
    {
      g_assert_nonnull (error);
      g_assert_true (error->reported);
    }
  if (n_failed)
    *n_failed = cr_interp_n_failed_cells (run->interp);
  if (record)
    {
      g_autoptr (CrRunRecord) rec = cr_interp_get_run_record (run->interp);
      /* Each failed cell's error is in the record once. */
      g_assert_cmpuint (rec->errors->len, ==, cr_interp_n_failed_cells (run->interp));
    }
  cr_script_error_free (error);
  cr_interp_free (run->interp);
  run->interp = NULL;
  return run;
}

static void
test_run_display (void)
{
  gboolean ok;
  g_autoptr (Run) run = run_script (
    "# %% [1]\n"
    "import torch\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "w\n"
    "# %% [2]\n"
    "w.sum();\n"
    "# %% [3]\n"
    "y = w * 2\n"
    "# %% [4]\n"
    "print('p')\n"
    "# %% [5]\n"
    "'s'  # a comment; not the end\n"
    "# %% [6]\n"
    "from IPython.display import Math\n"
    "display(Math('x'), None)\n"
    "display()\n",
    &ok, NULL, FALSE);
  g_assert_true (ok);
  g_assert_cmpstr (run->out->str, ==,
                   "tensor([1., 2.], requires_grad=True)\n"
                   "p\n"
                   "'s'\n"
                   "<IPython.core.display.Math object>\n"
                   "None\n");
  g_assert_cmpstr (run->err->str, ==, "");
}

static void
test_run_errors (void)
{
  gboolean ok;
  guint n_failed = 0;
  g_autoptr (Run) run = run_script (
    "# %% [1]\n"
    "x = 1\n"
    "# %% [2]\n"
    "print('two')\n"
    "x.missing\n"
    "# %% [3]\n"
    "for i in range(3):\n"
    "    if i == 1:\n"
    "        oops(\n"
    "# %% [4]\n"
    "print('four', x)\n",
    &ok, &n_failed, TRUE);
  g_assert_false (ok);
  g_assert_cmpuint (n_failed, ==, 2);
  g_assert_cmpstr (run->out->str, ==, "two\nfour 1\n");
  g_assert_cmpstr (((GString *) run->cell_err->pdata[2])->str, ==,
                   "Traceback (most recent call last):\n"
                   "  File \"nb.ipynb\", cell 2, line 2, in <module>\n"
                   "    x.missing\n"
                   "AttributeError: 'int' object has no attribute 'missing'\n");
  g_assert_true (g_str_has_prefix (((GString *) run->cell_err->pdata[3])->str,
                                   "  File \"nb.ipynb\", cell 3, line 3\n"));
}

/* Cancelling ends the whole run, not one cell. */
static void
test_run_cancel (void)
{
  g_autoptr (CrNotebookProgram) program = program_of ("# %%\nx = 1\n# %%\nprint(x)\n");
  gint flag = 1;
  CrInterpOptions options = { .cancel_flag = &flag };
  CrInterp *interp = cr_interp_new (&options);
  cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) program->cells->data,
                       program->cells->len);
  CrScriptError *error = NULL;
  g_assert_false (cr_interp_run (interp, program->module, &error));
  g_assert_cmpint (error->type, ==, CR_EXC_KEYBOARD_INTERRUPT);
  g_assert_false (error->reported);
  cr_script_error_free (error);
  cr_interp_free (interp);
}

/* ---- the seed notebook against its stored outputs --------------------------- */

/* Object addresses differ from run to run. */
static char *
mask_addresses (const char *text)
{
  g_autoptr (GRegex) address = g_regex_new ("0x[0-9a-fA-F]+", 0, 0, NULL);
  return g_regex_replace_literal (address, text, -1, 0, "0x?", 0, NULL);
}

static void
test_seed_outputs (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "notebook", "computational-graphs.ipynb", NULL);
  g_autofree char *json = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &json, &length, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (CrNotebook) notebook = cr_notebook_parse (json, (gssize) length, &error);
  g_assert_no_error (error);
  g_autofree char *script = cr_notebook_to_script (notebook);
  gboolean ok;
  guint n_failed = 0;
  g_autoptr (Run) run = run_script (script, &ok, &n_failed, TRUE);
  /* The vector backward, the `loss` never defined, the prose in a `with`. */
  g_assert_cmpuint (n_failed, ==, 3);

  guint compared = 0;
  for (guint i = 0; i < notebook->cells->len; i++)
    {
      const CrNotebookCell *cell = notebook->cells->pdata[i];
      if (cell->kind != CR_NOTEBOOK_CELL_CODE || cell->outputs->len == 0)
        continue;
      /* torch.Tensor(3, 5) shows whatever memory it got: nothing to compare. */
      if (strstr (cell->source, "torch.Tensor(3, 5)"))
        continue;
      g_autoptr (GString) expected_out = g_string_new (NULL);
      const char *our_out = cell_buffer (run->cell_out, cell->number)->str;
      const char *our_err = cell_buffer (run->cell_err, cell->number)->str;
      for (guint k = 0; k < cell->outputs->len; k++)
        {
          const CrNotebookOutput *output = cell->outputs->pdata[k];
          if (strcmp (output->output_type, "error") == 0)
            {
              /* The cell's error: its traceback ends with "Type: message". */
              g_autofree char *last = g_strdup_printf ("%s: %s\n", output->ename, output->evalue);
              g_assert_true (g_str_has_suffix (our_err, last));
            }
          else if (g_strcmp0 (output->name, "stderr") == 0)
            /* A warning: its source line, as the notebook shows it. */
            g_assert_nonnull (strstr (our_err, output->text));
          else if (output->text)
            {
              g_string_append (expected_out, output->text);
              if (strcmp (output->output_type, "stream") != 0)
                g_string_append_c (expected_out, '\n');
            }
        }
      g_autofree char *want = mask_addresses (expected_out->str);
      g_autofree char *got = mask_addresses (our_out);
      g_assert_cmpstr (got, ==, want);
      compared++;
    }
  g_assert_cmpuint (compared, ==, 7);
}

/* ---- hostile input ---------------------------------------------------- */

/* Corrupted notebooks and marked scripts: refused with an error or read,
 * never a crash (the ASan build runs this too). */
static void
test_corrupted (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "notebook", "computational-graphs.ipynb", NULL);
  g_autofree char *json = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &json, &length, NULL));
  static const char pieces[] = "{}[]\",:\\u0#%!\n ()x";
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);
  guint read = 0;
  for (int round = 0; round < 300; round++)
    {
      g_autofree char *copy = g_memdup2 (json, length + 1);
      for (int k = g_rand_int_range (rand, 1, 6); k > 0; k--)
        copy[g_rand_int_range (rand, 0, (gint32) length)] = pieces[g_rand_int_range (rand, 0, sizeof pieces - 1)];
      gsize cut = g_rand_boolean (rand) ? length : (gsize) g_rand_int_range (rand, 0, (gint32) length);
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebook) notebook = cr_notebook_parse (copy, (gssize) cut, &error);
      g_assert_true ((notebook == NULL) == (error != NULL));
      if (!notebook)
        continue;
      read++;
      g_autofree char *script = cr_notebook_to_script (notebook);
      CrSpan span;
      g_autoptr (GError) parse_error = NULL;
      g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (script, -1, "nb.ipynb", NULL,
                                                                       &span, &parse_error);
      g_assert_true ((program == NULL) == (parse_error != NULL));
    }
  g_assert_cmpuint (read, >, 0);
  /* Markers and IPython lines in odd places. */
  const char *scripts[] = {
    "# %% [", "# %% [0]\n%%", "%", "!", "# %%\n    %time\n", "# %% [markdown]", "\n\n# %%",
    "# %% [99999999999999999999]\nx = 1\n", "if 1:\n    !ls\n# %%\n%%time\n", "# %%\r\n%%bash\r\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      CrSpan span;
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (scripts[i], -1, "nb.ipynb",
                                                                       NULL, &span, &error);
      g_assert_no_error (error);
      g_autoptr (CrRunRecord) cells = cr_notebook_cells_record (scripts[i], "nb.ipynb");
      g_autofree char *where = cr_run_record_line_text (cells, 1, FALSE);
      g_assert_nonnull (where);
    }
  /* A run that left no record names its lines by the script's cells, as a
   * record would (the window's error bar after a refused parse). */
  g_autoptr (CrRunRecord) cells = cr_notebook_cells_record ("# %%\nx = 1\n# %% [markdown]\n# words\n"
                                                            "# %%\ny = 2\nz = (\n", "nb.ipynb");
  g_autofree char *in_second = cr_run_record_line_text (cells, 7, FALSE);
  g_assert_cmpstr (in_second, ==, "cell 2, line 2");
  g_autofree char *marker = cr_run_record_line_text (cells, 3, TRUE);
  g_assert_cmpstr (marker, ==, "Line 3");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/notebook/json/values", test_json_values);
  g_test_add_func ("/notebook/json/refused", test_json_refused);
  g_test_add_func ("/notebook/convert", test_convert);
  g_test_add_func ("/notebook/convert-refused", test_convert_refused);
  g_test_add_func ("/notebook/cells", test_cells);
  g_test_add_func ("/notebook/cells-syntax", test_cells_syntax);
  g_test_add_func ("/notebook/run/display", test_run_display);
  g_test_add_func ("/notebook/run/errors", test_run_errors);
  g_test_add_func ("/notebook/run/cancel", test_run_cancel);
  g_test_add_func ("/notebook/seed-outputs", test_seed_outputs);
  g_test_add_func ("/notebook/corrupted", test_corrupted);
  return g_test_run ();
}
