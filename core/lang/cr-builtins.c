/* cr-builtins.c — being written. */
#include "cr-interp.h"
