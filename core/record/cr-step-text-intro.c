/* cr-step-text-intro.c — the cards before any step, in words: how to step
 * through a backward call (the forward pass first, the chain rule's three
 * roles, the keys), and what to say when there is nothing to step (no
 * graph, no backward call, a script that stopped before one). The step
 * card lays them out (ui/cr-step-card-intro.c) with every word from here. */
#include "cr-step-text-private.h"

#include "cr-record-forward.h"
#include "cr-record-text.h"

/* A new card before any step, titled title, with caption (may be NULL). */
static CrStepText *
before_new (const char *title,
            const char *caption)
{
  CrStepText *text = cr_step_text_alloc (CR_STEP_TEXT_BEFORE);
  text->title = g_strdup (title);
  text->caption = g_strdup (caption);
  return text;
}

/* A role of the chain rule: what it is, and the gradient that plays it. */
static void
add_role (CrStepTextSection *s,
          const char        *what,
          const char        *gradient,
          CrStepTextRole     role)
{
  CrStepTextItem *f = cr_step_text_add_formula (s);
  cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, what, role);
  cr_step_text_add_term (f, CR_STEP_TEXT_NAME, NULL, gradient, role);
}

/* A row of keys (NULL-terminated) and what they do. */
static void
add_keys (CrStepTextSection  *s,
          const char *const  *keys,
          const char         *what)
{
  CrStepTextItem *f = cr_step_text_add_formula (s);
  for (guint i = 0; keys[i]; i++)
    cr_step_text_add_term (f, CR_STEP_TEXT_KEY, NULL, keys[i], CR_STEP_TEXT_PLAIN);
  cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, what, CR_STEP_TEXT_PLAIN);
}

CrStepText *
cr_step_text_new_intro (const CrRunRecord *record,
                        int                backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (backward < 0 || (guint) backward >= record->backwards->len)
    return NULL;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  guint n = bw->steps->len;
  g_autofree char *picker = cr_record_backward_picker_title (record, (guint) backward);
  /* One call: its number says nothing. */
  const char *shown = record->backwards->len > 1 ? picker : bw->title ? bw->title : picker;
  CrStepText *text = before_new ("Step through backward", shown);

  /* The story starts with the forward pass that built the graph. */
  CrStepTextSection *intro = cr_step_text_add_section (text, NULL, CR_STEP_TEXT_PLAIN,
                                                       CR_STEP_TEXT_SECTION_INTRO);
  g_autoptr (GArray) forward = cr_record_forward_ops (record, backward);
  if (forward->len > 0)
    cr_step_text_add_words (intro, CR_STEP_TEXT_SENTENCE, g_strdup_printf (
      "First the forward pass: %u op%s, each computed from its inputs with the numbers, "
      "in the order the script ran them.", forward->len, forward->len == 1 ? "" : "s"));
  cr_step_text_add_words (intro, CR_STEP_TEXT_SENTENCE, g_strdup_printf (
    "%s backward pass takes %u step%s. Each step is one node of the graph applying "
    "the chain rule:", forward->len > 0 ? "Then the" : "The", n, n == 1 ? "" : "s"));

  CrStepTextSection *roles = cr_step_text_add_section (text, NULL, CR_STEP_TEXT_PLAIN,
                                                       CR_STEP_TEXT_SECTION_ROLES);
  const char *root = bw->root_name && *bw->root_name ? bw->root_name : "L";
  g_autofree char *in = g_strdup_printf ("∂%s/∂out", root);
  g_autofree char *out = g_strdup_printf ("∂%s/∂in", root);
  add_role (roles, "the gradient that arrives", in, CR_STEP_TEXT_IN);
  add_role (roles, "times the node's local gradient", "∂out/∂in", CR_STEP_TEXT_LOCAL);
  add_role (roles, "is sent on to each input", out, CR_STEP_TEXT_OUT);

  CrStepTextSection *keys = cr_step_text_add_section (text, "Keys", CR_STEP_TEXT_PLAIN,
                                                      CR_STEP_TEXT_SECTION_KEYS);
  static const char *const next[] = { "Space", "→", "PgDn", NULL };
  static const char *const back[] = { "←", "PgUp", NULL };
  static const char *const ends[] = { "Home", "End", NULL };
  /* Module code: a closed module call steps as one unit until opened. */
  static const char *const groups[] = { "O", "C", NULL };
  static const char *const depth[] = { "[", "]", NULL };
  add_keys (keys, next, "next step");
  add_keys (keys, back, "previous step");
  add_keys (keys, ends, "first op / last step");
  add_keys (keys, groups, "open / close a module call");
  add_keys (keys, depth, "fewer / more module levels");
  cr_step_text_finish (text);

  if (!bw->succeeded)
    {
      const CrRecordError *error = cr_step_text_call_error (record, backward);
      g_autofree char *lead = g_strdup_printf ("The backward call stopped with an error after %u step%s.",
                                               n, n == 1 ? "" : "s");
      g_ptr_array_add (text->sections, cr_step_text_error_section (record, error, lead));
    }
  return text;
}

CrStepText *
cr_step_text_new_no_backward (const char *title)
{
  CrStepText *text = before_new ("No backward pass", title);
  CrStepTextSection *s = cr_step_text_add_section (text, NULL, CR_STEP_TEXT_PLAIN, CR_STEP_TEXT_SECTION_INTRO);
  cr_step_text_add_words (s, CR_STEP_TEXT_SENTENCE, g_strdup (
    "This script builds a graph but never calls .backward(), so there are no steps "
    "to go through. The canvas shows the forward graph: every op that will take part "
    "in the chain rule."));
  cr_step_text_add_note (s, "Add a call such as L.backward() on a scalar result to follow its gradient "
                            "back to the leaves, one node at a time.");
  cr_step_text_finish (text);
  return text;
}

CrStepText *
cr_step_text_new_no_graph (void)
{
  CrStepText *text = before_new ("No graph yet", NULL);
  CrStepTextSection *s = cr_step_text_add_section (text, NULL, CR_STEP_TEXT_PLAIN, CR_STEP_TEXT_SECTION_INTRO);
  cr_step_text_add_words (s, CR_STEP_TEXT_SENTENCE, g_strdup (
    "Run a script that makes a tensor with requires_grad=True and computes with it: "
    "its graph appears on the canvas, and after a .backward() call you can step "
    "through the chain rule here."));
  cr_step_text_finish (text);
  return text;
}

CrStepText *
cr_step_text_new_forward_error (const CrRunRecord   *record,
                                const CrRecordError *error,
                                const char          *title)
{
  g_return_val_if_fail (record != NULL, NULL);
  CrStepText *text = before_new ("Stopped before backward", title);
  /* A notebook's line by its cell, as its traceback says it. */
  g_autofree char *where = error && error->span.line > 0
                           ? cr_run_record_line_text (record, error->span.line, FALSE) : NULL;
  g_autofree char *lead = where
    ? g_strdup_printf ("The script stopped with an error at %s, before any backward "
                       "call. The canvas shows the graph it had built until then.", where)
    : g_strdup ("The script stopped with an error before any backward call. The canvas "
                "shows the graph it had built until then.");
  g_ptr_array_add (text->sections, cr_step_text_error_section (record, error, lead));
  return text;
}
