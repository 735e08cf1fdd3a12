/* cr-storage.c — being written. */
#include "cr-storage.h"
