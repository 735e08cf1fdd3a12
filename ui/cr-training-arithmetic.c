/* cr-training-arithmetic.c — arithmetic broken into balanced lines
 * (cr-training-arithmetic.h).
 *
 * A GtkLabel fills each line before it breaks, so Adam's update came out
 * as "-1.0959" over the rest, or as two full lines over a stub. Here the
 * lines are chosen for the whole text at once and the widget draws them
 * itself, one PangoLayout line each. */
#include "cr-training-arithmetic.h"

#include <math.h>
#include <string.h>

/* ---- where lines may break ------------------------------------------------------ */

static gboolean
is_operator (gunichar c)
{
  return c == '+' || c == 0x2212 /* − */ || c == 0xd7 /* × */ || c == '/' || c == '='
         || c == 0x2192 /* → */ || c == 0x2190 /* ← */;
}

GArray *
cr_training_text_breaks (const char *text)
{
  GArray *breaks = g_array_new (FALSE, FALSE, sizeof (CrTrainingBreak));
  int depth = 0;
  gunichar before = 0;
  for (const char *c = text; c && *c; c = g_utf8_next_char (c))
    {
      gunichar ch = g_utf8_get_char (c);
      const char *next = g_utf8_next_char (c);
      if (ch == '(' || ch == '[')
        depth++;
      else if ((ch == ')' || ch == ']') && depth > 0)
        depth--;
      /* An operator with a space either side: "0.9 × 0.006", not "e-05". */
      else if (before == ' ' && is_operator (ch) && *next == ' ' && c > text + 1)
        {
          CrTrainingBreak at = {
            (guint) (c - text),
            depth > 0 ? CR_TRAINING_BREAK_BRACKET
            : ch == '+' || ch == 0x2212 ? CR_TRAINING_BREAK_TERM : CR_TRAINING_BREAK_OPERATOR,
          };
          g_array_append_val (breaks, at);
        }
      /* The rules write "lr·m̂/(√v̂ + ε)" tight: before that '/' too, as
       * no number holds one. */
      else if (ch == '/' && before != ' ' && c > text)
        {
          CrTrainingBreak at = {
            (guint) (c - text), depth > 0 ? CR_TRAINING_BREAK_BRACKET : CR_TRAINING_BREAK_OPERATOR,
          };
          g_array_append_val (breaks, at);
        }
      /* "max(0.00018, 0.00024)": after a comma too. */
      if (ch == ',' && *next == ' ' && next[1])
        {
          CrTrainingBreak at = {
            (guint) (next + 1 - text), depth > 0 ? CR_TRAINING_BREAK_BRACKET : CR_TRAINING_BREAK_OPERATOR,
          };
          g_array_append_val (breaks, at);
        }
      before = ch;
    }
  return breaks;
}

/* ---- which breaks make the lines ------------------------------------------------ */

/* What a break costs: a person breaks between terms freely, at another
 * operator reluctantly, inside brackets only when made to. */
static guint
break_cost (CrTrainingBreakLevel level)
{
  static const guint costs[] = { 0, 1, 3 };
  return costs[MIN ((guint) level, G_N_ELEMENTS (costs) - 1)];
}

/* The lines from a place on, compared in this order: how far they go past
 * the width (in all); whether the first line is one number alone, with
 * more to come (a first line only); how many lines; what their breaks
 * cost; how wide the widest is (the balance). */
typedef struct {
  double   overflow;
  gboolean lone;
  guint    lines;
  guint    cost;
  double   widest;
  guint    next;      /* the place where the second of these lines starts */
} Plan;

static int
compare_plans (const Plan *a,
               const Plan *b)
{
  if (a->overflow != b->overflow)
    return a->overflow < b->overflow ? -1 : 1;
  if (a->lone != b->lone)
    return a->lone ? 1 : -1;
  if (a->lines != b->lines)
    return a->lines < b->lines ? -1 : 1;
  if (a->cost != b->cost)
    return a->cost < b->cost ? -1 : 1;
  if (a->widest != b->widest)
    return a->widest < b->widest ? -1 : 1;
  return 0;
}

