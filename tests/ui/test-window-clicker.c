/* test-window-clicker.c — every example presented with a clicker's keys
 * only (F5, Page Down, Page Up, b, period, Escape; F9 from the laptop), at
 * a 1366x768 and a 1920x1080 projector, with the script hidden (how
 * presentation opens) and shown: at every press, the current step's node,
 * the inputs its gradients go to and the output its gradient came from are
 * whole on screen, clear of anything floating over the graph, with type of
 * 20 px at least (with the script hidden, the whole graph too where it
 * fits); and the step card's part in view is not cut, except at the
 * bottom where the next Page Down goes on. Runs under xvfb-run; looks
 * inside the window through its private header. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-graph-overview.h"
#include "cr-examples.h"
#include "cr-graph-render.h"
#include "cr-graph-render-badges.h"
#include "cr-step-card-pages.h"
#include "ui-test-gui.h"

#include <gtksourceview/gtksource.h>

/* The most presses one example may take in one state (steps and parts). */
#define MAX_PRESSES 400

/* Runs what the last press queued, then lets the window lay it out. */
static void
settle (void)
{
  cr_ui_test_iterate ();
  cr_ui_test_spin (30);
  gint64 until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_main_context_pending (NULL) && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
}

static CrWindow *
open_example (const char *name,
              int         width,
              int         height)
{
  CrWindow *window = cr_ui_test_open_example (name, width, height);
  cr_graph_canvas_set_animate (cr_window_get_canvas (window), FALSE);
  /* The clicker walks the whole story: from before the forward pass. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", -1));
  return window;
}

/* What floats over the graph and takes clicks (the overview included: on
 * a projector nothing the lesson is about may be under it), in the
 * canvas's coordinates. */
static GArray *
floating_controls (CrGraphCanvas *canvas)
{
  GArray *controls = g_array_new (FALSE, FALSE, sizeof (graphene_rect_t));
  GtkWidget *self = GTK_WIDGET (canvas);
  for (GtkWidget *child = gtk_widget_get_first_child (gtk_widget_get_parent (self)); child;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t r;
      if (child != self && gtk_widget_get_visible (child) && gtk_widget_get_can_target (child)
          && gtk_widget_compute_bounds (child, self, &r) && r.size.width > 0 && r.size.height > 0)
        g_array_append_val (controls, r);
    }
  return controls;
}

/* Where node's box is drawn, in the canvas's pixels. */
static graphene_rect_t
node_rect (CrGraphCanvas *canvas,
           guint          node)
{
  const CrGraphBox *b = &canvas->layout->nodes[node];
  return GRAPHENE_RECT_INIT (canvas->tx + canvas->zoom * b->x, canvas->ty + canvas->zoom * b->y,
                             canvas->zoom * b->width, canvas->zoom * b->height);
}

/* NULL when node is whole on the canvas and under no control; else why. */
static char *
node_problem (CrGraphCanvas *canvas,
              guint          node,
              GArray        *controls)
{
  graphene_rect_t box = node_rect (canvas, node);
  const CrGraphNode *n = g_ptr_array_index (canvas->model->nodes, node);
  int w = gtk_widget_get_width (GTK_WIDGET (canvas)), h = gtk_widget_get_height (GTK_WIDGET (canvas));
  if (box.origin.x < -0.5 || box.origin.y < -0.5 || box.origin.x + box.size.width > w + 0.5
      || box.origin.y + box.size.height > h + 0.5)
    return g_strdup_printf ("%s at %.0f,%.0f %.0fx%.0f is off the %dx%d canvas", n->title,
                            box.origin.x, box.origin.y, box.size.width, box.size.height, w, h);
  for (guint c = 0; c < controls->len; c++)
    {
      const graphene_rect_t *r = &g_array_index (controls, graphene_rect_t, c);
      if (graphene_rect_intersection (&box, r, NULL))
        return g_strdup_printf ("%s at %.0f,%.0f %.0fx%.0f is under a control at %.0f,%.0f %.0fx%.0f",
                                n->title, box.origin.x, box.origin.y, box.size.width, box.size.height,
                                r->origin.x, r->origin.y, r->size.width, r->size.height);
    }
  return NULL;
}

/* Whether node's box is at least partly on the canvas. */
static gboolean
partly_shown (CrGraphCanvas *canvas,
              guint          node)
{
  graphene_rect_t box = node_rect (canvas, node);
  graphene_rect_t all = GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (GTK_WIDGET (canvas)),
                                            gtk_widget_get_height (GTK_WIDGET (canvas)));
  return graphene_rect_intersection (&box, &all, NULL);
}

