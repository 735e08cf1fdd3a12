/* cr-iterators.c — the builtins that return iterators, lazy as Python's:
 * zip, map, filter, enumerate, reversed, iter (and its two-argument
 * form), next. Real code relies on it: zip over an endless generator, a
 * map whose function has side effects, iter(list) seeing items appended
 * later, `next(x for x in xs if pred(x))` stopping at the first match.
 *
 * Each is a native object whose type has a next hook (cr-value.h), drawing
 * from one CrIter per argument; its repr is Python's ("<zip object at
 * 0x...>"). */
#include "cr-gen-object.h"
#include "cr-interp-private.h"
#include "cr-native.h"

#include <string.h>

typedef enum {
  LAZY_ITER,        /* iter(x): x's items */
  LAZY_ZIP,
  LAZY_MAP,
  LAZY_FILTER,
  LAZY_ENUMERATE,
  LAZY_REVERSED,    /* a list, tuple, str or range, by index from the end */
  LAZY_REVERSED_SEQ,/* an object with __len__ and __getitem__, the same way */
  LAZY_GETITEM,     /* obj[0], obj[1], ... until IndexError */
  LAZY_CALLABLE,    /* iter(f, sentinel) */
} LazyKind;

typedef struct {
  LazyKind  kind;
  CrIter   *iters;      /* n_iters, each initialised */
  guint     n_iters;
  gboolean  done;       /* exhausted: Python's zip and map stay exhausted */
  gboolean  strict;     /* zip(strict=True) */
  CrValue  *func;       /* owned: map's, filter's (None: truth), iter()'s callable */
  CrValue  *sentinel;   /* owned: iter(f, sentinel) */
  CrValue  *seq;        /* owned: what reversed() walks */
  gint64    index;      /* enumerate's count; reversed's next index */
} Lazy;

static void
lazy_destroy (gpointer data)
{
  Lazy *lazy = data;
  for (guint i = 0; i < lazy->n_iters; i++)
    cr_iter_clear (&lazy->iters[i]);
  g_free (lazy->iters);
  cr_value_unref (lazy->func);
  cr_value_unref (lazy->sentinel);
  cr_value_unref (lazy->seq);
  g_free (lazy);
}

/* zip(strict=True) when iterator i ran out: Python's ValueError, unless
 * every one ran out together. */
static int
zip_strict_end (CrInterp  *self,
                Lazy      *lazy,
                guint      i,
                GError   **error)
{
  if (i > 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "zip() argument %u is shorter than argument%s%u",
                           i + 1, i == 1 ? " " : "s 1-", i);
      return -1;
    }
  for (guint j = 1; j < lazy->n_iters; j++)
    {
      CrValue *item = NULL;
      int r = cr_iter_next (self, &lazy->iters[j], &item, error);
      if (r < 0)
        return -1;
      if (r == 1)
        {
          cr_value_unref (item);
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "zip() argument %u is longer than argument%s%u",
                               j + 1, j == 1 ? " " : "s 1-", j);
          return -1;
        }
    }
  return 0;
}

/* One item from each iterator: a new array of n_iters refs, or NULL
 * (*status 0: one ran out; -1: an error). */
static CrValue **
next_row (CrInterp  *self,
          Lazy      *lazy,
          int       *status,
          GError   **error)
{
  CrValue **row = g_new0 (CrValue *, lazy->n_iters + 1);
  for (guint i = 0; i < lazy->n_iters; i++)
    {
      int r = cr_iter_next (self, &lazy->iters[i], &row[i], error);
      if (r == 1)
        continue;
      if (r == 0 && lazy->strict)
        r = zip_strict_end (self, lazy, i, error);
      for (guint k = 0; k < i; k++)
        cr_value_unref (row[k]);
      g_free (row);
      *status = r;
      return NULL;
    }
  *status = 1;
  return row;
}

static void
row_free (CrValue **row,
          guint     n)
{
  for (guint i = 0; i < n; i++)
    cr_value_unref (row[i]);
  g_free (row);
}

