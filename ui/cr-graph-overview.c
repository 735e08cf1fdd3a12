/* cr-graph-overview.c — the minimap: the canvas's graph in miniature.
 *
 * Every node is a small block in its kind's colour (a closed group the
 * box it is, titled where there is room), every edge (up to a few
 * thousand) a faint straight line; this miniature is drawn once per layout,
 * size and style into a render node. Each frame only adds the outline of
 * what the canvas shows and the current step's mark. The overview follows
 * the canvas through its frame clock: after each painted frame it compares
 * the canvas's view with the one it drew and redraws when they differ, so
 * the canvas needs no signal for every pan. */
#include "cr-config.h"
#include "cr-graph-overview.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-groups.h"

#include <adwaita.h>
#include <math.h>

/* The largest the overview gets, in pixels; the graph's shape decides. */
#define MAX_W      168.0
#define MAX_H      104.0
#define MIN_SIDE   40.0
#define PAD        6.0
#define RADIUS     8.0
/* Past this many edges the miniature leaves them out: a haze, not a help. */
#define MAX_EDGES  6000
/* Over the node the person follows, the overview lets it read through. */
#define FADED_OPACITY 0.3

struct _CrGraphOverview
{
  GtkWidget       parent_instance;

  /* Borrowed (a weak pointer) */
  CrGraphCanvas  *canvas;
  GdkFrameClock  *clock;
  gulong          after_paint_id;
  gulong          realize_id, unrealize_id;

  /* What the last frame showed. */
  const CrGraphLayout *seen_layout;
  double          seen_zoom, seen_tx, seen_ty;
  int             seen_w, seen_h, seen_step;
  gboolean        seen_presentation;

  /* Owned: the miniature, and what it was drawn for. */
  GskRenderNode  *mini;
  const CrGraphLayout *mini_layout;
  int             mini_w, mini_h;
  gboolean        mini_dark, mini_cairo;

  gboolean        dragging;
  double          drag_x, drag_y;
};

