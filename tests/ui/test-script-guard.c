/* test-script-guard.c — the crash guard without a window (ui/cr-script-guard.h):
 * its server's children run scripts and send back the run the window shows
 * (the same record, output and error as a run in process); a crash, a
 * cancel, a time limit; the server gone and back. Headless, so it runs
 * under AddressSanitizer too. Needs CHAINRULE_RUNNER (meson test sets it). */
#include "cr-config.h"
#include "cr-script-guard.h"
#include "cr-run-record-json.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define GOOD_SCRIPT "import torch\n" \
                    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n" \
                    "y = (x * x).sum()\n" \
                    "y.backward()\n" \
                    "print('good', x.grad)\n"

static gboolean
skip_without_runner (void)
{
  if (cr_script_guard_get_runner ())
    return FALSE;
  g_test_skip ("no crash guard: CHAINRULE_RUNNER is not set (meson test sets it)");
  return TRUE;
}

/* What the Output pane would show of tail: its text, streams run together. */
static void
append_piece (const char *text,
              gsize       length,
              gboolean    is_stderr,
              gpointer    user_data)
{
  g_string_append_len (user_data, text, (gssize) length);
}

static char *
tail_text (const CrOutputTail *tail)
{
  GString *text = g_string_new (NULL);
  cr_output_tail_foreach (tail, append_piece, text);
  return g_string_free (text, FALSE);
}

typedef struct {
  CrScriptGuardVerdict verdict;
  CrScriptRun          run;
  CrOutputTail        *output;
  char                *dropped;
} Guarded;

static void
guarded_clear (Guarded *guarded)
{
  cr_script_run_clear (&guarded->run);
  cr_output_tail_free (guarded->output);
  g_free (guarded->dropped);
}

static void
guard (const char *source,
       guint       timeout_s,
       const gint *cancel_flag,
       Guarded    *guarded)
{
  memset (guarded, 0, sizeof *guarded);
  guarded->output = cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES, CR_OUTPUT_TAIL_MAX_BYTES);
  guarded->verdict = cr_script_guard_run (source, "<test>", CR_DEVICE_CPU, timeout_s, cancel_flag,
                                          guarded->output, &guarded->dropped, &guarded->run);
}

/* The child's run is the run in process: the same record (its JSON, byte
 * for byte), output, error and span. */
static void
assert_same_as_in_process (const char *source)
{
  Guarded guarded;
  guint answers = cr_script_guard_get_n_answers (TRUE);
  guard (source, 30, NULL, &guarded);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
  g_assert_cmpuint (cr_script_guard_get_n_answers (TRUE), ==, answers + 1);
  g_assert_null (guarded.run.models);
  g_assert_nonnull (guarded.run.record);

  g_autoptr (CrOutputTail) output = cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES,
                                                        CR_OUTPUT_TAIL_MAX_BYTES);
  CrInterpOptions options = { .output = cr_output_tail_append, .output_data = output };
  CrScriptRun here;
  cr_script_run (source, -1, "<test>", &options, FALSE, &here);
  g_assert_nonnull (here.record);
  g_autofree char *json_child = cr_run_record_to_json (guarded.run.record, NULL);
  g_autofree char *json_here = cr_run_record_to_json (here.record, NULL);
  g_assert_cmpstr (json_child, ==, json_here);
  g_autofree char *printed_child = tail_text (guarded.output);
  g_autofree char *printed_here = tail_text (output);
  g_assert_cmpstr (printed_child, ==, printed_here);
  g_assert_cmpstr (guarded.run.message, ==, here.message);
  g_assert_cmpstr (guarded.run.traceback, ==, here.traceback);
  g_assert_cmpint (guarded.run.span.line, ==, here.span.line);
  g_assert_cmpint (guarded.run.span.column, ==, here.span.column);

  /* The models the window builds from it are the run's. */
  cr_script_run_build_models (&guarded.run, FALSE);
  g_assert_cmpuint (guarded.run.models->len, ==, here.models->len);
  cr_script_run_clear (&here);
  guarded_clear (&guarded);
}

static void
test_answer (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_start ();
  g_assert_cmpint (cr_script_guard_server_pid (), >, 0);
  assert_same_as_in_process (GOOD_SCRIPT);
  /* A script that stops with an error still gives its graph so far. */
  assert_same_as_in_process (GOOD_SCRIPT "z = y + undefined_name\n");
  /* Printing past the tail's limit: the lines let go are counted. */
  Guarded guarded;
  guard ("for i in range(20000):\n    print(i)\n", 30, NULL, &guarded);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
  g_assert_cmpstr (guarded.dropped, ==, "… 10,000 earlier lines not shown\n");
  g_autofree char *printed = tail_text (guarded.output);
  g_assert_true (g_str_has_prefix (printed, "10000\n"));
  guarded_clear (&guarded);
}

/* Runs one after the other: each child's answer is taken as soon as it is
 * written, and the server's word on that child's end, read by the next
 * run, keeps none of them waiting. */
static void
test_back_to_back (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_start ();
  guint answers = cr_script_guard_get_n_answers (TRUE);
  gint64 start = g_get_monotonic_time ();
  for (int i = 0; i < 10; i++)
    {
      Guarded guarded;
      guard (GOOD_SCRIPT, 30, NULL, &guarded);
      g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
      guarded_clear (&guarded);
    }
  double ms = (g_get_monotonic_time () - start) / 1000.0;
  g_test_message ("10 runs in %.1f ms", ms);
  g_assert_cmpuint (cr_script_guard_get_n_answers (TRUE), ==, answers + 10);
  /* A few ms each on a quiet machine; a wait for a lost word is a second. */
  g_assert_cmpfloat (ms, <, 5000);
}

