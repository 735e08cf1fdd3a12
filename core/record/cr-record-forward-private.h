/* cr-record-forward-private.h — what the files that tell a forward op
 * share (cr-record-forward.c: names, numbers and the worked-out element;
 * cr-record-forward-words.c: what each op does, in words, by a table;
 * cr-record-forward-special.c: the ops told with their arguments). Not for
 * the card or the handout: they read cr-record-forward.h. */
#pragma once

#include "cr-record-forward.h"

G_BEGIN_DECLS

typedef enum {
  CR_FORWARD_OTHER,
  CR_FORWARD_BINARY,      /* elementwise with two operands: + - × / */
  CR_FORWARD_UNARY,       /* elementwise function of one tensor: relu, exp */
  CR_FORWARD_SUM,
  CR_FORWARD_MEAN,
  CR_FORWARD_MATMUL,      /* a 2-D @ 2-D */
} CrForwardKind;

/* One line of the table of what an op does. */
typedef struct {
  const char    *grad_fn; /* "MulBackward0"; a prefix when it ends in '*' */
  CrForwardKind  kind;
  const char    *glyph;   /* BINARY: how an element is computed, "×"; UNARY: the
                           * function's name, "relu" (cr_forward_apply_unary knows it) */
  const char    *form;    /* the Python form when the script's caption does not
                           * give it: {0} {1} {2} are the inputs, {n} the op's number */
  const char    *two;     /* what it did with two tensor inputs; {0} {1} {2} {n} */
  const char    *one;     /* ... with one tensor input (the other a Python number,
                           * {n}); NULL: as two */
} CrForwardWords;

/* Whether grad_fn matches a table's pattern (a prefix when it ends in '*'). */
gboolean              cr_forward_words_match    (const char              *pattern,
                                                 const char              *grad_fn);
/* The table's line for op, NULL when it has none. */
const CrForwardWords *cr_forward_words_for      (const CrRecordOp        *op);
/* (cr-record-forward-special.c) What op did in words when they depend on
 * its arguments, its inputs' shapes or its family (a pool's kernel, a norm's dims, a custom
 * Function, a backward op under create_graph): new string, NULL when the
 * table's line says it. labels: its inputs' names. */
char                 *cr_forward_words_special  (const CrRunRecord       *record,
                                                 const CrRecordOp        *op,
                                                 const GPtrArray         *labels);
/* A number as the window writes numbers: "0.5", "1e-05" (new string). */
char                 *cr_forward_number_string  (double                   v);
/* The Python number op took in place of a tensor (x * 0.5's 0.5, the
 * exponent of x ** 2), as the window writes numbers; NULL when the record
 * does not know it (new string). */
char                 *cr_forward_number_text    (const CrRecordOp        *op);
/* The same number itself in *value; FALSE when not known. */
gboolean              cr_forward_number         (const CrRecordOp        *op,
                                                 double                  *value);
/* f(x) for the UNARY glyph f; NAN when it is not known. */
double                cr_forward_apply_unary    (const char              *glyph,
                                                 double                   x);
/* What the text calls tensor (new string): the script's name, a name
 * made from the op that made it, a constant's values; else fallback. */
char                 *cr_forward_tensor_name    (const CrRunRecord       *record,
                                                 int                      tensor,
                                                 const char              *fallback);
/* labels without the absent optional tensors' (a convolution without
 * bias): a new array of borrowed strings. */
GPtrArray            *cr_forward_present_labels (const CrRecordOp        *op,
                                                 const GPtrArray         *labels);

G_END_DECLS
