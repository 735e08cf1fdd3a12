/* cr-builtins-iter.c — the builtins over iterables: min, max, sum, sorted,
 * reversed, enumerate, zip, map, filter, any, all, list, tuple, dict. The
 * iterator-like results (zip, map, ...) are made eagerly and shown as
 * Python shows them ("<zip object at 0x...>"). */
#include "cr-interp-private.h"

#include <string.h>

#define NATIVE_ARGS CrInterp *self, CrValue *bound, CrValue *const *args, guint n_args, \
                    const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error

/* ---- iterables ---------------------------------------------------------------------------------------- */

static CrValue *
iterable_arg (CrInterp  *self,
              CrValue   *v,
              GError   **error)
{
  return cr_iter_to_list (self, v, error);
}

static CrValue *
call_key (CrInterp  *self,
          CrValue   *key,
          CrValue   *item,
          GError   **error)
{
  if (!key || key->kind == CR_VALUE_NONE)
    return cr_value_ref (item);
  return cr_interp_call (self, key, &item, 1, NULL, 0, error);
}

static CrValue *
min_max (CrInterp       *self,
         gboolean        is_max,
         CrValue *const *args,
         guint           n_args,
         const CrKwarg  *kwargs,
         guint           n_kwargs,
         GError        **error)
{
  const char *fname = is_max ? "max" : "min";
  CrValue *key = NULL, *dflt = NULL;
  for (guint k = 0; k < n_kwargs; k++)
    {
      if (strcmp (kwargs[k].name, "key") == 0)
        key = kwargs[k].value;
      else if (strcmp (kwargs[k].name, "default") == 0)
        dflt = kwargs[k].value;
      else
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "%s() got an unexpected keyword argument '%s'", fname, kwargs[k].name);
          return NULL;
        }
    }
  if (n_args == 0)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s expected at least 1 argument, got 0", fname);
      return NULL;
    }
  CrValue *list;
  if (n_args == 1)
    {
      list = iterable_arg (self, args[0], error);
      if (!list)
        return NULL;
    }
  else
    {
      if (dflt)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "Cannot specify a default for %s() with multiple positional arguments",
                               fname);
          return NULL;
        }
      list = cr_value_new_tuple (args, n_args);
    }
  GPtrArray *items = list->u.seq.items;
  if (items->len == 0)
    {
      cr_value_unref (list);
      if (dflt)
        return cr_value_ref (dflt);
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "%s() arg is an empty sequence", fname);
      return NULL;
    }
  CrValue *best = items->pdata[0];
  CrValue *best_key = call_key (self, key, best, error);
  if (!best_key)
    {
      cr_value_unref (list);
      return NULL;
    }
  for (guint i = 1; i < items->len; i++)
    {
      CrValue *k = cr_value_poll (self, i, 0, error) ? call_key (self, key, items->pdata[i], error)
                                                      : NULL;
      if (!k)
        {
          cr_value_unref (best_key);
          cr_value_unref (list);
          return NULL;
        }
      int better = is_max ? cr_less_than (self, best_key, k, error)
                          : cr_less_than (self, k, best_key, error);
      if (better < 0)
        {
          cr_value_unref (k);
          cr_value_unref (best_key);
          cr_value_unref (list);
          return NULL;
        }
      if (better)
        {
          best = items->pdata[i];
          cr_value_unref (best_key);
          best_key = k;
        }
      else
        cr_value_unref (k);
    }
  cr_value_ref (best);
  cr_value_unref (best_key);
  cr_value_unref (list);
  return best;
}

static CrValue *
b_max (NATIVE_ARGS)
{
  return min_max (self, TRUE, args, n_args, kwargs, n_kwargs, error);
}

static CrValue *
b_min (NATIVE_ARGS)
{
  return min_max (self, FALSE, args, n_args, kwargs, n_kwargs, error);
}

