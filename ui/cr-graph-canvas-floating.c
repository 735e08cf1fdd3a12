/* cr-graph-canvas-floating.c — the part of the canvas a first view may use.
 *
 * The window floats controls over the graph in the canvas's GtkOverlay (the
 * stepper at the bottom, the zoom buttons at the top right, the overview).
 * A node under one of them cannot be read or clicked, so a first view (and
 * scrolling to a step) keeps nodes out of a band along one side per
 * control: the side whose band costs this graph least. Controls that take
 * no input (can-target false: hints, "Running…") are let be.
 *
 * Where a control is comes from its own size request, alignment and
 * margins, as GtkOverlay places it, not from its allocation: a control the
 * window shows just after giving the canvas a new graph has none yet, and
 * the canvas refits when one appears or goes (while the view is its own). */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-overview.h"

#include <math.h>
#include <string.h>

/* Space kept between a node and a control. */
#define CLEARANCE 6.0
#define MAX_FLOATING 6

/* Where child would be placed in a w × h overlay along one axis. */
static void
place (GtkAlign  align,
       double    size,
       double    natural,
       double    m0,
       double    m1,
       double   *pos,
       double   *len)
{
  double room = MAX (size - m0 - m1, 0);
  *len = align == GTK_ALIGN_FILL ? room : MIN (natural, room);
  switch (align)
    {
    case GTK_ALIGN_START:
      *pos = m0;
      break;
    case GTK_ALIGN_END:
      *pos = size - m1 - *len;
      break;
    case GTK_ALIGN_CENTER:
    case GTK_ALIGN_BASELINE:
      *pos = m0 + (room - *len) / 2;
      break;
    case GTK_ALIGN_FILL:
    default:
      *pos = m0;
      break;
    }
}

static gboolean
floating_rect (CrGraphCanvas *self,
               GtkWidget     *child,
               double         w,
               double         h,
               double         r[4])
{
  /* The overview is a map of the nodes: they may pass under it, but not
   * on a projector, where nobody moves it away. */
  if (!gtk_widget_get_visible (child) || !gtk_widget_get_can_target (child)
      || (CR_IS_GRAPH_OVERVIEW (child) && !self->presentation))
    return FALSE;
  int min_w, nat_w, min_h, nat_h;
  gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, &nat_w, NULL, NULL);
  gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, MIN (nat_w, (int) w), &min_h, &nat_h,
                      NULL, NULL);
  if (nat_w <= 0 || nat_h <= 0)
    return FALSE;
  /* A measured size includes the margins. */
  double ms = gtk_widget_get_margin_start (child), me = gtk_widget_get_margin_end (child);
  double mt = gtk_widget_get_margin_top (child), mb = gtk_widget_get_margin_bottom (child);
  double x, y, cw, ch;
  place (gtk_widget_get_halign (child), w, nat_w - ms - me, ms, me, &x, &cw);
  place (gtk_widget_get_valign (child), h, nat_h - mt - mb, mt, mb, &y, &ch);
  /* A control filling the whole canvas (an empty-state page) is a page,
   * not a control. */
  if (cw >= w - 1 && ch >= h - 1)
    return FALSE;
  r[0] = x - CLEARANCE;
  r[1] = y - CLEARANCE;
  r[2] = x + cw + CLEARANCE;
  r[3] = y + ch + CLEARANCE;
  return TRUE;
}

static void
on_floating_changed (GtkWidget     *child,
                     GParamSpec    *pspec,
                     CrGraphCanvas *self)
{
  cr_graph_canvas_refit_if_auto (self);
}

void
cr_graph_canvas_watch_floating (CrGraphCanvas *self)
{
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));
  if (!GTK_IS_OVERLAY (parent) || parent == self->floating_parent)
    return;
  self->floating_parent = parent;
  for (GtkWidget *child = gtk_widget_get_first_child (parent); child;
       child = gtk_widget_get_next_sibling (child))
    if (child != GTK_WIDGET (self))
      {
        g_signal_connect_object (child, "notify::visible", G_CALLBACK (on_floating_changed),
                                 self, 0);
        g_signal_connect_object (child, "notify::can-target", G_CALLBACK (on_floating_changed),
                                 self, 0);
      }
}

/* The zoom at which gw × gh points fit into area, less the margin. */
static double
fit_zoom (const double area[4],
          double       gw,
          double       gh,
          double       margin)
{
  double zw = (area[2] - area[0] - 2 * margin) / MAX (gw, 1.0);
  double zh = (area[3] - area[1] - 2 * margin) / MAX (gh, 1.0);
  return MIN (zw, zh);
}

