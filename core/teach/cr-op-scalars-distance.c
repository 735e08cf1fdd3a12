/* cr-op-scalars-distance.c — torch.cdist and F.bilinear taken apart
 * (cr-op-scalars.h), as core/ops/cr-ops-distance.c computes them.
 *
 * cdist(x1, x2, p): d[.., i, j] = ‖x1[.., i, :] − x2[.., j, :]‖ₚ, each an
 * output node with an edge from every element of the two rows. The local
 * derivatives are PyTorch's: by x1's element sign(δ)·|δ|^(p−1)/d^(p−1)
 * (δ/d for p = 2, sign(δ) for p = 1), 0 where d is 0; for p = ∞ sign(δ)
 * at every largest |δ| (ties are not shared, as PyTorch's backward does);
 * for p = 0 (a count) 0; by x2's element the same negated.
 *
 * bilinear (TrilinearBackward0 under F.bilinear's reshapes): y[n, o] =
 * Σᵢⱼ x1[n, i]·A[o, i, j]·x2[n, j], each term an inner node of three
 * factors whose edges carry the product of the other two, summed into
 * the output element. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

static double
sign_of (double v)
{
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* One output element of cdist: the two rows' elements, flat in x1 and x2. */
typedef struct {
  const gint64 *left, *right;
  gint64        m;
} Rows;

/* "a[0, 0] − b[1, 0]": member k's difference δ. */
static char *
difference_text (Build                *b,
                 const CrRecordTensor *x1,
                 const CrRecordTensor *x2,
                 const Rows           *rows,
                 gint64                k)
{
  g_autofree char *L = scalars_input_label (b->record, x1, rows->left[k]);
  g_autofree char *R = scalars_input_label (b->record, x2, rows->right[k]);
  return g_strdup_printf ("%s − %s", L, R);
}

/* d's equation and numbers for order p: √(δ₀² + δ₁²), |δ₀| + |δ₁|,
 * max(|δ₀|, |δ₁|), (δ₀ ≠ 0) + (δ₁ ≠ 0), (|δ₀|^p + |δ₁|^p)^(1/p). */
static void
append_distance (Build                *b,
                 const CrRecordTensor *x1,
                 const CrRecordTensor *x2,
                 const Rows           *rows,
                 const double         *delta,
                 double                p,
                 GString              *eq,
                 GString              *num)
{
  const char *open = p == 2 ? "√(" : isinf (p) ? "max(" : p == 1 || p == 0 ? "" : "(";
  g_string_append (eq, open);
  g_string_append (num, open);
  for (gint64 k = 0; k < rows->m; k++)
    {
      g_autofree char *D = difference_text (b, x1, x2, rows, k);
      const char *sep = k == 0 ? "" : isinf (p) ? ", " : " + ";
      g_string_append (eq, sep);
      g_string_append (num, sep);
      if (p == 2)
        g_string_append_printf (eq, "(%s)²", D);
      else if (p == 0)
        g_string_append_printf (eq, "(%s ≠ 0)", D);
      else if (p == 1 || isinf (p))
        g_string_append_printf (eq, "|%s|", D);
      else
        g_string_append_printf (eq, "|%s|^%g", D, p);
      g_string_append (num, p == 0 ? "(" : p == 2 ? "" : "|");
      /* Between bars a negative number needs no parentheses. */
      if (p == 2 || p == 0)
        scalars_append_number (num, delta[k]);
      else
        g_string_append_printf (num, "%.4g", delta[k] == 0 ? 0 : delta[k]);
      g_string_append (num, p == 0 ? " ≠ 0)" : p == 2 ? "²" : "|");
      if (p != 0 && p != 1 && p != 2 && !isinf (p))
        g_string_append_printf (num, "^%g", p);
    }
  if (p == 2 || isinf (p))
    {
      g_string_append_c (eq, ')');
      g_string_append_c (num, ')');
    }
  else if (p != 1 && p != 0)
    {
      g_string_append_printf (eq, ")^(1/%g)", p);
      g_string_append_printf (num, ")^(1/%g)", p);
    }
}

/* ∂d/∂x1's element k (x2's is its negative), with its formula. */
static double
distance_local (double        p,
                double        d,
                double        delta,
                const char   *D,
                const char   *Y,
                char        **text)
{
  if (p == 0)
    {
      *text = g_strdup ("0 (a count)");
      return 0;
    }
  if (isinf (p))
    {
      gboolean largest = fabs (delta) == d;
      *text = largest ? g_strdup_printf ("sign(%s) (the largest |δ|)", D) : g_strdup ("0");
      return largest ? sign_of (delta) : 0;
    }
  if (d == 0 || delta == 0)
    {
      *text = g_strdup_printf ("0 (%s = 0)", d == 0 ? Y : D);
      return 0;
    }
  if (p == 1)
    {
      *text = g_strdup_printf ("sign(%s)", D);
      return sign_of (delta);
    }
  if (p == 2)
    {
      *text = g_strdup_printf ("(%s)/%s", D, Y);
      return delta / d;
    }
  *text = g_strdup_printf ("sign(%s)·|%s|^%g/%s^%g", D, D, p - 1, Y, p - 1);
  return sign_of (delta) * pow (fabs (delta), p - 1) / pow (d, p - 1);
}

