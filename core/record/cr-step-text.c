/* cr-step-text.c — a backward step in words (see the header): the
 * sentences the step card and the handout share, and the whole step as
 * sections of items, read from the run record's CrRecordStep in the order
 * the card shows them: roots added up, hooks, the incoming gradient, then
 * a leaf's .grad, or your backward, or the local gradients and what is
 * sent on; contributions accumulated; the error a call stopped with.
 * Forward ops and questions: cr-step-text-forward.c; the items themselves
 * and their plain lines: cr-step-text-items.c. */
#include "cr-step-text-private.h"

#include "cr-record-text.h"

#include <math.h>
#include <string.h>

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
const char *const CR_STEP_TEXT_FAILED_LEAD =
  "The backward call stopped with an error before its first step.";

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
  CrStepTextItem *f = cr_step_text_add_formula (s);
  cr_step_text_add_term (f, CR_STEP_TEXT_NAME, NULL, acc->name, role);
  cr_step_text_add_value (f, "+=", acc->contribution, role);
  CrStepTextTerm *sum = cr_step_text_add_value (f, "→", acc->sum, role);
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
  CrStepTextSection *s = cr_step_text_add_section (text, "Roots added up", CR_STEP_TEXT_IN,
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
          cr_step_text_add_equals (s, g->name, g->value, CR_STEP_TEXT_IN);
          break;
        }
      add_sum_so_far (s, acc, CR_STEP_TEXT_IN);
    }
  cr_step_text_add_note (s, CR_STEP_TEXT_ROOTS_NOTE);
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
  CrStepTextSection *s = cr_step_text_add_section (text, cr_step_text_hooks_heading (step), CR_STEP_TEXT_IN,
                                      CR_STEP_TEXT_SECTION_HOOKS);
  for (guint i = 0; i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      const char *label = cr_record_tensor_label (record, h->tensor, NULL);
      CrStepTextItem *f = cr_step_text_add_formula (s);
      if (h->kind == CR_RECORD_HOOK_RETAIN_GRAD)
        {
          /* "y.grad = [...]": what retain_grad() keeps. */
          g_autofree char *name = g_strdup_printf ("%s.grad", label ? label : "t");
          cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, name, CR_STEP_TEXT_PLAIN);
          cr_step_text_add_value (f, "=", h->after ? h->after : h->before, CR_STEP_TEXT_OUT);
          continue;
        }
      g_autofree char *head = cr_run_record_hook_title (record, h, label);
      g_autofree char *colon = g_strdup_printf ("%s:", head);
      cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, colon, CR_STEP_TEXT_PLAIN);
      cr_step_text_add_value (f, NULL, h->before, CR_STEP_TEXT_IN);
      double factor;
      if (h->after)
        {
          cr_step_text_add_value (f, "→", h->after, CR_STEP_TEXT_IN);
          if (uniform_factor (h->before, h->after, &factor))
            cr_step_text_add_words (s, CR_STEP_TEXT_NOTE, cr_step_text_hook_factor (factor));
        }
      else if (h->raised)
        {
          const CrRecordError *error = cr_record_backward_error (record, backward);
          g_autofree char *raised = g_strdup_printf ("raised %s",
                                                     error && error->type ? error->type : "an error");
          cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, "→", raised, CR_STEP_TEXT_PLAIN);
        }
      else
        cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, "→", "None (unchanged)", CR_STEP_TEXT_PLAIN);
    }
  if (did.tensor_hook || did.raised)
    cr_step_text_add_note (s, cr_step_text_hooks_note (did.raised, did.changed));
  if (did.retain)
    cr_step_text_add_note (s, CR_STEP_TEXT_RETAIN_NOTE);
}

static void
add_incoming (CrStepText         *text,
              const CrRecordStep *step)
{
  if (!step->incoming || step->incoming->len == 0)
    return;
  CrStepTextSection *s = cr_step_text_add_section (text, step->incoming->len == 1 ? "Incoming gradient"
                                                                    : "Incoming gradients",
                                      CR_STEP_TEXT_IN, CR_STEP_TEXT_SECTION_INCOMING);
  for (guint i = 0; i < step->incoming->len; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      cr_step_text_add_equals (s, g->name, g->value, CR_STEP_TEXT_IN);
    }
}

