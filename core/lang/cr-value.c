/* cr-value.c — the values a script computes with: construction, reference
 * counting, sequences, members, slices, Python's truthiness, equality and
 * the conversions natives use (repr() and str() are in cr-value-repr.c).
 *
 * None, True, False, Ellipsis, NotImplemented and the small ints are
 * immortal statics (a negative ref_count): they are shared by every
 * interpreter and thread, so their counts are never touched. Other values
 * belong to one thread at a time and are counted without atomics, as in
 * CPython. Dicts, and the hashing of their keys, are in cr-value-dict.c. */
#include "cr-interp-private.h"
#include "cr-pyformat.h"
#include "cr-memory.h"
#include "cr-value-dict.h"

#include <math.h>
#include <string.h>

#define IMMORTAL (-1)

static CrValue none_value      = { IMMORTAL, CR_VALUE_NONE };
static CrValue true_value      = { IMMORTAL, CR_VALUE_BOOL, { .b = TRUE } };
static CrValue false_value     = { IMMORTAL, CR_VALUE_BOOL, { .b = FALSE } };
static CrValue ellipsis_value  = { IMMORTAL, CR_VALUE_ELLIPSIS };

static char *not_implemented_repr (CrValue *self) { return g_strdup ("NotImplemented"); }
static const CrObjectType not_implemented_type = {
  .name = "NotImplementedType",
  .repr = not_implemented_repr,
};
static CrValue not_implemented_value = {
  IMMORTAL, CR_VALUE_OBJECT, { .object = { &not_implemented_type, NULL } }
};

#define SMALL_INT_MIN (-5)
#define SMALL_INT_MAX 1024
static CrValue small_ints[SMALL_INT_MAX - SMALL_INT_MIN + 1];

__attribute__((constructor))
static void
init_small_ints (void)
{
  for (gint64 i = SMALL_INT_MIN; i <= SMALL_INT_MAX; i++)
    {
      CrValue *v = &small_ints[i - SMALL_INT_MIN];
      v->ref_count = IMMORTAL;
      v->kind = CR_VALUE_INT;
      v->u.i = i;
    }
}

/* ---- the memory budget ---------------------------------------------------
 *
 * A value's cost is its struct plus what it owns: a str's bytes, a list's
 * item pointers, a dict's entries (two arrays and a hash slot each). These
 * are estimates of what malloc hands out, not exact counts; what matters is
 * that a value gives back exactly what it was charged. An atomic add per
 * value would cost as much as its malloc, so each thread keeps a running
 * balance and passes it to the shared counter in batches. */

#define STR_OVERHEAD_BYTES  ((gsize) 17)       /* the NUL and malloc's header */
#define SEQ_OVERHEAD_BYTES  ((gsize) 64)       /* the GPtrArray */
#define ATTRS_OVERHEAD_BYTES ((gsize) 128)     /* an attribute table */
#define INSTANCE_OVERHEAD_BYTES ((gsize) 256)  /* an instance's empty attribute table */
#define ACCOUNT_BATCH_BYTES ((gssize) 64 << 10)

/* initial-exec: core is built position-independent, and the default model
 * would make every access a call to __tls_get_addr. */
static __thread gssize account_pending __attribute__ ((tls_model ("initial-exec")));
__thread gboolean cr_value_over_budget __attribute__ ((tls_model ("initial-exec")));

/* Hands the balance to the shared counter and notes whether it is now over
 * the limit: checkpoints read the note, not the shared counter. */
static void
account_flush (void)
{
  cr_memory_charge (account_pending);
  account_pending = 0;
  cr_value_over_budget = cr_memory_exceeded ();
}

static inline void
account (gssize nbytes)
{
  account_pending += nbytes;
  if (G_UNLIKELY (account_pending > ACCOUNT_BATCH_BYTES || account_pending < -ACCOUNT_BATCH_BYTES))
    account_flush ();
}

void
cr_value_flush_accounting (void)
{
  account_flush ();
}

void
cr_value_account (gssize nbytes)
{
  account (nbytes);
}

static gboolean
set_memory_error (GError **error)
{
  /* Python prints a failed allocation as a bare "MemoryError". */
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR, "");
  return FALSE;
}

gboolean
cr_value_check_alloc (gsize    nbytes,
                      GError **error)
{
  gssize pending = MAX (account_pending, 0);

  if (G_LIKELY (nbytes <= G_MAXSIZE - (gsize) pending && cr_memory_fits (nbytes + (gsize) pending)))
    return TRUE;
  return set_memory_error (error);
}

gboolean
cr_value_check_alloc_n (gsize    n,
                        gsize    item_bytes,
                        GError **error)
{
  gsize nbytes;

  if (!g_size_checked_mul (&nbytes, n, item_bytes))
    return set_memory_error (error);
  return cr_value_check_alloc (nbytes, error);
}

