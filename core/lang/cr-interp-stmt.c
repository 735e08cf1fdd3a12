/* cr-interp-stmt.c — running statements: assignments, control flow, def and
 * class, with, import, assert, raise, del. */
#include "cr-interp-private.h"

#include <string.h>

static CrExecStatus exec_stmt (CrInterp *self, CrFrame *f, CrAstNode *s, GError **error);

/* Binds a name that no CR_AST_NAME node carries (import, def, class,
 * except ... as); value NULL unbinds it. */
void
cr_store_name (CrInterp   *self,
               CrFrame    *f,
               const char *name,
               CrValue    *value)
{
  CrValue **slot = NULL;
  if (f->class_ns)
    {
      if (value)
        g_hash_table_insert (f->class_ns, g_strdup (name), cr_value_ref (value));
      else
        g_hash_table_remove (f->class_ns, name);
      return;
    }
  CrCode *code = f->code;
  if (code->node)
    {
      for (guint i = 0; i < code->n_cells && !slot; i++)
        if (strcmp (code->cell_names[i], name) == 0)
          slot = &f->cells[i]->value;
      for (guint i = 0; i < code->n_locals && !slot; i++)
        if (strcmp (code->local_names[i], name) == 0)
          slot = &f->locals[i];
      for (guint i = 0; i < code->n_free && !slot; i++)
        if (strcmp (code->free_names[i], name) == 0)
          slot = &f->closure[i]->value;
    }
  if (!slot)
    {
      int g = cr_program_global_lookup (self->program, name);
      if (g < 0)
        {
          /* A prelude module exports what it imports (functional.py's natives). */
          if (self->scope && self->scope->namespace && value)
            cr_value_set_member (self->scope->namespace, name, value);
          return;
        }
      slot = &self->globals[g].value;
    }
  CrValue *old = *slot;
  *slot = value ? cr_value_ref (value) : NULL;
  cr_value_unref (old);
}

/* ---- loops ------------------------------------------------------------------------------ */

static CrExecStatus
exec_for (CrInterp  *self,
          CrFrame   *f,
          CrAstNode *s,
          GError   **error)
{
  CrValue *seq = cr_eval (self, f, s->u.for_stmt.iter, error);
  if (!seq)
    return CR_EXEC_ERROR;
  CrIter it;
  gboolean ok = cr_iter_init (self, &it, seq, error);
  cr_value_unref (seq);
  if (!ok)
    {
      cr_interp_locate (self, s->u.for_stmt.iter);
      return CR_EXEC_ERROR;
    }

  CrExecStatus status = CR_EXEC_OK;
  gboolean broke = FALSE;
  guint outer_iteration = f->loop_iteration;
  /* The prelude's own loops (nn.Sequential's) are no iteration of the
   * script's: the caller's loop counts. */
  guint slot = f->loop_depth;
  if (!self->in_prelude)
    f->loop_depth++;
  for (guint iteration = 1;; iteration++)
    {
      CrValue *item;
      f->stmt = s;
      f->loop_iteration = self->in_prelude ? 0 : iteration;
      if (!self->in_prelude && slot < CR_FRAME_LOOP_PATH)
        f->loop_path[slot] = iteration;
      if (G_UNLIKELY (!cr_interp_check_cancel (self, error)))
        {
          status = CR_EXEC_ERROR;
          break;
        }
      int r = cr_iter_next (self, &it, &item, error);
      if (r == 0)
        break;
      if (r < 0)
        {
          /* Python points at the whole line, not at the iterable. */
          cr_interp_locate (self, s);
          status = CR_EXEC_ERROR;
          break;
        }
      ok = cr_store_target (self, f, s->u.for_stmt.target, item, error);
      cr_value_unref (item);
      if (!ok)
        {
          status = CR_EXEC_ERROR;
          break;
        }
      status = cr_exec_block (self, f, s->u.for_stmt.body, s->u.for_stmt.n_body, error);
      if (status == CR_EXEC_BREAK)
        {
          broke = TRUE;
          status = CR_EXEC_OK;
          break;
        }
      if (status == CR_EXEC_CONTINUE)
        status = CR_EXEC_OK;
      if (status != CR_EXEC_OK)
        break;
    }
  cr_iter_clear (&it);
  f->loop_iteration = outer_iteration;
  f->loop_depth = slot;
  if (status == CR_EXEC_OK && !broke && s->u.for_stmt.n_orelse)
    status = cr_exec_block (self, f, s->u.for_stmt.orelse, s->u.for_stmt.n_orelse, error);
  return status;
}

