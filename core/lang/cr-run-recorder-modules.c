/* cr-run-recorder-modules.c — nn.Module calls, user-class calls and
 * parameter paths in the run record (see cr-run-recorder-modules.h).
 *
 * Paths come from the outermost object called, as named_modules() gives
 * them: when a call starts with no call running, the objects reachable from
 * it are walked once (a module's _modules, _parameters and _buffers; a user
 * object's attributes, lists, tuples and dicts) into a map object -> path;
 * calls inside look their object up there. A call of a submodule the script
 * makes itself (model.fc1(x)) keeps the path it had in the last walk. */
#include "cr-run-recorder-modules.h"

#include "cr-grad-mode.h"
#include "cr-interp-private.h"
#include "cr-run-recorder.h"
#include "cr-tensor.h"
#include "cr-torch-state.h"

#include <string.h>

/* Past these, a hostile script's calls and objects are not recorded. */
#define MAX_CALLS      200000
#define MAX_WALKED     100000
#define MAX_WALK_DEPTH 24

typedef struct {
  int     call;        /* index in record->module_calls */
  guint64 seq_begin;   /* the node sequence numbers it made: [begin, end) */
  guint64 seq_end;     /* G_MAXUINT64 while running */
} CallRange;

struct _CrModuleRecorder {
  CrRunRecord *record;       /* borrowed: the record of the run these describe */
  GArray      *ranges;       /* of CallRange, by call id (calls start in id order) */
  GArray      *stack;        /* of int: the calls running, innermost last */
  GHashTable  *paths;        /* CrValue* instance (a ref) -> char* path */
  GHashTable  *tensor_paths; /* CrTensor* (a ref) -> char* path */
};

static void
value_unref (gpointer v)
{
  cr_value_unref (v);
}

static void
tensor_unref (gpointer t)
{
  cr_tensor_unref (t);
}

void
cr_module_recorder_free (CrModuleRecorder *recorder)
{
  if (!recorder)
    return;
  g_array_unref (recorder->ranges);
  g_array_unref (recorder->stack);
  g_hash_table_unref (recorder->paths);
  g_hash_table_unref (recorder->tensor_paths);
  g_free (recorder);
}

/* The recorder of the record being filled now, made on first use and made
 * afresh for each run's record; NULL when nothing is recorded. */
static CrModuleRecorder *
recorder_get (CrInterp *self)
{
  CrRunRecord *record = cr_run_recorder_get (self);
  if (!record)
    return NULL;
  CrTorchState *state = cr_torch_state (self);
  if (state->modules && state->modules->record == record)
    return state->modules;
  cr_module_recorder_free (state->modules);
  CrModuleRecorder *r = g_new0 (CrModuleRecorder, 1);
  r->record = record;
  r->ranges = g_array_new (FALSE, FALSE, sizeof (CallRange));
  r->stack = g_array_new (FALSE, FALSE, sizeof (int));
  r->paths = g_hash_table_new_full (g_direct_hash, g_direct_equal, value_unref, g_free);
  r->tensor_paths = g_hash_table_new_full (g_direct_hash, g_direct_equal, tensor_unref, g_free);
  state->modules = r;
  return r;
}

/* ---- classes ------------------------------------------------------------------ */

static const char *
class_module (CrValue *cls)
{
  CrValue *m = g_hash_table_lookup (cls->u.cls.attrs, "__module__");
  return m && m->kind == CR_VALUE_STR ? m->u.str.data : NULL;
}

static gboolean
is_module (CrValue *v)
{
  if (v->kind != CR_VALUE_INSTANCE)
    return FALSE;
  for (CrValue *c = v->u.instance.cls; c && c->kind == CR_VALUE_CLASS; c = c->u.cls.base)
    if (strcmp (c->u.cls.name, "Module") == 0
        && g_strcmp0 (class_module (c), "torch.nn.modules.module") == 0)
      return TRUE;
  return FALSE;
}

/* A class the script defined (not the prelude's). */
static gboolean
is_user_object (CrValue *v)
{
  return v->kind == CR_VALUE_INSTANCE
         && g_strcmp0 (class_module (v->u.instance.cls), "__main__") == 0;
}

/* ---- paths ---------------------------------------------------------------------- */

typedef struct {
  CrModuleRecorder *r;
  CrInterp         *interp;
  guint             walked;
  const char       *root_name;  /* the outermost object's variable, or NULL */
} Walk;

static char *
join (const char *prefix,
      const char *name)
{
  return *prefix ? g_strconcat (prefix, ".", name, NULL) : g_strdup (name);
}

static void walk_value (Walk *w, CrValue *v, const char *path, guint depth);

