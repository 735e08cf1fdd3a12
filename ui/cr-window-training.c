/* cr-window-training.c — the sidebar's Training page (cr-training-view.h):
 * shown for a run that trains (backward in a loop, or parameter updates);
 * a point of its loss curve picks that backward call, as the picker does,
 * and the picker's call is the point marked. */
#include "cr-window-private.h"
#include "cr-training-view.h"
#include "cr-training.h"

static void
on_backward_picked (CrTrainingView *view,
                    int             backward,
                    CrWindow       *self)
{
  if (backward < 0 || !self->models || (guint) backward >= self->models->len)
    return;
  /* The picker shows the call and the canvas follows it (on_call_selected). */
  gtk_drop_down_set_selected (self->call_dropdown, (guint) backward);
  if (self->model_index != (guint) backward)
    cr_window_show_model (self, (guint) backward);
}

/* win.training (Ctrl+Shift+T): the Training page, when the run trains,
 * with the keys on its loss curve, so that the page is worked from the
 * keyboard alone (Left, Right, Enter; Tab on to the element picker). */
static void
training_activated (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       data)
{
  CrWindow *self = data;
  GtkWidget *scroller = gtk_widget_get_ancestor (self->training_view, GTK_TYPE_SCROLLED_WINDOW);
  if (!gtk_stack_page_get_visible (gtk_stack_get_page (self->sidebar_stack, scroller)))
    return;
  gtk_stack_set_visible_child (self->sidebar_stack, scroller);
  gtk_widget_grab_focus (cr_training_view_get_curve (CR_TRAINING_VIEW (self->training_view)));
}

void
cr_window_training_init (CrWindow *self)
{
  GtkWidget *view = cr_training_view_new ();
  g_signal_connect (view, "backward-picked", G_CALLBACK (on_backward_picked), self);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  /* A page wider than the sidebar scrolls rather than widen it: the
   * sidebar's stack is as wide as its widest page, shown or not, and the
   * graph would lose that width on every page (at 1366x768 the sidebar
   * has 305 px). */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  GtkStackPage *page = gtk_stack_add_titled (self->sidebar_stack, scroller, "training", "Training");
  gtk_stack_page_set_visible (page, FALSE);
  self->training_view = view;

  static const GActionEntry actions[] = {
    { .name = "training", .activate = training_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (keys), GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control><Shift>t"),
                      gtk_named_action_new ("win.training")));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
  if (!menu || g_menu_model_get_n_items (menu) < 2)
    return;
  g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
  if (G_IS_MENU (section))
    g_menu_append (G_MENU (section), "_Training Loop", "win.training");
}

void
cr_window_training_update (CrWindow *self)
{
  if (!self->training_view)
    return;
  CrTrainingView *view = CR_TRAINING_VIEW (self->training_view);
  CrRunRecord *record = self->run_record;
  gboolean loop = record && cr_training_is_loop (record);
  GtkWidget *scroller = gtk_widget_get_ancestor (self->training_view, GTK_TYPE_SCROLLED_WINDOW);
  GtkStackPage *page = gtk_stack_get_page (self->sidebar_stack, scroller);
  if (!loop && gtk_stack_get_visible_child (self->sidebar_stack) == scroller)
    gtk_stack_set_visible_child_name (self->sidebar_stack, "step");
  gtk_stack_page_set_visible (page, loop);
  int chosen = record && record->backwards->len > 0 ? (int) self->model_index : -1;
  if (!loop)
    record = NULL;
  /* A new record is a new loop; the same one only moves the mark. */
  if (g_object_get_data (G_OBJECT (view), "cr-record") != (gpointer) record)
    {
      cr_training_view_set_record (view, record, chosen);
      g_object_set_data (G_OBJECT (view), "cr-record", record);
    }
  else
    cr_training_view_set_chosen (view, chosen);
}
