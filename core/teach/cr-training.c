/* cr-training.c — a training loop read off the run record (cr-training.h).
 *
 * The rules and their numbers are worked out in cr-training-rules.c, from
 * the numbers before each step; this file lays them out as text. */
#include "cr-training.h"

#include "cr-pyformat.h"
#include "cr-training-rules.h"

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
      double v = s->values[(*at)++];
      if (s->dtype && g_str_has_prefix (s->dtype, "torch.int"))
        {
          g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
          return;
        }
      g_autofree char *repr = cr_py_float_repr (v);
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

/* ---- the rules ----------------------------------------------------------------- */

const char *
cr_training_rule (const CrRecordUpdate *u)
{
  g_return_val_if_fail (u != NULL, NULL);
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    return "p ← p − Δ (the script's own update)";
  if (!cr_training_rule_is_told (u))
    return "this optimizer's rule is not told";
  if (g_str_equal (u->optimizer, "SGD"))
    return cr_record_update_number (u, "momentum", 0) != 0
           ? "buf ← μ·buf + (1−τ)·g;  p ← p − lr·buf" : "p ← p − lr·g";
  if (g_str_equal (u->optimizer, "RMSprop"))
    return "v ← α·v + (1−α)·g²;  p ← p − lr·g/(√v + ε)";
  if (g_str_equal (u->optimizer, "Adagrad"))
    return "G ← G + g²;  p ← p − lr·g/(√G + ε)";
  return "m ← β₁·m + (1−β₁)·g;  v ← β₂·v + (1−β₂)·g²;  p ← p − lr·m̂/(√v̂ + ε)";
}

/* One worked line: "    m ← β₁·m + (1−β₁)·g      = 0.9 × 0 + 0.1 × -2.9 = -0.29";
 * narrow, the arithmetic under the rule and its result on a line of its
 * own, as a narrow pane reads down. A line of a rule not told shows the
 * recorded "before → after". */
