/* cr-widget-same.c — comparing two widget trees (cr-widget-same.h).
 *
 * Only what the card builders set is compared, for the widget types they
 * make, each by its exact type: a subclass could hold state of its own. The
 * comparison reads properties and never measures, so it costs a small part
 * of what showing a new tree does. */
#include "cr-config.h"
#include "cr-widget-same.h"

#include "cr-formula-flow.h"
#include "cr-tensor-view.h"

#include <string.h>

/* The data the card builders attach to their widgets. */
static const char *const string_data[] = { "cr-text" };
static const char *const pointer_data[] = { "cr-break-before" };

static gboolean
same_common (GtkWidget *a,
             GtkWidget *b)
{
  if (gtk_widget_get_visible (a) != gtk_widget_get_visible (b)
      || gtk_widget_get_sensitive (a) != gtk_widget_get_sensitive (b)
      || gtk_widget_get_can_target (a) != gtk_widget_get_can_target (b)
      || gtk_widget_get_focusable (a) != gtk_widget_get_focusable (b)
      || gtk_widget_get_can_focus (a) != gtk_widget_get_can_focus (b)
      || gtk_widget_get_halign (a) != gtk_widget_get_halign (b)
      || gtk_widget_get_valign (a) != gtk_widget_get_valign (b)
      || gtk_widget_get_hexpand (a) != gtk_widget_get_hexpand (b)
      || gtk_widget_get_vexpand (a) != gtk_widget_get_vexpand (b)
      || gtk_widget_get_hexpand_set (a) != gtk_widget_get_hexpand_set (b)
      || gtk_widget_get_vexpand_set (a) != gtk_widget_get_vexpand_set (b)
      || gtk_widget_get_margin_start (a) != gtk_widget_get_margin_start (b)
      || gtk_widget_get_margin_end (a) != gtk_widget_get_margin_end (b)
      || gtk_widget_get_margin_top (a) != gtk_widget_get_margin_top (b)
      || gtk_widget_get_margin_bottom (a) != gtk_widget_get_margin_bottom (b)
      || gtk_widget_get_opacity (a) != gtk_widget_get_opacity (b)
      || gtk_widget_get_overflow (a) != gtk_widget_get_overflow (b)
      || gtk_widget_get_cursor (a) != gtk_widget_get_cursor (b)
      || g_strcmp0 (gtk_widget_get_name (a), gtk_widget_get_name (b)) != 0
      || g_strcmp0 (gtk_widget_get_tooltip_markup (a), gtk_widget_get_tooltip_markup (b)) != 0
      || g_strcmp0 (gtk_widget_get_tooltip_text (a), gtk_widget_get_tooltip_text (b)) != 0)
    return FALSE;
  int aw, ah, bw, bh;
  gtk_widget_get_size_request (a, &aw, &ah);
  gtk_widget_get_size_request (b, &bw, &bh);
  if (aw != bw || ah != bh)
    return FALSE;
  g_auto (GStrv) a_classes = gtk_widget_get_css_classes (a);
  g_auto (GStrv) b_classes = gtk_widget_get_css_classes (b);
  if (!g_strv_equal ((const char *const *) a_classes, (const char *const *) b_classes))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (string_data); i++)
    if (g_strcmp0 (g_object_get_data (G_OBJECT (a), string_data[i]),
                   g_object_get_data (G_OBJECT (b), string_data[i])) != 0)
      return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (pointer_data); i++)
    if (g_object_get_data (G_OBJECT (a), pointer_data[i]) != g_object_get_data (G_OBJECT (b), pointer_data[i]))
      return FALSE;
  return TRUE;
}

static gboolean
same_attributes (PangoAttrList *a,
                 PangoAttrList *b)
{
  if (!a || !b)
    return a == b;
  return pango_attr_list_equal (a, b);
}

static gboolean
same_label (GtkLabel *a,
            GtkLabel *b)
{
  return g_strcmp0 (gtk_label_get_label (a), gtk_label_get_label (b)) == 0
         && gtk_label_get_use_markup (a) == gtk_label_get_use_markup (b)
         && gtk_label_get_use_underline (a) == gtk_label_get_use_underline (b)
         && gtk_label_get_wrap (a) == gtk_label_get_wrap (b)
         && gtk_label_get_wrap_mode (a) == gtk_label_get_wrap_mode (b)
         && gtk_label_get_natural_wrap_mode (a) == gtk_label_get_natural_wrap_mode (b)
         && gtk_label_get_xalign (a) == gtk_label_get_xalign (b)
         && gtk_label_get_yalign (a) == gtk_label_get_yalign (b)
         && gtk_label_get_justify (a) == gtk_label_get_justify (b)
         && gtk_label_get_ellipsize (a) == gtk_label_get_ellipsize (b)
         && gtk_label_get_width_chars (a) == gtk_label_get_width_chars (b)
         && gtk_label_get_max_width_chars (a) == gtk_label_get_max_width_chars (b)
         && gtk_label_get_lines (a) == gtk_label_get_lines (b)
         && gtk_label_get_selectable (a) == gtk_label_get_selectable (b)
         && gtk_label_get_single_line_mode (a) == gtk_label_get_single_line_mode (b)
         && gtk_label_get_mnemonic_widget (a) == NULL && gtk_label_get_mnemonic_widget (b) == NULL
         && same_attributes (gtk_label_get_attributes (a), gtk_label_get_attributes (b));
}

