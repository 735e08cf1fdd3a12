/* cr-run-recorder-operands.c — the tensors a failing expression was given
 * (see the header).
 *
 * The values kept are those of the statement running only: the ring is
 * emptied when a tensor of another statement is noted, so a loop over big
 * tensors keeps no extra one alive for long. */
#include "cr-run-recorder-operands.h"

#include <string.h>

/* More than any one expression has operands, nested ones included. */
#define RECENT_VALUES 16

typedef struct {
  const CrAstNode *expr;
  CrTensor        *tensor;   /* owned ref */
} Recent;

struct _CrOperandWatch {
  Recent            recent[RECENT_VALUES];
  guint             n_recent;      /* noted so far in this statement; the ring's next
                                    * slot is n_recent % RECENT_VALUES */
  const CrAstNode  *statement;     /* of the values in the ring */
  gconstpointer     failed_error;  /* the error of the failure kept, compared only */
  char             *failed_message;
  GArray           *operands;      /* of CrOperand: the failure's operands */
  gconstpointer     native_error;  /* a library native's failure, compared only */
  char             *native_message;
  GArray           *native_operands; /* of CrOperand (expr NULL): what it was given */
};

static void
operand_clear (gpointer data)
{
  CrOperand *operand = data;
  g_clear_pointer (&operand->tensor, cr_tensor_unref);
}

static GArray *
operands_new (void)
{
  GArray *operands = g_array_new (FALSE, FALSE, sizeof (CrOperand));
  g_array_set_clear_func (operands, operand_clear);
  return operands;
}

CrOperandWatch *
cr_operand_watch_new (void)
{
  CrOperandWatch *self = g_new0 (CrOperandWatch, 1);
  self->operands = operands_new ();
  self->native_operands = operands_new ();
  return self;
}

static void
forget_recent (CrOperandWatch *self)
{
  for (guint i = 0; i < MIN (self->n_recent, RECENT_VALUES); i++)
    g_clear_pointer (&self->recent[i].tensor, cr_tensor_unref);
  self->n_recent = 0;
  self->statement = NULL;
}

static void
forget_failure (CrOperandWatch *self)
{
  self->failed_error = NULL;
  g_clear_pointer (&self->failed_message, g_free);
  g_array_set_size (self->operands, 0);
}

static void
forget_native (CrOperandWatch *self)
{
  self->native_error = NULL;
  g_clear_pointer (&self->native_message, g_free);
  g_array_set_size (self->native_operands, 0);
}

void
cr_operand_watch_forget (CrOperandWatch *self)
{
  forget_failure (self);
  forget_native (self);
}

void
cr_operand_watch_clear (CrOperandWatch *self)
{
  if (!self)
    return;
  forget_recent (self);
  forget_failure (self);
  forget_native (self);
}

void
cr_operand_watch_free (CrOperandWatch *self)
{
  if (!self)
    return;
  cr_operand_watch_clear (self);
  g_array_unref (self->operands);
  g_array_unref (self->native_operands);
  g_free (self);
}

void
cr_operand_watch_note (CrOperandWatch  *self,
                       const CrAstNode *statement,
                       const CrAstNode *expr,
                       CrTensor        *t)
{
  if (statement != self->statement)
    {
      forget_recent (self);
      forget_native (self);
      self->statement = statement;
    }
  Recent *slot = &self->recent[self->n_recent % RECENT_VALUES];
  g_clear_pointer (&slot->tensor, cr_tensor_unref);
  slot->expr = expr;
  slot->tensor = cr_tensor_ref (t);
  self->n_recent++;
}

CrTensor *
cr_operand_watch_recent (CrOperandWatch  *self,
                         const CrAstNode *expr)
{
  guint kept = MIN (self->n_recent, RECENT_VALUES);
  for (guint k = 0; k < kept; k++)
    {
      const Recent *r = &self->recent[(self->n_recent - 1 - k) % RECENT_VALUES];
      if (r->expr == expr)
        return r->tensor;
    }
  return NULL;
}

static CrTensor *
recent_value (CrOperandWatch  *self,
              const CrAstNode *expr)
{
  return cr_operand_watch_recent (self, expr);
}

