/* cr-object.c — the attribute protocol of instances and the class `object`
 * (see cr-object.h). The order of a read follows CPython's
 * PyObject_GenericGetAttr: a data descriptor (property) on the class, then
 * the instance's own attributes, then the class attribute, bound; and
 * __getattr__ only when that finds nothing or raises AttributeError. */
#include "cr-object.h"
#include "cr-interp-private.h"
#include "cr-dunder-attrs.h"
#include "cr-native.h"

#include <string.h>

/* ---- property ------------------------------------------------------------------------------ */

typedef struct {
  CrValue *fget, *fset, *fdel;   /* owned, NULL when absent */
} Property;

static void
property_destroy (gpointer data)
{
  Property *p = data;
  cr_value_unref (p->fget);
  cr_value_unref (p->fset);
  cr_value_unref (p->fdel);
  g_free (p);
}

CrValue *
cr_property_new (CrValue *fget,
                 CrValue *fset,
                 CrValue *fdel)
{
  Property *p = g_new0 (Property, 1);
  if (fget && fget->kind != CR_VALUE_NONE)
    p->fget = cr_value_ref (fget);
  if (fset && fset->kind != CR_VALUE_NONE)
    p->fset = cr_value_ref (fset);
  if (fdel && fdel->kind != CR_VALUE_NONE)
    p->fdel = cr_value_ref (fdel);
  return cr_value_new_object (&cr_property_type, p);
}

/* prop.setter(f) and friends: a copy of the property with one function
 * replaced (data: 0 getter, 1 setter, 2 deleter). */
NATIVE (property_with)
{
  if (!cr_builtin_no_kwargs ("setter", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("setter", n_args, 1, 1, error))
    return NULL;
  Property *p = self->u.object.data;
  int which = GPOINTER_TO_INT (data);
  return cr_property_new (which == 0 ? args[0] : p->fget, which == 1 ? args[0] : p->fset,
                          which == 2 ? args[0] : p->fdel);
}

static CrValue *
property_get_attr (CrInterp    *interp,
                   CrValue     *obj,
                   const char  *name,
                   GError     **error)
{
  Property *p = obj->u.object.data;
  static const char *const functions[] = { "fget", "fset", "fdel" };
  static const char *const makers[] = { "getter", "setter", "deleter" };
  for (int i = 0; i < 3; i++)
    {
      if (strcmp (name, functions[i]) == 0)
        {
          CrValue *f = i == 0 ? p->fget : (i == 1 ? p->fset : p->fdel);
          return f ? cr_value_ref (f) : cr_value_none ();
        }
      if (strcmp (name, makers[i]) == 0)
        return cr_value_new_native (makers[i], property_with, obj, GINT_TO_POINTER (i));
    }
  return NULL;
}

const CrObjectType cr_property_type = {
  .name = "property",
  .destroy = property_destroy,
  .get_attr = property_get_attr,
};

static gboolean
is_property (CrValue *v)
{
  return v->kind == CR_VALUE_OBJECT && v->u.object.type == &cr_property_type;
}

static const char *
instance_type_name (CrValue *inst)
{
  return cr_value_type_name (inst);
}

static CrValue *
property_get (CrInterp    *interp,
              CrValue     *prop,
              CrValue     *inst,
              const char  *name,
              GError     **error)
{
  Property *p = prop->u.object.data;
  if (!p->fget)
    {
      cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "property '%s' of '%s' object has no getter",
                           name, instance_type_name (inst));
      return NULL;
    }
  return cr_interp_call (interp, p->fget, &inst, 1, NULL, 0, error);
}

