/* ui-test-files.h — what the tests of files, drafts and the window's file
 * actions share about their scratch folders. GLib only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Deletes folder and everything in it, links as links (never what they
 * point to), entries a test made read-only included. */
void cr_ui_test_remove_tree (const char *folder);

G_END_DECLS
