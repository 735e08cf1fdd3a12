/* test-runner.c — `chainrule run` end to end: the binary is spawned on the
 * scripts in tests/app/scripts/ and its stdout, stderr and exit status are
 * compared with the expected files there (NAME.out, NAME.err; "@FILE@"
 * stands for the script's absolute path, which Python prints too).
 *
 * The expected files are what /usr/bin/python3 (3.11 + PyTorch 1.13) printed
 * for the same scripts. */
#include <glib.h>
#include <glib/gstdio.h>

#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "cr-device.h"

#ifndef CHAINRULE_PATH
#error "CHAINRULE_PATH must name the built binary"
#endif
#ifndef SCRIPTS_DIR
#error "SCRIPTS_DIR must name tests/app/scripts"
#endif

typedef struct {
  char *out;
  char *err;
  int   status;
  double seconds;
} Result;

static void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs argv (argv[0] the program) to its end. */
static void
run_argv (Result *r,
          char  **argv)
{
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  gint64 start = g_get_monotonic_time ();
  g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &r->out, &r->err, &wait_status, &error));
  g_assert_no_error (error);
  r->seconds = (g_get_monotonic_time () - start) / 1e6;
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}

/* Runs chainrule with args (NULL-terminated); stdin_file, when set, is
 * redirected to its stdin through the shell. */
static void
run (Result     *r,
     const char *stdin_file,
     ...)
{
  va_list ap;
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  if (stdin_file)
    {
      GString *cmd = g_string_new (NULL);
      g_autofree char *bin = g_shell_quote (CHAINRULE_PATH);
      g_string_append (cmd, bin);
      va_start (ap, stdin_file);
      for (const char *a = va_arg (ap, const char *); a; a = va_arg (ap, const char *))
        {
          g_autofree char *q = g_shell_quote (a);
          g_string_append_printf (cmd, " %s", q);
        }
      va_end (ap);
      g_autofree char *in = g_shell_quote (stdin_file);
      g_string_append_printf (cmd, " < %s", in);
      g_ptr_array_add (argv, g_strdup ("/bin/sh"));
      g_ptr_array_add (argv, g_strdup ("-c"));
      g_ptr_array_add (argv, g_string_free (cmd, FALSE));
    }
  else
    {
      g_ptr_array_add (argv, g_strdup (CHAINRULE_PATH));
      va_start (ap, stdin_file);
      for (const char *a = va_arg (ap, const char *); a; a = va_arg (ap, const char *))
        g_ptr_array_add (argv, g_strdup (a));
      va_end (ap);
    }
  g_ptr_array_add (argv, NULL);
  run_argv (r, (char **) argv->pdata);
  g_ptr_array_unref (argv);
}

static char *
script_path (const char *name)
{
  return g_build_filename (SCRIPTS_DIR, name, NULL);
}

/* The expected file with @FILE@ replaced by the script's path. */
static char *
expected (const char *name,
          const char *script)
{
  g_autofree char *path = script_path (name);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autofree char *abs = g_canonicalize_filename (script, NULL);
  GString *s = g_string_new (text);
  g_string_replace (s, "@FILE@", abs, 0);
  return g_string_free (s, FALSE);
}

/* The last line of text, without its newline (a new string). */
static char *
last_line (const char *text)
{
  gsize len = strlen (text);
  while (len > 0 && text[len - 1] == '\n')
    len--;
  const char *p = text + len;
  while (p > text && p[-1] != '\n')
    p--;
  return g_strndup (p, text + len - p);
}

/* A script of tests/app/scripts run as python3 would run it: what stdout
 * and stderr must be (NAME.out, NAME.err: an expected file; else the text
 * itself; NULL: anything) and the exit status. */
typedef struct {
  const char *test;
  const char *script;
  gboolean    from_stdin;   /* `chainrule run -` with the script on stdin */
  const char *out;
  const char *err;
  int         status;
} OutputCase;

