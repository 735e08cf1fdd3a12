/* cr-step-text.c — a backward step in words (see the header): the
 * sentences the step card and the handout share, and the whole card as
 * sections of text lines, read from the run record's CrRecordStep in the
 * order the card shows them: roots added up, hooks, the incoming gradient,
 * then a leaf's .grad, or your backward, or the local gradients and what
 * is sent on; contributions accumulated; the error a call stopped with. */
#include "cr-step-text.h"

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

/* ---- the whole step ------------------------------------------------------ */

static void
section_free (gpointer data)
{
  CrStepTextSection *s = data;
  g_free (s->heading);
  g_ptr_array_unref (s->lines);
  g_ptr_array_unref (s->notes);
  g_free (s);
}

static CrStepTextSection *
section_add (CrStepText     *text,
             const char     *heading,
             CrStepTextRole  role)
{
  CrStepTextSection *s = g_new0 (CrStepTextSection, 1);
  s->heading = g_strdup (heading);
  s->role = role;
  s->lines = g_ptr_array_new_with_free_func (g_free);
  s->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (text->sections, s);
  return s;
}

static char *
brief (const CrTensorSnapshot *value)
{
  return cr_record_value_brief (value, TEXT_VALUES);
}

/* "name = value" */
static void
add_equals (CrStepTextSection      *s,
            const char             *name,
            const CrTensorSnapshot *value)
{
  g_autofree char *v = brief (value);
  g_ptr_array_add (s->lines, g_strdup_printf ("%s = %s", name ? name : "?", v));
}

static void
add_roots (CrStepText             *text,
           const CrRecordBackward *bw,
           const CrRecordStep     *step)
{
  g_autoptr (GArray) sums = cr_record_step_root_sums (bw, step);
  if (sums->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Roots added up", CR_STEP_TEXT_IN);
  for (guint i = 0; i < sums->len; i++)
    {
      const CrRecordAccumulation *acc = g_ptr_array_index (bw->root_accumulations,
                                                           g_array_index (sums, guint, i));
      g_autofree char *add = brief (acc->contribution);
      g_autofree char *sum = brief (acc->sum);
      g_ptr_array_add (s->lines, g_strdup_printf ("%s += %s → sum so far %s",
                                                  acc->name ? acc->name : "?", add, sum));
    }
  g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_ROOTS_NOTE));
}

static void
add_hooks (CrStepText         *text,
           const CrRunRecord  *record,
           const CrRecordStep *step)
{
  CrRecordHookSummary did;
  if (!cr_record_step_hook_summary (step, &did))
    return;
  CrStepTextSection *s = section_add (text, cr_step_text_hooks_heading (step), CR_STEP_TEXT_IN);
  for (guint i = 0; i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      const char *label = cr_record_tensor_label (record, h->tensor, NULL);
      if (h->kind == CR_RECORD_HOOK_RETAIN_GRAD)
        {
          g_autofree char *name = g_strdup_printf ("%s.grad", label ? label : "t");
          add_equals (s, name, h->after ? h->after : h->before);
          continue;
        }
      g_autofree char *head = cr_run_record_hook_title (record, h, label);
      g_autofree char *before = brief (h->before);
      g_autofree char *after = h->after ? brief (h->after)
                                        : g_strdup (h->raised ? "raised an error" : "None (unchanged)");
      g_ptr_array_add (s->lines, g_strdup_printf ("%s: %s → %s", head, before, after));
    }
  if (did.tensor_hook || did.raised)
    g_ptr_array_add (s->notes, g_strdup (cr_step_text_hooks_note (did.raised, did.changed)));
  if (did.retain)
    g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_RETAIN_NOTE));
}

static void
add_leaf_grad (CrStepText         *text,
               const CrRunRecord  *record,
               const CrRecordStep *step)
{
  const char *leaf = cr_record_tensor_label (record, step->leaf, step->caption ? step->caption : "leaf");
  g_autofree char *title = g_strdup_printf ("%s.grad", leaf);
  CrStepTextSection *s = section_add (text, title, CR_STEP_TEXT_OUT);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  g_autofree char *before = brief (step->grad_before);
  g_autofree char *after = brief (step->grad_after);
  if (step->grad_before && incoming)
    {
      g_autofree char *add = brief (incoming->value);
      g_ptr_array_add (s->lines, g_strdup_printf ("%s: %s + %s = %s", title, before, add, after));
    }
  else
    g_ptr_array_add (s->lines, g_strdup_printf ("%s: %s → %s", title, before, after));
  g_ptr_array_add (s->notes, cr_step_text_leaf_note (leaf, step->grad_before != NULL));
}

