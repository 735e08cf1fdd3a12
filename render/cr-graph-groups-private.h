/* cr-graph-groups-private.h — the draft tree that cr-graph-groups.c builds
 * the groups from, shared with cr-graph-groups-loops.c, which places the
 * top of it in loop iterations. */
#pragma once

#include "cr-graph-groups.h"

G_BEGIN_DECLS

typedef struct _CrGroupDraft CrGroupDraft;
struct _CrGroupDraft {
  CrGraphGroupKind  kind;
  int               call;        /* MODULE/CALL: index in calls */
  guint             iteration;
  guint             order;       /* siblings are sorted by it: when their first op ran */
  GPtrArray        *children;    /* of CrGroupDraft* (owned) */
  GArray           *nodes;       /* of guint */
  char             *signature;   /* the structure, for folding (made on demand) */
  int               id;          /* the final group's id */
  guint             period;      /* REPEAT: how many siblings one repeat is (1: one
                                  * block; 2: "A, B" repeated ...) */
  int               loop;        /* ITERATION: which run of a loop it is an iteration of
                                  * (iterations of two loops never fold together); REPEAT:
                                  * its members'; else -1 */
  guint             loop_depth;  /* ITERATION: its loop path, outermost first */
  guint             loop_path[CR_RECORD_MAX_LOOP_PATH];
};

CrGroupDraft *cr_group_draft_new  (CrGraphGroupKind kind);
void          cr_group_draft_free (gpointer         draft);   /* NULL-safe */

/* Places the units at the top of the tree (top: of CrGroupDraft*, owned;
 * the calls the script made itself) and the ops outside any call (those
 * with no draft in node_draft, by model node id) in a draft per iteration
 * of each loop that ran two or more iterations here, nested as the loops
 * are (calls: of CrRecordModuleCall*, the calls' loop paths); *top is
 * replaced by the new top. parents (CrGroupDraft* -> its
 * parent) and node_draft are kept up to date; each top call's order
 * becomes when its first op ran, as the iterations' is. */
void          cr_group_drafts_nest_loops (CrGraphModel                 *model,
                                          const CrGraphGroupsNodeFacts *facts,
                                          GPtrArray                    *calls,
                                          GPtrArray                   **top,
                                          CrGroupDraft                **node_draft,
                                          GHashTable                   *parents);

/* The same inside each call of the tree under top (of CrGroupDraft*): a
 * call's own ops and the calls it made go in a draft per iteration of
 * each loop in its forward that ran two or more iterations there (a
 * neuron's loop over its inputs), below the loops the call itself ran in. */
void          cr_group_drafts_nest_call_loops (CrGraphModel                 *model,
                                               const CrGraphGroupsNodeFacts *facts,
                                               GPtrArray                    *calls,
                                               GPtrArray                    *top,
                                               CrGroupDraft                **node_draft,
                                               GHashTable                   *parents);

/* The line of the loop statement (for, while) that holds line of source,
 * levels_out loops out from the innermost (0: the innermost); 0 when
 * source or the loop is not known, or the line is in a function (whose
 * loops are not its callers'). */
guint         cr_graph_groups_loop_line  (const char *source,
                                          guint       line,
                                          guint       levels_out);

G_END_DECLS
