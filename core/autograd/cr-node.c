/* cr-node.c — backward nodes: recording, saved tensors, hooks, teardown.
 *
 * A node is one block from cr-slab: the struct, then its edges and the
 * metadata of its inputs and outputs, sized to what they need (recording a
 * 0-d op must cost a few hundred nanoseconds, and a graph of 150k nodes must
 * stay small). Arguments, a third saved tensor and the state of custom
 * functions and retain_grad() are separate blocks, made only for the nodes
 * that have them.
 * Teardown never recurses: a node whose count drops to zero goes on a per-thread
 * work queue, and only the outermost cr_node_unref() on the stack drains it, so
 * a 100k-node chain (tensor -> grad_fn -> saved tensor -> grad_fn ...) is freed
 * in a loop. */
#include "cr-node.h"

#include <string.h>

#include "cr-autograd-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-leaf-observer.h"
#include "cr-graph-observer.h"
#include "cr-ops.h"
#include "cr-slab.h"
#include "cr-tensor.h"

/* Dead nodes waiting for teardown, oldest first. */
static __thread CrNode   *pending_head;
static __thread CrNode   *pending_tail;
static __thread gboolean  draining;

static gint hook_ids;

/* Hook id -> the tensor hook list that holds it (weak), so that a handle
 * holds no tensor: a hook's function often refers to its own handle, and a
 * handle that kept the tensor (and so the hook) alive would be a cycle never
 * freed. PyTorch's handle holds a weakref to the dict for the same reason. */
static GMutex      hook_lists_lock;
static GHashTable *hook_lists;

/* ---- the rows of the engine's own nodes ---------------------------------- */

/* AccumulateGrad is run by the engine itself (hooks, .grad, the step view),
 * so its row has no backward; nor has CUSTOM, whose node carries the user's. */
const CrOpInfo cr_op_row_ACCUMULATE_GRAD = {
  CR_OP_ACCUMULATE_GRAD, "accumulate_grad", "AccumulateGrad", 0, "+=",
  "x.grad += ∂L/∂x",
  NULL, NULL
};

const CrOpInfo cr_op_row_CUSTOM = {
  CR_OP_CUSTOM, "custom", "CustomBackward", -1, "ƒ",
  "the backward() of the autograd.Function",
  NULL, NULL
};

/* ---- allocation -------------------------------------------------------- */

static const CrOpArgs no_args;

/* The sizes reserved in the node's block for output nr's meta. */
static inline gint64 *
output_dims (CrNode *node,
             guint   nr)
{
  return (gint64 *) (node->output_meta + node->n_outputs) + (gsize) nr * node->out_dims;
}

void
cr_tensor_meta_set (CrTensorMeta   *meta,
                    gint64         *dims,
                    const CrTensor *t)
{
  meta->ndim = t->ndim;
  meta->dtype = t->dtype;
  meta->device = t->device;
  if (t->ndim > 0)
    {
      memcpy (dims, t->shape, sizeof (gint64) * t->ndim);
      meta->shape = dims;
    }
  else
    meta->shape = NULL;
}

/* Output nr's meta, in the sizes reserved for it when they suffice (outputs
 * rarely have more dimensions than the inputs), else on the heap. */
static void
output_meta_set (CrNode         *node,
                 guint           nr,
                 const CrTensor *t)
{
  CrTensorMeta *meta = &node->output_meta[nr];
  gint64 *reserved = output_dims (node, nr);

  if (meta->shape != NULL && meta->shape != reserved)
    g_free ((gpointer) meta->shape);
  if (t->ndim <= (int) node->out_dims)
    cr_tensor_meta_set (meta, reserved, t);
  else
    cr_tensor_meta_set (meta, g_new (gint64, t->ndim), t);
}

/* The edge to t's history: its grad_fn, or the AccumulateGrad node of a
 * leaf that requires grad, or none. */
static CrEdge
edge_to (CrTensor *t)
{
  CrEdge edge = { NULL, 0 };

  if (t->grad_fn != NULL)
    {
      edge.node = cr_node_ref (t->grad_fn);
      edge.input_nr = t->output_nr;
    }
  else if (t->requires_grad)
    edge.node = cr_autograd_grad_accumulator (t);
  return edge;
}