static void
note_tensor (Walk       *w,
             CrTensor   *t,
             const char *path)
{
  /* The outermost object's own tensors are named after the variable it is
   * bound to (fc = nn.Linear(3, 2): "fc.weight", not a bare "weight"); a
   * submodule's keep their path from it ("fc1.weight"). */
  g_autofree char *bound = w->root_name && !strchr (path, '.')
                           ? g_strconcat (w->root_name, ".", path, NULL) : NULL;

  if (bound)
    path = bound;
  if (g_hash_table_contains (w->r->tensor_paths, t))
    return;
  g_hash_table_insert (w->r->tensor_paths, cr_tensor_ref (t), g_strdup (path));
  /* The record names it by its path from now on. */
  int id = cr_run_recorder_tensor (w->interp, t);
  if (id >= 0 && (guint) id < w->r->record->tensors->len)
    {
      CrRecordTensor *rt = g_ptr_array_index (w->r->record->tensors, id);
      if (!rt->module_path)
        rt->module_path = g_strdup (path);
      /* What the window and the trace call it, unless the script named it. */
      if (!rt->name && rt->origin == CR_RECORD_TENSOR_LEAF)
        {
          g_free (rt->label);
          rt->label = g_strdup (path);
        }
    }
}

/* The tensors and objects in a dict of a module (_parameters, _modules). */
static void
walk_dict (Walk       *w,
           CrValue    *dict,
           const char *path,
           guint       depth,
           gboolean    tensors_only)
{
  if (!dict || dict->kind != CR_VALUE_DICT)
    return;
  for (guint i = 0; i < cr_dict_len (dict); i++)
    {
      CrValue *key = cr_dict_key_at (dict, i);
      CrValue *value = cr_dict_value_at (dict, i);
      if (!key || !value)
        continue;
      g_autofree char *name = NULL;
      if (key->kind == CR_VALUE_STR)
        name = g_strdup (key->u.str.data);
      else if (key->kind == CR_VALUE_INT)
        name = g_strdup_printf ("%" G_GINT64_FORMAT, key->u.i);
      else
        continue;
      g_autofree char *sub = join (path, name);
      if (value->kind == CR_VALUE_TENSOR)
        note_tensor (w, value->u.tensor, sub);
      else if (!tensors_only)
        walk_value (w, value, sub, depth + 1);
    }
}

static void
walk_value (Walk       *w,
            CrValue    *v,
            const char *path,
            guint       depth)
{
  if (depth > MAX_WALK_DEPTH || w->walked >= MAX_WALKED)
    return;
  w->walked++;
  switch (v->kind)
    {
    case CR_VALUE_TENSOR:
      /* A user object's own leaf tensors are its parameters. */
      if (v->u.tensor->grad_fn == NULL && v->u.tensor->requires_grad)
        note_tensor (w, v->u.tensor, path);
      return;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      for (guint i = 0; i < v->u.seq.items->len; i++)
        {
          g_autofree char *index = g_strdup_printf ("%u", i);
          g_autofree char *sub = join (path, index);
          walk_value (w, g_ptr_array_index (v->u.seq.items, i), sub, depth + 1);
        }
      return;
    case CR_VALUE_DICT:
      walk_dict (w, v, path, depth, FALSE);
      return;
    case CR_VALUE_INSTANCE:
      break;
    default:
      return;
    }

  gboolean module = is_module (v);
  if (!module && !is_user_object (v))
    return;
  if (g_hash_table_contains (w->r->paths, v))
    return;   /* shared: the first path counts, as named_modules() says */
  g_hash_table_insert (w->r->paths, cr_value_ref (v), g_strdup (path));
  GHashTable *attrs = v->u.instance.attrs;
  if (module)
    {
      walk_dict (w, g_hash_table_lookup (attrs, "_parameters"), path, depth, TRUE);
      walk_dict (w, g_hash_table_lookup (attrs, "_buffers"), path, depth, TRUE);
      walk_dict (w, g_hash_table_lookup (attrs, "_modules"), path, depth, FALSE);
    }
  /* A module's own attributes that hold user objects (or a user object's
   * attributes): in the order they were set. */
  GPtrArray *order = v->u.instance.order;
  for (guint i = 0; order && i < order->len; i++)
    {
      const char *name = g_ptr_array_index (order, i);
      if (module && name[0] == '_')
        continue;
      CrValue *value = g_hash_table_lookup (attrs, name);
      if (!value || (module && value->kind == CR_VALUE_TENSOR))
        continue;
      g_autofree char *sub = join (path, name);
      walk_value (w, value, sub, depth + 1);
    }
}

/* The name the script bound v to: a local of the script's frame running
 * now, else one of the script's globals; NULL when none (borrowed). */
