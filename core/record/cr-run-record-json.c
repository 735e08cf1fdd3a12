/* cr-run-record-json.c — a run record written as JSON (docs/run-record.md).
 *
 * A small writer of our own rather than a JSON library: the output must be
 * deterministic (keys in the header's order), numbers must read back to the
 * same value, and the schema has a few rules JSON itself lacks (NaN and the
 * infinities as strings, spans as objects or null). Objects go one member a
 * line; spans, shapes, gradients' snapshots and number arrays go on one line
 * each, which keeps a long run's file readable and a tenth of the size. */
#include "cr-run-record-json.h"
#include "cr-run-record-fields.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GString  *out;
  int       depth;       /* open containers */
  int       inline_from; /* containers from this depth on go on one line; G_MAXINT: none */
  gboolean  first;       /* nothing written yet in the innermost open container */
} JsonWriter;

/* ---- scalars ---------------------------------------------------------------- */

static void
append_string (GString    *out,
               const char *text)
{
  if (!text)
    {
      g_string_append (out, "null");
      return;
    }
  /* A record's strings come from the script (names, captions, messages):
   * bytes that are not UTF-8 would make the whole file unreadable. */
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) valid; *p; p++)
    switch (*p)
      {
      case '"':  g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      default:
        if (*p < 0x20 || *p == 0x7f)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, (char) *p);
      }
  g_string_append_c (out, '"');
}

/* The shortest text that reads back to the same number: float32 values
 * (most tensors) to the same float, so 0.1f is "0.1" and not
 * "0.10000000149011612"; doubles to the same double. JSON has no NaN or
 * infinity: they are the strings "nan", "inf" and "-inf", which Python's
 * float() reads. */
static void
append_number (GString *out,
               double   value,
               gboolean is_float32)
{
  if (isnan (value))
    {
      g_string_append (out, "\"nan\"");
      return;
    }
  if (isinf (value))
    {
      g_string_append (out, value > 0 ? "\"inf\"" : "\"-inf\"");
      return;
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  int from = is_float32 ? 6 : 15, to = is_float32 ? 9 : 17;
  for (int precision = from; precision <= to; precision++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, value);
      double back = g_ascii_strtod (buf, NULL);
      if (is_float32 ? (float) back == (float) value : back == value)
        break;
    }
  g_string_append (out, buf);
}

/* ---- containers ------------------------------------------------------------- */

/* Starts a member (key may be NULL inside arrays): the comma after the
 * previous one, a new line unless inline, the key. */
static void
member (JsonWriter *w,
        const char *key)
{
  if (!w->first)
    g_string_append_c (w->out, ',');
  if (w->depth >= w->inline_from)
    {
      if (!w->first)
        g_string_append_c (w->out, ' ');
    }
  else if (w->depth > 0)   /* the root value starts the text */
    {
      g_string_append_c (w->out, '\n');
      for (int i = 0; i < w->depth; i++)
        g_string_append (w->out, "  ");
    }
  w->first = FALSE;
  if (key)
    {
      append_string (w->out, key);
      g_string_append (w->out, ": ");
    }
}

static void
open_container (JsonWriter *w,
                const char *key,
                char        bracket,
                gboolean    on_one_line)
{
  member (w, key);
  g_string_append_c (w->out, bracket);
  w->depth++;
  if (on_one_line && w->inline_from > w->depth)
    w->inline_from = w->depth;
  w->first = TRUE;
}

static void
close_container (JsonWriter *w,
                 char        bracket)
{
  gboolean empty = w->first;
  gboolean was_inline = w->depth >= w->inline_from;
  w->depth--;
  if (!empty && !was_inline)
    {
      g_string_append_c (w->out, '\n');
      for (int i = 0; i < w->depth; i++)
        g_string_append (w->out, "  ");
    }
  if (w->inline_from > w->depth)
    w->inline_from = G_MAXINT;
  g_string_append_c (w->out, bracket);
  w->first = FALSE;
}