/* One block: the struct, the edges of a node with more than two inputs, the
 * metas of inputs and outputs, then the sizes (outputs' first). Every
 * output meta gets as many sizes as the largest input has. */
static CrNode *
node_alloc (const CrOpInfo  *op,
            CrTensor *const *inputs,
            guint            n_inputs,
            guint            n_outputs,
            guint            out_dims)
{
  gboolean inline_edges = n_inputs <= G_N_ELEMENTS (((CrNode *) NULL)->inline_next);
  CrEdge edges[G_N_ELEMENTS (((CrNode *) NULL)->inline_next)] = { { NULL, 0 } };
  guint in_dims = 0;
  gsize size;
  CrNode *node;
  CrTensorMeta *metas;
  gint64 *dims;

  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL)
      {
        in_dims += inputs[i]->ndim;
        out_dims = MAX (out_dims, (guint) inputs[i]->ndim);
      }
  /* The edges of a small node are taken before its block is written: an
   * atomic increment waits for every store before it, and the block's are
   * misses (freed memory is cold). */
  if (inline_edges)
    for (guint i = 0; i < n_inputs; i++)
      if (inputs[i] != NULL)
        edges[i] = edge_to (inputs[i]);

  size = sizeof (CrNode)
         + (inline_edges ? 0 : n_inputs * sizeof (CrEdge))
         + (n_inputs + n_outputs) * sizeof (CrTensorMeta)
         + (in_dims + n_outputs * out_dims) * sizeof (gint64);
  node = cr_slab_alloc0 (size);
  node->block_size = size <= CR_SLAB_MAX_SIZE ? size : 0;
  node->next = inline_edges ? node->inline_next : (CrEdge *) (node + 1);
  metas = (CrTensorMeta *) (inline_edges ? (gpointer) (node + 1) : (gpointer) (node->next + n_inputs));

  node->ref_count = 1;
  node->op = op;
  node->n_inputs = n_inputs;
  node->n_outputs = n_outputs;
  node->out_dims = out_dims;
  node->input_meta = metas;
  node->output_meta = metas + n_inputs;
  node->saved = node->inline_saved;
  node->args = (CrOpArgs *) &no_args;
  node->span = *cr_autograd_get_current_span ();

  dims = output_dims (node, n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      CrTensor *t = inputs[i];

      if (t == NULL)
        continue;
      cr_tensor_meta_set (&node->input_meta[i], dims, t);
      dims += t->ndim;
      node->next[i] = inline_edges ? edges[i] : edge_to (t);
    }
  return node;
}

CrOpArgs *
cr_node_args (CrNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->args == &no_args)
    node->args = g_new0 (CrOpArgs, 1);
  return node->args;
}

static CrNodeExtra *
node_extra (CrNode *node)
{
  if (node->extra == NULL)
    node->extra = g_new0 (CrNodeExtra, 1);
  return node->extra;
}

gboolean
cr_autograd_should_record (CrTensor *const *inputs,
                           guint            n_inputs)
{
  if (!cr_grad_mode_is_enabled ())
    return FALSE;
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && inputs[i]->requires_grad)
      return TRUE;
  return FALSE;
}

CrNode *
cr_node_new (CrOpId           op,
             CrTensor *const *inputs,
             guint            n_inputs,
             guint            n_outputs)
{
  CrNode *node;

  g_return_val_if_fail ((guint) op < CR_OP_COUNT, NULL);

  node = node_alloc (cr_op_info (op), inputs, n_inputs, n_outputs, 0);
  node->sequence_nr = cr_autograd_next_sequence_nr ();
  cr_autograd_notify_node_made (node, inputs, n_inputs);
  return node;
}

