/* cr-step-text.c — a backward step in words (see the header): the
 * sentences the step card and the handout share, and the whole card as
 * sections of text lines, read from the run record's CrRecordStep in the
 * order the card shows them: roots added up, hooks, the incoming gradient,
 * then a leaf's .grad, or your backward, or the local gradients and what
 * is sent on; contributions accumulated; the error a call stopped with.
 * Each section is a list of items (formulas as terms, with the values they
 * show), which the card lays out with widgets and plain text prints. */
#include "cr-step-text.h"

#include "cr-record-forward.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

/* How many numbers a value writes out before it gives shape and range. */
#define TEXT_VALUES 12

const char *const CR_STEP_TEXT_RETAIN_NOTE =
  "retain_grad() was called on this non-leaf tensor, so backward keeps its gradient in .grad.";
const char *const CR_STEP_TEXT_ROOTS_NOTE =
  "The backward call was given this tensor as a root more than once: its gradients add up "
  "before any step runs.";
const char *const CR_STEP_TEXT_CUSTOM_NOTE =
  "Backward called the backward() of your autograd.Function: it got the incoming gradient as "
  "grad_output and returned one gradient per input of forward().";
const char *const CR_STEP_TEXT_ELEMENTWISE_NOTE =
  "× is elementwise here: each entry of the incoming gradient times the entry of the local "
  "gradient in the same place.";
const char *const CR_STEP_TEXT_ACCUMULATED_NOTE =
  "Gradient reaches this tensor along more than one path; the contributions add up.";
const char *const CR_STEP_TEXT_NO_GRADIENT_NOTE = "This input needs no gradient.";
const char *const CR_STEP_TEXT_STOPPED_LEAD =
  "The backward call stopped with an error after this step.";

char *
cr_step_text_story_count (CrStepTextPass pass,
                          guint          index,
                          guint          n)
{
  return g_strdup_printf ("%s %u of %u", pass == CR_STEP_TEXT_FORWARD ? "Forward" : "Backward",
                          index + 1, n);
}

char *
cr_step_text_count (guint index,
                    guint n_steps)
{
  return cr_step_text_story_count (CR_STEP_TEXT_BACKWARD, index, n_steps);
}

char *
cr_step_text_caption (const char *raw,
                      guint       iteration)
{
  if (!raw)
    return NULL;
  GString *s = g_string_new (NULL);
  const char *at = g_strrstr (raw, ", line ");
  /* A notebook's ", cell 3, line 2" goes whole after the dot. */
  const char *cell = at ? g_strrstr_len (raw, at - raw, ", cell ") : NULL;
  if (cell && cell + strlen (", cell ") + strspn (cell + strlen (", cell "), "0123456789") == at)
    at = cell;
  if (at)
    g_string_append_printf (s, "%.*s · %s", (int) (at - raw), raw, at + strlen (", "));
  else
    g_string_append (s, raw);
  if (iteration > 0 && !strstr (s->str, "iteration"))
    g_string_append_printf (s, " · iteration %u", iteration);
  return g_string_free (s, FALSE);
}

static const CrRecordOp *
record_op (const CrRunRecord *record,
           int                op)
{
  return op >= 0 && (guint) op < record->ops->len ? g_ptr_array_index (record->ops, op) : NULL;
}

char *
cr_step_text_step_caption (const CrRunRecord  *record,
                           const CrRecordStep *step)
{
  const CrRecordOp *op = step->kind == CR_RECORD_STEP_NODE ? record_op (record, step->op) : NULL;
  const char *raw = step->caption;
  if (!raw && op)
    raw = op->caption;
  if (!raw && step->kind == CR_RECORD_STEP_ACCUMULATE)
    raw = cr_record_tensor_label (record, step->leaf, NULL);
  return cr_step_text_caption (raw, op ? op->iteration : 0);
}

const char *
cr_step_text_hooks_heading (const CrRecordStep *step)
{
  CrRecordHookSummary did;
  if (!cr_record_step_hook_summary (step, &did))
    return NULL;
  return did.tensor_hook ? (step->hooks->len == 1 ? "Hook" : "Hooks") : "Retained gradient";
}

const char *
cr_step_text_hooks_note (gboolean raised,
                         gboolean changed)
{
  if (raised)
    return "A hook raised an exception: backward stopped here, before this step used the "
           "gradient.";
  return changed
    ? "A hook registered with register_hook() ran on the gradient before this step used it: "
      "what it returned replaced the gradient."
    : "A hook registered with register_hook() saw the gradient and returned None: the "
      "gradient goes on unchanged.";
}

char *
cr_step_text_hook_factor (double factor)
{
  if (factor == 1.0)
    return g_strdup ("It returned the same gradient.");
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (number, sizeof number, "%.4g", factor);
  return g_strdup_printf ("It multiplied the gradient by %s.", number);
}

