/* cr-main.c — the `chainrule` command: `chainrule run FILE.py` runs a script
 * headless; `chainrule [FILE.py...]` opens a window on each file, or on the
 * example gallery without one. */
#include "cr-config.h"
#include "cr-run-command.h"
#ifdef CR_HAVE_GRAPH
#include "cr-export-command.h"
#endif
#ifdef CR_HAVE_GUI
#include "cr-application.h"
#include "cr-window.h"
#include "cr-examples.h"
#endif

#include <stdio.h>
#include <string.h>

static void
usage (FILE *out)
{
  fputs ("Usage:\n"
         "  chainrule [FILE.py]              open the window (default: the example gallery)\n"
         "  chainrule run [OPTIONS] FILE.py  run a script headless, as python3 would\n"
#ifdef CR_HAVE_GRAPH
         "  chainrule export FILE.py -o OUT  draw the script's graph to PNG, SVG or PDF\n"
#endif
         "  chainrule --help | --version\n\n", out);
  cr_run_command_usage (out);
}

#ifdef CR_HAVE_GUI
/* Without a display, say so, and do the next best thing: run the script and
 * draw its graph to a PNG in the current directory. */
static int
headless_fallback (const char *file)
{
  g_autofree char *base = g_path_get_basename (file);
  if (g_str_has_suffix (base, ".py"))
    base[strlen (base) - 3] = '\0';
  g_autofree char *png = g_strconcat (base, ".png", NULL);
  fprintf (stderr, "chainrule: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no window.\n"
                   "chainrule: running %s headless and drawing its graph to %s instead.\n", file, png);
  char *export_argv[] = { (char *) "export", (char *) file, (char *) "-o", png, NULL };
  int status = cr_export_command (4, export_argv);
  if (status == 0)
    fprintf (stderr, "chainrule: wrote %s\n", png);
  return status;
}

static int
open_window (int    argc,
             char **argv)
{
  if (!g_getenv ("DISPLAY") && !g_getenv ("WAYLAND_DISPLAY"))
    {
      g_autofree char *example = g_build_filename (cr_examples_dir (), "01-toy-network.py", NULL);
      return headless_fallback (argc >= 2 ? argv[1] : example);
    }
  g_autoptr (CrApplication) app = cr_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
#endif

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
#ifdef CR_HAVE_GUI
  return open_window (argc, argv);
#else
  fputs ("chainrule: this build has no window (built with -Dgui=false); run a script headless with\n"
         "  chainrule run FILE.py\n", stderr);
  return 2;
#endif
}
