/* cr-training-view.c — the Training page (cr-training-view.h).
 *
 * Drawn with Cairo in two drawing areas: the loss curve, and the
 * parameters as small multiples (a value chart and a gradient chart a
 * parameter). Sizes follow the widget's font, so presentation's larger type
 * makes the charts larger too. */
#include "cr-training-view.h"

#include "cr-card-style.h"
#include "cr-training.h"
#include "cr-training-element.h"
#include "cr-training-rules.h"
#include "cr-training-step.h"

#include <adwaita.h>
#include <math.h>

/* Up to this many elements a parameter gets a line each; above, its norm. */
#define MAX_ELEMENT_LINES 8
/* Left margin of a chart, in lines of text (the axis' numbers). */
#define CURVE_LEFT_EM 3.7

struct _CrTrainingView
{
  GtkBox          parent_instance;

  /* Owned */
  CrRunRecord    *record;
  GArray         *points;       /* of CrTrainingPoint */
  GPtrArray      *params;       /* of CrTrainingParam* */
  GPtrArray      *printed;      /* of CrTrainingSeries* */
  int             chosen;       /* backward call, -1 */
  char           *text;

  /* Borrowed (children) */
  GtkWidget      *curve_title;
  GtkWidget      *curve;
  GtkWidget      *printed_area;
  GtkWidget      *params_title;
  GtkWidget      *params_area;
  GtkWidget      *element_title;
  GtkWidget      *element_picker;
  GtkWidget      *step_title;
  GtkWidget      *steps_box;    /* a CrTrainingStep an update, or a note */
  GtkWidget      *empty_label;

  /* The curve's plot box as last drawn */
  double          plot_x, plot_y, plot_w, plot_h;
  double          low, high;    /* its loss range */
  gboolean        laid_out;
  guint           resize_id;    /* an idle that fits the areas to the type */
};

G_DEFINE_FINAL_TYPE (CrTrainingView, cr_training_view, GTK_TYPE_BOX)

static void check_size (CrTrainingView *self,
                        GtkWidget      *area,
                        int             wanted);

enum {
  SIGNAL_BACKWARD_PICKED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

/* ---- colours and text --------------------------------------------------------- */

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
set_rgba (cairo_t    *cr,
          const char *spec,
          double      alpha)
{
  GdkRGBA c;
  gdk_rgba_parse (&c, spec);
  cairo_set_source_rgba (cr, c.red, c.green, c.blue, c.alpha * alpha);
}

static void
set_fg (GtkWidget *widget,
        cairo_t   *cr,
        double     alpha)
{
  GdkRGBA c;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &c);
  G_GNUC_END_IGNORE_DEPRECATIONS
  cairo_set_source_rgba (cr, c.red, c.green, c.blue, alpha);
}

/* One hue an element: distinct in light and dark. */
static const char *
element_colour (guint i)
{
  static const char *const light[] = {
    "#1c71d8", "#e66100", "#26a269", "#9141ac", "#c01c28", "#865e3c", "#0f8fa8", "#a51d7d",
  };
  static const char *const dark[] = {
    "#78aeed", "#ffa348", "#8ff0a4", "#dc8add", "#f66151", "#cdab8f", "#66d9ef", "#f47fd3",
  };
  return (is_dark () ? dark : light)[i % G_N_ELEMENTS (light)];
}

static const char *
accent (void)
{
  return is_dark () ? "#78aeed" : "#1c71d8";
}

/* A layout of text in the widget's font, at scale × its size. */
static PangoLayout *
text_layout (GtkWidget  *widget,
             const char *text,
             double      scale)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  if (scale != 1.0)
    {
      const PangoFontDescription *base = pango_context_get_font_description (pango_layout_get_context (layout));
      PangoFontDescription *desc = pango_font_description_copy (base);
      pango_font_description_set_size (desc, (int) (pango_font_description_get_size (desc) * scale));
      pango_layout_set_font_description (layout, desc);
      pango_font_description_free (desc);
    }
  return layout;
}

/* How much larger than the window's usual type the widget's is: the
 * curve's marks and strokes grow with presentation's type as its text does
 * (1 at the usual size, never less). */
static double
mark_scale (double em)
{
  return MAX (em / 15.0, 1.0);
}

/* The width of text as draw_text draws it, in pixels. */
static double
text_width (GtkWidget  *widget,
            const char *text)
{
  g_autoptr (PangoLayout) layout = text_layout (widget, text, 0.85);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  return w;
}

/* The font's line height in pixels. */
static double
line_height (GtkWidget *widget)
{
  g_autoptr (PangoLayout) layout = text_layout (widget, "0", 0.85);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  return MAX (h, 8);
}

static void
number_text (char   *buf,
             gsize   size,
             double  value)
{
  g_ascii_formatd (buf, size, "%.3g", value);
}

