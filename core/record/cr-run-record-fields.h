/* cr-run-record-fields.h — the run record's items described field by
 * field, for the code that writes a record out and reads it back: the wire
 * form (cr-run-record-wire.c) and the JSON (cr-run-record-json.c) walk the
 * same tables, so that neither can leave out a field the other has.
 *
 * Not installed and not for other code. A table holds an item's plain
 * fields; what is not a plain field (an array of sub-items, a value the
 * item's constructor takes, an id the reader's constructor gives) each
 * writer does by hand, between tables. */
#pragma once

#include <glib.h>
#include <stddef.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* What one field is. */
typedef enum {
  FIELD_KIND_U32,           /* guint, or an enum (n_values, names) */
  FIELD_KIND_I32,           /* int: an index (-1: none) */
  FIELD_KIND_BOOL,          /* gboolean */
  FIELD_KIND_STRING,        /* char *: new when read (the item owns it) */
  FIELD_KIND_RULE,          /* const char *: an op's rule text, the op table's when read */
  FIELD_KIND_SPAN,          /* CrSpan */
  FIELD_KIND_SHAPE,         /* int ndim at offset, gint64 shape[CR_MAX_DIMS] at offset2 */
  FIELD_KIND_INDEX_ARRAY,   /* GArray * of int, made by the item's constructor */
  FIELD_KIND_LOOP_PATH,     /* guint depth at offset, guint path[] at offset2 */
  FIELD_KIND_SNAPSHOT,      /* CrTensorSnapshot *: a new hold when read (the item's) */
} RecordFieldKind;

typedef struct {
  RecordFieldKind    kind;
  guint16            offset;
  guint16            offset2;
  guint              n_values;   /* U32 of an enum: its count of values; 0: any number */
  const char        *what;       /* the enum's name in a failed read */
  const char        *key;        /* the field's JSON key: its name in the struct */
  const char *const *names;      /* an enum's JSON words, n_values of them */
} RecordField;

/* One item's table. */
typedef struct {
  const RecordField *rows;
  gsize              n_rows;
} RecordFields;

/* The rows of a table, each checked at compile time against the field's
 * type (a row that names a field of another type does not compile). */
#define FIELD_OFFSET_OF_TYPE(T, f, type) _Generic (((T *) 0)->f, type: offsetof (T, f))
#define FIELD_ROW(kind, T, f, type)  { kind, FIELD_OFFSET_OF_TYPE (T, f, type), 0, 0, NULL, #f, NULL }
#define FIELD_U32(T, f)          FIELD_ROW (FIELD_KIND_U32, T, f, guint)
#define FIELD_I32(T, f)          FIELD_ROW (FIELD_KIND_I32, T, f, int)
#define FIELD_BOOL(T, f)         FIELD_ROW (FIELD_KIND_BOOL, T, f, gboolean)
#define FIELD_STRING(T, f)       FIELD_ROW (FIELD_KIND_STRING, T, f, char *)
#define FIELD_RULE(T, f)         FIELD_ROW (FIELD_KIND_RULE, T, f, const char *)
#define FIELD_SPAN(T, f)         FIELD_ROW (FIELD_KIND_SPAN, T, f, CrSpan)
#define FIELD_SNAPSHOT(T, f)     FIELD_ROW (FIELD_KIND_SNAPSHOT, T, f, CrTensorSnapshot *)
#define FIELD_INDEX_ARRAY(T, f)  FIELD_ROW (FIELD_KIND_INDEX_ARRAY, T, f, GArray *)
#define FIELD_SHAPE(T, ndim, shape) \
  { FIELD_KIND_SHAPE, FIELD_OFFSET_OF_TYPE (T, ndim, int), FIELD_OFFSET_OF_TYPE (T, shape, gint64 *), \
    0, NULL, #shape, NULL }
#define FIELD_LOOP_PATH(T) \
  { FIELD_KIND_LOOP_PATH, FIELD_OFFSET_OF_TYPE (T, loop_depth, guint), \
    FIELD_OFFSET_OF_TYPE (T, loop_path, guint *), 0, NULL, "loop_path", NULL }
/* An enum field, last its last value: its type is the enum's, an int's
 * size here; names its JSON words. */
#define FIELD_ENUM(T, f, last, what, names) \
  { FIELD_KIND_U32, offsetof (T, f) + 0 * sizeof (char[sizeof (((T *) 0)->f) == 4 ? 1 : -1]), \
    0, (last) + 1, what, #f, names }

/* Each item's tables, in the order its fields travel; the comment on each
 * in cr-run-record-fields.c says what comes between them. */
extern const RecordFields cr_record_grad_fields;
extern const RecordFields cr_record_tensor_fields;
extern const RecordFields cr_record_saved_fields;
extern const RecordFields cr_record_op_fields;
extern const RecordFields cr_record_op_tail_fields;
extern const RecordFields cr_record_module_call_fields;
extern const RecordFields cr_record_region_fields;
extern const RecordFields cr_record_step_input_fields;
extern const RecordFields cr_record_hook_fields;
extern const RecordFields cr_record_accumulation_fields;
extern const RecordFields cr_record_step_fields;
extern const RecordFields cr_record_step_rule_fields;
extern const RecordFields cr_record_step_tail_fields;
extern const RecordFields cr_record_backward_fields;
extern const RecordFields cr_record_backward_tail_fields;
extern const RecordFields cr_record_error_fields;
extern const RecordFields cr_record_finding_fields;
extern const RecordFields cr_record_update_fields;
extern const RecordFields cr_record_update_value_fields;
extern const RecordFields cr_record_state_fields;
extern const RecordFields cr_record_printed_fields;

G_END_DECLS
