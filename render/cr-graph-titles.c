/* cr-graph-titles.c — where open groups' titles are written (see
 * cr-graph-titles.h). */
#include "cr-graph-titles.h"

#include <math.h>
#include <pango/pangocairo.h>

/* Each Bézier segment of an edge is tested as this many straight pieces:
 * edges are gentle S-curves, a few pieces follow them within a point. */
#define PIECES_PER_CURVE 8
/* Half an edge's stroke, in layout points (the current step's halo is
 * wider but faint): what a title's letters keep clear of, with half their
 * margin (their logical box has some blank at either end already). */
#define EDGE_HALF_WIDTH  1.0

/* cr_graph_path_foreach_piece (), only the Bézier segments whose control
 * points' box (which holds the curve) meets area (x0, y0, x1, y1; NULL:
 * every one). */
static void
foreach_piece_in (const CrGraphPath    *path,
                  const double         *area,
                  CrGraphPathPieceFunc  fn,
                  gpointer              data)
{
  if (path->n_points < 4)
    return;
  const double *pt = path->points;
  double px = pt[0], py = pt[1];
  for (guint s = 0; s + 3 < path->n_points; s += 3)
    {
      const double *p = pt + 2 * s;
      if (area)
        {
          double bx0 = MIN (MIN (p[0], p[2]), MIN (p[4], p[6]));
          double bx1 = MAX (MAX (p[0], p[2]), MAX (p[4], p[6]));
          double by0 = MIN (MIN (p[1], p[3]), MIN (p[5], p[7]));
          double by1 = MAX (MAX (p[1], p[3]), MAX (p[5], p[7]));
          if (bx1 < area[0] || bx0 > area[2] || by1 < area[1] || by0 > area[3])
            {
              px = p[6], py = p[7];
              continue;
            }
        }
      for (guint i = 1; i <= PIECES_PER_CURVE; i++)
        {
          double t = (double) i / PIECES_PER_CURVE, mt = 1 - t;
          double x = mt * mt * mt * p[0] + 3 * mt * mt * t * p[2] + 3 * mt * t * t * p[4] + t * t * t * p[6];
          double y = mt * mt * mt * p[1] + 3 * mt * mt * t * p[3] + 3 * mt * t * t * p[5] + t * t * t * p[7];
          fn (px, py, x, y, data);
          px = x, py = y;
        }
    }
  if (path->has_arrow)
    fn (px, py, path->arrow_x, path->arrow_y, data);
}

void
cr_graph_path_foreach_piece (const CrGraphPath    *path,
                             CrGraphPathPieceFunc  fn,
                             gpointer              data)
{
  foreach_piece_in (path, NULL, fn, data);
}

/* The part of the segment inside the band y0 ≤ y ≤ y1, as its parameters
 * t0 ≤ t1 (FALSE: none). */
static gboolean
clip_to_band (double  ay,
              double  by,
              double  y0,
              double  y1,
              double *t0,
              double *t1)
{
  *t0 = 0, *t1 = 1;
  double dy = by - ay;
  if (fabs (dy) < 1e-12)
    return ay >= y0 && ay <= y1;
  double ta = (y0 - ay) / dy, tb = (y1 - ay) / dy;
  if (ta > tb)
    {
      double s = ta;
      ta = tb;
      tb = s;
    }
  *t0 = MAX (ta, 0.0);
  *t1 = MIN (tb, 1.0);
  return *t0 <= *t1;
}

gboolean
cr_graph_titles_segment_meets (double x0, double y0, double x1, double y1,
                               double rx0, double ry0, double rx1, double ry1)
{
  double t0, t1;
  if (!clip_to_band (y0, y1, ry0, ry1, &t0, &t1))
    return FALSE;
  double xa = x0 + (x1 - x0) * t0, xb = x0 + (x1 - x0) * t1;
  return MAX (xa, xb) >= rx0 && MIN (xa, xb) <= rx1;
}

