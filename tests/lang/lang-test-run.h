/* lang-test-run.h — what the interpreter tests share: a script run with its
 * output captured. */
#pragma once

#include "cr-interp.h"

/* An output function (CrInterpOptions.output) that keeps what a script
 * writes, its output_data a LangTestCapture. */
typedef struct {
  GString *out;
  GString *err;
} LangTestCapture;

void     lang_test_capture   (const char            *text,
                              gboolean               is_stderr,
                              gpointer               capture);

typedef struct {
  char          *out;      /* what it printed to stdout */
  char          *err;      /* and to stderr */
  CrScriptError *error;    /* its uncaught error, or NULL */
  CrInterp      *interp;   /* kept for its globals and record */
  CrAstModule   *module;
} LangTestRun;

/* Parses source (it must parse) as filename and runs it with options
 * (NULL: the defaults; their output is replaced by the capture) into *run,
 * which lang_test_run_clear frees. Whether it ran to its end. */
gboolean lang_test_run       (const char            *filename,
                              const char            *source,
                              const CrInterpOptions *options,
                              LangTestRun           *run);
void     lang_test_run_clear (LangTestRun           *run);
