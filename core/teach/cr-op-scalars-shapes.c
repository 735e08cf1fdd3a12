/* cr-op-scalars-shapes.c — the ops that mix elements, taken apart
 * (cr-op-scalars.h): sum and mean over the record's dims, matrix
 * products with their inner products as nodes, softmax, and views. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

/* ---- reductions ------------------------------------------------------------ */

/* For each element of `in`, the element of the output it is reduced into
 * when the dims in `mask` are summed (kept as size 1 or dropped as the
 * output's shape says); FALSE when the output's shape is not that. */
gboolean
scalars_reduce_map (const CrRecordTensor *in,
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
  for (gint64 e = 0; e < scalars_numel_of (in); e++)
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

/* The dims the record says op reduced over, as a mask of in's dims:
 * SumBackward0/MeanBackward0 all of them, the others their "dim" (() is
 * all, as torch.sum(x, ()) is). FALSE when the record keeps none. */
gboolean
scalars_reduced_mask (Build                *b,
                      const CrRecordTensor *in,
                      guint                *mask)
{
  const CrRecordArgument *dim = cr_record_op_argument (b->op, "dim");
  guint all = in->ndim ? (1u << in->ndim) - 1 : 0;
  if (g_str_has_suffix (b->op->grad_fn, "Backward0") || (dim && dim->n_values == 0))
    {
      *mask = all;
      return TRUE;
    }
  if (!dim || (dim->kind != CR_RECORD_ARGUMENT_INTS && dim->kind != CR_RECORD_ARGUMENT_INT))
    return FALSE;
  return scalars_dims_mask (dim, in->ndim, mask);
}

gboolean
scalars_dims_mask (const CrRecordArgument *dim,
                   int                     ndim,
                   guint                  *mask)
{
  *mask = ndim ? (1u << ndim) - 1 : 0;
  if (!dim || dim->n_values == 0)
    return TRUE;
  *mask = 0;
  for (int i = 0; i < dim->n_values; i++)
    {
      int d = scalars_wrap_dim ((gint64) dim->values[i], ndim);
      if (d < 0)
        return FALSE;
      *mask |= 1u << d;
    }
  return TRUE;
}

int
scalars_wrap_dim (gint64 dim,
                  int    ndim)
{
  gint64 d = dim < 0 ? dim + MAX (ndim, 1) : dim;
  return d >= 0 && d < MAX (ndim, 1) ? (int) d : -1;
}

gboolean
scalars_build_reduction (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  gboolean mean = b->kind == KIND_MEAN;
  gint64 in_numel = scalars_numel_of (in), out_numel = scalars_numel_of (b->out);
  g_autofree gint64 *map = g_new (gint64, MAX (in_numel, 1));
  guint mask;
  if (!scalars_reduced_mask (b, in, &mask))
    return scalars_fail (b, "reduces over dims the record does not keep");
  if (!scalars_reduce_map (in, b->out, mask, map))
    return scalars_fail (b, "has an output whose shape is not its input's reduced over its dims");
  guint base = scalars_input_nodes (b, in);
  for (gint64 j = 0; j < out_numel; j++)
    {
      b->sub_step = (guint) j;
      GString *eq = g_string_new (NULL), *n = g_string_new (NULL);
      g_autofree char *Y = scalars_input_label (b->record, b->out, j);
      g_string_append_printf (eq, "%s = %s", Y, mean ? "(" : "");
      if (mean)
        g_string_append_c (n, '(');
      double sum = 0;
      guint count = 0;
      for (gint64 e = 0; e < in_numel; e++)
        if (map[e] == j)
          {
            g_autofree char *X = scalars_input_label (b->record, in, e);
            g_string_append_printf (eq, "%s%s", count ? " + " : "", X);
            if (count)
              g_string_append (n, " + ");
            scalars_append_number (n, scalars_input_values (b, in)[e]);
            sum += scalars_input_values (b, in)[e];
            count++;
          }
      if (mean)
        {
          g_string_append_printf (eq, ")/%u", count);
          g_string_append_printf (n, ")/%u", count);
        }
      guint out_node = scalars_add_output (b, j, mean ? "mean" : "Σ", g_string_free (eq, FALSE),
                                   g_string_free (n, FALSE), mean ? sum / count : sum);
      for (gint64 e = 0; e < in_numel; e++)
        if (map[e] == j)
          scalars_add_edge (b, base + (guint) e, out_node, mean ? 1.0 / count : 1.0,
                    mean ? g_strdup_printf ("1/%u", count) : g_strdup ("1"));
    }
  return b->error == NULL;
}

/* ---- matrix products ------------------------------------------------------- */

/* C = A @ B (+ bias): A as (n, k), B as (k, m); a 1-d A is a row, a 1-d B a
 * column; bmm's a batch of them. Each product A[i, kk]·B[kk, j] is an inner
 * node; C[i, j] their sum. */
gboolean
scalars_build_matmul (Build *b)
{
  guint first = b->kind == KIND_ADDMM ? 1 : 0;
  if (b->op->inputs->len != first + 2)
    return scalars_fail (b, "has %u inputs where %u are expected", b->op->inputs->len, first + 2);
  const CrRecordTensor *bias = first ? scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0))
                                     : NULL;
  const CrRecordTensor *A = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, first));
  const CrRecordTensor *B = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, first + 1));
  if (!A || !B || (first && !bias))
    return scalars_fail (b, "has an input the record does not keep");
  /* bmm: a batch of (n, k) @ (k, m), both 3-d. */
  gboolean batched = A->ndim == 3 && B->ndim == 3 && A->shape[0] == B->shape[0] && !bias;
  if (!batched && (A->ndim < 1 || A->ndim > 2 || B->ndim < 1 || B->ndim > 2))
    return scalars_fail (b, "multiplies tensors that are not matrices or vectors");
  int row = batched ? 1 : 0;
  gint64 batch = batched ? A->shape[0] : 1;
  gint64 n = A->ndim >= 2 ? A->shape[row] : 1, k = A->shape[A->ndim - 1];
  gint64 m = B->ndim >= 2 ? B->shape[B->ndim - 1] : 1, kb = B->shape[row];
  if (k != kb || scalars_numel_of (b->out) != batch * n * m)
    return scalars_fail (b, "has shapes that do not multiply");
  if (bias && !scalars_broadcasts_to (bias, b->out))
    return scalars_fail (b, "has a bias whose shape does not broadcast to its output's");
  /* addmm's beta·bias + alpha·(A @ B), as the record keeps them. */
  const CrRecordArgument *alpha_arg = cr_record_op_argument (b->op, "alpha");
  const CrRecordArgument *beta_arg = cr_record_op_argument (b->op, "beta");
  double alpha = alpha_arg && alpha_arg->n_values == 1 ? alpha_arg->values[0] : 1;
  double beta = beta_arg && beta_arg->n_values == 1 ? beta_arg->values[0] : 1;
  guint a_base = scalars_input_nodes (b, A), b_base = scalars_input_nodes (b, B);
  guint bias_base = bias ? scalars_input_nodes (b, bias) : 0;
  for (gint64 o = 0; o < batch * n * m; o++)
    {
      gint64 t = o / (n * m), i = (o / m) % n, j = o % m;
      b->sub_step = (guint) o;
      GArray *products = g_array_new (FALSE, FALSE, sizeof (guint));
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_string_append_printf (eq, "%s = ", Y);
      double sum = 0;
      gint64 bias_at = 0;
      if (bias)
        {
          bias_at = scalars_broadcast_source (o, b->out->ndim, b->out->shape, bias->ndim, bias->shape);
          g_autofree char *Bi = scalars_input_label (b->record, bias, bias_at);
          if (beta != 1)
            {
              scalars_append_number (eq, beta);
              g_string_append (eq, "·");
              scalars_append_number (num, beta);
              g_string_append (num, "·");
            }
          g_string_append_printf (eq, "%s + ", Bi);
          scalars_append_number (num, scalars_input_values (b, bias)[bias_at]);
          g_string_append (num, " + ");
        }
      if (alpha != 1)
        {
          scalars_append_number (eq, alpha);
          g_string_append (eq, "·(");
          scalars_append_number (num, alpha);
          g_string_append (num, "·(");
        }
      for (gint64 kk = 0; kk < k; kk++)
        {
          gint64 ae = (t * n + i) * k + kk, be = (t * k + kk) * m + j;
          double av = scalars_input_values (b, A)[ae], bv = scalars_input_values (b, B)[be];
          g_autofree char *AL = scalars_input_label (b->record, A, ae), *BL = scalars_input_label (b->record, B, be);
          guint p = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1,
                              g_strdup_printf ("%s·%s", AL, BL), "×",
                              g_strdup_printf ("%s·%s", AL, BL), NULL, av * bv);
          GString *pn = g_string_new (NULL);
          scalars_append_number (pn, av);
          g_string_append (pn, "·");
          scalars_append_number (pn, bv);
          ((CrScalarNode *) b->self->nodes->pdata[p])->numbers = g_string_free (pn, FALSE);
          scalars_add_edge (b, a_base + (guint) ae, p, bv, g_strdup (BL));
          scalars_add_edge (b, b_base + (guint) be, p, av, g_strdup (AL));
          g_array_append_val (products, p);
          g_string_append_printf (eq, "%s%s·%s", kk ? " + " : "", AL, BL);
          if (kk)
            g_string_append (num, " + ");
          scalars_append_number (num, av);
          g_string_append (num, "·");
          scalars_append_number (num, bv);
          sum += av * bv;
        }
      if (alpha != 1)
        {
          g_string_append_c (eq, ')');
          g_string_append_c (num, ')');
        }
      double value = alpha * sum + (bias ? beta * scalars_input_values (b, bias)[bias_at] : 0);
      guint out_node = scalars_add_output (b, o, "+", g_string_free (eq, FALSE),
                                   g_string_free (num, FALSE), value);
      if (bias)
        scalars_add_edge (b, bias_base + (guint) bias_at, out_node, beta,
                          beta != 1 ? g_strdup_printf ("%g", beta) : g_strdup ("1"));
      for (guint q = 0; q < products->len; q++)
        scalars_add_edge (b, g_array_index (products, guint, q), out_node, alpha,
                          alpha != 1 ? g_strdup_printf ("%g", alpha) : g_strdup ("1"));
      g_array_unref (products);
    }
  return b->error == NULL;
}