/* Text at (x, y) (its top), aligned by align_x (0 left, 0.5 centre, 1
 * right); boxed: on a patch of the page's colour, so a chart's line under
 * it does not cross it. */
static void
draw_text_full (GtkWidget  *widget,
                cairo_t    *cr,
                const char *text,
                double      x,
                double      y,
                double      align_x,
                double      alpha,
                gboolean    boxed)
{
  g_autoptr (PangoLayout) layout = text_layout (widget, text, 0.85);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  if (boxed)
    {
      set_rgba (cr, is_dark () ? "#303030" : "#fafafa", 0.85);
      cairo_rectangle (cr, x - align_x * w - 2, y, w + 4, h);
      cairo_fill (cr);
    }
  set_fg (widget, cr, alpha);
  cairo_move_to (cr, x - align_x * w, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_text (GtkWidget  *widget,
           cairo_t    *cr,
           const char *text,
           double      x,
           double      y,
           double      align_x,
           double      alpha)
{
  draw_text_full (widget, cr, text, x, y, align_x, alpha, FALSE);
}

/* ---- the loss curve ------------------------------------------------------------ */

static void
range_of (GArray *points,
          double *low,
          double *high)
{
  *low = INFINITY;
  *high = -INFINITY;
  for (guint i = 0; i < points->len; i++)
    {
      double v = g_array_index (points, CrTrainingPoint, i).loss;
      if (!isfinite (v))
        continue;
      *low = MIN (*low, v);
      *high = MAX (*high, v);
    }
  if (!isfinite (*low))
    *low = 0, *high = 1;
  /* A loss that falls toward 0 reads best from 0. */
  if (*low >= 0 && *low < 0.5 * *high)
    *low = 0;
  if (*high - *low < 1e-12)
    *low -= 0.5, *high += 0.5;
}

static double
point_x (CrTrainingView *self,
         guint           i)
{
  guint n = self->points->len;
  return self->plot_x + (n > 1 ? self->plot_w * i / (n - 1) : self->plot_w / 2);
}

static double
point_y (CrTrainingView *self,
         double          loss)
{
  if (!isfinite (loss))
    return self->plot_y;
  return self->plot_y + self->plot_h * (1 - (loss - self->low) / (self->high - self->low));
}

/* The point of the chosen call, -1. */
static int
chosen_point (CrTrainingView *self)
{
  for (guint i = 0; self->points && i < self->points->len; i++)
    if ((int) g_array_index (self->points, CrTrainingPoint, i).backward == self->chosen)
      return (int) i;
  return -1;
}

static void
draw_curve (GtkDrawingArea *area,
            cairo_t        *cr,
            int             width,
            int             height,
            gpointer        data)
{
  CrTrainingView *self = data;
  GtkWidget *widget = GTK_WIDGET (area);
  if (!self->points || self->points->len == 0)
    return;
  double em = line_height (widget);
  double k = mark_scale (em);
  check_size (self, widget, (int) (em * 9));
  /* The focus ring: the keys move the chosen call while it shows. */
  if (gtk_widget_has_focus (widget))
    {
      set_rgba (cr, accent (), 0.8);
      cairo_set_line_width (cr, 2 * k);
      cairo_rectangle (cr, 1, 1, width - 2, height - 2);
      cairo_stroke (cr);
    }
  self->plot_x = CURVE_LEFT_EM * em;
  self->plot_y = em * 0.6;
  self->plot_w = MAX (width - self->plot_x - em * 0.8, 10);
  self->plot_h = MAX (height - self->plot_y - em * 1.4, 10);
  range_of (self->points, &self->low, &self->high);
  self->laid_out = TRUE;

  /* Axes: the range's ends, and the calls' first and last. */
  set_fg (widget, cr, 0.25);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, self->plot_x + 0.5, self->plot_y + 0.5, self->plot_w, self->plot_h);
  cairo_stroke (cr);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  number_text (buf, sizeof buf, self->high);
  draw_text (widget, cr, buf, self->plot_x - em * 0.3, self->plot_y - em * 0.5, 1, 0.7);
  number_text (buf, sizeof buf, self->low);
  draw_text (widget, cr, buf, self->plot_x - em * 0.3, self->plot_y + self->plot_h - em * 0.6, 1, 0.7);
  const CrTrainingPoint *first = &g_array_index (self->points, CrTrainingPoint, 0);
  const CrTrainingPoint *last = &g_array_index (self->points, CrTrainingPoint, self->points->len - 1);
  g_snprintf (buf, sizeof buf, "%u", first->backward + 1);
  draw_text (widget, cr, buf, self->plot_x, self->plot_y + self->plot_h + em * 0.15, 0, 0.7);
  g_snprintf (buf, sizeof buf, "%u", last->backward + 1);
  draw_text (widget, cr, buf, self->plot_x + self->plot_w, self->plot_y + self->plot_h + em * 0.15, 1, 0.7);
  draw_text (widget, cr, "backward call", self->plot_x + self->plot_w / 2,
             self->plot_y + self->plot_h + em * 0.15, 0.5, 0.55);

  /* The curve, and its points while they stand apart. */
  set_rgba (cr, accent (), 1);
  cairo_set_line_width (cr, 1.6 * k);
  for (guint i = 0; i < self->points->len; i++)
    {
      double loss = g_array_index (self->points, CrTrainingPoint, i).loss;
      if (i == 0)
        cairo_move_to (cr, point_x (self, i), point_y (self, loss));
      else
        cairo_line_to (cr, point_x (self, i), point_y (self, loss));
    }
  cairo_stroke (cr);
  double spacing = self->points->len > 1 ? self->plot_w / (self->points->len - 1) : self->plot_w;
  if (spacing >= 5 * k)
    for (guint i = 0; i < self->points->len; i++)
      {
        double loss = g_array_index (self->points, CrTrainingPoint, i).loss;
        cairo_arc (cr, point_x (self, i), point_y (self, loss), MIN (2.5 * k, spacing / 3), 0, 2 * G_PI);
        cairo_fill (cr);
      }

  /* The chosen call: a ring, a rule down to the axis, its loss. */
  int chosen = chosen_point (self);
  if (chosen >= 0)
    {
      double loss = g_array_index (self->points, CrTrainingPoint, chosen).loss;
      double x = point_x (self, (guint) chosen), y = point_y (self, loss);
      set_rgba (cr, is_dark () ? "#ffa348" : "#e66100", 1);
      cairo_set_line_width (cr, k);
      cairo_move_to (cr, x + 0.5, self->plot_y);
      cairo_line_to (cr, x + 0.5, self->plot_y + self->plot_h);
      cairo_stroke (cr);
      cairo_set_line_width (cr, 2 * k);
      cairo_arc (cr, x, y, 4.5 * k, 0, 2 * G_PI);
      cairo_stroke (cr);
      char text[64], number[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (number, sizeof number, "%.4g", loss);
      g_snprintf (text, sizeof text, "#%u · %s", g_array_index (self->points, CrTrainingPoint, chosen).backward + 1,
                  number);
      double align = x > self->plot_x + self->plot_w * 0.6 ? 1 : 0;
      draw_text (widget, cr, text, x + (align ? -em * 0.4 : em * 0.4), self->plot_y + em * 0.1, align, 0.9);
    }
}

int
cr_training_view_click (CrTrainingView *self,
                        double          x,
                        double          y)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), -1);
  if (!self->laid_out || !self->points || self->points->len == 0)
    return -1;
  if (y < self->plot_y - 8 || y > self->plot_y + self->plot_h + 8)
    return -1;
  guint best = 0;
  double best_dx = INFINITY;
  for (guint i = 0; i < self->points->len; i++)
    {
      double dx = fabs (point_x (self, i) - x);
      if (dx < best_dx)
        best_dx = dx, best = i;
    }
  double spacing = self->points->len > 1 ? self->plot_w / (self->points->len - 1) : self->plot_w;
  if (best_dx > MAX (10, spacing / 2))
    return -1;
  int backward = (int) g_array_index (self->points, CrTrainingPoint, best).backward;
  cr_training_view_set_chosen (self, backward);
  g_signal_emit (self, signals[SIGNAL_BACKWARD_PICKED], 0, backward);
  return backward;
}

