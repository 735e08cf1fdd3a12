/* test-number-literal.c — finding a script's number literals and writing
 * them again with a new value (core/lang/cr-number-literal.h): what the
 * window's scrubbing changes in the editor. */
#include "cr-number-literal.h"

#include <math.h>
#include <string.h>

/* The literal at the first occurrence of needle in source (offset within
 * it: at), as its text; NULL when there is none. */
static char *
literal_text_at (const char      *source,
                 const char      *needle,
                 gsize            at,
                 CrNumberLiteral *literal)
{
  const char *where = strstr (source, needle);
  g_assert_nonnull (where);
  if (!cr_number_literal_at (source, -1, (gsize) (where - source) + at, literal))
    return NULL;
  return g_strndup (source + literal->start, literal->end - literal->start);
}

static void
assert_literal (const char *source,
                const char *needle,
                gsize       at,
                const char *expected_text,
                double      expected_value,
                double      expected_step)
{
  CrNumberLiteral literal;
  g_autofree char *text = literal_text_at (source, needle, at, &literal);
  g_assert_cmpstr (text, ==, expected_text);
  g_assert_cmpfloat_with_epsilon (literal.value, expected_value, 1e-12 * MAX (1, fabs (expected_value)));
  g_assert_cmpfloat_with_epsilon (cr_number_literal_step (&literal), expected_step, expected_step * 1e-9);
}

static void
assert_no_literal (const char *source,
                   const char *needle,
                   gsize       at)
{
  CrNumberLiteral literal;
  g_autofree char *text = literal_text_at (source, needle, at, &literal);
  g_assert_null (text);
}

static void
test_ints_and_floats (void)
{
  const char *src = "x = torch.tensor([0.5, 3, 1.25, 2., .5, 100.0])\n";
  assert_literal (src, "0.5", 0, "0.5", 0.5, 0.1);
  assert_literal (src, "0.5", 2, "0.5", 0.5, 0.1);   /* on its last digit */
  assert_literal (src, "3,", 0, "3", 3, 1);
  assert_literal (src, "1.25", 1, "1.25", 1.25, 0.01);
  assert_literal (src, "2.", 0, "2.", 2, 1);
  assert_literal (src, " .5", 1, ".5", 0.5, 0.1);
  assert_literal (src, "100.0", 3, "100.0", 100, 0.1);
  /* Between literals: a comma, a space, a bracket. */
  assert_no_literal (src, ", 3", 0);
  assert_no_literal (src, ", 3", 1);
  assert_no_literal (src, "[0.5", 0);
}

static void
test_negatives (void)
{
  const char *src = "a = -0.4\nb = [1, -2]\nc = x - 3\nd = x-3\ne = (-1.5) ** -2\nf = - 7\n";
  assert_literal (src, "-0.4", 0, "-0.4", -0.4, 0.1);   /* on the minus */
  assert_literal (src, "-0.4", 3, "-0.4", -0.4, 0.1);
  assert_literal (src, "-2", 1, "-2", -2, 1);
  /* After an operand, a minus subtracts: the literal is the number alone. */
  assert_literal (src, "- 3", 2, "3", 3, 1);
  assert_literal (src, "x-3", 2, "3", 3, 1);
  assert_no_literal (src, "x-3", 1);
  assert_literal (src, "(-1.5)", 1, "-1.5", -1.5, 0.1);
  assert_literal (src, "** -2", 4, "-2", -2, 1);
  /* A minus apart from its number is left as written. */
  assert_literal (src, "- 7", 2, "7", 7, 1);
}

static void
test_exponents (void)
{
  const char *src = "lr = 1e-3\nb = 2.5E+4\nc = -3e2\n";
  assert_literal (src, "1e-3", 0, "1e-3", 1e-3, 1e-3);
  assert_literal (src, "1e-3", 3, "1e-3", 1e-3, 1e-3);
  assert_literal (src, "2.5E+4", 0, "2.5E+4", 2.5e4, 1e3);
  assert_literal (src, "-3e2", 2, "-3e2", -300, 100);
}

static void
test_not_in_names_strings_comments (void)
{
  const char *src = "x1 = 2\nprint('0.5 and 3')\n# lr = 0.25\ny = x1 * 4  # times 4\n"
                    "s = \"\"\"\n1.5\n\"\"\"\nz = 0x1f + 1_000 + 2j\n";
  assert_no_literal (src, "x1 =", 1);
  assert_no_literal (src, "0.5 and", 0);
  assert_no_literal (src, "0.25", 0);
  assert_no_literal (src, "times 4", 6);
  assert_no_literal (src, "\n1.5\n", 1);
  assert_literal (src, "* 4", 2, "4", 4, 1);
  assert_literal (src, "= 2", 2, "2", 2, 1);
  /* Not decimal, or not plain: left alone. */
  assert_no_literal (src, "0x1f", 2);
  assert_no_literal (src, "1_000", 0);
  assert_no_literal (src, "2j", 0);
}

static void
test_broken_script (void)
{
  /* Up to where the text tokenizes, literals are found; after, none is. */
  const char *src = "a = 1.5\nb = 'unterminated\nc = 2.5\n";
  assert_literal (src, "1.5", 0, "1.5", 1.5, 0.1);
  assert_no_literal (src, "2.5", 0);
  /* No final newline. */
  assert_literal ("y = 7", "7", 0, "7", 7, 1);
}

static char *
stepped (const char *source,
         const char *needle,
         gint64      steps)
{
  CrNumberLiteral literal;
  g_autofree char *text = literal_text_at (source, needle, 0, &literal);
  g_assert_nonnull (text);
  return cr_number_literal_stepped (&literal, steps);
}

