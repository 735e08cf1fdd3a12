/* cr-fuzz.c — the set-up every fuzz target shares (see cr-fuzz.h). */
#include "cr-fuzz.h"

#include <glib.h>
#include <stdlib.h>

#include "cr-kernels.h"

void
cr_fuzz_init (void)
{
  /* Before GLib's first g_slice_alloc: GLib 2.74's slices live in pages of
   * their own, where a leaked block would hide from LeakSanitizer. */
  setenv ("G_SLICE", "always-malloc", 1);
  /* The fuzzer must take one core of a shared machine, and runs must not
   * depend on a thread pool's timing. */
  setenv ("OMP_NUM_THREADS", "1", 1);
  setenv ("OPENBLAS_NUM_THREADS", "1", 1);
  cr_threads_init ();
  cr_threads_set (1);
  /* A critical is a broken promise inside the engine: a crash for the fuzzer,
   * as it is for the tests (G_DEBUG=fatal-warnings). */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
}
