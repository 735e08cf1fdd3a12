/* cr-graph-groups.c — module calls as groups over a graph model, "× N"
 * folds of equal siblings, and the collapse of a model into a smaller one.
 *
 * The tree is built in two passes: first a draft tree (a draft per module
 * call that holds an op of the model, per loop iteration of the ops and
 * calls outside any call (cr-graph-groups-loops.c), folds inserted where
 * equal siblings follow each other), then the final groups numbered in
 * preorder, so that parents come before children and a level is the
 * parent's plus one. */
#include "cr-graph-groups-private.h"

#include "cr-graph-model-private.h"
#include "cr-run-record.h"

#include <string.h>

/* ---- the draft tree ----------------------------------------------------------- */

typedef CrGroupDraft Draft;

/* The longest repeating sequence of sibling groups folded as one
 * ("A, B × 10"): longer ones would read as lists, not as a pattern. */
#define FOLD_MAX_PERIOD 4

CrGroupDraft *
cr_group_draft_new (CrGraphGroupKind kind)
{
  Draft *d = g_new0 (Draft, 1);
  d->kind = kind;
  d->call = -1;
  d->id = -1;
  d->loop = -1;
  d->children = g_ptr_array_new_with_free_func (cr_group_draft_free);
  d->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  return d;
}

void
cr_group_draft_free (gpointer data)
{
  Draft *d = data;
  if (!d)   /* a place emptied by a fold */
    return;
  g_ptr_array_unref (d->children);
  g_array_unref (d->nodes);
  g_free (d->signature);
  g_free (d);
}

static int
compare_drafts (gconstpointer a,
                gconstpointer b)
{
  const Draft *x = *(Draft *const *) a, *y = *(Draft *const *) b;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static const CrRecordModuleCall *
call_at (GPtrArray *calls,
         int        call)
{
  return calls && call >= 0 && (guint) call < calls->len ? g_ptr_array_index (calls, call) : NULL;
}

/* Two calls are the same block when their class and their inside are:
 * the class, the op titles in it (as a sorted list) and the children's
 * signatures in order. */
static const char *
draft_signature (Draft        *d,
                 CrGraphModel *model,
                 GPtrArray    *calls)
{
  if (d->signature)
    return d->signature;
  GString *s = g_string_new (NULL);
  const CrRecordModuleCall *c = call_at (calls, d->call);
  g_string_append_printf (s, "%d:%s[", d->kind, c && c->class_name ? c->class_name : "");
  GPtrArray *titles = g_ptr_array_new ();
  for (guint i = 0; i < d->nodes->len; i++)
    {
      const CrGraphNode *n = g_ptr_array_index (model->nodes, g_array_index (d->nodes, guint, i));
      if (n->kind == CR_GRAPH_NODE_OP)
        g_ptr_array_add (titles, n->title);
    }
  g_ptr_array_sort (titles, compare_strings);
  for (guint i = 0; i < titles->len; i++)
    g_string_append_printf (s, "%s,", (const char *) g_ptr_array_index (titles, i));
  g_ptr_array_unref (titles);
  g_string_append_c (s, '(');
  for (guint i = 0; i < d->children->len; i++)
    g_string_append_printf (s, "%s;", draft_signature (g_ptr_array_index (d->children, i), model, calls));
  g_string_append (s, ")]");
  if (d->kind == CR_GRAPH_GROUP_REPEAT)
    g_string_append_printf (s, "×%u/%u", d->children->len, d->period);
  d->signature = g_string_free (s, FALSE);
  return d->signature;
}

/* How many times the sequence of period siblings at i repeats right after
 * itself before limit (1: not at all). */
static guint
repeats_at (GPtrArray    *children,
            guint         i,
            guint         limit,
            guint         period,
            CrGraphModel *model,
            GPtrArray    *calls)
{
  guint r = 1;
  while (i + (r + 1) * period <= limit)
    {
      for (guint k = 0; k < period; k++)
        if (strcmp (draft_signature (g_ptr_array_index (children, i + k), model, calls),
                    draft_signature (g_ptr_array_index (children, i + r * period + k), model, calls)) != 0)
          return r;
      r++;
    }
  return r;
}

/* Runs of two or more equal consecutive siblings become a REPEAT draft
 * holding them; children first, so that a block of equal blocks folds too.
 * Where no single block repeats, a short sequence of them that does
 * ("A, B, A, B, ...") folds the same way, so that a long chain of
 * alternating layers shows as one node. */
static void
fold_children (GPtrArray    *children,   /* of Draft*, owning */
               CrGraphModel *model,
               GPtrArray    *calls)
{
  for (guint i = 0; i < children->len; i++)
    fold_children (((Draft *) g_ptr_array_index (children, i))->children, model, calls);

  guint i = 0;
  while (i < children->len)
    {
      Draft *first = g_ptr_array_index (children, i);
      const char *sig = draft_signature (first, model, calls);
      /* Iterations of two loops never fold together, however alike. */
      guint limit = i + 1;
      while (limit < children->len && ((Draft *) g_ptr_array_index (children, limit))->loop == first->loop)
        limit++;
      guint j = i + 1;
      while (j < limit
             && strcmp (draft_signature (g_ptr_array_index (children, j), model, calls), sig) == 0)
        j++;
      guint period = 1;
      for (guint p = 2; j - i < 2 && p <= FOLD_MAX_PERIOD; p++)
        {
          guint r = repeats_at (children, i, limit, p, model, calls);
          if (r >= 2)
            {
              period = p;
              j = i + r * p;
            }
        }
      if (j - i >= 2)
        {
          Draft *fold = cr_group_draft_new (CR_GRAPH_GROUP_REPEAT);
          fold->period = period;
          fold->order = first->order;
          fold->iteration = first->iteration;
          fold->loop = first->loop;
          /* Steal the run out of children into the fold, in order. */
          for (guint k = i; k < j; k++)
            {
              g_ptr_array_add (fold->children, g_ptr_array_index (children, k));
              children->pdata[k] = NULL;
            }
          g_ptr_array_remove_range (children, i + 1, j - i - 1);
          children->pdata[i] = fold;
        }
      i++;
    }
}

/* ---- naming --------------------------------------------------------------------- */

/* "layers.0" -> prefix "layers.", number 0; FALSE without a final number. */
static gboolean
split_index (const char *path,
             GString    *prefix,
             guint64    *number)
{
  if (!path)
    return FALSE;
  const char *dot = strrchr (path, '.');
  const char *digits = dot ? dot + 1 : path;
  if (!*digits || strspn (digits, "0123456789") != strlen (digits))
    return FALSE;
  g_string_assign (prefix, "");
  g_string_append_len (prefix, path, digits - path);
  *number = g_ascii_strtoull (digits, NULL, 10);
  return TRUE;
}

/* A fold's path: "layers.0–3" when its members are layers.0 ... layers.3,
 * else the first member's path. */
static char *
fold_path (GPtrArray *members)   /* of CrGraphGroup* */
{
  const CrGraphGroup *first = g_ptr_array_index (members, 0);
  const CrGraphGroup *last = g_ptr_array_index (members, members->len - 1);
  g_autoptr (GString) p1 = g_string_new (NULL);
  g_autoptr (GString) p2 = g_string_new (NULL);
  guint64 n1, n2;
  if (split_index (first->path, p1, &n1) && split_index (last->path, p2, &n2)
      && g_string_equal (p1, p2) && n2 == n1 + members->len - 1)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT, p1->str, n1, n2);
  return g_strdup (first->path);
}

