/* cr-step-card-practice.c — predict, then reveal, on the step card (see
 * cr-step-card-practice.h). The questions, the checking and the words of
 * every verdict come from core/teach/cr-practice.h; this file keeps what
 * was answered at each step of the run shown, builds the card that asks,
 * and heads the revealed card with the verdicts. */
#include "cr-config.h"
#include "cr-step-card-private.h"
#include "cr-step-card-practice.h"

#include "cr-card-style.h"
#include "cr-record-text.h"
#include "cr-tensor-view.h"

#include <stdio.h>
#include <string.h>

/* One step's questions and what became of them. */
typedef struct {
  GPtrArray *questions;     /* of CrPracticeQuestion* */
  GPtrArray *verdicts;      /* of CrPracticeVerdict*, NULL per question not answered */
  GPtrArray *typed;         /* of char*: what was typed (NULL: nothing), or the choice */
  gboolean   revealed;
  gboolean   gave_up;       /* revealed by Reveal, not by presenting: unanswered count */
} StepState;

struct _CrStepCardPractice
{
  CrStepCard      *card;        /* the owner (it frees this in its dispose) */
  gboolean         on;
  CrPracticeLevel  level;
  gboolean         presenting;
  /* The run whose answers `steps` holds, and the step shown of it. */
  CrRunRecord     *record;      /* a reference */
  int              backward, step;
  GHashTable      *steps;       /* "backward:step:level" → StepState* */
  GtkWidget       *focus_entry; /* a weak pointer: the entry to type into next */
  char            *unreadable;  /* why the last text typed at this step was no answer */
  int              last_answered; /* the question answered last at this step, -1 */
  GtkWidget       *scroll_to;   /* a weak pointer: what the card scrolls into view after an
                                 * answer (its verdict, or the revealed verdicts) */
  /* A forward step shown (backward FORWARD_STEP, step its op): its place in
   * the forward pass, to build its card again after an answer. */
  guint            forward_index, forward_n;
  gboolean         forward_has_backward;
};

/* The `backward` of a forward step's state: its `step` is the op's index. */
#define FORWARD_STEP (-2)

static void
remove_idle (gpointer id)
{
  g_source_remove (GPOINTER_TO_UINT (id));
}

enum { PRACTICE_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
step_state_free (gpointer data)
{
  StepState *st = data;
  g_ptr_array_unref (st->questions);
  g_ptr_array_unref (st->verdicts);
  g_ptr_array_unref (st->typed);
  g_free (st);
}

CrStepCardPractice *
cr_step_card_practice_new (CrStepCard *card)
{
  CrStepCardPractice *self = g_new0 (CrStepCardPractice, 1);
  self->card = card;
  self->backward = self->step = -1;
  self->last_answered = -1;
  self->steps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, step_state_free);
  return self;
}

void
cr_step_card_practice_free (CrStepCardPractice *self)
{
  if (!self)
    return;
  g_object_set_data (G_OBJECT (self->card), "cr-practice-focus-idle", NULL);
  g_object_set_data (G_OBJECT (self->card), "cr-practice-scroll-idle", NULL);
  g_clear_weak_pointer (&self->focus_entry);
  g_clear_weak_pointer (&self->scroll_to);
  g_free (self->unreadable);
  g_hash_table_unref (self->steps);
  cr_run_record_unref (self->record);
  g_free (self);
}

void
cr_step_card_practice_class_init (GObjectClass *klass)
{
  signals[PRACTICE_CHANGED] = g_signal_new ("practice-changed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
}

static void carry_answers (CrStepCardPractice *self, GHashTable *old);

void
cr_step_card_practice_showing (CrStepCardPractice *self,
                               const CrRunRecord  *record,
                               int                 backward,
                               int                 step)
{
  if (record && record != self->record)
    {
      /* Another run (an edit re-runs the script): the answers to steps
       * that ask the same thing carry over; the rest are new. A run
       * without a record (an error) keeps the answers for the next. */
      GHashTable *old = self->steps;
      self->steps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, step_state_free);
      cr_run_record_unref (self->record);
      self->record = cr_run_record_ref ((CrRunRecord *) record);
      carry_answers (self, old);
      g_hash_table_unref (old);
    }
  if (backward != self->backward || step != self->step)
    {
      g_clear_pointer (&self->unreadable, g_free);
      self->last_answered = -1;
    }
  self->backward = backward;
  self->step = step;
}