CrNode *
cr_node_new_custom (const char           *name,
                    CrTensor *const      *inputs,
                    guint                 n_inputs,
                    guint                 n_outputs,
                    CrCustomBackwardFunc  backward,
                    gpointer              user_data,
                    GDestroyNotify        destroy)
{
  CrNode *node = node_alloc (cr_op_info (CR_OP_CUSTOM), inputs, n_inputs, n_outputs, 0);
  CrNodeExtra *extra = node_extra (node);

  node->sequence_nr = cr_autograd_next_sequence_nr ();
  cr_autograd_notify_node_made (node, inputs, n_inputs);
  node->custom_name = g_strdup (name);
  extra->custom_backward = backward;
  extra->custom_data = user_data;
  extra->custom_destroy = destroy;
  /* The interpreter reads a custom node's saved slots directly, so all of
   * them exist from the start. */
  node->saved = g_new0 (CrSavedTensor, CR_NODE_MAX_SAVED);
  return node;
}

CrNode *
cr_autograd_grad_accumulator (CrTensor *leaf)
{
  CrNode *node;

  g_return_val_if_fail (leaf != NULL && leaf->grad_fn == NULL, NULL);

  if (leaf->grad_accumulator != NULL)
    return cr_node_ref (leaf->grad_accumulator);

  node = node_alloc (cr_op_info (CR_OP_ACCUMULATE_GRAD), NULL, 0, 1, leaf->ndim);
  /* PyTorch gives AccumulateGrad the largest sequence number, so that it runs
   * as soon as it is ready; it takes none from the counter. */
  node->sequence_nr = G_MAXUINT64;
  node->variable = cr_tensor_ref (leaf);
  output_meta_set (node, 0, leaf);
  leaf->grad_accumulator = node;
  cr_autograd_notify_leaf (leaf, CR_LEAF_USED);
  return node;
}

/* ---- history ----------------------------------------------------------- */

static gboolean
retain_grad_hook (const CrTensor  *grad,
                  CrTensor       **out_replacement,
                  gpointer         user_data,
                  GError         **error)
{
  CrTensor *self = user_data;   /* weak; NULL once the tensor is gone */
  CrTensor *updated;

  if (self == NULL || grad == NULL)
    return TRUE;
  /* PyTorch 1.13: clone on the first gradient, then an out-of-place sum, both
   * recorded when the backward creates a graph. */
  if (self->grad == NULL)
    updated = cr_clone ((CrTensor *) grad, error);
  else
    updated = cr_add (self->grad, (CrTensor *) grad, error);
  if (updated == NULL)
    return FALSE;
  cr_tensor_unref (self->grad);
  self->grad = updated;
  return TRUE;
}

static CrTensorHook *
hook_new (guint32           output_nr,
          CrTensorHookFunc  func,
          gpointer          user_data,
          GDestroyNotify    destroy)
{
  CrTensorHook *hook = g_new0 (CrTensorHook, 1);

  hook->ref_count = 1;
  hook->id = (guint) g_atomic_int_add (&hook_ids, 1) + 1;
  hook->output_nr = output_nr;
  hook->func = func;
  hook->user_data = user_data;
  hook->destroy = destroy;
  return hook;
}

CrTensorHook *
cr_tensor_hook_ref (CrTensorHook *hook)
{
  g_return_val_if_fail (hook != NULL, NULL);

  hook->ref_count++;
  return hook;
}

void
cr_tensor_hook_unref (gpointer data)
{
  CrTensorHook *hook = data;

  if (hook == NULL || --hook->ref_count > 0)
    return;
  if (hook->destroy != NULL)
    hook->destroy (hook->user_data);
  if (hook->tensor_hooks != NULL)
    g_ptr_array_unref (hook->tensor_hooks);
  g_free (hook);
}

/* The free function of a tensor's hook list: the hook leaves it. */
static void
hook_leave_list (gpointer data)
{
  CrTensorHook *hook = data;

  g_mutex_lock (&hook_lists_lock);
  g_hash_table_remove (hook_lists, GUINT_TO_POINTER (hook->id));
  g_mutex_unlock (&hook_lists_lock);
  cr_tensor_hook_unref (hook);
}

static CrTensorHook *
steal_retain_hook (CrNode   *node,
                   CrTensor *tensor)
{
  if (node == NULL || node->pre_hooks == NULL)
    return NULL;
  for (guint i = 0; i < node->pre_hooks->len; i++)
    {
      CrTensorHook *hook = node->pre_hooks->pdata[i];

      if (hook->func == retain_grad_hook && hook->user_data == tensor)
        {
          g_ptr_array_steal_index (node->pre_hooks, i);
          if (node->extra != NULL && node->extra->retained != NULL)
            g_ptr_array_remove (node->extra->retained, tensor);
          return hook;
        }
    }
  return NULL;
}