static CrValue *
b_sum (NATIVE_ARGS)
{
  CrValue *it = NULL, *start = NULL;
  if (!cr_args_parse ("sum", args, n_args, kwargs, n_kwargs, error, "iterable", &it, "|start", &start,
                      NULL))
    return NULL;
  if (start && start->kind == CR_VALUE_STR)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "sum() can't sum strings [use ''.join(seq) instead]");
      return NULL;
    }
  /* One item at a time: sum(range(10**9)) holds no list of a billion ints. */
  CrIter iter;
  if (!cr_iter_init (self, &iter, it, error))
    return NULL;
  CrValue *acc = cr_value_ref (start ? start : cr_value_new_int (0));
  CrValue *item;
  int r;
  gsize n_added = 0;
  while ((r = cr_iter_next (self, &iter, &item, error)) == 1)
    {
      CrValue *next = NULL;
      if (G_LIKELY (cr_value_poll (self, ++n_added, 0, error)))
        next = cr_binary_op (self, CR_BINOP_ADD, acc, item, error);
      cr_value_unref (item);
      cr_value_unref (acc);
      acc = next;
      if (!acc)
        break;
    }
  cr_iter_clear (&iter);
  if (r < 0)
    g_clear_pointer (&acc, cr_value_unref);
  return acc;
}

typedef struct {
  CrInterp  *interp;
  CrValue  **keys;
  gboolean   reverse;
  GError    *error;
  gsize      n_compared;
} SortCtx;

static gint
sort_compare (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  SortCtx *ctx = data;
  if (ctx->error)
    return 0;
  /* Sorting a hundred million items takes a while: it can be cancelled. */
  if (G_UNLIKELY (!cr_value_poll (ctx->interp, ++ctx->n_compared, 0, &ctx->error)))
    return 0;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  CrValue *ka = ctx->keys[ia], *kb = ctx->keys[ib];
  /* Python sorts with < only, asking first whether the later item is
   * smaller (which decides the message of a failed comparison); reverse
   * keeps equal items in their order. */
  CrValue *x = ctx->reverse ? kb : ka, *y = ctx->reverse ? ka : kb;
  int gt = cr_less_than (ctx->interp, y, x, &ctx->error);
  if (gt < 0)
    return 0;
  if (gt)
    return 1;
  int lt = cr_less_than (ctx->interp, x, y, &ctx->error);
  if (lt < 0)
    return 0;
  return lt ? -1 : 0;
}

/* Sorts list's items in place. */
gboolean
cr_sort_list (CrInterp  *self,
              CrValue   *list,
              CrValue   *key,
              gboolean   reverse,
              GError   **error)
{
  GPtrArray *items = list->u.seq.items;
  guint n = items->len;
  if (n < 2)
    return TRUE;
  CrValue **keys = g_new0 (CrValue *, n);
  guint *order = g_new (guint, n);
  gboolean ok = TRUE;
  for (guint i = 0; i < n && ok; i++)
    {
      order[i] = i;
      keys[i] = cr_value_poll (self, i, 0, error) ? call_key (self, key, items->pdata[i], error)
                                                  : NULL;
      ok = keys[i] != NULL;
    }
  if (ok)
    {
      SortCtx ctx = { self, keys, reverse, NULL, 0 };
      g_qsort_with_data (order, n, sizeof (guint), sort_compare, &ctx);
      if (ctx.error)
        {
          g_propagate_error (error, ctx.error);
          ok = FALSE;
        }
      else
        {
          gpointer *sorted = g_new (gpointer, n);
          for (guint i = 0; i < n; i++)
            sorted[i] = items->pdata[order[i]];
          memcpy (items->pdata, sorted, sizeof (gpointer) * n);
          g_free (sorted);
        }
    }
  for (guint i = 0; i < n; i++)
    cr_value_unref (keys[i]);
  g_free (keys);
  g_free (order);
  return ok;
}

