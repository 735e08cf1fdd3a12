/* cr-methods.c — the methods of Python's builtin types: str (split, join,
 * strip, replace, format, ...), list (append, pop, sort, ...), tuple, dict
 * (keys, items, get, ...), int and float. Each is a native bound to its
 * receiver when looked up (cr_builtin_method). */
#include "cr-interp-private.h"
#include "cr-pyformat.h"

#include <math.h>
#include <string.h>

#include "cr-native.h"

static gboolean
check_args (const char    *fname,
            guint          n_args,
            guint          min,
            guint          max,
            guint          n_kwargs,
            GError       **error)
{
  if (n_kwargs)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no keyword arguments", fname);
      return FALSE;
    }
  if (n_args >= min && n_args <= max)
    return TRUE;
  if (max == 0)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no arguments (%u given)", fname, n_args);
  else if (min == max)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes exactly one argument (%u given)",
                         fname, n_args);
  else if (n_args < min)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s expected at least %u argument%s, got %u",
                         fname, min, min == 1 ? "" : "s", n_args);
  else
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s expected at most %u argument%s, got %u",
                         fname, max, max == 1 ? "" : "s", n_args);
  return FALSE;
}

static gboolean
str_arg (const char *fname,
         CrValue    *v,
         GError    **error)
{
  if (v->kind == CR_VALUE_STR)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() argument must be str, not %s", fname,
                       cr_value_type_name (v));
  return FALSE;
}

static CrValue *
new_str (GString *s)
{
  gsize len = s->len;
  return cr_value_new_str_take_len (g_string_free (s, FALSE), len);
}

/* ---- str ---------------------------------------------------------------------------------------- */

NATIVE (str_case)
{
  if (!check_args ("upper", n_args, 0, 0, n_kwargs, error))
    return NULL;
  int which = GPOINTER_TO_INT (data);
  const char *s = self->u.str.data;
  char *r;
  switch (which)
    {
    case 0: r = g_utf8_strup (s, -1); break;
    case 1: r = g_utf8_strdown (s, -1); break;
    default:
      {
        /* title (2), capitalize (3), swapcase (4) */
        GString *out = g_string_new (NULL);
        gboolean prev_cased = FALSE;
        for (const char *p = s; *p; p = g_utf8_next_char (p))
          {
            gunichar c = g_utf8_get_char (p);
            gunichar o = c;
            if (which == 2)
              o = prev_cased ? g_unichar_tolower (c) : g_unichar_toupper (c);
            else if (which == 3)
              o = p == s ? g_unichar_toupper (c) : g_unichar_tolower (c);
            else
              o = g_unichar_isupper (c) ? g_unichar_tolower (c) : g_unichar_toupper (c);
            prev_cased = g_unichar_isalpha (c);
            g_string_append_unichar (out, o);
          }
        return new_str (out);
      }
    }
  return cr_value_new_str_take (r);
}

NATIVE (str_strip)
{
  if (!check_args ("strip", n_args, 0, 1, n_kwargs, error))
    return NULL;
  const char *chars = NULL;
  if (n_args == 1 && args[0]->kind != CR_VALUE_NONE)
    {
      if (!str_arg ("strip", args[0], error))
        return NULL;
      chars = args[0]->u.str.data;
    }
  int which = GPOINTER_TO_INT (data);   /* 0 both, 1 left, 2 right */
  const char *s = self->u.str.data;
  gsize start = 0, end = self->u.str.len;
#define STRIPPABLE(c) (chars ? (strchr (chars, (c)) != NULL && (c) != '\0') : g_ascii_isspace (c))
  if (which != 2)
    while (start < end && STRIPPABLE (s[start]))
      start++;
  if (which != 1)
    while (end > start && STRIPPABLE (s[end - 1]))
      end--;
#undef STRIPPABLE
  return cr_value_new_str_len (s + start, end - start);
}

