/* cr-window-files.c — everything the window does with files: New, Open,
 * Save, Save As and Export (the win.* actions and their shortcuts), a .py
 * file dropped onto the window, the unsaved-changes prompt before a close or
 * an open, the settings that outlive the window (its size, the last file),
 * and crash-proof editing: the editor's text autosaved as a draft a moment
 * after each edit (cr-draft-store.c) and offered back at the next start. The window's state here lives in a FilesState attached to it, so the
 * window's own struct stays the window owner's. Everything works without
 * GSettings (cr_settings_new () may give NULL): nothing is remembered then. */
#include "cr-config.h"
#include "cr-window.h"

#include "cr-draft-store.h"
#include "cr-examples.h"
#include "cr-notebook.h"
#include "cr-script-file.h"
#include "cr-settings.h"

#include <string.h>

#define STATE_KEY "cr-window-files-state"

/* A draft is written this long after the last edit, and at most
 * AUTOSAVE_MAX_DELAY_MS after the first edit it does not hold yet, so that
 * typing without a pause is saved too. */
#define AUTOSAVE_DELAY_MS 1000
#define AUTOSAVE_MAX_DELAY_MS 5000

/* What Ctrl+N starts from: a small graph that runs and has a backward pass
 * to step through at once. */
static const char new_script_template[] =
  "import torch\n"
  "\n"
  "# A new script: build a graph from tensors\n"
  "# that require grad, call backward(), then\n"
  "# step through it node by node.\n"
  "x = torch.tensor(2.0, requires_grad=True)\n"
  "w = torch.tensor(-0.5, requires_grad=True)\n"
  "b = torch.tensor(0.5, requires_grad=True)\n"
  "\n"
  "y = torch.tanh(w * x + b)\n"
  "y.backward()\n"
  "\n"
  "print(x.grad, w.grad, b.grad)\n";

typedef void (*ThenFunc) (CrWindow *self,
                          gpointer  user_data);

typedef struct
{
  GSettings *settings;      /* owned; NULL without the schema */
  GFile     *pending_open;  /* owned: the file to open once the person agreed */
  gboolean   close_confirmed;

  /* Autosave */
  CrDraftStore *drafts;     /* borrowed: the process's store */
  char      *draft_id;      /* owned: this window's draft */
  guint      autosave_id;   /* the pending draft write */
  gint64     first_edit_us; /* the first edit no draft holds yet; 0: none */
  gboolean   draft_written; /* a draft was asked for and not removed since */
} FilesState;

/* A continuation waiting on a dialog: run then (self, user_data) when it
 * succeeds. */
typedef struct
{
  CrWindow *self;           /* owned */
  ThenFunc  then;           /* NULL: nothing to do after */
  gpointer  user_data;
} Pending;

static void
files_state_free (gpointer data)
{
  FilesState *state = data;
  g_clear_object (&state->settings);
  g_clear_object (&state->pending_open);
  g_clear_handle_id (&state->autosave_id, g_source_remove);
  g_free (state->draft_id);
  g_free (state);
}

static FilesState *
get_state (CrWindow *self)
{
  return g_object_get_data (G_OBJECT (self), STATE_KEY);
}

static Pending *
pending_new (CrWindow *self,
             ThenFunc  then,
             gpointer  user_data)
{
  Pending *pending = g_new0 (Pending, 1);
  pending->self = g_object_ref (self);
  pending->then = then;
  pending->user_data = user_data;
  return pending;
}

static void
pending_free (Pending *pending)
{
  g_clear_object (&pending->self);
  g_free (pending);
}

static void
pending_run_and_free (Pending *pending)
{
  if (pending->then)
    pending->then (pending->self, pending->user_data);
  pending_free (pending);
}

static GtkTextBuffer *
get_buffer (CrWindow *self)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (self)));
}

/* The name of the script for a person: “x.py”'s display name, or “New
 * Script” (as in the window's title) for a script without a file. */
static char *
script_display_name (CrWindow *self)
{
  GFile *file = cr_window_get_file (self);
  if (!file)
    return g_strdup ("New Script");
  g_autofree char *base = g_file_get_basename (file);
  return base ? g_filename_display_name (base) : g_file_get_parse_name (file);
}

