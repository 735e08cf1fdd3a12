/* cr-graph-render.c — the look of the graph.
 *
 * Leaf tensors are cards with a coloured band (the name, shape and values),
 * constants (no gradient) the same card drawn dashed and grey, ops rounded
 * pills with their glyph in a disc, AccumulateGrad a small quiet pill, and
 * the output a card in the accent colour. Edges are soft curves carrying the
 * shape as a small label. Every colour comes from one palette per style so
 * that light and dark both hold together.
 *
 * All text is shaped once per model into a CrGraphRenderCache: a frame only
 * paints the cached Pango layouts, and skips what lies outside the clip, so
 * panning a large graph stays cheap. */
#include "cr-graph-render.h"
#include "cr-graph-png.h"
#include "cr-graph-render-badges.h"
#include "cr-graph-svg.h"
#include "cr-graph-regions.h"
#include "cr-graph-titles.h"
#include "cr-graph-forward.h"
#include "cr-graph-items.h"
#include "cr-graph-render-same.h"

#include <math.h>
#include <string.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>

#define FONT_UI    "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define FONT_MONO  "Source Code Pro, DejaVu Sans Mono, monospace"
#define LABEL_SIZE CR_GRAPH_LAYOUT_LABEL_SIZE
#define RADIUS     9.0

/* The type and the blank inside a node, in points before the type's scale
 * (k). */
typedef struct {
  double title, op, small, mono, caption, acc;  /* type sizes */
  double pad, band_pad, body_pad;               /* a tensor card's */
  /* An op's pill: its disc this far in from the left end, the title this
   * far after the disc, this much room after the title and above and below
   * the text; an AccumulateGrad pill's text this far in from its ends and
   * edges. */
  double disc, op_inset, op_gap, op_end, op_vpad, acc_inset, acc_pad;
  /* An op's caption is cut (with an ellipsis) past this width, or its
   * title's when that is wider: the tooltip has it whole. */
  double caption_max;
} Metrics;

/* The window's: tight, so that the toy network's widest rank (two leaves
 * beside two ops) fits the 1366 px window's graph pane. */
static const Metrics WINDOW_METRICS = {
  .title = 12.0, .op = 10.5, .small = 9.0, .mono = 8.5, .caption = 8.5, .acc = 8.5,
  .pad = 8.0, .band_pad = 4.0, .body_pad = 5.0,
  .disc = 22.0, .op_inset = 4.0, .op_gap = 6.0, .op_end = 8.0, .op_vpad = 5.0,
  .acc_inset = 5.0, .acc_pad = 2.0,
  .caption_max = 84.0,
};

/* Presentation's: every text at least the edge labels' size (20 px on the
 * screen), the titles only a little larger, and the blank around them
 * thin: a projected graph is read from far away, where weight and colour
 * set a title apart better than size, and a 1366x768 projector's graph
 * pane holds the examples whole only so. Captions are cut at the title's
 * width. An op's pill has no disc: its title and its caption (c = w2 * a)
 * say the op, and the disc's 27 points a pill are what the toy network's
 * widest rank (two leaves beside two muls) lacks on that projector. */
static const Metrics PRESENT_METRICS = {
  .title = 9.5, .op = 9.0, .small = 8.5, .mono = 8.5, .caption = 8.5, .acc = 8.5,
  .pad = 5.0, .band_pad = 1.5, .body_pad = 2.5,
  .disc = 0.0, .op_inset = 0.0, .op_gap = 6.0, .op_end = 6.0, .op_vpad = 1.5,
  .acc_inset = 4.0, .acc_pad = 0.5,
  .caption_max = 0.0,
};
#define PNG_SCALE  2.0
#define PNG_MAX_SIDE   16000.0
#define PNG_MAX_PIXELS (64.0 * 1024 * 1024)
/* Presentation mode: type and spacing this much larger, lines thicker. */
#define PRESENT_TYPE CR_GRAPH_RENDER_PRESENT_TYPE
#define PRESENT_LINE 1.7

typedef struct { double r, g, b; } Rgb;

typedef struct {
  Rgb background;
  Rgb card, card_border, text, dim_text;
  Rgb leaf_band, leaf_band_text;
  Rgb const_band, const_text, const_border;
  Rgb op_fill, op_border, op_disc, op_disc_text;
  Rgb acc_fill, acc_text;
  Rgb out_fill, out_text;
  Rgb edge, label_fill, label_text;
  Rgb highlight, done, accent;
  double shadow;
} Palette;

static Rgb
hex (guint32 v)
{
  return (Rgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };
}

static Palette
palette_for (CrGraphStyle style,
             gboolean     presentation)
{
  Palette p;
  if (style == CR_GRAPH_STYLE_DARK)
    {
      p.background = hex (0x1e1e20);
      p.card = hex (0x2d2d31); p.card_border = hex (0x48484e);
      p.text = hex (0xf6f5f4); p.dim_text = hex (0xa8a8b0);
      p.leaf_band = hex (0x3584e4); p.leaf_band_text = hex (0xffffff);
      p.const_band = hex (0x3d3d42); p.const_text = hex (0xb8b8be); p.const_border = hex (0x6e6e76);
      p.op_fill = hex (0x33303b); p.op_border = hex (0xa65cbc);
      p.op_disc = hex (0xc061cb); p.op_disc_text = hex (0x1e1e20);
      p.acc_fill = hex (0x26382c); p.acc_text = hex (0x8ff0a4);
      p.out_fill = hex (0xc64600); p.out_text = hex (0xffffff);
      p.edge = hex (0x77767b); p.label_fill = hex (0x1e1e20); p.label_text = hex (0xc0bfbc);
      p.highlight = hex (0xf6d32d); p.done = hex (0x57e389); p.accent = hex (0x78aeed);
      p.shadow = 0.10;
      if (presentation)
        {
          p.text = hex (0xffffff); p.dim_text = hex (0xdeddda);
          p.card_border = hex (0x77767b); p.edge = hex (0xc0bfbc);
          p.label_text = hex (0xf6f5f4); p.const_text = hex (0xdeddda);
        }
    }
  else
    {
      p.background = hex (0xfafafb);
      p.card = hex (0xffffff); p.card_border = hex (0xd5d5da);
      p.text = hex (0x241f31); p.dim_text = hex (0x6a6a73);
      p.leaf_band = hex (0x1c71d8); p.leaf_band_text = hex (0xffffff);
      p.const_band = hex (0xebebed); p.const_text = hex (0x6a6a73); p.const_border = hex (0xa8a8b0);
      p.op_fill = hex (0xf6effa); p.op_border = hex (0x9141ac);
      p.op_disc = hex (0x813d9c); p.op_disc_text = hex (0xffffff);
      p.acc_fill = hex (0xe8f6ec); p.acc_text = hex (0x26a269);
      p.out_fill = hex (0xe66100); p.out_text = hex (0xffffff);
      p.edge = hex (0x9a9996); p.label_fill = hex (0xfafafb); p.label_text = hex (0x5e5c64);
      p.highlight = hex (0xe5a50a); p.done = hex (0x2ec27e); p.accent = hex (0x3584e4);
      p.shadow = 0.035;
      if (presentation)
        {
          p.text = hex (0x000000); p.dim_text = hex (0x3d3846);
          p.card_border = hex (0x9a9996); p.edge = hex (0x5e5c64);
          p.label_text = hex (0x241f31); p.const_text = hex (0x3d3846);
          p.const_border = hex (0x77767b);
        }
    }
  return p;
}

static void
set_rgb (cairo_t *cr, Rgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

static void
set_rgba (cairo_t *cr, Rgb c, double a)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, a);
}

void
cr_graph_render_options_init (CrGraphRenderOptions *options)
{
  *options = (CrGraphRenderOptions) { 0 };
  options->style = CR_GRAPH_STYLE_LIGHT;
  options->current_step = -1;
  options->draw_background = TRUE;
  options->selected = -1;
  options->pulse = -1;
}