static void
on_curve_pressed (GtkGestureClick *gesture,
                  int              n_press,
                  double           x,
                  double           y,
                  CrTrainingView  *self)
{
  /* The keys go on from the point clicked. */
  gtk_widget_grab_focus (self->curve);
  if (cr_training_view_click (self, x, y) >= 0)
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/* ---- the curve from the keyboard ----------------------------------------------- */

/* A slider to assistive technologies: the point chosen of the points. */
static void
update_curve_accessible (CrTrainingView *self)
{
  if (!self->curve)
    return;
  guint n = self->points ? self->points->len : 0;
  int point = chosen_point (self);
  char text[128] = "no backward call chosen";
  if (point >= 0)
    {
      const CrTrainingPoint *chosen = &g_array_index (self->points, CrTrainingPoint, point);
      char loss[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (loss, sizeof loss, "%.4g", chosen->loss);
      g_snprintf (text, sizeof text, "backward call %u of %u, loss %s", chosen->backward + 1,
                  self->record ? self->record->backwards->len : n, loss);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->curve),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 1.0,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, (double) MAX (n, 1),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, (double) (point + 1),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text,
                                  -1);
}

/* Left/Right a point (with Shift ten), Home/End the first and the last:
 * the page follows that call; Enter (or Space) explores it in the window,
 * as a click does. */
static gboolean
on_curve_key (GtkEventControllerKey *controller,
              guint                  keyval,
              guint                  keycode,
              GdkModifierType        state,
              CrTrainingView        *self)
{
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) || !self->points
      || self->points->len == 0)
    return FALSE;
  int n = (int) self->points->len;
  int at = chosen_point (self);
  int by = state & GDK_SHIFT_MASK ? 10 : 1;
  int to;
  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      to = at < 0 ? n - 1 : MAX (at - by, 0);
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      to = at < 0 ? 0 : MIN (at + by, n - 1);
      break;
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home:
      to = 0;
      break;
    case GDK_KEY_End:
    case GDK_KEY_KP_End:
      to = n - 1;
      break;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
    case GDK_KEY_space:
      if (at >= 0)
        g_signal_emit (self, signals[SIGNAL_BACKWARD_PICKED], 0, self->chosen);
      return TRUE;
    default:
      return FALSE;
    }
  cr_training_view_set_chosen (self, (int) g_array_index (self->points, CrTrainingPoint, to).backward);
  return TRUE;
}