static void
add_retain_hook (CrNode       *node,
                 CrTensor     *tensor,
                 CrTensorHook *hook)
{
  if (node->pre_hooks == NULL)
    node->pre_hooks = g_ptr_array_new_with_free_func (cr_tensor_hook_unref);
  if (node_extra (node)->retained == NULL)
    node->extra->retained = g_ptr_array_new ();
  hook->output_nr = tensor->output_nr;
  g_ptr_array_add (node->pre_hooks, hook);
  g_ptr_array_add (node->extra->retained, tensor);
}

/* Makes node out's grad_fn, taking the reference given (ref: whether to take
 * one of its own instead). */
static void
set_history (CrTensor *out,
             CrNode   *node,
             guint32   output_nr,
             gboolean  ref)
{
  CrNode *old = out->grad_fn;

  if (old != node)
    out->grad_fn = ref ? cr_node_ref (node) : node;
  else if (!ref)
    cr_node_unref (node);
  out->output_nr = output_nr;
  out->requires_grad = TRUE;
  output_meta_set (node, output_nr, out);
  cr_autograd_notify_history (out, node, output_nr);

  if (old != NULL && old != node)
    {
      if (out->retains_grad)
        {
          CrTensorHook *hook = steal_retain_hook (old, out);

          if (hook != NULL)
            add_retain_hook (node, out, hook);
        }
      cr_node_unref (old);
    }
}

void
cr_autograd_set_history (CrTensor *out,
                         CrNode   *node,
                         guint32   output_nr)
{
  g_return_if_fail (out != NULL && node != NULL && output_nr < node->n_outputs);

  set_history (out, node, output_nr, TRUE);
}

void
cr_autograd_set_history_take (CrTensor *out,
                              CrNode   *node,
                              guint32   output_nr)
{
  g_return_if_fail (out != NULL && node != NULL && output_nr < node->n_outputs);

  set_history (out, node, output_nr, FALSE);
}

gboolean
cr_autograd_is_no_grad_view (const CrTensor *self)
{
  return self->view_base != NULL && self->grad_fn == NULL && self->requires_grad;
}

/* PyTorch's rule for in-place ops (check_inplace), without the version bump.
 * A view of a leaf is refused whether or not the view has a grad_fn: written
 * in place, the leaf would get CopySlices as its history, whose edge leads to
 * the leaf's own AccumulateGrad, a cycle that is never freed. */
gboolean
cr_autograd_check_inplace_rules (CrTensor  *self,
                                 GError   **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->storage != NULL && self->storage->is_inference && !cr_inference_mode_is_enabled ())
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.");
      return FALSE;
    }
  if (!cr_grad_mode_is_enabled ())
    return TRUE;
  if (cr_autograd_is_no_grad_view (self))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "A view was created in no_grad mode and is being modified inplace with grad mode "
                           "enabled. Given that this use case is ambiguous and error-prone, it is "
                           "forbidden. You can clarify your code by moving both the view and the "
                           "inplace either both inside the no_grad block (if you don't want the "
                           "inplace to be tracked) or both outside (if you want the inplace to be "
                           "tracked).");
      return FALSE;
    }
  if (self->view_base != NULL && self->view_base->grad_fn == NULL
      && self->view_base->requires_grad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "a view of a leaf Variable that requires grad is being used "
                           "in an in-place operation.");
      return FALSE;
    }
  if (self->grad_fn == NULL && self->requires_grad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "a leaf Variable that requires grad is being used in an "
                           "in-place operation.");
      return FALSE;
    }
  return TRUE;
}

gboolean
cr_autograd_check_inplace (CrTensor  *self,
                           GError   **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  cr_tensor_bump_version (self);
  return TRUE;
}

/* ---- saved tensors ----------------------------------------------------- */

static __thread gboolean saved_inference_tensor;