/* NULL when the step's node is in view, whole, and its neighbours (the
 * nodes an edge joins it to) too; where they cannot all be shown at once
 * at this zoom (inputs side by side wider than the graph's pane beside
 * the script), each at least in part, where the pane can hold that. Else
 * why. */
static char *
step_problem (CrGraphCanvas *canvas)
{
  int step = cr_graph_canvas_get_step (canvas);
  const CrGraphNode *node = step >= 0 ? cr_graph_model_find_step (canvas->model, step) : NULL;
  g_autoptr (GArray) controls = floating_controls (canvas);
  /* A forward op: its node, the tensors it computes from (a leaf, not
   * only its AccumulateGrad, backward's and faint while the forward pass
   * is stepped) and its result's box. */
  gboolean forward = FALSE;
  if (!node && cr_graph_canvas_get_forward_op (canvas) >= 0)
    {
      node = cr_graph_model_find_op (canvas->model, cr_graph_canvas_get_forward_op (canvas));
      forward = TRUE;
    }
  if (!node)
    return NULL;
  char *problem = node_problem (canvas, node->id, controls);
  if (problem)
    return problem;
  g_autoptr (GArray) neighbours = cr_graph_canvas_step_neighbours (canvas, node->id, forward);
  const CrGraphBox *b = &canvas->layout->nodes[node->id];
  double span[4] = { b->x, b->y, b->x + b->width, b->y + b->height }, area[4];
  for (guint i = 0; i < neighbours->len; i++)
    {
      const CrGraphBox *o = &canvas->layout->nodes[g_array_index (neighbours, guint, i)];
      span[0] = MIN (span[0], o->x);
      span[1] = MIN (span[1], o->y);
      span[2] = MAX (span[2], o->x + o->width);
      span[3] = MAX (span[3], o->y + o->height);
    }
  cr_graph_canvas_free_area (canvas, canvas->layout->width, canvas->layout->height, 0, area);
  gboolean fits = canvas->zoom * (span[2] - span[0]) <= area[2] - area[0] - 32
                  && canvas->zoom * (span[3] - span[1]) <= area[3] - area[1] - 32;
  /* What showing the node whole and the near edge of each neighbour (a
   * 24 px sliver) takes, along each axis: where that is more than the pane
   * holds at 20 px type (the card widens the sidebar for a long formula),
   * some neighbour must stay out of view. */
  double need[4] = { b->x, b->y, b->x + b->width, b->y + b->height };
  double sliver = 24.0 / canvas->zoom;
  for (guint i = 0; i < neighbours->len; i++)
    {
      const CrGraphBox *o = &canvas->layout->nodes[g_array_index (neighbours, guint, i)];
      need[0] = MIN (need[0], MIN (o->x + MIN (sliver, o->width), b->x));
      need[1] = MIN (need[1], MIN (o->y + MIN (sliver, o->height), b->y));
      need[2] = MAX (need[2], o->x + o->width - MIN (sliver, o->width));
      need[3] = MAX (need[3], o->y + o->height - MIN (sliver, o->height));
    }
  gboolean reachable = canvas->zoom * (need[2] - need[0]) <= area[2] - area[0] - 32
                       && canvas->zoom * (need[3] - need[1]) <= area[3] - area[1] - 32;
  for (guint i = 0; !problem && i < neighbours->len; i++)
    {
      guint other = g_array_index (neighbours, guint, i);
      if (fits)
        problem = node_problem (canvas, other, controls);
      else if (reachable && !partly_shown (canvas, other))
        problem = g_strdup_printf ("%s, next to %s, is out of view",
                                   ((const CrGraphNode *) g_ptr_array_index (canvas->model->nodes, other))->title,
                                   node->title);
    }
  return problem;
}

