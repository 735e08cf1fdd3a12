/* test-interp.c — the interpreter on whole scripts: Python's semantics for
 * arithmetic, closures and scopes, comprehensions, classes and dunder
 * methods; errors with their Python type, message, line and column;
 * tracebacks; recursion; cancellation; the sandbox; warnings; tensor names
 * and the recorded backward steps.
 *
 * Every expected output below was printed by /usr/bin/python3 (3.11.2 with
 * PyTorch 1.13) running the same script. */
#include "cr-interp.h"
#include "cr-interp-private.h"
#include "lang-test-run.h"
#include "cr-node.h"
#include "cr-tensor.h"

#include <pthread.h>
#include <string.h>

typedef LangTestRun Run;

static void
run_clear (Run *r)
{
  lang_test_run_clear (r);
}

/* Parses and runs source as file "demo.py", keeping the interpreter (for
 * globals and records). */
static gboolean
run_script (const char      *source,
            CrInterpOptions *options,
            Run             *r)
{
  return lang_test_run ("demo.py", source, options, r);
}

static void
assert_output (const char *source,
               const char *expected)
{
  Run r;
  gboolean ok = run_script (source, NULL, &r);
  if (!ok)
    g_printerr ("%s", r.error->traceback);
  g_assert_true (ok);
  g_assert_cmpstr (r.out, ==, expected);
  run_clear (&r);
}

/* ---- semantics --------------------------------------------------------------------------- */

static void
test_arithmetic (void)
{
  assert_output (
    "print(7 // 2, -7 // 2, 7 // -2, 7 % 3, -7 % 3, 7 % -3, 7.5 // 2, -7.5 // 2, -7.5 % 2, 2 ** -1, (-2) ** 3)\n"
    "print(1 / 3, 10 / 2, 1e16, 1e-5, 0.1 + 0.2, 2.0 ** 0.5, divmod(-7, 2), divmod(-7.5, 2))\n"
    "print(round(2.5), round(3.5), round(2.675, 2), round(1234.5678, -2), int(-3.9), int(\" 42 \"), float(\"1e3\"))\n"
    "print(3 < 4 < 5, 3 < 4 > 5, 1 == 1.0, 0 or \"x\", 0 and \"y\", None or [] or {}, not [1], True + True)\n"
    "print(1 << 10, 5 & 3, 5 | 3, 5 ^ 3, ~5, 2 ** 62, max(3, 7, 5), min([4, 2, 8]), sum([0.1] * 10))\n"
    "x = 10\n"
    "x += 5\n"
    "x //= 2\n"
    "x **= 2\n"
    "print(x, \"%5.2f|%-4d|%s|%r\" % (2.5, 7, \"s\", \"s\"), f\"{3.14159:.3f} {255:x} {0.25:.1%} {1234567:,}\")\n"
    "a, *rest = [1, 2, 3, 4]\n"
    "(p, q), r = (1, 2), 3\n"
    "print(a, rest, p, q, r, \"hello\"[::-2], [1, 2, 3, 4, 5][-2:], list(range(10, 0, -3)))\n",
    "3 -4 -4 1 2 -2 3.0 -4.0 0.5 0.5 -8\n"
    "0.3333333333333333 5.0 1e+16 1e-05 0.30000000000000004 1.4142135623730951 (-4, 1) (-4.0, 0.5)\n"
    "2 4 2.67 1200.0 -3 42 1000.0\n"
    "True False True x 0 {} False 2\n"
    "1024 1 7 6 -6 4611686018427387904 7 2 0.9999999999999999\n"
    "49  2.50|7   |s|'s' 3.142 ff 25.0% 1,234,567\n"
    "1 [2, 3, 4] 1 2 3 olh [4, 5] [10, 7, 4, 1]\n");
}

static void
test_closures (void)
{
  assert_output (
    "def make_counter():\n"
    "    count = 0\n"
    "    def inc(step=1):\n"
    "        nonlocal count\n"
    "        count += step\n"
    "        return count\n"
    "    return inc\n"
    "c = make_counter()\n"
    "c()\n"
    "c(5)\n"
    "print(c(), c.__qualname__)\n"
    "def outer():\n"
    "    x = \"outer\"\n"
    "    def mid():\n"
    "        def inner():\n"
    "            return x\n"
    "        return inner()\n"
    "    return mid()\n"
    "print(outer())\n"
    "total = 0\n"
    "def bump():\n"
    "    global total\n"
    "    total += 10\n"
    "bump()\n"
    "bump()\n"
    "print(total)\n"
    "adders = [lambda v, k=k: v + k for k in range(3)]\n"
    "late = [lambda: k for k in range(3)]\n"
    "print([f(10) for f in adders], [f() for f in late])\n"
    "print([(i, j) for i in range(4) for j in range(i) if (i + j) % 2 == 1])\n"
    "print([[y * 2 for y in row] for row in [[1, 2], [3]]], sum(v * v for v in range(4)))\n"
    "k = \"module k\"\n"
    "print([k for k in \"ab\"], k)\n",
    "7 make_counter.<locals>.inc\n"
    "outer\n"
    "20\n"
    "[10, 11, 12] [2, 2, 2]\n"
    "[(1, 0), (2, 1), (3, 0), (3, 2)]\n"
    "[[2, 4], [6]] 14\n"
    "['a', 'b'] module k\n");
}

