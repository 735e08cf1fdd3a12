/* cr-record-forward.c — a run record's forward ops in words (the format is
 * in cr-record-forward.h).
 *
 * Everything comes from the record: the op's grad_fn and caption, its input
 * and output tensors with their labels and value snapshots. What an op
 * computed is said by kind (one line of a table per grad_fn family); what
 * it computed with the numbers is the script's own expression with the
 * inputs' values put in where they are scalars, and one element worked out
 * where they are tensors. Numbers are %.4g, as everywhere in the window. */
#include "cr-record-forward.h"

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

/* ---- what each op does ---------------------------------------------------- */

typedef enum {
  KIND_OTHER,
  KIND_BINARY,      /* elementwise with two operands: + - × / */
  KIND_UNARY,       /* elementwise function of one tensor: relu, exp */
  KIND_SUM,
  KIND_MEAN,
  KIND_MATMUL,      /* a 2-D @ 2-D */
} OpKind;

typedef struct {
  const char *grad_fn;    /* "MulBackward0"; a prefix when it ends in '*' */
  OpKind      kind;
  const char *glyph;      /* BINARY: how an element is computed, "×"; UNARY: the
                           * function's name, "relu" */
  const char *form;       /* the Python form when the script's caption does not
                           * give it: {0} {1} {2} are the inputs */
  const char *two;        /* what it did with two tensor inputs; {0} {1} {2} */
  const char *one;        /* ... with one tensor input (the other a Python number);
                           * NULL: as two */
} OpWords;

