/* cr-builtins.c — Python's builtins: print, range, len, the type
 * constructors (int, float, str, list, ...), isinstance,
 * getattr and friends, super, staticmethod, property, the exception classes,
 * and the math module. min/max/sum and the other iterable builtins are in
 * cr-builtins-iter.c, abs/round/pow/divmod in cr-builtins-math.c.
 *
 * What is absent on purpose: open, input, exec, eval, compile, __import__,
 * globals, and vars() and dir() without an argument: a script has no way
 * out of its sandbox. */
#include "cr-interp-private.h"
#include "cr-binding.h"
#include "cr-pyformat.h"
#include "cr-object.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cr-native.h"

gboolean
cr_builtin_no_kwargs (const char    *fname,
           guint          n_kwargs,
           const CrKwarg *kwargs,
           GError       **error)
{
  if (n_kwargs == 0)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no keyword arguments", fname);
  return FALSE;
}

gboolean
cr_builtin_arg_count (const char *fname,
           guint       n_args,
           guint       min,
           guint       max,
           GError    **error)
{
  if (n_args >= min && n_args <= max)
    return TRUE;
  if (min == max)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes exactly %s (%u given)", fname,
                         min == 1 ? "one argument" : (min == 2 ? "2 arguments" : "3 arguments"),
                         n_args);
  else if (n_args < min)
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s expected at least %u argument%s, got %u",
                         fname, min, min == 1 ? "" : "s", n_args);
  else
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s expected at most %u argument%s, got %u",
                         fname, max, max == 1 ? "" : "s", n_args);
  return FALSE;
}

/* ---- print ---------------------------------------------------------------------------------- */

/* file.write(text) (print's file=). */
static gboolean
print_write (CrInterp    *self,
             CrValue     *file,
             const char  *text,
             GError     **error)
{
  CrValue *write = cr_interp_getattr (self, file, "write", error);
  if (!write)
    return FALSE;
  CrValue *arg = cr_value_new_str (text);
  CrValue *r = cr_interp_call (self, write, &arg, 1, NULL, 0, error);
  cr_value_unref (arg);
  cr_value_unref (write);
  cr_value_unref (r);
  return r != NULL;
}

/* print(*args, sep=, end=, file=, flush=) to file: one write() per piece,
 * as Python's print does. A script has no files (no open(), no sys), so
 * file= is an object of its own with a write method, or Python's
 * AttributeError "'int' object has no attribute 'write'". */
static gboolean
print_to_file (CrInterp        *self,
               CrValue *const  *args,
               guint            n_args,
               const char      *sep,
               const char      *end,
               CrValue         *file,
               gboolean         flush,
               GError         **error)
{
  for (guint i = 0; i < n_args; i++)
    {
      if (i > 0 && !print_write (self, file, sep, error))
        return FALSE;
      g_autofree char *s = cr_value_str (self, args[i], error);
      if (!s || !print_write (self, file, s, error))
        return FALSE;
    }
  if (!print_write (self, file, end, error))
    return FALSE;
  if (flush)
    {
      CrValue *fn = cr_interp_getattr (self, file, "flush", error);
      CrValue *r = fn ? cr_interp_call (self, fn, NULL, 0, NULL, 0, error) : NULL;
      cr_value_unref (fn);
      cr_value_unref (r);
      return r != NULL;
    }
  return TRUE;
}

NATIVE (b_print)
{
  const char *sep = " ", *end = "\n";
  CrValue *file = NULL;
  gboolean flush = FALSE;
  for (guint k = 0; k < n_kwargs; k++)
    {
      const char *name = kwargs[k].name;
      CrValue *v = kwargs[k].value;
      if (strcmp (name, "sep") == 0 || strcmp (name, "end") == 0)
        {
          if (v->kind != CR_VALUE_NONE && v->kind != CR_VALUE_STR)
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s must be None or a string, not %s",
                                   name, cr_value_type_name (v));
              return NULL;
            }
          if (v->kind == CR_VALUE_STR)
            {
              if (name[0] == 's')
                sep = v->u.str.data;
              else
                end = v->u.str.data;
            }
        }
      else if (strcmp (name, "file") == 0)
        file = v->kind == CR_VALUE_NONE ? NULL : v;
      else if (strcmp (name, "flush") == 0)
        {
          if (!cr_value_truthy (interp, v, &flush, error))
            return NULL;
        }
      else
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "'%s' is an invalid keyword argument for print()", name);
          return NULL;
        }
    }
  if (file)
    return print_to_file (interp, args, n_args, sep, end, file, flush, error) ? cr_value_none () : NULL;
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n_args; i++)
    {
      if (i > 0)
        g_string_append (out, sep);
      char *s = cr_value_check_alloc (out->len, error) ? cr_value_str (interp, args[i], error) : NULL;
      if (!s)
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append (out, s);
      g_free (s);
    }
  g_string_append (out, end);
  cr_interp_write (interp, out->str, FALSE);
  if (cr_binding.printed)
    cr_binding.printed (interp, out->str);
  g_string_free (out, TRUE);
  return cr_value_none ();
}

/* ---- numbers and conversions ------------------------------------------------------------------ */

gboolean
cr_builtin_int_arg (CrValue  *v,
         gint64   *out,
         GError  **error)
{
  if (v->kind != CR_VALUE_FLOAT && cr_value_as_index (v, out))
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object cannot be interpreted as an integer",
                       cr_value_type_name (v));
  return FALSE;
}

