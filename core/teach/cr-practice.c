/* cr-practice.c — the questions of a backward step and the checker of a
 * learner's answers (see cr-practice.h). A wrong answer is compared with
 * the wrong answers the usual mistakes give (computed here from the step's
 * recorded gradients: the incoming one, each local one, the product before
 * its broadcast sum, the contributions of other paths), and the first one
 * it matches names the mistake; the same wrong answers are the choices'
 * distractors. */
#include "cr-practice.h"

#include "cr-record-forward.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

#define MAX_ASKED_ENTRIES 64
#define BRIEF_ENTRIES 9

/* ---- values ------------------------------------------------------------- */

/* A candidate answer: the right one or a mistake's. */
typedef struct {
  CrPracticeMistake mistake;
  int               ndim;
  gint64            shape[CR_MAX_DIMS];
  gint64            numel;
  double           *values;       /* owned */
  int               other_input;  /* OTHER_LOCAL: whose local gradient */
} Candidate;

static void
candidate_free (gpointer data)
{
  Candidate *c = data;
  g_free (c->values);
  g_free (c);
}

static gboolean
complete (const CrTensorSnapshot *s)
{
  return s && s->numel > 0 && s->n_values >= s->numel;
}

static gboolean
askable (const CrTensorSnapshot *s)
{
  return complete (s) && s->numel <= MAX_ASKED_ENTRIES;
}

static Candidate *
candidate_new (CrPracticeMistake mistake,
               const gint64     *shape,
               int               ndim)
{
  Candidate *c = g_new0 (Candidate, 1);
  c->mistake = mistake;
  c->ndim = ndim;
  c->numel = 1;
  c->other_input = -1;
  for (int d = 0; d < ndim; d++)
    {
      c->shape[d] = shape[d];
      c->numel *= shape[d];
    }
  c->values = g_new0 (double, MAX (c->numel, 1));
  return c;
}

static Candidate *
candidate_from (CrPracticeMistake       mistake,
                const CrTensorSnapshot *s,
                double                  scale)
{
  Candidate *c = candidate_new (mistake, s->shape, s->ndim);
  for (gint64 i = 0; i < c->numel; i++)
    c->values[i] = scale * s->values[i];
  return c;
}

/* Whether a is within the documented tolerance of the exact e (m: the
 * largest |entry| of the answer). */
static gboolean
within (double a,
        double e,
        double m)
{
  if (isnan (e))
    return isnan (a);
  if (isinf (e))
    return a == e;
  double tolerance = MAX (MAX (1e-3 * fabs (e), 1e-4 * m), 1e-6);
  return fabs (a - e) <= tolerance;
}

static gboolean
exact (double a,
       double e)
{
  if (isnan (e))
    return isnan (a);
  return fabs (a - e) <= 1e-6 * MAX (1.0, fabs (e));
}

static double
max_abs (const double *v,
         gint64        n)
{
  double m = 0;
  for (gint64 i = 0; i < n; i++)
    if (isfinite (v[i]))
      m = MAX (m, fabs (v[i]));
  return m;
}

/* typed (n entries) against the candidate, row-major. */
static gboolean
values_match (const double    *typed,
              gint64           n,
              const Candidate *c)
{
  if (n != c->numel)
    return FALSE;
  double m = max_abs (c->values, c->numel);
  for (gint64 i = 0; i < n; i++)
    if (!within (typed[i], c->values[i], m))
      return FALSE;
  return TRUE;
}

/* The shape without its sizes of 1: [1, 3] and [3] are the same answer. */
static int
squeeze (const gint64 *shape,
         int           ndim,
         gint64       *out)
{
  int n = 0;
  for (int d = 0; d < ndim; d++)
    if (shape[d] != 1)
      out[n++] = shape[d];
  return n;
}

static gboolean
same_shape (const gint64 *a,
            int           a_ndim,
            const gint64 *b,
            int           b_ndim)
{
  gint64 sa[CR_MAX_DIMS], sb[CR_MAX_DIMS];
  int na = squeeze (a, a_ndim, sa), nb = squeeze (b, b_ndim, sb);
  if (na != nb)
    return FALSE;
  for (int d = 0; d < na; d++)
    if (sa[d] != sb[d])
      return FALSE;
  return TRUE;
}

/* Whether what was typed is arranged as the candidate is: a bare list
 * (ndim ≤ 1) of as many entries is read row-major; brackets or rows must
 * give the candidate's shape. */
static gboolean
arranged_as (const CrPracticeAnswer *typed,
             const Candidate        *c)
{
  if ((gint64) typed->values->len != c->numel)
    return FALSE;
  if (typed->ndim <= 1)
    return TRUE;
  return same_shape (typed->shape, typed->ndim, c->shape, c->ndim);
}

/* Sums (mean: averages) product-shaped values back to reduction's shape. */
static Candidate *
sum_to_shape (CrPracticeMistake        mistake,
              const double            *values,
              const CrRecordReduction *r,
              gboolean                 mean)
{
  Candidate *c = candidate_new (mistake, r->to_shape, r->to_ndim);
  gint64 from_numel = 1;
  for (int d = 0; d < r->from_ndim; d++)
    from_numel *= r->from_shape[d];
  int lead = r->from_ndim - r->to_ndim;
  gint64 index[CR_MAX_DIMS] = { 0 };
  for (gint64 i = 0; i < from_numel; i++)
    {
      gint64 at = 0;
      for (int k = 0; k < r->to_ndim; k++)
        at = at * r->to_shape[k] + (r->to_shape[k] == 1 ? 0 : index[k + lead]);
      c->values[at] += values[i];
      for (int d = r->from_ndim - 1; d >= 0; d--)
        {
          if (++index[d] < r->from_shape[d])
            break;
          index[d] = 0;
        }
    }
  if (mean && c->numel > 0)
    {
      double uses = (double) from_numel / (double) c->numel;
      for (gint64 i = 0; i < c->numel; i++)
        c->values[i] /= uses;
    }
  return c;
}

