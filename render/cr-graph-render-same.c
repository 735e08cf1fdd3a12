/* cr-graph-render-same.c — whether two drawings are the same picture
 * (cr-graph-render-same.h). */
#include "cr-graph-render-same.h"

#include "cr-graph-regions.h"
#include "cr-graph-render-badges.h"

#include <string.h>

/* memcmp, which an empty GArray's NULL data must not reach. */
static gboolean
same_bytes (gconstpointer a,
            gconstpointer b,
            gsize         n)
{
  return n == 0 || memcmp (a, b, n) == 0;
}

static gboolean
same_options (const CrGraphRenderOptions *a,
              const CrGraphRenderOptions *b,
              guint                       n_nodes)
{
  if (a->style != b->style || a->current_step != b->current_step
      || a->draw_background != b->draw_background || a->selected != b->selected
      || a->dimmed != b->dimmed || a->presentation != b->presentation
      || a->hide_step_gradients != b->hide_step_gradients || a->text_scale != b->text_scale
      || (a->pulse >= 0) != (b->pulse >= 0) || (a->pulse >= 0 && a->pulse != b->pulse))
    return FALSE;
  /* Their content is not compared (see the header). */
  if (a->node_alpha || b->node_alpha || a->highlight || b->highlight || a->collapse || b->collapse)
    return FALSE;
  if (!a->forward != !b->forward)
    return FALSE;
  return !a->forward || same_bytes (a->forward, b->forward, n_nodes);
}

static gboolean
same_box (const CrGraphBox *a,
          const CrGraphBox *b)
{
  return a->x == b->x && a->y == b->y && a->width == b->width && a->height == b->height;
}

static gboolean
same_layout (const CrGraphLayout *a,
             const CrGraphLayout *b)
{
  if (a->width != b->width || a->height != b->height || a->n_nodes != b->n_nodes
      || a->n_edges != b->n_edges || a->n_clusters != b->n_clusters
      || a->direction != b->direction || a->beside != b->beside)
    return FALSE;
  for (guint i = 0; i < a->n_nodes; i++)
    if (!same_box (&a->nodes[i], &b->nodes[i]))
      return FALSE;
  for (guint i = 0; i < a->n_clusters; i++)
    if (!same_box (&a->clusters[i], &b->clusters[i]))
      return FALSE;
  for (guint i = 0; i < a->n_edges; i++)
    {
      const CrGraphPath *p = &a->edges[i], *q = &b->edges[i];
      if (p->n_points != q->n_points || p->has_arrow != q->has_arrow || p->has_label != q->has_label
          || (p->has_arrow && (p->arrow_x != q->arrow_x || p->arrow_y != q->arrow_y))
          || (p->has_label && (p->label_x != q->label_x || p->label_y != q->label_y))
          || !same_bytes (p->points, q->points, 2 * p->n_points * sizeof (double)))
        return FALSE;
    }
  return TRUE;
}

/* Each node's and edge's text, kind and step, as the nodes, the edges and
 * the text cache draw them. changed: NULL, or where the ids of the nodes
 * that differ only in their own texts go (then those do not count). */
static gboolean
same_items (const CrGraphDrawing *a,
            const CrGraphDrawing *b,
            GArray               *changed)
{
  const CrGraphModel *ma = a->model, *mb = b->model;
  if (ma->nodes->len != mb->nodes->len || ma->edges->len != mb->edges->len
      || !ma->clusters != !mb->clusters || (ma->clusters && ma->clusters->len != mb->clusters->len))
    return FALSE;
  int current = a->options->current_step;
  for (guint i = 0; i < ma->nodes->len; i++)
    {
      const CrGraphNode *p = g_ptr_array_index (ma->nodes, i), *q = g_ptr_array_index (mb->nodes, i);
      if (p->kind != q->kind || p->step != q->step)
        return FALSE;
      if (g_strcmp0 (p->title, q->title) != 0 || g_strcmp0 (p->symbol, q->symbol) != 0
          || g_strcmp0 (p->caption, q->caption) != 0 || g_strcmp0 (p->shape, q->shape) != 0
          || g_strcmp0 (p->preview, q->preview) != 0 || g_strcmp0 (p->device, q->device) != 0)
        {
          if (!changed)
            return FALSE;
          g_array_append_val (changed, i);
        }
      if ((p->kind == CR_GRAPH_NODE_OP || p->kind == CR_GRAPH_NODE_GROUP)
          && cr_graph_render_badges_op_freed (ma, p, current) != cr_graph_render_badges_op_freed (mb, q, current))
        return FALSE;
    }
  for (guint i = 0; i < ma->edges->len; i++)
    {
      const CrGraphEdge *p = g_ptr_array_index (ma->edges, i), *q = g_ptr_array_index (mb->edges, i);
      if (p->from != q->from || p->to != q->to || p->stops_gradient != q->stops_gradient
          || g_strcmp0 (p->label, q->label) != 0 || g_strcmp0 (p->tensor_name, q->tensor_name) != 0
          || cr_graph_render_cache_edge_step (a->options->cache, i)
             != cr_graph_render_cache_edge_step (b->options->cache, i))
        return FALSE;
    }
  for (guint i = 0; ma->clusters && i < ma->clusters->len; i++)
    {
      const CrGraphCluster *p = g_ptr_array_index (ma->clusters, i), *q = g_ptr_array_index (mb->clusters, i);
      if (p->parent != q->parent || g_strcmp0 (p->title, q->title) != 0 || p->nodes->len != q->nodes->len
          || !same_bytes (p->nodes->data, q->nodes->data, p->nodes->len * sizeof (guint)))
        return FALSE;
    }
  /* The nodes' sizes follow from their texts; compared all the same, as
   * the layout was made from them. */
  return same_bytes (cr_graph_render_cache_sizes (a->options->cache),
                     cr_graph_render_cache_sizes (b->options->cache), 2 * ma->nodes->len * sizeof (double));
}

