/* cr-explain-op-command.h — `chainrule explain-op FILE.py --op NAME|N`: one
 * small tensor op taken apart into its scalar graph, its forward equations
 * and the chain rule element by element (core/teach/cr-op-scalars.h). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "explain-op". Returns the exit status: 0 when the scalar
 * graph's gradients equal the backward step's (or there is none), 1 when
 * they do not, 2 for a script error, an op not found or not taken apart,
 * or a usage error. Without --op it lists the script's ops. */
int  cr_explain_op_command       (int    argc,
                                  char **argv);
void cr_explain_op_command_usage (FILE  *out);

G_END_DECLS
