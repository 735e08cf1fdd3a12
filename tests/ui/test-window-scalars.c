/* test-window-scalars.c — "Inside one tensor op" in the window: a 2x2
 * matmul opened as its scalar graph over the graph (the inspector's button
 * on the selected node, and the key s on the current step's op), stepped element
 * by element with the stepper's keys (which leave the stepper alone while
 * the view shows), closed with Escape and with its button; an op too big
 * is refused with why; a new run closes the view; unbind's two outputs
 * open and step in turn. Runs under xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-scalar-view.h"
#include "cr-graph-canvas.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

static const char *script =
  "import torch\n"
  "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
  "b = torch.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)\n"
  "c = a @ b\n"
  "big = torch.ones(8, 8, requires_grad=True) * 2\n"
  "L = (c * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum() + big.sum()\n"
  "L.backward()\n";

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  (void) window;
  *finished = TRUE;
}

static CrWindow *
open_script_text (const char *text)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "chainrule-test-scalars.py", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  CrWindow *window = cr_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1366, 768);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  g_assert_true (cr_window_open_file (window, file, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  cr_ui_test_wait_window_idle (window);
  g_unlink (path);
  return window;
}

static CrWindow *
open_script (void)
{
  return open_script_text (script);
}

/* The graph node of the op with that grad_fn. */
static int
node_of (CrWindow   *window,
         const char *grad_fn)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *node = model->nodes->pdata[i];
      if (node->kind == CR_GRAPH_NODE_OP && g_strcmp0 (node->title, grad_fn) == 0)
        return (int) i;
    }
  g_error ("no %s node", grad_fn);
  return -1;
}

static GtkWidget *
find_open_button (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.open-scalars") == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_open_button (c);
      if (found)
        return found;
    }
  return NULL;
}

static gboolean
view_mapped (gpointer data)
{
  CrScalarView *view = cr_window_get_scalar_view (data);
  return view && gtk_widget_get_visible (GTK_WIDGET (view)) && gtk_widget_get_mapped (GTK_WIDGET (view));
}

/* Shown: visible, and mapped once the frame clock has run (under load a
 * frame can take a while). Hidden: at once. */
static gboolean
view_visible (CrWindow *window)
{
  CrScalarView *view = cr_window_get_scalar_view (window);
  if (!view || !gtk_widget_get_visible (GTK_WIDGET (view)))
    return FALSE;
  return cr_ui_test_wait_until (view_mapped, window, 10);
}

