/* cr-grad-mode.c — grad mode, the sequence counter and the current span.
 *
 * All three are per thread, as in PyTorch: the window runs scripts on a worker
 * thread while the UI thread reads finished graphs. */
#include "cr-grad-mode.h"

#include <string.h>

#include "cr-autograd-private.h"
#include "cr-storage.h"

/* Stored inverted so that the zero-initialised default is "enabled". */
static __thread gboolean grad_mode_disabled;
static __thread guint64  sequence_counter;
static __thread CrSpan   current_span;

gboolean
cr_grad_mode_is_enabled (void)
{
  return !grad_mode_disabled;
}

gboolean
cr_grad_mode_set_enabled (gboolean enabled)
{
  gboolean previous = !grad_mode_disabled;

  grad_mode_disabled = !enabled;
  return previous;
}

gboolean
cr_inference_mode_is_enabled (void)
{
  gboolean current = cr_storage_set_inference (FALSE);

  cr_storage_set_inference (current);
  return current;
}

gboolean
cr_inference_mode_set_enabled (gboolean enabled)
{
  return cr_storage_set_inference (enabled);
}

void
cr_grad_mode_reset_thread (void)
{
  grad_mode_disabled = FALSE;
  cr_storage_set_inference (FALSE);
  sequence_counter = 0;
  memset (&current_span, 0, sizeof current_span);
}

guint64
cr_autograd_next_sequence_nr (void)
{
  return sequence_counter++;
}

guint64
cr_autograd_peek_sequence_nr (void)
{
  return sequence_counter;
}

void
cr_autograd_set_current_span (const CrSpan *span)
{
  if (span != NULL)
    current_span = *span;
  else
    memset (&current_span, 0, sizeof current_span);
}

const CrSpan *
cr_autograd_get_current_span (void)
{
  return &current_span;
}
