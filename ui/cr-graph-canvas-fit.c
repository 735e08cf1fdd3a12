/* cr-graph-canvas-fit.c — the canvas's first view: the zoom at which a
 * graph is readable (11 px type, 20 px in presentation), where it goes in
 * the part of the canvas no control covers (whole, or around the current
 * step, the error or the output), and which drawing fits best: the way
 * the graph flows, and whether its leaves stand beside their ops. Moved
 * from cr-graph-canvas.c as it was. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <math.h>
#include <string.h>

#define MARGIN        CR_GRAPH_CANVAS_MARGIN
/* A readable first view keeps its nodes this many pixels from the canvas's
 * edges: the layout's own pad (CR_GRAPH_LAYOUT_PAD) counts towards them. */
#define NODE_MARGIN   11.0
/* The first view of a graph is readable: its smallest type (edge labels,
 * captions: CR_GRAPH_LAYOUT_LABEL_SIZE points) at least this many pixels.
 * A graph that fits so is shown whole; a bigger one around the part that
 * matters (the output, the current step), and the overview shows the rest. */
#define MIN_TYPE_PX   11.0
/* Fit (Ctrl+0) shows the whole graph however small, but does not blow a
 * small one up past the readable zoom or 100 %. */
#define FIT_MAX       1.0
/* In presentation the first view's smallest type (edge labels, captions)
 * is at least this many pixels: read from the back of a room. */
#define PRESENT_TYPE_PX 20.0
#define ZOOM_MIN      CR_GRAPH_CANVAS_ZOOM_MIN
#define ZOOM_MAX      CR_GRAPH_CANVAS_ZOOM_MAX

/* The node a first view keeps in sight when the graph does not fit: the
 * current step's while stepping, else the output, where backward starts. */
static int
anchor_node (CrGraphCanvas *self)
{
  const CrGraphModel *m = self->model;
  const CrGraphNode *current = self->step >= 0 ? cr_graph_model_find_step (m, self->step) : NULL;
  if (current && current->id < self->layout->n_nodes)
    return (int) current->id;
  for (guint i = 0; i < m->nodes->len && i < self->layout->n_nodes; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (m->nodes, i);
      if (n->kind == CR_GRAPH_NODE_OUTPUT)
        return (int) i;
    }
  const CrGraphNode *first = cr_graph_model_find_step (m, 0);
  return first && first->id < self->layout->n_nodes ? (int) first->id : -1;
}

/* An empty span (x0 > x1), for span_add_node() to grow. */
static void
span_clear (double span[4])
{
  span[0] = span[1] = G_MAXDOUBLE;
  span[2] = span[3] = -G_MAXDOUBLE;
}

/* Grows span (x0, y0, x1, y1 in graph points; x0 > x1: empty) to hold
 * node's box. */
static void
span_add_node (CrGraphCanvas     *self,
               const CrGraphNode *node,
               double             span[4])
{
  if (!node || node->id >= self->layout->n_nodes)
    return;
  const CrGraphBox *b = &self->layout->nodes[node->id];
  span[0] = MIN (span[0], b->x);
  span[1] = MIN (span[1], b->y);
  span[2] = MAX (span[2], b->x + b->width);
  span[3] = MAX (span[3], b->y + b->height);
}

/* What a run that stopped with an error is about, for its first view: the
 * failing node and the culprits of an in-place error (the ops whose saved
 * tensor a statement changed), as a span of graph points. FALSE: no error
 * drawn on this graph. */
static gboolean
error_span (CrGraphCanvas *self,
            double         span[4])
{
  const CrGraphModel *m = self->model;
  const CrRunRecord *record = m->record;
  span_clear (span);
  if (!record)
    return FALSE;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (record->errors, i);
      if (e->backward >= 0 && e->backward != m->backward)
        continue;
      span_add_node (self, e->op >= 0 ? cr_graph_model_find_op (m, e->op)
                                      : cr_graph_model_find_tensor (m, e->tensor), span);
    }
  if (span[0] > span[2])
    return FALSE;
  for (guint i = 0; i < m->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (m->nodes, i);
      if (n->kind != CR_GRAPH_NODE_OP || n->op < 0 || (guint) n->op >= record->ops->len)
        continue;
      const CrRecordOp *op = g_ptr_array_index (record->ops, n->op);
      for (guint s = 0; s < op->saved->len; s++)
        if (((const CrRecordSaved *) g_ptr_array_index (op->saved, s))->modified_span.line > 0)
          span_add_node (self, n, span);
    }
  return TRUE;
}

/* The node the coach's first finding on this graph rings (its op, else its
 * tensor: a leaf found in one backward is on every iteration's graph), as a
 * span of graph points, for the first view to show whole. FALSE: no
 * finding with a node here. */
