/* cr-window-coach.c — the mistakes coach's findings (core/coach/) in the
 * window: each finding's line tinted amber in the editor (its node is
 * ringed on the graph by the drawing itself), and a bar under the editor
 * that tells the finding (its title, its explanation) with a button that
 * selects its node and one that applies the fix to the editor's text,
 * which runs the script again at once. When that run comes, the corrected
 * run is shown beside the original (cr-compare-window.c); a toast says
 * what changed and opens the comparison again (win.coach-compare).
 * Compare shows the same before Fix: the fixed text runs in the background
 * (in the crash guard's child, as every run of the window), the editor
 * untouched, and the comparison has a Fix button of its own
 * (win.coach-fix-compared).
 *
 * The bar is made here, not in the window's template, and lives beside the
 * error bar; its state hangs on the window as object data, so the window
 * keeps no field for it. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-coach.h"
#include "cr-compare-window.h"
#include "cr-line-marks.h"
#include "cr-run-record.h"
#include "cr-output-tail.h"
#include "cr-script-guard.h"

#include <adwaita.h>

#define COACH_LINE_TAG "coach-line"
#define COACH_DATA "cr-window-coach"

typedef struct {
  GtkRevealer  *revealer;
  GtkLabel     *title;
  GtkLabel     *text;        /* the explanation, shown on "Why?" */
  GtkLabel     *fix_text;    /* "Fix: the line the fix leaves" */
  GtkWidget    *why_button;
  GtkWidget    *show_button;
  GtkWidget    *fix_button;
  GtkWidget    *compare_button;
  GtkWidget    *next_button;
  CrRunRecord  *record;      /* the record whose findings are shown (a ref), NULL */
  guint         index;       /* the finding shown */
  CrRunRecord  *before_fix;  /* the record a Fix was applied to, until the run of the
                              * fixed text is shown (a ref), NULL */
  guint         fixed;       /* the finding of before_fix that was fixed */
  CrRunRecord  *compared[2]; /* the last fix's runs, before and after (refs), NULL */
  guint         compared_finding;
  /* Compare before Fix: */
  gint         *preview_cancel; /* the background run's cancel flag (the job owns it), NULL:
                                 * none runs */
  CrRunRecord  *previewed[2];   /* the last preview's runs: as written, with the fix (refs) */
  guint         previewed_finding;
} Coach;

static void
coach_free (gpointer data)
{
  Coach *coach = data;
  g_clear_pointer (&coach->record, cr_run_record_unref);
  g_clear_pointer (&coach->before_fix, cr_run_record_unref);
  g_clear_pointer (&coach->compared[0], cr_run_record_unref);
  g_clear_pointer (&coach->compared[1], cr_run_record_unref);
  g_clear_pointer (&coach->previewed[0], cr_run_record_unref);
  g_clear_pointer (&coach->previewed[1], cr_run_record_unref);
  /* A comparison still running stops; its job ends without the window. */
  if (coach->preview_cancel)
    g_atomic_int_set (coach->preview_cancel, 1);
  g_free (coach);
}

static const CrRecordFinding *
shown_finding (Coach *coach)
{
  if (!coach->record || coach->index >= coach->record->findings->len)
    return NULL;
  return g_ptr_array_index (coach->record->findings, coach->index);
}

static void
show_finding (CrWindow *self,
              Coach    *coach)
{
  const CrRecordFinding *f = shown_finding (coach);
  if (!f)
    {
      gtk_revealer_set_reveal_child (coach->revealer, FALSE);
      return;
    }
  guint n = coach->record->findings->len;
  /* A notebook's line by its cell: "Cell 3, line 2: ...". */
  g_autofree char *where = cr_run_record_line_text (coach->record, f->span.line, TRUE);
  g_autofree char *title = n > 1
    ? g_strdup_printf ("%s: %s  (%u of %u)", where, f->title, coach->index + 1, n)
    : g_strdup_printf ("%s: %s", where, f->title);
  gtk_label_set_label (coach->title, title);
  g_autofree char *fixed = cr_coach_fixed_line (coach->record->source, f);
  g_autofree char *fix_text = fixed ? g_strdup_printf ("Fix: %s", g_strstrip (fixed)) : NULL;
  gtk_label_set_label (coach->text, f->explanation);
  gtk_label_set_label (coach->fix_text, fix_text);
  gtk_widget_set_visible (GTK_WIDGET (coach->fix_text), fixed != NULL);
  gtk_widget_set_visible (coach->fix_button, fixed != NULL);
  gtk_widget_set_visible (coach->compare_button, fixed != NULL);
  gtk_widget_set_sensitive (coach->compare_button, coach->preview_cancel == NULL);
  gtk_widget_set_visible (coach->next_button, n > 1);
  gtk_widget_set_visible (coach->show_button, f->op >= 0 || f->tensor >= 0);
  gtk_revealer_set_reveal_child (coach->revealer, TRUE);
}

