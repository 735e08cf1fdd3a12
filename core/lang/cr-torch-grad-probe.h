/* cr-torch-grad-probe.h — what `chainrule check` (core/teach/cr-gradcheck.h)
 * needs of a run: the leaves that require grad, in the order they were
 * made, with the statement that first used each in a graph; the scalar
 * that the run's first backward call differentiates; what that call added
 * to each leaf's .grad; and, for a re-run, one leaf nudged.
 *
 * Which leaf: a leaf is known by its ordinal, n for the n-th tensor of the
 * run to become a leaf that requires grad (requires_grad=True, an
 * nn.Parameter, requires_grad_()). A script that runs the same way makes
 * its leaves in the same order, so the ordinal names the same leaf in
 * every run of it.
 *
 * When to nudge: at the start of the script statement that first used the
 * leaf in a graph (its `statement`, counted from the run's start), or when
 * it is made if that is later: so a value set up after the leaf was made
 * (nn.Linear's init under no_grad, `w.data = ...`) is nudged as the graph
 * sees it. A leaf changed in place by the very statement that first uses
 * it is nudged before that change (rare: in-place changes of a leaf that
 * requires grad are only allowed under no_grad).
 *
 * The scalar: the first backward call starting from roots r_i with
 * gradients g_i (1 for a scalar root without one) differentiates
 * L = Σ_i Σ_j g_i[j]·r_i[j]; with one scalar root that is the root itself.
 * Later backward calls are not looked at: a probe stops the run there
 * (CR_GRAD_PROBE_STOP_*), raising KeyboardInterrupt, which a script's
 * `except Exception` does not catch.
 *
 * A probe is attached to one CrInterp before cr_interp_run and read after
 * it; it is used on that run's thread only. The run's tensors stay on the
 * CPU (the probe reads their values). */
#pragma once

#include "cr-interp.h"

G_BEGIN_DECLS

typedef struct _CrGradProbe CrGradProbe;

typedef enum {
  CR_GRAD_PROBE_STOP_AFTER_BACKWARD,   /* the first backward runs, then the run stops:
                                        * leaves, their gradients and L are known */
  CR_GRAD_PROBE_STOP_BEFORE_BACKWARD,  /* the run stops as the first backward starts:
                                        * L is known (a nudged re-run) */
} CrGradProbeMode;

typedef struct {
  guint     ordinal;           /* 1-based, in the order leaves were made */
  gint64    statement;         /* the script statement that first used it in a graph
                                * (1-based count of statements run); 0: never used */
  int       record_id;         /* its id in the run record; -1: not recorded */
  CrDType   dtype;
  int       ndim;
  gint64    shape[CR_MAX_DIMS];
  gint64    numel;
  double   *grad;              /* what the first backward call added to its .grad, numel
                                * values (owned by the probe); NULL: it got no .grad */
} CrGradProbeLeaf;

CrGradProbe *cr_grad_probe_new   (CrGradProbeMode mode);
void         cr_grad_probe_free  (CrGradProbe    *self);   /* NULL-safe */

/* Nudges leaf `ordinal` by delta at the start of statement `statement`: its
 * element `element` (row-major), or, for element -1, every element j by
 * delta·direction[j] (direction: the leaf's numel values, copied). */
void         cr_grad_probe_set_nudge (CrGradProbe  *self,
                                      guint         ordinal,
                                      gint64        statement,
                                      gint64        element,
                                      const double *direction,
                                      gint64        n_direction,
                                      double        delta);
/* For the next cr_interp_run of interp only. */
void         cr_grad_probe_attach    (CrGradProbe  *self,
                                      CrInterp     *interp);

/* After the run: whether it got to a backward call, and stopped there as
 * asked (its failure is then no failure of the script). */
gboolean     cr_grad_probe_reached_backward (const CrGradProbe *self);
gboolean     cr_grad_probe_stopped          (const CrGradProbe *self);
/* L (see above); NaN before a backward or with a root off the CPU. */
double       cr_grad_probe_objective        (const CrGradProbe *self);
/* The first backward call's roots, and whether it was torch.autograd.grad
 * (which writes no .grad). */
guint        cr_grad_probe_n_roots          (const CrGradProbe *self);
gboolean     cr_grad_probe_backward_is_grad (const CrGradProbe *self);
/* STOP_AFTER_BACKWARD: the leaves made up to the end of the first
 * backward call (borrowed). */
guint                  cr_grad_probe_n_leaves (const CrGradProbe *self);
const CrGradProbeLeaf *cr_grad_probe_leaf     (const CrGradProbe *self,
                                               guint              index);
/* What the nudge really added to each element of the leaf (the leaf's
 * dtype rounds x + delta), numel values, borrowed; NULL: not nudged (the
 * run never made that leaf or never got to its statement). */
const double          *cr_grad_probe_nudged_by (const CrGradProbe *self,
                                                gint64            *out_n);

/* ---- for the torch binding ------------------------------------------- */
/* The probe attached to interp, NULL nearly always. */
CrGradProbe *cr_grad_probe_of          (CrInterp         *interp);
void         cr_grad_probe_run_begin   (CrGradProbe      *self);
void         cr_grad_probe_run_end     (CrGradProbe      *self);
/* A script statement starts (CrBinding.statement): this thread's probe, if any. */
void         cr_grad_probe_statement   (void);
/* Around a backward call: FALSE with error to stop the run. */
gboolean     cr_grad_probe_backward_begin (CrGradProbe     *self,
                                           CrTensor *const *roots,
                                           CrTensor *const *grad_roots,
                                           guint            n_roots,
                                           gboolean         is_grad,
                                           GError         **error);
gboolean     cr_grad_probe_backward_end   (CrGradProbe     *self,
                                           CrInterp        *interp,
                                           GError         **error);

G_END_DECLS
