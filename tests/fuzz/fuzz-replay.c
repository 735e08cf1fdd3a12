/* fuzz-replay.c — a main() for a fuzz target where libFuzzer is not linked
 * (gcc, the ASan build): runs the target once on each file named on the
 * command line, or on each file of a folder named there (sorted, skipping
 * *.md), and says so in TAP. A crash is the sanitizer's report and a
 * non-zero exit, as under libFuzzer. The project's regression inputs
 * (tests/fuzz/regressions) replay this way in every build. */
#include "cr-fuzz.h"

#include <glib.h>
#include <stdio.h>

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static void
collect (const char *path,
         GPtrArray  *files)
{
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (files, g_strdup (path));
      return;
    }
  GDir *dir = g_dir_open (path, 0, NULL);
  if (!dir)
    return;
  GPtrArray *names = g_ptr_array_new ();
  for (const char *name = g_dir_read_name (dir); name; name = g_dir_read_name (dir))
    if (!g_str_has_suffix (name, ".md") && name[0] != '.')
      g_ptr_array_add (names, g_build_filename (path, name, NULL));
  g_ptr_array_sort (names, compare_paths);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (files, g_ptr_array_index (names, i));
  g_ptr_array_free (names, TRUE);
  g_dir_close (dir);
}

int
main (int    argc,
      char **argv)
{
  LLVMFuzzerInitialize (&argc, &argv);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  for (int i = 1; i < argc; i++)
    collect (argv[i], files);

  printf ("1..%u\n", files->len);
  if (files->len == 0)
    printf ("# no inputs\n");
  int status = 0;
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      char *data = NULL;
      gsize length = 0;
      GError *error = NULL;
      if (!g_file_get_contents (path, &data, &length, &error))
        {
          printf ("not ok %u - %s: %s\n", i + 1, path, error->message);
          g_error_free (error);
          status = 1;
          continue;
        }
      /* Said before the run: a crash then names its input. */
      printf ("# %s (%" G_GSIZE_FORMAT " bytes)\n", path, length);
      fflush (stdout);
      LLVMFuzzerTestOneInput ((const uint8_t *) data, length);
      g_free (data);
      printf ("ok %u - %s\n", i + 1, path);
    }
  g_ptr_array_unref (files);
  return status;
}
