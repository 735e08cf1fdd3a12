/* cr-node.h — a node of the backward graph (PyTorch's grad_fn objects).
 *
 * A node is made by a differentiable op when grad mode is on and some input
 * requires grad. It holds an edge per tensor input (to the input's grad_fn, or to
 * the AccumulateGrad node of a leaf that requires grad, or NULL: PyTorch's
 * `(None, 0)` in next_functions), the metadata of each input (shape, dtype: to
 * reduce broadcast gradients), the tensors its backward formula needs (saved, with
 * the version they had, and freed by a backward without retain_graph), and the
 * op's non-tensor arguments.
 *
 * Refcounting: a tensor owns a ref on its grad_fn; a node owns refs on the nodes
 * its edges point to and on its saved tensors. Freeing never recurses: a chain of
 * 45k nodes is released with an explicit work list.
 */
#pragma once

#include "cr-types.h"
#include "cr-op-table.h"

G_BEGIN_DECLS

typedef struct {
  CrNode   *node;       /* owned; NULL: this input gets no gradient */
  guint32   input_nr;   /* which output of `node` the input was */
} CrEdge;

/* The shape, dtype and device of a node's input or output. A backward
 * graph holds one per edge, so it is small: the sizes live in the node's own
 * block (shape is NULL for a 0-d tensor) and stay valid as long as the node. */
typedef struct {
  const gint64 *shape;        /* ndim sizes, owned by the node */
  int           ndim;
  CrDType       dtype : 8;
  CrDeviceType  device : 8;
} CrTensorMeta;

typedef struct {
  CrTensor *tensor;          /* owned; for an output of the node itself, an alias
                              * without grad_fn (no reference cycle); for an
                              * input, the tensor itself (as PyTorch saves it) */
  guint32   version;         /* the version counter when saved */
  guint32   output_nr : 30;  /* private: the tensor's output_nr when saved */
  guint32   is_output : 1;
  guint32   was_saved : 1;   /* private: set by cr_node_save, kept after release */
} CrSavedTensor;

/* 6: batch norm keeps input, weight, its two statistics and the two running
 * buffers, as PyTorch's NativeBatchNormBackward0 does. */
#define CR_NODE_MAX_SAVED 6

/* Non-tensor arguments an op's backward needs. Each op documents which fields
 * it uses next to its row. Most nodes have none, so a node's args point at
 * shared zeros until an op writes them through cr_node_args(). */
typedef struct {
  double    scalar[3];            /* pow exponent, clamp bounds, rsub's number, alpha;
                                   * a unary row's parameters (cr-unary-ops.def) */
  guint     has_scalar[3];
  guint     scalar_int_mask;      /* bit i: scalar[i] came as a Python int (how a
                                   * grad_fn's _saved_<param> shows it: 6, not 6.0) */
  int       dims[CR_MAX_DIMS];    /* reduction dims, permutation, transpose pair */
  int       n_dims;
  gboolean  keepdim;
  gint64    ints[4];              /* select index, slice start/end/step, reduction kind */
  CrDType   dtype;                /* the input's dtype for casts */
  guint     scalar_float_mask;    /* bit i: scalar[i] came as a Python float where a
                                   * whole value would otherwise show as an int
                                   * (add's alpha=2.0 shows as 2.0) */
  double    number;               /* the Python number the op took in place of a tensor
                                   * (x + 1's 1, 2 - x's 2), for the run record to tell;
                                   * no backward reads it */
  gboolean  has_number;
  gboolean  number_is_int;
} CrOpArgs;

/* A user function called with the gradient reaching a tensor (register_hook).
 * Set *out_replacement to a new ref to replace the gradient, or leave it NULL. */
typedef gboolean (*CrTensorHookFunc) (const CrTensor  *grad,
                                      CrTensor       **out_replacement,
                                      gpointer         user_data,
                                      GError         **error);

/* A tensor's hooks are its own list (tensor->hooks), as PyTorch 1.13's
 * _backward_hooks dict: a leaf's run before its AccumulateGrad; a non-leaf's
 * list is put in its grad_fn's pre_hooks when its first hook is registered,
 * as one entry (tensor_hooks set, func NULL) beside retain_grad()'s hooks.
 * Refcounted: the list holds one reference, and a backward calling the hook
 * one more, so that a hook may remove hooks (itself included) while it runs;
 * destroy(user_data) runs with the last. */
