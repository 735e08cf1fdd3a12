/* cr-cuda-reduce.cu — sum, mean, prod (sum_to_shape is a sum over the dims
 * core picks), max/min with and without indices, argmax/argmin, any/all and
 * allclose: the reductions of core/cpu/cr-cpu-reduce.c.
 *
 * Geometry: the input's dims are split into kept dims (the output's order) and
 * reduced dims, each coalesced (crl::Geo), so output element o and reduction
 * position r live at geo_offset(kept, o) + geo_offset(red, r). r runs over the
 * reduced dims in row-major order: for max/argmax that is the index PyTorch
 * returns (the flat index when every dim is reduced).
 *
 * One kernel does every reduction: a block of (bx, by) threads, x across
 * outputs, y across r. Contiguous reductions (reduced innermost with stride 1)
 * put every thread on r (a block per output for long rows); column
 * reductions put 32 threads across neighbouring outputs so loads coalesce.
 * Long reductions with few outputs split r over several blocks that write
 * partial results, and a second pass of the same kernel combines them.
 *
 * Numerics, as on the CPU: float32 sums and products accumulate in double,
 * int64/bool in int64; mean divides the sum rounded to the dtype by the count
 * in the dtype. There are no float atomics: the order of the additions depends
 * only on the shape (the block sizes are constants, not read from the device),
 * so a result is the same on every run and every GPU, though not bit-equal to
 * the CPU's order. max/min pick NaN over numbers and the first index among
 * equal values, which is exact whatever the order, so they equal the CPU's
 * values and indices bit for bit. */
#include "cr-cuda-strided.cuh"

#include <math.h>

