/* cr-slab.c — size-classed small objects from 2 MiB chunks.
 *
 * Each thread keeps, per size class, two "magazines" of free objects (a
 * singly linked list each, up to BATCH objects): alloc and free are a pop and
 * a push on the current one. A full magazine is set aside; when a second one
 * fills, the older goes to a process-wide pool of batches, and a thread whose
 * magazines are empty takes a batch from there before carving new objects
 * from its chunk. So a thread that only frees (a UI thread dropping the
 * results of a run made elsewhere) passes the memory on instead of hoarding
 * it, and what a thread holds when it exits goes back to the pool too.
 *
 * Chunks are never unmapped: the memory held is the peak of live objects
 * plus at most two magazines per class and thread. */
#include "cr-slab.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
# define SLAB_DISABLED 1
#elif defined(__has_feature)
# if __has_feature (address_sanitizer)
#  define SLAB_DISABLED 1
# endif
#endif

#define CLASS_SHIFT 6
#define N_CLASSES   (CR_SLAB_MAX_SIZE >> CLASS_SHIFT)
#define CHUNK_SIZE  ((gsize) 2 << 20)
#define BATCH       512

G_STATIC_ASSERT ((CR_SLAB_MAX_SIZE & ((1 << CLASS_SHIFT) - 1)) == 0);

typedef struct _FreeObject FreeObject;

/* Written into a free object (every object is at least 64 bytes). */
struct _FreeObject {
  FreeObject *next;          /* within a magazine or batch */
  FreeObject *next_batch;    /* in the pool: on a batch's first object */
  guint       count;         /* ditto: the batch's length */
};

typedef struct {
  FreeObject *cur;
  guint       cur_n;
  FreeObject *full;          /* a set-aside magazine, or NULL */
  guint       full_n;
} Magazine;

typedef struct {
  Magazine  classes[N_CLASSES];
  guint8   *bump;            /* the unused rest of this thread's chunk */
  guint8   *bump_end;
  gboolean  registered;      /* the thread-exit flush is set up */
} ThreadCache;

/* The unused rest of an exited thread's chunk, kept for the next one. */
typedef struct _SpareTail SpareTail;

struct _SpareTail {
  SpareTail *next;
  guint8    *end;
};

/* Transparent huge pages cut the page faults of a big graph ~500-fold; they
 * are asked for only where the system grants them on request. */
gboolean
cr_slab_huge_pages (void)
{
  static gsize once;
  static gboolean huge;

  if (g_once_init_enter (&once))
    {
      FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "r");
      char buf[128] = "";

      if (f != NULL)
        {
          if (fgets (buf, sizeof buf, f) == NULL)
            buf[0] = '\0';
          fclose (f);
        }
      huge = (strstr (buf, "[madvise]") != NULL || strstr (buf, "[always]") != NULL)
             && g_getenv ("CHAINRULE_NO_HUGEPAGES") == NULL;
      g_once_init_leave (&once, 1);
    }
  return huge;
}

#ifndef SLAB_DISABLED
static __thread ThreadCache cache;

static GMutex      pool_lock;
static FreeObject *pool[N_CLASSES];     /* stacks of batches */
static SpareTail  *spare_tails;

static void thread_exit (gpointer unused);

static GPrivate exit_private = G_PRIVATE_INIT (thread_exit);

static inline guint
class_of (gsize size)
{
  return (guint) ((size - 1) >> CLASS_SHIFT);
}

static inline gsize
class_size (guint c)
{
  return (gsize) (c + 1) << CLASS_SHIFT;
}

static void
pool_push (guint       c,
           FreeObject *batch,
           guint       count)
{
  if (batch == NULL)
    return;
  batch->count = count;
  g_mutex_lock (&pool_lock);
  batch->next_batch = pool[c];
  pool[c] = batch;
  g_mutex_unlock (&pool_lock);
}

static FreeObject *
pool_pop (guint  c,
          guint *out_count)
{
  FreeObject *batch;

  /* An unlocked peek: a stale answer only means a new object or a later try. */
  if (g_atomic_pointer_get (&pool[c]) == NULL)
    return NULL;
  g_mutex_lock (&pool_lock);
  batch = pool[c];
  if (batch != NULL)
    {
      pool[c] = batch->next_batch;
      *out_count = batch->count;
    }
  g_mutex_unlock (&pool_lock);
  return batch;
}

static void
thread_exit (gpointer unused)
{
  for (guint c = 0; c < N_CLASSES; c++)
    {
      Magazine *m = &cache.classes[c];

      pool_push (c, m->cur, m->cur_n);
      pool_push (c, m->full, m->full_n);
      memset (m, 0, sizeof *m);
    }
  if (cache.bump != NULL && cache.bump_end - cache.bump >= (gssize) sizeof (SpareTail))
    {
      SpareTail *tail = (SpareTail *) cache.bump;

      tail->end = cache.bump_end;
      g_mutex_lock (&pool_lock);
      tail->next = spare_tails;
      spare_tails = tail;
      g_mutex_unlock (&pool_lock);
    }
  cache.bump = cache.bump_end = NULL;
  /* Objects freed by later thread-exit code register the flush again. */
  cache.registered = FALSE;
}

static void
ensure_registered (void)
{
  if (G_UNLIKELY (!cache.registered))
    {
      cache.registered = TRUE;
      g_private_set (&exit_private, GINT_TO_POINTER (1));
    }
}

