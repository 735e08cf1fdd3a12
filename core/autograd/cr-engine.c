/* cr-engine.c — the backward engine (PyTorch 1.13's Engine::execute, one thread).
 *
 * A run has four phases:
 *   1. validate the roots and their gradients (torch.autograd.backward's
 *      _make_grads, then the engine's checks), with PyTorch's messages;
 *   2. count, for every node reachable from the roots, how many gradients it
 *      will receive (an explicit stack, never recursion);
 *   3. for torch.autograd.grad, mark the nodes that lie on a path to an input
 *      (the others are skipped, as PyTorch's exec_info does);
 *   4. run: a node is ready when its count drops to zero; the ready node with
 *      the highest sequence number runs first.
 *
 * The ready queue reproduces libstdc++'s std::priority_queue (push_heap and
 * pop_heap, step by step), so that nodes with equal sequence numbers (the
 * AccumulateGrad nodes) come out in exactly PyTorch's order; the order is
 * visible to scripts through hooks and to the step-by-step view.
 *
 * Per-node state lives in a Task reached through node->run_task, not a hash
 * table; a backward started from inside a hook (a nested run) uses a hash
 * table instead so that it cannot disturb the outer run's fields. */
#include "cr-engine.h"

#include <string.h>

#include "cr-autograd-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-kernels.h"
#include "cr-ops.h"
#include "cr-tensor.h"

#define TASKS_PER_CHUNK 1024
#define MAX_STACK_INPUTS 8

/* A node's state in one run. A backward touches every node of a big graph,
 * so this is small (24 bytes) and the queue below never reads it. */
typedef struct {
  CrNode    *node;          /* borrowed: the graph's edges keep it alive */
  gint       deps;          /* gradients still to arrive */
  guint      needed : 1;    /* autograd.grad: leads to an input (or is the root) */
  guint      captured : 1;  /* autograd.grad: an input's gradient is read here */
  guint      visit : 2;     /* autograd.grad's marking walk */
  guint      multi : 1;     /* the node has several outputs: buf.many */
  union {
    CrTensor  *one;         /* the incoming gradient of a one-output node */
    CrTensor **many;        /* node->n_outputs of them */
  } buf;                    /* owned */
} Task;

/* The ready queue holds the sequence number beside the task, so that sifting
 * compares without touching tasks. */
typedef struct {
  guint64  sequence_nr;
  Task    *task;
} HeapEntry;

typedef struct {
  Task  *task;
  guint  edge;
} Frame;

typedef struct {
  const CrBackwardOptions *options;
  guint64      id;           /* marks the nodes' run_id for this run */
  gboolean     inputs_mode;
  gboolean     nested;
  GHashTable  *map;          /* nested runs only: CrNode* -> Task* */
  GPtrArray   *chunks;       /* Task[TASKS_PER_CHUNK] blocks, the last one in use */
  guint        chunk_used;
  HeapEntry   *heap;         /* ready tasks, a max-heap on sequence_nr */
  gsize        heap_len;
  gsize        heap_size;
  /* autograd.grad: per input, where its gradient is read, and the result. */
  CrNode     **capture_node;
  guint32     *capture_nr;
  CrTensor   **captured;
  guint        step_index;
} Run;

static __thread guint run_depth;
static gsize run_counter;   /* atomic: ids never repeat, in any thread */

/* ---- tasks ------------------------------------------------------------- */

static inline CrTensor **
task_buffer (Task *task)
{
  return task->multi ? task->buf.many : &task->buf.one;
}

static inline Task *
task_get (Run    *run,
          CrNode *node)
{
  if (G_UNLIKELY (run->nested))
    return g_hash_table_lookup (run->map, node);
  return node->run_id == run->id ? node->run_task : NULL;
}

static Task *
task_new (Run    *run,
          CrNode *node)
{
  Task *task;

  if (run->chunks->len == 0 || run->chunk_used == TASKS_PER_CHUNK)
    {
      g_ptr_array_add (run->chunks, g_new (Task, TASKS_PER_CHUNK));
      run->chunk_used = 0;
    }
  task = (Task *) g_ptr_array_index (run->chunks, run->chunks->len - 1) + run->chunk_used++;
  memset (task, 0, sizeof *task);
  task->node = node;
  if (node->n_outputs > 1)
    {
      task->multi = TRUE;
      task->buf.many = g_new0 (CrTensor *, node->n_outputs);
    }

  if (G_UNLIKELY (run->nested))
    g_hash_table_insert (run->map, node, task);
  else
    {
      node->run_id = run->id;
      node->run_task = task;
    }
  return task;
}

/* Nodes keep the run's mark after it: run ids never repeat (process-wide), so a
 * stale mark matches no later run and nothing has to walk the nodes again. */
