/* cr-window-present.c — presentation as a lecturer drives it with a clicker,
 * which sends only Page Down and Page Up (some also b, period, F5, Escape)
 * and cannot scroll: the two page actions read a long step card in parts
 * (ui/cr-step-card-pages.c) before they move to the next or previous step,
 * and the stepper's label says which part is in view; b or a period blanks
 * the screen; F9 fits the graph again to its new room. Entering and leaving
 * presentation stay in cr-window.c. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-step-card-pages.h"
#include "cr-soft-breaks.h"

static gboolean
presenting (CrWindow *self)
{
  return gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
}

/* Paging applies in presentation while the card is the sidebar's page
 * (not the node inspector). Elsewhere a mouse can scroll: the keys step. */
static gboolean
paging (CrWindow *self)
{
  return presenting (self)
         && gtk_stack_get_visible_child (self->sidebar_stack) == GTK_WIDGET (self->step_scroller);
}

static void
page_forward_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  CrWindow *self = user_data;
  if (paging (self) && cr_step_card_pages_next (self->step_scroller))
    return;
  if (g_action_group_get_action_enabled (G_ACTION_GROUP (self), "step-forward"))
    g_action_group_activate_action (G_ACTION_GROUP (self), "step-forward", NULL);
}

static void
page_back_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  CrWindow *self = user_data;
  if (paging (self) && cr_step_card_pages_previous (self->step_scroller))
    return;
  if (!g_action_group_get_action_enabled (G_ACTION_GROUP (self), "step-back"))
    return;
  g_action_group_activate_action (G_ACTION_GROUP (self), "step-back", NULL);
  /* Back to where the previous step ended: going back through a lesson
   * shows each step as it was left. */
  if (paging (self))
    cr_step_card_pages_show_last (self->step_scroller);
}

void
cr_window_append_card_part (CrWindow *self,
                            GString  *text)
{
  if (!presenting (self))
    return;
  guint part = 0;
  guint parts = cr_step_card_pages_count (self->step_scroller, &part);
  if (parts > 1)
    g_string_append_printf (text, " · part %u of %u", part + 1, parts);
}

void
cr_window_show_card_top (CrWindow *self)
{
  cr_step_card_pages_show_first (self->step_scroller);
}

#define LABEL_IDLE "cr-present-label-idle"

static gboolean
update_label_idle (gpointer user_data)
{
  CrWindow *self = user_data;
  g_object_steal_data (G_OBJECT (self), LABEL_IDLE);
  cr_window_update_step_label (self);
  return G_SOURCE_REMOVE;
}

static void
remove_source (gpointer id)
{
  g_source_remove (GPOINTER_TO_UINT (id));
}

/* The card's size or position changed: the part shown may have. The label
 * follows once the frame is drawn, not here: this runs while the sidebar is
 * laid out, too late for the stepper's bar to take a new size in this frame. */
static void
on_card_scrolled (GtkAdjustment *adjustment,
                  CrWindow      *self)
{
  if (g_object_get_data (G_OBJECT (self), LABEL_IDLE))
    return;
  /* Added while GTK lays out a frame, it runs when that frame is done.
   * At an idle priority it could wait behind a stream of frames (an
   * animation on the canvas). */
  guint id = g_idle_add_full (G_PRIORITY_DEFAULT, update_label_idle, self, NULL);
  g_object_set_data_full (G_OBJECT (self), LABEL_IDLE, GUINT_TO_POINTER (id), remove_source);
}

/* No label update for a window that is going. */
static void
on_destroy (CrWindow *self)
{
  g_object_set_data (G_OBJECT (self), LABEL_IDLE, NULL);
}

/* F9 showed or hid the script: in presentation the graph takes the new
 * room at once (fitted again around the step), whatever the view was. */
static void
on_editor_shown_or_hidden (GtkWidget  *editor_column,
                           GParamSpec *pspec,
                           CrWindow   *self)
{
  if (presenting (self))
    cr_graph_canvas_refit (self->canvas);
}

/* The stepper's label, with break points in a long grad_fn name: over the
 * card a name such as BinaryCrossEntropyWithLogitsBackward0 is wider than
 * the sidebar at presentation's type. */
