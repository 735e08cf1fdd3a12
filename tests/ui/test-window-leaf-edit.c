/* test-window-leaf-edit.c — a scalar leaf edited on the graph
 * (cr-window-leaf-edit.h): a double-click on its node, or Enter or F2 on
 * the selected node, opens an editor pointing at it; the number typed
 * there is written into the script, which runs again, and the graph's
 * value and every .grad follow. Nodes that are no editable leaf open
 * nothing and leave their keys to the window. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-window-leaf-edit.h"
#include "ui-test-gui.h"
#include "ui-test-script.h"

#include <math.h>
#include <string.h>

/* a.grad = b + 1 and b.grad = a; c is made by no literal of its own. */
#define SCRIPT "import torch\n" \
               "a = torch.tensor(2.0, requires_grad=True)\n" \
               "b = torch.tensor(3.0, requires_grad=True)\n" \
               "c = torch.ones(2, requires_grad=True)\n" \
               "y = a * b + a + c.sum()\n" \
               "y.backward()\n"

/* The first node of kind titled title in the graph shown. */
static int
node_titled (CrWindow        *window,
             CrGraphNodeKind  kind,
             const char      *title)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  g_assert_nonnull (model);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == kind && g_strcmp0 (n->title, title) == 0)
        return (int) i;
    }
  g_assert_not_reached ();
  return -1;
}

static CrWindow *
open_script (void)
{
  CrWindow *window = cr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_set_text (buffer, SCRIPT, -1);
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  cr_graph_canvas_set_animate (cr_window_get_canvas (window), FALSE);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.0, 1e-6);
  return window;
}

/* The canvas's own key controller (Tab, Enter, Escape on the graph). */
static gboolean
canvas_key (CrWindow *window,
            guint     keyval)
{
  GtkWidget *canvas = GTK_WIDGET (cr_window_get_canvas (window));
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (canvas);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (c))
        {
          gboolean handled = FALSE;
          g_signal_emit_by_name (c, "key-pressed", keyval, 0, 0, &handled);
          return handled;
        }
    }
  g_assert_not_reached ();
  return FALSE;
}

/* The open editor's entry, with the popover pointing at node. */
static GtkEditable *
editor_entry (CrWindow *window,
              int       node)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkPopover *popover = cr_graph_canvas_get_popover (canvas);
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (popover)));
  g_assert_true (gtk_widget_get_parent (GTK_WIDGET (popover)) == GTK_WIDGET (canvas));
  /* It points at the node as drawn. */
  GdkRectangle at;
  g_assert_true (gtk_popover_get_pointing_to (popover, &at));
  double cx, cy;
  g_assert_true (cr_graph_canvas_node_center (canvas, node, &cx, &cy));
  g_assert_cmpfloat (fabs (at.x + at.width / 2.0 - cx), <=, 1.0);
  g_assert_cmpfloat (fabs (at.y + at.height / 2.0 - cy), <=, 1.0);
  GtkWidget *entry = cr_ui_test_find_named (GTK_WIDGET (popover), "cr-leaf-edit-entry");
  g_assert_nonnull (entry);
  return GTK_EDITABLE (entry);
}

/* Types text into the editor and presses its Enter; waits for the run. */
static void
type_and_enter (CrWindow   *window,
                GtkEditable *entry,
                const char *text)
{
  gtk_editable_set_text (entry, text);
  g_signal_emit_by_name (entry, "activate");
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
}

/* The preview a leaf's node shows: its value. */
static const char *
node_preview (CrWindow *window,
              int       node)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  return ((const CrGraphNode *) g_ptr_array_index (model->nodes, node))->preview;
}

/* Enter on the selected leaf: the editor opens on it, holding its value;
 * a number typed there is written into the script, and the graph and
 * the gradients follow. */
static void
test_enter_edits (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  int a = node_titled (window, CR_GRAPH_NODE_LEAF, "a");
  g_assert_nonnull (strstr (node_preview (window, a), "2."));
  cr_graph_canvas_set_selected (canvas, a);
  g_assert_null (cr_graph_canvas_get_popover (canvas));
  g_assert_true (canvas_key (window, GDK_KEY_Return));
  GtkEditable *entry = editor_entry (window, a);
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "2.0");

  type_and_enter (window, entry, "2.5");
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.5, requires_grad=True)"));
  /* The editor closed; the new graph shows a's new value, b.grad = a. */
  g_assert_null (cr_graph_canvas_get_popover (canvas));
  a = node_titled (window, CR_GRAPH_NODE_LEAF, "a");
  g_assert_nonnull (strstr (node_preview (window, a), "2.5"));
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.5, 1e-6);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "a"), 4.0, 1e-6);
  /* The selection stays on a, so Enter edits it again. */
  g_assert_cmpint (cr_graph_canvas_get_selected (canvas), ==, a);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A double-click on b's node, and F2: the same editor; what cannot be
 * written is said under the entry, which stays open. */
