/* cr-window-leaf-edit.h — a scalar leaf's value edited in place (on the
 * graph or from the inspector, cr-inspector-edit.h): the number is written
 * into the literal of the script that the leaf was made from, found by the
 * leaf's source span in the run record and its value, and the script runs
 * again. */
#pragma once

#include "cr-window-private.h"

G_BEGIN_DECLS

/* Lets the window's inspector and graph edit leaves (cr_window_run_init()
 * calls it): a double-click on a scalar leaf's node, or Enter or F2 while
 * it is selected, opens its editor there; its tooltip says so. */
void     cr_window_leaf_edit_init   (CrWindow    *self);

/* Opens the editor of the leaf that node_id of the graph shown draws,
 * pointing at it; FALSE (nothing opens) where that is no leaf of one
 * element made by a line of the script. */
gboolean cr_window_edit_leaf_at_node (CrWindow   *self,
                                      int         node_id);

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