gboolean
cr_node_take_save_error (GError **error)
{
  if (G_LIKELY (!saved_inference_tensor))
    return TRUE;
  saved_inference_tensor = FALSE;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Inference tensors cannot be saved for backward. To work around you can "
                       "make a clone to get a normal tensor and use it in autograd.");
  return FALSE;
}

void
cr_node_save (CrNode   *node,
              guint     slot,
              CrTensor *t,
              gboolean  is_output)
{
  CrSavedTensor *saved;

  g_return_if_fail (node != NULL && slot < CR_NODE_MAX_SAVED);

  if (t == NULL)
    return;
  if (G_UNLIKELY (t->storage != NULL && t->storage->is_inference)
      && !cr_inference_mode_is_enabled ())
    saved_inference_tensor = TRUE;
  if (slot >= G_N_ELEMENTS (node->inline_saved) && node->saved == node->inline_saved)
    {
      node->saved = g_new0 (CrSavedTensor, CR_NODE_MAX_SAVED);
      memcpy (node->saved, node->inline_saved, sizeof node->inline_saved);
    }
  saved = &node->saved[slot];
  g_clear_pointer (&saved->tensor, cr_tensor_unref);
  /* An output is kept as an alias without history: the output owns the node,
   * so keeping the output itself would be a cycle. An input is kept as is,
   * which is what lets a double backward see its history. */
  saved->tensor = is_output ? cr_tensor_alias (t) : cr_tensor_ref (t);
  saved->version = cr_tensor_version (t);
  saved->is_output = is_output != FALSE;
  saved->was_saved = TRUE;
  saved->output_nr = (is_output && t->grad_fn != node) ? 0 : t->output_nr;
  node->n_saved = MAX (node->n_saved, slot + 1);
}

void
cr_node_release_saved (CrNode *node)
{
  for (guint i = 0; i < node->n_saved; i++)
    g_clear_pointer (&node->saved[i].tensor, cr_tensor_unref);
  node->released = TRUE;
}

CrTensor *
cr_node_get_saved (CrNode   *node,
                   guint     slot,
                   GError  **error)
{
  CrSavedTensor *saved;
  CrTensor *t;
  guint32 version;

  g_return_val_if_fail (node != NULL && slot < CR_NODE_MAX_SAVED, NULL);

  if (slot >= node->n_saved)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s has no saved tensor in slot %u", cr_node_name (node), slot);
      return NULL;
    }
  saved = &node->saved[slot];
  t = saved->tensor;
  if (t == NULL)
    {
      if (saved->was_saved && node->released)
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                             "Trying to backward through the graph a second time (or "
                             "directly access saved tensors after they have already been "
                             "freed). Saved intermediate values of the graph are freed when "
                             "you call .backward() or autograd.grad(). Specify "
                             "retain_graph=True if you need to backward through the graph "
                             "a second time or if you need to access saved tensors after "
                             "calling backward.");
      else
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "%s has no saved tensor in slot %u", cr_node_name (node), slot);
      return NULL;
    }

  version = cr_tensor_version (t);
  if (version != saved->version)
    {
      g_autofree char *shape = cr_shape_to_string (t->shape, t->ndim);
      GString *msg = g_string_new (NULL);
      const CrNode *grad_fn = saved->is_output ? node : t->grad_fn;

      g_string_append_printf (msg, "one of the variables needed for gradient computation "
                               "has been modified by an inplace operation: [%s %s]",
                               cr_dtype_legacy_name (t->dtype), shape);
      if (grad_fn != NULL)
        g_string_append_printf (msg, ", which is output %u of %s,", saved->output_nr,
                                cr_node_name (grad_fn));
      g_string_append_printf (msg, " is at version %u; expected version %u instead. Hint: "
                              "enable anomaly detection to find the operation that failed "
                              "to compute its gradient, with "
                              "torch.autograd.set_detect_anomaly(True).",
                              version, saved->version);
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, msg->str);
      g_string_free (msg, TRUE);
      return NULL;
    }

  if (saved->is_output && cr_grad_mode_is_enabled ())
    {
      /* A double backward must see the output with its history. */
      CrTensor *out = cr_tensor_alias (t);

      out->grad_fn = cr_node_ref (node);
      out->output_nr = saved->output_nr;
      out->requires_grad = TRUE;
      return out;
    }
  return cr_tensor_ref (t);
}

