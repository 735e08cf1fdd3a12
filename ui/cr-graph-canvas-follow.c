/* cr-graph-canvas-follow.c — presentation's view follows the lesson.
 *
 * On a projector the graph's type is 20 px; a graph too big to be whole so
 * is shown around the current step. What a step is about is its node, the
 * inputs its gradients go to and the output its gradient came from: the
 * step's span. The view keeps that span whole in the part of the canvas
 * no control covers, at the zoom of the first view (it does not pump from
 * step to step, and the type stays 20 px). A forward op's span is its
 * node, the tensors it computes from (a leaf's box, not only its
 * AccumulateGrad, which belongs to backward) and the box its result is
 * drawn in: not the ops that will use it, not computed yet. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <math.h>

static void
span_add_box (const CrGraphBox *b,
              double            span[4])
{
  span[0] = MIN (span[0], b->x);
  span[1] = MIN (span[1], b->y);
  span[2] = MAX (span[2], b->x + b->width);
  span[3] = MAX (span[3], b->y + b->height);
}

/* The node at the other end of edge e from node_id, G_MAXUINT: none. */
static guint
other_end (const CrGraphEdge *e,
           guint              node_id)
{
  guint other = e->from == node_id ? e->to : e->to == node_id ? e->from : G_MAXUINT;
  return other == node_id ? G_MAXUINT : other;
}

static void
add_unique (GArray *ids,
            guint   id)
{
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, guint, i) == id)
      return;
  g_array_append_val (ids, id);
}

GArray *
cr_graph_canvas_step_neighbours (CrGraphCanvas *self,
                                 guint          node_id,
                                 gboolean       forward)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint));
  const CrGraphModel *model = self->model;
  guint n = self->layout ? self->layout->n_nodes : 0;
  if (!model || node_id >= n)
    return ids;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      guint other = other_end (e, node_id);
      if (other >= n)
        continue;
      const CrGraphNode *o = g_ptr_array_index (model->nodes, other);
      if (!forward)
        add_unique (ids, other);
      else if (e->to == node_id)
        {
          /* An input; a leaf's comes through its AccumulateGrad. */
          add_unique (ids, other);
          for (guint k = 0; o->kind == CR_GRAPH_NODE_ACCUMULATE && k < model->edges->len; k++)
            {
              const CrGraphEdge *in = g_ptr_array_index (model->edges, k);
              if (in->to == other && in->from < n)
                add_unique (ids, in->from);
            }
        }
      else if (CR_GRAPH_NODE_KIND_IS_TENSOR (o->kind))
        add_unique (ids, other);   /* the box its result is drawn in */
    }
  return ids;
}

/* The span of node and its neighbours at the step (forward: a forward op's). */
static gboolean
span_of (CrGraphCanvas *self,
         guint          node_id,
         gboolean       forward,
         double         span[4])
{
  const CrGraphLayout *layout = self->layout;
  if (!layout || !self->model || node_id >= layout->n_nodes)
    return FALSE;
  span[0] = span[1] = G_MAXDOUBLE;
  span[2] = span[3] = -G_MAXDOUBLE;
  span_add_box (&layout->nodes[node_id], span);
  g_autoptr (GArray) ids = cr_graph_canvas_step_neighbours (self, node_id, forward);
  for (guint i = 0; i < ids->len; i++)
    span_add_box (&layout->nodes[g_array_index (ids, guint, i)], span);
  return TRUE;
}

gboolean
cr_graph_canvas_node_span (CrGraphCanvas *self,
                           guint          node_id,
                           double         span[4])
{
  return span_of (self, node_id, FALSE, span);
}

/* How many of the n intervals (lo, hi pairs) show at least `least` of
 * themselves (or all, when shorter) in the window w0..w1. */
static guint
shown_count (const double *iv,
             guint         n,
             double        w0,
             double        w1,
             double        least)
{
  guint count = 0;
  for (guint i = 0; i < n; i++)
    {
      double lo = iv[2 * i], hi = iv[2 * i + 1];
      double need = MIN (least, hi - lo) - 1e-6;
      if (MIN (hi, w1) - MAX (lo, w0) >= need)
        count++;
    }
  return count;
}

