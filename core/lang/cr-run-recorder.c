/* cr-run-recorder.c — fills the run record while a script runs: its forward
 * side (tensors with their names and loop iterations, ops, grad-mode
 * regions, in-place changes, errors) and the mapping from engine objects to
 * record ids that the backward side (cr-torch-backward-record.c) uses.
 *
 * Ops are recorded when the script first sees their result (the value of an
 * expression), so that an op made in iteration 3 of a loop says so; the
 * graph behind it, made inside natives (nn.Linear's addmm) or functions, is
 * walked back from there. Identity: a node by its sequence number (unique in
 * a run: the counter starts again with each run), a result by (node,
 * output_nr), any other tensor by a serial number kept in its script data,
 * since freed nodes' and tensors' addresses are reused.
 *
 * The names a script gave its tensors and what a tensor without history was
 * made from are noted by cr-run-recorder-names.c. */
#include "cr-run-recorder-private.h"
#include "cr-run-recorder-names.h"
#include "cr-run-recorder-modules.h"
#include "cr-snapshot-cache.h"
#include "cr-run-recorder-operands.h"

#include "cr-coach.h"
#include "cr-device.h"
#include "cr-dtype.h"
#include "cr-grad-mode.h"
#include "cr-graph-observer.h"
#include "cr-interp-private.h"
#include "cr-object.h"
#include "cr-tensor.h"
#include "cr-torch-private.h"
#include "cr-torch-state.h"
#include "cr-version-observer.h"

#include <string.h>

/* All the snapshots of one record together keep at most this many values
 * (32 MiB): a long run over big tensors keeps the statistics and shapes of
 * every value, only the numbers of the last ones go. */
#define RECORD_MAX_VALUES (4 * 1024 * 1024)

/* The second half of that is for small tensors only (those the scalar
 * graph opens): a run over big ones (an attention model's activations and
 * their gradients, 4096 values a snapshot, step after step) spent it all
 * in its first iterations and left no values to the small results of the
 * rest. A quarter still ran out halfway through real-seq2seq-attention. */
#define SMALL_VALUES_RESERVE (RECORD_MAX_VALUES / 2)

/* While --trace-backward traces a backward call, its steps' snapshots keep
 * up to this many values of their own, whatever the shared budget has
 * left: the trace prints them when the call ends. Then they are cut back to
 * the shared budget (cr_run_record_limit_step_values). */
#define TRACE_CALL_MAX_VALUES RECORD_MAX_VALUES

/* What an in-place statement last did to a version counter. */
typedef struct {
  CrSpan  span;
  guint32 version;               /* the version it left: the change is the current
                                  * one only while the counter still reads this */
} Change;

/* A tensor changed in place, looked at again once the op that changed it
 * has set its history: the op is marked in_place. */
typedef struct {
  CrTensor *tensor;              /* owned ref */
  guint64   grad_fn_sequence_nr; /* of its grad_fn before the change, G_MAXUINT64: none */
} Bump;

/* The data a tensor's value snapshot was taken from: a saved tensor with
 * the same data (the op saved its input, unchanged since) gets a copy of
 * it rather than a snapshot of its own (formatting its text is most of
 * what a snapshot costs). */
typedef struct {
  gconstpointer storage;   /* compared, never dereferenced */
  gint64        offset;
  guint32       version;
  gboolean      read;      /* a recorded op has it as an input: its value is what
                            * that op read, and a later change is no initialisation */
} ValueSource;

CrRunRecorder *
cr_run_recorder_of (CrInterp *self)
{
  if (!self || !self->options.record_backward)
    return NULL;
  return cr_torch_state (self)->recorder;
}

CrRunRecord *
cr_run_recorder_get (CrInterp *self)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  return r ? r->record : NULL;
}

CrRunRecord *
cr_interp_get_run_record (CrInterp *self)
{
  CrRunRecord *record = cr_run_recorder_get (self);
  return record ? cr_run_record_ref (record) : NULL;
}

guint
cr_run_recorder_iteration (CrInterp *self)
{
  return self ? cr_interp_loop_iteration (self) : 0;
}

/* ---- small helpers ---------------------------------------------------------- */

/* The statement running now, the script's own (a prelude function's ops are
 * the statement's that called it). */
CrSpan
cr_run_recorder_current_span (CrInterp *self)
{
  const CrAstNode *stmt = self->in_prelude && self->user_stmt ? self->user_stmt
                          : self->frame ? self->frame->stmt : NULL;
  return stmt ? stmt->span : (CrSpan) { 0 };
}

/* The first line of the text a span covers, trimmed; NULL when unknown. */
char *
cr_run_recorder_span_text (CrInterp     *self,
                           const CrSpan *span)
{
  /* Spans are the script's, also while library code runs (its module is
   * current then: autograd.functional's ops). */
  const CrAstModule *module = self->in_prelude ? self->main_scope.module : self->module;
  char *text = module ? cr_source_span_text (module->source, span) : NULL;
  if (text && !text[0])
    g_clear_pointer (&text, g_free);
  return text;
}

static guint
span_hash (gconstpointer key)
{
  const CrSpan *s = key;
  return (guint) s->line * 2654435761u ^ (guint) s->column * 40503u
         ^ (guint) s->end_line * 97u ^ (guint) s->end_column;
}

static gboolean
span_equal (gconstpointer a,
            gconstpointer b)
{
  return memcmp (a, b, sizeof (CrSpan)) == 0;
}

/* An op's caption: span_text() once per span, since a loop makes the ops of
 * its body again at each iteration from the same lines. New string. */
char *
cr_run_recorder_caption (CrRunRecorder *r,
                         const CrSpan  *span)
{
  char *text;
  if (!g_hash_table_lookup_extended (r->captions, span, NULL, (gpointer *) &text))
    {
      text = cr_run_recorder_span_text (r->interp, span);
      g_hash_table_insert (r->captions, g_memdup2 (span, sizeof *span), text);
    }
  return g_strdup (text);
}

