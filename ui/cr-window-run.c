/* cr-window-run.c — running the script behind the window.
 *
 * An edit (or expression change) starts a run at once when none is in
 * flight; an edit during a run cancels it at once (the crash guard's child
 * is killed, or the interpreter's cancel flag stops a run in process), its
 * result is dropped, and the latest text runs as soon as it has gone. So
 * fast typing never queues work, and a fast script follows the typing.
 *
 * The run is made by the crash guard (cr-script-guard.h) in a child process
 * forked by the guard's server: the child sends back its run record, output
 * and error, and the worker builds the graph model shown first (the last
 * backward call's) from that record; the other calls' models are built
 * when the picker asks for them. A bug in the engine that kills the child is
 * reported in the Output pane. Without a guard (no runner, or one that
 * cannot run), or when the child sends no record, the worker runs the
 * script in this process, under the same limits.
 *
 * Errors are not shown while the person is typing: a run in error only
 * reveals its message and underline when the script is still in error about
 * 500 ms after the last edit; until then, and while the error shows, the last
 * good graph stays on the canvas (dimmed once the error shows). A good run
 * clears everything at once.
 *
 * What a script prints is kept as a bounded tail (cr-output-tail.h), so a
 * script that prints without end costs the window neither time nor memory;
 * a run that goes on past RUN_TIME_LIMIT_S ends in a TimeoutError, so it
 * does not keep a core busy behind the person's back. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-notebook.h"

#include "cr-script-run.h"
#include "cr-record-text.h"
#include "cr-script-guard.h"
#include "cr-output-tail.h"
#include "cr-device.h"
#include "cr-expression-panel.h"
#include "cr-inspector.h"
#include "cr-editor-scrub.h"
#include "cr-window-leaf-edit.h"

#include <string.h>

#define ERROR_DELAY_MS   500
#define BUSY_DELAY_MS    400
/* Long enough for any script written to be watched; a run still going then
 * is most likely a loop that never ends. */
#define RUN_TIME_LIMIT_S 60

typedef struct {
  char         *source;
  char         *filename;
  gboolean      from_editor;
  CrDeviceType  device;
  gint         *cancel_flag;   /* owned: the window's pointer is cleared before it is freed;
                                * 1: an edit cancelled the run, 2: it ran out of time */
  CrWindow     *window;        /* not a reference (see start_run) */
  guint         time_limit_s;  /* of the crash guard's child, and of the run here */
  gboolean      guard_timed_out; /* the child's run ended in TimeoutError */
  gint64        guard_us;      /* how long the crash guard's child took */
  CrOutputTail *output;        /* what it printed, the end of it */
  char         *dropped_note; /* the crash guard child's "… N earlier lines not shown", or NULL */
  CrScriptRun   run;           /* its models, or where and why it stopped */
  CrGraphGroups *groups;       /* the module groups of the model shown first, made here
                                * on the worker (cr_graph_canvas_offer_groups), or NULL */
} RunJob;

static void
run_job_free (gpointer data)
{
  RunJob *job = data;
  if (!job)
    return;
  g_free (job->source);
  g_free (job->filename);
  g_free (job->cancel_flag);
  cr_output_tail_free (job->output);
  g_free (job->dropped_note);
  cr_script_run_clear (&job->run);
  g_clear_pointer (&job->groups, cr_graph_groups_free);
  g_free (job);
}

static gboolean run_limit_cb (gpointer user_data);

/* The run in process starts: its time limit starts with it. */
typedef struct {
  CrWindow     *window;       /* not a reference: gone when cancellable is cancelled */
  GCancellable *cancellable;  /* the window's, a reference */
  gint         *cancel_flag;  /* which run; compared, never read */
} ArmLimit;

static void
arm_limit_free (gpointer data)
{
  ArmLimit *arm = data;
  g_object_unref (arm->cancellable);
  g_free (arm);
}

static gboolean
arm_limit_cb (gpointer user_data)
{
  ArmLimit *arm = user_data;
  if (g_cancellable_is_cancelled (arm->cancellable))
    return G_SOURCE_REMOVE;   /* The window is gone. */
  CrWindow *self = arm->window;
  if (self->running && self->cancel_flag == arm->cancel_flag)
    {
      g_clear_handle_id (&self->run_limit_id, g_source_remove);
      self->run_limit_id = g_timeout_add_seconds (self->run_time_limit_s, run_limit_cb, self);
    }
  return G_SOURCE_REMOVE;
}