char *
cr_step_text_leaf_note (const char *leaf,
                        gboolean    held_before)
{
  return held_before
    ? g_strdup_printf ("AccumulateGrad adds the incoming gradient to what %s.grad already held.", leaf)
    : g_strdup_printf ("AccumulateGrad stores the incoming gradient in the leaf's .grad: %s.grad "
                       "was None.", leaf);
}

char *
cr_step_text_rule_note (const char *rule,
                        const char *incoming_name)
{
  gboolean names_g = incoming_name && rule && strchr (rule, 'G');
  return g_strdup_printf ("Not elementwise: the rule turns the incoming gradient%s%s into each "
                          "input's gradient.", names_g ? " G = " : "",
                          names_g ? incoming_name : "");
}

char *
cr_step_text_broadcast_note (const char *input,
                             const char *from_shape)
{
  return g_strdup_printf ("%s was broadcast to %s in the forward pass, so each of its entries was "
                          "used several times: its gradient adds up the products of all those "
                          "uses.", input, from_shape);
}

GPtrArray *
cr_step_text_split_rule (const char *rule)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  const char *start = rule;
  int depth = 0;
  for (const char *p = rule; *p; p++)
    {
      if (*p == '(' || *p == '[')
        depth++;
      else if ((*p == ')' || *p == ']') && depth > 0)
        depth--;
      else if (*p == ',' && depth == 0 && p[1] == ' ')
        {
          g_ptr_array_add (parts, g_strstrip (g_strndup (start, p - start)));
          start = p + 1;
        }
    }
  g_ptr_array_add (parts, g_strstrip (g_strdup (start)));
  return parts;
}

/* ---- sections and their items -------------------------------------------- */

static void
term_free (gpointer data)
{
  CrStepTextTerm *t = data;
  g_free (t->text);
  g_free (t->caption);
  g_free (t);
}

static void
item_free (gpointer data)
{
  CrStepTextItem *item = data;
  g_free (item->text);
  g_ptr_array_unref (item->terms);
  g_free (item->reduction);
  g_free (item);
}

void
cr_step_text_section_free (CrStepTextSection *s)
{
  if (!s)
    return;
  g_free (s->heading);
  g_ptr_array_unref (s->lines);
  g_ptr_array_unref (s->notes);
  g_ptr_array_unref (s->items);
  g_free (s);
}

static CrStepTextSection *
section_new (const char            *heading,
             CrStepTextRole         role,
             CrStepTextSectionKind  kind)
{
  CrStepTextSection *s = g_new0 (CrStepTextSection, 1);
  s->heading = g_strdup (heading);
  s->role = role;
  s->kind = kind;
  s->lines = g_ptr_array_new_with_free_func (g_free);
  s->notes = g_ptr_array_new_with_free_func (g_free);
  s->items = g_ptr_array_new_with_free_func (item_free);
  return s;
}

static CrStepTextSection *
section_add (CrStepText            *text,
             const char            *heading,
             CrStepTextRole         role,
             CrStepTextSectionKind  kind)
{
  CrStepTextSection *s = section_new (heading, role, kind);
  g_ptr_array_add (text->sections, s);
  return s;
}

/* An item of words; takes words. */
static CrStepTextItem *
add_words_item (CrStepTextSection  *s,
                CrStepTextItemKind  kind,
                char               *words)
{
  CrStepTextItem *item = g_new0 (CrStepTextItem, 1);
  item->kind = kind;
  item->text = words;
  item->terms = g_ptr_array_new_with_free_func (term_free);
  g_ptr_array_add (s->items, item);
  return item;
}

static void
add_note (CrStepTextSection *s,
          const char        *note)
{
  add_words_item (s, CR_STEP_TEXT_NOTE, g_strdup (note));
}

/* A new formula at the end of s; its terms follow with add_term(). */
static CrStepTextItem *
add_formula (CrStepTextSection *s)
{
  return add_words_item (s, CR_STEP_TEXT_FORMULA, NULL);
}

static char *
brief (const CrTensorSnapshot *value)
{
  return cr_record_value_brief (value, TEXT_VALUES);
}

/* A term of words (NAME, WORDS, HOW) after op. */
static CrStepTextTerm *
add_term (CrStepTextItem     *formula,
          CrStepTextTermKind  kind,
          const char         *op,
          const char         *words,
          CrStepTextRole      role)
{
  CrStepTextTerm *t = g_new0 (CrStepTextTerm, 1);
  t->kind = kind;
  t->op = op;
  t->text = g_strdup (words ? words : "?");
  t->role = role;
  g_ptr_array_add (formula->terms, t);
  return t;
}

static CrStepTextTerm *
add_value (CrStepTextItem         *formula,
           const char             *op,
           const CrTensorSnapshot *value,
           CrStepTextRole          role)
{
  CrStepTextTerm *t = g_new0 (CrStepTextTerm, 1);
  t->kind = CR_STEP_TEXT_VALUE;
  t->op = op;
  t->text = brief (value);
  t->role = role;
  t->value = value;
  g_ptr_array_add (formula->terms, t);
  return t;
}

