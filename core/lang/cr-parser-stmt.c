/* cr-parser-stmt.c — statements: simple statements and assignments (with
 * the second pass's checks for invalid targets), compound statements and
 * their blocks (def and class are in cr-parser-def.c).
 */
#include "cr-parser-private.h"

#include <string.h>

static void simple_stmts (CrParser *p);

/* The checks of Python's compiler on a valid target. */
static void
check_starred_targets (CrParser        *p,
                       const CrAstNode *t,
                       gboolean         top)
{
  if (t->kind == CR_AST_STARRED)
    {
      if (top)
        cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, t->span,
                              "starred assignment target must be in a list or tuple");
      check_starred_targets (p, t->u.starred.value, FALSE);
    }
  else if (t->kind == CR_AST_TUPLE || t->kind == CR_AST_LIST)
    {
      guint stars = 0;

      for (guint i = 0; i < t->u.seq.n_elts; i++)
        {
          if (t->u.seq.elts[i]->kind == CR_AST_STARRED && ++stars == 2)
            cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, t->span,
                                  "multiple starred expressions in assignment");
          check_starred_targets (p, t->u.seq.elts[i], FALSE);
        }
    }
}

static void
check_value (CrParser        *p,
             const CrAstNode *value)
{
  if (value != NULL && value->kind == CR_AST_STARRED)
    cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, value->span,
                          "can't use starred expression here");
}

/* ---- compound statements ---- */

static void
push (CrParser  *p,
      CrAstNode *node)
{
  g_ptr_array_add (p->stack, node);
}

/* The end of a compound statement is the end of its last statement. */
CrSpan
cr_parser_span_to_last (CrSpan      start,
                        CrAstNode **body,
                        guint       n)
{
  if (n == 0)
    return start;
  return cr_span_join (start, body[n - 1]->span);
}

/* block: NEWLINE INDENT statements DEDENT | simple_stmts */
gboolean
cr_parser_block (CrParser     *p,
                 const char   *what,
                 int           line,
                 CrAstNode    *owner,
                 guint        *n_body,
                 CrAstNode  ***body)
{
  guint base = p->stack->len;

  if (CUR_KIND (p) == CR_TOK_NEWLINE)
    {
      p->pos++;
      if (CUR_KIND (p) != CR_TOK_INDENT)
        {
          if (p->invalid_rules)
            cr_parser_raise_indentation_here (p, "expected an indented block after %s "
                                              "on line %d", what, line);
          return cr_parser_fail (p) != NULL;
        }
      p->pos++;
      while (!p->failed && CUR_KIND (p) != CR_TOK_DEDENT)
        cr_parser_statement (p);
      if (p->failed)
        return FALSE;
      p->pos++;
    }
  else
    simple_stmts (p);
  if (p->failed)
    return FALSE;
  *body = cr_parser_take (p, base, n_body, owner);
  return TRUE;
}

/* ':' before a block; `forced` is Python's &&':' (an error right away). */
gboolean
cr_parser_expect_colon (CrParser *p,
                        gboolean  forced)
{
  if (cr_parser_accept (p, CR_TOK_COLON))
    return TRUE;
  if (forced)
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span, "expected ':'");
  else if (p->invalid_rules && CUR_KIND (p) == CR_TOK_NEWLINE)
    cr_parser_raise_here (p, "expected ':'");
  return cr_parser_fail (p) != NULL;
}

static gboolean
else_block (CrParser    *p,
            CrAstNode   *owner,
            guint       *n,
            CrAstNode ***body)
{
  int line = CUR (p)->span.line;

  p->pos++;   /* else */
  if (!cr_parser_expect_colon (p, TRUE))
    return FALSE;
  return cr_parser_block (p, "'else' statement", line, owner, n, body);
}

/* The body of a while or for loop (inside the loop, so break and continue are
 * allowed) and its optional else block; the node's span ends with the last. */
static gboolean
loop_body (CrParser     *p,
           const char   *what,
           CrSpan        start,
           CrAstNode    *node,
           guint        *n_body,
           CrAstNode  ***body,
           guint        *n_orelse,
           CrAstNode  ***orelse)
{
  gboolean in_loop = p->in_loop;
  gboolean ok;

  p->in_loop = TRUE;
  ok = cr_parser_block (p, what, start.line, node, n_body, body);
  p->in_loop = in_loop;
  if (!ok)
    return FALSE;
  node->span = cr_parser_span_to_last (start, *body, *n_body);
  if (CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, node, n_orelse, orelse))
        return FALSE;
      node->span = cr_parser_span_to_last (start, *orelse, *n_orelse);
    }
  return TRUE;
}

