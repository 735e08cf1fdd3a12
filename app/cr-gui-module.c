/* cr-gui-module.c — the entry of libchainrule-gui.so: `chainrule [FILE.py]`
 * (the window) and `chainrule export`, loaded by cr-main.c only for those. */
#include "cr-config.h"
#include "cr-gui-module.h"
#include "cr-export-command.h"
#include "cr-script-guard.h"
#ifdef CR_HAVE_GUI
#include "cr-application.h"
#include "cr-window.h"
#include "cr-examples.h"
#endif

#include <gmodule.h>
#include <stdio.h>
#include <string.h>

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
      /* The file, past the window's own option (--select NAME). */
      int file = 1;
      if (file < argc && strcmp (argv[file], "--select") == 0)
        file += 2;
      else if (file < argc && g_str_has_prefix (argv[file], "--select="))
        file++;
      return headless_fallback (file < argc ? argv[file] : example);
    }
  g_autoptr (CrApplication) app = cr_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
#endif

G_MODULE_EXPORT int
cr_gui_module_main (const char *command,
                    int         argc,
                    char      **argv)
{
  if (strcmp (command, "export") == 0)
    return cr_export_command (argc, argv);
#ifdef CR_HAVE_GUI
  if (strcmp (command, "window") == 0)
    {
      /* This module is loaded only by the chainrule binary: the window's
       * crash guard starts that same binary as its child. */
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      cr_script_guard_set_runner (exe);
      return open_window (argc, argv);
    }
#endif
  fprintf (stderr, "chainrule: this build's GUI module cannot do '%s'\n", command);
  return 2;
}
