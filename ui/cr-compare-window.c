/* cr-compare-window.c — the corrected run beside the original (see the
 * header). What explains each mistake best is on one screen of 1366x768:
 *
 *   the finding, and what changed in words
 *   as written: its graph       with the fix: its graph
 *   the loss at each backward call, both runs on one chart
 *   the finding's tensor's .grad after each call, both runs (a forgotten
 *   zero_grad: one climbs, the other stays a gradient of its own call)
 *
 * A graph is drawn from its record alone (the last backward call, or the
 * forward graph), its groups open, scaled to its pane: the original's shows
 * the coach's ring (render/cr-graph-render-badges.c), a parameter that
 * became a non-leaf its chain of updates, a second backward its error. */
#include "cr-config.h"
#include "cr-compare-window.h"

#include "cr-coach-compare.h"
#include "cr-dialog-present.h"
#include "cr-graph-groups.h"
#include "cr-graph-layout.h"
#include "cr-graph-model.h"
#include "cr-graph-render.h"
#include "cr-record-text.h"

#include <adwaita.h>
#include <math.h>

/* A chart is this many lines of its text tall (128 px at the window's
 * type), and gives way down to CHART_MIN_LINES where the screen is short
 * (presenting at 1366x768, where the window would outgrow the screen). */
#define CHART_LINES 8.0
#define CHART_MIN_LINES 5.0
/* A graph's pane is at least this tall; the room left over is the graphs'. */
#define GRAPH_MIN_H 200
/* A graph drawn smaller than this is centred on the mistake's node at it. */
#define FOCUS_SCALE 0.7
/* Presenting, the graph's smallest type (edge labels, captions) is at
 * least this many pixels, as on the presenting window's canvas: read from
 * the back of the room. A graph that does not fit so is centred on the
 * mistake's node. */
#define PRESENT_TYPE_PX 20.0

/* ---- a graph in a pane ------------------------------------------------------- */

typedef struct {
  CrGraphModel    *model;          /* owned; the collapsed one when it has groups */
  CrGraphModel    *full;           /* owned: the record's model */
  CrGraphGroups   *groups;         /* owned, NULL */
  CrGraphCollapse *collapse;       /* owned, NULL */
  CrGraphRenderCache *cache;      /* owned: the model's text, shaped for presentation or not */
  CrGraphLayout   *layout;         /* owned, NULL when it could not be laid out */
  gboolean         presentation;   /* presentation's type, and a zoom to read it at */
  int              focus;          /* the node a graph too big to read whole is centred
                                    * on (the mistake's), -1: none */
} Pane;

static void
pane_free (gpointer data)
{
  Pane *p = data;
  g_clear_pointer (&p->layout, cr_graph_layout_free);
  g_clear_pointer (&p->cache, cr_graph_render_cache_free);
  g_clear_pointer (&p->collapse, cr_graph_collapse_free);
  g_clear_pointer (&p->groups, cr_graph_groups_free);
  g_clear_pointer (&p->full, cr_graph_model_unref);
  g_free (p);
}

/* Where the drawing starts along one axis so that centre (in points)
 * is in the middle of a pane `room` pixels long, without showing past the
 * drawing's ends; a drawing shorter than the pane is centred. */
static double
focus_offset (double centre,
              double extent,
              double room,
              double scale)
{
  if (extent * scale <= room)
    return (room - extent * scale) / 2;
  double c = CLAMP (centre, room / 2 / scale, extent - room / 2 / scale);
  return room / 2 - c * scale;
}

/* The smallest scale p's graph is read at: presenting, its smallest type
 * PRESENT_TYPE_PX (that type is CR_GRAPH_RENDER_PRESENT_TYPE larger). */
static double
readable_scale (const Pane *p)
{
  if (p->presentation)
    return PRESENT_TYPE_PX / (cr_graph_render_label_size () * CR_GRAPH_RENDER_PRESENT_TYPE);
  return FOCUS_SCALE;
}

/* Whether p's graph is centred on its mistake's node rather than drawn whole. */
static gboolean
pane_focused (const Pane *p,
              double      whole)
{
  return whole < readable_scale (p) && p->focus >= 0 && (guint) p->focus < p->layout->n_nodes;
}

