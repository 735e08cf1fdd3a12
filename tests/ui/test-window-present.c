/* test-window-present.c — presentation mode as a lecturer drives it with a
 * clicker (Page Down / Page Up only): the step card read in parts, then the
 * next step; back to the previous step's last part; the step label saying
 * which part is shown. Runs under xvfb-run; looks inside the window through
 * its private header. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-examples.h"
#include "cr-expression-panel.h"
#include "cr-card-style.h"
#include "cr-soft-breaks.h"
#include "cr-graph-render.h"
#include "cr-graph-render-badges.h"
#include "cr-step-card-pages.h"
#include "ui-test-gui.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

/* 01-toy-network.py: step 10 (index 9) is b = w1*a's MulBackward0, where a
 * gets its second gradient: the card ends with the "Accumulated" block. */
#define TOY_FAN_IN_STEP 9

static void
activate (CrWindow   *window,
          const char *name)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), name, NULL));
}

/* Lets the window lay out what the last action changed. */
static void
settle (void)
{
  cr_ui_test_spin (150);
  /* A slow build (ASan) may still be laying out: until nothing is pending
   * (an animation keeps frames coming for well under a second). */
  gint64 until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_main_context_pending (NULL) && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
}

static GtkAdjustment *
card_adjustment (CrWindow *window)
{
  return gtk_scrolled_window_get_vadjustment (window->step_scroller);
}

static gboolean
at_end (CrWindow *window)
{
  GtkAdjustment *adj = card_adjustment (window);
  return gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
         >= gtk_adjustment_get_upper (adj) - 1;
}

static void
test_clicker_pages (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkAdjustment *adj = card_adjustment (window);
  activate (window, "win.presentation");
  settle ();

  for (int i = 0; i <= TOY_FAN_IN_STEP; i++)
    activate (window, "win.step-forward");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP);
  /* In presentation's large type the fan-in card does not fit. */
  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, gtk_adjustment_get_page_size (adj) + 1);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, 0);
  guint part = 99;
  guint parts = cr_step_card_pages_count (window->step_scroller, &part);
  g_assert_cmpuint (parts, >, 1);
  g_assert_cmpuint (part, ==, 0);
  g_autofree char *first = g_strdup_printf ("· part 1 of %u", parts);
  g_assert_true (g_str_has_suffix (gtk_label_get_label (window->step_label), first));

  /* Page Down reveals the rest of the card part by part, each further
   * down, until the end (the "Accumulated" block) is in view... */
  double last_value = 0;
  guint presses = 0;
  while (!at_end (window))
    {
      activate (window, "win.page-forward");
      settle ();
      g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP);
      g_assert_cmpfloat (gtk_adjustment_get_value (adj), >, last_value);
      last_value = gtk_adjustment_get_value (adj);
      presses++;
      g_assert_cmpuint (presses, <, parts);
      g_autofree char *now = g_strdup_printf ("· part %u of %u", presses + 1, parts);
      if (!g_str_has_suffix (gtk_label_get_label (window->step_label), now))
        g_error ("after %u presses the label reads '%s'", presses, gtk_label_get_label (window->step_label));
    }
  g_assert_cmpuint (presses, ==, parts - 1);
  cr_step_card_pages_count (window->step_scroller, &part);
  g_assert_cmpuint (part, ==, parts - 1);
  g_autofree char *last = g_strdup_printf ("· part %u of %u", parts, parts);
  g_assert_true (g_str_has_suffix (gtk_label_get_label (window->step_label), last));

  /* ...then goes on to the next step, read from its top. */
  activate (window, "win.page-forward");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP + 1);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, 0);

  /* Page Up goes back to where the previous step ended, then up through it. */
  activate (window, "win.page-back");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP);
  g_assert_true (at_end (window));
  presses = 0;
  while (gtk_adjustment_get_value (adj) > 0)
    {
      double before = gtk_adjustment_get_value (adj);
      activate (window, "win.page-back");
      settle ();
      g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP);
      g_assert_cmpfloat (gtk_adjustment_get_value (adj), <, before);
      presses++;
      g_assert_cmpuint (presses, <, 64);
    }
  activate (window, "win.page-back");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP - 1);

  /* Two presses before the window has laid the new card out: two steps. */
  activate (window, "win.page-forward");
  activate (window, "win.page-forward");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP + 1);
  activate (window, "win.step-back");
  activate (window, "win.step-back");
  settle ();

  /* Outside presentation Page Down steps at once (a mouse can scroll). */
  activate (window, "win.presentation");
  settle ();
  g_assert_false (g_str_has_suffix (gtk_label_get_label (window->step_label), "of 1"));
  g_assert_null (strstr (gtk_label_get_label (window->step_label), "part"));
  activate (window, "win.page-forward");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP);
  activate (window, "win.page-forward");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_FAN_IN_STEP + 1);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The smallest type the graph draws, in pixels at the canvas's zoom. */