static void
add_custom (CrStepText         *text,
            const CrRunRecord  *record,
            const CrRecordStep *step)
{
  CrStepTextSection *s = section_add (text, "Your backward", CR_STEP_TEXT_LOCAL);
  g_autofree char *where = cr_run_record_line_text (record, step->custom_span.line, FALSE);
  g_ptr_array_add (s->lines, step->custom_span.line > 0
                               ? g_strdup_printf ("%s · %s", step->custom_backward, where)
                               : g_strdup (step->custom_backward));
  guint n_in = step->incoming ? step->incoming->len : 0;
  for (guint i = 0; i < n_in; i++)
    {
      const CrRecordGrad *g = g_ptr_array_index (step->incoming, i);
      g_autofree char *name = n_in == 1 ? g_strdup ("grad_output") : g_strdup_printf ("grad_outputs[%u]", i);
      add_equals (s, name, g->value);
    }
  GString *ret = g_string_new ("returns ");
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      g_autofree char *v = brief (in->outgoing.value);
      g_string_append_printf (ret, "%s%s", i ? ", " : "", v);
    }
  if (step->inputs->len == 0)
    g_string_append (ret, "nothing");
  g_ptr_array_add (s->lines, g_string_free (ret, FALSE));
  g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_CUSTOM_NOTE));
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
                                      CR_STEP_TEXT_LOCAL);
  if (step->rule)
    {
      g_autoptr (GPtrArray) parts = cr_step_text_split_rule (step->rule);
      for (guint i = 0; i < parts->len; i++)
        g_ptr_array_add (s->lines, g_strdup (g_ptr_array_index (parts, i)));
      const CrRecordGrad *g = cr_record_step_first_incoming (step);
      if (!any_local)
        g_ptr_array_add (s->notes, cr_step_text_rule_note (step->rule, g ? g->name : NULL));
    }
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (in->local && in->local_name)
        add_equals (s, in->local_name, in->local);
    }
}

/* "lhs = a = b = c" on one line, or when longer than a printed line, one
 * "= ..." a line under the first:
 *   ∂L/∂d = ∂L/∂(10 - d) × ∂(10 - d)/∂d
 *         = [[1, 1], [1, 1]] × [[-1, -1], [-1, -1]]
 *         = [[-1, -1], [-1, -1]]  */
#define CHAIN_LINE_MAX 72

static void
add_chain (CrStepTextSection *s,
           const char        *lhs,
           const char *const *parts)
{
  GString *one = g_string_new (lhs);
  for (const char *const *p = parts; *p; p++)
    g_string_append_printf (one, " = %s", *p);
  if (g_utf8_strlen (one->str, -1) <= CHAIN_LINE_MAX)
    {
      g_ptr_array_add (s->lines, g_string_free (one, FALSE));
      return;
    }
  g_string_free (one, TRUE);
  g_autofree char *indent = g_strnfill (g_utf8_strlen (lhs, -1), ' ');
  for (const char *const *p = parts; *p; p++)
    g_ptr_array_add (s->lines, g_strdup_printf ("%s = %s", p == parts ? lhs : indent, *p));
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

static void
add_sent (CrStepText         *text,
          const CrRunRecord  *record,
          const CrRecordStep *step)
{
  if (step->inputs->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Sent on", CR_STEP_TEXT_OUT);
  const CrRecordGrad *incoming = cr_record_step_first_incoming (step);
  gboolean elementwise = FALSE;
  const CrRecordStepInput *broadcast = NULL;
  for (guint i = 0; i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      const char *lhs = in->outgoing.name ? in->outgoing.name : input_label (record, in);
      g_autofree char *out = brief (in->outgoing.value);
      if (in->local && incoming && incoming->name && in->local_name)
        {
          g_autofree char *g = brief (incoming->value);
          g_autofree char *l = brief (in->local);
          if (in->reduction)
            {
              g_autofree char *p = brief (in->product);
              g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (record, in));
              g_autofree char *names = g_strdup_printf ("%s × %s", incoming->name, in->local_name);
              g_autofree char *values = g_strdup_printf ("%s × %s", g, l);
              add_chain (s, lhs, (const char *const[]) { names, values, p, NULL });
              g_ptr_array_add (s->lines, g_strdup_printf ("Σ %s = %s", how, out));
              broadcast = in;
            }
          else
            {
              g_autofree char *names = g_strdup_printf ("%s × %s", incoming->name, in->local_name);
              g_autofree char *values = g_strdup_printf ("%s × %s", g, l);
              add_chain (s, lhs, (const char *const[]) { names, values, out, NULL });
            }
          elementwise |= !is_scalar (incoming->value) || !is_scalar (in->local);
        }
      else
        {
          g_ptr_array_add (s->lines, g_strdup_printf ("%s = %s", lhs, out));
          if (in->reduction)
            {
              g_ptr_array_add (s->notes, cr_record_reduction_text (in->reduction, input_label (record, in)));
              broadcast = in;
            }
        }
      if (in->to_op < 0 && in->to_leaf < 0 && !in->outgoing.value)
        g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_NO_GRADIENT_NOTE));
    }
  if (elementwise)
    g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_ELEMENTWISE_NOTE));
  if (broadcast)
    {
      g_autofree char *from = cr_record_shape_text (broadcast->reduction->from_shape,
                                                    broadcast->reduction->from_ndim);
      g_ptr_array_add (s->notes, cr_step_text_broadcast_note (input_label (record, broadcast), from));
    }
}