/* ---- the step's parts --------------------------------------------------- */

/* The backward step q asks about; NULL for a forward question. */
static const CrRecordStep *
question_step (const CrPracticeQuestion *q)
{
  if (q->ask == CR_PRACTICE_ASK_FORWARD)
    return NULL;
  const CrRecordBackward *bw = g_ptr_array_index (q->record->backwards, q->backward);
  return g_ptr_array_index (bw->steps, q->step);
}

static const CrRecordGrad *
first_incoming (const CrRecordStep *step)
{
  return step && step->incoming && step->incoming->len > 0 ? g_ptr_array_index (step->incoming, 0)
                                                   : NULL;
}

static const CrRecordStepInput *
step_input (const CrRecordStep *step,
            int                 i)
{
  if (!step || !step->inputs || i < 0 || (guint) i >= step->inputs->len)
    return NULL;
  return g_ptr_array_index (step->inputs, i);
}

static const CrRecordOp *
step_op (const CrRunRecord  *record,
         const CrRecordStep *step)
{
  if (step->op < 0 || (guint) step->op >= record->ops->len)
    return NULL;
  return g_ptr_array_index (record->ops, step->op);
}

/* The local-gradient rule of the step's op for input i: the part of
 * "∂(a·b)/∂a = b,  ∂(a·b)/∂b = a" about that input when the rule has one
 * part an input, else the whole rule; NULL for none (new string). */
static char *
rule_for_input (const CrRunRecord  *record,
                const CrRecordStep *step,
                int                 i)
{
  const CrRecordOp *op = step_op (record, step);
  const char *rule = step->rule ? step->rule : op ? op->rule : NULL;
  if (!rule)
    return NULL;
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
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
  if (step->inputs && parts->len == step->inputs->len && i >= 0 && (guint) i < parts->len)
    return g_strdup (g_ptr_array_index (parts, i));
  return g_strdup (rule);
}

static const char *
input_label (const CrRunRecord       *record,
             const CrRecordStepInput *in)
{
  return cr_record_tensor_label (record, in->tensor, in->name ? in->name : "the input");
}

static char *
brief (const CrTensorSnapshot *s)
{
  return cr_record_value_brief (s, BRIEF_ENTRIES);
}

/* Whether a value is short enough to write out in a sentence. */
static gboolean
few (const CrTensorSnapshot *s)
{
  return !s || s->numel <= 4;
}

static char *
candidate_text (const Candidate *c)
{
  return cr_practice_values_text (c->values, c->shape, c->ndim);
}

/* ---- candidates: the right answer and the usual mistakes' ---------------- */

/* incoming × other's local gradient, summed as the step summed input i's
 * product; NULL when the shapes do not line up. */
static Candidate *
times_other_local (const CrRecordStep      *step,
                   const CrRecordStepInput *in,
                   int                      other)
{
  const CrRecordGrad *g = first_incoming (step);
  const CrRecordStepInput *o = step_input (step, other);
  if (!g || !complete (g->value) || !o || !complete (o->local) || !complete (in->product))
    return NULL;
  const CrTensorSnapshot *G = g->value, *L = o->local, *P = in->product;
  if (L->numel != P->numel || (G->numel != P->numel && G->numel != 1))
    return NULL;
  Candidate *product = candidate_new (CR_PRACTICE_MISTAKE_OTHER_LOCAL, P->shape, P->ndim);
  for (gint64 k = 0; k < P->numel; k++)
    product->values[k] = G->values[G->numel == 1 ? 0 : k] * L->values[k];
  if (!in->reduction)
    {
      product->other_input = other;
      return product;
    }
  Candidate *c = sum_to_shape (CR_PRACTICE_MISTAKE_OTHER_LOCAL, product->values,
                               in->reduction, FALSE);
  c->other_input = other;
  candidate_free (product);
  return c;
}

/* A snapshot of the answer's shape, or reduced to it when it is the
 * broadcast shape of input in's product: as a mistake would give it. */
static Candidate *
as_answer (CrPracticeMistake        mistake,
           const CrTensorSnapshot  *s,
           const CrTensorSnapshot  *expected,
           const CrRecordStepInput *in)
{
  if (!complete (s))
    return NULL;
  if (s->numel == expected->numel)
    {
      Candidate *c = candidate_from (mistake, s, 1);
      c->ndim = expected->ndim;
      memcpy (c->shape, expected->shape, sizeof c->shape);
      return c;
    }
  if (in && in->reduction && complete (in->product) && s->numel == in->product->numel)
    return sum_to_shape (mistake, s->values, in->reduction, FALSE);
  if (s->numel == 1)
    {
      /* A scalar gradient spread over every entry, as passing it on gives. */
      Candidate *c = candidate_new (mistake, expected->shape, expected->ndim);
      for (gint64 i = 0; i < c->numel; i++)
        c->values[i] = s->values[0];
      return c;
    }
  return NULL;
}

static void
add (GPtrArray *list,
     Candidate *c)
{
  if (c)
    g_ptr_array_add (list, c);
}

/* The wrong answers the usual mistakes give for q, most telling first
 * (owning array of Candidate*); some may equal the right answer, or each
 * other, where the numbers make two mistakes agree. */
