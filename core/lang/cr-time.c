/* cr-time.c — the time module, for the timing lines tutorials print
 * (`since = time.time()` ... `time.time() - since`): the clocks only; no
 * sleep, which a run's time budget would have to bound. */
#include "cr-interp-private.h"

#include "cr-native.h"

/* data: TRUE for the wall clock (time.time), FALSE for the monotonic one
 * (perf_counter, monotonic, process_time). */
NATIVE (time_clock)
{
  if (!cr_builtin_no_kwargs ("time function", n_kwargs, kwargs, error)
      || !cr_builtin_arg_count ("time function", n_args, 0, 0, error))
    return NULL;
  if (GPOINTER_TO_INT (data))
    return cr_value_new_float (g_get_real_time () / 1e6);
  return cr_value_new_float (g_get_monotonic_time () / 1e6);
}

CrValue *
cr_time_module_new (void)
{
  CrValue *m = cr_value_new_module ("time");
  static const struct { const char *name; gboolean wall; } clocks[] = {
    { "time", TRUE }, { "perf_counter", FALSE }, { "monotonic", FALSE },
    { "process_time", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (clocks); i++)
    {
      CrValue *f = cr_value_new_native (clocks[i].name, time_clock, NULL,
                                        GINT_TO_POINTER (clocks[i].wall));
      cr_value_set_member (m, clocks[i].name, f);
      cr_value_unref (f);
    }
  return m;
}
