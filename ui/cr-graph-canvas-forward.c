/* cr-graph-canvas-forward.c — the forward pass stepped on the canvas: the
 * op computing at the step ringed and brought into sight, what is not
 * computed yet faint with its values hidden (cr-graph-forward.h). The
 * step is the window's to set; a new model starts with none (-1: every
 * node computed, as the backward steps show it). */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include "cr-graph-forward.h"

/* Room kept around what the view follows (cr-graph-canvas.c's MARGIN). */
#define FOLLOW_MARGIN 16.0

/* The model as run (the drawn one is a collapsed view while groups exist). */
static const CrGraphModel *
run_model (CrGraphCanvas *self)
{
  return self->full_model ? self->full_model : self->model;
}

static void
update_states (CrGraphCanvas *self)
{
  g_clear_pointer (&self->forward_states, g_free);
  if (self->model && self->forward_ops && self->forward_step >= 0)
    self->forward_states = cr_graph_forward_states (self->model, self->forward_ops,
                                                    self->forward_step);
  cr_graph_canvas_drawing_changed (self);
}

void
cr_graph_canvas_forward_model_changed (CrGraphCanvas *self,
                                       gboolean       keep_step)
{
  g_clear_pointer (&self->forward_ops, g_array_unref);
  if (run_model (self))
    self->forward_ops = cr_graph_forward_ops (run_model (self));
  if (!keep_step || !self->forward_ops
      || self->forward_step >= (int) self->forward_ops->len)
    self->forward_step = -1;
  update_states (self);
}

void
cr_graph_canvas_forward_dispose (CrGraphCanvas *self)
{
  g_clear_pointer (&self->forward_ops, g_array_unref);
  g_clear_pointer (&self->forward_states, g_free);
}

guint
cr_graph_canvas_get_n_forward_steps (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), 0);
  return self->forward_ops ? self->forward_ops->len : 0;
}

int
cr_graph_canvas_get_forward_step (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  return self->forward_step;
}

int
cr_graph_canvas_get_forward_op (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  if (!self->forward_ops || self->forward_step < 0)
    return -1;
  return g_array_index (self->forward_ops, int, self->forward_step);
}

void
cr_graph_canvas_set_forward_step (CrGraphCanvas *self,
                                  int            step)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  step = CLAMP (step, -1, (int) cr_graph_canvas_get_n_forward_steps (self) - 1);
  if (step == self->forward_step)
    return;
  self->forward_step = step;
  update_states (self);
  /* The op computing comes into sight. */
  const CrGraphNode *node = self->model && step >= 0
                            ? cr_graph_model_find_op (self->model, cr_graph_canvas_get_forward_op (self))
                            : NULL;
  if (!node || !self->layout || node->id >= self->layout->n_nodes)
    return;
  /* In presentation, as a backward step does: the op with its inputs and
   * its output (cr-graph-canvas-follow.c). */
  double span[4], area[4];
  if (self->presentation)
    {
      cr_graph_canvas_free_area (self, self->layout->width, self->layout->height, 0, area);
      if (cr_graph_canvas_step_span (self, -1, self->zoom, area[2] - area[0] - 2 * FOLLOW_MARGIN,
                                     area[3] - area[1] - 2 * FOLLOW_MARGIN, span))
        {
          CrGraphBox box = { .x = span[0], .y = span[1], .width = span[2] - span[0],
                             .height = span[3] - span[1] };
          cr_graph_canvas_scroll_to_box (self, &box);
          return;
        }
    }
  cr_graph_canvas_scroll_to_box (self, &self->layout->nodes[node->id]);
}

gboolean
cr_graph_canvas_node_computed (CrGraphCanvas *self,
                               int            node)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), TRUE);
  if (!self->forward_states || !self->model || node < 0 || (guint) node >= self->model->nodes->len)
    return TRUE;
  return self->forward_states[node] != CR_GRAPH_FORWARD_NOT_YET;
}
