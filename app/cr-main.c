/* cr-main.c — the `chainrule` command: `chainrule run FILE.py` runs a script
 * headless; `chainrule [FILE.py...]` opens a window on each file, or on the
 * example gallery without one. The runner links core/ only, to start in a few
 * milliseconds; the window and `chainrule export` are in libchainrule-gui.so,
 * opened here only for those commands (cr-gui-module.h), and the window's
 * crash guard's child (`chainrule guard-run`) in libchainrule-guard.so. */
#include "cr-config.h"
#include "cr-run-command.h"
#include "cr-check-command.h"
#include "cr-paths-command.h"
#include "cr-train-command.h"
#include "cr-explain-op-command.h"
#if defined(CR_HAVE_GRAPH) || defined(CR_HAVE_GUI)
#include "cr-gui-module.h"

#include <gmodule.h>
#endif

#include <stdio.h>
#include <string.h>

static void
usage (FILE *out)
{
  fputs ("Usage:\n"
         "  chainrule [FILE.py]              open the window (default: the example gallery)\n"
         "  chainrule --select NAME FILE.py  ... with the tensor NAME selected on the graph\n"
         "  chainrule run [OPTIONS] FILE.py  run a script headless, as python3 would\n"
         "  chainrule check FILE.py          each leaf's gradient against a numeric one\n"
         "  chainrule paths FILE.py --leaf NAME[INDEX]  every path from a leaf to the loss\n"
         "  chainrule train FILE.py          a training loop: loss, parameters, optimizer steps\n"
         "  chainrule explain-op FILE.py --op NAME|N  a small op as scalars, element by element\n"
#ifdef CR_HAVE_GRAPH
         "  chainrule export FILE.py -o OUT  draw the script's graph to PNG, SVG or PDF\n"
#endif
         "  chainrule --help | --version\n\n", out);
  cr_run_command_usage (out);
}

#if defined(CR_HAVE_GRAPH) || defined(CR_HAVE_GUI)
/* Where a module (file, the GUI's or the crash guard's) may be: where the
 * environment variable env says, beside the build tree's binary
 * (build/app/), in the libdir of the prefix the binary was installed under
 * (PREFIX/bin -> PREFIX/LIBDIR/chainrule, which also finds a DESTDIR or
 * moved install), or in the configured libdir. */
static GPtrArray *
module_candidates (const char *file,
                   const char *env_name)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv (env_name);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && *env != '\0')
    g_ptr_array_add (paths, g_strdup (env));
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      g_autofree char *bin_suffix = g_strconcat (G_DIR_SEPARATOR_S, CR_BINDIR_REL, NULL);
      g_ptr_array_add (paths, g_build_filename (dir, file, NULL));
      if (!g_path_is_absolute (CR_BINDIR_REL) && !g_path_is_absolute (CR_LIBDIR_REL)
          && g_str_has_suffix (dir, bin_suffix))
        {
          g_autofree char *prefix = g_strndup (dir, strlen (dir) - strlen (bin_suffix));
          g_ptr_array_add (paths, g_build_filename (prefix, CR_LIBDIR_REL, "chainrule",
                                                    file, NULL));
        }
    }
  g_ptr_array_add (paths, g_build_filename (CR_LIBDIR, "chainrule", file, NULL));
  return paths;
}

/* Opens the GUI module and runs COMMAND in it; without the module, names every
 * path tried and why it failed, and returns 1. The module stays loaded: it has
 * registered GTypes and resources that live until the process exits. */
static int
run_gui_module (const char *command,
                int         argc,
                char      **argv)
{
  /* The crash guard's child has a module of its own, without GTK. */
  gboolean guard = strcmp (command, "guard-run") == 0;
  const char *file = guard ? CR_GUARD_MODULE_FILE : CR_GUI_MODULE_FILE;
  g_autoptr (GPtrArray) paths = module_candidates (file, guard ? "CHAINRULE_GUARD_MODULE"
                                                               : "CHAINRULE_GUI_MODULE");
  g_autoptr (GString) tried = g_string_new (NULL);
  GModule *module = NULL;

  for (guint i = 0; i < paths->len && module == NULL; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_string_append_printf (tried, "  %s (not found)\n", path);
          continue;
        }
      module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
      if (module == NULL)
        g_string_append_printf (tried, "  %s (%s)\n", path, g_module_error ());
    }

  CrGuiModuleMainFunc module_main = NULL;
  if (module != NULL
      && !g_module_symbol (module, CR_GUI_MODULE_MAIN_SYMBOL, (gpointer *) &module_main))
    {
      g_string_append_printf (tried, "  %s (%s)\n", g_module_name (module), g_module_error ());
      g_module_close (module);
      module = NULL;
    }
  if (module == NULL)
    {
      fprintf (stderr, "chainrule: cannot load the %s module (%s), which `chainrule %s` needs.\n"
                       "Tried:\n%s"
                       "Set %s to its path, or run scripts headless with\n"
                       "  chainrule run FILE.py\n",
               guard ? "guard" : "GUI", file,
               guard ? "guard-run" : strcmp (command, "export") == 0 ? "export" : "[FILE.py]",
               tried->str, guard ? "CHAINRULE_GUARD_MODULE" : "CHAINRULE_GUI_MODULE");
      return 1;
    }
  g_module_make_resident (module);
  return module_main (command, argc, argv);
}
#endif

int
main (int    argc,
      char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "run") == 0)
    return cr_run_command (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "check") == 0)
    return cr_check_command (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "paths") == 0)
    return cr_paths_command (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "train") == 0)
    return cr_train_command (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "explain-op") == 0)
    return cr_explain_op_command (argc - 1, argv + 1);
#ifdef CR_HAVE_GRAPH
  if (argc >= 2 && strcmp (argv[1], "export") == 0)
    return run_gui_module ("export", argc - 1, argv + 1);
  /* Not in --help: the window's crash guard starts it (ui/cr-script-guard.h). */
  if (argc >= 2 && strcmp (argv[1], "guard-run") == 0)
    return run_gui_module ("guard-run", argc - 1, argv + 1);
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
  /* The window's own option goes on to it (ui/cr-application.c). */
  gboolean window_option = argc >= 2 && (strcmp (argv[1], "--select") == 0
                                         || strncmp (argv[1], "--select=", 9) == 0);
  if (argc >= 2 && argv[1][0] == '-' && argv[1][1] != '\0' && !window_option)
    {
      fprintf (stderr, "chainrule: unknown option '%s'\n\n", argv[1]);
      usage (stderr);
      return 2;
    }
#ifdef CR_HAVE_GUI
  return run_gui_module ("window", argc, argv);
#else
  fputs ("chainrule: this build has no window (built with -Dgui=false); run a script headless with\n"
         "  chainrule run FILE.py\n", stderr);
  return 2;
#endif
}
