/* cr-record-forward.c — a run record's forward ops in words (the format is
 * in cr-record-forward.h).
 *
 * Everything comes from the record: the op's grad_fn and caption, its input
 * and output tensors with their labels and value snapshots. What an op
 * computed is said by kind (one line of a table per grad_fn family); what
 * it computed with the numbers is the script's own expression with the
 * inputs' values put in where they are scalars, and one element worked out
 * where they are tensors. Numbers are %.4g, as everywhere in the window. */
#include "cr-record-forward-private.h"

#include "cr-record-names.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

/* A tensor result shows all its values up to this many, else its shape, a
 * few first values and its range. */
#define MAX_SHOWN_VALUES 12
#define FIRST_VALUES 4
/* A sum or a row times a column is written out up to this many terms. */
#define MAX_TERMS 4

/* ---- the record ------------------------------------------------------------ */

static const CrRecordOp *
record_op (const CrRunRecord *record,
           int                op)
{
  return op >= 0 && (guint) op < record->ops->len ? g_ptr_array_index (record->ops, op) : NULL;
}

static const CrRecordTensor *
record_tensor (const CrRunRecord *record,
               int                tensor)
{
  return tensor >= 0 && (guint) tensor < record->tensors->len
         ? g_ptr_array_index (record->tensors, tensor) : NULL;
}

/* The op that made tensor (a result), or -1. */
static int
producer (const CrRunRecord *record,
          int                tensor)
{
  const CrRecordTensor *t = record_tensor (record, tensor);
  return t && t->origin == CR_RECORD_TENSOR_RESULT ? t->op : -1;
}

static int
op_input (const CrRecordOp *op,
          guint             i)
{
  return op->inputs && i < op->inputs->len ? g_array_index (op->inputs, int, i) : -1;
}

/* The value op's input i had when the op ran: what the op saved of it
 * where it saved it (a parameter an optimizer changes in place later has
 * its first value as the tensor's), else the tensor's value; NULL when not
 * known. A leaf used in a later iteration of a loop than the first may have
 * changed in place since its value was taken: *fresh says whether the value
 * is surely the one the op used. */
static const CrTensorSnapshot *
input_value (const CrRunRecord *record,
             const CrRecordOp  *op,
             guint              i,
             gboolean          *fresh)
{
  int tensor = op_input (op, i);
  const CrRecordTensor *t = record_tensor (record, tensor);
  if (fresh)
    *fresh = TRUE;
  if (!t)
    return NULL;
  for (guint k = 0; op->saved && k < op->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op->saved, k);
      if (saved->tensor == tensor && saved->value && !saved->internal)
        return saved->value;
    }
  if (fresh && t->origin != CR_RECORD_TENSOR_RESULT && op->iteration > 1
      && t->loop_depth < op->loop_depth)
    *fresh = FALSE;
  return t->value;
}

GArray *
cr_record_forward_ops (const CrRunRecord *record,
                       int                backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  guint n = record->ops->len;
  GArray *order = g_array_new (FALSE, FALSE, sizeof (int));
  g_autofree guint8 *wanted = g_new0 (guint8, n + 1);
  if (backward < 0 || (guint) backward >= record->backwards->len)
    memset (wanted, 1, n);
  else
    {
      /* Back from the roots along op inputs, with a stack of its own:
       * graphs can be tens of thousands of ops deep. */
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
      g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (int));
      for (guint i = 0; bw->roots && i < bw->roots->len; i++)
        {
          int op = producer (record, g_array_index (bw->roots, int, i));
          if (op >= 0 && (guint) op < n && !wanted[op])
            {
              wanted[op] = 1;
              g_array_append_val (stack, op);
            }
        }
      while (stack->len > 0)
        {
          int op = g_array_index (stack, int, stack->len - 1);
          g_array_set_size (stack, stack->len - 1);
          const CrRecordOp *o = g_ptr_array_index (record->ops, op);
          for (guint i = 0; o->inputs && i < o->inputs->len; i++)
            {
              int from = producer (record, op_input (o, i));
              if (from >= 0 && (guint) from < n && !wanted[from])
                {
                  wanted[from] = 1;
                  g_array_append_val (stack, from);
                }
            }
        }
    }
  /* In the order they ran: the record's, except that an op recorded
   * before the ops it used (the graph behind a native call is walked back
   * from its result) comes after them. Depth first, post-order. */
  g_autofree guint8 *state = g_new0 (guint8, n + 1);   /* 0 new, 1 on the stack, 2 placed */
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint start = 0; start < n; start++)
    {
      if (!wanted[start] || state[start])
        continue;
      int first = (int) start;
      state[first] = 1;
      g_array_append_val (stack, first);
      while (stack->len > 0)
        {
          int op = g_array_index (stack, int, stack->len - 1);
          const CrRecordOp *o = g_ptr_array_index (record->ops, op);
          gboolean pushed = FALSE;
          for (guint i = 0; o->inputs && i < o->inputs->len && !pushed; i++)
            {
              int from = producer (record, op_input (o, i));
              /* (One on the stack already would be a cycle: a record
               * gone wrong; it is not followed.) */
              if (from >= 0 && (guint) from < n && wanted[from] && state[from] == 0)
                {
                  state[from] = 1;
                  g_array_append_val (stack, from);
                  pushed = TRUE;
                }
            }
          if (pushed)
            continue;
          g_array_set_size (stack, stack->len - 1);
          state[op] = 2;
          g_array_append_val (order, op);
        }
    }
  return order;
}

/* ---- numbers ---------------------------------------------------------------- */

static void
append_number (GString *s,
               double   v)
{
  if (isnan (v))
    g_string_append (s, "nan");
  else if (isinf (v))
    g_string_append (s, v > 0 ? "inf" : "-inf");
  else
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (buffer, sizeof buffer, "%.4g", v == 0 ? 0.0 : v);
      g_string_append (s, buffer);
    }
}

static char *
number_text (double v)
{
  GString *s = g_string_new (NULL);
  append_number (s, v);
  return g_string_free (s, FALSE);
}

