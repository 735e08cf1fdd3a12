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

/* ---- what a rule works from ------------------------------------------------------ */

/* One element of one optimizer step: the numbers before it and the
 * optimizer's options, read once (an option the optimizer does not have
 * reads as the default that leaves its line out). */
typedef struct {
  const CrRecordUpdate *u;
  gint64   e;                     /* the element */
  double   p, grad;               /* the parameter's element and its .grad, before */
  double   lr, eps, weight_decay, lr_decay;
  double   momentum, dampening;   /* SGD; RMSprop's momentum */
  double   alpha;                 /* RMSprop */
  double   beta1, beta2;          /* Adam, AdamW */
  gboolean maximize, nesterov, amsgrad, centered;
} Step;

static Step
step_of (const CrRecordUpdate *u,
         gint64                e)
{
  return (Step) {
    .u = u,
    .e = e,
    .p = cr_training_value_at (u->before, e),
    .grad = cr_training_value_at (u->grad, e),
    .lr = cr_record_update_number (u, "lr", NAN),
    .eps = cr_record_update_number (u, "eps", NAN),
    .weight_decay = cr_record_update_number (u, "weight_decay", 0),
    .lr_decay = cr_record_update_number (u, "lr_decay", 0),
    .momentum = cr_record_update_number (u, "momentum", 0),
    .dampening = cr_record_update_number (u, "dampening", 0),
    .alpha = cr_record_update_number (u, "alpha", NAN),
    .beta1 = cr_record_update_number (u, "beta1", NAN),
    .beta2 = cr_record_update_number (u, "beta2", NAN),
    .maximize = cr_record_update_number (u, "maximize", 0) != 0,
    .nesterov = cr_record_update_number (u, "nesterov", 0) != 0,
    .amsgrad = cr_record_update_number (u, "amsgrad", 0) != 0,
    .centered = cr_record_update_number (u, "centered", 0) != 0,
  };
}

/* The element of the state entry `name` before the step; NaN: none. */
static double
state_at (const Step *s,
          const char *name)
{
  return cr_training_value_at (state_before (s->u, name), s->e);
}

/* A state's step count after this step: the count before, plus one. */
static double
step_count (const Step *s)
{
  const CrTensorSnapshot *before = state_before (s->u, "step");
  if (before)
    return cr_training_value_at (before, 0) + 1;
  return cr_training_value_at (state_after (s->u, "step"), 0);
}

/* ---- the lines every rule has -------------------------------------------------- */

/* The gradient a rule starts from, maximize's sign and weight decay (L2,
 * added to the gradient) applied: the first lines of every rule here. */
static double
start_gradient (CrTrainingWorked *w,
                const Step       *s,
                const char       *symbol)
{
  Numbers n = { 0 };
  g_autofree char *rule = g_strdup_printf (s->maximize ? "%s = −p.grad (maximize)" : "%s = p.grad", symbol);
  double d = add_line (w, rule, s->maximize ? -s->grad : s->grad, NULL);
  if (s->weight_decay != 0)
    {
      g_autofree char *with = g_strdup_printf ("%s ← %s + λ·p", symbol, symbol);
      d = add_line (w, with, d + s->weight_decay * s->p, "%s + %s × %s", num (&n, d),
                    num (&n, s->weight_decay), num (&n, s->p));
    }
  return d;
}

/* A running average's line, "a ← β·a + c·x" (x² when squared), and the
 * state entry it leaves: momentum buffers and moments alike. */
static double
average_line (CrTrainingWorked *w,
              const char       *state,
              const char       *rule,
              double            beta,
              double            a,
              double            c,
              double            x,
              gboolean          square)
{
  Numbers n = { 0 };
  double result = add_line (w, rule, beta * a + c * (square ? x * x : x), "%s × %s + %s × %s",
                            num (&n, beta), num (&n, a), num (&n, c),
                            square ? squared (&n, x) : num (&n, x));
  set_state (w, state, result);
  return result;
}

