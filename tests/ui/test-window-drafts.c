/* test-window-drafts.c — crash-proof editing in the window (under xvfb-run):
 * the text of a named or a new script is autosaved as a draft a moment
 * after an edit and dropped once saved or closed; a process killed with
 * SIGKILL while holding unsaved edits leaves drafts that the next window
 * offers back ("Restore Unsaved Changes?") and restores, or discards; and
 * saving and opening that lose nothing and never block: a save onto a full
 * disk keeps the old file, the text and its unsaved state; a symlinked
 * script stays a symlink with its mode; a named pipe is refused at once,
 * from the open path of the dialog and drops, and from the command line. */
#include "cr-config.h"
#include "ui-test-files.h"
#include "cr-draft-store.h"
#include "cr-window.h"
#include "ui-test-gui.h"
#include "ui-test-tmpfs.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_HOME_ENV "CR_TEST_DRAFTS_STATE_HOME"
#define FIXTURE_DIR_ENV "CR_TEST_DRAFTS_FIXTURE_DIR"

static const char script[] = "import torch\nx = torch.tensor(3.0, requires_grad=True)\n";

typedef struct
{
  char      *dir;
  char      *path;      /* a script in dir */
  CrWindow  *window;
} Fixture;

static char *
drafts_folder (void)
{
  return g_build_filename (g_get_user_state_dir (), "chainrule", "drafts", NULL);
}

/* Removes the drafts that earlier tests' processes left. */
static void
remove_drafts (void)
{
  g_autofree char *folder = drafts_folder ();
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".draft"))
      {
        g_autofree char *path = g_build_filename (folder, name, NULL);
        g_unlink (path);
      }
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  /* A subprocess works in its parent's folder. */
  if (g_test_subprocess ())
    {
      fixture->dir = g_strdup (g_getenv (FIXTURE_DIR_ENV));
      fixture->path = g_build_filename (fixture->dir, "t.py", NULL);
      return;
    }
  g_autoptr (GError) error = NULL;
  fixture->dir = g_dir_make_tmp ("cr-test-window-drafts-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->path = g_build_filename (fixture->dir, "t.py", NULL);
  g_file_set_contents (fixture->path, script, -1, &error);
  g_assert_no_error (error);
  remove_drafts ();
  g_setenv (FIXTURE_DIR_ENV, fixture->dir, TRUE);
}

static void
destroy_window (CrWindow **window)
{
  if (!*window)
    return;
  cr_ui_test_wait_window_idle (*window);
  gtk_window_destroy (GTK_WINDOW (*window));
  g_clear_object (window);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  destroy_window (&fixture->window);
  if (g_test_subprocess ())
    {
      g_free (fixture->path);
      g_free (fixture->dir);
      return;
    }
  g_unsetenv (FIXTURE_DIR_ENV);
  cr_ui_test_remove_tree (fixture->dir);
  g_free (fixture->path);
  g_free (fixture->dir);
}

static GtkTextBuffer *
get_buffer (CrWindow *window)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
}

static CrWindow *
new_window (void)
{
  CrWindow *window = g_object_ref_sink (cr_window_new (NULL));
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static CrWindow *
open_window (const char *path)
{
  CrWindow *window = new_window ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  cr_ui_test_wait_window_idle (window);
  return window;
}

static void
edit (CrWindow   *window,
      const char *line)
{
  GtkTextBuffer *buffer = get_buffer (window);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, line, -1);
  g_assert_true (gtk_text_buffer_get_modified (buffer));
}

/* The drafts on disk, seen from a session of their own: with include_live,
 * this process's too. */
static GPtrArray *
list_drafts (gboolean include_live)
{
  g_autofree char *folder = drafts_folder ();
  g_autoptr (CrDraftStore) observer = cr_draft_store_new (folder);
  return cr_draft_store_list (observer, include_live);
}

typedef struct
{
  guint       count;
  const char *text;   /* when set: the newest draft must hold it */
} DraftsWanted;

