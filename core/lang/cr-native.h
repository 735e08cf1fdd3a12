/* cr-native.h — the one shape of a function written in C (CrNativeFunc):
 *
 *   NATIVE (b_len)
 *   {
 *     ... interp: the interpreter; self: the receiver the native is bound to
 *     (NULL for a plain function, the class when read through a class);
 *     args/n_args, kwargs/n_kwargs: the call's arguments (borrowed);
 *     data: what the native was made with; returns a new ref, or NULL with
 *     *error set ...
 *   }
 *
 * NATIVE makes a file-local native; CR_NATIVE_PARAMS is the parameter list
 * for one that a header declares. */
#pragma once

#include "cr-value.h"

#define CR_NATIVE_PARAMS \
  CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args, \
  const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error

#define NATIVE(fn) static CrValue *fn (CR_NATIVE_PARAMS)
