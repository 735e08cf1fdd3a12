/* cr-op-scalars-copies.c — the ops whose every output element is one
 * input element or a constant, taken apart (cr-op-scalars.h): F.pad with
 * a constant (the pad's elements are its value, with no edge), repeat,
 * flip, roll (by the shift of each dim the record keeps), x[i] = v and
 * the in-place ops on a slice (CopySlices), index_copy and x[idx] = v
 * (IndexPutBackward0) (the written elements from the value, broadcast,
 * the others from the tensor written into; a put that accumulates, as a
 * gather's double backward does, adds every value put there),
 * x.copy_(y), tril and triu (the zeroed elements are constants), and diag of a
 * vector (a matrix of zeros around it). A copied element's edge is 1, so
 * an input element's gradient is the sum of the incoming gradients of its
 * copies. Reflect and replicate pads, diag of a matrix and diagonal keep
 * where each output element came from, and open as takes
 * (cr-op-scalars-pieces.c). */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

/* Where output element o comes from: an input element (flat), or -1 for
 * a constant. */
typedef gint64 (*SourceFunc) (const CrRecordOp     *op,
                              const CrRecordTensor *in,
                              const CrRecordTensor *out,
                              const gint64         *index,   /* o's, one per out dim */
                              gpointer              data);

typedef struct {
  const char *grad_fn;
  SourceFunc  source;
  const char *constant;   /* what a constant element is: "the pad's value" */
} CopyOp;

/* F.pad(x, pad, value=v): pad holds (before, after) pairs from the last
 * dim back; negative sizes crop. */
static gint64
pad_source (const CrRecordOp     *op,
            const CrRecordTensor *in,
            const CrRecordTensor *out,
            const gint64         *index,
            gpointer              data)
{
  const CrRecordArgument *pad = data;
  gint64 in_index[CR_MAX_DIMS];
  for (int d = 0; d < in->ndim; d++)
    {
      int pair = in->ndim - 1 - d;
      gint64 before = 2 * pair < pad->n_values ? (gint64) pad->values[2 * pair] : 0;
      in_index[d] = index[d] - before;
      if (in_index[d] < 0 || in_index[d] >= in->shape[d])
        return -1;
    }
  return scalars_ravel (in->ndim, in->shape, in_index);
}

/* x.repeat(r): out has in's dims (with leading new ones) each r times as
 * long; the element at i along a dim is in's at i mod its size. */
static gint64
repeat_source (const CrRecordOp     *op,
               const CrRecordTensor *in,
               const CrRecordTensor *out,
               const gint64         *index,
               gpointer              data)
{
  gint64 in_index[CR_MAX_DIMS];
  int lead = out->ndim - in->ndim;
  for (int d = 0; d < in->ndim; d++)
    in_index[d] = index[d + lead] % in->shape[d];
  return scalars_ravel (in->ndim, in->shape, in_index);
}

/* x.flip(dims): i along a flipped dim reads size − 1 − i. */
static gint64
flip_source (const CrRecordOp     *op,
             const CrRecordTensor *in,
             const CrRecordTensor *out,
             const gint64         *index,
             gpointer              data)
{
  const CrRecordArgument *dims = data;
  gint64 in_index[CR_MAX_DIMS];
  memcpy (in_index, index, sizeof (gint64) * (gsize) in->ndim);
  for (int i = 0; i < dims->n_values; i++)
    {
      int d = scalars_wrap_dim ((gint64) dims->values[i], in->ndim);
      if (d >= 0)
        in_index[d] = in->shape[d] - 1 - index[d];
    }
  return scalars_ravel (in->ndim, in->shape, in_index);
}

/* x.roll(shifts, dims): the record keeps the shift of every dim; i along a
 * dim reads i − shift, wrapped around. */
static gint64
roll_source (const CrRecordOp     *op,
             const CrRecordTensor *in,
             const CrRecordTensor *out,
             const gint64         *index,
             gpointer              data)
{
  const CrRecordArgument *shifts = data;
  gint64 in_index[CR_MAX_DIMS];
  for (int d = 0; d < in->ndim; d++)
    {
      gint64 size = in->shape[d], at = (index[d] - (gint64) shifts->values[d]) % MAX (size, 1);
      in_index[d] = at < 0 ? at + size : at;
    }
  return scalars_ravel (in->ndim, in->shape, in_index);
}

/* x.roll(shift) without dims: the flattened tensor rolls, and element i
 * reads i − shift, wrapped around (data: the recorded shift). */