static StepState *step_state (CrStepCardPractice *self, int backward, int step);

/* Whether two questions ask the same thing with the same answer. */
static gboolean
same_question (const CrPracticeQuestion *a,
               const CrPracticeQuestion *b)
{
  const CrTensorSnapshot *x = a->expected, *y = b->expected;
  if (a->ask != b->ask || a->input != b->input || g_strcmp0 (a->name, b->name) != 0
      || x->numel != y->numel || x->ndim != y->ndim)
    return FALSE;
  for (gint64 i = 0; i < x->numel; i++)
    if (x->values[i] != y->values[i])
      return FALSE;
  return TRUE;
}

/* Moves the answers of old (the previous run's states) to the same steps
 * of the record now shown, where they ask the same questions. */
static void
carry_answers (CrStepCardPractice *self,
               GHashTable         *old)
{
  CrPracticeLevel level = self->level;
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, old);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      StepState *was = value;
      int backward, step, was_level;
      if (sscanf (key, "%d:%d:%d", &backward, &step, &was_level) != 3)
        continue;
      gboolean any = was->revealed;
      for (guint q = 0; q < was->verdicts->len; q++)
        any |= was->verdicts->pdata[q] != NULL;
      if (!any)
        continue;
      self->level = (CrPracticeLevel) was_level;
      StepState *now = step_state (self, backward, step);
      if (now && now->questions->len == was->questions->len)
        {
          gboolean same = TRUE;
          for (guint q = 0; q < now->questions->len && same; q++)
            same = same_question (now->questions->pdata[q], was->questions->pdata[q]);
          if (same)
            {
              for (guint q = 0; q < now->questions->len; q++)
                {
                  now->verdicts->pdata[q] = g_steal_pointer (&was->verdicts->pdata[q]);
                  now->typed->pdata[q] = g_steal_pointer (&was->typed->pdata[q]);
                }
              now->revealed = was->revealed;
              now->gave_up = was->gave_up;
            }
        }
    }
  self->level = level;
}

/* The state of step of c's call at the practice's level, made on first
 * use; NULL when the step asks nothing. */
static StepState *
step_state (CrStepCardPractice *self,
            int                 backward,
            int                 step)
{
  if (!self->record)
    return NULL;
  g_autofree char *key = g_strdup_printf ("%d:%d:%d", backward, step, self->level);
  StepState *st = g_hash_table_lookup (self->steps, key);
  if (st)
    return st->questions->len > 0 ? st : NULL;
  st = g_new0 (StepState, 1);
  st->questions = backward == FORWARD_STEP
                  ? cr_practice_forward_questions (self->record, step)
                  : cr_practice_questions (self->record, backward, step, self->level);
  st->verdicts = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_practice_verdict_free);
  st->typed = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_set_size (st->verdicts, st->questions->len);
  g_ptr_array_set_size (st->typed, st->questions->len);
  g_hash_table_insert (self->steps, g_steal_pointer (&key), st);
  return st->questions->len > 0 ? st : NULL;
}

static StepState *
shown_state (CrStepCardPractice *self)
{
  return self->on ? step_state (self, self->backward, self->step) : NULL;
}

gboolean
cr_step_card_practice_asks (const CrStepCardCtx *c,
                            const CrRecordStep  *step)
{
  if (!c->practice || !c->practice->on)
    return FALSE;
  StepState *st = step_state (c->practice, c->backward_index, (int) step->index);
  return st && !st->revealed;
}

static void
score (CrStepCardPractice *self,
       guint              *right,
       guint              *answered)
{
  *right = *answered = 0;
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      StepState *st = value;
      for (guint i = 0; i < st->verdicts->len; i++)
        {
          const CrPracticeVerdict *v = g_ptr_array_index (st->verdicts, i);
          if (v)
            {
              (*answered)++;
              *right += cr_practice_verdict_is_right (v);
            }
          else if (st->gave_up)
            (*answered)++;
        }
    }
}

static char *
score_text (CrStepCardPractice *self)
{
  guint right, answered;
  score (self, &right, &answered);
  if (answered == 0)
    return g_strdup ("Practice · no answers yet");
  return g_strdup_printf ("Practice · %u of %u right", right, answered);
}

/* ---- answering ---------------------------------------------------------- */

