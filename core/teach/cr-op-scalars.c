/* cr-op-scalars.c — a small tensor op's scalar graph, from the run record
 * (cr-op-scalars.h): which ops, their per-element equations and local
 * derivatives, and the chain rule one element at a time. The text that
 * `chainrule explain-op` prints is in cr-op-scalars-format.c. */
#include "cr-op-scalars.h"

#include "cr-error.h"
#include "cr-paths.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* What the op computes, element by element. */
typedef enum {
  KIND_ADD, KIND_SUB, KIND_RSUB, KIND_MUL, KIND_DIV, KIND_POW,          /* binary */
  KIND_NEG, KIND_RELU, KIND_TANH, KIND_SIGMOID, KIND_EXP, KIND_LOG,      /* unary */
  KIND_SQRT, KIND_SIN, KIND_COS, KIND_ABS, KIND_RECIPROCAL,
  KIND_SUM, KIND_MEAN,                                                  /* reductions */
  KIND_MATMUL, KIND_ADDMM,
  KIND_SOFTMAX, KIND_LOG_SOFTMAX,
  KIND_MSE, KIND_BCE_LOGITS,
  KIND_VIEW, KIND_T, KIND_EXPAND,
} Kind;

typedef struct {
  const char *grad_fn;
  Kind        kind;
} OpName;

static const OpName op_names[] = {
  { "AddBackward0", KIND_ADD }, { "AddBackward1", KIND_ADD },
  { "SubBackward0", KIND_SUB }, { "SubBackward1", KIND_SUB },
  { "RsubBackward0", KIND_RSUB }, { "RsubBackward1", KIND_RSUB },
  { "MulBackward0", KIND_MUL }, { "MulBackward1", KIND_MUL },
  { "DivBackward0", KIND_DIV }, { "DivBackward1", KIND_DIV },
  { "PowBackward0", KIND_POW }, { "PowBackward1", KIND_POW },
  { "NegBackward0", KIND_NEG }, { "ReluBackward0", KIND_RELU },
  { "TanhBackward0", KIND_TANH }, { "SigmoidBackward0", KIND_SIGMOID },
  { "ExpBackward0", KIND_EXP }, { "LogBackward0", KIND_LOG },
  { "SqrtBackward0", KIND_SQRT }, { "SinBackward0", KIND_SIN },
  { "CosBackward0", KIND_COS }, { "AbsBackward0", KIND_ABS },
  { "ReciprocalBackward0", KIND_RECIPROCAL },
  { "SumBackward0", KIND_SUM }, { "SumBackward1", KIND_SUM },
  { "MeanBackward0", KIND_MEAN }, { "MeanBackward1", KIND_MEAN },
  { "MmBackward0", KIND_MATMUL }, { "MvBackward0", KIND_MATMUL },
  { "DotBackward0", KIND_MATMUL }, { "AddmmBackward0", KIND_ADDMM },
  { "SoftmaxBackward0", KIND_SOFTMAX }, { "LogSoftmaxBackward0", KIND_LOG_SOFTMAX },
  { "MseLossBackward0", KIND_MSE },
  { "BinaryCrossEntropyWithLogitsBackward0", KIND_BCE_LOGITS },
  { "ViewBackward0", KIND_VIEW }, { "ReshapeAliasBackward0", KIND_VIEW },
  { "UnsafeViewBackward0", KIND_VIEW }, { "UnsqueezeBackward0", KIND_VIEW },
  { "UnsqueezeBackward1", KIND_VIEW }, { "SqueezeBackward0", KIND_VIEW },
  { "SqueezeBackward1", KIND_VIEW }, { "SqueezeBackward2", KIND_VIEW },
  { "SqueezeBackward3", KIND_VIEW }, { "CloneBackward0", KIND_VIEW },
  { "AliasBackward0", KIND_VIEW }, { "ContiguousBackward0", KIND_VIEW },
  { "ToCopyBackward0", KIND_VIEW },
  { "TBackward0", KIND_T }, { "ExpandBackward0", KIND_EXPAND },
};

/* One operand of an elementwise op: a tensor of the record, or a number the
 * script wrote (x * 2), which has no nodes. */
typedef struct {
  const CrRecordTensor *tensor;   /* NULL: a number */
  guint                 base;     /* its first node */
  double                number;
} Operand;

typedef struct {
  const CrRunRecord    *record;
  const CrRecordOp     *op;
  Kind                  kind;
  CrOpScalars          *self;
  const CrRecordTensor *out;
  const CrRecordStep   *step;     /* the backward step giving gradients, or NULL */
  const char           *root;     /* the loss's name, "L" */
  GHashTable           *bases;    /* input tensor id -> its first node index + 1 */
  GHashTable           *derived;  /* tensor id -> values found from its view's input (owned) */
  guint                 sub_step; /* the output element being built */
  GError               *error;
} Build;

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           int                id)
{
  return id >= 0 && (guint) id < record->tensors->len ? record->tensors->pdata[id] : NULL;
}

static gint64
numel_of (const CrRecordTensor *t)
{
  gint64 n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

static gboolean
lookup_kind (const char *grad_fn,
             Kind       *out)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (op_names); i++)
    if (strcmp (grad_fn, op_names[i].grad_fn) == 0)
      {
        *out = op_names[i].kind;
        return TRUE;
      }
  return FALSE;
}

static gboolean
kind_is_unary (Kind kind)
{
  return kind >= KIND_NEG && kind <= KIND_RECIPROCAL;
}

static gboolean
kind_is_binary (Kind kind)
{
  return kind <= KIND_POW;
}

