/* cr-torch-tensor-ops.c — being written. */
#include "cr-torch.h"
