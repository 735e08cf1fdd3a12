/* test-output-tail.c — the Output pane's bounded tail (ui/cr-output-tail),
 * headless: the last lines kept and the rest counted, streams kept apart, an
 * endless line cut at a character boundary, and appending linear in what was
 * printed. */
#include "cr-output-tail.h"

#include <string.h>

typedef struct {
  GString *all;      /* stdout as "text", stderr as "[text]" */
} Collected;

static void
collect_piece (const char *text,
               gsize       length,
               gboolean    is_stderr,
               gpointer    user_data)
{
  GString *all = user_data;
  if (is_stderr)
    g_string_append_c (all, '[');
  g_string_append_len (all, text, (gssize) length);
  if (is_stderr)
    g_string_append_c (all, ']');
}

static char *
shown (const CrOutputTail *tail)
{
  GString *all = g_string_new (NULL);
  cr_output_tail_foreach (tail, collect_piece, all);
  return g_string_free (all, FALSE);
}

static void
test_keeps_everything_small (void)
{
  g_autoptr (CrOutputTail) tail = cr_output_tail_new (10, 1000);
  cr_output_tail_append ("a", FALSE, tail);
  cr_output_tail_append ("b\nc\n", FALSE, tail);
  cr_output_tail_append ("oops\n", TRUE, tail);
  cr_output_tail_append ("d", FALSE, tail);
  g_autofree char *text = shown (tail);
  g_assert_cmpstr (text, ==, "ab\nc\n[oops\n]d");
  g_assert_cmpuint (cr_output_tail_get_dropped_lines (tail), ==, 0);
  g_assert_null (cr_output_tail_describe_dropped (tail));
}

static void
test_last_lines (void)
{
  g_autoptr (CrOutputTail) tail = cr_output_tail_new (3, 1000);
  for (int i = 0; i < 1234567; i++)
    {
      char line[32];
      g_snprintf (line, sizeof line, "%d\n", i);
      cr_output_tail_append (line, i % 2, tail);
    }
  g_autofree char *text = shown (tail);
  g_assert_cmpstr (text, ==, "1234564\n[1234565\n]1234566\n");
  g_assert_cmpuint (cr_output_tail_get_dropped_lines (tail), ==, 1234564);
  g_autofree char *dropped = cr_output_tail_describe_dropped (tail);
  g_assert_cmpstr (dropped, ==, "… 1,234,564 earlier lines not shown\n");
}

static void
test_byte_limit (void)
{
  g_autoptr (CrOutputTail) tail = cr_output_tail_new (1000, 10);
  cr_output_tail_append ("12345\n", FALSE, tail);
  cr_output_tail_append ("abcd\n", FALSE, tail);
  cr_output_tail_append ("xyz\n", FALSE, tail);
  g_autofree char *text = shown (tail);
  g_assert_cmpstr (text, ==, "abcd\nxyz\n");
  g_autofree char *dropped = cr_output_tail_describe_dropped (tail);
  g_assert_cmpstr (dropped, ==, "… 1 earlier line not shown\n");
}

/* print('é', end='') without end: the line loses its start, never half a
 * character, and the tail stays within its bytes. */
static void
test_endless_line (void)
{
  g_autoptr (CrOutputTail) tail = cr_output_tail_new (100, 1001);
  gint64 start = g_get_monotonic_time ();
  for (int i = 0; i < 2000000; i++)
    cr_output_tail_append ("é", FALSE, tail);
  double ms = (g_get_monotonic_time () - start) / 1000.0;
  g_test_message ("2,000,000 appends to one line: %.0f ms", ms);
  g_autofree char *text = shown (tail);
  g_assert_true (g_str_has_prefix (text, "…é"));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpuint (strlen (text), <=, 1001 + strlen ("…"));
  g_assert_cmpuint (cr_output_tail_get_dropped_lines (tail), ==, 0);
  /* The line ends; the next ones push it out. */
  cr_output_tail_append ("\nnext\n", FALSE, tail);
  for (int i = 0; i < 200; i++)
    cr_output_tail_append ("more\n", FALSE, tail);
  g_autofree char *after = shown (tail);
  g_assert_true (g_str_has_prefix (after, "more\n"));
  g_assert_cmpuint (cr_output_tail_get_dropped_lines (tail), ==, 102);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/output-tail/keeps-everything-small", test_keeps_everything_small);
  g_test_add_func ("/ui/output-tail/last-lines", test_last_lines);
  g_test_add_func ("/ui/output-tail/byte-limit", test_byte_limit);
  g_test_add_func ("/ui/output-tail/endless-line", test_endless_line);
  return g_test_run ();
}
