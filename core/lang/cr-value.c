/* cr-value.c — being written. */
#include "cr-interp.h"
