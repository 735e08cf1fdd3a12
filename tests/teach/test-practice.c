/* test-practice.c — predict, then reveal (core/teach/cr-practice.h): the
 * typed-answer reader, and the checker's verdicts (right, within tolerance,
 * wrong with the mistake named, wrong shape) on steps of the examples and
 * of broadcast, matmul, fan-in and accumulating scripts; every question of
 * every example's backward steps has choices with one right answer; the
 * forward pass's questions (what an op computes). */
#include "teach-test-util.h"
#include "cr-interp.h"
#include "cr-practice.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

static CrRunRecord *
record_example (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "examples",
                                                 name, NULL);
  g_autofree char *source = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  return teach_test_record_script (source, name);
}

/* The question of step `step` (call 0) asking `ask` about the input or
 * accumulation named `name` (its question name, "∂L/∂w4"). */
static CrPracticeQuestion *
find_call_question (const CrRunRecord *record,
                    int                call,
                    int                step,
                    CrPracticeLevel    level,
                    CrPracticeAsk      ask,
                    const char        *name,
                    GPtrArray        **keep)
{
  *keep = cr_practice_questions (record, call, step, level);
  for (guint i = 0; i < (*keep)->len; i++)
    {
      CrPracticeQuestion *q = g_ptr_array_index (*keep, i);
      if (q->ask == ask && g_strcmp0 (q->name, name) == 0)
        return q;
    }
  g_error ("step %d asks no %s", step, name);
  return NULL;
}

static CrPracticeQuestion *
find_question (const CrRunRecord *record,
               int                step,
               CrPracticeLevel    level,
               CrPracticeAsk      ask,
               const char        *name,
               GPtrArray        **keep)
{
  return find_call_question (record, 0, step, level, ask, name, keep);
}

/* The first step of backward call `call` titled title whose question list
 * holds name. */
static int
find_call_step (const CrRunRecord *record,
                int                call,
                const char        *title,
                const char        *name)
{
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, call);
  for (guint s = 0; s < bw->steps->len; s++)
    {
      const CrRecordStep *step = g_ptr_array_index (bw->steps, s);
      if (g_strcmp0 (step->title, title) != 0)
        continue;
      g_autoptr (GPtrArray) qs = cr_practice_questions (record, call, (int) s,
                                                        CR_PRACTICE_LEVEL_LOCAL);
      for (guint i = 0; i < qs->len; i++)
        if (g_strcmp0 (((CrPracticeQuestion *) qs->pdata[i])->name, name) == 0)
          return (int) s;
    }
  g_error ("no %s step of call %d asks %s", title, call, name);
  return -1;
}

static int
find_step (const CrRunRecord *record,
           const char        *title,
           const char        *name)
{
  return find_call_step (record, 0, title, name);
}

/* The expected answer as typed text, each entry times scale plus shift. */
static char *
answer_text (const CrPracticeQuestion *q,
             double                    scale,
             double                    shift)
{
  const CrTensorSnapshot *e = q->expected;
  g_autofree double *v = g_new (double, e->numel);
  for (gint64 i = 0; i < e->numel; i++)
    v[i] = e->values[i] * scale + shift;
  return cr_practice_values_text (v, e->shape, e->ndim);
}

static CrPracticeVerdict *
check (const CrPracticeQuestion *q,
       const char               *typed,
       CrPracticeVerdictKind     kind,
       CrPracticeMistake         mistake)
{
  CrPracticeVerdict *v = cr_practice_check (q, typed);
  g_test_message ("%s ← %s: %s %s", q->name, typed, v->headline, v->why);
  if (v->kind != kind || v->mistake != mistake)
    g_error ("%s ← %s: verdict %d mistake %d, expected %d and %d (%s)", q->name, typed,
             v->kind, v->mistake, kind, mistake, v->why);
  g_assert_nonnull (v->why);
  g_assert_nonnull (v->answer);
  return v;
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (!strstr (text, part))
    g_error ("«%s» does not say «%s»", text, part);
}