static void
on_curve_focus (GtkEventControllerFocus *controller,
                CrTrainingView          *self)
{
  gtk_widget_queue_draw (self->curve);
}

/* ---- what the script printed ------------------------------------------------------ */

/* A row a series: its name and line, then its values over the backward
 * calls, on the loss curve's horizontal scale. */
static double
printed_row_height (GtkWidget *widget)
{
  return line_height (widget) * 4.4;
}

static void
draw_printed (GtkDrawingArea *area,
              cairo_t        *cr,
              int             width,
              int             height,
              gpointer        data)
{
  CrTrainingView *self = data;
  GtkWidget *widget = GTK_WIDGET (area);
  if (!self->printed || !self->record || self->record->backwards->len == 0)
    return;
  double em = line_height (widget);
  double row = printed_row_height (widget);
  check_size (self, widget, (int) (self->printed->len * row));
  guint n_calls = self->record->backwards->len;
  double x0 = CURVE_LEFT_EM * em, w = MAX (width - x0 - em * 0.8, 10);
  for (guint k = 0; k < self->printed->len; k++)
    {
      const CrTrainingSeries *series = g_ptr_array_index (self->printed, k);
      double y0 = k * row;
      char title[96];
      g_snprintf (title, sizeof title, "%s · printed at line %d", series->name, series->line);
      draw_text (widget, cr, title, 0, y0, 0, 0.9);
      double cy = y0 + em * 1.2, ch = row - em * 1.2 - em * 0.5;
      double low = INFINITY, high = -INFINITY;
      for (guint i = 0; i < series->points->len; i++)
        {
          double v = g_array_index (series->points, CrTrainingPoint, i).loss;
          low = MIN (low, v), high = MAX (high, v);
        }
      if (high - low < 1e-12)
        low -= 0.5, high += 0.5;
      set_fg (widget, cr, 0.2);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, x0 + 0.5, cy + 0.5, w, ch);
      cairo_stroke (cr);
      if (self->chosen >= 0)
        {
          double x = x0 + (n_calls > 1 ? w * self->chosen / (n_calls - 1) : w / 2);
          set_rgba (cr, is_dark () ? "#ffa348" : "#e66100", 0.9);
          cairo_move_to (cr, x + 0.5, cy);
          cairo_line_to (cr, x + 0.5, cy + ch);
          cairo_stroke (cr);
        }
      set_rgba (cr, element_colour (1 + k), 1);
      cairo_set_line_width (cr, 1.4);
      for (guint i = 0; i < series->points->len; i++)
        {
          const CrTrainingPoint *point = &g_array_index (series->points, CrTrainingPoint, i);
          double x = x0 + (n_calls > 1 ? w * point->backward / (n_calls - 1) : w / 2);
          double y = cy + em * 0.2 + (ch - em * 0.4) * (1 - (point->loss - low) / (high - low));
          if (i == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
      for (guint i = 0; i < series->points->len && series->points->len <= 60; i++)
        {
          const CrTrainingPoint *point = &g_array_index (series->points, CrTrainingPoint, i);
          double x = x0 + (n_calls > 1 ? w * point->backward / (n_calls - 1) : w / 2);
          double y = cy + em * 0.2 + (ch - em * 0.4) * (1 - (point->loss - low) / (high - low));
          cairo_arc (cr, x, y, 2.2, 0, 2 * G_PI);
          cairo_fill (cr);
        }
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      number_text (buf, sizeof buf, high);
      draw_text (widget, cr, buf, x0 - em * 0.3, cy, 1, 0.7);
      number_text (buf, sizeof buf, low);
      draw_text (widget, cr, buf, x0 - em * 0.3, cy + ch - em * 1.0, 1, 0.7);
    }
}

/* ---- the parameters --------------------------------------------------------------- */

/* A series' value at update u: element e, or the norm (e < 0). */
static double
series_value (const CrTensorSnapshot *s,
              gint64                  e)
{
  if (!s)
    return NAN;
  if (e < 0)
    return cr_tensor_snapshot_norm (s);
  return cr_training_value_at (s, e);
}

/* Whether parameter p is the one whose element is picked, and which. */
static gboolean
picked_element (CrTrainingView *self,
                guint           p,
                gint64         *element)
{
  CrTrainingElement *picker = CR_TRAINING_ELEMENT (self->element_picker);
  *element = cr_training_element_get_element (picker, p);
  return cr_training_element_get_param (picker) == p;
}

static const CrTensorSnapshot *
update_value (const CrRecordUpdate *u,
              gboolean              grad)
{
  return grad ? u->grad : u->after;
}

/* One small chart: a parameter's values (or gradients) over its updates:
 * a line an element for a small parameter, its followed element's line
 * drawn over the others; the norm for a big one, or the followed element
 * while the picker is on this parameter (where the record keeps it). */
static void
draw_series (CrTrainingView        *self,
             GtkWidget             *widget,
             cairo_t               *cr,
             guint                  p,
             gboolean               grad,
             double                 x0,
             double                 y0,
             double                 w,
             double                 h)
{
  const CrTrainingParam *param = g_ptr_array_index (self->params, p);
  double em = line_height (widget);
  const CrRecordUpdate *first = g_ptr_array_index (self->record->updates,
                                                   g_array_index (param->updates, guint, 0));
  const CrTensorSnapshot *shape = first->after ? first->after : first->grad;
  gint64 numel = shape ? shape->numel : 1;
  gint64 followed;
  gboolean picked = picked_element (self, p, &followed);
  followed = CLAMP (followed, 0, MAX (numel - 1, 0));
  gboolean norm = numel > MAX_ELEMENT_LINES;
  /* A big parameter's picked element, in place of the norm. */
  gboolean one = norm && picked && shape && followed < shape->n_values;
  if (one)
    norm = FALSE;
  int n_lines = norm || one ? 1 : (int) numel;
  guint n = param->updates->len;

  double low = INFINITY, high = -INFINITY;
  for (guint k = 0; k < n; k++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (self->record->updates,
                                                   g_array_index (param->updates, guint, k));
      for (int i = 0; i < n_lines; i++)
        {
          double v = series_value (update_value (u, grad), norm ? -1 : one ? followed : i);
          if (isfinite (v))
            low = MIN (low, v), high = MAX (high, v);
        }
    }
  set_fg (widget, cr, 0.2);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, x0 + 0.5, y0 + 0.5, w, h);
  cairo_stroke (cr);
  g_autofree char *index = norm ? NULL : cr_training_index_text (shape, followed);
  g_autofree char *what = norm ? g_strdup (grad ? "‖grad‖" : "‖value‖")
                               : g_strdup_printf ("%s%s", grad ? "grad" : "value",
                                                  numel > 1 && index ? index : "");
  if (!isfinite (low))
    {
      draw_text (widget, cr, what, x0 + em * 0.25, y0 + em * 0.05, 0, 0.55);
      return;
    }
  if (high - low < 1e-12)
    low -= 0.5, high += 0.5;

  /* The update after the chosen call. */
  for (guint k = 0; k < n; k++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (self->record->updates,
                                                   g_array_index (param->updates, guint, k));
      if (u->backward != self->chosen)
        continue;
      double x = x0 + (n > 1 ? w * k / (n - 1) : w / 2);
      set_rgba (cr, is_dark () ? "#ffa348" : "#e66100", 0.9);
      cairo_move_to (cr, x + 0.5, y0);
      cairo_line_to (cr, x + 0.5, y0 + h);
      cairo_stroke (cr);
      break;
    }

  /* The followed element's line last, over the others, which fade. */
  double pad = em * 0.2;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n_lines; i++)
      {
        gint64 e = norm ? -1 : one ? followed : i;
        gboolean is_followed = !norm && e == followed;
        if (n_lines > 1 && is_followed != (pass == 1))
          continue;
        if (n_lines == 1 && pass == 0)
          continue;
        set_rgba (cr, norm ? accent () : element_colour ((guint) MAX (e, 0)),
                  n_lines > 1 && !is_followed ? 0.35 : 1);
        cairo_set_line_width (cr, n_lines > 1 && is_followed ? 2.4 : 1.3);
        gboolean drawing = FALSE;
        for (guint k = 0; k < n; k++)
          {
            const CrRecordUpdate *u = g_ptr_array_index (self->record->updates,
                                                         g_array_index (param->updates, guint, k));
            double v = series_value (update_value (u, grad), e);
            if (!isfinite (v))
              {
                drawing = FALSE;
                continue;
              }
            double x = x0 + (n > 1 ? w * k / (n - 1) : w / 2);
            double y = y0 + pad + (h - 2 * pad) * (1 - (v - low) / (high - low));
            if (drawing)
              cairo_line_to (cr, x, y);
            else
              cairo_move_to (cr, x, y);
            drawing = TRUE;
          }
        cairo_stroke (cr);
      }

  /* The labels over the lines; the top number under the name where the
   * chart is too narrow for both ("grad[0, 0]" and "0.0329" read as one). */
  draw_text_full (widget, cr, what, x0 + em * 0.25, y0 + 1, 0, 0.6, TRUE);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  number_text (buf, sizeof buf, high);
  double top = y0 + 1;
  if (em * 0.25 + text_width (widget, what) + em * 0.8 + text_width (widget, buf) + em * 0.2 > w)
    top += em * 1.05;
  draw_text_full (widget, cr, buf, x0 + w - em * 0.2, top, 1, 0.6, TRUE);
  number_text (buf, sizeof buf, low);
  draw_text_full (widget, cr, buf, x0 + w - em * 0.2, y0 + h - em * 1.0 - 1, 1, 0.6, TRUE);
}