static CrAstNode *
if_stmt (CrParser *p,
         gboolean  is_elif)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_IF, start);
  CrAstNode *test;

  p->pos++;
  test = cr_parser_named_expression (p);
  if (test == NULL || !cr_parser_expect_colon (p, FALSE))
    return NULL;
  node->u.if_stmt.test = test;
  cr_parser_child (p, node, test);
  if (!cr_parser_block (p, is_elif ? "'elif' statement" : "'if' statement", start.line, node,
                        &node->u.if_stmt.n_body, &node->u.if_stmt.body))
    return NULL;
  node->span = cr_parser_span_to_last (start, node->u.if_stmt.body, node->u.if_stmt.n_body);
  if (CUR_KIND (p) == CR_TOK_KW_ELIF)
    {
      CrAstNode *elif = if_stmt (p, TRUE);

      if (elif == NULL)
        return NULL;
      node->u.if_stmt.orelse = cr_arena_memdup (p->arena, &elif, sizeof elif);
      node->u.if_stmt.n_orelse = 1;
      cr_parser_child (p, node, elif);
    }
  else if (CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, node, &node->u.if_stmt.n_orelse, &node->u.if_stmt.orelse))
        return NULL;
    }
  if (node->u.if_stmt.n_orelse > 0)
    node->span = cr_parser_span_to_last (start, node->u.if_stmt.orelse,
                                         node->u.if_stmt.n_orelse);
  return node;
}

static CrAstNode *
while_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_WHILE, start);

  p->pos++;
  node->u.while_stmt.test = cr_parser_named_expression (p);
  if (node->u.while_stmt.test == NULL || !cr_parser_expect_colon (p, FALSE))
    return NULL;
  cr_parser_child (p, node, node->u.while_stmt.test);
  if (!loop_body (p, "'while' statement", start, node,
                  &node->u.while_stmt.n_body, &node->u.while_stmt.body,
                  &node->u.while_stmt.n_orelse, &node->u.while_stmt.orelse))
    return NULL;
  return node;
}

/* Python's invalid_for_target, in the second pass, when `for <targets> in`
 * did not parse: the targets read as star_expressions (where invalid_expression
 * may speak first), then "cannot assign to ..." for an invalid one. */
static void
invalid_for_target (CrParser *p,
                    guint     after_for)
{
  CrParserTrial t;
  CrAstNode *e;
  const CrAstNode *bad;

  if (!p->invalid_rules || p->raised)
    return;
  p->failed = FALSE;
  p->pos = after_for;
  cr_parser_trial_begin (p, &t, TRUE);
  e = cr_parser_star_expressions (p);
  if (cr_parser_trial_end (p, &t, TRUE))
    {
      bad = cr_parser_invalid_target (e, CR_TARGETS_FOR);
      if (bad != NULL)
        cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span, "cannot assign to %s",
                         cr_parser_expr_name (bad));
    }
  p->failed = TRUE;
}

/* `<targets> in` of a for statement or comprehension clause, with the
 * current token after 'for'. Invalid targets fail (the second pass says why). */
CrAstNode *
cr_parser_for_targets (CrParser *p)
{
  guint after_for = p->pos;
  CrAstNode *target = cr_parser_star_targets (p);

  if (target == NULL || cr_parser_invalid_target (target, CR_TARGETS_FOR) != NULL ||
      CUR_KIND (p) != CR_TOK_KW_IN)
    {
      cr_parser_fail (p);
      invalid_for_target (p, after_for);
      return NULL;
    }
  p->pos++;   /* in */
  check_starred_targets (p, target, TRUE);
  return target;
}

static CrAstNode *
for_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_FOR, start);

  p->pos++;
  node->u.for_stmt.target = cr_parser_for_targets (p);
  if (node->u.for_stmt.target == NULL)
    return NULL;
  node->u.for_stmt.iter = cr_parser_star_expressions (p);
  if (node->u.for_stmt.iter == NULL || !cr_parser_expect_colon (p, FALSE))
    return NULL;
  check_value (p, node->u.for_stmt.iter);
  cr_parser_child (p, node, node->u.for_stmt.target);
  cr_parser_child (p, node, node->u.for_stmt.iter);
  if (!loop_body (p, "'for' statement", start, node,
                  &node->u.for_stmt.n_body, &node->u.for_stmt.body,
                  &node->u.for_stmt.n_orelse, &node->u.for_stmt.orelse))
    return NULL;
  return node;
}

