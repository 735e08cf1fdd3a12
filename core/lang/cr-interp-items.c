/* cr-interp-items.c — item access and iteration with Python's rules:
 * indexing and slicing of str/list/tuple/range (negative indices, steps,
 * code points for str), dicts, item assignment and deletion, and the
 * iteration every for loop, unpacking and builtin uses. Tensors go to the
 * torch layer; user classes to their dunder methods. */
#include "cr-interp-private.h"

#include <string.h>

/* ---- items ------------------------------------------------------------------------------ */

static gboolean
normalize_index (gint64       *i,
                 gint64        len)
{
  if (*i < 0)
    *i += len;
  return *i >= 0 && *i < len;
}

/* Byte offset of code point `index` in a UTF-8 string. */
static gsize
utf8_offset (const char *s,
             gsize       len,
             gint64      index)
{
  gsize off = 0;
  for (gint64 k = 0; k < index && off < len; k++)
    {
      off++;
      while (off < len && ((guchar) s[off] & 0xc0) == 0x80)
        off++;
    }
  return off;
}

static gboolean
str_is_ascii (CrValue *str)
{
  for (gsize i = 0; i < str->u.str.len; i++)
    if ((guchar) str->u.str.data[i] >= 0x80)
      return FALSE;
  return TRUE;
}

static CrValue *
str_char_at (CrValue *str,
             gint64   i,
             gboolean ascii)
{
  if (ascii)
    return cr_value_new_str_len (str->u.str.data + i, 1);
  gsize off = utf8_offset (str->u.str.data, str->u.str.len, i);
  gsize end = utf8_offset (str->u.str.data, str->u.str.len, i + 1);
  return cr_value_new_str_len (str->u.str.data + off, end - off);
}

/* range(...)[start:stop:step] with the slice's indices (n items): Python's
 * range(r.start + start * r.step, r.start + stop * r.step, r.step * step),
 * computed in 128 bits. Where that stop does not fit in an int64 (Python's
 * ints are unbounded), the stop just past the last item gives the same
 * items; a step that does not fit is an OverflowError. */
static CrValue *
range_slice (CrValue  *r,
             gint64    start,
             gint64    stop,
             gint64    step,
             gint64    n,
             GError  **error)
{
  __int128 r_start = r->u.range.start, r_step = r->u.range.step;
  __int128 first = r_start + start * r_step, end = r_start + stop * r_step;
  __int128 new_step = r_step * step;
  if (new_step > G_MAXINT64 || new_step < G_MININT64 || first > G_MAXINT64 || first < G_MININT64)
    {
      if (n == 0)
        return cr_value_new_range (0, 0, 1);
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "Python int too large to convert to C long");
      return NULL;
    }
  if (end > G_MAXINT64 || end < G_MININT64)
    {
      __int128 last = first + (__int128) MAX (n - 1, 0) * new_step;
      end = n == 0 ? first : new_step > 0 ? last + 1 : last - 1;
      if (end > G_MAXINT64 || end < G_MININT64)
        {
          cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "Python int too large to convert to C long");
          return NULL;
        }
    }
  return cr_value_new_range ((gint64) first, (gint64) end, (gint64) new_step);
}

