/* cr-torch-function.c — autograd as a script sees it: grad_fn objects
 * (repr, name(), next_functions), tensor.backward() and
 * torch.autograd.grad/backward through the one engine, tensor hooks and
 * their handles, and torch.autograd.Function with its ctx. */
#include "cr-torch-private.h"
#include "cr-engine.h"
#include "cr-grad-mode.h"
#include "cr-torch-grad-probe.h"

#include <string.h>

#include "cr-native.h"
#include "cr-interp-private.h"
#include "cr-run-recorder-backward.h"

#define PARSE(fname, spec) \
  CrTorchArgs a; \
  if (!cr_torch_args_parse (&a, fname, spec, self, args, n_args, kwargs, n_kwargs, error)) \
    return NULL

/* ---- grad_fn objects -------------------------------------------------- */

static void
node_destroy (gpointer data)
{
  cr_node_unref (data);
}

static gboolean
node_is_custom (const CrNode *node)
{
  return node->op != NULL && node->op->id == CR_OP_CUSTOM;
}

static char *
node_repr (CrValue *self)
{
  CrNode *node = self->u.object.data;

  /* A Function's node is a Python class of torch.autograd.function. */
  return g_strdup_printf ("<%s%s object at %p>",
                          node_is_custom (node) ? "torch.autograd.function." : "",
                          cr_node_name (node), (gpointer) node);
}

static gboolean
node_equal (CrValue *a,
            CrValue *b)
{
  return a->kind == CR_VALUE_OBJECT && b->kind == CR_VALUE_OBJECT
         && a->u.object.type == b->u.object.type && a->u.object.data == b->u.object.data;
}

/* grad_fn.name(): the C++ class's name, so the nodes PyTorch writes by hand
 * (not generated from derivatives.yaml) carry their namespace. */
NATIVE (native_node_name)
{
  CrNode *node;
  PARSE ("name", "self");
  node = self->u.object.data;
  if (node->op != NULL && node->custom_name == NULL
      && (strcmp (node->op->grad_fn_name, "AccumulateGrad") == 0
          || strcmp (node->op->grad_fn_name, "CopySlices") == 0
          || strcmp (node->op->grad_fn_name, "NotImplemented") == 0))
    {
      g_autofree char *qualified = g_strconcat ("torch::autograd::", cr_node_name (node), NULL);
      return cr_value_new_str (qualified);
    }
  return cr_value_new_str (cr_node_name (node));
}

static CrValue *
next_functions (CrNode *node)
{
  g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);

  for (guint i = 0; i < node->n_inputs; i++)
    {
      CrValue *items[2];
      items[0] = cr_torch_node_value (node->next[i].node);
      items[1] = cr_value_new_int (node->next[i].input_nr);
      g_ptr_array_add (pairs, cr_value_new_tuple (items, 2));
      cr_value_unref (items[0]);
      cr_value_unref (items[1]);
    }
  return cr_value_new_tuple ((CrValue *const *) pairs->pdata, pairs->len);
}

static CrValue *
node_get_attr (CrInterp    *interp,
               CrValue     *self,
               const char  *name,
               GError     **error)
{
  CrNode *node = self->u.object.data;

  if (strcmp (name, "next_functions") == 0)
    return next_functions (node);
  if (strcmp (name, "name") == 0)
    return cr_value_new_native ("name", native_node_name, self, NULL);
  if (strcmp (name, "variable") == 0 && node->variable != NULL)
    return cr_value_new_tensor (node->variable);
  if (strcmp (name, "metadata") == 0)
    return cr_value_new_dict ();
  {
    gboolean found;
    CrValue *saved = cr_torch_node_saved_attr (node, name, &found, error);
    if (found)
      return saved;
  }
  return NULL;
}

/* type(y.grad_fn).__name__: the node's class in PyTorch, "MulBackward0". */
static const char *
node_type_name (CrValue *self)
{
  return cr_node_name (self->u.object.data);
}

/* dir(y.grad_fn): what PyTorch 1.13 lists for every node, then the node's
 * own _saved_ attributes. */
static void
node_dir (CrValue   *self,
          GPtrArray *names)
{
  static const char *const node_names[] = {
    "__call__", "__class__", "__delattr__", "__dir__", "__doc__", "__eq__", "__format__",
    "__ge__", "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__",
    "__init_subclass__", "__le__", "__lt__", "__ne__", "__new__", "__reduce__",
    "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__", "__subclasshook__",
    "_register_hook_dict", "metadata", "name", "next_functions", "register_hook",
    "register_prehook", "requires_grad",
  };
  CrNode *node = self->u.object.data;

  for (guint i = 0; i < G_N_ELEMENTS (node_names); i++)
    g_ptr_array_add (names, (gpointer) node_names[i]);
  if (node->variable != NULL)
    g_ptr_array_add (names, (gpointer) "variable");
  cr_torch_node_saved_attr_names (node, names);
}

static const CrObjectType node_type = {
  .name = "grad_fn",
  .dir = node_dir,
  .type_name = node_type_name,
  .destroy = node_destroy,
  .get_attr = node_get_attr,
  .repr = node_repr,
  .equal = node_equal,
};

