/* cr-time-limit.h — the time limit and Ctrl-C of the headless commands
 * (`chainrule run`, `chainrule export`), one implementation for both: the
 * deadline asks the script to stop through its cancel flag, and ends the
 * process only when the script does not come back soon after. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How long the hard exit waits for a script that was asked to stop. */
#define CR_TIME_LIMIT_GRACE_S 2

/* A --timeout value: a positive, finite number of seconds. */
gboolean cr_time_limit_parse  (const char *text,
                               double     *out_seconds);

/* Points SIGINT and, when seconds > 0, a timer at *cancel_flag (which must
 * live until cr_time_limit_disarm()): Ctrl-C sets it to 1 (KeyboardInterrupt),
 * a second Ctrl-C exits with status 130; the deadline sets it to 2
 * (TimeoutError) and, when the script has not stopped CR_TIME_LIMIT_GRACE_S
 * seconds later, writes the TimeoutError line to stderr and exits with
 * status 1. For the process's main thread, once per command. */
void     cr_time_limit_arm    (gint       *cancel_flag,
                               double      seconds);
/* Stops the timer (Ctrl-C keeps setting the flag). */
void     cr_time_limit_disarm (void);

G_END_DECLS