static gint64
flat_roll_source (const CrRecordOp     *op,
                  const CrRecordTensor *in,
                  const CrRecordTensor *out,
                  const gint64         *index,
                  gpointer              data)
{
  const CrRecordArgument *shift = data;
  gint64 n = MAX (scalars_numel_of (in), 1);
  gint64 at = (scalars_ravel (out->ndim, out->shape, index) - (gint64) shift->values[0]) % n;
  return at < 0 ? at + n : at;
}

/* tril(x, k) keeps column j of row i where j − i ≤ k, triu where j − i ≥ k
 * (over the last two dims); the others are 0. */
static gint64
triangle_source (const CrRecordOp     *op,
                 const CrRecordTensor *in,
                 const CrRecordTensor *out,
                 const gint64         *index,
                 gpointer              data)
{
  const CrRecordArgument *diagonal = data;
  gint64 k = (gint64) diagonal->values[0];
  gint64 above = index[in->ndim - 1] - index[in->ndim - 2];
  gboolean lower = g_str_has_prefix (op->grad_fn, "Tril");
  if (lower ? above > k : above < k)
    return -1;
  return scalars_ravel (in->ndim, in->shape, index);
}

/* diag(v, k) of a vector: the record keeps where each element of v went
 * (flat in the output); data is that map turned around, output element to
 * v's element or -1. */
static gint64
diag_source (const CrRecordOp     *op,
             const CrRecordTensor *in,
             const CrRecordTensor *out,
             const gint64         *index,
             gpointer              data)
{
  return ((const gint64 *) data)[scalars_ravel (out->ndim, out->shape, index)];
}

static const CopyOp copy_ops[] = {
  { "ConstantPadNdBackward0", pad_source, "the pad's value" },
  { "RepeatBackward0", repeat_source, NULL },
  { "FlipBackward0", flip_source, NULL },
  { "RollBackward0", roll_source, NULL },
  { "TrilBackward0", triangle_source, "zeroed above the diagonal" },
  { "TriuBackward0", triangle_source, "zeroed below the diagonal" },
  { "DiagBackward0", diag_source, "off the diagonal" },
  { "CopySlices", NULL, NULL }, { "IndexCopyBackward0", NULL, NULL },
  { "IndexPutBackward0", NULL, NULL },
  { "CopyBackwards", NULL, NULL },
};

gboolean
scalars_is_copy_op (const char *grad_fn)
{
  for (guint i = 0; grad_fn && i < G_N_ELEMENTS (copy_ops); i++)
    if (strcmp (grad_fn, copy_ops[i].grad_fn) == 0)
      return TRUE;
  return FALSE;
}

/* x.copy_(y): every element of x becomes y's (broadcast); x's old values
 * reach nothing. */
static gboolean
build_copy_into (Build *b)
{
  const CrRecordTensor *src = scalars_input_at (b, 1);
  if (!src || !scalars_broadcasts_to (src, b->out))
    return scalars_fail (b, "copies from a tensor the record does not keep");
  guint base = scalars_input_nodes (b, src);
  for (gint64 o = 0; o < scalars_numel_of (b->out); o++)
    scalars_add_copy (b, src, base, o,
                      scalars_broadcast_source (o, b->out->ndim, b->out->shape, src->ndim, src->shape));
  return b->error == NULL;
}

static gboolean
build_copy_slices (Build *b)
{
  /* A circular pad: one input, and each output element's place in it. */
  if (b->op->inputs->len == 1)
    return scalars_build_take (b);
  const CrRecordTensor *base = scalars_input_at (b, 0);
  const CrRecordTensor *src = scalars_input_at (b, 1);
  gint64 out_numel = scalars_numel_of (b->out);
  if (!base || !src || scalars_numel_of (base) != out_numel)
    return scalars_fail (b, "writes into a tensor the record does not keep");
  const CrTensorSnapshot *positions = scalars_positions (b->op, scalars_numel_of (src));
  if (!positions)
    return scalars_fail (b, "writes into places the record does not keep");
  g_autofree gint64 *written = g_new (gint64, MAX (out_numel, 1));
  for (gint64 o = 0; o < out_numel; o++)
    written[o] = -1;
  for (gint64 k = 0; k < positions->n_values; k++)
    {
      gint64 at = (gint64) positions->values[k];
      if (at < 0 || at >= out_numel)
        return scalars_fail (b, "writes outside its tensor");
      written[at] = k;
    }
  /* Source first: the base's nodes may be the output's own tensor (a
   * buffer written in place), whose unwritten elements are the same. */
  guint src_base = scalars_input_nodes (b, src);
  guint base_base = base == src ? src_base : scalars_input_nodes (b, base);
  for (gint64 o = 0; o < out_numel; o++)
    {
      if (written[o] >= 0)
        scalars_add_copy (b, src, src_base, o, written[o]);
      else
        scalars_add_copy (b, base, base_base, o, o);
    }
  return b->error == NULL;
}

