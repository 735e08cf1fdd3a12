/* cr-graph-canvas-draw.c — how the graph canvas draws a frame.
 *
 * The graph at the current zoom is drawn in square tiles (with a faint dot
 * grid that moves with it; cr-graph-tiles.h), each painted once into an
 * image and placed by a render node kept with it: a frame while panning
 * only places tiles, and the tiles around the view are drawn ahead in idle
 * time, so a pan over a 5,000-node graph draws nothing new at most frames.
 * A zoom or a style paints them all again; a step, a selection, a lit
 * path, a forward step or a re-run only those where the drawing's items
 * differ (cr-graph-render-same.h), the rest stay. The
 * travelling gradient of the current step and the hover ring are drawn
 * over the tiles on their own. While nodes glide to a new layout, frames
 * are drawn afresh. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-items.h"
#include "cr-graph-overview.h"
#include "cr-graph-render-badges.h"
#include "cr-graph-render-same.h"

#include <adwaita.h>
#include <math.h>

/* A tile's side in pixels, and how many tiles are kept at most (32 MB at
 * scale 1). 256 px: a tile of the 5,000-node graph at 100 % paints in about
 * 2 ms, so the tiles painted ahead in idle time fit between frames and a
 * fast pan paints a new row of them in one frame (bench-graph). */
#define TILE       256
#define MAX_TILES  128
/* Zoomed out so far that the smallest type is under this many pixels, a
 * big graph is drawn in miniature (blocks and lines, no text): a whole
 * 5,000-node graph then draws in tens of milliseconds, not a second. */
#define MINIATURE_TYPE_PX  2.5
#define MINIATURE_NODES    300

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
  options->highlight = self->highlight;
  options->forward = self->forward_states;
  options->hide_step_gradients = self->hide_step_gradients;
}

void
cr_graph_canvas_set_hide_step_gradients (CrGraphCanvas *self,
                                         gboolean       hide)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  if (self->hide_step_gradients == !!hide)
    return;
  self->hide_step_gradients = !!hide;
  /* The tiles are keyed by step, not by this. */
  cr_graph_canvas_drawing_changed (self);
}

/* A faint dot grid that moves with the graph: panning feels like moving
 * paper, and the empty canvas reads as a surface. Covers x0..x1, y0..y1;
 * the graph's origin is at (ox, oy). */
static void
draw_grid (CrGraphCanvas *self,
           cairo_t       *cr,
           double         ox,
           double         oy,
           double         x0,
           double         y0,
           double         x1,
           double         y1,
           gboolean       dark)
{
  double step = 24.0 * self->zoom;
  while (step < 12.0)
    step *= 2;
  double sx = ox + ceil ((x0 - ox) / step) * step, sy = oy + ceil ((y0 - oy) / step) * step;
  cairo_set_source_rgba (cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0.2, dark ? 0.09 : 0.10);
  for (double y = sy; y < y1; y += step)
    for (double x = sx; x < x1; x += step)
      cairo_rectangle (cr, x - 0.75, y - 0.75, 1.5, 1.5);
  cairo_fill (cr);
}

/* Zoomed out so far that a big graph is drawn as blocks. */
static gboolean
in_miniature (CrGraphCanvas *self)
{
  return self->zoom * cr_graph_render_label_size () < MINIATURE_TYPE_PX
         && self->layout->n_nodes > MINIATURE_NODES;
}

/* The graph as blocks in its kinds' colours and straight lines, the
 * current step's node and the selection ringed; cr at the zoom already. */