static void
test_classes (void)
{
  assert_output (
    "class Animal:\n"
    "    kind = \"animal\"\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "    def speak(self):\n"
    "        return f\"{self.name} makes a sound\"\n"
    "    def __repr__(self):\n"
    "        return f\"Animal({self.name!r})\"\n"
    "class Dog(Animal):\n"
    "    def __init__(self, name, tricks=None):\n"
    "        super().__init__(name)\n"
    "        self.tricks = tricks or []\n"
    "    def speak(self):\n"
    "        return super().speak() + \" (woof)\"\n"
    "    @staticmethod\n"
    "    def legs():\n"
    "        return 4\n"
    "d = Dog(\"Rex\", [\"sit\"])\n"
    "print(d.speak(), d.kind, Dog.legs(), d.tricks, isinstance(d, Animal), isinstance(Animal(\"x\"), Dog))\n"
    "print(d, [Animal(\"cat\")], hasattr(d, \"name\"), getattr(d, \"age\", 3))\n"
    "class V:\n"
    "    def __init__(self, x, y):\n"
    "        self.x, self.y = x, y\n"
    "    def __add__(self, o):\n"
    "        return V(self.x + o.x, self.y + o.y)\n"
    "    def __mul__(self, k):\n"
    "        return V(self.x * k, self.y * k)\n"
    "    __rmul__ = __mul__\n"
    "    def __eq__(self, o):\n"
    "        return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)\n"
    "    def __lt__(self, o):\n"
    "        return self.x < o.x\n"
    "    def __repr__(self):\n"
    "        return \"V(%d, %d)\" % (self.x, self.y)\n"
    "print(V(1, 2) + V(3, 4), 2 * V(1, 1), V(1, 2) == V(1, 2), V(1, 2) != V(1, 2), sorted([V(3, 0), V(1, 0)]))\n",
    "Rex makes a sound (woof) animal 4 ['sit'] True False\n"
    "Animal('Rex') [Animal('cat')] True 3\n"
    "V(4, 6) V(2, 2) True False [V(1, 0), V(3, 0)]\n");
}

static void
test_containers (void)
{
  assert_output (
    "d = {\"b\": 2, \"a\": 1}\n"
    "d[\"c\"] = 3\n"
    "del d[\"b\"]\n"
    "d[\"b\"] = 4\n"
    "print(d, list(d), d.keys(), d.items(), d.get(\"z\", 0), d.pop(\"a\"), d)\n"
    "l = [3, 1, 2]\n"
    "l.append(4); l.extend((5, 6)); l.insert(0, 0); l.remove(3)\n"
    "print(l.pop(), l, l.index(2), sorted(l, reverse=True), l[1:3], l * 2)\n"
    "l[1:3] = [\"a\", \"b\", \"c\"]\n"
    "print(l, list(enumerate(\"ab\", 1)), list(zip([1, 2, 3], \"ab\")), list(map(abs, [-1, 2])))\n"
    "print(\"{0}{1}{0}\".format(\"a\", \"b\"), \"{name}={val:.1e}\".format(name=\"x\", val=12345.678), \" x \".strip(), \"a,b\".split(\",\"))\n"
    "print(len(\"h\\u00e9llo\"), \"h\\u00e9llo\"[::-1], any([0, \"\"]), all([]))\n",
    /* The views are live: print() shows them after pop() ran. */
    "{'c': 3, 'b': 4} ['a', 'c', 'b'] dict_keys(['c', 'b']) "
    "dict_items([('c', 3), ('b', 4)]) 0 1 {'c': 3, 'b': 4}\n"
    "6 [0, 1, 2, 4, 5] 2 [5, 4, 2, 1, 0] [1, 2] [0, 1, 2, 4, 5, 0, 1, 2, 4, 5]\n"
    "[0, 'a', 'b', 'c', 4, 5] [(1, 'a'), (2, 'b')] [(1, 'a'), (2, 'b')] [1, 2]\n"
    "aba x=1.2e+04 x ['a', 'b']\n"
    "5 oll\xc3\xa9h False True\n");
}