gboolean
cr_value_check_memory_slow (GError **error)
{
  /* Tensors freed since the note was taken may have made room. */
  cr_value_over_budget = cr_memory_exceeded ();
  return !cr_value_over_budget || set_memory_error (error);
}

gboolean
cr_value_checkpoint (CrInterp  *interp,
                     gsize      building_bytes,
                     GError   **error)
{
  if (interp != NULL && !cr_interp_check_cancel (interp, error))
    return FALSE;
  return cr_value_check_memory (error) && cr_value_check_alloc (building_bytes, error);
}

/* What v owns besides its struct, as charged. */
static gsize
value_owned_bytes (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_STR:
      return v->u.str.len + STR_OVERHEAD_BYTES;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      return SEQ_OVERHEAD_BYTES + (gsize) v->u.seq.n_charged * CR_VALUE_ITEM_BYTES;
    case CR_VALUE_DICT:
      return cr_dict_data_owned_bytes (v->u.dict);
    case CR_VALUE_CLASS:
    case CR_VALUE_MODULE:
      return ATTRS_OVERHEAD_BYTES;
    case CR_VALUE_INSTANCE:
      return INSTANCE_OVERHEAD_BYTES;
    default:
      return 0;
    }
}

static inline CrValue *
value_alloc (CrValueKind kind)
{
  CrValue *v = g_new (CrValue, 1);
  v->ref_count = 1;
  v->kind = kind;
  account ((gssize) CR_VALUE_BYTES);
  return v;
}

CrValue *
cr_value_alloc (CrValueKind kind)
{
  CrValue *v = value_alloc (kind);
  /* The interpreter gives an instance its attribute table right away. */
  if (kind == CR_VALUE_INSTANCE)
    account ((gssize) INSTANCE_OVERHEAD_BYTES);
  return v;
}

/* Charges a new value for what it owns (after its fields are set). */
static inline CrValue *
value_charged (CrValue *v)
{
  account ((gssize) value_owned_bytes (v));
  return v;
}

void
cr_seq_account (CrValue *seq)
{
  guint len = seq->u.seq.items->len;

  account (((gssize) len - (gssize) seq->u.seq.n_charged) * (gssize) CR_VALUE_ITEM_BYTES);
  seq->u.seq.n_charged = len;
}

static void
value_unref_notify (gpointer data)
{
  cr_value_unref (data);
}

static GHashTable *
attrs_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_unref_notify);
}

/* ---- construction -------------------------------------------------------- */

CrValue *
cr_value_none (void)
{
  return &none_value;
}

CrValue *
cr_value_new_bool (gboolean b)
{
  return b ? &true_value : &false_value;
}

CrValue *
cr_value_new_int (gint64 i)
{
  if (i >= SMALL_INT_MIN && i <= SMALL_INT_MAX)
    return &small_ints[i - SMALL_INT_MIN];
  CrValue *v = value_alloc (CR_VALUE_INT);
  v->u.i = i;
  return v;
}

CrValue *
cr_value_new_float (double f)
{
  CrValue *v = value_alloc (CR_VALUE_FLOAT);
  v->u.f = f;
  return v;
}

CrValue *
cr_value_new_str_len (const char *s,
                      gsize       len)
{
  CrValue *v = value_alloc (CR_VALUE_STR);
  v->u.str.data = g_malloc (len + 1);
  memcpy (v->u.str.data, s, len);
  v->u.str.data[len] = '\0';
  v->u.str.len = len;
  return value_charged (v);
}

CrValue *
cr_value_new_str (const char *s)
{
  return cr_value_new_str_len (s, strlen (s));
}

CrValue *
cr_value_new_str_take (char *s)
{
  return cr_value_new_str_take_len (s, strlen (s));
}

CrValue *
cr_value_new_str_take_len (char  *s,
                           gsize  len)
{
  CrValue *v = value_alloc (CR_VALUE_STR);
  v->u.str.data = s;
  v->u.str.len = len;
  return value_charged (v);
}

CrValue *
cr_value_new_list (void)
{
  CrValue *v = value_alloc (CR_VALUE_LIST);
  v->u.seq.items = g_ptr_array_new_with_free_func (value_unref_notify);
  v->u.seq.is_size = FALSE;
  v->u.seq.n_charged = 0;
  v->u.seq.extra = NULL;
  return value_charged (v);
}

CrValue *
cr_value_new_list_take (GPtrArray *items)
{
  CrValue *v = value_alloc (CR_VALUE_LIST);
  g_ptr_array_set_free_func (items, value_unref_notify);
  v->u.seq.items = items;
  v->u.seq.is_size = FALSE;
  v->u.seq.n_charged = items->len;
  v->u.seq.extra = NULL;
  return value_charged (v);
}

