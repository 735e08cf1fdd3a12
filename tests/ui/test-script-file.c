/* test-script-file.c — loading and saving scripts: good text, and each way a
 * file can be unfit for the editor (NUL bytes, invalid UTF-8, missing, a
 * folder, a named pipe, a device, too large), with messages that name the
 * file and the problem; saving that never loses the old file (a full disk,
 * a read-only folder, a write cut short), follows symbolic links and keeps
 * the mode. */
#include "cr-config.h"
#include "ui-test-files.h"
#include "cr-script-file.h"
#include "ui-test-tmpfs.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
  cr_ui_test_remove_tree (fixture->dir);
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

/* A notebook opens as its script with cell markers; one that is not a
 * notebook says so. */
static void
test_load_notebook (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr (GFile) file = write_file (fixture, "nb.ipynb",
                                       "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\","
                                       " \"source\": [\"x = 1\\n\", \"x\"], \"outputs\": []}]}", -1);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "# %% [1]\nx = 1\nx\n");

  g_autoptr (GFile) bad = write_file (fixture, "bad.ipynb", "{\"cells\": [", -1);
  g_autofree char *none = cr_script_file_load (bad, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, "“bad.ipynb” is not a notebook Chainrule can read: "
                                                   "bad JSON at line 1"));
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

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names in folder, sorted, joined by spaces: what a save left. */
static char *
list_folder (const char *folder)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)))
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_load_fifo_child (Fixture *fixture)
{
  g_autofree char *path = g_build_filename (fixture->dir, "pipe.py", NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  g_autofree char *link = g_build_filename (fixture->dir, "link.py", NULL);
  g_assert_cmpint (symlink ("pipe.py", link), ==, 0);

  const char *paths[] = { path, link };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GFile) file = g_file_new_for_path (paths[i]);
      g_autoptr (GError) error = NULL;
      g_autofree char *text = cr_script_file_load (file, &error);
      g_assert_null (text);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
      g_assert_nonnull (strstr (error->message, "is a named pipe, not a script"));
    }
}

/* A named pipe with no writer would block a read forever: the load must
 * refuse it at once. Run in a subprocess that is killed if it hangs. */