static const OutputCase output_cases[] = {
  { "output", "hello.py", FALSE, "hello.out", "", 0 },
  { "stdin", "hello.py", TRUE, "hello.out", NULL, 0 },
  /* stdout up to the error, then Python's traceback on stderr, exit 1. */
  { "traceback", "nested_error.py", FALSE, "before\n", "nested_error.err", 1 },
  { "syntax-error", "syntax_error.py", FALSE, "", "syntax_error.err", 1 },
};

/* What a case's stdout or stderr must be. */
static char *
expected_text (const char *what,
               const char *script)
{
  if (!what || !(g_str_has_suffix (what, ".out") || g_str_has_suffix (what, ".err")))
    return g_strdup (what);
  return expected (what, script);
}

static void
test_output_case (gconstpointer data)
{
  const OutputCase *c = data;
  g_autofree char *script = script_path (c->script);
  g_autofree char *out = expected_text (c->out, script);
  g_autofree char *err = expected_text (c->err, script);
  Result r;
  if (c->from_stdin)
    run (&r, script, "run", "-", NULL);
  else
    run (&r, NULL, "run", script, NULL);
  if (out)
    g_assert_cmpstr (r.out, ==, out);
  if (err)
    g_assert_cmpstr (r.err, ==, err);
  g_assert_cmpint (r.status, ==, c->status);
  result_clear (&r);
}

static void
test_timeout (void)
{
  g_autofree char *script = script_path ("loop_forever.py");
  Result r;
  run (&r, NULL, "run", "--timeout", "0.3", script, NULL);
  g_assert_cmpstr (r.out, ==, "started\n");
  g_autofree char *last = last_line (r.err);
  g_assert_cmpstr (last, ==,
                   "TimeoutError: the script did not finish within the time limit (--timeout)");
  g_assert_true (g_str_has_prefix (r.err, "Traceback (most recent call last):\n"));
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpfloat (r.seconds, <, 5.0);
  result_clear (&r);
}

/* A command line ("@SCRIPT@": tests/app/scripts/hello.py) and what it
 * must give: its exit status, and how its stdout and stderr start and
 * what stderr holds (NULL: anything). */
typedef struct {
  const char *args[7];
  int         status;
  const char *out_starts;
  const char *err_starts;
  const char *err_holds;
} UsageCase;

static const UsageCase usage_cases[] = {
  /* A bare `chainrule` opens the window now (or, with no display, draws the
   * toy example to a PNG); an unknown option still gets the usage. */
  { { "--no-such-option" }, 2, NULL, NULL, "chainrule run [OPTIONS] FILE.py" },
  { { "--version" }, 0, "chainrule ", NULL, NULL },
  { { "run" }, 2, NULL, "chainrule run: no script given", NULL },
  { { "run", "--no-such-option", "@SCRIPT@" }, 2, NULL,
    "chainrule run: unknown option '--no-such-option'", NULL },
  { { "run", "--max-memory", "lots", "@SCRIPT@" }, 2, NULL,
    "chainrule run: --max-memory needs a size like 512M or 4G, not 'lots'", NULL },
  { { "run", "--timeout", "-1", "@SCRIPT@" }, 2, NULL,
    "chainrule run: --timeout needs a positive number of seconds, not '-1'", NULL },
  { { "run", "--device", "tpu", "@SCRIPT@" }, 2, NULL,
    "chainrule run: --device must be cpu or cuda, not 'tpu'", NULL },
  { { "run", "--record" }, 2, NULL, "chainrule run: option --record needs a value", NULL },
  { { "run", "/nonexistent/script.py" }, 2, NULL,
    "chainrule: can't open file '/nonexistent/script.py': [Errno 2] No such file or directory\n", NULL },
  { { "run", "--help" }, 0, "Usage: chainrule run", NULL, NULL },
  /* Options may be written --name=value; sizes take K/M/G suffixes. */
  { { "run", "--timeout=10", "--max-memory=64M", "--device=cpu", "@SCRIPT@" }, 0, NULL, "", NULL },
  /* The other commands read their options through one table. */
  { { "check" }, 2, NULL, "chainrule check: no script given\n\nUsage: chainrule check", NULL },
  { { "check", "@SCRIPT@", "--timeout" }, 2, NULL, "chainrule check: option --timeout needs a value",
    NULL },
  { { "paths", "@SCRIPT@" }, 2, NULL, "chainrule paths: which leaf?", NULL },
  { { "paths", "--max=0", "--leaf", "x", "@SCRIPT@" }, 2, NULL,
    "chainrule paths: --max needs a number of paths from 1 to 1000000, not '0'", NULL },
  { { "train", "@SCRIPT@", "@SCRIPT@" }, 2, NULL, "chainrule train: one script at a time", NULL },
  { { "train", "--step", "0", "@SCRIPT@" }, 2, NULL,
    "chainrule train: --step needs a backward call's number (1, 2, ...), not '0'", NULL },
  { { "explain-op", "--bogus", "@SCRIPT@" }, 2, NULL, "chainrule explain-op: unknown option '--bogus'",
    "Usage: chainrule explain-op" },
  { { "explain-op", "--help" }, 0, "Usage: chainrule explain-op", "", NULL },
  { { "export", "@SCRIPT@" }, 2, NULL, "chainrule export: no output file given", NULL },
  { { "export", "@SCRIPT@", "-o" }, 2, NULL, "chainrule export: option -o needs a value", NULL },
};

