/* cr-type-slots.h — what a value of a builtin type the runtime does not
 * know does in Python's protocol, as CPython's type slots: the runtime
 * (operators, items, attributes, len, format, dir) calls these and never the
 * type's own code. The torch layer fills one for torch.Tensor
 * (cr_torch_tensor_slots); CrInterp.tensor_slots points at it.
 *
 * Every slot takes and returns as the function it names in cr-torch.h:
 * new refs out, borrowed in, NULL (FALSE) with *error set on failure. */
#pragma once

#include "cr-value.h"
#include "cr-ast.h"

G_BEGIN_DECLS

typedef struct _CrTypeSlots {
  const char *name;
  /* v.name: AttributeError when absent. */
  CrValue  *(*getattr)    (CrInterp *interp, CrValue *v, const char *name, GError **error);
  /* v.name = value: FALSE without error when name is no member of the type. */
  gboolean  (*setattr)    (CrInterp *interp, CrValue *v, const char *name, CrValue *value,
                           GError **error);
  /* a OP b with a or b of the type: NULL without error when unsupported. */
  CrValue  *(*binary_op)  (CrInterp *interp, CrBinOp op, CrValue *a, CrValue *b, GError **error);
  /* a OP= b in place: FALSE without error when not in place. */
  gboolean  (*inplace_op) (CrInterp *interp, CrBinOp op, CrValue *a, CrValue *b, GError **error);
  CrValue  *(*unary_op)   (CrInterp *interp, CrUnOp op, CrValue *a, GError **error);
  /* a OP b, a rich comparison with a or b of the type. */
  CrValue  *(*compare)    (CrInterp *interp, CrCmpOp op, CrValue *a, CrValue *b, GError **error);
  /* item in v: 1, 0, or -1 with error. */
  int       (*contains)   (CrInterp *interp, CrValue *v, CrValue *item, GError **error);
  CrValue  *(*getitem)    (CrInterp *interp, CrValue *v, CrValue *index, GError **error);
  gboolean  (*setitem)    (CrInterp *interp, CrValue *v, CrValue *index, CrValue *value,
                           GError **error);
  /* len(v), also the number of items iteration takes with getitem. */
  gboolean  (*len)        (CrValue *v, gint64 *out_len, GError **error);
  /* format(v, spec) and f"{v:spec}". */
  char     *(*format)     (CrInterp *interp, CrValue *v, const char *spec, GError **error);
  /* dir(v)'s names, sorted (static). */
  const char *const *(*dir) (guint *n_names);
} CrTypeSlots;

G_END_DECLS
