/* cr-value-dict.c — Python's dict: insertion-ordered storage, and the
 * hashing and comparing of its keys (Python's hash(), a script's __hash__
 * and __eq__), which sets share. */
#include "cr-interp-private.h"
#include "cr-value-dict.h"

#include <math.h>
#include <string.h>

struct _CrDict {
  GPtrArray  *keys;       /* owned refs, insertion order */
  GPtrArray  *values;     /* owned refs */
  GHashTable *index;      /* key (borrowed) -> GUINT_TO_POINTER (position + 1) */
  guint       n_charged;  /* entries counted against the memory budget */
  CrObjectExtra *extra;   /* owned, NULL but for a script's dict subclass */
};

static guint    value_hash      (gconstpointer v);
static gboolean value_key_equal (gconstpointer a, gconstpointer b);

/* ---- keys whose hash and == are the script's ------------------------------
 *
 * An object of a class that defines __hash__ (and __eq__) is a dict key and
 * set item by those, as in Python; anything else by value or identity
 * (tensors by identity, as PyTorch's). The dict's GHashTable calls
 * value_hash and value_key_equal, which call into the interpreter that runs
 * on this thread; the first error they meet waits in key_calls.error until
 * the dict operation ends and reports it. A key's hash is computed once per
 * operation (known[]), as Python stores it with the entry. */
typedef struct {
  CrInterp *interp;       /* the run on this thread, NULL: identity only */
  GError   *error;        /* raised by a __hash__ or __eq__ during this operation */
  CrValue  *known[2];     /* keys hashed during this operation ... */
  gint64    known_hash[2];/* ... and their hashes */
  guint     n_known;
} CrKeyCalls;

static __thread CrKeyCalls key_calls;

void
cr_value_set_thread_interp (CrInterp *interp)
{
  key_calls.interp = interp;
}

/* The class's own __hash__ (a def), NULL when it hashes by identity. */
static CrValue *
user_hash_method (CrValue *v)
{
  CrValue *m = cr_class_lookup (v->u.instance.cls, "__hash__");
  return m && m->kind == CR_VALUE_FUNCTION ? m : NULL;
}

/* Keeps the first error of the operation (takes error). */
static void
key_calls_fail (GError *error)
{
  if (error == NULL)
    return;
  if (key_calls.error == NULL)
    key_calls.error = error;
  else
    g_error_free (error);
}

static gint64
instance_hash (CrValue *v)
{
  CrValue *method = key_calls.interp ? user_hash_method (v) : NULL;
  if (!method)
    return (gintptr) v >> 4;
  for (guint i = 0; i < key_calls.n_known; i++)
    if (key_calls.known[i] == v)
      return key_calls.known_hash[i];
  gint64 h = 0;
  if (key_calls.error == NULL)
    {
      /* Not &key_calls.error: the call may run dict operations of its own. */
      GError *local = NULL;
      cr_value_ref (v);
      CrValue *r = cr_interp_call_method (key_calls.interp, v, method, NULL, 0, &local);
      if (r && (r->kind == CR_VALUE_INT || r->kind == CR_VALUE_BOOL))
        h = r->kind == CR_VALUE_INT ? (r->u.i == -1 ? -2 : r->u.i) : r->u.b;
      else if (r)
        g_set_error_literal (&local, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                             "__hash__ method should return an integer");
      cr_value_unref (r);
      cr_value_unref (v);
      key_calls_fail (local);
    }
  if (key_calls.n_known < G_N_ELEMENTS (key_calls.known))
    {
      key_calls.known[key_calls.n_known] = v;
      key_calls.known_hash[key_calls.n_known++] = h;
    }
  return h;
}

/* stored == probe with a script's __eq__ on either side. */
static gboolean
instance_key_equal (CrValue *stored,
                    CrValue *probe)
{
  if (key_calls.error != NULL)
    return FALSE;
  /* The script's __eq__ may empty the dict: both stay alive meanwhile. */
  GError *local = NULL;
  cr_value_ref (stored);
  cr_value_ref (probe);
  CrValue *r = cr_compare_op (key_calls.interp, CR_CMP_EQ, stored, probe, &local);
  gboolean equal = FALSE;
  if (r && !cr_value_truthy (key_calls.interp, r, &equal, &local))
    equal = FALSE;
  cr_value_unref (r);
  cr_value_unref (probe);
  cr_value_unref (stored);
  key_calls_fail (local);
  return equal;
}

/* Ends a dict operation: FALSE with error when a key's __hash__ or __eq__
 * raised during it. */
static gboolean
key_calls_end (GError **error)
{
  key_calls.n_known = 0;
  if (G_LIKELY (key_calls.error == NULL))
    return TRUE;
  g_propagate_error (error, key_calls.error);
  key_calls.error = NULL;
  return FALSE;
}

/* ---- Python's hash() ------------------------------------------------------- */

