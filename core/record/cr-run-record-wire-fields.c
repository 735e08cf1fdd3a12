/* cr-run-record-wire-fields.c — the run record's wire form: the fields
 * that several items have (strings, spans, shapes, index lists, loop paths,
 * snapshots), written and read (cr-run-record-wire-private.h).
 *
 * Moved from cr-run-record-wire.c as they were; the format is described
 * there. Every read checks its length against what is left first. */
#include "cr-run-record-wire-private.h"

#include "cr-error.h"
#include "cr-op-table.h"

/* How a snapshot's values travel. */
enum {
  VALUES_FLOAT32,
  VALUES_FLOAT64,
};

/* ---- writing ------------------------------------------------------------------ */

void
wire_grow (Writer *w,
      gsize   n)
{
  gsize room = MAX (w->bytes->len * 2, w->len + n);
  g_byte_array_set_size (w->bytes, (guint) room);
}

void
wire_put_string (Writer     *w,
                 const char *s)
{
  if (!s)
    {
      put_u32 (w, 0);
      return;
    }
  gsize n = strlen (s);
  put_u32 (w, (guint32) n + 1);
  put_bytes (w, s, n);
}

void
wire_put_span (Writer       *w,
               const CrSpan *span)
{
  gint32 v[4] = { span->line, span->column, span->end_line, span->end_column };
  put_bytes (w, v, sizeof v);
}

void
wire_put_shape (Writer       *w,
                int           ndim,
                const gint64 *shape)
{
  put_i32 (w, ndim);
  if (ndim > 0)
    put_bytes (w, shape, sizeof (gint64) * (gsize) MIN (ndim, CR_MAX_DIMS));
}

void
wire_put_index_array (Writer       *w,
                      const GArray *indices)
{
  guint n = indices ? indices->len : 0;
  put_u32 (w, n);
  if (n > 0)
    put_bytes (w, indices->data, sizeof (int) * n);
}

void
wire_put_loop_path (Writer      *w,
                    guint        depth,
                    const guint *path)
{
  depth = MIN (depth, CR_RECORD_MAX_LOOP_PATH);
  put_u32 (w, depth);
  put_bytes (w, path, sizeof (guint) * depth);
}

/* A snapshot's values: as float32 when every one of them is a float32
 * exactly (bit for bit back, NaNs and -0. included), as most tensors' are,
 * in half the bytes; else as doubles. */
static void
put_values (Writer       *w,
            const double *values,
            gsize         n)
{
  gsize start = w->len;
  put_u8 (w, VALUES_FLOAT32);
  guint8 *out = reserve (w, sizeof (float) * n);
  for (gsize i = 0; i < n; i++)
    {
      float f = (float) values[i];
      double back = f;
      if (G_UNLIKELY (memcmp (&back, &values[i], sizeof back) != 0))
        {
          w->len = start;
          put_u8 (w, VALUES_FLOAT64);
          put_bytes (w, values, sizeof (double) * n);
          return;
        }
      memcpy (out + sizeof (float) * i, &f, sizeof f);
    }
}

void
wire_put_snapshot (Writer                 *w,
                   const CrTensorSnapshot *s)
{
  if (!s)
    {
      put_u32 (w, 0);
      return;
    }
  /* Only a snapshot with other owners can come again: the others need no
   * lookup. */
  gboolean is_shared = g_atomic_int_get ((gint *) &s->shares) > 0;
  if (is_shared)
    {
      guint number = GPOINTER_TO_UINT (g_hash_table_lookup (w->shared, s));
      if (number)
        {
          put_u32 (w, number);
          return;
        }
      g_hash_table_insert (w->shared, (gpointer) s, GUINT_TO_POINTER (w->n_snapshots + 1));
    }
  w->n_snapshots++;
  put_u32 (w, w->n_snapshots);
  wire_put_shape (w, s->ndim, s->shape);
  put_i64 (w, s->numel);
  wire_put_string (w, s->dtype);
  wire_put_string (w, s->device);
  put_i64 (w, s->n_values);
  if (s->n_values > 0)
    put_values (w, s->values, (gsize) s->n_values);
  double stats[4] = { s->min, s->max, s->mean, s->std };
  put_bytes (w, stats, sizeof stats);
  /* A deferred text is left to the reader, who formats it from the values
   * if it is ever read; reading the pointer once keeps a text that another
   * thread formats meanwhile from being half sent. */
  put_bool (w, s->text_deferred);
  const char *text = g_atomic_pointer_get ((char **) &s->text);
  wire_put_string (w, s->text_deferred ? NULL : text);
}