CrLoopPath
cr_run_recorder_loop_path (CrInterp *self)
{
  CrLoopPath p = { 0 };
  p.depth = cr_interp_loop_path (self, p.path, CR_RECORD_MAX_LOOP_PATH);
  return p;
}

/* "y₃": a name with the loop iteration it was bound in; in nested loops
 * every loop's, outermost first: "y₂,₃" (iteration 3 of the inner loop in
 * iteration 2 of the outer). */
static char *
label_with_iteration (const char       *name,
                      const CrLoopPath *loops)
{
  static const char *const subscripts[] = { "₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉" };
  GString *label = g_string_new (name);
  for (guint i = 0; i < loops->depth; i++)
    {
      char digits[24];
      g_snprintf (digits, sizeof digits, "%u", loops->path[i]);
      if (i > 0)
        g_string_append_c (label, ',');
      for (const char *d = digits; *d; d++)
        g_string_append (label, subscripts[*d - '0']);
    }
  return g_string_free (label, FALSE);
}

static void
extra_free_notify (gpointer data)
{
  cr_object_extra_free (data);
}

/* t's serial number (0 when it has none and create is FALSE). It lives in
 * the tensor's script data, which goes with the tensor. */
guint64
cr_run_recorder_serial (CrRunRecorder *r,
                        CrTensor      *t,
                        gboolean       create)
{
  CrObjectExtra *extra = t->script_data;
  if (!extra)
    {
      if (!create)
        return 0;
      extra = g_new0 (CrObjectExtra, 1);
      t->script_data = extra;
      t->script_data_free = extra_free_notify;
    }
  /* Numbered across runs: a tensor may outlive the run that numbered it. */
  static guint64 last_serial;
  if (extra->serial == 0 && create)
    extra->serial = __atomic_add_fetch (&last_serial, 1, __ATOMIC_RELAXED);
  return extra->serial;
}

gint64
cr_run_recorder_values_for (CrRunRecorder *r,
                            gint64         numel)
{
  gint64 left = numel <= CR_SMALL_TENSORS_MAX_NUMEL ? r->values_left
                                                    : r->values_left - SMALL_VALUES_RESERVE;
  return CLAMP (left, 0, numel);
}

/* A snapshot under the shared budget: a tensor's value in the forward. */
static CrTensorSnapshot *
shared_snapshot (CrRunRecorder  *r,
                 const CrTensor *t)
{
  CrTensorSnapshot *s = cr_tensor_snapshot_new_deferred (t, cr_run_recorder_values_for (r, t->numel));
  r->values_left -= s->n_values;
  return s;
}

CrTensorSnapshot *
cr_run_recorder_snapshot (CrInterp       *self,
                          const CrTensor *t)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !t)
    return NULL;
  /* The same tensor, unchanged, again (a step's outgoing gradient is its
   * product and the next step's incoming one): one snapshot, shared. */
  CrTensorSnapshot *s = cr_snapshot_cache_lookup (r->snapshots, t);
  if (s)
    return s;
  if (r->trace_depth == 0)
    s = shared_snapshot (r, t);
  else
    {
      s = cr_tensor_snapshot_new_deferred (t, MAX (r->trace_values_left, 0));
      r->trace_values_left -= s->n_values;
    }
  cr_snapshot_cache_insert (r->snapshots, t, s);
  return s;
}

void
cr_run_recorder_trace_begin (CrInterp *self)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || r->trace_depth++ > 0)
    return;
  r->trace_first = r->record->backwards->len;
  r->trace_values_left = TRACE_CALL_MAX_VALUES;
}

void
cr_run_recorder_trace_end (CrInterp *self)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || r->trace_depth == 0 || --r->trace_depth > 0)
    return;
  r->values_left = cr_run_record_limit_step_values (r->record, r->trace_first, r->values_left);
}

static void
fill_meta (CrRecordTensor *rec,
           int             ndim,
           const gint64   *shape,
           CrDType         dtype,
           CrDeviceType    device)
{
  rec->ndim = ndim;
  if (ndim > 0 && shape)
    memcpy (rec->shape, shape, sizeof (gint64) * (gsize) ndim);
  g_free (rec->dtype);
  rec->dtype = g_strdup (cr_dtype_name (dtype));
  g_free (rec->device);
  rec->device = g_strdup (cr_device_name (device));
}

/* rec's value, snapshot from t now. */
static void
take_value (CrRunRecorder  *r,
            CrRecordTensor *rec,
            const CrTensor *t)
{
  rec->value = shared_snapshot (r, t);
  ValueSource *source = g_new0 (ValueSource, 1);
  source->storage = t->storage;
  source->offset = t->offset;
  source->version = cr_tensor_version (t);
  g_hash_table_insert (r->value_sources, GUINT_TO_POINTER (rec->id), source);
}

/* A saved tensor's value: its tensor's, shared, when that was taken from
 * the same data at the version saved, else a snapshot of its own. */
static CrTensorSnapshot *
saved_value (CrRunRecorder        *r,
             const CrRecordTensor *rec,
             const CrTensor       *t,
             guint32               saved_version)
{
  const ValueSource *source = rec && rec->value
    ? g_hash_table_lookup (r->value_sources, GUINT_TO_POINTER (rec->id)) : NULL;
  if (source && source->storage == (gconstpointer) t->storage && source->offset == t->offset
      && source->version == saved_version && rec->value->ndim == t->ndim
      && cr_shape_equal (rec->value->shape, rec->value->ndim, t->shape, t->ndim))
    {
      return cr_tensor_snapshot_share (rec->value);
    }
  return shared_snapshot (r, t);
}

static void
fill_from_tensor (CrRunRecorder  *r,
                  CrRecordTensor *rec,
                  CrTensor       *t)
{
  fill_meta (rec, t->ndim, t->shape, t->dtype, t->device);
  rec->requires_grad = t->requires_grad;
  rec->retains_grad = t->retains_grad;
  if (!rec->value)
    take_value (r, rec, t);
}