NATIVE (str_split)
{
  CrValue *sep_v = NULL, *max_v = NULL;
  if (!cr_args_parse ("split", args, n_args, kwargs, n_kwargs, error, "|sep", &sep_v, "maxsplit",
                      &max_v, NULL))
    return NULL;
  gint64 maxsplit = -1;
  if (max_v && !cr_value_to_int (max_v, &maxsplit, error))
    return NULL;
  gboolean right = GPOINTER_TO_INT (data);
  const char *s = self->u.str.data;
  gsize len = self->u.str.len;
  GPtrArray *parts = g_ptr_array_new ();
  if (!sep_v || sep_v->kind == CR_VALUE_NONE)
    {
      /* Runs of whitespace; leading and trailing ignored. */
      GPtrArray *all = g_ptr_array_new ();
      gsize i = 0;
      while (i < len)
        {
          /* A word costs two positions here and a str below. */
          if (G_UNLIKELY (!cr_value_poll (interp, all->len / 2 + 1,
                                          all->len / 2 * (2 * sizeof (gpointer) + CR_VALUE_ITEM_BYTES
                                                          + CR_VALUE_BYTES),
                                          error)))
            {
              g_ptr_array_unref (all);
              g_ptr_array_unref (parts);
              return NULL;
            }
          while (i < len && g_ascii_isspace (s[i]))
            i++;
          if (i >= len)
            break;
          gsize j = i;
          while (j < len && !g_ascii_isspace (s[j]))
            j++;
          g_ptr_array_add (all, GSIZE_TO_POINTER (i));
          g_ptr_array_add (all, GSIZE_TO_POINTER (j));
          i = j;
        }
      guint n = all->len / 2;
      if (maxsplit < 0 || (guint64) maxsplit >= n)
        for (guint k = 0; k < n; k++)
          {
            gsize a = GPOINTER_TO_SIZE (all->pdata[2 * k]), b = GPOINTER_TO_SIZE (all->pdata[2 * k + 1]);
            g_ptr_array_add (parts, cr_value_new_str_len (s + a, b - a));
          }
      else if (!right)
        {
          for (gint64 k = 0; k < maxsplit; k++)
            {
              gsize a = GPOINTER_TO_SIZE (all->pdata[2 * k]), b = GPOINTER_TO_SIZE (all->pdata[2 * k + 1]);
              g_ptr_array_add (parts, cr_value_new_str_len (s + a, b - a));
            }
          gsize a = GPOINTER_TO_SIZE (all->pdata[2 * maxsplit]);
          gsize b = len;
          while (b > a && g_ascii_isspace (s[b - 1]))
            b--;
          g_ptr_array_add (parts, cr_value_new_str_len (s + a, b - a));
        }
      else
        {
          guint first = n - (guint) maxsplit;
          gsize a = GPOINTER_TO_SIZE (all->pdata[0]);
          gsize b = GPOINTER_TO_SIZE (all->pdata[2 * (first - 1) + 1]);
          g_ptr_array_add (parts, cr_value_new_str_len (s + a, b - a));
          for (guint k = first; k < n; k++)
            {
              gsize c = GPOINTER_TO_SIZE (all->pdata[2 * k]), d = GPOINTER_TO_SIZE (all->pdata[2 * k + 1]);
              g_ptr_array_add (parts, cr_value_new_str_len (s + c, d - c));
            }
        }
      g_ptr_array_unref (all);
      return cr_value_new_list_take (parts);
    }
  if (!str_arg ("split", sep_v, error))
    {
      g_ptr_array_unref (parts);
      return NULL;
    }
  const char *sep = sep_v->u.str.data;
  gsize sl = sep_v->u.str.len;
  if (sl == 0)
    {
      g_ptr_array_unref (parts);
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "empty separator");
      return NULL;
    }
  /* Positions of every separator, then keep maxsplit of them from the
   * left (split) or the right (rsplit). */
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (gsize));
  for (gsize i = 0; i + sl <= len;)
    {
      /* A part costs a position here and a str below. */
      if (G_UNLIKELY (!cr_value_poll (interp, i + 1,
                                      hits->len * (sizeof (gsize) + CR_VALUE_ITEM_BYTES + CR_VALUE_BYTES),
                                      error)))
        {
          g_array_unref (hits);
          g_ptr_array_unref (parts);
          return NULL;
        }
      if (memcmp (s + i, sep, sl) == 0)
        {
          g_array_append_val (hits, i);
          i += sl;
        }
      else
        i++;
    }
  guint first = 0, count = hits->len;
  if (maxsplit >= 0 && (guint64) maxsplit < hits->len)
    {
      count = (guint) maxsplit;
      if (right)
        first = hits->len - count;
    }
  gsize prev = 0;
  guint k = first;
  if (right && first > 0 && count > 0)
    {
      /* rsplit: everything left of the first separator kept is one part. */
      gsize h = g_array_index (hits, gsize, first);
      g_ptr_array_add (parts, cr_value_new_str_len (s, h));
      prev = h + sl;
      k = first + 1;
    }
  for (; k < first + count; k++)
    {
      gsize h = g_array_index (hits, gsize, k);
      g_ptr_array_add (parts, cr_value_new_str_len (s + prev, h - prev));
      prev = h + sl;
    }
  g_ptr_array_add (parts, cr_value_new_str_len (s + prev, len - prev));
  g_array_unref (hits);
  return cr_value_new_list_take (parts);
}

NATIVE (str_splitlines)
{
  if (!check_args ("splitlines", n_args, 0, 0, n_kwargs, error))
    return NULL;
  GPtrArray *parts = g_ptr_array_new ();
  const char *s = self->u.str.data;
  gsize len = self->u.str.len, start = 0;
  for (gsize i = 0; i < len; i++)
    if (s[i] == '\n' || s[i] == '\r')
      {
        if (G_UNLIKELY (!cr_value_poll (interp, parts->len + 1, parts->len * CR_VALUE_ITEM_BYTES, error)))
          {
            g_ptr_array_set_free_func (parts, (GDestroyNotify) cr_value_unref);
            g_ptr_array_unref (parts);
            return NULL;
          }
        g_ptr_array_add (parts, cr_value_new_str_len (s + start, i - start));
        if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
          i++;
        start = i + 1;
      }
  if (start < len)
    g_ptr_array_add (parts, cr_value_new_str_len (s + start, len - start));
  return cr_value_new_list_take (parts);
}

NATIVE (str_join)
{
  if (!check_args ("join", n_args, 1, 1, n_kwargs, error))
    return NULL;
  CrValue *list = cr_iter_to_list (interp, args[0], error);
  if (!list)
    return NULL;
  /* The result's size first, checked against the memory budget: a join of
   * a long list of long strings fails before it allocates. */
  GPtrArray *items = list->u.seq.items;
  gsize total = 0;
  gboolean fits = TRUE;
  for (guint i = 0; i < items->len; i++)
    {
      CrValue *item = items->pdata[i];
      if (item->kind != CR_VALUE_STR)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "sequence item %u: expected str instance, %s found", i,
                               cr_value_type_name (item));
          cr_value_unref (list);
          return NULL;
        }
      fits = fits && g_size_checked_add (&total, total, item->u.str.len)
             && (i == 0 || g_size_checked_add (&total, total, self->u.str.len));
    }
  if (!cr_value_check_alloc (fits ? total : G_MAXSIZE, error))
    {
      cr_value_unref (list);
      return NULL;
    }
  GString *out = g_string_sized_new (total);
  for (guint i = 0; i < items->len; i++)
    {
      CrValue *item = items->pdata[i];
      if (G_UNLIKELY (!cr_value_poll (interp, i + 1, 0, error)))
        {
          g_string_free (out, TRUE);
          cr_value_unref (list);
          return NULL;
        }
      if (i > 0)
        g_string_append_len (out, self->u.str.data, self->u.str.len);
      g_string_append_len (out, item->u.str.data, item->u.str.len);
    }
  cr_value_unref (list);
  return new_str (out);
}

