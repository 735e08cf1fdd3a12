/* cr-gen-object.c — generator objects; see cr-gen-object.h.
 *
 * A def generator's body runs on a fiber: resuming it switches to the
 * fiber's stack until the body reaches a yield (which switches back) or
 * ends. Around each switch the consumer's interpreter state is put back as
 * it was: the innermost frame, the call depth, the module scope, and the
 * except clauses the generator is inside at its yield (moved off the
 * interpreter's stack of handled exceptions while it is suspended, as
 * Python keeps a generator's exception state in the generator).
 *
 * A generator dropped while suspended is closed as Python closes it: a
 * GeneratorExit raised at its yield, so that its finally blocks and with
 * blocks run. One that will not stop (it catches GeneratorExit and yields
 * again) and the ones still suspended when the interpreter is freed are
 * stopped for good: resumed with the run marked cancelled, which no except
 * clause catches and which stops every loop and call at once, so the
 * frames on its stack unwind and give back what they hold. */
#include "cr-gen-object.h"

#include "cr-fiber.h"
#include "cr-native.h"
#include "cr-memory.h"

#include <string.h>

/* CPython's recursion limit, as cr-interp-call.c's: resuming a generator is a
 * call. */
#define RECURSION_LIMIT 1000

typedef enum {
  GEN_CREATED,
  GEN_SUSPENDED,
  GEN_RUNNING,
  GEN_DONE,
} GenState;

typedef struct _CrGenObject CrGenObject;

struct _CrGenObject {
  CrFrame        frame;        /* first: a yield finds its generator from its frame */
  CrInterp      *interp;       /* borrowed; the interpreter outlives its generators' bodies */
  CrValue       *value;        /* the value wrapping this one (weak; NULL once it is freed) */
  CrValue       *function;     /* owned: the def; NULL for a generator expression */
  const CrScope *scope;        /* the module whose names the code reads */
  char          *qualname;     /* owned: "f", "Module.parameters", "<genexpr>" */
  GenState       state;
  gboolean       stopping;     /* being stopped for good: no depth limit */
  gsize          charged;      /* bytes charged to the memory budget */

  /* A def's body, on its fiber. */
  CrFiber       *fiber;
  CrValue       *transfer;     /* owned: the value sent in, or yielded out */
  GError        *thrown;       /* owned: the error to raise at the yield */
  GError        *raised;       /* owned: the error the body ended with */
  CrValue       *result;       /* owned: the body's return value */
  GPtrArray     *handling;     /* the interpreter's handled exceptions the body
                                * is inside at its yield (owned refs to its entries) */
  guint          handling_base;/* where the body's entries start on the interpreter's stack */

  /* A generator expression: one iterator for each for-clause, the first
   * made from outside when the generator was. */
  CrAstNode     *genexpr;
  CrAstNode    **clauses;
  CrIter        *iters;
  guint          n_clauses;
  guint          n_live;       /* iters[0 .. n_live-1] are running */
  CrCell       **closure;      /* owned (a def's closure is its function's) */
  guint          n_closure;
  gsize          n_steps;      /* items taken from the clauses (the checkpoint) */
};

static int  gen_send (CrGenObject *gen, CrValue *send, GError *thrown, CrValue **out,
                      GError **error);
static void gen_stop (CrGenObject *gen);

static inline CrGenObject *
gen_of (CrValue *value)
{
  return value->u.object.data;
}

static gboolean
is_gen_object (CrValue *value)
{
  return value->kind == CR_VALUE_OBJECT && value->u.object.type == &cr_gen_object_type;
}

/* ---- errors ---- */

/* Frees err and what the interpreter keeps about it (its traceback, the
 * instance raised). */
static void
discard_error (CrInterp *self,
               GError   *err)
{
  if (!err)
    return;
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
  g_error_free (err);
}

static gboolean
is_error (const GError *err,
          CrException   code)
{
  return err && err->domain == CR_LANG_ERROR && err->code == (gint) code;
}

/* StopIteration(value): the instance carries the value, as Python's does. */
static void
set_stop_iteration (CrInterp  *self,
                    CrValue   *value,
                    GError   **error)
{
  if (!value || value->kind == CR_VALUE_NONE)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_STOP_ITERATION, "");
      return;
    }
  g_autofree char *message = cr_value_str (self, value, NULL);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_STOP_ITERATION, message ? message : "");
  CrValue *cls = self->exc_classes[CR_EXC_STOP_ITERATION];
  if (!error || !cls)
    return;
  CrValue *inst = cr_interp_call (self, cls, &value, 1, NULL, 0, NULL);
  if (inst && inst->kind == CR_VALUE_INSTANCE && cr_interp_setattr (self, inst, "value", value, NULL))
    {
      cr_value_unref (self->exc_value);
      self->exc_value = inst;
      self->exc_value_owner = *error;
    }
  else
    cr_value_unref (inst);
}

