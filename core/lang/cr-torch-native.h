/* cr-torch-native.h — the shape every torch native shares: its signature,
 * its argument parsing against a spec string, and tensor arguments. Private to
 * the cr-torch-*.c files that define natives in tables. */
#pragma once

#include "cr-torch-private.h"

#include "cr-native.h"

#define PARSE(fname, spec) \
  CrTorchArgs a; \
  if (!cr_torch_args_parse (&a, fname, spec, self, args, n_args, kwargs, n_kwargs, error)) \
    return NULL

#define TENSOR_ARG(var, i) \
  CrTensor *var = cr_torch_args_tensor (&a, i, error); \
  if (var == NULL) \
    return NULL
