/* cr-op-scalars-names.c — what the scalar view calls a tensor the script
 * never named: the name cr-record-names.h makes from the op that made it
 * ("x[:]", "log_softmax(x)", "lin.weight.T"), else, where that would run
 * long, which op made it and where, as the graph's pill for that op says:
 * "mul at line 6". */
#include "cr-op-scalars-private.h"

#include "cr-record-names.h"

#include <string.h>

char *
scalars_tensor_name (const CrRunRecord    *record,
                     const CrRecordTensor *t)
{
  g_autofree char *name = cr_record_tensor_made_name (record, t);
  if (name)
    return g_steal_pointer (&name);
  const CrRecordOp *op = t->op >= 0 && (guint) t->op < record->ops->len ? record->ops->pdata[t->op]
                                                                           : NULL;
  if (!op || !op->grad_fn)
    return g_strdup (t->label ? t->label : "?");
  /* As the graph's pill for the op: what it is, and its line. */
  g_autofree char *f = cr_record_op_function_name (op->grad_fn);
  return op->span.line ? g_strdup_printf ("%s at line %u", f, op->span.line) : g_steal_pointer (&f);
}