static void
test_double_click_and_f2 (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  int b = node_titled (window, CR_GRAPH_NODE_LEAF, "b");
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (canvas, b, &x, &y));
  g_assert_true (cr_graph_canvas_double_click_at (canvas, x, y));
  g_assert_cmpint (cr_graph_canvas_get_selected (canvas), ==, b);
  GtkEditable *entry = editor_entry (window, b);
  gtk_editable_set_text (entry, "three");
  g_signal_emit_by_name (entry, "activate");
  GtkPopover *popover = cr_graph_canvas_get_popover (canvas);
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (popover)));
  g_autofree char *unchanged = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (unchanged, "b = torch.tensor(3.0, requires_grad=True)"));
  gtk_popover_popdown (popover);
  g_assert_null (cr_graph_canvas_get_popover (canvas));

  g_assert_true (canvas_key (window, GDK_KEY_F2));
  type_and_enter (window, editor_entry (window, b), "-1");
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "b = torch.tensor(-1.0, requires_grad=True)"));
  /* a.grad = b + 1. */
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "a"), 0.0, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Nodes that are no scalar leaf made by a literal open nothing, and Enter
 * goes on to the window; their tooltips do not offer it, a's does. */
static void
test_not_editable (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  int c = node_titled (window, CR_GRAPH_NODE_LEAF, "c");
  int mul = node_titled (window, CR_GRAPH_NODE_OP, "MulBackward0");
  g_assert_false (cr_window_edit_leaf_at_node (window, c));
  g_assert_false (cr_window_edit_leaf_at_node (window, mul));
  cr_graph_canvas_set_selected (canvas, mul);
  g_assert_false (canvas_key (window, GDK_KEY_Return));
  cr_graph_canvas_set_selected (canvas, -1);
  g_assert_false (canvas_key (window, GDK_KEY_Return));
  double x, y;
  g_assert_true (cr_graph_canvas_node_center (canvas, mul, &x, &y));
  g_assert_false (cr_graph_canvas_double_click_at (canvas, x, y));
  g_assert_null (cr_graph_canvas_get_popover (canvas));

  g_assert_null (cr_graph_canvas_node_action_hint (canvas, c));
  g_assert_null (cr_graph_canvas_node_action_hint (canvas, mul));
  const char *hint = cr_graph_canvas_node_action_hint (canvas, node_titled (window, CR_GRAPH_NODE_LEAF, "a"));
  g_assert_nonnull (hint);
  g_assert_nonnull (strstr (hint, "Double-click"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting: typing "2.5" into the editor is a number, not the blank
 * screen's "."; Escape closes the editor, not presentation; the graph is
 * replaced while it is open: it goes. */
static void
test_presenting_keys (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  cr_window_set_presentation (window, TRUE);
  cr_ui_test_spin (50);
  int a = node_titled (window, CR_GRAPH_NODE_LEAF, "a");
  g_assert_true (cr_window_edit_leaf_at_node (window, a));
  GtkEditable *entry = editor_entry (window, a);
  gtk_widget_grab_focus (GTK_WIDGET (entry));
  cr_ui_test_spin (20);
  g_assert_true (cr_window_focus_in_popover (window));
  cr_ui_test_press_key_at_focus (window, GDK_KEY_period);
  g_assert_false (cr_window_get_blanked (window));
  cr_ui_test_press_key_at_focus (window, GDK_KEY_Escape);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));

  g_assert_true (cr_window_edit_leaf_at_node (window, a));
  g_assert_nonnull (cr_graph_canvas_get_popover (canvas));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_set_text (buffer, SCRIPT "print(y)\n", -1);
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_null (cr_graph_canvas_get_popover (canvas));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The keyboard shortcuts window lists it, with its keys. */
static void
test_shortcuts_list_it (void)
{
  const char *path = "/io/github/chainrule/Chainrule/gtk/help-overlay.ui";
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource (path);
  GObject *overlay = gtk_builder_get_object (builder, "help_overlay");
  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
  g_autoptr (GBytes) bytes = g_resources_lookup_data (path, 0, NULL);
  const char *text = g_bytes_get_data (bytes, NULL);
  const char *row = strstr (text, "scalar leaf's value in place");
  g_assert_nonnull (row);
  const char *keys = strstr (row, "<property name=\"accelerator\">");
  g_assert_nonnull (keys);
  g_assert_true (g_str_has_prefix (keys + strlen ("<property name=\"accelerator\">"), "Return F2<"));
  gtk_window_destroy (GTK_WINDOW (overlay));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-leaf-edit/enter", test_enter_edits);
  g_test_add_func ("/window-leaf-edit/double-click-f2", test_double_click_and_f2);
  g_test_add_func ("/window-leaf-edit/not-editable", test_not_editable);
  g_test_add_func ("/window-leaf-edit/presenting-keys", test_presenting_keys);
  g_test_add_func ("/window-leaf-edit/shortcuts", test_shortcuts_list_it);
  return g_test_run ();
}