/* Python 3.7's PEP 479: a StopIteration leaving a generator's body would
 * silently end the loop consuming it; it becomes a RuntimeError. */
static void
stop_iteration_to_runtime_error (CrInterp *self,
                                 GError   *err)
{
  if (!is_error (err, CR_EXC_STOP_ITERATION))
    return;
  err->code = CR_EXC_RUNTIME_ERROR;
  g_free (err->message);
  err->message = g_strdup ("generator raised StopIteration");
  if (self->exc_value_owner == err)
    {
      g_clear_pointer (&self->exc_value, cr_value_unref);
      self->exc_value_owner = NULL;
    }
  if (self->exc_name_owner == err)
    {
      g_clear_pointer (&self->exc_name, g_free);
      self->exc_name_owner = NULL;
    }
}

/* An error for raising exc, an exception class or instance, as a raise
 * statement makes it (the instance kept for except clauses); NULL with
 * *error set (a TypeError) when exc is neither. */
static GError *
error_from_exception (CrInterp  *self,
                      CrValue   *exc,
                      CrValue   *exc_arg,
                      GError   **error)
{
  CrValue *inst = NULL;
  if (exc->kind == CR_VALUE_CLASS && cr_class_lookup (exc, "__cr_exc__"))
    {
      if (exc_arg && exc_arg->kind == CR_VALUE_INSTANCE
          && cr_class_is_subclass (exc_arg->u.instance.cls, exc))
        inst = cr_value_ref (exc_arg);
      else
        {
          gboolean with_arg = exc_arg && exc_arg->kind != CR_VALUE_NONE;
          inst = cr_interp_call (self, exc, with_arg ? &exc_arg : NULL, with_arg ? 1 : 0,
                                 NULL, 0, error);
          if (!inst)
            return NULL;
        }
    }
  else if (exc->kind == CR_VALUE_INSTANCE && cr_class_lookup (exc->u.instance.cls, "__cr_exc__"))
    {
      if (exc_arg && exc_arg->kind != CR_VALUE_NONE)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "instance exception may not have a separate value");
          return NULL;
        }
      inst = cr_value_ref (exc);
    }
  if (!inst || inst->kind != CR_VALUE_INSTANCE)
    {
      cr_value_unref (inst);
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "exceptions must be classes or instances deriving from "
                           "BaseException, not %s", cr_value_type_name (exc));
      return NULL;
    }
  CrValue *cls = inst->u.instance.cls;
  CrException code = (CrException) cr_class_lookup (cls, "__cr_exc__")->u.i;
  char *message = cr_value_str (self, inst, error);
  if (!message)
    {
      cr_value_unref (inst);
      return NULL;
    }
  GError *err = g_error_new_literal (CR_LANG_ERROR, code, message);
  g_free (message);
  cr_value_unref (self->exc_value);
  self->exc_value = inst;
  self->exc_value_owner = err;
  if (strcmp (cls->u.cls.name, cr_exception_name (code)) != 0)
    {
      g_free (self->exc_name);
      self->exc_name = g_strdup (cls->u.cls.name);
      self->exc_name_owner = err;
    }
  return err;
}

/* What the interpreter knows of an error being raised, set aside while a
 * dropped generator is closed (the drop may happen while that error
 * unwinds the consumer's frames). */
typedef struct {
  GArray          *traceback;
  GError          *traceback_owner;
  gboolean         err_located;
  const CrAstNode *err_node;
  char            *exc_name;
  GError          *exc_name_owner;
  CrValue         *exc_value;
  GError          *exc_value_owner;
} ErrorState;

static void
error_state_save (CrInterp   *self,
                  ErrorState *saved)
{
  saved->traceback = self->traceback;
  saved->traceback_owner = self->traceback_owner;
  saved->err_located = self->err_located;
  saved->err_node = self->err_node;
  saved->exc_name = self->exc_name;
  saved->exc_name_owner = self->exc_name_owner;
  saved->exc_value = self->exc_value;
  saved->exc_value_owner = self->exc_value_owner;
  self->traceback = g_array_new (FALSE, FALSE, sizeof (CrTracebackEntry));
  self->traceback_owner = NULL;
  self->err_located = FALSE;
  self->exc_name = NULL;
  self->exc_name_owner = NULL;
  self->exc_value = NULL;
  self->exc_value_owner = NULL;
}

static void
error_state_restore (CrInterp   *self,
                     ErrorState *saved)
{
  g_array_unref (self->traceback);
  g_free (self->exc_name);
  cr_value_unref (self->exc_value);
  self->traceback = saved->traceback;
  self->traceback_owner = saved->traceback_owner;
  self->err_located = saved->err_located;
  self->err_node = saved->err_node;
  self->exc_name = saved->exc_name;
  self->exc_name_owner = saved->exc_name_owner;
  self->exc_value = saved->exc_value;
  self->exc_value_owner = saved->exc_value_owner;
}