/* The edges' shape labels' places (given, else placed here; new). */
static double *
label_boxes (const CrGraphDrawing *d)
{
  guint n = CR_GRAPH_BADGES_LABEL_BOX * d->layout->n_edges + 1;
  if (d->options->label_boxes)
    return g_memdup2 (d->options->label_boxes, n * sizeof (double));
  return cr_graph_render_label_boxes (d->options->cache, d->layout);
}

static gboolean
same_regions (const CrGraphDrawing *a,
              const CrGraphDrawing *b,
              double                k)
{
  g_autoptr (GArray) ra = cr_graph_regions_boxes (a->model, a->layout, k);
  g_autoptr (GArray) rb = cr_graph_regions_boxes (b->model, b->layout, k);
  if (ra->len != rb->len)
    return FALSE;
  for (guint i = 0; i < ra->len; i++)
    {
      const CrGraphRegionBox *p = &g_array_index (ra, CrGraphRegionBox, i);
      const CrGraphRegionBox *q = &g_array_index (rb, CrGraphRegionBox, i);
      const CrRecordRegion *pr = g_ptr_array_index (a->model->record->regions, p->region);
      const CrRecordRegion *qr = g_ptr_array_index (b->model->record->regions, q->region);
      if (pr->kind != qr->kind || g_strcmp0 (p->title, q->title) != 0 || p->x != q->x || p->y != q->y
          || p->width != q->width || p->height != q->height || p->title_x != q->title_x
          || p->title_y != q->title_y || p->title_width != q->title_width
          || p->title_height != q->title_height || p->nodes->len != q->nodes->len
          || !same_bytes (p->nodes->data, q->nodes->data, p->nodes->len * sizeof (guint)))
        return FALSE;
    }
  return TRUE;
}

/* The node id a record op or tensor is drawn by, -1: none. */
static int
node_of (const CrGraphModel *model,
         int                 op,
         int                 tensor)
{
  const CrGraphNode *n = op >= 0 ? cr_graph_model_find_op (model, op) : cr_graph_model_find_tensor (model, tensor);
  return n ? (int) n->id : -1;
}

/* The nodes the errors of model's backward call ring (as the badges draw
 * them: each error's node, and a forward error's operands), in order. */
static GArray *
error_rings (const CrGraphModel *model)
{
  GArray *rings = g_array_new (FALSE, FALSE, sizeof (int));
  if (!model->record)
    return rings;
  for (guint i = 0; i < model->record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (model->record->errors, i);
      if (e->backward >= 0 && e->backward != model->backward)
        continue;
      int node = node_of (model, e->op, e->tensor);
      g_array_append_val (rings, node);
      for (guint k = 0; e->op < 0 && k < e->operands->len; k++)
        {
          int other = node_of (model, -1, g_array_index (e->operands, int, k));
          g_array_append_val (rings, other);
        }
    }
  return rings;
}

/* The badges' texts and places, drawn into a pixel (only the placing is
 * wanted) as cr_graph_render () draws them. */
