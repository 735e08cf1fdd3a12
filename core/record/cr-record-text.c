/* cr-record-text.c — the run record's items in words. */
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

char *
cr_record_shape_text (const gint64 *shape,
                      int           ndim)
{
  if (ndim <= 0 || !shape)
    return g_strdup ("scalar");
  GString *s = g_string_new (NULL);
  for (int i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "×" : "", shape[i]);
  return g_string_free (s, FALSE);
}

char *
cr_record_reduction_text (const CrRecordReduction *reduction,
                          const char              *input_label)
{
  g_return_val_if_fail (reduction != NULL, NULL);
  int n = CLAMP (reduction->n_dims, 0, CR_MAX_DIMS);
  /* A 0-d input has no shape worth naming: "to the scalar s". */
  if (reduction->to_ndim == 0)
    {
      const char *dims = n == 1 ? "dim 0" : "every dim";
      if (input_label && *input_label)
        return g_strdup_printf ("summed over %s to the scalar %s", dims, input_label);
      return g_strdup_printf ("summed over %s to a scalar", dims);
    }
  GString *s = g_string_new ("summed over ");
  g_string_append (s, n == 1 ? "dim " : "dims ");
  for (int i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, i == n - 1 ? " and " : ", ");
      g_string_append_printf (s, "%d", reduction->dims[i]);
    }
  g_autofree char *shape = cr_record_shape_text (reduction->to_shape, reduction->to_ndim);
  if (input_label && *input_label)
    g_string_append_printf (s, " to %s's shape %s", input_label, shape);
  else
    g_string_append_printf (s, " to the input's shape %s", shape);
  return g_string_free (s, FALSE);
}

char *
cr_record_hook_title (const CrRecordHookCall *hook,
                      const char             *tensor_label)
{
  return cr_run_record_hook_title (NULL, hook, tensor_label);
}

char *
cr_run_record_hook_title (const CrRunRecord      *record,
                          const CrRecordHookCall *hook,
                          const char             *tensor_label)
{
  g_return_val_if_fail (hook != NULL, NULL);
  const char *fn = hook->function && *hook->function ? hook->function : "<hook>";
  GString *s = g_string_new (NULL);
  switch (hook->kind)
    {
    case CR_RECORD_HOOK_RETAIN_GRAD:
      g_string_append_printf (s, "retain_grad: %s.grad", tensor_label ? tensor_label : "t");
      return g_string_free (s, FALSE);
    case CR_RECORD_HOOK_MODULE:
      g_string_append_printf (s, "module hook %s", fn);
      break;
    case CR_RECORD_HOOK_TENSOR:
    default:
      g_string_append_printf (s, "hook %s", fn);
      break;
    }
  if (hook->span.line > 0)
    {
      g_autofree char *where = cr_run_record_line_text (record, hook->span.line, FALSE);
      g_string_append_printf (s, " (%s)", where);
    }
  return g_string_free (s, FALSE);
}

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

/* Nested brackets for dims [dim, ndim), from values[*at]. */
static void
append_nested (GString                *s,
               const CrTensorSnapshot *value,
               int                     dim,
               gint64                 *at)
{
  if (dim == value->ndim)
    {
      append_number (s, value->values[(*at)++]);
      return;
    }
  g_string_append_c (s, '[');
  for (gint64 i = 0; i < value->shape[dim]; i++)
    {
      if (i > 0)
        g_string_append (s, ", ");
      append_nested (s, value, dim + 1, at);
    }
  g_string_append_c (s, ']');
}

char *
cr_record_value_brief (const CrTensorSnapshot *value,
                       int                     max_values)
{
  if (!value)
    return g_strdup ("None");
  GString *s = g_string_new (NULL);
  if (value->numel <= max_values && value->n_values >= value->numel && value->numel > 0)
    {
      gint64 at = 0;
      append_nested (s, value, 0, &at);
      return g_string_free (s, FALSE);
    }
  g_autofree char *shape = cr_record_shape_text (value->shape, value->ndim);
  g_string_append (s, shape);
  if (value->numel > 0 && !isnan (value->min))
    {
      g_string_append (s, " in [");
      append_number (s, value->min);
      g_string_append (s, ", ");
      append_number (s, value->max);
      g_string_append_c (s, ']');
    }
  return g_string_free (s, FALSE);
}

char *
cr_record_backward_picker_title (const CrRunRecord *record,
                                 guint              backward)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (backward >= record->backwards->len)
    return g_strdup_printf ("#%u", backward + 1);
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, backward);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "#%u · ", backward + 1);
  if (bw->title && *bw->title)
    g_string_append (s, bw->title);
  else
    {
      g_string_append (s, bw->kind == CR_RECORD_BACKWARD_GRAD ? "autograd.grad()" : "backward()");
      if (bw->span.line > 0)
        {
          g_autofree char *where = cr_run_record_line_text (record, bw->span.line, FALSE);
          g_string_append_printf (s, " · %s", where);
        }
    }
  if (bw->iteration > 0 && !strstr (s->str, "iteration"))
    g_string_append_printf (s, " · iteration %u", bw->iteration);
  return g_string_free (s, FALSE);
}