/* NULL when the part of the card in view is not cut, but at the bottom
 * with more parts to come; else why. Looks at the widgets that draw (those
 * without children). */
static char *
card_problem (CrWindow  *window,
              GtkWidget *widget,
              GtkWidget *viewport,
              gboolean   more_parts)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (gtk_widget_get_first_child (child) && !GTK_IS_LABEL (child))
        {
          char *problem = card_problem (window, child, viewport, more_parts);
          if (problem)
            return problem;
          continue;
        }
      graphene_rect_t r;
      if (!gtk_widget_compute_bounds (child, viewport, &r) || r.size.height <= 0)
        continue;
      double vw = gtk_widget_get_width (viewport), vh = gtk_widget_get_height (viewport);
      g_autofree char *classes = g_strjoinv (".", gtk_widget_get_css_classes (child));
      g_autofree char *what = GTK_IS_LABEL (child) ? g_strdup (gtk_label_get_text (GTK_LABEL (child)))
                              : g_strdup_printf ("%s.%s %.0fx%.0f", G_OBJECT_TYPE_NAME (child), classes,
                                                 r.size.width, r.size.height);
      /* Off the bottom or the top altogether: another part's. */
      if (r.origin.y >= vh || r.origin.y + r.size.height <= 0)
        continue;
      if (r.origin.x < -0.5 || r.origin.x + r.size.width > vw + 0.5)
        return g_strdup_printf ("'%s' is cut at the side (x %.0f..%.0f in %.0f)", what,
                                r.origin.x, r.origin.x + r.size.width, vw);
      /* The last part ends at the card's end, which may be less than a
       * part below the previous one: what it cuts at its top was whole
       * in the part before. */
      if (r.origin.y < -0.5 && r.size.height < vh && more_parts)
        return g_strdup_printf ("'%s' is cut at the top (y %.0f)", what, r.origin.y);
      if (r.origin.y + r.size.height > vh + 0.5 && !more_parts)
        return g_strdup_printf ("'%s' is cut at the bottom (y %.0f..%.0f in %.0f) in the last part",
                                what, r.origin.y, r.origin.y + r.size.height, vh);
    }
  return NULL;
}

/* NULL when every badge on the graph (the gradients' value labels above
 * all) lies inside the canvas, as the tiles draw them; else the first cut
 * one. A label placed past the drawing's edge was cut by the pane (11's
 * "4×1 in [-0.006164, …" at 1366x768). */
static char *
badge_problem (CrGraphCanvas *canvas)
{
  if (!canvas->model || !canvas->layout)
    return NULL;
  CrGraphRenderOptions options;
  cr_graph_canvas_fill_render_options (canvas, &options);
  options.draw_background = FALSE;
  options.label_boxes = canvas->label_boxes;
  options.text_scale = canvas->zoom;
  g_autoptr (GArray) boxes = g_array_new (FALSE, FALSE, sizeof (CrGraphBadgeBox));
  options.badges = boxes;
  cairo_surface_t *surface = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL);
  cairo_t *cr = cairo_create (surface);
  cr_graph_render (cr, canvas->model, canvas->layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  int w = gtk_widget_get_width (GTK_WIDGET (canvas)), h = gtk_widget_get_height (GTK_WIDGET (canvas));
  for (guint i = 0; i < boxes->len; i++)
    {
      const CrGraphBadgeBox *b = &g_array_index (boxes, CrGraphBadgeBox, i);
      double x0 = canvas->tx + canvas->zoom * b->x0, y0 = canvas->ty + canvas->zoom * b->y0;
      double x1 = canvas->tx + canvas->zoom * b->x1, y1 = canvas->ty + canvas->zoom * b->y1;
      if (x0 < -0.5 || y0 < -0.5 || x1 > w + 0.5 || y1 > h + 0.5)
        return g_strdup_printf ("badge %u of %u at %.0f,%.0f..%.0f,%.0f is cut by the %dx%d canvas "
                                "(the drawing %.0fx%.0f at %.0f,%.0f, zoom %.2f)", i + 1, boxes->len,
                                x0, y0, x1, y1, w, h, canvas->layout->width, canvas->layout->height,
                                canvas->tx, canvas->ty, canvas->zoom);
    }
  return NULL;
}