/* An iteration's path as its labels write it: "3", "2,3" (inner iteration 3
 * of outer iteration 2). */
static char *
loop_path_text (const CrGraphGroup *g)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < g->loop_depth; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", g->loop_path[i]);
  return g_string_free (s, FALSE);
}

/* The iterations first to last: "1–3"; nested, "2,1 – 2,3". */
static char *
iteration_range_text (const CrGraphGroup *first,
                      const CrGraphGroup *last)
{
  g_autofree char *a = loop_path_text (first);
  g_autofree char *b = loop_path_text (last);
  return g_strdup_printf (first->loop_depth > 1 ? "%s – %s" : "%s–%s", a, b);
}

static char *
unique_key (GHashTable *keys,
            const char *base)
{
  char *key = g_strdup (base);
  for (guint k = 2; g_hash_table_contains (keys, key); k++)
    {
      g_free (key);
      key = g_strdup_printf ("%s#%u", base, k);
    }
  g_hash_table_add (keys, key);
  return key;
}

/* ---- the final groups ---------------------------------------------------------- */

static void
group_free (gpointer data)
{
  CrGraphGroup *g = data;
  g_free (g->path);
  g_free (g->class_name);
  g_free (g->title);
  g_free (g->key);
  g_array_unref (g->children);
  g_array_unref (g->nodes);
  g_free (g);
}

typedef struct {
  CrGraphGroups *self;
  GPtrArray     *calls;
  GHashTable    *keys;            /* char* (owned by the groups) */
} Finisher;

/* The line of the loop an iteration group is an iteration of, from what
 * ran right in it (its ops, then its child groups): the loop statement
 * around that code, as many loops out as the code ran deeper than the
 * group. 0 when nothing in it tells. */
static guint
iteration_loop_line (const Finisher     *f,
                     const CrGraphGroup *g)
{
  const CrRunRecord *record = f->self->model->record;
  if (!record || !record->source)
    return 0;
  for (guint i = 0; i < g->nodes->len; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (f->self->model->nodes,
                                                   g_array_index (g->nodes, guint, i));
      if (node->kind != CR_GRAPH_NODE_OP || node->op < 0 || (guint) node->op >= record->ops->len
          || node->span.line <= 0)
        continue;
      const CrRecordOp *op = g_ptr_array_index (record->ops, node->op);
      guint line = op->loop_depth >= g->loop_depth
                   ? cr_graph_groups_loop_line (record->source, (guint) node->span.line,
                                                op->loop_depth - g->loop_depth)
                   : 0;
      if (line)
        return line;
    }
  for (guint i = 0; i < g->children->len; i++)
    {
      const CrGraphGroup *c = g_ptr_array_index (f->self->groups, g_array_index (g->children, guint, i));
      const CrGraphGroup *it = c->kind == CR_GRAPH_GROUP_REPEAT
                               ? g_ptr_array_index (f->self->groups, g_array_index (c->children, guint, 0))
                               : c;
      guint line = 0;
      if (it->kind == CR_GRAPH_GROUP_ITERATION && it->loop_line && it->loop_depth > g->loop_depth)
        line = cr_graph_groups_loop_line (record->source, it->loop_line,
                                          it->loop_depth - g->loop_depth - 1);
      else if (c->module_call >= 0 && f->calls && (guint) c->module_call < f->calls->len
               && c->span.line > 0)
        {
          const CrRecordModuleCall *call = g_ptr_array_index (f->calls, c->module_call);
          if (call->loop_depth >= g->loop_depth)
            line = cr_graph_groups_loop_line (record->source, (guint) c->span.line,
                                              call->loop_depth - g->loop_depth);
        }
      if (line)
        return line;
    }
  return 0;
}

