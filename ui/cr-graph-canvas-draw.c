/* cr-graph-canvas-draw.c — how the graph canvas draws a frame.
 *
 * The graph at the current zoom is drawn once into a render node reaching
 * SCENE_MARGIN beyond the widget (with a faint dot grid that moves with it);
 * a frame while panning only translates that node, and the travelling
 * gradient of the current step is drawn over it on its own. The cache goes
 * when the zoom, step, selection, style or size changes, or the pan leaves
 * the margin. While nodes glide to a new layout, frames are drawn afresh. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <adwaita.h>
#include <math.h>

/* How far around the widget the cached drawing reaches, in pixels. */
#define SCENE_MARGIN  256.0

void
cr_graph_canvas_fill_render_options (CrGraphCanvas        *self,
                                     CrGraphRenderOptions *options)
{
  cr_graph_render_options_init (options);
  options->style = adw_style_manager_get_dark (adw_style_manager_get_default ())
                   ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  /* A step inside a closed group lights the group. */
  options->current_step = cr_graph_collapse_shown_step (self->collapse, self->step);
  options->collapse = self->collapse;
  options->selected = self->selected;
  options->presentation = self->presentation;
  options->cache = self->cache;
}

/* A faint dot grid that moves with the graph: panning feels like moving
 * paper, and the empty canvas reads as a surface. Covers x0..x1, y0..y1. */
static void
draw_grid (CrGraphCanvas *self,
           cairo_t       *cr,
           double         x0,
           double         y0,
           double         x1,
           double         y1,
           gboolean       dark)
{
  double step = 24.0 * self->zoom;
  while (step < 12.0)
    step *= 2;
  double ox = x0 + fmod (self->tx - x0, step), oy = y0 + fmod (self->ty - y0, step);
  if (ox < x0)
    ox += step;
  if (oy < y0)
    oy += step;
  cairo_set_source_rgba (cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0.2, dark ? 0.09 : 0.10);
  for (double y = oy; y < y1; y += step)
    for (double x = ox; x < x1; x += step)
      cairo_rectangle (cr, x - 0.75, y - 0.75, 1.5, 1.5);
  cairo_fill (cr);
}

/* The graph as drawn at the current zoom, covering the widget and
 * SCENE_MARGIN around it: while the person pans within that margin, a frame
 * only moves this render node. */
static GskRenderNode *
build_scene (CrGraphCanvas *self,
             int            width,
             int            height,
             gboolean       dark)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  double m = SCENE_MARGIN;
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (-m, -m, width + 2 * m,
                                                                          height + 2 * m));
  draw_grid (self, cr, -m, -m, width + m, height + m, dark);
  cairo_translate (cr, self->tx, self->ty);
  cairo_scale (cr, self->zoom, self->zoom);
  CrGraphRenderOptions options;
  cr_graph_canvas_fill_render_options (self, &options);
  /* The widget's own background (the .view style class) shows through. */
  options.draw_background = FALSE;
  cr_graph_render (cr, self->model, self->layout, &options);
  cairo_destroy (cr);
  return gtk_snapshot_free_to_node (snapshot);
}

void
cr_graph_canvas_clear_scene (CrGraphCanvas *self)
{
  g_clear_pointer (&self->scene, gsk_render_node_unref);
}

static gboolean
scene_valid (CrGraphCanvas *self,
             int            width,
             int            height,
             gboolean       dark)
{
  return self->scene && self->scene_zoom == self->zoom
         && self->scene_width == width && self->scene_height == height
         && self->scene_step == self->step && self->scene_selected == self->selected
         && self->scene_dark == dark
         && fabs (self->tx - self->scene_tx) <= SCENE_MARGIN
         && fabs (self->ty - self->scene_ty) <= SCENE_MARGIN;
}

/* Where the graph goes on beyond an edge of the widget, that edge fades
 * into the background: a hint that there is more to pan to. */
