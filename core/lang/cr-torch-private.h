/* cr-torch-private.h — what the files of the torch layer share: argument
 * parsing with PyTorch's messages, the torch.dtype / torch.device objects, the
 * table of functions that exist both as torch.NAME and as tensor methods, and
 * the natives each file exports to the others. */
#pragma once

#include "cr-torch.h"
#include "cr-interp.h"
#include "cr-tensor.h"
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-tensor-format.h"

G_BEGIN_DECLS

#define CR_TORCH_MAX_ARGS 12

/* ---- argument parsing (cr-torch-args.c) ------------------------------- */

/* The arguments of one call, matched to the parameters of a spec such as
 * "input other | * alpha" ('|' starts the optional ones, '*' the keyword-only
 * ones). For a method, self fills the first parameter and positions in
 * messages count as PyTorch counts them (torch.add(x, 's') says position 2,
 * x.add('s') position 1). */
typedef struct {
  const char *fname;
  guint       n_params;
  const char *names[CR_TORCH_MAX_ARGS];
  CrValue    *values[CR_TORCH_MAX_ARGS];      /* borrowed, NULL: not given */
  int         positions[CR_TORCH_MAX_ARGS];   /* for messages; 0: given by keyword */
} CrTorchArgs;

gboolean  cr_torch_args_parse        (CrTorchArgs     *a,
                                      const char      *fname,
                                      const char      *spec,
                                      CrValue         *self,
                                      CrValue *const  *args,
                                      guint            n_args,
                                      const CrKwarg   *kwargs,
                                      guint            n_kwargs,
                                      GError         **error);
/* Marks out's grad_fn scalar `slot` as given as a float when argument i
 * was one, so that _saved_alpha shows 2.0 as PyTorch does (cr-torch-math.c). */
void      cr_torch_mark_float_scalar (CrTensor        *out,
                                      const CrTorchArgs *a,
                                      int              i,
                                      guint            slot);
/* TRUE when parameter i was given and is not None. */
gboolean  cr_torch_args_has          (const CrTorchArgs *a,
                                      guint            i);
/* TypeError "add(): argument 'other' (position 1) must be Tensor, not str". */
void      cr_torch_args_type_error   (const CrTorchArgs *a,
                                      guint            i,
                                      const char      *expected,
                                      GError         **error);
/* PyTorch's TypeError for a call that none of fname's overloads take:
 * "var() received an invalid combination of arguments - got (int,
 * correction=float), but expected one of:" and the overloads (`options`,
 * NULL-terminated, each as PyTorch prints it without its parentheses), with
 * "didn't match because some of the keywords were incorrect" under those
 * whose argument count fits. args leave out a method's receiver, as
 * PyTorch does. */
void      cr_torch_invalid_combination (const char        *fname,
                                        const char *const *options,
                                        CrValue *const    *args,
                                        guint              n_args,
                                        const CrKwarg     *kwargs,
                                        guint              n_kwargs,
                                        GError           **error);
/* Parameter i as a tensor (borrowed), TypeError otherwise. */
CrTensor *cr_torch_args_tensor       (const CrTorchArgs *a,
                                      guint            i,
                                      GError         **error);
/* Parameter i as a tensor, a Python number wrapped (new ref). */
CrTensor *cr_torch_args_tensor_or_number (const CrTorchArgs *a,
                                      guint            i,
                                      GError         **error);
gboolean  cr_torch_args_int          (const CrTorchArgs *a,
                                      guint            i,
                                      gint64           fallback,
                                      gint64          *out,
                                      GError         **error);
gboolean  cr_torch_args_double       (const CrTorchArgs *a,
                                      guint            i,
                                      double           fallback,
                                      double          *out,
                                      GError         **error);
gboolean  cr_torch_args_bool         (const CrTorchArgs *a,
                                      guint            i,
                                      gboolean         fallback,
                                      gboolean        *out,
                                      GError         **error);
/* An int or a tuple/list of ints (dims of sum/mean/permute). *out_n = 0 when
 * not given. */
gboolean  cr_torch_args_dims         (const CrTorchArgs *a,
                                      guint            i,
                                      int             *out_dims,
                                      int             *out_n,
                                      GError         **error);
/* dtype=: *out_set FALSE when absent or None. */
gboolean  cr_torch_args_dtype        (const CrTorchArgs *a,
                                      guint            i,
                                      CrDType         *out,
                                      gboolean        *out_set,
                                      GError         **error);
gboolean  cr_torch_args_device       (const CrTorchArgs *a,
                                      guint            i,
                                      CrDeviceType    *out,
                                      gboolean        *out_set,
                                      GError         **error);
/* A size given as varargs (zeros(2, 3)), or one tuple/list/torch.Size
 * (zeros((2, 3))), with PyTorch's messages. */