static CrExecStatus
exec_while_loop (CrInterp  *self,
                 CrFrame   *f,
                 CrAstNode *s,
                 guint      outer_iteration,
                 GError   **error)
{
  for (guint iteration = 1;; iteration++)
    {
      f->stmt = s;
      f->loop_iteration = self->in_prelude ? 0 : iteration;
      if (!self->in_prelude && f->loop_depth - 1 < CR_FRAME_LOOP_PATH)
        f->loop_path[f->loop_depth - 1] = iteration;
      if (G_UNLIKELY (!cr_interp_check_cancel (self, error)))
        return CR_EXEC_ERROR;
      CrValue *test = cr_eval (self, f, s->u.while_stmt.test, error);
      if (!test)
        return CR_EXEC_ERROR;
      gboolean t;
      gboolean ok = cr_value_truthy (self, test, &t, error);
      cr_value_unref (test);
      if (!ok)
        {
          cr_interp_locate (self, s->u.while_stmt.test);
          return CR_EXEC_ERROR;
        }
      if (!t)
        break;
      CrExecStatus status = cr_exec_block (self, f, s->u.while_stmt.body,
                                           s->u.while_stmt.n_body, error);
      if (status == CR_EXEC_BREAK)
        return CR_EXEC_OK;
      if (status == CR_EXEC_CONTINUE || status == CR_EXEC_OK)
        continue;
      return status;
    }
  f->loop_iteration = outer_iteration;
  if (s->u.while_stmt.n_orelse)
    return cr_exec_block (self, f, s->u.while_stmt.orelse, s->u.while_stmt.n_orelse, error);
  return CR_EXEC_OK;
}

/* The loop, with the frame's loop iteration (the run record's) back as it
 * was however it ends. */
static CrExecStatus
exec_while (CrInterp  *self,
            CrFrame   *f,
            CrAstNode *s,
            GError   **error)
{
  guint outer_iteration = f->loop_iteration;
  guint slot = f->loop_depth;
  if (!self->in_prelude)
    f->loop_depth++;
  CrExecStatus status = exec_while_loop (self, f, s, outer_iteration, error);
  f->loop_iteration = outer_iteration;
  f->loop_depth = slot;
  return status;
}

/* ---- with ---------------------------------------------------------------------------------- */