static void
draw_miniature (CrGraphCanvas       *self,
                cairo_t             *cr,
                gboolean             dark,
                const CrGraphLayout *layout)
{
  const CrGraphModel *model = self->model;
  double clip[4];
  cairo_clip_extents (cr, &clip[0], &clip[1], &clip[2], &clip[3]);
  /* A line at least a pixel wide whatever the zoom. */
  double px = 1.0 / self->zoom;
  cairo_set_line_width (cr, px);
  cairo_set_source_rgba (cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0, 0.28);
  for (guint i = 0; i < layout->n_edges; i++)
    {
      const CrGraphPath *p = &layout->edges[i];
      if (p->n_points < 4)
        continue;
      double x0 = p->points[0], y0 = p->points[1];
      double x1 = p->has_arrow ? p->arrow_x : p->points[2 * (p->n_points - 1)];
      double y1 = p->has_arrow ? p->arrow_y : p->points[2 * (p->n_points - 1) + 1];
      if (MAX (x0, x1) < clip[0] || MIN (x0, x1) > clip[2] || MAX (y0, y1) < clip[1]
          || MIN (y0, y1) > clip[3])
        continue;
      cairo_move_to (cr, x0, y0);
      cairo_line_to (cr, x1, y1);
      cairo_stroke (cr);
    }
  const CrGraphNode *current = self->step >= 0 ? cr_graph_model_find_step (model, self->step) : NULL;
  for (guint i = 0; i < layout->n_nodes && i < model->nodes->len; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      if (b->x + b->width < clip[0] || b->x > clip[2] || b->y + b->height < clip[1] || b->y > clip[3])
        continue;
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      GdkRGBA c;
      cr_graph_overview_kind_color (n->kind, dark, &c);
      gdk_cairo_set_source_rgba (cr, &c);
      cairo_rectangle (cr, b->x, b->y, MAX (b->width, px), MAX (b->height, px));
      cairo_fill (cr);
      if (n == current || (int) i == self->selected)
        {
          double m = 3 * px;
          cairo_rectangle (cr, b->x - m, b->y - m, b->width + 2 * m, b->height + 2 * m);
          cairo_set_source_rgb (cr, n == current ? 0.96 : 0.21, n == current ? 0.47 : 0.52,
                                n == current ? 0.0 : 0.89);
          cairo_set_line_width (cr, 2 * px);
          cairo_stroke (cr);
          cairo_set_line_width (cr, px);
        }
    }
}

/* Where the edge labels go, placed once for every tile of the layout:
 * placing them looks at every node and label, too slow to repeat for each
 * tile of a 5,000-node graph. */
static const double *
label_boxes (CrGraphCanvas *self)
{
  if (!self->cache)
    return NULL;
  if (!self->label_boxes || self->label_boxes_for[0] != self->model
      || self->label_boxes_for[1] != self->layout || self->label_boxes_for[2] != self->cache)
    {
      g_free (self->label_boxes);
      self->label_boxes = cr_graph_render_label_boxes (self->cache, self->layout);
      self->label_boxes_for[0] = self->model;
      self->label_boxes_for[1] = self->layout;
      self->label_boxes_for[2] = self->cache;
    }
  return self->label_boxes;
}

/* The options a tile is painted with (as paint_tile draws). */
static void
tile_render_options (CrGraphCanvas        *self,
                     CrGraphRenderOptions *options)
{
  cr_graph_canvas_fill_render_options (self, options);
  /* The widget's own background (the .view style class) shows through. */
  options->draw_background = FALSE;
  options->label_boxes = label_boxes (self);
  /* Far out, the type too small to read is left out (and its time). */
  options->text_scale = self->zoom;
}

/* A tile's content: the dot grid and the graph (or its miniature), with
 * cr's origin at the graph's origin at the zoom (cr-graph-tiles.h). */
static void
paint_tile (cairo_t  *cr,
            double    x0,
            double    y0,
            double    side,
            gpointer  user_data)
{
  CrGraphCanvas *self = user_data;
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  draw_grid (self, cr, 0, 0, x0, y0, x0 + side, y0 + side, dark);
  cairo_scale (cr, self->zoom, self->zoom);
  if (in_miniature (self))
    draw_miniature (self, cr, dark, self->layout);
  else
    {
      CrGraphRenderOptions options;
      tile_render_options (self, &options);
      cr_graph_render (cr, self->model, self->layout, &options);
    }
}

/* GSK's Cairo renderer converts a texture's pixels at every frame (GTK
 * 4.8: ~3 ms a 512 px tile), but paints a Cairo node that only paints an
 * image as one blit; the GL renderer keeps a texture on the GPU. */
static gboolean
renderer_is_cairo (CrGraphCanvas *self)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));
  GskRenderer *renderer = native ? gtk_native_get_renderer (native) : NULL;
  return renderer && GSK_IS_CAIRO_RENDERER (renderer);
}

