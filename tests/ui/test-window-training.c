/* test-window-training.c — the Training page: its loss curve has one point
 * per backward call, a click on a point picks that call (the view's mark,
 * its updates told, the window's picker and graph), and so do its keys
 * once it has the focus; the element picker's cells and index spins choose
 * the element the rules tell; a script without a loop hides the page. An
 * optimizer step's rows fit the sidebar and break as a person would; a
 * parameter of 16 columns is pickable from a scrolling grid, by the
 * keyboard too; presentation's type scales the curve and the picker; the
 * focused curve keeps its arrows from Practice's reveal. Runs under
 * xvfb-run. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-step-card-practice.h"
#include "cr-training-arithmetic.h"
#include "cr-training-element.h"
#include "cr-training-rules.h"
#include "cr-training-step.h"
#include "cr-training-view.h"
#include "ui-test-gui.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

static CrTrainingView *
training_view_of (CrWindow *window)
{
  return CR_TRAINING_VIEW (window->training_view);
}

static gboolean
laid_out (gpointer data)
{
  double x, y;
  return cr_training_view_get_point_position (data, 0, &x, &y);
}

static void
picked_cb (CrTrainingView *view,
           int             backward,
           int            *out)
{
  *out = backward;
}

/* The MLP example trains 201 iterations with SGD: 201 points, and each
 * point clicked picks its call. */
static void
test_mlp_points (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  g_assert_nonnull (window->run_record);
  guint n_calls = window->run_record->backwards->len;
  g_assert_cmpuint (n_calls, ==, 201);
  /* "step   0  loss 0.2388" every 40 steps: six losses, six step counts. */
  g_assert_cmpuint (window->run_record->printed->len, ==, 12);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), ==, "training");
  CrTrainingView *view = training_view_of (window);
  g_assert_cmpuint (cr_training_view_get_n_points (view), ==, n_calls);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  /* The last call is shown first, and marked. */
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, (int) n_calls - 1);

  int picked = -1;
  gulong handler = g_signal_connect (view, "backward-picked", G_CALLBACK (picked_cb), &picked);
  guint probes[] = { 0, 1, 57, 100, 200 };
  for (guint k = 0; k < G_N_ELEMENTS (probes); k++)
    {
      double x, y;
      g_assert_true (cr_training_view_get_point_position (view, probes[k], &x, &y));
      g_assert_cmpint (cr_training_view_click (view, x, y), ==, (int) probes[k]);
      g_assert_cmpint (picked, ==, (int) probes[k]);
      g_assert_cmpint (cr_training_view_get_chosen (view), ==, (int) probes[k]);
      /* The window follows: the picker's call and the graph's. */
      g_assert_cmpuint (window->model_index, ==, probes[k]);
      g_assert_cmpuint (gtk_drop_down_get_selected (window->call_dropdown), ==, probes[k]);
      g_autofree char *step = g_strdup_printf ("SGD step %u", probes[k] + 1);
      g_assert_nonnull (strstr (cr_training_view_get_text (view), step));
    }
  /* The picker moves the mark too. */
  gtk_drop_down_set_selected (window->call_dropdown, 3);
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 3);
  /* Far above the plot, no point. */
  g_assert_cmpint (cr_training_view_click (view, 10, -100), ==, -1);
  g_signal_handler_disconnect (view, handler);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A few Adam steps, each point its own call; the text tells the moments. */
static void
test_adam_script (void)
{
  g_autofree char *path = NULL;
  CrWindow *window = cr_ui_test_open_script ("chainrule-test-training.py",
    "import torch\n"
    "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
    "opt = torch.optim.Adam([w], lr=0.1)\n"
    "for i in range(4):\n"
    "    loss = (w ** 2).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n", 1366, 768, &path);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  g_assert_cmpuint (cr_training_view_get_n_points (view), ==, 4);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  double x, y;
  g_assert_true (cr_training_view_get_point_position (view, 1, &x, &y));
  g_assert_cmpint (cr_training_view_click (view, x, y), ==, 1);
  const char *text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "w · Adam step 2"));
  /* w has two elements: the picker shows. */
  g_assert_true (gtk_widget_get_visible (cr_training_view_get_element_picker (view)));
  g_assert_nonnull (strstr (text, "m ← β₁·m + (1−β₁)·g"));
  g_assert_nonnull (strstr (text, "m̂ = m / (1 − β₁ᵗ)"));
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

/* A key as it reaches the focused curve. TRUE: the curve took it. */
static gboolean
press_on_curve (CrWindow       *window,
                CrTrainingView *view,
                guint           keyval,
                GdkModifierType state)
{
  /* Capture phase: the window's controllers (the stepper) see it first and
   * must let it through; the window's bubble phase comes after the curve. */
  g_autoptr (GListModel) window_controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (window_controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (window_controllers, i);
      if (!GTK_IS_EVENT_CONTROLLER_KEY (c) || gtk_event_controller_get_propagation_phase (c) != GTK_PHASE_CAPTURE)
        continue;
      gboolean handled = FALSE;
      g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
      g_assert_false (handled);
    }
  GtkWidget *curve = cr_training_view_get_curve (view);
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (curve);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (!GTK_IS_EVENT_CONTROLLER_KEY (c))
        continue;
      gboolean handled = FALSE;
      g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
      return handled;
    }
  g_assert_not_reached ();
}

