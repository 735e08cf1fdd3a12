/* cr-cpu-random.c — being written. */
#include "cr-kernels.h"