static double
smallest_type_px (CrGraphCanvas *canvas,
                  gboolean       presentation)
{
  double k = presentation ? CR_GRAPH_RENDER_PRESENT_TYPE : 1.0;
  return cr_graph_render_label_size () * k * cr_graph_canvas_get_zoom (canvas);
}

/* Presentation: the graph's type is at least 20 px, at both projector
 * sizes; it opens with the script hidden, and F9 (showing it, hiding it
 * again) fits the graph again to the room it gets (after the view was
 * zoomed by hand too). */
static void
test_graph_type_and_refit (void)
{
  static const int sizes[][2] = { { 1366, 768 }, { 1920, 1080 } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", sizes[i][0], sizes[i][1]);
      CrGraphCanvas *canvas = cr_window_get_canvas (window);
      activate (window, "win.presentation");
      settle ();
      g_assert_cmpfloat (smallest_type_px (canvas, TRUE), >=, 20.0 - 1e-6);
      activate (window, "win.step-forward");
      settle ();
      g_assert_cmpfloat (smallest_type_px (canvas, TRUE), >=, 20.0 - 1e-6);
      double fitted = cr_graph_canvas_get_zoom (canvas);

      /* Presentation opens with the script hidden: the graph has the room. */
      g_assert_false (gtk_widget_get_visible (window->editor_column));
      int wide = gtk_widget_get_width (GTK_WIDGET (canvas));
      /* Zoomed by hand, then F9: the graph takes the new room, fitted. */
      activate (window, "win.zoom-in");
      activate (window, "win.zoom-in");
      settle ();
      g_assert_cmpfloat (cr_graph_canvas_get_zoom (canvas), >, fitted * 1.2);
      activate (window, "win.hide-editor");
      settle ();
      g_assert_true (gtk_widget_get_visible (window->editor_column));
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), <, wide);
      g_assert_cmpfloat (cr_graph_canvas_get_zoom (canvas), <, fitted * 1.2);
      g_assert_cmpfloat (smallest_type_px (canvas, TRUE), >=, 20.0 - 1e-6);
      activate (window, "win.zoom-in");
      settle ();
      activate (window, "win.hide-editor");
      settle ();
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), ==, wide);
      g_assert_cmpfloat (cr_graph_canvas_get_zoom (canvas), <, fitted * 1.2);
      g_assert_cmpfloat (smallest_type_px (canvas, TRUE), >=, 20.0 - 1e-6);

      /* Out of presentation the fit is the window's own again. */
      activate (window, "win.presentation");
      settle ();
      gtk_window_destroy (GTK_WINDOW (window));
    }
}

/* Whether node_id's box lies wholly inside the canvas, as the final view
 * (after any glide) shows it. */
static gboolean
node_in_view (CrGraphCanvas *canvas,
              guint          node_id)
{
  const CrGraphBox *b = &canvas->layout->nodes[node_id];
  double w = gtk_widget_get_width (GTK_WIDGET (canvas));
  double h = gtk_widget_get_height (GTK_WIDGET (canvas));
  double x0 = canvas->tx + canvas->zoom * b->x, x1 = x0 + canvas->zoom * b->width;
  double y0 = canvas->ty + canvas->zoom * b->y, y1 = y0 + canvas->zoom * b->height;
  return x0 >= -0.5 && y0 >= -0.5 && x1 <= w + 0.5 && y1 <= h + 0.5;
}

/* At 1366x768 with the script shown the graph pane is narrow: a wide node
 * (BinaryCrossEntropyWithLogitsBackward0) is never cut at a step. */
