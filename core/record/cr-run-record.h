/* cr-run-record.h — the run record: one model of a finished run, the thing
 * the window, `chainrule export`, `--trace-backward` and
 * `chainrule run --record FILE.json` all render.
 *
 * It is plain data: strings, numbers and tensor snapshots, never a pointer
 * into the engine (no CrNode, no CrTensor), so it outlives the interpreter
 * that made it, crosses threads and processes (as JSON), and the UI keeps no
 * second model of a step. Items refer to each other by index: a tensor's
 * `op` is an index into record->ops, a step's `op` likewise, -1 for none.
 *
 * What it holds:
 *   tensors       every tensor the graph or a step mentions: leaves, results,
 *                 constants, tensors made under no_grad or detached, with the
 *                 name they were bound to and the loop iteration of that binding
 *   ops           every recorded forward op (a grad_fn node): inputs, outputs,
 *                 source span, the module call it ran in, saved tensors and
 *                 their life (saved, freed by which backward step, modified in
 *                 place by which line)
 *   module_calls  nn.Module calls, nested (fc1 inside model), for grouping
 *   regions       torch.no_grad() / enable_grad / set_grad_enabled(False) blocks
 *   backwards     every backward call (.backward(), autograd.grad) and its
 *                 steps: incoming gradients, hooks and what they changed, each
 *                 input's local gradient, product, broadcast reduction and
 *                 outgoing gradient, custom Function backward calls,
 *                 accumulation into .grad and into retained grads
 *   errors        every error the run raised, with its node and span
 *
 * The state of a tensor at a step (its .grad, whether a saved tensor is
 * freed yet) is not stored per step: the events above are, and the queries
 * at the end of this header answer "as of step k of backward call b".
 *
 * Ownership: a record is reference counted (cr_run_record_ref/unref). Every
 * array below owns its items (free-funcs set); every string and snapshot is
 * owned by the struct holding it. A finished record is read-only and may be
 * shared between threads.
 *
 * A new field goes at the end of its struct, and into the JSON writer
 * (cr-run-record-json.c, docs/run-record.md) and the wire form that carries
 * a record between processes (cr-run-record-wire.c: test-record-wire fails
 * until it does). */
#pragma once

#include <glib.h>

#include "cr-types.h"
#include "cr-tensor-snapshot.h"

G_BEGIN_DECLS

/* Bumped on any change a reader of the JSON would notice; documented with
 * the schema in docs/run-record.md. */
#define CR_RUN_RECORD_SCHEMA_VERSION 1

/* How many nested loops an item's loop_path names: the outermost ones and
 * the innermost when there are more. */
#define CR_RECORD_MAX_LOOP_PATH 8

/* ---- tensors -------------------------------------------------------------- */

typedef enum {
  CR_RECORD_TENSOR_LEAF,      /* a leaf that requires grad: x = torch.ones(3, requires_grad=True),
                               * a parameter */
  CR_RECORD_TENSOR_RESULT,    /* the output of a recorded op (has a grad_fn) */
  CR_RECORD_TENSOR_CONSTANT,  /* an input that requires no grad: data, targets, torch.ones(3) */
  CR_RECORD_TENSOR_NO_GRAD,   /* made under torch.no_grad() (or set_grad_enabled(False))
                               * from tensors that require grad: the graph stops here */
  CR_RECORD_TENSOR_DETACHED,  /* t.detach() / t.data of a tensor that requires grad */
} CrRecordTensorOrigin;