NATIVE (str_replace)
{
  if (!check_args ("replace", n_args, 2, 3, n_kwargs, error)
      || !str_arg ("replace", args[0], error) || !str_arg ("replace", args[1], error))
    return NULL;
  gint64 count = -1;
  if (n_args == 3 && !cr_value_to_int (args[2], &count, error))
    return NULL;
  const char *s = self->u.str.data, *old = args[0]->u.str.data, *new = args[1]->u.str.data;
  gsize len = self->u.str.len, ol = args[0]->u.str.len, nl = args[1]->u.str.len;
  /* How many replacements, to check the result's size against the memory
   * budget before building it ('a'.replace('', 'x' * 10**6) on a long
   * string is a big result). */
  gsize n_hits = 0;
  if (ol == 0)
    n_hits = cr_str_char_len (self) + 1;
  else
    for (gsize k = 0; k + ol <= len;)
      {
        if (G_UNLIKELY (!cr_value_poll (interp, k + 1, 0, error)))
          return NULL;
        if (memcmp (s + k, old, ol) == 0)
          {
            n_hits++;
            k += ol;
          }
        else
          k++;
      }
  if (count >= 0 && (guint64) count < n_hits)
    n_hits = (gsize) count;
  gsize grown = 0, total = 0;
  if (!cr_value_check_alloc (g_size_checked_mul (&grown, n_hits, nl)
                             && g_size_checked_add (&total, len, grown) ? total : G_MAXSIZE, error))
    return NULL;
  GString *out = g_string_sized_new (total);
  gsize i = 0;
  gint64 done = 0;
  if (ol == 0)
    {
      for (const char *p = s; ; p = g_utf8_next_char (p))
        {
          if (G_UNLIKELY (!cr_value_poll (interp, (gsize) (p - s) + 1, 0, error)))
            {
              g_string_free (out, TRUE);
              return NULL;
            }
          if (count < 0 || done < count)
            {
              g_string_append_len (out, new, nl);
              done++;
            }
          if (!*p)
            break;
          g_string_append_len (out, p, g_utf8_next_char (p) - p);
        }
      return new_str (out);
    }
  while (i < len)
    {
      if (G_UNLIKELY (!cr_value_poll (interp, i + 1, 0, error)))
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if ((count < 0 || done < count) && i + ol <= len && memcmp (s + i, old, ol) == 0)
        {
          g_string_append_len (out, new, nl);
          i += ol;
          done++;
        }
      else
        g_string_append_c (out, s[i++]);
    }
  return new_str (out);
}

static gint64
char_index_of_byte (CrValue *str,
                    gsize    byte)
{
  return (gint64) g_utf8_strlen (str->u.str.data, byte);
}

static gssize
str_search (CrValue *hay,
            CrValue *needle,
            gboolean right)
{
  gsize hl = hay->u.str.len, nl = needle->u.str.len;
  if (nl > hl)
    return -1;
  if (right)
    {
      for (gsize i = hl - nl + 1; i > 0; i--)
        if (memcmp (hay->u.str.data + i - 1, needle->u.str.data, nl) == 0)
          return (gssize) (i - 1);
    }
  else
    for (gsize i = 0; i + nl <= hl; i++)
      if (memcmp (hay->u.str.data + i, needle->u.str.data, nl) == 0)
        return (gssize) i;
  return -1;
}

NATIVE (str_find)
{
  int which = GPOINTER_TO_INT (data);   /* 0 find, 1 rfind, 2 index, 3 rindex */
  const char *name = which == 0 ? "find" : which == 1 ? "rfind" : which == 2 ? "index" : "rindex";
  if (!check_args (name, n_args, 1, 1, n_kwargs, error) || !str_arg (name, args[0], error))
    return NULL;
  gssize pos = str_search (self, args[0], which & 1);
  if (pos < 0)
    {
      if (which >= 2)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "substring not found");
          return NULL;
        }
      return cr_value_new_int (-1);
    }
  return cr_value_new_int (char_index_of_byte (self, (gsize) pos));
}

NATIVE (str_count)
{
  if (!check_args ("count", n_args, 1, 1, n_kwargs, error) || !str_arg ("count", args[0], error))
    return NULL;
  gsize hl = self->u.str.len, nl = args[0]->u.str.len;
  gint64 n = 0;
  if (nl == 0)
    return cr_value_new_int ((gint64) cr_str_char_len (self) + 1);
  for (gsize i = 0; i + nl <= hl;)
    if (memcmp (self->u.str.data + i, args[0]->u.str.data, nl) == 0)
      {
        n++;
        i += nl;
      }
    else
      i++;
  return cr_value_new_int (n);
}

NATIVE (str_affix)
{
  int which = GPOINTER_TO_INT (data);   /* 0 startswith, 1 endswith */
  const char *name = which ? "endswith" : "startswith";
  if (!check_args (name, n_args, 1, 1, n_kwargs, error))
    return NULL;
  CrValue *a = args[0];
  CrValue *const *cands = &a;
  guint n = 1;
  if (a->kind == CR_VALUE_TUPLE)
    {
      cands = (CrValue *const *) a->u.seq.items->pdata;
      n = a->u.seq.items->len;
    }
  for (guint i = 0; i < n; i++)
    {
      CrValue *c = cands[i];
      if (c->kind != CR_VALUE_STR)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "%s first arg must be str or a tuple of str, not %s", name,
                               cr_value_type_name (c));
          return NULL;
        }
      if (c->u.str.len > self->u.str.len)
        continue;
      const char *at = which ? self->u.str.data + self->u.str.len - c->u.str.len : self->u.str.data;
      if (memcmp (at, c->u.str.data, c->u.str.len) == 0)
        return cr_value_new_bool (TRUE);
    }
  return cr_value_new_bool (FALSE);
}

NATIVE (str_removeaffix)
{
  int which = GPOINTER_TO_INT (data);   /* 0 removeprefix, 1 removesuffix */
  if (!check_args (which ? "removesuffix" : "removeprefix", n_args, 1, 1, n_kwargs, error)
      || !str_arg (which ? "removesuffix" : "removeprefix", args[0], error))
    return NULL;
  gsize bl = self->u.str.len, al = args[0]->u.str.len;
  if (al <= bl)
    {
      if (!which && memcmp (self->u.str.data, args[0]->u.str.data, al) == 0)
        return cr_value_new_str_len (self->u.str.data + al, bl - al);
      if (which && memcmp (self->u.str.data + bl - al, args[0]->u.str.data, al) == 0)
        return cr_value_new_str_len (self->u.str.data, bl - al);
    }
  return cr_value_ref (self);
}

