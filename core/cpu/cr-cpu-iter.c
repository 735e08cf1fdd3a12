/* cr-cpu-iter.c — the strided broadcasting iterator and small helpers the CPU
 * kernel files share (see cr-cpu-private.h). */
#include "cr-cpu-private.h"

gboolean
cr_cpu_wrap_dim (int       dim,
                 int       ndim,
                 int      *out_dim,
                 GError  **error)
{
  int n = ndim > 0 ? ndim : 1;

  if (dim < -n || dim >= n)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                   -n, n - 1, dim);
      return FALSE;
    }
  *out_dim = dim < 0 ? dim + n : dim;
  return TRUE;
}

void
cr_cpu_set_not_implemented (GError     **error,
                            const char  *kernel,
                            CrDType      dtype)
{
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "\"%s\" not implemented for '%s'", kernel, cr_dtype_scalar_name (dtype));
}

/* Where a NULL operand (one the row function ignores, as allclose's output)
 * points: the iterator still moves its pointer, by zero bytes, and NULL + 0 is
 * undefined behaviour in C. */
static char unused_operand;

void
cr_cpu_iter_init (CrCpuIter          *iter,
              const gint64    *shape,
              int              ndim,
              const CrTensor  *const *operands,
              int              n_operands)
{
  int nd = 0;

  g_assert (n_operands <= CR_ITER_MAX_OPERANDS);

  iter->n_operands = n_operands;
  for (int i = 0; i < n_operands; i++)
    {
      const CrTensor *t = operands[i];

      iter->itemsize[i] = t != NULL ? cr_cpu_itemsize (t->dtype) : 0;
      iter->data[i] = t != NULL ? cr_cpu_data (t) : &unused_operand;
    }

  /* Dims of size 1 never move a pointer: drop them. */
  for (int d = 0; d < ndim; d++)
    {
      if (shape[d] == 1)
        continue;
      iter->shape[nd] = shape[d];
      for (int i = 0; i < n_operands; i++)
        {
          const CrTensor *t = operands[i];
          int td = d - (ndim - (t != NULL ? t->ndim : 0));
          gint64 stride = 0;

          if (t != NULL && td >= 0 && t->shape[td] != 1)
            stride = t->strides[td] * (gint64) iter->itemsize[i];
          iter->strides[i][nd] = stride;
        }
      nd++;
    }

  /* Merge an outer dim into the next inner one when every operand steps
   * through them as through one dim. */
  if (nd > 1)
    {
      int out = 0;

      for (int d = 1; d < nd; d++)
        {
          gboolean mergeable = TRUE;

          for (int i = 0; i < n_operands; i++)
            if (iter->strides[i][out] != iter->strides[i][d] * iter->shape[d])
              {
                mergeable = FALSE;
                break;
              }
          if (mergeable)
            {
              iter->shape[out] *= iter->shape[d];
              for (int i = 0; i < n_operands; i++)
                iter->strides[i][out] = iter->strides[i][d];
            }
          else
            {
              out++;
              iter->shape[out] = iter->shape[d];
              for (int i = 0; i < n_operands; i++)
                iter->strides[i][out] = iter->strides[i][d];
            }
        }
      nd = out + 1;
    }

  if (nd == 0)
    {
      nd = 1;
      iter->shape[0] = 1;
      for (int i = 0; i < n_operands; i++)
        iter->strides[i][0] = 0;
    }
  /* A zero-size dim was kept (it is not 1): the whole problem is empty. */
  iter->ndim = nd;
  iter->numel = 1;
  for (int d = 0; d < nd; d++)
    iter->numel *= iter->shape[d];
  for (int i = 0; i < n_operands; i++)
    iter->inner_strides[i] = iter->itemsize[i] ? iter->strides[i][nd - 1] / (gint64) iter->itemsize[i] : 0;
}

void
cr_cpu_iter_set_scalar (CrCpuIter *iter,
                    int     operand,
                    void   *data,
                    gsize   itemsize)
{
  iter->data[operand] = data;
  iter->itemsize[operand] = itemsize;
  for (int d = 0; d < iter->ndim; d++)
    iter->strides[operand][d] = 0;
  iter->inner_strides[operand] = 0;
}

typedef struct {
  const CrCpuIter *iter;
  CrRowFunc     fn;
  gpointer      ctx;
} RunData;

static void
run_range (const CrCpuIter *iter,
           gint64        begin,
           gint64        end,
           CrRowFunc     fn,
           gpointer      ctx)
{
  int nd = iter->ndim;
  int nops = iter->n_operands;
  int last = nd - 1;
  gint64 inner = iter->shape[last];
  gint64 idx[CR_MAX_DIMS];
  char *ptrs[CR_ITER_MAX_OPERANDS];
  gint64 rem = begin;
  gint64 pos = begin;

  for (int i = 0; i < nops; i++)
    ptrs[i] = iter->data[i];
  for (int d = last; d >= 0; d--)
    {
      idx[d] = rem % iter->shape[d];
      rem /= iter->shape[d];
      for (int i = 0; i < nops; i++)
        ptrs[i] += idx[d] * iter->strides[i][d];
    }

  while (pos < end)
    {
      gint64 n = MIN (inner - idx[last], end - pos);

      fn (n, ptrs, iter->inner_strides, ctx);
      pos += n;
      idx[last] += n;
      for (int i = 0; i < nops; i++)
        ptrs[i] += n * iter->strides[i][last];
      if (idx[last] < inner)
        continue;

      /* Carry into the outer dims. */
      for (int d = last; d >= 0; d--)
        {
          if (idx[d] < iter->shape[d])
            break;
          for (int i = 0; i < nops; i++)
            ptrs[i] -= iter->shape[d] * iter->strides[i][d];
          idx[d] = 0;
          if (d == 0)
            break;
          idx[d - 1]++;
          for (int i = 0; i < nops; i++)
            ptrs[i] += iter->strides[i][d - 1];
        }
    }
}

static void
run_chunk (gint64   begin,
           gint64   end,
           gpointer data)
{
  RunData *run = data;

  run_range (run->iter, begin, end, run->fn, run->ctx);
}

void
cr_cpu_iter_run (CrCpuIter    *iter,
             CrRowFunc  fn,
             gpointer   ctx)
{
  if (iter->numel == 0)
    return;
  if (iter->numel < 2 * CR_PARALLEL_GRAIN)
    {
      if (iter->ndim == 1)
        fn (iter->numel, iter->data, iter->inner_strides, ctx);
      else
        run_range (iter, 0, iter->numel, fn, ctx);
      return;
    }
  {
    RunData run = { iter, fn, ctx };

    cr_parallel_for (iter->numel, CR_PARALLEL_GRAIN, run_chunk, &run);
  }
}

void
cr_cpu_iter_run_serial (CrCpuIter    *iter,
                    CrRowFunc  fn,
                    gpointer   ctx)
{
  if (iter->numel > 0)
    run_range (iter, 0, iter->numel, fn, ctx);
}