static char *
shape_text (const CrRecordTensor *t)
{
  GString *s = g_string_new ("(");
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
  g_string_append (s, t->ndim == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

static char *
element_label (const CrRecordTensor *t,
               gint64                element)
{
  g_autofree char *index = cr_record_element_text (t, element);
  return g_strdup_printf ("%s%s", t->label ? t->label : "?", index);
}

/* An input's name in the equations: an unnamed transpose of a named tensor
 * (nn.Linear's weight.t()) as "lin.weight.T" rather than "[TBackward0]". */
static char *
input_label (const CrRunRecord    *record,
             const CrRecordTensor *t,
             gint64                element)
{
  const CrRecordOp *op = t->name == NULL && t->op >= 0 && (guint) t->op < record->ops->len
                         ? record->ops->pdata[t->op] : NULL;
  const CrRecordTensor *in = op && g_strcmp0 (op->grad_fn, "TBackward0") == 0 && op->inputs->len
                             ? tensor_at (record, g_array_index (op->inputs, int, 0)) : NULL;
  if (!in || !in->label || in->label[0] == '[')
    return element_label (t, element);
  g_autofree char *index = cr_record_element_text (t, element);
  return g_strdup_printf ("%s.T%s", in->label, index);
}

/* A value as a factor or term in the numbers: negative ones in parentheses. */
static void
append_number (GString *s,
               double   v)
{
  g_string_append_printf (s, v < 0 ? "(%.4g)" : "%.4g", v);
}

static gboolean
same_value (double computed,
            double recorded)
{
  if (isnan (computed) || isnan (recorded))
    return isnan (computed) && isnan (recorded);
  if (isinf (computed) || isinf (recorded))
    return computed == recorded;
  return fabs (computed - recorded) <= 1e-4 + 1e-4 * fabs (recorded);
}

/* Element of a tensor of shape `to` that element `flat` of the broadcast
 * shape `from` reads (to has at most from's dims). */
static gint64
broadcast_source (gint64        flat,
                  int           from_ndim,
                  const gint64 *from,
                  int           to_ndim,
                  const gint64 *to)
{
  gint64 index[CR_MAX_DIMS];
  for (int d = from_ndim - 1; d >= 0; d--)
    {
      index[d] = from[d] > 0 ? flat % from[d] : 0;
      flat = from[d] > 0 ? flat / from[d] : 0;
    }
  gint64 out = 0;
  int lead = from_ndim - to_ndim;
  for (int d = 0; d < to_ndim; d++)
    out = out * to[d] + (to[d] == 1 ? 0 : index[d + lead]);
  return out;
}

static gboolean
broadcasts_to (const CrRecordTensor *t,
               const CrRecordTensor *out)
{
  if (t->ndim > out->ndim)
    return FALSE;
  int lead = out->ndim - t->ndim;
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != 1 && t->shape[d] != out->shape[d + lead])
      return FALSE;
  return TRUE;
}

/* The values of a tensor the record keeps none of, made by a view or a
 * transpose of one it keeps (nn.Linear's W.t()): new array, or NULL. */
static double *
view_values (const CrRunRecord    *record,
             const CrRecordTensor *t)
{
  const CrRecordOp *op = t->origin == CR_RECORD_TENSOR_RESULT && t->op >= 0
                         && (guint) t->op < record->ops->len ? record->ops->pdata[t->op] : NULL;
  Kind kind;
  if (!op || op->inputs->len < 1 || !lookup_kind (op->grad_fn, &kind)
      || (kind != KIND_VIEW && kind != KIND_T))
    return NULL;
  const CrRecordTensor *in = tensor_at (record, g_array_index (op->inputs, int, 0));
  gint64 n = numel_of (t);
  if (!in || !in->value || in->value->n_values < n || numel_of (in) != n)
    return NULL;
  double *values = g_new (double, MAX (n, 1));
  for (gint64 j = 0; j < n; j++)
    values[j] = kind == KIND_T && in->ndim == 2
                ? in->value->values[(j % in->shape[0]) * in->shape[1] + j / in->shape[0]]
                : in->value->values[j];
  return values;
}

/* The values of input tensor t as the op read them: as the op saved them
 * when it did (a parameter changes between the iterations of a training
 * loop, and the tensor's own snapshot is from when it was made), else the
 * tensor's snapshot. */
static const double *
input_values (Build                *b,
              const CrRecordTensor *t)
{
  for (guint i = 0; i < b->op->saved->len; i++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value
          && saved->value->n_values == numel_of (t) && saved->value->numel == numel_of (t))
        return saved->value->values;
    }
  if (t->value && t->value->n_values >= numel_of (t))
    return t->value->values;
  double *derived = g_hash_table_lookup (b->derived, GINT_TO_POINTER (t->id));
  if (!derived)
    {
      derived = view_values (b->record, t);
      if (!derived && b->kind == KIND_VIEW)
        derived = g_memdup2 (b->out->value->values, sizeof (double) * (gsize) numel_of (t));
      g_hash_table_insert (b->derived, GINT_TO_POINTER (t->id), derived);
    }
  return derived;
}

/* The recorded value of output element e, NaN when the record does not
 * keep it (an unnamed matmul result that a squeeze hides). */
static double
output_value (const Build *b,
              gint64       e)
{
  const CrTensorSnapshot *v = b->out->value;
  return v && e < v->n_values ? v->values[e] : NAN;
}

static gboolean
has_saved_values (const CrRecordOp     *op,
                  const CrRecordTensor *t)
{
  for (guint i = 0; i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value && saved->value->n_values == numel_of (t))
        return TRUE;
    }
  return FALSE;
}

/* Whether op ran in a loop iteration after the first: a parameter it
 * reads may have changed since its snapshot was taken. */
static gboolean
later_iteration (const CrRecordOp *op)
{
  for (guint d = 0; d < op->loop_depth && d < CR_RECORD_MAX_LOOP_PATH; d++)
    if (op->loop_path[d] > 1)
      return TRUE;
  return op->iteration > 1;
}

/* Whether the record keeps every value of tensor t as op read it (in a
 * saved slot or its own snapshot). */
static gboolean
has_values (const CrRunRecord    *record,
            const CrRecordOp     *op,
            const CrRecordTensor *t)
{
  gint64 n = numel_of (t);
  for (guint i = 0; i < op->saved->len; i++)
    {
      const CrRecordSaved *saved = op->saved->pdata[i];
      if (saved->tensor == (int) t->id && saved->value && saved->value->n_values == n)
        return TRUE;
    }
  if (t->value && t->value->n_values >= n)
    return TRUE;
  g_autofree double *derived = view_values (record, t);
  if (derived)
    return TRUE;
  /* A view's input is its output's values in the same order. */
  Kind kind;
  const CrRecordTensor *out = op->outputs->len
                              ? tensor_at (record, g_array_index (op->outputs, int, 0)) : NULL;
  return lookup_kind (op->grad_fn, &kind) && kind == KIND_VIEW && out && out->value
         && out->value->n_values >= n && numel_of (out) == n;
}

