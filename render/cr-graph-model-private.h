/* cr-graph-model-private.h — shared by the files that build graph models. */
#pragma once

#include "cr-graph-model.h"

G_BEGIN_DECLS

/* The code of a one-line span, from the script text (new string; NULL when
 * unknown). */
char        *cr_graph_span_text              (const char         *source,
                                              const CrSpan       *span);
/* text cut to fit a node, with an ellipsis (takes text, returns a new string). */
char        *cr_graph_shorten                (char               *text);
/* Sets every node's key from its kind and names: stable across runs of an
 * edited script, unique within the model. */
void         cr_graph_model_assign_keys      (CrGraphModel       *self);

G_END_DECLS
