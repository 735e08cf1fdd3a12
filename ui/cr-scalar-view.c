/* cr-scalar-view.c — a small op's scalar graph over the canvas
 * (cr-scalar-view.h). */
#include "cr-config.h"
#include "cr-scalar-view.h"

#include "cr-graph-model-scalars.h"
#include "cr-graph-render.h"

#include <adwaita.h>

struct _CrScalarView
{
  GtkWidget     parent_instance;

  /* Widgets */
  GtkWidget    *bar;
  GtkLabel     *title;
  GtkWidget    *back_button;
  GtkLabel     *position_label;
  GtkWidget    *forward_button;
  GtkWidget    *close_button;
  GtkWidget    *drawing;
  GtkLabel     *text;
  GtkWidget    *text_scroller;

  /* Owned */
  CrRunRecord  *record;
  CrOpScalars  *scalars;
  CrGraphModel *model;        /* at the current position */
  CrGraphLayout *layout;      /* of the model with every element done: kept while stepping */
  guint         position;
  gboolean      presentation;
};

G_DEFINE_FINAL_TYPE (CrScalarView, cr_scalar_view, GTK_TYPE_WIDGET)

enum { SIGNAL_CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
update (CrScalarView *self)
{
  guint n = self->scalars ? self->scalars->n_sub_steps : 0;
  g_clear_pointer (&self->model, cr_graph_model_unref);
  if (self->scalars)
    self->model = cr_graph_model_new_from_op_scalars (self->scalars, self->record, self->position);
  g_autofree char *where = NULL;
  if (!self->scalars || self->scalars->step < 0)
    where = g_strdup ("Forward only");
  else if (self->position == 0)
    where = g_strdup_printf ("Before element 1 of %u", n);
  else
    where = g_strdup_printf ("Element %u of %u", self->position, n);
  gtk_label_set_text (self->position_label, where);
  gboolean stepping = self->scalars && self->scalars->step >= 0;
  gtk_widget_set_sensitive (self->back_button, stepping && self->position > 0);
  gtk_widget_set_sensitive (self->forward_button, stepping && self->position < n);
  g_autofree char *text = self->scalars
                          ? cr_op_scalars_format_position (self->scalars, self->record,
                                                           self->position)
                          : NULL;
  gtk_label_set_text (self->text, text ? text : "");
  gtk_widget_queue_draw (self->drawing);
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  CrScalarView *self = user_data;
  (void) area;
  if (!self->model || !self->layout)
    return;
  const CrGraphLayout *layout = self->layout;
  /* The whole graph in the area, never blown up past a readable size. */
  double margin = 12;
  double scale = MIN ((width - 2 * margin) / MAX (layout->width, 1.0),
                      (height - 2 * margin) / MAX (layout->height, 1.0));
  scale = CLAMP (scale, 0.05, self->presentation ? 2.4 : 1.6);
  double x = (width - layout->width * scale) / 2, y = (height - layout->height * scale) / 2;
  cairo_save (cr);
  cairo_translate (cr, MAX (x, 0), MAX (y, 0));
  cairo_scale (cr, scale, scale);
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.style = adw_style_manager_get_dark (adw_style_manager_get_default ())
                  ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  options.current_step = (int) self->position - 1;
  options.draw_background = FALSE;  /* the view's own background */
  options.presentation = self->presentation;
  options.text_scale = scale;
  cr_graph_render (cr, self->model, layout, &options);
  cairo_restore (cr);
}

static void
back_clicked (CrScalarView *self)
{
  if (self->position > 0)
    cr_scalar_view_set_position (self, self->position - 1);
}

static void
forward_clicked (CrScalarView *self)
{
  if (self->scalars && self->position < self->scalars->n_sub_steps)
    cr_scalar_view_set_position (self, self->position + 1);
}

gboolean
cr_scalar_view_handle_key (CrScalarView *self,
                           guint         keyval)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), FALSE);
  guint n = self->scalars ? self->scalars->n_sub_steps : 0;
  switch (keyval)
    {
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
    case GDK_KEY_Page_Down:
    case GDK_KEY_space:
      forward_clicked (self);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
    case GDK_KEY_Page_Up:
      back_clicked (self);
      return TRUE;
    case GDK_KEY_Home:
      cr_scalar_view_set_position (self, 0);
      return TRUE;
    case GDK_KEY_End:
      cr_scalar_view_set_position (self, n);
      return TRUE;
    case GDK_KEY_Escape:
      cr_scalar_view_close (self);
      return TRUE;
    default:
      return FALSE;
    }
}

