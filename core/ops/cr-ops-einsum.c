/* cr-ops-einsum.c — torch.einsum and torch.diagonal.
 *
 * einsum follows PyTorch 1.13's composition step for step, so that a user
 * sees the same grad_fn chain (ViewBackward0 over PermuteBackward0 over
 * BmmBackward0 for 'ij,jk->ik'): every operand has its repeated labels
 * turned into diagonals, missing dims unsqueezed and its dims permuted into
 * one common order (output dims first, then the contracted ones); the
 * operands are then folded left to right by a sum of products written as a
 * batched matrix product (sumproduct_pair); contracted dims are summed out
 * (one operand) or viewed away (several). Everything is a differentiable op,
 * so gradients and create_graph come for free.
 *
 * diagonal is a view (DiagonalBackward0) whose backward places the gradient
 * on the diagonal of zeros with the differentiable scatter of
 * cr-ops-index.c. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-error.h"

#include <string.h>

/* ---- diagonal ------------------------------------------------------------ */

/* DIAGONAL: saved[0] the flat positions in the input of each output element. */
static gboolean
diagonal_backward (CrNode          *node,
                   CrTensor *const *grad_outputs,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  SAVED (pos, 0);

  SET_GRAD (0, cr_ops_scatter_add_flat (grad_outputs[0], pos, &node->input_meta[0], error));
  return TRUE;
}

const CrOpInfo cr_op_row_DIAGONAL = {
  CR_OP_DIAGONAL, "diagonal", "DiagonalBackward0", 1, "diagonal",
  "∂out/∂x: G placed on the diagonal of zeros", diagonal_backward, NULL
};

CrTensor *
cr_diagonal (CrTensor  *x,
             gint64     offset,
             int        dim1,
             int        dim2,
             GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS], in_strides[CR_MAX_DIMS];
  gint64 coord[CR_MAX_DIMS] = { 0, };
  gint64 start, size, view_offset;
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *out;
  gint64 *p;
  int n = 0;

  if (!cr_ops_wrap_dim (&dim1, x->ndim, error) || !cr_ops_wrap_dim (&dim2, x->ndim, error))
    return NULL;
  if (dim1 == dim2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "diagonal dimensions cannot be identical %d, %d", dim1, dim2);
      return NULL;
    }
  if (offset >= 0)
    size = MAX (MIN (x->shape[dim1], x->shape[dim2] - offset), 0);
  else
    size = MAX (MIN (x->shape[dim1] + offset, x->shape[dim2]), 0);
  view_offset = x->offset;
  if (size > 0)
    view_offset += offset >= 0 ? offset * x->strides[dim2] : -offset * x->strides[dim1];
  for (int d = 0; d < x->ndim; d++)
    if (d != dim1 && d != dim2)
      {
        shape[n] = x->shape[d];
        strides[n++] = x->strides[d];
      }
  shape[n] = size;
  strides[n++] = x->strides[dim1] + x->strides[dim2];
  out = cr_ops_make_view (x, shape, n, strides, view_offset);
  if (!cr_autograd_should_record (&x, 1))
    return out;

  /* The positions, in the input's row-major order, of each output element. */
  cr_shape_contiguous_strides (x->shape, x->ndim, in_strides);
  pos = cr_tensor_new_empty (shape, n, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    {
      cr_tensor_unref (out);
      return NULL;
    }
  /* (Only read when the diagonal has elements, so the offset is in range.) */
  start = size == 0 ? 0 : offset >= 0 ? offset * in_strides[dim2] : -offset * in_strides[dim1];
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      gint64 at = start;
      int k = 0;

      for (int d = 0; d < x->ndim; d++)
        if (d != dim1 && d != dim2)
          at += coord[k++] * in_strides[d];
      at += coord[n - 1] * (in_strides[dim1] + in_strides[dim2]);
      p[i] = at;
      for (int d = n - 1; d >= 0; d--)
        {
          if (++coord[d] < shape[d])
            break;
          coord[d] = 0;
        }
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
  if (pos == NULL)
    {
      cr_tensor_unref (out);
      return NULL;
    }
  {
    CrNode *node = cr_node_new (CR_OP_DIAGONAL, &x, 1, 1);

    cr_node_save (node, 0, pos, FALSE);
    cr_ops_attach (out, node);
  }
  return out;
}

/* ---- einsum ------------------------------------------------------------- */

#define N_LETTERS 26
#define N_LABELS (2 * N_LETTERS)
#define ELLIPSIS N_LABELS

