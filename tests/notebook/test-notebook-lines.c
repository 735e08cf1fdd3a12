/* test-notebook-lines.c — a notebook's lines told by their cell wherever
 * a run's record names a line: the backward call's title (the picker's
 * row), a step's caption (the step card, the graph's tooltips),
 * cr_run_record_line_text (the inspector, the check table, the paths'
 * refusals), the step card's error notes, the forward and backward traces
 * and the coach's explanations; the record keeps the cells (its wire form
 * and JSON too); a plain script keeps "line 12". */
#include "cr-interp.h"
#include "cr-notebook.h"
#include "cr-record-forward.h"
#include "cr-run-record-json.h"
#include "cr-run-record-trace.h"
#include "cr-run-record-wire.h"
#include "cr-step-text.h"
#include "cr-training.h"

#include <string.h>

/* Cell 1 is lines 2-3 (its marker is line 1), cell 2 lines 5-7. */
static const char SCRIPT[] =
  "# %% [1]\n"
  "import torch\n"
  "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
  "# %% [2]\n"
  "y = x * 3\n"
  "L = y.sum()\n"
  "L.backward()\n";

static void
discard_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
}

/* The record of script run as cells (as_cells) or as a plain script;
 * coached when coach. */
static CrRunRecord *
run_script (const char *script,
            const char *filename,
            gboolean    as_cells,
            gboolean    coach)
{
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (script, -1, filename, NULL,
                                                                   &span, &error);
  g_assert_no_error (error);
  CrInterpOptions options = { .record_backward = TRUE, .coach = coach,
                              .output = discard_output };
  CrInterp *interp = cr_interp_new (&options);
  if (as_cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) program->cells->data,
                         program->cells->len);
  CrScriptError *script_error = NULL;
  cr_interp_run (interp, program->module, &script_error);
  cr_script_error_free (script_error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  g_assert_nonnull (record);
  return record;
}

static CrRunRecord *
run (const char *filename,
     gboolean    as_cells)
{
  return run_script (SCRIPT, filename, as_cells, FALSE);
}

static const CrRecordStep *
step_titled (const CrRecordBackward *b,
             const char             *title)
{
  for (guint s = 0; s < b->steps->len; s++)
    {
      const CrRecordStep *step = b->steps->pdata[s];
      if (g_strcmp0 (step->title, title) == 0)
        return step;
    }
  return NULL;
}

static void
test_notebook (void)
{
  g_autoptr (CrRunRecord) record = run ("/tmp/lines.ipynb", TRUE);
  g_assert_cmpuint (record->backwards->len, ==, 1);
  const CrRecordBackward *b = record->backwards->pdata[0];
  g_assert_cmpstr (b->title, ==, "L.backward() · cell 2, line 3");
  const CrRecordStep *mul = step_titled (b, "MulBackward0");
  g_assert_nonnull (mul);
  g_assert_nonnull (strstr (mul->caption, ", cell 2, line 1"));
  g_autofree char *x_line = cr_run_record_line_text (record, 3, FALSE);
  g_assert_cmpstr (x_line, ==, "cell 1, line 2");
  g_autofree char *capital = cr_run_record_line_text (record, 6, TRUE);
  g_assert_cmpstr (capital, ==, "Cell 2, line 2");
  /* A marker is in no cell: the script's own line. */
  g_autofree char *marker = cr_run_record_line_text (record, 4, FALSE);
  g_assert_cmpstr (marker, ==, "line 4");
}

/* The record keeps the cells the script ran as, and the record's line
 * text is the one answer. */
static void
test_cells (void)
{
  g_autoptr (CrRunRecord) record = run ("/tmp/lines.ipynb", TRUE);
  g_assert_cmpuint (record->cells->len, ==, 2);
  const CrRecordCell *first = &g_array_index (record->cells, CrRecordCell, 0);
  const CrRecordCell *second = &g_array_index (record->cells, CrRecordCell, 1);
  g_assert_cmpuint (first->number, ==, 1);
  g_assert_cmpint (first->first_line, ==, 2);
  g_assert_cmpint (first->last_line, ==, 3);
  g_assert_cmpuint (second->number, ==, 2);
  g_assert_cmpint (second->first_line, ==, 5);
  g_assert_cmpint (second->last_line, ==, 7);
  int cell_line = 0;
  g_assert_true (cr_run_record_cell_at (record, 7, &cell_line) == second);
  g_assert_cmpint (cell_line, ==, 3);
  g_assert_null (cr_run_record_cell_at (record, 1, NULL));
  g_assert_null (cr_run_record_cell_at (record, 8, NULL));
  g_autofree char *text = cr_run_record_line_text (record, 5, TRUE);
  g_assert_cmpstr (text, ==, "Cell 2, line 1");
  /* No record: the plain line. */
  g_autofree char *plain = cr_run_record_line_text (NULL, 5, FALSE);
  g_assert_cmpstr (plain, ==, "line 5");

  /* The cells travel: through the wire (the crash guard's answer to the
   * window) and in the JSON. */
  g_autoptr (GBytes) wire = cr_run_record_to_wire (record);
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrRunRecord) back = cr_run_record_from_wire (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->cells->len, ==, 2);
  g_autofree char *back_text = cr_run_record_line_text (back, 6, FALSE);
  g_assert_cmpstr (back_text, ==, "cell 2, line 2");
  g_autofree char *json = cr_run_record_to_json (record, NULL);
  g_assert_nonnull (strstr (json, "\"cells\": [\n"
                                  "    {\"number\": 1, \"first_line\": 2, \"last_line\": 3},\n"
                                  "    {\"number\": 2, \"first_line\": 5, \"last_line\": 7}\n"
                                  "  ]\n}\n"));

  g_autoptr (CrRunRecord) script = run ("/tmp/lines.py", FALSE);
  g_assert_cmpuint (script->cells->len, ==, 0);
}