/* A number inside an expression: negative ones in parentheses, so that
 * "10 - (-0.75)" reads as it computes. */
static void
append_operand (GString *s,
                double   v)
{
  if (v < 0)
    {
      g_string_append_c (s, '(');
      append_number (s, v);
      g_string_append_c (s, ')');
    }
  else
    append_number (s, v);
}

static gboolean
values_kept (const CrTensorSnapshot *v)
{
  return v && v->numel > 0 && v->n_values >= v->numel;
}

static gboolean
is_scalar (const CrTensorSnapshot *v)
{
  return v && v->numel == 1 && v->n_values >= 1;
}

/* A tensor result's numbers: all of them up to MAX_SHOWN_VALUES, else its
 * shape, the first few and the range: "64×10: [0.1, -0.3, 0.5, 2, …] in
 * [-2.1, 3.4]". */
static char *
value_text (const CrTensorSnapshot *v)
{
  if (!v)
    return g_strdup ("(value not kept)");
  if (v->numel <= MAX_SHOWN_VALUES && values_kept (v))
    return cr_record_value_brief (v, MAX_SHOWN_VALUES);
  g_autofree char *shape = cr_record_shape_text (v->shape, v->ndim);
  GString *s = g_string_new (shape);
  if (v->n_values > 0)
    {
      g_string_append (s, ": [");
      for (gint64 i = 0; i < MIN (v->n_values, FIRST_VALUES); i++)
        {
          if (i > 0)
            g_string_append (s, ", ");
          append_number (s, v->values[i]);
        }
      g_string_append (s, ", …]");
    }
  if (v->numel > 0 && !isnan (v->min))
    {
      g_string_append (s, " in [");
      append_number (s, v->min);
      g_string_append (s, ", ");
      append_number (s, v->max);
      g_string_append_c (s, ']');
    }
  return g_string_free (s, FALSE);
}

/* ---- names ------------------------------------------------------------------ */

/* The text an input stands for in an expression: its label without the
 * parentheses an unnamed one's label has, "w3 * b" for "(w3 * b)". */
static char *
bare (const char *label)
{
  gsize n = label ? strlen (label) : 0;
  if (n >= 2 && label[0] == '(' && label[n - 1] == ')')
    return g_strndup (label + 1, n - 2);
  return g_strdup (label ? label : "?");
}

static gboolean
is_named (const char *label)
{
  return label && label[0] != '(';
}

/* A constant shows its values up to this many, else its shape. */
#define CONSTANT_MAX_VALUES 6

/* What the text calls tensor (new string): the script's name; for an
 * unnamed result the name cr-record-names.h makes from the op that made
 * it, in parentheses as the record's own expression labels are, "(x[:])";
 * for a constant the script never named (torch.arange(4.0) in an
 * expression) its values, "[0, 1, 2, 3]", or its shape, "a 4×2 constant";
 * else fallback. */
static char *
tensor_name_full (const CrRunRecord *record,
                  int                tensor,
                  const char        *fallback,
                  gboolean           by_line)
{
  const CrRecordTensor *t = record_tensor (record, tensor);
  if (!t)
    return g_strdup (fallback);
  if (t->label && *t->label && t->label[0] != '[')
    return g_strdup (t->label);
  if (t->name && *t->name)
    return g_strdup (t->name);
  g_autofree char *made = t->origin == CR_RECORD_TENSOR_RESULT ? cr_record_tensor_made_name (record, t)
                                                                : NULL;
  if (made && made[0] != '[')
    return g_strdup_printf ("(%s)", made);
  /* A name that would run long: the op and its line, as the graph's pill. */
  const CrRecordOp *op = by_line && t->origin == CR_RECORD_TENSOR_RESULT ? record_op (record, t->op) : NULL;
  if (op && op->grad_fn)
    {
      g_autofree char *f = cr_record_op_function_name (op->grad_fn);
      return op->span.line > 0 ? g_strdup_printf ("(%s at line %u)", f, op->span.line)
                               : g_strdup_printf ("(the %s result)", f);
    }
  /* A leaf made where the script gives it no name (inside gradcheck). */
  if (t->origin == CR_RECORD_TENSOR_LEAF && by_line)
    {
      if (t->ndim == 0)
        return g_strdup ("a leaf");
      g_autofree char *shape = cr_record_shape_text (t->shape, t->ndim);
      return g_strdup_printf ("a %s leaf", shape);
    }
  const CrRecordTensor *source = record_tensor (record, t->source);
  if (t->origin == CR_RECORD_TENSOR_DETACHED && source && source != t && by_line)
    {
      g_autofree char *from = tensor_name_full (record, source->id, NULL, FALSE);
      if (from)
        return g_strdup_printf ("(%s.detach())", from);
    }
  if (t->origin != CR_RECORD_TENSOR_RESULT && t->origin != CR_RECORD_TENSOR_LEAF)
    {
      if (t->value && t->value->numel <= CONSTANT_MAX_VALUES && values_kept (t->value))
        return cr_record_value_brief (t->value, CONSTANT_MAX_VALUES);
      if (t->ndim == 0)
        return g_strdup ("a constant");
      g_autofree char *shape = cr_record_shape_text (t->shape, t->ndim);
      return g_strdup_printf ("a %s constant", shape);
    }
  return g_strdup (fallback);
}

/* An input's name: where no short name is made, its op and line. */
char *
cr_forward_tensor_name (const CrRunRecord *record,
                        int                tensor,
                        const char        *fallback)
{
  return tensor_name_full (record, tensor, fallback, TRUE);
}

/* The names of op's inputs (for a Python number its value where the
 * record kept it, else "a number"), and how many are tensors. */