static int
reversed_next (CrInterp  *self,
               Lazy      *lazy,
               CrValue  **out,
               GError   **error)
{
  CrValue *seq = lazy->seq;
  switch (seq->kind)
    {
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      /* A list that shrank under the iterator ends it, as in Python. */
      if (lazy->index < 0 || lazy->index >= (gint64) seq->u.seq.items->len)
        return 0;
      *out = cr_value_ref (seq->u.seq.items->pdata[lazy->index--]);
      return 1;
    case CR_VALUE_RANGE:
      if (lazy->index < 0)
        return 0;
      *out = cr_value_new_int ((gint64) ((guint64) seq->u.range.start
                                         + (guint64) lazy->index-- * (guint64) seq->u.range.step));
      return 1;
    default:
      {
        /* A str: code points, from the end. */
        const char *data = seq->u.str.data;
        if (lazy->index <= 0)
          return 0;
        const char *end = data + lazy->index;
        const char *start = g_utf8_find_prev_char (data, end);
        if (!start)
          start = data;
        *out = cr_value_new_str_len (start, end - start);
        lazy->index = start - data;
        return 1;
      }
    }
}

static int
lazy_next (CrInterp  *self,
           CrValue   *value,
           CrValue  **out,
           GError   **error)
{
  Lazy *lazy = value->u.object.data;
  int status = 0;

  if (lazy->done)
    return 0;
  switch (lazy->kind)
    {
    case LAZY_ITER:
      status = cr_iter_next (self, &lazy->iters[0], out, error);
      break;
    case LAZY_ZIP:
      {
        CrValue **row = next_row (self, lazy, &status, error);
        if (row)
          {
            *out = cr_value_new_tuple (row, lazy->n_iters);
            row_free (row, lazy->n_iters);
          }
        break;
      }
    case LAZY_MAP:
      {
        CrValue **row = next_row (self, lazy, &status, error);
        if (row)
          {
            *out = cr_interp_call (self, lazy->func, row, lazy->n_iters, NULL, 0, error);
            row_free (row, lazy->n_iters);
            status = *out ? 1 : -1;
          }
        break;
      }
    case LAZY_FILTER:
      {
        CrValue *item = NULL;
        gsize n_seen = 0;
        while ((status = cr_iter_next (self, &lazy->iters[0], &item, error)) == 1)
          {
            /* A filter that drops a billion items still stops for a timeout. */
            if (G_UNLIKELY (!cr_value_poll (self, ++n_seen, 0, error)))
              {
                cr_value_unref (item);
                status = -1;
                break;
              }
            CrValue *test = lazy->func->kind == CR_VALUE_NONE
                            ? cr_value_ref (item)
                            : cr_interp_call (self, lazy->func, &item, 1, NULL, 0, error);
            gboolean keep = FALSE;
            gboolean ok = test && cr_value_truthy (self, test, &keep, error);
            cr_value_unref (test);
            if (!ok)
              {
                cr_value_unref (item);
                status = -1;
                break;
              }
            if (keep)
              {
                *out = item;
                break;
              }
            cr_value_unref (item);
          }
        break;
      }
    case LAZY_ENUMERATE:
      {
        CrValue *item = NULL;
        status = cr_iter_next (self, &lazy->iters[0], &item, error);
        if (status == 1)
          {
            CrValue *pair[2] = { cr_value_new_int (lazy->index++), item };
            *out = cr_value_new_tuple (pair, 2);
            cr_value_unref (pair[0]);
            cr_value_unref (item);
          }
        break;
      }
    case LAZY_REVERSED:
      status = reversed_next (self, lazy, out, error);
      break;
    case LAZY_GETITEM:
      {
        CrValue *index = cr_value_new_int (lazy->index++);
        *out = cr_interp_getitem (self, lazy->seq, index, error);
        cr_value_unref (index);
        status = *out ? 1 : -1;
        if (!*out && error && *error && (*error)->domain == CR_LANG_ERROR
            && ((*error)->code == CR_EXC_INDEX_ERROR || (*error)->code == CR_EXC_STOP_ITERATION))
          {
            g_clear_error (error);
            cr_interp_forget_error (self);
            status = 0;
          }
        break;
      }
    case LAZY_REVERSED_SEQ:
      {
        if (lazy->index < 0)
          break;
        CrValue *index = cr_value_new_int (lazy->index--);
        *out = cr_interp_getitem (self, lazy->seq, index, error);
        cr_value_unref (index);
        status = *out ? 1 : -1;
        break;
      }
    case LAZY_CALLABLE:
      {
        CrValue *item = cr_interp_call (self, lazy->func, NULL, 0, NULL, 0, error);
        if (!item)
          {
            /* The callable's StopIteration ends the iterator. */
            if (error && *error && (*error)->domain == CR_LANG_ERROR
                && (*error)->code == CR_EXC_STOP_ITERATION)
              {
                g_clear_error (error);
                cr_interp_forget_error (self);
                status = 0;
              }
            else
              status = -1;
            break;
          }
        CrValue *same = cr_compare_op (self, CR_CMP_EQ, item, lazy->sentinel, error);
        gboolean equal = FALSE;
        gboolean ok = same && cr_value_truthy (self, same, &equal, error);
        cr_value_unref (same);
        if (!ok || equal)
          {
            cr_value_unref (item);
            status = ok ? 0 : -1;
            break;
          }
        *out = item;
        status = 1;
        break;
      }
    }
  if (status == 0)
    lazy->done = TRUE;
  return status;
}

