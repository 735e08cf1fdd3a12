/* cr-graph-layout.c — run graphviz's `dot` on a CrGraphModel (big graphs go
 * to the layered layout of cr-graph-layout-layered.c).
 *
 * Graphviz only places things: nodes are fixed-size empty boxes of the sizes
 * the renderer measured, and we read back their centres, the edge splines
 * and the label positions, flipping y (graphviz's grows upwards). */
#include "cr-graph-layout-private.h"
#include "cr-graph-clusters.h"

#include <gvc.h>
#include <math.h>

/* One context for the process: creating one loads graphviz's plugins. */
static GVC_t *
context (void)
{
  static gsize gvc;
  if (g_once_init_enter (&gvc))
    g_once_init_leave (&gvc, (gsize) gvContext ());
  return (GVC_t *) gvc;
}

static void
set_double (void       *obj,
            const char *name,
            double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.4f", value);
  agsafeset (obj, (char *) name, buf, "");
}

void
cr_graph_layout_free (CrGraphLayout *self)
{
  if (!self)
    return;
  for (guint i = 0; i < self->n_edges; i++)
    g_free (self->edges[i].points);
  g_free (self->edges);
  g_free (self->nodes);
  g_free (self->clusters);
  g_free (self);
}

/* The point at fraction f of the way along a path, each Bézier segment
 * taking an equal share. */
static void
path_point (const CrGraphPath *p,
            double             f,
            double            *x,
            double            *y)
{
  guint n_seg = (p->n_points - 1) / 3;
  double s = n_seg * f;
  guint i = MIN ((guint) s, n_seg - 1);
  double t = s - i, mt = 1 - t;
  const double *q = p->points + 6 * i;
  *x = mt * mt * mt * q[0] + 3 * mt * mt * t * q[2] + 3 * mt * t * t * q[4] + t * t * t * q[6];
  *y = mt * mt * mt * q[1] + 3 * mt * mt * t * q[3] + 3 * mt * t * t * q[5] + t * t * t * q[7];
}

/* The point halfway along a path. */
static void
path_middle (const CrGraphPath *p,
             double            *x,
             double            *y)
{
  path_point (p, 0.5, x, y);
}

CrGraphLayout *
cr_graph_layout_copy (const CrGraphLayout *self)
{
  if (!self)
    return NULL;
  CrGraphLayout *copy = g_memdup2 (self, sizeof *self);
  copy->nodes = g_memdup2 (self->nodes, sizeof (CrGraphBox) * (self->n_nodes + 1));
  copy->edges = g_memdup2 (self->edges, sizeof (CrGraphPath) * (self->n_edges + 1));
  copy->clusters = self->clusters ? g_memdup2 (self->clusters, sizeof (CrGraphBox) * (self->n_clusters + 1))
                                  : NULL;
  for (guint i = 0; i < self->n_edges; i++)
    copy->edges[i].points = g_memdup2 (self->edges[i].points,
                                       sizeof (double) * 2 * self->edges[i].n_points);
  return copy;
}

/* The pair is drawn as one unit (the AccumulateGrad a pill under the
 * card), which saves the graph a whole column. */
int *
cr_graph_layout_find_pairs (const CrGraphModel *model)
{
  guint n_nodes = model->nodes->len;
  g_autofree guint *n_in = g_new0 (guint, n_nodes + 1);
  g_autofree guint *n_out = g_new0 (guint, n_nodes + 1);
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->from < n_nodes && e->to < n_nodes)
        {
          n_out[e->from]++;
          n_in[e->to]++;
        }
    }
  int *partner = g_new (int, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    partner[i] = -1;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->from >= n_nodes || e->to >= n_nodes || e->from == e->to)
        continue;
      const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      if (from->kind == CR_GRAPH_NODE_LEAF && to->kind == CR_GRAPH_NODE_ACCUMULATE
          && n_in[e->from] == 0 && n_out[e->from] == 1 && n_in[e->to] == 1
          && partner[e->from] < 0 && partner[e->to] < 0)
        {
          partner[e->from] = (int) e->to;
          partner[e->to] = (int) e->from;
        }
    }
  return partner;
}

