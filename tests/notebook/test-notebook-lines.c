/* test-notebook-lines.c — a notebook's lines told by their cell wherever
 * a run's record names a line: the backward call's title (the picker's
 * row), a step's caption (the step card, the graph's tooltips),
 * cr_notebook_line_text (the inspector, the check table, the paths'
 * refusals); a plain script keeps "line 12". */
#include "cr-interp.h"
#include "cr-notebook.h"

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

static CrRunRecord *
run (const char *filename,
     gboolean    as_cells)
{
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (SCRIPT, -1, filename, NULL,
                                                                   &span, &error);
  g_assert_no_error (error);
  CrInterpOptions options = { .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&options);
  if (as_cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) program->cells->data,
                         program->cells->len);
  CrScriptError *script_error = NULL;
  g_assert_true (cr_interp_run (interp, program->module, &script_error));
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  g_assert_nonnull (record);
  return record;
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
  g_autofree char *x_line = cr_notebook_line_text (record, 3, FALSE);
  g_assert_cmpstr (x_line, ==, "cell 1, line 2");
  g_autofree char *capital = cr_notebook_line_text (record, 6, TRUE);
  g_assert_cmpstr (capital, ==, "Cell 2, line 2");
  /* A marker is in no cell: the script's own line. */
  g_autofree char *marker = cr_notebook_line_text (record, 4, FALSE);
  g_assert_cmpstr (marker, ==, "line 4");
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
  g_autofree char *x_line = cr_notebook_line_text (record, 3, FALSE);
  g_assert_cmpstr (x_line, ==, "line 3");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/notebook-lines/notebook", test_notebook);
  g_test_add_func ("/notebook-lines/script", test_script);
  return g_test_run ();
}
