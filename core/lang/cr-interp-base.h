/* cr-interp-base.h — the interpreter as the runtime has it: run a parsed
 * script once, on one thread, with its output, cancellation and errors, and
 * call back into it. It names no tensor; cr-interp.h adds what the torch
 * binding keeps of a run (print options, the generator, backward records)
 * for the window, the runner and the torch layer. */
#pragma once

#include "cr-types.h"
#include "cr-value.h"
#include "cr-ast.h"

G_BEGIN_DECLS

typedef void (*CrOutputFunc) (const char *text,
                              gboolean    is_stderr,
                              gpointer    user_data);

typedef struct {
  CrOutputFunc  output;           /* print() and warnings; NULL: discard */
  gpointer      output_data;
  const gint   *cancel_flag;      /* set non-zero from any thread to stop the run: 1 raises
                                   * KeyboardInterrupt, 2 TimeoutError (the runner's --timeout) */
  gboolean      record_backward;  /* keep each backward call's steps (the UI) */
  gboolean      trace_backward;   /* print each step to the output (--trace-backward) */
  CrDeviceType  default_device;
  gboolean      coach;            /* the mistakes coach watches the run (core/coach/cr-coach.h):
                                   * the run record gets its findings; needs record_backward */
  gboolean      trace_forward;    /* print each forward op from the run record
                                   * (--trace-forward, cr-torch-forward-trace.h) */
} CrInterpOptions;

/* An uncaught error: the Python exception, its message, where it happened, and
 * the full traceback text the runner prints. */
typedef struct {
  CrException  type;
  char        *message;
  CrSpan       span;
  char        *traceback;   /* "Traceback (most recent call last):\n  File ..." ending with
                             * "RuntimeError: message\n" */
  gboolean     reported;    /* the traceback already went to the output as the run went
                             * on (a notebook cell's, cr-interp-cells.h): not to print again */
} CrScriptError;

void        cr_script_error_free   (CrScriptError *error);   /* NULL-safe */

CrInterp   *cr_interp_new          (const CrInterpOptions *options);
void        cr_interp_free         (CrInterp              *self);   /* NULL-safe */
/* Runs module; FALSE with *out_error (owned by the caller) on an uncaught error. */
gboolean    cr_interp_run          (CrInterp              *self,
                                    CrAstModule           *module,
                                    CrScriptError        **out_error);

/* A SyntaxError as Python prints it (no traceback): the File line, the source
 * line, carets under span, then "SyntaxError: message\n". New string. */
char       *cr_format_syntax_error (const char            *filename,
                                    const char            *source,
                                    const CrSpan          *span,
                                    const char            *type_name,
                                    const char            *message);

/* Call a callable value (def, lambda, native, class, bound method). */
CrValue    *cr_interp_call         (CrInterp              *self,
                                    CrValue               *callable,
                                    CrValue *const        *args,
                                    guint                  n_args,
                                    const CrKwarg         *kwargs,
                                    guint                  n_kwargs,
                                    GError               **error);
void        cr_interp_write        (CrInterp              *self,
                                    const char            *text,
                                    gboolean               is_stderr);
/* A Python warning on stderr, once per call site like Python's default filter:
 * "FILE:LINE: UserWarning: message\n  source line\n". */
void        cr_interp_warn         (CrInterp              *self,
                                    const char            *category,
                                    const char            *message);
gboolean    cr_interp_check_cancel (CrInterp              *self,
                                    GError               **error);
/* The run's cancel flag (NULL when none), for CrBackwardOptions.cancel_flag,
 * so that a long backward stops too. */
const gint *cr_interp_get_cancel_flag (CrInterp           *self);
CrDeviceType cr_interp_get_default_device (CrInterp       *self);
/* Calls func (data) when self is freed, before its variables are dropped,
 * the last registered first: how a binding breaks the reference cycles its
 * objects may form (a leaf whose .grad has a graph that leads back to it). */
void        cr_interp_at_free      (CrInterp              *self,
                                    GDestroyNotify         func,
                                    gpointer               data);
/* The next RemovableHandle.id: 0, 1, ... in each run, as in a fresh
 * PyTorch process (the engine's own hook ids are process-wide). */
guint       cr_interp_next_handle_id (CrInterp            *self);

/* The script's global variables after the run (borrowed table: char* -> CrValue*). */
GHashTable              *cr_interp_get_globals            (CrInterp *self);

G_END_DECLS
