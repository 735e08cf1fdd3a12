/* cr-ops-shape.c — being written. */
#include "cr-ops.h"