/* ---- the reader ------------------------------------------------------- */

static void
assert_parsed (const char   *text,
               int           ndim,
               const gint64 *shape,
               const double *values,
               guint         n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPracticeAnswer) a = cr_practice_answer_parse (text, &error);
  g_assert_no_error (error);
  g_assert_nonnull (a);
  if (a->ndim != ndim)
    g_error ("%s: ndim %d, expected %d", text, a->ndim, ndim);
  for (int d = 0; d < ndim; d++)
    g_assert_cmpint (a->shape[d], ==, shape[d]);
  g_assert_cmpuint (a->values->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (g_array_index (a->values, double, i), values[i], 1e-12);
}

static void
test_parse (void)
{
  static const gint64 s22[] = { 2, 2 }, s4[] = { 4 }, s1[] = { 1 }, s3[] = { 3 };
  static const double v1234[] = { 1, 2, 3, 4 };
  assert_parsed ("2.5", 0, NULL, (double[]) { 2.5 }, 1);
  assert_parsed ("  -1/3 ", 0, NULL, (double[]) { -1.0 / 3 }, 1);
  assert_parsed ("\xe2\x88\x92" "0.5", 0, NULL, (double[]) { -0.5 }, 1);
  assert_parsed ("1e-3", 0, NULL, (double[]) { 1e-3 }, 1);
  assert_parsed ("1 2 3 4", 1, s4, v1234, 4);
  assert_parsed ("1, 2, 3, 4", 1, s4, v1234, 4);
  assert_parsed ("[1, 2, 3, 4]", 1, s4, v1234, 4);
  assert_parsed ("[5]", 1, s1, (double[]) { 5 }, 1);
  assert_parsed ("[1, 2; 3, 4]", 2, s22, v1234, 4);
  assert_parsed ("1 2; 3 4", 2, s22, v1234, 4);
  assert_parsed ("[[1, 2], [3, 4]]", 2, s22, v1234, 4);
  assert_parsed ("[[1., 2.],\n [3., 4.]]", 2, s22, v1234, 4);
  assert_parsed ("tensor([1., 2., 3.])", 1, s3, (double[]) { 1, 2, 3 }, 3);
  assert_parsed ("tensor([1., 2., 3.], grad_fn=<MulBackward0>)", 1, s3,
                 (double[]) { 1, 2, 3 }, 3);

  static const char *bad[] = { "", "abc", "[1, 2", "1, 2]", "[[1, 2], [3]]", "[1, 2; 3]",
                               "[1, [2]]", "1/0", "[]", "2/" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrPracticeAnswer) a = cr_practice_answer_parse (bad[i], &error);
      if (a)
        g_error ("«%s» was read", bad[i]);
      g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
      g_test_message ("%s: %s", bad[i], error->message);
    }
}

/* Random text over the reader's alphabet: read or refused, never more. */
static void
test_parse_random (void)
{
  static const char alphabet[] = "0123456789.,;[] -/e\n";
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);
  guint read = 0;
  for (guint i = 0; i < 20000; i++)
    {
      char text[40];
      guint n = (guint) g_rand_int_range (rand, 0, sizeof text);
      for (guint k = 0; k < n; k++)
        text[k] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      text[n] = '\0';
      g_autoptr (GError) error = NULL;
      g_autoptr (CrPracticeAnswer) a = cr_practice_answer_parse (text, &error);
      g_assert_true ((a != NULL) == (error == NULL));
      if (!a)
        continue;
      gint64 numel = 1;
      for (int d = 0; d < a->ndim; d++)
        numel *= a->shape[d];
      if (numel != a->values->len)
        g_error ("«%s»: shape of %" G_GINT64_FORMAT " entries, %u read", text, numel,
                 a->values->len);
      read++;
    }
  g_test_message ("%u of 20000 read", read);
}

/* ---- typed answers and their verdicts, a table ------------------------ */

