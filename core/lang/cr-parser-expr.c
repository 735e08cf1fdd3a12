/* cr-parser-expr.c — expressions: Python 3.11's precedence, calls,
 * subscripts, displays, comprehensions, lambda and def parameters, strings
 * and f-strings.
 *
 * Node spans follow Python's ast: a node starts at the first token of its
 * rule (so `(a + b) * c` starts at the parenthesis) and ends at the last
 * token consumed; a parenthesized expression keeps its own, inner span.
 */
#include "cr-parser-private.h"

#include <string.h>

static CrAstNode *atom          (CrParser *p);
static CrAstNode *factor        (CrParser *p);
static CrAstNode *lambda_expr   (CrParser *p);
static CrAstNode *comprehension (CrParser  *p,
                                 CrAstNode *elt,
                                 gboolean   is_generator,
                                 CrSpan     start);

gboolean
cr_parser_can_start_expression (CrTokKind kind)
{
  switch (kind)
    {
    case CR_TOK_NAME:
    case CR_TOK_NUMBER:
    case CR_TOK_STRING:
    case CR_TOK_LPAR:
    case CR_TOK_LSQB:
    case CR_TOK_LBRACE:
    case CR_TOK_MINUS:
    case CR_TOK_PLUS:
    case CR_TOK_TILDE:
    case CR_TOK_KW_NOT:
    case CR_TOK_KW_LAMBDA:
    case CR_TOK_KW_AWAIT:
    case CR_TOK_KW_TRUE:
    case CR_TOK_KW_FALSE:
    case CR_TOK_KW_NONE:
    case CR_TOK_ELLIPSIS:
      return TRUE;
    default:
      return FALSE;
    }
}

/* ---- trial parses (second pass only) ----
 *
 * Some of Python's invalid_* rules look ahead: "is there an expression
 * after this one?" A trial parses, then puts everything back, except an
 * error with a message (a tokenizer error there stops everything, as in
 * Python). */
typedef struct {
  guint    pos;
  guint    stack_len;
  guint    params_len;
  guint    keywords_len;
  guint    cmpops_len;
  gboolean invalid_rules;
} Trial;

static void
trial_begin (CrParser *p,
             Trial    *t,
             gboolean  invalid_rules)
{
  t->pos = p->pos;
  t->stack_len = p->stack->len;
  t->params_len = p->params->len;
  t->keywords_len = p->keywords->len;
  t->cmpops_len = p->cmpops->len;
  t->invalid_rules = p->invalid_rules;
  p->invalid_rules = invalid_rules;
}

/* TRUE when the trial parsed; the position is put back unless keep. */
static gboolean
trial_end (CrParser *p,
           Trial    *t,
           gboolean  keep)
{
  gboolean ok = !p->failed;

  p->invalid_rules = t->invalid_rules;
  if (!ok && !p->raised)
    p->failed = FALSE;
  if (!ok || !keep)
    {
      p->pos = t->pos;
      g_ptr_array_set_size (p->stack, t->stack_len);
      g_array_set_size (p->params, t->params_len);
      g_array_set_size (p->keywords, t->keywords_len);
      g_array_set_size (p->cmpops, t->cmpops_len);
    }
  return ok;
}

/* PEG backtracking. Python's parser, when an optional continuation fails
 * (the right operand of `a + (c d)`, the arguments of `f(c d)`), keeps what
 * it had; in the second pass that decides which invalid_* rule matches next
 * ("expected 'else' after 'if' expression" for `a if f(c d) else b`). The
 * first pass only needs the furthest token, so it just fails. */
static gboolean
backtrack (CrParser *p,
           Trial    *t)
{
  if (!p->invalid_rules || p->raised || !p->failed)
    return FALSE;
  p->failed = FALSE;
  trial_end (p, t, FALSE);
  return TRUE;
}

/* ---- small nodes ---- */

static CrAstNode *
binop_node (CrParser  *p,
            CrBinOp    op,
            CrAstNode *left,
            CrAstNode *right,
            CrSpan     start)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_BINOP, cr_parser_span_from (p, start));

  node->u.binop.op = op;
  node->u.binop.left = left;
  node->u.binop.right = right;
  cr_parser_child (p, node, left);
  cr_parser_child (p, node, right);
  return node;
}

static CrAstNode *
starred_node (CrParser  *p,
              CrAstNode *value,
              CrSpan     start)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_STARRED, cr_parser_span_from (p, start));

  node->u.starred.value = value;
  cr_parser_child (p, node, value);
  return node;
}

static CrAstNode *
constant_node (CrParser    *p,
               CrConstKind  kind,
               CrSpan       span)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_CONSTANT, span);

  node->u.constant.kind = kind;
  return node;
}

static CrAstNode *
str_node (CrParser   *p,
          const char *s,
          gsize       len,
          CrSpan      span)
{
  CrAstNode *node = constant_node (p, CR_CONST_STR, span);

  node->u.constant.s = cr_arena_strndup (p->arena, s, len);
  node->u.constant.s_len = len;
  return node;
}

static gboolean
token_is_name (CrParser      *p,
               const CrToken *t,
               const char    *name)
{
  gsize len = strlen (name);

  return t->kind == CR_TOK_NAME && t->end - t->start == len &&
         memcmp (p->src + t->start, name, len) == 0;
}

/* ---- the second pass's invalid_* checks ---- */

/* CPython 3.11's SOFT_KEYWORD test compares only as many characters as the
 * NAME has, so "c", "ma" and "_" count as soft keywords ("case", "match"):
 * `(c d)` gets no "Perhaps you forgot a comma?", and neither does it here. */
static gboolean
is_soft_keyword (CrParser      *p,
                 const CrToken *t)
{
  static const char *const soft[] = { "_", "case", "match" };
  gsize len = t->end - t->start;

  if (t->kind != CR_TOK_NAME)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (soft); i++)
    if (strncmp (soft[i], p->src + t->start, len) == 0 && len <= strlen (soft[i]))
      return TRUE;
  return FALSE;
}

/* Is e something Python's bitwise_or rule produces by itself? */
static gboolean
is_bitwise_or_level (const CrAstNode *e)
{
  switch (e->kind)
    {
    case CR_AST_COMPARE:
    case CR_AST_BOOLOP:
    case CR_AST_IFEXP:
    case CR_AST_LAMBDA:
    case CR_AST_STARRED:
      return FALSE;
    case CR_AST_UNARYOP:
      return e->u.unaryop.op != CR_UNOP_NOT;
    default:
      return TRUE;
    }
}

static gboolean
same_start (const CrAstNode *e,
            const CrToken   *t)
{
  return e->span.line == t->span.line && e->span.column == t->span.column;
}

/* Python's !(list | tuple | genexp | 'True' | 'None' | 'False') at the
 * start of a. */
static gboolean
starts_with_display (CrParser        *p,
                     const CrAstNode *a,
                     guint            start)
{
  const CrToken *t = &g_array_index (p->tokens, CrToken, start);
  const CrAstNode *e = a;

  if (t->kind == CR_TOK_KW_TRUE || t->kind == CR_TOK_KW_FALSE || t->kind == CR_TOK_KW_NONE)
    return TRUE;
  if (t->kind != CR_TOK_LSQB && t->kind != CR_TOK_LPAR)
    return FALSE;
  /* Down the left edge, to the node that the bracket opens. */
  while (e != NULL && same_start (e, t))
    {
      if (e->kind == CR_AST_LIST || e->kind == CR_AST_TUPLE ||
          (e->kind == CR_AST_LISTCOMP && e->u.comp.is_generator))
        return TRUE;
      switch (e->kind)
        {
        case CR_AST_BINOP: e = e->u.binop.left; break;
        case CR_AST_CALL: e = e->u.call.func; break;
        case CR_AST_ATTRIBUTE: e = e->u.attribute.value; break;
        case CR_AST_SUBSCRIPT: e = e->u.subscript.value; break;
        default: e = NULL; break;
        }
    }
  return FALSE;
}

/* The token index where node a starts (searching back from the current). */
static guint
start_token_of (CrParser        *p,
                const CrAstNode *a)
{
  for (guint i = p->pos; i-- > 0;)
    if (same_start (a, &g_array_index (p->tokens, CrToken, i)))
      return i;
  return G_MAXUINT;
}

/* Python's invalid_named_expression, with the current token on the '='
 * after a (a_start: a's first token, or G_MAXUINT to look it up). */