/* The card's scrolled window shows self->scroll_to: its top, and as much
 * of it as fits. After an answer, once laid out. */
static gboolean
scroll_idle (gpointer user_data)
{
  CrStepCardPractice *self = user_data;
  g_object_set_data (G_OBJECT (self->card), "cr-practice-scroll-idle", NULL);
  GtkWidget *target = self->scroll_to;
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self->card),
                                                 GTK_TYPE_SCROLLED_WINDOW);
  graphene_rect_t bounds;
  if (!target || !scroller || !gtk_widget_compute_bounds (target, GTK_WIDGET (self->card),
                                                          &bounds))
    return G_SOURCE_REMOVE;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  double page = gtk_adjustment_get_page_size (adj);
  double value = gtk_adjustment_get_value (adj);
  double top = bounds.origin.y, bottom = top + bounds.size.height;
  if (bottom > value + page)
    value = bottom - page;
  if (top < value)
    value = top;
  gtk_adjustment_set_value (adj, value);
  return G_SOURCE_REMOVE;
}

static void
scroll_later (CrStepCardPractice *self)
{
  if (!self->scroll_to || g_object_get_data (G_OBJECT (self->card), "cr-practice-scroll-idle"))
    return;
  guint id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, scroll_idle, self, NULL);
  g_object_set_data_full (G_OBJECT (self->card), "cr-practice-scroll-idle",
                          GUINT_TO_POINTER (id), remove_idle);
}

static void
rebuild (CrStepCardPractice *self)
{
  if (!self->record)
    return;
  g_autoptr (CrRunRecord) record = cr_run_record_ref (self->record);
  g_clear_weak_pointer (&self->scroll_to);
  if (self->backward == FORWARD_STEP)
    cr_step_card_show_record_forward (self->card, record, self->step, self->forward_index,
                                      self->forward_n, self->forward_has_backward);
  else
    cr_step_card_show_record_step (self->card, record, self->backward, self->step);
  if (self->focus_entry && gtk_widget_get_mapped (self->focus_entry))
    gtk_widget_grab_focus (self->focus_entry);
  scroll_later (self);
  g_signal_emit (self->card, signals[PRACTICE_CHANGED], 0);
}

/* The verdict on question q of the step shown (typed, or choice ≥ 0). */
static gboolean
answer (CrStepCardPractice *self,
        guint               q,
        const char         *typed,
        int                 choice)
{
  StepState *st = shown_state (self);
  if (!st || st->revealed || q >= st->questions->len || st->verdicts->pdata[q])
    return FALSE;
  const CrPracticeQuestion *question = g_ptr_array_index (st->questions, q);
  if (choice >= (int) question->choices->len)
    return FALSE;
  CrPracticeVerdict *v = choice >= 0 ? cr_practice_check_choice (question, (guint) choice)
                                     : cr_practice_check (question, typed ? typed : "");
  g_free (st->typed->pdata[q]);
  st->typed->pdata[q] = choice >= 0
    ? g_strdup (((CrPracticeChoice *) question->choices->pdata[choice])->text)
    : g_strdup (typed);
  if (v->kind == CR_PRACTICE_UNREADABLE)
    {
      /* Not an answer: say why, keep asking. */
      g_free (self->unreadable);
      self->unreadable = g_strdup (v->why);
      cr_practice_verdict_free (v);
      rebuild (self);
      return TRUE;
    }
  g_clear_pointer (&self->unreadable, g_free);
  st->verdicts->pdata[q] = v;
  self->last_answered = (int) q;
  gboolean all = TRUE;
  for (guint i = 0; i < st->verdicts->len; i++)
    all &= st->verdicts->pdata[i] != NULL;
  st->revealed = all;
  rebuild (self);
  return TRUE;
}

/* A choice's letter typed alone ("b", "C") picks that choice. */
static int
typed_letter (const char *text)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  if (strlen (t) != 1 || !g_ascii_isalpha (t[0]))
    return -1;
  return g_ascii_toupper (t[0]) - 'A';
}

static void
on_entry_activate (GtkEntry           *entry,
                   CrStepCardPractice *self)
{
  guint q = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (entry), "cr-practice-question"));
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  StepState *st = shown_state (self);
  int letter_choice = typed_letter (text);
  if (st && q < st->questions->len && letter_choice >= 0
      && (guint) letter_choice < ((CrPracticeQuestion *) st->questions->pdata[q])->choices->len)
    answer (self, q, NULL, letter_choice);
  else
    answer (self, q, text, -1);
}

