/* cr-run-recorder-backward.c — the backward side of the run record (see
 * cr-run-recorder-backward.h): one CrRecordBackward per backward call, one
 * CrRecordStep per node the engine runs.
 *
 * The engine calls the observer in this order for a node: its hooks (each
 * as it returns), then the node's step (or, when something raised, the
 * failure), then one accumulate call per gradient it sends into a buffer
 * that had one already. A hook therefore opens the step of the node it runs
 * before; the step call fills it.
 *
 * Names (∂L/∂w1) are written when the call ends, from the record's tensor
 * labels: a name bound in the script ("w1", "y₃" at iteration 3), else the
 * expression that made it ("(w3*b)"), else the op ("[MulBackward0]"). */
#include "cr-run-recorder-backward.h"

#include <string.h>

#include "cr-interp-cells.h"
#include "cr-interp-private.h"
#include "cr-native.h"
#include "cr-run-recorder.h"
#include "cr-node.h"
#include "cr-op-table.h"
#include "cr-record-text.h"

struct _CrBackwardRecorder {
  CrInterp         *interp;        /* borrowed */
  CrRunRecord      *record;        /* a ref: nested runs keep it alive too */
  CrRecordBackward *backward;      /* borrowed from record */
  gboolean          retain_graph;
  CrRecordStep     *open_step;     /* a step a hook opened, waiting for its node */
  CrNode           *open_node;     /* borrowed, compared only */
  CrNode           *last_node;     /* the node of the last step filled, compared only */
  GPtrArray        *module_hooks;  /* CrRecordHookCall*: module hooks called by the node
                                    * running now, for its step */
  CrBackwardRecorder *outer;       /* the call this one runs inside (a hook's backward) */
};

/* The innermost backward call being recorded on this thread: a module's
 * backward hooks are called from library code, which reports them here. */
static __thread CrBackwardRecorder *running;

/* Frees a hook call that never reached a step; one that did is freed with
 * its step, the same way (the record's items are g_new0'd plain data). */
static void
hook_call_free (gpointer data)
{
  CrRecordHookCall *call = data;
  g_free (call->function);
  cr_tensor_snapshot_free (call->before);
  cr_tensor_snapshot_free (call->after);
  g_free (call);
}

/* The script's statement running now (a prelude function's caller). */
static const CrAstNode *
user_statement (CrInterp *self)
{
  if (self->in_prelude && self->user_stmt)
    return self->user_stmt;
  return self->frame ? self->frame->stmt : NULL;
}

/* The first line of what span covers, trimmed; NULL when unknown. */
static char *
span_first_line (CrInterp     *self,
                 const CrSpan *span)
{
  /* Library code runs with its own module current; spans are the script's. */
  const CrAstModule *module = self->in_prelude ? self->main_scope.module : self->module;
  if (!module || !module->source || span->line <= 0)
    return NULL;
  g_autofree char *line = cr_source_line (module->source, span->line);
  if (!line)
    return NULL;
  glong len = g_utf8_strlen (line, -1);
  glong start = span->column > 0 ? MIN ((glong) span->column - 1, len) : 0;
  glong end = len;
  if (span->end_line == span->line && span->end_column > span->column)
    end = MIN ((glong) span->end_column - 1, len);
  const char *from = g_utf8_offset_to_pointer (line, start);
  const char *to = g_utf8_offset_to_pointer (line, end);
  char *text = g_strstrip (g_strndup (from, to - from));
  if (!text[0])
    g_clear_pointer (&text, g_free);
  return text;
}

static CrRecordTensor *
tensor_at (CrBackwardRecorder *self,
           int                 id)
{
  if (id < 0 || (guint) id >= self->record->tensors->len)
    return NULL;
  return g_ptr_array_index (self->record->tensors, id);
}

static CrRecordOp *
op_at (CrBackwardRecorder *self,
       int                 id)
{
  if (id < 0 || (guint) id >= self->record->ops->len)
    return NULL;
  return g_ptr_array_index (self->record->ops, id);
}

/* The id of the tensor whose gradient reaches output output_nr of node: a
 * leaf for its AccumulateGrad. */
static int
output_tensor (CrBackwardRecorder *self,
               CrNode             *node,
               guint32             output_nr)
{
  if (node->variable)
    return cr_run_recorder_tensor (self->interp, node->variable);
  return cr_run_recorder_output (self->interp, node, output_nr);
}

