/* test-window.c — the main window: the toy example's run and its stepper,
 * node selection with the inspector and the editor's highlight, re-runs after
 * edits, the delayed error display with the last good graph dimmed,
 * presentation mode, the backward-call selector, expression mode and the
 * gallery. Runs under xvfb-run; looks inside the window through its private
 * header. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-examples.h"
#include "cr-expression-panel.h"
#include "ui-test-gui.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 01-toy-network.py's L.backward() runs 12 steps (`chainrule run
 * --trace-backward` prints them). */
#define TOY_STEPS 12
/* ... after its 7 forward ops. */
#define TOY_OPS 7

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  *finished = TRUE;
}

/* Waits for the next "run-finished"; returns how long it took, in ms. */
static double
wait_for_run_finished (CrWindow *window)
{
  gboolean finished = FALSE;
  gint64 start = g_get_monotonic_time ();
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  return (g_get_monotonic_time () - start) / 1000.0;
}

static gboolean
enabled (CrWindow   *window,
         const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

static void
activate (CrWindow   *window,
          const char *name)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), name, NULL));
}

static CrWindow *
open_example (const char *name)
{
  CrWindow *window = cr_window_new (NULL);
  g_autofree char *path = g_build_filename (cr_examples_dir (), name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (cr_window_is_busy (window));
  cr_ui_test_wait_window_idle (window);
  return window;
}

static void
set_text (CrWindow   *window,
          const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_set_text (buffer, text, -1);
}

/* Replaces the first occurrence of from in the editor by to. */
static void
replace_text (CrWindow   *window,
              const char *from,
              const char *to)
{
  g_autofree char *text = cr_window_get_text (window);
  char *at = strstr (text, from);
  g_assert_nonnull (at);
  g_autoptr (GString) edited = g_string_new_len (text, at - text);
  g_string_append (edited, to);
  g_string_append (edited, at + strlen (from));
  set_text (window, edited->str);
}

static gboolean
line_has_tag (CrWindow   *window,
              int         line,   /* 1-based */
              const char *tag_name)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);
  g_assert_nonnull (tag);
  GtkTextIter iter, end;
  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  end = iter;
  gtk_text_iter_forward_to_line_end (&end);
  while (TRUE)
    {
      if (gtk_text_iter_has_tag (&iter, tag))
        return TRUE;
      if (gtk_text_iter_compare (&iter, &end) >= 0 || !gtk_text_iter_forward_char (&iter))
        return FALSE;
    }
}

static gboolean
buffer_has_tag (CrWindow   *window,
                const char *tag_name)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  for (int line = 1; line <= gtk_text_buffer_get_line_count (buffer); line++)
    if (line_has_tag (window, line, tag_name))
      return TRUE;
  return FALSE;
}

/* Whether some label under widget shows text. */
static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

static gboolean
output_contains (CrWindow   *window,
                 const char *text)
{
  GtkTextBuffer *output = gtk_text_view_get_buffer (window->output_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (output, &start, &end);
  g_autofree char *all = gtk_text_buffer_get_text (output, &start, &end, FALSE);
  return strstr (all, text) != NULL;
}

static gboolean
canvas_dimmed (CrWindow *window)
{
  gboolean dimmed = FALSE;
  g_object_get (cr_window_get_canvas (window), "dimmed", &dimmed, NULL);
  return dimmed;
}

static const CrGraphNode *
find_node (const CrGraphModel *model,
           const char         *title,
           const char         *caption)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (g_strcmp0 (node->title, title) == 0
          && (!caption || g_strcmp0 (node->caption, caption) == 0))
        return node;
    }
  return NULL;
}

/* The first label of widget with css_class, or NULL. */
static GtkLabel *
label_with_class (GtkWidget  *widget,
                  const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return GTK_LABEL (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = label_with_class (c, css_class);
      if (found)
        return found;
    }
  return NULL;
}

/* The card's header and the stepper's label say where the story is in
 * the same words: "Backward 5 of 12" before the label's " · ...". */
