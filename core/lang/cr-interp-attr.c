/* cr-interp-attr.c — attribute access: getattr (with 3.11's "Did you
 * mean"), setattr and delattr on every kind of value: builtin values,
 * modules (PEP 562's __getattr__), instances, classes (__mro__, __bases__),
 * functions, natives and bound methods. */
#include "cr-interp-private.h"
#include "cr-dunder-attrs.h"

#include <string.h>

/* ---- attributes ----------------------------------------------------------------------- */

CrValue *
cr_interp_getattr_opt (CrInterp    *self,
                       CrValue     *obj,
                       const char  *name,
                       GError     **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
      return cr_object_builtin_getattr (self, obj, name, error);
    case CR_VALUE_MODULE:
      {
        CrValue *v = g_hash_table_lookup (obj->u.module.attrs, name);
        if (v)
          return cr_value_ref (v);
        if (strcmp (name, "__name__") == 0)
          return cr_value_new_str (obj->u.module.name);
        /* `torch.nn` after `import torch`: the prelude module, run now. */
        v = cr_prelude_submodule (self, obj, name, error);
        if (v || (error && *error))
          return v;
        /* A module's own __getattr__ (PEP 562): torch.nn names what it lacks.
         * Its AttributeError is Python's, with 3.11's "Did you mean" added
         * by cr_interp_getattr, so it counts as not found. */
        CrValue *ga = g_hash_table_lookup (obj->u.module.attrs, "__getattr__");
        if (ga)
          {
            GError *local = NULL;
            CrValue *arg = cr_value_new_str (name);
            CrValue *r = cr_interp_call (self, ga, &arg, 1, NULL, 0, &local);
            cr_value_unref (arg);
            if (local && local->domain == CR_LANG_ERROR && local->code == CR_EXC_ATTRIBUTE_ERROR)
              {
                g_error_free (local);
                cr_interp_forget_error (self);
                return NULL;
              }
            if (local)
              g_propagate_error (error, local);
            return r;
          }
        return NULL;
      }
    case CR_VALUE_INSTANCE:
      if (G_UNLIKELY (self->options.coach))
        cr_binding.instance_attr (self, obj, name, NULL);
      return cr_object_instance_getattr (self, obj, name, error);
    case CR_VALUE_CLASS:
      {
        CrValue *cv = cr_object_class_lookup (self, obj, name);
        if (cv)
          return cr_object_bind_class_attr (self, cv, obj, error);
        if (strcmp (name, "__name__") == 0 || strcmp (name, "__qualname__") == 0)
          return cr_value_new_str (obj->u.cls.name);
        if (strcmp (name, "__mro__") == 0)
          {
            /* Single inheritance: the class, its bases, object. */
            CrValue *object = cr_object_class (self);
            GPtrArray *mro = g_ptr_array_new ();
            CrValue *last = obj;
            for (CrValue *c = obj; c && mro->len < 64; c = c->u.cls.base)
              g_ptr_array_add (mro, cr_value_ref (last = c));
            if (last != object)
              g_ptr_array_add (mro, cr_value_ref (object));
            return cr_value_new_tuple_take (mro);
          }
        if (strcmp (name, "__base__") == 0 || strcmp (name, "__bases__") == 0)
          {
            CrValue *object = cr_object_class (self);
            CrValue *base = obj->u.cls.base ? obj->u.cls.base : obj != object ? object : NULL;
            if (strcmp (name, "__base__") == 0)
              return base ? cr_value_ref (base) : cr_value_none ();
            return cr_value_new_tuple (&base, base ? 1 : 0);
          }
        CrValue *m = cr_builtin_unbound_method (self, obj, name);
        return m ? m : cr_dunder_unbound (self, obj, name);
      }
    case CR_VALUE_OBJECT:
      if (obj->u.object.type->get_attr)
        {
          GError *local = NULL;
          CrValue *v = obj->u.object.type->get_attr (self, obj, name, &local);
          if (v || local)
            {
              if (local)
                g_propagate_error (error, local);
              return v;
            }
        }
      return cr_dunder_attribute (self, obj, name);
    case CR_VALUE_FUNCTION:
      if (strcmp (name, "__name__") == 0)
        return cr_value_new_str (obj->u.function->code->name);
      if (strcmp (name, "__qualname__") == 0)
        return cr_value_new_str (obj->u.function->qualname);
      if (strcmp (name, "__doc__") == 0)
        return cr_object_docstring (obj->u.function->code);
      return NULL;
    case CR_VALUE_NATIVE:
      if (strcmp (name, "__name__") == 0)
        return cr_value_new_str (obj->u.native.name);
      return NULL;
    case CR_VALUE_BOUND_METHOD:
      if (strcmp (name, "__self__") == 0)
        return cr_value_ref (obj->u.bound.self);
      if (strcmp (name, "__func__") == 0)
        return cr_value_ref (obj->u.bound.func);
      return cr_interp_getattr_opt (self, obj->u.bound.func, name, error);
    default:
      {
        CrValue *m = cr_builtin_method (self, obj, name);
        return m ? m : cr_dunder_attribute (self, obj, name);
      }
    }
}