#define LAZY_TYPE(ident, type_name) \
  static const CrObjectType ident = { \
    .name = type_name, \
    .destroy = lazy_destroy, \
    .next = lazy_next, \
  }

LAZY_TYPE (zip_type, "zip");
LAZY_TYPE (map_type, "map");
LAZY_TYPE (filter_type, "filter");
LAZY_TYPE (enumerate_type, "enumerate");
LAZY_TYPE (reversed_type, "reversed");
LAZY_TYPE (list_reverseiterator_type, "list_reverseiterator");
LAZY_TYPE (range_iterator_type, "range_iterator");
LAZY_TYPE (list_iterator_type, "list_iterator");
LAZY_TYPE (tuple_iterator_type, "tuple_iterator");
LAZY_TYPE (str_iterator_type, "str_iterator");
LAZY_TYPE (str_ascii_iterator_type, "str_ascii_iterator");
LAZY_TYPE (dict_keyiterator_type, "dict_keyiterator");
LAZY_TYPE (dict_reversekeyiterator_type, "dict_reversekeyiterator");
LAZY_TYPE (callable_iterator_type, "callable_iterator");
LAZY_TYPE (iterator_type, "iterator");

/* A lazy iterator over the iterables (borrowed); NULL with the error of
 * the one that is not iterable. */
static CrValue *
lazy_new (CrInterp            *self,
          const CrObjectType  *type,
          LazyKind             kind,
          CrValue *const      *iterables,
          guint                n,
          GError             **error)
{
  Lazy *lazy = g_new0 (Lazy, 1);
  lazy->kind = kind;
  lazy->iters = g_new0 (CrIter, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      if (!cr_iter_init (self, &lazy->iters[i], iterables[i], error))
        {
          lazy_destroy (lazy);
          return NULL;
        }
      lazy->n_iters = i + 1;
    }
  return cr_value_new_object (type, lazy);
}

static inline Lazy *
lazy_of (CrValue *v)
{
  return v->u.object.data;
}

/* An iterator Python's iter() returns as is. */
static gboolean
is_iterator (CrValue *v)
{
  if (v->kind != CR_VALUE_OBJECT)
    return FALSE;
  if (v->u.object.type->next)
    return TRUE;
  return v->u.object.type == &cr_seq_view_type && !((CrSeqView *) v->u.object.data)->wrapped
         && ((CrSeqView *) v->u.object.data)->list != NULL;
}

