/* cr-graph-render-badges.c — the record's state at the current step, drawn
 * over the graph: gradients sent so far, leaves' .grad, hooks, errors. */
#include "cr-graph-render-badges.h"
#include "cr-graph-titles.h"
#include "cr-graph-items.h"

#include "cr-graph-regions.h"
#include "cr-graph-render.h"
#include "cr-record-text.h"
#include "cr-coach.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#define BADGE_FONT "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define VALUE_FONT "Source Code Pro, DejaVu Sans Mono, monospace"
#define BADGE_SIZE 7.5
/* How many numbers a value label writes out before it gives shape and range. */
#define BRIEF_VALUES 3

typedef struct { double r, g, b; } Rgb;

typedef struct {
  Rgb grad_fill, grad_text, grad_border;   /* a gradient sent (green, as on the step card) */
  Rgb now_fill, now_text;                  /* the current step's: filled */
  Rgb hook_fill, hook_text;                /* a hook (amber) */
  Rgb error_fill, error_text, error_ring;  /* an error (red) */
  Rgb freed_fill, freed_text;              /* saved tensors freed */
  Rgb coach_fill, coach_text, coach_ring;  /* a mistake the coach found (amber) */
} Palette;

static Rgb
hex (guint32 v)
{
  return (Rgb) { ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0 };
}

static Palette
palette (gboolean dark)
{
  Palette p;
  if (dark)
    {
      p.grad_fill = hex (0x1f3a2c); p.grad_text = hex (0x8ff0a4); p.grad_border = hex (0x2ec27e);
      p.now_fill = hex (0x2ec27e); p.now_text = hex (0x0b1f14);
      p.hook_fill = hex (0x4a3a10); p.hook_text = hex (0xf8e45c);
      p.error_fill = hex (0x5c2329); p.error_text = hex (0xffa59c); p.error_ring = hex (0xff7b63);
      p.freed_fill = hex (0x5c2329); p.freed_text = hex (0xff9e93);
      p.coach_fill = hex (0x4a3a10); p.coach_text = hex (0xf8e45c); p.coach_ring = hex (0xf6d32d);
    }
  else
    {
      p.grad_fill = hex (0xe6f6ec); p.grad_text = hex (0x1b6b43); p.grad_border = hex (0x2ec27e);
      p.now_fill = hex (0x26a269); p.now_text = hex (0xffffff);
      p.hook_fill = hex (0xfdf0c2); p.hook_text = hex (0x7a5200);
      p.error_fill = hex (0xfbe3e1); p.error_text = hex (0xa51d2d); p.error_ring = hex (0xe01b24);
      p.freed_fill = hex (0xfbe3e1); p.freed_text = hex (0xc01c28);
      p.coach_fill = hex (0xfdf0c2); p.coach_text = hex (0x7a5200); p.coach_ring = hex (0xe5a50a);
    }
  return p;
}

static void
set_rgb (cairo_t *cr,
         Rgb      c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

/* Something a badge must not lie on: a node (its own may be excepted), a
 * done check, a shape label, a badge placed before. */
typedef struct {
  double x0, y0, x1, y1;
  int    node;                  /* a node's box: its id; else -1 */
} Rect;

typedef struct {
  const CrGraphModel        *model;
  const CrGraphLayout       *layout;
  const CrGraphBadgeOptions *options;
  Palette                    pal;
  double                     k, lw;
  GArray                    *obstacles;   /* of Rect: nodes, checks, labels, badges so far */
  GHashTable                *pairs;       /* "from>to text" of the gradients drawn: an
                                           * edge's twin (y = x * x) shows it once */
  const double              *labels;      /* the labels' boxes (cr_graph_badges_label_boxes) */
} Ctx;

static void
pill_path (cairo_t *cr,
           double   x,
           double   y,
           double   w,
           double   h)
{
  double r = h / 2;
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, G_PI / 2);
  cairo_arc (cr, x + r, y + r, r, G_PI / 2, 3 * G_PI / 2);
  cairo_close_path (cr);
}

static gboolean
in_clip (const Ctx *c,
         double     x0,
         double     y0,
         double     x1,
         double     y1)
{
  const double *clip = c->options->clip;
  return !clip || (x1 >= clip[0] && x0 <= clip[2] && y1 >= clip[1] && y0 <= clip[3]);
}

/* Where a badge may go: (x, y) and its anchor (ax, ay in 0..1 of the
 * badge: 0.5, 0.5 centres it there). */
typedef struct { double x, y, ax, ay; } Spot;

static gboolean
intersects (const Rect *a,
            double      x0,
            double      y0,
            double      x1,
            double      y1)
{
  return a->x0 < x1 && x0 < a->x1 && a->y0 < y1 && y0 < a->y1;
}

/* Whether r (with a little air around it) is clear of every obstacle but
 * the box of node `own`. */
static gboolean
is_free (const Ctx  *c,
         const Rect *r,
         int         own)
{
  double air = 1.0 * c->k;
  double x0 = r->x0 - air, y0 = r->y0 - air, x1 = r->x1 + air, y1 = r->y1 + air;
  const Rect *o = (const Rect *) c->obstacles->data;
  for (guint i = 0; i < c->obstacles->len; i++)
    if ((own < 0 || o[i].node != own) && intersects (&o[i], x0, y0, x1, y1))
      return FALSE;
  return TRUE;
}

static void
add_obstacle (Ctx   *c,
              double x0,
              double y0,
              double x1,
              double y1,
              int    node)
{
  Rect r = { x0, y0, x1, y1, node };
  g_array_append_val (c->obstacles, r);
}

/* Edge `edge`'s label pill as drawn (x0, y0, x1, y1); FALSE: none. */
static gboolean
label_box (const Ctx *c,
           guint      edge,
           double    *box)
{
  if (!c->labels || edge >= c->layout->n_edges)
    return FALSE;
  const double *b = c->labels + CR_GRAPH_BADGES_LABEL_BOX * edge;
  if (b[2] <= b[0])
    return FALSE;
  memcpy (box, b, 4 * sizeof (double));
  return TRUE;
}

/* How hard a badge tries to find room. */
typedef enum {
  PLACE_OPTIONAL,   /* at one of its spots, or not at all (an earlier step's value) */
  PLACE_SHORT,      /* then its short text at its spots */
  PLACE_FAR,        /* then further out, with a leader line back (the current step's) */
} Placing;

typedef struct {
  const char *text;
  const char *short_text;       /* NULL: none */
  gboolean    mono;
  const Spot *spots;
  guint       n_spots;
  double      ax, ay;           /* what it labels: where a leader line from afar ends */
  int         node;             /* the node it sits on (may overlap it), -1 */
  Placing     placing;
  Rgb         fill, ink;
  const Rgb  *border;
} Badge;

