/* test-cards.c — the step card, the inspector and the tensor view, built from
 * the real models of the examples (and hand-made snapshots for the tensor
 * view's size rules); what they show is read back from their labels. Runs
 * under xvfb-run.
 *
 * CR_CARDS_PREVIEW="step N EXAMPLE.py" (or "inspect NODE_TITLE EXAMPLE.py")
 * shows the widget in a window instead, for looking at it. */
#include "cr-config.h"
#include "cr-step-card.h"
#include "cr-inspector.h"
#include "cr-tensor-view.h"
#include "cr-widget-same.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

/* ---- models ------------------------------------------------------------ */

static CrGraphModel *
model_of_example (const char *name)
{
  g_autofree char *path = g_path_is_absolute (name) ? g_strdup (name)
                         : g_build_filename (CR_SOURCE_EXAMPLES_DIR, name, NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  return cr_ui_test_model_from_script (source, path);
}

static int
find_node (const CrGraphModel *model,
           CrGraphNodeKind     kind,
           const char         *title)
{
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, i);
      if (n->kind == kind && g_strcmp0 (n->title, title) == 0)
        return (int) i;
    }
  return -1;
}

/* A hand-made snapshot, as cr_tensor_snapshot_new would fill it. */
static CrTensorSnapshot *
snapshot (int           ndim,
          const gint64 *shape,
          const double *values)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = ndim;
  s->numel = 1;
  for (int i = 0; i < ndim; i++)
    {
      s->shape[i] = shape[i];
      s->numel *= shape[i];
    }
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  s->n_values = MIN (s->numel, CR_SNAPSHOT_MAX_VALUES);
  s->values = g_new (double, s->n_values);
  double sum = 0, sq = 0;
  s->min = G_MAXDOUBLE;
  s->max = -G_MAXDOUBLE;
  for (gint64 i = 0; i < s->n_values; i++)
    {
      double v = values ? values[i] : sin ((double) i) * (i % 7);
      s->values[i] = v;
      s->min = MIN (s->min, v);
      s->max = MAX (s->max, v);
      sum += v;
      sq += v * v;
    }
  s->mean = sum / s->n_values;
  s->std = sqrt (MAX (sq / s->n_values - s->mean * s->mean, 0));
  return s;
}

/* ---- reading widgets back ------------------------------------------------ */

/* Every label's text and every fraction's name, one a line. */
static void
collect (GtkWidget *widget,
         GString   *out)
{
  const char *name = g_object_get_data (G_OBJECT (widget), "cr-text");
  if (name)
    g_string_append_printf (out, "%s\n", name);
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect (c, out);
}

static char *
texts (GtkWidget *widget)
{
  GString *out = g_string_new (NULL);
  collect (widget, out);
  return g_string_free (out, FALSE);
}

/* TRUE when `line` is one whole line of texts. */
static gboolean
has_line (const char *all,
          const char *line)
{
  g_autofree char *needle = g_strdup_printf ("\n%s\n", line);
  g_autofree char *hay = g_strdup_printf ("\n%s", all);
  return strstr (hay, needle) != NULL;
}

#define assert_line(all, line) \
  G_STMT_START { if (!has_line ((all), (line))) \
    g_error ("no line \"%s\" in:\n%s", (line), (all)); } G_STMT_END
#define assert_no_line(all, line) \
  G_STMT_START { if (has_line ((all), (line))) \
    g_error ("unexpected line \"%s\" in:\n%s", (line), (all)); } G_STMT_END

static int
count_css (GtkWidget  *widget,
           const char *css_class)
{
  int n = gtk_widget_has_css_class (widget, css_class) ? 1 : 0;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    n += count_css (c, css_class);
  return n;
}

static int
count_type (GtkWidget  *widget,
            const char *css_name)
{
  int n = g_strcmp0 (gtk_widget_get_css_name (widget), css_name) == 0 ? 1 : 0;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    n += count_type (c, css_name);
  return n;
}

