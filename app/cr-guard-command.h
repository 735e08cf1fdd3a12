/* cr-guard-command.h — `chainrule guard-run`: the child of the window's crash
 * guard (ui/cr-script-guard.h), not a command for people (no --help entry).
 * With --serve it is the guard's server (cr-guard-server.h), which forks a
 * child like it for each script. */
#pragma once

#include "cr-types.h"

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "guard-run". Returns a CR_SCRIPT_GUARD_EXIT_* status, 1 when
 * stdin cannot be read, 2 for a usage error. */
int cr_guard_command (int    argc,
                      char **argv);

/* How the child runs a script: the window's budgets and device. */
typedef struct {
  const char   *filename;     /* names it in tracebacks */
  CrDeviceType  device;
  double        timeout_s;    /* 0: none */
  gsize         max_memory;   /* 0: the default budget */
  int           result_fd;    /* where the answer goes (cr-guard-result.h), -1: nowhere */
  gboolean      test_crash;   /* CR_SCRIPT_GUARD_TEST_CRASH_ENV's crash */
  gboolean      exit_after_answer; /* _exit() once the answer is written, stderr closed
                                    * first: its end tells the window the answer is whole
                                    * while this process's memory is still torn down */
} CrGuardRunOptions;

/* Runs source (length bytes, NUL-terminated) as the window would, in this
 * process (the guard's child: the main thread, once), writes the answer to
 * options->result_fd and returns the CR_SCRIPT_GUARD_EXIT_* status to exit
 * with (or exits with it: exit_after_answer). A traceback of a run that ran out of time or memory also goes to
 * stderr. */
int cr_guard_run_script (const char              *source,
                         gsize                    length,
                         const CrGuardRunOptions *options);

G_END_DECLS
