/* cr-lexer.c — being written. */
#include "cr-ast.h"
