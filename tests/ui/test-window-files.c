/* test-window-files.c — the window's file handling (cr-window-files.c): the
 * actions are there, New starts an unmodified template, and the
 * unsaved-changes prompt runs its continuation at once when nothing changed,
 * never on Cancel, after Discard, and after a Save that wrote the file; a
 * close with unsaved changes waits for the answer. Runs under xvfb-run. */
#include "cr-config.h"
#include "ui-test-files.h"
#include "cr-window.h"
#include "ui-test-gui.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  char     *dir;
  char     *path;      /* a script in dir */
  CrWindow *window;
  int       then_runs;
} Fixture;

static const char script[] = "import torch\nx = torch.tensor(3.0, requires_grad=True)\n";

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr (GError) error = NULL;
  fixture->dir = g_dir_make_tmp ("cr-test-window-files-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->path = g_build_filename (fixture->dir, "t.py", NULL);
  g_file_set_contents (fixture->path, script, -1, &error);
  g_assert_no_error (error);

  fixture->window = g_object_ref_sink (cr_window_new (NULL));
  g_autoptr (GFile) file = g_file_new_for_path (fixture->path);
  g_assert_true (cr_window_open_file (fixture->window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (fixture->window));
  cr_ui_test_wait_window_idle (fixture->window);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->window)
    {
      cr_ui_test_wait_window_idle (fixture->window);
      gtk_window_destroy (GTK_WINDOW (fixture->window));
      g_clear_object (&fixture->window);
    }
  cr_ui_test_remove_tree (fixture->dir);
  g_free (fixture->path);
  g_free (fixture->dir);
}

static GtkTextBuffer *
get_buffer (Fixture *fixture)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (fixture->window)));
}

static void
then_cb (CrWindow *window,
         gpointer  user_data)
{
  Fixture *fixture = user_data;
  g_assert_true (window == fixture->window);
  fixture->then_runs++;
}

static void
edit (Fixture *fixture)
{
  GtkTextBuffer *buffer = get_buffer (fixture);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "y = x * x\n", -1);
  g_assert_true (gtk_text_buffer_get_modified (buffer));
}

/* The unsaved-changes prompt of window, shown: NULL when there is none. */
static AdwMessageDialog *
find_prompt (CrWindow *window)
{
  /* Let the dialog map. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_autoptr (GList) toplevels = gtk_window_list_toplevels ();
  for (GList *l = toplevels; l; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data)
        && gtk_window_get_transient_for (l->data) == GTK_WINDOW (window)
        && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

static void
test_actions (Fixture       *fixture,
              gconstpointer  data)
{
  static const char *names[] = { "new", "open", "save", "save-as", "export-graph" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_true (g_action_group_has_action (G_ACTION_GROUP (fixture->window), names[i]));
}

static void
test_unmodified_runs_at_once (Fixture       *fixture,
                              gconstpointer  data)
{
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture)));
  cr_window_confirm_discard (fixture->window, G_CALLBACK (then_cb), fixture);
  g_assert_cmpint (fixture->then_runs, ==, 1);
  g_assert_null (find_prompt (fixture->window));
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  edit (fixture);
  g_autofree char *before = cr_window_get_text (fixture->window);
  cr_window_confirm_discard (fixture->window, G_CALLBACK (then_cb), fixture);
  g_assert_cmpint (fixture->then_runs, ==, 0);

  AdwMessageDialog *prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  g_assert_cmpstr (adw_message_dialog_get_heading (prompt), ==, "Save changes to “t.py”?");
  g_assert_cmpint (adw_message_dialog_get_response_appearance (prompt, "discard"), ==,
                   ADW_RESPONSE_DESTRUCTIVE);
  g_assert_cmpint (adw_message_dialog_get_response_appearance (prompt, "save"), ==,
                   ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_response (prompt, "cancel");
  g_assert_cmpint (fixture->then_runs, ==, 0);

  /* Nothing lost: the edit is still there, still unsaved. */
  g_autofree char *after = cr_window_get_text (fixture->window);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (gtk_text_buffer_get_modified (get_buffer (fixture)));
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, script);
}

static void
test_discard (Fixture       *fixture,
              gconstpointer  data)
{
  edit (fixture);
  cr_window_confirm_discard (fixture->window, G_CALLBACK (then_cb), fixture);
  AdwMessageDialog *prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  adw_message_dialog_response (prompt, "discard");
  g_assert_cmpint (fixture->then_runs, ==, 1);
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, script);
}

static void
test_save (Fixture       *fixture,
           gconstpointer  data)
{
  edit (fixture);
  g_autofree char *text = cr_window_get_text (fixture->window);
  cr_window_confirm_discard (fixture->window, G_CALLBACK (then_cb), fixture);
  AdwMessageDialog *prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  adw_message_dialog_response (prompt, "save");

  /* The script had a file: saved in place, then the continuation. */
  g_assert_cmpint (fixture->then_runs, ==, 1);
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture)));
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, text);
  g_assert_nonnull (strstr (on_disk, "y = x * x\n"));
}

static void
test_save_action (Fixture       *fixture,
                  gconstpointer  data)
{
  edit (fixture);
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.save", NULL));
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture)));
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, text);
}