/* The scale p's graph is drawn at in a pane width x height pixels: whole
 * (no larger than 1.2, or presenting the readable scale), or, too small
 * to read whole, at the readable scale. */
static double
pane_scale (const Pane *p,
            int         width,
            int         height)
{
  double whole = MIN (MIN (width / p->layout->width, height / p->layout->height),
                      MAX (1.2, readable_scale (p)));
  return pane_focused (p, whole) ? readable_scale (p) : whole;
}

static void
draw_pane (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        data)
{
  Pane *p = data;
  if (!p->layout || p->layout->width <= 0 || p->layout->height <= 0)
    return;
  double scale = pane_scale (p, width, height);
  double dx = (width - p->layout->width * scale) / 2, dy = (height - p->layout->height * scale) / 2;
  if (pane_focused (p, MIN (width / p->layout->width, height / p->layout->height)))
    {
      /* Too small to read whole: the mistake's node in the middle, at a
       * size to read, the rest as far as the pane goes. */
      const CrGraphBox *b = &p->layout->nodes[p->focus];
      dx = focus_offset (b->x + b->width / 2, p->layout->width, width, scale);
      dy = focus_offset (b->y + b->height / 2, p->layout->height, height, scale);
    }
  /* The whole pane in the graph's background (render/cr-graph-render.c's
   * palette), not only the drawing's extent. */
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  if (dark)
    cairo_set_source_rgb (cr, 0x1e / 255.0, 0x1e / 255.0, 0x20 / 255.0);
  else
    cairo_set_source_rgb (cr, 0xfa / 255.0, 0xfa / 255.0, 0xfb / 255.0);
  cairo_paint (cr);
  cairo_translate (cr, dx, dy);
  cairo_scale (cr, scale, scale);
  CrGraphRenderOptions options;
  cr_graph_render_options_init (&options);
  options.draw_background = FALSE;
  options.style = dark ? CR_GRAPH_STYLE_DARK : CR_GRAPH_STYLE_LIGHT;
  options.collapse = p->collapse;
  options.current_step = -1;
  options.presentation = p->presentation;
  options.cache = p->cache;
  cr_graph_render (cr, p->model, p->layout, &options);
}

/* p's graph shaped in presentation's type (presentation) or the window's,
 * and laid out so. */
static void
pane_shape (Pane     *p,
            gboolean  presentation)
{
  p->presentation = presentation;
  g_clear_pointer (&p->layout, cr_graph_layout_free);
  g_clear_pointer (&p->cache, cr_graph_render_cache_free);
  p->cache = cr_graph_render_cache_new (p->model, presentation);
  p->layout = cr_graph_render_layout_cached (p->model, p->cache, NULL);
}

/* The node of model a finding is about: its op, else its tensor, else
 * that tensor's AccumulateGrad (as the ring on the graph). */
static const CrGraphNode *
finding_node (const CrGraphModel     *model,
              const CrRecordFinding  *f)
{
  const CrGraphNode *node = f->op >= 0 ? cr_graph_model_find_op (model, f->op) : NULL;
  if (!node && f->tensor >= 0)
    node = cr_graph_model_find_tensor (model, f->tensor);
  if (!node && f->tensor >= 0)
    node = cr_graph_model_find_accumulate (model, f->tensor);
  return node;
}

/* The node of model with key (its identity across runs of an edited
 * script), -1: none. */
static int
node_with_key (const CrGraphModel *model,
               const char         *key)
{
  for (guint i = 0; key && i < model->nodes->len; i++)
    if (g_strcmp0 (((const CrGraphNode *) g_ptr_array_index (model->nodes, i))->key, key) == 0)
      return (int) i;
  return -1;
}

/* A pane drawing record's graph; focus_key: the key of the node to centre
 * on when it is too big (NULL: none); finding: the one to centre on in
 * this record (NULL: by focus_key); *key_out (may be NULL): the key of
 * the node centred on, borrowed from the pane; presentation: in
 * presentation's type, at a zoom to read it from the back of the room. */