CrValue *
cr_torch_node_value (CrNode *node)
{
  if (node == NULL)
    return cr_value_none ();
  return cr_value_new_object (&node_type, cr_node_ref (node));
}

/* ---- backward --------------------------------------------------------- */

/* Tensors from a tensor or a sequence of tensors (torch's _tensor_or_tensors
 * arguments); borrowed pointers into the values. */
static gboolean
tensor_list (const char *fname,
             const char *pname,
             CrValue    *v,
             GPtrArray  *out,
             gboolean    allow_none,
             GError    **error)
{
  if (v->kind == CR_VALUE_TENSOR)
    {
      g_ptr_array_add (out, v->u.tensor);
      return TRUE;
    }
  if (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE)
    {
      for (guint i = 0; i < cr_seq_len (v); i++)
        {
          CrValue *item = cr_seq_get (v, i);
          if (item->kind == CR_VALUE_TENSOR)
            g_ptr_array_add (out, item->u.tensor);
          else if (allow_none && item->kind == CR_VALUE_NONE)
            g_ptr_array_add (out, NULL);
          else
            {
              g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "%s(): argument '%s' must be tuple of Tensors, but found element "
                           "of type %s at pos %u", fname, pname, cr_torch_type_name (item),
                           i + 1);
              return FALSE;
            }
        }
      return TRUE;
    }
  if (allow_none && v->kind == CR_VALUE_NONE)
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "%s(): argument '%s' must be tuple of Tensors, not %s", fname, pname,
               cr_torch_type_name (v));
  return FALSE;
}

/* backward(inputs=...): a tensor or a sequence of them, not empty; a
 * non-leaf retains its grad, which is how its .grad gets written (PyTorch's
 * run_backward with accumulate_grad calls retain_grad on every input, which
 * also refuses one that does not require grad). Borrowed pointers. */
static gboolean
backward_inputs (CrValue    *v,
                 GPtrArray  *out,
                 GError    **error)
{
  if ((v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE) && cr_seq_len (v) == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "'inputs' argument to backward() cannot be empty.");
      return FALSE;
    }
  if (!tensor_list ("backward", "inputs", v, out, FALSE, error))
    return FALSE;
  for (guint i = 0; i < out->len; i++)
    if (!cr_tensor_retain_grad (g_ptr_array_index (out, i), error))
      return FALSE;
  return TRUE;
}

/* Points options at the inputs (kept alive by the caller's array). */
static gboolean
use_backward_inputs (CrBackwardOptions  *options,
                     CrValue            *v,
                     GPtrArray          *inputs,
                     GError            **error)
{
  if (!backward_inputs (v, inputs, error))
    return FALSE;
  options->inputs = (CrTensor *const *) inputs->pdata;
  options->n_inputs = inputs->len;
  options->accumulate_inputs = TRUE;
  options->allow_unused = TRUE;
  return TRUE;
}

/* retain_graph=None means "as create_graph". */
static gboolean
retain_arg (CrTorchArgs *a,
            guint        i,
            gboolean     create_graph,
            gboolean    *out,
            GError     **error)
{
  if (!cr_torch_args_has (a, i))
    {
      *out = create_graph;
      return TRUE;
    }
  return cr_value_to_bool (a->values[i], out, error);
}

/* A leaf's AccumulateGrad holds the leaf, so after backward(create_graph=True)
 * or `x.grad = f(x)` the leaf's .grad, whose graph reaches that node, keeps the
 * leaf alive: the cycle PyTorch warns of. A script that does not reset .grad
 * to None (or stops with an error first) would leak it, so the run breaks it
 * at its end. */
static void
break_grad_cycles (gpointer data)
{
  GPtrArray *leaves = data;

  for (guint i = 0; i < leaves->len; i++)
    {
      CrTensor *leaf = g_ptr_array_index (leaves, i);
      g_clear_pointer (&leaf->grad, cr_tensor_unref);
    }
  g_ptr_array_unref (leaves);
}

/* The leaves whose AccumulateGrad the graph of roots reaches (new refs). */
static GPtrArray *
reachable_leaves (CrTensor *const *roots,
                  guint            n_roots)
{
  GPtrArray *leaves = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  for (guint i = 0; i < n_roots; i++)
    if (roots[i] && roots[i]->grad_fn)
      g_ptr_array_add (stack, roots[i]->grad_fn);
  while (stack->len > 0)
    {
      CrNode *node = g_ptr_array_steal_index_fast (stack, stack->len - 1);
      if (!g_hash_table_add (seen, node))
        continue;
      if (node->variable)
        g_ptr_array_add (leaves, cr_tensor_ref (node->variable));
      for (guint e = 0; e < node->n_inputs; e++)
        if (node->next[e].node)
          g_ptr_array_add (stack, node->next[e].node);
    }
  return leaves;
}

void
cr_torch_break_grad_cycles_at_end (CrInterp        *interp,
                                   CrTensor *const *roots,
                                   guint            n_roots)
{
  cr_interp_at_free (interp, break_grad_cycles, reachable_leaves (roots, n_roots));
}

