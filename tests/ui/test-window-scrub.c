/* test-window-scrub.c — Ctrl+drag a number in the editor (cr-editor-scrub.h):
 * the literal changes in its format, the script runs again, the graph's
 * values and every .grad follow, and the stepper keeps its step; a drag
 * that moves faster than the runs shows each run's result and ends on the
 * latest text. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-editor-scrub.h"
#include "cr-graph-canvas.h"
#include "cr-inspector.h"
#include "cr-window-leaf-edit.h"
#include "ui-test-gui.h"
#include "ui-test-script.h"

#include <math.h>
#include <string.h>

/* a.grad = b + 1 and b.grad = a: both follow a scrub of either. */
#define SCRIPT "import torch\n" \
               "a = torch.tensor(2.0, requires_grad=True)\n" \
               "b = torch.tensor(3, dtype=torch.float32, requires_grad=True)\n" \
               "y = a * b + a  # 0.5 in a comment is no number to scrub\n" \
               "y.backward()\n" \
               "print(a.grad, b.grad)\n"

static void
count_cb (CrWindow *window,
          guint    *count)
{
  (*count)++;
}

/* The iter on the first occurrence of needle, plus at characters. */
static void
iter_at (CrWindow    *window,
         const char  *needle,
         int          at,
         GtkTextIter *iter)
{
  g_autofree char *text = cr_ui_test_script_text (window);
  const char *where = strstr (text, needle);
  g_assert_nonnull (where);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_get_iter_at_offset (buffer, iter, (int) g_utf8_pointer_to_offset (text, where) + at);
}

/* The record's leaf named name. */
static const CrRecordTensor *
leaf_named (CrWindow   *window,
            const char *name)
{
  const CrRunRecord *record = window->run_record;
  g_assert_nonnull (record);
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->origin == CR_RECORD_TENSOR_LEAF && g_strcmp0 (t->name, name) == 0)
        return t;
    }
  g_assert_not_reached ();
  return NULL;
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
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "a"), 4.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.0, 1e-6);
  return window;
}

static void
test_scrub_follows (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_cmpuint (cr_graph_canvas_get_model (canvas)->n_steps, >, 2);
  cr_graph_canvas_set_step (canvas, 2);

  GtkTextIter at;
  iter_at (window, "2.0", 1, &at);
  g_assert_true (cr_editor_scrub_begin (window->scrub, &at));
  g_assert_true (window->scrubbing);
  /* Three steps of 0.1 to the right. */
  cr_editor_scrub_update (window->scrub, 3.5 * CR_EDITOR_SCRUB_PIXELS_PER_STEP);
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "torch.tensor(2.3, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.3, 1e-6);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "a"), 4.0, 1e-6);
  /* The stepper stays where it was: the same steps, new numbers. */
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 2);

  /* Back past zero, then the drag ends: one undo step restores the 2.0. */
  cr_editor_scrub_update (window->scrub, -21 * CR_EDITOR_SCRUB_PIXELS_PER_STEP);
  cr_editor_scrub_end (window->scrub);
  g_assert_false (window->scrubbing);
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "torch.tensor(-0.1, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), -0.1, 1e-6);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 2);

  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  g_assert_true (gtk_text_buffer_get_can_undo (buffer));
  gtk_text_buffer_undo (buffer);
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_cmpstr (text, ==, SCRIPT);
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.0, 1e-6);

  /* An int literal steps by 1 and stays an int: b's 3 becomes 5. */
  iter_at (window, "(3,", 1, &at);
  g_assert_true (cr_editor_scrub_begin (window->scrub, &at));
  cr_editor_scrub_update (window->scrub, 2 * CR_EDITOR_SCRUB_PIXELS_PER_STEP);
  cr_editor_scrub_end (window->scrub);
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "torch.tensor(5, dtype"));
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "a"), 6.0, 1e-6);

  /* Not on a number: nothing starts. */
  iter_at (window, "0.5 in a comment", 1, &at);
  g_assert_false (cr_editor_scrub_begin (window->scrub, &at));
  iter_at (window, "requires_grad", 3, &at);
  g_assert_false (cr_editor_scrub_begin (window->scrub, &at));
  g_assert_false (window->scrubbing);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Steps faster than the script runs: no run is cancelled, at most one
 * waits, and the last result shown is the last text's. */