static gboolean
build_cdist (Build *b)
{
  const CrRecordTensor *x1 = scalars_input_at (b, 0), *x2 = scalars_input_at (b, 1);
  const CrRecordTensor *out = b->out;
  const CrRecordArgument *order = cr_record_op_argument (b->op, "p");
  if (!x1 || !x2)
    return scalars_fail (b, "has an input the record does not keep");
  if (!order || order->n_values != 1)
    return scalars_fail (b, "has an order p the record does not keep");
  if (x1->ndim < 2 || x2->ndim < 2 || out->ndim < 2 || x1->shape[x1->ndim - 1] != x2->shape[x2->ndim - 1]
      || out->shape[out->ndim - 2] != x1->shape[x1->ndim - 2]
      || out->shape[out->ndim - 1] != x2->shape[x2->ndim - 2])
    return scalars_fail (b, "has shapes that are not (.., P, M) and (.., R, M) into (.., P, R)");
  double p = order->values[0];
  gint64 m = x1->shape[x1->ndim - 1], rows_1 = x1->shape[x1->ndim - 2], rows_2 = x2->shape[x2->ndim - 2];
  /* The batch dims: out's leading ones, each input's broadcast to them. */
  int out_batch = out->ndim - 2;
  gint64 batches = scalars_numel_of (out) / MAX (rows_1 * rows_2, 1);
  const double *v1 = scalars_input_values (b, x1), *v2 = scalars_input_values (b, x2);
  guint base1 = scalars_input_nodes (b, x1), base2 = scalars_input_nodes (b, x2);
  g_autofree gint64 *left = g_new (gint64, MAX (m, 1)), *right = g_new (gint64, MAX (m, 1));
  g_autofree double *delta = g_new (double, MAX (m, 1));
  Rows rows = { left, right, m };
  for (gint64 o = 0; o < scalars_numel_of (out); o++)
    {
      b->sub_step = (guint) o;
      gint64 batch = o / (rows_1 * rows_2), i = (o / rows_2) % rows_1, j = o % rows_2;
      gint64 batch1 = batches > 1 ? scalars_broadcast_source (batch, out_batch, out->shape, x1->ndim - 2,
                                                              x1->shape) : 0;
      gint64 batch2 = batches > 1 ? scalars_broadcast_source (batch, out_batch, out->shape, x2->ndim - 2,
                                                              x2->shape) : 0;
      double d = 0;
      for (gint64 k = 0; k < m; k++)
        {
          left[k] = (batch1 * rows_1 + i) * m + k;
          right[k] = (batch2 * rows_2 + j) * m + k;
          delta[k] = v1[left[k]] - v2[right[k]];
          double a = fabs (delta[k]);
          d = p == 0 ? d + (delta[k] != 0) : isinf (p) ? MAX (d, a) : d + pow (a, p);
        }
      if (p != 0 && !isinf (p))
        d = p == 1 ? d : p == 2 ? sqrt (d) : pow (d, 1 / p);
      g_autofree char *Y = scalars_input_label (b->record, out, o);
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_string_append_printf (eq, "%s = ", Y);
      append_distance (b, x1, x2, &rows, delta, p, eq, num);
      guint node = scalars_add_output (b, o, "‖·‖", g_string_free (eq, FALSE),
                                       g_string_free (num, FALSE), d);
      for (gint64 k = 0; k < m; k++)
        {
          g_autofree char *D = difference_text (b, x1, x2, &rows, k);
          char *text = NULL;
          double local = distance_local (p, d, delta[k], D, Y, &text);
          scalars_add_edge (b, base1 + (guint) left[k], node, local, text);
          scalars_add_edge (b, base2 + (guint) right[k], node, -local,
                            local == 0 ? g_strdup ("0") : g_strdup_printf ("−%s", text));
        }
    }
  return b->error == NULL;
}

/* F.bilinear reshapes its inputs to their own shapes: an unnamed reshape
 * of a tensor to its own shape is that tensor, element for element, and
 * is called by its name (x1[0, 1], not (x1.view(2, 3))[0, 1]). */
