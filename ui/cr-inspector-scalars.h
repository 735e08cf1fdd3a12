/* cr-inspector-scalars.h — the inspector's "Inside this op" for a small op
 * node: how many scalar nodes it is made of, and a button that opens it as
 * its scalar graph (win.open-scalars, cr-window-scalars.c). */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* A preferences group (new, floating), or NULL when op (index in
 * record->ops) cannot be opened as scalars (too big, not covered). */
GtkWidget *cr_inspector_scalars_new (const CrRunRecord *record,
                                     int                op);

G_END_DECLS
