/* cr-run-record-wire-private.h — what the files of the run record's wire
 * form share (cr-run-record-wire.h): the writer and the reader, their
 * fixed-width fields (inline: a field is a compare and a copy), and the
 * encoders and decoders of the fields that several items have (strings,
 * spans, shapes, snapshots) and of the training loop's items.
 *
 * Not installed and not for other code: the layout it writes is the wire
 * format's, whose only reader is cr_run_record_from_wire(). */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* ---- an item's plain fields, described once ---------------------------------- */

/* How one field of an item travels. The writer and the reader both walk an
 * item's table (wire_put_fields, wire_get_fields), so that the two ends
 * cannot disagree on an item's layout; what is not a plain field (an array
 * of sub-items, a value the constructor takes) each item's code does by
 * hand, between tables. */
typedef enum {
  WIRE_FIELD_U32,           /* guint, or an enum whose count of values n_values checks */
  WIRE_FIELD_I32,           /* int: an index (-1: none) */
  WIRE_FIELD_BOOL,          /* gboolean, as one byte */
  WIRE_FIELD_STRING,        /* char *: new when read (the item owns it) */
  WIRE_FIELD_RULE,          /* const char *: an op's rule text, the op table's when read */
  WIRE_FIELD_SPAN,          /* CrSpan */
  WIRE_FIELD_SHAPE,         /* int ndim at offset, gint64 shape[CR_MAX_DIMS] at offset2 */
  WIRE_FIELD_INDEX_ARRAY,   /* GArray * of int, made by the item's constructor */
  WIRE_FIELD_LOOP_PATH,     /* guint depth at offset, guint path[] at offset2 */
  WIRE_FIELD_SNAPSHOT,      /* CrTensorSnapshot *: a new hold when read (the item's) */
} WireFieldKind;

typedef struct {
  WireFieldKind kind;
  guint16       offset;
  guint16       offset2;
  guint         n_values;   /* U32 of an enum: its count of values; 0: any number */
  const char   *what;       /* the enum's name in a failed read */
} WireField;

/* The rows of a table, each checked at compile time against the field's
 * type (a row that names a field of another type does not compile). */
#define WIRE_OFFSET_OF_TYPE(T, f, type) _Generic (((T *) 0)->f, type: offsetof (T, f))
#define WIRE_U32(T, f)      { WIRE_FIELD_U32, WIRE_OFFSET_OF_TYPE (T, f, guint), 0, 0, NULL }
#define WIRE_I32(T, f)      { WIRE_FIELD_I32, WIRE_OFFSET_OF_TYPE (T, f, int), 0, 0, NULL }
#define WIRE_BOOL(T, f)     { WIRE_FIELD_BOOL, WIRE_OFFSET_OF_TYPE (T, f, gboolean), 0, 0, NULL }
#define WIRE_STRING(T, f)   { WIRE_FIELD_STRING, WIRE_OFFSET_OF_TYPE (T, f, char *), 0, 0, NULL }
#define WIRE_RULE(T, f)     { WIRE_FIELD_RULE, WIRE_OFFSET_OF_TYPE (T, f, const char *), 0, 0, NULL }
#define WIRE_SPAN(T, f)     { WIRE_FIELD_SPAN, WIRE_OFFSET_OF_TYPE (T, f, CrSpan), 0, 0, NULL }
#define WIRE_SNAPSHOT(T, f) { WIRE_FIELD_SNAPSHOT, WIRE_OFFSET_OF_TYPE (T, f, CrTensorSnapshot *), 0, 0, NULL }
#define WIRE_INDEX_ARRAY(T, f) \
  { WIRE_FIELD_INDEX_ARRAY, WIRE_OFFSET_OF_TYPE (T, f, GArray *), 0, 0, NULL }
#define WIRE_SHAPE(T, ndim, shape) \
  { WIRE_FIELD_SHAPE, WIRE_OFFSET_OF_TYPE (T, ndim, int), WIRE_OFFSET_OF_TYPE (T, shape, gint64 *), 0, NULL }
#define WIRE_LOOP_PATH(T) \
  { WIRE_FIELD_LOOP_PATH, WIRE_OFFSET_OF_TYPE (T, loop_depth, guint), \
    WIRE_OFFSET_OF_TYPE (T, loop_path, guint *), 0, NULL }
/* An enum field: its type is the enum's, which is an int's size here. */
#define WIRE_ENUM(T, f, last, name) \
  { WIRE_FIELD_U32, offsetof (T, f) + 0 * sizeof (char[sizeof (((T *) 0)->f) == 4 ? 1 : -1]), \
    0, (last) + 1, name }
/* A table and its length, as wire_put_fields and wire_get_fields take them. */
#define WIRE_TABLE(fields) (fields), G_N_ELEMENTS (fields)

/* ---- writing ------------------------------------------------------------------ */

typedef struct {
  GByteArray *bytes;        /* its len is the room; the message is the first len bytes */
  gsize       len;
  GHashTable *shared;       /* CrTensorSnapshot* with other owners -> its number + 1 */
  guint32     n_snapshots;  /* distinct snapshots written so far */
} Writer;

/* Makes room for n bytes more (doubling), out of line: reserve()'s rare path. */
void wire_grow (Writer *w,
                gsize   n);

/* n bytes more at the end of the message, to be filled by the caller. A
 * field is a few bytes: the room is kept here, so that writing one is a
 * compare and a copy. */