/* The stretches of a title's strip (across) that edges cross. */
typedef struct {
  double  x0, x1, y0, y1;       /* the strip */
  GArray *blocked;              /* of double pairs: x from, x to */
} Strip;

static void
block_piece (double   ax,
             double   ay,
             double   bx,
             double   by,
             gpointer data)
{
  Strip *s = data;
  double t0, t1;
  if (!clip_to_band (ay, by, s->y0 - EDGE_HALF_WIDTH, s->y1 + EDGE_HALF_WIDTH, &t0, &t1))
    return;
  double xa = ax + (bx - ax) * t0, xb = ax + (bx - ax) * t1;
  double lo = MIN (xa, xb) - EDGE_HALF_WIDTH, hi = MAX (xa, xb) + EDGE_HALF_WIDTH;
  if (hi < s->x0 || lo > s->x1)
    return;
  double pair[2] = { lo, hi };
  g_array_append_vals (s->blocked, pair, 1);
}

static int
compare_from (gconstpointer a,
              gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
cr_graph_path_bounds (const CrGraphPath *p,
                      double            *ext)
{
  ext[0] = ext[1] = G_MAXDOUBLE;
  ext[2] = ext[3] = -G_MAXDOUBLE;
  for (guint j = 0; j < p->n_points; j++)
    {
      ext[0] = MIN (ext[0], p->points[2 * j]);
      ext[2] = MAX (ext[2], p->points[2 * j]);
      ext[1] = MIN (ext[1], p->points[2 * j + 1]);
      ext[3] = MAX (ext[3], p->points[2 * j + 1]);
    }
  if (p->has_arrow)
    {
      ext[0] = MIN (ext[0], p->arrow_x);
      ext[2] = MAX (ext[2], p->arrow_x);
      ext[1] = MIN (ext[1], p->arrow_y);
      ext[3] = MAX (ext[3], p->arrow_y);
    }
}

/* The edges' bounds, x0, y0, x1, y1 by edge (new array). */
static double *
edge_extents (const CrGraphLayout *layout)
{
  double *ext = g_new (double, 4 * layout->n_edges + 4);
  for (guint i = 0; i < layout->n_edges; i++)
    cr_graph_path_bounds (&layout->edges[i], ext + 4 * i);
  return ext;
}

/* The leftmost place for a title of width w (with margin m each side)
 * from first to last (its left edge) clear of the strip's crossings;
 * FALSE when there is none. */
static gboolean
clear_place (Strip  *s,
             double  first,
             double  last,
             double  w,
             double  m,
             double *x)
{
  g_array_sort (s->blocked, compare_from);
  *x = first;
  const double *b = (const double *) s->blocked->data;
  for (guint i = 0; i < s->blocked->len; i++)
    {
      double lo = b[2 * i], hi = b[2 * i + 1];
      if (lo >= *x + w + m)
        break;                  /* sorted: the rest start further right */
      if (hi > *x - m)
        *x = hi + m;
      if (*x > last)
        return FALSE;
    }
  return *x <= last;
}

GArray *
cr_graph_titles_place (const CrGraphModel  *model,
                       const CrGraphLayout *layout,
                       double               k,
                       const double        *clip)
{
  g_return_val_if_fail (model != NULL && layout != NULL, NULL);
  GArray *titles = g_array_new (FALSE, TRUE, sizeof (CrGraphTitle));
  guint n = model->clusters ? model->clusters->len : 0;
  if (n == 0 || layout->n_clusters != n)
    return titles;
  g_array_set_size (titles, n);

  PangoContext *context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  PangoLayout *text = pango_layout_new (context);
  PangoFontDescription *font = pango_font_description_from_string (CR_GRAPH_TITLE_FONT);
  pango_font_description_set_size (font, (int) (CR_GRAPH_TITLE_SIZE * k * PANGO_SCALE));
  pango_layout_set_font_description (text, font);
  pango_font_description_free (font);
  g_autofree double *ext = NULL;
  Strip s = { .blocked = g_array_new (FALSE, FALSE, 2 * sizeof (double)) };
  double m = CR_GRAPH_TITLE_MARGIN * k;
  for (guint i = 0; i < n; i++)
    {
      const CrGraphCluster *cluster = g_ptr_array_index (model->clusters, i);
      const CrGraphBox *b = &layout->clusters[i];
      if (!cluster->title || !*cluster->title || b->width <= 0)
        continue;
      /* Only its strip matters: a frame of a big graph places only the
       * titles it shows, not those of every box it is inside. */
      double strip_bottom = b->y + (CR_GRAPH_TITLE_IN_Y + 4 * CR_GRAPH_TITLE_SIZE) * k;
      if (clip && (b->x > clip[2] || b->y > clip[3] || b->x + b->width < clip[0]
                   || strip_bottom < clip[1]))
        continue;
      pango_layout_set_text (text, cluster->title, -1);
      int tw, th;
      pango_layout_get_pixel_size (text, &tw, &th);
      CrGraphTitle *t = &g_array_index (titles, CrGraphTitle, i);
      double first = b->x + CR_GRAPH_TITLE_IN_X * k;
      *t = (CrGraphTitle) { first, b->y + CR_GRAPH_TITLE_IN_Y * k, tw, th, FALSE };

      /* The edges crossing its strip, from the box's left to its right. */
      if (!ext)
        ext = edge_extents (layout);
      s.x0 = b->x;
      s.x1 = b->x + b->width;
      s.y0 = t->y - m;
      s.y1 = t->y + th + m;
      g_array_set_size (s.blocked, 0);
      for (guint e = 0; e < layout->n_edges; e++)
        {
          const double *x = ext + 4 * e;
          if (x[2] < s.x0 || x[0] > s.x1 || x[3] < s.y0 - EDGE_HALF_WIDTH || x[1] > s.y1 + EDGE_HALF_WIDTH)
            continue;
          double area[4] = { s.x0, s.y0 - EDGE_HALF_WIDTH, s.x1, s.y1 + EDGE_HALF_WIDTH };
          foreach_piece_in (&layout->edges[e], area, block_piece, &s);
        }
      /* At the right, less inset: clear of the box's rounded corner at
       * the title's height still, and room for a narrow box's title right
       * of the edge that enters it. */
      double last = b->x + b->width - CR_GRAPH_TITLE_IN_X * k * 0.4 - tw;
      double x;
      if (s.blocked->len == 0)
        continue;
      if (last >= first && clear_place (&s, first, last, tw, m / 2, &x))
        t->x = x;
      else
        t->crossed = TRUE;
    }
  g_array_unref (s.blocked);
  g_object_unref (text);
  g_object_unref (context);
  return titles;
}

gboolean
cr_graph_titles_clip_out (cairo_t      *cr,
                          const GArray *titles,
                          double        k)
{
  gboolean any = FALSE;
  for (guint i = 0; titles && i < titles->len && !any; i++)
    any = g_array_index (titles, CrGraphTitle, i).crossed;
  if (!any)
    return FALSE;
  cairo_save (cr);
  double x0, y0, x1, y1;
  cairo_clip_extents (cr, &x0, &y0, &x1, &y1);
  cairo_new_path (cr);
  cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
  double m = CR_GRAPH_TITLE_MARGIN * k;
  for (guint i = 0; i < titles->len; i++)
    {
      const CrGraphTitle *t = &g_array_index (titles, CrGraphTitle, i);
      if (t->crossed && t->width > 0)
        cairo_rectangle (cr, t->x - m, t->y - m, t->width + 2 * m, t->height + 2 * m);
    }
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_EVEN_ODD);
  cairo_clip (cr);
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_WINDING);
  return TRUE;
}