static gboolean
run_backward (CrInterp        *interp,
              CrTensor *const *roots,
              CrTensor *const *grad_roots,
              guint            n_roots,
              CrBackwardOptions *options,
              CrTensor      ***out_grads,
              GError         **error)
{
  gpointer observer_data = NULL;
  gboolean ok;

  if (options->create_graph && (options->inputs == NULL || options->accumulate_inputs))
    cr_interp_warn (interp, "UserWarning",
                    "Using backward() with create_graph=True will create a reference cycle "
                    "between the parameter and its gradient which can cause a memory leak. We "
                    "recommend using autograd.grad when creating the graph to avoid this. If "
                    "you have to use this function, make sure to reset the .grad fields of "
                    "your parameters to None after use to break the cycle and avoid the leak. "
                    "(Triggered internally at  ./torch/csrc/autograd/engine.cpp:1059.)");
  if (options->create_graph && (options->inputs == NULL || options->accumulate_inputs))
    cr_torch_break_grad_cycles_at_end (interp, roots, n_roots);
  /* `chainrule check` reads the first backward call, and stops the run there. */
  CrGradProbe *probe = cr_grad_probe_of (interp);
  if (G_UNLIKELY (probe)
      && !cr_grad_probe_backward_begin (probe, roots, grad_roots, n_roots,
                                        options->inputs != NULL && !options->accumulate_inputs,
                                        error))
    return FALSE;
  options->observer = cr_interp_backward_begin (interp, roots, n_roots, &observer_data);
  options->observer_data = observer_data;
  cr_interp_backward_set_options (interp, observer_data, options);
  cr_interp_backward_set_root_grads (interp, observer_data, roots, grad_roots, n_roots);
  ok = cr_autograd_run (roots, grad_roots, n_roots, options, out_grads, error);
  if (!ok && error != NULL)
    cr_interp_backward_set_error (interp, observer_data, *error);
  cr_interp_backward_end (interp, observer_data, ok);
  if (G_UNLIKELY (probe) && ok && !cr_grad_probe_backward_end (probe, interp, error))
    return FALSE;
  return ok;
}

/* tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) */
CrValue *
cr_torch_native_backward (CrInterp       *interp,
                          CrValue        *self,
                          CrValue *const *args,
                          guint           n_args,
                          const CrKwarg  *kwargs,
                          guint           n_kwargs,
                          gpointer        data,
                          GError        **error)
{
  CrBackwardOptions options = { 0 };
  CrTensor *gradient = NULL;
  CrTensor *root;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  PARSE ("backward", "self | gradient retain_graph create_graph inputs");

  root = cr_torch_args_tensor (&a, 0, error);
  if (root == NULL)
    return NULL;
  if (cr_torch_args_has (&a, 1))
    {
      gradient = cr_torch_args_tensor (&a, 1, error);
      if (gradient == NULL)
        return NULL;
    }
  if (!cr_torch_args_bool (&a, 3, FALSE, &options.create_graph, error)
      || !retain_arg (&a, 2, options.create_graph, &options.retain_graph, error))
    return NULL;
  if (cr_torch_args_has (&a, 4) && !use_backward_inputs (&options, a.values[4], inputs, error))
    return NULL;
  if (!run_backward (interp, &root, &gradient, 1, &options, NULL, error))
    return NULL;
  return cr_value_none ();
}

/* torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None,
 * create_graph=False, grad_variables=None, inputs=None) */
CrValue *
cr_torch_native_autograd_backward (CrInterp       *interp,
                                   CrValue        *self,
                                   CrValue *const *args,
                                   guint           n_args,
                                   const CrKwarg  *kwargs,
                                   guint           n_kwargs,
                                   gpointer        data,
                                   GError        **error)
{
  CrBackwardOptions options = { 0 };
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  g_autoptr(GPtrArray) grads = g_ptr_array_new ();
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  PARSE ("backward",
         "tensors | grad_tensors retain_graph create_graph grad_variables inputs");

  if (!tensor_list ("backward", "tensors", a.values[0], roots, FALSE, error))
    return NULL;
  if (cr_torch_args_has (&a, 1)
      && !tensor_list ("backward", "grad_tensors", a.values[1], grads, TRUE, error))
    return NULL;
  if (grads->len == 0)
    for (guint i = 0; i < roots->len; i++)
      g_ptr_array_add (grads, NULL);
  if (grads->len != roots->len)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Mismatch in number of grad_tensors (%u) and tensors (%u)",
                   grads->len, roots->len);
      return NULL;
    }
  if (!cr_torch_args_bool (&a, 3, FALSE, &options.create_graph, error)
      || !retain_arg (&a, 2, options.create_graph, &options.retain_graph, error))
    return NULL;
  if (cr_torch_args_has (&a, 5) && !use_backward_inputs (&options, a.values[5], inputs, error))
    return NULL;
  if (!run_backward (interp, (CrTensor *const *) roots->pdata,
                     (CrTensor *const *) grads->pdata, roots->len, &options, NULL, error))
    return NULL;
  return cr_value_none ();
}

/* torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None,
 * create_graph=False, only_inputs=True, allow_unused=False) -> tuple */
