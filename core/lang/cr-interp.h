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
  gboolean      internal;       /* Chainrule's own bookkeeping (a positions map, a mask),
                                 * no tensor PyTorch's node saves: name says what it is */
} CrSavedRecord;

/* Describes the slots of node that hold (or held) a saved tensor into out
 * (room for CR_NODE_MAX_SAVED); returns how many. */
guint       cr_node_describe_saved (CrNode               *node,
                                    CrSavedRecord        *out);

/* The run's record (core/record/cr-run-record.h), a new ref: what the
 * window, export, --trace-backward and --record render. NULL when the run
 * records nothing (CrInterpOptions.record_backward off). Complete once
 * cr_interp_run has returned. */
CrRunRecord             *cr_interp_get_run_record         (CrInterp *self);

G_END_DECLS
