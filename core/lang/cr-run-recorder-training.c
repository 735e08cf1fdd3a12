/* cr-run-recorder-training.c — parameter updates into the run record: what
 * a training loop's optimizer step did to each parameter (its value, the
 * gradient it used, the optimizer's state before and after), and the
 * script's own updates under no_grad.
 *
 * Snapshots of big parameters are compact: a tensor of more than 64
 * elements keeps its first CR_RECORD_UPDATE_MAX_VALUES values from the
 * updates' own budget, then (that budget spent) its first few, and its
 * statistics (the norm follows from them), so a long loop over a real model
 * costs the record a bounded amount. A parameter's value after one update
 * is its value before the next: one snapshot, shared. */
#include "cr-run-recorder-training.h"
#include "cr-run-recorder-private.h"

#include "cr-grad-mode.h"
#include "cr-interp-private.h"
#include "cr-native.h"
#include "cr-tensor.h"

#include <math.h>
#include <string.h>

/* A big tensor's snapshot in an update keeps this many values once the
 * updates' budget (CR_RECORD_UPDATES_MAX_VALUES) is spent. */
#define BIG_TENSOR_VALUES 8
/* Tensors of up to this many elements keep them all (budget allowing). */
#define SMALL_TENSOR_NUMEL 64
/* Leaves remembered by their storage (for .data updates), at most. */
#define MAX_LEAF_STORAGES 4096

/* An optimizer object the run stepped. */
typedef struct {
  guint id;       /* in the order of their first step */
  guint steps;    /* step() calls so far */
} OptimizerInfo;

/* A parameter's last snapshot and the data it was taken of. */
typedef struct {
  CrTensorSnapshot *snapshot;   /* one hold */
  gconstpointer     storage;    /* compared only */
  gint64            offset;
  guint32           version;
} Known;

static void
known_free (gpointer data)
{
  Known *known = data;
  cr_tensor_snapshot_free (known->snapshot);
  g_free (known);
}

struct _CrTrainingWatch {
  GHashTable    *optimizers;     /* CrValue* (a ref held) -> OptimizerInfo* (owned) */
  OptimizerInfo *stepping;       /* the optimizer whose step() runs, borrowed; NULL */
  char          *stepping_class; /* its class name */
  int            pending;        /* the update begun and not ended (index), -1 */
  GHashTable    *leaf_storages;  /* CrStorage* -> CrTensor* (a ref held): leaves whose
                                  * .grad was read */
  GHashTable    *known;          /* tensor id -> Known* (owned) */
  int            last_manual;    /* the last manual update (index), -1 */
  gboolean       busy;           /* taking snapshots: a bump now is ours */
  gint64         values_left;    /* the updates' budget for big tensors' values */
};

CrTrainingWatch *
cr_training_watch_new (void)
{
  CrTrainingWatch *watch = g_new0 (CrTrainingWatch, 1);
  watch->optimizers = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                             (GDestroyNotify) cr_value_unref, g_free);
  watch->leaf_storages = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                (GDestroyNotify) cr_tensor_unref);
  watch->known = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, known_free);
  watch->pending = -1;
  watch->last_manual = -1;
  watch->values_left = CR_RECORD_UPDATES_MAX_VALUES;
  return watch;
}

void
cr_training_watch_free (CrTrainingWatch *watch)
{
  if (!watch)
    return;
  g_hash_table_unref (watch->optimizers);
  g_hash_table_unref (watch->leaf_storages);
  g_hash_table_unref (watch->known);
  g_free (watch->stepping_class);
  g_free (watch);
}

static CrTrainingWatch *
watch_of (CrInterp       *interp,
          CrRunRecorder **recorder)
{
  CrRunRecorder *r = cr_run_recorder_of (interp);
  *recorder = r;
  return r ? r->training : NULL;
}

/* ---- snapshots -------------------------------------------------------------- */

/* A big tensor now: its first CR_RECORD_UPDATE_MAX_VALUES values while
 * the updates' budget lasts, then its first few from the shared one. New,
 * owned by the caller. */
