/* cr-time-limit.c — see cr-time-limit.h. */
#include "cr-time-limit.h"

#include <math.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

/* Set once by cr_time_limit_arm(), read by the signal handlers. */
static gint *armed_flag;
static volatile sig_atomic_t grace_armed;

gboolean
cr_time_limit_parse (const char *text,
                     double     *out_seconds)
{
  char *end = NULL;
  double seconds = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !(seconds > 0) || !isfinite (seconds))
    return FALSE;
  *out_seconds = seconds;
  return TRUE;
}

static void
on_alarm (int signo)
{
  if (!grace_armed)
    {
      /* Ask the script to stop; if it is inside one long kernel and does not
       * come back within the grace period, leave without it. */
      g_atomic_int_set (armed_flag, 2);
      grace_armed = 1;
      struct itimerval grace = { { 0, 0 }, { CR_TIME_LIMIT_GRACE_S, 0 } };
      setitimer (ITIMER_REAL, &grace, NULL);
      return;
    }
  static const char msg[] = "TimeoutError: the script did not finish within the time limit (--timeout)\n";
  if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
    _exit (1);
  _exit (1);
}

static void
on_interrupt (int signo)
{
  if (g_atomic_int_get (armed_flag) == 1)
    _exit (130);
  g_atomic_int_set (armed_flag, 1);
}

void
cr_time_limit_arm (gint   *cancel_flag,
                   double  seconds)
{
  armed_flag = cancel_flag;
  grace_armed = 0;
  struct sigaction sa = { 0 };
  sa.sa_handler = on_interrupt;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  if (seconds > 0)
    {
      sa.sa_handler = on_alarm;
      sigaction (SIGALRM, &sa, NULL);
      struct itimerval t = { { 0, 0 }, { 0, 0 } };
      t.it_value.tv_sec = (time_t) seconds;
      t.it_value.tv_usec = (suseconds_t) ((seconds - floor (seconds)) * 1e6);
      if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0)
        t.it_value.tv_usec = 1;
      setitimer (ITIMER_REAL, &t, NULL);
    }
}

void
cr_time_limit_disarm (void)
{
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_REAL, &off, NULL);
}
