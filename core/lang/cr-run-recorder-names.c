/* cr-run-recorder-names.c — the names and provenance of the run record's
 * tensors: the name the script bound each to (a binding of data that needs
 * no grad waits until an op uses it), the label of an unnamed result, and
 * what a tensor without history was made from (detach(), .data, an op under
 * no_grad, a module called under no_grad), worked out from the expression
 * that made it.
 *
 * Each expression's tensor value leaves a hint under its AST node: its
 * record id, or the source of a tensor without history; the expression
 * around it reads the hints of its operands. */
#include "cr-run-recorder-names.h"
#include "cr-run-recorder-private.h"

#include "cr-grad-mode.h"
#include "cr-interp-private.h"

#include <string.h>

void
cr_tensor_binding_free (gpointer data)
{
  CrTensorBinding *b = data;
  g_free (b->name);
  g_free (b);
}

void
cr_run_recorder_note_binding (CrInterp   *self,
                              CrTensor   *t,
                              const char *name)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !t || !name)
    return;
  cr_run_recorder_settle_bumps (r);
  if (!t->requires_grad)
    {
      guint64 serial = cr_run_recorder_serial (r, t, TRUE);
      if (!g_hash_table_contains (r->serial_ids, GSIZE_TO_POINTER (serial))
          && !g_hash_table_contains (r->provenance, GSIZE_TO_POINTER (serial)))
        {
          if (!g_hash_table_contains (r->bindings, GSIZE_TO_POINTER (serial)))
            {
              CrTensorBinding *b = g_new0 (CrTensorBinding, 1);
              b->name = g_strdup (name);
              b->loops = cr_run_recorder_loop_path (self);
              b->span = cr_run_recorder_current_span (self);
              g_hash_table_insert (r->bindings, GSIZE_TO_POINTER (serial), b);
            }
          return;
        }
    }
  CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, cr_run_recorder_tensor (self, t));
  if (!rec || rec->name)
    return;
  CrLoopPath loops = cr_run_recorder_loop_path (self);
  cr_run_recorder_set_name (rec, name, &loops);
  if (rec->origin != CR_RECORD_TENSOR_RESULT)
    rec->span = cr_run_recorder_current_span (self);
}

/* The hint an expression's value left when it may be a source: a tensor
 * that requires grad or was made from one (a constant is no source, unless
 * it is what a value without history was made from); -1: none. */
static int
hint (CrRunRecorder   *r,
      const CrAstNode *expr)
{
  int id = expr ? cr_run_recorder_lookup_id (r->hints, expr) : -1;
  const CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
  if (!rec || (rec->origin == CR_RECORD_TENSOR_CONSTANT
               && !g_hash_table_contains (r->source_hints, expr)))
    return -1;
  return id;
}

/* pred = model(x) under no_grad: the module's input x (its first tensor
 * argument), which the script gave the call; -1: none. */
static int
module_input (CrRunRecorder   *r,
              const CrAstNode *call)
{
  for (guint i = 0; i < call->u.call.n_args; i++)
    {
      int id = hint (r, call->u.call.args[i]);
      if (id >= 0)
        return id;
      CrTensor *t = cr_operand_watch_recent (r->operands, call->u.call.args[i]);
      if (t)
        return cr_run_recorder_tensor (r->interp, t);
    }
  return -1;
}

/* Whether the statement running called a module (its parameters require
 * grad) since the region that turns recording off began. */
