/* cr-grad-mode.h — whether ops record autograd history (torch.no_grad()).
 * Per thread: the window runs scripts on a worker thread. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

gboolean  cr_grad_mode_is_enabled   (void);
/* Returns the previous state, to restore at the end of a `with` block. */
gboolean  cr_grad_mode_set_enabled  (gboolean enabled);
/* Back to a fresh thread's state: grad mode on, sequence numbers from 0, no
 * current span. Each run starts with it, since the window runs one script
 * after another on the same worker thread. */
void      cr_grad_mode_reset_thread (void);

G_END_DECLS