/* ---- the frame ---- */

/* Drops what the generator's frame holds: done, its locals go at once, as
 * Python clears a finished generator's frame. */
static void
release_frame (CrGenObject *gen)
{
  CrCode *code = gen->frame.code;
  CrValue **locals = gen->frame.locals;
  CrCell **cells = gen->frame.cells;
  CrCell **closure = gen->closure;
  CrIter *iters = gen->iters;
  guint n_live = gen->n_live;

  /* Unhooked first: dropping a local may free a value whose destructor
   * comes back here. */
  gen->frame.locals = NULL;
  gen->frame.cells = NULL;
  gen->frame.closure = NULL;
  gen->closure = NULL;
  gen->iters = NULL;
  gen->n_live = 0;
  if (locals)
    for (guint i = 0; i < code->n_locals; i++)
      cr_value_unref (locals[i]);
  if (cells)
    for (guint i = 0; i < code->n_cells; i++)
      cr_cell_unref (cells[i]);
  if (closure)
    for (guint i = 0; i < gen->n_closure; i++)
      cr_cell_unref (closure[i]);
  for (guint i = 0; i < n_live; i++)
    cr_iter_clear (&iters[i]);
  g_free (locals);
  g_free (cells);
  g_free (closure);
  g_free (iters);
  g_clear_pointer (&gen->frame.retval, cr_value_unref);
}

static CrGenObject *
gen_new (CrInterp      *self,
         CrCode        *code,
         const CrScope *scope,
         const char    *qualname)
{
  CrGenObject *gen = g_new0 (CrGenObject, 1);
  gen->interp = self;
  gen->scope = scope;
  gen->qualname = g_strdup (qualname);
  gen->frame.code = code;
  gen->state = GEN_CREATED;
  /* The frame counts against the budget like the values it holds; the
   * checkpoint of the next loop or call reports a budget spent. */
  gen->charged = sizeof (CrGenObject) + (gsize) (code->n_locals + code->n_cells) * sizeof (gpointer);
  cr_memory_charge ((gssize) gen->charged);
  return gen;
}

CrValue *
cr_gen_object_new_call (CrInterp  *self,
                        CrValue   *function,
                        CrValue  **locals,
                        CrCell   **cells)
{
  CrFunction *fn = function->u.function;
  CrCode *code = fn->code;
  CrGenObject *gen = gen_new (self, code, fn->scope ? fn->scope : self->scope, fn->qualname);

  gen->function = cr_value_ref (function);
  gen->frame.locals = g_new0 (CrValue *, code->n_locals + 1);
  memcpy (gen->frame.locals, locals, sizeof (CrValue *) * code->n_locals);
  memset (locals, 0, sizeof (CrValue *) * code->n_locals);
  gen->frame.cells = g_new0 (CrCell *, code->n_cells + 1);
  memcpy (gen->frame.cells, cells, sizeof (CrCell *) * code->n_cells);
  memset (cells, 0, sizeof (CrCell *) * code->n_cells);
  gen->frame.closure = fn->closure;
  gen->frame.function = function;
  gen->frame.stmt = code->n_body ? code->body[0] : NULL;
  gen->value = cr_value_new_object (&cr_gen_object_type, gen);
  return gen->value;
}

CrValue *
cr_gen_object_new_genexpr (CrInterp   *self,
                           CrFrame    *frame,
                           CrAstNode  *node,
                           GError    **error)
{
  CrCode *code = cr_program_code_for (self->program, node);
  if (!code)
    {
      cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "internal error: unresolved generator expression");
      return NULL;
    }
  CrValue *seq = cr_eval (self, frame, node->u.comp.iter, error);
  if (!seq)
    return NULL;
  CrIter first;
  gboolean ok = cr_iter_init (self, &first, seq, error);
  cr_value_unref (seq);
  if (!ok)
    {
      cr_interp_locate (self, node->u.comp.iter);
      return NULL;
    }

  CrGenObject *gen = gen_new (self, code, self->scope, code->qualname);
  gen->genexpr = node;
  for (CrAstNode *c = node; c; c = c->u.comp.inner)
    gen->n_clauses++;
  gen->clauses = g_new (CrAstNode *, gen->n_clauses);
  guint i = 0;
  for (CrAstNode *c = node; c; c = c->u.comp.inner)
    gen->clauses[i++] = c;
  gen->iters = g_new0 (CrIter, gen->n_clauses);
  gen->iters[0] = first;
  gen->n_live = 1;
  gen->frame.locals = g_new0 (CrValue *, code->n_locals + 1);
  gen->frame.cells = g_new0 (CrCell *, code->n_cells + 1);
  for (guint k = 0; k < code->n_cells; k++)
    gen->frame.cells[k] = cr_cell_new ();
  gen->closure = cr_build_closure (frame, code);
  gen->n_closure = code->n_free;
  gen->frame.closure = gen->closure;
  gen->frame.stmt = node;
  gen->value = cr_value_new_object (&cr_gen_object_type, gen);
  return gen->value;
}