double
cr_graph_render_label_size (void)
{
  return LABEL_SIZE;
}

/* ---- the text cache ------------------------------------------------------ */

typedef struct {
  PangoLayout *layout;          /* NULL: no such text */
  double       w, h;
} Text;

typedef struct {
  Text   title, sub, body, glyph, note;
  double width, height;
} NodeText;

struct _CrGraphRenderCache
{
  PangoContext *context;
  double        k;              /* type and spacing scale: 1, or larger for presentation */
  double        lw;             /* line width scale */
  const Metrics *m;             /* the window's or presentation's */
  guint         n_nodes, n_edges;
  NodeText     *nodes;
  Text         *labels;         /* by edge */
  Text         *names;          /* by edge: the named intermediate tensor it carries */
  int          *edge_step;      /* by edge: the step that sends a gradient along it */
  double       *sizes;          /* width, height by node */
  GHashTable   *shaped;         /* font and text -> Text: equal texts are shaped once */
  CrGraphModel *model;          /* the model it shaped (a reference): its labels keep
                                 * clear of its boxes' titles */
};

static Text
shape_text (CrGraphRenderCache *cache,
            const char         *family,
            double              size,
            PangoWeight         weight,
            gboolean            italic,
            const char         *text)
{
  Text t = { 0 };
  if (!text || !*text)
    return t;
  /* A big graph repeats its texts ("AddBackward0", "scalar", the same
   * captions and values): each is shaped once and its layout shared. */
  g_autofree char *key = g_strdup_printf ("%s\x1f%g\x1f%d\x1f%d\x1f%s", family, size, (int) weight,
                                          italic, text);
  const Text *known = g_hash_table_lookup (cache->shaped, key);
  if (known)
    {
      t = *known;
      g_object_ref (t.layout);
      return t;
    }
  t.layout = pango_layout_new (cache->context);
  PangoFontDescription *font = pango_font_description_from_string (family);
  pango_font_description_set_absolute_size (font, size * cache->k * PANGO_SCALE);
  pango_font_description_set_weight (font, weight);
  if (italic)
    pango_font_description_set_style (font, PANGO_STYLE_ITALIC);
  pango_layout_set_font_description (t.layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (t.layout, text, -1);
  int pw, ph;
  pango_layout_get_size (t.layout, &pw, &ph);
  t.w = (double) pw / PANGO_SCALE;
  t.h = (double) ph / PANGO_SCALE;
  Text *shared = g_memdup2 (&t, sizeof t);
  g_object_ref (shared->layout);
  g_hash_table_insert (cache->shaped, g_steal_pointer (&key), shared);
  return t;
}

static void
shared_text_free (gpointer data)
{
  Text *t = data;
  g_clear_object (&t->layout);
  g_free (t);
}

static void
text_clear (Text *t)
{
  g_clear_object (&t->layout);
}

static gboolean
is_tensor (const CrGraphNode *n)
{
  return CR_GRAPH_NODE_KIND_IS_TENSOR (n->kind);
}

static void
shape_node (CrGraphRenderCache *cache,
            const CrGraphNode  *n,
            NodeText           *t)
{
  double k = cache->k;
  const Metrics *m = cache->m;
  *t = (NodeText) { 0 };
  if (is_tensor (n))
    {
      t->title = shape_text (cache, FONT_UI, m->title, PANGO_WEIGHT_BOLD, FALSE, n->title);
      /* Where the tensor lives matters once it is not the CPU. */
      g_autofree char *sub = n->device && strcmp (n->device, "cpu") != 0
                             ? g_strdup_printf ("%s · %s", n->shape ? n->shape : "", n->device)
                             : g_strdup (n->shape);
      t->sub = shape_text (cache, FONT_UI, m->small, PANGO_WEIGHT_NORMAL, FALSE, sub);
      t->body = shape_text (cache, FONT_MONO, m->mono, PANGO_WEIGHT_NORMAL, FALSE, n->preview);
      if (CR_GRAPH_NODE_KIND_IS_CONSTANT (n->kind))
        t->note = shape_text (cache, FONT_UI, m->small, PANGO_WEIGHT_NORMAL, TRUE,
                              n->kind == CR_GRAPH_NODE_NO_GRAD ? "made under no_grad"
                              : n->kind == CR_GRAPH_NODE_DETACHED ? "detached" : "no grad");
      double band = t->title.h + 2 * m->band_pad * k;
      double body_h = t->body.h + (t->note.layout ? t->note.h : 0);
      t->width = MAX (MAX (t->title.w + t->sub.w + 3 * m->pad * k,
                           MAX (t->body.w, t->note.w) + 2 * m->pad * k), 80.0 * k);
      t->height = band + (body_h > 0 ? body_h + 2 * m->body_pad * k : 0);
    }
  else if (n->kind == CR_GRAPH_NODE_OP || n->kind == CR_GRAPH_NODE_GROUP)
    {
      t->title = shape_text (cache, FONT_UI, m->op, PANGO_WEIGHT_BOLD, FALSE, n->title);
      t->sub = shape_text (cache, FONT_MONO, m->caption, PANGO_WEIGHT_NORMAL, FALSE, n->caption);
      double cap = MAX (t->title.w, m->caption_max * k);
      if (t->sub.layout && t->sub.w > cap)
        {
          /* One line, cut with an ellipsis: the tooltip shows it whole.
           * A copy: the shaped layout is shared. */
          PangoLayout *cut = pango_layout_copy (t->sub.layout);
          g_object_unref (t->sub.layout);
          t->sub.layout = cut;
          pango_layout_set_width (t->sub.layout, (int) (cap * PANGO_SCALE));
          pango_layout_set_ellipsize (t->sub.layout, PANGO_ELLIPSIZE_END);
          int pw, ph;
          pango_layout_get_size (t->sub.layout, &pw, &ph);
          t->sub.w = MIN ((double) pw / PANGO_SCALE, cap);
          t->sub.h = (double) ph / PANGO_SCALE;
        }
      const char *glyph = n->symbol ? n->symbol : "ƒ";
      if (m->disc <= 0)
        glyph = NULL;
      /* A sign fills its disc; a word is smaller (and shrinks below). */
      double glyph_size = glyph && g_utf8_strlen (glyph, -1) > 1 ? 9.0 : 13.0 * m->disc / WINDOW_METRICS.disc;
      t->glyph = shape_text (cache, FONT_UI, glyph_size, PANGO_WEIGHT_BOLD, FALSE, glyph);
      /* Word symbols ("mean") shrink to stay inside the disc; those that
       * would become unreadable ("log_softmax") give way to the generic
       * ƒ: the title names the op anyway. */
      if (glyph && t->glyph.w > (m->disc - 5.0) * k)
        {
          glyph_size *= (m->disc - 5.0) * k / t->glyph.w;
          if (glyph_size < 6.5)
            {
              glyph = "ƒ";
              glyph_size = 13.0 * m->disc / WINDOW_METRICS.disc;
            }
          text_clear (&t->glyph);
          t->glyph = shape_text (cache, FONT_UI, glyph_size, PANGO_WEIGHT_BOLD, FALSE, glyph);
        }
      t->width = (m->op_inset + m->disc + m->op_gap + m->op_end) * k + MAX (t->title.w, t->sub.w);
      t->height = MAX ((m->disc + 2 * m->op_vpad) * k, t->title.h + t->sub.h + 2 * m->op_vpad * k);
    }
  else
    {
      t->title = shape_text (cache, FONT_UI, m->acc, PANGO_WEIGHT_NORMAL, FALSE, n->title);
      t->width = t->title.w + 2 * m->acc_inset * k;
      t->height = t->title.h + 2 * m->acc_pad * k;
    }
  t->width = ceil (t->width);
  t->height = ceil (t->height);
}

CrGraphRenderCache *
cr_graph_render_cache_new (const CrGraphModel *model,
                           gboolean            presentation)
{
  g_return_val_if_fail (model != NULL, NULL);

  CrGraphRenderCache *self = g_new0 (CrGraphRenderCache, 1);
  self->model = cr_graph_model_ref ((CrGraphModel *) model);
  self->k = presentation ? PRESENT_TYPE : 1.0;
  self->lw = presentation ? PRESENT_LINE : 1.0;
  self->m = presentation ? &PRESENT_METRICS : &WINDOW_METRICS;
  self->context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  self->shaped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, shared_text_free);
  /* Metrics independent of the surface's resolution and zoom: a layout
   * shaped once draws the same on screen at any scale and in PNG, SVG, PDF. */
  cairo_font_options_t *fo = cairo_font_options_create ();
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (fo, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options (self->context, fo);
  cairo_font_options_destroy (fo);

  self->n_nodes = model->nodes->len;
  self->nodes = g_new0 (NodeText, self->n_nodes + 1);
  self->sizes = g_new0 (double, 2 * self->n_nodes + 2);
  for (guint i = 0; i < self->n_nodes; i++)
    {
      shape_node (self, g_ptr_array_index (model->nodes, i), &self->nodes[i]);
      self->sizes[2 * i] = self->nodes[i].width;
      self->sizes[2 * i + 1] = self->nodes[i].height;
    }

  self->n_edges = model->edges->len;
  self->labels = g_new0 (Text, self->n_edges + 1);
  self->names = g_new0 (Text, self->n_edges + 1);
  self->edge_step = g_new (int, self->n_edges + 1);
  for (guint i = 0; i < self->n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      self->labels[i] = shape_text (self, FONT_UI, LABEL_SIZE, PANGO_WEIGHT_NORMAL, FALSE, e->label);
      if (e->tensor_name)
        self->names[i] = shape_text (self, FONT_MONO, LABEL_SIZE, PANGO_WEIGHT_BOLD, FALSE, e->tensor_name);
      self->edge_step[i] = -1;
    }
  /* The step that sends a gradient along each edge: from the record's
   * steps, the inputs it sends a gradient to; for a step without
   * (AccumulateGrad) the edges into the step's node, which backward runs
   * against (for AccumulateGrad: the leaf's .grad being written). */
  guint n_steps = model->n_steps;
  for (guint s = 0; s < n_steps; s++)
    {
      const CrRecordStep *step = cr_graph_model_get_record_step (model, (int) s);
      gboolean any = FALSE;
      for (guint j = 0; step && j < step->inputs->len; j++)
        {
          const CrRecordStepInput *in = g_ptr_array_index (step->inputs, j);
          guint edge = in->outgoing.value ? cr_graph_model_find_step_input_edge (model, (int) s, j)
                                          : G_MAXUINT;
          if (edge < self->n_edges)
            {
              any = TRUE;
              if (self->edge_step[edge] < 0)
                self->edge_step[edge] = (int) s;
            }
        }
      const CrGraphNode *node = any ? NULL : cr_graph_model_find_step_node (model, (int) s);
      for (guint i = 0; node && i < self->n_edges; i++)
        {
          const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
          if (e->to == node->id && self->edge_step[i] < 0)
            self->edge_step[i] = (int) s;
        }
    }
  if (n_steps == 0)
    for (guint i = 0; i < self->n_edges; i++)
      {
        const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
        if (e->to < self->n_nodes)
          {
            const CrGraphNode *to = g_ptr_array_index (model->nodes, e->to);
            self->edge_step[i] = to->step;
          }
      }
  return self;
}

void
cr_graph_render_cache_free (CrGraphRenderCache *self)
{
  if (!self)
    return;
  for (guint i = 0; i < self->n_nodes; i++)
    {
      NodeText *t = &self->nodes[i];
      text_clear (&t->title);
      text_clear (&t->sub);
      text_clear (&t->body);
      text_clear (&t->glyph);
      text_clear (&t->note);
    }
  for (guint i = 0; i < self->n_edges; i++)
    {
      text_clear (&self->labels[i]);
      text_clear (&self->names[i]);
    }
  g_free (self->nodes);
  g_free (self->labels);
  g_free (self->names);
  g_free (self->edge_step);
  g_free (self->sizes);
  g_clear_pointer (&self->shaped, g_hash_table_unref);
  g_clear_object (&self->context);
  g_clear_pointer (&self->model, cr_graph_model_unref);
  g_free (self);
}

const double *
cr_graph_render_cache_sizes (CrGraphRenderCache *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->sizes;
}

int
cr_graph_render_cache_edge_step (CrGraphRenderCache *self,
                                 guint               edge)
{
  g_return_val_if_fail (self != NULL, -1);
  return edge < self->n_edges ? self->edge_step[edge] : -1;
}

void
cr_graph_render_cache_scales (const CrGraphRenderCache *self,
                              double                   *k,
                              double                   *lw)
{
  g_return_if_fail (self != NULL);
  if (k)
    *k = self->k;
  if (lw)
    *lw = self->lw;
}

double *
cr_graph_render_label_boxes (CrGraphRenderCache  *cache,
                             const CrGraphLayout *layout)
{
  g_return_val_if_fail (cache != NULL && layout != NULL, NULL);
  g_autofree double *sizes = g_new0 (double, 4 * layout->n_edges + 4);
  for (guint i = 0; i < layout->n_edges && i < cache->n_edges; i++)
    {
      sizes[4 * i] = cache->labels[i].w;
      sizes[4 * i + 1] = cache->labels[i].h;
      sizes[4 * i + 2] = cache->names[i].w;
      sizes[4 * i + 3] = cache->names[i].h;
    }
  g_autoptr (GArray) titles = cr_graph_badges_title_boxes (cache->model, layout, cache->k);
  return cr_graph_badges_label_boxes_clear_of (layout, sizes, cache->k, titles);
}

double *
cr_graph_render_measure (const CrGraphModel *model)
{
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  double *sizes = g_memdup2 (cache->sizes, sizeof (double) * (2 * model->nodes->len + 2));
  cr_graph_render_cache_free (cache);
  return sizes;
}

CrGraphLayout *
cr_graph_render_layout_cached (const CrGraphModel *model,
                               CrGraphRenderCache *cache,
                               GError            **error)
{
  g_return_val_if_fail (model != NULL && cache != NULL, NULL);
  g_return_val_if_fail (cache->n_nodes == model->nodes->len, NULL);
  return cr_graph_layout_new (model, cache->sizes, LABEL_SIZE * cache->k, error);
}

CrGraphLayout *
cr_graph_render_layout_directed (const CrGraphModel     *model,
                                 CrGraphRenderCache     *cache,
                                 CrGraphLayoutDirection  direction,
                                 GError                **error)
{
  g_return_val_if_fail (model != NULL && cache != NULL, NULL);
  g_return_val_if_fail (cache->n_nodes == model->nodes->len, NULL);
  return cr_graph_layout_new_directed (model, cache->sizes, LABEL_SIZE * cache->k, direction, error);
}

CrGraphLayout *
cr_graph_render_layout (const CrGraphModel *model,
                        GError            **error)
{
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  CrGraphLayout *layout = cr_graph_render_layout_cached (model, cache, error);
  cr_graph_render_cache_free (cache);
  return layout;
}

/* ---- drawing ------------------------------------------------------------- */

typedef struct {
  const CrGraphRenderCache *cache;
  Palette                   pal;
  gboolean                  dark;
  double                    k, lw;
  gboolean                  small_type_hidden;  /* shown too small to read (far out):
                                                 * captions, values, edge labels left out */
} Ctx;

static void
show (cairo_t    *cr,
      const Text *t,
      double      x,
      double      y,
      Rgb         color)
{
  if (!t->layout)
    return;
  set_rgb (cr, color);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, t->layout);
}

