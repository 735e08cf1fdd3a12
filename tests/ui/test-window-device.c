/* test-window-device.c — the window's device selector: with CUDA available
 * it offers CUDA, and choosing it re-runs the script with tensors made on
 * "cuda:0"; the model's nodes, its step records and the inspector say so, the
 * gradients are the CPU run's, and choosing the CPU again goes back. Runs
 * under xvfb-run against tests/gpu's mock CUDA module (host memory, with its
 * guard: host code that reads "device" memory crashes), named by the env of
 * the test (CHAINRULE_CUDA_MODULE); skips without CUDA. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-device.h"
#include "cr-examples.h"
#include "cr-expression-panel.h"
#include "ui-test-gui.h"

#include <gtksourceview/gtksource.h>
#include <math.h>
#include <string.h>

#define DEVICE_CPU  0
#define DEVICE_CUDA 1

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  *finished = TRUE;
}

/* Selects the device at position and waits for the re-run it brings. */
static void
select_device_and_wait (CrWindow *window,
                        guint     position)
{
  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  gtk_drop_down_set_selected (window->device_dropdown, position);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  cr_ui_test_wait_window_idle (window);
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

static const CrGraphModel *
shown_model (CrWindow *window)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  g_assert_nonnull (model);
  g_assert_true (model->succeeded);
  return model;
}

static void
assert_snapshot_on (const CrTensorSnapshot *s,
                    const char             *device)
{
  if (s)
    g_assert_cmpstr (s->device, ==, device);
}

/* Every tensor of the model is on device: leaves (node and inspector info,
 * value and .grad) and every snapshot of every step. Returns the leaves. */
static guint
assert_model_on (const CrGraphModel *model,
                 const char         *device)
{
  guint n_leaves = 0;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind != CR_GRAPH_NODE_LEAF)
        continue;
      n_leaves++;
      g_assert_cmpstr (n->device, ==, device);
      /* The record's tensor (what the inspector shows), its value and its
       * .grad at the end of the call. */
      const CrRecordTensor *t = g_ptr_array_index (model->record->tensors, n->tensor);
      const CrRecordBackward *call = cr_graph_model_get_backward (model);
      const CrTensorSnapshot *grad = cr_run_record_grad_at (model->record, n->tensor, model->backward,
                                                            (int) call->steps->len - 1);
      g_assert_cmpstr (t->device, ==, device);
      g_assert_nonnull (t->value);
      g_assert_nonnull (grad);
      assert_snapshot_on (t->value, device);
      assert_snapshot_on (grad, device);
      /* The numbers were read (through a copy to the host on CUDA). */
      g_assert_cmpint (t->value->n_values, ==, t->value->numel);
      g_assert_nonnull (cr_tensor_snapshot_get_text (t->value));
      g_assert_nonnull (n->preview);
    }
  g_assert_cmpuint (model->n_steps, >, 0);
  for (guint i = 0; i < model->n_steps; i++)
    {
      const CrRecordStep *step = cr_graph_model_get_record_step (model, (int) i);
      for (guint k = 0; k < step->incoming->len; k++)
        assert_snapshot_on (((CrRecordGrad *) g_ptr_array_index (step->incoming, k))->value, device);
      for (guint k = 0; k < step->inputs->len; k++)
        {
          const CrRecordStepInput *in = g_ptr_array_index (step->inputs, k);
          assert_snapshot_on (in->local, device);
          assert_snapshot_on (in->outgoing.value, device);
        }
      for (guint k = 0; k < step->accumulations->len; k++)
        {
          const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, k);
          assert_snapshot_on (acc->contribution, device);
          assert_snapshot_on (acc->sum, device);
        }
      assert_snapshot_on (step->grad_before, device);
      if (step->kind == CR_RECORD_STEP_ACCUMULATE)
        {
          g_assert_nonnull (step->grad_after);
          g_assert_cmpstr (step->grad_after->device, ==, device);
        }
    }
  return n_leaves;
}

/* Each leaf's gradient as its AccumulateGrad step wrote it: name → GArray of
 * double (owned). */
static GHashTable *
leaf_grads (const CrGraphModel *model)
{
  GHashTable *grads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < model->n_steps; i++)
    {
      const CrRecordStep *step = cr_graph_model_get_record_step (model, (int) i);
      if (step->kind != CR_RECORD_STEP_ACCUMULATE)
        continue;
      const CrRecordTensor *leaf = g_ptr_array_index (model->record->tensors, step->leaf);
      const CrTensorSnapshot *s = step->grad_after;
      g_assert_cmpint (s->n_values, ==, s->numel);
      GArray *values = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) s->n_values);
      g_array_append_vals (values, s->values, (guint) s->n_values);
      g_hash_table_insert (grads, g_strdup (leaf->label), values);
    }
  return grads;
}

static void
assert_same_grads (GHashTable *expected,
                   GHashTable *got)
{
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (expected));
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, expected);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *want = value;
      GArray *have = g_hash_table_lookup (got, key);
      g_assert_nonnull (have);
      g_assert_cmpuint (have->len, ==, want->len);
      for (guint i = 0; i < want->len; i++)
        g_assert_cmpfloat_with_epsilon (g_array_index (have, double, i),
                                        g_array_index (want, double, i),
                                        1e-5 * MAX (1.0, fabs (g_array_index (want, double, i))));
    }
}