static void
on_choice_clicked (GtkButton          *button,
                   CrStepCardPractice *self)
{
  guint q = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "cr-practice-question"));
  int choice = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "cr-practice-choice"));
  answer (self, q, NULL, choice);
}

static void
on_reveal_clicked (GtkButton          *button,
                   CrStepCardPractice *self)
{
  cr_step_card_practice_reveal (self->card);
}

/* A step that asks takes the keyboard to its entry, unless the person is
 * typing elsewhere (the script): stepping with → or Page Down, then typing
 * the answer and Enter, needs no mouse. Once the step is answered the
 * entry goes, and → steps again. */
static gboolean
focus_entry_idle (gpointer user_data)
{
  CrStepCardPractice *self = user_data;
  g_object_set_data (G_OBJECT (self->card), "cr-practice-focus-idle", NULL);
  GtkWidget *entry = self->focus_entry;
  if (!entry || !gtk_widget_get_mapped (entry))
    return G_SOURCE_REMOVE;
  GtkRoot *root = gtk_widget_get_root (entry);
  GtkWidget *focus = root ? gtk_root_get_focus (root) : NULL;
  gboolean typing_elsewhere = FALSE;
  for (GtkWidget *w = focus; w; w = gtk_widget_get_parent (w))
    {
      if (w == GTK_WIDGET (self->card))
        {
          typing_elsewhere = FALSE;
          break;
        }
      if (GTK_IS_TEXT_VIEW (w) || GTK_IS_EDITABLE (w))
        typing_elsewhere = TRUE;
    }
  if (!typing_elsewhere)
    gtk_widget_grab_focus (entry);
  return G_SOURCE_REMOVE;
}

static void
focus_entry_later (CrStepCardPractice *self)
{
  if (self->presenting || !self->focus_entry
      || g_object_get_data (G_OBJECT (self->card), "cr-practice-focus-idle"))
    return;
  guint id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, focus_entry_idle, self, NULL);
  g_object_set_data_full (G_OBJECT (self->card), "cr-practice-focus-idle",
                          GUINT_TO_POINTER (id), remove_idle);
}

/* ---- the card that asks ------------------------------------------------- */

static const char *
letter (guint i)
{
  static const char *const letters[] = { "A", "B", "C", "D", "E", "F" };
  return i < G_N_ELEMENTS (letters) ? letters[i] : "?";
}

static GtkWidget *
section_new (GtkWidget  *parent,
             const char *title,
             const char *role)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (box, "cr-section");
  gtk_box_append (GTK_BOX (box), cr_card_heading_new (title, role));
  gtk_box_append (GTK_BOX (parent), box);
  return box;
}

/* "✓ Right." / "✗ Not quite." and its why. */
static void
add_verdict (GtkWidget               *box,
             const CrPracticeVerdict *v)
{
  gboolean right = cr_practice_verdict_is_right (v);
  g_autofree char *head = g_strdup_printf ("%s %s", right ? "✓" : "✗", v->headline);
  GtkWidget *headline = cr_card_label_new (head, "heading");
  gtk_widget_add_css_class (headline, right ? "success" : "error");
  gtk_widget_add_css_class (headline, "cr-practice-verdict");
  gtk_box_append (GTK_BOX (box), headline);
  gtk_box_append (GTK_BOX (box), cr_card_label_new (v->why, "cr-footnote"));
}