G_DEFINE_FINAL_TYPE (CrGraphOverview, cr_graph_overview, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CANVAS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const CrGraphLayout *
canvas_layout (CrGraphOverview *self)
{
  return self->canvas ? self->canvas->layout : NULL;
}

/* The miniature's scale and origin in a w × h overview. */
static gboolean
mapping (CrGraphOverview *self,
         double           w,
         double           h,
         double          *scale,
         double          *ox,
         double          *oy)
{
  const CrGraphLayout *layout = canvas_layout (self);
  if (!layout || layout->width <= 0 || layout->height <= 0 || w <= 2 * PAD || h <= 2 * PAD)
    return FALSE;
  *scale = MIN ((w - 2 * PAD) / layout->width, (h - 2 * PAD) / layout->height);
  *ox = (w - *scale * layout->width) / 2;
  *oy = (h - *scale * layout->height) / 2;
  return TRUE;
}

gboolean
cr_graph_overview_to_graph (CrGraphOverview *self,
                            double           x,
                            double           y,
                            double          *gx,
                            double          *gy)
{
  g_return_val_if_fail (CR_IS_GRAPH_OVERVIEW (self), FALSE);
  double s, ox, oy;
  if (!mapping (self, gtk_widget_get_width (GTK_WIDGET (self)),
                gtk_widget_get_height (GTK_WIDGET (self)), &s, &ox, &oy))
    return FALSE;
  *gx = (x - ox) / s;
  *gy = (y - oy) / s;
  return TRUE;
}

/* ---- following the canvas ------------------------------------------------ */

/* The canvas shows only part of its graph (some of it lies outside). */
static gboolean
canvas_shows_part (CrGraphCanvas *canvas)
{
  const CrGraphLayout *layout = canvas->layout;
  int w = gtk_widget_get_width (GTK_WIDGET (canvas)), h = gtk_widget_get_height (GTK_WIDGET (canvas));
  if (!layout || w <= 1 || h <= 1)
    return FALSE;
  /* The layout's own padding may stick out harmlessly. */
  double slack = 10.0 * canvas->zoom + 2;
  return canvas->tx < -slack || canvas->ty < -slack
         || canvas->tx + canvas->zoom * layout->width > w + slack
         || canvas->ty + canvas->zoom * layout->height > h + slack;
}

/* The node the view follows: the backward step's, else the forward op
 * computing (*forward TRUE), else NULL. */
static const CrGraphNode *
followed_node (CrGraphCanvas *c,
               gboolean      *forward)
{
  *forward = FALSE;
  if (!c->model)
    return NULL;
  if (c->step >= 0)
    return cr_graph_model_find_step (c->model, c->step);
  int op = cr_graph_canvas_get_forward_op (c);
  *forward = op >= 0;
  return op >= 0 ? cr_graph_model_find_op (c->model, op) : NULL;
}

/* Whether the node the person follows (the current step's, else the
 * selected one) is drawn under the overview, which floats over the
 * canvas's top corner: the overview fades then, so that the node reads
 * through it. */
static gboolean
covers_followed_node (CrGraphOverview *self)
{
  CrGraphCanvas *c = self->canvas;
  gboolean forward;
  const CrGraphNode *n = followed_node (c, &forward);
  int id = n ? (int) n->id : c->selected;
  graphene_rect_t bounds;
  if (id < 0 || !c->layout || (guint) id >= c->layout->n_nodes
      || !gtk_widget_compute_bounds (GTK_WIDGET (self), GTK_WIDGET (c), &bounds))
    return FALSE;
  const CrGraphBox *b = &c->layout->nodes[id];
  graphene_rect_t node = GRAPHENE_RECT_INIT (c->tx + c->zoom * b->x, c->ty + c->zoom * b->y,
                                             c->zoom * b->width, c->zoom * b->height);
  return graphene_rect_intersection (&bounds, &node, NULL);
}

/* How much the overview would hide in the corner at halign, valign,
 * margin pixels in from the edges: each node of the canvas (as drawn now)
 * it covers counts 1, the step's node and its neighbours (what the step
 * card talks about) many times more. */
static guint
cover_cost (CrGraphOverview *self,
            const gboolean  *followed,
            GtkAlign         halign,
            GtkAlign         valign,
            double           margin)
{
  CrGraphCanvas *c = self->canvas;
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  double cw = gtk_widget_get_width (GTK_WIDGET (c)), ch = gtk_widget_get_height (GTK_WIDGET (c));
  double x = halign == GTK_ALIGN_START ? margin : cw - margin - w;
  double y = valign == GTK_ALIGN_START ? margin : ch - margin - h;
  graphene_rect_t r = GRAPHENE_RECT_INIT (x, y, w, h);
  guint cost = 0;
  for (guint i = 0; i < c->layout->n_nodes; i++)
    {
      const CrGraphBox *b = &c->layout->nodes[i];
      graphene_rect_t node = GRAPHENE_RECT_INIT (c->tx + c->zoom * b->x, c->ty + c->zoom * b->y,
                                                 c->zoom * b->width, c->zoom * b->height);
      if (b->width > 0 && graphene_rect_intersection (&r, &node, NULL))
        cost += followed[i] ? 1000 : 1;
    }
  return cost;
}

/* Whether another control floating over the canvas (the window's module
 * depth, top right) takes the corner at halign, valign. */
static gboolean
corner_taken (CrGraphOverview *self,
              GtkAlign         halign,
              GtkAlign         valign,
              double           margin)
{
  CrGraphCanvas *c = self->canvas;
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  double cw = gtk_widget_get_width (GTK_WIDGET (c)), ch = gtk_widget_get_height (GTK_WIDGET (c));
  graphene_rect_t r = GRAPHENE_RECT_INIT (halign == GTK_ALIGN_START ? margin : cw - margin - w,
                                          valign == GTK_ALIGN_START ? margin : ch - margin - h, w, h);
  for (GtkWidget *child = parent ? gtk_widget_get_first_child (parent) : NULL; child;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t bounds;
      if (child == GTK_WIDGET (self) || child == GTK_WIDGET (c) || !gtk_widget_get_visible (child)
          || !gtk_widget_get_can_target (child)
          || !gtk_widget_compute_bounds (child, GTK_WIDGET (c), &bounds)
          || bounds.size.width <= 0 || bounds.size.height <= 0)
        continue;
      if (graphene_rect_intersection (&r, &bounds, NULL))
        return TRUE;
    }
  return FALSE;
}

/* The overview goes to the corner where it hides the least (the top left
 * first, then the one it is in), so that the graph reads, not the map over
 * it: the node the person follows (the step's and its neighbours, else
 * the selected one) above all, then any node. In the window a corner
 * another control takes is not one, and it stays put while dragged. */
static void
choose_corner (CrGraphOverview *self)
{
  static const GtkAlign corners[][2] = {
    { GTK_ALIGN_START, GTK_ALIGN_START }, { GTK_ALIGN_END, GTK_ALIGN_START },
    { GTK_ALIGN_START, GTK_ALIGN_END }, { GTK_ALIGN_END, GTK_ALIGN_END },
  };
  GtkWidget *widget = GTK_WIDGET (self);
  CrGraphCanvas *c = self->canvas;
  double margin = MAX (gtk_widget_get_margin_top (widget), gtk_widget_get_margin_start (widget));
  GtkAlign h = GTK_ALIGN_START, v = GTK_ALIGN_START;
  if (self->dragging)
    return;
  if (c->layout && c->model)
    {
      g_autofree gboolean *followed = g_new0 (gboolean, c->layout->n_nodes + 1);
      gboolean forward;
      const CrGraphNode *step = followed_node (c, &forward);
      if (step && step->id < c->layout->n_nodes)
        {
          followed[step->id] = TRUE;
          g_autoptr (GArray) near = cr_graph_canvas_step_neighbours (c, step->id, forward);
          for (guint i = 0; i < near->len; i++)
            followed[g_array_index (near, guint, i)] = TRUE;
        }
      else if (c->selected >= 0 && (guint) c->selected < c->layout->n_nodes)
        followed[c->selected] = TRUE;
      GtkAlign now_h = gtk_widget_get_halign (widget), now_v = gtk_widget_get_valign (widget);
      guint least = G_MAXUINT;
      for (guint i = 0; i < G_N_ELEMENTS (corners) && least > 0; i++)
        {
          if (!c->presentation && corner_taken (self, corners[i][0], corners[i][1], margin))
            continue;
          guint cost = cover_cost (self, followed, corners[i][0], corners[i][1], margin);
          /* Where it is now, unless another corner hides less. */
          if (cost < least || (cost == least && corners[i][0] == now_h && corners[i][1] == now_v))
            {
              least = cost;
              h = corners[i][0];
              v = corners[i][1];
            }
        }
    }
  if (gtk_widget_get_halign (widget) == h && gtk_widget_get_valign (widget) == v)
    return;
  gtk_widget_set_halign (widget, h);
  gtk_widget_set_valign (widget, v);
  gtk_widget_set_margin_end (widget, (int) margin);
  gtk_widget_set_margin_bottom (widget, (int) margin);
  /* The overlay places it: its own allocation is not enough. */
  gtk_widget_queue_resize (widget);
}

static void
on_after_paint (GdkFrameClock   *clock,
                CrGraphOverview *self)
{
  CrGraphCanvas *c = self->canvas;
  if (!c)
    return;
  /* In presentation too, where a graph too big for 20 px type follows
   * the steps: the overview shows where the step is. */
  gboolean show = canvas_shows_part (c);
  if (show != gtk_widget_get_visible (GTK_WIDGET (self)))
    gtk_widget_set_visible (GTK_WIDGET (self), show);
  if (!show)
    return;
  choose_corner (self);
  double opacity = covers_followed_node (self) ? FADED_OPACITY : 1.0;
  if (gtk_widget_get_opacity (GTK_WIDGET (self)) != opacity)
    gtk_widget_set_opacity (GTK_WIDGET (self), opacity);
  int w = gtk_widget_get_width (GTK_WIDGET (c)), h = gtk_widget_get_height (GTK_WIDGET (c));
  if (c->layout != self->seen_layout)
    gtk_widget_queue_resize (GTK_WIDGET (self));
  if (c->layout != self->seen_layout || c->zoom != self->seen_zoom || c->tx != self->seen_tx
      || c->ty != self->seen_ty || w != self->seen_w || h != self->seen_h
      || c->step != self->seen_step || c->presentation != self->seen_presentation)
    {
      self->seen_layout = c->layout;
      self->seen_zoom = c->zoom;
      self->seen_tx = c->tx;
      self->seen_ty = c->ty;
      self->seen_w = w;
      self->seen_h = h;
      self->seen_step = c->step;
      self->seen_presentation = c->presentation;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
disconnect_clock (CrGraphOverview *self)
{
  if (self->clock && self->after_paint_id)
    g_signal_handler_disconnect (self->clock, self->after_paint_id);
  self->after_paint_id = 0;
  g_clear_object (&self->clock);
}

/* The canvas's frame clock: the overview, hidden at first, has none of its
 * own until it shows. */
static void
connect_clock (CrGraphOverview *self)
{
  disconnect_clock (self);
  GdkFrameClock *clock = self->canvas ? gtk_widget_get_frame_clock (GTK_WIDGET (self->canvas)) : NULL;
  if (!clock)
    return;
  self->clock = g_object_ref (clock);
  self->after_paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), self);
}

static void
on_canvas_realize (GtkWidget       *canvas,
                   CrGraphOverview *self)
{
  connect_clock (self);
}

static void
on_canvas_unrealize (GtkWidget       *canvas,
                     CrGraphOverview *self)
{
  disconnect_clock (self);
}

static void
forget_canvas (CrGraphOverview *self)
{
  disconnect_clock (self);
  if (self->canvas)
    {
      g_clear_signal_handler (&self->realize_id, self->canvas);
      g_clear_signal_handler (&self->unrealize_id, self->canvas);
      g_object_remove_weak_pointer (G_OBJECT (self->canvas), (gpointer *) &self->canvas);
      self->canvas = NULL;
    }
  g_clear_pointer (&self->mini, gsk_render_node_unref);
  self->seen_layout = self->mini_layout = NULL;
}

CrGraphCanvas *
cr_graph_overview_get_canvas (CrGraphOverview *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_OVERVIEW (self), NULL);
  return self->canvas;
}

