/* test-window-check.c — "Check Gradients Numerically" in the window: the
 * action runs `chainrule check` on the script shown, in a child, and its
 * window tells the verdict and shows the table; a wrong custom backward is
 * named. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  (void) window;
  *finished = TRUE;
}

static CrWindow *
open_script (const char *source)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "chainrule-test-check.py", NULL);
  g_assert_true (g_file_set_contents (path, source, -1, NULL));
  CrWindow *window = cr_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  g_unlink (path);
  return window;
}

static GtkWindow *
check_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) w = g_list_model_get_item (toplevels, i);
      if (g_strcmp0 (gtk_window_get_title (w), "Check Gradients Numerically") == 0)
        return w;
    }
  return NULL;
}

/* The dialog's labels' texts, joined (new string). */
static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_labels (c, out);
}

static gboolean
table_shown (gpointer data)
{
  (void) data;
  GtkWindow *dialog = check_dialog ();
  if (!dialog)
    return FALSE;
  g_autoptr (GString) text = g_string_new (NULL);
  collect_labels (GTK_WIDGET (dialog), text);
  return strstr (text->str, "verdict") != NULL || strstr (text->str, "could not run") != NULL;
}

static char *
run_check (CrWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.check-numerically", NULL));
  g_assert_nonnull (check_dialog ());
  g_assert_true (cr_ui_test_wait_until (table_shown, NULL, 60));
  GString *text = g_string_new (NULL);
  GtkWindow *dialog = check_dialog ();
  /* Nothing has the focus: a focused selectable label draws a caret
   * before the table's first letter (in the README's shot). */
  g_assert_null (gtk_window_get_focus (dialog));
  collect_labels (GTK_WIDGET (dialog), text);
  gtk_window_destroy (dialog);
  return g_string_free (text, FALSE);
}

static void
test_agree (void)
{
  CrWindow *window = open_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
    "(x.sin() * x).sum().backward()\n");
  g_autofree char *text = run_check (window);
  g_assert_nonnull (strstr (text, "Autograd and the numeric gradients agree."));
  g_assert_nonnull (strstr (text, "The leaf agrees"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_wrong_backward (void)
{
  CrWindow *window = open_script (
    "import torch\n"
    "class Twice(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, a):\n"
    "        return a * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * 3\n"
    "w = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)\n"
    "Twice.apply(w).sum().backward()\n");
  g_autofree char *text = run_check (window);
  g_assert_nonnull (strstr (text, "A leaf's gradient disagrees with the numeric one."));
  g_assert_nonnull (strstr (text, "The leaf disagrees: w (line 9)."));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The dialog's table: its monospace label. */
static GtkWidget *
find_table (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "monospace"))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_table (c);
      if (found)
        return found;
    }
  return NULL;
}

/* The table's type, in points. */
static double
table_font_pt (GtkWindow *dialog)
{
  GtkWidget *table = find_table (GTK_WIDGET (dialog));
  g_assert_nonnull (table);
  PangoFontDescription *font = pango_context_get_font_description (gtk_widget_get_pango_context (table));
  return pango_font_description_get_size (font) / (double) PANGO_SCALE;
}

/* The table's type once dialog has drawn a change of it from was_pt (at
 * most 5 s): a new class takes effect in the dialog's next frame. */
static double
table_font_after_restyle (GtkWindow *dialog,
                          double     was_pt)
{
  gint64 until = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (table_font_pt (dialog) == was_pt && g_get_monotonic_time () < until)
    cr_ui_test_spin (20);
  return table_font_pt (dialog);
}

/* Whether one of dialog's shortcuts closes it on Escape. */
static gboolean
closes_on_escape (GtkWindow *dialog)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (dialog));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (c)); j++)
        {
          g_autoptr (GtkShortcut) s = g_list_model_get_item (G_LIST_MODEL (c), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (s);
          g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (s));
          if (g_strcmp0 (trigger, "Escape") == 0 && GTK_IS_NAMED_ACTION (action)
              && g_strcmp0 (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), "window.close") == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* Presenting, the table is read from the back of the room: presentation's
 * type and most of the window, where it opened at the window's own type in
 * an 860x540 corner; a table open when presentation starts or stops
 * follows. */
static void
test_presentation (void)
{
  CrWindow *window = open_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
    "(x * x).sum().backward()\n");
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.check-numerically", NULL));
  GtkWindow *dialog = check_dialog ();
  g_assert_nonnull (dialog);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (dialog), "presentation"));
  double window_pt = table_font_pt (dialog);
  g_assert_true (cr_ui_test_wait_until (table_shown, NULL, 60));
  /* Open when presentation starts, it follows at once. */
  cr_window_set_presentation (window, TRUE);
  cr_ui_test_wait_window_idle (window);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (dialog), "presentation"));
  g_assert_cmpfloat (table_font_after_restyle (dialog, window_pt), >=, window_pt * 1.3);
  gtk_window_destroy (dialog);

  int width = gtk_widget_get_width (GTK_WIDGET (window));
  int height = gtk_widget_get_height (GTK_WIDGET (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.check-numerically", NULL));
  dialog = check_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (dialog), "presentation"));
  int dialog_width = 0, dialog_height = 0;
  gtk_window_get_default_size (dialog, &dialog_width, &dialog_height);
  g_assert_cmpint (dialog_width, >=, MAX (860, width * 9 / 10));
  g_assert_cmpint (dialog_height, >=, MAX (540, height * 9 / 10));
  double present_pt = table_font_pt (dialog);
  g_assert_cmpfloat (present_pt, >=, window_pt * 1.3);
  g_assert_true (cr_ui_test_wait_until (table_shown, NULL, 60));
  /* The clicker's Escape closes it. */
  g_assert_true (closes_on_escape (dialog));
  /* Open when presentation stops, it takes the window's type again. */
  cr_window_set_presentation (window, FALSE);
  cr_ui_test_wait_window_idle (window);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (dialog), "presentation"));
  g_assert_cmpfloat (table_font_after_restyle (dialog, present_pt), ==, window_pt);
  gtk_window_destroy (dialog);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-check/agree", test_agree);
  g_test_add_func ("/window-check/wrong-backward", test_wrong_backward);
  g_test_add_func ("/window-check/presentation", test_presentation);
  return g_test_run ();
}
