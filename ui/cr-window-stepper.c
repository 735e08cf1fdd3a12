/* cr-window-stepper.c — stepping through the story of a run: first the
 * forward pass op by op (the canvas's forward step), then the backward pass
 * node by node (its step). The step actions and their enabled states, play
 * with its speed, the keyboard (also a presenter's clicker), the step card
 * following the step, and the state file the end-to-end test reads.
 *
 * A position in the story: -1 before it (every node computed, nothing lit:
 * where a new run starts), 0 .. F-1 the forward ops, F .. F+B-1 the
 * backward steps. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-graph-forward.h"
#include "cr-inspector.h"
#include "cr-record-text.h"
#include "cr-step-card.h"
#include "cr-step-card-practice.h"
#include "cr-step-text.h"

#include <math.h>

static void
set_enabled (CrWindow   *self,
             const char *name,
             gboolean    enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);
  if (action)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

static const CrGraphModel *
current_model (CrWindow *self)
{
  return cr_graph_canvas_get_model (self->canvas);
}

static int
n_forward (CrWindow *self)
{
  return (int) cr_graph_canvas_get_n_forward_steps (self->canvas);
}

static int
story_length (CrWindow *self)
{
  return n_forward (self) + (int) cr_graph_canvas_get_n_steps (self->canvas);
}

static int
story_position (CrWindow *self)
{
  int forward = cr_graph_canvas_get_forward_step (self->canvas);
  if (forward >= 0)
    return forward;
  int step = cr_graph_canvas_get_step (self->canvas);
  return step >= 0 ? n_forward (self) + step : -1;
}

static void
append_values (GString                *line,
               const CrTensorSnapshot *value)
{
  for (gint64 i = 0; value && i < value->n_values; i++)
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (buffer, sizeof buffer, "%.9g", value->values[i]);
      g_string_append_c (line, ' ');
      g_string_append (line, buffer);
    }
}

/* For the end-to-end test (CHAINRULE_STATE_FILE): where the stepper is and
 * the leaves' gradients written so far, one "key=value" or "grad ..." line each. */
void
cr_window_write_state (CrWindow *self)
{
  const char *path = g_getenv ("CHAINRULE_STATE_FILE");
  if (!path || !*path)
    return;
  const CrGraphModel *model = current_model (self);
  int step = cr_graph_canvas_get_step (self->canvas);
  const CrGraphNode *node = model && step >= 0 ? cr_graph_model_find_step (model, step) : NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_string_append_printf (text, "runs=%u\n", self->n_runs_shown);
  g_string_append_printf (text, "n_steps=%u\n", cr_graph_canvas_get_n_steps (self->canvas));
  g_string_append_printf (text, "step=%d\n", step);
  g_string_append_printf (text, "n_forward=%d\n", n_forward (self));
  g_string_append_printf (text, "forward=%d\n", cr_graph_canvas_get_forward_step (self->canvas));
  g_string_append_printf (text, "node=%s\n", node && node->title ? node->title : "");
  g_string_append_printf (text, "model=%s\n", model && model->title ? model->title : "");
  g_string_append_printf (text, "error=%d\n", self->in_error ? 1 : 0);
  for (int i = 0; model && i <= step; i++)
    {
      const CrRecordStep *record = cr_graph_model_get_record_step (model, i);
      if (!record || record->kind != CR_RECORD_STEP_ACCUMULATE)
        continue;
      g_string_append_printf (text, "grad %s",
                              cr_record_tensor_label (model->record, record->leaf, "?"));
      append_values (text, record->grad_after);
      g_string_append_c (text, '\n');
    }
  g_autoptr (GError) error = NULL;
  if (!g_file_set_contents (path, text->str, (gssize) text->len, &error))
    g_warning ("CHAINRULE_STATE_FILE: %s", error->message);
}

/* "Backward 3 of 12 · AddBackward0", and in presentation, where the clicker
 * reads the card in parts, which part is in view. */
