/* cr-script-guard.h — the crash guard: the window runs no script in its own
 * process. The run (cr_script_run(), recorded) is made in a child process
 * under the window's budgets; a bug in the engine (SIGSEGV, an abort, a
 * GLib g_error) then kills the child, not the window and its unsaved edits.
 * The child sends back what the window shows (cr-guard-result.h): the run
 * record, from which the window builds its graph models, the output, and
 * the error; so its run is the window's only run.
 *
 * The child is forked by a server started once with the window,
 * `chainrule guard-run --serve` (cr-guard-protocol.h), which has Chainrule
 * loaded and the prelude parsed: an edit costs a fork, not a process start.
 * When the server is busy (another window's run) or gone, a child is
 * started as its own process, `chainrule guard-run`, as before the server. */
#pragma once

#include "cr-output-tail.h"
#include "cr-script-run.h"

G_BEGIN_DECLS

/* `chainrule guard-run [--timeout S] [--max-memory BYTES] [--device cpu|cuda]
 *  [--filename NAME] [--result-fd FD]` (and the server's children)
 * reads the script from stdin and exits with one of these (any other status,
 * or a signal, is the child's own failure or a crash). */
#define CR_SCRIPT_GUARD_EXIT_RAN        0   /* the run ended, with or without a Python error */
#define CR_SCRIPT_GUARD_EXIT_TIMED_OUT  3   /* TimeoutError; its traceback is on stderr */
#define CR_SCRIPT_GUARD_EXIT_NO_MEMORY  4   /* MemoryError; likewise */

/* Read at each guarded run (and by a `guard-run` child), never by
 * `chainrule run`: "1" makes the child die of SIGSEGV before it runs the
 * script, so that tests can see what the window does with a crash. */
#define CR_SCRIPT_GUARD_TEST_CRASH_ENV  "CHAINRULE_GUARD_TEST_CRASH"

typedef enum {
  CR_SCRIPT_GUARD_PASSED,        /* the child's run ended but sent no answer: run it in process */
  CR_SCRIPT_GUARD_UNAVAILABLE,   /* no runner, or it failed by itself: run it in process */
  CR_SCRIPT_GUARD_CANCELLED,     /* *cancel_flag became non-zero; the child was killed */
  CR_SCRIPT_GUARD_CRASHED,       /* the child died of a signal: a bug in the engine */
  CR_SCRIPT_GUARD_TIMED_OUT,     /* the child did not stop at its time limit (killed) */
  CR_SCRIPT_GUARD_OUT_OF_MEMORY, /* the child's run ended in MemoryError, with no answer */
  CR_SCRIPT_GUARD_RAN,           /* the child's run is the run: run and output are filled */
} CrScriptGuardVerdict;

/* The `chainrule` binary to start as the child: set by the GUI module's entry
 * to /proc/self/exe, since then the window runs inside that binary. NULL (or
 * never set): CHAINRULE_RUNNER when set (the tests, whose binary is not
 * chainrule), else there is no guard. */
void                 cr_script_guard_set_runner (const char *path);
/* The runner in use, or NULL (no guard). */
const char          *cr_script_guard_get_runner (void);

/* Starts the guard's server when none runs (nothing without a runner, or
 * once servers failed to start or were lost 5 times). Call it on the main thread: the server
 * is killed when the thread that started it ends (PR_SET_PDEATHSIG), as
 * it is when this process ends. Cheap when the server runs. */
void                 cr_script_guard_server_start (void);
/* The server's process id, 0 when none runs (for tests). */
GPid                 cr_script_guard_server_pid   (void);
/* How many runs so far were a child's run (RAN), and how many of those the
 * server's children made (for tests). */
guint                cr_script_guard_get_n_answers (gboolean from_server);
/* Ends the server, and the run it has (tests, and a window that wants its
 * children gone). The next cr_script_guard_server_start() starts another. */
void                 cr_script_guard_server_stop  (void);

/* Runs source (NUL-terminated; filename names it in tracebacks) in a child
 * on device, under timeout_s and this process's memory budget, and waits for
 * it on the calling thread (a worker), killing it at once when *cancel_flag
 * becomes non-zero. RAN: run (which must be empty) holds the child's run
 * with its record and no models (cr_script_run_build_models()), what it
 * printed is appended to output, and *dropped_note is the "… N earlier
 * lines not shown" line or NULL. CRASHED, TIMED_OUT and OUT_OF_MEMORY fill
 * run as cr_script_run() fills a run that stopped with an error, with no
 * model; the others leave run, output and *dropped_note empty. */
CrScriptGuardVerdict cr_script_guard_run        (const char   *source,
                                                 const char   *filename,
                                                 CrDeviceType  device,
                                                 guint         timeout_s,
                                                 const gint   *cancel_flag,
                                                 CrOutputTail *output,
                                                 char        **dropped_note,
                                                 CrScriptRun  *run);

G_END_DECLS
