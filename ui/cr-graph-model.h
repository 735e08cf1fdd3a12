/* cr-graph-model.h — the computation graph of a run as plain data: what the
 * canvas and `chainrule export` draw.
 *
 * A model is a value: building it copies every string and number it needs
 * out of the engine's graph, so it stays valid after the interpreter that
 * made the tensors is gone, and a worker thread can hand it to the UI. */
#pragma once

#include <glib.h>

#include "cr-types.h"
#include "cr-interp.h"

G_BEGIN_DECLS

typedef enum {
  CR_GRAPH_NODE_LEAF,         /* a leaf tensor that requires grad: a, w1 */
  CR_GRAPH_NODE_OP,           /* a grad_fn: MulBackward0 */
  CR_GRAPH_NODE_ACCUMULATE,   /* AccumulateGrad: writes a leaf's .grad */
  CR_GRAPH_NODE_OUTPUT,       /* a root of the backward call (or the forward graph): L */
} CrGraphNodeKind;

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
} CrGraphNode;

typedef struct {
  guint  from;                  /* forward direction: the input ... */
  guint  to;                    /* ... to the node that used it */
  char  *label;                 /* the shape that travels along it: "3×3" */
} CrGraphEdge;

typedef struct {
  GPtrArray *nodes;             /* of CrGraphNode* (owned) */
  GPtrArray *edges;             /* of CrGraphEdge* (owned) */
  guint      n_steps;           /* steps of the backward call it came from (0: forward only) */
} CrGraphModel;

/* The graph behind roots (tensors; those without grad_fn and requires_grad
 * give a lone leaf). source, when given, is the script text spans refer to. */
CrGraphModel *cr_graph_model_new_from_tensors (CrTensor *const        *roots,
                                               guint                   n_roots,
                                               const char             *source);
/* The graph of one recorded backward call, with each node's step. */
CrGraphModel *cr_graph_model_new_from_record  (const CrBackwardRecord *record,
                                               const char             *source);
/* The graph a finished run is about: its last backward call, or when none ran,
 * the forward graph of the newest tensor among the script's globals that has a
 * grad_fn (NULL when there is no graph at all). */
CrGraphModel *cr_graph_model_new_from_interp  (CrInterp               *interp,
                                               const char             *source);
void          cr_graph_model_free             (CrGraphModel           *self);   /* NULL-safe */

/* The node that backward step `step` ran, or NULL. */
const CrGraphNode *cr_graph_model_find_step   (const CrGraphModel     *self,
                                               int                     step);
/* "3×3", "4", "scalar" (new string). */
char         *cr_graph_format_shape           (const gint64           *shape,
                                               int                     ndim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphModel, cr_graph_model_free)

G_END_DECLS
