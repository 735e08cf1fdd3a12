/* cr-cpu-matmul.c — being written. */
#include "cr-kernels.h"