void
cr_graph_overview_set_canvas (CrGraphOverview *self,
                              CrGraphCanvas   *canvas)
{
  g_return_if_fail (CR_IS_GRAPH_OVERVIEW (self));
  g_return_if_fail (canvas == NULL || CR_IS_GRAPH_CANVAS (canvas));
  if (canvas == self->canvas)
    return;
  forget_canvas (self);
  self->canvas = canvas;
  if (canvas)
    {
      g_object_add_weak_pointer (G_OBJECT (canvas), (gpointer *) &self->canvas);
      self->realize_id = g_signal_connect (canvas, "realize", G_CALLBACK (on_canvas_realize), self);
      self->unrealize_id = g_signal_connect (canvas, "unrealize", G_CALLBACK (on_canvas_unrealize), self);
      connect_clock (self);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CANVAS]);
}

/* ---- drawing ------------------------------------------------------------- */

void
cr_graph_overview_kind_color (CrGraphNodeKind kind,
                              gboolean        dark,
                              GdkRGBA        *c)
{
  const char *spec;
  switch (kind)
    {
    case CR_GRAPH_NODE_LEAF:       spec = dark ? "#62a0ea" : "#1c71d8"; break;
    case CR_GRAPH_NODE_OP:         spec = dark ? "#c061cb" : "#813d9c"; break;
    case CR_GRAPH_NODE_ACCUMULATE: spec = dark ? "#57e389" : "#26a269"; break;
    case CR_GRAPH_NODE_OUTPUT:     spec = dark ? "#ffa348" : "#e66100"; break;
    default:                       spec = dark ? "#9a9996" : "#9a9996"; break;
    }
  gdk_rgba_parse (c, spec);
}

