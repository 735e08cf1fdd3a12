/* cr-interp-cells.c — a module run as notebook cells (see cr-interp-cells.h).
 * What a cell shows is laid out by the prelude's IPython/lib/pretty.py. */
#include "cr-interp-cells.h"

#include "cr-interp-private.h"

#include <string.h>

void
cr_script_cell_clear (CrScriptCell *cell)
{
  g_clear_pointer (&cell->notes, g_free);
  g_clear_pointer (&cell->syntax_message, g_free);
  g_clear_pointer (&cell->syntax_text, g_free);
}

void
cr_interp_set_cells (CrInterp           *self,
                     const CrScriptCell *cells,
                     guint               n_cells)
{
  self->cells = n_cells > 0 ? cells : NULL;
  self->n_cells = self->cells ? n_cells : 0;
}

const CrScriptCell *
cr_interp_cell_at (CrInterp *self,
                   int       line,
                   int      *cell_line)
{
  for (guint i = 0; self->cells && i < self->n_cells; i++)
    {
      const CrScriptCell *cell = &self->cells[i];
      if (line >= cell->first_line && line <= cell->last_line)
        {
          if (cell_line)
            *cell_line = line - cell->first_line + 1;
          return cell;
        }
    }
  return NULL;
}

guint
cr_interp_running_cell (CrInterp *self)
{
  return self->running_cell;
}

guint
cr_interp_n_failed_cells (CrInterp *self)
{
  return self->n_failed_cells;
}

static gboolean
stopped (CrInterp *self)
{
  const gint *flag = self->options.cancel_flag;
  return flag && g_atomic_int_get (flag) != 0;
}

/* value as Jupyter's text/plain shows it: IPython's pretty printer (the
 * prelude's IPython/lib/pretty.py), a repr laid out within 79 columns. */
static char *
display_text (CrInterp  *self,
              CrValue   *value,
              GError   **error)
{
  CrValue *module = cr_interp_import (self, "IPython.lib.pretty", error);
  if (!module)
    return NULL;
  CrValue *pretty = cr_interp_getattr (self, module, "pretty", error);
  cr_value_unref (module);
  if (!pretty)
    return NULL;
  GError *local = NULL;
  CrValue *text = cr_interp_call (self, pretty, &value, 1, NULL, 0, &local);
  cr_value_unref (pretty);
  if (!text)
    {
      /* Stopped: stopped. Else the value's own repr, which raises the
       * script's error when that is what failed. */
      if (stopped (self))
        {
          g_propagate_error (error, local);
          return NULL;
        }
      g_error_free (local);
      cr_interp_forget_error (self);
      return cr_value_repr (self, value, error);
    }
  char *result = text->kind == CR_VALUE_STR ? g_strndup (text->u.str.data, text->u.str.len)
                                            : cr_value_repr (self, text, error);
  cr_value_unref (text);
  return result;
}

/* display(*objs): what Jupyter shows as text/plain, each object on a line
 * of its own. Keyword arguments (display_id, clear, ...) change nothing a
 * text output shows. */
NATIVE (b_display)
{
  for (guint i = 0; i < n_args; i++)
    {
      char *text = display_text (interp, args[i], error);
      if (!text)
        return NULL;
      cr_interp_write (interp, text, FALSE);
      cr_interp_write (interp, "\n", FALSE);
      g_free (text);
    }
  return cr_value_none ();
}

void
cr_interp_cells_install (CrInterp *self)
{
  g_hash_table_insert (self->builtins, g_strdup ("display"),
                       cr_value_new_native ("display", b_display, NULL, NULL));
}

/* Whether the statement ending on line `line` ends with ';' (a comment
 * after it aside): Jupyter then shows no Out value. */
static gboolean
ends_with_semicolon (CrInterp *self,
                     int       line)
{
  const char *source = self->module ? self->module->source : NULL;
  g_autofree char *text = source ? cr_source_line (source, line) : NULL;
  if (!text)
    return FALSE;
  char quote = 0;
  char last = 0;
  for (const char *p = text; *p; p++)
    {
      if (quote)
        {
          if (*p == '\\' && p[1])
            p++;
          else if (*p == quote)
            quote = 0;
          last = *p;
          continue;
        }
      if (*p == '#')
        break;
      if (*p == '\'' || *p == '"')
        quote = *p;
      if (!g_ascii_isspace (*p))
        last = *p;
    }
  return last == ';';
}