/* The text of the row titled title under widget (its suffix label), or NULL. */
static const char *
row_text (GtkWidget  *widget,
          const char *title)
{
  if (ADW_IS_ACTION_ROW (widget)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    {
      /* The suffix is the row's only label that is not its title. */
      GtkWidget *stack[64];
      int top = 0;
      stack[top++] = widget;
      while (top > 0)
        {
          GtkWidget *w = stack[--top];
          if (GTK_IS_LABEL (w) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), title) != 0
              && *gtk_label_get_text (GTK_LABEL (w)))
            return gtk_label_get_text (GTK_LABEL (w));
          for (GtkWidget *c = gtk_widget_get_first_child (w); c && top < 64; c = gtk_widget_get_next_sibling (c))
            stack[top++] = c;
        }
      return NULL;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *text = row_text (child, title);
      if (text)
        return text;
    }
  return NULL;
}

static const CrGraphNode *
find_leaf (const CrGraphModel *model,
           const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (node->kind == CR_GRAPH_NODE_LEAF && g_strcmp0 (node->title, title) == 0)
        return node;
    }
  return NULL;
}

/* Selects leaf `leaf` and checks that the inspector's .device row says device. */
static void
assert_inspector_on (CrWindow   *window,
                     const char *leaf,
                     const char *device)
{
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  const CrGraphNode *node = find_leaf (shown_model (window), leaf);
  g_assert_nonnull (node);
  cr_graph_canvas_set_selected (canvas, (int) node->id);
  cr_ui_test_iterate ();
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), ==, "node");
  g_assert_true (shows_text (window->inspector, leaf));
  g_assert_cmpstr (row_text (window->inspector, ".device"), ==, device);
  cr_graph_canvas_set_selected (canvas, -1);
}

static void
test_toy_network_on_cuda (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);

  /* The selector offers CUDA. */
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (window->device_dropdown)));
  GListModel *devices = gtk_drop_down_get_model (window->device_dropdown);
  g_assert_cmpuint (g_list_model_get_n_items (devices), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (devices), DEVICE_CUDA), ==, "CUDA");
  g_assert_cmpuint (gtk_drop_down_get_selected (window->device_dropdown), ==, DEVICE_CPU);

  /* The CPU run first: what CUDA must reproduce. */
  const CrGraphModel *model = shown_model (window);
  g_assert_cmpuint (assert_model_on (model, "cpu"), ==, 5);
  g_autoptr (GHashTable) cpu_grads = leaf_grads (model);
  g_assert_cmpuint (g_hash_table_size (cpu_grads), ==, 5);
  guint n_steps = model->n_steps;

  select_device_and_wait (window, DEVICE_CUDA);
  model = shown_model (window);
  g_assert_cmpuint (model->n_steps, ==, n_steps);
  g_assert_cmpuint (assert_model_on (model, "cuda:0"), ==, 5);
  g_autoptr (GHashTable) cuda_grads = leaf_grads (model);
  assert_same_grads (cpu_grads, cuda_grads);
  assert_inspector_on (window, "w1", "cuda:0");
  /* The script's prints say where its tensors are. */
  GtkTextBuffer *output = gtk_text_view_get_buffer (window->output_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (output, &start, &end);
  g_autofree char *printed = gtk_text_buffer_get_text (output, &start, &end, FALSE);
  g_assert_nonnull (strstr (printed, "device='cuda:0'"));

  /* Stepping on CUDA: every step's card is built from the model's snapshots. */
  for (guint i = 0; i < n_steps; i++)
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-forward", NULL));
  g_assert_cmpint (cr_graph_canvas_get_step (cr_window_get_canvas (window)), ==, (int) n_steps - 1);

  /* Back to the CPU. */
  select_device_and_wait (window, DEVICE_CPU);
  model = shown_model (window);
  g_assert_cmpuint (assert_model_on (model, "cpu"), ==, 5);
  g_autoptr (GHashTable) again = leaf_grads (model);
  assert_same_grads (cpu_grads, again);
  assert_inspector_on (window, "w1", "cpu");
  gtk_text_buffer_get_bounds (output, &start, &end);
  g_autofree char *printed_cpu = gtk_text_buffer_get_text (output, &start, &end, FALSE);
  g_assert_null (strstr (printed_cpu, "cuda"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_expression_on_cuda (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 0, 0);
  select_device_and_wait (window, DEVICE_CUDA);

  gboolean finished = FALSE;
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  gtk_stack_set_visible_child_name (window->editor_stack, "expression");
  cr_expression_panel_set_formula (CR_EXPRESSION_PANEL (window->expression_panel), "a*b + c");
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  cr_ui_test_wait_window_idle (window);

  const CrGraphModel *model = shown_model (window);
  g_assert_false (window->model_from_editor);
  g_assert_cmpuint (assert_model_on (model, "cuda:0"), ==, 3);
  assert_inspector_on (window, "a", "cuda:0");

  /* Its CPU run has the same gradients. */
  g_autoptr (GHashTable) cuda_grads = leaf_grads (model);
  select_device_and_wait (window, DEVICE_CPU);
  model = shown_model (window);
  g_assert_false (window->model_from_editor);
  g_assert_cmpuint (assert_model_on (model, "cpu"), ==, 3);
  g_autoptr (GHashTable) cpu_grads = leaf_grads (model);
  assert_same_grads (cpu_grads, cuda_grads);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();
  if (!cr_cuda_is_available ())
    {
      /* TAP's whole-file skip: the suite stays green without CUDA. */
      const char *why = cr_cuda_unavailable_reason ();
      g_print ("1..0 # SKIP no CUDA (%s)\n", why ? why : "not built");
      return 0;
    }
  g_test_add_func ("/ui/window-device/toy-network", test_toy_network_on_cuda);
  g_test_add_func ("/ui/window-device/expression", test_expression_on_cuda);
  return g_test_run ();
}
