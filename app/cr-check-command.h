/* cr-check-command.h — `chainrule check FILE.py`: every leaf's gradient
 * against a numeric one (core/teach/cr-gradcheck.h). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "check". Returns the exit status: 0 when every leaf agrees,
 * 1 when one disagrees, 2 for a script that fails or calls no backward, or
 * a usage error. */
int  cr_check_command       (int    argc,
                             char **argv);
void cr_check_command_usage (FILE  *out);

G_END_DECLS
