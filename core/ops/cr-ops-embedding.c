/* cr-ops-embedding.c — F.embedding (EmbeddingBackward0).
 *
 * The embedding is a take of the weight's rows at flat positions; its
 * backward sums the gradient back into zeros of the weight's shape at the same
 * positions with the differentiable scatter of cr-ops-index.c (so create_graph
 * works), rows of padding_idx left out. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-grad-mode.h"
#include "cr-cuda.h"
#include "cr-error.h"


/* EMBEDDING: input the weight; saved[0] the flat positions taken, saved[1]
 * (with padding_idx or scale_grad_by_freq) a factor of the index's shape +
 * [1]: 0 where the index was padding_idx, else 1 / the number of times its
 * row was read (1 without scale_grad_by_freq). Kept only to show them, as
 * PyTorch's node keeps them: saved[2] the indices, saved[3] the weight;
 * args.ints[0] padding_idx (-1: none), ints[1] scale_grad_by_freq. */
static gboolean
embedding_backward (CrNode          *node,
                    CrTensor *const *grad_outputs,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  g_autoptr(CrTensor) g = cr_tensor_ref (grad_outputs[0]);
  SAVED (pos, 0);

  if (!cr_ops_check_saved_from (node, 2, error))
    return FALSE;
  if (node->n_saved > 1 && node->saved[1].was_saved)
    {
      SAVED (keep, 1);
      CrTensor *masked = cr_mul (g, keep, error);

      if (masked == NULL)
        return FALSE;
      cr_tensor_unref (g);
      g = masked;
    }
  SET_GRAD (0, cr_ops_scatter_add_flat (g, pos, &node->input_meta[0], error));
  return TRUE;
}

const CrOpInfo cr_op_row_EMBEDDING = {
  CR_OP_EMBEDDING, "embedding", "EmbeddingBackward0", 1, "embed",
  "∂out/∂W: G's rows summed into the rows of W they were read from "
  "(none for padding_idx)",
  embedding_backward, NULL
};

/* max_norm: the rows that idx reads are scaled down in place to a p-norm of
 * at most max_norm (by max_norm / (norm + 1e-7)), as embedding_renorm_ does:
 * under no_grad, with the kernels of the weight's device. */
static gboolean
renorm_rows (CrTensor      *weight,
             const gint64  *iv,
             gint64         n,
             double         max_norm,
             double         norm_type,
             GError       **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(CrTensor) pos = NULL;
  gint64 width = weight->shape[1], shape[2], n_rows = 0;
  gboolean was_enabled, ok;
  gint64 *p;
  int one = 1;

  for (gint64 i = 0; i < n; i++)
    if (!g_hash_table_contains (seen, &iv[i]))
      {
        g_hash_table_add (seen, (gpointer) &iv[i]);
        n_rows++;
      }
  shape[0] = n_rows;
  shape[1] = width;
  pos = cr_tensor_new_empty (shape, 2, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return FALSE;
  p = cr_tensor_data (pos);
  g_hash_table_remove_all (seen);
  for (gint64 i = 0; i < n; i++)
    if (!g_hash_table_contains (seen, &iv[i]))
      {
        g_hash_table_add (seen, (gpointer) &iv[i]);
        for (gint64 j = 0; j < width; j++)
          *p++ = iv[i] * width + j;
      }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), weight->device, error);
  if (pos == NULL)
    return FALSE;

  /* F.embedding renormalizes under no_grad: allowed on a leaf, but the
   * version moves on. */
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  ok = cr_autograd_check_inplace_rules (weight, error);
  if (ok)
    {
      g_autoptr(CrTensor) rows = cr_kernel_take (weight, pos, error);
      g_autoptr(CrTensor) norms = rows != NULL ? cr_norm_dim (rows, norm_type, &one, 1, TRUE,
                                                              error) : NULL;
      g_autoptr(CrTensor) over = norms != NULL ? cr_ops_k_num (CR_BINARY_GT, norms, max_norm,
                                                               error) : NULL;
      g_autoptr(CrTensor) shifted = over != NULL ? cr_ops_add_number (norms, 1e-7, error) : NULL;
      g_autoptr(CrTensor) limit = cr_ops_wrap_number (max_norm, FALSE);
      g_autoptr(CrTensor) unit = cr_ops_wrap_number (1.0, FALSE);
      g_autoptr(CrTensor) ratio = shifted != NULL ? cr_kernel_binary (CR_BINARY_DIV, limit,
                                                                      shifted, error) : NULL;
      g_autoptr(CrTensor) scale = ratio != NULL ? cr_kernel_where (over, ratio, unit, error)
                                                : NULL;
      g_autoptr(CrTensor) scaled = scale != NULL ? cr_mul (rows, scale, error) : NULL;

      ok = scaled != NULL && cr_kernel_put (weight, pos, scaled, FALSE, error);
    }
  /* Bumped after the write: the version observer (the run record) sees
   * the renormalized rows. */
  if (ok)
    cr_tensor_bump_version (weight);
  cr_grad_mode_set_enabled (was_enabled);
  return ok;
}