static gboolean
finding_span (CrGraphCanvas *self,
              double         span[4])
{
  const CrRunRecord *record = self->model->record;
  span_clear (span);
  for (guint i = 0; record && i < record->findings->len && span[0] > span[2]; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      const CrGraphNode *node = f->op >= 0 ? cr_graph_model_find_op (self->model, f->op) : NULL;
      if (!node && f->tensor >= 0)
        node = cr_graph_model_find_tensor (self->model, f->tensor);
      span_add_node (self, node, span);
    }
  return span[0] <= span[2];
}

/* The zoom at which the graph's smallest type is readable (see MIN_TYPE_PX;
 * presentation: PRESENT_TYPE_PX on its larger type). */
static double
readable_zoom (CrGraphCanvas *self)
{
  double smallest = cr_graph_render_label_size ();
  if (self->presentation)
    return PRESENT_TYPE_PX / (smallest * CR_GRAPH_RENDER_PRESENT_TYPE);
  return MIN_TYPE_PX / smallest;
}

/* Where along one axis the graph (length g at zoom z) goes so that it lies
 * in the free span v0..v1 of the view: centred there when it fits; else
 * with the anchor (from a0 to a1 in graph points) centred, or at the far
 * end (end: the output, which is rightmost or lowest), without leaving an empty
 * margin wider than MARGIN. */
double
cr_graph_canvas_place_axis (double   v0,
            double   v1,
            double   g,
            double   z,
            double   a0,
            double   a1,
            gboolean end,
            double   margin)
{
  double v = v1 - v0;
  if (z * g <= v - 2 * margin || a0 > a1)
    return v0 + (v - z * g) / 2;
  /* margin is kept around the layout; around a node, NODE_MARGIN at least. */
  double t = end ? v1 - MAX (margin, NODE_MARGIN) - z * a1 : v0 + v / 2 - z * (a0 + a1) / 2;
  return CLAMP (t, v1 - margin - z * g, v0 + margin);
}

/* The margin kept around the layout when it is fitted at zoom z: its own
 * pad keeps the nodes in from its edges already, so only the rest of
 * NODE_MARGIN (the graph of the toy network fits the 1366 px window so).
 * In presentation the pad (19 px at 20 px type) may go off screen, the
 * nodes staying NODE_MARGIN in: a 1366x768 projector's pane is short of
 * every pixel (a negative margin). */
double
cr_graph_canvas_fit_margin (CrGraphCanvas *self,
            double         z)
{
  double pad = CR_GRAPH_LAYOUT_PAD * (self->presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1);
  return self->presentation ? NODE_MARGIN - z * pad : MAX (NODE_MARGIN - z * pad, 0.0);
}

/* The view that fits the graph into the part of the canvas no floating
 * control covers. whole: the whole graph, however small (up to the
 * readable zoom or FIT_MAX); else readable (see MIN_TYPE_PX): the whole
 * graph when it fits so, else the part around the anchor. FALSE before
 * the widget has a size. */