static const CrRecordTensor *
same_shape_source (const CrRunRecord    *record,
                   const CrRecordTensor *t)
{
  for (guint hops = 0; hops < 8; hops++)
    {
      const CrRecordOp *op = t->label && t->label[0] == '[' && t->origin == CR_RECORD_TENSOR_RESULT
                             && t->op >= 0 && (guint) t->op < record->ops->len
                             ? record->ops->pdata[t->op] : NULL;
      if (!op || op->inputs->len != 1
          || (g_strcmp0 (op->grad_fn, "ViewBackward0") != 0
              && g_strcmp0 (op->grad_fn, "ReshapeAliasBackward0") != 0
              && g_strcmp0 (op->grad_fn, "UnsafeViewBackward0") != 0))
        return t;
      const CrRecordTensor *in = scalars_tensor_at (record, g_array_index (op->inputs, int, 0));
      if (!in || in->ndim != t->ndim || memcmp (in->shape, t->shape, sizeof (gint64) * (gsize) t->ndim) != 0)
        return t;
      t = in;
    }
  return t;
}

static char *
operand_label (const Build          *b,
               const CrRecordTensor *t,
               gint64                e)
{
  return scalars_input_label (b->record, same_shape_source (b->record, t), e);
}

/* t's nodes, named as operand_label names them. */
static guint
operand_nodes (Build                *b,
               const CrRecordTensor *t)
{
  guint base = scalars_input_nodes (b, t);
  for (gint64 e = 0; same_shape_source (b->record, t) != t && e < scalars_numel_of (t); e++)
    {
      CrScalarNode *node = b->self->nodes->pdata[base + (guint) e];
      g_free (node->label);
      node->label = operand_label (b, t, e);
    }
  return base;
}

static gboolean
build_bilinear (Build *b)
{
  const CrRecordTensor *x1 = scalars_input_at (b, 0), *A = scalars_input_at (b, 1);
  const CrRecordTensor *x2 = scalars_input_at (b, 2);
  if (!x1 || !A || !x2)
    return scalars_fail (b, "has an input the record does not keep");
  if (x1->ndim != 2 || A->ndim != 3 || x2->ndim != 2 || b->out->ndim != 2
      || x1->shape[1] != A->shape[1] || x2->shape[1] != A->shape[2] || x1->shape[0] != x2->shape[0]
      || b->out->shape[0] != x1->shape[0] || b->out->shape[1] != A->shape[0])
    return scalars_fail (b, "has shapes that are not (N, I), (O, I, J), (N, J) into (N, O)");
  gint64 I = A->shape[1], J = A->shape[2], O = A->shape[0];
  const double *v1 = scalars_input_values (b, x1), *va = scalars_input_values (b, A);
  const double *v2 = scalars_input_values (b, x2);
  guint base1 = operand_nodes (b, x1), base_a = operand_nodes (b, A), base2 = operand_nodes (b, x2);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      b->sub_step = (guint) o;
      gint64 n = o / O, k = o % O;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_string_append_printf (eq, "%s = ", Y);
      g_autoptr (GArray) terms = g_array_new (FALSE, FALSE, sizeof (guint));
      double sum = 0;
      for (gint64 i = 0; i < I; i++)
        for (gint64 j = 0; j < J; j++)
          {
            gint64 e1 = n * I + i, ea = (k * I + i) * J + j, e2 = n * J + j;
            double f1 = v1[e1], fa = va[ea], f2 = v2[e2];
            g_autofree char *L1 = operand_label (b, x1, e1);
            g_autofree char *LA = operand_label (b, A, ea);
            g_autofree char *L2 = operand_label (b, x2, e2);
            g_autofree char *term = g_strdup_printf ("%s·%s·%s", L1, LA, L2);
            GString *tn = g_string_new (NULL);
            scalars_append_number (tn, f1);
            g_string_append (tn, "·");
            scalars_append_number (tn, fa);
            g_string_append (tn, "·");
            scalars_append_number (tn, f2);
            guint t = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1, g_strdup (term), "×",
                                        g_strdup (term), g_strdup (tn->str), f1 * fa * f2);
            scalars_add_edge (b, base1 + (guint) e1, t, fa * f2, g_strdup_printf ("%s·%s", LA, L2));
            scalars_add_edge (b, base_a + (guint) ea, t, f1 * f2, g_strdup_printf ("%s·%s", L1, L2));
            scalars_add_edge (b, base2 + (guint) e2, t, f1 * fa, g_strdup_printf ("%s·%s", L1, LA));
            g_array_append_val (terms, t);
            gboolean first = i == 0 && j == 0;
            g_string_append_printf (eq, "%s%s", first ? "" : " + ", term);
            g_string_append_printf (num, "%s%s", first ? "" : " + ", tn->str);
            g_string_free (tn, TRUE);
            sum += f1 * fa * f2;
          }
      guint node = scalars_add_output (b, o, "Σ", g_string_free (eq, FALSE), g_string_free (num, FALSE),
                                       sum);
      for (guint t = 0; t < terms->len; t++)
        scalars_add_edge (b, g_array_index (terms, guint, t), node, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

gboolean
scalars_build_distance (Build *b)
{
  if (b->kind == KIND_CDIST)
    return build_cdist (b);
  return build_bilinear (b);
}