static gboolean
fail (Build      *b,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (Build      *b,
      const char *format,
      ...)
{
  if (b->error)
    return FALSE;
  va_list ap;
  va_start (ap, format);
  g_autofree char *why = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (&b->error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR, "%s (line %u) %s",
               b->op->grad_fn ? b->op->grad_fn : "the op", b->op->span.line, why);
  return FALSE;
}

/* ---- nodes and edges ------------------------------------------------------ */

static void
node_free (gpointer data)
{
  CrScalarNode *node = data;
  g_free (node->label);
  g_free (node->operation);
  g_free (node->equation);
  g_free (node->numbers);
  g_free (node);
}

static void
edge_free (gpointer data)
{
  CrScalarEdge *edge = data;
  g_free (edge->local_text);
  g_free (edge);
}

static guint
add_node (Build            *b,
          CrScalarNodeKind  kind,
          int               tensor,
          gint64            element,
          char             *label,      /* owned */
          const char       *operation,
          char             *equation,   /* owned */
          char             *numbers,    /* owned */
          double            value)
{
  CrScalarNode *node = g_new0 (CrScalarNode, 1);
  node->kind = kind;
  node->tensor = tensor;
  node->element = element;
  node->label = label;
  node->operation = g_strdup (operation);
  node->equation = equation;
  node->numbers = numbers;
  node->value = value;
  node->grad = NAN;
  node->sub_step = kind == CR_SCALAR_NODE_INPUT ? 0 : b->sub_step;
  g_ptr_array_add (b->self->nodes, node);
  return b->self->nodes->len - 1;
}

static void
add_edge (Build      *b,
          guint       from,
          guint       to,
          double      local,
          char       *local_text)   /* owned */
{
  CrScalarEdge *edge = g_new0 (CrScalarEdge, 1);
  edge->from = from;
  edge->to = to;
  edge->local = local;
  edge->local_text = local_text;
  edge->product = NAN;
  edge->sub_step = b->sub_step;
  g_ptr_array_add (b->self->edges, edge);
}

/* The nodes of input tensor t, made once however often the op reads it
 * (x * x has one x): its first node. */
static guint
input_nodes (Build                *b,
             const CrRecordTensor *t)
{
  gpointer known = g_hash_table_lookup (b->bases, GINT_TO_POINTER (t->id));
  if (known)
    return GPOINTER_TO_UINT (known) - 1;
  guint base = b->self->nodes->len;
  for (gint64 e = 0; e < numel_of (t); e++)
    add_node (b, CR_SCALAR_NODE_INPUT, (int) t->id, e, input_label (b->record, t, e), NULL, NULL,
              NULL,
              input_values (b, t)[e]);
  g_hash_table_insert (b->bases, GINT_TO_POINTER (t->id), GUINT_TO_POINTER (base + 1));
  g_array_append_val (b->self->inputs, t->id);
  return base;
}

/* Output element e, computed here as `value`: refused when the record
 * says otherwise. Takes equation and numbers. */
static guint
add_output (Build      *b,
            gint64      e,
            const char *operation,
            char       *equation,
            char       *numbers,
            double      value)
{
  double recorded = output_value (b, e);
  gboolean kept = !isnan (recorded) || (b->out->value && e < b->out->value->n_values);
  guint node = add_node (b, CR_SCALAR_NODE_OUTPUT, (int) b->out->id, e,
                         element_label (b->out, e), operation, equation, numbers,
                         kept ? recorded : value);
  if (kept && !same_value (value, recorded))
    {
      g_autofree char *label = element_label (b->out, e);
      fail (b, "does not compute what the record says: %s is %.6g, the scalar equation gives "
               "%.6g (an option the expansion does not know?)", label, recorded, value);
    }
  return node;
}

/* ---- elementwise ops ------------------------------------------------------ */

/* The number an op was given in place of a tensor (x * 2's 2): kept as a
 * saved 0-d value, or else found from the values around it. */
static gboolean
find_number (Build         *b,
             const Operand *known,
             guint          which,     /* the number's side, 0 or 1 */
             double        *out)
{
  const char *side = which == 0 ? "self" : (b->kind == KIND_POW ? "exponent" : "other");
  for (guint i = 0; i < b->op->saved->len; i++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[i];
      if (saved->tensor < 0 && saved->ndim == 0 && saved->value && saved->value->n_values == 1
          && (strcmp (saved->name, side) == 0 || strcmp (saved->name, "other") == 0))
        {
          *out = saved->value->values[0];
          return TRUE;
        }
    }
  /* From the first element where it can be told. */
  const CrRecordTensor *t = known->tensor;
  for (gint64 j = 0; j < numel_of (b->out); j++)
    {
      double y = output_value (b, j);
      double x = input_values (b, t)[broadcast_source (j, b->out->ndim, b->out->shape, t->ndim,
                                                    t->shape)];
      double c = NAN;
      switch (b->kind)
        {
        case KIND_ADD: c = y - x; break;
        case KIND_SUB: c = which == 1 ? x - y : y + x; break;
        case KIND_RSUB: c = which == 1 ? y + x : x - y; break;
        case KIND_MUL: c = x != 0 ? y / x : NAN; break;
        case KIND_DIV: c = which == 1 ? (y != 0 ? x / y : NAN) : y * x; break;
        case KIND_POW:
          if (which == 1 && x != 0 && fabs (x) != 1 && y != 0 && isfinite (y))
            {
              c = log (fabs (y)) / log (fabs (x));
              /* x ** 2 is meant, not x ** 1.9999999. */
              double near = round (c * 1000) / 1000;
              if (fabs (c - near) < 1e-4)
                c = near;
            }
          break;
        default: break;
        }
      if (isfinite (c))
        {
          /* A float32 result rounds the number a little: 2.0000002 was 2. */
          double near = round (c * 1e4) / 1e4;
          *out = fabs (c - near) < 1e-5 * MAX (1.0, fabs (c)) ? near : c;
          return TRUE;
        }
    }
  return fail (b, "was given a number the record does not keep");
}

static double
unary_value (Kind   kind,
             double x)
{
  switch (kind)
    {
    case KIND_NEG: return -x;
    case KIND_RELU: return x > 0 ? x : 0;
    case KIND_TANH: return tanh (x);
    case KIND_SIGMOID: return 1 / (1 + exp (-x));
    case KIND_EXP: return exp (x);
    case KIND_LOG: return log (x);
    case KIND_SQRT: return sqrt (x);
    case KIND_SIN: return sin (x);
    case KIND_COS: return cos (x);
    case KIND_ABS: return fabs (x);
    case KIND_RECIPROCAL: return 1 / x;
    default: return NAN;
    }
}

/* ∂y/∂x of a unary op at x (y: the recorded output), with its formula in
 * terms of X (the input's label) and Y (the output's). */
static double
unary_local (Kind        kind,
             double      x,
             double      y,
             const char *X,
             const char *Y,
             char      **text)
{
  switch (kind)
    {
    case KIND_NEG: *text = g_strdup ("−1"); return -1;
    case KIND_RELU:
      *text = g_strdup_printf (x > 0 ? "1 (%s > 0)" : "0 (%s ≤ 0)", X);
      return x > 0 ? 1 : 0;
    case KIND_TANH: *text = g_strdup_printf ("1 − %s²", Y); return 1 - y * y;
    case KIND_SIGMOID: *text = g_strdup_printf ("%s·(1 − %s)", Y, Y); return y * (1 - y);
    case KIND_EXP: *text = g_strdup (Y); return y;
    case KIND_LOG: *text = g_strdup_printf ("1/%s", X); return 1 / x;
    case KIND_SQRT: *text = g_strdup_printf ("1/(2·%s)", Y); return 1 / (2 * y);
    case KIND_SIN: *text = g_strdup_printf ("cos %s", X); return cos (x);
    case KIND_COS: *text = g_strdup_printf ("−sin %s", X); return -sin (x);
    case KIND_ABS: *text = g_strdup_printf ("sign %s", X); return x > 0 ? 1 : x < 0 ? -1 : 0;
    case KIND_RECIPROCAL: *text = g_strdup_printf ("−%s²", Y); return -y * y;
    default: *text = g_strdup ("?"); return NAN;
    }
}

static const char *
unary_name (Kind kind)
{
  switch (kind)
    {
    case KIND_NEG: return "−";
    case KIND_RELU: return "relu";
    case KIND_TANH: return "tanh";
    case KIND_SIGMOID: return "σ";
    case KIND_EXP: return "exp";
    case KIND_LOG: return "log";
    case KIND_SQRT: return "√";
    case KIND_SIN: return "sin";
    case KIND_COS: return "cos";
    case KIND_ABS: return "abs";
    case KIND_RECIPROCAL: return "1/";
    default: return "?";
    }
}

static double
binary_value (Kind   kind,
              double a,
              double c)
{
  switch (kind)
    {
    case KIND_ADD: return a + c;
    case KIND_SUB: return a - c;
    case KIND_RSUB: return c - a;
    case KIND_MUL: return a * c;
    case KIND_DIV: return a / c;
    case KIND_POW: return pow (a, c);
    default: return NAN;
    }
}

static const char *
binary_symbol (Kind kind)
{
  switch (kind)
    {
    case KIND_ADD: return "+";
    case KIND_SUB: case KIND_RSUB: return "−";
    case KIND_MUL: return "×";
    case KIND_DIV: return "÷";
    case KIND_POW: return "^";
    default: return "?";
    }
}

/* ∂y/∂(operand `which`) of y = a ⊙ c, with its formula in A and C. */
static double
binary_local (Kind        kind,
              guint       which,
              double      a,
              double      c,
              double      y,
              const char *A,
              const char *C,
              char      **text)
{
  switch (kind)
    {
    case KIND_ADD: *text = g_strdup ("1"); return 1;
    case KIND_SUB: *text = g_strdup (which == 0 ? "1" : "−1"); return which == 0 ? 1 : -1;
    case KIND_RSUB: *text = g_strdup (which == 0 ? "−1" : "1"); return which == 0 ? -1 : 1;
    case KIND_MUL: *text = g_strdup (which == 0 ? C : A); return which == 0 ? c : a;
    case KIND_DIV:
      if (which == 0)
        {
          *text = g_strdup_printf ("1/%s", C);
          return 1 / c;
        }
      *text = g_strdup_printf ("−%s/%s²", A, C);
      return -a / (c * c);
    case KIND_POW:
      if (which == 0)
        {
          *text = g_strdup_printf ("%s·%s^(%s − 1)", C, A, C);
          return c == 0 ? 0 : c * pow (a, c - 1);
        }
      *text = g_strdup_printf ("%s^%s·ln %s", A, C, A);
      return y * log (a);
    default: *text = g_strdup ("?"); return NAN;
    }
}

static char *
operand_label (const Build   *b,
               const Operand *o,
               gint64         element)
{
  if (!o->tensor)
    return g_strdup_printf ("%g", o->number);
  return input_label (b->record, o->tensor, element);
}

static gboolean
build_elementwise (Build *b)
{
  const CrRecordOp *op = b->op;
  guint arity = kind_is_binary (b->kind) ? 2 : 1;
  Operand operands[2] = { { 0 } };
  guint known = G_MAXUINT;
  for (guint k = 0; k < arity; k++)
    {
      int id = k < op->inputs->len ? g_array_index (op->inputs, int, k) : -1;
      operands[k].tensor = tensor_at (b->record, id);
      if (operands[k].tensor)
        {
          if (!broadcasts_to (operands[k].tensor, b->out))
            return fail (b, "has an input whose shape does not broadcast to its output's");
          known = k;
        }
    }
  if (known == G_MAXUINT)
    return fail (b, "has no tensor input the record keeps");
  for (guint k = 0; k < arity; k++)
    {
      if (operands[k].tensor)
        operands[k].base = input_nodes (b, operands[k].tensor);
      else if (!find_number (b, &operands[known], k, &operands[k].number))
        return FALSE;
    }

  for (gint64 j = 0; j < numel_of (b->out); j++)
    {
      b->sub_step = (guint) j;
      double v[2] = { 0, 0 };
      gint64 src[2] = { 0, 0 };
      g_autofree char *L0 = NULL, *L1 = NULL;
      for (guint k = 0; k < arity; k++)
        {
          const CrRecordTensor *t = operands[k].tensor;
          src[k] = t ? broadcast_source (j, b->out->ndim, b->out->shape, t->ndim, t->shape) : 0;
          v[k] = t ? input_values (b, t)[src[k]] : operands[k].number;
        }
      L0 = operand_label (b, &operands[0], src[0]);
      L1 = arity == 2 ? operand_label (b, &operands[1], src[1]) : NULL;
      g_autofree char *Y = element_label (b->out, j);
      double y = output_value (b, j);
      char *equation, *numbers;
      double computed;
      GString *n = g_string_new (NULL);
      if (arity == 2)
        {
          computed = binary_value (b->kind, v[0], v[1]);
          if (b->kind == KIND_RSUB)
            {
              equation = g_strdup_printf ("%s = %s − %s", Y, L1, L0);
              append_number (n, v[1]);
              g_string_append (n, " − ");
              append_number (n, v[0]);
            }
          else
            {
              equation = g_strdup_printf ("%s = %s %s %s", Y, L0, binary_symbol (b->kind), L1);
              append_number (n, v[0]);
              g_string_append_printf (n, " %s ", binary_symbol (b->kind));
              append_number (n, v[1]);
            }
        }
      else
        {
          computed = unary_value (b->kind, v[0]);
          if (b->kind == KIND_NEG)
            equation = g_strdup_printf ("%s = −%s", Y, L0);
          else if (b->kind == KIND_RECIPROCAL)
            equation = g_strdup_printf ("%s = 1/%s", Y, L0);
          else
            equation = g_strdup_printf ("%s = %s(%s)", Y, unary_name (b->kind), L0);
          g_string_append_printf (n, "%s(", b->kind == KIND_NEG ? "−" : b->kind == KIND_RECIPROCAL
                                            ? "1/" : unary_name (b->kind));
          append_number (n, v[0]);
          g_string_append_c (n, ')');
        }
      numbers = g_string_free (n, FALSE);
      if (isnan (y))
        y = computed;  /* the record keeps no output value: the local derivatives use ours */
      guint out_node = add_output (b, j, arity == 2 ? binary_symbol (b->kind)
                                                    : unary_name (b->kind),
                                   equation, numbers, computed);
      for (guint k = 0; k < arity; k++)
        {
          if (!operands[k].tensor)
            continue;
          char *text = NULL;
          double local = arity == 2
                         ? binary_local (b->kind, k, v[0], v[1], y, L0, L1, &text)
                         : unary_local (b->kind, v[0], y, L0, Y, &text);
          add_edge (b, operands[k].base + (guint) src[k], out_node, local, text);
        }
    }
  return b->error == NULL;
}

/* ---- reductions ------------------------------------------------------------ */

/* For each element of `in`, the element of the output it is reduced into
 * when the dims in `mask` are summed (kept as size 1 or dropped as the
 * output's shape says); FALSE when the output's shape is not that. */
static gboolean
reduce_map (const CrRecordTensor *in,
            const CrRecordTensor *out,
            guint                 mask,
            gint64               *map)
{
  gint64 kept[CR_MAX_DIMS];
  int n_kept = 0, n_all = 0;
  gint64 all[CR_MAX_DIMS];
  for (int d = 0; d < in->ndim; d++)
    {
      all[n_all++] = mask & (1u << d) ? 1 : in->shape[d];
      if (!(mask & (1u << d)))
        kept[n_kept++] = in->shape[d];
    }
  gboolean keepdim;
  if (out->ndim == n_kept && memcmp (out->shape, kept, sizeof (gint64) * (gsize) n_kept) == 0)
    keepdim = FALSE;
  else if (out->ndim == n_all && memcmp (out->shape, all, sizeof (gint64) * (gsize) n_all) == 0)
    keepdim = TRUE;
  else
    return FALSE;
  (void) keepdim;  /* either way the output's row-major order is the kept dims' */
  for (gint64 e = 0; e < numel_of (in); e++)
    {
      gint64 flat = e, index[CR_MAX_DIMS];
      for (int d = in->ndim - 1; d >= 0; d--)
        {
          index[d] = flat % in->shape[d];
          flat /= in->shape[d];
        }
      gint64 o = 0;
      for (int d = 0; d < in->ndim; d++)
        if (!(mask & (1u << d)))
          o = o * in->shape[d] + index[d];
      map[e] = o;
    }
  return TRUE;
}

/* Input element's gradient that the step sent, summed over the step's
 * inputs that are that tensor; NaN when not known. */
static double
step_sent (const CrRecordStep *step,
           int                 tensor,
           gint64              element)
{
  double sum = 0;
  gboolean any = FALSE;
  for (guint i = 0; step && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *input = step->inputs->pdata[i];
      const CrTensorSnapshot *v = input->outgoing.value;
      if (input->tensor != tensor || !v || element >= v->n_values)
        continue;
      sum += v->values[element];
      any = TRUE;
    }
  return any ? sum : NAN;
}

static double
incoming_at (const CrRecordStep *step,
             gint64              element)
{
  if (!step || step->incoming->len == 0)
    return NAN;
  const CrTensorSnapshot *v = ((const CrRecordGrad *) step->incoming->pdata[0])->value;
  if (!v)
    return 0;  /* None: the output's gradient is zero */
  return element < v->n_values ? v->values[element] : NAN;
}

/* The dims a reduction summed: the candidates whose sums give the output's
 * values, and of those the first whose gradients are the step's. */
static gboolean
find_reduced_dims (Build                *b,
                   const CrRecordTensor *in,
                   gint64               *map)
{
  gboolean mean = b->kind == KIND_MEAN;
  gint64 out_numel = numel_of (b->out), in_numel = numel_of (in);
  guint chosen = G_MAXUINT;
  gboolean chosen_by_grad = FALSE;
  g_autofree gint64 *trial = g_new (gint64, MAX (in_numel, 1));
  g_autofree double *sums = g_new0 (double, MAX (out_numel, 1));
  for (guint mask = (1u << in->ndim) - 1; mask != G_MAXUINT; mask--)
    {
      if (!reduce_map (in, b->out, mask, trial))
        continue;
      memset (sums, 0, sizeof (double) * (gsize) out_numel);
      for (gint64 e = 0; e < in_numel; e++)
        sums[trial[e]] += input_values (b, in)[e];
      gboolean values_match = TRUE;
      double n = (double) in_numel / (double) MAX (out_numel, 1);
      for (gint64 o = 0; o < out_numel && values_match; o++)
        values_match = same_value (mean ? sums[o] / n : sums[o], output_value (b, o));
      if (!values_match)
        continue;
      gboolean grads_match = b->step != NULL;
      for (gint64 e = 0; e < in_numel && grads_match; e++)
        {
          double sent = step_sent (b->step, (int) in->id, e);
          double g = incoming_at (b->step, trial[e]) / (mean ? n : 1);
          grads_match = !isnan (sent) && same_value (g, sent);
        }
      if (chosen == G_MAXUINT || (grads_match && !chosen_by_grad))
        {
          chosen = mask;
          chosen_by_grad = grads_match;
          memcpy (map, trial, sizeof (gint64) * (gsize) in_numel);
        }
      if (mask == 0)
        break;
    }
  if (chosen == G_MAXUINT)
    return fail (b, "reduces over dims its values do not tell");
  return TRUE;
}

static gboolean
build_reduction (Build *b)
{
  const CrRecordTensor *in = tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  gboolean mean = b->kind == KIND_MEAN;
  gint64 in_numel = numel_of (in), out_numel = numel_of (b->out);
  g_autofree gint64 *map = g_new (gint64, MAX (in_numel, 1));
  if (!find_reduced_dims (b, in, map))
    return FALSE;
  guint base = input_nodes (b, in);
  for (gint64 j = 0; j < out_numel; j++)
    {
      b->sub_step = (guint) j;
      GString *eq = g_string_new (NULL), *n = g_string_new (NULL);
      g_autofree char *Y = element_label (b->out, j);
      g_string_append_printf (eq, "%s = %s", Y, mean ? "(" : "");
      if (mean)
        g_string_append_c (n, '(');
      double sum = 0;
      guint count = 0;
      for (gint64 e = 0; e < in_numel; e++)
        if (map[e] == j)
          {
            g_autofree char *X = input_label (b->record, in, e);
            g_string_append_printf (eq, "%s%s", count ? " + " : "", X);
            if (count)
              g_string_append (n, " + ");
            append_number (n, input_values (b, in)[e]);
            sum += input_values (b, in)[e];
            count++;
          }
      if (mean)
        {
          g_string_append_printf (eq, ")/%u", count);
          g_string_append_printf (n, ")/%u", count);
        }
      guint out_node = add_output (b, j, mean ? "mean" : "Σ", g_string_free (eq, FALSE),
                                   g_string_free (n, FALSE), mean ? sum / count : sum);
      for (gint64 e = 0; e < in_numel; e++)
        if (map[e] == j)
          add_edge (b, base + (guint) e, out_node, mean ? 1.0 / count : 1.0,
                    mean ? g_strdup_printf ("1/%u", count) : g_strdup ("1"));
    }
  return b->error == NULL;
}

/* ---- matrix products ------------------------------------------------------- */

/* C = A @ B (+ bias): A as (n, k), B as (k, m); a 1-d A is a row, a 1-d B a
 * column. Each product A[i, kk]·B[kk, j] is an inner node; C[i, j] their sum. */
static gboolean
build_matmul (Build *b)
{
  guint first = b->kind == KIND_ADDMM ? 1 : 0;
  if (b->op->inputs->len != first + 2)
    return fail (b, "has %u inputs where %u are expected", b->op->inputs->len, first + 2);
  const CrRecordTensor *bias = first ? tensor_at (b->record, g_array_index (b->op->inputs, int, 0))
                                     : NULL;
  const CrRecordTensor *A = tensor_at (b->record, g_array_index (b->op->inputs, int, first));
  const CrRecordTensor *B = tensor_at (b->record, g_array_index (b->op->inputs, int, first + 1));
  if (!A || !B || (first && !bias))
    return fail (b, "has an input the record does not keep");
  if (A->ndim < 1 || A->ndim > 2 || B->ndim < 1 || B->ndim > 2)
    return fail (b, "multiplies tensors that are not matrices or vectors");
  gint64 n = A->ndim == 2 ? A->shape[0] : 1, k = A->shape[A->ndim - 1];
  gint64 m = B->ndim == 2 ? B->shape[1] : 1, kb = B->shape[0];
  if (k != kb || numel_of (b->out) != n * m)
    return fail (b, "has shapes that do not multiply");
  if (bias && !broadcasts_to (bias, b->out))
    return fail (b, "has a bias whose shape does not broadcast to its output's");
  guint a_base = input_nodes (b, A), b_base = input_nodes (b, B);
  guint bias_base = bias ? input_nodes (b, bias) : 0;
  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < m; j++)
      {
        gint64 o = i * m + j;
        b->sub_step = (guint) o;
        GArray *products = g_array_new (FALSE, FALSE, sizeof (guint));
        GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
        g_autofree char *Y = element_label (b->out, o);
        g_string_append_printf (eq, "%s = ", Y);
        double sum = 0;
        gint64 bias_at = 0;
        if (bias)
          {
            bias_at = broadcast_source (o, b->out->ndim, b->out->shape, bias->ndim, bias->shape);
            g_autofree char *Bi = input_label (b->record, bias, bias_at);
            g_string_append_printf (eq, "%s + ", Bi);
            append_number (num, input_values (b, bias)[bias_at]);
            g_string_append (num, " + ");
            sum += input_values (b, bias)[bias_at];
          }
        for (gint64 kk = 0; kk < k; kk++)
          {
            gint64 ae = i * k + kk, be = kk * m + j;
            double av = input_values (b, A)[ae], bv = input_values (b, B)[be];
            g_autofree char *AL = input_label (b->record, A, ae), *BL = input_label (b->record, B, be);
            guint p = add_node (b, CR_SCALAR_NODE_INNER, -1, -1,
                                g_strdup_printf ("%s·%s", AL, BL), "×",
                                g_strdup_printf ("%s·%s", AL, BL), NULL, av * bv);
            GString *pn = g_string_new (NULL);
            append_number (pn, av);
            g_string_append (pn, "·");
            append_number (pn, bv);
            ((CrScalarNode *) b->self->nodes->pdata[p])->numbers = g_string_free (pn, FALSE);
            add_edge (b, a_base + (guint) ae, p, bv, g_strdup (BL));
            add_edge (b, b_base + (guint) be, p, av, g_strdup (AL));
            g_array_append_val (products, p);
            g_string_append_printf (eq, "%s%s·%s", kk ? " + " : "", AL, BL);
            if (kk)
              g_string_append (num, " + ");
            append_number (num, av);
            g_string_append (num, "·");
            append_number (num, bv);
            sum += av * bv;
          }
        guint out_node = add_output (b, o, "+", g_string_free (eq, FALSE),
                                     g_string_free (num, FALSE), sum);
        if (bias)
          add_edge (b, bias_base + (guint) bias_at, out_node, 1, g_strdup ("1"));
        for (guint q = 0; q < products->len; q++)
          add_edge (b, g_array_index (products, guint, q), out_node, 1, g_strdup ("1"));
        g_array_unref (products);
      }
  return b->error == NULL;
}