/* ---- the call ------------------------------------------------------------- */

CrBackwardRecorder *
cr_backward_recorder_begin (CrInterp        *interp,
                            CrTensor *const *roots,
                            guint            n_roots,
                            const char      *root_name)
{
  CrRunRecord *record = cr_run_recorder_get (interp);
  if (!record)
    return NULL;
  CrBackwardRecorder *self = g_new0 (CrBackwardRecorder, 1);
  self->interp = interp;
  self->record = cr_run_record_ref (record);
  self->module_hooks = g_ptr_array_new_with_free_func (hook_call_free);
  self->outer = running;
  running = self;

  CrRecordBackward *b = cr_run_record_add_backward (record);
  self->backward = b;
  b->kind = CR_RECORD_BACKWARD_CALL;
  const CrAstNode *stmt = user_statement (interp);
  if (stmt)
    b->span = stmt->span;
  b->iteration = cr_interp_loop_iteration (interp);
  b->loop_depth = cr_interp_loop_path (interp, b->loop_path, CR_RECORD_MAX_LOOP_PATH);
  for (guint i = 0; i < n_roots; i++)
    {
      int id = roots[i] ? cr_run_recorder_tensor (interp, roots[i]) : -1;
      g_array_append_val (b->roots, id);
    }
  /* The root's label, as the graph and every other ∂ call it ("loss₃" in
   * iteration 3, so its first gradient is ∂loss₃/∂loss₃): every ∂ of the
   * call has it. Several roots (torch.autograd.backward([a, b], ...))
   * differentiate one scalar, Σᵢ ⟨gradᵢ, rootᵢ⟩, which no tensor of the
   * script is: "L". */
  const CrRecordTensor *root = n_roots == 1 ? tensor_at (self, g_array_index (b->roots, int, 0)) : NULL;
  if (n_roots > 1)
    b->root_name = g_strdup ("L");
  else if (root && root->name)
    b->root_name = g_strdup (root->label ? root->label : root->name);
  else
    b->root_name = g_strdup (root_name ? root_name : "out");

  g_autofree char *text = stmt ? span_first_line (interp, &stmt->span) : NULL;
  GString *title = g_string_new (text ? text : "backward");
  if (b->span.line > 0)
    {
      /* A notebook's line is told by its cell, as its traceback tells it. */
      g_autofree char *where = cr_run_record_line_text (record, b->span.line, FALSE);
      g_string_append_printf (title, " · %s", where);
    }
  g_autofree char *iteration = cr_record_iteration_text (b->loop_path, b->loop_depth);
  if (iteration)
    g_string_append_printf (title, " · %s", iteration);
  b->title = g_string_free (title, FALSE);
  b->succeeded = TRUE;
  return self;
}

void
cr_backward_recorder_set_root_grads (CrBackwardRecorder *self,
                                     CrTensor *const    *roots,
                                     CrTensor *const    *grad_roots,
                                     guint               n_roots)
{
  if (!self || n_roots < 2)
    return;
  for (guint i = 0; i < n_roots; i++)
    {
      if (!roots[i])
        continue;
      CrRecordGrad *g = cr_record_backward_add_root_grad (self->backward);
      g->tensor = cr_run_recorder_tensor (self->interp, roots[i]);
      if (grad_roots && grad_roots[i])
        g->value = cr_run_recorder_snapshot (self->interp, grad_roots[i]);
      else
        {
          /* The implicit gradient of a scalar root. */
          g_autoptr (CrTensor) one = cr_tensor_new_full (roots[i]->shape, roots[i]->ndim, 1.0,
                                                         roots[i]->dtype, CR_DEVICE_CPU, NULL);
          g->value = one ? cr_run_recorder_snapshot (self->interp, one) : NULL;
        }
    }
}

void
cr_backward_recorder_set_options (CrBackwardRecorder      *self,
                                  const CrBackwardOptions *options)
{
  if (!self || !options)
    return;
  self->retain_graph = options->retain_graph;
  self->backward->retain_graph = options->retain_graph;
  self->backward->create_graph = options->create_graph;
  self->backward->kind = options->inputs && !options->accumulate_inputs
                         ? CR_RECORD_BACKWARD_GRAD : CR_RECORD_BACKWARD_CALL;
}