static int
label_to_subscript (char c)
{
  return g_ascii_isupper (c) ? c - 'A' : c - 'a' + N_LETTERS;
}

static char
subscript_to_label (int s)
{
  return s < N_LETTERS ? 'A' + s : 'a' + s - N_LETTERS;
}

static void
einsum_error (GError      **error,
              const char   *format,
              ...) G_GNUC_PRINTF (2, 3);

static void
einsum_error (GError      **error,
              const char   *format,
              ...)
{
  va_list ap;
  char *message;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "einsum(): %s", message);
  g_free (message);
}

/* Replaces *t (owned) by the result (NULL on error, *t then cleared). */
static gboolean
step (CrTensor  **t,
      CrTensor   *next)
{
  cr_tensor_unref (*t);
  *t = next;
  return next != NULL;
}

/* (left * right).sum(sum_dims, keepdim=True) through bmm, as PyTorch's
 * sumproduct_pair: both have the same number of dims (broadcasting sizes of
 * 1); sum_dims ascending. A new ref. */
static CrTensor *
sumproduct_pair (CrTensor   *left_in,
                 CrTensor   *right_in,
                 const int  *sum_dims,
                 int         n_sum,
                 GError    **error)
{
  g_autoptr(CrTensor) left = cr_tensor_ref (left_in);
  g_autoptr(CrTensor) right = cr_tensor_ref (right_in);
  g_autoptr(CrTensor) result = NULL;
  gboolean is_sum[CR_MAX_DIMS] = { FALSE, };
  int lro[CR_MAX_DIMS], lo[CR_MAX_DIMS], ro[CR_MAX_DIMS];
  int n_lro = 0, n_lo = 0, n_ro = 0;
  int lperm[CR_MAX_DIMS], rperm[CR_MAX_DIMS], operm[CR_MAX_DIMS];
  gint64 lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  gint64 out_size[CR_MAX_DIMS], lshape[3], rshape[3];
  int dim = left->ndim, k = 0, n_out = 0;

  if (n_sum == 0)
    return cr_mul (left, right, error);
  for (int i = 0; i < n_sum; i++)
    is_sum[sum_dims[i]] = TRUE;
  for (int i = 0; i < dim; i++)
    {
      gboolean sl = left->shape[i] != 1, sr = right->shape[i] != 1;

      if (is_sum[i])
        {
          if (sl && sr)
            {
              if (left->shape[i] != right->shape[i])
                {
                  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                       "non-broadcast dimensions must match");
                  return NULL;
                }
              sum_size *= left->shape[i];
            }
          else if (sl)
            {
              if (!step (&left, cr_sum_dim (left, &i, 1, TRUE, error)))
                return NULL;
            }
          else if (sr)
            {
              if (!step (&right, cr_sum_dim (right, &i, 1, TRUE, error)))
                return NULL;
            }
        }
      else if (sl && sr)
        {
          if (left->shape[i] != right->shape[i])
            {
              g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "non-broadcast dimensions must match");
              return NULL;
            }
          lro[n_lro++] = i;
          lro_size *= left->shape[i];
        }
      else if (sl)
        {
          lo[n_lo++] = i;
          lo_size *= left->shape[i];
        }
      else
        {
          ro[n_ro++] = i;
          ro_size *= right->shape[i];
        }
    }

  for (int i = 0; i < n_lro; i++)
    out_size[n_out++] = left->shape[lro[i]];
  for (int i = 0; i < n_lo; i++)
    out_size[n_out++] = left->shape[lo[i]];
  for (int i = 0; i < n_sum; i++)
    out_size[n_out++] = 1;
  for (int i = 0; i < n_ro; i++)
    out_size[n_out++] = right->shape[ro[i]];

  k = 0;
  for (int i = 0; i < n_lro; i++) lperm[k++] = lro[i];
  for (int i = 0; i < n_lo; i++) lperm[k++] = lo[i];
  for (int i = 0; i < n_sum; i++) lperm[k++] = sum_dims[i];
  for (int i = 0; i < n_ro; i++) lperm[k++] = ro[i];
  k = 0;
  for (int i = 0; i < n_lro; i++) rperm[k++] = lro[i];
  for (int i = 0; i < n_sum; i++) rperm[k++] = sum_dims[i];
  for (int i = 0; i < n_ro; i++) rperm[k++] = ro[i];
  for (int i = 0; i < n_lo; i++) rperm[k++] = lo[i];
  k = 0;
  for (int i = 0; i < n_lro; i++) operm[lro[i]] = k++;
  for (int i = 0; i < n_lo; i++) operm[lo[i]] = k++;
  for (int i = 0; i < n_sum; i++) operm[sum_dims[i]] = k++;
  for (int i = 0; i < n_ro; i++) operm[ro[i]] = k++;

  lshape[0] = lro_size; lshape[1] = lo_size; lshape[2] = sum_size;
  rshape[0] = lro_size; rshape[1] = sum_size; rshape[2] = ro_size;
  if (!step (&left, cr_permute (left, lperm, dim, error))
      || !step (&left, cr_reshape (left, lshape, 3, error))
      || !step (&right, cr_permute (right, rperm, dim, error))
      || !step (&right, cr_reshape (right, rshape, 3, error)))
    return NULL;
  result = cr_bmm (left, right, error);
  if (result == NULL
      || !step (&result, cr_view (result, out_size, n_out, error))
      || !step (&result, cr_permute (result, operm, n_out, error)))
    return NULL;
  return g_steal_pointer (&result);
}

