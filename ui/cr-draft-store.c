/* cr-draft-store.c — see cr-draft-store.h.
 *
 * On disk, in the store's folder (mode 0700):
 *   ID.draft       a key file: [Draft] session=, file= (a URI, absent for a
 *                  new script), saved= (Unix time), text= (escaped);
 *                  written like a script (cr_script_file_save: a temporary
 *                  file, fsync, rename), so a crash mid-write keeps the last
 *                  good draft.
 *   SESSION.lock   held with flock() by the process whose session it is.
 *                  The kernel drops the lock when the process ends, however
 *                  it ends (crash, kill -9), which makes the session's drafts
 *                  orphans. A lock file is made under a temporary name,
 *                  locked, then renamed into place, so no other process can
 *                  see it unlocked and take the session for dead.
 * Ids and sessions are UUIDs; names read from the folder that are not are
 * ignored, so a stray file never becomes a path. */
#include "cr-config.h"
#include "cr-draft-store.h"

#include "cr-script-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define DRAFT_SUFFIX ".draft"
#define LOCK_SUFFIX ".lock"
#define GROUP "Draft"

struct _CrDraftStore
{
  GObject      parent_instance;

  /* Owned */
  char        *folder;
  char        *session;  /* this store's session id */
  int          lock_fd;  /* SESSION.lock, locked; -1: the folder is unusable */
  GThreadPool *worker;   /* one thread, so jobs run in the order asked */

  GMutex       mutex;
  GCond        idle;     /* signalled when pending drops to 0 */
  guint        pending;  /* jobs queued or running (under mutex) */
};

G_DEFINE_FINAL_TYPE (CrDraftStore, cr_draft_store, G_TYPE_OBJECT)

/* A write (contents) or a removal (contents NULL) of draft id. */
typedef struct
{
  char *id;
  char *contents;
} Job;

void
cr_draft_free (CrDraft *draft)
{
  if (!draft)
    return;
  g_free (draft->id);
  g_clear_object (&draft->file);
  g_free (draft->text);
  g_clear_pointer (&draft->saved_at, g_date_time_unref);
  g_free (draft);
}

static char *
path_in_folder (CrDraftStore *self,
                const char   *name,
                const char   *suffix)
{
  g_autofree char *file_name = g_strconcat (name, suffix, NULL);
  return g_build_filename (self->folder, file_name, NULL);
}

static void
run_job (gpointer data,
         gpointer user_data)
{
  Job *job = data;
  CrDraftStore *self = user_data;
  g_autofree char *path = path_in_folder (self, job->id, DRAFT_SUFFIX);

  if (job->contents)
    {
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GError) error = NULL;
      if (!cr_script_file_save (file, job->contents, &error))
        g_debug ("draft not written: %s", error->message);
    }
  else if (g_unlink (path) != 0 && errno != ENOENT)
    {
      g_debug ("draft %s not removed: %s", path, g_strerror (errno));
    }
  g_free (job->id);
  g_free (job->contents);
  g_free (job);

  g_mutex_lock (&self->mutex);
  if (--self->pending == 0)
    g_cond_broadcast (&self->idle);
  g_mutex_unlock (&self->mutex);
}

static void
queue_job (CrDraftStore *self,
           const char   *id,
           char         *contents)
{
  Job *job = g_new0 (Job, 1);
  job->id = g_strdup (id);
  job->contents = contents;
  g_mutex_lock (&self->mutex);
  self->pending++;
  g_mutex_unlock (&self->mutex);
  g_thread_pool_push (self->worker, job, NULL);
}