static gboolean
same_box (GtkBox *a,
          GtkBox *b)
{
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (a)) == gtk_orientable_get_orientation (GTK_ORIENTABLE (b))
         && gtk_box_get_spacing (a) == gtk_box_get_spacing (b)
         && gtk_box_get_homogeneous (a) == gtk_box_get_homogeneous (b)
         && gtk_box_get_baseline_position (a) == gtk_box_get_baseline_position (b);
}

static gboolean
same_grid (GtkGrid *a,
           GtkGrid *b)
{
  if (gtk_grid_get_row_spacing (a) != gtk_grid_get_row_spacing (b)
      || gtk_grid_get_column_spacing (a) != gtk_grid_get_column_spacing (b)
      || gtk_grid_get_row_homogeneous (a) != gtk_grid_get_row_homogeneous (b)
      || gtk_grid_get_column_homogeneous (a) != gtk_grid_get_column_homogeneous (b)
      || gtk_grid_get_baseline_row (a) != gtk_grid_get_baseline_row (b))
    return FALSE;
  /* Where each child sits (the children themselves are compared after). */
  GtkWidget *ca = gtk_widget_get_first_child (GTK_WIDGET (a));
  GtkWidget *cb = gtk_widget_get_first_child (GTK_WIDGET (b));
  for (; ca && cb; ca = gtk_widget_get_next_sibling (ca), cb = gtk_widget_get_next_sibling (cb))
    {
      int pa[4], pb[4];
      gtk_grid_query_child (a, ca, &pa[0], &pa[1], &pa[2], &pa[3]);
      gtk_grid_query_child (b, cb, &pb[0], &pb[1], &pb[2], &pb[3]);
      if (memcmp (pa, pb, sizeof pa) != 0)
        return FALSE;
    }
  return ca == NULL && cb == NULL;
}

static gboolean
same_image (GtkImage *a,
            GtkImage *b)
{
  return gtk_image_get_storage_type (a) == GTK_IMAGE_ICON_NAME
         && gtk_image_get_storage_type (b) == GTK_IMAGE_ICON_NAME
         && g_strcmp0 (gtk_image_get_icon_name (a), gtk_image_get_icon_name (b)) == 0
         && gtk_image_get_pixel_size (a) == gtk_image_get_pixel_size (b)
         && gtk_image_get_icon_size (a) == gtk_image_get_icon_size (b);
}

/* The widget's own part, by its exact type; FALSE for a type not known. */
static gboolean
same_kind (GtkWidget *a,
           GtkWidget *b)
{
  GType type = G_OBJECT_TYPE (a);
  if (type != G_OBJECT_TYPE (b))
    return FALSE;
  if (type == GTK_TYPE_LABEL)
    return same_label (GTK_LABEL (a), GTK_LABEL (b));
  if (type == GTK_TYPE_BOX)
    return same_box (GTK_BOX (a), GTK_BOX (b));
  if (type == GTK_TYPE_GRID)
    return same_grid (GTK_GRID (a), GTK_GRID (b));
  if (type == GTK_TYPE_IMAGE)
    return same_image (GTK_IMAGE (a), GTK_IMAGE (b));
  if (type == GTK_TYPE_SEPARATOR)
    return gtk_orientable_get_orientation (GTK_ORIENTABLE (a)) == gtk_orientable_get_orientation (GTK_ORIENTABLE (b));
  if (type == GTK_TYPE_DRAWING_AREA)
    {
      /* The builders' one drawing area is the heat map's legend, which
       * draws from its size and the theme alone. */
      GtkDrawingArea *da = GTK_DRAWING_AREA (a), *db = GTK_DRAWING_AREA (b);
      return gtk_drawing_area_get_content_width (da) == gtk_drawing_area_get_content_width (db)
             && gtk_drawing_area_get_content_height (da) == gtk_drawing_area_get_content_height (db);
    }
  if (type == CR_TYPE_FORMULA_FLOW)
    return TRUE;   /* its children say it all */
  if (cr_tensor_view_is_heat_map (a))
    return cr_tensor_view_same_heat_map (a, b);
  if (cr_tensor_view_is_number_matrix (a))
    return cr_tensor_view_same_number_matrix (a, b);
  return FALSE;
}

gboolean
cr_widget_same (GtkWidget *a,
                GtkWidget *b)
{
  g_return_val_if_fail (GTK_IS_WIDGET (a) && GTK_IS_WIDGET (b), FALSE);
  if (a == b)
    return TRUE;
  if (!same_kind (a, b) || !same_common (a, b))
    return FALSE;
  /* Its numbers are compared; its labels follow the window's mode. */
  if (cr_tensor_view_is_number_matrix (a))
    return TRUE;
  GtkWidget *ca = gtk_widget_get_first_child (a);
  GtkWidget *cb = gtk_widget_get_first_child (b);
  for (; ca && cb; ca = gtk_widget_get_next_sibling (ca), cb = gtk_widget_get_next_sibling (cb))
    if (!cr_widget_same (ca, cb))
      return FALSE;
  return ca == NULL && cb == NULL;
}