/* ---- refcounting and teardown ------------------------------------------ */

CrNode *
cr_node_ref (CrNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_atomic_int_inc (&node->ref_count);
  return node;
}

static void
node_dispose (CrNode *node)
{
  /* Freeing a big graph walks cold memory: ask for the saved tensors at
   * once rather than one miss after the other. */
  for (guint i = 0; i < node->n_saved; i++)
    __builtin_prefetch (node->saved[i].tensor, 1);

  for (guint i = 0; i < node->n_inputs; i++)
    cr_node_unref (node->next[i].node);
  for (guint i = 0; i < node->n_saved; i++)
    cr_tensor_unref (node->saved[i].tensor);
  if (node->variable != NULL)
    {
      if (node->variable->grad_accumulator == node)
        node->variable->grad_accumulator = NULL;
      cr_tensor_unref (node->variable);
    }
  if (node->pre_hooks != NULL)
    g_ptr_array_unref (node->pre_hooks);
  if (node->extra != NULL)
    {
      CrNodeExtra *extra = node->extra;

      /* Retained tensors own this node as grad_fn and take their hooks out
       * when they go, so whatever is left here points at nothing alive. */
      if (extra->retained != NULL)
        g_ptr_array_unref (extra->retained);
      if (extra->custom_destroy != NULL)
        extra->custom_destroy (extra->custom_data);
      g_free (extra);
    }
  for (guint i = 0; i < node->n_outputs; i++)
    {
      const gint64 *shape = node->output_meta[i].shape;

      if (shape != NULL && shape != output_dims (node, i))
        g_free ((gpointer) shape);
    }
  if (node->saved != node->inline_saved)
    g_free (node->saved);
  if (node->args != &no_args)
    g_free (node->args);
  g_free (node->custom_name);
  cr_slab_free (node, node->block_size);
}

void
cr_node_unref (CrNode *node)
{
  if (node == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&node->ref_count))
    return;

  /* First in, first out: the nodes this one releases are asked for now and
   * released after the nodes already waiting, by which time they are in the
   * cache (tearing down a big graph is a walk through cold memory). */
  for (guint i = 0; i < MIN (node->n_inputs, 2u); i++)
    __builtin_prefetch (node->next[i].node, 1);
  node->free_next = NULL;
  if (pending_tail != NULL)
    pending_tail->free_next = node;
  else
    pending_head = node;
  pending_tail = node;
  if (draining)
    return;

  draining = TRUE;
  while (pending_head != NULL)
    {
      node = pending_head;
      pending_head = node->free_next;
      if (pending_head == NULL)
        pending_tail = NULL;
      node_dispose (node);
    }
  draining = FALSE;
}

const char *
cr_node_name (const CrNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->custom_name != NULL)
    return node->custom_name;
  return node->op->grad_fn_name;
}

gpointer
cr_node_get_custom_data (const CrNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->op == NULL || node->op->id != CR_OP_CUSTOM || node->extra == NULL)
    return NULL;
  return node->extra->custom_data;
}

/* ---- tensor-side state ------------------------------------------------- */

void
cr_autograd_tensor_finalize (CrTensor *self)
{
  if (self->retains_grad && self->grad_fn != NULL)
    {
      CrTensorHook *hook = steal_retain_hook (self->grad_fn, self);

      /* A running backward may still hold it: it must not reach self. */
      if (hook != NULL)
        hook->user_data = NULL;
      cr_tensor_hook_unref (hook);
    }
  self->retains_grad = FALSE;
  g_clear_pointer (&self->hooks, g_ptr_array_unref);
  g_clear_pointer (&self->grad_fn, cr_node_unref);
  g_clear_pointer (&self->grad, cr_tensor_unref);
  g_clear_pointer (&self->view_base, cr_tensor_unref);
}