/* Locks a new lock file for session and puts it in place; -1 on failure. */
static int
take_session_lock (CrDraftStore *self)
{
  if (g_mkdir_with_parents (self->folder, 0700) != 0)
    return -1;
  g_autofree char *temp = g_build_filename (self->folder, ".lock-XXXXXX", NULL);
  int fd = g_mkstemp_full (temp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  g_autofree char *path = path_in_folder (self, self->session, LOCK_SUFFIX);
  if (flock (fd, LOCK_EX | LOCK_NB) != 0 || g_rename (temp, path) != 0)
    {
      g_unlink (temp);
      g_close (fd, NULL);
      return -1;
    }
  return fd;
}

/* TRUE while the process of session holds its lock. */
static gboolean
session_is_live (CrDraftStore *self,
                 const char   *session)
{
  if (g_str_equal (session, self->session))
    return TRUE;
  g_autofree char *path = path_in_folder (self, session, LOCK_SUFFIX);
  int fd = g_open (path, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  gboolean live = flock (fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  /* Closing drops the lock if it was ours for a moment. */
  g_close (fd, NULL);
  return live;
}

/* The draft in file name of the folder, or NULL when it is not one, is
 * this session's, is live and not wanted, or cannot be read. */
static CrDraft *
read_draft (CrDraftStore *self,
            const char   *name,
            gboolean      include_live)
{
  if (!g_str_has_suffix (name, DRAFT_SUFFIX))
    return NULL;
  g_autofree char *id = g_strndup (name, strlen (name) - strlen (DRAFT_SUFFIX));
  if (!g_uuid_string_is_valid (id))
    return NULL;

  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_autofree char *path = g_build_filename (self->folder, name, NULL);
  if (!g_key_file_load_from_file (keys, path, G_KEY_FILE_NONE, NULL))
    return NULL;
  g_autofree char *session = g_key_file_get_string (keys, GROUP, "session", NULL);
  if (!session || !g_uuid_string_is_valid (session) || g_str_equal (session, self->session))
    return NULL;
  if (!include_live && session_is_live (self, session))
    return NULL;
  g_autofree char *text = g_key_file_get_string (keys, GROUP, "text", NULL);
  if (!text)
    return NULL;

  CrDraft *draft = g_new0 (CrDraft, 1);
  draft->id = g_steal_pointer (&id);
  draft->text = g_steal_pointer (&text);
  g_autofree char *uri = g_key_file_get_string (keys, GROUP, "file", NULL);
  if (uri && *uri)
    draft->file = g_file_new_for_uri (uri);
  gint64 saved = g_key_file_get_int64 (keys, GROUP, "saved", NULL);
  draft->saved_at = g_date_time_new_from_unix_local (saved);
  if (!draft->saved_at)
    draft->saved_at = g_date_time_new_from_unix_local (0);
  return draft;
}

/* Lock files of sessions that ended: no longer needed (their drafts are
 * orphans with or without them). */
static void
remove_dead_locks (CrDraftStore *self)
{
  g_autoptr (GDir) dir = g_dir_open (self->folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    {
      if (!g_str_has_suffix (name, LOCK_SUFFIX))
        continue;
      g_autofree char *session = g_strndup (name, strlen (name) - strlen (LOCK_SUFFIX));
      if (!g_uuid_string_is_valid (session) || session_is_live (self, session))
        continue;
      g_autofree char *path = g_build_filename (self->folder, name, NULL);
      g_unlink (path);
    }
}

static int
compare_saved_at (gconstpointer a,
                  gconstpointer b)
{
  const CrDraft *first = *(CrDraft *const *) a;
  const CrDraft *second = *(CrDraft *const *) b;
  return g_date_time_compare (first->saved_at, second->saved_at);
}

GPtrArray *
cr_draft_store_list (CrDraftStore *self,
                     gboolean      include_live)
{
  g_return_val_if_fail (CR_IS_DRAFT_STORE (self), NULL);

  GPtrArray *drafts = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_draft_free);
  g_autoptr (GDir) dir = g_dir_open (self->folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)))
    {
      CrDraft *draft = read_draft (self, name, include_live);
      if (draft)
        g_ptr_array_add (drafts, draft);
    }
  g_ptr_array_sort (drafts, compare_saved_at);
  remove_dead_locks (self);
  return drafts;
}

char *
cr_draft_store_new_id (CrDraftStore *self)
{
  g_return_val_if_fail (CR_IS_DRAFT_STORE (self), NULL);
  return g_uuid_string_random ();
}

void
cr_draft_store_save (CrDraftStore *self,
                     const char   *id,
                     GFile        *file,
                     const char   *text)
{
  g_return_if_fail (CR_IS_DRAFT_STORE (self));
  g_return_if_fail (g_uuid_string_is_valid (id));
  g_return_if_fail (file == NULL || G_IS_FILE (file));
  g_return_if_fail (text != NULL);

  /* Without its lock the draft would look orphaned at once. */
  if (self->lock_fd < 0)
    return;

  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_key_file_set_string (keys, GROUP, "session", self->session);
  if (file)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_key_file_set_string (keys, GROUP, "file", uri);
    }
  g_key_file_set_int64 (keys, GROUP, "saved", g_get_real_time () / G_USEC_PER_SEC);
  g_key_file_set_string (keys, GROUP, "text", text);
  queue_job (self, id, g_key_file_to_data (keys, NULL, NULL));
}