/* One fill character of a padding; a checkpoint now and then, as a width
 * may ask for a few gigabytes. Frees out on failure. */
static gboolean
pad_append (CrInterp    *self,
            GString     *out,
            const char  *fill,
            gsize        fill_len,
            gint64       i,
            GError     **error)
{
  if (G_UNLIKELY (!cr_value_poll (self, (gsize) i + 1, 0, error)))
    {
      g_string_free (out, TRUE);
      return FALSE;
    }
  if (fill_len == 1)
    g_string_append_c (out, fill[0]);
  else
    g_string_append_len (out, fill, fill_len);
  return TRUE;
}

NATIVE (str_pad)
{
  int which = GPOINTER_TO_INT (data);   /* 0 center, 1 ljust, 2 rjust */
  const char *name = which == 0 ? "center" : which == 1 ? "ljust" : "rjust";
  if (!check_args (name, n_args, 1, 2, n_kwargs, error))
    return NULL;
  gint64 width;
  if (!cr_value_to_int (args[0], &width, error))
    return NULL;
  const char *fill = " ";
  if (n_args == 2)
    {
      if (args[1]->kind != CR_VALUE_STR || cr_str_char_len (args[1]) != 1)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "The fill character must be exactly one character long");
          return NULL;
        }
      fill = args[1]->u.str.data;
    }
  gint64 len = (gint64) cr_str_char_len (self);
  if (width <= len)
    return cr_value_ref (self);
  gint64 total = width - len, left;
  if (which == 1)
    left = 0;
  else if (which == 2)
    left = total;
  else
    left = total / 2 + (total & width & 1);
  gsize fill_len = strlen (fill), fill_bytes = 0;
  if (!cr_value_check_alloc (g_size_checked_mul (&fill_bytes, (gsize) total, fill_len)
                             && fill_bytes <= G_MAXSIZE - self->u.str.len
                             ? fill_bytes + self->u.str.len : G_MAXSIZE, error))
    return NULL;
  GString *out = g_string_sized_new (fill_bytes + self->u.str.len);
  for (gint64 i = 0; i < left; i++)
    if (G_UNLIKELY (!pad_append (interp, out, fill, fill_len, i, error)))
      return NULL;
  g_string_append_len (out, self->u.str.data, self->u.str.len);
  for (gint64 i = left; i < total; i++)
    if (G_UNLIKELY (!pad_append (interp, out, fill, fill_len, i, error)))
      return NULL;
  return new_str (out);
}

NATIVE (str_zfill)
{
  if (!check_args ("zfill", n_args, 1, 1, n_kwargs, error))
    return NULL;
  gint64 width;
  if (!cr_value_to_int (args[0], &width, error))
    return NULL;
  gint64 len = (gint64) cr_str_char_len (self);
  if (width <= len)
    return cr_value_ref (self);
  if (!cr_value_check_alloc ((gsize) (width - len) + self->u.str.len, error))
    return NULL;
  GString *out = g_string_sized_new ((gsize) (width - len) + self->u.str.len);
  const char *s = self->u.str.data;
  if (s[0] == '+' || s[0] == '-')
    g_string_append_c (out, *s++);
  for (gint64 i = len; i < width; i++)
    if (G_UNLIKELY (!pad_append (interp, out, "0", 1, i, error)))
      return NULL;
  g_string_append (out, s);
  return new_str (out);
}

NATIVE (str_predicate)
{
  if (!check_args ("isdigit", n_args, 0, 0, n_kwargs, error))
    return NULL;
  int which = GPOINTER_TO_INT (data);
  const char *s = self->u.str.data;
  if (!*s)
    return cr_value_new_bool (FALSE);
  gboolean any_cased = FALSE;
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      gboolean ok;
      switch (which)
        {
        case 0: ok = g_unichar_isdigit (c); break;
        case 1: ok = g_unichar_isalpha (c); break;
        case 2: ok = g_unichar_isalnum (c); break;
        case 3: ok = g_unichar_isspace (c); break;
        case 4: ok = !g_unichar_islower (c); any_cased |= g_unichar_isupper (c); break;
        default: ok = !g_unichar_isupper (c); any_cased |= g_unichar_islower (c); break;
        }
      if (!ok)
        return cr_value_new_bool (FALSE);
    }
  return cr_value_new_bool (which < 4 || any_cased);
}

/* Python's str.istitle: cased characters follow the uncased ones in
 * title case (upper after uncased, lower after cased), at least one. */
NATIVE (str_istitle)
{
  (void) interp;
  (void) data;
  if (!check_args ("istitle", n_args, 0, 0, n_kwargs, error))
    return NULL;
  gboolean cased = FALSE, previous_cased = FALSE;
  for (const char *p = self->u.str.data; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_isupper (c) || g_unichar_istitle (c))
        {
          if (previous_cased)
            return cr_value_new_bool (FALSE);
          previous_cased = cased = TRUE;
        }
      else if (g_unichar_islower (c))
        {
          if (!previous_cased)
            return cr_value_new_bool (FALSE);
          previous_cased = cased = TRUE;
        }
      else
        previous_cased = FALSE;
    }
  return cr_value_new_bool (cased);
}

NATIVE (str_partition)
{
  gboolean right = GPOINTER_TO_INT (data);
  if (!check_args (right ? "rpartition" : "partition", n_args, 1, 1, n_kwargs, error)
      || !str_arg ("partition", args[0], error))
    return NULL;
  if (args[0]->u.str.len == 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "empty separator");
      return NULL;
    }
  gssize pos = str_search (self, args[0], right);
  CrValue *parts[3];
  if (pos < 0)
    {
      CrValue *empty = cr_value_new_str ("");
      parts[0] = right ? cr_value_ref (empty) : cr_value_ref (self);
      parts[1] = cr_value_ref (empty);
      parts[2] = right ? cr_value_ref (self) : cr_value_ref (empty);
      cr_value_unref (empty);
    }
  else
    {
      parts[0] = cr_value_new_str_len (self->u.str.data, (gsize) pos);
      parts[1] = cr_value_ref (args[0]);
      gsize after = (gsize) pos + args[0]->u.str.len;
      parts[2] = cr_value_new_str_len (self->u.str.data + after, self->u.str.len - after);
    }
  CrValue *t = cr_value_new_tuple (parts, 3);
  for (int i = 0; i < 3; i++)
    cr_value_unref (parts[i]);
  return t;
}