CrTensor *
cr_embedding (CrTensor  *weight,
              CrTensor  *indices,
              gboolean   has_padding_idx,
              gint64     padding_idx,
              gboolean   scale_grad_by_freq,
              gboolean   has_max_norm,
              double     max_norm,
              double     norm_type,
              GError   **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  g_autoptr(CrTensor) out = NULL;
  gint64 shape[CR_MAX_DIMS], rows, width;
  const gint64 *iv;
  gint64 *p;
  CrNode *node;

  if (indices->dtype != CR_DTYPE_INT64 && indices->dtype != CR_DTYPE_INT32)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected tensor for argument #1 'indices' to have one of the following "
                   "scalar types: Long, Int; but got %s instead (while checking arguments for "
                   "embedding)", cr_dtype_legacy_name (indices->dtype));
      return NULL;
    }
  if (weight->ndim != 2)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "'weight' must be 2-D");
      return NULL;
    }
  if (indices->ndim + 1 > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "embedding: indices of more than %d dims are not supported by Chainrule",
                   CR_MAX_DIMS - 1);
      return NULL;
    }
  rows = weight->shape[0];
  width = weight->shape[1];
  /* int32 indices are read as int64 (contiguous either way). */
  idx = indices->dtype == CR_DTYPE_INT32 ? cr_kernel_cast (indices, CR_DTYPE_INT64, error)
                                         : cr_tensor_contiguous (indices, error);
  if (idx != NULL && idx->device != CR_DEVICE_CPU)
    {
      CrTensor *host = cr_tensor_to_device (idx, CR_DEVICE_CPU, error);

      cr_tensor_unref (idx);
      idx = host;
    }
  if (idx == NULL)
    return NULL;
  iv = cr_tensor_data (idx);
  for (gint64 i = 0; i < idx->numel; i++)
    if (iv[i] < 0 || iv[i] >= rows)
      {
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                             "index out of range in self");
        return NULL;
      }
  if (has_max_norm && !renorm_rows (weight, iv, idx->numel, max_norm, norm_type, error))
    return NULL;

  memcpy (shape, indices->shape, sizeof (gint64) * indices->ndim);
  shape[indices->ndim] = width;
  pos = cr_tensor_new_empty (shape, indices->ndim + 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < idx->numel; i++)
    for (gint64 j = 0; j < width; j++)
      *p++ = iv[i] * width + j;
  if (has_padding_idx || scale_grad_by_freq)
    {
      g_autoptr(GHashTable) counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                            g_free);
      gint64 kshape[CR_MAX_DIMS];
      double *k;

      /* How often each row is read, for scale_grad_by_freq. */
      for (gint64 i = 0; i < idx->numel && scale_grad_by_freq; i++)
        {
          gint64 *c = g_hash_table_lookup (counts, &iv[i]);

          if (c == NULL)
            {
              c = g_new0 (gint64, 1);
              g_hash_table_insert (counts, (gpointer) &iv[i], c);
            }
          (*c)++;
        }

      memcpy (kshape, indices->shape, sizeof (gint64) * indices->ndim);
      kshape[indices->ndim] = 1;
      keep = cr_tensor_new_empty (kshape, indices->ndim + 1, CR_DTYPE_FLOAT64, CR_DEVICE_CPU,
                                  error);
      if (keep == NULL)
        return NULL;
      k = cr_tensor_data (keep);
      for (gint64 i = 0; i < idx->numel; i++)
        {
          gint64 *c = scale_grad_by_freq ? g_hash_table_lookup (counts, &iv[i]) : NULL;

          k[i] = has_padding_idx && iv[i] == padding_idx ? 0.0 : 1.0 / (c != NULL ? *c : 1);
        }
      if (weight->dtype != CR_DTYPE_FLOAT64 || weight->device != CR_DEVICE_CPU)
        {
          CrTensor *cast = cr_kernel_cast (keep, weight->dtype, error);
          CrTensor *moved = cast != NULL ? cr_tensor_to_device (cast, weight->device, error)
                                         : NULL;

          cr_tensor_unref (cast);
          cr_tensor_unref (keep);
          if ((keep = moved) == NULL)
            return NULL;
        }
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), weight->device, error);
  if (pos == NULL || (out = cr_kernel_take (weight, pos, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_EMBEDDING, &weight, 1, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, keep, FALSE);
      cr_node_save (node, 2, indices, FALSE);
      cr_node_save (node, 3, weight, FALSE);
      args->ints[0] = has_padding_idx ? padding_idx : -1;
      args->ints[1] = scale_grad_by_freq;
    }
  return g_steal_pointer (&out);
}
