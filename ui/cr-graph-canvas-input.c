/* cr-graph-canvas-input.c — how the graph canvas answers the person:
 * click to select (the hit test runs on the layout's boxes), drag or scroll
 * to pan (a touchpad's two-finger scroll pans too), ctrl+scroll or pinch to
 * zoom around the pointer, and keys while it has the focus: + - 0 1 to
 * zoom, Tab/Shift+Tab through the nodes, Up/Down to pan, Escape to clear,
 * Enter or F2 (as a double-click) to activate the selected node.
 * Left/Right are not here: the window steps through backward with them,
 * in its capture phase, before the canvas sees them. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-run-record.h"

#include <math.h>

#define ZOOM_STEP     1.25
/* One wheel notch pans this far, in pixels; so does Up or Down. */
#define WHEEL_PIXELS  48.0
#define KEY_PAN       48.0

int
cr_graph_canvas_pick (CrGraphCanvas *self,
                      double         x,
                      double         y)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  const CrGraphLayout *layout = cr_graph_canvas_drawn_layout (self);
  if (!layout || self->zoom <= 0)
    return -1;
  double gx = (x - self->tx) / self->zoom, gy = (y - self->ty) / self->zoom;
  double tol = 3.0 / self->zoom;
  /* The last drawn is on top. */
  for (guint i = layout->n_nodes; i-- > 0;)
    {
      const CrGraphBox *b = &layout->nodes[i];
      if (gx >= b->x - tol && gx <= b->x + b->width + tol
          && gy >= b->y - tol && gy <= b->y + b->height + tol)
        return (int) i;
    }
  return -1;
}

void
cr_graph_canvas_click_at (CrGraphCanvas *self,
                          double         x,
                          double         y)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  int node = cr_graph_canvas_pick (self, x, y);
  /* A closed module call opens where it is clicked. */
  if (cr_graph_canvas_groups_click (self, node, x, y))
    return;
  cr_graph_canvas_set_selected (self, node);
}

gboolean
cr_graph_canvas_double_click_at (CrGraphCanvas *self,
                                 double         x,
                                 double         y)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  int node = cr_graph_canvas_pick (self, x, y);
  if (node < 0)
    return FALSE;
  cr_graph_canvas_set_selected (self, node);
  return cr_graph_canvas_activate_node (self, node);
}

gboolean
cr_graph_canvas_node_center (CrGraphCanvas *self,
                             int            node_id,
                             double        *x,
                             double        *y)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  const CrGraphLayout *layout = cr_graph_canvas_drawn_layout (self);
  if (!layout || node_id < 0 || (guint) node_id >= layout->n_nodes)
    return FALSE;
  double cx, cy;
  cr_graph_canvas_box_center (&layout->nodes[node_id], &cx, &cy);
  *x = self->tx + self->zoom * cx;
  *y = self->ty + self->zoom * cy;
  return TRUE;
}