/* The labels of each operand (ELLIPSIS for "..."), parsed from lhs. */
static gboolean
parse_operands (const char   *lhs,
                gsize         lhs_len,
                guint         n_ops,
                GArray      **labels,
                GError      **error)
{
  gboolean ell_in_input = FALSE;
  guint curr = 0;

  for (gsize i = 0; i < lhs_len; i++)
    {
      char c = lhs[i];
      guint8 s;

      switch (c)
        {
        case ' ':
          break;
        case '.':
          if (ell_in_input)
            {
              einsum_error (error, "found '.' for operand %u for which an ellipsis was already "
                            "found", curr);
              return FALSE;
            }
          if (!(i + 2 < lhs_len && lhs[++i] == '.' && lhs[++i] == '.'))
            {
              einsum_error (error, "found '.' for operand %u that is not part of any ellipsis",
                            curr);
              return FALSE;
            }
          s = ELLIPSIS;
          g_array_append_val (labels[curr], s);
          ell_in_input = TRUE;
          break;
        case ',':
          if (++curr >= n_ops)
            {
              einsum_error (error,
                            "fewer operands were provided than specified in the equation");
              return FALSE;
            }
          ell_in_input = FALSE;
          break;
        default:
          if (!g_ascii_isalpha (c))
            {
              einsum_error (error, "invalid subscript given at index %" G_GSIZE_FORMAT " in the "
                            "equation string, subscripts must be in [a-zA-Z]", i);
              return FALSE;
            }
          s = (guint8) label_to_subscript (c);
          g_array_append_val (labels[curr], s);
        }
    }
  if (curr != n_ops - 1)
    {
      einsum_error (error, "more operands were provided than specified in the equation");
      return FALSE;
    }
  return TRUE;
}

static void
free_labels (GArray **labels,
             guint    n)
{
  for (guint i = 0; i < n; i++)
    g_array_unref (labels[i]);
  g_free (labels);
}