#define BROADCAST_SCRIPT \
  "import torch\n" \
  "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n" \
  "b = torch.tensor([0.5, -1., 2.], requires_grad=True)\n" \
  "y = (x * b).sum()\n" \
  "y.backward()\n"

#define MATMUL_SCRIPT \
  "import torch\n" \
  "W = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n" \
  "x = torch.tensor([[1., -1.], [2., 0.5], [0., 1.]], requires_grad=True)\n" \
  "y = (W @ x).sum()\n" \
  "y.backward()\n"

#define TWICE_SCRIPT \
  "import torch\n" \
  "w = torch.tensor([1., 2.], requires_grad=True)\n" \
  "(w * 3).sum().backward()\n" \
  "(w * w).sum().backward()\n"

#define FORWARD_SCRIPT \
  "import torch\n" \
  "a = torch.tensor(2.0, requires_grad=True)\n" \
  "b = torch.tensor(-3.0, requires_grad=True)\n" \
  "c = a * b\n" \
  "w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n" \
  "x = torch.tensor([[0.5], [-1.0]])\n" \
  "y = w @ x\n" \
  "big = torch.ones(100, requires_grad=True) * 2\n" \
  "L = c + y.sum() + big.sum()\n" \
  "L.backward()\n"

/* A typed answer, the verdict it gets and a phrase its why holds (NULL:
 * any). */
typedef struct {
  const char            *typed;
  CrPracticeVerdictKind  kind;
  CrPracticeMistake      mistake;
  const char            *says;
} TypedCase;

/* One question of a script (or an example) and answers typed to it. */
typedef struct {
  const char    *test;        /* the test's name under /practice/verdicts/ */
  const char    *example;     /* an example of data/examples, or NULL: */
  const char    *script;
  int            call;        /* the backward call; -1: a forward op's question */
  const char    *step_title;  /* the step asking it ("MulBackward0") */
  CrPracticeAsk  ask;
  const char    *question;    /* its name ("∂y/∂b"; a forward op's output) */
  TypedCase      cases[6];    /* up to the first NULL typed */
} QuestionCase;

