/* cr-script-file.c — reading and writing script files. A script is small
 * UTF-8 text: anything else (an image dropped by mistake, a huge log) is
 * refused with a message that names the file and says what is wrong, and
 * nothing larger than the limit is ever read into memory. */
#include "cr-config.h"
#include "cr-script-file.h"

#include <string.h>

/* Scripts are a few hundred lines; a megabyte is far beyond any of them. */
#define MAX_SCRIPT_BYTES (1024 * 1024)

#define UTF8_BOM "\xef\xbb\xbf"

/* The name to show for file: its display name, else its basename. */
static char *
display_name (GFile *file)
{
  g_autoptr (GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME,
                                                  G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info && g_file_info_get_display_name (info))
    return g_strdup (g_file_info_get_display_name (info));

  g_autofree char *base = g_file_get_basename (file);
  if (base)
    return g_filename_display_name (base);
  return g_file_get_parse_name (file);
}

/* The line (from 1) of byte offset in text. */
static guint
line_of (const char *text,
         gsize       offset)
{
  guint line = 1;
  for (gsize i = 0; i < offset; i++)
    if (text[i] == '\n')
      line++;
  return line;
}

char *
cr_script_file_load (GFile   *file,
                     GError **error)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autofree char *name = display_name (file);
  g_autoptr (GError) local_error = NULL;

  g_autoptr (GFileInfo) info = g_file_query_info (file,
                                                  G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                                  G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                  G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (!info)
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be read: %s", name, local_error->message);
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   "“%s” is a folder, not a script", name);
      return NULL;
    }
  if (g_file_info_get_size (info) > MAX_SCRIPT_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   "“%s” is larger than 1 MB: too large for a script", name);
      return NULL;
    }

  g_autoptr (GFileInputStream) stream = g_file_read (file, NULL, &local_error);
  if (!stream)
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be read: %s", name, local_error->message);
      return NULL;
    }

  /* Read at most one byte past the limit: the size above can be wrong (a
   * file that grew, a pipe or a special file that reports 0). */
  g_autofree char *text = g_malloc (MAX_SCRIPT_BYTES + 2);
  gsize length = 0;
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), text, MAX_SCRIPT_BYTES + 1,
                                &length, NULL, &local_error))
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be read: %s", name, local_error->message);
      return NULL;
    }
  if (length > MAX_SCRIPT_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   "“%s” is larger than 1 MB: too large for a script", name);
      return NULL;
    }
  text[length] = '\0';

  if (memchr (text, '\0', length))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "“%s” is not a text file (it contains NUL bytes)", name);
      return NULL;
    }
  const char *end = NULL;
  if (!g_utf8_validate_len (text, length, &end))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "“%s” is not a text file (it is not valid UTF-8 at line %u)",
                   name, line_of (text, (gsize) (end - text)));
      return NULL;
    }

  /* Editors on some systems start UTF-8 files with a byte-order mark; the
   * editor would show it as an invisible character in the first line. */
  if (g_str_has_prefix (text, UTF8_BOM))
    return g_strdup (text + strlen (UTF8_BOM));

  return g_steal_pointer (&text);
}

gboolean
cr_script_file_save (GFile       *file,
                     const char  *text,
                     GError     **error)
{
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autoptr (GError) local_error = NULL;
  /* g_file_replace_contents writes a temporary file beside the target and
   * renames it over it, so a failed save leaves the old file whole. */
  if (!g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                G_FILE_CREATE_NONE, NULL, NULL, &local_error))
    {
      g_autofree char *name = display_name (file);
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be saved: %s", name, local_error->message);
      return FALSE;
    }
  return TRUE;
}