typedef struct {
  guint                 id;             /* its index in record->tensors */
  char                 *name;           /* the script variable it was first bound to, "y",
                                         * or NULL */
  guint                 iteration;      /* the (1-based) iteration of the innermost loop
                                         * that binding ran in; 0: not in a loop */
  char                 *label;          /* what the window and trace call it: "y", "y₃"
                                         * (iteration 3), "fc1.weight", "(w3*b)", "x.grad" */
  char                 *module_path;    /* a module's parameter or buffer: "fc1.weight"; else NULL */
  CrRecordTensorOrigin  origin;
  int                   op;             /* RESULT: the op that made it (index in ops); else -1 */
  guint                 output_nr;      /* RESULT: which output of op */
  int                   source;         /* DETACHED / NO_GRAD: the tensor it was computed or
                                         * detached from, when known; else -1 */
  int                   region;         /* NO_GRAD: the region it was made in (index in
                                         * regions); else -1 */
  CrSpan                span;           /* where it was made or first bound ({0}: unknown) */
  int                   ndim;
  gint64                shape[CR_MAX_DIMS];
  char                 *dtype;          /* "torch.float32" */
  char                 *device;         /* "cpu", "cuda:0" */
  gboolean              requires_grad;
  gboolean              retains_grad;   /* retain_grad() was called on it */
  CrTensorSnapshot     *value;          /* its value when recorded (NULL: not kept) */
  guint                 loop_depth;     /* how many loops its binding (a result unnamed: its
                                         * op) ran in, 0: none; at most CR_RECORD_MAX_LOOP_PATH */
  guint                 loop_path[CR_RECORD_MAX_LOOP_PATH]; /* their 1-based iterations,
                                         * outermost first: the label's "y₂,₃" is [2, 3]
                                         * (iteration is the last) */
} CrRecordTensor;

/* ---- forward ops ---------------------------------------------------------- */

/* A tensor an op saved for its backward formula, and what became of it. */
typedef struct {
  char             *name;            /* "self", "other", "result" (as _saved_<name>) */
  int               tensor;          /* the tensor saved (index in tensors), -1: unknown */
  int               ndim;
  gint64            shape[CR_MAX_DIMS];
  CrTensorSnapshot *value;           /* as saved (NULL: not kept) */
  int               freed_backward;  /* the backward call that freed it (index in
                                      * backwards), -1: never freed (retain_graph) */
  int               freed_step;      /* the step of that call after which it was freed */
  CrSpan            modified_span;   /* an in-place statement that changed it after it
                                      * was saved ({0}: none): backward through it fails */
  gboolean          internal;        /* Chainrule's own buffer (name "positions": where
                                      * each output element came from; "kept": a mask),
                                      * where PyTorch's node saves none or other tensors */
} CrRecordSaved;

/* A number the op keeps for its backward that is no tensor: PyTorch's
 * grad_fn._saved_<name> that is an int, a float, a bool, a tuple of ints or
 * None (SumBackward1's dim and keepdim, SoftmaxBackward0's dim,
 * ConvolutionBackward0's stride, NativeBatchNormBackward0's eps). Where
 * PyTorch keeps none of a number the op used, or keeps it as given, the
 * record has Chainrule's: layer_norm's "eps", and a pool's geometry with its
 * defaults filled in ("kernel_size", "stride", "padding", "dilation",
 * "count_include_pad", "divisor_override"; 0: none). A dim is wrapped
 * (-1 of a 2-d input is 1). */
typedef enum {
  CR_RECORD_ARGUMENT_INT,        /* values[0] */
  CR_RECORD_ARGUMENT_FLOAT,      /* values[0] */
  CR_RECORD_ARGUMENT_BOOL,       /* values[0]: 0 or 1 */
  CR_RECORD_ARGUMENT_INTS,       /* a tuple: values[0 .. n_values) */
  CR_RECORD_ARGUMENT_NONE,       /* None: n_values is 0 */
} CrRecordArgumentKind;

typedef struct {
  char                 *name;                /* "dim", "keepdim", "stride", "eps" */
  CrRecordArgumentKind  kind;
  int                   n_values;            /* at most CR_MAX_DIMS */
  double                values[CR_MAX_DIMS];
} CrRecordArgument;

