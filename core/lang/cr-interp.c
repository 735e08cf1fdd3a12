/* cr-interp.c — the interpreter's life cycle and its object model: running a
 * module, calling functions (Python's argument binding, recursion limit),
 * classes and instances, attribute and item access, iteration, imports,
 * tracebacks, warnings and cancellation. Expressions are evaluated in
 * cr-interp-expr.c, statements run in cr-interp-stmt.c. */
#include "cr-gen-object.h"
#include "cr-interp-private.h"

#include <stdarg.h>
#include <string.h>

/* CPython's default recursion limit. The C stack is guarded separately
 * (cr-stack-guard.h). */
#define RECURSION_LIMIT 1000
#define TRACEBACK_REPEAT_CUTOFF 3

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

void
cr_script_error_free (CrScriptError *error)
{
  if (!error)
    return;
  g_free (error->message);
  g_free (error->traceback);
  g_free (error);
}

/* ---- source lines and tracebacks -------------------------------------------------- */

static gboolean
module_source_available (const CrAstModule *module)
{
  return module && module->source && g_strcmp0 (module->filename, "<stdin>") != 0;
}

static char *
module_raw_line (const CrAstModule *module,
                 int                line)
{
  if (!module || !module->source || line <= 0)
    return NULL;
  return cr_source_line (module->source, line);
}

static char *
raw_line (CrInterp *self,
          int       line)
{
  return module_raw_line (self->module, line);
}

char *
cr_interp_source_line (CrInterp *self,
                       int       line)
{
  char *text = raw_line (self, line);
  return text ? g_strstrip (text) : NULL;
}

void
cr_interp_forget_error (CrInterp *self)
{
  g_array_set_size (self->traceback, 0);
  self->traceback_owner = NULL;
  self->exc_name_owner = NULL;
  g_clear_pointer (&self->exc_name, g_free);
  self->exc_value_owner = NULL;
  g_clear_pointer (&self->exc_value, cr_value_unref);
  self->err_located = FALSE;
}

void
cr_interp_traceback_push (CrInterp *self,
                          CrFrame  *frame,
                          GError   *error)
{
  if (self->traceback_owner != error)
    {
      g_array_set_size (self->traceback, 0);
      self->traceback_owner = error;
    }
  CrTracebackEntry entry = {
    frame->code && frame->code->node ? frame->code->name : "<module>",
    frame->stmt,
    self->err_located ? self->err_node : frame->stmt,
    self->scope,
  };
  g_array_append_val (self->traceback, entry);
  self->err_located = FALSE;
}

/* Python 3.11's anchors: the operator of a binary operation, the brackets
 * of a subscript. Offsets are in code points, relative to the segment (the
 * failing expression's text), as the tree's columns are. */
static gboolean
caret_anchors (const CrAstNode *node,
               const gunichar  *segment,
               glong            len,
               glong            seg_start_col,
               glong           *left,
               glong           *right)
{
  if (node->kind == CR_AST_BINOP)
    {
      const CrAstNode *l = node->u.binop.left, *r = node->u.binop.right;
      if (l->span.end_line != node->span.line || r->span.line != node->span.line)
        return FALSE;
      glong from = l->span.end_column - seg_start_col;
      glong to = r->span.column - seg_start_col;
      if (from < 0 || to > len)
        return FALSE;
      for (glong i = from; i < to; i++)
        {
          if (g_unichar_isspace (segment[i]))
            continue;
          *left = i;
          *right = i + 1;
          if (i + 1 < to && !g_unichar_isspace (segment[i + 1]))
            ++*right;
          if (i + 1 < to && segment[i] == ')')
            continue;
          return TRUE;
        }
      return FALSE;
    }
  if (node->kind == CR_AST_SUBSCRIPT)
    {
      const CrAstNode *v = node->u.subscript.value, *ix = node->u.subscript.index;
      if (v->span.end_line != node->span.line || ix->span.end_line != node->span.line)
        return FALSE;
      glong l = v->span.end_column - seg_start_col;
      glong r = ix->span.end_column - seg_start_col + 1;
      if (l < 0 || r < 0)
        return FALSE;
      while (l < len && segment[l] != '[')
        l++;
      while (r < len && segment[r] != ']')
        r++;
      if (r < len)
        r++;
      *left = l;
      *right = r;
      return TRUE;
    }
  return FALSE;
}

