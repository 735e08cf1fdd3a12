/* cr-ops-index.c — being written. */
#include "cr-ops.h"