/* ---- errors ------------------------------------------------------------------------------------ */

typedef struct {
  const char *source;
  const char *type;
  const char *message;
  int         line;
  int         column;
} ErrorCase;

/* The type, message, line and 1-based column of the innermost frame, as
 * traceback.extract_tb(e.__traceback__)[-1] reports them in Python 3.11. */
static const ErrorCase error_cases[] = {
  { "x = 1\nprint(y)", "NameError", "name 'y' is not defined", 2, 7 },
  { "print(1 + 'a')", "TypeError", "unsupported operand type(s) for +: 'int' and 'str'", 1, 7 },
  { "s = 'a' + 1", "TypeError", "can only concatenate str (not \"int\") to str", 1, 5 },
  { "def f(x):\n    return x * 2\nf()", "TypeError", "f() missing 1 required positional argument: 'x'", 3, 1 },
  { "def f(x, y):\n    pass\nf(1, 2, 3)", "TypeError", "f() takes 2 positional arguments but 3 were given", 3, 1 },
  { "a, b = [1, 2, 3]", "ValueError", "too many values to unpack (expected 2)", 1, 1 },
  { "a, b, c = [1, 2]", "ValueError", "not enough values to unpack (expected 3, got 2)", 1, 1 },
  { "v = [1, 2][5]", "IndexError", "list index out of range", 1, 5 },
  { "d = {}\nv = d['k']", "KeyError", "'k'", 2, 5 },
  { "n = 5\nn()", "TypeError", "'int' object is not callable", 2, 1 },
  { "z = 1.5\nz[0]", "TypeError", "'float' object is not subscriptable", 2, 1 },
  { "q = (1).foo", "AttributeError", "'int' object has no attribute 'foo'", 1, 5 },
  { "w = [].foo", "AttributeError", "'list' object has no attribute 'foo'", 1, 5 },
  { "r = 1 / 0", "ZeroDivisionError", "division by zero", 1, 5 },
  { "r = 1.0 / 0", "ZeroDivisionError", "float division by zero", 1, 5 },
  { "r = 1 // 0", "ZeroDivisionError", "integer division or modulo by zero", 1, 5 },
  { "f = lambda: 0\nf(1)", "TypeError", "<lambda>() takes 0 positional arguments but 1 was given", 2, 1 },
  { "def g(a):\n    return a.missing\ndef h():\n    return g(3)\nh()", "AttributeError", "'int' object has no attribute 'missing'", 2, 12 },
  { "class A:\n    def __init__(self, v):\n        self.v = v\nA()", "TypeError", "A.__init__() missing 1 required positional argument: 'v'", 4, 1 },
  { "assert 1 == 2, 'nope'", "AssertionError", "nope", 1, 8 },
  { "raise ValueError('bad value')", "ValueError", "bad value", 1, 1 },
  { "t = (1, 2)\nt[0] = 5", "TypeError", "'tuple' object does not support item assignment", 2, 1 },
  { "len(5)", "TypeError", "object of type 'int' has no len()", 1, 1 },
  { "x = int('x')", "ValueError", "invalid literal for int() with base 10: 'x'", 1, 5 },
  { "def f():\n    x += 1\nf()", "UnboundLocalError", "cannot access local variable 'x' where it is not associated with a value", 2, 5 },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      const ErrorCase *c = &error_cases[i];
      Run r;
      g_test_message ("%s", c->source);
      g_assert_false (run_script (c->source, NULL, &r));
      g_assert_nonnull (r.error);
      g_assert_cmpstr (cr_exception_name (r.error->type), ==, c->type);
      g_assert_cmpstr (r.error->message, ==, c->message);
      g_assert_cmpint (r.error->span.line, ==, c->line);
      g_assert_cmpint (r.error->span.column, ==, c->column);
      g_autofree char *last = g_strdup_printf ("%s: %s\n", c->type, c->message);
      g_assert_true (g_str_has_suffix (r.error->traceback, last));
      run_clear (&r);
    }
}

