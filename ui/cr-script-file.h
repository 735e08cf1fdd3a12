/* cr-script-file.h — reading and writing script files for the window, with
 * errors a person can act on. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The text of file (new string), or NULL with an error whose message says
 * what is wrong in words ("“x.png” is not a text file", "“a.py” could not be
 * read: Permission denied", "... is larger than 1 MB"): unreadable, not UTF-8,
 * containing NUL bytes, or too large. */
char     *cr_script_file_load (GFile       *file,
                               GError     **error);
/* Writes text to file atomically (a backup is not kept). */
gboolean  cr_script_file_save (GFile       *file,
                               const char  *text,
                               GError     **error);

G_END_DECLS