/* The render node that places tile's image: made once, kept with it. */
static GskRenderNode *
tile_node (CrGraphCanvas *self,
           CrGraphTile   *tile)
{
  if (tile->data)
    return tile->data;
  int side = cr_graph_tiles_side (self->tiles);
  graphene_rect_t bounds = GRAPHENE_RECT_INIT ((float) tile->i * side, (float) tile->j * side,
                                               side, side);
  GskRenderNode *node;
  if (self->tiles_as_cairo)
    {
      node = gsk_cairo_node_new (&bounds);
      cairo_t *cr = gsk_cairo_node_get_draw_context (node);
      int scale = cairo_image_surface_get_width (tile->surface) / side;
      cairo_translate (cr, bounds.origin.x, bounds.origin.y);
      cairo_scale (cr, 1.0 / scale, 1.0 / scale);
      cairo_set_source_surface (cr, tile->surface, 0, 0);
      cairo_paint (cr);
      cairo_destroy (cr);
    }
  else
    {
      int px = cairo_image_surface_get_width (tile->surface);
      int stride = cairo_image_surface_get_stride (tile->surface);
      GBytes *bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (tile->surface),
                                                  (gsize) stride * px,
                                                  (GDestroyNotify) cairo_surface_destroy,
                                                  cairo_surface_reference (tile->surface));
      GdkTexture *texture = gdk_memory_texture_new (px, px, GDK_MEMORY_DEFAULT, bytes, stride);
      node = gsk_texture_node_new (texture, &bounds);
      g_object_unref (texture);
      g_bytes_unref (bytes);
    }
  tile->data = node;
  tile->data_free = (GDestroyNotify) gsk_render_node_unref;
  return node;
}

static void
stop_prefetch (CrGraphCanvas *self)
{
  if (self->tiles_idle)
    g_source_remove (self->tiles_idle);
  self->tiles_idle = 0;
}

void
cr_graph_canvas_clear_scene (CrGraphCanvas *self)
{
  stop_prefetch (self);
  if (self->tiles)
    cr_graph_tiles_clear (self->tiles);
  g_clear_pointer (&self->label_boxes, g_free);
  g_clear_pointer (&self->tiles_items, g_array_unref);
}

/* ---- tiles kept where the drawing did not change ---- */

/* Telling the drawing as items places every open group's title, which
 * looks at every edge for each (a tile places only its own): above this
 * many title-edge pairs (the 5,000-node MLP with every group open has
 * millions: 90 ms) it costs more than painting the tiles in view again. */
#define ITEMS_MAX_TITLE_EDGES 250000

/* The items of what the tiles would show now; NULL in miniature (drawn
 * here, not told as items) or where they cost too much: any change then
 * paints every tile. */
static GArray *
drawing_items (CrGraphCanvas *self)
{
  if (!self->model || !self->layout || !self->cache || in_miniature (self))
    return NULL;
  if (self->collapse && (guint64) self->layout->n_clusters * self->layout->n_edges > ITEMS_MAX_TITLE_EDGES)
    return NULL;
  CrGraphRenderOptions options;
  tile_render_options (self, &options);
  CrGraphDrawing drawing = { self->model, self->layout, &options };
  return cr_graph_render_drawing_items (&drawing);
}