/* The region a tensor made now was made in, when it turns recording off:
 * the innermost with-region (an enable_grad one turns it back on), else a
 * set_grad_enabled(False) running; -1: none. */
int
cr_run_recorder_disabling_region (CrRunRecorder *r)
{
  if (r->open_regions->len == 0)
    return r->disabled_region;
  int id = g_array_index (r->open_regions, int, r->open_regions->len - 1);
  if (id < 0)
    return -1;
  const CrRecordRegion *region = g_ptr_array_index (r->record->regions, id);
  return region->kind == CR_RECORD_REGION_ENABLE_GRAD ? -1 : id;
}

CrRecordTensor *
cr_run_recorder_tensor_rec (CrRunRecorder *r,
                            int            id)
{
  return id >= 0 ? g_ptr_array_index (r->record->tensors, id) : NULL;
}

static void
set_loops (CrRecordTensor   *rec,
           const CrLoopPath *loops)
{
  rec->iteration = loops->depth ? loops->path[loops->depth - 1] : 0;
  rec->loop_depth = loops->depth;
  memcpy (rec->loop_path, loops->path, sizeof rec->loop_path);
}

void
cr_run_recorder_set_name (CrRecordTensor   *rec,
                          const char       *name,
                          const CrLoopPath *loops)
{
  g_free (rec->name);
  rec->name = g_strdup (name);
  set_loops (rec, loops);
  g_free (rec->label);
  rec->label = label_with_iteration (name, loops);
}

/* The loops the op that made rec (a result) ran in. */
static CrLoopPath
op_loops (CrRunRecorder        *r,
          const CrRecordTensor *rec)
{
  CrLoopPath loops = { 0 };
  if (rec->op < 0)
    return loops;
  const CrRecordOp *op = g_ptr_array_index (r->record->ops, rec->op);
  loops.depth = op->loop_depth;
  memcpy (loops.path, op->loop_path, sizeof loops.path);
  return loops;
}

/* rec, which the script never named, called after text ("h * w" gives
 * "(h * w)", "(h * w)₂" when its op ran in a loop). */
void
cr_run_recorder_label_unnamed (CrRunRecorder  *r,
                               CrRecordTensor *rec,
                               const char     *text)
{
  CrLoopPath loops = op_loops (r, rec);
  g_autofree char *wrapped = g_strdup_printf ("(%s)", text);
  set_loops (rec, &loops);
  g_free (rec->label);
  rec->label = label_with_iteration (wrapped, &loops);
}

/* Whether array may take one more item; when not, the record says it was
 * cut short. */
static gboolean
room_for (CrRunRecorder *r,
          GPtrArray     *array)
{
  if (array->len < CR_RUN_RECORD_MAX_ITEMS)
    return TRUE;
  r->record->truncated = TRUE;
  return FALSE;
}

/* ---- ops -------------------------------------------------------------------- */

static int op_new (CrRunRecorder *r, CrNode *node);

int
cr_run_recorder_output (CrInterp *self,
                        CrNode   *node,
                        guint32   output_nr)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !node)
    return -1;
  if (node->variable)
    return cr_run_recorder_tensor (self, node->variable);
  CrNodeEnd key = { node->sequence_nr, output_nr };
  int id = cr_run_recorder_lookup_id (r->output_ids, &key);
  if (id >= 0)
    return id;
  if (cr_run_recorder_lookup_id (r->op_ids, GSIZE_TO_POINTER (node->sequence_nr)) < 0)
    cr_run_recorder_op (self, node);
  return cr_run_recorder_lookup_id (r->output_ids, &key);
}

/* A Python number wrapped for the op (`x * 2`): it gets no record. Known
 * exactly when the op saved it; else a 0-d input of a dtype that only a
 * wrapped number would bring to a floating op. */
static gboolean
is_number_input (const CrNode        *node,
                 guint                i,
                 const CrSavedRecord *saved)
{
  if (saved && saved->known)
    return saved->is_number;
  const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
  if (!m || m->ndim != 0)
    return FALSE;
  CrDType out = node->n_outputs > 0 && node->output_meta ? node->output_meta[0].dtype : CR_DTYPE_FLOAT32;
  return m->dtype == CR_DTYPE_INT64 || m->dtype == CR_DTYPE_BOOL
         || (m->dtype == CR_DTYPE_FLOAT64 && out != CR_DTYPE_FLOAT64);
}

/* A saved tensor that needs no grad in the record. An unnamed view of a
 * named variable is that variable when a native made it (x.unsqueeze(0)
 * inside matmul is still x to the reader), itself when the script did,
 * called after the expression that gave it (probs[0]: the op read a row,
 * not probs). */
static int
saved_constant (CrRunRecorder *r,
                CrTensor      *t)
{
  CrTensor *base = t->view_base;
  if (t->name || !base || !base->name || base->grad_fn)
    return cr_run_recorder_tensor (r->interp, t);
  const CrAstNode *expr = cr_operand_watch_expr_of (r->operands, t);
  if (!expr)
    return cr_run_recorder_tensor (r->interp, base);
  int id = cr_run_recorder_tensor (r->interp, t);
  CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
  g_autofree char *text = rec && !rec->label ? cr_run_recorder_caption (r, &expr->span) : NULL;
  if (text)
    cr_run_recorder_label_unnamed (r, rec, text);
  return id;
}

/* The tensor of input i of node that has no edge (it gets no gradient): the
 * saved tensor when the op saved it, else the tensor the op read when small
 * and unchanged since, else a constant made from the input's metadata. -1
 * for a Python number. */
static int
edgeless_input (CrRunRecorder       *r,
                CrNode              *node,
                guint                i,
                const CrSavedRecord *saved)
{
  if (is_number_input (node, i, saved))
    return -1;
  CrTensor *t = saved && saved->known && !saved->is_output ? node->saved[saved->slot].tensor : NULL;
  if (t)
    return saved_constant (r, t);
  g_autoptr (CrTensor) read = cr_small_tensors_take_input (r->small, node->sequence_nr, i);
  if (read)
    return cr_run_recorder_tensor (r->interp, read);
  if (!room_for (r, r->record->tensors))
    return -1;
  CrRecordTensor *rec = cr_run_record_add_tensor (r->record);
  rec->origin = CR_RECORD_TENSOR_CONSTANT;
  const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
  if (m)
    fill_meta (rec, m->ndim, m->shape, m->dtype, m->device);
  return (int) rec->id;
}