void
cr_parser_invalid_named (CrParser  *p,
                         CrAstNode *a,
                         guint      a_start)
{
  guint eq = p->pos;
  CrAstNode *b;
  Trial t;
  gboolean ok;

  if (CUR_KIND (p) != CR_TOK_EQUAL)
    return;
  if (a_start == G_MAXUINT)
    a_start = start_token_of (p, a);
  if (a_start == G_MAXUINT)
    return;

  if (a->kind == CR_AST_NAME && a_start + 1 == eq)
    {
      /* a=NAME '=' b=bitwise_or !('='|':=') */
      p->pos++;
      trial_begin (p, &t, p->invalid_rules);
      b = cr_parser_bitwise_or (p);
      ok = trial_end (p, &t, TRUE);
      if (ok && CUR_KIND (p) != CR_TOK_EQUAL && CUR_KIND (p) != CR_TOK_COLONEQUAL)
        cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (a->span, b->span),
                         "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
      if (!p->raised)
        p->pos = eq;
      return;
    }

  if (!is_bitwise_or_level (a) || starts_with_display (p, a, a_start))
    return;
  p->pos++;
  trial_begin (p, &t, p->invalid_rules);
  b = cr_parser_bitwise_or (p);
  ok = trial_end (p, &t, TRUE);
  if (ok && CUR_KIND (p) != CR_TOK_EQUAL && CUR_KIND (p) != CR_TOK_COLONEQUAL)
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, a->span,
                     "cannot assign to %s here. Maybe you meant '==' instead of '='?",
                     cr_parser_expr_name (a));
  if (!p->raised)
    p->pos = eq;
}

/* Python's invalid_expression and invalid_legacy_expression, after a
 * disjunction a that starts at token `start` and is not followed by 'if'. */
static void
invalid_expression (CrParser  *p,
                    CrAstNode *a,
                    guint      start)
{
  const CrToken *first = &g_array_index (p->tokens, CrToken, start);
  const CrToken *second;
  gboolean legacy;
  gboolean excluded;
  guint save = p->pos;
  CrAstNode *b;
  Trial t;

  if (!cr_parser_can_start_expression (CUR_KIND (p)))
    return;
  second = cr_parser_tok (p, start + 1);
  first = &g_array_index (p->tokens, CrToken, start);
  legacy = token_is_name (p, first, "print") || token_is_name (p, first, "exec");
  excluded = (first->kind == CR_TOK_NAME && second->kind == CR_TOK_STRING) ||
             is_soft_keyword (p, first);

  /* !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid */
  if (!excluded && !(legacy && a->kind == CR_AST_NAME))
    {
      trial_begin (p, &t, FALSE);
      b = cr_parser_expression (p);
      if (trial_end (p, &t, TRUE))
        {
          if (PREV (p)->level > 0)
            {
              cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (a->span, b->span),
                               "invalid syntax. Perhaps you forgot a comma?");
              return;
            }
          p->pos = save;
        }
      else if (p->raised)
        return;
    }

  /* a=NAME !'(' b=star_expressions: print "x" */
  if (legacy && second->kind != CR_TOK_LPAR)
    {
      CrSpan name_span = first->span;
      char *name = g_strndup (p->src + first->start, first->end - first->start);

      p->pos = start + 1;
      trial_begin (p, &t, FALSE);
      b = cr_parser_star_expressions (p);
      if (trial_end (p, &t, TRUE))
        cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (name_span, b->span),
                         "Missing parentheses in call to '%s'. Did you mean %s(...)?",
                         name, name);
      g_free (name);
      if (!p->raised)
        p->pos = save;
    }
}

/* ---- expressions ---- */

static CrAstNode *
expression_inner (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint start_pos = p->pos;
  CrAstNode *a, *b, *c, *node;
  Trial t;

  if (CUR_KIND (p) == CR_TOK_KW_LAMBDA)
    return lambda_expr (p);

  a = cr_parser_disjunction (p);
  if (a == NULL)
    return NULL;
  if (CUR_KIND (p) != CR_TOK_KW_IF)
    {
      if (p->invalid_rules)
        invalid_expression (p, a, start_pos);
      return p->raised ? NULL : a;
    }

  trial_begin (p, &t, p->invalid_rules);
  p->pos++;
  b = cr_parser_disjunction (p);
  if (b == NULL)
    return backtrack (p, &t) ? a : NULL;
  if (!cr_parser_accept (p, CR_TOK_KW_ELSE))
    {
      if (p->invalid_rules && CUR_KIND (p) != CR_TOK_COLON)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (a->span, b->span),
                                "expected 'else' after 'if' expression");
      cr_parser_fail (p);
      return backtrack (p, &t) ? a : NULL;
    }
  c = cr_parser_expression (p);
  if (c == NULL)
    return backtrack (p, &t) ? a : NULL;
  node = cr_parser_node (p, CR_AST_IFEXP, cr_parser_span_from (p, start));
  node->u.ifexp.test = b;
  node->u.ifexp.body = a;
  node->u.ifexp.orelse = c;
  cr_parser_child (p, node, a);
  cr_parser_child (p, node, b);
  cr_parser_child (p, node, c);
  return node;
}

CrAstNode *
cr_parser_expression (CrParser *p)
{
  CrAstNode *result;

  if (!cr_parser_enter (p))
    return NULL;
  result = expression_inner (p);
  cr_parser_leave (p);
  return result;
}

/* NAME ':=' expression (parsed, not supported) */
static CrAstNode *
walrus (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *value;

  p->pos += 2;
  value = cr_parser_expression (p);
  if (value == NULL)
    return NULL;
  cr_parser_unsupported (p, cr_parser_span_from (p, start),
                         "assignment expressions (':=') are");
  return value;
}

CrAstNode *
cr_parser_named_expression (CrParser *p)
{
  guint start = p->pos;
  CrAstNode *a;

  if (CUR_KIND (p) == CR_TOK_NAME && PEEK_KIND (p, 1) == CR_TOK_COLONEQUAL)
    return walrus (p);
  a = cr_parser_expression (p);
  if (a == NULL)
    return NULL;
  if (CUR_KIND (p) == CR_TOK_COLONEQUAL)
    {
      if (p->invalid_rules)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, a->span,
                                "cannot use assignment expressions with %s",
                                cr_parser_expr_name (a));
      return cr_parser_fail (p);
    }
  if (p->invalid_rules && CUR_KIND (p) == CR_TOK_EQUAL)
    {
      cr_parser_invalid_named (p, a, start);
      if (p->raised)
        return NULL;
    }
  return a;
}


/* inversion: 'not' inversion | comparison */
static CrAstNode *comparison (CrParser *p);

static CrAstNode *
inversion (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *operand, *node;

  if (CUR_KIND (p) != CR_TOK_KW_NOT)
    return comparison (p);
  if (!cr_parser_enter (p))
    return NULL;
  p->pos++;
  operand = inversion (p);
  cr_parser_leave (p);
  if (operand == NULL)
    return NULL;
  node = cr_parser_node (p, CR_AST_UNARYOP, cr_parser_span_from (p, start));
  node->u.unaryop.op = CR_UNOP_NOT;
  node->u.unaryop.operand = operand;
  cr_parser_child (p, node, operand);
  return node;
}

/* conjunction / disjunction: x ('and' x)+ as one BoolOp */
static CrAstNode *
boolop (CrParser *p,
        gboolean  is_and)
{
  CrSpan start = CUR (p)->span;
  CrTokKind kw = is_and ? CR_TOK_KW_AND : CR_TOK_KW_OR;
  guint base = p->stack->len;
  CrAstNode *first, *node;

  first = is_and ? inversion (p) : boolop (p, TRUE);
  if (first == NULL || CUR_KIND (p) != kw)
    return first;
  g_ptr_array_add (p->stack, first);
  while (CUR_KIND (p) == kw)
    {
      CrAstNode *next;
      Trial t;

      trial_begin (p, &t, p->invalid_rules);
      p->pos++;
      next = is_and ? inversion (p) : boolop (p, TRUE);
      if (next == NULL)
        {
          if (!backtrack (p, &t))
            return NULL;
          break;
        }
      g_ptr_array_add (p->stack, next);
    }
  if (p->stack->len == base + 1)
    {
      g_ptr_array_set_size (p->stack, base);
      return first;
    }
  node = cr_parser_node (p, CR_AST_BOOLOP, cr_parser_span_from (p, start));
  node->u.boolop.is_and = is_and;
  node->u.boolop.values = cr_parser_take (p, base, &node->u.boolop.n_values, node);
  return node;
}

