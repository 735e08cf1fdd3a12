/* cr-graph-canvas.c — the graph of a run, drawn by cr_graph_render.
 *
 * The view is a zoom and a pan (where the layout's origin lands on the
 * widget). The layout and all text shaping happen once per model (in the
 * render cache); frames are drawn in cr-graph-canvas-draw.c, the person's
 * input is handled in cr-graph-canvas-input.c, and the first view (the
 * fit, the way the graph flows) is chosen in cr-graph-canvas-fit.c.
 *
 * Three things animate, all from one tick callback: the gradient of the
 * current step travelling back along its edges, nodes gliding from their old
 * places when an edited script gives a graph that shares nodes with the old
 * one (matched by node key; new nodes fade in), and the view scrolling a
 * node into sight. */
#include "cr-config.h"
#include "cr-graph-canvas-private.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#define MARGIN        CR_GRAPH_CANVAS_MARGIN
#define ZOOM_MIN      CR_GRAPH_CANVAS_ZOOM_MIN
#define ZOOM_MAX      CR_GRAPH_CANVAS_ZOOM_MAX
#define ZOOM_STEP     1.25
/* How much of the graph always stays on screen while panning. */
#define KEEP_VISIBLE  80.0
#define PULSE_US      (650 * G_TIME_SPAN_MILLISECOND)
#define MORPH_US      (260 * G_TIME_SPAN_MILLISECOND)
#define GLIDE_US      (240 * G_TIME_SPAN_MILLISECOND)


