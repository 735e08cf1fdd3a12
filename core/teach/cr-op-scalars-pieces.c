/* cr-op-scalars-pieces.c — the ops that move elements without computing
 * (cr-op-scalars.h): gather, index_select, indexing and embedding, whose
 * record keeps where each output element came from ("positions"); select,
 * slices, cat and stack along their recorded dim. Each output element is
 * one input element, with the local derivative 1. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

void
scalars_add_copy (Build                *b,
          const CrRecordTensor *in,
          guint                 base,
          gint64                o,
          gint64                from)
{
  b->sub_step = b->sub_step_base + (guint) o;
  g_autofree char *Y = scalars_input_label (b->record, b->out, o);
  g_autofree char *X = scalars_input_label (b->record, in, from);
  guint out = scalars_add_output (b, o, "=", g_strdup_printf ("%s = %s", Y, X), NULL,
                                  scalars_input_values (b, in)[from]);
  scalars_add_edge (b, base + (guint) from, out, 1, g_strdup ("1"));
}

void
scalars_unravel (gint64        e,
         int           ndim,
         const gint64 *shape,
         gint64       *index)
{
  for (int d = ndim - 1; d >= 0; d--)
    {
      index[d] = shape[d] > 0 ? e % shape[d] : 0;
      e = shape[d] > 0 ? e / shape[d] : 0;
    }
}

gint64
scalars_ravel (int           ndim,
       const gint64 *shape,
       const gint64 *index)
{
  gint64 flat = 0;
  for (int d = 0; d < ndim; d++)
    flat = flat * shape[d] + index[d];
  return flat;
}

/* gather, index_select, x[idx], embedding: the op's saved positions say,
 * for each output element, the (flat) input element it is. */
gboolean
scalars_build_take (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  gint64 out_numel = scalars_numel_of (b->out), in_numel = scalars_numel_of (in);
  const CrTensorSnapshot *positions = scalars_positions (b->op, out_numel);
  if (!positions)
    return scalars_fail (b, "takes elements from places the record does not keep");
  /* An embedding's padding row gets no gradient (PyTorch's convention, not
   * the derivative of a copy), and scale_grad_by_freq divides a row's
   * gradient by how often the indices name it. */
  const CrRecordArgument *padding = cr_record_op_argument (b->op, "padding_idx");
  const CrRecordArgument *scale = cr_record_op_argument (b->op, "scale_grad_by_freq");
  gboolean by_freq = scale && scale->n_values && scale->values[0];
  gint64 row_size = in->ndim == 2 ? in->shape[1] : 0, rows = in->ndim == 2 ? in->shape[0] : 0;
  gint64 padding_row = padding && padding->n_values ? (gint64) padding->values[0] : G_MININT64;
  if (padding_row < 0 && padding_row != G_MININT64)
    padding_row += rows;
  if ((padding_row != G_MININT64 || by_freq) && row_size < 1)
    return scalars_fail (b, "has padding_idx or scale_grad_by_freq on no 2-d weight");
  g_autofree gint64 *uses = g_new0 (gint64, MAX (rows, 1));
  for (gint64 o = 0; by_freq && o < out_numel; o += row_size)
    {
      gint64 row = (gint64) positions->values[o] / row_size;
      if (row >= 0 && row < rows)
        uses[row]++;
    }
  /* masked_select broadcasts its input to the mask's shape, and its
   * positions are in that shape: each goes back to the element it reads. */
  int wide_ndim = 0;
  gint64 wide[CR_MAX_DIMS];
  for (guint s = 0; s < b->op->saved->len && g_strcmp0 (b->op->grad_fn, "MaskedSelectBackward0") == 0; s++)
    {
      const CrRecordSaved *mask = b->op->saved->pdata[s];
      if (g_strcmp0 (mask->name, "mask") != 0)
        continue;
      wide_ndim = MAX (mask->ndim, in->ndim);
      for (int d = 0; d < wide_ndim; d++)
        {
          int dm = d - (wide_ndim - mask->ndim), di = d - (wide_ndim - in->ndim);
          wide[d] = MAX (dm >= 0 ? mask->shape[dm] : 1, di >= 0 ? in->shape[di] : 1);
        }
    }
  guint base = scalars_input_nodes (b, in);
  for (gint64 o = 0; o < out_numel; o++)
    {
      gint64 from = (gint64) positions->values[o];
      if (wide_ndim > 0)
        from = scalars_broadcast_source (from, wide_ndim, wide, in->ndim, in->shape);
      if (from < 0 || from >= in_numel)
        return scalars_fail (b, "takes an element from outside its input");
      scalars_add_copy (b, in, base, o, from);
      gint64 row = row_size ? from / row_size : -1;
      CrScalarEdge *edge = b->self->edges->pdata[b->self->edges->len - 1];
      if (row == padding_row)
        {
          edge->local = 0;
          g_free (edge->local_text);
          edge->local_text = g_strdup ("0 (padding_idx: no gradient)");
        }
      else if (by_freq && uses[row] > 1)
        {
          edge->local = 1.0 / (double) uses[row];
          g_free (edge->local_text);
          edge->local_text = g_strdup_printf ("1/%" G_GINT64_FORMAT " (scale_grad_by_freq)", uses[row]);
        }
    }
  return b->error == NULL;
}