static void
task_clear (Task *task)
{
  CrTensor **buffer = task_buffer (task);
  guint n = task->multi ? task->node->n_outputs : 1;

  for (guint i = 0; i < n; i++)
    if (buffer[i] != NULL)
      cr_tensor_unref (buffer[i]);
  if (task->multi)
    g_free (task->buf.many);
}

static void
tasks_free (Run *run)
{
  for (guint c = 0; c < run->chunks->len; c++)
    {
      Task *chunk = run->chunks->pdata[c];
      guint n = c + 1 < run->chunks->len ? TASKS_PER_CHUNK : run->chunk_used;

      for (guint i = 0; i < n; i++)
        task_clear (&chunk[i]);
      g_free (chunk);
    }
  g_ptr_array_unref (run->chunks);
}

/* ---- the ready queue: libstdc++'s heap algorithms ---------------------- */

/* std::__push_heap */
static void
heap_sift_up (HeapEntry *a,
              gsize      hole,
              gsize      top,
              HeapEntry  value)
{
  gsize parent = (hole - 1) / 2;

  while (hole > top && a[parent].sequence_nr < value.sequence_nr)
    {
      a[hole] = a[parent];
      hole = parent;
      parent = (hole - 1) / 2;
    }
  a[hole] = value;
}

/* std::__adjust_heap */
static void
heap_adjust (HeapEntry *a,
             gsize      hole,
             gsize      len,
             HeapEntry  value)
{
  gsize top = hole;
  gsize second = hole;

  while (second < (len - 1) / 2)
    {
      second = 2 * (second + 1);
      if (a[second].sequence_nr < a[second - 1].sequence_nr)
        second--;
      a[hole] = a[second];
      hole = second;
    }
  if ((len & 1) == 0 && second == (len - 2) / 2)
    {
      second = 2 * (second + 1);
      a[hole] = a[second - 1];
      hole = second - 1;
    }
  heap_sift_up (a, hole, top, value);
}

static inline void
prefetch_saved (const CrNode *node)
{
  for (guint i = 0; i < MIN (node->n_saved, 2u); i++)
    __builtin_prefetch (node->saved[i].tensor);
}

static void
heap_push (Run  *run,
           Task *task)
{
  const CrNode *node = task->node;
  HeapEntry entry;

  /* The node runs soon: fetch its saved tensors' slots and its metas along
   * with the sequence number, and the saved tensors themselves (evaluate()
   * has usually fetched the node by now). */
  __builtin_prefetch ((const guint8 *) node + 128);
  __builtin_prefetch ((const guint8 *) node + 192);
  entry.sequence_nr = node->sequence_nr;
  entry.task = task;
  if (node->block_size > 256)
    __builtin_prefetch ((const guint8 *) node + 256);
  prefetch_saved (node);

  if (run->heap_len == run->heap_size)
    {
      run->heap_size = MAX (64, 2 * run->heap_size);
      run->heap = g_renew (HeapEntry, run->heap, run->heap_size);
    }
  run->heap[run->heap_len++] = entry;
  heap_sift_up (run->heap, run->heap_len - 1, 0, entry);
}

static Task *
heap_pop (Run *run)
{
  HeapEntry *a = run->heap;
  gsize len = run->heap_len;
  Task *top = a[0].task;

  if (len > 1)
    {
      HeapEntry value = a[len - 1];

      a[len - 1] = a[0];
      heap_adjust (a, 0, len - 1, value);
    }
  run->heap_len = len - 1;
  return top;
}

/* ---- graph walks ------------------------------------------------------- */

/* task_new() writes the node's first line and reads its second. */
static inline void
queue_edge (GPtrArray *queue,
            CrNode    *node)
{
  __builtin_prefetch (node, 1);
  __builtin_prefetch ((const guint8 *) node + 64);
  g_ptr_array_add (queue, node);
}

/* Counts the gradients each node will receive. In a graph bigger than the
 * cache every node is a miss, so the walk is breadth-first over edges: a
 * node is fetched (prefetched) when its edge is queued, again a few edges
 * ahead of its turn, and looked at only when the edge comes out of the
 * queue. An edge to a node already seen just counts. No recursion, and the
 * counts do not depend on the walk's order. */
static void
compute_dependencies (Run    *run,
                      CrNode *const *roots,
                      guint   n_roots)
{
  g_autoptr(GPtrArray) queue = g_ptr_array_new ();
  guint head = 0;

  for (guint i = 0; i < n_roots; i++)
    if (task_get (run, roots[i]) == NULL)
      g_ptr_array_add (queue, roots[i]);
  /* The roots are found, not reached: they count no edge. */
  for (guint n = queue->len; head < n; head++)
    {
      CrNode *node = queue->pdata[head];

      if (task_get (run, node) != NULL)
        continue;
      task_new (run, node);
      for (guint i = 0; i < node->n_inputs; i++)
        if (node->next[i].node != NULL)
          queue_edge (queue, node->next[i].node);
    }

  while (head < queue->len)
    {
      CrNode *node;
      Task *task;

      if (head + 8 < queue->len)
        {
          __builtin_prefetch (queue->pdata[head + 8], 1);
          __builtin_prefetch ((const guint8 *) queue->pdata[head + 8] + 64);
        }
      node = queue->pdata[head++];
      task = task_get (run, node);

      /* Keep the queue from growing with the walk: drop what was read. */
      if (head >= 4096 && head * 2 >= queue->len)
        {
          g_ptr_array_remove_range (queue, 0, head);
          head = 0;
        }
      if (task != NULL)
        {
          task->deps++;
          continue;
        }
      task = task_new (run, node);
      task->deps = 1;
      for (guint i = 0; i < node->n_inputs; i++)
        if (node->next[i].node != NULL)
          queue_edge (queue, node->next[i].node);
    }
}