/* ---- steps ---------------------------------------------------------------- */

/* The name and def span of a script function (a def, a lambda, a bound
 * method or a staticmethod of one); FALSE for anything else. qualified:
 * "MyReLU.backward" rather than "backward". */
static gboolean
describe_function (const CrValue  *fn,
                   gboolean        qualified,
                   char          **out_name,
                   CrSpan         *out_span)
{
  while (fn)
    {
      if (fn->kind == CR_VALUE_BOUND_METHOD)
        fn = fn->u.bound.func;
      else if (fn->kind == CR_VALUE_OBJECT && fn->u.object.type == &cr_staticmethod_type)
        fn = fn->u.object.data;
      else
        break;
    }
  if (!fn)
    return FALSE;
  if (fn->kind == CR_VALUE_NATIVE)
    {
      /* A builtin (print): its name, no span. */
      *out_name = g_strdup (fn->u.native.name);
      *out_span = (CrSpan) { 0 };
      return TRUE;
    }
  if (fn->kind != CR_VALUE_FUNCTION || !fn->u.function->code)
    return FALSE;
  const CrCode *code = fn->u.function->code;
  const char *name = qualified && code->qualname ? code->qualname : code->name;
  *out_name = g_strdup (name ? name : "<function>");
  /* Spans are into the script: library code (a module's backward hook
   * machinery) has none there. */
  gboolean library = fn->u.function->scope && fn->u.function->scope->is_prelude;
  *out_span = code->node && !library ? code->node->span : (CrSpan) { 0 };
  return TRUE;
}

/* The step of node: the one its hooks opened, else a new one, with what
 * does not depend on the gradients. */
static CrRecordStep *
step_for (CrBackwardRecorder *self,
          CrNode             *node)
{
  if (self->open_step && self->open_node == node)
    return self->open_step;
  CrRecordStep *step = cr_record_backward_add_step (self->backward);
  self->open_step = step;
  self->open_node = node;
  if (node->variable)
    {
      step->kind = CR_RECORD_STEP_ACCUMULATE;
      step->leaf = cr_run_recorder_tensor (self->interp, node->variable);
      step->title = g_strdup ("AccumulateGrad");
      return step;
    }
  step->kind = CR_RECORD_STEP_NODE;
  step->op = cr_run_recorder_op (self->interp, node);
  step->title = g_strdup (cr_node_name (node));
  const CrRecordOp *op = op_at (self, step->op);
  if (op && op->caption)
    {
      /* A loop runs the same line again: which time made this op. */
      GString *caption = g_string_new (op->caption);
      if (op->span.line > 0)
        {
          g_autofree char *where = cr_run_record_line_text (self->record, op->span.line, FALSE);
          g_string_append_printf (caption, ", %s", where);
        }
      g_autofree char *iteration = cr_record_iteration_text (op->loop_path, op->loop_depth);
      if (iteration)
        g_string_append_printf (caption, " · %s", iteration);
      step->caption = g_string_free (caption, FALSE);
    }
  char *name = NULL;
  CrSpan span = { 0 };
  if (describe_function (cr_torch_custom_backward_function (node), TRUE, &name, &span))
    {
      step->custom_backward = name;
      step->custom_span = span;
    }
  return step;
}

/* The step is filled: a later hook opens the next node's. */
static void
close_step (CrBackwardRecorder *self,
            CrNode             *node)
{
  self->open_step = NULL;
  self->open_node = NULL;
  self->last_node = node;
}

/* The op's rule, shown where it has no elementwise local gradient (as the
 * trace does). */
static const char *
step_rule (const CrNode *node,
           guint         n_inputs)
{
  if (n_inputs > 0 && node->op && node->op->local_grad_text && !node->custom_name
      && (!node->op->local_grad || n_inputs > 2))
    return node->op->local_grad_text;
  return NULL;
}

/* The sum-to-shape that took a gradient of shape from to the input's shape
 * to: the leading dims from has in excess, and the dims where to is 1. */