/* The graph's node of the shown finding: its op, else its tensor. */
static void
show_on_graph_clicked (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  const CrRecordFinding *f = coach ? shown_finding (coach) : NULL;
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (!f || !model)
    return;
  const CrGraphNode *node = f->op >= 0 ? cr_graph_model_find_op (model, f->op) : NULL;
  if (!node && f->tensor >= 0)
    node = cr_graph_model_find_tensor (model, f->tensor);
  if (node)
    cr_graph_canvas_set_selected (self->canvas, (int) node->id);
}

static void
next_clicked (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (!coach || !coach->record || coach->record->findings->len == 0)
    return;
  coach->index = (coach->index + 1) % coach->record->findings->len;
  show_finding (self, coach);
}

/* Finding `index` of record fixed as an edit of the editor's text: the
 * edit runs the script again. */
static void
apply_fix (CrWindow    *self,
           Coach       *coach,
           CrRunRecord *record,
           guint        index)
{
  const CrRecordFinding *f = record && index < record->findings->len
                             ? g_ptr_array_index (record->findings, index) : NULL;
  if (!f || !f->fix)
    return;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  /* The span is the text that ran: after another edit it may point
   * elsewhere, and that edit's run brings its own findings. */
  GtkTextIter first, last;
  gtk_text_buffer_get_bounds (buffer, &first, &last);
  g_autofree char *text = gtk_text_buffer_get_text (buffer, &first, &last, FALSE);
  if (g_strcmp0 (text, record->source) != 0)
    {
      cr_window_toast (self, "The code changed since it ran: the fix waits for the new run.");
      return;
    }
  int lines = gtk_text_buffer_get_line_count (buffer);
  if (f->fix_span.line <= 0 || f->fix_span.end_line > lines)
    return;
  GtkTextIter start, end;
  gtk_text_buffer_get_iter_at_line_offset (buffer, &start, f->fix_span.line - 1, f->fix_span.column - 1);
  gtk_text_buffer_get_iter_at_line_offset (buffer, &end, f->fix_span.end_line - 1, f->fix_span.end_column - 1);
  CrRunRecord *keep = cr_run_record_ref (record);
  g_clear_pointer (&coach->before_fix, cr_run_record_unref);
  coach->before_fix = keep;
  coach->fixed = index;
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, f->fix, -1);
  gtk_text_buffer_end_user_action (buffer);
}

static void
fix_clicked (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (coach)
    apply_fix (self, coach, coach->record, coach->index);
}

/* The comparison's own Fix: the finding it compared. */
static void
fix_compared_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  CrWindow *self = user_data;
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (coach && coach->previewed[0])
    apply_fix (self, coach, coach->previewed[0], coach->previewed_finding);
}

/* ---- Compare before Fix: the fixed text run in the background ---- */

typedef struct {
  GWeakRef      window;
  CrRunRecord  *before;       /* a ref */
  guint         finding;
  char         *source;       /* before's source with the fix applied */
  char         *filename;
  CrDeviceType  device;
  guint         time_limit_s;
  gint         *cancel_flag;  /* owned; the coach borrows it while the job runs */
  CrRunRecord  *after;        /* the fixed run's record (a ref), NULL: none */
} PreviewJob;

static void
preview_job_free (gpointer data)
{
  PreviewJob *job = data;
  g_weak_ref_clear (&job->window);
  cr_run_record_unref (job->before);
  g_free (job->source);
  g_free (job->filename);
  g_free (job->cancel_flag);
  g_clear_pointer (&job->after, cr_run_record_unref);
  g_free (job);
}

static void
preview_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  PreviewJob *job = task_data;
  CrScriptRun run = { 0 };
  CrOutputTail *output = cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES, CR_OUTPUT_TAIL_MAX_BYTES);
  g_autofree char *dropped = NULL;
  CrScriptGuardVerdict verdict = cr_script_guard_run (job->source, job->filename, job->device,
                                                      job->time_limit_s, job->cancel_flag, output,
                                                      &dropped, &run);
  if (verdict == CR_SCRIPT_GUARD_PASSED || verdict == CR_SCRIPT_GUARD_UNAVAILABLE)
    {
      /* No guard: here, as the window's own runs then are. */
      cr_script_run_clear (&run);
      CrInterpOptions options = {
        .output = cr_output_tail_append,
        .output_data = output,
        .cancel_flag = job->cancel_flag,
        .default_device = job->device,
        .coach = TRUE,
      };
      cr_script_run_record_only (job->source, -1, job->filename, &options, &run);
    }
  if (run.record && !g_atomic_int_get (job->cancel_flag))
    job->after = cr_run_record_ref (run.record);
  cr_script_run_clear (&run);
  cr_output_tail_free (output);
  g_task_return_boolean (task, job->after != NULL);
}