static PangoLayout *
shape (cairo_t    *cr,
       const Ctx  *c,
       const char *text,
       gboolean    mono,
       double     *w,
       double     *h)
{
  double k = c->k;
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (mono ? VALUE_FONT : BADGE_FONT);
  pango_font_description_set_absolute_size (font, BADGE_SIZE * k * PANGO_SCALE);
  pango_font_description_set_weight (font, mono ? PANGO_WEIGHT_NORMAL : PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  int pw, ph;
  pango_layout_get_size (layout, &pw, &ph);
  *w = (double) pw / PANGO_SCALE + 8 * k;
  *h = (double) ph / PANGO_SCALE + 2 * k;
  return layout;
}

/* Whether r lies inside the drawing (what the canvas fits in view). */
static gboolean
is_inside (const Ctx  *c,
           const Rect *r)
{
  return r->x0 >= 0 && r->y0 >= 0 && r->x1 <= c->layout->width && r->y1 <= c->layout->height;
}

/* How a place is kept within the drawing (what the canvas fits in view):
 * a badge past its edge would be cut off by the pane. */
typedef enum {
  WITHIN_ONLY,      /* places inside the drawing only */
  WITHIN_MOVED,     /* any place, moved back inside the drawing */
  WITHIN_ANYWHERE,  /* any place */
} Within;

/* r moved the least way that puts it inside the drawing (where it is
 * wider or taller than the drawing: its left or top edge at the
 * drawing's). */
static void
move_inside (const Ctx *c,
             Rect      *r)
{
  double w = r->x1 - r->x0, h = r->y1 - r->y0;
  double x0 = MAX (0, MIN (r->x0, c->layout->width - w));
  double y0 = MAX (0, MIN (r->y0, c->layout->height - h));
  *r = (Rect) { x0, y0, x0 + w, y0 + h, r->node };
}

/* Whether r may take its place as `within` says (moving it there when
 * asked). */
static gboolean
keep_within (const Ctx  *c,
             Within      within,
             Rect       *r)
{
  if (within == WITHIN_MOVED)
    move_inside (c, r);
  return within == WITHIN_ANYWHERE || is_inside (c, r);
}

/* The first of b's spots where it is free and within the drawing. */
static gboolean
first_free_spot (const Ctx   *c,
                 const Badge *b,
                 double       w,
                 double       h,
                 Within       within,
                 Rect        *r)
{
  for (guint i = 0; i < b->n_spots; i++)
    {
      const Spot *s = &b->spots[i];
      *r = (Rect) { s->x - w * s->ax, s->y - h * s->ay, 0, 0, -1 };
      r->x1 = r->x0 + w;
      r->y1 = r->y0 + h;
      if (keep_within (c, within, r) && is_free (c, r, b->node))
        return TRUE;
    }
  return FALSE;
}

/* Rings of places around (ax, ay), nearest first, within the drawing:
 * the first free one. */
static gboolean
far_spot (const Ctx   *c,
          const Badge *b,
          double       w,
          double       h,
          Within       within,
          Rect        *r)
{
  /* Moved inside, rings past the edge fold onto the same places: look
   * further. */
  const int n_angles = 16, n_rings = within == WITHIN_MOVED ? 48 : 14;
  for (int ring = 1; ring <= n_rings; ring++)
    {
      double d = ring * 6 * c->k;
      for (int a = 0; a < n_angles; a++)
        {
          double t = 2 * G_PI * a / n_angles;
          double cx = b->ax + cos (t) * (w / 2 + d), cy = b->ay + sin (t) * (h / 2 + d);
          *r = (Rect) { cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, -1 };
          if (!keep_within (c, within, r))
            continue;
          /* Away from its node, clear of it too. */
          if (is_free (c, r, -1))
            return TRUE;
        }
    }
  return FALSE;
}

/* The badge at the first free place it may take (see the header); left
 * out when there is none. */
static void
pill (cairo_t     *cr,
      Ctx         *c,
      const Badge *b)
{
  double k = c->k, w, h;
  const char *text = b->text;
  PangoLayout *layout = shape (cr, c, text, b->mono, &w, &h);
  /* Never past the drawing's edge: the canvas fits the drawing in view,
   * and the pane cuts what lies past it. Inside the drawing, its own text
   * at its spots, then further out, then its short text at its spots; then
   * (a badge that must show) places past the edge moved back inside, where
   * they are free: its own text at its spots, further out, its short text
   * further out; then past the edge. */
  double sw = 0, sh = 0;
  PangoLayout *brief = NULL;
  if (b->placing >= PLACE_SHORT && b->short_text)
    brief = shape (cr, c, b->short_text, b->mono, &sw, &sh);
  Rect r;
  gboolean far = FALSE, use_brief = FALSE, must_show = b->placing >= PLACE_SHORT;
  gboolean found = first_free_spot (c, b, w, h, WITHIN_ONLY, &r);
  if (!found && b->placing >= PLACE_FAR)
    found = far = far_spot (c, b, w, h, WITHIN_ONLY, &r);
  if (!found && brief)
    found = use_brief = first_free_spot (c, b, sw, sh, WITHIN_ONLY, &r);
  if (!found && must_show)
    found = first_free_spot (c, b, w, h, WITHIN_MOVED, &r);
  /* Rather than past the edge, further out (with a leader line). */
  if (!found && must_show)
    found = far = far_spot (c, b, w, h, WITHIN_MOVED, &r);
  if (!found && brief)
    found = use_brief = far = far_spot (c, b, sw, sh, WITHIN_MOVED, &r);
  /* Only where the drawing has no free room at all (a narrow one, whose
   * pane has room beside it): past its edge. */
  if (!found && must_show)
    found = first_free_spot (c, b, w, h, WITHIN_ANYWHERE, &r);
  if (!found && b->placing >= PLACE_FAR)
    found = far = far_spot (c, b, w, h, WITHIN_ANYWHERE, &r);
  if (use_brief)
    {
      g_object_unref (layout);
      layout = g_steal_pointer (&brief);
      text = b->short_text;
      w = sw;
      h = sh;
    }
  g_clear_object (&brief);
  if (!found)
    {
      g_object_unref (layout);
      return;
    }
  add_obstacle (c, r.x0, r.y0, r.x1, r.y1, -1);
  if (c->options->drawn)
    g_ptr_array_add (c->options->drawn, g_strdup (text));
  if (c->options->placed)
    {
      CrGraphBadgeBox box = { r.x0, r.y0, r.x1, r.y1, far ? -1 : b->node };
      g_array_append_val (c->options->placed, box);
    }
  double lx0 = far ? MIN (r.x0, b->ax) : r.x0, ly0 = far ? MIN (r.y0, b->ay) : r.y0;
  double lx1 = far ? MAX (r.x1, b->ax) : r.x1, ly1 = far ? MAX (r.y1, b->ay) : r.y1;
  if (c->options->items)
    {
      guint64 d = cr_graph_digest_string (CR_GRAPH_DIGEST_INIT, text);
      d = cr_graph_digest_int (d, b->mono);
      const double place[4] = { r.x0, r.y0, r.x1, r.y1 };
      d = cr_graph_digest_bytes (d, place, sizeof place);
      d = cr_graph_digest_bytes (d, &b->fill, sizeof b->fill);
      d = cr_graph_digest_bytes (d, &b->ink, sizeof b->ink);
      d = cr_graph_digest_bytes (d, b->border ? b->border : &b->fill, sizeof b->fill);
      d = cr_graph_digest_int (d, b->border != NULL);
      d = cr_graph_digest_int (d, far);
      if (far)
        {
          d = cr_graph_digest_double (d, b->ax);
          d = cr_graph_digest_double (d, b->ay);
        }
      /* The outline and the leader's dot reach past the box. */
      cr_graph_items_add (c->options->items, lx0, ly0, lx1, ly1, 2 * c->lw + 1, d);
      g_object_unref (layout);
      return;
    }
  if (in_clip (c, lx0, ly0, lx1, ly1))
    {
      Rgb line = b->border ? *b->border : b->fill;
      if (far)
        {
          /* A thin line from what it labels to the badge's nearest point. */
          double nx = CLAMP (b->ax, r.x0, r.x1), ny = CLAMP (b->ay, r.y0, r.y1);
          cairo_move_to (cr, b->ax, b->ay);
          cairo_line_to (cr, nx, ny);
          cairo_set_source_rgba (cr, line.r, line.g, line.b, 0.8);
          cairo_set_line_width (cr, 0.8 * c->lw);
          cairo_stroke (cr);
          cairo_arc (cr, b->ax, b->ay, 1.6 * c->lw, 0, 2 * G_PI);
          cairo_fill (cr);
        }
      pill_path (cr, r.x0, r.y0, w, h);
      set_rgb (cr, b->fill);
      if (b->border)
        {
          cairo_fill_preserve (cr);
          set_rgb (cr, *b->border);
          cairo_set_line_width (cr, 0.8 * c->lw);
          cairo_stroke (cr);
        }
      else
        cairo_fill (cr);
      set_rgb (cr, b->ink);
      cairo_move_to (cr, r.x0 + 4 * k, r.y0 + 1 * k);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
}

static const CrGraphBox *
node_box (const Ctx         *c,
          const CrGraphNode *node)
{
  if (!node || node->id >= c->layout->n_nodes)
    return NULL;
  return &c->layout->nodes[node->id];
}

/* The point at u (0: the path's start, the input's end; 1: its end) along
 * the edge's Bézier segments, each taking an equal share. */
static void
path_point (const CrGraphPath *path,
            double             u,
            double            *x,
            double            *y)
{
  guint n_seg = (path->n_points - 1) / 3;
  double f = CLAMP (u, 0, 1) * n_seg;
  guint i = MIN ((guint) f, n_seg - 1);
  double t = f - i, mt = 1 - t;
  const double *p = path->points + 6 * i;
  *x = mt * mt * mt * p[0] + 3 * mt * mt * t * p[2] + 3 * mt * t * t * p[4] + t * t * t * p[6];
  *y = mt * mt * mt * p[1] + 3 * mt * mt * t * p[3] + 3 * mt * t * t * p[5] + t * t * t * p[7];
}

/* ---- gradients ------------------------------------------------------------ */

/* A large value's brief text without its range ("4×1 in [-1, 2]": "4×1"),
 * what its badge says where the whole finds no room (the card has the
 * range); NULL for a value written out (new string). */
static char *
shape_of (const char *brief)
{
  const char *range = strstr (brief, " in [");
  return range ? g_strndup (brief, range - brief) : NULL;
}

/* Whether an AccumulateGrad of leaf ran by the current step. */
static gboolean
leaf_written (const Ctx *c,
              int        leaf)
{
  const CrRecordBackward *bw = g_ptr_array_index (c->model->record->backwards, c->model->backward);
  for (guint s = 0; s < bw->steps->len && (int) s <= c->options->current_step; s++)
    {
      const CrRecordStep *step = g_ptr_array_index (bw->steps, s);
      if (step->kind == CR_RECORD_STEP_ACCUMULATE && step->leaf == leaf)
        return TRUE;
    }
  return FALSE;
}

static void
draw_step_gradients (cairo_t            *cr,
                     Ctx                *c,
                     const CrRecordStep *step,
                     gboolean            now)
{
  const Palette *pal = &c->pal;
  Rgb fill = now ? pal->now_fill : pal->grad_fill;
  Rgb ink = now ? pal->now_text : pal->grad_text;
  const Rgb *border = now ? NULL : &pal->grad_border;

  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    {
      /* The leaf's .grad, under its AccumulateGrad. */
      const CrGraphNode *acc = cr_graph_model_find_accumulate (c->model, step->leaf);
      const CrGraphBox *b = node_box (c, acc);
      if (!b || !step->grad_after)
        return;
      g_autofree char *value = cr_record_value_brief (step->grad_after, BRIEF_VALUES);
      g_autofree char *text = g_strdup_printf (".grad %s", value);
      g_autofree char *shape_only = shape_of (text);
      /* Under it, else beside it, else over it. */
      const Spot spots[] = {
        { b->x + b->width / 2, b->y + b->height + 1.5 * c->k, 0.5, 0.0 },
        { b->x - 3 * c->k, b->y + b->height / 2, 1.0, 0.5 },
        { b->x + b->width + 3 * c->k, b->y + b->height / 2, 0.0, 0.5 },
        /* Past a done check on its corner. */
        { b->x + b->width + 6 * c->k, b->y + b->height + 1.5 * c->k, 0.0, 0.0 },
        { b->x + b->width / 2, b->y - 1.5 * c->k, 0.5, 1.0 },
      };
      Badge badge = {
        .text = text, .short_text = shape_only ? shape_only : value, .mono = TRUE, .spots = spots,
        .n_spots = G_N_ELEMENTS (spots), .ax = b->x + b->width / 2, .ay = b->y + b->height,
        .node = -1, .placing = now ? PLACE_FAR : PLACE_OPTIONAL,
        .fill = fill, .ink = ink, .border = border,
      };
      pill (cr, c, &badge);
      return;
    }
  for (guint i = 0; step->inputs && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      /* A leaf's gradient shows as its .grad once AccumulateGrad wrote it;
       * an earlier step's large gradient (a shape and a range) would only
       * crowd the graph. */
      if (!in->outgoing.value || (in->to_leaf >= 0 && leaf_written (c, in->to_leaf)))
        continue;
      if (!now && in->outgoing.value->numel > BRIEF_VALUES)
        continue;
      guint edge = cr_graph_model_find_step_input_edge (c->model, (int) step->index, i);
      if (edge == G_MAXUINT || edge >= c->layout->n_edges)
        continue;
      const CrGraphPath *path = &c->layout->edges[edge];
      if (path->n_points < 4)
        continue;
      g_autofree char *text = cr_record_value_brief (in->outgoing.value, BRIEF_VALUES);
      /* Two edges between the same nodes (y = x * x) run side by side:
       * one says their gradient when it is the same. */
      const CrGraphEdge *e = g_ptr_array_index (c->model->edges, edge);
      char *pair = g_strdup_printf ("%u>%u %s", e->from, e->to, text);
      if (!g_hash_table_add (c->pairs, pair))
        continue;
      /* Under the edge's shape label (the layout keeps room around it),
       * else above it, else above or under the edge further along. Top to
       * bottom, ranks are close and edges mostly upright: beside the label
       * first, then beside the edge. */
      static const double along[] = { 0.3, 0.7, 0.15, 0.85, 0.5 };
      Spot spots[4 + 4 * G_N_ELEMENTS (along)];
      guint n = 0;
      gboolean down = c->layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
      double lb[4] = { 0 };
      gboolean labelled = label_box (c, edge, lb);
      double lx = (lb[0] + lb[2]) / 2, ly = (lb[1] + lb[3]) / 2, gap = 2 * c->k;
      if (labelled && down)
        {
          /* Beside the label and the name before it. */
          const double *name = c->labels + CR_GRAPH_BADGES_LABEL_BOX * edge + 4;
          double left = name[2] > name[0] ? MIN (name[0], lb[0]) : lb[0];
          spots[n++] = (Spot) { lb[2] + gap, ly, 0.0, 0.5 };
          spots[n++] = (Spot) { left - gap, ly, 1.0, 0.5 };
        }
      if (labelled)
        {
          spots[n++] = (Spot) { lx, lb[3] + gap, 0.5, 0.0 };
          spots[n++] = (Spot) { lx, lb[1] - gap, 0.5, 1.0 };
        }
      for (guint a = 0; a < G_N_ELEMENTS (along); a++)
        {
          double x, y;
          path_point (path, along[a], &x, &y);
          if (down)
            {
              spots[n++] = (Spot) { x + 4 * c->k, y, 0.0, 0.5 };
              spots[n++] = (Spot) { x - 4 * c->k, y, 1.0, 0.5 };
            }
          spots[n++] = (Spot) { x, y - 3 * c->k, 0.5, 1.0 };
          spots[n++] = (Spot) { x, y + 3 * c->k, 0.5, 0.0 };
        }
      double mx, my;
      path_point (path, 0.5, &mx, &my);
      g_autofree char *shape_only = shape_of (text);
      /* What the current step's node received (its incoming gradient, on
       * the card) shows even where its ring leaves no room by the edge. */
      const CrGraphNode *from = g_ptr_array_index (c->model->nodes, e->from);
      gboolean incoming = c->options->current_step >= 0 && from->step == c->options->current_step;
      Badge badge = {
        .text = text, .short_text = shape_only, .mono = TRUE, .spots = spots, .n_spots = n,
        .ax = labelled ? lx : mx, .ay = labelled ? ly : my, .node = -1,
        .placing = now || incoming ? PLACE_FAR : PLACE_OPTIONAL, .fill = fill, .ink = ink, .border = border,
      };
      pill (cr, c, &badge);
    }
}

/* ---- hooks ------------------------------------------------------------------ */

static void
draw_step_hooks (cairo_t            *cr,
                 Ctx                *c,
                 const CrRecordStep *step,
                 gboolean            now)
{
  if (!step->hooks || step->hooks->len == 0)
    return;
  const CrGraphNode *node = cr_graph_model_find_step (c->model, (int) step->index);
  const CrGraphBox *b = node_box (c, node);
  if (!b)
    return;
  GString *text = g_string_new (NULL);
  for (guint i = 0; i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      if (text->len)
        g_string_append (text, " · ");
      if (h->kind == CR_RECORD_HOOK_RETAIN_GRAD)
        g_string_append (text, "retain_grad");
      else
        g_string_append_printf (text, "hook %s", h->function ? h->function : "");
    }
  /* On the node's top-left edge: the top-right is the done check's. */
  const Spot spots[] = {
    { b->x + 6 * c->k, b->y + 1 * c->k, 0.0, 1.0 },
    { b->x + 6 * c->k, b->y + b->height - 1 * c->k, 0.0, 0.0 },
  };
  g_autofree char *short_text = step->hooks->len > 1
                                ? g_strdup_printf ("%u hooks", step->hooks->len) : g_strdup ("hook");
  Badge badge = {
    .text = text->str, .short_text = short_text, .spots = spots, .n_spots = G_N_ELEMENTS (spots),
    .ax = b->x + 6 * c->k, .ay = b->y, .node = (int) node->id,
    .placing = now ? PLACE_FAR : PLACE_SHORT,
    .fill = c->pal.hook_fill, .ink = c->pal.hook_text, .border = &c->pal.hook_text,
  };
  pill (cr, c, &badge);
  g_string_free (text, TRUE);
}

/* ---- errors ------------------------------------------------------------------ */

/* A ring of kind ('e': an error's, 'f': a finding's) drawn 2.5 lw wide on
 * the rounded rectangle x, y, w, h. */
static void
add_ring_item (const Ctx *c,
               int        kind,
               double     x,
               double     y,
               double     w,
               double     h,
               double     radius)
{
  const double ring[5] = { x, y, w, h, radius };
  guint64 d = cr_graph_digest_int (CR_GRAPH_DIGEST_INIT, kind);
  d = cr_graph_digest_bytes (d, ring, sizeof ring);
  cr_graph_items_add (c->options->items, x, y, x + w, y + h, 2 * c->lw + 1, d);
}

static void
ring (cairo_t          *cr,
      const Ctx        *c,
      const CrGraphBox *b,
      double            radius)
{
  double gap = 5 * c->k;
  double x = b->x - gap, y = b->y - gap, w = b->width + 2 * gap, h = b->height + 2 * gap;
  if (c->options->items)
    {
      add_ring_item (c, 'e', x, y, w, h, radius + gap);
      return;
    }
  cr_graph_rounded_path (cr, x, y, w, h, radius + gap);
  set_rgb (cr, c->pal.error_ring);
  cairo_set_line_width (cr, 2.5 * c->lw);
  double dash[] = { 6 * c->k, 3 * c->k };
  cairo_set_dash (cr, dash, 2, 0);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

static void
draw_errors (cairo_t   *cr,
             Ctx       *c)
{
  const CrRunRecord *record = c->model->record;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (record->errors, i);
      if (e->backward >= 0 && e->backward != c->model->backward)
        continue;
      const CrGraphNode *node = e->op >= 0 ? cr_graph_model_find_op (c->model, e->op)
                                           : cr_graph_model_find_tensor (c->model, e->tensor);
      /* A forward error's other operands (fc.weight beside the input of a
       * Linear that failed) are ringed too; the tag stays on the one at fault. */
      for (guint k = 0; e->op < 0 && k < e->operands->len; k++)
        {
          const CrGraphNode *other = cr_graph_model_find_tensor (c->model,
                                                                 g_array_index (e->operands, int, k));
          const CrGraphBox *ob = other != node ? node_box (c, other) : NULL;
          if (ob)
            ring (cr, c, ob, CR_GRAPH_NODE_KIND_IS_TENSOR (other->kind) ? 9 * c->k : ob->height / 2);
        }
      const CrGraphBox *b = node_box (c, node);
      if (!b)
        continue;
      gboolean tensor = CR_GRAPH_NODE_KIND_IS_TENSOR (node->kind);
      ring (cr, c, b, tensor ? 9 * c->k : b->height / 2);
      g_autofree char *text = g_strdup_printf ("✕ %s", e->type ? e->type : "error");
      const Spot spots[] = {
        { b->x + b->width / 2, b->y - 6 * c->k, 0.5, 1.0 },
        { b->x + b->width / 2, b->y + b->height + 6 * c->k, 0.5, 0.0 },
      };
      Badge badge = {
        .text = text, .short_text = "✕", .spots = spots, .n_spots = G_N_ELEMENTS (spots),
        .ax = b->x + b->width / 2, .ay = b->y - 5 * c->k, .node = -1,
        .placing = PLACE_FAR,
        .fill = c->pal.error_fill, .ink = c->pal.error_text, .border = &c->pal.error_ring,
      };
      pill (cr, c, &badge);
    }
}

/* ---- the coach's findings --------------------------------------------------- */

/* The node a finding is about: its op, else its tensor, else the
 * AccumulateGrad of that tensor; NULL when the graph does not show it. */
static const CrGraphNode *
finding_node (const CrGraphModel     *model,
              const CrRecordFinding  *f)
{
  const CrGraphNode *node = f->op >= 0 ? cr_graph_model_find_op (model, f->op) : NULL;
  if (!node && f->tensor >= 0)
    node = cr_graph_model_find_tensor (model, f->tensor);
  if (!node && f->tensor >= 0)
    node = cr_graph_model_find_accumulate (model, f->tensor);
  return node;
}

/* For gradients that add up: the tensor's .grad before this backward call
 * and after it, "⚠ .grad adds up: -10.96 → -18.25"; NULL when it held
 * nothing before (the first call). */
static char *
growing_grad_text (const CrGraphModel    *model,
                   const CrRecordFinding *f)
{
  const CrRecordBackward *bw = cr_graph_model_get_backward (model);
  if (!bw || f->tensor < 0)
    return NULL;
  const CrTensorSnapshot *before = cr_run_record_grad_at (model->record, f->tensor, model->backward, -1);
  const CrTensorSnapshot *after = cr_run_record_grad_at (model->record, f->tensor, model->backward,
                                                         (int) bw->steps->len - 1);
  if (!before || !after)
    return NULL;
  g_autofree char *b = cr_record_value_brief (before, BRIEF_VALUES);
  g_autofree char *a = cr_record_value_brief (after, BRIEF_VALUES);
  return g_strdup_printf ("⚠ .grad adds up: %s → %s", b, a);
}

/* Each finding's node ringed in amber, wider than an error's ring, with
 * the mistake in a few words: what the coach bar explains, on the graph.
 * A graph of a backward call before the one the mistake showed in is
 * left unmarked. */
static void
draw_findings (cairo_t   *cr,
               Ctx       *c)
{
  const CrRunRecord *record = c->model->record;
  for (guint i = 0; record->findings && i < record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      if (f->backward >= 0 && c->model->backward >= 0 && c->model->backward < f->backward)
        continue;
      const CrGraphNode *node = finding_node (c->model, f);
      const CrGraphBox *b = node_box (c, node);
      if (!b)
        continue;
      gboolean tensor = CR_GRAPH_NODE_KIND_IS_TENSOR (node->kind);
      double gap = 9 * c->k;
      double radius = tensor ? 9 * c->k : b->height / 2;
      if (c->options->items)
        add_ring_item (c, 'f', b->x - gap, b->y - gap, b->width + 2 * gap, b->height + 2 * gap,
                       radius + gap);
      else
        {
          cr_graph_rounded_path (cr, b->x - gap, b->y - gap, b->width + 2 * gap, b->height + 2 * gap,
                                 radius + gap);
          set_rgb (cr, c->pal.coach_ring);
          cairo_set_line_width (cr, 2.5 * c->lw);
          cairo_stroke (cr);
        }
      g_autofree char *grows = g_strcmp0 (f->kind, "zero-grad-forgotten") == 0
                               ? growing_grad_text (c->model, f) : NULL;
      g_autofree char *text = grows ? g_strdup (grows)
                                    : g_strdup_printf ("⚠ line %d: %s", f->span.line,
                                                       cr_coach_short_title (f->kind));
      g_autofree char *short_text = g_strdup_printf ("⚠ line %d", f->span.line);
      const Spot spots[] = {
        { b->x + b->width / 2, b->y + b->height + gap + 3 * c->k, 0.5, 0.0 },
        { b->x + b->width / 2, b->y - gap - 3 * c->k, 0.5, 1.0 },
      };
      Badge badge = {
        .text = text, .short_text = short_text, .spots = spots, .n_spots = G_N_ELEMENTS (spots),
        .ax = b->x + b->width / 2, .ay = b->y + b->height + gap, .node = -1,
        .placing = PLACE_FAR,
        .fill = c->pal.coach_fill, .ink = c->pal.coach_text, .border = &c->pal.coach_ring,
      };
      pill (cr, c, &badge);
    }
}

/* The ops whose saved tensor an in-place statement changed; one hidden in
 * a closed module call marks the call's node (the first such op's line). */
static void
draw_modified (cairo_t   *cr,
               Ctx       *c)
{
  const CrRunRecord *record = c->model->record;
  g_autoptr (GHashTable) marked = NULL;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      int line = 0;
      for (guint s = 0; s < op->saved->len && line <= 0; s++)
        line = ((const CrRecordSaved *) g_ptr_array_index (op->saved, s))->modified_span.line;
      if (line <= 0)
        continue;
      const CrGraphNode *n = cr_graph_model_find_op (c->model, (int) i);
      const CrGraphBox *b = node_box (c, n);
      if (!b)
        continue;
      if (!marked)
        marked = g_hash_table_new (g_direct_hash, g_direct_equal);
      if (!g_hash_table_add (marked, GUINT_TO_POINTER (n->id)))
        continue;
      g_autofree char *text = g_strdup_printf ("modified in place · line %d", line);
      g_autofree char *short_text = g_strdup_printf ("modified · line %d", line);
      /* Under the node, clear of an error's ring around it, else over it. */
      const Spot spots[] = {
        { b->x + b->width / 2, b->y + b->height + 7 * c->k, 0.5, 0.0 },
        { b->x + b->width / 2, b->y - 7 * c->k, 0.5, 1.0 },
      };
      Badge badge = {
        .text = text, .short_text = short_text, .spots = spots, .n_spots = G_N_ELEMENTS (spots),
        .ax = b->x + b->width / 2, .ay = b->y + b->height + 5 * c->k, .node = -1,
        .placing = PLACE_FAR,
        .fill = c->pal.error_fill, .ink = c->pal.error_text, .border = &c->pal.error_ring,
      };
      pill (cr, c, &badge);
    }
}

/* ---- freed saved tensors ------------------------------------------------------ */

/* "freed" on each op whose saved tensors are gone as of the current step:
 * on the bottom-right of its outline, else another corner; where there
 * is no room its dashed outline says it alone. Big graphs: the outline
 * only. */
static void
draw_freed (cairo_t *cr,
            Ctx     *c)
{
  if (c->model->nodes->len > CR_GRAPH_BADGES_MAX_NODES)
    return;
  for (guint i = 0; i < c->model->nodes->len && i < c->layout->n_nodes; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (c->model->nodes, i);
      if (n->kind != CR_GRAPH_NODE_OP
          || !cr_graph_render_badges_op_freed (c->model, n, c->options->current_step))
        continue;
      const CrGraphBox *b = &c->layout->nodes[i];
      double r = b->height / 2 * 0.4;
      const Spot spots[] = {
        { b->x + b->width - r, b->y + b->height, 1.0, 0.3 },
        { b->x + r, b->y + b->height, 0.0, 0.3 },
        { b->x + r, b->y, 0.0, 0.7 },
        { b->x + b->width - r - 10 * c->k, b->y, 1.0, 0.7 },
      };
      Badge badge = {
        .text = "freed", .spots = spots, .n_spots = G_N_ELEMENTS (spots),
        .node = (int) n->id, .placing = PLACE_OPTIONAL,
        .fill = c->pal.freed_fill, .ink = c->pal.freed_text, .border = &c->pal.freed_text,
      };
      pill (cr, c, &badge);
    }
}

/* ---- the titles on the graph's boxes ---------------------------------------- */

/* Around a title, what keeps a pill from touching its letters. */
#define TITLE_MARGIN     CR_GRAPH_TITLE_MARGIN

/* cr_graph_badges_title_boxes (), only the titles of boxes that reach into
 * clip (x0, y0, x1, y1; NULL: all): a frame of a big graph measures only
 * the titles it shows. */
static GArray *
title_boxes_in (const CrGraphModel  *model,
                const CrGraphLayout *layout,
                double               k,
                const double        *clip)
{
  GArray *titles = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  g_autoptr (GArray) placed = cr_graph_titles_place (model, layout, k, clip);
  for (guint i = 0; i < placed->len; i++)
    {
      const CrGraphTitle *p = &g_array_index (placed, CrGraphTitle, i);
      const CrGraphBox *b = &layout->clusters[i];
      if (p->width <= 0)
        continue;
      double m = TITLE_MARGIN * k;
      CrGraphBadgeBox t = {
        .x0 = p->x - m,
        .y0 = p->y - m,
        .x1 = MIN (p->x + p->width + m, b->x + b->width),
        .y1 = p->y + p->height + m,
        .node = -1,
      };
      g_array_append_val (titles, t);
    }
  if (model->record && model->record->regions && model->record->regions->len > 0)
    {
      g_autoptr (GArray) regions = cr_graph_regions_boxes (model, layout, k);
      for (guint i = 0; i < regions->len; i++)
        {
          const CrGraphRegionBox *r = &g_array_index (regions, CrGraphRegionBox, i);
          CrGraphBadgeBox t = { r->title_x, r->title_y, r->title_x + r->title_width,
                                r->title_y + r->title_height, -1 };
          g_array_append_val (titles, t);
        }
    }
  return titles;
}

GArray *
cr_graph_badges_title_boxes (const CrGraphModel  *model,
                             const CrGraphLayout *layout,
                             double               k)
{
  g_return_val_if_fail (model != NULL && layout != NULL, NULL);
  return title_boxes_in (model, layout, k, NULL);
}

/* ---- what the badges keep clear of ---------------------------------------- */

/* The nodes, the done checks of the nodes whose step has run, the group
 * and region boxes' titles, the labels. */
static void
add_obstacles (Ctx *c)
{
  double k = c->k;
  int current = c->options->current_step;
  guint n_nodes = MIN (c->model->nodes->len, c->layout->n_nodes);
  for (guint i = 0; i < n_nodes; i++)
    {
      const CrGraphBox *b = &c->layout->nodes[i];
      const CrGraphNode *n = g_ptr_array_index (c->model->nodes, i);
      /* The current step's node wears cr-graph-render.c's ring, 4 points
       * out and 3 lines wide: a badge on it reads as the node's own. */
      double ring = current >= 0 && n->step == current ? 4 * k + 1.5 * c->lw : 0;
      add_obstacle (c, b->x - ring, b->y - ring, b->x + b->width + ring, b->y + b->height + ring, (int) i);
      /* cr-graph-render.c's check: a disc of 6.5 on the top-right corner. */
      if (current >= 0 && n->step >= 0 && n->step < current)
        {
          double cx = b->x + b->width - 2 * k, cy = b->y + 2 * k, r = 6.5 * k;
          add_obstacle (c, cx - r, cy - r, cx + r, cy + r, -1);
        }
    }
  /* The titles of open groups' and grad-mode regions' boxes. */
  g_autoptr (GArray) titles = title_boxes_in (c->model, c->layout, k, c->options->clip);
  for (guint i = 0; i < titles->len; i++)
    {
      const CrGraphBadgeBox *t = &g_array_index (titles, CrGraphBadgeBox, i);
      add_obstacle (c, t->x0, t->y0, t->x1, t->y1, -1);
    }
  for (guint i = 0; c->labels && i < c->layout->n_edges; i++)
    {
      const double *b = c->labels + CR_GRAPH_BADGES_LABEL_BOX * i;
      if (b[2] > b[0])
        add_obstacle (c, b[0], b[1], b[2], b[3], -1);
      if (b[6] > b[4])
        add_obstacle (c, b[4], b[5], b[6], b[7], -1);
    }
}

/* A label's text size without a cache: about 0.6 em a character. */
static double *
estimate_label_sizes (const CrGraphModel  *model,
                      const CrGraphLayout *layout,
                      double               k)
{
  double size = CR_GRAPH_LAYOUT_LABEL_SIZE * k;
  guint n = MIN (model->edges->len, layout->n_edges);
  double *sizes = g_new0 (double, 4 * layout->n_edges + 4);
  for (guint i = 0; i < n; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->label)
        {
          sizes[4 * i] = g_utf8_strlen (e->label, -1) * 0.6 * size;
          sizes[4 * i + 1] = 1.25 * size;
        }
      if (e->tensor_name)
        {
          sizes[4 * i + 2] = g_utf8_strlen (e->tensor_name, -1) * 0.62 * size;
          sizes[4 * i + 3] = 1.25 * size;
        }
    }
  return sizes;
}

