/* cr-notebook-program.c — a script with cell markers made ready to run as
 * notebook cells: its cells found by their `# %%` lines, IPython's own
 * lines (%magics, !shell commands) handled as Chainrule can, each cell
 * parsed alone so that one that does not parse fails alone, then the whole
 * parsed once (see cr-notebook.h). */
#include "cr-notebook.h"

#include "cr-error.h"
#include "cr-interp-base.h"
#include "cr-script-place.h"

#include <string.h>

/* A cell as the markers give it, before parsing. */
typedef struct {
  int      marker_line;   /* 0: the text before the first marker */
  int      first_line;
  int      last_line;
  gboolean is_code;
  guint    number;
} CellRange;

/* Whether line is a cell marker, "# %%" and what follows; for a code
 * cell's "[N]", *explicit_number is N. */
static gboolean
parse_marker (const char *line,
              gboolean   *is_code,
              guint      *explicit_number)
{
  if (!g_str_has_prefix (line, "# %%"))
    return FALSE;
  const char *rest = line + 4;
  while (*rest == ' ' || *rest == '\t')
    rest++;
  *is_code = TRUE;
  *explicit_number = 0;
  if (*rest != '[')
    return TRUE;
  rest++;
  const char *end = strchr (rest, ']');
  g_autofree char *word = g_strndup (rest, end ? (gsize) (end - rest) : strlen (rest));
  g_strstrip (word);
  if (g_ascii_strcasecmp (word, "markdown") == 0 || g_ascii_strcasecmp (word, "md") == 0
      || g_ascii_strcasecmp (word, "raw") == 0)
    *is_code = FALSE;
  else
    {
      char *stop = NULL;
      guint64 n = g_ascii_strtoull (word, &stop, 10);
      if (stop && stop != word && *stop == '\0' && n > 0 && n < G_MAXUINT)
        *explicit_number = (guint) n;
    }
  return TRUE;
}

static GArray *
find_cells (char **lines,
            int    n_lines)
{
  GArray *ranges = g_array_new (FALSE, TRUE, sizeof (CellRange));
  CellRange current = { .marker_line = 0, .first_line = 1, .is_code = TRUE, .number = 0 };
  guint ordinal = 0;
  gboolean any_marker = FALSE;
  for (int i = 0; i < n_lines; i++)
    {
      gboolean is_code;
      guint number;
      if (!parse_marker (lines[i], &is_code, &number))
        continue;
      current.last_line = i;   /* the line before the marker, 1-based */
      /* Text before the first marker is a cell only when it holds code. */
      gboolean keep = TRUE;
      if (!any_marker)
        {
          keep = FALSE;
          for (int k = 0; k < i && !keep; k++)
            {
              const char *t = lines[k] + strspn (lines[k], " \t\f");
              keep = *t && *t != '#';
            }
        }
      if (keep)
        g_array_append_val (ranges, current);
      any_marker = TRUE;
      if (is_code)
        ordinal++;
      current = (CellRange) {
        .marker_line = i + 1,
        .first_line = i + 2,
        .is_code = is_code,
        .number = is_code ? (number ? number : ordinal) : 0,
      };
    }
  current.last_line = n_lines;
  if (!any_marker)
    current.number = 1;
  g_array_append_val (ranges, current);
  return ranges;
}

/* Appends "chainrule: cell N, line L: what\n" to the cell's notes. */
static void
note (GString    **notes,
      guint        number,
      int          cell_line,
      const char  *format,
      ...) G_GNUC_PRINTF (4, 5);

static void
note (GString    **notes,
      guint        number,
      int          cell_line,
      const char  *format,
      ...)
{
  if (!*notes)
    *notes = g_string_new (NULL);
  if (cell_line > 0)
    {
      g_autofree char *where = cr_cell_line_text (number, cell_line, FALSE);
      g_string_append_printf (*notes, "chainrule: %s: ", where);
    }
  else
    g_string_append_printf (*notes, "chainrule: cell %u: ", number);
  va_list ap;
  va_start (ap, format);
  g_string_append_vprintf (*notes, format, ap);
  va_end (ap);
  g_string_append_c (*notes, '\n');
}

/* The magic's name: the word after "%" or "%%" (new string). */
static char *
magic_name (const char *text)
{
  const char *start = text + strspn (text, "%");
  gsize len = 0;
  while (start[len] && (g_ascii_isalnum (start[len]) || start[len] == '_'))
    len++;
  return g_strndup (start, len);
}

