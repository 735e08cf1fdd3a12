/* cr-run-recorder-private.h — the run recorder's state, shared by the
 * files that make it up: cr-run-recorder.c (tensors, ops, regions, the run),
 * cr-run-recorder-names.c (names and provenance) and
 * cr-run-recorder-errors.c (errors, their operands and culprits).
 * Private to those files; everything else goes through cr-run-recorder.h. */
#pragma once

#include "cr-run-recorder.h"
#include "cr-run-recorder-operands.h"
#include "cr-run-recorder-small.h"
#include "cr-snapshot-cache.h"
#include "cr-run-recorder-coach.h"
#include "cr-run-recorder-training.h"

G_BEGIN_DECLS

/* Where in the script's loops something happened: the iterations of every
 * loop running, outermost first. */
typedef struct {
  guint depth;
  guint path[CR_RECORD_MAX_LOOP_PATH];
} CrLoopPath;

struct _CrRunRecorder {
  CrInterp    *interp;           /* borrowed: the recorder lives in its binding state */
  CrRunRecord *record;           /* owned */
  gint64       values_left;      /* the snapshots' shared budget */
  GHashTable  *serial_ids;       /* serial -> id + 1 */
  GHashTable  *output_ids;       /* CrNodeEnd* (owned): an output -> id + 1 */
  GHashTable  *op_ids;           /* sequence_nr -> op id + 1 */
  GHashTable  *provenance;       /* serial -> Provenance* (owned) */
  GHashTable  *bindings;         /* serial -> Binding* (owned): constants not recorded yet */
  GHashTable  *changes;          /* version counter (its storage or own counter) -> Change* */
  GHashTable  *hints;            /* const CrAstNode* -> id + 1 of its last tensor value, or
                                  * of the source of a tensor without history */
  GHashTable  *source_hints;     /* const CrAstNode*: exprs whose hint is the source of a
                                  * tensor without history, a constant too (a module's
                                  * input x, for pred = model(x) under no_grad) */
  GArray      *open_regions;     /* int: regions entered and not left, innermost last */
  GArray      *region_calls;     /* guint per region: record->module_calls->len when it began */
  int          disabled_region;  /* the set_grad_enabled(False) region running, -1 */
  GArray      *bumps;            /* Bump: changed in place, not looked at yet */
  gboolean     walking;          /* cr_run_recorder_op is filling: no nested walk */
  GQueue       pending;          /* CrNode*: ops made, their inputs not filled yet */
  GHashTable  *keys;             /* an op's key without its number (owned) -> ops with it */
  GHashTable  *value_sources;    /* tensor id -> ValueSource* (owned) */
  GArray      *stale_ops;        /* int: ops of the running backward's graph with a saved
                                  * tensor changed in place since */
  guint        trace_depth;      /* traced backward calls running (nested ones count) */
  guint        trace_first;      /* the outermost one's index in record->backwards */
  gint64       trace_values_left;/* their steps' snapshots' budget */
  CrOperandWatch *operands;      /* the tensors a failing expression was given */
  const CrAstNode *noting_expr;  /* the expression whose value is being recorded, and */
  const CrNode    *noting_node;  /* the node that made it (borrowed, compared only) */
  CrSnapshotCache *snapshots;    /* the last tensors snapshotted: shared, not taken again */
  CrSmallTensors *small;         /* small tensors ops made or read, until recorded */
  GHashTable  *captions;         /* CrSpan* (owned) -> its span_text (owned, or NULL) */
  CrCoachWatch *coach;           /* a coached run's notes (owned), NULL */
  CrTrainingWatch *training;     /* parameter updates (owned) */
};

/* The recorder of self's run, NULL when the run records nothing. */
CrRunRecorder  *cr_run_recorder_of           (CrInterp            *self);
/* The statement running now, the script's own (a prelude function's ops are
 * the statement's that called it). */
CrSpan          cr_run_recorder_current_span (CrInterp            *self);
/* The first line of the text span covers, trimmed (new string); NULL when
 * unknown. */
char           *cr_run_recorder_span_text    (CrInterp            *self,
                                              const CrSpan        *span);
/* The record's tensor id (borrowed), NULL for -1. */
CrRecordTensor *cr_run_recorder_tensor_rec   (CrRunRecorder       *r,
                                              int                  id);
/* The error that ended the run (self->run_error) in the record, unless the
 * backward side or an except clause recorded it already. */
void            cr_run_recorder_run_error    (CrRunRecorder       *r,
                                              const CrScriptError *e);

/* The record id kept under key in one of the recorder's id tables, -1:
 * none (ids are kept plus one, so that 0 is no id). */
static inline int
cr_run_recorder_lookup_id (GHashTable   *table,
                           gconstpointer key)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (table, key)) - 1;
}

static inline void
cr_run_recorder_insert_id (GHashTable *table,
                           gpointer    key,
                           int         id)
{
  g_hash_table_insert (table, key, GINT_TO_POINTER (id + 1));
}

/* How many values of a tensor of numel elements the shared budget gives
 * now: a big one leaves a reserve to the small ones. */
gint64          cr_run_recorder_values_for   (CrRunRecorder       *r,
                                              gint64               numel);
/* The iterations of the loops running now. */
CrLoopPath      cr_run_recorder_loop_path    (CrInterp            *self);
/* t's serial number (0 when it has none and create is FALSE). */
guint64         cr_run_recorder_serial       (CrRunRecorder       *r,
                                              CrTensor            *t,
                                              gboolean             create);
/* Marks the ops that changed tensors in place since the last look. */
void            cr_run_recorder_settle_bumps (CrRunRecorder       *r);
/* The region a tensor made now was made in, when it turns recording off;
 * -1: none. */
int             cr_run_recorder_disabling_region (CrRunRecorder   *r);
/* rec is called name, bound in loops ("y₃"). */
void            cr_run_recorder_set_name     (CrRecordTensor      *rec,
                                              const char          *name,
                                              const CrLoopPath    *loops);
/* The first line of span's text, once per span (new string); NULL when
 * unknown. */
char           *cr_run_recorder_caption      (CrRunRecorder       *r,
                                              const CrSpan        *span);
/* rec, which the script never named, called after text: "(h * w)₂". */
void            cr_run_recorder_label_unnamed (CrRunRecorder      *r,
                                               CrRecordTensor     *rec,
                                               const char         *text);

G_END_DECLS
