/* cr-window.h — the main window: the script on the left, the graph of its
 * last run and its output on the right, and the backward-step controls. */
#pragma once

#include <adwaita.h>

#include "cr-graph-canvas.h"

G_BEGIN_DECLS

#define CR_TYPE_WINDOW (cr_window_get_type ())
G_DECLARE_FINAL_TYPE (CrWindow, cr_window, CR, WINDOW, AdwApplicationWindow)

CrWindow      *cr_window_new        (GtkApplication *application);   /* NULL: none */
/* Loads file into the editor and runs it (after the usual debounce). */
gboolean       cr_window_open_file  (CrWindow       *self,
                                     GFile          *file,
                                     GError        **error);
CrGraphCanvas *cr_window_get_canvas (CrWindow       *self);
/* TRUE while a run is scheduled or in progress. */
gboolean       cr_window_is_busy    (CrWindow       *self);
/* Where the examples are: the installed ones, else the source tree's. */
const char    *cr_window_examples_dir (void);

G_END_DECLS
