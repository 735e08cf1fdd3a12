/* cr-fiber.c — C stacks of their own for generators; see cr-fiber.h.
 *
 * Why a stack per generator rather than a resumable tree walk: the
 * interpreter evaluates by recursion over the tree, and a `yield` may stand
 * anywhere an expression may (`x = f(a, (yield b))`, inside a with block,
 * a finally clause, a loop in a loop). Making every statement and
 * expression able to stop and resume half-way would rewrite the whole
 * interpreter; a stack per generator keeps it as it is, and the generator
 * runs on the consumer's thread, where grad mode and the run's other state
 * live.
 *
 * Switching is a few instructions of assembly on x86-64 (the callee-saved
 * registers and the stack pointer), ucontext's swapcontext elsewhere: glibc's
 * swapcontext also saves the signal mask, a system call each way, which made
 * a loop over a generator ten times slower. Three tools must be told about
 * a switch:
 * the stack guard (its limit is the running stack's, a thread-local value
 * swapped on each switch), AddressSanitizer (__sanitizer_start_switch_fiber
 * before each switch, __sanitizer_finish_switch_fiber after it) and
 * valgrind (VALGRIND_STACK_REGISTER for each stack). */
#include "cr-fiber.h"

#include "cr-error.h"
#include "cr-stack-guard.h"
#include "cr-memory.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
# define CR_FIBER_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define CR_FIBER_ASAN 1
# endif
#endif
#ifdef CR_FIBER_ASAN
# include <sanitizer/asan_interface.h>
# include <sanitizer/common_interface_defs.h>
#endif

#if defined(__has_include)
# if __has_include(<valgrind/valgrind.h>)
#  include <valgrind/valgrind.h>
#  define CR_FIBER_VALGRIND 1
# endif
#endif

/* A generator's stack: room for about 200 nested calls of script functions
 * inside one generator (a call takes some 2 KiB of C stack), a quarter kept
 * in reserve below the stack guard's limit for the native code that runs
 * between two checks, as on a small thread stack (cr-stack-guard.c). A
 * generator that yields from another runs that one on its own stack, so
 * recursion through `yield from` does not add up on one stack. */
#define STACK_BYTES    ((gsize) 512 * 1024)
#define STACK_RESERVE  (STACK_BYTES / 4)
/* Stacks kept for reuse: `sum(f(x) for ...)` over generator functions in a
 * loop maps and unmaps none. */
#define POOL_MAX       8

#if defined(__x86_64__) && defined(__linux__)
# define CR_FIBER_ASM 1
#else
# include <ucontext.h>
#endif

typedef struct {
  guint8  *map;          /* the mapping: a guard page, then the stack */
  gsize    map_bytes;
  guint8  *low;          /* the stack's lowest usable address */
  gsize    bytes;
  unsigned valgrind_id;
} Stack;

#ifdef CR_FIBER_ASM
/* What a switch leaves on the stack it leaves: the callee-saved registers
 * and the SSE and x87 control words; the context is the stack pointer. */
typedef struct {
  void *sp;
} Context;
#else
typedef ucontext_t Context;
#endif

struct _CrFiber {
  Context      context;        /* the fiber's, while it is suspended */
  Context      resumer;        /* the resumer's, while the fiber runs */
  Stack        stack;
  CrFiberFunc  func;
  gpointer     data;
  gboolean     started;
  gboolean     running;
  gboolean     finished;
  guintptr     guard_limit;    /* the stack guard's limit on the fiber's stack */
  guintptr     resumer_limit;  /* and on the resumer's */
#ifdef CR_FIBER_ASAN
  void        *fake_stack;     /* ASan's fake stack of the side switched away from */
  const void  *resumer_bottom;
  size_t       resumer_size;
#endif
};

G_LOCK_DEFINE_STATIC (pool);
static Stack pool_stacks[POOL_MAX];
static guint pool_len;

static gsize
page_size (void)
{
  static gsize size;
  if (G_UNLIKELY (size == 0))
    {
      long s = sysconf (_SC_PAGESIZE);
      size = s > 0 ? (gsize) s : 4096;
    }
  return size;
}