/* ---- softmax --------------------------------------------------------------- */

/* y = softmax(x) or log_softmax(x) along a dim found from the values:
 * ∂y_j/∂x_i = y_j·(δij − y_i), or δij − softmax_i. */
static gboolean
build_softmax (Build *b)
{
  gboolean log_form = b->kind == KIND_LOG_SOFTMAX;
  const CrRecordTensor *in = tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  if (in->ndim != b->out->ndim || memcmp (in->shape, b->out->shape,
                                          sizeof (gint64) * (gsize) in->ndim) != 0)
    return fail (b, "has an output of another shape than its input");
  gint64 numel = numel_of (in);
  g_autofree double *soft = g_new (double, MAX (numel, 1));
  g_autofree gint64 *map = g_new (gint64, MAX (numel, 1));
  int dim = -1;
  for (int d = 0; d < MAX (in->ndim, 1) && dim < 0; d++)
    {
      guint mask = in->ndim ? 1u << d : 0;
      /* Slices along d: the elements that map to the same reduced element. */
      CrRecordTensor reduced = *in;
      reduced.ndim = 0;
      for (int k = 0; k < in->ndim; k++)
        if (k != d)
          reduced.shape[reduced.ndim++] = in->shape[k];
      if (!reduce_map (in, &reduced, mask, map))
        continue;
      gint64 slices = numel_of (&reduced);
      g_autofree double *top = g_new (double, slices), *total = g_new0 (double, slices);
      for (gint64 s = 0; s < slices; s++)
        top[s] = -INFINITY;
      for (gint64 e = 0; e < numel; e++)
        top[map[e]] = MAX (top[map[e]], input_values (b, in)[e]);
      for (gint64 e = 0; e < numel; e++)
        total[map[e]] += exp (input_values (b, in)[e] - top[map[e]]);
      gboolean ok = TRUE;
      for (gint64 e = 0; e < numel && ok; e++)
        {
          soft[e] = exp (input_values (b, in)[e] - top[map[e]]) / total[map[e]];
          double y = log_form ? log (soft[e]) : soft[e];
          ok = same_value (y, output_value (b, e));
        }
      if (ok)
        dim = d;
    }
  if (dim < 0)
    return fail (b, "does not match a softmax along any one dim of its input");
  guint base = input_nodes (b, in);
  for (gint64 j = 0; j < numel; j++)
    {
      b->sub_step = (guint) j;
      g_autofree char *Y = element_label (b->out, j), *X = input_label (b->record, in, j);
      GString *eq = g_string_new (NULL);
      g_string_append_printf (eq, log_form ? "%s = %s − log(" : "%s = exp(%s)/(", Y, X);
      guint count = 0;
      for (gint64 i = 0; i < numel; i++)
        if (map[i] == map[j])
          {
            g_autofree char *Xi = input_label (b->record, in, i);
            g_string_append_printf (eq, "%sexp(%s)", count++ ? " + " : "", Xi);
          }
      g_string_append_c (eq, ')');
      double y = log_form ? log (soft[j]) : soft[j];
      guint out_node = add_output (b, j, log_form ? "log softmax" : "softmax",
                                   g_string_free (eq, FALSE), NULL, y);
      for (gint64 i = 0; i < numel; i++)
        {
          if (map[i] != map[j])
            continue;
          g_autofree char *Xi = input_label (b->record, in, i);
          char *text;
          double local;
          if (log_form)
            {
              local = (i == j ? 1 : 0) - soft[i];
              text = i == j ? g_strdup_printf ("1 − softmax(%s)", Xi)
                            : g_strdup_printf ("−softmax(%s)", Xi);
            }
          else
            {
              g_autofree char *Yi = element_label (b->out, i);
              local = soft[j] * ((i == j ? 1 : 0) - soft[i]);
              text = i == j ? g_strdup_printf ("%s·(1 − %s)", Y, Y)
                            : g_strdup_printf ("−%s·%s", Y, Yi);
            }
          add_edge (b, base + (guint) i, out_node, local, text);
        }
    }
  return b->error == NULL;
}

