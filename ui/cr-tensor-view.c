/* cr-tensor-view.c — a tensor as a person reads it. Numbers are formatted the
 * way PyTorch prints them (4 decimals, "1." for whole numbers, scientific
 * when the magnitudes span too much), so the card matches print(t). Large
 * tensors get a heat map whose cells follow the font size, so presentation
 * mode's larger font enlarges it too. */
#include "cr-config.h"
#include "cr-tensor-view.h"

#include "cr-card-style.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

/* Up to this many rows and columns a tensor is written out as numbers. */
#define GRID_MAX 6
/* The heat map shows at most this many rows and columns of the 2-D view. */
#define HEAT_MAX 64
/* A long vector is wrapped into rows of this many cells. */
#define HEAT_VECTOR_ROW 32

/* ---- numbers as PyTorch prints them ---------------------------------- */

typedef enum {
  FMT_FIXED,     /* 0.5000 */
  FMT_WHOLE,     /* 2. */
  FMT_SCI,       /* 1.0000e+05 */
  FMT_INTEGER,   /* integer dtypes: 3 */
  FMT_BOOL,      /* True */
} FmtMode;

static FmtMode
choose_format (const CrTensorSnapshot *s)
{
  const char *dtype = s->dtype ? s->dtype : "";
  if (strstr (dtype, "bool"))
    return FMT_BOOL;
  if (g_str_has_prefix (dtype, "torch.int") || g_str_has_prefix (dtype, "torch.uint")
      || g_str_has_prefix (dtype, "torch.long") || g_str_has_prefix (dtype, "torch.short"))
    return FMT_INTEGER;

  double amin = INFINITY, amax = 0;
  gboolean whole = TRUE;
  for (gint64 i = 0; i < s->n_values; i++)
    {
      double v = s->values[i];
      if (!isfinite (v))
        continue;
      if (v != floor (v))
        whole = FALSE;
      if (v != 0)
        {
          amin = MIN (amin, fabs (v));
          amax = MAX (amax, fabs (v));
        }
    }
  if (amax == 0)
    return whole ? FMT_WHOLE : FMT_FIXED;
  if (whole)
    return (amax / amin > 1000 || amax > 1e8) ? FMT_SCI : FMT_WHOLE;
  return (amax / amin > 1000 || amax > 1e8 || amin < 1e-4) ? FMT_SCI : FMT_FIXED;
}

static char *
format_number (FmtMode mode,
               double  v)
{
  if (mode == FMT_BOOL)
    return g_strdup (v != 0 ? "True" : "False");
  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  switch (mode)
    {
    case FMT_INTEGER: return g_strdup_printf ("%.0f", v);
    case FMT_WHOLE:   return g_strdup_printf ("%.0f.", v);
    case FMT_SCI:     return g_strdup_printf ("%.4e", v);
    case FMT_FIXED:
    case FMT_BOOL:
    default:          return g_strdup_printf ("%.4f", v);
    }
}

static char *
format_stat (double v)
{
  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  return g_strdup_printf ("%.4g", v);
}

/* ---- the diverging colour map ---------------------------------------- */

typedef struct { double r, g, b; } Rgb;

static gboolean
widget_is_dark (GtkWidget *widget)
{
  GdkRGBA fg;
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  return 0.299 * fg.red + 0.587 * fg.green + 0.114 * fg.blue > 0.5;
}

/* Negative blue, zero neutral, positive red (the GNOME palette); t in [-1, 1]. */
static Rgb
diverging (double   t,
           gboolean dark)
{
  static const Rgb neg_light = { 0x1a / 255.0, 0x5f / 255.0, 0xb4 / 255.0 };
  static const Rgb pos_light = { 0xc0 / 255.0, 0x1c / 255.0, 0x28 / 255.0 };
  static const Rgb mid_light = { 0xf6 / 255.0, 0xf5 / 255.0, 0xf4 / 255.0 };
  static const Rgb neg_dark = { 0x62 / 255.0, 0xa0 / 255.0, 0xea / 255.0 };
  static const Rgb pos_dark = { 0xf6 / 255.0, 0x61 / 255.0, 0x51 / 255.0 };
  static const Rgb mid_dark = { 0x3d / 255.0, 0x38 / 255.0, 0x46 / 255.0 };

  if (isnan (t))
    return dark ? (Rgb) { 0.45, 0.45, 0.45 } : (Rgb) { 0.6, 0.6, 0.6 };
  t = CLAMP (t, -1.0, 1.0);
  const Rgb *end = t < 0 ? (dark ? &neg_dark : &neg_light) : (dark ? &pos_dark : &pos_light);
  const Rgb *mid = dark ? &mid_dark : &mid_light;
  double a = fabs (t);
  return (Rgb) { mid->r + (end->r - mid->r) * a,
                 mid->g + (end->g - mid->g) * a,
                 mid->b + (end->b - mid->b) * a };
}

