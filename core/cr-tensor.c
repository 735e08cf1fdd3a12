/* cr-tensor.c — being written. */
#include "cr-tensor.h"