/* The groups of the model the canvas shows first, made on the worker. */
static void
group_shown_model (RunJob *job)
{
  if (job->run.models && job->run.models->len > 0 && !g_atomic_int_get (job->cancel_flag))
    job->groups = cr_graph_groups_new (g_ptr_array_index (job->run.models, job->run.models->len - 1));
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunJob *job = task_data;
  gint64 guard_start = g_get_monotonic_time ();
  CrScriptGuardVerdict verdict = cr_script_guard_run (job->source, job->filename, job->device,
                                                      job->time_limit_s, job->cancel_flag,
                                                      job->output, &job->dropped_note, &job->run);
  job->guard_us = g_get_monotonic_time () - guard_start;
  switch (verdict)
    {
    case CR_SCRIPT_GUARD_RAN:
      /* The child's run is the run: its record makes the models here. */
      if (!g_atomic_int_get (job->cancel_flag))
        cr_script_run_build_models (&job->run, FALSE);
      group_shown_model (job);
      job->guard_timed_out = job->run.message && g_str_has_prefix (job->run.message, "TimeoutError:");
      g_task_return_boolean (task, TRUE);
      return;
    case CR_SCRIPT_GUARD_CRASHED:
    case CR_SCRIPT_GUARD_OUT_OF_MEMORY:
      g_task_return_boolean (task, TRUE);
      return;
    case CR_SCRIPT_GUARD_TIMED_OUT:
      job->guard_timed_out = TRUE;
      g_task_return_boolean (task, TRUE);
      return;
    case CR_SCRIPT_GUARD_CANCELLED:
    case CR_SCRIPT_GUARD_PASSED:
    case CR_SCRIPT_GUARD_UNAVAILABLE:
      break;
    }
  ArmLimit *arm = g_new0 (ArmLimit, 1);
  arm->window = job->window;
  arm->cancellable = g_object_ref (cancellable);
  arm->cancel_flag = job->cancel_flag;
  /* An idle on the main context, not g_main_context_invoke(), which would
   * call it here when the main thread does not hold the context. */
  GSource *idle = g_idle_source_new ();
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, arm_limit_cb, arm, arm_limit_free);
  g_source_attach (idle, g_main_context_default ());
  g_source_unref (idle);
  /* Cancelled: this run sees the flag and stops at once. */
  CrInterpOptions options = {
    .output = cr_output_tail_append,
    .output_data = job->output,
    .cancel_flag = job->cancel_flag,
    .default_device = job->device,
    .coach = TRUE,
  };
  /* The last call's model only: the others are built when picked. */
  cr_script_run (job->source, -1, job->filename, &options, FALSE, &job->run);
  group_shown_model (job);
  g_task_return_boolean (task, TRUE);
}

/* What the Output pane shows, as runs of text with their tag (NULL:
 * none): a few inserts, however many lines were printed. */
typedef struct {
  GString    *text;       /* every run, one after the other */
  GArray     *ends;       /* of gsize: where each run ends in text */
  GPtrArray  *tags;       /* each run's tag name (static strings) */
} OutputFill;

static void
fill_add (OutputFill *fill,
          const char *text,
          gsize       length,
          const char *tag)
{
  gboolean joins = fill->tags->len > 0 && g_ptr_array_index (fill->tags, fill->tags->len - 1) == tag;
  g_string_append_len (fill->text, text, (gssize) length);
  if (joins)
    g_array_index (fill->ends, gsize, fill->ends->len - 1) = fill->text->len;
  else
    {
      g_array_append_val (fill->ends, fill->text->len);
      g_ptr_array_add (fill->tags, (gpointer) tag);
    }
}

static void
fill_piece (const char *text,
            gsize       length,
            gboolean    is_stderr,
            gpointer    user_data)
{
  fill_add (user_data, text, length, is_stderr ? "error" : NULL);
}