/* fset(inst, value), or fdel(inst) when value is NULL. */
static gboolean
property_set (CrInterp    *interp,
              CrValue     *prop,
              CrValue     *inst,
              const char  *name,
              CrValue     *value,
              GError     **error)
{
  Property *p = prop->u.object.data;
  CrValue *fn = value ? p->fset : p->fdel;
  if (!fn)
    {
      cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "property '%s' of '%s' object has no %s",
                           name, instance_type_name (inst), value ? "setter" : "deleter");
      return FALSE;
    }
  CrValue *call_args[2] = { inst, value };
  CrValue *r = cr_interp_call (interp, fn, call_args, value ? 2 : 1, NULL, 0, error);
  cr_value_unref (r);
  return r != NULL;
}

/* ---- class attributes --------------------------------------------------------------------- */

CrValue *
cr_object_class (CrInterp *interp)
{
  return g_hash_table_lookup (interp->builtins, "object");
}

CrValue *
cr_object_class_lookup (CrInterp    *interp,
                        CrValue     *cls,
                        const char  *name)
{
  CrValue *v = cr_class_lookup (cls, name);
  if (v || name[0] != '_' || g_str_has_prefix (name, "__cr_"))
    return v;
  CrValue *object = cr_object_class (interp);
  return object && object != cls ? g_hash_table_lookup (object->u.cls.attrs, name) : NULL;
}

static CrValue *
bound_method_new (CrValue *func,
                  CrValue *obj)
{
  CrValue *v = cr_value_alloc (CR_VALUE_BOUND_METHOD);
  v->u.bound.func = cr_value_ref (func);
  v->u.bound.self = cr_value_ref (obj);
  return v;
}

CrValue *
cr_object_bind_class_attr (CrInterp  *interp,
                           CrValue   *attr,
                           CrValue   *obj,
                           GError   **error)
{
  switch (attr->kind)
    {
    case CR_VALUE_FUNCTION:
      if (obj->kind != CR_VALUE_CLASS)
        return bound_method_new (attr, obj);
      return cr_value_ref (attr);
    case CR_VALUE_NATIVE:
      if (attr->u.native.self == NULL)
        return cr_value_new_native (attr->u.native.name, attr->u.native.fn, obj,
                                    attr->u.native.data);
      /* A wrapper around a def (@torch.no_grad() on a method) binds as the
       * def does, as functools.wraps' result would. */
      if (attr->u.native.self->kind == CR_VALUE_FUNCTION && obj->kind != CR_VALUE_CLASS)
        return bound_method_new (attr, obj);
      return cr_value_ref (attr);
    case CR_VALUE_OBJECT:
      if (attr->u.object.type == &cr_staticmethod_type)
        return cr_value_ref (attr->u.object.data);
      if (attr->u.object.type == &cr_classmethod_type)
        return bound_method_new (attr->u.object.data,
                                 obj->kind == CR_VALUE_INSTANCE ? obj->u.instance.cls : obj);
      if (is_property (attr) && obj->kind != CR_VALUE_CLASS)
        return property_get (interp, attr, obj, "?", error);
      return cr_value_ref (attr);
    default:
      return cr_value_ref (attr);
    }
}

/* ---- the generic protocol (object.__getattribute__ and friends) ---------------------------- */

/* Once a script has read inst.__dict__ it may change that dict itself
 * (self.__dict__.update(state), as lr_scheduler's load_state_dict does):
 * from then on the dict is what an attribute read sees, and every store
 * goes to both. */
static CrValue *
dict_lookup_str (CrValue    *dict,
                 const char *name)
{
  CrValue *key = cr_value_new_str (name);
  CrValue *v = cr_dict_get (dict, key, NULL);
  cr_value_unref (key);
  return v;
}

void
cr_object_instance_store (CrValue    *inst,
                          const char *name,
                          CrValue    *value)
{
  GHashTable *attrs = inst->u.instance.attrs;
  if (G_UNLIKELY (inst->u.instance.dict != NULL))
    {
      CrValue *key = cr_value_new_str (name);
      cr_dict_set (inst->u.instance.dict, key, value, NULL);
      cr_value_unref (key);
    }
  /* insert keeps the key it has (order points at it) and frees the new one. */
  if (g_hash_table_insert (attrs, g_strdup (name), cr_value_ref (value)))
    {
      /* A new name: the table's own copy of it, in order. */
      gpointer key = NULL;
      g_hash_table_lookup_extended (attrs, name, &key, NULL);
      g_ptr_array_add (inst->u.instance.order, key);
    }
}