/* The source line of a traceback entry and, as Python 3.11 prints them,
 * carets under the failing expression when it is not the whole line. */
static void
append_frame_source (const CrAstModule *module,
                     GString           *out,
                     int                line,
                     const CrAstNode   *node)
{
  if (!module_source_available (module))
    return;
  g_autofree char *text = module_raw_line (module, line);
  if (!text)
    return;
  g_strchomp (text);
  glong n_chars = 0;
  g_autofree gunichar *chars = g_utf8_to_ucs4_fast (text, -1, &n_chars);
  glong indent = 0;
  while (indent < n_chars && (chars[indent] == ' ' || chars[indent] == '\t' || chars[indent] == '\f'))
    indent++;
  if (indent == n_chars)
    return;
  g_string_append_printf (out, "    %s\n", g_utf8_offset_to_pointer (text, indent));

  if (!node || node->span.line != line || node->span.column <= 0)
    return;
  /* An expression over several lines is underlined to the end of its first. */
  gboolean one_line = node->span.end_line == line;
  if (one_line && node->span.end_column <= node->span.column)
    return;
  glong start = node->span.column - 1;
  glong end = one_line ? MIN ((glong) node->span.end_column - 1, n_chars) : n_chars;
  if (start < indent || start >= end)
    return;
  glong left = -1, right = -1;
  gboolean anchors = one_line && caret_anchors (node, chars + start, end - start,
                                                node->span.column, &left, &right);
  if (end - start == n_chars - indent && !anchors)
    return;
  g_string_append (out, "    ");
  for (glong i = indent; i < start; i++)
    g_string_append_c (out, ' ');
  for (glong i = 0; i < end - start; i++)
    g_string_append_c (out, anchors ? (i >= left && i < right ? '^' : '~') : '^');
  g_string_append_c (out, '\n');
}

static CrScriptError *
script_error_new (CrInterp *self,
                  GError   *error)
{
  CrScriptError *e = g_new0 (CrScriptError, 1);
  if (error->domain == CR_LANG_ERROR || error->domain == CR_CORE_ERROR)
    e->type = (CrException) error->code;
  else
    e->type = CR_EXC_RUNTIME_ERROR;
  if ((guint) e->type >= CR_EXC_COUNT)
    e->type = CR_EXC_RUNTIME_ERROR;
  e->message = g_strdup (error->message);
  if (self->options.cancel_flag && g_atomic_int_get (self->options.cancel_flag) == 2
      && (e->type == CR_EXC_KEYBOARD_INTERRUPT || e->type == CR_EXC_TIMEOUT_ERROR))
    {
      e->type = CR_EXC_TIMEOUT_ERROR;
      g_free (e->message);
      e->message = g_strdup ("the script did not finish within the time limit (--timeout)");
    }

  const char *type_name = cr_exception_name (e->type);
  if (self->exc_name && self->exc_name_owner == error)
    type_name = self->exc_name;

  GString *tb = g_string_new ("Traceback (most recent call last):\n");
  GArray *entries = self->traceback_owner == error ? self->traceback : NULL;
  /* Like CPython, a frame repeated more than three times in a row (deep
   * recursion) is shown three times and then counted. */
  const char *last_function = NULL;
  int last_line = -1;
  guint repeat = 0;
  if (entries)
    for (guint i = entries->len; i > 0; i--)
      {
        CrTracebackEntry *entry = &g_array_index (entries, CrTracebackEntry, i - 1);
        const CrAstNode *where = entry->node ? entry->node : entry->stmt;
        int line = where ? where->span.line : 0;
        const CrAstModule *module = entry->scope ? entry->scope->module : self->module;
        const char *filename = module && module->filename ? module->filename : "<string>";
        /* The window underlines the innermost line of the script, not of the
         * prelude (torch.nn's source) below it. */
        if (where && !(entry->scope && entry->scope->is_prelude))
          e->span = where->span;
        if (line != last_line || g_strcmp0 (entry->function, last_function) != 0)
          {
            if (repeat > TRACEBACK_REPEAT_CUTOFF)
              g_string_append_printf (tb, "  [Previous line repeated %u more time%s]\n",
                                      repeat - TRACEBACK_REPEAT_CUTOFF,
                                      repeat - TRACEBACK_REPEAT_CUTOFF == 1 ? "" : "s");
            last_line = line;
            last_function = entry->function;
            repeat = 0;
          }
        if (++repeat > TRACEBACK_REPEAT_CUTOFF)
          continue;
        /* A notebook's line is told as its cell's (cr-interp-cells.h). */
        int cell_line = 0;
        const CrScriptCell *cell = !(entry->scope && entry->scope->is_prelude)
                                   ? cr_interp_cell_at (self, line, &cell_line) : NULL;
        if (cell)
          g_string_append_printf (tb, "  File \"%s\", cell %u, line %d, in %s\n", filename,
                                  cell->number, cell_line, entry->function);
        else
          g_string_append_printf (tb, "  File \"%s\", line %d, in %s\n", filename, line,
                                  entry->function);
        append_frame_source (module, tb, line, entry->node);
      }
  if (repeat > TRACEBACK_REPEAT_CUTOFF)
    g_string_append_printf (tb, "  [Previous line repeated %u more time%s]\n",
                            repeat - TRACEBACK_REPEAT_CUTOFF,
                            repeat - TRACEBACK_REPEAT_CUTOFF == 1 ? "" : "s");
  if (e->message[0])
    g_string_append_printf (tb, "%s: %s\n", type_name, e->message);
  else
    g_string_append_printf (tb, "%s\n", type_name);
  e->traceback = g_string_free (tb, FALSE);
  return e;
}