static void
preview_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  PreviewJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (CrWindow) self = g_weak_ref_get (&job->window);
  if (!self)
    return;   /* The window went, and the coach with it. */
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (!coach)
    return;
  coach->preview_cancel = NULL;
  show_finding (self, coach);
  if (!job->after)
    {
      if (!g_atomic_int_get (job->cancel_flag))
        cr_window_toast (self, "The fixed script could not be run.");
      return;
    }
  for (guint i = 0; i < 2; i++)
    g_clear_pointer (&coach->previewed[i], cr_run_record_unref);
  coach->previewed[0] = cr_run_record_ref (job->before);
  coach->previewed[1] = cr_run_record_ref (job->after);
  coach->previewed_finding = job->finding;
  cr_coach_compare_present_preview (GTK_WINDOW (self), job->before, job->finding, job->after,
                                    "win.coach-fix-compared");
}

static void
compare_clicked (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  const CrRecordFinding *f = coach ? shown_finding (coach) : NULL;
  if (!f || coach->preview_cancel)
    return;
  /* Compared already: at once. */
  if (coach->previewed[0] == coach->record && coach->previewed_finding == coach->index)
    {
      cr_coach_compare_present_preview (GTK_WINDOW (self), coach->previewed[0], coach->index,
                                        coach->previewed[1], "win.coach-fix-compared");
      return;
    }
  char *fixed = cr_coach_apply_fix (coach->record->source, f);
  if (!fixed)
    return;
  PreviewJob *job = g_new0 (PreviewJob, 1);
  g_weak_ref_init (&job->window, self);
  job->before = cr_run_record_ref (coach->record);
  job->finding = coach->index;
  job->source = fixed;
  job->filename = g_strdup (coach->record->filename ? coach->record->filename : "<editor>");
  job->device = gtk_drop_down_get_selected (self->device_dropdown) == 1 ? CR_DEVICE_CUDA : CR_DEVICE_CPU;
  job->time_limit_s = self->run_time_limit_s;
  job->cancel_flag = g_new0 (gint, 1);
  coach->preview_cancel = job->cancel_flag;
  gtk_widget_set_sensitive (coach->compare_button, FALSE);
  /* Here, on the main thread: a server that died is started again. */
  cr_script_guard_server_start ();
  g_autoptr (GTask) task = g_task_new (NULL, NULL, preview_done, NULL);
  g_task_set_task_data (task, job, preview_job_free);
  g_task_run_in_thread (task, preview_thread);
}

static void
compare_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  CrWindow *self = user_data;
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (coach && coach->compared[0] && coach->compared[1])
    cr_coach_compare_present (GTK_WINDOW (self), coach->compared[0], coach->compared_finding,
                              coach->compared[1]);
}