static GtkWidget *
graph_pane_new (CrRunRecord            *record,
                const CrRecordFinding  *finding,
                const char             *focus_key,
                const char            **key_out,
                gboolean                presentation)
{
  Pane *p = g_new0 (Pane, 1);
  p->focus = -1;
  p->full = cr_graph_model_new_from_run_record (record, (int) record->backwards->len - 1);
  p->model = p->full;
  if (p->model)
    {
      p->groups = cr_graph_groups_new (p->full);
      g_autofree gboolean *open = cr_graph_groups_open_to_level (p->groups, p->groups->height);
      if (p->groups->groups->len > 0)
        {
          p->collapse = cr_graph_collapse_new (p->groups, open);
          p->model = p->collapse->model;
        }
      pane_shape (p, presentation);
      const CrGraphNode *node = finding ? finding_node (p->model, finding) : NULL;
      p->focus = node ? (int) node->id : node_with_key (p->model, focus_key);
      if (key_out && p->focus >= 0)
        *key_out = ((const CrGraphNode *) g_ptr_array_index (p->model->nodes, p->focus))->key;
    }
  GtkWidget *area = gtk_drawing_area_new ();
  gtk_widget_set_size_request (area, 200, GRAPH_MIN_H);
  gtk_widget_set_hexpand (area, TRUE);
  gtk_widget_set_vexpand (area, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_pane, p, pane_free);
  g_object_set_data (G_OBJECT (area), "cr-compare-pane", p);
  return area;
}

double
cr_coach_compare_graph_scale (GtkWidget *graph)
{
  g_return_val_if_fail (GTK_IS_WIDGET (graph), 0);
  const Pane *p = g_object_get_data (G_OBJECT (graph), "cr-compare-pane");
  int width = gtk_widget_get_width (graph), height = gtk_widget_get_height (graph);
  if (!p || !p->layout || p->layout->width <= 0 || p->layout->height <= 0 || width <= 0 || height <= 0)
    return 0;
  return pane_scale (p, width, height);
}

/* ---- a chart of two series ------------------------------------------------------ */

typedef struct {
  char   *title;                   /* "The loss at each backward call" */
  GArray *before, *after;          /* of double (NAN: none); owned, may be NULL */
} Chart;

static void
chart_free (gpointer data)
{
  Chart *c = data;
  g_free (c->title);
  g_clear_pointer (&c->before, g_array_unref);
  g_clear_pointer (&c->after, g_array_unref);
  g_free (c);
}

static void
range_of (const GArray *values,
          double       *lo,
          double       *hi)
{
  for (guint i = 0; values && i < values->len; i++)
    {
      double v = g_array_index (values, double, i);
      if (isfinite (v))
        {
          *lo = MIN (*lo, v);
          *hi = MAX (*hi, v);
        }
    }
}

/* text in chart's own font (the window's type: presentation's, when
 * presenting), bold, or a size smaller (the axes' numbers); a layout to
 * draw or measure (new). */
static PangoLayout *
chart_text (GtkWidget  *chart,
            const char *text,
            gboolean    bold)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (chart, text);
  PangoAttrList *attrs = pango_attr_list_new ();
  pango_attr_list_insert (attrs, bold ? pango_attr_weight_new (PANGO_WEIGHT_BOLD)
                                      : pango_attr_scale_new (PANGO_SCALE_SMALL));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  return layout;
}

/* The height of a line of chart's bold text, in pixels: the unit its
 * margins and its own height are counted in. */
static double
chart_line (GtkWidget *chart)
{
  PangoLayout *layout = chart_text (chart, "Ag", TRUE);
  int h;
  pango_layout_get_pixel_size (layout, NULL, &h);
  g_object_unref (layout);
  return h;
}

