/* cr-draft-store.h — the drafts of the scripts being edited: the text of
 * each open document, written to the user's state folder a short time after
 * each edit (cr-window-files.c decides when), so that what a crash, a kill
 * or a power cut left can be offered back at the next start. A draft belongs
 * to the process that wrote it while that process lives (it holds a lock);
 * afterwards it is an orphan. Plain GIO: no GTK. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* One draft as found on disk. */
typedef struct
{
  char      *id;       /* the store's name for it */
  GFile     *file;     /* the script's file; NULL for a new script */
  char      *text;     /* the editor's text when it was written */
  GDateTime *saved_at; /* when it was written (local time) */
} CrDraft;

void cr_draft_free (CrDraft *draft);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrDraft, cr_draft_free)

#define CR_TYPE_DRAFT_STORE (cr_draft_store_get_type ())
G_DECLARE_FINAL_TYPE (CrDraftStore, cr_draft_store, CR, DRAFT_STORE, GObject)

/* The store of this process, in g_get_user_state_dir ()/chainrule/drafts
 * ($XDG_STATE_HOME honoured). Borrowed: it lives as long as the process. */
CrDraftStore *cr_draft_store_get_default (void);
/* A store (a session of its own) in folder, created when missing. Full. */
CrDraftStore *cr_draft_store_new         (const char   *folder);
const char   *cr_draft_store_get_folder  (CrDraftStore *self);

/* A new draft id for a document of this session (new string). */
char         *cr_draft_store_new_id      (CrDraftStore *self);
/* Writes text as draft id (file: the script's file, or NULL) on the store's
 * worker thread, atomically: a crash while writing leaves the previous
 * draft. Writes and removals happen in the order they were asked for. A
 * failure (a full disk) is not reported: a draft is a safety net. */
void          cr_draft_store_save        (CrDraftStore *self,
                                          const char   *id,
                                          GFile        *file,
                                          const char   *text);
/* Deletes draft id (after the writes asked for before it). */
void          cr_draft_store_remove      (CrDraftStore *self,
                                          const char   *id);
/* Waits until every write and removal asked for so far is done. */
void          cr_draft_store_flush       (CrDraftStore *self);
/* The drafts of other sessions, oldest first (a GPtrArray of CrDraft*,
 * full): those whose process is gone, and also the live ones when
 * include_live is TRUE. Unreadable drafts are skipped. */
GPtrArray    *cr_draft_store_list        (CrDraftStore *self,
                                          gboolean      include_live);

G_END_DECLS