/* The expression of this statement whose value was t, or with or_view a
 * view of t (the latest such), NULL: none kept. */
static const CrAstNode *
recent_expr_of (CrOperandWatch *self,
                const CrTensor *t,
                gboolean        or_view)
{
  guint kept = MIN (self->n_recent, RECENT_VALUES);
  for (guint k = 0; k < kept; k++)
    {
      const Recent *r = &self->recent[(self->n_recent - 1 - k) % RECENT_VALUES];
      const CrTensor *base = r->tensor;
      while (or_view && base && base->view_base)
        base = base->view_base;
      if (r->tensor == t || base == t)
        return r->expr;
    }
  return NULL;
}

const CrAstNode *
cr_operand_watch_expr_of (CrOperandWatch *self,
                          const CrTensor *t)
{
  return recent_expr_of (self, t, FALSE);
}

static void
add_operand (CrOperandWatch  *self,
             const CrAstNode *expr)
{
  if (!expr)
    return;
  /* torch.cat([a, b]), f(*ts): the tensors inside. */
  if (expr->kind == CR_AST_STARRED)
    expr = expr->u.starred.value;
  if (expr->kind == CR_AST_LIST || expr->kind == CR_AST_TUPLE)
    {
      for (guint i = 0; i < expr->u.seq.n_elts; i++)
        if (expr->u.seq.elts[i]->kind != CR_AST_LIST && expr->u.seq.elts[i]->kind != CR_AST_TUPLE)
          add_operand (self, expr->u.seq.elts[i]);
      return;
    }
  CrTensor *t = recent_value (self, expr);
  if (!t)
    return;
  /* x * x names x once. */
  for (guint i = 0; i < self->operands->len; i++)
    if (g_array_index (self->operands, CrOperand, i).tensor == t)
      return;
  CrOperand operand = { cr_tensor_ref (t), expr };
  g_array_append_val (self->operands, operand);
}

void
cr_operand_watch_failed (CrOperandWatch  *self,
                         const CrAstNode *expr,
                         const GError    *error)
{
  if (!error)
    return;
  /* The expressions around the first one fail with the same error. */
  if (self->failed_error == (gconstpointer) error
      && g_strcmp0 (self->failed_message, error->message) == 0)
    return;
  forget_failure (self);
  self->failed_error = error;
  self->failed_message = g_strdup (error->message);
  /* A call into library code that failed in a native: that op's operands. */
  if (self->native_message && strcmp (self->native_message, error->message) == 0)
    {
      GArray *operands = self->operands;
      self->operands = self->native_operands;
      self->native_operands = operands;
      forget_native (self);
      /* One the statement's code gave (the module's input) is called after
       * that expression. */
      for (guint i = 0; i < self->operands->len; i++)
        {
          CrOperand *operand = &g_array_index (self->operands, CrOperand, i);
          operand->expr = recent_expr_of (self, operand->tensor, TRUE);
        }
      return;
    }
  forget_native (self);
  switch (expr->kind)
    {
    case CR_AST_BINOP:
      add_operand (self, expr->u.binop.left);
      add_operand (self, expr->u.binop.right);
      break;
    case CR_AST_UNARYOP:
      add_operand (self, expr->u.unaryop.operand);
      break;
    case CR_AST_COMPARE:
      add_operand (self, expr->u.compare.left);
      for (guint i = 0; i < expr->u.compare.n_comparators; i++)
        add_operand (self, expr->u.compare.comparators[i]);
      break;
    case CR_AST_CALL:
      /* x.matmul(w): the receiver first. */
      if (expr->u.call.func->kind == CR_AST_ATTRIBUTE)
        add_operand (self, expr->u.call.func->u.attribute.value);
      for (guint i = 0; i < expr->u.call.n_args; i++)
        add_operand (self, expr->u.call.args[i]);
      for (guint i = 0; i < expr->u.call.n_keywords; i++)
        add_operand (self, expr->u.call.keywords[i].value);
      break;
    case CR_AST_SUBSCRIPT:
      add_operand (self, expr->u.subscript.value);
      add_operand (self, expr->u.subscript.index);
      break;
    case CR_AST_ATTRIBUTE:
      add_operand (self, expr->u.attribute.value);
      break;
    case CR_AST_AUGASSIGN:   /* w -= lr * w.grad: w, then what it is changed by */
      add_operand (self, expr->u.augassign.target);
      add_operand (self, expr->u.augassign.value);
      break;
    default:
      break;
    }
}