/* The loop depth of an iteration group, or of a fold of them; else 0. */
static guint
iteration_depth (const CrGraphGroups *self,
                 const CrGraphGroup  *g)
{
  if (g->kind == CR_GRAPH_GROUP_REPEAT && g->children->len > 0)
    g = g_ptr_array_index (self->groups, g_array_index (g->children, guint, 0));
  return g->kind == CR_GRAPH_GROUP_ITERATION ? g->loop_depth : 0;
}

/* Iterations of two loops at one depth would read alike ("iteration 1"):
 * where the graph holds two, the titles name the loop's line. */
static void
name_loop_lines (CrGraphGroups *self)
{
  g_autoptr (GHashTable) line_at = g_hash_table_new (NULL, NULL);   /* depth -> line, or
                                                                     * G_MAXUINT: several */
  for (guint i = 0; i < self->groups->len; i++)
    {
      const CrGraphGroup *g = g_ptr_array_index (self->groups, i);
      guint depth = iteration_depth (self, g);
      if (depth == 0 || g->loop_line == 0)
        continue;
      gpointer seen = g_hash_table_lookup (line_at, GUINT_TO_POINTER (depth));
      if (!seen)
        g_hash_table_insert (line_at, GUINT_TO_POINTER (depth), GUINT_TO_POINTER (g->loop_line));
      else if (GPOINTER_TO_UINT (seen) != g->loop_line)
        g_hash_table_insert (line_at, GUINT_TO_POINTER (depth), GUINT_TO_POINTER (G_MAXUINT));
    }
  for (guint i = 0; i < self->groups->len; i++)
    {
      CrGraphGroup *g = g_ptr_array_index (self->groups, i);
      guint depth = iteration_depth (self, g);
      if (depth == 0 || g->loop_line == 0
          || GPOINTER_TO_UINT (g_hash_table_lookup (line_at, GUINT_TO_POINTER (depth))) != G_MAXUINT)
        continue;
      /* A notebook's loop by its cell: "cell 3, line 2 · iteration 1". */
      g_autofree char *where = cr_run_record_line_text (self->model ? self->model->record : NULL,
                                                        (int) g->loop_line, FALSE);
      char *title = g_strdup_printf ("%s · %s", where, g->title);
      g_free (g->title);
      g->title = title;
    }
}

static guint
finish_draft (Finisher *f,
              Draft    *d,
              int       parent,
              guint     level)
{
  CrGraphGroups *self = f->self;
  CrGraphGroup *g = g_new0 (CrGraphGroup, 1);
  g->id = self->groups->len;
  g->kind = d->kind;
  g->parent = parent;
  g->level = level;
  g->module_call = -1;
  g->iteration = d->iteration;
  g->repeat = 1;
  g->children = g_array_new (FALSE, FALSE, sizeof (guint));
  g->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_ptr_array_add (self->groups, g);
  d->id = (int) g->id;
  self->height = MAX (self->height, level + 1);

  g_array_append_vals (g->nodes, d->nodes->data, d->nodes->len);
  for (guint i = 0; i < d->nodes->len; i++)
    {
      guint n = g_array_index (d->nodes, guint, i);
      self->node_group[n] = (int) g->id;
      if (((CrGraphNode *) g_ptr_array_index (self->model->nodes, n))->kind == CR_GRAPH_NODE_OP)
        g->n_ops++;
    }

  GPtrArray *members = g_ptr_array_new ();
  for (guint i = 0; i < d->children->len; i++)
    {
      guint child = finish_draft (f, g_ptr_array_index (d->children, i), (int) g->id, level + 1);
      g_array_append_val (g->children, child);
      CrGraphGroup *c = g_ptr_array_index (self->groups, child);
      g->n_ops += c->n_ops;
      g_ptr_array_add (members, c);
    }

  const CrRecordModuleCall *call = call_at (f->calls, d->call);
  g_autofree char *key_base = NULL;
  switch (d->kind)
    {
    case CR_GRAPH_GROUP_MODULE:
    case CR_GRAPH_GROUP_CALL:
      g->module_call = d->call;
      g->path = g_strdup (call && call->path ? call->path : "");
      g->class_name = g_strdup (call && call->class_name ? call->class_name : "?");
      if (call)
        g->span = call->span;
      g->title = *g->path ? g_strdup_printf ("%s · %s", g->path, g->class_name)
                          : g_strdup (g->class_name);
      key_base = g_strdup_printf ("call:%s:%s", g->path, g->class_name);
      break;
    case CR_GRAPH_GROUP_ITERATION:
      {
        g->loop_depth = MIN (d->loop_depth, CR_RECORD_MAX_LOOP_PATH);
        memcpy (g->loop_path, d->loop_path, sizeof g->loop_path);
        if (g->loop_depth == 0)
          {
            g->loop_depth = 1;
            g->loop_path[0] = d->iteration;
          }
        g_autofree char *path = loop_path_text (g);
        g->title = g_strdup_printf ("iteration %s", path);
        g->loop_line = iteration_loop_line (f, g);
        key_base = g_strdup_printf ("iteration:%s", path);
        break;
      }
    case CR_GRAPH_GROUP_REPEAT:
      {
        const CrGraphGroup *first = g_ptr_array_index (members, 0);
        guint period = MAX (d->period, 1);
        g->repeat = members->len / period;
        g->path = fold_path (members);
        g->class_name = g_strdup (first->class_name);
        if (period > 1 && first->class_name)
          {
            /* One repeat's classes: "A, B". */
            GString *classes = g_string_new (NULL);
            for (guint k = 0; k < period; k++)
              {
                const CrGraphGroup *m = g_ptr_array_index (members, k);
                g_string_append_printf (classes, "%s%s", k ? ", " : "",
                                        m->class_name ? m->class_name : m->title);
              }
            g_free (g->class_name);
            g->class_name = g_string_free (classes, FALSE);
          }
        g->span = first->span;
        g->loop_line = first->loop_line;
        const CrGraphGroup *last = g_ptr_array_index (members, members->len - 1);
        g_autofree char *iterations = first->kind == CR_GRAPH_GROUP_ITERATION
                                      ? iteration_range_text (first, last) : NULL;
        if (first->kind == CR_GRAPH_GROUP_ITERATION && period > 1)
          g->title = g_strdup_printf ("iterations %s, %u at a time × %u", iterations, period,
                                      g->repeat);
        else if (first->kind == CR_GRAPH_GROUP_ITERATION)
          /* A loop body that makes the same ops each time. */
          g->title = g_strdup_printf ("iterations %s × %u", iterations, g->repeat);
        else
          g->title = first->class_name
                     ? g_strdup_printf ("%s%s%s × %u", g->path && *g->path ? g->path : "",
                                        g->path && *g->path ? " · " : "", g->class_name, g->repeat)
                     : g_strdup_printf ("%s × %u", first->title, g->repeat);
        key_base = g_strdup_printf ("repeat:%s", first->key);
        break;
      }
    }
  g_ptr_array_unref (members);
  /* A key names the group within its parent's, so that equal paths in two
   * calls of one module stay apart. */
  const CrGraphGroup *pg = parent >= 0 ? g_ptr_array_index (self->groups, parent) : NULL;
  g_autofree char *full = pg ? g_strdup_printf ("%s/%s", pg->key, key_base) : g_strdup (key_base);
  g->key = g_strdup (unique_key (f->keys, full));
  return g->id;
}

