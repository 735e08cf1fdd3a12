/* cr-graph-render-badges.c — the record's state at the current step, drawn
 * over the graph: gradients sent so far, leaves' .grad, hooks, errors. */
#include "cr-graph-render-badges.h"

#include "cr-record-text.h"

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
    }
  else
    {
      p.grad_fill = hex (0xe6f6ec); p.grad_text = hex (0x1b6b43); p.grad_border = hex (0x2ec27e);
      p.now_fill = hex (0x26a269); p.now_text = hex (0xffffff);
      p.hook_fill = hex (0xfdf0c2); p.hook_text = hex (0x7a5200);
      p.error_fill = hex (0xfbe3e1); p.error_text = hex (0xa51d2d); p.error_ring = hex (0xe01b24);
    }
  return p;
}

static void
set_rgb (cairo_t *cr,
         Rgb      c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

typedef struct {
  const CrGraphModel        *model;
  const CrGraphLayout       *layout;
  const CrGraphBadgeOptions *options;
  Palette                    pal;
  double                     k, lw;
  GArray                    *placed;   /* of Rect: the badges drawn so far */
} Ctx;

typedef struct { double x0, y0, x1, y1; } Rect;

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

/* How much of a and b overlap (0: not at all). */
static double
overlap (const Rect *a,
         const Rect *b)
{
  double w = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  double h = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  return w > 0 && h > 0 ? w * h : 0;
}

/* How much of r would cover nodes (other than `except`), edge labels and
 * badges drawn before: 0 where it is free. */
static double
crowding (const Ctx  *c,
          const Rect *r,
          int         except)
{
  double covered = 0;
  for (guint i = 0; i < c->placed->len; i++)
    covered += overlap (r, &g_array_index (c->placed, Rect, i));
  if (c->model->nodes->len > CR_GRAPH_BADGES_MAX_NODES)
    return covered;
  for (guint i = 0; i < c->layout->n_nodes; i++)
    {
      const CrGraphBox *b = &c->layout->nodes[i];
      Rect nr = { b->x, b->y, b->x + b->width, b->y + b->height };
      if ((int) i != except)
        covered += overlap (r, &nr);
    }
  /* Edge labels, with room above them for the tensor's name ("b" over
   * "3×3"); their exact size is the render cache's, this is near enough. */
  double k = c->k;
  for (guint i = 0; i < c->layout->n_edges; i++)
    {
      const CrGraphPath *p = &c->layout->edges[i];
      if (!p->has_label)
        continue;
      Rect lr = { p->label_x - 16 * k, p->label_y - 18 * k, p->label_x + 16 * k,
                  p->label_y + 5.5 * k };
      covered += overlap (r, &lr);
    }
  return covered;
}

/* A pill of text at the first of spots where it covers no node (but
 * `except`), edge label or other badge; when all are crowded, where it
 * covers least if it must be shown (an error, the current step), else not
 * at all. */
static void
pill (cairo_t    *cr,
      Ctx        *c,
      const char *text,
      gboolean    mono,
      const Spot *spots,
      guint       n_spots,
      int         except,
      gboolean    must,
      Rgb         fill,
      Rgb         ink,
      const Rgb  *border)
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
  double tw = (double) pw / PANGO_SCALE, th = (double) ph / PANGO_SCALE;
  double w = tw + 8 * k, h = th + 2 * k;
  Rect r = { 0 };
  double least = G_MAXDOUBLE;
  for (guint i = 0; i < n_spots && least > 0; i++)
    {
      Rect t = { spots[i].x - w * spots[i].ax, spots[i].y - h * spots[i].ay };
      t.x1 = t.x0 + w;
      t.y1 = t.y0 + h;
      double covered = crowding (c, &t, except);
      if (covered < least)
        {
          least = covered;
          r = t;
        }
    }
  gboolean found = least <= 0;
  if (!found && !must)
    {
      g_object_unref (layout);
      return;
    }
  g_array_append_val (c->placed, r);
  if (c->options->drawn)
    g_ptr_array_add (c->options->drawn, g_strdup (text));
  if (in_clip (c, r.x0, r.y0, r.x1, r.y1))
    {
      pill_path (cr, r.x0, r.y0, w, h);
      set_rgb (cr, fill);
      if (border)
        {
          cairo_fill_preserve (cr);
          set_rgb (cr, *border);
          cairo_set_line_width (cr, 0.8 * c->lw);
          cairo_stroke (cr);
        }
      else
        cairo_fill (cr);
      set_rgb (cr, ink);
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
      /* Under it, else beside it. */
      const Spot spots[] = {
        { b->x + b->width / 2, b->y + b->height + 1.5 * c->k, 0.5, 0.0 },
        { b->x - 3 * c->k, b->y + b->height / 2, 1.0, 0.5 },
        { b->x + b->width / 2, b->y - 1.5 * c->k, 0.5, 1.0 },
      };
      pill (cr, c, text, TRUE, spots, G_N_ELEMENTS (spots), (int) acc->id, TRUE, fill, ink, border);
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
      /* Under the edge's shape label (the layout keeps room around it),
       * else above it, else above or under the edge further along. Top to
       * bottom, ranks are close and edges mostly upright: beside the label
       * first, then beside the edge. */
      static const double along[] = { 0.3, 0.7, 0.15, 0.85 };
      Spot spots[4 + 4 * G_N_ELEMENTS (along)];
      guint n = 0;
      gboolean down = c->layout->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
      if (path->has_label && down)
        {
          spots[n++] = (Spot) { path->label_x + 18 * c->k, path->label_y, 0.0, 0.5 };
          spots[n++] = (Spot) { path->label_x - 18 * c->k, path->label_y, 1.0, 0.5 };
        }
      if (path->has_label)
        {
          spots[n++] = (Spot) { path->label_x, path->label_y + 6 * c->k, 0.5, 0.0 };
          spots[n++] = (Spot) { path->label_x, path->label_y - 7 * c->k, 0.5, 1.0 };
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
      g_autofree char *text = cr_record_value_brief (in->outgoing.value, BRIEF_VALUES);
      pill (cr, c, text, TRUE, spots, n, -1, now, fill, ink, border);
    }
}

/* ---- hooks ------------------------------------------------------------------ */

static void
draw_step_hooks (cairo_t            *cr,
                 Ctx                *c,
                 const CrRecordStep *step)
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
  pill (cr, c, text->str, FALSE, spots, G_N_ELEMENTS (spots), (int) node->id, TRUE,
        c->pal.hook_fill, c->pal.hook_text, &c->pal.hook_text);
  g_string_free (text, TRUE);
}