typedef struct {
  guint       id;                /* its index in record->ops */
  char       *grad_fn;           /* "MulBackward0", "MyReLUBackward" */
  char       *symbol;            /* a glyph for the graph: "×", "+", "Σ", "@"; or NULL */
  char       *caption;           /* the source that made it: "b = w1*a" (NULL: unknown) */
  CrSpan      span;              /* ({0}: unknown) */
  char       *key;               /* stable across runs of an edited script, for keeping the
                                  * layout: "op:MulBackward0:b = w1*a" */
  GArray     *inputs;            /* of int: a tensor per input edge (index in tensors), -1
                                  * where the input is not known */
  GArray     *outputs;           /* of int: the tensors it made */
  int         module_call;       /* the innermost nn.Module call it ran in (index in
                                  * module_calls), -1: none */
  guint       iteration;         /* 1-based iteration of the innermost loop it ran in; 0: none */
  char       *custom_function;   /* an autograd.Function subclass: "MyReLU"; else NULL */
  gboolean    in_place;          /* add_, relu_(), x[0] = ... */
  const char *rule;              /* the op's local-gradient rule text, static; or NULL */
  GPtrArray  *saved;             /* of CrRecordSaved* */
  guint       loop_depth;        /* how many loops it ran in (as CrRecordTensor's) */
  guint       loop_path[CR_RECORD_MAX_LOOP_PATH]; /* their iterations, outermost first */
  GPtrArray  *arguments;         /* of CrRecordArgument*: the numbers it keeps that are no
                                  * tensor, in PyTorch's order of _saved_ attributes */
} CrRecordOp;

/* ---- modules and grad-mode regions ---------------------------------------- */

typedef struct {
  guint   id;                    /* its index in record->module_calls */
  char   *path;                  /* "fc1", "layers.0"; "" for the outermost module called */
  char   *class_name;            /* "Linear" */
  int     parent;                /* the call it ran inside (index), -1: none */
  guint   depth;                 /* 0 for a call made by the script itself */
  guint   iteration;             /* 1-based loop iteration of the call; 0: none */
  CrSpan  span;                  /* the call site */
  gboolean user_class;           /* a call of a user class that is no nn.Module (a
                                  * micrograd-style Neuron's __call__); path as for a
                                  * module, from the outermost object's attributes:
                                  * "layers.0.neurons.3" */
  guint   loop_depth;            /* how many loops the call ran in (as CrRecordTensor's) */
  guint   loop_path[CR_RECORD_MAX_LOOP_PATH]; /* their iterations, outermost first */
} CrRecordModuleCall;

typedef enum {
  CR_RECORD_REGION_NO_GRAD,      /* with torch.no_grad(): / @torch.no_grad() */
  CR_RECORD_REGION_ENABLE_GRAD,  /* with torch.enable_grad(): */
  CR_RECORD_REGION_GRAD_DISABLED,/* torch.set_grad_enabled(False) until it is set back */
  CR_RECORD_REGION_INFERENCE,    /* with torch.inference_mode(): */
} CrRecordRegionKind;

typedef struct {
  guint               id;
  CrRecordRegionKind  kind;
  CrSpan              span;      /* the with statement, its body included */
  guint               iteration; /* 1-based loop iteration; 0: none */
  guint               loop_depth; /* how many loops it began in (as CrRecordTensor's) */
  guint               loop_path[CR_RECORD_MAX_LOOP_PATH]; /* their iterations, outermost
                                  * first */
} CrRecordRegion;

/* ---- backward calls ------------------------------------------------------- */

/* A gradient with its name, "∂L/∂b". */
typedef struct {
  char             *name;
  int               tensor;      /* the tensor it is the gradient of, -1: unknown */
  CrTensorSnapshot *value;       /* NULL: None */
} CrRecordGrad;

/* The sum-to-shape of a broadcast: the product had the broadcast shape and is
 * summed back to the input's shape ("summed over dim 0 to b's shape 3"). */
typedef struct {
  int               dims[CR_MAX_DIMS];  /* the dims summed, in the product's numbering */
  int               n_dims;
  int               from_ndim;
  gint64            from_shape[CR_MAX_DIMS];
  int               to_ndim;
  gint64            to_shape[CR_MAX_DIMS];
} CrRecordReduction;

/* What a step sends to one input of its node. */
typedef struct {
  int                 tensor;       /* the input (index in tensors), -1: unknown */
  int                 to_op;        /* the op the gradient goes on to, -1: a leaf or none */
  int                 to_leaf;      /* the leaf whose AccumulateGrad gets it, -1: none */
  char               *name;         /* "w1", "(w3*b)" */
  char               *local_name;   /* "∂b/∂w1" */
  CrTensorSnapshot   *local;        /* the local gradient; NULL when the op has no
                                     * elementwise one (see CrRecordStep.rule) */
  CrTensorSnapshot   *product;      /* incoming × local, before any reduction; NULL
                                     * without a local gradient */
  CrRecordReduction  *reduction;    /* NULL unless the product was summed to shape */
  CrRecordGrad        outgoing;     /* "∂L/∂w1" and the gradient sent on (NULL value:
                                     * the input gets no gradient) */
} CrRecordStepInput;

