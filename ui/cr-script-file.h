/* cr-script-file.h — reading and writing script files for the window, with
 * errors a person can act on. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The text of file (new string), or NULL with an error whose message says
 * what is wrong in words ("“x.png” is not a text file", "“a.py” could not be
 * read: Permission denied", "... is larger than 1 MB", "“p” is a named pipe,
 * not a script"): unreadable, not a regular file, not UTF-8, containing NUL
 * bytes, or too large. Never blocks on a pipe or a device: their type is
 * checked before they are read. A Jupyter notebook (NAME.ipynb, up to
 * 32 MB) comes back as its script with cell markers (cr-notebook.h), or
 * an error saying why it cannot be read. */
char     *cr_script_file_load (GFile       *file,
                               GError     **error);
/* Writes text to file atomically: a temporary file in the same folder,
 * written in full, flushed to disk, then renamed over the file. Symbolic
 * links are followed (the link stays, its target gets the text), the mode
 * is kept, a hard-linked file becomes a file of its own. FALSE with an
 * error naming the file when any step fails: the old file is then as it
 * was. Pipes, devices and folders are refused. No backup is kept. */
gboolean  cr_script_file_save (GFile       *file,
                               const char  *text,
                               GError     **error);

G_END_DECLS