static GskRenderNode *
build_mini (CrGraphOverview *self,
            int              w,
            int              h,
            gboolean         dark,
            gboolean         as_cairo)
{
  double s, ox, oy;
  const CrGraphLayout *layout = canvas_layout (self);
  const CrGraphModel *model = self->canvas ? self->canvas->model : NULL;
  if (!model || !mapping (self, w, h, &s, &ox, &oy))
    return NULL;
  /* An image, painted once, placed by the node that each renderer draws
   * fastest (as the canvas's tiles): a texture for GL, which keeps it on
   * the GPU; for GSK's Cairo renderer, which converts a texture's pixels at
   * every frame (GTK 4.8), a Cairo node that only paints the image. */
  int scale = MAX (gtk_widget_get_scale_factor (GTK_WIDGET (self)), 1);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w * scale, h * scale);
  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  cairo_translate (cr, ox, oy);
  /* The open module calls, faintly, under the rest. */
  cr_graph_draw_cluster_marks (cr, model, layout, s, dark);
  if (layout->n_edges <= MAX_EDGES)
    {
      cairo_set_line_width (cr, 1.0);
      cairo_set_source_rgba (cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0, 0.22);
      for (guint i = 0; i < layout->n_edges; i++)
        {
          const CrGraphPath *p = &layout->edges[i];
          if (p->n_points < 4)
            continue;
          cairo_move_to (cr, s * p->points[0], s * p->points[1]);
          double ex = p->has_arrow ? p->arrow_x : p->points[2 * (p->n_points - 1)];
          double ey = p->has_arrow ? p->arrow_y : p->points[2 * (p->n_points - 1) + 1];
          cairo_line_to (cr, s * ex, s * ey);
        }
      cairo_stroke (cr);
    }
  for (guint i = 0; i < layout->n_nodes && i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      const CrGraphBox *b = &layout->nodes[i];
      if (n->kind == CR_GRAPH_NODE_GROUP)
        {
          /* A closed group: the box it is, titled where there is room. */
          cr_graph_draw_group_mark (cr, n, b, s, dark);
          continue;
        }
      GdkRGBA c;
      cr_graph_overview_kind_color (n->kind, dark, &c);
      gdk_cairo_set_source_rgba (cr, &c);
      /* At least a pixel, so that a 5,000-node graph still shows each. */
      cairo_rectangle (cr, s * b->x, s * b->y, MAX (s * b->width, 1.0), MAX (s * b->height, 1.0));
      cairo_fill (cr);
    }
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  if (as_cairo)
    {
      GskRenderNode *node = gsk_cairo_node_new (&GRAPHENE_RECT_INIT (0, 0, w, h));
      cr = gsk_cairo_node_get_draw_context (node);
      cairo_scale (cr, 1.0 / scale, 1.0 / scale);
      cairo_set_source_surface (cr, surface, 0, 0);
      cairo_paint (cr);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
      return node;
    }
  int stride = cairo_image_surface_get_stride (surface);
  GBytes *bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                              (gsize) stride * h * scale,
                                              (GDestroyNotify) cairo_surface_destroy, surface);
  GdkTexture *texture = gdk_memory_texture_new (w * scale, h * scale, GDK_MEMORY_DEFAULT, bytes, stride);
  GskRenderNode *node = gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_object_unref (texture);
  g_bytes_unref (bytes);
  return node;
}

