/* cr-ast.c — being written. */
#include "cr-ast.h"