struct _CrTensorHook {
  gint              ref_count;        /* private */
  guint             id;
  guint32           output_nr;        /* the node's output it reads (pre_hooks) */
  CrTensorHookFunc  func;
  gpointer          user_data;
  GDestroyNotify    destroy;
  GPtrArray        *tensor_hooks;     /* owned ref: a tensor's hook list, or NULL */
};

/* The backward of a user's torch.autograd.Function, run by the interpreter. */
typedef gboolean (*CrCustomBackwardFunc) (CrNode          *node,
                                          gpointer         user_data,
                                          CrTensor *const *grad_outputs,
                                          guint            n_outputs,
                                          CrTensor       **grad_inputs,
                                          guint            n_inputs,
                                          GError         **error);

typedef struct _CrNodeExtra CrNodeExtra;

/* Field order matters for speed: a backward over a 150k-node graph is bound
 * by cache misses and by the memory the graph takes, so what the engine reads
 * for every node (count, sequence number, edges, its per-run mark) comes
 * first, rarely used state sits behind `extra`, and the edges, saved tensors
 * and input shapes of a small node live in the same block right behind the
 * struct (a 0-d binary op's node takes about 250 bytes). */
struct _CrNode {
  /* The first cache line is what counting the dependencies reads. */
  gint             ref_count;
  guint            n_inputs;
  CrEdge          *next;            /* n_inputs */
  CrEdge           inline_next[2];  /* private: next points here for <= 2 inputs */
  /* Private. The engine keeps its per-run bookkeeping here rather than in a
   * hash table: run_task is valid while run_id is the running backward's id.
   * A dead node waits for teardown on the free_next list. */
  guint64          run_id;
  union {
    gpointer       run_task;
    CrNode        *free_next;
  };

  /* The second, what running the node reads. */
  guint64          sequence_nr;     /* creation order; AccumulateGrad: G_MAXUINT64 */
  const CrOpInfo  *op;
  guint            n_outputs;
  guint            released : 1;    /* saved tensors were freed by a backward */
  guint            n_saved : 3;     /* private: slots in use, <= CR_NODE_MAX_SAVED */
  guint            out_dims : 4;    /* private: sizes reserved per output meta */
  guint            block_size : 11; /* private: the size given to cr_slab (0: g_malloc) */
  GPtrArray       *pre_hooks;       /* of CrTensorHook*: outputs' hook lists, retain_grad */
  CrTensorMeta    *input_meta;      /* n_inputs */
  CrTensorMeta    *output_meta;     /* n_outputs */
  CrSavedTensor   *saved;           /* CR_NODE_MAX_SAVED slots (read below n_saved) */
  CrOpArgs        *args;            /* never NULL; read-only, see cr_node_args() */

  CrSavedTensor    inline_saved[2]; /* private: saved points here until slot 2 is used */
  CrTensor        *variable;        /* AccumulateGrad: the leaf (owned) */
  char            *custom_name;     /* "MyReLUBackward" */
  CrNodeExtra     *extra;           /* private: custom backward, retained outputs */
  CrSpan           span;            /* the script code that made it */
};

/* ---- for ops: recording ------------------------------------------------ */

/* TRUE when grad mode is on and one of inputs requires grad. */
gboolean     cr_autograd_should_record  (CrTensor *const *inputs,
                                         guint            n_inputs);
/* A node for op over inputs (edges and input metadata filled in, sequence
 * number taken, span copied from the current span). n_outputs is usually 1. */
CrNode      *cr_node_new                (CrOpId           op,
                                         CrTensor *const *inputs,
                                         guint            n_inputs,
                                         guint            n_outputs);
CrNode      *cr_node_new_custom         (const char      *name,
                                         CrTensor *const *inputs,
                                         guint            n_inputs,
                                         guint            n_outputs,
                                         CrCustomBackwardFunc backward,
                                         gpointer         user_data,
                                         GDestroyNotify   destroy);
/* Save t for backward in slot (< CR_NODE_MAX_SAVED). is_output: t is an
 * output of this node (saved without its grad_fn, so no cycle; call this after
 * cr_autograd_set_history so that its output_nr is known). t may be NULL
 * (nothing saved). */
void         cr_node_save               (CrNode          *node,
                                         guint            slot,
                                         CrTensor        *t,
                                         gboolean         is_output);
