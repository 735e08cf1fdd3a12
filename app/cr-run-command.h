/* cr-run-command.h — `chainrule run FILE.py`: the headless runner. */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "run". Returns the process exit status: 0 when the script ran
 * to the end, 1 when it raised (or timed out), 2 for a usage error. */
int  cr_run_command       (int    argc,
                           char **argv);

void cr_run_command_usage (FILE  *out);

G_END_DECLS
