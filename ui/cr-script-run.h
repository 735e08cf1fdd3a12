/* cr-script-run.h — a script run as the window shows it: parsed, run with
 * its run record (core/record) kept, and its graph models built from that
 * record. Called on a worker thread by the window and the example gallery. */
#pragma once

#include "cr-graph-model.h"
#include "cr-interp.h"

G_BEGIN_DECLS

typedef struct {
  GPtrArray *models;      /* of CrGraphModel* (free-func set); empty after a parse error,
                           * NULL when the run was cancelled */
  char      *traceback;   /* a parse error or a traceback for the output, or NULL */
  char      *message;     /* "NameError: name 'x' is not defined", or NULL */
  CrSpan     span;        /* where the error is ({0}: unknown) */
  CrRunRecord *record;    /* what the run did (a reference; the models hold their own);
                           * NULL after a parse error, a cancelled run or a crash guard's
                           * verdict */
} CrScriptRun;

/* Parses source (length bytes, -1: NUL-terminated; filename names it in
 * errors) and runs it with options (its output, cancel flag and device;
 * the run is always recorded). A script that stops with an error still
 * gives the graph it built up to there. every_call: one model per backward
 * call (cr_graph_models_new_from_run_record()); else at most one, the run's
 * last call or forward graph. Fills run, which cr_script_run_clear()
 * empties. */
void cr_script_run       (const char            *source,
                          gssize                 length,
                          const char            *filename,
                          const CrInterpOptions *options,
                          gboolean               every_call,
                          CrScriptRun           *run);
void cr_script_run_clear (CrScriptRun           *run);

/* As cr_script_run(), without the graph models (run->models stays NULL when
 * a record was made, else is empty): what the crash guard's child does, as
 * the window builds the models itself from the record it is sent. */
void cr_script_run_record_only (const char            *source,
                                gssize                 length,
                                const char            *filename,
                                const CrInterpOptions *options,
                                CrScriptRun           *run);

/* For a process that ends as soon as its one run is answered (the crash
 * guard's child): from now on a run leaves its interpreter, and every
 * value and tensor it made, to the process's end rather than freeing them
 * one by one. Never in a process that goes on. */
void cr_script_run_skip_teardown (void);

/* Builds run's graph models from its record (run->models must be NULL), as
 * cr_script_run() does; with no record, run->models is made empty. */
void cr_script_run_build_models (CrScriptRun           *run,
                                 gboolean               every_call);

/* The memory budget of every script the window runs, set process-wide
 * (cr_memory_set_limit()) by the first cr_script_run(): a quarter of the
 * memory this process may use (physical RAM, or its cgroup's limit when
 * lower), between 256 MiB and 4 GiB, so that a script hits MemoryError long
 * before the kernel's OOM killer takes the window and its unsaved edits. */
gsize cr_script_run_memory_budget (void);
/* Sets that budget, once per process (later calls do nothing); the first
 * cr_script_run() calls it. Call it first to read the budget, or to replace
 * it by a later cr_memory_set_limit() (the crash guard's child takes its
 * window's). */
void  cr_script_run_init_memory_budget (void);

G_END_DECLS
