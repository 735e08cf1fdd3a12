/* cr-gradcheck.h — `chainrule check`: every leaf's gradient from the
 * script's first backward call, against a central difference of the same
 * scalar got by re-running the script with that leaf nudged, judged as
 * torch.autograd.gradcheck judges it.
 *
 * The scalar L is what the first backward call differentiates
 * (core/lang/cr-torch-grad-probe.h): the root itself for one scalar root;
 * Σ_i Σ_j g_i[j]·r_i[j] for roots r_i given gradients g_i (several roots,
 * or y.backward(v)). Later backward calls are not checked.
 *
 * The leaves: every leaf that requires grad and that the first backward
 * call reached (an AccumulateGrad step of it in the run record), named as
 * the record names it. A leaf of at most CR_GRADCHECK_MAX_ELEMENTS
 * elements is checked element by element: 2 re-runs each, the element
 * nudged by ±eps; a bigger one along one random unit direction u (normal
 * entries, seeded by the leaf's ordinal): 2 re-runs, the leaf nudged by
 * ±eps·u, as gradcheck's fast mode does. A re-run stops as the first
 * backward call starts.
 *
 * The verdict, per check, as gradcheck's allclose: |a − n| ≤ atol + rtol·|n|
 * (a: autograd, n: numeric). float64 leaves use gradcheck's defaults
 * (eps 1e-6, atol 1e-5, rtol 1e-3); float32 leaves eps 1e-3, atol 1e-2,
 * rtol 1e-2 (float32 keeps about 7 digits: gradcheck itself wants float64),
 * their atol grown by |L|·FLT_EPSILON/eps, what L's own float32 rounding
 * puts into a difference (a loss of 821: 0.098). */
#pragma once

#include "cr-interp.h"
#include "cr-interp-cells.h"
#include "cr-run-record.h"

G_BEGIN_DECLS

#define CR_GRADCHECK_MAX_ELEMENTS 16

typedef struct {
  char     *where;        /* "[1, 2]", "" for a 0-d leaf, "u·∇" along a direction */
  double    autograd;
  double    numeric;
  double    error;        /* |autograd − numeric| */
  double    allowed;      /* atol + rtol·|numeric| */
  gboolean  ok;
} CrGradcheckEntry;

typedef struct {
  char     *label;        /* the record's name: "w1", "fc1.weight", "x" */
  int       record_id;    /* in the run record's tensors */
  guint     ordinal;      /* cr-torch-grad-probe.h */
  CrSpan    span;         /* where it was made or first bound */
  char     *dtype;        /* "float64" */
  char     *shape;        /* "(2, 3)", "()" */
  gint64    numel;
  gboolean  along_direction;
  double    eps, atol, rtol;
  GArray   *entries;      /* of CrGradcheckEntry */
  char     *failure;      /* a re-run failed: "ValueError: ..." (the leaf disagrees); NULL */
  gboolean  ok;
  char     *where;        /* span's line as a reader counts it: "line 12", a notebook's
                           * "cell 3, line 2" */
} CrGradcheckLeaf;

typedef struct {
  char      *backward;    /* the first backward call's title: "loss.backward() · line 12" */
  double     objective;   /* L as the script computed it */
  guint      n_roots;
  GPtrArray *leaves;      /* of CrGradcheckLeaf* (owned), in the order they were made */
  guint      n_reruns;
  gboolean   ok;          /* every leaf agrees */
  gboolean   hooks_changed; /* a hook changed a gradient during that call: the .grad
                           * it left is then not the derivative of L */
} CrGradcheckReport;

typedef struct {
  const gint *cancel_flag;   /* as CrInterpOptions', for every run; may be NULL */
  /* A notebook's cells (cr-interp-cells.h), every run run as them; NULL: a
   * plain script. Borrowed for the call. */
  const CrScriptCell *cells;
  guint       n_cells;
} CrGradcheckOptions;

/* Runs module (parsed by the caller) once to the end of its first backward
 * call, then again for every nudge. NULL when the first run fails before
 * that call ends (*out_script_error: the script's error, owned by the
 * caller) or reaches no backward call / only torch.autograd.grad (error,
 * CR_EXC_RUNTIME_ERROR, says so). */
CrGradcheckReport *cr_gradcheck_run          (CrAstModule               *module,
                                              const CrGradcheckOptions  *options,
                                              CrScriptError            **out_script_error,
                                              GError                   **error);
void               cr_gradcheck_report_free  (CrGradcheckReport         *self);  /* NULL-safe */
/* The table `chainrule check` prints (new string). */
char              *cr_gradcheck_report_format (const CrGradcheckReport  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGradcheckReport, cr_gradcheck_report_free)

G_END_DECLS