static void
assert_card_says_label (CrWindow *window)
{
  GtkLabel *count = label_with_class (window->step_card, "caption-heading");
  g_assert_nonnull (count);
  g_autofree char *prefix = g_strdup_printf ("%s · ", gtk_label_get_text (count));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (window->step_label), prefix));
}

static void
test_toy_network (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_nonnull (cr_graph_canvas_get_model (canvas));
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, TOY_STEPS);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->call_dropdown)));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "workspace");

  /* Before the story: only ahead, or to its start. */
  g_assert_cmpuint (cr_graph_canvas_get_n_forward_steps (canvas), ==, TOY_OPS);
  g_assert_false (enabled (window, "step-back"));
  g_assert_true (enabled (window, "step-first"));
  g_assert_true (enabled (window, "step-forward"));
  g_assert_true (enabled (window, "step-last"));
  g_assert_true (enabled (window, "play"));
  /* Nothing is hidden before the story starts. */
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  const CrGraphNode *root = NULL;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == CR_GRAPH_NODE_OUTPUT)
        root = n;
      g_assert_true (cr_graph_canvas_node_computed (canvas, (int) i));
    }
  g_assert_nonnull (root);

  /* Home: the first forward op. L is not computed yet, its value not shown;
   * the leaves are. */
  activate (window, "win.step-first");
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 0);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_true (g_str_has_prefix (gtk_label_get_text (window->step_label), "Forward 1 of 7 · MulBackward0"));
  g_assert_false (cr_graph_canvas_node_computed (canvas, (int) root->id));
  g_assert_true (cr_graph_canvas_node_computed (canvas,
                   (int) cr_graph_model_find_tensor (model, 0)->id));   /* a */
  g_assert_true (line_has_tag (window, 13, "step-line"));               /* b = w1 * a */
  g_assert_false (enabled (window, "step-first"));
  g_assert_true (enabled (window, "step-back"));
  for (int i = 1; i < TOY_OPS; i++)
    {
      activate (window, "win.step-forward");
      g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, i);
      g_autofree char *label = g_strdup_printf ("Forward %d of %d · ", i + 1, TOY_OPS);
      g_assert_true (g_str_has_prefix (gtk_label_get_text (window->step_label), label));
      assert_card_says_label (window);
      /* L is computed by the last op: shown from then on. */
      g_assert_true (cr_graph_canvas_node_computed (canvas, (int) root->id) == (i == TOY_OPS - 1));
    }
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);

  for (int i = 0; i < TOY_STEPS; i++)
    {
      g_assert_true (enabled (window, "step-forward"));
      activate (window, "win.step-forward");
      g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, i);
      g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, -1);
      g_assert_true (enabled (window, "step-back"));
      g_assert_true (enabled (window, "step-first"));
      /* The label names the step and its node; the editor marks the node's line. */
      g_autofree char *label = g_strdup_printf ("Backward %d of %d · ", i + 1, TOY_STEPS);
      g_assert_true (g_str_has_prefix (gtk_label_get_text (window->step_label), label));
      assert_card_says_label (window);
      const CrGraphNode *node = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), i);
      g_assert_nonnull (node);
      if (node->span.line > 0)
        g_assert_true (line_has_tag (window, node->span.line, "step-line"));
      g_assert_true (cr_graph_canvas_node_computed (canvas, (int) root->id));
    }
  /* At the end: only back. */
  g_assert_false (enabled (window, "step-forward"));
  g_assert_false (enabled (window, "step-last"));
  g_assert_true (enabled (window, "step-back"));

  /* In the middle: both ways; back from the first backward step is the
   * last forward op. */
  activate (window, "win.step-back");
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_STEPS - 2);
  g_assert_true (enabled (window, "step-forward"));
  g_assert_true (enabled (window, "step-back"));
  activate (window, "win.step-first");
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 0);
  activate (window, "win.step-back");
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, -1);
  g_assert_false (enabled (window, "step-back"));
  g_assert_false (buffer_has_tag (window, "step-line"));
  cr_ui_test_skip_forward (window);
  activate (window, "win.step-forward");
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, 0);
  activate (window, "win.step-back");
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, TOY_OPS - 1);
  /* End: the last backward step. */
  activate (window, "win.step-last");
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, TOY_STEPS - 1);
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, -1);

  /* Play from the end starts over; it advances by itself and pause stops it. */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "speed", g_variant_new_string ("2"));
  activate (window, "win.play");
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 0);
  cr_ui_test_spin (700);
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 1);
  activate (window, "win.play");
  cr_ui_test_spin (700);
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 1);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_selection (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  /* b = w1 * a is line 13. */
  const CrGraphNode *mul = find_node (model, "MulBackward0", NULL);
  g_assert_nonnull (mul);
  const CrGraphNode *node = cr_graph_model_find_line (model, 13);
  g_assert_nonnull (node);
  g_assert_cmpint (node->span.line, ==, 13);

  g_assert_false (buffer_has_tag (window, "selected-line"));
  cr_graph_canvas_set_selected (canvas, (int) node->id);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), ==, "node");
  g_assert_true (line_has_tag (window, 13, "selected-line"));
  g_assert_false (line_has_tag (window, 14, "selected-line"));
  g_assert_true (shows_text (window->inspector, node->title));

  /* A leaf: its name; its line when the model knows it. */
  const CrGraphNode *w1 = find_node (model, "w1", NULL);
  g_assert_nonnull (w1);
  cr_graph_canvas_set_selected (canvas, (int) w1->id);
  g_assert_true (shows_text (window->inspector, "w1"));
  if (w1->span.line > 0)
    g_assert_true (line_has_tag (window, w1->span.line, "selected-line"));
  g_assert_false (line_has_tag (window, 13, "selected-line"));

  /* Stepping brings the step card back. */
  activate (window, "win.step-forward");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), ==, "step");

  /* The editor's cursor selects the node of its line. */
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view));
  gtk_widget_grab_focus (GTK_WIDGET (window->source_view));
  cr_ui_test_spin (50);
  GtkTextIter iter;
  gtk_text_buffer_get_iter_at_line (buffer, &iter, 14 - 1);   /* c = w2 * a */
  gtk_text_buffer_place_cursor (buffer, &iter);
  const CrGraphNode *line14 = cr_graph_model_find_line (model, 14);
  g_assert_nonnull (line14);
  if (gtk_widget_has_focus (GTK_WIDGET (window->source_view)))
    g_assert_cmpint (cr_graph_canvas_get_selected (canvas), ==, (int) line14->id);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_rerun (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, TOY_STEPS);
  /* Warm: the next pause is the short one. */
  set_text (window, "import torch\n"
                    "x = torch.tensor(2.0, requires_grad=True)\n"
                    "y = x * x\n"
                    "y.backward()\n"
                    "print(x.grad)\n");
  double ms = wait_for_run_finished (window);
  g_test_message ("edit to shown graph: %.1f ms", ms);
  /* MulBackward0, then AccumulateGrad. */
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, 2);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (find_node (model, "MulBackward0", NULL));
  g_assert_false (window->in_error);

  GtkTextBuffer *output = gtk_text_view_get_buffer (window->output_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (output, &start, &end);
  g_autofree char *printed = gtk_text_buffer_get_text (output, &start, &end, FALSE);
  g_assert_cmpstr (printed, ==, "tensor(4.)\n");

  /* Several edits in a row: only the last text's graph shows. */
  replace_text (window, "y = x * x", "y = x * x * x");
  replace_text (window, "y = x * x * x", "y = x.exp()");
  wait_for_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (find_node (model, "ExpBackward0", NULL));
  g_assert_null (find_node (model, "MulBackward0", NULL));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_error_display (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphModel *good = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (good);
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));

  /* A syntax error on line 13: not shown at once ... */
  replace_text (window, "b = w1 * a", "b = w1 * (a");
  gint64 edited = g_get_monotonic_time ();
  cr_ui_test_spin (250);
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_false (canvas_dimmed (window));
  g_assert_false (output_contains (window, "SyntaxError"));
  g_assert_true (output_contains (window, "L = tensor(86.3125"));
  /* ... but after the pause. */
  wait_for_run_finished (window);
  g_assert_cmpint ((g_get_monotonic_time () - edited) / 1000, >=, 450);
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  const char *message = gtk_label_get_text (window->error_label);
  g_test_message ("error bar: %s", message);
  g_assert_true (strstr (message, "SyntaxError") != NULL);
  g_assert_true (output_contains (window, "SyntaxError: '(' was never closed"));
  g_assert_true (buffer_has_tag (window, "error-span"));
  g_assert_true (line_has_tag (window, 13, "error-span") || line_has_tag (window, 14, "error-span"));
  /* The last good graph stays, faded. */
  g_assert_true (canvas_dimmed (window));
  g_assert_true (cr_graph_canvas_get_model (canvas) == good);
  g_assert_true (gtk_widget_has_css_class (window->sidebar, "cr-dimmed"));
  g_assert_true (window->in_error);

  /* Fixed: cleared at once. */
  replace_text (window, "b = w1 * (a", "b = w1 * a");
  double ms = wait_for_run_finished (window);
  g_assert_cmpfloat (ms, <, 450);
  g_assert_false (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_false (buffer_has_tag (window, "error-span"));
  g_assert_false (canvas_dimmed (window));
  g_assert_false (gtk_widget_has_css_class (window->sidebar, "cr-dimmed"));
  g_assert_true (cr_graph_canvas_get_model (canvas) != good);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, TOY_STEPS);

  /* A runtime error: its line is underlined too. */
  replace_text (window, "d = w3 * b + w4 * c", "d = w3 * b + w5 * c");
  wait_for_run_finished (window);
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_true (strstr (gtk_label_get_text (window->error_label), "NameError") != NULL);
  g_assert_true (line_has_tag (window, 15, "error-span"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A notebook opens as its script with cell markers and runs as cells: the
 * cell after the failing one ran, its traceback is in the output once, and
 * the error bar names the cell. */
static void
test_notebook (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "app", "cases",
                                                 "notebook-cell-error.ipynb", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_assert_true (cr_window_open_file (window, file, NULL));
  cr_ui_test_wait_window_idle (window);
  g_autofree char *text = cr_window_get_text (window);
  g_assert_true (g_str_has_prefix (text, "# %% [markdown]\n# The second cell fails"));
  g_assert_nonnull (strstr (text, "\n# %% [2]\nprint('before')\ny.backward()\n"));
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  const char *message = gtk_label_get_text (window->error_label);
  g_test_message ("error bar: %s", message);
  g_assert_nonnull (strstr (message, "RuntimeError: grad can be implicitly created only for scalar outputs"));
  g_assert_nonnull (strstr (message, "(cell 2, line 2)"));
  /* y.backward() is line 11 of the script. */
  g_assert_true (line_has_tag (window, 11, "error-span"));
  g_assert_true (output_contains (window, "tensor([6., 6.])"));
  g_assert_true (output_contains (window, "cell 2, line 2, in <module>"));
  GtkTextBuffer *output = gtk_text_view_get_buffer (window->output_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (output, &start, &end);
  g_autofree char *all = gtk_text_buffer_get_text (output, &start, &end, FALSE);
  g_assert_true (strstr (all, "Traceback") == g_strrstr (all, "Traceback"));
  g_assert_nonnull (cr_graph_canvas_get_model (cr_window_get_canvas (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Presenting, F9 shows the script and the next steps at once: the step's
 * line is in the editor's view, a long notebook's line 156 too (the
 * README's shot showed lines 114 to 148). */
static void
test_step_line_in_view (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "notebook", "computational-graphs.ipynb", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_assert_true (cr_window_open_file (window, file, NULL));
  gtk_window_set_default_size (GTK_WINDOW (window), 1920, 1080);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  cr_window_set_presentation (window, TRUE);
  cr_ui_test_spin (100);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "hide-editor", g_variant_new_boolean (FALSE));
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  guint n = cr_graph_canvas_get_n_steps (canvas);
  g_assert_cmpuint (n, >, 4);
  cr_graph_canvas_set_step (canvas, (int) n - 5);
  cr_ui_test_spin (200);
  const CrGraphNode *node = cr_graph_model_find_step (cr_graph_canvas_get_model (canvas), (int) n - 5);
  g_assert_nonnull (node);
  g_assert_cmpint (node->span.line, >, 100);
  g_assert_true (line_has_tag (window, node->span.line, "step-line"));
  GtkTextView *view = GTK_TEXT_VIEW (window->source_view);
  GtkTextIter at;
  gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (view), &at, node->span.line - 1);
  int y, height;
  gtk_text_view_get_line_yrange (view, &at, &y, &height);
  GtkAdjustment *v = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  g_test_message ("line %d at %d..%d, view %g..%g", node->span.line, y, y + height,
                  gtk_adjustment_get_value (v), gtk_adjustment_get_value (v) + gtk_adjustment_get_page_size (v));
  g_assert_cmpfloat (y, >=, gtk_adjustment_get_value (v));
  g_assert_cmpfloat (y + height, <=, gtk_adjustment_get_value (v) + gtk_adjustment_get_page_size (v));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_script_error (void)
{
  CrWindow *window = cr_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (g_getenv ("CR_TEST_BAD_SCRIPT"));
  g_assert_true (cr_window_open_file (window, file, NULL));
  cr_ui_test_wait_window_idle (window);
  /* No tensor requires grad before the error: no graph, nothing to step, and
   * nothing to keep, so the error shows at once. */
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_null (cr_graph_canvas_get_model (canvas));
  g_assert_false (enabled (window, "step-forward"));
  g_assert_false (enabled (window, "step-back"));
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_true (strstr (gtk_label_get_text (window->error_label), "ValueError: boom") != NULL);
  g_assert_true (line_has_tag (window, 2, "error-span"));
  g_assert_true (gtk_widget_get_visible (window->empty_page));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_presentation (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  gboolean presentation = FALSE;

  activate (window, "win.presentation");
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "presentation");
  g_assert_true (g_variant_get_boolean (state));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->header_bar)));
  g_object_get (canvas, "presentation", &presentation, NULL);
  g_assert_true (presentation);
  g_assert_true (gtk_revealer_get_reveal_child (window->hint_revealer));
  /* The graph and the steps are shown, not the controls. */
  g_assert_false (gtk_widget_get_visible (window->zoom_bar));
  g_assert_false (gtk_widget_get_visible (window->editor_switcher_bar));
  g_assert_false (gtk_widget_get_visible (window->stepper_buttons));
  /* The step's label heads the step card, off the graph. */
  g_assert_false (gtk_widget_get_visible (window->stepper_bar));
  g_assert_true (gtk_widget_get_visible (window->present_header));
  /* The start-up hint shows in the step label's place, not through it. */
  g_assert_cmpfloat (gtk_widget_get_opacity (gtk_overlay_get_child (GTK_OVERLAY (window->present_header))),
                     ==, 0.0);
  /* The script is hidden: the graph and the card have the room. */
  g_assert_false (gtk_widget_get_visible (window->editor_column));
  /* A re-run (an edit, another call) keeps the controls hidden. */
  cr_window_show_model (window, 0);
  g_assert_false (gtk_widget_get_visible (window->zoom_bar));
  g_assert_false (gtk_widget_get_visible (window->stepper_bar));

  /* F9 shows the script; stepping still works. */
  activate (window, "win.hide-editor");
  g_assert_true (gtk_widget_get_visible (window->editor_column));
  activate (window, "win.step-forward");
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 0);

  activate (window, "win.presentation");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (window), "presentation"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->header_bar)));
  g_assert_true (gtk_widget_get_visible (window->editor_column));
  g_assert_true (gtk_widget_get_visible (window->zoom_bar));
  g_assert_true (gtk_widget_get_visible (window->editor_switcher_bar));
  g_assert_true (gtk_widget_get_visible (window->stepper_buttons));
  g_assert_true (gtk_widget_get_visible (window->stepper_bar));
  g_assert_false (gtk_widget_get_visible (window->present_header));
  g_object_get (canvas, "presentation", &presentation, NULL);
  g_assert_false (presentation);

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
editor_hidden (CrWindow *window)
{
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window), "hide-editor");
  return g_variant_get_boolean (state);
}