static gboolean
hashable_depth (CrValue  *v,
                int       depth,
                GError  **error)
{
  switch (v->kind)
    {
    case CR_VALUE_LIST:
    case CR_VALUE_DICT:
    case CR_VALUE_SLICE:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "unhashable type: '%s'", cr_value_type_name (v));
      return FALSE;
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_class_lookup (v->u.instance.cls, "__hash__");
        if (m && m->kind == CR_VALUE_NONE)
          {
            g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                         "unhashable type: '%s'", cr_value_type_name (v));
            return FALSE;
          }
        return TRUE;
      }
    case CR_VALUE_TUPLE:
      if (depth > 2000)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR,
                               "maximum recursion depth exceeded while calling a Python object");
          return FALSE;
        }
      for (guint i = 0; i < v->u.seq.items->len; i++)
        if (!hashable_depth (g_ptr_array_index (v->u.seq.items, i), depth + 1, error))
          return FALSE;
      return TRUE;
    default:
      return TRUE;
    }
}

gboolean
cr_value_hashable (CrValue  *v,
                   GError  **error)
{
  return hashable_depth (v, 0, error);
}

static guint
hash_int (gint64 i)
{
  guint64 u = (guint64) i;
  u ^= u >> 33;
  u *= 0xff51afd7ed558ccdULL;
  u ^= u >> 33;
  return (guint) u;
}

/* Python's hash(v) (v went through cr_value_hashable, which bounds a
 * tuple's nesting): equal values, equal hashes, across int, float, bool
 * and a script's __hash__. */
static gint64
py_hash (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_NONE:
      return 0x9e3779b9;
    case CR_VALUE_BOOL:
      return v->u.b;
    case CR_VALUE_INT:
      return v->u.i == -1 ? -2 : v->u.i;
    case CR_VALUE_FLOAT:
      {
        double f = v->u.f;
        if (f == floor (f) && fabs (f) < 9.2e18)
          return (gint64) f == -1 ? -2 : (gint64) f;
        guint64 bits;
        memcpy (&bits, &f, sizeof bits);
        return (gint64) (bits >> 1);
      }
    case CR_VALUE_STR:
      {
        guint32 h = 2166136261u;
        for (gsize i = 0; i < v->u.str.len; i++)
          h = (h ^ (guchar) v->u.str.data[i]) * 16777619u;
        return h;
      }
    case CR_VALUE_TUPLE:
      {
        guint64 h = 0x345678u;
        for (guint i = 0; i < v->u.seq.items->len; i++)
          h = (h ^ (guint64) py_hash (g_ptr_array_index (v->u.seq.items, i))) * 1000003u;
        return (gint64) (h >> 1);
      }
    case CR_VALUE_TENSOR:
      return (gintptr) cr_binding.tensor_slots->identity (v) >> 4;
    case CR_VALUE_OBJECT:
      if (v->u.object.type->identity)
        return (gintptr) v->u.object.type->identity (v) >> 4;
      return (gintptr) v->u.object.data >> 4;
    case CR_VALUE_NATIVE:
      return ((gintptr) v->u.native.fn ^ (gintptr) v->u.native.self) >> 4;
    case CR_VALUE_INSTANCE:
      return instance_hash (v);
    default:
      return (gintptr) v >> 4;
    }
}

static guint
value_hash (gconstpointer p)
{
  return hash_int (py_hash ((CrValue *) p));
}

static gboolean
value_key_equal (gconstpointer a,
                 gconstpointer b)
{
  if (a == b)
    return TRUE;
  CrValue *x = (CrValue *) a, *y = (CrValue *) b;
  if (G_UNLIKELY (x->kind == CR_VALUE_INSTANCE || y->kind == CR_VALUE_INSTANCE)
      && key_calls.interp)
    return instance_key_equal (x, y);
  return cr_value_equal (x, y);
}

gint64
cr_value_hash (CrValue  *v,
               GError  **error)
{
  gint64 h = py_hash (v);
  key_calls_end (error);
  return h;
}

/* ---- the storage ---------------------------------------------------------- */

#define DICT_OVERHEAD_BYTES ((gsize) 256)      /* CrDict, two arrays, a GHashTable */
#define DICT_ENTRY_BYTES    ((gsize) 96)       /* keys, values and the hash slots, at their arrays' doubling slack */

static void
value_unref_notify (gpointer data)
{
  cr_value_unref (data);
}

CrDict *
cr_dict_data_new (void)
{
  CrDict *d = g_new (CrDict, 1);
  d->keys = g_ptr_array_new_with_free_func (value_unref_notify);
  d->values = g_ptr_array_new_with_free_func (value_unref_notify);
  d->index = g_hash_table_new (value_hash, value_key_equal);
  d->n_charged = 0;
  d->extra = NULL;
  return d;
}

void
cr_dict_data_free (CrDict *d)
{
  cr_object_extra_free (d->extra);
  g_hash_table_unref (d->index);
  g_ptr_array_unref (d->keys);
  g_ptr_array_unref (d->values);
  g_free (d);
}

