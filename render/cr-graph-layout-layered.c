/* cr-graph-layout-layered.c — a layered (Sugiyama-style) layout for graphs
 * too big for graphviz's dot, which needs seconds for a few thousand nodes
 * (a micrograd-style scalar MLP has 5,000).
 *
 * The steps, each linear or close to it in the size of the graph:
 *   units    a leaf paired with its AccumulateGrad is one unit (the card over
 *            its pill), as in the dot layout;
 *   ranks    longest path from the inputs, then every unit that feeds
 *            something moved as far right as its first user allows, so a
 *            weight sits in the column before the op that uses it; an op
 *            only towards users in its own call, so that equal sibling
 *            calls line up;
 *   virtual  an edge spanning several ranks passes through a virtual point
 *            in each rank between, so it can be ordered and routed;
 *   order    a few sweeps sorting each rank by the mean position of its
 *            neighbours in the rank before (after), against crossings;
 *   places   each rank's units pulled towards their neighbours' height, kept
 *            in order and apart (an isotonic regression, pool adjacent
 *            violators), sweeping right and left a few times;
 *   boxes    open module calls (model->clusters): each call's units and
 *            boxes packed apart across the ranks, inner calls first, so
 *            that nested boxes nest and siblings never meet (below); long
 *            edges then run straight between their ends;
 *   edges    smooth horizontal S-curves through the virtual points, ending
 *            in an arrow on the target's left border.
 * Top to bottom, the same is done with the axes swapped: ranks are rows,
 * and a vertex's "y" is its x.
 * The result is a CrGraphLayout like dot's: the renderer cannot tell. */
#include "cr-graph-layout-private.h"

#include <math.h>

#define SWEEPS_ORDER   4
#define SWEEPS_PLACE   6
/* Long edges add a virtual point per rank they cross; past this many in
 * all, the longest are drawn straight instead (a pathological graph). */
#define MAX_VIRTUAL    400000

typedef struct {
  int     node;         /* the model node drawn (a pair's leaf); -1: virtual */
  double  w, h;         /* along the ranks' axis, and across it (x and y when
                         * left to right; y and x when top to bottom) */
  guint   rank;
  guint   pos;          /* index in its rank */
  double  y;            /* centre */
  double  key;          /* sort key while ordering */
  gboolean source;      /* nothing feeds it (an input, a weight, a constant) */
} Vertex;

/* The edges between adjacent ranks, both ways, as compressed rows. */
typedef struct {
  guint *start;         /* by vertex: first index in `to` (n + 1 of them) */
  guint *to;
} Adjacency;

