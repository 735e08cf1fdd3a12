/* cr-run-record-wire.c — a run record as bytes and back
 * (cr-run-record-wire.h).
 *
 * Fixed-width fields in the host's byte order, copied with memcpy: the two
 * ends are one build on one machine, so nothing is parsed or converted but
 * a snapshot's float32 values; each snapshot's values go as one block. The
 * body follows cr-run-record.h's order item by item; an item's id (its
 * index) is not sent, the reader's constructors give it. Most of a
 * message is names, captions and each snapshot's metadata: the MLP
 * example's 2 MB hold 40,000 strings and 6,000 snapshots of 7 values on
 * average.
 *
 *   string     u32 length + 1 (0: NULL), then the bytes without the NUL
 *   span       4 × i32
 *   shape      i32 ndim, then ndim × i64
 *   index list u32 count, then count × i32
 *   snapshot   u32: 0 NULL; k + 1 the k-th snapshot sent before (shared);
 *              the count sent so far + 1: a new one follows (ndim, shape,
 *              numel, dtype, device, n_values, the values as float32 when
 *              they all are exactly, else float64, min/max/mean/std,
 *              text_deferred, the text unless deferred)
 *   array      u32 count, then the items
 *
 * The reader checks every length against what is left before it copies or
 * allocates, every enum and count against its range, and, once the record
 * is whole, every index against its array: what it returns is as safe to
 * walk as a record made in process. */
#include "cr-run-record-wire.h"

#include "cr-error.h"
#include "cr-op-table.h"

#include <string.h>

#define WIRE_MAGIC        "CRRECWIR"
#define WIRE_BYTE_ORDER   0x01020304u
/* A guess at the bytes an item (tensor, op, step) takes with its share of
 * the snapshots: 400 in the MLP example. */
#define WIRE_BYTES_PER_ITEM 512
/* The last four bytes of every message: a writer and reader that disagree
 * on the body's layout fail here rather than returning a wrong record. */
#define WIRE_END_MARK     0x454e4421u

/* The header's fields, at fixed offsets. */
enum {
  HEADER_MAGIC          = 0,   /* 8 bytes */
  HEADER_VERSION        = 8,   /* u32 CR_RUN_RECORD_WIRE_VERSION */
  HEADER_SIZE           = 12,  /* u32 CR_RUN_RECORD_WIRE_HEADER_SIZE */
  HEADER_TOTAL          = 16,  /* u64 the whole message */
  HEADER_BYTE_ORDER     = 24,  /* u32 WIRE_BYTE_ORDER as the writer stores it */
  HEADER_SCHEMA         = 28,  /* u32 CR_RUN_RECORD_SCHEMA_VERSION */
  HEADER_SIZEOF_INT     = 32,  /* u8 each: sizeof (int), (gint64), (double) */
  HEADER_SIZEOF_INT64   = 33,
  HEADER_SIZEOF_DOUBLE  = 34,
  HEADER_MAX_DIMS       = 35,  /* u8 CR_MAX_DIMS */
  HEADER_MAX_LOOP_PATH  = 36,  /* u8 CR_RECORD_MAX_LOOP_PATH */
  HEADER_PADDING        = 37,  /* 3 zero bytes */
  HEADER_MAX_VALUES     = 40,  /* u32 CR_SNAPSHOT_MAX_VALUES */
  HEADER_N_SNAPSHOTS    = 44,  /* u32 distinct snapshots in the body */
  HEADER_END            = 48,  /* the rest up to the header's size is zero */
};

G_STATIC_ASSERT (HEADER_END <= CR_RUN_RECORD_WIRE_HEADER_SIZE);
G_STATIC_ASSERT (sizeof (double) == 8 && sizeof (gint64) == 8);

/* How a snapshot's values travel. */
enum {
  VALUES_FLOAT32,
  VALUES_FLOAT64,
};

/* ---- writing ------------------------------------------------------------------ */

typedef struct {
  GByteArray *bytes;        /* its len is the room; the message is the first len bytes */
  gsize       len;
  GHashTable *shared;       /* CrTensorSnapshot* with other owners -> its number + 1 */
  guint32     n_snapshots;  /* distinct snapshots written so far */
} Writer;

static void G_GNUC_NO_INLINE
grow (Writer *w,
      gsize   n)
{
  gsize room = MAX (w->bytes->len * 2, w->len + n);
  g_byte_array_set_size (w->bytes, (guint) room);
}

/* n bytes more at the end of the message, to be filled by the caller. A
 * field is a few bytes: the room is kept here, so that writing one is a
 * compare and a copy. */