NATIVE (b_range)
{
  gint64 start = 0, stop, step = 1;
  if (!cr_builtin_no_kwargs ("range", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("range", n_args, 1, 3, error))
    return NULL;
  if (n_args == 1)
    {
      if (!cr_builtin_int_arg (args[0], &stop, error))
        return NULL;
    }
  else
    {
      if (!cr_builtin_int_arg (args[0], &start, error) || !cr_builtin_int_arg (args[1], &stop, error))
        return NULL;
      if (n_args == 3)
        {
          if (!cr_builtin_int_arg (args[2], &step, error))
            return NULL;
          if (step == 0)
            {
              cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "range() arg 3 must not be zero");
              return NULL;
            }
        }
    }
  return cr_value_new_range (start, stop, step);
}

static gboolean
value_len (CrInterp  *self,
           CrValue   *v,
           gint64    *out,
           GError   **error)
{
  switch (v->kind)
    {
    case CR_VALUE_STR:   *out = (gint64) cr_str_char_len (v); return TRUE;
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE: *out = v->u.seq.items->len; return TRUE;
    case CR_VALUE_DICT:  *out = cr_dict_len (v); return TRUE;
    case CR_VALUE_RANGE: *out = cr_range_len (v); return TRUE;
    case CR_VALUE_TENSOR:
      return self->tensor_slots->len (v, out, error);
    case CR_VALUE_OBJECT:
      if (v->u.object.type == &cr_seq_view_type && ((CrSeqView *) v->u.object.data)->wrapped)
        {
          CrSeqView *view = v->u.object.data;
          *out = view->dict ? cr_dict_len (view->dict) : cr_seq_len (view->list);
          return TRUE;
        }
      if (v->u.object.type->as_tuple)
        {
          CrValue *t = v->u.object.type->as_tuple (v);
          if (t)
            {
              *out = cr_seq_len (t);
              cr_value_unref (t);
              return TRUE;
            }
        }
      break;
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (v, "__len__");
        if (!m)
          break;
        CrValue *r = cr_interp_call_method (self, v, m, NULL, 0, error);
        if (!r)
          return FALSE;
        gboolean ok = r->kind == CR_VALUE_INT;
        if (ok)
          *out = r->u.i;
        else
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "'%s' object cannot be interpreted as an integer",
                               cr_value_type_name (r));
        cr_value_unref (r);
        return ok;
      }
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "object of type '%s' has no len()",
                       cr_value_type_name (v));
  return FALSE;
}

NATIVE (b_len)
{
  gint64 n;
  if (!cr_builtin_no_kwargs ("len", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("len", n_args, 1, 1, error))
    return NULL;
  if (!value_len (interp, args[0], &n, error))
    return NULL;
  return cr_value_new_int (n);
}

static gboolean
parse_float (const char *text,
             double     *out)
{
  g_autofree char *s = g_strstrip (g_strdup (text));
  GString *clean = g_string_new (NULL);
  for (const char *p = s; *p; p++)
    {
      if (*p == '_')
        {
          if (p == s || !g_ascii_isdigit (p[-1]) || !g_ascii_isdigit (p[1]))
            {
              g_string_free (clean, TRUE);
              return FALSE;
            }
          continue;
        }
      if (*p == 'x' || *p == 'X' || *p == 'p' || *p == 'P' || g_ascii_isspace (*p))
        {
          g_string_free (clean, TRUE);
          return FALSE;
        }
      g_string_append_c (clean, *p);
    }
  const char *c = clean->str;
  const char *body = c[0] == '+' || c[0] == '-' ? c + 1 : c;
  gboolean ok = FALSE;
  if (g_ascii_strcasecmp (body, "inf") == 0 || g_ascii_strcasecmp (body, "infinity") == 0)
    {
      *out = c[0] == '-' ? -INFINITY : INFINITY;
      ok = TRUE;
    }
  else if (g_ascii_strcasecmp (body, "nan") == 0)
    {
      *out = NAN;
      ok = TRUE;
    }
  else if (body[0] && (g_ascii_isdigit (body[0]) || body[0] == '.'))
    {
      char *end = NULL;
      *out = g_ascii_strtod (c, &end);
      ok = end && *end == '\0' && end != c;
    }
  g_string_free (clean, TRUE);
  return ok;
}

NATIVE (b_float)
{
  if (!cr_builtin_no_kwargs ("float", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("float", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_float (0.0);
  CrValue *v = args[0];
  double d;
  switch (v->kind)
    {
    case CR_VALUE_FLOAT:
      return cr_value_ref (v);
    case CR_VALUE_INT:
    case CR_VALUE_BOOL:
    case CR_VALUE_TENSOR:
      if (!cr_value_to_double (v, &d, error))
        return NULL;
      return cr_value_new_float (d);
    case CR_VALUE_STR:
      if (parse_float (v->u.str.data, &d))
        return cr_value_new_float (d);
      {
        g_autofree char *r = cr_value_repr (interp, v, NULL);
        cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "could not convert string to float: %s", r);
      }
      return NULL;
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (v, "__float__");
        if (m)
          return cr_interp_call_method (interp, v, m, NULL, 0, error);
      }
      G_GNUC_FALLTHROUGH;
    default:
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "float() argument must be a string or a real number, not '%s'",
                           cr_value_type_name (v));
      return NULL;
    }
}

CrValue *
cr_builtin_float_to_int (double    d,
              GError  **error)
{
  if (isnan (d))
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "cannot convert float NaN to integer");
      return NULL;
    }
  if (isinf (d))
    {
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "cannot convert float infinity to integer");
      return NULL;
    }
  double t = trunc (d);
  if (t >= 9.223372036854775807e18 || t < -9.223372036854775808e18)
    {
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR,
                           "integer result too large (Chainrule's ints are 64-bit)");
      return NULL;
    }
  return cr_value_new_int ((gint64) t);
}