static void
adjacency_build (Adjacency   *adj,
                 guint        n,
                 const guint *from,
                 const guint *to,
                 guint        n_edges)
{
  adj->start = g_new0 (guint, n + 2);
  adj->to = g_new (guint, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    adj->start[from[i] + 1]++;
  for (guint v = 0; v < n; v++)
    adj->start[v + 1] += adj->start[v];
  g_autofree guint *fill = g_memdup2 (adj->start, sizeof (guint) * (n + 1));
  for (guint i = 0; i < n_edges; i++)
    adj->to[fill[from[i]]++] = to[i];
}

static void
adjacency_clear (Adjacency *adj)
{
  g_free (adj->start);
  g_free (adj->to);
}

typedef struct {
  GArray   *vertices;   /* of Vertex */
  guint     n_ranks;
  GArray  **ranks;      /* of guint vertex ids, in order */
  Adjacency pred, succ; /* between adjacent ranks */
} Layers;

static int
compare_key (gconstpointer a,
             gconstpointer b,
             gpointer      data)
{
  const Vertex *v = data;
  double ka = v[*(const guint *) a].key, kb = v[*(const guint *) b].key;
  return (ka > kb) - (ka < kb);
}

/* One sweep: each rank (from first to last when down, else back) sorted by
 * the mean position of its neighbours on the side already placed; a vertex
 * without such neighbours keeps its place. */
static void
order_sweep (Layers  *L,
             gboolean down)
{
  Vertex *v = (Vertex *) L->vertices->data;
  const Adjacency *adj = down ? &L->pred : &L->succ;
  for (guint i = 1; i < L->n_ranks; i++)
    {
      guint r = down ? i : L->n_ranks - 1 - i;
      GArray *rank = L->ranks[r];
      guint *ids = (guint *) rank->data;
      for (guint p = 0; p < rank->len; p++)
        {
          Vertex *x = &v[ids[p]];
          guint a = adj->start[ids[p]], b = adj->start[ids[p] + 1];
          if (a == b)
            {
              x->key = p;
              continue;
            }
          double sum = 0;
          for (guint j = a; j < b; j++)
            sum += v[adj->to[j]].pos;
          /* Scaled to this rank's length, so vertices without neighbours
           * (keeping p) and those with them mix sensibly. */
          GArray *other = L->ranks[down ? r - 1 : r + 1];
          double scale = other->len > 1 ? (double) (rank->len - 1) / (other->len - 1) : 1.0;
          x->key = sum / (b - a) * scale;
        }
      g_qsort_with_data (ids, (gint) rank->len, sizeof (guint), compare_key, v);
      for (guint p = 0; p < rank->len; p++)
        v[ids[p]].pos = p;
    }
}

/* Pool adjacent violators: the centres c[0..n) closest (in squared
 * distance, weights w) to want[] with c[i+1] - c[i] >= gap[i]. */
static void
place_rank (guint         n,
            const double *want,
            const double *weight,
            const double *gap,
            double       *c)
{
  if (n == 0)
    return;
  /* With o[i] the sum of the gaps before i, z = c - o must not decrease:
   * an isotonic regression of want - o. */
  g_autofree double *o = g_new (double, n);
  o[0] = 0;
  for (guint i = 1; i < n; i++)
    o[i] = o[i - 1] + gap[i - 1];
  g_autofree double *bw = g_new (double, n);   /* block weight */
  g_autofree double *bv = g_new (double, n);   /* block value */
  g_autofree guint *bn = g_new (guint, n);     /* block length */
  guint nb = 0;
  for (guint i = 0; i < n; i++)
    {
      bw[nb] = weight[i];
      bv[nb] = want[i] - o[i];
      bn[nb] = 1;
      nb++;
      while (nb > 1 && bv[nb - 2] > bv[nb - 1])
        {
          double w = bw[nb - 2] + bw[nb - 1];
          bv[nb - 2] = (bv[nb - 2] * bw[nb - 2] + bv[nb - 1] * bw[nb - 1]) / w;
          bw[nb - 2] = w;
          bn[nb - 2] += bn[nb - 1];
          nb--;
        }
    }
  guint i = 0;
  for (guint b = 0; b < nb; b++)
    for (guint j = 0; j < bn[b]; j++, i++)
      c[i] = bv[b] + o[i];
}

/* Each rank's vertices towards the mean height of their neighbours (before
 * and/or after), in order and apart. */
static void
place_sweep (Layers  *L,
             gboolean use_pred,
             gboolean use_succ,
             gboolean down,
             double   node_gap,
             double   virtual_gap)
{
  Vertex *v = (Vertex *) L->vertices->data;
  for (guint i = 0; i < L->n_ranks; i++)
    {
      guint r = down ? i : L->n_ranks - 1 - i;
      GArray *rank = L->ranks[r];
      guint n = rank->len;
      const guint *ids = (const guint *) rank->data;
      g_autofree double *want = g_new (double, n + 1);
      g_autofree double *weight = g_new (double, n + 1);
      g_autofree double *gap = g_new (double, n + 1);
      g_autofree double *c = g_new (double, n + 1);
      for (guint p = 0; p < n; p++)
        {
          const Vertex *x = &v[ids[p]];
          /* An input (a weight, a constant) goes wherever its user is: it
           * pulls its user only when nothing else does, so the flow of
           * results from op to op runs straight rather than drifting. */
          double sum = 0, count = 0, input_sum = 0, inputs = 0;
          if (use_pred)
            for (guint j = L->pred.start[ids[p]]; j < L->pred.start[ids[p] + 1]; j++)
              {
                const Vertex *from = &v[L->pred.to[j]];
                if (from->source)
                  {
                    input_sum += from->y;
                    inputs++;
                  }
                else
                  {
                    sum += from->y;
                    count++;
                  }
              }
          if (count == 0)
            {
              sum = input_sum;
              count = inputs;
            }
          if (use_succ)
            for (guint j = L->succ.start[ids[p]]; j < L->succ.start[ids[p] + 1]; j++)
              {
                sum += v[L->succ.to[j]].y;
                count += 1;
              }
          want[p] = count > 0 ? sum / count : x->y;
          /* Long edges straighten first: their points weigh more; inputs
           * give way to the flow (else each rank would push it aside a
           * little, and a long chain would drift across the page). */
          weight[p] = x->source ? 1e-3 : count == 0 ? 0.5 : x->node < 0 ? 2.0 : 1.0;
          if (p + 1 < n)
            {
              const Vertex *y = &v[ids[p + 1]];
              gboolean virt = x->node < 0 && y->node < 0;
              gap[p] = (x->h + y->h) / 2 + (virt ? virtual_gap : node_gap);
            }
        }
      place_rank (n, want, weight, gap, c);
      for (guint p = 0; p < n; p++)
        v[ids[p]].y = c[p];
    }
}

/* ---- boxes for open module calls ------------------------------------------- */

/* Around a box's content, and its title's band (as cr-graph-groups-draw.c
 * draws them), in points at scale 1. */
#define BOX_PAD   10.0
#define BOX_TITLE 14.0
#define BOX_GAP    8.0

/* A box or a vertex in the ranks' space: along the ranks (a0, a1) and
 * across them (c0, c1). */
typedef struct { double a0, a1, c0, c1; } Extent;

typedef struct {
  Extent e;
  int    vertex;        /* >= 0: a vertex; else the cluster -1 - vertex */
  double gap;           /* wanted before it, across */
} Block;

static int
compare_block (gconstpointer a,
               gconstpointer b)
{
  const Block *x = a, *y = b;
  double cx = x->e.c0 + x->e.c1, cy = y->e.c0 + y->e.c1;
  return (cx > cy) - (cx < cy);
}

typedef struct {
  Layers       *L;
  const double *col_x, *col_w;
  double        rank_gap, node_gap, virtual_gap, k;
  gboolean      down;
  guint         n_clusters;
  const int    *parent;          /* by cluster, -1: top */
  int          *vertex_cluster;  /* by vertex, -1: none */
  GPtrArray    *members;         /* by cluster: GArray of guint, every vertex inside */
  GPtrArray    *children;        /* by cluster, then one for the top: GArray of guint */
  GPtrArray    *direct;          /* by cluster, then the top: GArray of guint vertices */
  Extent       *ext;             /* by cluster */
  double       *frontier;        /* by rank: how far across the blocks packed reach */
} Packing;

static Extent
vertex_extent (const Packing *P,
               guint          x)
{
  const Vertex *v = &g_array_index (P->L->vertices, Vertex, x);
  double mid = P->col_x[v->rank] + P->col_w[v->rank] / 2;
  return (Extent) { mid - v->w / 2, mid + v->w / 2, v->y - v->h / 2, v->y + v->h / 2 };
}

/* A cluster's box: its blocks' extents with its padding and title band
 * (on top: across when left to right, along when top to bottom). */
static Extent
cluster_extent (const Packing *P,
                guint          c)
{
  Extent e = { G_MAXDOUBLE, -G_MAXDOUBLE, G_MAXDOUBLE, -G_MAXDOUBLE };
  GArray *direct = g_ptr_array_index (P->direct, c), *children = g_ptr_array_index (P->children, c);
  for (guint i = 0; i < direct->len; i++)
    {
      Extent x = vertex_extent (P, g_array_index (direct, guint, i));
      e.a0 = MIN (e.a0, x.a0), e.a1 = MAX (e.a1, x.a1);
      e.c0 = MIN (e.c0, x.c0), e.c1 = MAX (e.c1, x.c1);
    }
  for (guint i = 0; i < children->len; i++)
    {
      const Extent *x = &P->ext[g_array_index (children, guint, i)];
      e.a0 = MIN (e.a0, x->a0), e.a1 = MAX (e.a1, x->a1);
      e.c0 = MIN (e.c0, x->c0), e.c1 = MAX (e.c1, x->c1);
    }
  if (e.a0 > e.a1)
    return (Extent) { 0, 0, 0, 0 };
  double pad = BOX_PAD * P->k, title = BOX_TITLE * P->k;
  e.a0 -= pad + (P->down ? title : 0);
  e.a1 += pad;
  e.c0 -= pad + (P->down ? 0 : title);
  e.c1 += pad;
  return e;
}

/* The ranks whose columns (with half the gap on either side) e reaches. */
static void
rank_range (const Packing *P,
            const Extent  *e,
            guint         *first,
            guint         *last)
{
  guint lo = 0, hi = P->L->n_ranks;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (P->col_x[mid] + P->col_w[mid] + P->rank_gap / 2 < e->a0)
        lo = mid + 1;
      else
        hi = mid;
    }
  *first = lo;
  *last = lo;
  while (*last + 1 < P->L->n_ranks && P->col_x[*last + 1] - P->rank_gap / 2 <= e->a1)
    (*last)++;
}