/* ---- building -------------------------------------------------------------------- */

/* The innermost draft holding both a and b (by the drafts' parents). */
static Draft *
common_ancestor (GHashTable *parents,   /* Draft* -> Draft* parent */
                 Draft      *a,
                 Draft      *b)
{
  if (!a || !b)
    return NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  for (Draft *x = a; x; x = g_hash_table_lookup (parents, x))
    g_hash_table_add (seen, x);
  for (Draft *y = b; y; y = g_hash_table_lookup (parents, y))
    if (g_hash_table_contains (seen, y))
      return y;
  return NULL;
}

static void
index_parents (GHashTable *parents,
               GPtrArray  *drafts,
               Draft      *parent)
{
  for (guint i = 0; i < drafts->len; i++)
    {
      Draft *d = g_ptr_array_index (drafts, i);
      if (parent)
        g_hash_table_insert (parents, d, parent);
      index_parents (parents, d->children, d);
    }
}

static void
sort_drafts (GPtrArray *drafts)
{
  g_ptr_array_sort (drafts, compare_drafts);
  for (guint i = 0; i < drafts->len; i++)
    sort_drafts (((Draft *) g_ptr_array_index (drafts, i))->children);
}

CrGraphGroups *
cr_graph_groups_new_with_facts (CrGraphModel                 *model,
                                const CrGraphGroupsNodeFacts *facts,
                                GPtrArray                    *calls)
{
  g_return_val_if_fail (model != NULL, NULL);

  guint n_nodes = model->nodes->len;
  guint n_calls = calls ? calls->len : 0;
  CrGraphGroups *self = g_new0 (CrGraphGroups, 1);
  self->model = cr_graph_model_ref (model);
  self->groups = g_ptr_array_new_with_free_func (group_free);
  self->top = g_array_new (FALSE, FALSE, sizeof (guint));
  self->node_group = g_new (int, MAX (n_nodes, 1));
  for (guint i = 0; i < n_nodes; i++)
    self->node_group[i] = -1;
  if (!facts)
    return self;

  /* A draft per call that holds an op here, and per call around those. */
  Draft **of_call = g_new0 (Draft *, MAX (n_calls, 1));
  GPtrArray *top = g_ptr_array_new_with_free_func (cr_group_draft_free);
  g_autoptr (GHashTable) parents = g_hash_table_new (NULL, NULL);
  for (guint n = 0; n < n_nodes; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      int c = facts[n].module_call;
      if (node->kind != CR_GRAPH_NODE_OP || c < 0 || (guint) c >= n_calls)
        continue;
      Draft *child = NULL;
      for (int k = c; k >= 0 && (guint) k < n_calls; k = call_at (calls, k)->parent)
        {
          gboolean is_new = of_call[k] == NULL;
          if (is_new)
            {
              const CrRecordModuleCall *call = call_at (calls, k);
              /* A user class's call that is no module says so by its field. */
              of_call[k] = cr_group_draft_new (call->user_class ? CR_GRAPH_GROUP_CALL : CR_GRAPH_GROUP_MODULE);
              of_call[k]->call = k;
              of_call[k]->order = (guint) k;
              of_call[k]->iteration = call->iteration;
            }
          if (child)
            {
              g_ptr_array_add (of_call[k]->children, child);
              g_hash_table_insert (parents, child, of_call[k]);
            }
          child = of_call[k];
          if (!is_new)
            {
              child = NULL;
              break;
            }
          if (call_at (calls, k)->parent < 0)
            break;
        }
      if (child)
        g_ptr_array_add (top, child);
      g_array_append_val (of_call[c]->nodes, n);
    }

  Draft **node_draft = g_new0 (Draft *, MAX (n_nodes, 1));
  for (guint n = 0; n < n_nodes; n++)
    {
      int c = facts[n].module_call;
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      if (node->kind == CR_GRAPH_NODE_OP && c >= 0 && (guint) c < n_calls)
        node_draft[n] = of_call[c];
    }
  g_free (of_call);
  /* The top calls and the ops outside any call: by loop iteration. */
  cr_group_drafts_nest_loops (model, facts, calls, &top, node_draft, parents);
  cr_group_drafts_nest_call_loops (model, facts, calls, top, node_draft, parents);
  sort_drafts (top);
  fold_children (top, model, calls);
  /* The folds are parents now: a parameter that every repeat uses goes in
   * the fold, and shows inside it while it is closed. */
  g_hash_table_remove_all (parents);
  index_parents (parents, top, NULL);

  /* Parameters: the innermost draft holding every op that uses them. The
   * edges out of each node, once (CSR: out_edges[first[n] .. first[n + 1])). */
  g_autofree guint *first = g_new0 (guint, n_nodes + 2);
  g_autofree guint *out_edges = g_new (guint, MAX (model->edges->len, 1));
  for (guint e = 0; e < model->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
      if (edge->from < n_nodes && edge->to < n_nodes)
        first[edge->from + 2]++;
    }
  for (guint n = 0; n < n_nodes; n++)
    first[n + 2] += first[n + 1];
  for (guint e = 0; e < model->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
      if (edge->from < n_nodes && edge->to < n_nodes)
        out_edges[first[edge->from + 1]++] = e;
    }
  for (guint n = 0; n < n_nodes; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      if (!facts[n].follows_users || node->kind == CR_GRAPH_NODE_ACCUMULATE || node->kind == CR_GRAPH_NODE_OP)
        continue;
      /* A leaf's users are its AccumulateGrad's when the graph draws the
       * leaf feeding that (a backward call's graph), else its own. */
      guint sources[2] = { n, n };
      for (guint k = first[n]; k < first[n + 1]; k++)
        {
          const CrGraphEdge *edge = g_ptr_array_index (model->edges, out_edges[k]);
          if (((CrGraphNode *) g_ptr_array_index (model->nodes, edge->to))->kind == CR_GRAPH_NODE_ACCUMULATE)
            sources[1] = edge->to;
        }
      Draft *home = NULL;
      gboolean any = FALSE, outside = FALSE;
      for (guint s = 0; s < (sources[1] != n ? 2u : 1u) && !outside; s++)
        for (guint k = first[sources[s]]; k < first[sources[s] + 1] && !outside; k++)
          {
            const CrGraphEdge *edge = g_ptr_array_index (model->edges, out_edges[k]);
            const CrGraphNode *user = g_ptr_array_index (model->nodes, edge->to);
            if (user->kind == CR_GRAPH_NODE_ACCUMULATE)
              continue;
            Draft *d = node_draft[edge->to];
            if (!d)
              outside = TRUE;
            else
              home = any ? common_ancestor (parents, home, d) : d;
            any = TRUE;
            if (!home)
              outside = TRUE;
          }
      if (!outside && home)
        {
          node_draft[n] = home;
          g_array_append_val (home->nodes, n);
        }
    }
  /* An AccumulateGrad goes with the leaf it writes. */
  for (guint e = 0; e < model->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (model->edges, e);
      if (edge->from >= n_nodes || edge->to >= n_nodes)
        continue;
      const CrGraphNode *to = g_ptr_array_index (model->nodes, edge->to);
      Draft *d = node_draft[edge->from];
      if (to->kind == CR_GRAPH_NODE_ACCUMULATE && d && !node_draft[edge->to])
        {
          node_draft[edge->to] = d;
          g_array_append_val (d->nodes, edge->to);
        }
    }
  g_free (node_draft);

  Finisher f = { self, calls, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  for (guint i = 0; i < top->len; i++)
    {
      guint id = finish_draft (&f, g_ptr_array_index (top, i), -1, 0);
      g_array_append_val (self->top, id);
    }
  g_hash_table_unref (f.keys);
  g_ptr_array_unref (top);
  name_loop_lines (self);
  return self;
}

CrGraphGroups *
cr_graph_groups_new (CrGraphModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);

  const CrRunRecord *record = model->record;
  /* Without module calls, loop iterations may still group the ops. */
  if (!record)
    return cr_graph_groups_new_with_facts (model, NULL, NULL);

  guint n_nodes = model->nodes->len;
  g_autofree CrGraphGroupsNodeFacts *facts = g_new0 (CrGraphGroupsNodeFacts, MAX (n_nodes, 1));
  for (guint n = 0; n < n_nodes; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, n);
      facts[n].module_call = -1;
      if (node->kind == CR_GRAPH_NODE_OP && node->op >= 0 && (guint) node->op < record->ops->len)
        {
          const CrRecordOp *op = g_ptr_array_index (record->ops, node->op);
          facts[n].module_call = op->module_call;
          facts[n].iteration = op->iteration;
          facts[n].loop_depth = MIN (op->loop_depth, CR_RECORD_MAX_LOOP_PATH);
          memcpy (facts[n].loop_path, op->loop_path, sizeof facts[n].loop_path);
        }
      else if (node->tensor >= 0 && (guint) node->tensor < record->tensors->len)
        {
          const CrRecordTensor *t = g_ptr_array_index (record->tensors, node->tensor);
          facts[n].follows_users = t->module_path != NULL;
        }
    }
  return cr_graph_groups_new_with_facts (model, facts, record->module_calls);
}