static CrExecStatus
exec_with_item (CrInterp  *self,
                CrFrame   *f,
                CrAstNode *s,
                guint      k,
                GError   **error)
{
  const CrAstWithItem *item = &s->u.with_stmt.items[k];
  CrValue *ctx = cr_eval (self, f, item->context_expr, error);
  if (!ctx)
    return CR_EXEC_ERROR;

  CrValue *as_value = NULL;
  CrValue *exit_method = NULL;
  gboolean entered = FALSE;
  if (ctx->kind == CR_VALUE_OBJECT && ctx->u.object.type->enter)
    entered = ctx->u.object.type->enter (self, ctx, &as_value, error);
  else if (ctx->kind == CR_VALUE_INSTANCE && cr_instance_method (ctx, "__enter__")
           && (exit_method = cr_instance_method (ctx, "__exit__")))
    {
      as_value = cr_interp_call_method (self, ctx, cr_instance_method (ctx, "__enter__"),
                                        NULL, 0, error);
      entered = as_value != NULL;
    }
  else
    cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                         "'%s' object does not support the context manager protocol",
                         cr_value_type_name (ctx));
  if (!entered)
    {
      cr_interp_locate (self, item->context_expr);
      cr_value_unref (as_value);
      cr_value_unref (ctx);
      return CR_EXEC_ERROR;
    }

  CrExecStatus status = CR_EXEC_OK;
  if (item->optional_vars)
    {
      if (!cr_store_target (self, f, item->optional_vars,
                            as_value ? as_value : cr_value_none (), error))
        status = CR_EXEC_ERROR;
    }
  cr_value_unref (as_value);
  if (status == CR_EXEC_OK)
    {
      if (k + 1 < s->u.with_stmt.n_items)
        status = exec_with_item (self, f, s, k + 1, error);
      else
        status = cr_exec_block (self, f, s->u.with_stmt.body, s->u.with_stmt.n_body, error);
    }

  /* __exit__ runs whatever happened in the body; where the body failed is
   * kept across it. */
  GError *exit_error = NULL;
  gboolean located = self->err_located;
  const CrAstNode *err_node = self->err_node;
  if (ctx->kind == CR_VALUE_OBJECT)
    {
      if (ctx->u.object.type->exit)
        ctx->u.object.type->exit (self, ctx, &exit_error);
    }
  else
    {
      CrValue *args[3] = { cr_value_none (), cr_value_none (), cr_value_none () };
      if (status == CR_EXEC_ERROR && error && *error)
        {
          CrValue *inst = cr_interp_exception_instance (self, (CrException) (*error)->code,
                                                        (*error)->message);
          if (inst)
            {
              args[0] = cr_value_ref (inst->u.instance.cls);
              args[1] = inst;
            }
        }
      CrValue *r = cr_interp_call_method (self, ctx, exit_method, args, 3, &exit_error);
      if (r && status == CR_EXEC_ERROR)
        {
          gboolean suppress = FALSE;
          cr_value_truthy (self, r, &suppress, NULL);
          if (suppress)
            {
              g_clear_error (error);
              cr_interp_forget_error (self);
              status = CR_EXEC_OK;
            }
        }
      cr_value_unref (r);
      cr_value_unref (args[0]);
      cr_value_unref (args[1]);
    }
  self->err_located = located;
  self->err_node = err_node;
  if (exit_error)
    {
      if (status == CR_EXEC_ERROR)
        g_clear_error (error);
      g_propagate_error (error, exit_error);
      f->stmt = s;
      self->err_located = FALSE;
      cr_interp_locate (self, s);
      status = CR_EXEC_ERROR;
    }
  cr_value_unref (ctx);
  return status;
}

/* ---- def and class ----------------------------------------------------------------------- */

static CrValue *
apply_decorators (CrInterp         *self,
                  CrFrame          *f,
                  CrAstNode *const *nodes,
                  CrValue         **decorators,
                  guint             n,
                  CrValue          *value,
                  GError          **error)
{
  for (guint i = n; i > 0 && value; i--)
    {
      CrValue *r = cr_interp_call (self, decorators[i - 1], &value, 1, NULL, 0, error);
      cr_value_unref (value);
      value = r;
      if (!r)
        cr_interp_locate (self, nodes[i - 1]);
    }
  return value;
}

static CrExecStatus
exec_def (CrInterp  *self,
          CrFrame   *f,
          CrAstNode *s,
          GError   **error)
{
  guint n_dec = s->u.func.n_decorators;
  CrValue **decorators = g_new0 (CrValue *, n_dec + 1);
  CrExecStatus status = CR_EXEC_ERROR;
  for (guint i = 0; i < n_dec; i++)
    if (!(decorators[i] = cr_eval (self, f, s->u.func.decorators[i], error)))
      goto out;
  CrValue *fn = cr_make_function (self, f, s, error);
  if (!fn)
    goto out;
  if (f->owner_class)
    fn->u.function->owner_class = f->owner_class;
  fn = apply_decorators (self, f, s->u.func.decorators, decorators, n_dec, fn, error);
  if (!fn)
    goto out;
  cr_store_name (self, f, s->u.func.name, fn);
  cr_value_unref (fn);
  status = CR_EXEC_OK;
out:
  for (guint i = 0; i < n_dec; i++)
    cr_value_unref (decorators[i]);
  g_free (decorators);
  return status;
}

