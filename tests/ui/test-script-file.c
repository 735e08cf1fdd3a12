/* test-script-file.c — loading and saving scripts: good text, and each way a
 * file can be unfit for the editor (NUL bytes, invalid UTF-8, missing, a
 * folder, too large), with messages that name the file and the problem. */
#include "cr-config.h"
#include "cr-script-file.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define ONE_MB (1024 * 1024)

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr (GError) error = NULL;
  fixture->dir = g_dir_make_tmp ("cr-test-script-file-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr (GDir) dir = g_dir_open (fixture->dir, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
      g_chmod (path, 0600);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        g_rmdir (path);
      else
        g_unlink (path);
    }
  g_rmdir (fixture->dir);
  g_free (fixture->dir);
}

/* Writes length bytes of contents to name in the fixture's folder. */
static GFile *
write_file (Fixture    *fixture,
            const char *name,
            const char *contents,
            gssize      length)
{
  g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static void
test_load_good (Fixture       *fixture,
                gconstpointer  data)
{
  const char *script = "import torch\n# ∂L/∂x, café\nx = torch.ones(2, requires_grad=True)\n";
  g_autoptr (GFile) file = write_file (fixture, "good.py", script, -1);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, script);
}

static void
test_load_empty (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr (GFile) file = write_file (fixture, "empty.py", "", 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "");
}

static void
test_load_bom (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr (GFile) file = write_file (fixture, "bom.py", "\xef\xbb\xbfx = 1\n", -1);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "x = 1\n");
}

static void
test_load_nul (Fixture       *fixture,
               gconstpointer  data)
{
  /* The start of a PNG file: binary, with NUL bytes. */
  static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
  g_autoptr (GFile) file = write_file (fixture, "x.png", png, sizeof png - 1);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "“x.png” is not a text file"));
  g_assert_nonnull (strstr (error->message, "NUL"));
}

static void
test_load_invalid_utf8 (Fixture       *fixture,
                        gconstpointer  data)
{
  /* Latin-1 "café" on the third line. */
  g_autoptr (GFile) file = write_file (fixture, "latin1.py", "x = 1\ny = 2\n# caf\xe9\n", -1);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "“latin1.py” is not a text file"));
  g_assert_nonnull (strstr (error->message, "UTF-8"));
  g_assert_nonnull (strstr (error->message, "line 3"));
}

static void
test_load_missing (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->dir, "gone.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "“gone.py” could not be read: "));
}

static void
test_load_folder (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->dir, "scripts.py", NULL);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_assert_nonnull (strstr (error->message, "“scripts.py” is a folder"));
}

static void
test_load_unreadable (Fixture       *fixture,
                      gconstpointer  data)
{
  if (geteuid () == 0)
    {
      g_test_skip ("root reads files whatever their permissions");
      return;
    }
  g_autoptr (GFile) file = write_file (fixture, "secret.py", "x = 1\n", -1);
  g_autofree char *path = g_file_get_path (file);
  g_assert_cmpint (g_chmod (path, 0), ==, 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_true (g_str_has_prefix (error->message, "“secret.py” could not be read: "));
}

/* A read that fails after the file was found (root reads any file, so the
 * failure comes from the kernel: /proc/self/mem at address 0). */
static void
test_load_read_error (Fixture       *fixture,
                      gconstpointer  data)
{
  if (!g_file_test ("/proc/self/mem", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /proc/self/mem");
      return;
    }
  g_autoptr (GFile) file = g_file_new_for_path ("/proc/self/mem");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "“mem” could not be read: "));
}

static void
test_load_size_limit (Fixture       *fixture,
                      gconstpointer  data)
{
  /* Exactly 1 MB of text is still a script... */
  g_autofree char *big = g_malloc (ONE_MB + 2);
  memset (big, '#', ONE_MB + 1);
  big[ONE_MB - 1] = '\n';
  big[ONE_MB + 1] = '\0';
  g_autoptr (GFile) limit = write_file (fixture, "limit.py", big, ONE_MB);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (limit, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (text), ==, ONE_MB);

  /* ...one byte more is not. */
  g_autoptr (GFile) large = write_file (fixture, "large.py", big, ONE_MB + 1);
  g_autofree char *none = cr_script_file_load (large, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "“large.py” is larger than 1 MB"));
}

static void
test_save_round_trip (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->dir, "saved.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  const char *first = "a = torch.tensor(2.0, requires_grad=True)\n# ∂a\n";
  const char *second = "b = 1\n";

  g_assert_true (cr_script_file_save (file, first, &error));
  g_assert_no_error (error);
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, first);

  /* Saving again replaces the whole file (a shorter text leaves no tail)
   * and leaves no temporary or backup file beside it. */
  g_assert_true (cr_script_file_save (file, second, &error));
  g_assert_no_error (error);
  g_autofree char *again = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again, ==, second);

  g_autoptr (GDir) dir = g_dir_open (fixture->dir, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_dir_read_name (dir), ==, "saved.py");
  g_assert_null (g_dir_read_name (dir));
}

static void
test_save_error (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->dir, "no-such-folder", "lost.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_false (cr_script_file_save (file, "x = 1\n", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "“lost.py” could not be saved: "));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/ui/script-file/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("load/good", test_load_good);
  ADD ("load/empty", test_load_empty);
  ADD ("load/bom", test_load_bom);
  ADD ("load/nul", test_load_nul);
  ADD ("load/invalid-utf8", test_load_invalid_utf8);
  ADD ("load/missing", test_load_missing);
  ADD ("load/folder", test_load_folder);
  ADD ("load/unreadable", test_load_unreadable);
  ADD ("load/read-error", test_load_read_error);
  ADD ("load/size-limit", test_load_size_limit);
  ADD ("save/round-trip", test_save_round_trip);
  ADD ("save/error", test_save_error);
#undef ADD

  return g_test_run ();
}