/* A uniform grid of buckets over the drawing, each holding the rects that
 * touch it, so that a label is tested against its neighbours only: the
 * placement costs about (nodes + labels), not their product. A rect that
 * reaches past the drawing goes into the border's buckets (the indices are
 * clamped, which keeps every overlap found). */
typedef struct {
  double  cell;
  int     nx, ny;
  GArray **buckets;             /* nx * ny, each of Rect or NULL while empty */
} RectGrid;

#define RECT_GRID_MAX_SIDE 1024

static void
rect_grid_init (RectGrid *grid,
                double    width,
                double    height,
                guint     n_rects)
{
  width = MAX (width, 1.0), height = MAX (height, 1.0);
  /* About one rect a bucket. */
  grid->cell = MAX (sqrt (width * height / MAX (n_rects, 1u)), 1.0);
  grid->nx = (int) CLAMP (ceil (width / grid->cell), 1, RECT_GRID_MAX_SIDE);
  grid->ny = (int) CLAMP (ceil (height / grid->cell), 1, RECT_GRID_MAX_SIDE);
  grid->buckets = g_new0 (GArray *, (gsize) grid->nx * grid->ny);
}

static void
rect_grid_clear (RectGrid *grid)
{
  for (int i = 0; i < grid->nx * grid->ny; i++)
    if (grid->buckets[i])
      g_array_unref (grid->buckets[i]);
  g_free (grid->buckets);
}

