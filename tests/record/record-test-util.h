/* record-test-util.h — what the record tests share: a script's run record. */
#pragma once

#include "cr-run-record.h"

/* Runs source, named filename in tracebacks and the record, with every
 * backward call recorded and its output left out. *ok: whether it ran to
 * its end; ok NULL: it must (else its traceback is printed and the test
 * fails). Returns the record (new ref), never NULL. */
CrRunRecord *record_test_run      (const char *filename,
                                   const char *source,
                                   gboolean   *ok);
/* The same for the script at path, named by its base name. */
CrRunRecord *record_test_run_file (const char *path,
                                   gboolean   *ok);
