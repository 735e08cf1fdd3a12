/* cr-value-set.c — Python's set: a native object over an insertion-ordered
 * dict whose keys are the elements (CPython orders small int sets by hash,
 * which for non-negative ints below the table size is their value; other
 * sets print in an order scripts should not rely on).
 */
#include "cr-interp-private.h"

#include <string.h>

#include "cr-native.h"

static void
set_destroy (gpointer data)
{
  cr_value_unref (data);
}

/* CPython's slot search for a new key (set_insert_clean, LINEAR_PROBES 9,
 * PERTURB_SHIFT 5). */
static gsize
free_slot (const gint *table,
           gsize       mask,
           gint64      hash)
{
  gsize perturb = (gsize) hash;
  gsize i = (gsize) hash & mask;
  for (;;)
    {
      if (table[i] < 0)
        return i;
      if (i + 9 <= mask)
        for (gsize j = 1; j <= 9; j++)
          if (table[i + j] < 0)
            return i + j;
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & mask;
    }
}

/* The order CPython iterates a set of ints in (their hash is the value, -1
 * hashes as -2): the keys placed into its open-addressing table in our
 * insertion order, with its growth rule. Other sets keep insertion order
 * (CPython's order for str depends on a random hash seed). */
static void
iteration_order (CrValue *dict,
                 guint   *order)
{
  guint n = cr_dict_len (dict);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint i = 0; i < n; i++)
    {
      CrValue *k = cr_dict_key_at (dict, i);
      if (k->kind != CR_VALUE_INT && k->kind != CR_VALUE_BOOL)
        return;
      if (k->kind == CR_VALUE_INT && (k->u.i > G_GINT64_CONSTANT (0x1fffffffffffffff)
                                      || k->u.i < -G_GINT64_CONSTANT (0x1fffffffffffffff)))
        return;
    }
  gsize size = 8;
  gint *table = g_new (gint, size);
  memset (table, 0xff, size * sizeof (gint));
  guint fill = 0;
  for (guint i = 0; i < n; i++)
    {
      CrValue *k = cr_dict_key_at (dict, i);
      gint64 h = k->kind == CR_VALUE_BOOL ? k->u.b : k->u.i;
      if (h == -1)
        h = -2;
      table[free_slot (table, size - 1, h)] = (gint) i;
      fill++;
      if ((gsize) fill * 5 >= (size - 1) * 3)
        {
          gsize want = (gsize) fill * 4, newsize = 8;
          while (newsize <= want)
            newsize <<= 1;
          gint *bigger = g_new (gint, newsize);
          memset (bigger, 0xff, newsize * sizeof (gint));
          for (gsize s = 0; s < size; s++)
            if (table[s] >= 0)
              {
                CrValue *kk = cr_dict_key_at (dict, (guint) table[s]);
                gint64 hh = kk->kind == CR_VALUE_BOOL ? kk->u.b : kk->u.i;
                if (hh == -1)
                  hh = -2;
                bigger[free_slot (bigger, newsize - 1, hh)] = table[s];
              }
          g_free (table);
          table = bigger;
          size = newsize;
        }
    }
  guint j = 0;
  for (gsize s = 0; s < size; s++)
    if (table[s] >= 0)
      order[j++] = (guint) table[s];
  g_free (table);
}

/* The elements in iteration order (a new tuple). */
static CrValue *
set_as_tuple (CrValue *v)
{
  CrValue *dict = v->u.object.data;
  guint n = cr_dict_len (dict);
  guint *order = g_new (guint, n + 1);
  iteration_order (dict, order);
  CrValue **items = g_new (CrValue *, n + 1);
  for (guint i = 0; i < n; i++)
    items[i] = cr_dict_key_at (dict, order[i]);
  CrValue *t = cr_value_new_tuple (items, n);
  g_free (items);
  g_free (order);
  return t;
}

CrValue *
cr_set_items (CrValue *set)
{
  return set_as_tuple (set);
}

