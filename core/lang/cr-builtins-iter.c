/* cr-builtins-iter.c — the builtins over iterables: min, max, sum, sorted,
 * any, all, list, tuple, dict. Those that return iterators (zip, map, ...)
 * are in cr-iterators.c. */
#include "cr-interp-private.h"

#include <string.h>

#include "cr-native.h"

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

NATIVE (b_max)
{
  return min_max (interp, TRUE, args, n_args, kwargs, n_kwargs, error);
}

NATIVE (b_min)
{
  return min_max (interp, FALSE, args, n_args, kwargs, n_kwargs, error);
}

NATIVE (b_sum)
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
  if (!cr_iter_init (interp, &iter, it, error))
    return NULL;
  CrValue *acc = cr_value_ref (start ? start : cr_value_new_int (0));
  CrValue *item;
  int r;
  gsize n_added = 0;
  while ((r = cr_iter_next (interp, &iter, &item, error)) == 1)
    {
      CrValue *next = NULL;
      if (G_LIKELY (cr_value_poll (interp, ++n_added, 0, error)))
        next = cr_binary_op (interp, CR_BINOP_ADD, acc, item, error);
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

NATIVE (b_sorted)
{
  CrValue *it = NULL, *key = NULL, *reverse = NULL;
  if (!cr_args_parse ("sorted", args, n_args, kwargs, n_kwargs, error, "iterable", &it,
                      "|$key", &key, "$reverse", &reverse, NULL))
    return NULL;
  gboolean rev = FALSE;
  if (reverse && !cr_value_truthy (interp, reverse, &rev, error))
    return NULL;
  CrValue *list = iterable_arg (interp, it, error);
  if (!list)
    return NULL;
  if (!cr_sort_list (interp, list, key, rev, error))
    {
      cr_value_unref (list);
      return NULL;
    }
  return list;
}

static CrValue *
any_all (CrInterp  *self,
         CrValue   *it,
         gboolean   is_any,
         GError   **error)
{
  /* One item at a time, stopping at the first that decides: any() over an
   * endless generator ends. */
  CrIter iter;
  if (!cr_iter_init (self, &iter, it, error))
    return NULL;
  gboolean result = !is_any;
  CrValue *item = NULL;
  int r;
  gsize n_seen = 0;
  while ((r = cr_iter_next (self, &iter, &item, error)) == 1)
    {
      gboolean t = FALSE;
      gboolean ok = cr_value_poll (self, ++n_seen, 0, error) && cr_value_truthy (self, item, &t, error);
      cr_value_unref (item);
      if (!ok)
        {
          r = -1;
          break;
        }
      if (t == is_any)
        {
          result = is_any;
          break;
        }
    }
  cr_iter_clear (&iter);
  return r < 0 ? NULL : cr_value_new_bool (result);
}

NATIVE (b_any)
{
  if (!cr_builtin_no_kwargs ("any", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("any", n_args, 1, 1, error))
    return NULL;
  return any_all (interp, args[0], TRUE, error);
}

NATIVE (b_all)
{
  if (!cr_builtin_no_kwargs ("all", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("all", n_args, 1, 1, error))
    return NULL;
  return any_all (interp, args[0], FALSE, error);
}

CrValue *
cr_builtin_list (CR_NATIVE_PARAMS)
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
  return cr_iter_to_list (interp, args[0], error);
}

CrValue *
cr_builtin_tuple (CR_NATIVE_PARAMS)
{
  if (!cr_builtin_no_kwargs ("tuple", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("tuple", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_tuple (NULL, 0);
  if (args[0]->kind == CR_VALUE_TUPLE && !args[0]->u.seq.is_size && !args[0]->u.seq.extra)
    return cr_value_ref (args[0]);
  CrValue *l = cr_iter_to_list (interp, args[0], error);
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
cr_builtin_dict (CR_NATIVE_PARAMS)
{
  if (!cr_builtin_arg_count ("dict", n_args, 0, 1, error))
    return NULL;
  CrValue *d = cr_value_new_dict ();
  if (n_args == 1 && !cr_dict_update_from (interp, d, args[0], error))
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

/* ---- registration ---- */

void
cr_builtins_iter_install (CrInterp *self)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
  { "max", b_max },
  { "min", b_min },
  { "sum", b_sum },
  { "sorted", b_sorted },
  { "any", b_any },
  { "all", b_all },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    g_hash_table_insert (self->builtins, g_strdup (natives[i].name),
                         cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL));
  cr_iterators_install (self);
}