void
cr_graph_groups_free (CrGraphGroups *self)
{
  if (!self)
    return;
  g_ptr_array_unref (self->groups);
  g_array_unref (self->top);
  g_free (self->node_group);
  cr_graph_model_unref (self->model);
  g_free (self);
}

const CrGraphGroup *
cr_graph_groups_get (const CrGraphGroups *self,
                     int                  group)
{
  if (!self || group < 0 || (guint) group >= self->groups->len)
    return NULL;
  return g_ptr_array_index (self->groups, group);
}

const CrGraphGroup *
cr_graph_groups_find_key (const CrGraphGroups *self,
                          const char          *key)
{
  for (guint i = 0; self && key && i < self->groups->len; i++)
    {
      const CrGraphGroup *g = g_ptr_array_index (self->groups, i);
      if (strcmp (g->key, key) == 0)
        return g;
    }
  return NULL;
}

gboolean
cr_graph_groups_contains (const CrGraphGroups *self,
                          guint                group,
                          guint                node)
{
  if (!self || node >= self->model->nodes->len)
    return FALSE;
  for (int g = self->node_group[node]; g >= 0; g = ((CrGraphGroup *) g_ptr_array_index (self->groups, g))->parent)
    if ((guint) g == group)
      return TRUE;
  return FALSE;
}