/* The curve from the keyboard: Shift+Ctrl+T gives it the keys, a slider to
 * assistive technologies; Left/Right/Home/End move the page's call, Enter
 * explores it in the window as a click does. */
static void
test_curve_keys (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  /* Shift+Ctrl+T opens the page with the keys on its curve. */
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (window->canvas)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  GtkWidget *curve = cr_training_view_get_curve (view);
  g_assert_true (gtk_widget_get_focusable (curve));
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (curve)), ==, GTK_ACCESSIBLE_ROLE_SLIDER);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == curve);
  int picked = -1;
  gulong handler = g_signal_connect (view, "backward-picked", G_CALLBACK (picked_cb), &picked);

  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 200);
  g_assert_true (press_on_curve (window, view, GDK_KEY_Home, 0));
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 0);
  g_assert_nonnull (strstr (cr_training_view_get_text (view), "SGD step 1,"));
  g_assert_true (press_on_curve (window, view, GDK_KEY_Right, 0));
  g_assert_true (press_on_curve (window, view, GDK_KEY_Right, 0));
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 2);
  g_assert_true (press_on_curve (window, view, GDK_KEY_Right, GDK_SHIFT_MASK));
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 12);
  g_assert_true (press_on_curve (window, view, GDK_KEY_Left, 0));
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 11);
  g_assert_nonnull (strstr (cr_training_view_get_text (view), "SGD step 12,"));
  /* Moving is the page's; the window's call stays until Enter. */
  g_assert_cmpint (picked, ==, -1);
  g_assert_cmpuint (window->model_index, ==, 200);
  g_assert_true (press_on_curve (window, view, GDK_KEY_Return, 0));
  g_assert_cmpint (picked, ==, 11);
  g_assert_cmpuint (window->model_index, ==, 11);
  g_assert_cmpuint (gtk_drop_down_get_selected (window->call_dropdown), ==, 11);
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 11);
  /* The ends hold. */
  g_assert_true (press_on_curve (window, view, GDK_KEY_End, 0));
  g_assert_true (press_on_curve (window, view, GDK_KEY_Right, 0));
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 200);
  /* Keys it does not know go on (to the stepper's p, the window's F9). */
  g_assert_false (press_on_curve (window, view, GDK_KEY_x, 0));
  g_signal_handler_disconnect (view, handler);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The spin buttons under widget, in order. */