/* A paired leaf's graphviz node: the card over the pill, as an HTML table
 * whose bottom cell is the port the AccumulateGrad's edges leave from. */
static void
set_pair_label (Agraph_t *g,
                Agnode_t *n,
                double    width,
                double    top_height,
                double    pill_height)
{
  g_autofree char *html = g_strdup_printf (
    "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\">"
    "<TR><TD FIXEDSIZE=\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\"></TD></TR>"
    "<TR><TD PORT=\"acc\" FIXEDSIZE=\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\"></TD></TR>"
    "</TABLE>",
    (int) ceil (width), (int) ceil (top_height), (int) ceil (width), (int) ceil (pill_height));
  char *label = agstrdup_html (g, html);
  agsafeset (n, (char *) "shape", (char *) "plain", "");
  agsafeset (n, (char *) "margin", (char *) "0", "");
  agsafeset (n, (char *) "width", (char *) "0", "");
  agsafeset (n, (char *) "height", (char *) "0", "");
  agset (n, (char *) "label", label);
  agstrfree (g, label);
}

void
cr_graph_layout_pair_edge (CrGraphPath      *p,
                           const CrGraphBox *leaf,
                           const CrGraphBox *acc)
{
  double x = acc->x + acc->width / 2;
  double y0 = leaf->y + leaf->height, y1 = acc->y - 4;
  p->n_points = 4;
  p->points = g_new (double, 2 * 4 + 2);
  for (int k = 0; k < 4; k++)
    {
      p->points[2 * k] = x;
      p->points[2 * k + 1] = y0 + (y1 - y0) * k / 3.0;
    }
  p->has_arrow = TRUE;
  p->arrow_x = x;
  p->arrow_y = acc->y;
  /* The shape is on the card already, and the edge is too short for it. */
  p->has_label = FALSE;
}

/* Room between ranks for the commonest shape label ("3×3"; about 0.55 em
 * a character, and its pill's padding) with a bit of line and the arrow on
 * either side. A rarer longer one ("scalar", "2×3×4") may reach its arrow
 * rather than widen every gap. */
double
cr_graph_layout_rank_gap (const CrGraphModel     *model,
                          double                  label_font_size,
                          CrGraphLayoutDirection  direction)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  /* Top to bottom, a label lies across its edge: one line of type high,
   * and some blank for the arrow. Larger type (presentation) is read from
   * further away and needs less blank around it: its ranks are a label
   * high and a little, and a label that would hide the arrow goes beside
   * its edge (cr_graph_badges_label_boxes_clear_of). */
  if (direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM)
    {
      /* Where an edge goes into an open group's box, under its title, the
       * label needs the old room across the edge. */
      gboolean groups = model->clusters && model->clusters->len > 0;
      return ceil (label_font_size * 1.25 + 2 * k + (k > 1 ? (groups ? 5 : 2) : 10 * k));
    }
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  const char *common = NULL;
  guint most = 0;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (!e->label)
        continue;
      guint c = GPOINTER_TO_UINT (g_hash_table_lookup (counts, e->label)) + 1;
      g_hash_table_insert (counts, e->label, GUINT_TO_POINTER (c));
      if (c > most)
        {
          most = c;
          common = e->label;
        }
    }
  double label_w = common ? g_utf8_strlen (common, -1) * 0.55 * label_font_size + 8 * k : 0;
  return CLAMP (label_w + 20 * k, 34 * k, 56 * k);
}

static gboolean
label_on_box (double            x,
              double            y,
              double            half_w,
              double            half_h,
              const CrGraphBox *b)
{
  return x - half_w < b->x + b->width && b->x < x + half_w
         && y - half_h < b->y + b->height && b->y < y + half_h;
}

/* Whether the tensor card at one end of edge already says its label. */
static gboolean
label_on_card (const CrGraphModel *model,
               const CrGraphEdge  *e)
{
  guint ends[2] = { e->from, e->to };
  for (int i = 0; i < 2; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, ends[i]);
      if (CR_GRAPH_NODE_KIND_IS_TENSOR (n->kind) && g_strcmp0 (n->shape, e->label) == 0)
        return TRUE;
    }
  return FALSE;
}

