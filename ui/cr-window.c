/* cr-window.c — the main window.
 *
 * Every edit restarts a 300 ms timer; when it fires the script is parsed and
 * run by the interpreter on a GTask worker thread (one run at a time: an edit
 * during a run cancels it through the interpreter's cancel flag and schedules
 * another). The finished run's output fills the output pane and its graph
 * model goes to the canvas, which lays it out on the main thread (graphviz is
 * not thread-safe). */
#include "cr-config.h"
#include "cr-window.h"

#include "cr-interp.h"
#include "cr-graph-model.h"
#include "cr-examples.h"

#include <gtksourceview/gtksource.h>

#define RUN_DELAY_MS 300

struct _CrWindow
{
  AdwApplicationWindow  parent_instance;

  AdwWindowTitle       *title;
  GtkMenuButton        *examples_button;
  GtkLabel             *step_label;
  GtkSourceView        *source_view;
  CrGraphCanvas        *canvas;
  GtkTextView          *output_view;

  GFile                *file;
  guint                 run_timeout_id;
  gboolean              running;
  gboolean              rerun;
  gint                 *cancel_flag;   /* the running job's; shared with it */
  GCancellable         *cancellable;   /* cancelled when the window goes */
};

G_DEFINE_FINAL_TYPE (CrWindow, cr_window, ADW_TYPE_APPLICATION_WINDOW)

/* One chunk of the script's output. */
typedef struct {
  char     *text;
  gboolean  is_stderr;
} Chunk;

typedef struct {
  char         *source;
  char         *filename;
  gint         *cancel_flag;   /* owned: the window's pointer is cleared before it is freed */
  GPtrArray    *chunks;        /* of Chunk* */
  char         *error;         /* a parse error or a traceback, or NULL */
  CrGraphModel *model;
} RunJob;

static void
chunk_free (gpointer data)
{
  Chunk *chunk = data;
  g_free (chunk->text);
  g_free (chunk);
}

static void
run_job_free (gpointer data)
{
  RunJob *job = data;
  g_free (job->source);
  g_free (job->filename);
  g_free (job->cancel_flag);
  g_ptr_array_unref (job->chunks);
  g_free (job->error);
  g_clear_pointer (&job->model, cr_graph_model_free);
  g_free (job);
}

static void
collect_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  RunJob *job = user_data;
  Chunk *last = job->chunks->len ? g_ptr_array_index (job->chunks, job->chunks->len - 1) : NULL;
  if (last && last->is_stderr == is_stderr)
    {
      char *joined = g_strconcat (last->text, text, NULL);
      g_free (last->text);
      last->text = joined;
      return;
    }
  Chunk *chunk = g_new0 (Chunk, 1);
  chunk->text = g_strdup (text);
  chunk->is_stderr = is_stderr;
  g_ptr_array_add (job->chunks, chunk);
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunJob *job = task_data;
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_parse (job->source, -1, job->filename, &span, &error);
  if (!module)
    {
      job->error = g_strdup_printf ("  File \"%s\", line %d\n%s\n", job->filename, span.line,
                                    error->message);
      g_task_return_boolean (task, TRUE);
      return;
    }
  CrInterpOptions options = {
    .output = collect_output,
    .output_data = job,
    .cancel_flag = job->cancel_flag,
    .record_backward = TRUE,
  };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  if (!cr_interp_run (interp, module, &script_error))
    {
      job->error = g_strdup (script_error && script_error->traceback
                             ? script_error->traceback : "the script stopped with an error\n");
      cr_script_error_free (script_error);
    }
  if (!g_atomic_int_get (job->cancel_flag))
    job->model = cr_graph_model_new_from_interp (interp, job->source);
  cr_interp_free (interp);
  g_task_return_boolean (task, TRUE);
}