/* python3 demo.py: the frames of both functions, the carets of 3.11. */
static void
test_traceback (void)
{
  Run r;
  g_assert_false (run_script ("def scale(v, k):\n"
                              "    return v * k\n"
                              "\n"
                              "def total(xs):\n"
                              "    s = 0\n"
                              "    for x in xs:\n"
                              "        s = s + scale(x, 2)\n"
                              "    return s\n"
                              "\n"
                              "print(total([1, 2]))\n"
                              "print(total([1, \"a\"]) + 1)\n", NULL, &r));
  g_assert_cmpstr (r.out, ==, "6\n");
  g_assert_cmpstr (r.error->traceback, ==,
                   "Traceback (most recent call last):\n"
                   "  File \"demo.py\", line 11, in <module>\n"
                   "    print(total([1, \"a\"]) + 1)\n"
                   "          ^^^^^^^^^^^^^^^\n"
                   "  File \"demo.py\", line 7, in total\n"
                   "    s = s + scale(x, 2)\n"
                   "        ~~^~~~~~~~~~~~~\n"
                   "TypeError: unsupported operand type(s) for +: 'int' and 'str'\n");
  run_clear (&r);
}

/* def f(n): return f(n + 1) -- Python's limit (1000 frames), the repeated
 * frames folded, and no C stack overflow. */
static void
test_recursion (void)
{
  Run r;
  g_assert_false (run_script ("def f(n):\n    return f(n + 1)\n\nf(0)\n", NULL, &r));
  g_assert_cmpint (r.error->type, ==, CR_EXC_RECURSION_ERROR);
  g_assert_cmpstr (r.error->message, ==, "maximum recursion depth exceeded");
  g_assert_nonnull (strstr (r.error->traceback, "  [Previous line repeated 996 more times]\n"));
  run_clear (&r);

  /* Depth 900 is fine, as in Python. */
  assert_output ("def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nprint(depth(900))\n",
                 "900\n");

  /* Freeing a list nested 300000 deep does not recurse (the first one when
   * x is rebound, the second with the interpreter). */
  assert_output ("x = []\nfor i in range(300000):\n    x = [x]\nx = None\n"
                 "y = ()\nfor i in range(300000):\n    y = (y, i)\nprint('ok')\n", "ok\n");
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (50 * 1000);
  g_atomic_int_set ((gint *) data, 2);
  return NULL;
}

static void
test_cancel (void)
{
  gint flag = 0;
  CrInterpOptions o = { .cancel_flag = &flag };
  GThread *t = g_thread_new ("cancel", cancel_later, &flag);
  Run r;
  gint64 start = g_get_monotonic_time ();
  g_assert_false (run_script ("n = 0\nwhile True:\n    n += 1\n", &o, &r));
  g_thread_join (t);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpint (r.error->type, ==, CR_EXC_TIMEOUT_ERROR);
  g_assert_cmpint (r.error->span.line, >=, 2);   /* the loop, wherever it was stopped */
  run_clear (&r);

  flag = 1;
  g_assert_false (run_script ("def f():\n    return 1\nf()\n", &o, &r));
  g_assert_cmpint (r.error->type, ==, CR_EXC_KEYBOARD_INTERRUPT);
  g_assert_true (g_str_has_suffix (r.error->traceback, "\nKeyboardInterrupt\n"));
  run_clear (&r);
}

static gpointer
edit_later (gpointer data)
{
  g_usleep (50 * 1000);
  g_atomic_int_set ((gint *) data, 1);   /* what the window does on an edit */
  return NULL;
}

/* Long loops inside one builtin or comprehension poll the flag too: an edit
 * stops sum(range(10**15)) promptly (it iterates lazily, without a list),
 * and a comprehension whose filter keeps nothing. */
static void
test_cancel_long_builtins (void)
{
  static const char *const scripts[] = {
    "print(sum(range(10**15)))\n",
    "x = list(range(10**6))\nprint([y for y in x for z in x if z < 0])\n",
    "print(sum(1 for i in range(10**15) if i < 0))\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      gint flag = 0;
      CrInterpOptions o = { .cancel_flag = &flag };
      GThread *t = g_thread_new ("edit", edit_later, &flag);
      Run r;
      gint64 start = g_get_monotonic_time ();
      g_assert_false (run_script (scripts[i], &o, &r));
      g_thread_join (t);
      g_assert_cmpint (g_get_monotonic_time () - start, <, 3 * G_USEC_PER_SEC);
      g_assert_cmpint (r.error->type, ==, CR_EXC_KEYBOARD_INTERRUPT);
      g_assert_cmpstr (r.out, ==, "");
      run_clear (&r);
    }
}

/* A cancelled run is never caught, not even by a bare except in a loop;
 * a finally block on the way out stops at its first call (every call checks
 * the flag), so nothing is printed. */
