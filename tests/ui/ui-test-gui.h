/* ui-test-gui.h — what the ui tests that open windows share (with
 * ui-test-util.h): GTK set up for a test, and a wait for a window's run. */
#pragma once

#include "ui-test-util.h"
#include "cr-window.h"

G_BEGIN_DECLS

/* gtk_test_init() and adw_init(), without the accessibility bridge: there is
 * no session bus under xvfb-run, so it would warn, and G_DEBUG=fatal-warnings
 * makes that fatal. Loads the app's style.css as the app does. */
void cr_ui_test_init_gtk         (int       *argc,
                                  char    ***argv);
/* Runs the main loop until window has no run in progress (asserts that
 * happens within 30 s). */
void cr_ui_test_wait_window_idle (CrWindow  *window);
/* Sends keyval (no modifiers) as a key press reaches the window: its key
 * controllers, capture phase first, then the shortcuts of its class (F5,
 * F9). TRUE: something took it. */
gboolean cr_ui_test_press_key    (CrWindow  *window,
                                  guint      keyval);
/* The same with modifiers held (state), which a shortcut must match exactly. */
gboolean cr_ui_test_press_key_with (CrWindow        *window,
                                    guint            keyval,
                                    GdkModifierType  state);
/* Sends keyval with state held to widget's shortcuts alone (a dialog's
 * Escape or F5). TRUE: one took it. */
gboolean cr_ui_test_press_shortcut (GtkWidget       *widget,
                                    guint            keyval,
                                    GdkModifierType  state);
/* Sends keyval (no modifiers) as GTK would with the focus where it is:
 * capture-phase controllers from the window down to the focus widget, then
 * the others from the focus widget up to the window (not its shortcuts).
 * The widget that took it, or NULL. */
GtkWidget *cr_ui_test_press_key_at_focus (CrWindow *window,
                                          guint     keyval);
GtkWidget *cr_ui_test_press_key_at_focus_with (CrWindow        *window,
                                               guint            keyval,
                                               GdkModifierType  state);
/* A new window of width x height (0 x 0: its own default size) with the
 * example NAME open, presented and its run finished, at its last forward
 * op (cr_ui_test_skip_forward). */
CrWindow *cr_ui_test_open_example (const char *name,
                                   int         width,
                                   int         height);

/* To the last forward op of the story shown, so that the next step is the
 * first backward step (for tests of the backward pass). */
void      cr_ui_test_skip_forward (CrWindow *window);

/* Runs the main loop until window says "run-finished" (asserts that
 * happens within 30 s). */
void      cr_ui_test_wait_run_finished (CrWindow   *window);
/* Whether 1-based line of the window's editor carries tag_name anywhere
 * (FALSE when there is no such tag). */
gboolean  cr_ui_test_line_has_tag      (CrWindow   *window,
                                        int         line,
                                        const char *tag_name);

/* A new window with the file at path open, presented and its first run
 * finished; width or height 0: the window's own default size. */
CrWindow *cr_ui_test_open_path   (const char *path,
                                  int         width,
                                  int         height);
/* source written to a file named name in a new temporary directory, then
 * opened as cr_ui_test_open_path does. The file stays for the test; its
 * path (new) in *path_out when path_out is not NULL. */
CrWindow *cr_ui_test_open_script (const char  *name,
                                  const char  *source,
                                  int          width,
                                  int          height,
                                  char       **path_out);
/* Removes a file cr_ui_test_open_script wrote, and its directory. */
void      cr_ui_test_remove_script (const char *path);

G_END_DECLS