static CrValue *
seq_getitem (CrValue   *obj,
             CrValue   *index,
             GError   **error)
{
  gint64 len, i;
  const char *what = obj->kind == CR_VALUE_LIST ? "list"
                     : obj->kind == CR_VALUE_TUPLE ? "tuple"
                     : obj->kind == CR_VALUE_STR ? "string" : "range object";
  gboolean ascii = TRUE;
  if (obj->kind == CR_VALUE_STR)
    {
      ascii = str_is_ascii (obj);
      len = ascii ? (gint64) obj->u.str.len : (gint64) cr_str_char_len (obj);
    }
  else if (obj->kind == CR_VALUE_RANGE)
    len = cr_range_len (obj);
  else
    len = obj->u.seq.items->len;

  if (cr_value_as_index (index, &i))
    {
      /* A range longer than an int64 (range(-2**63, 2**63 - 1)) counts
       * negative indices from its true end. */
      if (obj->kind == CR_VALUE_RANGE && i < 0 && len == G_MAXINT64)
        {
          __int128 r_step = obj->u.range.step, stop = obj->u.range.stop;
          __int128 true_len = ((r_step > 0 ? stop - obj->u.range.start - 1
                                           : obj->u.range.start - stop - 1)
                               / (r_step > 0 ? r_step : -r_step)) + 1;
          if (true_len + i < 0)
            {
              cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "%s index out of range", what);
              return NULL;
            }
          return cr_value_new_int ((gint64) ((__int128) obj->u.range.start
                                             + (true_len + i) * r_step));
        }
      if (!normalize_index (&i, len))
        {
          cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "%s index out of range", what);
          return NULL;
        }
      switch (obj->kind)
        {
        case CR_VALUE_STR:
          return str_char_at (obj, i, ascii);
        case CR_VALUE_RANGE:
          /* An item of the range, so it fits; the product alone may not. */
          return cr_value_new_int ((gint64) ((__int128) obj->u.range.start
                                             + (__int128) i * obj->u.range.step));
        default:
          return cr_value_ref (g_ptr_array_index (obj->u.seq.items, i));
        }
    }
  if (index->kind == CR_VALUE_SLICE)
    {
      gint64 start, stop, step, n;
      if (!cr_slice_indices (index, len, &start, &stop, &step, &n, error))
        return NULL;
      switch (obj->kind)
        {
        case CR_VALUE_STR:
          {
            GString *s = g_string_sized_new (n);
            for (gint64 k = 0, j = start; k < n; k++, j += step)
              {
                if (ascii)
                  g_string_append_c (s, obj->u.str.data[j]);
                else
                  {
                    gsize off = utf8_offset (obj->u.str.data, obj->u.str.len, j);
                    gsize end = utf8_offset (obj->u.str.data, obj->u.str.len, j + 1);
                    g_string_append_len (s, obj->u.str.data + off, end - off);
                  }
              }
            return cr_value_new_str_take (g_string_free (s, FALSE));
          }
        case CR_VALUE_RANGE:
          return range_slice (obj, start, stop, step, n, error);
        default:
          {
            GPtrArray *items = g_ptr_array_new_full (n, NULL);
            for (gint64 k = 0, j = start; k < n; k++, j += step)
              g_ptr_array_add (items, cr_value_ref (g_ptr_array_index (obj->u.seq.items, j)));
            CrValue *r = obj->kind == CR_VALUE_LIST ? cr_value_new_list_take (items)
                                                    : cr_value_new_tuple_take (items);
            if (obj->kind == CR_VALUE_TUPLE)
              r->u.seq.is_size = obj->u.seq.is_size;
            return r;
          }
        }
    }
  if (obj->kind == CR_VALUE_STR)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "string indices must be integers, not '%s'",
                         cr_value_type_name (index));
  else
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s indices must be integers or slices, not %s",
                         obj->kind == CR_VALUE_RANGE ? "range" : what, cr_value_type_name (index));
  return NULL;
}


CrValue *
cr_interp_getitem (CrInterp   *self,
                   CrValue    *obj,
                   CrValue    *index,
                   GError    **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
      return self->tensor_slots->getitem (self, obj, index, error);
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_STR:
    case CR_VALUE_RANGE:
      return seq_getitem (obj, index, error);
    case CR_VALUE_DICT:
      {
        CrValue *v = cr_dict_get (obj, index, error);
        if (v)
          return cr_value_ref (v);
        if (error && *error)
          return NULL;
        /* A dict subclass's __missing__ (defaultdict's way). */
        CrValue *cls = cr_object_script_class (obj);
        CrValue *missing = cls ? cr_class_lookup (cls, "__missing__") : NULL;
        if (missing)
          return cr_interp_call_method (self, obj, missing, &index, 1, error);
        g_autofree char *r = cr_value_repr (self, index, NULL);
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, r ? r : "?");
        return NULL;
      }
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (obj, "__getitem__");
        if (m)
          return cr_interp_call_method (self, obj, m, &index, 1, error);
        break;
      }
    case CR_VALUE_OBJECT:
      if (obj->u.object.type->as_tuple)
        {
          CrValue *t = obj->u.object.type->as_tuple (obj);
          if (t)
            {
              CrValue *r = seq_getitem (t, index, error);
              cr_value_unref (t);
              return r;
            }
        }
      break;
    case CR_VALUE_CLASS:
      /* list[int] and friends in annotations. */
      if (g_hash_table_lookup (obj->u.cls.attrs, "__cr_kind__"))
        return cr_value_ref (obj);
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not subscriptable",
                       cr_value_type_name (obj));
  return NULL;
}

