/* cr-run-recorder-coach.c — the interpreter's notes for the mistakes coach. Each
 * kind of note is taken once per statement (a loop of a thousand
 * iterations notes its line once, and the first time is what the coach
 * needs), and the notes are capped, so a coached run costs little more
 * than a recorded one. */
#include "cr-run-recorder-coach.h"
#include "cr-coach.h"
#include "cr-run-recorder-private.h"
#include "cr-tensor.h"

#include <string.h>

/* Past this many notes, a run takes no more. */
#define MAX_NOTES 20000

/* An object's .grad that holds a gradient nothing has read yet. */
typedef struct {
  CrSpan         span;      /* the statement that stored it */
  gconstpointer  cls;       /* the object's class: an address reused by another
                             * kind of object is another object */
} PendingGrad;

struct _CrCoachWatch {
  GArray     *notes;          /* of CrCoachNote */
  GHashTable *leaf_storages;  /* CrStorage* of a leaf that requires grad -> its id + 1 */
  GHashTable *last_update;    /* leaf id -> record->backwards->len + 1 when last noted */
  GHashTable *noted;          /* "kind:line:column[:more]" (owned): noted once */
  GHashTable *pending;        /* instance (compared only) -> PendingGrad* (owned) */
};

CrCoachWatch *
cr_coach_watch_new (void)
{
  CrCoachWatch *watch = g_new0 (CrCoachWatch, 1);
  watch->notes = cr_coach_notes_new ();
  watch->leaf_storages = g_hash_table_new (g_direct_hash, g_direct_equal);
  watch->last_update = g_hash_table_new (g_direct_hash, g_direct_equal);
  watch->noted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  watch->pending = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  return watch;
}

void
cr_coach_watch_free (CrCoachWatch *watch)
{
  if (!watch)
    return;
  g_array_unref (watch->notes);
  g_hash_table_unref (watch->leaf_storages);
  g_hash_table_unref (watch->last_update);
  g_hash_table_unref (watch->noted);
  g_hash_table_unref (watch->pending);
  g_free (watch);
}

GArray *
cr_coach_watch_notes (CrCoachWatch *watch)
{
  return watch->notes;
}

static CrCoachWatch *
watch_of (CrInterp *interp)
{
  CrRunRecorder *r = cr_run_recorder_of (interp);
  return r ? r->coach : NULL;
}

/* A note of kind at the statement running, unless one with the same key
 * was taken (key NULL: always); borrowed, NULL when not taken. */
static CrCoachNote *
take_note (CrInterp        *interp,
           CrCoachWatch    *watch,
           CrCoachNoteKind  kind,
           const char      *key)
{
  if (watch->notes->len >= MAX_NOTES)
    return NULL;
  CrSpan span = cr_run_recorder_current_span (interp);
  if (key)
    {
      char *full = g_strdup_printf ("%d:%d:%d:%s", kind, span.line, span.column, key);
      if (!g_hash_table_add (watch->noted, full))
        return NULL;
    }
  const CrRunRecord *record = cr_run_recorder_get (interp);
  CrCoachNote note = {
    .kind = kind,
    .span = span,
    .tensor = -1,
    .n_backwards = record ? record->backwards->len : 0,
    .n_errors = record ? record->errors->len : 0,
  };
  g_array_append_val (watch->notes, note);
  return &g_array_index (watch->notes, CrCoachNote, watch->notes->len - 1);
}

static gboolean
is_leaf_requiring_grad (const CrTensor *t)
{
  return t->requires_grad && t->grad_fn == NULL;
}

static void
remember_leaf_storage (CrInterp     *interp,
                       CrCoachWatch *watch,
                       CrTensor     *t)
{
  int id = cr_run_recorder_tensor (interp, t);
  if (id >= 0)
    g_hash_table_insert (watch->leaf_storages, t->storage, GINT_TO_POINTER (id + 1));
}