static gboolean
parse_int (const char *text,
           int         base,
           gint64     *out)
{
  g_autofree char *s = g_strstrip (g_strdup (text));
  const char *p = s;
  gboolean neg = FALSE;
  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  if (base == 16 && (g_str_has_prefix (p, "0x") || g_str_has_prefix (p, "0X")))
    p += 2;
  else if (base == 8 && (g_str_has_prefix (p, "0o") || g_str_has_prefix (p, "0O")))
    p += 2;
  else if (base == 2 && (g_str_has_prefix (p, "0b") || g_str_has_prefix (p, "0B")))
    p += 2;
  if (!*p)
    return FALSE;
  guint64 acc = 0;
  gboolean prev_digit = FALSE;
  for (; *p; p++)
    {
      if (*p == '_')
        {
          if (!prev_digit || !p[1] || p[1] == '_')
            return FALSE;
          prev_digit = FALSE;
          continue;
        }
      int d = g_ascii_xdigit_value (*p);
      if (!g_ascii_isxdigit (*p) || d >= base)
        return FALSE;
      if (acc > (G_MAXUINT64 - (guint64) d) / (guint64) base)
        return FALSE;
      acc = acc * base + d;
      prev_digit = TRUE;
    }
  if (acc > (guint64) G_MAXINT64 + (neg ? 1 : 0))
    return FALSE;
  *out = neg ? (gint64) (0 - acc) : (gint64) acc;
  return TRUE;
}

NATIVE (b_int)
{
  CrValue *x = NULL, *base_v = NULL;
  if (!cr_args_parse ("int", args, n_args, kwargs, n_kwargs, error, "|x", &x, "base", &base_v, NULL))
    return NULL;
  if (!x)
    return cr_value_new_int (0);
  if (base_v)
    {
      gint64 base;
      if (x->kind != CR_VALUE_STR)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "int() can't convert non-string with explicit base");
          return NULL;
        }
      if (!cr_builtin_int_arg (base_v, &base, error))
        return NULL;
      if (base < 2 || base > 36)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "int() base must be >= 2 and <= 36, or 0");
          return NULL;
        }
      gint64 r;
      if (base <= 16 && parse_int (x->u.str.data, (int) base, &r))
        return cr_value_new_int (r);
      g_autofree char *rep = cr_value_repr (interp, x, NULL);
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "invalid literal for int() with base %d: %s",
                           (int) base, rep);
      return NULL;
    }
  switch (x->kind)
    {
    case CR_VALUE_INT:
      return cr_value_ref (x);
    case CR_VALUE_BOOL:
      return cr_value_new_int (x->u.b);
    case CR_VALUE_FLOAT:
      return cr_builtin_float_to_int (x->u.f, error);
    case CR_VALUE_TENSOR:
      {
        gint64 i;
        GError *local = NULL;
        if (interp->tensor_slots->to_int (x, &i, &local))
          return cr_value_new_int (i);
        if (local)
          {
            g_propagate_error (error, local);
            return NULL;
          }
        double d;
        if (!cr_value_to_double (x, &d, error))
          return NULL;
        return cr_builtin_float_to_int (d, error);
      }
    case CR_VALUE_STR:
      {
        gint64 r;
        if (parse_int (x->u.str.data, 10, &r))
          return cr_value_new_int (r);
        g_autofree char *rep = cr_value_repr (interp, x, NULL);
        cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "invalid literal for int() with base 10: %s",
                             rep);
        return NULL;
      }
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (x, "__int__");
        if (!m)
          m = cr_instance_method (x, "__index__");
        if (m)
          return cr_interp_call_method (interp, x, m, NULL, 0, error);
      }
      G_GNUC_FALLTHROUGH;
    default:
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "int() argument must be a string, a bytes-like object or a real number, "
                           "not '%s'", cr_value_type_name (x));
      return NULL;
    }
}