static const CrObjectType *
iterator_type_for (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_LIST:
      return &list_iterator_type;
    case CR_VALUE_TUPLE:
    case CR_VALUE_TENSOR:
      return &tuple_iterator_type;
    case CR_VALUE_RANGE:
      return &range_iterator_type;
    case CR_VALUE_DICT:
      return &dict_keyiterator_type;
    case CR_VALUE_STR:
      for (gsize i = 0; i < v->u.str.len; i++)
        if ((guchar) v->u.str.data[i] >= 0x80)
          return &str_iterator_type;
      return &str_ascii_iterator_type;
    default:
      return &iterator_type;
    }
}

NATIVE (b_iter)
{
  if (!cr_builtin_no_kwargs ("iter", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("iter", n_args, 1, 2, error))
    return NULL;
  CrValue *v = args[0];
  if (n_args == 2)
    {
      gboolean callable = v->kind == CR_VALUE_FUNCTION || v->kind == CR_VALUE_NATIVE
                          || v->kind == CR_VALUE_BOUND_METHOD || v->kind == CR_VALUE_CLASS
                          || (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__call__"))
                          || (v->kind == CR_VALUE_OBJECT && v->u.object.type->call);
      if (!callable)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "iter(v, w): v must be callable");
          return NULL;
        }
      CrValue *it = lazy_new (interp, &callable_iterator_type, LAZY_CALLABLE, NULL, 0, error);
      lazy_of (it)->func = cr_value_ref (v);
      lazy_of (it)->sentinel = cr_value_ref (args[1]);
      return it;
    }
  if (is_iterator (v))
    return cr_value_ref (v);
  if (v->kind == CR_VALUE_INSTANCE && !cr_instance_method (v, "__iter__")
      && cr_instance_method (v, "__getitem__"))
    return cr_sequence_iterator_new (v);
  if (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__iter__"))
    {
      CrValue *r = cr_interp_call_method (interp, v, cr_instance_method (v, "__iter__"),
                                          NULL, 0, error);
      if (!r || is_iterator (r) || r->kind == CR_VALUE_INSTANCE)
        return r;
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "iter() returned non-iterator of type '%s'",
                           cr_value_type_name (r));
      cr_value_unref (r);
      return NULL;
    }
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_seq_view_type)
    {
      /* A dict view: its iterator sees the dict as it is now. */
      CrValue *list = cr_iter_to_list (interp, v, error);
      if (!list)
        return NULL;
      CrValue *it = lazy_new (interp, &iterator_type, LAZY_ITER, &list, 1, error);
      cr_value_unref (list);
      return it;
    }
  return lazy_new (interp, iterator_type_for (v), LAZY_ITER, &v, 1, error);
}

NATIVE (b_next)
{
  if (!cr_builtin_no_kwargs ("next", n_kwargs, kwargs, error))
    return NULL;
  if (n_args == 0 || n_args > 2)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "next expected at %s %d argument%s, got %u",
                           n_args == 0 ? "least" : "most", n_args == 0 ? 1 : 2,
                           n_args == 0 ? "" : "s", n_args);
      return NULL;
    }
  CrValue *v = args[0];
  CrValue *dflt = n_args == 2 ? args[1] : NULL;
  if (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__next__"))
    {
      GError *local = NULL;
      CrValue *r = cr_interp_call_method (interp, v, cr_instance_method (v, "__next__"),
                                          NULL, 0, &local);
      if (!r && dflt && local->domain == CR_LANG_ERROR && local->code == CR_EXC_STOP_ITERATION)
        {
          g_error_free (local);
          cr_interp_forget_error (interp);
          return cr_value_ref (dflt);
        }
      if (local)
        g_propagate_error (error, local);
      return r;
    }
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type->next)
    return cr_gen_object_builtin_next (interp, v, dflt, error);
  if (!is_iterator (v))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not an iterator",
                           cr_value_type_name (v));
      return NULL;
    }
  CrSeqView *view = v->u.object.data;
  if (view->pos < view->list->u.seq.items->len)
    return cr_value_ref (view->list->u.seq.items->pdata[view->pos++]);
  if (dflt)
    return cr_value_ref (dflt);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_STOP_ITERATION, "");
  return NULL;
}

