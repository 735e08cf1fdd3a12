/* cr-ops-reduce.c — being written. */
#include "cr-ops.h"
