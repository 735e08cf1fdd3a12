/* cr-guard-module.c — the entry of libchainrule-guard.so: `chainrule
 * guard-run`, the window's crash guard's child (cr-guard-command.h), started
 * once per edit. A module of its own because the GUI module maps GTK,
 * libadwaita and GtkSourceView, which the child never uses: loading them was
 * most of what each edit's child cost (cr-gui-module.h has the contract). */
#include "cr-config.h"
#include "cr-gui-module.h"
#include "cr-guard-command.h"

#include <gmodule.h>
#include <stdio.h>
#include <string.h>

G_MODULE_EXPORT int
cr_gui_module_main (const char *command,
                    int         argc,
                    char      **argv)
{
  if (strcmp (command, "guard-run") == 0)
    return cr_guard_command (argc, argv);
  fprintf (stderr, "chainrule: the guard module cannot do '%s'\n", command);
  return 2;
}
