/* cr-record-names.c — names for the tensors a script never named (the
 * format is in cr-record-names.h). The record labels one by its grad_fn
 * ("[SliceBackward0]"); the name here says what it is, from the op that
 * made it, that op's recorded arguments and its inputs' names. */
#include "cr-record-names.h"

#include <string.h>

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           int                id)
{
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

/* "(2, 3)", "(4,)" (new string). */
static char *
shape_text (const CrRecordTensor *t)
{
  GString *s = g_string_new ("(");
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
  g_string_append (s, t->ndim == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

/* Past this many characters a made-up name says its op and line instead. */
#define NAME_MAX_CHARS 40
/* How many unnamed ops deep a name is made. */
#define NAME_MAX_DEPTH 4

static char *name_at_depth (const CrRunRecord *record, const CrRecordTensor *t, int depth);

static gboolean
is_unnamed (const CrRecordTensor *t)
{
  return !t->label || t->label[0] == '[';
}

static gint64
int_argument (const CrRecordOp *op,
              const char       *name,
              int               i,
              gint64            fallback)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  return a && a->n_values > i ? (gint64) a->values[i] : fallback;
}

/* ":, " once for each dim before dim: x[:, :, 1] picks in dim 2. */
static void
append_leading_dims (GString *s,
                     int      dim)
{
  for (int d = 0; d < dim; d++)
    g_string_append (s, ":, ");
}

/* "(2, 3)" (new string). */
static char *
shape_tuple (const CrRecordTensor *t)
{
  return shape_text (t);
}

char *
cr_record_op_function_name (const char *grad_fn)
{
  const char *cut = strstr (grad_fn, "Backward");
  g_autofree char *stem = g_strndup (grad_fn, cut ? (gsize) (cut - grad_fn) : strlen (grad_fn));
  GString *s = g_string_new (NULL);
  for (const char *c = stem; *c; c++)
    {
      /* A word starts at a capital after a small letter, at the last
       * capital of a run before a small letter (Pool2DWith: pool2d_with),
       * and after a digit only where a word follows (L1Loss: l1_loss, but
       * Pool2D: pool2d, Log1P: log1p). */
      gboolean next_small = g_ascii_islower (c[1]);
      if (g_ascii_isupper (*c) && c != stem
          && (g_ascii_islower (c[-1]) || (!g_ascii_islower (c[-1]) && next_small)))
        g_string_append_c (s, '_');
      g_string_append_c (s, g_ascii_tolower (*c));
    }
  return g_string_free (s, FALSE);
}

/* A binary op's other side when it is a number the op saved: "0.9" (new
 * string), or NULL. */
static char *
number_operand (const CrRecordOp *op)
{
  for (guint i = 0; i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor < 0 && g_strcmp0 (saved->name, "other") == 0 && saved->value
          && saved->value->numel == 1 && saved->value->n_values == 1)
        return g_strdup_printf ("%.4g", saved->value->values[0]);
    }
  return NULL;
}

/* The name made from op and its first input's name `in` (new string), or
 * NULL when no rule says one. */
static char *
expression (const CrRunRecord    *record,
            const CrRecordOp     *op,
            const CrRecordTensor *in_tensor,
            const char           *in,
            int                   depth)
{
  const char *g = op->grad_fn;
  if (strcmp (g, "SliceBackward0") == 0)
    {
      int dim = (int) int_argument (op, "dim", 0, -1);
      gint64 start = int_argument (op, "start", 0, 0), end = int_argument (op, "end", 0, -1);
      gint64 step = int_argument (op, "step", 0, 1);
      if (dim < 0 || dim >= in_tensor->ndim)
        return NULL;
      GString *s = g_string_new (in);
      g_string_append_c (s, '[');
      append_leading_dims (s, dim);
      if (start != 0)
        g_string_append_printf (s, "%" G_GINT64_FORMAT, start);
      g_string_append_c (s, ':');
      if (end >= 0 && end < in_tensor->shape[dim])
        g_string_append_printf (s, "%" G_GINT64_FORMAT, end);
      if (step != 1)
        g_string_append_printf (s, ":%" G_GINT64_FORMAT, step);
      g_string_append_c (s, ']');
      return g_string_free (s, FALSE);
    }
  if (strcmp (g, "SelectBackward0") == 0)
    {
      int dim = (int) int_argument (op, "dim", 0, -1);
      if (dim < 0 || !cr_record_op_argument (op, "index"))
        return NULL;
      GString *s = g_string_new (in);
      g_string_append_c (s, '[');
      append_leading_dims (s, dim);
      g_string_append_printf (s, "%" G_GINT64_FORMAT "]", int_argument (op, "index", 0, 0));
      return g_string_free (s, FALSE);
    }
  if (strcmp (g, "TBackward0") == 0)
    return g_strdup_printf ("%s.T", in);
  if (strcmp (g, "TransposeBackward0") == 0 && cr_record_op_argument (op, "dim0"))
    return g_strdup_printf ("%s.transpose(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")", in,
                            int_argument (op, "dim0", 0, 0), int_argument (op, "dim1", 0, 0));
  if (g_str_has_prefix (g, "UnsqueezeBackward") && cr_record_op_argument (op, "dim"))
    return g_strdup_printf ("%s.unsqueeze(%" G_GINT64_FORMAT ")", in, int_argument (op, "dim", 0, 0));
  if (g_str_has_prefix (g, "SqueezeBackward"))
    return g_strdup_printf ("%s.squeeze()", in);
  const CrRecordTensor *out = op->outputs->len
                              ? tensor_at (record, g_array_index (op->outputs, int, 0)) : NULL;
  if (out && (strcmp (g, "ViewBackward0") == 0 || strcmp (g, "ReshapeAliasBackward0") == 0
              || strcmp (g, "UnsafeViewBackward0") == 0))
    {
      g_autofree char *shape = shape_tuple (out);
      return g_strdup_printf ("%s.view%s", in, shape);
    }
  if (out && strcmp (g, "ExpandBackward0") == 0)
    {
      g_autofree char *shape = shape_tuple (out);
      return g_strdup_printf ("%s.expand%s", in, shape);
    }
  if (strcmp (g, "NegBackward0") == 0)
    return g_strdup_printf ("(−%s)", in);
  if (g_str_has_prefix (g, "SumBackward") || g_str_has_prefix (g, "MeanBackward"))
    {
      const CrRecordArgument *dim = cr_record_op_argument (op, "dim");
      const char *what = g[0] == 'S' ? "sum" : "mean";
      if (!dim || dim->n_values == 0)
        return g_strdup_printf ("%s.%s()", in, what);
      GString *s = g_string_new (in);
      g_string_append_printf (s, ".%s(", what);
      for (int i = 0; i < dim->n_values; i++)
        g_string_append_printf (s, i ? ", %g" : "%g", dim->values[i]);
      g_string_append_c (s, ')');
      return g_string_free (s, FALSE);
    }
  /* A binary op with a tensor on both sides: "(a * b)". */
  static const struct { const char *prefix, *sign; } binary[] = {
    { "AddBackward", "+" }, { "SubBackward", "−" }, { "MulBackward", "*" }, { "DivBackward", "/" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (binary); i++)
    if (g_str_has_prefix (g, binary[i].prefix) && op->inputs->len == 2)
      {
        const CrRecordTensor *other = tensor_at (record, g_array_index (op->inputs, int, 1));
        g_autofree char *b = other ? name_at_depth (record, other, depth + 1) : number_operand (op);
        return b ? g_strdup_printf ("(%s %s %s)", in, binary[i].sign, b) : NULL;
      }
  /* A function of its first input: log_softmax(x), nll_loss(…). */
  g_autofree char *f = cr_record_op_function_name (g);
  return g_strdup_printf ("%s(%s%s)", f, in, op->inputs->len > 1 ? ", …" : "");
}

static char *
name_at_depth (const CrRunRecord    *record,
               const CrRecordTensor *t,
               int                   depth)
{
  if (!is_unnamed (t))
    return g_strdup (t->label);
  const CrRecordOp *op = t->op >= 0 && (guint) t->op < record->ops->len ? record->ops->pdata[t->op]
                                                                           : NULL;
  if (!op || !op->grad_fn || op->custom_function || depth >= NAME_MAX_DEPTH)
    return NULL;
  const CrRecordTensor *in = op->inputs->len
                             ? tensor_at (record, g_array_index (op->inputs, int, 0)) : NULL;
  g_autofree char *in_name = in ? name_at_depth (record, in, depth + 1) : NULL;
  if (!in_name)
    return NULL;
  char *name = expression (record, op, in, in_name, depth);
  if (name && g_utf8_strlen (name, -1) > NAME_MAX_CHARS)
    g_clear_pointer (&name, g_free);
  return name;
}

char *
cr_record_tensor_made_name (const CrRunRecord    *record,
                            const CrRecordTensor *t)
{
  g_return_val_if_fail (record != NULL && t != NULL, NULL);
  return name_at_depth (record, t, 0);
}