/* with_item: expression ['as' star_target] */
static gboolean
with_item (CrParser *p)
{
  CrAstWithItem item = { NULL, NULL };

  item.context_expr = cr_parser_expression (p);
  if (item.context_expr == NULL)
    return FALSE;
  if (cr_parser_accept (p, CR_TOK_KW_AS))
    {
      CrTokKind next;
      const CrAstNode *bad;

      item.optional_vars = cr_parser_star_target (p);
      if (item.optional_vars == NULL)
        return FALSE;
      next = CUR_KIND (p);
      if (next != CR_TOK_COMMA && next != CR_TOK_RPAR && next != CR_TOK_COLON)
        {
          /* invalid_with_stmt: with a as b NEWLINE */
          if (next == CR_TOK_NEWLINE && p->invalid_rules)
            cr_parser_raise_here (p, "expected ':'");
          return cr_parser_fail (p) != NULL;
        }
      bad = cr_parser_invalid_target (item.optional_vars, CR_TARGETS_STAR);
      if (bad != NULL)
        {
          if (p->invalid_rules)
            cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span, "cannot assign to %s",
                             cr_parser_expr_name (bad));
          return cr_parser_fail (p) != NULL;
        }
      check_starred_targets (p, item.optional_vars, TRUE);
    }
  g_array_append_val (p->withitems, item);
  return TRUE;
}

static CrAstNode *
with_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_WITH, start);
  guint base = p->withitems->len;
  gboolean parsed = FALSE;

  p->pos++;

  /* with (a as b, c as d): ... — tried first; `with (a, b) as c:` is not it. */
  if (CUR_KIND (p) == CR_TOK_LPAR)
    {
      guint save = p->pos;
      guint stack_len = p->stack->len;

      p->pos++;
      for (;;)
        {
          if (!with_item (p))
            break;
          if (!cr_parser_accept (p, CR_TOK_COMMA) || CUR_KIND (p) == CR_TOK_RPAR)
            break;
        }
      if (!p->failed && cr_parser_accept (p, CR_TOK_RPAR) && CUR_KIND (p) == CR_TOK_COLON)
        parsed = TRUE;
      else if (!p->failed && p->invalid_rules && PREV (p)->kind == CR_TOK_RPAR &&
               CUR_KIND (p) == CR_TOK_NEWLINE)
        return cr_parser_raise_here (p, "expected ':'");
      else
        {
          if (p->raised)
            return NULL;
          p->failed = FALSE;
          p->pos = save;
          g_array_set_size (p->withitems, base);
          g_ptr_array_set_size (p->stack, stack_len);
        }
    }
  if (!parsed)
    {
      do
        {
          if (!with_item (p))
            return NULL;
        }
      while (cr_parser_accept (p, CR_TOK_COMMA));
    }
  if (!cr_parser_expect_colon (p, FALSE))
    return NULL;
  node->u.with_stmt.items = cr_parser_take_array (p, p->withitems, base,
                                                  &node->u.with_stmt.n_items);
  for (guint i = 0; i < node->u.with_stmt.n_items; i++)
    {
      cr_parser_child (p, node, node->u.with_stmt.items[i].context_expr);
      cr_parser_child (p, node, node->u.with_stmt.items[i].optional_vars);
    }
  if (!cr_parser_block (p, "'with' statement", start.line, node,
                        &node->u.with_stmt.n_body, &node->u.with_stmt.body))
    return NULL;
  node->span = cr_parser_span_to_last (start, node->u.with_stmt.body, node->u.with_stmt.n_body);
  return node;
}

/* try: body, then except clauses (each with an optional type and name),
 * else (only after an except) and finally. */
