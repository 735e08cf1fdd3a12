/* test-window-practice.c — Practice (predict, then reveal) in the window:
 * turned on from its action, a backward step's card asks instead of
 * showing; an answer typed right and one wrong get their verdicts and
 * reveal the step; a picked choice and an unreadable answer; the score in
 * the card and the header. Presenting, the card asks the room with lettered
 * choices and no entry; the clicker's Page Down reveals, the next one goes
 * on. Runs under xvfb-run; looks inside the window through its private
 * header. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-graph-canvas-private.h"
#include "cr-step-card-practice.h"
#include "ui-test-gui.h"

#include <string.h>

static void
activate (CrWindow   *window,
          const char *name)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), name, NULL));
}

static void
settle (void)
{
  cr_ui_test_spin (100);
  gint64 until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_main_context_pending (NULL) && g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
}

static CrStepCard *
card (CrWindow *window)
{
  return CR_STEP_CARD (window->step_card);
}

static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_labels (c, out);
}

static char *
card_text (CrWindow *window)
{
  GString *text = g_string_new (NULL);
  collect_labels (window->step_card, text);
  return g_string_free (text, FALSE);
}

static void
find_widgets (GtkWidget  *widget,
              GType       type,
              const char *css_class,
              GPtrArray  *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type)
      && (!css_class || gtk_widget_has_css_class (widget, css_class)))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    find_widgets (c, type, css_class, out);
}

static GPtrArray *
card_widgets (CrWindow   *window,
              GType       type,
              const char *css_class)
{
  GPtrArray *out = g_ptr_array_new ();
  find_widgets (window->step_card, type, css_class, out);
  return out;
}

static void
assert_card_says (CrWindow   *window,
                  const char *part)
{
  g_autofree char *text = card_text (window);
  if (!strstr (text, part))
    g_error ("the card does not say «%s»:\n%s", part, text);
}

/* Steps forward to the next backward step that asks (passing the forward
 * pass's questions unanswered, as Page Down does). */
static void
step_to_question (CrWindow *window)
{
  for (int i = 0; i < 64; i++)
    {
      if (!g_action_group_get_action_enabled (G_ACTION_GROUP (window), "step-forward"))
        break;
      activate (window, "win.step-forward");
      settle ();
      if (cr_step_card_practice_hides (card (window))
          && cr_graph_canvas_get_forward_step (window->canvas) < 0)
        return;
    }
  g_error ("no step asks a question");
}

/* Types text into the card's first open entry and presses Enter. */
static void
type_answer (CrWindow   *window,
             const char *text)
{
  g_autoptr (GPtrArray) entries = card_widgets (window, GTK_TYPE_ENTRY, NULL);
  g_assert_cmpuint (entries->len, >, 0);
  GtkEntry *entry = g_ptr_array_index (entries, 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "activate");
  settle ();
}

static void
set_flag (gboolean *flag)
{
  *flag = TRUE;
}

static void
assert_score (CrWindow *window,
              guint     right,
              guint     answered)
{
  guint r = 99, a = 99;
  cr_step_card_practice_score (card (window), &r, &a);
  g_assert_cmpuint (r, ==, right);
  g_assert_cmpuint (a, ==, answered);
  g_autofree char *text = g_strdup_printf ("%u of %u right", right, answered);
  assert_card_says (window, text);
}

