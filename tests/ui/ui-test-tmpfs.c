/* ui-test-tmpfs.c — see ui-test-tmpfs.h. The child is this same test
 * program run with `-p TEST`; it learns its folder from the environment. */
#include "cr-config.h"
#include "ui-test-tmpfs.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define TMPFS_ENV "CR_TEST_TMPFS_DIR"

/* Mounts the tmpfs in the namespaces unshare made, then runs the test. */
static const char child_script[] =
  "mount -t tmpfs -o \"$1\" none \"$2\" || exit 77\n"
  "export " TMPFS_ENV "=\"$2\"\n"
  "exec \"$0\" -p \"$3\"\n";

const char *
cr_ui_test_tmpfs_dir (void)
{
  return g_getenv (TMPFS_ENV);
}

void
cr_ui_test_tmpfs_make_read_only (void)
{
  const char *dir = cr_ui_test_tmpfs_dir ();
  g_assert_nonnull (dir);
  if (mount (NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0)
    g_error ("remounting %s read-only: %s", dir, g_strerror (errno));
}

gboolean
cr_ui_test_run_in_tmpfs (const char *mount_options)
{
  g_assert_null (cr_ui_test_tmpfs_dir ());

  g_autofree char *unshare = g_find_program_in_path ("unshare");
  if (!unshare)
    {
      g_test_skip ("no unshare(1): cannot make a small file system without root");
      return FALSE;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  g_assert_no_error (error);
  g_autofree char *dir = g_dir_make_tmp ("cr-test-tmpfs-XXXXXX", &error);
  g_assert_no_error (error);

  const char *argv[] = {
    unshare, "-rm", "sh", "-c", child_script,
    self, mount_options, dir, g_test_get_path (), NULL,
  };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_rmdir (dir);

  /* unshare(1) itself failing (user namespaces off) or the mount refused. */
  if ((WIFEXITED (status) && WEXITSTATUS (status) == 77)
      || (g_str_has_prefix (err, "unshare:") && strstr (out, "ok ") == NULL))
    {
      g_autofree char *why = g_strdup_printf ("no private tmpfs (unshare -rm, mount): %s",
                                              g_strstrip (err));
      g_test_skip (why);
      return FALSE;
    }
  /* The child must have run the test, not an empty selection. */
  g_autofree char *ran = g_strdup_printf ("ok 1 %s", g_test_get_path ());
  if (!g_spawn_check_wait_status (status, &error) || !strstr (out, ran))
    {
      g_test_message ("the child on the tmpfs:\n%s\n%s", out, err);
      g_assert_no_error (error);
      g_assert_nonnull (strstr (out, ran));
    }
  return TRUE;
}
