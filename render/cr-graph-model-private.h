/* cr-graph-model-private.h — shared by the files that build graph models. */
#pragma once

#include "cr-graph-model.h"

G_BEGIN_DECLS

G_END_DECLS
