/* test-draft-store.c — the drafts behind crash-proof editing, headless:
 * texts come back exactly, writes and removals keep their order, a live
 * process's drafts are not offered while a killed one's are, stray files
 * are ignored, and a folder that cannot hold drafts turns them off. */
#include "cr-config.h"
#include "ui-test-files.h"
#include "cr-draft-store.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every character a key file must escape, and text around it. */
static const char tricky_text[] =
  "  import torch\t# leading spaces, a tab\n"
  "s = 'a\\\\b \\n'   \n"
  "\n"
  "# ∂L/∂x [Draft] text=1\r\n"
  "   ";

typedef struct
{
  char *folder;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr (GError) error = NULL;
  fixture->folder = g_dir_make_tmp ("cr-test-drafts-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  cr_ui_test_remove_tree (fixture->folder);
  g_free (fixture->folder);
}

static guint
count_files (const char *folder,
             const char *suffix)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  guint count = 0;
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, suffix))
      count++;
  return count;
}

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  data)
{
  CrDraftStore *writer = cr_draft_store_new (fixture->folder);
  g_autofree char *named = cr_draft_store_new_id (writer);
  g_autofree char *untitled = cr_draft_store_new_id (writer);
  g_autoptr (GFile) file = g_file_new_for_path ("/tmp/some folder/t é.py");
  cr_draft_store_save (writer, named, file, tricky_text);
  cr_draft_store_save (writer, untitled, NULL, "");
  cr_draft_store_flush (writer);

  /* Another session sees them, but as live ones: not offered. */
  g_autoptr (CrDraftStore) reader = cr_draft_store_new (fixture->folder);
  g_autoptr (GPtrArray) orphans = cr_draft_store_list (reader, FALSE);
  g_assert_cmpuint (orphans->len, ==, 0);
  g_autoptr (GPtrArray) all = cr_draft_store_list (reader, TRUE);
  g_assert_cmpuint (all->len, ==, 2);
  /* Its own session's drafts are never listed. */
  g_autoptr (GPtrArray) own = cr_draft_store_list (writer, TRUE);
  g_assert_cmpuint (own->len, ==, 0);

  /* The writer goes (its lock with it): now they are orphans. */
  g_object_unref (writer);
  g_autoptr (GPtrArray) drafts = cr_draft_store_list (reader, FALSE);
  g_assert_cmpuint (drafts->len, ==, 2);
  for (guint i = 0; i < drafts->len; i++)
    {
      CrDraft *draft = g_ptr_array_index (drafts, i);
      if (g_str_equal (draft->id, named))
        {
          g_assert_cmpstr (draft->text, ==, tricky_text);
          g_assert_true (g_file_equal (draft->file, file));
        }
      else
        {
          g_assert_cmpstr (draft->id, ==, untitled);
          g_assert_cmpstr (draft->text, ==, "");
          g_assert_null (draft->file);
        }
      g_autoptr (GDateTime) now = g_date_time_new_now_local ();
      GTimeSpan age = g_date_time_difference (now, draft->saved_at);
      g_assert_cmpint (age, >=, 0);
      g_assert_cmpint (age, <, 60 * G_TIME_SPAN_SECOND);
    }
}

static void
test_order (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr (CrDraftStore) store = cr_draft_store_new (fixture->folder);
  g_autofree char *id = cr_draft_store_new_id (store);
  for (int i = 0; i < 50; i++)
    {
      g_autofree char *text = g_strdup_printf ("x = %d\n", i);
      cr_draft_store_save (store, id, NULL, text);
    }
  cr_draft_store_remove (store, id);
  cr_draft_store_flush (store);
  g_assert_cmpuint (count_files (fixture->folder, ".draft"), ==, 0);

  cr_draft_store_save (store, id, NULL, "first\n");
  cr_draft_store_remove (store, id);
  cr_draft_store_save (store, id, NULL, "last\n");
  cr_draft_store_flush (store);
  g_assert_cmpuint (count_files (fixture->folder, ".draft"), ==, 1);
  /* Nothing but the draft and the session's lock: no temporary file. */
  g_assert_cmpuint (count_files (fixture->folder, ""), ==, 2);
}