static GPtrArray *
input_labels (const CrRunRecord *record,
              const CrRecordOp  *op,
              guint             *n_tensors)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *number = cr_forward_number_text (op);
  *n_tensors = 0;
  for (guint i = 0; op->inputs && i < op->inputs->len; i++)
    {
      int t = op_input (op, i);
      if (t >= 0)
        (*n_tensors)++;
      g_ptr_array_add (labels, cr_forward_tensor_name (record, t, t >= 0 ? "?" : number ? number : "a number"));
    }
  return labels;
}

/* template with {0} {1} {2} replaced by labels (missing ones: "…") and
 * {n} by op's Python number ("a number" where the record did not keep
 * it). */
static char *
fill (const char       *template,
      const CrRecordOp *op,
      const GPtrArray  *labels)
{
  GString *s = g_string_new (NULL);
  for (const char *p = template; *p; p++)
    {
      if (p[0] == '{' && p[1] == 'n' && p[2] == '}')
        {
          g_autofree char *number = cr_forward_number_text (op);
          g_string_append (s, number ? number : "a number");
          p += 2;
        }
      else if (p[0] == '{' && g_ascii_isdigit (p[1]) && p[2] == '}')
        {
          guint i = (guint) (p[1] - '0');
          g_autofree char *number = i < labels->len ? NULL : cr_forward_number_text (op);
          g_string_append (s, i < labels->len ? (const char *) labels->pdata[i] : number ? number : "…");
          p += 2;
        }
      else
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

/* Whether op's inputs that the record does not know (-1) are absent
 * optional tensors (a layer norm's weight=None, a convolution without
 * bias) rather than Python numbers (torch.where(c, x, 0.0)). */
static gboolean
unknown_inputs_are_none (const CrRecordOp *op)
{
  return op->grad_fn && (strstr (op->grad_fn, "Norm") || g_str_has_prefix (op->grad_fn, "Convolution"));
}

GPtrArray *
cr_forward_present_labels (const CrRecordOp *op,
                           const GPtrArray  *labels)
{
  GPtrArray *present = g_ptr_array_new ();
  gboolean none = unknown_inputs_are_none (op);
  for (guint i = 0; i < labels->len; i++)
    if (!none || op_input (op, i) >= 0)
      g_ptr_array_add (present, labels->pdata[i]);
  return present;
}

/* What the op computed as the script wrote it: the caption's right-hand
 * side when it made the name bound there, an unnamed result's label, else
 * the op's Python form. */
static char *
expression_of (const CrRunRecord *record,
               int                op_index,
               const CrRecordOp  *op,
               const char        *result,
               const CrForwardWords     *words,
               const GPtrArray   *labels)
{
  if (result && !is_named (result))
    return bare (result);
  g_autofree char *caption = cr_record_op_caption (record, op_index);
  const char *eq = caption ? strstr (caption, " = ") : NULL;
  if (eq && result && (gsize) (eq - caption) == strlen (result)
      && strncmp (caption, result, strlen (result)) == 0)
    return g_strdup (eq + 3);
  if (words)
    return fill (words->form, op, labels);
  /* The op as a function: native_layer_norm(x, w, b). */
  g_autofree char *f = op->custom_function ? g_strdup_printf ("%s.apply", op->custom_function)
                       : cr_record_op_function_name (op->grad_fn ? op->grad_fn : "op");
  GString *s = g_string_new (f);
  g_string_append_c (s, '(');
  g_autoptr (GPtrArray) present = cr_forward_present_labels (op, labels);
  for (guint i = 0; i < present->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", (const char *) present->pdata[i]);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.' || (c & 0x80);
}

/* expression with each scalar input's value put in for its name, '*'
 * written as '×': "a * b" -> "2 × (-3)". NULL unless every tensor input
 * was found in it. */
static char *
substitute (const char       *expression,
            const CrRunRecord *record,
            const CrRecordOp *op)
{
  guint n = op->inputs ? op->inputs->len : 0;
  g_autofree char **names = g_new0 (char *, n + 1);
  g_autofree double *values = g_new0 (double, n + 1);
  g_autofree gboolean *found = g_new0 (gboolean, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const CrRecordTensor *t = record_tensor (record, op_input (op, i));
      if (!t)
        continue;   /* a Python number: already in the text as a number */
      gboolean fresh;
      const CrTensorSnapshot *v = input_value (record, op, i, &fresh);
      if (!is_scalar (v) || !fresh)
        goto out;
      g_autofree char *name = cr_forward_tensor_name (record, t->id, NULL);
      names[i] = bare (name);
      values[i] = v->values[0];
    }
  GString *s = g_string_new (NULL);
  for (const char *p = expression; *p;)
    {
      gboolean at_start = p == expression || !is_word_char (p[-1]);
      guint best = n;
      gsize best_len = 0;
      for (guint i = 0; at_start && i < n; i++)
        {
          gsize len = names[i] ? strlen (names[i]) : 0;
          if (len > best_len && strncmp (p, names[i], len) == 0
              && (!is_word_char (p[len - 1]) || !is_word_char (p[len])))
            {
              best = i;
              best_len = len;
            }
        }
      if (best < n)
        {
          append_operand (s, values[best]);
          for (guint i = 0; i < n; i++)
            if (names[i] && strcmp (names[i], names[best]) == 0)
              found[i] = TRUE;
          p += best_len;
        }
      else if (p[0] == '*' && p[1] != '*' && (p == expression || p[-1] != '*'))
        {
          g_string_append (s, "×");
          p++;
        }
      else
        g_string_append_c (s, *p++);
    }
  for (guint i = 0; i < n; i++)
    if (names[i] && !found[i])
      {
        g_string_free (s, TRUE);
        goto out;
      }
  for (guint i = 0; i < n; i++)
    g_free (names[i]);
  return g_string_free (s, FALSE);
out:
  for (guint i = 0; i < n; i++)
    g_free (names[i]);
  return NULL;
}

/* ---- one element worked out ------------------------------------------------ */

/* "[0,0]" for a tensor of ndim dims at multi-index idx (only its last ndim
 * entries of idx_ndim), "" for a 0-d one. */
static void
append_index (GString      *s,
              const gint64 *idx,
              int           idx_ndim,
              int           ndim,
              const gint64 *shape)
{
  if (ndim <= 0)
    return;
  g_string_append_c (s, '[');
  for (int d = 0; d < ndim; d++)
    {
      gint64 i = idx[idx_ndim - ndim + d];
      if (shape[d] == 1)
        i = 0;   /* broadcast */
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? "," : "", i);
    }
  g_string_append_c (s, ']');
}

/* The flat offset of multi-index idx (of the result, idx_ndim dims) in a
 * tensor of shape (broadcast to the result's shape). */
static gint64
offset_in (const gint64 *idx,
           int           idx_ndim,
           const gint64 *shape,
           int           ndim)
{
  gint64 offset = 0;
  for (int d = 0; d < ndim; d++)
    {
      gint64 i = idx[idx_ndim - ndim + d];
      offset = offset * shape[d] + (shape[d] == 1 ? 0 : i);
    }
  return offset;
}

/* The element the example works out: the last one, where the numbers of a
 * small example are least often all the same. Its multi-index in idx. */
static void
example_index (const CrTensorSnapshot *out,
               gint64                 *idx)
{
  for (int d = 0; d < out->ndim; d++)
    idx[d] = out->shape[d] > 0 ? out->shape[d] - 1 : 0;
}

/* What an element of the result should be from its operands' elements:
 * the example is shown only when the record's numbers agree with it (an
 * operand whose value the record kept from before an in-place change
 * would not). NAN: not known. */
static double
apply (const char *glyph,
       double      x,
       double      y)
{
  if (strcmp (glyph, "+") == 0) return x + y;
  if (strcmp (glyph, "-") == 0) return x - y;
  if (strcmp (glyph, "×") == 0) return x * y;
  if (strcmp (glyph, "/") == 0) return x / y;
  return NAN;
}

static gboolean
agrees (double want,
        double got)
{
  if (isnan (want) || isnan (got))
    return isnan (want) && isnan (got);
  return fabs (want - got) <= 1e-4 * (1 + fabs (got));
}

static char *
example_elementwise (const CrRunRecord      *record,
                     const CrRecordOp       *op,
                     const CrForwardWords          *words,
                     const char             *result,
                     const CrTensorSnapshot *out)
{
  gint64 idx[CR_MAX_DIMS] = { 0 };
  example_index (out, idx);
  gint64 at = offset_in (idx, out->ndim, out->shape, out->ndim);
  guint n = op->inputs ? op->inputs->len : 0;
  guint want_inputs = words->kind == CR_FORWARD_BINARY ? 2 : 1;
  if (n != want_inputs)
    return NULL;
  const CrTensorSnapshot *v[2] = { NULL, NULL };
  double x[2] = { 0, 0 };
  for (guint i = 0; i < n; i++)
    {
      /* A Python number the record kept: the same in every element. */
      if (op_input (op, i) < 0 && cr_forward_number (op, &x[i]))
        continue;
      v[i] = input_value (record, op, i, NULL);
      if (!values_kept (v[i]) || v[i]->ndim > out->ndim)
        return NULL;
      x[i] = v[i]->values[offset_in (idx, out->ndim, v[i]->shape, v[i]->ndim)];
    }
  double want = n == 2 ? apply (words->glyph, x[0], x[1]) : cr_forward_apply_unary (words->glyph, x[0]);
  if (!agrees (want, out->values[at]))
    return NULL;
  GString *s = g_string_new (result);
  append_index (s, idx, out->ndim, out->ndim, out->shape);
  g_string_append (s, " = ");
  GString *numbers = g_string_new (NULL);
  if (n == 1)
    {
      g_autofree char *label = cr_forward_tensor_name (record, op_input (op, 0), "?");
      gboolean prefix = strcmp (words->glyph, "-") == 0;
      g_string_append_printf (s, prefix ? "-%s" : "%s(%s", prefix ? label : words->glyph, label);
      append_index (s, idx, out->ndim, v[0]->ndim, v[0]->shape);
      g_string_append (s, prefix ? "" : ")");
      g_string_append (numbers, prefix ? "-" : words->glyph);
      g_string_append (numbers, prefix ? "" : "(");
      if (prefix)
        append_operand (numbers, x[0]);
      else
        append_number (numbers, x[0]);
      g_string_append (numbers, prefix ? "" : ")");
    }
  else
    for (guint i = 0; i < 2; i++)
      {
        if (i > 0)
          {
            g_string_append_printf (s, " %s ", words->glyph);
            g_string_append_printf (numbers, " %s ", words->glyph);
          }
        if (!v[i])
          {
            append_operand (s, x[i]);
            append_operand (numbers, x[i]);
            continue;
          }
        g_autofree char *label = cr_forward_tensor_name (record, op_input (op, i), "?");
        g_string_append (s, label);
        append_index (s, idx, out->ndim, v[i]->ndim, v[i]->shape);
        append_operand (numbers, x[i]);
      }
  g_string_append_printf (s, " = %s = ", numbers->str);
  append_number (s, out->values[at]);
  g_string_free (numbers, TRUE);
  return g_string_free (s, FALSE);
}

/* "y[2] = 2 - x[2] = 2 - 3 = -1": 2 - x, the Python number first, as
 * MulBackward0's element with a number is worked out. */
static char *
example_rsub (const CrRunRecord      *record,
              const CrRecordOp       *op,
              const char             *result,
              const CrTensorSnapshot *out)
{
  double number;
  const CrRecordArgument *alpha = cr_record_op_argument (op, "alpha");
  const CrTensorSnapshot *v = input_value (record, op, 0, NULL);
  if (!cr_forward_number (op, &number) || (alpha && alpha->n_values > 0 && alpha->values[0] != 1)
      || !values_kept (v) || v->ndim > out->ndim)
    return NULL;
  gint64 idx[CR_MAX_DIMS] = { 0 };
  example_index (out, idx);
  gint64 at = offset_in (idx, out->ndim, out->shape, out->ndim);
  double x = v->values[offset_in (idx, out->ndim, v->shape, v->ndim)];
  if (!agrees (number - x, out->values[at]))
    return NULL;
  g_autofree char *label = cr_forward_tensor_name (record, op_input (op, 0), "?");
  GString *s = g_string_new (result);
  append_index (s, idx, out->ndim, out->ndim, out->shape);
  g_string_append (s, " = ");
  append_operand (s, number);
  g_string_append_printf (s, " - %s", label);
  append_index (s, idx, out->ndim, v->ndim, v->shape);
  g_string_append (s, " = ");
  append_operand (s, number);
  g_string_append (s, " - ");
  append_operand (s, x);
  g_string_append (s, " = ");
  append_number (s, out->values[at]);
  return g_string_free (s, FALSE);
}

/* The multi-index of t's flat element e. */
static void
flat_to_index (gint64                  e,
               const CrTensorSnapshot *t,
               gint64                 *idx)
{
  for (int d = t->ndim - 1; d >= 0; d--)
    {
      gint64 n = t->shape[d] > 0 ? t->shape[d] : 1;
      idx[d] = e % n;
      e /= n;
    }
}

/* "y[1,2] = -inf, where the mask is True; y[1,1] = x[1,1] = 3, where it
 * is False": out's element put (flat, -1: none shown) is the op's Python
 * number, its element kept is input v's element kept_in. */
static char *
tell_put_and_kept (const CrRunRecord      *record,
                   const CrRecordOp       *op,
                   const char             *result,
                   const CrTensorSnapshot *out,
                   double                  number,
                   gint64                  put,
                   const char             *put_where,
                   const CrTensorSnapshot *v,
                   gint64                  kept,
                   gint64                  kept_in,
                   const char             *kept_where)
{
  if (put < 0 && kept < 0)
    return NULL;
  g_autofree char *label = cr_forward_tensor_name (record, op_input (op, 0), "?");
  GString *s = g_string_new (NULL);
  gint64 idx[CR_MAX_DIMS] = { 0 };
  if (put >= 0)
    {
      flat_to_index (put, out, idx);
      g_string_append (s, result);
      append_index (s, idx, out->ndim, out->ndim, out->shape);
      g_string_append (s, " = ");
      append_number (s, number);
      g_string_append_printf (s, ", %s", put_where);
    }
  if (kept >= 0)
    {
      gint64 in_idx[CR_MAX_DIMS] = { 0 };
      flat_to_index (kept, out, idx);
      flat_to_index (kept_in, v, in_idx);
      g_string_append_printf (s, "%s%s", put >= 0 ? "; " : "", result);
      append_index (s, idx, out->ndim, out->ndim, out->shape);
      g_string_append_printf (s, " = %s", label);
      append_index (s, in_idx, v->ndim, v->ndim, v->shape);
      g_string_append (s, " = ");
      append_number (s, out->values[kept]);
      if (kept_where)
        g_string_append_printf (s, ", %s", kept_where);
    }
  return g_string_free (s, FALSE);
}

/* Where masked_fill or scatter put its Python number and where it kept
 * its input, the last of each: an element counts as put when the result
 * there is the number and the input was not, as kept when the result is
 * the input's element and not the number, so neither the mask nor the
 * index need be known. */
static char *
example_number_put (const CrRunRecord      *record,
                    const CrRecordOp       *op,
                    const char             *result,
                    const CrTensorSnapshot *out,
                    const char             *put_where,
                    const char             *kept_where)
{
  double number;
  const CrTensorSnapshot *v = input_value (record, op, 0, NULL);
  if (!cr_forward_number (op, &number) || !values_kept (v) || v->ndim != out->ndim
      || v->numel != out->numel)
    return NULL;
  gint64 put = -1, kept = -1;
  for (gint64 e = 0; e < out->numel; e++)
    {
      gboolean is_number = agrees (number, out->values[e]);
      if (is_number && !agrees (number, v->values[e]))
        put = e;
      else if (!is_number && agrees (v->values[e], out->values[e]))
        kept = e;
    }
  return tell_put_and_kept (record, op, result, out, number, put, put_where, v, kept, kept, kept_where);
}

/* The pad before each dim of out, from argument name (a pad's sizes,
 * (before, after) of the last dim first as F.pad takes them); FALSE when
 * the record does not give them or v's values. */
static gboolean
pad_before (const CrRecordOp       *op,
            const char             *name,
            const CrTensorSnapshot *v,
            const CrTensorSnapshot *out,
            gint64                 *before)
{
  const CrRecordArgument *pad = cr_record_op_argument (op, name);
  if (!pad || pad->n_values % 2 != 0 || !values_kept (v) || v->ndim != out->ndim
      || pad->n_values / 2 > out->ndim)
    return FALSE;
  for (int k = 0; k < pad->n_values / 2; k++)
    before[out->ndim - 1 - k] = (gint64) pad->values[2 * k];
  return TRUE;
}

/* "y[0,5] = 0, padding; y[0,3] = x[0,2] = 1.5": F.pad's number at the
 * last element in the padding and the last element that came from x,
 * found from pad, (before, after) of the last dim first as F.pad takes
 * it (negative: cut off). */
static char *
example_pad (const CrRunRecord      *record,
             const CrRecordOp       *op,
             const char             *result,
             const CrTensorSnapshot *out)
{
  double number;
  const CrTensorSnapshot *v = input_value (record, op, 0, NULL);
  gint64 before[CR_MAX_DIMS] = { 0 };
  if (!cr_forward_number (op, &number) || !pad_before (op, "pad", v, out, before))
    return NULL;
  gint64 put = -1, kept = -1, kept_in = -1;
  for (gint64 e = 0; e < out->numel; e++)
    {
      gint64 idx[CR_MAX_DIMS], in = 0;
      gboolean inside = TRUE;
      flat_to_index (e, out, idx);
      for (int d = 0; d < out->ndim && inside; d++)
        {
          gint64 i = idx[d] - before[d];
          inside = i >= 0 && i < v->shape[d];
          in = in * v->shape[d] + i;
        }
      if (!inside)
        put = e;
      else
        {
          kept = e;
          kept_in = in;
        }
    }
  if ((put >= 0 && !agrees (number, out->values[put]))
      || (kept >= 0 && !agrees (v->values[kept_in], out->values[kept])))
    return NULL;
  return tell_put_and_kept (record, op, result, out, number, put, "padding", v, kept, kept_in, NULL);
}

/* Where a reflect or replicate pad's output element idx reads its input v
 * (shape of v; before: the pad before each dim): src, and the dim it lies
 * in the padding along (-1: none, -2: more than one); *out_by: how far
 * past the edge (edge: the input's first or last along that dim). */
static int
pad_source (gboolean                reflect,
            const gint64           *idx,
            const gint64           *before,
            const CrTensorSnapshot *v,
            gint64                 *src,
            gint64                 *edge,
            gint64                 *out_by)
{
  int padded = -1;
  for (int d = 0; d < v->ndim; d++)
    {
      gint64 n = v->shape[d], i = idx[d] - before[d];
      src[d] = edge[d] = i;
      if (i >= 0 && i < n)
        continue;
      padded = padded == -1 ? d : -2;
      edge[d] = i < 0 ? 0 : n - 1;
      *out_by = i < 0 ? -i : i - (n - 1);
      /* reflect mirrors at the edge element without repeating it. */
      src[d] = !reflect ? edge[d] : i < 0 ? -i : 2 * (n - 1) - i;
      if (src[d] < 0 || src[d] >= n)
        return -2;
    }
  return padded;
}

/* "y[1,5] = x[1,1] = 5, padding, mirrored at the edge x[1,2] (1 place out,
 * 1 place in); y[1,4] = x[1,2] = 6", "... = 6, padding, the edge x[1,2]
 * repeated; ...": a reflect or replicate pad's last element that lies in
 * the padding along one dim, where it reads x and why, and its last element
 * inside, found from padding, (before, after) of the last dim first as
 * F.pad takes it. */
static char *
example_pad_copied (const CrRunRecord      *record,
                    const CrRecordOp       *op,
                    gboolean                reflect,
                    const char             *result,
                    const CrTensorSnapshot *out)
{
  const CrTensorSnapshot *v = input_value (record, op, 0, NULL);
  gint64 before[CR_MAX_DIMS] = { 0 };
  if (!pad_before (op, "padding", v, out, before))
    return NULL;
  gint64 put = -1, kept = -1, kept_in = 0, by = 0;
  gint64 put_idx[CR_MAX_DIMS], put_src[CR_MAX_DIMS], put_edge[CR_MAX_DIMS];
  for (gint64 e = out->numel - 1; e >= 0 && (put < 0 || kept < 0); e--)
    {
      gint64 idx[CR_MAX_DIMS], src[CR_MAX_DIMS], edge[CR_MAX_DIMS], out_by = 0;
      flat_to_index (e, out, idx);
      int padded = pad_source (reflect, idx, before, v, src, edge, &out_by);
      if (padded >= 0 && put < 0)
        {
          put = e;
          by = out_by;
          memcpy (put_idx, idx, sizeof idx);
          memcpy (put_src, src, sizeof src);
          memcpy (put_edge, edge, sizeof edge);
        }
      else if (padded == -1 && kept < 0)
        {
          kept = e;
          kept_in = offset_in (src, v->ndim, v->shape, v->ndim);
        }
    }
  if (put < 0 || !agrees (v->values[offset_in (put_src, v->ndim, v->shape, v->ndim)], out->values[put]))
    return NULL;
  g_autofree char *label = cr_forward_tensor_name (record, op_input (op, 0), "?");
  GString *s = g_string_new (result);
  append_index (s, put_idx, out->ndim, out->ndim, out->shape);
  g_string_append_printf (s, " = %s", label);
  append_index (s, put_src, v->ndim, v->ndim, v->shape);
  g_string_append (s, " = ");
  append_number (s, out->values[put]);
  g_string_append (s, reflect ? ", padding, mirrored at the edge " : ", padding, the edge ");
  g_string_append (s, label);
  append_index (s, put_edge, v->ndim, v->ndim, v->shape);
  if (reflect)
    g_string_append_printf (s, " (%" G_GINT64_FORMAT " place%s out, as many in)", by, by == 1 ? "" : "s");
  else
    g_string_append (s, " repeated");
  g_autofree char *inside = tell_put_and_kept (record, op, result, out, 0, -1, NULL, v, kept, kept_in, NULL);
  if (inside)
    g_string_append_printf (s, "; %s", inside);
  return g_string_free (s, FALSE);
}

/* "s = 9.563 + 7.5 + 8.5 + … (9 numbers) = 86.31",
 * "m = (1 + 2 + 3) / 3 = 2". */
static char *
example_reduce (const CrRunRecord      *record,
                const CrRecordOp       *op,
                gboolean                mean,
                const char             *result,
                const CrTensorSnapshot *out)
{
  const CrTensorSnapshot *v = input_value (record, op, 0, NULL);
  if (!values_kept (v) || !is_scalar (out) || v->numel < 2)
    return NULL;
  double sum = 0;
  for (gint64 i = 0; i < v->numel; i++)
    sum += v->values[i];
  if (!agrees (mean ? sum / (double) v->numel : sum, out->values[0]))
    return NULL;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s = %s", result, mean ? "(" : "");
  gint64 shown = v->numel <= MAX_TERMS + 1 ? v->numel : MAX_TERMS - 1;
  for (gint64 i = 0; i < shown; i++)
    {
      if (i > 0)
        g_string_append (s, " + ");
      append_operand (s, v->values[i]);
    }
  if (shown < v->numel)
    g_string_append_printf (s, " + … (%" G_GINT64_FORMAT " numbers)", v->numel);
  if (mean)
    g_string_append_printf (s, ") / %" G_GINT64_FORMAT, v->numel);
  g_string_append (s, " = ");
  append_number (s, out->values[0]);
  return g_string_free (s, FALSE);
}

/* "y[1,2] = x[1,:] · w[:,2] = 1×2 + 3×4 = 14". */
static char *
example_matmul (const CrRunRecord      *record,
                const CrRecordOp       *op,
                const char             *result,
                const CrTensorSnapshot *out)
{
  const CrTensorSnapshot *a = input_value (record, op, 0, NULL);
  const CrTensorSnapshot *b = input_value (record, op, 1, NULL);
  if (!values_kept (a) || !values_kept (b) || !values_kept (out)
      || a->ndim != 2 || b->ndim != 2 || out->ndim != 2 || a->shape[1] != b->shape[0]
      || out->shape[0] != a->shape[0] || out->shape[1] != b->shape[1])
    return NULL;
  gint64 i = out->shape[0] - 1, j = out->shape[1] - 1, k_n = a->shape[1];
  double dot = 0;
  for (gint64 k = 0; k < k_n; k++)
    dot += a->values[i * k_n + k] * b->values[k * b->shape[1] + j];
  if (!agrees (dot, out->values[i * out->shape[1] + j]))
    return NULL;
  g_autofree char *la = cr_forward_tensor_name (record, op_input (op, 0), "?");
  g_autofree char *lb = cr_forward_tensor_name (record, op_input (op, 1), "?");
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "] = %s[%" G_GINT64_FORMAT
                          ",:] · %s[:,%" G_GINT64_FORMAT "] = ", result, i, j, la, i, lb, j);
  gint64 shown = k_n <= MAX_TERMS + 1 ? k_n : MAX_TERMS - 1;
  for (gint64 k = 0; k < shown; k++)
    {
      if (k > 0)
        g_string_append (s, " + ");
      append_operand (s, a->values[i * k_n + k]);
      g_string_append (s, "×");
      append_operand (s, b->values[k * b->shape[1] + j]);
    }
  if (shown < k_n)
    g_string_append_printf (s, " + … (%" G_GINT64_FORMAT " products)", k_n);
  g_string_append (s, " = ");
  append_number (s, out->values[i * out->shape[1] + j]);
  return g_string_free (s, FALSE);
}

/* The element worked out of an op that took a Python number beside its
 * one tensor (2 - x, masked_fill's, scatter's and F.pad's value); NULL
 * for another op. */
static char *
example_with_number (const CrRunRecord      *record,
                     const CrRecordOp       *op,
                     const char             *result,
                     const CrTensorSnapshot *out)
{
  const char *g = op->grad_fn ? op->grad_fn : "";
  if (op_input (op, 0) < 0 || (op->inputs->len > 1 && op_input (op, 1) >= 0))
    return NULL;
  if (g_str_has_prefix (g, "RsubBackward"))
    return example_rsub (record, op, result, out);
  if (g_str_has_prefix (g, "MaskedFillBackward"))
    return example_number_put (record, op, result, out, "where the mask is True", "where it is False");
  if (g_str_has_prefix (g, "ScatterBackward"))
    return example_number_put (record, op, result, out, "a place the index gives", "a place it does not");
  if (g_str_has_prefix (g, "ConstantPadNdBackward"))
    return example_pad (record, op, result, out);
  return NULL;
}

/* ---- the text ------------------------------------------------------------- */

static gboolean
same_shape (const CrTensorSnapshot *a,
            const CrTensorSnapshot *b)
{
  if (!a || !b || a->ndim != b->ndim)
    return FALSE;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d])
      return FALSE;
  return TRUE;
}