static gboolean
instance_remove (CrValue    *inst,
                 const char *name)
{
  gboolean found = FALSE;
  if (G_UNLIKELY (inst->u.instance.dict != NULL))
    {
      CrValue *k = cr_value_new_str (name);
      found = cr_dict_get (inst->u.instance.dict, k, NULL) != NULL
              && cr_dict_delete (inst->u.instance.dict, k, NULL);
      cr_value_unref (k);
    }
  gpointer key;
  if (!g_hash_table_lookup_extended (inst->u.instance.attrs, name, &key, NULL))
    return found;
  g_ptr_array_remove (inst->u.instance.order, key);
  g_hash_table_remove (inst->u.instance.attrs, name);
  return TRUE;
}

static CrValue *
instance_dict (CrValue *inst)
{
  if (inst->u.instance.dict)
    return cr_value_ref (inst->u.instance.dict);
  CrValue *d = cr_value_new_dict ();
  inst->u.instance.dict = d;   /* the instance's reference */
  cr_value_ref (d);            /* the caller's */
  GPtrArray *order = inst->u.instance.order;
  for (guint i = 0; i < order->len; i++)
    {
      CrValue *k = cr_value_new_str (order->pdata[i]);
      cr_dict_set (d, k, g_hash_table_lookup (inst->u.instance.attrs, order->pdata[i]), NULL);
      cr_value_unref (k);
    }
  if (order->len == g_hash_table_size (inst->u.instance.attrs))
    return d;
  /* Names set past cr_object_instance_store (cr_value_set_member) come last. */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, inst->u.instance.attrs);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      CrValue *k = cr_value_new_str (key);
      if (!cr_dict_get (d, k, NULL))
        cr_dict_set (d, k, value, NULL);
      cr_value_unref (k);
    }
  return d;
}

/* NULL without error when absent. */
static CrValue *
generic_getattr (CrInterp    *interp,
                 CrValue     *inst,
                 const char  *name,
                 GError     **error)
{
  CrValue *cls = inst->u.instance.cls;
  CrValue *attr = cr_object_class_lookup (interp, cls, name);
  if (attr && is_property (attr))
    return property_get (interp, attr, inst, name, error);
  CrValue *v = G_UNLIKELY (inst->u.instance.dict != NULL)
                 ? dict_lookup_str (inst->u.instance.dict, name)
                 : g_hash_table_lookup (inst->u.instance.attrs, name);
  if (v)
    return cr_value_ref (v);
  if (attr)
    return cr_object_bind_class_attr (interp, attr, inst, error);
  if (strcmp (name, "__class__") == 0)
    return cr_value_ref (cls);
  if (strcmp (name, "__dict__") == 0)
    return instance_dict (inst);
  /* object's __eq__, __repr__, ... that the class does not define. */
  return cr_dunder_attribute (interp, inst, name);
}

static gboolean
generic_setattr (CrInterp    *interp,
                 CrValue     *inst,
                 const char  *name,
                 CrValue     *value,
                 GError     **error)
{
  CrValue *attr = cr_object_class_lookup (interp, inst->u.instance.cls, name);
  if (attr && is_property (attr))
    return property_set (interp, attr, inst, name, value, error);
  cr_object_instance_store (inst, name, value);
  return TRUE;
}

static gboolean
generic_delattr (CrInterp    *interp,
                 CrValue     *inst,
                 const char  *name,
                 GError     **error)
{
  CrValue *attr = cr_object_class_lookup (interp, inst->u.instance.cls, name);
  if (attr && is_property (attr))
    return property_set (interp, attr, inst, name, NULL, error);
  if (instance_remove (inst, name))
    return TRUE;
  cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                       instance_type_name (inst), name);
  return FALSE;
}