void
cr_graph_canvas_free_area (CrGraphCanvas *self,
                           double         gw,
                           double         gh,
                           double         margin,
                           double         area[4])
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  area[0] = 0;
  area[1] = 0;
  area[2] = w;
  area[3] = h;
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));
  if (!GTK_IS_OVERLAY (parent) || w <= 1 || h <= 1)
    return;
  cr_graph_canvas_watch_floating (self);

  double rects[MAX_FLOATING][4];
  guint n = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (parent); child && n < MAX_FLOATING;
       child = gtk_widget_get_next_sibling (child))
    if (child != GTK_WIDGET (self) && floating_rect (self, child, w, h, rects[n]))
      n++;

  /* Every way of giving each control a side (4^n, n is a handful): the
   * one leaving the largest zoom for the graph, then the largest area. */
  guint combos = 1u << (2 * n);
  double best_zoom = -G_MAXDOUBLE, best_size = -1;
  for (guint c = 0; c < combos; c++)
    {
      double a[4] = { 0, 0, w, h };
      for (guint i = 0; i < n; i++)
        {
          const double *r = rects[i];
          switch ((c >> (2 * i)) & 3)
            {
            case 0:  a[1] = MAX (a[1], r[3]); break;   /* a band along the top */
            case 1:  a[3] = MIN (a[3], r[1]); break;   /* the bottom */
            case 2:  a[0] = MAX (a[0], r[2]); break;   /* the left */
            default: a[2] = MIN (a[2], r[0]); break;   /* the right */
            }
        }
      if (a[2] - a[0] < 2 * margin + 1 || a[3] - a[1] < 2 * margin + 1)
        continue;
      double z = fit_zoom (a, gw, gh, margin);
      double size = (a[2] - a[0]) * (a[3] - a[1]);
      if (z > best_zoom + 1e-9 || (fabs (z - best_zoom) <= 1e-9 && size > best_size))
        {
          best_zoom = z;
          best_size = size;
          memcpy (area, a, sizeof a);
        }
    }
}

/* Whether a node of layout at zoom z, placed at tx, ty, lies under one of
 * the n control rectangles. */
static gboolean
under_a_control (const CrGraphLayout *layout,
                 double               z,
                 double               tx,
                 double               ty,
                 const double         rects[][4],
                 guint                n)
{
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CrGraphBox *b = &layout->nodes[i];
      double x0 = tx + z * b->x, y0 = ty + z * b->y;
      double x1 = x0 + z * b->width, y1 = y0 + z * b->height;
      for (guint c = 0; c < n; c++)
        if (x0 < rects[c][2] && x1 > rects[c][0] && y0 < rects[c][3] && y1 > rects[c][1])
          return TRUE;
    }
  return FALSE;
}

gboolean
cr_graph_canvas_clear_place (CrGraphCanvas       *self,
                             const CrGraphLayout *layout,
                             double               z,
                             double               margin,
                             double              *tx,
                             double              *ty)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));
  if (!layout || w <= 1 || h <= 1)
    return FALSE;
  /* The range of places that keep the graph inside the canvas. */
  double x_lo = margin, x_hi = w - margin - z * layout->width;
  double y_lo = margin, y_hi = h - margin - z * layout->height;
  if (x_hi < x_lo || y_hi < y_lo)
    return FALSE;
  double rects[MAX_FLOATING][4];
  guint n = 0;
  if (GTK_IS_OVERLAY (parent))
    for (GtkWidget *child = gtk_widget_get_first_child (parent); child && n < MAX_FLOATING;
         child = gtk_widget_get_next_sibling (child))
      if (child != GTK_WIDGET (self) && floating_rect (self, child, w, h, rects[n]))
        n++;
  double want_x = CLAMP (*tx, x_lo, x_hi), want_y = CLAMP (*ty, y_lo, y_hi);
  if (!under_a_control (layout, z, want_x, want_y, rects, n))
    {
      *tx = want_x;
      *ty = want_y;
      return TRUE;
    }
  /* Every place 2 px apart (a few thousand for a graph that almost fills
   * the canvas, a few nodes each): the nearest clear one. */
  const double step = 2.0;
  double best = G_MAXDOUBLE, best_x = 0, best_y = 0;
  for (double x = x_lo; x <= x_hi + 1e-9; x += step)
    for (double y = y_lo; y <= y_hi + 1e-9; y += step)
      {
        double d = (x - want_x) * (x - want_x) + (y - want_y) * (y - want_y);
        if (d < best && !under_a_control (layout, z, x, y, rects, n))
          {
            best = d;
            best_x = x;
            best_y = y;
          }
      }
  if (best == G_MAXDOUBLE)
    return FALSE;
  *tx = best_x;
  *ty = best_y;
  return TRUE;
}