gboolean  cr_torch_parse_size        (const char      *fname,
                                      const char      *pname,
                                      CrValue *const  *args,
                                      guint            n_args,
                                      gint64          *out_shape,
                                      int             *out_ndim,
                                      GError         **error);
/* A Python int (or bool) as gint64; FALSE (no error) for anything else. */
gboolean  cr_torch_value_is_int      (CrValue         *v,
                                      gint64          *out);
gboolean  cr_torch_value_is_number   (CrValue         *v,
                                      double          *out);
/* torch's names for argument types in messages: "Tensor", "str", "int"... */
const char *cr_torch_type_name       (CrValue         *v);

/* ---- torch.dtype and torch.device objects (cr-torch-dtype.c) ----------- */

CrValue  *cr_torch_dtype_new         (CrDType          dtype);
gboolean  cr_torch_value_get_dtype   (CrValue         *v,
                                      CrDType         *out);
/* torch.int32 and friends: known to PyTorch, not to Chainrule. */
CrValue  *cr_torch_unsupported_dtype_new (const char  *name);
CrValue  *cr_torch_device_new        (CrDeviceType     device);
/* A torch.device, a string ("cpu", "cuda", "cuda:0") or a CUDA index, for
 * putting tensors there: errors as torch's, and cr-device.h's "Found no NVIDIA
 * driver ..." where CUDA cannot be used. */
gboolean  cr_torch_value_to_device   (CrValue         *v,
                                      CrDeviceType    *out,
                                      GError         **error);
CrValue  *cr_torch_native_device     (CrInterp        *interp,
                                      CrValue         *self,
                                      CrValue *const  *args,
                                      guint            n_args,
                                      const CrKwarg   *kwargs,
                                      guint            n_kwargs,
                                      gpointer         data,
                                      GError         **error);
/* torch.finfo(dtype): a float dtype's limits (cr-torch-dtype.c). */
CrValue  *cr_torch_native_finfo      (CrInterp        *interp,
                                      CrValue         *self,
                                      CrValue *const  *args,
                                      guint            n_args,
                                      const CrKwarg   *kwargs,
                                      guint            n_kwargs,
                                      gpointer         data,
                                      GError         **error);
/* The error for using CUDA where it cannot be used (cr-device.h's). */
void      cr_torch_set_no_cuda_error (GError         **error);

/* ---- functions shared by torch.NAME and tensor.NAME --------------------- */

typedef enum {
  CR_TORCH_IN_TORCH  = 1 << 0,   /* torch.NAME */
  CR_TORCH_IN_TENSOR = 1 << 1,   /* tensor.NAME() */
  CR_TORCH_IN_F      = 1 << 2,   /* torch.nn.functional.NAME */
  /* A factory (zeros, arange, randn ...): with out=, its dtype is out's
   * unless dtype= is given (cr-torch-out.c). */
  CR_TORCH_FACTORY   = 1 << 3,
} CrTorchWhere;

typedef struct {
  const char   *name;
  CrNativeFunc  fn;
  guint         where;
  gpointer      data;
} CrTorchFunc;

/* The tables of cr-torch-math.c and cr-torch-tensor-methods.c. */
extern const CrTorchFunc cr_torch_math_funcs[];
extern const guint       cr_torch_n_math_funcs;
/* reduction='mean' | 'sum' | 'none' of a loss, argument i (cr-torch-math.c). */
gboolean  cr_torch_parse_reduction   (CrTorchArgs     *a,
                                      guint            i,
                                      CrReduction     *out,
                                      GError         **error);
extern const CrTorchFunc cr_torch_unary_funcs[];        /* cr-torch-unary.c */
extern const guint       cr_torch_n_unary_funcs;
extern const CrTorchFunc cr_torch_binary_funcs[];       /* cr-torch-binary.c */
extern const guint       cr_torch_n_binary_funcs;
extern const CrTorchFunc cr_torch_activation_funcs[];   /* cr-torch-activation.c */
extern const guint       cr_torch_n_activation_funcs;
extern const CrTorchFunc cr_torch_nnf_funcs[];          /* cr-torch-nnf.c */
extern const guint       cr_torch_n_nnf_funcs;
extern const CrTorchFunc cr_torch_einsum_funcs[];       /* cr-torch-einsum.c */
extern const guint       cr_torch_n_einsum_funcs;
extern const CrTorchFunc cr_torch_sort_funcs[];         /* cr-torch-sort.c */
extern const guint       cr_torch_n_sort_funcs;
extern const CrTorchFunc cr_torch_scatter_funcs[];      /* cr-torch-scatter.c */
extern const guint       cr_torch_n_scatter_funcs;
/* torch.return_types.NAME(values=..., indices=...), taking both (cr-torch-math.c). */
CrValue  *cr_torch_return_pair_new (const char *name, CrTensor *values, CrTensor *indices);
/* clamp's overloads: TRUE when min and max (parameters 1, 2) are tensors,
 * FALSE for numbers, FALSE with PyTorch's TypeError when they mix
 * (cr-torch-math.c). */