static CrAstNode *
try_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_TRY, start);
  g_autoptr (GArray) handlers = g_array_new (FALSE, FALSE, sizeof (CrAstExceptHandler));
  gboolean any = FALSE;
  CrAstNode **last = NULL;
  guint n_last = 0;

  p->pos++;
  if (!cr_parser_expect_colon (p, TRUE) ||
      !cr_parser_block (p, "'try' statement", start.line, node,
                        &node->u.try_stmt.n_body, &node->u.try_stmt.body))
    return NULL;
  last = node->u.try_stmt.body;
  n_last = node->u.try_stmt.n_body;
  while (CUR_KIND (p) == CR_TOK_KW_EXCEPT)
    {
      CrAstExceptHandler h = { NULL, NULL, 0, NULL, CUR (p)->span };
      int line = CUR (p)->span.line;

      any = TRUE;
      p->pos++;
      if (CUR_KIND (p) != CR_TOK_COLON)
        {
          if (cr_parser_accept (p, CR_TOK_STAR))
            cr_parser_unsupported (p, start, "'except*' clauses are");
          if (CUR_KIND (p) == CR_TOK_NEWLINE && p->invalid_rules)
            return cr_parser_raise_here (p, "expected ':'");
          h.type = cr_parser_expression (p);
          if (h.type == NULL)
            return NULL;
          if (CUR_KIND (p) == CR_TOK_COMMA && p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span,
                                    "multiple exception types must be parenthesized");
          if (cr_parser_accept (p, CR_TOK_KW_AS))
            {
              if (CUR_KIND (p) != CR_TOK_NAME)
                return cr_parser_fail (p);
              h.name = cr_parser_intern (p, CUR (p));
              p->pos++;
            }
          cr_parser_child (p, node, h.type);
        }
      if (!cr_parser_expect_colon (p, FALSE))
        return NULL;
      h.span = cr_parser_span_from (p, h.span);
      if (!cr_parser_block (p, "'except' statement", line, node, &h.n_body, &h.body))
        return NULL;
      last = h.body;
      n_last = h.n_body;
      if (handlers->len > 0
          && g_array_index (handlers, CrAstExceptHandler, handlers->len - 1).type == NULL)
        cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR,
                              g_array_index (handlers, CrAstExceptHandler,
                                             handlers->len - 1).span,
                              "default 'except:' must be last");
      g_array_append_val (handlers, h);
    }
  node->u.try_stmt.handlers = cr_parser_take_array (p, handlers, 0,
                                                    &node->u.try_stmt.n_handlers);
  if (any && CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, node, &node->u.try_stmt.n_orelse, &node->u.try_stmt.orelse))
        return NULL;
      last = node->u.try_stmt.orelse;
      n_last = node->u.try_stmt.n_orelse;
    }
  if (CUR_KIND (p) == CR_TOK_KW_FINALLY)
    {
      int line = CUR (p)->span.line;

      any = TRUE;
      p->pos++;
      if (!cr_parser_expect_colon (p, TRUE) ||
          !cr_parser_block (p, "'finally' statement", line, node,
                            &node->u.try_stmt.n_finalbody, &node->u.try_stmt.finalbody))
        return NULL;
      last = node->u.try_stmt.finalbody;
      n_last = node->u.try_stmt.n_finalbody;
    }
  if (!any)
    {
      if (p->invalid_rules)
        return cr_parser_raise_here (p, "expected 'except' or 'finally' block");
      return cr_parser_fail (p);
    }
  node->span = cr_parser_span_to_last (start, last, n_last);
  return node;
}

static void
compound (CrParser *p)
{
  CrAstNode *node = NULL;

  switch (CUR_KIND (p))
    {
    case CR_TOK_KW_DEF:
    case CR_TOK_AT:
    case CR_TOK_KW_CLASS:
      node = cr_parser_definition (p);
      break;
    case CR_TOK_KW_IF:
      node = if_stmt (p, FALSE);
      break;
    case CR_TOK_KW_WHILE:
      node = while_stmt (p);
      break;
    case CR_TOK_KW_FOR:
      node = for_stmt (p);
      break;
    case CR_TOK_KW_WITH:
      node = with_stmt (p);
      break;
    case CR_TOK_KW_TRY:
      node = try_stmt (p);
      break;
    case CR_TOK_KW_ASYNC:
      {
        CrTokKind next = PEEK_KIND (p, 1);

        if (next != CR_TOK_KW_DEF && next != CR_TOK_KW_FOR && next != CR_TOK_KW_WITH)
          {
            cr_parser_fail (p);
            return;
          }
        cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
        p->pos++;
        node = next == CR_TOK_KW_DEF ? cr_parser_definition (p)
             : next == CR_TOK_KW_FOR ? for_stmt (p)
             : with_stmt (p);
      }
      break;
    default:
      /* Only called for is_compound_start () tokens. */
      cr_parser_fail (p);
      return;
    }
  if (node != NULL)
    push (p, node);
}

static gboolean
is_compound_start (CrTokKind kind)
{
  switch (kind)
    {
    case CR_TOK_KW_DEF:
    case CR_TOK_AT:
    case CR_TOK_KW_CLASS:
    case CR_TOK_KW_IF:
    case CR_TOK_KW_WHILE:
    case CR_TOK_KW_FOR:
    case CR_TOK_KW_WITH:
    case CR_TOK_KW_TRY:
    case CR_TOK_KW_ASYNC:
      return TRUE;
    default:
      return FALSE;
    }
}

void
cr_parser_statement (CrParser *p)
{
  if (is_compound_start (CUR_KIND (p)))
    compound (p);
  else
    simple_stmts (p);
}

/* ---- simple statements ---- */