static void
test_cancel_uncatchable (void)
{
  gint flag = 0;
  CrInterpOptions o = { .cancel_flag = &flag };
  GThread *t = g_thread_new ("cancel", cancel_later, &flag);
  Run r;
  g_assert_false (run_script ("n = 0\n"
                              "while True:\n"
                              "    try:\n"
                              "        while True:\n"
                              "            n += 1\n"
                              "    except:\n"
                              "        print('caught')\n"
                              "    finally:\n"
                              "        print('finally')\n", &o, &r));
  g_thread_join (t);
  g_assert_cmpint (r.error->type, ==, CR_EXC_TIMEOUT_ERROR);
  g_assert_cmpstr (r.out, ==, "");
  run_clear (&r);
}

/* try/except as python3 runs it: the class hierarchy, the instance, a bare
 * raise, else and finally. */
static void
test_try (void)
{
  assert_output ("try:\n    [][1]\nexcept LookupError as e:\n"
                 "    print(type(e).__name__, e, repr(e), e.args)\n",
                 "IndexError list index out of range IndexError('list index out of range') "
                 "('list index out of range',)\n");
  assert_output ("try:\n    {}['k']\nexcept (ValueError, KeyError) as e:\n"
                 "    print(e, repr(e), e.args)\nelse:\n    print('no')\nfinally:\n    print('f')\n",
                 "'k' KeyError('k') ('k',)\nf\n");
  assert_output ("def f():\n    try:\n        return 1\n    finally:\n        print('fin')\n"
                 "print(f())\n", "fin\n1\n");
  assert_output ("try:\n    raise KeyboardInterrupt\nexcept Exception:\n    print('no')\n"
                 "except BaseException as e:\n    print('base', repr(e))\n",
                 "base KeyboardInterrupt()\n");

  /* A bare raise re-raises the handled error where it first happened. */
  Run r;
  g_assert_false (run_script ("try:\n    x = 1 // 0\nexcept ArithmeticError:\n"
                              "    print('h')\n    raise\n", NULL, &r));
  g_assert_cmpstr (r.out, ==, "h\n");
  g_assert_cmpstr (r.error->traceback, ==,
                   "Traceback (most recent call last):\n"
                   "  File \"demo.py\", line 2, in <module>\n"
                   "    x = 1 // 0\n"
                   "        ~~^^~~\n"
                   "ZeroDivisionError: integer division or modulo by zero\n");
  run_clear (&r);

  /* An uncaught error keeps its traceback through a finally block. */
  g_assert_false (run_script ("def g():\n    return [][0]\ntry:\n    g()\nfinally:\n"
                              "    print('fin')\n", NULL, &r));
  g_assert_cmpstr (r.out, ==, "fin\n");
  g_assert_cmpstr (r.error->traceback, ==,
                   "Traceback (most recent call last):\n"
                   "  File \"demo.py\", line 4, in <module>\n"
                   "    g()\n"
                   "  File \"demo.py\", line 2, in g\n"
                   "    return [][0]\n"
                   "           ~~^^^\n"
                   "IndexError: list index out of range\n");
  run_clear (&r);

  g_assert_false (run_script ("try:\n    1 / 0\nexcept 3:\n    pass\n", NULL, &r));
  g_assert_cmpint (r.error->type, ==, CR_EXC_TYPE_ERROR);
  g_assert_cmpstr (r.error->message, ==,
                   "catching classes that do not inherit from BaseException is not allowed");
  run_clear (&r);
}

/* No way out of the sandbox: what a script could use to reach files,
 * processes or the interpreter itself does not exist. */