static CrExecStatus
exec_class (CrInterp  *self,
            CrFrame   *f,
            CrAstNode *s,
            GError   **error)
{
  CrCode *code = cr_program_code_for (self->program, s);
  guint n_dec = s->u.cls.n_decorators;
  CrValue **decorators = g_new0 (CrValue *, n_dec + 1);
  CrValue *base = NULL, *cls = NULL;
  CrExecStatus status = CR_EXEC_ERROR;

  if (s->u.cls.n_bases > 1)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "multiple inheritance is not supported (class %s)", s->u.cls.name);
      goto out;
    }
  if (s->u.cls.n_bases == 1)
    {
      base = cr_eval (self, f, s->u.cls.bases[0], error);
      if (!base)
        goto out;
      if (base->kind != CR_VALUE_CLASS)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "bases must be types");
          cr_interp_locate (self, s->u.cls.bases[0]);
          goto out;
        }
      /* list, tuple and dict have a __new__ that makes objects of a
       * subclass (cr-object.c); the other builtin types do not. */
      if (g_hash_table_lookup (base->u.cls.attrs, "__cr_kind__")
          && !cr_class_lookup (base, "__cr_exc__") && !cr_class_lookup (base, "__new__")
          && base != cr_object_class (self))
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "subclassing the builtin type '%s' is not supported",
                               base->u.cls.name);
          cr_interp_locate (self, s->u.cls.bases[0]);
          goto out;
        }
    }
  for (guint i = 0; i < n_dec; i++)
    if (!(decorators[i] = cr_eval (self, f, s->u.cls.decorators[i], error)))
      goto out;

  cls = cr_value_new_class (s->u.cls.name, base);
  {
    CrValue *module = cr_value_new_str (self->scope ? self->scope->name : "__main__");
    CrValue *qualname = cr_value_new_str (code->qualname);
    CrValue *doc = cr_object_docstring (code);
    cr_value_set_member (cls, "__module__", module);
    cr_value_set_member (cls, "__qualname__", qualname);
    cr_value_set_member (cls, "__doc__", doc);
    cr_value_unref (module);
    cr_value_unref (qualname);
    cr_value_unref (doc);
  }

  CrFrame frame = { 0 };
  frame.back = self->frame;
  frame.code = code;
  frame.locals = g_new0 (CrValue *, code->n_locals + 1);
  frame.cells = g_new0 (CrCell *, code->n_cells + 1);
  for (guint i = 0; i < code->n_cells; i++)
    frame.cells[i] = cr_cell_new ();
  frame.closure = cr_build_closure (f, code);
  frame.class_ns = cls->u.cls.attrs;
  frame.owner_class = cls;
  frame.stmt = code->n_body ? code->body[0] : s;
  self->frame = &frame;
  self->depth++;
  CrExecStatus body = cr_exec_block (self, &frame, code->body, code->n_body, error);
  self->frame = frame.back;
  self->depth--;
  if (body == CR_EXEC_ERROR)
    cr_interp_traceback_push (self, &frame, error ? *error : NULL);
  for (guint i = 0; i < code->n_locals; i++)
    cr_value_unref (frame.locals[i]);
  for (guint i = 0; i < code->n_cells; i++)
    cr_cell_unref (frame.cells[i]);
  for (guint i = 0; i < code->n_free; i++)
    cr_cell_unref (frame.closure[i]);
  g_free (frame.locals);
  g_free (frame.cells);
  g_free (frame.closure);
  cr_value_unref (frame.retval);
  if (body == CR_EXEC_ERROR)
    goto out;
  /* As Python's type(): a class that defines __eq__ and not __hash__ has
   * __hash__ = None, and its objects are no dict keys. */
  if (g_hash_table_contains (cls->u.cls.attrs, "__eq__")
      && !g_hash_table_contains (cls->u.cls.attrs, "__hash__"))
    {
      CrValue *none = cr_value_none ();
      cr_value_set_member (cls, "__hash__", none);
      cr_value_unref (none);
    }

  cls = apply_decorators (self, f, s->u.cls.decorators, decorators, n_dec, cls, error);
  if (!cls)
    goto out;
  cr_store_name (self, f, s->u.cls.name, cls);
  status = CR_EXEC_OK;
out:
  cr_value_unref (cls);
  cr_value_unref (base);
  for (guint i = 0; i < n_dec; i++)
    cr_value_unref (decorators[i]);
  g_free (decorators);
  return status;
}

