/* ui-test-tmpfs.h — a test run again on a small file system of its own (a
 * tmpfs in private user and mount namespaces, as `unshare -rm` makes them),
 * so that a full or read-only disk can be tested without root. GLib only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* In the test process: runs the current test (g_test_get_path ()) again in
 * a child process in which a fresh tmpfs, mounted with mount_options (say
 * "size=64k"), is the folder that cr_ui_test_tmpfs_dir () gives. TRUE once
 * the child passed (it fails the test when the child failed); FALSE, with
 * the test marked skipped, where no namespace can be made. In the child:
 * never called (the test checks cr_ui_test_tmpfs_dir () first). */
gboolean    cr_ui_test_run_in_tmpfs          (const char *mount_options);
/* The tmpfs folder in the child; NULL in the test process. */
const char *cr_ui_test_tmpfs_dir             (void);
/* In the child: makes the tmpfs read-only (after the test wrote its files). */
void        cr_ui_test_tmpfs_make_read_only  (void);

G_END_DECLS