/* "name = value", both in role's colour. */
static void
add_equals (CrStepTextSection      *s,
            const char             *name,
            const CrTensorSnapshot *value,
            CrStepTextRole          role)
{
  CrStepTextItem *f = add_formula (s);
  add_term (f, CR_STEP_TEXT_NAME, NULL, name, role);
  add_value (f, "=", value, role);
}

/* ---- plain lines ------------------------------------------------------------ */

/* A formula on one line: "a = b × c", "returns x, y". */
static char *
formula_line (const CrStepTextItem *f,
              guint                 from,
              guint                 to)
{
  GString *line = g_string_new (NULL);
  for (guint i = from; i < to; i++)
    {
      const CrStepTextTerm *t = g_ptr_array_index (f->terms, i);
      if (t->op && strcmp (t->op, ",") == 0)
        g_string_append (line, ", ");
      else
        {
          if (line->len > 0)
            g_string_append_c (line, ' ');
          if (t->op)
            g_string_append_printf (line, "%s ", t->op);
        }
      if (t->caption)
        g_string_append_printf (line, "%s ", t->caption);
      g_string_append (line, t->text);
    }
  return g_string_free (line, FALSE);
}

/* "lhs = a = b = c" on one line, or when longer than a printed line, one
 * "= ..." a line under the first:
 *   ∂L/∂d = ∂L/∂(10 - d) × ∂(10 - d)/∂d
 *         = [[1, 1], [1, 1]] × [[-1, -1], [-1, -1]]
 *         = [[-1, -1], [-1, -1]]  */
#define CHAIN_LINE_MAX 72

static void
formula_lines (const CrStepTextItem *f,
               GPtrArray            *lines)
{
  if (g_utf8_strlen (f->text, -1) <= CHAIN_LINE_MAX)
    {
      g_ptr_array_add (lines, g_strdup (f->text));
      return;
    }
  /* Break before each "=" after the first, indented under it. */
  guint first_equals = 0, from = 0;
  for (guint i = 1; i < f->terms->len && !first_equals; i++)
    if (g_strcmp0 (((const CrStepTextTerm *) g_ptr_array_index (f->terms, i))->op, "=") == 0)
      first_equals = i;
  if (first_equals == 0)
    {
      g_ptr_array_add (lines, g_strdup (f->text));
      return;
    }
  g_autofree char *lhs = formula_line (f, 0, first_equals);
  g_autofree char *indent = g_strnfill (g_utf8_strlen (lhs, -1) + 1, ' ');
  for (guint i = first_equals + 1; i <= f->terms->len; i++)
    {
      if (i < f->terms->len
          && g_strcmp0 (((const CrStepTextTerm *) g_ptr_array_index (f->terms, i))->op, "=") != 0)
        continue;
      g_autofree char *part = formula_line (f, from, i);
      g_ptr_array_add (lines, from == 0 ? g_strdup (part) : g_strconcat (indent, part, NULL));
      from = i;
    }
}

GPtrArray *
cr_step_text_item_lines (const CrStepTextItem *item)
{
  g_return_val_if_fail (item != NULL, NULL);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  if (item->kind == CR_STEP_TEXT_FORMULA)
    formula_lines (item, lines);
  else
    g_ptr_array_add (lines, g_strdup (item->text));
  return lines;
}

/* Every item's words, and the old views of them: lines, then notes. */
static void
section_finish (CrStepTextSection *s)
{
  for (guint i = 0; i < s->items->len; i++)
    {
      CrStepTextItem *item = g_ptr_array_index (s->items, i);
      if (item->kind == CR_STEP_TEXT_FORMULA)
        {
          g_free (item->text);
          item->text = formula_line (item, 0, item->terms->len);
          formula_lines (item, s->lines);
        }
      else if (item->kind == CR_STEP_TEXT_NOTE)
        g_ptr_array_add (s->notes, g_strdup (item->text));
      else
        g_ptr_array_add (s->lines, g_strdup (item->text));
    }
}

/* ---- the whole step ------------------------------------------------------ */

/* Whether after is before times one number (every entry), and which. */
static gboolean
uniform_factor (const CrTensorSnapshot *before,
                const CrTensorSnapshot *after,
                double                 *factor)
{
  if (!before || !after || before->numel != after->numel || before->numel == 0
      || before->n_values < before->numel || after->n_values < after->numel)
    return FALSE;
  double f = 0;
  gboolean have = FALSE;
  for (gint64 i = 0; i < before->numel; i++)
    {
      double b = before->values[i], a = after->values[i];
      if (b == 0)
        {
          if (a != 0)
            return FALSE;
          continue;
        }
      double r = a / b;
      if (!have)
        {
          f = r;
          have = TRUE;
        }
      else if (fabs (r - f) > 1e-6 * MAX (1.0, fabs (f)))
        return FALSE;
    }
  *factor = f;
  return have;
}