/* Owns a floating widget for a test's lifetime. */
static GtkWidget *
hold (GtkWidget *widget)
{
  return g_object_ref_sink (widget);
}

/* The sidebar is 340–420 px wide: what a card asks for must fit its narrow end. */
static void
assert_fits_sidebar (GtkWidget *widget)
{
  int min = 0, nat = 0;
  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_assert_cmpint (min, <=, 320);
}

/* ---- the tensor view ------------------------------------------------------ */

static void
test_tensor_none (void)
{
  GtkWidget *view = hold (cr_tensor_view_new (NULL));
  g_autofree char *all = texts (view);
  assert_line (all, "None");
  g_object_unref (view);
}

static void
test_tensor_scalar (void)
{
  const double half = 0.5, two = 2.0;
  CrTensorSnapshot *a = snapshot (0, NULL, &half), *b = snapshot (0, NULL, &two);
  GtkWidget *va = hold (cr_tensor_view_new (a)), *vb = hold (cr_tensor_view_new (b));
  g_autofree char *ta = texts (va), *tb = texts (vb);
  /* As PyTorch prints them: tensor(0.5000), tensor(2.). */
  assert_line (ta, "0.5000");
  assert_line (tb, "2.");
  g_assert_cmpint (count_css (va, "cr-matrix"), ==, 0);
  g_assert_cmpint (count_type (va, "cr-heatmap"), ==, 0);
  g_object_unref (va);
  g_object_unref (vb);
  cr_tensor_snapshot_free (a);
  cr_tensor_snapshot_free (b);
}

static void
test_tensor_grid (void)
{
  const gint64 shape[] = { 2, 3 };
  const double values[] = { -1.0, 0.25, 3.5, 2.0, -0.125, 1.0 };
  CrTensorSnapshot *s = snapshot (2, shape, values);
  GtkWidget *view = hold (cr_tensor_view_new (s));
  g_autofree char *all = texts (view);
  g_assert_cmpint (count_css (view, "cr-matrix"), ==, 1);
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 0);
  assert_line (all, "-1.0000");
  assert_line (all, "-0.1250");
  assert_line (all, "3.5000");
  g_object_unref (view);
  cr_tensor_snapshot_free (s);

  /* Small magnitudes next to large ones switch to scientific notation. */
  const gint64 n3[] = { 3 };
  const double sci[] = { 1e-5, 1.0, 2.5 };
  s = snapshot (1, n3, sci);
  view = hold (cr_tensor_view_new (s));
  g_autofree char *sci_text = texts (view);
  assert_line (sci_text, "1.0000e-05");
  assert_line (sci_text, "2.5000e+00");
  g_object_unref (view);
  cr_tensor_snapshot_free (s);
}

/* The texts of view while it sits in a window that presents (or not). */
static char *
texts_in_window (GtkWidget *window,
                 GtkWidget *view,
                 gboolean   presenting)
{
  if (presenting)
    gtk_widget_add_css_class (window, "presentation");
  else
    gtk_widget_remove_css_class (window, "presentation");
  return texts (view);
}

/* In presentation a matrix of four columns or more is written compact (two
 * decimals, a common factor where the values are small or large), and
 * follows the window in and out of presentation; a narrower one, and
 * integers, keep PyTorch's print. A compact matrix is still the same as a
 * new one of the same numbers (cr_widget_same). */