gboolean  cr_torch_clamp_takes_tensors (const CrTorchArgs *a, GError **error);
/* torch.NAME(..., out=t) for every function of the tables; data is the
 * CrTorchFunc (cr-torch-out.c). */
CrValue  *cr_torch_native_with_out (CrInterp *interp, CrValue *self, CrValue *const *args,
                                    guint n_args, const CrKwarg *kwargs, guint n_kwargs,
                                    gpointer data, GError **error);
/* cr-torch-missing.c: a PyTorch name Chainrule lacks. Sets
 * NotImplementedError "torch.fft is not supported by Chainrule yet" when
 * PyTorch 1.13's module has the name, Python's AttributeError otherwise. */
void      cr_torch_missing_attribute_error (const char *module, const char *name,
                                            GError **error);
gboolean  cr_torch_is_unsupported_name     (const char *module, const char *name);
/* Gives a native module the __getattr__ that raises that error. */
void      cr_torch_install_missing_hook    (CrValue *module, const char *dotted);
/* torch._C._missing_attribute(module, name), for the prelude's modules. */
void      cr_torch_install_missing_native  (CrValue *c_module);
extern const CrTorchFunc cr_torch_storage_funcs[];      /* cr-torch-storage.c */
extern const guint       cr_torch_n_storage_funcs;
extern const CrTorchFunc cr_torch_print_funcs[];        /* cr-torch-print.c */
extern const guint       cr_torch_n_print_funcs;
extern const CrTorchFunc cr_torch_loss_funcs[];         /* cr-torch-losses.c */
extern const guint       cr_torch_n_loss_funcs;
extern const CrTorchFunc cr_torch_conv_funcs[];         /* cr-torch-conv.c */
extern const guint       cr_torch_n_conv_funcs;
extern const CrTorchFunc cr_torch_random_funcs[];       /* cr-torch-random.c */
extern const guint       cr_torch_n_random_funcs;
extern const CrTorchFunc cr_torch_generator_funcs[];    /* cr-torch-generator.c */
extern const guint       cr_torch_n_generator_funcs;
/* torch.default_generator (new ref): the script's generator. */
CrValue  *cr_torch_default_generator_new (void);
/* The module torch.random (new ref). */
CrValue  *cr_torch_random_module_new (void);
/* generator= (parameter i): the Generator's, or the script's for None or
 * absent; TypeError for anything else. */
gboolean  cr_torch_generator_arg    (CrInterp          *interp,
                                     const CrTorchArgs *a,
                                     guint              i,
                                     struct _CrGenerator **out,
                                     GError           **error);
extern const CrTorchFunc cr_torch_pointwise_funcs[];     /* cr-torch-pointwise.c */
extern const guint       cr_torch_n_pointwise_funcs;
extern const CrTorchFunc cr_torch_repeat_funcs[];        /* cr-torch-repeat.c */
extern const guint       cr_torch_n_repeat_funcs;
extern const CrTorchFunc cr_torch_counting_funcs[];      /* cr-torch-counting.c */
extern const guint       cr_torch_n_counting_funcs;
extern const CrTorchFunc cr_torch_products_funcs[];      /* cr-torch-products.c */
extern const guint       cr_torch_n_products_funcs;
extern const CrTorchFunc cr_torch_upsample_funcs[];      /* cr-torch-upsample.c */
extern const guint       cr_torch_n_upsample_funcs;
extern const CrTorchFunc cr_torch_narrow_funcs[];        /* cr-torch-narrow.c */
extern const guint       cr_torch_n_narrow_funcs;
extern const CrTorchFunc cr_torch_packed_funcs[];        /* cr-torch-packed.c */
extern const guint       cr_torch_n_packed_funcs;
/* The module torch.linalg (new ref): cross; the rest says it is missing. */
CrValue  *cr_torch_linalg_module_new (void);

/* Every table above, in the order in which a later entry wins on a shared
 * name (cr-torch-module.c). */
typedef struct {
  const CrTorchFunc *funcs;
  const guint       *n_funcs;
} CrTorchFuncTable;

extern const CrTorchFuncTable cr_torch_func_tables[];
extern const guint            cr_torch_n_func_tables;
extern const CrTorchFunc cr_torch_method_funcs[];
extern const guint       cr_torch_n_method_funcs;

/* The entry for tensor.NAME (NULL when none). */
const CrTorchFunc *cr_torch_lookup_method (const char *name);
/* Put every entry marked where into module. */
void      cr_torch_add_funcs         (CrValue         *module,
                                      guint            where);