/* "∂L/∂a += [..] → sum so far [..]" */
static void
add_sum_so_far (CrStepTextSection          *s,
                const CrRecordAccumulation *acc,
                CrStepTextRole              role)
{
  CrStepTextItem *f = add_formula (s);
  add_term (f, CR_STEP_TEXT_NAME, NULL, acc->name, role);
  add_value (f, "+=", acc->contribution, role);
  CrStepTextTerm *sum = add_value (f, "→", acc->sum, role);
  sum->caption = g_strdup ("sum so far");
  sum->break_before = TRUE;
}

/* A backward call given the same root twice (torch.autograd.backward([y, y],
 * ...)) adds its gradients up before any step runs: told on the first step
 * that takes that sum in, before its hooks; the first root's own gradient
 * first, which the others are added to. */
static void
add_roots (CrStepText             *text,
           const CrRecordBackward *bw,
           const CrRecordStep     *step)
{
  g_autoptr (GArray) sums = cr_record_step_root_sums (bw, step);
  if (sums->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Roots added up", CR_STEP_TEXT_IN,
                                      CR_STEP_TEXT_SECTION_ROOTS);
  for (guint t = 0; t < sums->len; t++)
    {
      guint i = g_array_index (sums, guint, t);
      const CrRecordAccumulation *acc = g_ptr_array_index (bw->root_accumulations, i);
      gboolean first = TRUE;
      for (guint k = 0; k < i && first; k++)
        first = ((const CrRecordAccumulation *) g_ptr_array_index (bw->root_accumulations, k))->tensor
                != acc->tensor;
      for (guint k = 0; first && bw->root_grads && k < bw->root_grads->len; k++)
        {
          const CrRecordGrad *g = g_ptr_array_index (bw->root_grads, k);
          if (g->tensor != acc->tensor)
            continue;
          add_equals (s, g->name, g->value, CR_STEP_TEXT_IN);
          break;
        }
      add_sum_so_far (s, acc, CR_STEP_TEXT_IN);
    }
  add_note (s, CR_STEP_TEXT_ROOTS_NOTE);
}

/* Hooks ran on the gradient before this node used it: each as one line,
 * "hook double_it (line 4): [2, 4, 6] → [20, 40, 60]". */
static void
add_hooks (CrStepText         *text,
           const CrRunRecord  *record,
           int                 backward,
           const CrRecordStep *step)
{
  CrRecordHookSummary did;
  if (!cr_record_step_hook_summary (step, &did))
    return;
  CrStepTextSection *s = section_add (text, cr_step_text_hooks_heading (step), CR_STEP_TEXT_IN,
                                      CR_STEP_TEXT_SECTION_HOOKS);
  for (guint i = 0; i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      const char *label = cr_record_tensor_label (record, h->tensor, NULL);
      CrStepTextItem *f = add_formula (s);
      if (h->kind == CR_RECORD_HOOK_RETAIN_GRAD)
        {
          /* "y.grad = [...]": what retain_grad() keeps. */
          g_autofree char *name = g_strdup_printf ("%s.grad", label ? label : "t");
          add_term (f, CR_STEP_TEXT_WORDS, NULL, name, CR_STEP_TEXT_PLAIN);
          add_value (f, "=", h->after ? h->after : h->before, CR_STEP_TEXT_OUT);
          continue;
        }
      g_autofree char *head = cr_run_record_hook_title (record, h, label);
      g_autofree char *colon = g_strdup_printf ("%s:", head);
      add_term (f, CR_STEP_TEXT_WORDS, NULL, colon, CR_STEP_TEXT_PLAIN);
      add_value (f, NULL, h->before, CR_STEP_TEXT_IN);
      double factor;
      if (h->after)
        {
          add_value (f, "→", h->after, CR_STEP_TEXT_IN);
          if (uniform_factor (h->before, h->after, &factor))
            add_words_item (s, CR_STEP_TEXT_NOTE, cr_step_text_hook_factor (factor));
        }
      else if (h->raised)
        {
          const CrRecordError *error = cr_record_backward_error (record, backward);
          g_autofree char *raised = g_strdup_printf ("raised %s",
                                                     error && error->type ? error->type : "an error");
          add_term (f, CR_STEP_TEXT_WORDS, "→", raised, CR_STEP_TEXT_PLAIN);
        }
      else
        add_term (f, CR_STEP_TEXT_WORDS, "→", "None (unchanged)", CR_STEP_TEXT_PLAIN);
    }
  if (did.tensor_hook || did.raised)
    add_note (s, cr_step_text_hooks_note (did.raised, did.changed));
  if (did.retain)
    add_note (s, CR_STEP_TEXT_RETAIN_NOTE);
}

static void
add_incoming (CrStepText         *text,
              const CrRecordStep *step)
{
  if (!step->incoming || step->incoming->len == 0)
    return;
  CrStepTextSection *s = section_add (text, step->incoming->len == 1 ? "Incoming gradient"
                                                                    : "Incoming gradients",
                                      CR_STEP_TEXT_IN, CR_STEP_TEXT_SECTION_INCOMING);
  for (guint i = 0; i < step->incoming->len; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      add_equals (s, g->name, g->value, CR_STEP_TEXT_IN);
    }
}