static void
add_leaf_grad (CrStepText         *text,
               const CrRunRecord  *record,
               const CrRecordStep *step)
{
  const char *leaf = cr_record_tensor_label (record, step->leaf, step->caption ? step->caption : "leaf");
  g_autofree char *title = g_strdup_printf ("%s.grad", leaf);
  CrStepTextSection *s = cr_step_text_add_section (text, title, CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_LEAF_GRAD);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  CrStepTextItem *f = cr_step_text_add_formula (s);
  g_autofree char *colon = g_strdup_printf ("%s:", title);
  cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, colon, CR_STEP_TEXT_PLAIN);
  cr_step_text_add_value (f, NULL, step->grad_before, CR_STEP_TEXT_PLAIN);
  if (step->grad_before && incoming)
    {
      /* .grad already held a gradient: the step adds to it. */
      cr_step_text_add_value (f, "+", incoming->value, CR_STEP_TEXT_IN);
      cr_step_text_add_value (f, "=", step->grad_after, CR_STEP_TEXT_OUT);
    }
  else
    cr_step_text_add_value (f, "→", step->grad_after, CR_STEP_TEXT_OUT);
  cr_step_text_add_words (s, CR_STEP_TEXT_NOTE, cr_step_text_leaf_note (leaf, step->grad_before != NULL));
}

/* A custom autograd.Function: its own backward ran, with the incoming
 * gradient as grad_output; what it returned is what each input gets. */
static void
add_custom (CrStepText         *text,
            const CrRunRecord  *record,
            const CrRecordStep *step)
{
  CrStepTextSection *s = cr_step_text_add_section (text, "Your backward", CR_STEP_TEXT_LOCAL,
                                      CR_STEP_TEXT_SECTION_CUSTOM);
  g_autofree char *where = cr_run_record_line_text (record, step->custom_span.line, FALSE);
  g_autofree char *head = step->custom_span.line > 0
                          ? g_strdup_printf ("%s · %s", step->custom_backward, where)
                          : g_strdup (step->custom_backward);
  cr_step_text_add_term (cr_step_text_add_formula (s), CR_STEP_TEXT_WORDS, NULL, head, CR_STEP_TEXT_PLAIN);
  guint n_in = step->incoming ? step->incoming->len : 0;
  for (guint i = 0; i < n_in; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      g_autofree char *name = n_in == 1 ? g_strdup ("grad_output") : g_strdup_printf ("grad_outputs[%u]", i);
      CrStepTextItem *f = cr_step_text_add_formula (s);
      cr_step_text_add_term (f, CR_STEP_TEXT_WORDS, NULL, name, CR_STEP_TEXT_PLAIN);
      cr_step_text_add_value (f, "=", g->value, CR_STEP_TEXT_IN);
    }
  CrStepTextItem *ret = cr_step_text_add_formula (s);
  cr_step_text_add_term (ret, CR_STEP_TEXT_WORDS, NULL, "returns", CR_STEP_TEXT_PLAIN);
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      cr_step_text_add_value (ret, i > 0 ? "," : NULL, in->outgoing.value, CR_STEP_TEXT_OUT);
    }
  if (step->inputs->len == 0)
    cr_step_text_add_term (ret, CR_STEP_TEXT_WORDS, NULL, "nothing", CR_STEP_TEXT_PLAIN);
  cr_step_text_add_note (s, CR_STEP_TEXT_CUSTOM_NOTE);
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
  CrStepTextSection *s = cr_step_text_add_section (text, step->inputs->len == 1 ? "Local gradient" : "Local gradients",
                                      CR_STEP_TEXT_LOCAL, CR_STEP_TEXT_SECTION_LOCAL);
  if (step->rule)
    {
      /* One formula a line: for an op such as matmul the rule is all there
       * is to show. */
      g_autoptr (GPtrArray) parts = cr_step_text_split_rule (step->rule);
      for (guint i = 0; i < parts->len; i++)
        cr_step_text_add_words (s, CR_STEP_TEXT_RULE, g_strdup (g_ptr_array_index (parts, i)));
      const CrRecordGrad *g = cr_record_step_first_incoming (step);
      if (!any_local)
        cr_step_text_add_words (s, CR_STEP_TEXT_NOTE, cr_step_text_rule_note (step->rule, g ? g->name : NULL));
    }
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (in->local && in->local_name)
        cr_step_text_add_equals (s, in->local_name, in->local, CR_STEP_TEXT_LOCAL);
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
  CrStepTextSection *s = cr_step_text_add_section (text, "Sent on", CR_STEP_TEXT_OUT, CR_STEP_TEXT_SECTION_SENT);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  gboolean elementwise = FALSE;
  const CrRecordStepInput *broadcast = NULL;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      const char *lhs = in->outgoing.name ? in->outgoing.name : input_label (record, in);
      CrStepTextItem *f = cr_step_text_add_formula (s);
      cr_step_text_add_term (f, CR_STEP_TEXT_NAME, NULL, lhs, CR_STEP_TEXT_OUT);
      if (in->local && incoming && incoming->name && in->local_name)
        {
          /* The chain rule with the names, then the numbers under them. */
          cr_step_text_add_term (f, CR_STEP_TEXT_NAME, "=", incoming->name, CR_STEP_TEXT_IN);
          cr_step_text_add_term (f, CR_STEP_TEXT_NAME, "×", in->local_name, CR_STEP_TEXT_LOCAL);
          cr_step_text_add_value (f, "=", incoming->value, CR_STEP_TEXT_IN)->break_before = TRUE;
          cr_step_text_add_value (f, "×", in->local, CR_STEP_TEXT_LOCAL);
          if (in->reduction)
            {
              /* The product has the broadcast shape; a line of its own sums
               * it back to the input's shape. */
              cr_step_text_add_value (f, "=", in->product, CR_STEP_TEXT_OUT);
              g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (record, in));
              CrStepTextItem *sum = cr_step_text_add_formula (s);
              sum->reduction = reduction_copy (in->reduction);
              cr_step_text_add_term (sum, CR_STEP_TEXT_HOW, "Σ", how, CR_STEP_TEXT_OUT);
              cr_step_text_add_value (sum, "=", in->outgoing.value, CR_STEP_TEXT_OUT)->break_before = TRUE;
              broadcast = in;
            }
          else
            cr_step_text_add_value (f, "=", in->outgoing.value, CR_STEP_TEXT_OUT);
          elementwise |= !is_scalar (incoming->value) || !is_scalar (in->local);
        }
      else
        {
          cr_step_text_add_value (f, "=", in->outgoing.value, CR_STEP_TEXT_OUT);
          if (in->reduction)
            {
              CrStepTextItem *how = cr_step_text_add_words (s, CR_STEP_TEXT_NOTE,
                                                    cr_record_reduction_text (in->reduction,
                                                                              input_label (record, in)));
              how->reduction = reduction_copy (in->reduction);
              broadcast = in;
            }
        }
      if (in->to_op < 0 && in->to_leaf < 0 && !in->outgoing.value)
        cr_step_text_add_note (s, CR_STEP_TEXT_NO_GRADIENT_NOTE);
    }
  if (elementwise)
    cr_step_text_add_note (s, CR_STEP_TEXT_ELEMENTWISE_NOTE);
  if (broadcast)
    {
      g_autofree char *from = cr_record_shape_text (broadcast->reduction->from_shape,
                                                    broadcast->reduction->from_ndim);
      cr_step_text_add_words (s, CR_STEP_TEXT_NOTE, cr_step_text_broadcast_note (input_label (record, broadcast), from));
    }
}