static const char *
bound_name (CrInterp *interp,
            CrValue  *v)
{
  const CrFrame *frame = interp->in_prelude ? NULL : interp->frame;
  CrProgram *program = interp->main_scope.program;

  for (guint i = 0; frame && frame->code && i < frame->code->n_locals; i++)
    if (frame->locals[i] == v && frame->code->local_names[i])
      return frame->code->local_names[i];
  for (guint i = 0; program && i < interp->main_scope.n_globals; i++)
    if (interp->main_scope.globals[i].value == v)
      return cr_program_global_name (program, i);
  return NULL;
}

static void
walk_root (CrModuleRecorder *r,
           CrInterp         *interp,
           CrValue          *root)
{
  g_hash_table_remove_all (r->paths);
  Walk w = { r, interp, 0, bound_name (interp, root) };
  walk_value (&w, root, "", 0);
}

/* ---- calls ------------------------------------------------------------------------- */

gpointer
cr_run_recorder_call_begin (CrInterp *self,
                            CrValue  *instance)
{
  gboolean module = is_module (instance);
  if (!module && !is_user_object (instance))
    return NULL;
  CrModuleRecorder *r = recorder_get (self);
  if (!r || r->record->module_calls->len >= MAX_CALLS)
    return NULL;

  int parent = r->stack->len ? g_array_index (r->stack, int, r->stack->len - 1) : -1;
  const char *path = g_hash_table_lookup (r->paths, instance);
  if (parent < 0 && (!path || !*path))
    {
      /* A call by the script: the outermost object, its paths walked anew
       * (a submodule called directly keeps the path it had). */
      walk_root (r, self, instance);
      path = "";
    }
  CrRecordModuleCall *call = cr_run_record_add_module_call (r->record);
  CrValue *cls = instance->u.instance.cls;
  call->class_name = g_strdup (cls->u.cls.name);
  if (path)
    call->path = g_strdup (path);
  else
    {
      /* Not reachable from the outermost object (made or passed in
       * during the call): named by its class inside its caller. */
      const CrRecordModuleCall *p = g_ptr_array_index (r->record->module_calls, parent);
      call->path = join (p->path, cls->u.cls.name);
    }
  call->parent = parent;
  call->depth = r->stack->len;
  call->iteration = cr_interp_loop_iteration (self);
  call->loop_depth = cr_interp_loop_path (self, call->loop_path, CR_RECORD_MAX_LOOP_PATH);
  /* The call site: the script's statement (prelude code, as nn.Sequential's
   * forward, counts as the script line that called into it). */
  const CrAstNode *stmt = self->in_prelude ? self->user_stmt : self->frame ? self->frame->stmt : NULL;
  if (stmt)
    call->span = stmt->span;
  call->user_class = !module;

  CallRange range = { (int) call->id, cr_autograd_peek_sequence_nr (), G_MAXUINT64 };
  g_array_append_val (r->ranges, range);
  int id = (int) call->id;
  g_array_append_val (r->stack, id);
  return GINT_TO_POINTER (id + 1);
}

void
cr_run_recorder_call_end (CrInterp *self,
                          gpointer  token)
{
  CrTorchState *state = cr_torch_state (self);
  CrModuleRecorder *r = state->modules;
  int id = GPOINTER_TO_INT (token) - 1;
  if (!r || id < 0 || (guint) id >= r->ranges->len)
    return;
  g_array_index (r->ranges, CallRange, id).seq_end = cr_autograd_peek_sequence_nr ();
  /* Unwind to it: a call that raised ends with it. */
  while (r->stack->len && g_array_index (r->stack, int, r->stack->len - 1) != id)
    g_array_set_size (r->stack, r->stack->len - 1);
  if (r->stack->len)
    g_array_set_size (r->stack, r->stack->len - 1);
}

int
cr_run_recorder_module_call_of (CrInterp     *self,
                                const CrNode *node)
{
  CrModuleRecorder *r = cr_torch_state (self)->modules;
  if (!r || !node || r->ranges->len == 0 || r->record != cr_run_recorder_get (self))
    return -1;
  guint64 seq = node->sequence_nr;
  /* The last call that started at or before seq ... */
  guint lo = 0, hi = r->ranges->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (r->ranges, CallRange, mid).seq_begin <= seq)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  /* ... or the innermost of its callers still running at seq. */
  int call = (int) lo - 1;
  while (call >= 0)
    {
      const CallRange *range = &g_array_index (r->ranges, CallRange, call);
      if (seq < range->seq_end)
        return call;
      call = ((CrRecordModuleCall *) g_ptr_array_index (r->record->module_calls, call))->parent;
    }
  return -1;
}

const char *
cr_run_recorder_module_path (CrInterp       *self,
                             const CrTensor *t)
{
  CrModuleRecorder *r = cr_torch_state (self)->modules;
  if (!r || !t)
    return NULL;
  return g_hash_table_lookup (r->tensor_paths, t);
}