typedef enum {
  CR_RECORD_HOOK_TENSOR,         /* t.register_hook(fn) */
  CR_RECORD_HOOK_RETAIN_GRAD,    /* retain_grad(): writes t.grad */
  CR_RECORD_HOOK_MODULE,         /* register_full_backward_hook and friends */
} CrRecordHookKind;

/* A hook that ran on a gradient, before the node using that gradient. */
typedef struct {
  CrRecordHookKind  kind;
  int               tensor;       /* whose hook (index in tensors) */
  char             *function;     /* the hook's name: "double_it", "<lambda>" */
  CrSpan            span;         /* the hook function's definition ({0}: unknown) */
  CrTensorSnapshot *before;       /* the gradient it was called with */
  CrTensorSnapshot *after;        /* what it returned; NULL: None, the gradient is
                                   * unchanged. RETAIN_GRAD: the .grad written */
  gboolean          raised;       /* it raised (after is NULL): its step failed, and the
                                   * backward call's error is what it raised */
} CrRecordHookCall;

/* A second (third, ...) gradient reaching the same tensor during a step. */
typedef struct {
  char             *name;         /* "∂L/∂a" */
  int               tensor;
  int               to_op;        /* the op receiving it, -1: a leaf */
  CrTensorSnapshot *contribution;
  CrTensorSnapshot *sum;          /* the sum so far */
} CrRecordAccumulation;

typedef enum {
  CR_RECORD_STEP_NODE,           /* a grad_fn ran its backward formula */
  CR_RECORD_STEP_ACCUMULATE,     /* AccumulateGrad wrote a leaf's .grad */
} CrRecordStepKind;

typedef struct {
  guint              index;         /* 0-based within its backward call */
  CrRecordStepKind   kind;
  int                op;            /* NODE: the op (index in ops); else -1 */
  int                leaf;          /* ACCUMULATE: the leaf (index in tensors); else -1 */
  char              *title;         /* "MulBackward0", "AccumulateGrad" */
  char              *caption;       /* "b = w1*a, line 13"; ACCUMULATE: the leaf's label */
  GPtrArray         *hooks;         /* of CrRecordHookCall*: in the order they ran, before
                                     * the node (pre-hooks, retain_grad) */
  GPtrArray         *incoming;      /* of CrRecordGrad*: ∂L/∂out per output, after hooks */
  const char        *rule;          /* the local-gradient rule, static, or NULL */
  char              *custom_backward; /* a custom Function: "MyReLU.backward"; else NULL */
  CrSpan             custom_span;     /* its def line ({0}: none) */
  GPtrArray         *inputs;        /* of CrRecordStepInput* */
  GPtrArray         *accumulations; /* of CrRecordAccumulation*, in the order they happened */
  CrTensorSnapshot  *grad_before;   /* ACCUMULATE: .grad before (NULL: None) */
  CrTensorSnapshot  *grad_after;    /* ACCUMULATE: .grad after */
  gboolean           failed;        /* the node raised (in a hook, its backward formula or
                                     * the gradients it returned): hooks and incoming are what
                                     * ran before, inputs is empty; the backward's error says
                                     * why. The call's last step. */
} CrRecordStep;

typedef enum {
  CR_RECORD_BACKWARD_CALL,       /* t.backward(), torch.autograd.backward */
  CR_RECORD_BACKWARD_GRAD,       /* torch.autograd.grad */
} CrRecordBackwardKind;