static void
cr_graph_overview_snapshot (GtkWidget   *widget,
                            GtkSnapshot *snapshot)
{
  CrGraphOverview *self = CR_GRAPH_OVERVIEW (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  CrGraphCanvas *c = self->canvas;
  double s, ox, oy;
  if (!c || w <= 0 || h <= 0 || !mapping (self, w, h, &s, &ox, &oy))
    return;
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  /* A card: the view's background, a hairline border. */
  GdkRGBA bg, fg, accent;
  GtkStyleContext *style = gtk_widget_get_style_context (widget);
  if (!gtk_style_context_lookup_color (style, "view_bg_color", &bg))
    gdk_rgba_parse (&bg, dark ? "#1e1e1e" : "#ffffff");
  if (!gtk_style_context_lookup_color (style, "view_fg_color", &fg))
    gdk_rgba_parse (&fg, dark ? "#ffffff" : "#000000");
  if (!gtk_style_context_lookup_color (style, "accent_color", &accent))
    gdk_rgba_parse (&accent, dark ? "#78aeed" : "#1c71d8");
  bg.alpha = 0.94;
  GskRoundedRect card;
  gsk_rounded_rect_init_from_rect (&card, &GRAPHENE_RECT_INIT (0, 0, w, h), RADIUS);
  gtk_snapshot_push_rounded_clip (snapshot, &card);
  gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, 0, w, h));

  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native ? gtk_native_get_renderer (native) : NULL;
  gboolean as_cairo = renderer && GSK_IS_CAIRO_RENDERER (renderer);
  if (!self->mini || self->mini_layout != c->layout || self->mini_w != w || self->mini_h != h
      || self->mini_dark != dark || self->mini_cairo != as_cairo)
    {
      g_clear_pointer (&self->mini, gsk_render_node_unref);
      self->mini = build_mini (self, w, h, dark, as_cairo);
      self->mini_layout = c->layout;
      self->mini_w = w;
      self->mini_h = h;
      self->mini_dark = dark;
      self->mini_cairo = as_cairo;
    }
  if (self->mini)
    gtk_snapshot_append_node (snapshot, self->mini);

  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  /* The current step's node: a ring, found at any size. */
  const CrGraphNode *step = c->model && c->step >= 0 ? cr_graph_model_find_step (c->model, c->step) : NULL;
  if (step && step->id < c->layout->n_nodes)
    {
      const CrGraphBox *b = &c->layout->nodes[step->id];
      double cx = ox + s * (b->x + b->width / 2), cy = oy + s * (b->y + b->height / 2);
      cairo_arc (cr, cx, cy, 4.0, 0, 2 * G_PI);
      gdk_cairo_set_source_rgba (cr, &accent);
      cairo_set_line_width (cr, 2.0);
      cairo_stroke (cr);
    }
  /* What the canvas shows. */
  int cw = gtk_widget_get_width (GTK_WIDGET (c)), ch = gtk_widget_get_height (GTK_WIDGET (c));
  double x0 = ox + s * (-c->tx / c->zoom), y0 = oy + s * (-c->ty / c->zoom);
  double x1 = ox + s * ((cw - c->tx) / c->zoom), y1 = oy + s * ((ch - c->ty) / c->zoom);
  x0 = CLAMP (x0, 1, w - 1);
  x1 = CLAMP (x1, 1, w - 1);
  y0 = CLAMP (y0, 1, h - 1);
  y1 = CLAMP (y1, 1, h - 1);
  cairo_rectangle (cr, x0, y0, MAX (x1 - x0, 2), MAX (y1 - y0, 2));
  cairo_set_source_rgba (cr, accent.red, accent.green, accent.blue, 0.14);
  cairo_fill_preserve (cr);
  gdk_cairo_set_source_rgba (cr, &accent);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  cairo_destroy (cr);
  gtk_snapshot_pop (snapshot);

  fg.alpha = 0.15;
  float widths[4] = { 1, 1, 1, 1 };
  GdkRGBA colors[4] = { fg, fg, fg, fg };
  gtk_snapshot_append_border (snapshot, &card, widths, colors);
}