/* What the op did, in words, with the result's shape. */
static char *
sentence_of (const CrRunRecord      *record,
             const CrRecordOp       *op,
             const CrForwardWords   *words,
             const GPtrArray        *labels,
             guint                   n_tensors,
             const CrTensorSnapshot *out,
             gboolean               *generic)
{
  GString *s = g_string_new (NULL);
  g_autofree char *special = cr_forward_words_special (record, op, labels);
  *generic = FALSE;
  if (special)
    g_string_append (s, special);
  else if (words)
    {
      g_autofree char *said = fill (n_tensors < 2 && words->one ? words->one : words->two, op, labels);
      g_string_append (s, said);
      /* add/sub's alpha=: the second operand is scaled first. */
      const CrRecordArgument *alpha = cr_record_op_argument (op, "alpha");
      if (alpha && alpha->n_values > 0 && alpha->values[0] != 1
          && (g_str_has_prefix (op->grad_fn, "Add") || g_str_has_prefix (op->grad_fn, "Sub")
              || g_str_has_prefix (op->grad_fn, "Rsub")))
        g_string_append_printf (s, " (%s scaled by alpha = %g first)",
                                g_str_has_prefix (op->grad_fn, "Rsub") ? (const char *) labels->pdata[0]
                                                                       : "the second", alpha->values[0]);
    }
  else
    {
      /* An op the table does not know: its name and its inputs. */
      g_autofree char *f = cr_record_op_function_name (op->grad_fn ? op->grad_fn : "op");
      *generic = TRUE;
      g_string_append_printf (s, "computes %s of ", f);
      g_autoptr (GPtrArray) present = cr_forward_present_labels (op, labels);
      for (guint i = 0; i < present->len; i++)
        g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == present->len ? " and " : ", ",
                                (const char *) present->pdata[i]);
      if (present->len == 0)
        g_string_append (s, "its inputs");
    }
  if (words && (words->kind == CR_FORWARD_BINARY || words->kind == CR_FORWARD_UNARY) && out && out->numel > 1)
    {
      g_string_append (s, ", element by element");
      /* Operands of different shapes: the smaller is repeated. */
      for (guint i = 0; words->kind == CR_FORWARD_BINARY && op->inputs && i < op->inputs->len; i++)
        {
          const CrTensorSnapshot *v = input_value (record, op, i, NULL);
          if (v && !same_shape (v, out))
            {
              g_string_append (s, ", broadcasting");
              break;
            }
        }
    }
  if (out)
    {
      g_autofree char *shape = cr_record_shape_text (out->shape, out->ndim);
      if (out->numel == 1 && out->ndim == 0)
        ;
      else
        g_string_append_printf (s, " (%s)", shape);
    }
  if (op->in_place)
    g_string_append (s, ", in place");
  return g_string_free (s, FALSE);
}