static void
shift_block (Packing     *P,
             const Block *b,
             double       d)
{
  Vertex *v = (Vertex *) P->L->vertices->data;
  if (b->vertex >= 0)
    {
      v[b->vertex].y += d;
      return;
    }
  guint c = (guint) (-1 - b->vertex);
  GArray *members = g_ptr_array_index (P->members, c);
  for (guint i = 0; i < members->len; i++)
    v[g_array_index (members, guint, i)].y += d;
  /* Its boxes inside move with it: they are made again from the vertices. */
  P->ext[c].c0 += d;
  P->ext[c].c1 += d;
}

/* The units and boxes directly in cluster c (n_clusters: the top) packed
 * across the ranks in their order there, as close as they go: each against
 * the last one packed in the ranks it reaches (or the first one's place),
 * so that a call's box is as small as its content (the ordering spreads a
 * call's units over the whole graph's height). */
static void
pack (Packing *P,
      guint    c)
{
  GArray *direct = g_ptr_array_index (P->direct, c), *children = g_ptr_array_index (P->children, c);
  if (children->len == 0 && c == P->n_clusters)
    return;
  g_autoptr (GArray) blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  const Vertex *v = (const Vertex *) P->L->vertices->data;
  for (guint i = 0; i < direct->len; i++)
    {
      guint x = g_array_index (direct, guint, i);
      Block b = { vertex_extent (P, x), (int) x, v[x].node < 0 ? P->virtual_gap : P->node_gap };
      g_array_append_val (blocks, b);
    }
  for (guint i = 0; i < children->len; i++)
    {
      guint d = g_array_index (children, guint, i);
      if (((GArray *) g_ptr_array_index (P->members, d))->len == 0)
        continue;
      Block b = { P->ext[d], -1 - (int) d, BOX_GAP * P->k };
      g_array_append_val (blocks, b);
    }
  g_array_sort (blocks, compare_block);
  double base = G_MAXDOUBLE;
  for (guint i = 0; i < blocks->len; i++)
    base = MIN (base, g_array_index (blocks, Block, i).e.c0);
  g_autoptr (GArray) touched = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < blocks->len; i++)
    {
      Block *b = &g_array_index (blocks, Block, i);
      guint r0, r1;
      rank_range (P, &b->e, &r0, &r1);
      double need = base;
      for (guint r = r0; r <= r1; r++)
        need = MAX (need, P->frontier[r] + b->gap);
      double d = need - b->e.c0;
      shift_block (P, b, d);
      b->e.c0 += d;
      b->e.c1 += d;
      for (guint r = r0; r <= r1; r++)
        {
          if (P->frontier[r] == -G_MAXDOUBLE)
            g_array_append_val (touched, r);
          P->frontier[r] = MAX (P->frontier[r], b->e.c1);
        }
    }
  for (guint i = 0; i < touched->len; i++)
    P->frontier[g_array_index (touched, guint, i)] = -G_MAXDOUBLE;
  if (c < P->n_clusters)
    P->ext[c] = cluster_extent (P, c);
}