void
cr_graph_rounded_path (cairo_t *cr,
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
        const Ctx        *c)
{
  /* In pixels three soft layers; in a vector file (SVG, PDF), or far out
   * where a layer is under a pixel, one layer of about their weight, a
   * third of the shapes to write or fill. */
  cairo_surface_type_t target = cairo_surface_get_type (cairo_get_target (cr));
  if (target == CAIRO_SURFACE_TYPE_SVG || target == CAIRO_SURFACE_TYPE_PDF || c->small_type_hidden)
    {
      cr_graph_rounded_path (cr, b->x - 1.0, b->y + 1.6, b->width + 2, b->height + 1.2, r + 2);
      cairo_set_source_rgba (cr, 0, 0, 0, 2.2 * c->pal.shadow);
      cairo_fill (cr);
      return;
    }
  for (int i = 3; i >= 1; i--)
    {
      cr_graph_rounded_path (cr, b->x - i * 0.5, b->y + i * 0.8, b->width + i, b->height + i * 0.6, r + i);
      cairo_set_source_rgba (cr, 0, 0, 0, c->pal.shadow);
      cairo_fill (cr);
    }
}

static double
node_radius (const CrGraphNode *n,
             const CrGraphBox  *b,
             const Ctx         *c)
{
  return is_tensor (n) ? RADIUS * c->k : b->height / 2;
}

