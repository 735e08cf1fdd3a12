/* teach-test-util.h — what the teach tests share: a script's run record. */
#pragma once

#include "cr-run-record.h"

/* Runs source (named filename in messages) with backward recording and its
 * output discarded; a script error is only logged. Returns the record (new
 * ref). */
CrRunRecord *teach_test_record_script (const char *source,
                                       const char *filename);