static CrBinOp
augassign_op (CrTokKind  kind,
              gboolean  *ok)
{
  *ok = TRUE;
  switch (kind)
    {
    case CR_TOK_PLUSEQUAL: return CR_BINOP_ADD;
    case CR_TOK_MINEQUAL: return CR_BINOP_SUB;
    case CR_TOK_STAREQUAL: return CR_BINOP_MUL;
    case CR_TOK_ATEQUAL: return CR_BINOP_MATMUL;
    case CR_TOK_SLASHEQUAL: return CR_BINOP_DIV;
    case CR_TOK_DOUBLESLASHEQUAL: return CR_BINOP_FLOORDIV;
    case CR_TOK_PERCENTEQUAL: return CR_BINOP_MOD;
    case CR_TOK_DOUBLESTAREQUAL: return CR_BINOP_POW;
    case CR_TOK_LEFTSHIFTEQUAL: return CR_BINOP_LSHIFT;
    case CR_TOK_RIGHTSHIFTEQUAL: return CR_BINOP_RSHIFT;
    case CR_TOK_VBAREQUAL: return CR_BINOP_BITOR;
    case CR_TOK_CIRCUMFLEXEQUAL: return CR_BINOP_BITXOR;
    case CR_TOK_AMPEREQUAL: return CR_BINOP_BITAND;
    default:
      *ok = FALSE;
      return CR_BINOP_ADD;
    }
}

/* yield_expr | star_expressions */
static CrAstNode *
rhs (CrParser *p)
{
  if (CUR_KIND (p) == CR_TOK_KW_YIELD)
    return cr_parser_yield_expr (p);
  return cr_parser_star_expressions (p);
}

/* A single_target: NAME, attribute, subscript (parentheses allowed). */
static gboolean
is_single_target (const CrAstNode *e)
{
  return e->kind == CR_AST_NAME || e->kind == CR_AST_ATTRIBUTE || e->kind == CR_AST_SUBSCRIPT;
}

/* Is e a tuple written without parentheses (its span starts at its first
 * element)? */
static gboolean
is_bare_tuple (const CrAstNode *e)
{
  return e->kind == CR_AST_TUPLE && e->u.seq.n_elts > 0 &&
         e->span.line == e->u.seq.elts[0]->span.line &&
         e->span.column == e->u.seq.elts[0]->span.column;
}

/* The second pass over `target = ...` with an invalid target: Python's
 * invalid_assignment, in its order. first_eq is the token index of the
 * first '='. */
static void
invalid_assignment (CrParser        *p,
                    CrAstNode       *first,
                    guint            first_eq,
                    const CrAstNode *bad)
{
  guint save = p->pos;
  CrAstNode *a = first;

  /* The first target read as star_named_expression(s): the element just
   * before '=' may match invalid_named_expression. */
  if (is_bare_tuple (first))
    {
      CrAstNode *last = first->u.seq.elts[first->u.seq.n_elts - 1];
      const CrToken *before = &g_array_index (p->tokens, CrToken, first_eq - 1);

      a = before->kind == CR_TOK_COMMA || last->kind == CR_AST_STARRED ? NULL : last;
    }
  if (a != NULL && a->kind != CR_AST_STARRED)
    {
      p->pos = first_eq;
      cr_parser_invalid_named (p, a, G_MAXUINT);
      p->pos = save;
      if (p->raised)
        return;
    }
  cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span, "cannot assign to %s",
                   cr_parser_expr_name (bad));
}

static void
assignment (CrParser  *p,
            CrAstNode *first,
            CrSpan     start)
{
  guint base = p->stack->len;
  guint first_eq = p->pos;
  CrAstNode *node = cr_parser_node (p, CR_AST_ASSIGN, start);
  CrAstNode *value;

  value = first;
  for (;;)
    {
      const CrAstNode *bad = cr_parser_invalid_target (value, CR_TARGETS_STAR);

      if (bad != NULL)
        {
          if (p->invalid_rules)
            invalid_assignment (p, first, first_eq, bad);
          cr_parser_fail (p);
          return;
        }
      check_starred_targets (p, value, TRUE);
      push (p, value);
      p->pos++;   /* '=' */
      gboolean bare_yield = CUR_KIND (p) == CR_TOK_KW_YIELD;
      value = rhs (p);
      if (value == NULL)
        return;
      if (CUR_KIND (p) != CR_TOK_EQUAL)
        break;
      if (bare_yield)
        {
          /* `x = yield = 1`: Python's invalid_assignment. */
          if (p->invalid_rules)
            cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, value->span,
                             "assignment to yield expression not possible");
          cr_parser_fail (p);
          return;
        }
    }
  check_value (p, value);
  node->u.assign.targets = cr_parser_take (p, base, &node->u.assign.n_targets, node);
  node->u.assign.value = value;
  cr_parser_child (p, node, value);
  node->span = cr_parser_span_from (p, start);
  push (p, node);
}

static void
augassign (CrParser  *p,
           CrAstNode *target,
           CrSpan     start)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_AUGASSIGN, start);
  gboolean ok;

  node->u.augassign.op = augassign_op (CUR_KIND (p), &ok);
  /* Python's first pass stops at the operator after an invalid target. */
  if (!is_single_target (target) && !p->invalid_rules)
    {
      cr_parser_fail (p);
      return;
    }
  p->pos++;
  node->u.augassign.value = rhs (p);
  if (node->u.augassign.value == NULL)
    return;
  if (!is_single_target (target))
    {
      cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, target->span,
                       "'%s' is an illegal expression for augmented assignment",
                       cr_parser_expr_name (target));
      return;
    }
  check_value (p, node->u.augassign.value);
  node->u.augassign.target = target;
  cr_parser_child (p, node, target);
  cr_parser_child (p, node, node->u.augassign.value);
  node->span = cr_parser_span_from (p, start);
  push (p, node);
}