static void
cr_scalar_view_dispose (GObject *object)
{
  CrScalarView *self = CR_SCALAR_VIEW (object);
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  g_clear_pointer (&self->model, cr_graph_model_unref);
  g_clear_pointer (&self->layout, cr_graph_layout_free);
  g_clear_pointer (&self->scalars, cr_op_scalars_free);
  g_clear_pointer (&self->record, cr_run_record_unref);
  G_OBJECT_CLASS (cr_scalar_view_parent_class)->dispose (object);
}

static void
cr_scalar_view_class_init (CrScalarViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->dispose = cr_scalar_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "scalar-view");
  signals[SIGNAL_CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static GtkWidget *
icon_button (const char *icon,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

static void
cr_scalar_view_init (CrScalarView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (widget)),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_widget_add_css_class (widget, "view");
  gtk_widget_add_css_class (widget, "cr-scalar-view");
  gtk_widget_set_focusable (widget, TRUE);

  self->bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (self->bar, "toolbar");
  self->title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_ellipsize (self->title, PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (self->title, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->title), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->title), "heading");
  gtk_widget_set_margin_start (GTK_WIDGET (self->title), 6);
  self->back_button = icon_button ("go-previous-symbolic", "Previous element (Left, Page Up)");
  self->position_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_width_chars (self->position_label, 18);
  gtk_widget_add_css_class (GTK_WIDGET (self->position_label), "numeric");
  self->forward_button = icon_button ("go-next-symbolic", "Next element (Right, Page Down)");
  self->close_button = icon_button ("window-close-symbolic", "Back to the graph (Escape)");
  gtk_box_append (GTK_BOX (self->bar), GTK_WIDGET (self->title));
  gtk_box_append (GTK_BOX (self->bar), self->back_button);
  gtk_box_append (GTK_BOX (self->bar), GTK_WIDGET (self->position_label));
  gtk_box_append (GTK_BOX (self->bar), self->forward_button);
  gtk_box_append (GTK_BOX (self->bar), self->close_button);
  gtk_widget_set_parent (self->bar, widget);
  g_signal_connect_swapped (self->back_button, "clicked", G_CALLBACK (back_clicked), self);
  g_signal_connect_swapped (self->forward_button, "clicked", G_CALLBACK (forward_clicked), self);
  g_signal_connect_swapped (self->close_button, "clicked", G_CALLBACK (cr_scalar_view_close),
                            self);

  self->drawing = gtk_drawing_area_new ();
  gtk_widget_set_vexpand (self->drawing, TRUE);
  gtk_widget_set_hexpand (self->drawing, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->drawing), draw_cb, self, NULL);
  gtk_widget_set_parent (self->drawing, widget);

  self->text = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->text, TRUE);
  gtk_label_set_xalign (self->text, 0);
  gtk_label_set_selectable (self->text, TRUE);
  gtk_widget_set_margin_start (GTK_WIDGET (self->text), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self->text), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->text), 10);
  gtk_widget_add_css_class (GTK_WIDGET (self->text), "monospace");
  gtk_label_set_yalign (self->text, 0);
  /* Room for an element's few lines, so that the drawing does not jump as
   * they come and go; more scroll. */
  GtkWidget *scroller = self->text_scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 132);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 132);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->text));
  gtk_widget_set_parent (scroller, widget);

  /* Redrawn in the other style when the system's changes. */
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self->drawing,
                           G_CONNECT_SWAPPED);
}

GtkWidget *
cr_scalar_view_new (void)
{
  return g_object_new (CR_TYPE_SCALAR_VIEW, NULL);
}

/* Laid out with every element done (the widest text), in presentation's
 * larger type or not. */