typedef struct {
  guint                 id;           /* its index in record->backwards */
  CrRecordBackwardKind  kind;
  char                 *title;        /* "loss.backward() · line 23", "… · iteration 3" */
  CrSpan                span;         /* the call */
  guint                 iteration;    /* 1-based loop iteration of the call; 0: none */
  GArray               *roots;        /* of int: tensors it started from */
  char                 *root_name;    /* the numerator of every ∂: "L" */
  gboolean              retain_graph;
  gboolean              create_graph;
  gboolean              succeeded;
  int                   error;        /* index in errors when it failed; else -1 */
  GPtrArray            *steps;        /* of CrRecordStep*, in the order the engine ran them */
  guint                 loop_depth;   /* how many loops the call ran in (as CrRecordTensor's) */
  guint                 loop_path[CR_RECORD_MAX_LOOP_PATH]; /* their iterations, outermost
                                       * first */
  GPtrArray            *root_grads;   /* of CrRecordGrad*: with several roots
                                       * (torch.autograd.backward([a, b], [ga, gb])), each
                                       * root's gradient as the call starts from it (given,
                                       * or the implicit 1), in order; empty for one root */
  GPtrArray            *root_accumulations; /* of CrRecordAccumulation*: roots' gradients
                                       * added into one buffer before any step ran (the
                                       * same tensor twice): the last sum is what the
                                       * receiving step gets, before its hooks */
} CrRecordBackward;

/* ---- errors --------------------------------------------------------------- */

typedef struct {
  char   *type;                  /* "RuntimeError"; a script's own class by its
                                  * name: "GradTooBig" */
  char   *message;               /* PyTorch's text */
  CrSpan  span;                  /* the line that raised ({0}: unknown) */
  int     op;                    /* the node that failed (index in ops), -1 */
  int     backward;              /* the backward call it stopped, -1 */
  int     step;                  /* the step of that call it stopped at, -1 */
  int     tensor;                /* the tensor at fault (a saved tensor changed in
                                  * place, the operand of a shape error), -1 */
  CrSpan  culprit_span;          /* in-place errors: the statement that changed the saved
                                  * tensor ({0}: none) */
  GArray *operands;              /* of int: the tensors the failing expression was given
                                  * (x and w of `x @ w` that raised a shape error; the
                                  * arguments of a call, its receiver first), in
                                  * evaluation order; empty when none or not known */
} CrRecordError;

/* ---- the mistakes coach's findings ----------------------------------------- */

/* A classic autograd mistake the coach (core/coach/) recognised in the run:
 * where it is, what to ring on the graph, what to say, and the fix as one
 * edit of the script's text. */
typedef struct {
  char   *kind;                  /* which mistake, a stable name: "zero-grad-forgotten"
                                  * (the list: core/coach/cr-coach.h) */
  CrSpan  span;                  /* the line it is about */
  int     op;                    /* a node to ring (index in ops), -1 */
  int     tensor;                /* a tensor to ring (index in tensors), -1 */
  int     backward;              /* the backward call it concerns (index), -1 */
  char   *title;                 /* one line: "gradients add up over iterations" */
  char   *explanation;           /* a few sentences, plain text, no markup */
  CrSpan  fix_span;              /* the text the fix replaces, in source; where start ==
                                  * end, the fix is inserted there */
  char   *fix;                   /* the replacement; NULL: no fix (fix_span is {0}) */
} CrRecordFinding;

/* ---- training: parameter updates ------------------------------------------ */

/* How a parameter was updated between backward calls. */
typedef enum {
  CR_RECORD_UPDATE_OPTIMIZER,    /* optimizer.step(): one parameter's share of it */
  CR_RECORD_UPDATE_MANUAL,       /* the script's own in-place statement on a leaf that
                                  * requires grad, grad mode off: `w -= lr * w.grad` under
                                  * no_grad, `p.data -= lr * p.grad` */
} CrRecordUpdateKind;

/* A number an update used: an option of the optimizer's parameter group
 * ("lr", "momentum", "weight_decay", "beta1", "beta2", "eps"; booleans as 0/1). */
typedef struct {
  char   *name;
  double  value;
} CrRecordNumber;

/* One entry of an optimizer's per-parameter state, before and after its step. */
typedef struct {
  char             *name;        /* "momentum_buffer", "exp_avg", "exp_avg_sq", "step" */
  CrTensorSnapshot *before;      /* NULL: not there yet (a first step) or None; a number
                                  * of the state is a 0-d snapshot, int64 for an int */
  CrTensorSnapshot *after;       /* NULL: None */
} CrRecordOptimState;

/* One parameter's update: its value before and after, the gradient it used
 * and the optimizer's state around it. Snapshots of tensors of more than 64
 * elements keep their first CR_RECORD_UPDATE_MAX_VALUES values while the
 * run's updates have kept fewer than CR_RECORD_UPDATES_MAX_VALUES in all,
 * then their first 8; their statistics always (the norm follows from them:
 * cr_tensor_snapshot_norm). A reader follows an element through n_values:
 * the Training page shows "?" past it. */