G_DEFINE_FINAL_TYPE (CrGraphCanvas, cr_graph_canvas, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_STEP,
  PROP_N_STEPS,
  PROP_SELECTED,
  PROP_ZOOM,
  PROP_DIMMED,
  PROP_PRESENTATION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- helpers ------------------------------------------------------------- */

static gboolean
animations_on (CrGraphCanvas *self)
{
  gboolean enabled = TRUE;
  g_object_get (gtk_widget_get_settings (GTK_WIDGET (self)), "gtk-enable-animations", &enabled, NULL);
  return self->animate && enabled;
}

static double
ease_out (double t)
{
  t = CLAMP (t, 0.0, 1.0);
  return 1 - pow (1 - t, 3);
}

static double
ease_in_out (double t)
{
  t = CLAMP (t, 0.0, 1.0);
  return t < 0.5 ? 4 * t * t * t : 1 - pow (-2 * t + 2, 3) / 2;
}

const CrGraphLayout *
cr_graph_canvas_drawn_layout (CrGraphCanvas *self)
{
  return self->display ? self->display : self->layout;
}

void
cr_graph_canvas_box_center (const CrGraphBox *b,
                            double           *x,
                            double           *y)
{
  *x = b->x + b->width / 2;
  *y = b->y + b->height / 2;
}

/* Keeps a pan at zoom z from losing the graph: KEEP_VISIBLE pixels of it
 * stay on screen. */
static void
clamp_pan (CrGraphCanvas *self,
           double         z,
           double        *tx,
           double        *ty)
{
  if (!self->layout)
    return;
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  double gw = z * self->layout->width, gh = z * self->layout->height;
  double kx = MIN (KEEP_VISIBLE, gw), ky = MIN (KEEP_VISIBLE, gh);
  *tx = CLAMP (*tx, kx - gw, MAX (w - kx, kx - gw));
  *ty = CLAMP (*ty, ky - gh, MAX (h - ky, ky - gh));
}

static void
clamp_view (CrGraphCanvas *self)
{
  clamp_pan (self, self->zoom, &self->tx, &self->ty);
}

void
cr_graph_canvas_stop_gliding (CrGraphCanvas *self)
{
  self->gliding = FALSE;
}

void
cr_graph_canvas_zoom_around (CrGraphCanvas *self,
                             double         z,
                             double         px,
                             double         py)
{
  z = CLAMP (z, ZOOM_MIN, ZOOM_MAX);
  cr_graph_canvas_stop_gliding (self);
  self->auto_view = FALSE;
  if (self->layout)
    {
      double gx = (px - self->tx) / self->zoom, gy = (py - self->ty) / self->zoom;
      self->tx = px - gx * z;
      self->ty = py - gy * z;
    }
  gboolean changed = fabs (z - self->zoom) > 1e-9;
  self->zoom = z;
  clamp_view (self);
  cr_graph_canvas_popover_follow (self);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cr_graph_canvas_move_to (CrGraphCanvas *self,
                         double         tx,
                         double         ty)
{
  cr_graph_canvas_stop_gliding (self);
  self->auto_view = FALSE;
  self->tx = tx;
  self->ty = ty;
  clamp_view (self);
  cr_graph_canvas_popover_follow (self);
  cr_graph_canvas_update_cursor (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cr_graph_canvas_set_view (CrGraphCanvas *self,
          double         z,
          double         tx,
          double         ty)
{
  gboolean changed = fabs (z - self->zoom) > 1e-9;
  self->zoom = CLAMP (z, ZOOM_MIN, ZOOM_MAX);
  self->tx = tx;
  self->ty = ty;
  clamp_view (self);
  cr_graph_canvas_popover_follow (self);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data);

static void
ensure_tick (CrGraphCanvas *self)
{
  if (!self->tick_id)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick, NULL, NULL);
}

static gint64
now_us (CrGraphCanvas *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  return clock ? gdk_frame_clock_get_frame_time (clock) : g_get_monotonic_time ();
}

/* Moves the view to zoom z and pan (tx, ty): smoothly when animating. The
 * zoom follows a geometric curve and the graph point at the centre a
 * straight line, so zooming and panning together feel like one motion. */
static void
glide_to (CrGraphCanvas *self,
          double         z,
          double         tx,
          double         ty)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  z = CLAMP (z, ZOOM_MIN, ZOOM_MAX);
  clamp_pan (self, z, &tx, &ty);
  if (!animations_on (self) || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      cr_graph_canvas_stop_gliding (self);
      cr_graph_canvas_set_view (self, z, tx, ty);
      return;
    }
  self->gliding = TRUE;
  self->glide_start = now_us (self);
  self->glide_from[0] = self->zoom;
  self->glide_from[1] = (w / 2 - self->tx) / self->zoom;
  self->glide_from[2] = (h / 2 - self->ty) / self->zoom;
  self->glide_to[0] = z;
  self->glide_to[1] = (w / 2 - tx) / z;
  self->glide_to[2] = (h / 2 - ty) / z;
  ensure_tick (self);
}

/* The view as it will be once any glide is over. */
static void
target_view (CrGraphCanvas *self,
             double        *z,
             double        *tx,
             double        *ty)
{
  if (!self->gliding)
    {
      *z = self->zoom;
      *tx = self->tx;
      *ty = self->ty;
      return;
    }
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  *z = self->glide_to[0];
  *tx = w / 2 - self->glide_to[1] * *z;
  *ty = h / 2 - self->glide_to[2] * *z;
}

/* Where the glide is at progress a (0..1). */
static void
glide_step (CrGraphCanvas *self,
            double         a)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  const double *f = self->glide_from, *t = self->glide_to;
  double z = f[0] * pow (t[0] / f[0], a);
  double cx = f[1] + (t[1] - f[1]) * a, cy = f[2] + (t[2] - f[2]) * a;
  gboolean changed = fabs (z - self->zoom) > 1e-9;
  self->zoom = z;
  self->tx = w / 2 - cx * z;
  self->ty = h / 2 - cy * z;
  cr_graph_canvas_popover_follow (self);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/* Bring node_id's box into view: smoothly when animating. */
static void
scroll_to_node (CrGraphCanvas *self,
                int            node_id)
{
  if (!self->layout || node_id < 0 || (guint) node_id >= self->layout->n_nodes)
    return;
  cr_graph_canvas_scroll_to_box (self, &self->layout->nodes[node_id]);
}

void
cr_graph_canvas_scroll_to_box (CrGraphCanvas    *self,
                               const CrGraphBox *b)
{
  if (!self->layout || !b)
    return;
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  if (w <= 1 || h <= 1 || self->need_fit)
    return;
  double z = self->zoom, m = 16.0;
  double x0 = self->tx + z * b->x, x1 = x0 + z * b->width;
  double y0 = self->ty + z * b->y, y1 = y0 + z * b->height;
  double dx = 0, dy = 0;
  /* Out of sight means under a floating control (the stepper) too. */
  double area[4];
  cr_graph_canvas_free_area (self, self->layout->width, self->layout->height, 0, area);
  /* Along an axis where it is out of sight: centred (so that what the
   * next steps reach, on either side, shows too), as far as the graph
   * goes; else no move. In presentation with the margin the fit keeps (a
   * graph whole only with its pad off screen stays whole, centred). */
  double margin = self->presentation ? cr_graph_canvas_fit_margin (self, z) : MARGIN;
  if (x0 < area[0] + m || x1 > area[2] - m)
    dx = cr_graph_canvas_place_axis (area[0], area[2], self->layout->width, z, b->x, b->x + b->width, FALSE,
                      margin) - self->tx;
  if (y0 < area[1] + m || y1 > area[3] - m)
    dy = cr_graph_canvas_place_axis (area[1], area[3], self->layout->height, z, b->y, b->y + b->height, FALSE,
                      margin) - self->ty;
  if (fabs (dx) < 0.5 && fabs (dy) < 0.5)
    return;
  /* In presentation the steps drive the view: it still follows the size
   * (the step card may widen the sidebar), fitted around the step (H8). */
  if (!self->presentation)
    self->auto_view = FALSE;
  glide_to (self, z, self->tx + dx, self->ty + dy);
}

void
cr_graph_canvas_end_morph (CrGraphCanvas *self)
{
  self->morphing = FALSE;
  g_clear_pointer (&self->display, cr_graph_layout_free);
  g_clear_pointer (&self->morph_dx, g_free);
  g_clear_pointer (&self->morph_dy, g_free);
  g_clear_pointer (&self->morph_new, g_free);
  g_clear_pointer (&self->alpha, g_free);
}

/* The layout as drawn at morph progress a: each node (and the ends of its
 * edges) still (1 - a) of its offset away from its place. */
static void
update_morph (CrGraphCanvas *self,
              double         a)
{
  const CrGraphLayout *to = self->layout;
  CrGraphLayout *d = self->display;
  double r = 1 - a;
  for (guint i = 0; i < to->n_nodes; i++)
    {
      d->nodes[i].x = to->nodes[i].x + r * self->morph_dx[i];
      d->nodes[i].y = to->nodes[i].y + r * self->morph_dy[i];
      self->alpha[i] = self->morph_new[i] ? a : 1.0;
    }
  for (guint i = 0; i < to->n_edges && i < self->model->edges->len; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (self->model->edges, i);
      const CrGraphPath *p = &to->edges[i];
      CrGraphPath *q = &d->edges[i];
      double fx = r * self->morph_dx[e->from], fy = r * self->morph_dy[e->from];
      double ex = r * self->morph_dx[e->to], ey = r * self->morph_dy[e->to];
      for (guint k = 0; k < p->n_points; k++)
        {
          double t = p->n_points > 1 ? (double) k / (p->n_points - 1) : 0;
          q->points[2 * k] = p->points[2 * k] + fx + (ex - fx) * t;
          q->points[2 * k + 1] = p->points[2 * k + 1] + fy + (ey - fy) * t;
        }
      q->arrow_x = p->arrow_x + ex;
      q->arrow_y = p->arrow_y + ey;
      q->label_x = p->label_x + (fx + ex) / 2;
      q->label_y = p->label_y + (fy + ey) / 2;
    }
}

static gboolean
tick (GtkWidget     *widget,
      GdkFrameClock *clock,
      gpointer       data)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (widget);
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  gboolean active = FALSE;

  if (self->morphing)
    {
      double t = (double) (now - self->morph_start) / MORPH_US;
      if (t >= 1.0 || !self->layout)
        cr_graph_canvas_end_morph (self);
      else
        {
          update_morph (self, ease_in_out (t));
          active = TRUE;
        }
    }
  if (self->gliding)
    {
      double t = (double) (now - self->glide_start) / GLIDE_US;
      glide_step (self, ease_out (t));
      if (t >= 1.0)
        self->gliding = FALSE;
      else
        active = TRUE;
    }
  if (self->pulsing)
    {
      double t = (double) (now - self->pulse_start) / PULSE_US;
      if (t >= 1.0)
        {
          self->pulsing = FALSE;
          self->pulse = -1;
        }
      else
        {
          self->pulse = ease_in_out (t);
          active = TRUE;
        }
    }
  gtk_widget_queue_draw (widget);
  if (active)
    return G_SOURCE_CONTINUE;
  self->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
start_pulse (CrGraphCanvas *self)
{
  self->pulsing = FALSE;
  self->pulse = -1;
  if (self->step < 0 || !animations_on (self) || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  self->pulsing = TRUE;
  self->pulse = 0;
  self->pulse_start = now_us (self);
  ensure_tick (self);
}

static int
compare_position (gconstpointer a,
                  gconstpointer b,
                  gpointer      data)
{
  const CrGraphLayout *layout = data;
  const CrGraphBox *ba = &layout->nodes[*(const guint *) a];
  const CrGraphBox *bb = &layout->nodes[*(const guint *) b];
  double ax, ay, bx, by;
  cr_graph_canvas_box_center (ba, &ax, &ay);
  cr_graph_canvas_box_center (bb, &bx, &by);
  /* Columns first (dot puts a rank's centres on one x), then rows. */
  if (fabs (ax - bx) > 1.0)
    return ax < bx ? -1 : 1;
  if (fabs (ay - by) > 0.5)
    return ay < by ? -1 : 1;
  return (int) *(const guint *) a - (int) *(const guint *) b;
}

void
cr_graph_canvas_update_tab_order (CrGraphCanvas *self)
{
  g_clear_pointer (&self->tab_order, g_free);
  if (!self->layout)
    return;
  guint n = self->layout->n_nodes;
  self->tab_order = g_new (guint, n + 1);
  for (guint i = 0; i < n; i++)
    self->tab_order[i] = i;
  g_qsort_with_data (self->tab_order, (gint) n, sizeof (guint), compare_position, self->layout);
}

/* ---- size ----------------------------------------------------------------- */

static void
cr_graph_canvas_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  *minimum = 100;
  *natural = 400;
}

static void
cr_graph_canvas_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (widget);
  cr_graph_canvas_watch_floating (self);
  int old_w = self->last_width, old_h = self->last_height;
  self->last_width = width;
  self->last_height = height;
  /* A child popover is placed by its parent's allocation. */
  cr_graph_canvas_popover_present (self);
  if (!self->layout)
    return;
  gboolean resized = old_w != width || old_h != height;
  if (self->need_fit || (self->auto_view && resized))
    {
      /* Until the view is moved, it follows the size. */
      cr_graph_canvas_choose_direction (self, self->need_fit);
      cr_graph_canvas_fit (self, FALSE);
      return;
    }
  /* In presentation the steps drive the view, and a new pane (F9, a card
   * that widens the sidebar) may want the other drawing (dot's ranks, or
   * the leaves beside): the choice is made again, a new one fitted. */
  if (self->presentation && resized)
    {
      gboolean was_beside = self->layout->beside;
      CrGraphLayoutDirection was_direction = self->direction;
      cr_graph_canvas_choose_direction (self, FALSE);
      if (self->layout->beside != was_beside || self->direction != was_direction)
        {
          cr_graph_canvas_fit (self, FALSE);
          return;
        }
    }
  if (old_w > 0 && old_h > 0 && resized)
    {
      /* Keep what was at the centre there. */
      self->tx += (width - old_w) / 2.0;
      self->ty += (height - old_h) / 2.0;
      clamp_view (self);
    }
}

/* ---- GObject ------------------------------------------------------------- */

static void
on_dark_changed (AdwStyleManager *manager,
                 GParamSpec      *pspec,
                 CrGraphCanvas   *self)
{
  cr_graph_canvas_clear_scene (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
cr_graph_canvas_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (object);

  switch (prop_id)
    {
    case PROP_STEP:
      g_value_set_int (value, self->step);
      break;
    case PROP_N_STEPS:
      g_value_set_uint (value, cr_graph_canvas_get_n_steps (self));
      break;
    case PROP_SELECTED:
      g_value_set_int (value, self->selected);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    case PROP_DIMMED:
      g_value_set_boolean (value, self->dimmed);
      break;
    case PROP_PRESENTATION:
      g_value_set_boolean (value, self->presentation);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_graph_canvas_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (object);

  switch (prop_id)
    {
    case PROP_STEP:
      cr_graph_canvas_set_step (self, g_value_get_int (value));
      break;
    case PROP_SELECTED:
      cr_graph_canvas_set_selected (self, g_value_get_int (value));
      break;
    case PROP_ZOOM:
      cr_graph_canvas_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_DIMMED:
      cr_graph_canvas_set_dimmed (self, g_value_get_boolean (value));
      break;
    case PROP_PRESENTATION:
      cr_graph_canvas_set_presentation (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_graph_canvas_dispose (GObject *object)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (object);

  if (self->tick_id)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  cr_graph_canvas_popover_close (self);
  cr_graph_canvas_end_morph (self);
  cr_graph_canvas_free_scene (self);
  g_clear_pointer (&self->tab_order, g_free);
  g_clear_pointer (&self->cache, cr_graph_render_cache_free);
  g_clear_pointer (&self->layout, cr_graph_layout_free);
  g_clear_pointer (&self->other_layout, cr_graph_layout_free);
  g_clear_pointer (&self->model, cr_graph_model_unref);
  g_clear_pointer (&self->highlight, cr_graph_highlight_unref);
  cr_graph_canvas_forward_dispose (self);
  cr_graph_canvas_groups_clear (self);

  G_OBJECT_CLASS (cr_graph_canvas_parent_class)->dispose (object);
}

static void
cr_graph_canvas_class_init (CrGraphCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_graph_canvas_dispose;
  object_class->get_property = cr_graph_canvas_get_property;
  object_class->set_property = cr_graph_canvas_set_property;
  widget_class->snapshot = cr_graph_canvas_snapshot;
  widget_class->measure = cr_graph_canvas_measure;
  widget_class->size_allocate = cr_graph_canvas_size_allocate;

  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_STEP] = g_param_spec_int ("step", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_N_STEPS] =
    g_param_spec_uint ("n-steps", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED] = g_param_spec_int ("selected", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_ZOOM] = g_param_spec_double ("zoom", NULL, NULL, ZOOM_MIN, ZOOM_MAX, 1.0, rw);
  properties[PROP_DIMMED] = g_param_spec_boolean ("dimmed", NULL, NULL, FALSE, rw);
  properties[PROP_PRESENTATION] = g_param_spec_boolean ("presentation", NULL, NULL, FALSE, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* A node double-clicked, or Enter or F2 on the selected one
   * (cr-graph-canvas-popover.c); TRUE: handled. */
  g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                g_signal_accumulator_true_handled, NULL, NULL,
                G_TYPE_BOOLEAN, 1, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "cr-graph-canvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cr_graph_canvas_init (CrGraphCanvas *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  self->step = -1;
  self->forward_step = -1;
  self->selected = -1;
  self->popover_node = -1;
  self->zoom = 1.0;
  self->animate = TRUE;
  self->pulse = -1;
  self->hovered = -1;
  gtk_widget_add_css_class (widget, "view");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Computation graph", -1);
  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, 0);

  cr_graph_canvas_init_input (self);
}

GtkWidget *
cr_graph_canvas_new (void)
{
  return g_object_new (CR_TYPE_GRAPH_CANVAS, NULL);
}

/* ---- models -------------------------------------------------------------- */

/* Start gliding the nodes of the new layout from where they were drawn:
 * old_x/old_y, on screen, by new node id; NaN for nodes that are new (they
 * fade in). refit: fit the new graph first; else keep the zoom, and turn the
 * survivors' mean movement into a pan, so on average they stay put. */
static void
carry_over (CrGraphCanvas *self,
            const double  *old_x,
            const double  *old_y,
            gboolean       refit)
{
  const CrGraphLayout *layout = self->layout;
  guint n = layout->n_nodes;
  if (refit)
    cr_graph_canvas_fit (self, FALSE);
  else
    {
      double sum_x = 0, sum_y = 0;
      guint matched = 0;
      for (guint i = 0; i < n; i++)
        if (!isnan (old_x[i]))
          {
            double cx, cy;
            cr_graph_canvas_box_center (&layout->nodes[i], &cx, &cy);
            sum_x += self->tx + self->zoom * cx - old_x[i];
            sum_y += self->ty + self->zoom * cy - old_y[i];
            matched++;
          }
      if (matched > 0)
        {
          self->tx -= sum_x / matched;
          self->ty -= sum_y / matched;
          clamp_view (self);
        }
    }

  if (!animations_on (self) || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  self->morph_dx = g_new0 (double, n + 1);
  self->morph_dy = g_new0 (double, n + 1);
  self->morph_new = g_new0 (gboolean, n + 1);
  self->alpha = g_new (double, n + 1);
  gboolean moves = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (isnan (old_x[i]))
        {
          self->morph_new[i] = TRUE;
          moves = TRUE;
          continue;
        }
      /* The offset (in the new layout's units) that puts it where it was. */
      double cx, cy;
      cr_graph_canvas_box_center (&layout->nodes[i], &cx, &cy);
      self->morph_dx[i] = (old_x[i] - self->tx) / self->zoom - cx;
      self->morph_dy[i] = (old_y[i] - self->ty) / self->zoom - cy;
      if (fabs (self->morph_dx[i]) > 0.5 || fabs (self->morph_dy[i]) > 0.5)
        moves = TRUE;
    }
  if (!moves)
    {
      cr_graph_canvas_end_morph (self);
      return;
    }
  self->display = cr_graph_layout_copy (layout);
  self->morphing = TRUE;
  self->morph_start = now_us (self);
  update_morph (self, 0.0);
  ensure_tick (self);
}

/* Lays out model (borrowed: the canvas holds it already) and swaps the new
 * layout in. old_x/old_y: where each new node was drawn, or NULL. */
static gboolean
install_layout (CrGraphCanvas *self,
                GError       **error)
{
  /* An edited graph keeps its leaves beside their ops (choose_beside). */
  gboolean beside = self->layout && self->layout->beside
                    && self->direction == CR_GRAPH_LAYOUT_TOP_TO_BOTTOM;
  cr_graph_canvas_clear_scene (self);
  g_clear_pointer (&self->cache, cr_graph_render_cache_free);
  g_clear_pointer (&self->layout, cr_graph_layout_free);
  g_clear_pointer (&self->other_layout, cr_graph_layout_free);
  if (!self->model)
    return TRUE;
  self->cache = cr_graph_render_cache_new (self->model, self->presentation);
  self->layout = beside ? cr_graph_canvas_layout_beside (self, error)
                        : cr_graph_render_layout_directed (self->model, self->cache, self->direction, error);
  if (!self->layout)
    {
      g_clear_pointer (&self->cache, cr_graph_render_cache_free);
      return FALSE;
    }
  return TRUE;
}

/* Where each node is drawn now on screen, by key (first wins); outlives
 * the model. */
static GHashTable *
drawn_centers_by_key (CrGraphCanvas *self)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const CrGraphLayout *layout = cr_graph_canvas_drawn_layout (self);
  if (!self->model || !layout)
    return table;
  for (guint i = 0; i < self->model->nodes->len && i < layout->n_nodes; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (self->model->nodes, i);
      if (!n->key || g_hash_table_contains (table, n->key))
        continue;
      double *c = g_new (double, 2);
      cr_graph_canvas_box_center (&layout->nodes[i], &c[0], &c[1]);
      c[0] = self->tx + self->zoom * c[0];
      c[1] = self->ty + self->zoom * c[1];
      g_hash_table_insert (table, g_strdup (n->key), c);
    }
  return table;
}

static gboolean replace_model (CrGraphCanvas *self,
                               CrGraphModel  *model,
                               gboolean       keep_step,
                               GError       **error);

gboolean
cr_graph_canvas_take_model (CrGraphCanvas *self,
                            CrGraphModel  *model,
                            GError       **error)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  /* The same picture again (an edit in a comment) keeps its tiles: what
   * they were painted from goes aside before the groups change. */
  cr_graph_canvas_keep_drawing (self);
  /* Module code shows collapsed: self->model is what is drawn. */
  return replace_model (self, cr_graph_canvas_groups_take (self, model), FALSE, error);
}

void
cr_graph_canvas_show_collapsed (CrGraphCanvas *self,
                                CrGraphModel  *shown)
{
  g_autoptr (GError) error = NULL;
  if (!replace_model (self, shown, TRUE, &error))
    g_warning ("Could not lay out the graph: %s", error->message);
}

static gboolean
replace_model (CrGraphCanvas *self,
               CrGraphModel  *model,
               gboolean       keep_step,
               GError       **error)
{
  /* A popover points at a node of the old graph. */
  cr_graph_canvas_popover_close (self);
  /* What to carry over from the old graph: the node places and selection. */
  g_autoptr (GHashTable) old_centers = drawn_centers_by_key (self);
  g_autofree char *selected_key = NULL;
  if (self->model && self->selected >= 0 && (guint) self->selected < self->model->nodes->len)
    {
      const CrGraphNode *n = g_ptr_array_index (self->model->nodes, self->selected);
      selected_key = g_strdup (n->key);
    }
  gboolean had_view = self->layout && !self->need_fit;

  cr_graph_canvas_end_morph (self);
  self->pulsing = FALSE;
  self->pulse = -1;
  g_clear_pointer (&self->model, cr_graph_model_unref);
  self->model = model;
  gboolean ok = install_layout (self, error);
  if (!ok)
    g_clear_pointer (&self->model, cr_graph_model_unref);

  int old_selected = self->selected;
  self->selected = -1;
  guint matched = 0;
  if (self->model)
    {
      guint n = self->model->nodes->len;
      g_autofree double *old_x = g_new (double, n + 1);
      g_autofree double *old_y = g_new (double, n + 1);
      for (guint i = 0; i < n; i++)
        {
          const CrGraphNode *node = g_ptr_array_index (self->model->nodes, i);
          const double *c = node->key ? g_hash_table_lookup (old_centers, node->key) : NULL;
          old_x[i] = c ? c[0] : NAN;
          old_y[i] = c ? c[1] : NAN;
          matched += c != NULL;
          if (selected_key && self->selected < 0 && g_strcmp0 (node->key, selected_key) == 0)
            self->selected = (int) i;
        }
      /* Some of the old graph remains: keep the view; else show the new one. */
      if (matched > 0 && had_view)
        carry_over (self, old_x, old_y, FALSE);
      else
        {
          cr_graph_canvas_choose_direction (self, TRUE);
          cr_graph_canvas_fit (self, FALSE);
        }
    }
  cr_graph_canvas_update_tab_order (self);

  if (!keep_step || !self->model)
    self->step = -1;
  cr_graph_canvas_forward_model_changed (self, keep_step);
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_STEPS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
  if (old_selected != self->selected)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
  g_object_thaw_notify (G_OBJECT (self));
  cr_graph_canvas_update_cursor (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return ok;
}

const CrGraphModel *
cr_graph_canvas_get_model (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), NULL);
  return self->model;
}

guint
cr_graph_canvas_get_n_steps (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), 0);
  return self->model ? self->model->n_steps : 0;
}