/* ---- softmax --------------------------------------------------------------- */

/* y = softmax(x) or log_softmax(x) along the record's dim:
 * ∂y_j/∂x_i = y_j·(δij − y_i), or δij − softmax_i. */
gboolean
scalars_build_softmax (Build *b)
{
  gboolean log_form = b->kind == KIND_LOG_SOFTMAX;
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  if (in->ndim != b->out->ndim || memcmp (in->shape, b->out->shape,
                                          sizeof (gint64) * (gsize) in->ndim) != 0)
    return scalars_fail (b, "has an output of another shape than its input");
  gint64 numel = scalars_numel_of (in);
  g_autofree double *soft = g_new (double, MAX (numel, 1));
  g_autofree gint64 *map = g_new (gint64, MAX (numel, 1));
  const CrRecordArgument *arg = cr_record_op_argument (b->op, "dim");
  int dim = arg && arg->kind == CR_RECORD_ARGUMENT_INT ? scalars_wrap_dim ((gint64) arg->values[0], in->ndim)
                                                       : -1;
  if (dim < 0)
    return scalars_fail (b, "has a dim the record does not keep");
  /* Slices along dim: the elements that map to the same reduced element. */
  CrRecordTensor reduced = *in;
  reduced.ndim = 0;
  for (int k = 0; k < in->ndim; k++)
    if (k != dim)
      reduced.shape[reduced.ndim++] = in->shape[k];
  if (!scalars_reduce_map (in, &reduced, in->ndim ? 1u << dim : 0, map))
    return scalars_fail (b, "has a dim its input does not have");
  gint64 slices = scalars_numel_of (&reduced);
  g_autofree double *top = g_new (double, MAX (slices, 1)), *total = g_new0 (double, MAX (slices, 1));
  const double *x = scalars_input_values (b, in);
  for (gint64 s = 0; s < slices; s++)
    top[s] = -INFINITY;
  for (gint64 e = 0; e < numel; e++)
    top[map[e]] = MAX (top[map[e]], x[e]);
  for (gint64 e = 0; e < numel; e++)
    total[map[e]] += exp (x[e] - top[map[e]]);
  for (gint64 e = 0; e < numel; e++)
    soft[e] = exp (x[e] - top[map[e]]) / total[map[e]];
  guint base = scalars_input_nodes (b, in);
  for (gint64 j = 0; j < numel; j++)
    {
      b->sub_step = (guint) j;
      g_autofree char *Y = scalars_input_label (b->record, b->out, j), *X = scalars_input_label (b->record, in, j);
      GString *eq = g_string_new (NULL);
      g_string_append_printf (eq, log_form ? "%s = %s − log(" : "%s = exp(%s)/(", Y, X);
      guint count = 0;
      for (gint64 i = 0; i < numel; i++)
        if (map[i] == map[j])
          {
            g_autofree char *Xi = scalars_input_label (b->record, in, i);
            g_string_append_printf (eq, "%sexp(%s)", count++ ? " + " : "", Xi);
          }
      g_string_append_c (eq, ')');
      double y = log_form ? log (soft[j]) : soft[j];
      guint out_node = scalars_add_output (b, j, log_form ? "log softmax" : "softmax",
                                   g_string_free (eq, FALSE), NULL, y);
      for (gint64 i = 0; i < numel; i++)
        {
          if (map[i] != map[j])
            continue;
          g_autofree char *Xi = scalars_input_label (b->record, in, i);
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
              g_autofree char *Yi = scalars_input_label (b->record, b->out, i);
              local = soft[j] * ((i == j ? 1 : 0) - soft[i]);
              text = i == j ? g_strdup_printf ("%s·(1 − %s)", Y, Y)
                            : g_strdup_printf ("−%s·%s", Y, Yi);
            }
          scalars_add_edge (b, base + (guint) i, out_node, local, text);
        }
    }
  return b->error == NULL;
}