void
cr_graph_canvas_update_cursor (CrGraphCanvas *self)
{
  const char *name = NULL;
  int hovered = -1;
  /* Not on a projector: a presenter's pointer left on the graph (or moved
   * with the window) would ring a node the lesson is not about. */
  if (self->layout && self->has_pointer && self->pointer_moved && !self->dragging
      && !self->presentation)
    hovered = cr_graph_canvas_pick (self, self->pointer_x, self->pointer_y);
  if (self->dragging)
    name = "grabbing";
  else if (self->layout && self->has_pointer)
    name = hovered >= 0 ? "pointer" : "grab";
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), name);
  if (hovered != self->hovered)
    {
      self->hovered = hovered;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
on_click_released (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   CrGraphCanvas   *self)
{
  if (gtk_widget_get_focusable (GTK_WIDGET (self)))
    gtk_widget_grab_focus (GTK_WIDGET (self));
  /* A double click on the empty canvas shows the whole graph; on a node
   * it activates the node (a scalar leaf: its value edited). */
  if (n_press == 2 && cr_graph_canvas_pick (self, x, y) < 0)
    {
      cr_graph_canvas_zoom_fit (self);
      return;
    }
  if (n_press == 2 && cr_graph_canvas_double_click_at (self, x, y))
    return;
  cr_graph_canvas_click_at (self, x, y);
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               CrGraphCanvas  *self)
{
  self->drag_tx = self->tx;
  self->drag_ty = self->ty;
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                CrGraphCanvas  *self)
{
  if (!self->layout)
    return;
  if (!self->dragging)
    {
      /* Small jitter while clicking is not a pan. */
      if (hypot (dx, dy) < 3.0)
        return;
      self->dragging = TRUE;
      cr_graph_canvas_update_cursor (self);
    }
  cr_graph_canvas_move_to (self, self->drag_tx + dx, self->drag_ty + dy);
}

static void
on_drag_end (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             CrGraphCanvas  *self)
{
  self->dragging = FALSE;
  cr_graph_canvas_update_cursor (self);
}

/* Where the pointer is on the window's surface: the canvas moving under a
 * resting pointer (F5 hides the editor beside it) changes (x, y), not this.
 * Worked out from the canvas's own point, not from the event: a crossing
 * GTK makes up when the layout changes under the pointer has none. */
static void
pointer_on_surface (GtkWidget *widget,
                    double     x,
                    double     y,
                    double     at[2])
{
  GtkNative *native = gtk_widget_get_native (widget);
  graphene_point_t p = GRAPHENE_POINT_INIT ((float) x, (float) y), q;
  at[0] = x;
  at[1] = y;
  if (!native || !gtk_widget_compute_point (widget, GTK_WIDGET (native), &p, &q))
    return;
  double sx, sy;
  gtk_native_get_surface_transform (native, &sx, &sy);
  at[0] = q.x + sx;
  at[1] = q.y + sy;
}

/* A pointer resting where the canvas appears (a window opened under it, a
 * projector's screen filled, the canvas widened under it) rings no node as
 * hovered: only one that moves does. */
static void
on_enter (GtkEventControllerMotion *motion,
          double                    x,
          double                    y,
          CrGraphCanvas            *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
  pointer_on_surface (GTK_WIDGET (self), x, y, self->pointer_rest);
  self->has_pointer = TRUE;
  self->pointer_moved = FALSE;
  cr_graph_canvas_update_cursor (self);
}

static void
on_motion (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           CrGraphCanvas            *self)
{
  double at[2];
  pointer_on_surface (GTK_WIDGET (self), x, y, at);
  if (!self->has_pointer)
    {
      self->pointer_rest[0] = at[0];
      self->pointer_rest[1] = at[1];
    }
  /* Under half a pixel is the float round trip through the layout. */
  else if (fabs (at[0] - self->pointer_rest[0]) >= 0.5 || fabs (at[1] - self->pointer_rest[1]) >= 0.5)
    self->pointer_moved = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  self->has_pointer = TRUE;
  cr_graph_canvas_update_cursor (self);
}

static void
on_leave (GtkEventControllerMotion *motion,
          CrGraphCanvas            *self)
{
  self->has_pointer = FALSE;
  cr_graph_canvas_update_cursor (self);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           CrGraphCanvas            *self)
{
  if (!self->layout)
    return FALSE;
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;
  if (mods & GDK_CONTROL_MASK)
    {
      double px = self->has_pointer ? self->pointer_x : gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      double py = self->has_pointer ? self->pointer_y : gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
      double factor = wheel ? pow (ZOOM_STEP, -dy) : exp (-dy * 0.01);
      cr_graph_canvas_zoom_around (self, self->zoom * factor, px, py);
      return TRUE;
    }
  if ((mods & GDK_SHIFT_MASK) && dx == 0)
    {
      dx = dy;
      dy = 0;
    }
  double unit = wheel ? WHEEL_PIXELS : 1.0;
  cr_graph_canvas_move_to (self, self->tx - dx * unit, self->ty - dy * unit);
  return TRUE;
}

static void
on_zoom_begin (GtkGesture       *gesture,
               GdkEventSequence *sequence,
               CrGraphCanvas    *self)
{
  self->pinch_zoom = self->zoom;
  self->pinch_tx = self->tx;
  self->pinch_ty = self->ty;
}

static void
on_zoom_scale_changed (GtkGestureZoom *gesture,
                       double          scale,
                       CrGraphCanvas  *self)
{
  double cx, cy;
  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    return;
  /* From the view at the start of the pinch, so rounding never drifts. */
  self->zoom = self->pinch_zoom;
  self->tx = self->pinch_tx;
  self->ty = self->pinch_ty;
  cr_graph_canvas_zoom_around (self, self->pinch_zoom * scale, cx, cy);
}

static void
pan_by (CrGraphCanvas *self,
        double         dx,
        double         dy)
{
  cr_graph_canvas_move_to (self, self->tx + dx, self->ty + dy);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrGraphCanvas         *self)
{
  gboolean ctrl = (state & GDK_CONTROL_MASK) != 0;
  gboolean alt = (state & GDK_ALT_MASK) != 0;
  if (alt)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      cr_graph_canvas_zoom_in (self);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_underscore:
    case GDK_KEY_KP_Subtract:
      cr_graph_canvas_zoom_out (self);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      cr_graph_canvas_zoom_fit (self);
      return TRUE;
    case GDK_KEY_1:
    case GDK_KEY_KP_1:
      if (ctrl)
        return FALSE;
      cr_graph_canvas_set_zoom (self, 1.0);
      return TRUE;
    case GDK_KEY_Tab:
    case GDK_KEY_KP_Tab:
    case GDK_KEY_ISO_Left_Tab:
      /* Ctrl+Tab still moves the focus out of the canvas. */
      if (ctrl || !self->layout || self->layout->n_nodes == 0)
        return FALSE;
      cr_graph_canvas_select_next (self, keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK));
      return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
    case GDK_KEY_F2:
      return !ctrl && cr_graph_canvas_activate_node (self, self->selected);
    case GDK_KEY_Escape:
      if (self->selected < 0)
        return FALSE;
      cr_graph_canvas_set_selected (self, -1);
      return TRUE;
    case GDK_KEY_Up:
      if (ctrl)
        return FALSE;
      pan_by (self, 0, KEY_PAN);
      return TRUE;
    case GDK_KEY_Down:
      if (ctrl)
        return FALSE;
      pan_by (self, 0, -KEY_PAN);
      return TRUE;
    default:
      return FALSE;
    }
}

