/* cr-step-text-forward.c — a forward op told (the words of
 * cr-record-forward.h, as the window's forward card shows them), and what
 * a practice question gives, on a forward op or a backward step: the card
 * that asks and the handout's question page both show it. */
#include "cr-step-text-private.h"

#include "cr-record-forward.h"
#include "cr-record-text.h"

#include <string.h>

static const CrTensorSnapshot *
result_value (const CrRunRecord *record,
              const CrRecordOp  *op)
{
  int t = op->outputs && op->outputs->len > 0 ? g_array_index (op->outputs, int, 0) : -1;
  if (t < 0 || (guint) t >= record->tensors->len)
    return NULL;
  const CrRecordTensor *tensor = g_ptr_array_index (record->tensors, t);
  return tensor->value;
}

/* Where the op ran, and the node that will run its backward:
 * "line 13 · iteration 2 · grad_fn MulBackward0". */
static char *
forward_caption (const CrRunRecord *record,
                 const CrRecordOp  *op)
{
  GString *where = g_string_new (NULL);
  if (op->span.line > 0)
    {
      g_autofree char *line = cr_run_record_line_text (record, op->span.line, FALSE);
      g_string_append_printf (where, "%s · ", line);
    }
  g_autofree char *iteration = cr_record_iteration_text (op->loop_path, op->loop_depth);
  if (iteration)
    g_string_append_printf (where, "%s · ", iteration);
  g_string_append_printf (where, "grad_fn %s", op->grad_fn ? op->grad_fn : "?");
  return g_string_free (where, FALSE);
}

CrStepText *
cr_step_text_new_forward (const CrRunRecord *record,
                          int                op_index,
                          guint              index,
                          guint              n,
                          gboolean           has_backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  g_autoptr (CrForwardText) forward = cr_forward_text_new (record, op_index);
  if (!forward)
    return NULL;
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  CrStepText *text = cr_step_text_alloc (CR_STEP_TEXT_FORWARD);
  text->count = cr_step_text_story_count (CR_STEP_TEXT_FORWARD, index, n);
  text->title = g_strdup (forward->expression ? forward->expression : op->grad_fn);
  text->symbol = g_strdup (op->symbol);
  text->caption = forward_caption (record, op);

  CrStepTextSection *what = cr_step_text_add_section (text, "What it computes", CR_STEP_TEXT_OUT,
                                         CR_STEP_TEXT_SECTION_FORWARD_WHAT);
  cr_step_text_add_words (what, CR_STEP_TEXT_SENTENCE, g_strdup_printf ("It %s.", forward->sentence));

  CrStepTextSection *result = cr_step_text_add_section (text, "With the numbers", CR_STEP_TEXT_OUT,
                                           CR_STEP_TEXT_SECTION_FORWARD_RESULT);
  /* A small tensor's values as a matrix under its name; else the equation
   * the forward trace writes. */
  const CrTensorSnapshot *value = result_value (record, op);
  gboolean matrix = value && value->numel > 1 && value->n_values >= value->numel
                    && value->numel <= 64;
  CrStepTextItem *f = cr_step_text_add_formula (result);
  if (matrix)
    {
      g_autofree char *named = g_strdup_printf ("%s =", forward->result);
      cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, named, CR_STEP_TEXT_PLAIN);
      cr_step_text_add_value (f, NULL, value, CR_STEP_TEXT_OUT)->break_before = TRUE;
    }
  else
    cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, forward->equation, CR_STEP_TEXT_PLAIN);
  if (forward->example)
    {
      /* An element of a tensor result, or how a sum came about. */
      gboolean element = g_str_has_prefix (forward->example, forward->result)
                         && forward->example[strlen (forward->result)] == '[';
      CrStepTextSection *one = cr_step_text_add_section (text, element ? "One element of it" : "Worked out",
                                            CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_FORWARD_EXAMPLE);
      cr_step_text_add_term (cr_step_text_add_formula (one), CR_STEP_TEXT_WORDS, NULL, forward->example, CR_STEP_TEXT_PLAIN);
    }

  /* What comes next, so that the story reads on. */
  CrStepTextSection *next = cr_step_text_add_section (text, NULL, CR_STEP_TEXT_PLAIN,
                                         CR_STEP_TEXT_SECTION_FORWARD_NEXT);
  cr_step_text_add_note (next, index + 1 < n
    ? "Each op waits for its inputs: the faint nodes are not computed yet."
    : has_backward
    ? "The forward pass is done. Next, backward goes through the same graph the other way, "
      "from the result to the leaves, one node at a time."
    : "The forward pass is done; this script calls no backward.");
  cr_step_text_finish (text);
  return text;
}

