/* cr-guard-command.h — `chainrule guard-run`: the child of the window's crash
 * guard (ui/cr-script-guard.h), not a command for people (no --help entry). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "guard-run". Returns a CR_SCRIPT_GUARD_EXIT_* status, 1 when
 * stdin cannot be read, 2 for a usage error. */
int cr_guard_command (int    argc,
                      char **argv);

G_END_DECLS