CrAstNode *
cr_parser_disjunction (CrParser *p)
{
  return boolop (p, FALSE);
}

static gboolean
comparison_op (CrParser *p,
               CrCmpOp  *op,
               guint    *ntokens)
{
  *ntokens = 1;
  switch (CUR_KIND (p))
    {
    case CR_TOK_EQEQUAL: *op = CR_CMP_EQ; return TRUE;
    case CR_TOK_NOTEQUAL: *op = CR_CMP_NE; return TRUE;
    case CR_TOK_LESS: *op = CR_CMP_LT; return TRUE;
    case CR_TOK_LESSEQUAL: *op = CR_CMP_LE; return TRUE;
    case CR_TOK_GREATER: *op = CR_CMP_GT; return TRUE;
    case CR_TOK_GREATEREQUAL: *op = CR_CMP_GE; return TRUE;
    case CR_TOK_KW_IN: *op = CR_CMP_IN; return TRUE;
    case CR_TOK_KW_NOT:
      if (PEEK_KIND (p, 1) != CR_TOK_KW_IN)
        return FALSE;
      *op = CR_CMP_NOT_IN;
      *ntokens = 2;
      return TRUE;
    case CR_TOK_KW_IS:
      if (PEEK_KIND (p, 1) == CR_TOK_KW_NOT)
        {
          *op = CR_CMP_IS_NOT;
          *ntokens = 2;
        }
      else
        *op = CR_CMP_IS;
      return TRUE;
    default:
      return FALSE;
    }
}

static CrAstNode *
comparison (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  guint opbase = p->cmpops->len;
  CrAstNode *left, *node;
  CrCmpOp op;
  guint ntokens;

  left = cr_parser_bitwise_or (p);
  if (left == NULL || !comparison_op (p, &op, &ntokens))
    return left;
  while (comparison_op (p, &op, &ntokens))
    {
      CrAstNode *right;
      Trial t;

      /* "<>" is a token only for `from __future__ import barry_as_FLUFL`. */
      if (op == CR_CMP_NE && p->src[CUR (p)->start] == '<')
        {
          cr_parser_fail (p);
          break;
        }
      trial_begin (p, &t, p->invalid_rules);
      p->pos += ntokens;
      right = cr_parser_bitwise_or (p);
      if (right == NULL)
        {
          if (!backtrack (p, &t))
            return NULL;
          break;
        }
      g_array_append_val (p->cmpops, op);
      g_ptr_array_add (p->stack, right);
    }
  if (p->failed)
    return NULL;
  if (p->stack->len == base)
    return left;
  node = cr_parser_node (p, CR_AST_COMPARE, cr_parser_span_from (p, start));
  node->u.compare.left = left;
  cr_parser_child (p, node, left);
  node->u.compare.ops = cr_parser_take_array (p, p->cmpops, opbase, &node->u.compare.n_ops);
  node->u.compare.comparators = cr_parser_take (p, base, &node->u.compare.n_comparators, node);
  return node;
}

/* | ^ & << >> + - * / // % @ by precedence climbing. */
static gboolean
binary_op (CrTokKind kind,
           CrBinOp  *op,
           int      *prec)
{
  switch (kind)
    {
    case CR_TOK_VBAR: *op = CR_BINOP_BITOR; *prec = 1; return TRUE;
    case CR_TOK_CIRCUMFLEX: *op = CR_BINOP_BITXOR; *prec = 2; return TRUE;
    case CR_TOK_AMPER: *op = CR_BINOP_BITAND; *prec = 3; return TRUE;
    case CR_TOK_LEFTSHIFT: *op = CR_BINOP_LSHIFT; *prec = 4; return TRUE;
    case CR_TOK_RIGHTSHIFT: *op = CR_BINOP_RSHIFT; *prec = 4; return TRUE;
    case CR_TOK_PLUS: *op = CR_BINOP_ADD; *prec = 5; return TRUE;
    case CR_TOK_MINUS: *op = CR_BINOP_SUB; *prec = 5; return TRUE;
    case CR_TOK_STAR: *op = CR_BINOP_MUL; *prec = 6; return TRUE;
    case CR_TOK_SLASH: *op = CR_BINOP_DIV; *prec = 6; return TRUE;
    case CR_TOK_DOUBLESLASH: *op = CR_BINOP_FLOORDIV; *prec = 6; return TRUE;
    case CR_TOK_PERCENT: *op = CR_BINOP_MOD; *prec = 6; return TRUE;
    case CR_TOK_AT: *op = CR_BINOP_MATMUL; *prec = 6; return TRUE;
    default: return FALSE;
    }
}

static CrAstNode *
binary (CrParser *p,
        int       min_prec)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *left;
  CrBinOp op;
  int prec;

  left = factor (p);
  if (left == NULL)
    return NULL;
  while (binary_op (CUR_KIND (p), &op, &prec) && prec >= min_prec)
    {
      CrAstNode *right;
      Trial t;

      trial_begin (p, &t, p->invalid_rules);
      p->pos++;
      right = binary (p, prec + 1);
      if (right == NULL)
        return backtrack (p, &t) ? left : NULL;
      left = binop_node (p, op, left, right, start);
    }
  return left;
}

CrAstNode *
cr_parser_bitwise_or (CrParser *p)
{
  return binary (p, 1);
}

static CrAstNode *primary (CrParser *p);

/* power: await_primary ['**' factor] */
static CrAstNode *
power (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *base, *exponent;
  Trial t;

  if (CUR_KIND (p) == CR_TOK_KW_AWAIT)
    {
      cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
      p->pos++;
    }
  base = primary (p);
  if (base == NULL || CUR_KIND (p) != CR_TOK_DOUBLESTAR)
    return base;
  if (!cr_parser_enter (p))
    return NULL;
  trial_begin (p, &t, p->invalid_rules);
  p->pos++;
  exponent = factor (p);
  cr_parser_leave (p);
  if (exponent == NULL)
    return backtrack (p, &t) ? base : NULL;
  return binop_node (p, CR_BINOP_POW, base, exponent, start);
}

/* factor: ('+' | '-' | '~') factor | power */
static CrAstNode *
factor (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *operand, *node;
  CrUnOp op;

  switch (CUR_KIND (p))
    {
    case CR_TOK_PLUS: op = CR_UNOP_POS; break;
    case CR_TOK_MINUS: op = CR_UNOP_NEG; break;
    case CR_TOK_TILDE: op = CR_UNOP_INVERT; break;
    default: return power (p);
    }
  if (!cr_parser_enter (p))
    return NULL;
  p->pos++;
  operand = factor (p);
  cr_parser_leave (p);
  if (operand == NULL)
    return NULL;
  node = cr_parser_node (p, CR_AST_UNARYOP, cr_parser_span_from (p, start));
  node->u.unaryop.op = op;
  node->u.unaryop.operand = operand;
  cr_parser_child (p, node, operand);
  return node;
}

/* ---- subscripts ---- */

/* slice: [expression] ':' [expression] [':' [expression]] | named_expression */
static CrAstNode *
slice (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *lower = NULL, *node;

  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrAstNode *value;

      p->pos++;
      value = cr_parser_bitwise_or (p);
      return value ? starred_node (p, value, start) : NULL;
    }
  if (CUR_KIND (p) != CR_TOK_COLON)
    {
      lower = cr_parser_named_expression (p);
      if (lower == NULL || CUR_KIND (p) != CR_TOK_COLON)
        return lower;
    }
  node = cr_parser_node (p, CR_AST_SLICE, start);
  node->u.slice.lower = lower;
  p->pos++;
  if (cr_parser_can_start_expression (CUR_KIND (p)))
    {
      node->u.slice.upper = cr_parser_expression (p);
      if (node->u.slice.upper == NULL)
        return NULL;
    }
  if (cr_parser_accept (p, CR_TOK_COLON) && cr_parser_can_start_expression (CUR_KIND (p)))
    {
      node->u.slice.step = cr_parser_expression (p);
      if (node->u.slice.step == NULL)
        return NULL;
    }
  node->span = cr_parser_span_from (p, start);
  cr_parser_child (p, node, node->u.slice.lower);
  cr_parser_child (p, node, node->u.slice.upper);
  cr_parser_child (p, node, node->u.slice.step);
  return node;
}

