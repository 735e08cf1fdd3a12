/* cr-handout-practice.c — a handout for practice (cr-handout.h): the
 * question page's text, the card with its answers hidden and the
 * question's choices lettered as presentation asks the room, and the
 * answer page's verdicts. The questions and the words of each answer come
 * from core/teach/cr-practice.h, as the window's practice mode says them. */
#include "cr-handout-private.h"

#include "cr-practice.h"
#include "cr-record-text.h"

/* "A", "B", ... for choice i. */
static const char *
letter (guint i)
{
  static const char *const letters[] = { "A", "B", "C", "D", "E", "F" };
  return i < G_N_ELEMENTS (letters) ? letters[i] : "?";
}

static void
append_heading (GString        *m,
                const char     *text,
                CrStepTextRole  role,
                gboolean        dark)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_string_append_printf (m, "%s<span weight=\"bold\" foreground=\"%s\">%s</span>",
                          m->len ? "\n<span size=\"50%\"> </span>\n" : "",
                          cr_handout_role_colour (role, dark), escaped);
}

static void
append_line (GString    *m,
             const char *text,
             gboolean    mono,
             gboolean    italic)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  if (mono)
    g_string_append_printf (m, "%s<span font_family=\"%s\" size=\"90%%\">%s</span>",
                            m->len ? "\n" : "", CR_HANDOUT_MONO_FONT, escaped);
  else if (italic)
    g_string_append_printf (m, "%s<span size=\"90%%\" style=\"italic\">%s</span>",
                            m->len ? "\n" : "", escaped);
  else
    g_string_append_printf (m, "%s%s", m->len ? "\n" : "", escaped);
}

/* "Your turn": each question, a line to write the answer on, its choices. */
static void
append_questions (GString         *m,
                  const GPtrArray *questions,
                  gboolean         dark)
{
  append_heading (m, "Your turn: what comes out?", CR_STEP_TEXT_OUT, dark);
  for (guint q = 0; q < questions->len; q++)
    {
      const CrPracticeQuestion *question = g_ptr_array_index (questions, q);
      if (q > 0)
        g_string_append (m, "\n<span size=\"50%\"> </span>");
      append_line (m, question->prompt, FALSE, FALSE);
      g_autofree char *blank = g_strdup_printf ("%s = ____________________", question->name);
      append_line (m, blank, TRUE, FALSE);
      for (guint i = 0; i < question->choices->len; i++)
        {
          const CrPracticeChoice *c = g_ptr_array_index (question->choices, i);
          g_autofree char *choice = g_strdup_printf ("  %s   %s", letter (i), c->text);
          append_line (m, choice, TRUE, FALSE);
        }
    }
  append_line (m, "Work it out, or pick a choice; the answer is on the next page.", FALSE, TRUE);
}

char *
cr_handout_question_markup (const CrStepText *given,
                            const GPtrArray  *questions,
                            gboolean          dark)
{
  GString *m = g_string_new (NULL);
  if (given)
    {
      g_autofree char *sections = cr_handout_card_markup (given, dark);
      g_string_append (m, sections);
    }
  append_questions (m, questions, dark);
  return g_string_free (m, FALSE);
}

char *
cr_handout_answers_markup (const GPtrArray *questions,
                           gboolean         dark)
{
  GString *m = g_string_new (NULL);
  append_heading (m, "The answer", CR_STEP_TEXT_OUT, dark);
  for (guint q = 0; q < questions->len; q++)
    {
      const CrPracticeQuestion *question = g_ptr_array_index (questions, q);
      guint right = 0;
      for (guint i = 0; i < question->choices->len; i++)
        if (((const CrPracticeChoice *) g_ptr_array_index (question->choices, i))->right)
          right = i;
      g_autoptr (CrPracticeVerdict) how = cr_practice_check_choice (question, right);
      g_autofree char *line = g_strdup_printf ("%s: %s, %s", question->name, letter (right),
                                               how->answer);
      append_line (m, line, TRUE, FALSE);
      append_line (m, how->why, FALSE, TRUE);
    }
  return g_string_free (m, FALSE);
}