static void
test_tensor_compact (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_window_set_child (GTK_WINDOW (window), box);

  const gint64 shape[] = { 2, 4 };
  const double values[] = { -0.38354, 2.0088, 1.5898, -0.9420, 3.3223, -2.1019, 0.0, -0.004 };
  CrTensorSnapshot *s = snapshot (2, shape, values);
  GtkWidget *view = cr_tensor_view_new (s);
  gtk_box_append (GTK_BOX (box), view);
  g_autofree char *full = texts_in_window (window, view, FALSE);
  assert_line (full, "-0.3835");
  g_autofree char *compact = texts_in_window (window, view, TRUE);
  assert_line (compact, "-0.38");
  assert_line (compact, "3.32");
  assert_line (compact, "0.00");
  assert_no_line (compact, "-0.00");
  assert_no_line (compact, "-0.3835");
  g_autofree char *again = texts_in_window (window, view, FALSE);
  assert_line (again, "-0.3835");
  assert_line (again, "2.0088");

  /* Compact on screen, full when new: the same numbers all the same. */
  g_free (texts_in_window (window, view, TRUE));
  GtkWidget *fresh = hold (cr_tensor_view_new (s));
  g_assert_true (cr_widget_same (view, fresh));
  g_object_unref (fresh);
  cr_tensor_snapshot_free (s);

  /* Small gradients: a common factor, said in plain digits. */
  const gint64 n4[] = { 4 };
  const double small[] = { 0.0033, -0.0092, -0.0083, 0.0106 };
  s = snapshot (1, n4, small);
  view = cr_tensor_view_new (s);
  gtk_box_append (GTK_BOX (box), view);
  g_autofree char *small_text = texts_in_window (window, view, TRUE);
  assert_line (small_text, "0.33");
  assert_line (small_text, "-0.92");
  assert_line (small_text, "1.06");
  assert_line (small_text, "× 0.01");
  g_autofree char *small_full = texts_in_window (window, view, FALSE);
  assert_line (small_full, "0.0106");
  cr_tensor_snapshot_free (s);

  /* Large ones, and one that rounds up to the next power of ten. */
  const double large[] = { 1234.5, -20.0, 9999.7, 0.5 };
  s = snapshot (1, n4, large);
  view = cr_tensor_view_new (s);
  gtk_box_append (GTK_BOX (box), view);
  g_autofree char *large_text = texts_in_window (window, view, TRUE);
  assert_line (large_text, "0.12");
  assert_line (large_text, "1.00");
  assert_line (large_text, "× 10000");
  cr_tensor_snapshot_free (s);

  /* Three columns fit the sidebar as PyTorch prints them; whole numbers
   * are short already. */
  const gint64 n3[] = { 3 };
  const double three[] = { -0.38354, 2.0088, 1.5898 };
  s = snapshot (1, n3, three);
  view = cr_tensor_view_new (s);
  gtk_box_append (GTK_BOX (box), view);
  g_autofree char *three_text = texts_in_window (window, view, TRUE);
  assert_line (three_text, "-0.3835");
  cr_tensor_snapshot_free (s);
  const double whole[] = { 1, -2, 3, 40 };
  s = snapshot (1, n4, whole);
  view = cr_tensor_view_new (s);
  gtk_box_append (GTK_BOX (box), view);
  g_autofree char *whole_text = texts_in_window (window, view, TRUE);
  assert_line (whole_text, "40.");
  cr_tensor_snapshot_free (s);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_tensor_heat_map (void)
{
  const gint64 big[] = { 10, 12 };
  CrTensorSnapshot *s = snapshot (2, big, NULL);
  GtkWidget *view = hold (cr_tensor_view_new (s));
  g_autofree char *all = texts (view);
  g_assert_cmpint (count_css (view, "cr-matrix"), ==, 0);
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 1);
  assert_line (all, "10×12 · torch.float32");
  assert_line (all, "min");
  assert_line (all, "std");
  g_autofree char *max = g_strdup_printf ("%.4g", s->max);
  assert_line (all, max);
  assert_fits_sidebar (view);
  g_object_unref (view);
  cr_tensor_snapshot_free (s);

  /* 7 columns is past the grid's limit. */
  const gint64 wide[] = { 2, 7 };
  s = snapshot (2, wide, NULL);
  view = hold (cr_tensor_view_new (s));
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 1);
  g_object_unref (view);
  cr_tensor_snapshot_free (s);

  /* A long vector: wrapped into rows. */
  const gint64 n40[] = { 40 };
  s = snapshot (1, n40, NULL);
  view = hold (cr_tensor_view_new (s));
  g_autofree char *vec_text = texts (view);
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 1);
  assert_line (vec_text, "Wrapped into rows of 32. ");
  g_object_unref (view);
  cr_tensor_snapshot_free (s);

  /* More dimensions: flattened to 2-D. */
  const gint64 cube[] = { 2, 3, 4 };
  s = snapshot (3, cube, NULL);
  view = hold (cr_tensor_view_new (s));
  g_autofree char *cube_text = texts (view);
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 1);
  assert_line (cube_text, "Flattened to 6×4. ");
  g_object_unref (view);
  cr_tensor_snapshot_free (s);

  /* Beyond the stored values: a window of the first ones, said so. */
  const gint64 huge[] = { 300, 200 };
  s = snapshot (2, huge, NULL);
  view = hold (cr_tensor_view_new (s));
  g_autofree char *huge_text = texts (view);
  g_assert_cmpint (count_type (view, "cr-heatmap"), ==, 1);
  assert_line (huge_text, "Showing the first 20×64 values.");
  assert_fits_sidebar (view);
  g_object_unref (view);
  cr_tensor_snapshot_free (s);
}

