/* cr-cpu-reduce.c — being written. */
#include "cr-kernels.h"