static void
draw_tensor_card (cairo_t           *cr,
                  const CrGraphNode *n,
                  const NodeText    *t,
                  const CrGraphBox  *b,
                  const Ctx         *c)
{
  const Palette *pal = &c->pal;
  double k = c->k;
  const Metrics *m = c->cache->m;
  gboolean constant = CR_GRAPH_NODE_KIND_IS_CONSTANT (n->kind);
  Rgb band = constant ? pal->const_band
             : n->kind == CR_GRAPH_NODE_OUTPUT ? pal->out_fill : pal->leaf_band;
  Rgb band_text = constant ? pal->const_text : pal->leaf_band_text;
  double band_h = t->title.h + 2 * m->band_pad * k;
  double r = RADIUS * k;
  gboolean has_body = t->body.layout || t->note.layout;

  if (!constant)
    shadow (cr, b, r, c);
  cr_graph_rounded_path (cr, b->x, b->y, b->width, b->height, r);
  set_rgb (cr, constant ? pal->background : pal->card);
  cairo_fill_preserve (cr);
  cairo_save (cr);
  cairo_clip (cr);
  cairo_rectangle (cr, b->x, b->y, b->width, band_h);
  set_rgb (cr, band);
  cairo_fill (cr);
  cairo_restore (cr);
  cr_graph_rounded_path (cr, b->x + 0.5, b->y + 0.5, b->width - 1, b->height - 1, r);
  cairo_set_line_width (cr, c->lw);
  if (constant)
    {
      /* No gradient flows into it: a dashed, quiet outline. */
      double dash[] = { 4.0 * k, 3.0 * k };
      cairo_set_dash (cr, dash, 2, 0);
      set_rgb (cr, pal->const_border);
      cairo_set_line_width (cr, 1.2 * c->lw);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  else
    {
      set_rgb (cr, has_body ? pal->card_border : band);
      cairo_stroke (cr);
    }

  show (cr, &t->title, b->x + m->pad * k, b->y + m->band_pad * k, band_text);
  if (c->small_type_hidden)
    return;
  show (cr, &t->sub, b->x + b->width - m->pad * k - t->sub.w,
        b->y + m->band_pad * k + (t->title.h - t->sub.h) / 2 + 1, band_text);
  double y = b->y + band_h + m->body_pad * k;
  show (cr, &t->body, b->x + m->pad * k, y, constant ? pal->dim_text : pal->text);
  show (cr, &t->note, b->x + m->pad * k, y + t->body.h, pal->dim_text);
}

static void
draw_op (cairo_t           *cr,
         const CrGraphNode *n,
         const NodeText    *t,
         const CrGraphBox  *b,
         gboolean           freed,
         const Ctx         *c)
{
  const Palette *pal = &c->pal;
  double k = c->k;
  const Metrics *m = c->cache->m;
  double r = b->height / 2;
  shadow (cr, b, r, c);
  cr_graph_rounded_path (cr, b->x, b->y, b->width, b->height, r);
  set_rgb (cr, pal->op_fill);
  cairo_fill_preserve (cr);
  set_rgb (cr, pal->op_border);
  cairo_set_line_width (cr, 1.5 * c->lw);
  if (freed)
    {
      /* Its saved tensors are gone: the outline breaks up. */
      double dash[] = { 5.0 * k, 3.0 * k };
      cairo_set_dash (cr, dash, 2, 0);
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  double cx = b->x + m->op_inset * k + m->disc * k / 2, cy = b->y + b->height / 2;
  if (m->disc > 0)
    {
      cairo_arc (cr, cx, cy, m->disc * k / 2, 0, 2 * G_PI);
      set_rgb (cr, pal->op_disc);
      cairo_fill (cr);
      show (cr, &t->glyph, cx - t->glyph.w / 2, cy - t->glyph.h / 2, pal->op_disc_text);
    }

  double tx = b->x + (m->op_inset + m->disc + m->op_gap) * k;
  double total = t->title.h + t->sub.h;
  double ty = b->y + (b->height - total) / 2;
  show (cr, &t->title, tx, ty, pal->text);
  if (!c->small_type_hidden)
    show (cr, &t->sub, tx, ty + t->title.h, pal->dim_text);
  /* Its "freed" tag is a badge (cr-graph-render-badges.c), placed clear
   * of the labels and gradients around it. */
}

static void
draw_accumulate (cairo_t          *cr,
                 const NodeText   *t,
                 const CrGraphBox *b,
                 const Ctx        *c)
{
  cr_graph_rounded_path (cr, b->x, b->y, b->width, b->height, b->height / 2);
  set_rgb (cr, c->pal.acc_fill);
  cairo_fill_preserve (cr);
  set_rgb (cr, c->pal.acc_text);
  cairo_set_line_width (cr, c->lw);
  cairo_stroke (cr);
  if (!c->small_type_hidden)
    show (cr, &t->title, b->x + (b->width - t->title.w) / 2, b->y + (b->height - t->title.h) / 2,
          c->pal.acc_text);
}

static void
edge_path (cairo_t           *cr,
           const CrGraphPath *path)
{
  const double *pt = path->points;
  cairo_move_to (cr, pt[0], pt[1]);
  for (guint k = 1; k + 2 < path->n_points; k += 3)
    cairo_curve_to (cr, pt[2 * k], pt[2 * k + 1], pt[2 * k + 2], pt[2 * k + 3],
                    pt[2 * k + 4], pt[2 * k + 5]);
}

/* The point at u (0: the start, 1: the arrow's tip) along the path, each
 * Bézier segment taking an equal share. */
static void
path_point (const CrGraphPath *path,
            double             u,
            double            *x,
            double            *y)
{
  const double *pt = path->points;
  guint n_seg = (path->n_points - 1) / 3;
  double ex = pt[2 * (path->n_points - 1)], ey = pt[2 * (path->n_points - 1) + 1];
  /* The arrow's straight tail counts as one more short stretch. */
  double tail = path->has_arrow ? 0.08 : 0.0;
  if (u > 1 - tail)
    {
      double f = (u - (1 - tail)) / tail;
      *x = ex + (path->arrow_x - ex) * f;
      *y = ey + (path->arrow_y - ey) * f;
      return;
    }
  double s = CLAMP (u / (1 - tail), 0, 1) * n_seg;
  guint i = MIN ((guint) s, n_seg - 1);
  double t = s - i, mt = 1 - t;
  const double *p = pt + 6 * i;
  *x = mt * mt * mt * p[0] + 3 * mt * mt * t * p[2] + 3 * mt * t * t * p[4] + t * t * t * p[6];
  *y = mt * mt * mt * p[1] + 3 * mt * mt * t * p[3] + 3 * mt * t * t * p[5] + t * t * t * p[7];
}

typedef enum { EDGE_IDLE, EDGE_DONE, EDGE_CURRENT } EdgeState;

/* How far (device pixels) a flattened edge may stray from its curve, as
 * shown at text_scale EDGE_COARSE_BELOW and above, and below it. */
#define EDGE_TOLERANCE     0.25
#define EDGE_TOLERANCE_FAR 0.6
#define EDGE_COARSE_BELOW  0.6

static Rgb
edge_color (EdgeState  state,
            const Ctx *c)
{
  return state == EDGE_CURRENT ? c->pal.highlight : state == EDGE_DONE ? c->pal.done : c->pal.edge;
}

/* One edge's line and arrow (its label is drawn later, over every line). */
static void
draw_edge_line (cairo_t           *cr,
                const CrGraphPath *path,
                gboolean           stops_gradient,
                EdgeState          state,
                const Ctx         *c)
{
  Rgb color = edge_color (state, c);
  const double *pt = path->points;
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  if (state == EDGE_CURRENT)
    {
      /* A soft halo under the edge the gradient is travelling on now. */
      edge_path (cr, path);
      set_rgba (cr, color, 0.25);
      cairo_set_line_width (cr, 7.0 * c->lw);
      cairo_stroke (cr);
    }
  edge_path (cr, path);
  set_rgb (cr, color);
  cairo_set_line_width (cr, (state == EDGE_IDLE ? 1.4 : 2.4) * c->lw);
  if (stops_gradient)
    {
      /* To a tensor made under no_grad or detached: no gradient comes back. */
      double dash[] = { 3.0 * c->k, 3.0 * c->k };
      cairo_set_dash (cr, dash, 2, 0);
    }
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  if (path->has_arrow)
    {
      /* A filled triangle from the spline's end to the tip on the border. */
      double ex = pt[2 * (path->n_points - 1)], ey = pt[2 * (path->n_points - 1) + 1];
      double dx = path->arrow_x - ex, dy = path->arrow_y - ey;
      double len = hypot (dx, dy);
      if (len > 0.01)
        {
          double a = 8 * MIN (c->lw, 1.3), hw = 4 * MIN (c->lw, 1.3);
          dx /= len;
          dy /= len;
          double tip_x = path->arrow_x, tip_y = path->arrow_y;
          double base_x = tip_x - dx * a, base_y = tip_y - dy * a;
          cairo_move_to (cr, tip_x, tip_y);
          cairo_line_to (cr, base_x - dy * hw, base_y + dx * hw);
          cairo_line_to (cr, base_x + dy * hw, base_y - dx * hw);
          cairo_close_path (cr);
          cairo_fill (cr);
          cairo_move_to (cr, ex, ey);
          cairo_line_to (cr, base_x, base_y);
          cairo_stroke (cr);
        }
    }
}

/* box: the label's pill and name as cr_graph_badges_label_boxes placed
 * them (see there). */
static gboolean
edge_label_drawn (const CrGraphPath *path,
                  const Text        *label,
                  const double      *box,
                  const Ctx         *c)
{
  return path->has_label && label->layout && box[2] > box[0] && !c->small_type_hidden;
}

static gboolean
edge_name_drawn (const Text   *name,
                 const double *box)
{
  return name->layout && box[6] > box[4];
}

static void
draw_edge_label (cairo_t           *cr,
                 const CrGraphPath *path,
                 const Text        *label,
                 const Text        *name,
                 const double      *box,
                 EdgeState          state,
                 const Ctx         *c)
{
  if (!edge_label_drawn (path, label, box, c))
    return;
  const Palette *pal = &c->pal;
  double k = c->k;
  double x = box[0], y = box[1];
  cr_graph_rounded_path (cr, x, y, label->w + 8 * k, label->h + 2 * k, (label->h + 2 * k) / 2);
  set_rgb (cr, pal->label_fill);
  cairo_fill_preserve (cr);
  set_rgb (cr, state == EDGE_IDLE ? pal->card_border : edge_color (state, c));
  cairo_set_line_width (cr, 0.8 * c->lw);
  cairo_stroke (cr);
  show (cr, label, x + 4 * k, y + 1 * k, pal->label_text);
  /* The tensor's name with its shape: b over 3×3. */
  if (edge_name_drawn (name, box))
    show (cr, name, box[4], box[5], pal->text);
}

/* The gradient on its way: a glowing dot with a fading trail, moving from
 * the edge's head back to its tail. */
static void
draw_pulse (cairo_t           *cr,
            const CrGraphPath *path,
            double             pulse,
            const Ctx         *c)
{
  if (path->n_points < 4)
    return;
  Rgb color = c->pal.highlight;
  double r = 5.0 * c->k;
  for (int i = 5; i >= 0; i--)
    {
      double u = 1 - CLAMP (pulse - i * 0.035, 0, 1);
      double x, y;
      path_point (path, u, &x, &y);
      double a = i == 0 ? 1.0 : 0.45 * (1 - i / 6.0);
      double ri = i == 0 ? r : r * (1 - i / 8.0);
      if (i == 0)
        {
          cairo_pattern_t *glow = cairo_pattern_create_radial (x, y, 0, x, y, r * 2.6);
          cairo_pattern_add_color_stop_rgba (glow, 0, color.r, color.g, color.b, 0.7);
          cairo_pattern_add_color_stop_rgba (glow, 1, color.r, color.g, color.b, 0);
          cairo_set_source (cr, glow);
          cairo_arc (cr, x, y, r * 2.6, 0, 2 * G_PI);
          cairo_fill (cr);
          cairo_pattern_destroy (glow);
        }
      cairo_arc (cr, x, y, ri, 0, 2 * G_PI);
      set_rgba (cr, color, a);
      cairo_fill (cr);
      if (i == 0)
        {
          cairo_arc (cr, x, y, ri * 0.45, 0, 2 * G_PI);
          cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
          cairo_fill (cr);
        }
    }
}

static void
draw_check (cairo_t          *cr,
            const CrGraphBox *b,
            const Ctx        *c)
{
  /* A small check mark: this node has done its part of backward. */
  double k = c->k;
  double cx = b->x + b->width - 2 * k, cy = b->y + 2 * k;
  cairo_arc (cr, cx, cy, 6.5 * k, 0, 2 * G_PI);
  set_rgb (cr, c->pal.done);
  cairo_fill (cr);
  cairo_move_to (cr, cx - 3 * k, cy);
  cairo_line_to (cr, cx - 1 * k, cy + 2.5 * k);
  cairo_line_to (cr, cx + 3 * k, cy - 2.5 * k);
  set_rgb (cr, c->dark ? c->pal.background : c->pal.card);
  cairo_set_line_width (cr, 1.6 * MIN (c->lw, 1.3));
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_stroke (cr);
}

static void
ring (cairo_t          *cr,
      const CrGraphBox *b,
      double            r,
      double            gap,
      double            width,
      Rgb               color,
      double            glow)
{
  if (glow > 0)
    {
      cr_graph_rounded_path (cr, b->x - gap, b->y - gap, b->width + 2 * gap, b->height + 2 * gap, r + gap);
      set_rgba (cr, color, glow);
      cairo_set_line_width (cr, width * 3);
      cairo_stroke (cr);
    }
  cr_graph_rounded_path (cr, b->x - gap, b->y - gap, b->width + 2 * gap, b->height + 2 * gap, r + gap);
  set_rgb (cr, color);
  cairo_set_line_width (cr, width);
  cairo_stroke (cr);
}

static gboolean
visible (const double *clip,
         double        x0,
         double        y0,
         double        x1,
         double        y1)
{
  return x1 >= clip[0] && x0 <= clip[2] && y1 >= clip[1] && y0 <= clip[3];
}

/* The path's bounds with room for its label. */
static void
path_extents (const CrGraphPath *p,
              double            *ext)
{
  cr_graph_path_bounds (p, ext);
  if (p->has_label)
    {
      ext[0] = MIN (ext[0], p->label_x - 60);
      ext[2] = MAX (ext[2], p->label_x + 60);
      ext[1] = MIN (ext[1], p->label_y - 12);
      ext[3] = MAX (ext[3], p->label_y + 12);
    }
}

/* What is off the highlighted path keeps this much of its opacity: still
 * there to read, clearly not the path. */
#define HIGHLIGHT_FADED 0.22

/* What the forward pass has not computed yet keeps this much. */
#define FORWARD_FADED 0.25

/* Whether edge e touches a node the forward pass shown has not computed. */
static gboolean
forward_not_yet (const CrGraphRenderOptions *options,
                 const CrGraphEdge          *e,
                 guint                       n_nodes)
{
  return options->forward && e->from < n_nodes && e->to < n_nodes
         && (options->forward[e->from] == CR_GRAPH_FORWARD_NOT_YET
             || options->forward[e->to] == CR_GRAPH_FORWARD_NOT_YET);
}

/* A wide soft stroke in the accent colour under an edge of the path lit. */
static void
draw_lit_halo (cairo_t           *cr,
               const CrGraphPath *path,
               const Ctx         *c)
{
  cairo_save (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  edge_path (cr, path);
  set_rgba (cr, c->pal.accent, 0.45);
  cairo_set_line_width (cr, 8.0 * c->lw);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* ---- items (options->items): what is drawn, not drawn ---- */

static guint64
digest_text (guint64     d,
             const Text *t)
{
  if (!t->layout)
    return cr_graph_digest_int (d, -1);
  d = cr_graph_digest_string (d, pango_layout_get_text (t->layout));
  d = cr_graph_digest_int (d, pango_layout_get_width (t->layout));
  d = cr_graph_digest_double (d, t->w);
  return cr_graph_digest_double (d, t->h);
}

static guint64
digest_box (guint64           d,
            const CrGraphBox *b)
{
  return cr_graph_digest_bytes (d, b, sizeof *b);
}

/* An edge's line (and its halo): the path's control points bound it. */
static void
add_edge_item (GArray            *items,
               const CrGraphPath *p,
               gboolean           stops_gradient,
               EdgeState          state,
               gboolean           lit,
               double             alpha,
               const Ctx         *c)
{
  guint64 d = cr_graph_digest_int (CR_GRAPH_DIGEST_INIT, 'e');
  d = cr_graph_digest_bytes (d, p->points, 2 * p->n_points * sizeof (double));
  d = cr_graph_digest_int (d, p->has_arrow);
  d = cr_graph_digest_double (d, p->has_arrow ? p->arrow_x : 0);
  d = cr_graph_digest_double (d, p->has_arrow ? p->arrow_y : 0);
  d = cr_graph_digest_int (d, stops_gradient);
  d = cr_graph_digest_int (d, state);
  d = cr_graph_digest_int (d, lit);
  d = cr_graph_digest_double (d, alpha);
  double ext[4];
  cr_graph_path_bounds (p, ext);
  /* The halo (8 lw wide) and the arrowhead (5.2 across) reach past the
   * path; a pixel of antialiasing past those. */
  cr_graph_items_add (items, ext[0], ext[1], ext[2], ext[3], 8 * MAX (c->lw, 1.0) + 1, d);
}

static void
add_edge_label_item (GArray            *items,
                     const CrGraphPath *path,
                     const Text        *label,
                     const Text        *name,
                     const double      *box,
                     EdgeState          state,
                     double             alpha,
                     const Ctx         *c)
{
  if (alpha <= 0.0 || !edge_label_drawn (path, label, box, c))
    return;
  double k = c->k;
  guint64 d = cr_graph_digest_int (CR_GRAPH_DIGEST_INIT, 'l');
  d = digest_text (d, label);
  d = cr_graph_digest_int (d, state);
  d = cr_graph_digest_double (d, alpha);
  d = cr_graph_digest_double (d, box[0]);
  d = cr_graph_digest_double (d, box[1]);
  double x1 = box[0] + label->w + 8 * k, y1 = box[1] + label->h + 2 * k;
  if (edge_name_drawn (name, box))
    {
      d = digest_text (d, name);
      d = cr_graph_digest_bytes (d, box + 4, 4 * sizeof (double));
      x1 = MAX (x1, MAX (box[6], box[4] + name->w));
      y1 = MAX (y1, MAX (box[7], box[5] + name->h));
    }
  cr_graph_items_add (items, MIN (box[0], box[4]), MIN (box[1], box[5]), x1, y1, 2 * c->lw + 1, d);
}

/* A node with its rings, check and shadow, all within 16 k of its box
 * (as the drawing's own culling assumes). */
static void
add_node_item (GArray            *items,
               const CrGraphNode *n,
               const NodeText    *t,
               const CrGraphBox  *b,
               double             alpha,
               guint64            state,
               const Ctx         *c)
{
  guint64 d = cr_graph_digest_int (CR_GRAPH_DIGEST_INIT, 'n');
  d = cr_graph_digest_int (d, n->kind);
  d = digest_box (d, b);
  d = cr_graph_digest_double (d, alpha);
  d = cr_graph_digest_int (d, (gint64) state);
  d = digest_text (d, &t->title);
  d = digest_text (d, &t->sub);
  d = digest_text (d, &t->body);
  d = digest_text (d, &t->glyph);
  d = digest_text (d, &t->note);
  cr_graph_items_add (items, b->x, b->y, b->x + b->width, b->y + b->height, 16 * c->k + 1, d);
}

static void
render_with_cache (cairo_t                    *cr,
                   const CrGraphModel         *model,
                   const CrGraphLayout        *layout,
                   const CrGraphRenderOptions *options,
                   const CrGraphRenderCache   *cache)
{
  Ctx c = {
    .cache = cache,
    .pal = palette_for (options->style, options->presentation),
    .dark = options->style == CR_GRAPH_STYLE_DARK,
    .k = cache->k,
    .lw = cache->lw,
    .small_type_hidden = options->text_scale > 0
                         && WINDOW_METRICS.small * cache->k * options->text_scale < CR_GRAPH_RENDER_MIN_TEXT_PX,
  };
  int current = options->current_step;
  guint n_nodes = MIN (MIN (model->nodes->len, layout->n_nodes), cache->n_nodes);
  guint n_edges = MIN (MIN (model->edges->len, layout->n_edges), cache->n_edges);
  /* A path of the chain rule: its nodes and edges lit, the rest faded. */
  const guint8 *lit_nodes = NULL, *lit_edges = NULL;
  if (options->highlight)
    cr_graph_highlight_resolve (options->highlight, model, &lit_nodes, &lit_edges);

  cairo_save (cr);
  if (options->draw_background)
    {
      cairo_rectangle (cr, 0, 0, layout->width, layout->height);
      set_rgb (cr, c.pal.background);
      cairo_fill (cr);
    }
  /* Dimmed: the graph fades into the background. */
  if (options->dimmed)
    cairo_push_group (cr);
  GArray *items = options->items;
  double clip[4] = { -G_MAXDOUBLE, -G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };
  if (!items)
    cairo_clip_extents (cr, &clip[0], &clip[1], &clip[2], &clip[3]);

  /* Module calls: a box behind the nodes of each open one, its title
   * where no edge crosses it if there is such a place. */
  g_autoptr (GArray) titles = NULL;
  if (options->collapse && options->collapse->model == model)
    {
      titles = cr_graph_titles_place (model, layout, c.k, clip);
      if (!items)
        cr_graph_collapse_draw_boxes (options->collapse, cr, layout, titles, c.dark, c.k);
    }
  /* What the whole drawing shares, the boxes and regions among it. */
  if (items)
    cr_graph_items_add (items, 0, 0, 0, 0, CR_GRAPH_ITEM_WHOLE,
                        cr_graph_render_whole_digest (model, layout, options, titles, c.k, c.lw));
  /* no_grad (and enable_grad ...) regions: a box around what was made in them. */
  if (!items)
    cr_graph_regions_draw (cr, model, layout, c.dark, c.k);

  /* Edges first, under the nodes: those whose gradient was sent by an
   * earlier step are done, those of the current step glow. Their labels
   * go where they lie on no node and no other label. */
  g_autofree double *own_label_boxes = NULL;
  const double *label_boxes = options->label_boxes;
  if (!label_boxes)
    label_boxes = own_label_boxes = cr_graph_render_label_boxes ((CrGraphRenderCache *) cache, layout);
  /* Where a title has no clear place, the edges pass under it. */
  gboolean titles_cut = !items && cr_graph_titles_clip_out (cr, titles, c.k);
  /* Far out, the curves are flattened more coarsely: a tile of a big graph
   * at a low zoom holds hundreds of edges, whose stroking is most of its
   * time, and a fraction of a pixel off is not seen there. (One path per
   * style, stroked once, was tried and is two to three times slower in
   * Cairo's image backend.) */
  cairo_save (cr);
  if (options->text_scale > 0)
    cairo_set_tolerance (cr, options->text_scale < EDGE_COARSE_BELOW ? EDGE_TOLERANCE_FAR : EDGE_TOLERANCE);
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree EdgeState *states = g_new (EdgeState, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      double ext[4];
      path_extents (p, ext);
      if (p->n_points < 4 || !visible (clip, ext[0] - 8, ext[1] - 8, ext[2] + 8, ext[3] + 8))
        continue;
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      int s = cache->edge_step[i];
      EdgeState state = current < 0 || s < 0 || s > current ? EDGE_IDLE
                        : s == current ? EDGE_CURRENT : EDGE_DONE;
      states[i] = state;
      g_array_append_val (shown, i);
      double a = 1.0;
      if (options->node_alpha && e->from < n_nodes && e->to < n_nodes)
        a = MIN (options->node_alpha[e->from], options->node_alpha[e->to]);
      if (lit_edges && !lit_edges[i])
        a *= HIGHLIGHT_FADED;
      if (forward_not_yet (options, e, n_nodes))
        a *= FORWARD_FADED;
      if (items)
        {
          add_edge_item (items, p, e->stops_gradient, state, lit_edges && lit_edges[i], a, &c);
          continue;
        }
      if (a < 1.0)
        cairo_push_group (cr);
      if (lit_edges && lit_edges[i])
        draw_lit_halo (cr, p, &c);
      draw_edge_line (cr, p, e->stops_gradient, state, &c);
      if (a < 1.0)
        {
          cairo_pop_group_to_source (cr);
          cairo_paint_with_alpha (cr, a);
        }
    }
  cairo_restore (cr);
  /* The labels over every line. */
  for (guint j = 0; j < shown->len; j++)
    {
      guint i = g_array_index (shown, guint, j);
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      double a = 1.0;
      if (options->node_alpha && e->from < n_nodes && e->to < n_nodes)
        a = MIN (options->node_alpha[e->from], options->node_alpha[e->to]);
      if (lit_edges && !lit_edges[i])
        a *= HIGHLIGHT_FADED;
      if (forward_not_yet (options, e, n_nodes))
        a *= FORWARD_FADED;
      if (items)
        {
          add_edge_label_item (items, &layout->edges[i], &cache->labels[i], &cache->names[i],
                               label_boxes + CR_GRAPH_BADGES_LABEL_BOX * i, states[i], a, &c);
          continue;
        }
      if (a <= 0.0)
        continue;
      if (a < 1.0)
        cairo_push_group (cr);
      draw_edge_label (cr, &layout->edges[i], &cache->labels[i], &cache->names[i],
                       label_boxes + CR_GRAPH_BADGES_LABEL_BOX * i, states[i], &c);
      if (a < 1.0)
        {
          cairo_pop_group_to_source (cr);
          cairo_paint_with_alpha (cr, a);
        }
    }

  if (titles_cut)
    cairo_restore (cr);

  if (!items)
    cr_graph_regions_draw_titles (cr, model, layout, c.dark, c.k);

  for (guint i = 0; i < n_nodes; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      const CrGraphBox *b = &layout->nodes[i];
      double m = 16 * c.k;
      if (!visible (clip, b->x - m, b->y - m, b->x + b->width + m, b->y + b->height + m))
        continue;
      const NodeText *t = &cache->nodes[i];
      double a = options->node_alpha ? options->node_alpha[i] : 1.0;
      if (lit_nodes && !lit_nodes[i])
        a *= HIGHLIGHT_FADED;
      /* Not computed yet in the forward pass shown: faint, and its values
       * not given away. */
      NodeText unknown;
      if (options->forward && options->forward[i] == CR_GRAPH_FORWARD_NOT_YET)
        {
          a *= FORWARD_FADED;
          unknown = *t;
          unknown.body = (Text) { 0 };
          t = &unknown;
        }
      else if (options->forward && options->forward[i] == CR_GRAPH_FORWARD_NOW
               && options->hide_step_gradients)
        {
          /* Practice: the value computed now is what the card asks. */
          unknown = *t;
          unknown.body = (Text) { 0 };
          t = &unknown;
        }
      if (a <= 0.0)
        continue;
      double r = node_radius (n, b, &c);
      gboolean is_current = (current >= 0 && n->step == current)
                            || (options->forward && options->forward[i] == CR_GRAPH_FORWARD_NOW);
      gboolean freed = n->kind == CR_GRAPH_NODE_OP && cr_graph_render_badges_op_freed (model, n, current);
      gboolean checked = current >= 0 && n->step >= 0 && n->step < current;
      if (items)
        {
          /* Each of what decides its rings, outline and check, a bit. */
          guint64 state = (guint64) is_current | (guint64) (lit_nodes && lit_nodes[i]) << 1
                          | (guint64) (options->selected == (int) i) << 2 | (guint64) freed << 3
                          | (guint64) checked << 4;
          add_node_item (items, n, t, b, a, state, &c);
          continue;
        }
      if (a < 1.0)
        cairo_push_group (cr);
      if (is_current)
        ring (cr, b, r, 4 * c.k, 3 * c.lw, c.pal.highlight, 0.3);
      if (lit_nodes && lit_nodes[i])
        ring (cr, b, r, 3 * c.k, 2.5 * c.lw, c.pal.accent, 0.25);
      if (options->selected == (int) i)
        ring (cr, b, r, (is_current ? 9 : 4) * c.k, 2.5 * c.lw, c.pal.accent, 0.0);
      switch (n->kind)
        {
        case CR_GRAPH_NODE_LEAF:
        case CR_GRAPH_NODE_OUTPUT:
        case CR_GRAPH_NODE_CONSTANT:
        case CR_GRAPH_NODE_NO_GRAD:
        case CR_GRAPH_NODE_DETACHED:
          draw_tensor_card (cr, n, t, b, &c);
          break;
        case CR_GRAPH_NODE_OP:
          /* "freed" as of the current step, by the record's saved-tensor
           * life (an earlier call's frees count all along). */
          draw_op (cr, n, t, b, freed, &c);
          break;
        case CR_GRAPH_NODE_GROUP:
          /* A closed module call: a stack of cards, its "+" opens it. */
          {
            CrGraphBox behind = *b;
            behind.x += 4 * c.k;
            behind.y += 4 * c.k;
            cr_graph_rounded_path (cr, behind.x, behind.y, behind.width, behind.height, behind.height / 2);
            set_rgb (cr, c.pal.op_border);
            cairo_set_line_width (cr, 1.5 * c.lw);
            cairo_stroke (cr);
            draw_op (cr, n, t, b, FALSE, &c);
          }
          break;
        case CR_GRAPH_NODE_ACCUMULATE:
        default:
          draw_accumulate (cr, t, b, &c);
          break;
        }
      if (checked)
        draw_check (cr, b, &c);
      if (a < 1.0)
        {
          cairo_pop_group_to_source (cr);
          cairo_paint_with_alpha (cr, a);
        }
    }

  /* The record's state at this step: gradients sent, hooks, errors. */
  CrGraphBadgeOptions badges = {
    .current_step = options->hide_step_gradients && current >= 0 ? current - 1 : current, .dark = c.dark, .k = c.k, .lw = c.lw, .clip = items ? NULL : clip,
    .label_boxes = label_boxes,
    .items = items,
    .placed = options->badges,
  };
  cr_graph_render_badges (cr, model, layout, &badges);

  /* The travelling gradient goes over everything (a whole item). */
  if (current >= 0 && options->pulse >= 0 && !items)
    for (guint i = 0; i < n_edges; i++)
      if (cache->edge_step[i] == current)
        draw_pulse (cr, &layout->edges[i], options->pulse, &c);

  if (options->dimmed)
    {
      cairo_pop_group_to_source (cr);
      cairo_paint_with_alpha (cr, 0.4);
    }
  cairo_restore (cr);
}

void
cr_graph_render (cairo_t                    *cr,
                 const CrGraphModel         *model,
                 const CrGraphLayout        *layout,
                 const CrGraphRenderOptions *options)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL);

  CrGraphRenderOptions defaults;
  if (!options)
    {
      cr_graph_render_options_init (&defaults);
      options = &defaults;
    }
  if (options->cache)
    {
      render_with_cache (cr, model, layout, options, options->cache);
      return;
    }
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, options->presentation);
  render_with_cache (cr, model, layout, options, cache);
  cr_graph_render_cache_free (cache);
}

void
cr_graph_render_pulse (cairo_t                    *cr,
                       const CrGraphModel         *model,
                       const CrGraphLayout        *layout,
                       const CrGraphRenderOptions *options)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL);
  g_return_if_fail (options != NULL && options->cache != NULL);

  const CrGraphRenderCache *cache = options->cache;
  int current = options->current_step;
  if (current < 0 || options->pulse < 0)
    return;
  Ctx c = {
    .cache = cache,
    .pal = palette_for (options->style, options->presentation),
    .dark = options->style == CR_GRAPH_STYLE_DARK,
    .k = cache->k,
    .lw = cache->lw,
  };
  guint n_edges = MIN (MIN (model->edges->len, layout->n_edges), cache->n_edges);
  cairo_save (cr);
  for (guint i = 0; i < n_edges; i++)
    if (cache->edge_step[i] == current)
      draw_pulse (cr, &layout->edges[i], options->pulse, &c);
  cairo_restore (cr);
}