/* An error that needs the person's attention (a failed save): a dialog. */
static void
show_error_dialog (CrWindow   *self,
                   const char *heading,
                   const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", "_Close");
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The file whose folder the file choosers start in: the current file, else
 * the last one opened or saved. NULL when neither. */
static GFile *
dup_recent_file (CrWindow *self)
{
  GFile *file = cr_window_get_file (self);
  if (file)
    return g_object_ref (file);

  FilesState *state = get_state (self);
  if (!state->settings)
    return NULL;
  g_autofree char *uri = g_settings_get_string (state->settings, "last-file");
  if (!uri || !*uri)
    return NULL;
  return g_file_new_for_uri (uri);
}

static void
remember_file (CrWindow *self,
               GFile    *file)
{
  FilesState *state = get_state (self);
  if (!state->settings)
    return;
  g_autofree char *uri = g_file_get_uri (file);
  g_settings_set_string (state->settings, "last-file", uri);
}

static void
set_chooser_folder (GtkFileChooser *chooser,
                    GFile          *near)
{
  if (!near)
    return;
  g_autoptr (GFile) folder = g_file_get_parent (near);
  /* A folder that is gone is no reason to fail: the chooser starts where
   * it likes instead. */
  if (folder && g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    gtk_file_chooser_set_current_folder (chooser, folder, NULL);
}

static void
add_filter (GtkFileChooser *chooser,
            const char     *name,
            const char     *pattern,
            const char     *mime_type)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_pattern (filter, pattern);
  if (mime_type)
    gtk_file_filter_add_mime_type (filter, mime_type);
  gtk_file_chooser_add_filter (chooser, filter);
}

static void
add_script_filters (GtkFileChooser *chooser)
{
  add_filter (chooser, "Python scripts", "*.py", "text/x-python");
  add_filter (chooser, "All files", "*", NULL);
}

/* Open also offers notebooks, with scripts by default. */
static void
add_open_filters (GtkFileChooser *chooser)
{
  g_autoptr (GtkFileFilter) both = gtk_file_filter_new ();
  gtk_file_filter_set_name (both, "Python scripts and Jupyter notebooks");
  gtk_file_filter_add_pattern (both, "*.py");
  gtk_file_filter_add_mime_type (both, "text/x-python");
  gtk_file_filter_add_pattern (both, "*.ipynb");
  gtk_file_chooser_add_filter (chooser, both);
  add_filter (chooser, "Python scripts", "*.py", "text/x-python");
  add_filter (chooser, "Jupyter notebooks", "*.ipynb", "application/x-ipynb+json");
  add_filter (chooser, "All files", "*", NULL);
}

/* Whether file is a notebook: the window shows it as a script with cell
 * markers, so saving writes a new .py rather than over the notebook. */
static gboolean
is_notebook (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);
  return cr_notebook_is_path (base);
}

/* Examples are templates to learn from: Save on one asks for a new file
 * rather than writing into the installed (or source) examples. */
static gboolean
is_example (GFile *file)
{
  g_autoptr (GFile) examples = g_file_new_for_path (cr_examples_dir ());
  return g_file_has_prefix (file, examples);
}

/* ------------------------------------------------------------------------ */
/* Opening */

/* Opens file; an error is shown and leaves the editor as it was. */
static gboolean
open_now (CrWindow *self,
          GFile    *file)
{
  g_autoptr (GError) error = NULL;
  if (!cr_window_open_file (self, file, &error))
    {
      cr_window_toast (self, error->message);
      return FALSE;
    }
  cr_window_show_gallery (self, FALSE);
  remember_file (self, file);
  return TRUE;
}

static void
open_pending_then (CrWindow *self,
                   gpointer  user_data)
{
  FilesState *state = get_state (self);
  g_autoptr (GFile) file = g_steal_pointer (&state->pending_open);
  if (file)
    open_now (self, file);
}

/* Opens file once the person agreed to lose unsaved changes. The file waits
 * in the state rather than in the continuation, which Cancel never runs. */