static gboolean
set_equal (CrValue *a,
           CrValue *b)
{
  if (b->kind != CR_VALUE_OBJECT || b->u.object.type != &cr_set_type)
    return FALSE;
  CrValue *da = a->u.object.data, *db = b->u.object.data;
  if (cr_dict_len (da) != cr_dict_len (db))
    return FALSE;
  for (guint i = 0; i < cr_dict_len (da); i++)
    if (!cr_dict_get (db, cr_dict_key_at (da, i), NULL))
      return FALSE;
  return TRUE;
}

static CrValue *set_get_attr (CrInterp *interp, CrValue *v, const char *name, GError **error);

const CrObjectType cr_set_type = {
  .name = "set",
  .destroy = set_destroy,
  .get_attr = set_get_attr,
  .equal = set_equal,
  .as_tuple = set_as_tuple,
};

CrValue *
cr_set_new (void)
{
  return cr_value_new_object (&cr_set_type, cr_value_new_dict ());
}

gboolean
cr_value_is_set (CrValue *v)
{
  return v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_set_type;
}

CrValue *
cr_set_dict (CrValue *set)
{
  return set->u.object.data;
}

gboolean
cr_set_add (CrValue  *set,
            CrValue  *item,
            GError  **error)
{
  CrValue *dict = set->u.object.data;
  if (cr_dict_get (dict, item, NULL))
    return TRUE;
  CrValue *none = cr_value_none ();
  gboolean ok = cr_dict_set (dict, item, none, error);
  cr_value_unref (none);
  return ok;
}

/* A new set of what iterable yields. */
CrValue *
cr_set_from_iterable (CrInterp  *self,
                      CrValue   *iterable,
                      GError   **error)
{
  CrValue *list = cr_iter_to_list (self, iterable, error);
  if (!list)
    return NULL;
  CrValue *set = cr_set_new ();
  for (guint i = 0; i < cr_seq_len (list); i++)
    if (!cr_set_add (set, cr_seq_get (list, i), error))
      {
        cr_value_unref (set);
        set = NULL;
        break;
      }
  cr_value_unref (list);
  return set;
}

/* ---- operators ---- */

/* a | b, a & b, a - b, a ^ b: data is the operator character. */
CrValue *
cr_set_binop (CrValue  *a,
              CrValue  *b,
              char      op,
              GError  **error)
{
  CrValue *da = a->u.object.data, *db = b->u.object.data;
  CrValue *r = cr_set_new ();
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < cr_dict_len (da); i++)
    {
      CrValue *k = cr_dict_key_at (da, i);
      gboolean in_b = cr_dict_get (db, k, NULL) != NULL;
      if (op == '|' || (op == '&' && in_b) || ((op == '-' || op == '^') && !in_b))
        ok = cr_set_add (r, k, error);
    }
  for (guint i = 0; ok && (op == '|' || op == '^') && i < cr_dict_len (db); i++)
    {
      CrValue *k = cr_dict_key_at (db, i);
      if (op == '|' || !cr_dict_get (da, k, NULL))
        ok = cr_set_add (r, k, error);
    }
  if (!ok)
    {
      cr_value_unref (r);
      return NULL;
    }
  return r;
}

/* ---- methods ---- */

static gboolean
arg_count (const char *name,
           guint       n_args,
           guint       want,
           guint       n_kwargs,
           GError    **error)
{
  if (n_kwargs > 0)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "set.%s() takes no keyword arguments", name);
      return FALSE;
    }
  if (n_args != want)
    {
      if (want == 0)
        cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "set.%s() takes no arguments (%u given)",
                             name, n_args);
      else
        cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                             "set.%s() takes exactly one argument (%u given)", name, n_args);
      return FALSE;
    }
  return TRUE;
}

/* A set for an argument: itself, or a new one of what it yields. */
static CrValue *
as_set (CrInterp  *self,
        CrValue   *v,
        GError   **error)
{
  if (cr_value_is_set (v))
    return cr_value_ref (v);
  return cr_set_from_iterable (self, v, error);
}