/* A class's own __getattribute__ / __setattr__ / __delattr__, NULL when it
 * has none (object's are not in a class's chain). */
static CrValue *
own_hook (CrValue    *inst,
          const char *name)
{
  return cr_class_lookup (inst->u.instance.cls, name);
}

CrValue *
cr_object_instance_getattr (CrInterp    *interp,
                            CrValue     *inst,
                            const char  *name,
                            GError     **error)
{
  GError *local = NULL;
  CrValue *v;
  CrValue *getattribute = own_hook (inst, "__getattribute__");
  if (getattribute)
    {
      CrValue *arg = cr_value_new_str (name);
      v = cr_interp_call_method (interp, inst, getattribute, &arg, 1, &local);
      cr_value_unref (arg);
    }
  else
    v = generic_getattr (interp, inst, name, &local);
  if (v)
    return v;
  if (local && local->code != CR_EXC_ATTRIBUTE_ERROR)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  CrValue *getattr = own_hook (inst, "__getattr__");
  if (!getattr)
    {
      if (local)
        g_propagate_error (error, local);
      return NULL;
    }
  if (local)
    {
      g_error_free (local);
      cr_interp_forget_error (interp);
    }
  CrValue *arg = cr_value_new_str (name);
  v = cr_interp_call_method (interp, inst, getattr, &arg, 1, error);
  cr_value_unref (arg);
  return v;
}

gboolean
cr_object_instance_setattr (CrInterp    *interp,
                            CrValue     *inst,
                            const char  *name,
                            CrValue     *value,
                            GError     **error)
{
  CrValue *hook = own_hook (inst, "__setattr__");
  if (!hook)
    return generic_setattr (interp, inst, name, value, error);
  CrValue *hook_args[2] = { cr_value_new_str (name), value };
  CrValue *r = cr_interp_call_method (interp, inst, hook, hook_args, 2, error);
  cr_value_unref (hook_args[0]);
  cr_value_unref (r);
  return r != NULL;
}

gboolean
cr_object_instance_delattr (CrInterp    *interp,
                            CrValue     *inst,
                            const char  *name,
                            GError     **error)
{
  CrValue *hook = own_hook (inst, "__delattr__");
  if (!hook)
    return generic_delattr (interp, inst, name, error);
  CrValue *arg = cr_value_new_str (name);
  CrValue *r = cr_interp_call_method (interp, inst, hook, &arg, 1, error);
  cr_value_unref (arg);
  cr_value_unref (r);
  return r != NULL;
}

/* ---- builtin objects with a class and attributes of their own --------------------------- */

void
cr_object_extra_free (CrObjectExtra *extra)
{
  if (extra == NULL)
    return;
  cr_value_unref (extra->cls);
  if (extra->attrs)
    g_hash_table_unref (extra->attrs);
  g_free (extra);
}

CrObjectExtra *
cr_object_extra (CrValue  *v,
                 gboolean  create)
{
  const CrTypeSlots *slots = cr_value_slots (v);
  if (slots)
    return slots->extra (v, create);
  CrObjectExtra **slot = cr_value_extra_slot (v);
  if (slot == NULL)
    return NULL;
  if (*slot == NULL && create)
    *slot = g_new0 (CrObjectExtra, 1);
  return *slot;
}

CrValue *
cr_object_script_class (CrValue *v)
{
  if (v->kind == CR_VALUE_INSTANCE)
    return v->u.instance.cls;
  CrObjectExtra *extra = cr_object_extra (v, FALSE);
  return extra ? extra->cls : NULL;
}

void
cr_object_set_class (CrValue *v,
                     CrValue *cls)
{
  CrObjectExtra *extra = cr_object_extra (v, TRUE);
  g_return_if_fail (extra != NULL);
  CrValue *old = extra->cls;
  extra->cls = cr_value_ref (cls);
  cr_value_unref (old);
}