static void
annassign (CrParser  *p,
           CrAstNode *target,
           CrSpan     start)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_ANNASSIGN, start);
  CrAstNode *annotation;

  /* Python's first pass stops at the ':' after an invalid target. */
  if (!is_single_target (target) && !p->invalid_rules)
    {
      cr_parser_fail (p);
      return;
    }
  p->pos++;   /* ':' */
  annotation = cr_parser_expression (p);
  if (annotation == NULL)
    return;
  if (!is_single_target (target))
    {
      if (p->invalid_rules)
        {
          if (target->kind == CR_AST_LIST || (target->kind == CR_AST_TUPLE && !is_bare_tuple (target)))
            cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, target->span,
                             "only single target (not %s) can be annotated",
                             target->kind == CR_AST_LIST ? "list" : "tuple");
          else if (is_bare_tuple (target))
            cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, target->u.seq.elts[0]->span,
                             "only single target (not tuple) can be annotated");
          else if (target->kind != CR_AST_STARRED)
            cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, target->span,
                             "illegal target for annotation");
        }
      cr_parser_fail (p);
      return;
    }
  node->u.assign.annotation = annotation;
  if (cr_parser_accept (p, CR_TOK_EQUAL))
    {
      node->u.assign.value = rhs (p);
      if (node->u.assign.value == NULL)
        return;
      check_value (p, node->u.assign.value);
    }
  node->u.assign.targets = cr_arena_memdup (p->arena, &target, sizeof target);
  node->u.assign.n_targets = 1;
  cr_parser_child (p, node, target);
  cr_parser_child (p, node, annotation);
  cr_parser_child (p, node, node->u.assign.value);
  node->span = cr_parser_span_from (p, start);
  push (p, node);
}

/* Python's invalid_assignment reads `a, b c = x` as star_named_expression
 * ',' star_named_expressions*: lists one after the other, each element a
 * named expression, so `c = x` gets "Maybe you meant '==' or ':='". */
static void
juxtaposed_lists (CrParser *p)
{
  guint save = p->pos;
  CrParserTrial t;

  cr_parser_trial_begin (p, &t, TRUE);
  while (cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR)
    {
      do
        {
          if (cr_parser_star_named_expression (p) == NULL)
            break;
        }
      while (cr_parser_accept (p, CR_TOK_COMMA) &&
             (cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR));
      if (p->failed)
        break;
    }
  cr_parser_trial_end (p, &t, FALSE);
  if (!p->raised)
    p->pos = save;
}

static void
expr_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *e;
  gboolean is_aug;

  e = cr_parser_star_expressions (p);
  if (e == NULL)
    return;
  augassign_op (CUR_KIND (p), &is_aug);
  if (CUR_KIND (p) == CR_TOK_EQUAL)
    assignment (p, e, start);
  else if (is_aug)
    augassign (p, e, start);
  else if (CUR_KIND (p) == CR_TOK_COLON)
    annassign (p, e, start);
  else
    {
      if (p->invalid_rules && is_bare_tuple (e))
        {
          juxtaposed_lists (p);
          if (p->raised)
            return;
        }
      CrAstNode *node = cr_parser_node (p, CR_AST_EXPR, cr_parser_span_from (p, start));

      check_value (p, e);
      node->u.expr_stmt.value = e;
      cr_parser_child (p, node, e);
      push (p, node);
    }
}

/* dotted_name: NAME ('.' NAME)* as one interned string. */
static const char *
dotted_name (CrParser *p)
{
  g_autoptr(GString) name = g_string_new (NULL);

  do
    {
      const CrToken *t = CUR (p);

      if (t->kind != CR_TOK_NAME)
        return cr_parser_fail (p);
      if (name->len > 0)
        g_string_append_c (name, '.');
      g_string_append_len (name, p->src + t->start, t->end - t->start);
      p->pos++;
    }
  while (CUR_KIND (p) == CR_TOK_DOT && (p->pos++, TRUE));
  return cr_arena_intern (p->arena, name->str, name->len);
}