/* Whether t, which requires no grad, has the shape of node's input i. */
static gboolean
fits_input (const CrNode   *node,
            guint           i,
            const CrTensor *t)
{
  const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
  if (!t || t->requires_grad || !m || m->ndim != t->ndim)
    return FALSE;
  for (int d = 0; d < m->ndim; d++)
    if (m->shape[d] != t->shape[d])
      return FALSE;
  return TRUE;
}

/* The tensor of input i of node, which has no edge and which the op did not
 * save (`w + d` with d detached), when node made the value of the
 * expression being recorded: that expression's operand in its place, or its
 * one operand that requires no grad and has the input's shape. -1: not
 * known. */
static int
operand_input (CrRunRecorder *r,
               CrNode        *node,
               guint          i)
{
  if (node != r->noting_node || !r->noting_expr)
    return -1;
  g_autoptr (GPtrArray) operands = cr_operand_watch_operands_of (r->operands, r->noting_expr);
  CrTensor *found = NULL;
  if (operands->len == node->n_inputs && fits_input (node, i, g_ptr_array_index (operands, i)))
    found = g_ptr_array_index (operands, i);
  else
    for (guint k = 0; k < operands->len; k++)
      {
        CrTensor *t = g_ptr_array_index (operands, k);
        if (!fits_input (node, i, t) || t == found)
          continue;
        if (found)   /* two candidates: which one is not known */
          return -1;
        found = t;
      }
  return found ? cr_run_recorder_tensor (r->interp, found) : -1;
}

/* The span of the in-place statement that gave t its current version. */
CrSpan
cr_run_recorder_modified_span (CrInterp       *self,
                               const CrTensor *t)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !t)
    return (CrSpan) { 0 };
  gconstpointer counter = t->version_counter ? (gconstpointer) t->version_counter
                                             : (gconstpointer) t->storage;
  const Change *change = g_hash_table_lookup (r->changes, counter);
  if (!change || change->version != cr_tensor_version (t))
    return (CrSpan) { 0 };
  return change->span;
}

/* A number the op keeps that is none of its inputs (x.pow(3)'s 3 times the
 * gradient in MulBackward1, addcmul's value): PyTorch keeps a Scalar there,
 * no saved tensor. x * 2's 2 is an input and a saved tensor in both. */
static gboolean
kept_as_number (const CrSavedRecord *s)
{
  return s->is_number && !s->is_output && s->input < 0;
}

static void
fill_op (CrRunRecorder *r,
         CrRecordOp    *op,
         CrNode        *node)
{
  CrInterp *self = r->interp;
  CrSavedRecord saved[CR_NODE_MAX_SAVED];
  guint n_saved = cr_node_describe_saved (node, saved);

  for (guint i = 0; i < node->n_inputs; i++)
    {
      const CrEdge *edge = &node->next[i];
      int id;
      if (edge->node && edge->node->variable)
        id = cr_run_recorder_tensor (self, edge->node->variable);
      else if (edge->node)
        {
          CrNodeEnd key = { edge->node->sequence_nr, edge->input_nr };
          if (cr_run_recorder_lookup_id (r->op_ids, GSIZE_TO_POINTER (edge->node->sequence_nr)) < 0)
            op_new (r, edge->node);
          id = cr_run_recorder_lookup_id (r->output_ids, &key);
        }
      else
        {
          const CrSavedRecord *match = NULL;
          for (guint k = 0; k < n_saved && !match; k++)
            if (saved[k].input == (int) i)
              match = &saved[k];
          id = (match && match->known) || is_number_input (node, i, match) ? -1
               : operand_input (r, node, i);
          if (id < 0)
            id = edgeless_input (r, node, i, match);
        }
      g_array_append_val (op->inputs, id);
      ValueSource *source = id >= 0 ? g_hash_table_lookup (r->value_sources, GINT_TO_POINTER (id)) : NULL;
      if (source)
        source->read = TRUE;
    }

  for (guint k = 0; k < n_saved; k++)
    {
      const CrSavedRecord *s = &saved[k];
      if (kept_as_number (s))
        continue;
      CrRecordSaved *rec = cr_record_op_add_saved (op);
      rec->name = s->name ? g_strdup (s->name) : g_strdup_printf ("saved%u", s->slot);
      rec->internal = s->internal;
      CrTensor *t = node->saved[s->slot].tensor;
      if (s->is_output)
        {
          guint32 out = node->saved[s->slot].output_nr;
          rec->tensor = out < op->outputs->len ? g_array_index (op->outputs, int, out) : -1;
          /* An output the script never held (inside nn.Linear) gets its
           * value from the op's own copy. */
          CrRecordTensor *made = cr_run_recorder_tensor_rec (r, rec->tensor);
          if (made && !made->value && t)
            take_value (r, made, t);
        }
      else if (s->input >= 0 && (guint) s->input < op->inputs->len)
        rec->tensor = g_array_index (op->inputs, int, s->input);
      /* Else a buffer of the op's own (max's indices): no tensor of the
       * script's, it stays -1. */
      if (s->known)
        {
          rec->ndim = s->ndim;
          memcpy (rec->shape, s->shape, sizeof (gint64) * (gsize) MAX (s->ndim, 0));
        }
      if (t)
        {
          rec->value = saved_value (r, cr_run_recorder_tensor_rec (r, rec->tensor), t,
                                    node->saved[s->slot].version);
          if (cr_tensor_version (t) != node->saved[s->slot].version)
            rec->modified_span = cr_run_recorder_modified_span (self, t);
        }
    }
}

/* One of a node's saved numbers into the op's arguments
 * (cr_torch_node_saved_numbers); a string or a tuple of non-ints is left out. */