/* ---- the step card ---------------------------------------------------------- */

static GtkWidget *
card_at (const CrGraphModel *model,
         int                 step)
{
  GtkWidget *card = hold (cr_step_card_new ());
  cr_step_card_set_step (CR_STEP_CARD (card), model, step);
  return card;
}

static void
test_step_intro (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  GtkWidget *card = card_at (model, -1);
  g_autofree char *all = texts (card);
  assert_line (all, "Step through backward");
  g_assert_nonnull (strstr (all, "takes 12 steps"));
  assert_line (all, "Space");
  assert_line (all, "PgUp");
  assert_line (all, "∂L/∂out");
  assert_line (all, "next step");
  g_object_unref (card);

  card = card_at (NULL, -1);
  g_autofree char *none = texts (card);
  assert_line (none, "No graph yet");
  g_object_unref (card);

  /* A script without .backward(): no steps, and the card says so. */
  g_autoptr (CrGraphModel) forward = cr_ui_test_model_from_script (
    "import torch\na = torch.tensor([1.0, 2.0], requires_grad=True)\nd = (a * 3).sum()\n",
    "forward.py");
  g_assert_nonnull (forward);
  g_assert_cmpuint (forward->n_steps, ==, 0);
  card = card_at (forward, 0);
  g_autofree char *fwd = texts (card);
  assert_line (fwd, "No backward pass");
  assert_no_line (fwd, "Space");
  g_object_unref (card);
}

static void
test_step_toy (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_assert_cmpuint (model->n_steps, ==, 12);

  /* Step 10 (`chainrule run --trace-backward` numbers from 1): b = w1 * a. */
  GtkWidget *card = card_at (model, 9);
  g_autofree char *all = texts (card);
  assert_line (all, "Backward 10 of 12");
  assert_line (all, "MulBackward0");
  assert_line (all, "b = w1 * a · line 13");
  assert_line (all, "Incoming gradient");
  assert_line (all, "∂L/∂b");
  assert_line (all, "∂b/∂w1");
  assert_line (all, "∂b/∂a");
  assert_line (all, "∂L/∂w1");
  assert_line (all, "Sent on");
  /* ∂L/∂b[1][0] = -2, ∂b/∂w1 = a, ∂L/∂w1[2][1] = -4.5. */
  assert_line (all, "-2.0000");
  assert_line (all, "-4.5000");
  /* a got gradient along b and along c: the sum so far is -(w3*w1 + w4*w2). */
  assert_line (all, "Accumulated");
  assert_line (all, "∂L/∂a");
  assert_line (all, "-0.8750");
  assert_line (all, "-1.8750");
  assert_line (all, "sum so far");
  g_assert_nonnull (strstr (all, "elementwise"));
  g_assert_cmpint (count_css (card, "cr-matrix"), >=, 7);
  assert_fits_sidebar (card);
  g_object_unref (card);

  /* The first step: L = (10 - d).sum(), nothing accumulates yet. */
  card = card_at (model, 0);
  g_autofree char *first = texts (card);
  assert_line (first, "Backward 1 of 12");
  assert_line (first, "SumBackward0");
  assert_line (first, "∂L/∂L");
  assert_line (first, "1.");
  assert_no_line (first, "Accumulated");
  g_object_unref (card);

  /* Step 11: AccumulateGrad writes w1.grad. */
  card = card_at (model, 10);
  g_autofree char *acc = texts (card);
  assert_line (acc, "AccumulateGrad");
  assert_line (acc, "w1.grad");
  assert_line (acc, "None");
  assert_line (acc, "-4.5000");
  assert_no_line (acc, "Sent on");
  assert_no_line (acc, "Accumulated");
  g_object_unref (card);

  /* Past the end: back to the explanation rather than a crash. */
  card = card_at (model, 12);
  g_autofree char *past = texts (card);
  assert_line (past, "Step through backward");
  g_object_unref (card);
}