static void
test_usage (void)
{
  g_autofree char *script = script_path ("hello.py");
  for (guint i = 0; i < G_N_ELEMENTS (usage_cases); i++)
    {
      const UsageCase *c = &usage_cases[i];
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (gpointer) CHAINRULE_PATH);
      for (guint k = 0; k < G_N_ELEMENTS (c->args) && c->args[k]; k++)
        g_ptr_array_add (argv, (gpointer) (strcmp (c->args[k], "@SCRIPT@") == 0 ? script
                                                                                : c->args[k]));
      g_ptr_array_add (argv, NULL);
      g_autofree char *line = g_strjoinv (" ", (char **) argv->pdata + 1);
      g_test_message ("chainrule %s", line);
      Result r;
      run_argv (&r, (char **) argv->pdata);
      if (r.status != c->status || (c->out_starts && !g_str_has_prefix (r.out, c->out_starts))
          || (c->err_starts && !g_str_has_prefix (r.err, c->err_starts))
          || (c->err_holds && !strstr (r.err, c->err_holds)))
        g_error ("chainrule %s: status %d, stdout «%.200s», stderr «%.300s»", line, r.status,
                 r.out, r.err);
      result_clear (&r);
    }
}

/* The memory cap applies to tensors: a 4000-byte tensor under a 1K cap
 * fails as PyTorch's allocator does, with a RuntimeError. */