/* PyTorch's init_to_execute: a node runs when one of its edges leads to a node
 * that runs or whose gradient is captured. Post-order, with an explicit stack. */
static void
mark_needed (Run    *run,
             CrNode *const *roots,
             guint   n_roots)
{
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (Frame));

  for (guint r = 0; r < n_roots; r++)
    {
      Task *root = task_get (run, roots[r]);

      if (root->visit != 0)
        continue;
      root->visit = 1;
      g_array_append_val (frames, ((Frame) { root, 0 }));

      while (frames->len > 0)
        {
          Frame *frame = &g_array_index (frames, Frame, frames->len - 1);
          CrNode *node = frame->task->node;

          if (frame->edge < node->n_inputs)
            {
              CrNode *next = node->next[frame->edge++].node;
              Task *child;

              if (next == NULL)
                continue;
              child = task_get (run, next);
              if (child->visit == 0)
                {
                  child->visit = 1;
                  g_array_append_val (frames, ((Frame) { child, 0 }));
                }
              else if (child->visit == 2 && (child->needed || child->captured))
                frame->task->needed = TRUE;
            }
          else
            {
              Task *done = frame->task;

              done->visit = 2;
              g_array_set_size (frames, frames->len - 1);
              if (frames->len > 0 && (done->needed || done->captured))
                g_array_index (frames, Frame, frames->len - 1).task->needed = TRUE;
            }
        }
    }
}

/* ---- gradients --------------------------------------------------------- */

static gboolean
is_expandable_to (const CrTensorMeta *meta,
                  const CrTensor     *grad)
{
  if (meta->ndim > grad->ndim)
    return FALSE;
  for (int i = 1; i <= meta->ndim; i++)
    {
      gint64 size = meta->shape[meta->ndim - i];

      if (size != 1 && size != grad->shape[grad->ndim - i])
        return FALSE;
    }
  return TRUE;
}

/* PyTorch's validate_outputs: a gradient of a broadcast shape is summed back
 * to the input's shape, and cast to the input's dtype. Takes *grad. With
 * out_unreduced, a gradient that was reduced or cast is kept there as it
 * came (a new ref), for the observer. */
static gboolean
validate_grad (const CrNode        *node,
               guint                index,
               const CrTensorMeta  *meta,
               CrTensor           **grad,
               CrTensor           **out_unreduced,
               GError             **error)
{
  CrTensor *g = *grad;

  if (out_unreduced != NULL
      && (!cr_shape_equal (g->shape, g->ndim, meta->shape, meta->ndim) || g->dtype != meta->dtype))
    *out_unreduced = cr_tensor_ref (g);

  if (G_UNLIKELY (!cr_shape_equal (g->shape, g->ndim, meta->shape, meta->ndim)))
    {
      CrTensor *reduced;

      if (!is_expandable_to (meta, g))
        {
          g_autofree char *got = cr_shape_to_string (g->shape, g->ndim);
          g_autofree char *want = cr_shape_to_string (meta->shape, meta->ndim);

          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Function %s returned an invalid gradient at index %u - got %s "
                       "but expected shape compatible with %s",
                       cr_node_name (node), index, got, want);
          return FALSE;
        }
      reduced = cr_sum_to_shape (g, meta->shape, meta->ndim, error);
      if (reduced == NULL)
        return FALSE;
      cr_tensor_unref (g);
      *grad = g = reduced;
    }
  if (G_UNLIKELY (g->dtype != meta->dtype))
    {
      CrTensor *cast = cr_to_dtype (g, meta->dtype, error);

      if (cast == NULL)
        return FALSE;
      cr_tensor_unref (g);
      *grad = cast;
    }
  return TRUE;
}

/* The engine may add into a buffer in place when nobody else can see it. */
static inline gboolean
can_accumulate_inplace (const CrTensor *t)
{
  return g_atomic_int_get (&t->ref_count) == 1
         && g_atomic_int_get (&t->storage->ref_count) == 1
         && t->view_base == NULL
         && t->grad_fn == NULL
         && cr_tensor_is_contiguous (t);
}

