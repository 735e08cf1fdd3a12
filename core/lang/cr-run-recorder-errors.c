/* cr-run-recorder-errors.c — errors in the run record: the exception class
 * a traceback names, the operands of a failing expression (the tensor at
 * fault first), the in-place statement behind "modified by an inplace
 * operation", and which recording of an error is the one that ended the run
 * (see cr-run-recorder.h). */
#include "cr-run-recorder-private.h"

#include "cr-interp-private.h"

#include <string.h>

static const char INPLACE_MESSAGE[] = "modified by an inplace operation";

/* For "one of the variables needed for gradient computation has been
 * modified by an inplace operation": the saved tensor changed since it was
 * saved, the latest op (in record order) whose saved slot says so. */
static void
find_inplace_culprit (CrRunRecorder *r,
                      CrRecordError *err)
{
  /* The backward running fails at the first of its stale ops it reaches:
   * the latest made (the engine runs the newest node first). */
  int latest = -1;
  for (guint i = 0; i < r->stale_ops->len; i++)
    latest = MAX (latest, g_array_index (r->stale_ops, int, i));
  guint from = latest >= 0 ? (guint) latest + 1 : r->record->ops->len;
  for (guint i = from; i > 0; i--)
    {
      const CrRecordOp *op = g_ptr_array_index (r->record->ops, i - 1);
      for (guint k = 0; k < op->saved->len; k++)
        {
          const CrRecordSaved *saved = g_ptr_array_index (op->saved, k);
          if (saved->modified_span.line > 0)
            {
              err->culprit_span = saved->modified_span;
              if (err->op < 0)
                err->op = (int) op->id;
              if (err->tensor < 0)
                err->tensor = saved->tensor;
              return;
            }
        }
    }
}

/* error's exception class as the traceback names it: a class of the
 * script's (class MyError(ValueError)) by its own name, which the raise
 * statement left with the interpreter; else the builtin one of its code. */
static const char *
exception_class_name (CrInterp     *self,
                      const GError *error)
{
  if (self->exc_name && self->exc_name_owner == error)
    return self->exc_name;
  CrException code = error->domain == CR_LANG_ERROR || error->domain == CR_CORE_ERROR
                     ? (CrException) error->code : CR_EXC_RUNTIME_ERROR;
  if ((guint) code >= CR_EXC_COUNT)
    code = CR_EXC_RUNTIME_ERROR;
  return cr_exception_name (code);
}

/* The class an uncaught error's traceback names on its last line,
 * "MyError: message" (new string), or NULL when it does not end so. */
static char *
script_error_class_name (const CrScriptError *e)
{
  if (!e->traceback || !e->message)
    return NULL;
  g_autofree char *tail = e->message[0] ? g_strdup_printf (": %s\n", e->message) : g_strdup ("\n");
  if (!g_str_has_suffix (e->traceback, tail))
    return NULL;
  const char *end = e->traceback + strlen (e->traceback) - strlen (tail);
  const char *start = end;
  while (start > e->traceback && start[-1] != '\n')
    start--;
  return end > start ? g_strndup (start, (gsize) (end - start)) : NULL;
}

CrRecordError *
cr_run_recorder_error (CrInterp     *self,
                       const GError *error,
                       const CrSpan *span)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !error)
    return NULL;
  CrRecordError *err = cr_run_record_add_error (r->record);
  err->type = g_strdup (exception_class_name (self, error));
  err->message = g_strdup (error->message);
  err->span = span ? *span : cr_run_recorder_current_span (self);
  if (strstr (error->message, INPLACE_MESSAGE))
    find_inplace_culprit (r, err);
  return err;
}

void
cr_run_recorder_expr_failed (CrInterp        *self,
                             const CrAstNode *expr,
                             const GError    *error)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (r && expr && !self->in_prelude)
    cr_operand_watch_failed (r->operands, expr, error);
}

/* v's tensors, a list's or tuple's too (torch.cat([a, b])), into tensors. */
static void
add_tensors (GPtrArray *tensors,
             CrValue   *v)
{
  if (!v)
    return;
  if (v->kind == CR_VALUE_TENSOR)
    g_ptr_array_add (tensors, v->u.tensor);
  else if (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE)
    for (guint i = 0; i < cr_seq_len (v); i++)
      {
        CrValue *item = cr_seq_get (v, i);
        if (item && item->kind == CR_VALUE_TENSOR)
          g_ptr_array_add (tensors, item->u.tensor);
      }
}

