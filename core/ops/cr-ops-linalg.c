/* cr-ops-linalg.c — being written. */
#include "cr-ops.h"
