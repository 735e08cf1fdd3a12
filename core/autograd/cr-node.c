/* cr-node.c — being written. */
#include "cr-node.h"