static void begin_object  (JsonWriter *w, const char *key) { open_container (w, key, '{', FALSE); }
static void begin_inline  (JsonWriter *w, const char *key) { open_container (w, key, '{', TRUE); }
static void end_object    (JsonWriter *w)                  { close_container (w, '}'); }
static void begin_array   (JsonWriter *w, const char *key) { open_container (w, key, '[', FALSE); }
static void end_array     (JsonWriter *w)                  { close_container (w, ']'); }

static void
write_string (JsonWriter *w,
              const char *key,
              const char *value)
{
  member (w, key);
  append_string (w->out, value);
}

static void
write_int (JsonWriter *w,
           const char *key,
           gint64      value)
{
  member (w, key);
  g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

static void
write_bool (JsonWriter *w,
            const char *key,
            gboolean    value)
{
  member (w, key);
  g_string_append (w->out, value ? "true" : "false");
}

static void
write_null (JsonWriter *w,
            const char *key)
{
  member (w, key);
  g_string_append (w->out, "null");
}

static void
write_double (JsonWriter *w,
              const char *key,
              double      value)
{
  member (w, key);
  append_number (w->out, value, FALSE);
}

/* The C types a list of whole numbers comes in. */
typedef enum {
  INTEGERS_INT,
  INTEGERS_UINT,
  INTEGERS_INT64,
} IntegerType;

/* A shape, list of dims, indices or loop path, always on one line:
 * [2, 3]. values holds n numbers of type. */
static void
write_integers (JsonWriter    *w,
                const char    *key,
                gconstpointer  values,
                int            n,
                IntegerType    type)
{
  member (w, key);
  g_string_append_c (w->out, '[');
  for (int i = 0; i < n; i++)
    {
      gint64 value = type == INTEGERS_INT64 ? ((const gint64 *) values)[i]
                     : type == INTEGERS_UINT ? (gint64) ((const guint *) values)[i]
                     : (gint64) ((const int *) values)[i];
      g_string_append_printf (w->out, i ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, value);
    }
  g_string_append_c (w->out, ']');
}

static void
write_int64s (JsonWriter   *w,
              const char   *key,
              const gint64 *values,
              int           n)
{
  write_integers (w, key, values, n, INTEGERS_INT64);
}

/* A loop path: its depth is capped by the array that holds it. */
static void
write_loop_path (JsonWriter  *w,
                 const guint *path,
                 guint        depth)
{
  write_integers (w, "loop_path", path, (int) MIN (depth, CR_RECORD_MAX_LOOP_PATH), INTEGERS_UINT);
}

/* A GArray of int (tensor or op indices). */
static void
write_index_array (JsonWriter   *w,
                   const char   *key,
                   const GArray *indices)
{
  write_integers (w, key, indices ? indices->data : NULL, indices ? (int) indices->len : 0,
                  INTEGERS_INT);
}

/* {"line": 3, "column": 5, "end_line": 3, "end_column": 12}; null for {0}. */
static void
write_span (JsonWriter   *w,
            const char   *key,
            const CrSpan *span)
{
  if (span->line <= 0)
    {
      write_null (w, key);
      return;
    }
  begin_inline (w, key);
  write_int (w, "line", span->line);
  write_int (w, "column", span->column);
  write_int (w, "end_line", span->end_line);
  write_int (w, "end_column", span->end_column);
  end_object (w);
}

/* ---- the record's items ------------------------------------------------------ */

/* Writes every item of a record array with write_item. */
#define WRITE_ITEMS(w, key, array, write_item)                  \
  G_STMT_START {                                                \
    begin_array ((w), (key));                                   \
    for (guint i_ = 0; (array) && i_ < (array)->len; i_++)      \
      write_item ((w), (array)->pdata[i_]);                     \
    end_array ((w));                                            \
  } G_STMT_END

static void
write_snapshot (JsonWriter             *w,
                const char             *key,
                const CrTensorSnapshot *s)
{
  if (!s)
    {
      write_null (w, key);
      return;
    }
  begin_inline (w, key);
  write_int64s (w, "shape", s->shape, s->ndim);
  write_int (w, "numel", s->numel);
  write_string (w, "dtype", s->dtype);
  write_string (w, "device", s->device);
  /* Values of float32 tensors are written as float32 (see append_number);
   * integers and bools are whole numbers either way. */
  gboolean is_float32 = s->dtype && strcmp (s->dtype, "torch.float32") == 0;
  member (w, "values");
  g_string_append_c (w->out, '[');
  for (gint64 i = 0; i < s->n_values; i++)
    {
      if (i)
        g_string_append (w->out, ", ");
      append_number (w->out, s->values[i], is_float32);
    }
  g_string_append_c (w->out, ']');
  begin_inline (w, "statistics");
  write_double (w, "min", s->min);
  write_double (w, "max", s->max);
  write_double (w, "mean", s->mean);
  write_double (w, "std", s->std);
  end_object (w);
  write_string (w, "text", cr_tensor_snapshot_get_text (s));
  end_object (w);
}

/* The fields rows describe (n of them), each under its name; an enum as
 * its word. */
static void
write_rows (JsonWriter        *w,
            const RecordField *rows,
            gsize              n,
            gconstpointer      item)
{
  const guint8 *base = item;
  for (gsize i = 0; i < n; i++)
    {
      const RecordField *f = &rows[i];
      const guint8 *at = base + f->offset;
      switch (f->kind)
        {
        case FIELD_KIND_U32:
          {
            guint v = *(const guint *) at;
            if (f->names)
              write_string (w, f->key, v < f->n_values ? f->names[v] : "unknown");
            else
              write_int (w, f->key, v);
          }
          break;
        case FIELD_KIND_I32:
          write_int (w, f->key, *(const int *) at);
          break;
        case FIELD_KIND_BOOL:
          write_bool (w, f->key, *(const gboolean *) at);
          break;
        case FIELD_KIND_STRING:
        case FIELD_KIND_RULE:
          write_string (w, f->key, *(const char *const *) at);
          break;
        case FIELD_KIND_SPAN:
          write_span (w, f->key, (const CrSpan *) at);
          break;
        case FIELD_KIND_SHAPE:
          write_int64s (w, f->key, (const gint64 *) (base + f->offset2), *(const int *) at);
          break;
        case FIELD_KIND_INDEX_ARRAY:
          write_index_array (w, f->key, *(const GArray *const *) at);
          break;
        case FIELD_KIND_LOOP_PATH:
          write_loop_path (w, (const guint *) (base + f->offset2), *(const guint *) at);
          break;
        case FIELD_KIND_SNAPSHOT:
          write_snapshot (w, f->key, *(const CrTensorSnapshot *const *) at);
          break;
        }
    }
}

static void
write_fields (JsonWriter         *w,
              const RecordFields *fields,
              gconstpointer       item)
{
  write_rows (w, fields->rows, fields->n_rows, item);
}

/* An item that is its id and its table's fields. */
#define WRITE_ID_AND_FIELDS(w, item, fields) \
  G_STMT_START {                             \
    begin_object ((w), NULL);                \
    write_int ((w), "id", (item)->id);       \
    write_fields ((w), &(fields), (item));   \
    end_object ((w));                        \
  } G_STMT_END

static void
write_tensor (JsonWriter           *w,
              const CrRecordTensor *t)
{
  WRITE_ID_AND_FIELDS (w, t, cr_record_tensor_fields);
}

static void
write_saved (JsonWriter          *w,
             const CrRecordSaved *s)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_saved_fields, s);
  end_object (w);
}

