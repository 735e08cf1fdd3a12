/* cr-script-file.c — reading and writing script files. A script is small
 * UTF-8 text in a regular file: anything else (an image dropped by mistake,
 * a huge log, a named pipe, a device) is refused with a message that names
 * the file and says what is wrong, without blocking, and nothing larger than
 * the limit is ever read into memory. Saving never loses the old file (see
 * save_local). */
#include "cr-config.h"
#include "cr-script-file.h"

#include "cr-notebook.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Scripts are a few hundred lines; a megabyte is far beyond any of them.
 * A notebook also keeps its outputs, pictures among them. */
#define MAX_SCRIPT_BYTES (1024 * 1024)
#define MAX_NOTEBOOK_BYTES (32 * 1024 * 1024)

static void
set_too_large_error (GError     **error,
                     const char  *name,
                     gsize        max_bytes)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
               "“%s” is larger than %u MB: too large for a %s", name,
               (guint) (max_bytes / (1024 * 1024)),
               max_bytes == MAX_SCRIPT_BYTES ? "script" : "notebook");
}

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

/* What a file of mode is, for a message: "a folder", "a named pipe"... */
static const char *
kind_of_mode (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISFIFO (mode))
    return "a named pipe";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

/* FALSE with an error unless mode is a regular file's. Pipes and devices
 * are refused before they are opened: reading a named pipe would block the
 * window until something writes to it, and a device may never end. */
static gboolean
check_regular_to_load (const char  *name,
                       mode_t       mode,
                       GError     **error)
{
  if (S_ISREG (mode))
    return TRUE;
  if (S_ISDIR (mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                 "“%s” is a folder, not a script", name);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 "“%s” is %s, not a script", name, kind_of_mode (mode));
  return FALSE;
}

static void
set_errno_error (GError     **error,
                 const char  *name,
                 const char  *failed,
                 int          saved_errno)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               "“%s” %s: %s", name, failed, g_strerror (saved_errno));
}

/* Reads at most one byte past the limit from a local file: the size from
 * stat can be wrong (a file that grew, or one in /proc that says 0). The
 * open does not block (O_NONBLOCK) and the type is checked again on what
 * was opened, so a pipe put in the file's place meanwhile is refused too. */
static char *
read_local (const char  *path,
            const char  *name,
            gsize        max_bytes,
            gsize       *length_out,
            GError     **error)
{
  GStatBuf st;
  if (g_stat (path, &st) != 0)
    {
      set_errno_error (error, name, "could not be read", errno);
      return NULL;
    }
  if (!check_regular_to_load (name, st.st_mode, error))
    return NULL;
  if ((guint64) st.st_size > max_bytes)
    {
      set_too_large_error (error, name, max_bytes);
      return NULL;
    }

  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      set_errno_error (error, name, "could not be read", errno);
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !check_regular_to_load (name, st.st_mode, error))
    {
      if (error && !*error)
        set_errno_error (error, name, "could not be read", errno);
      g_close (fd, NULL);
      return NULL;
    }

  g_autofree char *text = g_malloc (max_bytes + 2);
  gsize length = 0;
  while (length <= max_bytes)
    {
      gssize n = read (fd, text + length, max_bytes + 1 - length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;
          g_close (fd, NULL);
          set_errno_error (error, name, "could not be read", saved_errno);
          return NULL;
        }
      if (n == 0)
        break;
      length += (gsize) n;
    }
  g_close (fd, NULL);
  *length_out = length;
  return g_steal_pointer (&text);
}

/* The same through GIO, for a file that has no local path (gvfs). */
static char *
read_gio (GFile       *file,
          const char  *name,
          gsize        max_bytes,
          gsize       *length_out,
          GError     **error)
{
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
  GFileType type = g_file_info_get_file_type (info);
  if (type == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   "“%s” is a folder, not a script", name);
      return NULL;
    }
  if (type != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "“%s” is not a regular file, not a script", name);
      return NULL;
    }
  if (g_file_info_get_size (info) > (goffset) max_bytes)
    {
      set_too_large_error (error, name, max_bytes);
      return NULL;
    }

  g_autoptr (GFileInputStream) stream = g_file_read (file, NULL, &local_error);
  if (!stream)
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be read: %s", name, local_error->message);
      return NULL;
    }
  g_autofree char *text = g_malloc (max_bytes + 2);
  gsize length = 0;
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), text, max_bytes + 1,
                                &length, NULL, &local_error))
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be read: %s", name, local_error->message);
      return NULL;
    }
  *length_out = length;
  return g_steal_pointer (&text);
}