/* text drawn with its middle at height y, beside x. */
static void
show_text (cairo_t    *cr,
           GtkWidget  *chart,
           const char *text,
           double      x,
           double      y,
           double      align,       /* 0: left of x, 1: right of x */
           gboolean    bold)
{
  PangoLayout *layout = chart_text (chart, text, bold);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - align * w, y - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* The width of text in chart's font, in pixels. */
static double
text_width (GtkWidget  *chart,
            const char *text,
            gboolean    bold)
{
  PangoLayout *layout = chart_text (chart, text, bold);
  int w;
  pango_layout_get_pixel_size (layout, &w, NULL);
  g_object_unref (layout);
  return w;
}

static void
series_path (cairo_t      *cr,
             const GArray *values,
             guint         n,
             double        x0,
             double        x1,
             double        y0,
             double        y1,
             double        lo,
             double        hi)
{
  gboolean pen = FALSE;
  for (guint i = 0; values && i < values->len; i++)
    {
      double v = g_array_index (values, double, i);
      if (!isfinite (v))
        {
          pen = FALSE;
          continue;
        }
      double x = n > 1 ? x0 + (x1 - x0) * i / (n - 1) : (x0 + x1) / 2;
      double y = hi > lo ? y1 - (y1 - y0) * (v - lo) / (hi - lo) : (y0 + y1) / 2;
      if (pen)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      pen = TRUE;
      cairo_rectangle (cr, x - 2, y - 2, 4, 4);
      cairo_move_to (cr, x, y);
    }
}

static void
draw_chart (GtkDrawingArea *area,
            cairo_t        *cr,
            int             width,
            int             height,
            gpointer        data)
{
  Chart *c = data;
  GtkWidget *chart = GTK_WIDGET (area);
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GdkRGBA ink = dark ? (GdkRGBA) { 1, 1, 1, 0.9 } : (GdkRGBA) { 0, 0, 0, 0.8 };
  /* The original in the coach's amber, the fixed run in the gradients' green. */
  const double amber[] = { 0.90, 0.65, 0.04 }, green[] = { 0.18, 0.76, 0.49 };
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  range_of (c->before, &lo, &hi);
  range_of (c->after, &lo, &hi);
  guint n = MAX (c->before ? c->before->len : 0, c->after ? c->after->len : 0);
  /* Margins in lines of the chart's text, so that presentation's type
   * has the room the window's has. */
  double line = chart_line (chart), gap = line / 3;
  char high[G_ASCII_DTOSTR_BUF_SIZE], low[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (high, sizeof high, "%.4g", hi);
  g_ascii_formatd (low, sizeof low, "%.4g", lo);
  double left = MAX (4 * line, MAX (text_width (chart, high, FALSE), text_width (chart, low, FALSE))
                                   + 2 * gap);
  double right = width - line, top = 1.4 * line, bottom = height - 1.1 * line;

  gdk_cairo_set_source_rgba (cr, &ink);
  show_text (cr, chart, c->title, gap, line / 2, 0, TRUE);
  if (n == 0 || lo > hi)
    return;
  cairo_set_source_rgba (cr, ink.red, ink.green, ink.blue, 0.7);
  show_text (cr, chart, high, left - gap, top, 1, FALSE);
  show_text (cr, chart, low, left - gap, bottom, 1, FALSE);
  g_autofree char *last = g_strdup_printf ("call %u", n);
  show_text (cr, chart, "call 1", left, height - line / 2, 0, FALSE);
  if (n > 1)
    show_text (cr, chart, last, right, height - line / 2, 1, FALSE);
  cairo_set_source_rgba (cr, ink.red, ink.green, ink.blue, dark ? 0.25 : 0.2);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, left, top);
  cairo_line_to (cr, left, bottom);
  cairo_line_to (cr, right, bottom);
  cairo_stroke (cr);
  /* 0 as a faint line when the range crosses it. */
  if (lo < 0 && hi > 0)
    {
      double y = bottom - (bottom - top) * (0 - lo) / (hi - lo);
      double dash[] = { 3, 3 };
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, left, y);
      cairo_line_to (cr, right, y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_set_line_width (cr, 2);
  cairo_set_source_rgb (cr, amber[0], amber[1], amber[2]);
  series_path (cr, c->before, n, left, right, top, bottom, lo, hi);
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, green[0], green[1], green[2]);
  series_path (cr, c->after, n, left, right, top, bottom, lo, hi);
  cairo_stroke (cr);
  /* The legend, top right. */
  const char *fixed = "● with the fix";
  cairo_set_source_rgb (cr, amber[0], amber[1], amber[2]);
  show_text (cr, chart, "● as written", right - text_width (chart, fixed, TRUE) - line, line / 2, 1, TRUE);
  cairo_set_source_rgb (cr, green[0], green[1], green[2]);
  show_text (cr, chart, fixed, right, line / 2, 1, TRUE);
}

/* A chart is 300 px wide at least and CHART_LINES lines of its type tall
 * (CHART_MIN_LINES at least): measured by its layout manager, so that a
 * change of type (presentation starting or stopping) sizes it again. */
static void
measure_chart (GtkWidget      *chart,
               GtkOrientation  orientation,
               int             for_size,
               int            *minimum,
               int            *natural,
               int            *minimum_baseline,
               int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = *natural = 300;
      return;
    }
  double line = chart_line (chart);
  *minimum = (int) ceil (CHART_MIN_LINES * line);
  *natural = (int) ceil (CHART_LINES * line);
}