/* slices: slice !',' | ','.slice+ [','] */
static CrAstNode *
slices (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  CrAstNode *first, *node;

  first = slice (p);
  if (first == NULL)
    return NULL;
  /* a[*b] is a[(*b,)] */
  if (CUR_KIND (p) != CR_TOK_COMMA && first->kind != CR_AST_STARRED)
    return first;
  g_ptr_array_add (p->stack, first);
  while (cr_parser_accept (p, CR_TOK_COMMA))
    {
      CrAstNode *e;

      if (CUR_KIND (p) == CR_TOK_RSQB)
        break;
      e = slice (p);
      if (e == NULL)
        return NULL;
      g_ptr_array_add (p->stack, e);
    }
  node = cr_parser_node (p, CR_AST_TUPLE, cr_parser_span_from (p, start));
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  return node;
}

/* ---- calls ---- */

/* The last part of a comprehension, for "Generator expression must be
 * parenthesized": its last condition, or the last iterable. */
static CrAstNode *
last_comprehension_item (CrAstNode *comp)
{
  while (comp->u.comp.inner != NULL)
    comp = comp->u.comp.inner;
  if (comp->u.comp.n_ifs > 0)
    return comp->u.comp.ifs[comp->u.comp.n_ifs - 1];
  return comp->u.comp.iter;
}

static gboolean
keyword_seen (CrParser   *p,
              guint       kbase,
              const char *name)
{
  for (guint i = kbase; i < p->keywords->len; i++)
    if (g_array_index (p->keywords, CrAstKeyword, i).name == name)
      return TRUE;
  return FALSE;
}

CrAstNode *
cr_parser_arguments_call (CrParser  *p,
                          CrAstNode *func,
                          CrSpan     start)
{
  guint base = p->stack->len;
  guint kbase = p->keywords->len;
  gboolean seen_keyword = FALSE, seen_unpack = FALSE, positional_late = FALSE;
  CrSpan lpar = CUR (p)->span;
  CrAstNode *node;

  p->pos++;   /* '(' */
  while (CUR_KIND (p) != CR_TOK_RPAR)
    {
      CrSpan astart = CUR (p)->span;
      CrTokKind kind = CUR_KIND (p);

      if (kind == CR_TOK_STAR)
        {
          CrAstNode *value;

          if (seen_unpack)
            {
              if (p->invalid_rules)
                return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, astart,
                                        "iterable argument unpacking follows keyword "
                                        "argument unpacking");
              return cr_parser_fail (p);
            }
          p->pos++;
          value = cr_parser_expression (p);
          if (value == NULL)
            return NULL;
          g_ptr_array_add (p->stack, starred_node (p, value, astart));
        }
      else if (kind == CR_TOK_DOUBLESTAR)
        {
          CrAstKeyword kw = { NULL, NULL, astart };

          p->pos++;
          kw.value = cr_parser_expression (p);
          if (kw.value == NULL)
            return NULL;
          kw.span = cr_parser_span_from (p, astart);
          g_array_append_val (p->keywords, kw);
          seen_unpack = TRUE;
        }
      else if ((kind == CR_TOK_NAME || kind == CR_TOK_KW_TRUE || kind == CR_TOK_KW_FALSE ||
                kind == CR_TOK_KW_NONE) && PEEK_KIND (p, 1) == CR_TOK_EQUAL)
        {
          CrAstKeyword kw = { NULL, NULL, astart };
          CrSpan eq = cr_parser_tok (p, p->pos + 1)->span;

          if (kind != CR_TOK_NAME)
            {
              if (p->invalid_rules)
                return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (astart, eq),
                                        "cannot assign to %s", cr_tok_kind_name (kind));
              return cr_parser_fail (p);
            }
          kw.name = cr_parser_intern (p, CUR (p));
          p->pos += 2;
          kw.value = cr_parser_expression (p);
          if (kw.value == NULL)
            return NULL;
          if (CUR_KIND (p) == CR_TOK_KW_FOR)
            {
              if (p->invalid_rules)
                return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (astart, eq),
                                        "invalid syntax. Maybe you meant '==' or ':=' "
                                        "instead of '='?");
              return cr_parser_fail (p);
            }
          kw.span = cr_parser_span_from (p, astart);
          if (keyword_seen (p, kbase, kw.name))
            cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, kw.span,
                                  "keyword argument repeated: %s", kw.name);
          g_array_append_val (p->keywords, kw);
          seen_keyword = TRUE;
        }
      else
        {
          CrAstNode *e;

          if (kind == CR_TOK_NAME && PEEK_KIND (p, 1) == CR_TOK_COLONEQUAL)
            e = walrus (p);
          else
            e = cr_parser_expression (p);
          if (e == NULL)
            return NULL;
          if (CUR_KIND (p) == CR_TOK_COLONEQUAL)
            return cr_parser_fail (p);
          if (CUR_KIND (p) == CR_TOK_EQUAL)
            {
              if (p->invalid_rules)
                return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR,
                                        cr_span_join (e->span, CUR (p)->span),
                                        "expression cannot contain assignment, perhaps you "
                                        "meant \"==\"?");
              return cr_parser_fail (p);
            }
          if (CUR_KIND (p) == CR_TOK_KW_FOR)
            {
              /* A generator expression: only as the sole argument. */
              gboolean sole = p->stack->len == base && p->keywords->len == kbase;
              CrAstNode *comp = comprehension (p, e, TRUE, start);

              if (comp == NULL)
                return NULL;
              if (sole && CUR_KIND (p) != CR_TOK_RPAR && CUR_KIND (p) != CR_TOK_COMMA)
                return cr_parser_fail (p);
              if (!sole || CUR_KIND (p) != CR_TOK_RPAR)
                {
                  if (p->invalid_rules)
                    return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR,
                                            cr_span_join (e->span,
                                                          last_comprehension_item (comp)->span),
                                            "Generator expression must be parenthesized");
                  return cr_parser_fail (p);
                }
              /* Python's span: the call's parentheses. */
              comp->span = cr_span_join (lpar, CUR (p)->span);
              e = comp;
            }
          if (seen_keyword || seen_unpack)
            positional_late = TRUE;
          g_ptr_array_add (p->stack, e);
        }
      if (!cr_parser_accept (p, CR_TOK_COMMA))
        break;
    }
  if (positional_late)
    {
      if (p->invalid_rules)
        return cr_parser_raise_here (p, seen_unpack
                                     ? "positional argument follows keyword argument unpacking"
                                     : "positional argument follows keyword argument");
      return cr_parser_fail (p);
    }
  if (!cr_parser_accept (p, CR_TOK_RPAR))
    return cr_parser_fail (p);
  node = cr_parser_node (p, CR_AST_CALL, cr_parser_span_from (p, start));
  node->u.call.func = func;
  cr_parser_child (p, node, func);
  node->u.call.args = cr_parser_take (p, base, &node->u.call.n_args, node);
  node->u.call.keywords = cr_parser_take_array (p, p->keywords, kbase, &node->u.call.n_keywords);
  for (guint i = 0; i < node->u.call.n_keywords; i++)
    cr_parser_child (p, node, node->u.call.keywords[i].value);
  return node;
}

/* primary: atom ('.' NAME | '(' arguments ')' | '[' slices ']')* */
static CrAstNode *
primary (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = atom (p);

  while (node != NULL)
    {
      CrAstNode *prev = node;
      Trial t;

      trial_begin (p, &t, p->invalid_rules);
      switch (CUR_KIND (p))
        {
        case CR_TOK_DOT:
          {
            CrAstNode *attr;

            p->pos++;
            if (CUR_KIND (p) != CR_TOK_NAME)
              {
                cr_parser_fail (p);
                return backtrack (p, &t) ? prev : NULL;
              }
            attr = cr_parser_node (p, CR_AST_ATTRIBUTE, start);
            attr->u.attribute.value = node;
            attr->u.attribute.attr = cr_parser_intern (p, CUR (p));
            attr->u.attribute.attr_span = CUR (p)->span;
            p->pos++;
            attr->span = cr_parser_span_from (p, start);
            cr_parser_child (p, attr, node);
            node = attr;
          }
          break;

        case CR_TOK_LPAR:
          node = cr_parser_arguments_call (p, node, start);
          if (node == NULL)
            return backtrack (p, &t) ? prev : NULL;
          break;

        case CR_TOK_LSQB:
          {
            CrAstNode *sub, *index;

            p->pos++;
            index = slices (p);
            if (index == NULL || !cr_parser_accept (p, CR_TOK_RSQB))
              {
                cr_parser_fail (p);
                return backtrack (p, &t) ? prev : NULL;
              }
            sub = cr_parser_node (p, CR_AST_SUBSCRIPT, cr_parser_span_from (p, start));
            sub->u.subscript.value = node;
            sub->u.subscript.index = index;
            cr_parser_child (p, sub, node);
            cr_parser_child (p, sub, index);
            node = sub;
          }
          break;

        default:
          return node;
        }
    }
  return NULL;
}