/* ---- errors ------------------------------------------------------------------ */

static void
ring (cairo_t          *cr,
      const Ctx        *c,
      const CrGraphBox *b,
      double            radius)
{
  double gap = 5 * c->k;
  double x = b->x - gap, y = b->y - gap, w = b->width + 2 * gap, h = b->height + 2 * gap;
  double r = MIN (radius + gap, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
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
      pill (cr, c, text, FALSE, spots, G_N_ELEMENTS (spots), (int) node->id, TRUE,
            c->pal.error_fill, c->pal.error_text, &c->pal.error_ring);
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
      /* Under the node, clear of an error's ring around it. */
      const Spot spot = { b->x + b->width / 2, b->y + b->height + 7 * c->k, 0.5, 0.0 };
      pill (cr, c, text, FALSE, &spot, 1, (int) n->id, TRUE,
            c->pal.error_fill, c->pal.error_text, &c->pal.error_ring);
    }
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
  if (!model->record)
    return;
  Ctx c = {
    .model = model,
    .layout = layout,
    .options = options,
    .pal = palette (options->dark),
    .k = options->k > 0 ? options->k : 1.0,
    .lw = options->lw > 0 ? options->lw : 1.0,
    .placed = g_array_new (FALSE, FALSE, sizeof (Rect)),
  };
  cairo_save (cr);
  draw_modified (cr, &c);

  const CrRecordBackward *bw = model_backward (model);
  int current = options->current_step;
  if (bw && current >= 0)
    {
      /* The current step's labels first (they get the best places), then
       * the earlier steps' where there is room; big graphs: the current
       * step's alone. */
      if ((guint) current < bw->steps->len)
        {
          const CrRecordStep *now = g_ptr_array_index (bw->steps, current);
          draw_step_hooks (cr, &c, now);
          draw_step_gradients (cr, &c, now, TRUE);
        }
      int last = model->nodes->len > CR_GRAPH_BADGES_MAX_NODES ? -1 : current - 1;
      for (int s = 0; s <= last && (guint) s < bw->steps->len; s++)
        {
          const CrRecordStep *step = g_ptr_array_index (bw->steps, s);
          draw_step_hooks (cr, &c, step);
          draw_step_gradients (cr, &c, step, FALSE);
        }
    }
  draw_errors (cr, &c);
  cairo_restore (cr);
  g_array_unref (c.placed);
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
