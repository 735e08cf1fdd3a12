/* cr-torch.h — the torch layer of the language: the modules a script imports
 * (torch, torch.nn, torch.nn.functional, torch.autograd, torch.optim,
 * torch.cuda) and what tensors do as Python values (operators, attributes,
 * methods, indexing, printing, truthiness).
 *
 * The interpreter calls these whenever a tensor (or a torch object) is
 * involved; everything else about values is the interpreter's. */
#pragma once

#include "cr-value.h"
#include "cr-ast.h"

G_BEGIN_DECLS

/* A tensor as a value (new refs). */
CrValue  *cr_value_new_tensor     (CrTensor *tensor);                  /* refs tensor */
static inline CrValue *
cr_value_new_tensor_take (CrTensor *tensor)                           /* takes the ref */
{
  return cr_value_new_handle (CR_VALUE_TENSOR, tensor);
}
/* A tensor (new ref): a tensor value itself, or a Python number wrapped as a 0-d
 * tensor (is_wrapped_number; int -> int64, float -> float64, bool -> bool). */
CrTensor *cr_value_to_tensor      (CrValue *v, GError **error);

/* `import torch`, `import torch.nn.functional as F`, `from torch import nn`:
 * the module value (new ref) for a dotted name, or NULL with
 * ModuleNotFoundError "No module named 'os'" for anything outside torch. The
 * modules are created once per interpreter and cached by the caller. */
CrValue  *cr_torch_import         (CrInterp *interp, const char *dotted_name, GError **error);

/* a OP b where a or b is a tensor (the other may be a number, a tensor, ...).
 * NULL without error: not supported for these operand types (the interpreter
 * raises Python's TypeError "unsupported operand type(s) for ..."). */
CrValue  *cr_torch_binary_op      (CrInterp *interp, CrBinOp op, CrValue *a, CrValue *b,
                                   GError **error);
/* a OP= b with a a tensor: in place, as Python calls __iadd__ (FALSE + error
 * on failure; FALSE without error: not in place, fall back to a = a OP b). */
gboolean  cr_torch_inplace_op     (CrInterp *interp, CrBinOp op, CrValue *a, CrValue *b,
                                   GError **error);
CrValue  *cr_torch_unary_op       (CrInterp *interp, CrUnOp op, CrValue *a, GError **error);
/* Comparisons with a tensor operand give bool tensors (==, !=, <, <=, >, >=). */
CrValue  *cr_torch_compare        (CrInterp *interp, CrCmpOp op, CrValue *a, CrValue *b,
                                   GError **error);

/* t.attr / t.method (a bound native), and t.attr = v (requires_grad, grad,
 * data; FALSE without error for a name that is no member of Tensor). */
CrValue  *cr_torch_tensor_getattr (CrInterp *interp, CrValue *t, const char *name, GError **error);
gboolean  cr_torch_tensor_setattr (CrInterp *interp, CrValue *t, const char *name, CrValue *value,
                                   GError **error);
/* t[index] and t[index] = v (index: int, slice, None, Ellipsis, tensor, list,
 * or a tuple of those). */
CrValue  *cr_torch_tensor_getitem (CrInterp *interp, CrValue *t, CrValue *index, GError **error);
gboolean  cr_torch_tensor_setitem (CrInterp *interp, CrValue *t, CrValue *index, CrValue *value,
                                   GError **error);
/* len(t), iterating over t (t[i] for i in range(len(t))). TypeError "len() of
 * a 0-d tensor" for 0-d. */
gboolean  cr_torch_tensor_len     (CrValue *t, gint64 *out_len, GError **error);
/* format(t, spec) for f"{t}" and f"{t:.4f}", as Tensor.__format__: a 0-d
 * tensor formats its item, also for an empty spec (f"{loss}" prints 2.0, not
 * tensor(2.)); a bigger tensor gives str(t) for "" and TypeError otherwise.
 * The interpreter calls it for every tensor in an f-string or format(). */
char     *cr_torch_tensor_format  (CrInterp *interp, CrValue *t, const char *spec, GError **error);
/* float(t), int(t), bool(t) go through cr_value_to_double etc. */
/* dir() of a tensor: PyTorch 1.13's names, sorted (static). */
const char *const *cr_torch_tensor_dir (guint *n_names);
/* item in t: (t == item).any(), as Tensor.__contains__: 1, 0, -1 with error. */
int       cr_torch_tensor_contains (CrInterp *interp, CrValue *t, CrValue *item, GError **error);
/* The name a tensor prints with, "tensor" or, as PyTorch's _str_intern
 * has it, the name of a script's subclass ("MyTensor([1., 2.])"); torch's
 * own subclasses (nn.Parameter) print as "tensor". Borrowed. */
const char *cr_torch_tensor_print_name (CrValue *tensor);
/* torch.Generator: the class of generators, which makes one when called
 * (borrowed; NULL when it cannot be made). */
CrValue  *cr_torch_generator_class (CrInterp *interp);
/* All of the above as torch.Tensor's type slots (cr-type-slots.h), which
 * the runtime calls. */
extern const struct _CrTypeSlots cr_torch_tensor_slots;

G_END_DECLS