/* Runs the last statement, an expression, and shows its value. */
static CrExecStatus
exec_displayed (CrInterp   *self,
                CrFrame    *frame,
                CrAstNode  *stmt,
                GError    **error)
{
  frame->stmt = stmt;
  self->err_located = FALSE;
  cr_binding.statement (&stmt->span);
  CrValue *value = cr_eval (self, frame, stmt->u.expr_stmt.value, error);
  if (!value)
    return CR_EXEC_ERROR;
  gboolean ok = TRUE;
  if (value->kind != CR_VALUE_NONE)
    {
      char *text = display_text (self, value, error);
      ok = text != NULL;
      if (ok)
        {
          cr_interp_write (self, text, FALSE);
          cr_interp_write (self, "\n", FALSE);
        }
      g_free (text);
    }
  cr_value_unref (value);
  return ok ? CR_EXEC_OK : CR_EXEC_ERROR;
}

/* Forgets what the interpreter keeps about error once its cell reported it. */
static void
forget_error (CrInterp *self,
              GError   *error)
{
  if (self->traceback_owner == error)
    {
      g_array_set_size (self->traceback, 0);
      self->traceback_owner = NULL;
    }
  if (self->exc_name_owner == error)
    {
      g_clear_pointer (&self->exc_name, g_free);
      self->exc_name_owner = NULL;
    }
  if (self->exc_value_owner == error)
    {
      g_clear_pointer (&self->exc_value, cr_value_unref);
      self->exc_value_owner = NULL;
    }
  self->err_located = FALSE;
}

/* A cell failed with e: its traceback to stderr as Jupyter shows it under
 * the cell, the first kept for the caller. */
static void
report (CrInterp       *self,
        CrScriptError  *e,
        CrScriptError **first_error)
{
  cr_interp_write (self, e->traceback ? e->traceback : "", TRUE);
  e->reported = TRUE;
  self->n_failed_cells++;
  if (!*first_error)
    *first_error = e;
  else
    cr_script_error_free (e);
}

CrExecStatus
cr_exec_cells (CrInterp       *self,
               CrFrame        *frame,
               CrCode         *code,
               CrScriptError **first_error,
               GError        **error)
{
  guint next = 0;
  self->n_failed_cells = 0;
  for (guint c = 0; c < self->n_cells; c++)
    {
      const CrScriptCell *cell = &self->cells[c];
      /* The cell's statements: up to the next cell's first line. */
      guint start = next;
      while (next < code->n_body
             && (c + 1 == self->n_cells || code->body[next]->span.line < self->cells[c + 1].first_line))
        next++;
      if (!cr_interp_check_cancel (self, error))
        return CR_EXEC_ERROR;
      self->running_cell = cell->number;
      if (cell->notes)
        cr_interp_write (self, cell->notes, TRUE);
      if (cell->syntax_message)
        {
          CrScriptError *e = g_new0 (CrScriptError, 1);
          e->type = cell->syntax_type;
          e->message = g_strdup (cell->syntax_message);
          e->span = cell->syntax_span;
          e->traceback = g_strdup (cell->syntax_text);
          if (G_UNLIKELY (self->options.record_backward))
            {
              g_autoptr (GError) syntax = g_error_new_literal (CR_LANG_ERROR, (gint) e->type,
                                                               e->message);
              cr_binding.error_handled (self, syntax, &e->span);
            }
          report (self, e, first_error);
          continue;
        }
      if (start == next)
        continue;
      guint last = next - 1;
      gboolean shown = code->body[last]->kind == CR_AST_EXPR
                       && !ends_with_semicolon (self, code->body[last]->span.end_line);
      GError *cell_error = NULL;
      CrExecStatus status = cr_exec_block (self, frame, code->body + start,
                                           shown ? last - start : next - start, &cell_error);
      if (status != CR_EXEC_ERROR && shown)
        status = exec_displayed (self, frame, code->body[last], &cell_error);
      if (status != CR_EXEC_ERROR)
        continue;
      /* Ctrl-C, the time limit or memory running out end the run. */
      if (stopped (self))
        {
          g_propagate_error (error, cell_error);
          return CR_EXEC_ERROR;
        }
      CrScriptError *e = cr_interp_script_error (self, frame, cell_error);
      if (G_UNLIKELY (self->options.record_backward))
        cr_binding.error_handled (self, cell_error, &e->span);
      forget_error (self, cell_error);
      g_error_free (cell_error);
      frame->loop_depth = 0;
      frame->loop_iteration = 0;
      report (self, e, first_error);
    }
  self->running_cell = 0;
  /* Statements after the last cell (none when the cells cover the text). */
  return cr_exec_block (self, frame, code->body + next, code->n_body - next, error);
}