typedef struct {
  const char        *text;
  GArray            *breaks;    /* all of them, whatever the level used */
  CrTrainingMeasure  measure;
  gpointer           data;
  double             width;
} Fitting;

/* Where the line [from, to) of text ends once the spaces before the next
 * line's operator are left off. */
static guint
line_end (const char *text,
          guint       from,
          guint       to)
{
  while (to > from && text[to - 1] == ' ')
    to--;
  return to;
}

static double
line_width (const Fitting *f,
            guint          from,
            guint          to)
{
  return f->measure (f->text, from, line_end (f->text, from, to), f->data);
}

/* Whether text up to offset is one number: no break of any level inside. */
static gboolean
one_number (const Fitting *f,
            guint          to)
{
  for (guint k = 0; k < f->breaks->len; k++)
    {
      guint at = g_array_index (f->breaks, CrTrainingBreak, k).offset;
      if (at > 0 && at < to)
        return FALSE;
    }
  return TRUE;
}

/* The best lines using the breaks of level <= max_level: the offsets where
 * lines start after the first (appended to starts), and in *best their
 * score. */
static void
plan_lines (const Fitting        *f,
            CrTrainingBreakLevel  max_level,
            GArray               *starts,
            Plan                 *best)
{
  /* The places: the text's start, each break allowed, its end. */
  g_autoptr (GArray) places = g_array_new (FALSE, FALSE, sizeof (CrTrainingBreak));
  guint end = (guint) strlen (f->text);
  CrTrainingBreak start = { 0, CR_TRAINING_BREAK_TERM }, finish = { end, CR_TRAINING_BREAK_TERM };
  g_array_append_val (places, start);
  for (guint i = 0; i < f->breaks->len; i++)
    {
      const CrTrainingBreak *b = &g_array_index (f->breaks, CrTrainingBreak, i);
      if (b->level <= max_level && b->offset > 0 && b->offset < end)
        g_array_append_val (places, *b);
    }
  g_array_append_val (places, finish);
  guint n = places->len - 1;   /* the last place is the end */
  const CrTrainingBreak *place = (const CrTrainingBreak *) (gpointer) places->data;
  g_autofree Plan *plans = g_new0 (Plan, n + 1);
  plans[n].next = n;
  /* From the last place back: each place's best lines are a first line and
   * the best lines from where that one ends. Longer first lines are tried
   * first, so that a tie keeps them. */
  for (guint i = n; i-- > 0;)
    for (guint j = n; j > i; j--)
      {
        double w = line_width (f, place[i].offset, place[j].offset);
        Plan p = {
          MAX (w - f->width, 0) + plans[j].overflow,
          i == 0 && j < n && one_number (f, place[j].offset),
          1 + plans[j].lines,
          (j < n ? break_cost (place[j].level) : 0) + plans[j].cost,
          MAX (w, plans[j].widest),
          j,
        };
        if (j == n || compare_plans (&p, &plans[i]) < 0)
          plans[i] = p;
      }
  *best = plans[0];
  for (guint i = plans[0].next; i < n; i = plans[i].next)
    g_array_append_val (starts, place[i].offset);
}

GArray *
cr_training_text_lines (const char        *text,
                        GArray            *breaks,
                        double             width,
                        CrTrainingMeasure  measure,
                        gpointer           data)
{
  g_return_val_if_fail (text != NULL && breaks != NULL && measure != NULL, NULL);
  Fitting f = { text, breaks, measure, data, width };
  GArray *best = NULL;
  Plan best_plan = { 0 };
  /* Between terms only, then at other operators too, then inside
   * brackets: the first that fits without the first number alone. */
  for (CrTrainingBreakLevel level = CR_TRAINING_BREAK_TERM; level <= CR_TRAINING_BREAK_BRACKET; level++)
    {
      GArray *starts = g_array_new (FALSE, FALSE, sizeof (guint));
      Plan plan;
      plan_lines (&f, level, starts, &plan);
      if (!best || plan.overflow < best_plan.overflow
          || (plan.overflow == best_plan.overflow && best_plan.lone && !plan.lone))
        {
          if (best)
            g_array_unref (best);
          best = starts, best_plan = plan;
        }
      else
        g_array_unref (starts);
      if (best_plan.overflow == 0 && !best_plan.lone)
        break;
    }
  return best;
}