/* ---- displays ---- */

/* '*' bitwise_or | named_expression */
static CrAstNode *
star_named_expression (CrParser *p)
{
  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrSpan start = CUR (p)->span;
      CrAstNode *value;

      p->pos++;
      value = cr_parser_bitwise_or (p);
      return value ? starred_node (p, value, start) : NULL;
    }
  return cr_parser_named_expression (p);
}

/* '*' bitwise_or | expression */
static CrAstNode *
star_expression (CrParser *p)
{
  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrSpan start = CUR (p)->span;
      CrAstNode *value;

      p->pos++;
      value = cr_parser_bitwise_or (p);
      return value ? starred_node (p, value, start) : NULL;
    }
  return cr_parser_expression (p);
}

/* One or more, separated by commas (a trailing one allowed): a tuple when
 * there is a comma. */
static CrAstNode *
comma_list (CrParser   *p,
            CrAstNode *(*element) (CrParser *p))
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  CrAstNode *first, *node;

  first = element (p);
  if (first == NULL || CUR_KIND (p) != CR_TOK_COMMA)
    return first;
  g_ptr_array_add (p->stack, first);
  while (cr_parser_accept (p, CR_TOK_COMMA))
    {
      CrAstNode *e;

      if (!cr_parser_can_start_expression (CUR_KIND (p)) && CUR_KIND (p) != CR_TOK_STAR)
        break;
      e = element (p);
      if (e == NULL)
        return NULL;
      g_ptr_array_add (p->stack, e);
    }
  node = cr_parser_node (p, CR_AST_TUPLE, cr_parser_span_from (p, start));
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  return node;
}

CrAstNode *
cr_parser_star_expressions (CrParser *p)
{
  return comma_list (p, star_expression);
}

CrAstNode *
cr_parser_star_target (CrParser *p)
{
  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrSpan start = CUR (p)->span;
      CrAstNode *value;

      p->pos++;
      value = cr_parser_bitwise_or (p);
      return value ? starred_node (p, value, start) : NULL;
    }
  return cr_parser_bitwise_or (p);
}

CrAstNode *
cr_parser_star_targets (CrParser *p)
{
  return comma_list (p, cr_parser_star_target);
}

/* yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
CrAstNode *
cr_parser_yield_expr (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node;

  p->pos++;
  if (cr_parser_accept (p, CR_TOK_KW_FROM))
    {
      if (cr_parser_expression (p) == NULL)
        return NULL;
    }
  else if (cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR)
    {
      if (cr_parser_star_expressions (p) == NULL)
        return NULL;
    }
  node = constant_node (p, CR_CONST_NONE, cr_parser_span_from (p, start));
  cr_parser_unsupported (p, node->span, "'yield' is");
  return node;
}

/* for_if_clauses after elt: ('for' star_targets 'in' disjunction ('if' disjunction)*)+ */
static CrAstNode *
comprehension (CrParser  *p,
               CrAstNode *elt,
               gboolean   is_generator,
               CrSpan     start)
{
  g_autoptr(GPtrArray) clauses = g_ptr_array_new ();
  CrAstNode *node = NULL;

  while (CUR_KIND (p) == CR_TOK_KW_FOR ||
         (CUR_KIND (p) == CR_TOK_KW_ASYNC && PEEK_KIND (p, 1) == CR_TOK_KW_FOR))
    {
      CrAstNode *clause = cr_parser_node (p, CR_AST_LISTCOMP, CUR (p)->span);
      CrAstNode *target;
      guint base = p->stack->len;

      if (CUR_KIND (p) == CR_TOK_KW_ASYNC)
        {
          cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
          p->pos++;
        }
      p->pos++;
      target = cr_parser_star_targets (p);
      if (target == NULL)
        return NULL;
      {
        const CrAstNode *bad = cr_parser_invalid_target (target, CR_TARGETS_FOR);

        if (bad != NULL)
          {
            if (p->invalid_rules)
              return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span,
                                      "cannot assign to %s", cr_parser_expr_name (bad));
            return cr_parser_fail (p);
          }
      }
      if (!cr_parser_accept (p, CR_TOK_KW_IN))
        return cr_parser_fail (p);
      clause->u.comp.target = target;
      clause->u.comp.iter = cr_parser_disjunction (p);
      if (clause->u.comp.iter == NULL)
        return NULL;
      while (cr_parser_accept (p, CR_TOK_KW_IF))
        {
          CrAstNode *cond = cr_parser_disjunction (p);

          if (cond == NULL)
            return NULL;
          g_ptr_array_add (p->stack, cond);
        }
      clause->u.comp.ifs = cr_parser_take (p, base, &clause->u.comp.n_ifs, clause);
      clause->u.comp.is_generator = is_generator;
      cr_parser_child (p, clause, target);
      cr_parser_child (p, clause, clause->u.comp.iter);
      g_ptr_array_add (clauses, clause);
    }
  if (clauses->len == 0)
    return cr_parser_fail (p);

  /* Link the clauses, innermost first, so that depths add up. */
  for (guint i = clauses->len - 1; i > 0; i--)
    {
      CrAstNode *outer = clauses->pdata[i - 1];
      CrAstNode *inner = clauses->pdata[i];

      outer->u.comp.inner = inner;
      cr_parser_child (p, outer, inner);
    }
  node = clauses->pdata[0];
  node->u.comp.elt = elt;
  cr_parser_child (p, node, elt);
  node->span = cr_parser_span_from (p, start);
  return node;
}

/* What follows '(' up to `close`: a tuple, a group, a generator
 * expression. An f-string's expression part is parsed the same way, with
 * the end of the part as `close` (CPython 3.11 compiles "(" part ")"). */
static CrAstNode *
paren_contents (CrParser  *p,
                CrSpan     start,
                CrTokKind  close)
{
  guint base = p->stack->len;
  CrAstNode *first, *node;

  if (cr_parser_accept (p, close))
    return cr_parser_node (p, CR_AST_TUPLE, cr_parser_span_from (p, start));
  if (CUR_KIND (p) == CR_TOK_KW_YIELD)
    {
      first = cr_parser_yield_expr (p);
      if (first == NULL)
        return NULL;
      if (!cr_parser_accept (p, close))
        return cr_parser_fail (p);
      return first;
    }
  if (CUR_KIND (p) == CR_TOK_DOUBLESTAR)
    {
      /* invalid_group: '(' '**' expression ')' */
      CrSpan star = CUR (p)->span;

      if (p->invalid_rules)
        {
          p->pos++;
          if (cr_parser_expression (p) != NULL && CUR_KIND (p) == close)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, star,
                                    "cannot use double starred expression here");
        }
      return cr_parser_fail (p);
    }
  first = star_named_expression (p);
  if (first == NULL)
    return NULL;
  if (CUR_KIND (p) == CR_TOK_KW_FOR || CUR_KIND (p) == CR_TOK_KW_ASYNC)
    {
      if (first->kind == CR_AST_STARRED)
        {
          if (p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, first->span,
                                    "iterable unpacking cannot be used in comprehension");
          return cr_parser_fail (p);
        }
      node = comprehension (p, first, TRUE, start);
      if (node == NULL)
        return NULL;
      if (!cr_parser_accept (p, close))
        return cr_parser_fail (p);
      node->span = cr_parser_span_from (p, start);
      return node;
    }
  if (cr_parser_accept (p, close))
    {
      if (first->kind == CR_AST_STARRED)
        {
          if (p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, first->span,
                                    "cannot use starred expression here");
          return cr_parser_fail (p);
        }
      return first;
    }
  if (CUR_KIND (p) != CR_TOK_COMMA)
    return cr_parser_fail (p);
  g_ptr_array_add (p->stack, first);
  while (cr_parser_accept (p, CR_TOK_COMMA))
    {
      CrAstNode *e;

      if (CUR_KIND (p) == close)
        break;
      e = star_named_expression (p);
      if (e == NULL)
        return NULL;
      g_ptr_array_add (p->stack, e);
    }
  if (!cr_parser_accept (p, close))
    return cr_parser_fail (p);
  node = cr_parser_node (p, CR_AST_TUPLE, cr_parser_span_from (p, start));
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  return node;
}