static const QuestionCase question_cases[] = {
  /* d = w3 * b + w4 * c: step MulBackward0 of w4 * c sends ∂L/∂w4 = −c. */
  { "toy-network", "01-toy-network.py", NULL, 0, "MulBackward0", CR_PRACTICE_ASK_SENT, "∂L/∂w4", {
      /* The incoming gradient is all −1: passing it on forgets the product. */
      { "-1 -1 -1 -1 -1 -1 -1 -1 -1", CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_NO_PRODUCT,
        "passed on unchanged" },
      /* ∂(w4·c)/∂w4 is c; multiplying by w4 itself (∂/∂c's local) is the
       * classic rule error: −w4. */
      { "[0.5, -1, -2; -1, -1, -0.25; -2, 1, -0.5]", CR_PRACTICE_WRONG,
        CR_PRACTICE_MISTAKE_OTHER_LOCAL, "∂(w4 * c)/∂c" },
      { "[1, 2; 3, 4]", CR_PRACTICE_WRONG_SHAPE, CR_PRACTICE_MISTAKE_NONE, "shape 3×3 (9 entries)" },
      { "minus c", CR_PRACTICE_UNREADABLE, CR_PRACTICE_MISTAKE_NONE, NULL },
    } },
  /* b (shape 3) broadcast over x's rows: its gradient sums over dim 0. */
  { "broadcast", NULL, BROADCAST_SCRIPT, 0, "MulBackward0", CR_PRACTICE_ASK_SENT, "∂y/∂b", {
      { "5 7 9", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, "summed over dim 0 to b's shape 3" },
      { "[1, 2, 3; 4, 5, 6]", CR_PRACTICE_WRONG_SHAPE, CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM,
        "forgot the broadcast sum" },
      { "[1, 2, 3; 4, 5, 6]", CR_PRACTICE_WRONG_SHAPE, CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM,
        "summed over dim 0 to b's shape 3" },
      { "2.5 3.5 4.5", CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_MEAN_NOT_SUM, NULL },
      { "1 2 3 4", CR_PRACTICE_WRONG_SHAPE, CR_PRACTICE_MISTAKE_NONE, "summed over dim 0" },
    } },
  /* x's gradient is b spread over its rows, not broadcast-summed. */
  { "broadcast-x", NULL, BROADCAST_SCRIPT, 0, "MulBackward0", CR_PRACTICE_ASK_SENT, "∂y/∂x", {
      { "[[0.5, -1, 2], [0.5, -1, 2]]", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, NULL },
    } },
  /* W @ x: a rule, no elementwise local gradient; the transpose is a
   * mistake. ∂L/∂W = G·xᵀ with G all ones: every row is x's row sums. */
  { "matmul", NULL, MATMUL_SCRIPT, 0, "MmBackward0", CR_PRACTICE_ASK_SENT, "∂y/∂W", {
      { "[0, 2.5, 1; 0, 2.5, 1]", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE,
        "The rule of MmBackward0" },
      { "[0, 0; 2.5, 2.5; 1, 1]", CR_PRACTICE_WRONG_SHAPE, CR_PRACTICE_MISTAKE_TRANSPOSED,
        "transposed" },
      { "0 2.5 1 0 2.5 1", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, NULL },
    } },
  /* A second backward call adds to .grad: the new gradient alone is wrong. */
  { "accumulate", NULL, TWICE_SCRIPT, 1, "AccumulateGrad", CR_PRACTICE_ASK_LEAF_GRAD, "w.grad", {
      { "2 4", CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_GRAD_BEFORE, "already held [3, 3]" },
      { "5 7", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, NULL },
    } },
  /* A forward op asks what it computes: a scalar, */
  { "forward-scalar", NULL, FORWARD_SCRIPT, -1, NULL, CR_PRACTICE_ASK_FORWARD, "c", {
      { "-6", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, "2 × (-3) = -6" },
      { "-6.001", CR_PRACTICE_CLOSE, CR_PRACTICE_MISTAKE_NONE, NULL },
      { "6", CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_SIGN, "sign" },
    } },
  /* and a small tensor: [[1, 2], [3, 4]] @ [[0.5], [-1]] = [[-1.5], [-2.5]]. */
  { "forward-tensor", NULL, FORWARD_SCRIPT, -1, NULL, CR_PRACTICE_ASK_FORWARD, "y", {
      { "[-1.5; -2.5]", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, NULL },
      { "-1.5 -2.5", CR_PRACTICE_RIGHT, CR_PRACTICE_MISTAKE_NONE, NULL },
      { "[1.5; 2.5]", CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_SIGN, NULL },
    } },
};

/* The forward question about the op whose output is named name. */
static CrPracticeQuestion *
find_forward_question (const CrRunRecord *record,
                       const char        *name,
                       GPtrArray        **keep)
{
  for (guint op = 0; op < record->ops->len; op++)
    {
      g_autoptr (GPtrArray) qs = cr_practice_forward_questions (record, (int) op);
      for (guint i = 0; i < qs->len; i++)
        {
          CrPracticeQuestion *q = g_ptr_array_index (qs, i);
          if (g_strcmp0 (q->name, name) == 0)
            {
              *keep = g_steal_pointer (&qs);
              return q;
            }
        }
    }
  g_error ("no forward op asks %s", name);
  return NULL;
}

static void
test_question_case (gconstpointer data)
{
  const QuestionCase *qc = data;
  g_autoptr (CrRunRecord) record = qc->example ? record_example (qc->example)
                                               : teach_test_record_script (qc->script, "case.py");
  g_autoptr (GPtrArray) keep = NULL;
  CrPracticeQuestion *q;
  if (qc->call < 0)
    q = find_forward_question (record, qc->question, &keep);
  else
    {
      int step = find_call_step (record, qc->call, qc->step_title, qc->question);
      q = find_call_question (record, qc->call, step, CR_PRACTICE_LEVEL_SENT, qc->ask,
                              qc->question, &keep);
    }
  g_assert_cmpint (q->ask, ==, qc->ask);
  for (guint i = 0; i < G_N_ELEMENTS (qc->cases) && qc->cases[i].typed; i++)
    {
      const TypedCase *tc = &qc->cases[i];
      g_autoptr (CrPracticeVerdict) v = check (q, tc->typed, tc->kind, tc->mistake);
      if (tc->says)
        assert_contains (v->why, tc->says);
    }
}