/* ---- running a def's body on its fiber ---- */

static void
fiber_body (CrFiber  *fiber,
            gpointer  data)
{
  CrGenObject *gen = data;
  CrInterp *self = gen->interp;
  CrCode *code = gen->frame.code;
  GError *error = NULL;

  CrExecStatus status = cr_exec_block (self, &gen->frame, code->body, code->n_body, &error);
  if (status == CR_EXEC_ERROR)
    {
      if (!error)
        error = g_error_new_literal (CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "");
      cr_interp_traceback_push (self, &gen->frame, error);
      gen->raised = error;
    }
  else
    {
      gen->result = gen->frame.retval ? gen->frame.retval : cr_value_none ();
      gen->frame.retval = NULL;
    }
}

static void
live_add (CrGenObject *gen)
{
  /* The value: when it started, the order they are closed in at the end. */
  static gsize serial;
  CrInterp *self = gen->interp;
  if (!self->live_gen_objects)
    self->live_gen_objects = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_hash_table_insert (self->live_gen_objects, gen,
                       GSIZE_TO_POINTER ((gsize) g_atomic_pointer_add (&serial, 1) + 1));
}

static void
live_remove (CrGenObject *gen)
{
  CrInterp *self = gen->interp;
  if (self && self->live_gen_objects)
    g_hash_table_remove (self->live_gen_objects, gen);
}

/* Puts the except clauses the body was inside back on the interpreter's
 * stack, above the consumer's. */
static void
handling_restore (CrGenObject *gen)
{
  CrInterp *self = gen->interp;
  gen->handling_base = self->handling ? self->handling->len : 0;
  if (!gen->handling || gen->handling->len == 0)
    return;
  /* The stack exists: the entries were taken from it. */
  for (guint i = 0; i < gen->handling->len; i++)
    g_ptr_array_add (self->handling, gen->handling->pdata[i]);
  g_ptr_array_set_size (gen->handling, 0);
}

/* The opposite, at a yield: the consumer's except clauses are the
 * interpreter's again. */
static void
handling_save (CrGenObject *gen)
{
  CrInterp *self = gen->interp;
  if (!self->handling || self->handling->len <= gen->handling_base)
    return;
  if (!gen->handling)
    gen->handling = g_ptr_array_new ();
  while (self->handling->len > gen->handling_base)
    g_ptr_array_add (gen->handling, g_ptr_array_steal_index (self->handling, gen->handling_base));
}

static gboolean
check_depth (CrGenObject  *gen,
             GError      **error)
{
  CrInterp *self = gen->interp;
  if (G_UNLIKELY (self->depth >= RECURSION_LIMIT || cr_stack_guard_exhausted ()) && !gen->stopping)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR,
                           "maximum recursion depth exceeded");
      return FALSE;
    }
  return TRUE;
}

/* Runs a def generator from where it stopped: 1, *out the value yielded;
 * 0, it returned *out; -1, *error. thrown (taken) is raised at the yield. */
static int
fiber_resume (CrGenObject  *gen,
              CrValue      *send,
              GError       *thrown,
              CrValue     **out,
              GError      **error)
{
  CrInterp *self = gen->interp;

  if (gen->state == GEN_CREATED && thrown)
    {
      /* throw() before the first next(): raised at once, in the consumer. */
      gen->state = GEN_DONE;
      live_remove (gen);
      release_frame (gen);
      g_propagate_error (error, thrown);
      return -1;
    }
  if (!check_depth (gen, error))
    {
      discard_error (self, thrown);
      return -1;
    }
  if (gen->state == GEN_CREATED)
    {
      gen->fiber = cr_fiber_new (fiber_body, gen, error);
      if (!gen->fiber)
        return -1;
      live_add (gen);
    }

  gen->transfer = send ? cr_value_ref (send) : NULL;
  gen->thrown = thrown;
  CrFrame *back = self->frame;
  guint depth = self->depth;
  CrScopeSaved saved_scope = { 0 };
  gboolean other_scope = gen->scope && gen->scope != self->scope;
  if (other_scope)
    cr_interp_scope_enter (self, gen->scope, &saved_scope);
  gen->frame.back = back;
  self->frame = &gen->frame;
  self->depth = depth + 1;
  handling_restore (gen);
  gen->state = GEN_RUNNING;

  cr_fiber_resume (gen->fiber);

  self->frame = back;
  self->depth = depth;
  if (other_scope)
    cr_interp_scope_leave (self, &saved_scope);
  const CrAstNode *span_stmt = cr_interp_span_stmt (self, back);
  if (span_stmt)
    cr_binding.statement (&span_stmt->span);

  if (!cr_fiber_is_finished (gen->fiber))
    {
      gen->state = GEN_SUSPENDED;
      *out = gen->transfer ? gen->transfer : cr_value_none ();
      gen->transfer = NULL;
      return 1;
    }
  g_clear_pointer (&gen->fiber, cr_fiber_free);
  gen->state = GEN_DONE;
  live_remove (gen);
  release_frame (gen);
  g_clear_pointer (&gen->transfer, cr_value_unref);
  if (gen->raised)
    {
      GError *err = g_steal_pointer (&gen->raised);
      stop_iteration_to_runtime_error (self, err);
      g_propagate_error (error, err);
      return -1;
    }
  *out = g_steal_pointer (&gen->result);
  return 0;
}