/* An int argument of op, or `fallback`. */
static gint64
int_argument (const CrRecordOp *op,
              const char       *name,
              gint64            fallback)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  return a && a->n_values == 1 ? (gint64) a->values[0] : fallback;
}

/* select: out is in less dim, at index; slice: out's index i along dim is
 * in's start + i·step. */
gint64
scalars_view_source (const CrRecordOp     *op,
                     Kind                  kind,
                     const CrRecordTensor *in,
                     const CrRecordTensor *out,
                     gint64                j)
{
  gboolean select = kind == KIND_SELECT;
  int dim = scalars_wrap_dim (int_argument (op, "dim", G_MININT64), in->ndim);
  if (dim < 0 || in->ndim < 1 || out->ndim != in->ndim - (select ? 1 : 0))
    return -1;
  gint64 at = select ? int_argument (op, "index", G_MININT64) : int_argument (op, "start", -1);
  gint64 step = select ? 0 : int_argument (op, "step", 1);
  if (select && at < 0 && at != G_MININT64)
    at += in->shape[dim];
  gint64 out_index[CR_MAX_DIMS] = { 0 }, in_index[CR_MAX_DIMS] = { 0 };
  scalars_unravel (j, out->ndim, out->shape, out_index);
  for (int d = 0, k = 0; d < in->ndim; d++)
    {
      if (d == dim)
        in_index[d] = select ? at : at + out_index[k++] * step;
      else
        in_index[d] = out_index[k++];
      if (in_index[d] < 0 || in_index[d] >= in->shape[d] || (d != dim && k > out->ndim))
        return -1;
    }
  return scalars_ravel (in->ndim, in->shape, in_index);
}

gint64
cr_op_scalars_view_source (const CrRecordOp     *op,
                           const CrRecordTensor *in,
                           const CrRecordTensor *out,
                           gint64                j)
{
  Kind kind;
  if (!op || !in || !out || !scalars_lookup_kind (op->grad_fn, &kind)
      || (kind != KIND_SELECT && kind != KIND_SLICE))
    return -1;
  return scalars_view_source (op, kind, in, out, j);
}

/* x.select(dim, index), x[i], x[..., i]; x[a:b:c]. */
static gboolean
build_view_piece (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  guint base = scalars_input_nodes (b, in);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      gint64 from = scalars_view_source (b->op, b->kind, in, b->out, o);
      if (from < 0)
        return scalars_fail (b, "views a place the record's dim and index do not give");
      scalars_add_copy (b, in, base, o, from);
    }
  return b->error == NULL;
}

gboolean
scalars_build_select (Build *b)
{
  return build_view_piece (b);
}

gboolean
scalars_build_slice (Build *b)
{
  return build_view_piece (b);
}

/* torch.cat(xs, dim): output index i along dim is in the input whose
 * stretch of dim holds it; torch.stack(xs, dim): dim is new, and its index
 * picks the input. */
gboolean
scalars_build_join (Build *b)
{
  gboolean stack = b->kind == KIND_STACK;
  guint n_inputs = b->op->inputs->len;
  const CrRecordArgument *dim_arg = cr_record_op_argument (b->op, "dim");
  int dim = dim_arg && dim_arg->n_values == 1 ? scalars_wrap_dim ((gint64) dim_arg->values[0], b->out->ndim)
                                              : -1;
  if (dim < 0 || n_inputs == 0)
    return scalars_fail (b, "joins along a dim the record does not keep");
  g_autofree const CrRecordTensor **ins = g_new0 (const CrRecordTensor *, n_inputs);
  g_autofree guint *bases = g_new0 (guint, n_inputs);
  for (guint k = 0; k < n_inputs; k++)
    {
      ins[k] = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, k));
      if (!ins[k])
        return scalars_fail (b, "has an input the record does not keep");
      if (ins[k]->ndim != b->out->ndim - (stack ? 1 : 0))
        return scalars_fail (b, "has an input of another number of dims than its output");
      bases[k] = scalars_input_nodes (b, ins[k]);
    }
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    {
      gint64 index[CR_MAX_DIMS] = { 0 }, in_index[CR_MAX_DIMS] = { 0 };
      scalars_unravel (o, b->out->ndim, b->out->shape, index);
      guint k = 0;
      if (stack)
        {
          k = (guint) index[dim];
          for (int d = 0, j = 0; d < b->out->ndim; d++)
            if (d != dim)
              in_index[j++] = index[d];
        }
      else
        {
          gint64 along = index[dim];
          while (k < n_inputs && along >= ins[k]->shape[dim])
            along -= ins[k++]->shape[dim];
          memcpy (in_index, index, sizeof (gint64) * (gsize) b->out->ndim);
          in_index[dim] = along;
        }
      if (k >= n_inputs)
        return scalars_fail (b, "has an output larger than its inputs together");
      scalars_add_copy (b, ins[k], bases[k], o, scalars_ravel (ins[k]->ndim, ins[k]->shape, in_index));
    }
  return b->error == NULL;
}