typedef struct {
  guint               id;           /* its index in record->updates */
  CrRecordUpdateKind  kind;
  char               *optimizer;    /* OPTIMIZER: its class, "SGD", "Adam"; MANUAL: NULL */
  guint               optimizer_id; /* OPTIMIZER: which optimizer object, 0-based in the order
                                     * of their first step; MANUAL: 0 */
  guint               step;         /* OPTIMIZER: that optimizer's step() call, 1-based;
                                     * MANUAL: 0 */
  guint               group;        /* OPTIMIZER: the parameter group's index */
  int                 tensor;       /* the parameter (index in tensors), -1: unknown */
  char               *name;         /* its label: "fc1.weight", "W1" */
  CrSpan              span;         /* the script's statement: optimizer.step(), or the
                                     * update itself */
  int                 backward;     /* the last backward call before it (index in
                                     * backwards), -1: none */
  guint               iteration;    /* 1-based iteration of the innermost loop; 0: none */
  guint               loop_depth;
  guint               loop_path[CR_RECORD_MAX_LOOP_PATH];
  GPtrArray          *numbers;      /* of CrRecordNumber*: the group's options, in its order */
  CrTensorSnapshot   *grad;         /* the .grad it used (NULL: None) */
  CrTensorSnapshot   *before;       /* the parameter before (NULL: unknown) */
  CrTensorSnapshot   *after;        /* and after */
  GPtrArray          *state;        /* of CrRecordOptimState*, in the state dict's order */
} CrRecordUpdate;

/* What an update's snapshot of a big tensor keeps: every element the
 * Training page offers in a parameter of up to 1024 elements (a 32×32
 * weight), within a budget of its own (16 MiB of doubles), so that a long
 * loop over a big model leaves the graph's snapshots their share. */
#define CR_RECORD_UPDATE_MAX_VALUES  1024
#define CR_RECORD_UPDATES_MAX_VALUES (2 * 1024 * 1024)

/* A number a print() call showed inside a loop, after a backward call: in
 * "step 40  loss 0.1778", ("step", 40) and ("loss", 0.1778). The training
 * view draws each name of each print line as a series over the backward
 * calls. */
typedef struct {
  char   *name;                  /* the word before the number: "loss", "acc" */
  double  value;
  CrSpan  span;                  /* the print statement */
  int     backward;              /* the last backward call before it (index), -1: none */
  guint   iteration;             /* 1-based iteration of the innermost loop */
} CrRecordPrinted;

/* A notebook's code cell: the lines of the script it is ("# %% [3]" marks
 * each; the marker is in no cell). Its reader names a line by its cell:
 * "cell 3, line 2" (cr_run_record_line_text). */
typedef struct {
  guint  number;                 /* "cell 3": its place among the code cells, 1-based */
  int    first_line;             /* its first and last line in the script, 1-based */
  int    last_line;
} CrRecordCell;

/* ---- the record ----------------------------------------------------------- */

typedef struct {
  gint        ref_count;          /* private */
  char       *filename;           /* as errors name it: "<stdin>", "mlp.py" */
  char       *source;             /* the script's text (spans refer to it) */
  GPtrArray  *tensors;            /* of CrRecordTensor* */
  GPtrArray  *ops;                /* of CrRecordOp* */
  GPtrArray  *module_calls;       /* of CrRecordModuleCall* */
  GPtrArray  *regions;            /* of CrRecordRegion* */
  GPtrArray  *backwards;          /* of CrRecordBackward* */
  GPtrArray  *errors;             /* of CrRecordError* */
  gboolean    truncated;          /* the run made more tensors or ops than a record keeps
                                   * (CR_RUN_RECORD_MAX_ITEMS): the later ones are left
                                   * out, and indices to them are -1 */
  GPtrArray  *findings;           /* of CrRecordFinding*: what the mistakes coach found
                                   * (empty when the run was not coached) */
  GPtrArray  *updates;            /* of CrRecordUpdate*: parameter updates (optimizer
                                   * steps and manual ones), in the order they ran */
  GPtrArray  *printed;            /* of CrRecordPrinted*: numbers print() showed in loops
                                   * after a backward call, in order (at most
                                   * CR_RUN_RECORD_MAX_PRINTED) */
  GArray     *cells;              /* of CrRecordCell: a notebook's code cells in order,
                                   * when the script ran as cells (.ipynb); empty for a
                                   * plain script */
} CrRunRecord;