gboolean
cr_graph_canvas_fitted_view (CrGraphCanvas *self,
             gboolean       whole,
             double        *z_out,
             double        *tx_out,
             double        *ty_out)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  if (!self->layout || w <= 1 || h <= 1)
    return FALSE;
  double gw = MAX (self->layout->width, 1.0), gh = MAX (self->layout->height, 1.0);
  double readable = readable_zoom (self);
  /* Ctrl+0 fits at any zoom: the plain margin. */
  double margin = whole ? MARGIN : cr_graph_canvas_fit_margin (self, readable);
  double area[4];
  cr_graph_canvas_free_area (self, gw, gh, margin, area);
  double zw = (area[2] - area[0] - 2 * margin) / gw, zh = (area[3] - area[1] - 2 * margin) / gh;
  /* Presentation's large type, but not so large that a node the steps go
   * to is cut (a wide loss node in a 1366 px projector's graph pane); F9
   * gives the graph more room (H8). */
  if (self->presentation && !whole)
    {
      double widest = 1.0, tallest = 1.0;
      for (guint i = 0; i < self->layout->n_nodes; i++)
        {
          widest = MAX (widest, self->layout->nodes[i].width);
          tallest = MAX (tallest, self->layout->nodes[i].height);
        }
      readable = MIN (readable, MIN ((area[2] - area[0] - 2 * MARGIN) / widest,
                                     (area[3] - area[1] - 2 * MARGIN) / tallest));
      margin = cr_graph_canvas_fit_margin (self, readable);
    }
  double z = whole ? MIN (MIN (zw, zh), MAX (readable, FIT_MAX)) : readable;
  z = CLAMP (z, ZOOM_MIN, ZOOM_MAX);
  double tx = cr_graph_canvas_place_axis (area[0], area[2], gw, z, 1, 0, FALSE, margin);
  double ty = cr_graph_canvas_place_axis (area[1], area[3], gh, z, 1, 0, FALSE, margin);
  int anchor = whole ? -1 : anchor_node (self);
  double span[4];
  /* A run that stopped with an error opens on the failing node (and the
   * culprit); one the coach found a mistake in, on the node its finding
   * rings; with the output too when all fit. */
  if (anchor >= 0 && self->step < 0 && (error_span (self, span) || finding_span (self, span)))
    {
      double with[4] = { span[0], span[1], span[2], span[3] };
      span_add_node (self, g_ptr_array_index (self->model->nodes, anchor), with);
      if (z * (with[2] - with[0]) <= area[2] - area[0] - 2 * MARGIN
          && z * (with[3] - with[1]) <= area[3] - area[1] - 2 * MARGIN)
        memcpy (span, with, sizeof span);
      tx = cr_graph_canvas_place_axis (area[0], area[2], gw, z, span[0], span[2], FALSE, margin);
      ty = cr_graph_canvas_place_axis (area[1], area[3], gh, z, span[1], span[3], FALSE, margin);
    }
  else if (self->presentation
           && cr_graph_canvas_step_span (self, self->step, z, area[2] - area[0] - 2 * MARGIN,
                                         area[3] - area[1] - 2 * MARGIN, span))
    {
      /* Presentation follows the step: its node, inputs and output. */
      tx = cr_graph_canvas_place_axis (area[0], area[2], gw, z, span[0], span[2], FALSE, margin);
      ty = cr_graph_canvas_place_axis (area[1], area[3], gh, z, span[1], span[3], FALSE, margin);
    }
  else if (anchor >= 0)
    {
      const CrGraphBox *b = &self->layout->nodes[anchor];
      const CrGraphNode *n = g_ptr_array_index (self->model->nodes, anchor);
      /* The output is at the end of the flow: rightmost, or lowest. */
      gboolean output = n->kind == CR_GRAPH_NODE_OUTPUT && self->step < 0;
      gboolean down = self->layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
      tx = cr_graph_canvas_place_axis (area[0], area[2], gw, z, b->x, b->x + b->width, output && !down, margin);
      ty = cr_graph_canvas_place_axis (area[1], area[3], gh, z, b->y, b->y + b->height, output && down, margin);
    }
  /* A graph that fits the canvas though not the free area (the band under
   * the zoom buttons takes the whole width): the nearest place where it
   * is whole and clear of the controls, if there is one. */
  cr_graph_canvas_clear_place (self, self->layout, z, margin, &tx, &ty);
  *z_out = z;
  *tx_out = tx;
  *ty_out = ty;
  return TRUE;
}

/* Fit at once (a new graph, a new size); see fitted_view(). */
void
cr_graph_canvas_fit (CrGraphCanvas *self,
     gboolean       whole)
{
  double z, tx, ty;
  if (!cr_graph_canvas_fitted_view (self, whole, &z, &tx, &ty))
    {
      self->need_fit = TRUE;
      return;
    }
  cr_graph_canvas_stop_gliding (self);
  self->need_fit = FALSE;
  self->auto_view = !whole;
  cr_graph_canvas_set_view (self, z, tx, ty);
}

void
cr_graph_canvas_refit_if_auto (CrGraphCanvas *self)
{
  if (self->layout && (self->auto_view || self->need_fit))
    cr_graph_canvas_fit (self, FALSE);
}


/* ---- direction ------------------------------------------------------------ */

/* The zoom at which all of layout fits the part of the canvas no floating
 * control covers. */
static double
whole_zoom (CrGraphCanvas       *self,
            const CrGraphLayout *layout)
{
  double gw = MAX (layout->width, 1.0), gh = MAX (layout->height, 1.0);
  double area[4];
  double margin = cr_graph_canvas_fit_margin (self, readable_zoom (self));
  cr_graph_canvas_free_area (self, gw, gh, margin, area);
  return MIN ((area[2] - area[0] - 2 * margin) / gw, (area[3] - area[1] - 2 * margin) / gh);
}

/* Whether all of layout fits the canvas at the readable zoom, clear of
 * the floating controls. */
static gboolean
fits_readably (CrGraphCanvas       *self,
               const CrGraphLayout *layout)
{
  double z = readable_zoom (self);
  double tx = 0, ty = 0;
  return whole_zoom (self, layout) >= z
         || cr_graph_canvas_clear_place (self, layout, z, cr_graph_canvas_fit_margin (self, z), &tx, &ty);
}