CrScriptError *
cr_interp_script_error (CrInterp *self,
                        CrFrame  *frame,
                        GError   *error)
{
  cr_interp_traceback_push (self, frame, error);
  return script_error_new (self, error);
}

/* A SyntaxError as Python prints it: no traceback, the line and a caret. */
static CrScriptError *
syntax_error_new (CrInterp     *self,
                  CrAstModule  *module,
                  const CrSpan *span,
                  GError       *error)
{
  CrScriptError *e = g_new0 (CrScriptError, 1);
  e->type = error->domain == CR_LANG_ERROR
            && (error->code == CR_EXC_INDENTATION_ERROR || error->code == CR_EXC_TAB_ERROR
                || error->code == CR_EXC_RECURSION_ERROR)
            ? (CrException) error->code : CR_EXC_SYNTAX_ERROR;
  e->message = g_strdup (error->message);
  e->span = *span;
  if (e->type == CR_EXC_RECURSION_ERROR)
    {
      /* Python's compiler gives it without a location. */
      e->traceback = g_strdup_printf ("RecursionError: %s\n", error->message);
      return e;
    }
  e->traceback = cr_format_syntax_error (module->filename, module->source, span,
                                         cr_exception_name (e->type), error->message);
  return e;
}

char *
cr_format_syntax_error (const char   *filename,
                        const char   *source,
                        const CrSpan *span,
                        const char   *type_name,
                        const char   *message)
{
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "  File \"%s\", line %d\n", filename ? filename : "<string>",
                          span->line);
  g_autofree char *text = source && span->line > 0 ? cr_source_line (source, span->line) : NULL;
  if (text)
    {
      g_strchomp (text);
      glong n_chars = g_utf8_strlen (text, -1);
      glong indent = 0;
      while (text[indent] == ' ' || text[indent] == '\t' || text[indent] == '\f')
        indent++;
      if (text[indent])
        {
          g_string_append_printf (out, "    %s\n", text + indent);
          glong col = span->column > 0 ? span->column - 1 : 0;
          if (col > n_chars)
            col = n_chars;
          glong start = MAX (col - indent, 0);
          glong n = 1;
          if (span->end_line == span->line && span->end_column > span->column)
            n = MAX (MIN ((glong) span->end_column - 1, n_chars) - col, 1);
          g_string_append (out, "    ");
          for (glong i = 0; i < start; i++)
            g_string_append_c (out, ' ');
          for (glong i = 0; i < n; i++)
            g_string_append_c (out, '^');
          g_string_append_c (out, '\n');
        }
    }
  g_string_append_printf (out, "%s: %s\n", type_name, message);
  return g_string_free (out, FALSE);
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
        *out_error = syntax_error_new (self, module, &span, error);
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
      cr_interp_traceback_push (self, &frame, error);
      run_error = script_error_new (self, error);
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

