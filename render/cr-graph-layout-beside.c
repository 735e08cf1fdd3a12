/* cr-graph-layout-beside.c — leaves beside the op they feed, top to bottom.
 *
 * Dot gives each leaf a rank above the op it feeds. In a long chain (a
 * two-layer network: matmul, add, tanh, matmul, add, sigmoid, loss) every
 * weight's card, as tall as its rows, then adds to the graph's height
 * while the chain's sides stay empty. Here dot lays the graph out without
 * those leaves, and each is put beside its op: the card's exit (its
 * AccumulateGrad pill, or the card itself) level with the op, its edge
 * coming in from the side, moved up, down or outwards where it would meet
 * another box. */
#include "cr-graph-layout-private.h"

#include <math.h>
#include <string.h>

/* Between boxes placed beside the chain and anything else (points). */
#define CLEAR       8.0
/* How far a leaf may be moved from its place (points, either way). */
#define SEARCH_STEP 4.0
#define SEARCH_OUT  160.0
/* The straight run of an edge into its arrow's tip. */
#define ARROW_RUN   8.0

typedef struct {
  guint    leaf;          /* the card */
  int      pill;          /* its AccumulateGrad under it, or -1 */
  guint    edge;          /* the edge from the unit to its op */
  guint    op;
  int      input;         /* which of the op's inputs it is */
  gboolean right;         /* beside the op's right side (else its left) */
} Unit;

/* The leaves that can stand beside their op: a card (and its pill) with
 * no edge in and one edge out, into an op. */
static GArray *
find_units (const CrGraphModel *model,
            const int          *partner)
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
  GArray *units = g_array_new (FALSE, FALSE, sizeof (Unit));
  for (guint i = 0; i < model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->from >= n_nodes || e->to >= n_nodes || partner[e->from] == (int) e->to)
        continue;
      const CrGraphNode *from = g_ptr_array_index (model->nodes, e->from);
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      if (to->kind != CR_GRAPH_NODE_OP || n_out[e->from] != 1)
        continue;
      Unit u = { .edge = i, .op = e->to, .input = e->input, .pill = -1 };
      if (from->kind == CR_GRAPH_NODE_ACCUMULATE && partner[e->from] >= 0)
        {
          u.leaf = (guint) partner[e->from];
          u.pill = (int) e->from;
        }
      else if (CR_GRAPH_NODE_KIND_IS_TENSOR (from->kind) && from->kind != CR_GRAPH_NODE_OUTPUT
               && partner[e->from] < 0 && n_in[e->from] == 0)
        u.leaf = e->from;
      else
        continue;
      g_array_append_val (units, u);
    }
  return units;
}

static int
by_op_then_input (gconstpointer a,
                  gconstpointer b)
{
  const Unit *ua = a, *ub = b;
  if (ua->op != ub->op)
    return ua->op < ub->op ? -1 : 1;
  return (ua->input > ub->input) - (ua->input < ub->input);
}

/* One op's first input on its left, the next on its right; an op's
 * further leaves stay in dot's ranks. */
static void
choose_sides (GArray *units)
{
  g_array_sort (units, by_op_then_input);
  guint kept = 0;
  for (guint i = 0; i < units->len;)
    {
      guint j = i;
      while (j < units->len && g_array_index (units, Unit, j).op == g_array_index (units, Unit, i).op)
        j++;
      Unit *first = &g_array_index (units, Unit, i);
      if (j - i == 1)
        {
          first->right = first->input != 0;
          g_array_index (units, Unit, kept++) = *first;
        }
      else
        {
          Unit left = *first, right = g_array_index (units, Unit, i + 1);
          left.right = FALSE;
          right.right = TRUE;
          g_array_index (units, Unit, kept++) = left;
          g_array_index (units, Unit, kept++) = right;
        }
      i = j;
    }
  g_array_set_size (units, kept);
}

static gboolean
overlaps (const double      *r,
          const CrGraphBox  *b)
{
  return b->width > 0 && r[0] < b->x + b->width + CLEAR && b->x < r[2] + CLEAR
         && r[1] < b->y + b->height + CLEAR && b->y < r[3] + CLEAR;
}

/* Whether the w × h box at (x, y) meets a box laid out so far: the nodes
 * dot placed and the units placed (placed[i]). */