void
wire_put_fields (Writer             *w,
                 const RecordFields *fields,
                 gconstpointer       item)
{
  const guint8 *base = item;
  for (gsize i = 0; i < fields->n_rows; i++)
    {
      const RecordField *f = &fields->rows[i];
      const guint8 *at = base + f->offset;
      switch (f->kind)
        {
        case FIELD_KIND_U32:
        case FIELD_KIND_I32:
          put_bytes (w, at, 4);
          break;
        case FIELD_KIND_BOOL:
          put_bool (w, *(const gboolean *) at);
          break;
        case FIELD_KIND_STRING:
        case FIELD_KIND_RULE:
          wire_put_string (w, *(const char *const *) at);
          break;
        case FIELD_KIND_SPAN:
          wire_put_span (w, (const CrSpan *) at);
          break;
        case FIELD_KIND_SHAPE:
          wire_put_shape (w, *(const int *) at, (const gint64 *) (base + f->offset2));
          break;
        case FIELD_KIND_INDEX_ARRAY:
          wire_put_index_array (w, *(const GArray *const *) at);
          break;
        case FIELD_KIND_LOOP_PATH:
          wire_put_loop_path (w, *(const guint *) at, (const guint *) (base + f->offset2));
          break;
        case FIELD_KIND_SNAPSHOT:
          wire_put_snapshot (w, *(const CrTensorSnapshot *const *) at);
          break;
        }
    }
}

/* ---- reading ------------------------------------------------------------------- */

/* Fails the read with a message (the first failure's stays). */
void G_GNUC_PRINTF (2, 3)
wire_fail (Reader     *r,
           const char *format,
           ...)
{
  if (r->failed)
    return;
  r->failed = TRUE;
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (r->error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "run record wire: %s", message);
}

/* An enum's value, checked against its count of values. */
guint
wire_get_enum (Reader     *r,
               guint       n_values,
               const char *what)
{
  guint32 v = get_u32 (r);
  if (v >= n_values)
    {
      wire_fail (r, "%s %u out of range", what, v);
      return 0;
    }
  return v;
}

/* A count of items that each take at least item_min bytes: never more than
 * what is left could hold, so a corrupt count allocates nothing. */
guint
wire_get_count (Reader *r,
                gsize   item_min)
{
  guint32 n = get_u32 (r);
  if (!r->failed && (guint64) n * item_min > (guint64) (r->end - r->pos))
    {
      wire_fail (r, "a count of %u items in %" G_GSIZE_FORMAT " bytes", n, (gsize) (r->end - r->pos));
      return 0;
    }
  return r->failed ? 0 : n;
}

/* A new string, or NULL. */
char *
wire_get_string (Reader *r)
{
  guint32 n = get_u32 (r);
  if (n == 0)
    return NULL;
  const guint8 *at = take (r, n - 1);
  if (!at)
    return NULL;
  /* A NUL inside (never written) only makes the string shorter. */
  char *s = g_malloc (n);
  memcpy (s, at, n - 1);
  s[n - 1] = '\0';
  return s;
}

void
wire_get_span (Reader *r,
               CrSpan *span)
{
  gint32 v[4];
  get_bytes (r, v, sizeof v);
  span->line = v[0];
  span->column = v[1];
  span->end_line = v[2];
  span->end_column = v[3];
}

void
wire_get_shape (Reader *r,
                int    *ndim,
                gint64 *shape)
{
  gint32 n = get_i32 (r);
  if (n < 0 || n > CR_MAX_DIMS)
    {
      wire_fail (r, "%d dims", n);
      n = 0;
    }
  *ndim = n;
  get_bytes (r, shape, sizeof (gint64) * (gsize) n);
}

/* Appends the indices read to array (of int). */
void
wire_get_index_array (Reader *r,
                      GArray *array)
{
  guint n = wire_get_count (r, sizeof (gint32));
  const guint8 *at = take (r, sizeof (int) * (gsize) n);
  if (at && n > 0)
    g_array_append_vals (array, at, n);
}

void
wire_get_loop_path (Reader *r,
                    guint  *depth,
                    guint  *path)
{
  guint32 n = get_u32 (r);
  if (n > CR_RECORD_MAX_LOOP_PATH)
    {
      wire_fail (r, "a loop path %u deep", n);
      n = 0;
    }
  *depth = n;
  get_bytes (r, path, sizeof (guint) * n);
}

/* Every op's rule by its text: a rule is a static string of the op table,
 * and the record's rule fields point to it. */
static gpointer
rules_by_text_new (gpointer data)
{
  GHashTable *rules = g_hash_table_new (g_str_hash, g_str_equal);
  for (int op = 0; op < CR_OP_COUNT; op++)
    {
      const CrOpInfo *info = cr_op_info ((CrOpId) op);
      if (info && info->local_grad_text)
        g_hash_table_insert (rules, (gpointer) info->local_grad_text, (gpointer) info->local_grad_text);
    }
  return rules;
}

/* The op table's rule with the text read, or NULL. A text no op has (a
 * rule made some other way one day) is interned: it must outlive the
 * record like a static one, and costs its bytes once. */
static const char *
get_rule (Reader *r)
{
  static GOnce rules_once = G_ONCE_INIT;
  g_autofree char *text = wire_get_string (r);
  if (!text)
    return NULL;
  GHashTable *rules = g_once (&rules_once, rules_by_text_new, NULL);
  const char *rule = g_hash_table_lookup (rules, text);
  return rule ? rule : g_intern_string (text);
}

