/* cr-main.c — the `chainrule` command: `chainrule run FILE.py` runs a script
 * headless; `chainrule [FILE.py]` opens the window (once it is built). */
#include "cr-config.h"
#include "cr-run-command.h"
#ifdef CR_HAVE_GRAPH
#include "cr-export-command.h"
#endif

#include <stdio.h>
#include <string.h>

static void
usage (FILE *out)
{
  fputs ("Usage:\n"
         "  chainrule [FILE.py]              open the window (not built yet)\n"
         "  chainrule run [OPTIONS] FILE.py  run a script headless, as python3 would\n"
#ifdef CR_HAVE_GRAPH
         "  chainrule export FILE.py -o OUT  draw the script's graph to PNG, SVG or PDF\n"
#endif
         "  chainrule --help | --version\n\n", out);
  cr_run_command_usage (out);
}

int
main (int    argc,
      char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "run") == 0)
    return cr_run_command (argc - 1, argv + 1);
#ifdef CR_HAVE_GRAPH
  if (argc >= 2 && strcmp (argv[1], "export") == 0)
    return cr_export_command (argc - 1, argv + 1);
#endif
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      usage (stdout);
      return 0;
    }
  if (argc >= 2 && strcmp (argv[1], "--version") == 0)
    {
      printf ("chainrule %s\n", CR_VERSION);
      return 0;
    }
  if (argc >= 2 && argv[1][0] == '-' && argv[1][1] != '\0')
    {
      fprintf (stderr, "chainrule: unknown option '%s'\n\n", argv[1]);
      usage (stderr);
      return 2;
    }
  fputs ("chainrule: the window is not built yet; run a script headless with\n"
         "  chainrule run FILE.py\n", stderr);
  return 2;
}
