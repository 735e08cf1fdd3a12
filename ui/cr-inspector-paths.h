/* cr-inspector-paths.h — the inspector's "Paths to the loss" for a leaf
 * element: each path from it to the loss of the backward call shown, the
 * product of its local derivatives, and their sum, .grad (core/teach/cr-paths.h). */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* A preferences group (new, floating), or NULL when leaf is no leaf
 * reached by .backward() call `backward`. A tensor leaf gets an index per
 * dimension to choose the element; the element's paths are listed (or why
 * they cannot be: an op whose per-element derivatives the record does not
 * keep), and "Walk" lights them on the graph one by one
 * (win.paths-walk, cr-window-paths.c). */
GtkWidget *cr_inspector_paths_new (const CrRunRecord *record,
                                   int                backward,
                                   int                leaf);

G_END_DECLS