/* Packs the clusters, inner before outer (a parent comes before its
 * children in model->clusters), and returns their boxes in the ranks'
 * space (new array), or NULL when the model has none. */
static Extent *
pack_clusters (Layers             *L,
               const CrGraphModel *model,
               const guint        *unit_of,
               const guint        *chain,
               const guint        *chain_start,
               const guint        *ue_from,
               const guint        *ue_to,
               guint               n_ue,
               const double       *col_x,
               const double       *col_w,
               double              rank_gap,
               double              node_gap,
               double              virtual_gap,
               double              k,
               gboolean            down)
{
  guint nc = model->clusters ? model->clusters->len : 0;
  if (nc == 0)
    return NULL;
  guint n_vertices = L->vertices->len;
  Packing P = {
    .L = L, .col_x = col_x, .col_w = col_w, .rank_gap = rank_gap, .node_gap = node_gap,
    .virtual_gap = virtual_gap, .k = k, .down = down, .n_clusters = nc,
  };
  g_autofree int *parent = g_new (int, nc + 1);
  g_autofree guint *depth = g_new0 (guint, nc + 1);
  for (guint i = 0; i < nc; i++)
    {
      const CrGraphCluster *cl = g_ptr_array_index (model->clusters, i);
      parent[i] = cl->parent >= 0 && (guint) cl->parent < i ? cl->parent : -1;
      depth[i] = parent[i] >= 0 ? depth[parent[i]] + 1 : 0;
    }
  P.parent = parent;
  g_autofree int *vertex_cluster = g_new (int, n_vertices + 1);
  for (guint x = 0; x < n_vertices; x++)
    vertex_cluster[x] = -1;
  for (guint i = 0; i < nc; i++)
    {
      const CrGraphCluster *cl = g_ptr_array_index (model->clusters, i);
      for (guint j = 0; j < cl->nodes->len; j++)
        {
          guint n = g_array_index (cl->nodes, guint, j);
          if (n < model->nodes->len)
            vertex_cluster[unit_of[n]] = (int) i;
        }
    }
  /* An edge's virtual points belong to the innermost cluster holding both
   * its ends. */
  for (guint i = 0; i < n_ue; i++)
    {
      int a = vertex_cluster[ue_from[i]], b = vertex_cluster[ue_to[i]];
      while (a != b)
        {
          if (a >= 0 && (b < 0 || depth[a] >= depth[b]))
            a = parent[a];
          else
            b = parent[b];
        }
      for (guint j = chain_start[i] + 1; j + 1 < chain_start[i + 1]; j++)
        vertex_cluster[chain[j]] = a;
    }
  P.vertex_cluster = vertex_cluster;
  P.members = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  P.children = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  P.direct = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i <= nc; i++)
    {
      g_ptr_array_add (P.members, g_array_new (FALSE, FALSE, sizeof (guint)));
      g_ptr_array_add (P.children, g_array_new (FALSE, FALSE, sizeof (guint)));
      g_ptr_array_add (P.direct, g_array_new (FALSE, FALSE, sizeof (guint)));
    }
  for (guint i = 0; i < nc; i++)
    g_array_append_val (g_ptr_array_index (P.children, parent[i] >= 0 ? (guint) parent[i] : nc), i);
  /* Only units are packed: an edge's virtual points follow its ends
   * afterwards (packed too, thousands of them would push the boxes apart). */
  const Vertex *v = (const Vertex *) L->vertices->data;
  for (guint x = 0; x < n_vertices; x++)
    {
      int c = vertex_cluster[x];
      if (v[x].node < 0)
        continue;
      g_array_append_val (g_ptr_array_index (P.direct, c >= 0 ? (guint) c : nc), x);
      for (; c >= 0; c = parent[c])
        g_array_append_val (g_ptr_array_index (P.members, c), x);
    }
  P.ext = g_new0 (Extent, nc + 1);
  P.frontier = g_new (double, L->n_ranks + 1);
  for (guint r = 0; r <= L->n_ranks; r++)
    P.frontier[r] = -G_MAXDOUBLE;
  for (guint i = nc; i-- > 0;)
    pack (&P, i);
  pack (&P, nc);
  /* The boxes once more, from where everything ended up. */
  for (guint i = nc; i-- > 0;)
    P.ext[i] = cluster_extent (&P, i);
  /* Each long edge's virtual points on the straight line between its ends. */
  Vertex *w = (Vertex *) L->vertices->data;
  for (guint i = 0; i < n_ue; i++)
    {
      guint first = chain_start[i], last = chain_start[i + 1] - 1;
      if (last <= first + 1)
        continue;
      const Vertex *a = &w[chain[first]], *b = &w[chain[last]];
      double span = (double) b->rank - a->rank;
      for (guint j = first + 1; j < last; j++)
        {
          Vertex *x = &w[chain[j]];
          double t = span > 0 ? (x->rank - (double) a->rank) / span : 0.5;
          x->y = a->y + (b->y - a->y) * t;
        }
    }
  g_ptr_array_unref (P.members);
  g_ptr_array_unref (P.children);
  g_ptr_array_unref (P.direct);
  g_free (P.frontier);
  return P.ext;
}