static gboolean
alias (CrParser *p,
       gboolean  dotted)
{
  CrAstAlias a = { NULL, NULL, CUR (p)->span };

  if (dotted)
    a.name = dotted_name (p);
  else if (CUR_KIND (p) == CR_TOK_NAME)
    {
      a.name = cr_parser_intern (p, CUR (p));
      p->pos++;
    }
  if (a.name == NULL)
    return cr_parser_fail (p) != NULL;
  if (cr_parser_accept (p, CR_TOK_KW_AS))
    {
      if (CUR_KIND (p) != CR_TOK_NAME)
        return cr_parser_fail (p) != NULL;
      a.asname = cr_parser_intern (p, CUR (p));
      p->pos++;
    }
  a.span = cr_parser_span_from (p, a.span);
  g_array_append_val (p->aliases, a);
  return TRUE;
}

static CrAstNode *
import_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_IMPORT, start);
  guint base = p->aliases->len;

  p->pos++;
  do
    {
      if (!alias (p, TRUE))
        return NULL;
    }
  while (cr_parser_accept (p, CR_TOK_COMMA));
  node->u.import.names = cr_parser_take_array (p, p->aliases, base, &node->u.import.n_names);
  node->span = cr_parser_span_from (p, start);
  return node;
}

static CrAstNode *
from_import_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_IMPORTFROM, start);
  guint base = p->aliases->len;

  p->pos++;
  for (;;)
    {
      if (cr_parser_accept (p, CR_TOK_DOT))
        node->u.import.level += 1;
      else if (cr_parser_accept (p, CR_TOK_ELLIPSIS))
        node->u.import.level += 3;
      else
        break;
    }
  if (CUR_KIND (p) != CR_TOK_KW_IMPORT || node->u.import.level == 0)
    {
      node->u.import.module = dotted_name (p);
      if (node->u.import.module == NULL)
        return NULL;
    }
  if (!cr_parser_accept (p, CR_TOK_KW_IMPORT))
    return cr_parser_fail (p);
  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrAstAlias a = { "*", NULL, CUR (p)->span };

      p->pos++;
      g_array_append_val (p->aliases, a);
    }
  else if (cr_parser_accept (p, CR_TOK_LPAR))
    {
      do
        {
          if (CUR_KIND (p) == CR_TOK_RPAR && p->aliases->len > base)
            break;
          if (!alias (p, FALSE))
            return NULL;
        }
      while (cr_parser_accept (p, CR_TOK_COMMA));
      if (!cr_parser_accept (p, CR_TOK_RPAR))
        return cr_parser_fail (p);
    }
  else
    {
      do
        {
          if (!alias (p, FALSE))
            {
              if (p->invalid_rules && !p->raised && p->aliases->len > base &&
                  PREV (p)->kind == CR_TOK_COMMA && CUR_KIND (p) == CR_TOK_NEWLINE)
                return cr_parser_raise_here (p, "trailing comma not allowed without "
                                             "surrounding parentheses");
              return NULL;
            }
        }
      while (cr_parser_accept (p, CR_TOK_COMMA));
    }
  node->u.import.names = cr_parser_take_array (p, p->aliases, base, &node->u.import.n_names);
  node->span = cr_parser_span_from (p, start);
  return node;
}

/* global / nonlocal: NAME (',' NAME)* */
static CrAstNode *
names_stmt (CrParser  *p,
            CrAstKind  kind)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, kind, start);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  p->pos++;
  do
    {
      if (CUR_KIND (p) != CR_TOK_NAME)
        return cr_parser_fail (p);
      g_ptr_array_add (names, (gpointer) cr_parser_intern (p, CUR (p)));
      p->pos++;
    }
  while (cr_parser_accept (p, CR_TOK_COMMA));
  node->u.names.n_names = names->len;
  node->u.names.names = cr_arena_memdup (p->arena, names->pdata, names->len * sizeof (gpointer));
  node->span = cr_parser_span_from (p, start);
  if (kind == CR_AST_NONLOCAL && p->at_module)
    cr_parser_late_error (p, CR_LATE_SYMTABLE, CR_EXC_SYNTAX_ERROR, node->span,
                          "nonlocal declaration not allowed at module level");
  return node;
}

/* del: targets separated by commas. */
static CrAstNode *
del_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_DEL, start);
  guint base = p->stack->len;

  p->pos++;
  for (;;)
    {
      CrAstNode *t;

      if (CUR_KIND (p) == CR_TOK_STAR)
        {
          CrSpan s = CUR (p)->span;

          p->pos++;
          t = cr_parser_bitwise_or (p);
          if (t != NULL)
            {
              CrAstNode *star = cr_parser_node (p, CR_AST_STARRED, cr_span_join (s, t->span));
              star->u.starred.value = t;
              cr_parser_child (p, star, t);
              t = star;
            }
        }
      else
        t = cr_parser_expression (p);
      if (t == NULL)
        return NULL;
      push (p, t);
      if (!cr_parser_accept (p, CR_TOK_COMMA) ||
          !(cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR))
        break;
    }
  for (guint i = base; i < p->stack->len; i++)
    {
      const CrAstNode *bad = cr_parser_invalid_target (p->stack->pdata[i], CR_TARGETS_DEL);

      if (bad != NULL)
        {
          if (p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span, "cannot delete %s",
                                    cr_parser_expr_name (bad));
          return cr_parser_fail (p);
        }
    }
  if (CUR_KIND (p) != CR_TOK_SEMI && CUR_KIND (p) != CR_TOK_NEWLINE)
    return cr_parser_fail (p);
  node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
  node->span = cr_parser_span_from (p, start);
  return node;
}