static void
test_practice_window (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  activate (window, "win.practice");
  settle ();
  g_assert_true (cr_step_card_get_practice (card (window)));

  /* SumBackward0 of L = (10 - d).sum(): ones, typed as one number. */
  step_to_question (window);
  /* The graph does not label what the step sends until it is revealed. */
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  g_assert_true (canvas->hide_step_gradients);
  assert_card_says (window, "Your turn");
  assert_card_says (window, "What does this step send on to (10 - d)?");
  g_autofree char *asking = card_text (window);
  g_assert_null (strstr (asking, "Sent on"));
  type_answer (window, "1");
  g_assert_false (cr_step_card_practice_hides (card (window)));
  g_assert_false (canvas->hide_step_gradients);
  assert_card_says (window, "Your answers");
  assert_card_says (window, "✓ Right.");
  assert_card_says (window, "Sent on");
  assert_score (window, 1, 1);

  /* RsubBackward1: ∂(10 − d)/∂d = −1, so "1" has its sign flipped. */
  step_to_question (window);
  type_answer (window, "1");
  assert_card_says (window, "✗ Not quite.");
  assert_card_says (window, "The sign is flipped");
  assert_card_says (window, "Sent on");
  assert_score (window, 1, 2);

  /* AddBackward0 asks two things: an unreadable answer keeps asking; a
   * picked wrong choice answers the first, the second is still open. */
  step_to_question (window);
  type_answer (window, "minus one");
  g_assert_true (cr_step_card_practice_hides (card (window)));
  assert_card_says (window, "Type a number");
  g_autoptr (GPtrArray) choices = card_widgets (window, GTK_TYPE_BUTTON, "cr-practice-choice");
  g_assert_cmpuint (choices->len, >=, 6);
  GtkWidget *wrong = NULL;
  for (guint i = 0; i < choices->len && !wrong; i++)
    {
      GtkWidget *b = g_ptr_array_index (choices, i);
      g_autoptr (GString) t = g_string_new (NULL);
      collect_labels (b, t);
      /* The first question's choices come first; its answer is all −1. */
      if (!strstr (t->str, "[[-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]"))
        wrong = b;
    }
  g_assert_nonnull (wrong);
  g_signal_emit_by_name (wrong, "clicked");
  settle ();
  g_assert_true (cr_step_card_practice_hides (card (window)));
  assert_card_says (window, "✗ ");
  type_answer (window, "[-1, -1, -1; -1, -1, -1; -1, -1, -1]");
  g_assert_false (cr_step_card_practice_hides (card (window)));
  assert_card_says (window, "✓ Right.");
  assert_score (window, 2, 4);

  /* The score in the header. */
  GtkLabel *header_score = g_object_get_data (G_OBJECT (window), "cr-practice-score-label");
  g_assert_nonnull (header_score);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (header_score)));
  g_assert_cmpstr (gtk_label_get_text (header_score), ==, "2 of 4 right");

  /* An edit runs the script again: the steps that ask the same keep their
   * answers (a comment changes no number). */
  gboolean finished = FALSE;
  gulong handler = g_signal_connect_swapped (window, "run-finished", G_CALLBACK (set_flag),
                                             &finished);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (window->source_view));
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\n# a comment\n", -1);
  g_assert_true (cr_ui_test_wait_for_flag (&finished, 30));
  g_signal_handler_disconnect (window, handler);
  settle ();
  guint kept_right = 0, kept_answered = 0;
  cr_step_card_practice_score (card (window), &kept_right, &kept_answered);
  g_assert_cmpuint (kept_right, ==, 2);
  g_assert_cmpuint (kept_answered, ==, 4);
  g_assert_false (cr_step_card_practice_hides (card (window)));

  /* Back to an answered step: it stays revealed. Reveal gives up on one. */
  activate (window, "win.step-back");
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  activate (window, "win.step-forward");
  step_to_question (window);
  activate (window, "win.practice-reveal");
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  guint right, answered;
  cr_step_card_practice_score (card (window), &right, &answered);
  g_assert_cmpuint (right, ==, 2);
  g_assert_cmpuint (answered, >, 4);

  /* A choice's letter typed alone picks it. */
  step_to_question (window);
  g_autoptr (GPtrArray) letters = card_widgets (window, GTK_TYPE_BUTTON, "cr-practice-choice");
  g_assert_cmpuint (letters->len, >=, 3);
  cr_step_card_practice_score (card (window), &right, &answered);
  type_answer (window, "b");
  assert_card_says (window, "Your answers");
  guint right_after, answered_after;
  cr_step_card_practice_score (card (window), &right_after, &answered_after);
  g_assert_cmpuint (answered_after, >, answered);

  /* Off: the card shows steps whole again. */
  activate (window, "win.practice");
  settle ();
  g_assert_false (cr_step_card_get_practice (card (window)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (header_score)));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The harder level asks each local gradient before what is sent on. */