/* {"dim": [1], "keepdim": false, "eps": 1e-05}: each as its kind says. */
static void
write_arguments (JsonWriter      *w,
                 const GPtrArray *arguments)
{
  begin_inline (w, "arguments");
  for (guint i = 0; arguments && i < arguments->len; i++)
    {
      const CrRecordArgument *a = arguments->pdata[i];
      gint64 ints[CR_MAX_DIMS];
      switch (a->kind)
        {
        case CR_RECORD_ARGUMENT_INT:
          write_int (w, a->name, (gint64) a->values[0]);
          break;
        case CR_RECORD_ARGUMENT_FLOAT:
          write_double (w, a->name, a->values[0]);
          break;
        case CR_RECORD_ARGUMENT_BOOL:
          write_bool (w, a->name, a->values[0] != 0);
          break;
        case CR_RECORD_ARGUMENT_INTS:
          for (int k = 0; k < a->n_values && k < CR_MAX_DIMS; k++)
            ints[k] = (gint64) a->values[k];
          write_int64s (w, a->name, ints, MIN (a->n_values, CR_MAX_DIMS));
          break;
        case CR_RECORD_ARGUMENT_NONE:
        default:
          write_null (w, a->name);
          break;
        }
    }
  end_object (w);
}

static void
write_op (JsonWriter       *w,
          const CrRecordOp *op)
{
  begin_object (w, NULL);
  write_int (w, "id", op->id);
  write_fields (w, &cr_record_op_fields, op);
  WRITE_ITEMS (w, "saved", op->saved, write_saved);
  write_fields (w, &cr_record_op_tail_fields, op);
  write_arguments (w, op->arguments);
  end_object (w);
}