/* A re-run that changes nothing the card shows keeps the card on screen (a
 * new one would be measured and shaped again); any change shows. */
static void
test_step_kept (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  g_autoptr (CrGraphModel) again = model_of_example ("01-toy-network.py");
  g_assert_true (model->record != again->record);
  GtkWidget *card = card_at (model, 9);
  GtkWidget *shown = gtk_widget_get_first_child (card);
  g_assert_nonnull (shown);
  cr_step_card_set_step (CR_STEP_CARD (card), again, 9);
  g_assert_true (gtk_widget_get_first_child (card) == shown);
  cr_step_card_set_step (CR_STEP_CARD (card), again, -1);
  g_assert_true (gtk_widget_get_first_child (card) != shown);
  g_autofree char *intro = texts (card);
  assert_line (intro, "Step through backward");

  /* Another step, and the same step of a script whose numbers changed. */
  cr_step_card_set_step (CR_STEP_CARD (card), again, 8);
  shown = gtk_widget_get_first_child (card);
  g_autofree char *step9 = texts (card);
  assert_line (step9, "Backward 9 of 12");
  g_autofree char *path = g_build_filename (CR_SOURCE_EXAMPLES_DIR, "01-toy-network.py", NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  g_autoptr (GString) edited = g_string_new (source);
  g_assert_cmpuint (g_string_replace (edited, "0.5", "0.25", 1), ==, 1);
  g_autoptr (CrGraphModel) changed = cr_ui_test_model_from_script (edited->str, path);
  cr_step_card_set_step (CR_STEP_CARD (card), changed, 8);
  g_assert_true (gtk_widget_get_first_child (card) != shown);
  g_object_unref (card);
}

/* cr_widget_same() on tensor views: equal snapshots, a value apart, a heat
 * map's cell apart, and a grid against a heat map. */
static void
test_widget_same (void)
{
  const gint64 shape[] = { 2, 3 };
  double values[] = { -1.0, 0.25, 3.5, 2.0, -0.125, 1.0 };
  CrTensorSnapshot *s = snapshot (2, shape, values);
  values[4] = -0.25;
  CrTensorSnapshot *t = snapshot (2, shape, values);
  GtkWidget *a = hold (cr_tensor_view_new (s));
  GtkWidget *b = hold (cr_tensor_view_new (s));
  GtkWidget *c = hold (cr_tensor_view_new (t));
  g_assert_true (cr_widget_same (a, b));
  g_assert_false (cr_widget_same (a, c));
  gtk_widget_add_css_class (b, "cr-in");
  g_assert_false (cr_widget_same (a, b));

  const gint64 big[] = { 10, 12 };
  CrTensorSnapshot *h = snapshot (2, big, NULL);
  CrTensorSnapshot *k = snapshot (2, big, NULL);
  /* One cell apart, the statistics alike. */
  k->values[5] += 1e-3;
  GtkWidget *d = hold (cr_tensor_view_new (h));
  GtkWidget *e = hold (cr_tensor_view_new (h));
  GtkWidget *f = hold (cr_tensor_view_new (k));
  g_assert_true (cr_widget_same (d, e));
  g_assert_false (cr_widget_same (d, f));
  g_assert_false (cr_widget_same (a, d));
  for (guint i = 0; i < 6; i++)
    g_object_unref ((GtkWidget *[]) { a, b, c, d, e, f }[i]);
  cr_tensor_snapshot_free (s);
  cr_tensor_snapshot_free (t);
  cr_tensor_snapshot_free (h);
  cr_tensor_snapshot_free (k);
}

static void
test_step_scalar (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("10-neuron.py");
  g_assert_cmpuint (model->n_steps, ==, 10);
  GtkWidget *card = card_at (model, 0);
  g_autofree char *all = texts (card);
  assert_line (all, "TanhBackward0");
  assert_line (all, "∂o/∂o");
  assert_line (all, "∂o/∂n");
  assert_line (all, "0.5000");
  g_assert_null (strstr (all, "elementwise"));
  g_assert_cmpint (count_css (card, "cr-matrix"), ==, 0);
  g_object_unref (card);

  /* Step 8: x1 * w1, ∂o/∂x1 = 0.5 × -3 = -1.5. */
  card = card_at (model, 7);
  g_autofree char *mul = texts (card);
  assert_line (mul, "∂o/∂x1");
  assert_line (mul, "-3.");
  assert_line (mul, "-1.5000");
  assert_fits_sidebar (card);
  g_object_unref (card);
}

static void
test_step_rules (void)
{
  /* 04-one-layer-network.py: MmBackward0 has no elementwise local gradient,
   * so its rule is what the card shows. */
  g_autoptr (CrGraphModel) model = model_of_example ("04-one-layer-network.py");
  GtkWidget *card = card_at (model, 4);
  g_autofree char *all = texts (card);
  assert_line (all, "MmBackward0");
  assert_line (all, "∂C/∂A = G·Bᵀ");
  assert_line (all, "∂C/∂B = Aᵀ·G");
  g_assert_nonnull (strstr (all, "Not elementwise"));
  assert_line (all, "∂loss/∂w");
  assert_line (all, "0.0626");
  g_object_unref (card);

  /* 08-backward-twice.py's last backward: w1.grad held zeros, and the step adds. */
  g_autoptr (CrGraphModel) twice = model_of_example ("08-backward-twice.py");
  card = card_at (twice, 2);
  g_autofree char *acc = texts (card);
  assert_line (acc, "AccumulateGrad");
  assert_line (acc, "w1.grad:");
  assert_line (acc, "0.");
  assert_line (acc, "+");
  assert_line (acc, "3.");
  assert_no_line (acc, "None");
  g_object_unref (card);
}

/* Lets the window map and its style settle. */
static void
settle (void)
{
  for (int i = 0; i < 50; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
}

/* The heat map's cells follow the font size: presentation mode enlarges it. */
static void
test_heat_map_scales (void)
{
  const gint64 big[] = { 8, 10 };
  CrTensorSnapshot *s = snapshot (2, big, NULL);
  GtkWidget *view = hold (cr_tensor_view_new (s));
  GtkWidget *heat = NULL;
  for (GtkWidget *c = gtk_widget_get_first_child (gtk_widget_get_first_child (view)); c;
       c = gtk_widget_get_next_sibling (c))
    if (g_strcmp0 (gtk_widget_get_css_name (c), "cr-heatmap") == 0)
      heat = c;
  g_assert_nonnull (heat);
  GtkWidget *window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  settle ();
  int small = 0, large = 0;
  gtk_widget_measure (heat, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &small, NULL, NULL);

  GtkCssProvider *provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, "cr-heatmap { font-size: 40px; }", -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_USER);
  settle ();
  gtk_widget_measure (heat, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &large, NULL, NULL);
  gtk_style_context_remove_provider_for_display (gdk_display_get_default (),
                                                 GTK_STYLE_PROVIDER (provider));
  g_object_unref (provider);
  g_assert_cmpint (large, >, small * 2);
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (view);
  cr_tensor_snapshot_free (s);
}

/* ---- the inspector ----------------------------------------------------------- */

static void
test_inspector (void)
{
  g_autoptr (CrGraphModel) model = model_of_example ("01-toy-network.py");
  GtkWidget *inspector = hold (cr_inspector_new ());
  g_autofree char *empty = texts (inspector);
  assert_line (empty, "Click a node to inspect it");

  int w1 = find_node (model, CR_GRAPH_NODE_LEAF, "w1");
  g_assert_cmpint (w1, >=, 0);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, w1);
  g_autofree char *leaf = texts (inspector);
  assert_line (leaf, "w1");
  assert_line (leaf, ".requires_grad");
  assert_line (leaf, ".is_leaf");
  assert_line (leaf, ".retains_grad");
  assert_line (leaf, "True");
  assert_line (leaf, "False");
  assert_line (leaf, ".grad_fn");
  assert_line (leaf, "None");
  assert_line (leaf, "torch.float32");
  assert_line (leaf, "cpu");
  assert_line (leaf, "3×3");
  /* The value [[1, 2, -1], ...]; before the stepper reaches AccumulateGrad
   * (step 11) its .grad is None: the answer is not given away. */
  assert_line (leaf, "-1.5000");
  assert_no_line (leaf, "-4.5000");
  assert_line (leaf, "None so far: backward writes it at step 11");
  assert_fits_sidebar (inspector);
  /* At step 11 the grad -4.5 at [2][1] is there, and the inspector says
   * which step wrote it. */
  cr_inspector_set_step (CR_INSPECTOR (inspector), 10);
  g_autofree char *after = texts (inspector);
  assert_line (after, "-4.5000");
  assert_line (after, "as of step 11, which wrote it");
  cr_inspector_set_step (CR_INSPECTOR (inspector), 9);
  g_autofree char *before = texts (inspector);
  assert_no_line (before, "-4.5000");
  cr_inspector_set_step (CR_INSPECTOR (inspector), 11);

  int op = find_node (model, CR_GRAPH_NODE_OP, "MulBackward0");
  g_assert_cmpint (op, >=, 0);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, op);
  g_autofree char *mul = texts (inspector);
  assert_line (mul, "MulBackward0");
  assert_line (mul, "Saved for backward");
  /* L.backward() ran without retain_graph: what MulBackward0 saved is
   * freed once it has run (as of the last step here). */
  const CrGraphNode *node = g_ptr_array_index (model->nodes, op);
  const CrRecordOp *rop = g_ptr_array_index (model->record->ops, node->op);
  g_assert_cmpuint (rop->saved->len, >, 0);
  const CrRecordSaved *saved = g_ptr_array_index (rop->saved, 0);
  assert_line (mul, saved->name);
  assert_line (mul, "freed");
  assert_no_line (mul, "Click a node to inspect it");
  /* Before backward nothing is freed yet. */
  cr_inspector_set_step (CR_INSPECTOR (inspector), -1);
  g_autofree char *mul_before = texts (inspector);
  assert_no_line (mul_before, "freed");
  cr_inspector_set_step (CR_INSPECTOR (inspector), 11);

  /* An op that saved nothing (L = (10 - d).sum(): SumBackward0) is never "freed". */
  int sum = find_node (model, CR_GRAPH_NODE_OP, "SumBackward0");
  g_assert_cmpint (sum, >=, 0);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, sum);
  g_autofree char *sum_text = texts (inspector);
  assert_no_line (sum_text, "freed");
  g_assert_nonnull (strstr (sum_text, "needs no saved tensors"));

  /* The loss: not a leaf, so its .grad stays None, and the card says why. */
  int loss = find_node (model, CR_GRAPH_NODE_OUTPUT, "L");
  g_assert_cmpint (loss, >=, 0);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, loss);
  g_autofree char *out = texts (inspector);
  assert_line (out, "<SumBackward0>");
  assert_line (out, "86.3125");
  assert_line (out, "None");
  g_assert_nonnull (strstr (out, "Only leaves keep .grad"));
  /* Its gradient was computed all the same: the one SumBackward0 received. */
  assert_line (out, "∂L/∂L, reached it at step 1 (not kept in .grad)");
  assert_no_line (out, "Saved for backward");

  cr_inspector_show_node (CR_INSPECTOR (inspector), model, -1);
  g_autofree char *back = texts (inspector);
  assert_line (back, "Click a node to inspect it");
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, 100000);
  g_object_unref (inspector);
}