static void
test_practice_harder (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1366, 768);
  activate (window, "win.practice-harder");
  settle ();
  g_assert_true (cr_step_card_get_practice (card (window)));
  step_to_question (window);
  step_to_question (window);
  /* RsubBackward1: its local gradient ∂(10 - d)/∂d first. */
  assert_card_says (window, "What is the local gradient");
  g_autofree char *text = card_text (window);
  g_assert_null (strstr (text, "Local gradient\n"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_practice_presenting (void)
{
  CrWindow *window = cr_ui_test_open_example ("01-toy-network.py", 1920, 1080);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  activate (window, "win.presentation");
  activate (window, "win.practice");
  settle ();
  step_to_question (window);
  /* For the room: lettered choices, no entry, no buttons to pick. */
  g_autoptr (GPtrArray) entries = card_widgets (window, GTK_TYPE_ENTRY, NULL);
  g_assert_cmpuint (entries->len, ==, 0);
  g_autoptr (GPtrArray) buttons = card_widgets (window, GTK_TYPE_BUTTON, "cr-practice-choice");
  g_assert_cmpuint (buttons->len, ==, 0);
  assert_card_says (window, "A   ");
  assert_card_says (window, "Page Down reveals");

  /* The clicker: Page Down reveals the answer on the same step... */
  int step = cr_graph_canvas_get_step (canvas);
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, step);
  assert_card_says (window, "The answer");
  assert_card_says (window, "Sent on");
  /* ...the next goes on (through the card's parts, then the next step). */
  for (int i = 0; i < 10 && cr_graph_canvas_get_step (canvas) == step; i++)
    {
      g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
      settle ();
    }
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, step + 1);
  g_assert_true (cr_step_card_practice_hides (card (window)));
  /* A clicker's → reveals too. Nobody typed: no score. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Right));
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  guint right = 9, answered = 9;
  cr_step_card_practice_score (card (window), &right, &answered);
  g_assert_cmpuint (answered, ==, 0);
  /* Leaving presentation, the card asks with entries again. */
  g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Escape));
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_step (canvas), ==, step + 1);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Page Down alone walks a whole presented lesson with practice on: each
 * step that asks is revealed by one press and left by the next (or the
 * card's parts), and the walk reaches the last step. */
static void
test_practice_clicker_walk (void)
{
  CrWindow *window = cr_ui_test_open_example ("10-neuron.py", 1920, 1080);
  activate (window, "win.presentation");
  activate (window, "win.practice");
  activate (window, "win.step-first");
  settle ();
  guint reveals = 0, presses = 0;
  while (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "step-forward")
         || cr_step_card_practice_hides (card (window)))
    {
      gboolean hid = cr_step_card_practice_hides (card (window));
      g_assert_true (cr_ui_test_press_key (window, GDK_KEY_Page_Down));
      settle ();
      if (hid)
        {
          g_assert_false (cr_step_card_practice_hides (card (window)));
          reveals++;
        }
      g_assert_cmpuint (++presses, <, 200);
    }
  /* The neuron's five forward ops and ten backward steps all ask (0-d
   * tensors). */
  g_assert_cmpuint (reveals, ==, 15);
  gtk_window_destroy (GTK_WINDOW (window));
}

static char *
inspector_text (CrWindow *window)
{
  GString *text = g_string_new (NULL);
  collect_labels (window->inspector, text);
  /* An AdwActionRow's title and subtitle are labels too. */
  return g_string_free (text, FALSE);
}

/* The step of the record the stepper shows (NULL: a forward step). */
static const CrRecordStep *
shown_step (CrWindow *window)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  int step = cr_graph_canvas_get_step (window->canvas);
  if (!model || !model->record || model->backward < 0 || step < 0)
    return NULL;
  const CrRecordBackward *call = g_ptr_array_index (model->record->backwards, model->backward);
  return (guint) step < call->steps->len ? g_ptr_array_index (call->steps, step) : NULL;
}

/* At an AccumulateGrad step that asks, the leaf's .grad is the answer: the
 * inspector says "?", hidden until you answer, and shows it once revealed;
 * the paths (which sum the whole call's gradients) wait too. */
