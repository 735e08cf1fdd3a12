/* cr-cpu-threads.c — the worker pool for large elementwise loops and reductions.
 *
 * The pool is persistent (threads are made once) and idle workers sleep on a
 * condition variable: no spinning that would steal cycles from OpenBLAS's own
 * threads on a small machine. The calling thread takes chunks too, so a pool of
 * N threads has N - 1 workers. One parallel region runs at a time; a second
 * caller (another script run, or a nested call from a worker) runs inline. */
#include "cr-kernels.h"

#include <cblas.h>
#include <gmodule.h>
#include <stdlib.h>

typedef void (*ChunkFunc) (gint64 begin, gint64 end, gpointer data);

typedef struct {
  GMutex      lock;
  GCond       work_cond;
  GCond       done_cond;
  GPtrArray  *workers;           /* of GThread* */
  guint64     generation;        /* bumped per job */
  /* The current job (read under lock when a worker joins it). */
  ChunkFunc   fn;
  gpointer    data;
  gint64      n;
  gint64      n_chunks;
  gint        next_chunk;        /* atomic */
  gint64      chunks_done;
  int         active;            /* workers inside the current job */
} Pool;

static Pool pool;
static GMutex submit_lock;
static int n_threads;            /* 0 until initialised */
static __thread gboolean in_worker;

static int
env_threads (const char *name)
{
  const char *value = g_getenv (name);
  gint64 n;

  if (value == NULL || *value == '\0')
    return 0;
  n = g_ascii_strtoll (value, NULL, 10);
  return n > 0 && n <= 1024 ? (int) n : 0;
}

static void
run_chunk (ChunkFunc fn,
           gpointer  data,
           gint64    n,
           gint64    n_chunks,
           gint64    chunk)
{
  gint64 begin = n * chunk / n_chunks;
  gint64 end = n * (chunk + 1) / n_chunks;

  if (end > begin)
    fn (begin, end, data);
}

static gpointer
worker_main (gpointer unused)
{
  guint64 seen = 0;

  in_worker = TRUE;
  g_mutex_lock (&pool.lock);
  for (;;)
    {
      ChunkFunc fn;
      gpointer data;
      gint64 n, n_chunks, done = 0;
      gint chunk;

      while (pool.generation == seen)
        g_cond_wait (&pool.work_cond, &pool.lock);
      seen = pool.generation;
      fn = pool.fn;
      data = pool.data;
      n = pool.n;
      n_chunks = pool.n_chunks;
      pool.active++;
      g_mutex_unlock (&pool.lock);

      while ((chunk = g_atomic_int_add (&pool.next_chunk, 1)) < n_chunks)
        {
          run_chunk (fn, data, n, n_chunks, chunk);
          done++;
        }

      g_mutex_lock (&pool.lock);
      pool.chunks_done += done;
      pool.active--;
      if (pool.active == 0)
        g_cond_broadcast (&pool.done_cond);
    }
  return NULL;
}

/* Grows the pool to n - 1 workers (it never shrinks: extra workers just sleep). */
static void
ensure_workers (int n)
{
  g_mutex_lock (&pool.lock);
  if (pool.workers == NULL)
    pool.workers = g_ptr_array_new ();
  while ((int) pool.workers->len < n - 1)
    {
      g_autofree char *name = g_strdup_printf ("cr-worker-%u", pool.workers->len);

      g_ptr_array_add (pool.workers, g_thread_new (name, worker_main, NULL));
    }
  g_mutex_unlock (&pool.lock);
}

void
cr_threads_set (int n)
{
  if (n < 1)
    n = 1;
  g_atomic_int_set (&n_threads, n);
  openblas_set_num_threads (n);
}

/* OpenBLAS (the pthreads build) starts its workers when it is loaded, and
 * each spins in sched_yield() for about 2^28 cycles before it sleeps: a
 * tenth of a second of a core at every start, taken from whatever else runs
 * (our own pool included). A script that multiplies matrices gets them back
 * with its first threaded sgemm (OpenBLAS restarts them on demand). */
static void
stop_idle_blas_threads (void)
{
  GModule *self = g_module_open (NULL, 0);
  gpointer shutdown = NULL;

  if (self == NULL)
    return;
  if (g_module_symbol (self, "blas_thread_shutdown_", &shutdown) && shutdown != NULL)
    ((int (*) (void)) shutdown) ();
  g_module_close (self);
}

void
cr_threads_init (void)
{
  int n = env_threads ("OMP_NUM_THREADS");

  if (n == 0)
    n = env_threads ("OPENBLAS_NUM_THREADS");
  if (n == 0)
    n = (int) g_get_num_processors ();
  cr_threads_set (n);
  if (n > 1)
    stop_idle_blas_threads ();
}

int
cr_threads_get (void)
{
  int n = g_atomic_int_get (&n_threads);

  if (G_UNLIKELY (n == 0))
    {
      static gsize once;

      if (g_once_init_enter (&once))
        {
          if (g_atomic_int_get (&n_threads) == 0)
            cr_threads_init ();
          g_once_init_leave (&once, 1);
        }
      n = g_atomic_int_get (&n_threads);
    }
  return n;
}

void
cr_parallel_for (gint64    n,
                 gint64    grain,
                 void    (*fn) (gint64 begin, gint64 end, gpointer data),
                 gpointer  data)
{
  int threads;
  gint64 n_chunks;
  gint chunk;

  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  threads = cr_threads_get ();
  if (threads <= 1 || n < 2 * grain || in_worker || !g_mutex_trylock (&submit_lock))
    {
      fn (0, n, data);
      return;
    }

  n_chunks = MIN ((gint64) threads, n / grain);
  ensure_workers ((int) n_chunks);

  g_mutex_lock (&pool.lock);
  /* A worker that woke too late for the previous job may still be leaving it;
   * it must not see this job's chunk counter with that job's function. */
  while (pool.active > 0)
    g_cond_wait (&pool.done_cond, &pool.lock);
  pool.fn = fn;
  pool.data = data;
  pool.n = n;
  pool.n_chunks = n_chunks;
  pool.chunks_done = 0;
  g_atomic_int_set (&pool.next_chunk, 0);
  pool.generation++;
  g_cond_broadcast (&pool.work_cond);
  g_mutex_unlock (&pool.lock);

  /* The caller works too; what it finishes counts like a worker's chunks. */
  {
    gint64 done = 0;

    in_worker = TRUE;
    while ((chunk = g_atomic_int_add (&pool.next_chunk, 1)) < n_chunks)
      {
        run_chunk (fn, data, n, n_chunks, chunk);
        done++;
      }
    in_worker = FALSE;

    g_mutex_lock (&pool.lock);
    pool.chunks_done += done;
    while (pool.chunks_done < pool.n_chunks || pool.active > 0)
      g_cond_wait (&pool.done_cond, &pool.lock);
    g_mutex_unlock (&pool.lock);
  }
  g_mutex_unlock (&submit_lock);
}