static CrTensorSnapshot *
take_big (CrRunRecorder  *r,
          const CrTensor *t)
{
  CrTrainingWatch *watch = r->training;
  gint64 keep = MIN (t->numel, CR_RECORD_UPDATE_MAX_VALUES);
  gint64 *budget = &watch->values_left;
  if (*budget < keep)
    {
      budget = &r->values_left;
      keep = MIN (cr_run_recorder_values_for (r, t->numel), BIG_TENSOR_VALUES);
    }
  CrTensorSnapshot *s = cr_tensor_snapshot_new_deferred (t, keep);
  *budget -= s->n_values;
  return s;
}

/* t now, compact when big: new, owned by the caller. */
static CrTensorSnapshot *
take (CrRunRecorder  *r,
      const CrTensor *t)
{
  if (!t)
    return NULL;
  if (t->numel <= SMALL_TENSOR_NUMEL)
    return cr_run_recorder_snapshot (r->interp, t);
  return take_big (r, t);
}

/* t now, never from the recorder's cache: a change through t.data leaves
 * t's version as it was. */
static CrTensorSnapshot *
take_fresh (CrRunRecorder  *r,
            const CrTensor *t)
{
  if (t->numel > SMALL_TENSOR_NUMEL)
    return take_big (r, t);
  CrTensorSnapshot *s = cr_tensor_snapshot_new_deferred (t, cr_run_recorder_values_for (r, t->numel));
  r->values_left -= s->n_values;
  return s;
}

/* Remembers s as t's value now (a hold of its own). */
static void
remember (CrTrainingWatch  *watch,
          int               id,
          const CrTensor   *t,
          CrTensorSnapshot *s)
{
  if (id < 0 || !s)
    return;
  Known *known = g_new0 (Known, 1);
  known->snapshot = cr_tensor_snapshot_share (s);
  known->storage = t->storage;
  known->offset = t->offset;
  known->version = cr_tensor_version (t);
  g_hash_table_insert (watch->known, GINT_TO_POINTER (id), known);
}

/* t's value as remembered when its data has not changed since, shared;
 * else NULL. */
static CrTensorSnapshot *
recall (CrTrainingWatch *watch,
        int              id,
        const CrTensor  *t)
{
  Known *known = g_hash_table_lookup (watch->known, GINT_TO_POINTER (id));
  if (!known || known->storage != (gconstpointer) t->storage || known->offset != t->offset
      || known->version != cr_tensor_version (t))
    return NULL;
  return cr_tensor_snapshot_share (known->snapshot);
}

/* A value of an optimizer's state as a snapshot: a tensor, or a number as a
 * 0-d float64; NULL for None and anything else. */
static CrTensorSnapshot *
take_state_value (CrRunRecorder *r,
                  CrValue       *value)
{
  if (value->kind == CR_VALUE_TENSOR)
    return take (r, value->u.tensor);
  if (value->kind == CR_VALUE_INT || value->kind == CR_VALUE_FLOAT)
    {
      /* An int stays one (RMSprop's step prints as 2, not 2.0). */
      double number = value->kind == CR_VALUE_INT ? (double) value->u.i : value->u.f;
      g_autoptr (CrTensor) scalar = cr_tensor_new_scalar (number, value->kind == CR_VALUE_INT
                                                                  ? CR_DTYPE_INT64 : CR_DTYPE_FLOAT64);
      return cr_tensor_snapshot_new_deferred (scalar, 1);
    }
  return NULL;
}

/* ---- an update's common fields ----------------------------------------------- */

static const char *
tensor_label (CrRunRecorder *r,
              int            id)
{
  const CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
  if (!rec)
    return NULL;
  return rec->module_path ? rec->module_path : rec->label ? rec->label : rec->name;
}

static CrRecordUpdate *
new_update (CrRunRecorder      *r,
            CrRecordUpdateKind  kind,
            CrTensor           *param)
{
  CrRecordUpdate *u = cr_run_record_add_update (r->record);
  u->kind = kind;
  u->tensor = cr_run_recorder_tensor (r->interp, param);
  u->name = g_strdup (tensor_label (r, u->tensor));
  u->span = cr_run_recorder_current_span (r->interp);
  u->backward = (int) r->record->backwards->len - 1;
  u->loop_depth = cr_interp_loop_path (r->interp, u->loop_path, CR_RECORD_MAX_LOOP_PATH);
  u->iteration = u->loop_depth ? u->loop_path[u->loop_depth - 1] : 0;
  return u;
}