/* The bucket index of coordinate v, clamped to 0..n - 1 (NaN: 0). */
static int
rect_grid_index (const RectGrid *grid,
                 double          v,
                 int             n)
{
  double t = v / grid->cell;
  if (!(t >= 0))
    return 0;
  return t >= n ? n - 1 : (int) t;
}

static void
rect_grid_add (RectGrid   *grid,
               const Rect *r)
{
  int i0 = rect_grid_index (grid, r->x0, grid->nx), i1 = rect_grid_index (grid, r->x1, grid->nx);
  int j0 = rect_grid_index (grid, r->y0, grid->ny), j1 = rect_grid_index (grid, r->y1, grid->ny);
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++)
      {
        GArray **bucket = &grid->buckets[j * grid->nx + i];
        if (!*bucket)
          *bucket = g_array_new (FALSE, FALSE, sizeof (Rect));
        g_array_append_val (*bucket, *r);
      }
}

/* Whether r overlaps any rect in the grid. */
static gboolean
rect_grid_hits (const RectGrid *grid,
                const Rect     *r)
{
  int i0 = rect_grid_index (grid, r->x0, grid->nx), i1 = rect_grid_index (grid, r->x1, grid->nx);
  int j0 = rect_grid_index (grid, r->y0, grid->ny), j1 = rect_grid_index (grid, r->y1, grid->ny);
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++)
      {
        const GArray *bucket = grid->buckets[j * grid->nx + i];
        for (guint n = 0; bucket && n < bucket->len; n++)
          {
            const Rect *o = &g_array_index (bucket, Rect, n);
            if (intersects (o, r->x0, r->y0, r->x1, r->y1))
              return TRUE;
          }
      }
  return FALSE;
}