/* A parameter's row: its name, then the value and gradient charts. */
static double
param_row_height (GtkWidget *widget)
{
  return line_height (widget) * 5.2;
}

static void
draw_params (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        data)
{
  CrTrainingView *self = data;
  GtkWidget *widget = GTK_WIDGET (area);
  if (!self->params || !self->record)
    return;
  double em = line_height (widget);
  double row = param_row_height (widget);
  check_size (self, widget, (int) (self->params->len * row));
  double gap = em * 0.6;
  double chart_w = MAX ((width - gap) / 2, 20);
  for (guint p = 0; p < self->params->len; p++)
    {
      const CrTrainingParam *param = g_ptr_array_index (self->params, p);
      double y = p * row;
      const CrRecordUpdate *first = g_ptr_array_index (self->record->updates,
                                                       g_array_index (param->updates, guint, 0));
      g_autoptr (GString) title = g_string_new (param->name);
      g_string_append_printf (title, " · %u update%s", param->updates->len,
                              param->updates->len == 1 ? "" : "s");
      if (first->after && first->after->numel > MAX_ELEMENT_LINES)
        g_string_append_printf (title, " · %" G_GINT64_FORMAT " elements", first->after->numel);
      draw_text (widget, cr, title->str, 0, y, 0, 0.9);
      double chart_y = y + em * 1.2, chart_h = row - em * 1.2 - em * 0.6;
      draw_series (self, widget, cr, p, FALSE, 0, chart_y, chart_w - 1, chart_h);
      draw_series (self, widget, cr, p, TRUE, chart_w + gap, chart_y, chart_w - 1, chart_h);
    }
}