void
cr_window_update_step_label (CrWindow *self)
{
  const CrGraphModel *model = current_model (self);
  int step = cr_graph_canvas_get_step (self->canvas);
  int n = (int) cr_graph_canvas_get_n_steps (self->canvas);
  const CrGraphNode *node = model && step >= 0 ? cr_graph_model_find_step (model, step) : NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  const CrRecordBackward *call = model ? cr_graph_model_get_backward (model) : NULL;
  if (!model)
    ;
  else if (n == 0 && !call)
    g_string_append (text, cr_record_backward_error (model->record, -1)
                           ? "Forward graph · stopped by an error"
                           : "Forward graph · no backward call");
  else if (cr_graph_canvas_get_forward_step (self->canvas) >= 0)
    {
      int op = cr_graph_canvas_get_forward_op (self->canvas);
      const CrRecordOp *o = op >= 0 && model->record && (guint) op < model->record->ops->len
                            ? g_ptr_array_index (model->record->ops, op) : NULL;
      g_autofree char *count = cr_step_text_story_count (CR_STEP_TEXT_FORWARD,
                                                         (guint) cr_graph_canvas_get_forward_step (self->canvas),
                                                         (guint) n_forward (self));
      g_string_append_printf (text, "%s · %s", count, o && o->grad_fn ? o->grad_fn : "");
    }
  else if (step < 0 && n_forward (self) == 0)
    g_string_append_printf (text, "Before backward · %d %s%s", n, n == 1 ? "step" : "steps",
                            call && !call->succeeded ? ", then an error" : "");
  else if (step < 0)
    g_string_append_printf (text, "Before forward · %d %s, then %d backward %s%s", n_forward (self),
                            n_forward (self) == 1 ? "op" : "ops", n, n == 1 ? "step" : "steps",
                            call && !call->succeeded ? " and an error" : "");
  else
    {
      /* The card's header says the same (cr_step_text_story_count). */
      g_autofree char *count = cr_step_text_story_count (CR_STEP_TEXT_BACKWARD, (guint) step, (guint) n);
      g_string_append_printf (text, "%s · %s", count, node && node->title ? node->title : "");
    }
  if (model)
    cr_window_append_card_part (self, text);
  if (g_strcmp0 (gtk_label_get_label (self->step_label), text->str) != 0)
    {
      gtk_label_set_label (self->step_label, text->str);
      /* The bar under a narrow graph pane may cut the label short. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->step_label), text->str);
    }
}

char *
cr_window_call_title (const CrGraphModel *model)
{
  /* Numbered, with the loop iteration: a training loop's 200 calls are
   * told apart. */
  if (model->record && model->backward >= 0)
    return cr_record_backward_picker_title (model->record, (guint) model->backward);
  return g_strdup (model->title ? model->title : "graph");
}

/* The user code a step ran besides its node's line: each hook's function
 * and a custom Function's backward(), marked as the step's lines too. */
static void
mark_step_functions (CrWindow           *self,
                     const CrGraphModel *model,
                     int                 step)
{
  const CrRecordStep *s = model && self->model_from_editor
                          ? cr_graph_model_get_record_step (model, step) : NULL;
  if (!s)
    return;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  int n_lines = gtk_text_buffer_get_line_count (buffer);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (CrSpan));
  if (s->custom_span.line > 0)
    g_array_append_val (spans, s->custom_span);
  for (guint i = 0; s->hooks && i < s->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (s->hooks, i);
      if (h->span.line > 0)
        g_array_append_val (spans, h->span);
    }
  for (guint i = 0; i < spans->len; i++)
    {
      const CrSpan *span = &g_array_index (spans, CrSpan, i);
      int last = MIN (MAX (span->end_line, span->line), n_lines);
      if (span->line > n_lines)
        continue;
      GtkTextIter start, end;
      gtk_text_buffer_get_iter_at_line (buffer, &start, span->line - 1);
      gtk_text_buffer_get_iter_at_line (buffer, &end, last - 1);
      gtk_text_iter_forward_line (&end);
      gtk_text_buffer_apply_tag_by_name (buffer, "step-line", &start, &end);
    }
}

/* Whether the step shown asks a practice question it has not revealed. */
static gboolean
question_waiting (CrWindow *self)
{
  return self->step_card && cr_step_card_practice_hides (CR_STEP_CARD (self->step_card));
}

