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

CrAstModule *
cr_script_load_named (const char  *command,
                      const char  *file,
                      const char  *stdin_name,
                      const gint  *cancel_flag,
                      GArray     **out_cells)
{
  g_autofree char *source = NULL;
  g_autofree char *filename = NULL;
  gsize length = 0;
  if (out_cells)
    *out_cells = NULL;
  if (strcmp (file, "-") == 0)
    {
      source = read_stdin (&length);
      filename = g_strdup (stdin_name ? stdin_name : "<stdin>");
    }
  else
    {
      g_autoptr (GError) error = NULL;
      if (!g_file_get_contents (file, &source, &length, &error))
        {
          g_autofree char *abs = g_canonicalize_filename (file, NULL);
          fprintf (stderr, "%s: can't open file '%s': %s\n", command, abs,
                   error->code == G_FILE_ERROR_NOENT ? "[Errno 2] No such file or directory"
                                                     : error->message);
          return NULL;
        }
      filename = g_canonicalize_filename (file, NULL);
    }
  /* A notebook: its script with cell markers, run cell by cell. From
   * stdin it is that script already. */
  gboolean from_stdin = strcmp (file, "-") == 0;
  gboolean notebook = cr_notebook_is_path (from_stdin ? filename : file);
  if (notebook && !from_stdin)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebook) parsed = cr_notebook_parse (source, (gssize) length, &error);
      if (!parsed)
        {
          fprintf (stderr, "%s: can't read the notebook '%s': %s\n", command, filename,
                   error->message);
          return NULL;
        }
      g_free (source);
      source = cr_notebook_to_script (parsed);
      length = strlen (source);
    }

  CrSpan span = { 0 };
  g_autoptr (GError) parse_error = NULL;
  CrParseOptions parse_options = {
    .cancel_flag = cancel_flag,
    .max_memory = MAX (cr_memory_get_limit (), (gsize) 64 << 20),
  };
  CrAstModule *module = NULL;
  if (notebook)
    {
      g_autoptr (CrNotebookProgram) program = cr_notebook_program_new (source, (gssize) length,
                                                                        filename, &parse_options,
                                                                        &span, &parse_error);
      if (program)
        {
          module = g_steal_pointer (&program->module);
          if (out_cells)
            *out_cells = g_steal_pointer (&program->cells);
        }
    }
  else
    module = cr_parse_with_options (source, (gssize) length, filename, &parse_options, &span,
                                    &parse_error);
  if (module)
    return module;
  CrException code = parse_error->domain == CR_LANG_ERROR
                     ? (CrException) parse_error->code : CR_EXC_SYNTAX_ERROR;
  g_autofree char *text = NULL;
  if (code == CR_EXC_SYNTAX_ERROR || code == CR_EXC_INDENTATION_ERROR || code == CR_EXC_TAB_ERROR)
    text = cr_format_syntax_error (filename, source, &span, cr_exception_name (code),
                                   parse_error->message);
  else
    text = g_strdup_printf ("%s: %s\n", cr_exception_name (code), parse_error->message);
  fputs (text, stderr);
  return NULL;
}

CrAstModule *
cr_script_load_cells (const char  *command,
                      const char  *file,
                      const gint  *cancel_flag,
                      GArray     **out_cells)
{
  return cr_script_load_named (command, file, NULL, cancel_flag, out_cells);
}

CrAstModule *
cr_script_load (const char *command,
                const char *file,
                const gint *cancel_flag)
{
  return cr_script_load_cells (command, file, cancel_flag, NULL);
}