static void
value_unref_notify (gpointer v)
{
  cr_value_unref (v);
}

static CrValue *
attrs_dict (GHashTable *attrs)
{
  CrValue *d = cr_value_new_dict ();
  if (!attrs)
    return d;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, attrs);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      CrValue *k = cr_value_new_str (key);
      cr_dict_set (d, k, value, NULL);
      cr_value_unref (k);
    }
  return d;
}

/* The builtin type's own attribute: a tensor's member (AttributeError when
 * absent), a list's method (NULL when absent). */
static CrValue *
builtin_member (CrInterp    *interp,
                CrValue     *v,
                const char  *name,
                GError     **error)
{
  if (cr_value_slots (v) != NULL)
    return interp->tensor_slots->getattr (interp, v, name, error);
  return cr_builtin_method (interp, v, name);
}

CrValue *
cr_object_builtin_getattr (CrInterp    *interp,
                           CrValue     *v,
                           const char  *name,
                           GError     **error)
{
  CrObjectExtra *extra = cr_object_extra (v, FALSE);
  CrValue *cls = extra ? extra->cls : NULL;
  if (extra)
    {
      CrValue *attr = cls && !g_str_has_prefix (name, "__cr_") ? cr_class_lookup (cls, name) : NULL;
      if (attr && is_property (attr))
        return property_get (interp, attr, v, name, error);
      CrValue *own = extra->attrs ? g_hash_table_lookup (extra->attrs, name) : NULL;
      if (own)
        return cr_value_ref (own);
      if (attr)
        return cr_object_bind_class_attr (interp, attr, v, error);
    }
  if (name[0] == '_' && name[1] == '_')
    {
      if (strcmp (name, "__class__") == 0)
        return cr_value_ref (cr_interp_type_of (interp, v));
      if (strcmp (name, "__dict__") == 0 && (cr_value_slots (v) != NULL || cls))
        return attrs_dict (extra ? extra->attrs : NULL);
    }
  GError *local = NULL;
  CrValue *r = builtin_member (interp, v, name, &local);
  if (!r && (!local || local->code == CR_EXC_ATTRIBUTE_ERROR))
    {
      /* t.__add__, l.__len__: the operator, as an attribute. */
      r = cr_dunder_attribute (interp, v, name);
      if (r && local)
        {
          g_clear_error (&local);
          cr_interp_forget_error (interp);
        }
    }
  if (r || !cls || (local && local->code != CR_EXC_ATTRIBUTE_ERROR))
    {
      if (local)
        g_propagate_error (error, local);
      return r;
    }
  /* A subclass's __getattr__, when all else failed. */
  CrValue *getattr = cr_class_lookup (cls, "__getattr__");
  if (!getattr || getattr->kind != CR_VALUE_FUNCTION)
    {
      if (local)
        g_propagate_error (error, local);
      return NULL;
    }
  if (local)
    {
      g_error_free (local);
      cr_interp_forget_error (interp);
    }
  CrValue *arg = cr_value_new_str (name);
  r = cr_interp_call_method (interp, v, getattr, &arg, 1, error);
  cr_value_unref (arg);
  return r;
}

gboolean
cr_object_builtin_setattr (CrInterp    *interp,
                           CrValue     *v,
                           const char  *name,
                           CrValue     *value,
                           GError     **error)
{
  if (cr_value_slots (v) != NULL)
    {
      GError *local = NULL;
      if (interp->tensor_slots->setattr (interp, v, name, value, &local))
        return TRUE;
      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
    }
  /* Not one of the builtin's members: the object's own attribute, which a
   * tensor and an object of a script's subclass of list, tuple or dict take. */
  CrObjectExtra *extra = cr_object_extra (v, cr_value_slots (v) != NULL);
  if (!extra || (cr_value_slots (v) == NULL && !extra->cls))
    {
      cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                           cr_value_type_name (v), name);
      return FALSE;
    }
  CrValue *attr = extra->cls ? cr_class_lookup (extra->cls, name) : NULL;
  if (attr && is_property (attr))
    return property_set (interp, attr, v, name, value, error);
  if (!extra->attrs)
    extra->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_unref_notify);
  g_hash_table_insert (extra->attrs, g_strdup (name), cr_value_ref (value));
  return TRUE;
}