namespace crl {

/* ---- the reduction ops ---------------------------------------------------------- */

/* Each op: AccT, NK (operands of the kept dims: x, then the outputs),
 * identity(), element(v, r) (an element at reduction position r as an Acc),
 * combine(a, b) (a's positions come before b's), store(off, acc) (off[k]: the
 * offset of operand k for this output). */

template <typename T, typename Acc>
struct SumOp {
  typedef Acc AccT;
  static constexpr int NK = 2;
  T      *out;
  bool    mean;
  int64_t count;
  __device__ Acc identity () const { return (Acc) 0; }
  __device__ Acc element (T v, int64_t) const { return (Acc) v; }
  __device__ Acc
  combine (Acc a, Acc b) const
  {
    if constexpr (std::is_same<Acc, int64_t>::value)
      return wrap_add (a, b);                 /* int64 sums wrap, as PyTorch's */
    else
      return a + b;
  }
  __device__ void
  store (const int64_t *off, Acc acc) const
  {
    T s = (T) acc;
    if (mean)   /* as PyTorch: the sum in the dtype, divided by the count in the dtype */
      s = s / (T) count;
    out[off[1]] = s;
  }
};

template <typename T, typename Acc>
struct ProdOp {
  typedef Acc AccT;
  static constexpr int NK = 2;
  T *out;
  __device__ Acc identity () const { return (Acc) 1; }
  __device__ Acc element (T v, int64_t) const { return (Acc) v; }
  __device__ Acc
  combine (Acc a, Acc b) const
  {
    if constexpr (std::is_same<Acc, int64_t>::value)
      return wrap_mul (a, b);
    else
      return a * b;
  }
  __device__ void store (const int64_t *off, Acc acc) const { out[off[1]] = (T) acc; }
};

/* any (is_all false) / all over nonzero-ness (NaN is nonzero), into bool. */
template <typename T>
struct TruthOp {
  typedef int AccT;
  static constexpr int NK = 2;
  uint8_t *out;
  bool     is_all;
  __device__ int identity () const { return is_all ? 1 : 0; }
  __device__ int element (T v, int64_t) const { return convert<uint8_t> (v) ? 1 : 0; }
  __device__ int combine (int a, int b) const { return is_all ? (a & b) : (a | b); }
  __device__ void store (const int64_t *off, int acc) const { out[off[1]] = acc ? 1 : 0; }
};

template <typename T>
struct ValueIndex {
  T       v;
  int64_t i;    /* -1: no element yet */
};

template <typename T>
__device__ __forceinline__ bool
is_nan (T v)
{
  return v != v;   /* false for the integer types */
}

/* max/min with the first index: NaN beats numbers (the first NaN wins),
 * equal values keep the smaller index. Commutative and associative, so every
 * tree gives the CPU's answer. Operands: x, values, indices. */
template <typename T>
struct ArgOp {
  typedef ValueIndex<T> AccT;
  static constexpr int NK = 3;
  T       *values;    /* may be NULL */
  int64_t *indices;   /* may be NULL */
  bool     is_min;
  __device__ AccT identity () const { AccT a; a.v = (T) 0; a.i = -1; return a; }
  __device__ AccT element (T v, int64_t r) const { AccT a; a.v = v; a.i = r; return a; }
  __device__ AccT
  combine (AccT a, AccT b) const
  {
    if (a.i < 0)
      return b;
    if (b.i < 0)
      return a;
    bool an = is_nan (a.v), bn = is_nan (b.v);
    if (an || bn)
      {
        if (an && bn)
          return a.i <= b.i ? a : b;
        return an ? a : b;
      }
    if (a.v == b.v)
      return a.i <= b.i ? a : b;
    if (is_min)
      return a.v < b.v ? a : b;
    return a.v > b.v ? a : b;
  }
  __device__ void
  store (const int64_t *off, AccT acc) const
  {
    if (values != nullptr)
      values[off[1]] = acc.v;
    if (indices != nullptr)
      indices[off[2]] = acc.i;
  }
};

/* ---- the kernel -------------------------------------------------------------------- */

/* Where an Acc comes from: the input's elements, or partial results (o *
 * splits + s) of a first pass. */
template <typename T, typename Op>
struct ElementSource {
  const T *x;
  __device__ typename Op::AccT
  get (const Op &op, int64_t off, int64_t r) const
  {
    return op.element (x[off], r);
  }
};

template <typename Op>
struct PartialSource {
  const typename Op::AccT *p;
  __device__ typename Op::AccT
  get (const Op &, int64_t off, int64_t) const
  {
    return p[off];
  }
};

struct Plan {
  int     bx, by;        /* block shape: bx outputs, by threads along r */
  int64_t out_blocks;    /* ceil(n_out / bx) */
  int64_t splits;        /* blocks along r per output block */
  int64_t chunk;         /* positions of r per split */
};

/* Block b handles outputs [ob*bx, ob*bx + bx) over r in [s*chunk, s*chunk +
 * chunk), with ob = b / splits and s = b % splits. With splits > 1 it writes
 * partial[o * splits + s], else the result through op.store. kept: operand 0
 * is the source, the others the outputs; red: the source's reduced dims. */
template <typename Op, typename Src>
__global__ void
reduce_kernel (Op op, Src src, Dims<Op::NK> kept, Dims<1> red, int64_t n_out, int64_t n_red,
               Plan plan, typename Op::AccT *partial)
{
  typedef typename Op::AccT Acc;
  extern __shared__ __align__ (16) unsigned char smem_raw[];
  Acc *smem = reinterpret_cast<Acc *> (smem_raw);

  int64_t b = blockIdx.x;
  int64_t ob = b / plan.splits;
  int64_t s = b - ob * plan.splits;
  int tx = threadIdx.x, ty = threadIdx.y;
  int64_t o = ob * plan.bx + tx;
  int64_t r_begin = s * plan.chunk;
  int64_t r_end = r_begin + plan.chunk < n_red ? r_begin + plan.chunk : n_red;
  int64_t off[Op::NK];

  Acc acc = op.identity ();
  if (o < n_out)
    {
      dims_offsets (kept, o, off);
      for (int64_t r = r_begin + ty; r < r_end; r += plan.by)
        acc = op.combine (acc, src.get (op, off[0] + dims_offset (red, r), r));
    }

  /* A tree over y, in a fixed order. */
  acc = block_rows_reduce (acc, smem, plan.bx, plan.by,
                           [&op] (Acc a, Acc b) { return op.combine (a, b); });
  if (ty == 0 && o < n_out)
    {
      if (plan.splits > 1)
        partial[o * plan.splits + s] = acc;
      else
        op.store (off, acc);
    }
}

/* Block shape and splits for n_out outputs of n_red positions each, from
 * constants only, so that the order of additions is a function of the shape. */
static Plan
make_plan (int64_t n_out, int64_t n_red, bool contiguous_red)
{
  Plan p;
  RowBlock rb = row_block (n_out, n_red, contiguous_red);

  p.bx = rb.bx;
  p.by = rb.by;
  p.out_blocks = (n_out + p.bx - 1) / p.bx;
  p.splits = 1;
  p.chunk = n_red;
  /* Few blocks and long rows: split r over blocks, >= 64 steps per thread. */
  if (p.out_blocks < 512 && n_red > (int64_t) p.by * 64)
    {
      int64_t want = (512 + p.out_blocks - 1) / p.out_blocks;
      int64_t most = n_red / ((int64_t) p.by * 64);
      int64_t splits = want < most ? want : most;
      if (splits > 1024)
        splits = 1024;
      if (splits > 1)
        {
          p.chunk = (n_red + splits - 1) / splits;
          p.splits = (n_red + p.chunk - 1) / p.chunk;
        }
    }
  return p;
}

/* Reduces src over red into op's outputs; kept: operand 0 the source. */
template <typename Op, typename T>
static int
run_reduce (const Op &op, const T *x, const Dims<Op::NK> &kept, const Dims<1> &red,
            char *msg, size_t msg_size)
{
  typedef typename Op::AccT Acc;
  typedef ElementSource<T, Op> Src;
  int64_t n_out = dims_numel (kept);
  int64_t n_red = dims_numel (red);
  bool contiguous_red = red.n > 0 && red.stride[0][red.n - 1] == 1;
  Plan plan = make_plan (n_out, n_red, contiguous_red);
  size_t smem = (size_t) kThreads * sizeof (Acc);
  dim3 block ((unsigned) plan.bx, (unsigned) plan.by);
  Src src = { x };

  if (plan.out_blocks * plan.splits > INT32_MAX)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "reduce: too many outputs for one launch (%lld)", (long long) n_out);

