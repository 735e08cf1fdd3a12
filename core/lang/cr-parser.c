/* cr-parser.c — being written. */
#include "cr-ast.h"
