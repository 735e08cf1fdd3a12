/* cr-dtype.c — being written. */
#include "cr-dtype.h"
