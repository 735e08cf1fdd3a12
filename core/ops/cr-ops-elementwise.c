/* cr-ops-elementwise.c — being written. */
#include "cr-ops.h"
