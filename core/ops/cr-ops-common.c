/* cr-ops-common.c — the helpers every op file shares (declared in
 * cr-ops-private.h): recording, wrapped numbers, zeros, dim wrapping, views. */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-grad-mode.h"
#include "cr-ops-nnf.h"

#include <math.h>

#include "cr-autograd-private.h"
#include "cr-error.h"
#include "cr-tensor.h"

CrNode *
cr_ops_record (CrOpId           op,
               CrTensor *const *inputs,
               guint            n_inputs,
               CrTensor        *out)
{
  CrNode *node;

  if (!cr_autograd_should_record (inputs, n_inputs) || !cr_dtype_is_floating (out->dtype))
    return NULL;
  node = cr_node_new (op, inputs, n_inputs, 1);
  cr_autograd_set_history_take (out, node, 0);
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && inputs[i]->is_wrapped_number)
      {
        cr_ops_note_wrapped_number (node, inputs[i]);
        break;
      }
  return node;
}

void
cr_ops_note_number (CrNode   *node,
                    double    number,
                    gboolean  is_int)
{
  CrOpArgs *args = cr_node_args (node);

  args->number = number;
  args->has_number = TRUE;
  args->number_is_int = is_int;
}

void
cr_ops_note_wrapped_number (CrNode         *node,
                            const CrTensor *number)
{
  if (number->is_wrapped_number)
    cr_ops_note_number (node, cr_tensor_read_flat (number, 0), number->dtype == CR_DTYPE_INT64);
}

CrTensor *
cr_ops_wrap_number (double   value,
                    gboolean integral)
{
  gboolean is_int = integral && value == floor (value) && fabs (value) < 9.007199254740992e15;
  CrTensor *t = cr_tensor_new_scalar (value, is_int ? CR_DTYPE_INT64 : CR_DTYPE_FLOAT64);

  t->is_wrapped_number = TRUE;
  return t;
}

CrTensor *
cr_ops_zeros_meta (const CrTensorMeta *meta,
                   GError            **error)
{
  return cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device, error);
}

CrTensor *
cr_ops_zero_scalar_like (const CrTensor *t)
{
  return cr_tensor_new_scalar (0.0, t->dtype);
}

CrTensor *
cr_ops_mul_number (CrTensor  *t,
                   double     number,
                   GError   **error)
{
  return cr_binary_number (CR_OP_MUL, t, number, error);
}

CrTensor *
cr_ops_add_number (CrTensor  *t,
                   double     number,
                   GError   **error)
{
  return cr_add_scalar (t, number, error);
}


gboolean
cr_ops_check_saved_from (CrNode  *node,
                         guint    first_slot,
                         GError **error)
{
  for (guint slot = first_slot; slot < node->n_saved; slot++)
    if (node->saved[slot].was_saved)
      {
        CrTensor *t = cr_node_get_saved (node, slot, error);

        if (t == NULL)
          return FALSE;
        cr_tensor_unref (t);
      }
  return TRUE;
}

void
cr_ops_split_at_dim (const CrTensor *x,
                     int             dim,
                     gint64         *outer,
                     gint64         *size,
                     gint64         *inner)
{
  *outer = 1;
  *inner = 1;
  *size = x->ndim == 0 ? 1 : x->shape[dim];
  for (int i = 0; i < dim; i++)
    *outer *= x->shape[i];
  for (int i = dim + 1; i < x->ndim; i++)
    *inner *= x->shape[i];
}

/* PyTorch's maybe_wrap_dim: a 0-d tensor accepts dims -1 and 0. */
gboolean
cr_ops_wrap_dim (int     *dim,
                 int      ndim,
                 GError **error)
{
  int n = ndim > 0 ? ndim : 1;

  if (*dim < -n || *dim >= n)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                   -n, n - 1, *dim);
      return FALSE;
    }
  if (*dim < 0)
    *dim += n;
  return TRUE;
}

CrTensor *
cr_ops_make_view (CrTensor     *x,
                  const gint64 *shape,
                  int           ndim,
                  const gint64 *strides,
                  gint64        offset)
{
  CrTensor *out = cr_tensor_new_view (x, shape, ndim, strides, offset);

  if (out->view_base == NULL)
    out->view_base = cr_tensor_ref (x->view_base != NULL ? x->view_base : x);
  /* A view made under no_grad of a tensor that requires grad still
   * requires grad, with no grad_fn, as PyTorch's (written in place with
   * grad mode on, it fails: cr_autograd_check_inplace_rules). */
  if (x->requires_grad && !cr_grad_mode_is_enabled ())
    out->requires_grad = TRUE;
  return out;
}

/* ---- local gradients (kernels only: never recorded) -------------------- */

CrTensor *
cr_ops_k_num (CrBinaryOp      op,
       const CrTensor *t,
       double          number,
       GError        **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (number, FALSE);

  return cr_kernel_binary (op, t, n, error);
}

CrTensor *
cr_ops_k_rnum (CrBinaryOp      op,
        double          number,
        const CrTensor *t,
        GError        **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (number, FALSE);

  return cr_kernel_binary (op, n, t, error);
}

/* t broadcast to the node's output shape and cast to its dtype (a copy). */
CrTensor *
cr_ops_to_output_meta (const CrNode   *node,
                const CrTensor *t,
                GError        **error)
{
  const CrTensorMeta *meta = &node->output_meta[0];
  CrTensor *out;

  if (t == NULL)
    return NULL;
  out = cr_tensor_new_empty (meta->shape, meta->ndim, meta->dtype, meta->device, error);
  if (out != NULL && !cr_kernel_copy_into (out, t, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

CrTensor *
cr_ops_full_output (const CrNode *node,
             double        value,
             GError      **error)
{
  const CrTensorMeta *meta = &node->output_meta[0];

  return cr_tensor_new_full (meta->shape, meta->ndim, value, meta->dtype, meta->device, error);
}

/* Takes t; returns it broadcast to the output (NULL stays NULL). */
CrTensor *
cr_ops_take_to_output (const CrNode *node,
                CrTensor     *t,
                GError      **error)
{
  CrTensor *out;

  if (t == NULL)
    return NULL;
  out = cr_ops_to_output_meta (node, t, error);
  cr_tensor_unref (t);
  return out;
}

CrTensor *
cr_ops_as_1d (CrTensor *t)
{
  gint64 one = 1, stride = 1;

  if (t->ndim > 0)
    return cr_tensor_ref (t);
  return cr_tensor_new_view (t, &one, 1, &stride, t->offset);
}

CrTensor *
cr_ops_as_0d (CrTensor *t,
              int       ndim)
{
  gint64 none[1] = { 0 };

  if (ndim > 0)
    return cr_tensor_ref (t);
  return cr_tensor_new_view (t, none, 0, none, t->offset);
}