static void
test_new (Fixture       *fixture,
          gconstpointer  data)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.new", NULL));
  g_assert_null (cr_window_get_file (fixture->window));
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture)));
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_true (g_str_has_prefix (text, "import torch\n"));
  g_assert_nonnull (strstr (text, ".backward()"));
}

static gboolean
pointer_is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
test_close_waits (Fixture       *fixture,
                  gconstpointer  data)
{
  CrWindow *window = fixture->window;
  edit (fixture);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);

  gtk_window_close (GTK_WINDOW (window));
  AdwMessageDialog *prompt = find_prompt (window);
  g_assert_nonnull (prompt);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  adw_message_dialog_response (prompt, "discard");

  /* Closed: only the fixture's reference keeps the object, and the edit's
   * run while it finishes on its worker (its GTask holds the window). */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (fixture->window)));
  g_clear_object (&fixture->window);
  g_assert_true (cr_ui_test_wait_until (pointer_is_null, &window, 30));
}

/* The window's file drop target (the one that takes a GFile). */
static GtkDropTarget *
find_file_drop_target (CrWindow *window)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (!GTK_IS_DROP_TARGET (controller))
        continue;
      gsize n_types = 0;
      const GType *types = gtk_drop_target_get_gtypes (GTK_DROP_TARGET (controller), &n_types);
      for (gsize t = 0; t < n_types; t++)
        if (types[t] == G_TYPE_FILE)
          return GTK_DROP_TARGET (controller);
    }
  return NULL;
}

static gboolean
drop_file (CrWindow   *window,
           const char *path)
{
  GtkDropTarget *target = find_file_drop_target (window);
  g_assert_nonnull (target);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  GValue value = G_VALUE_INIT;
  g_value_init (&value, G_TYPE_FILE);
  g_value_set_object (&value, file);
  gboolean accepted = FALSE;
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  g_value_unset (&value);
  return accepted;
}

static void
test_drop (Fixture       *fixture,
           gconstpointer  data)
{
  const char *other_script = "import torch\nw = torch.ones(2, requires_grad=True)\n";
  g_autofree char *other = g_build_filename (fixture->dir, "other.py", NULL);
  g_assert_true (g_file_set_contents (other, other_script, -1, NULL));

  /* Nothing unsaved: the dropped file opens at once. */
  g_assert_true (drop_file (fixture->window, other));
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_cmpstr (text, ==, other_script);
  g_autofree char *path = g_file_get_path (cr_window_get_file (fixture->window));
  g_assert_cmpstr (path, ==, other);
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture)));
  cr_ui_test_wait_window_idle (fixture->window);

  /* Unsaved changes: it asks first; Cancel keeps everything. */
  edit (fixture);
  g_autofree char *edited = cr_window_get_text (fixture->window);
  g_assert_true (drop_file (fixture->window, fixture->path));
  AdwMessageDialog *prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  g_assert_cmpstr (adw_message_dialog_get_heading (prompt), ==, "Save changes to “other.py”?");
  adw_message_dialog_response (prompt, "cancel");
  g_autofree char *after = cr_window_get_text (fixture->window);
  g_assert_cmpstr (after, ==, edited);
  g_autofree char *still = g_file_get_path (cr_window_get_file (fixture->window));
  g_assert_cmpstr (still, ==, other);

  /* Discard: now it opens. */
  g_assert_true (drop_file (fixture->window, fixture->path));
  prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  adw_message_dialog_response (prompt, "discard");
  g_autofree char *opened = cr_window_get_text (fixture->window);
  g_assert_cmpstr (opened, ==, script);
}

static void
test_drop_not_text (Fixture       *fixture,
                    gconstpointer  data)
{
  /* An image dropped by mistake: an error, and the edited script stays. */
  static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
  g_autofree char *image = g_build_filename (fixture->dir, "x.png", NULL);
  g_assert_true (g_file_set_contents (image, png, sizeof png - 1, NULL));
  edit (fixture);
  g_autofree char *edited = cr_window_get_text (fixture->window);

  g_assert_true (drop_file (fixture->window, image));
  AdwMessageDialog *prompt = find_prompt (fixture->window);
  g_assert_nonnull (prompt);
  adw_message_dialog_response (prompt, "discard");

  g_autofree char *after = cr_window_get_text (fixture->window);
  g_assert_cmpstr (after, ==, edited);
  g_autofree char *path = g_file_get_path (cr_window_get_file (fixture->window));
  g_assert_cmpstr (path, ==, fixture->path);
  g_assert_true (gtk_text_buffer_get_modified (get_buffer (fixture)));
}

int
main (int    argc,
      char **argv)
{
  /* Never the person's settings. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();

#define ADD(path, func) \
  g_test_add ("/ui/window-files/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("actions", test_actions);
  ADD ("confirm/unmodified", test_unmodified_runs_at_once);
  ADD ("confirm/cancel", test_cancel);
  ADD ("confirm/discard", test_discard);
  ADD ("confirm/save", test_save);
  ADD ("save", test_save_action);
  ADD ("new", test_new);
  ADD ("close-waits", test_close_waits);
  ADD ("drop", test_drop);
  ADD ("drop-not-text", test_drop_not_text);
#undef ADD

  return g_test_run ();
}