/* ---- verdicts on the toy network (example 01) --------------------------- */

static void
test_toy_network (void)
{
  g_autoptr (CrRunRecord) record = record_example ("01-toy-network.py");
  /* d = w3 * b + w4 * c: step MulBackward0 of w4 * c sends ∂L/∂w4 = −c. */
  int step = find_step (record, "MulBackward0", "∂L/∂w4");
  g_autoptr (GPtrArray) keep = NULL;
  CrPracticeQuestion *q = find_question (record, step, CR_PRACTICE_LEVEL_SENT,
                                         CR_PRACTICE_ASK_SENT, "∂L/∂w4", &keep);
  g_assert_cmpint (q->expected->numel, ==, 9);
  g_assert_nonnull (strstr (q->prompt, "w4"));

  g_autofree char *exact = answer_text (q, 1, 0);
  g_autoptr (CrPracticeVerdict) right = check (q, exact, CR_PRACTICE_RIGHT,
                                               CR_PRACTICE_MISTAKE_NONE);
  g_assert_true (cr_practice_verdict_is_right (right));
  assert_contains (right->why, "∂L/∂w4 = ∂L/∂(w4 * c) × ∂(w4 * c)/∂w4");
  assert_contains (right->why, "∂(a·b)/∂a = b");

  /* Entries alone, row-major, with 4 significant digits: within tolerance. */
  g_autofree char *close = answer_text (q, 1.0004, 0);
  g_autoptr (CrPracticeVerdict) near = check (q, close, CR_PRACTICE_CLOSE,
                                              CR_PRACTICE_MISTAKE_NONE);
  g_assert_true (cr_practice_verdict_is_right (near));
  g_assert_cmpfloat (near->max_error, >, 0);
  g_autofree char *far = answer_text (q, 1.01, 0);
  g_autoptr (CrPracticeVerdict) off = check (q, far, CR_PRACTICE_WRONG, CR_PRACTICE_MISTAKE_NONE);
  assert_contains (off->why, "should be");
  g_assert_false (cr_practice_verdict_is_right (off));

  g_autofree char *flipped = answer_text (q, -1, 0);
  g_autoptr (CrPracticeVerdict) sign = check (q, flipped, CR_PRACTICE_WRONG,
                                              CR_PRACTICE_MISTAKE_SIGN);
  assert_contains (sign->why, "sign");

  /* L = (10 - d).sum(): its first step sends ones; one number for them all. */
  g_autoptr (GPtrArray) first = cr_practice_questions (record, 0, 0, CR_PRACTICE_LEVEL_SENT);
  g_assert_cmpuint (first->len, ==, 1);
  g_autoptr (CrPracticeVerdict) ones = check (first->pdata[0], "1", CR_PRACTICE_RIGHT,
                                              CR_PRACTICE_MISTAKE_NONE);
  assert_contains (ones->why, "Every one of its 9 entries is 1.");
  /* RsubBackward1: ∂(10 − d)/∂d = −1; the sign is the lesson. */
  g_autoptr (GPtrArray) second = cr_practice_questions (record, 0, 1, CR_PRACTICE_LEVEL_SENT);
  g_autoptr (CrPracticeVerdict) rsub = check (second->pdata[0], "1", CR_PRACTICE_WRONG,
                                              CR_PRACTICE_MISTAKE_SIGN);
  g_autoptr (CrPracticeVerdict) rsub_right = check (second->pdata[0], "-1", CR_PRACTICE_RIGHT,
                                                    CR_PRACTICE_MISTAKE_NONE);
}