gboolean
cr_object_builtin_delattr (CrInterp    *interp,
                           CrValue     *v,
                           const char  *name,
                           GError     **error)
{
  CrObjectExtra *extra = cr_object_extra (v, FALSE);
  CrValue *attr = extra && extra->cls ? cr_class_lookup (extra->cls, name) : NULL;
  if (attr && is_property (attr))
    return property_set (interp, attr, v, name, NULL, error);
  if (extra && extra->attrs && g_hash_table_remove (extra->attrs, name))
    return TRUE;
  cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                       cr_value_type_name (v), name);
  return FALSE;
}

/* ---- list, tuple and dict as base classes ------------------------------------------------- */

/* Makes a fresh value (v itself unless something else holds it: tuple(t)
 * may hand back t) of the script class cls. Takes v; a new ref. */
static CrValue *
adopt (CrValue *v,
       CrValue *cls)
{
  if (cls->kind == CR_VALUE_CLASS && g_hash_table_lookup (cls->u.cls.attrs, "__cr_kind__"))
    return v;   /* the builtin class itself: a plain value */
  if (v->ref_count > 1 && (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE))
    {
      CrValue *copy = cr_value_new_tuple ((CrValue *const *) v->u.seq.items->pdata,
                                          v->u.seq.items->len);
      copy->kind = v->kind;
      cr_value_unref (v);
      v = copy;
    }
  cr_object_set_class (v, cls);
  return v;
}

static gboolean
new_cls_arg (CrValue *const  *args,
             guint            n_args,
             const char      *type_name,
             GError         **error)
{
  if (n_args > 0 && args[0]->kind == CR_VALUE_CLASS)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s.__new__(X): X is not a type object (%s)",
                       type_name, n_args > 0 ? cr_value_type_name (args[0]) : "nothing");
  return FALSE;
}

/* list.__new__(cls, ...) and dict.__new__(cls, ...): an empty one of cls,
 * which __init__ fills. */
NATIVE (container_new)
{
  CrValueKind kind = (CrValueKind) GPOINTER_TO_INT (data);
  if (!new_cls_arg (args, n_args, kind == CR_VALUE_LIST ? "list" : "dict", error))
    return NULL;
  return adopt (kind == CR_VALUE_LIST ? cr_value_new_list () : cr_value_new_dict (), args[0]);
}

/* tuple.__new__(cls, iterable=()): a tuple is filled when made. */
NATIVE (tuple_new)
{
  if (!new_cls_arg (args, n_args, "tuple", error))
    return NULL;
  if (n_kwargs > 0 || n_args > 2)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "tuple expected at most 1 argument, got %u",
                           n_args - 1);
      return NULL;
    }
  CrValue *list = n_args == 2 ? cr_iter_to_list (interp, args[1], error) : cr_value_new_list ();
  if (!list)
    return NULL;
  list->kind = CR_VALUE_TUPLE;
  return adopt (list, args[0]);
}