/* ---- import ---------------------------------------------------------------------------------- */

static CrExecStatus
exec_import (CrInterp  *self,
             CrFrame   *f,
             CrAstNode *s,
             GError   **error)
{
  for (guint k = 0; k < s->u.import.n_names; k++)
    {
      const CrAstAlias *a = &s->u.import.names[k];
      CrValue *m = cr_interp_import (self, a->name, error);
      if (!m)
        return CR_EXEC_ERROR;
      if (a->asname)
        cr_store_name (self, f, a->asname, m);
      else
        {
          const char *dot = strchr (a->name, '.');
          if (dot)
            {
              g_autofree char *top = g_strndup (a->name, dot - a->name);
              CrValue *tm = cr_interp_import (self, top, error);
              if (!tm)
                {
                  cr_value_unref (m);
                  return CR_EXEC_ERROR;
                }
              cr_store_name (self, f, top, tm);
              cr_value_unref (tm);
            }
          else
            cr_store_name (self, f, a->name, m);
        }
      cr_value_unref (m);
    }
  return CR_EXEC_OK;
}

static CrExecStatus
exec_import_from (CrInterp  *self,
                  CrFrame   *f,
                  CrAstNode *s,
                  GError   **error)
{
  if (s->u.import.level > 0)
    {
      cr_interp_set_error (error, CR_EXC_IMPORT_ERROR,
                           "attempted relative import with no known parent package");
      return CR_EXEC_ERROR;
    }
  CrValue *m = cr_interp_import (self, s->u.import.module, error);
  if (!m)
    return CR_EXEC_ERROR;
  for (guint k = 0; k < s->u.import.n_names; k++)
    {
      const CrAstAlias *a = &s->u.import.names[k];
      if (strcmp (a->name, "*") == 0)
        {
          GHashTableIter it;
          gpointer key, value;
          /* A module's __all__ lists what `import *` takes (the prelude's). */
          CrValue *all = g_hash_table_lookup (m->u.module.attrs, "__all__");
          if (all && (all->kind == CR_VALUE_LIST || all->kind == CR_VALUE_TUPLE))
            {
              for (guint j = 0; j < cr_seq_len (all); j++)
                {
                  CrValue *item = cr_seq_get (all, j);
                  CrValue *v = item->kind == CR_VALUE_STR
                               ? g_hash_table_lookup (m->u.module.attrs, item->u.str.data)
                               : NULL;
                  if (v)
                    cr_store_name (self, f, item->u.str.data, v);
                }
              continue;
            }
          g_hash_table_iter_init (&it, m->u.module.attrs);
          while (g_hash_table_iter_next (&it, &key, &value))
            if (((const char *) key)[0] != '_')
              cr_store_name (self, f, key, value);
          continue;
        }
      CrValue *v = NULL;
      if (m->kind == CR_VALUE_MODULE)
        v = g_hash_table_lookup (m->u.module.attrs, a->name);
      if (v)
        cr_value_ref (v);
      else
        {
          /* `from torch import nn` where nn is a submodule not yet made. */
          g_autofree char *sub = g_strdup_printf ("%s.%s", s->u.import.module, a->name);
          GError *local = NULL;
          v = cr_interp_import (self, sub, &local);
          if (!v && m->kind == CR_VALUE_MODULE
              && g_hash_table_lookup (m->u.module.attrs, "__getattr__") != NULL)
            {
              /* The module's own __getattr__ (PEP 562) has the last word:
               * torch's says which names Chainrule lacks. */
              g_clear_error (&local);
              v = cr_interp_getattr (self, m, a->name, &local);
              if (!v && !g_error_matches (local, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR))
                {
                  g_propagate_error (error, local);
                  cr_value_unref (m);
                  return CR_EXEC_ERROR;
                }
            }
          if (!v)
            {
              g_clear_error (&local);
              cr_interp_set_error (error, CR_EXC_IMPORT_ERROR,
                                   "cannot import name '%s' from '%s' (unknown location)",
                                   a->name, s->u.import.module);
              cr_value_unref (m);
              return CR_EXEC_ERROR;
            }
        }
      cr_store_name (self, f, a->asname ? a->asname : a->name, v);
      cr_value_unref (v);
    }
  cr_value_unref (m);
  return CR_EXEC_OK;
}