static void
test_crash (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_start ();
  GPid server = cr_script_guard_server_pid ();
  Guarded guarded;
  g_setenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV, "1", TRUE);
  guard (GOOD_SCRIPT, 30, NULL, &guarded);
  g_unsetenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_CRASHED);
  /* Segmentation fault; under AddressSanitizer (abort_on_error) Aborted. */
  g_assert_true (g_str_has_prefix (guarded.run.message, "The engine crashed on this script ("));
  /* The child's last words: its own, or the end of the sanitizer's report. */
  g_assert_true (strstr (guarded.run.traceback, "crashing on purpose")
                 || strstr (guarded.run.traceback, "AddressSanitizer"));
  g_assert_null (guarded.run.record);
  guarded_clear (&guarded);
  /* Only the child died: the server runs the next script. */
  g_assert_cmpint (cr_script_guard_server_pid (), ==, server);
  assert_same_as_in_process (GOOD_SCRIPT);
}

typedef struct {
  const char *source;
  gint        cancel_flag;
  guint       timeout_s;
  Guarded     guarded;
  gint64      ended_us;
} Background;

static gpointer
run_in_background (gpointer data)
{
  Background *background = data;
  guard (background->source, background->timeout_s, &background->cancel_flag,
         &background->guarded);
  background->ended_us = g_get_monotonic_time ();
  return NULL;
}

/* A cancel (the next edit) ends the child's run at once. */
static void
test_cancel (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_start ();
  Background background = { .source = "while True:\n    pass\n", .timeout_s = 30 };
  GThread *thread = g_thread_new ("guarded", run_in_background, &background);
  g_usleep (300 * 1000);
  gint64 cancelled_us = g_get_monotonic_time ();
  g_atomic_int_set (&background.cancel_flag, 1);
  g_thread_join (thread);
  double ms = (background.ended_us - cancelled_us) / 1000.0;
  g_test_message ("the cancelled run ended %.1f ms after its cancel", ms);
  g_assert_cmpint (background.guarded.verdict, ==, CR_SCRIPT_GUARD_CANCELLED);
  /* A few ms on a quiet machine; the bound leaves room for a loaded one. */
  g_assert_cmpfloat (ms, <, 500);
  guarded_clear (&background.guarded);
  assert_same_as_in_process (GOOD_SCRIPT);
}

/* The child's own time limit ends a script that never does; what it
 * printed before comes back with the error. */
static void
test_time_limit (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_start ();
  Guarded guarded;
  guard ("print('before')\nwhile True:\n    pass\n", 1, NULL, &guarded);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
  g_assert_cmpstr (guarded.run.message, ==, "TimeoutError: the script did not finish within the "
                                            "time limit (--timeout)");
  g_assert_nonnull (strstr (guarded.run.traceback, "line 2"));
  g_autofree char *printed = tail_text (guarded.output);
  g_assert_cmpstr (printed, ==, "before\n");
  g_assert_cmpint (guarded.run.span.line, >=, 2);
  guarded_clear (&guarded);
}

/* Without its server the guard still runs the script, in a child of its
 * own, with the same answer; and a server killed by anything is replaced
 * by the next start. */
static void
test_without_server (void)
{
  if (skip_without_runner ())
    return;
  cr_script_guard_server_stop ();
  g_assert_cmpint (cr_script_guard_server_pid (), ==, 0);
  guint answers = cr_script_guard_get_n_answers (FALSE);
  guint from_server = cr_script_guard_get_n_answers (TRUE);
  Guarded guarded;
  guard (GOOD_SCRIPT, 30, NULL, &guarded);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
  g_assert_cmpuint (cr_script_guard_get_n_answers (FALSE), ==, answers + 1);
  g_assert_cmpuint (cr_script_guard_get_n_answers (TRUE), ==, from_server);
  g_autofree char *printed = tail_text (guarded.output);
  g_assert_cmpstr (printed, ==, "good tensor([2., 4., 6.])\n");
  guarded_clear (&guarded);

  cr_script_guard_server_start ();
  GPid server = cr_script_guard_server_pid ();
  g_assert_cmpint (server, >, 0);
  kill (server, SIGKILL);
  /* The run that finds it dead runs in a child of its own. */
  guard (GOOD_SCRIPT, 30, NULL, &guarded);
  g_assert_cmpint (guarded.verdict, ==, CR_SCRIPT_GUARD_RAN);
  guarded_clear (&guarded);
  g_assert_cmpint (cr_script_guard_server_pid (), ==, 0);
  cr_script_guard_server_start ();
  g_assert_cmpint (cr_script_guard_server_pid (), >, 0);
  g_assert_cmpint (cr_script_guard_server_pid (), !=, server);
  assert_same_as_in_process (GOOD_SCRIPT);
  cr_script_guard_server_stop ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/script-guard/answer", test_answer);
  g_test_add_func ("/ui/script-guard/back-to-back", test_back_to_back);
  g_test_add_func ("/ui/script-guard/crash", test_crash);
  g_test_add_func ("/ui/script-guard/cancel", test_cancel);
  g_test_add_func ("/ui/script-guard/time-limit", test_time_limit);
  g_test_add_func ("/ui/script-guard/without-server", test_without_server);
  return g_test_run ();
}
