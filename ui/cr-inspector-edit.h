/* cr-inspector-edit.h — a scalar leaf's value edited in place, from the
 * graph (a double-click on its node, Enter or F2) or the inspector's row:
 * a popover that takes a number, which the window writes into the
 * script's literal the leaf was made from (cr-window-leaf-edit.h), so the
 * script runs again with it. */
#pragma once

#include <gtk/gtk.h>

#include "cr-inspector.h"
#include "cr-run-record.h"

G_BEGIN_DECLS

/* Writes typed as tensor's value into the script; FALSE with error (its
 * message is shown under the entry) when it cannot. */
typedef gboolean (*CrInspectorLeafEditFunc) (guint        tensor,
                                             const char  *typed,
                                             gpointer     user_data,
                                             GError     **error);

/* What edits a leaf's value (NULL: leaves are not editable); user_data is
 * borrowed and must outlive the inspector or be unset first. */
void       cr_inspector_set_leaf_editor   (CrInspector             *self,
                                           CrInspectorLeafEditFunc  func,
                                           gpointer                 user_data);

/* The popover that edits tensor (a one-element leaf): its name, an entry
 * holding its value, whose Enter calls func and closes it (or shows why it
 * cannot be written). For a menu button, or pointing at the leaf's node on
 * the graph (cr_graph_canvas_popup_at_node). */
GtkWidget *cr_leaf_edit_popover_new       (const CrRecordTensor    *tensor,
                                           CrInspectorLeafEditFunc  func,
                                           gpointer                 user_data);

/* The row "Edit its value" for tensor (a one-element leaf), its popover's
 * entry calling func. */
GtkWidget *cr_inspector_leaf_edit_row_new (const CrRecordTensor    *tensor,
                                           CrInspectorLeafEditFunc  func,
                                           gpointer                 user_data);

G_END_DECLS