/* The runs as one string that tells two fillings apart (tags included). */
static char *
fill_signature (const OutputFill *fill)
{
  GString *signature = g_string_new (NULL);
  for (guint i = 0; i < fill->tags->len; i++)
    {
      const char *tag = g_ptr_array_index (fill->tags, i);
      g_string_append_printf (signature, "%s:%" G_GSIZE_FORMAT ";", tag ? tag : "",
                              g_array_index (fill->ends, gsize, i));
    }
  g_string_append_len (signature, fill->text->str, (gssize) fill->text->len);
  return g_string_free (signature, FALSE);
}

static void
show_output (CrWindow *self,
             RunJob   *job)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  OutputFill fill = {
    g_string_new (NULL), g_array_new (FALSE, FALSE, sizeof (gsize)), g_ptr_array_new (),
  };
  g_autofree char *dropped = job->dropped_note ? g_strdup (job->dropped_note)
                                                : cr_output_tail_describe_dropped (job->output);
  if (dropped)
    fill_add (&fill, dropped, strlen (dropped), "note");
  cr_output_tail_foreach (job->output, fill_piece, &fill);
  if (job->run.traceback)
    fill_add (&fill, job->run.traceback, strlen (job->run.traceback), "error");

  /* The same output as the last run's (an edit that changed no printed
   * value) leaves the pane alone: refilling it would lay out its text and
   * repaint it for nothing. */
  char *signature = fill_signature (&fill);
  const char *shown = g_object_get_data (G_OBJECT (buffer), "cr-shown-output");
  if (g_strcmp0 (shown, signature) != 0)
    {
      gtk_text_buffer_set_text (buffer, "", 0);
      gsize start = 0;
      for (guint i = 0; i < fill.tags->len; i++)
        {
          gsize stop = g_array_index (fill.ends, gsize, i);
          const char *tag = g_ptr_array_index (fill.tags, i);
          GtkTextIter end;
          gtk_text_buffer_get_end_iter (buffer, &end);
          if (tag)
            gtk_text_buffer_insert_with_tags_by_name (buffer, &end, fill.text->str + start,
                                                      (int) (stop - start), tag, NULL);
          else
            gtk_text_buffer_insert (buffer, &end, fill.text->str + start, (int) (stop - start));
          start = stop;
        }
      g_object_set_data_full (G_OBJECT (buffer), "cr-shown-output", signature, g_free);
    }
  else
    g_free (signature);
  g_string_free (fill.text, TRUE);
  g_array_unref (fill.ends);
  g_ptr_array_unref (fill.tags);
}

static void
append_output_error (CrWindow   *self,
                     const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_with_tags_by_name (buffer, &end, text, -1, "error", NULL);
  /* The pane no longer shows a run's output alone. */
  g_object_set_data (G_OBJECT (buffer), "cr-shown-output", NULL);
}

/* The model of backward call index, built from the run record the first
 * time it is asked for (the run built only the one shown first). */
static CrGraphModel *
model_at (CrWindow *self,
          guint     index)
{
  if (!self->models || index >= self->models->len)
    return NULL;
  CrGraphModel *model = g_ptr_array_index (self->models, index);
  if (!model && self->run_record && index < self->run_record->backwards->len)
    {
      model = cr_graph_model_new_from_run_record (self->run_record, (int) index);
      g_ptr_array_index (self->models, index) = model;
    }
  return model;
}

void
cr_window_show_model (CrWindow *self,
                      guint     index)
{
  CrGraphModel *model = model_at (self, index);
  self->model_index = index;
  cr_window_stop_playing (self);
  /* The paths walked were of the graph shown before. */
  cr_window_paths_close (self);
  g_autoptr (GError) error = NULL;
  if (!cr_graph_canvas_take_model (self->canvas, model ? cr_graph_model_ref (model) : NULL, &error))
    {
      g_autofree char *text = g_strdup_printf ("Cannot draw the graph: %s\n", error->message);
      append_output_error (self, text);
    }
  gtk_widget_set_visible (self->empty_page, model == NULL);
  /* Presentation leaves the zoom to the keys: the graph is what is shown;
   * the step's label heads the step card there. */
  gboolean presenting = gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
  gtk_widget_set_visible (self->stepper_bar, model != NULL && !presenting);
  gtk_widget_set_visible (self->zoom_bar, model != NULL && !presenting);
  /* The selection stays on the same node where it can; its lines may have moved. */
  int selected = cr_graph_canvas_get_selected (self->canvas);
  const CrGraphNode *node = model && selected >= 0 && (guint) selected < model->nodes->len
                            ? g_ptr_array_index (model->nodes, selected) : NULL;
  if (self->inspector)
    cr_inspector_show_node (CR_INSPECTOR (self->inspector), model, selected);
  cr_window_highlight_lines (self, "selected-line", node, FALSE);
  cr_window_update_step (self);
  cr_window_training_update (self);
  cr_window_write_state (self);
}