/* x.masked_fill(mask, value): where the mask (saved, broadcast to x) is
 * set, the output is the value, and x's element gets no gradient (an edge
 * of local derivative 0 says so); elsewhere a copy of x's element. A value
 * given as a tensor is an input, its element's edges 1; one given as a
 * number is read from the output, the record keeping no number of it. */
gboolean
scalars_build_masked_fill (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  const CrRecordTensor *value = b->op->inputs->len > 1
                                ? scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 1))
                                : NULL;
  const CrRecordSaved *mask = NULL;
  for (guint s = 0; s < b->op->saved->len; s++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[s];
      if (g_strcmp0 (saved->name, "mask") == 0 && saved->value)
        mask = saved;
    }
  gint64 n = scalars_numel_of (b->out);
  if (!mask || mask->value->n_values != mask->value->numel || scalars_numel_of (in) != n)
    return scalars_fail (b, "fills where a mask the record does not keep says");
  const CrTensorSnapshot *m = mask->value;
  if (m->ndim > b->out->ndim)
    return scalars_fail (b, "has a mask of more dims than its input");
  for (int d = 0; d < m->ndim; d++)
    if (m->shape[d] != 1 && m->shape[d] != b->out->shape[d + b->out->ndim - m->ndim])
      return scalars_fail (b, "has a mask that does not broadcast to its input");
  guint base = scalars_input_nodes (b, in);
  guint value_node = value ? scalars_input_nodes (b, value) : 0;
  double fill = value ? scalars_input_values (b, value)[0] : NAN;
  for (gint64 o = 0; o < n; o++)
    {
      b->sub_step = (guint) o;
      gint64 at = scalars_broadcast_source (o, b->out->ndim, b->out->shape, m->ndim, m->shape);
      if (m->values[at] == 0)
        {
          scalars_add_copy (b, in, base, o, o);
          continue;
        }
      double v = value ? fill : scalars_output_value (b, o);
      if (isnan (v) && !value)
        return scalars_fail (b, "fills with a number the record does not keep");
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *V = value ? scalars_input_label (b->record, value, 0) : NULL;
      GString *num = g_string_new (NULL);
      scalars_append_number (num, v);
      guint out = scalars_add_output (b, o, "fill",
                                      V ? g_strdup_printf ("%s = %s (masked)", Y, V)
                                        : g_strdup_printf ("%s = %s (masked)", Y, num->str),
                                      NULL, v);
      g_string_free (num, TRUE);
      scalars_add_edge (b, base + (guint) o, out, 0, g_strdup ("0 (masked)"));
      if (value)
        scalars_add_edge (b, value_node, out, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

/* unbind(x, dim), split, chunk: output k is the stretch of dim after the
 * outputs before it (unbind's one index, its dim dropped); each output
 * element one input element, the outputs' elements stepped in order. */
gboolean
scalars_build_split (Build *b)
{
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  const CrRecordArgument *dim_arg = cr_record_op_argument (b->op, "dim");
  int dim = dim_arg && dim_arg->n_values == 1 ? scalars_wrap_dim ((gint64) dim_arg->values[0], in->ndim)
                                              : -1;
  /* unsafe_split keeps no dim: it is the one its first output is shorter in. */
  for (int d = 0; dim < 0 && !dim_arg && b->out->ndim == in->ndim && d < in->ndim; d++)
    if (b->out->shape[d] != in->shape[d])
      dim = d;
  if (dim < 0 && !dim_arg && b->op->outputs->len == 1 && in->ndim > 0)
    dim = 0;
  if (dim < 0)
    return scalars_fail (b, "splits along a dim the record does not keep");
  const CrRecordTensor *first = b->out;
  guint base = scalars_input_nodes (b, in);
  gint64 offset = 0;
  for (guint k = 0; k < b->op->outputs->len; k++)
    {
      const CrRecordTensor *out = scalars_tensor_at (b->record, g_array_index (b->op->outputs, int, k));
      if (!out)
        return scalars_fail (b, "has an output the record does not keep");
      gboolean unbind = out->ndim == in->ndim - 1;
      if (!unbind && out->ndim != in->ndim)
        return scalars_fail (b, "has an output of another number of dims than its input");
      gint64 along = unbind ? 1 : out->shape[dim];
      if (offset + along > in->shape[dim])
        return scalars_fail (b, "has outputs larger than its input together");
      b->out = out;
      for (gint64 o = 0; o < scalars_numel_of (out); o++)
        {
          gint64 index[CR_MAX_DIMS] = { 0 }, in_index[CR_MAX_DIMS] = { 0 };
          scalars_unravel (o, out->ndim, out->shape, index);
          for (int d = 0, j = 0; d < in->ndim; d++)
            in_index[d] = d == dim ? offset + (unbind ? 0 : index[j++]) : index[j++];
          scalars_add_copy (b, in, base, o, scalars_ravel (in->ndim, in->shape, in_index));
        }
      b->sub_step_base += (guint) scalars_numel_of (out);
      offset += along;
    }
  b->out = first;
  return b->error == NULL;
}