/* The last line, "p ← p − lr·d": the parameter after, by the rule. */
static void
descend_line (CrTrainingWorked *w,
              const char       *rule,
              double            p,
              double            lr,
              double            d)
{
  Numbers n = { 0 };
  w->after = add_line (w, rule, p - lr * d, "%s − %s × %s", num (&n, p), num (&n, lr), num (&n, d));
}

/* The last line of the adaptive rules, "p ← p − lr·d/(√v + ε)". */
static void
descend_scaled_line (CrTrainingWorked *w,
                     const char       *rule,
                     double            p,
                     double            lr,
                     double            d,
                     double            v,
                     double            eps)
{
  Numbers n = { 0 };
  w->after = add_line (w, rule, p - lr * d / (sqrt (v) + eps), "%s − %s × %s / (%s + %s)",
                       num (&n, p), num (&n, lr), num (&n, d), num (&n, sqrt (v)), num (&n, eps));
}

/* ---- the rules ------------------------------------------------------------------ */

/* torch/optim/sgd.py: weight decay, momentum (its buffer is the first
 * gradient at the first step), dampening, Nesterov. */
static void
work_sgd (CrTrainingWorked *w,
          const Step       *s)
{
  Numbers n = { 0 };
  double d = start_gradient (w, s, "d");
  if (s->momentum != 0)
    {
      double buf;
      if (!state_before (s->u, "momentum_buffer"))
        {
          buf = add_line (w, "buf ← d (first step)", d, NULL);
          set_state (w, "momentum_buffer", buf);
        }
      else
        buf = average_line (w, "momentum_buffer", "buf ← μ·buf + (1−τ)·d", s->momentum,
                            state_at (s, "momentum_buffer"), 1 - s->dampening, d, FALSE);
      if (s->nesterov)
        d = add_line (w, "d ← d + μ·buf (Nesterov)", d + s->momentum * buf,
                      "%s + %s × %s", num (&n, d), num (&n, s->momentum), num (&n, buf));
      else
        d = buf;
    }
  descend_line (w, s->momentum != 0 && !s->nesterov ? "p ← p − lr·buf" : "p ← p − lr·d", s->p, s->lr, d);
}

/* torch/optim/adam.py and adamw.py: the moments, AMSGrad's running
 * maximum, the bias corrections; AdamW's decay shrinks the parameter. */
static void
work_adam (CrTrainingWorked *w,
           const Step       *s)
{
  Numbers n = { 0 };
  gboolean decoupled = g_strcmp0 (s->u->optimizer, "AdamW") == 0;
  double p = s->p, g;
  double t = step_count (s);
  set_state (w, "step", t);
  if (decoupled)
    {
      /* AdamW: the decay is on the parameter, not in the gradient. */
      g = add_line (w, s->maximize ? "g = −p.grad (maximize)" : "g = p.grad",
                    s->maximize ? -s->grad : s->grad, NULL);
      add_line (w, "t (this step)", t, NULL);
      if (s->weight_decay != 0)
        p = add_line (w, "p ← p·(1 − lr·λ)", p * (1 - s->lr * s->weight_decay), "%s × (1 − %s × %s)",
                      num (&n, p), num (&n, s->lr), num (&n, s->weight_decay));
    }
  else
    {
      g = start_gradient (w, s, "g");
      add_line (w, "t (this step)", t, NULL);
    }
  double m = average_line (w, "exp_avg", "m ← β₁·m + (1−β₁)·g", s->beta1, state_at (s, "exp_avg"),
                           1 - s->beta1, g, FALSE);
  double v = average_line (w, "exp_avg_sq", "v ← β₂·v + (1−β₂)·g²", s->beta2, state_at (s, "exp_avg_sq"),
                           1 - s->beta2, g, TRUE);
  if (s->amsgrad)
    {
      double v_max0 = state_at (s, "max_exp_avg_sq");
      double v_max = add_line (w, "v_max ← max(v_max, v)", fmax (v_max0, v),
                               "max(%s, %s)", num (&n, v_max0), num (&n, v));
      set_state (w, "max_exp_avg_sq", v_max);
      v = v_max;
    }
  double bc1 = 1 - pow (s->beta1, t), bc2 = 1 - pow (s->beta2, t);
  double m_hat = add_line (w, "m̂ = m / (1 − β₁ᵗ)", m / bc1, "%s / %s", num (&n, m), num (&n, bc1));
  double v_hat = add_line (w, s->amsgrad ? "v̂ = v_max / (1 − β₂ᵗ)" : "v̂ = v / (1 − β₂ᵗ)", v / bc2,
                           "%s / %s", num (&n, v), num (&n, bc2));
  descend_scaled_line (w, "p ← p − lr·m̂/(√v̂ + ε)", p, s->lr, m_hat, v_hat, s->eps);
}