/* The backward-call selector: one item per model, shown when there are two or more. */
static void
update_call_dropdown (CrWindow *self)
{
  GtkStringList *list = GTK_STRING_LIST (gtk_drop_down_get_model (self->call_dropdown));
  guint old = g_list_model_get_n_items (G_LIST_MODEL (list));
  g_autoptr (GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; self->models && i < self->models->len; i++)
    {
      const CrGraphModel *model = g_ptr_array_index (self->models, i);
      if (!model && self->run_record)
        g_ptr_array_add (titles, cr_record_backward_picker_title (self->run_record, i));
      else
        g_ptr_array_add (titles, model ? cr_window_call_title (model) : g_strdup ("graph"));
    }
  /* An edit that keeps the calls keeps the list: a splice of a training
   * loop's hundreds of rows is most of what showing its run costs. */
  gboolean same = old == titles->len;
  for (guint i = 0; same && i < old; i++)
    same = strcmp (gtk_string_list_get_string (list, i), g_ptr_array_index (titles, i)) == 0;
  g_ptr_array_add (titles, NULL);
  self->syncing = TRUE;
  if (!same)
    gtk_string_list_splice (list, 0, old, (const char *const *) titles->pdata);
  gtk_drop_down_set_selected (self->call_dropdown, self->model_index);
  self->syncing = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->call_dropdown), self->models && self->models->len > 1);
}

static void
on_call_selected (GtkDropDown *dropdown,
                  GParamSpec  *pspec,
                  CrWindow    *self)
{
  guint index = gtk_drop_down_get_selected (dropdown);
  if (self->syncing || index == GTK_INVALID_LIST_POSITION || index == self->model_index)
    return;
  cr_window_show_model (self, index);
}

/* Whether b's backward pass runs the same nodes in the same order as a's:
 * a re-run after a slider moved or a number was edited, whose steps mean
 * what they meant before. */
