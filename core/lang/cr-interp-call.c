/* cr-interp-call.c — calling: closure cells and function values,
 * Python's argument binding and its TypeErrors, the recursion limit, native
 * functions, bound methods, classes (__new__, __init__, builtin bases) and
 * callable instances and objects. */
#include "cr-gen-object.h"
#include "cr-interp-private.h"

#include <string.h>

/* CPython's default recursion limit. The C stack is guarded separately
 * (cr-stack-guard.h). */
#define RECURSION_LIMIT 1000

/* ---- cells and functions ------------------------------------------------------ */

CrCell *
cr_cell_new (void)
{
  CrCell *cell = g_new (CrCell, 1);
  cell->ref_count = 1;
  cell->value = NULL;
  return cell;
}

CrCell *
cr_cell_ref (CrCell *cell)
{
  cell->ref_count++;
  return cell;
}

void
cr_cell_unref (CrCell *cell)
{
  if (cell && --cell->ref_count == 0)
    {
      cr_value_unref (cell->value);
      g_free (cell);
    }
}

void
cr_function_free (CrFunction *function)
{
  for (guint i = 0; i < function->code->n_params; i++)
    cr_value_unref (function->defaults[i]);
  g_free (function->defaults);
  for (guint i = 0; i < function->code->n_free; i++)
    cr_cell_unref (function->closure[i]);
  g_free (function->closure);
  g_free (function->qualname);
  g_free (function);
}

CrCell **
cr_build_closure (CrFrame *frame,
                  CrCode  *code)
{
  if (code->n_free == 0)
    return NULL;
  CrCell **closure = g_new (CrCell *, code->n_free);
  for (guint i = 0; i < code->n_free; i++)
    {
      const CrFreeSource *src = &code->free_sources[i];
      closure[i] = cr_cell_ref (src->from_cell ? frame->cells[src->index]
                                               : frame->closure[src->index]);
    }
  return closure;
}

/* ---- calls -------------------------------------------------------------------------- */

static gboolean
bind_args (CrFunction      *fn,
           CrValue        **locals,
           CrValue *const  *args,
           guint            n_args,
           const CrKwarg   *kwargs,
           guint            n_kwargs,
           GError         **error)
{
  CrCode *code = fn->code;
  guint npos = code->n_positional;
  const char *qualname = fn->qualname;

  guint n_direct = MIN (n_args, npos);
  for (guint i = 0; i < n_direct; i++)
    locals[i] = cr_value_ref (args[i]);
  if (n_args > npos)
    {
      if (code->varargs < 0)
        {
          guint n_defaults = 0;
          for (guint i = 0; i < npos; i++)
            if (code->params[i].default_value)
              n_defaults++;
          if (n_defaults == 0)
            cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                 "%s() takes %u positional argument%s but %u %s given",
                                 qualname, npos, npos == 1 ? "" : "s", n_args,
                                 n_args == 1 ? "was" : "were");
          else
            cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                 "%s() takes from %u to %u positional arguments but %u %s given",
                                 qualname, npos - n_defaults, npos, n_args,
                                 n_args == 1 ? "was" : "were");
          return FALSE;
        }
      locals[code->varargs] = cr_value_new_tuple (args + npos, n_args - npos);
    }
  else if (code->varargs >= 0)
    locals[code->varargs] = cr_value_new_tuple (NULL, 0);

  CrValue *kwdict = NULL;
  if (code->kwargs >= 0)
    locals[code->kwargs] = kwdict = cr_value_new_dict ();

  for (guint k = 0; k < n_kwargs; k++)
    {
      const char *name = kwargs[k].name;
      guint j;
      for (j = 0; j < code->n_params; j++)
        if ((code->params[j].kind == CR_PARAM_NORMAL || code->params[j].kind == CR_PARAM_KWONLY)
            && strcmp (code->params[j].name, name) == 0)
          break;
      if (j < code->n_params)
        {
          if (locals[j])
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                   "%s() got multiple values for argument '%s'", qualname, name);
              return FALSE;
            }
          locals[j] = cr_value_ref (kwargs[k].value);
        }
      else if (kwdict)
        {
          CrValue *key = cr_value_new_str (name);
          cr_dict_set (kwdict, key, kwargs[k].value, NULL);
          cr_value_unref (key);
        }
      else
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "%s() got an unexpected keyword argument '%s'", qualname, name);
          return FALSE;
        }
    }

  const char *missing[64];
  guint n_missing = 0;
  for (guint j = 0; j < npos; j++)
    if (!locals[j])
      {
        if (fn->defaults[j])
          locals[j] = cr_value_ref (fn->defaults[j]);
        else if (n_missing < G_N_ELEMENTS (missing))
          missing[n_missing++] = code->params[j].name;
      }
  if (n_missing)
    {
      cr_args_missing_error (error, qualname, "positional", missing, n_missing);
      return FALSE;
    }
  for (guint j = npos; j < code->n_params; j++)
    if (code->params[j].kind == CR_PARAM_KWONLY && !locals[j])
      {
        if (fn->defaults[j])
          locals[j] = cr_value_ref (fn->defaults[j]);
        else if (n_missing < G_N_ELEMENTS (missing))
          missing[n_missing++] = code->params[j].name;
      }
  if (n_missing)
    {
      cr_args_missing_error (error, qualname, "keyword-only", missing, n_missing);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_depth (CrInterp  *self,
             GError   **error)
{
  if (G_UNLIKELY (self->depth >= RECURSION_LIMIT || cr_stack_guard_exhausted ()))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR,
                           "maximum recursion depth exceeded");
      return FALSE;
    }
  return TRUE;
}