static void
add_leaf_grad (CrStepText         *text,
               const CrRunRecord  *record,
               const CrRecordStep *step)
{
  const char *leaf = cr_record_tensor_label (record, step->leaf, step->caption ? step->caption : "leaf");
  g_autofree char *title = g_strdup_printf ("%s.grad", leaf);
  CrStepTextSection *s = section_add (text, title, CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_LEAF_GRAD);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  CrStepTextItem *f = add_formula (s);
  g_autofree char *colon = g_strdup_printf ("%s:", title);
  add_term (f, CR_STEP_TEXT_WORDS, NULL, colon, CR_STEP_TEXT_PLAIN);
  add_value (f, NULL, step->grad_before, CR_STEP_TEXT_PLAIN);
  if (step->grad_before && incoming)
    {
      /* .grad already held a gradient: the step adds to it. */
      add_value (f, "+", incoming->value, CR_STEP_TEXT_IN);
      add_value (f, "=", step->grad_after, CR_STEP_TEXT_OUT);
    }
  else
    add_value (f, "→", step->grad_after, CR_STEP_TEXT_OUT);
  add_words_item (s, CR_STEP_TEXT_NOTE, cr_step_text_leaf_note (leaf, step->grad_before != NULL));
}

/* A custom autograd.Function: its own backward ran, with the incoming
 * gradient as grad_output; what it returned is what each input gets. */
static void
add_custom (CrStepText         *text,
            const CrRunRecord  *record,
            const CrRecordStep *step)
{
  CrStepTextSection *s = section_add (text, "Your backward", CR_STEP_TEXT_LOCAL,
                                      CR_STEP_TEXT_SECTION_CUSTOM);
  g_autofree char *where = cr_run_record_line_text (record, step->custom_span.line, FALSE);
  g_autofree char *head = step->custom_span.line > 0
                          ? g_strdup_printf ("%s · %s", step->custom_backward, where)
                          : g_strdup (step->custom_backward);
  add_term (add_formula (s), CR_STEP_TEXT_WORDS, NULL, head, CR_STEP_TEXT_PLAIN);
  guint n_in = step->incoming ? step->incoming->len : 0;
  for (guint i = 0; i < n_in; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      g_autofree char *name = n_in == 1 ? g_strdup ("grad_output") : g_strdup_printf ("grad_outputs[%u]", i);
      CrStepTextItem *f = add_formula (s);
      add_term (f, CR_STEP_TEXT_WORDS, NULL, name, CR_STEP_TEXT_PLAIN);
      add_value (f, "=", g->value, CR_STEP_TEXT_IN);
    }
  CrStepTextItem *ret = add_formula (s);
  add_term (ret, CR_STEP_TEXT_WORDS, NULL, "returns", CR_STEP_TEXT_PLAIN);
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      add_value (ret, i > 0 ? "," : NULL, in->outgoing.value, CR_STEP_TEXT_OUT);
    }
  if (step->inputs->len == 0)
    add_term (ret, CR_STEP_TEXT_WORDS, NULL, "nothing", CR_STEP_TEXT_PLAIN);
  add_note (s, CR_STEP_TEXT_CUSTOM_NOTE);
}

static void
add_local (CrStepText         *text,
           const CrRecordStep *step)
{
  gboolean any_local = FALSE;
  for (guint i = 0; i < step->inputs->len; i++)
    any_local |= ((const CrRecordStepInput *) g_ptr_array_index (step->inputs, i))->local != NULL;
  if (!any_local && !step->rule)
    return;
  CrStepTextSection *s = section_add (text, step->inputs->len == 1 ? "Local gradient" : "Local gradients",
                                      CR_STEP_TEXT_LOCAL, CR_STEP_TEXT_SECTION_LOCAL);
  if (step->rule)
    {
      /* One formula a line: for an op such as matmul the rule is all there
       * is to show. */
      g_autoptr (GPtrArray) parts = cr_step_text_split_rule (step->rule);
      for (guint i = 0; i < parts->len; i++)
        add_words_item (s, CR_STEP_TEXT_RULE, g_strdup (g_ptr_array_index (parts, i)));
      const CrRecordGrad *g = cr_record_step_first_incoming (step);
      if (!any_local)
        add_words_item (s, CR_STEP_TEXT_NOTE, cr_step_text_rule_note (step->rule, g ? g->name : NULL));
    }
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (in->local && in->local_name)
        add_equals (s, in->local_name, in->local, CR_STEP_TEXT_LOCAL);
    }
}

static const char *
input_label (const CrRunRecord       *record,
             const CrRecordStepInput *in)
{
  return cr_record_tensor_label (record, in->tensor, in->name ? in->name : "the input");
}

static gboolean
is_scalar (const CrTensorSnapshot *s)
{
  return !s || s->numel <= 1;
}

static CrRecordReduction *
reduction_copy (const CrRecordReduction *r)
{
  return g_memdup2 (r, sizeof *r);
}