static GPtrArray *
mistakes_of (const CrPracticeQuestion *q)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (candidate_free);
  const CrRecordStep *step = question_step (q);
  const CrTensorSnapshot *E = q->expected;
  const CrRecordGrad *g = first_incoming (step);
  const CrRecordStepInput *in = step_input (step, q->input);

  switch (q->ask)
    {
    case CR_PRACTICE_ASK_SENT:
      if (in->reduction && complete (in->product))
        {
          Candidate *unsummed = candidate_from (CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM,
                                                in->product, 1);
          add (list, unsummed);
          add (list, sum_to_shape (CR_PRACTICE_MISTAKE_MEAN_NOT_SUM, in->product->values,
                                   in->reduction, TRUE));
        }
      for (guint j = 0; j < step->inputs->len; j++)
        if ((int) j != q->input)
          add (list, times_other_local (step, in, (int) j));
      add (list, candidate_from (CR_PRACTICE_MISTAKE_SIGN, E, -1));
      if (g)
        add (list, as_answer (CR_PRACTICE_MISTAKE_NO_PRODUCT, g->value, E, in));
      add (list, as_answer (CR_PRACTICE_MISTAKE_LOCAL_ONLY, in->local, E, in));
      break;

    case CR_PRACTICE_ASK_LOCAL:
      add (list, candidate_from (CR_PRACTICE_MISTAKE_SIGN, E, -1));
      if (complete (in->product) && in->product->numel == E->numel)
        add (list, candidate_from (CR_PRACTICE_MISTAKE_PRODUCT_AS_LOCAL, in->product, 1));
      for (guint j = 0; j < step->inputs->len; j++)
        {
          const CrRecordStepInput *o = step_input (step, (int) j);
          if ((int) j == q->input || !complete (o->local) || o->local->numel != E->numel)
            continue;
          Candidate *c = candidate_from (CR_PRACTICE_MISTAKE_OTHER_LOCAL, o->local, 1);
          c->other_input = (int) j;
          add (list, c);
        }
      break;

    case CR_PRACTICE_ASK_FAN_IN:
      {
        const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, q->input);
        if (complete (acc->contribution) && acc->contribution->numel == E->numel)
          {
            Candidate *this_path = candidate_from (CR_PRACTICE_MISTAKE_ONE_PATH,
                                                   acc->contribution, 1);
            Candidate *other_path = candidate_new (CR_PRACTICE_MISTAKE_ONE_PATH, E->shape,
                                                   E->ndim);
            for (gint64 i = 0; i < E->numel; i++)
              other_path->values[i] = E->values[i] - this_path->values[i];
            add (list, this_path);
            add (list, other_path);
          }
        add (list, candidate_from (CR_PRACTICE_MISTAKE_SIGN, E, -1));
      }
      break;

    case CR_PRACTICE_ASK_LEAF_GRAD:
      {
        if (step->grad_before && g)
          add (list, as_answer (CR_PRACTICE_MISTAKE_GRAD_BEFORE, g->value, E, NULL));
        /* The contributions of the paths that met in this leaf earlier in
         * the call: one of them alone is the missing fan-in sum. */
        const CrRecordBackward *bw = g_ptr_array_index (q->record->backwards, q->backward);
        for (int k = 0; k < q->step; k++)
          {
            const CrRecordStep *earlier = g_ptr_array_index (bw->steps, k);
            for (guint a = 0; earlier->accumulations && a < earlier->accumulations->len; a++)
              {
                const CrRecordAccumulation *acc = g_ptr_array_index (earlier->accumulations, a);
                if (acc->tensor != step->leaf || !complete (acc->contribution)
                    || acc->contribution->numel != E->numel)
                  continue;
                add (list, candidate_from (CR_PRACTICE_MISTAKE_ONE_PATH, acc->contribution, 1));
                if (complete (acc->sum) && acc->sum->numel == E->numel)
                  {
                    Candidate *other = candidate_from (CR_PRACTICE_MISTAKE_ONE_PATH, acc->sum, 1);
                    for (gint64 i = 0; i < E->numel; i++)
                      other->values[i] -= acc->contribution->values[i];
                    add (list, other);
                  }
              }
          }
        add (list, candidate_from (CR_PRACTICE_MISTAKE_SIGN, E, -1));
      }
      break;

    case CR_PRACTICE_ASK_FORWARD:
      add (list, candidate_from (CR_PRACTICE_MISTAKE_SIGN, E, -1));
      break;
    }

  if (E->ndim == 2 && E->shape[0] > 1 && E->shape[1] > 1)
    {
      gint64 shape[2] = { E->shape[1], E->shape[0] };
      Candidate *t = candidate_new (CR_PRACTICE_MISTAKE_TRANSPOSED, shape, 2);
      for (gint64 r = 0; r < E->shape[0]; r++)
        for (gint64 c = 0; c < E->shape[1]; c++)
          t->values[c * E->shape[0] + r] = E->values[r * E->shape[1] + c];
      add (list, t);
    }
  return list;
}

/* ---- sentences ------------------------------------------------------------ */

