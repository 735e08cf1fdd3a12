/* cr-check-command.c — `chainrule check [OPTIONS] FILE.py`: a table of
 * every leaf the script's first backward call reaches, its gradient by
 * autograd and by central differences (re-running the script with the leaf
 * nudged), and gradcheck's verdict (core/teach/cr-gradcheck.h). */
#include "cr-config.h"
#include "cr-check-command.h"

#include "cr-cli-options.h"
#include "cr-gradcheck.h"
#include "cr-kernels.h"
#include "cr-script-load.h"
#include "cr-time-limit.h"


static gint cancel_flag;

void
cr_check_command_usage (FILE *out)
{
  fputs ("Usage: chainrule check [OPTIONS] FILE.py\n"
         "\n"
         "Checks every leaf's gradient from the script's first backward call against\n"
         "a central difference, re-running the script with the leaf nudged by +-eps,\n"
         "judged as torch.autograd.gradcheck does. Exit status 0 when every leaf\n"
         "agrees, 1 when one disagrees, 2 when the script fails or calls no backward.\n"
         "\n"
         "Options:\n"
         "  --timeout SECONDS       stop after this long in all (exit 2)\n"
         "  --name NAME             what to call a script read from stdin (FILE -);\n"
         "                          NAME.ipynb: it is a notebook's script with cell\n"
         "                          markers, run as its cells\n"
         "  --help                  show this help\n", out);
}

static const CrCliCommand command = { "chainrule check", cr_check_command_usage };

int
cr_check_command (int    argc,
                  char **argv)
{
  const char *file = NULL, *stdin_name = NULL;
  double timeout = 0;
  const CrCliOption cli_options[] = {
    CR_CLI_TIMEOUT_OPTION (&timeout),
    { "--name", NULL, cr_cli_parse_text, &stdin_name, NULL },
    { NULL },
  };
  int status = cr_cli_parse (&command, argc, argv, cli_options, &file);
  if (status >= 0)
    return status;

  cr_threads_init ();
  cr_time_limit_arm (&cancel_flag, timeout);
  g_autoptr (GArray) cells = NULL;
  g_autoptr (CrAstModule) module = cr_script_load (command.name, file, stdin_name, &cancel_flag,
                                                   &cells);
  if (!module)
    {
      cr_time_limit_disarm ();
      return 2;
    }
  CrGradcheckOptions options = {
    .cancel_flag = &cancel_flag,
    .cells = cells ? (const CrScriptCell *) (gpointer) cells->data : NULL,
    .n_cells = cells ? cells->len : 0,
  };
  CrScriptError *script_error = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrGradcheckReport) report = cr_gradcheck_run (module, &options, &script_error, &error);
  cr_time_limit_disarm ();
  if (!report)
    {
      if (script_error)
        {
          fputs (script_error->traceback ? script_error->traceback : script_error->message, stderr);
          fputs ("chainrule check: the script failed before its first backward call ended\n",
                 stderr);
        }
      else
        fprintf (stderr, "chainrule check: %s\n", error ? error->message : "failed");
      cr_script_error_free (script_error);
      return 2;
    }
  g_autofree char *text = cr_gradcheck_report_format (report);
  fputs (text, stdout);
  fflush (stdout);
  return report->ok ? 0 : 1;
}
