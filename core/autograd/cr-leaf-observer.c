/* cr-leaf-observer.c — the thread's leaf observer (cr-leaf-observer.h). */
#include "cr-leaf-observer.h"

static __thread CrLeafObserverFunc leaf_observer;
static __thread gpointer leaf_observer_data;

void
cr_autograd_set_leaf_observer (CrLeafObserverFunc func,
                               gpointer           user_data)
{
  leaf_observer = func;
  leaf_observer_data = user_data;
}

void
cr_autograd_notify_leaf (CrTensor    *leaf,
                         CrLeafEvent  event)
{
  if (G_UNLIKELY (leaf_observer != NULL))
    leaf_observer (leaf, event, leaf_observer_data);
}