double *
cr_graph_badges_label_boxes (const CrGraphLayout *layout,
                             const double        *label_sizes,
                             double               k)
{
  return cr_graph_badges_label_boxes_clear_of (layout, label_sizes, k, NULL);
}

/* Where along its edge (0: its start, 1: its end) a label that the layout
 * put on a node, a title or another label goes instead, nearest the middle
 * first; then beside the edge, on either side, at these places along it. */
static const double label_along[] = { 0.4, 0.6, 0.3, 0.7, 0.2, 0.8 };
static const double label_beside[] = { 0.5, 0.4, 0.6, 0.3, 0.7 };
/* Between the edge and a label beside it, in points at type scale 1. */
#define LABEL_BESIDE_GAP 2.5

gboolean
cr_graph_badges_label_spot (const CrGraphLayout *layout,
                            guint                edge,
                            const double        *size,
                            double               k,
                            guint                index,
                            double              *box)
{
  g_return_val_if_fail (layout != NULL && edge < layout->n_edges && size != NULL && box != NULL, FALSE);
  const CrGraphPath *p = &layout->edges[edge];
  gboolean down = layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  double w = size[0] + 8 * k, h = size[1] + 2 * k;
  double cx = p->label_x, cy = p->label_y;
  /* Beside: which way from the edge (0: on it). */
  double side_x = 0, side_y = 0;
  guint n_along = G_N_ELEMENTS (label_along), n_beside = 2 * G_N_ELEMENTS (label_beside);
  if (index > 0 && p->n_points < 4)
    return FALSE;
  if (index == 0)
    {
      /* Put beside its edge by the layout (presentation's tight ranks):
       * its name goes on the side away from the edge too. */
      if (down && p->has_arrow && cx - w / 2 > p->arrow_x)
        side_x = 1;
    }
  else if (index <= n_along)
    path_point (p, label_along[index - 1], &cx, &cy);
  else if (index <= n_along + (layout->n_clusters > 0 ? 3 : 2) * n_beside)
    {
      /* Beside it, then (past a group's title over the edge) a label's
       * width further out, then, with groups, two (presentation's narrow
       * pills leave a group's box, and so its title, about as wide as the
       * op in it). */
      guint far = (index - 1 - n_along) / n_beside;
      guint j = (index - 1 - n_along) % n_beside;
      double u = label_beside[j / 2], px, py, ax, ay, bx, by;
      path_point (p, u, &px, &py);
      path_point (p, u - 0.02, &ax, &ay);
      path_point (p, u + 0.02, &bx, &by);
      double tx = bx - ax, ty = by - ay, len = hypot (tx, ty);
      if (len < 1e-9)
        tx = down ? 0 : 1, ty = down ? 1 : 0, len = 1;
      /* The normal, on one side then the other; far enough that the pill
       * (seen along the normal) clears the stroke. */
      double nx = -ty / len, ny = tx / len;
      if (j % 2)
        nx = -nx, ny = -ny;
      double d = fabs (nx) * w / 2 + fabs (ny) * h / 2 + LABEL_BESIDE_GAP * k + far * w;
      cx = px + nx * d;
      cy = py + ny * d;
      side_x = nx, side_y = ny;
      /* Two widths out, only inside the drawing: a spot past its edge is
       * given as the whole drawing, which its nodes make no place. */
      if (far == 2 && (cx - w / 2 < 0 || cy - h / 2 < 0 || cx + w / 2 > layout->width
                       || cy + h / 2 > layout->height))
        {
          memset (box, 0, sizeof (double) * CR_GRAPH_BADGES_LABEL_BOX);
          box[2] = layout->width, box[3] = layout->height;
          return TRUE;
        }
    }
  else
    return FALSE;
  memset (box, 0, sizeof (double) * CR_GRAPH_BADGES_LABEL_BOX);
  box[0] = cx - w / 2, box[1] = cy - h / 2, box[2] = cx + w / 2, box[3] = cy + h / 2;
  if (size[2] <= 0)
    return TRUE;
  /* The name: over its shape ("b" over "3×3"); top to bottom, where ranks
   * are too close for two lines, before it ("b 3×3"). Beside the edge, on
   * the side away from it. */
  if (down && side_x > 0.5)
    box[4] = box[2] + 2 * k, box[5] = cy - size[3] / 2, box[6] = box[2] + 2 * k + size[2],
    box[7] = cy + size[3] / 2;
  else if (down)
    box[4] = box[0] - 2 * k - size[2], box[5] = cy - size[3] / 2, box[6] = box[0] - 2 * k,
    box[7] = cy + size[3] / 2;
  else if (side_y > 0.5)
    box[4] = cx - size[2] / 2, box[5] = box[3] + 0.5 * k, box[6] = cx + size[2] / 2,
    box[7] = box[3] + 0.5 * k + size[3];
  else
    box[4] = cx - size[2] / 2, box[5] = box[1] - 0.5 * k - size[3], box[6] = cx + size[2] / 2,
    box[7] = box[1] - 0.5 * k;
  return TRUE;
}