static CrRecordReduction *
reduction_new (const CrTensor     *from,
               const CrTensorMeta *to)
{
  if (cr_shape_equal (from->shape, from->ndim, to->shape, to->ndim) || to->ndim > from->ndim)
    return NULL;
  CrRecordReduction *r = g_new0 (CrRecordReduction, 1);
  r->from_ndim = from->ndim;
  memcpy (r->from_shape, from->shape, sizeof (gint64) * (gsize) from->ndim);
  r->to_ndim = to->ndim;
  if (to->ndim > 0)
    memcpy (r->to_shape, to->shape, sizeof (gint64) * (gsize) to->ndim);
  int lead = from->ndim - to->ndim;
  for (int d = 0; d < from->ndim; d++)
    if (d < lead || (to->shape[d - lead] == 1 && from->shape[d] != 1))
      r->dims[r->n_dims++] = d;
  return r;
}

static void
fill_leaf_step (CrBackwardRecorder   *self,
                CrRecordStep         *step,
                const CrBackwardStep *s)
{
  CrInterp *interp = self->interp;
  CrRecordGrad *in = cr_record_step_add_incoming (step);
  in->tensor = step->leaf;
  in->value = cr_run_recorder_snapshot (interp, s->grad_outputs ? s->grad_outputs[0] : NULL);
  step->grad_before = cr_run_recorder_snapshot (interp, s->grad_before);
  step->grad_after = cr_run_recorder_snapshot (interp, s->grad_after);
}

static void
fill_node_step (CrBackwardRecorder   *self,
                CrRecordStep         *step,
                const CrBackwardStep *s)
{
  CrInterp *interp = self->interp;
  CrNode *node = s->node;
  const CrRecordOp *op = op_at (self, step->op);

  for (guint o = 0; o < s->n_outputs; o++)
    {
      CrRecordGrad *in = cr_record_step_add_incoming (step);
      in->tensor = op && o < op->outputs->len ? g_array_index (op->outputs, int, o)
                                              : output_tensor (self, node, o);
      in->value = cr_run_recorder_snapshot (interp, s->grad_outputs ? s->grad_outputs[o] : NULL);
    }
  step->rule = step_rule (node, s->n_inputs);

  for (guint i = 0; i < s->n_inputs; i++)
    {
      CrRecordStepInput *input = cr_record_step_add_input (step);
      const CrEdge *edge = &node->next[i];
      CrTensor *local = s->local_grads ? s->local_grads[i] : NULL;
      CrTensor *grad = s->grad_inputs ? s->grad_inputs[i] : NULL;
      CrTensor *unreduced = s->unreduced_grads ? s->unreduced_grads[i] : NULL;

      input->tensor = op && i < op->inputs->len ? g_array_index (op->inputs, int, i) : -1;
      if (edge->node && edge->node->variable)
        input->to_leaf = cr_run_recorder_tensor (interp, edge->node->variable);
      else if (edge->node)
        input->to_op = cr_run_recorder_op (interp, edge->node);
      input->outgoing.tensor = input->tensor;
      input->outgoing.value = cr_run_recorder_snapshot (interp, grad);
      if (!edge->node)
        continue;
      if (local && s->n_outputs == 1)
        {
          input->local = cr_run_recorder_snapshot (interp, local);
          /* incoming × local, as the formula gave it before any sum. */
          input->product = cr_run_recorder_snapshot (interp, unreduced ? unreduced : grad);
        }
      if (unreduced && node->input_meta)
        input->reduction = reduction_new (unreduced, &node->input_meta[i]);
    }
}

/* A backward without retain_graph frees the saved tensors of each node it
 * runs, right after its formula (also when that failed). */
static void
mark_freed (CrBackwardRecorder *self,
            const CrRecordStep *step)
{
  CrRecordOp *op = op_at (self, step->op);
  if (self->retain_graph || !op)
    return;
  for (guint k = 0; k < op->saved->len; k++)
    {
      CrRecordSaved *saved = g_ptr_array_index (op->saved, k);
      if (saved->freed_backward >= 0)
        continue;
      saved->freed_backward = (int) self->backward->id;
      saved->freed_step = (int) step->index;
    }
}

/* Module hooks run inside the backward of the node made for them (an
 * identity, BackwardHookFunctionBackward): they belong to its step, on the
 * tensor it passes the gradient of; one that raised, to the failed step. */
static void
take_module_hooks (CrBackwardRecorder *self,
                   CrRecordStep       *step)
{
  const CrRecordOp *op = op_at (self, step->op);
  while (self->module_hooks->len > 0)
    {
      CrRecordHookCall *call = g_ptr_array_steal_index (self->module_hooks, 0);
      if (op && op->inputs->len > 0)
        call->tensor = g_array_index (op->inputs, int, 0);
      g_ptr_array_add (step->hooks, call);
    }
}