/* The value before: as remembered, else the tensor's recorded value when
 * that is of the same data, else now. */
static CrTensorSnapshot *
take_before (CrRunRecorder   *r,
             CrTrainingWatch *watch,
             int              id,
             CrTensor        *param)
{
  CrTensorSnapshot *s = recall (watch, id, param);
  return s ? s : take (r, param);
}

/* ---- manual updates ---------------------------------------------------------- */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrTensorSnapshot, cr_tensor_snapshot_free)

void
cr_training_watch_grad_read (CrInterp *interp,
                             CrTensor *t)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  if (!watch || !t->requires_grad || t->grad_fn != NULL
      || g_hash_table_contains (watch->leaf_storages, t->storage)
      || g_hash_table_size (watch->leaf_storages) >= MAX_LEAF_STORAGES)
    return;
  g_hash_table_insert (watch->leaf_storages, t->storage, cr_tensor_ref (t));
  /* Its value now is what a first manual update starts from. */
  int id = cr_run_recorder_tensor (interp, t);
  if (id >= 0 && !g_hash_table_contains (watch->known, GINT_TO_POINTER (id)))
    {
      watch->busy = TRUE;
      g_autoptr (CrTensorSnapshot) s = take (r, t);
      watch->busy = FALSE;
      remember (watch, id, t, s);
    }
}

void
cr_training_watch_bump (CrInterp *interp,
                        CrTensor *t)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  if (!watch || watch->busy || watch->pending >= 0 || r->record->backwards->len == 0)
    return;
  /* The leaf itself can change in place only with grad mode off; its .data
   * any time. */
  CrTensor *leaf = NULL;
  if (t->requires_grad && t->grad_fn == NULL && !cr_grad_mode_is_enabled ())
    leaf = t;
  else if (!t->requires_grad)
    leaf = g_hash_table_lookup (watch->leaf_storages, t->storage);
  if (!leaf || !leaf->grad)
    return;
  int id = cr_run_recorder_tensor (interp, leaf);
  if (id < 0)
    return;
  watch->busy = TRUE;
  CrSpan span = cr_run_recorder_current_span (interp);
  CrRecordUpdate *last = watch->last_manual >= 0
    ? g_ptr_array_index (r->record->updates, watch->last_manual) : NULL;
  if (last && last->tensor == id && last->backward == (int) r->record->backwards->len - 1
      && memcmp (&last->span, &span, sizeof span) == 0)
    {
      /* w.sub_(...).clamp_(...): one statement, one update. */
      cr_tensor_snapshot_free (last->after);
      last->after = take_fresh (r, leaf);
      remember (watch, id, leaf, last->after);
      watch->busy = FALSE;
      return;
    }
  CrRecordUpdate *u = new_update (r, CR_RECORD_UPDATE_MANUAL, leaf);
  Known *known = g_hash_table_lookup (watch->known, GINT_TO_POINTER (id));
  const CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
  /* Changed already: the value last known, else the one recorded. */
  if (known)
    u->before = cr_tensor_snapshot_share (known->snapshot);
  else if (rec && rec->value)
    u->before = cr_tensor_snapshot_share (rec->value);
  u->grad = take (r, leaf->grad);
  u->after = take_fresh (r, leaf);
  remember (watch, id, leaf, u->after);
  watch->last_manual = (int) u->id;
  watch->busy = FALSE;
}

void
cr_training_watch_run_end (CrInterp *interp)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  if (!watch)
    return;
  for (guint i = 0; i < r->record->updates->len; i++)
    {
      CrRecordUpdate *u = g_ptr_array_index (r->record->updates, i);
      if (!u->name)
        u->name = g_strdup (tensor_label (r, u->tensor));
    }
  /* The leaves and optimizers are the script's: let them go with it. */
  g_hash_table_remove_all (watch->leaf_storages);
  g_hash_table_remove_all (watch->optimizers);
  watch->stepping = NULL;
}