/* The harder level asks the local gradient first. */
static void
test_local_level (void)
{
  g_autoptr (CrRunRecord) record = record_example ("01-toy-network.py");
  int step = find_step (record, "MulBackward0", "∂L/∂w4");
  g_autoptr (GPtrArray) qs = cr_practice_questions (record, 0, step, CR_PRACTICE_LEVEL_LOCAL);
  g_assert_cmpuint (qs->len, ==, 4);
  const CrPracticeQuestion *local = qs->pdata[0], *sent = qs->pdata[1];
  g_assert_cmpint (local->ask, ==, CR_PRACTICE_ASK_LOCAL);
  g_assert_cmpstr (local->name, ==, "∂(w4 * c)/∂w4");
  g_assert_cmpint (sent->ask, ==, CR_PRACTICE_ASK_SENT);
  g_autofree char *exact = answer_text (local, 1, 0);
  g_autoptr (CrPracticeVerdict) right = check (local, exact, CR_PRACTICE_RIGHT,
                                               CR_PRACTICE_MISTAKE_NONE);
  assert_contains (right->why, "by the rule ∂(a·b)/∂a = b");
  /* The product (incoming −1 times c) given as the local gradient. */
  g_autofree char *product = answer_text (local, -1, 0);
  g_autoptr (CrPracticeVerdict) as_product = cr_practice_check (local, product);
  g_assert_cmpint (as_product->kind, ==, CR_PRACTICE_WRONG);
  g_assert_true (as_product->mistake == CR_PRACTICE_MISTAKE_PRODUCT_AS_LOCAL
                 || as_product->mistake == CR_PRACTICE_MISTAKE_SIGN);
}

/* a feeds b = w1*a and c = w2*a: the second of its steps adds the paths. */
static void
test_fan_in (void)
{
  g_autoptr (CrRunRecord) record = record_example ("01-toy-network.py");
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 0);
  int step = -1;
  for (guint s = 0; s < bw->steps->len && step < 0; s++)
    {
      const CrRecordStep *st = g_ptr_array_index (bw->steps, s);
      if (st->accumulations && st->accumulations->len > 0)
        step = (int) s;
    }
  g_assert_cmpint (step, >=, 0);
  g_autoptr (GPtrArray) keep = NULL;
  CrPracticeQuestion *q = find_question (record, step, CR_PRACTICE_LEVEL_SENT,
                                         CR_PRACTICE_ASK_FAN_IN, "∂L/∂a", &keep);
  const CrRecordStep *st = g_ptr_array_index (bw->steps, step);
  const CrRecordAccumulation *acc = g_ptr_array_index (st->accumulations, 0);
  const CrTensorSnapshot *c = acc->contribution;
  g_autofree char *one_path = cr_practice_values_text (c->values, c->shape, c->ndim);
  g_autoptr (CrPracticeVerdict) v = check (q, one_path, CR_PRACTICE_WRONG,
                                           CR_PRACTICE_MISTAKE_ONE_PATH);
  assert_contains (v->why, "add");
  g_autofree char *exact = answer_text (q, 1, 0);
  g_autoptr (CrPracticeVerdict) right = check (q, exact, CR_PRACTICE_RIGHT,
                                               CR_PRACTICE_MISTAKE_NONE);
  /* The leaf's AccumulateGrad: a.grad is the sum; one path alone is wrong. */
  for (guint s = step + 1; s < bw->steps->len; s++)
    {
      const CrRecordStep *acc_step = g_ptr_array_index (bw->steps, s);
      if (acc_step->kind != CR_RECORD_STEP_ACCUMULATE || acc_step->leaf != acc->tensor)
        continue;
      g_autoptr (GPtrArray) leaf_keep = NULL;
      CrPracticeQuestion *leaf_q = find_question (record, (int) s, CR_PRACTICE_LEVEL_SENT,
                                                  CR_PRACTICE_ASK_LEAF_GRAD, "a.grad",
                                                  &leaf_keep);
      g_autoptr (CrPracticeVerdict) lv = check (leaf_q, one_path, CR_PRACTICE_WRONG,
                                                CR_PRACTICE_MISTAKE_ONE_PATH);
      return;
    }
  g_error ("no AccumulateGrad step for a");
}