NATIVE (b_zip)
{
  gboolean strict = FALSE;
  for (guint k = 0; k < n_kwargs; k++)
    {
      if (strcmp (kwargs[k].name, "strict") != 0)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "zip() got an unexpected keyword argument '%s'", kwargs[k].name);
          return NULL;
        }
      if (!cr_value_truthy (interp, kwargs[k].value, &strict, error))
        return NULL;
    }
  GError *local = NULL;
  CrValue *it = lazy_new (interp, &zip_type, LAZY_ZIP, args, n_args, &local);
  if (!it)
    {
      /* zip names the argument that is not iterable as Python does. */
      if (local->domain == CR_LANG_ERROR && local->code == CR_EXC_TYPE_ERROR
          && g_str_has_suffix (local->message, "is not iterable"))
        for (guint i = 0; i < n_args; i++)
          {
            CrIter probe;
            if (!cr_iter_init (interp, &probe, args[i], NULL))
              {
                g_clear_error (&local);
                cr_interp_set_error (&local, CR_EXC_TYPE_ERROR, "'%s' object is not iterable",
                                     cr_value_type_name (args[i]));
                break;
              }
            cr_iter_clear (&probe);
          }
      g_propagate_error (error, local);
      return NULL;
    }
  lazy_of (it)->strict = strict;
  if (n_args == 0)
    lazy_of (it)->done = TRUE;
  return it;
}

NATIVE (b_map)
{
  if (!cr_builtin_no_kwargs ("map", n_kwargs, kwargs, error))
    return NULL;
  if (n_args < 2)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "map() must have at least two arguments.");
      return NULL;
    }
  CrValue *it = lazy_new (interp, &map_type, LAZY_MAP, args + 1, n_args - 1, error);
  if (it)
    lazy_of (it)->func = cr_value_ref (args[0]);
  return it;
}