static void
set_enabled (CrWindow   *self,
             const char *name,
             gboolean    enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

static void
update_actions (CrWindow *self)
{
  int step = cr_graph_canvas_get_step (self->canvas);
  int n = (int) cr_graph_canvas_get_n_steps (self->canvas);
  set_enabled (self, "step-back", step > -1);
  set_enabled (self, "step-first", step > -1);
  set_enabled (self, "step-forward", step < n - 1);
  set_enabled (self, "step-last", step < n - 1);

  g_autofree char *text = NULL;
  if (n == 0)
    text = g_strdup ("");
  else if (step < 0)
    text = g_strdup_printf ("%d steps", n);
  else
    text = g_strdup_printf ("step %d of %d", step + 1, n);
  gtk_label_set_label (self->step_label, text);
}

static void
show_output (CrWindow *self,
             RunJob   *job)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkTextIter end;
  gtk_text_buffer_set_text (buffer, "", 0);
  for (guint i = 0; i < job->chunks->len; i++)
    {
      Chunk *chunk = g_ptr_array_index (job->chunks, i);
      gtk_text_buffer_get_end_iter (buffer, &end);
      if (chunk->is_stderr)
        gtk_text_buffer_insert_with_tags_by_name (buffer, &end, chunk->text, -1, "error", NULL);
      else
        gtk_text_buffer_insert (buffer, &end, chunk->text, -1);
    }
  if (job->error)
    {
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert_with_tags_by_name (buffer, &end, job->error, -1, "error", NULL);
    }
}

static void schedule_run (CrWindow *self, guint delay_ms);

static void
run_done (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  RunJob *job = g_task_get_task_data (G_TASK (result));
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;   /* The window is gone. */

  CrWindow *self = CR_WINDOW (source_object);
  self->running = FALSE;
  self->cancel_flag = NULL;
  if (self->rerun)
    {
      self->rerun = FALSE;
      schedule_run (self, 0);
      return;
    }
  /* Cancelled by an edit: its successor is already scheduled. */
  if (g_atomic_int_get (job->cancel_flag))
    return;

  show_output (self, job);
  g_autoptr (GError) error = NULL;
  if (!cr_graph_canvas_take_model (self->canvas, g_steal_pointer (&job->model), &error))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
      GtkTextIter end;
      gtk_text_buffer_get_end_iter (buffer, &end);
      g_autofree char *text = g_strdup_printf ("cannot draw the graph: %s\n", error->message);
      gtk_text_buffer_insert_with_tags_by_name (buffer, &end, text, -1, "error", NULL);
    }
  update_actions (self);
}

static void
start_run (CrWindow *self)
{
  if (self->running)
    {
      self->rerun = TRUE;
      g_atomic_int_set (self->cancel_flag, 1);
      return;
    }
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);

  RunJob *job = g_new0 (RunJob, 1);
  job->source = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  job->filename = self->file ? g_file_get_path (self->file) : g_strdup ("<editor>");
  if (!job->filename)
    job->filename = g_strdup ("<editor>");
  job->cancel_flag = g_new0 (gint, 1);
  job->chunks = g_ptr_array_new_with_free_func (chunk_free);
  self->cancel_flag = job->cancel_flag;
  self->running = TRUE;

  g_autoptr (GTask) task = g_task_new (self, self->cancellable, run_done, NULL);
  g_task_set_task_data (task, job, run_job_free);
  g_task_run_in_thread (task, run_thread);
}

static gboolean
run_timeout (gpointer user_data)
{
  CrWindow *self = user_data;
  self->run_timeout_id = 0;
  start_run (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_run (CrWindow *self,
              guint     delay_ms)
{
  g_clear_handle_id (&self->run_timeout_id, g_source_remove);
  self->run_timeout_id = g_timeout_add (delay_ms, run_timeout, self);
}

static void
on_source_changed (GtkTextBuffer *buffer,
                   CrWindow      *self)
{
  if (self->running)
    g_atomic_int_set (self->cancel_flag, 1);
  schedule_run (self, RUN_DELAY_MS);
}

static void
step_by (CrWindow *self,
         int       delta)
{
  cr_graph_canvas_set_step (self->canvas, cr_graph_canvas_get_step (self->canvas) + delta);
  update_actions (self);
}

static void
step_forward_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       widget)
{
  step_by (CR_WINDOW (widget), 1);
}

static void
step_back_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       widget)
{
  step_by (CR_WINDOW (widget), -1);
}

static void
step_first_activated (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       widget)
{
  CrWindow *self = CR_WINDOW (widget);
  cr_graph_canvas_set_step (self->canvas, -1);
  update_actions (self);
}

static void
step_last_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       widget)
{
  CrWindow *self = CR_WINDOW (widget);
  cr_graph_canvas_set_step (self->canvas, (int) cr_graph_canvas_get_n_steps (self->canvas) - 1);
  update_actions (self);
}

static void
open_example_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       widget)
{
  CrWindow *self = CR_WINDOW (widget);
  g_autoptr (GFile) file = g_file_new_for_path (g_variant_get_string (parameter, NULL));
  g_autoptr (GError) error = NULL;
  if (!cr_window_open_file (self, file, &error))
    g_warning ("%s", error->message);
}

