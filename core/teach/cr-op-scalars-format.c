/* cr-op-scalars-format.c — a small op's scalar graph as text: its forward
 * equations, then the chain rule for each input element, as
 * `chainrule explain-op` prints it (cr-op-scalars.h). */
#include "cr-op-scalars.h"

#include <math.h>
#include <string.h>

static void
append_number (GString *s,
               double   v)
{
  v = v == 0 ? 0 : v;  /* -0 prints as 0 */
  g_string_append_printf (s, v < 0 ? "(%.4g)" : "%.4g", v);
}

/* One term of an input element's gradient: the output element at the end
 * of the path, and the local derivatives along it multiplied. */
typedef struct {
  const CrScalarNode *end;
  GString            *local_text;
  double              local;
} Term;

static gboolean needs_parentheses (const char *text);

static void
collect_terms (const CrOpScalars *self,
               guint              from,
               const char        *text_so_far,
               double             local_so_far,
               GArray            *terms)
{
  for (guint i = 0; i < self->edges->len; i++)
    {
      const CrScalarEdge *edge = self->edges->pdata[i];
      if (edge->from != from)
        continue;
      const CrScalarNode *to = self->nodes->pdata[edge->to];
      /* A "1" along a path says nothing: b[0, 0]·1 is b[0, 0]. A factor
       * with a sign or a sum of its own goes in parentheses. */
      gboolean joined = text_so_far && g_strcmp0 (text_so_far, "1") != 0;
      g_autofree char *factor = joined && needs_parentheses (edge->local_text)
                                ? g_strdup_printf ("(%s)", edge->local_text)
                                : g_strdup (edge->local_text);
      g_autofree char *text = g_strcmp0 (edge->local_text, "1") == 0 && text_so_far
                              ? g_strdup (text_so_far)
                              : joined ? g_strdup_printf ("%s·%s", text_so_far, factor)
                              : g_strdup (edge->local_text);
      double local = local_so_far * edge->local;
      if (to->kind == CR_SCALAR_NODE_OUTPUT)
        {
          Term term = { to, g_string_new (text), local };
          g_array_append_val (terms, term);
        }
      else
        collect_terms (self, edge->to, text, local, terms);
    }
}

/* A local derivative that is a sum or difference goes in parentheses when
 * multiplied: "1 − f[1]²", not "b[0, 0]". */
static gboolean
needs_parentheses (const char *text)
{
  if (g_str_has_prefix (text, "−"))
    return TRUE;  /* a factor of −1/2: ·(−1/2) */
  int depth = 0;
  for (const char *p = text; *p; p++)
    {
      if (*p == '[' || *p == '(')
        depth++;
      else if ((*p == ']' || *p == ')') && depth > 0)
        depth--;
      else if (depth == 0 && p > text && p[-1] == ' '
               && (*p == '+' || g_str_has_prefix (p, "−")))
        return TRUE;
    }
  return FALSE;
}

char *
cr_op_scalars_format (const CrOpScalars *self,
                      const CrRunRecord *record)
{
  GString *s = g_string_new (NULL);
  const CrRecordOp *op = record->ops->pdata[self->op];
  g_string_append_printf (s, "%s (line %u)\n", self->title, op->span.line);
  guint inner = 0;
  for (guint i = 0; i < self->nodes->len; i++)
    inner += ((const CrScalarNode *) self->nodes->pdata[i])->kind == CR_SCALAR_NODE_INNER;
  g_string_append_printf (s, "Scalar graph: %u nodes (%u of them between input and output), "
                             "%u edges.\n\nForward, one equation per output element:\n",
                          self->nodes->len, inner, self->edges->len);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      /* A product shows in its sum's equation; a value between of another
       * kind (a norm's mean, variance, x̂) has an equation of its own. */
      if (node->kind == CR_SCALAR_NODE_INPUT || !node->equation
          || (node->kind == CR_SCALAR_NODE_INNER && g_strcmp0 (node->operation, "×") == 0))
        continue;
      g_string_append_printf (s, "  %s\n", node->equation);
      const char *eq = strstr (node->equation, " = ");
      int indent = eq ? (int) g_utf8_strlen (node->equation, eq - node->equation) + 3 : 4;
      g_string_append_printf (s, "  %*s= ", indent - 2, "");
      if (node->numbers)
        {
          g_string_append (s, node->numbers);
          g_string_append (s, " = ");
        }
      g_string_append_printf (s, "%.4g\n", node->value);
    }

  if (self->backward < 0)
    {
      g_string_append (s, "\nNo backward call reaches this op: there are no gradients to "
                          "follow through it.\n");
      return g_string_free (s, FALSE);
    }
  const CrRecordBackward *call = record->backwards->pdata[self->backward];
  /* A root without a short name (an expression) is L, said once. */
  const char *L = call->root_name && strlen (call->root_name) <= 16
                  && !strpbrk (call->root_name, " ()[]") ? call->root_name : "L";
  if (L[0] == 'L' && L[1] == '\0' && g_strcmp0 (call->root_name, "L") != 0 && call->root_name)
    g_string_append_printf (s, "\nL is %s.", call->root_name);
  g_string_append_printf (s, "\nBackward, step %d of %s.\nEach output element brings its "
                             "incoming gradient ∂%s/∂(element); each edge\nmultiplies it by "
                             "its local derivative, and an input element's gradient is\nthe "
                             "sum over its edges:\n", self->step + 1, call->title, L);
  guint agree = 0, compared = 0;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->kind != CR_SCALAR_NODE_INPUT)
        continue;
      /* Data and targets get no gradient: nothing to follow. */
      if (!((const CrRecordTensor *) record->tensors->pdata[node->tensor])->requires_grad)
        continue;
      g_autoptr (GArray) terms = g_array_new (FALSE, FALSE, sizeof (Term));
      collect_terms (self, i, NULL, 1.0, terms);
      g_autofree char *head = g_strdup_printf ("  ∂%s/∂%s = ", L, node->label);
      glong indent = g_utf8_strlen (head, -1) - 2;
      g_string_append (s, head);
      for (guint t = 0; t < terms->len; t++)
        {
          const Term *term = &g_array_index (terms, Term, t);
          const char *lt = term->local_text->str;
          g_string_append_printf (s, "%s∂%s/∂%s·%s%s%s", t ? " + " : "", L, term->end->label,
                                  needs_parentheses (lt) ? "(" : "", lt,
                                  needs_parentheses (lt) ? ")" : "");
        }
      if (terms->len == 0)
        g_string_append (s, "0 (no edge leaves it)");
      else
        g_string_append_printf (s, "\n  %*s", (int) indent, "= ");
      for (guint t = 0; t < terms->len; t++)
        {
          const Term *term = &g_array_index (terms, Term, t);
          if (t)
            g_string_append (s, " + ");
          append_number (s, term->end->grad);
          g_string_append (s, "·");
          append_number (s, term->local);
        }
      if (terms->len > 1)
        g_string_append_printf (s, "\n  %*s", (int) indent, "= ");
      else if (terms->len == 1)
        g_string_append (s, " = ");
      if (terms->len > 0)
        g_string_append_printf (s, "%.4g", node->grad);
      double sent = cr_op_scalars_sent (self, record, node->tensor, node->element);
      if (!isnan (sent))
        {
          gboolean same = cr_op_scalars_same_grad (node->grad, sent);
          g_string_append_printf (s, "   (the step sent %.4g%s)", sent, same ? "" : ": DIFFERENT");
          compared++;
          agree += same;
        }
      g_string_append_c (s, '\n');
      for (guint t = 0; t < terms->len; t++)
        g_string_free (g_array_index (terms, Term, t).local_text, TRUE);
    }
  if (compared)
    g_string_append_printf (s, "\n%u of %u input element%s: the sum over the scalar edges "
                               "equals the gradient the backward step sent.\n",
                            agree, compared, compared == 1 ? "" : "s");
  return g_string_free (s, FALSE);
}

