/* cr-window-scalars.c — "Inside one tensor op" in the window
 * (win.open-scalars: the key s on the graph, Ctrl+Shift+O, the main menu
 * or the inspector's button): the selected op node, else the op of the
 * forward or backward step shown, drawn as its
 * scalar graph (cr-scalar-view.h) over the graph in the canvas's overlay.
 * While it shows, the stepper's keys step through the op's output
 * elements instead, and Escape closes it; a run that shows a new record
 * closes it too (its op is gone). The action, its shortcut and the menu item are added
 * here, so the window's template is not touched. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-graph-canvas.h"
#include "cr-scalar-view.h"

#include <adwaita.h>

#define VIEW_KEY "cr-window-scalar-view"

CrScalarView *
cr_window_get_scalar_view (CrWindow *self)
{
  return g_object_get_data (G_OBJECT (self), VIEW_KEY);
}

static gboolean
view_shown (CrWindow *self)
{
  CrScalarView *view = cr_window_get_scalar_view (self);
  return view && gtk_widget_get_visible (GTK_WIDGET (view));
}

static void
view_closed (CrScalarView *view,
             CrWindow     *self)
{
  (void) view;
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static CrScalarView *
ensure_view (CrWindow *self)
{
  CrScalarView *view = cr_window_get_scalar_view (self);
  if (view)
    return view;
  GtkWidget *overlay = gtk_widget_get_parent (GTK_WIDGET (self->canvas));
  g_return_val_if_fail (GTK_IS_OVERLAY (overlay), NULL);
  view = CR_SCALAR_VIEW (cr_scalar_view_new ());
  gtk_widget_set_visible (GTK_WIDGET (view), FALSE);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), GTK_WIDGET (view));
  g_signal_connect_object (view, "closed", G_CALLBACK (view_closed), self, 0);
  /* The overlay owns the widget; the window's data only points at it. */
  g_object_set_data (G_OBJECT (self), VIEW_KEY, view);
  return view;
}

/* The op to open: the selected op node, else the op of the forward or
 * backward step shown. */
static int
op_to_open (CrWindow *self)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (!model)
    return -1;
  int selected = cr_graph_canvas_get_selected (self->canvas);
  if (selected >= 0 && (guint) selected < model->nodes->len)
    {
      const CrGraphNode *node = model->nodes->pdata[selected];
      if (node->kind == CR_GRAPH_NODE_OP && node->op >= 0)
        return node->op;
    }
  /* Stepping the forward pass: the op computing now. */
  int forward = cr_graph_canvas_get_forward_op (self->canvas);
  if (forward >= 0)
    return forward;
  const CrRecordStep *step = cr_graph_model_get_record_step (model,
                                                             cr_graph_canvas_get_step (self->canvas));
  return step && step->kind == CR_RECORD_STEP_NODE ? step->op : -1;
}

gboolean
cr_window_open_scalars (CrWindow  *self,
                        int        op,
                        GError   **error)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (!model || !model->record || op < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "Select an op of the graph (click it) to see it as scalars");
      return FALSE;
    }
  CrScalarView *view = ensure_view (self);
  cr_scalar_view_set_presentation (view, gtk_widget_has_css_class (GTK_WIDGET (self),
                                                                   "presentation"));
  if (!cr_scalar_view_open (view, model->record, op, model->backward, -1, error))
    return FALSE;
  gtk_widget_set_visible (GTK_WIDGET (view), TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (view));
  return TRUE;
}

static void
open_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  (void) action;
  (void) parameter;
  CrWindow *self = user_data;
  g_autoptr (GError) error = NULL;
  if (!cr_window_open_scalars (self, op_to_open (self), &error))
    {
      g_autofree char *message = g_strdup_printf ("Cannot open as scalars: %s", error->message);
      cr_window_toast (self, message);
    }
}

static void
close_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  (void) action;
  (void) parameter;
  CrWindow *self = user_data;
  if (view_shown (self))
    cr_scalar_view_close (cr_window_get_scalar_view (self));
}

static gboolean
focus_in_editor (CrWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  return focus && GTK_IS_TEXT_VIEW (focus);
}

/* Before the stepper's own (both in the capture phase on the window, this
 * one added after: see cr_window_scalars_init), so that while the view
 * shows, its keys step through the elements. */
static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrWindow              *self)
{
  (void) controller;
  (void) keycode;
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  if (view_shown (self))
    {
      if (focus_in_editor (self) && keyval != GDK_KEY_Page_Down && keyval != GDK_KEY_Page_Up)
        return FALSE;
      return cr_scalar_view_handle_key (cr_window_get_scalar_view (self), keyval);
    }
  if ((keyval == GDK_KEY_s || keyval == GDK_KEY_S) && !focus_in_editor (self)
      && gtk_widget_get_visible (GTK_WIDGET (self->canvas)) && cr_graph_canvas_get_model (self->canvas))
    {
      g_action_group_activate_action (G_ACTION_GROUP (self), "open-scalars", NULL);
      return TRUE;
    }
  return FALSE;
}

/* A run that shows another record (an edit) takes the op away; one that
 * leaves the graph as it was (a helper's run) does not. */
static void
run_finished (CrWindow *self)
{
  if (!view_shown (self))
    return;
  CrScalarView *view = cr_window_get_scalar_view (self);
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (!model || model->record != cr_scalar_view_get_record (view))
    cr_scalar_view_close (view);
}

void
cr_window_scalars_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "open-scalars", .activate = open_activated },
    { .name = "close-scalars", .activate = close_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);

  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts), GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control><Shift>o"),
                      gtk_named_action_new ("win.open-scalars")));
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  GtkEventController *keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  g_signal_connect (self, "run-finished", G_CALLBACK (run_finished), NULL);

  GMenuModel *menu = gtk_menu_button_get_menu_model (self->menu_button);
  if (!menu || g_menu_model_get_n_items (menu) < 2)
    return;
  g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
  if (G_IS_MENU (section))
    g_menu_append (G_MENU (section), "Open Op as _Scalars", "win.open-scalars");
}