/* ---- losses ---------------------------------------------------------------- */

/* mean((a − b)²) and the mean of binary cross-entropy with logits, into one
 * element; the sum where the values say so (reduction='sum'). */
static gboolean
build_loss (Build *b)
{
  if (b->op->inputs->len != 2 || numel_of (b->out) != 1)
    return fail (b, "has options (weights, no reduction) the expansion does not take apart");
  const CrRecordTensor *x = tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  const CrRecordTensor *y = tensor_at (b->record, g_array_index (b->op->inputs, int, 1));
  if (!x || !y || numel_of (x) != numel_of (y))
    return fail (b, "has inputs of different sizes");
  gint64 numel = numel_of (x);
  gboolean mse = b->kind == KIND_MSE;
  double total = 0;
  for (gint64 e = 0; e < numel; e++)
    {
      double xv = input_values (b, x)[e], yv = input_values (b, y)[e];
      total += mse ? (xv - yv) * (xv - yv)
                   : MAX (xv, 0) - xv * yv + log1p (exp (-fabs (xv)));
    }
  double n = same_value (total, output_value (b, 0)) ? 1 : (double) numel;
  guint xb = input_nodes (b, x), yb = input_nodes (b, y);
  b->sub_step = 0;
  GString *eq = g_string_new (NULL);
  g_autofree char *Y = element_label (b->out, 0);
  g_string_append_printf (eq, "%s = %s", Y, n > 1 ? "(" : "");
  for (gint64 e = 0; e < numel; e++)
    {
      g_autofree char *X = input_label (b->record, x, e), *T = input_label (b->record, y, e);
      if (mse)
        g_string_append_printf (eq, "%s(%s − %s)²", e ? " + " : "", X, T);
      else
        g_string_append_printf (eq, "%sbce(σ(%s), %s)", e ? " + " : "", X, T);
    }
  if (n > 1)
    g_string_append_printf (eq, ")/%g", n);
  guint out_node = add_output (b, 0, mse ? "mse" : "bce", g_string_free (eq, FALSE), NULL,
                               total / n);
  for (gint64 e = 0; e < numel; e++)
    {
      double xv = input_values (b, x)[e], yv = input_values (b, y)[e];
      g_autofree char *X = input_label (b->record, x, e), *T = input_label (b->record, y, e);
      g_autofree char *over = n > 1 ? g_strdup_printf ("/%g", n) : g_strdup ("");
      if (mse)
        {
          add_edge (b, xb + (guint) e, out_node, 2 * (xv - yv) / n,
                    g_strdup_printf ("2·(%s − %s)%s", X, T, over));
          add_edge (b, yb + (guint) e, out_node, -2 * (xv - yv) / n,
                    g_strdup_printf ("−2·(%s − %s)%s", X, T, over));
        }
      else
        {
          add_edge (b, xb + (guint) e, out_node, (1 / (1 + exp (-xv)) - yv) / n,
                    g_strdup_printf ("(σ(%s) − %s)%s", X, T, over));
          add_edge (b, yb + (guint) e, out_node, -xv / n, g_strdup_printf ("−%s%s", X, over));
        }
    }
  return b->error == NULL;
}