static gboolean
add_soft_breaks (GBinding     *binding,
                 const GValue *from,
                 GValue       *to,
                 gpointer      user_data)
{
  g_value_take_string (to, cr_soft_breaks_add (g_value_get_string (from)));
  return TRUE;
}

/* The start-up hint shows in the step label's place: the label gives way
 * while the hint fades in, and comes back once it has faded out, so that
 * the two never show one through the other. */
static void
on_hint_revealed (GtkRevealer *revealer,
                  GParamSpec  *pspec,
                  CrWindow    *self)
{
  gboolean hint = gtk_revealer_get_reveal_child (revealer) || gtk_revealer_get_child_revealed (revealer);
  gtk_widget_set_opacity (gtk_overlay_get_child (GTK_OVERLAY (self->present_header)), hint ? 0.0 : 1.0);
}

/* ---- the clicker's blank-screen key ---- */

gboolean
cr_window_get_blanked (CrWindow *self)
{
  return gtk_widget_has_css_class (GTK_WIDGET (self), "cr-blanked");
}

void
cr_window_set_blanked (CrWindow *self,
                       gboolean  blanked)
{
  blanked = blanked && presenting (self);
  if (blanked == cr_window_get_blanked (self))
    return;
  if (blanked)
    gtk_widget_add_css_class (GTK_WIDGET (self), "cr-blanked");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "cr-blanked");
  /* The window's own background shows through: black. */
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (self));
  if (content)
    gtk_widget_set_opacity (content, blanked ? 0.0 : 1.0);
}

/* Clickers send b or a period for "blank the screen", as slide programs
 * take them. In presentation they do that wherever the focus is, so that
 * they never type into the script (a re-run in front of the room). */
static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrWindow              *self)
{
  if (!presenting (self) || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_b:
    case GDK_KEY_B:
    case GDK_KEY_period:
    case GDK_KEY_KP_Decimal:
      /* Typed into a leaf's editor on the graph: a number's point. (In
       * the script a clicker's keys still blank: the script is not for
       * typing while presenting.) */
      if (cr_window_focus_in_popover (self))
        return FALSE;
      cr_window_set_blanked (self, !cr_window_get_blanked (self));
      return TRUE;
    default:
      return FALSE;
    }
}

/* Whatever moves the lesson on (a step, leaving presentation) shows it. */
static void
on_step_or_mode_changed (GObject    *object,
                         GParamSpec *pspec,
                         CrWindow   *self)
{
  cr_window_set_blanked (self, FALSE);
}

void
cr_window_present_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "page-forward", .activate = page_forward_activated },
    { .name = "page-back", .activate = page_back_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);

  GtkAdjustment *card = gtk_scrolled_window_get_vadjustment (self->step_scroller);
  g_signal_connect_object (card, "changed", G_CALLBACK (on_card_scrolled), self, 0);
  g_signal_connect_object (card, "value-changed", G_CALLBACK (on_card_scrolled), self, 0);
  g_signal_connect (self, "destroy", G_CALLBACK (on_destroy), NULL);
  g_signal_connect_object (self->editor_column, "notify::visible",
                           G_CALLBACK (on_editor_shown_or_hidden), self, 0);

  /* In presentation the step's label heads the step card (cr-window.ui). */
  GtkWidget *present_label = gtk_overlay_get_child (GTK_OVERLAY (self->present_header));
  cr_soft_breaks_no_hyphens (GTK_LABEL (present_label));
  g_object_bind_property_full (self->step_label, "label", present_label, "label", G_BINDING_SYNC_CREATE,
                               add_soft_breaks, NULL, NULL, NULL);
  g_signal_connect_object (self->hint_revealer, "notify::reveal-child", G_CALLBACK (on_hint_revealed),
                           self, 0);
  g_signal_connect_object (self->hint_revealer, "notify::child-revealed", G_CALLBACK (on_hint_revealed),
                           self, 0);

  GtkEventController *keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  g_signal_connect_object (self->canvas, "notify::step", G_CALLBACK (on_step_or_mode_changed), self, 0);
  g_signal_connect_object (self->canvas, "notify::presentation",
                           G_CALLBACK (on_step_or_mode_changed), self, 0);
}