/* The op's own positions, however many (a put's values are broadcast to
 * their shape); NULL when the record keeps none. */
static const CrTensorSnapshot *
any_positions (const CrRecordOp *op)
{
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (saved->internal && g_strcmp0 (saved->name, "positions") == 0 && saved->value
          && saved->value->n_values == saved->value->numel)
        return saved->value;
    }
  return NULL;
}

/* x[idx] = v and index_put (accumulate=): out[o] is v's element put
 * there, or x[o] plus every element put there when the put accumulates,
 * or x[o] where none is. */
static gboolean
build_index_put (Build *b)
{
  const CrRecordTensor *base = scalars_input_at (b, 0), *src = scalars_input_at (b, 1);
  const CrTensorSnapshot *positions = any_positions (b->op);
  const CrRecordArgument *accumulate_arg = cr_record_op_argument (b->op, "accumulate");
  gint64 out_numel = scalars_numel_of (b->out);
  if (!base || !src || scalars_numel_of (base) != out_numel)
    return scalars_fail (b, "writes into a tensor the record does not keep");
  if (!positions)
    return scalars_fail (b, "writes into places the record does not keep");
  CrRecordTensor written_shape = *src;
  written_shape.ndim = positions->ndim;
  memcpy (written_shape.shape, positions->shape, sizeof (positions->shape));
  if (!scalars_broadcasts_to (src, &written_shape))
    return scalars_fail (b, "puts values whose shape does not broadcast to the places written");
  if (!accumulate_arg || accumulate_arg->n_values != 1)
    return scalars_fail (b, "does not keep whether the put accumulates");
  gboolean accumulate = accumulate_arg->values[0] != 0;
  /* For each output element, the values put there (k, in positions' order). */
  g_autofree gint64 *count = g_new0 (gint64, MAX (out_numel, 1));
  for (gint64 k = 0; k < positions->n_values; k++)
    {
      gint64 at = (gint64) positions->values[k];
      if (at < 0 || at >= out_numel)
        return scalars_fail (b, "writes outside its tensor");
      if (++count[at] > 1 && !accumulate)
        return scalars_fail (b, "puts two values into one element without accumulate=True: "
                             "which one stays is not defined, and the backward step sends "
                             "each of them the element's gradient");
    }
  const double *sv = scalars_input_values (b, src), *xv = scalars_input_values (b, base);
  guint src_base = scalars_input_nodes (b, src);
  guint base_base = base == src ? src_base : scalars_input_nodes (b, base);
  for (gint64 o = 0; o < out_numel; o++)
    {
      if (count[o] == 0 || !accumulate)
        {
          gint64 from = -1;
          for (gint64 k = 0; k < positions->n_values && count[o]; k++)
            if ((gint64) positions->values[k] == o)
              from = scalars_broadcast_source (k, positions->ndim, positions->shape, src->ndim,
                                               src->shape);
          if (from >= 0)
            scalars_add_copy (b, src, src_base, o, from);
          else
            scalars_add_copy (b, base, base_base, o, o);
          continue;
        }
      b->sub_step = (guint) o;
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_autofree char *X = scalars_input_label (b->record, base, o);
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_string_append_printf (eq, "%s = %s", Y, X);
      scalars_append_number (num, xv[o]);
      double sum = xv[o];
      g_autoptr (GArray) sources = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (gint64 k = 0; k < positions->n_values; k++)
        if ((gint64) positions->values[k] == o)
          {
            gint64 from = scalars_broadcast_source (k, positions->ndim, positions->shape, src->ndim,
                                                    src->shape);
            g_autofree char *V = scalars_input_label (b->record, src, from);
            g_string_append_printf (eq, " + %s", V);
            g_string_append (num, " + ");
            scalars_append_number (num, sv[from]);
            sum += sv[from];
            g_array_append_val (sources, from);
          }
      guint node = scalars_add_output (b, o, "+", g_string_free (eq, FALSE), g_string_free (num, FALSE),
                                       sum);
      scalars_add_edge (b, base_base + (guint) o, node, 1, g_strdup ("1"));
      for (guint i = 0; i < sources->len; i++)
        scalars_add_edge (b, src_base + (guint) g_array_index (sources, gint64, i), node, 1,
                          g_strdup ("1"));
    }
  return b->error == NULL;
}