/* list.__init__(self, iterable=()) and dict.__init__(self, *args, **kwargs). */
NATIVE (container_init)
{
  CrValueKind kind = (CrValueKind) GPOINTER_TO_INT (data);
  CrValue *receiver = self;
  if (receiver == NULL || receiver->kind == CR_VALUE_CLASS)
    {
      if (n_args == 0)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "descriptor '__init__' needs an argument");
          return NULL;
        }
      receiver = args[0];
      args++;
      n_args--;
    }
  if (receiver->kind != kind)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "descriptor '__init__' requires a '%s' object but received a '%s'",
                           kind == CR_VALUE_LIST ? "list" : "dict", cr_value_type_name (receiver));
      return NULL;
    }
  if (kind == CR_VALUE_LIST)
    {
      if (n_kwargs > 0)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "list() takes no keyword arguments");
          return NULL;
        }
      if (n_args > 1)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "list expected at most 1 argument, got %u",
                               n_args);
          return NULL;
        }
      CrValue *items = n_args == 1 ? cr_iter_to_list (interp, args[0], error) : cr_value_new_list ();
      if (!items)
        return NULL;
      g_ptr_array_set_size (receiver->u.seq.items, 0);
      for (guint i = 0; i < items->u.seq.items->len; i++)
        g_ptr_array_add (receiver->u.seq.items, cr_value_ref (items->u.seq.items->pdata[i]));
      cr_seq_account (receiver);
      cr_value_unref (items);
      return cr_value_none ();
    }
  if (n_args > 1)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "dict expected at most 1 argument, got %u",
                           n_args);
      return NULL;
    }
  if (n_args == 1 && !cr_dict_update_from (interp, receiver, args[0], error))
    return NULL;
  for (guint i = 0; i < n_kwargs; i++)
    {
      CrValue *key = cr_value_new_str (kwargs[i].name);
      gboolean ok = cr_dict_set (receiver, key, kwargs[i].value, error);
      cr_value_unref (key);
      if (!ok)
        return NULL;
    }
  return cr_value_none ();
}

/* ---- object's methods ----------------------------------------------------------------------- */

/* Read through a class (object.__setattr__(x, n, v)) a method of object is
 * bound to that class and its receiver comes first among the arguments;
 * read through an instance it is bound to the instance. Checks that
 * n_expected arguments follow the receiver. */
static gboolean
take_receiver (CrValue          *self,
               CrValue *const  **args,
               guint            *n_args,
               guint             n_expected,
               CrValue         **out_receiver,
               GError          **error)
{
  if (self == NULL || self->kind == CR_VALUE_CLASS)
    {
      if (*n_args == 0)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "descriptor needs an argument");
          return FALSE;
        }
      self = (*args)[0];
      (*args)++;
      (*n_args)--;
    }
  if (*n_args != n_expected)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, " expected %u argument%s, got %u", n_expected,
                           n_expected == 1 ? "" : "s", *n_args);
      return FALSE;
    }
  if (self->kind == CR_VALUE_CLASS)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "can't apply this method to type object");
      return FALSE;
    }
  *out_receiver = self;
  return TRUE;
}

static gboolean
name_arg (CrValue  *v,
          GError  **error)
{
  if (v->kind == CR_VALUE_STR)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "attribute name must be string, not '%s'",
                       cr_value_type_name (v));
  return FALSE;
}

NATIVE (object_getattribute)
{
  CrValue *receiver;
  if (!cr_builtin_no_kwargs ("__getattribute__", n_kwargs, kwargs, error)
      || !take_receiver (self, &args, &n_args, 1, &receiver, error) || !name_arg (args[0], error))
    return NULL;
  const char *name = args[0]->u.str.data;
  if (receiver->kind != CR_VALUE_INSTANCE)
    return cr_interp_getattr (interp, receiver, name, error);
  GError *local = NULL;
  CrValue *v = generic_getattr (interp, receiver, name, &local);
  if (local)
    g_propagate_error (error, local);
  else if (!v)
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                         instance_type_name (receiver), name);
  return v;
}

NATIVE (object_setattr)
{
  CrValue *receiver;
  if (!cr_builtin_no_kwargs ("__setattr__", n_kwargs, kwargs, error)
      || !take_receiver (self, &args, &n_args, 2, &receiver, error) || !name_arg (args[0], error))
    return NULL;
  gboolean ok = receiver->kind == CR_VALUE_INSTANCE
                  ? generic_setattr (interp, receiver, args[0]->u.str.data, args[1], error)
                  : cr_interp_setattr (interp, receiver, args[0]->u.str.data, args[1], error);
  return ok ? cr_value_none () : NULL;
}