static gboolean
list_setslice (CrInterp  *self,
               CrValue   *list,
               CrValue   *slice,
               CrValue   *value,
               GError   **error)
{
  GPtrArray *items = list->u.seq.items;
  gint64 start, stop, step, n;
  if (!cr_slice_indices (slice, items->len, &start, &stop, &step, &n, error))
    return FALSE;
  CrValue *src = cr_iter_to_list (self, value, error);
  if (!src)
    return FALSE;
  GPtrArray *new_items = src->u.seq.items;
  gboolean ok = TRUE;
  if (step == 1)
    {
      if (stop < start)
        stop = start;
      g_ptr_array_remove_range (items, (guint) start, (guint) (stop - start));
      /* Room for the new items in one move (inserting them one at a time
       * moved the tail once per item: l[:0] = range(10**6) never ended). */
      guint tail = items->len - (guint) start, m = new_items->len;
      g_ptr_array_set_size (items, items->len + m);
      memmove (items->pdata + start + m, items->pdata + start, tail * sizeof (gpointer));
      for (guint k = 0; k < m; k++)
        items->pdata[start + k] = cr_value_ref (new_items->pdata[k]);
      cr_seq_account (list);
    }
  else if ((gint64) new_items->len != n)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                           "attempt to assign sequence of size %u to extended slice of size %"
                           G_GINT64_FORMAT, new_items->len, n);
      ok = FALSE;
    }
  else
    for (gint64 k = 0, j = start; k < n; k++, j += step)
      {
        CrValue *old = items->pdata[j];
        items->pdata[j] = cr_value_ref (new_items->pdata[k]);
        cr_value_unref (old);
      }
  cr_value_unref (src);
  return ok;
}

gboolean
cr_interp_setitem (CrInterp   *self,
                   CrValue    *obj,
                   CrValue    *index,
                   CrValue    *value,
                   GError    **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
      return self->tensor_slots->setitem (self, obj, index, value, error);
    case CR_VALUE_LIST:
      {
        gint64 i;
        if (cr_value_as_index (index, &i))
          {
            if (!normalize_index (&i, obj->u.seq.items->len))
              {
                cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "list assignment index out of range");
                return FALSE;
              }
            CrValue *old = obj->u.seq.items->pdata[i];
            obj->u.seq.items->pdata[i] = cr_value_ref (value);
            cr_value_unref (old);
            return TRUE;
          }
        if (index->kind == CR_VALUE_SLICE)
          return list_setslice (self, obj, index, value, error);
        cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "list indices must be integers or slices, not %s",
                             cr_value_type_name (index));
        return FALSE;
      }
    case CR_VALUE_DICT:
      return cr_dict_set (obj, index, value, error);
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (obj, "__setitem__");
        if (m)
          {
            CrValue *args[2] = { index, value };
            CrValue *r = cr_interp_call_method (self, obj, m, args, 2, error);
            cr_value_unref (r);
            return r != NULL;
          }
        break;
      }
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object does not support item assignment",
                       cr_value_type_name (obj));
  return FALSE;
}

gboolean
cr_interp_delitem (CrInterp   *self,
                   CrValue    *obj,
                   CrValue    *index,
                   GError    **error)
{
  if (obj->kind == CR_VALUE_LIST)
    {
      gint64 i;
      GPtrArray *items = obj->u.seq.items;
      if (cr_value_as_index (index, &i))
        {
          if (!normalize_index (&i, items->len))
            {
              cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "list assignment index out of range");
              return FALSE;
            }
          g_ptr_array_remove_index (items, (guint) i);
          cr_seq_account (obj);
          return TRUE;
        }
      if (index->kind == CR_VALUE_SLICE)
        {
          gint64 start, stop, step, n;
          if (!cr_slice_indices (index, items->len, &start, &stop, &step, &n, error))
            return FALSE;
          if (n == 0)
            return TRUE;   /* and `start` may lie past the end (del l[15:2:-4] of [1, 2]) */
          if (step < 0)
            {
              start = start + (n - 1) * step;
              step = -step;
            }
          /* One pass that drops every step-th item from start and closes
           * the gaps (removing them one by one moved the tail each time). */
          guint kept = (guint) start;
          gint64 next = start, removed = 0;
          for (guint r = (guint) start; r < items->len; r++)
            if (removed < n && (gint64) r == next)
              {
                cr_value_unref (items->pdata[r]);
                removed++;
                next += step;
              }
            else
              items->pdata[kept++] = items->pdata[r];
          for (guint r = kept; r < items->len; r++)
            items->pdata[r] = NULL;   /* moved or freed: nothing for set_size to drop */
          g_ptr_array_set_size (items, kept);
          cr_seq_account (obj);
          return TRUE;
        }
    }
  else if (obj->kind == CR_VALUE_DICT)
    return cr_dict_delete (obj, index, error);
  else if (obj->kind == CR_VALUE_INSTANCE)
    {
      CrValue *m = cr_instance_method (obj, "__delitem__");
      if (m)
        {
          CrValue *r = cr_interp_call_method (self, obj, m, &index, 1, error);
          cr_value_unref (r);
          return r != NULL;
        }
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object doesn't support item deletion",
                       cr_value_type_name (obj));
  return FALSE;
}