CrValue *
cr_value_new_tuple_take (GPtrArray *items)
{
  CrValue *v = cr_value_new_list_take (items);
  v->kind = CR_VALUE_TUPLE;
  return v;
}

CrValue *
cr_value_new_tuple (CrValue *const *items,
                    guint           n)
{
  GPtrArray *a = g_ptr_array_new_full (n, value_unref_notify);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (a, cr_value_ref (items[i]));
  return cr_value_new_tuple_take (a);
}

CrValue *
cr_value_new_size (const gint64 *shape,
                   int           ndim)
{
  GPtrArray *a = g_ptr_array_new_full (ndim, value_unref_notify);
  for (int i = 0; i < ndim; i++)
    g_ptr_array_add (a, cr_value_new_int (shape[i]));
  CrValue *v = cr_value_new_tuple_take (a);
  v->u.seq.is_size = TRUE;
  return v;
}

CrValue *
cr_value_new_dict (void)
{
  CrValue *v = value_alloc (CR_VALUE_DICT);
  v->u.dict = cr_dict_data_new ();
  return value_charged (v);
}

CrValue *
cr_value_new_handle (CrValueKind kind,
                     gpointer    payload)
{
  CrValue *v = value_alloc (kind);
  v->u.tensor = payload;
  return v;
}

CrValue *
cr_value_new_native (const char   *name,
                     CrNativeFunc  fn,
                     CrValue      *self,
                     gpointer      data)
{
  CrValue *v = value_alloc (CR_VALUE_NATIVE);
  v->u.native.name = name;
  v->u.native.fn = fn;
  v->u.native.self = self ? cr_value_ref (self) : NULL;
  v->u.native.data = data;
  return v;
}

CrValue *
cr_value_new_object (const CrObjectType *type,
                     gpointer            data)
{
  CrValue *v = value_alloc (CR_VALUE_OBJECT);
  v->u.object.type = type;
  v->u.object.data = data;
  return v;
}

CrValue *
cr_value_new_module (const char *name)
{
  CrValue *v = value_alloc (CR_VALUE_MODULE);
  v->u.module.name = g_strdup (name);
  v->u.module.attrs = attrs_new ();
  return value_charged (v);
}

CrValue *
cr_value_new_class (const char *name,
                    CrValue    *base)
{
  CrValue *v = value_alloc (CR_VALUE_CLASS);
  v->u.cls.name = g_strdup (name);
  v->u.cls.base = base ? cr_value_ref (base) : NULL;
  v->u.cls.attrs = attrs_new ();
  return value_charged (v);
}

CrValue *
cr_value_new_slice (CrValue *start,
                    CrValue *stop,
                    CrValue *step)
{
  CrValue *v = value_alloc (CR_VALUE_SLICE);
  v->u.slice.start = cr_value_ref (start ? start : &none_value);
  v->u.slice.stop = cr_value_ref (stop ? stop : &none_value);
  v->u.slice.step = cr_value_ref (step ? step : &none_value);
  return v;
}

CrValue *
cr_value_new_range (gint64 start,
                    gint64 stop,
                    gint64 step)
{
  CrValue *v = value_alloc (CR_VALUE_RANGE);
  v->u.range.start = start;
  v->u.range.stop = stop;
  v->u.range.step = step;
  return v;
}

CrValue *
cr_value_ellipsis (void)
{
  return &ellipsis_value;
}

CrValue *
cr_value_not_implemented (void)
{
  return &not_implemented_value;
}

CrValue *
cr_value_ref (CrValue *v)
{
  if (v->ref_count > 0)
    v->ref_count++;
  return v;
}