static CrValue *
b_sorted (NATIVE_ARGS)
{
  CrValue *it = NULL, *key = NULL, *reverse = NULL;
  if (!cr_args_parse ("sorted", args, n_args, kwargs, n_kwargs, error, "iterable", &it,
                      "|$key", &key, "$reverse", &reverse, NULL))
    return NULL;
  gboolean rev = FALSE;
  if (reverse && !cr_value_truthy (self, reverse, &rev, error))
    return NULL;
  CrValue *list = iterable_arg (self, it, error);
  if (!list)
    return NULL;
  if (!cr_sort_list (self, list, key, rev, error))
    {
      cr_value_unref (list);
      return NULL;
    }
  return list;
}

static CrValue *
b_reversed (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("reversed", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("reversed", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  if (v->kind == CR_VALUE_DICT || (v->kind == CR_VALUE_OBJECT) || v->kind == CR_VALUE_INSTANCE)
    {
      if (v->kind != CR_VALUE_DICT && !(v->kind == CR_VALUE_OBJECT
                                        && v->u.object.type == &cr_seq_view_type
                                        && ((CrSeqView *) v->u.object.data)->wrapped))
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not reversible",
                               cr_value_type_name (v));
          return NULL;
        }
    }
  CrValue *list = iterable_arg (self, v, error);
  if (!list)
    return NULL;
  GPtrArray *items = list->u.seq.items;
  for (guint i = 0, j = items->len ? items->len - 1 : 0; i < j; i++, j--)
    {
      gpointer t = items->pdata[i];
      items->pdata[i] = items->pdata[j];
      items->pdata[j] = t;
    }
  const char *name = v->kind == CR_VALUE_LIST ? "list_reverseiterator"
                     : v->kind == CR_VALUE_RANGE ? "range_iterator"
                     : v->kind == CR_VALUE_DICT ? "dict_reversekeyiterator" : "reversed";
  return cr_seq_view_new (name, FALSE, list);
}

static CrValue *
b_enumerate (NATIVE_ARGS)
{
  CrValue *it = NULL, *start_v = NULL;
  if (!cr_args_parse ("enumerate", args, n_args, kwargs, n_kwargs, error, "iterable", &it,
                      "|start", &start_v, NULL))
    return NULL;
  gint64 start = 0;
  if (start_v && !cr_builtin_int_arg (start_v, &start, error))
    return NULL;
  CrValue *list = iterable_arg (self, it, error);
  if (!list)
    return NULL;
  GPtrArray *out = g_ptr_array_new_full (list->u.seq.items->len, NULL);
  for (guint i = 0; i < list->u.seq.items->len; i++)
    {
      if (G_UNLIKELY (!cr_value_poll (self, i, (gsize) i * CR_VALUE_ITEM_BYTES, error)))
        {
          g_ptr_array_set_free_func (out, (GDestroyNotify) cr_value_unref);
          g_ptr_array_unref (out);
          cr_value_unref (list);
          return NULL;
        }
      CrValue *pair[2] = { cr_value_new_int (start + i), list->u.seq.items->pdata[i] };
      g_ptr_array_add (out, cr_value_new_tuple (pair, 2));
      cr_value_unref (pair[0]);
    }
  cr_value_unref (list);
  return cr_seq_view_new ("enumerate", FALSE, cr_value_new_list_take (out));
}

