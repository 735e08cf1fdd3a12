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

/* Writes the count of a record array, then each item with put_item. */
#define PUT_ITEMS(w, array, put_item)                         \
  G_STMT_START {                                              \
    put_u32 ((w), (array)->len);                              \
    for (guint i_ = 0; i_ < (array)->len; i_++)               \
      put_item ((w), g_ptr_array_index ((array), i_));        \
  } G_STMT_END

/* The same for items that are their table's fields alone. */
#define PUT_FIELD_ITEMS(w, array, fields)                                  \
  G_STMT_START {                                                           \
    put_u32 ((w), (array)->len);                                           \
    for (guint i_ = 0; i_ < (array)->len; i_++)                            \
      wire_put_fields ((w), &(fields), g_ptr_array_index ((array), i_)); \
  } G_STMT_END

static void
put_op (Writer           *w,
        const CrRecordOp *op)
{
  wire_put_fields (w, &cr_record_op_fields, op);
  PUT_FIELD_ITEMS (w, op->saved, cr_record_saved_fields);
  wire_put_fields (w, &cr_record_op_tail_fields, op);
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
put_step_input (Writer                  *w,
                const CrRecordStepInput *in)
{
  wire_put_fields (w, &cr_record_step_input_fields, in);
  const CrRecordReduction *r = in->reduction;
  put_bool (w, r != NULL);
  if (r)
    {
      put_i32 (w, r->n_dims);
      put_bytes (w, r->dims, sizeof (int) * (gsize) CLAMP (r->n_dims, 0, CR_MAX_DIMS));
      wire_put_shape (w, r->from_ndim, r->from_shape);
      wire_put_shape (w, r->to_ndim, r->to_shape);
    }
  wire_put_fields (w, &cr_record_grad_fields, &in->outgoing);
}

static void
put_step (Writer             *w,
          const CrRecordStep *step)
{
  wire_put_fields (w, &cr_record_step_fields, step);
  PUT_FIELD_ITEMS (w, step->hooks, cr_record_hook_fields);
  PUT_FIELD_ITEMS (w, step->incoming, cr_record_grad_fields);
  wire_put_fields (w, &cr_record_step_rule_fields, step);
  PUT_ITEMS (w, step->inputs, put_step_input);
  PUT_FIELD_ITEMS (w, step->accumulations, cr_record_accumulation_fields);
  wire_put_fields (w, &cr_record_step_tail_fields, step);
}

static void
put_backward (Writer                 *w,
              const CrRecordBackward *bw)
{
  wire_put_fields (w, &cr_record_backward_fields, bw);
  PUT_ITEMS (w, bw->steps, put_step);
  wire_put_fields (w, &cr_record_backward_tail_fields, bw);
  PUT_FIELD_ITEMS (w, bw->root_grads, cr_record_grad_fields);
  PUT_FIELD_ITEMS (w, bw->root_accumulations, cr_record_accumulation_fields);
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
  PUT_FIELD_ITEMS (&w, record->tensors, cr_record_tensor_fields);
  PUT_ITEMS (&w, record->ops, put_op);
  PUT_FIELD_ITEMS (&w, record->module_calls, cr_record_module_call_fields);
  PUT_FIELD_ITEMS (&w, record->regions, cr_record_region_fields);
  PUT_ITEMS (&w, record->backwards, put_backward);
  PUT_FIELD_ITEMS (&w, record->errors, cr_record_error_fields);
  put_bool (&w, record->truncated);
  PUT_FIELD_ITEMS (&w, record->findings, cr_record_finding_fields);
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

/* Reads a count, then as many items with get_item (r, parent). */
#define GET_ITEMS(r, parent, min_bytes, get_item)                       \
  G_STMT_START {                                                        \
    guint n_ = wire_get_count ((r), (min_bytes));                       \
    for (guint i_ = 0; i_ < n_ && !(r)->failed; i_++)                   \
      get_item ((r), (parent));                                         \
  } G_STMT_END

/* The same for items that are their table's fields alone, each one made
 * by the constructor call add_item. */
#define GET_FIELD_ITEMS(r, min_bytes, fields, add_item)                 \
  G_STMT_START {                                                        \
    guint n_ = wire_get_count ((r), (min_bytes));                       \
    for (guint i_ = 0; i_ < n_ && !(r)->failed; i_++)                   \
      wire_get_fields ((r), &(fields), (add_item));           \
  } G_STMT_END

static void
get_op (Reader      *r,
        CrRunRecord *record)
{
  CrRecordOp *op = cr_run_record_add_op (record);
  wire_get_fields (r, &cr_record_op_fields, op);
  GET_FIELD_ITEMS (r, MIN_SAVED_BYTES, cr_record_saved_fields, cr_record_op_add_saved (op));
  wire_get_fields (r, &cr_record_op_tail_fields, op);
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
get_step_input (Reader       *r,
                CrRecordStep *step)
{
  CrRecordStepInput *in = cr_record_step_add_input (step);
  wire_get_fields (r, &cr_record_step_input_fields, in);
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
  wire_get_fields (r, &cr_record_grad_fields, &in->outgoing);
}

static void
get_step (Reader           *r,
          CrRecordBackward *bw)
{
  CrRecordStep *step = cr_record_backward_add_step (bw);
  wire_get_fields (r, &cr_record_step_fields, step);
  GET_FIELD_ITEMS (r, MIN_HOOK_BYTES, cr_record_hook_fields, cr_record_step_add_hook (step));
  GET_FIELD_ITEMS (r, MIN_GRAD_BYTES, cr_record_grad_fields, cr_record_step_add_incoming (step));
  wire_get_fields (r, &cr_record_step_rule_fields, step);
  GET_ITEMS (r, step, MIN_INPUT_BYTES, get_step_input);
  GET_FIELD_ITEMS (r, MIN_ACC_BYTES, cr_record_accumulation_fields, cr_record_step_add_accumulation (step));
  wire_get_fields (r, &cr_record_step_tail_fields, step);
}

static void
get_backward (Reader      *r,
              CrRunRecord *record)
{
  CrRecordBackward *bw = cr_run_record_add_backward (record);
  wire_get_fields (r, &cr_record_backward_fields, bw);
  GET_ITEMS (r, bw, MIN_STEP_BYTES, get_step);
  wire_get_fields (r, &cr_record_backward_tail_fields, bw);
  GET_FIELD_ITEMS (r, MIN_GRAD_BYTES, cr_record_grad_fields, cr_record_backward_add_root_grad (bw));
  GET_FIELD_ITEMS (r, MIN_ACC_BYTES, cr_record_accumulation_fields, cr_record_backward_add_root_accumulation (bw));
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
  GET_FIELD_ITEMS (&r, MIN_TENSOR_BYTES, cr_record_tensor_fields, cr_run_record_add_tensor (record));
  GET_ITEMS (&r, record, MIN_OP_BYTES, get_op);
  GET_FIELD_ITEMS (&r, MIN_CALL_BYTES, cr_record_module_call_fields, cr_run_record_add_module_call (record));
  GET_FIELD_ITEMS (&r, MIN_REGION_BYTES, cr_record_region_fields, cr_run_record_add_region (record));
  GET_ITEMS (&r, record, MIN_BACKWARD_BYTES, get_backward);
  GET_FIELD_ITEMS (&r, MIN_ERROR_BYTES, cr_record_error_fields, cr_run_record_add_error (record));
  record->truncated = get_bool (&r);
  GET_FIELD_ITEMS (&r, MIN_FINDING_BYTES, cr_record_finding_fields, cr_run_record_add_finding (record));
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