static void
find_spins (GtkWidget *widget,
            GPtrArray *spins)
{
  if (GTK_IS_SPIN_BUTTON (widget))
    {
      g_ptr_array_add (spins, widget);
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    find_spins (c, spins);
}

/* The element picker: a cell of W1's grid, or its index spins, pick the
 * element whose numbers the rule shows; each parameter keeps its own, also
 * when the same loop comes back in a new record (a re-run). */
static void
test_element_picker (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1366, 768);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  CrTrainingElement *picker = CR_TRAINING_ELEMENT (cr_training_view_get_element_picker (view));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (picker)));
  g_assert_cmpuint (cr_training_element_get_param (picker), ==, 0);
  const char *text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "W1[0, 0]:"));

  /* The page never widens the sidebar: it is 305 px at 1366x768, the
   * page's margins and a scrollbar's room taken off. */
  int min_width = 0;
  gtk_widget_measure (GTK_WIDGET (view), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_assert_cmpint (min_width, <=, 280);
  /* W1 is 2×4: eight cells; the sixth is W1[1, 1]. */
  g_assert_nonnull (cr_training_element_get_cell (picker, 7));
  g_assert_null (cr_training_element_get_cell (picker, 8));
  GtkWidget *cell = cr_training_element_get_cell (picker, 5);
  g_assert_true (GTK_IS_TOGGLE_BUTTON (cell));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (cell), TRUE);
  g_assert_cmpint (cr_training_element_get_element (picker, 0), ==, 5);
  text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "W1[1, 1]:"));
  g_assert_null (strstr (text, "W1[0, 0]:"));
  /* The other parameters keep theirs. */
  g_assert_nonnull (strstr (text, "b1[0]:"));
  g_assert_false (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (cr_training_element_get_cell (picker, 0))));
  /* The cell's value is W1[1, 1] after the chosen call's update. */
  const CrRunRecord *record0 = window->run_record;
  const CrRecordUpdate *last_w1 = NULL;
  for (guint u = 0; u < record0->updates->len; u++)
    {
      const CrRecordUpdate *update = g_ptr_array_index (record0->updates, u);
      if (g_strcmp0 (update->name, "W1") == 0 && update->backward == cr_training_view_get_chosen (view))
        last_w1 = update;
    }
  g_assert_nonnull (last_w1);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (number, sizeof number, "%.3g", cr_training_value_at (last_w1->after, 5));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (cell)), ==, number);

  /* b1, through the drop-down's pick, element 3; W1 keeps 5. */
  cr_training_element_pick (picker, 1, 3);
  g_assert_cmpuint (cr_training_element_get_param (picker), ==, 1);
  text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "b1[3]:"));
  g_assert_nonnull (strstr (text, "W1[1, 1]:"));
  /* Past the end: the last element. */
  cr_training_element_pick (picker, 1, 99);
  g_assert_cmpint (cr_training_element_get_element (picker, 1), ==, 3);

  /* The index spins: W1[0, 2]. */
  cr_training_element_pick (picker, 0, 5);
  g_autoptr (GPtrArray) spins = g_ptr_array_new ();
  find_spins (GTK_WIDGET (picker), spins);
  g_assert_cmpuint (spins->len, ==, 2);
  GtkWidget *row_spin = spins->pdata[0];
  GtkWidget *column_spin = spins->pdata[1];
  /* Side by side, with room to spare for a theme's wider spins (GTK's own
   * Adwaita, GTK_THEME=Adwaita:dark, adds 6 px to each). */
  cr_ui_test_spin (100);
  GtkWidget *spin_row = gtk_widget_get_ancestor (row_spin, GTK_TYPE_FLOW_BOX);
  graphene_rect_t row_at, column_at;
  g_assert_true (gtk_widget_compute_bounds (row_spin, spin_row, &row_at));
  g_assert_true (gtk_widget_compute_bounds (column_spin, spin_row, &column_at));
  g_assert_cmpfloat (row_at.origin.y, ==, column_at.origin.y);
  int needed = gtk_flow_box_get_column_spacing (GTK_FLOW_BOX (spin_row));
  for (guint i = 0; i < 2; i++)
    {
      int width = 0;
      gtk_widget_measure (gtk_widget_get_parent (spins->pdata[i]), GTK_ORIENTATION_HORIZONTAL, -1,
                          &width, NULL, NULL, NULL);
      needed += width;
    }
  g_test_message ("the index spins need %d px of the row's %d", needed, gtk_widget_get_width (spin_row));
  g_assert_cmpint (gtk_widget_get_width (spin_row) - needed, >=, 2 * 8);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (row_spin)), ==, 1);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (column_spin)), ==, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (row_spin), 0);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (column_spin), 2);
  g_assert_cmpint (cr_training_element_get_element (picker, 0), ==, 2);
  g_assert_nonnull (strstr (cr_training_view_get_text (view), "W1[0, 2]:"));
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (cr_training_element_get_cell (picker, 2))));

  /* The same loop in a new record: the picks stay. */
  CrRunRecord *record = cr_run_record_ref (window->run_record);
  cr_training_view_set_record (view, NULL, -1);
  cr_training_view_set_record (view, record, 4);
  cr_run_record_unref (record);
  g_assert_cmpuint (cr_training_element_get_param (picker), ==, 0);
  g_assert_cmpint (cr_training_element_get_element (picker, 0), ==, 2);
  g_assert_cmpint (cr_training_element_get_element (picker, 1), ==, 3);
  g_assert_nonnull (strstr (cr_training_view_get_text (view), "W1[0, 2]:"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Parameters of one number each: no element to pick. An optimizer whose
 * rule is not told says so. */
static void
test_scalars_untold (void)
{
  g_autofree char *path = NULL;
  CrWindow *window = cr_ui_test_open_script ("chainrule-test-training-untold.py",
    "import torch\n"
    "w = torch.tensor(1.5, requires_grad=True)\n"
    "b = torch.tensor(-0.5, requires_grad=True)\n"
    "opt = torch.optim.Adadelta([w, b], lr=0.5)\n"
    "for i in range(3):\n"
    "    loss = (w * 2.0 + b - 1.0) ** 2\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n", 1366, 768, &path);
  CrTrainingView *view = training_view_of (window);
  g_assert_cmpuint (cr_training_view_get_n_points (view), ==, 3);
  g_assert_false (gtk_widget_get_visible (cr_training_view_get_element_picker (view)));
  const char *text = cr_training_view_get_text (view);
  g_assert_nonnull (strstr (text, "Adadelta: this optimizer's rule is not told"));
  g_assert_null (strstr (text, "←"));
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

/* One backward call and no update: no Training page. */
static void
test_no_loop (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  GtkWidget *scroller = gtk_widget_get_ancestor (window->training_view, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_false (gtk_stack_page_get_visible (gtk_stack_get_page (window->sidebar_stack, scroller)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->sidebar_stack), !=, "training");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- an optimizer step's rows (cr-training-step.c) ---------------------------- */

/* A window with script (in a temporary file) open and its Training page
 * shown; the caller removes the file (cr_ui_test_remove_script). */
static CrWindow *
open_script (const char *script,
             char      **path,
             int         width,
             int         height)
{
  CrWindow *window = cr_ui_test_open_script ("chainrule-test-training-rows.py", script, width, height,
                                             path);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  g_assert_true (cr_ui_test_wait_until (laid_out, training_view_of (window), 10));
  cr_ui_test_spin (200);
  return window;
}

static void
find_with_class (GtkWidget  *widget,
                 const char *css_class,
                 GPtrArray  *out)
{
  if (gtk_widget_has_css_class (widget, css_class))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    find_with_class (c, css_class, out);
}

/* Each line of a list after its first starts after ", " or ": ".
 * Returns how many lines it has. */
static int
assert_list_breaks (GtkLabel *label)
{
  const char *text = gtk_label_get_text (label);
  PangoLayout *layout = gtk_label_get_layout (label);
  int n = pango_layout_get_line_count (layout);
  for (int i = 1; i < n; i++)
    {
      int start = pango_layout_get_line_readonly (layout, i)->start_index;
      g_assert_cmpint (start, >=, 2);
      if (!(text[start - 1] == ' ' && (text[start - 2] == ',' || text[start - 2] == ':')))
        g_error ("«%s» breaks before «%s»", text, text + start);
    }
  return n;
}

/* A width in characters, for the break finder's tests. */
static double
measure_chars (const char *text,
               guint       from,
               guint       to,
               gpointer    data)
{
  return (double) g_utf8_strlen (text + from, to - from);
}

/* The line finder alone, widths in characters: as few lines as fit;
 * between terms first, at another operator where a term is too long,
 * inside brackets only where a bracket is; never the first number alone;
 * balanced rather than filled; never inside a number. "old:" is what the
 * page showed before, each line filled before the next (GtkLabel's way). */
static void
test_text_lines (void)
{
  static const struct {
    const char *text;
    int         width;
    const char *lines;   /* joined by '|' */
  } cases[] = {
    { "0.9 × 0.0060046 + 0.1 × 0.028629", 40, "0.9 × 0.0060046 + 0.1 × 0.028629" },
    { "0.9 × 0.0060046 + 0.1 × 0.028629", 24, "0.9 × 0.0060046|+ 0.1 × 0.028629" },
    /* Adam's update. old: "p|− lr·m̂/(√v̂ + ε)" */
    { "p − lr·m̂/(√v̂ + ε)", 16, "p − lr·m̂|/(√v̂ + ε)" },
    /* Its arithmetic, the line starting with its '/' as with the other
     * operators. old: "-1.0959 − 0.01 × -0.24439 /|(0.24495 + 1e-08)" */
    { "-1.0959 − 0.01 × -0.24439 / (0.24495 + 1e-08)", 28,
      "-1.0959 − 0.01 × -0.24439|/ (0.24495 + 1e-08)" },
    /* Between terms alone would leave -1.0959 alone. */
    { "-1.0959 − 0.01 × -0.24439 / (0.24495 + 1e-08)", 40,
      "-1.0959 − 0.01 × -0.24439|/ (0.24495 + 1e-08)" },
    /* old: "-1.0959 − 0.01|× -0.24439 /|(0.24495 + 1e-08)" */
    { "-1.0959 − 0.01 × -0.24439 / (0.24495 + 1e-08)", 20,
      "-1.0959 − 0.01|× -0.24439|/ (0.24495 + 1e-08)" },
    /* Balanced. old: "0.5 + 0.25 + 0.125 + 0.0625|+ 0.03125" */
    { "0.5 + 0.25 + 0.125 + 0.0625 + 0.03125", 28, "0.5 + 0.25 + 0.125|+ 0.0625 + 0.03125" },
    /* A bracket breaks only when it is wider than the line. */
    { "√(1.2418e-05 − 0.00037571²) + 1e-08", 30, "√(1.2418e-05 − 0.00037571²)|+ 1e-08" },
    { "√(1.2418e-05 − 0.00037571²) + 1e-08", 22, "√(1.2418e-05|− 0.00037571²) + 1e-08" },
    { "-1.2e-05 × -3.5", 10, "-1.2e-05|× -3.5" },
    { "-1.2e-05 × -3.5", 4, "-1.2e-05|× -3.5" },
    { "max(0.00018273, 0.00023958)", 20, "max(0.00018273,|0.00023958)" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GArray) breaks = cr_training_text_breaks (cases[k].text);
      g_autoptr (GArray) starts = cr_training_text_lines (cases[k].text, breaks, cases[k].width,
                                                          measure_chars, NULL);
      GString *lines = g_string_new (NULL);
      guint from = 0;
      for (guint i = 0; i <= starts->len; i++)
        {
          guint to = i < starts->len ? g_array_index (starts, guint, i) : (guint) strlen (cases[k].text);
          guint end = to;
          while (end > from && cases[k].text[end - 1] == ' ')
            end--;
          if (i > 0)
            g_string_append_c (lines, '|');
          g_string_append_len (lines, cases[k].text + from, end - from);
          from = to;
        }
      g_test_message ("%d: %s", cases[k].width, lines->str);
      g_assert_cmpstr (lines->str, ==, cases[k].lines);
      g_string_free (lines, TRUE);
    }
}

typedef struct {
  PangoLayout *layout;   /* the text on one line, the widget's font */
  const char  *text;
  GArray      *breaks;
  double       width;
} ShownText;

static double
pixels (const ShownText *t,
        guint            from,
        guint            to)
{
  while (to > from && t->text[to - 1] == ' ')
    to--;
  PangoRectangle a, b;
  pango_layout_index_to_pos (t->layout, (int) from, &a);
  if (t->text[to])
    pango_layout_index_to_pos (t->layout, (int) to, &b);
  else
    pango_layout_get_extents (t->layout, NULL, &b), b.x = b.width;
  return (double) (b.x - a.x) / PANGO_SCALE;
}

/* Lines of t (their starts after the first, ascending) at breaks of level
 * <= level: whether they fit, how many there are, how many breaks of each
 * level, the widest, and whether the first is one number alone. */
typedef struct {
  gboolean fit;
  gboolean lone;
  guint    n_lines;
  guint    n_level[3];
  double   widest;
} LinesScore;

static LinesScore
score_lines (const ShownText *t,
             const guint     *starts,
             guint            n_starts)
{
  LinesScore score = { TRUE, FALSE, n_starts + 1, { 0 }, 0 };
  guint from = 0, end = (guint) strlen (t->text);
  for (guint i = 0; i <= n_starts; i++)
    {
      guint to = i < n_starts ? starts[i] : end;
      double w = pixels (t, from, to);
      score.widest = MAX (score.widest, w);
      score.fit = score.fit && w <= t->width + 0.5;
      from = to;
    }
  for (guint i = 0; i < n_starts; i++)
    for (guint b = 0; b < t->breaks->len; b++)
      if (g_array_index (t->breaks, CrTrainingBreak, b).offset == starts[i])
        score.n_level[g_array_index (t->breaks, CrTrainingBreak, b).level]++;
  if (n_starts > 0)
    {
      score.lone = TRUE;
      for (guint b = 0; b < t->breaks->len; b++)
        {
          guint at = g_array_index (t->breaks, CrTrainingBreak, b).offset;
          score.lone = score.lone && !(at > 0 && at < starts[0]);
        }
    }
  return score;
}

/* An arithmetic row broken as a person would, checked against every other
 * way its breaks allow (a row has a handful): it fits; its first line is
 * not one number alone; it breaks at another operator only when between
 * terms cannot fit, inside brackets only when outside them cannot; no
 * fewer lines fit at those kinds of breaks; and none of those with no more
 * breaks of each kind has a narrower widest line. Returns how many lines
 * it has. */
static guint
assert_broken_as_a_person_would (CrTrainingArithmetic *row,
                                 const char           *where)
{
  const char *text = cr_training_arithmetic_get_text (row);
  g_auto (GStrv) lines = cr_training_arithmetic_get_lines (row);
  guint n_lines = g_strv_length (lines);
  g_autoptr (GArray) breaks = cr_training_text_breaks (text);
  ShownText t = { gtk_widget_create_pango_layout (GTK_WIDGET (row), text), text, breaks,
                  gtk_widget_get_width (GTK_WIDGET (row)) };
  /* Where the lines shown start: each at a break. */
  guint starts[32], n_starts = 0;
  const char *at = text;
  for (guint i = 0; i < n_lines; i++)
    {
      const char *found = strstr (at, lines[i]);
      g_assert_nonnull (found);
      if (i > 0)
        {
          gboolean is_break = FALSE;
          for (guint b = 0; b < breaks->len; b++)
            is_break = is_break || g_array_index (breaks, CrTrainingBreak, b).offset == (guint) (found - text);
          if (!is_break)
            g_error ("%s: «%s» breaks before «%s»", where, text, found);
          g_assert_cmpuint (n_starts, <, G_N_ELEMENTS (starts));
          starts[n_starts++] = (guint) (found - text);
        }
      at = found + strlen (lines[i]);
    }
  LinesScore shown = score_lines (&t, starts, n_starts);
  guint level = shown.n_level[2] ? 2 : shown.n_level[1] ? 1 : 0;
  /* Every other choice of breaks, up to 2^12 of them. */
  g_autoptr (GArray) allowed = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint b = 0; b < breaks->len; b++)
    g_array_append_val (allowed, g_array_index (breaks, CrTrainingBreak, b).offset);
  g_assert_cmpuint (allowed->len, <=, 12);
  gboolean pieces_fit = TRUE;
  for (guint b = 0; b <= allowed->len; b++)
    pieces_fit = pieces_fit && pixels (&t, b ? g_array_index (allowed, guint, b - 1) : 0,
                                       b < allowed->len ? g_array_index (allowed, guint, b)
                                                        : (guint) strlen (text)) <= t.width + 0.5;
  if (pieces_fit && !shown.fit)
    g_error ("%s: «%s» goes past its %.0f px", where, text, t.width);
  if (n_lines > 1 && shown.lone)
    g_error ("%s: «%s» has its first number alone: «%s»", where, text, lines[0]);
  for (guint mask = 0; mask < (1u << allowed->len); mask++)
    {
      guint other[12], n_other = 0;
      for (guint b = 0; b < allowed->len; b++)
        if (mask & (1u << b))
          other[n_other++] = g_array_index (allowed, guint, b);
      LinesScore s = score_lines (&t, other, n_other);
      if (!s.fit || (s.lone && n_other > 0))
        continue;
      guint s_level = s.n_level[2] ? 2 : s.n_level[1] ? 1 : 0;
      if (s_level < level)
        g_error ("%s: «%s» breaks at a level-%u place where level %u fits (%u lines)", where, text,
                 level, s_level, s.n_lines);
      if (s_level == level && s.n_lines < n_lines)
        g_error ("%s: «%s» in %u lines where %u fit", where, text, n_lines, s.n_lines);
      if (s_level == level && s.n_lines == n_lines && s.n_level[1] <= shown.n_level[1]
          && s.n_level[2] <= shown.n_level[2] && s.widest < shown.widest - 0.5)
        g_error ("%s: «%s» is not balanced: its widest line %.0f px, %.0f px possible", where, text,
                 shown.widest, s.widest);
    }
  g_object_unref (t.layout);
  return n_lines;
}

/* Each optimizer told (SGD with momentum, Nesterov and weight decay, Adam,
 * AdamW with AMSGrad, RMSprop centered, Adagrad) at 1366x768 and in
 * presentation at 1920x1080: the step's rows fit the sidebar, each
 * arithmetic row is broken as a person would, a list only after a comma. */
static void
test_step_rows (void)
{
  static const char *const optimizers[] = {
    "SGD([W, b], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)",
    "Adam([W, b], lr=0.01)",
    "AdamW([W, b], lr=0.01, amsgrad=True)",
    "RMSprop([W, b], lr=0.01, momentum=0.5, centered=True)",
    "Adagrad([W, b], lr=0.1, lr_decay=0.01)",
  };
  static const struct {
    int      width, height;
    gboolean presenting;
  } sizes[] = { { 1366, 768, FALSE }, { 1920, 1080, TRUE } };
  for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (guint k = 0; k < G_N_ELEMENTS (optimizers); k++)
      {
        g_autofree char *script = g_strdup_printf (
          "import torch\n"
          "torch.manual_seed(0)\n"
          "W = torch.randn(2, 8, requires_grad=True)\n"
          "b = torch.zeros(8, requires_grad=True)\n"
          "x = torch.randn(5, 2)\n"
          "y = torch.randn(5, 8)\n"
          "opt = torch.optim.%s\n"
          "for i in range(4):\n"
          "    loss = ((x @ W + b - y) ** 2).mean()\n"
          "    opt.zero_grad()\n"
          "    loss.backward()\n"
          "    opt.step()\n", optimizers[k]);
        g_autofree char *path = NULL;
        CrWindow *window = open_script (script, &path, sizes[z].width, sizes[z].height);
        if (sizes[z].presenting)
          {
            g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
            g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
            cr_ui_test_spin (400);
          }
        g_autofree char *where = g_strdup_printf ("%s at %dx%d%s", optimizers[k], sizes[z].width,
                                                  sizes[z].height, sizes[z].presenting ? " presenting" : "");
        CrTrainingView *view = training_view_of (window);
        g_autoptr (GPtrArray) steps = g_ptr_array_new ();
        find_with_class (GTK_WIDGET (view), "cr-training-step", steps);
        g_assert_cmpuint (steps->len, ==, 2);   /* W and b */
        /* The page never widens the sidebar (305 px at 1366x768): nothing
         * inside is wider. */
        int min_width = 0;
        gtk_widget_measure (GTK_WIDGET (view), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
        int sidebar = gtk_widget_get_width (GTK_WIDGET (view));
        g_test_message ("%s: the page %d px, at least %d px", where, sidebar, min_width);
        g_assert_cmpint (min_width, <=, sizes[z].presenting ? sidebar : 280);
        if (!sizes[z].presenting)
          g_assert_cmpint (sidebar, <=, 305);
        g_autoptr (GPtrArray) arithmetic = g_ptr_array_new ();
        g_autoptr (GPtrArray) lists = g_ptr_array_new ();
        find_with_class (GTK_WIDGET (view), "cr-training-arithmetic", arithmetic);
        find_with_class (GTK_WIDGET (view), "cr-training-list", lists);
        g_assert_cmpuint (arithmetic->len, >, 4);
        int wrapped = 0;
        for (guint i = 0; i < arithmetic->len; i++)
          {
            GtkWidget *row = arithmetic->pdata[i];
            g_assert_cmpint (gtk_widget_get_width (row), <=, sidebar);
            wrapped += assert_broken_as_a_person_would (CR_TRAINING_ARITHMETIC (row), where) > 1;
          }
        for (guint i = 0; i < lists->len; i++)
          wrapped += assert_list_breaks (GTK_LABEL (lists->pdata[i])) > 1;
        /* A step's heading breaks between its parts, never inside its
         * shape ("shape [2, 8]"). */
        g_autoptr (GPtrArray) titles = g_ptr_array_new ();
        find_with_class (GTK_WIDGET (view), "cr-training-step-title", titles);
        g_assert_cmpuint (titles->len, ==, 2);
        for (guint i = 0; i < titles->len; i++)
          {
            const char *text = gtk_label_get_text (titles->pdata[i]);
            PangoLayout *layout = gtk_label_get_layout (titles->pdata[i]);
            for (int l = 1; l < pango_layout_get_line_count (layout); l++)
              {
                int start = pango_layout_get_line_readonly (layout, l)->start_index;
                const char *open = g_strrstr_len (text, start, "[");
                g_assert_true (!open || memchr (open, ']', (gsize) (text + start - open)));
              }
          }
        /* The page is narrow enough that some do wrap. */
        g_test_message ("%s: %d of %u lines wrap", where, wrapped, arithmetic->len + lists->len);
        g_assert_cmpint (wrapped, >, 0);
        /* The plain text tells the same step. */
        g_assert_nonnull (strstr (cr_training_view_get_text (view), "W[0, 0]:"));
        gtk_window_destroy (GTK_WINDOW (window));
        cr_ui_test_remove_script (path);
      }
}

/* ---- keys and sizes ------------------------------------------------------------ */

/* Presenting with Practice on, a step that asks: Right on the focused loss
 * curve is the curve's (the next call), not the room's reveal; the
 * clicker's Page Down still reveals. */
static void
test_practice_curve_keys (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1920, 1080);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.practice", NULL));
  cr_ui_test_spin (100);
  CrStepCard *card = CR_STEP_CARD (window->step_card);
  for (int i = 0; i < 64 && !(cr_step_card_practice_hides (card)
                               && cr_graph_canvas_get_forward_step (window->canvas) < 0); i++)
    {
      g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "step-forward"));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.step-forward", NULL));
      cr_ui_test_spin (20);
    }
  g_assert_true (cr_step_card_practice_hides (card));
  int step = cr_graph_canvas_get_step (window->canvas);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  GtkWidget *curve = cr_training_view_get_curve (view);
  g_assert_true (gtk_widget_grab_focus (curve));
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Home) == curve);
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) == curve);
  g_assert_cmpint (cr_training_view_get_chosen (view), ==, 1);
  g_assert_true (cr_step_card_practice_hides (card));
  g_assert_cmpint (cr_graph_canvas_get_step (window->canvas), ==, step);
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Page_Down) == GTK_WIDGET (window));
  g_assert_false (cr_step_card_practice_hides (card));
  g_assert_cmpint (cr_graph_canvas_get_step (window->canvas), ==, step);
  /* Space on the curve explores its call, as Enter does. */
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_space) == curve);
  g_assert_cmpuint (window->model_index, ==, 1);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A parameter of 16 columns (12×16): every element has its cell, the grid
 * scrolls inside the sidebar rather than widen it, says each column's and
 * row's index, and the keyboard picks: the window's arrows give way to the
 * grid's focus moving, Space picks the focused cell, and a focused cell
 * scrolls into view. */
