/* cr-run-recorder.h — fills the run record (core/record/cr-run-record.h)
 * while a script runs: the torch binding's side of it, private to core/lang.
 *
 * When CrInterpOptions.record_backward is on, the interpreter owns one
 * CrRunRecord for the run (cr_interp_get_run_record gives it out). Engine
 * objects map to record ids here, never the other way: a graph node by its
 * sequence number (unique within a run), a result tensor by (its grad_fn,
 * output_nr), any other tensor by a serial number the recorder gives it,
 * since nodes and tensors are freed and their addresses reused.
 *
 * Every function is a no-op returning -1 / NULL when the run records
 * nothing, so callers need not check cr_run_recorder_get first; a new
 * tensor or op is -1 too once the record is full (CR_RUN_RECORD_MAX_ITEMS,
 * record->truncated).
 *
 * What enters the record: every op whose result the script's code saw (or
 * that a backward ran) and the graph behind it; leaves and results; a
 * tensor that needs no grad only when made from one that does (no_grad,
 * detach) and named, or when an op used it (a constant input: its first
 * binding's name). */
#pragma once

#include "cr-interp.h"
#include "cr-run-record.h"
#include "cr-node.h"

G_BEGIN_DECLS

typedef struct _CrRunRecorder CrRunRecorder;

/* The record being filled (borrowed), NULL: the run records nothing. */
CrRunRecord      *cr_run_recorder_get      (CrInterp        *self);

/* t's id in the record, added if new: a result is the output output_nr of
 * its grad_fn (whose op is recorded with it); a leaf that requires grad, a
 * constant, a tensor made under no_grad or detached, by t itself. */
int               cr_run_recorder_tensor   (CrInterp        *self,
                                            CrTensor        *t);
/* The id of output output_nr of node (a tensor the script may never have
 * held: the graph's edges name tensors this way); node's op is recorded. */
int               cr_run_recorder_output   (CrInterp        *self,
                                            CrNode          *node,
                                            guint32          output_nr);
/* node's id in record->ops, added if new with its inputs (each recorded,
 * back to the leaves), outputs, saved slots, span, caption, rule, loop
 * iteration and custom Function. AccumulateGrad is no op: -1 (its leaf is
 * cr_run_recorder_tensor (node->variable)). */
int               cr_run_recorder_op       (CrInterp        *self,
                                            CrNode          *node);
/* A snapshot of t under the record's shared value budget (new, owned by the
 * caller until put into the record); NULL for a NULL t or when off. */
CrTensorSnapshot *cr_run_recorder_snapshot (CrInterp        *self,
                                            const CrTensor  *t);
/* Around a backward call that --trace-backward prints when it ends: in
 * between, cr_run_recorder_snapshot keeps what the trace prints (a budget
 * per outermost call); at the end, after the printing, the call's snapshots
 * are cut back to the record's shared budget. Calls nest. */
void              cr_run_recorder_trace_begin (CrInterp      *self);
void              cr_run_recorder_trace_end   (CrInterp      *self);
/* Adds error (type from its code, PyTorch's message) raised at span (NULL:
 * the statement running) to the record; for an in-place error, names the
 * statement that changed the saved tensor (culprit_span). Borrowed; the
 * caller fills op/backward/step/tensor where it knows them. */
CrRecordError    *cr_run_recorder_error    (CrInterp        *self,
                                            const GError    *error,
                                            const CrSpan    *span);
/* expr, of the script's code, raised error (CrBinding.expr_failed): the
 * tensors it was given become the operands of the error when it enters
 * the record (an except clause caught it, or it ended the run). */
void              cr_run_recorder_expr_failed (CrInterp        *self,
                                               const CrAstNode *expr,
                                               const GError    *error);
/* A native function called by library code (the prelude) raised error
 * (CrBinding.native_failed): its tensor arguments become the operands of
 * the script's expression that called into the library, when that fails
 * with the same error (nn.Linear's input and fc.weight). */
void              cr_run_recorder_native_failed (CrInterp       *self,
                                                 CrValue        *bound_self,
                                                 CrValue *const *args,
                                                 guint           n_args,
                                                 const CrKwarg  *kwargs,
                                                 guint           n_kwargs,
                                                 const GError   *error);
/* An except clause caught error raised at span (CrBinding.error_handled):
 * recorded unless the backward side recorded it already. */
void              cr_run_recorder_error_handled (CrInterp     *self,
                                                 const GError *error,
                                                 const CrSpan *span);
/* The (1-based) iteration of the innermost loop running now; 0: none. */
guint             cr_run_recorder_iteration (CrInterp       *self);
/* The span of the in-place statement that last changed t's values (its
 * version counter), when that is what gave t its current version; else
 * {0}. */
CrSpan            cr_run_recorder_modified_span (CrInterp     *self,
                                                 const CrTensor *t);
/* Refreshes what may have changed since node's op was recorded: its saved
 * tensors' modified_span. */
void              cr_run_recorder_refresh_op (CrInterp      *self,
                                              CrNode        *node);
/* Before a backward call (cr_interp_backward_begin): the roots and the
 * graph behind them recorded, and every saved tensor changed in place since
 * it was saved marked with the statement that changed it (the culprit of
 * the error the backward will raise). */
void              cr_run_recorder_backward_begin (CrInterp        *self,
                                                  CrTensor *const *roots,
                                                  guint            n_roots);

/* ---- for the torch binding -------------------------------------------- */

/* Around each run (CrBinding.run_begin/run_end): a fresh record when the
 * run records; at the end, the graph behind the script's variables. */
void              cr_run_recorder_run_begin (CrInterp       *self);
void              cr_run_recorder_run_end   (CrInterp       *self);
void              cr_run_recorder_free      (CrRunRecorder  *recorder);   /* NULL-safe */
/* The value of expression expr was just computed / bound to name. */
void              cr_run_recorder_note_value   (CrInterp        *self,
                                                CrTensor        *t,
                                                const CrAstNode *expr);
void              cr_run_recorder_note_binding (CrInterp        *self,
                                                CrTensor        *t,
                                                const char      *name);
/* Grad-mode regions: `with torch.no_grad():` and friends enter and exit;
 * torch.set_grad_enabled(flag) as a statement starts or ends one. */
void              cr_run_recorder_region_enter (CrInterp          *self,
                                                CrRecordRegionKind kind);
/* The same for a region whose span is not the statement running: the def
 * of a function decorated with @torch.no_grad(). */
void              cr_run_recorder_region_enter_at (CrInterp          *self,
                                                   CrRecordRegionKind kind,
                                                   const CrSpan      *span);
void              cr_run_recorder_region_exit  (CrInterp          *self);
void              cr_run_recorder_grad_enabled (CrInterp          *self,
                                                gboolean           enabled);

G_END_DECLS