/* torch/optim/rmsprop.py: the running average of g², centered (minus the
 * square of g's running average), momentum on the scaled step. */
static void
work_rmsprop (CrTrainingWorked *w,
              const Step       *s)
{
  Numbers n = { 0 };
  set_state (w, "step", step_count (s));
  double g = start_gradient (w, s, "g");
  double v = average_line (w, "square_avg", "v ← α·v + (1−α)·g²", s->alpha, state_at (s, "square_avg"),
                           1 - s->alpha, g, TRUE);
  double avg;
  if (s->centered)
    {
      double a = average_line (w, "grad_avg", "ḡ ← α·ḡ + (1−α)·g", s->alpha, state_at (s, "grad_avg"),
                               1 - s->alpha, g, FALSE);
      avg = add_line (w, "s = √(v − ḡ²) + ε", sqrt (v - a * a) + s->eps, "√(%s − %s) + %s",
                      num (&n, v), squared (&n, a), num (&n, s->eps));
    }
  else
    avg = add_line (w, "s = √v + ε", sqrt (v) + s->eps, "√%s + %s", num (&n, v), num (&n, s->eps));
  if (s->momentum > 0)
    {
      double b0 = state_at (s, "momentum_buffer");
      double buf = add_line (w, "buf ← μ·buf + g/s", s->momentum * b0 + g / avg, "%s × %s + %s / %s",
                             num (&n, s->momentum), num (&n, b0), num (&n, g), num (&n, avg));
      set_state (w, "momentum_buffer", buf);
      descend_line (w, "p ← p − lr·buf", s->p, s->lr, buf);
    }
  else
    w->after = add_line (w, "p ← p − lr·g/s", s->p - s->lr * g / avg, "%s − %s × %s / %s",
                         num (&n, s->p), num (&n, s->lr), num (&n, g), num (&n, avg));
}

/* torch/optim/adagrad.py: the sum of every g² so far, a learning rate
 * that decays with the step. */
static void
work_adagrad (CrTrainingWorked *w,
              const Step       *s)
{
  Numbers n = { 0 };
  double g = start_gradient (w, s, "g");
  double t = add_line (w, "t (this step)", step_count (s), NULL);
  set_state (w, "step", t);
  double clr = s->lr;
  if (s->lr_decay != 0)
    clr = add_line (w, "lr_t = lr / (1 + (t−1)·δ)", s->lr / (1 + (t - 1) * s->lr_decay),
                    "%s / (1 + %s × %s)", num (&n, s->lr), num (&n, t - 1), num (&n, s->lr_decay));
  double s0 = state_at (s, "sum");
  double sum = add_line (w, "G ← G + g²", s0 + g * g, "%s + %s", num (&n, s0), squared (&n, g));
  set_state (w, "sum", sum);
  descend_scaled_line (w, s->lr_decay != 0 ? "p ← p − lr_t·g/(√G + ε)" : "p ← p − lr·g/(√G + ε)",
                       s->p, clr, g, sum, s->eps);
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
  else
    {
      Step s = step_of (u, element);
      if (g_str_equal (u->optimizer, "SGD"))
        work_sgd (w, &s);
      else if (g_str_equal (u->optimizer, "RMSprop"))
        work_rmsprop (w, &s);
      else if (g_str_equal (u->optimizer, "Adagrad"))
        work_adagrad (w, &s);
      else
        work_adam (w, &s);
    }
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