/* How the right answer comes about (new string). */
static char *
explain_answer (const CrPracticeQuestion *q)
{
  const CrRecordStep *step = question_step (q);
  const CrRunRecord *record = q->record;
  const CrRecordGrad *g = first_incoming (step);
  const CrRecordStepInput *in = step_input (step, q->input);
  GString *s = g_string_new (NULL);
  g_autofree char *answer = brief (q->expected);

  switch (q->ask)
    {
    case CR_PRACTICE_ASK_SENT:
      {
        g_autofree char *rule = rule_for_input (record, step, q->input);
        if (in->local && in->local_name && g && g->name)
          {
            g_string_append_printf (s, "The chain rule: %s = %s × %s", q->name, g->name,
                                    in->local_name);
            g_autofree char *how = in->reduction
              ? cr_record_reduction_text (in->reduction, input_label (record, in)) : NULL;
            if (few (g->value) && few (in->local) && few (in->product))
              {
                /* Numbers short enough for a sentence. */
                g_autofree char *gv = brief (g->value), *lv = brief (in->local);
                g_string_append_printf (s, " = %s × %s", gv, lv);
                if (how)
                  {
                    g_autofree char *pv = brief (in->product);
                    g_string_append_printf (s, " = %s, then %s: %s.", pv, how, answer);
                  }
                else
                  g_string_append_printf (s, " = %s.", answer);
              }
            else if (how)
              g_string_append_printf (s, ", entry by entry, then %s.", how);
            else
              g_string_append (s, ", entry by entry.");
            if (rule)
              g_string_append_printf (s, " The local gradient comes from the rule %s.", rule);
          }
        else
          {
            const CrRecordOp *op = step_op (record, step);
            if (rule)
              g_string_append_printf (s, "The rule of %s: %s. ",
                                      op ? op->grad_fn : step->title, rule);
            if (rule && op && op->inputs->len == 2 && strstr (rule, "∂A") && strstr (rule, "B"))
              {
                /* "∂C/∂A = G·Bᵀ": which input is A and which B. */
                const CrRecordStepInput *a = step_input (step, 0), *b = step_input (step, 1);
                if (a && b)
                  g_string_append_printf (s, "Here A is %s and B is %s. ",
                                          input_label (record, a), input_label (record, b));
              }
            if (g && g->name && few (g->value) && few (q->expected))
              {
                g_autofree char *gv = brief (g->value);
                g_string_append_printf (s, "With the incoming gradient %s%s = %s, %s = %s.",
                                        rule && strchr (rule, 'G') ? "G = " : "",
                                        g->name, gv, q->name, answer);
              }
            else if (g && g->name)
              g_string_append_printf (s, "It turns the incoming gradient %s%s into %s.",
                                      rule && strchr (rule, 'G') ? "G = " : "", g->name,
                                      q->name);
            else
              g_string_append_printf (s, "%s = %s.", q->name, answer);
            if (in->reduction)
              {
                g_autofree char *how = cr_record_reduction_text (in->reduction,
                                                                 input_label (record, in));
                g_string_append_printf (s, " The broadcast input's gradient is %s.", how);
              }
          }
      }
      break;

    case CR_PRACTICE_ASK_LOCAL:
      {
        g_autofree char *rule = rule_for_input (record, step, q->input);
        g_string_append_printf (s, "%s is how this node's output changes with %s alone",
                                q->name, input_label (record, in));
        if (rule)
          g_string_append_printf (s, ", by the rule %s", rule);
        g_string_append_printf (s, ": %s. The incoming gradient is not in it: it is "
                                "multiplied in next.", answer);
      }
      break;

    case CR_PRACTICE_ASK_FAN_IN:
      {
        const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, q->input);
        const char *who = cr_record_tensor_label (record, acc->tensor, "this tensor");
        g_autofree char *cv = brief (acc->contribution);
        g_autofree char *before = NULL;
        if (!few (q->expected))
          {
            g_string_append_printf (s, "%s reaches the loss along more than one path, and the "
                                    "gradients of all paths add up: %s is what the other paths "
                                    "gave plus this path's contribution.", who, q->name);
            break;
          }
        if (complete (acc->contribution) && acc->contribution->numel == q->expected->numel)
          {
            g_autofree double *earlier = g_new (double, q->expected->numel);
            for (gint64 i = 0; i < q->expected->numel; i++)
              earlier[i] = q->expected->values[i] - acc->contribution->values[i];
            before = cr_practice_values_text (earlier, q->expected->shape, q->expected->ndim);
          }
        g_string_append_printf (s, "%s reaches the loss along more than one path, and the "
                                "gradients of all paths add up: %s %s%s%s plus this path's %s "
                                "gives %s.", who, q->name,
                                before ? "was " : "so far", before ? before : "",
                                before ? " from the other paths," : "", cv, answer);
      }
      break;

    case CR_PRACTICE_ASK_LEAF_GRAD:
      {
        const char *leaf = cr_record_tensor_label (record, step->leaf, "the leaf");
        if (step->grad_before && g && !few (q->expected))
          g_string_append_printf (s, "AccumulateGrad adds the incoming gradient to what %s.grad "
                                  "already held. Gradients add up over backward calls until "
                                  "they are zeroed.", leaf);
        else if (step->grad_before && g)
          {
            g_autofree char *bv = brief (step->grad_before), *gv = brief (g->value);
            g_string_append_printf (s, "AccumulateGrad adds the incoming gradient %s to what "
                                    "%s.grad already held, %s: %s. Gradients add up over "
                                    "backward calls until they are zeroed.", gv, leaf, bv,
                                    answer);
          }
        else if (!few (q->expected))
          g_string_append_printf (s, "%s.grad was None: AccumulateGrad stores the incoming "
                                  "gradient in it.", leaf);
        else
          g_string_append_printf (s, "%s.grad was None: AccumulateGrad stores the incoming "
                                  "gradient in it, %s.", leaf, answer);
      }
      break;

    case CR_PRACTICE_ASK_FORWARD:
      {
        /* The sentences the forward step's card says once revealed. */
        g_autoptr (CrForwardText) text = cr_forward_text_new (record, q->step);
        if (!text)
          break;
        g_string_append_printf (s, "It %s", text->sentence);
        if (text->example)
          g_string_append_printf (s, ", entry by entry: %s, and so on.", text->example);
        else if (text->equation)
          g_string_append_printf (s, ": %s.", text->equation);
        else
          g_string_append (s, ".");
      }
      break;
    }
  return g_string_free (s, FALSE);
}

