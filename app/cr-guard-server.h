/* cr-guard-server.h — `chainrule guard-run --serve`: the crash guard's server
 * (ui/cr-guard-protocol.h). The window starts it once; it loads Chainrule,
 * runs the prelude's common imports once, and waits. Each script is run
 * by a child of its own (cr_guard_run_script()) under the window's budgets,
 * forked ahead of the edit and its memory made ready while it waits, so a
 * script costs neither a process start nor a fork, and an engine that
 * crashes on it kills only that child. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Serves requests on socket_fd until it is closed; returns the exit status.
 * The process must be single-threaded (it forks): the window starts it with
 * OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1, and each child sets its own
 * thread count after the fork. */
int cr_guard_serve (int socket_fd);

G_END_DECLS
