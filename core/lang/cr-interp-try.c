/* cr-interp-try.c — try/except/else/finally and the bare `raise`.
 *
 * A raised exception is a GError whose code is the Python class; the
 * interpreter keeps, next to it, where it happened (the traceback entries and
 * the located node) and, for a raise statement, the instance raised. An
 * except clause turns the error into an instance of the class (or takes the
 * raised one), matches it along Python's class hierarchy, and forgets the
 * error. A cancelled run (the cancel flag set: an edit in the UI, --timeout)
 * is never caught, not even by a bare except, so that a script cannot keep
 * running after it was stopped.
 */
#include "cr-interp-private.h"

#include <string.h>

/* What the interpreter knows about one raised error, saved while a finally
 * block or a handler runs (they may raise and catch errors of their own). */
typedef struct {
  GError          *error;       /* owned (a handled exception) or borrowed (a pending one) */
  GArray          *traceback;   /* CrTracebackEntry */
  gboolean         has_traceback;
  const CrAstNode *err_node;
  char            *exc_name;
  CrValue         *exc_value;
  CrValue         *instance;    /* the exception being handled, for a bare raise */
  CrFrame         *frame;
} CrHandled;

static void
handled_free (CrHandled *h)
{
  if (!h)
    return;
  if (h->instance && h->error)
    g_error_free (h->error);
  g_clear_pointer (&h->traceback, g_array_unref);
  g_free (h->exc_name);
  cr_value_unref (h->exc_value);
  cr_value_unref (h->instance);
  g_free (h);
}

void
cr_interp_try_clear (CrInterp *self)
{
  g_clear_pointer (&self->handling, g_ptr_array_unref);
  self->exc_value_owner = NULL;
  g_clear_pointer (&self->exc_value, cr_value_unref);
}

/* Save the state that belongs to err; where it happened in frame f is the
 * located node, or the statement that was running. */
static CrHandled *
save_state (CrInterp *self,
            CrFrame  *f,
            GError   *err)
{
  CrHandled *h = g_new0 (CrHandled, 1);
  h->error = err;
  h->frame = f;
  if (self->traceback_owner == err)
    {
      h->traceback = g_array_copy (self->traceback);
      h->has_traceback = TRUE;
    }
  h->err_node = self->err_located ? self->err_node : f->stmt;
  if (self->exc_name_owner == err && self->exc_name)
    h->exc_name = g_strdup (self->exc_name);
  if (self->exc_value_owner == err && self->exc_value)
    h->exc_value = cr_value_ref (self->exc_value);
  return h;
}

/* Make err (maybe a new GError) the error the state h describes. */
static void
restore_state (CrInterp  *self,
               CrFrame   *f,
               CrHandled *h,
               GError    *err)
{
  g_array_set_size (self->traceback, 0);
  self->traceback_owner = NULL;
  if (h->has_traceback)
    {
      g_array_append_vals (self->traceback, h->traceback->data, h->traceback->len);
      self->traceback_owner = err;
    }
  self->err_located = h->frame == f;
  self->err_node = h->err_node;
  g_clear_pointer (&self->exc_name, g_free);
  self->exc_name_owner = NULL;
  if (h->exc_name)
    {
      self->exc_name = g_strdup (h->exc_name);
      self->exc_name_owner = err;
    }
  g_clear_pointer (&self->exc_value, cr_value_unref);
  self->exc_value_owner = NULL;
  if (h->exc_value)
    {
      self->exc_value = cr_value_ref (h->exc_value);
      self->exc_value_owner = err;
    }
}

/* Unhook the state that points at err, before it is freed (without
 * touching the located node, which may belong to another error). */
static void
drop_owner (CrInterp *self,
            GError   *err)
{
  if (self->traceback_owner == err)
    {
      g_array_set_size (self->traceback, 0);
      self->traceback_owner = NULL;
    }
  if (self->exc_name_owner == err)
    {
      g_clear_pointer (&self->exc_name, g_free);
      self->exc_name_owner = NULL;
    }
  if (self->exc_value_owner == err)
    {
      g_clear_pointer (&self->exc_value, cr_value_unref);
      self->exc_value_owner = NULL;
    }
}