CrForwardText *
cr_forward_text_new (const CrRunRecord *record,
                     int                op_index)
{
  g_return_val_if_fail (record != NULL, NULL);
  const CrRecordOp *op = record_op (record, op_index);
  if (!op)
    return NULL;
  CrForwardText *self = g_new0 (CrForwardText, 1);
  int out_tensor = op->outputs && op->outputs->len > 0 ? g_array_index (op->outputs, int, 0) : -1;
  const CrRecordTensor *out_t = record_tensor (record, out_tensor);
  const CrTensorSnapshot *out = out_t ? out_t->value : NULL;
  /* (A result with no short name is "out": its expression says the rest.) */
  self->result = tensor_name_full (record, out_tensor, "out", FALSE);

  const CrForwardWords *words = cr_forward_words_for (op);
  guint n_tensors = 0;
  g_autoptr (GPtrArray) labels = input_labels (record, op, &n_tensors);
  g_autofree char *rhs = expression_of (record, op_index, op, self->result, words, labels);
  self->expression = is_named (self->result) ? g_strdup_printf ("%s = %s", self->result, rhs)
                                             : g_strdup (rhs);
  self->sentence = sentence_of (record, op, words, labels, n_tensors, out, &self->generic);

  /* With numbers: a scalar result from scalar inputs as the expression
   * with their values put in; a tensor's values. */
  GString *eq = g_string_new (NULL);
  if (is_scalar (out))
    {
      g_string_append (eq, self->expression);
      g_autofree char *put = substitute (rhs, record, op);
      /* d.relu() with d a number: relu(4). */
      gboolean fresh = FALSE;
      const CrTensorSnapshot *in = words && words->kind == CR_FORWARD_UNARY && strcmp (words->glyph, "-") != 0
                                   ? input_value (record, op, 0, &fresh) : NULL;
      if (!put && is_scalar (in) && fresh)
        {
          GString *call = g_string_new (words->glyph);
          g_string_append_c (call, '(');
          append_number (call, in->values[0]);
          g_string_append_c (call, ')');
          put = g_string_free (call, FALSE);
        }
      if (put && strcmp (put, rhs) != 0)
        g_string_append_printf (eq, " = %s", put);
      g_autofree char *v = number_text (out->values[0]);
      g_string_append_printf (eq, " = %s", v);
    }
  else
    {
      g_autofree char *v = value_text (out);
      g_string_append_printf (eq, "%s = %s", self->result, v);
    }
  self->equation = g_string_free (eq, FALSE);

  /* (Ops told by cr_forward_words_special have no line in the table.) */
  if (!words && out && out->numel > 1 && values_kept (out))
    {
      const char *g = op->grad_fn ? op->grad_fn : "";
      gboolean reflect = g_str_has_prefix (g, "ReflectionPad");
      if (reflect || g_str_has_prefix (g, "ReplicationPad"))
        self->example = example_pad_copied (record, op, reflect, self->result, out);
      else
        self->example = example_with_number (record, op, self->result, out);
    }
  else if (words && out && out->numel >= 1 && values_kept (out))
    switch (words->kind)
      {
      case CR_FORWARD_BINARY:
      case CR_FORWARD_UNARY:
        if (out->numel > 1)
          self->example = example_elementwise (record, op, words, self->result, out);
        break;
      case CR_FORWARD_SUM:
      case CR_FORWARD_MEAN:
        self->example = example_reduce (record, op, words->kind == CR_FORWARD_MEAN, self->result, out);
        break;
      case CR_FORWARD_MATMUL:
        self->example = example_matmul (record, op, self->result, out);
        break;
      case CR_FORWARD_OTHER:
      default:
        if (out->numel > 1)
          self->example = example_with_number (record, op, self->result, out);
        break;
      }
  return self;
}