/* str.format: "{}", "{0}", "{name}", "{x.attr}", "{x[0]}", "{!r}", "{:spec}",
 * "{:{width}}" and "{{" / "}}". */
static gboolean
format_field (CrInterp       *self,
              const char     *field,
              CrValue *const *args,
              guint           n_args,
              const CrKwarg  *kwargs,
              guint           n_kwargs,
              guint          *auto_index,
              GString        *out,
              GError        **error);

static char *
format_string (CrInterp       *self,
               const char     *fmt,
               CrValue *const *args,
               guint           n_args,
               const CrKwarg  *kwargs,
               guint           n_kwargs,
               guint          *auto_index,
               GError        **error)
{
  GString *out = g_string_new (NULL);
  for (const char *p = fmt; *p; p++)
    {
      if (*p == '{')
        {
          if (p[1] == '{')
            {
              g_string_append_c (out, '{');
              p++;
              continue;
            }
          int depth = 1;
          const char *q = p + 1;
          while (*q && depth > 0)
            {
              if (*q == '{')
                depth++;
              else if (*q == '}')
                depth--;
              if (depth > 0)
                q++;
            }
          if (!*q)
            {
              cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "expected '}' before end of string");
              g_string_free (out, TRUE);
              return NULL;
            }
          g_autofree char *field = g_strndup (p + 1, q - p - 1);
          if (!cr_value_check_alloc (out->len, error)
              || !format_field (self, field, args, n_args, kwargs, n_kwargs, auto_index, out, error))
            {
              g_string_free (out, TRUE);
              return NULL;
            }
          p = q;
          continue;
        }
      if (*p == '}')
        {
          if (p[1] == '}')
            {
              g_string_append_c (out, '}');
              p++;
              continue;
            }
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "Single '}' encountered in format string");
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static gboolean
format_field (CrInterp       *self,
              const char     *field,
              CrValue *const *args,
              guint           n_args,
              const CrKwarg  *kwargs,
              guint           n_kwargs,
              guint          *auto_index,
              GString        *out,
              GError        **error)
{
  /* Split "name!conv:spec" (the spec may hold nested fields). */
  const char *colon = NULL, *bang = NULL;
  int depth = 0;
  for (const char *p = field; *p; p++)
    {
      if (*p == '[')
        depth++;
      else if (*p == ']')
        depth--;
      else if (depth == 0 && *p == '!' && !bang && !colon)
        bang = p;
      else if (depth == 0 && *p == ':' && !colon)
        {
          colon = p;
          break;
        }
    }
  const char *name_end = bang ? bang : colon ? colon : field + strlen (field);
  g_autofree char *name = g_strndup (field, name_end - field);
  char conv = bang ? bang[1] : 0;
  g_autofree char *raw_spec = g_strdup (colon ? colon + 1 : "");
  g_autofree char *spec = NULL;

  /* The first part of the name: an index, a keyword or empty (automatic). */
  gsize head_len = strcspn (name, ".[");
  g_autofree char *head = g_strndup (name, head_len);
  CrValue *v = NULL;
  if (head[0] == '\0')
    {
      if (*auto_index >= n_args)
        {
          cr_interp_set_error (error, CR_EXC_INDEX_ERROR,
                               "Replacement index %u out of range for positional args tuple",
                               *auto_index);
          return FALSE;
        }
      v = cr_value_ref (args[(*auto_index)++]);
    }
  else if (g_ascii_isdigit (head[0]))
    {
      guint64 i = g_ascii_strtoull (head, NULL, 10);
      if (i >= n_args)
        {
          cr_interp_set_error (error, CR_EXC_INDEX_ERROR,
                               "Replacement index %" G_GUINT64_FORMAT " out of range for positional args tuple",
                               i);
          return FALSE;
        }
      v = cr_value_ref (args[i]);
    }
  else
    {
      for (guint k = 0; k < n_kwargs && !v; k++)
        if (strcmp (kwargs[k].name, head) == 0)
          v = cr_value_ref (kwargs[k].value);
      if (!v)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, "'%s'", head);
          return FALSE;
        }
    }
  for (const char *p = name + head_len; *p;)
    {
      CrValue *next = NULL;
      if (*p == '.')
        {
          gsize n = strcspn (p + 1, ".[");
          g_autofree char *attr = g_strndup (p + 1, n);
          next = cr_interp_getattr (self, v, attr, error);
          p += 1 + n;
        }
      else
        {
          const char *close = strchr (p, ']');
          if (!close)
            {
              cr_value_unref (v);
              cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "Missing ']' in format string");
              return FALSE;
            }
          g_autofree char *key = g_strndup (p + 1, close - p - 1);
          CrValue *k = g_ascii_isdigit (key[0]) ? cr_value_new_int (g_ascii_strtoll (key, NULL, 10))
                                                : cr_value_new_str (key);
          next = cr_interp_getitem (self, v, k, error);
          cr_value_unref (k);
          p = close + 1;
        }
      cr_value_unref (v);
      if (!next)
        return FALSE;
      v = next;
    }
  if (conv)
    {
      char *s = conv == 's' ? cr_value_str (self, v, error) : cr_value_repr (self, v, error);
      cr_value_unref (v);
      if (!s)
        return FALSE;
      v = cr_value_new_str_take (s);
    }
  /* Nested fields in the spec come after the field itself in automatic
   * numbering: "{:{}.{}f}".format(x, w, p). */
  if (strchr (raw_spec, '{'))
    {
      spec = format_string (self, raw_spec, args, n_args, kwargs, n_kwargs, auto_index, error);
      if (!spec)
        {
          cr_value_unref (v);
          return FALSE;
        }
    }
  else
    spec = g_strdup (raw_spec);
  char *s = cr_format_value (self, v, spec, error);
  cr_value_unref (v);
  if (!s)
    return FALSE;
  g_string_append (out, s);
  g_free (s);
  return TRUE;
}

