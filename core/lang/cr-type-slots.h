/* cr-type-slots.h — what a value of a builtin type the runtime does not
 * know does in Python's protocol, as CPython's type slots: the runtime
 * (operators, items, attributes, len, format, dir) calls these and never the
 * type's own code. The torch layer fills one for torch.Tensor and hands
 * it over in its CrBinding (cr-binding.h); CrInterp.tensor_slots points
 * at it, and cr_value_slots finds it where no interpreter is at hand.
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

  /* ---- what the runtime's own builtins need of a value it holds only as
   * a handle (v->u.tensor is opaque to the runtime) ---- */
  /* Drops the payload's reference: the value is being freed. */
  void      (*free_payload) (CrValue *v);
  /* The address that is the object's identity: id(), `is` between two
   * values that wrap it, hashing (PyTorch hashes tensors by identity). */
  gconstpointer (*identity) (CrValue *v);
  /* repr(v) with the run's print options (interp NULL: the defaults);
   * new string. A script subclass's own __repr__ is the runtime's job. */
  char     *(*repr)       (CrInterp *interp, CrValue *v);
  /* bool(v), `if v:` (RuntimeError when ambiguous). */
  gboolean  (*truthy)     (CrValue *v, gboolean *out, GError **error);
  /* float(v) */
  gboolean  (*to_double)  (CrValue *v, double *out, GError **error);
  /* int(v) when the value is integral (TRUE), or FALSE without error when
   * int() should truncate its to_double instead; FALSE with error. */
  gboolean  (*to_int)     (CrValue *v, gint64 *out, GError **error);
  /* operator.index(v) (list indices, range bounds): FALSE when not one. */
  gboolean  (*as_index)   (CrValue *v, gint64 *out);
  /* Where the object keeps what cr-object.c adds (its script class, its
   * own attributes): created when create, else NULL when none yet. */
  CrObjectExtra *(*extra) (CrValue *v, gboolean create);
  /* type(v) of a value of no script class (borrowed, NULL: not known yet). */
  CrValue  *(*type)       (CrInterp *interp, CrValue *v);
  /* builtins abs() and round(x) (NULL: TypeError as for any object). */
  CrValue  *(*abs)        (CrInterp *interp, CrValue *v, GError **error);
  CrValue  *(*round)      (CrInterp *interp, CrValue *v, GError **error);
  /* How many items `for x in v` takes with getitem (TypeError when v
   * cannot be iterated). */
  gboolean  (*iter_len)   (CrValue *v, gint64 *out_len, GError **error);
} CrTypeSlots;

G_END_DECLS