NATIVE (b_bool)
{
  if (!cr_builtin_no_kwargs ("bool", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("bool", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_bool (FALSE);
  gboolean t;
  if (!cr_value_truthy (interp, args[0], &t, error))
    return NULL;
  return cr_value_new_bool (t);
}

NATIVE (b_str)
{
  if (!cr_builtin_no_kwargs ("str", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("str", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_value_new_str ("");
  if (args[0]->kind == CR_VALUE_STR)
    return cr_value_ref (args[0]);
  char *s = cr_value_str (interp, args[0], error);
  return s ? cr_value_new_str_take (s) : NULL;
}

NATIVE (b_repr)
{
  if (!cr_builtin_no_kwargs ("repr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("repr", n_args, 1, 1, error))
    return NULL;
  char *s = cr_value_repr (interp, args[0], error);
  return s ? cr_value_new_str_take (s) : NULL;
}

/* ---- types and attributes ------------------------------------------------------------------------ */

/* The class type() gives for an object of a native type ("torch.dtype"),
 * made on first use and kept in the builtins under a name no script can write. */
static CrValue *
object_type_class (CrInterp   *self,
                   const char *name)
{
  g_autofree char *key = g_strdup_printf (" type %s", name);
  CrValue *cls = g_hash_table_lookup (self->builtins, key);
  if (cls)
    return cls;
  const char *dot = strrchr (name, '.');
  cls = cr_value_new_class (dot ? dot + 1 : name, NULL);
  if (dot)
    {
      g_autofree char *module = g_strndup (name, dot - name);
      CrValue *m = cr_value_new_str (module);
      cr_value_set_member (cls, "__module__", m);
      cr_value_unref (m);
    }
  g_hash_table_insert (self->builtins, g_steal_pointer (&key), cls);
  return cls;
}

CrValue *
cr_interp_type_of (CrInterp *self,
                   CrValue  *v)
{
  CrValue *script_class = cr_object_script_class (v);
  if (script_class)
    return script_class;
  const CrTypeSlots *slots = cr_value_slots (v);
  if (slots)
    {
      CrValue *t = slots->type (self, v);
      if (t)
        return t;
    }
  if (cr_value_is_set (v))
    return g_hash_table_lookup (self->builtins, "set");
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_seq_view_type)
    return object_type_class (self, ((CrSeqView *) v->u.object.data)->type_name);
  if (v->kind == CR_VALUE_OBJECT)
    return object_type_class (self, cr_value_type_name (v));
  return g_hash_table_lookup (self->type_classes, GINT_TO_POINTER (v->kind));
}

static gboolean
isinstance_one (CrInterp  *self,
                CrValue   *x,
                CrValue   *cls,
                gboolean  *out,
                GError   **error)
{
  if (cls->kind == CR_VALUE_TUPLE)
    {
      for (guint i = 0; i < cls->u.seq.items->len; i++)
        {
          if (!isinstance_one (self, x, cls->u.seq.items->pdata[i], out, error))
            return FALSE;
          if (*out)
            return TRUE;
        }
      *out = FALSE;
      return TRUE;
    }
  if (cls->kind == CR_VALUE_NATIVE && strcmp (cls->u.native.name, self->tensor_slots->name) == 0)
    {
      *out = cr_value_slots (x) == self->tensor_slots;
      return TRUE;
    }
  if (cls->kind != CR_VALUE_CLASS)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "isinstance() arg 2 must be a type, a tuple of types, or a union");
      return FALSE;
    }
  /* A class that decides its instances itself, as a metaclass's
   * __instancecheck__ does in Python (torch.autograd.Variable: every
   * tensor): a static function of the class, for the library's classes. */
  CrValue *check = g_hash_table_lookup (cls->u.cls.attrs, "__cr_instancecheck__");
  if (check)
    {
      if (check->kind == CR_VALUE_OBJECT && check->u.object.type == &cr_staticmethod_type)
        check = check->u.object.data;
      CrValue *r = cr_interp_call (self, check, &x, 1, NULL, 0, error);
      if (!r)
        return FALSE;
      gboolean ok = cr_value_truthy (self, r, out, error);
      cr_value_unref (r);
      return ok;
    }
  CrValue *kind = g_hash_table_lookup (cls->u.cls.attrs, "__cr_kind__");
  if (cls == cr_object_class (self))
    {
      *out = TRUE;
      return TRUE;
    }
  if (kind && kind->kind == CR_VALUE_INT && kind->u.i >= 0)
    {
      if (kind->u.i == CR_VALUE_TUPLE && x->kind == CR_VALUE_OBJECT && x->u.object.type->as_tuple)
        *out = TRUE;  /* a named tuple: torch.return_types.max */
      else if (kind->u.i == CR_VALUE_INT)
        *out = x->kind == CR_VALUE_INT || x->kind == CR_VALUE_BOOL;
      else if (kind->u.i == CR_VALUE_CLASS)
        *out = x->kind == CR_VALUE_CLASS;
      else
        *out = x->kind == (CrValueKind) kind->u.i;
      return TRUE;
    }
  /* By identity: a script's own `class Tensor` is not torch.Tensor. */
  CrValue *type = cr_interp_type_of (self, x);
  *out = type != NULL && cr_class_is_subclass (type, cls);
  return TRUE;
}

NATIVE (b_isinstance)
{
  if (!cr_builtin_no_kwargs ("isinstance", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("isinstance", n_args, 2, 2, error))
    return NULL;
  gboolean r;
  if (!isinstance_one (interp, args[0], args[1], &r, error))
    return NULL;
  return cr_value_new_bool (r);
}

NATIVE (b_issubclass)
{
  if (!cr_builtin_no_kwargs ("issubclass", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("issubclass", n_args, 2, 2, error))
    return NULL;
  if (args[0]->kind != CR_VALUE_CLASS)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "issubclass() arg 1 must be a class");
      return NULL;
    }
  CrValue *b = args[1];
  if (b->kind == CR_VALUE_CLASS)
    {
      if (b == cr_object_class (interp))
        return cr_value_new_bool (TRUE);
      return cr_value_new_bool (cr_class_is_subclass (args[0], b));
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                       "issubclass() arg 2 must be a class, a tuple of classes, or a union");
  return NULL;
}

/* slice(stop), slice(start, stop[, step]) */
NATIVE (b_slice)
{
  if (!cr_builtin_no_kwargs ("slice", n_kwargs, kwargs, error))
    return NULL;
  if (n_args == 0 || n_args > 3)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, n_args == 0
                           ? "slice expected at least 1 argument, got 0"
                           : "slice expected at most 3 arguments, got %u", n_args);
      return NULL;
    }
  if (n_args == 1)
    return cr_value_new_slice (NULL, args[0], NULL);
  return cr_value_new_slice (args[0], args[1], n_args == 3 ? args[2] : NULL);
}

/* dir(obj): the attribute names, sorted. */
NATIVE (b_dir)
{
  if (!cr_builtin_no_kwargs ("dir", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("dir", n_args, 1, 1, error))
    return NULL;
  CrValue *cls = cr_object_script_class (args[0]);
  CrValue *user_dir = cls ? cr_class_lookup (cls, "__dir__") : NULL;
  if (user_dir && user_dir->kind == CR_VALUE_FUNCTION)
    {
      /* A class's own __dir__ (nn.Module lists its submodules), sorted. */
      CrValue *names = cr_interp_call_method (interp, args[0], user_dir, NULL, 0, error);
      CrValue *list = names ? cr_iter_to_list (interp, names, error) : NULL;
      cr_value_unref (names);
      if (list && !cr_sort_list (interp, list, NULL, FALSE, error))
        g_clear_pointer (&list, cr_value_unref);
      return list;
    }
  g_autoptr (GPtrArray) names = cr_interp_dir (interp, args[0]);
  CrValue *list = cr_value_new_list ();
  for (guint i = 0; i < names->len; i++)
    {
      CrValue *s = cr_value_new_str (names->pdata[i]);
      cr_list_append (list, s);
      cr_value_unref (s);
    }
  return list;
}

/* vars(obj): obj.__dict__. */
NATIVE (b_vars)
{
  if (!cr_builtin_no_kwargs ("vars", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("vars", n_args, 1, 1, error))
    return NULL;
  GError *local = NULL;
  CrValue *d = cr_interp_getattr (interp, args[0], "__dict__", &local);
  if (local)
    {
      g_error_free (local);
      cr_interp_forget_error (interp);
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "vars() argument must have __dict__ attribute");
    }
  return d;
}

NATIVE (b_type)
{
  if (!cr_builtin_no_kwargs ("type", n_kwargs, kwargs, error))
    return NULL;
  if (n_args != 1)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "type() takes 1 argument");
      return NULL;
    }
  CrValue *t = cr_interp_type_of (interp, args[0]);
  if (!t)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "type() of a %s is not available",
                           cr_value_type_name (args[0]));
      return NULL;
    }
  return cr_value_ref (t);
}

