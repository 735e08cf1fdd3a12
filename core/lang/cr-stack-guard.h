/* cr-stack-guard.h — how deep C recursion may go on the calling thread.
 *
 * The parser, the resolver, the interpreter and the recursive walks over
 * values (repr, comparison) stop with a RecursionError before the thread's
 * stack runs out, whatever its size: the main thread under `ulimit -s 256`,
 * or the window's worker thread. Each recursive step compares its frame's
 * address with the limit: one thread-local read and one comparison. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The lowest address recursion may reach on the calling thread (stacks grow
 * down), leaving a reserve for the C code that runs between two checks (a
 * native function, printing, BLAS). Computed on the first call in each
 * thread; 1 when the stack cannot be found (no guard). */
guintptr  cr_stack_guard_limit      (void);

/* Private: the thread's limit once computed, 0 before. initial-exec, as core
 * is position-independent: the check runs for every expression evaluated,
 * and the default TLS model would make it a call. */
extern __thread guintptr cr_stack_guard_known_limit __attribute__ ((tls_model ("initial-exec")));

/* TRUE when the caller is too deep to recurse further. */
static inline gboolean
cr_stack_guard_exhausted (void)
{
  guintptr limit = cr_stack_guard_known_limit;

  if (G_UNLIKELY (limit == 0))
    limit = cr_stack_guard_limit ();
  return (guintptr) __builtin_frame_address (0) < limit;
}

G_END_DECLS
