/* cr-graph-render.c — the look of the graph.
 *
 * Leaf tensors are cards with a coloured band (the name, shape and values),
 * ops are rounded pills with their glyph in a disc, AccumulateGrad is a small
 * quiet pill, and the output is a card in the accent colour. Edges are soft
 * curves carrying the shape as a small label. Every colour comes from one
 * palette per style so that light and dark both hold together. */
#include "cr-graph-render.h"

#include <math.h>
#include <pango/pangocairo.h>

#define FONT_UI    "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define FONT_MONO  "Source Code Pro, DejaVu Sans Mono, monospace"
#define LABEL_SIZE 9.0
#define PAD        10.0
#define RADIUS     10.0

typedef struct { double r, g, b; } Rgb;

typedef struct {
  Rgb background;
  Rgb card, card_border, text, dim_text;
  Rgb leaf_band, leaf_band_text;
  Rgb op_fill, op_border, op_disc, op_disc_text;
  Rgb acc_fill, acc_text;
  Rgb out_fill, out_text;
  Rgb edge, label_fill, label_text;
  Rgb highlight, done;
} Palette;

static Rgb
hex (guint32 v)
{
  return (Rgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };
}

static Palette
palette_for (CrGraphStyle style)
{
  Palette p;
  if (style == CR_GRAPH_STYLE_DARK)
    {
      p.background = hex (0x1e1e20);
      p.card = hex (0x2d2d31); p.card_border = hex (0x48484e);
      p.text = hex (0xf6f5f4); p.dim_text = hex (0xa8a8b0);
      p.leaf_band = hex (0x3584e4); p.leaf_band_text = hex (0xffffff);
      p.op_fill = hex (0x33303b); p.op_border = hex (0x9141ac);
      p.op_disc = hex (0xc061cb); p.op_disc_text = hex (0x1e1e20);
      p.acc_fill = hex (0x26382c); p.acc_text = hex (0x8ff0a4);
      p.out_fill = hex (0xc64600); p.out_text = hex (0xffffff);
      p.edge = hex (0x77767b); p.label_fill = hex (0x1e1e20); p.label_text = hex (0xc0bfbc);
      p.highlight = hex (0xf6d32d); p.done = hex (0x57e389);
    }
  else
    {
      p.background = hex (0xfafafb);
      p.card = hex (0xffffff); p.card_border = hex (0xd5d5da);
      p.text = hex (0x241f31); p.dim_text = hex (0x6a6a73);
      p.leaf_band = hex (0x1c71d8); p.leaf_band_text = hex (0xffffff);
      p.op_fill = hex (0xf6effa); p.op_border = hex (0x9141ac);
      p.op_disc = hex (0x813d9c); p.op_disc_text = hex (0xffffff);
      p.acc_fill = hex (0xe8f6ec); p.acc_text = hex (0x26a269);
      p.out_fill = hex (0xe66100); p.out_text = hex (0xffffff);
      p.edge = hex (0x9a9996); p.label_fill = hex (0xfafafb); p.label_text = hex (0x5e5c64);
      p.highlight = hex (0xe5a50a); p.done = hex (0x2ec27e);
    }
  return p;
}

static void
set_rgb (cairo_t *cr, Rgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
cr_graph_render_options_init (CrGraphRenderOptions *options)
{
  options->style = CR_GRAPH_STYLE_LIGHT;
  options->current_step = -1;
  options->draw_background = TRUE;
}

double
cr_graph_render_label_size (void)
{
  return LABEL_SIZE;
}

/* ---- text ---------------------------------------------------------------- */

/* Measuring needs a Pango context but no real surface: a 1x1 image will do. */
static PangoLayout *
text_layout (cairo_t    *cr,
             const char *family,
             double      size,
             gboolean    bold,
             const char *text)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (family);
  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  /* Metrics independent of the surface's resolution: PNG, SVG and PDF agree. */
  cairo_font_options_t *fo = cairo_font_options_create ();
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options (pango_layout_get_context (layout), fo);
  cairo_font_options_destroy (fo);
  pango_layout_context_changed (layout);
  pango_layout_set_text (layout, text ? text : "", -1);
  return layout;
}

static void
text_size (cairo_t    *cr,
           const char *family,
           double      size,
           gboolean    bold,
           const char *text,
           double     *w,
           double     *h)
{
  g_autoptr (PangoLayout) layout = text_layout (cr, family, size, bold, text);
  int pw, ph;
  pango_layout_get_size (layout, &pw, &ph);
  *w = (double) pw / PANGO_SCALE;
  *h = (double) ph / PANGO_SCALE;
}

