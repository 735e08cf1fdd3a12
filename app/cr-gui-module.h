/* cr-gui-module.h — the contract between the `chainrule` binary and its
 * loadable GUI module (libchainrule-gui.so): the window and `chainrule export`.
 *
 * They live in a module so that `chainrule run` links only core/ and starts in
 * a few milliseconds instead of mapping GTK, libadwaita, GtkSourceView,
 * graphviz, cairo and pango on every run. The module links its own copy of
 * core/; the binary dispatches to it before touching the engine and exports
 * nothing to it (the module's link keeps every symbol but the entry local), so
 * the two copies never share a global. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CR_GUI_MODULE_MAIN_SYMBOL "cr_gui_module_main"

/* command: "window" (argv as main() got it; argv[1], if any, is the file to
 * open) or "export" (argv[0] is "export"); in libchainrule-guard.so, which
 * has the same entry, "guard-run" (likewise; the window's crash guard,
 * cr-guard-command.h). Returns the process exit status. */
typedef int (*CrGuiModuleMainFunc) (const char *command,
                                    int         argc,
                                    char      **argv);

int cr_gui_module_main (const char *command,
                        int         argc,
                        char      **argv);

G_END_DECLS
