/* cr-graph-regions.c — grad-mode regions as boxes (see cr-graph-regions.h). */
#include "cr-graph-regions.h"

#include "cr-graph-render.h"
#include "cr-run-record.h"

#include <pango/pangocairo.h>

#define TITLE_FONT "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define TITLE_SIZE 7.5
/* Around the nodes, in points at scale 1. */
#define BOX_PAD    8.0
#define BOX_RADIUS 8.0

static const char *
kind_name (CrRecordRegionKind kind)
{
  switch (kind)
    {
    case CR_RECORD_REGION_ENABLE_GRAD:   return "enable_grad";
    case CR_RECORD_REGION_GRAD_DISABLED: return "set_grad_enabled(False)";
    case CR_RECORD_REGION_INFERENCE:     return "inference_mode";
    case CR_RECORD_REGION_NO_GRAD:
    default:                             return "no_grad";
    }
}

/* Whether span (a node's source, in loop iteration `iteration`) lies within
 * the region's lines and iteration. */
static gboolean
span_in (const CrRecordRegion *region,
         CrSpan                span,
         guint                 iteration)
{
  if (span.line <= 0 || region->span.line <= 0)
    return FALSE;
  int end = span.end_line > 0 ? span.end_line : span.line;
  int region_end = region->span.end_line > 0 ? region->span.end_line : region->span.line;
  return span.line >= region->span.line && end <= region_end
         && (region->iteration == 0 || region->iteration == iteration);
}

static gboolean
node_in (const CrRunRecord    *record,
         const CrGraphNode    *n,
         const CrRecordRegion *region)
{
  if (n->kind == CR_GRAPH_NODE_OP && n->op >= 0 && (guint) n->op < record->ops->len)
    {
      /* No op is recorded where gradients are off: one within such a
       * region's lines ran in an enable_grad inside it. */
      const CrRecordOp *op = g_ptr_array_index (record->ops, n->op);
      return region->kind == CR_RECORD_REGION_ENABLE_GRAD
             && span_in (region, op->span, op->iteration);
    }
  if (n->tensor < 0 || (guint) n->tensor >= record->tensors->len
      || n->kind == CR_GRAPH_NODE_GROUP || n->kind == CR_GRAPH_NODE_OUTPUT)
    return FALSE;
  /* A tensor node, or a leaf's AccumulateGrad (boxed with its leaf). */
  const CrRecordTensor *t = g_ptr_array_index (record->tensors, n->tensor);
  if (t->region >= 0)
    return (guint) t->region == region->id;
  return span_in (region, t->span, t->iteration);
}

static void
box_clear (gpointer data)
{
  CrGraphRegionBox *box = data;
  g_free (box->title);
  g_clear_pointer (&box->nodes, g_array_unref);
}

static PangoLayout *
title_layout (PangoContext *context,
              const char   *text,
              double        k)
{
  PangoLayout *layout = pango_layout_new (context);
  PangoFontDescription *font = pango_font_description_from_string (TITLE_FONT);
  pango_font_description_set_absolute_size (font, TITLE_SIZE * k * PANGO_SCALE);
  pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

static gboolean
meets (double x0, double y0, double x1, double y1,
       double u0, double v0, double u1, double v1)
{
  return x0 < u1 && u0 < x1 && y0 < v1 && v0 < y1;
}

/* How much of the graph a title's tag at (x, y) would lie on: the nodes,
 * the edges' labels (about their size) and the edges (sampled). */
static guint
title_crowding (const CrGraphRegionBox *box,
                const CrGraphLayout    *layout,
                double                  x,
                double                  y,
                double                  k)
{
  double x1 = x + box->title_width, y1 = y + box->title_height;
  guint hits = 0;
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      hits += 4 * meets (x, y, x1, y1, b->x, b->y, b->x + b->width, b->y + b->height);
    }
  for (guint i = 0; i < layout->n_edges; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      if (p->has_label)
        hits += 2 * meets (x, y, x1, y1, p->label_x - 14 * k, p->label_y - 7 * k,
                           p->label_x + 14 * k, p->label_y + 7 * k);
      for (guint j = 0; j < p->n_points; j++)
        hits += meets (x, y, x1, y1, p->points[2 * j] - 1, p->points[2 * j + 1] - 1,
                       p->points[2 * j] + 1, p->points[2 * j + 1] + 1);
    }
  return hits;
}