int
cr_graph_canvas_get_step (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  return self->step;
}

void
cr_graph_canvas_set_step (CrGraphCanvas *self,
                          int            step)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));

  step = CLAMP (step, -1, (int) cr_graph_canvas_get_n_steps (self) - 1);
  if (step == self->step)
    return;
  self->step = step;
  const CrGraphNode *node = step >= 0 ? cr_graph_model_find_step (self->model, step) : NULL;
  double span[4], area[4];
  if (node && self->presentation && self->layout)
    cr_graph_canvas_free_area (self, self->layout->width, self->layout->height, 0, area);
  if (node && self->presentation && self->layout
      && cr_graph_canvas_step_span (self, step, self->zoom, area[2] - area[0] - 2 * MARGIN,
                                    area[3] - area[1] - 2 * MARGIN, span))
    {
      CrGraphBox box = { .x = span[0], .y = span[1], .width = span[2] - span[0], .height = span[3] - span[1] };
      cr_graph_canvas_scroll_to_box (self, &box);
    }
  else if (node)
    scroll_to_node (self, (int) node->id);
  start_pulse (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

int
cr_graph_canvas_get_selected (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), -1);
  return self->selected;
}

void
cr_graph_canvas_set_selected (CrGraphCanvas *self,
                              int            node_id)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));

  guint n = self->layout ? self->layout->n_nodes : 0;
  if (node_id < 0 || (guint) node_id >= n)
    node_id = -1;
  if (node_id >= 0)
    scroll_to_node (self, node_id);
  if (node_id == self->selected)
    return;
  self->selected = node_id;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cr_graph_canvas_select_next (CrGraphCanvas *self,
                             gboolean       backwards)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));

  guint n = self->layout ? self->layout->n_nodes : 0;
  if (n == 0 || !self->tab_order)
    return;
  guint pos = 0;
  gboolean found = FALSE;
  for (guint i = 0; i < n; i++)
    if ((int) self->tab_order[i] == self->selected)
      {
        pos = i;
        found = TRUE;
        break;
      }
  guint next;
  if (!found)
    next = backwards ? n - 1 : 0;
  else
    next = backwards ? (pos + n - 1) % n : (pos + 1) % n;
  cr_graph_canvas_set_selected (self, (int) self->tab_order[next]);
}

