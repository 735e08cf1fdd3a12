/* cr-run-record.c — the run record's life (new, ref, unref), its item
 * constructors and the state-at-step queries.
 *
 * Every item is zeroed with its int indices at -1 ("none"), so a filler sets
 * only what it knows; every array owns its items, so freeing the record frees
 * everything it holds. */
#include "cr-run-record.h"

/* ---- freeing ---------------------------------------------------------------- */

static void
record_tensor_free (gpointer data)
{
  CrRecordTensor *t = data;
  g_free (t->name);
  g_free (t->label);
  g_free (t->module_path);
  g_free (t->dtype);
  g_free (t->device);
  cr_tensor_snapshot_free (t->value);
  g_free (t);
}

static void
record_saved_free (gpointer data)
{
  CrRecordSaved *s = data;
  g_free (s->name);
  cr_tensor_snapshot_free (s->value);
  g_free (s);
}

static void
record_argument_free (gpointer data)
{
  CrRecordArgument *argument = data;
  g_free (argument->name);
  g_free (argument);
}

static void
record_op_free (gpointer data)
{
  CrRecordOp *op = data;
  g_free (op->grad_fn);
  g_free (op->symbol);
  g_free (op->caption);
  g_free (op->key);
  g_array_unref (op->inputs);
  g_array_unref (op->outputs);
  g_free (op->custom_function);
  g_ptr_array_unref (op->saved);
  g_ptr_array_unref (op->arguments);
  g_free (op);
}

static void
record_module_call_free (gpointer data)
{
  CrRecordModuleCall *call = data;
  g_free (call->path);
  g_free (call->class_name);
  g_free (call);
}

/* CrRecordGrad is embedded in CrRecordStepInput as well as allocated on its
 * own; this frees what it holds. */
static void
record_grad_clear (CrRecordGrad *grad)
{
  g_clear_pointer (&grad->name, g_free);
  g_clear_pointer (&grad->value, cr_tensor_snapshot_free);
}

static void
record_grad_free (gpointer data)
{
  record_grad_clear (data);
  g_free (data);
}

static void
record_step_input_free (gpointer data)
{
  CrRecordStepInput *in = data;
  g_free (in->name);
  g_free (in->local_name);
  cr_tensor_snapshot_free (in->local);
  cr_tensor_snapshot_free (in->product);
  g_free (in->reduction);
  record_grad_clear (&in->outgoing);
  g_free (in);
}

static void
record_hook_call_free (gpointer data)
{
  CrRecordHookCall *hook = data;
  g_free (hook->function);
  cr_tensor_snapshot_free (hook->before);
  cr_tensor_snapshot_free (hook->after);
  g_free (hook);
}

static void
record_accumulation_free (gpointer data)
{
  CrRecordAccumulation *acc = data;
  g_free (acc->name);
  cr_tensor_snapshot_free (acc->contribution);
  cr_tensor_snapshot_free (acc->sum);
  g_free (acc);
}

static void
record_step_free (gpointer data)
{
  CrRecordStep *step = data;
  g_free (step->title);
  g_free (step->caption);
  g_ptr_array_unref (step->hooks);
  g_ptr_array_unref (step->incoming);
  g_free (step->custom_backward);
  g_ptr_array_unref (step->inputs);
  g_ptr_array_unref (step->accumulations);
  cr_tensor_snapshot_free (step->grad_before);
  cr_tensor_snapshot_free (step->grad_after);
  g_free (step);
}

static void
record_backward_free (gpointer data)
{
  CrRecordBackward *bw = data;
  g_free (bw->title);
  g_array_unref (bw->roots);
  g_free (bw->root_name);
  g_ptr_array_unref (bw->steps);
  g_ptr_array_unref (bw->root_grads);
  g_ptr_array_unref (bw->root_accumulations);
  g_free (bw);
}