/* ---- which groups are open ---------------------------------------------------- */

gboolean *
cr_graph_groups_open_to_level (const CrGraphGroups *self,
                               guint                level)
{
  gboolean *open = g_new0 (gboolean, MAX (self->groups->len, 1));
  for (guint i = 0; i < self->groups->len; i++)
    open[i] = ((CrGraphGroup *) g_ptr_array_index (self->groups, i))->level < level;
  return open;
}

int
cr_graph_groups_closed_group_of (const CrGraphGroups *self,
                                 const gboolean      *open,
                                 guint                node)
{
  int closed = -1;
  if (node >= self->model->nodes->len)
    return -1;
  for (int g = self->node_group[node]; g >= 0; g = ((CrGraphGroup *) g_ptr_array_index (self->groups, g))->parent)
    if (!open || !open[g])
      closed = g;
  return closed;
}

gboolean
cr_graph_groups_node_visible (const CrGraphGroups *self,
                              const gboolean      *open,
                              guint                node)
{
  return cr_graph_groups_closed_group_of (self, open, node) < 0;
}

static guint
count_group (const CrGraphGroups *self,
             const gboolean      *open,
             guint                group)
{
  const CrGraphGroup *g = g_ptr_array_index (self->groups, group);
  if (!open || !open[group])
    return 1;
  guint n = g->nodes->len;
  for (guint i = 0; i < g->children->len; i++)
    n += count_group (self, open, g_array_index (g->children, guint, i));
  return n;
}

guint
cr_graph_groups_count_visible (const CrGraphGroups *self,
                               const gboolean      *open)
{
  guint n = 0;
  for (guint i = 0; i < self->model->nodes->len; i++)
    if (self->node_group[i] < 0)
      n++;
  for (guint i = 0; i < self->top->len; i++)
    n += count_group (self, open, g_array_index (self->top, guint, i));
  return n;
}

guint
cr_graph_groups_level_for (const CrGraphGroups *self,
                           guint                max_nodes)
{
  for (guint level = self->height; level > 0; level--)
    {
      g_autofree gboolean *open = cr_graph_groups_open_to_level (self, level);
      if (cr_graph_groups_count_visible (self, open) <= max_nodes)
        return level;
    }
  return 0;
}

gboolean *
cr_graph_groups_open_first_view (const CrGraphGroups *self,
                                 guint                max_nodes,
                                 guint               *level)
{
  for (guint l = self->height; ; l--)
    {
      gboolean *open = cr_graph_groups_open_to_level (self, l);
      for (guint i = 0; i < self->groups->len; i++)
        if (((CrGraphGroup *) g_ptr_array_index (self->groups, i))->kind == CR_GRAPH_GROUP_REPEAT)
          open[i] = FALSE;
      if (l == 0 || cr_graph_groups_count_visible (self, open) <= max_nodes)
        {
          if (level)
            *level = l;
          return open;
        }
      g_free (open);
    }
}

/* ---- the collapsed model ---------------------------------------------------------- */

static CrGraphNode *
copy_node (CrGraphModel      *into,
           const CrGraphNode *n)
{
  CrGraphNode *c = cr_graph_model_add_node (into, n->kind, n->title);
  c->symbol = g_strdup (n->symbol);
  c->caption = g_strdup (n->caption);
  c->shape = g_strdup (n->shape);
  c->preview = g_strdup (n->preview);
  c->span = n->span;
  c->step = n->step;
  c->key = g_strdup (n->key);
  c->device = g_strdup (n->device);
  c->freed = n->freed;
  c->op = n->op;
  c->tensor = n->tensor;

  return c;
}

/* By CrGraphGroupKind: what a group node's key says it stands for. */
static const char *const group_kind_names[] = { "module", "call", "iteration", "repeat" };
G_STATIC_ASSERT (G_N_ELEMENTS (group_kind_names) == CR_GRAPH_GROUP_REPEAT + 1);