static gboolean
drafts_are (gpointer data)
{
  const DraftsWanted *wanted = data;
  g_autoptr (GPtrArray) drafts = list_drafts (TRUE);
  if (drafts->len != wanted->count)
    return FALSE;
  if (!wanted->text)
    return TRUE;
  CrDraft *newest = g_ptr_array_index (drafts, drafts->len - 1);
  return g_str_equal (newest->text, wanted->text);
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Waits (20 s at most) until there are count drafts, the newest holding
 * text (when not NULL). Drafts are written on a thread: the main loop is
 * woken every 50 ms to look. */
static void
wait_for_drafts (guint       count,
                 const char *text)
{
  DraftsWanted wanted = { count, text };
  guint tick = g_timeout_add (50, tick_cb, NULL);
  gboolean holds = cr_ui_test_wait_until (drafts_are, &wanted, 20);
  g_source_remove (tick);
  if (!holds)
    {
      g_autoptr (GPtrArray) drafts = list_drafts (TRUE);
      g_error ("waited for %u drafts, found %u", count, drafts->len);
    }
}

/* The visible message dialog over window, with heading; NULL when none. */
static AdwMessageDialog *
find_dialog (CrWindow   *window,
             const char *heading)
{
  cr_ui_test_iterate ();
  g_autoptr (GList) toplevels = gtk_window_list_toplevels ();
  for (GList *l = toplevels; l; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data)
        && gtk_window_get_transient_for (l->data) == GTK_WINDOW (window)
        && gtk_widget_get_visible (l->data)
        && g_strcmp0 (adw_message_dialog_get_heading (l->data), heading) == 0)
      return l->data;
  return NULL;
}

/* A window other than window (a restored draft's), with a reference. */
static CrWindow *
find_other_window (CrWindow *window)
{
  g_autoptr (GList) toplevels = gtk_window_list_toplevels ();
  for (GList *l = toplevels; l; l = l->next)
    if (CR_IS_WINDOW (l->data) && l->data != (gpointer) window)
      return g_object_ref (l->data);
  return NULL;
}

/* ---- autosave ---- */

static void
test_autosave_named (Fixture       *fixture,
                     gconstpointer  data)
{
  fixture->window = open_window (fixture->path);
  edit (fixture->window, "y = x * x\n");
  g_autofree char *text = cr_window_get_text (fixture->window);
  wait_for_drafts (1, text);
  g_autoptr (GPtrArray) drafts = list_drafts (TRUE);
  CrDraft *draft = g_ptr_array_index (drafts, 0);
  g_autofree char *path = g_file_get_path (draft->file);
  g_assert_cmpstr (path, ==, fixture->path);

  /* Later edits replace it. */
  edit (fixture->window, "y.backward()\n");
  g_autofree char *more = cr_window_get_text (fixture->window);
  wait_for_drafts (1, more);

  /* Saved: no draft. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.save", NULL));
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture->window)));
  wait_for_drafts (0, NULL);
}

static void
test_autosave_untitled_close (Fixture       *fixture,
                              gconstpointer  data)
{
  fixture->window = new_window ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.new", NULL));
  edit (fixture->window, "z = 1\n");
  g_autofree char *text = cr_window_get_text (fixture->window);
  wait_for_drafts (1, text);
  g_autoptr (GPtrArray) drafts = list_drafts (TRUE);
  g_assert_null (((CrDraft *) g_ptr_array_index (drafts, 0))->file);

  /* Closed (the person let the changes go): the draft is gone at once. */
  destroy_window (&fixture->window);
  g_autoptr (GPtrArray) after = list_drafts (TRUE);
  g_assert_cmpuint (after->len, ==, 0);
}

/* ---- kill -9, then the next start ---- */

static const char named_edit[] = "y = x * x  # unsaved, then killed\n";
static const char untitled_edit[] = "w = 2  # a new script, unsaved\n";

/* In the subprocess: unsaved edits in a named and a new script, autosaved,
 * then SIGKILL, as a crash or the OOM killer would end it. */
