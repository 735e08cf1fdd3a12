/* cr-examples.h — the example scripts in data/examples: each one's file,
 * title and one-line purpose (its first comment lines). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *path;      /* absolute */
  char *title;     /* "The toy network" */
  char *purpose;   /* "five leaf tensors, one loss, one backward pass" */
} CrExample;

/* Where the examples are: the installed ones, else the source tree's. */
const char *cr_examples_dir  (void);
/* The examples sorted by file name (new array of CrExample*, free-func set). */
GPtrArray  *cr_examples_list (void);

G_END_DECLS