void
cr_window_update_step (CrWindow *self)
{
  const CrGraphModel *model = current_model (self);
  int step = cr_graph_canvas_get_step (self->canvas);
  int position = story_position (self);
  int n = story_length (self);
  set_enabled (self, "step-back", position > -1);
  set_enabled (self, "step-first", n > 0 && position != 0);
  set_enabled (self, "step-forward", position < n - 1);
  set_enabled (self, "step-last", position < n - 1);
  set_enabled (self, "play", n > 0);

  int forward = cr_graph_canvas_get_forward_step (self->canvas);
  const CrGraphNode *node = model && step >= 0 ? cr_graph_model_find_step (model, step) : NULL;
  if (model && forward >= 0)
    node = cr_graph_model_find_op (model, cr_graph_canvas_get_forward_op (self->canvas));
  if (self->step_card && forward >= 0)
    cr_step_card_set_forward (CR_STEP_CARD (self->step_card), model,
                              cr_graph_canvas_get_forward_op (self->canvas), (guint) forward,
                              (guint) n_forward (self));
  else if (self->step_card)
    cr_step_card_set_step (CR_STEP_CARD (self->step_card), model, step);
  /* Practice: what the step asks is not on the graph, and reads "?" in the
   * inspector, until answered. */
  gboolean waiting = question_waiting (self);
  cr_graph_canvas_set_hide_step_gradients (self->canvas, waiting);
  /* The inspector shows the state as of this step (no answer given away). */
  if (self->inspector)
    {
      cr_inspector_set_hidden_step (CR_INSPECTOR (self->inspector),
                                    waiting && forward < 0 ? step : -1);
      cr_inspector_set_hidden_op (CR_INSPECTOR (self->inspector),
                                  waiting && forward >= 0
                                  ? cr_graph_canvas_get_forward_op (self->canvas) : -1);
      cr_inspector_set_step (CR_INSPECTOR (self->inspector), step);
    }
  cr_window_pin_errors (self);
  cr_window_update_step_label (self);
  cr_window_highlight_lines (self, "step-line", node, node != NULL);
  mark_step_functions (self, model, step);
}

/* ---- actions ---- */

static void on_step_changed (CrGraphCanvas *canvas,
                             GParamSpec    *pspec,
                             CrWindow      *self);

/* To position `position` of the story (clamped): the forward step, then
 * the backward step, set on the canvas. */
static void
go_to_step (CrWindow *self,
            int       position)
{
  int n = story_length (self);
  int n_fwd = n_forward (self);
  position = CLAMP (position, -1, n - 1);
  if (position == story_position (self))
    return;
  int forward = position >= 0 && position < n_fwd ? position : -1;
  int step = position >= n_fwd ? position - n_fwd : -1;
  cr_graph_canvas_set_forward_step (self->canvas, forward);
  if (step != cr_graph_canvas_get_step (self->canvas))
    cr_graph_canvas_set_step (self->canvas, step);   /* on_step_changed () follows */
  else
    on_step_changed (self->canvas, NULL, self);
  gtk_stack_set_visible_child_name (self->sidebar_stack, "step");
}

/* The position "next" (direction +1) or "previous" (-1) goes to: one op
 * of the forward pass (the ops of a closed module call as one), or one
 * unit of the backward pass (cr_graph_canvas_step_unit). */
static int
story_unit (CrWindow *self,
            int       direction)
{
  int position = story_position (self);
  int n_fwd = n_forward (self);
  if (position >= n_fwd || (position == n_fwd - 1 && direction > 0))
    {
      int step = cr_graph_canvas_step_unit (self->canvas, direction);
      if (step < 0)
        return n_fwd - 1;
      return n_fwd + step;
    }
  const CrGraphModel *model = current_model (self);
  int next = position + direction;
  /* Ops drawn as one closed group go by together. */
  const CrGraphNode *here = position >= 0 && model ? cr_graph_model_find_op (model, cr_graph_canvas_get_forward_op (self->canvas)) : NULL;
  if (here && here->kind == CR_GRAPH_NODE_GROUP && model->record)
    {
      g_autoptr (GArray) ops = cr_graph_forward_ops (model);
      while (next >= 0 && next < (int) ops->len
             && cr_graph_model_find_op (model, g_array_index (ops, int, next)) == here)
        next += direction;
    }
  return next;
}

/* However the step changed (the stepper, or a new model going back to -1),
 * everything that shows it follows. */
static void
on_step_changed (CrGraphCanvas *canvas,
                 GParamSpec    *pspec,
                 CrWindow      *self)
{
  cr_window_update_step (self);
  /* A new step's card is read from its top. */
  cr_window_show_card_top (self);
  cr_window_write_state (self);
}

static void
step_forward_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  CrWindow *self = user_data;
  /* A closed module call steps as one unit (cr-graph-canvas-groups.c). */
  go_to_step (self, story_unit (self, +1));
}

