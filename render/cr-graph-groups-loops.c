/* cr-graph-groups-loops.c — loop iterations as groups: the calls the
 * script makes itself and the ops outside any call go in a group per
 * iteration of each loop that ran two or more iterations in the graph,
 * nested as the loops are (an epoch's iteration holds its batches'); in
 * each call the same for its own ops and calls, by the loops below those
 * the call ran in.
 *
 * The record gives each op its loop path (the iterations of the loops it
 * ran in, outermost first) but no name for the loop itself, so the loops
 * are told apart by walking the units in the order they ran: at each depth
 * an iteration number that goes up is the same loop's next iteration, one
 * that starts again (or a unit outside the loop in between) a new loop. */
#include "cr-graph-groups-private.h"

#include <string.h>

/* What goes in an iteration: a top call's draft, or an op outside any call. */
typedef struct {
  CrGroupDraft *draft;        /* NULL: an op */
  guint         node;         /* the op (model node id) */
  guint         time;         /* when it (its first op) ran */
  guint         depth;        /* its loop path (G_MAXUINT: none seen yet) */
  guint         path[CR_RECORD_MAX_LOOP_PATH];
} Unit;

/* One loop the walk is in: which run of a loop, its iteration, the draft. */
typedef struct {
  guint         loop;
  guint         iteration;
  CrGroupDraft *draft;
} Level;

/* When an op node ran: its record op's index (ops are recorded as they run). */
static guint
node_time (CrGraphModel *model,
           guint         n)
{
  const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
  return node->op >= 0 ? (guint) node->op : n;
}

/* An op's loop path (into path), its depth returned; an op with only an
 * iteration counts it as one loop's. */
static guint
op_path (const CrGraphGroupsNodeFacts *f,
         guint                        *path)
{
  if (f->loop_depth > 0)
    {
      guint depth = MIN (f->loop_depth, CR_RECORD_MAX_LOOP_PATH);
      memcpy (path, f->loop_path, depth * sizeof (guint));
      return depth;
    }
  if (f->iteration > 0)
    {
      path[0] = f->iteration;
      return 1;
    }
  return 0;
}

