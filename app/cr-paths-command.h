/* cr-paths-command.h — `chainrule paths FILE.py --leaf NAME[INDEX]`: every
 * path from a leaf's element to the loss, and their sum (core/teach/cr-paths.h). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "paths". Returns the exit status: 0 when the paths add up to
 * .grad, 1 when they do not, 2 for a script error, a leaf not found, a path
 * through an op the record cannot take apart, or a usage error. */
int  cr_paths_command       (int    argc,
                             char **argv);
void cr_paths_command_usage (FILE  *out);

G_END_DECLS
