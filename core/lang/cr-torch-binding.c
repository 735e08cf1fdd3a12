/* cr-torch-binding.c — the torch layer as the runtime's binding
 * (cr-binding.h): torch.Tensor's slots, the torch modules, the state the
 * layer keeps in each interpreter, and what each run and statement mean
 * to autograd (grad mode, the default device, the span graph nodes get). */
#include "cr-torch-private.h"
#include "cr-binding.h"
#include "cr-node.h"
#include "cr-run-recorder-training.h"
#include "cr-run-recorder-coach.h"
#include "cr-cuda.h"
#include "cr-grad-mode.h"
#include "cr-torch-grad-probe.h"
#include "cr-interp-private.h"
#include "cr-random.h"
#include "cr-run-recorder.h"
#include "cr-torch-forward-trace.h"
#include "cr-run-recorder-modules.h"
#include "cr-torch-state.h"

#include <string.h>

/* The seed each run starts from: default_rng_seed_val of PyTorch's sources.
 * (PyTorch seeds a fresh process from /dev/urandom; a fixed seed shows the
 * same numbers in every run of a script, in the window and headless.) */
#define DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)

static gpointer
state_new (CrInterp *interp)
{
  (void) interp;
  CrTorchState *state = g_new0 (CrTorchState, 1);
  cr_print_options_init_default (&state->print_options);
  return state;
}

static void
state_free (gpointer data)
{
  CrTorchState *state = data;
  cr_run_recorder_free (state->recorder);
  cr_module_recorder_free (state->modules);
  cr_backward_labels_free (state);
  cr_generator_free (state->generator);
  if (state->forward_traced)
    g_byte_array_unref (state->forward_traced);
  g_free (state);
}

CrPrintOptions *
cr_interp_get_print_options (CrInterp *self)
{
  return &cr_torch_state (self)->print_options;
}

struct _CrGenerator *
cr_interp_get_generator (CrInterp *self)
{
  CrTorchState *state = cr_torch_state (self);
  if (!state->generator)
    state->generator = cr_generator_new (DEFAULT_SEED);
  return state->generator;
}

/* Every run starts from a fresh thread's state, whatever the last script on
 * this thread left (the window's worker runs one script after another):
 * grad mode on (torch.set_grad_enabled(False) is not undone by the script),
 * and factory functions (torch.zeros, ...) putting new tensors on the run's
 * device (`chainrule run --device cuda`). Print options, the generator and
 * the warning registry belong to the CrInterp, made fresh for each run. */
static void
forget_names (CrInterp *interp)
{
  CrTorchState *state = cr_torch_state (interp);
  memset (state->name_keys, 0, sizeof state->name_keys);
}

static void
run_begin (CrInterp *interp)
{
  forget_names (interp);
  cr_grad_mode_reset_thread ();
  cr_node_take_save_error (NULL);
  cr_device_set_default (cr_interp_get_default_device (interp));
  cr_run_recorder_run_begin (interp);
  cr_forward_trace_reset (interp);
  CrGradProbe *probe = cr_grad_probe_of (interp);
  if (G_UNLIKELY (probe))
    cr_grad_probe_run_begin (probe);
}

/* And the thread goes back as it was found. */
static void
run_end (CrInterp *interp)
{
  CrGradProbe *probe = cr_grad_probe_of (interp);
  if (G_UNLIKELY (probe))
    cr_grad_probe_run_end (probe);
  cr_run_recorder_run_end (interp);
  cr_forward_trace_rest (interp);
  forget_names (interp);
  cr_grad_mode_reset_thread ();
}

static gboolean
owns_module (const char *dotted)
{
  return strcmp (dotted, "torch") == 0 || g_str_has_prefix (dotted, "torch.");
}

static void
statement (const CrSpan *span)
{
  cr_autograd_set_current_span (span);
  cr_grad_probe_statement ();
}

static void
note_value (CrInterp        *interp,
            CrValue         *v,
            const CrAstNode *n)
{
  if (v->kind != CR_VALUE_TENSOR)
    return;
  /* A name's value is no new expression for the old labels. */
  if (n->kind != CR_AST_NAME)
    cr_backward_labels_note_expr (interp, v->u.tensor, n);
  cr_run_recorder_note_value (interp, v->u.tensor, n);
}

/* name interned, as tensor names are (cr_tensor_set_name): a loop binds
 * the same few names again and again, and g_intern_string takes a global
 * lock and a hash, so the interned pointer of each name the script's code
 * holds is remembered for the run. */
static const char *
interned_name (CrInterp   *interp,
               const char *name)
{
  CrTorchState *state = interp->binding_state;
  /* Fibonacci hashing of the address: its top 7 bits pick a set. */
  guint set = (guint) (((guint64) (guintptr) name * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 57)
              & ~1u;
  if (G_LIKELY (state->name_keys[set] == name))
    return state->name_interned[set];
  if (state->name_keys[set + 1] == name)
    return state->name_interned[set + 1];
  /* The newer of the set's two moves to its second place. */
  state->name_keys[set + 1] = state->name_keys[set];
  state->name_interned[set + 1] = state->name_interned[set];
  state->name_keys[set] = name;
  state->name_interned[set] = g_intern_string (name);
  return state->name_interned[set];
}

/* `x = ...`: the tensor takes the first name it is bound to (the graph's
 * and the trace's name for it). */
static void
bind_name (CrInterp   *interp,
           CrValue    *v,
           const char *name)
{
  if (v->kind != CR_VALUE_TENSOR)
    return;
  if (v->u.tensor->name == NULL)
    v->u.tensor->name = interned_name (interp, name);
  if (G_UNLIKELY (interp->labels_enabled))
    {
      cr_backward_labels_note_binding (interp, v->u.tensor, name);
      cr_run_recorder_note_binding (interp, v->u.tensor, name);
    }
}

static gboolean
native_returned (CrInterp  *interp,
                 GError   **error)
{
  return cr_node_take_save_error (error);
}

const CrBinding cr_binding = {
  .tensor_slots = &cr_torch_tensor_slots,
  .state_new = state_new,
  .state_free = state_free,
  .run_begin = run_begin,
  .run_end = run_end,
  .owns_module = owns_module,
  .import = cr_torch_import,
  .statement = statement,
  .note_value = note_value,
  .bind_name = bind_name,
  .call_begin = cr_run_recorder_call_begin,
  .call_end = cr_run_recorder_call_end,
  .error_handled = cr_run_recorder_error_handled,
  .expr_failed = cr_run_recorder_expr_failed,
  .native_failed = cr_run_recorder_native_failed,
  .native_returned = native_returned,
  .printed = cr_training_watch_printed,
  .instance_attr = cr_coach_watch_attr,
};