static void
add_sent (CrStepText         *text,
          const CrRunRecord  *record,
          const CrRecordStep *step)
{
  if (step->inputs->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Sent on", CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_SENT);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  gboolean elementwise = FALSE;
  const CrRecordStepInput *broadcast = NULL;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      const char *lhs = in->outgoing.name ? in->outgoing.name : input_label (record, in);
      CrStepTextItem *f = add_formula (s);
      add_term (f, CR_STEP_TEXT_NAME, NULL, lhs, CR_STEP_TEXT_OUT);
      if (in->local && incoming && incoming->name && in->local_name)
        {
          /* The chain rule with the names, then the numbers under them. */
          add_term (f, CR_STEP_TEXT_NAME, "=", incoming->name, CR_STEP_TEXT_IN);
          add_term (f, CR_STEP_TEXT_NAME, "×", in->local_name, CR_STEP_TEXT_LOCAL);
          add_value (f, "=", incoming->value, CR_STEP_TEXT_IN)->break_before = TRUE;
          add_value (f, "×", in->local, CR_STEP_TEXT_LOCAL);
          if (in->reduction)
            {
              /* The product has the broadcast shape; a line of its own sums
               * it back to the input's shape. */
              add_value (f, "=", in->product, CR_STEP_TEXT_OUT);
              g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (record, in));
              CrStepTextItem *sum = add_formula (s);
              sum->reduction = reduction_copy (in->reduction);
              add_term (sum, CR_STEP_TEXT_HOW, "Σ", how, CR_STEP_TEXT_OUT);
              add_value (sum, "=", in->outgoing.value, CR_STEP_TEXT_OUT)->break_before = TRUE;
              broadcast = in;
            }
          else
            add_value (f, "=", in->outgoing.value, CR_STEP_TEXT_OUT);
          elementwise |= !is_scalar (incoming->value) || !is_scalar (in->local);
        }
      else
        {
          add_value (f, "=", in->outgoing.value, CR_STEP_TEXT_OUT);
          if (in->reduction)
            {
              CrStepTextItem *how = add_words_item (s, CR_STEP_TEXT_NOTE,
                                                    cr_record_reduction_text (in->reduction,
                                                                              input_label (record, in)));
              how->reduction = reduction_copy (in->reduction);
              broadcast = in;
            }
        }
      if (in->to_op < 0 && in->to_leaf < 0 && !in->outgoing.value)
        add_note (s, CR_STEP_TEXT_NO_GRADIENT_NOTE);
    }
  if (elementwise)
    add_note (s, CR_STEP_TEXT_ELEMENTWISE_NOTE);
  if (broadcast)
    {
      g_autofree char *from = cr_record_shape_text (broadcast->reduction->from_shape,
                                                    broadcast->reduction->from_ndim);
      add_words_item (s, CR_STEP_TEXT_NOTE, cr_step_text_broadcast_note (input_label (record, broadcast), from));
    }
}

static void
add_accumulations (CrStepText         *text,
                   const CrRecordStep *step)
{
  if (!step->accumulations || step->accumulations->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Accumulated", CR_STEP_TEXT_OUT,
                                      CR_STEP_TEXT_SECTION_ACCUMULATED);
  for (guint i = 0; i < step->accumulations->len; i++)
    add_sum_so_far (s, g_ptr_array_index (step->accumulations, i), CR_STEP_TEXT_OUT);
  add_note (s, CR_STEP_TEXT_ACCUMULATED_NOTE);
}

GPtrArray *
cr_step_text_error_notes (const CrRunRecord   *record,
                          const CrRecordError *error)
{
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  const CrRecordOp *op = error ? record_op (record, error->op) : NULL;
  if (op && op->span.line > 0)
    {
      g_autofree char *where = cr_run_record_line_text (record, op->span.line, FALSE);
      g_ptr_array_add (notes, g_strdup_printf ("It failed at %s (%s); the node is marked on the "
                                               "graph.", op->grad_fn, where));
    }
  else if (op)
    g_ptr_array_add (notes, g_strdup_printf ("It failed at %s; the node is marked on the graph.",
                                             op->grad_fn));
  /* A second backward through a freed graph: which call freed it. */
  for (guint i = 0; op && error->backward >= 0 && i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op->saved, i);
      if (saved->freed_backward < 0 || saved->freed_backward >= error->backward
          || (guint) saved->freed_backward >= record->backwards->len
          || saved->modified_span.line > 0)
        continue;
      const CrRecordBackward *freer = g_ptr_array_index (record->backwards, saved->freed_backward);
      g_autofree char *where = cr_run_record_line_text (record, freer->span.line, FALSE);
      g_ptr_array_add (notes, freer->span.line > 0
        ? g_strdup_printf ("Its saved tensors were freed by backward call #%d (%s): "
                           "pass retain_graph=True to that call to keep them.",
                           saved->freed_backward + 1, where)
        : g_strdup_printf ("Its saved tensors were freed by backward call #%d: pass "
                           "retain_graph=True to that call to keep them.",
                           saved->freed_backward + 1));
      break;
    }
  if (error && error->culprit_span.line > 0)
    {
      g_autofree char *where = cr_run_record_line_text (record, error->culprit_span.line, FALSE);
      g_ptr_array_add (notes, g_strdup_printf ("A tensor it saved for backward was modified in "
                                               "place at %s, after it was saved.", where));
    }
  return notes;
}

