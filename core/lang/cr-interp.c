/* cr-interp.c — the interpreter's life cycle: making and freeing one,
 * running a module (its globals, its frame, a notebook's cells), and the
 * services the other layers call (output, loop iterations, cancellation,
 * the binding's state). Calls are in cr-interp-call.c, attribute access in
 * cr-interp-attr.c, imports in cr-interp-import.c, tracebacks and warnings
 * in cr-interp-traceback.c; expressions are evaluated in cr-interp-expr.c,
 * statements run in cr-interp-stmt.c. */
#include "cr-gen-object.h"
#include "cr-interp-private.h"

#include <stdarg.h>

void
cr_interp_set_error (GError     **error,
                     CrException  code,
                     const char  *format,
                     ...)
{
  va_list ap;
  if (error == NULL)
    return;
  va_start (ap, format);
  char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, CR_LANG_ERROR, code, msg);
  g_free (msg);
}

/* ---- life cycle ------------------------------------------------------------------- */

static void
value_unref_notify (gpointer data)
{
  cr_value_unref (data);
}

CrInterp *
cr_interp_new (const CrInterpOptions *options)
{
  CrInterp *self = g_new0 (CrInterp, 1);
  if (options)
    self->options = *options;
  /* --trace-backward prints each backward call from the run record. */
  self->options.record_backward |= self->options.trace_backward;
  self->options.record_backward |= self->options.trace_forward;
  self->builtins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_unref_notify);
  self->modules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_unref_notify);
  self->type_classes = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->tensor_slots = cr_binding.tensor_slots;
  self->method_tables = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                               (GDestroyNotify) g_hash_table_unref);
  self->traceback = g_array_new (FALSE, FALSE, sizeof (CrTracebackEntry));
  self->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->labels_enabled = self->options.record_backward || self->options.trace_backward;
  self->binding_state = cr_binding.state_new (self);
  cr_builtins_install (self);
  cr_methods_install (self);
  return self;
}

static void
clear_globals (CrInterp *self)
{
  /* Unbind in two steps so that destructors that look at globals see a
   * consistent (empty) table. */
  for (guint i = 0; i < self->n_globals; i++)
    {
      CrValue *v = self->globals[i].value;
      self->globals[i].value = NULL;
      cr_value_unref (v);
    }
  g_clear_pointer (&self->globals, g_free);
  self->n_globals = 0;
}

typedef struct {
  GDestroyNotify func;
  gpointer       data;
} CrAtFree;

void
cr_interp_at_free (CrInterp       *self,
                   GDestroyNotify  func,
                   gpointer        data)
{
  CrAtFree *entry = g_new (CrAtFree, 1);

  g_return_if_fail (self != NULL && func != NULL);
  entry->func = func;
  entry->data = data;
  if (!self->at_free)
    self->at_free = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->at_free, entry);
}

void
cr_interp_free (CrInterp *self)
{
  if (!self)
    return;
  /* Generators still suspended hold frames on stacks of their own. */
  cr_gen_objects_shutdown (self);
  while (self->at_free && self->at_free->len > 0)
    {
      CrAtFree *entry = g_ptr_array_steal_index (self->at_free, self->at_free->len - 1);
      entry->func (entry->data);
      g_free (entry);
    }
  g_clear_pointer (&self->at_free, g_ptr_array_unref);
  g_clear_pointer (&self->globals_view, g_hash_table_unref);
  clear_globals (self);
  cr_prelude_scopes_free (self);
  g_hash_table_unref (self->modules);
  g_hash_table_unref (self->method_tables);
  g_hash_table_unref (self->type_classes);
  g_hash_table_unref (self->builtins);
  g_array_unref (self->traceback);
  g_hash_table_unref (self->warned);
  g_free (self->exc_name);
  cr_interp_try_clear (self);
  cr_binding.state_free (self->binding_state);
  cr_program_free (self->program);
  g_free (self);
  /* What this thread's values still owe or are owed the memory budget. */
  cr_value_flush_accounting ();
}

/* ---- running a module ---------------------------------------------------------------- */

