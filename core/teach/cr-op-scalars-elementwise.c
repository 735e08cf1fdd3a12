/* cr-op-scalars-elementwise.c — elementwise ops taken apart (cr-op-scalars.h):
 * each output element from the elements its operands broadcast to it, a
 * number the script wrote (x * 2) found in the record, and each op's
 * local derivatives as numbers and as formulas. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

/* One operand of an elementwise op: a tensor of the record, or a number the
 * script wrote (x * 2), which has no nodes. */
typedef struct {
  const CrRecordTensor *tensor;   /* NULL: a number */
  guint                 base;     /* its first node */
  double                number;
} Operand;


/* ---- elementwise ops ------------------------------------------------------ */

/* add/sub/rsub's alpha (x.sub(y, alpha=2) is x − 2·y; rsub(x, y, alpha=2) is
 * y − 2·x): the operand it scales, 1 or 0, and the factor; 1 without one. */
static double
op_alpha (const Build *b)
{
  if (b->kind != KIND_ADD && b->kind != KIND_SUB && b->kind != KIND_RSUB)
    return 1;
  const CrRecordArgument *a = cr_record_op_argument (b->op, "alpha");
  return a && a->n_values == 1 && isfinite (a->values[0]) ? a->values[0] : 1;
}

static guint
alpha_operand (Kind kind)
{
  return kind == KIND_RSUB ? 0 : 1;
}

/* The number an op was given in place of a tensor (x * 2's 2): kept as a
 * saved 0-d value, or else found from the values around it. */
static gboolean
find_number (Build         *b,
             const Operand *known,
             guint          which,     /* the number's side, 0 or 1 */
             double        *out)
{
  /* The record's own: x + 1's "number", x ** 2's "exponent" (x ** 2 of an
   * x of ones says nothing of it in the values). */
  const CrRecordArgument *given = cr_record_op_argument (b->op, "number");
  if (!given && b->kind == KIND_POW)
    given = cr_record_op_argument (b->op, "exponent");
  if (given && given->n_values == 1)
    {
      *out = given->values[0];
      return TRUE;
    }
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
  for (gint64 j = 0; j < scalars_numel_of (b->out); j++)
    {
      double y = scalars_output_value (b, j);
      double x = scalars_input_values (b, t)[scalars_broadcast_source (j, b->out->ndim, b->out->shape, t->ndim,
                                                    t->shape)];
      double c = NAN;
      double alpha = op_alpha (b);
      switch (b->kind)
        {
        case KIND_ADD: c = which == 1 ? (y - x) / alpha : y - alpha * x; break;
        case KIND_SUB: c = which == 1 ? (x - y) / alpha : y + alpha * x; break;
        case KIND_RSUB: c = which == 1 ? y + alpha * x : (x - y) / alpha; break;
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
  return scalars_fail (b, "was given a number the record does not keep");
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
              double c,
              double alpha)
{
  switch (kind)
    {
    case KIND_ADD: return a + alpha * c;
    case KIND_SUB: return a - alpha * c;
    case KIND_RSUB: return c - alpha * a;
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
              double      alpha,
              const char *A,
              const char *C,
              char      **text)
{
  switch (kind)
    {
    case KIND_ADD: case KIND_SUB: case KIND_RSUB:
      {
        /* 1 for the plain operand; ±alpha for the one alpha scales. */
        double local = which == alpha_operand (kind) ? alpha : 1;
        if ((kind == KIND_SUB && which == 1) || (kind == KIND_RSUB && which == 0))
          local = -local;
        GString *t = g_string_new (local < 0 ? "−" : "");
        scalars_append_number (t, fabs (local));
        *text = g_string_free (t, FALSE);
        return local;
      }
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
  return scalars_input_label (b->record, o->tensor, element);
}

gboolean
scalars_build_elementwise (Build *b)
{
  const CrRecordOp *op = b->op;
  guint arity = scalars_kind_is_binary (b->kind) ? 2 : 1;
  Operand operands[2] = { { 0 } };
  guint known = G_MAXUINT;
  for (guint k = 0; k < arity; k++)
    {
      int id = k < op->inputs->len ? g_array_index (op->inputs, int, k) : -1;
      operands[k].tensor = scalars_tensor_at (b->record, id);
      if (operands[k].tensor)
        {
          if (!scalars_broadcasts_to (operands[k].tensor, b->out))
            return scalars_fail (b, "has an input whose shape does not broadcast to its output's");
          known = k;
        }
    }
  if (known == G_MAXUINT)
    return scalars_fail (b, "has no tensor input the record keeps");
  for (guint k = 0; k < arity; k++)
    {
      if (operands[k].tensor)
        operands[k].base = scalars_input_nodes (b, operands[k].tensor);
      else if (!find_number (b, &operands[known], k, &operands[k].number))
        return FALSE;
    }

  double alpha = op_alpha (b);
  for (gint64 j = 0; j < scalars_numel_of (b->out); j++)
    {
      b->sub_step = (guint) j;
      double v[2] = { 0, 0 };
      gint64 src[2] = { 0, 0 };
      g_autofree char *L0 = NULL, *L1 = NULL;
      for (guint k = 0; k < arity; k++)
        {
          const CrRecordTensor *t = operands[k].tensor;
          src[k] = t ? scalars_broadcast_source (j, b->out->ndim, b->out->shape, t->ndim, t->shape) : 0;
          v[k] = t ? scalars_input_values (b, t)[src[k]] : operands[k].number;
        }
      L0 = operand_label (b, &operands[0], src[0]);
      L1 = arity == 2 ? operand_label (b, &operands[1], src[1]) : NULL;
      g_autofree char *Y = scalars_input_label (b->record, b->out, j);
      double y = scalars_output_value (b, j);
      char *equation, *numbers;
      double computed;
      GString *n = g_string_new (NULL);
      if (arity == 2)
        {
          computed = binary_value (b->kind, v[0], v[1], alpha);
          /* rsub reads other − self; alpha's factor goes before its operand. */
          guint first = b->kind == KIND_RSUB ? 1 : 0, second = 1 - first;
          const char *labels[2] = { L0, L1 };
          g_autofree char *factor = NULL;
          if (alpha != 1)
            {
              GString *f = g_string_new (NULL);
              scalars_append_number (f, alpha);
              g_string_append (f, "·");
              factor = g_string_free (f, FALSE);
            }
          equation = g_strdup_printf ("%s = %s %s %s%s", Y, labels[first], binary_symbol (b->kind),
                                      factor ? factor : "", labels[second]);
          scalars_append_number (n, v[first]);
          g_string_append_printf (n, " %s ", binary_symbol (b->kind));
          if (factor)
            g_string_append (n, factor);
          scalars_append_number (n, v[second]);
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
          scalars_append_number (n, v[0]);
          g_string_append_c (n, ')');
        }
      numbers = g_string_free (n, FALSE);
      if (isnan (y))
        y = computed;  /* the record keeps no output value: the local derivatives use ours */
      guint out_node = scalars_add_output (b, j, arity == 2 ? binary_symbol (b->kind)
                                                    : unary_name (b->kind),
                                   equation, numbers, computed);
      for (guint k = 0; k < arity; k++)
        {
          if (!operands[k].tensor)
            continue;
          char *text = NULL;
          double local = arity == 2
                         ? binary_local (b->kind, k, v[0], v[1], y, alpha, L0, L1, &text)
                         : unary_local (b->kind, v[0], y, L0, Y, &text);
          scalars_add_edge (b, operands[k].base + (guint) src[k], out_node, local, text);
        }
    }
  return b->error == NULL;
}