/* PyTorch's InputBuffer::add. Takes grad. */
static gboolean
buffer_add (Run      *run,
            Task     *task,
            guint32   pos,
            CrTensor *grad,
            GError  **error)
{
  CrTensor **buffer = task_buffer (task);
  CrTensor *old = buffer[pos];
  CrTensor *sum;

  if (old == NULL)
    {
      buffer[pos] = grad;
      return TRUE;
    }

  if (cr_grad_mode_is_enabled ())
    sum = cr_add (old, grad, error);
  else if (can_accumulate_inplace (old))
    sum = cr_kernel_binary_into (CR_BINARY_ADD, old, old, grad, error) ? cr_tensor_ref (old) : NULL;
  else if (can_accumulate_inplace (grad))
    sum = cr_kernel_binary_into (CR_BINARY_ADD, grad, grad, old, error) ? cr_tensor_ref (grad) : NULL;
  else
    sum = cr_kernel_binary (CR_BINARY_ADD, old, grad, error);
  if (sum == NULL)
    {
      cr_tensor_unref (grad);
      return FALSE;
    }

  if (run->options->observer != NULL && run->options->observer->accumulate != NULL)
    run->options->observer->accumulate (run->options->observer_data, task->node, pos,
                                        grad, sum);
  cr_tensor_unref (grad);
  cr_tensor_unref (old);
  buffer[pos] = sum;
  return TRUE;
}

/* A gradient travels along an edge: the receiving node counts it, buffers it
 * and becomes ready with its last one (PyTorch's evaluate_function tail).
 * Takes grad (may be NULL: the edge carries no gradient but still counts). */
static gboolean
route (Run          *run,
       const CrEdge *edge,
       CrTensor     *grad,
       GError      **error)
{
  Task *task = task_get (run, edge->node);
  gboolean ready = --task->deps == 0;

  if (run->inputs_mode && !task->needed && !task->captured)
    {
      cr_tensor_unref (grad);
      return TRUE;
    }
  if (grad != NULL && !buffer_add (run, task, edge->input_nr, grad, error))
    return FALSE;
  if (ready)
    heap_push (run, task);
  return TRUE;
}

/* A copy of hooks, each with a reference of its own. */
static GPtrArray *
hooks_snapshot (GPtrArray *hooks)
{
  GPtrArray *snapshot = g_ptr_array_new_full (hooks->len, cr_tensor_hook_unref);

  for (guint i = 0; i < hooks->len; i++)
    g_ptr_array_add (snapshot, cr_tensor_hook_ref (hooks->pdata[i]));
  return snapshot;
}

/* Where a hook runs, for the observer: output output_nr of node. */
typedef struct {
  Run     *run;
  CrNode  *node;
  guint32  output_nr;
} HookSite;

/* Calls hook on *grad; a hook may replace the gradient. */
static gboolean
call_hook (const HookSite *site,
           CrTensorHook   *hook,
           CrTensor      **grad,
           GError        **error)
{
  const CrBackwardObserver *observer = site->run->options->observer;
  CrTensor *replacement = NULL;

  if (!hook->func (*grad, &replacement, hook->user_data, error))
    {
      cr_tensor_unref (replacement);
      if (G_UNLIKELY (observer != NULL && observer->hook_raised != NULL))
        observer->hook_raised (site->run->options->observer_data, site->node, site->output_nr,
                               hook, *grad, error ? *error : NULL);
      return FALSE;
    }
  if (G_UNLIKELY (observer != NULL && observer->hook != NULL))
    observer->hook (site->run->options->observer_data, site->node, site->output_nr, hook,
                    *grad, replacement);
  if (replacement != NULL)
    {
      cr_tensor_unref (*grad);
      *grad = replacement;
    }
  return TRUE;
}

/* A tensor's hooks (tensor->hooks), in registration order, on its gradient.
 * As PyTorch 1.13 (a copy of the dict's values), the hooks called are those
 * registered when the list's turn comes: a hook may remove or add hooks,
 * itself included, and only the next backward sees the change. */
static gboolean
call_tensor_hooks (const HookSite *site,
                   GPtrArray      *hooks,
                   CrTensor      **grad,
                   GError        **error)
{
  g_autoptr(GPtrArray) snapshot = hooks_snapshot (hooks);

  for (guint i = 0; i < snapshot->len && *grad != NULL; i++)
    if (!call_hook (site, snapshot->pdata[i], grad, error))
      return FALSE;
  return TRUE;
}

/* A node's pre-hooks: its outputs' hook lists and retain_grad()'s hooks, in
 * the order they were added (PyTorch's call_pre_hooks; one added meanwhile
 * waits for the next backward). */
