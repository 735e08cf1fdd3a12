/* cr-interp.h — runs a parsed script and keeps what it produced: its output,
 * its variables, and every backward call with the steps the engine took.
 *
 * A CrInterp runs one script once, on one thread (the window runs it on a
 * worker and reads the result when it is done). */
#pragma once

#include "cr-interp-base.h"
#include "cr-engine.h"
#include "cr-run-record.h"
#include "cr-tensor-format.h"

G_BEGIN_DECLS

/* ---- services for natives (the torch layer, cr-torch-binding.c) ---- */

/* torch.set_printoptions changes these; repr/str of tensors use them. */
CrPrintOptions *cr_interp_get_print_options (CrInterp     *self);

/* The generator behind torch.manual_seed / randn / rand. */
struct _CrGenerator *cr_interp_get_generator (CrInterp    *self);
/* Around every backward the script makes: returns the observer to pass to the
 * engine (NULL when nothing records), and ends the record. */
const CrBackwardObserver *cr_interp_backward_begin (CrInterp        *self,
                                                    CrTensor *const *roots,
                                                    guint            n_roots,
                                                    gpointer        *out_observer_data);
void        cr_interp_backward_end (CrInterp              *self,
                                    gpointer               observer_data,
                                    gboolean               succeeded);

/* ---- the result, for the UI and tests ---- */

/* A tensor a node saved for its backward formula, described while it is
 * still there (a backward without retain_graph frees it). */
typedef struct {
  guint         slot;
  const char   *name;           /* "self", "other", "result", ... (static), or NULL: unknown */
  int           input;          /* the node input it is, -1: an output or not known */
  gboolean      is_output;
  gboolean      is_number;      /* a Python number wrapped as a 0-d tensor (`x * 2`) */
  gboolean      known;          /* FALSE: already freed when described (no shape, no variable) */
  const char   *variable;       /* the script variable first bound to it, or to the tensor
                                 * it is a view of (interned), or NULL */
  gconstpointer identity;       /* the tensor's address when described, to tell tensors
                                 * apart within one record; never dereferenced */
  int           ndim;
  gint64        shape[CR_MAX_DIMS];
  CrDType       dtype;
  CrDeviceType  device;
} CrSavedRecord;

/* Describes the slots of node that hold (or held) a saved tensor into out
 * (room for CR_NODE_MAX_SAVED); returns how many. */
guint       cr_node_describe_saved (CrNode               *node,
                                    CrSavedRecord        *out);

/* A second (third, ...) gradient reaching the same tensor during a step. */
typedef struct {
  CrNode     *node;             /* the node receiving it (ref) */
  guint32     input_nr;
  char       *name;             /* what ∂ calls it: "a" */
  CrTensor   *contribution;     /* copies, as they were then */
  CrTensor   *sum;              /* the sum so far */
} CrAccumulationRecord;

/* One recorded step (refs held by the record). The names are the ones
 * `--trace-backward` prints for the same step. */
typedef struct {
  guint       index;
  CrNode     *node;
  char       *label;            /* "MulBackward0 (b = w1*a, line 5)" */
  guint       n_outputs;
  CrTensor  **grad_outputs;
  guint       n_inputs;
  CrTensor  **local_grads;
  CrTensor  **grad_inputs;
  CrTensor   *leaf;             /* AccumulateGrad */
  CrTensor   *grad_before;
  CrTensor   *grad_after;

  char       *caption;          /* "b = w1*a, line 5"; AccumulateGrad: the leaf's name; or NULL */
  char       *root_name;        /* the numerator of every ∂: "L" */
  char      **output_names;     /* n_outputs: "b", "(w3*b)"; the leaf's name for AccumulateGrad */
  char      **input_names;      /* n_inputs: "w1", NULL for an input without an edge */
  char       *local_name;       /* the numerator of local gradients: "b", or "out" */
  const char *rule;             /* op->local_grad_text when the trace prints it (static), or NULL */
  GPtrArray  *accumulations;    /* of CrAccumulationRecord*, those the step's gradients caused */
  guint       n_saved;
  CrSavedRecord saved[CR_NODE_MAX_SAVED];  /* as before the backward call freed them */
} CrStepRecord;

typedef struct {
  CrSpan      span;             /* the .backward() / autograd.grad call */
  GPtrArray  *roots;            /* of CrTensor* (owned) */
  GPtrArray  *steps;            /* of CrStepRecord* (owned) */
  gboolean    succeeded;
} CrBackwardRecord;

/* The run's record (core/record/cr-run-record.h), a new ref: what the
 * window, export, --trace-backward and --record render. NULL when the run
 * records nothing (CrInterpOptions.record_backward off). Complete once
 * cr_interp_run has returned. */
CrRunRecord             *cr_interp_get_run_record         (CrInterp *self);

guint                    cr_interp_get_n_backward_records (CrInterp *self);
const CrBackwardRecord  *cr_interp_get_backward_record    (CrInterp *self,
                                                           guint     i);

G_END_DECLS