/* Where the row key is in fields (n_rows when none). The JSON of module
 * calls and backward calls tells their loop path right after their
 * iteration, earlier than their tables' order (the wire's). */
static gsize
row_of (const RecordFields *fields,
        const char         *key)
{
  gsize i = 0;
  while (i < fields->n_rows && !g_str_equal (fields->rows[i].key, key))
    i++;
  return i;
}

static void
write_module_call (JsonWriter               *w,
                   const CrRecordModuleCall *call)
{
  /* Its table ends with its loop path. */
  const RecordFields *fields = &cr_record_module_call_fields;
  gsize span = row_of (fields, "span"), path = fields->n_rows - 1;
  begin_object (w, NULL);
  write_int (w, "id", call->id);
  write_rows (w, fields->rows, span, call);
  write_rows (w, fields->rows + path, 1, call);
  write_rows (w, fields->rows + span, path - span, call);
  end_object (w);
}

static void
write_region (JsonWriter           *w,
              const CrRecordRegion *region)
{
  WRITE_ID_AND_FIELDS (w, region, cr_record_region_fields);
}

/* {"name": "∂L/∂b", "tensor": 3, "value": {...}} on one line. */
static void
write_grad (JsonWriter         *w,
            const char         *key,
            const CrRecordGrad *grad)
{
  begin_inline (w, key);
  write_fields (w, &cr_record_grad_fields, grad);
  end_object (w);
}

/* A gradient as an item of an array. */
static void
write_grad_item (JsonWriter         *w,
                 const CrRecordGrad *grad)
{
  write_grad (w, NULL, grad);
}

static void
write_reduction (JsonWriter              *w,
                 const CrRecordReduction *r)
{
  if (!r)
    {
      write_null (w, "reduction");
      return;
    }
  begin_inline (w, "reduction");
  write_integers (w, "dims", r->dims, r->n_dims, INTEGERS_INT);
  write_int64s (w, "from_shape", r->from_shape, r->from_ndim);
  write_int64s (w, "to_shape", r->to_shape, r->to_ndim);
  end_object (w);
}

static void
write_step_input (JsonWriter              *w,
                  const CrRecordStepInput *in)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_step_input_fields, in);
  write_reduction (w, in->reduction);
  write_grad (w, "outgoing", &in->outgoing);
  end_object (w);
}

static void
write_hook (JsonWriter             *w,
            const CrRecordHookCall *hook)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_hook_fields, hook);
  end_object (w);
}

static void
write_accumulation (JsonWriter                 *w,
                    const CrRecordAccumulation *a)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_accumulation_fields, a);
  end_object (w);
}

static void
write_step (JsonWriter         *w,
            const CrRecordStep *step)
{
  begin_object (w, NULL);
  write_int (w, "index", step->index);
  write_fields (w, &cr_record_step_fields, step);
  WRITE_ITEMS (w, "hooks", step->hooks, write_hook);
  WRITE_ITEMS (w, "incoming", step->incoming, write_grad_item);
  write_fields (w, &cr_record_step_rule_fields, step);
  WRITE_ITEMS (w, "inputs", step->inputs, write_step_input);
  WRITE_ITEMS (w, "accumulations", step->accumulations, write_accumulation);
  write_fields (w, &cr_record_step_tail_fields, step);
  end_object (w);
}