static inline guint8 *
reserve (Writer *w,
         gsize   n)
{
  if (G_UNLIKELY (w->len + n > w->bytes->len))
    grow (w, n);
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

static void
put_string (Writer     *w,
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

static void
put_span (Writer       *w,
          const CrSpan *span)
{
  gint32 v[4] = { span->line, span->column, span->end_line, span->end_column };
  put_bytes (w, v, sizeof v);
}

static void
put_shape (Writer       *w,
           int           ndim,
           const gint64 *shape)
{
  put_i32 (w, ndim);
  if (ndim > 0)
    put_bytes (w, shape, sizeof (gint64) * (gsize) MIN (ndim, CR_MAX_DIMS));
}

static void
put_index_array (Writer       *w,
                 const GArray *indices)
{
  guint n = indices ? indices->len : 0;
  put_u32 (w, n);
  if (n > 0)
    put_bytes (w, indices->data, sizeof (int) * n);
}

static void
put_loop_path (Writer      *w,
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

static void
put_snapshot (Writer                 *w,
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
  put_shape (w, s->ndim, s->shape);
  put_i64 (w, s->numel);
  put_string (w, s->dtype);
  put_string (w, s->device);
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
  put_string (w, s->text_deferred ? NULL : text);
}

static void
put_grad (Writer             *w,
          const CrRecordGrad *grad)
{
  put_string (w, grad->name);
  put_i32 (w, grad->tensor);
  put_snapshot (w, grad->value);
}

static void
put_tensor (Writer               *w,
            const CrRecordTensor *t)
{
  put_string (w, t->name);
  put_u32 (w, t->iteration);
  put_string (w, t->label);
  put_string (w, t->module_path);
  put_u32 (w, t->origin);
  put_i32 (w, t->op);
  put_u32 (w, t->output_nr);
  put_i32 (w, t->source);
  put_i32 (w, t->region);
  put_span (w, &t->span);
  put_shape (w, t->ndim, t->shape);
  put_string (w, t->dtype);
  put_string (w, t->device);
  put_bool (w, t->requires_grad);
  put_bool (w, t->retains_grad);
  put_snapshot (w, t->value);
  put_loop_path (w, t->loop_depth, t->loop_path);
}

static void
put_saved (Writer              *w,
           const CrRecordSaved *s)
{
  put_string (w, s->name);
  put_i32 (w, s->tensor);
  put_shape (w, s->ndim, s->shape);
  put_snapshot (w, s->value);
  put_i32 (w, s->freed_backward);
  put_i32 (w, s->freed_step);
  put_span (w, &s->modified_span);
  put_bool (w, s->internal);
}

static void
put_op (Writer           *w,
        const CrRecordOp *op)
{
  put_string (w, op->grad_fn);
  put_string (w, op->symbol);
  put_string (w, op->caption);
  put_span (w, &op->span);
  put_string (w, op->key);
  put_index_array (w, op->inputs);
  put_index_array (w, op->outputs);
  put_i32 (w, op->module_call);
  put_u32 (w, op->iteration);
  put_string (w, op->custom_function);
  put_bool (w, op->in_place);
  put_string (w, op->rule);
  put_u32 (w, op->saved->len);
  for (guint i = 0; i < op->saved->len; i++)
    put_saved (w, g_ptr_array_index (op->saved, i));
  put_loop_path (w, op->loop_depth, op->loop_path);
}

static void
put_module_call (Writer                   *w,
                 const CrRecordModuleCall *call)
{
  put_string (w, call->path);
  put_string (w, call->class_name);
  put_i32 (w, call->parent);
  put_u32 (w, call->depth);
  put_u32 (w, call->iteration);
  put_span (w, &call->span);
  put_bool (w, call->user_class);
  put_loop_path (w, call->loop_depth, call->loop_path);
}

static void
put_region (Writer               *w,
            const CrRecordRegion *region)
{
  put_u32 (w, region->kind);
  put_span (w, &region->span);
  put_u32 (w, region->iteration);
  put_loop_path (w, region->loop_depth, region->loop_path);
}

static void
put_step_input (Writer                  *w,
                const CrRecordStepInput *in)
{
  put_i32 (w, in->tensor);
  put_i32 (w, in->to_op);
  put_i32 (w, in->to_leaf);
  put_string (w, in->name);
  put_string (w, in->local_name);
  put_snapshot (w, in->local);
  put_snapshot (w, in->product);
  const CrRecordReduction *r = in->reduction;
  put_bool (w, r != NULL);
  if (r)
    {
      put_i32 (w, r->n_dims);
      put_bytes (w, r->dims, sizeof (int) * (gsize) CLAMP (r->n_dims, 0, CR_MAX_DIMS));
      put_shape (w, r->from_ndim, r->from_shape);
      put_shape (w, r->to_ndim, r->to_shape);
    }
  put_grad (w, &in->outgoing);
}

static void
put_hook (Writer                 *w,
          const CrRecordHookCall *hook)
{
  put_u32 (w, hook->kind);
  put_i32 (w, hook->tensor);
  put_string (w, hook->function);
  put_span (w, &hook->span);
  put_snapshot (w, hook->before);
  put_snapshot (w, hook->after);
  put_bool (w, hook->raised);
}

static void
put_accumulation (Writer                     *w,
                  const CrRecordAccumulation *acc)
{
  put_string (w, acc->name);
  put_i32 (w, acc->tensor);
  put_i32 (w, acc->to_op);
  put_snapshot (w, acc->contribution);
  put_snapshot (w, acc->sum);
}

static void
put_step (Writer             *w,
          const CrRecordStep *step)
{
  put_u32 (w, step->kind);
  put_i32 (w, step->op);
  put_i32 (w, step->leaf);
  put_string (w, step->title);
  put_string (w, step->caption);
  put_u32 (w, step->hooks->len);
  for (guint i = 0; i < step->hooks->len; i++)
    put_hook (w, g_ptr_array_index (step->hooks, i));
  put_u32 (w, step->incoming->len);
  for (guint i = 0; i < step->incoming->len; i++)
    put_grad (w, g_ptr_array_index (step->incoming, i));
  put_string (w, step->rule);
  put_string (w, step->custom_backward);
  put_span (w, &step->custom_span);
  put_u32 (w, step->inputs->len);
  for (guint i = 0; i < step->inputs->len; i++)
    put_step_input (w, g_ptr_array_index (step->inputs, i));
  put_u32 (w, step->accumulations->len);
  for (guint i = 0; i < step->accumulations->len; i++)
    put_accumulation (w, g_ptr_array_index (step->accumulations, i));
  put_snapshot (w, step->grad_before);
  put_snapshot (w, step->grad_after);
  put_bool (w, step->failed);
}

static void
put_backward (Writer                 *w,
              const CrRecordBackward *bw)
{
  put_u32 (w, bw->kind);
  put_string (w, bw->title);
  put_span (w, &bw->span);
  put_u32 (w, bw->iteration);
  put_index_array (w, bw->roots);
  put_string (w, bw->root_name);
  put_bool (w, bw->retain_graph);
  put_bool (w, bw->create_graph);
  put_bool (w, bw->succeeded);
  put_i32 (w, bw->error);
  put_u32 (w, bw->steps->len);
  for (guint i = 0; i < bw->steps->len; i++)
    put_step (w, g_ptr_array_index (bw->steps, i));
  put_loop_path (w, bw->loop_depth, bw->loop_path);
  put_u32 (w, bw->root_grads->len);
  for (guint i = 0; i < bw->root_grads->len; i++)
    put_grad (w, g_ptr_array_index (bw->root_grads, i));
  put_u32 (w, bw->root_accumulations->len);
  for (guint i = 0; i < bw->root_accumulations->len; i++)
    put_accumulation (w, g_ptr_array_index (bw->root_accumulations, i));
}

static void
put_error (Writer              *w,
           const CrRecordError *err)
{
  put_string (w, err->type);
  put_string (w, err->message);
  put_span (w, &err->span);
  put_i32 (w, err->op);
  put_i32 (w, err->backward);
  put_i32 (w, err->step);
  put_i32 (w, err->tensor);
  put_span (w, &err->culprit_span);
  put_index_array (w, err->operands);
}

static void
put_finding (Writer                *w,
             const CrRecordFinding *f)
{
  put_string (w, f->kind);
  put_span (w, &f->span);
  put_i32 (w, f->op);
  put_i32 (w, f->tensor);
  put_i32 (w, f->backward);
  put_string (w, f->title);
  put_string (w, f->explanation);
  put_span (w, &f->fix_span);
  put_string (w, f->fix);
}

static void
put_update (Writer               *w,
            const CrRecordUpdate *u)
{
  put_u32 (w, u->kind);
  put_string (w, u->optimizer);
  put_u32 (w, u->optimizer_id);
  put_u32 (w, u->step);
  put_u32 (w, u->group);
  put_i32 (w, u->tensor);
  put_string (w, u->name);
  put_span (w, &u->span);
  put_i32 (w, u->backward);
  put_u32 (w, u->iteration);
  put_loop_path (w, u->loop_depth, u->loop_path);
  put_u32 (w, u->numbers->len);
  for (guint i = 0; i < u->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
      put_string (w, number->name);
      put_bytes (w, &number->value, sizeof number->value);
    }
  put_snapshot (w, u->grad);
  put_snapshot (w, u->before);
  put_snapshot (w, u->after);
  put_u32 (w, u->state->len);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      put_string (w, state->name);
      put_snapshot (w, state->before);
      put_snapshot (w, state->after);
    }
}

static void
put_printed (Writer                *w,
             const CrRecordPrinted *p)
{
  put_string (w, p->name);
  put_bytes (w, &p->value, sizeof p->value);
  put_span (w, &p->span);
  put_i32 (w, p->backward);
  put_u32 (w, p->iteration);
}

/* Writes every item of a record array with put_item, after their count. */
#define PUT_ITEMS(w, array, put_item)                         \
  G_STMT_START {                                              \
    put_u32 ((w), (array)->len);                              \
    for (guint i_ = 0; i_ < (array)->len; i_++)               \
      put_item ((w), g_ptr_array_index ((array), i_));        \
  } G_STMT_END

static inline void
header_u32 (guint8  *header,
            gsize    at,
            guint32  v)
{
  memcpy (header + at, &v, 4);
}

gsize
cr_run_record_to_wire_append (const CrRunRecord *record,
                              GByteArray        *out)
{
  g_return_val_if_fail (record != NULL && out != NULL, 0);
  /* Room for about what the items take (a few hundred bytes each with
   * their snapshots), so that a big record is not copied as the array
   * doubles: pages not written are never touched. */
  gsize start = out->len;
  Writer w = {
    out,
    start,
    g_hash_table_new (g_direct_hash, g_direct_equal),
    0,
  };
  gsize n_items = record->tensors->len + record->ops->len;
  for (guint i = 0; i < record->backwards->len; i++)
    n_items += ((const CrRecordBackward *) g_ptr_array_index (record->backwards, i))->steps->len;
  gsize room = MIN (64 * 1024 + n_items * WIRE_BYTES_PER_ITEM, (gsize) G_MAXUINT / 2);
  g_byte_array_set_size (w.bytes, (guint) (start + room));
  guint8 *header = reserve (&w, CR_RUN_RECORD_WIRE_HEADER_SIZE);
  memset (header, 0, CR_RUN_RECORD_WIRE_HEADER_SIZE);

  put_string (&w, record->filename);
  put_string (&w, record->source);
  PUT_ITEMS (&w, record->tensors, put_tensor);
  PUT_ITEMS (&w, record->ops, put_op);
  PUT_ITEMS (&w, record->module_calls, put_module_call);
  PUT_ITEMS (&w, record->regions, put_region);
  PUT_ITEMS (&w, record->backwards, put_backward);
  PUT_ITEMS (&w, record->errors, put_error);
  put_bool (&w, record->truncated);
  PUT_ITEMS (&w, record->findings, put_finding);
  PUT_ITEMS (&w, record->updates, put_update);
  PUT_ITEMS (&w, record->printed, put_printed);
  put_u32 (&w, WIRE_END_MARK);

  /* The header last: the array may have moved, and the total and the
   * snapshot count are known only now. */
  g_byte_array_set_size (w.bytes, (guint) w.len);
  header = w.bytes->data + start;
  memcpy (header + HEADER_MAGIC, WIRE_MAGIC, 8);
  header_u32 (header, HEADER_VERSION, CR_RUN_RECORD_WIRE_VERSION);
  header_u32 (header, HEADER_SIZE, CR_RUN_RECORD_WIRE_HEADER_SIZE);
  guint64 total = w.len - start;
  memcpy (header + HEADER_TOTAL, &total, 8);
  header_u32 (header, HEADER_BYTE_ORDER, WIRE_BYTE_ORDER);
  header_u32 (header, HEADER_SCHEMA, CR_RUN_RECORD_SCHEMA_VERSION);
  header[HEADER_SIZEOF_INT] = sizeof (int);
  header[HEADER_SIZEOF_INT64] = sizeof (gint64);
  header[HEADER_SIZEOF_DOUBLE] = sizeof (double);
  header[HEADER_MAX_DIMS] = CR_MAX_DIMS;
  header[HEADER_MAX_LOOP_PATH] = CR_RECORD_MAX_LOOP_PATH;
  header_u32 (header, HEADER_MAX_VALUES, CR_SNAPSHOT_MAX_VALUES);
  header_u32 (header, HEADER_N_SNAPSHOTS, w.n_snapshots);

  g_hash_table_unref (w.shared);
  return (gsize) total;
}

GBytes *
cr_run_record_to_wire (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  GByteArray *bytes = g_byte_array_new ();
  cr_run_record_to_wire_append (record, bytes);
  return g_byte_array_free_to_bytes (bytes);
}

/* ---- the header ---------------------------------------------------------------- */

static guint32
header_get_u32 (const guint8 *header,
                gsize         at)
{
  guint32 v;
  memcpy (&v, header + at, 4);
  return v;
}

/* Checks that header is one this build writes; its total size and snapshot
 * count into the out arguments. */
static gboolean
check_header (const guint8  *header,
              gsize          len,
              guint64       *total,
              guint32       *n_snapshots,
              GError       **error)
{
  if (len < CR_RUN_RECORD_WIRE_HEADER_SIZE)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "run record wire: %" G_GSIZE_FORMAT " bytes are too few for a header (%d)",
                   len, CR_RUN_RECORD_WIRE_HEADER_SIZE);
      return FALSE;
    }
  if (memcmp (header + HEADER_MAGIC, WIRE_MAGIC, 8) != 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "run record wire: not a run record (bad magic)");
      return FALSE;
    }
  if (header_get_u32 (header, HEADER_VERSION) != CR_RUN_RECORD_WIRE_VERSION
      || header_get_u32 (header, HEADER_SIZE) != CR_RUN_RECORD_WIRE_HEADER_SIZE
      || header_get_u32 (header, HEADER_SCHEMA) != CR_RUN_RECORD_SCHEMA_VERSION)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "run record wire: version %u (schema %u), this build reads version %d (schema %d)",
                   header_get_u32 (header, HEADER_VERSION), header_get_u32 (header, HEADER_SCHEMA),
                   CR_RUN_RECORD_WIRE_VERSION, CR_RUN_RECORD_SCHEMA_VERSION);
      return FALSE;
    }
  if (header_get_u32 (header, HEADER_BYTE_ORDER) != WIRE_BYTE_ORDER
      || header[HEADER_SIZEOF_INT] != sizeof (int)
      || header[HEADER_SIZEOF_INT64] != sizeof (gint64)
      || header[HEADER_SIZEOF_DOUBLE] != sizeof (double)
      || header[HEADER_MAX_DIMS] != CR_MAX_DIMS
      || header[HEADER_MAX_LOOP_PATH] != CR_RECORD_MAX_LOOP_PATH
      || header_get_u32 (header, HEADER_MAX_VALUES) != CR_SNAPSHOT_MAX_VALUES)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "run record wire: written by a build with another byte order or limits");
      return FALSE;
    }
  for (gsize i = HEADER_PADDING; i < CR_RUN_RECORD_WIRE_HEADER_SIZE; i++)
    if (header[i] != 0 && (i < HEADER_MAX_VALUES || i >= HEADER_END))
      {
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                             "run record wire: unknown header fields");
        return FALSE;
      }
  memcpy (total, header + HEADER_TOTAL, 8);
  if (*total < CR_RUN_RECORD_WIRE_HEADER_SIZE + 4 || *total > G_MAXSIZE)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "run record wire: a message of %" G_GUINT64_FORMAT " bytes", *total);
      return FALSE;
    }
  *n_snapshots = header_get_u32 (header, HEADER_N_SNAPSHOTS);
  return TRUE;
}

