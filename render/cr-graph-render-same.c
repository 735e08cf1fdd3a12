/* cr-graph-render-same.c — where two drawings differ
 * (cr-graph-render-same.h). */
#include "cr-graph-render-same.h"

#include "cr-graph-items.h"
#include "cr-graph-regions.h"
#include "cr-graph-titles.h"

GArray *
cr_graph_render_drawing_items (const CrGraphDrawing *d)
{
  g_return_val_if_fail (d && d->model && d->layout && d->options, NULL);
  CrGraphRenderOptions options = *d->options;
  options.items = cr_graph_items_new ();
  /* Nothing is drawn; the badges are placed by text, so a context is
   * wanted all the same. */
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  cr_graph_render (cr, d->model, d->layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return options.items;
}

gboolean
cr_graph_render_drawing_changes (const CrGraphDrawing *a,
                                 const CrGraphDrawing *b,
                                 GArray               *dirty)
{
  g_return_val_if_fail (dirty != NULL, FALSE);
  g_autoptr (GArray) items_a = cr_graph_render_drawing_items (a);
  g_autoptr (GArray) items_b = cr_graph_render_drawing_items (b);
  return items_a && items_b && cr_graph_items_diff (items_a, items_b, dirty);
}

gboolean
cr_graph_render_same_drawing (const CrGraphDrawing *a,
                              const CrGraphDrawing *b)
{
  g_autoptr (GArray) dirty = g_array_new (FALSE, FALSE, sizeof (double));
  return cr_graph_render_drawing_changes (a, b, dirty) && dirty->len == 0;
}

static guint64
digest_region_boxes (guint64              d,
                     const CrGraphModel  *model,
                     const CrGraphLayout *layout,
                     double               k)
{
  if (!model->record || !model->record->regions || model->record->regions->len == 0)
    return d;
  g_autoptr (GArray) boxes = cr_graph_regions_boxes (model, layout, k);
  for (guint i = 0; i < boxes->len; i++)
    {
      const CrGraphRegionBox *p = &g_array_index (boxes, CrGraphRegionBox, i);
      const CrRecordRegion *region = g_ptr_array_index (model->record->regions, p->region);
      d = cr_graph_digest_int (d, region->kind);
      d = cr_graph_digest_string (d, p->title);
      const double geometry[8] = { p->x, p->y, p->width, p->height,
                                   p->title_x, p->title_y, p->title_width, p->title_height };
      d = cr_graph_digest_bytes (d, geometry, sizeof geometry);
    }
  return d;
}

/* The open module calls' boxes as cr_graph_collapse_draw_boxes () draws
 * them: laid out by the layout's clusters, else around their nodes. */
static guint64
digest_group_boxes (guint64                d,
                    const CrGraphCollapse *collapse,
                    const CrGraphLayout   *layout,
                    const GArray          *titles)
{
  if (!collapse->boxes)
    return d;
  for (guint i = 0; i < collapse->boxes->len; i++)
    {
      const CrGraphGroupBox *box = g_ptr_array_index (collapse->boxes, i);
      d = cr_graph_digest_string (d, box->title);
      d = cr_graph_digest_int (d, box->level);
      d = cr_graph_digest_int (d, box->inner);
      if (i < layout->n_clusters)
        d = cr_graph_digest_bytes (d, &layout->clusters[i], sizeof (CrGraphBox));
      for (guint k = 0; k < box->nodes->len; k++)
        {
          guint n = g_array_index (box->nodes, guint, k);
          if (n < layout->n_nodes)
            d = cr_graph_digest_bytes (d, &layout->nodes[n], sizeof (CrGraphBox));
        }
    }
  for (guint i = 0; titles && i < titles->len; i++)
    {
      const CrGraphTitle *t = &g_array_index (titles, CrGraphTitle, i);
      const double place[4] = { t->x, t->y, t->width, t->height };
      d = cr_graph_digest_bytes (d, place, sizeof place);
      d = cr_graph_digest_int (d, t->crossed);
    }
  return d;
}

guint64
cr_graph_render_whole_digest (const CrGraphModel         *model,
                              const CrGraphLayout        *layout,
                              const CrGraphRenderOptions *options,
                              const GArray               *titles,
                              double                      k,
                              double                      lw)
{
  guint64 d = CR_GRAPH_DIGEST_INIT;
  d = cr_graph_digest_int (d, options->style);
  d = cr_graph_digest_int (d, options->presentation);
  d = cr_graph_digest_int (d, options->dimmed);
  d = cr_graph_digest_int (d, options->draw_background);
  /* The background fills the drawing's size. */
  if (options->draw_background)
    {
      d = cr_graph_digest_double (d, layout->width);
      d = cr_graph_digest_double (d, layout->height);
    }
  /* It decides which type shows and how finely the curves are flattened. */
  d = cr_graph_digest_double (d, options->text_scale);
  d = cr_graph_digest_double (d, k);
  d = cr_graph_digest_double (d, lw);
  /* The travelling gradient, over everything. */
  if (options->current_step >= 0 && options->pulse >= 0)
    {
      d = cr_graph_digest_int (d, options->current_step);
      d = cr_graph_digest_double (d, options->pulse);
    }
  if (options->collapse && options->collapse->model == model)
    d = digest_group_boxes (cr_graph_digest_int (d, 'g'), options->collapse, layout, titles);
  return digest_region_boxes (d, model, layout, k);
}