CrStepTextSection *
cr_step_text_error_section (const CrRunRecord   *record,
                            const CrRecordError *error,
                            const char          *lead)
{
  g_return_val_if_fail (record != NULL, NULL);
  CrStepTextSection *s = section_new (lead, CR_STEP_TEXT_ERROR, CR_STEP_TEXT_SECTION_ERROR);
  if (error)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", error->type ? error->type : "Error",
                                               error->message ? error->message : "");
      add_term (add_formula (s), CR_STEP_TEXT_WORDS, NULL, line, CR_STEP_TEXT_PLAIN);
      /* The footnotes: where it failed, what freed or modified its tensors. */
      g_autoptr (GPtrArray) notes = cr_step_text_error_notes (record, error);
      for (guint i = 0; i < notes->len; i++)
        add_note (s, g_ptr_array_index (notes, i));
    }
  section_finish (s);
  return s;
}

static void
add_error (CrStepText             *text,
           const CrRunRecord      *record,
           const CrRecordBackward *bw,
           int                     backward)
{
  const CrRecordError *error = bw->error >= 0 && (guint) bw->error < record->errors->len
                               ? g_ptr_array_index (record->errors, bw->error)
                               : cr_record_backward_error (record, backward);
  CrStepTextSection *s = cr_step_text_error_section (record, error, CR_STEP_TEXT_STOPPED_LEAD);
  /* Finished already: the loop in cr_step_text_new skips error sections. */
  g_ptr_array_add (text->sections, s);
}

static CrStepText *
text_new (CrStepTextPass pass)
{
  CrStepText *text = g_new0 (CrStepText, 1);
  text->pass = pass;
  text->sections = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_step_text_section_free);
  return text;
}

static void
text_finish (CrStepText *text)
{
  for (guint i = 0; i < text->sections->len; i++)
    {
      CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (s->kind != CR_STEP_TEXT_SECTION_ERROR)
        section_finish (s);
    }
}

CrStepText *
cr_step_text_new (const CrRunRecord *record,
                  int                backward,
                  int                step)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (backward < 0 || (guint) backward >= record->backwards->len)
    return NULL;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  if (step < 0 || (guint) step >= bw->steps->len)
    return NULL;
  const CrRecordStep *st = g_ptr_array_index (bw->steps, step);
  const CrRecordOp *op = st->kind == CR_RECORD_STEP_NODE ? record_op (record, st->op) : NULL;
  gboolean accumulate = st->kind == CR_RECORD_STEP_ACCUMULATE;
  CrStepText *text = text_new (CR_STEP_TEXT_BACKWARD);
  text->accumulate = accumulate;
  text->count = cr_step_text_count (st->index, bw->steps->len);
  text->title = g_strdup (st->title ? st->title : op ? op->grad_fn : "?");
  text->symbol = g_strdup (op && op->symbol ? op->symbol : (accumulate ? "+=" : NULL));
  text->caption = cr_step_text_step_caption (record, st);

  add_roots (text, bw, st);
  add_hooks (text, record, backward, st);
  add_incoming (text, st);
  if (accumulate)
    add_leaf_grad (text, record, st);
  else if (st->custom_backward)
    {
      add_custom (text, record, st);
      add_sent (text, record, st);
    }
  else if (st->inputs)
    {
      add_local (text, st);
      add_sent (text, record, st);
    }
  add_accumulations (text, st);
  text_finish (text);
  if (!bw->succeeded && st->index + 1 == bw->steps->len)
    add_error (text, record, bw, backward);
  return text;
}