/* ---- the widget ----------------------------------------------------------------- */

struct _CrTrainingArithmetic
{
  GtkWidget    parent_instance;

  /* Owned */
  char        *text;
  GArray      *breaks;       /* CrTrainingBreak */
  PangoLayout *one_line;     /* the text unbroken, to measure its pieces; NULL: not made yet */
  PangoLayout *shown;        /* the lines at shown_width; NULL: not made yet */
  int          shown_width;
};

G_DEFINE_FINAL_TYPE (CrTrainingArithmetic, cr_training_arithmetic, GTK_TYPE_WIDGET)

static PangoLayout *
one_line (CrTrainingArithmetic *self)
{
  if (!self->one_line)
    self->one_line = gtk_widget_create_pango_layout (GTK_WIDGET (self), self->text);
  return self->one_line;
}

/* The x of the byte at offset in the unbroken text, in Pango units. */
static int
x_at (PangoLayout *layout,
      const char  *text,
      guint        offset)
{
  if (!text[offset])
    {
      int width;
      pango_layout_get_size (layout, &width, NULL);
      return width;
    }
  PangoRectangle at;
  pango_layout_index_to_pos (layout, (int) offset, &at);
  return at.x;
}

static double
measure_pixels (const char *text,
                guint       from,
                guint       to,
                gpointer    data)
{
  PangoLayout *layout = data;
  return (double) (x_at (layout, text, to) - x_at (layout, text, from)) / PANGO_SCALE;
}

/* The lines at width, joined by newlines (new string). */
static char *
lines_text (CrTrainingArithmetic *self,
            int                   width)
{
  g_autoptr (GArray) starts = cr_training_text_lines (self->text, self->breaks, width, measure_pixels,
                                                      one_line (self));
  GString *joined = g_string_new (NULL);
  guint from = 0;
  for (guint i = 0; i <= starts->len; i++)
    {
      guint to = i < starts->len ? g_array_index (starts, guint, i) : (guint) strlen (self->text);
      if (i > 0)
        g_string_append_c (joined, '\n');
      g_string_append_len (joined, self->text + from, line_end (self->text, from, to) - from);
      from = to;
    }
  return g_string_free (joined, FALSE);
}

/* The lines laid out for width (-1: one line), kept for the next call. */
static PangoLayout *
shown_at (CrTrainingArithmetic *self,
          int                   width)
{
  if (self->shown && self->shown_width == width)
    return self->shown;
  g_clear_object (&self->shown);
  g_autofree char *lines = width < 0 ? g_strdup (self->text) : lines_text (self, width);
  self->shown = gtk_widget_create_pango_layout (GTK_WIDGET (self), lines);
  self->shown_width = width;
  return self->shown;
}

static GtkSizeRequestMode
cr_training_arithmetic_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
cr_training_arithmetic_measure (GtkWidget      *widget,
                                GtkOrientation  orientation,
                                int             for_size,
                                int            *minimum,
                                int            *natural,
                                int            *minimum_baseline,
                                int            *natural_baseline)
{
  CrTrainingArithmetic *self = CR_TRAINING_ARITHMETIC (widget);
  PangoLayout *layout = one_line (self);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* At its narrowest, the widest piece between two breaks. */
      double widest = 0;
      guint from = 0, end = (guint) strlen (self->text);
      for (guint i = 0; i <= self->breaks->len; i++)
        {
          guint to = i < self->breaks->len ? g_array_index (self->breaks, CrTrainingBreak, i).offset : end;
          widest = MAX (widest, measure_pixels (self->text, from, line_end (self->text, from, to), layout));
          from = to;
        }
      int width;
      pango_layout_get_pixel_size (layout, &width, NULL);
      *minimum = (int) ceil (widest);
      *natural = MAX (width, *minimum);
    }
  else
    {
      int height;
      pango_layout_get_pixel_size (shown_at (self, for_size), NULL, &height);
      *minimum = *natural = height;
    }
}