/* Wraps a tensor result: NULL stays NULL (the error is set). */
static inline CrValue *
cr_torch_wrap (CrTensor *t)
{
  return t != NULL ? cr_value_new_tensor_take (t) : NULL;
}

/* ---- cr-torch-function.c ---------------------------------------------- */

/* A grad_fn object (new ref) or None. */
CrValue  *cr_torch_node_value        (CrNode          *node);
/* Appends the node's _saved_ (and _raw_saved_ for tensors) attribute names,
 * interned, for dir(grad_fn) (cr-torch-saved.c). */
void      cr_torch_node_saved_attr_names (CrNode      *node,
                                          GPtrArray   *names);
/* grad_fn._saved_self and the like (cr-torch-saved.c): *found says whether
 * name is one; the value (new ref), or NULL with error set. */
CrValue  *cr_torch_node_saved_attr   (CrNode          *node,
                                      const char      *name,
                                      gboolean        *found,
                                      GError         **error);
/* The node's saved arguments that are no tensor (an int, a float, a bool,
 * a tuple of ints or None), each as func (name without "_saved_", value
 * borrowed, data), in the order _saved_ attributes are listed; then what
 * the run record keeps beside them (layer_norm's eps, a pool's geometry
 * with its defaults filled in) (cr-torch-saved.c). */
typedef void (*CrTorchSavedNumber) (const char *name,
                                    CrValue    *value,
                                    gpointer    data);
void      cr_torch_node_saved_numbers (CrNode             *node,
                                       CrTorchSavedNumber  func,
                                       gpointer            data);
/* PyTorch's name for the tensor node saved in slot, as _saved_<name> gives
 * it back ("mat1" for addmm's slot 0), static; NULL when it has none. */
const char *cr_torch_saved_tensor_name (const CrNode *node,
                                        guint         slot);
/* For a slot with no such name that is neither an input nor an output: a
 * buffer of Chainrule's own, "positions" (gather's, roll's: where each
 * element came from) or "kept" (a mask), static; NULL for a custom
 * Function's or an output. */
const char *cr_torch_saved_internal_name (const CrNode *node,
                                          guint         slot);
CrValue  *cr_torch_function_class_new(void);

/* ---- cr-torch-tensor-class.c ------------------------------------------ */

/* Tensor._make_subclass and Tensor.__repr__ on the class torch.Tensor. */
void      cr_torch_tensor_class_install (CrValue        *cls);
/* The leaves the graphs of roots reach get their .grad cleared when interp
 * is freed: a .grad with history that leads back to its own leaf (after
 * backward(create_graph=True) or `x.grad = f(x)`) is otherwise a cycle. */
void      cr_torch_break_grad_cycles_at_end (CrInterp        *interp,
                                             CrTensor *const *roots,
                                             guint            n_roots);
CrValue  *cr_torch_native_backward   (CrInterp *interp, CrValue *self, CrValue *const *args,
                                      guint n_args, const CrKwarg *kwargs, guint n_kwargs,
                                      gpointer data, GError **error);
CrValue  *cr_torch_native_autograd_backward (CrInterp *interp, CrValue *self,
                                      CrValue *const *args, guint n_args,
                                      const CrKwarg *kwargs, guint n_kwargs,
                                      gpointer data, GError **error);
CrValue  *cr_torch_native_grad       (CrInterp *interp, CrValue *self, CrValue *const *args,
                                      guint n_args, const CrKwarg *kwargs, guint n_kwargs,
                                      gpointer data, GError **error);
CrValue  *cr_torch_native_register_hook (CrInterp *interp, CrValue *self,
                                      CrValue *const *args, guint n_args,
                                      const CrKwarg *kwargs, guint n_kwargs,
                                      gpointer data, GError **error);

/* ---- cr-torch-module.c ------------------------------------------------ */

/* torch.tensor(data): nested lists/tuples of numbers, bools and 0-d tensors,
 * with PyTorch's dtype inference (unless has_dtype) and messages. */
CrTensor *cr_torch_tensor_from_data  (CrValue         *data,
                                      gboolean         has_dtype,
                                      CrDType          dtype,
                                      GError         **error);

/* Grad-mode context managers and decorators (torch.no_grad() ...). */
CrValue  *cr_torch_grad_mode_new     (gboolean         enabled);

/* ---- cr-torch-tensor-ops.c -------------------------------------------- */

/* tensor.tolist() / .item() as Python values. */
CrValue  *cr_torch_tensor_item       (CrTensor        *t,
                                      GError         **error);
CrValue  *cr_torch_tensor_tolist     (CrTensor        *t);

/* Python's "Did you mean" among dir() of a tensor, or NULL (cr-torch-dir.c). */
const char *cr_torch_tensor_suggest_attribute (const char *name);

G_END_DECLS
