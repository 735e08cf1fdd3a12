/* cr-graph-groups-draw.c — an open module call drawn as a rounded box
 * behind its nodes, its path and class on top ("fc1 · Linear"): what makes
 * module code read as modules. Outer boxes are drawn first and pad more, so
 * that the boxes inside them and their titles stay inside. */
#include "cr-graph-groups.h"

#include <cairo.h>
#include "cr-graph-render.h"
#include "cr-graph-titles.h"

#include <pango/pangocairo.h>
#include <string.h>

/* In layout points at scale 1. */
#define BOX_PAD        10.0
#define BOX_PAD_LEVEL   9.0
#define BOX_RADIUS      10.0
/* A minimap's closed group: its title's size in pixels, and the narrowest
 * box that shows it (a few letters and the ellipsis). */
#define MARK_TITLE_PX    7.0
#define MARK_TITLE_MIN_W 26.0

/* The box, filled and dashed; deeper boxes a little stronger, so nesting
 * reads. */
static void
draw_box (cairo_t               *cr,
          const CrGraphGroupBox *box,
          double                 x,
          double                 y,
          double                 w,
          double                 h,
          gboolean               dark,
          double                 scale)
{
  double a = MIN (0.035 + 0.025 * box->level, 0.12);
  cr_graph_rounded_path (cr, x, y, w, h, BOX_RADIUS * scale);
  if (dark)
    cairo_set_source_rgba (cr, 0.55, 0.70, 1.0, a + 0.02);
  else
    cairo_set_source_rgba (cr, 0.20, 0.35, 0.75, a);
  cairo_fill_preserve (cr);
  if (dark)
    cairo_set_source_rgba (cr, 0.60, 0.72, 1.0, 0.45);
  else
    cairo_set_source_rgba (cr, 0.25, 0.38, 0.70, 0.45);
  cairo_set_line_width (cr, 1.0 * scale);
  double dash[] = { 4.0 * scale, 3.0 * scale };
  cairo_set_dash (cr, dash, 2, 0);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

static void
draw_title (cairo_t     *cr,
            PangoLayout *title,
            double       x,
            double       y,
            gboolean     dark)
{
  if (dark)
    cairo_set_source_rgba (cr, 0.75, 0.83, 1.0, 0.95);
  else
    cairo_set_source_rgba (cr, 0.18, 0.28, 0.55, 0.95);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, title);
}

void
cr_graph_collapse_draw_boxes (const CrGraphCollapse *self,
                              cairo_t               *cr,
                              const CrGraphLayout   *layout,
                              const GArray          *titles,
                              gboolean               dark,
                              double                 scale)
{
  if (!self || !self->boxes || self->boxes->len == 0 || !layout)
    return;

  PangoLayout *text = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (CR_GRAPH_TITLE_FONT);
  pango_font_description_set_size (font, (int) (CR_GRAPH_TITLE_SIZE * scale * PANGO_SCALE));
  pango_layout_set_font_description (text, font);
  pango_font_description_free (font);

  g_autoptr (GArray) own_titles = NULL;
  gboolean laid_out = layout->n_clusters == self->boxes->len;
  if (laid_out && (!titles || titles->len != self->boxes->len))
    {
      double clip[4];
      cairo_clip_extents (cr, &clip[0], &clip[1], &clip[2], &clip[3]);
      titles = own_titles = cr_graph_titles_place (self->model, layout, scale, clip);
    }
  cairo_save (cr);
  for (guint i = 0; i < self->boxes->len; i++)
    {
      const CrGraphGroupBox *box = g_ptr_array_index (self->boxes, i);
      pango_layout_set_text (text, box->title, -1);
      if (laid_out)
        {
          /* Dot kept the call's nodes together and made room for its
           * title, which goes where cr-graph-titles.c placed it. */
          const CrGraphBox *b = &layout->clusters[i];
          draw_box (cr, box, b->x, b->y, b->width, b->height, dark, scale);
          const CrGraphTitle *t = i < titles->len ? &g_array_index (titles, CrGraphTitle, i) : NULL;
          if (t && t->width > 0)
            draw_title (cr, text, t->x, t->y, dark);
          continue;
        }
      int tw, th;
      pango_layout_get_pixel_size (text, &tw, &th);
      double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
      for (guint k = 0; k < box->nodes->len; k++)
        {
          guint n = g_array_index (box->nodes, guint, k);
          if (n >= layout->n_nodes)
            continue;
          const CrGraphBox *b = &layout->nodes[n];
          x0 = MIN (x0, b->x);
          y0 = MIN (y0, b->y);
          x1 = MAX (x1, b->x + b->width);
          y1 = MAX (y1, b->y + b->height);
        }
      if (x0 > x1)
        continue;

      /* A layout without the boxes: each around its nodes, the title in a
       * band over them. */
      double pad = (BOX_PAD + BOX_PAD_LEVEL * box->inner) * scale;
      double x = x0 - pad, y = y0 - pad - th;
      draw_box (cr, box, x, y, MAX (x1 - x0 + 2 * pad, tw + 2 * BOX_PAD * scale),
                y1 - y0 + 2 * pad + th, dark, scale);
      draw_title (cr, text, x + CR_GRAPH_TITLE_IN_X * scale, y + pad * 0.35, dark);
    }
  cairo_restore (cr);
  g_object_unref (text);
}

