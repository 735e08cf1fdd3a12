/* cr-graph-groups.h — module code on the graph: a tree of groups over a
 * CrGraphModel (one per nn.Module call, per call of a user class's __call__,
 * per loop iteration of equal structure), "× N" folds of runs of equal
 * sibling groups, and the collapse of a model into a smaller CrGraphModel in
 * which each closed group is ONE node (CR_GRAPH_NODE_GROUP) with the edges
 * in and out of it, so that layout and drawing need no change.
 *
 * Levels: a group's level is its depth in this tree, folds included (a top
 * group is at level 0). "Open to level L" opens exactly the groups whose
 * level is below L: level 0 shows every top group closed, the tree's height
 * shows the whole model. The window's depth control sets L; a click on a
 * closed group opens that one (the open state is a gboolean per group id,
 * kept by the canvas, by key across re-runs of an edited script).
 *
 * Loops: the ops outside any call, and the calls the script makes itself,
 * are grouped by loop iteration where a loop ran two or more iterations in
 * the graph; nested loops nest ("iteration 2" of an epoch loop holds its
 * batch loop's "iteration 2,1" ... "iteration 2,3"). A loop is told from
 * the next one at the same depth by its iterations starting again (or by
 * an op outside it in between), in the order the ops ran. Inside a call,
 * its own ops and the calls it makes are grouped the same way by the
 * loops of its forward (a neuron's loop over its inputs); a loop there
 * whose every iteration is one call (an MLP's loop over its layers) adds
 * no level.
 *
 * Which group a node is in: an op node is in the innermost module call it
 * ran in (CrRecordOp.module_call); a parameter (a tensor with a module path:
 * "fc1.weight") in the innermost group that holds every op using it, and its
 * AccumulateGrad with it; every other node (the script's inputs, the output)
 * is in no group.
 *
 * A groups value borrows nothing after it is made: it copies what it needs
 * (titles, the node → group map) and holds a ref on the model. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-layout.h"
#include "cr-graph-model.h"
#include "cr-run-record.h"

G_BEGIN_DECLS

typedef enum {
  CR_GRAPH_GROUP_MODULE,      /* an nn.Module call: "fc1 · Linear" */
  CR_GRAPH_GROUP_CALL,        /* a call of a user class that is not a module: "layers.0 · Layer" */
  CR_GRAPH_GROUP_ITERATION,   /* the ops of one loop iteration outside any call: "iteration 3" */
  CR_GRAPH_GROUP_REPEAT,      /* a fold of N ≥ 2 consecutive equal siblings: "layers.0–3 · Block × 4" */
} CrGraphGroupKind;

typedef struct {
  guint             id;           /* its index in CrGraphGroups.groups */
  CrGraphGroupKind  kind;
  int               parent;       /* the group it is in (index), -1: top */
  guint             level;        /* depth in this tree, folds included: 0 for a top group */
  char             *path;         /* "fc1", "layers.0"; a fold: "layers.0–3"; "" for the
                                   * outermost module called; iteration: NULL */
  char             *class_name;   /* "Linear"; iteration: NULL */
  char             *title;        /* what its box and its closed node say:
                                   * "fc1 · Linear", "Block × 4", "iteration 3" */
  char             *key;          /* stable across runs of an edited script, for keeping
                                   * which groups are open: "call:fc1", "repeat:layers.0–3" */
  int               module_call;  /* MODULE/CALL: index in record->module_calls; else -1 */
  guint             iteration;    /* the loop iteration of the call (1-based); 0: none */
  guint             repeat;       /* REPEAT: N; else 1 */
  GArray           *children;     /* of guint: its child groups, in forward order */
  GArray           *nodes;        /* of guint: the model nodes directly in it (not in a child) */
  guint             n_ops;        /* op nodes in it, children included */
  CrSpan            span;         /* the call site ({0}: none) */
  guint             loop_depth;   /* ITERATION: how many loops its path names (nested loops:
                                   * an epoch's iteration holds its batches'); else 0 */
  guint             loop_path[CR_RECORD_MAX_LOOP_PATH]; /* ITERATION: the iterations,
                                   * outermost first ("iteration 2,3": [2, 3]) */
  guint             loop_line;    /* ITERATION, and REPEAT of iterations: the line of the
                                   * loop statement (0: not known); titles name it
                                   * ("line 16 · iteration 1") when two loops at one
                                   * depth would read alike */
} CrGraphGroup;