/* A label on the middle of a short edge out of a wide box ("scalar" from
 * the loss's op to the output) lay on the box it leaves, under or over its
 * text (H8). Such a label goes to the middle of the gap between the two
 * boxes when it fits there; else it is left out when a tensor card at
 * either end says the shape already, and goes above both boxes otherwise.
 * Its pill is measured generously: 0.7 em a character (the renderer's
 * digits and × are 0.6 to 0.66). */
static void
keep_label_off_ends (CrGraphPath            *p,
                     const CrGraphBox       *from,
                     const CrGraphBox       *to,
                     glong                   n_chars,
                     gboolean                on_card,
                     double                  label_font_size,
                     CrGraphLayoutDirection  direction)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double half_w = (n_chars * 0.7 * label_font_size + 8 * k) / 2;
  double half_h = (label_font_size * 1.25 + 2 * k) / 2;
  if (!label_on_box (p->label_x, p->label_y, half_w, half_h, from)
      && !label_on_box (p->label_x, p->label_y, half_w, half_h, to))
    return;
  gboolean down = direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  const CrGraphBox *first = (down ? from->y <= to->y : from->x <= to->x) ? from : to;
  const CrGraphBox *second = first == from ? to : from;
  double gap_start = down ? first->y + first->height : first->x + first->width;
  double gap_end = down ? second->y : second->x;
  if (gap_end - gap_start >= 2 * (down ? half_h : half_w) + 4 * k)
    {
      if (down)
        p->label_y = (gap_start + gap_end) / 2;
      else
        p->label_x = (gap_start + gap_end) / 2;
      if (!label_on_box (p->label_x, p->label_y, half_w, half_h, from)
          && !label_on_box (p->label_x, p->label_y, half_w, half_h, to))
        return;
    }
  if (on_card)
    p->has_label = FALSE;
  else if (down)
    p->label_x = MAX (from->x + from->width, to->x + to->width) + half_w + 2 * k;
  else
    p->label_y = MIN (from->y, to->y) - half_h - 2 * k;
}

/* The x where path p is at height y, from 32 points along it (the
 * nearest of them). */
static double
path_x_at (const CrGraphPath *p,
           double             y)
{
  guint n_seg = (p->n_points - 1) / 3;
  double best_x = p->points[0], best = G_MAXDOUBLE;
  for (guint i = 0; i < n_seg; i++)
    for (int j = 0; j <= 32; j++)
      {
        const double *q = p->points + 6 * i;
        double t = j / 32.0, mt = 1 - t;
        double x = mt * mt * mt * q[0] + 3 * mt * mt * t * q[2] + 3 * mt * t * t * q[4] + t * t * t * q[6];
        double qy = mt * mt * mt * q[1] + 3 * mt * mt * t * q[3] + 3 * mt * t * t * q[5] + t * t * t * q[7];
        if (fabs (qy - y) < best)
          {
            best = fabs (qy - y);
            best_x = x;
          }
      }
  return best_x;
}

/* Presentation's ranks are closer than a label and an arrow are tall
 * (cr_graph_layout_rank_gap): a label across a drop into the next rank
 * would hide the arrow's head, so it goes beside its edge, in the middle
 * of the gap, on the side the edge does not come from (its name, if any,
 * on the other: cr_graph_badges_label_spot); in a taller gap, across its
 * edge above the arrowhead. */
static void
label_beside_drop (CrGraphPath            *p,
                   const CrGraphBox       *from,
                   glong                   n_chars,
                   double                  label_font_size,
                   CrGraphLayoutDirection  direction)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double half_w = (n_chars * 0.55 * label_font_size + 8 * k) / 2;
  double gap_start = from->y + from->height;
  /* Only an edge that drops into its target (not a leaf's level edge
   * into an op's side). */
  double end_x = p->points[2 * (p->n_points - 1)], end_y = p->points[2 * (p->n_points - 1) + 1];
  if (direction != CR_GRAPH_LAYOUT_TOP_TO_BOTTOM || !p->has_arrow || p->arrow_y <= gap_start
      || p->label_y < gap_start || p->label_y > p->arrow_y
      || fabs (p->arrow_x - end_x) >= fabs (p->arrow_y - end_y))
    return;
  /* Where the gap holds the label and the arrowhead one over the other
   * (an edge into an open group's box), the label stays on its edge, up
   * against the source. */
  double half_h = (label_font_size * 1.25 + 2 * k) / 2;
  if (p->arrow_y - gap_start >= 2 * half_h + 9 * k)
    {
      p->label_y = MAX (gap_start + half_h, MIN (p->label_y, p->arrow_y - 9 * k - half_h));
      return;
    }
  p->label_y = (gap_start + p->arrow_y) / 2;
  double x = path_x_at (p, p->label_y);
  gboolean from_right = p->points[0] > p->arrow_x + 1;
  /* Clear of the arrowhead (4 points a side, times the scale). */
  p->label_x = from_right ? x - half_w - 7 * k : x + half_w + 7 * k;
}

