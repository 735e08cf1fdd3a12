/* ui-test-gui.c — see ui-test-gui.h. */
#include "ui-test-gui.h"
#include "cr-examples.h"

#include <adwaita.h>
#include <glib/gstdio.h>

void
cr_ui_test_init_gtk (int    *argc,
                     char ***argv)
{
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  /* The app's style sheet, which AdwApplication loads from its resource base
   * path: without it a test's window is laid out unlike the app's. */
  g_autoptr (GtkCssProvider) style = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (style, "/io/github/chainrule/Chainrule/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (style),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static gboolean
window_idle (gpointer window)
{
  return !cr_window_is_busy (window);
}

void
cr_ui_test_wait_window_idle (CrWindow *window)
{
  g_assert_true (cr_ui_test_wait_until (window_idle, window, 30));
}

gboolean
cr_ui_test_press_key (CrWindow *window,
                      guint     keyval)
{
  return cr_ui_test_press_key_with (window, keyval, 0);
}

gboolean
cr_ui_test_press_key_with (CrWindow        *window,
                           guint            keyval,
                           GdkModifierType  state)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  static const GtkPropagationPhase phases[] = { GTK_PHASE_CAPTURE, GTK_PHASE_BUBBLE };
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
        if (!GTK_IS_EVENT_CONTROLLER_KEY (c) || gtk_event_controller_get_propagation_phase (c) != phases[p])
          continue;
        gboolean handled = FALSE;
        g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
        if (handled)
          return TRUE;
      }
  /* The class's key bindings are a shortcut controller's shortcuts. */
  return cr_ui_test_press_shortcut (GTK_WIDGET (window), keyval, state);
}

gboolean
cr_ui_test_press_shortcut (GtkWidget       *widget,
                           guint            keyval,
                           GdkModifierType  state)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (c)); k++)
        {
          g_autoptr (GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (c), k);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
          if (GTK_IS_KEYVAL_TRIGGER (trigger)
              && gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval
              && gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == state)
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

/* Emits key-pressed on widget's key controllers of phase (any phase but
 * capture when bubble). TRUE: one took it. */
static gboolean
emit_key (GtkWidget           *widget,
          GtkPropagationPhase  phase,
          guint                keyval,
          GdkModifierType      state)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      GtkPropagationPhase its = gtk_event_controller_get_propagation_phase (c);
      if (!GTK_IS_EVENT_CONTROLLER_KEY (c)
          || (phase == GTK_PHASE_CAPTURE ? its != GTK_PHASE_CAPTURE : its == GTK_PHASE_CAPTURE))
        continue;
      gboolean handled = FALSE;
      g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
      if (handled)
        return TRUE;
    }
  return FALSE;
}

GtkWidget *
cr_ui_test_press_key_at_focus (CrWindow *window,
                               guint     keyval)
{
  return cr_ui_test_press_key_at_focus_with (window, keyval, 0);
}

GtkWidget *
cr_ui_test_press_key_at_focus_with (CrWindow        *window,
                                    guint            keyval,
                                    GdkModifierType  state)
{
  /* The path from the window down to the focus widget. */
  g_autoptr (GPtrArray) path = g_ptr_array_new ();
  for (GtkWidget *w = gtk_root_get_focus (GTK_ROOT (window)); w && w != GTK_WIDGET (window);
       w = gtk_widget_get_parent (w))
    g_ptr_array_insert (path, 0, w);
  g_ptr_array_insert (path, 0, window);
  for (guint i = 0; i < path->len; i++)
    if (emit_key (g_ptr_array_index (path, i), GTK_PHASE_CAPTURE, keyval, state))
      return g_ptr_array_index (path, i);
  for (guint i = path->len; i-- > 0;)
    if (emit_key (g_ptr_array_index (path, i), GTK_PHASE_BUBBLE, keyval, state))
      return g_ptr_array_index (path, i);
  return NULL;
}

CrWindow *
cr_ui_test_open_example (const char *name,
                         int         width,
                         int         height)
{
  g_autofree char *path = g_build_filename (cr_examples_dir (), name, NULL);
  CrWindow *window = cr_ui_test_open_path (path, width, height);
  /* The tests that open an example step through its backward pass: the
   * forward ops before it are passed (test-window's toy network walks
   * them). */
  cr_ui_test_skip_forward (window);
  return window;
}

void
cr_ui_test_skip_forward (CrWindow *window)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  int n = (int) cr_graph_canvas_get_n_forward_steps (canvas);
  if (n > 0)
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", n - 1));
  cr_ui_test_wait_window_idle (window);
}

static void
run_finished_cb (CrWindow *window,
                 gboolean *finished)
{
  *finished = TRUE;
}

void
cr_ui_test_wait_run_finished (CrWindow *window)
{
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (run_finished_cb), &finished);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
}

gboolean
cr_ui_test_line_has_tag (CrWindow   *window,
                         int         line,
                         const char *tag_name)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);
  if (!tag)
    return FALSE;
  GtkTextIter iter, end;
  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  end = iter;
  gtk_text_iter_forward_to_line_end (&end);
  do
    if (gtk_text_iter_has_tag (&iter, tag))
      return TRUE;
  while (gtk_text_iter_compare (&iter, &end) < 0 && gtk_text_iter_forward_char (&iter));
  return FALSE;
}

CrWindow *
cr_ui_test_open_path (const char *path,
                      int         width,
                      int         height)
{
  CrWindow *window = cr_window_new (NULL);
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  return window;
}

CrWindow *
cr_ui_test_open_script (const char  *name,
                        const char  *source,
                        int          width,
                        int          height,
                        char       **path_out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("chainrule-test-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, source, -1, &error));
  g_assert_no_error (error);
  CrWindow *window = cr_ui_test_open_path (path, width, height);
  if (path_out)
    *path_out = g_steal_pointer (&path);
  return window;
}

void
cr_ui_test_remove_script (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}