static void
test_wide_node_in_view (void)
{
  CrWindow *window = cr_ui_test_open_example ("04-one-layer-network.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  cr_graph_canvas_set_animate (canvas, FALSE);
  activate (window, "win.presentation");
  settle ();
  guint n = cr_graph_canvas_get_n_steps (canvas);
  g_assert_cmpuint (n, >, 2);
  for (guint i = 0; i < n; i++)
    {
      activate (window, "win.step-forward");
      settle ();
      const CrGraphNode *node = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), (int) i);
      g_assert_nonnull (node);
      if (!node_in_view (canvas, node->id))
        g_error ("step %u: %s is cut at zoom %.2f: x %.0f..%.0f y %.0f..%.0f in %dx%d", i + 1, node->title, cr_graph_canvas_get_zoom (canvas), canvas->tx + canvas->zoom * canvas->layout->nodes[node->id].x, canvas->tx + canvas->zoom * (canvas->layout->nodes[node->id].x + canvas->layout->nodes[node->id].width), canvas->ty + canvas->zoom * canvas->layout->nodes[node->id].y, canvas->ty + canvas->zoom * (canvas->layout->nodes[node->id].y + canvas->layout->nodes[node->id].height), gtk_widget_get_width (GTK_WIDGET (canvas)), gtk_widget_get_height (GTK_WIDGET (canvas)));
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Whether a label under widget reads text, whole. */
static gboolean
tree_has_text (GtkWidget  *widget,
               const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (tree_has_text (c, text))
      return TRUE;
  return FALSE;
}

static gboolean
card_has_text (CrWindow   *window,
               const char *text)
{
  return tree_has_text (window->step_card, text);
}

/* A script whose MulBackward0 card holds a 2x6 matrix of wide whole
 * numbers (written as PyTorch prints them, compact or not): at
 * presentation's type wider than the sidebar's 30 % of a 1366 px screen. */
static const char wide_card_script[] =
  "import torch\n"
  "A = torch.tensor([[1.5, -2.5, 3.5, -4.5, 5.5, -6.5], [1., 2., 3., 4., 5., 6.]], requires_grad=True)\n"
  "W = torch.tensor([[123456., -234567., 345678., -456789., 567891., -678912.], [1., 2., 3., 4., 5., 6.]])\n"
  "C = A * W\n"
  "D = C.sum()\n"
  "D.backward()\n";

/* A card wider than the sidebar widens it for its step: GTK moves the
 * handle, which is not the person's drag, so the next, narrower card gets
 * the sidebar's own width back (before, the graph stayed narrow for the
 * rest of the lesson). A drag is kept. */
static void
test_card_widens_sidebar_not_a_drag (void)
{
  g_autofree char *path = NULL;
  CrWindow *window = cr_ui_test_open_script ("wide.py", wide_card_script, 1366, 768, &path);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  cr_graph_canvas_set_animate (canvas, FALSE);
  activate (window, "win.presentation");
  settle ();
  /* The backward steps: SumBackward0 (a narrow card), MulBackward0. */
  int sum_step = (int) cr_graph_canvas_get_n_forward_steps (canvas), mul_step = sum_step + 1;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", sum_step));
  settle ();
  int own = gtk_widget_get_width (window->sidebar);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", mul_step));
  settle ();
  g_assert_cmpint (gtk_widget_get_width (window->sidebar), >, own + 40);
  g_assert_false (window->inner_moved);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", sum_step));
  settle ();
  g_assert_cmpint (abs (gtk_widget_get_width (window->sidebar) - own), <=, 2);

  /* The person drags the handle: the sidebar keeps that width after. */
  gtk_paned_set_position (window->inner_paned, gtk_paned_get_position (window->inner_paned) - 60);
  settle ();
  g_assert_true (window->inner_moved);
  int dragged = gtk_widget_get_width (window->sidebar);
  g_assert_cmpint (dragged, >, own + 40);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", mul_step));
  settle ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", sum_step));
  settle ();
  g_assert_cmpint (abs (gtk_widget_get_width (window->sidebar) - dragged), <=, 2);
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

/* In presentation 11's 4x4 matrices are written compact, so that its
 * widest card fits the sidebar at 1366x768 and the graph keeps its room;
 * out of presentation the same card shows PyTorch's four decimals. */
static void
test_compact_matrices (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  cr_graph_canvas_set_animate (canvas, FALSE);
  /* Forward op 2: X @ W1 + b1, a 4x4 result whose first value is -0.3835. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", 1));
  settle ();
  g_assert_true (card_has_text (window, "-0.3835"));
  int own = gtk_widget_get_width (window->sidebar);
  activate (window, "win.presentation");
  settle ();
  g_assert_true (card_has_text (window, "-0.38"));
  g_assert_false (card_has_text (window, "-0.3835"));
  int min = 0;
  gtk_widget_measure (window->sidebar, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_assert_cmpint (min, <=, gtk_widget_get_width (window->sidebar));
  g_assert_false (window->inner_moved);
  activate (window, "win.presentation");
  settle ();
  g_assert_true (card_has_text (window, "-0.3835"));
  g_assert_cmpint (abs (gtk_widget_get_width (window->sidebar) - own), <=, 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A node's tooltip at the pointer: in the window, not in presentation,
 * where a pointer left over the graph would cover the lesson. */
static gboolean
tooltip_over (CrGraphCanvas *canvas,
              int            id)
{
  double x = 0, y = 0;
  g_assert_true (cr_graph_canvas_node_center (canvas, id, &x, &y));
  GtkTooltip *tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  gboolean shown = FALSE;
  g_signal_emit_by_name (canvas, "query-tooltip", (int) x, (int) y, FALSE, tooltip, &shown);
  g_object_unref (tooltip);
  return shown;
}

static void
test_no_pointer_tooltip (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  cr_graph_canvas_set_animate (canvas, FALSE);
  activate (window, "win.step-forward");
  settle ();
  const CrGraphNode *node = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), 0);
  g_assert_nonnull (node);
  g_assert_true (tooltip_over (canvas, node->id));
  activate (window, "win.presentation");
  settle ();
  g_assert_false (tooltip_over (canvas, node->id));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A clicker's keys: Page Down steps (and pages), b and period blank the
 * screen and bring it back, also with the focus in the script (where they
 * would have typed into it); a step shows the screen again. */
static void
test_clicker_keys (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1920, 1080);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view));
  g_autofree char *before = cr_window_get_text (window);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F5) || gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
  settle ();
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));

  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 0);

  gtk_widget_grab_focus (GTK_WIDGET (window->source_view));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_b));
  g_assert_true (cr_window_get_blanked (window));
  g_assert_cmpfloat (gtk_widget_get_opacity (adw_application_window_get_content (ADW_APPLICATION_WINDOW (window))), ==, 0);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_b));
  g_assert_false (cr_window_get_blanked (window));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_period));
  g_assert_true (cr_window_get_blanked (window));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 1);
  g_assert_false (cr_window_get_blanked (window));
  g_assert_cmpfloat (gtk_widget_get_opacity (adw_application_window_get_content (ADW_APPLICATION_WINDOW (window))), ==, 1);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Up));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 0);
  /* Nothing was typed into the script. */
  g_autofree char *after = cr_window_get_text (window);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (gtk_text_buffer_get_modified (buffer));

  /* The script has the keys: the first Escape gives them back to the
   * stepper, the second leaves presentation; b is a letter again. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_false (cr_ui_test_press_key (window, GDK_KEY_b));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting with the editor's keys (Ctrl+L), the first Escape gives them
 * back to the stepper, presentation kept: the arrows step the story again;
 * the next Escape leaves. A clicker that sends Escape leaves in two
 * presses, and the start-up hint says so. */