double
cr_graph_canvas_get_zoom (CrGraphCanvas *self)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), 1.0);
  return self->zoom;
}

void
cr_graph_canvas_set_zoom (CrGraphCanvas *self,
                          double         zoom)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  self->need_fit = FALSE;
  cr_graph_canvas_zoom_around (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
                               gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

/* Zoom by factor around the centre, from where any glide is heading. */
static void
zoom_by (CrGraphCanvas *self,
         double         factor)
{
  double z, tx, ty;
  target_view (self, &z, &tx, &ty);
  double z1 = CLAMP (z * factor, ZOOM_MIN, ZOOM_MAX);
  double px = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
  double py = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
  self->need_fit = FALSE;
  self->auto_view = FALSE;
  if (!self->layout)
    {
      cr_graph_canvas_set_view (self, z1, tx, ty);
      return;
    }
  glide_to (self, z1, px - (px - tx) / z * z1, py - (py - ty) / z * z1);
}

void
cr_graph_canvas_zoom_in (CrGraphCanvas *self)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  zoom_by (self, ZOOM_STEP);
}

void
cr_graph_canvas_zoom_out (CrGraphCanvas *self)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  zoom_by (self, 1 / ZOOM_STEP);
}

void
cr_graph_canvas_refit (CrGraphCanvas *self)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  if (!self->layout)
    return;
  self->need_fit = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