static void
value_free (CrValue *v)
{
  /* Most values that die are numbers: no contents, nothing owned. */
  if (v->kind < CR_VALUE_STR)
    {
      account (-(gssize) CR_VALUE_BYTES);
      g_free (v);
      return;
    }
  account (-(gssize) (CR_VALUE_BYTES + value_owned_bytes (v)));
  switch (v->kind)
    {
    case CR_VALUE_STR:
      g_free (v->u.str.data);
      break;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      g_ptr_array_unref (v->u.seq.items);
      cr_object_extra_free (v->u.seq.extra);
      break;
    case CR_VALUE_DICT:
      cr_dict_data_free (v->u.dict);
      break;
    case CR_VALUE_SLICE:
      cr_value_unref (v->u.slice.start);
      cr_value_unref (v->u.slice.stop);
      cr_value_unref (v->u.slice.step);
      break;
    case CR_VALUE_FUNCTION:
      cr_function_free (v->u.function);
      break;
    case CR_VALUE_NATIVE:
      cr_value_unref (v->u.native.self);
      break;
    case CR_VALUE_BOUND_METHOD:
      cr_value_unref (v->u.bound.func);
      cr_value_unref (v->u.bound.self);
      break;
    case CR_VALUE_CLASS:
      g_free (v->u.cls.name);
      cr_value_unref (v->u.cls.base);
      g_hash_table_unref (v->u.cls.attrs);
      break;
    case CR_VALUE_INSTANCE:
      if (v->u.instance.order)
        g_ptr_array_unref (v->u.instance.order);
      cr_value_unref (v->u.instance.dict);
      g_hash_table_unref (v->u.instance.attrs);
      cr_value_unref (v->u.instance.cls);
      break;
    case CR_VALUE_MODULE:
      g_free (v->u.module.name);
      g_hash_table_unref (v->u.module.attrs);
      break;
    case CR_VALUE_TENSOR:
      cr_binding.tensor_slots->free_payload (v);
      break;
    case CR_VALUE_OBJECT:
      if (v->u.object.type->destroy)
        v->u.object.type->destroy (v->u.object.data);
      break;
    default:
      break;
    }
  g_free (v);
}

/* Freeing a value drops its items, which may free theirs: a list nested a
 * million deep would recurse a million times. Values that die while another
 * is being freed are queued and freed by the outermost call, iteratively. */
static __thread GPtrArray *dying __attribute__ ((tls_model ("initial-exec")));
static __thread gboolean   freeing __attribute__ ((tls_model ("initial-exec")));

void
cr_value_unref (CrValue *v)
{
  if (v == NULL || v->ref_count < 0)
    return;
  if (--v->ref_count != 0)
    return;
  if (freeing)
    {
      if (!dying)
        dying = g_ptr_array_new ();
      g_ptr_array_add (dying, v);
      return;
    }
  freeing = TRUE;
  value_free (v);
  while (dying && dying->len > 0)
    {
      CrValue *next = g_ptr_array_steal_index_fast (dying, dying->len - 1);
      value_free (next);
    }
  /* A thread-local array outlives nothing: the window's worker threads end,
   * and a kept array would be lost with each of them. */
  g_clear_pointer (&dying, g_ptr_array_unref);
  freeing = FALSE;
}

/* ---- containers ------------------------------------------------------------ */

void
cr_list_append (CrValue *list,
                CrValue *item)
{
  g_return_if_fail (list->kind == CR_VALUE_LIST || list->kind == CR_VALUE_TUPLE);
  g_ptr_array_add (list->u.seq.items, cr_value_ref (item));
  cr_seq_account (list);
}

guint
cr_seq_len (CrValue *seq)
{
  g_return_val_if_fail (seq->kind == CR_VALUE_LIST || seq->kind == CR_VALUE_TUPLE, 0);
  return seq->u.seq.items->len;
}

CrValue *
cr_seq_get (CrValue *seq,
            guint    i)
{
  g_return_val_if_fail (seq->kind == CR_VALUE_LIST || seq->kind == CR_VALUE_TUPLE, NULL);
  g_return_val_if_fail (i < seq->u.seq.items->len, NULL);
  return g_ptr_array_index (seq->u.seq.items, i);
}

static GHashTable *
members_of (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_MODULE:   return v->u.module.attrs;
    case CR_VALUE_CLASS:    return v->u.cls.attrs;
    case CR_VALUE_INSTANCE: return v->u.instance.attrs;
    default:                return NULL;
    }
}

void
cr_value_set_member (CrValue    *module_or_class,
                     const char *name,
                     CrValue    *value)
{
  GHashTable *attrs = members_of (module_or_class);
  g_return_if_fail (attrs != NULL);
  g_hash_table_insert (attrs, g_strdup (name), cr_value_ref (value));
}

CrValue *
cr_value_get_member (CrValue    *module_or_class,
                     const char *name)
{
  GHashTable *attrs = members_of (module_or_class);
  g_return_val_if_fail (attrs != NULL, NULL);
  return g_hash_table_lookup (attrs, name);
}

CrValue *
cr_class_lookup (CrValue    *cls,
                 const char *name)
{
  for (int depth = 0; cls != NULL && depth < 64; cls = cls->u.cls.base, depth++)
    {
      CrValue *v = g_hash_table_lookup (cls->u.cls.attrs, name);
      if (v)
        return v;
    }
  return NULL;
}

gboolean
cr_class_is_subclass (CrValue *cls,
                      CrValue *base)
{
  for (int depth = 0; cls != NULL && depth < 64; cls = cls->u.cls.base, depth++)
    if (cls == base)
      return TRUE;
  return FALSE;
}