/* ---- the heat map ----------------------------------------------------- */

#define CR_TYPE_HEAT_MAP (cr_heat_map_get_type ())
G_DECLARE_FINAL_TYPE (CrHeatMap, cr_heat_map, CR, HEAT_MAP, GtkWidget)

struct _CrHeatMap
{
  GtkWidget  parent_instance;
  int        rows, cols;
  double    *values;   /* rows × cols */
  gint64     n_cells;  /* the first n_cells are drawn (a wrapped vector's last row is short) */
  double     scale;    /* the largest magnitude: the ends of the colour map */
};

G_DEFINE_FINAL_TYPE (CrHeatMap, cr_heat_map, GTK_TYPE_WIDGET)

/* A cell is as tall as a digit at the current font size. */
static double
heat_cell_size (GtkWidget *widget)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, "0");
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  return MAX (h * 0.8, 4.0);
}

static void
cr_heat_map_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  CrHeatMap *self = CR_HEAT_MAP (widget);
  double cell = heat_cell_size (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MIN (self->cols * 3, (int) (cell * 8));
      *natural = MAX (*minimum, (int) ceil (self->cols * cell));
    }
  else
    {
      double w = for_size < 0 ? self->cols * cell : for_size;
      double c = MIN (cell, w / MAX (self->cols, 1));
      *minimum = *natural = MAX (1, (int) ceil (self->rows * c));
    }
}

static GtkSizeRequestMode
cr_heat_map_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
cr_heat_map_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  CrHeatMap *self = CR_HEAT_MAP (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  if (self->rows <= 0 || self->cols <= 0 || width <= 0 || height <= 0)
    return;

  double cell = MIN (heat_cell_size (widget), MIN ((double) width / self->cols,
                                                   (double) height / self->rows));
  gboolean dark = widget_is_dark (widget);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                           &GRAPHENE_RECT_INIT (0, 0, width, height));
  /* Gaps between cells only while cells are big enough to spare them. */
  double gap = cell >= 8 ? 1.0 : 0.0;
  for (int r = 0; r < self->rows; r++)
    for (int c = 0; c < self->cols && (gint64) r * self->cols + c < self->n_cells; c++)
      {
        double v = self->values[(gsize) r * self->cols + c];
        Rgb rgb = diverging (self->scale > 0 ? v / self->scale : (isnan (v) ? NAN : 0), dark);
        cairo_set_source_rgb (cr, rgb.r, rgb.g, rgb.b);
        cairo_rectangle (cr, c * cell, r * cell, cell - gap, cell - gap);
        cairo_fill (cr);
      }
  cairo_set_source_rgba (cr, dark ? 1 : 0, dark ? 1 : 0, dark ? 1 : 0, 0.25);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, 0.5, 0.5, self->cols * cell - gap, self->rows * cell - gap);
  cairo_stroke (cr);
  cairo_destroy (cr);
}

static void
cr_heat_map_finalize (GObject *object)
{
  g_free (CR_HEAT_MAP (object)->values);
  G_OBJECT_CLASS (cr_heat_map_parent_class)->finalize (object);
}

static void
cr_heat_map_class_init (CrHeatMapClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cr_heat_map_finalize;
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  widget_class->measure = cr_heat_map_measure;
  widget_class->snapshot = cr_heat_map_snapshot;
  widget_class->get_request_mode = cr_heat_map_get_request_mode;
  gtk_widget_class_set_css_name (widget_class, "cr-heatmap");
}

static void
cr_heat_map_init (CrHeatMap *self)
{
}

gboolean
cr_tensor_view_is_heat_map (GtkWidget *widget)
{
  return CR_IS_HEAT_MAP (widget);
}