/* ---- views ----------------------------------------------------------------- */

static gboolean
build_view (Build *b)
{
  const CrRecordTensor *in = tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  gint64 out_numel = numel_of (b->out);
  if (b->kind != KIND_EXPAND && numel_of (in) != out_numel)
    return fail (b, "has an output of another size than its input");
  if (b->kind == KIND_EXPAND && !broadcasts_to (in, b->out))
    return fail (b, "expands to a shape its input does not broadcast to");
  guint base = input_nodes (b, in);
  for (gint64 j = 0; j < out_numel; j++)
    {
      b->sub_step = (guint) j;
      gint64 src = j;
      if (b->kind == KIND_T && in->ndim == 2)
        src = (j % in->shape[0]) * in->shape[1] + j / in->shape[0];
      else if (b->kind == KIND_EXPAND)
        src = broadcast_source (j, b->out->ndim, b->out->shape, in->ndim, in->shape);
      g_autofree char *Y = element_label (b->out, j), *X = input_label (b->record, in, src);
      guint out_node = add_output (b, j, "=", g_strdup_printf ("%s = %s", Y, X), NULL,
                                   input_values (b, in)[src]);
      add_edge (b, base + (guint) src, out_node, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

/* ---- the chain rule ------------------------------------------------------ */

static int
edge_by_end_descending (gconstpointer a,
                        gconstpointer b)
{
  const CrScalarEdge *x = *(CrScalarEdge *const *) a, *y = *(CrScalarEdge *const *) b;
  return x->to < y->to ? 1 : x->to > y->to ? -1 : 0;
}

/* Every node's gradient: an output element's is the step's incoming one;
 * any other node's the sum over its out-edges of grad(end) × local. Edges
 * go from earlier nodes to later ones, so taking them by their end, last
 * first, finishes a node's gradient before any edge into it is used. */
static void
propagate (CrOpScalars        *self,
           const CrRecordStep *step)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      CrScalarNode *node = self->nodes->pdata[i];
      node->grad = node->kind == CR_SCALAR_NODE_OUTPUT ? incoming_at (step, node->element) : 0;
    }
  /* Borrowed pointers: a copy would take the edges' free function along. */
  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (self->edges->len);
  for (guint i = 0; i < self->edges->len; i++)
    g_ptr_array_add (order, self->edges->pdata[i]);
  g_ptr_array_sort (order, edge_by_end_descending);
  for (guint i = 0; i < order->len; i++)
    {
      CrScalarEdge *edge = order->pdata[i];
      CrScalarNode *to = self->nodes->pdata[edge->to], *from = self->nodes->pdata[edge->from];
      edge->product = to->grad * edge->local;
      from->grad += edge->product;
    }
}

/* ---- entry points ---------------------------------------------------------- */

static const CrRecordStep *
find_step (const CrRunRecord *record,
           int                op,
           int               *backward,
           int               *step)
{
  for (guint c = 0; c < record->backwards->len; c++)
    {
      if (*backward >= 0 && (int) c != *backward)
        continue;
      const CrRecordBackward *call = record->backwards->pdata[c];
      for (guint s = 0; s < call->steps->len; s++)
        {
          const CrRecordStep *st = call->steps->pdata[s];
          if (st->kind != CR_RECORD_STEP_NODE || st->op != op || st->failed)
            continue;
          if (*backward >= 0 && *step >= 0 && (int) s != *step)
            continue;
          *backward = (int) c;
          *step = (int) s;
          return st;
        }
    }
  *backward = -1;
  *step = -1;
  return NULL;
}

gboolean
cr_op_scalars_can_open (const CrRunRecord *record,
                        int                op_index,
                        char             **why_not)
{
  const CrRecordOp *op = op_index >= 0 && (guint) op_index < record->ops->len
                         ? record->ops->pdata[op_index] : NULL;
  Kind kind = KIND_VIEW;
  const char *why = NULL;
  g_autofree char *why_owned = NULL;
  if (!op)
    why = "there is no such op";
  else if (!lookup_kind (op->grad_fn, &kind))
    why_owned = g_strdup_printf ("%s (line %u) is not one the scalar view takes apart",
                                 op->grad_fn ? op->grad_fn : "this op", op->span.line);
  else if (op->outputs->len != 1)
    why = "the op has several outputs";
  else
    {
      gint64 total = 0;
      g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i <= op->inputs->len && !why; i++)
        {
          int id = i < op->inputs->len ? g_array_index (op->inputs, int, i)
                                       : g_array_index (op->outputs, int, 0);
          const CrRecordTensor *t = tensor_at (record, id);
          if (!t)
            {
              if (i == op->inputs->len)
                why = "the record does not keep the op's output";
              continue;
            }
          if (!g_hash_table_add (seen, GINT_TO_POINTER (id)))
            continue;
          gint64 n = numel_of (t);
          total += n;
          if (i < op->inputs->len && !has_values (record, op, t))
            why_owned = g_strdup_printf ("the record does not keep the values of %s",
                                         t->label ? t->label : "its input");
          else if (i < op->inputs->len && t->origin == CR_RECORD_TENSOR_LEAF
                   && !has_saved_values (op, t) && later_iteration (op))
            why_owned = g_strdup_printf ("the record keeps %s's value from before the loop's "
                                         "first iteration only, and this op ran in a later one",
                                         t->label ? t->label : "a leaf");
        }
      if (!why && total > CR_OP_SCALARS_MAX_ELEMENTS)
        why_owned = g_strdup_printf ("its inputs and output hold %" G_GINT64_FORMAT
                                     " elements; the scalar view opens ops of up to %d",
                                     total, CR_OP_SCALARS_MAX_ELEMENTS);
    }
  gboolean can = !why && !why_owned;
  if (why_not)
    *why_not = why_owned ? g_steal_pointer (&why_owned) : g_strdup (why);
  return can;
}

