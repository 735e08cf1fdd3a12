/* cr-cpu-elementwise.c — being written. */
#include "cr-kernels.h"