static gboolean
name_arg (const char *fname,
          CrValue    *v,
          GError    **error)
{
  if (v->kind == CR_VALUE_STR)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "attribute name must be string, not '%s'",
                       cr_value_type_name (v));
  return FALSE;
}

NATIVE (b_getattr)
{
  if (!cr_builtin_no_kwargs ("getattr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("getattr", n_args, 2, 3, error)
      || !name_arg ("getattr", args[1], error))
    return NULL;
  if (n_args == 2)
    return cr_interp_getattr (interp, args[0], args[1]->u.str.data, error);
  GError *local = NULL;
  CrValue *v = cr_interp_getattr (interp, args[0], args[1]->u.str.data, &local);
  if (v)
    return v;
  if (local->code == CR_EXC_ATTRIBUTE_ERROR)
    {
      g_error_free (local);
      cr_interp_forget_error (interp);
      return cr_value_ref (args[2]);
    }
  g_propagate_error (error, local);
  return NULL;
}

NATIVE (b_hasattr)
{
  if (!cr_builtin_no_kwargs ("hasattr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("hasattr", n_args, 2, 2, error)
      || !name_arg ("hasattr", args[1], error))
    return NULL;
  GError *local = NULL;
  CrValue *v = cr_interp_getattr (interp, args[0], args[1]->u.str.data, &local);
  if (v)
    {
      cr_value_unref (v);
      return cr_value_new_bool (TRUE);
    }
  if (local->code == CR_EXC_ATTRIBUTE_ERROR)
    {
      g_error_free (local);
      cr_interp_forget_error (interp);
      return cr_value_new_bool (FALSE);
    }
  g_propagate_error (error, local);
  return NULL;
}

NATIVE (b_setattr)
{
  if (!cr_builtin_no_kwargs ("setattr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("setattr", n_args, 3, 3, error)
      || !name_arg ("setattr", args[1], error))
    return NULL;
  if (!cr_interp_setattr (interp, args[0], args[1]->u.str.data, args[2], error))
    return NULL;
  return cr_value_none ();
}

NATIVE (b_delattr)
{
  if (!cr_builtin_no_kwargs ("delattr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("delattr", n_args, 2, 2, error)
      || !name_arg ("delattr", args[1], error))
    return NULL;
  if (!cr_interp_delattr (interp, args[0], args[1]->u.str.data, error))
    return NULL;
  return cr_value_none ();
}

static gconstpointer
identity_of (CrValue *v)
{
  switch (v->kind)
    {
    case CR_VALUE_TENSOR: return cr_binding.tensor_slots->identity (v);
    case CR_VALUE_OBJECT:
      return v->u.object.type->identity ? v->u.object.type->identity (v) : v->u.object.data;
    default: return v;
    }
}

NATIVE (b_id)
{
  if (!cr_builtin_no_kwargs ("id", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("id", n_args, 1, 1, error))
    return NULL;
  return cr_value_new_int ((gint64) (gintptr) identity_of (args[0]));
}

NATIVE (b_hash)
{
  if (!cr_builtin_no_kwargs ("hash", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("hash", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  CrValue *cls = cr_object_script_class (v);
  CrValue *user_hash = cls ? cr_class_lookup (cls, "__hash__") : NULL;
  if (user_hash && user_hash->kind == CR_VALUE_FUNCTION)
    {
      CrValue *r = cr_interp_call_method (interp, v, user_hash, NULL, 0, error);
      if (r && r->kind != CR_VALUE_INT && r->kind != CR_VALUE_BOOL)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "__hash__ method should return an integer");
          g_clear_pointer (&r, cr_value_unref);
        }
      return r;
    }
  if (!cr_value_hashable (v, error))
    return NULL;
  GError *local = NULL;
  gint64 h = cr_value_hash (v, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return cr_value_new_int (h);
}

NATIVE (b_callable)
{
  if (!cr_builtin_no_kwargs ("callable", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("callable", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  gboolean r = v->kind == CR_VALUE_FUNCTION || v->kind == CR_VALUE_NATIVE
               || v->kind == CR_VALUE_BOUND_METHOD || v->kind == CR_VALUE_CLASS
               || (v->kind == CR_VALUE_INSTANCE && cr_instance_method (v, "__call__"))
               || (v->kind == CR_VALUE_OBJECT && v->u.object.type->call);
  return cr_value_new_bool (r);
}

NATIVE (b_format)
{
  if (!cr_builtin_no_kwargs ("format", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("format", n_args, 1, 2, error))
    return NULL;
  if (n_args == 2 && args[1]->kind != CR_VALUE_STR)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "format() argument 2 must be str, not %s",
                           cr_value_type_name (args[1]));
      return NULL;
    }
  char *s = cr_format_value (interp, args[0], n_args == 2 ? args[1]->u.str.data : "", error);
  return s ? cr_value_new_str_take (s) : NULL;
}

NATIVE (b_chr)
{
  gint64 cp;
  if (!cr_builtin_no_kwargs ("chr", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("chr", n_args, 1, 1, error)
      || !cr_builtin_int_arg (args[0], &cp, error))
    return NULL;
  if (cp < 0 || cp >= 0x110000)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "chr() arg not in range(0x110000)");
      return NULL;
    }
  char buf[8] = { 0 };
  g_unichar_to_utf8 ((gunichar) cp, buf);
  return cr_value_new_str (buf);
}

/* hex, oct, bin: data is the base (16, 8, 2). */
NATIVE (b_int_base)
{
  int base = GPOINTER_TO_INT (data);
  const char *name = base == 16 ? "hex" : base == 8 ? "oct" : "bin";
  gint64 v;
  if (!cr_builtin_no_kwargs (name, n_kwargs, kwargs, error)
      || !cr_builtin_arg_count (name, n_args, 1, 1, error)
      || !cr_builtin_int_arg (args[0], &v, error))
    return NULL;
  guint64 mag = v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
  char digits[72];
  int n = 0;
  do
    {
      digits[n++] = "0123456789abcdef"[mag % (guint64) base];
      mag /= (guint64) base;
    }
  while (mag > 0);
  GString *out = g_string_new (v < 0 ? "-0" : "0");
  g_string_append_c (out, base == 16 ? 'x' : base == 8 ? 'o' : 'b');
  while (n > 0)
    g_string_append_c (out, digits[--n]);
  CrValue *r = cr_value_new_str_len (out->str, out->len);
  g_string_free (out, TRUE);
  return r;
}

NATIVE (b_set)
{
  if (!cr_builtin_no_kwargs ("set", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("set", n_args, 0, 1, error))
    return NULL;
  if (n_args == 0)
    return cr_set_new ();
  return cr_set_from_iterable (interp, args[0], error);
}

NATIVE (b_ord)
{
  if (!cr_builtin_no_kwargs ("ord", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("ord", n_args, 1, 1, error))
    return NULL;
  CrValue *v = args[0];
  if (v->kind != CR_VALUE_STR)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "ord() expected string of length 1, but %s found",
                           cr_value_type_name (v));
      return NULL;
    }
  gsize n = cr_str_char_len (v);
  if (n != 1)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "ord() expected a character, but string of length %" G_GSIZE_FORMAT " found", n);
      return NULL;
    }
  return cr_value_new_int (g_utf8_get_char (v->u.str.data));
}

/* ---- staticmethod, property, super ---------------------------------------------------------------- */

static void
value_destroy (gpointer data)
{
  cr_value_unref (data);
}

const CrObjectType cr_staticmethod_type = {
  .name = "staticmethod",
  .destroy = value_destroy,
};

/* A @classmethod: its function binds to the class, also when read through an instance. */
const CrObjectType cr_classmethod_type = {
  .name = "classmethod",
  .destroy = value_destroy,
};

NATIVE (b_staticmethod)
{
  if (!cr_builtin_no_kwargs ("staticmethod", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("staticmethod", n_args, 1, 1, error))
    return NULL;
  return cr_value_new_object (&cr_staticmethod_type, cr_value_ref (args[0]));
}

NATIVE (b_classmethod)
{
  if (!cr_builtin_no_kwargs ("classmethod", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("classmethod", n_args, 1, 1, error))
    return NULL;
  return cr_value_new_object (&cr_classmethod_type, cr_value_ref (args[0]));
}

NATIVE (b_property)
{
  CrValue *fget = NULL, *fset = NULL, *fdel = NULL, *doc = NULL;
  if (!cr_args_parse ("property", args, n_args, kwargs, n_kwargs, error,
                      "|fget", &fget, "fset", &fset, "fdel", &fdel, "doc", &doc, NULL))
    return NULL;
  return cr_property_new (fget, fset, fdel);
}

NATIVE (object_init_noop)
{
  return cr_value_none ();
}

/* BaseException.__init__: self.args = args (a subclass's __init__ calls it
 * through super() with the arguments it wants kept). */
NATIVE (exception_init)
{
  (void) interp;
  (void) data;
  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "%s() takes no keyword arguments",
                   self && self->kind == CR_VALUE_INSTANCE
                     ? self->u.instance.cls->u.cls.name : "BaseException");
      return NULL;
    }
  if (self && self->kind == CR_VALUE_INSTANCE)
    {
      CrValue *exc_args = cr_value_new_tuple (args, n_args);
      cr_object_instance_store (self, "args", exc_args);
      cr_value_unref (exc_args);
    }
  return cr_value_none ();
}

typedef struct {
  CrValue *start;   /* the class whose base the lookup starts at */
  CrValue *obj;     /* the instance (or class) methods bind to */
} SuperData;

static void
super_destroy (gpointer data)
{
  SuperData *s = data;
  cr_value_unref (s->start);
  cr_value_unref (s->obj);
  g_free (s);
}

static CrValue *
super_get_attr (CrInterp    *self,
                CrValue     *obj,
                const char  *name,
                GError     **error)
{
  SuperData *s = obj->u.object.data;
  CrValue *base = s->start->u.cls.base;
  CrValue *attr = base ? cr_object_class_lookup (self, base, name)
                       : cr_object_class_lookup (self, cr_object_class (self), name);
  if (!attr && s->obj->kind != CR_VALUE_INSTANCE && s->obj->kind != CR_VALUE_CLASS)
    {
      /* A method of the builtin type a script's subclass extends
       * (super().append(x) in a list subclass). */
      CrValue *m = cr_builtin_method (self, s->obj, name);
      if (m)
        return m;
    }
  if (!attr)
    {
      cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'super' object has no attribute '%s'", name);
      return NULL;
    }
  return cr_object_bind_class_attr (self, attr, s->obj, error);
}

static char *
super_repr (CrValue *obj)
{
  SuperData *s = obj->u.object.data;
  return g_strdup_printf ("<super: <class '%s'>, <%s object>>", s->start->u.cls.name,
                          cr_value_type_name (s->obj));
}

const CrObjectType cr_super_type = {
  .name = "super",
  .destroy = super_destroy,
  .get_attr = super_get_attr,
  .repr = super_repr,
};

NATIVE (b_super)
{
  CrValue *start = NULL, *obj = NULL;
  if (!cr_builtin_no_kwargs ("super", n_kwargs, kwargs, error) || !cr_builtin_arg_count ("super", n_args, 0, 2, error))
    return NULL;
  if (n_args == 2)
    {
      start = args[0];
      obj = args[1];
    }
  else if (n_args == 0)
    {
      CrFrame *f = interp->frame;
      CrFunction *fn = f && f->function ? f->function->u.function : NULL;
      if (fn && fn->owner_class && fn->code->n_params > 0)
        {
          start = fn->owner_class;
          int cell = -1;
          for (guint i = 0; i < fn->code->n_cells; i++)
            if (fn->code->cell_param[i] == 0)
              cell = (int) i;
          obj = cell >= 0 ? f->cells[cell]->value : f->locals[0];
        }
      if (!start || !obj)
        {
          cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "super(): no arguments");
          return NULL;
        }
    }
  else
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "super() with one argument is not supported");
      return NULL;
    }
  if (start->kind != CR_VALUE_CLASS)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "super() argument 1 must be a type, not %s",
                           cr_value_type_name (start));
      return NULL;
    }
  SuperData *s = g_new (SuperData, 1);
  s->start = cr_value_ref (start);
  s->obj = cr_value_ref (obj);
  return cr_value_new_object (&cr_super_type, s);
}

/* ---- registration ------------------------------------------------------------------------------------ */

static void
add_builtin (CrInterp     *self,
             const char   *name,
             CrValue      *value)
{
  g_hash_table_insert (self->builtins, g_strdup (name), value);
}

static void
add_native (CrInterp     *self,
            const char   *name,
            CrNativeFunc  fn)
{
  add_builtin (self, name, cr_value_new_native (name, fn, NULL, NULL));
}

static CrValue *
add_type (CrInterp     *self,
          const char   *name,
          gint64        kind,
          CrNativeFunc  ctor)
{
  CrValue *cls = cr_value_new_class (name, NULL);
  CrValue *k = cr_value_new_int (kind);
  cr_value_set_member (cls, "__cr_kind__", k);
  cr_value_unref (k);
  if (ctor)
    {
      CrValue *c = cr_value_new_native (name, ctor, NULL, NULL);
      cr_value_set_member (cls, "__cr_new__", c);
      cr_value_unref (c);
    }
  add_builtin (self, name, cls);
  if (kind >= 0)
    g_hash_table_insert (self->type_classes, GINT_TO_POINTER ((int) kind), cls);
  return cls;
}

static CrValue *
add_exception (CrInterp    *self,
               const char  *name,
               CrException  code,
               CrValue     *base)
{
  CrValue *cls = cr_value_new_class (name, base);
  CrValue *k = cr_value_new_int (code);
  cr_value_set_member (cls, "__cr_exc__", k);
  cr_value_unref (k);
  add_builtin (self, name, cls);
  if (strcmp (cr_exception_name (code), name) == 0)
    self->exc_classes[code] = cls;
  return cls;
}

void
cr_builtins_install (CrInterp *self)
{
  cr_builtins_iter_install (self);
  cr_builtins_math_install (self);
  add_native (self, "print", b_print);
  add_native (self, "len", b_len);
  add_native (self, "repr", b_repr);
  add_native (self, "isinstance", b_isinstance);
  add_native (self, "dir", b_dir);
  add_native (self, "vars", b_vars);
  add_native (self, "issubclass", b_issubclass);
  add_native (self, "getattr", b_getattr);
  add_native (self, "hasattr", b_hasattr);
  add_native (self, "setattr", b_setattr);
  add_native (self, "delattr", b_delattr);
  add_native (self, "id", b_id);
  add_native (self, "hash", b_hash);
  add_native (self, "callable", b_callable);
  add_native (self, "format", b_format);
  add_native (self, "chr", b_chr);
  add_native (self, "ord", b_ord);
  add_builtin (self, "hex", cr_value_new_native ("hex", b_int_base, NULL, GINT_TO_POINTER (16)));
  add_builtin (self, "oct", cr_value_new_native ("oct", b_int_base, NULL, GINT_TO_POINTER (8)));
  add_builtin (self, "bin", cr_value_new_native ("bin", b_int_base, NULL, GINT_TO_POINTER (2)));
  add_native (self, "staticmethod", b_staticmethod);
  add_native (self, "property", b_property);
  add_native (self, "classmethod", b_classmethod);
  add_native (self, "super", b_super);

  add_type (self, "int", CR_VALUE_INT, b_int);
  add_type (self, "float", CR_VALUE_FLOAT, b_float);
  add_type (self, "bool", CR_VALUE_BOOL, b_bool);
  add_type (self, "str", CR_VALUE_STR, b_str);
  add_type (self, "list", CR_VALUE_LIST, cr_builtin_list);
  add_type (self, "tuple", CR_VALUE_TUPLE, cr_builtin_tuple);
  add_type (self, "dict", CR_VALUE_DICT, cr_builtin_dict);
  add_type (self, "set", -1, b_set);
  add_type (self, "range", CR_VALUE_RANGE, b_range);
  add_type (self, "type", CR_VALUE_CLASS, b_type);
  CrValue *object = add_type (self, "object", -1, NULL);
  {
    CrValue *init = cr_value_new_native ("__init__", object_init_noop, NULL, NULL);
    cr_value_set_member (object, "__init__", init);
    cr_value_unref (init);
    cr_object_install (self, object);
  }
  /* Types a script cannot name but type() returns. */
  static const struct { const char *name; CrValueKind kind; } hidden[] = {
    { "NoneType", CR_VALUE_NONE }, { "function", CR_VALUE_FUNCTION },
    { "builtin_function_or_method", CR_VALUE_NATIVE }, { "method", CR_VALUE_BOUND_METHOD },
    { "module", CR_VALUE_MODULE }, { "slice", CR_VALUE_SLICE }, { "ellipsis", CR_VALUE_ELLIPSIS },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hidden); i++)
    {
      CrValue *cls = cr_value_new_class (hidden[i].name, NULL);
      CrValue *k = cr_value_new_int (hidden[i].kind);
      cr_value_set_member (cls, "__cr_kind__", k);
      cr_value_unref (k);
      g_hash_table_insert (self->type_classes, GINT_TO_POINTER (hidden[i].kind), cls);
      /* Owned by the builtins table under a name no script can write. */
      char *key = g_strdup_printf (" %s", hidden[i].name);
      g_hash_table_insert (self->builtins, key, cls);
      if (hidden[i].kind == CR_VALUE_SLICE)
        {
          /* slice is also a builtin name, its own constructor. */
          CrValue *ctor = cr_value_new_native ("slice", b_slice, NULL, NULL);
          cr_value_set_member (cls, "__cr_new__", ctor);
          cr_value_unref (ctor);
          add_builtin (self, "slice", cr_value_ref (cls));
        }
    }
  add_builtin (self, "NotImplemented", cr_value_not_implemented ());
  add_builtin (self, "Ellipsis", cr_value_ellipsis ());

  CrValue *base = add_exception (self, "BaseException", CR_EXC_EXCEPTION, NULL);
  {
    CrValue *init = cr_value_new_native ("__init__", exception_init, NULL, NULL);
    cr_value_set_member (base, "__init__", init);
    cr_value_unref (init);
  }
  add_exception (self, "KeyboardInterrupt", CR_EXC_KEYBOARD_INTERRUPT, base);
  add_exception (self, "GeneratorExit", CR_EXC_GENERATOR_EXIT, base);
  CrValue *exc = add_exception (self, "Exception", CR_EXC_EXCEPTION, base);
  CrValue *arith = add_exception (self, "ArithmeticError", CR_EXC_EXCEPTION, exc);
  add_exception (self, "ZeroDivisionError", CR_EXC_ZERO_DIVISION_ERROR, arith);
  add_exception (self, "OverflowError", CR_EXC_OVERFLOW_ERROR, arith);
  CrValue *lookup = add_exception (self, "LookupError", CR_EXC_EXCEPTION, exc);
  add_exception (self, "IndexError", CR_EXC_INDEX_ERROR, lookup);
  add_exception (self, "KeyError", CR_EXC_KEY_ERROR, lookup);
  CrValue *runtime = add_exception (self, "RuntimeError", CR_EXC_RUNTIME_ERROR, exc);
  add_exception (self, "NotImplementedError", CR_EXC_NOT_IMPLEMENTED_ERROR, runtime);
  add_exception (self, "RecursionError", CR_EXC_RECURSION_ERROR, runtime);
  add_exception (self, "ValueError", CR_EXC_VALUE_ERROR, exc);
  add_exception (self, "TypeError", CR_EXC_TYPE_ERROR, exc);
  CrValue *name_error = add_exception (self, "NameError", CR_EXC_NAME_ERROR, exc);
  add_exception (self, "UnboundLocalError", CR_EXC_UNBOUND_LOCAL_ERROR, name_error);
  add_exception (self, "AttributeError", CR_EXC_ATTRIBUTE_ERROR, exc);
  CrValue *syntax = add_exception (self, "SyntaxError", CR_EXC_SYNTAX_ERROR, exc);
  CrValue *indentation = add_exception (self, "IndentationError", CR_EXC_INDENTATION_ERROR, syntax);
  add_exception (self, "TabError", CR_EXC_TAB_ERROR, indentation);
  add_exception (self, "MemoryError", CR_EXC_MEMORY_ERROR, exc);
  CrValue *import = add_exception (self, "ImportError", CR_EXC_IMPORT_ERROR, exc);
  add_exception (self, "ModuleNotFoundError", CR_EXC_MODULE_NOT_FOUND_ERROR, import);
  add_exception (self, "AssertionError", CR_EXC_ASSERTION_ERROR, exc);
  CrValue *stop = add_exception (self, "StopIteration", CR_EXC_STOP_ITERATION, exc);
  {
    /* A generator's `return v` sets it on the instance (cr-gen-object.c). */
    CrValue *none = cr_value_none ();
    cr_value_set_member (stop, "value", none);
    cr_value_unref (none);
  }
  CrValue *os_error = add_exception (self, "OSError", CR_EXC_EXCEPTION, exc);
  add_exception (self, "TimeoutError", CR_EXC_TIMEOUT_ERROR, os_error);
  self->exc_classes[CR_EXC_EXCEPTION] = exc;
}