static gboolean
box_free (const CrGraphLayout *self,
          const gboolean      *placed,
          double               x,
          double               y,
          double               w,
          double               h)
{
  double r[4] = { x, y, x + w, y + h };
  for (guint i = 0; i < self->n_nodes; i++)
    if (placed[i] && overlaps (r, &self->nodes[i]))
      return FALSE;
  return TRUE;
}

/* Whether the edge side_edge() draws from a unit's exit (sx, sy) into the
 * op's side (tx, ty) keeps off every box but the op's: a leaf never
 * stands beyond another node. */
static gboolean
edge_free (const CrGraphLayout *self,
           const gboolean      *placed,
           guint                op,
           double               sx,
           double               sy,
           double               tx,
           double               ty)
{
  double mx = (sx + tx) / 2;
  for (int i = 1; i < 16; i++)
    {
      double t = i / 16.0, mt = 1 - t;
      double x = mt * mt * mt * sx + 3 * mt * mt * t * mx + 3 * mt * t * t * mx + t * t * t * tx;
      double y = mt * mt * mt * sy + 3 * mt * mt * t * sy + 3 * mt * t * t * ty + t * t * t * ty;
      for (guint n = 0; n < self->n_nodes; n++)
        {
          const CrGraphBox *b = &self->nodes[n];
          if (n != op && placed[n] && b->width > 0 && x > b->x - 2 && x < b->x + b->width + 2
              && y > b->y - 2 && y < b->y + b->height + 2)
            return FALSE;
        }
    }
  return TRUE;
}

/* The edge from a unit's exit box into the op's side, level at both ends. */
static void
side_edge (CrGraphPath      *p,
           const CrGraphBox *exit,
           const CrGraphBox *op,
           gboolean          right)
{
  double sx = right ? exit->x : exit->x + exit->width, sy = exit->y + exit->height / 2;
  double tx = right ? op->x + op->width : op->x, ty = op->y + op->height / 2;
  double ex = right ? tx + ARROW_RUN : tx - ARROW_RUN;
  double mx = (sx + ex) / 2;
  g_free (p->points);
  p->n_points = 4;
  p->points = g_new (double, 2 * 4 + 2);
  double pts[8] = { sx, sy, mx, sy, mx, ty, ex, ty };
  memcpy (p->points, pts, sizeof pts);
  p->has_arrow = TRUE;
  p->arrow_x = tx;
  p->arrow_y = ty;
}

/* Moves everything so that the drawing starts pad from its top-left corner. */
static void
fit_bounds (CrGraphLayout *self,
            double         pad)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  for (guint i = 0; i < self->n_nodes; i++)
    {
      const CrGraphBox *b = &self->nodes[i];
      if (b->width <= 0)
        continue;
      x0 = MIN (x0, b->x), y0 = MIN (y0, b->y);
      x1 = MAX (x1, b->x + b->width), y1 = MAX (y1, b->y + b->height);
    }
  for (guint i = 0; i < self->n_edges; i++)
    for (guint k = 0; k < self->edges[i].n_points; k++)
      {
        double x = self->edges[i].points[2 * k], y = self->edges[i].points[2 * k + 1];
        x0 = MIN (x0, x), y0 = MIN (y0, y), x1 = MAX (x1, x), y1 = MAX (y1, y);
      }
  if (x0 > x1)
    return;
  double dx = pad - x0, dy = pad - y0;
  for (guint i = 0; i < self->n_nodes; i++)
    if (self->nodes[i].width > 0)
      {
        self->nodes[i].x += dx;
        self->nodes[i].y += dy;
      }
  for (guint i = 0; i < self->n_edges; i++)
    {
      CrGraphPath *p = &self->edges[i];
      for (guint k = 0; k < p->n_points; k++)
        {
          p->points[2 * k] += dx;
          p->points[2 * k + 1] += dy;
        }
      p->arrow_x += dx;
      p->arrow_y += dy;
    }
  self->width = x1 - x0 + 2 * pad;
  self->height = y1 - y0 + 2 * pad;
}

/* Puts unit u beside its op: the nearest free place to the one level with
 * the op, a move outwards costing more than one up or down, with nothing
 * between them. Larger type (presentation) is short of room: there a
 * unit rather moves along its op, further out or to the op's other side
 * (u->right changes then), than makes the drawing wider or taller.
 * FALSE: there is no place. */