/* How good a window w0..w1 is: first how many neighbours show at all (a
 * sliver), then how many show enough to be told apart. */
static guint
window_score (const double *iv,
              guint         n,
              double        w0,
              double        w1,
              double        sliver,
              double        least)
{
  return 1000 * shown_count (iv, n, w0, w1, sliver) + shown_count (iv, n, w0, w1, least);
}

/* Along one axis, a window of length room that holds the node (n0..n1)
 * whole and shows as many of its neighbours (intervals iv) as it can, by
 * `least` each where there is room, else a sliver: among the windows that
 * end or start at the node or near a neighbour's near edge, the best, the
 * centred one on a tie. */
static void
best_window (double        n0,
             double        n1,
             const double *iv,
             guint         n,
             double        room,
             double        sliver,
             double        least,
             double        window[2])
{
  double lo = n1 - room, hi = n0;   /* where the window may start */
  double centred = CLAMP ((n0 + n1 - room) / 2, lo, hi);
  double best = centred;
  guint best_score = window_score (iv, n, centred, centred + room, sliver, least);
  const double reach[2] = { least, sliver };
  for (guint r = 0; r < 2; r++)
    for (guint i = 0; i < 2 * n + 2; i++)
      {
        double start;
        if (i == 2 * n)
          start = lo;
        else if (i == 2 * n + 1)
          start = hi;
        else if (i % 2 == 0)
          start = iv[i + 1] - reach[r];           /* a neighbour before: its end shows */
        else
          start = iv[i - 1] + reach[r] - room;    /* a neighbour after: its start shows */
        start = CLAMP (start, lo, hi);
        guint score = window_score (iv, n, start, start + room, sliver, least);
        if (score > best_score || (score == best_score && fabs (start - centred) < fabs (best - centred)))
          {
            best = start;
            best_score = score;
          }
      }
  window[0] = best;
  window[1] = best + room;
}

gboolean
cr_graph_canvas_step_span (CrGraphCanvas *self,
                           int            step,
                           double         z,
                           double         room_w,
                           double         room_h,
                           double         span[4])
{
  const CrGraphNode *node = self->model && step >= 0 ? cr_graph_model_find_step (self->model, step) : NULL;
  /* Step -1 while the forward pass is stepped: the op computing. */
  gboolean forward = FALSE;
  if (!node && self->model && step < 0 && cr_graph_canvas_get_forward_op (self) >= 0)
    {
      node = cr_graph_model_find_op (self->model, cr_graph_canvas_get_forward_op (self));
      forward = TRUE;
    }
  if (!node || z <= 0 || !span_of (self, node->id, forward, span))
    return FALSE;
  gboolean wide = z * (span[2] - span[0]) > room_w, tall = z * (span[3] - span[1]) > room_h;
  if (!wide && !tall)
    return TRUE;
  /* Along an axis where the span is longer than the room at 20 px type
   * (inputs side by side beside the script), a window that keeps the node
   * whole and shows as much of each neighbour as it can. */
  const CrGraphLayout *layout = self->layout;
  const CrGraphBox *b = &layout->nodes[node->id];
  g_autoptr (GArray) xs = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ys = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ids = cr_graph_canvas_step_neighbours (self, node->id, forward);
  for (guint i = 0; i < ids->len; i++)
    {
      const CrGraphBox *o = &layout->nodes[g_array_index (ids, guint, i)];
      double x[2] = { o->x, o->x + o->width }, y[2] = { o->y, o->y + o->height };
      g_array_append_vals (xs, x, 2);
      g_array_append_vals (ys, y, 2);
    }
  /* Enough of a neighbour to tell what it is (a few words of its title),
   * or at least to see that it is there. */
  double least = 80.0 / z, sliver = 24.0 / z;
  double window[2];
  if (wide)
    {
      best_window (b->x, b->x + b->width, (const double *) xs->data, xs->len / 2, room_w / z, sliver,
                   least, window);
      span[0] = window[0];
      span[2] = window[1];
    }
  if (tall)
    {
      best_window (b->y, b->y + b->height, (const double *) ys->data, ys->len / 2, room_h / z, sliver,
                   least, window);
      span[1] = window[0];
      span[3] = window[1];
    }
  return TRUE;
}