static void
test_escape_from_editor (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1920, 1080);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  GtkWidget *view = GTK_WIDGET (window->source_view);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F5));
  settle ();
  g_assert_true (cr_ui_test_press_key_with (window, GDK_KEY_l, GDK_CONTROL_MASK));
  settle ();
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == view);
  int step = cr_graph_canvas_get_step (canvas);

  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Escape) == GTK_WIDGET (window));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (canvas)));
  /* The arrows step again. */
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) == GTK_WIDGET (window));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, step + 1);

  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Escape) == GTK_WIDGET (window));
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));

  /* The hint tells the lecturer: Ctrl+L in the shortcuts window's words,
   * and the two presses. */
  const char *hint = gtk_label_get_text (GTK_LABEL (gtk_revealer_get_child (window->hint_revealer)));
  g_assert_nonnull (strstr (hint, "Ctrl+L gives the editor the keys"));
  g_assert_nonnull (strstr (hint, "Esc twice"));
  /* The script scrolls to keep its place as its lines unwrap: GTK 4.8
   * warns when a window goes while its scroll is still animated. */
  settle ();
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting, the scalar graph of one op (s) is a view over the graph:
 * the first Escape closes it, back to the graph and presentation kept, as
 * from the editor; the next Escape leaves. */
static void
test_escape_from_scalars (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1920, 1080);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F5));
  settle ();
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  settle ();
  gtk_widget_grab_focus (GTK_WIDGET (canvas));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_s) == GTK_WIDGET (window));
  settle ();
  GtkWidget *scalars = GTK_WIDGET (cr_window_get_scalar_view (window));
  g_assert_nonnull (scalars);
  g_assert_true (gtk_widget_get_visible (scalars));
  /* Through its elements first, as a lecturer would. */
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) == GTK_WIDGET (window));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Page_Down) == GTK_WIDGET (window));
  settle ();

  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Escape) == GTK_WIDGET (window));
  settle ();
  g_assert_false (gtk_widget_get_visible (scalars));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (canvas)));

  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Escape) == GTK_WIDGET (window));
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  settle ();
  gtk_window_destroy (GTK_WINDOW (window));
}

