/* cr-torch-packed.c — torch._pack_padded_sequence, the native under
 * torch.nn.utils.rnn.pack_padded_sequence (the prelude's utils/rnn.py
 * writes the rest of packed sequences in Python, as PyTorch does). The op
 * is core/ops/cr-ops-packed-sequence.c. */
#include "cr-torch-native.h"

/* _pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes) */
NATIVE (native_pack_padded_sequence)
{
  gboolean batch_first;
  CrTensor *batch_sizes = NULL;
  CrTensor *data_out;
  CrValue *items[2];
  CrValue *tuple;
  PARSE ("_pack_padded_sequence", "input lengths batch_first");
  TENSOR_ARG (input, 0);
  TENSOR_ARG (lengths, 1);

  if (!cr_torch_args_bool (&a, 2, FALSE, &batch_first, error))
    return NULL;
  data_out = cr_pack_padded_sequence (input, lengths, batch_first, &batch_sizes, error);
  if (data_out == NULL)
    return NULL;
  items[0] = cr_value_new_tensor_take (data_out);
  items[1] = cr_value_new_tensor_take (batch_sizes);
  tuple = cr_value_new_tuple (items, 2);
  cr_value_unref (items[0]);
  cr_value_unref (items[1]);
  return tuple;
}

#define T CR_TORCH_IN_TORCH

const CrTorchFunc cr_torch_packed_funcs[] = {
  { "_pack_padded_sequence", native_pack_padded_sequence, T, NULL },
};

const guint cr_torch_n_packed_funcs = G_N_ELEMENTS (cr_torch_packed_funcs);