static void
record_error_free (gpointer data)
{
  CrRecordError *err = data;
  g_free (err->type);
  g_free (err->message);
  g_array_unref (err->operands);
  g_free (err);
}

static void
record_finding_free (gpointer data)
{
  CrRecordFinding *finding = data;
  g_free (finding->kind);
  g_free (finding->title);
  g_free (finding->explanation);
  g_free (finding->fix);
  g_free (finding);
}

static void
record_number_free (gpointer data)
{
  CrRecordNumber *number = data;
  g_free (number->name);
  g_free (number);
}

static void
record_optim_state_free (gpointer data)
{
  CrRecordOptimState *state = data;
  g_free (state->name);
  cr_tensor_snapshot_free (state->before);
  cr_tensor_snapshot_free (state->after);
  g_free (state);
}

static void
record_printed_free (gpointer data)
{
  CrRecordPrinted *printed = data;
  g_free (printed->name);
  g_free (printed);
}

static void
record_update_free (gpointer data)
{
  CrRecordUpdate *update = data;
  g_free (update->optimizer);
  g_free (update->name);
  g_ptr_array_unref (update->numbers);
  cr_tensor_snapshot_free (update->grad);
  cr_tensor_snapshot_free (update->before);
  cr_tensor_snapshot_free (update->after);
  g_ptr_array_unref (update->state);
  g_free (update);
}

/* ---- the record ------------------------------------------------------------- */

CrRunRecord *
cr_run_record_new (const char *filename,
                   const char *source)
{
  CrRunRecord *self = g_new0 (CrRunRecord, 1);
  self->ref_count = 1;
  self->filename = g_strdup (filename);
  self->source = g_strdup (source);
  self->tensors = g_ptr_array_new_with_free_func (record_tensor_free);
  self->ops = g_ptr_array_new_with_free_func (record_op_free);
  self->module_calls = g_ptr_array_new_with_free_func (record_module_call_free);
  self->regions = g_ptr_array_new_with_free_func (g_free);
  self->backwards = g_ptr_array_new_with_free_func (record_backward_free);
  self->errors = g_ptr_array_new_with_free_func (record_error_free);
  self->findings = g_ptr_array_new_with_free_func (record_finding_free);
  self->updates = g_ptr_array_new_with_free_func (record_update_free);
  self->printed = g_ptr_array_new_with_free_func (record_printed_free);
  self->cells = g_array_new (FALSE, FALSE, sizeof (CrRecordCell));
  return self;
}