void
cr_run_recorder_native_failed (CrInterp       *self,
                               CrValue        *bound_self,
                               CrValue *const *args,
                               guint           n_args,
                               const CrKwarg  *kwargs,
                               guint           n_kwargs,
                               const GError   *error)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !error || !self->in_prelude)
    return;
  g_autoptr (GPtrArray) tensors = g_ptr_array_new ();
  add_tensors (tensors, bound_self);
  for (guint i = 0; i < n_args; i++)
    add_tensors (tensors, args[i]);
  for (guint i = 0; i < n_kwargs; i++)
    add_tensors (tensors, kwargs[i].value);
  cr_operand_watch_native_failed (r->operands, tensors, error);
}

/* A forward error (no backward's) gets the operands of the expression that
 * raised it, when that is the failure last seen, or of the native op it
 * failed in inside library code; one the script never named (a constant
 * made in the expression) is called after its text. The first is the
 * tensor at fault, the node the window pins the error to. */
static void
add_operands (CrRunRecorder *r,
              CrRecordError *err)
{
  g_autoptr (GArray) operands = cr_operand_watch_take (r->operands, err->message);
  for (guint i = 0; operands && i < operands->len; i++)
    {
      const CrOperand *operand = &g_array_index (operands, CrOperand, i);
      int id = cr_run_recorder_tensor (r->interp, operand->tensor);
      CrRecordTensor *rec = cr_run_recorder_tensor_rec (r, id);
      if (!rec)
        continue;
      g_array_append_val (err->operands, id);
      if (!operand->expr)   /* a library native's the script never held: as recorded */
        continue;
      if (rec->span.line <= 0)
        rec->span = operand->expr->span;
      /* A constant a function of the script's got as its parameter x. */
      if (!rec->label && operand->expr->kind == CR_AST_NAME)
        rec->label = g_strdup (operand->expr->u.name.id);
      if (!rec->label && operand->expr->kind != CR_AST_NAME)
        {
          g_autofree char *text = cr_run_recorder_span_text (r->interp, &operand->expr->span);
          if (text)
            rec->label = g_strdup_printf ("(%s)", text);
        }
    }
  if (err->tensor < 0 && err->operands->len > 0)
    err->tensor = g_array_index (err->operands, int, 0);
}

/* The error the backward side recorded when the engine failed is the one
 * that then reaches the script: the same type and message as the last one
 * recorded, and that one stopped a backward call. */
static CrRecordError *
recorded_by_backward (CrRunRecorder *r,
                      const char    *type,
                      const char    *message)
{
  if (r->record->errors->len == 0)
    return NULL;
  CrRecordError *last = g_ptr_array_index (r->record->errors, r->record->errors->len - 1);
  if (last->backward < 0 || g_strcmp0 (last->message, message) != 0
      || g_strcmp0 (last->type, type) != 0)
    return NULL;
  return last;
}

void
cr_run_recorder_error_handled (CrInterp     *self,
                               const GError *error,
                               const CrSpan *span)
{
  CrRunRecorder *r = cr_run_recorder_of (self);
  if (!r || !error)
    return;
  CrRecordError *known = recorded_by_backward (r, exception_class_name (self, error),
                                               error->message);
  if (!known)
    add_operands (r, cr_run_recorder_error (self, error, span));
  else   /* a backward call's error: the call expression around it has no operands */
    cr_operand_watch_forget (r->operands);
}

void
cr_run_recorder_run_error (CrRunRecorder       *r,
                           const CrScriptError *e)
{
  /* The error ending the run may be recorded already: by the backward
   * side when the engine failed, or as handled by an except clause
   * that raised it again (same line). */
  CrRecordError *last = r->record->errors->len > 0
                        ? g_ptr_array_index (r->record->errors, r->record->errors->len - 1) : NULL;
  g_autofree char *type = script_error_class_name (e);
  if (!type)
    type = g_strdup (cr_exception_name (e->type));
  CrRecordError *known = recorded_by_backward (r, type, e->message);
  if (!known && last && last->span.line == e->span.line
      && g_strcmp0 (last->message, e->message) == 0
      && g_strcmp0 (last->type, type) == 0)
    known = last;
  if (known)
    {
      if (known->span.line <= 0)
        known->span = e->span;
    }
  else
    {
      g_autoptr (GError) error = g_error_new_literal (CR_LANG_ERROR, e->type, e->message);
      CrRecordError *err = cr_run_recorder_error (r->interp, error, &e->span);
      g_free (err->type);
      err->type = g_steal_pointer (&type);
      add_operands (r, err);
    }
}