static void
test_open_step_close (void)
{
  CrWindow *window = open_script ();
  cr_graph_canvas_set_selected (window->canvas, node_of (window, "MmBackward0"));
  cr_ui_test_spin (50);
  /* The inspector's button on the selected op. The inspector builds its
   * page for the selection when it gets to it: press the button it shows
   * until the press lands on the page built for this selection. */
  gboolean opened = FALSE;
  for (guint tries = 0; tries < 100 && !opened; tries++)
    {
      GtkWidget *button = find_open_button (window->inspector);
      if (button && gtk_widget_get_root (button))
        gtk_widget_activate (button);
      cr_ui_test_spin (50);
      opened = cr_window_get_scalar_view (window) != NULL;
    }
  g_assert_true (opened);
  g_assert_true (view_visible (window));
  CrScalarView *view = cr_window_get_scalar_view (window);
  const CrOpScalars *scalars = cr_scalar_view_get_scalars (view);
  g_assert_nonnull (scalars);
  g_assert_cmpuint (scalars->n_sub_steps, ==, 4);
  g_assert_cmpuint (scalars->nodes->len, ==, 20);
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 0);

  /* The stepper's keys step the elements, not the stepper. */
  int step = cr_graph_canvas_get_step (window->canvas);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 2);
  g_assert_cmpint (cr_graph_canvas_get_step (window->canvas), ==, step);
  const char *text = cr_scalar_view_get_text (view);
  g_assert_nonnull (strstr (text, "c[0, 1] = a[0, 0]·b[0, 1] + a[0, 1]·b[1, 1] = 1·6 + 2·8 = 22"));
  g_assert_nonnull (strstr (text, "a[0, 0] gets 2 × b[0, 1] (6) = 12, 17 so far"));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_End));
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 4);
  g_assert_nonnull (strstr (cr_scalar_view_get_text (view), "Every element done"));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Left));
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 3);
  cr_ui_test_spin (50);

  /* Escape closes it; the stepper has its keys back. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  g_assert_false (view_visible (window));
  g_autofree char *label = g_strdup (gtk_label_get_text (window->step_label));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 3);
  g_assert_cmpstr (gtk_label_get_text (window->step_label), !=, label);

  /* The key s opens the current step's op: walk to MmBackward0's step. */
  cr_graph_canvas_set_selected (window->canvas, -1);
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  const CrGraphNode *mm = model->nodes->pdata[node_of (window, "MmBackward0")];
  cr_graph_canvas_set_step (window->canvas, mm->step);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_s));
  cr_ui_test_spin (50);
  g_assert_true (view_visible (window));
  g_assert_cmpint (cr_scalar_view_get_op (view), ==, mm->op);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-scalars", NULL));
  g_assert_false (view_visible (window));

  /* Stepping the forward pass: s opens the op computing. */
  cr_graph_canvas_set_step (window->canvas, -1);
  guint n_forward = cr_graph_canvas_get_n_forward_steps (window->canvas);
  g_assert_cmpuint (n_forward, >=, 1);
  gboolean found = FALSE;
  for (guint f = 0; f < n_forward && !found; f++)
    {
      cr_graph_canvas_set_forward_step (window->canvas, (int) f);
      found = cr_graph_canvas_get_forward_op (window->canvas) == mm->op;
    }
  g_assert_true (found);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_s));
  g_assert_true (view_visible (window));
  g_assert_cmpint (cr_scalar_view_get_op (view), ==, mm->op);
  /* Its close button. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-scalars", NULL));
  g_assert_false (view_visible (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_refused_and_rerun (void)
{
  CrWindow *window = open_script ();
  /* big * 2: 128 elements. */
  g_autoptr (GError) error = NULL;
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  int mul = -1;
  for (guint i = 0; i < model->nodes->len && mul < 0; i++)
    {
      const CrGraphNode *node = model->nodes->pdata[i];
      if (node->kind == CR_GRAPH_NODE_OP && g_strcmp0 (node->title, "MulBackward0") == 0
          && node->caption && strstr (node->caption, "big"))
        mul = node->op;
    }
  g_assert_cmpint (mul, >=, 0);
  g_assert_false (cr_window_open_scalars (window, mul, &error));
  g_assert_nonnull (strstr (error->message, "128 elements"));
  g_assert_false (view_visible (window));

  /* Open, then a new run: the view goes with the old record. */
  cr_graph_canvas_set_selected (window->canvas, node_of (window, "MmBackward0"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-scalars", NULL));
  cr_ui_test_spin (50);
  g_assert_true (view_visible (window));
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view));
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "print(L)\n", -1);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  g_assert_false (view_visible (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* unbind: an op of two outputs opens, its six elements stepped one output
 * after the other, each with its own output's incoming gradient; an input
 * the script never named is called by what made it. */
static void
test_several_outputs (void)
{
  CrWindow *window = open_script_text ("import torch\n"
                                       "x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0]], "
                                       "requires_grad=True)\n"
                                       "a, b = x.unbind(0)\n"
                                       "col = x[:, 1]\n"
                                       "L = (a * b).sum() + (col * col).sum()\n"
                                       "L.backward()\n");
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  const CrGraphNode *unbind = model->nodes->pdata[node_of (window, "UnbindBackward0")];
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_window_open_scalars (window, unbind->op, &error));
  g_assert_no_error (error);
  g_assert_true (view_visible (window));
  CrScalarView *view = cr_window_get_scalar_view (window);
  const CrOpScalars *scalars = cr_scalar_view_get_scalars (view);
  g_assert_cmpuint (scalars->n_sub_steps, ==, 6);
  for (guint i = 0; i < 4; i++)
    g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  g_assert_cmpuint (cr_scalar_view_get_position (view), ==, 4);
  /* b[0]'s gradient is a[0] = 1: b's own incoming gradient, not a's. */
  const char *text = cr_scalar_view_get_text (view);
  g_assert_nonnull (strstr (text, "b[0] = x[1, 0] = 0"));
  g_assert_nonnull (strstr (text, "∂L/∂b[0] = 1 goes back"));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_End));
  g_assert_nonnull (strstr (cr_scalar_view_get_text (view), "Every element done"));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  g_assert_false (view_visible (window));

  /* col = x[:, 1] is a slice of all of x, then a select: the select's
   * input is "x[:]", not "[SliceBackward0]". */
  const CrGraphNode *select = model->nodes->pdata[node_of (window, "SelectBackward0")];
  g_assert_true (cr_window_open_scalars (window, select->op, &error));
  g_assert_no_error (error);
  g_assert_true (view_visible (window));
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  text = cr_scalar_view_get_text (view);
  g_assert_nonnull (strstr (text, "col[0] = x[:][0, 1]"));
  g_assert_null (strstr (text, "Backward0]"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-scalars", NULL));
  g_assert_false (view_visible (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-scalars/open-step-close", test_open_step_close);
  g_test_add_func ("/window-scalars/refused-and-rerun", test_refused_and_rerun);
  g_test_add_func ("/window-scalars/several-outputs", test_several_outputs);
  return g_test_run ();
}
