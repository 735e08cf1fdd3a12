/* cr-interp-traceback.c — what a failed run prints, as Python 3.11 prints
 * it: source lines, traceback entries (with carets under the failing
 * expression, deep recursion counted), the CrScriptError the runner shows,
 * SyntaxErrors, and warnings pointing at the script's line. */
#include "cr-interp-private.h"
#include "cr-script-place.h"

#define TRACEBACK_REPEAT_CUTOFF 3

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
          {
            g_autofree char *cell_text = cr_cell_line_text (cell->number, cell_line, FALSE);
            g_string_append_printf (tb, "  File \"%s\", %s, in %s\n", filename, cell_text,
                                    entry->function);
          }
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
CrScriptError *
cr_interp_syntax_error (CrInterp     *self,
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

/* ---- warnings ---------------------------------------------------------------------- */

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
    {
      g_autofree char *where = cr_cell_line_text (cell->number, cell_line, FALSE);
      g_string_append_printf (out, "%s, %s: %s: %s\n", filename, where, category, message);
    }
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