static CrGraphLayout *
layout_of (const CrOpScalars *scalars,
           const CrRunRecord *record,
           gboolean           presentation,
           GError           **error)
{
  g_autoptr (CrGraphModel) full = cr_graph_model_new_from_op_scalars (scalars, record,
                                                                     scalars->n_sub_steps);
  CrGraphRenderCache *cache = cr_graph_render_cache_new (full, presentation);
  CrGraphLayout *layout = cr_graph_render_layout_cached (full, cache, error);
  cr_graph_render_cache_free (cache);
  return layout;
}

gboolean
cr_scalar_view_open (CrScalarView *self,
                     CrRunRecord  *record,
                     int           op,
                     int           backward,
                     int           step,
                     GError      **error)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), FALSE);
  CrOpScalars *scalars = cr_op_scalars_new (record, op, backward, step, error);
  if (!scalars)
    return FALSE;
  /* Laid out once with every element done (the widest text), then kept
   * while stepping, so that nothing moves. */
  CrGraphLayout *layout = layout_of (scalars, record, self->presentation, error);
  if (!layout)
    {
      cr_op_scalars_free (scalars);
      return FALSE;
    }
  g_clear_pointer (&self->layout, cr_graph_layout_free);
  self->layout = layout;
  g_clear_pointer (&self->scalars, cr_op_scalars_free);
  self->scalars = scalars;
  if (self->record != record)
    {
      g_clear_pointer (&self->record, cr_run_record_unref);
      self->record = cr_run_record_ref (record);
    }
  g_autofree char *title = g_strdup_printf ("Inside %s", scalars->title);
  gtk_label_set_text (self->title, title);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title), title);
  self->position = 0;
  update (self);
  return TRUE;
}

CrRunRecord *
cr_scalar_view_get_record (CrScalarView *self)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), NULL);
  return self->record;
}

int
cr_scalar_view_get_op (CrScalarView *self)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), -1);
  return self->scalars ? self->scalars->op : -1;
}

const CrOpScalars *
cr_scalar_view_get_scalars (CrScalarView *self)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), NULL);
  return self->scalars;
}

guint
cr_scalar_view_get_position (CrScalarView *self)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), 0);
  return self->position;
}

void
cr_scalar_view_set_position (CrScalarView *self,
                             guint         position)
{
  g_return_if_fail (CR_IS_SCALAR_VIEW (self));
  guint n = self->scalars && self->scalars->step >= 0 ? self->scalars->n_sub_steps : 0;
  position = MIN (position, n);
  if (position == self->position && self->model)
    return;
  self->position = position;
  update (self);
}

void
cr_scalar_view_set_presentation (CrScalarView *self,
                                 gboolean      presentation)
{
  g_return_if_fail (CR_IS_SCALAR_VIEW (self));
  if (self->presentation == presentation)
    return;
  self->presentation = presentation;
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->text_scroller),
                                              presentation ? 290 : 132);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (self->text_scroller),
                                              presentation ? 290 : 132);
  /* Read from the back of a room: at least 20 px. */
  PangoAttrList *attrs = pango_attr_list_new ();
  if (presentation)
    pango_attr_list_insert (attrs, pango_attr_scale_new (1.5));
  gtk_label_set_attributes (self->text, attrs);
  gtk_label_set_attributes (self->title, attrs);
  pango_attr_list_unref (attrs);
  if (self->scalars)
    {
      CrGraphLayout *layout = layout_of (self->scalars, self->record, presentation, NULL);
      if (layout)
        {
          g_clear_pointer (&self->layout, cr_graph_layout_free);
          self->layout = layout;
        }
    }
  gtk_widget_queue_draw (self->drawing);
}

const char *
cr_scalar_view_get_text (CrScalarView *self)
{
  g_return_val_if_fail (CR_IS_SCALAR_VIEW (self), NULL);
  return gtk_label_get_text (self->text);
}

void
cr_scalar_view_close (CrScalarView *self)
{
  g_return_if_fail (CR_IS_SCALAR_VIEW (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  g_signal_emit (self, signals[SIGNAL_CLOSED], 0);
}
