/* test-window-explain.c — the window's explanations on the run record, end
 * to end: the inspector follows the stepper (no .grad before the step that
 * writes it), an in-place error is pinned to its lines in the editor and to
 * its node on the graph, a custom Function's backward() and a hook's
 * function are marked as the step's code, and the backward-call picker of a
 * training loop numbers its rows. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-examples.h"
#include "cr-inspector.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static void
activate (CrWindow   *window,
          const char *name)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), name, NULL));
}

static void
set_text (CrWindow   *window,
          const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_set_text (buffer, text, -1);
}

static void
collect (GtkWidget *widget,
         GString   *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect (c, out);
}

static gboolean
shows_line (GtkWidget  *widget,
            const char *line)
{
  g_autoptr (GString) all = g_string_new ("\n");
  collect (widget, all);
  g_autofree char *needle = g_strdup_printf ("\n%s\n", line);
  return strstr (all->str, needle) != NULL;
}

static int
find_node (const CrGraphModel *model,
           const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (g_strcmp0 (n->title, title) == 0)
        return (int) i;
    }
  return -1;
}

static void
test_inspector_follows_step (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  int w1 = find_node (model, "w1");
  g_assert_cmpint (w1, >=, 0);
  cr_graph_canvas_set_selected (canvas, w1);
  cr_ui_test_iterate ();
  /* Before backward: its .grad is not given away. */
  g_assert_true (shows_line (window->inspector, "None so far: backward writes it at step 11"));
  g_assert_false (shows_line (window->inspector, "-4.5000"));
  activate (window, "win.step-last");
  cr_ui_test_iterate ();
  g_assert_cmpint (cr_inspector_get_step (CR_INSPECTOR (window->inspector)), ==, 11);
  g_assert_true (shows_line (window->inspector, "-4.5000"));
  activate (window, "win.step-first");
  cr_ui_test_iterate ();
  g_assert_false (shows_line (window->inspector, "-4.5000"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_inplace_error_pinned (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);
  set_text (window, "import torch\n"
                    "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                    "b = a * 2\n"
                    "c = b.sigmoid()\n"
                    "c.add_(1)\n"
                    "L = c.sum()\n"
                    "L.backward()\n");
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  /* The raising line and the in-place statement, both marked. */
  g_assert_true (cr_ui_test_line_has_tag (window, 7, "error-line"));
  g_assert_true (cr_ui_test_line_has_tag (window, 5, "error-line"));
  g_assert_false (cr_ui_test_line_has_tag (window, 4, "error-line"));
  /* The graph knows its failing node (the badges ring it). */
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  g_assert_nonnull (model);
  g_assert_cmpuint (model->record->errors->len, ==, 1);
  const CrRecordError *e = g_ptr_array_index (model->record->errors, 0);
  const CrGraphNode *failing = cr_graph_model_find_op (model, e->op);
  g_assert_nonnull (failing);
  g_assert_cmpstr (failing->title, ==, "SigmoidBackward0");
  /* The stepper and the step card say so before the first step. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-to", "i", -1));
  g_assert_cmpstr (gtk_label_get_label (window->step_label), ==,
                   "Before forward · 4 ops, then 3 backward steps and an error");
  g_assert_true (shows_line (window->step_card, "The backward call stopped with an error after 3 steps."));

  /* Fixed: the marks go. */
  set_text (window, "import torch\n"
                    "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                    "L = (a * 2).sum()\n"
                    "L.backward()\n");
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  for (int line = 1; line <= 4; line++)
    g_assert_false (cr_ui_test_line_has_tag (window, line, "error-line"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Whether node_id's centre is drawn where no floating control covers it. */
static gboolean
node_in_view (CrGraphCanvas *canvas,
              int            node_id)
{
  double x, y, area[4];
  if (!cr_graph_canvas_node_center (canvas, node_id, &x, &y))
    return FALSE;
  cr_graph_canvas_free_area (canvas, canvas->layout->width, canvas->layout->height, 0, area);
  return x >= area[0] && x <= area[2] && y >= area[1] && y <= area[3];
}

/* The canvas has its size and its first view (a window's idle can come
 * before the canvas is allocated and fitted). */
static gboolean
canvas_fitted (gpointer data)
{
  CrGraphCanvas *canvas = data;
  return canvas->layout && !canvas->need_fit && gtk_widget_get_width (GTK_WIDGET (canvas)) > 200;
}

/* A long graph that stopped with an error opens on the failing node (far
 * from the output, where a first view otherwise starts). */
static void
test_error_in_first_view (void)
{
  g_autoptr (GString) script = g_string_new ("import torch\n"
                                  "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                                  "b = a.exp()\n"
                                  "b.add_(1)\n"
                                  "c = b * 2\n");
  for (int i = 0; i < 14; i++)
    g_string_append (script, i % 2 ? "c = c * 0.5\n" : "c = c + 1\n");
  g_string_append (script, "L = c.sum()\nL.backward()\n");
  g_autofree char *path = NULL;
  CrWindow *window = cr_ui_test_open_script ("inplace-long.py", script->str, 1366, 768, &path);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_true (cr_ui_test_wait_until (canvas_fitted, canvas, 10));
  /* The floating controls settle (the step card may widen the side pane). */
  cr_ui_test_spin (200);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (model);
  g_assert_cmpuint (model->record->errors->len, ==, 1);
  const CrRecordError *e = g_ptr_array_index (model->record->errors, 0);
  const CrGraphNode *failing = cr_graph_model_find_op (model, e->op);
  g_assert_nonnull (failing);
  g_assert_cmpstr (failing->title, ==, "ExpBackward0");
  /* The graph does not fit whole (else this proves nothing) ... */
  int output = -1;
  for (guint i = 0; i < model->nodes->len; i++)
    if (((const CrGraphNode *) g_ptr_array_index (model->nodes, i))->kind == CR_GRAPH_NODE_OUTPUT)
      output = (int) i;
  g_assert_cmpint (output, >=, 0);
  g_assert_false (node_in_view (canvas, output) && node_in_view (canvas, (int) failing->id));
  /* ... and the first view shows the failing node. */
  g_assert_true (node_in_view (canvas, (int) failing->id));
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

/* A shape error inside nn.Linear names both operands of the op that
 * failed there, the layer's input and its weight: each one's node carries
 * the error in the inspector (and a ring on the graph), the bias none. */
static void
test_library_error_operands (void)
{
  g_autofree char *path = NULL;
  CrWindow *window = cr_ui_test_open_script ("linear-error.py",
                                             "import torch\n"
                                             "import torch.nn as nn\n"
                                             "model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(),\n"
                                             "                      nn.Linear(4, 2))\n"
                                             "x = torch.ones(1, 4)\n"
                                             "y = model(x)\n", 0, 0, &path);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (model);
  g_assert_cmpuint (model->record->errors->len, ==, 1);
  g_assert_true (cr_ui_test_line_has_tag (window, 6, "error-line"));
  const CrRecordError *e = g_ptr_array_index (model->record->errors, 0);
  g_assert_cmpuint (e->operands->len, ==, 2);
  const char *message = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)";
  /* The graph starts from the failing op's operands: the first layer's
   * output after ReLU and the second layer's weight, which is no first
   * operand and still carries the error. */
  const char *names[] = { "[ReluBackward0]", "2.weight", "0.weight" };
  const gboolean named[] = { TRUE, TRUE, FALSE };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      int node = find_node (model, names[i]);
      g_assert_cmpint (node, >=, 0);
      cr_graph_canvas_set_selected (canvas, node);
      cr_ui_test_iterate ();
      g_assert_true (shows_line (window->inspector, message) == named[i]);
    }
  /* The bias was no operand: not drawn. */
  g_assert_cmpint (find_node (model, "2.bias"), <, 0);
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

/* The colour a label's text is drawn in, as relative luminance (0..1). */
static double
text_luminance (GtkWidget *widget)
{
  GdkRGBA c;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &c);
  G_GNUC_END_IGNORE_DEPRECATIONS
  double rgb[3] = { c.red, c.green, c.blue };
  for (int i = 0; i < 3; i++)
    rgb[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : pow ((rgb[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static GtkWidget *
find_label_with_class (GtkWidget  *widget,
                       const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_label_with_class (c, css_class);
      if (found)
        return found;
    }
  return NULL;
}

/* The error under the editor and the card's error section stay readable
 * in dark mode: light text on the dark red tint (not the theme's dark red),
 * and dark text in light mode. */
static void
test_error_contrast (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);
  set_text (window, "import torch\n"
                    "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                    "c = (a * 2).sigmoid()\n"
                    "c.add_(1)\n"
                    "c.sum().backward()\n");
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  GtkWidget *lead = find_label_with_class (window->step_card, "error");
  g_assert_nonnull (lead);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->error_label)));
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  cr_ui_test_iterate ();
  g_assert_cmpfloat (text_luminance (GTK_WIDGET (window->error_label)), >, 0.3);
  g_assert_cmpfloat (text_luminance (lead), >, 0.3);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  cr_ui_test_iterate ();
  g_assert_cmpfloat (text_luminance (GTK_WIDGET (window->error_label)), <, 0.12);
  g_assert_cmpfloat (text_luminance (lead), <, 0.12);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_custom_backward_lines (void)
{
  CrWindow *window = cr_ui_test_open_example ("13-custom-function.py", 0, 0);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  int step = -1;
  for (guint i = 0; i < model->n_steps && step < 0; i++)
    {
      const CrRecordStep *s = cr_graph_model_get_record_step (model, (int) i);
      if (s->custom_backward)
        step = (int) i;
    }
  g_assert_cmpint (step, >=, 0);
  const CrRecordStep *s = cr_graph_model_get_record_step (model, step);
  g_assert_cmpint (s->custom_span.line, >, 0);
  while (cr_graph_canvas_get_step (canvas) < step)
    activate (window, "win.step-forward");
  cr_ui_test_iterate ();
  /* The backward() it ran is the step's code as well as the op's line. */
  g_assert_true (cr_ui_test_line_has_tag (window, s->custom_span.line, "step-line"));
  g_assert_true (shows_line (window->step_card, "Your backward"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_picker_numbered (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);
  set_text (window, "import torch\n"
                    "w = torch.tensor(1.0, requires_grad=True)\n"
                    "for i in range(3):\n"
                    "    loss = (w * 2) ** 2\n"
                    "    loss.backward()\n");
  cr_ui_test_wait_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  GListModel *items = gtk_drop_down_get_model (window->call_dropdown);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 3);
  const char *first = gtk_string_list_get_string (GTK_STRING_LIST (items), 0);
  const char *third = gtk_string_list_get_string (GTK_STRING_LIST (items), 2);
  g_assert_true (g_str_has_prefix (first, "#1 · loss.backward() · line 5"));
  g_assert_nonnull (strstr (first, "iteration 1"));
  g_assert_true (g_str_has_prefix (third, "#3 · "));
  g_assert_nonnull (strstr (third, "iteration 3"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-explain/inspector-follows-step", test_inspector_follows_step);
  g_test_add_func ("/window-explain/inplace-error-pinned", test_inplace_error_pinned);
  g_test_add_func ("/window-explain/error-in-first-view", test_error_in_first_view);
  g_test_add_func ("/window-explain/error-contrast", test_error_contrast);
  g_test_add_func ("/window-explain/library-error-operands", test_library_error_operands);
  g_test_add_func ("/window-explain/custom-backward-lines", test_custom_backward_lines);
  g_test_add_func ("/window-explain/picker-numbered", test_picker_numbered);
  return g_test_run ();
}
