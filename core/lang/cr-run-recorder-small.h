/* cr-run-recorder-small.h — the small tensors ops made or read, kept until
 * the run recorder records the ops. Private to core/lang; the run recorder
 * owns one.
 *
 * The recorder walks a graph back from what the script saw (the value of
 * an expression), so a result made inside a native (nn.Linear's addmm,
 * F.cross_entropy's log_softmax) or by a double backward is gone by then:
 * only its node is left; and an input that needs no gradient has no edge
 * there to find it by (F.l1_loss's target, which its subtraction read).
 * The watch hears of each node and result as autograd makes them
 * (cr-graph-observer.h) and keeps the small ones, up to the scalar view's
 * limit, in a ring of the last few thousand; the recorder takes them from
 * there when it records the op. */
#pragma once

#include "cr-tensor.h"

G_BEGIN_DECLS

/* A tensor of at most this many elements is kept (the scalar graph of one
 * op opens ops whose inputs and output hold up to 64). */
#define CR_SMALL_TENSORS_MAX_NUMEL 64

/* One end of a node: its sequence number (unique in a run) and an output's
 * or an input's number; the recorder's key for a result too. */
typedef struct {
  guint64 sequence_nr;
  guint32 nr;
} CrNodeEnd;

guint           cr_node_end_hash             (gconstpointer   key);
gboolean        cr_node_end_equal            (gconstpointer   a,
                                              gconstpointer   b);

typedef struct _CrSmallTensors CrSmallTensors;

CrSmallTensors *cr_small_tensors_new         (void);
void            cr_small_tensors_free        (CrSmallTensors *self);   /* NULL-safe */

/* out (borrowed) became output output_nr of the node numbered sequence_nr:
 * when it is small, an alias of it is kept (no grad_fn, so its graph does
 * not stay alive), or a copy of its values when it views a big storage. */
void            cr_small_tensors_note_output (CrSmallTensors *self,
                                              CrTensor       *out,
                                              guint64         sequence_nr,
                                              guint32         output_nr);
/* The values output output_nr of node sequence_nr was made with: an alias
 * or copy (a new ref, which the watch lets go of), or NULL when none was
 * kept, it was pushed out since, or it was changed in place since it got
 * its history (its version moved: those are no longer the op's values). */
CrTensor       *cr_small_tensors_take_output (CrSmallTensors *self,
                                              guint64         sequence_nr,
                                              guint32         output_nr);

/* The node numbered sequence_nr was made over inputs: each small one that
 * needs no gradient (no edge leads to it) and is no wrapped number is kept
 * (a reference to the tensor itself: it has no graph to keep alive, and
 * the record knows it by its identity). */
void            cr_small_tensors_note_inputs (CrSmallTensors  *self,
                                              guint64          sequence_nr,
                                              CrTensor *const *inputs,
                                              guint            n_inputs);
/* Input input_nr of node sequence_nr (a new ref, which the watch lets go
 * of), or NULL when none was kept, it was pushed out since, or it was
 * changed in place since the node was made. */
CrTensor       *cr_small_tensors_take_input  (CrSmallTensors *self,
                                              guint64         sequence_nr,
                                              guint32         input_nr);

/* Lets go of every tensor kept (the run ended). */
void            cr_small_tensors_clear       (CrSmallTensors *self);

G_END_DECLS