static gboolean
same_steps (const CrGraphModel *a,
            const CrGraphModel *b)
{
  if (!a || !b || a->n_steps != b->n_steps)
    return FALSE;
  for (guint i = 0; i < a->n_steps; i++)
    {
      const CrGraphNode *na = cr_graph_model_find_step (a, (int) i);
      const CrGraphNode *nb = cr_graph_model_find_step (b, (int) i);
      if (!na || !nb || g_strcmp0 (na->key, nb->key) != 0 || g_strcmp0 (na->title, nb->title) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Puts the models of a finished run on the canvas: the last backward call
 * first, as it is what the script ends with. When the new run steps through
 * the same nodes, the stepper stays on its step (a slider dragged in
 * expression mode shows the same step with the new numbers). */
/* What a new run's result replaces: the last run's record and models, whose
 * last references are dropped on a worker (release_later). */
typedef struct {
  GPtrArray   *models;   /* of CrGraphModel* (owned), or NULL */
  CrRunRecord *record;   /* a reference, or NULL */
} Replaced;

static void
release_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Replaced *replaced = task_data;
  g_clear_pointer (&replaced->models, g_ptr_array_unref);
  g_clear_pointer (&replaced->record, cr_run_record_unref);
  g_free (replaced);
  g_task_return_boolean (task, TRUE);
}

/* Freeing a run record is tens of thousands of items (the MLP example's),
 * a millisecond the main thread need not wait for: once the canvas has let
 * the old models go, these references are the last, and go on a worker. */
static void
release_later (Replaced *replaced)
{
  if (!replaced->models && !replaced->record)
    {
      g_free (replaced);
      return;
    }
  g_autoptr (GTask) task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, replaced, NULL);
  g_task_run_in_thread (task, release_thread);
}

static void
show_models (CrWindow  *self,
             RunJob    *job)
{
  const CrGraphModel *old_model = cr_graph_canvas_get_model (self->canvas);
  g_autoptr (CrGraphModel) old = old_model ? cr_graph_model_ref ((CrGraphModel *) old_model) : NULL;
  int old_step = cr_graph_canvas_get_step (self->canvas);
  int old_forward = cr_graph_canvas_get_forward_step (self->canvas);
  guint old_n_forward = cr_graph_canvas_get_n_forward_steps (self->canvas);
  Replaced *replaced = g_new0 (Replaced, 1);
  replaced->models = g_steal_pointer (&self->models);
  replaced->record = g_steal_pointer (&self->run_record);
  /* The run built the model shown first (its last backward call, or its
   * forward graph); the other calls' wait in the picker until picked. */
  self->run_record = g_steal_pointer (&job->run.record);
  CrGraphModel *last = job->run.models && job->run.models->len > 0
                       ? g_ptr_array_steal_index (job->run.models, job->run.models->len - 1) : NULL;
  guint n = self->run_record && self->run_record->backwards->len > 0
            ? self->run_record->backwards->len : (last ? 1 : 0);
  self->models = g_ptr_array_new_full (n, (GDestroyNotify) cr_graph_model_unref);
  g_ptr_array_set_size (self->models, n);
  if (last)
    g_ptr_array_index (self->models, n - 1) = last;
  self->model_from_editor = job->from_editor;
  guint index = self->models->len ? self->models->len - 1 : 0;
  self->model_index = index;
  update_call_dropdown (self);
  cr_graph_canvas_offer_groups (self->canvas, g_steal_pointer (&job->groups));
  cr_window_show_model (self, index);
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (old_step >= 0 && same_steps (old, model))
    cr_graph_canvas_set_step (self->canvas, old_step);
  else if (old_forward >= 0 && old_n_forward == cr_graph_canvas_get_n_forward_steps (self->canvas))
    {
      /* An edit that left the forward pass as long: its same op, recomputed. */
      g_action_group_activate_action (G_ACTION_GROUP (self), "step-to",
                                      g_variant_new_int32 (old_forward));
    }
  else if (!job->from_editor && model && model->n_steps > 0)
    {
      /* A new formula in expression mode shows its gradients on the graph
       * at once, as after the whole backward pass; Home steps from the start. */
      cr_graph_canvas_set_step (self->canvas, (int) model->n_steps - 1);
    }
  /* The old model the canvas showed, too, once compared above. */
  if (replaced->models && old)
    g_ptr_array_add (replaced->models, g_steal_pointer (&old));
  release_later (replaced);
}

static void
clear_error_display (CrWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag_by_name (buffer, "error-span", &start, &end);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  cr_graph_canvas_set_dimmed (self->canvas, FALSE);
  gtk_widget_remove_css_class (self->sidebar, "cr-dimmed");
  self->in_error = FALSE;
}

static void
underline_span (CrWindow     *self,
                const CrSpan *span)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag_by_name (buffer, "error-span", &start, &end);
  if (span->line <= 0)
    return;
  gtk_text_buffer_get_iter_at_line_offset (buffer, &start, span->line - 1, MAX (span->column - 1, 0));
  int end_line = span->end_line >= span->line ? span->end_line : span->line;
  if (span->end_column > 0)
    gtk_text_buffer_get_iter_at_line_offset (buffer, &end, end_line - 1, span->end_column - 1);
  else
    {
      end = start;
      gtk_text_iter_forward_to_line_end (&end);
    }
  /* A span at a line's end (an unclosed bracket) still gets a visible mark:
   * the character before it. */
  if (gtk_text_iter_compare (&start, &end) >= 0)
    {
      end = start;
      if (!gtk_text_iter_ends_line (&end))
        gtk_text_iter_forward_char (&end);
      else if (!gtk_text_iter_starts_line (&start))
        gtk_text_iter_backward_char (&start);
    }
  gtk_text_buffer_apply_tag_by_name (buffer, "error-span", &start, &end);
}