static void
test_practice_inspector_hides (void)
{
  CrWindow *window = cr_ui_test_open_example ("10-neuron.py", 1366, 768);
  activate (window, "win.practice");
  settle ();
  const CrRecordStep *step = NULL;
  for (int i = 0; i < 20; i++)
    {
      step_to_question (window);
      step = shown_step (window);
      if (step && step->kind == CR_RECORD_STEP_ACCUMULATE)
        break;
      step = NULL;
    }
  g_assert_nonnull (step);
  const CrGraphModel *model = cr_graph_canvas_get_model (window->canvas);
  const CrGraphNode *leaf = cr_graph_model_find_tensor (model, step->leaf);
  g_assert_nonnull (leaf);
  cr_graph_canvas_set_selected (window->canvas, (int) leaf->id);
  settle ();
  g_autofree char *hidden = inspector_text (window);
  if (!strstr (hidden, "hidden until you answer"))
    g_error ("the inspector does not hide .grad:\n%s", hidden);
  g_assert_null (strstr (hidden, "which wrote it"));
  g_assert_null (strstr (hidden, "Walk"));
  /* Its AccumulateGrad node says no more. */
  const CrGraphNode *acc = cr_graph_model_find_accumulate (model, step->leaf);
  if (acc)
    {
      cr_graph_canvas_set_selected (window->canvas, (int) acc->id);
      settle ();
      g_autofree char *acc_text = inspector_text (window);
      g_assert_null (strstr (acc_text, "which wrote it"));
      cr_graph_canvas_set_selected (window->canvas, (int) leaf->id);
      settle ();
    }

  activate (window, "win.practice-reveal");
  settle ();
  g_autofree char *shown = inspector_text (window);
  g_assert_null (strstr (shown, "hidden until you answer"));
  if (!strstr (shown, "which wrote it"))
    g_error ("the inspector does not show .grad once revealed:\n%s", shown);

  /* Practice off: nothing is hidden at the next step either. */
  activate (window, "win.practice");
  settle ();
  activate (window, "win.step-back");
  settle ();
  activate (window, "win.step-forward");
  settle ();
  g_autofree char *off = inspector_text (window);
  g_assert_null (strstr (off, "hidden until you answer"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A forward step asks what its op computes: the card shows the inputs, not
 * the result; neither the graph nor the inspector gives it away; a right
 * answer reveals the step's card whole. Practice off, it only tells. */
static void
test_practice_forward (void)
{
  CrWindow *window = cr_ui_test_open_example ("10-neuron.py", 1366, 768);
  CrGraphCanvas *canvas = cr_window_get_canvas (window);
  activate (window, "win.practice");
  settle ();
  /* The helper opened it at the last forward op: back to the first. */
  activate (window, "win.step-first");
  settle ();
  g_assert_cmpint (cr_graph_canvas_get_forward_step (canvas), ==, 0);
  g_assert_true (cr_step_card_practice_hides (card (window)));
  g_assert_true (canvas->hide_step_gradients);
  /* x1 * w1 = 2 × (-3): the inputs, the question, no result. */
  assert_card_says (window, "x1 = 2");
  assert_card_says (window, "w1 = -3");
  assert_card_says (window, "Your turn");
  assert_card_says (window, "What is ");
  g_autofree char *asking = card_text (window);
  g_assert_null (strstr (asking, "With the numbers"));
  /* (-6 is among the choices, not said.) */
  g_assert_null (strstr (asking, "= -6"));
  /* The inspector of the op computing: its value is "?". */
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  const CrGraphNode *op = cr_graph_model_find_op (model, cr_graph_canvas_get_forward_op (canvas));
  g_assert_nonnull (op);
  cr_graph_canvas_set_selected (canvas, (int) op->id);
  settle ();
  g_autofree char *hidden = inspector_text (window);
  if (!strstr (hidden, "hidden until you answer"))
    g_error ("the inspector shows the forward result:\n%s", hidden);

  type_answer (window, "-6");
  g_assert_false (cr_step_card_practice_hides (card (window)));
  g_assert_false (canvas->hide_step_gradients);
  assert_card_says (window, "✓ Right.");
  assert_card_says (window, "With the numbers");
  assert_score (window, 1, 1);
  g_autofree char *shown = inspector_text (window);
  g_assert_null (strstr (shown, "hidden until you answer"));

  /* The next op, answered wrong with the sign flipped. */
  activate (window, "win.step-forward");
  settle ();
  g_assert_true (cr_step_card_practice_hides (card (window)));
  type_answer (window, "1");
  assert_card_says (window, "✗ ");
  assert_card_says (window, "With the numbers");

  /* Back: the answered step stays revealed. Off: forward steps only tell. */
  activate (window, "win.step-back");
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  activate (window, "win.practice");
  settle ();
  activate (window, "win.step-forward");
  activate (window, "win.step-forward");
  settle ();
  g_assert_false (cr_step_card_practice_hides (card (window)));
  assert_card_says (window, "With the numbers");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Play stops at a question; it goes on from there when pressed again. */
static void
test_practice_play_stops (void)
{
  CrWindow *window = cr_ui_test_open_example ("10-neuron.py", 1366, 768);
  activate (window, "win.practice");
  settle ();
  g_action_group_change_action_state (G_ACTION_GROUP (window), "speed",
                                      g_variant_new_string ("4"));
  for (int round = 0; round < 2; round++)
    {
      activate (window, "win.play");
      gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
      while (window->play_timeout_id && g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, TRUE);
      g_assert_cmpuint (window->play_timeout_id, ==, 0);
      settle ();
      g_assert_true (cr_step_card_practice_hides (card (window)));
      g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window),
                                                        "step-forward"));
      activate (window, "win.practice-reveal");
      settle ();
      g_assert_false (cr_step_card_practice_hides (card (window)));
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/window-practice/window", test_practice_window);
  g_test_add_func ("/window-practice/harder", test_practice_harder);
  g_test_add_func ("/window-practice/presenting", test_practice_presenting);
  g_test_add_func ("/window-practice/clicker-walk", test_practice_clicker_walk);
  g_test_add_func ("/window-practice/inspector-hides", test_practice_inspector_hides);
  g_test_add_func ("/window-practice/play-stops", test_practice_play_stops);
  g_test_add_func ("/window-practice/forward", test_practice_forward);
  return g_test_run ();
}