/* The box around path's arrowhead as cr-graph-render.c draws it (8 by 8
 * points, times the type's scale up to 1.3). FALSE: it has none. */
gboolean
cr_graph_badges_arrowhead_box (const CrGraphPath *path,
                               double             k,
                               double            *box)
{
  if (!path->has_arrow || path->n_points < 1)
    return FALSE;
  double ex = path->points[2 * (path->n_points - 1)], ey = path->points[2 * (path->n_points - 1) + 1];
  double dx = path->arrow_x - ex, dy = path->arrow_y - ey, len = hypot (dx, dy);
  if (len < 0.01)
    return FALSE;
  double a = 8 * MIN (k, 1.3), hw = 4 * MIN (k, 1.3);
  dx /= len;
  dy /= len;
  double bx = path->arrow_x - dx * a, by = path->arrow_y - dy * a;
  double xs[3] = { path->arrow_x, bx - dy * hw, bx + dy * hw };
  double ys[3] = { path->arrow_y, by + dx * hw, by - dx * hw };
  box[0] = MIN (xs[0], MIN (xs[1], xs[2]));
  box[1] = MIN (ys[0], MIN (ys[1], ys[2]));
  box[2] = MAX (xs[0], MAX (xs[1], xs[2]));
  box[3] = MAX (ys[0], MAX (ys[1], ys[2]));
  return TRUE;
}

