/* cr-graph-tiles.h — a drawing cut into square tiles, each painted once
 * into an image and kept while what it shows stays the same.
 *
 * The canvas pans a big graph by placing the tiles in view and paints only
 * those that come into view (and, in idle time, those next to it); a change
 * of zoom, step, selection, style or layout drops them all. No GTK here: the
 * canvas keeps a render node made from each tile's image with the tile, and
 * bench-graph composes the tiles of a frame as GSK's Cairo renderer does.
 *
 * Tile (i, j) covers the pixels i side .. (i + 1) side across and j side ..
 * (j + 1) side down, counted from the graph's origin at the current zoom. */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _CrGraphTiles CrGraphTiles;

/* What every tile was drawn for: when any of it differs, the tiles go. The
 * model and layout are compared by address only (never read). */
typedef struct {
  double        zoom;
  int           scale;           /* device pixels per pixel */
  int           step;
  int           selected;
  int           style;
  gboolean      presentation;
  gconstpointer model;
  gconstpointer layout;
} CrGraphTilesKey;

typedef struct {
  int              i, j;
  cairo_surface_t *surface;      /* owned: side × scale device pixels square, ARGB32 */
  gpointer         data;         /* the caller's, e.g. a render node made from surface */
  GDestroyNotify   data_free;    /* frees data with the tile; NULL: not owned */
} CrGraphTile;

/* Paints the square x0 .. x0 + side, y0 .. y0 + side into cr, whose origin
 * is the graph's origin at the zoom (pixels) and whose clip is that square. */
typedef void (*CrGraphTilesPaint) (cairo_t  *cr,
                                   double    x0,
                                   double    y0,
                                   double    side,
                                   gpointer  user_data);

/* side: a tile's side in pixels; at most max_tiles are kept (evict). */
CrGraphTiles *cr_graph_tiles_new          (int                    side,
                                           guint                  max_tiles);
void          cr_graph_tiles_free         (CrGraphTiles          *self);    /* NULL-safe */
int           cr_graph_tiles_side         (const CrGraphTiles    *self);

/* Makes key the one the tiles are for; when it differs from the last, every
 * tile is dropped first (TRUE). */
gboolean      cr_graph_tiles_set_key      (CrGraphTiles          *self,
                                           const CrGraphTilesKey *key);
/* The key the tiles are for (borrowed), NULL before the first. */
const CrGraphTilesKey *cr_graph_tiles_get_key (const CrGraphTiles    *self);
/* Makes key the one the tiles are for, keeping every tile: what they show
 * is drawn the same under key (the same picture from a new model). */
void          cr_graph_tiles_carry_to_key (CrGraphTiles          *self,
                                           const CrGraphTilesKey *key);
/* Drops the tiles that show any of the rectangle x0 .. x1, y0 .. y1
 * (pixels from the graph's origin at the zoom): what is drawn there changed. */
void          cr_graph_tiles_drop_within  (CrGraphTiles          *self,
                                           double                 x0,
                                           double                 y0,
                                           double                 x1,
                                           double                 y1);
/* Drops every tile (something the key does not hold changed). */
void          cr_graph_tiles_clear        (CrGraphTiles          *self);

/* The tiles a width × height view shows when the graph's origin is drawn at
 * (tx, ty), rounded to whole pixels: range = { i0, j0, i1, j1 }, inclusive. */
void          cr_graph_tiles_range        (const CrGraphTiles    *self,
                                           double                 tx,
                                           double                 ty,
                                           int                    width,
                                           int                    height,
                                           int                    range[4]);
/* Tile (i, j) if painted (borrowed), else NULL. */
CrGraphTile  *cr_graph_tiles_lookup       (CrGraphTiles          *self,
                                           int                    i,
                                           int                    j);
/* Tile (i, j), painted with paint first if missing (borrowed). */
CrGraphTile  *cr_graph_tiles_get          (CrGraphTiles          *self,
                                           int                    i,
                                           int                    j,
                                           CrGraphTilesPaint      paint,
                                           gpointer               user_data);
/* A tile not yet painted within range grown by ring tiles on every side,
 * that holds part of a drawing of extent_w × extent_h pixels from the
 * origin, nearest the range first: TRUE and its (i, j); FALSE: none. */
gboolean      cr_graph_tiles_next_missing (const CrGraphTiles    *self,
                                           const int              range[4],
                                           int                    ring,
                                           double                 extent_w,
                                           double                 extent_h,
                                           int                   *i,
                                           int                   *j);
/* Once more than max_tiles - 8 are kept, drops those not within one tile of
 * range. */
void          cr_graph_tiles_evict        (CrGraphTiles          *self,
                                           const int              range[4]);
guint         cr_graph_tiles_count        (const CrGraphTiles    *self);
/* Whether the cache is full (painting ahead should stop). */
gboolean      cr_graph_tiles_full         (const CrGraphTiles    *self);
/* How many tiles were painted since the tiles were made (for tests and
 * benches: a pan that paints none only placed tiles). */
guint         cr_graph_tiles_n_painted    (const CrGraphTiles    *self);

G_END_DECLS