static void
edit_then_die (Fixture *fixture,
               gboolean with_untitled)
{
  CrWindow *named = open_window (fixture->path);
  edit (named, named_edit);
  g_autofree char *named_text = cr_window_get_text (named);
  wait_for_drafts (1, named_text);
  if (with_untitled)
    {
      CrWindow *untitled = new_window ();
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (untitled), "win.new", NULL));
      edit (untitled, untitled_edit);
      g_autofree char *untitled_text = cr_window_get_text (untitled);
      wait_for_drafts (2, untitled_text);
    }
  kill (getpid (), SIGKILL);
}

/* Runs edit_then_die in a subprocess and checks it died with its drafts. */
static void
killed_with_drafts (guint count)
{
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_autoptr (GPtrArray) orphans = list_drafts (FALSE);
  g_assert_cmpuint (orphans->len, ==, count);
}

static void
test_restore_after_kill (Fixture       *fixture,
                         gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      edit_then_die (fixture, TRUE);
      return;
    }
  killed_with_drafts (2);

  /* The next start: a window on the gallery, as `chainrule` opens. */
  fixture->window = new_window ();
  cr_window_offer_drafts (fixture->window);
  AdwMessageDialog *prompt = find_dialog (fixture->window, "Restore Unsaved Changes?");
  g_assert_nonnull (prompt);
  const char *body = adw_message_dialog_get_body (prompt);
  g_assert_nonnull (strstr (body, "“t.py”"));
  g_assert_nonnull (strstr (body, "a new script"));
  g_assert_cmpint (adw_message_dialog_get_response_appearance (prompt, "restore"), ==,
                   ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_response (prompt, "restore");

  /* The named script's text in this window, unsaved; the file untouched. */
  g_autofree char *expected = g_strconcat (script, named_edit, NULL);
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_cmpstr (text, ==, expected);
  g_assert_true (gtk_text_buffer_get_modified (get_buffer (fixture->window)));
  g_autofree char *path = g_file_get_path (cr_window_get_file (fixture->window));
  g_assert_cmpstr (path, ==, fixture->path);
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, script);

  /* The new script in a window of its own. */
  g_autoptr (CrWindow) other = find_other_window (fixture->window);
  g_assert_nonnull (other);
  g_autofree char *other_text = cr_window_get_text (other);
  g_assert_true (g_str_has_suffix (other_text, untitled_edit));
  g_assert_null (cr_window_get_file (other));
  g_assert_true (gtk_text_buffer_get_modified (get_buffer (other)));

  /* The old drafts are gone; the windows hold drafts of their own. */
  cr_draft_store_flush (cr_draft_store_get_default ());
  g_autoptr (GPtrArray) orphans = list_drafts (FALSE);
  g_assert_cmpuint (orphans->len, ==, 0);
  g_autoptr (GPtrArray) own = list_drafts (TRUE);
  g_assert_cmpuint (own->len, ==, 2);

  /* Saving the restored text works as ever. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.save", NULL));
  g_autofree char *saved = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &saved, NULL, NULL));
  g_assert_cmpstr (saved, ==, expected);
  gtk_window_destroy (GTK_WINDOW (other));
}

static void
test_discard_after_kill (Fixture       *fixture,
                         gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      edit_then_die (fixture, FALSE);
      return;
    }
  killed_with_drafts (1);

  fixture->window = open_window (fixture->path);
  cr_window_offer_drafts (fixture->window);
  AdwMessageDialog *prompt = find_dialog (fixture->window, "Restore Unsaved Changes?");
  g_assert_nonnull (prompt);
  adw_message_dialog_response (prompt, "discard");
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_cmpstr (text, ==, script);
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture->window)));
  cr_draft_store_flush (cr_draft_store_get_default ());
  g_autoptr (GPtrArray) orphans = list_drafts (TRUE);
  g_assert_cmpuint (orphans->len, ==, 0);
}

/* Escape decides nothing: the draft is offered again at the next start. */
static void
test_later_after_kill (Fixture       *fixture,
                       gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      edit_then_die (fixture, FALSE);
      return;
    }
  killed_with_drafts (1);

  fixture->window = new_window ();
  cr_window_offer_drafts (fixture->window);
  AdwMessageDialog *prompt = find_dialog (fixture->window, "Restore Unsaved Changes?");
  g_assert_nonnull (prompt);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (prompt), "“t.py” (last edited today at "));
  adw_message_dialog_response (prompt, adw_message_dialog_get_close_response (prompt));
  g_assert_null (cr_window_get_file (fixture->window));
  cr_draft_store_flush (cr_draft_store_get_default ());
  g_autoptr (GPtrArray) orphans = list_drafts (FALSE);
  g_assert_cmpuint (orphans->len, ==, 1);
}