void
cr_backward_recorder_step (CrBackwardRecorder   *self,
                           const CrBackwardStep *s)
{
  if (!self)
    return;
  CrRecordStep *step = step_for (self, s->node);
  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    fill_leaf_step (self, step, s);
  else
    {
      fill_node_step (self, step, s);
      mark_freed (self, step);
    }
  /* Module hooks run inside the backward of the node made for them (an
   * identity, BackwardHookFunctionBackward): they belong to its step, on the
   * tensor it passes the gradient of. */
  take_module_hooks (self, step);
  close_step (self, s->node);
}

void
cr_backward_recorder_accumulate (CrBackwardRecorder *self,
                                 CrNode             *node,
                                 guint32             input_nr,
                                 CrTensor           *contribution,
                                 CrTensor           *running_sum)
{
  /* The engine adds a gradient into its receiver's buffer right after the
   * step that sent it, so it belongs to the last step. Several roots can
   * meet before any step runs (torch.autograd.backward([y, y])): the call's. */
  if (!self)
    return;
  CrRecordAccumulation *a;
  if (self->backward->steps->len == 0)
    a = cr_record_backward_add_root_accumulation (self->backward);
  else
    a = cr_record_step_add_accumulation (g_ptr_array_index (self->backward->steps,
                                                            self->backward->steps->len - 1));
  a->tensor = output_tensor (self, node, input_nr);
  a->to_op = node->variable ? -1 : cr_run_recorder_op (self->interp, node);
  a->contribution = cr_run_recorder_snapshot (self->interp, contribution);
  a->sum = cr_run_recorder_snapshot (self->interp, running_sum);
}

/* A hook call on the gradient before reaching output output_nr of node:
 * whose, which function, called with what. */
static CrRecordHookCall *
add_hook_call (CrBackwardRecorder *self,
               CrNode             *node,
               guint32             output_nr,
               const CrTensorHook *hook,
               CrTensor           *before)
{
  CrRecordStep *step = step_for (self, node);
  CrRecordHookCall *call = cr_record_step_add_hook (step);
  call->tensor = output_tensor (self, node, output_nr);
  call->before = cr_run_recorder_snapshot (self->interp, before);
  if (cr_tensor_hook_get_retained (hook))
    {
      call->kind = CR_RECORD_HOOK_RETAIN_GRAD;
      call->function = g_strdup ("retain_grad");
      return call;
    }
  call->kind = CR_RECORD_HOOK_TENSOR;
  if (!describe_function (cr_torch_hook_function (hook), FALSE, &call->function, &call->span))
    call->function = g_strdup ("hook");
  return call;
}

void
cr_backward_recorder_hook (CrBackwardRecorder *self,
                           CrNode             *node,
                           guint32             output_nr,
                           const CrTensorHook *hook,
                           CrTensor           *before,
                           CrTensor           *after)
{
  if (!self)
    return;
  CrRecordHookCall *call = add_hook_call (self, node, output_nr, hook, before);
  CrTensor *retained = cr_tensor_hook_get_retained (hook);
  call->after = cr_run_recorder_snapshot (self->interp, retained ? retained->grad : after);
}

void
cr_backward_recorder_hook_raised (CrBackwardRecorder *self,
                                  CrNode             *node,
                                  guint32             output_nr,
                                  const CrTensorHook *hook,
                                  CrTensor           *before)
{
  if (!self)
    return;
  add_hook_call (self, node, output_nr, hook, before)->raised = TRUE;
}

/* ---- errors --------------------------------------------------------------- */

/* Where the script raised error when it came out of script code (a hook,
 * a custom backward): the innermost script statement its traceback
 * crossed. NULL for an error the engine raised (the statement running). */
static const CrSpan *
raised_at (CrInterp     *interp,
           const GError *error)
{
  if (!interp->traceback || interp->traceback_owner != error)
    return NULL;
  for (guint i = 0; i < interp->traceback->len; i++)
    {
      const CrTracebackEntry *entry = &g_array_index (interp->traceback, CrTracebackEntry, i);
      if (entry->stmt && entry->scope && !entry->scope->is_prelude)
        return &entry->stmt->span;
    }
  return NULL;
}

