/* ui-test-script.h — what the tests that edit a window's script and read
 * the run back share (window-scrub, window-leaf-edit): the script's text,
 * a leaf's .grad after the last backward step, a widget by name. */
#pragma once

#include "cr-window-private.h"

G_BEGIN_DECLS

/* The editor's whole text (new string). */
char      *cr_ui_test_script_text (CrWindow   *window);
/* The .grad of the leaf named name (its first element) after the run's
 * last backward step; asserts there is one. */
double     cr_ui_test_final_grad  (CrWindow   *window,
                                   const char *name);
/* widget or the first widget below it named name (gtk_widget_set_name),
 * or NULL. */
GtkWidget *cr_ui_test_find_named  (GtkWidget  *widget,
                                   const char *name);

G_END_DECLS