static void
badges (const CrGraphDrawing *d,
        const double         *labels,
        double                k,
        double                lw,
        GPtrArray            *drawn,
        GArray               *placed)
{
  static const double everywhere[4] = { -1e9, -1e9, 1e9, 1e9 };
  const CrGraphRenderOptions *o = d->options;
  CrGraphBadgeOptions options = {
    .current_step = o->hide_step_gradients && o->current_step >= 0 ? o->current_step - 1 : o->current_step,
    .dark = o->style == CR_GRAPH_STYLE_DARK,
    .k = k,
    .lw = lw,
    .clip = everywhere,
    .drawn = drawn,
    .label_boxes = labels,
    .placed = placed,
  };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  cr_graph_render_badges (cr, d->model, d->layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static gboolean
same_badges (const CrGraphDrawing *a,
             const CrGraphDrawing *b,
             const double         *labels_a,
             const double         *labels_b,
             double                k,
             double                lw)
{
  g_autoptr (GArray) rings_a = error_rings (a->model);
  g_autoptr (GArray) rings_b = error_rings (b->model);
  if (rings_a->len != rings_b->len || !same_bytes (rings_a->data, rings_b->data, rings_a->len * sizeof (int)))
    return FALSE;
  g_autoptr (GPtrArray) drawn_a = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) drawn_b = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) placed_a = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  g_autoptr (GArray) placed_b = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  badges (a, labels_a, k, lw, drawn_a, placed_a);
  badges (b, labels_b, k, lw, drawn_b, placed_b);
  if (drawn_a->len != drawn_b->len || placed_a->len != placed_b->len)
    return FALSE;
  for (guint i = 0; i < drawn_a->len; i++)
    if (strcmp (g_ptr_array_index (drawn_a, i), g_ptr_array_index (drawn_b, i)) != 0)
      return FALSE;
  for (guint i = 0; i < placed_a->len; i++)
    {
      const CrGraphBadgeBox *p = &g_array_index (placed_a, CrGraphBadgeBox, i);
      const CrGraphBadgeBox *q = &g_array_index (placed_b, CrGraphBadgeBox, i);
      if (p->x0 != q->x0 || p->y0 != q->y0 || p->x1 != q->x1 || p->y1 != q->y1 || p->node != q->node)
        return FALSE;
    }
  return TRUE;
}

/* What cr_graph_render_same_drawing and cr_graph_render_drawing_changes
 * share: changed as same_items takes it. */
static gboolean
compare (const CrGraphDrawing *a,
         const CrGraphDrawing *b,
         GArray               *changed)
{
  g_return_val_if_fail (a && a->model && a->layout && a->options && a->options->cache, FALSE);
  g_return_val_if_fail (b && b->model && b->layout && b->options && b->options->cache, FALSE);
  if (a->model == b->model && a->layout == b->layout && a->options->cache == b->options->cache)
    return same_options (a->options, b->options, a->model->nodes->len);
  /* The cheap checks first: most edits that change the picture change the
   * layout or a node's text. */
  if (!same_layout (a->layout, b->layout) || a->layout->n_nodes != a->model->nodes->len
      || !same_options (a->options, b->options, a->model->nodes->len) || !same_items (a, b, changed))
    return FALSE;
  double ka, lwa, kb, lwb;
  cr_graph_render_cache_scales (a->options->cache, &ka, &lwa);
  cr_graph_render_cache_scales (b->options->cache, &kb, &lwb);
  if (ka != kb || lwa != lwb)
    return FALSE;
  g_autofree double *labels_a = label_boxes (a);
  g_autofree double *labels_b = label_boxes (b);
  if (!same_bytes (labels_a, labels_b, CR_GRAPH_BADGES_LABEL_BOX * a->layout->n_edges * sizeof (double)))
    return FALSE;
  if (!!a->model->record != !!b->model->record || a->model->backward != b->model->backward)
    return FALSE;
  if (a->model->record && !same_regions (a, b, ka))
    return FALSE;
  return same_badges (a, b, labels_a, labels_b, ka, lwa);
}

gboolean
cr_graph_render_same_drawing (const CrGraphDrawing *a,
                              const CrGraphDrawing *b)
{
  return compare (a, b, NULL);
}

gboolean
cr_graph_render_drawing_changes (const CrGraphDrawing *a,
                                 const CrGraphDrawing *b,
                                 GArray               *dirty)
{
  g_return_val_if_fail (dirty != NULL, FALSE);
  g_autoptr (GArray) changed = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!compare (a, b, changed))
    return FALSE;
  double k = 1;
  cr_graph_render_cache_scales (a->options->cache, &k, NULL);
  /* A node's shadow and its rings (the step's, the selection's) reach
   * past its box; cr_graph_render () draws a node within this margin. */
  double m = 16 * k;
  for (guint c = 0; c < changed->len; c++)
    {
      const CrGraphBox *box = &b->layout->nodes[g_array_index (changed, guint, c)];
      double r[4] = { box->x - m, box->y - m, box->x + box->width + m, box->y + box->height + m };
      g_array_append_vals (dirty, r, 4);
    }
  return TRUE;
}