CrValue *
cr_torch_native_grad (CrInterp       *interp,
                      CrValue        *self,
                      CrValue *const *args,
                      guint           n_args,
                      const CrKwarg  *kwargs,
                      guint           n_kwargs,
                      gpointer        data,
                      GError        **error)
{
  CrBackwardOptions options = { 0 };
  g_autoptr(GPtrArray) outputs = g_ptr_array_new ();
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr(GPtrArray) grads = g_ptr_array_new ();
  g_autoptr(GPtrArray) results = NULL;
  CrTensor **out_grads = NULL;
  PARSE ("grad", "outputs inputs | grad_outputs retain_graph create_graph only_inputs "
                 "allow_unused is_grads_batched");

  if (!tensor_list ("grad", "outputs", a.values[0], outputs, FALSE, error)
      || !tensor_list ("grad", "inputs", a.values[1], inputs, FALSE, error))
    return NULL;
  if (cr_torch_args_has (&a, 2)
      && !tensor_list ("grad", "grad_outputs", a.values[2], grads, TRUE, error))
    return NULL;
  if (grads->len == 0)
    for (guint i = 0; i < outputs->len; i++)
      g_ptr_array_add (grads, NULL);
  if (grads->len != outputs->len)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "grad requires one gradient per output: got %u outputs and %u "
                   "grad_outputs", outputs->len, grads->len);
      return NULL;
    }
  if (!cr_torch_args_bool (&a, 4, FALSE, &options.create_graph, error)
      || !retain_arg (&a, 3, options.create_graph, &options.retain_graph, error)
      || !cr_torch_args_bool (&a, 6, FALSE, &options.allow_unused, error))
    return NULL;

  options.inputs = (CrTensor *const *) inputs->pdata;
  options.n_inputs = inputs->len;
  /* No outputs: nothing reaches the inputs (gradcheck asks so of a function
   * without differentiable outputs). */
  if (outputs->len == 0 && inputs->len > 0 && !options.allow_unused)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "One of the differentiated Tensors appears to not have been used "
                           "in the graph. Set allow_unused=True if this is the desired "
                           "behavior.");
      return NULL;
    }
  if (outputs->len > 0
      && !run_backward (interp, (CrTensor *const *) outputs->pdata,
                        (CrTensor *const *) grads->pdata, outputs->len, &options, &out_grads,
                        error))
    return NULL;

  results = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  for (guint i = 0; i < inputs->len; i++)
    g_ptr_array_add (results, out_grads != NULL && out_grads[i] != NULL
                              ? cr_value_new_tensor_take (out_grads[i])
                              : cr_value_none ());
  g_free (out_grads);
  return cr_value_new_tuple ((CrValue *const *) results->pdata, results->len);
}

/* ---- hooks ------------------------------------------------------------ */

typedef struct {
  CrInterp *interp;
  CrValue  *fn;
} Hook;

static void
hook_free (gpointer data)
{
  Hook *hook = data;
  cr_value_unref (hook->fn);
  g_free (hook);
}

/* A hook's __name__, as PyTorch's messages say it: "<unknown>" for a
 * callable object. */
static const char *
hook_name (const CrValue *fn)
{
  if (fn->kind == CR_VALUE_BOUND_METHOD)
    fn = fn->u.bound.func;
  if (fn->kind == CR_VALUE_FUNCTION && fn->u.function->code != NULL)
    return fn->u.function->code->name;
  if (fn->kind == CR_VALUE_NATIVE)
    return fn->u.native.name;
  return "<unknown>";
}

/* "torch.FloatTensor", "torch.cuda.FloatTensor". */
static char *
legacy_type (const CrTensor *t)
{
  const char *name = cr_dtype_legacy_name (t->dtype);
  if (t->device == CR_DEVICE_CPU)
    return g_strdup (name);
  return g_strdup_printf ("torch.cuda.%s", name + strlen ("torch."));
}

/* PyTorch's check of what a hook returned: the gradient's type, device and
 * size must stay. */
static gboolean
check_hook_result (const CrValue  *fn,
                   const CrTensor *grad,
                   const CrTensor *result,
                   GError        **error)
{
  if (result->dtype != grad->dtype || result->device != grad->device)
    {
      g_autofree char *was = legacy_type (grad);
      g_autofree char *got = legacy_type (result);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "hook '%s' has changed the type of value (was %s got %s)", hook_name (fn),
                   was, got);
      return FALSE;
    }
  if (!cr_shape_equal (result->shape, result->ndim, grad->shape, grad->ndim))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "hook '%s' has changed the size of value", hook_name (fn));
      return FALSE;
    }
  return TRUE;
}

static gboolean
hook_call (const CrTensor  *grad,
           CrTensor       **out_replacement,
           gpointer         user_data,
           GError         **error)
{
  Hook *hook = user_data;
  g_autoptr(CrValue) arg = cr_value_new_tensor ((CrTensor *) grad);
  g_autoptr(CrValue) result = NULL;

  *out_replacement = NULL;
  result = cr_interp_call (hook->interp, hook->fn, &arg, 1, NULL, 0, error);
  if (result == NULL)
    return FALSE;
  if (result->kind == CR_VALUE_NONE)
    return TRUE;
  if (result->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "expected Variable, but hook returned '%s'", cr_torch_type_name (result));
      return FALSE;
    }
  if (!check_hook_result (hook->fn, grad, result->u.tensor, error))
    return FALSE;
  *out_replacement = cr_tensor_ref (result->u.tensor);
  return TRUE;
}