static void
test_scrub_coalesces (void)
{
  CrWindow *window = open_script ();
  guint finished = 0;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (count_cb), &finished);
  GtkTextIter at;
  iter_at (window, "2.0", 0, &at);
  g_assert_true (cr_editor_scrub_begin (window->scrub, &at));
  for (int step = 1; step <= 20; step++)
    {
      cr_editor_scrub_update (window->scrub, step * CR_EDITOR_SCRUB_PIXELS_PER_STEP);
      /* A frame's worth of events between moves. */
      for (int i = 0; i < 3; i++)
        g_main_context_iteration (NULL, FALSE);
      g_assert_false (window->rerun);
    }
  cr_editor_scrub_end (window->scrub);
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_signal_handler_disconnect (window, handler);
  g_test_message ("20 steps, %u results shown", finished);
  g_assert_cmpuint (finished, >=, 1);
  g_assert_cmpuint (finished, <=, 21);
  g_assert_false (window->run_again);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 4.0, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The gesture itself: a drag without Ctrl is the text view's (no scrub). */
static void
test_drag_without_ctrl_is_text (void)
{
  CrWindow *window = open_script ();
  g_assert_false (cr_editor_scrub_is_active (window->scrub));
  g_autofree char *before = cr_ui_test_script_text (window);
  /* Ends of a drag that never began change nothing. */
  cr_editor_scrub_update (window->scrub, 50);
  cr_editor_scrub_end (window->scrub);
  g_autofree char *after = cr_ui_test_script_text (window);
  g_assert_cmpstr (before, ==, after);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A scalar leaf's value edited in place: written into its literal, the
 * graph and .grad follow; what cannot be written says why. */
static void
test_leaf_value_written_back (void)
{
  CrWindow *window = open_script ();
  /* The inspector offers it for a, a leaf of one element. */
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  const CrGraphNode *a_node = cr_graph_model_find_tensor (model, (int) leaf_named (window, "a")->id);
  g_assert_nonnull (a_node);
  cr_inspector_show_node (CR_INSPECTOR (window->inspector), model, (int) a_node->id);
  g_assert_nonnull (cr_ui_test_find_named (window->inspector, "cr-leaf-edit"));

  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_write_leaf_value (window, leaf_named (window, "a")->id, " 2.5 ", &error));
  g_assert_no_error (error);
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.5, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.5, 1e-6);

  /* An int typed for a float literal stays a float: 7 is written 7.0. */
  g_assert_true (cr_window_write_leaf_value (window, leaf_named (window, "a")->id, "7", &error));
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(7.0, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 7.0, 1e-6);

  g_assert_false (cr_window_write_leaf_value (window, leaf_named (window, "a")->id, "seven", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  /* y is no leaf. */
  guint y = 0;
  for (guint i = 0; i < window->run_record->tensors->len; i++)
    if (g_strcmp0 (((CrRecordTensor *) g_ptr_array_index (window->run_record->tensors, i))->name, "y") == 0)
      y = i;
  g_assert_cmpuint (y, >, 0);
  g_assert_false (cr_window_write_leaf_value (window, y, "1", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The editor's key controller for Ctrl+Up and Ctrl+Down. */
static GtkEventController *
scrub_keys (CrWindow *window)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (cr_window_get_source_view (window)));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (g_strcmp0 (gtk_event_controller_get_name (c), "cr-scrub-keys") == 0)
        return c;
    }
  return NULL;
}

static gboolean
press (CrWindow        *window,
       guint            keyval,
       GdkModifierType  state)
{
  gboolean handled = FALSE;
  g_signal_emit_by_name (scrub_keys (window), "key-pressed", keyval, 0, state, &handled);
  return handled;
}

/* From the keyboard: Ctrl+Up and Ctrl+Down on a number step it by its last
 * digit, each press one undo step, and the graph follows; off a number, or
 * with another modifier, the keys are the editor's. */
static void
test_keys_step (void)
{
  CrWindow *window = open_script ();
  g_assert_nonnull (scrub_keys (window));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  GtkTextIter at;
  iter_at (window, "2.0", 1, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  g_assert_true (press (window, GDK_KEY_Up, GDK_CONTROL_MASK));
  g_assert_true (press (window, GDK_KEY_Up, GDK_CONTROL_MASK));
  g_assert_true (press (window, GDK_KEY_KP_Up, GDK_CONTROL_MASK));
  g_assert_true (press (window, GDK_KEY_Down, GDK_CONTROL_MASK));
  g_assert_false (window->scrubbing);
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.2, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.2, 1e-6);
  gtk_text_buffer_undo (buffer);
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.3, requires_grad=True)"));

  /* Not on a number, or not Ctrl alone: the editor's own keys. */
  g_assert_false (press (window, GDK_KEY_Up, GDK_CONTROL_MASK | GDK_SHIFT_MASK));
  g_assert_false (press (window, GDK_KEY_Up, GDK_ALT_MASK));
  g_assert_false (press (window, GDK_KEY_Left, GDK_CONTROL_MASK));
  iter_at (window, "requires_grad", 3, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  g_assert_false (press (window, GDK_KEY_Up, GDK_CONTROL_MASK));
  g_free (text);
  text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.3, requires_grad=True)"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting, the arrows and Home step the story unless the editor has the
 * keys: Ctrl+L gives them to it (showing the script F5 hid), and Ctrl+Up
 * then plays with a number in front of the room, the step kept. */
static void
test_keys_step_presenting (void)
{
  CrWindow *window = open_script ();
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkWidget *view = GTK_WIDGET (cr_window_get_source_view (window));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter at;
  iter_at (window, "2.0", 1, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  cr_graph_canvas_set_step (canvas, 2);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F5));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_false (gtk_widget_get_visible (view) && gtk_widget_get_mapped (view));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Home) == GTK_WIDGET (window));
  cr_graph_canvas_set_step (canvas, 2);

  g_assert_true (cr_ui_test_press_key_with (window, GDK_KEY_l, GDK_CONTROL_MASK));
  cr_ui_test_spin (50);
  g_assert_true (gtk_widget_get_mapped (view));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == view);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  /* The editor's now: Home moves its cursor, not the story. */
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Home) != GTK_WIDGET (window));
  gtk_text_buffer_place_cursor (buffer, &at);
  g_assert_true (cr_ui_test_press_key_at_focus_with (window, GDK_KEY_Up, GDK_CONTROL_MASK) == view);
  g_assert_true (cr_ui_test_press_key_at_focus_with (window, GDK_KEY_Up, GDK_CONTROL_MASK) == view);
  g_autofree char *text = cr_ui_test_script_text (window);
  g_assert_nonnull (strstr (text, "a = torch.tensor(2.2, requires_grad=True)"));
  cr_ui_test_spin (50);
  cr_ui_test_wait_window_idle (window);
  g_assert_cmpfloat_with_epsilon (cr_ui_test_final_grad (window, "b"), 2.2, 1e-6);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 2);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-scrub/follows", test_scrub_follows);
  g_test_add_func ("/window-scrub/coalesces", test_scrub_coalesces);
  g_test_add_func ("/window-scrub/no-ctrl", test_drag_without_ctrl_is_text);
  g_test_add_func ("/window-scrub/leaf-value", test_leaf_value_written_back);
  g_test_add_func ("/window-scrub/keys", test_keys_step);
  g_test_add_func ("/window-scrub/keys-presenting", test_keys_step_presenting);
  return g_test_run ();
}