gboolean
cr_run_record_wire_size (const guint8  *header,
                         gsize          len,
                         gsize         *total,
                         GError       **error)
{
  g_return_val_if_fail (header != NULL || len == 0, FALSE);
  guint64 size;
  guint32 n_snapshots;
  if (!check_header (header, len, &size, &n_snapshots, error))
    return FALSE;
  if (total)
    *total = (gsize) size;
  return TRUE;
}

/* ---- reading ------------------------------------------------------------------- */

typedef struct {
  const guint8 *pos;
  const guint8 *end;
  gboolean      failed;     /* sticky: every read after a failure gives zeros */
  GError      **error;
  GPtrArray    *snapshots;  /* borrowed: the snapshots read so far, in order */
} Reader;

/* Fails the read with a message (the first failure's stays). */
static void G_GNUC_PRINTF (2, 3)
fail (Reader     *r,
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

/* The next n bytes, or NULL (the read failed) when fewer are left. */
static inline const guint8 *
take (Reader *r,
      gsize   n)
{
  if (r->failed)
    return NULL;
  if ((gsize) (r->end - r->pos) < n)
    {
      fail (r, "truncated: %" G_GSIZE_FORMAT " bytes wanted, %" G_GSIZE_FORMAT " left",
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

static gboolean
get_bool (Reader *r)
{
  const guint8 *at = take (r, 1);
  if (at && *at > 1)
    fail (r, "a boolean of %u", *at);
  return at && *at == 1;
}

/* An enum's value, checked against its count of values. */
static guint
get_enum (Reader     *r,
          guint       n_values,
          const char *what)
{
  guint32 v = get_u32 (r);
  if (v >= n_values)
    {
      fail (r, "%s %u out of range", what, v);
      return 0;
    }
  return v;
}

/* A count of items that each take at least item_min bytes: never more than
 * what is left could hold, so a corrupt count allocates nothing. */
static guint
get_count (Reader *r,
           gsize   item_min)
{
  guint32 n = get_u32 (r);
  if (!r->failed && (guint64) n * item_min > (guint64) (r->end - r->pos))
    {
      fail (r, "a count of %u items in %" G_GSIZE_FORMAT " bytes", n, (gsize) (r->end - r->pos));
      return 0;
    }
  return r->failed ? 0 : n;
}

/* A new string, or NULL. */
static char *
get_string (Reader *r)
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

static void
get_span (Reader *r,
          CrSpan *span)
{
  gint32 v[4];
  get_bytes (r, v, sizeof v);
  span->line = v[0];
  span->column = v[1];
  span->end_line = v[2];
  span->end_column = v[3];
}

static void
get_shape (Reader *r,
           int    *ndim,
           gint64 *shape)
{
  gint32 n = get_i32 (r);
  if (n < 0 || n > CR_MAX_DIMS)
    {
      fail (r, "%d dims", n);
      n = 0;
    }
  *ndim = n;
  get_bytes (r, shape, sizeof (gint64) * (gsize) n);
}

/* Appends the indices read to array (of int). */
static void
get_index_array (Reader *r,
                 GArray *array)
{
  guint n = get_count (r, sizeof (gint32));
  const guint8 *at = take (r, sizeof (int) * (gsize) n);
  if (at && n > 0)
    g_array_append_vals (array, at, n);
}

static void
get_loop_path (Reader *r,
               guint  *depth,
               guint  *path)
{
  guint32 n = get_u32 (r);
  if (n > CR_RECORD_MAX_LOOP_PATH)
    {
      fail (r, "a loop path %u deep", n);
      n = 0;
    }
  *depth = n;
  get_bytes (r, path, sizeof (guint) * n);
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
      fail (r, "values encoding %u", *encoding);
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
static CrTensorSnapshot *
get_snapshot (Reader *r)
{
  guint32 number = get_u32 (r);
  if (number == 0 || r->failed)
    return NULL;
  if (number <= r->snapshots->len)
    return cr_tensor_snapshot_share (g_ptr_array_index (r->snapshots, number - 1));
  if (number != r->snapshots->len + 1)
    {
      fail (r, "snapshot %u when %u were sent", number, r->snapshots->len);
      return NULL;
    }

  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  g_ptr_array_add (r->snapshots, s);
  get_shape (r, &s->ndim, s->shape);
  s->numel = get_i64 (r);
  s->dtype = get_string (r);
  s->device = get_string (r);
  s->n_values = get_i64 (r);
  if (!r->failed && s->numel != shape_numel (s->ndim, s->shape))
    fail (r, "a snapshot of %" G_GINT64_FORMAT " elements in its shape's place", s->numel);
  /* Formatting a deferred text and the previews read numel values from
   * the kept ones: never more than are there. */
  if (!r->failed && (s->n_values < 0 || s->n_values > s->numel || s->n_values > CR_SNAPSHOT_MAX_VALUES))
    fail (r, "a snapshot keeping %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " values",
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
  s->text = get_string (r);
  if (r->failed)
    {
      /* Not yet owned by an item: freed here, and the table forgets it. */
      g_ptr_array_set_size (r->snapshots, r->snapshots->len - 1);
      cr_tensor_snapshot_free (s);
      return NULL;
    }
  return s;
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
  g_autofree char *text = get_string (r);
  if (!text)
    return NULL;
  GHashTable *rules = g_once (&rules_once, rules_by_text_new, NULL);
  const char *rule = g_hash_table_lookup (rules, text);
  return rule ? rule : g_intern_string (text);
}

static void
get_grad (Reader       *r,
          CrRecordGrad *grad)
{
  grad->name = get_string (r);
  grad->tensor = get_i32 (r);
  grad->value = get_snapshot (r);
}

/* The fewest bytes each item takes (every string NULL, every array empty,
 * every snapshot NULL): get_count's floor. */
#define MIN_TENSOR_BYTES   74
#define MIN_SAVED_BYTES    41
#define MIN_OP_BYTES       65
#define MIN_CALL_BYTES     41
#define MIN_REGION_BYTES   28
#define MIN_GRAD_BYTES     12
#define MIN_INPUT_BYTES    41
#define MIN_HOOK_BYTES     37
#define MIN_ACC_BYTES      20
#define MIN_STEP_BYTES     73
#define MIN_BACKWARD_BYTES 59
#define MIN_ERROR_BYTES    60
#define MIN_FINDING_BYTES  60
#define MIN_UPDATE_BYTES   76
#define MIN_NUMBER_BYTES   12
#define MIN_STATE_BYTES    12
#define MIN_PRINTED_BYTES  36

static void
get_tensor (Reader      *r,
            CrRunRecord *record)
{
  CrRecordTensor *t = cr_run_record_add_tensor (record);
  t->name = get_string (r);
  t->iteration = get_u32 (r);
  t->label = get_string (r);
  t->module_path = get_string (r);
  t->origin = get_enum (r, CR_RECORD_TENSOR_DETACHED + 1, "tensor origin");
  t->op = get_i32 (r);
  t->output_nr = get_u32 (r);
  t->source = get_i32 (r);
  t->region = get_i32 (r);
  get_span (r, &t->span);
  get_shape (r, &t->ndim, t->shape);
  t->dtype = get_string (r);
  t->device = get_string (r);
  t->requires_grad = get_bool (r);
  t->retains_grad = get_bool (r);
  t->value = get_snapshot (r);
  get_loop_path (r, &t->loop_depth, t->loop_path);
}

static void
get_saved (Reader     *r,
           CrRecordOp *op)
{
  CrRecordSaved *s = cr_record_op_add_saved (op);
  s->name = get_string (r);
  s->tensor = get_i32 (r);
  get_shape (r, &s->ndim, s->shape);
  s->value = get_snapshot (r);
  s->freed_backward = get_i32 (r);
  s->freed_step = get_i32 (r);
  get_span (r, &s->modified_span);
  s->internal = get_bool (r);
}

static void
get_op (Reader      *r,
        CrRunRecord *record)
{
  CrRecordOp *op = cr_run_record_add_op (record);
  op->grad_fn = get_string (r);
  op->symbol = get_string (r);
  op->caption = get_string (r);
  get_span (r, &op->span);
  op->key = get_string (r);
  get_index_array (r, op->inputs);
  get_index_array (r, op->outputs);
  op->module_call = get_i32 (r);
  op->iteration = get_u32 (r);
  op->custom_function = get_string (r);
  op->in_place = get_bool (r);
  op->rule = get_rule (r);
  guint n_saved = get_count (r, MIN_SAVED_BYTES);
  for (guint i = 0; i < n_saved && !r->failed; i++)
    get_saved (r, op);
  get_loop_path (r, &op->loop_depth, op->loop_path);
}

static void
get_module_call (Reader      *r,
                 CrRunRecord *record)
{
  CrRecordModuleCall *call = cr_run_record_add_module_call (record);
  call->path = get_string (r);
  call->class_name = get_string (r);
  call->parent = get_i32 (r);
  call->depth = get_u32 (r);
  call->iteration = get_u32 (r);
  get_span (r, &call->span);
  call->user_class = get_bool (r);
  get_loop_path (r, &call->loop_depth, call->loop_path);
}

static void
get_region (Reader      *r,
            CrRunRecord *record)
{
  CrRecordRegion *region = cr_run_record_add_region (record);
  region->kind = get_enum (r, CR_RECORD_REGION_INFERENCE + 1, "region kind");
  get_span (r, &region->span);
  region->iteration = get_u32 (r);
  get_loop_path (r, &region->loop_depth, region->loop_path);
}

static void
get_step_input (Reader       *r,
                CrRecordStep *step)
{
  CrRecordStepInput *in = cr_record_step_add_input (step);
  in->tensor = get_i32 (r);
  in->to_op = get_i32 (r);
  in->to_leaf = get_i32 (r);
  in->name = get_string (r);
  in->local_name = get_string (r);
  in->local = get_snapshot (r);
  in->product = get_snapshot (r);
  if (get_bool (r))
    {
      CrRecordReduction *red = in->reduction = g_new0 (CrRecordReduction, 1);
      gint32 n_dims = get_i32 (r);
      if (n_dims < 0 || n_dims > CR_MAX_DIMS)
        {
          fail (r, "a reduction over %d dims", n_dims);
          n_dims = 0;
        }
      red->n_dims = n_dims;
      get_bytes (r, red->dims, sizeof (int) * (gsize) n_dims);
      get_shape (r, &red->from_ndim, red->from_shape);
      get_shape (r, &red->to_ndim, red->to_shape);
      /* The dims are the product's: a reader looks their sizes up there. */
      for (int d = 0; d < red->n_dims && !r->failed; d++)
        if (red->dims[d] < 0 || red->dims[d] >= red->from_ndim)
          fail (r, "a reduction over dim %d of %d", red->dims[d], red->from_ndim);
    }
  get_grad (r, &in->outgoing);
}

static void
get_hook (Reader       *r,
          CrRecordStep *step)
{
  CrRecordHookCall *hook = cr_record_step_add_hook (step);
  hook->kind = get_enum (r, CR_RECORD_HOOK_MODULE + 1, "hook kind");
  hook->tensor = get_i32 (r);
  hook->function = get_string (r);
  get_span (r, &hook->span);
  hook->before = get_snapshot (r);
  hook->after = get_snapshot (r);
  hook->raised = get_bool (r);
}

static void
get_accumulation (Reader               *r,
                  CrRecordAccumulation *acc)
{
  acc->name = get_string (r);
  acc->tensor = get_i32 (r);
  acc->to_op = get_i32 (r);
  acc->contribution = get_snapshot (r);
  acc->sum = get_snapshot (r);
}

static void
get_step (Reader           *r,
          CrRecordBackward *bw)
{
  CrRecordStep *step = cr_record_backward_add_step (bw);
  step->kind = get_enum (r, CR_RECORD_STEP_ACCUMULATE + 1, "step kind");
  step->op = get_i32 (r);
  step->leaf = get_i32 (r);
  step->title = get_string (r);
  step->caption = get_string (r);
  guint n = get_count (r, MIN_HOOK_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_hook (r, step);
  n = get_count (r, MIN_GRAD_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_grad (r, cr_record_step_add_incoming (step));
  step->rule = get_rule (r);
  step->custom_backward = get_string (r);
  get_span (r, &step->custom_span);
  n = get_count (r, MIN_INPUT_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_step_input (r, step);
  n = get_count (r, MIN_ACC_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_accumulation (r, cr_record_step_add_accumulation (step));
  step->grad_before = get_snapshot (r);
  step->grad_after = get_snapshot (r);
  step->failed = get_bool (r);
}

static void
get_backward (Reader      *r,
              CrRunRecord *record)
{
  CrRecordBackward *bw = cr_run_record_add_backward (record);
  bw->kind = get_enum (r, CR_RECORD_BACKWARD_GRAD + 1, "backward kind");
  bw->title = get_string (r);
  get_span (r, &bw->span);
  bw->iteration = get_u32 (r);
  get_index_array (r, bw->roots);
  bw->root_name = get_string (r);
  bw->retain_graph = get_bool (r);
  bw->create_graph = get_bool (r);
  bw->succeeded = get_bool (r);
  bw->error = get_i32 (r);
  guint n = get_count (r, MIN_STEP_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_step (r, bw);
  get_loop_path (r, &bw->loop_depth, bw->loop_path);
  n = get_count (r, MIN_GRAD_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_grad (r, cr_record_backward_add_root_grad (bw));
  n = get_count (r, MIN_ACC_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_accumulation (r, cr_record_backward_add_root_accumulation (bw));
}

static void
get_error (Reader      *r,
           CrRunRecord *record)
{
  CrRecordError *err = cr_run_record_add_error (record);
  err->type = get_string (r);
  err->message = get_string (r);
  get_span (r, &err->span);
  err->op = get_i32 (r);
  err->backward = get_i32 (r);
  err->step = get_i32 (r);
  err->tensor = get_i32 (r);
  get_span (r, &err->culprit_span);
  get_index_array (r, err->operands);
}

static void
get_finding (Reader      *r,
             CrRunRecord *record)
{
  CrRecordFinding *f = cr_run_record_add_finding (record);
  f->kind = get_string (r);
  get_span (r, &f->span);
  f->op = get_i32 (r);
  f->tensor = get_i32 (r);
  f->backward = get_i32 (r);
  f->title = get_string (r);
  f->explanation = get_string (r);
  get_span (r, &f->fix_span);
  f->fix = get_string (r);
}

static void
get_update (Reader      *r,
            CrRunRecord *record)
{
  CrRecordUpdate *u = cr_run_record_add_update (record);
  u->kind = get_enum (r, CR_RECORD_UPDATE_MANUAL + 1, "update kind");
  u->optimizer = get_string (r);
  u->optimizer_id = get_u32 (r);
  u->step = get_u32 (r);
  u->group = get_u32 (r);
  u->tensor = get_i32 (r);
  u->name = get_string (r);
  get_span (r, &u->span);
  u->backward = get_i32 (r);
  u->iteration = get_u32 (r);
  get_loop_path (r, &u->loop_depth, u->loop_path);
  guint n = get_count (r, MIN_NUMBER_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *name = get_string (r);
      double value;
      get_bytes (r, &value, sizeof value);
      cr_record_update_add_number (u, name ? name : "", value);
    }
  u->grad = get_snapshot (r);
  u->before = get_snapshot (r);
  u->after = get_snapshot (r);
  n = get_count (r, MIN_STATE_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *name = get_string (r);
      CrRecordOptimState *state = cr_record_update_add_state (u, name ? name : "");
      state->before = get_snapshot (r);
      state->after = get_snapshot (r);
    }
}

static void
get_printed (Reader      *r,
             CrRunRecord *record)
{
  g_autofree char *name = get_string (r);
  double value;
  get_bytes (r, &value, sizeof value);
  CrRecordPrinted *p = cr_run_record_add_printed (record, name ? name : "", value);
  CrRecordPrinted ignored = { 0 };
  if (!p)
    {
      fail (r, "more than %d printed numbers", CR_RUN_RECORD_MAX_PRINTED);
      p = &ignored;
    }
  get_span (r, &p->span);
  p->backward = get_i32 (r);
  p->iteration = get_u32 (r);
}

/* Reads a record array's count and its items with get_item. */
#define GET_ITEMS(r, record, min_bytes, get_item)                       \
  G_STMT_START {                                                        \
    guint n_ = get_count ((r), (min_bytes));                            \
    for (guint i_ = 0; i_ < n_ && !(r)->failed; i_++)                   \
      get_item ((r), (record));                                         \
  } G_STMT_END

/* ---- the indices, once the record is whole -------------------------------------- */

typedef struct {
  Reader *reader;
  int     n_tensors, n_ops, n_calls, n_regions, n_backwards, n_errors;
} Bounds;

/* Whether index is -1 or an item of an array of n; fails the read if not. */
static gboolean
check_index (const Bounds *b,
             int           index,
             int           n,
             const char   *what)
{
  if (index >= -1 && index < n)
    return TRUE;
  fail (b->reader, "%s index %d of %d", what, index, n);
  return FALSE;
}

static gboolean
check_index_array (const Bounds *b,
                   const GArray *indices,
                   int           n,
                   const char   *what)
{
  for (guint i = 0; i < indices->len; i++)
    if (!check_index (b, g_array_index (indices, int, i), n, what))
      return FALSE;
  return TRUE;
}

static gboolean
check_accumulation (const Bounds               *b,
                    const CrRecordAccumulation *acc)
{
  return check_index (b, acc->tensor, b->n_tensors, "accumulation tensor")
         && check_index (b, acc->to_op, b->n_ops, "accumulation op");
}

static gboolean
check_step (const Bounds       *b,
            const CrRecordStep *step)
{
  gboolean ok = check_index (b, step->op, b->n_ops, "step op")
                && check_index (b, step->leaf, b->n_tensors, "step leaf");
  for (guint i = 0; ok && i < step->hooks->len; i++)
    {
      const CrRecordHookCall *hook = g_ptr_array_index (step->hooks, i);
      ok = check_index (b, hook->tensor, b->n_tensors, "hook tensor");
    }
  for (guint i = 0; ok && i < step->incoming->len; i++)
    {
      const CrRecordGrad *grad = g_ptr_array_index (step->incoming, i);
      ok = check_index (b, grad->tensor, b->n_tensors, "incoming gradient tensor");
    }
  for (guint i = 0; ok && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = g_ptr_array_index (step->inputs, i);
      ok = check_index (b, in->tensor, b->n_tensors, "step input tensor")
           && check_index (b, in->to_op, b->n_ops, "step input op")
           && check_index (b, in->to_leaf, b->n_tensors, "step input leaf")
           && check_index (b, in->outgoing.tensor, b->n_tensors, "outgoing gradient tensor");
    }
  for (guint i = 0; ok && i < step->accumulations->len; i++)
    ok = check_accumulation (b, g_ptr_array_index (step->accumulations, i));
  return ok;
}

/* Every index in record points into its array or is -1; a module call's
 * parent came before it, so walking up from a call ends. */
static gboolean
check_indices (Reader            *r,
               const CrRunRecord *record)
{
  Bounds b = {
    r,
    (int) record->tensors->len, (int) record->ops->len, (int) record->module_calls->len,
    (int) record->regions->len, (int) record->backwards->len, (int) record->errors->len,
  };
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      ok = check_index (&b, t->op, b.n_ops, "tensor op")
           && check_index (&b, t->source, b.n_tensors, "tensor source")
           && check_index (&b, t->region, b.n_regions, "tensor region");
    }
  for (guint i = 0; ok && i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      ok = check_index_array (&b, op->inputs, b.n_tensors, "op input")
           && check_index_array (&b, op->outputs, b.n_tensors, "op output")
           && check_index (&b, op->module_call, b.n_calls, "op module call");
      for (guint k = 0; ok && k < op->saved->len; k++)
        {
          const CrRecordSaved *s = g_ptr_array_index (op->saved, k);
          ok = check_index (&b, s->tensor, b.n_tensors, "saved tensor")
               && check_index (&b, s->freed_backward, b.n_backwards, "saved freed by backward");
        }
    }
  for (guint i = 0; ok && i < record->module_calls->len; i++)
    {
      const CrRecordModuleCall *call = g_ptr_array_index (record->module_calls, i);
      ok = check_index (&b, call->parent, (int) i, "module call parent");
    }
  for (guint i = 0; ok && i < record->backwards->len; i++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, i);
      ok = check_index_array (&b, bw->roots, b.n_tensors, "backward root")
           && check_index (&b, bw->error, b.n_errors, "backward error");
      for (guint k = 0; ok && k < bw->steps->len; k++)
        ok = check_step (&b, g_ptr_array_index (bw->steps, k));
      for (guint k = 0; ok && k < bw->root_grads->len; k++)
        {
          const CrRecordGrad *grad = g_ptr_array_index (bw->root_grads, k);
          ok = check_index (&b, grad->tensor, b.n_tensors, "root gradient tensor");
        }
      for (guint k = 0; ok && k < bw->root_accumulations->len; k++)
        ok = check_accumulation (&b, g_ptr_array_index (bw->root_accumulations, k));
    }
  for (guint i = 0; ok && i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      ok = check_index (&b, err->op, b.n_ops, "error op")
           && check_index (&b, err->backward, b.n_backwards, "error backward")
           && check_index (&b, err->tensor, b.n_tensors, "error tensor")
           && check_index_array (&b, err->operands, b.n_tensors, "error operand");
    }
  for (guint i = 0; ok && i < record->findings->len; i++)
    {
      const CrRecordFinding *f = g_ptr_array_index (record->findings, i);
      ok = check_index (&b, f->op, b.n_ops, "finding op")
           && check_index (&b, f->tensor, b.n_tensors, "finding tensor")
           && check_index (&b, f->backward, b.n_backwards, "finding backward");
    }
  for (guint i = 0; ok && i < record->updates->len; i++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (record->updates, i);
      ok = check_index (&b, u->tensor, b.n_tensors, "update tensor")
           && check_index (&b, u->backward, b.n_backwards, "update backward");
    }
  for (guint i = 0; ok && i < record->printed->len; i++)
    {
      const CrRecordPrinted *p = g_ptr_array_index (record->printed, i);
      ok = check_index (&b, p->backward, b.n_backwards, "printed backward");
    }
  return ok;
}

CrRunRecord *
cr_run_record_from_wire (const guint8  *data,
                         gsize          len,
                         GError       **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  guint64 total;
  guint32 n_snapshots;
  if (!check_header (data, len, &total, &n_snapshots, error))
    return NULL;
  if (total != len)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "run record wire: a message of %" G_GUINT64_FORMAT " bytes in %" G_GSIZE_FORMAT,
                   total, len);
      return NULL;
    }

  Reader r = { data + CR_RUN_RECORD_WIRE_HEADER_SIZE, data + len, FALSE, error, NULL };
  /* Every snapshot takes more than 64 bytes: a count past that is a lie,
   * and must not size the table. */
  r.snapshots = g_ptr_array_sized_new (MIN (n_snapshots, len / 64));
  g_autofree char *filename = get_string (&r);
  g_autofree char *source = get_string (&r);
  CrRunRecord *record = cr_run_record_new (filename, source);
  GET_ITEMS (&r, record, MIN_TENSOR_BYTES, get_tensor);
  GET_ITEMS (&r, record, MIN_OP_BYTES, get_op);
  GET_ITEMS (&r, record, MIN_CALL_BYTES, get_module_call);
  GET_ITEMS (&r, record, MIN_REGION_BYTES, get_region);
  GET_ITEMS (&r, record, MIN_BACKWARD_BYTES, get_backward);
  GET_ITEMS (&r, record, MIN_ERROR_BYTES, get_error);
  record->truncated = get_bool (&r);
  GET_ITEMS (&r, record, MIN_FINDING_BYTES, get_finding);
  GET_ITEMS (&r, record, MIN_UPDATE_BYTES, get_update);
  GET_ITEMS (&r, record, MIN_PRINTED_BYTES, get_printed);
  if (get_u32 (&r) != WIRE_END_MARK && !r.failed)
    fail (&r, "no end mark where the body ends");
  if (!r.failed && r.pos != r.end)
    fail (&r, "%" G_GSIZE_FORMAT " bytes after the end mark", (gsize) (r.end - r.pos));
  if (!r.failed && r.snapshots->len != n_snapshots)
    fail (&r, "%u snapshots where the header says %u", r.snapshots->len, n_snapshots);
  if (!r.failed)
    check_indices (&r, record);
  g_ptr_array_unref (r.snapshots);
  if (r.failed)
    {
      cr_run_record_unref (record);
      return NULL;
    }
  return record;
}