static CrAstNode *
paren_atom (CrParser *p)
{
  CrSpan start = CUR (p)->span;

  p->pos++;
  return paren_contents (p, start, CR_TOK_RPAR);
}

/* Python's invalid_comprehension for [a, b for ...] and {a, b for ...}. */
static void
comprehension_target_hint (CrParser  *p,
                           CrAstNode *first,
                           CrSpan     last)
{
  Trial t;
  CrSpan start = { 0 };

  if (!p->invalid_rules || CUR_KIND (p) != CR_TOK_KW_FOR)
    return;
  trial_begin (p, &t, FALSE);
  comprehension (p, first, FALSE, start);
  if (trial_end (p, &t, FALSE))
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (first->span, last),
                     "did you forget parentheses around the comprehension target?");
}

static CrAstNode *
list_atom (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  CrAstNode *first, *node;

  p->pos++;
  if (cr_parser_accept (p, CR_TOK_RSQB))
    return cr_parser_node (p, CR_AST_LIST, cr_parser_span_from (p, start));
  first = star_named_expression (p);
  if (first == NULL)
    return NULL;
  if (CUR_KIND (p) == CR_TOK_KW_FOR || CUR_KIND (p) == CR_TOK_KW_ASYNC)
    {
      if (first->kind == CR_AST_STARRED)
        {
          if (p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, first->span,
                                    "iterable unpacking cannot be used in comprehension");
          return cr_parser_fail (p);
        }
      node = comprehension (p, first, FALSE, start);
      if (node == NULL)
        return NULL;
      if (!cr_parser_accept (p, CR_TOK_RSQB))
        return cr_parser_fail (p);
      node->span = cr_parser_span_from (p, start);
      return node;
    }
  g_ptr_array_add (p->stack, first);
  while (cr_parser_accept (p, CR_TOK_COMMA))
    {
      CrAstNode *e;

      if (CUR_KIND (p) == CR_TOK_RSQB)
        break;
      if (CUR_KIND (p) == CR_TOK_KW_FOR)
        {
          /* [a, for x in y] */
          comprehension_target_hint (p, first, PREV (p)->span);
          return p->raised ? NULL : cr_parser_fail (p);
        }
      e = star_named_expression (p);
      if (e == NULL)
        return NULL;
      g_ptr_array_add (p->stack, e);
    }
  if (CUR_KIND (p) == CR_TOK_KW_FOR)
    {
      CrAstNode *last = p->stack->pdata[p->stack->len - 1];

      comprehension_target_hint (p, first, last->span);
      return p->raised ? NULL : cr_parser_fail (p);
    }
  if (!cr_parser_accept (p, CR_TOK_RSQB))
    return cr_parser_fail (p);
  node = cr_parser_node (p, CR_AST_LIST, cr_parser_span_from (p, start));
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  return node;
}

/* The value after "key:" in a dict display. */
static CrAstNode *
dict_value (CrParser *p)
{
  CrSpan colon = CUR (p)->span;

  p->pos++;   /* ':' */
  if (p->invalid_rules)
    {
      if (CUR_KIND (p) == CR_TOK_STAR)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span,
                                "cannot use a starred expression in a dictionary value");
      if (CUR_KIND (p) == CR_TOK_RBRACE || CUR_KIND (p) == CR_TOK_COMMA)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, colon,
                                "expression expected after dictionary key and ':'");
    }
  return cr_parser_expression (p);
}

static CrAstNode *
brace_atom (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  CrAstNode *first, *value, *node;

  p->pos++;
  if (cr_parser_accept (p, CR_TOK_RBRACE))
    return cr_parser_node (p, CR_AST_DICT, cr_parser_span_from (p, start));

  if (CUR_KIND (p) == CR_TOK_DOUBLESTAR)
    {
      p->pos++;
      first = NULL;
      value = cr_parser_bitwise_or (p);
      if (value == NULL)
        return NULL;
    }
  else
    {
      first = star_named_expression (p);
      if (first == NULL)
        return NULL;
      if (CUR_KIND (p) != CR_TOK_COLON || first->kind == CR_AST_STARRED)
        {
          /* A set display or a set comprehension. */
          if (CUR_KIND (p) == CR_TOK_KW_FOR)
            {
              if (first->kind == CR_AST_STARRED)
                {
                  if (p->invalid_rules)
                    return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, first->span,
                                            "iterable unpacking cannot be used in "
                                            "comprehension");
                  return cr_parser_fail (p);
                }
              node = comprehension (p, first, FALSE, start);
              if (node == NULL)
                return NULL;
            }
          else
            {
              g_ptr_array_add (p->stack, first);
              while (cr_parser_accept (p, CR_TOK_COMMA))
                {
                  CrAstNode *e;

                  if (CUR_KIND (p) == CR_TOK_RBRACE)
                    break;
                  e = star_named_expression (p);
                  if (e == NULL)
                    return NULL;
                  g_ptr_array_add (p->stack, e);
                }
              if (CUR_KIND (p) == CR_TOK_KW_FOR)
                {
                  CrAstNode *last = p->stack->pdata[p->stack->len - 1];

                  comprehension_target_hint (p, first, last->span);
                  return p->raised ? NULL : cr_parser_fail (p);
                }
              node = cr_parser_node (p, CR_AST_LIST, start);
              node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
            }
          if (!cr_parser_accept (p, CR_TOK_RBRACE))
            return cr_parser_fail (p);
          node->span = cr_parser_span_from (p, start);
          cr_parser_unsupported (p, node->span, "sets are");
          return node;
        }
      value = dict_value (p);
      if (value == NULL)
        return NULL;
      if (CUR_KIND (p) == CR_TOK_KW_FOR)
        {
          node = comprehension (p, value, FALSE, start);
          if (node == NULL)
            return NULL;
          if (!cr_parser_accept (p, CR_TOK_RBRACE))
            return cr_parser_fail (p);
          node->span = cr_parser_span_from (p, start);
          cr_parser_unsupported (p, node->span, "dict comprehensions are");
          return node;
        }
    }

  /* A dict: keys and values pushed in pairs (a NULL key for **mapping). */
  g_ptr_array_add (p->stack, first);
  g_ptr_array_add (p->stack, value);
  while (cr_parser_accept (p, CR_TOK_COMMA))
    {
      CrAstNode *key;

      if (CUR_KIND (p) == CR_TOK_RBRACE)
        break;
      if (cr_parser_accept (p, CR_TOK_DOUBLESTAR))
        {
          key = NULL;
          value = cr_parser_bitwise_or (p);
        }
      else
        {
          key = cr_parser_expression (p);
          if (key == NULL)
            return NULL;
          if (CUR_KIND (p) != CR_TOK_COLON)
            {
              if (p->invalid_rules)
                {
                  /* Python points at the key's last character. */
                  CrSpan at = key->span;

                  at.line = at.end_line;
                  at.column = MAX (at.end_column - 1, 1);
                  return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, at,
                                          "':' expected after dictionary key");
                }
              return cr_parser_fail (p);
            }
          value = dict_value (p);
        }
      if (value == NULL)
        return NULL;
      g_ptr_array_add (p->stack, key);
      g_ptr_array_add (p->stack, value);
    }
  if (!cr_parser_accept (p, CR_TOK_RBRACE))
    return cr_parser_fail (p);

  node = cr_parser_node (p, CR_AST_DICT, cr_parser_span_from (p, start));
  {
    guint n = (p->stack->len - base) / 2;

    node->u.dict.n_keys = node->u.dict.n_values = n;
    node->u.dict.keys = cr_arena_alloc (p->arena, n * sizeof (CrAstNode *));
    node->u.dict.values = cr_arena_alloc (p->arena, n * sizeof (CrAstNode *));
    for (guint i = 0; i < n; i++)
      {
        node->u.dict.keys[i] = p->stack->pdata[base + 2 * i];
        node->u.dict.values[i] = p->stack->pdata[base + 2 * i + 1];
        cr_parser_child (p, node, node->u.dict.keys[i]);
        cr_parser_child (p, node, node->u.dict.values[i]);
      }
    g_ptr_array_set_size (p->stack, base);
  }
  return node;
}