static void
test_sandbox (void)
{
  static const struct { const char *source; CrException type; const char *message; } cases[] = {
    { "import os", CR_EXC_MODULE_NOT_FOUND_ERROR, "No module named 'os'" },
    { "import subprocess as s", CR_EXC_MODULE_NOT_FOUND_ERROR, "No module named 'subprocess'" },
    { "from os.path import join", CR_EXC_MODULE_NOT_FOUND_ERROR, "No module named 'os'" },
    { "open('x')", CR_EXC_NAME_ERROR, "name 'open' is not defined" },
    { "eval('1')", CR_EXC_NAME_ERROR, "name 'eval' is not defined" },
    { "exec('1')", CR_EXC_NAME_ERROR, "name 'exec' is not defined" },
    { "__import__('os')", CR_EXC_NAME_ERROR, "name '__import__' is not defined" },
    { "input()", CR_EXC_NAME_ERROR, "name 'input' is not defined" },
    { "compile('1', 'f', 'exec')", CR_EXC_NAME_ERROR, "name 'compile' is not defined" },
    { "globals()", CR_EXC_NAME_ERROR, "name 'globals' is not defined" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Run r;
      g_assert_false (run_script (cases[i].source, NULL, &r));
      g_assert_cmpint (r.error->type, ==, cases[i].type);
      g_assert_cmpstr (r.error->message, ==, cases[i].message);
      run_clear (&r);
    }
  assert_output ("import math\nfrom math import sqrt\nprint(math.pi, sqrt(16.0), math.floor(-2.5))\n",
                 "3.141592653589793 4.0 -3\n");
}

static void
test_globals (void)
{
  Run r;
  g_assert_true (run_script ("x = 3\ny = [x, 'a']\ndef f():\n    z = 1\n    return z\n", NULL, &r));
  GHashTable *globals = cr_interp_get_globals (r.interp);
  CrValue *x = g_hash_table_lookup (globals, "x");
  g_assert_nonnull (x);
  g_assert_cmpint (x->kind, ==, CR_VALUE_INT);
  g_assert_cmpint (x->u.i, ==, 3);
  CrValue *y = g_hash_table_lookup (globals, "y");
  g_autofree char *repr = cr_value_repr (r.interp, y, NULL);
  g_assert_cmpstr (repr, ==, "[3, 'a']");
  g_assert_nonnull (g_hash_table_lookup (globals, "f"));
  g_assert_null (g_hash_table_lookup (globals, "z"));
  g_assert_null (g_hash_table_lookup (globals, "print"));
  run_clear (&r);

  assert_output ("if __name__ == '__main__':\n    print(__name__, __file__)\n", "__main__ demo.py\n");
}

static CrValue *
native_warn (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
             const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)
{
  cr_interp_warn (interp, "UserWarning", "careful");
  return cr_value_none ();
}

/* Python's default filter: once per call site. */
static void
test_warnings (void)
{
  LangTestCapture c = { g_string_new (NULL), g_string_new (NULL) };
  CrInterpOptions o = { .output = lang_test_capture, .output_data = &c };
  g_autoptr (CrAstModule) module = cr_parse ("for i in range(3):\n    warn_me()\nwarn_me()\n", -1,
                                             "/tmp/w.py", NULL, NULL);
  CrInterp *interp = cr_interp_new (&o);
  g_hash_table_insert (interp->builtins, g_strdup ("warn_me"),
                       cr_value_new_native ("warn_me", native_warn, NULL, NULL));
  g_assert_true (cr_interp_run (interp, module, NULL));
  g_assert_cmpstr (c.err->str, ==,
                   "/tmp/w.py:2: UserWarning: careful\n  warn_me()\n"
                   "/tmp/w.py:3: UserWarning: careful\n  warn_me()\n");
  cr_interp_free (interp);
  g_string_free (c.out, TRUE);
  g_string_free (c.err, TRUE);
}

/* ---- tensors ------------------------------------------------------------------------------------- */

static CrTensor *
global_tensor (CrInterp   *interp,
               const char *name)
{
  CrValue *v = g_hash_table_lookup (cr_interp_get_globals (interp), name);
  g_assert_nonnull (v);
  g_assert_cmpint (v->kind, ==, CR_VALUE_TENSOR);
  return v->u.tensor;
}

/* A tensor is named after the first variable a statement binds it to; a
 * def's parameters do not name it. */
static void
test_tensor_names (void)
{
  Run r;
  g_assert_true (run_script ("import torch\n"
                             "def twice(p):\n"
                             "    q = p * 2\n"
                             "    return q\n"
                             "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                             "alias = w\n"
                             "y = twice(torch.ones(2))\n"
                             "for row in torch.eye(2):\n"
                             "    last = row\n"
                             "a, (b, c) = torch.zeros(1), (torch.ones(1), 3)\n", NULL, &r));
  g_assert_cmpstr (cr_tensor_get_name (global_tensor (r.interp, "w")), ==, "w");
  g_assert_cmpstr (cr_tensor_get_name (global_tensor (r.interp, "alias")), ==, "w");
  g_assert_cmpstr (cr_tensor_get_name (global_tensor (r.interp, "y")), ==, "q");
  g_assert_cmpstr (cr_tensor_get_name (global_tensor (r.interp, "last")), ==, "row");
  g_assert_cmpstr (cr_tensor_get_name (global_tensor (r.interp, "b")), ==, "b");
  run_clear (&r);
}

/* The toy network of data/examples/01-toy-network.py. PyTorch's order of
 * execution, read with a post-hook on every node of L.grad_fn's graph:
 * SumBackward0, RsubBackward1, AddBackward0, MulBackward0, AccumulateGrad
 * (w4), MulBackward0, AccumulateGrad (w3), MulBackward0, AccumulateGrad (w2),
 * MulBackward0, AccumulateGrad (w1), AccumulateGrad (a). */
static void
test_backward_record (void)
{
  static const char *const expected[][2] = {
    { "SumBackward0", NULL }, { "RsubBackward1", NULL }, { "AddBackward0", NULL },
    { "MulBackward0", NULL }, { "AccumulateGrad", "w4" }, { "MulBackward0", NULL },
    { "AccumulateGrad", "w3" }, { "MulBackward0", NULL }, { "AccumulateGrad", "w2" },
    { "MulBackward0", NULL }, { "AccumulateGrad", "w1" }, { "AccumulateGrad", "a" },
  };
  CrInterpOptions o = { .record_backward = TRUE };
  Run r;
  gboolean ok = run_script ("import torch\n"
                            "a = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)\n"
                            "w1 = torch.tensor([[1.0, 2.0], [0.5, 0.5]], requires_grad=True)\n"
                            "w2 = torch.tensor([[0.25, -0.5], [1.0, -1.0]], requires_grad=True)\n"
                            "w3 = torch.tensor([[1.0, -1.0], [2.0, 0.5]], requires_grad=True)\n"
                            "w4 = torch.tensor([[-0.5, 1.0], [1.0, 1.0]], requires_grad=True)\n"
                            "b = w1 * a\n"
                            "c = w2 * a\n"
                            "d = w3 * b + w4 * c\n"
                            "L = (10 - d).sum()\n"
                            "L.backward()\n", &o, &r);
  if (!ok)
    g_printerr ("%s", r.error->traceback);
  g_assert_true (ok);
  g_autoptr (CrRunRecord) record = cr_interp_get_run_record (r.interp);
  g_assert_nonnull (record);
  g_assert_cmpuint (record->backwards->len, ==, 1);
  const CrRecordBackward *rec = g_ptr_array_index (record->backwards, 0);
  g_assert_true (rec->succeeded);
  g_assert_cmpint (rec->span.line, ==, 11);
  g_assert_cmpuint (rec->roots->len, ==, 1);
  g_assert_cmpuint (rec->steps->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < rec->steps->len; i++)
    {
      const CrRecordStep *s = rec->steps->pdata[i];
      g_assert_cmpuint (s->index, ==, i);
      g_assert_cmpstr (s->title, ==, expected[i][0]);
      if (expected[i][1])
        {
          g_assert_cmpint (s->kind, ==, CR_RECORD_STEP_ACCUMULATE);
          const CrRecordTensor *leaf = g_ptr_array_index (record->tensors, s->leaf);
          g_assert_cmpstr (leaf->label, ==, expected[i][1]);
          g_assert_null (s->grad_before);
          g_assert_nonnull (s->grad_after);
        }
    }
  /* Step 3 is d = w3 * b + w4 * c: its caption names the statement. */
  const CrRecordStep *add = rec->steps->pdata[2];
  g_assert_cmpstr (add->caption, ==, "d = w3 * b + w4 * c, line 9");
  run_clear (&r);
}

/* ---- a clean state for every run, and any stack size ----------------------------------------- */

static const char defaults_script[] =
  "import torch\n"
  "print(torch.is_grad_enabled())\n"
  "x = torch.ones(2, requires_grad=True)\n"
  "y = (x * 2).sum()\n"
  "y.backward()\n"
  "print(x.grad)\n"
  "h = x.register_hook(lambda g: g)\n"
  "print(h.id)\n"
  "print(torch.initial_seed(), torch.rand(3))\n";

static gpointer
run_defaults_script (gpointer data)
{
  Run r;
  g_assert_true (run_script (defaults_script, NULL, &r));
  char *out = g_strdup (r.out);
  run_clear (&r);
  return out;
}

static void
test_clean_state (void)
{
  /* The window runs one script after another on the same worker thread.
   * The first run changes what a script can change; the second sees what a
   * fresh thread sees, and what a fresh PyTorch process has: grad mode on,
   * handle ids from 0. (PyTorch seeds a fresh process from /dev/urandom; a
   * run starts from the 67280421310721 of PyTorch's sources, so that a
   * script shows the same numbers each time.) */
  g_autofree char *fresh = g_thread_join (g_thread_new ("fresh", run_defaults_script, NULL));
  g_assert_true (g_str_has_prefix (fresh, "True\ntensor([2., 2.])\n0\n67280421310721 tensor(["));
  Run r;
  gboolean ok = run_script ("import torch\n"
                            "torch.set_grad_enabled(False)\n"
                            "torch.manual_seed(5)\n"
                            "x = torch.ones(2, requires_grad=True)\n"
                            "h = x.register_hook(lambda g: g)\n"
                            "g = x.register_hook(lambda g: g)\n"
                            "print(torch.is_grad_enabled(), g.id)\n"
                            "print((x * 2).requires_grad)\n", NULL, &r);
  g_assert_true (ok);
  g_assert_cmpstr (r.out, ==, "False 1\nFalse\n");
  run_clear (&r);

  /* A run that stops inside `with torch.no_grad():` leaves nothing either. */
  gint cancel = 0;
  CrInterpOptions o = { .cancel_flag = &cancel };
  ok = run_script ("import torch\n"
                   "with torch.no_grad():\n"
                   "    raise KeyboardInterrupt\n", &o, &r);
  g_assert_false (ok);
  run_clear (&r);

  assert_output (defaults_script, fresh);
}

static gpointer
run_deep_scripts (gpointer data)
{
  gboolean *survived = data;
  Run r;

  assert_output ("def f(n):\n"
                 "    return f(n + 1) + 1\n"
                 "try:\n"
                 "    f(0)\n"
                 "except RecursionError as e:\n"
                 "    print('call', e)\n"
                 "a = []\n"
                 "b = []\n"
                 "for i in range(100000):\n"
                 "    a = [a]\n"
                 "    b = [b, 1]\n"
                 "try:\n"
                 "    repr(a)\n"
                 "except RecursionError as e:\n"
                 "    print('repr', e)\n"
                 "try:\n"
                 "    a < b\n"
                 "except RecursionError as e:\n"
                 "    print('compare', e)\n",
                 "call maximum recursion depth exceeded\n"
                 "repr maximum recursion depth exceeded while getting the repr of an object\n"
                 "compare maximum recursion depth exceeded in comparison\n");

  /* A tree thousands deep: evaluated, or a RecursionError (during
   * compilation on a small stack); never past the end of the stack. */
  GString *src = g_string_new ("x = 1");
  for (int i = 0; i < 2900; i++)
    g_string_append (src, "+1");
  g_string_append (src, "\nprint(x)\n");
  g_autoptr (GError) error = NULL;
  r = (Run) { 0 };
  r.module = cr_parse (src->str, -1, "demo.py", NULL, &error);
  if (r.module)
    {
      r.interp = cr_interp_new (NULL);
      if (!cr_interp_run (r.interp, r.module, &r.error))
        g_assert_cmpint (r.error->type, ==, CR_EXC_RECURSION_ERROR);
    }
  else
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR);
  run_clear (&r);
  g_string_free (src, TRUE);
  *survived = TRUE;
  return NULL;
}