CrObjectExtra **
cr_value_extra_slot (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_LIST:
      return &v->u.seq.extra;
    case CR_VALUE_TUPLE:
      return v->u.seq.is_size ? NULL : &v->u.seq.extra;
    case CR_VALUE_DICT:
      return cr_dict_data_extra_slot (v->u.dict);
    default:
      return NULL;
    }
}

CrValue *
cr_instance_method (CrValue    *instance,
                    const char *name)
{
  if (instance->kind != CR_VALUE_INSTANCE)
    return NULL;
  return cr_class_lookup (instance->u.instance.cls, name);
}

/* ---- ranges and slices -------------------------------------------------------- */

gint64
cr_range_len (CrValue *r)
{
  gint64 start = r->u.range.start, stop = r->u.range.stop, step = r->u.range.step;
  guint64 n;
  /* In unsigned arithmetic: range(-2**63, 2**63 - 1) spans more than an
   * int64 holds. A length past int64 (Python's OverflowError in len()) is
   * clamped: nothing iterates that far. */
  if (step > 0 && start < stop)
    n = ((guint64) stop - (guint64) start - 1) / (guint64) step + 1;
  else if (step < 0 && start > stop)
    n = ((guint64) start - (guint64) stop - 1) / ((guint64) 0 - (guint64) step) + 1;
  else
    return 0;
  return (gint64) MIN (n, (guint64) G_MAXINT64);
}

gboolean
cr_value_as_index (CrValue *v,
                   gint64  *out)
{
  switch (v->kind)
    {
    case CR_VALUE_INT:
      *out = v->u.i;
      return TRUE;
    case CR_VALUE_BOOL:
      *out = v->u.b;
      return TRUE;
    case CR_VALUE_TENSOR:
      return cr_binding.tensor_slots->as_index (v, out);
    default:
      return FALSE;
    }
}

static gboolean
slice_part (CrValue  *v,
            gint64   *out,
            GError  **error)
{
  if (cr_value_as_index (v, out))
    return TRUE;
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "slice indices must be integers or None or have an __index__ method");
  return FALSE;
}

gboolean
cr_slice_indices (CrValue  *slice,
                  gint64    length,
                  gint64   *out_start,
                  gint64   *out_stop,
                  gint64   *out_step,
                  gint64   *out_slicelength,
                  GError  **error)
{
  gint64 start, stop, step = 1;
  if (slice->u.slice.step->kind != CR_VALUE_NONE)
    {
      if (!slice_part (slice->u.slice.step, &step, error))
        return FALSE;
      if (step == 0)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                               "slice step cannot be zero");
          return FALSE;
        }
    }
  gint64 lower = step < 0 ? -1 : 0;
  gint64 upper = step < 0 ? length - 1 : length;

  if (slice->u.slice.start->kind == CR_VALUE_NONE)
    start = step < 0 ? upper : lower;
  else
    {
      if (!slice_part (slice->u.slice.start, &start, error))
        return FALSE;
      if (start < 0)
        {
          start += length;
          if (start < lower)
            start = lower;
        }
      else if (start > upper)
        start = upper;
    }
  if (slice->u.slice.stop->kind == CR_VALUE_NONE)
    stop = step < 0 ? lower : upper;
  else
    {
      if (!slice_part (slice->u.slice.stop, &stop, error))
        return FALSE;
      if (stop < 0)
        {
          stop += length;
          if (stop < lower)
            stop = lower;
        }
      else if (stop > upper)
        stop = upper;
    }
  gint64 n = 0;
  if (step > 0 && start < stop)
    n = (stop - start - 1) / step + 1;
  else if (step < 0 && stop < start)
    n = (start - stop - 1) / (-step) + 1;
  *out_start = start;
  *out_stop = stop;
  *out_step = step;
  *out_slicelength = n;
  return TRUE;
}

gsize
cr_str_char_len (CrValue *str)
{
  const char *s = str->u.str.data;
  gsize n = 0;
  for (gsize i = 0; i < str->u.str.len; i++)
    if (((guchar) s[i] & 0xc0) != 0x80)
      n++;
  return n;
}

/* ---- the seq view object ------------------------------------------------------- */

static void
seq_view_destroy (gpointer data)
{
  CrSeqView *view = data;
  cr_value_unref (view->list);
  cr_value_unref (view->dict);
  g_free (view);
}

const CrObjectType cr_seq_view_type = {
  .name = "iterator",
  .destroy = seq_view_destroy,
};

CrValue *
cr_seq_view_new (const char *type_name,
                 gboolean    wrapped,
                 CrValue    *list)
{
  CrSeqView *view = g_new0 (CrSeqView, 1);
  view->type_name = type_name;
  view->wrapped = wrapped;
  view->list = list;
  return cr_value_new_object (&cr_seq_view_type, view);
}

