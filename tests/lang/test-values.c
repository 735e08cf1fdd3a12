/* test-values.c — script values: repr()/str() as Python 3.11 prints them,
 * equality and hashing across int/float/bool, insertion-ordered dicts,
 * truthiness, slices, conversions for natives and cr_args_parse's errors.
 * Every expected string was printed by /usr/bin/python3 (3.11). */
#include "cr-interp.h"
#include "cr-interp-private.h"
#include "cr-storage.h"
#include "cr-tensor.h"
#include "cr-torch.h"

#include <math.h>

static void
assert_repr (CrValue    *v,
             const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *r = cr_value_repr (NULL, v, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r, ==, expected);
}

static CrValue *
list_of (CrValue *first, ...)
{
  va_list ap;
  CrValue *list = cr_value_new_list ();
  va_start (ap, first);
  for (CrValue *v = first; v; v = va_arg (ap, CrValue *))
    {
      cr_list_append (list, v);
      cr_value_unref (v);
    }
  va_end (ap);
  return list;
}

/* repr([1.0, 0.1, -2.5e-9, 1e16, 1e22, 123.456, nan, inf]) */
static void
test_repr_floats (void)
{
  g_autoptr (CrValue) l = list_of (cr_value_new_float (1.0), cr_value_new_float (0.1),
                                   cr_value_new_float (-2.5e-9), cr_value_new_float (1e16),
                                   cr_value_new_float (1e22), cr_value_new_float (123.456),
                                   cr_value_new_float (NAN), cr_value_new_float (INFINITY), NULL);
  assert_repr (l, "[1.0, 0.1, -2.5e-09, 1e+16, 1e+22, 123.456, nan, inf]");
  g_autoptr (CrValue) third = cr_value_new_float (1.0 / 3.0);
  assert_repr (third, "0.3333333333333333");
  g_autoptr (CrValue) sum = cr_value_new_float (0.1 + 0.2);
  assert_repr (sum, "0.30000000000000004");
}

/* repr({'a': [1, (2,)], 3: None, (1, 2): 'x'}), (), (1,), [[]], {} */
static void
test_repr_containers (void)
{
  g_autoptr (CrValue) d = cr_value_new_dict ();
  g_autoptr (CrValue) a = cr_value_new_str ("a");
  g_autoptr (CrValue) two = cr_value_new_int (2);
  g_autoptr (CrValue) one_tuple = cr_value_new_tuple (&two, 1);
  g_autoptr (CrValue) inner = list_of (cr_value_new_int (1), cr_value_ref (one_tuple), NULL);
  g_autoptr (CrValue) three = cr_value_new_int (3);
  CrValue *pair_items[2] = { cr_value_new_int (1), cr_value_new_int (2) };
  g_autoptr (CrValue) pair = cr_value_new_tuple (pair_items, 2);
  g_autoptr (CrValue) x = cr_value_new_str ("x");
  g_assert_true (cr_dict_set (d, a, inner, NULL));
  g_assert_true (cr_dict_set (d, three, cr_value_none (), NULL));
  g_assert_true (cr_dict_set (d, pair, x, NULL));
  assert_repr (d, "{'a': [1, (2,)], 3: None, (1, 2): 'x'}");

  g_autoptr (CrValue) empty_tuple = cr_value_new_tuple (NULL, 0);
  assert_repr (empty_tuple, "()");
  assert_repr (one_tuple, "(2,)");
  g_autoptr (CrValue) nested = list_of (cr_value_new_list (), NULL);
  assert_repr (nested, "[[]]");
  g_autoptr (CrValue) empty_dict = cr_value_new_dict ();
  assert_repr (empty_dict, "{}");

  /* A list that contains itself: [1, [...]] */
  g_autoptr (CrValue) self_list = list_of (cr_value_new_int (1), NULL);
  cr_list_append (self_list, self_list);
  assert_repr (self_list, "[1, [...]]");
  /* Break the cycle so the list is freed. */
  g_ptr_array_remove_index (self_list->u.seq.items, 1);

  gint64 shape[2] = { 2, 3 };
  g_autoptr (CrValue) size = cr_value_new_size (shape, 2);
  assert_repr (size, "torch.Size([2, 3])");
  g_autoptr (CrValue) r = cr_value_new_range (0, 5, 2);
  assert_repr (r, "range(0, 5, 2)");
  g_autoptr (CrValue) one = cr_value_new_int (1);
  g_autoptr (CrValue) minus = cr_value_new_int (-1);
  g_autoptr (CrValue) s = cr_value_new_slice (one, NULL, minus);
  assert_repr (s, "slice(1, None, -1)");
  assert_repr (cr_value_none (), "None");
  assert_repr (cr_value_new_bool (TRUE), "True");
  assert_repr (cr_value_ellipsis (), "Ellipsis");
}

