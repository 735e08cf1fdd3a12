/* ui-test-util.h — what the ui tests and benchmarks share: a script run into
 * graph models as the window's worker does it, and waits on the main loop. */
#pragma once

#include "cr-graph-model.h"

G_BEGIN_DECLS

/* Parses and runs source (path names it in errors; NULL: "test.py") with
 * its run recorded and returns one model per backward call, as
 * cr_graph_models_new_from_run_record() (free-func set). With trace, the
 * --trace-backward text is appended there. Asserts that the script runs. */
GPtrArray    *cr_ui_test_models_from_script (const char *source,
                                             const char *path,
                                             GString    *trace);
/* The same run, the model the window shows first: the last backward call's,
 * or the forward graph (owned). */
CrGraphModel *cr_ui_test_model_from_script  (const char *source,
                                             const char *path);

typedef gboolean (*CrUiTestPredicate) (gpointer data);

/* Iterates the main loop (blocking) until predicate (data) holds or
 * timeout_s seconds pass; returns whether it holds. */
gboolean      cr_ui_test_wait_until         (CrUiTestPredicate  predicate,
                                             gpointer           data,
                                             guint              timeout_s);
/* cr_ui_test_wait_until() for a flag a callback sets. */
gboolean      cr_ui_test_wait_for_flag      (const gboolean    *flag,
                                             guint              timeout_s);
/* Dispatches what is pending, without blocking. */
void          cr_ui_test_iterate            (void);
/* Lets the main loop run for ms milliseconds. */
void          cr_ui_test_spin               (guint              ms);

G_END_DECLS