static void
test_load_fifo (Fixture       *fixture,
                gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      test_load_fifo_child (fixture);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_load_device (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr (GFile) file = g_file_new_for_path ("/dev/zero");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = cr_script_file_load (file, &error);
  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpstr (error->message, ==, "“zero” is a device, not a script");
}

static void
test_save_not_regular (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *pipe_path = g_build_filename (fixture->dir, "pipe.py", NULL);
  g_assert_cmpint (mkfifo (pipe_path, 0600), ==, 0);
  g_autoptr (GFile) pipe = g_file_new_for_path (pipe_path);
  g_autoptr (GError) error = NULL;
  g_assert_false (cr_script_file_save (pipe, "x = 1\n", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpstr (error->message, ==, "“pipe.py” could not be saved: it is a named pipe");
  g_clear_error (&error);

  g_autofree char *folder_path = g_build_filename (fixture->dir, "folder.py", NULL);
  g_assert_cmpint (g_mkdir (folder_path, 0700), ==, 0);
  g_autoptr (GFile) folder = g_file_new_for_path (folder_path);
  g_assert_false (cr_script_file_save (folder, "x = 1\n", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);

  g_autofree char *names = list_folder (fixture->dir);
  g_assert_cmpstr (names, ==, "folder.py pipe.py");
}

/* Through a symbolic link (relative, absolute, or a chain of them): the
 * links stay links and the file they lead to gets the text. */
static void
test_save_symlink (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *sub = g_build_filename (fixture->dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_autofree char *real = g_build_filename (sub, "real.py", NULL);
  g_assert_true (g_file_set_contents (real, "old = 1\n", -1, NULL));
  g_autofree char *link = g_build_filename (fixture->dir, "link.py", NULL);
  g_assert_cmpint (symlink ("sub/real.py", link), ==, 0);
  g_autofree char *link2 = g_build_filename (fixture->dir, "link2.py", NULL);
  g_assert_cmpint (symlink (link, link2), ==, 0);

  const char *texts[] = { "through = 'link'\n", "through = 'a chain'\n" };
  const char *paths[] = { link, link2 };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GFile) file = g_file_new_for_path (paths[i]);
      g_autoptr (GError) error = NULL;
      g_assert_true (cr_script_file_save (file, texts[i], &error));
      g_assert_no_error (error);
      g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
      g_assert_true (g_file_test (link2, G_FILE_TEST_IS_SYMLINK));
      g_autofree char *text = read_text (real);
      g_assert_cmpstr (text, ==, texts[i]);
    }
  g_autofree char *names = list_folder (fixture->dir);
  g_assert_cmpstr (names, ==, "link.py link2.py sub");
  g_autofree char *sub_names = list_folder (sub);
  g_assert_cmpstr (sub_names, ==, "real.py");
  g_unlink (real);
}

/* A link whose file does not exist yet: the save creates the file. */
static void
test_save_dangling_symlink (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autofree char *link = g_build_filename (fixture->dir, "link.py", NULL);
  g_assert_cmpint (symlink ("new.py", link), ==, 0);
  g_autoptr (GFile) file = g_file_new_for_path (link);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_script_file_save (file, "x = 2\n", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_autofree char *real = g_build_filename (fixture->dir, "new.py", NULL);
  g_autofree char *text = read_text (real);
  g_assert_cmpstr (text, ==, "x = 2\n");
}

static void
test_save_mode (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr (GFile) file = write_file (fixture, "run.py", "#!/usr/bin/env chainrule\n", -1);
  g_autofree char *path = g_file_get_path (file);
  g_assert_cmpint (g_chmod (path, 0751), ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_script_file_save (file, "#!/usr/bin/env chainrule\nx = 1\n", &error));
  g_assert_no_error (error);
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0751);

  /* A new file: the usual mode, 0666 less the umask. */
  mode_t mask = umask (022);
  umask (mask);
  g_autofree char *fresh = g_build_filename (fixture->dir, "fresh.py", NULL);
  g_autoptr (GFile) fresh_file = g_file_new_for_path (fresh);
  g_assert_true (cr_script_file_save (fresh_file, "y = 1\n", &error));
  g_assert_cmpint (g_stat (fresh, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0666 & ~mask);
}

/* The choice for hard links (see save_local): the name saved to gets the
 * text, the other name keeps the old file. */
static void
test_save_hard_link (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr (GFile) file = write_file (fixture, "a.py", "old = 1\n", -1);
  g_autofree char *a = g_file_get_path (file);
  g_autofree char *b = g_build_filename (fixture->dir, "b.py", NULL);
  g_assert_cmpint (link (a, b), ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_true (cr_script_file_save (file, "new = 2\n", &error));
  g_assert_no_error (error);
  g_autofree char *text_a = read_text (a);
  g_autofree char *text_b = read_text (b);
  g_assert_cmpstr (text_a, ==, "new = 2\n");
  g_assert_cmpstr (text_b, ==, "old = 1\n");
}

/* Asserts that a save of a long text into dir/t.py (holding old) fails
 * with code and leaves t.py as it was and nothing beside it. */
static void
assert_save_fails_keeping_old (const char *dir,
                               const char *old,
                               int         code)
{
  g_autofree char *path = g_build_filename (dir, "t.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  GString *text = g_string_new (NULL);
  while (text->len < 256 * 1024)
    g_string_append (text, "x = torch.ones(3, requires_grad=True)  # a long script\n");
  g_autofree char *long_text = g_string_free (text, FALSE);

  g_autoptr (GError) error = NULL;
  g_assert_false (cr_script_file_save (file, long_text, &error));
  g_assert_error (error, G_IO_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "“t.py” could not be saved: "));
  g_autofree char *on_disk = read_text (path);
  /* The length first: a failure then prints two numbers, not 256 kB. */
  g_assert_cmpuint (strlen (on_disk), ==, strlen (old));
  g_assert_cmpstr (on_disk, ==, old);
  g_autofree char *names = list_folder (dir);
  g_assert_cmpstr (names, ==, "t.py");
}

/* A write cut short, without root or mounts: the file size limit
 * (RLIMIT_FSIZE) makes write() fail with EFBIG half way. */
static void
test_save_write_fails (Fixture       *fixture,
                       gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      const char *old = "old = 'the script as last saved'\n";
      g_autoptr (GFile) file = write_file (fixture, "t.py", old, -1);
      signal (SIGXFSZ, SIG_IGN);
      struct rlimit limit = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
      assert_save_fails_keeping_old (fixture->dir, old, G_IO_ERROR_FAILED);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A full disk: a 64 kB tmpfs in a private namespace. */
static void
test_save_full_disk (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *dir = cr_ui_test_tmpfs_dir ();
  if (!dir)
    {
      cr_ui_test_run_in_tmpfs ("size=64k");
      return;
    }
  const char *old = "old = 'the script as last saved'\n";
  g_autofree char *path = g_build_filename (dir, "t.py", NULL);
  g_assert_true (g_file_set_contents (path, old, -1, NULL));
  assert_save_fails_keeping_old (dir, old, G_IO_ERROR_NO_SPACE);
}

static void
test_save_read_only_folder (Fixture       *fixture,
                            gconstpointer  data)
{
  const char *dir = cr_ui_test_tmpfs_dir ();
  if (!dir)
    {
      cr_ui_test_run_in_tmpfs ("size=1m");
      return;
    }
  const char *old = "old = 'the script as last saved'\n";
  g_autofree char *path = g_build_filename (dir, "t.py", NULL);
  g_assert_true (g_file_set_contents (path, old, -1, NULL));
  cr_ui_test_tmpfs_make_read_only ();
  assert_save_fails_keeping_old (dir, old, G_IO_ERROR_READ_ONLY);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/ui/script-file/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("load/good", test_load_good);
  ADD ("load/notebook", test_load_notebook);
  ADD ("load/empty", test_load_empty);
  ADD ("load/bom", test_load_bom);
  ADD ("load/nul", test_load_nul);
  ADD ("load/invalid-utf8", test_load_invalid_utf8);
  ADD ("load/missing", test_load_missing);
  ADD ("load/folder", test_load_folder);
  ADD ("load/unreadable", test_load_unreadable);
  ADD ("load/read-error", test_load_read_error);
  ADD ("load/size-limit", test_load_size_limit);
  ADD ("load/fifo", test_load_fifo);
  ADD ("load/device", test_load_device);
  ADD ("save/round-trip", test_save_round_trip);
  ADD ("save/error", test_save_error);
  ADD ("save/not-regular", test_save_not_regular);
  ADD ("save/symlink", test_save_symlink);
  ADD ("save/dangling-symlink", test_save_dangling_symlink);
  ADD ("save/mode", test_save_mode);
  ADD ("save/hard-link", test_save_hard_link);
  ADD ("save/write-fails", test_save_write_fails);
  ADD ("save/full-disk", test_save_full_disk);
  ADD ("save/read-only-folder", test_save_read_only_folder);
#undef ADD

  return g_test_run ();
}