/* ---- numbers ---- */

static CrAstNode *
number (CrParser *p)
{
  CrToken t = *CUR (p);
  CrAstNode *node;
  char *message = NULL;
  gint64 i;
  double f;

  p->pos++;
  if (!cr_lexer_number_value (p->src, &t, &i, &f, &message))
    {
      cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, t.span, "%s", message);
      g_free (message);
    }
  if (t.num_kind == CR_NUM_IMAG)
    cr_parser_unsupported (p, t.span, "complex numbers are");
  node = constant_node (p, t.num_kind == CR_NUM_INT ? CR_CONST_INT : CR_CONST_FLOAT, t.span);
  node->u.constant.i = i;
  node->u.constant.f = t.num_kind == CR_NUM_INT ? (double) i : f;
  return node;
}

/* ---- strings and f-strings ---- */

static CrAstNode *
fstring_expression (CrParser *p,
                    gsize     start,
                    gsize     end)
{
  CrLexer *outer_lexer = p->lexer;
  GArray *outer_tokens = p->tokens;
  guint outer_pos = p->pos;
  gboolean outer_invalid = p->invalid_rules;
  gboolean outer_raised = p->raised;
  CrAstNode *value;
  int line;
  gsize line_start;

  cr_parser_locate (p, start, &line, &line_start);
  p->lexer = cr_lexer_new (p->src, start, end, line, line_start, TRUE);
  p->tokens = g_array_new (FALSE, FALSE, sizeof (CrToken));
  p->pos = 0;
  p->invalid_rules = FALSE;
  p->fstring_level++;

  value = paren_contents (p, CUR (p)->span, CR_TOK_ENDMARKER);
  if (value == NULL && !p->raised)
    {
      CrToken last = g_array_index (p->tokens, CrToken, p->tokens->len - 1);

      p->failed = FALSE;
      p->pos = 0;
      p->invalid_rules = TRUE;
      value = paren_contents (p, CUR (p)->span, CR_TOK_ENDMARKER);
      if (!p->raised)
        cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, last.span, "invalid syntax");
    }
  if (value == NULL && p->raised && !outer_raised && !p->raised_by_lexer &&
      !g_str_has_prefix (p->err_msg, "f-string"))
    {
      /* Python prefixes what its parser says about an f-string's expression. */
      char *msg = g_strconcat ("f-string: ", p->err_msg, NULL);

      g_free (p->err_msg);
      p->err_msg = msg;
    }
  p->fstring_level--;
  cr_lexer_free (p->lexer);
  g_array_unref (p->tokens);
  p->lexer = outer_lexer;
  p->tokens = outer_tokens;
  p->pos = outer_pos;
  p->invalid_rules = outer_invalid;
  /* The outer tokenizer is fine: a later tokenizer error may still win. */
  p->raised_by_lexer = FALSE;
  return value;
}

static void
flush_text (CrParser *p,
            GString  *text,
            CrSpan    span)
{
  if (text->len == 0)
    return;
  g_ptr_array_add (p->stack, str_node (p, text->str, text->len, span));
  g_string_truncate (text, 0);
}

/* The pieces of an f-string body (or of a format spec, depth > 0) onto the
 * stack; `text` gathers literal text between replacement fields. A spec ends
 * with its field's FIELD_END, returned in *end_piece. */
static gboolean
fstring_parts (CrParser         *p,
               CrFStringScanner *scanner,
               GString          *text,
               CrSpan            str_span,
               int               depth,
               CrFStrPiece      *end_piece)
{
  for (;;)
    {
      CrFStrPiece piece;
      CrAstNode *value, *spec = NULL, *fv;
      gsize expr_start;

      switch (cr_fstring_scanner_next (scanner, &piece))
        {
        case CR_FSTR_TEXT:
          g_string_append_len (text, piece.text, piece.text_len);
          continue;

        case CR_FSTR_END:
          return TRUE;

        case CR_FSTR_FIELD_END:
          /* The end of the format spec this call parses. */
          flush_text (p, text, str_span);
          *end_piece = piece;
          return TRUE;

        case CR_FSTR_ERROR:
          cr_parser_raise_here (p, "%s", piece.message);
          return FALSE;

        case CR_FSTR_SPEC:
        case CR_FSTR_EXPR:
        default:
          break;
        }

      expr_start = piece.expr_start;
      value = fstring_expression (p, piece.expr_start, piece.expr_end);
      if (value == NULL)
        return FALSE;
      switch (cr_fstring_scanner_next (scanner, &piece))
        {
        case CR_FSTR_SPEC:
          {
            g_autoptr(GString) spec_text = g_string_new (NULL);
            guint base = p->stack->len;

            spec = cr_parser_node (p, CR_AST_JOINEDSTR, str_span);
            if (!fstring_parts (p, scanner, spec_text, str_span, depth + 1, &piece))
              return FALSE;
            spec->u.seq.elts = cr_parser_take (p, base, &spec->u.seq.n_elts, spec);
          }
          break;
        case CR_FSTR_FIELD_END:
          break;
        case CR_FSTR_ERROR:
          cr_parser_raise_here (p, "%s", piece.message);
          return FALSE;
        default:
          g_assert_not_reached ();
        }

      if (piece.has_debug)
        g_string_append_len (text, p->src + piece.debug_start,
                             piece.debug_end - piece.debug_start);
      flush_text (p, text, str_span);
      fv = cr_parser_node (p, CR_AST_FORMATTEDVALUE,
                           cr_parser_offsets_span (p, expr_start - 1, piece.end));
      fv->u.formatted.value = value;
      fv->u.formatted.conversion = piece.conversion;
      fv->u.formatted.format_spec = spec;
      cr_parser_child (p, fv, value);
      cr_parser_child (p, fv, spec);
      g_ptr_array_add (p->stack, fv);
    }
}

/* STRING+: one str constant, or a JoinedStr when an f-string is among them. */
static CrAstNode *
strings (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint first = p->pos, last;
  gboolean any_bytes = FALSE, any_str = FALSE, any_f = FALSE;
  guint base = p->stack->len;
  g_autoptr(GString) text = g_string_new (NULL);
  CrSpan span;
  CrAstNode *node;

  while (CUR_KIND (p) == CR_TOK_STRING)
    {
      const CrToken *t = CUR (p);

      if (t->str_flags & CR_STR_BYTES)
        any_bytes = TRUE;
      else
        any_str = TRUE;
      if (t->str_flags & CR_STR_FMT)
        any_f = TRUE;
      p->pos++;
    }
  last = p->pos;
  span = cr_parser_span_from (p, start);
  (void) CUR (p);   /* Python has read the token after the strings */
  if (any_bytes && any_str)
    return cr_parser_raise_here (p, "cannot mix bytes and nonbytes literals");
  if (any_bytes)
    cr_parser_unsupported (p, span, "bytes literals are");

  for (guint i = first; i < last; i++)
    {
      CrToken t = g_array_index (p->tokens, CrToken, i);
      gsize body_start = t.start + t.prefix_len + t.quote_len;
      gsize body_end = t.end - t.quote_len;
      gboolean raw = (t.str_flags & CR_STR_RAW) != 0;

      if (t.str_flags & CR_STR_FMT)
        {
          CrFStringScanner *scanner = cr_fstring_scanner_new (p->src, body_start, body_end, raw);
          CrFStrPiece unused;
          gboolean ok;

          ok = fstring_parts (p, scanner, text, span, 0, &unused);
          cr_fstring_scanner_free (scanner);
          if (!ok)
            return NULL;
        }
      else
        {
          char *message = NULL;

          if (!cr_lexer_decode_string (p->src + body_start, body_end - body_start, raw,
                                       text, &message))
            {
              cr_parser_raise_here (p, "%s", message);
              g_free (message);
              return NULL;
            }
        }
    }

  if (!any_f)
    return str_node (p, text->str, text->len, span);
  flush_text (p, text, span);
  node = cr_parser_node (p, CR_AST_JOINEDSTR, span);
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  return node;
}

/* ---- atoms ---- */