static gboolean
arrowhead_box (const CrGraphPath *path,
               double             k,
               Rect              *r)
{
  double b[4];
  if (!cr_graph_badges_arrowhead_box (path, k, b))
    return FALSE;
  *r = (Rect) { b[0], b[1], b[2], b[3], -1 };
  return TRUE;
}

double *
cr_graph_badges_label_boxes_clear_of (const CrGraphLayout *layout,
                                      const double        *label_sizes,
                                      double               k,
                                      const GArray        *titles)
{
  g_return_val_if_fail (layout != NULL && (label_sizes != NULL || layout->n_edges == 0), NULL);
  guint n = layout->n_edges;
  double *boxes = g_new0 (double, CR_GRAPH_BADGES_LABEL_BOX * n + 1);
  /* The nodes, the titles and the labels kept so far, to test each next
   * one against. */
  RectGrid grid, arrows;
  rect_grid_init (&grid, layout->width, layout->height,
                  layout->n_nodes + n + (titles ? titles->len : 0));
  rect_grid_init (&arrows, layout->width, layout->height, n);
  for (guint j = 0; j < layout->n_nodes; j++)
    {
      const CrGraphBox *nb = &layout->nodes[j];
      Rect r = { nb->x, nb->y, nb->x + nb->width, nb->y + nb->height, (int) j };
      rect_grid_add (&grid, &r);
    }
  for (guint j = 0; titles && j < titles->len; j++)
    {
      const CrGraphBadgeBox *t = &g_array_index (titles, CrGraphBadgeBox, j);
      Rect r = { t->x0, t->y0, t->x1, t->y1, -1 };
      rect_grid_add (&grid, &r);
    }
  /* An arrowhead says which way the gradient goes back: no label hides it
   * (presentation's ranks are closer than a label and an arrow are tall:
   * the label goes beside its edge there), unless there is no other
   * place for the label. */
  for (guint i = 0; i < n; i++)
    {
      Rect r;
      if (arrowhead_box (&layout->edges[i], k, &r))
        rect_grid_add (&arrows, &r);
    }
  for (guint i = 0; i < n; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      const double *size = label_sizes + 4 * i;
      if (!p->has_label || size[0] <= 0)
        continue;
      /* The first clear place for the label and its name; failing that,
       * for the label alone; failing that, over an arrowhead. */
      double spot[CR_GRAPH_BADGES_LABEL_BOX];
      gboolean found = FALSE;
      for (int over_arrows = 0; over_arrows <= 1 && !found; over_arrows++)
        for (int with_name = size[2] > 0; with_name >= 0 && !found; with_name--)
          for (guint s = 0; !found && cr_graph_badges_label_spot (layout, i, size, k, s, spot); s++)
            {
              Rect pill = { spot[0], spot[1], spot[2], spot[3], -1 };
              Rect name = { spot[4], spot[5], spot[6], spot[7], -1 };
              found = !rect_grid_hits (&grid, &pill) && (over_arrows || !rect_grid_hits (&arrows, &pill))
                      && (!with_name || (!rect_grid_hits (&grid, &name)
                                         && (over_arrows || !rect_grid_hits (&arrows, &name))));
              if (found && !with_name)
                spot[4] = spot[5] = spot[6] = spot[7] = 0;
            }
      if (!found)
        continue;
      double *b = boxes + CR_GRAPH_BADGES_LABEL_BOX * i;
      memcpy (b, spot, sizeof spot);
      Rect pill = { b[0], b[1], b[2], b[3], -1 };
      rect_grid_add (&grid, &pill);
      if (b[6] > b[4])
        {
          Rect name = { b[4], b[5], b[6], b[7], -1 };
          rect_grid_add (&grid, &name);
        }
    }
  rect_grid_clear (&grid);
  rect_grid_clear (&arrows);
  return boxes;
}