/* ---- the minimap's marks ------------------------------------------------------ */

static void
widen (double       *b,
       const double  x0,
       const double  y0,
       const double  x1,
       const double  y1)
{
  b[0] = MIN (b[0], x0), b[1] = MIN (b[1], y0);
  b[2] = MAX (b[2], x1), b[3] = MAX (b[3], y1);
}

void
cr_graph_draw_cluster_marks (cairo_t             *cr,
                             const CrGraphModel  *model,
                             const CrGraphLayout *layout,
                             double               s,
                             gboolean             dark)
{
  g_return_if_fail (cr != NULL && model != NULL && layout != NULL);
  guint n = model->clusters ? model->clusters->len : 0;
  if (n == 0)
    return;
  /* x0, y0, x1, y1 per cluster, empty at first. */
  g_autofree double *bounds = g_new (double, 4 * n);
  for (guint k = 0; k < n; k++)
    {
      bounds[4 * k] = bounds[4 * k + 1] = G_MAXDOUBLE;
      bounds[4 * k + 2] = bounds[4 * k + 3] = -G_MAXDOUBLE;
    }
  /* Children follow their parents: going backwards, each child's box is
   * whole before it widens its parent's. */
  for (guint i = n; i > 0; i--)
    {
      guint k = i - 1;
      double *b = &bounds[4 * k];
      const CrGraphCluster *c = g_ptr_array_index (model->clusters, k);
      if (layout->n_clusters == n)
        {
          const CrGraphBox *box = &layout->clusters[k];
          widen (b, box->x, box->y, box->x + box->width, box->y + box->height);
          continue;
        }
      for (guint j = 0; j < c->nodes->len; j++)
        {
          guint node = g_array_index (c->nodes, guint, j);
          if (node >= layout->n_nodes)
            continue;
          const CrGraphBox *nb = &layout->nodes[node];
          widen (b, nb->x - BOX_PAD, nb->y - BOX_PAD,
                 nb->x + nb->width + BOX_PAD, nb->y + nb->height + BOX_PAD);
        }
      if (c->parent >= 0 && (guint) c->parent < k && b[0] <= b[2])
        widen (&bounds[4 * c->parent], b[0] - BOX_PAD_LEVEL, b[1] - BOX_PAD_LEVEL,
               b[2] + BOX_PAD_LEVEL, b[3] + BOX_PAD_LEVEL);
    }

  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  cairo_set_dash (cr, NULL, 0, 0);
  for (guint k = 0; k < n; k++)
    {
      const double *b = &bounds[4 * k];
      if (!(b[0] < b[2] && b[1] < b[3]))
        continue;
      double w = MAX (s * (b[2] - b[0]), 2.0), h = MAX (s * (b[3] - b[1]), 2.0);
      cr_graph_rounded_path (cr, s * b[0], s * b[1], w, h, MIN (BOX_RADIUS * s, 3.0));
      if (dark)
        cairo_set_source_rgba (cr, 0.55, 0.70, 1.0, 0.10);
      else
        cairo_set_source_rgba (cr, 0.20, 0.35, 0.75, 0.08);
      cairo_fill_preserve (cr);
      if (dark)
        cairo_set_source_rgba (cr, 0.60, 0.72, 1.0, 0.35);
      else
        cairo_set_source_rgba (cr, 0.25, 0.38, 0.70, 0.35);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

/* A closed group for a minimap: the box it is, filled in the open boxes'
 * colour but stronger, with the edge of a second card behind it (as the
 * canvas stacks it), and its title inside when that fits at a size a
 * minimap can show; the box grows to the title's height then, since a
 * closed group's pill is only a few pixels tall there. */
void
cr_graph_draw_group_mark (cairo_t            *cr,
                          const CrGraphNode  *node,
                          const CrGraphBox   *b,
                          double              s,
                          gboolean            dark)
{
  g_return_if_fail (cr != NULL && node != NULL && b != NULL);
  double x = s * b->x, y = s * b->y;
  double w = MAX (s * b->width, 3.0), h = MAX (s * b->height, 3.0);
  PangoLayout *title = NULL;
  if (node->title && w >= MARK_TITLE_MIN_W)
    {
      title = pango_cairo_create_layout (cr);
      PangoFontDescription *font = pango_font_description_from_string ("Sans Bold");
      pango_font_description_set_absolute_size (font, MARK_TITLE_PX * PANGO_SCALE);
      pango_layout_set_font_description (title, font);
      pango_font_description_free (font);
      pango_layout_set_text (title, node->title, -1);
      pango_layout_set_width (title, (int) ((w - 4) * PANGO_SCALE));
      pango_layout_set_ellipsize (title, PANGO_ELLIPSIZE_END);
      /* Cut, "layers.0.neurons.0–31 · Neuron × 32" says more as its class
       * part than as the start of its path, and keeps its count. */
      const char *part = g_strrstr (node->title, " · ");
      if (part && pango_layout_is_ellipsized (title))
        {
          pango_layout_set_text (title, part + strlen (" · "), -1);
          pango_layout_set_ellipsize (title, PANGO_ELLIPSIZE_MIDDLE);
        }
      int tw, th;
      pango_layout_get_pixel_size (title, &tw, &th);
      if (th + 2 > h)
        {
          y -= (th + 2 - h) / 2;
          h = th + 2;
        }
    }

  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, 1.0);
  double r = MIN (3.0, h / 2);
  /* The card behind. */
  cr_graph_rounded_path (cr, x + 1.5, y + 1.5, w, h, r);
  if (dark)
    cairo_set_source_rgba (cr, 0.60, 0.72, 1.0, 0.55);
  else
    cairo_set_source_rgba (cr, 0.25, 0.38, 0.70, 0.55);
  cairo_stroke (cr);
  cr_graph_rounded_path (cr, x, y, w, h, r);
  if (dark)
    cairo_set_source_rgba (cr, 0.22, 0.30, 0.45, 1.0);
  else
    cairo_set_source_rgba (cr, 0.84, 0.88, 0.97, 1.0);
  cairo_fill_preserve (cr);
  if (dark)
    cairo_set_source_rgba (cr, 0.60, 0.72, 1.0, 0.95);
  else
    cairo_set_source_rgba (cr, 0.25, 0.38, 0.70, 0.95);
  cairo_stroke (cr);
  if (title)
    {
      int tw, th;
      pango_layout_get_pixel_size (title, &tw, &th);
      if (dark)
        cairo_set_source_rgba (cr, 0.85, 0.90, 1.0, 1.0);
      else
        cairo_set_source_rgba (cr, 0.12, 0.20, 0.42, 1.0);
      cairo_move_to (cr, x + 2, y + (h - th) / 2);
      pango_cairo_show_layout (cr, title);
      g_object_unref (title);
    }
  cairo_restore (cr);
}