static gboolean
call_pre_hooks (Run        *run,
                CrNode     *node,
                CrTensor  **grads,
                GError    **error)
{
  g_autoptr(GPtrArray) snapshot = hooks_snapshot (node->pre_hooks);

  for (guint i = 0; i < snapshot->len; i++)
    {
      CrTensorHook *hook = snapshot->pdata[i];
      HookSite site = { run, node, hook->output_nr };

      if (hook->output_nr >= node->n_outputs || grads[hook->output_nr] == NULL)
        continue;
      if (hook->tensor_hooks != NULL
          ? !call_tensor_hooks (&site, hook->tensor_hooks, &grads[hook->output_nr], error)
          : !call_hook (&site, hook, &grads[hook->output_nr], error))
        return FALSE;
    }
  return TRUE;
}

/* PyTorch's AccumulateGrad::apply and accumulateGrad. Takes grad. */
static gboolean
accumulate_into_leaf (CrTensor  *leaf,
                      CrTensor  *grad,
                      GError   **error)
{
  gboolean grad_mode = cr_grad_mode_is_enabled ();
  CrTensor *result;

  if (!leaf->requires_grad)
    {
      cr_tensor_unref (grad);
      return TRUE;
    }

  if (leaf->grad == NULL)
    {
      if (!grad_mode && can_accumulate_inplace (grad) && !grad->requires_grad)
        {
          /* Nobody else holds it: adopt it as .grad. */
          leaf->grad = grad;
          return TRUE;
        }
      /* A copy the user cannot reach through another name; under create_graph
       * PyTorch's clone_obey_contract records an empty tensor's copy_(). */
      if (grad_mode)
        {
          CrTensor *empty = cr_tensor_new_empty (leaf->shape, leaf->ndim, leaf->dtype,
                                                 leaf->device, error);

          if (empty == NULL || !cr_copy_ (empty, grad, error))
            {
              cr_tensor_unref (empty);
              cr_tensor_unref (grad);
              return FALSE;
            }
          result = empty;
        }
      else
        result = cr_tensor_copy (grad, error);
      cr_tensor_unref (grad);
      if (result == NULL)
        return FALSE;
      leaf->grad = result;
      return TRUE;
    }

  if (!grad_mode)
    {
      /* .grad += grad: whoever holds the old .grad sees the sum, as in PyTorch. */
      gboolean ok = cr_kernel_binary_into (CR_BINARY_ADD, leaf->grad, leaf->grad, grad, error);

      if (ok)
        cr_tensor_bump_version (leaf->grad);
      cr_tensor_unref (grad);
      return ok;
    }

  result = cr_add (leaf->grad, grad, error);
  cr_tensor_unref (grad);
  if (result == NULL)
    return FALSE;
  cr_tensor_unref (leaf->grad);
  leaf->grad = result;
  return TRUE;
}

/* ---- running a node ---------------------------------------------------- */

static void
free_tensor_array (CrTensor **array,
                   guint      n,
                   CrTensor **stack_storage)
{
  for (guint i = 0; i < n; i++)
    cr_tensor_unref (array[i]);
  if (array != stack_storage)
    g_free (array);
}

static gboolean
evaluate_accumulate (Run      *run,
                     Task     *task,
                     GError  **error)
{
  const CrBackwardObserver *observer = run->options->observer;
  CrNode *node = task->node;
  CrTensor *leaf = node->variable;
  g_autoptr(CrTensor) before = NULL;
  g_autoptr(CrTensor) grad = NULL;
  CrBackwardStep step = { 0 };

  /* A leaf's hooks run before its gradient is accumulated. */
  if (leaf->hooks != NULL && task->buf.one != NULL
      && !call_tensor_hooks (&(HookSite) { run, node, 0 }, leaf->hooks, &task->buf.one, error))
    return FALSE;
  grad = g_steal_pointer (&task->buf.one);

  if (observer == NULL || observer->step == NULL)
    {
      run->step_index++;
      return grad == NULL || accumulate_into_leaf (leaf, g_steal_pointer (&grad), error);
    }

  /* The view needs .grad before and after; the old .grad may change in place. */
  if (leaf->grad != NULL)
    before = cr_tensor_copy (leaf->grad, NULL);
  if (grad != NULL && !accumulate_into_leaf (leaf, cr_tensor_ref (grad), error))
    return FALSE;
  step.index = run->step_index++;
  step.node = node;
  step.n_outputs = 1;
  step.grad_outputs = &grad;
  step.leaf = leaf;
  step.grad_before = before;
  step.grad_after = leaf->grad;
  observer->step (run->options->observer_data, &step);
  return TRUE;
}

static gboolean
call_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  gboolean any = FALSE;

  for (guint i = 0; i < node->n_outputs; i++)
    any |= grads[i] != NULL;
  /* No gradient reached any output: every input gets none (the generated
   * PyTorch functions return undefined tensors in that case). */
  if (!any)
    return TRUE;

  if (node->op->id == CR_OP_CUSTOM)
    {
      const CrNodeExtra *extra = node->extra;

      if (extra == NULL || extra->custom_backward == NULL)
        goto not_implemented;
      return extra->custom_backward (node, extra->custom_data, grads, node->n_outputs,
                                     grad_inputs, node->n_inputs, error);
    }
  if (node->op->backward == NULL)
    goto not_implemented;
  return node->op->backward (node, grads, grad_inputs, error);