/* 11-mlp-training.py presented at width x height, its script shown (F9). */
static CrWindow *
open_presented_script (int width,
                       int height)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", width, height);
  activate (window, "win.presentation");
  settle ();
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_F9));
  settle ();
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window->source_view)));
  return window;
}

/* Presenting with the script shown (F9), at 1920x1080 and 1366x768, its
 * long lines wrap (a clicker cannot scroll sideways): nothing is cut at
 * the editor's right edge, a long line takes several rows, hanging past
 * its text's start, and its line number stays on its first row
 * (GtkSourceView numbers lines, not rows). Out of presentation, lines are
 * whole again on one row. */
static void
check_lines_wrap (int width,
                  int height)
{
  CrWindow *window = open_presented_script (width, height);
  GtkTextView *view = GTK_TEXT_VIEW (window->source_view);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkAdjustment *h = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (view));
  g_assert_cmpfloat (gtk_adjustment_get_upper (h), <=, gtk_adjustment_get_page_size (h) + 1);
  /* The longest line: several rows (a row: the shortest line's height),
   * the next line starting below them. */
  int longest = 0, longest_chars = 0, row = G_MAXINT;
  for (int line = 0; line < gtk_text_buffer_get_line_count (buffer); line++)
    {
      GtkTextIter iter;
      int y = 0, line_height = 0;
      gtk_text_buffer_get_iter_at_line (buffer, &iter, line);
      gtk_text_view_get_line_yrange (view, &iter, &y, &line_height);
      row = MIN (row, line_height);
      if (gtk_text_iter_get_chars_in_line (&iter) > longest_chars)
        {
          longest = line;
          longest_chars = gtk_text_iter_get_chars_in_line (&iter);
        }
    }
  GtkTextIter start, next;
  gtk_text_buffer_get_iter_at_line (buffer, &start, longest);
  gtk_text_buffer_get_iter_at_line (buffer, &next, longest + 1);
  int y = 0, rows_height = 0, next_y = 0, next_height = 0;
  gtk_text_view_get_line_yrange (view, &start, &y, &rows_height);
  gtk_text_view_get_line_yrange (view, &next, &next_y, &next_height);
  g_assert_cmpint (row, >, 0);
  g_assert_cmpint (rows_height, >=, 2 * row);
  g_assert_cmpint (next_y, ==, y + rows_height);
  /* Its second row hangs past where its text starts, so that it does not
   * read as a statement of its own. */
  GtkTextIter text = start, second = start;
  while (g_unichar_isspace (gtk_text_iter_get_char (&text)))
    gtk_text_iter_forward_char (&text);
  g_assert_true (gtk_text_view_forward_display_line (view, &second));
  g_assert_cmpint (gtk_text_iter_get_line (&second), ==, longest);
  GdkRectangle text_at, second_at;
  gtk_text_view_get_iter_location (view, &text, &text_at);
  gtk_text_view_get_iter_location (view, &second, &second_at);
  g_assert_cmpint (second_at.x, >, text_at.x);

  activate (window, "win.presentation");
  settle ();
  g_assert_cmpint (gtk_text_view_get_wrap_mode (view), ==, GTK_WRAP_NONE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting at 1366x768 with the script shown (F9), its column holds
 * about 30 columns of code: a loop's "    optimizer.zero_grad()" stays on
 * one row (a quarter of the width held 24, and the statement's first row
 * was its indentation alone). The graph keeps the rest: its pane is still
 * wider than the script's. */
static void
test_editor_columns (void)
{
  CrWindow *window = open_presented_script (1366, 768);
  GtkTextView *view = GTK_TEXT_VIEW (window->source_view);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);

  GtkTextIter start, match;
  gtk_text_buffer_get_start_iter (buffer, &start);
  g_assert_true (gtk_text_iter_forward_search (&start, "    optimizer.zero_grad()", 0, &match, NULL, NULL));
  gtk_text_iter_set_line_offset (&match, 0);
  GtkTextIter second = match;
  g_assert_false (gtk_text_view_forward_display_line (view, &second)
                  && gtk_text_iter_get_line (&second) == gtk_text_iter_get_line (&match));

  /* Room for 28 columns at least: a row of 28 zeros is narrower than the
   * text's width. */
  GdkRectangle visible;
  gtk_text_view_get_visible_rect (view, &visible);
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (view), "0000000000000000000000000000");
  int row_width = 0;
  pango_layout_get_pixel_size (layout, &row_width, NULL);
  g_object_unref (layout);
  g_assert_cmpint (row_width, <, visible.width);

  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (canvas)), >, gtk_widget_get_width (window->editor_column));
  activate (window, "win.presentation");
  settle ();
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_lines_wrap (void)
{
  check_lines_wrap (1920, 1080);
  check_lines_wrap (1366, 768);
}