static void
step_back_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  CrWindow *self = user_data;
  cr_window_stop_playing (self);
  go_to_step (self, story_unit (self, -1));
}

static void
step_first_activated (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  CrWindow *self = user_data;
  cr_window_stop_playing (self);
  /* The story's start: the first forward op. */
  go_to_step (self, 0);
}

static void
step_last_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  CrWindow *self = user_data;
  cr_window_stop_playing (self);
  go_to_step (self, story_length (self) - 1);
}

/* win.step-to (int): to a position of the story (-1: before it; the last
 * forward op is n_forward - 1, the first backward step n_forward). */
static void
step_to_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  CrWindow *self = user_data;
  cr_window_stop_playing (self);
  go_to_step (self, g_variant_get_int32 (parameter));
}

static double
speed (CrWindow *self)
{
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self), "speed");
  double value = state ? g_ascii_strtod (g_variant_get_string (state, NULL), NULL) : 1.0;
  return value > 0 ? value : 1.0;
}

static void
set_play_state (CrWindow *self,
                gboolean  playing)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (playing));
  gtk_button_set_icon_name (self->play_button, playing ? "media-playback-pause-symbolic"
                                                       : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->play_button),
                               playing ? "Pause (P)" : "Play forward and backward (P)");
}

void
cr_window_stop_playing (CrWindow *self)
{
  if (!self->play_timeout_id)
    return;
  g_clear_handle_id (&self->play_timeout_id, g_source_remove);
  set_play_state (self, FALSE);
}

static gboolean
play_tick_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  int n = story_length (self);
  /* A closed module call plays as one unit, as next does. */
  if (story_position (self) < n - 1)
    go_to_step (self, story_unit (self, +1));
  /* Practice: a question waits for its answer (or a reveal). */
  if (story_position (self) >= n - 1 || question_waiting (self))
    {
      self->play_timeout_id = 0;
      set_play_state (self, FALSE);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
start_playing (CrWindow *self)
{
  g_clear_handle_id (&self->play_timeout_id, g_source_remove);
  self->play_timeout_id = g_timeout_add ((guint) lround (1000.0 / speed (self)), play_tick_cb, self);
  set_play_state (self, TRUE);
}

static void
play_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  CrWindow *self = user_data;
  if (self->play_timeout_id)
    {
      cr_window_stop_playing (self);
      return;
    }
  int n = story_length (self);
  if (n == 0)
    return;
  /* Playing from the end starts over. */
  if (story_position (self) >= n - 1)
    go_to_step (self, -1);
  /* The first step comes at once, so the press visibly does something. */
  go_to_step (self, story_unit (self, +1));
  if (story_position (self) < n - 1 && !question_waiting (self))
    start_playing (self);
}

static void
speed_changed (GSimpleAction *action,
               GVariant      *value,
               gpointer       user_data)
{
  CrWindow *self = user_data;
  g_simple_action_set_state (action, value);
  g_autofree char *label = g_strdup_printf ("%s×", g_variant_get_string (value, NULL));
  gtk_menu_button_set_label (self->speed_button, label);
  if (self->play_timeout_id)
    start_playing (self);
}

/* Module code: O opens the selected (or current step's) closed group, C
 * closes the one around it, [ and ] show one level less or more. */
static void
group_open_activated (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  cr_graph_canvas_open_group (((CrWindow *) user_data)->canvas);
}

static void
group_close_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  cr_graph_canvas_close_group (((CrWindow *) user_data)->canvas);
}

static void
depth_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  CrGraphCanvas *canvas = ((CrWindow *) user_data)->canvas;
  guint level = cr_graph_canvas_get_group_level (canvas);
  if (g_str_equal (g_action_get_name (G_ACTION (action)), "depth-more"))
    cr_graph_canvas_set_group_level (canvas, level + 1);
  else if (level > 0)
    cr_graph_canvas_set_group_level (canvas, level - 1);
}

/* ---- keys ---- */

/* Typing goes to text fields (and arrows to sliders, like the expression
 * panel's or the Training page's loss curve, and grids, whose roles say
 * so); the stepper's keys apply everywhere else. */
