/* cr-graph-model.h — the computation graph of a run as the canvas and
 * `chainrule export` draw it: a view of a CrRunRecord (core/record).
 *
 * The record is the model of the run; a graph model only says what is drawn
 * where: one node per record item shown (an op, a tensor, a leaf's
 * AccumulateGrad) with that item's index, the edges between them, and the
 * backward call whose steps it steps through. The steps are the record's
 * CrRecordStep (cr_graph_model_get_record_step()); the model holds a
 * reference on the record, so it stays valid after the interpreter that made
 * the run is gone, and a worker thread can hand it to the UI.
 * What a node's tensor holds (its value, .grad at a step, an op's saved
 * tensors) is read from the record through the node's op and tensor. */
#pragma once

#include <glib.h>

#include "cr-types.h"
#include "cr-run-record.h"
#include "cr-tensor-snapshot.h"

G_BEGIN_DECLS

typedef enum {
  CR_GRAPH_NODE_LEAF,         /* a leaf tensor that requires grad: a, w1 */
  CR_GRAPH_NODE_OP,           /* a grad_fn: MulBackward0 */
  CR_GRAPH_NODE_ACCUMULATE,   /* AccumulateGrad: writes a leaf's .grad */
  CR_GRAPH_NODE_OUTPUT,       /* a root of the backward call (or the forward graph): L */
  CR_GRAPH_NODE_CONSTANT,     /* an op input that gets no gradient (requires_grad=False):
                               * drawn dashed and dim */
  CR_GRAPH_NODE_NO_GRAD,      /* an op input made under torch.no_grad() from tensors that
                               * require grad: the graph stops there */
  CR_GRAPH_NODE_DETACHED,     /* an op input made by t.detach() / t.data */
  CR_GRAPH_NODE_GROUP,        /* a closed group of a collapsed model (cr-graph-groups.h):
                               * a module call drawn as one node, "fc1 · Linear" */
} CrGraphNodeKind;

/* Whether a node of kind draws a tensor (a box with a shape and values)
 * rather than a grad_fn. */
#define CR_GRAPH_NODE_KIND_IS_TENSOR(kind) \
  ((kind) == CR_GRAPH_NODE_LEAF || (kind) == CR_GRAPH_NODE_OUTPUT \
   || (kind) == CR_GRAPH_NODE_CONSTANT || (kind) == CR_GRAPH_NODE_NO_GRAD \
   || (kind) == CR_GRAPH_NODE_DETACHED)
/* Whether a node of kind is an input that gets no gradient. */
#define CR_GRAPH_NODE_KIND_IS_CONSTANT(kind) \
  ((kind) == CR_GRAPH_NODE_CONSTANT || (kind) == CR_GRAPH_NODE_NO_GRAD \
   || (kind) == CR_GRAPH_NODE_DETACHED)

typedef struct {
  guint            id;          /* its index in CrGraphModel.nodes */
  CrGraphNodeKind  kind;
  char            *title;       /* "a", "MulBackward0", "AccumulateGrad", "L" */
  char            *symbol;      /* an op's glyph: "×", "+", "Σ"; NULL otherwise */
  char            *caption;     /* an op's source: "b = w1*a"; NULL when unknown */
  char            *shape;       /* tensors: "3×3", "scalar"; NULL for ops */
  char            *preview;     /* tensors: a few values, may be multi-line; or NULL */
  CrSpan           span;        /* the code that made it ({0}: none) */
  int              step;        /* the backward step that ran it (0-based), -1: none */
  char            *key;         /* stable identity across runs of an edited script, for
                                 * keeping the layout: "op:MulBackward0:b = w1*a", "leaf:w1" */
  char            *device;      /* "cpu", "cuda:0" (NULL for ops and AccumulateGrad on cpu) */
  gboolean         freed;       /* an op that saved tensors and this backward call (or an
                                 * earlier one) freed them */
  int              op;          /* the record op it draws (OP; index in record->ops), -1 */
  int              tensor;      /* the record tensor it draws (tensor kinds; ACCUMULATE: the
                                 * leaf it writes), -1 */
} CrGraphNode;

typedef struct {
  guint  from;                  /* forward direction: the input ... */
  guint  to;                    /* ... to the node that used it */
  char  *label;                 /* the shape that travels along it: "3×3" */
  char  *tensor_name;           /* the intermediate tensor it carries when the script
                                 * named it ("b" for `b = w1 * a`), or NULL */
  int    tensor;                /* the record tensor it carries, -1: unknown */
  int    input;                 /* into an op node: which of the op's inputs (index in
                                 * record op->inputs); else -1 */
  gboolean stops_gradient;      /* to a tensor made from `from` under no_grad, or detached
                                 * from it: no gradient comes back along it (drawn dashed) */
} CrGraphEdge;

/* Nodes kept together in a titled box: an open module call. */
typedef struct {
  int     parent;               /* the cluster it is in (index in clusters), -1: none */
  char   *title;                /* "fc1 · Linear" */
  GArray *nodes;                /* of guint: the nodes directly in it (not in a child) */
} CrGraphCluster;