CrValue *
cr_gen_object_yield (CrInterp  *self,
                     CrFrame   *frame,
                     CrValue   *value,
                     GError   **error)
{
  CrGenObject *gen = (CrGenObject *) frame;

  g_return_val_if_fail (frame->code->is_generator && gen->fiber != NULL, NULL);
  gen->transfer = value;
  handling_save (gen);
  cr_fiber_suspend (gen->fiber);
  /* Resumed: fiber_resume has put the interpreter's state as the body had it. */
  if (gen->thrown)
    {
      g_clear_pointer (&gen->transfer, cr_value_unref);
      g_propagate_error (error, g_steal_pointer (&gen->thrown));
      return NULL;
    }
  CrValue *sent = gen->transfer ? gen->transfer : cr_value_none ();
  gen->transfer = NULL;
  return sent;
}

CrValue *
cr_gen_object_yield_from (CrInterp  *self,
                          CrFrame   *frame,
                          CrValue   *iterable,
                          GError   **error)
{
  if (is_gen_object (iterable))
    {
      /* Delegation: send() and throw() go through to the inner generator,
       * close() closes it first (PEP 380). */
      CrGenObject *inner = gen_of (iterable);
      CrValue *send = NULL;
      GError *thrown = NULL;
      for (;;)
        {
          CrValue *item = NULL;
          int r = gen_send (inner, send, thrown, &item, error);
          g_clear_pointer (&send, cr_value_unref);
          thrown = NULL;
          if (r < 0)
            return NULL;
          if (r == 0)
            return item;
          GError *local = NULL;
          send = cr_gen_object_yield (self, frame, item, &local);
          if (send)
            continue;
          if (is_error (local, CR_EXC_GENERATOR_EXIT) || is_error (local, CR_EXC_KEYBOARD_INTERRUPT)
              || is_error (local, CR_EXC_TIMEOUT_ERROR))
            {
              gen_stop (inner);
              g_propagate_error (error, local);
              return NULL;
            }
          thrown = local;
        }
    }

  CrIter it;
  if (!cr_iter_init (self, &it, iterable, error))
    return NULL;
  CrValue *item = NULL;
  int r;
  while ((r = cr_iter_next (self, &it, &item, error)) == 1)
    {
      CrValue *sent = cr_gen_object_yield (self, frame, item, error);
      if (!sent)
        {
          r = -1;
          break;
        }
      if (sent->kind != CR_VALUE_NONE)
        {
          cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR,
                               "'%s' object has no attribute 'send'", cr_value_type_name (iterable));
          cr_value_unref (sent);
          r = -1;
          break;
        }
      cr_value_unref (sent);
    }
  cr_iter_clear (&it);
  return r < 0 ? NULL : cr_value_none ();
}

/* ---- running a generator expression ---- */