/* ---- views ----------------------------------------------------------------- */

/* x.transpose(d0, d1), x.permute(dims): output dim i is input dim dims[i]. */
gint64
scalars_permute_source (const CrRecordOp     *op,
                        const CrRecordTensor *in,
                        const CrRecordTensor *out,
                        gint64                j)
{
  int dims[CR_MAX_DIMS];
  if (in->ndim != out->ndim || in->ndim < 1)
    return -1;
  const CrRecordArgument *order = cr_record_op_argument (op, "dims");
  const CrRecordArgument *d0 = cr_record_op_argument (op, "dim0");
  const CrRecordArgument *d1 = cr_record_op_argument (op, "dim1");
  for (int d = 0; d < in->ndim; d++)
    dims[d] = d;
  if (order && order->n_values == in->ndim)
    for (int d = 0; d < in->ndim; d++)
      dims[d] = scalars_wrap_dim ((gint64) order->values[d], in->ndim);
  else if (d0 && d1 && d0->n_values == 1 && d1->n_values == 1)
    {
      int a = scalars_wrap_dim ((gint64) d0->values[0], in->ndim);
      int c = scalars_wrap_dim ((gint64) d1->values[0], in->ndim);
      if (a < 0 || c < 0)
        return -1;
      dims[a] = c;
      dims[c] = a;
    }
  else
    return -1;
  gint64 index[CR_MAX_DIMS], in_index[CR_MAX_DIMS] = { 0 };
  for (int d = out->ndim - 1; d >= 0; d--)
    {
      index[d] = out->shape[d] > 0 ? j % out->shape[d] : 0;
      j = out->shape[d] > 0 ? j / out->shape[d] : 0;
    }
  for (int d = 0; d < out->ndim; d++)
    {
      if (dims[d] < 0)
        return -1;
      in_index[dims[d]] = index[d];
    }
  gint64 flat = 0;
  for (int d = 0; d < in->ndim; d++)
    flat = flat * in->shape[d] + in_index[d];
  return flat;
}