void
cr_coach_watch_grad_read (CrInterp *interp,
                          CrTensor *t)
{
  CrCoachWatch *watch = watch_of (interp);
  if (!watch)
    return;
  if (is_leaf_requiring_grad (t))
    {
      remember_leaf_storage (interp, watch, t);
      return;
    }
  if (t->grad_fn == NULL || t->retains_grad || t->grad != NULL)
    return;
  CrCoachNote *note = take_note (interp, watch, CR_COACH_NOTE_NON_LEAF_GRAD, "");
  if (note)
    note->tensor = cr_run_recorder_tensor (interp, t);
}

void
cr_coach_watch_data_read (CrInterp *interp,
                          CrTensor *t)
{
  CrCoachWatch *watch = watch_of (interp);
  if (watch && is_leaf_requiring_grad (t))
    remember_leaf_storage (interp, watch, t);
}

void
cr_coach_watch_bump (CrInterp *interp,
                     CrTensor *t)
{
  CrCoachWatch *watch = watch_of (interp);
  if (!watch)
    return;
  int id;
  if (is_leaf_requiring_grad (t))
    id = cr_run_recorder_tensor (interp, t);
  else if (!t->requires_grad)
    id = GPOINTER_TO_INT (g_hash_table_lookup (watch->leaf_storages, t->storage)) - 1;
  else
    return;
  const CrRunRecord *record = cr_run_recorder_get (interp);
  /* Only an update between backward calls matters: once per leaf and
   * backward call. */
  if (id < 0 || !record || record->backwards->len == 0)
    return;
  gpointer key = GINT_TO_POINTER (id);
  guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (watch->last_update, key));
  if (seen == record->backwards->len + 1)
    return;
  g_hash_table_insert (watch->last_update, key, GUINT_TO_POINTER (record->backwards->len + 1));
  CrCoachNote *note = take_note (interp, watch, CR_COACH_NOTE_LEAF_UPDATED, NULL);
  if (note)
    note->tensor = id;
}

void
cr_coach_watch_cut (CrInterp   *interp,
                    CrTensor   *t,
                    const char *what)
{
  CrCoachWatch *watch = watch_of (interp);
  if (!watch || !t->requires_grad)
    return;
  CrCoachNote *note = take_note (interp, watch, CR_COACH_NOTE_GRADIENT_CUT, what);
  if (note)
    note->what = what;
}

static gboolean
is_zero (const CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_NONE:
      return TRUE;
    case CR_VALUE_BOOL:
    case CR_VALUE_INT:
      return v->u.i == 0;
    case CR_VALUE_FLOAT:
      return v->u.f == 0;
    default:
      return FALSE;
    }
}

void
cr_coach_watch_attr (CrInterp   *interp,
                     CrValue    *instance,
                     const char *name,
                     CrValue    *stored)
{
  if (strcmp (name, "grad") != 0)
    return;
  CrCoachWatch *watch = watch_of (interp);
  if (!watch || instance->kind != CR_VALUE_INSTANCE)
    return;
  PendingGrad *pending = g_hash_table_lookup (watch->pending, instance);
  if (pending && pending->cls != instance->u.instance.cls)
    {
      g_hash_table_remove (watch->pending, instance);
      pending = NULL;
    }
  if (!stored || is_zero (stored))
    {
      /* Read, or reset: nothing is lost by the next store. */
      if (pending)
        g_hash_table_remove (watch->pending, instance);
      return;
    }
  CrSpan span = cr_run_recorder_current_span (interp);
  if (pending)
    {
      g_autofree char *key = g_strdup_printf ("%d:%d", pending->span.line, pending->span.column);
      CrCoachNote *note = take_note (interp, watch, CR_COACH_NOTE_GRAD_OVERWRITTEN, key);
      if (note)
        note->other_span = pending->span;
      pending->span = span;
      return;
    }
  /* Bounded: objects whose gradient nobody reads (a micrograd input's)
   * pile up here. */
  if (g_hash_table_size (watch->pending) >= 100000)
    return;
  pending = g_new (PendingGrad, 1);
  pending->span = span;
  pending->cls = instance->u.instance.cls;
  g_hash_table_insert (watch->pending, instance, pending);
}