static void
test_max_memory (void)
{
  g_autofree char *script = script_path ("big_tensor.py");
  Result r;
  run (&r, NULL, "run", "--max-memory", "1K", script, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_autofree char *last = last_line (r.err);
  g_assert_true (g_str_has_prefix (last, "RuntimeError: "));
  result_clear (&r);

  run (&r, NULL, "run", "--max-memory", "1M", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "tensor(0.)\n");
  result_clear (&r);
}

/* --trace-backward prints one block per node in the engine's order, which is
 * PyTorch's, each as the step card tells it (cr_step_text_plain): its count,
 * its grad_fn, then where it ran. The order below was read from PyTorch 1.13
 * with a post-hook on every node of L.grad_fn's graph (toy_network.py):
 * SumBackward0, RsubBackward1, AddBackward0, MulBackward0, AccumulateGrad
 * (w4), MulBackward0, AccumulateGrad (w3), MulBackward0, AccumulateGrad (w2),
 * MulBackward0, AccumulateGrad (w1), AccumulateGrad (a). */
static void
test_trace_backward (void)
{
  static const char *const steps[][2] = {
    { "SumBackward0", "L = (10 - d).sum() · line 12" },
    { "RsubBackward1", "L = (10 - d).sum() · line 12" },
    { "AddBackward0", "d = w3 * b + w4 * c · line 11" },
    { "MulBackward0", "d = w3 * b + w4 * c · line 11" },
    { "AccumulateGrad", "w4" },
    { "MulBackward0", "d = w3 * b + w4 * c · line 11" },
    { "AccumulateGrad", "w3" },
    { "MulBackward0", "c = w2 * a · line 10" },
    { "AccumulateGrad", "w2" },
    { "MulBackward0", "b = w1 * a · line 9" },
    { "AccumulateGrad", "w1" },
    { "AccumulateGrad", "a" },
  };
  g_autofree char *script = script_path ("toy_network.py");
  Result r;
  run (&r, NULL, "run", "--trace-backward", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "backward #1: L.backward() at line 13");
  guint n = 0;
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "  Backward "))
      {
        g_autofree char *count = g_strdup_printf ("  Backward %u of 12", n + 1);
        g_autofree char *title = g_strdup_printf ("  %s", steps[n][0]);
        g_autofree char *caption = g_strdup_printf ("  %s", steps[n][1]);
        g_assert_cmpuint (n, <, G_N_ELEMENTS (steps));
        g_assert_cmpstr (lines[i], ==, count);
        g_assert_cmpstr (lines[i + 1], ==, title);
        g_assert_cmpstr (lines[i + 2], ==, caption);
        n++;
      }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (steps));
  /* a gets two gradients (through b and c): the second one is shown adding up. */
  g_assert_nonnull (strstr (r.out, "    ∂L/∂a += "));
  /* The script's own output follows, as without the option. */
  g_assert_true (g_str_has_suffix (r.out, "tensor([[-0.8750,  2.5000],\n"
                                          "        [-2.0000,  0.7500]])\n"));
  result_clear (&r);
}

/* The chain rule on scalars, step by step as the card says it: x reaches
 * y = x * x twice and z = y + x once, so ∂z/∂x adds up to 2·3 + 1 = 7. */
static void
test_trace_scalar (void)
{
  g_autofree char *script = script_path ("scalar_chain.py");
  Result r;
  run (&r, NULL, "run", "--trace-backward", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==,
                   "backward #1: z.backward() at line 7\n"
                   "\n"
                   "  +\n"
                   "  Backward 1 of 3\n"
                   "  AddBackward0\n"
                   "  z = y + x · line 6\n"
                   "\n"
                   "  Incoming gradient\n"
                   "    ∂z/∂z = 1\n"
                   "\n"
                   "  Local gradients\n"
                   "    ∂z/∂y = 1\n"
                   "    ∂z/∂x = 1\n"
                   "\n"
                   "  Sent on\n"
                   "    ∂z/∂y = ∂z/∂z × ∂z/∂y = 1 × 1 = 1\n"
                   "    ∂z/∂x = ∂z/∂z × ∂z/∂x = 1 × 1 = 1\n"
                   "\n"
                   "  ×\n"
                   "  Backward 2 of 3\n"
                   "  MulBackward0\n"
                   "  y = x * x · line 5\n"
                   "\n"
                   "  Incoming gradient\n"
                   "    ∂z/∂y = 1\n"
                   "\n"
                   "  Local gradients\n"
                   "    ∂y/∂x = 3\n"
                   "    ∂y/∂x = 3\n"
                   "\n"
                   "  Sent on\n"
                   "    ∂z/∂x = ∂z/∂y × ∂y/∂x = 1 × 3 = 3\n"
                   "    ∂z/∂x = ∂z/∂y × ∂y/∂x = 1 × 3 = 3\n"
                   "\n"
                   "  Accumulated\n"
                   "    ∂z/∂x += 3 → sum so far 4\n"
                   "    ∂z/∂x += 3 → sum so far 7\n"
                   "  Gradient reaches this tensor along more than one path; the contributions add up.\n"
                   "\n"
                   "  +=\n"
                   "  Backward 3 of 3\n"
                   "  AccumulateGrad\n"
                   "  x\n"
                   "\n"
                   "  Incoming gradient\n"
                   "    ∂z/∂x = 7\n"
                   "\n"
                   "  x.grad\n"
                   "    x.grad: None → 7\n"
                   "  AccumulateGrad stores the incoming gradient in the leaf's .grad: x.grad was None.\n"
                   "tensor(7.)\n");
  result_clear (&r);
}

