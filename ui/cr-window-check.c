/* cr-window-check.c — "Check Gradients Numerically" (win.check-numerically):
 * `chainrule check` (core/teach/cr-gradcheck.h) on the script shown, in a
 * child process as every run of the window is (a script cannot take the
 * window down), its table in a window of its own.
 *
 * The menu item is added here to the main menu's second section, and the
 * shortcut (Ctrl+Shift+K) here too, so the window's template is not touched. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-notebook.h"

#include "cr-dialog-present.h"
#include "cr-script-guard.h"

#include <adwaita.h>

/* Re-runs of a big script add up: past this the check ends (exit 2). */
#define CHECK_TIMEOUT_S "60"

typedef struct {
  GtkWindow *dialog;      /* a weak pointer: NULL once closed */
  GtkLabel  *status;
  GtkLabel  *table;
  GtkWidget *spinner;
} CheckView;

static void
check_view_free (gpointer data)
{
  CheckView *view = data;
  if (view->dialog)
    g_object_remove_weak_pointer (G_OBJECT (view->dialog), (gpointer *) &view->dialog);
  g_free (view);
}

static void
check_finished (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GSubprocess *process = G_SUBPROCESS (source);
  CheckView *view = user_data;
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  gboolean ok = g_subprocess_communicate_utf8_finish (process, result, &out, NULL, &error);
  if (!view->dialog)
    {
      check_view_free (view);
      return;
    }
  gtk_widget_set_visible (view->spinner, FALSE);
  const char *status;
  if (!ok)
    status = error->message;
  else if (!g_subprocess_get_if_exited (process))
    status = "The check was stopped.";
  else
    switch (g_subprocess_get_exit_status (process))
      {
      case 0: status = "Autograd and the numeric gradients agree."; break;
      case 1: status = "A leaf's gradient disagrees with the numeric one."; break;
      default: status = "The check could not run: the script fails, or calls no backward."; break;
      }
  gtk_label_set_text (view->status, status);
  gtk_label_set_text (view->table, out ? out : "");
  check_view_free (view);
}

static CheckView *
check_view_new (CrWindow *self)
{
  CheckView *view = g_new0 (CheckView, 1);
  GtkWidget *dialog = adw_window_new ();
  gtk_window_set_title (GTK_WINDOW (dialog), "Check Gradients Numerically");
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  gtk_window_set_modal (GTK_WINDOW (dialog), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (dialog), 860, 540);
  cr_dialog_follow_presentation (GTK_WINDOW (dialog), GTK_WINDOW (self));

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  gtk_box_append (GTK_BOX (box), header);

  GtkWidget *status_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_margin_start (status_row, 18);
  gtk_widget_set_margin_end (status_row, 18);
  gtk_widget_set_margin_top (status_row, 12);
  view->spinner = gtk_spinner_new ();
  gtk_spinner_start (GTK_SPINNER (view->spinner));
  gtk_box_append (GTK_BOX (status_row), view->spinner);
  view->status = GTK_LABEL (gtk_label_new ("Running the script again for every nudge of a leaf…"));
  gtk_label_set_wrap (view->status, TRUE);
  gtk_label_set_xalign (view->status, 0);
  gtk_widget_add_css_class (GTK_WIDGET (view->status), "heading");
  gtk_box_append (GTK_BOX (status_row), GTK_WIDGET (view->status));
  gtk_box_append (GTK_BOX (box), status_row);

  view->table = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_selectable (view->table, TRUE);
  gtk_label_set_xalign (view->table, 0);
  gtk_label_set_yalign (view->table, 0);
  gtk_widget_add_css_class (GTK_WIDGET (view->table), "monospace");
  gtk_widget_set_margin_start (GTK_WIDGET (view->table), 18);
  gtk_widget_set_margin_end (GTK_WIDGET (view->table), 18);
  gtk_widget_set_margin_top (GTK_WIDGET (view->table), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (view->table), 18);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (view->table));
  gtk_box_append (GTK_BOX (box), scroller);

  adw_window_set_content (ADW_WINDOW (dialog), box);
  /* Escape closes it, as a dialog: a lecturer at the keyboard or with a
   * clicker (it sends Escape) has no pointer for its close button. */
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                      gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (dialog, keys);
  view->dialog = GTK_WINDOW (dialog);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &view->dialog);
  return view;
}

static void
check_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  (void) action;
  (void) parameter;
  CrWindow *self = user_data;
  g_autofree char *source = NULL;
  if (self->run_record && self->run_record->source)
    source = g_strdup (self->run_record->source);
  else
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
      GtkTextIter start, end;
      gtk_text_buffer_get_bounds (buffer, &start, &end);
      source = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
    }
  g_autofree char *exe = NULL;
  const char *runner = cr_script_guard_get_runner ();
  if (!runner)
    runner = exe = g_file_read_link ("/proc/self/exe", NULL);

  CheckView *view = check_view_new (self);
  gtk_window_present (view->dialog);
  /* Shown, a window gives its first focusable widget the focus: the
   * table, a selectable label, which then draws a caret before its first
   * letter. It is there to read; Tab still reaches it to copy. */
  gtk_window_set_focus (view->dialog, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) process = NULL;
  /* A notebook's script runs as its cells there too, its lines told by
   * cell ("cell 3, line 2"). */
  const char *name = self->run_record && self->run_record->filename
                     && cr_notebook_is_path (self->run_record->filename)
                     ? self->run_record->filename : "<stdin>";
  if (runner)
    process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error,
                                runner, "check", "--timeout", CHECK_TIMEOUT_S, "--name", name,
                                "-", NULL);
  if (!process)
    {
      gtk_widget_set_visible (view->spinner, FALSE);
      gtk_label_set_text (view->status, error ? error->message : "No runner to check with.");
      check_view_free (view);
      return;
    }
  g_subprocess_communicate_utf8_async (process, source, NULL, check_finished, view);
}

void
cr_window_check_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "check-numerically", .activate = check_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (keys), GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control><Shift>k"),
                      gtk_named_action_new ("win.check-numerically")));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
  if (!menu || g_menu_model_get_n_items (menu) < 2)
    return;
  g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
  if (G_IS_MENU (section))
    g_menu_append (G_MENU (section), "_Check Gradients Numerically", "win.check-numerically");
}