/* PyTorch refuses, as the op runs, to save an inference tensor for
 * backward outside inference mode. cr_node_save has no error to give, so
 * the refusal waits, per thread, for whoever ran the op (the torch binding,
 * after each call): FALSE with PyTorch's RuntimeError when an op since the
 * last call saved one, which clears it. */
gboolean     cr_node_take_save_error    (GError         **error);
/* The node's arguments, writable (allocated on first use). */
CrOpArgs    *cr_node_args               (CrNode          *node);
/* The saved tensor of slot, a new ref, or a RuntimeError with PyTorch's text
 * when freed by a previous backward ("Trying to backward through the graph a
 * second time ...") or changed in place since ("one of the variables needed
 * for gradient computation has been modified by an inplace operation: ...").
 * A saved output comes back with grad_fn = node when grad mode is on
 * (create_graph), so double backward sees it. */
CrTensor    *cr_node_get_saved          (CrNode          *node,
                                         guint            slot,
                                         GError         **error);
/* Make node the grad_fn of out (output output_nr); out requires grad. out
 * takes its own ref on node (the caller keeps and drops its own). Also used
 * by in-place ops to rebase a tensor's history onto a new node (a retain_grad()
 * moves along, as in PyTorch 1.13; register_hook hooks stay on the old node). */
void         cr_autograd_set_history    (CrTensor        *out,
                                         CrNode          *node,
                                         guint32          output_nr);
/* For in-place ops on self: checks PyTorch's rules (a leaf that requires grad
 * cannot be changed in place while grad mode is on) and bumps the version.
 * Call before writing. */
gboolean     cr_autograd_check_inplace  (CrTensor        *self,
                                         GError         **error);
/* The same checks without the version bump, for ops that bump it after the
 * write. */
gboolean     cr_autograd_check_inplace_rules (CrTensor   *self,
                                              GError    **error);
/* A view made under no_grad of a tensor that requires grad (it requires
 * grad too, with no grad_fn): PyTorch refuses to write it in place while
 * grad mode is on. */
gboolean     cr_autograd_is_no_grad_view (const CrTensor *self);

/* The AccumulateGrad node of a leaf that requires grad (created and cached
 * weakly on first use; a new ref). */
CrNode      *cr_autograd_grad_accumulator (CrTensor      *leaf);

/* The span new nodes get (the interpreter sets it per statement). Per thread. */
void         cr_autograd_set_current_span (const CrSpan  *span);

/* ---- reading (interpreter, UI) ---------------------------------------- */

CrNode      *cr_node_ref                (CrNode          *node);
void         cr_node_unref              (CrNode          *node);   /* NULL-safe */
/* "MulBackward0", "AccumulateGrad", "MyReLUBackward" (borrowed). */
const char  *cr_node_name               (const CrNode    *node);
/* The user_data a custom node was made with (cr_node_new_custom); NULL for
 * any other node. Borrowed. */
gpointer     cr_node_get_custom_data    (const CrNode    *node);

/* ---- tensor-side autograd state ---------------------------------------- */

/* Tensor teardown calls this to drop grad_fn, grad, hooks, view_base and the
 * weak links (retain_grad, grad_accumulator). */
void         cr_autograd_tensor_finalize(CrTensor        *self);
/* register_hook: RuntimeError "cannot register a hook on a tensor that doesn't
 * require gradient" when it does not. Returns the hook id (> 0) for removal. */
guint        cr_tensor_register_hook    (CrTensor        *self,
                                         CrTensorHookFunc func,
                                         gpointer         user_data,
                                         GDestroyNotify   destroy,
                                         GError         **error);
void         cr_tensor_remove_hook      (CrTensor        *self,
                                         guint            id);
/* The same without the tensor (a RemovableHandle must not keep it alive);
 * nothing when the hook was removed or its tensor is gone. */
void         cr_hook_remove             (guint            id);
gboolean     cr_tensor_retain_grad      (CrTensor        *self,
                                         GError         **error);
/* For observers of a backward: the tensor whose .grad hook (one of a node's
 * pre-hooks) writes, when hook is retain_grad()'s; NULL for any other hook
 * (or once that tensor is gone). Borrowed. */
CrTensor    *cr_tensor_hook_get_retained (const struct _CrTensorHook *hook);
/* requires_grad_(flag) with PyTorch's errors (non-leaf, non-float dtype). */
gboolean     cr_tensor_set_requires_grad(CrTensor        *self,
                                         gboolean         requires_grad,
                                         GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrNode, cr_node_unref)

G_END_DECLS