/* A second backward through a freed graph, and an in-place change of a
 * saved tensor, in cells 2 to 4. */
static const char ERRORS[] =
  "# %% [1]\n"
  "import torch\n"
  "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
  "# %% [2]\n"
  "y = (x * x).sum()\n"
  "y.backward()\n"
  "# %% [3]\n"
  "y.backward()\n"
  "# %% [4]\n"
  "a = x * 2\n"
  "b = a * a\n"
  "a.add_(1)\n"
  "b.sum().backward()\n";

static GPtrArray *
notes_of_error (const CrRunRecord *record,
                guint              i)
{
  g_assert_cmpuint (record->errors->len, >, i);
  return cr_step_text_error_notes (record, g_ptr_array_index (record->errors, i));
}

static gboolean
has_note (GPtrArray  *notes,
          const char *text)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), text))
      return TRUE;
  return FALSE;
}

/* The step card's error notes (the window and the handout), the traces and
 * the coach name a line by its cell. */
static void
test_texts (void)
{
  g_autoptr (CrRunRecord) record = run_script (ERRORS, "/tmp/errors.ipynb", TRUE, TRUE);
  g_assert_cmpuint (record->errors->len, ==, 2);
  g_autoptr (GPtrArray) freed = notes_of_error (record, 0);
  g_assert_true (has_note (freed, "It failed at MulBackward0 (cell 2, line 1)"));
  g_assert_true (has_note (freed, "freed by backward call #1 (cell 2, line 2)"));
  g_autoptr (GPtrArray) modified = notes_of_error (record, 1);
  g_assert_true (has_note (modified, "modified in place at cell 4, line 3,"));

  /* The card's caption: the cell and its line together after the dot. */
  g_autofree char *caption = cr_step_text_caption ("d = w3*b, cell 7, line 13", 0);
  g_assert_cmpstr (caption, ==, "d = w3*b · cell 7, line 13");
  g_autofree char *plain_caption = cr_step_text_caption ("b = w1*a, line 13", 2);
  g_assert_cmpstr (plain_caption, ==, "b = w1*a · line 13 · iteration 2");
  g_autofree char *odd = cr_step_text_caption ("f(a, cell 2), line 4", 0);
  g_assert_cmpstr (odd, ==, "f(a, cell 2) · line 4");
  CrStepText *text = cr_step_text_new (record, 0, 0);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text->caption, " · cell 2, line 1"));
  cr_step_text_free (text);

  g_autofree char *trace = cr_run_record_trace_backward (record, 0);
  g_assert_true (g_str_has_prefix (trace, "backward #1: y.backward() at cell 2, line 2\n"));
  g_autoptr (GArray) ops = cr_record_forward_ops (record, 0);
  g_autofree char *forward = cr_record_trace_forward (record, ops, NULL);
  g_assert_nonnull (strstr (forward, "(y = (x * x).sum(), cell 2, line 1)"));

  /* The coach: "backward twice" and the in-place change, each told by cell. */
  guint told = 0;
  for (guint i = 0; i < record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      g_test_message ("%s: %s", f->kind, f->explanation);
      g_assert_null (strstr (f->explanation, " line 8"));
      g_assert_null (strstr (f->explanation, "Line 12"));
      told += strstr (f->explanation, "cell 3, line 1") || strstr (f->explanation, "Cell 4, line 3");
    }
  g_assert_cmpuint (told, ==, 2);

  /* The Training page's update, by its cell. */
  static const char LOOP[] =
    "# %% [1]\n"
    "import torch\n"
    "w = torch.tensor(1.0, requires_grad=True)\n"
    "# %% [2]\n"
    "for i in range(2):\n"
    "    loss = (w * 3) ** 2\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.1 * w.grad\n"
    "    w.grad.zero_()\n";
  g_autoptr (CrRunRecord) loop = run_script (LOOP, "/tmp/loop.ipynb", TRUE, FALSE);
  g_assert_cmpuint (loop->updates->len, >=, 1);
  g_autofree char *update = cr_training_explain (loop, g_ptr_array_index (loop->updates, 0), 0);
  g_assert_nonnull (strstr (update, "manual update, cell 2, line 5"));

  /* The same text as a script: "line 8". */
  g_autoptr (CrRunRecord) script = run_script (ERRORS, "/tmp/errors.py", FALSE, FALSE);
  g_assert_cmpuint (script->errors->len, >=, 1);
  g_autoptr (GPtrArray) plain = notes_of_error (script, 0);
  g_assert_true (has_note (plain, "freed by backward call #1 (line 6)"));
}

static void
test_script (void)
{
  /* The same text as a script: markers are comments, lines are lines. */
  g_autoptr (CrRunRecord) record = run ("/tmp/lines.py", FALSE);
  const CrRecordBackward *b = record->backwards->pdata[0];
  g_assert_cmpstr (b->title, ==, "L.backward() · line 7");
  const CrRecordStep *mul = step_titled (b, "MulBackward0");
  g_assert_nonnull (strstr (mul->caption, ", line 5"));
  g_autofree char *x_line = cr_run_record_line_text (record, 3, FALSE);
  g_assert_cmpstr (x_line, ==, "line 3");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/notebook-lines/notebook", test_notebook);
  g_test_add_func ("/notebook-lines/script", test_script);
  g_test_add_func ("/notebook-lines/cells", test_cells);
  g_test_add_func ("/notebook-lines/texts", test_texts);
  return g_test_run ();
}