char *
cr_script_file_load (GFile   *file,
                     GError **error)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autofree char *name = display_name (file);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *basename = g_file_get_basename (file);
  gboolean notebook = cr_notebook_is_path (basename);
  gsize max_bytes = notebook ? MAX_NOTEBOOK_BYTES : MAX_SCRIPT_BYTES;
  gsize length = 0;
  g_autofree char *text = path ? read_local (path, name, max_bytes, &length, error)
                               : read_gio (file, name, max_bytes, &length, error);
  if (!text)
    return NULL;
  if (length > max_bytes)
    {
      set_too_large_error (error, name, max_bytes);
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

  /* A Jupyter notebook opens as its script with cell markers; it runs as
   * cells because its file name says notebook (core/notebook). */
  if (notebook)
    {
      g_autoptr (GError) json_error = NULL;
      g_autoptr (CrNotebook) parsed = cr_notebook_parse (text, (gssize) length, &json_error);
      if (!parsed)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "“%s” is not a notebook Chainrule can read: %s", name, json_error->message);
          return NULL;
        }
      return cr_notebook_to_script (parsed);
    }

  /* Editors on some systems start UTF-8 files with a byte-order mark; the
   * editor would show it as an invisible character in the first line. */
  if (g_str_has_prefix (text, UTF8_BOM))
    return g_strdup (text + strlen (UTF8_BOM));

  return g_steal_pointer (&text);
}

/* ------------------------------------------------------------------------ */
/* Saving */

/* Linux's limit on symbolic links followed in one path (MAXSYMLINKS). */
#define MAX_SYMLINKS 40

/* The file that path names once its symbolic links are followed (new
 * string): the link stays a link and its target gets the text. A link
 * whose target does not exist yet resolves to that target, as a write
 * through the link would create it. */
static char *
resolve_symlinks (const char  *path,
                  const char  *name,
                  GError     **error)
{
  g_autofree char *current = g_strdup (path);
  for (guint i = 0; i < MAX_SYMLINKS; i++)
    {
      GStatBuf st;
      if (g_lstat (current, &st) != 0 || !S_ISLNK (st.st_mode))
        return g_steal_pointer (&current);

      g_autoptr (GError) local_error = NULL;
      g_autofree char *target = g_file_read_link (current, &local_error);
      if (!target)
        {
          g_set_error (error, G_IO_ERROR, local_error->code,
                       "“%s” could not be saved: %s", name, local_error->message);
          return NULL;
        }
      if (!g_path_is_absolute (target))
        {
          g_autofree char *folder = g_path_get_dirname (current);
          g_autofree char *joined = g_build_filename (folder, target, NULL);
          g_free (target);
          target = g_steal_pointer (&joined);
        }
      g_free (current);
      current = g_steal_pointer (&target);
    }
  set_errno_error (error, name, "could not be saved", ELOOP);
  return NULL;
}

