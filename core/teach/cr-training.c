/* cr-training.c — a training loop read off the run record (cr-training.h).
 *
 * The rules are PyTorch 1.13's single-tensor updates (torch/optim/sgd.py,
 * adam.py, adamw.py): the numbers shown for an element are the recorded
 * ones where the record keeps them (the state after the step, the
 * parameter after), and the intermediate ones (m̂, v̂, a gradient with
 * weight decay) are worked out in double from those. */
#include "cr-training.h"

#include "cr-pyformat.h"

#include <math.h>
#include <string.h>

/* ---- the curve and the parameters ------------------------------------------ */

GArray *
cr_training_loss_curve (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  GArray *points = g_array_new (FALSE, FALSE, sizeof (CrTrainingPoint));
  for (guint b = 0; b < record->backwards->len; b++)
    {
      CrTrainingPoint point = { b, 0, 0 };
      if (!cr_run_record_backward_loss (record, b, &point.loss))
        continue;
      point.iteration = ((const CrRecordBackward *) g_ptr_array_index (record->backwards, b))->iteration;
      g_array_append_val (points, point);
    }
  return points;
}

gboolean
cr_training_is_loop (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, FALSE);
  if (record->updates->len > 0)
    return TRUE;
  guint with_loss = 0;
  for (guint b = 0; b < record->backwards->len && with_loss < 2; b++)
    with_loss += cr_run_record_backward_loss (record, b, NULL);
  return with_loss >= 2;
}

static void
param_free (gpointer data)
{
  CrTrainingParam *param = data;
  g_free (param->name);
  g_array_unref (param->updates);
  g_free (param);
}

GPtrArray *
cr_training_params (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  GPtrArray *params = g_ptr_array_new_with_free_func (param_free);
  for (guint u = 0; u < record->updates->len; u++)
    {
      const CrRecordUpdate *update = g_ptr_array_index (record->updates, u);
      CrTrainingParam *param = NULL;
      for (guint p = 0; p < params->len && !param; p++)
        {
          CrTrainingParam *known = g_ptr_array_index (params, p);
          /* An unknown tensor (-1) goes by its name. */
          if (update->tensor >= 0 ? known->tensor == update->tensor
                                  : known->tensor < 0 && g_strcmp0 (known->name, update->name) == 0)
            param = known;
        }
      if (!param)
        {
          param = g_new0 (CrTrainingParam, 1);
          param->tensor = update->tensor;
          param->name = g_strdup (update->name ? update->name : "?");
          param->updates = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (params, param);
        }
      g_array_append_val (param->updates, u);
    }
  return params;
}

static void
series_free (gpointer data)
{
  CrTrainingSeries *series = data;
  g_free (series->name);
  g_array_unref (series->points);
  g_free (series);
}

GPtrArray *
cr_training_printed_series (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  GPtrArray *all = g_ptr_array_new_with_free_func (series_free);
  for (guint i = 0; i < record->printed->len; i++)
    {
      const CrRecordPrinted *p = g_ptr_array_index (record->printed, i);
      CrTrainingSeries *series = NULL;
      for (guint k = 0; k < all->len && !series; k++)
        {
          CrTrainingSeries *known = g_ptr_array_index (all, k);
          if (known->line == p->span.line && g_str_equal (known->name, p->name))
            series = known;
        }
      if (!series)
        {
          series = g_new0 (CrTrainingSeries, 1);
          series->name = g_strdup (p->name);
          series->line = p->span.line;
          series->points = g_array_new (FALSE, FALSE, sizeof (CrTrainingPoint));
          g_ptr_array_add (all, series);
        }
      CrTrainingPoint point = { (guint) MAX (p->backward, 0), p->iteration, p->value };
      g_array_append_val (series->points, point);
    }
  /* Counters out: a series of whole numbers only. */
  for (guint k = all->len; k-- > 0;)
    {
      const CrTrainingSeries *series = g_ptr_array_index (all, k);
      gboolean whole = TRUE;
      for (guint i = 0; i < series->points->len && whole; i++)
        {
          double v = g_array_index (series->points, CrTrainingPoint, i).loss;
          whole = v == floor (v);
        }
      if (whole)
        g_ptr_array_remove_index (all, k);
    }
  return all;
}

GArray *
cr_training_updates_after (const CrRunRecord *record,
                           int                backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  GArray *indices = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint u = 0; u < record->updates->len; u++)
    if (((const CrRecordUpdate *) g_ptr_array_index (record->updates, u))->backward == backward)
      g_array_append_val (indices, u);
  return indices;
}