/* The next element: 1 with *out, 0 at the end, -1 on error. */
static int
genexpr_step (CrGenObject  *gen,
              CrValue     **out,
              GError      **error)
{
  CrInterp *self = gen->interp;
  CrFrame *f = &gen->frame;

  while (gen->n_live > 0)
    {
      guint level = gen->n_live - 1;
      CrAstNode *clause = gen->clauses[level];
      CrValue *item = NULL;
      int r = cr_iter_next (self, &gen->iters[level], &item, error);
      if (r < 0)
        {
          cr_interp_locate (self, clause->u.comp.iter);
          return -1;
        }
      if (r == 0)
        {
          cr_iter_clear (&gen->iters[level]);
          gen->n_live--;
          continue;
        }
      /* A filter that rejects a billion items still stops for a timeout. */
      if (G_UNLIKELY (!cr_value_poll (self, ++gen->n_steps, 0, error)))
        {
          cr_value_unref (item);
          return -1;
        }
      gboolean ok = cr_store_target_unnamed (self, f, clause->u.comp.target, item, error);
      cr_value_unref (item);
      if (!ok)
        return -1;
      gboolean keep = TRUE;
      for (guint i = 0; keep && i < clause->u.comp.n_ifs; i++)
        {
          CrValue *c = cr_eval (self, f, clause->u.comp.ifs[i], error);
          ok = c && cr_value_truthy (self, c, &keep, error);
          cr_value_unref (c);
          if (!ok)
            return -1;
        }
      if (!keep)
        continue;
      if (level + 1 < gen->n_clauses)
        {
          CrAstNode *inner = gen->clauses[level + 1];
          CrValue *seq = cr_eval (self, f, inner->u.comp.iter, error);
          if (!seq)
            return -1;
          ok = cr_iter_init (self, &gen->iters[level + 1], seq, error);
          cr_value_unref (seq);
          if (!ok)
            {
              cr_interp_locate (self, inner->u.comp.iter);
              return -1;
            }
          gen->n_live++;
          continue;
        }
      *out = cr_eval (self, f, gen->genexpr->u.comp.elt, error);
      return *out ? 1 : -1;
    }
  return 0;
}

static int
genexpr_resume (CrGenObject  *gen,
                GError       *thrown,
                CrValue     **out,
                GError      **error)
{
  CrInterp *self = gen->interp;

  if (!check_depth (gen, error))
    {
      discard_error (self, thrown);
      return -1;
    }
  CrFrame *back = self->frame;
  guint depth = self->depth;
  CrScopeSaved saved_scope = { 0 };
  gboolean other_scope = gen->scope && gen->scope != self->scope;
  if (other_scope)
    cr_interp_scope_enter (self, gen->scope, &saved_scope);
  gen->frame.back = back;
  self->frame = &gen->frame;
  self->depth = depth + 1;
  gen->state = GEN_RUNNING;

  GError *local = NULL;
  int r;
  if (thrown)
    {
      /* Raised where the expression stands suspended: it ends there. */
      local = thrown;
      r = -1;
    }
  else
    r = genexpr_step (gen, out, &local);
  if (r < 0)
    {
      cr_interp_traceback_push (self, &gen->frame, local);
      stop_iteration_to_runtime_error (self, local);
    }

  self->frame = back;
  self->depth = depth;
  if (other_scope)
    cr_interp_scope_leave (self, &saved_scope);

  if (r == 1)
    {
      gen->state = GEN_SUSPENDED;
      return 1;
    }
  gen->state = GEN_DONE;
  release_frame (gen);
  if (r < 0)
    {
      g_propagate_error (error, local);
      return -1;
    }
  *out = cr_value_none ();
  return 0;
}

/* ---- the protocol ---- */

/* Resumes gen with send (borrowed; NULL: None) or thrown (taken): 1, *out
 * the next value; 0, *out its return value; -1, *error. */
static int
gen_send (CrGenObject  *gen,
          CrValue      *send,
          GError       *thrown,
          CrValue     **out,
          GError      **error)
{
  CrInterp *self = gen->interp;

  *out = NULL;
  if (gen->state == GEN_RUNNING)
    {
      discard_error (self, thrown);
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "generator already executing");
      return -1;
    }
  if (gen->state == GEN_DONE)
    {
      if (thrown)
        {
          g_propagate_error (error, thrown);
          return -1;
        }
      *out = cr_value_none ();
      return 0;
    }
  if (send && send->kind != CR_VALUE_NONE && gen->state == GEN_CREATED)
    {
      discard_error (self, thrown);
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "can't send non-None value to a just-started generator");
      return -1;
    }
  /* The consumer's reference may be the last (a generator that drops the
   * only name for itself): it stays alive until it stops again. */
  CrValue *keep = gen->value ? cr_value_ref (gen->value) : NULL;
  int r = gen->genexpr ? genexpr_resume (gen, thrown, out, error)
                       : fiber_resume (gen, send, thrown, out, error);
  cr_value_unref (keep);
  return r;
}

static int
gen_next_hook (CrInterp  *interp,
               CrValue   *value,
               CrValue  **out,
               GError   **error)
{
  int r = gen_send (gen_of (value), NULL, NULL, out, error);
  if (r == 0)
    g_clear_pointer (out, cr_value_unref);
  return r;
}

/* The value of next(), send() and throw(): the one yielded, or
 * StopIteration with the return value. */
static CrValue *
step_result (CrInterp  *self,
             int        r,
             CrValue   *item,
             GError   **error)
{
  if (r == 1)
    return item;
  if (r == 0)
    {
      set_stop_iteration (self, item, error);
      cr_value_unref (item);
    }
  return NULL;
}