/* Holds no tensor, as PyTorch's holds a weakref: the hook's function often
 * refers to its handle, and that would be a cycle. */
typedef struct {
  guint     id;          /* the engine's, for cr_hook_remove */
  guint     script_id;   /* what handle.id says */
} Handle;

NATIVE (native_handle_remove)
{
  Handle *handle = self->u.object.data;
  PARSE ("remove", "self");

  cr_hook_remove (handle->id);
  return cr_value_none ();
}

static CrValue *
handle_get_attr (CrInterp    *interp,
                 CrValue     *self,
                 const char  *name,
                 GError     **error)
{
  if (strcmp (name, "remove") == 0)
    return cr_value_new_native ("remove", native_handle_remove, self, NULL);
  if (strcmp (name, "id") == 0)
    return cr_value_new_int (((Handle *) self->u.object.data)->script_id);
  return NULL;
}

static const CrObjectType handle_type = {
  .name = "torch.utils.hooks.RemovableHandle",
  .destroy = g_free,
  .get_attr = handle_get_attr,
};

/* tensor.register_hook(fn) -> RemovableHandle */
CrValue *
cr_torch_native_register_hook (CrInterp       *interp,
                               CrValue        *self,
                               CrValue *const *args,
                               guint           n_args,
                               const CrKwarg  *kwargs,
                               guint           n_kwargs,
                               gpointer        data,
                               GError        **error)
{
  Hook *hook;
  Handle *handle;
  guint id;
  PARSE ("register_hook", "self hook");

  hook = g_new0 (Hook, 1);
  hook->interp = interp;
  hook->fn = cr_value_ref (a.values[1]);
  id = cr_tensor_register_hook (self->u.tensor, hook_call, hook, hook_free, error);
  if (id == 0)
    {
      /* Not registered: the hook is ours to free. */
      if (error == NULL || *error == NULL)
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                             "cannot register a hook on a tensor that doesn't require gradient");
      hook_free (hook);
      return NULL;
    }
  handle = g_new0 (Handle, 1);
  handle->id = id;
  handle->script_id = cr_interp_next_handle_id (interp);
  return cr_value_new_object (&handle_type, handle);
}

CrValue *
cr_torch_hook_function (const CrTensorHook *hook)
{
  if (hook == NULL || hook->func != hook_call)
    return NULL;
  return ((const Hook *) hook->user_data)->fn;
}

/* ---- torch.autograd.Function ------------------------------------------ */

/* The ctx of one apply(): user attributes, the tensors saved for backward
 * (held here until the node exists, then in the node's saved slots, so
 * that a backward frees them as PyTorch does), needs_input_grad. */
typedef struct {
  char        *name;            /* "MyReLUBackward" */
  GHashTable  *attrs;           /* char* -> CrValue* */
  GPtrArray   *saved;           /* of CrTensor* (owned) before the node exists */
  guint        n_saved;
  CrNode      *node;            /* weak: the node owns the ctx */
  CrValue     *needs_input_grad;
  GPtrArray   *non_differentiable;  /* of CrTensor* (borrowed, compared by address) */
  GPtrArray   *dirty;           /* mark_dirty's inputs (borrowed, compared by address) */
} Ctx;

static void
ctx_free (gpointer data)
{
  Ctx *ctx = data;
  g_free (ctx->name);
  g_hash_table_unref (ctx->attrs);
  g_clear_pointer (&ctx->saved, g_ptr_array_unref);
  cr_value_unref (ctx->needs_input_grad);
  g_clear_pointer (&ctx->non_differentiable, g_ptr_array_unref);
  g_clear_pointer (&ctx->dirty, g_ptr_array_unref);
  g_free (ctx);
}

static char *
ctx_repr (CrValue *self)
{
  Ctx *ctx = self->u.object.data;
  return g_strdup_printf ("<torch.autograd.function.%s object at %p>", ctx->name,
                          (gpointer) ctx);
}

NATIVE (native_save_for_backward)
{
  Ctx *ctx = self->u.object.data;

  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "save_for_backward() got an unexpected keyword argument '%s'",
                   kwargs[0].name);
      return NULL;
    }
  g_clear_pointer (&ctx->saved, g_ptr_array_unref);
  ctx->saved = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  for (guint i = 0; i < n_args; i++)
    {
      if (args[i]->kind == CR_VALUE_NONE)
        {
          g_ptr_array_add (ctx->saved, NULL);
          continue;
        }
      if (args[i]->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "save_for_backward can only save variables, but argument %u is not a "
                       "Variable", i);
          return NULL;
        }
      g_ptr_array_add (ctx->saved, cr_tensor_ref (args[i]->u.tensor));
    }
  ctx->n_saved = ctx->saved->len;
  return cr_value_none ();
}

/* ctx.mark_non_differentiable(*tensors), ctx.mark_dirty(*tensors): data
 * FALSE / TRUE. */