/* expression [sep expression] (raise X from Y, assert X, msg): both become
 * node's children; the second stays NULL without sep. */
static gboolean
expression_pair (CrParser   *p,
                 CrAstNode  *node,
                 CrTokKind   sep,
                 CrAstNode **first,
                 CrAstNode **second)
{
  *first = cr_parser_expression (p);
  if (*first == NULL)
    return FALSE;
  cr_parser_child (p, node, *first);
  if (cr_parser_accept (p, sep))
    {
      *second = cr_parser_expression (p);
      if (*second == NULL)
        return FALSE;
      cr_parser_child (p, node, *second);
    }
  return TRUE;
}

static void
simple_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = NULL;

  switch (CUR_KIND (p))
    {
    case CR_TOK_KW_PASS:
      p->pos++;
      node = cr_parser_node (p, CR_AST_PASS, start);
      break;

    case CR_TOK_KW_BREAK:
    case CR_TOK_KW_CONTINUE:
      {
        gboolean is_break = CUR_KIND (p) == CR_TOK_KW_BREAK;

        p->pos++;
        node = cr_parser_node (p, is_break ? CR_AST_BREAK : CR_AST_CONTINUE, start);
        if (!p->in_loop)
          cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, start,
                                is_break ? "'break' outside loop"
                                         : "'continue' not properly in loop");
      }
      break;

    case CR_TOK_KW_RETURN:
      p->pos++;
      node = cr_parser_node (p, CR_AST_RETURN, start);
      if (cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR)
        {
          node->u.ret.value = cr_parser_star_expressions (p);
          if (node->u.ret.value == NULL)
            return;
          check_value (p, node->u.ret.value);
          cr_parser_child (p, node, node->u.ret.value);
        }
      node->span = cr_parser_span_from (p, start);
      if (!p->in_func)
        cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, node->span,
                              "'return' outside function");
      break;

    case CR_TOK_KW_RAISE:
      p->pos++;
      node = cr_parser_node (p, CR_AST_RAISE, start);
      if (cr_parser_can_start_expression (CUR_KIND (p)))
        {
          if (!expression_pair (p, node, CR_TOK_KW_FROM,
                                &node->u.raise.exc, &node->u.raise.cause))
            return;
        }
      node->span = cr_parser_span_from (p, start);
      break;

    case CR_TOK_KW_GLOBAL:
      node = names_stmt (p, CR_AST_GLOBAL);
      break;

    case CR_TOK_KW_NONLOCAL:
      node = names_stmt (p, CR_AST_NONLOCAL);
      break;

    case CR_TOK_KW_DEL:
      node = del_stmt (p);
      break;

    case CR_TOK_KW_ASSERT:
      p->pos++;
      node = cr_parser_node (p, CR_AST_ASSERT, start);
      if (!expression_pair (p, node, CR_TOK_COMMA,
                            &node->u.assert_stmt.test, &node->u.assert_stmt.msg))
        return;
      node->span = cr_parser_span_from (p, start);
      break;

    case CR_TOK_KW_IMPORT:
      node = import_stmt (p);
      break;

    case CR_TOK_KW_FROM:
      node = from_import_stmt (p);
      break;

    case CR_TOK_KW_YIELD:
      {
        CrAstNode *value = cr_parser_yield_expr (p);

        if (value == NULL)
          return;
        if (CUR_KIND (p) == CR_TOK_EQUAL)
          {
            /* `yield = 1`: Python's "assignment to yield expression not possible". */
            if (p->invalid_rules)
              cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, value->span,
                               "assignment to yield expression not possible");
            cr_parser_fail (p);
            return;
          }
        node = cr_parser_node (p, CR_AST_EXPR, value->span);
        node->u.expr_stmt.value = value;
      }
      break;

    default:
      expr_stmt (p);
      return;
    }
  if (node != NULL)
    push (p, node);
}

static void
simple_stmts (CrParser *p)
{
  for (;;)
    {
      simple_stmt (p);
      if (p->failed)
        return;
      if (!cr_parser_accept (p, CR_TOK_SEMI) || CUR_KIND (p) == CR_TOK_NEWLINE)
        break;
    }
  if (!cr_parser_accept (p, CR_TOK_NEWLINE))
    cr_parser_fail (p);
}
