/* cr-value-repr.c — repr() and str() exactly as Python prints them: float
 * reprs, quoted strings, containers (with "[...]" for a container that holds
 * itself), torch.Size, classes and instances (a user's __repr__/__str__),
 * exceptions, functions, and values with type slots (tensors) through their
 * repr slot. */
#include "cr-interp-private.h"
#include "cr-pyformat.h"

#include <string.h>

/* ---- repr and str ---------------------------------------------------------------- */

static gboolean repr_into (CrInterp *interp, CrValue *v, GString *out,
                           GPtrArray *active, GError **error);

static void
append_address (GString       *out,
                gconstpointer  p)
{
  g_string_append_printf (out, "0x%" G_GINTPTR_MODIFIER "x", (gintptr) p);
}

static gboolean
exception_code_of_class (CrValue     *cls,
                         CrException *out)
{
  CrValue *code = cr_class_lookup (cls, "__cr_exc__");
  if (code && code->kind == CR_VALUE_INT)
    {
      *out = (CrException) code->u.i;
      return TRUE;
    }
  return FALSE;
}

static const char *
class_module (CrValue *cls)
{
  CrValue *m = g_hash_table_lookup (cls->u.cls.attrs, "__module__");
  if (m && m->kind == CR_VALUE_STR)
    return m->u.str.data;
  return NULL;
}

static gboolean
user_dunder_str (CrInterp   *interp,
                 CrValue    *v,
                 const char *dunder,
                 GString    *out,
                 gboolean   *handled,
                 GError    **error)
{
  *handled = FALSE;
  if (!interp)
    return TRUE;
  CrValue *cls = cr_object_script_class (v);
  CrValue *m = cls ? cr_class_lookup (cls, dunder) : NULL;
  if (!m || m->kind != CR_VALUE_FUNCTION)
    return TRUE;
  *handled = TRUE;
  CrValue *r = cr_interp_call_method (interp, v, m, NULL, 0, error);
  if (!r)
    return FALSE;
  if (r->kind != CR_VALUE_STR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s returned non-string (type %s)", dunder, cr_value_type_name (r));
      cr_value_unref (r);
      return FALSE;
    }
  g_string_append_len (out, r->u.str.data, r->u.str.len);
  cr_value_unref (r);
  return TRUE;
}

static gboolean
exception_str_into (CrInterp  *interp,
                    CrValue   *v,
                    GString   *out,
                    GPtrArray *active,
                    GError   **error)
{
  CrValue *args = g_hash_table_lookup (v->u.instance.attrs, "args");
  if (!args || args->kind != CR_VALUE_TUPLE || cr_seq_len (args) == 0)
    return TRUE;
  CrException code = CR_EXC_EXCEPTION;
  exception_code_of_class (v->u.instance.cls, &code);
  if (cr_seq_len (args) == 1)
    {
      CrValue *a = cr_seq_get (args, 0);
      if (code == CR_EXC_KEY_ERROR)
        return repr_into (interp, a, out, active, error);
      char *s = cr_value_str (interp, a, error);
      if (!s)
        return FALSE;
      g_string_append (out, s);
      g_free (s);
      return TRUE;
    }
  return repr_into (interp, args, out, active, error);
}

/* Between two items of a container: the text so far must fit the memory
 * budget (str([s] * 10**6) of a long s is gigabytes), and a long repr can
 * be cancelled. */
static inline gboolean
repr_checkpoint (CrInterp  *interp,
                 guint      i,
                 GString   *out,
                 GError   **error)
{
  return cr_value_check_alloc (out->len, error) && cr_value_poll (interp, (gsize) i + 1, 0, error);
}