/* ---- raise, assert, del -------------------------------------------------------------------- */

static CrExecStatus
raise_value (CrInterp  *self,
             CrValue   *v,
             GError   **error)
{
  CrValue *inst = NULL;
  if (v->kind == CR_VALUE_CLASS && cr_class_lookup (v, "__cr_exc__"))
    {
      inst = cr_interp_call (self, v, NULL, 0, NULL, 0, error);
      if (!inst)
        return CR_EXEC_ERROR;
    }
  else if (v->kind == CR_VALUE_INSTANCE && cr_class_lookup (v->u.instance.cls, "__cr_exc__"))
    inst = cr_value_ref (v);
  else
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "exceptions must derive from BaseException");
      return CR_EXEC_ERROR;
    }
  if (inst->kind != CR_VALUE_INSTANCE)
    {
      cr_value_unref (inst);
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "exceptions must derive from BaseException");
      return CR_EXEC_ERROR;
    }
  CrValue *cls = inst->u.instance.cls;
  CrValue *code_v = cr_class_lookup (cls, "__cr_exc__");
  CrException code = (CrException) code_v->u.i;
  char *message = cr_value_str (self, inst, error);
  if (!message)
    {
      cr_value_unref (inst);
      return CR_EXEC_ERROR;
    }
  g_set_error_literal (error, CR_LANG_ERROR, code, message);
  g_free (message);
  if (error)
    {
      cr_value_unref (self->exc_value);
      self->exc_value = cr_value_ref (inst);
      self->exc_value_owner = *error;
    }
  if (error && strcmp (cls->u.cls.name, cr_exception_name (code)) != 0)
    {
      g_free (self->exc_name);
      self->exc_name = g_strdup (cls->u.cls.name);
      self->exc_name_owner = *error;
    }
  cr_value_unref (inst);
  return CR_EXEC_ERROR;
}

static gboolean
delete_target (CrInterp  *self,
               CrFrame   *f,
               CrAstNode *t,
               GError   **error)
{
  switch (t->kind)
    {
    case CR_AST_NAME:
      if (!cr_delete_name (self, f, t, error))
        {
          cr_interp_locate (self, t);
          return FALSE;
        }
      return TRUE;
    case CR_AST_TUPLE:
    case CR_AST_LIST:
      for (guint i = 0; i < t->u.seq.n_elts; i++)
        if (!delete_target (self, f, t->u.seq.elts[i], error))
          return FALSE;
      return TRUE;
    case CR_AST_SUBSCRIPT:
      {
        CrValue *obj, *index;
        if (!cr_eval_subscript (self, f, t, &obj, &index, error))
          return FALSE;
        gboolean ok = cr_interp_delitem (self, obj, index, error);
        cr_value_unref (index);
        cr_value_unref (obj);
        if (!ok)
          cr_interp_locate (self, t);
        return ok;
      }
    case CR_AST_ATTRIBUTE:
      {
        CrValue *obj = cr_eval (self, f, t->u.attribute.value, error);
        if (!obj)
          return FALSE;
        gboolean ok = cr_interp_delattr (self, obj, t->u.attribute.attr, error);
        cr_value_unref (obj);
        if (!ok)
          cr_interp_locate (self, t);
        return ok;
      }
    default:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR, "cannot delete %s",
                           cr_ast_kind_name (t->kind));
      return FALSE;
    }
}

/* ---- augmented assignment ------------------------------------------------------------------- */