NATIVE (str_format)
{
  guint auto_index = 0;
  char *s = format_string (interp, self->u.str.data, args, n_args, kwargs, n_kwargs, &auto_index,
                           error);
  return s ? cr_value_new_str_take (s) : NULL;
}

/* ---- list and tuple -------------------------------------------------------------------------------- */

NATIVE (list_append)
{
  if (!check_args ("append", n_args, 1, 1, n_kwargs, error))
    return NULL;
  cr_list_append (self, args[0]);
  return cr_value_none ();
}

NATIVE (list_extend)
{
  if (!check_args ("extend", n_args, 1, 1, n_kwargs, error))
    return NULL;
  CrValue *items = cr_iter_to_list (interp, args[0], error);
  if (!items)
    return NULL;
  for (guint i = 0; i < items->u.seq.items->len; i++)
    cr_list_append (self, items->u.seq.items->pdata[i]);
  cr_value_unref (items);
  return cr_value_none ();
}

NATIVE (list_insert)
{
  gint64 i;
  if (!check_args ("insert", n_args, 2, 2, n_kwargs, error) || !cr_value_to_int (args[0], &i, error))
    return NULL;
  gint64 len = self->u.seq.items->len;
  if (i < 0)
    i = MAX (0, i + len);
  if (i > len)
    i = len;
  g_ptr_array_insert (self->u.seq.items, (gint) i, cr_value_ref (args[1]));
  cr_seq_account (self);
  return cr_value_none ();
}

NATIVE (list_pop)
{
  if (!check_args ("pop", n_args, 0, 1, n_kwargs, error))
    return NULL;
  GPtrArray *items = self->u.seq.items;
  if (items->len == 0)
    {
      cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "pop from empty list");
      return NULL;
    }
  gint64 i = (gint64) items->len - 1;
  if (n_args == 1)
    {
      if (!cr_value_to_int (args[0], &i, error))
        return NULL;
      if (i < 0)
        i += items->len;
      if (i < 0 || i >= (gint64) items->len)
        {
          cr_interp_set_error (error, CR_EXC_INDEX_ERROR, "pop index out of range");
          return NULL;
        }
    }
  CrValue *v = cr_value_ref (items->pdata[i]);
  g_ptr_array_remove_index (items, (guint) i);
  cr_seq_account (self);
  return v;
}

static gint64
seq_find (CrInterp *self,
          CrValue  *seq,
          CrValue  *x,
          GError  **error)
{
  for (guint i = 0; i < seq->u.seq.items->len; i++)
    {
      CrValue *item = seq->u.seq.items->pdata[i];
      if (G_UNLIKELY (!cr_value_poll (self, i + 1, 0, error)))
        return -2;
      if (item == x)
        return i;
      CrValue *r = cr_compare_op (self, CR_CMP_EQ, item, x, error);
      if (!r)
        return -2;
      gboolean t;
      gboolean ok = cr_value_truthy (self, r, &t, error);
      cr_value_unref (r);
      if (!ok)
        return -2;
      if (t)
        return i;
    }
  return -1;
}

NATIVE (list_remove)
{
  if (!check_args ("remove", n_args, 1, 1, n_kwargs, error))
    return NULL;
  gint64 i = seq_find (interp, self, args[0], error);
  if (i == -2)
    return NULL;
  if (i < 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "list.remove(x): x not in list");
      return NULL;
    }
  g_ptr_array_remove_index (self->u.seq.items, (guint) i);
  cr_seq_account (self);
  return cr_value_none ();
}

NATIVE (seq_index)
{
  if (!check_args ("index", n_args, 1, 1, n_kwargs, error))
    return NULL;
  gint64 i = seq_find (interp, self, args[0], error);
  if (i == -2)
    return NULL;
  if (i < 0)
    {
      if (self->kind == CR_VALUE_TUPLE)
        cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "tuple.index(x): x not in tuple");
      else
        {
          g_autofree char *r = cr_value_repr (interp, args[0], NULL);
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "%s is not in list", r ? r : "?");
        }
      return NULL;
    }
  return cr_value_new_int (i);
}

NATIVE (seq_count)
{
  if (!check_args ("count", n_args, 1, 1, n_kwargs, error))
    return NULL;
  gint64 n = 0;
  for (guint i = 0; i < self->u.seq.items->len; i++)
    {
      CrValue *item = self->u.seq.items->pdata[i];
      if (G_UNLIKELY (!cr_value_poll (interp, i + 1, 0, error)))
        return NULL;
      if (item == args[0] || cr_value_equal (item, args[0]))
        n++;
    }
  return cr_value_new_int (n);
}

NATIVE (list_sort)
{
  CrValue *key = NULL, *reverse = NULL;
  if (!cr_args_parse ("sort", args, n_args, kwargs, n_kwargs, error, "|$key", &key, "$reverse",
                      &reverse, NULL))
    return NULL;
  gboolean rev = FALSE;
  if (reverse && !cr_value_truthy (interp, reverse, &rev, error))
    return NULL;
  if (!cr_sort_list (interp, self, key, rev, error))
    return NULL;
  return cr_value_none ();
}

NATIVE (list_reverse)
{
  if (!check_args ("reverse", n_args, 0, 0, n_kwargs, error))
    return NULL;
  GPtrArray *items = self->u.seq.items;
  for (guint i = 0, j = items->len ? items->len - 1 : 0; i < j; i++, j--)
    {
      gpointer t = items->pdata[i];
      items->pdata[i] = items->pdata[j];
      items->pdata[j] = t;
    }
  return cr_value_none ();
}

NATIVE (list_clear)
{
  if (!check_args ("clear", n_args, 0, 0, n_kwargs, error))
    return NULL;
  if (self->kind == CR_VALUE_DICT)
    cr_dict_clear (self);
  else
    {
      g_ptr_array_set_size (self->u.seq.items, 0);
      cr_seq_account (self);
    }
  return cr_value_none ();
}

NATIVE (list_copy)
{
  if (!check_args ("copy", n_args, 0, 0, n_kwargs, error))
    return NULL;
  if (self->kind == CR_VALUE_DICT)
    {
      CrValue *d = cr_value_new_dict ();
      cr_dict_update_from (interp, d, self, NULL);
      return d;
    }
  return cr_iter_to_list (interp, self, error);
}