/* b (shape 3) broadcast over x's rows: its gradient sums over dim 0. */
static void
test_broadcast (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (BROADCAST_SCRIPT, "broadcast.py");
  int step = find_step (record, "MulBackward0", "∂y/∂b");
  g_autoptr (GPtrArray) keep = NULL;
  CrPracticeQuestion *q = find_question (record, step, CR_PRACTICE_LEVEL_SENT,
                                         CR_PRACTICE_ASK_SENT, "∂y/∂b", &keep);
  /* Whatever is typed gets a verdict that says why. */
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  static const char alphabet[] = "0123456789.;[] -";
  for (guint i = 0; i < 3000; i++)
    {
      char text[24];
      guint n = (guint) g_rand_int_range (rand, 1, sizeof text);
      for (guint k = 0; k < n; k++)
        text[k] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      text[n] = '\0';
      g_autoptr (CrPracticeVerdict) v = cr_practice_check (q, text);
      g_assert_nonnull (v->headline);
      g_assert_true (v->why && *v->why);
    }

  /* A choice built from the forgotten sum says so. */
  gboolean found = FALSE;
  for (guint i = 0; i < q->choices->len; i++)
    {
      const CrPracticeChoice *c = g_ptr_array_index (q->choices, i);
      if (c->mistake != CR_PRACTICE_MISTAKE_NO_BROADCAST_SUM)
        continue;
      g_autoptr (CrPracticeVerdict) cv = cr_practice_check_choice (q, i);
      g_assert_cmpint (cv->kind, ==, CR_PRACTICE_WRONG_SHAPE);
      assert_contains (cv->why, "forgot the broadcast sum");
      found = TRUE;
    }
  g_assert_true (found);
}

/* Every question of every example's steps: 3 to 5 distinct choices, one
 * right; picking it is right, picking another is not; typing the answer's
 * own text is right. */
/* 3 to 5 distinct choices, one right; typing the right one's text is right. */
static void
assert_choices (const CrPracticeQuestion *q)
{
  g_assert_cmpuint (q->choices->len, >=, 3);
  g_assert_cmpuint (q->choices->len, <=, 5);
  guint n_right = 0;
  for (guint c = 0; c < q->choices->len; c++)
    {
      const CrPracticeChoice *choice = q->choices->pdata[c];
      g_autoptr (CrPracticeVerdict) v = cr_practice_check_choice (q, c);
      g_assert_true (cr_practice_verdict_is_right (v) == choice->right);
      n_right += choice->right;
      for (guint o = 0; o < c; o++)
        g_assert_cmpstr (choice->text, !=, ((CrPracticeChoice *) q->choices->pdata[o])->text);
      g_autoptr (CrPracticeVerdict) typed = cr_practice_check (q, choice->text);
      if (choice->right)
        g_assert_true (cr_practice_verdict_is_right (typed));
    }
  g_assert_cmpuint (n_right, ==, 1);
}

static void
test_examples_choices (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "data", "examples",
                                                NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint questions = 0, forward = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autoptr (CrRunRecord) record = record_example (name);
      for (guint b = 0; b < record->backwards->len; b++)
        {
          const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
          for (guint s = 0; s < bw->steps->len; s++)
            for (int level = 0; level < 2; level++)
              {
                g_autoptr (GPtrArray) qs = cr_practice_questions (record, (int) b, (int) s,
                                                                  level);
                for (guint i = 0; i < qs->len; i++)
                  assert_choices (qs->pdata[i]);
                questions += qs->len;
              }
        }
      /* The forward pass's questions too. */
      for (guint op = 0; op < record->ops->len; op++)
        {
          g_autoptr (GPtrArray) qs = cr_practice_forward_questions (record, (int) op);
          for (guint i = 0; i < qs->len; i++)
            assert_choices (qs->pdata[i]);
          forward += qs->len;
        }
    }
  g_test_message ("%u questions, %u forward", questions, forward);
  g_assert_cmpuint (questions, >, 100);
  g_assert_cmpuint (forward, >, 30);
}

