/* cr-notebook.c — reading a .ipynb file and writing it as a script with
 * cell markers (see cr-notebook.h). */
#include "cr-notebook.h"

#include "cr-error.h"
#include "cr-json.h"

#include <string.h>

static void
output_free (CrNotebookOutput *output)
{
  g_free (output->output_type);
  g_free (output->name);
  g_free (output->text);
  g_free (output->ename);
  g_free (output->evalue);
  g_free (output);
}

static void
cell_free (CrNotebookCell *cell)
{
  g_free (cell->source);
  if (cell->outputs)
    g_ptr_array_unref (cell->outputs);
  g_free (cell);
}

void
cr_notebook_free (CrNotebook *notebook)
{
  if (!notebook)
    return;
  g_ptr_array_unref (notebook->cells);
  g_free (notebook);
}

/* nbformat's multiline strings: a string, or a list of strings joined as
 * they are (each keeps its own "\n"). NULL when json is neither. */
static char *
multiline_text (const CrJson *json)
{
  if (!json)
    return NULL;
  if (json->kind == CR_JSON_STRING)
    return g_strdup (json->string);
  if (json->kind != CR_JSON_ARRAY)
    return NULL;
  GString *text = g_string_new (NULL);
  for (guint i = 0; i < json->items->len; i++)
    {
      const char *piece = cr_json_get_string (json->items->pdata[i]);
      if (piece)
        g_string_append (text, piece);
    }
  return g_string_free (text, FALSE);
}

static CrNotebookOutput *
read_output (const CrJson *json)
{
  const char *type = cr_json_get_string (cr_json_get (json, "output_type"));
  if (!type)
    return NULL;
  CrNotebookOutput *output = g_new0 (CrNotebookOutput, 1);
  output->output_type = g_strdup (type);
  if (strcmp (type, "stream") == 0)
    {
      output->name = g_strdup (cr_json_get_string (cr_json_get (json, "name")));
      output->text = multiline_text (cr_json_get (json, "text"));
    }
  else if (strcmp (type, "error") == 0)
    {
      output->ename = g_strdup (cr_json_get_string (cr_json_get (json, "ename")));
      output->evalue = g_strdup (cr_json_get_string (cr_json_get (json, "evalue")));
    }
  else
    output->text = multiline_text (cr_json_get (cr_json_get (json, "data"), "text/plain"));
  return output;
}

CrNotebook *
cr_notebook_parse (const char  *text,
                   gssize       length,
                   GError     **error)
{
  g_autoptr (CrJson) json = cr_json_parse (text, length, error);
  if (!json)
    return NULL;
  const CrJson *cells = cr_json_get (json, "cells");
  const CrJson *format = cr_json_get (json, "nbformat");
  if (format && format->kind == CR_JSON_NUMBER && format->number < 4)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "a notebook of nbformat %d: only nbformat 4 is read "
                   "(jupyter nbconvert --to notebook converts it)", (int) format->number);
      return NULL;
    }
  if (!cells || cells->kind != CR_JSON_ARRAY)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "not a Jupyter notebook: no list of \"cells\"");
      return NULL;
    }
  CrNotebook *notebook = g_new0 (CrNotebook, 1);
  notebook->cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_free);
  guint n_code = 0;
  for (guint i = 0; i < cells->items->len; i++)
    {
      const CrJson *item = cells->items->pdata[i];
      const char *type = cr_json_get_string (cr_json_get (item, "cell_type"));
      if (!type)
        continue;
      CrNotebookCell *cell = g_new0 (CrNotebookCell, 1);
      cell->kind = strcmp (type, "code") == 0 ? CR_NOTEBOOK_CELL_CODE
                   : strcmp (type, "markdown") == 0 ? CR_NOTEBOOK_CELL_MARKDOWN
                   : CR_NOTEBOOK_CELL_RAW;
      cell->source = multiline_text (cr_json_get (item, "source"));
      if (!cell->source)
        cell->source = g_strdup ("");
      cell->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) output_free);
      if (cell->kind == CR_NOTEBOOK_CELL_CODE)
        {
          cell->number = ++n_code;
          const CrJson *count = cr_json_get (item, "execution_count");
          if (count && count->kind == CR_JSON_NUMBER && count->number > 0
              && count->number < G_MAXINT)
            cell->execution_count = (int) count->number;
          const CrJson *outputs = cr_json_get (item, "outputs");
          for (guint k = 0; outputs && outputs->kind == CR_JSON_ARRAY && k < outputs->items->len; k++)
            {
              CrNotebookOutput *output = read_output (outputs->items->pdata[k]);
              if (output)
                g_ptr_array_add (cell->outputs, output);
            }
        }
      g_ptr_array_add (notebook->cells, cell);
    }
  return notebook;
}

/* text's lines with "\r\n" and "\r" made "\n", each prefixed by prefix
 * (an empty line by bare_prefix), onto out; a final "\n" when missing. */
static void
append_lines (GString    *out,
              const char *text,
              const char *prefix,
              const char *bare_prefix)
{
  g_autofree char *normal = g_strdup (text);
  /* "\r\n" -> "\n", then a lone "\r" -> "\n". */
  char *w = normal;
  for (const char *p = normal; *p; p++)
    {
      if (*p == '\r')
        {
          *w++ = '\n';
          if (p[1] == '\n')
            p++;
        }
      else
        *w++ = *p;
    }
  *w = '\0';
  if (!normal[0])
    return;
  g_auto (GStrv) lines = g_strsplit (normal, "\n", -1);
  guint n = g_strv_length (lines);
  /* The piece after a final "\n" is empty: not a line of its own. */
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  for (guint i = 0; i < n; i++)
    {
      g_string_append (out, lines[i][0] ? prefix : bare_prefix);
      g_string_append (out, lines[i]);
      g_string_append_c (out, '\n');
    }
}

char *
cr_notebook_to_script (const CrNotebook *notebook)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < notebook->cells->len; i++)
    {
      const CrNotebookCell *cell = notebook->cells->pdata[i];
      if (i > 0)
        g_string_append_c (out, '\n');
      switch (cell->kind)
        {
        case CR_NOTEBOOK_CELL_CODE:
          g_string_append_printf (out, "# %%%% [%u]\n", cell->number);
          append_lines (out, cell->source, "", "");
          break;
        case CR_NOTEBOOK_CELL_MARKDOWN:
          g_string_append (out, "# %% [markdown]\n");
          append_lines (out, cell->source, "# ", "#");
          break;
        case CR_NOTEBOOK_CELL_RAW:
          g_string_append (out, "# %% [raw]\n");
          append_lines (out, cell->source, "# ", "#");
          break;
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
cr_notebook_is_path (const char *path)
{
  gsize len = path ? strlen (path) : 0;
  return len > 6 && g_ascii_strcasecmp (path + len - 6, ".ipynb") == 0;
}

char *
cr_notebook_load_script (const char  *path,
                         GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  g_autoptr (CrNotebook) notebook = cr_notebook_parse (contents, (gssize) length, error);
  return notebook ? cr_notebook_to_script (notebook) : NULL;
}