gboolean
cr_window_focus_takes_arrows (CrWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  for (GtkWidget *w = focus; w; w = gtk_widget_get_parent (w))
    {
      GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (w));
      if (GTK_IS_TEXT_VIEW (w) || GTK_IS_EDITABLE (w) || GTK_IS_TEXT (w) || GTK_IS_RANGE (w)
          || role == GTK_ACCESSIBLE_ROLE_SLIDER || role == GTK_ACCESSIBLE_ROLE_GRID)
        return TRUE;
    }
  return FALSE;
}

gboolean
cr_window_focus_in_popover (CrWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  return focus && gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) != NULL;
}

static gboolean
focus_in_source_view (CrWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  return focus && (focus == GTK_WIDGET (self->source_view)
                   || gtk_widget_is_ancestor (focus, GTK_WIDGET (self->source_view)));
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrWindow              *self)
{
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  /* Walking a leaf's paths, the same keys go from path to path. */
  if (cr_window_paths_key (self, keyval, state))
    return TRUE;
  const char *action = NULL;
  gboolean presenting = gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
  gboolean stepping = gtk_stack_get_visible_child (self->main_stack)
                      != GTK_WIDGET (self->gallery_scroller);

  switch (keyval)
    {
    /* A presenter's clicker sends these: they step wherever the focus is. */
    case GDK_KEY_Page_Down:
      action = "page-forward";
      break;
    case GDK_KEY_Page_Up:
      action = "page-back";
      break;
    case GDK_KEY_Escape:
      /* A popover's (a leaf's editor on the graph): it closes, nothing else. */
      if (cr_window_focus_in_popover (self))
        return FALSE;
      /* Presenting, the first Escape gives the keys back to the stepper
       * from whatever took the arrows (the editor after Ctrl+L, a slider),
       * and the next one leaves: a clicker that sends Escape leaves in
       * two presses at most, and the room never loses the lesson while
       * the lecturer only meant to stop typing. */
      if (presenting && !cr_window_focus_takes_arrows (self))
        {
          cr_window_set_presentation (self, FALSE);
          return TRUE;
        }
      if (presenting || focus_in_source_view (self))
        {
          gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
          return TRUE;
        }
      return FALSE;
    default:
      if (cr_window_focus_takes_arrows (self))
        return FALSE;
      switch (keyval)
        {
        case GDK_KEY_space:
        case GDK_KEY_Right:
        case GDK_KEY_KP_Right:
          action = "step-forward";
          break;
        case GDK_KEY_Left:
        case GDK_KEY_KP_Left:
          action = "step-back";
          break;
        case GDK_KEY_Home:
          action = "step-first";
          break;
        case GDK_KEY_End:
          action = "step-last";
          break;
        case GDK_KEY_p:
        case GDK_KEY_P:
          action = "play";
          break;
        case GDK_KEY_o:
        case GDK_KEY_O:
          action = "group-open";
          break;
        case GDK_KEY_c:
        case GDK_KEY_C:
          action = "group-close";
          break;
        case GDK_KEY_bracketright:
          action = "depth-more";
          break;
        case GDK_KEY_bracketleft:
          action = "depth-less";
          break;
        default:
          return FALSE;
        }
    }
  if (!stepping)
    return FALSE;
  /* Consumed even when disabled (at the end), so Space does not also press
   * whatever button has the focus. */
  if (g_action_group_get_action_enabled (G_ACTION_GROUP (self), action))
    g_action_group_activate_action (G_ACTION_GROUP (self), action, NULL);
  return TRUE;
}

void
cr_window_stepper_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "step-forward", .activate = step_forward_activated },
    { .name = "step-back", .activate = step_back_activated },
    { .name = "step-first", .activate = step_first_activated },
    { .name = "step-last", .activate = step_last_activated },
    { .name = "step-to", .activate = step_to_activated, .parameter_type = "i" },
    { .name = "play", .activate = play_activated, .state = "false" },
    { .name = "speed", .parameter_type = "s", .state = "'1'", .change_state = speed_changed },
    { .name = "group-open", .activate = group_open_activated },
    { .name = "group-close", .activate = group_close_activated },
    { .name = "depth-more", .activate = depth_activated },
    { .name = "depth-less", .activate = depth_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);

  GtkEventController *keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  g_signal_connect (self->canvas, "notify::step", G_CALLBACK (on_step_changed), self);
}

void
cr_window_stepper_dispose (CrWindow *self)
{
  g_clear_handle_id (&self->play_timeout_id, g_source_remove);
}