/* ---- the preview -------------------------------------------------------------- */

static int
preview (const char *spec)
{
  /* The screenshot tool's dark mode sets GTK_THEME, which hides libadwaita's
   * own style sheet (boxed lists, cards); ask libadwaita for dark instead. */
  if (g_getenv ("CR_PREVIEW_DARK"))
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
  g_auto (GStrv) parts = g_strsplit (spec, " ", 3);
  if (g_strv_length (parts) < 3)
    return 2;
  g_autoptr (CrGraphModel) model = model_of_example (parts[2]);
  GtkWidget *widget;
  if (strcmp (parts[0], "inspect") == 0)
    {
      widget = cr_inspector_new ();
      int id = -1;
      for (int k = CR_GRAPH_NODE_LEAF; id < 0 && k <= CR_GRAPH_NODE_CONSTANT; k++)
        id = find_node (model, k, parts[1]);
      cr_inspector_show_node (CR_INSPECTOR (widget), model, id);
    }
  else
    {
      widget = cr_step_card_new ();
      cr_step_card_set_step (CR_STEP_CARD (widget), model, atoi (parts[1]));
    }
  GtkWidget *window = gtk_window_new ();
  const char *css = g_getenv ("CR_CARDS_PREVIEW_CSS");
  if (css)
    {
      GtkCssProvider *p = gtk_css_provider_new ();
      gtk_css_provider_load_from_data (p, css, -1);
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (p), 900);
    }
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), widget);
  gtk_window_set_child (GTK_WINDOW (window), scrolled);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 900);
  gtk_window_present (GTK_WINDOW (window));
  while (g_list_model_get_n_items (gtk_window_get_toplevels ()) > 0)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  const char *theme = g_getenv ("GTK_THEME");
  if (g_getenv ("CR_CARDS_PREVIEW") && theme && strstr (theme, "dark"))
    {
      g_setenv ("CR_PREVIEW_DARK", "1", TRUE);
      g_unsetenv ("GTK_THEME");
    }
  cr_ui_test_init_gtk (&argc, &argv);

  const char *spec = g_getenv ("CR_CARDS_PREVIEW");
  if (spec && *spec)
    return preview (spec);

  g_test_add_func ("/cards/tensor/none", test_tensor_none);
  g_test_add_func ("/cards/tensor/scalar", test_tensor_scalar);
  g_test_add_func ("/cards/tensor/grid", test_tensor_grid);
  g_test_add_func ("/cards/tensor/compact", test_tensor_compact);
  g_test_add_func ("/cards/tensor/heat-map", test_tensor_heat_map);
  g_test_add_func ("/cards/tensor/heat-map-scales", test_heat_map_scales);
  g_test_add_func ("/cards/step/intro", test_step_intro);
  g_test_add_func ("/cards/step/rules", test_step_rules);
  g_test_add_func ("/cards/step/toy", test_step_toy);
  g_test_add_func ("/cards/step/scalar", test_step_scalar);
  g_test_add_func ("/cards/step/kept", test_step_kept);
  g_test_add_func ("/cards/widget-same", test_widget_same);
  g_test_add_func ("/cards/inspector", test_inspector);
  return g_test_run ();
}