not_implemented:
  g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
               "the derivative for '%s' is not implemented.", node->op->name);
  return FALSE;
}

/* Tells the observer that node failed; grads: what it was given (NULL
 * once they are gone). */
static void
report_failure (Run             *run,
                CrNode          *node,
                CrTensor *const *grads,
                GError         **error)
{
  const CrBackwardObserver *observer = run->options->observer;

  if (observer != NULL && observer->failed != NULL)
    observer->failed (run->options->observer_data, node, run->step_index, grads,
                      error != NULL ? *error : NULL);
}

static gboolean
evaluate (Run     *run,
          Task    *task,
          GError **error)
{
  const CrBackwardOptions *options = run->options;
  const CrBackwardObserver *observer = options->observer;
  CrNode *node = task->node;
  CrTensor **buffer = task_buffer (task);
  CrTensor *stack_grads[MAX_STACK_INPUTS];
  CrTensor *stack_locals[MAX_STACK_INPUTS];
  CrTensor *stack_unreduced[MAX_STACK_INPUTS];
  CrTensor **grad_inputs;
  CrTensor **local_grads = NULL;
  CrTensor **unreduced = NULL;
  guint n_in = node->n_inputs;
  gboolean ok = TRUE;

  /* route() reads the receiving nodes once the backward is done, and one
   * of them usually runs next: fetch their blocks meanwhile. */
  for (guint i = 0; i < MIN (n_in, 2u); i++)
    if (node->next[i].node != NULL)
      {
        const guint8 *p = (const guint8 *) node->next[i].node;

        __builtin_prefetch (p);
        __builtin_prefetch (p + 64);
        __builtin_prefetch (p + 128);
        __builtin_prefetch (p + 192);
      }

  if (G_UNLIKELY (task->captured))
    for (guint i = 0; i < options->n_inputs; i++)
      if (run->capture_node[i] == node)
        {
          CrTensor *g = buffer[run->capture_nr[i]];

          cr_tensor_unref (run->captured[i]);
          run->captured[i] = g != NULL ? cr_tensor_ref (g) : NULL;
        }
  if (run->inputs_mode && !task->needed)
    return TRUE;

  if (node->pre_hooks != NULL && !call_pre_hooks (run, node, buffer, error))
    {
      report_failure (run, node, buffer, error);
      return FALSE;
    }

  if (node->op->id == CR_OP_ACCUMULATE_GRAD)
    {
      if (evaluate_accumulate (run, task, error))
        return TRUE;
      report_failure (run, node, buffer, error);
      return FALSE;
    }

  grad_inputs = n_in <= MAX_STACK_INPUTS ? stack_grads : g_new (CrTensor *, n_in);
  memset (grad_inputs, 0, n_in * sizeof (CrTensor *));

  if (observer != NULL && observer->step != NULL)
    {
      local_grads = n_in <= MAX_STACK_INPUTS ? stack_locals : g_new (CrTensor *, n_in);
      memset (local_grads, 0, n_in * sizeof (CrTensor *));
      unreduced = n_in <= MAX_STACK_INPUTS ? stack_unreduced : g_new (CrTensor *, n_in);
      memset (unreduced, 0, n_in * sizeof (CrTensor *));
      if (node->op->local_grad != NULL)
        for (guint i = 0; i < n_in; i++)
          if (node->next[i].node != NULL)
            {
              gboolean prev = cr_grad_mode_set_enabled (FALSE);

              /* The view is best-effort: a local gradient that cannot be
               * computed (a freed saved tensor) is simply not shown. */
              local_grads[i] = node->op->local_grad (node, i, NULL);
              cr_grad_mode_set_enabled (prev);
            }
    }

  ok = call_backward (node, buffer, grad_inputs, error);
  for (guint i = 0; ok && i < n_in; i++)
    {
      if (grad_inputs[i] == NULL)
        continue;
      if (node->next[i].node == NULL)
        g_clear_pointer (&grad_inputs[i], cr_tensor_unref);
      else
        ok = validate_grad (node, i, &node->input_meta[i], &grad_inputs[i],
                            unreduced != NULL ? &unreduced[i] : NULL, error);
    }
  if (!options->retain_graph)
    cr_node_release_saved (node);

  if (ok && observer != NULL && observer->step != NULL)
    {
      CrBackwardStep step = { 0 };

      step.index = run->step_index;
      step.node = node;
      step.n_outputs = node->n_outputs;
      step.grad_outputs = buffer;
      step.n_inputs = n_in;
      step.local_grads = local_grads;
      step.grad_inputs = grad_inputs;
      step.unreduced_grads = unreduced;
      observer->step (options->observer_data, &step);
    }
  if (!ok)
    report_failure (run, node, buffer, error);
  run->step_index++;

  if (local_grads != NULL)
    free_tensor_array (local_grads, n_in, stack_locals);
  if (unreduced != NULL)
    free_tensor_array (unreduced, n_in, stack_unreduced);

  /* The incoming gradients are no longer needed: free them before the
   * receivers run, so big buffers can be reused in place. */
  for (guint i = 0; i < node->n_outputs; i++)
    g_clear_pointer (&buffer[i], cr_tensor_unref);

  for (guint i = 0; i < n_in; i++)
    {
      CrTensor *g = g_steal_pointer (&grad_inputs[i]);

      if (!ok || node->next[i].node == NULL)
        {
          cr_tensor_unref (g);
          continue;
        }
      if (!route (run, &node->next[i], g, error))
        {
          ok = FALSE;
          report_failure (run, node, NULL, error);
        }
    }
  if (grad_inputs != stack_grads)
    g_free (grad_inputs);
  return ok;
}

