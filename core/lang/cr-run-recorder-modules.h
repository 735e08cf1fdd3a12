/* cr-run-recorder-modules.h — module code in the run record: every call of
 * an nn.Module (and of a user class's __call__ that is no module, as a
 * micrograd-style Neuron), with its path from the outermost object called
 * ("fc1", "layers.0"), and every parameter's and buffer's path
 * ("fc1.weight"). Private to core/lang; the torch binding calls it.
 *
 * Which call an op ran in: a call made the graph nodes numbered from the
 * thread's sequence counter at its start to the counter at its end
 * (cr_autograd_peek_sequence_nr), so a node's sequence number finds the
 * innermost call around it, long after the call returned. */
#pragma once

#include "cr-interp.h"
#include "cr-value.h"
#include "cr-node.h"

G_BEGIN_DECLS

typedef struct _CrModuleRecorder CrModuleRecorder;

/* An instance's __call__ starts (the runtime's CrBinding.call_begin): a
 * token for cr_run_recorder_call_end, NULL when nothing is recorded (no
 * record, or not a class whose calls are recorded). */
gpointer cr_run_recorder_call_begin (CrInterp        *self,
                                     CrValue         *instance);
void     cr_run_recorder_call_end   (CrInterp        *self,
                                     gpointer         token);
/* The innermost module call node was made in (index in
 * record->module_calls), -1: none. */
int      cr_run_recorder_module_call_of (CrInterp     *self,
                                         const CrNode *node);
/* The module path of t ("fc1.weight") when it is a parameter or buffer of
 * a module called so far (borrowed), else NULL. */
const char *cr_run_recorder_module_path (CrInterp      *self,
                                         const CrTensor *t);

void     cr_module_recorder_free    (CrModuleRecorder *recorder);   /* NULL-safe */

G_END_DECLS