static void
test_small_stack (void)
{
  /* The window runs scripts on a worker thread, and `ulimit -s 256` makes
   * every thread's stack small: RecursionError, never a SIGSEGV. */
  static const size_t sizes[] = { 8 * 1024 * 1024, 256 * 1024, 128 * 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      pthread_attr_t attr;
      pthread_t thread;
      gboolean survived = FALSE;

      g_assert_cmpint (pthread_attr_init (&attr), ==, 0);
      g_assert_cmpint (pthread_attr_setstacksize (&attr, sizes[i]), ==, 0);
      g_assert_cmpint (pthread_create (&thread, &attr, run_deep_scripts, &survived), ==, 0);
      g_assert_cmpint (pthread_join (thread, NULL), ==, 0);
      pthread_attr_destroy (&attr);
      g_assert_true (survived);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/interp/arithmetic", test_arithmetic);
  g_test_add_func ("/lang/interp/closures", test_closures);
  g_test_add_func ("/lang/interp/classes", test_classes);
  g_test_add_func ("/lang/interp/containers", test_containers);
  g_test_add_func ("/lang/interp/errors", test_errors);
  g_test_add_func ("/lang/interp/try", test_try);
  g_test_add_func ("/lang/interp/cancel-uncatchable", test_cancel_uncatchable);
  g_test_add_func ("/lang/interp/traceback", test_traceback);
  g_test_add_func ("/lang/interp/recursion", test_recursion);
  g_test_add_func ("/lang/interp/cancel", test_cancel);
  g_test_add_func ("/lang/interp/cancel-long-builtins", test_cancel_long_builtins);
  g_test_add_func ("/lang/interp/sandbox", test_sandbox);
  g_test_add_func ("/lang/interp/globals", test_globals);
  g_test_add_func ("/lang/interp/warnings", test_warnings);
  g_test_add_func ("/lang/interp/tensor-names", test_tensor_names);
  g_test_add_func ("/lang/interp/backward-record", test_backward_record);
  g_test_add_func ("/lang/interp/clean-state", test_clean_state);
  g_test_add_func ("/lang/interp/small-stack", test_small_stack);
  return g_test_run ();
}