static void
open_after_confirm (CrWindow *self,
                    GFile    *file)
{
  FilesState *state = get_state (self);
  g_set_object (&state->pending_open, file);
  cr_window_confirm_discard (self, G_CALLBACK (open_pending_then), NULL);
}

static void
open_response_cb (GtkNativeDialog *native,
                  int              response,
                  gpointer         user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      if (file)
        open_after_confirm (self, file);
    }
  g_object_unref (native);
  g_object_unref (self);
}

static void
open_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Open Script or Notebook", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  add_open_filters (GTK_FILE_CHOOSER (native));
  g_autoptr (GFile) near = dup_recent_file (self);
  if (near && !is_example (near))
    set_chooser_folder (GTK_FILE_CHOOSER (native), near);
  g_signal_connect (native, "response", G_CALLBACK (open_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ------------------------------------------------------------------------ */
/* New */

/* Shows the script editor when it is one page of a stack (the window's
 * expression mode is another). */
static void
show_script_editor (CrWindow *self)
{
  GtkWidget *view = GTK_WIDGET (cr_window_get_source_view (self));
  GtkWidget *stack = gtk_widget_get_ancestor (view, GTK_TYPE_STACK);
  if (!stack)
    return;
  for (GtkWidget *page = view; page; page = gtk_widget_get_parent (page))
    if (gtk_widget_get_parent (page) == stack)
      {
        gtk_stack_set_visible_child (GTK_STACK (stack), page);
        return;
      }
}

static void
new_then (CrWindow *self,
          gpointer  user_data)
{
  GtkTextBuffer *buffer = get_buffer (self);
  /* Undo must not bring back the previous script's text. */
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, new_script_template, -1);
  gtk_text_buffer_end_irreversible_action (buffer);
  GtkTextIter start;
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  cr_window_set_file (self, NULL);
  /* The template is not the person's work: closing it asks nothing. */
  gtk_text_buffer_set_modified (buffer, FALSE);
  show_script_editor (self);
  cr_window_show_gallery (self, FALSE);
}

static void
new_action (GSimpleAction *action,
            GVariant      *parameter,
            gpointer       user_data)
{
  cr_window_confirm_discard (CR_WINDOW (user_data), G_CALLBACK (new_then), NULL);
}

/* ------------------------------------------------------------------------ */
/* Autosave */

/* Drops this window's draft: its text is saved, or was let go. */
static void
remove_draft (CrWindow *self)
{
  FilesState *state = get_state (self);
  g_clear_handle_id (&state->autosave_id, g_source_remove);
  state->first_edit_us = 0;
  if (state->draft_written)
    cr_draft_store_remove (state->drafts, state->draft_id);
  state->draft_written = FALSE;
}

/* Writes the editor's text as this window's draft now (on the store's
 * thread), or drops the draft when nothing is unsaved. */
static void
write_draft (CrWindow *self)
{
  FilesState *state = get_state (self);
  if (!gtk_text_buffer_get_modified (get_buffer (self)))
    {
      remove_draft (self);
      return;
    }
  g_clear_handle_id (&state->autosave_id, g_source_remove);
  state->first_edit_us = 0;
  g_autofree char *text = cr_window_get_text (self);
  cr_draft_store_save (state->drafts, state->draft_id, cr_window_get_file (self), text);
  state->draft_written = TRUE;
}

static gboolean
autosave_cb (gpointer user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  get_state (self)->autosave_id = 0;
  write_draft (self);
  return G_SOURCE_REMOVE;
}

static void
buffer_changed_cb (GtkTextBuffer *buffer,
                   CrWindow      *self)
{
  FilesState *state = get_state (self);
  gint64 now = g_get_monotonic_time ();
  if (state->first_edit_us == 0)
    state->first_edit_us = now;
  gint64 waited_ms = (now - state->first_edit_us) / 1000;
  guint delay = (guint) CLAMP (AUTOSAVE_MAX_DELAY_MS - waited_ms, 0, AUTOSAVE_DELAY_MS);
  g_clear_handle_id (&state->autosave_id, g_source_remove);
  state->autosave_id = g_timeout_add (delay, autosave_cb, self);
}

/* Saved, opened, or a new script: no unsaved text, so no draft. */
static void
buffer_modified_changed_cb (GtkTextBuffer *buffer,
                            CrWindow      *self)
{
  if (!gtk_text_buffer_get_modified (buffer))
    remove_draft (self);
}

/* The window goes only once its changes were saved or let go (the prompt
 * asked): its draft goes too, and is gone from the disk before the process
 * can end. A crash or a kill never gets here, which leaves the draft. */
static void
destroy_cb (CrWindow *self,
            gpointer  user_data)
{
  FilesState *state = get_state (self);
  remove_draft (self);
  cr_draft_store_flush (state->drafts);
}

/* ------------------------------------------------------------------------ */
/* Restoring drafts */

/* A window that holds nothing unsaved, with no file or draft's file. */
static gboolean
window_can_take (CrWindow *window,
                 CrDraft  *draft)
{
  if (gtk_text_buffer_get_modified (get_buffer (window)))
    return FALSE;
  GFile *file = cr_window_get_file (window);
  return file == NULL || (draft->file && g_file_equal (file, draft->file));
}

/* Puts draft's text in window, unsaved, and writes it as window's own draft
 * at once, so the text is on disk again before the old draft is removed. */
static void
restore_draft (CrWindow *window,
               CrDraft  *draft)
{
  GtkTextBuffer *buffer = get_buffer (window);
  gboolean from_disk = FALSE;
  if (draft->file)
    {
      /* The file as saved first, so that Undo goes back to it. A file that
       * is gone (or unreadable) is still the one Save writes to. */
      from_disk = cr_window_open_file (window, draft->file, NULL);
      if (!from_disk)
        cr_window_set_file (window, draft->file);
    }
  else
    {
      cr_window_set_file (window, NULL);
    }

  if (from_disk)
    {
      /* One edit to undo (set_text would be irreversible). */
      GtkTextIter start, end;
      gtk_text_buffer_begin_user_action (buffer);
      gtk_text_buffer_get_bounds (buffer, &start, &end);
      gtk_text_buffer_delete (buffer, &start, &end);
      gtk_text_buffer_insert (buffer, &start, draft->text, -1);
      gtk_text_buffer_end_user_action (buffer);
    }
  else
    {
      gtk_text_buffer_set_text (buffer, draft->text, -1);
    }
  gtk_text_buffer_set_modified (buffer, TRUE);
  show_script_editor (window);
  cr_window_show_gallery (window, FALSE);
  write_draft (window);
}

static void
restore_response_cb (AdwMessageDialog *dialog,
                     const char       *response,
                     gpointer          user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  GPtrArray *drafts = g_object_get_data (G_OBJECT (dialog), "drafts");
  CrDraftStore *store = get_state (self)->drafts;
  gboolean restore = g_str_equal (response, "restore");

  /* Escape decides nothing: the drafts wait for the next start. */
  if (!restore && !g_str_equal (response, "discard"))
    return;

  for (guint i = 0; i < drafts->len; i++)
    {
      CrDraft *draft = g_ptr_array_index (drafts, i);
      if (restore)
        {
          CrWindow *window = self;
          if (i > 0 || !window_can_take (self, draft))
            {
              window = cr_window_new (gtk_window_get_application (GTK_WINDOW (self)));
              gtk_window_present (GTK_WINDOW (window));
            }
          restore_draft (window, draft);
        }
      cr_draft_store_remove (store, draft->id);
    }
}

/* “t.py”, or “a new script”, for the prompt. */
static char *
draft_display_name (CrDraft *draft)
{
  if (!draft->file)
    return g_strdup ("a new script");
  g_autofree char *base = g_file_get_basename (draft->file);
  g_autofree char *name = base ? g_filename_display_name (base) : g_file_get_parse_name (draft->file);
  return g_strdup_printf ("“%s”", name);
}

/* "“t.py” (last edited today at 14:32)", "“t.py”, a new script and “u.py”". */
static char *
describe_drafts (GPtrArray *drafts)
{
  GString *names = g_string_new (NULL);
  for (guint i = 0; i < drafts->len; i++)
    {
      g_autofree char *name = draft_display_name (g_ptr_array_index (drafts, i));
      if (i > 0)
        g_string_append (names, i + 1 == drafts->len ? " and " : ", ");
      g_string_append (names, name);
    }
  if (drafts->len == 1)
    {
      CrDraft *draft = g_ptr_array_index (drafts, 0);
      g_autoptr (GDateTime) now = g_date_time_new_now_local ();
      gboolean today = g_date_time_get_year (now) == g_date_time_get_year (draft->saved_at)
                       && g_date_time_get_day_of_year (now) == g_date_time_get_day_of_year (draft->saved_at);
      g_autofree char *when = g_date_time_format (draft->saved_at, today ? "today at %H:%M" : "on %-d %B at %H:%M");
      g_string_append_printf (names, " (last edited %s)", when);
    }
  return g_string_free (names, FALSE);
}

void
cr_window_offer_drafts (CrWindow *self)
{
  g_return_if_fail (CR_IS_WINDOW (self));

  FilesState *state = get_state (self);
  GPtrArray *drafts = cr_draft_store_list (state->drafts, FALSE);
  if (drafts->len == 0)
    {
      g_ptr_array_unref (drafts);
      return;
    }

  g_autofree char *names = describe_drafts (drafts);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), "Restore Unsaved Changes?", NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  "Chainrule closed before the changes to %s were saved. "
                                  "Restore them?%s", names,
                                  drafts->len > 1 ? " Each opens in a window of its own." : "");
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "discard", "_Discard",
                                    "restore", "_Restore",
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "restore",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "restore");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "later");
  g_object_set_data_full (G_OBJECT (dialog), "drafts", drafts, (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (restore_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------------ */
/* Saving */

static gboolean
save_to (CrWindow *self,
         GFile    *file)
{
  g_autofree char *text = cr_window_get_text (self);
  g_autoptr (GError) error = NULL;
  if (!cr_script_file_save (file, text, &error))
    {
      show_error_dialog (self, "Could Not Save the Script", error->message);
      return FALSE;
    }
  if (file != cr_window_get_file (self))
    cr_window_set_file (self, file);
  gtk_text_buffer_set_modified (get_buffer (self), FALSE);
  remember_file (self, file);
  return TRUE;
}

static void
save_as_response_cb (GtkNativeDialog *native,
                     int              response,
                     gpointer         user_data)
{
  Pending *pending = user_data;
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  g_object_unref (native);

  if (file && save_to (pending->self, file))
    pending_run_and_free (pending);
  else
    pending_free (pending);
}

/* Asks where to save, saves, then runs pending's continuation (only when
 * the save worked). Takes pending. */
static void
save_as (CrWindow *self,
         Pending  *pending)
{
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Save Script", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  add_script_filters (chooser);

  GFile *file = cr_window_get_file (self);
  g_autoptr (GFile) near = dup_recent_file (self);
  if (near && !is_example (near))
    set_chooser_folder (chooser, near);
  g_autofree char *base = file ? g_file_get_basename (file) : NULL;
  /* A notebook's script is saved beside it as NAME.py. */
  if (base && cr_notebook_is_path (base))
    {
      g_autofree char *stem = g_strndup (base, strlen (base) - strlen (".ipynb"));
      g_free (base);
      base = g_strconcat (stem, ".py", NULL);
    }
  g_autofree char *name = base ? g_filename_display_name (base) : g_strdup ("untitled.py");
  gtk_file_chooser_set_current_name (chooser, name);

  g_signal_connect (native, "response", G_CALLBACK (save_as_response_cb), pending);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* Saves in place when there is a file to save to, else asks. Takes pending. */
static void
save (CrWindow *self,
      Pending  *pending)
{
  GFile *file = cr_window_get_file (self);
  if (!file || is_example (file) || is_notebook (file))
    {
      save_as (self, pending);
      return;
    }
  if (save_to (self, file))
    pending_run_and_free (pending);
  else
    pending_free (pending);
}

static void
save_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  save (self, pending_new (self, NULL, NULL));
}

static void
save_as_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  save_as (self, pending_new (self, NULL, NULL));
}

/* ------------------------------------------------------------------------ */
/* Export */

static const struct
{
  const char *name;
  const char *extension;
} export_formats[] = {
  { "PNG image", ".png" },
  { "SVG image", ".svg" },
  { "PDF document", ".pdf" },
};

static gboolean
has_export_extension (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  for (guint i = 0; i < G_N_ELEMENTS (export_formats); i++)
    if (g_str_has_suffix (lower, export_formats[i].extension))
      return TRUE;
  return FALSE;
}

static void
export_response_cb (GtkNativeDialog *native,
                    int              response,
                    gpointer         user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (chooser);
  g_autofree char *path = file ? g_file_get_path (file) : NULL;

  if (file && !path)
    {
      show_error_dialog (self, "Could Not Export the Graph",
                         "The graph can only be exported to a local file.");
    }
  else if (path)
    {
      /* A name typed without an extension gets the one of the format
       * picked in the filter list (PNG by default). */
      if (!has_export_extension (path))
        {
          const char *extension = export_formats[0].extension;
          GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
          const char *filter_name = filter ? gtk_file_filter_get_name (filter) : NULL;
          for (guint i = 0; filter_name && i < G_N_ELEMENTS (export_formats); i++)
            if (g_str_equal (filter_name, export_formats[i].name))
              extension = export_formats[i].extension;
          char *with_extension = g_strconcat (path, extension, NULL);
          g_free (path);
          path = with_extension;
        }

      g_autoptr (GError) error = NULL;
      if (cr_graph_canvas_export (cr_window_get_canvas (self), path, &error))
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *display = g_filename_display_name (base);
          g_autofree char *message = g_strdup_printf ("Exported the graph to “%s”", display);
          cr_window_toast (self, message);
        }
      else
        {
          show_error_dialog (self, "Could Not Export the Graph", error->message);
        }
    }
  g_object_unref (native);
  g_object_unref (self);
}

static void
export_graph_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  if (!cr_graph_canvas_get_model (cr_window_get_canvas (self)))
    {
      cr_window_toast (self, "There is no graph to export yet");
      return;
    }

  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Export Graph", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (export_formats); i++)
    {
      g_autofree char *pattern = g_strconcat ("*", export_formats[i].extension, NULL);
      add_filter (chooser, export_formats[i].name, pattern, NULL);
    }

  /* "toy-network.png" beside the script (examples: in the last folder). */
  GFile *file = cr_window_get_file (self);
  g_autoptr (GFile) near = dup_recent_file (self);
  if (near && !is_example (near))
    set_chooser_folder (chooser, near);
  g_autofree char *base = file ? g_file_get_basename (file) : g_strdup ("graph.py");
  g_autofree char *display = g_filename_display_name (base);
  char *dot = strrchr (display, '.');
  if (dot && dot != display)
    *dot = '\0';
  g_autofree char *name = g_strconcat (display, export_formats[0].extension, NULL);
  gtk_file_chooser_set_current_name (chooser, name);

  g_signal_connect (native, "response", G_CALLBACK (export_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ------------------------------------------------------------------------ */
/* The unsaved-changes prompt */

static void
discard_response_cb (AdwMessageDialog *dialog,
                     const char       *response,
                     gpointer          user_data)
{
  Pending *pending = user_data;

  if (g_str_equal (response, "discard"))
    pending_run_and_free (pending);
  else if (g_str_equal (response, "save"))
    save (pending->self, pending);
  else
    pending_free (pending);
}

void
cr_window_confirm_discard (CrWindow  *self,
                           GCallback  then,
                           gpointer   user_data)
{
  g_return_if_fail (CR_IS_WINDOW (self));

  Pending *pending = pending_new (self, (ThenFunc) then, user_data);
  if (!gtk_text_buffer_get_modified (get_buffer (self)))
    {
      pending_run_and_free (pending);
      return;
    }

  g_autofree char *name = script_display_name (self);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), NULL,
                                              "Unsaved changes will be lost if you don’t save them.");
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), "Save changes to “%s”?", name);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", "_Cancel",
                                    "discard", "_Discard",
                                    "save", "_Save",
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (discard_response_cb), pending);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------------ */
/* Closing, window size */