static CrValue *
b_zip (NATIVE_ARGS)
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
      if (!cr_value_truthy (self, kwargs[k].value, &strict, error))
        return NULL;
    }
  CrValue **lists = g_new0 (CrValue *, n_args + 1);
  guint n = G_MAXUINT;
  for (guint i = 0; i < n_args; i++)
    {
      lists[i] = iterable_arg (self, args[i], error);
      if (!lists[i])
        {
          if (error && *error && (*error)->code == CR_EXC_TYPE_ERROR
              && g_str_has_suffix ((*error)->message, "is not iterable"))
            {
              g_clear_error (error);
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                   "'%s' object is not iterable", cr_value_type_name (args[i]));
            }
          for (guint k = 0; k < i; k++)
            cr_value_unref (lists[k]);
          g_free (lists);
          return NULL;
        }
      if (strict && i > 0 && lists[i]->u.seq.items->len != n)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "zip() argument %u is %s than argument%s",
                               i + 1, lists[i]->u.seq.items->len < n ? "shorter" : "longer",
                               i == 1 ? " 1" : "s 1-");
          for (guint k = 0; k <= i; k++)
            cr_value_unref (lists[k]);
          g_free (lists);
          return NULL;
        }
      n = MIN (n, lists[i]->u.seq.items->len);
    }
  if (n_args == 0)
    n = 0;
  GPtrArray *out = g_ptr_array_new_full (n, NULL);
  CrValue **row = g_new (CrValue *, n_args + 1);
  gboolean ok = TRUE;
  for (guint j = 0; j < n && ok; j++)
    {
      if (G_UNLIKELY (!(ok = cr_value_poll (self, j, (gsize) j * CR_VALUE_ITEM_BYTES, error))))
        break;
      for (guint i = 0; i < n_args; i++)
        row[i] = lists[i]->u.seq.items->pdata[j];
      g_ptr_array_add (out, cr_value_new_tuple (row, n_args));
    }
  g_free (row);
  if (!ok)
    {
      g_ptr_array_set_free_func (out, (GDestroyNotify) cr_value_unref);
      g_clear_pointer (&out, g_ptr_array_unref);
    }
  for (guint i = 0; i < n_args; i++)
    cr_value_unref (lists[i]);
  g_free (lists);
  if (!out)
    return NULL;
  return cr_seq_view_new ("zip", FALSE, cr_value_new_list_take (out));
}

static CrValue *
b_map (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("map", n_kwargs, kwargs, error))
    return NULL;
  if (n_args < 2)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "map() must have at least two arguments.");
      return NULL;
    }
  CrValue *zipped = b_zip (self, NULL, args + 1, n_args - 1, NULL, 0, NULL, error);
  if (!zipped)
    return NULL;
  CrValue *rows = ((CrSeqView *) zipped->u.object.data)->list;
  GPtrArray *out = g_ptr_array_new_full (rows->u.seq.items->len, (GDestroyNotify) cr_value_unref);
  for (guint j = 0; j < rows->u.seq.items->len; j++)
    {
      CrValue *row = rows->u.seq.items->pdata[j];
      CrValue *r = !cr_value_poll (self, j, (gsize) j * CR_VALUE_ITEM_BYTES, error) ? NULL
                   : cr_interp_call (self, args[0], (CrValue *const *) row->u.seq.items->pdata,
                                     row->u.seq.items->len, NULL, 0, error);
      if (!r)
        {
          g_ptr_array_unref (out);
          cr_value_unref (zipped);
          return NULL;
        }
      g_ptr_array_add (out, r);
    }
  cr_value_unref (zipped);
  g_ptr_array_set_free_func (out, NULL);
  return cr_seq_view_new ("map", FALSE, cr_value_new_list_take (out));
}

static CrValue *
b_filter (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("filter", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("filter", n_args, 2, 2, error))
    return NULL;
  CrValue *list = iterable_arg (self, args[1], error);
  if (!list)
    return NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  for (guint i = 0; i < list->u.seq.items->len; i++)
    {
      CrValue *item = list->u.seq.items->pdata[i];
      CrValue *r = !cr_value_poll (self, i, out->len * CR_VALUE_ITEM_BYTES, error) ? NULL
                   : args[0]->kind == CR_VALUE_NONE
                   ? cr_value_ref (item) : cr_interp_call (self, args[0], &item, 1, NULL, 0, error);
      gboolean t = FALSE;
      if (!r || !cr_value_truthy (self, r, &t, error))
        {
          cr_value_unref (r);
          g_ptr_array_unref (out);
          cr_value_unref (list);
          return NULL;
        }
      cr_value_unref (r);
      if (t)
        g_ptr_array_add (out, cr_value_ref (item));
    }
  cr_value_unref (list);
  g_ptr_array_set_free_func (out, NULL);
  return cr_seq_view_new ("filter", FALSE, cr_value_new_list_take (out));
}

