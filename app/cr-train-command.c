/* cr-train-command.c — `chainrule train [OPTIONS] FILE.py`: the script runs
 * once, recorded (its own printing is left out; its warnings and errors go
 * to stderr), and the training loop is read off the record. */
#include "cr-config.h"
#include "cr-train-command.h"

#include "cr-cli-options.h"
#include "cr-pyformat.h"
#include "cr-script-record.h"
#include "cr-training.h"

#include <stdlib.h>
#include <string.h>

/* Without --all, the loss table has about this many rows. */
#define LOSS_ROWS 20

void
cr_train_command_usage (FILE *out)
{
  fputs ("Usage: chainrule train [OPTIONS] FILE.py\n"
         "\n"
         "A training loop, from one recorded run of the script: the loss of each\n"
         "backward call, each parameter over its updates, and the optimizer's steps\n"
         "(SGD with momentum and weight decay, Adam's moments; a manual\n"
         "`w -= lr * w.grad` under no_grad too) told with their numbers. The\n"
         "script's own printing is left out.\n"
         "\n"
         "Options:\n"
         "  --step N                tell the updates after backward call N (default: the\n"
         "                          first and the last)\n"
         "  --element N|I,J         the element whose numbers each rule shows: its number\n"
         "                          (row-major, default 0) or its index, one number a\n"
         "                          dimension (for the parameters with that many)\n"
         "  --all                   every backward call's loss and every step\n"
         "  --values                every loss and update as plain lines of Python values\n"
         "                          (what print(x.tolist()) shows), for checking\n"
         "  --timeout SECONDS       stop the script after this long\n"
         "  --help                  show this help\n", out);
}

static const CrCliCommand command = { "chainrule train", cr_train_command_usage };

/* The script's stderr (warnings) passes; its stdout is left out. */
static void
output_stderr_only (const char *text,
                    gboolean    is_stderr,
                    gpointer    user_data)
{
  if (is_stderr)
    fputs (text, stderr);
}

static gboolean
parse_count (const char *text,
             gint64      max,
             gint64     *out)
{
  char *end = NULL;
  long long n = strtoll (text, &end, 10);
  if (end == text || *end || n < 0 || n > max)
    return FALSE;
  *out = n;
  return TRUE;
}

/* --step: a backward call's number, from 1. */
static gboolean
parse_step (const char *value,
            gpointer    out)
{
  return parse_count (value, G_MAXINT, out) && *(gint64 *) out >= 1;
}

/* --element: an element's number from 0 (row-major), or its index a
 * number per dimension ("1,0" or "[1, 0]"), for the parameters with that
 * many dimensions (the others show their element 0). */
typedef struct {
  int    n_dims;                   /* 0: index[0] is row-major */
  gint64 index[CR_MAX_DIMS];
} ElementArg;

static gboolean
parse_element (const char *value,
               gpointer    out)
{
  ElementArg *arg = out;
  g_autofree char *text = g_strstrip (g_strdelimit (g_strdup (value), "[]", ' '));
  if (!strchr (text, ','))
    {
      arg->n_dims = 0;
      return parse_count (text, G_MAXINT64, &arg->index[0]);
    }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  arg->n_dims = (int) g_strv_length (parts);
  if (arg->n_dims > CR_MAX_DIMS)
    return FALSE;
  for (int d = 0; d < arg->n_dims; d++)
    if (!parse_count (g_strstrip (parts[d]), G_MAXINT64, &arg->index[d]))
      return FALSE;
  return TRUE;
}

static gint64
element_of (const CrRecordUpdate *u,
            const ElementArg     *arg)
{
  if (arg->n_dims == 0)
    return arg->index[0];
  const CrTensorSnapshot *s = u->after ? u->after : u->before;
  if (!s || s->ndim != arg->n_dims)
    return 0;
  gint64 element = 0;
  for (int d = 0; d < s->ndim; d++)
    element = element * s->shape[d] + MIN (arg->index[d], MAX (s->shape[d] - 1, 0));
  return element;
}

/* "Adam step 3", "manual update 2": how an update's lines begin in
 * --values; manual updates counted per parameter. */