CrValue *
cr_gen_object_builtin_next (CrInterp  *self,
                            CrValue   *iterator,
                            CrValue   *default_value,
                            GError   **error)
{
  CrValue *item = NULL;
  int r;
  if (is_gen_object (iterator))
    r = gen_send (gen_of (iterator), NULL, NULL, &item, error);
  else
    r = iterator->u.object.type->next (self, iterator, &item, error);
  if (r == 0 && default_value)
    {
      cr_value_unref (item);
      return cr_value_ref (default_value);
    }
  return step_result (self, r, item, error);
}

/* close(): GeneratorExit at the yield. TRUE when the generator stopped
 * (finished, or let GeneratorExit or StopIteration out); FALSE with the
 * error it raised instead, or its RuntimeError when it yielded again. */
static gboolean
gen_close (CrGenObject  *gen,
           GError      **error)
{
  CrInterp *self = gen->interp;

  if (gen->state == GEN_CREATED)
    {
      gen->state = GEN_DONE;
      release_frame (gen);
      return TRUE;
    }
  if (gen->state == GEN_RUNNING)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "generator already executing");
      return FALSE;
    }
  if (gen->state != GEN_SUSPENDED)
    return TRUE;
  GError *exit = g_error_new_literal (CR_LANG_ERROR, CR_EXC_GENERATOR_EXIT, "");
  CrValue *item = NULL;
  GError *local = NULL;
  int r = gen_send (gen, NULL, exit, &item, &local);
  if (r == 1)
    {
      cr_value_unref (item);
      cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "generator ignored GeneratorExit");
      return FALSE;
    }
  cr_value_unref (item);
  if (r == 0 || is_error (local, CR_EXC_GENERATOR_EXIT) || is_error (local, CR_EXC_STOP_ITERATION))
    {
      discard_error (self, local);
      return TRUE;
    }
  g_propagate_error (error, local);
  return FALSE;
}

/* Stops a suspended generator for good, running no script code: resumed
 * with the run marked cancelled, until its body has unwound. */
static void
gen_kill (CrGenObject *gen)
{
  static const gint cancelled = 1;
  CrInterp *self = gen->interp;

  if (gen->state == GEN_CREATED)
    {
      gen->state = GEN_DONE;
      release_frame (gen);
      return;
    }
  const gint *flag = self->options.cancel_flag;
  self->options.cancel_flag = &cancelled;
  gen->stopping = TRUE;
  while (gen->state == GEN_SUSPENDED)
    {
      GError *stop = g_error_new_literal (CR_LANG_ERROR, CR_EXC_KEYBOARD_INTERRUPT, "");
      CrValue *item = NULL;
      GError *local = NULL;
      gen_send (gen, NULL, stop, &item, &local);
      cr_value_unref (item);
      discard_error (self, local);
    }
  gen->stopping = FALSE;
  self->options.cancel_flag = flag;
}

/* A generator the script no longer reaches, or one a `yield from` left:
 * closed, and stopped for good if it will not close. */
static void
gen_stop (CrGenObject *gen)
{
  CrInterp *self = gen->interp;
  if (gen->state != GEN_SUSPENDED && gen->state != GEN_CREATED)
    return;
  ErrorState saved;
  error_state_save (self, &saved);
  GError *local = NULL;
  if (!gen_close (gen, &local))
    {
      /* Python prints what a finalizer raised, and goes on. */
      g_autofree char *text = g_strdup_printf ("Exception ignored in: <generator object %s at 0x%"
                                               G_GINTPTR_MODIFIER "x>\n%s: %s\n",
                                               gen->qualname, (gintptr) gen,
                                               cr_exception_name ((CrException) local->code),
                                               local->message);
      if (!is_error (local, CR_EXC_KEYBOARD_INTERRUPT) && !is_error (local, CR_EXC_TIMEOUT_ERROR))
        cr_interp_write (self, text, TRUE);
      discard_error (self, local);
    }
  if (gen->state == GEN_SUSPENDED)
    gen_kill (gen);
  error_state_restore (self, &saved);
}

static gint
by_start (gconstpointer a,
          gconstpointer b,
          gpointer      data)
{
  GHashTable *live = data;
  gsize sa = GPOINTER_TO_SIZE (g_hash_table_lookup (live, *(CrGenObject *const *) a));
  gsize sb = GPOINTER_TO_SIZE (g_hash_table_lookup (live, *(CrGenObject *const *) b));
  return sa < sb ? -1 : sa > sb;
}

void
cr_gen_objects_close_all (CrInterp *self)
{
  if (!self->live_gen_objects || g_hash_table_size (self->live_gen_objects) == 0)
    return;
  guint n = 0;
  CrGenObject **gens = (CrGenObject **) g_hash_table_get_keys_as_array (self->live_gen_objects, &n);
  g_qsort_with_data (gens, n, sizeof *gens, by_start, self->live_gen_objects);
  /* Held first: closing one may drop the last reference to another. */
  CrValue **values = g_new (CrValue *, n + 1);
  for (guint i = 0; i < n; i++)
    values[i] = cr_value_ref (gens[i]->value);
  for (guint i = 0; i < n; i++)
    if (gens[i]->state == GEN_SUSPENDED)
      gen_stop (gens[i]);
  for (guint i = 0; i < n; i++)
    cr_value_unref (values[i]);
  g_free (values);
  g_free (gens);
}

