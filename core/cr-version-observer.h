/* cr-version-observer.h — who wants to know when a tensor's values change
 * in place: the run record names the statement that last changed a saved
 * tensor ("modified in place by line 7"). One observer per thread (the
 * thread running a script), NULL nearly always. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* Called by cr_tensor_bump_version after it bumped t's version counter. */
typedef void (*CrVersionObserverFunc) (CrTensor *t,
                                       gpointer  user_data);

/* Sets this thread's observer (NULL: none); returns nothing, replaces any. */
void cr_tensor_set_version_observer (CrVersionObserverFunc func,
                                     gpointer              user_data);

G_END_DECLS