static void
add_argument (const char *name,
              CrValue    *value,
              gpointer    data)
{
  CrRecordOp *op = data;
  CrRecordArgumentKind kind;
  double values[CR_MAX_DIMS];
  int n = 1;
  switch (value->kind)
    {
    case CR_VALUE_NONE:
      kind = CR_RECORD_ARGUMENT_NONE;
      n = 0;
      break;
    case CR_VALUE_BOOL:
      kind = CR_RECORD_ARGUMENT_BOOL;
      values[0] = value->u.b ? 1 : 0;
      break;
    case CR_VALUE_INT:
      kind = CR_RECORD_ARGUMENT_INT;
      values[0] = (double) value->u.i;
      break;
    case CR_VALUE_FLOAT:
      kind = CR_RECORD_ARGUMENT_FLOAT;
      values[0] = value->u.f;
      break;
    case CR_VALUE_TUPLE:
      kind = CR_RECORD_ARGUMENT_INTS;
      n = (int) value->u.seq.items->len;
      if (n > CR_MAX_DIMS)
        return;
      for (int i = 0; i < n; i++)
        {
          const CrValue *item = value->u.seq.items->pdata[i];
          if (item->kind != CR_VALUE_INT)
            return;
          values[i] = (double) item->u.i;
        }
      break;
    default:
      return;
    }
  CrRecordArgument *argument = cr_record_op_add_argument (op, name);
  argument->kind = kind;
  argument->n_values = n;
  memcpy (argument->values, values, sizeof (double) * (gsize) n);
}

/* A new op for node with its outputs (its inputs wait in r->pending). */
static int
op_new (CrRunRecorder *r,
        CrNode        *node)
{
  CrInterp *self = r->interp;
  /* An op comes with its outputs: room for both. */
  if (!room_for (r, r->record->ops)
      || r->record->tensors->len + node->n_outputs > CR_RUN_RECORD_MAX_ITEMS)
    {
      r->record->truncated = TRUE;
      return -1;
    }
  CrRecordOp *op = cr_run_record_add_op (r->record);
  cr_run_recorder_insert_id (r->op_ids, GSIZE_TO_POINTER (node->sequence_nr), (int) op->id);
  op->grad_fn = g_strdup (cr_node_name (node));
  if (node->custom_name)
    {
      op->custom_function = g_strdup (node->custom_name);
      char *suffix = g_strrstr (op->custom_function, "Backward");
      if (suffix && suffix != op->custom_function)
        *suffix = '\0';
    }
  else if (node->op)
    {
      op->symbol = g_strdup (node->op->symbol);
      op->rule = node->op->local_grad_text;
    }
  op->span = node->span;
  op->caption = cr_run_recorder_caption (r, &node->span);
  op->iteration = cr_interp_loop_iteration (self);
  CrLoopPath loops = cr_run_recorder_loop_path (self);
  op->loop_depth = loops.depth;
  memcpy (op->loop_path, loops.path, sizeof op->loop_path);
  /* The same op on the same line in the same iteration: numbered in the
   * order they ran, which an edited script keeps. Nested loops: "@2.3". */
  GString *key_text = g_string_new (NULL);
  g_string_printf (key_text, "op:%s:%s", op->grad_fn, op->caption ? op->caption : "");
  for (guint i = 0; i < loops.depth; i++)
    g_string_append_printf (key_text, i ? ".%u" : "@%u", loops.path[i]);
  g_autofree char *key = g_string_free (key_text, FALSE);
  guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (r->keys, key));
  op->key = seen ? g_strdup_printf ("%s#%u", key, seen + 1) : g_strdup (key);
  g_hash_table_insert (r->keys, g_steal_pointer (&key), GUINT_TO_POINTER (seen + 1));
  op->module_call = cr_run_recorder_module_call_of (self, node);
  cr_torch_node_saved_numbers (node, add_argument, op);

  for (guint32 o = 0; o < node->n_outputs; o++)
    {
      CrRecordTensor *rec = cr_run_record_add_tensor (r->record);
      rec->origin = CR_RECORD_TENSOR_RESULT;
      rec->op = (int) op->id;
      rec->output_nr = o;
      rec->requires_grad = TRUE;
      rec->span = node->span;
      if (node->output_meta)
        fill_meta (rec, node->output_meta[o].ndim, node->output_meta[o].shape,
                   node->output_meta[o].dtype, node->output_meta[o].device);
      /* A result the script never held (made inside a native): the values
       * its op made, when small. */
      g_autoptr (CrTensor) made = cr_small_tensors_take_output (r->small, node->sequence_nr, o);
      if (made && made->ndim == rec->ndim && cr_shape_equal (made->shape, made->ndim, rec->shape, rec->ndim))
        take_value (r, rec, made);
      CrNodeEnd *output_key = g_new (CrNodeEnd, 1);
      output_key->sequence_nr = node->sequence_nr;
      output_key->nr = o;
      cr_run_recorder_insert_id (r->output_ids, output_key, (int) rec->id);
      int id = (int) rec->id;
      g_array_append_val (op->outputs, id);
    }
  g_queue_push_tail (&r->pending, node);
  return (int) op->id;
}

int
cr_run_recorder_op (CrInterp *self,
                    CrNode   *node)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !node || node->variable)
    return -1;
  int id = cr_run_recorder_lookup_id (r->op_ids, GSIZE_TO_POINTER (node->sequence_nr));
  if (id >= 0)
    return id;
  id = op_new (r, node);
  /* The graph behind it, an explicit queue (graphs can be 45k nodes deep);
   * a walk already running (an edge-less input's tensor) fills the rest. */
  if (r->walking)
    return id;
  r->walking = TRUE;
  CrNode *next;
  while ((next = g_queue_pop_head (&r->pending)))
    {
      int op_id = cr_run_recorder_lookup_id (r->op_ids, GSIZE_TO_POINTER (next->sequence_nr));
      fill_op (r, g_ptr_array_index (r->record->ops, op_id), next);
    }
  r->walking = FALSE;
  return id;
}