typedef struct {
  CrGraphModel *model;            /* the model grouped (a ref) */
  GPtrArray    *groups;           /* of CrGraphGroup* (owned), parents before children */
  GArray       *top;              /* of guint: the top groups, in forward order */
  int          *node_group;       /* by model node id: the innermost group it is in, -1: none */
  guint         height;           /* 1 + the deepest level; 0 when there are no groups */
} CrGraphGroups;

/* What the groups are made from, per model node (by node id). */
typedef struct {
  int      module_call;           /* an op: the innermost call it ran in (index into calls),
                                   * -1: none */
  guint    iteration;             /* an op: its loop iteration (1-based), 0: none */
  gboolean follows_users;         /* a parameter (or its AccumulateGrad): goes in the
                                   * innermost group holding all its users */
  guint    loop_depth;            /* an op: how many nested loops it ran in (0: iteration,
                                   * when not 0, is its one loop's) */
  guint    loop_path[CR_RECORD_MAX_LOOP_PATH]; /* an op: their iterations, outermost first */
} CrGraphGroupsNodeFacts;

/* The groups of model, from the record the model is a view of (its
 * module calls, each op's call and iteration, each tensor's module path).
 * Never NULL: a model without module code gives no groups (height 0). */
CrGraphGroups *cr_graph_groups_new            (CrGraphModel                 *model);
/* The same from facts given by node (model->nodes->len of them) and the
 * module calls they refer to (of CrRecordModuleCall*, borrowed for the call):
 * for tests and for models not made from a record. */
CrGraphGroups *cr_graph_groups_new_with_facts (CrGraphModel                 *model,
                                               const CrGraphGroupsNodeFacts *facts,
                                               GPtrArray                    *calls);
void           cr_graph_groups_free           (CrGraphGroups                *self);   /* NULL-safe */

const CrGraphGroup *cr_graph_groups_get       (const CrGraphGroups *self,
                                               int                  group);          /* or NULL */
/* The group with key, or NULL. */
const CrGraphGroup *cr_graph_groups_find_key  (const CrGraphGroups *self,
                                               const char          *key);
/* TRUE when node (a model node id) is in group or in one of its descendants. */
gboolean       cr_graph_groups_contains       (const CrGraphGroups *self,
                                               guint                group,
                                               guint                node);

/* ---- which groups are open ---------------------------------------------------- */

/* A new array of groups->len gbooleans: the groups with level < level open. */
gboolean      *cr_graph_groups_open_to_level  (const CrGraphGroups *self,
                                               guint                level);
/* How many nodes the collapse with open shows (a closed group counts one). */
guint          cr_graph_groups_count_visible  (const CrGraphGroups *self,
                                               const gboolean      *open);
/* The deepest level whose collapse shows at most max_nodes nodes (0 when
 * even level 0 shows more; the height when the whole model fits). */
guint          cr_graph_groups_level_for      (const CrGraphGroups *self,
                                               guint                max_nodes);
/* The first view of a model: folds ("× N") closed, so that a repeated block
 * shows once, and every other group open down to the deepest level that
 * keeps the view at max_nodes nodes at most (a new array of groups->len
 * gbooleans); *level, when not NULL, gets that level. */
gboolean      *cr_graph_groups_open_first_view (const CrGraphGroups *self,
                                                guint                max_nodes,
                                                guint               *level);
/* Whether node (a model node id) is shown as itself with open: every group it
 * is in is open. */
gboolean       cr_graph_groups_node_visible   (const CrGraphGroups *self,
                                               const gboolean      *open,
                                               guint                node);
/* The outermost closed group holding node, -1 when node is visible. */
int            cr_graph_groups_closed_group_of(const CrGraphGroups *self,
                                               const gboolean      *open,
                                               guint                node);

/* ---- the collapsed model -------------------------------------------------------- */