/* What a node is, in a line or two: its full caption (the drawing may cut
 * it short), and what its drawing hints at (constant, freed, its step). */
static gboolean
on_query_tooltip (GtkWidget     *widget,
                  int            x,
                  int            y,
                  gboolean       keyboard,
                  GtkTooltip    *tooltip,
                  CrGraphCanvas *self)
{
  if (self->dragging || !self->model)
    return FALSE;
  /* On a projector a pointer left resting over the graph would pop this
   * box over the lesson at every step. */
  if (self->presentation && !keyboard)
    return FALSE;
  int id = keyboard ? self->selected : cr_graph_canvas_pick (self, x, y);
  const CrGraphLayout *layout = cr_graph_canvas_drawn_layout (self);
  if (id < 0 || (guint) id >= self->model->nodes->len || !layout)
    return FALSE;
  const CrGraphNode *n = g_ptr_array_index (self->model->nodes, id);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *title = g_markup_escape_text (n->title ? n->title : "", -1);
  g_string_append_printf (text, "<b>%s</b>", title);
  if (n->shape)
    {
      g_autofree char *shape = g_markup_escape_text (n->shape, -1);
      g_string_append_printf (text, "  %s", shape);
    }
  if (n->caption)
    {
      g_autofree char *caption = g_markup_escape_text (n->caption, -1);
      g_string_append_printf (text, "\n<tt>%s</tt>", caption);
    }
  /* Where it was made: a notebook's line by its cell ("cell 3, line 2"). */
  if (n->span.line > 0)
    {
      g_autofree char *where = cr_run_record_line_text (self->model->record, n->span.line, TRUE);
      g_string_append_printf (text, "\n%s", where);
    }
  if (CR_GRAPH_NODE_KIND_IS_CONSTANT (n->kind))
    g_string_append (text, "\nNo gradient flows into it");
  if (n->freed)
    g_string_append (text, "\nIts saved tensors are freed after backward");
  if (n->kind == CR_GRAPH_NODE_GROUP)
    g_string_append (text, "\nA closed module call: click it or press O to open it");
  if (n->step >= 0)
    g_string_append_printf (text, "\nBackward step %d", n->step + 1);
  const char *action = cr_graph_canvas_node_action_hint (self, id);
  if (action)
    g_string_append_printf (text, "\n%s", action);
  if (!cr_graph_canvas_node_computed (self, id))
    g_string_append (text, "\nNot computed yet at this forward step");
  gtk_tooltip_set_markup (tooltip, text->str);
  const CrGraphBox *b = &layout->nodes[id];
  GdkRectangle area = {
    (int) floor (self->tx + self->zoom * b->x), (int) floor (self->ty + self->zoom * b->y),
    (int) ceil (self->zoom * b->width), (int) ceil (self->zoom * b->height)
  };
  gtk_tooltip_set_tip_area (tooltip, &area);
  return TRUE;
}

void
cr_graph_canvas_init_input (CrGraphCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (on_query_tooltip), self);

  GtkGesture *click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));

  GtkGesture *drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));

  GtkGesture *zoom = gtk_gesture_zoom_new ();
  g_signal_connect (zoom, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (zoom, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (zoom));

  GtkEventController *scroll =
    gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (widget, scroll);

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "enter", G_CALLBACK (on_enter), self);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (widget, motion);

  GtkEventController *keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (widget, keys);
}