/* ---- the run ----------------------------------------------------------- */

static gboolean
make_root_grads (CrTensor *const  *roots,
                 CrTensor *const  *grad_roots,
                 guint             n_roots,
                 CrTensor        **out_grads,
                 GError          **error)
{
  /* torch.autograd.backward's _make_grads, then the engine's root checks. */
  for (guint i = 0; i < n_roots; i++)
    {
      CrTensor *root = roots[i];
      CrTensor *grad = grad_roots != NULL ? grad_roots[i] : NULL;

      if (grad != NULL)
        {
          if (!cr_shape_equal (grad->shape, grad->ndim, root->shape, root->ndim))
            {
              g_autofree char *gs = cr_shape_to_string (grad->shape, grad->ndim);
              g_autofree char *rs = cr_shape_to_string (root->shape, root->ndim);

              g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Mismatch in shape: grad_output[%u] has a shape of torch.Size(%s) "
                           "and output[%u] has a shape of torch.Size(%s).", i, gs, i, rs);
              return FALSE;
            }
          out_grads[i] = grad->dtype == root->dtype ? cr_tensor_ref (grad)
                                                    : cr_kernel_cast (grad, root->dtype, error);
          if (out_grads[i] == NULL)
            return FALSE;
        }
      else if (root->requires_grad)
        {
          if (root->numel != 1)
            {
              g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "grad can be implicitly created only for scalar outputs");
              return FALSE;
            }
          out_grads[i] = cr_tensor_new_full (root->shape, root->ndim, 1.0, root->dtype,
                                             root->device, error);
          if (out_grads[i] == NULL)
            return FALSE;
        }
    }
  for (guint i = 0; i < n_roots; i++)
    if (!roots[i]->requires_grad)
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "element %u of tensors does not require grad and does not have a grad_fn",
                     i);
        return FALSE;
      }
  return TRUE;
}

