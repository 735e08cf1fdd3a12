/* cr-torch-module.c — being written. */
#include "cr-torch.h"
