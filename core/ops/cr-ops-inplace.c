/* cr-ops-inplace.c — being written. */
#include "cr-ops.h"