const char *
cr_record_tensor_label (const CrRunRecord *record,
                        int                tensor,
                        const char        *fallback)
{
  if (!record || tensor < 0 || (guint) tensor >= record->tensors->len)
    return fallback;
  const CrRecordTensor *t = g_ptr_array_index (record->tensors, tensor);
  if (t->label && *t->label)
    return t->label;
  if (t->name && *t->name)
    return t->name;
  return fallback;
}

const CrRecordError *
cr_record_backward_error (const CrRunRecord *record,
                          int                backward)
{
  if (!record)
    return NULL;
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *e = g_ptr_array_index (record->errors, i);
      if (backward < 0 || e->backward == backward)
        return e;
    }
  return NULL;
}

char *
cr_record_iteration_text (const guint *loop_path,
                          guint        loop_depth)
{
  if (loop_depth == 0)
    return NULL;
  GString *s = g_string_new ("iteration ");
  for (guint i = 0; i < MIN (loop_depth, CR_RECORD_MAX_LOOP_PATH); i++)
    g_string_append_printf (s, i ? ",%u" : "%u", loop_path[i]);
  return g_string_free (s, FALSE);
}

/* "₃", "₂,₃": loop_path's iterations as subscripts, as the record's labels
 * carry them. */
static void
append_subscripts (GString     *out,
                   const guint *loop_path,
                   guint        loop_depth)
{
  static const char *const digits[] = { "₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉" };
  for (guint i = 0; i < loop_depth; i++)
    {
      char number[16];
      g_snprintf (number, sizeof number, "%u", loop_path[i]);
      if (i > 0)
        g_string_append_c (out, ',');
      for (const char *d = number; *d; d++)
        g_string_append (out, digits[*d - '0']);
    }
}

static gboolean
is_name_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Whether label is name followed by iteration subscripts only ("y₂"). */
static gboolean
is_name_in_loop (const char *label,
                 const char *name,
                 gsize       name_len)
{
  if (!label || strncmp (label, name, name_len) != 0 || !label[name_len])
    return FALSE;
  for (const char *p = label + name_len; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c != ',' && (c < 0x2080 || c > 0x2089))
        return FALSE;
    }
  return TRUE;
}

/* The label an input of op named `name` has in its iteration: the one
 * input tensor labelled name₍…₎, else NULL (none, or two that differ). */
static const char *
input_label_for (const CrRunRecord *record,
                 const CrRecordOp  *op,
                 const char        *name,
                 gsize              name_len)
{
  const char *found = NULL;
  for (guint i = 0; i < op->inputs->len; i++)
    {
      const char *label = cr_record_tensor_label (record, g_array_index (op->inputs, int, i), NULL);
      if (!is_name_in_loop (label, name, name_len))
        continue;
      if (found && strcmp (found, label) != 0)
        return NULL;
      found = label;
    }
  return found;
}

char *
cr_record_op_caption (const CrRunRecord *record,
                      int                op_index)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (op_index < 0 || (guint) op_index >= record->ops->len)
    return NULL;
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  const char *caption = op->caption;
  if (!caption)
    return NULL;
  guint depth = MIN (op->loop_depth, CR_RECORD_MAX_LOOP_PATH);
  if (depth == 0)
    return g_strdup (caption);

  GString *out = g_string_new (NULL);
  const char *p = caption;
  /* "name = ...": the name is bound in this op's iterations. */
  const char *q = p;
  if (is_name_start (*q))
    {
      while (is_name_char (*q))
        q++;
      const char *eq = q;
      while (*eq == ' ')
        eq++;
      if (eq[0] == '=' && eq[1] != '=')
        {
          g_string_append_len (out, p, q - p);
          append_subscripts (out, op->loop_path, depth);
          p = q;
        }
    }
  /* Every other name that an input of the op is labelled by, in its
   * iteration (not an attribute: ".sum", nor a keyword argument). */
  while (*p)
    {
      if (!is_name_start (*p) || (p > caption && (is_name_char (p[-1]) || p[-1] == '.')))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      const char *end = p;
      while (is_name_char (*end))
        end++;
      const char *label = input_label_for (record, op, p, (gsize) (end - p));
      if (label)
        g_string_append (out, label);
      else
        g_string_append_len (out, p, end - p);
      p = end;
    }
  return g_string_free (out, FALSE);
}