CrRunRecord *
cr_run_record_ref (CrRunRecord *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
cr_run_record_unref (CrRunRecord *self)
{
  if (!self || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_free (self->filename);
  g_free (self->source);
  g_ptr_array_unref (self->tensors);
  g_ptr_array_unref (self->ops);
  g_ptr_array_unref (self->module_calls);
  g_ptr_array_unref (self->regions);
  g_ptr_array_unref (self->backwards);
  g_ptr_array_unref (self->errors);
  g_ptr_array_unref (self->findings);
  g_ptr_array_unref (self->updates);
  g_ptr_array_unref (self->printed);
  g_array_unref (self->cells);
  g_free (self);
}

/* ---- item constructors ------------------------------------------------------ */

CrRecordTensor *
cr_run_record_add_tensor (CrRunRecord *self)
{
  CrRecordTensor *t = g_new0 (CrRecordTensor, 1);
  t->id = self->tensors->len;
  t->op = -1;
  t->source = -1;
  t->region = -1;
  g_ptr_array_add (self->tensors, t);
  return t;
}

CrRecordOp *
cr_run_record_add_op (CrRunRecord *self)
{
  CrRecordOp *op = g_new0 (CrRecordOp, 1);
  op->id = self->ops->len;
  op->inputs = g_array_new (FALSE, FALSE, sizeof (int));
  op->outputs = g_array_new (FALSE, FALSE, sizeof (int));
  op->module_call = -1;
  op->saved = g_ptr_array_new_with_free_func (record_saved_free);
  op->arguments = g_ptr_array_new_with_free_func (record_argument_free);
  g_ptr_array_add (self->ops, op);
  return op;
}

CrRecordModuleCall *
cr_run_record_add_module_call (CrRunRecord *self)
{
  CrRecordModuleCall *call = g_new0 (CrRecordModuleCall, 1);
  call->id = self->module_calls->len;
  call->parent = -1;
  g_ptr_array_add (self->module_calls, call);
  return call;
}

CrRecordRegion *
cr_run_record_add_region (CrRunRecord *self)
{
  CrRecordRegion *region = g_new0 (CrRecordRegion, 1);
  region->id = self->regions->len;
  g_ptr_array_add (self->regions, region);
  return region;
}

CrRecordBackward *
cr_run_record_add_backward (CrRunRecord *self)
{
  CrRecordBackward *bw = g_new0 (CrRecordBackward, 1);
  bw->id = self->backwards->len;
  bw->roots = g_array_new (FALSE, FALSE, sizeof (int));
  bw->error = -1;
  bw->steps = g_ptr_array_new_with_free_func (record_step_free);
  bw->root_grads = g_ptr_array_new_with_free_func (record_grad_free);
  bw->root_accumulations = g_ptr_array_new_with_free_func (record_accumulation_free);
  g_ptr_array_add (self->backwards, bw);
  return bw;
}

CrRecordStep *
cr_record_backward_add_step (CrRecordBackward *backward)
{
  CrRecordStep *step = g_new0 (CrRecordStep, 1);
  step->index = backward->steps->len;
  step->op = -1;
  step->leaf = -1;
  step->hooks = g_ptr_array_new_with_free_func (record_hook_call_free);
  step->incoming = g_ptr_array_new_with_free_func (record_grad_free);
  step->inputs = g_ptr_array_new_with_free_func (record_step_input_free);
  step->accumulations = g_ptr_array_new_with_free_func (record_accumulation_free);
  g_ptr_array_add (backward->steps, step);
  return step;
}

CrRecordError *
cr_run_record_add_error (CrRunRecord *self)
{
  CrRecordError *err = g_new0 (CrRecordError, 1);
  err->op = -1;
  err->backward = -1;
  err->step = -1;
  err->tensor = -1;
  err->operands = g_array_new (FALSE, FALSE, sizeof (int));
  g_ptr_array_add (self->errors, err);
  return err;
}

CrRecordFinding *
cr_run_record_add_finding (CrRunRecord *self)
{
  CrRecordFinding *finding = g_new0 (CrRecordFinding, 1);
  finding->op = -1;
  finding->tensor = -1;
  finding->backward = -1;
  g_ptr_array_add (self->findings, finding);
  return finding;
}

CrRecordUpdate *
cr_run_record_add_update (CrRunRecord *self)
{
  CrRecordUpdate *update = g_new0 (CrRecordUpdate, 1);
  update->id = self->updates->len;
  update->tensor = -1;
  update->backward = -1;
  update->numbers = g_ptr_array_new_with_free_func (record_number_free);
  update->state = g_ptr_array_new_with_free_func (record_optim_state_free);
  g_ptr_array_add (self->updates, update);
  return update;
}

CrRecordPrinted *
cr_run_record_add_printed (CrRunRecord *self,
                           const char  *name,
                           double       value)
{
  if (self->printed->len >= CR_RUN_RECORD_MAX_PRINTED)
    return NULL;
  CrRecordPrinted *printed = g_new0 (CrRecordPrinted, 1);
  printed->name = g_strdup (name);
  printed->value = value;
  printed->backward = -1;
  g_ptr_array_add (self->printed, printed);
  return printed;
}

CrRecordNumber *
cr_record_update_add_number (CrRecordUpdate *update,
                             const char     *name,
                             double          value)
{
  CrRecordNumber *number = g_new0 (CrRecordNumber, 1);
  number->name = g_strdup (name);
  number->value = value;
  g_ptr_array_add (update->numbers, number);
  return number;
}

CrRecordOptimState *
cr_record_update_add_state (CrRecordUpdate *update,
                            const char     *name)
{
  CrRecordOptimState *state = g_new0 (CrRecordOptimState, 1);
  state->name = g_strdup (name);
  g_ptr_array_add (update->state, state);
  return state;
}

CrRecordSaved *
cr_record_op_add_saved (CrRecordOp *op)
{
  CrRecordSaved *saved = g_new0 (CrRecordSaved, 1);
  saved->tensor = -1;
  saved->freed_backward = -1;
  saved->freed_step = -1;
  g_ptr_array_add (op->saved, saved);
  return saved;
}

CrRecordArgument *
cr_record_op_add_argument (CrRecordOp *op,
                           const char *name)
{
  CrRecordArgument *argument = g_new0 (CrRecordArgument, 1);
  argument->name = g_strdup (name);
  argument->kind = CR_RECORD_ARGUMENT_NONE;
  g_ptr_array_add (op->arguments, argument);
  return argument;
}

const CrRecordArgument *
cr_record_op_argument (const CrRecordOp *op,
                       const char       *name)
{
  for (guint i = 0; op && op->arguments && i < op->arguments->len; i++)
    {
      const CrRecordArgument *argument = op->arguments->pdata[i];
      if (g_strcmp0 (argument->name, name) == 0)
        return argument;
    }
  return NULL;
}

CrRecordStepInput *
cr_record_step_add_input (CrRecordStep *step)
{
  CrRecordStepInput *in = g_new0 (CrRecordStepInput, 1);
  in->tensor = -1;
  in->to_op = -1;
  in->to_leaf = -1;
  in->outgoing.tensor = -1;
  g_ptr_array_add (step->inputs, in);
  return in;
}

CrRecordHookCall *
cr_record_step_add_hook (CrRecordStep *step)
{
  CrRecordHookCall *hook = g_new0 (CrRecordHookCall, 1);
  hook->tensor = -1;
  g_ptr_array_add (step->hooks, hook);
  return hook;
}

CrRecordGrad *
cr_record_step_add_incoming (CrRecordStep *step)
{
  CrRecordGrad *grad = g_new0 (CrRecordGrad, 1);
  grad->tensor = -1;
  g_ptr_array_add (step->incoming, grad);
  return grad;
}

const CrRecordGrad *
cr_record_step_first_incoming (const CrRecordStep *step)
{
  return step->incoming && step->incoming->len ? g_ptr_array_index (step->incoming, 0) : NULL;
}

gboolean
cr_record_step_takes_in (const CrRecordStep *step,
                         int                 tensor)
{
  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    return step->leaf == tensor;
  for (guint i = 0; step->incoming && i < step->incoming->len; i++)
    if (((const CrRecordGrad *) g_ptr_array_index (step->incoming, i))->tensor == tensor)
      return TRUE;
  return FALSE;
}

gboolean
cr_record_step_hook_summary (const CrRecordStep  *step,
                             CrRecordHookSummary *summary)
{
  *summary = (CrRecordHookSummary) { 0 };
  for (guint i = 0; step->hooks && i < step->hooks->len; i++)
    {
      const CrRecordHookCall *h = g_ptr_array_index (step->hooks, i);
      gboolean retain = h->kind == CR_RECORD_HOOK_RETAIN_GRAD;
      summary->raised |= h->raised;
      summary->retain |= retain;
      summary->tensor_hook |= !retain;
      summary->changed |= !retain && h->after != NULL;
    }
  return step->hooks && step->hooks->len > 0;
}

GArray *
cr_record_step_root_sums (const CrRecordBackward *backward,
                          const CrRecordStep     *step)
{
  GArray *sums = g_array_new (FALSE, FALSE, sizeof (guint));
  const GPtrArray *all = backward->root_accumulations;
  for (guint i = 0; all && i < all->len; i++)
    {
      const CrRecordAccumulation *acc = g_ptr_array_index (all, i);
      if (!cr_record_step_takes_in (step, acc->tensor))
        continue;
      gboolean earlier = FALSE;
      for (guint k = 0; k < step->index && k < backward->steps->len && !earlier; k++)
        earlier = cr_record_step_takes_in (g_ptr_array_index (backward->steps, k), acc->tensor);
      if (!earlier)
        g_array_append_val (sums, i);
    }
  return sums;
}

CrRecordAccumulation *
cr_record_step_add_accumulation (CrRecordStep *step)
{
  CrRecordAccumulation *acc = g_new0 (CrRecordAccumulation, 1);
  acc->tensor = -1;
  acc->to_op = -1;
  g_ptr_array_add (step->accumulations, acc);
  return acc;
}

CrRecordGrad *
cr_record_backward_add_root_grad (CrRecordBackward *backward)
{
  CrRecordGrad *grad = g_new0 (CrRecordGrad, 1);
  grad->tensor = -1;
  g_ptr_array_add (backward->root_grads, grad);
  return grad;
}

CrRecordAccumulation *
cr_record_backward_add_root_accumulation (CrRecordBackward *backward)
{
  CrRecordAccumulation *acc = g_new0 (CrRecordAccumulation, 1);
  acc->tensor = -1;
  acc->to_op = -1;
  g_ptr_array_add (backward->root_accumulations, acc);
  return acc;
}

/* ---- state at a step -------------------------------------------------------- */

/* What a step wrote into tensor's .grad (borrowed), or NULL with *wrote
 * FALSE when it wrote nothing there. A retain_grad hook writes .grad before
 * its node runs; an AccumulateGrad step writes its leaf's. */
static const CrTensorSnapshot *
step_grad_write (const CrRecordStep *step,
                 int                 tensor,
                 gboolean           *wrote)
{
  const CrTensorSnapshot *value = NULL;
  *wrote = FALSE;
  for (guint h = 0; h < step->hooks->len; h++)
    {
      const CrRecordHookCall *hook = g_ptr_array_index (step->hooks, h);
      if (hook->kind == CR_RECORD_HOOK_RETAIN_GRAD && hook->tensor == tensor)
        {
          value = hook->after;
          *wrote = TRUE;
        }
    }
  if (step->kind == CR_RECORD_STEP_ACCUMULATE && step->leaf == tensor)
    {
      value = step->grad_after;
      *wrote = TRUE;
    }
  return value;
}

const CrTensorSnapshot *
cr_run_record_grad_at (const CrRunRecord *self,
                       int                tensor,
                       int                backward,
                       int                step)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (tensor < 0 || backward < 0 || (guint) backward >= self->backwards->len)
    return NULL;

  /* The script may change .grad between backward calls (zero_grad(),
   * x.grad = None), and the record keeps no forward event for that: the
   * next AccumulateGrad of the same call knows what .grad held just before
   * it (grad_before), which is what it held since this call started.
   * Otherwise the last write up to the step stands. */
  const CrRecordBackward *bw = g_ptr_array_index (self->backwards, backward);
  for (guint k = 0; k < bw->steps->len; k++)
    {
      const CrRecordStep *later = g_ptr_array_index (bw->steps, k);
      if ((int) later->index <= step)
        continue;
      if (later->kind == CR_RECORD_STEP_ACCUMULATE && later->leaf == tensor)
        {
          /* Only when nothing in this call wrote it earlier. */
          gboolean written_in_call = FALSE;
          for (guint j = 0; j < bw->steps->len && !written_in_call; j++)
            {
              const CrRecordStep *earlier = g_ptr_array_index (bw->steps, j);
              if ((int) earlier->index > step)
                continue;
              step_grad_write (earlier, tensor, &written_in_call);
            }
          if (!written_in_call)
            return later->grad_before;
          break;
        }
    }

  const CrTensorSnapshot *value = NULL;
  for (int b = 0; b <= backward; b++)
    {
      const CrRecordBackward *call = g_ptr_array_index (self->backwards, b);
      for (guint k = 0; k < call->steps->len; k++)
        {
          const CrRecordStep *s = g_ptr_array_index (call->steps, k);
          if (b == backward && (int) s->index > step)
            continue;
          gboolean wrote;
          const CrTensorSnapshot *written = step_grad_write (s, tensor, &wrote);
          if (wrote)
            value = written;
        }
    }
  return value;
}

gboolean
cr_run_record_saved_freed_at (const CrRunRecord *self,
                              int                op,
                              guint              slot,
                              int                backward,
                              int                step)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (op < 0 || (guint) op >= self->ops->len)
    return FALSE;
  const CrRecordOp *o = g_ptr_array_index (self->ops, op);
  if (slot >= o->saved->len)
    return FALSE;
  const CrRecordSaved *saved = g_ptr_array_index (o->saved, slot);
  if (saved->freed_backward < 0)
    return FALSE;
  if (saved->freed_backward < backward)
    return TRUE;
  return saved->freed_backward == backward && saved->freed_step <= step;
}