static char *
update_heading (const CrRunRecord    *record,
                const CrRecordUpdate *u)
{
  if (u->kind == CR_RECORD_UPDATE_OPTIMIZER)
    return g_strdup_printf ("%s step %u %s", u->optimizer ? u->optimizer : "optimizer", u->step,
                            u->name ? u->name : "?");
  guint count = 0;
  for (guint i = 0; i <= u->id; i++)
    {
      const CrRecordUpdate *other = g_ptr_array_index (record->updates, i);
      count += other->kind == CR_RECORD_UPDATE_MANUAL && other->tensor == u->tensor;
    }
  return g_strdup_printf ("manual update %u %s", count, u->name ? u->name : "?");
}

static void
print_values_line (const char             *heading,
                   const char             *what,
                   const CrTensorSnapshot *s)
{
  g_autofree char *values = cr_training_values_text (s);
  printf ("%s %s %s\n", heading, what, values);
}

/* --values: every loss, then every update's grad, state after and value
 * after, one per line. */
static void
print_values (const CrRunRecord *record)
{
  g_autoptr (GArray) curve = cr_training_loss_curve (record);
  for (guint i = 0; i < curve->len; i++)
    {
      const CrTrainingPoint *point = &g_array_index (curve, CrTrainingPoint, i);
      g_autofree char *loss = cr_py_float_repr (point->loss);
      printf ("loss %u %s\n", point->backward + 1, loss);
    }
  for (guint i = 0; i < record->updates->len; i++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (record->updates, i);
      g_autofree char *heading = update_heading (record, u);
      print_values_line (heading, "grad", u->grad);
      for (guint k = 0; k < u->state->len; k++)
        {
          const CrRecordOptimState *state = g_ptr_array_index (u->state, k);
          print_values_line (heading, state->name, state->after);
        }
      print_values_line (heading, "after", u->after);
    }
}