/* The keyboard shortcuts window tells a presenter what the clicker does. */
static void
test_help_overlay (void)
{
  g_autoptr (GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/chainrule/Chainrule/gtk/help-overlay.ui");
  GObject *overlay = gtk_builder_get_object (builder, "help_overlay");
  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
  g_autoptr (GBytes) bytes = g_resources_lookup_data ("/io/github/chainrule/Chainrule/gtk/help-overlay.ui",
                                                     0, NULL);
  const char *text = g_bytes_get_data (bytes, NULL);
  g_assert_nonnull (strstr (text, "the next part of a long step card"));
  g_assert_nonnull (strstr (text, "blank the screen"));
  g_assert_nonnull (strstr (text, "Give the editor the keys"));
  g_assert_nonnull (strstr (text, "the first gives the keys back to the steps"));
  gtk_window_destroy (GTK_WINDOW (overlay));
}

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  *finished = TRUE;
}

static void
wait_for_run_finished (CrWindow *window)
{
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  cr_ui_test_wait_window_idle (window);
}

/* The leaf's value the model shows for `name` (its first number). */
static double
leaf_value (const CrGraphModel *model,
            const char         *name)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      const CrRecordTensor *t = n->tensor >= 0 ? g_ptr_array_index (model->record->tensors, n->tensor)
                                               : NULL;
      if (n->kind == CR_GRAPH_NODE_LEAF && g_strcmp0 (n->title, name) == 0
          && t && t->value && t->value->n_values > 0)
        return t->value->values[0];
    }
  g_assert_not_reached ();
  return 0;
}

/* The gradients the canvas writes on the graph at its current step: the
 * badges' texts (".grad 2", "[5, 7, 9]"...). */
static GPtrArray *
gradients_on_graph (CrGraphCanvas *canvas)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_autoptr (CrGraphLayout) layout = cr_graph_render_layout (model, NULL);
  GPtrArray *drawn = g_ptr_array_new_with_free_func (g_free);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 64, 64);
  cairo_t *cr = cairo_create (surface);
  CrGraphBadgeOptions options = {
    .current_step = cr_graph_canvas_get_step (canvas), .k = 1, .lw = 1, .drawn = drawn,
  };
  cr_graph_render_badges (cr, model, layout, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return drawn;
}

static gboolean
has_text (GPtrArray  *drawn,
          const char *text)
{
  for (guint i = 0; i < drawn->len; i++)
    if (strcmp (g_ptr_array_index (drawn, i), text) == 0)
      return TRUE;
  return FALSE;
}

/* Expression mode: a new formula shows its gradients at once (the stepper
 * at the end of backward, every .grad written on the graph); a slider moved
 * re-runs the formula with the new value: the graph is the same, so the
 * stepper stays on its step, and the gradients on the graph are the new
 * ones. */