static gboolean
place_unit (CrGraphLayout      *self,
            const CrGraphModel *model,
            const double       *node_sizes,
            Unit               *u,
            gboolean           *placed,
            double              pair_gap,
            double              label_font_size)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  const CrGraphBox *op = &self->nodes[u->op];
  double leaf_w = node_sizes[2 * u->leaf], leaf_h = node_sizes[2 * u->leaf + 1];
  double w = leaf_w, h = leaf_h, exit_mid = leaf_h / 2;
  if (u->pill >= 0)
    {
      double pill_h = node_sizes[2 * u->pill + 1];
      w = MAX (leaf_w, node_sizes[2 * u->pill]);
      h = leaf_h + pair_gap + pill_h;
      exit_mid = h - pill_h / 2;
    }
  /* Room for the edge's label (about 0.55 em a character) and its arrow. */
  const CrGraphEdge *e = g_ptr_array_index (model->edges, u->edge);
  double label_w = e->label ? g_utf8_strlen (e->label, -1) * 0.55 * label_font_size + 8 * k : 0;
  /* Larger type (presentation): room for the arrow once; the label moves
   * along its edge off the arrowhead (cr_graph_badges_label_boxes_clear_of). */
  double gap = MAX (34 * k, label_w + (k > 1 ? 1 : 2) * ARROW_RUN * k + 6 * k);
  double want_y = op->y + op->height / 2 - exit_mid;
  /* Under a pill, room for the .grad badge the steps write there (a
   * line of small type): the next unit down keeps clear of it. */
  double below = u->pill >= 0 ? ceil (label_font_size * 1.25 + 2 * k) : 0;
  double top = G_MAXDOUBLE, bottom = 0, left_x = G_MAXDOUBLE, right_x = 0, below_cost = k > 1 ? 3 : 0;
  for (guint i = 0; i < self->n_nodes; i++)
    if (placed[i] && self->nodes[i].width > 0)
      {
        top = MIN (top, self->nodes[i].y);
        bottom = MAX (bottom, self->nodes[i].y + self->nodes[i].height);
        left_x = MIN (left_x, self->nodes[i].x);
        right_x = MAX (right_x, self->nodes[i].x + self->nodes[i].width);
      }
  double best_x = 0, best_y = want_y, best = G_MAXDOUBLE;
  gboolean best_right = u->right;
  double step = SEARCH_STEP * k, reach = MAX (h, op->height) + 4 * CLEAR * k;
  for (int side = 0; side < (below_cost > 0 ? 2 : 1); side++)
    {
      gboolean right = side ? !u->right : u->right;
      double want_x = right ? op->x + op->width + gap : op->x - gap - w;
      if (side == 0)
        best_x = want_x;
      for (double out = 0; out <= SEARCH_OUT * k
                           && (best == G_MAXDOUBLE || (below_cost > 0 && 1.5 * out < best));
           out += step)
        for (double dy = 0; dy <= reach; dy += step)
          for (int sign = -1; sign <= 1; sign += 2)
            {
              double x = right ? want_x + out : want_x - out, y = want_y + sign * dy;
              double taller = MAX (y + h - bottom, 0.0) + MAX (top - y, 0.0);
              double wider = MAX (left_x - x, 0.0) + MAX (x + w - right_x, 0.0);
              double cost = dy + 1.5 * out + below_cost * (taller + wider / 3);
              if (cost < best && box_free (self, placed, x, y, w, h + below)
                  && edge_free (self, placed, u->op, right ? x : x + w, y + exit_mid,
                                right ? op->x + op->width : op->x, op->y + op->height / 2))
                {
                  best = cost;
                  best_x = x;
                  best_y = y;
                  best_right = right;
                }
            }
    }
  if (best == G_MAXDOUBLE)
    return FALSE;
  u->right = best_right;
  CrGraphBox *leaf = &self->nodes[u->leaf];
  leaf->x = best_x;
  leaf->y = best_y;
  leaf->width = u->pill >= 0 ? w : leaf_w;
  leaf->height = u->pill >= 0 ? h + below : leaf_h;   /* the unit, while placing */
  placed[u->leaf] = TRUE;
  return TRUE;
}