/* A drawing area has no children to place. */
static void
allocate_nothing (GtkWidget *widget,
                  int        width,
                  int        height,
                  int        baseline)
{
}

static GtkWidget *
chart_new (char   *title,
           GArray *before,
           GArray *after)
{
  Chart *c = g_new0 (Chart, 1);
  c->title = title;
  c->before = before;
  c->after = after;
  GtkWidget *area = gtk_drawing_area_new ();
  gtk_widget_set_hexpand (area, TRUE);
  gtk_widget_set_layout_manager (area, gtk_custom_layout_new (NULL, measure_chart, allocate_nothing));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_chart, c, chart_free);
  return area;
}

/* Whether a and b (may be NULL) hold the same values: a chart of two
 * equal curves tells nothing. */
static gboolean
same_series (const GArray *a,
             const GArray *b)
{
  if (!a || !b || a->len != b->len)
    return a == b;
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, double, i) != g_array_index (b, double, i))
      return FALSE;
  return TRUE;
}

/* ---- the window ------------------------------------------------------------------- */

static double
last_value (const GArray *values)
{
  return values && values->len ? g_array_index (values, double, values->len - 1) : NAN;
}

/* What changed, after Fix (applied): "Fixed line 12. The error is gone.
 * ..."; or before it, what would: "If line 12 were fixed, the error would
 * be gone and the coach would find nothing more." */
static char *
summary_text (const CrRunRecord *before,
              guint              finding,
              const CrRunRecord *after,
              gboolean           applied)
{
  const CrRecordFinding *f = finding < before->findings->len
                             ? g_ptr_array_index (before->findings, finding) : NULL;
  g_autoptr (GPtrArray) said = g_ptr_array_new_with_free_func (g_free);
  if (before->errors->len > 0 && after->errors->len == 0)
    g_ptr_array_add (said, g_strdup (applied ? "The error is gone" : "the error would be gone"));
  g_autoptr (GArray) loss_before = cr_coach_losses (before);
  g_autoptr (GArray) loss_after = cr_coach_losses (after);
  double lb = last_value (loss_before), la = last_value (loss_after);
  if (isfinite (lb) && isfinite (la) && lb != la)
    g_ptr_array_add (said, applied ? g_strdup_printf ("Last loss %.4g → %.4g", lb, la)
                                   : g_strdup_printf ("the last loss would go from %.4g to %.4g", lb, la));
  if (after->findings->len == 0)
    g_ptr_array_add (said, g_strdup (applied ? "The coach finds nothing more"
                                             : "the coach would find nothing more"));
  else
    g_ptr_array_add (said, applied ? g_strdup_printf ("The coach still finds %u", after->findings->len)
                                   : g_strdup_printf ("the coach would still find %u",
                                                      after->findings->len));
  GString *text = g_string_new (NULL);
  if (applied)
    {
      if (f)
        g_string_append_printf (text, "Fixed line %d.", f->span.line);
      for (guint i = 0; i < said->len; i++)
        g_string_append_printf (text, " %s.", (const char *) g_ptr_array_index (said, i));
      return g_string_free (text, FALSE);
    }
  /* One sentence: its clauses joined, the last by "and". */
  if (f)
    g_string_append_printf (text, "If line %d were fixed, ", f->span.line);
  else
    g_string_append (text, "With the fix, ");
  for (guint i = 0; i < said->len; i++)
    g_string_append_printf (text, "%s%s", i == 0 ? "" : i + 1 == said->len ? " and " : ", ",
                            (const char *) g_ptr_array_index (said, i));
  g_string_append_c (text, '.');
  return g_string_free (text, FALSE);
}

char *
cr_coach_compare_summary (const CrRunRecord *before,
                          guint              finding,
                          const CrRunRecord *after)
{
  return summary_text (before, finding, after, TRUE);
}