/* ---- the chosen iteration -------------------------------------------------------- */

static void update_sizes (CrTrainingView *self);

static gboolean
resize_idle (gpointer data)
{
  CrTrainingView *self = data;
  self->resize_id = 0;
  update_sizes (self);
  return G_SOURCE_REMOVE;
}

/* Drawn at a type size the areas were not sized for (presentation's): they
 * are sized again once this frame is done. */
static void
check_size (CrTrainingView *self,
            GtkWidget      *area,
            int             wanted)
{
  if (gtk_drawing_area_get_content_height (GTK_DRAWING_AREA (area)) != wanted && !self->resize_id)
    self->resize_id = g_idle_add (resize_idle, self);
}

static void
update_sizes (CrTrainingView *self)
{
  double em = line_height (self->curve);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->curve), (int) (em * 9));
  guint n_printed = self->printed ? self->printed->len : 0;
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->printed_area),
                                       (int) (n_printed * printed_row_height (self->printed_area)));
  guint n = self->params ? self->params->len : 0;
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->params_area),
                                       (int) (n * param_row_height (self->params_area)));
}

/* The element picked for the update's parameter. */
static gint64
element_of_update (CrTrainingView       *self,
                   const CrRecordUpdate *u)
{
  for (guint p = 0; self->params && p < self->params->len; p++)
    {
      const CrTrainingParam *param = g_ptr_array_index (self->params, p);
      for (guint k = 0; k < param->updates->len; k++)
        if (g_array_index (param->updates, guint, k) == u->id)
          return cr_training_element_get_element (CR_TRAINING_ELEMENT (self->element_picker), p);
    }
  return 0;
}

/* The updates after the chosen call, each laid out as rows
 * (cr-training-step.h); self->text is the same told as plain text. */
