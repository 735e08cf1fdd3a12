/* cr-inspector-paths.h — the inspector's "Paths to the loss" for a scalar
 * leaf: each path from it to the loss of the backward call shown, the
 * product of its local derivatives, and their sum, .grad (core/teach/cr-paths.h). */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* A preferences group (new, floating), or NULL when leaf is no one-element
 * leaf reached by .backward() call `backward`, or its paths cannot be had
 * from the record. A tensor leaf gets a line saying how to list the paths
 * of one of its elements. */
GtkWidget *cr_inspector_paths_new (const CrRunRecord *record,
                                   int                backward,
                                   int                leaf);

G_END_DECLS