static void
test_wide_grid (void)
{
  g_autofree char *path = NULL;
  CrWindow *window = open_script ("import torch\n"
                                  "torch.manual_seed(0)\n"
                                  "W = torch.randn(12, 16, requires_grad=True)\n"
                                  "x = torch.randn(3, 12)\n"
                                  "opt = torch.optim.SGD([W], lr=0.1, momentum=0.9)\n"
                                  "for i in range(3):\n"
                                  "    loss = ((x @ W) ** 2).mean()\n"
                                  "    opt.zero_grad()\n"
                                  "    loss.backward()\n"
                                  "    opt.step()\n", &path, 1366, 768);
  CrTrainingView *view = training_view_of (window);
  CrTrainingElement *picker = CR_TRAINING_ELEMENT (cr_training_view_get_element_picker (view));
  g_assert_nonnull (cr_training_element_get_cell (picker, 191));
  g_assert_null (cr_training_element_get_cell (picker, 192));
  int min_width = 0;
  gtk_widget_measure (GTK_WIDGET (view), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_assert_cmpint (min_width, <=, 280);
  GtkWidget *first = cr_training_element_get_cell (picker, 0);
  GtkWidget *scroller = gtk_widget_get_ancestor (first, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_true (gtk_widget_is_ancestor (scroller, GTK_WIDGET (picker)));
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (h), >, gtk_adjustment_get_page_size (h) + 100);
  g_assert_cmpfloat (gtk_adjustment_get_upper (v), >, gtk_adjustment_get_page_size (v));
  /* The indices: columns 0..15 above, rows 0..11 beside. */
  GtkWidget *grid = gtk_widget_get_parent (first);
  g_assert_true (GTK_IS_GRID (grid));
  GtkWidget *column15 = gtk_grid_get_child_at (GTK_GRID (grid), 16, 0);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (column15)), ==, "15");
  GtkWidget *row11 = gtk_grid_get_child_at (GTK_GRID (grid), 0, 12);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (row11)), ==, "11");

  /* The keyboard: on a cell, the window's Right is the grid's. */
  g_assert_true (gtk_widget_grab_focus (first));
  int step = cr_graph_canvas_get_step (window->canvas);
  g_assert_true (cr_ui_test_press_key_at_focus (window, GDK_KEY_Right) != GTK_WIDGET (window));
  g_assert_cmpint (cr_graph_canvas_get_step (window->canvas), ==, step);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_RIGHT));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == cr_training_element_get_cell (picker, 1));
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_DOWN));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == cr_training_element_get_cell (picker, 17));
  /* Space (a button's activation: it clicks once its press has shown). */
  g_assert_true (gtk_widget_activate (focus));
  cr_ui_test_spin (400);
  g_assert_cmpint (cr_training_element_get_element (picker, 0), ==, 17);
  g_assert_nonnull (strstr (cr_training_view_get_text (view), "W[1, 1]:"));
  /* The last column's cell, focused, comes into view. */
  GtkWidget *last = cr_training_element_get_cell (picker, 15);
  g_assert_true (gtk_widget_grab_focus (last));
  cr_ui_test_spin (50);
  g_assert_cmpfloat (gtk_adjustment_get_value (h), >, 0);
  graphene_rect_t bounds;
  g_assert_true (gtk_widget_compute_bounds (last, scroller, &bounds));
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (scroller) + 1);
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_remove_script (path);
}