static CrExecStatus
exec_augassign (CrInterp  *self,
                CrFrame   *f,
                CrAstNode *s,
                GError   **error)
{
  CrAstNode *target = s->u.augassign.target;
  CrValue *obj = NULL, *index = NULL, *cur = NULL, *rhs = NULL, *res = NULL;
  CrExecStatus status = CR_EXEC_ERROR;

  switch (target->kind)
    {
    case CR_AST_NAME:
      cur = cr_eval (self, f, target, error);
      break;
    case CR_AST_ATTRIBUTE:
      obj = cr_eval (self, f, target->u.attribute.value, error);
      if (obj)
        {
          cur = cr_interp_getattr (self, obj, target->u.attribute.attr, error);
          if (!cur)
            cr_interp_locate (self, target);
        }
      break;
    case CR_AST_SUBSCRIPT:
      if (cr_eval_subscript (self, f, target, &obj, &index, error))
        {
          cur = cr_interp_getitem (self, obj, index, error);
          if (!cur)
            cr_interp_locate (self, target);
        }
      break;
    default:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR,
                           "'%s' is an illegal expression for augmented assignment",
                           cr_ast_kind_name (target->kind));
      break;
    }
  if (!cur)
    goto out;
  rhs = cr_eval (self, f, s->u.augassign.value, error);
  if (!rhs)
    goto out;
  res = cr_inplace_op (self, s->u.augassign.op, cur, rhs, error);
  if (!res)
    {
      cr_interp_note_failure (self, s, error);
      cr_interp_locate (self, s);
      goto out;
    }
  gboolean ok = TRUE;
  switch (target->kind)
    {
    case CR_AST_NAME:
      ok = cr_store_target (self, f, target, res, error);
      break;
    case CR_AST_ATTRIBUTE:
      ok = cr_interp_setattr (self, obj, target->u.attribute.attr, res, error);
      break;
    default:
      ok = cr_interp_setitem (self, obj, index, res, error);
      break;
    }
  if (!ok)
    cr_interp_locate (self, s);
  else
    status = CR_EXEC_OK;
out:
  cr_value_unref (res);
  cr_value_unref (rhs);
  cr_value_unref (cur);
  cr_value_unref (index);
  cr_value_unref (obj);
  return status;
}

/* ---- statements ------------------------------------------------------------------------------- */