/* ---- the entry points ------------------------------------------------------- */

static const CrRecordBackward *
model_backward (const CrGraphModel *model)
{
  if (!model->record || model->backward < 0
      || (guint) model->backward >= model->record->backwards->len)
    return NULL;
  return g_ptr_array_index (model->record->backwards, model->backward);
}

void
cr_graph_render_badges (cairo_t                   *cr,
                        const CrGraphModel        *model,
                        const CrGraphLayout       *layout,
                        const CrGraphBadgeOptions *options)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL && options != NULL);
  Ctx c = {
    .model = model,
    .layout = layout,
    .options = options,
    .pal = palette (options->dark),
    .k = options->k > 0 ? options->k : 1.0,
    .lw = options->lw > 0 ? options->lw : 1.0,
    .obstacles = g_array_new (FALSE, FALSE, sizeof (Rect)),
    .pairs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
  };
  g_autofree double *own_labels = NULL;
  c.labels = options->label_boxes;
  if (!c.labels)
    {
      g_autofree double *sizes = estimate_label_sizes (model, layout, c.k);
      g_autoptr (GArray) titles = cr_graph_badges_title_boxes (model, layout, c.k);
      c.labels = own_labels = cr_graph_badges_label_boxes_clear_of (layout, sizes, c.k, titles);
    }
  add_obstacles (&c);
  cairo_save (cr);

  /* What matters most is placed first and gets the best places: errors,
   * the current step's hooks and gradients; then the earlier steps' values
   * where there is room (big graphs: none); then "freed". */
  if (model->record)
    {
      draw_errors (cr, &c);
      draw_findings (cr, &c);
      draw_modified (cr, &c);
    }
  const CrRecordBackward *bw = model_backward (model);
  int current = options->current_step;
  if (bw && current >= 0 && (guint) current < bw->steps->len)
    {
      const CrRecordStep *now = g_ptr_array_index (bw->steps, current);
      draw_step_hooks (cr, &c, now, TRUE);
      draw_step_gradients (cr, &c, now, TRUE);
    }
  if (bw && current >= 0)
    {
      int last = model->nodes->len > CR_GRAPH_BADGES_MAX_NODES ? -1 : current - 1;
      for (int s = 0; s <= last && (guint) s < bw->steps->len; s++)
        {
          const CrRecordStep *step = g_ptr_array_index (bw->steps, s);
          draw_step_hooks (cr, &c, step, FALSE);
          draw_step_gradients (cr, &c, step, FALSE);
        }
    }
  draw_freed (cr, &c);
  cairo_restore (cr);
  g_array_unref (c.obstacles);
  g_hash_table_unref (c.pairs);
}

gboolean
cr_graph_render_badges_op_freed (const CrGraphModel *model,
                                 const CrGraphNode  *node,
                                 int                 current_step)
{
  g_return_val_if_fail (model != NULL && node != NULL, FALSE);
  const CrRunRecord *record = model->record;
  if (!record || node->op < 0 || (guint) node->op >= record->ops->len)
    return node->freed && (node->step < 0 || node->step < current_step);
  const CrRecordOp *op = g_ptr_array_index (record->ops, node->op);
  gboolean freed = FALSE;
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op->saved, s);
      if (saved->modified_span.line > 0)
        return FALSE;
      freed |= model->backward >= 0
               && cr_run_record_saved_freed_at (record, node->op, s, model->backward, current_step);
    }
  return freed;
}