static void
add_accumulations (CrStepText         *text,
                   const CrRecordStep *step)
{
  if (!step->accumulations || step->accumulations->len == 0)
    return;
  CrStepTextSection *s = cr_step_text_add_section (text, "Accumulated", CR_STEP_TEXT_OUT,
                                      CR_STEP_TEXT_SECTION_ACCUMULATED);
  for (guint i = 0; i < step->accumulations->len; i++)
    add_sum_so_far (s, g_ptr_array_index (step->accumulations, i), CR_STEP_TEXT_OUT);
  cr_step_text_add_note (s, CR_STEP_TEXT_ACCUMULATED_NOTE);
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
  CrStepTextSection *s = cr_step_text_section_new (lead, CR_STEP_TEXT_ERROR, CR_STEP_TEXT_SECTION_ERROR);
  if (error)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", error->type ? error->type : "Error",
                                               error->message ? error->message : "");
      cr_step_text_add_term (cr_step_text_add_formula (s), CR_STEP_TEXT_WORDS, NULL, line, CR_STEP_TEXT_PLAIN);
      /* The footnotes: where it failed, what freed or modified its tensors. */
      g_autoptr (GPtrArray) notes = cr_step_text_error_notes (record, error);
      for (guint i = 0; i < notes->len; i++)
        cr_step_text_add_note (s, g_ptr_array_index (notes, i));
    }
  cr_step_text_finish_section (s);
  return s;
}

const CrRecordError *
cr_step_text_call_error (const CrRunRecord *record,
                         int                backward)
{
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  return bw->error >= 0 && (guint) bw->error < record->errors->len
         ? g_ptr_array_index (record->errors, bw->error)
         : cr_record_backward_error (record, backward);
}

static void
add_error (CrStepText        *text,
           const CrRunRecord *record,
           int                backward)
{
  const CrRecordError *error = cr_step_text_call_error (record, backward);
  CrStepTextSection *s = cr_step_text_error_section (record, error, CR_STEP_TEXT_STOPPED_LEAD);
  /* Finished already: the loop in cr_step_text_new skips error sections. */
  g_ptr_array_add (text->sections, s);
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
  CrStepText *text = cr_step_text_alloc (CR_STEP_TEXT_BACKWARD);
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
  cr_step_text_finish (text);
  if (!bw->succeeded && st->index + 1 == bw->steps->len)
    add_error (text, record, backward);
  return text;
}