static void
test_slider_keeps_step (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  CrExpressionPanel *panel = CR_EXPRESSION_PANEL (window->expression_panel);

  gtk_stack_set_visible_child_name (window->editor_stack, "expression");
  cr_expression_panel_set_formula (panel, "a*b + c");
  wait_for_run_finished (window);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), >, 2);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, (int) cr_graph_canvas_get_n_steps (canvas) - 1);
  /* Every leaf's .grad is written on the graph (a = 2, b = -1: a.grad = -1,
   * b.grad = 2, c.grad = 1). */
  {
    g_autoptr (GPtrArray) drawn = gradients_on_graph (canvas);
    g_assert_true (has_text (drawn, ".grad 2"));
    g_assert_true (has_text (drawn, ".grad -1"));
    g_assert_true (has_text (drawn, ".grad 1"));
  }
  /* To backward step 2: past the forward ops. */
  cr_ui_test_skip_forward (window);
  activate (window, "win.step-forward");
  activate (window, "win.step-forward");
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 1);

  g_assert_true (cr_expression_panel_set_value (panel, "a", 7.5));
  wait_for_run_finished (window);
  g_assert_cmpfloat (leaf_value (cr_graph_canvas_get_model (canvas), "a"), ==, 7.5);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 1);
  g_assert_true (g_str_has_prefix (gtk_label_get_label (window->step_label), "Backward 2 of"));
  /* At the end, the graph writes b.grad = a = 7.5. */
  activate (window, "win.step-last");
  {
    g_autoptr (GPtrArray) drawn = gradients_on_graph (canvas);
    g_assert_true (has_text (drawn, ".grad 7.5"));
    g_assert_false (has_text (drawn, ".grad 2"));
  }

  cr_expression_panel_set_formula (panel, "a*b*c + a");
  wait_for_run_finished (window);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, (int) cr_graph_canvas_get_n_steps (canvas) - 1);

  /* Back in the script: its own graph, from before the first step. */
  gtk_stack_set_visible_child_name (window->editor_stack, "script");
  wait_for_run_finished (window);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Expression and script pages switched back and forth while their runs
 * come and go: the editor column must never be drawn without a size (a
 * scrollbar appearing during its allocation made GTK 4.8 lose a resize, and
 * "Trying to snapshot GtkBox without a current allocation" is fatal here).
 * The failure needed unlucky timing (about one switch in 300): this varies
 * the waits; the fix is the scrollbar policies of cr-window.ui and
 * cr-expression-panel.c. */
static void
test_switch_pages (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  CrExpressionPanel *panel = CR_EXPRESSION_PANEL (window->expression_panel);

  for (int i = 0; i < 8; i++)
    {
      gtk_stack_set_visible_child_name (window->editor_stack, "expression");
      cr_ui_test_spin ((i * 7) % 40);
      cr_expression_panel_set_formula (panel, i % 2 ? "a*b + c" : "a*b*c + a");
      if (i % 3 == 0)
        wait_for_run_finished (window);
      else
        cr_ui_test_spin ((i * 13) % 60);
      g_assert_true (cr_expression_panel_set_value (panel, "a", 0.5 + i));
      cr_ui_test_spin ((i * 37) % 300);
      gtk_stack_set_visible_child_name (window->editor_stack, "script");
      if (i % 2 == 0 || i == 7)
        wait_for_run_finished (window);
      else
        cr_ui_test_spin ((i * 41) % 300);
    }
  g_assert_cmpint (cr_graph_canvas_get_step (cr_window_get_canvas (window)), ==, -1);
  gtk_window_destroy (GTK_WINDOW (window));
}

#define ZWSP "\xe2\x80\x8b"

static void
test_soft_breaks_text (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "LogSoftmaxBackward0", "Log" ZWSP "Softmax" ZWSP "Backward0" },
    { "∂loss/∂[LogSoftmaxBackward0]", "∂loss/∂[Log" ZWSP "Softmax" ZWSP "Backward0]" },
    { "MmBackward0", "Mm" ZWSP "Backward0" },
    { "RsubBackward1", "Rsub" ZWSP "Backward1" },
    { "log_softmax", "log_" ZWSP "softmax" },
    { "F.mse_loss(pred, Y)", "F." ZWSP "mse_" ZWSP "loss(pred, Y)" },
    { "torch.nn.functional.gelu", "torch." ZWSP "nn." ZWSP "functional." ZWSP "gelu" },
    { "0.5 x.y", "0.5 x." ZWSP "y" },
    { "AccumulateGrad", "Accumulate" ZWSP "Grad" },
    /* Nothing to split: names, numbers, maths. */
    { "w1", "w1" }, { "fc1.weight", "fc1.weight" }, { "∂L/∂b", "∂L/∂b" },
    { "x_2", "x_2" }, { "ABC", "ABC" }, { "", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = cr_soft_breaks_add (cases[i].in);
      g_assert_cmpstr (got, ==, cases[i].out);
    }
  g_assert_null (cr_soft_breaks_add (NULL));
}