/* A fresh 2 MiB-aligned chunk, or NULL. */
static guint8 *
chunk_new (void)
{
  guint8 *raw = mmap (NULL, 2 * CHUNK_SIZE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  guint8 *chunk;
  gsize head;

  if (raw == MAP_FAILED)
    return NULL;
  head = (CHUNK_SIZE - ((guintptr) raw & (CHUNK_SIZE - 1))) & (CHUNK_SIZE - 1);
  chunk = raw + head;
  if (head > 0)
    munmap (raw, head);
  munmap (chunk + CHUNK_SIZE, CHUNK_SIZE - head);
  if (cr_slab_huge_pages ())
    madvise (chunk, CHUNK_SIZE, MADV_HUGEPAGE);
  return chunk;
}

/* CHAINRULE_SLAB_MALLOC set: no chunk, so every object is a malloc() block
 * (alloc_slow's fallback) and free_slow() frees it. Valgrind sees leaked
 * objects then; inside chunks, which it does not track, it cannot. */
static gboolean
slab_bypassed (void)
{
  static gsize once;
  static gboolean bypassed;

  if (g_once_init_enter (&once))
    {
      bypassed = g_getenv ("CHAINRULE_SLAB_MALLOC") != NULL;
      g_once_init_leave (&once, 1);
    }
  return bypassed;
}

static gboolean
refill_bump (void)
{
  SpareTail *tail = NULL;
  guint8 *chunk;

  if (slab_bypassed ())
    return FALSE;
  if (g_atomic_pointer_get (&spare_tails) != NULL)
    {
      g_mutex_lock (&pool_lock);
      tail = spare_tails;
      if (tail != NULL)
        spare_tails = tail->next;
      g_mutex_unlock (&pool_lock);
    }
  if (tail != NULL)
    {
      cache.bump_end = tail->end;
      cache.bump = (guint8 *) tail;
      return TRUE;
    }
  chunk = chunk_new ();
  if (chunk == NULL)
    return FALSE;
  cache.bump = chunk;
  cache.bump_end = chunk + CHUNK_SIZE;
  return TRUE;
}

static G_GNUC_NO_INLINE gpointer
alloc_slow (guint c)
{
  Magazine *m = &cache.classes[c];
  gsize size = class_size (c);
  FreeObject *obj;
  gpointer mem;

  ensure_registered ();
  if (m->full != NULL)
    {
      m->cur = m->full;
      m->cur_n = m->full_n;
      m->full = NULL;
      m->full_n = 0;
    }
  else
    m->cur = pool_pop (c, &m->cur_n);
  if (m->cur != NULL)
    {
      obj = m->cur;
      m->cur = obj->next;
      m->cur_n--;
      return obj;
    }

  while ((gsize) (cache.bump_end - cache.bump) < size)
    if (!refill_bump ())
      {
        /* No address space left for a chunk: a plain block joins the class
         * (it is never given back to malloc, like any object here). */
        return g_malloc (size);
      }
  mem = cache.bump;
  cache.bump += size;
  return mem;
}

/* TRUE when obj was given back to malloc (CHAINRULE_SLAB_MALLOC: magazines
 * stay empty, so every free comes here). */
static G_GNUC_NO_INLINE gboolean
free_slow (Magazine *m,
           guint     c,
           gpointer  obj)
{
  if (slab_bypassed ())
    {
      g_free (obj);
      return TRUE;
    }
  ensure_registered ();
  if (m->cur_n < BATCH)
    return FALSE;
  pool_push (c, m->full, m->full_n);
  m->full = m->cur;
  m->full_n = m->cur_n;
  m->cur = NULL;
  m->cur_n = 0;
  return FALSE;
}
#endif /* !SLAB_DISABLED */

gpointer
cr_slab_alloc (gsize size)
{
#ifndef SLAB_DISABLED
  if (G_LIKELY (size - 1 < CR_SLAB_MAX_SIZE))
    {
      guint c = class_of (size);
      Magazine *m = &cache.classes[c];
      FreeObject *obj = m->cur;

      if (G_LIKELY (obj != NULL))
        {
          FreeObject *next = obj->next;

          /* Freed objects are usually cold: start fetching the next one
           * now, so that the next allocation (and its initialisation) does
           * not wait for memory. */
          __builtin_prefetch (next, 1);
          if (c >= 1)
            __builtin_prefetch ((guint8 *) next + 64, 1);
          if (c >= 2)
            __builtin_prefetch ((guint8 *) next + 128, 1);
          if (c >= 3)
            __builtin_prefetch ((guint8 *) next + 192, 1);
          m->cur = next;
          m->cur_n--;
          return obj;
        }
      return alloc_slow (c);
    }
#endif
  return g_malloc (size);
}

gpointer
cr_slab_alloc0 (gsize size)
{
  gpointer mem = cr_slab_alloc (size);

  if (mem != NULL)
    memset (mem, 0, size);
  return mem;
}

void
cr_slab_free (gpointer mem,
              gsize    size)
{
#ifndef SLAB_DISABLED
  if (G_LIKELY (size - 1 < CR_SLAB_MAX_SIZE))
    {
      guint c = class_of (size);
      Magazine *m = &cache.classes[c];
      FreeObject *obj = mem;

      if (mem == NULL)
        return;
      if (G_UNLIKELY (m->cur_n == 0 || m->cur_n >= BATCH) && free_slow (m, c, mem))
        return;
      obj->next = m->cur;
      m->cur = obj;
      m->cur_n++;
      return;
    }
#endif
  g_free (mem);
}