static gint64
node_estimate (const CrRunRecord *record,
               const CrRecordOp  *op,
               Kind               kind)
{
  gint64 n = 0;
  for (guint i = 0; i < op->inputs->len; i++)
    {
      const CrRecordTensor *t = tensor_at (record, g_array_index (op->inputs, int, i));
      n += t ? numel_of (t) : 0;
    }
  const CrRecordTensor *out = tensor_at (record, g_array_index (op->outputs, int, 0));
  n += numel_of (out);
  if (kind == KIND_MATMUL || kind == KIND_ADDMM)
    {
      guint first = kind == KIND_ADDMM ? 1 : 0;
      const CrRecordTensor *A = first < op->inputs->len
                                ? tensor_at (record, g_array_index (op->inputs, int, first)) : NULL;
      n += A && A->ndim > 0 ? numel_of (out) * A->shape[A->ndim - 1] : 0;
    }
  return n;
}

CrOpScalars *
cr_op_scalars_new (const CrRunRecord *record,
                   int                op_index,
                   int                backward,
                   int                step,
                   GError           **error)
{
  g_autofree char *why = NULL;
  if (!cr_op_scalars_can_open (record, op_index, &why))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR, "%s", why);
      return NULL;
    }
  const CrRecordOp *op = record->ops->pdata[op_index];
  Kind kind = KIND_VIEW;
  lookup_kind (op->grad_fn, &kind);
  gint64 estimate = node_estimate (record, op, kind);
  if (estimate > CR_OP_SCALARS_MAX_NODES)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "its scalar graph would have %" G_GINT64_FORMAT " nodes; the scalar view "
                   "draws at most %d", estimate, CR_OP_SCALARS_MAX_NODES);
      return NULL;
    }
  if (op->inputs->len == 0 || (!kind_is_binary (kind) && g_array_index (op->inputs, int, 0) < 0))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "%s (line %u) has an input the record does not keep", op->grad_fn,
                   op->span.line);
      return NULL;
    }

  CrOpScalars *self = g_new0 (CrOpScalars, 1);
  self->op = op_index;
  self->nodes = g_ptr_array_new_with_free_func (node_free);
  self->edges = g_ptr_array_new_with_free_func (edge_free);
  self->inputs = g_array_new (FALSE, FALSE, sizeof (int));
  const CrRecordStep *st = find_step (record, op_index, &backward, &step);
  self->backward = backward;
  self->step = step;
  Build b = {
    .record = record,
    .op = op,
    .kind = kind,
    .self = self,
    .out = tensor_at (record, g_array_index (op->outputs, int, 0)),
    .step = st,
    .bases = g_hash_table_new (NULL, NULL),
    .derived = g_hash_table_new_full (NULL, NULL, NULL, g_free),
  };
  gboolean ok;
  if (kind_is_binary (kind) || kind_is_unary (kind))
    ok = build_elementwise (&b);
  else if (kind == KIND_SUM || kind == KIND_MEAN)
    ok = build_reduction (&b);
  else if (kind == KIND_MATMUL || kind == KIND_ADDMM)
    ok = build_matmul (&b);
  else if (kind == KIND_SOFTMAX || kind == KIND_LOG_SOFTMAX)
    ok = build_softmax (&b);
  else if (kind == KIND_MSE || kind == KIND_BCE_LOGITS)
    ok = build_loss (&b);
  else
    ok = build_view (&b);
  g_hash_table_unref (b.bases);
  g_hash_table_unref (b.derived);
  if (!ok)
    {
      g_propagate_error (error, b.error);
      cr_op_scalars_free (self);
      return NULL;
    }
  self->n_sub_steps = (guint) numel_of (b.out);
  if (st)
    propagate (self, st);

  /* "c = a @ b · MmBackward0: (2, 2) @ (2, 2) → (2, 2)" */
  GString *title = g_string_new (NULL);
  if (op->caption)
    g_string_append_printf (title, "%s · ", op->caption);
  g_string_append_printf (title, "%s: ", op->grad_fn);
  for (guint i = 0; i < op->inputs->len; i++)
    {
      const CrRecordTensor *t = tensor_at (record, g_array_index (op->inputs, int, i));
      g_autofree char *shape = t ? shape_text (t) : g_strdup ("number");
      g_string_append_printf (title, "%s%s", i ? (kind == KIND_MATMUL || kind == KIND_ADDMM) && i
                                                 == op->inputs->len - 1 ? " @ " : ", " : "",
                              shape);
    }
  g_autofree char *out_shape = shape_text (b.out);
  g_string_append_printf (title, " → %s", out_shape);
  self->title = g_string_free (title, FALSE);
  return self;
}

