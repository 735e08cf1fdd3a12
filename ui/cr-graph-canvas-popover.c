/* cr-graph-canvas-popover.c — what a node offers when it is activated
 * (double-click, or Enter or F2 on the selected node): the "node-activated"
 * signal, the line its tooltip adds to say so, and a popover pointing at
 * the node (a scalar leaf's in-place editor), which follows the node while
 * the view moves and closes when the graph is replaced. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <math.h>

/* The node's box in widget pixels, as drawn now. */
static gboolean
node_rectangle (CrGraphCanvas *self,
                int            node_id,
                GdkRectangle  *rect)
{
  const CrGraphLayout *layout = cr_graph_canvas_drawn_layout (self);
  if (!layout || node_id < 0 || (guint) node_id >= layout->n_nodes)
    return FALSE;
  const CrGraphBox *b = &layout->nodes[node_id];
  rect->x = (int) floor (self->tx + self->zoom * b->x);
  rect->y = (int) floor (self->ty + self->zoom * b->y);
  rect->width = MAX (1, (int) ceil (self->zoom * b->width));
  rect->height = MAX (1, (int) ceil (self->zoom * b->height));
  return TRUE;
}

void
cr_graph_canvas_popover_follow (CrGraphCanvas *self)
{
  if (!self->popover)
    return;
  GdkRectangle now, was;
  if (!node_rectangle (self, self->popover_node, &now))
    return;
  /* Setting it lays the popover out again: only when the node moved. */
  if (gtk_popover_get_pointing_to (GTK_POPOVER (self->popover), &was)
      && now.x == was.x && now.y == was.y && now.width == was.width && now.height == was.height)
    return;
  gtk_popover_set_pointing_to (GTK_POPOVER (self->popover), &now);
}

void
cr_graph_canvas_popover_present (CrGraphCanvas *self)
{
  if (self->popover)
    gtk_popover_present (GTK_POPOVER (self->popover));
}

/* Closed, it goes at once: the next one is made for the graph then shown. */
static void
on_popover_closed (GtkPopover    *popover,
                   CrGraphCanvas *self)
{
  if (self->popover != GTK_WIDGET (popover))
    return;
  self->popover = NULL;
  self->popover_node = -1;
  g_signal_handlers_disconnect_by_func (popover, on_popover_closed, self);
  gtk_widget_unparent (GTK_WIDGET (popover));
}

void
cr_graph_canvas_popover_close (CrGraphCanvas *self)
{
  if (!self->popover)
    return;
  GtkWidget *popover = self->popover;
  if (gtk_widget_get_visible (popover))
    gtk_popover_popdown (GTK_POPOVER (popover));
  /* popdown emits "closed" (which unparents) only when it was shown. */
  if (self->popover == popover)
    on_popover_closed (GTK_POPOVER (popover), self);
}

void
cr_graph_canvas_popup_at_node (CrGraphCanvas *self,
                               GtkWidget     *popover,
                               int            node_id)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  g_return_if_fail (GTK_IS_POPOVER (popover));
  GdkRectangle rect;
  g_object_ref_sink (popover);
  cr_graph_canvas_popover_close (self);
  if (!node_rectangle (self, node_id, &rect))
    {
      g_object_unref (popover);
      return;
    }
  self->popover = popover;
  self->popover_node = node_id;
  gtk_widget_set_parent (popover, GTK_WIDGET (self));
  g_object_unref (popover);
  gtk_popover_set_pointing_to (GTK_POPOVER (popover), &rect);
  g_signal_connect (popover, "closed", G_CALLBACK (on_popover_closed), self);
  gtk_popover_popup (GTK_POPOVER (popover));
}

GtkPopover *
cr_graph_canvas_get_popover (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), NULL);
  return self->popover ? GTK_POPOVER (self->popover) : NULL;
}

gboolean
cr_graph_canvas_activate_node (CrGraphCanvas *self,
                               int            node_id)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  if (!self->layout || node_id < 0 || (guint) node_id >= self->layout->n_nodes)
    return FALSE;
  gboolean handled = FALSE;
  g_signal_emit_by_name (self, "node-activated", node_id, &handled);
  return handled;
}

void
cr_graph_canvas_set_action_hint (CrGraphCanvas           *self,
                                 CrGraphCanvasActionHint  func,
                                 gpointer                 user_data)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  self->action_hint = func;
  self->action_hint_data = user_data;
}

const char *
cr_graph_canvas_node_action_hint (CrGraphCanvas *self,
                                  int            node_id)
{
  if (!self->action_hint || !self->model || node_id < 0
      || (guint) node_id >= self->model->nodes->len)
    return NULL;
  return self->action_hint (self->model, (guint) node_id, self->action_hint_data);
}