/* TRUE when neither the step's neighbourhood nor the card's part is cut. */
static gboolean
view_is_right (CrWindow *window)
{
  g_autofree char *problem = step_problem (cr_window_get_canvas (window));
  if (problem)
    return FALSE;
  if (gtk_stack_get_visible_child (window->sidebar_stack) != GTK_WIDGET (window->step_scroller))
    return TRUE;
  guint part = 0;
  guint parts = cr_step_card_pages_count (window->step_scroller, &part);
  GtkWidget *viewport = gtk_scrolled_window_get_child (window->step_scroller);
  g_autofree char *cut = card_problem (window, viewport, viewport, part + 1 < parts);
  return cut == NULL;
}

typedef struct {
  gboolean twenty_px;     /* the graph's type must be 20 px at least */
  gboolean whole;         /* every node must be whole on screen */
  guint    presses;
  double   min_type_px;
} Walk;

/* Checks what is shown now; asserts with a message naming where. */
static void
check_view (CrWindow   *window,
            const char *where,
            Walk       *walk)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  /* On a loaded machine a frame may still be owed when settle() returns:
   * what is wrong must still be wrong after a few more frames. */
  for (int retry = 0; retry < 5 && !view_is_right (window); retry++)
    {
      cr_ui_test_spin (200);
      settle ();
    }
  int step = cr_graph_canvas_get_step (canvas);
  g_autofree char *problem = step_problem (canvas);
  if (problem)
    g_error ("%s, step %d: %s", where, step + 1, problem);
  double type = cr_graph_render_label_size () * CR_GRAPH_RENDER_PRESENT_TYPE * canvas->zoom;
  walk->min_type_px = MIN (walk->min_type_px, type);
  if (walk->twenty_px && type < 20.0 - 1e-6)
    g_error ("%s, step %d: type of %.1f px", where, step + 1, type);
  g_autoptr (GArray) controls = floating_controls (canvas);
  for (guint i = 0; walk->whole && i < canvas->layout->n_nodes; i++)
    {
      g_autofree char *cut = node_problem (canvas, i, controls);
      if (cut)
        g_error ("%s, step %d: the graph is not whole: %s", where, step + 1, cut);
    }
  /* With the graph whole in view, so is every badge on it. */
  g_autofree char *badge_cut = walk->whole ? badge_problem (canvas) : NULL;
  if (badge_cut)
    g_error ("%s, step %d: %s", where, step + 1, badge_cut);
  if (gtk_stack_get_visible_child (window->sidebar_stack) != GTK_WIDGET (window->step_scroller))
    return;
  guint part = 0;
  guint parts = cr_step_card_pages_count (window->step_scroller, &part);
  GtkWidget *viewport = gtk_scrolled_window_get_child (window->step_scroller);
  g_autofree char *cut = card_problem (window, viewport, viewport, part + 1 < parts);
  if (cut)
    {
      GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (window->step_scroller);
      g_error ("%s, step %d, part %u of %u (at %.0f of %.0f, page %.0f): %s", where, step + 1, part + 1,
               parts, gtk_adjustment_get_value (adj), gtk_adjustment_get_upper (adj),
               gtk_adjustment_get_page_size (adj), cut);
    }
}

/* Where the story is: a forward op, then a backward step after all of
 * them; -1 before it. */
static int
position (CrGraphCanvas *canvas)
{
  int forward = cr_graph_canvas_get_forward_step (canvas);
  int step = cr_graph_canvas_get_step (canvas);
  return forward >= 0 ? forward
         : step >= 0 ? (int) cr_graph_canvas_get_n_forward_steps (canvas) + step : -1;
}

/* Page Down from before the story (the forward ops, then the backward
 * steps) to the last part of the last step, then (back) Page Up back to
 * the start, checking at every press. */