/* The title's tag sits on the box's edge, inside a corner's curve: the
 * top-left, else the corner where it lies on least of the graph. */
static void
place_title (CrGraphRegionBox    *box,
             const CrGraphLayout *layout,
             double               k)
{
  double left = box->x + BOX_RADIUS * k;
  double right = box->x + box->width - BOX_RADIUS * k - box->title_width;
  double top = box->y - box->title_height / 2;
  double bottom = box->y + box->height - box->title_height / 2;
  const double corners[][2] = { { left, top }, { right, top }, { left, bottom }, { right, bottom } };
  guint least = G_MAXUINT;
  for (guint i = 0; i < G_N_ELEMENTS (corners) && least > 0; i++)
    {
      guint hits = title_crowding (box, layout, corners[i][0], corners[i][1], k);
      if (hits < least)
        {
          least = hits;
          box->title_x = corners[i][0];
          box->title_y = corners[i][1];
        }
    }
}

GArray *
cr_graph_regions_boxes (const CrGraphModel  *model,
                        const CrGraphLayout *layout,
                        double               k)
{
  g_return_val_if_fail (model != NULL && layout != NULL, NULL);
  GArray *boxes = g_array_new (FALSE, TRUE, sizeof (CrGraphRegionBox));
  g_array_set_clear_func (boxes, box_clear);
  const CrRunRecord *record = model->record;
  if (!record || !record->regions || record->regions->len == 0)
    return boxes;
  k = k > 0 ? k : 1.0;
  PangoContext *context = NULL;
  guint n_nodes = MIN (model->nodes->len, layout->n_nodes);
  for (guint r = 0; r < record->regions->len; r++)
    {
      const CrRecordRegion *region = g_ptr_array_index (record->regions, r);
      GArray *nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
      for (guint i = 0; i < n_nodes; i++)
        {
          const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
          if (!node_in (record, n, region))
            continue;
          g_array_append_val (nodes, i);
          const CrGraphBox *b = &layout->nodes[i];
          x0 = MIN (x0, b->x);
          y0 = MIN (y0, b->y);
          x1 = MAX (x1, b->x + b->width);
          y1 = MAX (y1, b->y + b->height);
        }
      if (nodes->len == 0)
        {
          g_array_unref (nodes);
          continue;
        }
      CrGraphRegionBox box = { .region = r, .nodes = nodes };
      g_autofree char *where = cr_run_record_line_text (record, region->span.line, FALSE);
      box.title = g_strdup_printf ("%s · %s", kind_name (region->kind), where);
      if (!context)
        context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
      PangoLayout *text = title_layout (context, box.title, k);
      int pw, ph;
      pango_layout_get_size (text, &pw, &ph);
      g_object_unref (text);
      double pad = BOX_PAD * k;
      box.title_width = (double) pw / PANGO_SCALE + 8 * k;
      box.title_height = (double) ph / PANGO_SCALE + 2 * k;
      box.x = x0 - pad;
      box.y = y0 - pad;
      box.width = MAX (x1 - x0 + 2 * pad, box.title_width + 2 * BOX_RADIUS * k);
      box.height = y1 - y0 + 2 * pad;
      place_title (&box, layout, k);
      g_array_append_val (boxes, box);
    }
  g_clear_object (&context);
  return boxes;
}

typedef struct { double r, g, b; } Rgb;

static Rgb
hex (guint32 v)
{
  return (Rgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };
}

