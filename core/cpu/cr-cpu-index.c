/* cr-cpu-index.c — being written. */
#include "cr-kernels.h"