/* ---- iteration ----------------------------------------------------------------------------- */

gboolean
cr_iter_init (CrInterp  *self,
              CrIter    *iter,
              CrValue   *value,
              GError   **error)
{
  memset (iter, 0, sizeof *iter);
  switch (value->kind)
    {
    case CR_VALUE_RANGE:
      iter->mode = CR_ITER_RANGE;
      iter->n = cr_range_len (value);
      iter->cur = value->u.range.start;
      iter->step = value->u.range.step;
      break;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      iter->mode = CR_ITER_SEQ;
      break;
    case CR_VALUE_STR:
      iter->mode = CR_ITER_STR;
      break;
    case CR_VALUE_DICT:
      iter->mode = CR_ITER_DICT;
      iter->n = cr_dict_len (value);
      break;
    case CR_VALUE_TENSOR:
      iter->mode = CR_ITER_TENSOR;
      if (!self->tensor_slots->iter_len (value, &iter->n, error))
        return FALSE;
      break;
    case CR_VALUE_OBJECT:
      if (value->u.object.type->next)
        {
          iter->mode = CR_ITER_NATIVE;
          iter->source = cr_value_ref (value);
          return TRUE;
        }
      if (value->u.object.type == &cr_seq_view_type
          && !((CrSeqView *) value->u.object.data)->wrapped
          && ((CrSeqView *) value->u.object.data)->list)
        {
          /* Python's iterators are used up by iterating them. */
          iter->mode = CR_ITER_VIEW;
          iter->source = cr_value_ref (value);
          return TRUE;
        }
      if (value->u.object.type == &cr_seq_view_type)
        {
          iter->mode = CR_ITER_SEQ;
          iter->source = cr_seq_view_items (value);
          return TRUE;
        }
      if (value->u.object.type->as_tuple)
        {
          CrValue *t = value->u.object.type->as_tuple (value);
          if (t)
            {
              iter->mode = CR_ITER_SEQ;
              iter->source = t;
              return TRUE;
            }
        }
      G_GNUC_FALLTHROUGH;
    case CR_VALUE_INSTANCE:
      if (value->kind == CR_VALUE_INSTANCE)
        {
          CrValue *m = cr_instance_method (value, "__iter__");
          if (m)
            {
              CrValue *r = cr_interp_call_method (self, value, m, NULL, 0, error);
              if (!r)
                return FALSE;
              gboolean ok;
              if (r->kind == CR_VALUE_INSTANCE && cr_instance_method (r, "__next__"))
                {
                  iter->mode = CR_ITER_NEXT_METHOD;
                  iter->source = cr_value_ref (r);
                  ok = TRUE;
                }
              else
                ok = r->kind != CR_VALUE_INSTANCE && cr_iter_init (self, iter, r, error);
              if (!ok && !(error && *error))
                cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                     "iter() returned non-iterator of type '%s'",
                                     cr_value_type_name (r));
              cr_value_unref (r);
              return ok;
            }
          /* The old sequence protocol: __getitem__ from 0 until IndexError
           * (`for x, y in dataset` over a Dataset, which has no __iter__). */
          if (cr_instance_method (value, "__getitem__"))
            {
              iter->mode = CR_ITER_NATIVE;
              iter->source = cr_sequence_iterator_new (value);
              return TRUE;
            }
        }
      G_GNUC_FALLTHROUGH;
    default:
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not iterable",
                           cr_value_type_name (value));
      return FALSE;
    }
  iter->source = cr_value_ref (value);
  return TRUE;
}

