/* cr-window-practice.c — Practice: predict, then reveal (win.practice,
 * Ctrl+Shift+P; win.practice-harder hides the local gradients too), in the
 * header menu. The step card asks (cr-step-card-practice.h); the window
 * keeps the score beside the stepper's label and, presenting, lets the
 * clicker's next key reveal the answer before the one after moves on. All
 * of it is installed from here, so the window's template is not touched. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-inspector.h"
#include "cr-step-card-practice.h"

#define SCORE_KEY "cr-practice-score-label"

static gboolean
presenting (CrWindow *self)
{
  return gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
}

static CrStepCard *
card (CrWindow *self)
{
  return self->step_card ? CR_STEP_CARD (self->step_card) : NULL;
}

static gboolean
action_state (CrWindow   *self,
              const char *name)
{
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (self), name);
  return state && g_variant_get_boolean (state);
}

/* The score beside the stepper's label: "7 of 9 right". */
static void
update_score (CrWindow *self)
{
  GtkLabel *label = g_object_get_data (G_OBJECT (self), SCORE_KEY);
  if (!label || !card (self))
    return;
  guint right = 0, answered = 0;
  cr_step_card_practice_score (card (self), &right, &answered);
  gboolean on = cr_step_card_get_practice (card (self));
  g_autofree char *text = answered > 0 ? g_strdup_printf ("%u of %u right", right, answered)
                                       : g_strdup ("Practice");
  gtk_label_set_label (label, text);
  gtk_widget_set_visible (GTK_WIDGET (label), on && !presenting (self));
}

/* The graph's labels and the inspector do not give away what the card
 * asks. */
static void
update_canvas (CrWindow *self)
{
  if (!card (self))
    return;
  gboolean hides = cr_step_card_practice_hides (card (self));
  cr_graph_canvas_set_hide_step_gradients (self->canvas, hides);
  if (self->inspector)
    {
      gboolean forward = cr_graph_canvas_get_forward_step (self->canvas) >= 0;
      cr_inspector_set_hidden_step (CR_INSPECTOR (self->inspector),
                                    hides && !forward ? cr_graph_canvas_get_step (self->canvas)
                                                      : -1);
      cr_inspector_set_hidden_op (CR_INSPECTOR (self->inspector),
                                  hides && forward ? cr_graph_canvas_get_forward_op (self->canvas)
                                                   : -1);
    }
}

static void
apply (CrWindow *self)
{
  if (!card (self))
    return;
  gboolean on = action_state (self, "practice");
  CrPracticeLevel level = action_state (self, "practice-harder") ? CR_PRACTICE_LEVEL_LOCAL
                                                                 : CR_PRACTICE_LEVEL_SENT;
  cr_step_card_set_practice_presenting (card (self), presenting (self));
  cr_step_card_set_practice (card (self), on, level);
  /* The card again from the model shown, as a step change builds it. */
  cr_window_update_step (self);
  update_score (self);
  update_canvas (self);
}

static void
toggle_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  g_autoptr (GVariant) state = g_action_get_state (G_ACTION (action));
  g_simple_action_set_state (action, g_variant_new_boolean (!g_variant_get_boolean (state)));
  CrWindow *self = user_data;
  /* Harder practice is practice. */
  if (g_str_equal (g_action_get_name (G_ACTION (action)), "practice-harder")
      && action_state (self, "practice-harder") && !action_state (self, "practice"))
    {
      GAction *practice = g_action_map_lookup_action (G_ACTION_MAP (self), "practice");
      g_simple_action_set_state (G_SIMPLE_ACTION (practice), g_variant_new_boolean (TRUE));
    }
  apply (self);
}

static void
reveal_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  CrWindow *self = user_data;
  if (card (self))
    cr_step_card_practice_reveal (card (self));
}

/* Presenting, the clicker's next key (Page Down, →, Space, ↓) reveals a
 * step that hides its answer; the next one moves on as always. */
static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrWindow              *self)
{
  if (!presenting (self) || !card (self)
      || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Page_Down:
      return cr_step_card_practice_reveal (card (self));
    /* Where the focus takes them (the loss curve, an answer's entry), the
     * arrows and Space are its own; the clicker's Page Down still reveals. */
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
    case GDK_KEY_Down:
    case GDK_KEY_space:
      return !cr_window_focus_takes_arrows (self) && cr_step_card_practice_reveal (card (self));
    default:
      return FALSE;
    }
}

static void
on_practice_changed (CrStepCard *step_card,
                     CrWindow   *self)
{
  update_score (self);
  update_canvas (self);
}

/* After the stepper's own handler has shown the new step on the card. */
static void
on_step_changed (GObject    *object,
                 GParamSpec *pspec,
                 CrWindow   *self)
{
  update_canvas (self);
}

static void
on_presentation_changed (GObject    *object,
                         GParamSpec *pspec,
                         CrWindow   *self)
{
  if (!card (self))
    return;
  cr_step_card_set_practice_presenting (card (self), presenting (self));
  if (cr_step_card_get_practice (card (self)))
    cr_window_update_step (self);
  update_score (self);
  update_canvas (self);
}

void
cr_window_practice_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "practice", .activate = toggle_activated, .state = "false" },
    { .name = "practice-harder", .activate = toggle_activated, .state = "false" },
    { .name = "practice-reveal", .activate = reveal_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);

  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control><Shift>p"),
                      gtk_named_action_new ("win.practice")));
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  /* Before the stepper's keys (capture phase, on the window). */
  GtkEventController *keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  if (self->step_card)
    g_signal_connect_object (self->step_card, "practice-changed",
                             G_CALLBACK (on_practice_changed), self, 0);
  g_signal_connect_object (self->canvas, "notify::presentation",
                           G_CALLBACK (on_presentation_changed), self, 0);
  g_signal_connect_object (self->canvas, "notify::step", G_CALLBACK (on_step_changed), self,
                           G_CONNECT_AFTER);

  /* The score, at the start of the header bar's end. */
  GtkWidget *score = gtk_label_new ("Practice");
  gtk_widget_add_css_class (score, "dim-label");
  gtk_widget_add_css_class (score, "cr-practice-header-score");
  gtk_widget_set_tooltip_text (score, "Practice: your answers at this run's steps");
  gtk_widget_set_visible (score, FALSE);
  adw_header_bar_pack_end (self->header_bar, score);
  g_object_set_data (G_OBJECT (self), SCORE_KEY, score);

  GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
  if (!menu || g_menu_model_get_n_items (menu) < 2)
    return;
  g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
  if (G_IS_MENU (section))
    {
      g_menu_append (G_MENU (section), "_Practice: Predict, Then Reveal", "win.practice");
      g_menu_append (G_MENU (section), "Practice _Harder: Local Gradients Too",
                     "win.practice-harder");
    }
}