static void
add_question (CrStepCardPractice       *self,
              GtkWidget                *section,
              StepState                *st,
              guint                     q,
              gboolean                  first_open)
{
  const CrPracticeQuestion *question = g_ptr_array_index (st->questions, q);
  const CrPracticeVerdict *v = g_ptr_array_index (st->verdicts, q);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (box, "cr-practice-question");
  if (q > 0)
    gtk_widget_set_margin_top (box, 8);
  gtk_box_append (GTK_BOX (section), box);
  gtk_box_append (GTK_BOX (box), cr_card_label_new (question->prompt, NULL));

  if (v)
    {
      /* Answered while others of the step still wait: the verdict now,
       * the step whole once they are answered too. */
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      gtk_box_append (GTK_BOX (line), cr_card_fraction_new (question->name, CR_ROLE_OUT));
      g_autofree char *said = g_strdup_printf ("= %s", (char *) st->typed->pdata[q]);
      GtkWidget *said_label = cr_card_label_new (said, "monospace");
      gtk_widget_set_valign (said_label, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (line), said_label);
      gtk_box_append (GTK_BOX (box), line);
      add_verdict (box, v);
      if ((int) q == self->last_answered)
        g_set_weak_pointer (&self->scroll_to, box);
      return;
    }

  if (!self->presenting)
    {
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *name = cr_card_fraction_new (question->name, CR_ROLE_OUT);
      gtk_widget_set_valign (name, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (line), name);
      GtkWidget *equals = gtk_label_new ("=");
      gtk_widget_add_css_class (equals, "cr-op");
      gtk_box_append (GTK_BOX (line), equals);
      GtkWidget *entry = gtk_entry_new ();
      gtk_widget_add_css_class (entry, "monospace");
      gtk_widget_set_hexpand (entry, TRUE);
      gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
      gtk_entry_set_placeholder_text (GTK_ENTRY (entry), question->expected->numel > 1
                                                         ? "[1, 2; 3, 4] or 1 2 3 4"
                                                         : "a number");
      g_autofree char *accessible = g_strdup_printf ("Your answer for %s", question->name);
      gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      accessible, -1);
      if (st->typed->pdata[q])
        gtk_editable_set_text (GTK_EDITABLE (entry), st->typed->pdata[q]);
      g_object_set_data (G_OBJECT (entry), "cr-practice-question", GUINT_TO_POINTER (q));
      g_signal_connect (entry, "activate", G_CALLBACK (on_entry_activate), self);
      gtk_box_append (GTK_BOX (line), entry);
      gtk_box_append (GTK_BOX (box), line);
      if (first_open)
        g_set_weak_pointer (&self->focus_entry, entry);
    }

  /* The choices: buttons to pick from, or for the room lettered lines. */
  GtkWidget *choices = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class (choices, "cr-practice-choices");
  if (!self->presenting)
    gtk_box_append (GTK_BOX (choices), cr_card_label_new ("or pick one:", "cr-footnote"));
  for (guint i = 0; i < question->choices->len; i++)
    {
      const CrPracticeChoice *c = g_ptr_array_index (question->choices, i);
      g_autofree char *text = g_strdup_printf ("%s   %s", letter (i), c->text);
      GtkWidget *label = cr_card_label_new (text, "monospace");
      if (self->presenting)
        {
          gtk_box_append (GTK_BOX (choices), label);
          continue;
        }
      GtkWidget *button = gtk_button_new ();
      gtk_button_set_child (GTK_BUTTON (button), label);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_add_css_class (button, "cr-practice-choice");
      g_object_set_data (G_OBJECT (button), "cr-practice-question", GUINT_TO_POINTER (q));
      g_object_set_data (G_OBJECT (button), "cr-practice-choice", GINT_TO_POINTER ((int) i));
      g_signal_connect (button, "clicked", G_CALLBACK (on_choice_clicked), self);
      gtk_box_append (GTK_BOX (choices), button);
    }
  gtk_box_append (GTK_BOX (box), choices);
}

static void add_ask_section (CrStepCardPractice *self, GtkWidget *box, StepState *st);

GtkWidget *
cr_step_card_practice_build (const CrStepCardCtx *c,
                             const CrRecordStep  *step)
{
  CrStepCardPractice *self = c->practice;
  StepState *st = step_state (self, c->backward_index, (int) step->index);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_add_css_class (box, "cr-practice");
  /* What the learner works from, in the words of the handout's question
   * page: the incoming gradient, and at the first level the local
   * gradients (at the second their rule only); a leaf's .grad before. */
  g_autoptr (CrStepText) given = cr_step_text_new_given (c->record, c->backward_index,
                                                         (int) step->index,
                                                         self->level != CR_PRACTICE_LEVEL_SENT);
  gtk_box_append (GTK_BOX (box), cr_step_card_layout_header (given));
  cr_step_card_layout_sections (box, given);

  add_ask_section (self, box, st);
  return box;
}

