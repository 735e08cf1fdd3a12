/* cr-torch-forward-trace.h — `chainrule run --trace-forward`: the forward
 * ops of the run told one by one from the run record (the text is
 * cr-record-forward.c's). Each backward call first prints the ops that led
 * to it and were not printed before; the run's end prints the ops no
 * backward call used. Nothing here runs unless the option is on. */
#pragma once

#include "cr-interp.h"

G_BEGIN_DECLS

/* After backward call `backward` (index in the run record) was recorded. */
void cr_forward_trace_backward (CrInterp *self,
                                int       backward);
/* At the run's end, once the record is whole. */
void cr_forward_trace_rest     (CrInterp *self);
/* The run's start: nothing printed yet. */
void cr_forward_trace_reset    (CrInterp *self);

G_END_DECLS
