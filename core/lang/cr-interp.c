/* cr-interp.c — being written. */
#include "cr-interp.h"