/* ---- numbers as text ---------------------------------------------------------- */

/* A number for a line of arithmetic: 5 significant digits, as a reader
 * checks them by hand. */
static void
append_number (GString *out,
               double   value)
{
  if (isnan (value))
    {
      g_string_append (out, "?");
      return;
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.5g", value);
  g_string_append (out, buf);
}

static void
append_list (GString                *out,
             const CrTensorSnapshot *s,
             int                     dim,
             gint64                 *at)
{
  if (dim == s->ndim)
    {
      g_autofree char *repr = cr_py_float_repr (s->values[(*at)++]);
      g_string_append (out, repr);
      return;
    }
  g_string_append_c (out, '[');
  for (gint64 i = 0; i < s->shape[dim]; i++)
    {
      if (i)
        g_string_append (out, ", ");
      append_list (out, s, dim + 1, at);
    }
  g_string_append_c (out, ']');
}

char *
cr_training_values_text (const CrTensorSnapshot *snapshot)
{
  if (!snapshot)
    return g_strdup ("None");
  if (snapshot->n_values < snapshot->numel)
    {
      g_autoptr (GString) out = g_string_new ("norm ");
      append_number (out, cr_tensor_snapshot_norm (snapshot));
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  GString *out = g_string_new (NULL);
  gint64 at = 0;
  append_list (out, snapshot, 0, &at);
  return g_string_free (out, FALSE);
}

char *
cr_training_index_text (const CrTensorSnapshot *snapshot,
                        gint64                  element)
{
  if (!snapshot || snapshot->ndim == 0)
    return g_strdup ("");
  gint64 index[CR_MAX_DIMS];
  for (int d = snapshot->ndim - 1; d >= 0; d--)
    {
      gint64 size = MAX (snapshot->shape[d], 1);
      index[d] = element % size;
      element /= size;
    }
  GString *out = g_string_new ("[");
  for (int d = 0; d < snapshot->ndim; d++)
    g_string_append_printf (out, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, index[d]);
  g_string_append_c (out, ']');
  return g_string_free (out, FALSE);
}

/* The element's value in s; NaN when s has none or does not keep it. */
static double
value_at (const CrTensorSnapshot *s,
          gint64                  element)
{
  if (!s)
    return NAN;
  if (s->numel == 1)
    return s->n_values > 0 ? s->values[0] : s->mean;
  return element < s->n_values ? s->values[element] : NAN;
}

static const CrTensorSnapshot *
state_before (const CrRecordUpdate *u,
              const char           *name)
{
  const CrRecordOptimState *state = cr_record_update_state (u, name);
  return state ? state->before : NULL;
}

static const CrTensorSnapshot *
state_after (const CrRecordUpdate *u,
             const char           *name)
{
  const CrRecordOptimState *state = cr_record_update_state (u, name);
  return state ? state->after : NULL;
}

/* ---- the rules ----------------------------------------------------------------- */

static gboolean
is_adam (const CrRecordUpdate *u)
{
  return g_strcmp0 (u->optimizer, "Adam") == 0 || g_strcmp0 (u->optimizer, "AdamW") == 0;
}

const char *
cr_training_rule (const CrRecordUpdate *u)
{
  g_return_val_if_fail (u != NULL, NULL);
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    return "p ← p − Δ (the script's own update)";
  if (g_strcmp0 (u->optimizer, "SGD") == 0)
    return cr_record_update_number (u, "momentum", 0) != 0
           ? "buf ← μ·buf + (1−τ)·g;  p ← p − lr·buf" : "p ← p − lr·g";
  if (is_adam (u))
    return "m ← β₁·m + (1−β₁)·g;  v ← β₂·v + (1−β₂)·g²;  p ← p − lr·m̂/(√v̂ + ε)";
  return "p ← p − step (the optimizer's rule)";
}

/* One line of a rule: "    m ← β₁·m + (1−β₁)·g      = 0.9 × 0 + 0.1 × -2.9 = -0.29". */
typedef struct {
  GString  *out;
  gboolean  narrow;   /* the arithmetic under the rule, its result on a line of its own */
} Lines;

static void G_GNUC_PRINTF (3, 4)
rule_line (Lines      *lines,
           const char *rule,
           const char *format,
           ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *arithmetic = g_strdup_vprintf (format, args);
  va_end (args);
  g_string_append_printf (lines->out, "    %s", rule);
  if (lines->narrow)
    {
      /* "= 0.9 × 0 + 0.1 × -2.9" then "= -0.29": a narrow pane reads down. */
      const char *result = g_strrstr (arithmetic, " = ");
      if (result)
        g_string_append_printf (lines->out, "\n      = %.*s\n      = %s\n",
                                (int) (result - arithmetic), arithmetic, result + 3);
      else
        g_string_append_printf (lines->out, "\n      = %s\n", arithmetic);
      return;
    }
  /* Columns, not characters: m̂'s hat is a combining mark. */
  glong width = 0;
  for (const char *c = rule; *c; c = g_utf8_next_char (c))
    width += !g_unichar_iszerowidth (g_utf8_get_char (c));
  for (glong i = width; i < 26; i++)
    g_string_append_c (lines->out, ' ');
  g_string_append_printf (lines->out, "  = %s\n", arithmetic);
}

/* "%s" arguments for rule_line: numbers formatted into a small pool. */
typedef struct {
  char buf[12][G_ASCII_DTOSTR_BUF_SIZE];
  guint next;
} Numbers;

static const char *
num (Numbers *n,
     double   value)
{
  char *buf = n->buf[n->next++ % G_N_ELEMENTS (n->buf)];
  if (isnan (value))
    return strcpy (buf, "?");
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.5g", value);
  return buf;
}

static void
explain_sgd (Lines                *lines,
             const CrRecordUpdate *u,
             gint64                e)
{
  Numbers n = { 0 };
  double lr = cr_record_update_number (u, "lr", NAN);
  double momentum = cr_record_update_number (u, "momentum", 0);
  double dampening = cr_record_update_number (u, "dampening", 0);
  double decay = cr_record_update_number (u, "weight_decay", 0);
  gboolean nesterov = cr_record_update_number (u, "nesterov", 0) != 0;
  gboolean maximize = cr_record_update_number (u, "maximize", 0) != 0;
  double p = value_at (u->before, e), g = value_at (u->grad, e);
  double d = maximize ? -g : g;
  rule_line (lines, maximize ? "d = −p.grad (maximize)" : "d = p.grad", "%s", num (&n, d));
  if (decay != 0)
    {
      double with = d + decay * p;
      rule_line (lines, "d ← d + weight_decay·p", "%s + %s × %s = %s",
                 num (&n, d), num (&n, decay), num (&n, p), num (&n, with));
      d = with;
    }
  if (momentum != 0)
    {
      const CrTensorSnapshot *buf_before = state_before (u, "momentum_buffer");
      double b_after = value_at (state_after (u, "momentum_buffer"), e);
      if (!buf_before)
        rule_line (lines, "buf ← d (first step)", "%s", num (&n, b_after));
      else
        rule_line (lines, "buf ← μ·buf + (1−τ)·d", "%s × %s + %s × %s = %s",
                   num (&n, momentum), num (&n, value_at (buf_before, e)),
                   num (&n, 1 - dampening), num (&n, d), num (&n, b_after));
      if (nesterov)
        {
          double with = d + momentum * b_after;
          rule_line (lines, "d ← d + μ·buf (Nesterov)", "%s + %s × %s = %s",
                     num (&n, d), num (&n, momentum), num (&n, b_after), num (&n, with));
          d = with;
        }
      else
        d = b_after;
    }
  rule_line (lines, momentum != 0 && !nesterov ? "p ← p − lr·buf" : "p ← p − lr·d",
             "%s − %s × %s = %s", num (&n, p), num (&n, lr), num (&n, d),
             num (&n, value_at (u->after, e)));
}

static void
explain_adam (Lines                *lines,
              const CrRecordUpdate *u,
              gint64                e)
{
  Numbers n = { 0 };
  gboolean decoupled = g_strcmp0 (u->optimizer, "AdamW") == 0;
  double lr = cr_record_update_number (u, "lr", NAN);
  double beta1 = cr_record_update_number (u, "beta1", NAN);
  double beta2 = cr_record_update_number (u, "beta2", NAN);
  double eps = cr_record_update_number (u, "eps", NAN);
  double decay = cr_record_update_number (u, "weight_decay", 0);
  gboolean amsgrad = cr_record_update_number (u, "amsgrad", 0) != 0;
  gboolean maximize = cr_record_update_number (u, "maximize", 0) != 0;
  double p = value_at (u->before, e), g = value_at (u->grad, e);
  double t = value_at (state_after (u, "step"), 0);
  if (maximize)
    g = -g;
  rule_line (lines, maximize ? "g = −p.grad (maximize)" : "g = p.grad", "%s", num (&n, g));
  rule_line (lines, "t (this step)", "%s", num (&n, t));
  if (decoupled && decay != 0)
    {
      double shrunk = p * (1 - lr * decay);
      rule_line (lines, "p ← p·(1 − lr·λ)", "%s × (1 − %s × %s) = %s",
                 num (&n, p), num (&n, lr), num (&n, decay), num (&n, shrunk));
      p = shrunk;
    }
  else if (decay != 0)
    {
      double with = g + decay * p;
      rule_line (lines, "g ← g + λ·p", "%s + %s × %s = %s",
                 num (&n, g), num (&n, decay), num (&n, p), num (&n, with));
      g = with;
    }
  double m = value_at (state_after (u, "exp_avg"), e);
  double v = value_at (state_after (u, "exp_avg_sq"), e);
  rule_line (lines, "m ← β₁·m + (1−β₁)·g", "%s × %s + %s × %s = %s",
             num (&n, beta1), num (&n, value_at (state_before (u, "exp_avg"), e)),
             num (&n, 1 - beta1), num (&n, g), num (&n, m));
  rule_line (lines, "v ← β₂·v + (1−β₂)·g²", g < 0 ? "%s × %s + %s × (%s)² = %s" : "%s × %s + %s × %s² = %s",
             num (&n, beta2), num (&n, value_at (state_before (u, "exp_avg_sq"), e)),
             num (&n, 1 - beta2), num (&n, g), num (&n, v));
  if (amsgrad)
    {
      double v_max = value_at (state_after (u, "max_exp_avg_sq"), e);
      rule_line (lines, "v ← max(v_max, v) (AMSGrad)", "%s", num (&n, v_max));
      v = v_max;
    }
  double bc1 = 1 - pow (beta1, t), bc2 = 1 - pow (beta2, t);
  double m_hat = m / bc1, v_hat = v / bc2;
  rule_line (lines, "m̂ = m / (1 − β₁ᵗ)", "%s / %s = %s", num (&n, m), num (&n, bc1), num (&n, m_hat));
  rule_line (lines, "v̂ = v / (1 − β₂ᵗ)", "%s / %s = %s", num (&n, v), num (&n, bc2), num (&n, v_hat));
  rule_line (lines, "p ← p − lr·m̂/(√v̂ + ε)", "%s − %s × %s / (%s + %s) = %s",
             num (&n, p), num (&n, lr), num (&n, m_hat), num (&n, sqrt (v_hat)), num (&n, eps),
             num (&n, value_at (u->after, e)));
}

/* The factor k with before − after = k·grad on every element kept, when
 * there is one (a manual `w -= lr * w.grad`); NaN else. */
static double
manual_factor (const CrRecordUpdate *u)
{
  if (!u->before || !u->after || !u->grad)
    return NAN;
  gint64 n = MIN (MIN (u->before->n_values, u->after->n_values), u->grad->n_values);
  double k = NAN;
  for (gint64 i = 0; i < n; i++)
    {
      double delta = u->before->values[i] - u->after->values[i], g = u->grad->values[i];
      if (g == 0)
        {
          if (delta != 0)
            return NAN;
          continue;
        }
      double here = delta / g;
      if (isnan (k))
        k = here;
      else if (fabs (here - k) > 1e-3 * fabs (k) + 1e-12)
        return NAN;
    }
  return k;
}

static void
explain_manual (Lines                *lines,
                const CrRecordUpdate *u,
                gint64                e)
{
  Numbers n = { 0 };
  double p = value_at (u->before, e), after = value_at (u->after, e);
  double k = manual_factor (u);
  if (!isnan (k))
    {
      /* Float32 arithmetic: the factor is read back to 4 digits. */
      char rule[64];
      g_snprintf (rule, sizeof rule, "p ← p − %s·p.grad", num (&n, k));
      rule_line (lines, rule, "%s − %s × %s = %s", num (&n, p), num (&n, k),
                 num (&n, value_at (u->grad, e)), num (&n, after));
    }
  else
    rule_line (lines, "p ← p − Δ", "%s − %s = %s", num (&n, p), num (&n, p - after), num (&n, after));
}

static void
explain_other (Lines                *lines,
               const CrRecordUpdate *u,
               gint64                e)
{
  Numbers n = { 0 };
  rule_line (lines, "g = p.grad", "%s", num (&n, value_at (u->grad, e)));
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      g_autofree char *rule = g_strdup_printf ("%s", state->name);
      rule_line (lines, rule, "%s → %s", num (&n, value_at (state->before, state->before
                                                                       && state->before->numel == 1 ? 0 : e)),
                 num (&n, value_at (state->after, state->after && state->after->numel == 1 ? 0 : e)));
    }
  rule_line (lines, "p", "%s → %s", num (&n, value_at (u->before, e)), num (&n, value_at (u->after, e)));
}

/* "shape [2, 4]", "scalar". */
static void
append_shape (GString                *out,
              const CrTensorSnapshot *s)
{
  if (!s || s->ndim == 0)
    {
      g_string_append (out, "scalar");
      return;
    }
  g_string_append (out, "shape [");
  for (int d = 0; d < s->ndim; d++)
    g_string_append_printf (out, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, s->shape[d]);
  g_string_append_c (out, ']');
}

/* Switches that are off say nothing: only maximize = 1 is news. */
static gboolean
is_quiet_number (const CrRecordNumber *number)
{
  static const char *const switches[] = { "nesterov", "maximize", "amsgrad", NULL };
  return number->value == 0 && g_strv_contains (switches, number->name);
}

/* "    W1 before   [[0.5, ...]]" or its norm when big. */
static void
value_line (GString                *out,
            const char             *label,
            const CrTensorSnapshot *s,
            gboolean                narrow)
{
  if (narrow)
    g_string_append_printf (out, "    %s: ", label);
  else
    g_string_append_printf (out, "    %-18s", label);
  if (!s)
    g_string_append (out, "None");
  else if (s->numel <= 16 && s->n_values == s->numel)
    for (gint64 i = 0; i < s->numel; i++)
      {
        g_string_append (out, i ? ", " : "");
        append_number (out, s->values[i]);
      }
  else
    {
      g_string_append (out, "norm ");
      append_number (out, cr_tensor_snapshot_norm (s));
      g_string_append (out, ", mean ");
      append_number (out, s->mean);
    }
  g_string_append_c (out, '\n');
}

char *
cr_training_explain (const CrRunRecord    *record,
                     const CrRecordUpdate *u,
                     gint64                element)
{
  return cr_training_explain_narrow (record, u, element, FALSE);
}

char *
cr_training_explain_narrow (const CrRunRecord    *record,
                            const CrRecordUpdate *u,
                            gint64                element,
                            gboolean              narrow)
{
  g_return_val_if_fail (record != NULL && u != NULL, NULL);
  GString *out = g_string_new (NULL);
  const char *name = u->name ? u->name : "?";
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    g_string_append_printf (out, "%s · manual update, line %d", name, u->span.line);
  else
    g_string_append_printf (out, "%s · %s step %u, line %d", name,
                            u->optimizer ? u->optimizer : "optimizer", u->step, u->span.line);
  if (u->backward >= 0 && (guint) u->backward < record->backwards->len)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, u->backward);
      if (bw->iteration)
        g_string_append_printf (out, " · iteration %u", bw->iteration);
    }
  g_string_append (out, " · ");
  append_shape (out, u->after ? u->after : u->before);
  g_string_append_c (out, '\n');

  if (u->numbers->len > 0)
    {
      g_string_append (out, "  ");
      gboolean first = TRUE;
      for (guint i = 0; i < u->numbers->len; i++)
        {
          const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
          if (is_quiet_number (number))
            continue;
          g_string_append_printf (out, "%s%s = ", first ? "" : ", ", number->name);
          append_number (out, number->value);
          first = FALSE;
        }
      g_string_append_c (out, '\n');
    }

  const CrTensorSnapshot *shape_of = u->after ? u->after : u->before;
  gint64 numel = shape_of ? shape_of->numel : 1;
  element = CLAMP (element, 0, MAX (numel - 1, 0));
  g_autofree char *index = cr_training_index_text (shape_of, element);
  g_string_append_printf (out, "  %s%s:\n", name, index);
  Lines lines = { out, narrow };
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    explain_manual (&lines, u, element);
  else if (g_strcmp0 (u->optimizer, "SGD") == 0)
    explain_sgd (&lines, u, element);
  else if (is_adam (u))
    explain_adam (&lines, u, element);
  else
    explain_other (&lines, u, element);

  g_string_append_printf (out, "  %s, every element:\n", name);
  value_line (out, "before", u->before, narrow);
  value_line (out, "grad", u->grad, narrow);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      value_line (out, state->name, state->after, narrow);
    }
  value_line (out, "after", u->after, narrow);
  return g_string_free (out, FALSE);
}
