/* cr-run-recorder-names.h — what the run recorder keeps of a tensor's name
 * and provenance until the tensor enters the record (cr-run-recorder-names.c
 * notes them, cr_run_recorder_tensor reads them). Private to the run
 * recorder's files. */
#pragma once

#include "cr-run-recorder-private.h"

G_BEGIN_DECLS

/* How a tensor without history was made, noted when the script made it and
 * used when (if) it enters the record. */
typedef struct {
  CrRecordTensorOrigin origin;   /* NO_GRAD or DETACHED */
  int                  source;   /* record id, -1: unknown */
  int                  region;   /* NO_GRAD: the region it was made in, -1 */
} CrTensorProvenance;

/* The first binding of a tensor that requires no grad and was made from
 * nothing that does (data, targets): kept until an op uses the tensor, so
 * that tensors the graph never meets stay out of the record. */
typedef struct {
  char       *name;
  CrLoopPath  loops;
  CrSpan      span;
} CrTensorBinding;

void cr_tensor_binding_free (gpointer data);   /* a CrTensorBinding */

G_END_DECLS
