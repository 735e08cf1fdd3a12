/* cr-backward-record.c — being written. */
#include "cr-interp.h"