/* What a wrong answer that looks like mistake c got wrong (new string). */
static char *
explain_mistake (const CrPracticeQuestion *q,
                 const Candidate          *c)
{
  const CrRecordStep *step = question_step (q);
  const CrRunRecord *record = q->record;
  const CrRecordGrad *g = first_incoming (step);
  const CrRecordStepInput *in = step_input (step, q->input);
  const char *incoming = g && g->name ? g->name : "the incoming gradient";
  const char *local = in && in->local_name ? in->local_name : "the local gradient";
  switch (c->mistake)
    {
    case CR_PRACTICE_MISTAKE_SIGN:
      if (q->ask == CR_PRACTICE_ASK_FORWARD)
        return g_strdup ("The sign is flipped: every entry has the opposite sign. Check the "
                         "signs of the inputs and of the op's formula.");
      return g_strdup ("The sign is flipped: every entry has the opposite sign. Check the "
                       "minus signs of the rule and of the incoming gradient.");
    case CR_PRACTICE_MISTAKE_NO_PRODUCT:
      return g_strdup_printf ("That is the incoming gradient %s passed on unchanged: the "
                              "chain rule multiplies it by the local gradient %s.",
                              incoming, local);
    case CR_PRACTICE_MISTAKE_LOCAL_ONLY:
      return g_strdup_printf ("That is the local gradient %s alone: the chain rule "
                              "multiplies it by the incoming gradient %s.", local, incoming);
    case CR_PRACTICE_MISTAKE_OTHER_LOCAL:
      {
        const CrRecordStepInput *o = step_input (step, c->other_input);
        g_autofree char *rule = rule_for_input (record, step, q->input);
        const char *other_name = o && o->local_name ? o->local_name : "the other input's";
        if (q->ask == CR_PRACTICE_ASK_LOCAL)
          return g_strdup_printf ("That is %s, the local gradient of the other input %s.%s%s",
                                  other_name, o ? input_label (record, o) : "",
                                  rule ? " For this one the rule is " : "", rule ? rule : "");
        return g_strdup_printf ("You multiplied by %s, the local gradient of the other input "
                                "%s. %s needs %s%s%s.", other_name,
                                o ? input_label (record, o) : "", q->name, local,
                                rule ? ": by the rule " : "", rule ? rule : "");
      }
    case CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM:
      {
        g_autofree char *from = cr_record_shape_text (in->reduction->from_shape,
                                                      in->reduction->from_ndim);
        g_autofree char *how = cr_record_reduction_text (in->reduction, input_label (record, in));
        return g_strdup_printf ("You forgot the broadcast sum: %s × %s has the broadcast "
                                "shape %s, and %s is that product %s.", incoming, local,
                                from, q->name, how);
      }
    case CR_PRACTICE_MISTAKE_MEAN_NOT_SUM:
      return g_strdup_printf ("You averaged over the broadcast dims: each entry of %s was "
                              "used several times in the forward pass, and every use adds "
                              "its gradient, so the products are summed, not averaged.",
                              input_label (record, in));
    case CR_PRACTICE_MISTAKE_TRANSPOSED:
      return g_strdup ("That is the answer transposed: its rows are the columns. A "
                       "gradient has the shape of its tensor, row for row.");
    case CR_PRACTICE_MISTAKE_ONE_PATH:
      return g_strdup ("That is one path's contribution only: the tensor reaches the loss "
                       "along more than one path, and the multivariate chain rule adds "
                       "the gradients of all the paths.");
    case CR_PRACTICE_MISTAKE_GRAD_BEFORE:
      {
        const char *leaf = cr_record_tensor_label (record, step->leaf, "the leaf");
        g_autofree char *bv = brief (step->grad_before);
        return g_strdup_printf ("That is only the new gradient: %s.grad already held %s, "
                                "and AccumulateGrad adds to it (gradients accumulate until "
                                "zero_grad()).", leaf, bv);
      }
    case CR_PRACTICE_MISTAKE_PRODUCT_AS_LOCAL:
      return g_strdup_printf ("That is already the product with the incoming gradient %s: "
                              "the local gradient is this node's own derivative, before the "
                              "chain rule multiplies.", incoming);
    case CR_PRACTICE_MISTAKE_NONE:
    default:
      return NULL;
    }
}

/* ---- questions -------------------------------------------------------- */

static void
shuffle_choices (GPtrArray *choices,
                 guint32    seed)
{
  /* A fixed order for a step, the same at every visit and in every
   * window: the room sees the same letters the lecturer rehearsed. */
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  for (guint i = choices->len; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) i);
      gpointer t = choices->pdata[i - 1];
      choices->pdata[i - 1] = choices->pdata[j];
      choices->pdata[j] = t;
    }
}

static void
choice_free (gpointer data)
{
  CrPracticeChoice *c = data;
  g_free (c->text);
  g_free (c);
}

static void
add_choice (GPtrArray        *choices,
            char             *text,     /* taken */
            gboolean          right,
            CrPracticeMistake mistake)
{
  for (guint i = 0; i < choices->len; i++)
    {
      const CrPracticeChoice *c = g_ptr_array_index (choices, i);
      if (g_strcmp0 (c->text, text) == 0)
        {
          g_free (text);
          return;
        }
    }
  CrPracticeChoice *c = g_new0 (CrPracticeChoice, 1);
  c->text = text;
  c->right = right;
  c->mistake = mistake;
  g_ptr_array_add (choices, c);
}

