/* test-record-wire.c — the run record's wire format: a record sent as bytes
 * and read back is the same record (its JSON, byte for byte), for a
 * hand-built record that sets every field and for the records of every
 * script the record suite runs and every example; shared snapshots stay
 * shared and deferred texts deferred; truncated, corrupted and made-up
 * messages give an error or a record whose indices all hold, never a
 * crash. With --bench: how fast the big examples go through. */
#include "cr-interp.h"
#include "record-test-util.h"
#include "cr-op-table.h"
#include "cr-run-record-json.h"
#include "cr-run-record-wire.h"
#include "cr-tensor.h"

#include <glib/gstdio.h>
#include <string.h>
#include <time.h>

/* Runs the script at path recording; the record, also when it failed. */
/* The record of the script at path; it may fail part way. */
static CrRunRecord *
record_file (const char *path)
{
  gboolean ran;
  return record_test_run_file (path, &ran);
}

static CrRunRecord *
round_trip (const CrRunRecord *record)
{
  g_autoptr (GBytes) wire = cr_run_record_to_wire (record);
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  gsize total = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_run_record_wire_size (data, len, &total, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (total, ==, len);
  CrRunRecord *back = cr_run_record_from_wire (data, len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  return back;
}

/* ---- walking every snapshot ------------------------------------------------------ */

typedef void (*SnapshotFunc) (const CrTensorSnapshot *s, gpointer data);

static void
each_snapshot (const CrRunRecord *r,
               SnapshotFunc       func,
               gpointer           data)
{
#define VISIT(s) G_STMT_START { if (s) func ((s), data); } G_STMT_END
  for (guint i = 0; i < r->tensors->len; i++)
    VISIT (((CrRecordTensor *) r->tensors->pdata[i])->value);
  for (guint i = 0; i < r->ops->len; i++)
    {
      const CrRecordOp *op = r->ops->pdata[i];
      for (guint k = 0; k < op->saved->len; k++)
        VISIT (((CrRecordSaved *) op->saved->pdata[k])->value);
    }
  for (guint b = 0; b < r->backwards->len; b++)
    {
      const CrRecordBackward *bw = r->backwards->pdata[b];
      for (guint k = 0; k < bw->steps->len; k++)
        {
          const CrRecordStep *step = bw->steps->pdata[k];
          for (guint i = 0; i < step->hooks->len; i++)
            {
              const CrRecordHookCall *h = step->hooks->pdata[i];
              VISIT (h->before);
              VISIT (h->after);
            }
          for (guint i = 0; i < step->incoming->len; i++)
            VISIT (((CrRecordGrad *) step->incoming->pdata[i])->value);
          for (guint i = 0; i < step->inputs->len; i++)
            {
              const CrRecordStepInput *in = step->inputs->pdata[i];
              VISIT (in->local);
              VISIT (in->product);
              VISIT (in->outgoing.value);
            }
          for (guint i = 0; i < step->accumulations->len; i++)
            {
              const CrRecordAccumulation *a = step->accumulations->pdata[i];
              VISIT (a->contribution);
              VISIT (a->sum);
            }
          VISIT (step->grad_before);
          VISIT (step->grad_after);
        }
      for (guint i = 0; i < bw->root_grads->len; i++)
        VISIT (((CrRecordGrad *) bw->root_grads->pdata[i])->value);
      for (guint i = 0; i < bw->root_accumulations->len; i++)
        {
          const CrRecordAccumulation *a = bw->root_accumulations->pdata[i];
          VISIT (a->contribution);
          VISIT (a->sum);
        }
    }
  for (guint u = 0; u < r->updates->len; u++)
    {
      const CrRecordUpdate *update = r->updates->pdata[u];
      VISIT (update->grad);
      VISIT (update->before);
      VISIT (update->after);
      for (guint i = 0; i < update->state->len; i++)
        {
          const CrRecordOptimState *state = update->state->pdata[i];
          VISIT (state->before);
          VISIT (state->after);
        }
    }
#undef VISIT
}

typedef struct {
  guint       references;
  GHashTable *distinct;
  guint       deferred;   /* distinct snapshots whose text is still to be formatted */
  gsize       text_bytes; /* the texts of the distinct others */
  gsize       values;     /* the values kept by the distinct ones */
} SnapshotCount;

static void
count_snapshot (const CrTensorSnapshot *s,
                gpointer                data)
{
  SnapshotCount *c = data;
  c->references++;
  if (!g_hash_table_add (c->distinct, (gpointer) s))
    return;
  if (s->text_deferred && !s->text)
    c->deferred++;
  else if (s->text)
    c->text_bytes += strlen (s->text);
  c->values += (gsize) s->n_values;
}

static SnapshotCount
count_snapshots (const CrRunRecord *r)
{
  SnapshotCount c = { 0, g_hash_table_new (NULL, NULL), 0, 0, 0 };
  each_snapshot (r, count_snapshot, &c);
  return c;
}

/* The same shape of sharing, the same deferred texts; then the same JSON. */
static void
assert_same_record (const CrRunRecord *record,
                    const CrRunRecord *back)
{
  SnapshotCount a = count_snapshots (record), b = count_snapshots (back);
  g_assert_cmpuint (a.references, ==, b.references);
  g_assert_cmpuint (g_hash_table_size (a.distinct), ==, g_hash_table_size (b.distinct));
  g_assert_cmpuint (a.deferred, ==, b.deferred);
  g_hash_table_unref (a.distinct);
  g_hash_table_unref (b.distinct);

  gsize len_a, len_b;
  g_autofree char *json_a = cr_run_record_to_json (record, &len_a);
  g_autofree char *json_b = cr_run_record_to_json (back, &len_b);
  g_assert_cmpuint (len_a, ==, len_b);
  g_assert_true (memcmp (json_a, json_b, len_a) == 0);
}

/* ---- a hand-built record ---------------------------------------------------------- */

static CrTensorSnapshot *
snapshot_of (const float *values,
             gint64       n,
             gboolean     deferred)
{
  g_autoptr (CrTensor) t = cr_tensor_new_from_data (values, &n, 1, CR_DTYPE_FLOAT32, NULL);
  return deferred ? cr_tensor_snapshot_new_deferred (t, CR_SNAPSHOT_MAX_VALUES)
                  : cr_tensor_snapshot_new (t);
}

/* Doubles that no float32 holds: they travel as doubles. */
static CrTensorSnapshot *
snapshot_of_thirds (void)
{
  double d[3] = { 1.0 / 3.0, -2.0, 1e300 };
  gint64 n = 3;
  g_autoptr (CrTensor) t = cr_tensor_new_from_data (d, &n, 1, CR_DTYPE_FLOAT64, NULL);
  return cr_tensor_snapshot_new_deferred (t, CR_SNAPSHOT_MAX_VALUES);
}

static CrSpan
span (int line)
{
  return (CrSpan) { line, 2, line, 9 };
}

/* A record with every field of every item set, every enum value used,
 * shared snapshots, NULL strings and snapshots, a reduction. */
static CrRunRecord *
full_record (void)
{
  float v[3] = { 1.5f, -0.0f, 3.25f };
  CrRunRecord *r = cr_run_record_new ("full.py", "x = 1\ny = 2\n");
  CrTensorSnapshot *shared = snapshot_of (v, 3, TRUE);
  for (int origin = 0; origin <= CR_RECORD_TENSOR_DETACHED; origin++)
    {
      CrRecordTensor *t = cr_run_record_add_tensor (r);
      t->name = origin ? g_strdup_printf ("t%d", origin) : NULL;
      t->iteration = (guint) origin;
      t->label = g_strdup ("y₂,₃");
      t->module_path = origin == 1 ? g_strdup ("fc1.weight") : NULL;
      t->origin = (CrRecordTensorOrigin) origin;
      t->op = origin == CR_RECORD_TENSOR_RESULT ? 0 : -1;
      t->output_nr = (guint) origin % 2;
      t->source = origin == CR_RECORD_TENSOR_DETACHED ? 1 : -1;
      t->region = origin == CR_RECORD_TENSOR_NO_GRAD ? 0 : -1;
      t->span = span (origin + 1);
      t->ndim = origin;
      for (int d = 0; d < origin; d++)
        t->shape[d] = d + 2;
      t->dtype = g_strdup ("torch.float32");
      t->device = g_strdup ("cpu");
      t->requires_grad = origin % 2;
      t->retains_grad = origin == 2;
      t->value = origin == 0 ? NULL : origin == 1 ? snapshot_of (v, 2, FALSE)
                                                 : cr_tensor_snapshot_share (shared);
      t->loop_depth = (guint) origin;
      for (int d = 0; d < origin; d++)
        t->loop_path[d] = (guint) d + 1;
    }
  CrRecordOp *op = cr_run_record_add_op (r);
  op->grad_fn = g_strdup ("MulBackward0");
  op->symbol = g_strdup ("×");
  op->caption = g_strdup ("b = w1*a");
  op->span = span (2);
  op->key = g_strdup ("op:MulBackward0:b = w1*a");
  int inputs[2] = { 0, -1 }, outputs[1] = { 1 };
  g_array_append_vals (op->inputs, inputs, 2);
  g_array_append_vals (op->outputs, outputs, 1);
  op->module_call = 1;
  op->iteration = 3;
  op->custom_function = g_strdup ("MyReLU");
  op->in_place = TRUE;
  op->rule = cr_op_info (CR_OP_MUL)->local_grad_text;
  CrRecordSaved *saved = cr_record_op_add_saved (op);
  saved->name = g_strdup ("self");
  saved->tensor = 0;
  saved->ndim = 1;
  saved->shape[0] = 3;
  saved->value = cr_tensor_snapshot_share (shared);
  saved->freed_backward = 0;
  saved->freed_step = 1;
  saved->modified_span = span (5);
  saved->internal = TRUE;
  cr_record_op_add_saved (op);
  op->loop_depth = 2;
  op->loop_path[0] = 1;
  op->loop_path[1] = 3;
  CrRecordArgument *dims = cr_record_op_add_argument (op, "dim");
  dims->kind = CR_RECORD_ARGUMENT_INTS;
  dims->n_values = 2;
  dims->values[0] = 0;
  dims->values[1] = 2;
  CrRecordArgument *eps = cr_record_op_add_argument (op, "eps");
  eps->kind = CR_RECORD_ARGUMENT_FLOAT;
  eps->n_values = 1;
  eps->values[0] = 1e-5;
  cr_record_op_add_argument (op, "divisor_override");   /* None */
  cr_run_record_add_op (r);   /* every field at its default */

  CrRecordModuleCall *model = cr_run_record_add_module_call (r);
  model->path = g_strdup ("");
  model->class_name = g_strdup ("MLP");
  model->span = span (7);
  CrRecordModuleCall *fc1 = cr_run_record_add_module_call (r);
  fc1->path = g_strdup ("fc1");
  fc1->class_name = g_strdup ("Linear");
  fc1->parent = 0;
  fc1->depth = 1;
  fc1->iteration = 2;
  fc1->user_class = TRUE;
  fc1->loop_depth = 2;
  fc1->loop_path[0] = 4;
  fc1->loop_path[1] = 2;
  for (int kind = 0; kind <= CR_RECORD_REGION_INFERENCE; kind++)
    {
      CrRecordRegion *region = cr_run_record_add_region (r);
      region->kind = (CrRecordRegionKind) kind;
      region->span = span (kind + 3);
      region->iteration = (guint) kind;
      region->loop_depth = kind == 2 ? 1 : 0;
      region->loop_path[0] = region->loop_depth ? 7 : 0;
    }

  for (int kind = 0; kind <= CR_RECORD_BACKWARD_GRAD; kind++)
    {
      CrRecordBackward *bw = cr_run_record_add_backward (r);
      bw->kind = (CrRecordBackwardKind) kind;
      bw->title = g_strdup ("loss.backward() · line 23");
      bw->span = span (23);
      bw->iteration = 4;
      int root = 1;
      g_array_append_val (bw->roots, root);
      bw->root_name = g_strdup ("L");
      bw->retain_graph = kind == 0;
      bw->create_graph = kind == 1;
      bw->succeeded = kind == 0;
      bw->error = kind == 1 ? 0 : -1;
      bw->loop_depth = CR_RECORD_MAX_LOOP_PATH;
      for (int d = 0; d < CR_RECORD_MAX_LOOP_PATH; d++)
        bw->loop_path[d] = (guint) (d + kind + 1);
      CrRecordStep *node = cr_record_backward_add_step (bw);
      node->kind = CR_RECORD_STEP_NODE;
      node->op = 0;
      node->title = g_strdup ("MulBackward0");
      node->caption = g_strdup ("b = w1*a, line 13");
      for (int hk = 0; hk <= CR_RECORD_HOOK_MODULE; hk++)
        {
          CrRecordHookCall *hook = cr_record_step_add_hook (node);
          hook->kind = (CrRecordHookKind) hk;
          hook->tensor = hk;
          hook->function = hk ? g_strdup ("<lambda>") : NULL;
          hook->span = span (16);
          hook->before = cr_tensor_snapshot_share (shared);
          hook->after = hk == 2 ? NULL : hk == 0 ? snapshot_of_thirds () : snapshot_of (v + 1, 2, TRUE);
          hook->raised = hk == 2;
        }
      CrRecordGrad *incoming = cr_record_step_add_incoming (node);
      incoming->name = g_strdup ("∂L/∂b");
      incoming->tensor = 1;
      incoming->value = cr_tensor_snapshot_share (shared);
      cr_record_step_add_incoming (node);
      /* A rule no op has: it travels by its text all the same. */
      node->rule = kind == 0 ? cr_op_info (CR_OP_MUL)->local_grad_text : "∂(made up)/∂x = 1";
      node->custom_backward = g_strdup ("MyReLU.backward");
      node->custom_span = span (15);
      CrRecordStepInput *in = cr_record_step_add_input (node);
      in->tensor = 0;
      in->to_op = 1;
      in->to_leaf = 0;
      in->name = g_strdup ("w1");
      in->local_name = g_strdup ("∂b/∂w1");
      in->local = snapshot_of (v, 3, FALSE);
      in->product = cr_tensor_snapshot_share (shared);
      in->reduction = g_new0 (CrRecordReduction, 1);
      in->reduction->n_dims = 1;
      in->reduction->dims[0] = 0;
      in->reduction->from_ndim = 2;
      in->reduction->from_shape[0] = 2;
      in->reduction->from_shape[1] = 3;
      in->reduction->to_ndim = 1;
      in->reduction->to_shape[0] = 3;
      in->outgoing.name = g_strdup ("∂L/∂w1");
      in->outgoing.tensor = 0;
      in->outgoing.value = cr_tensor_snapshot_share (shared);
      cr_record_step_add_input (node);
      CrRecordAccumulation *acc = cr_record_step_add_accumulation (node);
      acc->name = g_strdup ("∂L/∂a");
      acc->tensor = 2;
      acc->to_op = 0;
      acc->contribution = snapshot_of (v, 1, TRUE);
      acc->sum = cr_tensor_snapshot_share (shared);
      CrRecordStep *leaf = cr_record_backward_add_step (bw);
      leaf->kind = CR_RECORD_STEP_ACCUMULATE;
      leaf->leaf = 0;
      leaf->title = g_strdup ("AccumulateGrad");
      leaf->caption = g_strdup ("w1");
      leaf->grad_after = cr_tensor_snapshot_share (shared);
      leaf->failed = kind == 1;
      if (kind == 1)
        {
          CrRecordGrad *root_grad = cr_record_backward_add_root_grad (bw);
          root_grad->name = g_strdup ("∂L/∂L");
          root_grad->tensor = 1;
          root_grad->value = cr_tensor_snapshot_share (shared);
          cr_record_backward_add_root_grad (bw);
          CrRecordAccumulation *sum = cr_record_backward_add_root_accumulation (bw);
          sum->name = g_strdup ("∂L/∂y");
          sum->tensor = 1;
          sum->to_op = 0;
          sum->contribution = snapshot_of (v, 2, TRUE);
          sum->sum = cr_tensor_snapshot_share (shared);
        }
    }

  CrRecordError *err = cr_run_record_add_error (r);
  err->type = g_strdup ("RuntimeError");
  err->message = g_strdup ("one of the variables needed for gradient computation has been "
                           "modified by an inplace operation\n\"quoted\"\t");
  err->span = span (30);
  err->op = 0;
  err->backward = 1;
  err->step = 0;
  err->tensor = 2;
  err->culprit_span = span (28);
  int operands[2] = { 0, 3 };
  g_array_append_vals (err->operands, operands, 2);
  cr_run_record_add_error (r);
  r->truncated = TRUE;
  CrRecordFinding *finding = cr_run_record_add_finding (r);
  finding->kind = g_strdup ("zero-grad-forgotten");
  finding->span = span (31);
  finding->op = 0;
  finding->tensor = 1;
  finding->backward = 1;
  finding->title = g_strdup ("gradients add up over iterations");
  finding->explanation = g_strdup ("w.grad was 2 after the first backward\nand 4 after the second.");
  finding->fix_span = span (32);
  finding->fix = g_strdup ("    optimizer.zero_grad()\n");
  cr_run_record_add_finding (r);
  CrRecordUpdate *update = cr_run_record_add_update (r);
  update->kind = CR_RECORD_UPDATE_OPTIMIZER;
  update->optimizer = g_strdup ("Adam");
  update->optimizer_id = 1;
  update->step = 2;
  update->group = 1;
  update->tensor = 0;
  update->name = g_strdup ("w1");
  update->span = span (33);
  update->backward = 1;
  update->iteration = 2;
  update->loop_depth = 1;
  update->loop_path[0] = 2;
  cr_record_update_add_number (update, "lr", 0.1);
  cr_record_update_add_number (update, "beta2", 0.999);
  update->grad = cr_tensor_snapshot_share (shared);
  update->before = snapshot_of (v, 3, FALSE);
  update->after = snapshot_of (v, 2, TRUE);
  CrRecordOptimState *state = cr_record_update_add_state (update, "exp_avg");
  state->before = snapshot_of (v, 1, FALSE);
  state->after = cr_tensor_snapshot_share (shared);
  cr_record_update_add_state (update, "step");
  CrRecordUpdate *manual = cr_run_record_add_update (r);
  manual->kind = CR_RECORD_UPDATE_MANUAL;
  CrRecordPrinted *printed = cr_run_record_add_printed (r, "loss", 0.1778);
  printed->span = span (34);
  printed->backward = 1;
  printed->iteration = 2;
  cr_run_record_add_cell (r, 1, 2, 9);
  cr_run_record_add_cell (r, 3, 11, 40);
  cr_tensor_snapshot_free (shared);
  return r;
}

/* A field added to a record struct must travel too (cr-run-record-wire.c)
 * and be set in full_record(): the sizes say when one was added. A field
 * that fits in padding escapes this; the JSON comparisons of the scripts'
 * records catch it once a script sets it. */
static void
test_struct_sizes (void)
{
#if GLIB_SIZEOF_VOID_P == 8
  struct { const char *name; gsize size, known; } sizes[] = {
    { "CrRecordTensor", sizeof (CrRecordTensor), 216 },
    { "CrRecordSaved", sizeof (CrRecordSaved), 120 },
    { "CrRecordOp", sizeof (CrRecordOp), 160 },
    { "CrRecordModuleCall", sizeof (CrRecordModuleCall), 96 },
    { "CrRecordRegion", sizeof (CrRecordRegion), 64 },
    { "CrRecordGrad", sizeof (CrRecordGrad), 24 },
    { "CrRecordReduction", sizeof (CrRecordReduction), 176 },
    { "CrRecordStepInput", sizeof (CrRecordStepInput), 80 },
    { "CrRecordHookCall", sizeof (CrRecordHookCall), 56 },
    { "CrRecordAccumulation", sizeof (CrRecordAccumulation), 32 },
    { "CrRecordStep", sizeof (CrRecordStep), 120 },
    { "CrRecordBackward", sizeof (CrRecordBackward), 136 },
    { "CrRecordError", sizeof (CrRecordError), 72 },
    { "CrRecordFinding", sizeof (CrRecordFinding), 80 },
    { "CrRunRecord", sizeof (CrRunRecord), 112 },
    { "CrRecordCell", sizeof (CrRecordCell), 12 },
    { "CrRecordPrinted", sizeof (CrRecordPrinted), 40 },
    { "CrRecordUpdate", sizeof (CrRecordUpdate), 144 },
    { "CrRecordNumber", sizeof (CrRecordNumber), 16 },
    { "CrRecordOptimState", sizeof (CrRecordOptimState), 24 },
    { "CrRecordArgument", sizeof (CrRecordArgument), 80 },
    { "CrTensorSnapshot", sizeof (CrTensorSnapshot), 160 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (sizes[i].size != sizes[i].known)
      g_error ("%s is %" G_GSIZE_FORMAT " bytes, was %" G_GSIZE_FORMAT ": send its new field in "
               "core/record/cr-run-record-wire.c, set it in full_record() here, then update "
               "this size", sizes[i].name, sizes[i].size, sizes[i].known);
#else
  g_test_skip ("the sizes are a 64-bit build's");
#endif
}

static void
test_full_record (void)
{
  g_autoptr (CrRunRecord) record = full_record ();
  g_autoptr (CrRunRecord) back = round_trip (record);
  /* The rule is the op table's own string, not a copy. */
  const CrRecordOp *op = g_ptr_array_index (back->ops, 0);
  g_assert_true (op->rule == cr_op_info (CR_OP_MUL)->local_grad_text);
  const CrRecordBackward *bw = g_ptr_array_index (back->backwards, 0);
  const CrRecordStep *step = g_ptr_array_index (bw->steps, 0);
  g_assert_true (step->rule == op->rule);
  const CrRecordBackward *bw1 = g_ptr_array_index (back->backwards, 1);
  const CrRecordStep *step1 = g_ptr_array_index (bw1->steps, 0);
  g_assert_cmpstr (step1->rule, ==, "∂(made up)/∂x = 1");
  /* The shared value arrives shared: one snapshot, many holds. */
  const CrRecordTensor *t2 = g_ptr_array_index (back->tensors, 2);
  const CrRecordGrad *incoming = g_ptr_array_index (step->incoming, 0);
  g_assert_true (t2->value == incoming->value);
  /* The deferred text is formatted on the reader's side. */
  g_assert_true (t2->value->text_deferred);
  g_assert_null (t2->value->text);
  assert_same_record (record, back);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (t2->value), ==, "[1.5000, -0.0000, 3.2500]");
  /* Doubles come back as they were. */
  const CrRecordHookCall *hook = g_ptr_array_index (step->hooks, 0);
  g_assert_cmpfloat (hook->after->values[0], ==, 1.0 / 3.0);
  g_assert_cmpfloat (hook->after->values[2], ==, 1e300);
}

/* An empty record, and one with NULL filename and source. */
static void
test_empty_record (void)
{
  g_autoptr (CrRunRecord) empty = cr_run_record_new (NULL, NULL);
  g_autoptr (CrRunRecord) back = round_trip (empty);
  g_assert_null (back->filename);
  g_assert_null (back->source);
  assert_same_record (empty, back);
  g_autoptr (CrRunRecord) named = cr_run_record_new ("", "");
  g_autoptr (CrRunRecord) named_back = round_trip (named);
  g_assert_cmpstr (named_back->filename, ==, "");
  assert_same_record (named, named_back);
}

/* ---- every script and example ------------------------------------------------------ */

static void
assert_round_trip_file (const char *path)
{
  g_autoptr (CrRunRecord) record = record_file (path);
  /* Before any text is read: deferred texts travel deferred. */
  g_autoptr (CrRunRecord) back = round_trip (record);
  assert_same_record (record, back);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The .py files of dir, sorted. */
static GPtrArray *
scripts_in (const char *dir)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  for (const char *name; (name = g_dir_read_name (d));)
    if (g_str_has_suffix (name, ".py"))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (paths, compare_paths);
  return paths;
}

static void
test_scripts (gconstpointer data)
{
  const char *dir = data;
  g_autoptr (GPtrArray) paths = scripts_in (dir);
  g_assert_cmpuint (paths->len, >, 0);
  for (guint i = 0; i < paths->len; i++)
    {
      g_test_message ("%s", (const char *) paths->pdata[i]);
      assert_round_trip_file (paths->pdata[i]);
    }
}

static void
test_micrograd (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "micrograd-mlp.py", NULL);
  assert_round_trip_file (path);
}

/* ---- bad input --------------------------------------------------------------------- */

/* The record of a script with every kind of item: hooks, a broadcast, a
 * module, no_grad, a custom Function, an error. */
static const char *rich_script =
  "import torch\n"
  "import torch.nn as nn\n"
  "class Twice(torch.autograd.Function):\n"
  "    @staticmethod\n"
  "    def forward(ctx, x):\n"
  "        return x * 2\n"
  "    @staticmethod\n"
  "    def backward(ctx, g):\n"
  "        return g * 2\n"
  "torch.manual_seed(0)\n"
  "lin = nn.Linear(3, 2)\n"
  "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
  "b = torch.tensor([1., 2., 3.], requires_grad=True)\n"
  "for i in range(2):\n"
  "    y = x * b\n"
  "with torch.no_grad():\n"
  "    z = y * 2\n"
  "y.register_hook(lambda g: g * 10)\n"
  "y.retain_grad()\n"
  "s = Twice.apply(lin(y)).sum() + (x * b).sum()\n"
  "s.backward()\n"
  "h = b.exp()\n"
  "t = (h * 3).sum()\n"
  "h.add_(1)\n"
  "t.backward()\n";

static GBytes *
rich_wire (void)
{
  g_autofree char *dir = g_dir_make_tmp ("record-wire-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "rich.py", NULL);
  g_assert_true (g_file_set_contents (path, rich_script, -1, NULL));
  g_autoptr (CrRunRecord) record = record_file (path);
  g_unlink (path);
  g_rmdir (dir);
  g_assert_cmpuint (record->backwards->len, ==, 2);
  g_assert_cmpuint (record->errors->len, >=, 1);
  return cr_run_record_to_wire (record);
}

/* Every index in record points into its array: what the reader promises. */
static void
assert_indices_hold (const CrRunRecord *r)
{
  int n_t = (int) r->tensors->len, n_op = (int) r->ops->len;
  /* Cells in order and apart: cr_run_record_cell_at searches them. */
  for (guint i = 0; i < r->cells->len; i++)
    {
      const CrRecordCell *cell = &g_array_index (r->cells, CrRecordCell, i);
      g_assert_cmpint (cell->first_line, >, i ? g_array_index (r->cells, CrRecordCell, i - 1).last_line : 0);
      g_assert_cmpint (cell->last_line, >=, cell->first_line);
    }
  for (guint i = 0; i < r->tensors->len; i++)
    {
      const CrRecordTensor *t = r->tensors->pdata[i];
      g_assert_cmpint (t->op, <, n_op);
      g_assert_cmpint (t->source, <, n_t);
      g_assert_cmpint (t->region, <, (int) r->regions->len);
    }
  for (guint i = 0; i < r->errors->len; i++)
    {
      const CrRecordError *e = r->errors->pdata[i];
      g_assert_cmpint (e->backward, <, (int) r->backwards->len);
      g_assert_cmpint (e->tensor, <, n_t);
    }
}

/* data is read in a buffer of its own size, so that a read past len is
 * one ASan sees. */
static CrRunRecord *
read_exact (const guint8  *data,
            gsize          len,
            GError       **error)
{
  guint8 *copy = g_memdup2 (data, len);
  CrRunRecord *r = cr_run_record_from_wire (copy, len, error);
  g_free (copy);
  return r;
}

static void
test_truncated (void)
{
  g_autoptr (GBytes) wire = rich_wire ();
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  /* Every prefix of the header and the first items, then every 5th. */
  for (gsize n = 0; n < len; n += n < 4096 ? 1 : 5)
    {
      g_autoptr (GError) error = NULL;
      CrRunRecord *r = read_exact (data, n, &error);
      g_assert_null (r);
      g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
    }
  /* A prefix with its header's total patched to fit: the body's end is
   * found in the middle of an item. */
  for (gsize n = CR_RUN_RECORD_WIRE_HEADER_SIZE; n < len; n += 7)
    {
      guint8 *copy = g_memdup2 (data, n);
      guint64 total = n;
      memcpy (copy + 16, &total, 8);
      g_autoptr (GError) error = NULL;
      CrRunRecord *r = cr_run_record_from_wire (copy, n, &error);
      g_assert_null (r);
      g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
      g_free (copy);
    }
  /* Too long. */
  guint8 *longer = g_malloc0 (len + 1);
  memcpy (longer, data, len);
  g_autoptr (GError) error = NULL;
  g_assert_null (cr_run_record_from_wire (longer, len + 1, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
  g_free (longer);
}

static void
read_text (const CrTensorSnapshot *s,
           gpointer                data)
{
  cr_tensor_snapshot_get_text (s);
}

static void
test_corrupted (void)
{
  g_autoptr (GBytes) wire = rich_wire ();
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  guint8 *copy = g_malloc (len);
  guint n_read = 0, n_refused = 0;
  /* Every byte of the body in turn set to values that make lengths,
   * counts, indices and references wrong. */
  const guint8 values[] = { 0x00, 0x02, 0x80, 0xff };
  for (gsize at = CR_RUN_RECORD_WIRE_HEADER_SIZE; at < len; at++)
    for (guint v = 0; v < G_N_ELEMENTS (values); v++)
      {
        if (data[at] == values[v])
          continue;
        memcpy (copy, data, len);
        copy[at] = values[v];
        g_autoptr (GError) error = NULL;
        CrRunRecord *r = cr_run_record_from_wire (copy, len, &error);
        if (r)
          {
            n_read++;
            assert_indices_hold (r);
            /* Everything in it can be walked and written: the whole
             * JSON of every 200th, the texts of every 10th (formatting
             * them is most of the test's time). */
            if (n_read % 200 == 0)
              g_free (cr_run_record_to_json (r, NULL));
            else if (n_read % 10 == 0)
              each_snapshot (r, read_text, NULL);
            cr_run_record_unref (r);
          }
        else
          {
            n_refused++;
            g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
          }
      }
  g_test_message ("%" G_GSIZE_FORMAT " bytes: %u corrupted messages read, %u refused",
                  len, n_read, n_refused);
  g_assert_cmpuint (n_refused, >, 0);

  /* Random bytes after a valid header. */
  GRand *rand = g_rand_new_with_seed (11);
  for (guint round = 0; round < 1000; round++)
    {
      memcpy (copy, data, len);
      guint n_changes = (guint) g_rand_int_range (rand, 1, 9);
      for (guint c = 0; c < n_changes; c++)
        copy[g_rand_int_range (rand, CR_RUN_RECORD_WIRE_HEADER_SIZE, (gint32) len)] =
          (guint8) g_rand_int_range (rand, 0, 256);
      g_autoptr (GError) error = NULL;
      CrRunRecord *r = cr_run_record_from_wire (copy, len, &error);
      if (r)
        {
          assert_indices_hold (r);
          g_free (cr_run_record_to_json (r, NULL));
          cr_run_record_unref (r);
        }
    }
  g_rand_free (rand);
  g_free (copy);
}

static void
test_bad_header (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("a.py", "x = 1\n");
  g_autoptr (GBytes) wire = cr_run_record_to_wire (record);
  gsize len;
  const guint8 *data = g_bytes_get_data (wire, &len);
  guint8 *copy = g_malloc (len);
  /* Any header byte changed: magic, version, sizes, limits, the zeros. */
  for (gsize at = 0; at < CR_RUN_RECORD_WIRE_HEADER_SIZE; at++)
    {
      memcpy (copy, data, len);
      copy[at] ^= 0x41;
      g_autoptr (GError) error = NULL;
      g_assert_null (cr_run_record_from_wire (copy, len, &error));
      g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
    }
  g_free (copy);

  /* The size from the header alone, as a stream reader asks it. */
  gsize total = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_run_record_wire_size (data, CR_RUN_RECORD_WIRE_HEADER_SIZE, &total, &error));
  g_assert_cmpuint (total, ==, len);
  g_assert_false (cr_run_record_wire_size (data, CR_RUN_RECORD_WIRE_HEADER_SIZE - 1, &total, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
  g_clear_error (&error);
  g_assert_false (cr_run_record_wire_size ((const guint8 *) "{\"schema\": \"chainrule-run-record\", \"version\": 1, ...}",
                                           54, &total, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
  g_clear_error (&error);
  g_assert_null (cr_run_record_from_wire (NULL, 0, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
}

/* ---- --bench ------------------------------------------------------------------------ */

/* The thread's CPU time: on a shared machine, what the work itself took. */
static gint64
cpu_time_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Best of 20 writes and reads of the record of the script at path, in CPU
 * time, beside its JSON. */
static void
bench_file (const char *path)
{
  g_autoptr (CrRunRecord) record = record_file (path);
  const int rounds = 20;
  double write_best = G_MAXDOUBLE, read_best = G_MAXDOUBLE;
  gsize len = 0;
  for (int i = 0; i < rounds; i++)
    {
      gint64 t0 = cpu_time_us ();
      GBytes *wire = cr_run_record_to_wire (record);
      gint64 t1 = cpu_time_us ();
      const guint8 *data = g_bytes_get_data (wire, &len);
      CrRunRecord *back = cr_run_record_from_wire (data, len, NULL);
      gint64 t2 = cpu_time_us ();
      g_assert_nonnull (back);
      cr_run_record_unref (back);
      g_bytes_unref (wire);
      write_best = MIN (write_best, (t1 - t0) / 1000.0);
      read_best = MIN (read_best, (t2 - t1) / 1000.0);
    }
  SnapshotCount c = count_snapshots (record);
  gint64 t0 = cpu_time_us ();
  gsize json_len;
  g_free (cr_run_record_to_json (record, &json_len));
  double json_ms = (cpu_time_us () - t0) / 1000.0;
  g_autofree char *name = g_path_get_basename (path);
  g_print ("%-26s wire %9" G_GSIZE_FORMAT " bytes  write %6.2f ms  read %6.2f ms"
           "  (JSON %9" G_GSIZE_FORMAT " bytes, %7.1f ms; %u snapshots, %u distinct, "
           "%u deferred, %" G_GSIZE_FORMAT " text bytes, %" G_GSIZE_FORMAT " values)\n",
           name, len, write_best, read_best, json_len, json_ms, c.references,
           g_hash_table_size (c.distinct), c.deferred, c.text_bytes, c.values);
  g_hash_table_unref (c.distinct);
}

int
main (int   argc,
      char *argv[])
{
  if (argc > 1 && strcmp (argv[1], "--bench") == 0)
    {
      for (int i = 2; i < argc; i++)
        bench_file (argv[i]);
      return 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_autofree char *scripts = g_test_build_filename (G_TEST_DIST, "record", "scripts", NULL);
  g_autofree char *examples = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", NULL);
  g_test_add_func ("/record-wire/struct-sizes", test_struct_sizes);
  g_test_add_func ("/record-wire/full-record", test_full_record);
  g_test_add_func ("/record-wire/empty-record", test_empty_record);
  g_test_add_data_func ("/record-wire/scripts", scripts, test_scripts);
  g_test_add_data_func ("/record-wire/examples", examples, test_scripts);
  g_test_add_func ("/record-wire/micrograd", test_micrograd);
  g_test_add_func ("/record-wire/bad-header", test_bad_header);
  g_test_add_func ("/record-wire/truncated", test_truncated);
  g_test_add_func ("/record-wire/corrupted", test_corrupted);
  return g_test_run ();
}