/* "# The toy network: ..." -> "The toy network: ..." (new string), or NULL. */
static char *
example_title (const char *path)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  char *newline = strchr (text, '\n');
  if (newline)
    *newline = '\0';
  if (text[0] != '#')
    return NULL;
  return g_strdup (g_strstrip (text + 1));
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static GMenuModel *
examples_menu (void)
{
  GMenu *menu = g_menu_new ();
  const char *dir_path = cr_examples_dir ();
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  if (!dir)
    return G_MENU_MODEL (menu);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".py"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file_name = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir_path, file_name, NULL);
      g_autofree char *title = example_title (path);
      g_autoptr (GMenuItem) item = g_menu_item_new (title ? title : file_name, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-example", g_variant_new_string (path));
      g_menu_append_item (menu, item);
    }
  return G_MENU_MODEL (menu);
}

static void
cr_window_dispose (GObject *object)
{
  CrWindow *self = CR_WINDOW (object);

  g_clear_handle_id (&self->run_timeout_id, g_source_remove);
  if (self->running && self->cancel_flag)
    g_atomic_int_set (self->cancel_flag, 1);
  self->cancel_flag = NULL;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  gtk_widget_dispose_template (GTK_WIDGET (self), CR_TYPE_WINDOW);

  G_OBJECT_CLASS (cr_window_parent_class)->dispose (object);
}

static void
cr_window_class_init (CrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_window_dispose;

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (CR_TYPE_GRAPH_CANVAS);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/chainrule/Chainrule/cr-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CrWindow, title);
  gtk_widget_class_bind_template_child (widget_class, CrWindow, examples_button);
  gtk_widget_class_bind_template_child (widget_class, CrWindow, step_label);
  gtk_widget_class_bind_template_child (widget_class, CrWindow, source_view);
  gtk_widget_class_bind_template_child (widget_class, CrWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, CrWindow, output_view);


  /* These bubble up, so the editor keeps its own arrow keys while it has focus. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "win.step-forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "win.step-forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "win.step-back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "win.step-back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "win.step-first", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_End, 0, "win.step-last", NULL);
}

/* The editor follows the light/dark style like the rest of the window. */
static void
update_editor_scheme (CrWindow *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
  const char *id = adw_style_manager_get_dark (style) ? "Adwaita-dark" : "Adwaita";

  gtk_source_buffer_set_style_scheme (buffer, gtk_source_style_scheme_manager_get_scheme (schemes, id));
}

static void
on_dark_changed (CrWindow *self)
{
  update_editor_scheme (self);
}

static void
cr_window_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "step-forward", .activate = step_forward_activated },
    { .name = "step-back", .activate = step_back_activated },
    { .name = "step-first", .activate = step_first_activated },
    { .name = "step-last", .activate = step_last_activated },
    { .name = "open-example", .activate = open_example_activated, .parameter_type = "s" },
  };

  gtk_widget_init_template (GTK_WIDGET (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  self->cancellable = g_cancellable_new ();

  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
  gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages, "python3"));
  g_signal_connect (buffer, "changed", G_CALLBACK (on_source_changed), self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
  update_editor_scheme (self);

  GtkTextBuffer *output = gtk_text_view_get_buffer (self->output_view);
  gtk_text_buffer_create_tag (output, "error", "foreground", "#e01b24", NULL);

  g_autoptr (GMenuModel) menu = examples_menu ();
  gtk_menu_button_set_menu_model (self->examples_button, menu);
  update_actions (self);
}

CrWindow *
cr_window_new (GtkApplication *application)
{
  return g_object_new (CR_TYPE_WINDOW, "application", application, NULL);
}

gboolean
cr_window_open_file (CrWindow  *self,
                     GFile     *file,
                     GError   **error)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);

  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
    return FALSE;
  if (!g_utf8_validate (contents, (gssize) length, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "'%s' is not UTF-8 text",
                   g_file_peek_path (file));
      return FALSE;
    }
  g_set_object (&self->file, file);
  g_autofree char *basename = g_file_get_basename (file);
  adw_window_title_set_subtitle (self->title, basename);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  gtk_text_buffer_set_text (buffer, contents, (int) length);
  GtkTextIter start;
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  return TRUE;
}

CrGraphCanvas *
cr_window_get_canvas (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), NULL);
  return self->canvas;
}

gboolean
cr_window_is_busy (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  return self->running || self->run_timeout_id != 0;
}