static CrAstNode *
atom (CrParser *p)
{
  const CrToken *t = CUR (p);
  CrAstNode *node;

  switch (t->kind)
    {
    case CR_TOK_NAME:
      node = cr_parser_node (p, CR_AST_NAME, t->span);
      node->u.name.id = cr_parser_intern (p, t);
      p->pos++;
      return node;
    case CR_TOK_KW_TRUE:
    case CR_TOK_KW_FALSE:
      node = constant_node (p, CR_CONST_BOOL, t->span);
      node->u.constant.b = t->kind == CR_TOK_KW_TRUE;
      node->u.constant.i = node->u.constant.b;
      p->pos++;
      return node;
    case CR_TOK_KW_NONE:
      node = constant_node (p, CR_CONST_NONE, t->span);
      p->pos++;
      return node;
    case CR_TOK_ELLIPSIS:
      node = cr_parser_node (p, CR_AST_ELLIPSIS, t->span);
      p->pos++;
      return node;
    case CR_TOK_NUMBER:
      return number (p);
    case CR_TOK_STRING:
      return strings (p);
    case CR_TOK_LPAR:
    case CR_TOK_LSQB:
    case CR_TOK_LBRACE:
      {
        CrAstNode *result;

        if (!cr_parser_enter (p))
          return NULL;
        result = t->kind == CR_TOK_LPAR ? paren_atom (p)
               : t->kind == CR_TOK_LSQB ? list_atom (p)
               : brace_atom (p);
        cr_parser_leave (p);
        return result;
      }
    default:
      return cr_parser_fail (p);
    }
}

/* ---- lambda and parameters ---- */

static CrAstNode *
lambda_expr (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_LAMBDA, start);
  CrAstNode *body, *ret;

  p->pos++;
  node->u.func.name = cr_arena_intern (p->arena, "<lambda>", 8);
  if (!cr_parser_parameters (p, TRUE, &node->u.func.n_params, &node->u.func.params))
    return NULL;
  if (!cr_parser_accept (p, CR_TOK_COLON))
    return cr_parser_fail (p);
  body = cr_parser_expression (p);
  if (body == NULL)
    return NULL;
  ret = cr_parser_node (p, CR_AST_RETURN, body->span);
  ret->u.ret.value = body;
  cr_parser_child (p, ret, body);
  node->u.func.body = cr_arena_memdup (p->arena, &ret, sizeof ret);
  node->u.func.n_body = 1;
  cr_parser_child (p, node, ret);
  for (guint i = 0; i < node->u.func.n_params; i++)
    cr_parser_child (p, node, node->u.func.params[i].default_value);
  node->span = cr_parser_span_from (p, start);
  return node;
}

static gboolean
param_fail (CrParser   *p,
            CrSpan      span,
            const char *message)
{
  if (p->invalid_rules)
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, span, "%s", message);
  cr_parser_fail (p);
  return FALSE;
}

/* A parameter's name, annotation (def only, dropped) and default. */
static gboolean
param (CrParser    *p,
       gboolean     is_lambda,
       CrParamKind  kind,
       gboolean     may_default,
       CrAstParam  *out)
{
  memset (out, 0, sizeof *out);
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p) != NULL;
  out->name = cr_parser_intern (p, CUR (p));
  out->span = CUR (p)->span;
  out->kind = kind;
  p->pos++;
  if (!is_lambda && cr_parser_accept (p, CR_TOK_COLON))
    {
      if (kind == CR_PARAM_VARARGS && CUR_KIND (p) == CR_TOK_STAR)
        p->pos++;   /* *args: *Ts */
      if (cr_parser_expression (p) == NULL)
        return FALSE;
    }
  if (CUR_KIND (p) == CR_TOK_EQUAL)
    {
      CrSpan eq = CUR (p)->span;
      CrTokKind next = PEEK_KIND (p, 1);

      if (!may_default)
        return param_fail (p, eq, kind == CR_PARAM_VARARGS
                                  ? "var-positional argument cannot have default value"
                                  : "var-keyword argument cannot have default value");
      if (next == CR_TOK_COMMA || next == (is_lambda ? CR_TOK_COLON : CR_TOK_RPAR))
        return param_fail (p, eq, "expected default value expression");
      p->pos++;
      out->default_value = cr_parser_expression (p);
      if (out->default_value == NULL)
        return FALSE;
    }
  return TRUE;
}

gboolean
cr_parser_parameters (CrParser    *p,
                      gboolean     is_lambda,
                      guint       *out_n,
                      CrAstParam **out_params)
{
  CrTokKind close = is_lambda ? CR_TOK_COLON : CR_TOK_RPAR;
  guint base = p->params->len;
  gboolean seen_default = FALSE, seen_star = FALSE, seen_kwargs = FALSE, seen_slash = FALSE;

  while (CUR_KIND (p) != close)
    {
      CrSpan at = CUR (p)->span;
      CrAstParam prm;

      if (seen_kwargs)
        return param_fail (p, at, "arguments cannot follow var-keyword argument");

      switch (CUR_KIND (p))
        {
        case CR_TOK_SLASH:
          if (p->params->len == base)
            return param_fail (p, at, "at least one argument must precede /");
          if (seen_slash)
            return param_fail (p, at, "/ may appear only once");
          if (seen_star)
            return param_fail (p, at, "/ must be ahead of *");
          seen_slash = TRUE;
          p->pos++;
          break;

        case CR_TOK_STAR:
          if (seen_star)
            return param_fail (p, at, "* argument may appear only once");
          seen_star = TRUE;
          p->pos++;
          if (CUR_KIND (p) == CR_TOK_NAME)
            {
              if (!param (p, is_lambda, CR_PARAM_VARARGS, FALSE, &prm))
                return FALSE;
              g_array_append_val (p->params, prm);
            }
          else
            {
              /* A bare '*' needs a keyword-only parameter after it. */
              if (CUR_KIND (p) == close ||
                  (CUR_KIND (p) == CR_TOK_COMMA &&
                   (PEEK_KIND (p, 1) == close || PEEK_KIND (p, 1) == CR_TOK_DOUBLESTAR)))
                {
                  /* Python's lambda rule has no location: the furthest token. */
                  if (is_lambda && p->invalid_rules)
                    {
                      cr_parser_raise_here (p, "named arguments must follow bare *");
                      return FALSE;
                    }
                  return param_fail (p, at, "named arguments must follow bare *");
                }
              if (CUR_KIND (p) != CR_TOK_COMMA)
                return cr_parser_fail (p) != NULL;
            }
          break;

        case CR_TOK_DOUBLESTAR:
          p->pos++;
          if (!param (p, is_lambda, CR_PARAM_KWARGS, FALSE, &prm))
            return FALSE;
          g_array_append_val (p->params, prm);
          seen_kwargs = TRUE;
          break;

        case CR_TOK_NAME:
          if (!param (p, is_lambda, seen_star ? CR_PARAM_KWONLY : CR_PARAM_NORMAL, TRUE, &prm))
            return FALSE;
          if (prm.kind == CR_PARAM_NORMAL)
            {
              if (prm.default_value != NULL)
                seen_default = TRUE;
              else if (seen_default)
                return param_fail (p, prm.span, "non-default argument follows default argument");
            }
          g_array_append_val (p->params, prm);
          break;

        case CR_TOK_LPAR:
          if (p->invalid_rules)
            {
              guint save = p->pos;

              p->pos++;
              while (CUR_KIND (p) == CR_TOK_NAME)
                {
                  p->pos++;
                  if (!cr_parser_accept (p, CR_TOK_COMMA))
                    break;
                }
              if (CUR_KIND (p) == CR_TOK_RPAR && p->pos > save + 1)
                return param_fail (p, cr_span_join (at, CUR (p)->span),
                                   is_lambda ? "Lambda expression parameters cannot be "
                                               "parenthesized"
                                             : "Function parameters cannot be parenthesized");
              p->pos = save;
            }
          return cr_parser_fail (p) != NULL;

        default:
          return cr_parser_fail (p) != NULL;
        }
      if (!cr_parser_accept (p, CR_TOK_COMMA))
        break;
    }

  /* Python's symtable: duplicate names. */
  for (guint i = base; i < p->params->len; i++)
    for (guint j = base; j < i; j++)
      if (g_array_index (p->params, CrAstParam, i).name ==
          g_array_index (p->params, CrAstParam, j).name)
        {
          CrAstParam *dup = &g_array_index (p->params, CrAstParam, i);

          cr_parser_late_error (p, CR_LATE_SYMTABLE, CR_EXC_SYNTAX_ERROR, dup->span,
                                "duplicate argument '%s' in function definition", dup->name);
          break;
        }
  *out_params = cr_parser_take_array (p, p->params, base, out_n);
  return TRUE;
}