gboolean
cr_tensor_view_same_heat_map (GtkWidget *a,
                              GtkWidget *b)
{
  if (!CR_IS_HEAT_MAP (a) || !CR_IS_HEAT_MAP (b))
    return FALSE;
  CrHeatMap *x = CR_HEAT_MAP (a), *y = CR_HEAT_MAP (b);
  /* Bit for bit, so that NaN cells compare equal too. */
  return x->rows == y->rows && x->cols == y->cols && x->n_cells == y->n_cells
         && memcmp (&x->scale, &y->scale, sizeof x->scale) == 0
         && memcmp (x->values, y->values, sizeof (double) * (gsize) x->rows * (gsize) x->cols) == 0;
}

static void
legend_draw (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  gboolean dark = widget_is_dark (GTK_WIDGET (area));
  for (int x = 0; x < width; x++)
    {
      Rgb rgb = diverging (2.0 * (x + 0.5) / width - 1.0, dark);
      cairo_set_source_rgb (cr, rgb.r, rgb.g, rgb.b);
      cairo_rectangle (cr, x, 0, 1, height);
      cairo_fill (cr);
    }
}

/* ---- building the view ------------------------------------------------ */

static GtkWidget *
number_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_widget_add_css_class (label, "cr-number");
  return label;
}

static GtkWidget *
bracket (gboolean left)
{
  GtkWidget *b = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (b, left ? "cr-bracket-left" : "cr-bracket-right");
  return b;
}

/* ---- the number matrix ------------------------------------------------ */

/* In presentation a grid of this many columns or more is written shorter
 * (compact_choose): at presentation's type four columns of PyTorch's four
 * decimals ("-0.3835") are wider than the sidebar's 30 % of a 1366 px
 * screen, and the card would push the graph out of view. */
#define COMPACT_MIN_COLS 4

/* A vector or matrix of up to GRID_MAX × GRID_MAX numbers, right-aligned in
 * columns between brackets; the numbers as PyTorch prints them, or in
 * presentation, where the grid is wide, compact: two decimals, as the
 * graph's boxes show values, under a common power of ten where the largest
 * magnitude is under 0.1 or from 100 up (then "× 0.001" under the grid). It
 * follows the window: F5 relabels the grids on screen. */
#define CR_TYPE_NUMBER_MATRIX (cr_number_matrix_get_type ())
G_DECLARE_FINAL_TYPE (CrNumberMatrix, cr_number_matrix, CR, NUMBER_MATRIX, GtkBox)

struct _CrNumberMatrix
{
  GtkBox     parent_instance;
  int        rows, cols;
  double    *values;        /* rows × cols, owned */
  FmtMode    mode;          /* PyTorch's format for these values */
  gboolean   compact;       /* the labels show the compact form */
  GtkWidget *grid;          /* borrowed: a child; its labels in row-major order */
  GtkWidget *scale;         /* borrowed: "× 0.001" under the grid, shown where compact needs it; NULL until then */
  GtkRoot   *watched;       /* borrowed: the window whose classes say "presentation" */
  gulong     watch_id;
};

G_DEFINE_FINAL_TYPE (CrNumberMatrix, cr_number_matrix, GTK_TYPE_BOX)

typedef struct {
  int exponent;   /* the values are shown divided by 10^exponent */
  int decimals;
} Compact;

/* At most five characters a number ("-3.32", "-33.2"), three significant
 * digits for the largest. */
static Compact
compact_choose (const double *values,
                gint64        n)
{
  double amax = 0;
  for (gint64 i = 0; i < n; i++)
    if (isfinite (values[i]))
      amax = MAX (amax, fabs (values[i]));
  /* The bounds allow for rounding: 9.996 shows as "10.0", not "10.00". */
  if (amax == 0 || (amax >= 0.0995 && amax < 9.995))
    return (Compact) { 0, 2 };
  if (amax >= 9.995 && amax < 99.95)
    return (Compact) { 0, 1 };
  int exponent = (int) floor (log10 (amax));
  if (amax / pow (10, exponent) >= 9.995)
    exponent++;
  return (Compact) { exponent, 2 };
}

static char *
format_compact (Compact c,
                double  v)
{
  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  char *text = g_strdup_printf ("%.*f", c.decimals, v / pow (10, c.exponent));
  /* A value that rounds to zero reads as zero, without a sign. */
  if (text[0] == '-' && strspn (text + 1, "0.") == strlen (text + 1))
    memmove (text, text + 1, strlen (text));
  return text;
}

