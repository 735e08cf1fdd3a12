/* cr-args.c — being written. */
#include "cr-interp.h"