static void
append_rule_line (GString                  *out,
                  const CrTrainingRuleLine *line,
                  gboolean                  narrow)
{
  g_string_append_printf (out, "    %s", line->rule);
  if (narrow)
    {
      if (line->arithmetic)
        g_string_append_printf (out, "\n      = %s", line->arithmetic);
      g_string_append (out, g_str_has_suffix (line->arithmetic ? line->arithmetic : "", "→")
                            ? " " : "\n      = ");
      append_number (out, line->result);
      g_string_append_c (out, '\n');
      return;
    }
  /* Columns, not characters: m̂'s hat is a combining mark. */
  glong width = 0;
  for (const char *c = line->rule; *c; c = g_utf8_next_char (c))
    width += !g_unichar_iszerowidth (g_utf8_get_char (c));
  for (glong i = width; i < 26; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, "  = ");
  if (line->arithmetic)
    g_string_append_printf (out, "%s%s", line->arithmetic,
                            g_str_has_suffix (line->arithmetic, "→") ? " " : " = ");
  append_number (out, line->result);
  g_string_append_c (out, '\n');
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

/* Switches that are off and options that are 0 (no weight decay, no
 * momentum) say nothing: only maximize = 1 is news. Dampening is said
 * where there is momentum to damp. */
static gboolean
is_quiet_number (const CrRecordUpdate *u,
                 const CrRecordNumber *number)
{
  static const char *const off[] = {
    "nesterov", "maximize", "amsgrad", "centered", "momentum", "weight_decay", "lr_decay",
    "initial_accumulator_value", NULL,
  };
  if (g_str_equal (number->name, "dampening"))
    return cr_record_update_number (u, "momentum", 0) == 0;
  return number->value == 0 && g_strv_contains (off, number->name);
}

/* The letter a rule writes an option as: "momentum μ = 0.9". */
static const char *
option_symbol (const char *name)
{
  static const char *const symbols[][2] = {
    { "momentum", "μ" }, { "dampening", "τ" }, { "weight_decay", "λ" }, { "beta1", "β₁" },
    { "beta2", "β₂" }, { "eps", "ε" }, { "alpha", "α" }, { "lr_decay", "δ" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
    if (g_str_equal (symbols[i][0], name))
      return symbols[i][1];
  return NULL;
}

char *
cr_training_values_list (const CrTensorSnapshot *s)
{
  GString *out = g_string_new (NULL);
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
  return g_string_free (out, FALSE);
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
  g_autofree char *values = cr_training_values_list (s);
  g_string_append_printf (out, "%s\n", values);
}

char *
cr_training_number_text (double value)
{
  GString *out = g_string_new (NULL);
  append_number (out, value);
  return g_string_free (out, FALSE);
}

char *
cr_training_update_heading (const CrRunRecord    *record,
                            const CrRecordUpdate *u)
{
  g_return_val_if_fail (record != NULL && u != NULL, NULL);
  GString *out = g_string_new (NULL);
  const char *name = u->name ? u->name : "?";
  g_autofree char *where = cr_run_record_line_text (record, u->span.line, FALSE);
  if (u->kind == CR_RECORD_UPDATE_MANUAL)
    g_string_append_printf (out, "%s · manual update, %s", name, where);
  else
    g_string_append_printf (out, "%s · %s step %u, %s", name,
                            u->optimizer ? u->optimizer : "optimizer", u->step, where);
  if (u->backward >= 0 && (guint) u->backward < record->backwards->len)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, u->backward);
      if (bw->iteration)
        g_string_append_printf (out, " · iteration %u", bw->iteration);
    }
  g_string_append (out, " · ");
  append_shape (out, u->after ? u->after : u->before);
  return g_string_free (out, FALSE);
}

char *
cr_training_update_options (const CrRecordUpdate *u)
{
  g_return_val_if_fail (u != NULL, NULL);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < u->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
      if (is_quiet_number (u, number))
        continue;
      const char *symbol = option_symbol (number->name);
      g_string_append_printf (out, "%s%s%s%s = ", out->len ? ", " : "", number->name,
                              symbol ? " " : "", symbol ? symbol : "");
      append_number (out, number->value);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
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
  g_autofree char *heading = cr_training_update_heading (record, u);
  g_string_append_printf (out, "%s\n", heading);
  /* The numbers of a step with none say nothing: an empty line still. */
  g_autofree char *options = cr_training_update_options (u);
  if (u->numbers->len > 0)
    g_string_append_printf (out, "  %s\n", options ? options : "");

  const CrTensorSnapshot *shape_of = u->after ? u->after : u->before;
  gint64 numel = shape_of ? shape_of->numel : 1;
  element = CLAMP (element, 0, MAX (numel - 1, 0));
  g_autofree char *index = cr_training_index_text (shape_of, element);
  g_string_append_printf (out, "  %s%s:\n", name, index);
  g_autoptr (CrTrainingWorked) worked = cr_training_work (u, element);
  if (u->kind == CR_RECORD_UPDATE_OPTIMIZER && !worked->told)
    g_string_append_printf (out, "    %s: this optimizer's rule is not told; what it had and left:\n",
                            u->optimizer ? u->optimizer : "?");
  for (guint i = 0; i < worked->lines->len; i++)
    append_rule_line (out, g_ptr_array_index (worked->lines, i), narrow);
  if (shape_of && element >= shape_of->n_values && shape_of->numel > 1)
    g_string_append_printf (out, "    (the record keeps %" G_GINT64_FORMAT " of its %" G_GINT64_FORMAT
                            " values: pick one of the first %" G_GINT64_FORMAT ")\n",
                            shape_of->n_values, shape_of->numel, shape_of->n_values);

  g_string_append_printf (out, "  %s, every element:\n", name);
  value_line (out, "before", u->before, narrow);
  value_line (out, "grad", u->grad, narrow);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      /* SGD without momentum keeps a momentum_buffer of None: nothing to say. */
      if (state->before || state->after)
        value_line (out, state->name, state->after, narrow);
    }
  value_line (out, "after", u->after, narrow);
  return g_string_free (out, FALSE);
}