gsize
cr_dict_data_owned_bytes (const CrDict *d)
{
  return DICT_OVERHEAD_BYTES + (gsize) d->n_charged * DICT_ENTRY_BYTES;
}

CrObjectExtra **
cr_dict_data_extra_slot (CrDict *d)
{
  return &d->extra;
}

static void
dict_account (CrDict *d)
{
  guint len = d->keys->len;

  cr_value_account (((gssize) len - (gssize) d->n_charged) * (gssize) DICT_ENTRY_BYTES);
  d->n_charged = len;
}

/* ---- the operations -------------------------------------------------------- */

static CrDict *
dict_of (CrValue *dict)
{
  return dict->u.dict;
}

gboolean
cr_dict_set (CrValue  *dict,
             CrValue  *key,
             CrValue  *value,
             GError  **error)
{
  g_return_val_if_fail (dict->kind == CR_VALUE_DICT, FALSE);
  if (!cr_value_hashable (key, error))
    return FALSE;
  CrDict *d = dict_of (dict);
  gpointer pos = g_hash_table_lookup (d->index, key);
  if (G_UNLIKELY (key_calls.error != NULL))
    return key_calls_end (error);
  if (pos)
    {
      key_calls_end (NULL);
      guint i = GPOINTER_TO_UINT (pos) - 1;
      CrValue *old = d->values->pdata[i];
      d->values->pdata[i] = cr_value_ref (value);
      cr_value_unref (old);
      return TRUE;
    }
  g_ptr_array_add (d->keys, cr_value_ref (key));
  g_ptr_array_add (d->values, cr_value_ref (value));
  /* The new key's hash is known from the lookup (a __hash__ runs once). */
  g_hash_table_insert (d->index, key, GUINT_TO_POINTER (d->keys->len));
  GError *late = NULL;
  if (!key_calls_end (&late))
    {
      /* An __eq__ that raised only now (it changed between the calls): the
       * key is in; the error is dropped, as if it had not been raised. */
      g_error_free (late);
      cr_interp_forget_error (key_calls.interp);
    }
  dict_account (d);
  return TRUE;
}

CrValue *
cr_dict_get (CrValue  *dict,
             CrValue  *key,
             GError  **error)
{
  g_return_val_if_fail (dict->kind == CR_VALUE_DICT, NULL);
  if (!cr_value_hashable (key, error))
    return NULL;
  CrDict *d = dict_of (dict);
  gpointer pos = g_hash_table_lookup (d->index, key);
  if (!key_calls_end (error) || !pos)
    return NULL;
  return d->values->pdata[GPOINTER_TO_UINT (pos) - 1];
}

gboolean
cr_dict_delete (CrValue  *dict,
                CrValue  *key,
                GError  **error)
{
  if (!cr_value_hashable (key, error))
    return FALSE;
  CrDict *d = dict_of (dict);
  gpointer pos = g_hash_table_lookup (d->index, key);
  if (!key_calls_end (error))
    return FALSE;
  if (!pos)
    {
      g_autofree char *r = cr_value_repr (NULL, key, NULL);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, "%s", r ? r : "?");
      return FALSE;
    }
  guint i = GPOINTER_TO_UINT (pos) - 1;
  /* Removed and renumbered through an iterator: no key's __hash__ or
   * __eq__ runs again. Positions after i move down by one. */
  GHashTableIter it;
  gpointer stored, stored_pos;
  g_hash_table_iter_init (&it, d->index);
  while (g_hash_table_iter_next (&it, &stored, &stored_pos))
    {
      guint p = GPOINTER_TO_UINT (stored_pos) - 1;
      if (p == i)
        g_hash_table_iter_remove (&it);
      else if (p > i)
        g_hash_table_iter_replace (&it, GUINT_TO_POINTER (p));
    }
  g_ptr_array_remove_index (d->keys, i);
  g_ptr_array_remove_index (d->values, i);
  dict_account (d);
  return TRUE;
}

void
cr_dict_clear (CrValue *dict)
{
  CrDict *d = dict_of (dict);
  g_hash_table_remove_all (d->index);
  g_ptr_array_set_size (d->keys, 0);
  g_ptr_array_set_size (d->values, 0);
  dict_account (d);
}

guint
cr_dict_len (CrValue *dict)
{
  g_return_val_if_fail (dict->kind == CR_VALUE_DICT, 0);
  return dict_of (dict)->keys->len;
}

CrValue *
cr_dict_key_at (CrValue *dict,
                guint    i)
{
  g_return_val_if_fail (dict->kind == CR_VALUE_DICT, NULL);
  return dict_of (dict)->keys->pdata[i];
}

CrValue *
cr_dict_value_at (CrValue *dict,
                  guint    i)
{
  g_return_val_if_fail (dict->kind == CR_VALUE_DICT, NULL);
  return dict_of (dict)->values->pdata[i];
}