/* Outside presentation mode too, the header bar's button and F9 hide the
 * script, and the graph gets its room; the panes start in proportion. */
static void
test_editor_toggle (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  cr_ui_test_spin (300);
  int width = gtk_widget_get_width (GTK_WIDGET (window->outer_paned));
  g_assert_cmpint (width, >, 0);
  /* The script about 30 %, the sidebar a fixed readable width. */
  g_assert_cmpint (abs (gtk_paned_get_position (window->outer_paned) - width * 3 / 10), <=, 10);
  g_assert_cmpint (gtk_widget_get_width (window->sidebar), >=, 300);
  g_assert_cmpint (gtk_widget_get_width (window->sidebar), <=, 420);
  int canvas_width = gtk_widget_get_width (GTK_WIDGET (window->canvas));
  g_assert_cmpint (canvas_width, >, width / 3);

  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->editor_button)));
  g_assert_true (gtk_toggle_button_get_active (window->editor_button));
  g_assert_false (editor_hidden (window));

  /* The button hides it... */
  gtk_toggle_button_set_active (window->editor_button, FALSE);
  g_assert_false (gtk_widget_get_visible (window->editor_column));
  g_assert_true (editor_hidden (window));
  cr_ui_test_spin (300);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window->canvas)), >, canvas_width + 200);

  /* ...F9's action shows it again, and the button follows. */
  activate (window, "win.hide-editor");
  g_assert_true (gtk_widget_get_visible (window->editor_column));
  g_assert_false (editor_hidden (window));
  g_assert_true (gtk_toggle_button_get_active (window->editor_button));
  activate (window, "win.hide-editor");
  g_assert_false (gtk_toggle_button_get_active (window->editor_button));

  /* Presentation keeps the choice and gives it back afterwards. */
  activate (window, "win.presentation");
  g_assert_false (gtk_widget_get_visible (window->editor_column));
  activate (window, "win.hide-editor");
  g_assert_true (gtk_widget_get_visible (window->editor_column));
  activate (window, "win.presentation");
  g_assert_false (gtk_widget_get_visible (window->editor_column));
  g_assert_false (gtk_toggle_button_get_active (window->editor_button));
  gtk_toggle_button_set_active (window->editor_button, TRUE);
  g_assert_true (gtk_widget_get_visible (window->editor_column));

  /* There is no script to hide in the gallery. */
  cr_window_show_gallery (window, TRUE);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->editor_button)));
  cr_window_show_gallery (window, FALSE);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->editor_button)));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Ctrl+plus/minus/0 zoom the editor's text while it has the keyboard (and
 * the "zoom" setting remembers it), the graph otherwise. */