static CrValue *
call_function (CrInterp        *self,
               CrValue         *fnval,
               CrValue *const  *args,
               guint            n_args,
               const CrKwarg   *kwargs,
               guint            n_kwargs,
               GError         **error)
{
  CrFunction *fn = fnval->u.function;
  CrCode *code = fn->code;
  CrValue *local_buf[16];
  CrCell *cell_buf[8];

  if (!check_depth (self, error) || !cr_interp_check_cancel (self, error))
    return NULL;

  CrValue **locals = code->n_locals <= G_N_ELEMENTS (local_buf) ? local_buf
                                                                : g_new (CrValue *, code->n_locals);
  memset (locals, 0, sizeof (CrValue *) * code->n_locals);
  CrCell **cells = code->n_cells <= G_N_ELEMENTS (cell_buf) ? cell_buf
                                                            : g_new (CrCell *, code->n_cells);
  for (guint i = 0; i < code->n_cells; i++)
    cells[i] = NULL;

  CrValue *result = NULL;
  if (bind_args (fn, locals, args, n_args, kwargs, n_kwargs, error))
    {
      for (guint i = 0; i < code->n_cells; i++)
        {
          cells[i] = cr_cell_new ();
          int p = code->cell_param[i];
          if (p >= 0)
            {
              cells[i]->value = locals[p];
              locals[p] = NULL;
            }
        }
      if (G_UNLIKELY (code->is_generator))
        {
          /* The body runs when the generator is resumed (cr-gen-object.c). */
          result = cr_gen_object_new_call (self, fnval, locals, cells);
          goto done;
        }
      CrFrame frame = {
        .back = self->frame,
        .code = code,
        .locals = locals,
        .cells = cells,
        .closure = fn->closure,
        .function = fnval,
        .stmt = code->n_body ? code->body[0] : NULL,
      };
      /* A function of another module (the prelude's) runs with its names. */
      CrScopeSaved saved_scope;
      gboolean other_scope = fn->scope && fn->scope != self->scope;
      if (other_scope)
        cr_interp_scope_enter (self, fn->scope, &saved_scope);
      self->frame = &frame;
      self->depth++;
      CrExecStatus status = cr_exec_block (self, &frame, code->body, code->n_body, error);
      self->frame = frame.back;
      self->depth--;
      if (status == CR_EXEC_ERROR)
        {
          cr_interp_traceback_push (self, &frame, error ? *error : NULL);
          cr_value_unref (frame.retval);
        }
      else
        result = frame.retval ? frame.retval : cr_value_none ();
      if (other_scope)
        cr_interp_scope_leave (self, &saved_scope);
      const CrAstNode *span_stmt = cr_interp_span_stmt (self, frame.back);
      if (span_stmt)
        cr_binding.statement (&span_stmt->span);
    }

done:
  for (guint i = 0; i < code->n_locals; i++)
    cr_value_unref (locals[i]);
  for (guint i = 0; i < code->n_cells; i++)
    cr_cell_unref (cells[i]);
  if (locals != local_buf)
    g_free (locals);
  if (cells != cell_buf)
    g_free (cells);
  return result;
}