static void
draw (cairo_t             *cr,
      const CrGraphModel  *model,
      const CrGraphLayout *layout,
      gboolean             dark,
      double               k,
      gboolean             titles)
{
  if (!model->record || !model->record->regions || model->record->regions->len == 0)
    return;
  g_autoptr (GArray) boxes = cr_graph_regions_boxes (model, layout, k);
  if (boxes->len == 0)
    return;
  k = k > 0 ? k : 1.0;
  cairo_save (cr);
  PangoLayout *text = pango_cairo_create_layout (cr);
  for (guint i = 0; i < boxes->len; i++)
    {
      const CrGraphRegionBox *box = &g_array_index (boxes, CrGraphRegionBox, i);
      const CrRecordRegion *region = g_ptr_array_index (model->record->regions, box->region);
      gboolean on = region->kind == CR_RECORD_REGION_ENABLE_GRAD;
      /* Gradients off: grey (as the dashed no_grad cards); on again: green. */
      Rgb line = hex (on ? (dark ? 0x57e389 : 0x26a269) : (dark ? 0xc0bfbc : 0x77767b));
      Rgb tag = hex (on ? (dark ? 0x1f3a2c : 0xe6f6ec) : (dark ? 0x3d3846 : 0xebebed));
      Rgb ink = hex (on ? (dark ? 0x8ff0a4 : 0x1b6b43) : (dark ? 0xdeddda : 0x3d3846));

      if (titles)
        goto title;
      /* Hatched inside, thin diagonal strokes: "no gradient here". */
      cairo_save (cr);
      cr_graph_rounded_path (cr, box->x, box->y, box->width, box->height, BOX_RADIUS * k);
      cairo_clip (cr);
      double step = 7 * k;
      for (double d = -box->height; d < box->width; d += step)
        {
          cairo_move_to (cr, box->x + d, box->y + box->height);
          cairo_line_to (cr, box->x + d + box->height, box->y);
        }
      cairo_set_source_rgba (cr, line.r, line.g, line.b, dark ? 0.16 : 0.12);
      cairo_set_line_width (cr, 1.0 * k);
      cairo_stroke (cr);
      cairo_restore (cr);

      cr_graph_rounded_path (cr, box->x, box->y, box->width, box->height, BOX_RADIUS * k);
      cairo_set_source_rgba (cr, line.r, line.g, line.b, 0.8);
      cairo_set_line_width (cr, 1.2 * k);
      cairo_stroke (cr);
      continue;

    title:
      cr_graph_rounded_path (cr, box->title_x, box->title_y, box->title_width, box->title_height,
               box->title_height / 2);
      cairo_set_source_rgb (cr, tag.r, tag.g, tag.b);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, line.r, line.g, line.b, 0.8);
      cairo_set_line_width (cr, 1.0 * k);
      cairo_stroke (cr);
      PangoFontDescription *font = pango_font_description_from_string (TITLE_FONT);
      pango_font_description_set_absolute_size (font, TITLE_SIZE * k * PANGO_SCALE);
      pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
      pango_layout_set_font_description (text, font);
      pango_font_description_free (font);
      pango_layout_set_text (text, box->title, -1);
      cairo_set_source_rgb (cr, ink.r, ink.g, ink.b);
      cairo_move_to (cr, box->title_x + 4 * k, box->title_y + 1 * k);
      pango_cairo_show_layout (cr, text);
    }
  g_object_unref (text);
  cairo_restore (cr);
}

void
cr_graph_regions_draw (cairo_t             *cr,
                       const CrGraphModel  *model,
                       const CrGraphLayout *layout,
                       gboolean             dark,
                       double               k)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL);
  draw (cr, model, layout, dark, k, FALSE);
}

void
cr_graph_regions_draw_titles (cairo_t             *cr,
                              const CrGraphModel  *model,
                              const CrGraphLayout *layout,
                              gboolean             dark,
                              double               k)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL);
  draw (cr, model, layout, dark, k, TRUE);
}
