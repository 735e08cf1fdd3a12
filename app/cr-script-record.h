/* cr-script-record.h — "load and record a script", what `chainrule paths`,
 * `train` and `explain-op` do before they read the run record: the script
 * loaded (cr-script-load.h; a notebook as its cells), run once with every
 * backward call recorded, under the time limit and Ctrl-C
 * (cr-time-limit.h). */
#pragma once

#include "cr-interp.h"

G_BEGIN_DECLS

typedef struct {
  const char   *command;   /* "chainrule paths": the start of its messages */
  const char   *file;      /* the script; "-": stdin */
  double        timeout;   /* seconds; 0: none */
  CrOutputFunc  output;    /* the script's print() and warnings; NULL: left out */
} CrScriptRecordOptions;

/* What the run left. */
typedef struct {
  CrRunRecord   *record;   /* the run record (owned), NULL when nothing was recorded */
  CrScriptError *error;    /* the uncaught error (owned), NULL when the script ended well */
} CrScriptRecording;

/* Loads and runs options->file into *out (cleared first). FALSE when it
 * could not be read or parsed: why is on stderr already. */
gboolean cr_script_record         (const CrScriptRecordOptions *options,
                                   CrScriptRecording           *out);
/* Prints the run's uncaught error (its traceback) to stderr, unless it is
 * none or a notebook's cell printed it as it failed. */
void     cr_script_recording_print_error (const CrScriptRecording *recording);
void     cr_script_recording_clear (CrScriptRecording         *recording);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CrScriptRecording, cr_script_recording_clear)

G_END_DECLS