gboolean
scalars_build_copy (Build *b)
{
  const CopyOp *copy = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (copy_ops); i++)
    if (strcmp (b->op->grad_fn, copy_ops[i].grad_fn) == 0)
      copy = &copy_ops[i];
  const CrRecordTensor *in = scalars_input_at (b, 0);
  if (!copy || !in)
    return scalars_fail (b, "is not one the scalar view takes apart");
  if (!copy->source && strcmp (copy->grad_fn, "IndexPutBackward0") == 0)
    return build_index_put (b);
  if (!copy->source)
    return strcmp (copy->grad_fn, "CopyBackwards") == 0 ? build_copy_into (b) : build_copy_slices (b);
  /* diag of a matrix is its diagonal, which the record keeps as positions. */
  if (copy->source == diag_source && !(in->ndim == 1 && b->out->ndim == 2))
    return scalars_build_take (b);
  gpointer data = NULL;
  SourceFunc source = copy->source;
  g_autofree gint64 *placed = NULL;
  gint64 out_numel = scalars_numel_of (b->out);
  if (copy->source == diag_source)
    {
      const CrTensorSnapshot *positions = scalars_positions (b->op, scalars_numel_of (in));
      if (positions)
        {
          placed = g_new (gint64, MAX (out_numel, 1));
          for (gint64 o = 0; o < out_numel; o++)
            placed[o] = -1;
          for (gint64 i = 0; i < positions->n_values; i++)
            if (positions->values[i] >= 0 && positions->values[i] < out_numel)
              placed[(gint64) positions->values[i]] = i;
          data = placed;
        }
    }
  else if (copy->source == pad_source)
    data = (gpointer) cr_record_op_argument (b->op, "pad");
  else if (copy->source == flip_source)
    data = (gpointer) cr_record_op_argument (b->op, "dims");
  else if (copy->source == roll_source)
    {
      /* A roll of the flattened tensor keeps its one shift (a 1-d
       * tensor's is the same either way). */
      const CrRecordArgument *shifts = cr_record_op_argument (b->op, "shifts");
      data = shifts && shifts->n_values == in->ndim && in->ndim > 0 ? (gpointer) shifts : NULL;
      if (!data && shifts && shifts->n_values == 1)
        {
          source = flat_roll_source;
          data = (gpointer) shifts;
        }
    }
  else if (copy->source == triangle_source)
    {
      const CrRecordArgument *diagonal = cr_record_op_argument (b->op, "diagonal");
      data = diagonal && diagonal->n_values == 1 ? (gpointer) diagonal : NULL;
    }
  else
    data = b;   /* needs none */
  if (!data)
    return scalars_fail (b, "has arguments the record does not keep");
  if (copy->source != repeat_source && copy->source != diag_source && in->ndim != b->out->ndim)
    return scalars_fail (b, "has an output of another rank than its input");
  if (copy->source == triangle_source && in->ndim < 2)
    return scalars_fail (b, "needs a matrix");
  if (copy->source == repeat_source && b->out->ndim < in->ndim)
    return scalars_fail (b, "has an output of a lower rank than its input");

  gint64 in_numel = scalars_numel_of (in);
  guint base = scalars_input_nodes (b, in);
  for (gint64 o = 0; o < out_numel; o++)
    {
      gint64 index[CR_MAX_DIMS];
      scalars_unravel (o, b->out->ndim, b->out->shape, index);
      gint64 from = source (b->op, in, b->out, index, data);
      if (from >= in_numel)
        return scalars_fail (b, "copies an element from outside its input");
      if (from >= 0)
        {
          scalars_add_copy (b, in, base, o, from);
          continue;
        }
      /* A constant: the pad's value is the recorded output's; tril's,
       * triu's and diag's 0. */
      b->sub_step = (guint) o;
      double value = copy->source == pad_source ? scalars_output_value (b, o) : 0;
      if (isnan (value) && copy->source == pad_source)
        return scalars_fail (b, "pads with a value the record does not keep");
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      GString *eq = g_string_new (NULL);
      g_string_append_printf (eq, "%s = ", Y);
      scalars_append_number (eq, value);
      g_string_append_printf (eq, " (%s)", copy->constant);
      scalars_add_output (b, o, "=", g_string_free (eq, FALSE), NULL, value);
    }
  return b->error == NULL;
}