typedef struct {
  GtkWidget *curve;
  int        normal;
} CurveGrown;

static gboolean
curve_grown (gpointer data)
{
  const CurveGrown *grown = data;
  int height = 0;
  gtk_widget_measure (grown->curve, GTK_ORIENTATION_VERTICAL, -1, NULL, &height, NULL, NULL);
  return height >= 1.25 * grown->normal;
}

/* Presentation's type scales the whole page: the curve, the picker's
 * drop-down, index spins and cells, a step's rows, as the headings do. */
static void
test_presentation_sizes (void)
{
  CrWindow *window = cr_ui_test_open_example ("11-mlp-training.py", 1920, 1080);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  CrTrainingView *view = training_view_of (window);
  g_assert_true (cr_ui_test_wait_until (laid_out, view, 10));
  CrTrainingElement *picker = CR_TRAINING_ELEMENT (cr_training_view_get_element_picker (view));
  g_autoptr (GPtrArray) spins = g_ptr_array_new ();
  find_spins (GTK_WIDGET (picker), spins);
  g_assert_cmpuint (spins->len, ==, 2);
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  find_with_class (GTK_WIDGET (view), "cr-training-arithmetic", rows);
  g_assert_cmpuint (rows->len, >, 0);
  GtkWidget *dropdown = gtk_widget_get_first_child (gtk_widget_get_first_child (GTK_WIDGET (picker)));
  g_assert_true (GTK_IS_DROP_DOWN (dropdown));
  GtkWidget *parts[] = {
    cr_training_view_get_curve (view), spins->pdata[0], cr_training_element_get_cell (picker, 0),
    gtk_widget_get_first_child (GTK_WIDGET (spins->pdata[0])), rows->pdata[0], dropdown,
  };
  const char *names[] = { "curve", "spin", "cell", "spin's text", "a step's row", "drop-down" };
  int normal[G_N_ELEMENTS (parts)];
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    gtk_widget_measure (parts[i], GTK_ORIENTATION_VERTICAL, -1, NULL, &normal[i], NULL, NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.presentation", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.training", NULL));
  cr_ui_test_spin (300);
  /* The curve is sized again once its new type is known (an idle, or its
   * next frame). */
  CurveGrown grown = { cr_training_view_get_curve (view), normal[0] };
  g_assert_true (cr_ui_test_wait_until (curve_grown, &grown, 20));
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      int presenting = 0;
      gtk_widget_measure (parts[i], GTK_ORIENTATION_VERTICAL, -1, NULL, &presenting, NULL, NULL);
      g_test_message ("%s: %d px, presenting %d px", names[i], normal[i], presenting);
      /* Presentation's scale is 1.4: each part at least 1.25 times. */
      g_assert_cmpfloat (presenting, >=, 1.25 * normal[i]);
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-training/mlp-points", test_mlp_points);
  g_test_add_func ("/window-training/adam-script", test_adam_script);
  g_test_add_func ("/window-training/curve-keys", test_curve_keys);
  g_test_add_func ("/window-training/element-picker", test_element_picker);
  g_test_add_func ("/window-training/scalars-untold", test_scalars_untold);
  g_test_add_func ("/window-training/no-loop", test_no_loop);
  g_test_add_func ("/window-training/text-lines", test_text_lines);
  g_test_add_func ("/window-training/step-rows", test_step_rows);
  g_test_add_func ("/window-training/practice-curve-keys", test_practice_curve_keys);
  g_test_add_func ("/window-training/wide-grid", test_wide_grid);
  g_test_add_func ("/window-training/presentation-sizes", test_presentation_sizes);
  return g_test_run ();
}
