/* cr-torch-tensor-methods.c — being written. */
#include "cr-torch.h"
