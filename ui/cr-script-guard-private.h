/* cr-script-guard-private.h — what the crash guard's two ways of running a
 * child share (cr-script-guard.c: a child of its own; cr-guard-client.c:
 * one forked by the guard's server). */
#pragma once

#include "cr-script-guard.h"

G_BEGIN_DECLS

/* How long after its time limit a child that did not stop is killed: the
 * child's own hard exit comes 2 s after it (app/cr-time-limit.h). */
#define CR_SCRIPT_GUARD_OVERDUE_S 4
/* How often a wait looks at the cancel flag (ms). */
#define CR_SCRIPT_GUARD_POLL_MS   2

/* How a child ended, and what it left. */
typedef struct {
  gboolean cancelled;     /* killed for *cancel_flag */
  gboolean overdue;       /* killed past its time limit */
  gboolean signaled;
  int      term_sig;
  int      exit_status;
  GString *tail;          /* the end of its stderr */
  int      answer_fd;     /* the memory file it wrote its answer to, or -1 */
  GBytes  *answer;        /* its whole answer, when read before it ended; or NULL */
} CrGuardChildEnd;

/* Keeps the end of a child's stderr in tail: bytes appended. */
void     cr_script_guard_keep_tail   (GString    *tail,
                                      const void *bytes,
                                      gsize       length);

/* The answer a child wrote to the memory file fd, or NULL when it wrote
 * none. */
GBytes  *cr_script_guard_read_answer (int         fd);

/* A child's setup (GSpawnChildSetupFunc): it dies with the thread that
 * started it, so that a window killed by anything leaves no run behind. */
void     cr_script_guard_child_setup (gpointer    user_data);

/* Runs source on the guard's server, filling end (whose tail and answer_fd
 * the caller has set to a string and -1). FALSE when the server could not
 * run it (none, busy with another window's run, gone, or it could not
 * fork): nothing was run, and end is as it was. */
gboolean cr_guard_server_run         (const char      *source,
                                      const char      *filename,
                                      CrDeviceType     device,
                                      guint            timeout_s,
                                      const gint      *cancel_flag,
                                      CrGuardChildEnd *end);

G_END_DECLS