/* The width of the widest piece of layout's text between break points. */
static int
widest_piece (PangoLayout *layout)
{
  g_auto (GStrv) pieces = g_strsplit (pango_layout_get_text (layout), ZWSP, -1);
  int widest = 0;
  for (int i = 0; pieces[i]; i++)
    {
      PangoLayout *one = pango_layout_copy (layout);
      pango_layout_set_width (one, -1);
      pango_layout_set_text (one, pieces[i], -1);
      int w;
      pango_layout_get_pixel_size (one, &w, NULL);
      widest = MAX (widest, w);
      g_object_unref (one);
    }
  return widest;
}

/* Laid out just wider than its widest word, label's lines must start after
 * a zero-width space, a space or at the start; no hyphen is drawn. */
static void
assert_breaks_between_words (GtkWidget *label)
{
  PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
  pango_layout_set_width (layout, (widest_piece (layout) + 2) * PANGO_SCALE);
  const char *text = pango_layout_get_text (layout);
  g_assert_cmpint (pango_layout_get_line_count (layout), >, 1);
  for (GSList *l = pango_layout_get_lines_readonly (layout); l; l = l->next)
    {
      const PangoLayoutLine *line = l->data;
      if (line->start_index == 0)
        continue;
      const char *prev = g_utf8_find_prev_char (text, text + line->start_index);
      gunichar c = g_utf8_get_char (prev);
      if (c != 0x200B && c != ' ')
        g_error ("'%s' broken inside a word at byte %d", text, line->start_index);
    }
  /* Pango draws an inserted hyphen as part of the line, not the text:
   * the attribute that forbids it is set. */
  PangoAttrList *attrs = gtk_label_get_attributes (GTK_LABEL (label));
  g_assert_nonnull (attrs);
  PangoAttrIterator *it = pango_attr_list_get_iterator (attrs);
  PangoAttribute *hyphens = pango_attr_iterator_get (it, PANGO_ATTR_INSERT_HYPHENS);
  g_assert_nonnull (hyphens);
  g_assert_false (((PangoAttrInt *) hyphens)->value);
  pango_attr_iterator_destroy (it);
}

/* "LogSoftmaxBackwa-rd0": a grad_fn name in a narrow card broke anywhere,
 * with a hyphen. */
static void
test_soft_breaks_labels (void)
{
  GtkWidget *fraction = g_object_ref_sink (cr_card_fraction_new ("∂loss/∂[LogSoftmaxBackward0]", NULL));
  GtkWidget *bottom = gtk_widget_get_last_child (fraction);
  g_assert_true (GTK_IS_LABEL (bottom));
  assert_breaks_between_words (bottom);
  /* The name itself stays whole for whoever reads it back. */
  g_assert_cmpstr (g_object_get_data (G_OBJECT (fraction), "cr-text"), ==, "∂loss/∂[LogSoftmaxBackward0]");
  g_object_unref (fraction);

  GtkWidget *title = g_object_ref_sink (cr_card_label_new (NULL, "title-3"));
  cr_soft_breaks_set_name (GTK_LABEL (title), "LogSoftmaxBackward0");
  assert_breaks_between_words (title);
  g_object_unref (title);
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();

  g_test_add_func ("/ui/present/clicker-pages", test_clicker_pages);
  g_test_add_func ("/ui/present/graph-type-and-refit", test_graph_type_and_refit);
  g_test_add_func ("/ui/present/clicker-keys", test_clicker_keys);
  g_test_add_func ("/ui/present/escape-from-editor", test_escape_from_editor);
  g_test_add_func ("/ui/present/escape-from-scalars", test_escape_from_scalars);
  g_test_add_func ("/ui/present/lines-wrap", test_lines_wrap);
  g_test_add_func ("/ui/present/editor-columns", test_editor_columns);
  g_test_add_func ("/ui/present/wide-node-in-view", test_wide_node_in_view);
  g_test_add_func ("/ui/present/card-widens-sidebar-not-a-drag", test_card_widens_sidebar_not_a_drag);
  g_test_add_func ("/ui/present/compact-matrices", test_compact_matrices);
  g_test_add_func ("/ui/present/help-overlay", test_help_overlay);
  g_test_add_func ("/ui/present/no-pointer-tooltip", test_no_pointer_tooltip);
  g_test_add_func ("/ui/expression/slider-keeps-step", test_slider_keeps_step);
  g_test_add_func ("/ui/expression/switch-pages", test_switch_pages);
  g_test_add_func ("/ui/soft-breaks/text", test_soft_breaks_text);
  g_test_add_func ("/ui/soft-breaks/labels", test_soft_breaks_labels);
  return g_test_run ();
}