/* The right answer and three distractors from the usual mistakes; where
 * fewer mistakes give a distinct answer, twice or half the answer. */
static void
build_choices (CrPracticeQuestion *q)
{
  q->choices = g_ptr_array_new_with_free_func (choice_free);
  const CrTensorSnapshot *E = q->expected;
  Candidate *right = candidate_from (CR_PRACTICE_MISTAKE_NONE, E, 1);
  add_choice (q->choices, candidate_text (right), TRUE, CR_PRACTICE_MISTAKE_NONE);
  g_autoptr (GPtrArray) wrong = mistakes_of (q);
  for (guint i = 0; i < wrong->len && q->choices->len < 4; i++)
    {
      const Candidate *c = g_ptr_array_index (wrong, i);
      if (c->numel == right->numel && values_match (c->values, c->numel, right))
        continue;
      add_choice (q->choices, candidate_text (c), FALSE, c->mistake);
    }
  /* Twice, half, and near the answer: distinct from it even where it is 0. */
  static const struct { double scale, shift; } others[] = {
    { 2, 0 }, { 0.5, 0 }, { -2, 0 }, { 1, 1 }, { 1, -1 }, { 1, 2 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (others) && q->choices->len < 4; k++)
    {
      Candidate *other = candidate_from (CR_PRACTICE_MISTAKE_NONE, E, others[k].scale);
      for (gint64 i = 0; i < other->numel; i++)
        other->values[i] += others[k].shift;
      if (!values_match (other->values, other->numel, right))
        add_choice (q->choices, candidate_text (other), FALSE, CR_PRACTICE_MISTAKE_NONE);
      candidate_free (other);
    }
  candidate_free (right);
  shuffle_choices (q->choices, (guint32) (q->backward * 7919 + q->step * 131 + q->ask * 17
                                          + q->input + 1));
}

static CrPracticeQuestion *
question_new (const CrRunRecord      *record,
              int                     backward,
              int                     step,
              CrPracticeAsk           ask,
              int                     input,
              const CrTensorSnapshot *expected,
              char                   *name,     /* taken */
              char                   *prompt)   /* taken */
{
  CrPracticeQuestion *q = g_new0 (CrPracticeQuestion, 1);
  q->record = cr_run_record_ref ((CrRunRecord *) record);
  q->backward = backward;
  q->step = step;
  q->ask = ask;
  q->input = input;
  q->expected = expected;
  q->name = name;
  q->prompt = prompt;
  build_choices (q);
  return q;
}

GPtrArray *
cr_practice_questions (const CrRunRecord *record,
                       int                backward,
                       int                step_index,
                       CrPracticeLevel    level)
{
  GPtrArray *questions = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_practice_question_free);
  g_return_val_if_fail (record != NULL, questions);
  if (backward < 0 || (guint) backward >= record->backwards->len)
    return questions;
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  if (step_index < 0 || (guint) step_index >= bw->steps->len)
    return questions;
  const CrRecordStep *step = g_ptr_array_index (bw->steps, step_index);
  if (step->failed || step->custom_backward)
    return questions;

  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    {
      if (askable (step->grad_after))
        {
          const char *leaf = cr_record_tensor_label (record, step->leaf, "the leaf");
          g_ptr_array_add (questions, question_new (
            record, backward, step_index, CR_PRACTICE_ASK_LEAF_GRAD, -1, step->grad_after,
            g_strdup_printf ("%s.grad", leaf),
            g_strdup_printf ("What is %s.grad after this step?", leaf)));
        }
      return questions;
    }

  for (guint i = 0; step->inputs && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      if (!askable (in->outgoing.value))
        continue;
      const char *label = input_label (record, in);
      if (level == CR_PRACTICE_LEVEL_LOCAL && askable (in->local) && in->local_name)
        g_ptr_array_add (questions, question_new (
          record, backward, step_index, CR_PRACTICE_ASK_LOCAL, (int) i, in->local,
          g_strdup (in->local_name),
          g_strdup_printf ("What is the local gradient %s?", in->local_name)));
      g_autofree char *fallback = g_strdup_printf ("∂L/∂%s", label);
      g_ptr_array_add (questions, question_new (
        record, backward, step_index, CR_PRACTICE_ASK_SENT, (int) i, in->outgoing.value,
        g_strdup (in->outgoing.name ? in->outgoing.name : fallback),
        g_strdup_printf ("What does this step send on to %s?", label)));
    }
  for (guint a = 0; step->accumulations && a < step->accumulations->len; a++)
    {
      const CrRecordAccumulation *acc = g_ptr_array_index (step->accumulations, a);
      if (!askable (acc->sum) || !acc->name)
        continue;
      g_ptr_array_add (questions, question_new (
        record, backward, step_index, CR_PRACTICE_ASK_FAN_IN, (int) a, acc->sum,
        g_strdup (acc->name),
        g_strdup_printf ("%s now comes along another path too: what is it in all, so far?",
                         acc->name)));
    }
  return questions;
}

/* Whether every input tensor of op has its values in the record: the
 * learner computes the result from them. */
static gboolean
inputs_known (const CrRunRecord *record,
              const CrRecordOp  *op)
{
  if (!op->inputs || op->inputs->len == 0)
    return FALSE;
  for (guint i = 0; i < op->inputs->len; i++)
    {
      int t = g_array_index (op->inputs, int, i);
      if (t < 0 || (guint) t >= record->tensors->len)
        return FALSE;
      const CrRecordTensor *tensor = g_ptr_array_index (record->tensors, t);
      if (!complete (tensor->value))
        return FALSE;
    }
  return TRUE;
}