char *
cr_coach_compare_preview_summary (const CrRunRecord *before,
                                  guint              finding,
                                  const CrRunRecord *after)
{
  return summary_text (before, finding, after, FALSE);
}

static GtkWidget *
label_new (const char *text,
           const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  if (css_class)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static GtkWidget *
column_new (const char             *title,
            CrRunRecord            *record,
            const CrRecordFinding  *finding,
            const char             *focus_key,
            const char            **key_out,
            gboolean                presentation)
{
  GtkWidget *column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (column, TRUE);
  gtk_box_append (GTK_BOX (column), label_new (title, "heading"));
  GtkWidget *frame = gtk_frame_new (NULL);
  gtk_frame_set_child (GTK_FRAME (frame), graph_pane_new (record, finding, focus_key, key_out,
                                                          presentation));
  gtk_box_append (GTK_BOX (column), frame);
  g_autoptr (GArray) losses = cr_coach_losses (record);
  const CrRecordError *error = record->errors->len
                               ? g_ptr_array_index (record->errors, record->errors->len - 1) : NULL;
  g_autofree char *what = NULL;
  if (error)
    what = g_strdup_printf ("Stops at line %d: %s", error->span.line, error->type);
  else if (losses)
    what = g_strdup_printf ("%u backward call%s, the last loss %.4g", losses->len,
                            losses->len == 1 ? "" : "s", last_value (losses));
  else
    what = g_strdup_printf ("%u backward call%s", record->backwards->len,
                            record->backwards->len == 1 ? "" : "s");
  gtk_box_append (GTK_BOX (column), label_new (what, "dim-label"));
  return column;
}

/* Each graph under widget shaped for presentation or the window's type. */
static void
shape_panes (GtkWidget *widget,
             gboolean   presentation)
{
  Pane *p = g_object_get_data (G_OBJECT (widget), "cr-compare-pane");
  if (p && p->model && p->presentation != presentation)
    {
      pane_shape (p, presentation);
      gtk_widget_queue_draw (widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    shape_panes (child, presentation);
}

/* Presentation started or stopped over the window (cr-dialog-present.c
 * moved its class): its graphs follow; its charts and labels follow the
 * type by themselves. */
static void
on_classes_changed (GtkWidget  *dialog,
                    GParamSpec *pspec,
                    gpointer    data)
{
  shape_panes (dialog, gtk_widget_has_css_class (dialog, "presentation"));
}

/* fix_action: NULL after Fix; before it, the parent's action that applies
 * the fix, for the header bar's Fix button. */
static GtkWindow *
present (GtkWindow   *parent,
         CrRunRecord *before,
         guint        finding,
         CrRunRecord *after,
         const char  *fix_action)
{
  g_return_val_if_fail (before != NULL && after != NULL, NULL);
  const CrRecordFinding *f = finding < before->findings->len
                             ? g_ptr_array_index (before->findings, finding) : NULL;
  GtkWidget *dialog = adw_window_new ();
  gtk_window_set_title (GTK_WINDOW (dialog), "The Corrected Run Beside the Original");
  if (parent)
    gtk_window_set_transient_for (GTK_WINDOW (dialog), parent);
  gtk_window_set_default_size (GTK_WINDOW (dialog), 1120, 690);
  cr_dialog_follow_presentation (GTK_WINDOW (dialog), parent);
  /* The records stay as long as the window draws them. */
  g_object_set_data_full (G_OBJECT (dialog), "cr-before", cr_run_record_ref (before),
                          (GDestroyNotify) cr_run_record_unref);
  g_object_set_data_full (G_OBJECT (dialog), "cr-after", cr_run_record_ref (after),
                          (GDestroyNotify) cr_run_record_unref);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  gtk_box_append (GTK_BOX (box), header);
  if (fix_action && parent && G_IS_ACTION_GROUP (parent))
    {
      /* Before Fix the script is as written: the fix is one click away
       * here too, as the parent window's action, and this window goes. */
      gtk_widget_insert_action_group (dialog, "win", G_ACTION_GROUP (parent));
      gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
      GtkWidget *fix = gtk_button_new_with_mnemonic ("_Fix the Script");
      gtk_widget_add_css_class (fix, "suggested-action");
      gtk_widget_set_tooltip_text (fix, "Apply the fix to the code and run it again");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (fix), fix_action);
      g_signal_connect_object (fix, "clicked", G_CALLBACK (gtk_window_destroy), dialog,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
      adw_header_bar_pack_start (ADW_HEADER_BAR (header), fix);
    }
  GtkWidget *body = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_set_margin_start (body, 18);
  gtk_widget_set_margin_end (body, 18);
  gtk_widget_set_margin_top (body, 8);
  gtk_widget_set_margin_bottom (body, 14);

  g_autofree char *head = f ? g_strdup_printf ("Line %d: %s", f->span.line, f->title)
                            : g_strdup ("The corrected run");
  gtk_box_append (GTK_BOX (body), label_new (head, "title-4"));
  g_autofree char *summary = summary_text (before, finding, after, fix_action == NULL);
  gtk_box_append (GTK_BOX (body), label_new (summary, NULL));

  GtkWidget *columns = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 14);
  gtk_box_set_homogeneous (GTK_BOX (columns), TRUE);
  gtk_widget_set_vexpand (columns, TRUE);
  /* The fixed run's graph centred where the original's is: on the node of
   * the same key. */
  gboolean presentation = gtk_widget_has_css_class (dialog, "presentation");
  const char *key = NULL;
  gtk_box_append (GTK_BOX (columns), column_new ("As written", before, f, NULL, &key, presentation));
  g_autofree char *focus_key = g_strdup (key);
  gtk_box_append (GTK_BOX (columns), column_new (fix_action ? "With the fix (not applied yet)" : "With the fix",
                                                 after, NULL, focus_key, NULL, presentation));
  gtk_box_append (GTK_BOX (body), columns);

  GArray *loss_before = cr_coach_losses (before), *loss_after = cr_coach_losses (after);
  if (((loss_before && loss_before->len > 1) || (loss_after && loss_after->len > 1))
      && !same_series (loss_before, loss_after))
    gtk_box_append (GTK_BOX (body), chart_new (g_strdup ("The loss at each backward call"),
                                               loss_before, loss_after));
  else
    {
      g_clear_pointer (&loss_before, g_array_unref);
      g_clear_pointer (&loss_after, g_array_unref);
    }
  /* The finding's leaf: its .grad as each call left it, in both runs. */
  int leaf = f && f->tensor >= 0 && (guint) f->tensor < before->tensors->len
             && ((const CrRecordTensor *) g_ptr_array_index (before->tensors, f->tensor))->origin
                == CR_RECORD_TENSOR_LEAF ? f->tensor : -1;
  int leaf_after = leaf >= 0 ? cr_coach_same_leaf (before, leaf, after) : -1;
  GArray *grad_before = leaf >= 0 ? cr_coach_grad_history (before, leaf) : NULL;
  GArray *grad_after = leaf_after >= 0 ? cr_coach_grad_history (after, leaf_after) : NULL;
  if (grad_before && grad_before->len > 1)
    {
      const char *label = cr_record_tensor_label (before, leaf, "the tensor");
      gtk_box_append (GTK_BOX (body), chart_new (g_strdup_printf ("%s.grad after each backward call "
                                                                  "(its first entry)", label),
                                                 grad_before, grad_after));
    }
  else
    {
      g_clear_pointer (&grad_before, g_array_unref);
      g_clear_pointer (&grad_after, g_array_unref);
    }

  gtk_box_append (GTK_BOX (box), body);
  adw_window_set_content (ADW_WINDOW (dialog), box);
  g_signal_connect (dialog, "notify::css-classes", G_CALLBACK (on_classes_changed), NULL);
  /* Escape closes it, as a dialog. */
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                      gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (dialog, keys);
  gtk_window_present (GTK_WINDOW (dialog));
  return GTK_WINDOW (dialog);
}

GtkWindow *
cr_coach_compare_present (GtkWindow   *parent,
                          CrRunRecord *before,
                          guint        finding,
                          CrRunRecord *after)
{
  return present (parent, before, finding, after, NULL);
}

GtkWindow *
cr_coach_compare_present_preview (GtkWindow   *parent,
                                  CrRunRecord *before,
                                  guint        finding,
                                  CrRunRecord *after,
                                  const char  *fix_action)
{
  return present (parent, before, finding, after, fix_action);
}
