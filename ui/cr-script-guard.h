/* cr-script-guard.h — the crash guard: before the window runs a script in its
 * own process, the same run (cr_script_run(), every backward recorded, graph
 * models built) is made in a child process, `chainrule guard-run`, under the
 * same budgets, its output discarded. A bug in the engine (SIGSEGV, an abort,
 * a GLib g_error) then kills the child, not the window and its unsaved edits.
 *
 * A stopgap until the window renders a run record made by a runner process
 * (the next issue): then the child's run is the only one. Until then every
 * guarded edit runs twice; the guard skips the second run when the first
 * already ran out of time or memory. */
#pragma once

#include "cr-script-run.h"

G_BEGIN_DECLS

/* `chainrule guard-run [--timeout S] [--max-memory BYTES] [--device cpu|cuda]
 *  [--filename NAME]`
 * reads the script from stdin and exits with one of these (any other status,
 * or a signal, is the child's own failure or a crash). */
#define CR_SCRIPT_GUARD_EXIT_RAN        0   /* the run ended, with or without a Python error */
#define CR_SCRIPT_GUARD_EXIT_TIMED_OUT  3   /* TimeoutError; its traceback is on stderr */
#define CR_SCRIPT_GUARD_EXIT_NO_MEMORY  4   /* MemoryError; likewise */

/* Read by the guard-run child only, never by a run in the window or by
 * `chainrule run`: "1" makes the child die of SIGSEGV before it runs the
 * script, so that tests can see what the window does with a crash. */
#define CR_SCRIPT_GUARD_TEST_CRASH_ENV  "CHAINRULE_GUARD_TEST_CRASH"

typedef enum {
  CR_SCRIPT_GUARD_PASSED,        /* the child's run ended: run it in process */
  CR_SCRIPT_GUARD_UNAVAILABLE,   /* no runner, or it failed by itself: run it in process */
  CR_SCRIPT_GUARD_CANCELLED,     /* *cancel_flag became non-zero; the child was killed */
  CR_SCRIPT_GUARD_CRASHED,       /* the child died of a signal: a bug in the engine */
  CR_SCRIPT_GUARD_TIMED_OUT,     /* the child's run ended in TimeoutError */
  CR_SCRIPT_GUARD_OUT_OF_MEMORY, /* the child's run ended in MemoryError */
} CrScriptGuardVerdict;

/* The `chainrule` binary to start as the child: set by the GUI module's entry
 * to /proc/self/exe, since then the window runs inside that binary. NULL (or
 * never set): CHAINRULE_RUNNER when set (the tests, whose binary is not
 * chainrule), else there is no guard. */
void                 cr_script_guard_set_runner (const char *path);
/* The runner in use, or NULL (no guard). */
const char          *cr_script_guard_get_runner (void);

/* Runs source (NUL-terminated; filename names it in tracebacks) in a child
 * on device, under timeout_s and this process's memory budget, and waits for it on the
 * calling thread (a worker), killing it at once when *cancel_flag becomes
 * non-zero. For CRASHED, TIMED_OUT and OUT_OF_MEMORY, fills run (which must
 * be empty) as cr_script_run() fills a run that stopped with an error, with
 * no model; else leaves it empty. */
CrScriptGuardVerdict cr_script_guard_check      (const char  *source,
                                                 const char  *filename,
                                                 CrDeviceType device,
                                                 guint        timeout_s,
                                                 const gint  *cancel_flag,
                                                 CrScriptRun *run);

G_END_DECLS