static gboolean
write_all (int          fd,
           const char  *text,
           gsize        length)
{
  while (length > 0)
    {
      gssize n = write (fd, text, length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = EIO;
          return FALSE;
        }
      text += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Gives the file open as fd the owner and group of st where the system
 * allows: only root can give a file away, and only a member of a group can
 * give it that group. Where it cannot, the saved file becomes ours, as with
 * any editor that saves by renaming; that is no reason to fail the save. */
static void
give_owner (int             fd,
            const GStatBuf *st)
{
  if (fchown (fd, st->st_uid, st->st_gid) == 0)
    return;
  if (fchown (fd, (uid_t) -1, st->st_gid) == 0)
    return;
}

/* Writes text to a local file so that a failure at any point (a full disk,
 * a read-only folder, a power cut) leaves the old file whole: the text goes
 * to a temporary file in the target's folder (the same file system, so the
 * rename is atomic), written in full, checked, flushed to the disk (fsync)
 * and only then renamed over the target. The target keeps its mode and,
 * where the system allows, its owner.
 *
 * Symbolic links are followed: the link stays and its target is replaced.
 *
 * Hard links: the name saved to gets the new text and the file's other
 * names keep the old one (the link is broken), as with GIO's
 * G_FILE_CREATE_REPLACE_DESTINATION and Emacs' default. GIO's plain
 * g_file_replace (gnome-text-editor) instead rewrites such a file in place,
 * which keeps the link but truncates the file first: a failed write then
 * loses it, which is what this function exists to prevent. For the same
 * reason a file in a folder that cannot take the temporary file is not
 * saved at all rather than rewritten in place. Extended attributes (ACLs,
 * SELinux labels) are not copied. */
static gboolean
save_local (const char  *path,
            const char  *name,
            const char  *text,
            GError     **error)
{
  g_autofree char *target = resolve_symlinks (path, name, error);
  if (!target)
    return FALSE;

  GStatBuf st;
  gboolean exists = g_stat (target, &st) == 0;
  if (!exists && errno != ENOENT)
    {
      set_errno_error (error, name, "could not be saved", errno);
      return FALSE;
    }
  if (exists && !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, S_ISDIR (st.st_mode) ? G_IO_ERROR_IS_DIRECTORY
                                                            : G_IO_ERROR_NOT_REGULAR_FILE,
                   "“%s” could not be saved: it is %s", name, kind_of_mode (st.st_mode));
      return FALSE;
    }
  /* The rename would replace a file the person may not write to: refuse,
   * as a write in place would. */
  if (exists && access (target, W_OK) != 0)
    {
      set_errno_error (error, name, "could not be saved", errno);
      return FALSE;
    }

  g_autofree char *folder = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  /* Hidden, and short enough to stay under NAME_MAX with its suffix. */
  g_autofree char *temp_name = g_strdup_printf (".%.200s.XXXXXX", base);
  g_autofree char *temp_path = g_build_filename (folder, temp_name, NULL);
  /* A new file gets the usual mode (0666 less the umask); an existing
   * one's mode is set below, once the owner is. */
  int fd = g_mkstemp_full (temp_path, O_RDWR | O_CLOEXEC, exists ? 0600 : 0666);
  if (fd < 0)
    {
      set_errno_error (error, name, "could not be saved", errno);
      return FALSE;
    }

  int saved_errno = 0;
  if (exists)
    {
      give_owner (fd, &st);
      /* After the owner: chown clears the set-id bits. */
      if (fchmod (fd, st.st_mode & 07777) != 0)
        saved_errno = errno;
    }
  if (!saved_errno && !write_all (fd, text, strlen (text)))
    saved_errno = errno;
  if (!saved_errno && fsync (fd) != 0)
    saved_errno = errno;
  /* Network file systems may report a failed write only on close. */
  if (close (fd) != 0 && !saved_errno)
    saved_errno = errno;
  if (!saved_errno && g_rename (temp_path, target) != 0)
    saved_errno = errno;
  if (saved_errno)
    {
      g_unlink (temp_path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "“%s” could not be saved: %s. The file on disk was not changed.",
                   name, g_strerror (saved_errno));
      return FALSE;
    }

  /* The rename is in the folder: flush it too, so that a power cut does
   * not bring back the old name. Failing here loses nothing. */
  int folder_fd = g_open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (folder_fd >= 0)
    {
      fsync (folder_fd);
      g_close (folder_fd, NULL);
    }
  return TRUE;
}

/* The same through GIO, for a file that has no local path (gvfs): the
 * backend decides how atomic it is. A failed write must not end in a close
 * that commits the partial file, so the close is cancelled then. */
static gboolean
save_gio (GFile       *file,
          const char  *name,
          const char  *text,
          GError     **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GFileOutputStream) stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE,
                                                         NULL, &local_error);
  gboolean written = stream != NULL
                     && g_output_stream_write_all (G_OUTPUT_STREAM (stream), text, strlen (text),
                                                   NULL, NULL, &local_error);
  if (stream && !written)
    {
      g_autoptr (GCancellable) abandon = g_cancellable_new ();
      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (stream), abandon, NULL);
    }
  if (written && !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &local_error))
    written = FALSE;
  if (!written)
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   "“%s” could not be saved: %s", name, local_error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
cr_script_file_save (GFile       *file,
                     const char  *text,
                     GError     **error)
{
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = display_name (file);
  return path ? save_local (path, name, text, error) : save_gio (file, name, text, error);
}