NATIVE (native_mark_non_differentiable)
{
  Ctx *ctx = self->u.object.data;
  GPtrArray **list = GPOINTER_TO_INT (data) ? &ctx->dirty : &ctx->non_differentiable;

  if (*list == NULL)
    *list = g_ptr_array_new ();
  for (guint i = 0; i < n_args; i++)
    if (args[i]->kind == CR_VALUE_TENSOR)
      g_ptr_array_add (*list, args[i]->u.tensor);
  return cr_value_none ();
}

NATIVE (native_ctx_noop)
{
  return cr_value_none ();
}

static CrValue *
saved_tensors (Ctx     *ctx,
               GError **error)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);

  if (ctx->node != NULL && ctx->saved == NULL)
    {
      for (guint i = 0; i < ctx->n_saved; i++)
        {
          CrTensor *t;

          if (ctx->node->saved[i].tensor == NULL && !ctx->node->released)
            {
              g_ptr_array_add (items, cr_value_none ());
              continue;
            }
          t = cr_node_get_saved (ctx->node, i, error);
          if (t == NULL)
            return NULL;
          g_ptr_array_add (items, cr_value_new_tensor_take (t));
        }
    }
  else if (ctx->saved != NULL)
    {
      for (guint i = 0; i < ctx->saved->len; i++)
        {
          CrTensor *t = ctx->saved->pdata[i];
          g_ptr_array_add (items, t != NULL ? cr_value_new_tensor (t) : cr_value_none ());
        }
    }
  return cr_value_new_tuple ((CrValue *const *) items->pdata, items->len);
}

static CrValue *
ctx_get_attr (CrInterp    *interp,
              CrValue     *self,
              const char  *name,
              GError     **error)
{
  Ctx *ctx = self->u.object.data;
  CrValue *v = g_hash_table_lookup (ctx->attrs, name);

  if (v != NULL)
    return cr_value_ref (v);
  if (strcmp (name, "save_for_backward") == 0)
    return cr_value_new_native ("save_for_backward", native_save_for_backward, self, NULL);
  if (strcmp (name, "saved_tensors") == 0)
    return saved_tensors (ctx, error);
  if (strcmp (name, "needs_input_grad") == 0)
    return cr_value_ref (ctx->needs_input_grad);
  if (strcmp (name, "mark_non_differentiable") == 0)
    return cr_value_new_native ("mark_non_differentiable", native_mark_non_differentiable,
                                self, NULL);
  if (strcmp (name, "mark_dirty") == 0)
    return cr_value_new_native ("mark_dirty", native_mark_non_differentiable, self,
                                GINT_TO_POINTER (TRUE));
  if (strcmp (name, "set_materialize_grads") == 0)
    return cr_value_new_native ("set_materialize_grads", native_ctx_noop, self, NULL);
  return NULL;
}

static gboolean
ctx_set_attr (CrInterp    *interp,
              CrValue     *self,
              const char  *name,
              CrValue     *value,
              GError     **error)
{
  Ctx *ctx = self->u.object.data;

  if (strcmp (name, "saved_tensors") == 0 || strcmp (name, "needs_input_grad") == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                   "attribute '%s' of 'torch._C._FunctionBase' objects is not writable", name);
      return FALSE;
    }
  g_hash_table_replace (ctx->attrs, g_strdup (name), cr_value_ref (value));
  return TRUE;
}

static const CrObjectType ctx_type = {
  .name = "FunctionCtx",
  .destroy = ctx_free,
  .get_attr = ctx_get_attr,
  .set_attr = ctx_set_attr,
  .repr = ctx_repr,
};

/* What the node keeps to run the user's backward. */
typedef struct {
  CrInterp *interp;
  CrValue  *ctx;            /* the ctx object */
  CrValue  *backward;       /* the user's backward */
  guint     n_args;         /* forward's argument count */
  guint    *tensor_arg;     /* per node input: its forward argument index */
} Custom;

static void
custom_free (gpointer data)
{
  Custom *custom = data;
  Ctx *ctx = custom->ctx->u.object.data;

  ctx->node = NULL;
  cr_value_unref (custom->ctx);
  cr_value_unref (custom->backward);
  g_free (custom->tensor_arg);
  g_free (custom);
}