static const OpWords op_words[] = {
  { "AddBackward*", KIND_BINARY, "+", "{0} + {1}", "adds {0} and {1}", "adds a number to {0}" },
  { "SubBackward*", KIND_BINARY, "-", "{0} - {1}", "subtracts {1} from {0}", "subtracts a number from {0}" },
  { "RsubBackward*", KIND_OTHER, NULL, "n - {0}", "subtracts {0} from a number", NULL },
  { "MulBackward*", KIND_BINARY, "×", "{0} * {1}", "multiplies {0} by {1}", "multiplies {0} by a number" },
  { "DivBackward*", KIND_BINARY, "/", "{0} / {1}", "divides {0} by {1}", "divides {0} by a number" },
  { "PowBackward*", KIND_OTHER, NULL, "{0} ** {1}", "raises {0} to the power {1}", "raises {0} to a power" },
  { "NegBackward0", KIND_UNARY, "-", "-{0}", "negates {0}", NULL },
  { "ReluBackward0", KIND_UNARY, "relu", "relu({0})", "keeps what is positive in {0} and sets the rest to 0", NULL },
  { "TanhBackward0", KIND_UNARY, "tanh", "tanh({0})", "squashes {0} into (-1, 1) with tanh", NULL },
  { "SigmoidBackward0", KIND_UNARY, "σ", "sigmoid({0})", "squashes {0} into (0, 1) with σ(x) = 1 / (1 + e^-x)", NULL },
  { "ExpBackward0", KIND_UNARY, "exp", "exp({0})", "raises e to the power of {0}", NULL },
  { "LogBackward0", KIND_UNARY, "log", "log({0})", "takes the natural logarithm of {0}", NULL },
  { "SqrtBackward0", KIND_UNARY, "sqrt", "sqrt({0})", "takes the square root of {0}", NULL },
  { "AbsBackward0", KIND_UNARY, "abs", "abs({0})", "takes the absolute value of {0}", NULL },
  { "SinBackward0", KIND_UNARY, "sin", "sin({0})", "takes the sine of {0}", NULL },
  { "CosBackward0", KIND_UNARY, "cos", "cos({0})", "takes the cosine of {0}", NULL },
  { "SumBackward0", KIND_SUM, NULL, "{0}.sum()", "adds up all the elements of {0}", NULL },
  { "SumBackward1", KIND_OTHER, NULL, "{0}.sum(dim)", "adds up {0} along a dim", NULL },
  { "MeanBackward0", KIND_MEAN, NULL, "{0}.mean()", "averages all the elements of {0}", NULL },
  { "MeanBackward1", KIND_OTHER, NULL, "{0}.mean(dim)", "averages {0} along a dim", NULL },
  { "MmBackward0", KIND_MATMUL, NULL, "{0} @ {1}",
    "multiplies the matrices {0} and {1}: each element is a row of {0} times a column of {1}, summed", NULL },
  { "MvBackward0", KIND_OTHER, NULL, "{0} @ {1}", "multiplies the matrix {0} by the vector {1}", NULL },
  { "DotBackward0", KIND_OTHER, NULL, "{0} @ {1}", "multiplies {0} and {1} element by element and adds up", NULL },
  { "BmmBackward0", KIND_OTHER, NULL, "{0} @ {1}", "multiplies the matrices of {0} and {1}, batch by batch", NULL },
  { "AddmmBackward0", KIND_OTHER, NULL, "{0} + {1} @ {2}",
    "multiplies {1} by the matrix {2} and adds {0}: a linear layer's output", NULL },
  { "TBackward*", KIND_OTHER, NULL, "{0}.t()", "transposes {0} (rows become columns)", NULL },
  { "TransposeBackward*", KIND_OTHER, NULL, "{0}.transpose()", "swaps two dims of {0}", NULL },
  { "PermuteBackward0", KIND_OTHER, NULL, "{0}.permute()", "reorders the dims of {0}", NULL },
  { "ViewBackward0", KIND_OTHER, NULL, "{0}.view()", "reshapes {0} (the same numbers)", NULL },
  { "ReshapeAliasBackward0", KIND_OTHER, NULL, "{0}.reshape()", "reshapes {0} (the same numbers)", NULL },
  { "UnsafeViewBackward0", KIND_OTHER, NULL, "{0}.reshape()", "reshapes {0} (the same numbers)", NULL },
  { "ExpandBackward0", KIND_OTHER, NULL, "{0}.expand()", "repeats {0} along dims of size 1 (broadcast)", NULL },
  { "UnsqueezeBackward*", KIND_OTHER, NULL, "{0}.unsqueeze()", "adds a dim of size 1 to {0}", NULL },
  { "SqueezeBackward*", KIND_OTHER, NULL, "{0}.squeeze()", "removes dims of size 1 from {0}", NULL },
  { "SelectBackward0", KIND_OTHER, NULL, "{0}[i]", "takes one slice of {0}", NULL },
  { "SliceBackward0", KIND_OTHER, NULL, "{0}[a:b]", "takes a range of {0}", NULL },
  { "IndexBackward0", KIND_OTHER, NULL, "{0}[index]", "picks elements of {0} by index", NULL },
  { "CatBackward0", KIND_OTHER, NULL, "torch.cat()", "joins {0} and the other inputs along a dim", NULL },
  { "StackBackward0", KIND_OTHER, NULL, "torch.stack()", "stacks {0} and the other inputs along a new dim", NULL },
  { "MaskedFillBackward0", KIND_OTHER, NULL, "{0}.masked_fill(mask, value)", "fills {0} where the mask is True", NULL },
  { "UnbindBackward0", KIND_OTHER, NULL, "{0}.unbind()", "takes {0} apart into its slices", NULL },
  { "SplitBackward0", KIND_OTHER, NULL, "{0}.split()", "cuts {0} into pieces", NULL },
  { "SplitWithSizesBackward0", KIND_OTHER, NULL, "{0}.split()", "cuts {0} into pieces", NULL },
  { "UnsafeSplitBackward0", KIND_OTHER, NULL, "torch.unsafe_split({0})", "cuts {0} into pieces", NULL },
  { "CloneBackward0", KIND_OTHER, NULL, "{0}.clone()", "copies {0}", NULL },
  { "MaxBackward*", KIND_OTHER, NULL, "{0}.max()", "takes the largest element of {0}", NULL },
  { "MinBackward*", KIND_OTHER, NULL, "{0}.min()", "takes the smallest element of {0}", NULL },
  { "ClampBackward*", KIND_OTHER, NULL, "{0}.clamp()", "clamps {0} into a range", NULL },
  { "SoftmaxBackward0", KIND_OTHER, NULL, "softmax({0})",
    "turns each row of {0} into probabilities: e^x / Σ e^x", NULL },
  { "LogSoftmaxBackward0", KIND_OTHER, NULL, "log_softmax({0})",
    "takes the log of the softmax of each row of {0}", NULL },
  { "NllLossBackward0", KIND_OTHER, NULL, "nll_loss({0}, target)",
    "picks each row's log-probability at its target, negates and averages them", NULL },
  { "MseLossBackward0", KIND_OTHER, NULL, "mse_loss({0}, {1})",
    "averages the squared differences of {0} and {1}", NULL },
  { "BinaryCrossEntropyBackward0", KIND_OTHER, NULL, "binary_cross_entropy({0}, {1})",
    "the binary cross-entropy of the probabilities {0} against {1}", NULL },
  { "BinaryCrossEntropyWithLogitsBackward0", KIND_OTHER, NULL,
    "binary_cross_entropy_with_logits({0}, {1})",
    "the binary cross-entropy of σ({0}) against {1}", NULL },
};

