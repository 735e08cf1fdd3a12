/* test-fiber.c — stacks of their own for generators (cr-fiber.h): the
 * switches, the stack guard's limit on each side, the memory budget. */
#include "cr-error.h"
#include "cr-fiber.h"
#include "cr-stack-guard.h"
#include "cr-storage.h"

typedef struct {
  CrFiber  *fiber;
  GString  *log;
  int       steps;
  guintptr  limit_inside;
  guintptr  local_inside;
  CrFiber  *inner;        /* resumed from inside (nesting) */
} Ctx;

static void
count_body (CrFiber  *fiber,
            gpointer  data)
{
  Ctx *ctx = data;
  int local = 0;

  ctx->limit_inside = cr_stack_guard_limit ();
  ctx->local_inside = (guintptr) &local;
  for (int i = 0; i < ctx->steps; i++)
    {
      g_string_append_printf (ctx->log, "f%d ", i);
      if (ctx->inner && !cr_fiber_is_finished (ctx->inner))
        cr_fiber_resume (ctx->inner);
      cr_fiber_suspend (fiber);
    }
  g_string_append (ctx->log, "end ");
}

static void
test_switch (void)
{
  Ctx ctx = { .log = g_string_new (NULL), .steps = 3 };
  guintptr outside = cr_stack_guard_limit ();

  ctx.fiber = cr_fiber_new (count_body, &ctx, NULL);
  g_assert_nonnull (ctx.fiber);
  g_assert_false (cr_fiber_is_finished (ctx.fiber));
  while (!cr_fiber_is_finished (ctx.fiber))
    {
      g_string_append (ctx.log, "m ");
      cr_fiber_resume (ctx.fiber);
      /* Back on this stack, the guard's limit is this stack's again. */
      g_assert_cmpuint (cr_stack_guard_limit (), ==, outside);
    }
  g_assert_cmpstr (ctx.log->str, ==, "m f0 m f1 m f2 m end ");
  /* Inside, the limit lay on the fiber's stack, below its frames. */
  g_assert_cmpuint (ctx.limit_inside, <, ctx.local_inside);
  g_assert_cmpuint (ctx.local_inside - ctx.limit_inside, <, cr_fiber_stack_bytes ());
  g_assert_false (cr_stack_guard_exhausted ());
  cr_fiber_free (ctx.fiber);
  g_string_free (ctx.log, TRUE);
}

static void
test_nested (void)
{
  Ctx inner = { .log = g_string_new (NULL), .steps = 2 };
  Ctx outer = { .log = inner.log, .steps = 3 };

  inner.fiber = cr_fiber_new (count_body, &inner, NULL);
  outer.fiber = cr_fiber_new (count_body, &outer, NULL);
  outer.inner = inner.fiber;
  while (!cr_fiber_is_finished (outer.fiber))
    cr_fiber_resume (outer.fiber);
  g_assert_cmpstr (inner.log->str, ==, "f0 f0 f1 f1 f2 end end ");
  g_assert_true (cr_fiber_is_finished (inner.fiber));
  cr_fiber_free (inner.fiber);
  cr_fiber_free (outer.fiber);
  g_string_free (inner.log, TRUE);
}

static void
test_budget (void)
{
  gsize before = cr_memory_in_use ();
  gsize limit = cr_memory_get_limit ();
  GError *error = NULL;

  CrFiber *fiber = cr_fiber_new (count_body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cr_memory_in_use (), ==, before + cr_fiber_stack_bytes ());
  /* A fiber never started is freed as is. */
  cr_fiber_free (fiber);
  g_assert_cmpuint (cr_memory_in_use (), ==, before);

  cr_memory_set_limit (before + cr_fiber_stack_bytes () / 2);
  g_assert_null (cr_fiber_new (count_body, NULL, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
  g_clear_error (&error);
  cr_memory_set_limit (limit);
  g_assert_cmpuint (cr_memory_in_use (), ==, before);
}

static gpointer
small_thread (gpointer data)
{
  Ctx ctx = { .log = g_string_new (NULL), .steps = 1 };
  ctx.fiber = cr_fiber_new (count_body, &ctx, NULL);
  while (!cr_fiber_is_finished (ctx.fiber))
    cr_fiber_resume (ctx.fiber);
  cr_fiber_free (ctx.fiber);
  return g_string_free (ctx.log, FALSE);
}

static void
test_thread (void)
{
  /* A fiber runs on whatever thread resumes it, whatever that thread's
   * own stack (the window's worker). */
  GThread *thread = g_thread_new ("small", small_thread, NULL);
  char *log = g_thread_join (thread);
  g_assert_cmpstr (log, ==, "f0 end ");
  g_free (log);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/fiber/switch", test_switch);
  g_test_add_func ("/lang/fiber/nested", test_nested);
  g_test_add_func ("/lang/fiber/budget", test_budget);
  g_test_add_func ("/lang/fiber/thread", test_thread);
  return g_test_run ();
}
