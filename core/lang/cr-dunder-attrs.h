/* cr-dunder-attrs.h — x.__add__(y), t.__len__(), (2).__mul__(3): the
 * operator methods of builtin values, tensors and instances, read as
 * attributes (cr-dunder-attrs.c). */
#pragma once

#include "cr-value.h"

G_BEGIN_DECLS

/* obj's operator method `name` (a native bound to obj, new ref) when obj's
 * type has it and defines no such attribute of its own; NULL otherwise. */
CrValue *cr_dunder_attribute (CrInterp   *self,
                              CrValue    *obj,
                              const char *name);

/* The same read through a builtin type, int.__add__ (the receiver is the
 * call's first argument); NULL when cls is no builtin type or lacks it. */
CrValue *cr_dunder_unbound   (CrInterp   *self,
                              CrValue    *cls,
                              const char *name);

G_END_DECLS