NATIVE (set_method)
{
  const char *name = data;
  CrValue *dict = self->u.object.data;
  (void) kwargs;

  if (strcmp (name, "add") == 0 || strcmp (name, "discard") == 0 || strcmp (name, "remove") == 0)
    {
      if (!arg_count (name, n_args, 1, n_kwargs, error))
        return NULL;
      if (name[0] == 'a')
        return cr_set_add (self, args[0], error) ? cr_value_none () : NULL;
      GError *local = NULL;
      CrValue *found = cr_dict_get (dict, args[0], &local);
      if (local)
        {
          g_propagate_error (error, local);
          return NULL;
        }
      if (!found)
        {
          if (name[0] == 'r')
            {
              char *r = cr_value_repr (interp, args[0], error);
              if (r)
                g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, r);
              g_free (r);
              return NULL;
            }
          return cr_value_none ();
        }
      /* Rebuild without the element (the dict has no delete of its own here). */
      CrValue *rest = cr_value_new_dict ();
      CrValue *none = cr_value_none ();
      CrValue *gone = cr_value_new_dict ();
      cr_dict_set (gone, args[0], none, NULL);
      for (guint i = 0; i < cr_dict_len (dict); i++)
        {
          CrValue *k = cr_dict_key_at (dict, i);
          if (!cr_dict_get (gone, k, NULL))
            cr_dict_set (rest, k, none, NULL);
        }
      cr_value_unref (gone);
      cr_value_unref (none);
      cr_value_unref (dict);
      self->u.object.data = rest;
      return cr_value_none ();
    }
  if (strcmp (name, "clear") == 0)
    {
      if (!arg_count (name, n_args, 0, n_kwargs, error))
        return NULL;
      cr_value_unref (dict);
      self->u.object.data = cr_value_new_dict ();
      return cr_value_none ();
    }
  if (strcmp (name, "copy") == 0)
    {
      if (!arg_count (name, n_args, 0, n_kwargs, error))
        return NULL;
      CrValue *r = cr_set_new ();
      for (guint i = 0; i < cr_dict_len (dict); i++)
        cr_set_add (r, cr_dict_key_at (dict, i), NULL);
      return r;
    }
  if (strcmp (name, "update") == 0)
    {
      if (n_kwargs > 0)
        {
          arg_count (name, 0, 1, n_kwargs, error);
          return NULL;
        }
      for (guint a = 0; a < n_args; a++)
        {
          CrValue *other = as_set (interp, args[a], error);
          if (!other)
            return NULL;
          CrValue *od = other->u.object.data;
          gboolean ok = TRUE;
          for (guint i = 0; ok && i < cr_dict_len (od); i++)
            ok = cr_set_add (self, cr_dict_key_at (od, i), error);
          cr_value_unref (other);
          if (!ok)
            return NULL;
        }
      return cr_value_none ();
    }
  /* union, intersection, difference, symmetric_difference, issubset, issuperset */
  if (!arg_count (name, n_args, 1, n_kwargs, error))
    return NULL;
  CrValue *other = as_set (interp, args[0], error);
  if (!other)
    return NULL;
  CrValue *r = NULL;
  if (strcmp (name, "issubset") == 0 || strcmp (name, "issuperset") == 0)
    {
      CrValue *small = name[2] == 's' && name[3] == 'u' && name[4] == 'b' ? self : other;
      CrValue *big = small == self ? other : self;
      CrValue *ds = small->u.object.data, *db = big->u.object.data;
      gboolean all = TRUE;
      for (guint i = 0; all && i < cr_dict_len (ds); i++)
        all = cr_dict_get (db, cr_dict_key_at (ds, i), NULL) != NULL;
      r = cr_value_new_bool (all);
    }
  else
    {
      char op = strcmp (name, "union") == 0 ? '|' : strcmp (name, "intersection") == 0 ? '&'
              : strcmp (name, "difference") == 0 ? '-' : '^';
      r = cr_set_binop (self, other, op, error);
    }
  cr_value_unref (other);
  return r;
}

static CrValue *
set_get_attr (CrInterp    *interp,
              CrValue     *v,
              const char  *name,
              GError     **error)
{
  static const char *const methods[] = {
    "add", "discard", "remove", "clear", "copy", "update", "union", "intersection",
    "difference", "symmetric_difference", "issubset", "issuperset",
  };
  (void) interp;
  (void) error;
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (methods[i], name) == 0)
      return cr_value_new_native (methods[i], set_method, v, (gpointer) methods[i]);
  return NULL;
}
