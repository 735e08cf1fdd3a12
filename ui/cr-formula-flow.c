/* cr-formula-flow.c — terms that flow and wrap like written maths. GtkFlowBox
 * would put the terms in columns of equal width; a formula needs each term
 * at its own width, and continuation lines indented under the first term. */
#include "cr-config.h"
#include "cr-formula-flow.h"

#define H_SPACING 6
#define V_SPACING 6
/* A continuation line is indented under the first term only while that
 * leaves most of the width for the terms. */
#define MAX_INDENT_FRACTION 0.4

struct _CrFormulaFlow
{
  GtkWidget parent_instance;
};

G_DEFINE_FINAL_TYPE (CrFormulaFlow, cr_formula_flow, GTK_TYPE_WIDGET)

typedef struct {
  GtkWidget *child;
  int        x, width, height, line;
} Place;

static gboolean
breaks_before (GtkWidget *child)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (child), "cr-break-before"));
}

/* Lays the visible children out in `width`: their places and each line's
 * height (both filled); returns the total height. */
static int
flow (CrFormulaFlow *self,
      int            width,
      GArray        *places,
      GArray        *line_heights)
{
  int indent = 0, x = 0, line = 0, line_start = 0, first = TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      int min_w, nat_w;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, &nat_w, NULL, NULL);
      if (first)
        {
          if (nat_w + H_SPACING <= width * MAX_INDENT_FRACTION)
            indent = nat_w + H_SPACING;
        }
      else if (x + MIN (nat_w, width - line_start) > width || breaks_before (child))
        {
          line++;
          line_start = indent + min_w <= width ? indent : 0;
          x = line_start;
        }
      int w = MAX (MIN (nat_w, width - x), min_w);
      int min_h, nat_h;
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, w, &min_h, &nat_h, NULL, NULL);
      Place p = { child, x, w, nat_h, line };
      g_array_append_val (places, p);
      if ((guint) line >= line_heights->len)
        {
          int zero = 0;
          g_array_append_val (line_heights, zero);
        }
      int *lh = &g_array_index (line_heights, int, line);
      *lh = MAX (*lh, nat_h);
      x += w + H_SPACING;
      first = FALSE;
    }

  int total = 0;
  for (guint i = 0; i < line_heights->len; i++)
    total += g_array_index (line_heights, int, i) + (i > 0 ? V_SPACING : 0);
  return total;
}

static void
cr_formula_flow_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  CrFormulaFlow *self = CR_FORMULA_FLOW (widget);
  int min = 0, nat = 0, line_nat = 0, first_nat = -1;

  /* The natural width puts every line on one row, the minimum is the widest term. */
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      int cmin, cnat;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &cmin, &cnat, NULL, NULL);
      min = MAX (min, cmin);
      if (first_nat < 0)
        first_nat = cnat;
      else if (breaks_before (child))
        {
          nat = MAX (nat, line_nat);
          line_nat = first_nat + H_SPACING;
        }
      line_nat += cnat + (line_nat > 0 ? H_SPACING : 0);
    }
  nat = MAX (MAX (nat, line_nat), min);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = min;
      *natural = nat;
    }
  else
    {
      g_autoptr (GArray) places = g_array_new (FALSE, FALSE, sizeof (Place));
      g_autoptr (GArray) heights = g_array_new (FALSE, TRUE, sizeof (int));
      int h = flow (self, for_size < 0 ? nat : MAX (for_size, min), places, heights);
      *minimum = *natural = h;
    }
  *minimum_baseline = *natural_baseline = -1;
}

static void
cr_formula_flow_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  CrFormulaFlow *self = CR_FORMULA_FLOW (widget);
  g_autoptr (GArray) places = g_array_new (FALSE, FALSE, sizeof (Place));
  g_autoptr (GArray) heights = g_array_new (FALSE, TRUE, sizeof (int));
  flow (self, width, places, heights);

  /* Each term is centred on its line, the way "=" sits beside a matrix. */
  int y = 0, line = 0;
  for (guint i = 0; i < places->len; i++)
    {
      Place *p = &g_array_index (places, Place, i);
      while (line < p->line)
        y += g_array_index (heights, int, line++) + V_SPACING;
      int lh = g_array_index (heights, int, p->line);
      GtkAllocation a = { p->x, y + (lh - p->height) / 2, p->width, p->height };
      gtk_widget_size_allocate (p->child, &a, -1);
    }
}

static GtkSizeRequestMode
cr_formula_flow_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
cr_formula_flow_dispose (GObject *object)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cr_formula_flow_parent_class)->dispose (object);
}

static void
cr_formula_flow_class_init (CrFormulaFlowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_formula_flow_dispose;
  widget_class->measure = cr_formula_flow_measure;
  widget_class->size_allocate = cr_formula_flow_size_allocate;
  widget_class->get_request_mode = cr_formula_flow_get_request_mode;
  gtk_widget_class_set_css_name (widget_class, "cr-formula");
}

static void
cr_formula_flow_init (CrFormulaFlow *self)
{
}

GtkWidget *
cr_formula_flow_new (void)
{
  return g_object_new (CR_TYPE_FORMULA_FLOW, NULL);
}

void
cr_formula_flow_append (CrFormulaFlow *self,
                        GtkWidget     *child,
                        gboolean       break_before)
{
  g_return_if_fail (CR_IS_FORMULA_FLOW (self));
  g_return_if_fail (GTK_IS_WIDGET (child));

  g_object_set_data (G_OBJECT (child), "cr-break-before", GINT_TO_POINTER (break_before));
  gtk_widget_set_parent (child, GTK_WIDGET (self));
}