/* "× 0.01" as a plain number where it is short ("× 10⁻⁵" past that): read
 * from the back of a room a superscript is the smallest thing on the card. */
static char *
scale_text (int exponent)
{
  if (exponent >= 0 && exponent <= 4)
    return g_strdup_printf ("× %.0f", pow (10, exponent));
  if (exponent < 0 && exponent >= -4)
    return g_strdup_printf ("× %.*f", -exponent, pow (10, exponent));
  static const char *const superscript[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  GString *text = g_string_new ("× 10");
  if (exponent < 0)
    g_string_append (text, "⁻");
  g_autofree char *digits = g_strdup_printf ("%d", ABS (exponent));
  for (const char *d = digits; *d; d++)
    g_string_append (text, superscript[*d - '0']);
  return g_string_free (text, FALSE);
}

static gboolean
presenting (CrNumberMatrix *self)
{
  return self->watched && gtk_widget_has_css_class (GTK_WIDGET (self->watched), "presentation");
}

/* Writes the labels in the form the window's mode asks for. */
static void
number_matrix_update (CrNumberMatrix *self)
{
  gboolean compact = presenting (self) && self->cols >= COMPACT_MIN_COLS
                     && (self->mode == FMT_FIXED || self->mode == FMT_SCI);
  if (compact == self->compact)
    return;
  self->compact = compact;
  Compact c = compact_choose (self->values, (gint64) self->rows * self->cols);
  int i = 0;
  for (GtkWidget *label = gtk_widget_get_first_child (self->grid); label;
       label = gtk_widget_get_next_sibling (label), i++)
    {
      g_autofree char *text = compact ? format_compact (c, self->values[i])
                                      : format_number (self->mode, self->values[i]);
      gtk_label_set_text (GTK_LABEL (label), text);
    }
  /* Made the first time it is needed: a matrix never presented has none. */
  if (compact && c.exponent != 0 && !self->scale)
    {
      self->scale = number_label ("");
      gtk_widget_add_css_class (self->scale, "cr-scale");
      gtk_widget_set_halign (self->scale, GTK_ALIGN_END);
      gtk_box_append (GTK_BOX (self), self->scale);
    }
  if (self->scale)
    {
      g_autofree char *scale = scale_text (c.exponent);
      gtk_label_set_text (GTK_LABEL (self->scale), scale);
      gtk_widget_set_visible (self->scale, compact && c.exponent != 0);
    }
}

static void
on_root_classes (GtkWidget      *root,
                 GParamSpec     *pspec,
                 CrNumberMatrix *self)
{
  number_matrix_update (self);
}

static void
cr_number_matrix_root (GtkWidget *widget)
{
  CrNumberMatrix *self = CR_NUMBER_MATRIX (widget);
  GTK_WIDGET_CLASS (cr_number_matrix_parent_class)->root (widget);
  self->watched = gtk_widget_get_root (widget);
  self->watch_id = g_signal_connect (self->watched, "notify::css-classes", G_CALLBACK (on_root_classes), self);
  number_matrix_update (self);
}

static void
cr_number_matrix_unroot (GtkWidget *widget)
{
  CrNumberMatrix *self = CR_NUMBER_MATRIX (widget);
  g_clear_signal_handler (&self->watch_id, self->watched);
  self->watched = NULL;
  GTK_WIDGET_CLASS (cr_number_matrix_parent_class)->unroot (widget);
}

static void
cr_number_matrix_finalize (GObject *object)
{
  g_free (CR_NUMBER_MATRIX (object)->values);
  G_OBJECT_CLASS (cr_number_matrix_parent_class)->finalize (object);
}

static void
cr_number_matrix_class_init (CrNumberMatrixClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cr_number_matrix_finalize;
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  widget_class->root = cr_number_matrix_root;
  widget_class->unroot = cr_number_matrix_unroot;
}

static void
cr_number_matrix_init (CrNumberMatrix *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
}

gboolean
cr_tensor_view_is_number_matrix (GtkWidget *widget)
{
  return CR_IS_NUMBER_MATRIX (widget);
}

gboolean
cr_tensor_view_same_number_matrix (GtkWidget *a,
                                   GtkWidget *b)
{
  if (!CR_IS_NUMBER_MATRIX (a) || !CR_IS_NUMBER_MATRIX (b))
    return FALSE;
  CrNumberMatrix *x = CR_NUMBER_MATRIX (a), *y = CR_NUMBER_MATRIX (b);
  /* Bit for bit, so that NaN cells compare equal too. */
  return x->rows == y->rows && x->cols == y->cols && x->mode == y->mode
         && memcmp (x->values, y->values, sizeof (double) * (gsize) x->rows * (gsize) x->cols) == 0;
}

static GtkWidget *
grid_view (const CrTensorSnapshot *s)
{
  CrNumberMatrix *self = g_object_new (CR_TYPE_NUMBER_MATRIX, NULL);
  self->rows = s->ndim == 2 ? (int) s->shape[0] : 1;
  self->cols = s->ndim == 2 ? (int) s->shape[1] : (int) s->numel;
  self->mode = choose_format (s);
  self->values = g_memdup2 (s->values, sizeof (double) * (gsize) self->rows * (gsize) self->cols);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  self->grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 2);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 1);
  for (int r = 0; r < self->rows; r++)
    for (int c = 0; c < self->cols; c++)
      {
        g_autofree char *text = format_number (self->mode, self->values[(gsize) r * self->cols + c]);
        gtk_grid_attach (GTK_GRID (self->grid), number_label (text), c, r, 1, 1);
      }
  gtk_widget_add_css_class (self->grid, "cr-matrix");
  gtk_box_append (GTK_BOX (box), bracket (TRUE));
  gtk_box_append (GTK_BOX (box), self->grid);
  gtk_box_append (GTK_BOX (box), bracket (FALSE));
  gtk_box_append (GTK_BOX (self), box);
  gtk_widget_set_halign (GTK_WIDGET (self), GTK_ALIGN_START);
  return GTK_WIDGET (self);
}

