/* cr-explain-op-command.c — `chainrule explain-op [OPTIONS] FILE.py --op NAME|N`:
 * the script runs once, recorded, and the op's scalar graph is read off its
 * record. */
#include "cr-config.h"
#include "cr-explain-op-command.h"

#include "cr-cli-options.h"
#include "cr-op-scalars.h"
#include "cr-script-record.h"

#include <stdlib.h>

void
cr_explain_op_command_usage (FILE *out)
{
  fprintf (out,
           "Usage: chainrule explain-op [OPTIONS] FILE.py [--op NAME|N | --all]\n"
           "\n"
           "One small tensor op (its inputs and output of at most %d elements together)\n"
           "taken apart into its scalar graph: one equation per output element (a 2x2\n"
           "matmul's c[0, 0] = a[0, 0]·b[0, 0] + a[0, 1]·b[1, 0]), then for each input\n"
           "element the chain rule, the sum over its edges of the incoming gradient times\n"
           "the local derivative, beside what the backward step sent. Without --op, the\n"
           "script's ops are listed with their numbers. Exit status 0 when the sums equal\n"
           "the step's gradients, 1 when they do not, 2 on an error.\n"
           "\n"
           "Options:\n"
           "  --op NAME|N             the op that made NAME (c, fc1.weight's user: the\n"
           "                          output's name as the graph shows it), or op N of the list\n"
           "  --all                   open every op of the list: each says whether it opens,\n"
           "                          and why not (the scalar view's reach over a script)\n"
           "  --timeout SECONDS       stop the script after this long\n"
           "  --help                  show this help\n", CR_OP_SCALARS_MAX_ELEMENTS);
}

static const CrCliCommand command = { "chainrule explain-op", cr_explain_op_command_usage };

static const CrRecordTensor *
output_of (const CrRunRecord *record,
           const CrRecordOp  *op)
{
  int id = op->outputs->len ? g_array_index (op->outputs, int, 0) : -1;
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

/* Whether op opens, and why not (set, a new string, when it does not): with
 * open_all, opened in full (an option the expansion does not know shows
 * only then) and its sums compared with the backward step's; else the
 * cheap check alone. */
static gboolean
op_opens (const CrRunRecord *record,
          int                op,
          gboolean           open_all,
          char             **why)
{
  if (!cr_op_scalars_can_open (record, op, why))
    return FALSE;
  if (!open_all)
    return TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) scalars = cr_op_scalars_new (record, op, -1, -1, &error);
  if (!scalars)
    {
      *why = g_strdup (error->message);
      return FALSE;
    }
  guint differ = cr_op_scalars_count_disagreements (scalars, record);
  if (differ)
    {
      *why = g_strdup_printf ("it opens, but %u input elements' sums differ from what the "
                              "backward step sent", differ);
      return FALSE;
    }
  return TRUE;
}

static void
list_ops (const CrRunRecord *record,
          gboolean           open_all)
{
  printf ("The script's ops (open one with --op N or --op NAME):\n");
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = record->ops->pdata[i];
      const CrRecordTensor *out = output_of (record, op);
      g_autofree char *why = NULL;
      gboolean can = op_opens (record, (int) i, open_all, &why);
      printf ("%4u. %s -> %s  %s (line %u)%s%s\n", i + 1, op->grad_fn,
              out && out->label ? out->label : "?", op->caption ? op->caption : "",
              op->span.line, can ? "" : "\n        cannot be opened: ", can ? "" : why);
    }
}

static gboolean
is_number (const char *text)
{
  if (!*text)
    return FALSE;
  for (const char *p = text; *p; p++)
    if (*p < '0' || *p > '9')
      return FALSE;
  return TRUE;
}

int
cr_explain_op_command (int    argc,
                       char **argv)
{
  const char *file = NULL, *op_text = NULL;
  double timeout = 0;
  gboolean open_all = FALSE;
  const CrCliOption options[] = {
    { "--op", NULL, cr_cli_parse_text, &op_text, NULL },
    { "--all", NULL, NULL, &open_all, NULL },
    CR_CLI_TIMEOUT_OPTION (&timeout),
    { NULL },
  };
  int status = cr_cli_parse (&command, argc, argv, options, &file);
  if (status >= 0)
    return status;

  CrScriptRecordOptions ro = { .command = command.name, .file = file, .timeout = timeout };
  g_auto (CrScriptRecording) run = { 0 };
  if (!cr_script_record (&ro, &run))
    return 2;
  const CrRunRecord *record = run.record;
  if (!record || (run.error && record->ops->len == 0))
    {
      if (run.error)
        cr_script_recording_print_error (&run);
      else
        fputs ("chainrule explain-op: the script made no tensor op\n", stderr);
      return 2;
    }

  if (!op_text)
    {
      list_ops (record, open_all);
      return 0;
    }
  int op = -1;
  if (is_number (op_text))
    {
      long long n = strtoll (op_text, NULL, 10);
      if (n < 1 || n > (long long) record->ops->len)
        {
          fprintf (stderr, "chainrule explain-op: the script has %u ops; --op %s is none of them\n",
                   record->ops->len, op_text);
          return 2;
        }
      op = (int) n - 1;
    }
  for (guint i = 0; op < 0 && i < record->ops->len; i++)
    {
      const CrRecordTensor *out = output_of (record, record->ops->pdata[i]);
      if (out && (g_strcmp0 (out->label, op_text) == 0 || g_strcmp0 (out->name, op_text) == 0))
        op = (int) i;
    }
  if (op < 0)
    {
      fprintf (stderr, "chainrule explain-op: no op made '%s'\n", op_text);
      list_ops (record, FALSE);
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CrOpScalars) scalars = cr_op_scalars_new (record, op, -1, -1, &error);
  if (!scalars)
    {
      fprintf (stderr, "chainrule explain-op: %s\n", error->message);
      return 2;
    }
  g_autofree char *text = cr_op_scalars_format (scalars, record);
  fputs (text, stdout);
  fflush (stdout);
  return cr_op_scalars_count_disagreements (scalars, record) ? 1 : 0;
}