/* repr("it's"), repr('say "hi"'), repr('both \' and "'), repr('tab\tnl\nbs\\'),
 * repr('\x01é'); str() of a str is itself. */
static void
test_repr_strings (void)
{
  static const struct { const char *text; const char *repr; } cases[] = {
    { "it's", "\"it's\"" },
    { "say \"hi\"", "'say \"hi\"'" },
    { "both ' and \"", "'both \\' and \"'" },
    { "tab\tnl\nbs\\", "'tab\\tnl\\nbs\\\\'" },
    { "\x01\xc3\xa9", "'\\x01\xc3\xa9'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CrValue) v = cr_value_new_str (cases[i].text);
      assert_repr (v, cases[i].repr);
      g_autofree char *s = cr_value_str (NULL, v, NULL);
      g_assert_cmpstr (s, ==, cases[i].text);
    }
  g_autoptr (CrValue) e = cr_value_new_str ("h\xc3\xa9llo");
  g_assert_cmpuint (cr_str_char_len (e), ==, 5);
}

/* 1 == 1.0 == True, hash(1) == hash(1.0) == hash(True), so one dict key;
 * [1, 2] != (1, 2); 0.1 + 0.2 != 0.3; nan != nan. */
static void
test_equality (void)
{
  g_autoptr (CrValue) i = cr_value_new_int (1);
  g_autoptr (CrValue) f = cr_value_new_float (1.0);
  g_autoptr (CrValue) f2 = cr_value_new_float (1.5);
  g_assert_true (cr_value_equal (i, f));
  g_assert_true (cr_value_equal (f, cr_value_new_bool (TRUE)));
  g_assert_false (cr_value_equal (i, f2));
  g_autoptr (CrValue) big = cr_value_new_int ((G_GINT64_CONSTANT (1) << 53) + 1);
  g_autoptr (CrValue) bigf = cr_value_new_float ((double) (G_GINT64_CONSTANT (1) << 53));
  g_assert_false (cr_value_equal (big, bigf));   /* exact, as Python compares */

  g_autoptr (CrValue) l = list_of (cr_value_new_int (1), cr_value_new_int (2), NULL);
  CrValue *items[2] = { cr_value_new_int (1), cr_value_new_int (2) };
  g_autoptr (CrValue) t = cr_value_new_tuple (items, 2);
  g_autoptr (CrValue) l2 = list_of (cr_value_new_float (1.0), cr_value_new_int (2), NULL);
  g_assert_false (cr_value_equal (l, t));
  g_assert_true (cr_value_equal (l, l2));
  g_autoptr (CrValue) nan = cr_value_new_float (NAN);
  g_assert_false (cr_value_equal (nan, nan));

  g_autoptr (CrValue) d = cr_value_new_dict ();
  g_assert_true (cr_dict_set (d, i, l, NULL));
  g_assert_true (cr_dict_set (d, f, t, NULL));
  g_assert_true (cr_dict_set (d, cr_value_new_bool (TRUE), cr_value_none (), NULL));
  g_assert_cmpuint (cr_dict_len (d), ==, 1);
  assert_repr (d, "{1: None}");

  g_autoptr (GError) error = NULL;
  g_assert_false (cr_dict_set (d, l, i, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR);
  g_assert_cmpstr (error->message, ==, "unhashable type: 'list'");
}

/* Insertion order survives deletion and re-insertion:
 * d = {'b': 2, 'a': 1}; d['c'] = 3; del d['b']; d['b'] = 4 -> {'a': 1, 'c': 3, 'b': 4} */
static void
test_dict_order (void)
{
  g_autoptr (CrValue) d = cr_value_new_dict ();
  const char *keys[] = { "b", "a", "c" };
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (CrValue) key = cr_value_new_str (keys[k]);
      g_autoptr (CrValue) val = cr_value_new_int (k == 0 ? 2 : k == 1 ? 1 : 3);
      g_assert_true (cr_dict_set (d, key, val, NULL));
    }
  g_autoptr (CrValue) b = cr_value_new_str ("b");
  g_assert_true (cr_dict_delete (d, b, NULL));
  g_autoptr (CrValue) four = cr_value_new_int (4);
  g_assert_true (cr_dict_set (d, b, four, NULL));
  assert_repr (d, "{'a': 1, 'c': 3, 'b': 4}");
  g_autoptr (CrValue) a = cr_value_new_str ("a");
  CrValue *v = cr_dict_get (d, a, NULL);
  g_assert_nonnull (v);
  g_assert_cmpint (v->u.i, ==, 1);
  g_autoptr (CrValue) z = cr_value_new_str ("z");
  g_assert_null (cr_dict_get (d, z, NULL));
  g_autoptr (GError) error = NULL;
  g_assert_false (cr_dict_delete (d, z, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR);
  g_assert_cmpstr (error->message, ==, "'z'");
}

static void
test_truthiness (void)
{
  g_autoptr (CrValue) zero = cr_value_new_float (0.0);
  g_autoptr (CrValue) empty = cr_value_new_str ("");
  g_autoptr (CrValue) s = cr_value_new_str ("0");
  g_autoptr (CrValue) l = cr_value_new_list ();
  g_autoptr (CrValue) r = cr_value_new_range (3, 3, 1);
  struct { CrValue *v; gboolean expected; } cases[] = {
    { cr_value_none (), FALSE }, { zero, FALSE }, { empty, FALSE }, { s, TRUE },
    { l, FALSE }, { r, FALSE }, { cr_value_new_int (-1), TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean t = !cases[i].expected;
      g_assert_true (cr_value_truthy (NULL, cases[i].v, &t, NULL));
      g_assert_cmpint (t, ==, cases[i].expected);
    }
}

/* [1, 2, 3, 4, 5][::-2] covers indices 4, 2, 0; [10:1:-3] on 5 items: 4, 1. */
static void
test_slices (void)
{
  gint64 start, stop, step, n;
  g_autoptr (CrValue) m2 = cr_value_new_int (-2);
  g_autoptr (CrValue) s = cr_value_new_slice (NULL, NULL, m2);
  g_assert_true (cr_slice_indices (s, 5, &start, &stop, &step, &n, NULL));
  g_assert_cmpint (start, ==, 4);
  g_assert_cmpint (n, ==, 3);
  g_autoptr (CrValue) ten = cr_value_new_int (10);
  g_autoptr (CrValue) one = cr_value_new_int (1);
  g_autoptr (CrValue) m3 = cr_value_new_int (-3);
  g_autoptr (CrValue) s2 = cr_value_new_slice (ten, one, m3);
  g_assert_true (cr_slice_indices (s2, 5, &start, &stop, &step, &n, NULL));
  g_assert_cmpint (start, ==, 4);
  g_assert_cmpint (n, ==, 1);
  g_autoptr (CrValue) zero = cr_value_new_int (0);
  g_autoptr (CrValue) s3 = cr_value_new_slice (NULL, NULL, zero);
  g_autoptr (GError) error = NULL;
  g_assert_false (cr_slice_indices (s3, 5, &start, &stop, &step, &n, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR);
  g_assert_cmpstr (error->message, ==, "slice step cannot be zero");
  g_autoptr (CrValue) r = cr_value_new_range (10, 0, -3);
  g_assert_cmpint (cr_range_len (r), ==, 4);
}

static void
test_conversions (void)
{
  double d;
  gint64 i;
  g_autoptr (GError) error = NULL;
  g_autoptr (CrValue) f = cr_value_new_float (2.5);
  g_assert_true (cr_value_to_double (f, &d, NULL));
  g_assert_cmpfloat (d, ==, 2.5);
  g_assert_false (cr_value_to_int (f, &i, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR);
  g_assert_cmpstr (error->message, ==, "'float' object cannot be interpreted as an integer");
  g_clear_error (&error);

  CrValue *items[2] = { cr_value_new_int (2), cr_value_new_int (3) };
  g_autoptr (CrValue) t = cr_value_new_tuple (items, 2);
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  g_assert_true (cr_value_to_shape (&t, 1, shape, &ndim, NULL));
  g_assert_cmpint (ndim, ==, 2);
  g_assert_cmpint (shape[1], ==, 3);
  g_assert_true (cr_value_to_shape (items, 2, shape, &ndim, NULL));
  g_assert_cmpint (ndim, ==, 2);
  g_autoptr (CrValue) s = cr_value_new_str ("x");
  g_assert_false (cr_value_to_shape (&s, 1, shape, &ndim, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR);
  g_clear_error (&error);

  g_autoptr (CrValue) three = cr_value_new_int (3);
  g_autoptr (CrTensor) tensor = cr_value_to_tensor (three, NULL);
  g_assert_nonnull (tensor);
  g_assert_true (tensor->is_wrapped_number);
  g_assert_cmpint (tensor->dtype, ==, CR_DTYPE_INT64);
  g_assert_cmpint (tensor->ndim, ==, 0);
  g_assert_cmpfloat (cr_tensor_get_flat (tensor, 0), ==, 3.0);
  g_autoptr (CrValue) tv = cr_value_new_tensor (tensor);
  g_assert_cmpstr (cr_value_type_name (tv), ==, "Tensor");
  g_assert_true (cr_value_to_double (tv, &d, NULL));
  g_assert_cmpfloat (d, ==, 3.0);
}

/* CPython's texts: sum() got an unexpected keyword argument 'dims', mean()
 * missing 1 required positional argument: 'input', takes from 1 to 2
 * positional arguments but 3 were given. */
static void
test_args_parse (void)
{
  CrValue *a = NULL, *b = NULL, *k = NULL;
  g_autoptr (CrValue) one = cr_value_new_int (1);
  CrValue *args[3] = { one, one, one };
  g_autoptr (GError) error = NULL;

  g_assert_true (cr_args_parse ("sum", args, 1, NULL, 0, &error, "input", &a, "|dim", &b,
                                "$keepdim", &k, NULL));
  g_assert_true (a == one && b == NULL && k == NULL);

  CrKwarg kw = { "dims", one };
  g_assert_false (cr_args_parse ("sum", args, 1, &kw, 1, &error, "input", &a, "|dim", &b, NULL));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR);
  g_assert_cmpstr (error->message, ==, "sum() got an unexpected keyword argument 'dims'");
  g_clear_error (&error);

  g_assert_false (cr_args_parse ("mean", args, 0, NULL, 0, &error, "input", &a, NULL));
  g_assert_cmpstr (error->message, ==, "mean() missing 1 required positional argument: 'input'");
  g_clear_error (&error);

  g_assert_false (cr_args_parse ("f", args, 3, NULL, 0, &error, "x", &a, "|y", &b, NULL));
  g_assert_cmpstr (error->message, ==, "f() takes from 1 to 2 positional arguments but 3 were given");
  g_clear_error (&error);

  g_assert_false (cr_args_parse ("f", args, 2, NULL, 0, &error, "x", &a, "|$k", &k, NULL));
  g_assert_cmpstr (error->message, ==, "f() takes 1 positional argument but 2 were given");
  g_clear_error (&error);

  CrKwarg kx = { "x", one };
  g_assert_false (cr_args_parse ("f", args, 1, &kx, 1, &error, "x", &a, NULL));
  g_assert_cmpstr (error->message, ==, "f() got multiple values for argument 'x'");
  g_clear_error (&error);

  g_assert_false (cr_args_parse ("g", args, 0, NULL, 0, &error, "a", &a, "b", &b, "c", &k, NULL));
  g_assert_cmpstr (error->message, ==, "g() missing 3 required positional arguments: 'a', 'b', and 'c'");
  g_clear_error (&error);

  g_assert_false (cr_args_parse ("h", args, 0, NULL, 0, &error, "$key", &k, NULL));
  g_assert_cmpstr (error->message, ==, "h() missing 1 required keyword-only argument: 'key'");
}

/* Values count against the one memory budget (cr-storage.h) and give back
 * exactly what they were charged, however their contents changed. */
static void
test_memory_accounting (void)
{
  cr_value_flush_accounting ();
  gsize before = cr_memory_in_use ();
  CrValue *list = cr_value_new_list ();
  for (int i = 0; i < 100000; i++)
    {
      CrValue *s = cr_value_new_str ("abcdefgh");
      cr_list_append (list, s);
      cr_value_unref (s);
    }
  CrValue *dict = cr_value_new_dict ();
  for (int i = 0; i < 1000; i++)
    {
      CrValue *k = cr_value_new_int (2000 + i);
      g_assert_true (cr_dict_set (dict, k, list, NULL));
      cr_value_unref (k);
    }
  cr_value_flush_accounting ();
  g_assert_cmpuint (cr_memory_in_use (), >=,
                    before + 100000 * (CR_VALUE_BYTES + CR_VALUE_ITEM_BYTES + 8));

  /* Items dropped directly, then counted again; a dict emptied. */
  g_ptr_array_set_size (list->u.seq.items, 10);
  cr_seq_account (list);
  cr_dict_clear (dict);
  cr_value_flush_accounting ();
  g_assert_cmpuint (cr_memory_in_use (), <, before + 1000 * CR_VALUE_BYTES);

  cr_value_unref (dict);
  cr_value_unref (list);
  cr_value_flush_accounting ();
  g_assert_cmpuint (cr_memory_in_use (), ==, before);
}

/* Past the limit: a size known in advance is refused before allocating, and
 * growth is reported at the next checkpoint, both as a bare MemoryError. */
static void
test_memory_limit (void)
{
  gsize old_limit = cr_memory_get_limit ();
  GError *error = NULL;
  cr_value_flush_accounting ();
  cr_memory_set_limit (cr_memory_in_use () + (1 << 20));

  g_assert_true (cr_value_check_alloc (1000, &error));
  g_assert_no_error (error);
  g_assert_false (cr_value_check_alloc (2 << 20, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
  g_assert_cmpstr (error->message, ==, "");
  g_clear_error (&error);
  g_assert_false (cr_value_check_alloc_n (G_MAXSIZE / 4, 8, &error));   /* overflows */
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
  g_clear_error (&error);

  g_assert_true (cr_value_check_memory (&error));
  CrValue *list = cr_value_new_list ();
  for (int i = 0; i < 50000; i++)
    {
      CrValue *s = cr_value_new_str ("0123456789abcdef");
      cr_list_append (list, s);
      cr_value_unref (s);
    }
  cr_value_flush_accounting ();
  g_assert_false (cr_value_check_memory (&error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
  g_clear_error (&error);
  g_assert_false (cr_value_checkpoint (NULL, 0, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
  g_clear_error (&error);

  cr_value_unref (list);
  cr_value_flush_accounting ();
  g_assert_true (cr_value_check_memory (&error));
  g_assert_no_error (error);
  cr_memory_set_limit (old_limit);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/values/repr-floats", test_repr_floats);
  g_test_add_func ("/lang/values/repr-containers", test_repr_containers);
  g_test_add_func ("/lang/values/repr-strings", test_repr_strings);
  g_test_add_func ("/lang/values/equality", test_equality);
  g_test_add_func ("/lang/values/dict-order", test_dict_order);
  g_test_add_func ("/lang/values/truthiness", test_truthiness);
  g_test_add_func ("/lang/values/slices", test_slices);
  g_test_add_func ("/lang/values/conversions", test_conversions);
  g_test_add_func ("/lang/values/args-parse", test_args_parse);
  g_test_add_func ("/lang/values/memory-accounting", test_memory_accounting);
  g_test_add_func ("/lang/values/memory-limit", test_memory_limit);
  return g_test_run ();
}
