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
#include "cr-run-record-fields.h"

G_BEGIN_DECLS

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
                           const RecordFields     *fields,
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
void              wire_get_fields      (Reader             *r,
                                        const RecordFields *fields,
                                        gpointer            item);

/* The training loop's items, added to record (cr-run-record-wire-training.c). */
void              wire_get_update      (Reader      *r,
                                        CrRunRecord *record);
void              wire_get_printed     (Reader      *r,
                                        CrRunRecord *record);

G_END_DECLS
