/* cr-training-rules.c — an optimizer step's element worked out by its rule
 * (cr-training-rules.h).
 *
 * Every result is computed here from the numbers before the step, never
 * read from the record's after values, so that a test can hold the rule's
 * result against what the parameter really became. PyTorch works in
 * float32; these are doubles from the same inputs, equal to a few units in
 * the float's last place. */
#include "cr-training-rules.h"

#include <math.h>
#include <string.h>

double
cr_training_value_at (const CrTensorSnapshot *s,
                      gint64                  element)
{
  if (!s)
    return NAN;
  if (s->numel == 1)
    return s->n_values > 0 ? s->values[0] : s->mean;
  return element >= 0 && element < s->n_values ? s->values[element] : NAN;
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

/* ---- building the lines ------------------------------------------------------- */

/* Numbers formatted into a small pool, for one line's arithmetic: 5
 * significant digits, as a reader checks them by hand. */
typedef struct {
  char  buf[8][G_ASCII_DTOSTR_BUF_SIZE];
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
line_free (gpointer data)
{
  CrTrainingRuleLine *line = data;
  g_free (line->rule);
  g_free (line->arithmetic);
  g_free (line);
}

/* Adds a line; returns result so a rule reads as its arithmetic. */
static double G_GNUC_PRINTF (4, 5)
add_line (CrTrainingWorked *w,
          const char       *rule,
          double            result,
          const char       *format,
          ...)
{
  CrTrainingRuleLine *line = g_new0 (CrTrainingRuleLine, 1);
  line->rule = g_strdup (rule);
  line->result = result;
  if (format)
    {
      va_list args;
      va_start (args, format);
      line->arithmetic = g_strdup_vprintf (format, args);
      va_end (args);
    }
  g_ptr_array_add (w->lines, line);
  return result;
}

static void
set_state (CrTrainingWorked *w,
           const char       *name,
           double            value)
{
  CrTrainingRuleState state = { name, value };
  g_array_append_val (w->state, state);
}

/* "(-2.9)²" or "2.9²". */
static const char *
squared (Numbers *n,
         double   value)
{
  const char *text = num (n, value);
  char *buf = n->buf[n->next++ % G_N_ELEMENTS (n->buf)];
  g_snprintf (buf, G_ASCII_DTOSTR_BUF_SIZE, value < 0 ? "(%s)²" : "%s²", text);
  return buf;
}

/* The gradient a rule starts from, maximize's sign and weight decay (L2,
 * added to the gradient) applied: the first lines of every rule here. */
static double
start_gradient (CrTrainingWorked     *w,
                const CrRecordUpdate *u,
                const char           *symbol,
                double                p,
                double                g)
{
  Numbers n = { 0 };
  gboolean maximize = cr_record_update_number (u, "maximize", 0) != 0;
  double decay = cr_record_update_number (u, "weight_decay", 0);
  g_autofree char *rule = g_strdup_printf (maximize ? "%s = −p.grad (maximize)" : "%s = p.grad", symbol);
  double d = add_line (w, rule, maximize ? -g : g, NULL);
  if (decay != 0)
    {
      g_autofree char *with = g_strdup_printf ("%s ← %s + λ·p", symbol, symbol);
      d = add_line (w, with, d + decay * p, "%s + %s × %s", num (&n, d), num (&n, decay), num (&n, p));
    }
  return d;
}

/* A state's step count after this step: the count before, plus one. */
static double
step_count (const CrRecordUpdate *u)
{
  const CrTensorSnapshot *before = state_before (u, "step");
  if (before)
    return cr_training_value_at (before, 0) + 1;
  return cr_training_value_at (state_after (u, "step"), 0);
}

/* ---- the rules ------------------------------------------------------------------ */

/* torch/optim/sgd.py: weight decay, momentum (its buffer is the first
 * gradient at the first step), dampening, Nesterov. */
static void
work_sgd (CrTrainingWorked     *w,
          const CrRecordUpdate *u,
          gint64                e)
{
  Numbers n = { 0 };
  double lr = cr_record_update_number (u, "lr", NAN);
  double momentum = cr_record_update_number (u, "momentum", 0);
  double dampening = cr_record_update_number (u, "dampening", 0);
  gboolean nesterov = cr_record_update_number (u, "nesterov", 0) != 0;
  double p = cr_training_value_at (u->before, e);
  double d = start_gradient (w, u, "d", p, cr_training_value_at (u->grad, e));
  if (momentum != 0)
    {
      const CrTensorSnapshot *buf_before = state_before (u, "momentum_buffer");
      double buf;
      if (!buf_before)
        buf = add_line (w, "buf ← d (first step)", d, NULL);
      else
        {
          double b = cr_training_value_at (buf_before, e);
          buf = add_line (w, "buf ← μ·buf + (1−τ)·d", momentum * b + (1 - dampening) * d,
                          "%s × %s + %s × %s", num (&n, momentum), num (&n, b),
                          num (&n, 1 - dampening), num (&n, d));
        }
      set_state (w, "momentum_buffer", buf);
      if (nesterov)
        d = add_line (w, "d ← d + μ·buf (Nesterov)", d + momentum * buf,
                      "%s + %s × %s", num (&n, d), num (&n, momentum), num (&n, buf));
      else
        d = buf;
    }
  w->after = add_line (w, momentum != 0 && !nesterov ? "p ← p − lr·buf" : "p ← p − lr·d",
                       p - lr * d, "%s − %s × %s", num (&n, p), num (&n, lr), num (&n, d));
}

/* torch/optim/adam.py and adamw.py: the moments, AMSGrad's running
 * maximum, the bias corrections; AdamW's decay shrinks the parameter. */
static void
work_adam (CrTrainingWorked     *w,
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
  double p = cr_training_value_at (u->before, e);
  double g = cr_training_value_at (u->grad, e);
  double t = step_count (u);
  set_state (w, "step", t);
  if (decoupled)
    {
      /* AdamW: the decay is on the parameter, not in the gradient. */
      g = add_line (w, maximize ? "g = −p.grad (maximize)" : "g = p.grad", maximize ? -g : g, NULL);
      add_line (w, "t (this step)", t, NULL);
      if (decay != 0)
        p = add_line (w, "p ← p·(1 − lr·λ)", p * (1 - lr * decay), "%s × (1 − %s × %s)",
                      num (&n, p), num (&n, lr), num (&n, decay));
    }
  else
    {
      g = start_gradient (w, u, "g", p, g);
      add_line (w, "t (this step)", t, NULL);
    }
  double m0 = cr_training_value_at (state_before (u, "exp_avg"), e);
  double v0 = cr_training_value_at (state_before (u, "exp_avg_sq"), e);
  double m = add_line (w, "m ← β₁·m + (1−β₁)·g", beta1 * m0 + (1 - beta1) * g, "%s × %s + %s × %s",
                       num (&n, beta1), num (&n, m0), num (&n, 1 - beta1), num (&n, g));
  double v = add_line (w, "v ← β₂·v + (1−β₂)·g²", beta2 * v0 + (1 - beta2) * g * g, "%s × %s + %s × %s",
                       num (&n, beta2), num (&n, v0), num (&n, 1 - beta2), squared (&n, g));
  set_state (w, "exp_avg", m);
  set_state (w, "exp_avg_sq", v);
  if (amsgrad)
    {
      double v_max0 = cr_training_value_at (state_before (u, "max_exp_avg_sq"), e);
      double v_max = add_line (w, "v_max ← max(v_max, v)", fmax (v_max0, v),
                               "max(%s, %s)", num (&n, v_max0), num (&n, v));
      set_state (w, "max_exp_avg_sq", v_max);
      v = v_max;
    }
  double bc1 = 1 - pow (beta1, t), bc2 = 1 - pow (beta2, t);
  double m_hat = add_line (w, "m̂ = m / (1 − β₁ᵗ)", m / bc1, "%s / %s", num (&n, m), num (&n, bc1));
  double v_hat = add_line (w, amsgrad ? "v̂ = v_max / (1 − β₂ᵗ)" : "v̂ = v / (1 − β₂ᵗ)", v / bc2,
                           "%s / %s", num (&n, v), num (&n, bc2));
  w->after = add_line (w, "p ← p − lr·m̂/(√v̂ + ε)", p - lr * m_hat / (sqrt (v_hat) + eps),
                       "%s − %s × %s / (%s + %s)", num (&n, p), num (&n, lr), num (&n, m_hat),
                       num (&n, sqrt (v_hat)), num (&n, eps));
}

/* torch/optim/rmsprop.py: the running average of g², centered (minus the
 * square of g's running average), momentum on the scaled step. */
static void
work_rmsprop (CrTrainingWorked     *w,
              const CrRecordUpdate *u,
              gint64                e)
{
  Numbers n = { 0 };
  double lr = cr_record_update_number (u, "lr", NAN);
  double alpha = cr_record_update_number (u, "alpha", NAN);
  double eps = cr_record_update_number (u, "eps", NAN);
  double momentum = cr_record_update_number (u, "momentum", 0);
  gboolean centered = cr_record_update_number (u, "centered", 0) != 0;
  double p = cr_training_value_at (u->before, e);
  set_state (w, "step", step_count (u));
  double g = start_gradient (w, u, "g", p, cr_training_value_at (u->grad, e));
  double v0 = cr_training_value_at (state_before (u, "square_avg"), e);
  double v = add_line (w, "v ← α·v + (1−α)·g²", alpha * v0 + (1 - alpha) * g * g, "%s × %s + %s × %s",
                       num (&n, alpha), num (&n, v0), num (&n, 1 - alpha), squared (&n, g));
  set_state (w, "square_avg", v);
  double avg;
  if (centered)
    {
      double a0 = cr_training_value_at (state_before (u, "grad_avg"), e);
      double a = add_line (w, "ḡ ← α·ḡ + (1−α)·g", alpha * a0 + (1 - alpha) * g, "%s × %s + %s × %s",
                           num (&n, alpha), num (&n, a0), num (&n, 1 - alpha), num (&n, g));
      set_state (w, "grad_avg", a);
      avg = add_line (w, "s = √(v − ḡ²) + ε", sqrt (v - a * a) + eps, "√(%s − %s) + %s",
                      num (&n, v), squared (&n, a), num (&n, eps));
    }
  else
    avg = add_line (w, "s = √v + ε", sqrt (v) + eps, "√%s + %s", num (&n, v), num (&n, eps));
  if (momentum > 0)
    {
      double b0 = cr_training_value_at (state_before (u, "momentum_buffer"), e);
      double buf = add_line (w, "buf ← μ·buf + g/s", momentum * b0 + g / avg, "%s × %s + %s / %s",
                             num (&n, momentum), num (&n, b0), num (&n, g), num (&n, avg));
      set_state (w, "momentum_buffer", buf);
      w->after = add_line (w, "p ← p − lr·buf", p - lr * buf, "%s − %s × %s",
                           num (&n, p), num (&n, lr), num (&n, buf));
    }
  else
    w->after = add_line (w, "p ← p − lr·g/s", p - lr * g / avg, "%s − %s × %s / %s",
                         num (&n, p), num (&n, lr), num (&n, g), num (&n, avg));
}

/* torch/optim/adagrad.py: the sum of every g² so far, a learning rate
 * that decays with the step. */
static void
work_adagrad (CrTrainingWorked     *w,
              const CrRecordUpdate *u,
              gint64                e)
{
  Numbers n = { 0 };
  double lr = cr_record_update_number (u, "lr", NAN);
  double lr_decay = cr_record_update_number (u, "lr_decay", 0);
  double eps = cr_record_update_number (u, "eps", NAN);
  double p = cr_training_value_at (u->before, e);
  double g = start_gradient (w, u, "g", p, cr_training_value_at (u->grad, e));
  double t = add_line (w, "t (this step)", step_count (u), NULL);
  set_state (w, "step", t);
  double clr = lr;
  if (lr_decay != 0)
    clr = add_line (w, "lr_t = lr / (1 + (t−1)·δ)", lr / (1 + (t - 1) * lr_decay),
                    "%s / (1 + %s × %s)", num (&n, lr), num (&n, t - 1), num (&n, lr_decay));
  double s0 = cr_training_value_at (state_before (u, "sum"), e);
  double s = add_line (w, "G ← G + g²", s0 + g * g, "%s + %s", num (&n, s0), squared (&n, g));
  set_state (w, "sum", s);
  w->after = add_line (w, lr_decay != 0 ? "p ← p − lr_t·g/(√G + ε)" : "p ← p − lr·g/(√G + ε)",
                       p - clr * g / (sqrt (s) + eps), "%s − %s × %s / (%s + %s)",
                       num (&n, p), num (&n, clr), num (&n, g), num (&n, sqrt (s)), num (&n, eps));
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

/* The script's own update: the factor it used, read back from the values. */
static void
work_manual (CrTrainingWorked     *w,
             const CrRecordUpdate *u,
             gint64                e)
{
  Numbers n = { 0 };
  double p = cr_training_value_at (u->before, e), after = cr_training_value_at (u->after, e);
  double k = manual_factor (u);
  if (!isnan (k))
    {
      /* Float32 arithmetic: the factor is read back to 4 digits. */
      g_autofree char *rule = g_strdup_printf ("p ← p − %s·p.grad", num (&n, k));
      add_line (w, rule, after, "%s − %s × %s", num (&n, p), num (&n, k),
                num (&n, cr_training_value_at (u->grad, e)));
    }
  else
    add_line (w, "p ← p − Δ", after, "%s − %s", num (&n, p), num (&n, p - after));
}

/* An optimizer whose rule is not told: what it had and what it left. */
static void
work_other (CrTrainingWorked     *w,
            const CrRecordUpdate *u,
            gint64                e)
{
  Numbers n = { 0 };
  add_line (w, "g = p.grad", cr_training_value_at (u->grad, e), NULL);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      double before = cr_training_value_at (state->before, e);
      add_line (w, state->name, cr_training_value_at (state->after, e), "%s →", num (&n, before));
    }
  add_line (w, "p", cr_training_value_at (u->after, e), "%s →",
            num (&n, cr_training_value_at (u->before, e)));
}

gboolean
cr_training_rule_is_told (const CrRecordUpdate *u)
{
  static const char *const told[] = { "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", NULL };
  g_return_val_if_fail (u != NULL, FALSE);
  return u->kind == CR_RECORD_UPDATE_OPTIMIZER && u->optimizer && g_strv_contains (told, u->optimizer);
}

CrTrainingWorked *
cr_training_work (const CrRecordUpdate *u,
                  gint64                element)
{
  g_return_val_if_fail (u != NULL, NULL);
  CrTrainingWorked *w = g_new0 (CrTrainingWorked, 1);
  w->lines = g_ptr_array_new_with_free_func (line_free);
  w->state = g_array_new (FALSE, FALSE, sizeof (CrTrainingRuleState));
  w->after = NAN;
  const CrTensorSnapshot *shape_of = u->after ? u->after : u->before;
  gint64 numel = shape_of ? shape_of->numel : 1;
  element = CLAMP (element, 0, MAX (numel - 1, 0));
  w->told = cr_training_rule_is_told (u);
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    work_manual (w, u, element);
  else if (!w->told)
    work_other (w, u, element);
  else if (g_str_equal (u->optimizer, "SGD"))
    work_sgd (w, u, element);
  else if (g_str_equal (u->optimizer, "RMSprop"))
    work_rmsprop (w, u, element);
  else if (g_str_equal (u->optimizer, "Adagrad"))
    work_adagrad (w, u, element);
  else
    work_adam (w, u, element);
  return w;
}

void
cr_training_worked_free (CrTrainingWorked *w)
{
  if (!w)
    return;
  g_ptr_array_unref (w->lines);
  g_array_unref (w->state);
  g_free (w);
}

double
cr_training_worked_state (const CrTrainingWorked *w,
                          const char             *name)
{
  g_return_val_if_fail (w != NULL && name != NULL, NAN);
  for (guint i = 0; i < w->state->len; i++)
    {
      const CrTrainingRuleState *state = &g_array_index (w->state, CrTrainingRuleState, i);
      if (g_str_equal (state->name, name))
        return state->value;
    }
  return NAN;
}
