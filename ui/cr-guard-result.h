/* cr-guard-result.h — what the crash guard's child sends back to the window
 * once its run is over (ui/cr-script-guard.h): the run as the window shows
 * it (traceback, message, span, the run record in its wire form,
 * core/record/cr-run-record-wire.h) and the end of what the script printed.
 * With it the child's run is the window's only run.
 *
 * Writer and reader are the same build: the layout is private to
 * cr-guard-result.c and checked by a magic and a version. The reader is fed
 * by another process, so a malformed message gives a GError, never a crash. */
#pragma once

#include "cr-output-tail.h"
#include "cr-script-run.h"

G_BEGIN_DECLS

/* The message for a finished run (run->record may be NULL: then none is
 * sent) and what the script printed (output may be NULL). New bytes. */
GBytes  *cr_guard_result_encode (const CrScriptRun  *run,
                                 const CrOutputTail *output);

/* Whether data (length bytes) is a whole message of this build: one the
 * child has finished writing. */
gboolean cr_guard_result_is_complete (const guint8 *data,
                                      gsize         length);

/* Reads a message written by cr_guard_result_encode(): fills run (which
 * must be empty) with the traceback, message, span and record (NULL when
 * the run had none: stopped by its time limit), and no models; appends
 * what was printed to output (which should be new, with the window's
 * limits); *dropped_note is set to the child's "… N earlier lines not
 * shown" line, or NULL. FALSE with error when data is not such a message
 * (run, output and *dropped_note then left as they were). */
gboolean cr_guard_result_decode (const guint8       *data,
                                 gsize               length,
                                 CrScriptRun        *run,
                                 CrOutputTail       *output,
                                 char              **dropped_note,
                                 GError            **error);

G_END_DECLS