typedef struct {
  GPtrArray *nodes;             /* of CrGraphNode* (owned) */
  GPtrArray *edges;             /* of CrGraphEdge* (owned) */
  guint      n_steps;           /* steps of the backward call it came from (0: forward only):
                                 * cr_graph_model_get_record_step() gives each */
  char      *title;             /* "L.backward() · line 21", or "forward graph of d" */
  CrSpan     span;              /* the backward call ({0}: none) */
  gboolean   succeeded;         /* FALSE: backward stopped by an error */
  gint       ref_count;         /* private: see cr_graph_model_ref() */
  CrRunRecord *record;          /* the run it draws (a reference); NULL only for a model
                                 * built by hand */
  int        backward;          /* the backward call drawn (index in record->backwards);
                                 * -1: a forward graph, no steps */
  GHashTable *private_index;    /* private: record item -> node, for the lookups below
                                 * (NULL in a model built by hand) */
  GPtrArray  *private_step_edges; /* private: by step, a GArray of guint: the edge each
                                 * record step input travels (NULL: look them up) */
  GPtrArray  *clusters;         /* of CrGraphCluster* (owned): node sets the layout keeps
                                 * together and draws a box around (open module calls of a
                                 * collapsed model, cr-graph-groups.h), parents first;
                                 * NULL: none */
} CrGraphModel;

/* The graph of backward call `backward` of record (index in
 * record->backwards), with each node's step; backward -1: the forward graph
 * of the run's newest result (the newest op output the script named, else
 * the newest op output). NULL when there is no graph: no such call, or -1
 * and no op was recorded. The model holds a reference on record. */
CrGraphModel *cr_graph_model_new_from_run_record  (CrRunRecord *record,
                                                   int          backward);
/* One model per backward call of record, in order; when it made none, the
 * forward graph alone; an empty array when there is no graph at all.
 * Free-func set. */
GPtrArray    *cr_graph_models_new_from_run_record (CrRunRecord *record);

/* The record's step `step` of the backward call drawn (borrowed from the
 * record), or NULL (out of range, or a forward graph). */
const CrRecordStep     *cr_graph_model_get_record_step (const CrGraphModel *self,
                                                        int                 step);
/* The backward call drawn (borrowed), or NULL for a forward graph. */
const CrRecordBackward *cr_graph_model_get_backward    (const CrGraphModel *self);
/* The node drawing record op `op`, or NULL when the graph does not show it. */
const CrGraphNode *cr_graph_model_find_op          (const CrGraphModel *self,
                                                    int                 op);
/* The node drawing record tensor `tensor` (a leaf, an output, a constant ...;
 * not the AccumulateGrad of a leaf), or NULL. An op's result that the graph
 * shows only as its op's outgoing edges gives NULL. */
const CrGraphNode *cr_graph_model_find_tensor      (const CrGraphModel *self,
                                                    int                 tensor);
/* The AccumulateGrad node of leaf tensor `leaf`; a leaf that is itself a
 * root has none, then its leaf node. NULL when not shown. */
const CrGraphNode *cr_graph_model_find_accumulate  (const CrGraphModel *self,
                                                    int                 leaf);
/* The node the gradient of a step input goes to (the op it goes on to, or
 * the AccumulateGrad of its leaf), or NULL. */
const CrGraphNode *cr_graph_model_find_step_input_node (const CrGraphModel      *self,
                                                        const CrRecordStepInput *input);
/* The node that step `step` of the backward call drawn ran (its op, or the
 * AccumulateGrad of its leaf), or NULL. */
const CrGraphNode *cr_graph_model_find_step_node   (const CrGraphModel *self,
                                                    int                 step);
/* The edge a step's input travels along backwards: from that input's node
 * into the step's node (G_MAXUINT: none drawn). input_index is the input's
 * index in step->inputs. */
guint              cr_graph_model_find_step_input_edge (const CrGraphModel *self,
                                                        int                 step,
                                                        guint               input_index);
/* For a model made from another (a collapsed view, cr-graph-groups.h): the
 * record items that node `from` of the other model draws are drawn here by
 * node `node` (a group node standing for them, or a copy of `from`), so
 * that the lookups above work on this model too. self needs the record. */
void               cr_graph_model_index_node       (CrGraphModel       *self,
                                                    const CrGraphNode  *from,
                                                    guint               node);

/* An empty model with one reference, record NULL, backward -1: for models
 * built by hand (tests, benchmarks, a collapsed view of another model). */
CrGraphModel *cr_graph_model_new                  (void);
/* Appends a node (id = its index, step -1, op and tensor -1) and returns
 * it, borrowed from self. */
CrGraphNode  *cr_graph_model_add_node             (CrGraphModel    *self,
                                                   CrGraphNodeKind  kind,
                                                   const char      *title);
/* Appends an edge from -> to (label taken; tensor and input -1) and
 * returns it, borrowed from self. */
CrGraphEdge  *cr_graph_model_add_edge             (CrGraphModel    *self,
                                                   guint            from,
                                                   guint            to,
                                                   char            *label);

/* Models are reference counted: the window keeps the models of several
 * backward calls and the canvas holds the one it shows. A new model has one
 * reference. ref returns self; unref is NULL-safe and frees at zero. */
CrGraphModel *cr_graph_model_ref              (CrGraphModel           *self);
void          cr_graph_model_unref            (CrGraphModel           *self);   /* NULL-safe */
/* Deprecated alias of cr_graph_model_unref(). */
void          cr_graph_model_free             (CrGraphModel           *self);   /* NULL-safe */

/* The node whose span covers line (1-based) best (the innermost), or NULL. */
const CrGraphNode *cr_graph_model_find_line   (const CrGraphModel     *self,
                                               int                     line);
/* The node that backward step `step` ran, or NULL. */
const CrGraphNode *cr_graph_model_find_step   (const CrGraphModel     *self,
                                               int                     step);
/* "3×3", "4", "scalar" (new string). */
char         *cr_graph_format_shape           (const gint64           *shape,
                                               int                     ndim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphModel, cr_graph_model_unref)

G_END_DECLS