static gboolean
stack_map (Stack *stack)
{
  gsize guard = page_size ();
  gsize total = STACK_BYTES + guard;
  void *map = mmap (NULL, total, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (map == MAP_FAILED)
    return FALSE;
  /* Stacks grow down: the guard page below turns an overflow into a fault
   * at once rather than into corrupted neighbouring memory. */
  if (mprotect (map, guard, PROT_NONE) != 0)
    {
      munmap (map, total);
      return FALSE;
    }
  stack->map = map;
  stack->map_bytes = total;
  stack->low = (guint8 *) map + guard;
  stack->bytes = STACK_BYTES;
#ifdef CR_FIBER_VALGRIND
  stack->valgrind_id = VALGRIND_STACK_REGISTER (stack->low, stack->low + stack->bytes);
#endif
  return TRUE;
}

static void
stack_unmap (Stack *stack)
{
#ifdef CR_FIBER_VALGRIND
  VALGRIND_STACK_DEREGISTER (stack->valgrind_id);
#endif
  munmap (stack->map, stack->map_bytes);
}

/* A stack from the pool or a new mapping, charged to the budget. */
static gboolean
stack_take (Stack *stack)
{
  if (!cr_memory_reserve (STACK_BYTES))
    return FALSE;
  G_LOCK (pool);
  gboolean reused = pool_len > 0;
  if (reused)
    *stack = pool_stacks[--pool_len];
  G_UNLOCK (pool);
  if (reused || stack_map (stack))
    return TRUE;
  cr_memory_charge (-(gssize) STACK_BYTES);
  return FALSE;
}

static void
stack_give_back (Stack *stack)
{
#ifdef CR_FIBER_ASAN
  /* The frames that lived on it left their redzones poisoned. */
  ASAN_UNPOISON_MEMORY_REGION (stack->low, stack->bytes);
#endif
  cr_memory_charge (-(gssize) STACK_BYTES);
  G_LOCK (pool);
  gboolean kept = pool_len < POOL_MAX;
  if (kept)
    pool_stacks[pool_len++] = *stack;
  G_UNLOCK (pool);
  if (!kept)
    stack_unmap (stack);
}

gsize
cr_fiber_stack_bytes (void)
{
  return STACK_BYTES;
}

/* ---- switching ---- */

static void trampoline (CrFiber *fiber);

#ifdef CR_FIBER_ASM
/* Pushes the callee-saved registers and the control words, stores the
 * stack pointer in *from_sp, and pops the same from to_sp. */
void cr_fiber_switch_asm (void **from_sp, void *to_sp);
/* Where a new stack starts: the fiber is in r12. */
void cr_fiber_start_asm (void);
/* Called from cr_fiber_start_asm. */
void cr_fiber_entry (CrFiber *fiber);

__asm__ (
  ".text\n"
  ".globl cr_fiber_switch_asm\n"
  ".hidden cr_fiber_switch_asm\n"
  ".type cr_fiber_switch_asm, @function\n"
  "cr_fiber_switch_asm:\n"
  "  pushq %rbp\n"
  "  pushq %rbx\n"
  "  pushq %r12\n"
  "  pushq %r13\n"
  "  pushq %r14\n"
  "  pushq %r15\n"
  "  subq $8, %rsp\n"
  "  stmxcsr (%rsp)\n"
  "  fnstcw 4(%rsp)\n"
  "  movq %rsp, (%rdi)\n"
  "  movq %rsi, %rsp\n"
  "  ldmxcsr (%rsp)\n"
  "  fldcw 4(%rsp)\n"
  "  addq $8, %rsp\n"
  "  popq %r15\n"
  "  popq %r14\n"
  "  popq %r13\n"
  "  popq %r12\n"
  "  popq %rbx\n"
  "  popq %rbp\n"
  "  ret\n"
  ".size cr_fiber_switch_asm, .-cr_fiber_switch_asm\n"
  ".globl cr_fiber_start_asm\n"
  ".hidden cr_fiber_start_asm\n"
  ".type cr_fiber_start_asm, @function\n"
  "cr_fiber_start_asm:\n"
  "  movq %r12, %rdi\n"
  "  call cr_fiber_entry\n"
  "  ud2\n"
  ".size cr_fiber_start_asm, .-cr_fiber_start_asm\n");

__attribute__ ((visibility ("hidden"))) void
cr_fiber_entry (CrFiber *fiber)
{
  trampoline (fiber);
}

/* A stack on which the first switch "returns" into cr_fiber_start_asm. */
static void
context_make (Context *context,
              Stack   *stack,
              CrFiber *fiber)
{
  guintptr top = ((guintptr) stack->low + stack->bytes) & ~(guintptr) 15;
  /* After the final ret the stack pointer is 16-aligned, as the call in
   * cr_fiber_start_asm needs. */
  void **sp = (void **) (top - 16);
  guint32 mxcsr;
  guint16 fpucw;

  *--sp = (void *) cr_fiber_start_asm;
  *--sp = NULL;            /* rbp */
  *--sp = NULL;            /* rbx */
  *--sp = fiber;           /* r12 */
  *--sp = NULL;            /* r13 */
  *--sp = NULL;            /* r14 */
  *--sp = NULL;            /* r15 */
  --sp;
  __asm__ volatile ("stmxcsr %0" : "=m" (mxcsr));
  __asm__ volatile ("fnstcw %0" : "=m" (fpucw));
  memcpy (sp, &mxcsr, sizeof mxcsr);
  memcpy ((guint8 *) sp + 4, &fpucw, sizeof fpucw);
  context->sp = sp;
}

static inline void
context_switch (Context *from,
                Context *to)
{
  cr_fiber_switch_asm (&from->sp, to->sp);
}
#else
static void
trampoline_ucontext (unsigned int high,
                     unsigned int low)
{
  trampoline ((CrFiber *) (((guintptr) high << 32) | (guintptr) low));
}

static void
context_make (Context *context,
              Stack   *stack,
              CrFiber *fiber)
{
  guintptr p = (guintptr) fiber;

  getcontext (context);
  context->uc_stack.ss_sp = stack->low;
  context->uc_stack.ss_size = stack->bytes;
  context->uc_link = NULL;
  makecontext (context, (void (*) (void)) trampoline_ucontext, 2,
               (unsigned int) (p >> 32), (unsigned int) (p & 0xffffffffu));
}

static inline void
context_switch (Context *from,
                Context *to)
{
  swapcontext (from, to);
}
#endif

/* On the fiber's stack, after a switch into it: learn the resumer's stack. */
static inline void
entered_fiber (CrFiber *fiber)
{
#ifdef CR_FIBER_ASAN
  __sanitizer_finish_switch_fiber (fiber->fake_stack, &fiber->resumer_bottom,
                                   &fiber->resumer_size);
#else
  (void) fiber;
#endif
}

static void
trampoline (CrFiber *fiber)
{
#ifdef CR_FIBER_ASAN
  fiber->fake_stack = NULL;
#endif
  entered_fiber (fiber);
  fiber->func (fiber, fiber->data);
  fiber->finished = TRUE;
  fiber->running = FALSE;
#ifdef CR_FIBER_ASAN
  /* NULL: this stack's frames are gone for good. */
  __sanitizer_start_switch_fiber (NULL, fiber->resumer_bottom, fiber->resumer_size);
#endif
  context_switch (&fiber->context, &fiber->resumer);
  g_assert_not_reached ();
}

CrFiber *
cr_fiber_new (CrFiberFunc   func,
              gpointer      data,
              GError      **error)
{
  CrFiber *fiber = g_new0 (CrFiber, 1);
  if (!stack_take (&fiber->stack))
    {
      g_free (fiber);
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR, "");
      return NULL;
    }
  fiber->func = func;
  fiber->data = data;
  fiber->guard_limit = (guintptr) fiber->stack.low + STACK_RESERVE;
  return fiber;
}

