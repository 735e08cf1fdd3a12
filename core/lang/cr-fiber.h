/* cr-fiber.h — a function that runs on a C stack of its own and can stop
 * half-way and be resumed, on the thread that resumes it: what a generator
 * (a def with `yield`) runs on, since the interpreter is a recursive walker
 * over the tree and a `yield` can sit deep inside a statement.
 *
 * A fiber's stack is a mapping of its own, with a guard page below it,
 * charged to the memory budget (cr-storage.h) while the fiber lives: many
 * live fibers end in a MemoryError, not in the kernel's OOM killer. On each
 * switch the stack guard (cr-stack-guard.h) is told the running stack's
 * bounds, so deep recursion inside a fiber is a RecursionError; ASan is told
 * of the switches (its fiber annotations), and valgrind of the stacks. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CrFiber CrFiber;

/* What a fiber runs; when it returns, the fiber has finished. */
typedef void (*CrFiberFunc) (CrFiber  *fiber,
                             gpointer  data);

/* A fiber that will run func (data borrowed), not started yet; NULL with a
 * MemoryError (no message, as Python's) when its stack does not fit the
 * budget or cannot be mapped. */
CrFiber  *cr_fiber_new        (CrFiberFunc   func,
                               gpointer      data,
                               GError      **error);
/* Runs the fiber, on the calling thread, until it suspends itself or
 * finishes. Not from inside the fiber itself. */
void      cr_fiber_resume     (CrFiber      *fiber);
/* From inside the running fiber: back to the cr_fiber_resume () that ran
 * it, which returns; the next resume returns from here. */
void      cr_fiber_suspend    (CrFiber      *fiber);
gboolean  cr_fiber_is_finished(CrFiber      *fiber);
/* Frees a fiber that has finished or never started (a suspended one still
 * holds what its stack's frames own: finish it first). NULL-safe. */
void      cr_fiber_free       (CrFiber      *fiber);

/* The bytes one fiber's stack is charged (tests). */
gsize     cr_fiber_stack_bytes(void);

G_END_DECLS
