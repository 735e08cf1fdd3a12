/* cr-export-command.h — `chainrule export FILE.py -o OUT`: the graph to PNG, SVG or PDF. */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "export". Returns 0, 1 when the script or writing failed, 2 for a usage error. */
int  cr_export_command       (int    argc,
                              char **argv);

void cr_export_command_usage (FILE  *out);

G_END_DECLS