static void
save_window_state (CrWindow *self)
{
  FilesState *state = get_state (self);
  if (!state->settings)
    return;

  gboolean maximized = gtk_window_is_maximized (GTK_WINDOW (self));
  g_settings_set_boolean (state->settings, "window-maximized", maximized);
  /* A maximized window's default size is still its unmaximized one. */
  int width = 0, height = 0;
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  if (width > 0 && height > 0)
    {
      g_settings_set_int (state->settings, "window-width", width);
      g_settings_set_int (state->settings, "window-height", height);
    }
}

static void
restore_window_state (CrWindow *self)
{
  FilesState *state = get_state (self);
  if (!state->settings)
    return;

  int width = g_settings_get_int (state->settings, "window-width");
  int height = g_settings_get_int (state->settings, "window-height");
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (state->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static void
close_then (CrWindow *self,
            gpointer  user_data)
{
  get_state (self)->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static gboolean
close_request_cb (GtkWindow *window,
                  gpointer   user_data)
{
  CrWindow *self = CR_WINDOW (window);
  FilesState *state = get_state (self);

  if (state->close_confirmed || !gtk_text_buffer_get_modified (get_buffer (self)))
    {
      save_window_state (self);
      return FALSE;
    }
  cr_window_confirm_discard (self, G_CALLBACK (close_then), NULL);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Drag and drop */

static gboolean
drop_cb (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  GFile *file = g_value_get_object (value);
  if (!file)
    return FALSE;
  open_after_confirm (self, file);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Installing */

static const GActionEntry file_actions[] = {
  { .name = "new", .activate = new_action },
  { .name = "open", .activate = open_action },
  { .name = "save", .activate = save_action },
  { .name = "save-as", .activate = save_as_action },
  { .name = "export-graph", .activate = export_graph_action },
};

static const struct
{
  const char *action;
  const char *accels[3];
} file_accels[] = {
  { "win.new", { "<Control>n", NULL } },
  { "win.open", { "<Control>o", NULL } },
  { "win.save", { "<Control>s", NULL } },
  { "win.save-as", { "<Control><Shift>s", NULL } },
  { "win.export-graph", { "<Control>e", NULL } },
};

/* The window gets its application after init (as a construct property), so
 * the shortcuts are set when it arrives. */
static void
application_changed_cb (GObject    *object,
                        GParamSpec *pspec,
                        gpointer    user_data)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (object));
  if (!app)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (file_accels); i++)
    gtk_application_set_accels_for_action (app, file_accels[i].action, file_accels[i].accels);
}

void
cr_window_files_install (CrWindow *self)
{
  g_return_if_fail (CR_IS_WINDOW (self));
  g_return_if_fail (get_state (self) == NULL);

  FilesState *state = g_new0 (FilesState, 1);
  state->settings = cr_settings_new ();
  state->drafts = cr_draft_store_get_default ();
  state->draft_id = cr_draft_store_new_id (state->drafts);
  g_object_set_data_full (G_OBJECT (self), STATE_KEY, state, files_state_free);

  /* With the window as data: its dispose disconnects them. */
  GtkTextBuffer *buffer = get_buffer (self);
  g_signal_connect (buffer, "changed", G_CALLBACK (buffer_changed_cb), self);
  g_signal_connect (buffer, "modified-changed", G_CALLBACK (buffer_modified_changed_cb), self);
  g_signal_connect (self, "destroy", G_CALLBACK (destroy_cb), NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (self), file_actions,
                                   G_N_ELEMENTS (file_actions), self);
  g_signal_connect (self, "notify::application", G_CALLBACK (application_changed_cb), NULL);
  application_changed_cb (G_OBJECT (self), NULL, NULL);

  /* In the capture phase, so a file dropped on the editor opens rather than
   * having its URI pasted into the text. */
  GtkDropTarget *target = gtk_drop_target_new (G_TYPE_FILE, GDK_ACTION_COPY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (target), GTK_PHASE_CAPTURE);
  g_signal_connect (target, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  g_signal_connect (self, "close-request", G_CALLBACK (close_request_cb), NULL);
  restore_window_state (self);
}