void
cr_run_recorder_refresh_op (CrInterp *self,
                            CrNode   *node)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !node || node->variable)
    return;
  int id = cr_run_recorder_lookup_id (r->op_ids, GSIZE_TO_POINTER (node->sequence_nr));
  if (id < 0)
    return;
  CrRecordOp *op = g_ptr_array_index (r->record->ops, id);
  CrSavedRecord saved[CR_NODE_MAX_SAVED];
  guint n_saved = cr_node_describe_saved (node, saved);
  for (guint k = 0, kept = 0; k < n_saved && kept < op->saved->len; k++)
    {
      if (kept_as_number (&saved[k]))   /* not in the record */
        continue;
      CrRecordSaved *rec = g_ptr_array_index (op->saved, kept++);
      const CrTensor *t = node->saved[saved[k].slot].tensor;
      if (t && cr_tensor_version (t) != node->saved[saved[k].slot].version)
        {
          CrSpan span = cr_run_recorder_modified_span (self, t);
          if (span.line > 0)
            rec->modified_span = span;
          g_array_append_val (r->stale_ops, id);
        }
    }
}

void
cr_run_recorder_backward_begin (CrInterp        *self,
                                CrTensor *const *roots,
                                guint            n_roots)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r)
    return;
  cr_run_recorder_settle_bumps (r);
  g_array_set_size (r->stale_ops, 0);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  GQueue queue = G_QUEUE_INIT;
  for (guint i = 0; i < n_roots; i++)
    if (roots[i])
      {
        cr_run_recorder_tensor (self, roots[i]);
        if (roots[i]->grad_fn && g_hash_table_add (seen, roots[i]->grad_fn))
          g_queue_push_tail (&queue, roots[i]->grad_fn);
      }
  CrNode *node;
  while ((node = g_queue_pop_head (&queue)))
    {
      cr_run_recorder_refresh_op (self, node);
      for (guint i = 0; i < node->n_inputs; i++)
        {
          CrNode *next = node->next[i].node;
          if (next && !next->variable && g_hash_table_add (seen, next))
            g_queue_push_tail (&queue, next);
        }
    }
}

/* ---- tensors ---------------------------------------------------------------- */

int
cr_run_recorder_tensor (CrInterp *self,
                        CrTensor *t)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !t)
    return -1;
  if (t->grad_fn)
    {
      int id = cr_run_recorder_output (self, t->grad_fn, t->output_nr);
      if (id >= 0)
        {
          CrRecordTensor *rec = g_ptr_array_index (r->record->tensors, id);
          if (!rec->value)
            fill_from_tensor (r, rec, t);
          rec->retains_grad |= t->retains_grad;
        }
      return id;
    }
  guint64 serial = cr_run_recorder_serial (r, t, TRUE);
  int id = cr_run_recorder_lookup_id (r->serial_ids, GSIZE_TO_POINTER (serial));
  if (id >= 0)
    {
      CrRecordTensor *known = cr_run_recorder_tensor_rec (r, id);
      known->retains_grad |= t->retains_grad;
      /* x.requires_grad_() after an op used x as a constant. */
      if (t->requires_grad && !known->requires_grad)
        {
          known->requires_grad = TRUE;
          if (known->origin == CR_RECORD_TENSOR_CONSTANT)
            known->origin = CR_RECORD_TENSOR_LEAF;
        }
      return id;
    }
  if (!room_for (r, r->record->tensors))
    return -1;
  CrRecordTensor *rec = cr_run_record_add_tensor (r->record);
  cr_run_recorder_insert_id (r->serial_ids, GSIZE_TO_POINTER (serial), (int) rec->id);
  const CrTensorProvenance *p = g_hash_table_lookup (r->provenance, GSIZE_TO_POINTER (serial));
  if (t->requires_grad)
    rec->origin = CR_RECORD_TENSOR_LEAF;
  else if (p)
    {
      rec->origin = p->origin;
      rec->source = p->source;
      rec->region = p->region;
    }
  else
    rec->origin = CR_RECORD_TENSOR_CONSTANT;
  /* Its span is where the script first held it (note_value, a binding);
   * reached through the graph (a module's parameter), it has none here. */
  const CrTensorBinding *b = g_hash_table_lookup (r->bindings, GSIZE_TO_POINTER (serial));
  if (b)
    {
      cr_run_recorder_set_name (rec, b->name, &b->loops);
      rec->span = b->span;
    }
  fill_from_tensor (r, rec, t);
  return (int) rec->id;
}

/* ---- in-place changes ------------------------------------------------------- */

static void
bump_clear (gpointer data)
{
  Bump *b = data;
  cr_tensor_unref (b->tensor);
}

/* The ops that changed tensors in place since the last look: a tensor whose
 * history moved to a new node was changed by that node's op. */
void
cr_run_recorder_settle_bumps (CrRunRecorder *r)
{
  if (r->bumps->len == 0)
    return;
  /* Taken first: recording an op may snapshot, and a snapshot may bump. */
  g_autoptr (GArray) bumps = r->bumps;
  r->bumps = g_array_new (FALSE, FALSE, sizeof (Bump));
  g_array_set_clear_func (r->bumps, bump_clear);
  for (guint i = 0; i < bumps->len; i++)
    {
      Bump *b = &g_array_index (bumps, Bump, i);
      CrNode *node = b->tensor->grad_fn;
      if (!node || node->sequence_nr == b->grad_fn_sequence_nr)
        continue;
      int id = cr_run_recorder_op (r->interp, node);
      if (id >= 0)
        ((CrRecordOp *) g_ptr_array_index (r->record->ops, id))->in_place = TRUE;
    }
}

/* An in-place write outside autograd to a leaf (under no_grad, nn.init) or
 * to its .data or detach() alias, before any recorded op read the leaf: the
 * leaf's initialisation (w.data.normal_(0, 0.01), b.data.fill_(0)). Its
 * recorded value becomes what the forward reads from then on. (A write to
 * part of it goes through a view: version_bumped refreshes the view's base
 * too.) */
