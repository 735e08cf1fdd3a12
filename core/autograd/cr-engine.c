/* cr-engine.c — being written. */
#include "cr-node.h"
