/* cr-train-command.h — `chainrule train FILE.py`: a training loop from its
 * run record: the loss per backward call, the parameters over their
 * updates, and optimizer steps told with their numbers
 * (core/teach/cr-training.h). */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* argv[0] is "train". Returns the exit status: 0, or 2 for a script that
 * failed before any backward call, or a usage error. */
int  cr_train_command       (int    argc,
                             char **argv);
void cr_train_command_usage (FILE  *out);

G_END_DECLS