/* "Your turn": the questions of st, the score and Reveal. */
static void
add_ask_section (CrStepCardPractice *self,
                 GtkWidget          *box,
                 StepState          *st)
{
  GtkWidget *section = section_new (box, self->presenting ? "Your turn: what comes out?"
                                                          : "Your turn", CR_ROLE_OUT);
  gtk_widget_add_css_class (section, "cr-practice-ask");
  g_clear_weak_pointer (&self->focus_entry);
  gboolean first_open = TRUE;
  for (guint q = 0; q < st->questions->len; q++)
    {
      gboolean open = st->verdicts->pdata[q] == NULL;
      add_question (self, section, st, q, open && first_open);
      first_open &= !open;
    }
  if (self->unreadable && !self->presenting)
    {
      GtkWidget *note = cr_card_label_new (self->unreadable, "cr-footnote");
      gtk_widget_add_css_class (note, "warning");
      gtk_box_append (GTK_BOX (section), note);
    }

  GtkWidget *footer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  if (self->presenting)
    gtk_box_append (GTK_BOX (footer), cr_card_label_new ("Ask the room, then Page Down reveals "
                                                         "the answer.", "cr-footnote"));
  else
    {
      g_autofree char *scored = score_text (self);
      GtkWidget *score_label = cr_card_label_new (scored, "cr-footnote");
      gtk_widget_add_css_class (score_label, "cr-practice-score");
      gtk_widget_set_hexpand (score_label, TRUE);
      gtk_box_append (GTK_BOX (footer), score_label);
      GtkWidget *reveal = gtk_button_new_with_label ("Reveal");
      gtk_widget_set_tooltip_text (reveal, "Show the step's answers (unanswered ones count as "
                                           "wrong)");
      g_signal_connect (reveal, "clicked", G_CALLBACK (on_reveal_clicked), self);
      gtk_box_append (GTK_BOX (footer), reveal);
    }
  gtk_box_append (GTK_BOX (section), footer);
  if (!self->presenting)
    gtk_box_append (GTK_BOX (section), cr_card_label_new (
      "Type a number or a tensor's entries and press Enter, or pick a choice (or type its "
      "letter); Page Down goes on without answering.", "cr-footnote"));
  focus_entry_later (self);
}

/* ---- the revealed step -------------------------------------------------- */

static GtkWidget *add_outcome_section (CrStepCardPractice *self, GtkWidget *box, StepState *st);

void
cr_step_card_practice_add_outcome (GtkWidget           *box,
                                   const CrStepCardCtx *c,
                                   const CrRecordStep  *step)
{
  CrStepCardPractice *self = c->practice;
  if (!self || !self->on)
    return;
  StepState *st = step_state (self, c->backward_index, (int) step->index);
  if (!st || !st->revealed)
    return;
  add_outcome_section (self, box, st);
}

/* The verdicts on st's answers, or how each unanswered answer comes about
 * (the section, appended to box). */
static GtkWidget *
add_outcome_section (CrStepCardPractice *self,
                     GtkWidget          *box,
                     StepState          *st)
{
  GtkWidget *section = section_new (box, self->presenting ? "The answer" : "Your answers",
                                    CR_ROLE_OUT);
  gtk_widget_add_css_class (section, "cr-practice-outcome");
  g_set_weak_pointer (&self->scroll_to, section);
  for (guint q = 0; q < st->questions->len; q++)
    {
      const CrPracticeQuestion *question = g_ptr_array_index (st->questions, q);
      const CrPracticeVerdict *v = g_ptr_array_index (st->verdicts, q);
      GtkWidget *one = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      if (q > 0)
        gtk_widget_set_margin_top (one, 6);
      gtk_box_append (GTK_BOX (section), one);
      if (v)
        {
          g_autofree char *said = g_strdup_printf ("%s = %s", question->name,
                                                   (char *) st->typed->pdata[q]);
          gtk_box_append (GTK_BOX (one), cr_card_label_new (said, "monospace"));
          add_verdict (one, v);
          continue;
        }
      /* Revealed unanswered (presenting, or Reveal): the right choice and
       * how the answer comes about. */
      guint right = 0;
      for (guint i = 0; i < question->choices->len; i++)
        if (((CrPracticeChoice *) question->choices->pdata[i])->right)
          right = i;
      g_autoptr (CrPracticeVerdict) how = cr_practice_check_choice (question, right);
      g_autofree char *line = g_strdup_printf ("%s: %s, %s", question->name, letter (right),
                                               how->answer);
      GtkWidget *label = cr_card_label_new (line, "monospace");
      gtk_widget_add_css_class (label, "cr-practice-verdict");
      gtk_box_append (GTK_BOX (one), label);
      gtk_box_append (GTK_BOX (one), cr_card_label_new (how->why, "cr-footnote"));
    }
  if (!self->presenting)
    {
      g_autofree char *scored = score_text (self);
      GtkWidget *score_label = cr_card_label_new (scored, "cr-footnote");
      gtk_widget_add_css_class (score_label, "cr-practice-score");
      gtk_box_append (GTK_BOX (section), score_label);
    }
  return section;
}