static void
add_accumulations (CrStepText         *text,
                   const CrRecordStep *step)
{
  if (!step->accumulations || step->accumulations->len == 0)
    return;
  CrStepTextSection *s = section_add (text, "Accumulated", CR_STEP_TEXT_OUT);
  for (guint i = 0; i < step->accumulations->len; i++)
    {
      const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, i);
      g_autofree char *add = brief (acc->contribution);
      g_autofree char *sum = brief (acc->sum);
      g_ptr_array_add (s->lines, g_strdup_printf ("%s += %s → sum so far %s",
                                                  acc->name ? acc->name : "?", add, sum));
    }
  g_ptr_array_add (s->notes, g_strdup (CR_STEP_TEXT_ACCUMULATED_NOTE));
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

static void
add_error (CrStepText             *text,
           const CrRunRecord      *record,
           const CrRecordBackward *bw,
           int                     backward)
{
  const CrRecordError *error = bw->error >= 0 && (guint) bw->error < record->errors->len
                               ? g_ptr_array_index (record->errors, bw->error)
                               : cr_record_backward_error (record, backward);
  CrStepTextSection *s = section_add (text, CR_STEP_TEXT_STOPPED_LEAD, CR_STEP_TEXT_ERROR);
  if (error)
    g_ptr_array_add (s->lines, g_strdup_printf ("%s: %s", error->type ? error->type : "Error",
                                                error->message ? error->message : ""));
  g_ptr_array_unref (s->notes);
  s->notes = cr_step_text_error_notes (record, error);
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
  CrStepText *text = g_new0 (CrStepText, 1);
  text->sections = g_ptr_array_new_with_free_func (section_free);
  text->count = cr_step_text_count (st->index, bw->steps->len);
  text->title = g_strdup (st->title ? st->title : op ? op->grad_fn : "?");
  text->symbol = g_strdup (op && op->symbol ? op->symbol : (accumulate ? "+=" : NULL));
  text->caption = cr_step_text_step_caption (record, st);

  add_roots (text, bw, st);
  add_hooks (text, record, st);
  if (st->incoming && st->incoming->len > 0)
    {
      CrStepTextSection *s = section_add (text, st->incoming->len == 1 ? "Incoming gradient"
                                                                      : "Incoming gradients",
                                          CR_STEP_TEXT_IN);
      for (guint i = 0; i < st->incoming->len; i++)
        {
          const CrRecordGrad *g = g_ptr_array_index (st->incoming, i);
          add_equals (s, g->name, g->value);
        }
    }
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
  if (!bw->succeeded && st->index + 1 == bw->steps->len)
    add_error (text, record, bw, backward);
  return text;
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
  g_string_append_printf (out, "%s\n%s\n", self->count, self->title);
  if (self->caption)
    g_string_append_printf (out, "%s\n", self->caption);
  for (guint i = 0; i < self->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (self->sections, i);
      g_string_append_c (out, '\n');
      if (s->heading)
        g_string_append_printf (out, "%s\n", s->heading);
      for (guint k = 0; k < s->lines->len; k++)
        g_string_append_printf (out, "  %s\n", (const char *) g_ptr_array_index (s->lines, k));
      for (guint k = 0; k < s->notes->len; k++)
        g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (s->notes, k));
    }
  return g_string_free (out, FALSE);
}