static void
show_error (CrWindow *self,
            RunJob   *job)
{
  g_autofree char *text = NULL;
  /* A notebook's error is told by its cell, as its traceback tells it: the
   * record's cells say where, or the script's when the run left none. */
  g_autoptr (CrRunRecord) cells_only = NULL;
  const CrRunRecord *lines = job->run.record;
  if (!lines && cr_notebook_is_path (job->filename))
    lines = cells_only = cr_notebook_cells_record (job->source, job->filename);
  if (job->run.span.line > 0)
    {
      g_autofree char *where = cr_run_record_line_text (lines, job->run.span.line, FALSE);
      text = g_strdup_printf ("%s (%s)", job->run.message, where);
    }
  else
    text = g_strdup (job->run.message);
  show_output (self, job);
  gtk_label_set_label (self->error_label, text);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
  if (job->from_editor)
    underline_span (self, &job->run.span);
  self->in_error = TRUE;

  /* The run got far enough to make a graph: that is the graph of this text.
   * Else the last good graph stays, faded. */
  if (job->run.models && job->run.models->len > 0)
    {
      show_models (self, job);
      cr_graph_canvas_set_dimmed (self->canvas, FALSE);
      gtk_widget_remove_css_class (self->sidebar, "cr-dimmed");
    }
  else
    {
      gboolean has_model = cr_graph_canvas_get_model (self->canvas) != NULL;
      cr_graph_canvas_set_dimmed (self->canvas, has_model);
      if (has_model)
        gtk_widget_add_css_class (self->sidebar, "cr-dimmed");
    }
}

static gboolean
error_timeout_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  self->error_timeout_id = 0;
  RunJob *job = g_steal_pointer (&self->pending_error);
  if (job)
    {
      show_error (self, job);
      run_job_free (job);
      self->n_runs_shown++;
      cr_window_write_state (self);
      g_signal_emit_by_name (self, "run-finished");
    }
  return G_SOURCE_REMOVE;
}

static void
drop_pending_error (CrWindow *self)
{
  g_clear_handle_id (&self->error_timeout_id, g_source_remove);
  g_clear_pointer (&self->pending_error, run_job_free);
}

static gboolean
busy_timeout_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  self->busy_timeout_id = 0;
  gtk_spinner_start (self->running_spinner);
  gtk_revealer_set_reveal_child (self->running_revealer, TRUE);
  return G_SOURCE_REMOVE;
}

/* A slow run says so; a fast one never flashes the indicator. */
static void
set_busy (CrWindow *self,
          gboolean  busy)
{
  if (busy)
    {
      if (!self->busy_timeout_id && !gtk_revealer_get_reveal_child (self->running_revealer))
        self->busy_timeout_id = g_timeout_add (BUSY_DELAY_MS, busy_timeout_cb, self);
      return;
    }
  g_clear_handle_id (&self->busy_timeout_id, g_source_remove);
  gtk_spinner_stop (self->running_spinner);
  gtk_revealer_set_reveal_child (self->running_revealer, FALSE);
}

static void start_run (CrWindow *self);

/* The interpreter names the runner's option; in the window the limit is ours. */
static void
name_time_limit (CrScriptRun *run,
                 guint        limit_s)
{
  g_autofree char *ours = g_strdup_printf ("(%u s in the window)", limit_s);
  char **texts[] = { &run->message, &run->traceback };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (*texts[i])
      {
        GString *text = g_string_new (*texts[i]);
        g_string_replace (text, "(--timeout)", ours, 0);
        g_free (*texts[i]);
        *texts[i] = g_string_free (text, FALSE);
      }
}

static gboolean
run_limit_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  self->run_limit_id = 0;
  /* An edit's cancel, if it came first, stays what it is. */
  if (self->running && self->cancel_flag)
    g_atomic_int_compare_and_exchange (self->cancel_flag, 0, 2);
  return G_SOURCE_REMOVE;
}

static gboolean run_timeout_cb (gpointer user_data);