static void
cr_graph_overview_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  CrGraphOverview *self = CR_GRAPH_OVERVIEW (widget);
  const CrGraphLayout *layout = canvas_layout (self);
  double w = MAX_W, h = MAX_H;
  if (layout && layout->width > 0 && layout->height > 0)
    {
      /* The graph's shape, within MAX_W × MAX_H, no side under MIN_SIDE. */
      double s = MIN ((MAX_W - 2 * PAD) / layout->width, (MAX_H - 2 * PAD) / layout->height);
      w = CLAMP (s * layout->width + 2 * PAD, MIN_SIDE, MAX_W);
      h = CLAMP (s * layout->height + 2 * PAD, MIN_SIDE, MAX_H);
    }
  *minimum = *natural = (int) ceil (orientation == GTK_ORIENTATION_HORIZONTAL ? w : h);
}

/* ---- input --------------------------------------------------------------- */

/* Centres the canvas's view on the graph point under (x, y). */
static void
move_canvas_to (CrGraphOverview *self,
                double           x,
                double           y)
{
  CrGraphCanvas *c = self->canvas;
  double gx, gy;
  if (!c || !cr_graph_overview_to_graph (self, x, y, &gx, &gy))
    return;
  double cw = gtk_widget_get_width (GTK_WIDGET (c)), ch = gtk_widget_get_height (GTK_WIDGET (c));
  cr_graph_canvas_move_to (c, cw / 2 - c->zoom * gx, ch / 2 - c->zoom * gy);
}

