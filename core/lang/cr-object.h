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

/* Installs object's methods on the class `object`. */
void      cr_object_install           (CrInterp    *interp,
                                       CrValue     *object_class);

G_END_DECLS
