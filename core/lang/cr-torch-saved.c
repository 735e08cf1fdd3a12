/* cr-torch-saved.c — grad_fn._saved_self and its kind: what a node saved
 * for backward, under PyTorch 1.13's attribute names (MulBackward0's
 * _saved_self / _saved_other, ExpBackward0's _saved_result, ...). A slot the
 * op did not need is None, as in PyTorch; one a backward freed is PyTorch's
 * "Trying to backward through the graph a second time" error. */
#include "cr-torch-private.h"
#include "cr-node.h"

#include <string.h>

typedef struct {
  CrOpId      op;
  const char *name;    /* without the _saved_ prefix */
  int         slot;    /* a saved tensor's slot; -1: args->scalar[0] */
} SavedName;

static const SavedName saved_names[] = {
  { CR_OP_MUL, "self", 0 }, { CR_OP_MUL, "other", 1 },
  { CR_OP_DIV, "self", 0 }, { CR_OP_DIV, "other", 1 },
  { CR_OP_MAXIMUM, "self", 0 }, { CR_OP_MAXIMUM, "other", 1 },
  { CR_OP_MINIMUM, "self", 0 }, { CR_OP_MINIMUM, "other", 1 },
  { CR_OP_WHERE, "condition", 0 },
  { CR_OP_POW_SCALAR, "self", 0 }, { CR_OP_POW_SCALAR, "exponent", -1 },
  { CR_OP_POW, "self", 0 }, { CR_OP_POW, "exponent", 1 }, { CR_OP_POW, "result", 2 },
  { CR_OP_MM, "self", 0 }, { CR_OP_MM, "mat2", 1 },
  { CR_OP_BMM, "self", 0 }, { CR_OP_BMM, "mat2", 1 },
  { CR_OP_MV, "self", 0 }, { CR_OP_MV, "vec", 1 },
  { CR_OP_DOT, "self", 0 }, { CR_OP_DOT, "tensor", 1 },
  { CR_OP_ADDMM, "mat1", 0 }, { CR_OP_ADDMM, "mat2", 1 },
  { CR_OP_ADDCMUL, "tensor1", 0 }, { CR_OP_ADDCMUL, "tensor2", 1 },
  { CR_OP_ADDCMUL, "value", 2 },
  { CR_OP_ADDCDIV, "tensor1", 0 }, { CR_OP_ADDCDIV, "tensor2", 1 },
  { CR_OP_ADDCDIV, "value", 2 },
};

/* The rows of core/cr-unary-ops.def come after CR_OP_LIST's. */
#define COUNT_ONE(name) + 1
static const int first_unary_op = 0 CR_OP_LIST (COUNT_ONE);
#undef COUNT_ONE

/* A number as PyTorch shows a Scalar: 2 for an integral exponent, else 2.5. */
static CrValue *
scalar_value (double v)
{
  if (v == (double) (gint64) v && v > -1e15 && v < 1e15)
    return cr_value_new_int ((gint64) v);
  return cr_value_new_float (v);
}

static CrValue *
saved_slot (CrNode     *node,
            int         slot,
            gboolean    as_scalar,
            GError    **error)
{
  if ((guint) slot >= node->n_saved || !node->saved[slot].was_saved)
    return cr_value_none ();
  CrTensor *t = cr_node_get_saved (node, slot, error);
  if (t == NULL)
    return NULL;
  if (as_scalar)
    {
      /* addcmul's value, kept as a 0-d wrapped number. */
      CrValue *v = t->dtype == CR_DTYPE_INT64 ? cr_value_new_int (cr_tensor_get_flat_int (t, 0))
                                              : cr_value_new_float (cr_tensor_get_flat (t, 0));
      cr_tensor_unref (t);
      return v;
    }
  return cr_value_new_tensor_take (t);
}

CrValue *
cr_torch_node_saved_attr (CrNode      *node,
                          const char  *name,
                          gboolean    *found,
                          GError     **error)
{
  const char *key;

  *found = FALSE;
  if (!g_str_has_prefix (name, "_saved_") || node->op == NULL)
    return NULL;
  key = name + strlen ("_saved_");

  for (guint i = 0; i < G_N_ELEMENTS (saved_names); i++)
    if (saved_names[i].op == node->op->id && strcmp (saved_names[i].name, key) == 0)
      {
        *found = TRUE;
        if (saved_names[i].slot < 0)
          return node->args->has_scalar[0] ? scalar_value (node->args->scalar[0])
                                           : cr_value_none ();
        return saved_slot (node, saved_names[i].slot, strcmp (key, "value") == 0, error);
      }

  /* An elementwise function of one tensor saves its input (_saved_self)
   * or its output (_saved_result) in slot 0. */
  if (node->op->arity == 1 && (int) node->op->id >= first_unary_op && node->n_saved > 0
      && node->saved[0].was_saved
      && strcmp (key, node->saved[0].is_output ? "result" : "self") == 0)
    {
      *found = TRUE;
      return saved_slot (node, 0, FALSE, error);
    }
  return NULL;
}
