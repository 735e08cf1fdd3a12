/* cr-record-text.h — the run record's items in words, the same everywhere
 * they are shown: the window's step card and inspector, the badges on the
 * graph, `--trace-backward`. Plain strings from plain data (no screen). */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* "3", "2×3", "scalar" (new string). */
char *cr_record_shape_text       (const gint64            *shape,
                                  int                      ndim);
/* "summed over dim 0 to b's shape 3", "summed over dims 0 and 1 to w's
 * shape 1×1", "summed over every dim to the scalar s" (a 0-d input);
 * input_label NULL: "... to the input's shape 3", "... to a scalar" (new
 * string). */
char *cr_record_reduction_text   (const CrRecordReduction *reduction,
                                  const char              *input_label);
/* A hook as one line head: "hook double_it (line 4)", "retain_grad: y.grad",
 * "module hook fn (line 9)". tensor_label names the tensor for retain_grad
 * (NULL: "t") (new string). */
char *cr_record_hook_title       (const CrRecordHookCall  *hook,
                                  const char              *tensor_label);
/* The same, its line named as record's reader counts it ("cell 2, line 4"
 * in a notebook); record NULL: "line 4". */
char *cr_run_record_hook_title   (const CrRunRecord       *record,
                                  const CrRecordHookCall  *hook,
                                  const char              *tensor_label);
/* A value short enough for one line: "-4.5", "[2, 4, 6]", "[[1, 2], [3, 4]]",
 * and for more than max_values numbers the shape and range, "3×3 in
 * [-4.5, 2]"; "None" for NULL. %.4g numbers (new string). */
char *cr_record_value_brief      (const CrTensorSnapshot  *value,
                                  int                      max_values);
/* The backward-call picker's row for call `backward`: "#3 · loss.backward()
 * · line 23 · iteration 3" (its 1-based number, then the call's title, with
 * the iteration added when the title lacks it) (new string). */
char *cr_record_backward_picker_title (const CrRunRecord  *record,
                                       guint               backward);
/* The label of tensor `tensor` ("y₃", "fc1.weight"), borrowed; fallback
 * when it has none or the index is out of range. */
const char *cr_record_tensor_label (const CrRunRecord     *record,
                                    int                    tensor,
                                    const char            *fallback);
/* Where in the script's loops an item was made, loop_path's first
 * loop_depth iterations (outermost first): "iteration 3", "iteration 2,3"
 * (iteration 3 of the inner loop in iteration 2 of the outer); NULL for
 * loop_depth 0 (new string). */
char *cr_record_iteration_text   (const guint             *loop_path,
                                  guint                    loop_depth);
/* Op `op`'s caption ("b = w1*a") with the names its loop iterations tell
 * apart labelled as the record labels them: in a loop, the name bound
 * carries the op's iterations and an input named by the script its label,
 * "y₃ = y₂ * w"; the caption as is outside loops; NULL when the op has
 * no caption (new string). */
char *cr_record_op_caption       (const CrRunRecord       *record,
                                  int                      op);
/* The first error of backward call `backward` (-1: any call), or NULL. */
const CrRecordError *cr_record_backward_error (const CrRunRecord *record,
                                               int                backward);

G_END_DECLS