gboolean
scalars_build_view (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  gint64 out_numel = scalars_numel_of (b->out);
  if (b->kind != KIND_EXPAND && scalars_numel_of (in) != out_numel)
    return scalars_fail (b, "has an output of another size than its input");
  if (b->kind == KIND_EXPAND && !scalars_broadcasts_to (in, b->out))
    return scalars_fail (b, "expands to a shape its input does not broadcast to");
  guint base = scalars_input_nodes (b, in);
  for (gint64 j = 0; j < out_numel; j++)
    {
      b->sub_step = (guint) j;
      gint64 src = j;
      if (b->kind == KIND_T && in->ndim == 2)
        src = (j % in->shape[0]) * in->shape[1] + j / in->shape[0];
      else if (b->kind == KIND_EXPAND)
        src = scalars_broadcast_source (j, b->out->ndim, b->out->shape, in->ndim, in->shape);
      else if (b->kind == KIND_PERMUTE)
        src = scalars_permute_source (b->op, in, b->out, j);
      if (src < 0 || src >= scalars_numel_of (in))
        return scalars_fail (b, "moves dims the record does not keep");
      g_autofree char *Y = scalars_input_label (b->record, b->out, j), *X = scalars_input_label (b->record, in, src);
      guint out_node = scalars_add_output (b, j, "=", g_strdup_printf ("%s = %s", Y, X), NULL,
                                   scalars_input_values (b, in)[src]);
      scalars_add_edge (b, base + (guint) src, out_node, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