CrValue *
cr_interp_getattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   GError     **error)
{
  GError *local = NULL;
  CrValue *v = cr_interp_getattr_opt (self, obj, name, &local);
  if (local)
    {
      cr_value_unref (v);
      g_propagate_error (error, local);
      return NULL;
    }
  if (v)
    return v;
  g_autofree char *message = NULL;
  switch (obj->kind)
    {
    case CR_VALUE_MODULE:
      message = g_strdup_printf ("module '%s' has no attribute '%s'", obj->u.module.name, name);
      break;
    case CR_VALUE_CLASS:
      message = g_strdup_printf ("type object '%s' has no attribute '%s'", obj->u.cls.name, name);
      break;
    default:
      message = g_strdup_printf ("'%s' object has no attribute '%s'", cr_value_type_name (obj), name);
      break;
    }
  const char *suggestion = cr_suggest_attribute (self, obj, name);
  if (suggestion)
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "%s. Did you mean: '%s'?", message, suggestion);
  else
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "%s", message);
  return NULL;
}

gboolean
cr_interp_setattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   CrValue     *value,
                   GError     **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
      return cr_object_builtin_setattr (self, obj, name, value, error);
    case CR_VALUE_INSTANCE:
      if (G_UNLIKELY (self->options.coach))
        cr_binding.instance_attr (self, obj, name, value);
      return cr_object_instance_setattr (self, obj, name, value, error);
    case CR_VALUE_CLASS:
      if (strcmp (name, "__name__") == 0 && value->kind == CR_VALUE_STR)
        {
          /* A class made by a function (namedtuple) takes its name. */
          g_free (obj->u.cls.name);
          obj->u.cls.name = g_strdup (value->u.str.data);
          return TRUE;
        }
      cr_value_set_member (obj, name, value);
      return TRUE;
    case CR_VALUE_MODULE:
      cr_value_set_member (obj, name, value);
      return TRUE;
    case CR_VALUE_OBJECT:
      if (obj->u.object.type->set_attr)
        {
          GError *local = NULL;
          if (obj->u.object.type->set_attr (self, obj, name, value, &local))
            return TRUE;
          if (local)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
        }
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                       cr_value_type_name (obj), name);
  return FALSE;
}

gboolean
cr_interp_delattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   GError     **error)
{
  GHashTable *attrs = NULL;
  if (obj->kind == CR_VALUE_INSTANCE)
    return cr_object_instance_delattr (self, obj, name, error);
  if (cr_object_extra (obj, FALSE))
    return cr_object_builtin_delattr (self, obj, name, error);
  if (obj->kind == CR_VALUE_CLASS)
    attrs = obj->u.cls.attrs;
  if (attrs && g_hash_table_remove (attrs, name))
    return TRUE;
  if (obj->kind == CR_VALUE_CLASS)
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "type object '%s' has no attribute '%s'",
                         obj->u.cls.name, name);
  else
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                         cr_value_type_name (obj), name);
  return FALSE;
}