gboolean
cr_run_record_op_ran_at (const CrRunRecord *self,
                         int                op,
                         int                backward,
                         int                step)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (op < 0 || backward < 0 || (guint) backward >= self->backwards->len)
    return FALSE;
  const CrRecordBackward *bw = g_ptr_array_index (self->backwards, backward);
  for (guint k = 0; k < bw->steps->len; k++)
    {
      const CrRecordStep *s = g_ptr_array_index (bw->steps, k);
      /* A node that raised (failed) did not run: it sent no gradient. */
      if (s->kind == CR_RECORD_STEP_NODE && s->op == op && (int) s->index <= step && !s->failed)
        return TRUE;
    }
  return FALSE;
}

gboolean
cr_record_error_names_tensor (const CrRecordError *error,
                              int                  tensor)
{
  if (!error || tensor < 0)
    return FALSE;
  if (error->tensor == tensor)
    return TRUE;
  for (guint i = 0; error->operands && i < error->operands->len; i++)
    if (g_array_index (error->operands, int, i) == tensor)
      return TRUE;
  return FALSE;
}

/* ---- training --------------------------------------------------------------- */

gboolean
cr_run_record_backward_loss (const CrRunRecord *self,
                             guint              backward,
                             double            *loss)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (backward >= self->backwards->len)
    return FALSE;
  const CrRecordBackward *bw = g_ptr_array_index (self->backwards, backward);
  if (bw->roots->len == 0)
    return FALSE;
  int root = g_array_index (bw->roots, int, 0);
  if (root < 0 || (guint) root >= self->tensors->len)
    return FALSE;
  const CrRecordTensor *t = g_ptr_array_index (self->tensors, root);
  if (!t->value || t->value->numel != 1)
    return FALSE;
  if (loss)
    *loss = t->value->n_values > 0 ? t->value->values[0] : t->value->mean;
  return TRUE;
}

double
cr_record_update_number (const CrRecordUpdate *update,
                         const char           *name,
                         double                fallback)
{
  g_return_val_if_fail (update != NULL && name != NULL, fallback);
  for (guint i = 0; i < update->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (update->numbers, i);
      if (g_str_equal (number->name, name))
        return number->value;
    }
  return fallback;
}

const CrRecordOptimState *
cr_record_update_state (const CrRecordUpdate *update,
                        const char           *name)
{
  g_return_val_if_fail (update != NULL && name != NULL, NULL);
  for (guint i = 0; i < update->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (update->state, i);
      if (g_str_equal (state->name, name))
        return state;
    }
  return NULL;
}
