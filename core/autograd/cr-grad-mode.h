/* cr-grad-mode.h — whether ops record autograd history (torch.no_grad()).
 * Per thread: the window runs scripts on a worker thread. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

gboolean  cr_grad_mode_is_enabled   (void);
/* Returns the previous state, to restore at the end of a `with` block. */
gboolean  cr_grad_mode_set_enabled  (gboolean enabled);
/* torch.inference_mode(): on, grad mode is off and new tensors are
 * inference tensors (their storage says so: views share it). Returns the
 * previous state; grad mode is the caller's to set and restore. */
gboolean  cr_inference_mode_is_enabled  (void);
gboolean  cr_inference_mode_set_enabled (gboolean enabled);
/* Back to a fresh thread's state (inference mode off too): grad mode on, sequence numbers from 0, no
 * current span. Each run starts with it, since the window runs one script
 * after another on the same worker thread. */
void      cr_grad_mode_reset_thread (void);
/* The sequence number the next node made on this thread will get: a module
 * call made the nodes numbered from its value at the call's start to its
 * value at the end (the run record groups ops by module call with it). */
guint64   cr_autograd_peek_sequence_nr (void);

G_END_DECLS
