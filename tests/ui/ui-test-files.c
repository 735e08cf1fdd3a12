/* ui-test-files.c — scratch folders of the file tests (see the header). */
#include "ui-test-files.h"

#include <glib/gstdio.h>

void
cr_ui_test_remove_tree (const char *folder)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  g_chmod (folder, 0700);
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        cr_ui_test_remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (folder);
}

/* Under ASan: full stacks for what LeakSanitizer reports, so that
 * tests/lsan.supp's GIO module entry (g_io_module_new) can match. GLib has
 * no frame pointers, and the fast unwinder stops at g_malloc. Only the
 * headless file tests link this, and they allocate little. */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}