static void
run_done (GObject      *source_object,
          GAsyncResult *result,
          gpointer      user_data)
{
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;   /* The window is gone. */

  CrWindow *self = CR_WINDOW (user_data);
  RunJob *job = g_task_get_task_data (G_TASK (result));
  self->running = FALSE;
  self->cancel_flag = NULL;
  g_clear_handle_id (&self->run_limit_id, g_source_remove);
  if (self->rerun)
    {
      self->rerun = FALSE;
      start_run (self);
      return;
    }
  /* A scrub moved the number on while this ran: this result shows, and
   * the latest text runs once it has (one run waiting at most). */
  if (self->run_again)
    {
      self->run_again = FALSE;
      if (!self->run_timeout_id)
        self->run_timeout_id = g_idle_add_full (G_PRIORITY_DEFAULT, run_timeout_cb, self, NULL);
    }
  /* Cancelled by an edit: its successor is already scheduled. */
  if (g_atomic_int_get (job->cancel_flag) == 1)
    return;
  if (g_atomic_int_get (job->cancel_flag) == 2 || job->guard_timed_out)
    name_time_limit (&job->run, job->time_limit_s);
  set_busy (self, FALSE);

  if (!job->run.message)
    {
      drop_pending_error (self);
      clear_error_display (self);
      show_output (self, job);
      show_models (self, job);
    }
  else if (self->in_error || !cr_graph_canvas_get_model (self->canvas))
    {
      /* Already showing an error (or nothing to keep): no flashing to avoid. */
      drop_pending_error (self);
      show_error (self, job);
    }
  else
    {
      /* Wait: the person is probably typing. */
      drop_pending_error (self);
      RunJob *pending = g_new0 (RunJob, 1);
      /* Its output too: a traceback flashing in the output pane is as
       * distracting as one in the error bar. */
      pending->output = g_steal_pointer (&job->output);
      pending->dropped_note = g_steal_pointer (&job->dropped_note);
      pending->run = job->run;   /* moved: job keeps nothing of it */
      job->run = (CrScriptRun) { 0 };
      pending->from_editor = job->from_editor;
      self->pending_error = pending;
      gint64 since_edit_ms = (g_get_monotonic_time () - self->last_edit_us) / 1000;
      guint delay = since_edit_ms >= ERROR_DELAY_MS ? 0 : (guint) (ERROR_DELAY_MS - since_edit_ms);
      self->error_timeout_id = g_timeout_add (delay, error_timeout_cb, self);
      return;
    }
  self->n_runs_shown++;
  cr_window_write_state (self);
  g_signal_emit_by_name (self, "run-finished");
}

/* What to run: the expression's script while its page shows, else the editor's. */
static char *
current_script (CrWindow *self,
                gboolean *from_editor)
{
  const char *page = gtk_stack_get_visible_child_name (self->editor_stack);
  if (self->expression_panel && g_strcmp0 (page, "expression") == 0)
    {
      *from_editor = FALSE;
      const char *script = cr_expression_panel_get_script (CR_EXPRESSION_PANEL (self->expression_panel));
      return script ? g_strdup (script) : NULL;
    }
  *from_editor = TRUE;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

static void
start_run (CrWindow *self)
{
  if (self->running && self->scrubbing)
    {
      self->run_again = TRUE;
      return;
    }
  if (self->running)
    {
      self->rerun = TRUE;
      g_atomic_int_set (self->cancel_flag, 1);
      return;
    }
  /* Here, on the main thread: a server that died is started again. */
  cr_script_guard_server_start ();
  gboolean from_editor = TRUE;
  char *source = current_script (self, &from_editor);
  if (!source)
    {
      set_busy (self, FALSE);
      return;   /* The expression does not parse; its panel says why. */
    }

  RunJob *job = g_new0 (RunJob, 1);
  job->source = source;
  job->from_editor = from_editor;
  job->filename = from_editor && self->file ? g_file_get_path (self->file) : NULL;
  if (!job->filename)
    job->filename = g_strdup (from_editor ? "<editor>" : "<expression>");
  job->device = gtk_drop_down_get_selected (self->device_dropdown) == 1 ? CR_DEVICE_CUDA : CR_DEVICE_CPU;
  job->cancel_flag = g_new0 (gint, 1);
  job->time_limit_s = self->run_time_limit_s;
  job->output = cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES, CR_OUTPUT_TAIL_MAX_BYTES);
  self->cancel_flag = job->cancel_flag;
  self->running = TRUE;
  set_busy (self, TRUE);
  self->run_started_us = g_get_monotonic_time ();

  /* The task holds no reference to the window: a closed window is disposed
   * at once, which stops its run (and the crash guard's child), and its last
   * reference is never dropped on the worker. run_done checks the
   * cancellable, which dispose cancels, before it touches the window. */
  job->window = self;
  g_autoptr (GTask) task = g_task_new (NULL, self->cancellable, run_done, self);
  g_task_set_task_data (task, job, run_job_free);
  /* The time limit is armed by the worker (arm_limit_cb) once the crash
   * guard's child, which has a limit of its own, has finished. */
  g_task_run_in_thread (task, run_thread);
}