  if (plan.splits == 1)
    {
      reduce_kernel<Op, Src><<<(unsigned) plan.out_blocks, block, smem, stream ()>>>
        (op, src, kept, red, n_out, n_red, plan, nullptr);
      CRL_CHECK_LAUNCH ("reduce kernel");
      return CR_CUDA_OK;
    }

  /* Pass 1 into n_out x splits partials; pass 2 combines each output's. */
  Scratch partial;
  CRL_TRY (partial.alloc ((size_t) (n_out * plan.splits) * sizeof (Acc), msg, msg_size));
  reduce_kernel<Op, Src><<<(unsigned) (plan.out_blocks * plan.splits), block, smem, stream ()>>>
    (op, src, kept, red, n_out, n_red, plan, (Acc *) partial.ptr);
  CRL_CHECK_LAUNCH ("reduce kernel (pass 1)");

  /* Pass 2: the same outputs; operand 0 now steps over the partial rows. */
  Dims<Op::NK> kept2 = kept;
  int64_t step = plan.splits;
  for (int d = kept2.n - 1; d >= 0; d--)
    {
      kept2.stride[0][d] = step;
      step *= kept2.shape[d];
    }
  Dims<1> red2;
  dims_init (&red2);
  dims_push1 (&red2, plan.splits, 1);
  Plan plan2 = make_plan (n_out, plan.splits, true);
  plan2.splits = 1;   /* splits <= 1024 < 64 * by: never split again */
  plan2.chunk = plan.splits;
  PartialSource<Op> psrc = { (const Acc *) partial.ptr };
  dim3 block2 ((unsigned) plan2.bx, (unsigned) plan2.by);
  reduce_kernel<Op, PartialSource<Op>><<<(unsigned) plan2.out_blocks, block2, smem, stream ()>>>
    (op, psrc, kept2, red2, n_out, plan.splits, plan2, nullptr);
  CRL_CHECK_LAUNCH ("reduce kernel (pass 2)");
  return CR_CUDA_OK;   /* partial goes back to the cache, stream-ordered */
}