static inline guint8 *
reserve (Writer *w,
         gsize   n)
{
  if (G_UNLIKELY (w->len + n > w->bytes->len))
    wire_grow (w, n);
  guint8 *at = w->bytes->data + w->len;
  w->len += n;
  return at;
}

static inline void
put_bytes (Writer        *w,
           gconstpointer  data,
           gsize          n)
{
  if (n > 0)
    memcpy (reserve (w, n), data, n);
}

static inline void put_u8  (Writer *w, guint8 v)  { *reserve (w, 1) = v; }
static inline void put_u32 (Writer *w, guint32 v) { memcpy (reserve (w, 4), &v, 4); }
static inline void put_i32 (Writer *w, gint32 v)  { memcpy (reserve (w, 4), &v, 4); }
static inline void put_i64 (Writer *w, gint64 v)  { memcpy (reserve (w, 8), &v, 8); }
static inline void put_bool (Writer *w, gboolean v) { put_u8 (w, v ? 1 : 0); }


void wire_put_string      (Writer                 *w,
                           const char             *s);
void wire_put_span        (Writer                 *w,
                           const CrSpan           *span);
void wire_put_shape       (Writer                 *w,
                           int                     ndim,
                           const gint64           *shape);
/* A GArray of int (indices), NULL as empty. */
void wire_put_index_array (Writer                 *w,
                           const GArray           *indices);
void wire_put_loop_path   (Writer                 *w,
                           guint                   depth,
                           const guint            *path);
/* A snapshot, NULL included; a shared one (cr_tensor_snapshot_share) is
 * sent once and then by its number. */
void wire_put_snapshot    (Writer                 *w,
                           const CrTensorSnapshot *s);

/* Every field of item that fields describes, in their order. */
void wire_put_fields      (Writer                 *w,
                           const WireField        *fields,
                           gsize                   n_fields,
                           gconstpointer           item);

/* The training loop's items (cr-run-record-wire-training.c). */
void wire_put_update      (Writer                 *w,
                           const CrRecordUpdate   *u);
void wire_put_printed     (Writer                 *w,
                           const CrRecordPrinted  *p);

/* ---- reading ------------------------------------------------------------------- */

typedef struct {
  const guint8 *pos;
  const guint8 *end;
  gboolean      failed;     /* sticky: every read after a failure gives zeros */
  GError      **error;
  GPtrArray    *snapshots;  /* borrowed: the snapshots read so far, in order */
} Reader;

/* Fails the read with a message (the first failure's stays). */
void G_GNUC_PRINTF (2, 3) wire_fail (Reader     *r,
                                     const char *format,
                                     ...);

/* The next n bytes, or NULL (the read failed) when fewer are left. */
static inline const guint8 *
take (Reader *r,
      gsize   n)
{
  if (r->failed)
    return NULL;
  if ((gsize) (r->end - r->pos) < n)
    {
      wire_fail (r, "truncated: %" G_GSIZE_FORMAT " bytes wanted, %" G_GSIZE_FORMAT " left",
            n, (gsize) (r->end - r->pos));
      return NULL;
    }
  const guint8 *at = r->pos;
  r->pos += n;
  return at;
}

static inline gboolean
get_bytes (Reader   *r,
           gpointer  out,
           gsize     n)
{
  const guint8 *at = take (r, n);
  if (!at)
    {
      memset (out, 0, n);
      return FALSE;
    }
  memcpy (out, at, n);
  return TRUE;
}

static inline guint32 get_u32 (Reader *r) { guint32 v; get_bytes (r, &v, 4); return v; }
static inline gint32  get_i32 (Reader *r) { gint32 v; get_bytes (r, &v, 4); return v; }
static inline gint64  get_i64 (Reader *r) { gint64 v; get_bytes (r, &v, 8); return v; }

static inline gboolean
get_bool (Reader *r)
{
  const guint8 *at = take (r, 1);
  if (at && *at > 1)
    wire_fail (r, "a boolean of %u", *at);
  return at && *at == 1;
}

/* An enum's value, checked against its count of values. */
guint             wire_get_enum        (Reader      *r,
                                        guint        n_values,
                                        const char  *what);
/* A count of items that each take at least item_min bytes: never more than
 * what is left could hold, so a corrupt count allocates nothing. */
guint             wire_get_count       (Reader      *r,
                                        gsize        item_min);
/* A new string, or NULL. */
char             *wire_get_string      (Reader      *r);
void              wire_get_span        (Reader      *r,
                                        CrSpan      *span);
void              wire_get_shape       (Reader      *r,
                                        int         *ndim,
                                        gint64      *shape);
/* Appends the indices read to array (of int). */
void              wire_get_index_array (Reader      *r,
                                        GArray      *array);
void              wire_get_loop_path   (Reader      *r,
                                        guint       *depth,
                                        guint       *path);
/* A snapshot: NULL, a new hold on one read before, or a new one, which the
 * caller stores at once in an item of the record (which then owns it). */
CrTensorSnapshot *wire_get_snapshot    (Reader      *r);

/* Reads into item every field that fields describes, in their order; the
 * strings and snapshots read become item's. A failed read leaves zeros. */
void              wire_get_fields      (Reader          *r,
                                        const WireField *fields,
                                        gsize            n_fields,
                                        gpointer         item);

/* The training loop's items, added to record (cr-run-record-wire-training.c). */
void              wire_get_update      (Reader      *r,
                                        CrRunRecord *record);
void              wire_get_printed     (Reader      *r,
                                        CrRunRecord *record);

G_END_DECLS
