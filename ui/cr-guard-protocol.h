/* cr-guard-protocol.h — how the window talks to its crash guard server,
 * `chainrule guard-run --serve` (app/cr-guard-server.c): one Unix stream
 * socket, the server's end its descriptor CR_GUARD_SERVE_FD.
 *
 * The window sends a RUN request: a CrGuardRequest carrying two descriptors
 * (SCM_RIGHTS), a memory file for the answer (cr-guard-result.h) and the
 * write end of a pipe for the child's stderr, followed by filename_length
 * bytes of file name and source_length bytes of script. The server forks a
 * child that runs it and writes its answer into the memory file; when the
 * child has ended, however it ended, the server sends a CrGuardReply with
 * its wait status. A CANCEL request (no descriptors, nothing after it) kills
 * the child at once; its reply follows as usual. One run at a time; a
 * closed socket ends the server and its child.
 *
 * Both ends are the same build, on the same machine: host byte order. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CR_GUARD_SERVE_FD        3
#define CR_GUARD_REQUEST_MAGIC   0x43524751u   /* "CRGQ" */
#define CR_GUARD_REPLY_MAGIC     0x43524752u   /* "CRGR" */

typedef enum {
  CR_GUARD_REQUEST_RUN = 1,
  CR_GUARD_REQUEST_CANCEL = 2,
} CrGuardRequestKind;

/* The process name (prctl PR_SET_NAME) of the server's spare child while
 * it waits for a run (app/cr-guard-server.c); a run is named "chainrule". */
#define CR_GUARD_SPARE_NAME      "chainrule-spare"

/* flags */
#define CR_GUARD_REQUEST_TEST_CRASH 1u   /* the child crashes on purpose (tests) */

typedef struct {
  guint32 magic;
  guint32 kind;            /* CrGuardRequestKind */
  guint32 timeout_s;       /* the run's time limit */
  guint32 device;          /* CrDeviceType */
  guint64 max_memory;      /* the window's memory budget, bytes */
  guint32 threads;         /* the child's CPU threads */
  guint32 flags;
  guint32 filename_length;
  guint32 source_length;
} CrGuardRequest;

typedef enum {
  CR_GUARD_REPLY_EXITED = 1,   /* wait_status is the child's */
  CR_GUARD_REPLY_NO_CHILD = 2, /* the server could not start one: run elsewhere */
} CrGuardReplyKind;

typedef struct {
  guint32 magic;
  guint32 kind;            /* CrGuardReplyKind */
  gint32  wait_status;     /* as waitpid() gives it */
  gint32  pid;
} CrGuardReply;

/* The stream's reads and writes, for both ends (cr-guard-protocol.c). */

/* Writes all of data to the socket fd (no SIGPIPE); FALSE when it is
 * closed or fails. */
gboolean cr_guard_send_all     (int                   fd,
                                gconstpointer         data,
                                gsize                 length);
/* Sends a request's header carrying fds[0..1] (SCM_RIGHTS), and what of
 * it the stream cut. FALSE when fd is closed or fails. */
gboolean cr_guard_send_request (int                   fd,
                                const CrGuardRequest *request,
                                const int             fds[2]);
/* Reads exactly length bytes from fd, waiting at most first_wait_ms for
 * the first of them and rest_wait_ms for each later read (-1: as long as
 * it takes). 1: read; 0: nothing came within first_wait_ms; -1: the
 * stream ended, failed or stalled part way. */
int      cr_guard_read_exact   (int                   fd,
                                gpointer              buffer,
                                gsize                 length,
                                int                   first_wait_ms,
                                int                   rest_wait_ms);

G_END_DECLS