/* Whether a label of n_chars centred at (x, y) lies on a box of self. */
static gboolean
label_on_any_box (const CrGraphLayout *self,
                  double               x,
                  double               y,
                  glong                n_chars,
                  double               label_font_size)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double half_w = (n_chars * 0.7 * label_font_size + 8 * k) / 2 + k;
  double half_h = (label_font_size * 1.25 + 2 * k) / 2 + k;
  for (guint n = 0; n < self->n_nodes; n++)
    if (self->nodes[n].width > 0 && label_on_box (x, y, half_w, half_h, &self->nodes[n]))
      return TRUE;
  return FALSE;
}

/* Presentation's compact drawing (narrow pills, a tight gap between a
 * rank's nodes) can leave a label's spot on a third box, one its edge
 * passes by: it slides along its edge to the nearest clear spot. */
static void
label_off_nodes (const CrGraphLayout *self,
                 CrGraphPath         *p,
                 glong                n_chars,
                 double               label_font_size)
{
  if (!p->has_label || p->n_points < 4
      || !label_on_any_box (self, p->label_x, p->label_y, n_chars, label_font_size))
    return;
  for (int i = 1; i <= 8; i++)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        double x, y;
        path_point (p, 0.5 + sign * 0.05 * i, &x, &y);
        if (!label_on_any_box (self, x, y, n_chars, label_font_size))
          {
            p->label_x = x;
            p->label_y = y;
            return;
          }
      }
}

void
cr_graph_layout_place_labels (CrGraphLayout      *self,
                              const CrGraphModel *model,
                              double              label_font_size)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  guint n_edges = MIN (self->n_edges, model->edges->len);
  for (guint i = 0; i < n_edges; i++)
    {
      CrGraphPath *p = &self->edges[i];
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      /* The shape label sits on the middle of its edge. Graphviz is not told
       * about it: its edge labels become virtual nodes that double the
       * space between ranks, and the graph turns twice as wide. */
      if (!p->has_label || !e->label || p->n_points < 4)
        {
          p->has_label = FALSE;
          continue;
        }
      path_middle (p, &p->label_x, &p->label_y);
      /* A label longer than its (level) edge would hide the line and reach
       * the arrow and the boxes: it goes just above it. */
      double dx = p->points[2 * (p->n_points - 1)] - p->points[0];
      double dy = p->points[2 * (p->n_points - 1) + 1] - p->points[1];
      double w = g_utf8_strlen (e->label, -1) * 0.55 * label_font_size + 8 * k;
      if (fabs (dx) > 2 * fabs (dy) && w > fabs (dx) - 6 * k)
        p->label_y -= label_font_size * 0.75 + 4 * k;
      if (e->from < self->n_nodes && e->to < self->n_nodes)
        {
          keep_label_off_ends (p, &self->nodes[e->from], &self->nodes[e->to],
                               g_utf8_strlen (e->label, -1), label_on_card (model, e),
                               label_font_size, self->direction);
          if (k > 1)
            label_beside_drop (p, &self->nodes[e->from], g_utf8_strlen (e->label, -1),
                               label_font_size, self->direction);
        }
      if (k > 1)
        label_off_nodes (self, p, g_utf8_strlen (e->label, -1), label_font_size);
    }

  /* Edges forking from one node with the same shape start out together,
   * and two edges between the same nodes (y * y) run side by side: their
   * labels would pile up, so one says it for all. Only edges from the same
   * node are compared (each edge is chained to the one before it from its
   * node), which keeps this linear in a big graph's fan-outs. */
  guint n_nodes = model->nodes->len;
  g_autofree int *last_from = g_new (int, n_nodes + 1);
  g_autofree int *before = g_new (int, n_edges + 1);
  for (guint i = 0; i < n_nodes; i++)
    last_from[i] = -1;
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      CrGraphPath *p = &self->edges[i];
      before[i] = -1;
      if (e->from >= n_nodes)
        continue;
      before[i] = last_from[e->from];
      last_from[e->from] = (int) i;
      for (int j = before[i]; p->has_label && j >= 0; j = before[j])
        {
          const CrGraphEdge *f = g_ptr_array_index (model->edges, j);
          const CrGraphPath *q = &self->edges[j];
          if (q->has_label && g_strcmp0 (f->label, e->label) == 0
              && (f->to == e->to
                  || (fabs (p->label_x - q->label_x) < 4 * label_font_size
                      && fabs (p->label_y - q->label_y) < 2 * label_font_size)))
            p->has_label = FALSE;
        }
    }
}