/* The trace comes from the run record: a broadcast input's gradient is the
 * product summed back to its shape, and a hook's change is shown where it
 * happened (PyTorch 1.13 gives b.grad = [50, 70, 90]). */
static void
test_trace_broadcast_hooks (void)
{
  g_autofree char *script = script_path ("broadcast_hooks.py");
  Result r;
  run (&r, NULL, "run", "--trace-backward", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (strstr (r.out,
    "    ∂y/∂b = ∂y/∂(x * b) × ∂(x * b)/∂b\n"
    "          = [[1, 1, 1], [1, 1, 1]] × [[1, 2, 3], [4, 5, 6]]\n"
    "          = [[1, 2, 3], [4, 5, 6]]\n"
    "    Σ summed over dim 0 to b's shape 3 = [5, 7, 9]\n"));
  g_assert_nonnull (strstr (r.out,
    "  Hook\n"
    "    hook <lambda> (line 7): [5, 7, 9] → [50, 70, 90]\n"
    "  It multiplied the gradient by 10.\n"));
  g_assert_nonnull (strstr (r.out, "    b.grad: None → [50, 70, 90]\n"));
  g_assert_true (g_str_has_suffix (r.out, "tensor([50., 70., 90.])\n"));
  result_clear (&r);
}

/* --record writes the record also when the script fails, with its error;
 * --record - puts the record alone on stdout and the script's output on
 * stderr; a record that cannot be written is exit status 1. */
static void
test_record (void)
{
  g_autofree char *script = script_path ("nested_error.py");
  g_autofree char *dir = g_dir_make_tmp ("chainrule-record-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "run.json", NULL);
  Result r;
  run (&r, NULL, "run", "--record", file, script, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_autofree char *json = NULL;
  g_assert_true (g_file_get_contents (file, &json, NULL, NULL));
  g_assert_true (g_str_has_prefix (json, "{\n  \"schema\": \"chainrule-run-record\",\n"));
  g_autofree char *last = last_line (r.err);
  g_autofree char *type = g_strndup (last, strcspn (last, ":"));
  g_autofree char *error = g_strdup_printf ("\"type\": \"%s\"", type);
  g_assert_nonnull (strstr (json, error));
  result_clear (&r);
  g_unlink (file);
  g_rmdir (dir);

  g_autofree char *hello = script_path ("hello.py");
  run (&r, NULL, "run", "--record", "-", hello, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "{\n  \"schema\": \"chainrule-run-record\",\n"));
  g_assert_true (g_str_has_suffix (r.out, "\n}\n"));
  g_assert_cmpstr (r.err, !=, "");
  result_clear (&r);

  run (&r, NULL, "run", "--record", "/nonexistent-dir/run.json", hello, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "can't write the record '/nonexistent-dir/run.json'"));
  result_clear (&r);
}

/* --device cuda where CUDA cannot hold tensors: a clear error before the
 * script runs, never a crash; --device cpu runs as usual. */
static void
test_device (void)
{
  g_autofree char *script = script_path ("toy_network.py");
  Result r;
  run (&r, NULL, "run", "--device", "cpu", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  if (cr_device_check_usable (CR_DEVICE_CUDA, NULL))
    {
      g_test_skip ("CUDA is usable here");
      return;
    }
  run (&r, NULL, "run", "--device", "cuda", script, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "chainrule: --device cuda: "));
  result_clear (&r);
}

/* A script written to a new temporary folder; *dir gets the folder (for
 * rm_temp). */
static char *
temp_script (const char  *text,
             gsize        length,
             char       **dir)
{
  g_autoptr (GError) error = NULL;
  *dir = g_dir_make_tmp ("chainrule-runner-XXXXXX", &error);
  g_assert_no_error (error);
  char *path = g_build_filename (*dir, "script.py", NULL);
  g_assert_true (g_file_set_contents (path, text, (gssize) length, &error));
  g_assert_no_error (error);
  return path;
}

static void
rm_temp (char *dir,
         char *path)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* --timeout covers parsing: a text that takes long to parse ends with the
 * TimeoutError (no traceback: nothing ran), not after the parse. */
static void
test_timeout_parse (void)
{
  GString *text = g_string_new (NULL);
  for (int i = 0; i < 200000; i++)
    g_string_append (text, "x = [a + b * (c - d) for a in range(3)]\n");
  char *dir;
  char *path = temp_script (text->str, text->len, &dir);
  g_string_free (text, TRUE);
  Result r;
  run (&r, NULL, "run", "--timeout", "0.001", path, NULL);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpstr (r.err, ==,
                   "TimeoutError: the script did not finish within the time limit (--timeout)\n");
  g_assert_cmpint (r.status, ==, 1);
  result_clear (&r);
  rm_temp (dir, path);
}

/* Deep recursion under `ulimit -s 256` and 64: a RecursionError, never a
 * SIGSEGV (the stack guard used to switch itself off on small stacks). */
static void
test_small_stack (void)
{
  static const char script[] =
    "def f(n):\n"
    "    return f(n + 1) + 1\n"
    "try:\n"
    "    f(0)\n"
    "except RecursionError as e:\n"
    "    print('RecursionError', e)\n"
    "l = []\n"
    "for i in range(100000):\n"
    "    l = [l]\n"
    "print(repr(l))\n";
  char *dir;
  char *path = temp_script (script, sizeof script - 1, &dir);
  static const char *const limits[] = { "256", "64" };
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autofree char *bin = g_shell_quote (CHAINRULE_PATH);
      g_autofree char *file = g_shell_quote (path);
      g_autofree char *cmd = g_strdup_printf ("ulimit -s %s && exec %s run %s", limits[i],
                                              bin, file);
      const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
      Result r = { 0 };
      int wait_status = 0;
      g_autoptr (GError) error = NULL;
      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                   &r.out, &r.err, &wait_status, &error));
      g_assert_no_error (error);
      g_assert_true (WIFEXITED (wait_status));
      g_assert_cmpstr (r.out, ==, "RecursionError maximum recursion depth exceeded\n");
      g_autofree char *last = last_line (r.err);
      g_assert_cmpstr (last, ==, "RecursionError: maximum recursion depth exceeded while "
                                 "getting the repr of an object");
      g_assert_cmpint (WEXITSTATUS (wait_status), ==, 1);
      result_clear (&r);
    }
  rm_temp (dir, path);
}