static void
test_nothing_to_restore (Fixture       *fixture,
                         gconstpointer  data)
{
  fixture->window = new_window ();
  cr_window_offer_drafts (fixture->window);
  g_assert_null (find_dialog (fixture->window, "Restore Unsaved Changes?"));
}

/* ---- saving and opening ---- */

/* A full disk (a 64 kB tmpfs): the save fails with a dialog, and the file,
 * the text and its unsaved state are all kept. */
static void
test_save_full_disk (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *dir = cr_ui_test_tmpfs_dir ();
  if (!dir)
    {
      cr_ui_test_run_in_tmpfs ("size=64k");
      return;
    }
  g_autofree char *path = g_build_filename (dir, "t.py", NULL);
  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  fixture->window = open_window (path);

  GString *text = g_string_new (NULL);
  while (text->len < 200 * 1024)
    g_string_append (text, "# a long comment that will not fit on this small disk\n");
  g_autofree char *long_text = g_string_free (text, FALSE);
  edit (fixture->window, long_text);
  g_autofree char *edited = cr_window_get_text (fixture->window);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.save", NULL));
  AdwMessageDialog *error = find_dialog (fixture->window, "Could Not Save the Script");
  g_assert_nonnull (error);
  const char *body = adw_message_dialog_get_body (error);
  g_assert_nonnull (strstr (body, "“t.py” could not be saved: No space left on device"));
  g_assert_nonnull (strstr (body, "The file on disk was not changed."));
  adw_message_dialog_response (error, "close");

  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, script);
  g_autofree char *after = cr_window_get_text (fixture->window);
  g_assert_true (g_str_equal (after, edited));
  g_assert_true (gtk_text_buffer_get_modified (get_buffer (fixture->window)));
  /* No temporary file left on the full disk. */
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "t.py");
  g_assert_null (g_dir_read_name (listing));
}

static void
test_save_symlink_mode (Fixture       *fixture,
                        gconstpointer  data)
{
  g_assert_cmpint (g_chmod (fixture->path, 0640), ==, 0);
  g_autofree char *link = g_build_filename (fixture->dir, "link.py", NULL);
  g_assert_cmpint (symlink ("t.py", link), ==, 0);
  fixture->window = open_window (link);
  edit (fixture->window, "y = x * 2\n");
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.save", NULL));
  g_assert_false (gtk_text_buffer_get_modified (get_buffer (fixture->window)));

  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_autofree char *on_disk = NULL;
  g_assert_true (g_file_get_contents (fixture->path, &on_disk, NULL, NULL));
  g_assert_cmpstr (on_disk, ==, text);
  GStatBuf st;
  g_assert_cmpint (g_stat (fixture->path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);
}

/* The window's file drop target: the path of the Open dialog's answer too
 * (both ask about unsaved changes, then open). */
static void
drop_file (CrWindow   *window,
           const char *path)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (!GTK_IS_DROP_TARGET (controller))
        continue;
      g_autoptr (GFile) file = g_file_new_for_path (path);
      GValue value = G_VALUE_INIT;
      g_value_init (&value, G_TYPE_FILE);
      g_value_set_object (&value, file);
      gboolean accepted = FALSE;
      g_signal_emit_by_name (controller, "drop", &value, 10.0, 10.0, &accepted);
      g_value_unset (&value);
      g_assert_true (accepted);
      return;
    }
  g_assert_not_reached ();
}