int
cr_iter_next (CrInterp  *self,
              CrIter    *iter,
              CrValue  **out,
              GError   **error)
{
  CrValue *src = iter->source;
  switch (iter->mode)
    {
    case CR_ITER_RANGE:
      if (iter->i >= iter->n)
        return 0;
      *out = cr_value_new_int (iter->cur);
      /* Past the last item the next value may not fit (range(0, 2**63 - 1,
       * 2**62)); it is never used, so it may wrap, without UB. */
      iter->cur = (gint64) ((guint64) iter->cur + (guint64) iter->step);
      iter->i++;
      return 1;
    case CR_ITER_SEQ:
      if ((guint) iter->i >= src->u.seq.items->len)
        return 0;
      *out = cr_value_ref (g_ptr_array_index (src->u.seq.items, iter->i));
      iter->i++;
      return 1;
    case CR_ITER_STR:
      {
        gsize off = iter->offset, len = src->u.str.len;
        if (off >= len)
          return 0;
        gsize end = off + 1;
        while (end < len && ((guchar) src->u.str.data[end] & 0xc0) == 0x80)
          end++;
        *out = cr_value_new_str_len (src->u.str.data + off, end - off);
        iter->offset = end;
        return 1;
      }
    case CR_ITER_DICT:
      if (cr_dict_len (src) != (guint) iter->n)
        {
          cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "dictionary changed size during iteration");
          return -1;
        }
      if (iter->i >= iter->n)
        return 0;
      *out = cr_value_ref (cr_dict_key_at (src, (guint) iter->i));
      iter->i++;
      return 1;
    case CR_ITER_TENSOR:
      {
        if (iter->i >= iter->n)
          return 0;
        CrValue *index = cr_value_new_int (iter->i);
        *out = self->tensor_slots->getitem (self, src, index, error);
        cr_value_unref (index);
        iter->i++;
        return *out ? 1 : -1;
      }
    case CR_ITER_NATIVE:
      return src->u.object.type->next (self, src, out, error);
    case CR_ITER_NEXT_METHOD:
      {
        GError *local = NULL;
        *out = cr_interp_call_method (self, src, cr_instance_method (src, "__next__"), NULL, 0,
                                      &local);
        if (*out)
          return 1;
        if (local->code == CR_EXC_STOP_ITERATION)
          {
            g_error_free (local);
            cr_interp_forget_error (self);
            return 0;
          }
        g_propagate_error (error, local);
        return -1;
      }
    case CR_ITER_VIEW:
      {
        CrSeqView *view = src->u.object.data;
        if (view->pos >= view->list->u.seq.items->len)
          return 0;
        *out = cr_value_ref (g_ptr_array_index (view->list->u.seq.items, view->pos));
        view->pos++;
        return 1;
      }
    }
  return 0;
}

void
cr_iter_clear (CrIter *iter)
{
  g_clear_pointer (&iter->source, cr_value_unref);
}

CrValue *
cr_iter_to_list (CrInterp  *self,
                 CrValue   *value,
                 GError   **error)
{
  if (value->kind == CR_VALUE_LIST || value->kind == CR_VALUE_TUPLE)
    {
      if (!cr_value_check_alloc_n (value->u.seq.items->len, CR_VALUE_ITEM_BYTES, error))
        return NULL;
      GPtrArray *items = g_ptr_array_new_full (value->u.seq.items->len, NULL);
      for (guint i = 0; i < value->u.seq.items->len; i++)
        g_ptr_array_add (items, cr_value_ref (value->u.seq.items->pdata[i]));
      return cr_value_new_list_take (items);
    }
  /* A range's list is known in size: list(range(10**10)) fails at once. */
  if (value->kind == CR_VALUE_RANGE
      && !cr_value_check_alloc_n ((gsize) cr_range_len (value),
                                  CR_VALUE_ITEM_BYTES + CR_VALUE_BYTES, error))
    return NULL;
  CrIter it;
  if (!cr_iter_init (self, &it, value, error))
    return NULL;
  GPtrArray *items = g_ptr_array_new ();
  CrValue *item;
  int r;
  while ((r = cr_iter_next (self, &it, &item, error)) == 1)
    {
      g_ptr_array_add (items, item);
      if (G_UNLIKELY (!cr_value_poll (self, items->len, items->len * CR_VALUE_ITEM_BYTES, error)))
        {
          r = -1;
          break;
        }
    }
  cr_iter_clear (&it);
  CrValue *list = cr_value_new_list_take (items);
  if (r < 0)
    {
      cr_value_unref (list);
      return NULL;
    }
  return list;
}