static int
compare_units (gconstpointer a,
               gconstpointer b)
{
  const Unit *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

/* child into parent, or when parent is the container (NULL: the top)
 * into its new list of children, level. */
static void
add_child (CrGroupDraft *parent,
           CrGroupDraft *container,
           GPtrArray    *level,
           CrGroupDraft *child,
           GHashTable   *parents)
{
  if (parent != container)
    g_ptr_array_add (parent->children, child);
  else
    g_ptr_array_add (level, child);
  if (parent)
    g_hash_table_insert (parents, child, parent);
  else
    g_hash_table_remove (parents, child);
}

/* The iterations of a loop that ran once here give way to what is in them:
 * a group of one would only add a level. */
static void
dissolve_single (GPtrArray    *children,     /* of CrGroupDraft*, owning */
                 CrGroupDraft *container,    /* NULL: the top */
                 const guint  *loop_size,
                 CrGroupDraft **node_draft,
                 GHashTable   *parents)
{
  guint i = 0;
  while (i < children->len)
    {
      CrGroupDraft *c = g_ptr_array_index (children, i);
      if (c->kind != CR_GRAPH_GROUP_ITERATION || loop_size[c->loop] >= 2)
        {
          if (c->kind == CR_GRAPH_GROUP_ITERATION)
            dissolve_single (c->children, c, loop_size, node_draft, parents);
          i++;
          continue;
        }
      for (guint k = 0; k < c->nodes->len; k++)
        {
          guint n = g_array_index (c->nodes, guint, k);
          node_draft[n] = container;
          if (container)
            g_array_append_val (container->nodes, n);
        }
      /* Its children take its place, in order, and are looked at next. */
      children->pdata[i] = NULL;
      g_ptr_array_remove_index (children, i);
      for (guint k = 0; k < c->children->len; k++)
        {
          CrGroupDraft *g = g_ptr_array_index (c->children, k);
          g_ptr_array_insert (children, (int) (i + k), g);
          if (container)
            g_hash_table_insert (parents, g, container);
          else
            g_hash_table_remove (parents, g);
        }
      g_ptr_array_set_free_func (c->children, NULL);
      g_hash_table_remove (parents, c);
      cr_group_draft_free (c);
    }
}

/* The loop path of a unit below base loops (those of the call holding
 * it), shifted to start there; depth 0 when it is not below them. */
static void
strip_base (Unit  *u,
            guint  base)
{
  if (u->depth == G_MAXUINT || base == 0)
    return;
  if (u->depth <= base)
    {
      u->depth = 0;
      return;
    }
  memmove (u->path, u->path + base, (u->depth - base) * sizeof (guint));
  u->depth -= base;
}

/* cr_group_drafts_nest_loops () in container (NULL: the top, whose
 * children are *top), for the loops below base (the loops container's
 * call ran in). */
static void
nest_loops_in (CrGraphModel                 *model,
               const CrGraphGroupsNodeFacts *facts,
               GPtrArray                    *calls,
               CrGroupDraft                 *container,
               guint                         base,
               GPtrArray                   **top,
               CrGroupDraft                **node_draft,
               GHashTable                   *parents)
{
  guint n_nodes = model->nodes->len;
  g_autoptr (GArray) units = g_array_new (FALSE, TRUE, sizeof (Unit));
  g_autoptr (GHashTable) unit_of = g_hash_table_new (NULL, NULL);   /* top draft -> index + 1 */
  for (guint i = 0; i < (*top)->len; i++)
    {
      Unit u = { .draft = g_ptr_array_index (*top, i), .node = G_MAXUINT, .time = G_MAXUINT,
                 .depth = G_MAXUINT };
      g_array_append_val (units, u);
      g_hash_table_insert (unit_of, u.draft, GUINT_TO_POINTER (units->len));
    }

  /* A top call: when its first op ran, and where it ran: the record's
   * loop path of the call, else the loops every op in it ran in, as far
   * as the call's own iteration (loops inside its forward are not its). */
  for (guint n = 0; n < n_nodes; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      if (node->kind != CR_GRAPH_NODE_OP || !node_draft[n])
        continue;
      CrGroupDraft *d = node_draft[n];
      for (CrGroupDraft *p = d; p && p != container; p = g_hash_table_lookup (parents, p))
        d = p;
      guint index = GPOINTER_TO_UINT (g_hash_table_lookup (unit_of, d));
      if (index == 0)
        continue;
      Unit *u = &g_array_index (units, Unit, index - 1);
      guint path[CR_RECORD_MAX_LOOP_PATH];
      guint depth = op_path (&facts[n], path);
      u->time = MIN (u->time, node_time (model, n));
      if (u->depth == G_MAXUINT)
        {
          u->depth = depth;
          memcpy (u->path, path, depth * sizeof (guint));
          continue;
        }
      guint common = 0;
      while (common < u->depth && common < depth && u->path[common] == path[common])
        common++;
      u->depth = common;
    }
  for (guint i = 0; i < units->len; i++)
    {
      Unit *u = &g_array_index (units, Unit, i);
      const CrRecordModuleCall *call = calls && u->draft->call >= 0 && (guint) u->draft->call < calls->len
                                       ? g_ptr_array_index (calls, u->draft->call) : NULL;
      if (call && call->loop_depth > 0)
        {
          /* The record says where the call ran. */
          u->depth = MIN (call->loop_depth, CR_RECORD_MAX_LOOP_PATH);
          memcpy (u->path, call->loop_path, u->depth * sizeof (guint));
          strip_base (u, base);
          continue;
        }
      if (u->depth == G_MAXUINT)
        u->depth = 0;
      if (container)
        {
          /* Not known where in its caller's loops it ran: not grouped. */
          u->depth = 0;
          continue;
        }
      while (u->depth > 0 && u->path[u->depth - 1] != u->draft->iteration)
        u->depth--;
    }
  for (guint n = 0; n < n_nodes; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      if (node->kind != CR_GRAPH_NODE_OP || node_draft[n] != container)
        continue;
      Unit u = { .draft = NULL, .node = n, .time = node_time (model, n) };
      u.depth = op_path (&facts[n], u.path);
      strip_base (&u, base);
      g_array_append_val (units, u);
    }
  /* Its ops go back in where the walk puts them. */
  if (container)
    g_array_set_size (container->nodes, 0);
  g_array_sort (units, compare_units);

  /* The walk, in the order the units ran. */
  g_autoptr (GPtrArray) made = g_ptr_array_new ();   /* the iteration drafts */
  GPtrArray *new_top = g_ptr_array_new_with_free_func (cr_group_draft_free);
  g_autoptr (GArray) loop_size = g_array_new (FALSE, TRUE, sizeof (guint));   /* by loop */
  Level stack[CR_RECORD_MAX_LOOP_PATH];
  guint stack_len = 0;
  for (guint i = 0; i < units->len; i++)
    {
      Unit *u = &g_array_index (units, Unit, i);
      guint same = 0;
      while (same < u->depth && same < stack_len && stack[same].iteration == u->path[same])
        same++;
      for (guint e = same; e < u->depth; e++)
        {
          guint loop;
          if (e == same && e < stack_len && u->path[e] > stack[e].iteration)
            loop = stack[e].loop;   /* the same loop's next iteration */
          else
            {
              loop = loop_size->len;
              g_array_set_size (loop_size, loop + 1);
            }
          g_array_index (loop_size, guint, loop)++;
          CrGroupDraft *it = cr_group_draft_new (CR_GRAPH_GROUP_ITERATION);
          g_ptr_array_add (made, it);
          it->iteration = u->path[e];
          /* In a call, its children keep their order (when each call
           * began) and its iterations come first, in the walk's order
           * (the sort is stable). */
          it->order = container ? container->order : u->time;
          it->loop = (int) loop;
          it->loop_depth = e + 1;
          memcpy (it->loop_path, u->path, (e + 1) * sizeof (guint));
          add_child (e > 0 ? stack[e - 1].draft : container, container, new_top, it, parents);
          stack[e] = (Level) { loop, u->path[e], it };
        }
      stack_len = u->depth;
      CrGroupDraft *home = u->depth > 0 ? stack[u->depth - 1].draft : container;
      if (u->draft)
        {
          if (!container)
            u->draft->order = u->time;
          add_child (home, container, new_top, u->draft, parents);
        }
      else if (home)
        {
          g_array_append_val (home->nodes, u->node);
          node_draft[u->node] = home;
        }
    }
  /* In a call, a loop whose every iteration is one call and nothing else
   * (an MLP's loop over its layers) would only add a level: it goes as a
   * loop of one iteration does. */
  if (container && loop_size->len > 0)
    {
      g_autofree gboolean *plain = g_new (gboolean, loop_size->len);
      for (guint l = 0; l < loop_size->len; l++)
        plain[l] = TRUE;
      for (guint i = 0; i < made->len; i++)
        {
          const CrGroupDraft *it = g_ptr_array_index (made, i);
          gboolean one_call = it->nodes->len == 0 && it->children->len == 1
                              && ((CrGroupDraft *) g_ptr_array_index (it->children, 0))->kind
                                   != CR_GRAPH_GROUP_ITERATION;
          plain[it->loop] = plain[it->loop] && one_call;
        }
      for (guint i = 0; i < made->len; i++)
        {
          const CrGroupDraft *it = g_ptr_array_index (made, i);
          if (plain[it->loop])
            g_array_index (loop_size, guint, it->loop) = 1;
        }
    }
  dissolve_single (new_top, container, (const guint *) loop_size->data, node_draft, parents);

  /* Every child is in the new tree now. */
  g_ptr_array_set_free_func (*top, NULL);
  g_ptr_array_unref (*top);
  *top = new_top;
}

void
cr_group_drafts_nest_loops (CrGraphModel                 *model,
                            const CrGraphGroupsNodeFacts *facts,
                            GPtrArray                    *calls,
                            GPtrArray                   **top,
                            CrGroupDraft                **node_draft,
                            GHashTable                   *parents)
{
  nest_loops_in (model, facts, calls, NULL, 0, top, node_draft, parents);
}

/* Each call's own ops and calls, by iteration of the loops in its
 * forward, then the same inside each of its children. */
static void
nest_loops_below (CrGraphModel                 *model,
                  const CrGraphGroupsNodeFacts *facts,
                  GPtrArray                    *calls,
                  GPtrArray                    *children,
                  CrGroupDraft                **node_draft,
                  GHashTable                   *parents)
{
  for (guint i = 0; i < children->len; i++)
    {
      CrGroupDraft *d = g_ptr_array_index (children, i);
      if (d->kind == CR_GRAPH_GROUP_MODULE || d->kind == CR_GRAPH_GROUP_CALL)
        {
          const CrRecordModuleCall *call = calls && d->call >= 0 && (guint) d->call < calls->len
                                           ? g_ptr_array_index (calls, d->call) : NULL;
          guint base = call ? MIN (call->loop_depth, CR_RECORD_MAX_LOOP_PATH) : 0;
          nest_loops_in (model, facts, calls, d, base, &d->children, node_draft, parents);
        }
      nest_loops_below (model, facts, calls, d->children, node_draft, parents);
    }
}

void
cr_group_drafts_nest_call_loops (CrGraphModel                 *model,
                                 const CrGraphGroupsNodeFacts *facts,
                                 GPtrArray                    *calls,
                                 GPtrArray                    *top,
                                 CrGroupDraft                **node_draft,
                                 GHashTable                   *parents)
{
  nest_loops_below (model, facts, calls, top, node_draft, parents);
}
