/* cr-torch-forward-trace.c — the forward ops of a run printed from its run
 * record for --trace-forward (cr-torch-forward-trace.h). Which ops were
 * printed is kept in the torch state, so that each op is told once: a
 * training loop's iterations each tell their own forward pass before their
 * backward call. */
#include "cr-interp-private.h"
#include "cr-torch-forward-trace.h"
#include "cr-torch-state.h"
#include "cr-record-forward.h"
#include "cr-record-text.h"
#include "cr-run-recorder.h"

#include <string.h>

static gboolean
tracing (CrInterp *self)
{
  return self->options.trace_forward && cr_run_recorder_get (self) != NULL;
}

/* Prints those of ops not printed yet, under heading, and marks them. */
static void
print_new (CrInterp     *self,
           CrRunRecord  *record,
           GArray       *ops,
           const char   *heading)
{
  CrTorchState *state = cr_torch_state (self);
  if (!state->forward_traced)
    state->forward_traced = g_byte_array_new ();
  GByteArray *done = state->forward_traced;
  if (done->len < record->ops->len)
    {
      guint old = done->len;
      g_byte_array_set_size (done, record->ops->len);
      memset (done->data + old, 0, record->ops->len - old);
    }
  g_autoptr (GArray) fresh = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < ops->len; i++)
    {
      int op = g_array_index (ops, int, i);
      if (!done->data[op])
        {
          done->data[op] = 1;
          g_array_append_val (fresh, op);
        }
    }
  if (fresh->len == 0)
    return;
  g_autofree char *text = cr_record_trace_forward (record, fresh, heading);
  cr_interp_write (self, text, FALSE);
}

void
cr_forward_trace_backward (CrInterp *self,
                           int       backward)
{
  if (!tracing (self))
    return;
  CrRunRecord *record = cr_run_recorder_get (self);
  if (backward < 0 || (guint) backward >= record->backwards->len)
    return;
  g_autoptr (GArray) ops = cr_record_forward_ops (record, backward);
  g_autofree char *call = cr_record_backward_picker_title (record, (guint) backward);
  g_autofree char *heading = g_strdup_printf ("forward to backward %s", call);
  print_new (self, record, ops, heading);
}

void
cr_forward_trace_rest (CrInterp *self)
{
  if (!tracing (self))
    return;
  CrRunRecord *record = cr_run_recorder_get (self);
  g_autoptr (GArray) ops = cr_record_forward_ops (record, -1);
  print_new (self, record, ops,
             record->backwards->len > 0 ? "forward (used by no backward call)" : "forward");
}

void
cr_forward_trace_reset (CrInterp *self)
{
  CrTorchState *state = cr_torch_state (self);
  if (state->forward_traced)
    g_byte_array_set_size (state->forward_traced, 0);
}