static void
refresh_leaf_value (CrRunRecorder *r,
                    CrTensor      *t)
{
  guint64 serial = t->grad_fn ? 0 : cr_run_recorder_serial (r, t, FALSE);
  if (serial == 0)
    return;
  int id;
  if (t->requires_grad)
    id = cr_grad_mode_is_enabled () ? -1 : cr_run_recorder_lookup_id (r->serial_ids, GSIZE_TO_POINTER (serial));
  else
    {
      const CrTensorProvenance *p = g_hash_table_lookup (r->provenance, GSIZE_TO_POINTER (serial));
      id = p && p->origin == CR_RECORD_TENSOR_DETACHED ? p->source : -1;
    }
  CrRecordTensor *rec = id >= 0 ? cr_run_recorder_tensor_rec (r, id) : NULL;
  ValueSource *source = rec ? g_hash_table_lookup (r->value_sources, GINT_TO_POINTER (id)) : NULL;
  if (!source || rec->origin != CR_RECORD_TENSOR_LEAF || !rec->value
      || source->storage != (gconstpointer) t->storage || source->offset != t->offset)
    return;
  if (!source->read && rec->ndim == t->ndim && cr_shape_equal (rec->shape, rec->ndim, t->shape, t->ndim))
    {
      r->values_left += rec->value->n_values;
      cr_tensor_snapshot_free (rec->value);
      take_value (r, rec, t);
      source = g_hash_table_lookup (r->value_sources, GINT_TO_POINTER (id));
    }
  /* An alias counts its versions apart from the leaf's: the leaf's version
   * no longer tells whether its data is still the snapshot's, so no saved
   * tensor shares the snapshot. */
  if (!t->requires_grad)
    source->version = G_MAXUINT32;
}

static void
version_bumped (CrTensor *t,
                gpointer  user_data)
{
  CrRunRecorder *r = user_data;
  gpointer counter = t->version_counter ? (gpointer) t->version_counter : (gpointer) t->storage;
  Change *change = g_hash_table_lookup (r->changes, counter);
  if (!change)
    {
      change = g_new0 (Change, 1);
      g_hash_table_insert (r->changes, counter, change);
    }
  change->span = cr_run_recorder_current_span (r->interp);
  change->version = cr_tensor_version (t);
  /* Only while recording can the change get a node of its own (x[0] = w
   * gives x, which needed no grad, a CopySlices node). */
  if (cr_grad_mode_is_enabled () && r->bumps->len < 4096)
    {
      Bump b = { cr_tensor_ref (t), t->grad_fn ? t->grad_fn->sequence_nr : G_MAXUINT64 };
      g_array_append_val (r->bumps, b);
    }
  refresh_leaf_value (r, t);
  if (t->view_base && !t->grad_fn)
    refresh_leaf_value (r, t->view_base);
  if (G_UNLIKELY (r->coach))
    cr_coach_watch_bump (r->interp, t);
  cr_training_watch_bump (r->interp, t);
}

/* ---- regions ---------------------------------------------------------------- */

void
cr_run_recorder_region_enter (CrInterp          *self,
                              CrRecordRegionKind kind)
{
  cr_run_recorder_region_enter_at (self, kind, NULL);
}

void
cr_run_recorder_region_enter_at (CrInterp          *self,
                                 CrRecordRegionKind kind,
                                 const CrSpan      *span)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r)
    return;
  /* torch.nn's own code (init under no_grad) is no region of the script's;
   * its place on the stack keeps enter and exit paired. */
  if (self->in_prelude)
    {
      int none = -1;
      g_array_append_val (r->open_regions, none);
      return;
    }
  CrRecordRegion *region = cr_run_record_add_region (r->record);
  g_array_append_val (r->region_calls, r->record->module_calls->len);
  region->kind = kind;
  region->span = span && span->line > 0 ? *span : cr_run_recorder_current_span (self);
  region->iteration = cr_interp_loop_iteration (self);
  region->loop_depth = cr_interp_loop_path (self, region->loop_path, CR_RECORD_MAX_LOOP_PATH);
  int id = (int) region->id;
  g_array_append_val (r->open_regions, id);
}

void
cr_run_recorder_region_exit (CrInterp *self)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (r && r->open_regions->len > 0)
    g_array_set_size (r->open_regions, r->open_regions->len - 1);
}

void
cr_run_recorder_grad_enabled (CrInterp *self,
                              gboolean  enabled)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || self->in_prelude)
    return;
  if (!enabled && r->disabled_region < 0)
    {
      CrRecordRegion *region = cr_run_record_add_region (r->record);
      g_array_append_val (r->region_calls, r->record->module_calls->len);
      region->kind = CR_RECORD_REGION_GRAD_DISABLED;
      region->span = cr_run_recorder_current_span (self);
      region->iteration = cr_interp_loop_iteration (self);
      region->loop_depth = cr_interp_loop_path (self, region->loop_path,
                                                CR_RECORD_MAX_LOOP_PATH);
      r->disabled_region = (int) region->id;
    }
  else if (enabled && r->disabled_region >= 0)
    {
      /* The region runs to the statement that turns recording back on. */
      CrRecordRegion *region = g_ptr_array_index (r->record->regions, r->disabled_region);
      CrSpan end = cr_run_recorder_current_span (self);
      if (end.line > 0)
        {
          region->span.end_line = end.end_line;
          region->span.end_column = end.end_column;
        }
      r->disabled_region = -1;
    }
}

/* ---- the run ---------------------------------------------------------------- */

/* The small tensors an op made or read without an edge: kept until the
 * op is recorded, while the snapshots' budget has room. */
static void
node_made (CrNode          *node,
           CrTensor *const *inputs,
           guint            n_inputs,
           gpointer         user_data)
{
  CrRunRecorder *r = user_data;
  if (r->values_left > 0)
    cr_small_tensors_note_inputs (r->small, node->sequence_nr, inputs, n_inputs);
}