void
cr_graph_render_hover (cairo_t                    *cr,
                       const CrGraphModel         *model,
                       const CrGraphLayout        *layout,
                       const CrGraphRenderOptions *options,
                       int                         node)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL && options != NULL);
  if (node < 0 || (guint) node >= MIN (model->nodes->len, layout->n_nodes))
    return;
  double k = options->presentation ? PRESENT_TYPE : 1.0;
  double lw = options->presentation ? PRESENT_LINE : 1.0;
  Ctx c = { .k = k, .lw = lw };
  Palette pal = palette_for (options->style, options->presentation);
  const CrGraphNode *n = g_ptr_array_index (model->nodes, node);
  const CrGraphBox *b = &layout->nodes[node];
  cairo_save (cr);
  cr_graph_rounded_path (cr, b->x - 3 * k, b->y - 3 * k, b->width + 6 * k, b->height + 6 * k,
                node_radius (n, b, &c) + 3 * k);
  set_rgba (cr, pal.accent, 0.45);
  cairo_set_line_width (cr, 2 * lw);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static gboolean
has_suffix (const char *path,
            const char *suffix)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  return g_str_has_suffix (lower, suffix);
}

static gboolean
check_status (cairo_status_t status,
              const char    *path,
              GError       **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Could not write %s: %s",
               path, cairo_status_to_string (status));
  return FALSE;
}

