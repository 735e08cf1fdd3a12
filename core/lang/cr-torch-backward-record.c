/* cr-torch-backward-record.c — what the engine does during each backward call,
 * handed to the run record's backward side (cr-run-recorder-backward.h),
 * and, at the end of each call, printed from the run record for `chainrule
 * run --trace-backward` (the text is cr-run-record-trace.c's).
 *
 * A tensor is named after the variable it was first bound to; an unnamed
 * intermediate after the expression that made it, "(w3*b)". */
#include "cr-interp-private.h"
#include "cr-torch-private.h"
#include "cr-torch-state.h"
#include "cr-node.h"
#include "cr-op-table.h"
#include "cr-run-recorder.h"
#include "cr-run-recorder-backward.h"
#include "cr-run-record-trace.h"
#include "cr-torch-forward-trace.h"

#include <string.h>

typedef struct {
  guint64   sequence_nr;
  gboolean  is_name;
  char     *label;
} NodeLabel;

struct _CrBackwardRun {
  CrInterp          *interp;
  char              *root;       /* the numerator of every ∂: "L" */
  guint              number;
  CrBackwardRecorder *recorder;  /* the run record's side; NULL when it records nothing */
  int                trace_index; /* --trace-backward: this call's index in the run record's
                                   * backwards, -1: none */
};

static void
node_label_free (gpointer data)
{
  NodeLabel *l = data;
  g_free (l->label);
  g_free (l);
}

static GHashTable *
labels (CrInterp *self)
{
  CrTorchState *state = cr_torch_state (self);
  if (!state->node_labels)
    state->node_labels = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                node_label_free);
  return state->node_labels;
}

/* The text a span covers (first line only, with an ellipsis past it). */
static char *
span_text (CrInterp     *self,
           const CrSpan *span)
{
  char *text = self->module ? cr_source_span_text (self->module->source, span) : NULL;
  if (text && span->end_line > span->line)
    {
      char *more = g_strconcat (text, " …", NULL);
      g_free (text);
      text = more;
    }
  return text;
}

void
cr_backward_labels_note_binding (CrInterp   *self,
                                 CrTensor   *tensor,
                                 const char *name)
{
  CrNode *node = tensor->grad_fn;
  if (!node || tensor->output_nr != 0)
    return;
  NodeLabel *l = g_hash_table_lookup (labels (self), node);
  if (l && l->sequence_nr == node->sequence_nr && l->is_name)
    return;
  l = g_new0 (NodeLabel, 1);
  l->sequence_nr = node->sequence_nr;
  l->is_name = TRUE;
  l->label = g_strdup (name);
  g_hash_table_insert (labels (self), node, l);
}

void
cr_backward_labels_note_expr (CrInterp        *self,
                              CrTensor        *tensor,
                              const CrAstNode *expr)
{
  CrNode *node = tensor->grad_fn;
  if (!node || tensor->output_nr != 0)
    return;
  NodeLabel *l = g_hash_table_lookup (labels (self), node);
  if (l && l->sequence_nr == node->sequence_nr)
    return;
  char *text = span_text (self, &expr->span);
  if (!text)
    return;
  l = g_new0 (NodeLabel, 1);
  l->sequence_nr = node->sequence_nr;
  l->label = g_strdup_printf ("(%s)", text);
  g_free (text);
  g_hash_table_insert (labels (self), node, l);
}

/* The name of output output_nr of node, as the trace writes it after ∂. */
static char *
output_label (CrInterp *self,
              CrNode   *node,
              guint32   output_nr)
{
  if (!node)
    return g_strdup ("?");
  if (node->variable)
    {
      const char *name = cr_tensor_get_name (node->variable);
      return g_strdup (name ? name : "leaf");
    }
  GHashTable *node_labels = cr_torch_state (self)->node_labels;
  NodeLabel *l = node_labels ? g_hash_table_lookup (node_labels, node) : NULL;
  const char *base = l && l->sequence_nr == node->sequence_nr ? l->label : NULL;
  if (!base)
    return output_nr ? g_strdup_printf ("[%s:%u]", cr_node_name (node), output_nr)
                     : g_strdup_printf ("[%s]", cr_node_name (node));
  return output_nr ? g_strdup_printf ("%s[%u]", base, output_nr) : g_strdup (base);
}