CrGraphLayout *
cr_graph_layout_new (const CrGraphModel *model,
                     const double       *node_sizes,
                     double              label_font_size,
                     GError            **error)
{
  return cr_graph_layout_new_directed (model, node_sizes, label_font_size,
                                       CR_GRAPH_LAYOUT_LEFT_TO_RIGHT, error);
}

CrGraphLayout *
cr_graph_layout_new_directed (const CrGraphModel     *model,
                              const double           *node_sizes,
                              double                  label_font_size,
                              CrGraphLayoutDirection  direction,
                              GError                **error)
{
  g_return_val_if_fail (model != NULL && (node_sizes != NULL || model->nodes->len == 0), NULL);

  /* Dot takes seconds on thousands of nodes: big graphs get ours. */
  if (model->nodes->len > CR_GRAPH_LAYOUT_DOT_MAX_NODES)
    return cr_graph_layout_new_layered_directed (model, node_sizes, label_font_size, direction);
  return cr_graph_layout_new_dot_directed (model, node_sizes, label_font_size, direction, error);
}

CrGraphLayout *
cr_graph_layout_new_dot (const CrGraphModel *model,
                         const double       *node_sizes,
                         double              label_font_size,
                         GError            **error)
{
  return cr_graph_layout_new_dot_directed (model, node_sizes, label_font_size,
                                           CR_GRAPH_LAYOUT_LEFT_TO_RIGHT, error);
}

CrGraphLayout *
cr_graph_layout_new_dot_directed (const CrGraphModel     *model,
                                  const double           *node_sizes,
                                  double                  label_font_size,
                                  CrGraphLayoutDirection  direction,
                                  GError                **error)
{
  g_return_val_if_fail (model != NULL && (node_sizes != NULL || model->nodes->len == 0), NULL);

  CrGraphLayout *self = cr_graph_layout_dot_without (model, node_sizes, label_font_size,
                                                     direction, NULL, error);
  if (self)
    cr_graph_layout_place_labels (self, model, label_font_size);
  return self;
}

/* Whether edge e goes from a tensor card to a detached tensor that has
 * no other edge (its end of the graph). */
static gboolean
detached_end (const CrGraphModel *model,
              const CrGraphEdge  *e)
{
  const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
  const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
  if (!CR_GRAPH_NODE_KIND_IS_TENSOR (from->kind) || to->kind != CR_GRAPH_NODE_DETACHED)
    return FALSE;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *o = g_ptr_array_index (model->edges, i);
      if (o != e && (o->from == e->to || o->to == e->to))
        return FALSE;
    }
  return TRUE;
}

/* Whether edge e goes into an output that has no other edge: the loss
 * at the end of the chain (SumBackward0 -> L). */
static gboolean
output_end (const CrGraphModel *model,
            const CrGraphEdge  *e)
{
  const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
  if (to->kind != CR_GRAPH_NODE_OUTPUT || e->from == e->to)
    return FALSE;
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *o = g_ptr_array_index (model->edges, i);
      if (o != e && (o->from == e->to || o->to == e->to))
        return FALSE;
    }
  return TRUE;
}

