/* cr-editor-scrub.h — scrubbing a number in the script: Ctrl+drag a number
 * literal in the editor and it follows the pointer, a step of its last
 * digit (1 for "3", 0.1 for "0.5") every few pixels, keeping its format
 * (core/lang/cr-number-literal.h). Each step is an edit of the buffer, so
 * the window re-runs the script and the graph follows; the whole drag is
 * one undo step. "started" and "ended" frame a drag, so that the window
 * shows every run's result while it lasts rather than cancelling runs
 * that a newer step made stale (ui/cr-window-run.c).
 *
 * From the keyboard, Ctrl+Up and Ctrl+Down on a number step it up or down
 * by its last digit, each press one undo step; elsewhere they keep the
 * editor's own meaning. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CR_TYPE_EDITOR_SCRUB (cr_editor_scrub_get_type ())
G_DECLARE_FINAL_TYPE (CrEditorScrub, cr_editor_scrub, CR, EDITOR_SCRUB, GObject)

/* Pixels of horizontal drag per step. */
#define CR_EDITOR_SCRUB_PIXELS_PER_STEP 6.0

/* Scrubbing for view (borrowed: the scrub adds a gesture to it and must not
 * outlive it). */
CrEditorScrub *cr_editor_scrub_new       (GtkTextView   *view);

/* What the gesture does, for tests and keyboard-free callers: a drag that
 * starts on the literal at `at` (FALSE, and nothing starts, when there is
 * none there), moves dx pixels from where it started, and ends. */
gboolean       cr_editor_scrub_begin     (CrEditorScrub     *self,
                                          const GtkTextIter *at);
void           cr_editor_scrub_update    (CrEditorScrub     *self,
                                          double             dx);
void           cr_editor_scrub_end       (CrEditorScrub     *self);
gboolean       cr_editor_scrub_is_active (CrEditorScrub     *self);

/* What Ctrl+Up (steps 1) and Ctrl+Down (-1) do: the literal at the cursor
 * moved by steps of its last digit, as a drag of that many steps. FALSE,
 * and nothing changes, when the cursor is on no number or a drag is on. */
gboolean       cr_editor_scrub_step      (CrEditorScrub     *self,
                                          int                steps);

G_END_DECLS