static void
add_stat (GtkGrid    *grid,
          const char *name,
          double      value,
          int         col,
          int         row)
{
  GtkWidget *n = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (n), 0.0);
  gtk_widget_add_css_class (n, "dim-label");
  g_autofree char *text = format_stat (value);
  GtkWidget *v = number_label (text);
  gtk_label_set_xalign (GTK_LABEL (v), 0.0);
  if (col > 0)
    gtk_widget_set_margin_start (n, 12);
  gtk_grid_attach (grid, n, col, row, 1, 1);
  gtk_grid_attach (grid, v, col + 1, row, 1, 1);
}

/* Shape, dtype, statistics and a heat map of (the start of) the 2-D view. */
static GtkWidget *
summary_view (const CrTensorSnapshot *s)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_autofree char *shape = cr_record_shape_text (s->shape, s->ndim);
  g_autofree char *head = g_strdup_printf ("%s · %s", shape, s->dtype ? s->dtype : "?");
  GtkWidget *label = cr_card_label_new (head, "cr-number");
  gtk_box_append (GTK_BOX (box), label);

  GtkWidget *stats = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (stats), 8);
  gtk_grid_set_row_spacing (GTK_GRID (stats), 2);
  add_stat (GTK_GRID (stats), "min", s->min, 0, 0);
  add_stat (GTK_GRID (stats), "max", s->max, 2, 0);
  add_stat (GTK_GRID (stats), "mean", s->mean, 0, 1);
  add_stat (GTK_GRID (stats), "std", s->std, 2, 1);
  gtk_widget_set_halign (stats, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), stats);

  if (s->n_values <= 0 || !s->values)
    return box;

  /* The 2-D view: a matrix as it is, a vector wrapped into rows, more
   * dimensions flattened to (everything else) × last. */
  gint64 cols, rows;
  if (s->ndim <= 1)
    {
      cols = MIN (s->numel, HEAT_VECTOR_ROW);
      rows = (s->numel + cols - 1) / cols;
    }
  else
    {
      cols = MAX (s->shape[s->ndim - 1], 1);
      rows = s->numel / cols;
    }
  gint64 show_cols = MIN (MIN (cols, HEAT_MAX), s->n_values);
  gint64 avail_rows = s->ndim <= 1 ? (s->n_values + cols - 1) / cols : s->n_values / cols;
  gint64 show_rows = MAX (1, MIN (MIN (rows, HEAT_MAX), avail_rows));
  CrHeatMap *heat = g_object_new (CR_TYPE_HEAT_MAP, NULL);
  heat->rows = (int) show_rows;
  heat->cols = (int) show_cols;
  heat->values = g_new (double, show_rows * show_cols);
  heat->n_cells = s->ndim <= 1 ? MIN (show_rows * show_cols, s->n_values) : show_rows * show_cols;
  double scale = 0;
  for (gint64 r = 0; r < show_rows; r++)
    for (gint64 c = 0; c < show_cols; c++)
      {
        gint64 i = r * cols + c;
        double v = i < s->n_values ? s->values[i] : NAN;
        heat->values[r * show_cols + c] = v;
        if (isfinite (v))
          scale = MAX (scale, fabs (v));
      }
  if (isfinite (s->min) && isfinite (s->max))
    scale = MAX (fabs (s->min), fabs (s->max));
  heat->scale = scale;
  gtk_widget_set_halign (GTK_WIDGET (heat), GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (heat));

  /* The legend: the colour of -m, 0 and +m. */
  GtkWidget *legend = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  g_autofree char *lo = format_stat (-scale), *hi = format_stat (scale);
  GtkWidget *lo_label = gtk_label_new (lo), *hi_label = gtk_label_new (hi);
  gtk_widget_add_css_class (lo_label, "caption");
  gtk_widget_add_css_class (hi_label, "caption");
  gtk_widget_add_css_class (lo_label, "cr-number");
  gtk_widget_add_css_class (hi_label, "cr-number");
  GtkWidget *bar = gtk_drawing_area_new ();
  gtk_widget_add_css_class (bar, "cr-legend-bar");
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (bar), legend_draw, NULL, NULL);
  gtk_box_append (GTK_BOX (legend), lo_label);
  gtk_box_append (GTK_BOX (legend), bar);
  gtk_box_append (GTK_BOX (legend), hi_label);
  gtk_widget_set_halign (legend, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), legend);

  GString *note = g_string_new (NULL);
  if (s->ndim > 2)
    g_string_append_printf (note, "Flattened to %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT ". ",
                            rows, cols);
  else if (s->ndim <= 1 && rows > 1)
    g_string_append_printf (note, "Wrapped into rows of %" G_GINT64_FORMAT ". ", cols);
  if (show_rows < rows || show_cols < cols)
    g_string_append_printf (note, "Showing the first %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT
                            " values.", show_rows, show_cols);
  if (note->len > 0)
    gtk_box_append (GTK_BOX (box), cr_card_label_new (note->str, "cr-footnote"));
  g_string_free (note, TRUE);
  return box;
}

