/* cr-paths-command.c — `chainrule paths [OPTIONS] FILE.py --leaf NAME[INDEX]`:
 * the script runs once, recorded, and the paths are read off its record. */
#include "cr-config.h"
#include "cr-paths-command.h"

#include "cr-interp.h"
#include "cr-interp-cells.h"
#include "cr-kernels.h"
#include "cr-paths.h"
#include "cr-script-load.h"
#include "cr-time-limit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_PATHS 100

static gint cancel_flag;

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

static int usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format,
             ...)
{
  va_list ap;
  fputs ("chainrule paths: ", stderr);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputs ("\n\n", stderr);
  cr_paths_command_usage (stderr);
  return 2;
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
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        {
          cr_paths_command_usage (stdout);
          return 0;
        }
      const char *names[] = { "--leaf", "--max", "--timeout" };
      guint which = G_N_ELEMENTS (names);
      const char *value = NULL;
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        {
          gsize len = strlen (names[k]);
          if (strncmp (arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '='))
            {
              which = k;
              value = arg[len] == '=' ? arg + len + 1 : i + 1 < argc ? argv[++i] : NULL;
              if (!value)
                return usage_error ("option %s needs a value", names[k]);
              break;
            }
        }
      if (which == 0)
        leaf_text = value;
      else if (which == 1)
        {
          char *end = NULL;
          long long n = strtoll (value, &end, 10);
          if (end == value || *end || n < 1 || n > 1000000)
            return usage_error ("--max needs a number of paths from 1 to 1000000, not '%s'", value);
          max_paths = (guint) n;
        }
      else if (which == 2)
        {
          if (!cr_time_limit_parse (value, &timeout))
            return usage_error ("--timeout needs a positive number of seconds, not '%s'", value);
        }
      else if (arg[0] == '-' && arg[1] != '\0')
        return usage_error ("unknown option '%s'", arg);
      else if (file)
        return usage_error ("one script at a time ('%s' is one too many)", arg);
      else
        file = arg;
    }
  if (!file)
    return usage_error ("no script given");
  if (!leaf_text)
    return usage_error ("which leaf? --leaf NAME[INDEX], e.g. --leaf w1 or --leaf x[1]");
  g_autofree char *leaf_name = NULL;
  gint64 index[CR_MAX_DIMS];
  int n_index = 0;
  if (!parse_leaf (leaf_text, &leaf_name, index, &n_index))
    return usage_error ("--leaf needs NAME or NAME[INDEX], not '%s'", leaf_text);

  cr_threads_init ();
  cr_time_limit_arm (&cancel_flag, timeout);
  g_autoptr (GArray) cells = NULL;
  g_autoptr (CrAstModule) module = cr_script_load_cells ("chainrule paths", file, &cancel_flag,
                                                         &cells);
  if (!module)
    {
      cr_time_limit_disarm ();
      return 2;
    }
  CrInterpOptions io = { .cancel_flag = &cancel_flag, .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&io);
  /* A notebook runs as its cells: their output is not this command's. */
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->data, cells->len);
  CrScriptError *script_error = NULL;
  gboolean ok = cr_interp_run (interp, module, &script_error);
  cr_time_limit_disarm ();
  g_autoptr (CrRunRecord) record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);

  gboolean have_backward = FALSE;
  for (guint b = 0; record && b < record->backwards->len; b++)
    {
      const CrRecordBackward *call = record->backwards->pdata[b];
      have_backward |= call->kind == CR_RECORD_BACKWARD_CALL && call->succeeded;
    }
  if (!ok && !have_backward)
    {
      fputs (script_error && script_error->traceback ? script_error->traceback : "the script failed\n",
             stderr);
      fputs ("chainrule paths: the script failed before its first .backward()\n", stderr);
      cr_script_error_free (script_error);
      return 2;
    }
  cr_script_error_free (script_error);

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