gboolean
cr_interp_run (CrInterp        *self,
               CrAstModule     *module,
               CrScriptError  **out_error)
{
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };

  g_return_val_if_fail (self != NULL && module != NULL, FALSE);
  if (out_error)
    *out_error = NULL;
  self->module = module;
  /* Every run starts from a fresh thread's state (the binding's too). */
  cr_binding.run_begin (self);
  cr_value_set_thread_interp (self);

  CrProgram *program = cr_program_new (module, &span, &error);
  if (!program)
    {
      if (out_error)
        *out_error = cr_interp_syntax_error (self, module, &span, error);
      self->module = NULL;
      return FALSE;
    }
  g_clear_pointer (&self->globals_view, g_hash_table_unref);
  clear_globals (self);
  cr_program_free (self->program);
  self->program = program;

  /* The module's own names: scripts test `if __name__ == "__main__":`. */
  g_hash_table_insert (self->builtins, g_strdup ("__name__"), cr_value_new_str ("__main__"));
  g_hash_table_insert (self->builtins, g_strdup ("__file__"),
                       cr_value_new_str (module->filename ? module->filename : "<string>"));

  if (self->cells)
    cr_interp_cells_install (self);

  self->n_globals = cr_program_n_globals (program);
  self->globals = g_new0 (CrGlobalSlot, self->n_globals + 1);
  for (guint i = 0; i < self->n_globals; i++)
    {
      self->globals[i].builtin = g_hash_table_lookup (self->builtins,
                                                      cr_program_global_name (program, i));
    }
  self->main_scope = (CrScope) {
    .name = "__main__",
    .module = module,
    .program = program,
    .globals = self->globals,
    .n_globals = self->n_globals,
  };
  self->scope = &self->main_scope;
  self->in_prelude = FALSE;

  CrCode *code = cr_program_module_code (program);
  CrFrame frame = { 0 };
  frame.code = code;
  frame.locals = g_new0 (CrValue *, code->n_locals + 1);
  frame.cells = g_new0 (CrCell *, code->n_cells + 1);
  for (guint i = 0; i < code->n_cells; i++)
    frame.cells[i] = cr_cell_new ();
  self->frame = &frame;
  self->depth = 1;
  self->err_located = FALSE;

  CrScriptError *cell_error = NULL;
  CrExecStatus status = self->cells
                        ? cr_exec_cells (self, &frame, code, &cell_error, &error)
                        : cr_exec_block (self, &frame, code->body, code->n_body, &error);
  gboolean ok = status != CR_EXEC_ERROR;
  CrScriptError *run_error = NULL;
  if (!ok)
    {
      run_error = cr_interp_script_error (self, &frame, error);
      cr_script_error_free (cell_error);
    }
  else if (cell_error)
    {
      /* A notebook whose cells failed: each failure is in the record and
       * the output already; the first is the run's error. */
      ok = FALSE;
      run_error = cell_error;
    }
  /* As at Python's exit: the generators still suspended are closed, and
   * their finally blocks run (cr-gen-object.c). */
  cr_gen_objects_close_all (self);
  /* And the thread goes back as it was found. */
  self->run_error = run_error && !run_error->reported ? run_error : NULL;
  cr_binding.run_end (self);
  self->run_error = NULL;
  cr_value_set_thread_interp (NULL);
  if (out_error)
    *out_error = run_error;
  else
    cr_script_error_free (run_error);

  self->frame = NULL;
  self->depth = 0;
  for (guint i = 0; i < code->n_locals; i++)
    cr_value_unref (frame.locals[i]);
  for (guint i = 0; i < code->n_cells; i++)
    cr_cell_unref (frame.cells[i]);
  cr_value_unref (frame.retval);
  g_free (frame.locals);
  g_free (frame.cells);
  g_array_set_size (self->traceback, 0);
  self->traceback_owner = NULL;
  self->module = NULL;
  return ok;
}

GHashTable *
cr_interp_get_globals (CrInterp *self)
{
  g_clear_pointer (&self->globals_view, g_hash_table_unref);
  self->globals_view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_unref_notify);
  for (guint i = 0; i < self->n_globals; i++)
    if (self->globals[i].value)
      g_hash_table_insert (self->globals_view,
                           g_strdup (cr_program_global_name (self->program, i)),
                           cr_value_ref (self->globals[i].value));
  return self->globals_view;
}

/* ---- services ---------------------------------------------------------------------- */

void
cr_interp_write (CrInterp   *self,
                 const char *text,
                 gboolean    is_stderr)
{
  if (self->options.output)
    self->options.output (text, is_stderr, self->options.output_data);
}

guint
cr_interp_loop_iteration (CrInterp *self)
{
  for (const CrFrame *f = self->frame; f; f = f->back)
    if (f->loop_iteration > 0)
      return f->loop_iteration;
  return 0;
}

guint
cr_interp_loop_path (CrInterp *self,
                     guint    *path,
                     guint     max)
{
  /* Frames link innermost first: gathered innermost first, then turned. */
  guint n = 0;
  for (const CrFrame *f = self->frame; f && n < max; f = f->back)
    {
      guint k = MIN (f->loop_depth, CR_FRAME_LOOP_PATH);
      /* Nested deeper than the frame keeps: its outermost loops and the
       * innermost. */
      if (f->loop_depth > CR_FRAME_LOOP_PATH && f->loop_iteration > 0)
        {
          path[n++] = f->loop_iteration;
          k--;
        }
      for (; k > 0 && n < max; k--)
        path[n++] = f->loop_path[k - 1];
    }
  for (guint i = 0; i < n / 2; i++)
    {
      guint t = path[i];
      path[i] = path[n - 1 - i];
      path[n - 1 - i] = t;
    }
  return n;
}

gboolean
cr_interp_check_cancel (CrInterp  *self,
                        GError   **error)
{
  const gint *flag = self->options.cancel_flag;
  /* Values are charged to the memory budget without a check; this is
   * where a script that grew past it hears of it. */
  if (G_UNLIKELY (!cr_value_check_memory (error)))
    return FALSE;
  if (G_LIKELY (flag == NULL))
    return TRUE;
  gint value = g_atomic_int_get (flag);
  if (G_LIKELY (value == 0))
    return TRUE;
  if (value == 2)
    g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TIMEOUT_ERROR,
                         "the script did not finish within the time limit (--timeout)");
  else
    g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEYBOARD_INTERRUPT, "");
  return FALSE;
}

const gint *
cr_interp_get_cancel_flag (CrInterp *self)
{
  return self->options.cancel_flag;
}

CrDeviceType
cr_interp_get_default_device (CrInterp *self)
{
  return self->options.default_device;
}

gpointer
cr_interp_get_binding_state (CrInterp *self)
{
  return self->binding_state;
}

CrValue *
cr_interp_loaded_module (CrInterp   *self,
                         const char *dotted_name)
{
  return g_hash_table_lookup (self->modules, dotted_name);
}

guint
cr_interp_next_handle_id (CrInterp *self)
{
  return self->next_handle_id++;
}