static Coach *
coach_of (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (coach)
    return coach;
  GtkWidget *error_bar = GTK_WIDGET (self->error_revealer);
  GtkWidget *column = gtk_widget_get_parent (error_bar);
  if (!GTK_IS_BOX (column))
    return NULL;
  coach = g_new0 (Coach, 1);
  coach->revealer = GTK_REVEALER (gtk_revealer_new ());
  gtk_revealer_set_transition_type (coach->revealer, GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 10);
  gtk_widget_add_css_class (bar, "cr-coach-bar");
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-information-symbolic");
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (bar), icon);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_hexpand (texts, TRUE);
  coach->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (coach->title), "heading");
  coach->text = GTK_LABEL (gtk_label_new (NULL));
  coach->fix_text = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (coach->fix_text), "monospace");
  for (GtkLabel **l = (GtkLabel *[]) { coach->title, coach->fix_text, coach->text, NULL }; *l; l++)
    {
      gtk_label_set_xalign (*l, 0);
      gtk_label_set_wrap (*l, TRUE);
      gtk_label_set_wrap_mode (*l, PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (*l, TRUE);
      gtk_box_append (GTK_BOX (texts), GTK_WIDGET (*l));
    }
  /* The explanation is long: asked for, not always there (the editor
   * keeps its lines at 1366x768). */
  gtk_widget_set_visible (GTK_WIDGET (coach->text), FALSE);
  gtk_box_append (GTK_BOX (bar), texts);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (texts), buttons);
  coach->fix_button = gtk_button_new_with_mnemonic ("_Fix");
  gtk_widget_add_css_class (coach->fix_button, "suggested-action");
  gtk_widget_set_tooltip_text (coach->fix_button, "Apply the fix to the code and run it again");
  coach->why_button = gtk_toggle_button_new_with_mnemonic ("_Why?");
  gtk_widget_set_tooltip_text (coach->why_button, "What went wrong, and why the fix works");
  g_object_bind_property (coach->why_button, "active", coach->text, "visible", G_BINDING_DEFAULT);
  coach->show_button = gtk_button_new_with_mnemonic ("_Show");
  gtk_widget_set_tooltip_text (coach->show_button, "Ring its node on the graph");
  coach->compare_button = gtk_button_new_with_mnemonic ("_Compare");
  gtk_widget_set_tooltip_text (coach->compare_button,
                               "Run the fixed code beside the code as written, without changing it");
  coach->next_button = gtk_button_new_with_mnemonic ("_Next");
  gtk_widget_set_tooltip_text (coach->next_button, "The next mistake the coach found");
  gtk_box_append (GTK_BOX (buttons), coach->fix_button);
  gtk_box_append (GTK_BOX (buttons), coach->compare_button);
  gtk_box_append (GTK_BOX (buttons), coach->why_button);
  gtk_box_append (GTK_BOX (buttons), coach->show_button);
  gtk_box_append (GTK_BOX (buttons), coach->next_button);
  g_signal_connect_swapped (coach->fix_button, "clicked", G_CALLBACK (fix_clicked), self);
  g_signal_connect_swapped (coach->compare_button, "clicked", G_CALLBACK (compare_clicked), self);
  g_signal_connect_swapped (coach->show_button, "clicked", G_CALLBACK (show_on_graph_clicked), self);
  g_signal_connect_swapped (coach->next_button, "clicked", G_CALLBACK (next_clicked), self);
  static const GActionEntry actions[] = {
    { .name = "coach-compare", .activate = compare_activated },
    { .name = "coach-fix-compared", .activate = fix_compared_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  gtk_revealer_set_child (coach->revealer, bar);
  gtk_box_insert_child_after (GTK_BOX (column), GTK_WIDGET (coach->revealer), error_bar);
  g_object_set_data_full (G_OBJECT (self), COACH_DATA, coach, coach_free);
  return coach;
}

/* The corrected run beside the original: its window at once, and a toast
 * that says what changed and opens the window again. */
static void
tell_corrected_run (CrWindow    *self,
                    Coach       *coach,
                    CrRunRecord *after)
{
  for (guint i = 0; i < 2; i++)
    g_clear_pointer (&coach->compared[i], cr_run_record_unref);
  coach->compared[0] = cr_run_record_ref (coach->before_fix);
  coach->compared[1] = cr_run_record_ref (after);
  coach->compared_finding = coach->fixed;
  g_autofree char *summary = cr_coach_compare_summary (coach->compared[0], coach->fixed, after);
  AdwToast *toast = adw_toast_new (summary);
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_button_label (toast, "Compare");
  adw_toast_set_action_name (toast, "win.coach-compare");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  /* Fixed from its comparison: that was seen already, the toast says the rest. */
  if (coach->previewed[0] != coach->before_fix || coach->previewed_finding != coach->fixed)
    cr_coach_compare_present (GTK_WINDOW (self), coach->compared[0], coach->fixed, after);
}

void
cr_window_pin_findings (CrWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  /* Spans refer to the text that ran (as errors' do). */
  CrRunRecord *record = model && self->model_from_editor ? model->record : NULL;
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  if (!coach && (!record || record->findings->len == 0))
    return;
  coach = coach ? coach : coach_of (self);
  if (!coach || coach->record == record)
    return;
  g_clear_pointer (&coach->record, cr_run_record_unref);
  coach->record = record ? cr_run_record_ref (record) : NULL;
  coach->index = 0;
  /* A comparison of the text before this run is of no use now. */
  if (coach->preview_cancel)
    g_atomic_int_set (coach->preview_cancel, 1);
  if (coach->before_fix && record)
    {
      tell_corrected_run (self, coach, record);
      g_clear_pointer (&coach->before_fix, cr_run_record_unref);
    }

  /* Adwaita's warning amber, faint. */
  GtkTextTag *tag = cr_line_marks_tag (buffer, COACH_LINE_TAG, "rgba(229,165,10,0.17)",
                                       "rgba(248,228,92,0.16)");
  cr_line_marks_clear (buffer, tag);
  for (guint i = 0; record && i < record->findings->len; i++)
    cr_line_marks_add (buffer, tag, ((const CrRecordFinding *) g_ptr_array_index (record->findings, i))->span.line);
  show_finding (self, coach);
}

gboolean
cr_window_coach_shown (CrWindow *self)
{
  Coach *coach = g_object_get_data (G_OBJECT (self), COACH_DATA);
  return coach && shown_finding (coach) && gtk_revealer_get_reveal_child (coach->revealer);
}

void
cr_window_coach_apply_fix (CrWindow *self)
{
  fix_clicked (self);
}

void
cr_window_coach_compare_fix (CrWindow *self)
{
  compare_clicked (self);
}