static gboolean
custom_backward (CrNode          *node,
                 gpointer         user_data,
                 CrTensor *const *grad_outputs,
                 guint            n_outputs,
                 CrTensor       **grad_inputs,
                 guint            n_inputs,
                 GError         **error)
{
  Custom *custom = user_data;
  g_autoptr(GPtrArray) call_args = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  g_autoptr(CrValue) result = NULL;
  CrValue *const *grads;
  guint n_grads;

  g_ptr_array_add (call_args, cr_value_ref (custom->ctx));
  for (guint i = 0; i < n_outputs; i++)
    {
      CrTensor *g = grad_outputs[i];
      if (g != NULL)
        g_ptr_array_add (call_args, cr_value_new_tensor (g));
      else
        {
          /* PyTorch materialises a missing output gradient as zeros. */
          const CrTensorMeta *m = &node->output_meta[i];
          CrTensor *z = cr_tensor_new_zeros (m->shape, m->ndim, m->dtype, m->device, error);
          if (z == NULL)
            return FALSE;
          g_ptr_array_add (call_args, cr_value_new_tensor_take (z));
        }
    }

  result = cr_interp_call (custom->interp, custom->backward, (CrValue *const *) call_args->pdata,
                           call_args->len, NULL, 0, error);
  if (result == NULL)
    return FALSE;

  if (result->kind == CR_VALUE_TUPLE)
    {
      grads = (CrValue *const *) result->u.seq.items->pdata;
      n_grads = result->u.seq.items->len;
    }
  else
    {
      grads = (CrValue *const *) &result;
      n_grads = 1;
    }

  /* Extra trailing Nones are fine; anything else must match forward's
   * argument count. */
  if (n_grads != custom->n_args)
    {
      gboolean ok = n_grads > custom->n_args;
      for (guint i = custom->n_args; ok && i < n_grads; i++)
        ok = grads[i]->kind == CR_VALUE_NONE;
      if (!ok)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "function %s returned an incorrect number of gradients (expected %u, "
                       "got %u)", cr_node_name (node), custom->n_args, n_grads);
          return FALSE;
        }
    }

  for (guint k = 0; k < n_inputs; k++)
    {
      CrValue *g = grads[custom->tensor_arg[k]];

      grad_inputs[k] = NULL;
      if (g->kind == CR_VALUE_NONE)
        continue;
      if (g->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "function %s returned a gradient different than None at position %u, "
                       "but the corresponding forward input was not a Variable",
                       cr_node_name (node), custom->tensor_arg[k] + 1);
          for (guint j = 0; j < k; j++)
            g_clear_pointer (&grad_inputs[j], cr_tensor_unref);
          return FALSE;
        }
      if (node->next[k].node != NULL)
        grad_inputs[k] = cr_tensor_ref (g->u.tensor);
    }
  return TRUE;
}

CrValue *
cr_torch_custom_backward_function (CrNode *node)
{
  if (node == NULL || node->op == NULL || node->op->id != CR_OP_CUSTOM)
    return NULL;
  const Custom *custom = cr_node_get_custom_data (node);
  return custom != NULL ? custom->backward : NULL;
}

/* Looks name up on cls and its bases. */
static CrValue *
class_lookup (CrValue    *cls,
              const char *name)
{
  for (CrValue *c = cls; c != NULL && c->kind == CR_VALUE_CLASS; c = c->u.cls.base)
    {
      CrValue *v = cr_value_get_member (c, name);
      /* @staticmethod wraps the function in an object holding it. */
      if (v != NULL && v->kind == CR_VALUE_OBJECT
          && strcmp (v->u.object.type->name, "staticmethod") == 0 && v->u.object.data != NULL)
        return v->u.object.data;
      if (v != NULL)
        return v;
    }
  return NULL;
}

static gboolean
in_list (GPtrArray *list,
         CrTensor  *t)
{
  for (guint i = 0; list != NULL && i < list->len; i++)
    if (list->pdata[i] == t)
      return TRUE;
  return FALSE;
}

static gboolean
is_non_differentiable (Ctx      *ctx,
                       CrTensor *t)
{
  return in_list (ctx->non_differentiable, t);
}

