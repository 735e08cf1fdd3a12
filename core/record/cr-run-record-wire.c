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
#include "cr-run-record-wire-private.h"

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

/* ---- writing ------------------------------------------------------------------ */


static void
put_grad (Writer             *w,
          const CrRecordGrad *grad)
{
  wire_put_string (w, grad->name);
  put_i32 (w, grad->tensor);
  wire_put_snapshot (w, grad->value);
}

static void
put_tensor (Writer               *w,
            const CrRecordTensor *t)
{
  wire_put_string (w, t->name);
  put_u32 (w, t->iteration);
  wire_put_string (w, t->label);
  wire_put_string (w, t->module_path);
  put_u32 (w, t->origin);
  put_i32 (w, t->op);
  put_u32 (w, t->output_nr);
  put_i32 (w, t->source);
  put_i32 (w, t->region);
  wire_put_span (w, &t->span);
  wire_put_shape (w, t->ndim, t->shape);
  wire_put_string (w, t->dtype);
  wire_put_string (w, t->device);
  put_bool (w, t->requires_grad);
  put_bool (w, t->retains_grad);
  wire_put_snapshot (w, t->value);
  wire_put_loop_path (w, t->loop_depth, t->loop_path);
}

static void
put_saved (Writer              *w,
           const CrRecordSaved *s)
{
  wire_put_string (w, s->name);
  put_i32 (w, s->tensor);
  wire_put_shape (w, s->ndim, s->shape);
  wire_put_snapshot (w, s->value);
  put_i32 (w, s->freed_backward);
  put_i32 (w, s->freed_step);
  wire_put_span (w, &s->modified_span);
  put_bool (w, s->internal);
}

static void
put_op (Writer           *w,
        const CrRecordOp *op)
{
  wire_put_string (w, op->grad_fn);
  wire_put_string (w, op->symbol);
  wire_put_string (w, op->caption);
  wire_put_span (w, &op->span);
  wire_put_string (w, op->key);
  wire_put_index_array (w, op->inputs);
  wire_put_index_array (w, op->outputs);
  put_i32 (w, op->module_call);
  put_u32 (w, op->iteration);
  wire_put_string (w, op->custom_function);
  put_bool (w, op->in_place);
  wire_put_string (w, op->rule);
  put_u32 (w, op->saved->len);
  for (guint i = 0; i < op->saved->len; i++)
    put_saved (w, g_ptr_array_index (op->saved, i));
  wire_put_loop_path (w, op->loop_depth, op->loop_path);
  put_u32 (w, op->arguments->len);
  for (guint i = 0; i < op->arguments->len; i++)
    {
      const CrRecordArgument *argument = g_ptr_array_index (op->arguments, i);
      wire_put_string (w, argument->name);
      put_u32 (w, argument->kind);
      put_u32 (w, (guint32) argument->n_values);
      put_bytes (w, argument->values, sizeof (double) * (gsize) argument->n_values);
    }
}

static void
put_module_call (Writer                   *w,
                 const CrRecordModuleCall *call)
{
  wire_put_string (w, call->path);
  wire_put_string (w, call->class_name);
  put_i32 (w, call->parent);
  put_u32 (w, call->depth);
  put_u32 (w, call->iteration);
  wire_put_span (w, &call->span);
  put_bool (w, call->user_class);
  wire_put_loop_path (w, call->loop_depth, call->loop_path);
}

static void
put_region (Writer               *w,
            const CrRecordRegion *region)
{
  put_u32 (w, region->kind);
  wire_put_span (w, &region->span);
  put_u32 (w, region->iteration);
  wire_put_loop_path (w, region->loop_depth, region->loop_path);
}

static void
put_step_input (Writer                  *w,
                const CrRecordStepInput *in)
{
  put_i32 (w, in->tensor);
  put_i32 (w, in->to_op);
  put_i32 (w, in->to_leaf);
  wire_put_string (w, in->name);
  wire_put_string (w, in->local_name);
  wire_put_snapshot (w, in->local);
  wire_put_snapshot (w, in->product);
  const CrRecordReduction *r = in->reduction;
  put_bool (w, r != NULL);
  if (r)
    {
      put_i32 (w, r->n_dims);
      put_bytes (w, r->dims, sizeof (int) * (gsize) CLAMP (r->n_dims, 0, CR_MAX_DIMS));
      wire_put_shape (w, r->from_ndim, r->from_shape);
      wire_put_shape (w, r->to_ndim, r->to_shape);
    }
  put_grad (w, &in->outgoing);
}