static gboolean
words_match (const char *pattern,
             const char *grad_fn)
{
  gsize n = strlen (pattern);
  if (n > 0 && pattern[n - 1] == '*')
    return strncmp (pattern, grad_fn, n - 1) == 0;
  return strcmp (pattern, grad_fn) == 0;
}

static const OpWords *
words_for (const CrRecordOp *op)
{
  if (!op->grad_fn)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (op_words); i++)
    if (words_match (op_words[i].grad_fn, op->grad_fn))
      return &op_words[i];
  return NULL;
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
static char *
tensor_name (const CrRunRecord *record,
             int                tensor,
             const char        *fallback)
{
  return tensor_name_full (record, tensor, fallback, TRUE);
}

/* The names of op's inputs ("a number" for one the record does not know:
 * a Python number), and how many are tensors. */
static GPtrArray *
input_labels (const CrRunRecord *record,
              const CrRecordOp  *op,
              guint             *n_tensors)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  *n_tensors = 0;
  for (guint i = 0; op->inputs && i < op->inputs->len; i++)
    {
      int t = op_input (op, i);
      if (t >= 0)
        (*n_tensors)++;
      g_ptr_array_add (labels, tensor_name (record, t, t >= 0 ? "?" : "a number"));
    }
  return labels;
}

/* template with {0} {1} {2} replaced by labels (missing ones: "…"). */
static char *
fill (const char      *template,
      const GPtrArray *labels)
{
  GString *s = g_string_new (NULL);
  for (const char *p = template; *p; p++)
    {
      if (p[0] == '{' && g_ascii_isdigit (p[1]) && p[2] == '}')
        {
          guint i = (guint) (p[1] - '0');
          g_string_append (s, i < labels->len ? (const char *) labels->pdata[i] : "…");
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

/* labels without the absent optional tensors' (borrowed strings). */
static GPtrArray *
present_labels (const CrRecordOp *op,
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
               const OpWords     *words,
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
    return fill (words->form, labels);
  const char *name = op->grad_fn ? op->grad_fn : "op";
  const char *cut = strstr (name, "Backward");
  GString *s = g_string_new (NULL);
  g_string_append_len (s, name, cut ? cut - name : (gssize) strlen (name));
  g_string_append_c (s, '(');
  g_autoptr (GPtrArray) present = present_labels (op, labels);
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
      g_autofree char *name = tensor_name (record, t->id, NULL);
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

static double
apply_unary (const char *glyph,
             double      x)
{
  if (strcmp (glyph, "-") == 0) return -x;
  if (strcmp (glyph, "relu") == 0) return x > 0 ? x : 0;
  if (strcmp (glyph, "tanh") == 0) return tanh (x);
  if (strcmp (glyph, "σ") == 0) return 1 / (1 + exp (-x));
  if (strcmp (glyph, "exp") == 0) return exp (x);
  if (strcmp (glyph, "log") == 0) return log (x);
  if (strcmp (glyph, "sqrt") == 0) return sqrt (x);
  if (strcmp (glyph, "abs") == 0) return fabs (x);
  if (strcmp (glyph, "sin") == 0) return sin (x);
  if (strcmp (glyph, "cos") == 0) return cos (x);
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
                     const OpWords          *words,
                     const char             *result,
                     const CrTensorSnapshot *out)
{
  gint64 idx[CR_MAX_DIMS] = { 0 };
  example_index (out, idx);
  gint64 at = offset_in (idx, out->ndim, out->shape, out->ndim);
  guint n = op->inputs ? op->inputs->len : 0;
  guint want_inputs = words->kind == KIND_BINARY ? 2 : 1;
  if (n != want_inputs)
    return NULL;
  const CrTensorSnapshot *v[2] = { NULL, NULL };
  double x[2] = { 0, 0 };
  for (guint i = 0; i < n; i++)
    {
      v[i] = input_value (record, op, i, NULL);
      if (!values_kept (v[i]) || v[i]->ndim > out->ndim)
        return NULL;
      x[i] = v[i]->values[offset_in (idx, out->ndim, v[i]->shape, v[i]->ndim)];
    }
  double want = n == 2 ? apply (words->glyph, x[0], x[1]) : apply_unary (words->glyph, x[0]);
  if (!agrees (want, out->values[at]))
    return NULL;
  GString *s = g_string_new (result);
  append_index (s, idx, out->ndim, out->ndim, out->shape);
  g_string_append (s, " = ");
  GString *numbers = g_string_new (NULL);
  if (n == 1)
    {
      g_autofree char *label = tensor_name (record, op_input (op, 0), "?");
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
        g_autofree char *label = tensor_name (record, op_input (op, i), "?");
        g_string_append (s, label);
        append_index (s, idx, out->ndim, v[i]->ndim, v[i]->shape);
        append_operand (numbers, x[i]);
      }
  g_string_append_printf (s, " = %s = ", numbers->str);
  append_number (s, out->values[at]);
  g_string_free (numbers, TRUE);
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
  g_autofree char *la = tensor_name (record, op_input (op, 0), "?");
  g_autofree char *lb = tensor_name (record, op_input (op, 1), "?");
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

/* ", stride 2", ", padding (1, 0)": an int tuple argument when it is not
 * all `usual`. */
static void
append_geometry (GString          *s,
                 const CrRecordOp *op,
                 const char       *name,
                 double            usual)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  if (!a || a->n_values == 0)
    return;
  gboolean all_same = TRUE, usual_only = TRUE;
  for (int i = 0; i < a->n_values; i++)
    {
      all_same = all_same && a->values[i] == a->values[0];
      usual_only = usual_only && a->values[i] == usual;
    }
  if (usual_only)
    return;
  g_string_append_printf (s, ", %s ", name);
  if (all_same)
    g_string_append_printf (s, "%g", a->values[0]);
  else
    for (int i = 0; i < a->n_values; i++)
      g_string_append_printf (s, "%s%g%s", i ? ", " : "(", a->values[i], i + 1 == a->n_values ? ")" : "");
}

/* A convolution, plain or transposed, with its bias and the geometry that
 * is not the default: "computes the 2-d transposed convolution of x with
 * kernel w, plus the bias b, stride 2". */
static char *
convolution_sentence (const CrRecordOp *op,
                      const GPtrArray  *labels)
{
  const CrRecordArgument *transposed = cr_record_op_argument (op, "transposed");
  const CrRecordArgument *stride = cr_record_op_argument (op, "stride");
  gboolean is_transposed = transposed && transposed->n_values > 0 && transposed->values[0] != 0;
  GString *s = g_string_new ("computes the ");
  if (stride && stride->n_values > 0)
    g_string_append_printf (s, "%d-d ", stride->n_values);
  g_string_append_printf (s, "%sconvolution of %s with kernel %s", is_transposed ? "transposed " : "",
                          labels->len > 0 ? (const char *) labels->pdata[0] : "its input",
                          labels->len > 1 ? (const char *) labels->pdata[1] : "its weight");
  if (op_input (op, 2) >= 0 && labels->len > 2)
    g_string_append_printf (s, ", plus the bias %s", (const char *) labels->pdata[2]);
  append_geometry (s, op, "stride", 1);
  append_geometry (s, op, "padding", 0);
  if (is_transposed)
    append_geometry (s, op, "output_padding", 0);
  append_geometry (s, op, "dilation", 1);
  const CrRecordArgument *groups = cr_record_op_argument (op, "groups");
  if (groups && groups->n_values > 0 && groups->values[0] > 1)
    g_string_append_printf (s, ", in %g groups", groups->values[0]);
  g_string_append (s, is_transposed
                   ? ": each input element adds the kernel, scaled by it, into the output"
                   : ": each output element is a window of the input times the kernel, summed");
  return g_string_free (s, FALSE);
}

/* nll_loss by its reduction (0 none, 1 mean, 2 sum) and class weights:
 * with weights w, PyTorch's mean is Σ w[t]·(−x[t]) / Σ w[t]. */
static char *
nll_sentence (const CrRunRecord *record,
              const CrRecordOp  *op,
              const GPtrArray   *labels)
{
  const CrRecordArgument *reduction = cr_record_op_argument (op, "reduction");
  int how = reduction && reduction->n_values > 0 ? (int) reduction->values[0] : 1;
  const char *x = labels->len > 0 ? (const char *) labels->pdata[0] : "its input";
  g_autofree char *weight = NULL;
  for (guint k = 0; op->saved && k < op->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (op->saved, k);
      if (g_strcmp0 (saved->name, "weight") == 0)
        weight = tensor_name (record, saved->tensor, "w");
    }
  GString *s = g_string_new ("picks each row's log-probability at its target");
  if (!weight)
    g_string_append (s, how == 0 ? " and negates it: one loss a row"
                        : how == 2 ? ", negates and adds them up"
                        : ", negates and averages them");
  else if (how == 0)
    g_string_append_printf (s, " and negates it, times its class's weight: %s[t]·(−%s[t]) a row, "
                            "t the row's target", weight, x);
  else if (how == 2)
    g_string_append_printf (s, ", negates them and adds them up weighted by class: Σ %s[t]·(−%s[t]), "
                            "t each row's target", weight, x);
  else
    g_string_append_printf (s, ", negates them and takes their mean weighted by class: "
                            "Σ %s[t]·(−%s[t]) / Σ %s[t], t each row's target", weight, x, weight);
  return g_string_free (s, FALSE);
}

/* The ops whose words depend on their arguments; NULL: the table's. */
static char *
special_sentence (const CrRunRecord *record,
                  const CrRecordOp  *op,
                  const GPtrArray   *labels)
{
  const char *g = op->grad_fn;
  const char *x = labels->len > 0 ? (const char *) labels->pdata[0] : "its input";
  if (!g)
    return NULL;
  if (strcmp (g, "ConvolutionBackward0") == 0)
    return convolution_sentence (op, labels);
  if (strcmp (g, "NllLossBackward0") == 0)
    return nll_sentence (record, op, labels);
  if (strcmp (g, "ConvolutionBackwardBackward0") == 0)
    {
      /* Differentiating a convolution with create_graph=True: its backward
       * as ops that can be differentiated again. */
      g_autoptr (GPtrArray) present = present_labels (op, labels);
      GString *s = g_string_new ("computes a convolution's gradient from ");
      for (guint i = 0; i < present->len; i++)
        g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == present->len ? " and " : ", ",
                                (const char *) present->pdata[i]);
      g_string_append (s, ", as a convolution of its own that can be differentiated again "
                          "(create_graph=True)");
      return g_string_free (s, FALSE);
    }
  const CrRecordArgument *dim = cr_record_op_argument (op, "dim");
  g_autofree char *along = dim && dim->n_values > 0 ? g_strdup_printf (" along dim %g", dim->values[0])
                                                   : g_strdup ("");
  guint pieces = op->outputs ? op->outputs->len : 0;
  if (strcmp (g, "UnbindBackward0") == 0)
    return g_strdup_printf ("takes %s apart%s into its %u slices, one output each", x, along, pieces);
  if (strcmp (g, "SplitBackward0") == 0 || strcmp (g, "SplitWithSizesBackward0") == 0
      || strcmp (g, "UnsafeSplitBackward0") == 0 || strcmp (g, "UnsafeSplitWithSizesBackward0") == 0)
    return g_strdup_printf ("cuts %s%s into %u pieces, one output each", x, along, pieces);
  if (strcmp (g, "EmbeddingBackward0") == 0)
    {
      const CrRecordArgument *padding = cr_record_op_argument (op, "padding_idx");
      GString *s = g_string_new (NULL);
      g_string_append_printf (s, "looks up rows of the table %s: each index picks its row", x);
      if (padding && padding->n_values > 0)
        g_string_append_printf (s, " (row %g, the padding_idx, will get no gradient)", padding->values[0]);
      return g_string_free (s, FALSE);
    }
  if (strcmp (g, "MaskedFillBackward0") == 0)
    return g_strdup_printf ("copies %s with a value put where the mask is True", x);
  return NULL;
}

/* What the op did, in words, with the result's shape. */
static char *
sentence_of (const CrRunRecord      *record,
             const CrRecordOp       *op,
             const OpWords          *words,
             const GPtrArray        *labels,
             guint                   n_tensors,
             const CrTensorSnapshot *out)
{
  GString *s = g_string_new (NULL);
  g_autofree char *special = special_sentence (record, op, labels);
  if (special)
    g_string_append (s, special);
  else if (words)
    {
      g_autofree char *said = fill (n_tensors < 2 && words->one ? words->one : words->two, labels);
      g_string_append (s, said);
    }
  else
    {
      const char *name = op->grad_fn ? op->grad_fn : "op";
      const char *cut = strstr (name, "Backward");
      g_string_append_printf (s, "computes %.*s of ", (int) (cut ? cut - name : (gssize) strlen (name)),
                              name);
      g_autoptr (GPtrArray) present = present_labels (op, labels);
      for (guint i = 0; i < present->len; i++)
        g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == present->len ? " and " : ", ",
                                (const char *) present->pdata[i]);
      if (present->len == 0)
        g_string_append (s, "its inputs");
    }
  if (op->custom_function)
    g_string_append_printf (s, " (the forward() of %s)", op->custom_function);
  if (words && (words->kind == KIND_BINARY || words->kind == KIND_UNARY) && out && out->numel > 1)
    {
      g_string_append (s, ", element by element");
      /* Operands of different shapes: the smaller is repeated. */
      for (guint i = 0; words->kind == KIND_BINARY && op->inputs && i < op->inputs->len; i++)
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

  const OpWords *words = words_for (op);
  guint n_tensors = 0;
  g_autoptr (GPtrArray) labels = input_labels (record, op, &n_tensors);
  g_autofree char *rhs = expression_of (record, op_index, op, self->result, words, labels);
  self->expression = is_named (self->result) ? g_strdup_printf ("%s = %s", self->result, rhs)
                                             : g_strdup (rhs);
  self->sentence = sentence_of (record, op, words, labels, n_tensors, out);

  /* With numbers: a scalar result from scalar inputs as the expression
   * with their values put in; a tensor's values. */
  GString *eq = g_string_new (NULL);
  if (is_scalar (out))
    {
      g_string_append (eq, self->expression);
      g_autofree char *put = substitute (rhs, record, op);
      /* d.relu() with d a number: relu(4). */
      gboolean fresh = FALSE;
      const CrTensorSnapshot *in = words && words->kind == KIND_UNARY && strcmp (words->glyph, "-") != 0
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

  if (words && out && out->numel >= 1 && values_kept (out))
    switch (words->kind)
      {
      case KIND_BINARY:
      case KIND_UNARY:
        if (out->numel > 1)
          self->example = example_elementwise (record, op, words, self->result, out);
        break;
      case KIND_SUM:
      case KIND_MEAN:
        self->example = example_reduce (record, op, words->kind == KIND_MEAN, self->result, out);
        break;
      case KIND_MATMUL:
        self->example = example_matmul (record, op, self->result, out);
        break;
      case KIND_OTHER:
      default:
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