/* ---- the memory budget and cancellation of long operations (issue 9) ---- */

/* Runs chainrule on a script text with args before the script; *peak_kib gets
 * the child's peak resident size (wait4). */
static void
run_text_measured (Result      *r,
                   gsize       *peak_kib,
                   const char  *text,
                   const char  *const *args)
{
  char *dir;
  char *path = temp_script (text, strlen (text), &dir);
  g_autofree char *out_path = g_build_filename (dir, "out", NULL);
  g_autofree char *err_path = g_build_filename (dir, "err", NULL);
  GString *cmd = g_string_new ("exec ");
  g_autofree char *bin = g_shell_quote (CHAINRULE_PATH);
  g_string_append_printf (cmd, "%s run", bin);
  for (guint i = 0; args[i]; i++)
    {
      g_autofree char *q = g_shell_quote (args[i]);
      g_string_append_printf (cmd, " %s", q);
    }
  g_autofree char *qpath = g_shell_quote (path);
  g_autofree char *qout = g_shell_quote (out_path);
  g_autofree char *qerr = g_shell_quote (err_path);
  g_string_append_printf (cmd, " %s >%s 2>%s", qpath, qout, qerr);
  const char *argv[] = { "/bin/sh", "-c", cmd->str, NULL };
  GPid pid;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  int wait_status = 0;
  struct rusage usage = { 0 };
  g_assert_cmpint (wait4 (pid, &wait_status, 0, &usage), ==, pid);
  g_spawn_close_pid (pid);
  r->seconds = (g_get_monotonic_time () - start) / 1e6;
  /* Never a signal (the OOM killer's SIGKILL, GLib's SIGTRAP). */
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
  *peak_kib = (gsize) usage.ru_maxrss;
  g_assert_true (g_file_get_contents (out_path, &r->out, NULL, NULL));
  g_assert_true (g_file_get_contents (err_path, &r->err, NULL, NULL));
  g_unlink (out_path);
  g_unlink (err_path);
  g_string_free (cmd, TRUE);
  rm_temp (dir, path);
}

