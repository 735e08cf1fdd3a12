/* cr-stack-guard.c — the stack limit of each thread; see cr-stack-guard.h. */
#define _GNU_SOURCE   /* pthread_getattr_np */
#include "cr-stack-guard.h"

#include <pthread.h>

/* The reserve below the limit: an eighth of the stack, at least 256 KiB on
 * stacks of 2 MiB and more (the default 8 MiB: 1 MiB). A small stack keeps a
 * quarter of itself (64 KiB of `ulimit -s 256`), never less than 24 KiB:
 * recursion then ends early with a RecursionError, which is all such a stack
 * allows. */
#define RESERVE_LARGE  (256 * 1024)
#define RESERVE_MIN    (24 * 1024)

__thread guintptr cr_stack_guard_known_limit __attribute__ ((tls_model ("initial-exec")));

static guintptr
compute_limit (void)
{
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  guintptr limit = 1;   /* no guard: no frame lies below it */

  if (pthread_getattr_np (pthread_self (), &attr) != 0)
    return limit;
  if (pthread_attr_getstack (&attr, &addr, &size) == 0 && addr != NULL && size > 0)
    {
      guintptr low = (guintptr) addr;
      guintptr here = (guintptr) __builtin_frame_address (0);
      gsize reserve = size >= 2 * RESERVE_LARGE * 4 ? MAX ((gsize) RESERVE_LARGE, size / 8)
                                                    : MAX ((gsize) RESERVE_MIN, size / 4);

      /* Where less than the reserve is left already, every check fails:
       * better a RecursionError at once than a crash. */
      limit = here > low + reserve ? low + reserve : here;
    }
  pthread_attr_destroy (&attr);
  return limit;
}

guintptr
cr_stack_guard_limit (void)
{
  if (G_UNLIKELY (cr_stack_guard_known_limit == 0))
    cr_stack_guard_known_limit = compute_limit ();
  return cr_stack_guard_known_limit;
}
