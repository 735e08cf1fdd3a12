/* cr-window-leaf-edit.h — a scalar leaf's value edited in place (from the
 * inspector, cr-inspector-edit.h): the number is written into the literal
 * of the script that the leaf was made from, found by the leaf's source
 * span in the run record and its value, and the script runs again. */
#pragma once

#include "cr-window-private.h"

G_BEGIN_DECLS

/* Lets the window's inspector edit leaves (cr_window_run_init() calls it). */
void     cr_window_leaf_edit_init   (CrWindow    *self);

/* Writes typed (a number) into the literal that made tensor, a one-element
 * leaf of the run shown, as one undoable edit: the script runs again with
 * it. FALSE with error when typed is no number, or the leaf's value was
 * written as no single literal in its span (torch.randn(1), a value made
 * twice on its line). */
gboolean cr_window_write_leaf_value (CrWindow    *self,
                                     guint        tensor,
                                     const char  *typed,
                                     GError     **error);

G_END_DECLS
