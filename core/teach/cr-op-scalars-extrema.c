/* cr-op-scalars-extrema.c — max, min, amax and amin taken apart
 * (cr-op-scalars.h): each output element the largest (smallest) of the
 * input elements reduced into it. The local derivatives are PyTorch's:
 * max(dim) and min(dim) send the gradient to the one element their saved
 * indices name; max(), min(), amax and amin share it evenly among the
 * elements equal to the extremum (1/ties each), 0 to the others. */
#include "cr-op-scalars-private.h"

#include <math.h>
#include <string.h>

gboolean
scalars_build_extremum (Build *b)
{
  const CrRecordOp *op = b->op;
  const CrRecordTensor *in = scalars_tensor_at (b->record, g_array_index (op->inputs, int, 0));
  gboolean largest = strstr (op->grad_fn, "Max") || strstr (op->grad_fn, "Amax");
  const char *name = g_str_has_prefix (op->grad_fn, "Am") ? (largest ? "amax" : "amin")
                                                          : (largest ? "max" : "min");
  gint64 in_numel = scalars_numel_of (in), out_numel = scalars_numel_of (b->out);
  /* The dims reduced: the recorded dim(s), all of them without. */
  guint mask;
  if (!scalars_dims_mask (cr_record_op_argument (op, "dim"), in->ndim, &mask))
    return scalars_fail (b, "reduces over a dim out of range");
  g_autofree gint64 *map = g_new (gint64, MAX (in_numel, 1));
  if (in->ndim > 0 && !scalars_reduce_map (in, b->out, mask, map))
    return scalars_fail (b, "has an output whose shape is not its input's reduced");
  if (in->ndim == 0)
    map[0] = 0;
  /* max(dim)'s indices: the one element each output element took. */
  const CrTensorSnapshot *indices = NULL;
  for (guint s = 0; s < op->saved->len; s++)
    {
      const CrRecordSaved *saved = op->saved->pdata[s];
      if (g_strcmp0 (saved->name, "indices") == 0 && saved->value && saved->value->n_values == out_numel)
        indices = saved->value;
    }
  int reduced_dim = -1;
  for (int d = 0; d < in->ndim; d++)
    if (mask == 1u << d)
      reduced_dim = d;
  gint64 inner = 1;
  for (int d = reduced_dim + 1; reduced_dim >= 0 && d < in->ndim; d++)
    inner *= in->shape[d];
  const double *xv = scalars_input_values (b, in);
  guint base = scalars_input_nodes (b, in);
  for (gint64 o = 0; o < out_numel; o++)
    {
      b->sub_step = (guint) o;
      /* The extremum; a NaN among them is the result, as in PyTorch. */
      double best = NAN;
      gboolean first = TRUE;
      for (gint64 e = 0; e < in_numel; e++)
        {
          if (map[e] != o)
            continue;
          if (first || isnan (xv[e]) || (!isnan (best) && (largest ? xv[e] > best : xv[e] < best)))
            best = xv[e];
          first = FALSE;
        }
      guint ties = 0;
      for (gint64 e = 0; e < in_numel; e++)
        ties += map[e] == o && (xv[e] == best || (isnan (best) && isnan (xv[e])));
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_autofree char *Y = scalars_input_label (b->record, b->out, o);
      g_string_append_printf (eq, "%s = %s(", Y, name);
      g_string_append_printf (num, "%s(", name);
      guint k = 0;
      for (gint64 e = 0; e < in_numel; e++)
        if (map[e] == o)
          {
            g_autofree char *X = scalars_input_label (b->record, in, e);
            g_string_append_printf (eq, "%s%s", k ? ", " : "", X);
            if (k++)
              g_string_append (num, ", ");
            scalars_append_number (num, xv[e]);
          }
      g_string_append_c (eq, ')');
      g_string_append_c (num, ')');
      guint out = scalars_add_output (b, o, name, g_string_free (eq, FALSE),
                                      g_string_free (num, FALSE), best);
      for (gint64 e = 0; e < in_numel; e++)
        {
          if (map[e] != o)
            continue;
          double local;
          char *text;
          if (indices && reduced_dim >= 0)
            {
              gint64 at = (e / inner) % in->shape[reduced_dim];
              local = at == (gint64) indices->values[o] ? 1 : 0;
              text = g_strdup (local ? "1 (the index it took)" : "0");
            }
          else if (xv[e] == best || (isnan (best) && isnan (xv[e])))
            {
              local = 1.0 / ties;
              text = ties > 1 ? g_strdup_printf ("1/%u (%u ties share it)", ties, ties)
                              : g_strdup_printf ("1 (the %s)", name);
            }
          else
            {
              local = 0;
              text = g_strdup ("0");
            }
          scalars_add_edge (b, base + (guint) e, out, local, text);
        }
    }
  return b->error == NULL;
}
