/* cr-binding.h — what the layer on top of the runtime supplies to it. The
 * runtime (values, calls, classes, the interpreter) names no torch function:
 * it calls these, which the torch binding defines (cr-torch-binding.c), as
 * CPython's core calls the modules of its inittab. A build of the runtime
 * with another binding would define another cr_binding.
 *
 * Every hook is required; refs and errors as cr-type-slots.h says. */
#pragma once

#include "cr-value.h"
#include "cr-ast.h"
#include "cr-type-slots.h"

G_BEGIN_DECLS

typedef struct {
  /* What a CR_VALUE_TENSOR does. */
  const CrTypeSlots *tensor_slots;
  /* The binding's own state in each interpreter (print options, the
   * random generator, the backward records): made with it, freed with it;
   * cr_interp_get_binding_state returns it. */
  gpointer  (*state_new)   (CrInterp *interp);
  void      (*state_free)  (gpointer state);
  /* Around each run on its thread: the thread's state as a fresh process
   * has it (grad mode, the default device), and back again. */
  void      (*run_begin)   (CrInterp *interp);
  void      (*run_end)     (CrInterp *interp);
  /* `import NAME` of a module the binding owns (cr_interp_import asks it
   * for names under owns_module's prefix): new ref, or NULL with error. */
  gboolean  (*owns_module) (const char *dotted_name);
  CrValue  *(*import)      (CrInterp *interp, const char *dotted_name, GError **error);
  /* The script statement that runs now (NULL: none), so that what it makes
   * (graph nodes) remembers its line. Called for every statement. */
  void      (*statement)   (const CrSpan *span);
  /* v, the value of expression node n, was just computed (only while
   * CrInterp.labels_enabled): names for the graph's nodes. */
  void      (*note_value)  (CrInterp *interp, CrValue *v, const CrAstNode *n);
  /* `name = v` in the script's own code, v a value with slots. */
  void      (*bind_name)   (CrInterp *interp, CrValue *v, const char *name);
  /* An instance's __call__ is about to run (only while the run is
   * recorded: CrInterpOptions.record_backward): a token (NULL: nothing to
   * note) that call_end gets when the call returned or raised. The run
   * record's module calls (model(x), self.fc1(x)). */
  gpointer  (*call_begin)  (CrInterp *interp, CrValue *instance);
  void      (*call_end)    (CrInterp *interp, gpointer token);
  /* An except clause caught error, raised at span (the script's line), only
   * while the run is recorded: the run record keeps every error a run
   * raised, also those the script handled. */
  void      (*error_handled) (CrInterp *interp, const GError *error, const CrSpan *span);
  /* Expression n of the script's code (not the prelude's), or its
   * augmented assignment (w -= ...), raised error, the first to in its
   * frame, only while CrInterp.labels_enabled and not by a raise
   * statement: the run record's errors name the tensors n was given. */
  void      (*expr_failed)   (CrInterp *interp, const CrAstNode *n, const GError *error);
  /* A native function that the prelude's code called raised error, only
   * while CrInterp.labels_enabled: what it was given (bound_self may be
   * NULL), so the run record's errors can name the tensors of the op that
   * failed inside library code (nn.Linear's addmm). */
  void      (*native_failed) (CrInterp *interp, CrValue *bound_self, CrValue *const *args,
                              guint n_args, const CrKwarg *kwargs, guint n_kwargs,
                              const GError *error);
  /* A native function returned: FALSE with an error the binding finds only
   * once the call is over (an op saved a tensor it may not), which it then
   * forgets; error NULL when the call raised already (only forgets). */
  gboolean  (*native_returned) (CrInterp *interp, GError **error);
  /* An instance's attribute name was read (stored NULL) or set to stored,
   * only while the run is coached (CrInterpOptions.coach): the mistakes
   * coach watches a hand-written backward's .grad. */
  void      (*instance_attr) (CrInterp *interp, CrValue *instance, const char *name,
                              CrValue *stored);
  /* print() wrote text to the script's stdout (NULL: nothing to note): the
   * run record's printed numbers (a training loop's loss, accuracy). */
  void      (*printed)       (CrInterp *interp, const char *text);
} CrBinding;

extern const CrBinding cr_binding;

/* What the runtime offers its binding besides cr-interp.h: the module
 * imported under dotted_name (borrowed), NULL when not imported yet. */
CrValue  *cr_interp_loaded_module (CrInterp *interp, const char *dotted_name);
/* The binding's state in interp (state_new's). */
gpointer  cr_interp_get_binding_state (CrInterp *interp);

/* The slots of a value kind the runtime holds as a handle, or NULL. */
static inline const CrTypeSlots *
cr_value_slots (CrValue *v)
{
  return v->kind == CR_VALUE_TENSOR ? cr_binding.tensor_slots : NULL;
}

G_END_DECLS