static void
walk_lesson (CrWindow   *window,
             const char *where,
             gboolean    back,
             Walk       *walk)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  int last = (int) (cr_graph_canvas_get_n_forward_steps (canvas) + cr_graph_canvas_get_n_steps (canvas)) - 1;
  check_view (window, where, walk);
  guint presses = 0;
  for (;;)
    {
      int step = position (canvas);
      double value = gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (window->step_scroller));
      g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
      settle ();
      presses++;
      g_assert_cmpuint (presses, <, MAX_PRESSES);
      double now = gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (window->step_scroller));
      if (position (canvas) == step && now == value)
        break;   /* the end of the lesson */
      check_view (window, where, walk);
    }
  g_assert_cmpint (position (canvas), ==, last);
  walk->presses += presses;
  if (!back)
    return;
  presses = 0;
  for (;;)
    {
      int step = position (canvas);
      double value = gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (window->step_scroller));
      g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Up));
      settle ();
      presses++;
      g_assert_cmpuint (presses, <, MAX_PRESSES);
      double now = gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (window->step_scroller));
      if (position (canvas) == step && now == value)
        break;
      check_view (window, where, walk);
    }
  g_assert_cmpint (position (canvas), ==, -1);
  walk->presses += presses;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* Every example, both projector sizes, the script hidden then shown. */
static void
test_every_example (void)
{
  static const int sizes[][2] = { { 1366, 768 }, { 1920, 1080 } };
  /* With the script hidden every example's graph stays whole through its
   * steps at 20 px type, at both sizes: where one did not, the step would
   * be followed. 11's cards, whose 4x4 matrices were wider than the
   * sidebar at presentation's type, write them compact (cr-tensor-view.c). */
  g_autoptr (GDir) dir = g_dir_open (cr_examples_dir (), 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (dir));)
    if (g_str_has_suffix (name, ".py"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_assert_cmpuint (names->len, >=, 14);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint i = 0; i < names->len; i++)
      {
        const char *name = g_ptr_array_index (names, i);
        CrWindow *window = open_example (name, sizes[s][0], sizes[s][1]);
        CrGraphCanvas *canvas = cr_window_get_canvas (window);
        g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F5));
        settle ();
        g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
        /* Presentation opens with the script hidden. */
        g_assert_false (gtk_widget_get_visible (window->editor_column));

        g_autofree char *hidden = g_strdup_printf ("%s at %dx%d, script hidden", name, sizes[s][0], sizes[s][1]);
        Walk walk = { TRUE, TRUE, 0, G_MAXDOUBLE };
        /* Back through the lesson too (each step from its last part) at
         * the smaller size: one walk back is enough to catch a card shown
         * at the wrong part, and a walk costs seconds. */
        walk_lesson (window, hidden, s == 0, &walk);
        g_test_message ("%s: %u presses, type %.1f px at least", hidden, walk.presses, walk.min_type_px);

        /* From the start again, before the forward pass (not a clicker's
         * key: the test's set-up). */
        g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", -1));
        settle ();
        /* F9 shows the script; the graph refits beside it. */
        int wide = gtk_widget_get_width (GTK_WIDGET (canvas));
        g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F9));
        settle ();
        g_assert_true (gtk_widget_get_visible (window->editor_column));
        g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), <, wide);
        g_autofree char *shown = g_strdup_printf ("%s at %dx%d, script shown", name, sizes[s][0], sizes[s][1]);
        /* Beside the script a node wider than the graph's pane at 20 px
         * (BinaryCrossEntropyWithLogitsBackward0 at 1366x768) is shown
         * whole, smaller. */
        walk = (Walk) { FALSE, FALSE, 0, G_MAXDOUBLE };
        walk_lesson (window, shown, FALSE, &walk);
        g_test_message ("%s: %u presses, type %.1f px at least", shown, walk.presses, walk.min_type_px);

        /* The clicker's blank key, then Escape leaves, the script as it was. */
        g_assert_true (cr_ui_test_press_key (window, GDK_KEY_b));
        g_assert_true (cr_window_get_blanked (window));
        g_assert_true (cr_ui_test_press_key (window, GDK_KEY_period));
        g_assert_false (cr_window_get_blanked (window));
        g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
        settle ();
        g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
        g_assert_true (gtk_widget_get_visible (window->editor_column));
        gtk_window_destroy (GTK_WINDOW (window));
        cr_ui_test_iterate ();
      }
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();
  g_test_add_func ("/ui/clicker/every-example", test_every_example);
  return g_test_run ();
}