#define ASSERT_STEPPED(src, needle, steps, expected) \
  G_STMT_START { \
    g_autofree char *got_ = stepped ((src), (needle), (steps)); \
    g_assert_cmpstr (got_, ==, (expected)); \
  } G_STMT_END

static void
test_stepping_keeps_the_format (void)
{
  ASSERT_STEPPED ("a = 0.5\n", "0.5", 1, "0.6");
  ASSERT_STEPPED ("a = 0.5\n", "0.5", -6, "-0.1");
  ASSERT_STEPPED ("a = 0.5\n", "0.5", -5, "0.0");
  ASSERT_STEPPED ("a = 3\n", "3", 2, "5");
  ASSERT_STEPPED ("a = 3\n", "3", -5, "-2");
  ASSERT_STEPPED ("a = 1.25\n", "1.25", 10, "1.35");
  ASSERT_STEPPED ("a = 0.09\n", "0.09", 1, "0.10");
  ASSERT_STEPPED ("a = 2.\n", "2.", 1, "3.");
  ASSERT_STEPPED ("a = .5\n", ".5", 1, ".6");
  ASSERT_STEPPED ("a = .5\n", ".5", 6, "1.1");
  ASSERT_STEPPED ("a = -0.4\n", "-0.4", 1, "-0.3");
  ASSERT_STEPPED ("a = -0.4\n", "-0.4", 5, "0.1");
  ASSERT_STEPPED ("a = -1\n", "-1", 1, "0");
  ASSERT_STEPPED ("lr = 1e-3\n", "1e-3", 1, "2e-3");
  ASSERT_STEPPED ("lr = 1e-3\n", "1e-3", -2, "-1e-3");
  ASSERT_STEPPED ("b = 2.5E+4\n", "2.5E+4", 3, "2.8E+4");
  ASSERT_STEPPED ("a = 0.0001\n", "0.0001", 1, "0.0002");
  ASSERT_STEPPED ("a = 007.50\n", "007.50", 1, "7.51");
  ASSERT_STEPPED ("a = 99999999999999999\n", "9", 1, NULL);
}

static void
test_find_by_value (void)
{
  const char *src = "w = torch.tensor(2.0, requires_grad=True)\n"
                    "f = torch.full((1,), 3.0, requires_grad=True)\n"
                    "o = torch.full((1,), 1.0)\n";
  const char *line2 = strchr (src, '\n') + 1;
  const char *line3 = strchr (line2, '\n') + 1;
  CrNumberLiteral literal;
  g_assert_true (cr_number_literal_find (src, -1, 0, (gsize) (line2 - src), 2.0, &literal));
  g_assert_cmpuint (literal.start, ==, strstr (src, "2.0") - src);
  g_assert_true (cr_number_literal_find (src, -1, (gsize) (line2 - src), (gsize) (line3 - src), 3.0, &literal));
  g_assert_cmpuint (literal.start, ==, strstr (src, "3.0") - src);
  /* 1 and 1.0 both stand for 1: which one made it is not known. */
  g_assert_false (cr_number_literal_find (src, -1, (gsize) (line3 - src), strlen (src), 1.0, &literal));
  /* None stands for 5. */
  g_assert_false (cr_number_literal_find (src, -1, 0, strlen (src), 5.0, &literal));
}

static void
test_parse_and_replace (void)
{
  CrNumberLiteral literal;
  g_assert_true (cr_number_literal_parse (" -2.5 ", &literal));
  g_assert_cmpfloat (literal.value, ==, -2.5);
  g_assert_cmpuint (literal.start, ==, 1);
  g_assert_cmpuint (literal.end, ==, 5);
  g_assert_true (cr_number_literal_parse ("1e-3", &literal));
  g_assert_false (cr_number_literal_parse ("", &literal));
  g_assert_false (cr_number_literal_parse ("-", &literal));
  g_assert_false (cr_number_literal_parse ("- 2", &literal));
  g_assert_false (cr_number_literal_parse (".", &literal));
  g_assert_false (cr_number_literal_parse ("2 3", &literal));
  g_assert_false (cr_number_literal_parse ("x", &literal));
  g_assert_false (cr_number_literal_parse ("0x10", &literal));

  CrNumberLiteral float_literal, int_literal;
  g_assert_true (cr_number_literal_parse ("2.0", &float_literal));
  g_assert_true (cr_number_literal_parse ("4", &int_literal));
  g_autofree char *a = cr_number_literal_replacement (&float_literal, "3");
  g_assert_cmpstr (a, ==, "3.0");
  g_autofree char *b = cr_number_literal_replacement (&float_literal, " -0.25 ");
  g_assert_cmpstr (b, ==, "-0.25");
  g_autofree char *c = cr_number_literal_replacement (&int_literal, "5");
  g_assert_cmpstr (c, ==, "5");
  g_autofree char *d = cr_number_literal_replacement (&int_literal, "five");
  g_assert_null (d);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/number-literal/ints-and-floats", test_ints_and_floats);
  g_test_add_func ("/number-literal/negatives", test_negatives);
  g_test_add_func ("/number-literal/exponents", test_exponents);
  g_test_add_func ("/number-literal/not-in-names-strings-comments", test_not_in_names_strings_comments);
  g_test_add_func ("/number-literal/broken-script", test_broken_script);
  g_test_add_func ("/number-literal/stepping-keeps-the-format", test_stepping_keeps_the_format);
  g_test_add_func ("/number-literal/find-by-value", test_find_by_value);
  g_test_add_func ("/number-literal/parse-and-replace", test_parse_and_replace);
  return g_test_run ();
}
