/* cr-random-private.h — the generator's fields, shared by cr-cpu-random.c
 * (seeding, state bytes) and cr-cpu-sampling.c (the draws). */
#pragma once

#include "cr-random.h"
#include "cr-mt19937.h"

G_BEGIN_DECLS

struct _CrGenerator {
  CrMt19937 engine;
  /* Box-Muller gives two normals; a scalar draw keeps the second here. */
  gboolean  has_next_float_normal;
  gboolean  has_next_double_normal;
  float     next_float_normal;
  double    next_double_normal;
};

G_END_DECLS
