/* test-paths.c — the sum over paths (core/teach/cr-paths.h) equals what the
 * first backward call gave each leaf: on every example, element by element
 * where the record can take its ops apart (every 0-d leaf must be), and on
 * random scalar graphs made here from a seed. */
#include "teach-test-util.h"
#include "cr-interp.h"
#include "cr-paths.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

static gint64
numel (const CrRecordTensor *t)
{
  gint64 n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

static void
assert_close (double sum,
              double grad,
              double rtol,
              const char *what)
{
  if (!(fabs (sum - grad) <= 1e-6 + rtol * fabs (grad)))
    g_error ("%s: the paths add up to %.17g, .grad is %.17g", what, sum, grad);
}

/* Checks every leaf element of record; returns how many were checked. A
 * leaf not reached is skipped; an op the record cannot take apart is
 * allowed only for tensor leaves. */
static guint
check_record (const CrRunRecord *record,
              const char        *name,
              double             rtol)
{
  guint checked = 0;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = record->tensors->pdata[i];
      if (t->origin != CR_RECORD_TENSOR_LEAF)
        continue;
      for (gint64 e = 0; e < numel (t); e++)
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (CrPathSum) sum = cr_path_sum_new (record, (int) i, e, 100000, &error);
          if (!sum)
            {
              /* Not reached by the first backward, or a tensor op the record
               * cannot take apart: only a tensor leaf may meet the latter. */
              if (g_error_matches (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR))
                g_assert_cmpint (t->ndim, >, 0);
              break;
            }
          if (sum->hooks_changed || isnan (sum->grad))
            continue;
          g_assert_false (sum->truncated);
          g_autofree char *what = g_strdup_printf ("%s: %s element %" G_GINT64_FORMAT, name,
                                                   t->label, e);
          assert_close (sum->sum, sum->grad, rtol, what);
          checked++;
        }
    }
  return checked;
}

static void
test_examples (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint checked = 0, scalar_examples = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (CrRunRecord) record = teach_test_record_script (source, name);
      guint n = check_record (record, name, 1e-4);
      gboolean all_scalar = TRUE, any_leaf = FALSE;
      for (guint i = 0; i < record->tensors->len; i++)
        {
          const CrRecordTensor *t = record->tensors->pdata[i];
          if (t->origin == CR_RECORD_TENSOR_LEAF)
            {
              any_leaf = TRUE;
              all_scalar &= t->ndim == 0;
            }
        }
      if (any_leaf && all_scalar)
        {
          scalar_examples++;
          g_assert_cmpuint (n, >, 0);
        }
      g_test_message ("%s: %u leaf elements", name, n);
      checked += n;
    }
  g_assert_cmpuint (scalar_examples, >=, 1);
  g_assert_cmpuint (checked, >, 50);
}

/* A script of 0-d float64 leaves and ops on them that reuse earlier values,
 * so that paths fork and meet; L.backward() at the end. */
static char *
random_scalar_script (GRand *rand)
{
  GString *s = g_string_new ("import torch\n");
  guint n_leaves = (guint) g_rand_int_range (rand, 1, 5);
  guint n_ops = (guint) g_rand_int_range (rand, 2, 14);
  for (guint i = 0; i < n_leaves; i++)
    g_string_append_printf (s, "v%u = torch.tensor(%.3f, dtype=torch.float64, requires_grad=True)\n",
                            i, g_rand_double_range (rand, -2, 2));
  guint n = n_leaves;
  for (guint k = 0; k < n_ops; k++, n++)
    {
      guint a = (guint) g_rand_int_range (rand, 0, (gint32) n);
      guint b = (guint) g_rand_int_range (rand, 0, (gint32) n);
      switch (g_rand_int_range (rand, 0, 9))
        {
        case 0: g_string_append_printf (s, "v%u = v%u + v%u\n", n, a, b); break;
        case 1: g_string_append_printf (s, "v%u = v%u - v%u\n", n, a, b); break;
        case 2: g_string_append_printf (s, "v%u = v%u * v%u\n", n, a, b); break;
        case 3: g_string_append_printf (s, "v%u = v%u / (1 + v%u * v%u)\n", n, a, b, b); break;
        case 4: g_string_append_printf (s, "v%u = torch.tanh(v%u)\n", n, a); break;
        case 5: g_string_append_printf (s, "v%u = v%u.sin() * 2.5\n", n, a); break;
        case 6: g_string_append_printf (s, "v%u = v%u ** 2\n", n, a); break;
        case 7: g_string_append_printf (s, "v%u = torch.exp(torch.tanh(v%u))\n", n, a); break;
        default: g_string_append_printf (s, "v%u = 3 * v%u + v%u\n", n, a, a); break;
        }
    }
  /* Every value feeds L, so every leaf is reached. */
  g_string_append (s, "L = v0");
  for (guint i = 1; i < n; i++)
    g_string_append_printf (s, " + v%u", i);
  g_string_append (s, "\nL.backward()\n");
  return g_string_free (s, FALSE);
}

static void
test_random_scalar_graphs (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261127);
  guint checked = 0;
  for (guint g = 0; g < 60; g++)
    {
      g_autofree char *source = random_scalar_script (rand);
      g_autoptr (CrRunRecord) record = teach_test_record_script (source, "random.py");
      g_assert_cmpuint (record->errors->len, ==, 0);
      guint n = check_record (record, source, 1e-9);
      g_assert_cmpuint (n, >, 0);
      checked += n;
    }
  g_test_message ("%u leaves checked", checked);
}

/* A chain of fan-outs doubles the paths at each link: the list is cut at
 * max_paths and says so. */
static void
test_cap (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)\n"
    "y = x\n"
    "for i in range(12):\n"
    "    y = y * 0.5 + y\n"
    "y.backward()\n", "cap.py");
  int leaf = -1;
  for (guint i = 0; i < record->tensors->len; i++)
    if (((CrRecordTensor *) record->tensors->pdata[i])->origin == CR_RECORD_TENSOR_LEAF)
      leaf = (int) i;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) capped = cr_path_sum_new (record, leaf, 0, 100, &error);
  g_assert_no_error (error);
  g_assert_true (capped->truncated);
  g_assert_cmpuint (capped->paths->len, ==, 100);
  g_autoptr (CrPathSum) all = cr_path_sum_new (record, leaf, 0, 5000, &error);
  g_assert_no_error (error);
  g_assert_false (all->truncated);
  g_assert_cmpuint (all->paths->len, ==, 4096);
  assert_close (all->sum, all->grad, 1e-9, "cap.py");
  g_autofree char *text = cr_path_sum_format (capped, record);
  g_assert_nonnull (strstr (text, "more paths than these 100"));
}

/* An op whose per-element derivatives the record cannot give is named. */
static void
test_refused (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = torch.cumsum(x, 0)\n"
    "(y * y).sum().backward()\n", "refused.py");
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) sum = cr_path_sum_new (record, 0, 1, 100, &error);
  g_assert_null (sum);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR);
  g_assert_nonnull (strstr (error->message, "CumsumBackward0 (line 3)"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/paths/examples", test_examples);
  g_test_add_func ("/paths/random-scalar-graphs", test_random_scalar_graphs);
  g_test_add_func ("/paths/cap", test_cap);
  g_test_add_func ("/paths/refused", test_refused);
  return g_test_run ();
}
