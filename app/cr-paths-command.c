/* cr-paths-command.c — `chainrule paths [OPTIONS] FILE.py --leaf NAME[INDEX]`:
 * the script runs once, recorded, and the paths are read off its record. */
#include "cr-config.h"
#include "cr-paths-command.h"

#include "cr-cli-options.h"
#include "cr-paths.h"
#include "cr-script-record.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_PATHS 100

void
cr_paths_command_usage (FILE *out)
{
  fputs ("Usage: chainrule paths [OPTIONS] FILE.py --leaf NAME[INDEX]\n"
         "\n"
         "Every path from a leaf (one element of a tensor leaf: x[1], w[0, 2]) to the\n"
         "loss of the first .backward() that reaches it, the product of the local\n"
         "derivatives along each, and their sum, which is the leaf's gradient. Exit\n"
         "status 0 when the sum equals .grad, 1 when it does not, 2 on an error.\n"
         "\n"
         "Options:\n"
         "  --leaf NAME[INDEX]      the leaf, as the graph names it (fc.weight[0, 1])\n"
         "  --max N                 list at most N paths (default 100)\n"
         "  --timeout SECONDS       stop the script after this long\n"
         "  --help                  show this help\n", out);
}

static const CrCliCommand command = { "chainrule paths", cr_paths_command_usage };

/* --max: a number of paths. */
static gboolean
parse_max (const char *value,
           gpointer    out)
{
  char *end = NULL;
  long long n = strtoll (value, &end, 10);
  if (end == value || *end || n < 1 || n > 1000000)
    return FALSE;
  *(guint *) out = (guint) n;
  return TRUE;
}

/* "w[0, 2]", "w[0][2]", "w" -> name and indices. */
static gboolean
parse_leaf (const char *text,
            char      **out_name,
            gint64     *index,
            int        *n_index)
{
  const char *bracket = strchr (text, '[');
  *out_name = g_strndup (text, bracket ? (gsize) (bracket - text) : strlen (text));
  g_strstrip (*out_name);
  *n_index = 0;
  const char *p = bracket;
  while (p && *p)
    {
      if (*p == '[' || *p == ',' || *p == ']' || *p == ' ')
        {
          p++;
          continue;
        }
      char *end = NULL;
      errno = 0;
      long long v = strtoll (p, &end, 10);
      if (end == p || errno || *n_index >= CR_MAX_DIMS)
        return FALSE;
      index[(*n_index)++] = v;
      p = end;
    }
  return **out_name != '\0';
}

static gboolean
is_named (const CrRecordTensor *t,
          const char           *name)
{
  return g_strcmp0 (t->label, name) == 0 || g_strcmp0 (t->name, name) == 0
         || g_strcmp0 (t->module_path, name) == 0;
}

int
cr_paths_command (int    argc,
                  char **argv)
{
  const char *file = NULL, *leaf_text = NULL;
  double timeout = 0;
  guint max_paths = DEFAULT_MAX_PATHS;
  const CrCliOption options[] = {
    { "--leaf", NULL, cr_cli_parse_text, &leaf_text, NULL },
    { "--max", NULL, parse_max, &max_paths, "--max needs a number of paths from 1 to 1000000" },
    CR_CLI_TIMEOUT_OPTION (&timeout),
    { NULL },
  };
  int status = cr_cli_parse (&command, argc, argv, options, &file);
  if (status >= 0)
    return status;
  if (!leaf_text)
    return cr_cli_usage_error (&command, "which leaf? --leaf NAME[INDEX], e.g. --leaf w1 or --leaf x[1]");
  g_autofree char *leaf_name = NULL;
  gint64 index[CR_MAX_DIMS];
  int n_index = 0;
  if (!parse_leaf (leaf_text, &leaf_name, index, &n_index))
    return cr_cli_usage_error (&command, "--leaf needs NAME or NAME[INDEX], not '%s'", leaf_text);

  CrScriptRecordOptions ro = { .command = command.name, .file = file, .timeout = timeout };
  g_auto (CrScriptRecording) run = { 0 };
  if (!cr_script_record (&ro, &run))
    return 2;
  const CrRunRecord *record = run.record;
  gboolean have_backward = FALSE;
  for (guint b = 0; record && b < record->backwards->len; b++)
    {
      const CrRecordBackward *call = record->backwards->pdata[b];
      have_backward |= call->kind == CR_RECORD_BACKWARD_CALL && call->succeeded;
    }
  if (run.error && !have_backward)
    {
      cr_script_recording_print_error (&run);
      fputs ("chainrule paths: the script failed before its first .backward()\n", stderr);
      return 2;
    }

  /* The leaf: the first tensor of that name that is a leaf. */
  const CrRecordTensor *leaf = NULL;
  g_autoptr (GString) leaves = g_string_new (NULL);
  for (guint t = 0; record && t < record->tensors->len; t++)
    {
      const CrRecordTensor *tensor = record->tensors->pdata[t];
      if (tensor->origin != CR_RECORD_TENSOR_LEAF)
        continue;
      if (!leaf && is_named (tensor, leaf_name))
        leaf = tensor;
      g_string_append_printf (leaves, "%s%s", leaves->len ? ", " : "", tensor->label);
    }
  if (!leaf)
    {
      fprintf (stderr, "chainrule paths: no leaf named '%s'; the leaves are: %s\n", leaf_name,
               leaves->len ? leaves->str : "(none)");
      return 2;
    }
  gint64 element = 0;
  if (n_index == 0 && leaf->ndim > 0)
    {
      gint64 numel = 1;
      for (int d = 0; d < leaf->ndim; d++)
        numel *= leaf->shape[d];
      if (numel != 1)
        {
          g_autoptr (GString) zeros = g_string_new ("0");
          for (int d = 1; d < leaf->ndim; d++)
            g_string_append (zeros, ", 0");
          fprintf (stderr, "chainrule paths: %s has %" G_GINT64_FORMAT " elements: pick one, "
                           "e.g. --leaf '%s[%s]'\n", leaf->label, numel, leaf_name, zeros->str);
          return 2;
        }
    }
  else if (n_index > 0)
    {
      if (n_index != leaf->ndim)
        {
          fprintf (stderr, "chainrule paths: %s has %d dimension%s; '%s' gives %d index%s\n",
                   leaf->label, leaf->ndim, leaf->ndim == 1 ? "" : "s", leaf_text, n_index,
                   n_index == 1 ? "" : "es");
          return 2;
        }
      for (int d = 0; d < n_index; d++)
        {
          gint64 i = index[d] < 0 ? index[d] + leaf->shape[d] : index[d];
          if (i < 0 || i >= leaf->shape[d])
            {
              fprintf (stderr, "chainrule paths: index %" G_GINT64_FORMAT " is out of bounds "
                               "for dimension %d of %s, of size %" G_GINT64_FORMAT "\n",
                       index[d], d, leaf->label, leaf->shape[d]);
              return 2;
            }
          element = element * leaf->shape[d] + i;
        }
    }

  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) sum = cr_path_sum_new (record, (int) leaf->id, element, max_paths, &error);
  if (!sum)
    {
      fprintf (stderr, "chainrule paths: %s\n", error->message);
      return 2;
    }
  g_autofree char *text = cr_path_sum_format (sum, record);
  fputs (text, stdout);
  fflush (stdout);
  if (isnan (sum->grad) || sum->truncated)
    return 0;
  return fabs (sum->sum - sum->grad) <= 1e-5 + 1e-4 * fabs (sum->grad) ? 0 : 1;
}