static void
observer_step (gpointer              user_data,
               const CrBackwardStep *step)
{
  CrBackwardRun *run = user_data;
  cr_backward_recorder_step (run->recorder, step);
}

static void
observer_accumulate (gpointer  user_data,
                     CrNode   *node,
                     guint32   input_nr,
                     CrTensor *contribution,
                     CrTensor *running_sum)
{
  CrBackwardRun *run = user_data;
  cr_backward_recorder_accumulate (run->recorder, node, input_nr, contribution, running_sum);
}

static void
observer_hook (gpointer            user_data,
               CrNode             *node,
               guint32             output_nr,
               const CrTensorHook *hook,
               CrTensor           *before,
               CrTensor           *after)
{
  CrBackwardRun *run = user_data;
  cr_backward_recorder_hook (run->recorder, node, output_nr, hook, before, after);
}

static void
observer_failed (gpointer         user_data,
                 CrNode          *node,
                 guint            index,
                 CrTensor *const *grad_outputs,
                 const GError    *error)
{
  CrBackwardRun *run = user_data;
  cr_backward_recorder_failed (run->recorder, node, grad_outputs, error);
}

static void
observer_hook_raised (gpointer            user_data,
                      CrNode             *node,
                      guint32             output_nr,
                      const CrTensorHook *hook,
                      CrTensor           *before,
                      const GError       *error)
{
  CrBackwardRun *run = user_data;
  cr_backward_recorder_hook_raised (run->recorder, node, output_nr, hook, before);
}

static const CrBackwardObserver observer = {
  observer_step,
  observer_accumulate,
  observer_hook,
  observer_failed,
  observer_hook_raised,
};

/* Which input of node t (saved in slot) is: the edge that carries its
 * history, or for a tensor without one (no gradient), an edge-less input
 * of its shape and dtype, when PyTorch's node saves a tensor there too (a
 * slot it has no name for holds the op's own tensor: index_copy_'s mask of
 * self's shape is no self). claimed keeps x*x's two saved x apart. */
static int
find_input (const CrNode   *node,
            guint           slot,
            const CrTensor *t,
            guint32        *claimed)
{
  if (!t->grad_fn && !t->requires_grad && node->op && node->op->id != CR_OP_CUSTOM
      && !cr_torch_saved_tensor_name (node, slot))
    return -1;
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < node->n_inputs && i < 32; i++)
      {
        const CrEdge *e = &node->next[i];
        if (pass == 0 && (*claimed & (1u << i)))
          continue;
        gboolean match;
        if (t->grad_fn)
          match = e->node == t->grad_fn && e->input_nr == t->output_nr;
        else if (t->requires_grad)
          match = e->node && e->node->variable == t;
        else
          {
            const CrTensorMeta *m = node->input_meta ? &node->input_meta[i] : NULL;
            match = !e->node && m && m->dtype == t->dtype
                    && cr_shape_equal (m->shape, m->ndim, t->shape, t->ndim);
          }
        if (match)
          {
            *claimed |= 1u << i;
            return (int) i;
          }
      }
  return -1;
}