/* Splits x's dims into kept dims (x and the outputs walking them together)
 * and reduced dims (x only). outs: the NK - 1 output tensors (keepdim layout,
 * shape 1 on reduced dims, so their strides there do not matter). any_order:
 * the op ignores positions (sum, prod, any, all), so the reduced dims may be
 * walked in memory order (largest stride first), which turns the sum of a
 * transposed tensor into a contiguous one. max/min keep the logical order
 * their indices count in. */
template <int NK>
static void
split_dims (const CrCudaTensor *x, const CrCudaTensor *const *outs, uint32_t mask,
            Dims<NK> *kept, Dims<1> *red, bool any_order = false)
{
  int order[kMaxDims], n_red = 0;

  dims_init (kept);
  dims_init (red);
  for (int d = 0; d < x->ndim; d++)
    if (mask & (1u << d))
      order[n_red++] = d;
  if (any_order)
    /* Insertion sort by stride, descending; stable. */
    for (int i = 1; i < n_red; i++)
      for (int j = i; j > 0 && x->strides[order[j - 1]] < x->strides[order[j]]; j--)
        {
          int t = order[j];
          order[j] = order[j - 1];
          order[j - 1] = t;
        }
  for (int i = 0; i < n_red; i++)
    dims_push1 (red, x->shape[order[i]], x->strides[order[i]]);
  for (int d = 0; d < x->ndim; d++)
    {
      if (mask & (1u << d))
        continue;
      else
        {
          int64_t strides[NK];
          strides[0] = x->strides[d];
          for (int k = 1; k < NK; k++)
            strides[k] = outs[k - 1]->strides[d];
          dims_push (kept, x->shape[d], strides);
        }
    }
}

/* out (and out2, when given) has x's ndim with 1 on the masked dims. */
static bool
keepdim_shape_ok (const CrCudaTensor *x, const CrCudaTensor *out, uint32_t mask)
{
  if (out->ndim != x->ndim)
    return false;
  for (int d = 0; d < x->ndim; d++)
    if (out->shape[d] != ((mask & (1u << d)) ? 1 : x->shape[d]))
      return false;
  return true;
}

static const char *
dtype_name (int dtype)
{
  switch (dtype)
    {
    case CR_CUDA_FLOAT32: return "Float";
    case CR_CUDA_FLOAT64: return "Double";
    case CR_CUDA_INT64:   return "Long";
    case CR_CUDA_BOOL:    return "Bool";
    default:              return "?";
    }
}

/* ---- allclose --------------------------------------------------------------------- */

/* Sets *not_close when some pair is not close (every writer writes 1, so the
 * race is harmless). The CPU's test: equal values (infinities included) are
 * close; otherwise a non-finite value is not, else |a - b| <= atol + rtol*|b|. */
template <typename T>
__global__ void
allclose_kernel (const T *a, const T *b, Dims<2> g, int64_t n, double rtol, double atol,
                 int *not_close)
{
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t off[2];
      dims_offsets (g, i, off);
      double x = (double) a[off[0]], y = (double) b[off[1]];
      if (x == y)
        continue;
      if (!isfinite (x) || !isfinite (y) || !(fabs (x - y) <= atol + rtol * fabs (y)))
        *not_close = 1;
    }
}

/* sum, mean (count: the elements per output) or prod of x into out, T
 * accumulated as Acc. */