static void
note_error (CrBackwardRecorder *self,
            const GError       *error,
            const CrRecordStep *step)
{
  CrRecordBackward *b = self->backward;
  b->succeeded = FALSE;
  if (!error || b->error >= 0)
    return;
  CrRecordError *err = cr_run_recorder_error (self->interp, error, raised_at (self->interp, error));
  if (!err)
    return;
  err->backward = (int) b->id;
  if (step)
    {
      err->step = (int) step->index;
      if (step->op >= 0)
        err->op = step->op;
      else if (step->leaf >= 0 && err->tensor < 0)
        err->tensor = step->leaf;
    }
  for (guint i = 0; i < self->record->errors->len; i++)
    if (g_ptr_array_index (self->record->errors, i) == err)
      b->error = (int) i;
}

void
cr_backward_recorder_failed (CrBackwardRecorder *self,
                             CrNode             *node,
                             CrTensor *const    *grad_outputs,
                             const GError       *error)
{
  if (!self)
    return;
  CrRecordStep *step;
  if (self->open_step && self->open_node == node)
    step = self->open_step;          /* a hook, or the formula after hooks */
  else if (self->last_node == node && self->backward->steps->len > 0)
    step = g_ptr_array_index (self->backward->steps, self->backward->steps->len - 1);
  else
    step = step_for (self, node);
  if (step == self->open_step)
    {
      /* The formula never returned: what ran is the hooks, and the
       * gradients the node was given. */
      step->failed = TRUE;
      for (guint o = 0; grad_outputs && o < (node->variable ? 1 : node->n_outputs); o++)
        {
          CrRecordGrad *in = cr_record_step_add_incoming (step);
          in->tensor = output_tensor (self, node, o);
          in->value = cr_run_recorder_snapshot (self->interp, grad_outputs[o]);
        }
      if (step->kind == CR_RECORD_STEP_NODE)
        mark_freed (self, step);
      else
        {
          /* .grad was not written: it holds what it held before. */
          step->grad_before = cr_run_recorder_snapshot (self->interp, node->variable->grad);
          step->grad_after = cr_tensor_snapshot_share (step->grad_before);
        }
    }
  take_module_hooks (self, step);
  close_step (self, node);
  note_error (self, error, step);
}

void
cr_backward_recorder_error (CrBackwardRecorder *self,
                            const GError       *error)
{
  if (self)
    note_error (self, error, NULL);
}

/* ---- names ---------------------------------------------------------------- */

static const char *
label_of (CrBackwardRecorder *self,
          int                 id)
{
  const CrRecordTensor *t = tensor_at (self, id);
  if (!t)
    return "?";
  if (t->label)
    return t->label;
  if (t->name)
    return t->name;
  if (t->origin == CR_RECORD_TENSOR_LEAF)
    return "leaf";
  return NULL;
}

/* A tensor's label, or what the run's end will call it ("[MulBackward0]"). */
static char *
name_of (CrBackwardRecorder *self,
         int                 id)
{
  const char *label = label_of (self, id);
  if (label)
    return g_strdup (label);
  const CrRecordTensor *t = tensor_at (self, id);
  /* A constant the script never named (the 3 of x ** 3's gradient): its value. */
  if (t->origin == CR_RECORD_TENSOR_CONSTANT && t->value && t->value->numel == 1
      && cr_tensor_snapshot_get_text (t->value))
    return g_strdup (cr_tensor_snapshot_get_text (t->value));
  const CrRecordOp *op = op_at (self, t->op);
  if (!op)
    return g_strdup ("?");
  return t->output_nr ? g_strdup_printf ("[%s:%u]", op->grad_fn, t->output_nr)
                      : g_strconcat ("[", op->grad_fn, "]", NULL);
}

/* "∂top/∂bottom", made for every gradient of every step: concatenated, as
 * printf costs ten times more. */
static char *
partial_name (const char *top,
              const char *bottom)
{
  return g_strconcat ("∂", top ? top : "?", "/∂", bottom ? bottom : "?", NULL);
}

static void
name_grad (CrBackwardRecorder *self,
           char              **out,
           int                 tensor)
{
  if (*out)
    return;
  g_autofree char *name = name_of (self, tensor);
  *out = partial_name (self->backward->root_name, name);
}