static void
test_open_fifo (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *pipe = g_build_filename (fixture->dir, "pipe.py", NULL);
  if (!g_test_subprocess ())
    {
      /* A read that blocks would hang: the subprocess is killed then. */
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  g_assert_cmpint (mkfifo (pipe, 0600), ==, 0);
  fixture->window = open_window (fixture->path);

  g_autoptr (GFile) file = g_file_new_for_path (pipe);
  g_autoptr (GError) error = NULL;
  g_assert_false (cr_window_open_file (fixture->window, file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpstr (error->message, ==, "“pipe.py” is a named pipe, not a script");

  drop_file (fixture->window, pipe);
  g_autofree char *text = cr_window_get_text (fixture->window);
  g_assert_cmpstr (text, ==, script);
  g_autofree char *path = g_file_get_path (cr_window_get_file (fixture->window));
  g_assert_cmpstr (path, ==, fixture->path);
}

/* `chainrule PIPE`: the app says why and opens on the gallery rather than
 * hanging before its window shows. */
static void
test_open_fifo_command_line (Fixture       *fixture,
                             gconstpointer  data)
{
  const char *chainrule = g_getenv ("CR_TEST_CHAINRULE");
  if (!chainrule)
    {
      g_test_skip ("CR_TEST_CHAINRULE (the app's path) is not set");
      return;
    }
  g_autofree char *pipe = g_build_filename (fixture->dir, "pipe.py", NULL);
  g_assert_cmpint (mkfifo (pipe, 0600), ==, 0);
  g_autoptr (GError) error = NULL;
  /* A blocked app prints nothing: timeout(1) kills it, which ends the read. */
  g_autoptr (GSubprocess) app = g_subprocess_new (G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                                  "timeout", "-s", "KILL", "60",
                                                  chainrule, pipe, NULL);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) stderr_lines =
    g_data_input_stream_new (g_subprocess_get_stderr_pipe (app));
  g_autofree char *line = NULL;
  while ((line = g_data_input_stream_read_line_utf8 (stderr_lines, NULL, NULL, NULL)))
    {
      if (strstr (line, "is a named pipe"))
        break;
      g_clear_pointer (&line, g_free);
    }
  g_subprocess_force_exit (app);
  g_subprocess_wait (app, NULL, NULL);
  g_assert_cmpstr (line, ==, "chainrule: “pipe.py” is a named pipe, not a script");
}


int
main (int    argc,
      char **argv)
{
  /* Never the person's settings or drafts. The state folder is this run's,
   * and the subprocesses (the killed ones, the tmpfs ones) share it. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_autofree char *own_state_home = NULL;
  if (!g_getenv (STATE_HOME_ENV))
    {
      own_state_home = g_dir_make_tmp ("cr-test-state-XXXXXX", NULL);
      g_assert_nonnull (own_state_home);
      g_setenv (STATE_HOME_ENV, own_state_home, TRUE);
    }
  g_setenv ("XDG_STATE_HOME", g_getenv (STATE_HOME_ENV), TRUE);
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();

#define ADD(path, func) \
  g_test_add ("/ui/window-drafts/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("autosave/named", test_autosave_named);
  ADD ("autosave/untitled-close", test_autosave_untitled_close);
  ADD ("kill/restore", test_restore_after_kill);
  ADD ("kill/discard", test_discard_after_kill);
  ADD ("kill/later", test_later_after_kill);
  ADD ("kill/nothing", test_nothing_to_restore);
  ADD ("save/full-disk", test_save_full_disk);
  ADD ("save/symlink-mode", test_save_symlink_mode);
  ADD ("open/fifo", test_open_fifo);
  ADD ("open/fifo-command-line", test_open_fifo_command_line);
#undef ADD

  int status = g_test_run ();
  if (own_state_home)
    cr_ui_test_remove_tree (own_state_home);
  return status;
}