/* ---- dict ---------------------------------------------------------------------------------------------- */

NATIVE (dict_view)
{
  int which = GPOINTER_TO_INT (data);   /* 0 keys, 1 values, 2 items */
  if (!check_args (which == 0 ? "keys" : which == 1 ? "values" : "items", n_args, 0, 0, n_kwargs,
                   error))
    return NULL;
  return cr_seq_view_new_dict (self, which);
}

NATIVE (dict_get)
{
  if (!check_args ("get", n_args, 1, 2, n_kwargs, error))
    return NULL;
  CrValue *v = cr_dict_get (self, args[0], error);
  if (v)
    return cr_value_ref (v);
  if (error && *error)
    return NULL;
  return cr_value_ref (n_args == 2 ? args[1] : cr_value_none ());
}

NATIVE (dict_pop)
{
  if (!check_args ("pop", n_args, 1, 2, n_kwargs, error))
    return NULL;
  CrValue *v = cr_dict_get (self, args[0], error);
  if (!v)
    {
      if (error && *error)
        return NULL;
      if (n_args == 2)
        return cr_value_ref (args[1]);
      g_autofree char *r = cr_value_repr (interp, args[0], NULL);
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, r ? r : "?");
      return NULL;
    }
  cr_value_ref (v);
  cr_dict_delete (self, args[0], NULL);
  return v;
}

NATIVE (dict_popitem)
{
  if (!check_args ("popitem", n_args, 0, 0, n_kwargs, error))
    return NULL;
  guint n = cr_dict_len (self);
  if (n == 0)
    {
      cr_interp_set_error (error, CR_EXC_KEY_ERROR, "'popitem(): dictionary is empty'");
      return NULL;
    }
  CrValue *pair[2] = { cr_value_ref (cr_dict_key_at (self, n - 1)),
                       cr_value_ref (cr_dict_value_at (self, n - 1)) };
  cr_dict_delete (self, pair[0], NULL);
  CrValue *t = cr_value_new_tuple (pair, 2);
  cr_value_unref (pair[0]);
  cr_value_unref (pair[1]);
  return t;
}

NATIVE (dict_setdefault)
{
  if (!check_args ("setdefault", n_args, 1, 2, n_kwargs, error))
    return NULL;
  CrValue *v = cr_dict_get (self, args[0], error);
  if (v)
    return cr_value_ref (v);
  if (error && *error)
    return NULL;
  CrValue *d = n_args == 2 ? args[1] : cr_value_none ();
  if (!cr_dict_set (self, args[0], d, error))
    return NULL;
  return cr_value_ref (d);
}

NATIVE (dict_update)
{
  if (n_args > 1)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "update expected at most 1 argument, got %u", n_args);
      return NULL;
    }
  if (n_args == 1 && !cr_dict_update_from (interp, self, args[0], error))
    return NULL;
  for (guint k = 0; k < n_kwargs; k++)
    {
      CrValue *key = cr_value_new_str (kwargs[k].name);
      cr_dict_set (self, key, kwargs[k].value, NULL);
      cr_value_unref (key);
    }
  return cr_value_none ();
}

/* ---- numbers ------------------------------------------------------------------------------------------ */

NATIVE (float_is_integer)
{
  if (!check_args ("is_integer", n_args, 0, 0, n_kwargs, error))
    return NULL;
  if (self->kind != CR_VALUE_FLOAT)
    return cr_value_new_bool (TRUE);
  return cr_value_new_bool (isfinite (self->u.f) && self->u.f == floor (self->u.f));
}

NATIVE (int_bit_length)
{
  if (!check_args ("bit_length", n_args, 0, 0, n_kwargs, error))
    return NULL;
  gint64 i = self->kind == CR_VALUE_INT ? self->u.i : self->u.b;
  guint64 u = i < 0 ? (guint64) 0 - (guint64) i : (guint64) i;
  int n = 0;
  while (u)
    {
      n++;
      u >>= 1;
    }
  return cr_value_new_int (n);
}

NATIVE (number_conjugate)
{
  if (!check_args ("conjugate", n_args, 0, 0, n_kwargs, error))
    return NULL;
  if (self->kind == CR_VALUE_BOOL)
    return cr_value_new_int (self->u.b);
  return cr_value_ref (self);
}

NATIVE (size_numel)
{
  if (!check_args ("numel", n_args, 0, 0, n_kwargs, error))
    return NULL;
  gint64 n = 1;
  for (guint i = 0; i < self->u.seq.items->len; i++)
    {
      CrValue *d = self->u.seq.items->pdata[i];
      n *= d->kind == CR_VALUE_INT ? d->u.i : 0;
    }
  return cr_value_new_int (n);
}

/* ---- tables ------------------------------------------------------------------------------------------- */

typedef struct {
  const char   *name;
  CrNativeFunc  fn;
  int           data;
} MethodDef;

static const MethodDef str_methods[] = {
  { "upper", str_case, 0 }, { "lower", str_case, 1 }, { "title", str_case, 2 },
  { "capitalize", str_case, 3 }, { "swapcase", str_case, 4 },
  { "strip", str_strip, 0 }, { "lstrip", str_strip, 1 }, { "rstrip", str_strip, 2 },
  { "split", str_split, 0 }, { "rsplit", str_split, 1 }, { "splitlines", str_splitlines, 0 },
  { "join", str_join, 0 }, { "replace", str_replace, 0 },
  { "find", str_find, 0 }, { "rfind", str_find, 1 }, { "index", str_find, 2 }, { "rindex", str_find, 3 },
  { "count", str_count, 0 }, { "startswith", str_affix, 0 }, { "endswith", str_affix, 1 },
  { "removeprefix", str_removeaffix, 0 }, { "removesuffix", str_removeaffix, 1 },
  { "center", str_pad, 0 }, { "ljust", str_pad, 1 }, { "rjust", str_pad, 2 }, { "zfill", str_zfill, 0 },
  { "isdigit", str_predicate, 0 }, { "isnumeric", str_predicate, 0 }, { "isdecimal", str_predicate, 0 },
  { "isalpha", str_predicate, 1 }, { "isalnum", str_predicate, 2 }, { "isspace", str_predicate, 3 },
  { "isupper", str_predicate, 4 }, { "islower", str_predicate, 5 },
  { "istitle", str_istitle, 0 },
  { "partition", str_partition, 0 }, { "rpartition", str_partition, 1 },
  { "format", str_format, 0 },
  { NULL }
};