/* ---- printed numbers ----------------------------------------------------------- */

/* A word that names the number after it: letters first, then letters,
 * digits, '_' or '.', maybe ending in ':' or '=' (which are dropped). */
static char *
name_of (const char *word,
         gsize       len)
{
  while (len > 0 && (word[len - 1] == ':' || word[len - 1] == '='))
    len--;
  if (len == 0 || len > 40 || !g_ascii_isalpha (word[0]))
    return NULL;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (word[i]) && word[i] != '_' && word[i] != '.')
      return NULL;
  return g_strndup (word, len);
}

static void
add_printed (CrRunRecorder *r,
             const char    *name,
             double         value)
{
  CrRecordPrinted *p = cr_run_record_add_printed (r->record, name, value);
  if (!p)
    return;
  p->span = cr_run_recorder_current_span (r->interp);
  p->backward = (int) r->record->backwards->len - 1;
  guint path[CR_RECORD_MAX_LOOP_PATH];
  guint depth = cr_interp_loop_path (r->interp, path, CR_RECORD_MAX_LOOP_PATH);
  p->iteration = depth ? path[depth - 1] : 0;
}

void
cr_training_watch_printed (CrInterp   *interp,
                           const char *text)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  guint path[CR_RECORD_MAX_LOOP_PATH];
  if (!watch || r->record->backwards->len == 0
      || r->record->printed->len >= CR_RUN_RECORD_MAX_PRINTED
      || cr_interp_loop_path (interp, path, CR_RECORD_MAX_LOOP_PATH) == 0)
    return;
  /* Words split at spaces, commas, '|' and brackets; "name=value" is a
   * name and a number too. */
  g_autofree char *previous = NULL;
  const char *p = text;
  while (*p)
    {
      while (*p && (g_ascii_isspace (*p) || strchr (",|()[]{};", *p)))
        p++;
      const char *start = p;
      while (*p && !g_ascii_isspace (*p) && !strchr (",|()[]{};", *p))
        p++;
      gsize len = (gsize) (p - start);
      if (len == 0)
        break;
      const char *eq = memchr (start, '=', len);
      char *end = NULL;
      double value = g_ascii_strtod (eq ? eq + 1 : start, &end);
      gboolean number = end == p && end != (eq ? eq + 1 : start) && isfinite (value);
      if (number && eq)
        {
          g_autofree char *name = name_of (start, (gsize) (eq - start));
          if (name)
            add_printed (r, name, value);
          g_clear_pointer (&previous, g_free);
        }
      else if (number && previous)
        {
          add_printed (r, previous, value);
          g_clear_pointer (&previous, g_free);
        }
      else
        {
          g_free (previous);
          previous = number ? NULL : name_of (start, len);
        }
    }
}

/* ---- the optimizer's natives ------------------------------------------------- */

/* torch._C._recording(): whether this run records (the prelude's Optimizer
 * tells of its steps only then). */
NATIVE (native_recording)
{
  CrRunRecorder *r;
  return cr_value_new_bool (watch_of (interp, &r) != NULL);
}

/* torch._C._record_step(optimizer): a step() call begins. */
NATIVE (native_record_step)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  if (!watch || n_args != 1)
    return cr_value_none ();
  OptimizerInfo *info = g_hash_table_lookup (watch->optimizers, args[0]);
  if (!info)
    {
      info = g_new0 (OptimizerInfo, 1);
      info->id = g_hash_table_size (watch->optimizers);
      g_hash_table_insert (watch->optimizers, cr_value_ref (args[0]), info);
    }
  info->steps++;
  watch->stepping = info;
  g_free (watch->stepping_class);
  watch->stepping_class = g_strdup (cr_value_type_name (args[0]));
  /* An update a raising _update left open is over. */
  watch->pending = -1;
  return cr_value_none ();
}

/* The group's options that are numbers, in its order: a pair (Adam's
 * betas) as beta1, beta2; the implementation's switches left out. */