#if defined(__SANITIZE_ADDRESS__)
# define UNDER_ASAN 1
#elif defined(__has_feature)
# if __has_feature (address_sanitizer)
#  define UNDER_ASAN 1
# endif
#endif

/* Lists, strings, dicts and format widths count against --max-memory, as
 * tensors do: each script ends in a bare MemoryError (exit 1), never the
 * OOM killer, and the process stays near the budget. */
static void
test_memory_budget (void)
{
  static const char *const scripts[] = {
    "x = [0] * 10**9\n",
    "s = 'ab'\nwhile True:\n    s = s + s\n",
    "l = []\nwhile True:\n    l.append(1.5)\n",
    "l = [0.5 for _ in range(10**10)]\n",
    "d = {}\ni = 0\nwhile True:\n    d[i] = str(i)\n    i += 1\n",
    "s = set()\ni = 0\nwhile True:\n    s.add((i, 'x'))\n    i += 1\n",
    "l = list(range(10**10))\n",
    "print(len(','.join(['abcdefgh'] * 10**7)))\n",
    "print(f'{1:>{10**12}}')\n",
    "print('{:>{}}'.format(1, 10**12))\n",
    "print('%*d' % (10**12, 1))\n",
    "print('%-*s' % (10**12, 'a'))\n",
    "print('a'.ljust(10**12))\n",
    "print('a'.center(10**12, '*'))\n",
    "print('1'.zfill(10**12))\n",
    "print(format(2.5, '>10000000000'))\n",
    "print(len('ab' * 10**12))\n",
    "x = 'a' * 10**6\nprint(len(str([x] * 1000)))\n",
    "x = 'a b ' * 10**7\nprint(len(x.split()))\n",
    "x = 'ab' * 10**6\nprint(len(x.replace('a', 'a' * 1000)))\n",
    "class A:\n    pass\nl = []\nwhile True:\n    l.append(A())\n",
    "s = 'a' * 10**7\nprint(len(f'{s}{s}{s}{s}{s}{s}{s}{s}{s}{s}'))\n",
    "s = 'a' * 10**7\nprint(len('{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}'.format(s)))\n",
    "s = 'a' * 10**7\nprint(s, s, s, s, s, s, s, s, s, s)\n",
    "import torch\nx = torch.zeros(10**7)\nprint(len(x.tolist()))\n",
    "x = {i: i for i in range(10**9)}\n",
    "l = [0]\nwhile True:\n    l.extend(l)\n",
  };
  static const char *const args[] = { "--max-memory", "64M", "--timeout", "120", NULL };
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      Result r = { 0 };
      gsize peak_kib = 0;
      run_text_measured (&r, &peak_kib, scripts[i], args);
      g_test_message ("%s: %.2f s, peak %" G_GSIZE_FORMAT " KiB", scripts[i], r.seconds, peak_kib);
      g_autofree char *last = last_line (r.err);
      g_assert_cmpstr (last, ==, "MemoryError");
      g_assert_cmpint (r.status, ==, 1);
#ifndef UNDER_ASAN
      /* The budget, the doubling of a growing array's capacity, malloc's
       * slack and the process itself. (AddressSanitizer's redzones and
       * quarantine would need a bound of their own.) */
      g_assert_cmpuint (peak_kib, <, 200 * 1024);
#endif
      result_clear (&r);
    }
}