static void
print_loss_table (const CrRunRecord *record,
                  gboolean           all)
{
  g_autoptr (GArray) curve = cr_training_loss_curve (record);
  if (curve->len == 0)
    {
      puts ("No backward call with a one-element loss.");
      return;
    }
  const CrRecordBackward *first = g_ptr_array_index (record->backwards,
                                                     g_array_index (curve, CrTrainingPoint, 0).backward);
  g_autofree char *where = cr_run_record_line_text (record, first->span.line, FALSE);
  printf ("Loss of %u backward call%s (the first at %s):\n", curve->len,
          curve->len == 1 ? "" : "s", where);
  printf ("  %6s  %9s  %s\n", "call", "iteration", "loss");
  guint every = all || curve->len <= LOSS_ROWS ? 1 : (curve->len + LOSS_ROWS - 1) / LOSS_ROWS;
  for (guint i = 0; i < curve->len; i++)
    {
      if (i % every != 0 && i != curve->len - 1)
        continue;
      const CrTrainingPoint *point = &g_array_index (curve, CrTrainingPoint, i);
      char loss[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (loss, sizeof loss, "%.6g", point->loss);
      char iteration[16] = "-";
      if (point->iteration)
        g_snprintf (iteration, sizeof iteration, "%u", point->iteration);
      printf ("  %6u  %9s  %s\n", point->backward + 1, iteration, loss);
    }
}

/* The numbers the script printed in its loop, a line a series. */
static void
print_printed (const CrRunRecord *record)
{
  g_autoptr (GPtrArray) all = cr_training_printed_series (record);
  for (guint k = 0; k < all->len; k++)
    {
      const CrTrainingSeries *series = g_ptr_array_index (all, k);
      const CrTrainingPoint *first = &g_array_index (series->points, CrTrainingPoint, 0);
      const CrTrainingPoint *last = &g_array_index (series->points, CrTrainingPoint, series->points->len - 1);
      char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (a, sizeof a, "%.6g", first->loss);
      g_ascii_formatd (b, sizeof b, "%.6g", last->loss);
      g_autofree char *where = cr_run_record_line_text (record, series->line, FALSE);
      printf ("%sPrinted at %s: %s, %u value%s, %s (after call %u) → %s (after call %u)\n",
              k == 0 ? "\n" : "", where, series->name, series->points->len,
              series->points->len == 1 ? "" : "s", a, first->backward + 1, b, last->backward + 1);
    }
}

static void
print_params (const CrRunRecord *record)
{
  g_autoptr (GPtrArray) params = cr_training_params (record);
  if (params->len == 0)
    {
      puts ("\nNo parameter updates (no optimizer.step(), no update under no_grad).");
      return;
    }
  puts ("\nParameters, first update → last:");
  for (guint p = 0; p < params->len; p++)
    {
      const CrTrainingParam *param = g_ptr_array_index (params, p);
      const CrRecordUpdate *first = g_ptr_array_index (record->updates,
                                                       g_array_index (param->updates, guint, 0));
      const CrRecordUpdate *last = g_ptr_array_index (record->updates,
                                                      g_array_index (param->updates, guint,
                                                                     param->updates->len - 1));
      char before[G_ASCII_DTOSTR_BUF_SIZE] = "?", after[G_ASCII_DTOSTR_BUF_SIZE] = "?";
      if (first->before)
        g_ascii_formatd (before, sizeof before, "%.5g", cr_tensor_snapshot_norm (first->before));
      if (last->after)
        g_ascii_formatd (after, sizeof after, "%.5g", cr_tensor_snapshot_norm (last->after));
      printf ("  %-16s %u update%s (%s), norm %s → %s\n", param->name, param->updates->len,
              param->updates->len == 1 ? "" : "s",
              first->kind == CR_RECORD_UPDATE_MANUAL ? "manual" : first->optimizer, before, after);
    }
}

/* Tells the updates after backward call `backward` (0-based). */
static void
print_step (const CrRunRecord *record,
            int                backward,
            const ElementArg  *element)
{
  g_autoptr (GArray) updates = cr_training_updates_after (record, backward);
  const CrRecordBackward *bw = backward >= 0 ? g_ptr_array_index (record->backwards, backward) : NULL;
  printf ("\nAfter backward call %d%s%s:\n", backward + 1, bw && bw->title ? ", " : "",
          bw && bw->title ? bw->title : "");
  if (updates->len == 0)
    puts ("  no update");
  for (guint i = 0; i < updates->len; i++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (record->updates, g_array_index (updates, guint, i));
      g_autofree char *text = cr_training_explain (record, u, element_of (u, element));
      g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
      for (guint k = 0; lines[k]; k++)
        if (*lines[k])
          printf ("  %s\n", lines[k]);
    }
}

int
cr_train_command (int    argc,
                  char **argv)
{
  const char *file = NULL;
  double timeout = 0;
  gint64 step = -1;
  ElementArg element = { 0 };
  gboolean all = FALSE, values = FALSE;
  const CrCliOption options[] = {
    { "--all", NULL, NULL, &all, NULL },
    { "--values", NULL, NULL, &values, NULL },
    { "--step", NULL, parse_step, &step, "--step needs a backward call's number (1, 2, ...)" },
    { "--element", NULL, parse_element, &element, "--element needs an element's number (0, 1, ...) or index (1,0)" },
    CR_CLI_TIMEOUT_OPTION (&timeout),
    { NULL },
  };
  int status = cr_cli_parse (&command, argc, argv, options, &file);
  if (status >= 0)
    return status;

  CrScriptRecordOptions ro = {
    .command = command.name, .file = file, .timeout = timeout, .output = output_stderr_only,
  };
  g_auto (CrScriptRecording) run = { 0 };
  if (!cr_script_record (&ro, &run))
    return 2;
  cr_script_recording_print_error (&run);
  const CrRunRecord *record = run.record;
  if (!record || record->backwards->len == 0)
    {
      fputs ("chainrule train: the script made no backward call\n", stderr);
      return 2;
    }

  if (values)
    print_values (record);
  else
    {
      print_loss_table (record, all);
      print_printed (record);
      print_params (record);
      if (step > (gint64) record->backwards->len)
        {
          fprintf (stderr, "chainrule train: --step %" G_GINT64_FORMAT ": the script made %u "
                           "backward call%s\n", step, record->backwards->len,
                   record->backwards->len == 1 ? "" : "s");
          return 2;
        }
      if (step >= 1)
        print_step (record, (int) step - 1, &element);
      else if (all)
        for (guint b = 0; b < record->backwards->len; b++)
          print_step (record, (int) b, &element);
      else if (record->updates->len > 0)
        {
          const CrRecordUpdate *first = g_ptr_array_index (record->updates, 0);
          const CrRecordUpdate *last = g_ptr_array_index (record->updates, record->updates->len - 1);
          print_step (record, first->backward, &element);
          if (last->backward != first->backward)
            print_step (record, last->backward, &element);
        }
    }
  fflush (stdout);
  return 0;
}