/* The model laid out the other way, once per model. */
static gboolean
ensure_other_layout (CrGraphCanvas *self)
{
  if (self->other_layout)
    return TRUE;
  g_autoptr (GError) error = NULL;
  CrGraphLayoutDirection other = self->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM
                                   ? CR_GRAPH_LAYOUT_LEFT_TO_RIGHT : CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  self->other_layout = cr_graph_render_layout_directed (self->model, self->cache, other, &error);
  if (!self->other_layout)
    g_warning ("Could not lay out the graph: %s", error->message);
  return self->other_layout != NULL;
}

/* Turns the graph the other way. */
static void
swap_direction (CrGraphCanvas *self)
{
  if (!ensure_other_layout (self))
    return;
  cr_graph_canvas_end_morph (self);
  cr_graph_canvas_clear_scene (self);
  CrGraphLayout *was = self->layout;
  self->layout = self->other_layout;
  self->other_layout = was;
  self->direction = self->layout->direction;
  cr_graph_canvas_update_tab_order (self);
}

/* The way the graph flows at this size: in the 1366x768 window's graph
 * pane (about 650 by 700) a chain fits whole top to bottom, not left to
 * right. fresh (a new graph, a new mode): the pane's shape says, unless
 * the graph does not fit readably and the other way shows it bigger. A
 * resize turns the graph only when it no longer fits readably and the
 * other way shows it 15 % bigger, so that a drag does not flip it back
 * and forth; an edit keeps the way it flows. */
static void
choose_flow (CrGraphCanvas *self,
             gboolean       fresh)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  if (!self->layout || !self->model || w <= 1 || h <= 1)
    return;
  CrGraphLayoutDirection shape = h > w ? CR_GRAPH_LAYOUT_TOP_TO_BOTTOM : CR_GRAPH_LAYOUT_LEFT_TO_RIGHT;
  if (fresh && shape != self->direction)
    swap_direction (self);
  if (fits_readably (self, self->layout) || !ensure_other_layout (self))
    return;
  double z = whole_zoom (self, self->layout);
  if (fits_readably (self, self->other_layout)
      || whole_zoom (self, self->other_layout) > z * (fresh ? 1.0 : 1.15))
    swap_direction (self);
}

/* The most nodes a graph laid out with its leaves beside their ops may
 * have: the first view at 11 px type shows about 40. */
#define BESIDE_MAX_NODES 60

/* The model laid out top to bottom with its leaves beside their ops (see
 * cr_graph_layout_new_beside), or NULL. */
CrGraphLayout *
cr_graph_canvas_layout_beside (CrGraphCanvas *self,
               GError       **error)
{
  double type = cr_graph_render_label_size () * (self->presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1);
  return cr_graph_layout_new_beside (self->model, cr_graph_render_cache_sizes (self->cache), type,
                                     error);
}

/* Puts layout (owned) in place of the one shown. */
static void
replace_layout (CrGraphCanvas *self,
                CrGraphLayout *layout)
{
  cr_graph_canvas_end_morph (self);
  cr_graph_canvas_clear_scene (self);
  cr_graph_layout_free (self->layout);
  self->layout = layout;
  cr_graph_canvas_update_tab_order (self);
}

/* A graph that fits readably neither way, top to bottom, gets its leaves
 * beside the ops they feed when it fits so (a long chain: the MLP example
 * in the 1366x768 window); a new graph that fits without goes back to
 * dot's ranks. */
static void
choose_beside (CrGraphCanvas *self,
               gboolean       fresh)
{
  if (!self->layout || self->direction != CR_GRAPH_LAYOUT_TOP_TO_BOTTOM)
    return;
  g_autoptr (GError) error = NULL;
  if (self->layout->beside)
    {
      /* A resize keeps the leaves beside while that fits (a drag does not
       * flip the drawing), not when dot's ranks would fit and it does not
       * (presentation's pane, once the script is hidden). */
      if (!fresh && fits_readably (self, self->layout))
        return;
      CrGraphLayout *ranked = cr_graph_render_layout_directed (self->model, self->cache,
                                                               self->direction, &error);
      if (ranked && fits_readably (self, ranked))
        replace_layout (self, ranked);
      else
        cr_graph_layout_free (ranked);
      return;
    }
  /* Past a few dozen nodes (or with open groups) nothing fits readably
   * beside either, and another dot run would only slow the first view. */
  if (fits_readably (self, self->layout) || self->model->nodes->len > BESIDE_MAX_NODES
      || (self->model->clusters && self->model->clusters->len > 0))
    return;
  CrGraphLayout *beside = cr_graph_canvas_layout_beside (self, &error);
  if (beside && beside->beside && fits_readably (self, beside))
    replace_layout (self, beside);
  else
    cr_graph_layout_free (beside);
}

void
cr_graph_canvas_choose_direction (CrGraphCanvas *self,
                  gboolean       fresh)
{
  choose_flow (self, fresh);
  choose_beside (self, fresh);
}