/* Forget everything that points at err, before it is freed. */
static void
forget (CrInterp *self,
        GError   *err)
{
  if (self->traceback_owner == err)
    {
      g_array_set_size (self->traceback, 0);
      self->traceback_owner = NULL;
    }
  if (self->exc_name_owner == err)
    {
      g_clear_pointer (&self->exc_name, g_free);
      self->exc_name_owner = NULL;
    }
  if (self->exc_value_owner == err)
    {
      g_clear_pointer (&self->exc_value, cr_value_unref);
      self->exc_value_owner = NULL;
    }
  self->err_located = FALSE;
}

static gboolean
cancelled (CrInterp *self)
{
  const gint *flag = self->options.cancel_flag;
  return flag && g_atomic_int_get (flag) != 0;
}

static CrException
error_code (const GError *err)
{
  if ((err->domain == CR_LANG_ERROR || err->domain == CR_CORE_ERROR)
      && err->code >= 0 && err->code < CR_EXC_COUNT)
    return (CrException) err->code;
  return CR_EXC_RUNTIME_ERROR;
}

/* A KeyError's message is the repr of its key: get the key back for the
 * simple keys (a plain str or int), so that e.args is Python's. */
static CrValue *
key_from_repr (const char *text)
{
  gsize len = strlen (text);
  if (len >= 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0]
      && strchr (text, '\\') == NULL && memchr (text + 1, text[0], len - 2) == NULL)
    return cr_value_new_str_len (text + 1, len - 2);
  char *end = NULL;
  if (len > 0 && len < 19)
    {
      gint64 i = g_ascii_strtoll (text, &end, 10);
      if (end && *end == '\0')
        return cr_value_new_int (i);
    }
  return NULL;
}

/* The exception instance for err: the one a raise statement raised, or a
 * new instance of the builtin class with the message as its argument. */
static CrValue *
exception_instance (CrInterp *self,
                    GError   *err,
                    GError  **error)
{
  if (self->exc_value_owner == err && self->exc_value)
    return cr_value_ref (self->exc_value);
  CrException code = error_code (err);
  CrValue *cls = self->exc_classes[code];
  if (!cls)
    cls = self->exc_classes[CR_EXC_EXCEPTION];
  CrValue *arg = NULL;
  if (code == CR_EXC_KEY_ERROR)
    arg = key_from_repr (err->message);
  if (!arg && err->message[0])
    arg = cr_value_new_str (err->message);
  CrValue *inst = cr_interp_call (self, cls, arg ? &arg : NULL, arg ? 1 : 0, NULL, 0, error);
  cr_value_unref (arg);
  return inst;
}

static gboolean
is_exception_class (CrValue *v)
{
  return v->kind == CR_VALUE_CLASS && cr_class_lookup (v, "__cr_exc__") != NULL;
}

/* Whether the handler's type (a class or a tuple of classes) matches cls. */
static gboolean
matches (CrValue  *type,
         CrValue  *cls,
         gboolean *out,
         GError  **error)
{
  if (type->kind == CR_VALUE_TUPLE)
    {
      guint n = cr_seq_len (type);
      *out = FALSE;
      for (guint i = 0; i < n; i++)
        {
          CrValue *t = cr_seq_get (type, i);
          if (!is_exception_class (t))
            goto bad;
          if (!*out && cr_class_is_subclass (cls, t))
            *out = TRUE;
        }
      return TRUE;
    }
  if (!is_exception_class (type))
    goto bad;
  *out = cr_class_is_subclass (cls, type);
  return TRUE;
bad:
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "catching classes that do not inherit from BaseException is not allowed");
  return FALSE;
}

/* Where the error h describes was raised: the innermost line of the
 * script's own code it crossed (not the prelude's, torch.nn's source). */
static CrSpan
raised_at (CrInterp        *self,
           CrFrame         *f,
           const CrHandled *h)
{
  if (h->has_traceback)
    for (guint i = 0; i < h->traceback->len; i++)
      {
        const CrTracebackEntry *entry = &g_array_index (h->traceback, CrTracebackEntry, i);
        const CrAstNode *where = entry->node ? entry->node : entry->stmt;
        if (where && !(entry->scope && entry->scope->is_prelude))
          return where->span;
      }
  const CrAstNode *where = h->err_node ? h->err_node : f->stmt;
  return where ? where->span : (CrSpan) { 0 };
}

/* Run the handler that matches *pending, if any. Returns the status of the
 * try statement so far; *pending is the error still raised (NULL when
 * handled). */
