/* test-slab.c — the small-object allocator (cr-slab) and the reuse of large
 * CPU buffers (cr-storage): alignment, reuse, hand-over between threads, and
 * that nothing grows from one round of the same work to the next. */
#include <string.h>

#include "cr-error.h"
#include "cr-slab.h"
#include "cr-storage.h"
#include "cr-tensor.h"

#if defined(__SANITIZE_ADDRESS__)
# define POOLING 0   /* cr-slab.h: plain heap blocks under AddressSanitizer */
#else
# define POOLING 1
#endif

static void
test_alignment_and_reuse (void)
{
  static const gsize sizes[] = { 1, 48, 64, 65, 200, 256, 257, 700, 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint8 *a = cr_slab_alloc0 (sizes[i]);
      guint8 *b;

      for (gsize k = 0; k < sizes[i]; k++)
        g_assert_cmpuint (a[k], ==, 0);
      memset (a, 0xab, sizes[i]);
      if (POOLING)
        g_assert_cmpuint (GPOINTER_TO_SIZE (a) % 64, ==, 0);
      cr_slab_free (a, sizes[i]);

      /* The last freed object of a size class is the next one given out,
       * zero-filled again by alloc0. */
      b = cr_slab_alloc0 (sizes[i]);
      if (POOLING)
        g_assert_true (b == a);
      for (gsize k = 0; k < sizes[i]; k++)
        g_assert_cmpuint (b[k], ==, 0);
      cr_slab_free (b, sizes[i]);
    }

  /* Bigger than the largest class: a plain block, freed as one. */
  {
    guint8 *big = cr_slab_alloc (CR_SLAB_MAX_SIZE + 1);

    memset (big, 1, CR_SLAB_MAX_SIZE + 1);
    cr_slab_free (big, CR_SLAB_MAX_SIZE + 1);
  }
  cr_slab_free (NULL, 64);
}

#define N_OBJECTS 5000

typedef struct {
  gpointer objects[N_OBJECTS];
  gsize    size;
} Batch;

static gpointer
alloc_thread (gpointer data)
{
  Batch *batch = data;

  for (guint i = 0; i < N_OBJECTS; i++)
    {
      batch->objects[i] = cr_slab_alloc (batch->size);
      memset (batch->objects[i], (int) (i & 0xff), batch->size);
    }
  return NULL;
}

static gpointer
free_thread (gpointer data)
{
  Batch *batch = data;

  for (guint i = 0; i < N_OBJECTS; i++)
    {
      const guint8 *p = batch->objects[i];

      /* Still what its thread wrote: no object was handed out twice. */
      g_assert_cmpuint (p[0], ==, i & 0xff);
      g_assert_cmpuint (p[batch->size - 1], ==, i & 0xff);
      cr_slab_free (batch->objects[i], batch->size);
    }
  return NULL;
}

/* Objects made on one thread and freed on another (a UI thread dropping the
 * results of a run made on a worker), by threads that then exit: the memory
 * goes back to the shared pool and a later thread reuses it. */
static void
test_threads (void)
{
  Batch *batch = g_new0 (Batch, 1);
  GHashTable *first = g_hash_table_new (NULL, NULL);
  guint reused = 0;

  batch->size = 192;
  for (int round = 0; round < 3; round++)
    {
      g_thread_join (g_thread_new ("alloc", alloc_thread, batch));
      if (round == 0)
        for (guint i = 0; i < N_OBJECTS; i++)
          g_hash_table_add (first, batch->objects[i]);
      else
        for (guint i = 0; i < N_OBJECTS; i++)
          reused += g_hash_table_contains (first, batch->objects[i]);
      g_thread_join (g_thread_new ("free", free_thread, batch));
    }
  /* All but what the exited threads' magazines held at most (two of 512
   * each) came back; in practice all of it does. */
  if (POOLING)
    g_assert_cmpuint (reused, >=, 2 * (N_OBJECTS - 1024));
  g_hash_table_unref (first);
  g_free (batch);
}

/* A 16 MiB tensor freed and made again gets the same buffer, and the memory
 * count comes back to where it was. */
static void
test_big_buffers (void)
{
  const gint64 shape[2] = { 2048, 2048 };
  gsize before = cr_memory_in_use ();
  gpointer first_data;
  CrTensor *t;

  t = cr_tensor_new_empty (shape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  g_assert_nonnull (t);
  g_assert_cmpuint (cr_memory_in_use (), ==, before + ((gsize) 16 << 20));
  g_assert_cmpuint (GPOINTER_TO_SIZE (t->storage->data) % 64, ==, 0);
  first_data = t->storage->data;
  memset (t->storage->data, 0x5a, (gsize) 16 << 20);
  cr_tensor_unref (t);
  g_assert_cmpuint (cr_memory_in_use (), ==, before);

  for (int round = 0; round < 5; round++)
    {
      t = cr_tensor_new_zeros (shape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
      g_assert_nonnull (t);
      if (POOLING)
        g_assert_true (t->storage->data == first_data);
      /* zeros() really is zero on a reused buffer. */
      g_assert_cmpfloat (cr_tensor_get_flat (t, 0), ==, 0.0);
      g_assert_cmpfloat (cr_tensor_get_flat (t, 2048 * 2048 - 1), ==, 0.0);
      cr_tensor_unref (t);
    }
  g_assert_cmpuint (cr_memory_in_use (), ==, before);

  /* A limit below a cached buffer still fails with PyTorch's message. */
  {
    g_autoptr(GError) error = NULL;
    gsize limit = cr_memory_get_limit ();

    cr_memory_set_limit ((gsize) 8 << 20);
    t = cr_tensor_new_empty (shape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
    cr_memory_set_limit (limit);
    g_assert_null (t);
    g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
    g_assert_true (g_str_has_suffix (error->message,
                                     "you tried to allocate 16777216 bytes. "
                                     "Error code 12 (Cannot allocate memory)"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/slab/alignment-and-reuse", test_alignment_and_reuse);
  g_test_add_func ("/core/slab/threads", test_threads);
  g_test_add_func ("/core/slab/big-buffers", test_big_buffers);
  return g_test_run ();
}
