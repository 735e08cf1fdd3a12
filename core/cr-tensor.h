/* cr-tensor.h — the tensor: a strided view of a storage, plus its autograd state.
 *
 * Fields are public inside core/ (kernels and the engine read them directly, a
 * hot path); the UI and the interpreter use the accessors.
 *
 * Ownership: _new/_ref return a reference the caller owns; _unref (NULL-safe)
 * drops it. Functions taking `const CrTensor *` borrow.
 *
 * Raw functions here never record autograd history: the differentiable ops
 * are in ops/cr-ops.h. */
#pragma once

#include "cr-types.h"
#include "cr-dtype.h"
#include "cr-storage.h"

G_BEGIN_DECLS

typedef struct _CrTensorHook CrTensorHook;
typedef struct _CrVersionCounter CrVersionCounter;

/* Field order matters for speed: what every op reads comes first, so that
 * an op on 0-d tensors touches one cache line of each (and a 1-d one two:
 * shape[0] still shares the first line and strides[0] the second). */
struct _CrTensor {
  gint          ref_count;
  CrDType       dtype;
  CrDeviceType  device;
  int           ndim;
  gint64        numel;
  gint64        offset;                 /* in elements, into storage */
  CrStorage    *storage;                /* owned */

  /* Autograd. A tensor is a leaf when grad_fn is NULL. requires_grad is the
   * user's flag for a leaf and TRUE for every tensor with a grad_fn. */
  CrNode       *grad_fn;                /* owned, NULL for leaves */
  guint32       output_nr;              /* which output of grad_fn this is */
  guint         requires_grad : 1;
  guint         retains_grad : 1;
  /* A Python number turned into a 0-d tensor for an op (`x * 2`): it ranks
   * lowest in type promotion. */
  guint         is_wrapped_number : 1;

  gint64        shape[CR_MAX_DIMS];
  gint64        strides[CR_MAX_DIMS];   /* in elements */

  CrTensor     *grad;                   /* owned, NULL until a backward writes it */
  CrNode       *grad_accumulator;       /* weak: the leaf's AccumulateGrad node while
                                         * a graph holds one; the node clears it */
  GPtrArray    *hooks;                  /* of CrTensorHook*, owned; NULL when none */
  CrTensor     *view_base;              /* owned: the tensor this one is a view of */

  const char   *name;                   /* interned (g_intern_string): the script
                                         * variable first bound to it */
  /* owned; NULL (nearly always): the storage's counter, shared with every
   * view and detach(). `.data` gives an alias a counter of its own, which its
   * views then share, so changing it in place leaves the original's saved
   * values valid, as PyTorch's .data does. */
  CrVersionCounter *version_counter;
  /* owned, opaque to core: what the script layer attaches to this tensor
   * object (its Python subclass, its attributes); script_data_free frees it
   * with the tensor. Aliases and views start without. */
  gpointer        script_data;
  GDestroyNotify  script_data_free;
};

/* Creation. shape may be NULL when ndim == 0. Fail only for a bad shape or
 * the memory limit (RuntimeError, PyTorch's messages). */
CrTensor   *cr_tensor_new_empty        (const gint64   *shape,
                                        int             ndim,
                                        CrDType         dtype,
                                        CrDeviceType    device,
                                        GError        **error);
CrTensor   *cr_tensor_new_zeros        (const gint64   *shape,
                                        int             ndim,
                                        CrDType         dtype,
                                        CrDeviceType    device,
                                        GError        **error);
CrTensor   *cr_tensor_new_full         (const gint64   *shape,
                                        int             ndim,
                                        double          value,
                                        CrDType         dtype,
                                        CrDeviceType    device,
                                        GError        **error);
/* A 0-d tensor holding value (cannot fail: 8 bytes). */
CrTensor   *cr_tensor_new_scalar       (double          value,
                                        CrDType         dtype);
/* Copies numel(shape) elements of dtype from data (host memory). */
CrTensor   *cr_tensor_new_from_data    (gconstpointer   data,
                                        const gint64   *shape,
                                        int             ndim,
                                        CrDType         dtype,
                                        GError        **error);
CrTensor   *cr_tensor_new_arange       (double          start,
                                        double          end,
                                        double          step,
                                        CrDType         dtype,
                                        GError        **error);
CrTensor   *cr_tensor_new_linspace     (double          start,
                                        double          end,
                                        gint64          steps,
                                        CrDType         dtype,
                                        GError        **error);