static const char *
loss_name (const CrOpScalars *self,
           const CrRunRecord *record)
{
  if (self->backward < 0)
    return "L";
  const CrRecordBackward *call = record->backwards->pdata[self->backward];
  return call->root_name && strlen (call->root_name) <= 16 && !strpbrk (call->root_name, " ()[]")
         ? call->root_name : "L";
}

char *
cr_op_scalars_format_position (const CrOpScalars *self,
                               const CrRunRecord *record,
                               guint              position)
{
  GString *s = g_string_new (NULL);
  const char *L = loss_name (self, record);
  if (position == 0)
    {
      g_string_append_printf (s, "%u output element%s, each computed from the input elements "
                                 "along its edges.", self->n_sub_steps,
                              self->n_sub_steps == 1 ? "" : "s");
      if (self->step >= 0)
        g_string_append (s, " Step through them (Right): each sends its gradient back along "
                            "its edges, times each edge's local derivative, and every input "
                            "element adds up what reaches it.");
      else
        g_string_append (s, " No backward call ran this op: there are no gradients.");
      return g_string_free (s, FALSE);
    }
  guint k = MIN (position, self->n_sub_steps) - 1;
  const CrScalarNode *out = NULL;
  guint out_index = 0;
  for (guint i = 0; i < self->nodes->len && !out; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->kind == CR_SCALAR_NODE_OUTPUT && node->sub_step == k)
        {
          out = node;
          out_index = i;
        }
    }
  if (!out)
    return g_string_free (s, FALSE);
  g_string_append_printf (s, "%s", out->equation);
  if (out->numbers)
    g_string_append_printf (s, " = %s", out->numbers);
  g_string_append_printf (s, " = %.4g", out->value);
  if (self->step < 0 || isnan (out->grad))
    return g_string_free (s, FALSE);
  g_string_append_printf (s, "\n∂%s/∂%s = %.4g goes back along each edge, times its local "
                             "derivative:", L, out->label, out->grad);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->kind != CR_SCALAR_NODE_INPUT
          || !((const CrRecordTensor *) record->tensors->pdata[node->tensor])->requires_grad)
        continue;
      g_autoptr (GArray) terms = g_array_new (FALSE, FALSE, sizeof (Term));
      collect_terms (self, i, NULL, 1.0, terms);
      for (guint t = 0; t < terms->len; t++)
        {
          const Term *term = &g_array_index (terms, Term, t);
          if (term->end == self->nodes->pdata[out_index])
            {
              double so_far = cr_op_scalars_grad_upto (self, node->tensor, node->element, k + 1);
              double share = out->grad * term->local;
              g_string_append_printf (s, "\n  %s gets %.4g × %s", node->label, out->grad,
                                      term->local_text->str);
              if (g_strcmp0 (term->local_text->str, "1") != 0)
                g_string_append_printf (s, " (%.4g)", term->local == 0 ? 0 : term->local);
              /* No "-0" in the numbers. */
              g_string_append_printf (s, " = %.4g, %.4g so far", share == 0 ? 0 : share,
                                      so_far == 0 ? 0 : so_far);
            }
        }
      for (guint t = 0; t < terms->len; t++)
        g_string_free (g_array_index (terms, Term, t).local_text, TRUE);
    }
  if (position >= self->n_sub_steps)
    g_string_append (s, "\nEvery element done: what each input element has now is the "
                        "gradient the step sent.");
  return g_string_free (s, FALSE);
}