void
cr_fiber_resume (CrFiber *fiber)
{
  g_return_if_fail (!fiber->finished && !fiber->running);

  if (!fiber->started)
    {
      fiber->started = TRUE;
      context_make (&fiber->context, &fiber->stack, fiber);
    }
  fiber->running = TRUE;
  fiber->resumer_limit = cr_stack_guard_limit ();
  cr_stack_guard_known_limit = fiber->guard_limit;
#ifdef CR_FIBER_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber (&fake, fiber->stack.low, fiber->stack.bytes);
#endif
  context_switch (&fiber->resumer, &fiber->context);
#ifdef CR_FIBER_ASAN
  __sanitizer_finish_switch_fiber (fake, NULL, NULL);
#endif
  cr_stack_guard_known_limit = fiber->resumer_limit;
}

void
cr_fiber_suspend (CrFiber *fiber)
{
  g_return_if_fail (fiber->running);

  fiber->running = FALSE;
#ifdef CR_FIBER_ASAN
  __sanitizer_start_switch_fiber (&fiber->fake_stack, fiber->resumer_bottom,
                                  fiber->resumer_size);
#endif
  context_switch (&fiber->context, &fiber->resumer);
  entered_fiber (fiber);
}

gboolean
cr_fiber_is_finished (CrFiber *fiber)
{
  return fiber->finished;
}

void
cr_fiber_free (CrFiber *fiber)
{
  if (!fiber)
    return;
  g_return_if_fail (!fiber->running && (fiber->finished || !fiber->started));
  stack_give_back (&fiber->stack);
  g_free (fiber);
}
