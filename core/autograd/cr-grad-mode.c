/* cr-grad-mode.c — being written. */
#include "cr-node.h"