guint
cr_node_describe_saved (CrNode        *node,
                        CrSavedRecord *out)
{
  guint n = 0;
  guint32 claimed = 0;
  if (!node || !node->saved)
    return 0;
  for (guint slot = 0; slot < node->n_saved && slot < CR_NODE_MAX_SAVED; slot++)
    {
      const CrSavedTensor *sv = &node->saved[slot];
      if (!sv->was_saved)
        continue;
      CrSavedRecord *r = &out[n++];
      memset (r, 0, sizeof *r);
      r->slot = slot;
      r->input = -1;
      r->is_output = sv->is_output;
      const CrTensor *t = sv->tensor;
      if (t)
        {
          r->known = TRUE;
          r->is_number = t->is_wrapped_number;
          /* x.unsqueeze(0) saved for matmul is still x to the reader. */
          r->variable = cr_tensor_get_name (t);
          if (!r->variable && t->view_base)
            r->variable = cr_tensor_get_name (t->view_base);
          r->identity = t;
          r->ndim = t->ndim;
          memcpy (r->shape, t->shape, sizeof (gint64) * (gsize) t->ndim);
          r->dtype = t->dtype;
          r->device = t->device;
          if (!sv->is_output)
            r->input = find_input (node, slot, t, &claimed);
        }
      /* PyTorch's _saved_<name>; a custom Function's are only numbered. */
      r->name = cr_torch_saved_tensor_name (node, slot);
      if (!r->name && sv->is_output && node->op && node->op->id != CR_OP_CUSTOM)
        r->name = "result";
      if (!r->name && r->input < 0 && (r->name = cr_torch_saved_internal_name (node, slot)))
        r->internal = TRUE;
    }
  return n;
}

const CrBackwardObserver *
cr_interp_backward_begin (CrInterp        *self,
                          CrTensor *const *roots,
                          guint            n_roots,
                          gpointer        *out_observer_data)
{
  *out_observer_data = NULL;
  if (!self->options.record_backward && !self->options.trace_backward)
    return NULL;
  cr_run_recorder_backward_begin (self, roots, n_roots);
  CrBackwardRun *run = g_new0 (CrBackwardRun, 1);
  run->interp = self;
  run->number = ++cr_torch_state (self)->n_backward_calls;

  if (n_roots > 0 && roots[0])
    {
      const char *name = cr_tensor_get_name (roots[0]);
      if (name)
        run->root = g_strdup (name);
      else if (roots[0]->grad_fn)
        run->root = output_label (self, roots[0]->grad_fn, roots[0]->output_nr);
    }
  if (!run->root)
    run->root = g_strdup ("out");
  CrRunRecord *run_record = cr_run_recorder_get (self);
  run->trace_index = run_record ? (int) run_record->backwards->len : -1;
  if (self->options.trace_backward)
    cr_run_recorder_trace_begin (self);
  run->recorder = cr_backward_recorder_begin (self, roots, n_roots, run->root);

  *out_observer_data = run;
  return &observer;
}

void
cr_interp_backward_end (CrInterp *self,
                        gpointer  observer_data,
                        gboolean  succeeded)
{
  CrBackwardRun *run = observer_data;
  if (!run)
    return;
  cr_backward_recorder_end (run->recorder, succeeded);
  /* --trace-backward prints the call from the run record, once it is whole. */
  CrRunRecord *run_record = cr_run_recorder_get (self);
  /* --trace-forward: the ops that led to this call come first. */
  cr_forward_trace_backward (self, run->trace_index);
  if (self->options.trace_backward && run_record && run->trace_index >= 0)
    {
      g_autofree char *text = cr_run_record_trace_backward (run_record, (guint) run->trace_index);
      cr_interp_write (self, text, FALSE);
    }
  if (self->options.trace_backward)
    cr_run_recorder_trace_end (self);
  g_free (run->root);
  g_free (run);
}

void
cr_interp_backward_set_options (CrInterp                *self,
                                gpointer                 observer_data,
                                const CrBackwardOptions *options)
{
  CrBackwardRun *run = observer_data;
  if (run)
    cr_backward_recorder_set_options (run->recorder, options);
}

void
cr_interp_backward_set_root_grads (CrInterp        *self,
                                   gpointer         observer_data,
                                   CrTensor *const *roots,
                                   CrTensor *const *grad_roots,
                                   guint            n_roots)
{
  CrBackwardRun *run = observer_data;
  if (run)
    cr_backward_recorder_set_root_grads (run->recorder, roots, grad_roots, n_roots);
}

void
cr_interp_backward_set_error (CrInterp     *self,
                              gpointer      observer_data,
                              const GError *error)
{
  CrBackwardRun *run = observer_data;
  if (run)
    cr_backward_recorder_error (run->recorder, error);
}

void
cr_backward_labels_free (CrTorchState *state)
{
  g_clear_pointer (&state->node_labels, g_hash_table_unref);
}