static CrValue *
call_native (CrInterp        *self,
             CrValue         *native,
             CrValue         *bound_self,
             CrValue *const  *args,
             guint            n_args,
             const CrKwarg   *kwargs,
             guint            n_kwargs,
             GError         **error)
{
  GError *local = NULL;
  CrValue *r = native->u.native.fn (self, bound_self, args, n_args, kwargs, n_kwargs,
                                    native->u.native.data, &local);

  cr_binding.native_returned (self, local == NULL ? &local : NULL);
  if (local)
    {
      cr_value_unref (r);
      if (G_UNLIKELY (self->labels_enabled) && self->in_prelude)
        cr_binding.native_failed (self, bound_self, args, n_args, kwargs, n_kwargs, local);
      g_propagate_error (error, local);
      return NULL;
    }
  return r ? r : cr_value_none ();
}

/* Calls callable with extra prepended to the arguments. */
static CrValue *
call_with_self (CrInterp        *self,
                CrValue         *callable,
                CrValue         *extra,
                CrValue *const  *args,
                guint            n_args,
                const CrKwarg   *kwargs,
                guint            n_kwargs,
                GError         **error)
{
  CrValue *buf[16];
  CrValue **all = n_args + 1 <= G_N_ELEMENTS (buf) ? buf : g_new (CrValue *, n_args + 1);
  all[0] = extra;
  if (n_args)
    memcpy (all + 1, args, sizeof (CrValue *) * n_args);
  CrValue *r = cr_interp_call (self, callable, all, n_args + 1, kwargs, n_kwargs, error);
  if (all != buf)
    g_free (all);
  return r;
}

CrValue *
cr_interp_call_method (CrInterp        *self,
                       CrValue         *instance,
                       CrValue         *method,
                       CrValue *const  *args,
                       guint            n_args,
                       GError         **error)
{
  if (method->kind == CR_VALUE_NATIVE && method->u.native.self == NULL)
    return call_native (self, method, instance, args, n_args, NULL, 0, error);
  if (method->kind == CR_VALUE_OBJECT && method->u.object.type == &cr_staticmethod_type)
    return cr_interp_call (self, method->u.object.data, args, n_args, NULL, 0, error);
  return call_with_self (self, method, instance, args, n_args, NULL, 0, error);
}

static gboolean
class_exception_code (CrValue     *cls,
                      CrException *out)
{
  CrValue *code = cr_class_lookup (cls, "__cr_exc__");
  if (code && code->kind == CR_VALUE_INT)
    {
      *out = (CrException) code->u.i;
      return TRUE;
    }
  return FALSE;
}