static void
draw_text (cairo_t    *cr,
           const char *family,
           double      size,
           gboolean    bold,
           const char *text,
           double      x,
           double      y,
           Rgb         color)
{
  g_autoptr (PangoLayout) layout = text_layout (cr, family, size, bold, text);
  set_rgb (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

/* ---- sizes --------------------------------------------------------------- */

#define TITLE_SIZE   13.0
#define SMALL_SIZE   9.5
#define MONO_SIZE    9.5
#define DISC         26.0

typedef struct {
  double title_w, title_h;
  double sub_w, sub_h;
  double body_w, body_h;
} Parts;

static const char *
op_subtitle (const CrGraphNode *n)
{
  return n->caption;
}

static void
measure_parts (cairo_t           *cr,
               const CrGraphNode *n,
               Parts             *p)
{
  *p = (Parts) { 0 };
  switch (n->kind)
    {
    case CR_GRAPH_NODE_LEAF:
    case CR_GRAPH_NODE_OUTPUT:
      text_size (cr, FONT_UI, TITLE_SIZE, TRUE, n->title, &p->title_w, &p->title_h);
      text_size (cr, FONT_UI, SMALL_SIZE, FALSE, n->shape, &p->sub_w, &p->sub_h);
      if (n->preview)
        text_size (cr, FONT_MONO, MONO_SIZE, FALSE, n->preview, &p->body_w, &p->body_h);
      break;
    case CR_GRAPH_NODE_OP:
      text_size (cr, FONT_UI, 11.0, TRUE, n->title, &p->title_w, &p->title_h);
      if (op_subtitle (n))
        text_size (cr, FONT_MONO, SMALL_SIZE, FALSE, op_subtitle (n), &p->sub_w, &p->sub_h);
      break;
    case CR_GRAPH_NODE_ACCUMULATE:
    default:
      text_size (cr, FONT_UI, SMALL_SIZE, FALSE, n->title, &p->title_w, &p->title_h);
      break;
    }
}

static void
node_size (cairo_t           *cr,
           const CrGraphNode *n,
           double            *w,
           double            *h)
{
  Parts p;
  measure_parts (cr, n, &p);
  switch (n->kind)
    {
    case CR_GRAPH_NODE_LEAF:
    case CR_GRAPH_NODE_OUTPUT:
      {
        double band = p.title_h + 2 * 6.0;
        *w = MAX (MAX (p.title_w + p.sub_w + 3 * PAD, p.body_w + 2 * PAD), 90.0);
        *h = band + (p.body_h > 0 ? p.body_h + 2 * 8.0 : 0);
        break;
      }
    case CR_GRAPH_NODE_OP:
      *w = DISC + 3 * PAD / 1.5 + MAX (p.title_w, p.sub_w) + PAD;
      *h = MAX (DISC + 2 * 7.0, p.title_h + p.sub_h + 2 * 7.0);
      break;
    case CR_GRAPH_NODE_ACCUMULATE:
    default:
      *w = p.title_w + 2 * 12.0;
      *h = p.title_h + 2 * 5.0;
      break;
    }
  *w = ceil (*w);
  *h = ceil (*h);
}

double *
cr_graph_render_measure (const CrGraphModel *model)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  double *sizes = g_new0 (double, 2 * model->nodes->len + 2);
  for (guint i = 0; i < model->nodes->len; i++)
    node_size (cr, g_ptr_array_index (model->nodes, i), &sizes[2 * i], &sizes[2 * i + 1]);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return sizes;
}

CrGraphLayout *
cr_graph_render_layout (const CrGraphModel *model,
                        GError            **error)
{
  g_autofree double *sizes = cr_graph_render_measure (model);
  return cr_graph_layout_new (model, sizes, LABEL_SIZE, error);
}

/* ---- drawing ------------------------------------------------------------- */

static void
rounded_rect (cairo_t *cr,
              double   x,
              double   y,
              double   w,
              double   h,
              double   r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

static void
shadow (cairo_t          *cr,
        const CrGraphBox *b,
        double            r,
        gboolean          dark)
{
  for (int i = 3; i >= 1; i--)
    {
      rounded_rect (cr, b->x - i * 0.5, b->y + i * 0.8, b->width + i, b->height + i * 0.6, r + i);
      cairo_set_source_rgba (cr, 0, 0, 0, dark ? 0.10 : 0.035);
      cairo_fill (cr);
    }
}

static void
draw_tensor_card (cairo_t           *cr,
                  const CrGraphNode *n,
                  const CrGraphBox  *b,
                  const Palette     *pal,
                  gboolean           dark)
{
  Parts p;
  measure_parts (cr, n, &p);
  gboolean output = n->kind == CR_GRAPH_NODE_OUTPUT;
  Rgb band = output ? pal->out_fill : pal->leaf_band;
  double band_h = p.title_h + 2 * 6.0;

  shadow (cr, b, RADIUS, dark);
  rounded_rect (cr, b->x, b->y, b->width, b->height, RADIUS);
  set_rgb (cr, pal->card);
  cairo_fill_preserve (cr);
  cairo_save (cr);
  cairo_clip (cr);
  cairo_rectangle (cr, b->x, b->y, b->width, band_h);
  set_rgb (cr, band);
  cairo_fill (cr);
  cairo_restore (cr);
  rounded_rect (cr, b->x + 0.5, b->y + 0.5, b->width - 1, b->height - 1, RADIUS);
  set_rgb (cr, p.body_h > 0 ? pal->card_border : band);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  draw_text (cr, FONT_UI, TITLE_SIZE, TRUE, n->title, b->x + PAD, b->y + 6.0, pal->leaf_band_text);
  Rgb sub = pal->leaf_band_text;
  cairo_save (cr);
  draw_text (cr, FONT_UI, SMALL_SIZE, FALSE, n->shape,
             b->x + b->width - PAD - p.sub_w, b->y + 6.0 + (p.title_h - p.sub_h) / 2 + 1, sub);
  cairo_restore (cr);
  if (n->preview)
    draw_text (cr, FONT_MONO, MONO_SIZE, FALSE, n->preview, b->x + PAD, b->y + band_h + 8.0, pal->text);
}

static void
draw_op (cairo_t           *cr,
         const CrGraphNode *n,
         const CrGraphBox  *b,
         const Palette     *pal,
         gboolean           dark)
{
  Parts p;
  measure_parts (cr, n, &p);
  double r = b->height / 2;
  shadow (cr, b, r, dark);
  rounded_rect (cr, b->x, b->y, b->width, b->height, r);
  set_rgb (cr, pal->op_fill);
  cairo_fill_preserve (cr);
  set_rgb (cr, pal->op_border);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);

  double cx = b->x + 7.0 + DISC / 2, cy = b->y + b->height / 2;
  cairo_arc (cr, cx, cy, DISC / 2, 0, 2 * G_PI);
  set_rgb (cr, pal->op_disc);
  cairo_fill (cr);
  const char *glyph = n->symbol ? n->symbol : "ƒ";
  double glyph_size = g_utf8_strlen (glyph, -1) > 1 ? 10.0 : 15.0;
  double gw, gh;
  text_size (cr, FONT_UI, glyph_size, TRUE, glyph, &gw, &gh);
  /* Word symbols ("softmax", "mean") shrink to stay inside the disc. */
  if (gw > DISC - 6.0)
    {
      glyph_size *= (DISC - 6.0) / gw;
      text_size (cr, FONT_UI, glyph_size, TRUE, glyph, &gw, &gh);
    }
  draw_text (cr, FONT_UI, glyph_size, TRUE, glyph, cx - gw / 2, cy - gh / 2, pal->op_disc_text);

  double tx = b->x + 7.0 + DISC + PAD / 1.5 + 2;
  double total = p.title_h + p.sub_h;
  double ty = b->y + (b->height - total) / 2;
  draw_text (cr, FONT_UI, 11.0, TRUE, n->title, tx, ty, pal->text);
  if (op_subtitle (n))
    draw_text (cr, FONT_MONO, SMALL_SIZE, FALSE, op_subtitle (n), tx, ty + p.title_h, pal->dim_text);
}

static void
draw_accumulate (cairo_t           *cr,
                 const CrGraphNode *n,
                 const CrGraphBox  *b,
                 const Palette     *pal)
{
  Parts p;
  measure_parts (cr, n, &p);
  rounded_rect (cr, b->x, b->y, b->width, b->height, b->height / 2);
  set_rgb (cr, pal->acc_fill);
  cairo_fill_preserve (cr);
  set_rgb (cr, pal->acc_text);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  draw_text (cr, FONT_UI, SMALL_SIZE, FALSE, n->title,
             b->x + (b->width - p.title_w) / 2, b->y + (b->height - p.title_h) / 2, pal->acc_text);
}

static void
draw_edge (cairo_t             *cr,
           const CrGraphEdge   *e,
           const CrGraphPath   *path,
           const Palette       *pal,
           gboolean             lit)
{
  if (path->n_points < 4)
    return;
  Rgb color = lit ? pal->done : pal->edge;
  const double *pt = path->points;
  cairo_move_to (cr, pt[0], pt[1]);
  for (guint k = 1; k + 2 < path->n_points; k += 3)
    cairo_curve_to (cr, pt[2 * k], pt[2 * k + 1], pt[2 * k + 2], pt[2 * k + 3],
                    pt[2 * k + 4], pt[2 * k + 5]);
  set_rgb (cr, color);
  cairo_set_line_width (cr, lit ? 2.2 : 1.4);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_stroke (cr);

  if (path->has_arrow)
    {
      /* A filled triangle from the spline's end to the tip on the border. */
      double ex = pt[2 * (path->n_points - 1)], ey = pt[2 * (path->n_points - 1) + 1];
      double dx = path->arrow_x - ex, dy = path->arrow_y - ey;
      double len = hypot (dx, dy);
      if (len > 0.01)
        {
          dx /= len;
          dy /= len;
          double tip_x = path->arrow_x, tip_y = path->arrow_y;
          double base_x = tip_x - dx * 8, base_y = tip_y - dy * 8;
          cairo_move_to (cr, tip_x, tip_y);
          cairo_line_to (cr, base_x - dy * 4, base_y + dx * 4);
          cairo_line_to (cr, base_x + dy * 4, base_y - dx * 4);
          cairo_close_path (cr);
          cairo_fill (cr);
          cairo_move_to (cr, ex, ey);
          cairo_line_to (cr, base_x, base_y);
          cairo_stroke (cr);
        }
    }

  if (path->has_label && e->label)
    {
      double w, h;
      text_size (cr, FONT_UI, LABEL_SIZE, FALSE, e->label, &w, &h);
      double x = path->label_x - w / 2 - 5, y = path->label_y - h / 2 - 1;
      rounded_rect (cr, x, y, w + 10, h + 2, (h + 2) / 2);
      set_rgb (cr, pal->label_fill);
      cairo_fill_preserve (cr);
      set_rgb (cr, pal->card_border);
      cairo_set_line_width (cr, 0.8);
      cairo_stroke (cr);
      draw_text (cr, FONT_UI, LABEL_SIZE, FALSE, e->label, x + 5, y + 1, pal->label_text);
    }
}

void
cr_graph_render (cairo_t                    *cr,
                 const CrGraphModel         *model,
                 const CrGraphLayout        *layout,
                 const CrGraphRenderOptions *options)
{
  CrGraphRenderOptions defaults;
  if (!options)
    {
      cr_graph_render_options_init (&defaults);
      options = &defaults;
    }
  Palette pal = palette_for (options->style);
  gboolean dark = options->style == CR_GRAPH_STYLE_DARK;
  int current = options->current_step;

  cairo_save (cr);
  if (options->draw_background)
    {
      cairo_rectangle (cr, 0, 0, layout->width, layout->height);
      set_rgb (cr, pal.background);
      cairo_fill (cr);
    }

  /* Edges first, under the nodes. An edge has carried its gradient once the
   * node it leads to (backward runs against the arrows) has run. */
  for (guint i = 0; i < model->edges->len && i < layout->n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
      gboolean lit = current >= 0 && to->step >= 0 && to->step <= current;
      draw_edge (cr, e, &layout->edges[i], &pal, lit);
    }

  for (guint i = 0; i < model->nodes->len && i < layout->n_nodes; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      const CrGraphBox *b = &layout->nodes[i];
      gboolean is_current = current >= 0 && n->step == current;
      if (is_current)
        {
          double r = n->kind == CR_GRAPH_NODE_LEAF || n->kind == CR_GRAPH_NODE_OUTPUT
                     ? RADIUS + 4 : (b->height + 8) / 2;
          rounded_rect (cr, b->x - 4, b->y - 4, b->width + 8, b->height + 8, r);
          set_rgb (cr, pal.highlight);
          cairo_set_line_width (cr, 3);
          cairo_stroke (cr);
        }
      switch (n->kind)
        {
        case CR_GRAPH_NODE_LEAF:
        case CR_GRAPH_NODE_OUTPUT:
          draw_tensor_card (cr, n, b, &pal, dark);
          break;
        case CR_GRAPH_NODE_OP:
          draw_op (cr, n, b, &pal, dark);
          break;
        case CR_GRAPH_NODE_ACCUMULATE:
        default:
          draw_accumulate (cr, n, b, &pal);
          break;
        }
      if (current >= 0 && n->step >= 0 && n->step < current)
        {
          /* A small check mark: this node has done its part of backward. */
          double cx = b->x + b->width - 2, cy = b->y + 2;
          cairo_arc (cr, cx, cy, 6, 0, 2 * G_PI);
          set_rgb (cr, pal.done);
          cairo_fill (cr);
          cairo_move_to (cr, cx - 3, cy);
          cairo_line_to (cr, cx - 1, cy + 2.5);
          cairo_line_to (cr, cx + 3, cy - 2.5);
          set_rgb (cr, pal.card);
          cairo_set_line_width (cr, 1.6);
          cairo_stroke (cr);
        }
    }
  cairo_restore (cr);
}