static void
draw_edge_fades (CrGraphCanvas *self,
                 GtkSnapshot   *snapshot,
                 int            width,
                 int            height)
{
  const double fade = 28.0;
  GdkRGBA bg;
  if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (GTK_WIDGET (self)),
                                       "view_bg_color", &bg))
    return;
  GdkRGBA clear = bg;
  clear.alpha = 0;
  double x0 = self->tx, y0 = self->ty;
  double x1 = x0 + self->zoom * self->layout->width, y1 = y0 + self->zoom * self->layout->height;
  /* The layout's own padding is empty: only real overflow counts. */
  double pad = 12.0 * self->zoom;
  GskColorStop stops[2] = { { 0, bg }, { 1, clear } };
  if (x0 < -pad)
    gtk_snapshot_append_linear_gradient (snapshot, &GRAPHENE_RECT_INIT (0, 0, fade, height),
                                         &GRAPHENE_POINT_INIT (0, 0),
                                         &GRAPHENE_POINT_INIT (fade, 0), stops, 2);
  if (x1 > width + pad)
    gtk_snapshot_append_linear_gradient (snapshot, &GRAPHENE_RECT_INIT (width - fade, 0, fade, height),
                                         &GRAPHENE_POINT_INIT (width, 0),
                                         &GRAPHENE_POINT_INIT (width - fade, 0), stops, 2);
  if (y0 < -pad)
    gtk_snapshot_append_linear_gradient (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, fade),
                                         &GRAPHENE_POINT_INIT (0, 0),
                                         &GRAPHENE_POINT_INIT (0, fade), stops, 2);
  if (y1 > height + pad)
    gtk_snapshot_append_linear_gradient (snapshot, &GRAPHENE_RECT_INIT (0, height - fade, width, fade),
                                         &GRAPHENE_POINT_INIT (0, height),
                                         &GRAPHENE_POINT_INIT (0, height - fade), stops, 2);
}

void
cr_graph_canvas_snapshot (GtkWidget   *widget,
                          GtkSnapshot *snapshot)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  if (width <= 0 || height <= 0)
    return;
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  if (self->model && self->layout)
    {
      if (self->dimmed)
        gtk_snapshot_push_opacity (snapshot, 0.4);
      CrGraphRenderOptions options;
      cr_graph_canvas_fill_render_options (self, &options);
      options.draw_background = FALSE;
      if (self->morphing)
        {
          /* Nodes on the move: every frame differs, draw it afresh. */
          cr_graph_canvas_clear_scene (self);
          cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
          draw_grid (self, cr, 0, 0, width, height, dark);
          cairo_translate (cr, self->tx, self->ty);
          cairo_scale (cr, self->zoom, self->zoom);
          options.pulse = self->pulsing ? self->pulse : -1;
          options.node_alpha = self->alpha;
          cr_graph_render (cr, self->model, cr_graph_canvas_drawn_layout (self), &options);
          cairo_destroy (cr);
        }
      else
        {
          if (!scene_valid (self, width, height, dark))
            {
              cr_graph_canvas_clear_scene (self);
              self->scene = build_scene (self, width, height, dark);
              self->scene_zoom = self->zoom;
              self->scene_tx = self->tx;
              self->scene_ty = self->ty;
              self->scene_width = width;
              self->scene_height = height;
              self->scene_step = self->step;
              self->scene_selected = self->selected;
              self->scene_dark = dark;
            }
          gtk_snapshot_save (snapshot);
          gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
          gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) (self->tx - self->scene_tx),
                                                                  (float) (self->ty - self->scene_ty)));
          gtk_snapshot_append_node (snapshot, self->scene);
          gtk_snapshot_pop (snapshot);
          gtk_snapshot_restore (snapshot);
          if (self->hovered >= 0 && self->hovered != self->selected)
            {
              cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
              cairo_translate (cr, self->tx, self->ty);
              cairo_scale (cr, self->zoom, self->zoom);
              cr_graph_render_hover (cr, self->model, self->layout, &options, self->hovered);
              cairo_destroy (cr);
            }
          if (self->pulsing && self->pulse >= 0)
            {
              cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
              cairo_translate (cr, self->tx, self->ty);
              cairo_scale (cr, self->zoom, self->zoom);
              options.pulse = self->pulse;
              cr_graph_render_pulse (cr, self->model, self->layout, &options);
              cairo_destroy (cr);
            }
        }
      if (self->dimmed)
        gtk_snapshot_pop (snapshot);
      draw_edge_fades (self, snapshot, width, height);
    }
  if (gtk_widget_has_visible_focus (widget) && !self->presentation)
    {
      /* The focus ring, only for keyboard focus, as libadwaita draws it;
       * not on a projected graph, where the keys only step. */
      GdkRGBA accent;
      if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (widget),
                                           "accent_color", &accent))
        gdk_rgba_parse (&accent, dark ? "#78aeed" : "#1c71d8");
      accent.alpha = 0.5;
      GskRoundedRect outline;
      gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT (1, 1, width - 2, height - 2), 0);
      float widths[4] = { 2, 2, 2, 2 };
      GdkRGBA colors[4] = { accent, accent, accent, accent };
      gtk_snapshot_append_border (snapshot, &outline, widths, colors);
    }
}
