/* cr-ops-roll.c — torch.roll (RollBackward0): a take at flat positions
 * worked out on the host. The backward rolls the gradient back, as
 * PyTorch's roll_backward does, so a double backward goes through
 * RollBackward0 again. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-error.h"

/* ROLL: nothing saved. args.ints[0] TRUE when the tensor rolled as if
 * flattened, by args.ints[1]; else args.dims[d] the shift of each dim d,
 * reduced to [0, size) (so an int holds it). */
static gboolean
roll_backward (CrNode          *node,
               CrTensor *const *grad_outputs,
               CrTensor       **grad_inputs,
               GError         **error)
{
  const CrOpArgs *args = node->args;
  gint64 back[CR_MAX_DIMS];
  int dims[CR_MAX_DIMS];

  if (args->ints[0] || args->n_dims == 0)
    {
      back[0] = -args->ints[1];
      SET_GRAD (0, cr_roll (grad_outputs[0], back, 1, NULL, 0, error));
      return TRUE;
    }
  for (int d = 0; d < args->n_dims; d++)
    {
      back[d] = -(gint64) args->dims[d];
      dims[d] = d;
    }
  SET_GRAD (0, cr_roll (grad_outputs[0], back, args->n_dims, dims, args->n_dims, error));
  return TRUE;
}

const CrOpInfo cr_op_row_ROLL = {
  CR_OP_ROLL, "roll", "RollBackward0", 1, "roll",
  "∂out/∂x: G rolled back by −shifts", roll_backward, NULL
};

static gint64
wrap (gint64 i,
      gint64 size)
{
  return size > 0 ? ((i % size) + size) % size : 0;
}

CrTensor *
cr_roll (CrTensor      *x,
         const gint64  *shifts,
         int            n_shifts,
         const int     *dims,
         int            n_dims,
         GError       **error)
{
  gint64 strides[CR_MAX_DIMS], shift[CR_MAX_DIMS] = { 0, }, coord[CR_MAX_DIMS] = { 0, };
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *out;
  CrNode *node;
  gint64 *p;

  if (n_shifts == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "`shifts` required");
      return NULL;
    }
  if (n_dims == 0 ? n_shifts != 1 : n_shifts != n_dims)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "shifts and dimensions must align. shifts: %d, dims:%d", n_shifts, n_dims);
      return NULL;
    }
  for (int i = 0; i < n_dims; i++)
    {
      int d = dims[i];

      if (!cr_ops_wrap_dim (&d, x->ndim, error))
        return NULL;
      /* Reduced first: no overflow however large the shift. */
      if (x->ndim > 0 && x->shape[d] > 0)
        shift[d] = wrap (shift[d] + wrap (shifts[i], x->shape[d]), x->shape[d]);
    }

  cr_shape_contiguous_strides (x->shape, x->ndim, strides);
  pos = cr_tensor_new_empty (x->shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      gint64 at = 0;

      if (n_dims == 0)
        /* Without dims the tensor rolls as if flattened. */
        at = wrap (i - wrap (shifts[0], pos->numel), pos->numel);
      else
        for (int d = 0; d < x->ndim; d++)
          at += wrap (coord[d] - shift[d], x->shape[d]) * strides[d];
      p[i] = at;
      for (int d = x->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < x->shape[d])
            break;
          coord[d] = 0;
        }
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
  if (pos == NULL || (out = cr_kernel_take (x, pos, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_ROLL, &x, 1, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      args->ints[0] = n_dims == 0;
      args->ints[1] = pos->numel > 0 ? wrap (shifts[0], pos->numel) : 0;
      args->n_dims = n_dims == 0 ? 0 : x->ndim;
      for (int d = 0; d < args->n_dims; d++)
        args->dims[d] = (int) shift[d];
    }
  return out;
}