NATIVE (object_delattr)
{
  CrValue *receiver;
  if (!cr_builtin_no_kwargs ("__delattr__", n_kwargs, kwargs, error)
      || !take_receiver (self, &args, &n_args, 1, &receiver, error) || !name_arg (args[0], error))
    return NULL;
  gboolean ok = receiver->kind == CR_VALUE_INSTANCE
                  ? generic_delattr (interp, receiver, args[0]->u.str.data, error)
                  : cr_interp_delattr (interp, receiver, args[0]->u.str.data, error);
  return ok ? cr_value_none () : NULL;
}

CrValue *
cr_object_new_instance (CrValue *cls)
{
  CrValue *inst = cr_value_alloc (CR_VALUE_INSTANCE);
  inst->u.instance.cls = cr_value_ref (cls);
  inst->u.instance.attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  value_unref_notify);
  inst->u.instance.order = g_ptr_array_new ();
  inst->u.instance.dict = NULL;
  return inst;
}

/* object.__new__(cls, ...): a static method, so its class comes first
 * however it was read. */
NATIVE (object_new)
{
  if (n_args == 0)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "object.__new__(): not enough arguments");
      return NULL;
    }
  CrValue *cls = args[0];
  if (cls->kind != CR_VALUE_CLASS)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "object.__new__(X): X is not a type object (%s)",
                           cr_value_type_name (cls));
      return NULL;
    }
  if (g_hash_table_lookup (cls->u.cls.attrs, "__cr_kind__") && cls != cr_object_class (interp))
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "object.__new__(%s) is not safe, use %s.__new__()", cls->u.cls.name,
                           cls->u.cls.name);
      return NULL;
    }
  return cr_object_new_instance (cls);
}

CrValue *
cr_object_docstring (const CrCode *code)
{
  if (code->n_body > 0 && code->body[0]->kind == CR_AST_EXPR)
    {
      const CrAstNode *value = code->body[0]->u.expr_stmt.value;
      if (value->kind == CR_AST_CONSTANT && value->u.constant.kind == CR_CONST_STR)
        return cr_value_new_str_len (value->u.constant.s, value->u.constant.s_len);
    }
  return cr_value_none ();
}

static void
add_method (CrValue      *cls,
            const char   *name,
            CrNativeFunc  fn)
{
  CrValue *m = cr_value_new_native (name, fn, NULL, NULL);
  cr_value_set_member (cls, name, m);
  cr_value_unref (m);
}

void
cr_object_install (CrInterp *interp,
                   CrValue  *object_class)
{
  add_method (object_class, "__getattribute__", object_getattribute);
  add_method (object_class, "__setattr__", object_setattr);
  add_method (object_class, "__delattr__", object_delattr);
  add_method (object_class, "__new__", object_new);

  /* list, tuple and dict as base classes (made before object). */
  static const struct { CrValueKind kind; const char *name; CrNativeFunc fn; } methods[] = {
    { CR_VALUE_LIST, "__new__", container_new }, { CR_VALUE_LIST, "__init__", container_init },
    { CR_VALUE_DICT, "__new__", container_new }, { CR_VALUE_DICT, "__init__", container_init },
    { CR_VALUE_TUPLE, "__new__", tuple_new },
  };
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      CrValue *cls = g_hash_table_lookup (interp->type_classes, GINT_TO_POINTER (methods[i].kind));
      g_return_if_fail (cls != NULL);
      CrValue *m = cr_value_new_native (methods[i].name, methods[i].fn, NULL,
                                        GINT_TO_POINTER (methods[i].kind));
      cr_value_set_member (cls, methods[i].name, m);
      cr_value_unref (m);
    }
}