NATIVE (b_filter)
{
  if (!cr_builtin_no_kwargs ("filter", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("filter", n_args, 2, 2, error))
    return NULL;
  CrValue *it = lazy_new (interp, &filter_type, LAZY_FILTER, args + 1, 1, error);
  if (it)
    lazy_of (it)->func = cr_value_ref (args[0]);
  return it;
}

NATIVE (b_enumerate)
{
  CrValue *iterable = NULL, *start_v = NULL;
  if (!cr_args_parse ("enumerate", args, n_args, kwargs, n_kwargs, error, "iterable", &iterable,
                      "|start", &start_v, NULL))
    return NULL;
  gint64 start = 0;
  if (start_v && !cr_builtin_int_arg (start_v, &start, error))
    return NULL;
  CrValue *it = lazy_new (interp, &enumerate_type, LAZY_ENUMERATE, &iterable, 1, error);
  if (it)
    lazy_of (it)->index = start;
  return it;
}

/* Tensor.__reversed__: the tensor itself when 0-d, else t.flip(0), a
 * tensor (with its FlipBackward0) rather than an iterator. */
static CrValue *
tensor_reversed (CrInterp  *interp,
                 CrValue   *t,
                 GError   **error)
{
  CrValue *dim = cr_interp_getattr (interp, t, "dim", error);
  CrValue *n = dim ? cr_interp_call (interp, dim, NULL, 0, NULL, 0, error) : NULL;
  cr_value_unref (dim);
  if (!n)
    return NULL;
  gboolean scalar = n->kind == CR_VALUE_INT && n->u.i == 0;
  cr_value_unref (n);
  if (scalar)
    return cr_value_ref (t);
  CrValue *flip = cr_interp_getattr (interp, t, "flip", error);
  if (!flip)
    return NULL;
  CrValue *zero = cr_value_new_int (0);
  CrValue *r = cr_interp_call (interp, flip, &zero, 1, NULL, 0, error);
  cr_value_unref (zero);
  cr_value_unref (flip);
  return r;
}

NATIVE (b_reversed)
{
  if (!cr_builtin_no_kwargs ("reversed", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("reversed", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  const CrObjectType *type = NULL;
  gint64 start = 0;
  switch (v->kind)
    {
    case CR_VALUE_LIST:
      type = &list_reverseiterator_type;
      start = (gint64) v->u.seq.items->len - 1;
      break;
    case CR_VALUE_TUPLE:
      type = &reversed_type;
      start = (gint64) v->u.seq.items->len - 1;
      break;
    case CR_VALUE_RANGE:
      type = &range_iterator_type;
      start = cr_range_len (v) - 1;
      break;
    case CR_VALUE_STR:
      type = &reversed_type;
      start = (gint64) v->u.str.len;
      break;
    default:
      break;
    }
  if (type)
    {
      CrValue *it = lazy_new (interp, type, LAZY_REVERSED, NULL, 0, error);
      lazy_of (it)->seq = cr_value_ref (v);
      lazy_of (it)->index = start;
      return it;
    }
  if (v->kind == CR_VALUE_TENSOR)
    return tensor_reversed (interp, v, error);
  if (v->kind == CR_VALUE_INSTANCE)
    {
      /* Python's protocol: __reversed__, else __len__ and __getitem__
       * (`for layer in reversed(self.blocks)` over an nn.ModuleList). */
      CrValue *m = cr_instance_method (v, "__reversed__");
      if (m)
        return cr_interp_call_method (interp, v, m, NULL, 0, error);
      CrValue *len_m = cr_instance_method (v, "__len__");
      if (len_m && cr_instance_method (v, "__getitem__"))
        {
          CrValue *n = cr_interp_call_method (interp, v, len_m, NULL, 0, error);
          gint64 len = 0;
          gboolean ok = n && cr_builtin_int_arg (n, &len, error);
          cr_value_unref (n);
          if (!ok)
            return NULL;
          CrValue *it = lazy_new (interp, &reversed_type, LAZY_REVERSED_SEQ, NULL, 0, error);
          lazy_of (it)->seq = cr_value_ref (v);
          lazy_of (it)->index = len - 1;
          return it;
        }
    }
  /* A dict, a dict view: their items now, from the end. */
  if (!(v->kind == CR_VALUE_DICT
        || (v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_seq_view_type
            && ((CrSeqView *) v->u.object.data)->wrapped)))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not reversible",
                           cr_value_type_name (v));
      return NULL;
    }
  CrValue *list = cr_iter_to_list (interp, v, error);
  if (!list)
    return NULL;
  CrValue *it = lazy_new (interp, v->kind == CR_VALUE_DICT ? &dict_reversekeyiterator_type
                                                    : &reversed_type,
                          LAZY_REVERSED, NULL, 0, error);
  lazy_of (it)->seq = list;
  lazy_of (it)->index = (gint64) list->u.seq.items->len - 1;
  return it;
}

CrValue *
cr_sequence_iterator_new (CrValue *obj)
{
  Lazy *lazy = g_new0 (Lazy, 1);
  lazy->kind = LAZY_GETITEM;
  lazy->iters = g_new0 (CrIter, 1);
  lazy->seq = cr_value_ref (obj);
  return cr_value_new_object (&iterator_type, lazy);
}

void
cr_iterators_install (CrInterp *self)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
    { "iter", b_iter },
    { "next", b_next },
    { "zip", b_zip },
    { "map", b_map },
    { "filter", b_filter },
    { "enumerate", b_enumerate },
    { "reversed", b_reversed },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    g_hash_table_insert (self->builtins, g_strdup (natives[i].name),
                         cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL));
}