void
cr_graph_canvas_drawing_changed (CrGraphCanvas *self)
{
  stop_prefetch (self);
  self->tiles_changed = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Whether tiles painted under key a show the drawing at the same size,
 * grid and colours as under b (what items do not tell). */
static gboolean
same_frame (const CrGraphTilesKey *a,
            const CrGraphTilesKey *b)
{
  return a->zoom == b->zoom && a->scale == b->scale && a->style == b->style
         && a->presentation == b->presentation;
}

/* tiles, which show the drawing told by items (owned), become the
 * canvas's, keyed by key, but those where the drawing now differs;
 * FALSE (tiles and items freed) when it differs as a whole. */
static gboolean
keep_unchanged_tiles (CrGraphCanvas         *self,
                      CrGraphTiles          *tiles,
                      GArray                *items,
                      const CrGraphTilesKey *key)
{
  g_autoptr (GArray) was = items;
  g_autoptr (GArray) now = drawing_items (self);
  g_autoptr (GArray) dirty = g_array_new (FALSE, FALSE, sizeof (double));
  if (!now || !cr_graph_items_diff (was, now, dirty))
    {
      cr_graph_tiles_free (tiles);
      return FALSE;
    }
  if (tiles != self->tiles)
    {
      cr_graph_tiles_free (self->tiles);
      self->tiles = tiles;
    }
  cr_graph_tiles_carry_to_key (self->tiles, key);
  /* A pixel of antialiasing past each box. */
  double z = self->zoom, aa = 1.0;
  for (guint r = 0; r + 3 < dirty->len; r += 4)
    {
      const double *d = &g_array_index (dirty, double, r);
      cr_graph_tiles_drop_within (self->tiles, d[0] * z - aa, d[1] * z - aa, d[2] * z + aa, d[3] * z + aa);
    }
  g_clear_pointer (&self->tiles_items, g_array_unref);
  self->tiles_items = g_steal_pointer (&now);
  return TRUE;
}

/* The tiles of the drawing before a re-run and the items they show (the
 * model, layout and cache are new objects after it). */
typedef struct _CrGraphCanvasKept CrGraphCanvasKept;

struct _CrGraphCanvasKept
{
  CrGraphTiles *tiles;
  gboolean      as_cairo;
  GArray       *items;
};

static void
kept_free (CrGraphCanvasKept *kept)
{
  cr_graph_tiles_free (kept->tiles);
  g_clear_pointer (&kept->items, g_array_unref);
  g_free (kept);
}

void
cr_graph_canvas_keep_drawing (CrGraphCanvas *self)
{
  g_clear_pointer (&self->kept, kept_free);
  const CrGraphTilesKey *key = self->tiles ? cr_graph_tiles_get_key (self->tiles) : NULL;
  if (!key || cr_graph_tiles_count (self->tiles) == 0 || !self->tiles_items || self->morphing)
    return;
  stop_prefetch (self);
  CrGraphCanvasKept *kept = g_new0 (CrGraphCanvasKept, 1);
  kept->tiles = g_steal_pointer (&self->tiles);
  kept->as_cairo = self->tiles_as_cairo;
  kept->items = g_steal_pointer (&self->tiles_items);
  g_clear_pointer (&self->label_boxes, g_free);
  self->kept = kept;
}

/* The tiles kept across a re-run become the canvas's again but where the
 * drawing now (key: the canvas's now) differs; else they go. */
static void
take_kept_tiles (CrGraphCanvas         *self,
                 const CrGraphTilesKey *key,
                 gboolean               as_cairo)
{
  CrGraphCanvasKept *kept = g_steal_pointer (&self->kept);
  if (kept->as_cairo == as_cairo && same_frame (cr_graph_tiles_get_key (kept->tiles), key)
      && keep_unchanged_tiles (self, g_steal_pointer (&kept->tiles), g_steal_pointer (&kept->items), key))
    self->tiles_changed = FALSE;
  kept_free (kept);
}

void
cr_graph_canvas_free_scene (CrGraphCanvas *self)
{
  stop_prefetch (self);
  g_clear_pointer (&self->tiles, cr_graph_tiles_free);
  g_clear_pointer (&self->label_boxes, g_free);
  g_clear_pointer (&self->kept, kept_free);
  g_clear_pointer (&self->tiles_items, g_array_unref);
}

/* Makes the tiles those of the canvas as it is now: a step, a selection,
 * a highlight or a new model of the same size paints again only the tiles
 * where the drawing differs; a zoom, a style, everything. */
static void
key_tiles (CrGraphCanvas *self,
           gboolean       dark)
{
  if (!self->tiles)
    self->tiles = cr_graph_tiles_new (TILE, MAX_TILES);
  gboolean as_cairo = renderer_is_cairo (self);
  if (as_cairo != self->tiles_as_cairo)
    {
      cr_graph_tiles_clear (self->tiles);
      self->tiles_as_cairo = as_cairo;
    }
  CrGraphTilesKey key = {
    .zoom = self->zoom,
    .scale = MAX (gtk_widget_get_scale_factor (GTK_WIDGET (self)), 1),
    .step = self->step,
    .selected = self->selected,
    .style = dark,
    .presentation = self->presentation,
    .model = self->model,
    .layout = self->layout,
  };
  if (self->kept)
    take_kept_tiles (self, &key, as_cairo);
  const CrGraphTilesKey *was = cr_graph_tiles_get_key (self->tiles);
  gboolean moved = was && (self->tiles_changed || was->step != key.step || was->selected != key.selected
                           || was->model != key.model || was->layout != key.layout);
  if (moved && same_frame (was, &key) && self->tiles_items && cr_graph_tiles_count (self->tiles) > 0)
    {
      if (!keep_unchanged_tiles (self, self->tiles, g_steal_pointer (&self->tiles_items), &key))
        self->tiles = cr_graph_tiles_new (TILE, MAX_TILES);
    }
  else if (moved)
    cr_graph_tiles_clear (self->tiles);
  self->tiles_changed = FALSE;
  /* Tiles about to be painted afresh: what they will show. */
  if (cr_graph_tiles_set_key (self->tiles, &key) || cr_graph_tiles_count (self->tiles) == 0)
    {
      g_clear_pointer (&self->tiles_items, g_array_unref);
      self->tiles_items = drawing_items (self);
    }
}

/* One tile next to the view drawn ahead per call. */
static gboolean
prefetch_tile (gpointer data)
{
  CrGraphCanvas *self = data;
  int width = gtk_widget_get_width (GTK_WIDGET (self)), height = gtk_widget_get_height (GTK_WIDGET (self));
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  if (!self->layout || !self->model || !self->tiles || self->morphing || width <= 0 || height <= 0)
    {
      self->tiles_idle = 0;
      return G_SOURCE_REMOVE;
    }
  key_tiles (self, dark);
  int range[4], i, j;
  cr_graph_tiles_range (self->tiles, self->tx, self->ty, width, height, range);
  if (cr_graph_tiles_full (self->tiles)
      || !cr_graph_tiles_next_missing (self->tiles, range, 1, self->zoom * self->layout->width,
                                       self->zoom * self->layout->height, &i, &j))
    {
      self->tiles_idle = 0;
      return G_SOURCE_REMOVE;
    }
  tile_node (self, cr_graph_tiles_get (self->tiles, i, j, paint_tile, self));
  return G_SOURCE_CONTINUE;
}

/* The graph from its tiles: those in view drawn now if missing, those
 * around it ahead in idle time. */
static void
append_tiles (CrGraphCanvas *self,
              GtkSnapshot   *snapshot,
              int            width,
              int            height,
              gboolean       dark)
{
  key_tiles (self, dark);
  int range[4];
  cr_graph_tiles_range (self->tiles, self->tx, self->ty, width, height, range);
  cr_graph_tiles_evict (self->tiles, range);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) round (self->tx), (float) round (self->ty)));
  for (int j = range[1]; j <= range[3]; j++)
    for (int i = range[0]; i <= range[2]; i++)
      gtk_snapshot_append_node (snapshot, tile_node (self, cr_graph_tiles_get (self->tiles, i, j,
                                                                                 paint_tile, self)));
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_restore (snapshot);
  if (!self->tiles_idle)
    self->tiles_idle = g_idle_add_full (G_PRIORITY_LOW, prefetch_tile, self, NULL);
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
          draw_grid (self, cr, self->tx, self->ty, 0, 0, width, height, dark);
          cairo_translate (cr, self->tx, self->ty);
          cairo_scale (cr, self->zoom, self->zoom);
          const CrGraphLayout *drawn = cr_graph_canvas_drawn_layout (self);
          if (in_miniature (self))
            draw_miniature (self, cr, dark, drawn);
          else
            {
              /* A big graph's edge labels are placed once per layout, too
               * slow for every frame of a glide: they show again when the
               * nodes settle. */
              g_autofree double *no_labels = NULL;
              if (drawn->n_nodes > MINIATURE_NODES)
                options.label_boxes = no_labels = g_new0 (double, CR_GRAPH_BADGES_LABEL_BOX * drawn->n_edges + 1);
              options.pulse = self->pulsing ? self->pulse : -1;
              options.node_alpha = self->alpha;
              options.text_scale = self->zoom;
              cr_graph_render (cr, self->model, drawn, &options);
            }
          cairo_destroy (cr);
        }
      else
        {
          append_tiles (self, snapshot, width, height, dark);
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
