/* cr-object.h — Python's attribute protocol for instances of script classes
 * and the class `object` that carries it: object.__getattribute__,
 * __setattr__ and __delattr__ (what a class's own __setattr__ calls through
 * object.__setattr__ or super()), and property, the data descriptor that
 * takes precedence over an instance's own attributes.
 *
 * A class without a base has NULL for base; `object` is still its base as
 * far as a script can see: cr_object_class_lookup falls back to it. */
#pragma once

#include "cr-value.h"

G_BEGIN_DECLS

extern const CrObjectType cr_property_type;

/* property(fget=None, fset=None, fdel=None, doc=None): a new ref. */
CrValue  *cr_property_new             (CrValue     *fget,
                                       CrValue     *fset,
                                       CrValue     *fdel);

/* The class `object` (borrowed). */
CrValue  *cr_object_class             (CrInterp    *interp);
/* name on cls and its bases, then on object (borrowed; NULL when absent). */
CrValue  *cr_object_class_lookup      (CrInterp    *interp,
                                       CrValue     *cls,
                                       const char  *name);
/* What a class attribute becomes read through obj, an instance or the class
 * itself: a bound method, the function of a staticmethod, a property's
 * value... (a new ref). */
CrValue  *cr_object_bind_class_attr   (CrInterp    *interp,
                                       CrValue     *attr,
                                       CrValue     *obj,
                                       GError     **error);

/* inst.name, inst.name = value, del inst.name for an instance, through its
 * class's __getattribute__ / __getattr__ / __setattr__ / __delattr__ when
 * it defines them. getattr: NULL without error when absent. */
CrValue  *cr_object_instance_getattr  (CrInterp    *interp,
                                       CrValue     *inst,
                                       const char  *name,
                                       GError     **error);
gboolean  cr_object_instance_setattr  (CrInterp    *interp,
                                       CrValue     *inst,
                                       const char  *name,
                                       CrValue     *value,
                                       GError     **error);
gboolean  cr_object_instance_delattr  (CrInterp    *interp,
                                       CrValue     *inst,
                                       const char  *name,
                                       GError     **error);

/* What a script attaches to a builtin object that is not an instance of a
 * script class (today: a tensor): the class it was made as, a script's
 * subclass of the builtin class (nn.Parameter of torch.Tensor; NULL: the
 * builtin class itself), and its own attributes (`inp.g = ...`). It belongs
 * to the object, so every reference to it sees the same. */
struct _CrObjectExtra {
  CrValue    *cls;     /* owned, may be NULL */
  GHashTable *attrs;   /* char* -> CrValue* (owned), NULL until one is set */
  guint64     serial;  /* the run recorder's identity of the object (a tensor's
                        * address is reused once it is freed); 0: none given */
};
void      cr_object_extra_free        (CrObjectExtra *extra);   /* NULL-safe */
/* Where a list, tuple or dict keeps its extra (cr-value.c); NULL for other
 * values (and torch.Size). */
CrObjectExtra **cr_value_extra_slot   (CrValue     *v);

/* v's extra (borrowed), made when create is TRUE and v can hold one; NULL
 * when v has none. */
CrObjectExtra *cr_object_extra        (CrValue     *v,
                                       gboolean     create);
/* The script class v is an instance of (borrowed): an instance's class, or
 * the subclass a builtin object was made as; NULL for anything else. */
CrValue  *cr_object_script_class      (CrValue     *v);
/* Makes v (a tensor) an object of cls, a script subclass of its builtin class. */
void      cr_object_set_class         (CrValue     *v,
                                       CrValue     *cls);

/* Attribute access on a builtin object that may carry an extra (a tensor;
 * a list, tuple or dict of a script's subclass): the subclass's methods
 * and properties and the object's own attributes around the builtin's
 * members. getattr: NULL without error when absent. */
CrValue  *cr_object_builtin_getattr   (CrInterp    *interp,
                                       CrValue     *v,
                                       const char  *name,
                                       GError     **error);
gboolean  cr_object_builtin_setattr   (CrInterp    *interp,
                                       CrValue     *v,
                                       const char  *name,
                                       CrValue     *value,
                                       GError     **error);
gboolean  cr_object_builtin_delattr   (CrInterp    *interp,
                                       CrValue     *v,
                                       const char  *name,
                                       GError     **error);

/* inst.name = value in the instance's own attributes (refs value). */
void      cr_object_instance_store    (CrValue     *inst,
                                       const char  *name,
                                       CrValue     *value);
/* A bare instance of the script class cls (object.__new__(cls)): new ref. */
CrValue  *cr_object_new_instance      (CrValue     *cls);

/* The docstring of a def or class body (a new str), or None. */
struct _CrCode;
CrValue  *cr_object_docstring         (const struct _CrCode *code);

/* Installs object's methods on the class `object`. */
void      cr_object_install           (CrInterp    *interp,
                                       CrValue     *object_class);

G_END_DECLS