static CrValue *
any_all (CrInterp  *self,
         CrValue   *it,
         gboolean   is_any,
         GError   **error)
{
  CrValue *list = iterable_arg (self, it, error);
  if (!list)
    return NULL;
  gboolean result = !is_any;
  for (guint i = 0; i < list->u.seq.items->len; i++)
    {
      gboolean t;
      if (!cr_value_poll (self, i, 0, error)
          || !cr_value_truthy (self, list->u.seq.items->pdata[i], &t, error))
        {
          cr_value_unref (list);
          return NULL;
        }
      if (t == is_any)
        {
          result = is_any;
          break;
        }
    }
  cr_value_unref (list);
  return cr_value_new_bool (result);
}

static CrValue *
b_any (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("any", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("any", n_args, 1, 1, error))
    return NULL;
  return any_all (self, args[0], TRUE, error);
}

static CrValue *
b_all (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("all", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("all", n_args, 1, 1, error))
    return NULL;
  return any_all (self, args[0], FALSE, error);
}

CrValue *
cr_builtin_list (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("list", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("list", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_list ();
  if (args[0]->kind == CR_VALUE_DICT)
    {
      CrValue *l = cr_value_new_list ();
      for (guint i = 0; i < cr_dict_len (args[0]); i++)
        cr_list_append (l, cr_dict_key_at (args[0], i));
      return l;
    }
  return cr_iter_to_list (self, args[0], error);
}

CrValue *
cr_builtin_tuple (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("tuple", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("tuple", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_tuple (NULL, 0);
  if (args[0]->kind == CR_VALUE_TUPLE && !args[0]->u.seq.is_size)
    return cr_value_ref (args[0]);
  CrValue *l = cr_iter_to_list (self, args[0], error);
  if (l)
    l->kind = CR_VALUE_TUPLE;
  return l;
}

gboolean
cr_dict_update_from (CrInterp  *self,
                     CrValue   *dict,
                     CrValue   *src,
                     GError   **error)
{
  if (src->kind == CR_VALUE_DICT)
    {
      for (guint i = 0; i < cr_dict_len (src); i++)
        cr_dict_set (dict, cr_dict_key_at (src, i), cr_dict_value_at (src, i), NULL);
      return TRUE;
    }
  CrValue *list = cr_iter_to_list (self, src, error);
  if (!list)
    return FALSE;
  for (guint i = 0; i < list->u.seq.items->len; i++)
    {
      CrValue *pair = list->u.seq.items->pdata[i];
      CrValue *kv = cr_iter_to_list (self, pair, NULL);
      if (!kv)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "cannot convert dictionary update sequence element #%u to a sequence", i);
          cr_value_unref (list);
          return FALSE;
        }
      if (kv->u.seq.items->len != 2)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                               "dictionary update sequence element #%u has length %u; 2 is required",
                               i, kv->u.seq.items->len);
          cr_value_unref (kv);
          cr_value_unref (list);
          return FALSE;
        }
      gboolean ok = cr_dict_set (dict, kv->u.seq.items->pdata[0], kv->u.seq.items->pdata[1], error);
      cr_value_unref (kv);
      if (!ok)
        {
          cr_value_unref (list);
          return FALSE;
        }
    }
  cr_value_unref (list);
  return TRUE;
}

CrValue *
cr_builtin_dict (NATIVE_ARGS)
{
  if (!cr_builtin_arg_count ("dict", n_args, 0, 1, error))
    return NULL;
  CrValue *d = cr_value_new_dict ();
  if (n_args == 1 && !cr_dict_update_from (self, d, args[0], error))
    {
      cr_value_unref (d);
      return NULL;
    }
  for (guint k = 0; k < n_kwargs; k++)
    {
      CrValue *key = cr_value_new_str (kwargs[k].name);
      cr_dict_set (d, key, kwargs[k].value, NULL);
      cr_value_unref (key);
    }
  return d;
}