static void
update_text (CrTrainingView *self)
{
  g_clear_pointer (&self->text, g_free);
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (self->steps_box)))
    gtk_box_remove (GTK_BOX (self->steps_box), child);
  GString *text = g_string_new (NULL);
  if (self->record && self->chosen >= 0 && (guint) self->chosen < self->record->backwards->len)
    {
      g_autoptr (GArray) updates = cr_training_updates_after (self->record, self->chosen);
      for (guint i = 0; i < updates->len; i++)
        {
          const CrRecordUpdate *u = g_ptr_array_index (self->record->updates,
                                                       g_array_index (updates, guint, i));
          gint64 element = element_of_update (self, u);
          g_autofree char *one = cr_training_explain_narrow (self->record, u, element, TRUE);
          g_string_append_printf (text, "%s%s", i ? "\n" : "", one);
          gtk_box_append (GTK_BOX (self->steps_box), cr_training_step_new (self->record, u, element));
        }
      if (updates->len == 0)
        {
          const char *none = "No parameter was updated after this backward call.";
          g_string_append (text, none);
          GtkWidget *label = gtk_label_new (none);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
          gtk_label_set_wrap (GTK_LABEL (label), TRUE);
          gtk_box_append (GTK_BOX (self->steps_box), label);
        }
      double loss;
      g_autofree char *title = NULL;
      if (cr_run_record_backward_loss (self->record, (guint) self->chosen, &loss))
        title = g_strdup_printf ("Backward call %d · loss %.5g", self->chosen + 1, loss);
      else
        title = g_strdup_printf ("Backward call %d", self->chosen + 1);
      gtk_label_set_text (GTK_LABEL (self->step_title), title);
    }
  while (text->len && text->str[text->len - 1] == '\n')
    g_string_truncate (text, text->len - 1);
  self->text = g_string_free (text, FALSE);
}

/* ---- the widget ------------------------------------------------------------------- */

/* The picker moved: the charts and the rules follow the element. */
static void
element_changed (CrTrainingView *self)
{
  update_text (self);
  gtk_widget_queue_draw (self->params_area);
}

GtkWidget *
cr_training_view_get_element_picker (CrTrainingView *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), NULL);
  return self->element_picker;
}

void
cr_training_view_set_chosen (CrTrainingView *self,
                             int             backward)
{
  g_return_if_fail (CR_IS_TRAINING_VIEW (self));
  if (self->chosen == backward)
    return;
  self->chosen = backward;
  cr_training_element_set_chosen (CR_TRAINING_ELEMENT (self->element_picker), backward);
  update_text (self);
  update_curve_accessible (self);
  gtk_widget_queue_draw (self->curve);
  gtk_widget_queue_draw (self->printed_area);
  gtk_widget_queue_draw (self->params_area);
}

int
cr_training_view_get_chosen (CrTrainingView *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), -1);
  return self->chosen;
}

void
cr_training_view_set_record (CrTrainingView *self,
                             CrRunRecord    *record,
                             int             chosen)
{
  g_return_if_fail (CR_IS_TRAINING_VIEW (self));
  g_clear_pointer (&self->record, cr_run_record_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_pointer (&self->printed, g_ptr_array_unref);
  self->laid_out = FALSE;
  if (record)
    {
      self->record = cr_run_record_ref (record);
      self->points = cr_training_loss_curve (record);
      self->params = cr_training_params (record);
      self->printed = cr_training_printed_series (record);
    }
  gboolean loop = record && cr_training_is_loop (record);
  gtk_widget_set_visible (self->empty_label, !loop);
  gtk_widget_set_visible (self->curve_title, loop);
  gtk_widget_set_visible (self->curve, loop && self->points->len > 0);
  gtk_widget_set_visible (self->printed_area, loop && self->printed->len > 0);
  gtk_widget_set_visible (self->params_title, loop && self->params->len > 0);
  gtk_widget_set_visible (self->params_area, loop && self->params->len > 0);
  cr_training_element_set_params (CR_TRAINING_ELEMENT (self->element_picker), loop ? record : NULL,
                                  loop ? self->params : NULL);
  gtk_widget_set_visible (self->element_title, gtk_widget_get_visible (self->element_picker));
  gtk_widget_set_visible (self->step_title, loop);
  gtk_widget_set_visible (self->steps_box, loop);
  self->chosen = -2;
  update_sizes (self);
  cr_training_view_set_chosen (self, chosen);
}

guint
cr_training_view_get_n_points (CrTrainingView *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), 0);
  return self->points ? self->points->len : 0;
}

gboolean
cr_training_view_get_point_position (CrTrainingView *self,
                                     guint           i,
                                     double         *x,
                                     double         *y)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), FALSE);
  if (!self->laid_out || !self->points || i >= self->points->len)
    return FALSE;
  *x = point_x (self, i);
  *y = point_y (self, g_array_index (self->points, CrTrainingPoint, i).loss);
  return TRUE;
}