CrValue *
cr_seq_view_new_dict (CrValue *dict,
                      int      part)
{
  CrSeqView *view = g_new0 (CrSeqView, 1);
  view->type_name = part == 0 ? "dict_keys" : part == 1 ? "dict_values" : "dict_items";
  view->wrapped = TRUE;
  view->dict = cr_value_ref (dict);
  view->dict_part = part;
  return cr_value_new_object (&cr_seq_view_type, view);
}

CrValue *
cr_seq_view_items (CrValue *v)
{
  CrSeqView *view = v->u.object.data;
  if (view->list && view->pos > 0)
    {
      /* An iterator: what it has left. */
      GPtrArray *all = view->list->u.seq.items;
      GPtrArray *rest = g_ptr_array_new_full (all->len - MIN (view->pos, all->len), NULL);
      for (guint i = view->pos; i < all->len; i++)
        g_ptr_array_add (rest, cr_value_ref (all->pdata[i]));
      return cr_value_new_list_take (rest);
    }
  if (view->list)
    return cr_value_ref (view->list);
  guint n = cr_dict_len (view->dict);
  GPtrArray *items = g_ptr_array_new_full (n, NULL);
  for (guint i = 0; i < n; i++)
    {
      CrValue *k = cr_dict_key_at (view->dict, i), *val = cr_dict_value_at (view->dict, i);
      if (view->dict_part == 0)
        g_ptr_array_add (items, cr_value_ref (k));
      else if (view->dict_part == 1)
        g_ptr_array_add (items, cr_value_ref (val));
      else
        {
          CrValue *pair[2] = { k, val };
          g_ptr_array_add (items, cr_value_new_tuple (pair, 2));
        }
    }
  return cr_value_new_list_take (items);
}

/* ---- inspection ---------------------------------------------------------------- */

const char *
cr_value_type_name (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_NONE:         return "NoneType";
    case CR_VALUE_BOOL:         return "bool";
    case CR_VALUE_INT:          return "int";
    case CR_VALUE_FLOAT:        return "float";
    case CR_VALUE_STR:          return "str";
    case CR_VALUE_LIST:         return "list";
    case CR_VALUE_TUPLE:        return v->u.seq.is_size ? "torch.Size" : "tuple";
    case CR_VALUE_DICT:         return "dict";
    case CR_VALUE_SLICE:        return "slice";
    case CR_VALUE_RANGE:        return "range";
    case CR_VALUE_ELLIPSIS:     return "ellipsis";
    case CR_VALUE_FUNCTION:     return "function";
    case CR_VALUE_NATIVE:       return "builtin_function_or_method";
    case CR_VALUE_BOUND_METHOD: return "method";
    case CR_VALUE_CLASS:        return "type";
    case CR_VALUE_INSTANCE:     return v->u.instance.cls->u.cls.name;
    case CR_VALUE_MODULE:       return "module";
    case CR_VALUE_TENSOR:
      {
        CrValue *cls = cr_object_script_class (v);   /* nn.Parameter */
        return cls ? cls->u.cls.name : cr_binding.tensor_slots->name;
      }
    case CR_VALUE_OBJECT:
      if (v->u.object.type == &cr_seq_view_type)
        return ((CrSeqView *) v->u.object.data)->type_name;
      if (v->u.object.type->type_name)
        return v->u.object.type->type_name (v);
      return v->u.object.type->name;
    default:
      return "object";
    }
}

gboolean
cr_value_is_number (CrValue *v)
{
  return v->kind == CR_VALUE_BOOL || v->kind == CR_VALUE_INT || v->kind == CR_VALUE_FLOAT;
}

