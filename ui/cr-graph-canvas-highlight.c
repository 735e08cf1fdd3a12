/* cr-graph-canvas-highlight.c — a path of the chain rule lit on the canvas
 * (cr_graph_canvas_set_highlight): the tiles are drawn again with it, and
 * the lit part is brought into sight. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <math.h>

/* The box around every lit node of the model shown; FALSE: none lit. */
static gboolean
lit_box (CrGraphCanvas *self,
         CrGraphBox    *out)
{
  if (!self->highlight || !self->model || !self->layout)
    return FALSE;
  const guint8 *nodes = NULL;
  cr_graph_highlight_resolve (self->highlight, self->model, &nodes, NULL);
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (guint i = 0; i < self->model->nodes->len && i < self->layout->n_nodes; i++)
    {
      if (!nodes[i])
        continue;
      const CrGraphBox *b = &self->layout->nodes[i];
      x0 = MIN (x0, b->x);
      y0 = MIN (y0, b->y);
      x1 = MAX (x1, b->x + b->width);
      y1 = MAX (y1, b->y + b->height);
    }
  if (x0 > x1)
    return FALSE;
  *out = (CrGraphBox) { .x = x0, .y = y0, .width = x1 - x0, .height = y1 - y0 };
  return TRUE;
}

/* Whether any of box (graph points) is inside the widget. */
static gboolean
box_in_view (CrGraphCanvas    *self,
             const CrGraphBox *b)
{
  double x0 = self->tx + self->zoom * b->x, y0 = self->ty + self->zoom * b->y;
  double x1 = x0 + self->zoom * b->width, y1 = y0 + self->zoom * b->height;
  return x1 > 0 && y1 > 0 && x0 < gtk_widget_get_width (GTK_WIDGET (self))
         && y0 < gtk_widget_get_height (GTK_WIDGET (self));
}

void
cr_graph_canvas_set_highlight (CrGraphCanvas    *self,
                               CrGraphHighlight *highlight)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  if (highlight == self->highlight)
    {
      /* The same one again: the reference given is one too many. */
      cr_graph_highlight_unref (highlight);
      return;
    }
  g_clear_pointer (&self->highlight, cr_graph_highlight_unref);
  self->highlight = highlight;
  /* The tiles' key does not hold it: those of what it lights or fades
   * are painted again. */
  cr_graph_canvas_drawing_changed (self);
  /* The lit part brought into sight only where none of it shows: the
   * first view (refitted around the card that says the path) stays. */
  CrGraphBox box;
  if (lit_box (self, &box) && !box_in_view (self, &box))
    cr_graph_canvas_scroll_to_box (self, &box);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

CrGraphHighlight *
cr_graph_canvas_get_highlight (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), NULL);
  return self->highlight;
}
