/* cr-cpu-threads.c — being written. */
#include "cr-kernels.h"
