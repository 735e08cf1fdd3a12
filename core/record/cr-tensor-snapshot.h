/* cr-tensor-snapshot.h — a tensor's numbers and metadata copied out as plain
 * data: what the run record keeps of every value it shows (an incoming
 * gradient, a local gradient, a leaf's .grad before and after). */
#pragma once

#include <glib.h>

#include "cr-types.h"
#include "cr-tensor-format.h"

G_BEGIN_DECLS

/* A copy of a tensor's numbers and metadata, small enough to keep for every
 * step: the step card shows it as a matrix (small tensors) or as shape,
 * statistics and a heat map (large ones). */
#define CR_SNAPSHOT_MAX_VALUES 4096

typedef struct {
  int      ndim;
  gint64   shape[CR_MAX_DIMS];  /* ndim sizes */
  gint64   numel;
  char    *dtype;               /* "torch.float32" */
  char    *device;              /* "cpu", "cuda:0" */
  gint64   n_values;            /* MIN (numel, CR_SNAPSHOT_MAX_VALUES); fewer, down to 0, in
                                 * a model whose snapshots used up their shared budget */
  double  *values;              /* the first n_values elements, row-major (owned) */
  double   min, max, mean, std; /* over all numel elements (NaN when numel is 0) */
  char    *text;                /* the data as print() shows it inside tensor(...) with
                                 * default print options, e.g. "[[1., 2.],\n [3., 4.]]";
                                 * NULL when numel > 64. A run record's snapshots
                                 * format it on first use: read it through
                                 * cr_tensor_snapshot_get_text() */
  gboolean text_deferred;       /* text is NULL until cr_tensor_snapshot_get_text()
                                 * formats it from values (all kept, exactly) */
  gint     shares;              /* private: owners besides the first
                                 * (cr_tensor_snapshot_share) */
} CrTensorSnapshot;

CrTensorSnapshot *cr_tensor_snapshot_new  (const CrTensor         *tensor);  /* NULL tensor: NULL */
CrTensorSnapshot *cr_tensor_snapshot_copy (const CrTensorSnapshot *self);
/* Gives up one owner's hold: the last frees it. NULL-safe. */
void              cr_tensor_snapshot_free (CrTensorSnapshot       *self);
/* self with one more owner, who frees it with cr_tensor_snapshot_free() like
 * its own: a run record keeps the same value once where several of its
 * items show it (a step's outgoing gradient, its product, the next step's
 * incoming one). A shared snapshot is read-only. NULL-safe. */
CrTensorSnapshot *cr_tensor_snapshot_share (CrTensorSnapshot      *self);

/* cr_tensor_snapshot_new() keeping at most max_values values (0: none); the
 * statistics and text still cover the whole tensor. A record's snapshots
 * share a budget so that a long backward over big tensors stays small. */
CrTensorSnapshot *cr_tensor_snapshot_new_limited (const CrTensor *tensor,
                                                  gint64          max_values);

/* cr_tensor_snapshot_new_limited() that leaves the text to be formatted on
 * first use, where the values kept give it exactly (text_deferred): most
 * snapshots of a run are never shown as text, and formatting them was most
 * of what recording a run cost. */
CrTensorSnapshot *cr_tensor_snapshot_new_deferred (const CrTensor *tensor,
                                                   gint64          max_values);

/* The snapshot's text (see CrTensorSnapshot.text), formatted now if it was
 * deferred; borrowed from self, NULL for none. Safe from several threads on
 * a shared record. */
const char       *cr_tensor_snapshot_get_text (const CrTensorSnapshot *self);

/* The snapshot's values as print() shows them inside tensor(...) with
 * options (NULL: the defaults), for
 * previews: new string, or NULL when the snapshot does not keep all its
 * values (n_values < numel) or numel is 0. */
char             *cr_tensor_snapshot_format (const CrTensorSnapshot *self,
                                             const CrPrintOptions   *options);

/* The tensor's 2-norm, from its statistics (the values may be cut):
 * sqrt(n·mean² + (n−1)·std²); NaN when numel is 0. */
double            cr_tensor_snapshot_norm (const CrTensorSnapshot *self);

G_END_DECLS