/* ---- a forward step --------------------------------------------------------- */

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
  CrStepText *text = text_new (CR_STEP_TEXT_FORWARD);
  text->count = cr_step_text_story_count (CR_STEP_TEXT_FORWARD, index, n);
  text->title = g_strdup (forward->expression ? forward->expression : op->grad_fn);
  text->symbol = g_strdup (op->symbol);
  text->caption = forward_caption (record, op);

  CrStepTextSection *what = section_add (text, "What it computes", CR_STEP_TEXT_OUT,
                                         CR_STEP_TEXT_SECTION_FORWARD_WHAT);
  add_words_item (what, CR_STEP_TEXT_SENTENCE, g_strdup_printf ("It %s.", forward->sentence));

  CrStepTextSection *result = section_add (text, "With the numbers", CR_STEP_TEXT_OUT,
                                           CR_STEP_TEXT_SECTION_FORWARD_RESULT);
  /* A small tensor's values as a matrix under its name; else the equation
   * the forward trace writes. */
  const CrTensorSnapshot *value = result_value (record, op);
  gboolean matrix = value && value->numel > 1 && value->n_values >= value->numel
                    && value->numel <= 64;
  CrStepTextItem *f = add_formula (result);
  if (matrix)
    {
      g_autofree char *named = g_strdup_printf ("%s =", forward->result);
      add_term (f, CR_STEP_TEXT_WORDS, NULL, named, CR_STEP_TEXT_PLAIN);
      add_value (f, NULL, value, CR_STEP_TEXT_OUT)->break_before = TRUE;
    }
  else
    add_term (f, CR_STEP_TEXT_WORDS, NULL, forward->equation, CR_STEP_TEXT_PLAIN);
  if (forward->example)
    {
      /* An element of a tensor result, or how a sum came about. */
      gboolean element = g_str_has_prefix (forward->example, forward->result)
                         && forward->example[strlen (forward->result)] == '[';
      CrStepTextSection *one = section_add (text, element ? "One element of it" : "Worked out",
                                            CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_FORWARD_EXAMPLE);
      add_term (add_formula (one), CR_STEP_TEXT_WORDS, NULL, forward->example, CR_STEP_TEXT_PLAIN);
    }

  /* What comes next, so that the story reads on. */
  CrStepTextSection *next = section_add (text, NULL, CR_STEP_TEXT_PLAIN,
                                         CR_STEP_TEXT_SECTION_FORWARD_NEXT);
  add_note (next, index + 1 < n
    ? "Each op waits for its inputs: the faint nodes are not computed yet."
    : has_backward
    ? "The forward pass is done. Next, backward goes through the same graph the other way, "
      "from the result to the leaves, one node at a time."
    : "The forward pass is done; this script calls no backward.");
  text_finish (text);
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
  CrStepText *given = text_new (text->pass);
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
      CrStepTextSection *s = section_add (given, title, CR_STEP_TEXT_PLAIN,
                                          CR_STEP_TEXT_SECTION_GRAD_BEFORE);
      add_value (add_formula (s), NULL, st->grad_before, CR_STEP_TEXT_PLAIN);
    }
  else if (!hide_local)
    move_section (text, given, CR_STEP_TEXT_SECTION_LOCAL);
  else if (st->rule)
    {
      CrStepTextSection *s = section_add (given, "Rule", CR_STEP_TEXT_LOCAL, CR_STEP_TEXT_SECTION_RULE);
      add_words_item (s, CR_STEP_TEXT_RULE, g_strdup (st->rule));
    }
  /* Moved sections are finished; the new ones get their words now. */
  for (guint i = 0; i < given->sections->len; i++)
    {
      CrStepTextSection *s = g_ptr_array_index (given->sections, i);
      if (s->kind == CR_STEP_TEXT_SECTION_GRAD_BEFORE || s->kind == CR_STEP_TEXT_SECTION_RULE)
        section_finish (s);
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
  CrStepTextSection *s = section_add (given, op->inputs && op->inputs->len == 1 ? "Its input"
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
      CrStepTextItem *f = add_formula (s);
      if (tensor->value->numel == 1 && tensor->value->n_values >= 1)
        {
          /* A number on the name's line. */
          g_autofree char *number = cr_record_value_brief (tensor->value, 1);
          g_autofree char *line = g_strdup_printf ("%s = %s", name, number);
          add_term (f, CR_STEP_TEXT_WORDS, NULL, line, CR_STEP_TEXT_PLAIN);
          continue;
        }
      g_autofree char *named = g_strdup_printf ("%s =", name);
      add_term (f, CR_STEP_TEXT_WORDS, NULL, named, CR_STEP_TEXT_PLAIN);
      add_value (f, NULL, tensor->value, CR_STEP_TEXT_PLAIN)->break_before = TRUE;
    }
  section_finish (s);
  return given;
}

void
cr_step_text_free (CrStepText *self)
{
  if (!self)
    return;
  g_free (self->count);
  g_free (self->title);
  g_free (self->symbol);
  g_free (self->caption);
  g_ptr_array_unref (self->sections);
  g_free (self);
}

char *
cr_step_text_plain (const CrStepText *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  GString *out = g_string_new (NULL);
  if (self->symbol)
    g_string_append_printf (out, "%s\n", self->symbol);
  g_string_append_printf (out, "%s\n%s\n", self->count, self->title);
  if (self->caption)
    g_string_append_printf (out, "%s\n", self->caption);
  for (guint i = 0; i < self->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (self->sections, i);
      g_string_append_c (out, '\n');
      if (s->heading)
        g_string_append_printf (out, "%s\n", s->heading);
      for (guint k = 0; k < s->items->len; k++)
        {
          const CrStepTextItem *item = g_ptr_array_index (s->items, k);
          if (item->kind == CR_STEP_TEXT_NOTE || item->kind == CR_STEP_TEXT_SENTENCE)
            {
              g_string_append_printf (out, "%s\n", item->text);
              continue;
            }
          g_autoptr (GPtrArray) lines = cr_step_text_item_lines (item);
          for (guint l = 0; l < lines->len; l++)
            g_string_append_printf (out, "  %s\n", (const char *) g_ptr_array_index (lines, l));
        }
    }
  return g_string_free (out, FALSE);
}
