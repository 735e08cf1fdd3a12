/* cr-cli-options.c — the headless commands' options (cr-cli-options.h). */
#include "cr-config.h"
#include "cr-cli-options.h"

#include "cr-time-limit.h"

#include <stdarg.h>
#include <string.h>

gboolean
cr_cli_parse_text (const char *value,
                   gpointer    out)
{
  *(const char **) out = value;
  return TRUE;
}

gboolean
cr_cli_parse_seconds (const char *value,
                      gpointer    out)
{
  return cr_time_limit_parse (value, out);
}

int
cr_cli_usage_error (const CrCliCommand *command,
                    const char         *format,
                    ...)
{
  va_list ap;
  fprintf (stderr, "%s: ", command->name);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputs ("\n\n", stderr);
  command->usage (stderr);
  return 2;
}

/* "--name" or "--name=...": the length of the name's part of arg, 0 when
 * arg is not name. */
static gsize
match_name (const char *arg,
            const char *name)
{
  if (!name)
    return 0;
  gsize len = strlen (name);
  return strncmp (arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=') ? len : 0;
}

gboolean
cr_cli_option_value (int          argc,
                     char       **argv,
                     int         *index,
                     const char  *name,
                     const char  *alias,
                     const char **out_value)
{
  const char *arg = argv[*index];
  gsize len = match_name (arg, name);
  if (len == 0)
    len = match_name (arg, alias);
  if (len == 0)
    return FALSE;
  if (arg[len] == '=')
    *out_value = arg + len + 1;
  else if (*index + 1 < argc)
    *out_value = argv[++*index];
  else
    *out_value = NULL;
  return TRUE;
}

int
cr_cli_take_option (const CrCliCommand *command,
                    int                 argc,
                    char              **argv,
                    int                *index,
                    const CrCliOption  *options,
                    gboolean           *out_taken)
{
  const char *arg = argv[*index];
  *out_taken = FALSE;
  for (const CrCliOption *option = options; option->name; option++)
    {
      if (!option->parse)
        {
          if (strcmp (arg, option->name) != 0 && g_strcmp0 (arg, option->alias) != 0)
            continue;
          *(gboolean *) option->out = TRUE;
          *out_taken = TRUE;
          return -1;
        }
      const char *value = NULL;
      if (!cr_cli_option_value (argc, argv, index, option->name, option->alias, &value))
        continue;
      *out_taken = TRUE;
      if (!value)
        return cr_cli_usage_error (command, "option %s needs a value", arg);
      if (!option->parse (value, option->out))
        return cr_cli_usage_error (command, "%s, not '%s'", option->bad_value, value);
      return -1;
    }
  return -1;
}

int
cr_cli_parse (const CrCliCommand *command,
              int                 argc,
              char              **argv,
              const CrCliOption  *options,
              const char        **out_file)
{
  *out_file = NULL;
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        {
          command->usage (stdout);
          return 0;
        }
      gboolean taken = FALSE;
      int status = cr_cli_take_option (command, argc, argv, &i, options, &taken);
      if (status >= 0)
        return status;
      if (taken)
        continue;
      if (arg[0] == '-' && arg[1] != '\0')
        return cr_cli_usage_error (command, "unknown option '%s'", arg);
      if (*out_file)
        return cr_cli_usage_error (command, "one script at a time ('%s' is one too many)", arg);
      *out_file = arg;
    }
  if (!*out_file)
    return cr_cli_usage_error (command, "no script given");
  return -1;
}