GtkWidget *
cr_training_view_get_curve (CrTrainingView *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), NULL);
  return self->curve;
}

const char *
cr_training_view_get_text (CrTrainingView *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_VIEW (self), NULL);
  return self->text;
}

static void
cr_training_view_dispose (GObject *object)
{
  CrTrainingView *self = CR_TRAINING_VIEW (object);
  g_clear_handle_id (&self->resize_id, g_source_remove);
  g_clear_pointer (&self->record, cr_run_record_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_pointer (&self->printed, g_ptr_array_unref);
  g_clear_pointer (&self->text, g_free);
  G_OBJECT_CLASS (cr_training_view_parent_class)->dispose (object);
}

/* Presentation's larger type (the window's CSS) makes the charts larger. */
static void
cr_training_view_css_changed (GtkWidget         *widget,
                              GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (cr_training_view_parent_class)->css_changed (widget, change);
  CrTrainingView *self = CR_TRAINING_VIEW (widget);
  /* Once the children have their new style too: sized now, the areas would
   * keep the type they had (and a page not shown is not drawn, where
   * check_size would catch it). */
  if (self->curve && !self->resize_id)
    self->resize_id = g_idle_add (resize_idle, self);
}

static void
cr_training_view_class_init (CrTrainingViewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cr_training_view_dispose;
  GTK_WIDGET_CLASS (klass)->css_changed = cr_training_view_css_changed;
  /* backward-picked (int backward): a point of the curve was clicked. */
  signals[SIGNAL_BACKWARD_PICKED] =
    g_signal_new ("backward-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "heading");
  return label;
}

static void
cr_training_view_init (CrTrainingView *self)
{
  cr_card_style_ensure ();
  self->chosen = -1;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 10);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);
  gtk_widget_add_css_class (GTK_WIDGET (self), "cr-training-view");

  self->empty_label = gtk_label_new ("No training loop: this page shows a script that calls "
                                     "backward in a loop (the loss per call, the parameters "
                                     "over their updates, each optimizer step).");
  gtk_label_set_wrap (GTK_LABEL (self->empty_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->empty_label), 0);
  gtk_widget_add_css_class (self->empty_label, "dim-label");
  gtk_box_append (GTK_BOX (self), self->empty_label);

  self->curve_title = heading ("Loss per call · click, or ←/→ and Enter");
  gtk_box_append (GTK_BOX (self), self->curve_title);
  /* A slider: its arrow keys are its own (the stepper leaves them). */
  self->curve = g_object_new (GTK_TYPE_DRAWING_AREA, "accessible-role", GTK_ACCESSIBLE_ROLE_SLIDER, NULL);
  gtk_widget_set_focusable (self->curve, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->curve),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, "Loss per backward call",
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  "Left and Right move the backward call (Shift: by ten), Home and "
                                  "End go to the first and the last, Enter explores it",
                                  -1);
  GtkEventController *keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_curve_key), self);
  gtk_widget_add_controller (self->curve, keys);
  GtkEventController *focus = gtk_event_controller_focus_new ();
  g_signal_connect (focus, "enter", G_CALLBACK (on_curve_focus), self);
  g_signal_connect (focus, "leave", G_CALLBACK (on_curve_focus), self);
  gtk_widget_add_controller (self->curve, focus);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->curve), draw_curve, self, NULL);
  gtk_widget_set_cursor_from_name (self->curve, "pointer");
  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_curve_pressed), self);
  gtk_widget_add_controller (self->curve, GTK_EVENT_CONTROLLER (click));
  gtk_box_append (GTK_BOX (self), self->curve);

  self->printed_area = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->printed_area), draw_printed, self, NULL);
  gtk_box_append (GTK_BOX (self), self->printed_area);

  self->params_title = heading ("Parameters over their updates");
  gtk_box_append (GTK_BOX (self), self->params_title);
  self->params_area = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->params_area), draw_params, self, NULL);
  gtk_box_append (GTK_BOX (self), self->params_area);

  self->element_title = heading ("Follow one element");
  gtk_widget_set_tooltip_text (self->element_title, "The element whose values the charts draw "
                                                    "and whose numbers each rule below shows");
  gtk_box_append (GTK_BOX (self), self->element_title);
  self->element_picker = cr_training_element_new ();
  g_signal_connect_swapped (self->element_picker, "changed", G_CALLBACK (element_changed), self);
  gtk_box_append (GTK_BOX (self), self->element_picker);

  self->step_title = heading ("");
  gtk_box_append (GTK_BOX (self), self->step_title);
  self->steps_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (self), self->steps_box);

  cr_training_view_set_record (self, NULL, -1);
}

GtkWidget *
cr_training_view_new (void)
{
  return g_object_new (CR_TYPE_TRAINING_VIEW, NULL);
}