void
wire_get_fields (Reader             *r,
                 const RecordFields *fields,
                 gpointer            item)
{
  guint8 *base = item;
  for (gsize i = 0; i < fields->n_rows; i++)
    {
      const RecordField *f = &fields->rows[i];
      guint8 *at = base + f->offset;
      switch (f->kind)
        {
        case FIELD_KIND_U32:
          {
            guint32 v = f->n_values > 0 ? wire_get_enum (r, f->n_values, f->what) : get_u32 (r);
            memcpy (at, &v, 4);
          }
          break;
        case FIELD_KIND_I32:
          {
            gint32 v = get_i32 (r);
            memcpy (at, &v, 4);
          }
          break;
        case FIELD_KIND_BOOL:
          *(gboolean *) at = get_bool (r);
          break;
        case FIELD_KIND_STRING:
          *(char **) at = wire_get_string (r);
          break;
        case FIELD_KIND_RULE:
          *(const char **) at = get_rule (r);
          break;
        case FIELD_KIND_SPAN:
          wire_get_span (r, (CrSpan *) at);
          break;
        case FIELD_KIND_SHAPE:
          wire_get_shape (r, (int *) at, (gint64 *) (base + f->offset2));
          break;
        case FIELD_KIND_INDEX_ARRAY:
          wire_get_index_array (r, *(GArray **) at);
          break;
        case FIELD_KIND_LOOP_PATH:
          wire_get_loop_path (r, (guint *) at, (guint *) (base + f->offset2));
          break;
        case FIELD_KIND_SNAPSHOT:
          *(CrTensorSnapshot **) at = wire_get_snapshot (r);
          break;
        }
    }
}

/* The number of elements shape has, or -1 past what an int64 holds. */
static gint64
shape_numel (int           ndim,
             const gint64 *shape)
{
  gint64 numel = 1;
  for (int d = 0; d < ndim; d++)
    {
      if (shape[d] < 0 || (shape[d] > 0 && numel > G_MAXINT64 / shape[d]))
        return -1;
      numel *= shape[d];
    }
  return numel;
}

/* n values (put_values): a new array, or NULL when the read failed. */
static double *
get_values (Reader *r,
            gsize   n)
{
  const guint8 *encoding = take (r, 1);
  if (!encoding)
    return NULL;
  if (*encoding > VALUES_FLOAT64)
    {
      wire_fail (r, "values encoding %u", *encoding);
      return NULL;
    }
  if (*encoding == VALUES_FLOAT64)
    {
      const guint8 *at = take (r, sizeof (double) * n);
      return at ? g_memdup2 (at, sizeof (double) * n) : NULL;
    }
  const guint8 *at = take (r, sizeof (float) * n);
  if (!at)
    return NULL;
  double *values = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      float f;
      memcpy (&f, at + sizeof (float) * i, sizeof f);
      values[i] = f;
    }
  return values;
}

/* A snapshot: NULL, a new hold on one read before, or a new one, which the
 * caller stores at once in an item of the record (which then owns it). */
CrTensorSnapshot *
wire_get_snapshot (Reader *r)
{
  guint32 number = get_u32 (r);
  if (number == 0 || r->failed)
    return NULL;
  if (number <= r->snapshots->len)
    return cr_tensor_snapshot_share (g_ptr_array_index (r->snapshots, number - 1));
  if (number != r->snapshots->len + 1)
    {
      wire_fail (r, "snapshot %u when %u were sent", number, r->snapshots->len);
      return NULL;
    }

  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  g_ptr_array_add (r->snapshots, s);
  wire_get_shape (r, &s->ndim, s->shape);
  s->numel = get_i64 (r);
  s->dtype = wire_get_string (r);
  s->device = wire_get_string (r);
  s->n_values = get_i64 (r);
  if (!r->failed && s->numel != shape_numel (s->ndim, s->shape))
    wire_fail (r, "a snapshot of %" G_GINT64_FORMAT " elements in its shape's place", s->numel);
  /* Formatting a deferred text and the previews read numel values from
   * the kept ones: never more than are there. */
  if (!r->failed && (s->n_values < 0 || s->n_values > s->numel || s->n_values > CR_SNAPSHOT_MAX_VALUES))
    wire_fail (r, "a snapshot keeping %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " values",
          s->n_values, s->numel);
  if (!r->failed && s->n_values > 0)
    s->values = get_values (r, (gsize) s->n_values);
  double stats[4];
  get_bytes (r, stats, sizeof stats);
  s->min = stats[0];
  s->max = stats[1];
  s->mean = stats[2];
  s->std = stats[3];
  s->text_deferred = get_bool (r);
  s->text = wire_get_string (r);
  if (r->failed)
    {
      /* Not yet owned by an item: freed here, and the table forgets it. */
      g_ptr_array_set_size (r->snapshots, r->snapshots->len - 1);
      cr_tensor_snapshot_free (s);
      return NULL;
    }
  return s;
}