/* ---- iter and next ---- */

static gboolean
is_iterator (CrValue *v)
{
  return v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_seq_view_type
         && !((CrSeqView *) v->u.object.data)->wrapped
         && ((CrSeqView *) v->u.object.data)->list != NULL;
}

/* Python's name for the iterator over v ("list_iterator", ...). */
static const char *
iterator_name (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_LIST:
      return "list_iterator";
    case CR_VALUE_STR:
      for (gsize i = 0; i < v->u.str.len; i++)
        if ((guchar) v->u.str.data[i] >= 0x80)
          return "str_iterator";
      return "str_ascii_iterator";
    case CR_VALUE_RANGE:
      return "range_iterator";
    case CR_VALUE_DICT:
      return "dict_keyiterator";
    case CR_VALUE_OBJECT:
      if (v->u.object.type == &cr_seq_view_type && ((CrSeqView *) v->u.object.data)->dict)
        {
          int part = ((CrSeqView *) v->u.object.data)->dict_part;
          return part == 0 ? "dict_keyiterator" : part == 1 ? "dict_valueiterator"
                                                           : "dict_itemiterator";
        }
      return "iterator";
    default:
      /* tuple, torch.Size, and a tensor (iter(self.unbind(0))) */
      return "tuple_iterator";
    }
}

static CrValue *
b_iter (NATIVE_ARGS)
{
  if (!cr_builtin_no_kwargs ("iter", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("iter", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  if (is_iterator (v))
    return cr_value_ref (v);
  if (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__iter__"))
    {
      CrValue *r = cr_interp_call_method (self, v, cr_instance_method (v, "__iter__"),
                                          NULL, 0, error);
      if (!r || is_iterator (r) || r->kind == CR_VALUE_INSTANCE)
        return r;
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "iter() returned non-iterator of type '%s'",
                           cr_value_type_name (r));
      cr_value_unref (r);
      return NULL;
    }
  CrValue *list = cr_iter_to_list (self, v, error);
  if (!list)
    return NULL;
  return cr_seq_view_new (iterator_name (v), FALSE, list);
}

static CrValue *
b_next (NATIVE_ARGS)
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
  if (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__next__"))
    {
      GError *local = NULL;
      CrValue *r = cr_interp_call_method (self, v, cr_instance_method (v, "__next__"),
                                          NULL, 0, &local);
      if (!r && n_args == 2 && local->domain == CR_LANG_ERROR
          && local->code == CR_EXC_STOP_ITERATION)
        {
          g_error_free (local);
          cr_interp_forget_error (self);
          return cr_value_ref (args[1]);
        }
      if (local)
        g_propagate_error (error, local);
      return r;
    }
  if (!is_iterator (v))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not an iterator",
                           cr_value_type_name (v));
      return NULL;
    }
  CrSeqView *view = v->u.object.data;
  if (view->pos < view->list->u.seq.items->len)
    return cr_value_ref (view->list->u.seq.items->pdata[view->pos++]);
  if (n_args == 2)
    return cr_value_ref (args[1]);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_STOP_ITERATION, "");
  return NULL;
}

/* ---- registration ---- */

void
cr_builtins_iter_install (CrInterp *self)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
  { "max", b_max },
  { "min", b_min },
  { "sum", b_sum },
  { "sorted", b_sorted },
  { "reversed", b_reversed },
  { "enumerate", b_enumerate },
  { "zip", b_zip },
  { "map", b_map },
  { "filter", b_filter },
  { "any", b_any },
  { "all", b_all },
  { "iter", b_iter },
  { "next", b_next },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    g_hash_table_insert (self->builtins, g_strdup (natives[i].name),
                         cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL));
}