static gboolean
repr_items (CrInterp  *interp,
            GPtrArray *items,
            GString   *out,
            GPtrArray *active,
            GError   **error)
{
  for (guint i = 0; i < items->len; i++)
    {
      if (G_UNLIKELY (!repr_checkpoint (interp, i, out, error)))
        return FALSE;
      if (i > 0)
        g_string_append (out, ", ");
      if (!repr_into (interp, items->pdata[i], out, active, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
repr_container (CrInterp  *interp,
                CrValue   *v,
                GString   *out,
                GPtrArray *active,
                GError   **error)
{
  for (guint i = 0; i < active->len; i++)
    if (active->pdata[i] == v)
      {
        g_string_append (out, v->kind == CR_VALUE_DICT ? "{...}" : "[...]");
        return TRUE;
      }
  if (active->len > 400 || cr_stack_guard_exhausted ())
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR,
                           "maximum recursion depth exceeded while getting the repr of an object");
      return FALSE;
    }
  g_ptr_array_add (active, v);
  gboolean ok = TRUE;
  switch (v->kind)
    {
    case CR_VALUE_LIST:
      g_string_append_c (out, '[');
      ok = repr_items (interp, v->u.seq.items, out, active, error);
      g_string_append_c (out, ']');
      break;
    case CR_VALUE_TUPLE:
      if (v->u.seq.is_size)
        {
          g_string_append (out, "torch.Size([");
          ok = repr_items (interp, v->u.seq.items, out, active, error);
          g_string_append (out, "])");
          break;
        }
      g_string_append_c (out, '(');
      ok = repr_items (interp, v->u.seq.items, out, active, error);
      if (v->u.seq.items->len == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, ')');
      break;
    case CR_VALUE_DICT:
      g_string_append_c (out, '{');
      for (guint i = 0; ok && i < cr_dict_len (v); i++)
        {
          if (G_UNLIKELY (!(ok = repr_checkpoint (interp, i, out, error))))
            break;
          if (i > 0)
            g_string_append (out, ", ");
          ok = repr_into (interp, cr_dict_key_at (v, i), out, active, error);
          g_string_append (out, ": ");
          ok = ok && repr_into (interp, cr_dict_value_at (v, i), out, active, error);
        }
      g_string_append_c (out, '}');
      break;
    default:
      g_assert_not_reached ();
    }
  g_ptr_array_remove_index (active, active->len - 1);
  return ok;
}

static gboolean
repr_into (CrInterp  *interp,
           CrValue   *v,
           GString   *out,
           GPtrArray *active,
           GError   **error)
{
  switch (v->kind)
    {
    case CR_VALUE_NONE:
      g_string_append (out, "None");
      return TRUE;
    case CR_VALUE_BOOL:
      g_string_append (out, v->u.b ? "True" : "False");
      return TRUE;
    case CR_VALUE_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v->u.i);
      return TRUE;
    case CR_VALUE_FLOAT:
      {
        char *s = cr_py_float_repr (v->u.f);
        g_string_append (out, s);
        g_free (s);
        return TRUE;
      }
    case CR_VALUE_STR:
      {
        char *s = cr_py_str_repr (v->u.str.data, v->u.str.len);
        g_string_append (out, s);
        g_free (s);
        return TRUE;
      }
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
      if (G_UNLIKELY (cr_object_script_class (v) != NULL))
        {
          gboolean handled;   /* a subclass's own __repr__ (OrderedDict's) */
          if (!user_dunder_str (interp, v, "__repr__", out, &handled, error))
            return FALSE;
          if (handled)
            return TRUE;
        }
      return repr_container (interp, v, out, active, error);
    case CR_VALUE_SLICE:
      g_string_append (out, "slice(");
      if (!repr_into (interp, v->u.slice.start, out, active, error))
        return FALSE;
      g_string_append (out, ", ");
      if (!repr_into (interp, v->u.slice.stop, out, active, error))
        return FALSE;
      g_string_append (out, ", ");
      if (!repr_into (interp, v->u.slice.step, out, active, error))
        return FALSE;
      g_string_append_c (out, ')');
      return TRUE;
    case CR_VALUE_RANGE:
      g_string_append_printf (out, "range(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT,
                              v->u.range.start, v->u.range.stop);
      if (v->u.range.step != 1)
        g_string_append_printf (out, ", %" G_GINT64_FORMAT, v->u.range.step);
      g_string_append_c (out, ')');
      return TRUE;
    case CR_VALUE_ELLIPSIS:
      g_string_append (out, "Ellipsis");
      return TRUE;
    case CR_VALUE_FUNCTION:
      g_string_append_printf (out, "<function %s at ", v->u.function->qualname);
      append_address (out, v);
      g_string_append_c (out, '>');
      return TRUE;
    case CR_VALUE_NATIVE:
      if (v->u.native.self == NULL)
        g_string_append_printf (out, "<built-in function %s>", v->u.native.name);
      else
        {
          CrValue *self = v->u.native.self;
          if (self->kind == CR_VALUE_CLASS)
            {
              g_string_append_printf (out, "<bound method %s.%s of ", self->u.cls.name,
                                      v->u.native.name);
              if (!repr_into (interp, self, out, active, error))
                return FALSE;
              g_string_append_c (out, '>');
              return TRUE;
            }
          g_string_append_printf (out, "<built-in method %s of %s object at ",
                                  v->u.native.name, cr_value_type_name (self));
          const CrTypeSlots *slots = cr_value_slots (self);
          append_address (out, slots ? slots->identity (self) : (gconstpointer) self);
          g_string_append_c (out, '>');
        }
      return TRUE;
    case CR_VALUE_BOUND_METHOD:
      {
        CrValue *f = v->u.bound.func;
        g_string_append_printf (out, "<bound method %s of ",
                                f->kind == CR_VALUE_FUNCTION ? f->u.function->qualname : "?");
        if (!repr_into (interp, v->u.bound.self, out, active, error))
          return FALSE;
        g_string_append_c (out, '>');
        return TRUE;
      }
    case CR_VALUE_CLASS:
      {
        const char *module = class_module (v);
        if (module)
          g_string_append_printf (out, "<class '%s.%s'>", module, v->u.cls.name);
        else
          g_string_append_printf (out, "<class '%s'>", v->u.cls.name);
        return TRUE;
      }
    case CR_VALUE_INSTANCE:
      {
        gboolean handled;
        if (!user_dunder_str (interp, v, "__repr__", out, &handled, error))
          return FALSE;
        if (handled)
          return TRUE;
        CrException code;
        if (exception_code_of_class (v->u.instance.cls, &code))
          {
            CrValue *args = g_hash_table_lookup (v->u.instance.attrs, "args");
            g_string_append (out, v->u.instance.cls->u.cls.name);
            if (args && args->kind == CR_VALUE_TUPLE && cr_seq_len (args) != 1)
              return repr_into (interp, args, out, active, error);
            g_string_append_c (out, '(');
            if (args && args->kind == CR_VALUE_TUPLE
                && !repr_into (interp, cr_seq_get (args, 0), out, active, error))
              return FALSE;
            g_string_append_c (out, ')');
            return TRUE;
          }
        const char *module = class_module (v->u.instance.cls);
        g_string_append_printf (out, "<%s%s%s object at ", module ? module : "",
                                module ? "." : "", v->u.instance.cls->u.cls.name);
        append_address (out, v);
        g_string_append_c (out, '>');
        return TRUE;
      }
    case CR_VALUE_MODULE:
      g_string_append_printf (out, "<module '%s' (built-in)>", v->u.module.name);
      return TRUE;
    case CR_VALUE_TENSOR:
      {
        gboolean handled;   /* a subclass's own __repr__ (nn.Parameter's) */
        if (!user_dunder_str (interp, v, "__repr__", out, &handled, error))
          return FALSE;
        if (handled)
          return TRUE;
        char *s = cr_binding.tensor_slots->repr (interp, v);
        g_string_append (out, s);
        g_free (s);
        return TRUE;
      }
    case CR_VALUE_OBJECT:
      {
        const CrObjectType *type = v->u.object.type;
        if (type == &cr_set_type)
          {
            CrValue *items = cr_set_items (v);
            guint n = cr_seq_len (items);
            if (n == 0)
              g_string_append (out, "set()");
            else
              g_string_append_c (out, '{');
            for (guint i = 0; i < n; i++)
              {
                if (i > 0)
                  g_string_append (out, ", ");
                if (!repr_into (interp, cr_seq_get (items, i), out, active, error))
                  {
                    cr_value_unref (items);
                    return FALSE;
                  }
              }
            if (n > 0)
              g_string_append_c (out, '}');
            cr_value_unref (items);
            return TRUE;
          }
        if (type == &cr_seq_view_type)
          {
            CrSeqView *view = v->u.object.data;
            if (view->wrapped)
              {
                g_string_append_printf (out, "%s(", view->type_name);
                CrValue *items = cr_seq_view_items (v);
                gboolean ok = repr_into (interp, items, out, active, error);
                cr_value_unref (items);
                if (!ok)
                  return FALSE;
                g_string_append_c (out, ')');
              }
            else if (strcmp (view->type_name, "generator") == 0)
              {
                g_string_append (out, "<generator object <genexpr> at ");
                append_address (out, view);
                g_string_append_c (out, '>');
              }
            else
              {
                g_string_append_printf (out, "<%s object at ", view->type_name);
                append_address (out, view);
                g_string_append_c (out, '>');
              }
            return TRUE;
          }
        if (type->repr)
          {
            char *s = type->repr (v);
            if (s)
              {
                g_string_append (out, s);
                g_free (s);
                return TRUE;
              }
          }
        g_string_append_printf (out, "<%s object at ", type->name);
        append_address (out, type->identity ? type->identity (v) : v->u.object.data);
        g_string_append_c (out, '>');
        return TRUE;
      }
    default:
      g_string_append (out, "<object>");
      return TRUE;
    }
}

gboolean
cr_value_repr_into (CrInterp *interp,
                    CrValue  *v,
                    GString  *out,
                    GError  **error)
{
  GPtrArray *active = g_ptr_array_new ();
  gboolean ok = repr_into (interp, v, out, active, error);
  g_ptr_array_unref (active);
  return ok;
}

char *
cr_value_repr (CrInterp  *interp,
               CrValue   *v,
               GError   **error)
{
  GString *out = g_string_new (NULL);
  if (!cr_value_repr_into (interp, v, out, error))
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

char *
cr_value_str (CrInterp  *interp,
              CrValue   *v,
              GError   **error)
{
  if (v->kind == CR_VALUE_STR)
    return g_strndup (v->u.str.data, v->u.str.len);
  if (v->kind == CR_VALUE_INSTANCE)
    {
      GString *out = g_string_new (NULL);
      gboolean handled;
      if (!user_dunder_str (interp, v, "__str__", out, &handled, error))
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if (!handled)
        {
          CrException code;
          if (cr_instance_method (v, "__repr__") == NULL
              && exception_code_of_class (v->u.instance.cls, &code))
            {
              GPtrArray *active = g_ptr_array_new ();
              gboolean ok = exception_str_into (interp, v, out, active, error);
              g_ptr_array_unref (active);
              if (!ok)
                {
                  g_string_free (out, TRUE);
                  return NULL;
                }
            }
          else if (!cr_value_repr_into (interp, v, out, error))
            {
              g_string_free (out, TRUE);
              return NULL;
            }
        }
      return g_string_free (out, FALSE);
    }
  if (v->kind != CR_VALUE_INSTANCE && cr_object_script_class (v))
    {
      GString *out = g_string_new (NULL);
      gboolean handled;
      if (!user_dunder_str (interp, v, "__str__", out, &handled, error))
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if (handled)
        return g_string_free (out, FALSE);
      g_string_free (out, TRUE);
    }
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type->str)
    {
      char *s = v->u.object.type->str (v);
      if (s)
        return s;
    }
  return cr_value_repr (interp, v, error);
}