/* A record keeps at most this many tensors, and as many ops: a script that
 * loops a million times still ends with a window that can draw its record. */
#define CR_RUN_RECORD_MAX_ITEMS 100000
/* And at most this many printed numbers. */
#define CR_RUN_RECORD_MAX_PRINTED 20000

/* An empty record (every array empty, free-funcs set). source and filename are
 * copied; either may be NULL. */
CrRunRecord        *cr_run_record_new        (const char        *filename,
                                              const char        *source);
CrRunRecord        *cr_run_record_ref        (CrRunRecord       *self);
void                cr_run_record_unref      (CrRunRecord       *self);   /* NULL-safe */

/* Item constructors for whoever fills a record: zeroed, every int index set
 * to -1, every array made (owning), appended to their array in self; the
 * returned item is borrowed from self. */
CrRecordTensor     *cr_run_record_add_tensor      (CrRunRecord      *self);
CrRecordOp         *cr_run_record_add_op          (CrRunRecord      *self);
CrRecordModuleCall *cr_run_record_add_module_call (CrRunRecord      *self);
CrRecordRegion     *cr_run_record_add_region      (CrRunRecord      *self);
CrRecordBackward   *cr_run_record_add_backward    (CrRunRecord      *self);
CrRecordStep       *cr_record_backward_add_step   (CrRecordBackward *backward);
CrRecordError      *cr_run_record_add_error       (CrRunRecord      *self);
CrRecordFinding    *cr_run_record_add_finding     (CrRunRecord      *self);
CrRecordSaved      *cr_record_op_add_saved        (CrRecordOp       *op);
/* name copied; kind CR_RECORD_ARGUMENT_NONE and no values until set. */
CrRecordArgument   *cr_record_op_add_argument     (CrRecordOp       *op,
                                                   const char       *name);
CrRecordStepInput  *cr_record_step_add_input      (CrRecordStep     *step);
CrRecordHookCall   *cr_record_step_add_hook       (CrRecordStep     *step);
CrRecordGrad       *cr_record_step_add_incoming   (CrRecordStep     *step);
CrRecordAccumulation *cr_record_step_add_accumulation (CrRecordStep *step);
CrRecordGrad       *cr_record_backward_add_root_grad (CrRecordBackward *backward);
CrRecordAccumulation *cr_record_backward_add_root_accumulation (CrRecordBackward *backward);
CrRecordUpdate     *cr_run_record_add_update      (CrRunRecord      *self);

/* op's argument `name` (borrowed), NULL when it keeps none of that name. */
const CrRecordArgument *cr_record_op_argument     (const CrRecordOp *op,
                                                   const char       *name);
/* The step's first incoming gradient (borrowed), NULL when none. */
const CrRecordGrad *cr_record_step_first_incoming (const CrRecordStep *step);
/* Whether step is where tensor's gradient is taken in: a node's incoming
 * gradient, or the leaf an AccumulateGrad writes. */
gboolean            cr_record_step_takes_in       (const CrRecordStep *step,
                                                   int                 tensor);
/* What the hooks a step ran did, in four flags: what its card and its
 * text say about them. */
typedef struct {
  gboolean tensor_hook;   /* a hook of register_hook() (or a module's) ran */
  gboolean retain;        /* retain_grad() kept the gradient */
  gboolean changed;       /* a register_hook() hook returned a new gradient */
  gboolean raised;        /* a hook raised an exception */
} CrRecordHookSummary;
/* Fills *summary from step's hooks; FALSE (and all flags FALSE) when it ran none. */
gboolean            cr_record_step_hook_summary   (const CrRecordStep  *step,
                                                   CrRecordHookSummary *summary);
/* The root sums told at step: a backward call given one root several
 * times (torch.autograd.backward([y, y])) adds their gradients up before
 * any step runs, and each sum is told at the first step that takes its
 * tensor in. New array of guint, indices into backward->root_accumulations
 * (empty: none at this step). */