GPtrArray *
cr_practice_forward_questions (const CrRunRecord *record,
                               int                op_index)
{
  GPtrArray *questions = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_practice_question_free);
  g_return_val_if_fail (record != NULL, questions);
  if (op_index < 0 || (guint) op_index >= record->ops->len)
    return questions;
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  int out = op->outputs && op->outputs->len == 1 ? g_array_index (op->outputs, int, 0) : -1;
  if (out < 0 || (guint) out >= record->tensors->len || op->custom_function || op->in_place
      || !inputs_known (record, op))
    return questions;
  const CrRecordTensor *result = g_ptr_array_index (record->tensors, out);
  g_autoptr (CrForwardText) text = cr_forward_text_new (record, op_index);
  if (!askable (result->value) || !text || !text->expression || !text->result)
    return questions;
  g_ptr_array_add (questions, question_new (
    record, -1, op_index, CR_PRACTICE_ASK_FORWARD, -1, result->value, g_strdup (text->result),
    g_strdup_printf ("What is %s?", text->expression)));
  return questions;
}

void
cr_practice_question_free (CrPracticeQuestion *self)
{
  if (!self)
    return;
  g_clear_pointer (&self->choices, g_ptr_array_unref);
  cr_run_record_unref (self->record);
  g_free (self->name);
  g_free (self->prompt);
  g_free (self);
}

/* ---- verdicts ----------------------------------------------------------- */

static CrPracticeVerdict *
verdict_new (const CrPracticeQuestion *q,
             CrPracticeVerdictKind     kind,
             CrPracticeMistake         mistake,
             const char               *headline,
             char                     *why)       /* taken */
{
  CrPracticeVerdict *v = g_new0 (CrPracticeVerdict, 1);
  v->kind = kind;
  v->mistake = mistake;
  v->headline = g_strdup (headline);
  v->why = why;
  v->answer = cr_practice_values_text (q->expected->values, q->expected->shape,
                                       q->expected->ndim);
  v->max_error = NAN;
  return v;
}

/* "mistake. How the answer comes about." (new string) */
static char *
join (char *first,     /* taken, may be NULL */
      char *second)    /* taken */
{
  if (!first)
    return second;
  char *s = g_strconcat (first, " ", second, NULL);
  g_free (first);
  g_free (second);
  return s;
}