void
cr_gen_objects_shutdown (CrInterp *self)
{
  while (self->live_gen_objects && g_hash_table_size (self->live_gen_objects) > 0)
    {
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, self->live_gen_objects);
      if (!g_hash_table_iter_next (&it, &key, NULL))
        break;
      CrGenObject *gen = key;
      CrValue *keep = gen->value ? cr_value_ref (gen->value) : NULL;
      ErrorState saved;
      error_state_save (self, &saved);
      gen_kill (gen);
      error_state_restore (self, &saved);
      /* A body that never suspended again is out of the table already. */
      g_hash_table_remove (self->live_gen_objects, gen);
      cr_value_unref (keep);
    }
  g_clear_pointer (&self->live_gen_objects, g_hash_table_unref);
}

/* ---- the object ---- */

static void
gen_destroy (gpointer data)
{
  CrGenObject *gen = data;
  gen->value = NULL;
  if (gen->state == GEN_SUSPENDED)
    gen_stop (gen);
  g_assert (gen->state != GEN_SUSPENDED && gen->state != GEN_RUNNING);
  release_frame (gen);
  cr_fiber_free (gen->fiber);
  cr_value_unref (gen->function);
  cr_value_unref (gen->transfer);
  cr_value_unref (gen->result);
  if (gen->raised)
    g_error_free (gen->raised);
  if (gen->handling)
    g_ptr_array_unref (gen->handling);
  g_free (gen->clauses);
  g_free (gen->qualname);
  cr_memory_charge (-(gssize) gen->charged);
  g_free (gen);
}

static char *
gen_repr (CrValue *value)
{
  return g_strdup_printf ("<generator object %s at 0x%" G_GINTPTR_MODIFIER "x>",
                          gen_of (value)->qualname, (gintptr) value->u.object.data);
}

NATIVE (gen_m_next)
{
  if (!cr_builtin_no_kwargs ("__next__", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("__next__", n_args, 0, 0, error))
    return NULL;
  CrValue *item = NULL;
  int r = gen_send (gen_of (self), NULL, NULL, &item, error);
  return step_result (interp, r, item, error);
}

NATIVE (gen_m_iter)
{
  return cr_value_ref (self);
}

NATIVE (gen_m_send)
{
  if (!cr_builtin_no_kwargs ("send", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("send", n_args, 1, 1, error))
    return NULL;
  CrValue *item = NULL;
  int r = gen_send (gen_of (self), args[0], NULL, &item, error);
  return step_result (interp, r, item, error);
}

NATIVE (gen_m_throw)
{
  if (!cr_builtin_no_kwargs ("throw", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("throw", n_args, 1, 3, error))
    return NULL;
  GError *thrown = error_from_exception (interp, args[0], n_args > 1 ? args[1] : NULL, error);
  if (!thrown)
    return NULL;
  CrValue *item = NULL;
  int r = gen_send (gen_of (self), NULL, thrown, &item, error);
  return step_result (interp, r, item, error);
}

NATIVE (gen_m_close)
{
  if (!cr_builtin_no_kwargs ("close", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("close", n_args, 0, 0, error))
    return NULL;
  return gen_close (gen_of (self), error) ? cr_value_none () : NULL;
}

static CrValue *
gen_get_attr (CrInterp    *interp,
              CrValue     *value,
              const char  *name,
              GError     **error)
{
  static const struct { const char *name; CrNativeFunc fn; } methods[] = {
    { "__next__", gen_m_next },
    { "__iter__", gen_m_iter },
    { "send", gen_m_send },
    { "throw", gen_m_throw },
    { "close", gen_m_close },
  };
  CrGenObject *gen = gen_of (value);

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (name, methods[i].name) == 0)
      return cr_value_new_native (methods[i].name, methods[i].fn, value, NULL);
  if (strcmp (name, "gi_running") == 0)
    return cr_value_new_bool (gen->state == GEN_RUNNING);
  if (strcmp (name, "__qualname__") == 0)
    return cr_value_new_str (gen->qualname);
  if (strcmp (name, "__name__") == 0)
    return cr_value_new_str (gen->frame.code->name);
  return NULL;
}

const CrObjectType cr_gen_object_type = {
  .name = "generator",
  .destroy = gen_destroy,
  .get_attr = gen_get_attr,
  .repr = gen_repr,
  .next = gen_next_hook,
};