static CrExecStatus
exec_stmt (CrInterp  *self,
           CrFrame   *f,
           CrAstNode *s,
           GError   **error)
{
  f->stmt = s;
  self->err_located = FALSE;
  self->statements_run++;
  /* Graph nodes made by prelude code keep the script line that called it. */
  if (G_LIKELY (!self->in_prelude))
    cr_binding.statement (&s->span);

  switch (s->kind)
    {
    case CR_AST_EXPR:
      {
        CrValue *v = cr_eval (self, f, s->u.expr_stmt.value, error);
        if (!v)
          return CR_EXEC_ERROR;
        cr_value_unref (v);
        return CR_EXEC_OK;
      }
    case CR_AST_ASSIGN:
      {
        CrValue *v = cr_eval (self, f, s->u.assign.value, error);
        if (!v)
          return CR_EXEC_ERROR;
        for (guint i = 0; i < s->u.assign.n_targets; i++)
          if (!cr_store_target (self, f, s->u.assign.targets[i], v, error))
            {
              cr_value_unref (v);
              return CR_EXEC_ERROR;
            }
        cr_value_unref (v);
        return CR_EXEC_OK;
      }
    case CR_AST_ANNASSIGN:
      {
        if (!s->u.assign.value || s->u.assign.n_targets == 0)
          return CR_EXEC_OK;
        CrValue *v = cr_eval (self, f, s->u.assign.value, error);
        if (!v)
          return CR_EXEC_ERROR;
        gboolean ok = cr_store_target (self, f, s->u.assign.targets[0], v, error);
        cr_value_unref (v);
        return ok ? CR_EXEC_OK : CR_EXEC_ERROR;
      }
    case CR_AST_AUGASSIGN:
      return exec_augassign (self, f, s, error);
    case CR_AST_IF:
      {
        CrValue *test = cr_eval (self, f, s->u.if_stmt.test, error);
        if (!test)
          return CR_EXEC_ERROR;
        gboolean t;
        gboolean ok = cr_value_truthy (self, test, &t, error);
        cr_value_unref (test);
        if (!ok)
          {
            cr_interp_locate (self, s->u.if_stmt.test);
            return CR_EXEC_ERROR;
          }
        if (t)
          return cr_exec_block (self, f, s->u.if_stmt.body, s->u.if_stmt.n_body, error);
        return cr_exec_block (self, f, s->u.if_stmt.orelse, s->u.if_stmt.n_orelse, error);
      }
    case CR_AST_FOR:
      return exec_for (self, f, s, error);
    case CR_AST_WHILE:
      return exec_while (self, f, s, error);
    case CR_AST_BREAK:
      return CR_EXEC_BREAK;
    case CR_AST_CONTINUE:
      return CR_EXEC_CONTINUE;
    case CR_AST_PASS:
    case CR_AST_GLOBAL:
    case CR_AST_NONLOCAL:
      return CR_EXEC_OK;
    case CR_AST_RETURN:
      {
        CrValue *v = s->u.ret.value ? cr_eval (self, f, s->u.ret.value, error) : cr_value_none ();
        if (!v)
          return CR_EXEC_ERROR;
        cr_value_unref (f->retval);
        f->retval = v;
        return CR_EXEC_RETURN;
      }
    case CR_AST_FUNCTIONDEF:
      return exec_def (self, f, s, error);
    case CR_AST_CLASSDEF:
      return exec_class (self, f, s, error);
    case CR_AST_WITH:
      return exec_with_item (self, f, s, 0, error);
    case CR_AST_IMPORT:
      return exec_import (self, f, s, error);
    case CR_AST_IMPORTFROM:
      return exec_import_from (self, f, s, error);
    case CR_AST_ASSERT:
      {
        CrValue *test = cr_eval (self, f, s->u.assert_stmt.test, error);
        if (!test)
          return CR_EXEC_ERROR;
        gboolean t;
        gboolean ok = cr_value_truthy (self, test, &t, error);
        cr_value_unref (test);
        if (!ok)
          return CR_EXEC_ERROR;
        if (t)
          return CR_EXEC_OK;
        char *msg = NULL;
        if (s->u.assert_stmt.msg)
          {
            CrValue *m = cr_eval (self, f, s->u.assert_stmt.msg, error);
            if (!m)
              return CR_EXEC_ERROR;
            msg = cr_value_str (self, m, error);
            cr_value_unref (m);
            if (!msg)
              return CR_EXEC_ERROR;
          }
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_ASSERTION_ERROR, msg ? msg : "");
        g_free (msg);
        cr_interp_locate (self, s->u.assert_stmt.test);
        return CR_EXEC_ERROR;
      }
    case CR_AST_RAISE:
      {
        if (!s->u.raise.exc)
          {
            if (self->handling && self->handling->len > 0)
              return cr_exec_reraise (self, f, error);
            cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "No active exception to reraise");
            cr_interp_locate (self, s);
            return CR_EXEC_ERROR;
          }
        CrValue *v = cr_eval (self, f, s->u.raise.exc, error);
        if (!v)
          return CR_EXEC_ERROR;
        if (s->u.raise.cause)
          {
            CrValue *cause = cr_eval (self, f, s->u.raise.cause, error);
            if (!cause)
              {
                cr_value_unref (v);
                return CR_EXEC_ERROR;
              }
            cr_value_unref (cause);
          }
        CrExecStatus status = raise_value (self, v, error);
        cr_value_unref (v);
        self->err_located = FALSE;
        cr_interp_locate (self, s);
        return status;
      }
    case CR_AST_TRY:
      return cr_exec_try (self, f, s, error);
    case CR_AST_DEL:
      for (guint i = 0; i < s->u.seq.n_elts; i++)
        if (!delete_target (self, f, s->u.seq.elts[i], error))
          return CR_EXEC_ERROR;
      return CR_EXEC_OK;
    default:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR, "unsupported statement (%s)",
                           cr_ast_kind_name (s->kind));
      cr_interp_locate (self, s);
      return CR_EXEC_ERROR;
    }
}

CrExecStatus
cr_exec_block (CrInterp         *self,
               CrFrame          *frame,
               CrAstNode *const *stmts,
               guint             n_stmts,
               GError          **error)
{
  for (guint i = 0; i < n_stmts; i++)
    {
      CrExecStatus status = exec_stmt (self, frame, stmts[i], error);
      if (G_UNLIKELY (status != CR_EXEC_OK))
        return status;
    }
  return CR_EXEC_OK;
}