gboolean
cr_value_truthy (CrInterp  *interp,
                 CrValue   *v,
                 gboolean  *out,
                 GError   **error)
{
  switch (v->kind)
    {
    case CR_VALUE_NONE:   *out = FALSE; return TRUE;
    case CR_VALUE_BOOL:   *out = v->u.b; return TRUE;
    case CR_VALUE_INT:    *out = v->u.i != 0; return TRUE;
    case CR_VALUE_FLOAT:  *out = v->u.f != 0.0; return TRUE;
    case CR_VALUE_STR:    *out = v->u.str.len != 0; return TRUE;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:  *out = v->u.seq.items->len != 0; return TRUE;
    case CR_VALUE_DICT:   *out = cr_dict_len (v) != 0; return TRUE;
    case CR_VALUE_RANGE:  *out = cr_range_len (v) != 0; return TRUE;
    case CR_VALUE_TENSOR: return cr_binding.tensor_slots->truthy (v, out, error);
    case CR_VALUE_OBJECT:
      if (v->u.object.type == &cr_seq_view_type
          && ((CrSeqView *) v->u.object.data)->wrapped)
        {
          CrSeqView *view = v->u.object.data;
          *out = (view->dict ? cr_dict_len (view->dict) : cr_seq_len (view->list)) != 0;
          return TRUE;
        }
      *out = TRUE;
      return TRUE;
    case CR_VALUE_INSTANCE:
      if (interp)
        {
          CrValue *m = cr_instance_method (v, "__bool__");
          gboolean is_len = FALSE;
          if (!m)
            {
              m = cr_instance_method (v, "__len__");
              is_len = TRUE;
            }
          if (m)
            {
              CrValue *r = cr_interp_call_method (interp, v, m, NULL, 0, error);
              if (!r)
                return FALSE;
              gboolean ok = TRUE;
              if (!is_len && r->kind != CR_VALUE_BOOL)
                {
                  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                               "__bool__ should return bool, returned %s", cr_value_type_name (r));
                  ok = FALSE;
                }
              else if (is_len && r->kind != CR_VALUE_INT)
                {
                  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                               "'%s' object cannot be interpreted as an integer",
                               cr_value_type_name (r));
                  ok = FALSE;
                }
              else
                *out = is_len ? r->u.i != 0 : r->u.b;
              cr_value_unref (r);
              return ok;
            }
        }
      *out = TRUE;
      return TRUE;
    default:
      *out = TRUE;
      return TRUE;
    }
}

static gboolean
number_value (CrValue *v,
              double  *f,
              gint64  *i,
              gboolean *is_int)
{
  switch (v->kind)
    {
    case CR_VALUE_BOOL:  *i = v->u.b; *is_int = TRUE; *f = (double) *i; return TRUE;
    case CR_VALUE_INT:   *i = v->u.i; *is_int = TRUE; *f = (double) *i; return TRUE;
    case CR_VALUE_FLOAT: *f = v->u.f; *is_int = FALSE; return TRUE;
    default:             return FALSE;
    }
}

/* An exact comparison of an int with a float, as Python does. */
static int
compare_int_float (gint64 i,
                   double f)
{
  if (isnan (f))
    return 2;   /* unordered */
  if (f >= 9.3e18)
    return -1;
  if (f <= -9.3e18)
    return 1;
  double fl = floor (f);
  gint64 fi = (gint64) fl;
  if (i < fi)
    return -1;
  if (i > fi)
    return 1;
  return f > fl ? -1 : 0;
}

static gboolean value_equal_depth (CrValue *a, CrValue *b, int depth);

static gboolean
seq_equal (CrValue *a,
           CrValue *b,
           int      depth)
{
  GPtrArray *x = a->u.seq.items, *y = b->u.seq.items;
  if (x->len != y->len)
    return FALSE;
  for (guint i = 0; i < x->len; i++)
    if (x->pdata[i] != y->pdata[i] && !value_equal_depth (x->pdata[i], y->pdata[i], depth + 1))
      return FALSE;
  return TRUE;
}