CrTensor   *cr_tensor_new_eye          (gint64          n,
                                        gint64          m,
                                        CrDType         dtype,
                                        GError        **error);

CrTensor   *cr_tensor_ref              (CrTensor       *self);
void        cr_tensor_unref            (CrTensor       *self);   /* NULL-safe */

/* A new tensor object over the same storage, shape and strides, with no autograd
 * state (what detach() and saved outputs are built from). */
CrTensor   *cr_tensor_alias            (const CrTensor *self);
/* self now looks at src's storage with src's dtype, device and geometry,
 * keeping its own autograd identity (`t.data = other`, an out= tensor
 * resized to the result). */
void        cr_tensor_set_source       (CrTensor       *self,
                                        const CrTensor *src);
/* An alias with a version counter of its own (`.data`): in-place changes
 * through it do not make the original's saved tensors stale. */
CrTensor   *cr_tensor_alias_unversioned (const CrTensor *self);
/* A view over self's storage with the given geometry (no autograd state; the
 * caller checks that it stays inside the storage and that shape passes
 * cr_shape_numel_checked). */
CrTensor   *cr_tensor_new_view         (const CrTensor *self,
                                        const gint64   *shape,
                                        int             ndim,
                                        const gint64   *strides,
                                        gint64          offset);

gboolean    cr_tensor_is_contiguous    (const CrTensor *self);
/* self when already contiguous (a new ref), else a contiguous copy. */
CrTensor   *cr_tensor_contiguous       (CrTensor       *self,
                                        GError        **error);
/* A contiguous copy, always. */
CrTensor   *cr_tensor_copy             (const CrTensor *self,
                                        GError        **error);

/* Row-major contiguous strides for shape. */
void        cr_shape_contiguous_strides(const gint64   *shape,
                                        int             ndim,
                                        gint64         *out_strides);
/* The product of the sizes (wraps, without UB, past int64: use it on shapes
 * that a tensor already holds). */
gint64      cr_shape_numel             (const gint64   *shape,
                                        int             ndim);
/* The product under PyTorch's rule for every tensor, view or not: fails
 * with RuntimeError "numel: integer multiplication overflow" when a step
 * overflows or the product passes int64. out_numel may be NULL. Check a
 * shape with it before building a view of it. */
gboolean    cr_shape_numel_checked     (const gint64   *shape,
                                        int             ndim,
                                        gint64         *out_numel,
                                        GError        **error);
/* The checks of a new tensor of this shape and dtype, as PyTorch's: no
 * negative size, a byte size that fits int64 ("Storage size calculation
 * overflowed with sizes=..."). For a backend that must refuse a shape for
 * its own reasons only after these. */
gboolean    cr_shape_check_storage     (const gint64   *shape,
                                        int             ndim,
                                        CrDType         dtype,
                                        GError        **error);
gboolean    cr_shape_equal             (const gint64   *a,
                                        int             a_ndim,
                                        const gint64   *b,
                                        int             b_ndim);
/* Broadcast two shapes; on failure a RuntimeError with PyTorch's text
 * "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1". */
gboolean    cr_shape_broadcast         (const gint64   *a,
                                        int             a_ndim,
                                        const gint64   *b,
                                        int             b_ndim,
                                        gint64         *out_shape,
                                        int            *out_ndim,
                                        GError        **error);
/* "[2, 3]" as in torch.Size([2, 3]); caller frees. */
char       *cr_shape_to_string         (const gint64   *shape,
                                        int             ndim);

/* Element access by logical (row-major) index, converting to/from double.
 * Slow; for printing, .item(), tests. Host tensors only. */
double      cr_tensor_get_flat         (const CrTensor *self,
                                        gint64          index);
void        cr_tensor_set_flat         (CrTensor       *self,
                                        gint64          index,
                                        double          value);
/* Exact int64 read for integer tensors (doubles lose precision past 2^53). */
gint64      cr_tensor_get_flat_int     (const CrTensor *self,
                                        gint64          index);
/* Pointer to the first element (storage data + offset). */
gpointer    cr_tensor_data             (const CrTensor *self);

/* The version counter shared with views (see cr-storage.h). */
guint32     cr_tensor_version          (const CrTensor *self);
void        cr_tensor_bump_version     (CrTensor       *self);

/* The script name (borrowed, may be NULL); set only if unset ("first binding"). */
const char *cr_tensor_get_name         (const CrTensor *self);
void        cr_tensor_set_name         (CrTensor       *self,
                                        const char     *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrTensor, cr_tensor_unref)

G_END_DECLS