static CrValue *
call_class (CrInterp        *self,
            CrValue         *cls,
            CrValue *const  *args,
            guint            n_args,
            const CrKwarg   *kwargs,
            guint            n_kwargs,
            GError         **error)
{
  CrValue *ctor = g_hash_table_lookup (cls->u.cls.attrs, "__cr_new__");
  if (ctor)
    return cr_interp_call (self, ctor, args, n_args, kwargs, n_kwargs, error);

  /* cls.__new__(cls, *args) makes the object; __init__ runs when that is
   * an object of cls. A subclass of a builtin class (torch.Tensor) without
   * a __new__ of its own is made by the builtin's constructor. */
  CrValue *inst;
  gboolean made_by_new = TRUE;
  CrValue *new_fn = cr_class_lookup (cls, "__new__");
  CrValue *builtin_ctor = NULL;
  for (CrValue *c = cls->u.cls.base; c && !builtin_ctor && !new_fn; c = c->u.cls.base)
    builtin_ctor = g_hash_table_lookup (c->u.cls.attrs, "__cr_new__");
  if (new_fn)
    {
      if (new_fn->kind == CR_VALUE_OBJECT && new_fn->u.object.type == &cr_staticmethod_type)
        new_fn = new_fn->u.object.data;
      inst = call_with_self (self, new_fn, cls, args, n_args, kwargs, n_kwargs, error);
      if (!inst)
        return NULL;
      CrValue *type = cr_interp_type_of (self, inst);
      if (!type || !cr_class_is_subclass (type, cls))
        return inst;
    }
  else if (builtin_ctor)
    {
      inst = cr_interp_call (self, builtin_ctor, args, n_args, kwargs, n_kwargs, error);
      if (!inst)
        return NULL;
      if (!cr_object_extra (inst, TRUE))
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "subclassing the builtin type '%s' is not supported",
                               cr_value_type_name (inst));
          cr_value_unref (inst);
          return NULL;
        }
      cr_object_set_class (inst, cls);
    }
  else
    {
      inst = cr_object_new_instance (cls);
      made_by_new = FALSE;
    }
  CrException code;
  gboolean is_exception = class_exception_code (cls, &code);
  if (is_exception && inst->kind == CR_VALUE_INSTANCE && !made_by_new)
    {
      CrValue *exc_args = cr_value_new_tuple (args, n_args);
      cr_object_instance_store (inst, "args", exc_args);
      cr_value_unref (exc_args);
    }

  CrValue *init = cr_class_lookup (cls, "__init__");
  if (init && init->kind == CR_VALUE_NATIVE && init->u.native.self == NULL)
    {
      CrValue *r = call_native (self, init, inst, args, n_args, kwargs, n_kwargs, error);
      if (!r)
        {
          cr_value_unref (inst);
          return NULL;
        }
      cr_value_unref (r);
    }
  else if (init)
    {
      CrValue *r = call_with_self (self, init, inst, args, n_args, kwargs, n_kwargs, error);
      if (!r)
        {
          cr_value_unref (inst);
          return NULL;
        }
      if (r->kind != CR_VALUE_NONE)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "__init__() should return None, not '%s'", cr_value_type_name (r));
          cr_value_unref (r);
          cr_value_unref (inst);
          return NULL;
        }
    }
  else if ((n_args || n_kwargs) && !is_exception && !made_by_new)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no arguments", cls->u.cls.name);
      cr_value_unref (inst);
      return NULL;
    }
  return inst;
}

CrValue *
cr_interp_call (CrInterp        *self,
                CrValue         *callable,
                CrValue *const  *args,
                guint            n_args,
                const CrKwarg   *kwargs,
                guint            n_kwargs,
                GError         **error)
{
  switch (callable->kind)
    {
    case CR_VALUE_FUNCTION:
      return call_function (self, callable, args, n_args, kwargs, n_kwargs, error);
    case CR_VALUE_NATIVE:
      return call_native (self, callable, callable->u.native.self, args, n_args, kwargs, n_kwargs,
                          error);
    case CR_VALUE_BOUND_METHOD:
      return call_with_self (self, callable->u.bound.func, callable->u.bound.self, args, n_args,
                             kwargs, n_kwargs, error);
    case CR_VALUE_CLASS:
      if (!check_depth (self, error))
        return NULL;
      return call_class (self, callable, args, n_args, kwargs, n_kwargs, error);
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (callable, "__call__");
        if (m)
          {
            gpointer token = G_UNLIKELY (self->options.record_backward) && cr_binding.call_begin
                             ? cr_binding.call_begin (self, callable) : NULL;
            CrValue *r;
            if (m->kind == CR_VALUE_NATIVE && m->u.native.self == NULL)
              r = call_native (self, m, callable, args, n_args, kwargs, n_kwargs, error);
            else
              r = call_with_self (self, m, callable, args, n_args, kwargs, n_kwargs, error);
            if (token)
              cr_binding.call_end (self, token);
            return r;
          }
        break;
      }
    case CR_VALUE_OBJECT:
      if (callable->u.object.type->call)
        {
          GError *local = NULL;
          CrValue *r = callable->u.object.type->call (self, callable, args, n_args, kwargs,
                                                      n_kwargs, &local);
          if (local)
            {
              cr_value_unref (r);
              g_propagate_error (error, local);
              return NULL;
            }
          return r ? r : cr_value_none ();
        }
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not callable",
                       cr_value_type_name (callable));
  return NULL;
}

CrValue *
cr_interp_exception_instance (CrInterp    *self,
                              CrException  code,
                              const char  *message)
{
  CrValue *cls = (guint) code < CR_EXC_COUNT ? self->exc_classes[code] : NULL;
  if (!cls)
    cls = self->exc_classes[CR_EXC_EXCEPTION];
  CrValue *arg = cr_value_new_str (message ? message : "");
  CrValue *inst = call_class (self, cls, &arg, message && message[0] ? 1 : 0, NULL, 0, NULL);
  cr_value_unref (arg);
  return inst;
}
