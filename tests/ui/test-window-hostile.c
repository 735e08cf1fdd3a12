/* test-window-hostile.c — scripts that try to take the window down: 200,000
 * prints, `while True: print(...)`, the exponential parse, a 10 GB list, deep
 * recursion, a huge tensor, a script that never ends. Each must end in an
 * error in the Output pane (or be cancelled by the next edit), the window must
 * stay usable, and the next edit must run and show its graph. Also: the
 * window's memory budget, and that a cancelled worker really stops.
 * The crash guard (ui/cr-script-guard.h): an engine that crashes on a script
 * is reported and the window stays; a guard child killed by an edit is gone.
 *
 * Runs under xvfb-run with an address-space limit of its own (see main), so
 * that a regression cannot take the shared machine down with it. */
#include "cr-config.h"
#include "cr-window-private.h"
#include "cr-script-run.h"
#include "cr-script-guard.h"
#include "cr-guard-protocol.h"
#include "cr-storage.h"
#include "ui-test-gui.h"

#include <gtksourceview/gtksource.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
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

static gboolean
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
static void
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
  g_autofree char *first_shown = g_strdup_printf ("line %" G_GUINT64_FORMAT "\n", dropped);
  g_assert_true (g_str_has_prefix (strchr (printed, '\n') + 1, first_shown));

  assert_next_edit_runs (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Resident memory of this process, in MiB. */
static double
resident_mib (void)
{
  g_autofree char *statm = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
  unsigned long size = 0, resident = 0;
  g_assert_cmpint (sscanf (statm, "%lu %lu", &size, &resident), ==, 2);
  return resident * (double) sysconf (_SC_PAGE_SIZE) / (1 << 20);
}

/* A script that prints without end: the window's memory stays flat while it
 * runs, and the next edit cancels it and runs. */
static void
test_endless_print (void)
{
  CrWindow *window = new_window ();
  set_text (window, "i = 0\n"
                    "while True:\n"
                    "    print('spam', i, 'spam' * 20)\n"
                    "    i += 1\n");
  cr_ui_test_spin (500);
  double before = resident_mib ();
  cr_ui_test_spin (2000);
  double grown = resident_mib () - before;
  g_test_message ("resident memory grew %.1f MiB in 2 s of endless print", grown);
  g_assert_true (cr_window_is_busy (window));
  g_assert_cmpfloat (grown, <, 64);
  assert_next_edit_runs (window, 30);
  assert_no_thread_spins ();
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A loop that never ends and is never edited ends at the window's time limit. */
static void
test_time_limit (void)
{
  CrWindow *window = new_window ();
  window->run_time_limit_s = 1;
  set_text (window, "while True:\n"
                    "    pass\n");
  double ms = wait_for_run_finished (window, 20);
  g_test_message ("the endless loop stopped after %.0f ms", ms);
  g_assert_cmpfloat (ms, >=, 900);
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_nonnull (strstr (gtk_label_get_text (window->error_label), "TimeoutError"));
  g_assert_true (output_contains (window, "TimeoutError: the script did not finish within the "
                                          "time limit (1 s in the window)"));
  assert_no_thread_spins ();
  assert_next_edit_runs (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Scripts that end in an error by themselves: the error is in the Output pane
 * and the error bar, and the next edit runs. */
static void
assert_ends_in_error (const char *script,
                      const char *error_line)
{
  CrWindow *window = new_window ();
  set_text (window, script);
  double ms = wait_for_run_finished (window, 60);
  g_test_message ("ended after %.0f ms", ms);
  g_assert_cmpfloat (ms, >=, 0);
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  if (!output_contains (window, error_line))
    {
      g_autofree char *printed = output_text (window);
      g_test_message ("the output pane: %s", printed);
    }
  g_assert_true (output_contains (window, error_line));
  assert_next_edit_runs (window, 30);
  assert_no_thread_spins ();
  gtk_window_destroy (GTK_WINDOW (window));
}

/* 84 bytes whose syntax error once took 19 s and 5.6 GB to find. */
static void
test_exponential_parse (void)
{
  g_autoptr (GString) script = g_string_new ("x = ");
  for (int i = 0; i < 26; i++)
    g_string_append (script, "(a-");
  g_string_append (script, ")\n");
  assert_ends_in_error (script->str, "SyntaxError");
}

/* The same text, edited while it is parsed: the next edit runs at once. */
static void
test_exponential_parse_cancelled (void)
{
  CrWindow *window = new_window ();
  g_autoptr (GString) script = g_string_new ("x = ");
  for (int i = 0; i < 26; i++)
    g_string_append (script, "(a-");
  g_string_append (script, ")\n");
  set_text (window, script->str);
  cr_ui_test_spin (100);
  assert_next_edit_runs (window, 10);
  assert_no_thread_spins ();
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_huge_list (void)
{
  assert_ends_in_error ("x = [0] * 10**10\n", "MemoryError");
}

static void
test_growing_list (void)
{
  /* The window's own budget is up to 4 GiB: a smaller one for a test that
   * really fills it. The first run in the process sets the window's. */
  CrWindow *window = new_window ();
  set_text (window, "pass\n");
  wait_for_run_finished (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
  gsize budget = cr_memory_get_limit ();
  cr_memory_set_limit ((gsize) 512 << 20);
  assert_ends_in_error ("x = []\n"
                        "while True:\n"
                        "    x.append('a' * 1000)\n", "MemoryError");
  cr_memory_set_limit (budget);
}

static void
test_deep_recursion (void)
{
  assert_ends_in_error ("def f(n):\n"
                        "    return f(n + 1)\n"
                        "f(0)\n", "RecursionError: maximum recursion depth exceeded");
}

static void
test_huge_tensor (void)
{
  assert_ends_in_error ("import torch\n"
                        "x = torch.zeros(100000, 100000)\n", "can't allocate memory");
}

/* The budget is the desktop's: a share of this machine's memory, at most 4 GiB. */
static void
test_memory_budget (void)
{
  CrWindow *window = new_window ();
  set_text (window, GOOD_SCRIPT);
  wait_for_run_finished (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
  gsize budget = cr_script_run_memory_budget ();
  gsize physical = (gsize) sysconf (_SC_PHYS_PAGES) * (gsize) sysconf (_SC_PAGE_SIZE);
  g_test_message ("memory budget %.2f GiB of %.1f GiB", budget / (double) (1 << 30),
                  physical / (double) (1 << 30));
  g_assert_cmpuint (cr_memory_get_limit (), ==, budget);
  g_assert_cmpuint (budget, <=, (gsize) 4 << 30);
  g_assert_cmpuint (budget, >=, (gsize) 256 << 20);
  g_assert_true (budget <= physical / 4 || budget == (gsize) 256 << 20);
}

/* The processes whose parent is parent, and how many of those are zombies;
 * but is left out, and so is the guard server's spare child while it waits
 * (it runs nothing). */
static guint
count_children_of (pid_t  parent,
                   pid_t  but,
                   guint *zombies)
{
  guint count = 0;
  DIR *proc = opendir ("/proc");
  g_assert_nonnull (proc);
  struct dirent *entry;
  while ((entry = readdir (proc)))
    {
      if (!g_ascii_isdigit (entry->d_name[0]))
        continue;
      g_autofree char *path = g_strdup_printf ("/proc/%s/stat", entry->d_name);
      g_autofree char *stat = NULL;
      if (!g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      /* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
      const char *after = strrchr (stat, ')');
      char state = 0;
      long ppid = 0;
      if (!after || sscanf (after + 1, " %c %ld", &state, &ppid) != 2 || ppid != parent
          || atol (entry->d_name) == but)
        continue;
      if (state != 'Z' && strstr (stat, "(" CR_GUARD_SPARE_NAME ")") == strchr (stat, '('))
        continue;
      count++;
      *zombies += state == 'Z';
    }
  closedir (proc);
  return count;
}

/* The crash guard's runs: children of this process other than the guard's
 * server, and the server's children; and how many of those are zombies. */
static guint
count_children (guint *zombies)
{
  *zombies = 0;
  GPid server = cr_script_guard_server_pid ();
  guint count = count_children_of (getpid (), server, zombies);
  if (server > 0)
    count += count_children_of (server, 0, zombies);
  return count;
}

static gboolean
skip_without_guard (void)
{
  if (cr_script_guard_get_runner ())
    return FALSE;
  g_test_skip ("no crash guard: CHAINRULE_RUNNER is not set (meson test sets it)");
  return TRUE;
}

/* An engine that crashes on a script (the guard's child, on purpose): the
 * Output pane and the error bar say so, the last good graph stays dimmed, the
 * window stays, and the next edit runs. */
static void
test_engine_crash (void)
{
  if (skip_without_guard ())
    return;
  CrWindow *window = new_window ();
  assert_next_edit_runs (window, 30);
  g_setenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV, "1", TRUE);
  set_text (window, GOOD_SCRIPT "print('crash me')\n");
  double ms = wait_for_run_finished (window, 30);
  g_unsetenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV);
  g_test_message ("the crash was reported after %.0f ms", ms);
  g_assert_cmpfloat (ms, >=, 0);
  g_autofree char *printed = output_text (window);
  g_test_message ("Output pane:\n%s", printed);
  g_assert_true (g_str_has_prefix (printed, "The engine crashed on this script (Segmentation fault): "
                                            "this is a bug in Chainrule, not in your script. "
                                            "The window did not run it.\n"));
  g_assert_nonnull (strstr (printed, "crashing on purpose"));
  /* Not run in process: nothing it prints is there. */
  g_assert_null (strstr (printed, "crash me"));
  g_assert_true (gtk_revealer_get_reveal_child (window->error_revealer));
  g_assert_nonnull (strstr (gtk_label_get_text (window->error_label), "The engine crashed"));
  g_assert_nonnull (cr_graph_canvas_get_model (cr_window_get_canvas (window)));
  g_assert_true (gtk_widget_has_css_class (window->sidebar, "cr-dimmed"));
  assert_next_edit_runs (window, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A guard child still running when the next edit comes is killed and reaped
 * at once: no process left behind, no zombie. So is one running when the
 * window closes. The server stays, for the next window. */
static void
test_guard_killed_by_edit (void)
{
  if (skip_without_guard ())
    return;
  guint zombies = 0;
  g_assert_cmpuint (count_children (&zombies), ==, 0);
  CrWindow *window = new_window ();
  set_text (window, "while True:\n    pass\n");
  cr_ui_test_spin (500);
  g_assert_cmpuint (count_children (&zombies), ==, 1);
  assert_next_edit_runs (window, 30);
  cr_ui_test_spin (100);
  g_assert_cmpuint (count_children (&zombies), ==, 0);

  set_text (window, "while True:\n    pass\n");
  cr_ui_test_spin (500);
  g_assert_cmpuint (count_children (&zombies), ==, 1);
  gtk_window_destroy (GTK_WINDOW (window));
  cr_ui_test_spin (200);
  g_assert_cmpuint (count_children (&zombies), ==, 0);
  assert_no_thread_spins ();
}

/* The guard's server: the window's runs are its children's, shown from the
 * record each sends back (nothing run in process); an edit during a run
 * kills that child at once; a server that dies is replaced, and meanwhile
 * a child of its own runs the script. */
static void
test_guard_server (void)
{
  if (skip_without_guard ())
    return;
  CrWindow *window = new_window ();
  GPid server = cr_script_guard_server_pid ();
  g_assert_cmpint (server, >, 0);
  guint answers = cr_script_guard_get_n_answers (TRUE);
  assert_next_edit_runs (window, 30);
  g_assert_cmpuint (cr_script_guard_get_n_answers (TRUE), ==, answers + 1);
  /* The record came from the child, with its steps' numbers. */
  g_assert_nonnull (window->run_record);
  g_assert_cmpuint (window->run_record->backwards->len, ==, 1);

  /* An edit during a run: the endless loop's child is gone at once (a few
   * ms on a quiet machine), and the new text's child has run. */
  guint zombies = 0;
  set_text (window, "while True:\n    pass\n");
  cr_ui_test_spin (300);
  g_assert_cmpuint (count_children_of (server, 0, &zombies), ==, 1);
  gint64 edit_us = g_get_monotonic_time ();
  set_text (window, GOOD_SCRIPT);
  while (count_children_of (server, 0, &zombies) > 0
         && g_get_monotonic_time () - edit_us < 5 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, FALSE);
  double gone_ms = (g_get_monotonic_time () - edit_us) / 1000.0;
  g_test_message ("the cancelled run's child was gone %.1f ms after the edit", gone_ms);
  /* Within a loaded machine's scheduling delays: the loop would run 60 s. */
  g_assert_cmpfloat (gone_ms, <, 1000);
  assert_next_edit_runs (window, 30);

  /* The server dies: the next edit still runs (in a child of its own),
   * and the one after finds a new server. */
  kill (server, SIGKILL);
  cr_ui_test_spin (100);
  assert_next_edit_runs (window, 30);
  assert_next_edit_runs (window, 30);
  GPid second = cr_script_guard_server_pid ();
  g_assert_cmpint (second, >, 0);
  g_assert_cmpint (second, !=, server);
  answers = cr_script_guard_get_n_answers (TRUE);
  assert_next_edit_runs (window, 30);
  g_assert_cmpuint (cr_script_guard_get_n_answers (TRUE), ==, answers + 1);
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
  g_test_add_func ("/ui/window-hostile/endless-print", test_endless_print);
  g_test_add_func ("/ui/window-hostile/time-limit", test_time_limit);
  g_test_add_func ("/ui/window-hostile/exponential-parse", test_exponential_parse);
  g_test_add_func ("/ui/window-hostile/exponential-parse-cancelled", test_exponential_parse_cancelled);
  g_test_add_func ("/ui/window-hostile/huge-list", test_huge_list);
  g_test_add_func ("/ui/window-hostile/growing-list", test_growing_list);
  g_test_add_func ("/ui/window-hostile/deep-recursion", test_deep_recursion);
  g_test_add_func ("/ui/window-hostile/huge-tensor", test_huge_tensor);
  g_test_add_func ("/ui/window-hostile/memory-budget", test_memory_budget);
  g_test_add_func ("/ui/window-hostile/engine-crash", test_engine_crash);
  g_test_add_func ("/ui/window-hostile/guard-killed-by-edit", test_guard_killed_by_edit);
  g_test_add_func ("/ui/window-hostile/guard-server", test_guard_server);
  return g_test_run ();
}
