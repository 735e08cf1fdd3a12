/* cr-record-forward.h — the forward pass of a run record told op by op, as
 * micrograd's lecture tells it: what each op computed from its inputs, with
 * the script's names and the record's numbers,
 *
 *   c = a * b = 2 × -3 = -6                         (scalars)
 *   b = w1 * a: multiplies w1 by a, element by element (3×3)
 *   b = [[0.5, -2, -1.5], [1, 0.5, -0.25], [-1.5, 3, -4]]
 *   b[0,0] = w1[0,0] × a[0,0] = 1 × 0.5 = 0.5       (one element worked out)
 *
 * The window's forward steps, `chainrule run --trace-forward` and the
 * handouts all say the same sentences from here. Plain data in, plain
 * strings out (no screen, no engine). */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* The ops that led to backward call `backward` (index in record->backwards):
 * every op its roots were computed from, followed back through op inputs
 * (not through detached or no_grad tensors), in the order they ran. -1 (or
 * a call out of range): every op of the record. New array of int. */
GArray *cr_record_forward_ops (const CrRunRecord *record,
                               int                backward);

/* One forward op in words. Every string is new (owned by the struct);
 * NULL where there is nothing to say. */
typedef struct {
  char *expression;  /* what the op computed, with the script's names:
                      * "c = a * b", "(w3 * b) + (w4 * c)", "L = (10 - d).sum()" */
  char *sentence;    /* what it did, in words: "multiplies w1 by a, element by element
                      * (3×3)", "sums the 9 elements of (10 - d) into one number" */
  char *equation;    /* its result with numbers: "c = a * b = 2 × -3 = -6" (scalars,
                      * the inputs' values put in), "b = [[0.5, -2], [1, 0.5]]",
                      * "h = 64×10: [0.1, -0.3, 0.5, …] in [-2.1, 3.4]" */
  char *example;     /* one element worked out for a tensor result, or NULL:
                      * "b[0,0] = w1[0,0] × a[0,0] = 1 × 0.5 = 0.5",
                      * "y[0,0] = x[0,:] · w[:,0] = 1×2 + 3×4 = 14" */
  char *result;      /* the result's label, "c"; "(w3 * b)" for an unnamed one */
  gboolean generic;  /* the sentence is the fallback for an op no words describe:
                      * "computes native_foo of x" */
} CrForwardText;

/* Op `op` of record in words (NULL when out of range). */
CrForwardText *cr_forward_text_new  (const CrRunRecord *record,
                                     int                op);
void           cr_forward_text_free (CrForwardText     *self);   /* NULL-safe */

/* The trace of ops (indices in record->ops, as cr_record_forward_ops()
 * gives them), each as
 *
 *   op 3 of 7  MulBackward0  (b = w1 * a, line 13)
 *     b = w1 * a: multiplies w1 by a, element by element (3×3)
 *     b = [[...]]
 *     b[0,0] = w1[0,0] × a[0,0] = 1 × 0.5 = 0.5
 *
 * under `heading` (a line of its own, NULL: none). New string. */
char          *cr_record_trace_forward (const CrRunRecord *record,
                                        const GArray      *ops,
                                        const char        *heading);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrForwardText, cr_forward_text_free)

G_END_DECLS