static CrGraphNode *
group_node (CrGraphModel       *into,
            const CrGraphGroup *g)
{
  CrGraphNode *c = cr_graph_model_add_node (into, CR_GRAPH_NODE_GROUP, g->title);
  c->symbol = g_strdup ("+");
  c->caption = g_strdup_printf ("%u op%s", g->n_ops, g->n_ops == 1 ? "" : "s");
  c->span = g->span;
  c->key = g_strdup_printf ("group:%s:%s", group_kind_names[g->kind], g->key);
  return c;
}

CrGraphGroupKind
cr_graph_group_node_kind (const CrGraphNode *node)
{
  g_return_val_if_fail (node != NULL, CR_GRAPH_GROUP_MODULE);
  for (guint k = 0; node->key && g_str_has_prefix (node->key, "group:") && k < G_N_ELEMENTS (group_kind_names); k++)
    {
      const char *rest = node->key + strlen ("group:");
      size_t n = strlen (group_kind_names[k]);
      if (strncmp (rest, group_kind_names[k], n) == 0 && rest[n] == ':')
        return (CrGraphGroupKind) k;
    }
  return CR_GRAPH_GROUP_MODULE;
}

static void
cluster_free (gpointer data)
{
  CrGraphCluster *c = data;
  g_free (c->title);
  g_array_unref (c->nodes);
  g_free (c);
}

static void
box_free (gpointer data)
{
  CrGraphGroupBox *box = data;
  g_array_unref (box->nodes);
  g_free (box);
}

CrGraphCollapse *
cr_graph_collapse_new (const CrGraphGroups *groups,
                       const gboolean      *open)
{
  g_return_val_if_fail (groups != NULL, NULL);

  const CrGraphModel *full = groups->model;
  guint n_full = full->nodes->len;
  CrGraphCollapse *self = g_new0 (CrGraphCollapse, 1);
  CrGraphModel *m = cr_graph_model_new ();
  self->model = m;
  self->n_full_nodes = n_full;
  self->node_of = g_new (guint, MAX (n_full, 1));

  m->n_steps = full->n_steps;
  m->title = g_strdup (full->title);
  m->span = full->span;
  m->succeeded = full->succeeded;
  m->record = full->record ? cr_run_record_ref (full->record) : NULL;
  m->backward = full->backward;

  g_autofree guint *group_at = g_new (guint, MAX (groups->groups->len, 1));
  for (guint i = 0; i < groups->groups->len; i++)
    group_at[i] = G_MAXUINT;
  GArray *group_of = g_array_new (FALSE, FALSE, sizeof (int));
  GArray *full_node = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint n = 0; n < n_full; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (full->nodes, n);
      int closed = cr_graph_groups_closed_group_of (groups, open, n);
      if (closed < 0)
        {
          self->node_of[n] = copy_node (m, node)->id;
          g_array_append_val (group_of, closed);
          guint from = n;
          g_array_append_val (full_node, from);
          continue;
        }
      if (group_at[closed] == G_MAXUINT)
        {
          group_at[closed] = group_node (m, g_ptr_array_index (groups->groups, closed))->id;
          g_array_append_val (group_of, closed);
          guint none = G_MAXUINT;
          g_array_append_val (full_node, none);
        }
      self->node_of[n] = group_at[closed];
      /* A closed group is at the step of the first node in it that ran. */
      CrGraphNode *gn = g_ptr_array_index (m->nodes, group_at[closed]);
      if (node->step >= 0 && (gn->step < 0 || node->step < gn->step))
        gn->step = node->step;
    }
  self->group_of = (int *) g_array_free (group_of, FALSE);
  /* The record's items find their node here too (a hidden op: its group). */
  for (guint n = 0; n < n_full; n++)
    cr_graph_model_index_node (m, g_ptr_array_index (full->nodes, n), self->node_of[n]);
  self->n_steps = full->n_steps;
  self->step_node = g_new (guint, MAX (self->n_steps, 1));
  for (guint k = 0; k < self->n_steps; k++)
    self->step_node[k] = G_MAXUINT;
  for (guint n = 0; n < n_full; n++)
    {
      const CrGraphNode *node = g_ptr_array_index (full->nodes, n);
      if (node->step >= 0 && (guint) node->step < self->n_steps)
        self->step_node[node->step] = self->node_of[n];
    }
  self->full_node = (guint *) g_array_free (full_node, FALSE);

  /* A box per open group with a node shown in it; preorder ids put outer
   * boxes first. */
  self->groups = (CrGraphGroups *) groups;
  self->boxes = g_ptr_array_new_with_free_func (box_free);
  g_autofree int *box_of = g_new (int, MAX (groups->groups->len, 1));
  for (guint i = 0; i < groups->groups->len; i++)
    {
      const CrGraphGroup *g = g_ptr_array_index (groups->groups, i);
      box_of[i] = -1;
      gboolean shown = open && open[i];
      for (int p = g->parent; shown && p >= 0; p = ((CrGraphGroup *) g_ptr_array_index (groups->groups, p))->parent)
        shown = open[p];
      if (!shown)
        continue;
      CrGraphGroupBox *box = g_new0 (CrGraphGroupBox, 1);
      box->group = (int) i;
      box->level = g->level;
      box->title = g->title;
      box->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      box_of[i] = (int) self->boxes->len;
      g_ptr_array_add (self->boxes, box);
    }
  for (guint n = 0; n < m->nodes->len; n++)
    {
      /* The innermost group holding what node n shows, then outwards. */
      int g = self->group_of[n] >= 0
              ? ((CrGraphGroup *) g_ptr_array_index (groups->groups, self->group_of[n]))->parent
              : groups->node_group[self->full_node[n]];
      guint depth_below = 0;
      for (; g >= 0; g = ((CrGraphGroup *) g_ptr_array_index (groups->groups, g))->parent)
        {
          if (box_of[g] < 0)
            continue;
          CrGraphGroupBox *box = g_ptr_array_index (self->boxes, box_of[g]);
          g_array_append_val (box->nodes, n);
          box->inner = MAX (box->inner, depth_below);
          depth_below++;
        }
    }
  for (guint i = self->boxes->len; i > 0; i--)
    if (((CrGraphGroupBox *) g_ptr_array_index (self->boxes, i - 1))->nodes->len == 0)
      g_ptr_array_remove_index (self->boxes, i - 1);

  /* The same boxes as the model's clusters, for the layout to keep their
   * nodes together: each with the nodes directly in it. */
  if (self->boxes->len > 0)
    {
      for (guint i = 0; i < groups->groups->len; i++)
        box_of[i] = -1;
      for (guint i = 0; i < self->boxes->len; i++)
        box_of[((CrGraphGroupBox *) g_ptr_array_index (self->boxes, i))->group] = (int) i;
      m->clusters = g_ptr_array_new_with_free_func (cluster_free);
      for (guint i = 0; i < self->boxes->len; i++)
        {
          const CrGraphGroupBox *box = g_ptr_array_index (self->boxes, i);
          CrGraphCluster *c = g_new0 (CrGraphCluster, 1);
          c->parent = -1;
          for (int p = ((CrGraphGroup *) g_ptr_array_index (groups->groups, box->group))->parent;
               p >= 0 && c->parent < 0;
               p = ((CrGraphGroup *) g_ptr_array_index (groups->groups, p))->parent)
            c->parent = box_of[p];
          c->title = g_strdup (box->title);
          c->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (m->clusters, c);
        }
      for (guint n = 0; n < m->nodes->len; n++)
        {
          int g = self->group_of[n] >= 0
                  ? ((CrGraphGroup *) g_ptr_array_index (groups->groups, self->group_of[n]))->parent
                  : groups->node_group[self->full_node[n]];
          for (; g >= 0; g = ((CrGraphGroup *) g_ptr_array_index (groups->groups, g))->parent)
            if (box_of[g] >= 0)
              {
                g_array_append_val (((CrGraphCluster *) g_ptr_array_index (m->clusters, box_of[g]))->nodes, n);
                break;
              }
        }
    }

  /* Edges between what is shown, once per pair; those inside a closed
   * group go. */
  g_autoptr (GHashTable) pairs = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (gint64), full->edges->len);
  for (guint e = 0; e < full->edges->len; e++)
    {
      const CrGraphEdge *edge = g_ptr_array_index (full->edges, e);
      if (edge->from >= n_full || edge->to >= n_full)
        continue;
      guint a = self->node_of[edge->from], b = self->node_of[edge->to];
      if (a == b)
        continue;
      gint64 pair = ((gint64) a << 32) | b;
      g_array_append_val (keys, pair);
      gint64 *key = &g_array_index (keys, gint64, keys->len - 1);
      if (g_hash_table_contains (pairs, key))
        continue;
      g_hash_table_add (pairs, key);
      CrGraphEdge *c = cr_graph_model_add_edge (m, a, b, g_strdup (edge->label));
      c->tensor_name = g_strdup (edge->tensor_name);
      c->stops_gradient = edge->stops_gradient;
      c->tensor = edge->tensor;
      c->input = self->group_of[b] < 0 ? edge->input : -1;
    }
  return self;
}