void
cr_forward_text_free (CrForwardText *self)
{
  if (!self)
    return;
  g_free (self->expression);
  g_free (self->sentence);
  g_free (self->equation);
  g_free (self->example);
  g_free (self->result);
  g_free (self);
}

char *
cr_record_trace_forward (const CrRunRecord *record,
                         const GArray      *ops,
                         const char        *heading)
{
  g_return_val_if_fail (record != NULL && ops != NULL, NULL);
  GString *out = g_string_new (NULL);
  if (heading)
    g_string_append_printf (out, "%s\n", heading);
  for (guint i = 0; i < ops->len; i++)
    {
      int index = g_array_index (ops, int, i);
      const CrRecordOp *op = record_op (record, index);
      g_autoptr (CrForwardText) text = cr_forward_text_new (record, index);
      if (!op || !text)
        continue;
      g_string_append_printf (out, "  op %u of %u  %s", i + 1, ops->len, op->grad_fn ? op->grad_fn : "?");
      g_autofree char *caption = cr_record_op_caption (record, index);
      g_autofree char *iteration = cr_record_iteration_text (op->loop_path, op->loop_depth);
      g_autofree char *line = cr_run_record_line_text (record, op->span.line, FALSE);
      if (caption && op->span.line > 0)
        g_string_append_printf (out, "  (%s, %s%s%s)", caption, line,
                                iteration ? ", " : "", iteration ? iteration : "");
      else if (op->span.line > 0)
        g_string_append_printf (out, "  (%s)", line);
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "    %s: %s\n", text->expression, text->sentence);
      if (g_strcmp0 (text->equation, text->expression) != 0)
        g_string_append_printf (out, "    %s\n", text->equation);
      if (text->example)
        g_string_append_printf (out, "    %s\n", text->example);
    }
  return g_string_free (out, FALSE);
}