static void
history_set (CrTensor *out,
             CrNode   *node,
             guint32   output_nr,
             gpointer  user_data)
{
  CrRunRecorder *r = user_data;
  if (r->values_left > 0)
    cr_small_tensors_note_output (r->small, out, node->sequence_nr, output_nr);
}

static const CrGraphObserver graph_observer = { node_made, history_set };

void
cr_run_recorder_free (CrRunRecorder *r)
{
  if (!r)
    return;
  if (r->interp)
    {
      cr_tensor_set_version_observer (NULL, NULL);
      cr_autograd_set_graph_observer (NULL, NULL);
    }
  cr_run_record_unref (r->record);
  g_hash_table_unref (r->serial_ids);
  g_hash_table_unref (r->output_ids);
  g_hash_table_unref (r->op_ids);
  g_hash_table_unref (r->provenance);
  g_hash_table_unref (r->bindings);
  g_hash_table_unref (r->changes);
  g_hash_table_unref (r->hints);
  g_hash_table_unref (r->source_hints);
  g_array_unref (r->open_regions);
  g_array_unref (r->region_calls);
  g_array_unref (r->bumps);
  g_array_unref (r->stale_ops);
  g_hash_table_unref (r->keys);
  g_hash_table_unref (r->value_sources);
  cr_operand_watch_free (r->operands);
  cr_snapshot_cache_free (r->snapshots);
  cr_small_tensors_free (r->small);
  g_hash_table_unref (r->captions);
  cr_coach_watch_free (r->coach);
  cr_training_watch_free (r->training);
  g_queue_clear (&r->pending);
  g_free (r);
}

void
cr_run_recorder_run_begin (CrInterp *self)
{
  CrTorchState *state = cr_torch_state (self);
  g_clear_pointer (&state->recorder, cr_run_recorder_free);
  if (!self->options.record_backward)
    return;
  CrRunRecorder *r = g_new0 (CrRunRecorder, 1);
  r->interp = self;
  r->record = cr_run_record_new (self->module ? self->module->filename : NULL,
                                 self->module ? self->module->source : NULL);
  /* A notebook's cells go with the record: its texts name a line by its cell. */
  for (guint i = 0; i < self->n_cells; i++)
    cr_run_record_add_cell (r->record, self->cells[i].number, self->cells[i].first_line,
                            self->cells[i].last_line);
  r->values_left = RECORD_MAX_VALUES;
  r->snapshots = cr_snapshot_cache_new ();
  r->small = cr_small_tensors_new ();
  r->captions = g_hash_table_new_full (span_hash, span_equal, g_free, g_free);
  r->serial_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->output_ids = g_hash_table_new_full (cr_node_end_hash, cr_node_end_equal, g_free, NULL);
  r->op_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->provenance = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  r->bindings = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, cr_tensor_binding_free);
  r->changes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  r->hints = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->source_hints = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->open_regions = g_array_new (FALSE, FALSE, sizeof (int));
  r->region_calls = g_array_new (FALSE, FALSE, sizeof (guint));
  r->disabled_region = -1;
  r->bumps = g_array_new (FALSE, FALSE, sizeof (Bump));
  g_array_set_clear_func (r->bumps, bump_clear);
  g_queue_init (&r->pending);
  r->stale_ops = g_array_new (FALSE, FALSE, sizeof (int));
  r->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->value_sources = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  r->operands = cr_operand_watch_new ();
  if (self->options.coach)
    r->coach = cr_coach_watch_new ();
  r->training = cr_training_watch_new ();
  state->recorder = r;
  cr_tensor_set_version_observer (version_bumped, r);
  cr_autograd_set_graph_observer (&graph_observer, r);
}

/* A tensor's label when the script never named it: the expression that made
 * it, else its op's name ("[MulBackward0]"). */
static void
fill_missing_labels (CrRunRecorder *r)
{
  for (guint i = 0; i < r->record->tensors->len; i++)
    {
      CrRecordTensor *t = g_ptr_array_index (r->record->tensors, i);
      if (t->label)
        continue;
      if (t->origin == CR_RECORD_TENSOR_RESULT && t->op >= 0)
        {
          const CrRecordOp *op = g_ptr_array_index (r->record->ops, t->op);
          g_autofree char *name = t->output_nr ? g_strdup_printf ("[%s:%u]", op->grad_fn, t->output_nr)
                                               : g_strdup_printf ("[%s]", op->grad_fn);
          CrLoopPath loops = op_loops (r, t);
          set_loops (t, &loops);
          t->label = label_with_iteration (name, &loops);
        }
      else if (t->origin == CR_RECORD_TENSOR_LEAF)
        t->label = g_strdup ("leaf");
    }
}

void
cr_run_recorder_run_end (CrInterp *self)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r)
    return;
  cr_run_recorder_settle_bumps (r);
  /* The graph behind what the script's variables hold at the end, and what
   * changed in place since it was recorded. */
  for (guint g = 0; g < self->n_globals; g++)
    {
      CrValue *v = self->globals[g].value;
      if (!v || v->kind != CR_VALUE_TENSOR)
        continue;
      CrTensor *t = v->u.tensor;
      /* A constant is in the record when an op used it. */
      if (!t->requires_grad)
        continue;
      cr_run_recorder_tensor (self, t);
      if (t->grad_fn)
        cr_run_recorder_refresh_op (self, t->grad_fn);
    }
  if (self->run_error)
    cr_run_recorder_run_error (r, self->run_error);
  fill_missing_labels (r);
  cr_training_watch_run_end (self);
  if (r->coach)
    cr_coach_examine (r->record, cr_coach_watch_notes (r->coach));
  g_array_set_size (r->bumps, 0);
  g_array_set_size (r->open_regions, 0);
  g_hash_table_remove_all (r->hints);
  g_hash_table_remove_all (r->source_hints);
  cr_operand_watch_clear (r->operands);
  cr_small_tensors_clear (r->small);
  cr_tensor_set_version_observer (NULL, NULL);
  cr_autograd_set_graph_observer (NULL, NULL);
  r->interp = NULL;
}