CrGraphLayout *
cr_graph_layout_new_beside (const CrGraphModel *model,
                            const double       *node_sizes,
                            double              label_font_size,
                            GError            **error)
{
  g_return_val_if_fail (model != NULL && (node_sizes != NULL || model->nodes->len == 0), NULL);

  const CrGraphLayoutDirection down = CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  guint n_nodes = model->nodes->len;
  g_autofree int *partner = cr_graph_layout_find_pairs (model);
  g_autoptr (GArray) units = find_units (model, partner);
  choose_sides (units);
  /* Open groups keep their nodes in boxes that dot draws: not here. */
  if (units->len == 0 || (model->clusters && model->clusters->len > 0)
      || n_nodes > CR_GRAPH_LAYOUT_DOT_MAX_NODES)
    return cr_graph_layout_new_directed (model, node_sizes, label_font_size, down, error);

  g_autofree gboolean *left_out = g_new0 (gboolean, n_nodes + 1);
  for (guint i = 0; i < units->len; i++)
    {
      const Unit *u = &g_array_index (units, Unit, i);
      left_out[u->leaf] = TRUE;
      if (u->pill >= 0)
        left_out[u->pill] = TRUE;
    }
  CrGraphLayout *self = cr_graph_layout_dot_without (model, node_sizes, label_font_size, down,
                                                     left_out, error);
  if (!self)
    return NULL;

  /* Top to bottom, as the ops they stand by. */
  g_autofree gboolean *placed = g_new0 (gboolean, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    placed[i] = !left_out[i];
  g_autofree guint *order = g_new (guint, units->len);
  for (guint i = 0; i < units->len; i++)
    order[i] = i;
  for (guint i = 1; i < units->len; i++)
    for (guint j = i; j > 0; j--)
      {
        const Unit *a = &g_array_index (units, Unit, order[j - 1]);
        const Unit *b = &g_array_index (units, Unit, order[j]);
        if (self->nodes[a->op].y <= self->nodes[b->op].y)
          break;
        guint t = order[j - 1];
        order[j - 1] = order[j];
        order[j] = t;
      }
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double pair_gap = ceil (CR_GRAPH_LAYOUT_PAIR_GAP * cr_graph_layout_gap_scale (label_font_size));
  for (guint i = 0; i < units->len; i++)
    if (!place_unit (self, model, node_sizes, &g_array_index (units, Unit, order[i]), placed,
                     pair_gap, label_font_size))
      {
        /* A crowded side (the toy network's crossing muls): dot's ranks. */
        cr_graph_layout_free (self);
        return cr_graph_layout_new_directed (model, node_sizes, label_font_size, down, error);
      }

  /* Each unit's card and pill, and its edges. */
  for (guint i = 0; i < units->len; i++)
    {
      const Unit *u = &g_array_index (units, Unit, i);
      CrGraphBox *leaf = &self->nodes[u->leaf];
      if (u->pill >= 0)
        {
          CrGraphBox *pill = &self->nodes[u->pill];
          double pill_h = node_sizes[2 * u->pill + 1];
          leaf->height = node_sizes[2 * u->leaf + 1];
          pill->x = leaf->x;
          pill->width = leaf->width;
          pill->height = pill_h;
          pill->y = leaf->y + leaf->height + pair_gap;
          for (guint ei = 0; ei < model->edges->len; ei++)
            {
              const CrGraphEdge *e = g_ptr_array_index (model->edges, ei);
              if (e->from == u->leaf && e->to == (guint) u->pill)
                cr_graph_layout_pair_edge (&self->edges[ei], leaf, pill);
            }
        }
      const CrGraphBox *exit = u->pill >= 0 ? &self->nodes[u->pill] : leaf;
      const CrGraphEdge *e = g_ptr_array_index (model->edges, u->edge);
      side_edge (&self->edges[u->edge], exit, &self->nodes[u->op], u->right);
      self->edges[u->edge].has_label = e->label != NULL;
    }
  fit_bounds (self, CR_GRAPH_LAYOUT_PAD * k);
  self->beside = TRUE;
  cr_graph_layout_place_labels (self, model, label_font_size);
  return self;
}