static void
test_editor_zoom (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_autoptr (GSettings) settings = g_object_ref (window->settings);
  g_assert_nonnull (settings);
  g_assert_cmpfloat (window->editor_zoom, ==, 1.0);

  gtk_widget_grab_focus (GTK_WIDGET (window->source_view));
  double graph_zoom = cr_graph_canvas_get_zoom (canvas);
  activate (window, "win.zoom-in");
  g_assert_cmpfloat (window->editor_zoom, >, 1.05);
  g_assert_cmpfloat (g_settings_get_double (settings, "zoom"), ==, window->editor_zoom);
  g_assert_cmpfloat (cr_graph_canvas_get_zoom (canvas), ==, graph_zoom);
  activate (window, "win.zoom-out");
  activate (window, "win.zoom-out");
  g_assert_cmpfloat (window->editor_zoom, <, 0.95);
  for (int i = 0; i < 40; i++)
    activate (window, "win.zoom-out");
  g_assert_cmpfloat (window->editor_zoom, >=, 0.5);
  activate (window, "win.zoom-fit");
  g_assert_cmpfloat (window->editor_zoom, ==, 1.0);

  /* A change from outside (another window, gsettings) follows. */
  g_settings_set_double (settings, "zoom", 1.5);
  g_assert_cmpfloat (window->editor_zoom, ==, 1.5);
  g_settings_set_double (settings, "zoom", 50.0);
  g_assert_cmpfloat (window->editor_zoom, <=, 3.0);

  /* The graph has the keys again. */
  gtk_widget_grab_focus (GTK_WIDGET (canvas));
  double editor_zoom = window->editor_zoom;
  activate (window, "win.zoom-in");
  g_assert_cmpfloat (window->editor_zoom, ==, editor_zoom);
  cr_ui_test_spin (400);
  g_assert_cmpfloat (cr_graph_canvas_get_zoom (canvas), >, graph_zoom * 1.05);

  g_settings_reset (settings, "zoom");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_backward_calls (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  set_text (window, "import torch\n"
                    "x = torch.tensor(3.0, requires_grad=True)\n"
                    "y = x * x\n"
                    "y.backward()\n"
                    "z = (x * 2).exp().sin()\n"
                    "z.backward()\n");
  wait_for_run_finished (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->call_dropdown)));
  GListModel *items = gtk_drop_down_get_model (window->call_dropdown);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 2);
  /* The last call first. */
  g_assert_cmpuint (gtk_drop_down_get_selected (window->call_dropdown), ==, 1);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (find_node (model, "SinBackward0", NULL));
  /* Numbered, so that the calls of a loop are told apart. */
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 1), ==,
                   "#2 · z.backward() · line 6");
  g_autofree char *title1 = cr_window_call_title (model);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 1), ==, title1);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, 4);
  /* Its story starts with the forward ops that led to it: x * 2, exp, sin. */
  g_assert_cmpuint (cr_graph_canvas_get_n_forward_steps (canvas), ==, 3);
  /* Only the call shown was built; the first is built from the same run
   * record when picked. */
  g_assert_nonnull (window->run_record);
  g_assert_true (model->record == window->run_record);
  g_assert_null (g_ptr_array_index (window->models, 0));

  activate (window, "win.step-forward");
  gtk_drop_down_set_selected (window->call_dropdown, 0);
  model = cr_graph_canvas_get_model (canvas);
  g_assert_true (g_ptr_array_index (window->models, 0) == model);
  g_assert_true (model->record == window->run_record);
  g_assert_cmpint (model->backward, ==, 0);
  g_assert_null (find_node (model, "SinBackward0", NULL));
  g_assert_nonnull (find_node (model, "MulBackward0", NULL));
  g_autofree char *title0 = cr_window_call_title (model);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 0), ==, title0);
  g_assert_true (g_str_has_prefix (title0, "#1 · "));
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, 2);
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, -1);
  g_assert_true (enabled (window, "step-forward"));
  /* The first call's story: y = x * x, then its backward. */
  g_assert_cmpuint (cr_graph_canvas_get_n_forward_steps (canvas), ==, 1);
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, -1);
  activate (window, "win.step-first");
  g_assert_true (g_str_has_prefix (gtk_label_get_text (window->step_label), "Forward 1 of 1 · MulBackward0"));

  /* Back to one call: the selector goes. */
  set_text (window, "import torch\nx = torch.tensor(3.0, requires_grad=True)\n(x * x).backward()\n");
  wait_for_run_finished (window);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->call_dropdown)));
  /* An edit that keeps the forward pass as long keeps its step. */
  g_assert_cmpstr (gtk_label_get_text (window->step_label), ==, "Forward 1 of 1 · MulBackward0");
  activate (window, "win.step-back");
  g_assert_cmpstr (gtk_label_get_text (window->step_label), ==,
                   "Before forward · 1 op, then 2 backward steps");

  /* A leaf's own backward is one step, and says so in the singular. */
  set_text (window, "import torch\nx = torch.tensor(3.0, requires_grad=True)\nx.backward()\n");
  wait_for_run_finished (window);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (cr_window_get_canvas (window)), ==, 1);
  g_assert_cmpstr (gtk_label_get_text (window->step_label), ==, "Before backward · 1 step");

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_expression (void)
{
  CrWindow *window = open_example ("01-toy-network.py");
  CrGraphCanvas *canvas = cr_window_get_canvas (window);

  gtk_stack_set_visible_child_name (window->editor_stack, "expression");
  cr_expression_panel_set_formula (CR_EXPRESSION_PANEL (window->expression_panel), "a*b + c");
  wait_for_run_finished (window);
  cr_ui_test_wait_window_idle (window);
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  g_assert_nonnull (model);
  g_assert_nonnull (find_node (model, "MulBackward0", NULL));
  g_assert_nonnull (find_node (model, "AddBackward0", NULL));
  g_assert_null (find_node (model, "SumBackward0", NULL));
  g_assert_false (window->model_from_editor);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), >, 0);
  /* The editor keeps its script. */
  g_autofree char *text = cr_window_get_text (window);
  g_assert_true (strstr (text, "L.backward()") != NULL);

  /* Back to the script: its graph again. */
  gtk_stack_set_visible_child_name (window->editor_stack, "script");
  wait_for_run_finished (window);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, TOY_STEPS);

  /* Open as script puts it in the editor. */
  g_signal_emit_by_name (window->expression_panel, "open-as-script", "import torch\nq = torch.tensor(1.0, requires_grad=True)\n(q * 3).backward()\n");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->editor_stack), ==, "script");
  /* A new script: Save must not overwrite the example. */
  g_assert_null (cr_window_get_file (window));
  g_assert_cmpstr (adw_window_title_get_subtitle (window->title), ==, "• New Script");
  wait_for_run_finished (window);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (canvas), ==, 2);
  gtk_text_buffer_set_modified (gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view)), FALSE);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_gallery (void)
{
  CrWindow *window = cr_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "gallery");
  g_assert_null (cr_window_get_file (window));
  g_assert_true (gtk_toggle_button_get_active (window->gallery_button));
  g_autofree char *path = g_build_filename (cr_examples_dir (), "03-vector-backward.py", NULL);
  /* What a click on a card does. */
  g_signal_emit_by_name (window->gallery, "example-activated", path);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "workspace");
  g_assert_nonnull (cr_window_get_file (window));
  g_assert_false (gtk_toggle_button_get_active (window->gallery_button));
  g_assert_cmpstr (adw_window_title_get_subtitle (window->title), ==, "03-vector-backward.py");
  cr_ui_test_wait_window_idle (window);
  g_assert_nonnull (cr_graph_canvas_get_model (cr_window_get_canvas (window)));

  /* An edit marks the title. */
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view));
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\n", -1);
  g_assert_cmpstr (adw_window_title_get_subtitle (window->title), ==, "• 03-vector-backward.py");
  gtk_text_buffer_set_modified (buffer, FALSE);
  cr_ui_test_wait_window_idle (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();

  g_autofree char *bad = g_build_filename (g_get_tmp_dir (), "cr-test-window-XXXXXX.py", NULL);
  int fd = g_mkstemp (bad);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (bad, "x = 1\nraise ValueError('boom')\n", -1, NULL));
  g_setenv ("CR_TEST_BAD_SCRIPT", bad, TRUE);

  g_test_add_func ("/ui/window/toy-network", test_toy_network);
  g_test_add_func ("/ui/window/selection", test_selection);
  g_test_add_func ("/ui/window/rerun", test_rerun);
  g_test_add_func ("/ui/window/error-display", test_error_display);
  g_test_add_func ("/ui/window/script-error", test_script_error);
  g_test_add_func ("/ui/window/notebook", test_notebook);
  g_test_add_func ("/ui/window/step-line-in-view", test_step_line_in_view);
  g_test_add_func ("/ui/window/presentation", test_presentation);
  g_test_add_func ("/ui/window/editor-toggle", test_editor_toggle);
  g_test_add_func ("/ui/window/editor-zoom", test_editor_zoom);
  g_test_add_func ("/ui/window/backward-calls", test_backward_calls);
  g_test_add_func ("/ui/window/expression", test_expression);
  g_test_add_func ("/ui/window/gallery", test_gallery);
  int status = g_test_run ();
  g_unlink (bad);
  return status;
}
