/* cr-graph-tiles.c — a drawing cut into square tiles, painted once each
 * (cr-graph-tiles.h). */
#include "cr-graph-tiles.h"

#include <math.h>

struct _CrGraphTiles
{
  int              side;
  guint            max_tiles;
  CrGraphTilesKey  key;
  gboolean         has_key;
  GHashTable      *tiles;        /* tile id (gint64) -> CrGraphTile, owned */
  guint            n_painted;
};

static gint64
tile_id (int i,
         int j)
{
  return (gint64) (((guint64) (guint32) i << 32) | (guint32) j);
}

static void
tile_free (gpointer data)
{
  CrGraphTile *tile = data;
  if (tile->data_free && tile->data)
    tile->data_free (tile->data);
  cairo_surface_destroy (tile->surface);
  g_free (tile);
}

CrGraphTiles *
cr_graph_tiles_new (int   side,
                    guint max_tiles)
{
  g_return_val_if_fail (side > 0 && max_tiles > 8, NULL);
  CrGraphTiles *self = g_new0 (CrGraphTiles, 1);
  self->side = side;
  self->max_tiles = max_tiles;
  self->tiles = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, tile_free);
  return self;
}

void
cr_graph_tiles_free (CrGraphTiles *self)
{
  if (!self)
    return;
  g_hash_table_unref (self->tiles);
  g_free (self);
}

int
cr_graph_tiles_side (const CrGraphTiles *self)
{
  return self->side;
}

void
cr_graph_tiles_clear (CrGraphTiles *self)
{
  g_hash_table_remove_all (self->tiles);
}

gboolean
cr_graph_tiles_set_key (CrGraphTiles          *self,
                        const CrGraphTilesKey *key)
{
  g_return_val_if_fail (self != NULL && key != NULL, FALSE);
  /* Field by field: the struct's padding is not compared. */
  const CrGraphTilesKey *k = &self->key;
  if (self->has_key && k->zoom == key->zoom && k->scale == key->scale && k->step == key->step
      && k->selected == key->selected && k->style == key->style
      && k->presentation == key->presentation && k->model == key->model
      && k->layout == key->layout)
    return FALSE;
  cr_graph_tiles_clear (self);
  self->key = *key;
  self->has_key = TRUE;
  return TRUE;
}

const CrGraphTilesKey *
cr_graph_tiles_get_key (const CrGraphTiles *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->has_key ? &self->key : NULL;
}

void
cr_graph_tiles_carry_to_key (CrGraphTiles          *self,
                             const CrGraphTilesKey *key)
{
  g_return_if_fail (self != NULL && key != NULL);
  self->key = *key;
  self->has_key = TRUE;
}

void
cr_graph_tiles_drop_within (CrGraphTiles *self,
                            double        x0,
                            double        y0,
                            double        x1,
                            double        y1)
{
  g_return_if_fail (self != NULL);
  int i0 = (int) floor (x0 / self->side), i1 = (int) floor (x1 / self->side);
  int j0 = (int) floor (y0 / self->side), j1 = (int) floor (y1 / self->side);
  GHashTableIter iter;
  CrGraphTile *tile;
  g_hash_table_iter_init (&iter, self->tiles);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &tile))
    if (tile->i >= i0 && tile->i <= i1 && tile->j >= j0 && tile->j <= j1)
      g_hash_table_iter_remove (&iter);
}

void
cr_graph_tiles_range (const CrGraphTiles *self,
                      double              tx,
                      double              ty,
                      int                 width,
                      int                 height,
                      int                 range[4])
{
  tx = round (tx);
  ty = round (ty);
  range[0] = (int) floor (-tx / self->side);
  range[1] = (int) floor (-ty / self->side);
  range[2] = (int) floor ((width - tx - 1) / self->side);
  range[3] = (int) floor ((height - ty - 1) / self->side);
}

CrGraphTile *
cr_graph_tiles_lookup (CrGraphTiles *self,
                       int           i,
                       int           j)
{
  gint64 id = tile_id (i, j);
  return g_hash_table_lookup (self->tiles, &id);
}

CrGraphTile *
cr_graph_tiles_get (CrGraphTiles      *self,
                    int                i,
                    int                j,
                    CrGraphTilesPaint  paint,
                    gpointer           user_data)
{
  CrGraphTile *tile = cr_graph_tiles_lookup (self, i, j);
  if (tile)
    return tile;
  int scale = MAX (self->has_key ? self->key.scale : 1, 1);
  int px = self->side * scale;
  double x0 = (double) i * self->side, y0 = (double) j * self->side;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, px, px);
  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  cairo_translate (cr, -x0, -y0);
  cairo_rectangle (cr, x0, y0, self->side, self->side);
  cairo_clip (cr);
  paint (cr, x0, y0, self->side, user_data);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  tile = g_new0 (CrGraphTile, 1);
  tile->i = i;
  tile->j = j;
  tile->surface = surface;
  gint64 id = tile_id (i, j);
  g_hash_table_insert (self->tiles, g_memdup2 (&id, sizeof id), tile);
  self->n_painted++;
  return tile;
}

static gboolean
holds_drawing (const CrGraphTiles *self,
               int                 i,
               int                 j,
               double              extent_w,
               double              extent_h)
{
  double s = self->side;
  return (i + 1.0) * s > 0 && i * s < extent_w && (j + 1.0) * s > 0 && j * s < extent_h;
}

gboolean
cr_graph_tiles_next_missing (const CrGraphTiles *self,
                             const int           range[4],
                             int                 ring,
                             double              extent_w,
                             double              extent_h,
                             int                *i,
                             int                *j)
{
  /* Ring by ring outwards: the view itself first, then what is next to it. */
  for (int r = 0; r <= ring; r++)
    for (int y = range[1] - r; y <= range[3] + r; y++)
      for (int x = range[0] - r; x <= range[2] + r; x++)
        {
          gboolean on_ring = x == range[0] - r || x == range[2] + r || y == range[1] - r
                             || y == range[3] + r;
          if (!on_ring || !holds_drawing (self, x, y, extent_w, extent_h))
            continue;
          gint64 id = tile_id (x, y);
          if (g_hash_table_contains (self->tiles, &id))
            continue;
          *i = x;
          *j = y;
          return TRUE;
        }
  return FALSE;
}

void
cr_graph_tiles_evict (CrGraphTiles *self,
                      const int     range[4])
{
  if (g_hash_table_size (self->tiles) <= self->max_tiles - 8)
    return;
  GHashTableIter iter;
  CrGraphTile *tile;
  g_hash_table_iter_init (&iter, self->tiles);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &tile))
    if (tile->i < range[0] - 1 || tile->i > range[2] + 1 || tile->j < range[1] - 1
        || tile->j > range[3] + 1)
      g_hash_table_iter_remove (&iter);
}

guint
cr_graph_tiles_count (const CrGraphTiles *self)
{
  return g_hash_table_size (self->tiles);
}

gboolean
cr_graph_tiles_full (const CrGraphTiles *self)
{
  return g_hash_table_size (self->tiles) >= self->max_tiles;
}

guint
cr_graph_tiles_n_painted (const CrGraphTiles *self)
{
  return self->n_painted;
}