/* Function.apply(*args): self is the user's class. */
NATIVE (native_apply)
{
  CrValue *forward, *backward;
  g_autoptr(CrValue) ctx_value = NULL;
  g_autoptr(CrValue) result = NULL;
  g_autoptr(GPtrArray) call_args = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr(GArray) tensor_arg = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GPtrArray) outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  CrValue *needs[64];
  Ctx *ctx;
  gboolean prev, record;
  CrNode *node;
  Custom *custom;

  if (self == NULL || self->kind != CR_VALUE_CLASS)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "apply() must be called on a subclass of torch.autograd.Function");
      return NULL;
    }
  forward = class_lookup (self, "forward");
  backward = class_lookup (self, "backward");
  if (forward == NULL || forward->kind == CR_VALUE_NATIVE)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "You must implement the forward function for custom "
                           "autograd.Function.");
      return NULL;
    }
  if (n_args > G_N_ELEMENTS (needs) || n_kwargs > 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           n_kwargs > 0 ? "apply() takes no keyword arguments"
                                        : "apply(): too many arguments");
      return NULL;
    }

  ctx = g_new0 (Ctx, 1);
  ctx->name = g_strdup_printf ("%sBackward", self->u.cls.name);
  ctx->attrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) cr_value_unref);
  record = cr_grad_mode_is_enabled ();
  for (guint i = 0; i < n_args; i++)
    {
      gboolean need = FALSE;
      if (args[i]->kind == CR_VALUE_TENSOR)
        {
          g_ptr_array_add (inputs, args[i]->u.tensor);
          g_array_append_val (tensor_arg, i);
          need = record && args[i]->u.tensor->requires_grad;
        }
      needs[i] = cr_value_new_bool (need);
    }
  ctx->needs_input_grad = cr_value_new_tuple (needs, n_args);
  for (guint i = 0; i < n_args; i++)
    cr_value_unref (needs[i]);
  ctx_value = cr_value_new_object (&ctx_type, ctx);

  /* forward(ctx, *args) without recording. */
  g_ptr_array_add (call_args, cr_value_ref (ctx_value));
  for (guint i = 0; i < n_args; i++)
    g_ptr_array_add (call_args, cr_value_ref (args[i]));
  prev = cr_grad_mode_set_enabled (FALSE);
  result = cr_interp_call (interp, forward, (CrValue *const *) call_args->pdata, call_args->len,
                           NULL, 0, error);
  cr_grad_mode_set_enabled (prev);
  if (result == NULL)
    return NULL;

  record = record && cr_autograd_should_record ((CrTensor *const *) inputs->pdata, inputs->len);
  if (!record)
    return g_steal_pointer (&result);
  if (backward == NULL || backward->kind == CR_VALUE_NATIVE)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "You must implement either the backward or vjp method for your "
                           "custom autograd.Function to use it with backward mode AD.");
      return NULL;
    }

  /* The outputs: one tensor, or a tuple whose tensors get the history. */
  if (result->kind == CR_VALUE_TUPLE)
    for (guint i = 0; i < cr_seq_len (result); i++)
      g_ptr_array_add (outputs, cr_value_ref (cr_seq_get (result, i)));
  else
    g_ptr_array_add (outputs, cr_value_ref (result));

  {
    guint n_outputs = 0;
    for (guint i = 0; i < outputs->len; i++)
      {
        CrValue *v = outputs->pdata[i];

        if (v->kind != CR_VALUE_TENSOR)
          continue;
        n_outputs++;
        if (in_list (ctx->dirty, v->u.tensor) && v->u.tensor->grad_fn == NULL
            && v->u.tensor->requires_grad)
          {
            g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                                 "a leaf Variable that requires grad has been used in an "
                                 "in-place operation.");
            return NULL;
          }
      }
    if (n_outputs == 0)
      return g_steal_pointer (&result);

    custom = g_new0 (Custom, 1);
    custom->interp = interp;
    custom->ctx = cr_value_ref (ctx_value);
    custom->backward = cr_value_ref (backward);
    custom->n_args = n_args;
    custom->tensor_arg = (guint *) g_array_free (g_steal_pointer (&tensor_arg), FALSE);
    node = cr_node_new_custom (ctx->name, (CrTensor *const *) inputs->pdata, inputs->len,
                               n_outputs, custom_backward, custom, custom_free);
    ctx->node = node;
  }

  /* Give each output tensor its history. An output that is an input (or
   * already has history) is aliased first, so the input stays as it was. */
  {
    guint out_nr = 0;
    g_autoptr(GPtrArray) new_items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);

    for (guint i = 0; i < outputs->len; i++)
      {
        CrValue *v = outputs->pdata[i];
        CrTensor *t;

        if (v->kind != CR_VALUE_TENSOR)
          {
            g_ptr_array_add (new_items, cr_value_ref (v));
            continue;
          }
        t = v->u.tensor;
        /* An input the forward changed in place (ctx.mark_dirty) is
         * returned itself, its history rebased onto this node. */
        if (in_list (ctx->dirty, t))
          {
            /* PyTorch counts the rebase as one more change. */
            cr_tensor_bump_version (t);
            g_ptr_array_add (new_items, cr_value_ref (v));
          }
        else if (t->grad_fn != NULL || t->requires_grad)
          {
            CrTensor *alias = cr_tensor_alias (t);
            g_ptr_array_add (new_items, cr_value_new_tensor_take (alias));
            t = alias;
          }
        else
          g_ptr_array_add (new_items, cr_value_ref (v));

        if (cr_dtype_is_floating (t->dtype) && !is_non_differentiable (ctx, v->u.tensor))
          cr_autograd_set_history (t, node, out_nr);
        out_nr++;
      }

    /* Saved tensors move into the node; an output is saved as one (no
     * reference cycle through its grad_fn). */
    if (ctx->saved != NULL && ctx->saved->len <= CR_NODE_MAX_SAVED)
      {
        for (guint i = 0; i < ctx->saved->len; i++)
          {
            CrTensor *s = ctx->saved->pdata[i];
            gboolean is_output = FALSE;

            if (s == NULL)
              continue;
            for (guint j = 0; j < new_items->len; j++)
              {
                CrValue *o = new_items->pdata[j];
                CrValue *orig = outputs->pdata[j];
                if (o->kind == CR_VALUE_TENSOR
                    && (o->u.tensor == s || orig->u.tensor == s)
                    && o->u.tensor->grad_fn == node)
                  {
                    s = o->u.tensor;
                    is_output = TRUE;
                    break;
                  }
              }
            cr_node_save (node, i, s, is_output);
          }
        g_clear_pointer (&ctx->saved, g_ptr_array_unref);
      }

    /* The node is owned by its outputs now. */
    cr_node_unref (node);

    if (result->kind == CR_VALUE_TUPLE)
      return cr_value_new_tuple ((CrValue *const *) new_items->pdata, new_items->len);
    return cr_value_ref (new_items->pdata[0]);
  }
}

CrValue *
cr_torch_function_class_new (void)
{
  CrValue *cls = cr_value_new_class ("Function", NULL);
  g_autoptr(CrValue) apply = cr_value_new_native ("apply", native_apply, NULL, NULL);

  cr_value_set_member (cls, "apply", apply);
  return cls;
}
