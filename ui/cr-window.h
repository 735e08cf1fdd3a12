/* cr-window.h — the main window: the script (or an expression) on the left,
 * the graph of its run in the centre with the stepper, the step card and the
 * inspector on the right; the example gallery; presentation mode. */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "cr-graph-canvas.h"

G_BEGIN_DECLS

#define CR_TYPE_WINDOW (cr_window_get_type ())
G_DECLARE_FINAL_TYPE (CrWindow, cr_window, CR, WINDOW, AdwApplicationWindow)

/* Signals:
 *   "run-finished" (): a run's result is shown (output, graph or error); the
 *       canvas has its new model (its next frame draws it). */
CrWindow      *cr_window_new             (GtkApplication *application);
/* Loads file into the editor (unmodified) and runs it. FALSE with an error
 * a person can read (cr_script_file_load's) and nothing changed otherwise.
 * Does not ask about unsaved changes: the caller does (cr-window-files.c). */
gboolean       cr_window_open_file       (CrWindow       *self,
                                          GFile          *file,
                                          GError        **error);
/* The file being edited (NULL: a new script). Borrowed. */
GFile         *cr_window_get_file        (CrWindow       *self);
/* After Save As: the file now edited (updates the title). */
void           cr_window_set_file        (CrWindow       *self,
                                          GFile          *file);
/* The editor's whole text (new string). */
char          *cr_window_get_text        (CrWindow       *self);
GtkSourceView *cr_window_get_source_view (CrWindow       *self);
CrGraphCanvas *cr_window_get_canvas      (CrWindow       *self);
/* Shows the gallery (TRUE) or the workspace (FALSE). */
void           cr_window_show_gallery    (CrWindow       *self,
                                          gboolean        show);
/* Shows msg in a toast. */
void           cr_window_toast           (CrWindow       *self,
                                          const char     *message);
/* TRUE while a run is scheduled or in progress. */
gboolean       cr_window_is_busy         (CrWindow       *self);

/* cr-window-files.c: New/Open/Save/Save As/Export actions, drag and drop,
 * the unsaved-changes prompt on close, and the GSettings bindings; called
 * once from the window's init. */
void           cr_window_files_install   (CrWindow       *self);
/* Runs then() now when the editor has no unsaved changes, else after the
 * person chose Save (and it worked) or Discard in a prompt; never on Cancel. */
void           cr_window_confirm_discard (CrWindow       *self,
                                          GCallback       then,   /* void (*)(CrWindow*, gpointer) */
                                          gpointer        user_data);
/* Offers to restore the drafts that an earlier Chainrule left unsaved when
 * it ended without asking (a crash, a kill, a power cut): a prompt over
 * self naming the scripts. Restored text opens unsaved, in self when it
 * holds nothing unsaved, else in new windows. Nothing when there are none.
 * The application calls it on its first window. */
void           cr_window_offer_drafts    (CrWindow       *self);
/* Selects the node of the tensor called name (a leaf first) on the graph
 * when the first run is shown, the keyboard on the graph (W then walks its
 * paths): `chainrule --select NAME FILE`; a toast when there is none. */
void           cr_window_select_named_on_run (CrWindow   *self,
                                              const char *name);

G_END_DECLS