CrTensor *
cr_einsum (const char       *equation,
           CrTensor *const  *operands,
           guint             n_ops,
           GError          **error)
{
  GArray **labels = NULL;
  gint64 label_count[N_LABELS] = { 0, };
  int label_perm_index[N_LABELS];
  gint64 label_size[N_LABELS];
  gint64 ell_sizes[CR_MAX_DIMS];
  guint64 dim_counts[N_LABELS + CR_MAX_DIMS] = { 0, };
  const char *arrow;
  gsize lhs_len;
  int ell_num_dim = 0, perm_index = 0, ell_index = 0, out_num_dim;
  gboolean ell_in_output = FALSE;
  GPtrArray *ops = NULL;
  CrTensor *result = NULL;

  if (n_ops == 0)
    {
      einsum_error (error, "must provide at least one operand");
      return NULL;
    }
  arrow = strstr (equation, "->");
  lhs_len = arrow != NULL ? (gsize) (arrow - equation) : strlen (equation);
  labels = g_new0 (GArray *, n_ops);
  for (guint i = 0; i < n_ops; i++)
    labels[i] = g_array_new (FALSE, FALSE, sizeof (guint8));
  if (!parse_operands (equation, lhs_len, n_ops, labels, error))
    goto out;

  for (guint i = 0; i < n_ops; i++)
    {
      int ndims = operands[i]->ndim;
      int nlabels = (int) labels[i]->len;
      gboolean has_ellipsis = FALSE;

      for (guint k = 0; k < labels[i]->len; k++)
        {
          guint8 s = g_array_index (labels[i], guint8, k);

          if (s == ELLIPSIS)
            {
              nlabels--;
              has_ellipsis = TRUE;
              ell_num_dim = MAX (ell_num_dim, ndims - nlabels);
            }
          else
            label_count[s]++;
        }
      if (has_ellipsis ? nlabels > ndims : nlabels != ndims)
        {
          einsum_error (error, "the number of subscripts in the equation (%d) %s the number of "
                        "dimensions (%d) for operand %u%s", nlabels,
                        has_ellipsis ? "is more than" : "does not match", ndims, i,
                        has_ellipsis ? "" : " and no ellipsis was given");
          goto out;
        }
    }

  for (int s = 0; s < N_LABELS; s++)
    label_perm_index[s] = -1;
  if (arrow == NULL)
    {
      /* Implicit output: the ellipsis, then the labels seen once, sorted. */
      perm_index = ell_num_dim;
      ell_in_output = TRUE;
      for (int s = 0; s < N_LABELS; s++)
        if (label_count[s] == 1)
          label_perm_index[s] = perm_index++;
    }
  else
    {
      const char *rhs = arrow + 2;
      gsize rhs_len = strlen (rhs);

      for (gsize i = 0; i < rhs_len; i++)
        {
          char c = rhs[i];
          int s;

          if (c == ' ')
            continue;
          if (c == '.')
            {
              if (ell_in_output)
                {
                  einsum_error (error, "found '.' for output but an ellipsis (...) was already "
                                "found");
                  goto out;
                }
              if (!(i + 2 < rhs_len && rhs[++i] == '.' && rhs[++i] == '.'))
                {
                  einsum_error (error, "found '.' for output that is not part of any ellipsis "
                                "(...)");
                  goto out;
                }
              ell_index = perm_index;
              perm_index += ell_num_dim;
              ell_in_output = TRUE;
              continue;
            }
          if (!g_ascii_isalpha (c))
            {
              einsum_error (error, "invalid subscript given at index %" G_GSIZE_FORMAT " in the "
                            "equation string, subscripts must be in [a-zA-Z]",
                            lhs_len + 2 + i);
              goto out;
            }
          s = label_to_subscript (c);
          if (label_count[s] == 0 || label_perm_index[s] != -1)
            {
              einsum_error (error, "output subscript %c %s", c,
                            label_perm_index[s] > -1
                            ? "appears more than once in the output"
                            : "does not appear in the equation for any input operand");
              goto out;
            }
          label_perm_index[s] = perm_index++;
        }
    }

  out_num_dim = perm_index;
  if (!ell_in_output)
    {
      ell_index = perm_index;
      perm_index += ell_num_dim;
    }
  for (int s = 0; s < N_LABELS; s++)
    if (label_count[s] > 0 && label_perm_index[s] == -1)
      label_perm_index[s] = perm_index++;
  if (perm_index > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "einsum() over more than %d distinct dimensions is not supported by "
                   "Chainrule yet", CR_MAX_DIMS);
      goto out;
    }

  /* Diagonals for repeated labels, unsqueezed missing dims, one order. */
  for (int s = 0; s < N_LABELS; s++)
    label_size[s] = 1;
  for (int j = 0; j < ell_num_dim; j++)
    ell_sizes[j] = 1;
  ops = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  for (guint i = 0; i < n_ops; i++)
    {
      CrTensor *op = cr_tensor_ref (operands[i]);
      int permutation[CR_MAX_DIMS];
      int dim = 0;

      for (int k = 0; k < perm_index; k++)
        permutation[k] = -1;
      for (guint k = 0; k < labels[i]->len; k++)
        {
          guint8 s = g_array_index (labels[i], guint8, k);

          if (s == ELLIPSIS)
            {
              int ndim = operands[i]->ndim - ((int) labels[i]->len - 1);

              for (int j = ell_num_dim - ndim; j < ell_num_dim; j++)
                {
                  if (op->shape[dim] != 1)
                    {
                      if (ell_sizes[j] != 1 && ell_sizes[j] != op->shape[dim])
                        {
                          einsum_error (error, "dimension %d covered by ellipsis in operand "
                                        "%uhas size %" G_GINT64_FORMAT " which does not "
                                        "broadcast with previously seen ellipsis with size %"
                                        G_GINT64_FORMAT " for the respective dimension",
                                        dim, i, op->shape[dim], ell_sizes[j]);
                          cr_tensor_unref (op);
                          goto out;
                        }
                      ell_sizes[j] = op->shape[dim];
                      dim_counts[ell_index + j]++;
                    }
                  permutation[ell_index + j] = dim++;
                }
            }
          else if (permutation[label_perm_index[s]] == -1)
            {
              if (op->shape[dim] != 1)
                {
                  if (label_size[s] != 1 && label_size[s] != op->shape[dim])
                    {
                      einsum_error (error, "subscript %c has size %" G_GINT64_FORMAT " for "
                                    "operand %u which does not broadcast with previously seen "
                                    "size %" G_GINT64_FORMAT, subscript_to_label (s),
                                    op->shape[dim], i, label_size[s]);
                      cr_tensor_unref (op);
                      goto out;
                    }
                  label_size[s] = op->shape[dim];
                  dim_counts[label_perm_index[s]]++;
                }
              permutation[label_perm_index[s]] = dim++;
            }
          else
            {
              /* A repeated label: its diagonal, moved to the first one's place. */
              int prev = permutation[label_perm_index[s]];
              int moved[CR_MAX_DIMS];
              int n;

              if (op->shape[dim] != op->shape[prev])
                {
                  einsum_error (error, "subscript %c is repeated for operand %u but the sizes "
                                "don't match, %" G_GINT64_FORMAT " != %" G_GINT64_FORMAT,
                                subscript_to_label (s), i, op->shape[dim], op->shape[prev]);
                  cr_tensor_unref (op);
                  goto out;
                }
              if (!step (&op, cr_diagonal (op, 0, prev, dim, error)))
                goto out;
              n = op->ndim;
              for (int d = 0, from = 0; d < n; d++)
                moved[d] = d == prev ? n - 1 : from++;
              if (!step (&op, cr_permute (op, moved, n, error)))
                goto out;
            }
        }
      for (int k = 0; k < perm_index; k++)
        if (permutation[k] == -1)
          {
            if (!step (&op, cr_unsqueeze (op, dim, error)))
              goto out;
            permutation[k] = dim++;
          }
      if (!step (&op, cr_permute (op, permutation, perm_index, error)))
        goto out;
      g_ptr_array_add (ops, op);
    }

  /* Fold left to right. */
  while (ops->len > 1)
    {
      g_autoptr(CrTensor) a = cr_tensor_ref (g_ptr_array_index (ops, 0));
      g_autoptr(CrTensor) b = cr_tensor_ref (g_ptr_array_index (ops, 1));
      int sum_dims[CR_MAX_DIMS], a_sum[CR_MAX_DIMS], b_sum[CR_MAX_DIMS];
      int n_sum = 0, n_a = 0, n_b = 0;
      CrTensor *pair;

      g_ptr_array_remove_range (ops, 0, 2);
      for (int dim = out_num_dim; dim < perm_index; dim++)
        {
          if (a->shape[dim] != 1 && b->shape[dim] != 1)
            {
              if (--dim_counts[dim] == 1)
                {
                  sum_dims[n_sum++] = dim;
                  dim_counts[dim] = 0;
                }
            }
          else if (dim_counts[dim] == 1)
            {
              if (a->shape[dim] != 1)
                {
                  a_sum[n_a++] = dim;
                  dim_counts[dim] = 0;
                }
              else if (b->shape[dim] != 1)
                {
                  b_sum[n_b++] = dim;
                  dim_counts[dim] = 0;
                }
            }
        }
      if ((n_a > 0 && !step (&a, cr_sum_dim (a, a_sum, n_a, TRUE, error)))
          || (n_b > 0 && !step (&b, cr_sum_dim (b, b_sum, n_b, TRUE, error))))
        goto out;
      pair = sumproduct_pair (a, b, sum_dims, n_sum, error);
      if (pair == NULL)
        goto out;
      g_ptr_array_insert (ops, 0, pair);
    }

  result = cr_tensor_ref (g_ptr_array_index (ops, 0));
  if (perm_index - out_num_dim > 0)
    {
      if (n_ops > 1)
        {
          /* The contracted dims are all 1 by now: viewed away. */
          gint64 sizes[CR_MAX_DIMS];

          memcpy (sizes, result->shape, sizeof (gint64) * out_num_dim);
          step (&result, cr_view (result, sizes, out_num_dim, error));
        }
      else
        {
          int sum_dims[CR_MAX_DIMS];

          for (int d = out_num_dim; d < perm_index; d++)
            sum_dims[d - out_num_dim] = d;
          step (&result, cr_sum_dim (result, sum_dims, perm_index - out_num_dim, FALSE, error));
        }
    }

out:
  if (ops != NULL)
    g_ptr_array_unref (ops);
  free_labels (labels, n_ops);
  return result;
}