static const MethodDef list_methods[] = {
  { "append", list_append, 0 }, { "extend", list_extend, 0 }, { "insert", list_insert, 0 },
  { "pop", list_pop, 0 }, { "remove", list_remove, 0 }, { "index", seq_index, 0 },
  { "count", seq_count, 0 }, { "sort", list_sort, 0 }, { "reverse", list_reverse, 0 },
  { "clear", list_clear, 0 }, { "copy", list_copy, 0 },
  { NULL }
};

static const MethodDef tuple_methods[] = {
  { "index", seq_index, 0 }, { "count", seq_count, 0 },
  { NULL }
};

static const MethodDef dict_methods[] = {
  { "keys", dict_view, 0 }, { "values", dict_view, 1 }, { "items", dict_view, 2 },
  { "get", dict_get, 0 }, { "pop", dict_pop, 0 }, { "popitem", dict_popitem, 0 },
  { "setdefault", dict_setdefault, 0 }, { "update", dict_update, 0 },
  { "clear", list_clear, 0 }, { "copy", list_copy, 0 },
  { NULL }
};

static const MethodDef int_methods[] = {
  { "bit_length", int_bit_length, 0 }, { "conjugate", number_conjugate, 0 },
  { "is_integer", float_is_integer, 0 },
  { NULL }
};

static const MethodDef float_methods[] = {
  { "is_integer", float_is_integer, 0 }, { "conjugate", number_conjugate, 0 },
  { NULL }
};

static void
install_table (CrInterp        *self,
               CrValueKind      kind,
               const MethodDef *defs)
{
  GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);
  for (const MethodDef *d = defs; d->name; d++)
    g_hash_table_insert (table, (gpointer) d->name, (gpointer) d);
  g_hash_table_insert (self->method_tables, GINT_TO_POINTER (kind), table);
}

void
cr_methods_install (CrInterp *self)
{
  install_table (self, CR_VALUE_STR, str_methods);
  install_table (self, CR_VALUE_LIST, list_methods);
  install_table (self, CR_VALUE_TUPLE, tuple_methods);
  install_table (self, CR_VALUE_DICT, dict_methods);
  install_table (self, CR_VALUE_INT, int_methods);
  install_table (self, CR_VALUE_BOOL, int_methods);
  install_table (self, CR_VALUE_FLOAT, float_methods);
}

/* The bound value is the type object; data the method's definition. */
NATIVE (unbound_call)
{
  const MethodDef *d = data;
  CrValue *k = g_hash_table_lookup (self->u.cls.attrs, "__cr_kind__");
  CrValueKind kind = (CrValueKind) k->u.i;
  const char *type_name = self->u.cls.name;
  if (n_args == 0)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "unbound method %s.%s() needs an argument",
                           type_name, d->name);
      return NULL;
    }
  CrValue *obj = args[0];
  gboolean ok = obj->kind == kind
                || (kind == CR_VALUE_INT && obj->kind == CR_VALUE_BOOL)
                || (kind == CR_VALUE_TUPLE && obj->kind == CR_VALUE_TUPLE);
  if (!ok)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "descriptor '%s' for '%s' objects doesn't apply to a '%s' object",
                           d->name, type_name, cr_value_type_name (obj));
      return NULL;
    }
  return d->fn (interp, obj, args + 1, n_args - 1, kwargs, n_kwargs,
                GINT_TO_POINTER (d->data), error);
}

CrValue *
cr_builtin_unbound_method (CrInterp   *self,
                           CrValue    *cls,
                           const char *name)
{
  CrValue *k = g_hash_table_lookup (cls->u.cls.attrs, "__cr_kind__");
  if (!k || k->kind != CR_VALUE_INT || k->u.i < 0)
    return NULL;
  GHashTable *table = g_hash_table_lookup (self->method_tables, GINT_TO_POINTER ((int) k->u.i));
  const MethodDef *d = table ? g_hash_table_lookup (table, name) : NULL;
  if (!d)
    return NULL;
  return cr_value_new_native (d->name, unbound_call, cls, (gpointer) d);
}

CrValue *
cr_builtin_method (CrInterp   *self,
                   CrValue    *obj,
                   const char *name)
{
  if (cr_value_is_number (obj))
    {
      if (strcmp (name, "real") == 0)
        return obj->kind == CR_VALUE_BOOL ? cr_value_new_int (obj->u.b) : cr_value_ref (obj);
      if (strcmp (name, "imag") == 0)
        return obj->kind == CR_VALUE_FLOAT ? cr_value_new_float (0.0) : cr_value_new_int (0);
    }
  if (obj->kind == CR_VALUE_SLICE)
    {
      if (strcmp (name, "start") == 0)
        return cr_value_ref (obj->u.slice.start);
      if (strcmp (name, "stop") == 0)
        return cr_value_ref (obj->u.slice.stop);
      if (strcmp (name, "step") == 0)
        return cr_value_ref (obj->u.slice.step);
    }
  if (obj->kind == CR_VALUE_RANGE)
    {
      if (strcmp (name, "start") == 0)
        return cr_value_new_int (obj->u.range.start);
      if (strcmp (name, "stop") == 0)
        return cr_value_new_int (obj->u.range.stop);
      if (strcmp (name, "step") == 0)
        return cr_value_new_int (obj->u.range.step);
    }
  if (obj->kind == CR_VALUE_TUPLE && obj->u.seq.is_size && strcmp (name, "numel") == 0)
    return cr_value_new_native ("numel", size_numel, obj, NULL);
  GHashTable *table = g_hash_table_lookup (self->method_tables, GINT_TO_POINTER (obj->kind));
  if (!table)
    return NULL;
  const MethodDef *d = g_hash_table_lookup (table, name);
  if (!d)
    return NULL;
  return cr_value_new_native (d->name, d->fn, obj, GINT_TO_POINTER (d->data));
}
