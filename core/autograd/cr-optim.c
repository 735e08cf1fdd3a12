/* cr-optim.c — being written. */
#include "cr-node.h"