/* A cubic Bézier through pts (m points, x, y pairs), horizontal at each
 * point (vertical when down): path gets 1 + 3 (m - 1) points. */
static void
set_curve (CrGraphPath  *path,
           const double *pts,
           guint         m,
           double        k,
           gboolean      down)
{
  path->n_points = 1 + 3 * (m - 1);
  path->points = g_new (double, 2 * path->n_points + 2);
  double *q = path->points;
  q[0] = pts[0];
  q[1] = pts[1];
  guint at = 2;
  for (guint i = 0; i + 1 < m; i++)
    {
      double ax = pts[2 * i], ay = pts[2 * i + 1], bx = pts[2 * i + 2], by = pts[2 * i + 3];
      /* Backwards (a cycle's edge): a loop out and back in. */
      double a = down ? ay : ax, b = down ? by : bx;
      double d = b > a ? (b - a) / 2 : 40 * k;
      q[at++] = down ? ax : ax + d;
      q[at++] = down ? ay + d : ay;
      q[at++] = down ? bx : bx - d;
      q[at++] = down ? by - d : by;
      q[at++] = bx;
      q[at++] = by;
    }
}

CrGraphLayout *
cr_graph_layout_layered (const CrGraphModel *model,
                         const double       *node_sizes,
                         double              label_font_size,
                         const int          *partner,
                         CrGraphLayoutDirection direction)
{
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  double pair_gap = ceil (CR_GRAPH_LAYOUT_PAIR_GAP * cr_graph_layout_gap_scale (label_font_size));
  double pad = 8 * k, node_gap = 14 * k, virtual_gap = 5 * k;
  double rank_gap = cr_graph_layout_rank_gap (model, label_font_size, direction);
  gboolean down = direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  /* The arrow's length: the path stops there, the arrow fills the rest. */
  double arrow = 7 * k;
  guint n_nodes = model->nodes->len, n_edges = model->edges->len;

  /* Units: one vertex per node, a pair's AccumulateGrad in its leaf's. */
  Layers L = { 0 };
  L.vertices = g_array_sized_new (FALSE, TRUE, sizeof (Vertex), n_nodes + 1);
  g_autofree guint *unit_of = g_new (guint, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (partner[i] >= 0 && node->kind == CR_GRAPH_NODE_ACCUMULATE)
        continue;
      Vertex x = { .node = (int) i, .w = node_sizes[2 * i], .h = node_sizes[2 * i + 1] };
      if (partner[i] >= 0)
        {
          guint a = (guint) partner[i];
          x.w = MAX (x.w, node_sizes[2 * a]);
          x.h += pair_gap + node_sizes[2 * a + 1];
        }
      if (down)
        {
          double along = x.h;
          x.h = x.w;
          x.w = along;
        }
      unit_of[i] = L.vertices->len;
      g_array_append_val (L.vertices, x);
    }
  for (guint i = 0; i < n_nodes; i++)
    if (partner[i] >= 0 && ((const CrGraphNode *) g_ptr_array_index (model->nodes, i))->kind
                           == CR_GRAPH_NODE_ACCUMULATE)
      unit_of[i] = unit_of[partner[i]];
  guint n_units = L.vertices->len;

  /* The edges between units (a pair's own edge and loops left out). */
  g_autofree guint *ue_from = g_new (guint, n_edges + 1);
  g_autofree guint *ue_to = g_new (guint, n_edges + 1);
  g_autofree int *unit_edge = g_new (int, n_edges + 1);   /* by model edge, -1: none */
  guint n_ue = 0;
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      unit_edge[i] = -1;
      if (e->from >= n_nodes || e->to >= n_nodes || partner[e->from] == (int) e->to)
        continue;
      guint a = unit_of[e->from], b = unit_of[e->to];
      if (a == b)
        continue;
      ue_from[n_ue] = a;
      ue_to[n_ue] = b;
      unit_edge[i] = (int) n_ue++;
    }
  Adjacency out = { 0 }, in = { 0 };
  adjacency_build (&out, n_units, ue_from, ue_to, n_ue);
  adjacency_build (&in, n_units, ue_to, ue_from, n_ue);

  /* A topological order (Kahn); units on a cycle follow in id order, and
   * edges against the order do not count for ranks. */
  g_autofree guint *topo = g_new (guint, n_units + 1);
  g_autofree guint *topo_at = g_new (guint, n_units + 1);
  {
    g_autofree guint *n_in = g_new0 (guint, n_units + 1);
    g_autofree gboolean *done = g_new0 (gboolean, n_units + 1);
    for (guint i = 0; i < n_ue; i++)
      n_in[ue_to[i]]++;
    guint head = 0, tail = 0;
    for (guint u = 0; u < n_units; u++)
      if (n_in[u] == 0)
        topo[tail++] = u;
    for (;;)
      {
        while (head < tail)
          {
            guint u = topo[head++];
            done[u] = TRUE;
            for (guint j = out.start[u]; j < out.start[u + 1]; j++)
              if (--n_in[out.to[j]] == 0)
                topo[tail++] = out.to[j];
          }
        if (tail == n_units)
          break;
        /* A cycle: break it at its lowest unit. */
        for (guint u = 0; u < n_units; u++)
          if (!done[u] && n_in[u] > 0)
            {
              n_in[u] = 0;
              topo[tail++] = u;
              break;
            }
      }
    for (guint i = 0; i < n_units; i++)
      topo_at[topo[i]] = i;
  }

  /* Ranks: longest path from the inputs, then pulled right towards users. */
  Vertex *v = (Vertex *) L.vertices->data;
  for (guint i = 0; i < n_units; i++)
    {
      guint u = topo[i];
      for (guint j = in.start[u]; j < in.start[u + 1]; j++)
        if (topo_at[in.to[j]] < i)
          v[u].rank = MAX (v[u].rank, v[in.to[j]].rank + 1);
    }
  /* Each unit's innermost open call (-1: none): children come after
   * their parents in model->clusters. */
  g_autofree int *unit_call = g_new (int, n_units + 1);
  for (guint u = 0; u < n_units; u++)
    unit_call[u] = -1;
  for (guint c = 0; model->clusters && c < model->clusters->len; c++)
    {
      const CrGraphCluster *cl = g_ptr_array_index (model->clusters, c);
      for (guint j = 0; j < cl->nodes->len; j++)
        {
          guint n = g_array_index (cl->nodes, guint, j);
          if (n < n_nodes)
            unit_call[unit_of[n]] = (int) c;
        }
    }
  for (guint i = n_units; i-- > 0;)
    {
      guint u = topo[i];
      /* An op is pulled towards its users in its own call only: pulled
       * towards a user outside (the next layer's k-th product), it would
       * drag its whole call along, so that equal sibling calls (a layer's
       * neurons) would start a rank later each, a staircase. What nothing
       * feeds (an input, a weight) goes next to its first user anywhere. */
      gboolean source = in.start[u] == in.start[u + 1];
      guint first = G_MAXUINT;
      for (guint j = out.start[u]; j < out.start[u + 1]; j++)
        if (topo_at[out.to[j]] > i && (source || unit_call[out.to[j]] == unit_call[u]))
          first = MIN (first, v[out.to[j]].rank);
      if (first != G_MAXUINT && first > 0)
        v[u].rank = MAX (v[u].rank, first - 1);
    }
  for (guint u = 0; u < n_units; u++)
    {
      L.n_ranks = MAX (L.n_ranks, v[u].rank + 1);
      v[u].source = in.start[u] == in.start[u + 1];
    }

  /* Virtual points for edges spanning ranks; each unit edge's chain of
   * vertices (from, virtual..., to) starts at chain_start[edge]. */
  g_autofree guint *chain_start = g_new (guint, n_ue + 2);
  GArray *chain = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *le_from = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *le_to = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_virtual = 0;
  for (guint i = 0; i < n_ue; i++)
    {
      chain_start[i] = chain->len;
      guint a = ue_from[i], b = ue_to[i];
      g_array_append_val (chain, a);
      guint ra = g_array_index (L.vertices, Vertex, a).rank;
      guint rb = g_array_index (L.vertices, Vertex, b).rank;
      if (rb <= ra)
        {
          /* Against the ranks: drawn as a loop, not ordered. */
          g_array_append_val (chain, b);
          continue;
        }
      guint span = rb - ra;
      guint prev = a;
      if (span > 1 && n_virtual + span - 1 <= MAX_VIRTUAL)
        for (guint r = ra + 1; r < rb; r++)
          {
            Vertex x = { .node = -1, .w = 0, .h = 2 * k, .rank = r };
            guint id = L.vertices->len;
            g_array_append_val (L.vertices, x);
            g_array_append_val (chain, id);
            g_array_append_val (le_from, prev);
            g_array_append_val (le_to, id);
            prev = id;
            n_virtual++;
          }
      g_array_append_val (chain, b);
      if (rb - g_array_index (L.vertices, Vertex, prev).rank == 1)
        {
          g_array_append_val (le_from, prev);
          g_array_append_val (le_to, b);
        }
    }
  chain_start[n_ue] = chain->len;
  guint n_vertices = L.vertices->len;
  v = (Vertex *) L.vertices->data;
  adjacency_build (&L.pred, n_vertices, (guint *) le_to->data, (guint *) le_from->data, le_from->len);
  adjacency_build (&L.succ, n_vertices, (guint *) le_from->data, (guint *) le_to->data, le_from->len);

  /* The first order: a depth-first walk back from the outputs (the last
   * in topological order first), so what feeds one op stays together. */
  L.ranks = g_new (GArray *, L.n_ranks + 1);
  for (guint r = 0; r < L.n_ranks; r++)
    L.ranks[r] = g_array_new (FALSE, FALSE, sizeof (guint));
  {
    g_autofree gboolean *seen = g_new0 (gboolean, n_vertices + 1);
    GArray *stack = g_array_new (FALSE, FALSE, sizeof (guint));
    for (guint i = n_units; i-- > 0;)
      {
        guint root = topo[i];
        if (seen[root])
          continue;
        g_array_append_val (stack, root);
        seen[root] = TRUE;
        while (stack->len > 0)
          {
            guint x = g_array_index (stack, guint, stack->len - 1);
            g_array_set_size (stack, stack->len - 1);
            v[x].pos = L.ranks[v[x].rank]->len;
            g_array_append_val (L.ranks[v[x].rank], x);
            /* Pushed in reverse, popped in the edges' order. */
            for (guint j = L.pred.start[x + 1]; j-- > L.pred.start[x];)
              if (!seen[L.pred.to[j]])
                {
                  seen[L.pred.to[j]] = TRUE;
                  g_array_append_val (stack, L.pred.to[j]);
                }
          }
      }
    for (guint x = 0; x < n_vertices; x++)
      if (!seen[x])
        {
          v[x].pos = L.ranks[v[x].rank]->len;
          g_array_append_val (L.ranks[v[x].rank], x);
        }
    g_array_unref (stack);
  }
  for (int s = 0; s < SWEEPS_ORDER; s++)
    {
      order_sweep (&L, FALSE);
      order_sweep (&L, TRUE);
    }

  /* Heights: stacked first, then pulled towards the neighbours. */
  for (guint r = 0; r < L.n_ranks; r++)
    {
      double y = 0;
      GArray *rank = L.ranks[r];
      for (guint p = 0; p < rank->len; p++)
        {
          Vertex *x = &v[g_array_index (rank, guint, p)];
          x->y = y + x->h / 2;
          y += x->h + node_gap;
        }
      /* Centred on 0, so that short ranks sit in the middle. */
      for (guint p = 0; p < rank->len; p++)
        v[g_array_index (rank, guint, p)].y -= (y - node_gap) / 2;
    }
  for (int s = 0; s < SWEEPS_PLACE; s++)
    {
      place_sweep (&L, TRUE, FALSE, TRUE, node_gap, virtual_gap);
      place_sweep (&L, FALSE, TRUE, FALSE, node_gap, virtual_gap);
    }
  place_sweep (&L, TRUE, TRUE, TRUE, node_gap, virtual_gap);

  /* Columns: each as wide as its widest unit, rank_gap apart. */
  g_autofree double *col_x = g_new0 (double, L.n_ranks + 1);
  g_autofree double *col_w = g_new0 (double, L.n_ranks + 1);
  for (guint u = 0; u < n_vertices; u++)
    col_w[v[u].rank] = MAX (col_w[v[u].rank], v[u].w);
  double x = pad;
  for (guint r = 0; r < L.n_ranks; r++)
    {
      col_x[r] = x;
      x += col_w[r] + rank_gap;
    }
  /* Open module calls: their boxes packed apart; the first and last
   * columns make room for the boxes around them. */
  g_autofree Extent *boxes = pack_clusters (&L, model, unit_of, (const guint *) chain->data,
                                            chain_start, ue_from, ue_to, n_ue, col_x, col_w,
                                            rank_gap, node_gap, virtual_gap, k, down);
  guint n_boxes = boxes ? model->clusters->len : 0;
  double top = G_MAXDOUBLE, bottom = -G_MAXDOUBLE, along0 = pad, along1 = x - rank_gap;
  for (guint u = 0; u < n_vertices; u++)
    {
      top = MIN (top, v[u].y - v[u].h / 2);
      bottom = MAX (bottom, v[u].y + v[u].h / 2);
    }
  for (guint i = 0; i < n_boxes; i++)
    if (boxes[i].a1 > boxes[i].a0)
      {
        top = MIN (top, boxes[i].c0);
        bottom = MAX (bottom, boxes[i].c1);
        along0 = MIN (along0, boxes[i].a0);
        along1 = MAX (along1, boxes[i].a1);
      }
  if (n_vertices == 0)
    top = bottom = 0;
  double dy = pad - top, dx = pad - along0;
  if (dx > 0)
    {
      for (guint r = 0; r < L.n_ranks; r++)
        col_x[r] += dx;
      x += dx;
      along1 += dx;
    }

  CrGraphLayout *self = g_new0 (CrGraphLayout, 1);
  self->direction = direction;
  self->width = (L.n_ranks > 0 ? MAX (x - rank_gap, along1) : 0) + pad;
  self->height = bottom - top + 2 * pad;
  if (down)
    {
      double across = self->height;
      self->height = self->width;
      self->width = across;
    }
  self->n_nodes = n_nodes;
  self->nodes = g_new0 (CrGraphBox, n_nodes + 1);
  for (guint u = 0; u < n_units; u++)
    {
      guint i = (guint) v[u].node;
      CrGraphBox *b = &self->nodes[i];
      b->width = node_sizes[2 * i];
      b->height = node_sizes[2 * i + 1];
      double cx = col_x[v[u].rank] + col_w[v[u].rank] / 2;
      double cy = v[u].y + dy;
      if (down)
        {
          double across = cy;
          cy = cx;
          cx = across;
        }
      if (partner[i] < 0)
        {
          b->x = cx - b->width / 2;
          b->y = cy - b->height / 2;
          continue;
        }
      /* The pair: the card on top, the pill under it, as wide as the unit. */
      guint a = (guint) partner[i];
      CrGraphBox *pill = &self->nodes[a];
      double unit_w = down ? v[u].h : v[u].w, unit_h = down ? v[u].w : v[u].h;
      b->width = pill->width = unit_w;
      b->x = pill->x = cx - unit_w / 2;
      b->y = cy - unit_h / 2;
      pill->height = node_sizes[2 * a + 1];
      pill->y = b->y + unit_h - pill->height;
    }

  if (n_boxes > 0)
    {
      self->n_clusters = n_boxes;
      self->clusters = g_new0 (CrGraphBox, n_boxes + 1);
      for (guint i = 0; i < n_boxes; i++)
        {
          const Extent *e = &boxes[i];
          if (e->a1 <= e->a0)
            continue;
          double a0 = e->a0 + MAX (dx, 0), a1 = e->a1 + MAX (dx, 0);
          double c0 = e->c0 + dy, c1 = e->c1 + dy;
          CrGraphBox *b = &self->clusters[i];
          *b = down ? (CrGraphBox) { c0, a0, c1 - c0, a1 - a0 } : (CrGraphBox) { a0, c0, a1 - a0, c1 - c0 };
        }
    }

  /* Edges: from the source's right end (a pair's pill's) to an arrow on
   * the target's left border, across each column between at its point. */
  self->n_edges = n_edges;
  self->edges = g_new0 (CrGraphPath, n_edges + 1);
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      CrGraphPath *p = &self->edges[i];
      if (e->from >= n_nodes || e->to >= n_nodes)
        continue;
      if (partner[e->from] == (int) e->to)
        {
          cr_graph_layout_pair_edge (p, &self->nodes[e->from], &self->nodes[e->to]);
          continue;
        }
      if (unit_edge[i] < 0)
        continue;
      const CrGraphBox *s = &self->nodes[e->from], *t = &self->nodes[e->to];
      g_array_set_size (pts, 0);
      double sx = down ? s->x + s->width / 2 : s->x + s->width;
      double sy = down ? s->y + s->height : s->y + s->height / 2;
      g_array_append_val (pts, sx);
      g_array_append_val (pts, sy);
      guint ue = (guint) unit_edge[i];
      for (guint j = chain_start[ue] + 1; j + 1 < chain_start[ue + 1]; j++)
        {
          const Vertex *d = &v[g_array_index (chain, guint, j)];
          double a0 = col_x[d->rank], a1 = a0 + col_w[d->rank], across = d->y + dy;
          double through[4] = { a0, across, a1, across };
          if (down)
            {
              through[0] = through[2] = across;
              through[1] = a0;
              through[3] = a1;
            }
          g_array_append_vals (pts, through, 4);
        }
      double tx = down ? t->x + t->width / 2 : t->x, ty = down ? t->y : t->y + t->height / 2;
      double end[2] = { down ? tx : tx - arrow, down ? ty - arrow : ty };
      g_array_append_vals (pts, end, 2);
      set_curve (p, (const double *) pts->data, pts->len / 2, k, down);
      p->has_arrow = TRUE;
      p->arrow_x = tx;
      p->arrow_y = ty;
      p->has_label = e->label != NULL;
    }
  g_array_unref (pts);
  cr_graph_layout_place_labels (self, model, label_font_size);

  for (guint r = 0; r < L.n_ranks; r++)
    g_array_unref (L.ranks[r]);
  g_free (L.ranks);
  adjacency_clear (&L.pred);
  adjacency_clear (&L.succ);
  adjacency_clear (&out);
  adjacency_clear (&in);
  g_array_unref (chain);
  g_array_unref (le_from);
  g_array_unref (le_to);
  g_array_unref (L.vertices);
  return self;
}

CrGraphLayout *
cr_graph_layout_new_layered (const CrGraphModel *model,
                             const double       *node_sizes,
                             double              label_font_size)
{
  return cr_graph_layout_new_layered_directed (model, node_sizes, label_font_size,
                                               CR_GRAPH_LAYOUT_LEFT_TO_RIGHT);
}

CrGraphLayout *
cr_graph_layout_new_layered_directed (const CrGraphModel     *model,
                                      const double           *node_sizes,
                                      double                  label_font_size,
                                      CrGraphLayoutDirection  direction)
{
  g_return_val_if_fail (model != NULL && (node_sizes != NULL || model->nodes->len == 0), NULL);
  g_autofree int *partner = cr_graph_layout_find_pairs (model);
  return cr_graph_layout_layered (model, node_sizes, label_font_size, partner, direction);
}