static gboolean
name_in (const char        *name,
         const char *const *names)
{
  for (guint i = 0; names[i]; i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Magics that print nothing and change nothing a run shows. */
static const char *const quiet_magics[] = {
  "matplotlib", "config", "load_ext", "reload_ext", "unload_ext", "autoreload", "aimport",
  "reset", "xmode", "colors", "autosave", NULL,
};
/* Magics and cell magics that time the code they run. */
static const char *const timing_magics[] = { "time", "timeit", "prun", NULL };

/* IPython's lines of one code cell made Python, in place in lines: what a
 * line that Chainrule cannot run becomes (nothing, or `pass` where a block
 * needs a statement), and what it says of them in the cell's notes. */
static void
handle_ipython_lines (char          **lines,
                      const CellRange *cell,
                      GString       **notes)
{
  gboolean first = TRUE;
  for (int l = cell->first_line; l <= cell->last_line; l++)
    {
      char *line = lines[l - 1];
      gsize indent = strspn (line, " \t\f");
      const char *text = line + indent;
      if (!*text)
        continue;
      int cell_line = l - cell->first_line + 1;
      char *replacement = NULL;
      if (first && g_str_has_prefix (text, "%%"))
        {
          g_autofree char *name = magic_name (text);
          if (name_in (name, timing_magics))
            note (notes, cell->number, 0, "ran without %%%%%s: Chainrule does not time cells", name);
          else if (strcmp (name, "capture") == 0)
            note (notes, cell->number, 0, "ran without %%%%capture: its output is shown");
          else
            {
              note (notes, cell->number, 0, "skipped: a %%%%%s cell is not Python", name);
              for (int k = l; k <= cell->last_line; k++)
                {
                  g_free (lines[k - 1]);
                  lines[k - 1] = g_strdup ("");
                }
              return;
            }
          replacement = g_strdup ("");
        }
      else if (text[0] == '!')
        {
          g_autofree char *command = g_strstrip (g_strdup (text));
          note (notes, cell->number, cell_line, "skipped the shell command %s", command);
          replacement = g_strdup ("");
        }
      else if (text[0] == '%' && text[1] != '%')
        {
          g_autofree char *name = magic_name (text);
          const char *rest = text + 1 + strlen (name);
          rest += strspn (rest, " \t");
          if (name_in (name, timing_magics) && *rest)
            {
              note (notes, cell->number, cell_line,
                    "ran without %%%s: Chainrule does not time statements", name);
              replacement = g_strdup_printf ("%.*s%s", (int) indent, line, rest);
            }
          else
            {
              if (strcmp (name, "pip") == 0 || strcmp (name, "conda") == 0)
                {
                  g_autofree char *command = g_strstrip (g_strdup (text));
                  note (notes, cell->number, cell_line, "skipped %s: Chainrule installs nothing",
                        command);
                }
              else if (!name_in (name, quiet_magics))
                note (notes, cell->number, cell_line, "skipped the IPython magic %%%s", name);
              replacement = g_strdup ("");
            }
        }
      first = FALSE;
      if (!replacement)
        continue;
      /* An emptied line in a block still needs a statement there. */
      if (!replacement[0] && indent > 0)
        {
          g_free (replacement);
          replacement = g_strdup_printf ("%.*spass", (int) indent, line);
        }
      g_free (lines[l - 1]);
      lines[l - 1] = replacement;
    }
}

static gboolean
is_syntax_code (const GError *error)
{
  return error->domain == CR_LANG_ERROR
         && (error->code == CR_EXC_SYNTAX_ERROR || error->code == CR_EXC_INDENTATION_ERROR
             || error->code == CR_EXC_TAB_ERROR || error->code == CR_EXC_RECURSION_ERROR);
}

/* Lines first..last of lines (1-based) as one text. */
static char *
lines_text (char **lines,
            int    first,
            int    last)
{
  GString *text = g_string_new (NULL);
  for (int l = first; l <= last; l++)
    {
      g_string_append (text, lines[l - 1]);
      g_string_append_c (text, '\n');
    }
  return g_string_free (text, FALSE);
}

/* The SyntaxError of a cell as Jupyter shows it: no traceback, the cell's
 * line and a caret. */
static char *
cell_syntax_text (const char   *filename,
                  const char   *cell_text,
                  const CrSpan *cell_span,
                  guint         number,
                  CrException   type,
                  const char   *message)
{
  if (type == CR_EXC_RECURSION_ERROR)
    return g_strdup_printf ("RecursionError: %s\n", message);
  g_autofree char *plain = cr_format_syntax_error (filename, cell_text, cell_span,
                                                   cr_exception_name (type), message);
  const char *body = strchr (plain, '\n');
  g_autofree char *where = cr_cell_line_text (number, cell_span->line, FALSE);
  return g_strdup_printf ("  File \"%s\", %s%s", filename ? filename : "<string>", where,
                          body ? body : "\n");
}

void
cr_notebook_program_free (CrNotebookProgram *program)
{
  if (!program)
    return;
  cr_ast_module_free (program->module);
  if (program->cells)
    g_array_unref (program->cells);
  g_free (program);
}

/* text as Python reads it: no BOM, "\n" ends every line, the last too. */
static char *
normalized_text (const char *text,
                 gsize       length)
{
  if (length >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    {
      text += 3;
      length -= 3;
    }
  GString *out = g_string_sized_new (length + 1);
  for (gsize i = 0; i < length; i++)
    {
      if (text[i] == '\r')
        {
          g_string_append_c (out, '\n');
          if (i + 1 < length && text[i + 1] == '\n')
            i++;
        }
      else
        g_string_append_c (out, text[i]);
    }
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

CrNotebookProgram *
cr_notebook_program_new (const char            *text,
                         gssize                 length,
                         const char            *filename,
                         const CrParseOptions  *options,
                         CrSpan                *error_span,
                         GError               **error)
{
  g_return_val_if_fail (text != NULL || length == 0, NULL);
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  /* A NUL inside the text is the parser's to refuse, with its message. */
  if (memchr (text, '\0', len))
    {
      CrAstModule *module = cr_parse_with_options (text, (gssize) len, filename, options,
                                                   error_span, error);
      if (!module)
        return NULL;
      CrNotebookProgram *program = g_new0 (CrNotebookProgram, 1);
      program->module = module;
      program->cells = g_array_new (FALSE, TRUE, sizeof (CrScriptCell));
      g_array_set_clear_func (program->cells, (GDestroyNotify) cr_script_cell_clear);
      return program;
    }
  g_autofree char *source = normalized_text (text, len);
  /* The lines, without their "\n"; the piece after the last one dropped. */
  g_auto (GStrv) lines = g_strsplit (source, "\n", -1);
  int n_lines = (int) g_strv_length (lines);
  if (n_lines > 0 && lines[n_lines - 1][0] == '\0')
    {
      n_lines--;
      g_free (lines[n_lines]);
      lines[n_lines] = NULL;
    }

  g_autoptr (GArray) ranges = find_cells (lines, n_lines);
  GArray *cells = g_array_new (FALSE, TRUE, sizeof (CrScriptCell));
  g_array_set_clear_func (cells, (GDestroyNotify) cr_script_cell_clear);
  for (guint i = 0; i < ranges->len; i++)
    {
      CellRange *range = &g_array_index (ranges, CellRange, i);
      /* A marker and a markdown cell's text are no code. */
      if (range->marker_line > 0)
        {
          g_free (lines[range->marker_line - 1]);
          lines[range->marker_line - 1] = g_strdup ("");
        }
      if (!range->is_code)
        {
          for (int l = range->first_line; l <= range->last_line; l++)
            {
              g_free (lines[l - 1]);
              lines[l - 1] = g_strdup ("");
            }
          continue;
        }
      GString *notes = NULL;
      handle_ipython_lines (lines, range, &notes);
      CrScriptCell cell = {
        .first_line = range->first_line,
        .last_line = MAX (range->last_line, range->first_line),
        .number = range->number,
        .notes = notes ? g_string_free (notes, FALSE) : NULL,
      };
      /* Parsed alone, the cell fails alone; its spans count from its first
       * line (the script's lines before it are not parsed again). */
      g_autofree char *alone = lines_text (lines, range->first_line, range->last_line);
      g_autoptr (GError) cell_error = NULL;
      CrSpan span = { 0 };
      CrAstModule *module = cr_parse_with_options (alone, -1, filename, options, &span, &cell_error);
      if (!module && !is_syntax_code (cell_error))
        {
          /* Stopped (Ctrl-C, the time limit) or out of memory. */
          cr_script_cell_clear (&cell);
          g_array_unref (cells);
          if (error_span)
            *error_span = span;
          g_propagate_error (error, g_steal_pointer (&cell_error));
          return NULL;
        }
      cr_ast_module_free (module);
      if (cell_error)
        {
          cell.syntax_type = (CrException) cell_error->code;
          cell.syntax_message = g_strdup (cell_error->message);
          cell.syntax_text = cell_syntax_text (filename, alone, &span, cell.number,
                                               cell.syntax_type, cell_error->message);
          /* In the script: the cell's lines moved down to where it starts. */
          cell.syntax_span = span;
          if (span.line > 0)
            cell.syntax_span.line += range->first_line - 1;
          if (span.end_line > 0)
            cell.syntax_span.end_line += range->first_line - 1;
          for (int l = range->first_line; l <= range->last_line; l++)
            {
              g_free (lines[l - 1]);
              lines[l - 1] = g_strdup ("");
            }
        }
      g_array_append_val (cells, cell);
    }

  g_autofree char *runnable = lines_text (lines, 1, n_lines);
  CrAstModule *module = cr_parse_with_options (runnable, -1, filename, options, error_span, error);
  if (!module)
    {
      g_array_unref (cells);
      return NULL;
    }
  /* Tracebacks, the editor and the record show the text as written. */
  g_free (module->source);
  module->source = g_steal_pointer (&source);
  CrNotebookProgram *program = g_new0 (CrNotebookProgram, 1);
  program->module = module;
  program->cells = cells;
  return program;
}

GArray *
cr_notebook_code_cells (const char *script)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CrNotebookLines));
  if (!script)
    return out;
  g_autofree char *source = normalized_text (script, strlen (script));
  g_auto (GStrv) lines = g_strsplit (source, "\n", -1);
  g_autoptr (GArray) ranges = find_cells (lines, (int) g_strv_length (lines));
  for (guint i = 0; i < ranges->len; i++)
    {
      const CellRange *range = &g_array_index (ranges, CellRange, i);
      if (range->is_code)
        g_array_append_val (out, ((CrNotebookLines) { range->first_line, range->last_line,
                                                      range->number }));
    }
  return out;
}
