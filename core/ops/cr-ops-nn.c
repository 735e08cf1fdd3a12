/* cr-ops-nn.c — being written. */
#include "cr-ops.h"