static void
put_hook (Writer                 *w,
          const CrRecordHookCall *hook)
{
  put_u32 (w, hook->kind);
  put_i32 (w, hook->tensor);
  wire_put_string (w, hook->function);
  wire_put_span (w, &hook->span);
  wire_put_snapshot (w, hook->before);
  wire_put_snapshot (w, hook->after);
  put_bool (w, hook->raised);
}

static void
put_accumulation (Writer                     *w,
                  const CrRecordAccumulation *acc)
{
  wire_put_string (w, acc->name);
  put_i32 (w, acc->tensor);
  put_i32 (w, acc->to_op);
  wire_put_snapshot (w, acc->contribution);
  wire_put_snapshot (w, acc->sum);
}

static void
put_step (Writer             *w,
          const CrRecordStep *step)
{
  put_u32 (w, step->kind);
  put_i32 (w, step->op);
  put_i32 (w, step->leaf);
  wire_put_string (w, step->title);
  wire_put_string (w, step->caption);
  put_u32 (w, step->hooks->len);
  for (guint i = 0; i < step->hooks->len; i++)
    put_hook (w, g_ptr_array_index (step->hooks, i));
  put_u32 (w, step->incoming->len);
  for (guint i = 0; i < step->incoming->len; i++)
    put_grad (w, g_ptr_array_index (step->incoming, i));
  wire_put_string (w, step->rule);
  wire_put_string (w, step->custom_backward);
  wire_put_span (w, &step->custom_span);
  put_u32 (w, step->inputs->len);
  for (guint i = 0; i < step->inputs->len; i++)
    put_step_input (w, g_ptr_array_index (step->inputs, i));
  put_u32 (w, step->accumulations->len);
  for (guint i = 0; i < step->accumulations->len; i++)
    put_accumulation (w, g_ptr_array_index (step->accumulations, i));
  wire_put_snapshot (w, step->grad_before);
  wire_put_snapshot (w, step->grad_after);
  put_bool (w, step->failed);
}

static void
put_backward (Writer                 *w,
              const CrRecordBackward *bw)
{
  put_u32 (w, bw->kind);
  wire_put_string (w, bw->title);
  wire_put_span (w, &bw->span);
  put_u32 (w, bw->iteration);
  wire_put_index_array (w, bw->roots);
  wire_put_string (w, bw->root_name);
  put_bool (w, bw->retain_graph);
  put_bool (w, bw->create_graph);
  put_bool (w, bw->succeeded);
  put_i32 (w, bw->error);
  put_u32 (w, bw->steps->len);
  for (guint i = 0; i < bw->steps->len; i++)
    put_step (w, g_ptr_array_index (bw->steps, i));
  wire_put_loop_path (w, bw->loop_depth, bw->loop_path);
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
  wire_put_string (w, err->type);
  wire_put_string (w, err->message);
  wire_put_span (w, &err->span);
  put_i32 (w, err->op);
  put_i32 (w, err->backward);
  put_i32 (w, err->step);
  put_i32 (w, err->tensor);
  wire_put_span (w, &err->culprit_span);
  wire_put_index_array (w, err->operands);
}

static void
put_finding (Writer                *w,
             const CrRecordFinding *f)
{
  wire_put_string (w, f->kind);
  wire_put_span (w, &f->span);
  put_i32 (w, f->op);
  put_i32 (w, f->tensor);
  put_i32 (w, f->backward);
  wire_put_string (w, f->title);
  wire_put_string (w, f->explanation);
  wire_put_span (w, &f->fix_span);
  wire_put_string (w, f->fix);
}

