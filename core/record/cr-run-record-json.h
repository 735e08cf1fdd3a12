/* cr-run-record-json.h — a run record as JSON, the file that
 * `chainrule run --record FILE.json` writes and other tools read.
 *
 * The schema ("schema": "chainrule-run-record", "version":
 * CR_RUN_RECORD_SCHEMA_VERSION) is documented field by field in
 * docs/run-record.md. The text is deterministic: keys in a fixed order (the
 * order of cr-run-record.h), two-space indentation, one value per line
 * except numbers in arrays, and a final newline. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* The record as UTF-8 JSON text (new string; never NULL). length, when not
 * NULL, receives its length in bytes. */
char *cr_run_record_to_json (const CrRunRecord *record,
                             gsize             *length);

G_END_DECLS