static void
on_drag_begin (GtkGestureDrag  *gesture,
               double           x,
               double           y,
               CrGraphOverview *self)
{
  self->dragging = TRUE;
  self->drag_x = x;
  self->drag_y = y;
  move_canvas_to (self, x, y);
}

static void
on_drag_update (GtkGestureDrag  *gesture,
                double           dx,
                double           dy,
                CrGraphOverview *self)
{
  move_canvas_to (self, self->drag_x + dx, self->drag_y + dy);
}

static void
on_drag_end (GtkGestureDrag  *gesture,
             double           dx,
             double           dy,
             CrGraphOverview *self)
{
  self->dragging = FALSE;
}

/* ---- GObject ------------------------------------------------------------- */

static void
cr_graph_overview_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  CrGraphOverview *self = CR_GRAPH_OVERVIEW (object);
  switch (prop_id)
    {
    case PROP_CANVAS:
      g_value_set_object (value, self->canvas);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_graph_overview_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  CrGraphOverview *self = CR_GRAPH_OVERVIEW (object);
  switch (prop_id)
    {
    case PROP_CANVAS:
      cr_graph_overview_set_canvas (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_graph_overview_dispose (GObject *object)
{
  forget_canvas (CR_GRAPH_OVERVIEW (object));
  G_OBJECT_CLASS (cr_graph_overview_parent_class)->dispose (object);
}

static void
cr_graph_overview_class_init (CrGraphOverviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_graph_overview_dispose;
  object_class->get_property = cr_graph_overview_get_property;
  object_class->set_property = cr_graph_overview_set_property;
  widget_class->snapshot = cr_graph_overview_snapshot;
  widget_class->measure = cr_graph_overview_measure;

  properties[PROP_CANVAS] =
    g_param_spec_object ("canvas", NULL, NULL, CR_TYPE_GRAPH_CANVAS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "cr-graph-overview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cr_graph_overview_init (CrGraphOverview *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  self->seen_step = -2;
  gtk_widget_set_visible (widget, FALSE);
  gtk_widget_set_cursor_from_name (widget, "pointer");
  gtk_widget_set_tooltip_text (widget, "Overview: click or drag to move the view");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Graph overview", -1);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));
}

GtkWidget *
cr_graph_overview_new (CrGraphCanvas *canvas)
{
  return g_object_new (CR_TYPE_GRAPH_OVERVIEW, "canvas", canvas, NULL);
}