static gboolean
run_graph (Run             *run,
           CrTensor *const *roots,
           CrTensor       **root_grads,
           CrEdge          *root_edges,
           guint            n_roots,
           GError         **error)
{
  const CrBackwardOptions *options = run->options;
  g_autofree CrNode **root_nodes = g_new (CrNode *, n_roots);

  for (guint i = 0; i < n_roots; i++)
    root_nodes[i] = root_edges[i].node;
  compute_dependencies (run, root_nodes, n_roots);

  if (run->inputs_mode)
    {
      for (guint i = 0; i < options->n_inputs; i++)
        {
          Task *task = run->capture_node[i] != NULL ? task_get (run, run->capture_node[i]) : NULL;

          if (task != NULL)
            task->captured = TRUE;
          else
            run->capture_node[i] = NULL;   /* not in this graph: unused */
        }
      /* As in PyTorch 1.13, even the root runs only when it leads to an input. */
      mark_needed (run, root_nodes, n_roots);
      /* backward(inputs=): the inputs' own nodes run too (PyTorch's output
       * edges with accumulate_grad), the nodes past them do not. */
      if (options->accumulate_inputs)
        for (guint i = 0; i < options->n_inputs; i++)
          if (run->capture_node[i] != NULL)
            task_get (run, run->capture_node[i])->needed = TRUE;
    }

  if (n_roots == 1)
    {
      Task *task = task_get (run, root_nodes[0]);

      task_buffer (task)[root_edges[0].input_nr] = g_steal_pointer (&root_grads[0]);
      heap_push (run, task);
    }
  else
    {
      /* PyTorch puts a GraphRoot node above several roots; it counts as one
       * more dependency of each root and hands the gradients on in order. */
      for (guint i = 0; i < n_roots; i++)
        task_get (run, root_nodes[i])->deps++;
      for (guint i = 0; i < n_roots; i++)
        if (!route (run, &root_edges[i], g_steal_pointer (&root_grads[i]), error))
          return FALSE;
    }

  while (run->heap_len > 0)
    {
      Task *task;

      if (options->cancel_flag != NULL && g_atomic_int_get (options->cancel_flag))
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_KEYBOARD_INTERRUPT, "cancelled");
          return FALSE;
        }
      task = heap_pop (run);
      /* The next task is most likely the new top: its node's lines were
       * asked for when it became ready, so its saved tensors can be now. */
      if (run->heap_len > 0)
        prefetch_saved (run->heap[0].task->node);
      if (!evaluate (run, task, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
cr_autograd_run (CrTensor *const          *roots,
                 CrTensor *const          *grad_roots,
                 guint                     n_roots,
                 const CrBackwardOptions  *options,
                 CrTensor               ***out_grads,
                 GError                  **error)
{
  static const CrBackwardOptions default_options = { 0 };
  g_autofree CrTensor **root_grads = NULL;
  g_autofree CrEdge *root_edges = NULL;
  gboolean grad_mode;
  gboolean ok = FALSE;
  Run run = { 0 };

  g_return_val_if_fail (roots != NULL && n_roots > 0, FALSE);
  if (options == NULL)
    options = &default_options;
  g_return_val_if_fail (options->inputs == NULL || out_grads != NULL
                        || options->accumulate_inputs, FALSE);

  run.options = options;
  run.inputs_mode = options->inputs != NULL;

  root_grads = g_new0 (CrTensor *, n_roots);
  if (!make_root_grads (roots, grad_roots, n_roots, root_grads, error))
    goto out_grads_only;

  root_edges = g_new0 (CrEdge, n_roots);
  for (guint i = 0; i < n_roots; i++)
    {
      CrTensor *root = roots[i];

      if (root->grad_fn != NULL)
        {
          root_edges[i].node = cr_node_ref (root->grad_fn);
          root_edges[i].input_nr = root->output_nr;
        }
      else
        root_edges[i].node = cr_autograd_grad_accumulator (root);
    }

  if (run.inputs_mode)
    {
      run.capture_node = g_new0 (CrNode *, MAX (1, options->n_inputs));
      run.capture_nr = g_new0 (guint32, MAX (1, options->n_inputs));
      run.captured = g_new0 (CrTensor *, MAX (1, options->n_inputs));
      for (guint i = 0; i < options->n_inputs; i++)
        {
          CrTensor *input = options->inputs[i];

          if (!input->requires_grad)
            {
              g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "One of the differentiated Tensors does not require grad");
              goto out_edges;
            }
          /* A leaf's gradient is read at its AccumulateGrad, if the graph has one. */
          run.capture_node[i] = input->grad_fn != NULL ? input->grad_fn : input->grad_accumulator;
          run.capture_nr[i] = input->grad_fn != NULL ? input->output_nr : 0;
        }
    }

  run.id = (gsize) g_atomic_pointer_add (&run_counter, 1) + 1;
  run.nested = run_depth > 0;
  if (run.nested)
    run.map = g_hash_table_new (NULL, NULL);
  run.chunks = g_ptr_array_new ();

  run_depth++;
  grad_mode = cr_grad_mode_set_enabled (options->create_graph);
  ok = run_graph (&run, roots, root_grads, root_edges, n_roots, error);
  cr_grad_mode_set_enabled (grad_mode);
  run_depth--;

  tasks_free (&run);
  g_free (run.heap);
  g_clear_pointer (&run.map, g_hash_table_unref);
out_edges:
  for (guint i = 0; i < n_roots; i++)
    cr_node_unref (root_edges[i].node);

  if (ok && run.inputs_mode && !options->allow_unused && !options->accumulate_inputs)
    for (guint i = 0; i < options->n_inputs; i++)
      if (run.captured[i] == NULL)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "One of the differentiated Tensors appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.");
          ok = FALSE;
          break;
        }

out_grads_only:
  for (guint i = 0; i < n_roots; i++)
    cr_tensor_unref (root_grads[i]);
  if (run.inputs_mode)
    {
      if (ok && !options->accumulate_inputs)
        *out_grads = g_steal_pointer (&run.captured);
      else if (run.captured != NULL)
        for (guint i = 0; i < options->n_inputs; i++)
          cr_tensor_unref (run.captured[i]);
      g_free (run.captured);
      g_free (run.capture_node);
      g_free (run.capture_nr);
    }
  return ok;
}

gboolean
cr_tensor_backward (CrTensor                 *self,
                    CrTensor                 *gradient,
                    gboolean                  retain_graph,
                    gboolean                  create_graph,
                    const CrBackwardObserver *observer,
                    gpointer                  observer_data,
                    GError                  **error)
{
  CrBackwardOptions options = { 0 };

  g_return_val_if_fail (self != NULL, FALSE);

  /* PyTorch: retain_graph defaults to create_graph. */
  options.retain_graph = retain_graph || create_graph;
  options.create_graph = create_graph;
  options.observer = observer;
  options.observer_data = observer_data;
  return cr_autograd_run (&self, gradient != NULL ? &gradient : NULL, 1, &options, NULL, error);
}