guint
cr_tensor_register_hook (CrTensor         *self,
                         CrTensorHookFunc  func,
                         gpointer          user_data,
                         GDestroyNotify    destroy,
                         GError          **error)
{
  CrTensorHook *hook;

  g_return_val_if_fail (self != NULL && func != NULL, 0);

  if (!self->requires_grad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "cannot register a hook on a tensor that doesn't require gradient");
      return 0;
    }
  /* As PyTorch 1.13's register_hook: the list is made with the first hook
   * and, for a non-leaf, put in the grad_fn of that moment, where it stays
   * (an in-place op later gives the tensor a new grad_fn, not its hooks). */
  if (self->hooks == NULL)
    {
      self->hooks = g_ptr_array_new_with_free_func (hook_leave_list);
      if (self->grad_fn != NULL)
        {
          CrTensorHook *entry = hook_new (self->output_nr, NULL, NULL, NULL);

          entry->tensor_hooks = g_ptr_array_ref (self->hooks);
          if (self->grad_fn->pre_hooks == NULL)
            self->grad_fn->pre_hooks = g_ptr_array_new_with_free_func (cr_tensor_hook_unref);
          g_ptr_array_add (self->grad_fn->pre_hooks, entry);
        }
    }
  hook = hook_new (self->output_nr, func, user_data, destroy);
  g_ptr_array_add (self->hooks, hook);
  g_mutex_lock (&hook_lists_lock);
  if (hook_lists == NULL)
    hook_lists = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (hook_lists, GUINT_TO_POINTER (hook->id), self->hooks);
  g_mutex_unlock (&hook_lists_lock);
  return hook->id;
}

static void
remove_from (GPtrArray *hooks,
             guint      id)
{
  for (guint i = 0; hooks != NULL && i < hooks->len; i++)
    if (((CrTensorHook *) hooks->pdata[i])->id == id)
      {
        g_ptr_array_remove_index (hooks, i);
        return;
      }
}

void
cr_hook_remove (guint id)
{
  GPtrArray *hooks = NULL;

  /* A list is only changed by the thread that runs its script, so it cannot
   * go between the lookup and the removal. */
  g_mutex_lock (&hook_lists_lock);
  if (hook_lists != NULL)
    hooks = g_hash_table_lookup (hook_lists, GUINT_TO_POINTER (id));
  g_mutex_unlock (&hook_lists_lock);
  remove_from (hooks, id);
}

void
cr_tensor_remove_hook (CrTensor *self,
                       guint     id)
{
  g_return_if_fail (self != NULL);

  remove_from (self->hooks, id);
}

gboolean
cr_tensor_retain_grad (CrTensor  *self,
                       GError   **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->requires_grad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "can't retain_grad on Tensor that has requires_grad=False");
      return FALSE;
    }
  /* A leaf keeps its .grad anyway; a second call changes nothing. */
  if (self->grad_fn == NULL || self->retains_grad)
    return TRUE;
  add_retain_hook (self->grad_fn, self, hook_new (self->output_nr, retain_grad_hook, self, NULL));
  self->retains_grad = TRUE;
  return TRUE;
}

CrTensor *
cr_tensor_hook_get_retained (const CrTensorHook *hook)
{
  g_return_val_if_fail (hook != NULL, NULL);

  return hook->func == retain_grad_hook ? hook->user_data : NULL;
}

gboolean
cr_tensor_set_requires_grad (CrTensor  *self,
                             gboolean   requires_grad,
                             GError   **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->grad_fn != NULL)
    {
      if (requires_grad)
        return TRUE;
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "you can only change requires_grad flags of leaf variables. If "
                           "you want to use a computed variable in a subgraph that doesn't "
                           "require differentiation use var_no_grad = var.detach().");
      return FALSE;
    }
  if (requires_grad && !cr_dtype_is_floating (self->dtype))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "only Tensors of floating point dtype can require gradients");
      return FALSE;
    }
  if (requires_grad && self->storage != NULL && self->storage->is_inference
      && !cr_inference_mode_is_enabled ())
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.");
      return FALSE;
    }
  gboolean was = self->requires_grad;
  self->requires_grad = requires_grad != FALSE;
  if (self->requires_grad && !was)
    cr_autograd_notify_leaf (self, CR_LEAF_MADE);
  return TRUE;
}
