/* cr-script-record.c — load and record a script (cr-script-record.h). */
#include "cr-config.h"
#include "cr-script-record.h"

#include "cr-interp-cells.h"
#include "cr-kernels.h"
#include "cr-script-load.h"
#include "cr-time-limit.h"

#include <stdio.h>

/* Set from signal handlers (cr-time-limit.h): 1 on Ctrl-C, 2 at the deadline. */
static gint cancel_flag;

void
cr_script_recording_clear (CrScriptRecording *recording)
{
  g_clear_pointer (&recording->record, cr_run_record_unref);
  g_clear_pointer (&recording->error, cr_script_error_free);
}

gboolean
cr_script_record (const CrScriptRecordOptions *options,
                  CrScriptRecording           *out)
{
  cr_script_recording_clear (out);
  cr_threads_init ();
  /* From before parsing: a pathological text is as slow as an endless loop. */
  cr_time_limit_arm (&cancel_flag, options->timeout);
  g_autoptr (GArray) cells = NULL;
  g_autoptr (CrAstModule) module = cr_script_load (options->command, options->file, NULL,
                                                   &cancel_flag, &cells);
  if (!module)
    {
      cr_time_limit_disarm ();
      return FALSE;
    }
  CrInterpOptions io = {
    .output = options->output,
    .cancel_flag = &cancel_flag,
    .record_backward = TRUE,
  };
  CrInterp *interp = cr_interp_new (&io);
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->data, cells->len);
  cr_interp_run (interp, module, &out->error);
  cr_time_limit_disarm ();
  /* A cell's traceback went to the output as it failed: not shown when
   * the output is left out. */
  if (out->error && !options->output)
    out->error->reported = FALSE;
  out->record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  return TRUE;
}

void
cr_script_recording_print_error (const CrScriptRecording *recording)
{
  const CrScriptError *error = recording->error;
  if (!error || error->reported)
    return;
  fflush (stdout);
  fputs (error->traceback ? error->traceback : "the script failed\n", stderr);
}