/* ---- forward steps ---------------------------------------------------- */

/* A forward op asks what it computes: a scalar and a small tensor, right,
 * within tolerance, sign flipped, wrong shape; choices with one right. */
static void
test_forward (void)
{
  g_autoptr (CrRunRecord) record = teach_test_record_script (FORWARD_SCRIPT, "forward.py");
  guint asked = 0;
  gboolean saw_c = FALSE, saw_y = FALSE;
  for (guint i = 0; i < record->ops->len; i++)
    {
      g_autoptr (GPtrArray) qs = cr_practice_forward_questions (record, (int) i);
      g_assert_cmpuint (qs->len, <=, 1);
      if (qs->len == 0)
        continue;
      asked++;
      const CrPracticeQuestion *q = g_ptr_array_index (qs, 0);
      g_assert_cmpint (q->ask, ==, CR_PRACTICE_ASK_FORWARD);
      g_assert_cmpint (q->backward, ==, -1);
      g_assert_cmpint (q->step, ==, (int) i);
      g_assert_cmpuint (q->expected->numel, <=, 64);
      guint right = 0;
      for (guint k = 0; k < q->choices->len; k++)
        {
          const CrPracticeChoice *choice = g_ptr_array_index (q->choices, k);
          right += choice->right;
          g_autoptr (CrPracticeVerdict) v = cr_practice_check_choice (q, k);
          g_assert_cmpint (cr_practice_verdict_is_right (v), ==, choice->right);
        }
      g_assert_cmpuint (right, ==, 1);
      g_assert_cmpuint (q->choices->len, >=, 3);
      saw_c |= g_strcmp0 (q->name, "c") == 0;
      saw_y |= g_strcmp0 (q->name, "y") == 0;
      if (g_strcmp0 (q->name, "c") == 0)
        {
          g_assert_cmpstr (q->prompt, ==, "What is c = a * b?");
          g_autoptr (CrPracticeVerdict) shape = cr_practice_check (q, "1 2");
          g_assert_cmpint (shape->kind, ==, CR_PRACTICE_WRONG_SHAPE);
        }
      /* The 100-entry result is not asked. */
      g_assert_cmpuint (q->expected->numel, <, 100);
    }
  g_assert_true (saw_c);
  g_assert_true (saw_y);
  /* c, y, y.sum(), c + y.sum(), big.sum() and the last + (not the 100-entry
   * product, whose result is too big to type). */
  g_assert_cmpuint (asked, >=, 4);
  /* Out of range: none. */
  g_autoptr (GPtrArray) none = cr_practice_forward_questions (record, -1);
  g_assert_cmpuint (none->len, ==, 0);
  g_autoptr (GPtrArray) past = cr_practice_forward_questions (record, (int) record->ops->len);
  g_assert_cmpuint (past->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/practice/parse", test_parse);
  g_test_add_func ("/practice/parse-random", test_parse_random);
  g_test_add_func ("/practice/toy-network", test_toy_network);
  g_test_add_func ("/practice/local-level", test_local_level);
  g_test_add_func ("/practice/fan-in", test_fan_in);
  g_test_add_func ("/practice/broadcast", test_broadcast);
  g_test_add_func ("/practice/examples-choices", test_examples_choices);
  g_test_add_func ("/practice/forward", test_forward);
  for (guint i = 0; i < G_N_ELEMENTS (question_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/practice/verdicts/%s", question_cases[i].test);
      g_test_add_data_func (path, &question_cases[i], test_question_case);
    }
  return g_test_run ();
}
