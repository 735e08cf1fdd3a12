/* cr-torch-function.c — being written. */
#include "cr-torch.h"