void
cr_graph_collapse_free (CrGraphCollapse *self)
{
  if (!self)
    return;
  cr_graph_model_unref (self->model);
  g_free (self->node_of);
  g_free (self->group_of);
  g_free (self->full_node);
  g_free (self->step_node);
  if (self->boxes)
    g_ptr_array_unref (self->boxes);
  g_free (self);
}

/* Steps shown on one node one after the other form a run; stepping goes
 * from the end of a run to the end of the next. */
static int
run_start (const CrGraphCollapse *self,
           int                    step)
{
  guint here = self->step_node[step];
  while (step > 0 && here != G_MAXUINT && self->step_node[step - 1] == here)
    step--;
  return step;
}

static int
run_end (const CrGraphCollapse *self,
         int                    step)
{
  guint here = self->step_node[step];
  while ((guint) step + 1 < self->n_steps && here != G_MAXUINT && self->step_node[step + 1] == here)
    step++;
  return step;
}

int
cr_graph_collapse_next_step (const CrGraphCollapse *self,
                             int                    step,
                             int                    direction)
{
  g_return_val_if_fail (self != NULL, -1);

  int n_steps = (int) self->n_steps;
  if (direction >= 0)
    return step + 1 >= n_steps ? n_steps : run_end (self, MAX (step + 1, 0));
  if (step <= 0)
    return -1;
  int before = run_start (self, MIN (step, n_steps - 1)) - 1;
  return before < 0 ? -1 : run_end (self, before);
}

int
cr_graph_collapse_shown_step (const CrGraphCollapse *self,
                              int                    step)
{
  if (!self || step < 0 || (guint) step >= self->n_steps)
    return step;
  guint node = self->step_node[step];
  if (node == G_MAXUINT || self->group_of[node] < 0)
    return step;
  return ((const CrGraphNode *) g_ptr_array_index (self->model->nodes, node))->step;
}
