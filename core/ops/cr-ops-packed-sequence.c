/* cr-ops-packed-sequence.c — torch._pack_padded_sequence
 * (PackPaddedSequenceBackward0): a padded batch (T, B, *) ((B, T, *) when
 * batch_first) made into the rows a PackedSequence holds, step by step,
 * the sequences still running at each step, with the batch size of every
 * step.
 *
 * PyTorch 1.13 slices the input block by block; the rows come out in the
 * same order as gathering input[t, b] for t = 0.. and b < batch_sizes[t],
 * which is what this does with the flat positions of those rows. The
 * backward puts the gradient's rows back at the same positions in zeros of
 * the input's shape (PyTorch's _pack_padded_sequence_backward), with a
 * differentiable scatter. */
#include "cr-ops-private.h"

#include "cr-device.h"
#include "cr-error.h"

/* saved[0] the flat positions (data's shape), saved[1] the batch sizes
 * (result1); args.ints[0]: batch_first. */
static gboolean
pack_padded_backward (CrNode          *node,
                      CrTensor *const *grads,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  SAVED (positions, 0);

  SET_GRAD (0, cr_ops_scatter_add_flat (grads[0], positions, &node->input_meta[0], error));
  return TRUE;
}

const CrOpInfo cr_op_row_PACK_PADDED_SEQUENCE = {
  CR_OP_PACK_PADDED_SEQUENCE, "_pack_padded_sequence", "PackPaddedSequenceBackward0", 1, "pack",
  "∂ data/∂ input = 1 at each row the packing took, 0 at the padding",
  pack_padded_backward, NULL
};

/* PyTorch's checks on lengths, in its order. */
static gboolean
check_lengths (const gint64  *lengths,
               gint64         n,
               gint64         batch_size,
               GError       **error)
{
  if (n != batch_size)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected `len(lengths)` to be equal to batch_size, but got %" G_GINT64_FORMAT
                   " (batch_size=%" G_GINT64_FORMAT ")", n, batch_size);
      return FALSE;
    }
  if (lengths[batch_size - 1] <= 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0");
      return FALSE;
    }
  for (gint64 i = 0; i + 1 < batch_size; i++)
    if (lengths[i + 1] > lengths[i])
      {
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                             "`lengths` array must be sorted in decreasing order when "
                             "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                             "to pack_padded_sequence and/or pack_sequence to sidestep this "
                             "requirement if you do not need ONNX exportability.");
        return FALSE;
      }
  return TRUE;
}

CrTensor *
cr_pack_padded_sequence (CrTensor  *input,
                         CrTensor  *lengths,
                         gboolean   batch_first,
                         CrTensor **out_batch_sizes,
                         GError   **error)
{
  g_autoptr(CrTensor) host_lengths = NULL;
  g_autoptr(CrTensor) batch_sizes = NULL;
  g_autoptr(CrTensor) positions = NULL;
  g_autoptr(CrTensor) device_positions = NULL;
  gint64 T, B, row = 1, n_rows = 0, data_shape[CR_MAX_DIMS];
  const gint64 *len;
  gint64 *sizes, *pos;
  CrTensor *out;
  CrNode *node;

  if (lengths->dtype != CR_DTYPE_INT64 || lengths->ndim != 1 || lengths->device != CR_DEVICE_CPU)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "'lengths' argument should be a 1D CPU int64 tensor, but got %dD %s %s tensor",
                   lengths->ndim, cr_device_name (lengths->device),
                   cr_dtype_scalar_name (lengths->dtype));
      return NULL;
    }
  if (input->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                   MAX (input->ndim, 1), MAX (input->ndim, 1) - 1);
      return NULL;
    }
  T = input->shape[batch_first ? 1 : 0];
  B = input->shape[batch_first ? 0 : 1];
  for (int d = 2; d < input->ndim; d++)
    row *= input->shape[d];
  if (input->numel == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "Cannot pack empty tensors.");
      return NULL;
    }
  if ((host_lengths = cr_tensor_contiguous (lengths, error)) == NULL)
    return NULL;
  len = cr_tensor_data (host_lengths);
  if (!check_lengths (len, lengths->shape[0], B, error))
    return NULL;

  /* One batch size per step of the longest sequence; rows only for the
   * steps the input has (PyTorch's slice stops at T). */
  if ((batch_sizes = cr_tensor_new_empty (&len[0], 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error)) == NULL)
    return NULL;
  sizes = cr_tensor_data (batch_sizes);
  for (gint64 t = 0; t < len[0]; t++)
    {
      gint64 running = 0;

      while (running < B && len[running] > t)
        running++;
      sizes[t] = running;
      if (t < T)
        n_rows += running;
    }

  data_shape[0] = n_rows;
  for (int d = 2; d < input->ndim; d++)
    data_shape[d - 1] = input->shape[d];
  positions = cr_tensor_new_empty (data_shape, input->ndim - 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (positions == NULL)
    return NULL;
  pos = cr_tensor_data (positions);
  for (gint64 t = 0; t < MIN (T, len[0]); t++)
    for (gint64 b = 0; b < sizes[t]; b++)
      for (gint64 r = 0; r < row; r++)
        *pos++ = ((batch_first ? b * T + t : t * B + b) * row) + r;

  device_positions = cr_ops_positions_to (g_steal_pointer (&positions), input->device, error);
  if (device_positions == NULL || (out = cr_kernel_take (input, device_positions, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_PACK_PADDED_SEQUENCE, &input, 1, out)) != NULL)
    {
      cr_node_args (node)->ints[0] = batch_first;
      cr_node_save (node, 0, device_positions, FALSE);
      cr_node_save (node, 1, batch_sizes, FALSE);
    }
  *out_batch_sizes = g_steal_pointer (&batch_sizes);
  return out;
}