/* An open group as the drawing shows it: a box behind the nodes in it. */
typedef struct {
  int           group;            /* index in the groups */
  guint         level;
  guint         inner;            /* how many levels of open groups it holds (0: none),
                                   * for the padding that keeps their boxes inside its */
  const char   *title;            /* "fc1 · Linear" (borrowed from the groups) */
  GArray       *nodes;            /* of guint: the collapsed model's nodes in it, at any depth */
} CrGraphGroupBox;

typedef struct {
  CrGraphModel *model;            /* the smaller model (owned ref): visible nodes copied,
                                   * a closed group as one CR_GRAPH_NODE_GROUP node (its
                                   * step: the first step of a node inside, its key
                                   * "group:" + its kind + ":" + the group's key:
                                   * "group:module:call::Net"). Its steps are the full
                                   * model's (the same record and backward call); its
                                   * lookups (cr_graph_model_find_op ...) give the node
                                   * here: a hidden op's group */
  guint         n_full_nodes;
  guint        *node_of;          /* by full model node id: the node that shows it here */
  int          *group_of;         /* by node id here: the closed group it stands for, -1:
                                   * a node of the full model */
  guint        *full_node;        /* by node id here: the full model's node (G_MAXUINT for
                                   * a group node) */
  guint         n_steps;          /* the full model's */
  guint        *step_node;        /* by step: the node here that shows it (G_MAXUINT: none),
                                   * a closed group for a step of a node inside it */
  GPtrArray    *boxes;            /* of CrGraphGroupBox* (owned): the open groups holding a
                                   * node, outer before inner */
  CrGraphGroups *groups;          /* the groups it was made from (borrowed: the caller
                                   * keeps them alive as long as the collapse) */
} CrGraphCollapse;

/* The kind of group that a collapsed model's group node stands for. */
CrGraphGroupKind cr_graph_group_node_kind     (const CrGraphNode   *node);

/* The model with the groups that open says are closed shown as one node
 * each. With every group open (or no groups), a model equal to the full one. */
CrGraphCollapse *cr_graph_collapse_new        (const CrGraphGroups *groups,
                                               const gboolean      *open);
void             cr_graph_collapse_free       (CrGraphCollapse     *self);   /* NULL-safe */

/* Stepping over a closed group as one unit. Steps shown one after another
 * on the same node (a closed group's, or a node's own) form a run; from
 * step (of the full model; -1: before the first) in direction +1 the end of
 * the run after step's, in direction -1 the end of the run before step's
 * (-1 when none). n_steps when going forward from the last. */
int              cr_graph_collapse_next_step  (const CrGraphCollapse *self,
                                               int                    step,
                                               int                    direction);

/* The step of the node the collapse shows step on: step itself for a node
 * shown as itself, the first step of a closed group for a step inside it
 * (what the drawing highlights as current); -1 for -1. */
int              cr_graph_collapse_shown_step (const CrGraphCollapse *self,
                                               int                    step);
/* The open groups' boxes behind their nodes, for layout (cairo, in layout
 * points; the caller's transform applies): each with its title on top,
 * where titles (of CrGraphTitle by box, cr_graph_titles_place () for
 * self->model; NULL: placed here) says. scale: the type's scale (1;
 * larger in presentation mode). */
void             cr_graph_collapse_draw_boxes (const CrGraphCollapse *self,
                                               cairo_t               *cr,
                                               const CrGraphLayout   *layout,
                                               const GArray          *titles,
                                               gboolean               dark,
                                               double                 scale);

/* Faint boxes of model's clusters (its open module calls) for a minimap:
 * the laid-out boxes when layout has them, else each around its nodes (at
 * any depth). Layout points times s; no titles; nested boxes add up, so
 * that nesting still reads at a few pixels a box. */
void             cr_graph_draw_cluster_marks  (cairo_t               *cr,
                                               const CrGraphModel    *model,
                                               const CrGraphLayout   *layout,
                                               double                 s,
                                               gboolean               dark);

/* A closed group (node, at b in layout points times s) for a minimap: the
 * box it is, in the group boxes' colours, titled when the title fits. */
void             cr_graph_draw_group_mark     (cairo_t               *cr,
                                               const CrGraphNode     *node,
                                               const CrGraphBox      *b,
                                               double                 s,
                                               gboolean               dark);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphGroups, cr_graph_groups_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrGraphCollapse, cr_graph_collapse_free)

G_END_DECLS