static gboolean
ran_module_call (CrRunRecorder *r)
{
  int region = cr_run_recorder_disabling_region (r);
  if (region < 0 || (guint) region >= r->region_calls->len)
    return FALSE;
  CrSpan here = cr_run_recorder_current_span (r->interp);
  GPtrArray *calls = r->record->module_calls;
  for (guint i = g_array_index (r->region_calls, guint, region); i < calls->len; i++)
    {
      const CrRecordModuleCall *call = g_ptr_array_index (calls, i);
      if (call->depth == 0 && call->span.line == here.line && here.line > 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_view_attribute (const char *attr)
{
  static const char *const views[] = { "T", "mT", "H", "mH", "real", "imag" };
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (strcmp (attr, views[i]) == 0)
      return TRUE;
  return FALSE;
}

/* What t, the value of expr, was made from when it has no history: the
 * tensor detach() / .data took it from, or under no_grad the first operand
 * that requires grad (or was itself made from one). */
static void
note_provenance (CrRunRecorder   *r,
                 CrTensor        *t,
                 const CrAstNode *expr)
{
  int source = -1;
  CrRecordTensorOrigin origin = CR_RECORD_TENSOR_NO_GRAD;
  const CrAstNode *object = NULL;
  if (expr->kind == CR_AST_ATTRIBUTE && strcmp (expr->u.attribute.attr, "data") == 0)
    object = expr->u.attribute.value;
  else if (expr->kind == CR_AST_CALL && expr->u.call.func->kind == CR_AST_ATTRIBUTE
           && (strcmp (expr->u.call.func->u.attribute.attr, "detach") == 0
               || strcmp (expr->u.call.func->u.attribute.attr, "detach_") == 0))
    object = expr->u.call.func->u.attribute.value;
  if (object && (source = hint (r, object)) >= 0)
    origin = CR_RECORD_TENSOR_DETACHED;
  else if (!cr_grad_mode_is_enabled ())
    {
      switch (expr->kind)
        {
        case CR_AST_BINOP:
          source = hint (r, expr->u.binop.left);
          if (source < 0)
            source = hint (r, expr->u.binop.right);
          break;
        case CR_AST_UNARYOP:
          source = hint (r, expr->u.unaryop.operand);
          break;
        case CR_AST_ATTRIBUTE:
          /* A view (w.T) is computed from w; w.grad is not. */
          if (is_view_attribute (expr->u.attribute.attr))
            source = hint (r, expr->u.attribute.value);
          break;
        case CR_AST_SUBSCRIPT:
          source = hint (r, expr->u.subscript.value);
          break;
        case CR_AST_CALL:
          if (expr->u.call.func->kind == CR_AST_ATTRIBUTE)
            source = hint (r, expr->u.call.func->u.attribute.value);
          for (guint i = 0; i < expr->u.call.n_args && source < 0; i++)
            source = hint (r, expr->u.call.args[i]);
          break;
        default:
          break;
        }
    }
  /* pred = model(x) under no_grad: the module's parameters made it, from
   * its input. */
  if (source < 0)
    {
      if (expr->kind != CR_AST_CALL || !ran_module_call (r))
        return;
      source = module_input (r, expr);
    }
  guint64 serial = cr_run_recorder_serial (r, t, TRUE);
  CrTensorProvenance *p = g_new0 (CrTensorProvenance, 1);
  p->origin = origin;
  p->source = source;
  p->region = origin == CR_RECORD_TENSOR_NO_GRAD ? cr_run_recorder_disabling_region (r) : -1;
  g_hash_table_insert (r->provenance, GSIZE_TO_POINTER (serial), p);
  /* Not recorded unless named or used: the expression around it reads its
   * source as its own. */
  if (source >= 0)
    {
      cr_run_recorder_insert_id (r->hints, (gpointer) expr, source);
      g_hash_table_add (r->source_hints, (gpointer) expr);
    }
}

void
cr_run_recorder_note_value (CrInterp        *self,
                            CrTensor        *t,
                            const CrAstNode *expr)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !t || !expr)
    return;
  cr_run_recorder_settle_bumps (r);
  cr_operand_watch_note (r->operands, self->frame ? self->frame->stmt : NULL, expr, t);
  g_hash_table_remove (r->source_hints, expr);
  if (t->requires_grad)
    {
      /* The op recorded now finds the operands it kept no edge to. */
      r->noting_expr = expr;
      r->noting_node = t->grad_fn;
      int id = cr_run_recorder_tensor (self, t);
      r->noting_expr = NULL;
      r->noting_node = NULL;
      cr_run_recorder_insert_id (r->hints, (gpointer) expr, id);
      CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
      /* A leaf is made by a call: torch.ones(3, requires_grad=True),
       * nn.Parameter(...) in a module's __init__. */
      if (rec && rec->span.line <= 0 && expr->kind == CR_AST_CALL)
        rec->span = cr_run_recorder_current_span (self);
      /* An unnamed result is called after the expression that made it,
       * with the iterations of the loops its op ran in: "(h * w)₂". */
      if (rec && !rec->label && rec->origin == CR_RECORD_TENSOR_RESULT && expr->kind != CR_AST_NAME)
        {
          /* Once per span, as captions: a loop makes it again at every iteration. */
          g_autofree char *text = cr_run_recorder_caption (r, &expr->span);
          if (text)
            cr_run_recorder_label_unnamed (r, rec, text);
        }
      return;
    }
  /* A tensor without history: known already, or made now from one. */
  guint64 serial = cr_run_recorder_serial (r, t, FALSE);
  int id = serial ? cr_run_recorder_lookup_id (r->serial_ids, GSIZE_TO_POINTER (serial)) : -1;
  if (id >= 0)
    {
      cr_run_recorder_insert_id (r->hints, (gpointer) expr, id);
      return;
    }
  g_hash_table_remove (r->hints, expr);
  if (expr->kind != CR_AST_NAME && expr->kind != CR_AST_CONSTANT)
    note_provenance (r, t, expr);
}
