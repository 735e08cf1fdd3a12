/* cr-graph-canvas.c — draws a CrGraphModel with cr_graph_render in a Cairo
 * node. The layout is computed once per model; drawing only scales it to fit
 * the widget, so stepping through a backward call is cheap. */
#include "cr-config.h"
#include "cr-graph-canvas.h"

#include "cr-graph-layout.h"
#include "cr-graph-render.h"

#include <adwaita.h>

/* Space around the drawing, and the largest zoom: small graphs should not
 * turn into posters. */
#define MARGIN    16.0
#define MAX_SCALE 1.5

struct _CrGraphCanvas
{
  GtkWidget      parent_instance;

  CrGraphModel  *model;
  CrGraphLayout *layout;
  int            step;
};

G_DEFINE_FINAL_TYPE (CrGraphCanvas, cr_graph_canvas, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_STEP,
  PROP_N_STEPS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_dark_changed (AdwStyleManager *manager,
                 GParamSpec      *pspec,
                 CrGraphCanvas   *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
cr_graph_canvas_snapshot (GtkWidget   *widget,
                          GtkSnapshot *snapshot)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (!self->model || !self->layout || width <= 0 || height <= 0)
    return;

  double avail_w = MAX (width - 2 * MARGIN, 1.0);
  double avail_h = MAX (height - 2 * MARGIN, 1.0);
  double scale = MIN (avail_w / MAX (self->layout->width, 1.0),
                      avail_h / MAX (self->layout->height, 1.0));
  scale = MIN (scale, MAX_SCALE);
  double draw_w = self->layout->width * scale;
  double draw_h = self->layout->height * scale;

  cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                           &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_translate (cr, (width - draw_w) / 2.0, (height - draw_h) / 2.0);
  cairo_scale (cr, scale, scale);

  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.style = adw_style_manager_get_dark (adw_style_manager_get_default ())
                  ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  options.current_step = self->step;
  /* The widget's own background (the .view style class) shows through. */
  options.draw_background = FALSE;
  cr_graph_render (cr, self->model, self->layout, &options);
  cairo_destroy (cr);
}

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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cr_graph_canvas_dispose (GObject *object)
{
  CrGraphCanvas *self = CR_GRAPH_CANVAS (object);

  g_signal_handlers_disconnect_by_func (adw_style_manager_get_default (),
                                        on_dark_changed, self);
  g_clear_pointer (&self->layout, cr_graph_layout_free);
  g_clear_pointer (&self->model, cr_graph_model_free);

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

  properties[PROP_STEP] =
    g_param_spec_int ("step", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_STEPS] =
    g_param_spec_uint ("n-steps", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "cr-graph-canvas");
}

static void
cr_graph_canvas_init (CrGraphCanvas *self)
{
  self->step = -1;
  gtk_widget_add_css_class (GTK_WIDGET (self), "view");
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, 0);
}

GtkWidget *
cr_graph_canvas_new (void)
{
  return g_object_new (CR_TYPE_GRAPH_CANVAS, NULL);
}

gboolean
cr_graph_canvas_take_model (CrGraphCanvas *self,
                            CrGraphModel  *model,
                            GError       **error)
{
  g_return_val_if_fail (CR_IS_GRAPH_CANVAS (self), FALSE);

  g_clear_pointer (&self->layout, cr_graph_layout_free);
  g_clear_pointer (&self->model, cr_graph_model_free);
  self->model = model;
  gboolean ok = TRUE;
  if (model)
    {
      self->layout = cr_graph_render_layout (model, error);
      if (!self->layout)
        {
          g_clear_pointer (&self->model, cr_graph_model_free);
          ok = FALSE;
        }
    }
  self->step = -1;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_STEPS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
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
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