void
cr_op_scalars_free (CrOpScalars *self)
{
  if (!self)
    return;
  g_free (self->title);
  g_ptr_array_unref (self->nodes);
  g_ptr_array_unref (self->edges);
  g_array_unref (self->inputs);
  g_free (self);
}

int
cr_op_scalars_find_node (const CrOpScalars *self,
                         int                tensor,
                         gint64             element)
{
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->tensor == tensor && node->element == element)
        return (int) i;
    }
  return -1;
}

double
cr_op_scalars_grad_upto (const CrOpScalars *self,
                         int                tensor,
                         gint64             element,
                         guint              upto)
{
  int node = cr_op_scalars_find_node (self, tensor, element);
  if (node < 0 || self->step < 0)
    return NAN;
  double sum = 0;
  for (guint i = 0; i < self->edges->len; i++)
    {
      const CrScalarEdge *edge = self->edges->pdata[i];
      if (edge->from == (guint) node && edge->sub_step < upto)
        sum += edge->product;
    }
  return sum;
}

double
cr_op_scalars_sent (const CrOpScalars *self,
                    const CrRunRecord *record,
                    int                tensor,
                    gint64             element)
{
  if (self->backward < 0 || (guint) self->backward >= record->backwards->len)
    return NAN;
  const CrRecordBackward *call = record->backwards->pdata[self->backward];
  if (self->step < 0 || (guint) self->step >= call->steps->len)
    return NAN;
  return step_sent (call->steps->pdata[self->step], tensor, element);
}

gboolean
cr_op_scalars_same_grad (double scalar_graph,
                         double sent)
{
  if (isnan (scalar_graph) || isnan (sent))
    return isnan (scalar_graph) && isnan (sent);
  return fabs (scalar_graph - sent) <= 1e-5 + 1e-4 * fabs (sent);
}

guint
cr_op_scalars_count_disagreements (const CrOpScalars *self,
                                   const CrRunRecord *record)
{
  guint count = 0;
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const CrScalarNode *node = self->nodes->pdata[i];
      if (node->kind != CR_SCALAR_NODE_INPUT)
        continue;
      double sent = cr_op_scalars_sent (self, record, node->tensor, node->element);
      if (!isnan (sent) && !cr_op_scalars_same_grad (node->grad, sent))
        count++;
    }
  return count;
}