template <typename T, typename Acc>
static int
sum_or_prod (int op, const CrCudaTensor *out, const CrCudaTensor *x, int64_t count,
             const Dims<2> &kept, const Dims<1> &red, char *msg, size_t msg_size)
{
  T *o = (T *) element_ptr (out->data, out->dtype, out->offset);
  const T *xp = (const T *) element_ptr (x->data, x->dtype, x->offset);

  if (op == CR_CUDA_REDUCE_PROD)
    {
      ProdOp<T, Acc> p = { o };
      return run_reduce (p, xp, kept, red, msg, msg_size);
    }
  SumOp<T, Acc> s = { o, op == CR_CUDA_REDUCE_MEAN, count };
  return run_reduce (s, xp, kept, red, msg, msg_size);
}

} /* namespace crl */

using namespace crl;

/* ---- entry points ------------------------------------------------------------------- */

extern "C" int
cr_cuda_k_reduce (int op, const CrCudaTensor *out, const CrCudaTensor *x, uint32_t dims_mask,
                  char *msg, size_t msg_size)
{
  const CrCudaTensor *outs[1] = { out };
  Dims<2> kept;
  Dims<1> red;
  int64_t count = 1;

  if (x->ndim < 0 || x->ndim > kMaxDims || !keepdim_shape_ok (x, out, dims_mask & ((1u << x->ndim) - 1)))
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "reduce: the output's shape does not match the input's");
  dims_mask &= (1u << x->ndim) - 1;
  for (int d = 0; d < x->ndim; d++)
    if (dims_mask & (1u << d))
      count *= x->shape[d];
  if (tensor_numel (out) == 0)
    return CR_CUDA_OK;

  if (op == CR_CUDA_REDUCE_ANY || op == CR_CUDA_REDUCE_ALL)
    {
      if (out->dtype != CR_CUDA_BOOL || !dtype_valid (x->dtype))
        return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                                "\"%s_cuda\" not implemented for '%s'",
                                op == CR_CUDA_REDUCE_ANY ? "any" : "all", dtype_name (x->dtype));
      split_dims (x, outs, dims_mask, &kept, &red, true);
      CRL_DISPATCH (x->dtype, T,
        {
          TruthOp<T> o;
          o.out = (uint8_t *) element_ptr (out->data, out->dtype, out->offset);
          o.is_all = op == CR_CUDA_REDUCE_ALL;
          return run_reduce (o, (const T *) element_ptr (x->data, x->dtype, x->offset),
                             kept, red, msg, msg_size);
        });
    }

  if (x->dtype != out->dtype || x->dtype == CR_CUDA_BOOL || !dtype_valid (x->dtype)
      || (op == CR_CUDA_REDUCE_MEAN && !dtype_is_floating (x->dtype)))
    {
      static const char *const names[] = { "sum_cuda", "prod_cuda", "mean_cuda", "max_all_cuda",
                                           "min_all_cuda" };
      return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                              "\"%s\" not implemented for '%s'",
                              op >= 0 && op < 5 ? names[op] : "reduce", dtype_name (x->dtype));
    }

  switch (op)
    {
    case CR_CUDA_REDUCE_SUM:
    case CR_CUDA_REDUCE_MEAN:
    case CR_CUDA_REDUCE_PROD:
      split_dims (x, outs, dims_mask, &kept, &red, true);
      switch (x->dtype)
        {
        case CR_CUDA_FLOAT32:
          /* float32 accumulates in double, as the CPU kernels do. */
          return sum_or_prod<float, double> (op, out, x, count, kept, red, msg, msg_size);
        case CR_CUDA_FLOAT64:
          return sum_or_prod<double, double> (op, out, x, count, kept, red, msg, msg_size);
        default:
          return sum_or_prod<int64_t, int64_t> (op, out, x, count, kept, red, msg, msg_size);
        }

    case CR_CUDA_REDUCE_MAX:
    case CR_CUDA_REDUCE_MIN:
      {
        if (count == 0)
          return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                                  "reduce: max/min over no elements");
        /* Values only: the indices operand repeats the values' strides. */
        const CrCudaTensor *outs3[2] = { out, out };
        Dims<3> kept3;
        split_dims (x, outs3, dims_mask, &kept3, &red);
        CRL_DISPATCH (x->dtype, T,
          {
            ArgOp<T> o;
            o.values = (T *) element_ptr (out->data, out->dtype, out->offset);
            o.indices = nullptr;
            o.is_min = op == CR_CUDA_REDUCE_MIN;
            return run_reduce (o, (const T *) element_ptr (x->data, x->dtype, x->offset),
                               kept3, red, msg, msg_size);
          });
      }
      break;

    default:
      break;
    }
  return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "reduce: unknown op %d", op);
}