void
cr_graph_canvas_zoom_fit (CrGraphCanvas *self)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  double z, tx, ty;
  if (!cr_graph_canvas_fitted_view (self, TRUE, &z, &tx, &ty))
    {
      cr_graph_canvas_fit (self, TRUE);
      return;
    }
  self->need_fit = FALSE;
  self->auto_view = FALSE;
  glide_to (self, z, tx, ty);
}

void
cr_graph_canvas_set_dimmed (CrGraphCanvas *self,
                            gboolean       dimmed)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  dimmed = !!dimmed;
  if (dimmed == self->dimmed)
    return;
  self->dimmed = dimmed;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DIMMED]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cr_graph_canvas_set_presentation (CrGraphCanvas *self,
                                  gboolean       presentation)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  presentation = !!presentation;
  if (presentation == self->presentation)
    return;
  self->presentation = presentation;
  if (self->model)
    {
      /* Bigger type means bigger boxes: lay out again and glide there. */
      guint n = self->model->nodes->len;
      g_autofree double *old_x = g_new (double, n + 1);
      g_autofree double *old_y = g_new (double, n + 1);
      const CrGraphLayout *old = cr_graph_canvas_drawn_layout (self);
      for (guint i = 0; i < n; i++)
        {
          cr_graph_canvas_box_center (&old->nodes[i], &old_x[i], &old_y[i]);
          old_x[i] = self->tx + self->zoom * old_x[i];
          old_y[i] = self->ty + self->zoom * old_y[i];
        }
      cr_graph_canvas_end_morph (self);
      g_autoptr (GError) error = NULL;
      if (!install_layout (self, &error))
        {
          /* The same graph laid out before; only a graphviz failure can get here. */
          g_warning ("Could not lay out the graph again: %s", error->message);
          g_clear_pointer (&self->model, cr_graph_model_unref);
          self->selected = -1;
        }
      else
        {
          /* A new mode, a new first view: the larger graph fitted as the
           * normal one was, the nodes gliding there. */
          self->need_fit = FALSE;
          cr_graph_canvas_choose_direction (self, TRUE);
          carry_over (self, old_x, old_y, TRUE);
        }
      cr_graph_canvas_update_tab_order (self);
    }
  /* Presented, no node is hovered. */
  cr_graph_canvas_update_cursor (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRESENTATION]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cr_graph_canvas_set_animate (CrGraphCanvas *self,
                             gboolean       animate)
{
  g_return_if_fail (CR_IS_GRAPH_CANVAS (self));
  self->animate = !!animate;
  if (!self->animate)
    {
      cr_graph_canvas_end_morph (self);
      if (self->gliding)
        {
          double z, tx, ty;
          target_view (self, &z, &tx, &ty);
          cr_graph_canvas_stop_gliding (self);
          cr_graph_canvas_set_view (self, z, tx, ty);
        }
      self->pulsing = FALSE;
      self->pulse = -1;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

gboolean
cr_graph_canvas_export (CrGraphCanvas *self,
                        const char    *path,
                        GError       **error)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!self->model || !self->layout)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "There is no graph to export yet");
      return FALSE;
    }
  CrGraphRenderOptions options;
  cr_graph_canvas_fill_render_options (self, &options);
  options.dimmed = self->dimmed;
  return cr_graph_render_to_file (self->model, self->layout, &options, path, error);
}