void
cr_interp_warn (CrInterp   *self,
                const char *category,
                const char *message)
{
  /* A warning from prelude code points at the script's line that called it,
   * as PyTorch's stacklevel= does for most of its warnings. */
  const CrAstNode *stmt = self->in_prelude ? self->user_stmt
                          : self->frame ? self->frame->stmt : NULL;
  const CrAstModule *module = self->in_prelude ? self->main_scope.module : self->module;
  int line = stmt ? stmt->span.line : 0;
  char *key = g_strdup_printf ("%d\x1f%s\x1f%s", line, category, message);
  if (g_hash_table_contains (self->warned, key))
    {
      g_free (key);
      return;
    }
  g_hash_table_add (self->warned, key);
  const char *filename = module && module->filename ? module->filename : "<string>";
  GString *out = g_string_new (NULL);
  int cell_line = 0;
  const CrScriptCell *cell = module == self->main_scope.module
                             ? cr_interp_cell_at (self, line, &cell_line) : NULL;
  if (cell)   /* a notebook's line is told as its cell's (cr-interp-cells.h) */
    g_string_append_printf (out, "%s, cell %u, line %d: %s: %s\n", filename, cell->number,
                            cell_line, category, message);
  else
    g_string_append_printf (out, "%s:%d: %s: %s\n", filename, line, category, message);
  if (module_source_available (module))
    {
      g_autofree char *text = module_raw_line (module, line);
      if (text && g_strstrip (text)[0])
        g_string_append_printf (out, "  %s\n", text);
    }
  cr_interp_write (self, out->str, TRUE);
  g_string_free (out, TRUE);
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

/* ---- calls -------------------------------------------------------------------------- */

static void
missing_args_error (GError     **error,
                    const char  *qualname,
                    const char  *kind,
                    const char **names,
                    guint        n)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s() missing %u required %s argument%s: ", qualname, n, kind,
                          n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, n == 2 ? " and " : (i == n - 1 ? ", and " : ", "));
      g_string_append_printf (s, "'%s'", names[i]);
    }
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, s->str);
  g_string_free (s, TRUE);
}

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
      missing_args_error (error, qualname, "positional", missing, n_missing);
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
      missing_args_error (error, qualname, "keyword-only", missing, n_missing);
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

/* ---- attributes ----------------------------------------------------------------------- */

