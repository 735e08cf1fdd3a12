/* cr-paths.h — the multivariate chain rule as a sum over paths, from the
 * run record alone: for one element of a leaf, every path through the
 * graph of the record's first .backward() call from that element to the
 * loss, the product of the local derivatives along each, and their sum,
 * which is what the call added to the leaf's .grad at that element.
 *
 * A path goes through scalar elements: for a tensor op, one hop is one
 * Jacobian entry ∂out[j]/∂in[i]. The entries come from the step's recorded
 * elementwise local gradient (broadcasts included), or, for ops without
 * one, from the op's structure: sum, mean, views and reshapes, expand,
 * clone, dtype casts, t(), mm and addmm (nn.Linear), the last two from the
 * recorded values of their other operand. A path through any other op is
 * refused with an error that names it (CR_EXC_NOT_IMPLEMENTED_ERROR).
 *
 * The loss: the call's root; for several roots, or a root given a gradient
 * (y.backward(v)), L = Σ g·root and the last hop's factor is g at that
 * element. Paths are listed depth first, in the order the graph's ops
 * consume the tensors; at most max_paths are kept (truncated then, and
 * the sum is of those only). */
#pragma once

#include "cr-run-record.h"

G_BEGIN_DECLS

typedef struct {
  int     tensor;     /* index in record->tensors */
  gint64  element;    /* row-major, in that tensor */
  int     op;         /* the op the path takes next (index in ops); -1 at the root */
  double  factor;     /* ∂next/∂this along that op; at the root, the root's gradient
                       * (1 for a scalar root without one) */
} CrPathHop;

typedef struct {
  GArray *hops;       /* of CrPathHop: the leaf's element first, the root's last */
  double  product;    /* of every hop's factor */
} CrPath;

typedef struct {
  int        leaf;        /* index in record->tensors */
  gint64     element;
  int        backward;    /* the call the paths are of (index in record->backwards) */
  GPtrArray *paths;       /* of CrPath* (owned) */
  gboolean   truncated;   /* there are more than max_paths: only those are kept */
  double     sum;         /* of the kept paths' products */
  double     grad;        /* what the call added to the leaf's .grad at element;
                           * NaN when the record keeps no value for it */
  gboolean   hooks_changed; /* a hook changed a gradient in that call: the sum and
                           * .grad may differ */
} CrPathSum;

/* The paths of element `element` (row-major) of leaf `leaf`, in the first
 * .backward() call that reaches the leaf (the first call when none does,
 * which then fails). NULL with error
 * when the record has no .backward() call, the leaf is no leaf or was not
 * reached, the element is out of range, or a path goes through an op whose
 * per-element derivatives cannot be had from the record. */
CrPathSum *cr_path_sum_new    (const CrRunRecord  *record,
                               int                 leaf,
                               gint64              element,
                               guint               max_paths,
                               GError            **error);
/* The same for backward call `backward` (index in record->backwards), which
 * must be a .backward() call (not torch.autograd.grad). */
CrPathSum *cr_path_sum_new_in_call (const CrRunRecord *record,
                                    int                backward,
                                    int                leaf,
                                    gint64             element,
                                    guint              max_paths,
                                    GError           **error);
void       cr_path_sum_free   (CrPathSum          *self);   /* NULL-safe */
/* The paths as `chainrule paths` prints them (new string). */
char      *cr_path_sum_format (const CrPathSum    *self,
                               const CrRunRecord  *record);
/* "[1, 2]" for element of tensor (row-major), "" for a 0-d tensor (new string). */
char      *cr_record_element_text (const CrRecordTensor *tensor,
                                   gint64                element);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrPathSum, cr_path_sum_free)

G_END_DECLS
