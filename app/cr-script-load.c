/* cr-script-load.c — read and parse a script for a headless command
 * (cr-script-load.h). */
#include "cr-config.h"
#include "cr-script-load.h"

#include "cr-interp.h"
#include "cr-memory.h"
#include "cr-notebook.h"

#include <stdio.h>
#include <string.h>

static char *
read_stdin (gsize *out_len)
{
  GString *s = g_string_new (NULL);
  char buf[65536];
  size_t n;
  while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
    g_string_append_len (s, buf, n);
  *out_len = s->len;
  return g_string_free (s, FALSE);
}

void
cr_script_text_clear (CrScriptText *text)
{
  g_clear_pointer (&text->source, g_free);
  g_clear_pointer (&text->filename, g_free);
  text->length = 0;
  text->notebook = FALSE;
}

gboolean
cr_script_text_read (CrScriptText *text,
                     const char   *command,
                     const char   *file,
                     const char   *stdin_name)
{
  cr_script_text_clear (text);
  gboolean from_stdin = strcmp (file, "-") == 0;
  if (from_stdin)
    {
      text->source = read_stdin (&text->length);
      text->filename = g_strdup (stdin_name ? stdin_name : "<stdin>");
    }
  else
    {
      g_autoptr (GError) error = NULL;
      if (!g_file_get_contents (file, &text->source, &text->length, &error))
        {
          g_autofree char *abs = g_canonicalize_filename (file, NULL);
          fprintf (stderr, "%s: can't open file '%s': %s\n", command, abs,
                   error->code == G_FILE_ERROR_NOENT ? "[Errno 2] No such file or directory"
                                                     : error->message);
          return FALSE;
        }
      /* Python names the main script by its absolute path in tracebacks. */
      text->filename = g_canonicalize_filename (file, NULL);
    }
  /* A notebook: its script with cell markers, run cell by cell. From
   * stdin it is that script already. */
  text->notebook = cr_notebook_is_path (from_stdin ? text->filename : file);
  if (text->notebook && !from_stdin)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebook) parsed = cr_notebook_parse (text->source, (gssize) text->length,
                                                         &error);
      if (!parsed)
        {
          fprintf (stderr, "%s: can't read the notebook '%s': %s\n", command, text->filename,
                   error->message);
          cr_script_text_clear (text);
          return FALSE;
        }
      g_free (text->source);
      text->source = cr_notebook_to_script (parsed);
      text->length = strlen (text->source);
    }
  return TRUE;
}

CrAstModule *
cr_script_text_parse (const CrScriptText  *text,
                      const gint          *cancel_flag,
                      GArray             **out_cells,
                      CrSpan              *span,
                      GError             **error)
{
  if (out_cells)
    *out_cells = NULL;
  /* The syntax tree is held to the memory budget too, though never to less
   * than 64 MiB: a budget sized for tiny tensors still parses a script. */
  CrParseOptions parse_options = {
    .cancel_flag = cancel_flag,
    .max_memory = MAX (cr_memory_get_limit (), (gsize) 64 << 20),
  };
  if (!text->notebook)
    return cr_parse_with_options (text->source, (gssize) text->length, text->filename,
                                  &parse_options, span, error);
  g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (text->source,
                                                                    (gssize) text->length,
                                                                    text->filename, &parse_options,
                                                                    span, error);
  if (!program)
    return NULL;
  if (out_cells)
    *out_cells = g_steal_pointer (&program->cells);
  return g_steal_pointer (&program->module);
}

void
cr_script_print_parse_error (const CrScriptText *text,
                             const CrSpan       *span,
                             const GError       *error)
{
  CrException code = error->domain == CR_LANG_ERROR ? (CrException) error->code
                                                    : CR_EXC_SYNTAX_ERROR;
  g_autofree char *message = NULL;
  if (code == CR_EXC_SYNTAX_ERROR || code == CR_EXC_INDENTATION_ERROR || code == CR_EXC_TAB_ERROR)
    message = cr_format_syntax_error (text->filename, text->source, span, cr_exception_name (code),
                                      error->message);
  else if (error->message[0] == '\0')
    message = g_strdup_printf ("%s\n", cr_exception_name (code));   /* KeyboardInterrupt */
  else
    message = g_strdup_printf ("%s: %s\n", cr_exception_name (code), error->message);
  fflush (stdout);
  fputs (message, stderr);
}

CrAstModule *
cr_script_load (const char  *command,
                const char  *file,
                const char  *stdin_name,
                const gint  *cancel_flag,
                GArray     **out_cells)
{
  if (out_cells)
    *out_cells = NULL;
  g_auto (CrScriptText) text = { 0 };
  if (!cr_script_text_read (&text, command, file, stdin_name))
    return NULL;
  CrSpan span = { 0 };
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_script_text_parse (&text, cancel_flag, out_cells, &span, &error);
  if (!module)
    cr_script_print_parse_error (&text, &span, error);
  return module;
}
