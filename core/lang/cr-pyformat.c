/* cr-pyformat.c — being written. */
#include "cr-pyformat.h"
