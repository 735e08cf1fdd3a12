/* cr-parser-expr.c — expressions: Python 3.11's precedence (lambda, if-else,
 * or, and, not, comparisons, | ^ & shifts + - * @ / // %, unary, **),
 * primaries (calls, attributes, subscripts and slices), atoms, lambda, and
 * the second pass's invalid_expression / invalid_named_expression checks.
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
  CrParserTrial t;
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
      cr_parser_trial_begin (p, &t, p->invalid_rules);
      b = cr_parser_bitwise_or (p);
      ok = cr_parser_trial_end (p, &t, TRUE);
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
  cr_parser_trial_begin (p, &t, p->invalid_rules);
  b = cr_parser_bitwise_or (p);
  ok = cr_parser_trial_end (p, &t, TRUE);
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
  /* Copies: the trials below read tokens, which may move the array. */
  CrToken first, second;
  gboolean legacy;
  gboolean excluded;
  guint save = p->pos;
  CrAstNode *b;
  CrParserTrial t;

  if (!cr_parser_can_start_expression (CUR_KIND (p)))
    return;
  second = *cr_parser_tok (p, start + 1);
  first = *cr_parser_tok (p, start);
  legacy = token_is_name (p, &first, "print") || token_is_name (p, &first, "exec");
  excluded = (first.kind == CR_TOK_NAME && second.kind == CR_TOK_STRING) ||
             is_soft_keyword (p, &first);

  /* !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid.
   * A '(' or '[' right after a is a call or subscript that did not parse:
   * Python does not read it again as a tuple or a list there. */
  if (!excluded && !(legacy && a->kind == CR_AST_NAME) &&
      CUR_KIND (p) != CR_TOK_LPAR && CUR_KIND (p) != CR_TOK_LSQB)
    {
      cr_parser_trial_begin (p, &t, TRUE);
      p->without_invalid = TRUE;
      b = cr_parser_expression (p);
      if (cr_parser_trial_end (p, &t, TRUE))
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
  if (legacy && second.kind != CR_TOK_LPAR)
    {
      CrSpan name_span = first.span;
      char *name = g_strndup (p->src + first.start, first.end - first.start);

      p->pos = start + 1;
      cr_parser_trial_begin (p, &t, TRUE);
      b = cr_parser_star_expressions (p);
      if (cr_parser_trial_end (p, &t, TRUE))
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
  gboolean without_invalid = p->without_invalid;
  CrAstNode *a, *b, *c, *node;
  CrParserTrial t;

  p->without_invalid = FALSE;
  if (CUR_KIND (p) == CR_TOK_KW_LAMBDA)
    return lambda_expr (p);

  a = cr_parser_disjunction (p);
  if (a == NULL)
    return NULL;
  if (CUR_KIND (p) != CR_TOK_KW_IF)
    {
      if (p->invalid_rules && !without_invalid)
        invalid_expression (p, a, start_pos);
      return p->raised ? NULL : a;
    }

  cr_parser_trial_begin (p, &t, p->invalid_rules);
  p->pos++;
  b = cr_parser_disjunction (p);
  if (b == NULL)
    return cr_parser_backtrack (p, &t) ? a : NULL;
  if (!cr_parser_accept (p, CR_TOK_KW_ELSE))
    {
      if (p->invalid_rules && !without_invalid && CUR_KIND (p) != CR_TOK_COLON)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (a->span, b->span),
                                "expected 'else' after 'if' expression");
      cr_parser_fail (p);
      return cr_parser_backtrack (p, &t) ? a : NULL;
    }
  c = cr_parser_expression (p);
  if (c == NULL)
    return cr_parser_backtrack (p, &t) ? a : NULL;
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
  CrMemoKey key = cr_parser_memo_key (p, CR_MEMO_EXPRESSION);
  CrAstNode *result;

  if (cr_parser_memo_lookup (p, key, &result))
    return result;
  if (!cr_parser_enter (p))
    return NULL;
  result = expression_inner (p);
  cr_parser_leave (p);
  cr_parser_memo_store (p, key, result);
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
      /* invalid_named_expression: a=expression ':=' expression */
      if (p->invalid_rules)
        {
          CrParserTrial t;
          gboolean value;

          p->pos++;
          cr_parser_trial_begin (p, &t, TRUE);
          value = cr_parser_expression (p) != NULL;
          if (cr_parser_trial_end (p, &t, FALSE) && value)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, a->span,
                                    "cannot use assignment expressions with %s",
                                    cr_parser_expr_name (a));
        }
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
      CrParserTrial t;

      cr_parser_trial_begin (p, &t, p->invalid_rules);
      p->pos++;
      next = is_and ? inversion (p) : boolop (p, TRUE);
      if (next == NULL)
        {
          if (!cr_parser_backtrack (p, &t))
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
      CrParserTrial t;

      /* "<>" is a token only for `from __future__ import barry_as_FLUFL`. */
      if (op == CR_CMP_NE && p->src[CUR (p)->start] == '<')
        {
          cr_parser_fail (p);
          break;
        }
      cr_parser_trial_begin (p, &t, p->invalid_rules);
      p->pos += ntokens;
      right = cr_parser_bitwise_or (p);
      if (right == NULL)
        {
          if (!cr_parser_backtrack (p, &t))
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
binary_op (CrTokKind  kind,
           CrBinOp   *op,
           int       *prec)
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
  int max_prec = G_MAXINT;

  left = factor (p);
  if (left == NULL)
    return NULL;
  /* After `left op right`, an operator binding tighter than op is one on
   * which the right operand's own loop backtracked (`c >> e * [...` whose
   * `[` failed): Python's grammar has no rule that takes it there, and
   * trying it again here would parse the failing operand once more per
   * precedence level, which is exponential in the nesting. */
  while (binary_op (CUR_KIND (p), &op, &prec) && prec >= min_prec && prec <= max_prec)
    {
      CrAstNode *right;
      CrParserTrial t;

      cr_parser_trial_begin (p, &t, p->invalid_rules);
      p->pos++;
      right = binary (p, prec + 1);
      if (right == NULL)
        return cr_parser_backtrack (p, &t) ? left : NULL;
      left = binop_node (p, op, left, right, start);
      max_prec = prec;
    }
  return left;
}

CrAstNode *
cr_parser_bitwise_or (CrParser *p)
{
  return binary (p, 1);
}


/* power: await_primary ['**' factor] */
static CrAstNode *
power (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *base, *exponent;
  CrParserTrial t;

  if (CUR_KIND (p) == CR_TOK_KW_AWAIT)
    {
      cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
      p->pos++;
    }
  base = cr_parser_primary (p);
  if (base == NULL || CUR_KIND (p) != CR_TOK_DOUBLESTAR)
    return base;
  if (!cr_parser_enter (p))
    return NULL;
  cr_parser_trial_begin (p, &t, p->invalid_rules);
  p->pos++;
  exponent = factor (p);
  cr_parser_leave (p);
  if (exponent == NULL)
    return cr_parser_backtrack (p, &t) ? base : NULL;
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
      return value ? cr_parser_starred (p, value, start) : NULL;
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
          value = cr_parser_starred (p, value, astart);
          if (CUR_KIND (p) == CR_TOK_KW_FOR)
            {
              /* f(*x for x in y): the call's parentheses make a genexp;
               * f(a, *x for x in y): an unparenthesized one after others. */
              if (p->stack->len == base && p->keywords->len == kbase)
                cr_parser_starred_comprehension (p, value);
              else if (p->invalid_rules && p->stack->len > base)
                {
                  CrParserTrial t;
                  CrAstNode *comp;

                  cr_parser_trial_begin (p, &t, TRUE);
                  comp = cr_parser_comprehension (p, value, TRUE, astart);
                  if (cr_parser_trial_end (p, &t, FALSE))
                    return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR,
                                            cr_span_join (value->span,
                                                          last_comprehension_item (comp)->span),
                                            "Generator expression must be parenthesized");
                }
              return cr_parser_fail (p);
            }
          g_ptr_array_add (p->stack, value);
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
              CrAstNode *comp = cr_parser_comprehension (p, e, TRUE, start);

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
CrAstNode *
cr_parser_primary (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = atom (p);

  while (node != NULL)
    {
      CrAstNode *prev = node;
      CrTokKind kind = CUR_KIND (p);
      CrParserTrial t;

      if (kind != CR_TOK_DOT && kind != CR_TOK_LPAR && kind != CR_TOK_LSQB)
        return node;
      cr_parser_trial_begin (p, &t, p->invalid_rules);
      switch (kind)
        {
        case CR_TOK_DOT:
          {
            CrAstNode *attr;

            p->pos++;
            if (CUR_KIND (p) != CR_TOK_NAME)
              {
                cr_parser_fail (p);
                return cr_parser_backtrack (p, &t) ? prev : NULL;
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
            return cr_parser_backtrack (p, &t) ? prev : NULL;
          break;

        case CR_TOK_LSQB:
          {
            CrAstNode *sub, *index;

            p->pos++;
            index = slices (p);
            if (index == NULL || !cr_parser_accept (p, CR_TOK_RSQB))
              {
                cr_parser_fail (p);
                return cr_parser_backtrack (p, &t) ? prev : NULL;
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
      node = cr_parser_constant (p, CR_CONST_BOOL, t->span);
      node->u.constant.b = t->kind == CR_TOK_KW_TRUE;
      node->u.constant.i = node->u.constant.b;
      p->pos++;
      return node;
    case CR_TOK_KW_NONE:
      node = cr_parser_constant (p, CR_CONST_NONE, t->span);
      p->pos++;
      return node;
    case CR_TOK_ELLIPSIS:
      node = cr_parser_node (p, CR_AST_ELLIPSIS, t->span);
      p->pos++;
      return node;
    case CR_TOK_NUMBER:
      return cr_parser_number (p);
    case CR_TOK_STRING:
      return cr_parser_strings (p);
    case CR_TOK_LPAR:
    case CR_TOK_LSQB:
    case CR_TOK_LBRACE:
      {
        CrMemoKey key = cr_parser_memo_key (p, CR_MEMO_BRACKET_ATOM);
        CrTokKind kind = t->kind;
        CrAstNode *result;

        if (cr_parser_memo_lookup (p, key, &result))
          return result;
        if (!cr_parser_enter (p))
          return NULL;
        result = kind == CR_TOK_LPAR ? cr_parser_paren_atom (p)
               : kind == CR_TOK_LSQB ? cr_parser_list_atom (p)
               : cr_parser_brace_atom (p);
        cr_parser_leave (p);
        cr_parser_memo_store (p, key, result);
        return result;
      }
    default:
      return cr_parser_fail (p);
    }
}

/* ---- lambda ---- */

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
