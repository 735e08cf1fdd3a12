/* cr-tensor-format.c — being written. */
#include "cr-tensor-format.h"