typedef struct {
  const CrGraphModel         *model;
  const CrGraphLayout        *layout;
  const CrGraphRenderOptions *options;   /* with its cache set */
  double                      scale;
} Band;

static void
draw_band (cairo_t  *cr,
           double    y0,
           gpointer  user_data)
{
  const Band *band = user_data;
  cairo_translate (cr, 0, -y0);
  cairo_scale (cr, band->scale, band->scale);
  cr_graph_render (cr, band->model, band->layout, band->options);
}

/* An opaque PNG, drawn and written a band of rows at a time with one cache
 * of shaped text for all the bands (cr-graph-png.h). */
static gboolean
png_banded (const CrGraphModel         *model,
            const CrGraphLayout        *layout,
            const CrGraphRenderOptions *options,
            double                      scale,
            const char                 *path,
            GError                    **error)
{
  CrGraphRenderOptions band_options;
  if (options)
    band_options = *options;
  else
    cr_graph_render_options_init (&band_options);
  CrGraphRenderCache *cache = NULL;
  if (!band_options.cache)
    band_options.cache = cache = cr_graph_render_cache_new (model, band_options.presentation);
  /* Whole pixels: the drawing's background grows by less than one to fill
   * the last row and column too (the image has no alpha to leave them
   * see-through). The copy shares the layout's arrays, read only. */
  double w = MAX (layout->width, 1.0), h = MAX (layout->height, 1.0);
  int width = (int) ceil (w * scale), height = (int) ceil (h * scale);
  CrGraphLayout whole = *layout;
  whole.width = width / scale;
  whole.height = height / scale;
  Band band = { model, &whole, &band_options, scale };
  gboolean ok = cr_graph_png_write_opaque (path, width, height, draw_band, &band, error);
  cr_graph_render_cache_free (cache);
  return ok;
}