/* MemoryError is an exception like any other; below the budget the same
 * operations work. */
static void
test_memory_error_caught (void)
{
  static const char script[] =
    "try:\n"
    "    x = [0] * 10**9\n"
    "except MemoryError as e:\n"
    "    print('caught', repr(e))\n"
    "l = []\n"
    "try:\n"
    "    while True:\n"
    "        l.append('x' * 100)\n"
    "except MemoryError:\n"
    "    n = len(l)\n"
    "    l = None\n"
    "    print('grew', n > 1000)\n"
    "print(len([0] * 10**6), len('ab' * 10**6), len(f'{1:>{10**6}}'))\n";
  static const char *const args[] = { "--max-memory", "64M", NULL };
  Result r = { 0 };
  gsize peak_kib = 0;
  run_text_measured (&r, &peak_kib, script, args);
  g_assert_cmpstr (r.out, ==, "caught MemoryError()\ngrew True\n1000000 2000000 1000000\n");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
}

/* Long operations inside one builtin poll the cancel flag: --timeout ends
 * them with the script's TimeoutError traceback, not the runner's hard exit
 * two seconds later (which prints no traceback). */
static void
test_timeout_long_operations (void)
{
  static const char *const scripts[] = {
    "print(sum(range(10**15)))\n",
    "print(sum(x for x in range(10**15)))\n",
    "l = [1] * 10**6\nwhile True:\n    l.count(2)\n",
  };
  static const char *const args[] = { "--timeout", "0.5", "--max-memory", "1G", NULL };
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      Result r = { 0 };
      gsize peak_kib = 0;
      run_text_measured (&r, &peak_kib, scripts[i], args);
      g_test_message ("%s: %.2f s", scripts[i], r.seconds);
      g_assert_true (g_str_has_prefix (r.err, "Traceback (most recent call last):\n"));
      g_autofree char *last = last_line (r.err);
      g_assert_true (g_str_equal (last, "TimeoutError: the script did not finish within the "
                                        "time limit (--timeout)")
                     || g_str_equal (last, "MemoryError"));
      g_assert_cmpint (r.status, ==, 1);
      g_assert_cmpfloat (r.seconds, <, 2.4);
      result_clear (&r);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (output_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/app/runner/%s", output_cases[i].test);
      g_test_add_data_func (path, &output_cases[i], test_output_case);
    }
  g_test_add_func ("/app/runner/timeout", test_timeout);
  g_test_add_func ("/app/runner/usage", test_usage);
  g_test_add_func ("/app/runner/max-memory", test_max_memory);
  g_test_add_func ("/app/runner/trace-backward", test_trace_backward);
  g_test_add_func ("/app/runner/trace-scalar", test_trace_scalar);
  g_test_add_func ("/app/runner/trace-broadcast-hooks", test_trace_broadcast_hooks);
  g_test_add_func ("/app/runner/record", test_record);
  g_test_add_func ("/app/runner/device", test_device);
  g_test_add_func ("/app/runner/timeout-parse", test_timeout_parse);
  g_test_add_func ("/app/runner/small-stack", test_small_stack);
  g_test_add_func ("/app/runner/memory-budget", test_memory_budget);
  g_test_add_func ("/app/runner/memory-error-caught", test_memory_error_caught);
  g_test_add_func ("/app/runner/timeout-long-operations", test_timeout_long_operations);
  return g_test_run ();
}