CrGraphLayout *
cr_graph_layout_dot_without (const CrGraphModel     *model,
                             const double           *node_sizes,
                             double                  label_font_size,
                             CrGraphLayoutDirection  direction,
                             const gboolean         *left_out,
                             GError                **error)
{
  /* Sizes scale with the type (presentation mode); the blank between
   * nodes grows only up to the window's (cr_graph_layout_gap_scale). */
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double gap = cr_graph_layout_gap_scale (label_font_size);
  double pair_gap = ceil (CR_GRAPH_LAYOUT_PAIR_GAP * gap);
  double pad = CR_GRAPH_LAYOUT_PAD * k;
  GVC_t *gvc = context ();
  Agraph_t *g = agopen ((char *) "chainrule", Agdirected, NULL);
  gboolean down = direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  agsafeset (g, (char *) "rankdir", (char *) (down ? "TB" : "LR"), "");
  /* Top to bottom, the nodes of a rank stand side by side: a narrower
   * gap (a tall pane is short of width), narrower still in presentation
   * (the toy network's widest rank, two leaves beside two muls, on a
   * 1366 px projector). */
  set_double (g, "nodesep", (down ? (k > 1 ? 7 : 10) : 14) * gap / 72.0);
  set_double (g, "ranksep", cr_graph_layout_rank_gap (model, label_font_size, direction) / 72.0);
  agsafeset (g, (char *) "splines", (char *) "spline", "");
  set_double (g, "pad", pad / 72.0);

  guint n_nodes = model->nodes->len;
  g_autofree int *partner = cr_graph_layout_find_pairs (model);
  g_autofree Agnode_t **gnodes = g_new0 (Agnode_t *, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if ((partner[i] >= 0 && node->kind == CR_GRAPH_NODE_ACCUMULATE) || (left_out && left_out[i]))
        continue;
      char name[32];
      g_snprintf (name, sizeof name, "n%u", i);
      Agnode_t *n = agnode (g, name, 1);
      if (partner[i] >= 0)
        {
          guint a = (guint) partner[i];
          set_pair_label (g, n, MAX (node_sizes[2 * i], node_sizes[2 * a]),
                          node_sizes[2 * i + 1] + pair_gap, node_sizes[2 * a + 1]);
        }
      else
        {
          agsafeset (n, (char *) "shape", (char *) "box", "");
          agsafeset (n, (char *) "fixedsize", (char *) "true", "");
          agsafeset (n, (char *) "label", (char *) "", "");
          set_double (n, "width", node_sizes[2 * i] / 72.0);
          set_double (n, "height", node_sizes[2 * i + 1] / 72.0);
        }
      gnodes[i] = n;
    }
  for (guint i = 0; i < n_nodes; i++)
    if (!gnodes[i] && partner[i] >= 0 && !(left_out && left_out[i]))
      gnodes[i] = gnodes[partner[i]];
  /* Open module calls keep their nodes together (cr-graph-clusters.c). */
  Agraph_t **clusters = cr_graph_clusters_add (g, model, gnodes, label_font_size);

  guint n_edges = model->edges->len;
  g_autofree Agedge_t **gedges = g_new0 (Agedge_t *, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->from >= n_nodes || e->to >= n_nodes || partner[e->from] == (int) e->to
          || !gnodes[e->from] || !gnodes[e->to])
        continue;
      char name[32];
      g_snprintf (name, sizeof name, "e%u", i);
      Agedge_t *ge = agedge (g, gnodes[e->from], gnodes[e->to], name, 1);
      const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
      if (partner[e->from] >= 0 && from->kind == CR_GRAPH_NODE_ACCUMULATE)
        agsafeset (ge, (char *) "tailport", (char *) (down ? "acc:s" : "acc:e"), "");
      gedges[i] = ge;
    }
  /* Presentation is short of height: a tensor detached from a card, and
   * used no further (z_det = z.detach()), stands beside that card; the
   * output beside the op that made it (L beside its SumBackward0): a
   * rank less, which the toy network's 1366x768 projector lacks. A node
   * in two such sets, or the output in one beside open groups' boxes,
   * makes dot fail an assertion: one set a node, no groups. */
  gboolean groups = model->clusters && model->clusters->len > 0;
  g_autofree gboolean *in_set = g_new0 (gboolean, n_nodes + 1);
  g_autofree gboolean *level = g_new0 (gboolean, n_edges + 1);
  for (guint i = 0; k > 1 && i < n_edges; i++)
    if (gedges[i])
      {
        const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
        gboolean output = down && !groups && output_end (model, e);
        if ((detached_end (model, e) || output) && !in_set[e->from] && !in_set[e->to])
          {
            in_set[e->from] = in_set[e->to] = TRUE;
            level[i] = output;
            char name[32];
            g_snprintf (name, sizeof name, "same%u", i);
            Agraph_t *same = agsubg (g, name, 1);
            agsafeset (same, (char *) "rank", (char *) "same", "");
            agsubnode (same, gnodes[e->from], 1);
            agsubnode (same, gnodes[e->to], 1);
          }
      }

  if (gvLayout (gvc, g, "dot") != 0)
    {
      g_free (clusters);
      agclose (g);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                           "graphviz could not lay out the graph (is its dot layout plugin installed?)");
      return NULL;
    }

  CrGraphLayout *self = g_new0 (CrGraphLayout, 1);
  self->direction = direction;
  boxf bb = GD_bb (g);
  double x0 = bb.LL.x - pad;
  double top = bb.UR.y + pad;
  self->width = bb.UR.x - bb.LL.x + 2 * pad;
  self->height = bb.UR.y - bb.LL.y + 2 * pad;
  cr_graph_clusters_read (self, model, clusters, x0, top);

  self->n_nodes = n_nodes;
  self->nodes = g_new0 (CrGraphBox, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if ((partner[i] >= 0 && node->kind == CR_GRAPH_NODE_ACCUMULATE) || !gnodes[i])
        continue;
      pointf c = ND_coord (gnodes[i]);
      CrGraphBox *b = &self->nodes[i];
      b->width = node_sizes[2 * i];
      b->height = node_sizes[2 * i + 1];
      if (partner[i] < 0)
        {
          b->x = c.x - x0 - b->width / 2;
          b->y = top - c.y - b->height / 2;
          continue;
        }
      /* The pair: the card on top, the pill under it, both as wide as
       * the unit, so that they read as one and the pill's edges leave
       * from its right end (its bottom, top to bottom). */
      guint a = (guint) partner[i];
      CrGraphBox *pill = &self->nodes[a];
      double w = MAX (node_sizes[2 * i], node_sizes[2 * a]);
      double h = node_sizes[2 * i + 1] + pair_gap + node_sizes[2 * a + 1];
      b->width = w;
      b->x = c.x - x0 - w / 2;
      b->y = top - c.y - h / 2;
      pill->width = w;
      pill->height = node_sizes[2 * a + 1];
      pill->x = b->x;
      pill->y = b->y + h - pill->height;
    }

  self->n_edges = n_edges;
  self->edges = g_new0 (CrGraphPath, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    {
      Agedge_t *ge = gedges[i];
      CrGraphPath *p = &self->edges[i];
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (!ge)
        {
          if (e->from < n_nodes && e->to < n_nodes && partner[e->from] == (int) e->to
              && gnodes[e->from])
            cr_graph_layout_pair_edge (p, &self->nodes[e->from], &self->nodes[e->to]);
          continue;
        }
      splines *spl = ED_spl (ge);
      if (spl && spl->size > 0)
        {
          bezier *bz = &spl->list[0];
          p->n_points = (guint) bz->size;
          p->points = g_new (double, 2 * bz->size + 2);
          for (int j = 0; j < bz->size; j++)
            {
              p->points[2 * j] = bz->list[j].x - x0;
              p->points[2 * j + 1] = top - bz->list[j].y;
            }
          if (bz->eflag)
            {
              p->has_arrow = TRUE;
              p->arrow_x = bz->ep.x - x0;
              p->arrow_y = top - bz->ep.y;
            }
        }
      /* The output's card says the shape its level edge carries. */
      p->has_label = e->label != NULL && !(level[i] && label_on_card (model, e));
    }

  gvFreeLayout (gvc, g);
  agclose (g);
  return self;
}