void
cr_draft_store_remove (CrDraftStore *self,
                       const char   *id)
{
  g_return_if_fail (CR_IS_DRAFT_STORE (self));
  g_return_if_fail (g_uuid_string_is_valid (id));
  if (self->lock_fd < 0)
    return;
  queue_job (self, id, NULL);
}

void
cr_draft_store_flush (CrDraftStore *self)
{
  g_return_if_fail (CR_IS_DRAFT_STORE (self));
  g_mutex_lock (&self->mutex);
  while (self->pending > 0)
    g_cond_wait (&self->idle, &self->mutex);
  g_mutex_unlock (&self->mutex);
}

const char *
cr_draft_store_get_folder (CrDraftStore *self)
{
  g_return_val_if_fail (CR_IS_DRAFT_STORE (self), NULL);
  return self->folder;
}

static void
cr_draft_store_finalize (GObject *object)
{
  CrDraftStore *self = CR_DRAFT_STORE (object);

  /* Waits for the jobs still queued. */
  g_thread_pool_free (self->worker, FALSE, TRUE);
  if (self->lock_fd >= 0)
    {
      g_autofree char *path = path_in_folder (self, self->session, LOCK_SUFFIX);
      g_unlink (path);
      g_close (self->lock_fd, NULL);
    }
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->idle);
  g_free (self->folder);
  g_free (self->session);

  G_OBJECT_CLASS (cr_draft_store_parent_class)->finalize (object);
}

static void
cr_draft_store_class_init (CrDraftStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cr_draft_store_finalize;
}

static void
cr_draft_store_init (CrDraftStore *self)
{
  g_mutex_init (&self->mutex);
  g_cond_init (&self->idle);
  self->lock_fd = -1;
  self->session = g_uuid_string_random ();
  /* A thread of its own, so a slow disk never stalls the editor. */
  self->worker = g_thread_pool_new (run_job, self, 1, FALSE, NULL);
}

CrDraftStore *
cr_draft_store_new (const char *folder)
{
  g_return_val_if_fail (folder != NULL, NULL);

  CrDraftStore *self = g_object_new (CR_TYPE_DRAFT_STORE, NULL);
  self->folder = g_strdup (folder);
  self->lock_fd = take_session_lock (self);
  if (self->lock_fd < 0)
    g_debug ("drafts are off: %s cannot hold them", folder);
  return self;
}

CrDraftStore *
cr_draft_store_get_default (void)
{
  static gsize made;
  static CrDraftStore *store;
  if (g_once_init_enter (&made))
    {
      g_autofree char *folder = g_build_filename (g_get_user_state_dir (), "chainrule", "drafts", NULL);
      store = cr_draft_store_new (folder);
      g_once_init_leave (&made, 1);
    }
  return store;
}