/* digits, as a whole number in text: "3x2" in "(1x4 and 3x2)", not in "13x2". */
static gboolean
has_token (const char *text,
           const char *token)
{
  gsize n = strlen (token);
  for (const char *at = strstr (text, token); at; at = strstr (at + 1, token))
    if ((at == text || !g_ascii_isdigit (at[-1])) && !g_ascii_isdigit (at[n]))
      return TRUE;
  return FALSE;
}

/* The message quotes t's shape as PyTorch writes it in errors: "1x4" (mm)
 * or "[1, 4]". Matrices and up only: a vector's "3" is in most messages. */
static gboolean
shape_quoted (const CrTensor *t,
              const char     *message)
{
  if (t->ndim < 2)
    return FALSE;
  g_autoptr (GString) by_x = g_string_new (NULL);
  g_autoptr (GString) listed = g_string_new ("[");
  for (int d = 0; d < t->ndim; d++)
    {
      g_string_append_printf (by_x, d ? "x%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
      g_string_append_printf (listed, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->shape[d]);
    }
  g_string_append_c (listed, ']');
  return has_token (message, by_x->str) || strstr (message, listed->str) != NULL;
}

void
cr_operand_watch_native_failed (CrOperandWatch *self,
                                GPtrArray      *tensors,
                                const GError   *error)
{
  if (!error || !tensors)
    return;
  /* The natives around the first (a module's __call__) fail with the same error. */
  if (self->native_error == (gconstpointer) error
      && g_strcmp0 (self->native_message, error->message) == 0)
    return;
  forget_native (self);
  self->native_error = error;
  self->native_message = g_strdup (error->message);
  gboolean any_quoted = FALSE;
  for (guint i = 0; i < tensors->len; i++)
    any_quoted |= shape_quoted (tensors->pdata[i], error->message);
  for (guint i = 0; i < tensors->len; i++)
    {
      CrTensor *t = tensors->pdata[i];
      if (any_quoted && !shape_quoted (t, error->message))
        continue;
      while (t->view_base)
        t = t->view_base;
      gboolean known = FALSE;
      for (guint k = 0; k < self->native_operands->len && !known; k++)
        known = g_array_index (self->native_operands, CrOperand, k).tensor == t;
      if (known)
        continue;
      CrOperand operand = { cr_tensor_ref (t), NULL };
      g_array_append_val (self->native_operands, operand);
    }
}

GPtrArray *
cr_operand_watch_operands_of (CrOperandWatch  *self,
                              const CrAstNode *expr)
{
  GPtrArray *values = g_ptr_array_new ();
  switch (expr->kind)
    {
    case CR_AST_BINOP:
      g_ptr_array_add (values, recent_value (self, expr->u.binop.left));
      g_ptr_array_add (values, recent_value (self, expr->u.binop.right));
      break;
    case CR_AST_UNARYOP:
      g_ptr_array_add (values, recent_value (self, expr->u.unaryop.operand));
      break;
    case CR_AST_CALL:
      if (expr->u.call.func->kind == CR_AST_ATTRIBUTE)
        g_ptr_array_add (values, recent_value (self, expr->u.call.func->u.attribute.value));
      for (guint i = 0; i < expr->u.call.n_args; i++)
        g_ptr_array_add (values, recent_value (self, expr->u.call.args[i]));
      break;
    default:
      break;
    }
  return values;
}

GArray *
cr_operand_watch_take (CrOperandWatch *self,
                       const char     *message)
{
  GArray *operands = NULL;
  if (self->failed_message && g_strcmp0 (self->failed_message, message) == 0)
    {
      operands = self->operands;
      self->operands = operands_new ();
    }
  forget_failure (self);
  return operands;
}