static void
write_backward (JsonWriter             *w,
                const CrRecordBackward *b)
{
  begin_object (w, NULL);
  write_int (w, "id", b->id);
  const RecordFields *fields = &cr_record_backward_fields;
  gsize roots = row_of (fields, "roots");
  write_rows (w, fields->rows, roots, b);
  write_fields (w, &cr_record_backward_tail_fields, b);
  write_rows (w, fields->rows + roots, fields->n_rows - roots, b);
  WRITE_ITEMS (w, "steps", b->steps, write_step);
  WRITE_ITEMS (w, "root_grads", b->root_grads, write_grad_item);
  WRITE_ITEMS (w, "root_accumulations", b->root_accumulations, write_accumulation);
  end_object (w);
}

static void
write_error (JsonWriter          *w,
             const CrRecordError *e)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_error_fields, e);
  end_object (w);
}

static void
write_finding (JsonWriter            *w,
               const CrRecordFinding *f)
{
  begin_object (w, NULL);
  write_fields (w, &cr_record_finding_fields, f);
  end_object (w);
}

static void
write_optim_state (JsonWriter               *w,
                   const CrRecordOptimState *state)
{
  begin_object (w, NULL);
  write_string (w, "name", state->name);
  write_fields (w, &cr_record_state_fields, state);
  end_object (w);
}

static void
write_update (JsonWriter           *w,
              const CrRecordUpdate *u)
{
  begin_object (w, NULL);
  write_int (w, "id", u->id);
  write_fields (w, &cr_record_update_fields, u);
  begin_inline (w, "numbers");
  for (guint i = 0; i < u->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
      write_double (w, number->name, number->value);
    }
  end_object (w);
  write_fields (w, &cr_record_update_value_fields, u);
  WRITE_ITEMS (w, "state", u->state, write_optim_state);
  end_object (w);
}

static void
write_printed (JsonWriter            *w,
               const CrRecordPrinted *p)
{
  begin_inline (w, NULL);
  write_string (w, "name", p->name);
  write_double (w, "value", p->value);
  write_fields (w, &cr_record_printed_fields, p);
  end_object (w);
}

/* A notebook's code cells, each on one line:
 * {"number": 1, "first_line": 2, "last_line": 3}. */
static void
write_cells (JsonWriter   *w,
             const GArray *cells)
{
  begin_array (w, "cells");
  for (guint i = 0; cells && i < cells->len; i++)
    {
      const CrRecordCell *cell = &g_array_index (cells, CrRecordCell, i);
      begin_inline (w, NULL);
      write_int (w, "number", cell->number);
      write_int (w, "first_line", cell->first_line);
      write_int (w, "last_line", cell->last_line);
      end_object (w);
    }
  end_array (w);
}

char *
cr_run_record_to_json (const CrRunRecord *record,
                       gsize             *length)
{
  g_return_val_if_fail (record != NULL, NULL);
  JsonWriter w = { g_string_new (NULL), 0, G_MAXINT, TRUE };
  begin_object (&w, NULL);
  write_string (&w, "schema", "chainrule-run-record");
  write_int (&w, "version", CR_RUN_RECORD_SCHEMA_VERSION);
  write_string (&w, "filename", record->filename);
  write_string (&w, "source", record->source);
  WRITE_ITEMS (&w, "tensors", record->tensors, write_tensor);
  WRITE_ITEMS (&w, "ops", record->ops, write_op);
  WRITE_ITEMS (&w, "module_calls", record->module_calls, write_module_call);
  WRITE_ITEMS (&w, "regions", record->regions, write_region);
  WRITE_ITEMS (&w, "backwards", record->backwards, write_backward);
  WRITE_ITEMS (&w, "errors", record->errors, write_error);
  write_bool (&w, "truncated", record->truncated);
  WRITE_ITEMS (&w, "findings", record->findings, write_finding);
  WRITE_ITEMS (&w, "updates", record->updates, write_update);
  WRITE_ITEMS (&w, "printed", record->printed, write_printed);
  write_cells (&w, record->cells);
  end_object (&w);
  g_string_append_c (w.out, '\n');
  if (length)
    *length = w.out->len;
  return g_string_free (w.out, FALSE);
}