static void
add_numbers (CrRecordUpdate *u,
             CrValue        *group)
{
  static const char *const skipped[] = {
    "params", "foreach", "differentiable", "capturable", "fused", NULL,
  };
  for (guint i = 0; i < cr_dict_len (group); i++)
    {
      CrValue *key = cr_dict_key_at (group, i);
      CrValue *value = cr_dict_value_at (group, i);
      if (key->kind != CR_VALUE_STR || g_strv_contains (skipped, key->u.str.data))
        continue;
      double number;
      if (cr_value_is_number (value) && cr_value_to_double (value, &number, NULL))
        cr_record_update_add_number (u, key->u.str.data, number);
      else if (value->kind == CR_VALUE_TUPLE && value->u.seq.items->len == 2
               && g_str_equal (key->u.str.data, "betas"))
        for (guint k = 0; k < 2; k++)
          if (cr_value_to_double (value->u.seq.items->pdata[k], &number, NULL))
            cr_record_update_add_number (u, k == 0 ? "beta1" : "beta2", number);
    }
}

static CrRecordOptimState *
find_state (CrRecordUpdate *u,
            const char     *name)
{
  for (guint i = 0; i < u->state->len; i++)
    {
      CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      if (g_str_equal (state->name, name))
        return state;
    }
  return NULL;
}

/* torch._C._record_update(group_index, group, param, state, after): one
 * parameter's update begins (after False) or has ended (after True). */
NATIVE (native_record_update)
{
  CrRunRecorder *r;
  CrTrainingWatch *watch = watch_of (interp, &r);
  if (!watch || n_args != 5 || args[1]->kind != CR_VALUE_DICT
      || args[2]->kind != CR_VALUE_TENSOR || args[3]->kind != CR_VALUE_DICT)
    return cr_value_none ();
  CrTensor *param = args[2]->u.tensor;
  CrValue *state = args[3];
  gboolean after = args[4]->kind == CR_VALUE_BOOL && args[4]->u.b;
  watch->busy = TRUE;
  if (!after)
    {
      CrRecordUpdate *u = new_update (r, CR_RECORD_UPDATE_OPTIMIZER, param);
      u->optimizer = g_strdup (watch->stepping_class);
      u->optimizer_id = watch->stepping ? watch->stepping->id : 0;
      u->step = watch->stepping ? watch->stepping->steps : 0;
      u->group = args[0]->kind == CR_VALUE_INT ? (guint) MAX (args[0]->u.i, 0) : 0;
      add_numbers (u, args[1]);
      u->grad = take (r, param->grad);
      u->before = take_before (r, watch, u->tensor, param);
      for (guint i = 0; i < cr_dict_len (state); i++)
        {
          CrValue *key = cr_dict_key_at (state, i);
          if (key->kind != CR_VALUE_STR)
            continue;
          CrRecordOptimState *entry = cr_record_update_add_state (u, key->u.str.data);
          entry->before = take_state_value (r, cr_dict_value_at (state, i));
        }
      watch->pending = (int) u->id;
    }
  else if (watch->pending >= 0)
    {
      CrRecordUpdate *u = g_ptr_array_index (r->record->updates, watch->pending);
      u->after = take (r, param);
      remember (watch, u->tensor, param, u->after);
      for (guint i = 0; i < cr_dict_len (state); i++)
        {
          CrValue *key = cr_dict_key_at (state, i);
          if (key->kind != CR_VALUE_STR)
            continue;
          CrRecordOptimState *entry = find_state (u, key->u.str.data);
          if (!entry)
            entry = cr_record_update_add_state (u, key->u.str.data);
          entry->after = take_state_value (r, cr_dict_value_at (state, i));
        }
      watch->pending = -1;
    }
  watch->busy = FALSE;
  return cr_value_none ();
}

void
cr_training_install_natives (CrValue *c_module)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
    { "_recording", native_recording },
    { "_record_step", native_record_step },
    { "_record_update", native_record_update },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    {
      CrValue *fn = cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL);
      cr_value_set_member (c_module, natives[i].name, fn);
      cr_value_unref (fn);
    }
}