GtkWidget *
cr_tensor_view_new (const CrTensorSnapshot *snapshot)
{
  cr_card_style_ensure ();

  GtkWidget *view = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (view, "cr-tensor");
  gtk_widget_set_halign (view, GTK_ALIGN_START);
  gtk_widget_set_valign (view, GTK_ALIGN_CENTER);

  const CrTensorSnapshot *s = snapshot;
  GtkWidget *content;
  if (!s)
    {
      content = gtk_label_new ("None");
      gtk_widget_add_css_class (content, "cr-none");
    }
  else if (s->numel == 0)
    {
      g_autofree char *shape = cr_record_shape_text (s->shape, s->ndim);
      g_autofree char *text = g_strdup_printf ("[] (empty, %s)", shape);
      content = number_label (text);
    }
  else if (s->ndim == 0 && s->n_values >= 1 && s->values)
    {
      g_autofree char *text = format_number (choose_format (s), s->values[0]);
      content = number_label (text);
    }
  else if (s->ndim <= 2 && s->n_values == s->numel && s->values
           && (s->ndim == 1 ? s->numel <= GRID_MAX
                            : s->shape[0] <= GRID_MAX && s->shape[1] <= GRID_MAX))
    content = grid_view (s);
  else
    content = summary_view (s);

  if (s)
    {
      g_autofree char *shape = cr_record_shape_text (s->shape, s->ndim);
      g_autofree char *tip = g_strdup_printf ("shape %s · %s · %s", shape,
                                              s->dtype ? s->dtype : "?",
                                              s->device ? s->device : "cpu");
      gtk_widget_set_tooltip_text (view, tip);
    }
  gtk_box_append (GTK_BOX (view), content);
  return view;
}