/* ---- what a question gives ---------------------------------------------------- */

/* Moves text's first section of kind to the end of given; FALSE: none. */
static gboolean
move_section (CrStepText            *text,
              CrStepText            *given,
              CrStepTextSectionKind  kind)
{
  for (guint i = 0; i < text->sections->len; i++)
    if (((CrStepTextSection *) g_ptr_array_index (text->sections, i))->kind == kind)
      {
        g_ptr_array_add (given->sections, g_ptr_array_steal_index (text->sections, i));
        return TRUE;
      }
  return FALSE;
}

/* A new text with text's header and no sections. */
static CrStepText *
header_of (const CrStepText *text)
{
  CrStepText *given = cr_step_text_alloc (text->pass);
  given->count = g_strdup (text->count);
  given->title = g_strdup (text->title);
  given->symbol = g_strdup (text->symbol);
  given->caption = g_strdup (text->caption);
  given->accumulate = text->accumulate;
  return given;
}

CrStepText *
cr_step_text_new_given (const CrRunRecord *record,
                        int                backward,
                        int                step,
                        gboolean           hide_local)
{
  g_autoptr (CrStepText) text = cr_step_text_new (record, backward, step);
  if (!text)
    return NULL;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  const CrRecordStep *st = g_ptr_array_index (bw->steps, step);
  CrStepText *given = header_of (text);
  move_section (text, given, CR_STEP_TEXT_SECTION_INCOMING);
  if (text->accumulate)
    {
      const char *leaf = cr_record_tensor_label (record, st->leaf, "the leaf");
      g_autofree char *title = g_strdup_printf ("%s.grad before", leaf);
      CrStepTextSection *s = cr_step_text_add_section (given, title, CR_STEP_TEXT_PLAIN,
                                          CR_STEP_TEXT_SECTION_GRAD_BEFORE);
      cr_step_text_add_value (cr_step_text_add_formula (s), NULL, st->grad_before, CR_STEP_TEXT_PLAIN);
    }
  else if (!hide_local)
    move_section (text, given, CR_STEP_TEXT_SECTION_LOCAL);
  else if (st->rule)
    {
      CrStepTextSection *s = cr_step_text_add_section (given, "Rule", CR_STEP_TEXT_LOCAL, CR_STEP_TEXT_SECTION_RULE);
      cr_step_text_add_words (s, CR_STEP_TEXT_RULE, g_strdup (st->rule));
    }
  /* Moved sections are finished; the new ones get their words now. */
  for (guint i = 0; i < given->sections->len; i++)
    {
      CrStepTextSection *s = g_ptr_array_index (given->sections, i);
      if (s->kind == CR_STEP_TEXT_SECTION_GRAD_BEFORE || s->kind == CR_STEP_TEXT_SECTION_RULE)
        cr_step_text_finish_section (s);
    }
  return given;
}

CrStepText *
cr_step_text_new_forward_given (const CrRunRecord *record,
                                int                op_index,
                                guint              index,
                                guint              n)
{
  g_autoptr (CrStepText) text = cr_step_text_new_forward (record, op_index, index, n, FALSE);
  if (!text)
    return NULL;
  CrStepText *given = header_of (text);
  move_section (text, given, CR_STEP_TEXT_SECTION_FORWARD_WHAT);
  /* What the learner computes from: each input's values, by its name. */
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  CrStepTextSection *s = cr_step_text_add_section (given, op->inputs && op->inputs->len == 1 ? "Its input"
                                                                                : "Its inputs",
                                      CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_FORWARD_INPUTS);
  for (guint i = 0; op->inputs && i < op->inputs->len; i++)
    {
      int t = g_array_index (op->inputs, int, i);
      const CrRecordTensor *tensor = t >= 0 && (guint) t < record->tensors->len
                                     ? g_ptr_array_index (record->tensors, t) : NULL;
      if (!tensor || !tensor->value)
        continue;
      const char *name = cr_record_tensor_label (record, t, "an input");
      CrStepTextItem *f = cr_step_text_add_formula (s);
      if (tensor->value->numel == 1 && tensor->value->n_values >= 1)
        {
          /* A number on the name's line. */
          g_autofree char *number = cr_record_value_brief (tensor->value, 1);
          g_autofree char *line = g_strdup_printf ("%s = %s", name, number);
          cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, line, CR_STEP_TEXT_PLAIN);
          continue;
        }
      g_autofree char *named = g_strdup_printf ("%s =", name);
      cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, named, CR_STEP_TEXT_PLAIN);
      cr_step_text_add_value (f, NULL, tensor->value, CR_STEP_TEXT_PLAIN)->break_before = TRUE;
    }
  cr_step_text_finish_section (s);
  return given;
}