static CrExecStatus
handle (CrInterp   *self,
        CrFrame    *f,
        CrAstNode  *s,
        GError    **pending)
{
  GError *err = *pending;
  CrHandled *h = save_state (self, f, err);
  CrValue *inst = exception_instance (self, err, NULL);
  CrExecStatus status = CR_EXEC_ERROR;
  const CrAstExceptHandler *chosen = NULL;

  if (!inst || inst->kind != CR_VALUE_INSTANCE)
    {
      cr_value_unref (inst);
      handled_free (h);
      return CR_EXEC_ERROR;
    }
  for (guint i = 0; i < s->u.try_stmt.n_handlers && !chosen; i++)
    {
      const CrAstExceptHandler *hd = &s->u.try_stmt.handlers[i];
      if (!hd->type)
        {
          chosen = hd;
          break;
        }
      GError *local = NULL;
      CrValue *type = cr_eval (self, f, hd->type, &local);
      gboolean hit = FALSE;
      gboolean ok = type && matches (type, inst->u.instance.cls, &hit, &local);
      cr_value_unref (type);
      if (!ok)
        {
          /* An error in the except clause replaces the one it handled. */
          forget (self, err);
          g_error_free (err);
          *pending = local;
          cr_interp_locate (self, hd->type);
          cr_value_unref (inst);
          handled_free (h);
          return CR_EXEC_ERROR;
        }
      if (hit)
        chosen = hd;
    }
  if (!chosen)
    {
      restore_state (self, f, h, err);
      cr_value_unref (inst);
      handled_free (h);
      return CR_EXEC_ERROR;
    }

  if (G_UNLIKELY (self->options.record_backward) && !self->in_prelude)
    {
      CrSpan span = raised_at (self, f, h);
      cr_binding.error_handled (self, err, &span);
    }
  /* Handled: the error lives on only for a bare raise in the handler. */
  forget (self, err);
  *pending = NULL;
  h->instance = inst;
  if (!self->handling)
    self->handling = g_ptr_array_new_with_free_func ((GDestroyNotify) handled_free);
  g_ptr_array_add (self->handling, h);
  if (chosen->name)
    cr_store_name (self, f, chosen->name, inst);
  status = cr_exec_block (self, f, chosen->body, chosen->n_body, pending);
  /* Python deletes the name at the end of the handler (`del e`). */
  if (chosen->name)
    cr_store_name (self, f, chosen->name, NULL);
  g_ptr_array_remove_index (self->handling, self->handling->len - 1);
  return status;
}

CrExecStatus
cr_exec_try (CrInterp   *self,
             CrFrame    *f,
             CrAstNode  *s,
             GError    **error)
{
  GError *pending = NULL;
  CrExecStatus status = cr_exec_block (self, f, s->u.try_stmt.body, s->u.try_stmt.n_body,
                                       &pending);

  if (status == CR_EXEC_ERROR)
    {
      if (pending && s->u.try_stmt.n_handlers > 0 && !cancelled (self))
        status = handle (self, f, s, &pending);
    }
  else if (status == CR_EXEC_OK && s->u.try_stmt.n_orelse > 0)
    status = cr_exec_block (self, f, s->u.try_stmt.orelse, s->u.try_stmt.n_orelse, &pending);

  if (s->u.try_stmt.n_finalbody > 0)
    {
      CrHandled *saved = pending ? save_state (self, f, pending) : NULL;
      GError *inner = NULL;
      CrExecStatus fs = cr_exec_block (self, f, s->u.try_stmt.finalbody,
                                       s->u.try_stmt.n_finalbody, &inner);
      if (fs != CR_EXEC_OK)
        {
          /* return, break, continue or an error in finally replaces what
           * was pending (an error included, as in Python). */
          if (pending)
            {
              drop_owner (self, pending);
              g_error_free (pending);
              pending = NULL;
            }
          status = fs;
          pending = inner;
        }
      else if (saved)
        restore_state (self, f, saved, pending);
      handled_free (saved);
    }
  if (pending)
    g_propagate_error (error, pending);
  return status;
}

CrExecStatus
cr_exec_reraise (CrInterp  *self,
                 CrFrame   *f,
                 GError   **error)
{
  CrHandled *h = self->handling->pdata[self->handling->len - 1];
  GError *err = g_error_copy (h->error);
  restore_state (self, f, h, err);
  if (!self->exc_value)
    {
      self->exc_value = cr_value_ref (h->instance);
      self->exc_value_owner = err;
    }
  if (error)
    g_propagate_error (error, err);
  else
    {
      forget (self, err);
      g_error_free (err);
    }
  return CR_EXEC_ERROR;
}