extern "C" int
cr_cuda_k_max_dim (const CrCudaTensor *values, const CrCudaTensor *indices, const CrCudaTensor *x,
                   int dim, int is_min, char *msg, size_t msg_size)
{
  uint32_t mask;
  Dims<3> kept;
  Dims<1> red;

  if (x->ndim < 1 || x->ndim > kMaxDims || dim < 0 || dim >= x->ndim || indices == nullptr)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "max_dim: bad dim %d for %d dims",
                            dim, x->ndim);
  mask = 1u << dim;
  if (!keepdim_shape_ok (x, indices, mask) || indices->dtype != CR_CUDA_INT64
      || (values != nullptr && (!keepdim_shape_ok (x, values, mask) || values->dtype != x->dtype)))
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "max_dim: the outputs' shapes or dtypes do not match the input's");
  if (!dtype_valid (x->dtype))
    return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                            "\"%s_cuda\" not implemented for '%s'", is_min ? "min" : "max",
                            dtype_name (x->dtype));
  if (x->shape[dim] == 0)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "max_dim: reduction dim %d has size 0", dim);
  if (tensor_numel (indices) == 0)
    return CR_CUDA_OK;

  const CrCudaTensor *outs[2] = { values != nullptr ? values : indices, indices };
  split_dims (x, outs, mask, &kept, &red);
  CRL_DISPATCH (x->dtype, T,
    {
      ArgOp<T> o;
      o.values = values != nullptr ? (T *) element_ptr (values->data, values->dtype, values->offset)
                                   : nullptr;
      o.indices = (int64_t *) element_ptr (indices->data, indices->dtype, indices->offset);
      o.is_min = is_min != 0;
      return run_reduce (o, (const T *) element_ptr (x->data, x->dtype, x->offset),
                         kept, red, msg, msg_size);
    });
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_allclose (const CrCudaTensor *a, const CrCudaTensor *b, double rtol, double atol,
                    int *out_result, char *msg, size_t msg_size)
{
  Dims<2> g;
  int64_t n = tensor_numel (a);
  int not_close = 0;
  Scratch flag;

  if (a->ndim != b->ndim || a->dtype != b->dtype || !dtype_valid (a->dtype) || a->ndim > kMaxDims)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "allclose: the operands' shapes or dtypes differ");
  dims_init (&g);
  for (int d = 0; d < a->ndim; d++)
    {
      int64_t strides[2] = { a->strides[d], b->strides[d] };
      if (a->shape[d] != b->shape[d])
        return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                                "allclose: the operands' shapes differ");
      dims_push (&g, a->shape[d], strides);
    }
  if (n == 0)
    {
      *out_result = 1;
      return CR_CUDA_OK;
    }

  CRL_TRY (flag.alloc (sizeof (int), msg, msg_size));
  CRL_CHECK (cudaMemsetAsync (flag.ptr, 0, sizeof (int), stream ()), "cudaMemsetAsync");
  CRL_DISPATCH (a->dtype, T,
    {
      allclose_kernel<T><<<blocks_for (n), kThreads, 0, stream ()>>>
        ((const T *) element_ptr (a->data, a->dtype, a->offset),
         (const T *) element_ptr (b->data, b->dtype, b->offset), g, n, rtol, atol,
         (int *) flag.ptr);
    });
  CRL_CHECK_LAUNCH ("allclose kernel");
  CRL_CHECK (cudaMemcpyAsync (&not_close, flag.ptr, sizeof (int), cudaMemcpyDeviceToHost, stream ()),
             "cudaMemcpyAsync");
  CRL_TRY (cr_cuda_stream_synchronize (msg, msg_size));
  *out_result = not_close ? 0 : 1;
  return CR_CUDA_OK;
}