/* ---- a forward step ------------------------------------------------------ */

GtkWidget *
cr_step_card_practice_forward (CrStepCardPractice *self,
                               const CrRunRecord  *record,
                               int                 op,
                               guint               index,
                               guint               n,
                               gboolean            has_backward)
{
  cr_step_card_practice_showing (self, record, FORWARD_STEP, op);
  self->forward_index = index;
  self->forward_n = n;
  self->forward_has_backward = has_backward;
  StepState *st = shown_state (self);
  if (!st || st->revealed)
    return NULL;
  GtkWidget *box = cr_step_card_build_forward_ask (record, op, index, n);
  gtk_widget_add_css_class (box, "cr-practice");
  add_ask_section (self, box, st);
  return box;
}

void
cr_step_card_practice_add_forward_outcome (GtkWidget          *box,
                                           CrStepCardPractice *self)
{
  StepState *st = self && self->backward == FORWARD_STEP ? shown_state (self) : NULL;
  if (!st || !st->revealed)
    return;
  /* On top, under the header, as on a backward step. */
  GtkWidget *section = add_outcome_section (self, box, st);
  gtk_box_reorder_child_after (GTK_BOX (box), section, gtk_widget_get_first_child (box));
}

/* ---- the card's API ---------------------------------------------------- */

void
cr_step_card_set_practice (CrStepCard      *card,
                           gboolean         practice,
                           CrPracticeLevel  level)
{
  g_return_if_fail (CR_IS_STEP_CARD (card));
  CrStepCardPractice *self = cr_step_card_get_practice_state (card);
  if (self->on == !!practice && self->level == level)
    return;
  self->on = !!practice;
  self->level = level;
}

gboolean
cr_step_card_get_practice (CrStepCard *card)
{
  g_return_val_if_fail (CR_IS_STEP_CARD (card), FALSE);
  return cr_step_card_get_practice_state (card)->on;
}

void
cr_step_card_set_practice_presenting (CrStepCard *card,
                                      gboolean    presenting)
{
  g_return_if_fail (CR_IS_STEP_CARD (card));
  CrStepCardPractice *self = cr_step_card_get_practice_state (card);
  if (self->presenting == !!presenting)
    return;
  self->presenting = !!presenting;
}

gboolean
cr_step_card_practice_hides (CrStepCard *card)
{
  g_return_val_if_fail (CR_IS_STEP_CARD (card), FALSE);
  StepState *st = shown_state (cr_step_card_get_practice_state (card));
  /* The card may show what is no backward step since (a forward step). */
  GtkWidget *content = gtk_widget_get_first_child (GTK_WIDGET (card));
  return st && !st->revealed && content && gtk_widget_has_css_class (content, "cr-practice");
}

gboolean
cr_step_card_practice_reveal (CrStepCard *card)
{
  g_return_val_if_fail (CR_IS_STEP_CARD (card), FALSE);
  CrStepCardPractice *self = cr_step_card_get_practice_state (card);
  if (!cr_step_card_practice_hides (card))
    return FALSE;
  StepState *st = shown_state (self);
  st->revealed = TRUE;
  st->gave_up = !self->presenting;
  rebuild (self);
  return TRUE;
}

gboolean
cr_step_card_practice_answer (CrStepCard *card,
                              guint       question,
                              const char *typed,
                              int         choice)
{
  g_return_val_if_fail (CR_IS_STEP_CARD (card), FALSE);
  return answer (cr_step_card_get_practice_state (card), question, typed, choice);
}

void
cr_step_card_practice_score (CrStepCard *card,
                             guint      *right,
                             guint      *answered)
{
  g_return_if_fail (CR_IS_STEP_CARD (card));
  guint r, a;
  score (cr_step_card_get_practice_state (card), &r, &a);
  if (right)
    *right = r;
  if (answered)
    *answered = a;
}
