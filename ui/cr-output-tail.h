/* cr-output-tail.h — the end of a script's output, bounded: what the window's
 * Output pane shows. A script may print without end (`while True: print(i)`)
 * or print one huge line; the tail keeps the last lines and bytes only, in
 * time linear in what was printed, and counts what it let go. Plain GLib: no
 * GTK, no core. Not thread-safe: one thread appends, the same or another reads
 * once appending is over. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What the window keeps: a realistic training log (an epoch a line, or a few
 * summarised tensors an epoch) fits many times over, and a GtkTextView of
 * that size still fills in a few tens of milliseconds. */
#define CR_OUTPUT_TAIL_MAX_LINES 10000
#define CR_OUTPUT_TAIL_MAX_BYTES ((gsize) 1 << 20)

typedef struct _CrOutputTail CrOutputTail;

/* Keeps at most max_lines lines and max_bytes bytes (both > 0). */
CrOutputTail *cr_output_tail_new              (guint               max_lines,
                                               gsize               max_bytes);
void          cr_output_tail_free             (CrOutputTail       *self);   /* NULL-safe */

/* Adds text (UTF-8, NUL-terminated) written to stdout or stderr. Matches
 * CrOutputFunc with the tail as its user data. */
void          cr_output_tail_append           (const char         *text,
                                               gboolean            is_stderr,
                                               gpointer            tail);

/* Whole lines let go from the start. */
guint64       cr_output_tail_get_dropped_lines (const CrOutputTail *self);

/* "… 123,456 earlier lines not shown\n", or NULL when no whole line was
 * let go. New string. */
char         *cr_output_tail_describe_dropped (const CrOutputTail *self);

typedef void (*CrOutputTailFunc) (const char *text,
                                  gsize       length,
                                  gboolean    is_stderr,
                                  gpointer    user_data);

/* Calls func on each piece kept, oldest first: a piece is text of one stream,
 * at most one line, ending in '\n' unless it is the last of its line. A line
 * whose start was cut (longer than the byte limit) begins with "…". */
void          cr_output_tail_foreach          (const CrOutputTail *self,
                                               CrOutputTailFunc    func,
                                               gpointer            user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrOutputTail, cr_output_tail_free)

G_END_DECLS