CrValue *
cr_interp_getattr_opt (CrInterp    *self,
                       CrValue     *obj,
                       const char  *name,
                       GError     **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
      return cr_object_builtin_getattr (self, obj, name, error);
    case CR_VALUE_MODULE:
      {
        CrValue *v = g_hash_table_lookup (obj->u.module.attrs, name);
        if (v)
          return cr_value_ref (v);
        if (strcmp (name, "__name__") == 0)
          return cr_value_new_str (obj->u.module.name);
        /* `torch.nn` after `import torch`: the prelude module, run now. */
        v = cr_prelude_submodule (self, obj, name, error);
        if (v || (error && *error))
          return v;
        /* A module's own __getattr__ (PEP 562): torch.nn names what it lacks.
         * Its AttributeError is Python's, with 3.11's "Did you mean" added
         * by cr_interp_getattr, so it counts as not found. */
        CrValue *ga = g_hash_table_lookup (obj->u.module.attrs, "__getattr__");
        if (ga)
          {
            GError *local = NULL;
            CrValue *arg = cr_value_new_str (name);
            CrValue *r = cr_interp_call (self, ga, &arg, 1, NULL, 0, &local);
            cr_value_unref (arg);
            if (local && local->domain == CR_LANG_ERROR && local->code == CR_EXC_ATTRIBUTE_ERROR)
              {
                g_error_free (local);
                cr_interp_forget_error (self);
                return NULL;
              }
            if (local)
              g_propagate_error (error, local);
            return r;
          }
        return NULL;
      }
    case CR_VALUE_INSTANCE:
      if (G_UNLIKELY (self->options.coach))
        cr_binding.instance_attr (self, obj, name, NULL);
      return cr_object_instance_getattr (self, obj, name, error);
    case CR_VALUE_CLASS:
      {
        CrValue *cv = cr_object_class_lookup (self, obj, name);
        if (cv)
          return cr_object_bind_class_attr (self, cv, obj, error);
        if (strcmp (name, "__name__") == 0 || strcmp (name, "__qualname__") == 0)
          return cr_value_new_str (obj->u.cls.name);
        if (strcmp (name, "__mro__") == 0)
          {
            /* Single inheritance: the class, its bases, object. */
            CrValue *object = cr_object_class (self);
            GPtrArray *mro = g_ptr_array_new ();
            CrValue *last = obj;
            for (CrValue *c = obj; c && mro->len < 64; c = c->u.cls.base)
              g_ptr_array_add (mro, cr_value_ref (last = c));
            if (last != object)
              g_ptr_array_add (mro, cr_value_ref (object));
            return cr_value_new_tuple_take (mro);
          }
        if (strcmp (name, "__base__") == 0 || strcmp (name, "__bases__") == 0)
          {
            CrValue *object = cr_object_class (self);
            CrValue *base = obj->u.cls.base ? obj->u.cls.base : obj != object ? object : NULL;
            if (strcmp (name, "__base__") == 0)
              return base ? cr_value_ref (base) : cr_value_none ();
            return cr_value_new_tuple (&base, base ? 1 : 0);
          }
        return cr_builtin_unbound_method (self, obj, name);
      }
    case CR_VALUE_OBJECT:
      if (obj->u.object.type->get_attr)
        return obj->u.object.type->get_attr (self, obj, name, error);
      return NULL;
    case CR_VALUE_FUNCTION:
      if (strcmp (name, "__name__") == 0)
        return cr_value_new_str (obj->u.function->code->name);
      if (strcmp (name, "__qualname__") == 0)
        return cr_value_new_str (obj->u.function->qualname);
      if (strcmp (name, "__doc__") == 0)
        return cr_object_docstring (obj->u.function->code);
      return NULL;
    case CR_VALUE_NATIVE:
      if (strcmp (name, "__name__") == 0)
        return cr_value_new_str (obj->u.native.name);
      return NULL;
    case CR_VALUE_BOUND_METHOD:
      if (strcmp (name, "__self__") == 0)
        return cr_value_ref (obj->u.bound.self);
      if (strcmp (name, "__func__") == 0)
        return cr_value_ref (obj->u.bound.func);
      return cr_interp_getattr_opt (self, obj->u.bound.func, name, error);
    default:
      return cr_builtin_method (self, obj, name);
    }
}

CrValue *
cr_interp_getattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   GError     **error)
{
  GError *local = NULL;
  CrValue *v = cr_interp_getattr_opt (self, obj, name, &local);
  if (local)
    {
      cr_value_unref (v);
      g_propagate_error (error, local);
      return NULL;
    }
  if (v)
    return v;
  g_autofree char *message = NULL;
  switch (obj->kind)
    {
    case CR_VALUE_MODULE:
      message = g_strdup_printf ("module '%s' has no attribute '%s'", obj->u.module.name, name);
      break;
    case CR_VALUE_CLASS:
      message = g_strdup_printf ("type object '%s' has no attribute '%s'", obj->u.cls.name, name);
      break;
    default:
      message = g_strdup_printf ("'%s' object has no attribute '%s'", cr_value_type_name (obj), name);
      break;
    }
  const char *suggestion = cr_suggest_attribute (self, obj, name);
  if (suggestion)
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "%s. Did you mean: '%s'?", message, suggestion);
  else
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "%s", message);
  return NULL;
}