GArray             *cr_record_step_root_sums      (const CrRecordBackward *backward,
                                                   const CrRecordStep     *step);
/* name copied; the item is borrowed from update. */
CrRecordNumber     *cr_record_update_add_number   (CrRecordUpdate   *update,
                                                   const char       *name,
                                                   double            value);
CrRecordOptimState *cr_record_update_add_state    (CrRecordUpdate   *update,
                                                   const char       *name);
/* name copied; NULL when the record holds CR_RUN_RECORD_MAX_PRINTED already. */
CrRecordPrinted    *cr_run_record_add_printed     (CrRunRecord      *self,
                                                   const char       *name,
                                                   double            value);
/* Appends a code cell (cells come in order, none overlapping). */
void                cr_run_record_add_cell        (CrRunRecord      *self,
                                                   guint             number,
                                                   int               first_line,
                                                   int               last_line);
/* The code cell that holds line (borrowed; cell_line, when not NULL: the
 * line within it, 1-based), or NULL: a plain script, or a marker line. */
const CrRecordCell *cr_run_record_cell_at         (const CrRunRecord *self,
                                                   int               line,
                                                   int              *cell_line);
/* Where line of the script is, as its reader counts it (new string): "cell
 * 3, line 2" in a notebook's code cell, else "line 12". capital: "Cell 3,
 * line 2", "Line 12", to begin a sentence. Every text that names a line of
 * the script (titles, cards, the trace, the coach) says it so. */
char               *cr_run_record_line_text       (const CrRunRecord *self,
                                                   int               line,
                                                   gboolean          capital);

/* ---- state at a step -------------------------------------------------------
 * "As of (backward, step)": after step `step` of backward call `backward` ran;
 * step -1 is before that call's first step. Everything before that call
 * counts in full. */

/* The .grad of tensor as of (backward, step), borrowed; NULL: None. Written
 * by AccumulateGrad steps (leaves) and retain_grad hooks (non-leaves). */
const CrTensorSnapshot *cr_run_record_grad_at      (const CrRunRecord *self,
                                                    int                tensor,
                                                    int                backward,
                                                    int                step);
/* Whether op's saved tensor `slot` was freed as of (backward, step). */
gboolean                cr_run_record_saved_freed_at (const CrRunRecord *self,
                                                      int                op,
                                                      guint              slot,
                                                      int                backward,
                                                      int                step);
/* Whether op had run its backward as of (backward, step): in that call only;
 * a step that failed (the node or one of its hooks raised) is no run of it. */
gboolean                cr_run_record_op_ran_at    (const CrRunRecord *self,
                                                    int                op,
                                                    int                backward,
                                                    int                step);

/* Whether error names tensor: the tensor at fault or one of the operands of
 * the op that failed (the window rings every one). */
gboolean                cr_record_error_names_tensor (const CrRecordError *error,
                                                      int                  tensor);

/* Cuts the values kept by the snapshots of the steps of backward calls
 * first_backward and later, in the order they were taken, to budget values
 * in all (a snapshot of more than 64 elements past it keeps fewer, down to
 * none, and its statistics; a smaller one keeps its values for its text).
 * Returns what is left of budget (negative: overspent before).
 * For a recorder whose snapshots outran the budget for a while
 * (--trace-backward, cr-run-record-budget.c). */
gint64                  cr_run_record_limit_step_values (CrRunRecord *self,
                                                         guint        first_backward,
                                                         gint64       budget);

/* The loss of backward call `backward`: the value of its first root when
 * that is one element (its snapshot's statistics keep it even when the
 * values were cut). FALSE: no such root (several elements, unknown). */
gboolean                cr_run_record_backward_loss (const CrRunRecord *self,
                                                     guint              backward,
                                                     double            *loss);
/* An update's option `name` ("lr"), or fallback when it has none. */
double                  cr_record_update_number (const CrRecordUpdate *update,
                                                 const char           *name,
                                                 double                fallback);
/* An update's state entry `name`, borrowed; NULL: none. */
const CrRecordOptimState *cr_record_update_state (const CrRecordUpdate *update,
                                                  const char           *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrRunRecord, cr_run_record_unref)

G_END_DECLS
