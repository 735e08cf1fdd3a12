/* cr-torch-state.h — what the torch binding keeps in each interpreter
 * (CrBinding.state_new): the print options torch.set_printoptions
 * changes, the generator behind torch.manual_seed, the labels of graph
 * nodes (cr-torch-backward-record.c) and the run recorders. */
#pragma once

#include "cr-interp.h"
#include "cr-tensor-format.h"

G_BEGIN_DECLS

typedef struct _CrBackwardRun CrBackwardRun;

typedef struct {
  CrPrintOptions       print_options;
  struct _CrGenerator *generator;     /* owned, made when first asked for */
  GHashTable          *node_labels;   /* CrNode* -> label (owned), NULL until one */
  guint                n_backward_calls;
  struct _CrRunRecorder *recorder;    /* owned: the run record being filled
                                       * (cr-run-recorder.c), or NULL */
  /* The names the script binds tensors to: the AST's string (stable
   * during a run) -> its g_intern_string, in a table of two-way sets.
   * Emptied around each run. */
  const char          *name_keys[128];
  const char          *name_interned[128];
  struct _CrModuleRecorder *modules;  /* owned: the run record's module calls
                                       * (cr-run-recorder-modules.c), or NULL */
  struct _CrGradProbe *grad_probe;    /* borrowed: `chainrule check`'s probe of this
                                       * run (cr-torch-grad-probe.h), NULL nearly always */
  GByteArray          *forward_traced;/* --trace-forward: by record op, 1 once printed
                                       * (cr-torch-forward-trace.c); NULL until then */
} CrTorchState;

static inline CrTorchState *
cr_torch_state (CrInterp *interp)
{
  extern gpointer cr_interp_get_binding_state (CrInterp *interp);
  return cr_interp_get_binding_state (interp);
}

/* cr-backward-record.c */
void      cr_backward_labels_note_binding (CrInterp        *self,
                                           CrTensor        *tensor,
                                           const char      *name);
void      cr_backward_labels_note_expr    (CrInterp        *self,
                                           CrTensor        *tensor,
                                           const CrAstNode *expr);
/* Frees the labels of graph nodes. */
void      cr_backward_labels_free         (CrTorchState    *state);

G_END_DECLS