gboolean
cr_interp_setattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   CrValue     *value,
                   GError     **error)
{
  switch (obj->kind)
    {
    case CR_VALUE_TENSOR:
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
      return cr_object_builtin_setattr (self, obj, name, value, error);
    case CR_VALUE_INSTANCE:
      if (G_UNLIKELY (self->options.coach))
        cr_binding.instance_attr (self, obj, name, value);
      return cr_object_instance_setattr (self, obj, name, value, error);
    case CR_VALUE_CLASS:
      if (strcmp (name, "__name__") == 0 && value->kind == CR_VALUE_STR)
        {
          /* A class made by a function (namedtuple) takes its name. */
          g_free (obj->u.cls.name);
          obj->u.cls.name = g_strdup (value->u.str.data);
          return TRUE;
        }
      cr_value_set_member (obj, name, value);
      return TRUE;
    case CR_VALUE_MODULE:
      cr_value_set_member (obj, name, value);
      return TRUE;
    case CR_VALUE_OBJECT:
      if (obj->u.object.type->set_attr)
        {
          GError *local = NULL;
          if (obj->u.object.type->set_attr (self, obj, name, value, &local))
            return TRUE;
          if (local)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
        }
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                       cr_value_type_name (obj), name);
  return FALSE;
}

gboolean
cr_interp_delattr (CrInterp    *self,
                   CrValue     *obj,
                   const char  *name,
                   GError     **error)
{
  GHashTable *attrs = NULL;
  if (obj->kind == CR_VALUE_INSTANCE)
    return cr_object_instance_delattr (self, obj, name, error);
  if (cr_object_extra (obj, FALSE))
    return cr_object_builtin_delattr (self, obj, name, error);
  if (obj->kind == CR_VALUE_CLASS)
    attrs = obj->u.cls.attrs;
  if (attrs && g_hash_table_remove (attrs, name))
    return TRUE;
  if (obj->kind == CR_VALUE_CLASS)
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "type object '%s' has no attribute '%s'",
                         obj->u.cls.name, name);
  else
    cr_interp_set_error (error, CR_EXC_ATTRIBUTE_ERROR, "'%s' object has no attribute '%s'",
                         cr_value_type_name (obj), name);
  return FALSE;
}

/* ---- imports --------------------------------------------------------------------------------- */

CrValue *
cr_interp_import (CrInterp    *self,
                  const char  *dotted,
                  GError     **error)
{
  CrValue *m = g_hash_table_lookup (self->modules, dotted);
  if (m)
    return cr_value_ref (m);
  if (strcmp (dotted, "math") == 0)
    m = cr_math_module_new ();
  else if (strcmp (dotted, "_random") == 0)
    m = cr_pyrandom_module_new ();
  else if (strcmp (dotted, "time") == 0)
    m = cr_time_module_new ();
  else if (g_str_has_prefix (dotted, "math."))
    {
      cr_interp_set_error (error, CR_EXC_MODULE_NOT_FOUND_ERROR,
                           "No module named '%s'; 'math' is not a package", dotted);
      return NULL;
    }
  else if (cr_binding.owns_module (dotted))
    {
      /* A prelude module (torch.nn ...) caches itself before it runs, as
       * Python's sys.modules does, so that its imports may name it. */
      gboolean handled = FALSE;
      m = cr_prelude_import (self, dotted, &handled, error);
      if (handled)
        return m;
      m = cr_binding.import (self, dotted, error);
      if (!m)
        return NULL;
    }
  else
    {
      /* Other modules written as prelude source (itertools). */
      gboolean handled = FALSE;
      m = cr_prelude_import (self, dotted, &handled, error);
      if (handled)
        return m;
      g_autofree char *top = g_strdup (dotted);
      char *dot = strchr (top, '.');
      if (dot)
        *dot = '\0';
      cr_interp_set_error (error, CR_EXC_MODULE_NOT_FOUND_ERROR, "No module named '%s'", top);
      return NULL;
    }
  g_hash_table_insert (self->modules, g_strdup (dotted), cr_value_ref (m));
  return m;
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