gboolean
cr_graph_render_to_file (const CrGraphModel         *model,
                         const CrGraphLayout        *layout,
                         const CrGraphRenderOptions *options,
                         const char                 *path,
                         GError                    **error)
{
  g_return_val_if_fail (model != NULL && layout != NULL && path != NULL, FALSE);

  double w = MAX (layout->width, 1.0), h = MAX (layout->height, 1.0);
  cairo_surface_t *surface;
  gboolean png = has_suffix (path, ".png");
  /* Twice the size for sharp text, less for huge graphs: Cairo's images
   * stop at 32767 pixels a side, and memory long before. */
  double scale = MIN (MIN (PNG_SCALE, PNG_MAX_SIDE / w), MIN (PNG_MAX_SIDE / h,
                                                             sqrt (PNG_MAX_PIXELS / (w * h))));
  if (png && (!options || options->draw_background))
    return png_banded (model, layout, options, scale, path, error);
  if (has_suffix (path, ".svg"))
    return cr_graph_svg_write (model, layout, options, path, error);
  if (png)
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (w * scale),
                                          (int) ceil (h * scale));
  else if (has_suffix (path, ".pdf"))
    surface = cairo_pdf_surface_create (path, w, h);
  else
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "Cannot export to %s: the name should end in .png, .svg or .pdf", path);
      return FALSE;
    }
  if (!check_status (cairo_surface_status (surface), path, error))
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  cairo_t *cr = cairo_create (surface);
  if (png)
    cairo_scale (cr, scale, scale);
  cr_graph_render (cr, model, layout, options);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && png)
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  return check_status (status, path, error);
}