static gboolean
run_timeout_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  self->run_timeout_id = 0;
  start_run (self);
  return G_SOURCE_REMOVE;
}

void
cr_window_schedule_run (CrWindow *self)
{
  self->last_edit_us = g_get_monotonic_time ();
  /* A stale run stops now rather than finishing work nobody will see; the
   * next starts as soon as it has gone (run_done). */
  if (self->running && !self->scrubbing)
    g_atomic_int_set (self->cancel_flag, 1);
  /* The error, if any, waits for the next result. */
  g_clear_handle_id (&self->error_timeout_id, g_source_remove);
  g_clear_pointer (&self->pending_error, run_job_free);

  /* No pause: the run starts once this change is done (an idle, so that
   * the changes of one action, such as a replaced text's delete and insert,
   * make one run). */
  if (!self->run_timeout_id)
    self->run_timeout_id = g_idle_add_full (G_PRIORITY_DEFAULT, run_timeout_cb, self, NULL);
}

static void
on_source_changed (GtkTextBuffer *buffer,
                   CrWindow      *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->editor_stack);
  if (g_strcmp0 (page, "script") == 0)
    cr_window_schedule_run (self);
}

static void
on_device_selected (GtkDropDown *dropdown,
                    GParamSpec  *pspec,
                    CrWindow    *self)
{
  cr_window_schedule_run (self);
}

static void
on_scrub_started (CrWindow *self)
{
  self->scrubbing = TRUE;
}

static void
on_scrub_ended (CrWindow *self)
{
  self->scrubbing = FALSE;
}

void
cr_window_run_init (CrWindow *self)
{
  self->cancellable = g_cancellable_new ();
  self->run_time_limit_s = RUN_TIME_LIMIT_S;
  /* Started now, so that it has loaded and parsed the prelude when the
   * first script comes. */
  cr_script_guard_server_start ();
  /* "… 123 earlier lines not shown": not the script's own text. */
  gtk_text_buffer_create_tag (gtk_text_view_get_buffer (self->output_view), "note",
                              "style", PANGO_STYLE_ITALIC, NULL);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  g_signal_connect (buffer, "changed", G_CALLBACK (on_source_changed), self);
  self->scrub = cr_editor_scrub_new (GTK_TEXT_VIEW (self->source_view));
  g_signal_connect_swapped (self->scrub, "started", G_CALLBACK (on_scrub_started), self);
  g_signal_connect_swapped (self->scrub, "ended", G_CALLBACK (on_scrub_ended), self);
  cr_window_leaf_edit_init (self);
  g_signal_connect (self->call_dropdown, "notify::selected", G_CALLBACK (on_call_selected), self);

  /* CUDA is offered only where it works. */
  if (cr_cuda_is_available ())
    gtk_string_list_append (GTK_STRING_LIST (gtk_drop_down_get_model (self->device_dropdown)), "CUDA");
  else
    {
      const char *why = cr_cuda_unavailable_reason ();
      g_autofree char *tip = g_strdup_printf ("The script runs on the CPU (no CUDA: %s)",
                                              why ? why : "not built");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->device_dropdown), tip);
      gtk_widget_set_sensitive (GTK_WIDGET (self->device_dropdown), FALSE);
    }
  g_signal_connect (self->device_dropdown, "notify::selected", G_CALLBACK (on_device_selected), self);
}

void
cr_window_run_dispose (CrWindow *self)
{
  if (self->scrub)
    g_signal_handlers_disconnect_by_data (self->scrub, self);
  g_clear_object (&self->scrub);
  g_clear_handle_id (&self->run_timeout_id, g_source_remove);
  g_clear_handle_id (&self->busy_timeout_id, g_source_remove);
  g_clear_handle_id (&self->run_limit_id, g_source_remove);
  drop_pending_error (self);
  if (self->running && self->cancel_flag)
    g_atomic_int_set (self->cancel_flag, 1);
  self->cancel_flag = NULL;
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->models, g_ptr_array_unref);
  g_clear_pointer (&self->run_record, cr_run_record_unref);
}