/* "Entry [1, 2]" of the answer's shape, "It" for one number (new string). */
static char *
entry_name (const CrTensorSnapshot *E,
            gint64                  at)
{
  if (E->ndim == 0 || E->numel == 1)
    return g_strdup ("It");
  GString *s = g_string_new ("Entry [");
  gint64 index[CR_MAX_DIMS];
  for (int d = E->ndim - 1; d >= 0; d--)
    {
      index[d] = at % E->shape[d];
      at /= E->shape[d];
    }
  for (int d = 0; d < E->ndim; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? ", " : "", index[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static char *
number_text (double v)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buffer, sizeof buffer, "%.6g", v == 0 ? 0.0 : v);
  return g_strdup (buffer);
}

CrPracticeVerdict *
cr_practice_check (const CrPracticeQuestion *q,
                   const char               *typed_text)
{
  g_return_val_if_fail (q != NULL, NULL);
  const CrTensorSnapshot *E = q->expected;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPracticeAnswer) typed = cr_practice_answer_parse (typed_text ? typed_text : "",
                                                                 &error);
  if (!typed)
    return verdict_new (q, CR_PRACTICE_UNREADABLE, CR_PRACTICE_MISTAKE_NONE,
                        "Can't read that.", g_strdup (error->message));

  Candidate *right = candidate_from (CR_PRACTICE_MISTAKE_NONE, E, 1);
  double m = max_abs (right->values, right->numel);

  /* One number for a tensor whose entries are all one number stands for
   * every entry: "1" for ones, and "1" for minus ones is a sign error. */
  gboolean all_one = typed->values->len == 1 && right->numel > 1;
  for (gint64 i = 1; all_one && i < right->numel; i++)
    all_one &= within (right->values[i], right->values[0], m);
  if (all_one)
    {
      double x = g_array_index (typed->values, double, 0);
      for (gint64 i = 1; i < right->numel; i++)
        g_array_append_val (typed->values, x);
      typed->ndim = 0;
    }
  const double *t = (const double *) typed->values->data;
  gint64 n = typed->values->len;

  CrPracticeVerdict *v = NULL;
  if (arranged_as (typed, right) || all_one)
    {
      /* worst: the largest error; worst_at: the entry outside the
       * tolerance by the most (-1: none is). */
      double worst = 0, worst_bad = -1;
      gint64 worst_at = -1;
      gboolean all_exact = TRUE;
      for (gint64 i = 0; i < right->numel; i++)
        {
          double x = t[i], e = right->values[i];
          double error_i = isnan (e) ? (isnan (x) ? 0 : INFINITY) : fabs (x - e);
          all_exact &= exact (x, e);
          if (!within (x, e, m) && error_i > worst_bad)
            {
              worst_bad = error_i;
              worst_at = i;
            }
          worst = MAX (worst, error_i);
        }
      if (worst_at < 0)
        {
          char *why = explain_answer (q);
          if (all_one)
            {
              g_autofree char *x = number_text (t[0]);
              why = join (g_strdup_printf ("Every one of its %" G_GINT64_FORMAT
                                           " entries is %s.", right->numel, x), why);
            }
          if (!all_exact)
            {
              g_autofree char *w = number_text (worst);
              why = join (g_strdup_printf ("Off by at most %s: within the tolerance of 1e-3 "
                                           "relative.", w), why);
            }
          v = verdict_new (q, all_exact ? CR_PRACTICE_RIGHT : CR_PRACTICE_CLOSE,
                           CR_PRACTICE_MISTAKE_NONE,
                           all_exact ? "Right." : "Right within tolerance.", why);
          v->max_error = worst;
        }
      else
        {
          /* The right arrangement, a wrong value: which mistake gives it? */
          g_autoptr (GPtrArray) wrong = mistakes_of (q);
          char *mistake_text = NULL;
          CrPracticeMistake mistake = CR_PRACTICE_MISTAKE_NONE;
          for (guint k = 0; k < wrong->len; k++)
            {
              const Candidate *c = g_ptr_array_index (wrong, k);
              if (values_match (c->values, c->numel, right) || !arranged_as (typed, c)
                  || !values_match (t, n, c))
                continue;
              mistake_text = explain_mistake (q, c);
              mistake = c->mistake;
              break;
            }
          if (!mistake_text)
            {
              g_autofree char *where = entry_name (E, worst_at);
              g_autofree char *want = number_text (right->values[worst_at]);
              g_autofree char *got = number_text (t[worst_at]);
              mistake_text = g_strdup_printf ("%s should be %s, not %s.", where, want, got);
            }
          v = verdict_new (q, CR_PRACTICE_WRONG, mistake, "Not quite.",
                           join (mistake_text, explain_answer (q)));
          v->max_error = worst;
        }
    }
  else
    {
      /* The wrong number or arrangement of entries. The product before its
       * broadcast sum, or the transpose, are the usual ones. */
      g_autoptr (GPtrArray) wrong = mistakes_of (q);
      char *mistake_text = NULL;
      CrPracticeMistake mistake = CR_PRACTICE_MISTAKE_NONE;
      for (guint k = 0; k < wrong->len; k++)
        {
          const Candidate *c = g_ptr_array_index (wrong, k);
          if ((c->mistake != CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM
               && c->mistake != CR_PRACTICE_MISTAKE_TRANSPOSED)
              || !arranged_as (typed, c) || !values_match (t, n, c))
            continue;
          mistake_text = explain_mistake (q, c);
          mistake = c->mistake;
          break;
        }
      if (!mistake_text)
        {
          g_autofree char *want = cr_record_shape_text (E->shape, E->ndim);
          g_autofree char *got = typed->ndim <= 1
                                 ? g_strdup_printf ("%u", typed->values->len)
                                 : cr_record_shape_text (typed->shape, typed->ndim);
          const CrRecordStepInput *in = step_input (question_step (q), q->input);
          gboolean has_tensor = q->ask == CR_PRACTICE_ASK_SENT && in;
          mistake_text = g_strdup_printf (
            "%s has shape %s (%" G_GINT64_FORMAT " %s)%s%s; you typed %s%s.", q->name, want,
            E->numel, E->numel == 1 ? "entry" : "entries",
            has_tensor ? ", the shape of " : "", has_tensor ? input_label (q->record, in) : "",
            got, typed->ndim <= 1 ? (typed->values->len == 1 ? " entry" : " entries") : "");
          if (has_tensor && in->reduction)
            {
              g_autofree char *how = cr_record_reduction_text (in->reduction,
                                                               input_label (q->record, in));
              mistake_text = join (mistake_text,
                                   g_strdup_printf ("The product incoming × local is %s.", how));
            }
        }
      v = verdict_new (q, CR_PRACTICE_WRONG_SHAPE, mistake, "Wrong shape.",
                       join (mistake_text, explain_answer (q)));
    }
  candidate_free (right);
  return v;
}

CrPracticeVerdict *
cr_practice_check_choice (const CrPracticeQuestion *q,
                          guint                     choice)
{
  g_return_val_if_fail (q != NULL && choice < q->choices->len, NULL);
  const CrPracticeChoice *c = g_ptr_array_index (q->choices, choice);
  if (c->right)
    return verdict_new (q, CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, "Right.",
                        explain_answer (q));
  char *mistake_text = NULL;
  CrPracticeVerdictKind kind = CR_PRACTICE_WRONG;
  if (c->mistake != CR_PRACTICE_MISTAKE_NONE)
    {
      g_autoptr (GPtrArray) wrong = mistakes_of (q);
      for (guint k = 0; k < wrong->len && !mistake_text; k++)
        {
          const Candidate *w = g_ptr_array_index (wrong, k);
          g_autofree char *text = candidate_text (w);
          if (w->mistake != c->mistake || g_strcmp0 (text, c->text) != 0)
            continue;
          mistake_text = explain_mistake (q, w);
          if (!same_shape (w->shape, w->ndim, q->expected->shape, q->expected->ndim))
            kind = CR_PRACTICE_WRONG_SHAPE;
        }
    }
  if (!mistake_text)
    mistake_text = g_strdup ("Not this one.");
  return verdict_new (q, kind, c->mistake, kind == CR_PRACTICE_WRONG_SHAPE ? "Wrong shape."
                                                                           : "Not quite.",
                      join (mistake_text, explain_answer (q)));
}

gboolean
cr_practice_verdict_is_right (const CrPracticeVerdict *self)
{
  return self && (self->kind == CR_PRACTICE_RIGHT || self->kind == CR_PRACTICE_CLOSE);
}

void
cr_practice_verdict_free (CrPracticeVerdict *self)
{
  if (!self)
    return;
  g_free (self->headline);
  g_free (self->why);
  g_free (self->answer);
  g_free (self);
}