static void
cr_training_arithmetic_size_allocate (GtkWidget *widget,
                                      int        width,
                                      int        height,
                                      int        baseline)
{
  shown_at (CR_TRAINING_ARITHMETIC (widget), width);
}

static void
cr_training_arithmetic_snapshot (GtkWidget   *widget,
                                 GtkSnapshot *snapshot)
{
  CrTrainingArithmetic *self = CR_TRAINING_ARITHMETIC (widget);
  GdkRGBA color;
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  gtk_snapshot_append_layout (snapshot, shown_at (self, gtk_widget_get_width (widget)), &color);
}

/* A new font (presentation's larger type, a theme) measures anew; a new
 * colour only draws again. */
static void
cr_training_arithmetic_css_changed (GtkWidget         *widget,
                                    GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (cr_training_arithmetic_parent_class)->css_changed (widget, change);
  CrTrainingArithmetic *self = CR_TRAINING_ARITHMETIC (widget);
  int before_width = -1, before_height = -1, width, height;
  if (self->one_line)
    pango_layout_get_pixel_size (self->one_line, &before_width, &before_height);
  g_clear_object (&self->one_line);
  g_clear_object (&self->shown);
  pango_layout_get_pixel_size (one_line (self), &width, &height);
  if (width != before_width || height != before_height)
    gtk_widget_queue_resize (widget);
  else
    gtk_widget_queue_draw (widget);
}

static void
cr_training_arithmetic_finalize (GObject *object)
{
  CrTrainingArithmetic *self = CR_TRAINING_ARITHMETIC (object);
  g_free (self->text);
  g_clear_pointer (&self->breaks, g_array_unref);
  g_clear_object (&self->one_line);
  g_clear_object (&self->shown);
  G_OBJECT_CLASS (cr_training_arithmetic_parent_class)->finalize (object);
}

static void
cr_training_arithmetic_class_init (CrTrainingArithmeticClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = cr_training_arithmetic_finalize;
  widget_class->get_request_mode = cr_training_arithmetic_get_request_mode;
  widget_class->measure = cr_training_arithmetic_measure;
  widget_class->size_allocate = cr_training_arithmetic_size_allocate;
  widget_class->snapshot = cr_training_arithmetic_snapshot;
  widget_class->css_changed = cr_training_arithmetic_css_changed;
  /* Styled as the labels around it. */
  gtk_widget_class_set_css_name (widget_class, "label");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_LABEL);
}

static void
cr_training_arithmetic_init (CrTrainingArithmetic *self)
{
}

GtkWidget *
cr_training_arithmetic_new (const char *text)
{
  CrTrainingArithmetic *self = g_object_new (CR_TYPE_TRAINING_ARITHMETIC, NULL);
  self->text = g_strdup (text ? text : "");
  self->breaks = cr_training_text_breaks (self->text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, self->text, -1);
  return GTK_WIDGET (self);
}

const char *
cr_training_arithmetic_get_text (CrTrainingArithmetic *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_ARITHMETIC (self), NULL);
  return self->text;
}

char **
cr_training_arithmetic_get_lines (CrTrainingArithmetic *self)
{
  g_return_val_if_fail (CR_IS_TRAINING_ARITHMETIC (self), NULL);
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  g_autofree char *lines = width > 0 ? lines_text (self, width) : g_strdup (self->text);
  return g_strsplit (lines, "\n", -1);
}