/* The child of test_killed: writes a draft, says so, and waits to die. */
static int
run_child (const char *folder)
{
  CrDraftStore *store = cr_draft_store_new (folder);
  g_autofree char *id = cr_draft_store_new_id (store);
  cr_draft_store_save (store, id, NULL, "unsaved = 'work'\n");
  cr_draft_store_flush (store);
  g_print ("ready\n");
  for (;;)
    pause ();
  return 0;
}

static void
test_killed (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  g_assert_no_error (error);
  const char *argv[] = { self, "--draft-child", fixture->folder, NULL };
  GPid pid = 0;
  int out = -1;
  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &pid, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  char line[6] = { 0 };
  g_assert_cmpint (read (out, line, 5), ==, 5);
  g_assert_cmpstr (line, ==, "ready");
  g_close (out, NULL);

  g_autoptr (CrDraftStore) store = cr_draft_store_new (fixture->folder);
  g_autoptr (GPtrArray) while_live = cr_draft_store_list (store, FALSE);
  g_assert_cmpuint (while_live->len, ==, 0);

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_spawn_close_pid (pid);

  g_autoptr (GPtrArray) orphans = cr_draft_store_list (store, FALSE);
  g_assert_cmpuint (orphans->len, ==, 1);
  CrDraft *draft = g_ptr_array_index (orphans, 0);
  g_assert_cmpstr (draft->text, ==, "unsaved = 'work'\n");
  /* The dead session's lock is gone; ours stays. */
  g_assert_cmpuint (count_files (fixture->folder, ".lock"), ==, 1);

  cr_draft_store_remove (store, draft->id);
  cr_draft_store_flush (store);
  g_autoptr (GPtrArray) none = cr_draft_store_list (store, FALSE);
  g_assert_cmpuint (none->len, ==, 0);
}

static void
test_stray_files (Fixture       *fixture,
                  gconstpointer  data)
{
  const struct { const char *name; const char *contents; } strays[] = {
    { "notes.draft", "[Draft]\nsession=0b7c1f6e-8d55-4f4b-9b2e-0c3a3c1c6d10\ntext=x\n" },
    { "6d1c3e9a-3f0b-4a55-8f5e-1d2c3b4a5f60.draft", "[Draft]\nsession=../../etc\ntext=x\n" },
    { "7e2d4f0b-4a1c-4b66-9a6f-2e3d4c5b6a71.draft", "not a key file \x01\n" },
    { "8f3e5a1c-5b2d-4c77-8b7a-3f4e5d6c7b82.draft",
      "[Draft]\nsession=9a4f6b2d-6c3e-4d88-9c8b-4a5f6e7d8c93\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (strays); i++)
    {
      g_autofree char *path = g_build_filename (fixture->folder, strays[i].name, NULL);
      g_assert_true (g_file_set_contents (path, strays[i].contents, -1, NULL));
    }
  g_autoptr (CrDraftStore) store = cr_draft_store_new (fixture->folder);
  g_autoptr (GPtrArray) drafts = cr_draft_store_list (store, TRUE);
  g_assert_cmpuint (drafts->len, ==, 0);
}

static void
test_unusable_folder (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *file = g_build_filename (fixture->folder, "a-file", NULL);
  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  g_autofree char *folder = g_build_filename (file, "drafts", NULL);
  g_autoptr (CrDraftStore) store = cr_draft_store_new (folder);
  g_autofree char *id = cr_draft_store_new_id (store);
  cr_draft_store_save (store, id, NULL, "x = 1\n");
  cr_draft_store_remove (store, id);
  cr_draft_store_flush (store);
  g_autoptr (GPtrArray) drafts = cr_draft_store_list (store, TRUE);
  g_assert_cmpuint (drafts->len, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--draft-child"))
    return run_child (argv[2]);

  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) \
  g_test_add ("/ui/draft-store/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("round-trip", test_round_trip);
  ADD ("order", test_order);
  ADD ("killed", test_killed);
  ADD ("stray-files", test_stray_files);
  ADD ("unusable-folder", test_unusable_folder);
#undef ADD
  return g_test_run ();
}