/* A notebook's code cells: their count, then each one's number and lines. */
static void
put_cells (Writer       *w,
           const GArray *cells)
{
  put_u32 (w, cells->len);
  for (guint i = 0; i < cells->len; i++)
    {
      const CrRecordCell *cell = &g_array_index (cells, CrRecordCell, i);
      put_u32 (w, cell->number);
      put_i32 (w, cell->first_line);
      put_i32 (w, cell->last_line);
    }
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

  wire_put_string (&w, record->filename);
  wire_put_string (&w, record->source);
  PUT_ITEMS (&w, record->tensors, put_tensor);
  PUT_ITEMS (&w, record->ops, put_op);
  PUT_ITEMS (&w, record->module_calls, put_module_call);
  PUT_ITEMS (&w, record->regions, put_region);
  PUT_ITEMS (&w, record->backwards, put_backward);
  PUT_ITEMS (&w, record->errors, put_error);
  put_bool (&w, record->truncated);
  PUT_ITEMS (&w, record->findings, put_finding);
  PUT_ITEMS (&w, record->updates, wire_put_update);
  PUT_ITEMS (&w, record->printed, wire_put_printed);
  put_cells (&w, record->cells);
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

static void
get_grad (Reader       *r,
          CrRecordGrad *grad)
{
  grad->name = wire_get_string (r);
  grad->tensor = get_i32 (r);
  grad->value = wire_get_snapshot (r);
}

/* The fewest bytes each item takes (every string NULL, every array empty,
 * every snapshot NULL): wire_get_count's floor. */
#define MIN_TENSOR_BYTES   74
#define MIN_SAVED_BYTES    41
#define MIN_OP_BYTES       69
#define MIN_ARGUMENT_BYTES 12
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
#define MIN_PRINTED_BYTES  36
#define MIN_CELL_BYTES     12

static void
get_tensor (Reader      *r,
            CrRunRecord *record)
{
  CrRecordTensor *t = cr_run_record_add_tensor (record);
  t->name = wire_get_string (r);
  t->iteration = get_u32 (r);
  t->label = wire_get_string (r);
  t->module_path = wire_get_string (r);
  t->origin = wire_get_enum (r, CR_RECORD_TENSOR_DETACHED + 1, "tensor origin");
  t->op = get_i32 (r);
  t->output_nr = get_u32 (r);
  t->source = get_i32 (r);
  t->region = get_i32 (r);
  wire_get_span (r, &t->span);
  wire_get_shape (r, &t->ndim, t->shape);
  t->dtype = wire_get_string (r);
  t->device = wire_get_string (r);
  t->requires_grad = get_bool (r);
  t->retains_grad = get_bool (r);
  t->value = wire_get_snapshot (r);
  wire_get_loop_path (r, &t->loop_depth, t->loop_path);
}

static void
get_saved (Reader     *r,
           CrRecordOp *op)
{
  CrRecordSaved *s = cr_record_op_add_saved (op);
  s->name = wire_get_string (r);
  s->tensor = get_i32 (r);
  wire_get_shape (r, &s->ndim, s->shape);
  s->value = wire_get_snapshot (r);
  s->freed_backward = get_i32 (r);
  s->freed_step = get_i32 (r);
  wire_get_span (r, &s->modified_span);
  s->internal = get_bool (r);
}

static void
get_op (Reader      *r,
        CrRunRecord *record)
{
  CrRecordOp *op = cr_run_record_add_op (record);
  op->grad_fn = wire_get_string (r);
  op->symbol = wire_get_string (r);
  op->caption = wire_get_string (r);
  wire_get_span (r, &op->span);
  op->key = wire_get_string (r);
  wire_get_index_array (r, op->inputs);
  wire_get_index_array (r, op->outputs);
  op->module_call = get_i32 (r);
  op->iteration = get_u32 (r);
  op->custom_function = wire_get_string (r);
  op->in_place = get_bool (r);
  op->rule = get_rule (r);
  guint n_saved = wire_get_count (r, MIN_SAVED_BYTES);
  for (guint i = 0; i < n_saved && !r->failed; i++)
    get_saved (r, op);
  wire_get_loop_path (r, &op->loop_depth, op->loop_path);
  guint n_arguments = wire_get_count (r, MIN_ARGUMENT_BYTES);
  for (guint i = 0; i < n_arguments && !r->failed; i++)
    {
      g_autofree char *name = wire_get_string (r);
      CrRecordArgument *argument = cr_record_op_add_argument (op, name ? name : "");
      argument->kind = wire_get_enum (r, CR_RECORD_ARGUMENT_NONE + 1, "argument kind");
      guint32 n = get_u32 (r);
      if (n > CR_MAX_DIMS)
        {
          wire_fail (r, "an argument of %u values", n);
          break;
        }
      argument->n_values = (int) n;
      get_bytes (r, argument->values, sizeof (double) * n);
      /* A whole number must fit a gint64: its readers cast it. */
      gboolean whole = argument->kind == CR_RECORD_ARGUMENT_INT
                       || argument->kind == CR_RECORD_ARGUMENT_INTS;
      for (guint k = 0; whole && k < n && !r->failed; k++)
        if (!(argument->values[k] >= -0x1p63 && argument->values[k] < 0x1p63))
          wire_fail (r, "an integer argument of %g", argument->values[k]);
    }
}

static void
get_module_call (Reader      *r,
                 CrRunRecord *record)
{
  CrRecordModuleCall *call = cr_run_record_add_module_call (record);
  call->path = wire_get_string (r);
  call->class_name = wire_get_string (r);
  call->parent = get_i32 (r);
  call->depth = get_u32 (r);
  call->iteration = get_u32 (r);
  wire_get_span (r, &call->span);
  call->user_class = get_bool (r);
  wire_get_loop_path (r, &call->loop_depth, call->loop_path);
}

static void
get_region (Reader      *r,
            CrRunRecord *record)
{
  CrRecordRegion *region = cr_run_record_add_region (record);
  region->kind = wire_get_enum (r, CR_RECORD_REGION_INFERENCE + 1, "region kind");
  wire_get_span (r, &region->span);
  region->iteration = get_u32 (r);
  wire_get_loop_path (r, &region->loop_depth, region->loop_path);
}

static void
get_step_input (Reader       *r,
                CrRecordStep *step)
{
  CrRecordStepInput *in = cr_record_step_add_input (step);
  in->tensor = get_i32 (r);
  in->to_op = get_i32 (r);
  in->to_leaf = get_i32 (r);
  in->name = wire_get_string (r);
  in->local_name = wire_get_string (r);
  in->local = wire_get_snapshot (r);
  in->product = wire_get_snapshot (r);
  if (get_bool (r))
    {
      CrRecordReduction *red = in->reduction = g_new0 (CrRecordReduction, 1);
      gint32 n_dims = get_i32 (r);
      if (n_dims < 0 || n_dims > CR_MAX_DIMS)
        {
          wire_fail (r, "a reduction over %d dims", n_dims);
          n_dims = 0;
        }
      red->n_dims = n_dims;
      get_bytes (r, red->dims, sizeof (int) * (gsize) n_dims);
      wire_get_shape (r, &red->from_ndim, red->from_shape);
      wire_get_shape (r, &red->to_ndim, red->to_shape);
      /* The dims are the product's: a reader looks their sizes up there. */
      for (int d = 0; d < red->n_dims && !r->failed; d++)
        if (red->dims[d] < 0 || red->dims[d] >= red->from_ndim)
          wire_fail (r, "a reduction over dim %d of %d", red->dims[d], red->from_ndim);
    }
  get_grad (r, &in->outgoing);
}

static void
get_hook (Reader       *r,
          CrRecordStep *step)
{
  CrRecordHookCall *hook = cr_record_step_add_hook (step);
  hook->kind = wire_get_enum (r, CR_RECORD_HOOK_MODULE + 1, "hook kind");
  hook->tensor = get_i32 (r);
  hook->function = wire_get_string (r);
  wire_get_span (r, &hook->span);
  hook->before = wire_get_snapshot (r);
  hook->after = wire_get_snapshot (r);
  hook->raised = get_bool (r);
}

static void
get_accumulation (Reader               *r,
                  CrRecordAccumulation *acc)
{
  acc->name = wire_get_string (r);
  acc->tensor = get_i32 (r);
  acc->to_op = get_i32 (r);
  acc->contribution = wire_get_snapshot (r);
  acc->sum = wire_get_snapshot (r);
}

static void
get_step (Reader           *r,
          CrRecordBackward *bw)
{
  CrRecordStep *step = cr_record_backward_add_step (bw);
  step->kind = wire_get_enum (r, CR_RECORD_STEP_ACCUMULATE + 1, "step kind");
  step->op = get_i32 (r);
  step->leaf = get_i32 (r);
  step->title = wire_get_string (r);
  step->caption = wire_get_string (r);
  guint n = wire_get_count (r, MIN_HOOK_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_hook (r, step);
  n = wire_get_count (r, MIN_GRAD_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_grad (r, cr_record_step_add_incoming (step));
  step->rule = get_rule (r);
  step->custom_backward = wire_get_string (r);
  wire_get_span (r, &step->custom_span);
  n = wire_get_count (r, MIN_INPUT_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_step_input (r, step);
  n = wire_get_count (r, MIN_ACC_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_accumulation (r, cr_record_step_add_accumulation (step));
  step->grad_before = wire_get_snapshot (r);
  step->grad_after = wire_get_snapshot (r);
  step->failed = get_bool (r);
}

static void
get_backward (Reader      *r,
              CrRunRecord *record)
{
  CrRecordBackward *bw = cr_run_record_add_backward (record);
  bw->kind = wire_get_enum (r, CR_RECORD_BACKWARD_GRAD + 1, "backward kind");
  bw->title = wire_get_string (r);
  wire_get_span (r, &bw->span);
  bw->iteration = get_u32 (r);
  wire_get_index_array (r, bw->roots);
  bw->root_name = wire_get_string (r);
  bw->retain_graph = get_bool (r);
  bw->create_graph = get_bool (r);
  bw->succeeded = get_bool (r);
  bw->error = get_i32 (r);
  guint n = wire_get_count (r, MIN_STEP_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_step (r, bw);
  wire_get_loop_path (r, &bw->loop_depth, bw->loop_path);
  n = wire_get_count (r, MIN_GRAD_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_grad (r, cr_record_backward_add_root_grad (bw));
  n = wire_get_count (r, MIN_ACC_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    get_accumulation (r, cr_record_backward_add_root_accumulation (bw));
}

static void
get_error (Reader      *r,
           CrRunRecord *record)
{
  CrRecordError *err = cr_run_record_add_error (record);
  err->type = wire_get_string (r);
  err->message = wire_get_string (r);
  wire_get_span (r, &err->span);
  err->op = get_i32 (r);
  err->backward = get_i32 (r);
  err->step = get_i32 (r);
  err->tensor = get_i32 (r);
  wire_get_span (r, &err->culprit_span);
  wire_get_index_array (r, err->operands);
}

static void
get_finding (Reader      *r,
             CrRunRecord *record)
{
  CrRecordFinding *f = cr_run_record_add_finding (record);
  f->kind = wire_get_string (r);
  wire_get_span (r, &f->span);
  f->op = get_i32 (r);
  f->tensor = get_i32 (r);
  f->backward = get_i32 (r);
  f->title = wire_get_string (r);
  f->explanation = wire_get_string (r);
  wire_get_span (r, &f->fix_span);
  f->fix = wire_get_string (r);
}

/* The cells put_cells wrote: each one's lines in order and apart from the
 * one before, as cr_run_record_cell_at's search needs them. */
static void
get_cells (Reader      *r,
           CrRunRecord *record)
{
  guint n = wire_get_count (r, MIN_CELL_BYTES);
  int after = 0;
  for (guint i = 0; i < n && !r->failed; i++)
    {
      guint number = get_u32 (r);
      int first_line = get_i32 (r);
      int last_line = get_i32 (r);
      if (!r->failed && (first_line <= after || last_line < first_line))
        wire_fail (r, "cell %u on lines %d to %d, after line %d", number, first_line, last_line,
                   after);
      if (!r->failed)
        cr_run_record_add_cell (record, number, first_line, last_line);
      after = last_line;
    }
}

/* Reads a record array's count and its items with get_item. */
#define GET_ITEMS(r, record, min_bytes, get_item)                       \
  G_STMT_START {                                                        \
    guint n_ = wire_get_count ((r), (min_bytes));                            \
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
  wire_fail (b->reader, "%s index %d of %d", what, index, n);
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
  g_autofree char *filename = wire_get_string (&r);
  g_autofree char *source = wire_get_string (&r);
  CrRunRecord *record = cr_run_record_new (filename, source);
  GET_ITEMS (&r, record, MIN_TENSOR_BYTES, get_tensor);
  GET_ITEMS (&r, record, MIN_OP_BYTES, get_op);
  GET_ITEMS (&r, record, MIN_CALL_BYTES, get_module_call);
  GET_ITEMS (&r, record, MIN_REGION_BYTES, get_region);
  GET_ITEMS (&r, record, MIN_BACKWARD_BYTES, get_backward);
  GET_ITEMS (&r, record, MIN_ERROR_BYTES, get_error);
  record->truncated = get_bool (&r);
  GET_ITEMS (&r, record, MIN_FINDING_BYTES, get_finding);
  GET_ITEMS (&r, record, MIN_UPDATE_BYTES, wire_get_update);
  GET_ITEMS (&r, record, MIN_PRINTED_BYTES, wire_get_printed);
  get_cells (&r, record);
  if (get_u32 (&r) != WIRE_END_MARK && !r.failed)
    wire_fail (&r, "no end mark where the body ends");
  if (!r.failed && r.pos != r.end)
    wire_fail (&r, "%" G_GSIZE_FORMAT " bytes after the end mark", (gsize) (r.end - r.pos));
  if (!r.failed && r.snapshots->len != n_snapshots)
    wire_fail (&r, "%u snapshots where the header says %u", r.snapshots->len, n_snapshots);
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