static gboolean
value_equal_depth (CrValue *a,
                   CrValue *b,
                   int      depth)
{
  if (depth > 2000 || cr_stack_guard_exhausted ())   /* CPython would raise RecursionError */
    return FALSE;
  double fa, fb;
  gint64 ia, ib;
  gboolean a_int, b_int;
  if (number_value (a, &fa, &ia, &a_int))
    {
      if (!number_value (b, &fb, &ib, &b_int))
        return FALSE;
      if (a_int && b_int)
        return ia == ib;
      if (a_int)
        return compare_int_float (ia, fb) == 0;
      if (b_int)
        return compare_int_float (ib, fa) == 0;
      return fa == fb;
    }
  switch (a->kind)
    {
    case CR_VALUE_NONE:
    case CR_VALUE_ELLIPSIS:
      return b->kind == a->kind;
    case CR_VALUE_STR:
      return b->kind == CR_VALUE_STR && a->u.str.len == b->u.str.len
             && memcmp (a->u.str.data, b->u.str.data, a->u.str.len) == 0;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      return b->kind == a->kind && seq_equal (a, b, depth);
    case CR_VALUE_DICT:
      {
        if (b->kind != CR_VALUE_DICT || cr_dict_len (a) != cr_dict_len (b))
          return FALSE;
        for (guint i = 0; i < cr_dict_len (a); i++)
          {
            CrValue *other = cr_dict_get (b, cr_dict_key_at (a, i), NULL);
            CrValue *mine = cr_dict_value_at (a, i);
            if (!other || (other != mine && !value_equal_depth (mine, other, depth + 1)))
              return FALSE;
          }
        return TRUE;
      }
    case CR_VALUE_SLICE:
      return b->kind == CR_VALUE_SLICE
             && value_equal_depth (a->u.slice.start, b->u.slice.start, depth + 1)
             && value_equal_depth (a->u.slice.stop, b->u.slice.stop, depth + 1)
             && value_equal_depth (a->u.slice.step, b->u.slice.step, depth + 1);
    case CR_VALUE_RANGE:
      {
        if (b->kind != CR_VALUE_RANGE)
          return FALSE;
        gint64 n = cr_range_len (a);
        if (n != cr_range_len (b))
          return FALSE;
        if (n == 0)
          return TRUE;
        if (a->u.range.start != b->u.range.start)
          return FALSE;
        return n == 1 || a->u.range.step == b->u.range.step;
      }
    case CR_VALUE_TENSOR:
      return b->kind == CR_VALUE_TENSOR
             && cr_binding.tensor_slots->identity (a) == cr_binding.tensor_slots->identity (b);
    case CR_VALUE_NATIVE:
      return b->kind == CR_VALUE_NATIVE && a->u.native.fn == b->u.native.fn
             && a->u.native.self == b->u.native.self && a->u.native.data == b->u.native.data;
    case CR_VALUE_BOUND_METHOD:
      return b->kind == CR_VALUE_BOUND_METHOD && a->u.bound.func == b->u.bound.func
             && a->u.bound.self == b->u.bound.self;
    case CR_VALUE_OBJECT:
      if (b->kind != CR_VALUE_OBJECT || a->u.object.type != b->u.object.type)
        return FALSE;
      if (a->u.object.type->equal)
        return a->u.object.type->equal (a, b);
      return a->u.object.data == b->u.object.data;
    default:
      return a == b;
    }
}

gboolean
cr_value_equal (CrValue *a,
                CrValue *b)
{
  return value_equal_depth (a, b, 0);
}

/* ---- conversions ----------------------------------------------------------------- */

gboolean
cr_value_to_double (CrValue  *v,
                    double   *out,
                    GError  **error)
{
  switch (v->kind)
    {
    case CR_VALUE_BOOL:   *out = v->u.b; return TRUE;
    case CR_VALUE_INT:    *out = (double) v->u.i; return TRUE;
    case CR_VALUE_FLOAT:  *out = v->u.f; return TRUE;
    case CR_VALUE_TENSOR: return cr_binding.tensor_slots->to_double (v, out, error);
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "must be real number, not %s", cr_value_type_name (v));
      return FALSE;
    }
}

gboolean
cr_value_to_int (CrValue  *v,
                 gint64   *out,
                 GError  **error)
{
  switch (v->kind)
    {
    case CR_VALUE_BOOL: *out = v->u.b; return TRUE;
    case CR_VALUE_INT:  *out = v->u.i; return TRUE;
    case CR_VALUE_TENSOR:
      {
        GError *local = NULL;
        if (cr_binding.tensor_slots->to_int (v, out, &local))
          return TRUE;
        if (local)
          {
            g_propagate_error (error, local);
            return FALSE;
          }
      }
      G_GNUC_FALLTHROUGH;
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "'%s' object cannot be interpreted as an integer", cr_value_type_name (v));
      return FALSE;
    }
}

gboolean
cr_value_to_bool (CrValue  *v,
                  gboolean *out,
                  GError  **error)
{
  switch (v->kind)
    {
    case CR_VALUE_BOOL: *out = v->u.b; return TRUE;
    case CR_VALUE_INT:  *out = v->u.i != 0; return TRUE;
    case CR_VALUE_TENSOR:
      return cr_binding.tensor_slots->truthy (v, out, error);
    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "expected bool, not %s", cr_value_type_name (v));
      return FALSE;
    }
}

gboolean
cr_value_to_shape (CrValue *const *args,
                   guint           n_args,
                   gint64         *out_shape,
                   int            *out_ndim,
                   GError        **error)
{
  CrValue *const *items = args;
  guint n = n_args;
  if (n_args == 1 && (args[0]->kind == CR_VALUE_TUPLE || args[0]->kind == CR_VALUE_LIST))
    {
      items = (CrValue *const *) args[0]->u.seq.items->pdata;
      n = args[0]->u.seq.items->len;
    }
  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Chainrule supports at most %d dimensions, got %u", CR_MAX_DIMS, n);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      gint64 d;
      if (items[i]->kind == CR_VALUE_BOOL || !cr_value_as_index (items[i], &d))
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "size must be tuple of ints, but got %s at pos %u",
                       cr_value_type_name (items[i]), i);
          return FALSE;
        }
      out_shape[i] = d;
    }
  *out_ndim = (int) n;
  return TRUE;
}