static void
name_step (CrBackwardRecorder *self,
           CrRecordStep       *step)
{
  for (guint o = 0; o < step->incoming->len; o++)
    {
      CrRecordGrad *g = g_ptr_array_index (step->incoming, o);
      name_grad (self, &g->name, g->tensor);
    }
  if (step->kind == CR_RECORD_STEP_ACCUMULATE && !step->caption)
    step->caption = name_of (self, step->leaf);
  /* ∂out/∂in names the local gradient of a one-output node. */
  g_autofree char *out = NULL;
  if (step->incoming->len == 1)
    out = name_of (self, ((CrRecordGrad *) g_ptr_array_index (step->incoming, 0))->tensor);
  for (guint i = 0; i < step->inputs->len; i++)
    {
      CrRecordStepInput *input = g_ptr_array_index (step->inputs, i);
      if (input->tensor < 0)
        continue;   /* a Python number (x * 2): no gradient, no name */
      if (!input->name)
        input->name = name_of (self, input->tensor);
      if (!input->local_name)
        input->local_name = partial_name (out ? out : "out", input->name);
      name_grad (self, &input->outgoing.name, input->outgoing.tensor);
    }
  for (guint k = 0; k < step->accumulations->len; k++)
    {
      CrRecordAccumulation *a = g_ptr_array_index (step->accumulations, k);
      name_grad (self, &a->name, a->tensor);
    }
}

void
cr_backward_recorder_end (CrBackwardRecorder *self,
                          gboolean            succeeded)
{
  if (!self)
    return;
  if (!succeeded)
    self->backward->succeeded = FALSE;
  for (guint k = 0; k < self->backward->steps->len; k++)
    name_step (self, g_ptr_array_index (self->backward->steps, k));
  for (guint k = 0; k < self->backward->root_grads->len; k++)
    {
      CrRecordGrad *g = g_ptr_array_index (self->backward->root_grads, k);
      name_grad (self, &g->name, g->tensor);
    }
  for (guint k = 0; k < self->backward->root_accumulations->len; k++)
    {
      CrRecordAccumulation *a = g_ptr_array_index (self->backward->root_accumulations, k);
      name_grad (self, &a->name, a->tensor);
    }
  if (running == self)
    running = self->outer;
  g_ptr_array_unref (self->module_hooks);
  cr_run_record_unref (self->record);
  g_free (self);
}

/* ---- module hooks ----------------------------------------------------------- */

/* The first tensor of a module hook's grad_input (a tuple, a list or a
 * tensor); NULL when it has none (None where an input needs no gradient). */
static CrTensor *
first_tensor (CrValue *v)
{
  if (v->kind == CR_VALUE_TENSOR)
    return v->u.tensor;
  if (v->kind != CR_VALUE_TUPLE && v->kind != CR_VALUE_LIST)
    return NULL;
  for (guint i = 0; i < v->u.seq.items->len; i++)
    {
      CrValue *item = g_ptr_array_index (v->u.seq.items, i);
      if (item->kind == CR_VALUE_TENSOR)
        return item->u.tensor;
    }
  return NULL;
}

/* torch._C._record_module_hook(hook, grad_input, returned[, raised]): the
 * prelude's module backward hook machinery reports each user hook it
 * called, and one that raised (returned None, raised True). */
CrValue *
cr_torch_native_record_module_hook (CR_NATIVE_PARAMS)
{
  if (n_args < 3 || n_args > 4 || n_kwargs != 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "_record_module_hook() takes hook, grad_input, what it returned "
                           "and whether it raised");
      return NULL;
    }
  CrBackwardRecorder *rec = running;
  if (!rec || rec->interp != interp)
    return cr_value_none ();
  CrRecordHookCall *call = g_new0 (CrRecordHookCall, 1);
  call->kind = CR_RECORD_HOOK_MODULE;
  call->tensor = -1;
  if (!describe_function (args[0], FALSE, &call->function, &call->span))
    call->function = g_strdup ("hook");
  call->before = cr_run_recorder_snapshot (interp, first_tensor (args[1]));
  if (args[2]->kind != CR_VALUE_NONE)
    call->after = cr_run_recorder_snapshot (interp, first_tensor (args[2]));
  call->raised = n_args == 4 && args[3]->kind == CR_VALUE_BOOL && args[3]->u.b;
  g_ptr_array_add (rec->module_hooks, call);
  return cr_value_none ();
}
