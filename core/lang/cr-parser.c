/* cr-parser.c — the script language's parser: the entry point, errors, and
 * statements (expressions are in cr-parser-expr.c).
 *
 * Which error a user sees follows CPython 3.11, because `chainrule run`
 * prints what `python3 script.py` prints:
 *   1. A tokenizer error stops everything when the parser reads that token.
 *   2. A failing statement is parsed again with the "invalid_*" rules on; the
 *      first of them that matches gives the message, otherwise it is "invalid
 *      syntax" at the furthest token read ("unexpected indent" when that
 *      token is an INDENT).
 *   3. After an error from the parser, the rest of the input is tokenized: a
 *      tokenizer error further down wins, and so does an unclosed bracket
 *      opened on an earlier line than the error.
 *   4. Errors of Python's symtable and compiler ('return' outside function,
 *      duplicate argument, ...) and Chainrule's "not supported" errors come
 *      only when everything parsed.
 */
#include "cr-parser-private.h"

#include <string.h>

/* ---- tokens ---- */

static void
lexer_failure (CrParser *p)
{
  const char *message;
  CrSpan span;
  int code;

  p->failed = TRUE;
  if (p->raised)
    return;
  code = cr_lexer_get_error (p->lexer, &message, &span);
  p->raised = TRUE;
  p->raised_by_lexer = TRUE;
  if (code == -1)
    {
      char bracket = '(';

      /* The end of the input inside brackets, met by the parser itself. */
      cr_lexer_unclosed (p->lexer, &bracket, &span);
      p->err_code = CR_EXC_SYNTAX_ERROR;
      p->err_msg = g_strdup_printf ("'%c' was never closed", bracket);
      p->err_span = span;
      return;
    }
  p->err_code = code;
  p->err_msg = g_strdup (message);
  p->err_span = span;
}

void
cr_parser_fetch (CrParser *p)
{
  CrToken t;

  cr_lexer_next (p->lexer, &t);
  g_array_append_val (p->tokens, t);
  if (t.kind == CR_TOK_ERROR)
    lexer_failure (p);
}

gboolean
cr_parser_at_name (CrParser   *p,
                   const char *name)
{
  const CrToken *t = CUR (p);
  gsize len = strlen (name);

  return t->kind == CR_TOK_NAME && t->end - t->start == len &&
         memcmp (p->src + t->start, name, len) == 0;
}

/* ---- errors ---- */

gpointer
cr_parser_fail (CrParser *p)
{
  p->failed = TRUE;
  return NULL;
}

static void
set_error_va (CrParser   *p,
              int         code,
              CrSpan      span,
              const char *format,
              va_list     args)
{
  p->failed = TRUE;
  if (p->raised)
    return;
  p->raised = TRUE;
  p->raised_by_lexer = FALSE;
  p->err_code = code;
  p->err_msg = g_strdup_vprintf (format, args);
  if (span.end_line < span.line ||
      (span.end_line == span.line && span.end_column <= span.column))
    {
      span.end_line = span.line;
      span.end_column = span.column + 1;
    }
  p->err_span = span;
}

gpointer
cr_parser_raise (CrParser   *p,
                 int         code,
                 CrSpan      span,
                 const char *format,
                 ...)
{
  va_list args;

  va_start (args, format);
  set_error_va (p, code, span, format, args);
  va_end (args);
  return NULL;
}

static CrSpan
furthest_span (CrParser *p)
{
  return g_array_index (p->tokens, CrToken, p->tokens->len - 1).span;
}

gpointer
cr_parser_raise_here (CrParser   *p,
                      const char *format,
                      ...)
{
  va_list args;

  va_start (args, format);
  set_error_va (p, CR_EXC_SYNTAX_ERROR, furthest_span (p), format, args);
  va_end (args);
  return NULL;
}

static gpointer
raise_indentation_here (CrParser   *p,
                        const char *format,
                        ...) G_GNUC_PRINTF (2, 3);

static gpointer
raise_indentation_here (CrParser   *p,
                        const char *format,
                        ...)
{
  va_list args;

  va_start (args, format);
  set_error_va (p, CR_EXC_INDENTATION_ERROR, furthest_span (p), format, args);
  va_end (args);
  return NULL;
}

void
cr_parser_late_error (CrParser    *p,
                      CrLateTier   tier,
                      int          code,
                      CrSpan       span,
                      const char  *format,
                      ...)
{
  va_list args;

  if (p->late_msg[tier] != NULL)
    return;
  va_start (args, format);
  p->late_msg[tier] = g_strdup_vprintf (format, args);
  va_end (args);
  p->late_code[tier] = code;
  p->late_span[tier] = span;
}

void
cr_parser_unsupported (CrParser   *p,
                       CrSpan      span,
                       const char *what)
{
  cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, span,
                        "%s not supported in Chainrule scripts", what);
}

gboolean
cr_parser_enter (CrParser *p)
{
  if (p->depth >= CR_PARSER_MAX_DEPTH)
    {
      cr_parser_raise (p, CR_EXC_RECURSION_ERROR, CUR (p)->span,
                       "maximum recursion depth exceeded during compilation");
      return FALSE;
    }
  p->depth++;
  return TRUE;
}

/* ---- spans and nodes ---- */

CrSpan
cr_parser_span_from (CrParser *p,
                     CrSpan    start)
{
  if (p->pos == 0)
    return start;
  return cr_span_join (start, PREV (p)->span);
}

void
cr_parser_locate (CrParser *p,
                  gsize     offset,
                  int      *line,
                  gsize    *line_start)
{
  if (offset < p->lc_offset)
    {
      p->lc_offset = 0;
      p->lc_line = 1;
      p->lc_line_start = 0;
    }
  for (gsize i = p->lc_offset; i < offset; i++)
    if (p->src[i] == '\n')
      {
        p->lc_line++;
        p->lc_line_start = i + 1;
      }
  p->lc_offset = offset;
  *line = p->lc_line;
  *line_start = p->lc_line_start;
}

CrSpan
cr_parser_offsets_span (CrParser *p,
                        gsize     start,
                        gsize     end)
{
  CrSpan span;
  gsize ls;

  cr_parser_locate (p, start, &span.line, &ls);
  span.column = cr_lexer_column (p->src, ls, start);
  cr_parser_locate (p, end, &span.end_line, &ls);
  span.end_column = cr_lexer_column (p->src, ls, end);
  return span;
}

CrAstNode *
cr_parser_node (CrParser  *p,
                CrAstKind  kind,
                CrSpan     span)
{
  CrAstNode *node = cr_arena_alloc (p->arena, sizeof *node);

  node->kind = kind;
  node->span = span;
  node->depth = 1;
  return node;
}

void
cr_parser_child (CrParser  *p,
                 CrAstNode *node,
                 CrAstNode *child)
{
  if (child == NULL || child->depth < node->depth)
    return;
  node->depth = child->depth + 1;
  if (node->depth == CR_AST_MAX_DEPTH + 1)
    cr_parser_late_error (p, CR_LATE_SYMTABLE, CR_EXC_RECURSION_ERROR, node->span,
                          "maximum recursion depth exceeded during compilation");
}

CrAstNode **
cr_parser_take (CrParser  *p,
                guint      base,
                guint     *n,
                CrAstNode *node)
{
  guint count = p->stack->len - base;
  CrAstNode **items;

  *n = count;
  if (count == 0)
    return NULL;
  items = cr_arena_memdup (p->arena, p->stack->pdata + base, count * sizeof (CrAstNode *));
  g_ptr_array_set_size (p->stack, base);
  if (node != NULL)
    for (guint i = 0; i < count; i++)
      cr_parser_child (p, node, items[i]);
  return items;
}

gpointer
cr_parser_take_array (CrParser *p,
                      GArray   *array,
                      guint     base,
                      guint    *n)
{
  guint count = array->len - base;
  guint size = g_array_get_element_size (array);
  gpointer items;

  *n = count;
  if (count == 0)
    return NULL;
  items = cr_arena_memdup (p->arena, array->data + (gsize) base * size, (gsize) count * size);
  g_array_set_size (array, base);
  return items;
}

const char *
cr_parser_intern (CrParser      *p,
                  const CrToken *token)
{
  const char *s = p->src + token->start;
  gsize len = token->end - token->start;

  for (gsize i = 0; i < len; i++)
    if ((guchar) s[i] >= 0x80)
      {
        /* Python compares identifiers after NFKC normalization. */
        char *norm = g_utf8_normalize (s, len, G_NORMALIZE_NFKC);
        const char *result;

        if (norm == NULL)
          break;
        result = cr_arena_intern (p->arena, norm, strlen (norm));
        g_free (norm);
        return result;
      }
  return cr_arena_intern (p->arena, s, len);
}

/* ---- targets ---- */

const char *
cr_parser_expr_name (const CrAstNode *e)
{
  switch (e->kind)
    {
    case CR_AST_ATTRIBUTE: return "attribute";
    case CR_AST_SUBSCRIPT: return "subscript";
    case CR_AST_STARRED: return "starred";
    case CR_AST_NAME: return "name";
    case CR_AST_LIST: return "list";
    case CR_AST_TUPLE: return "tuple";
    case CR_AST_LAMBDA: return "lambda";
    case CR_AST_CALL: return "function call";
    case CR_AST_BOOLOP:
    case CR_AST_BINOP:
    case CR_AST_UNARYOP: return "expression";
    case CR_AST_LISTCOMP:
      return e->u.comp.is_generator ? "generator expression" : "list comprehension";
    case CR_AST_DICT: return "dict literal";
    case CR_AST_JOINEDSTR:
    case CR_AST_FORMATTEDVALUE: return "f-string expression";
    case CR_AST_CONSTANT:
      if (e->u.constant.kind == CR_CONST_NONE)
        return "None";
      if (e->u.constant.kind == CR_CONST_BOOL)
        return e->u.constant.b ? "True" : "False";
      return "literal";
    case CR_AST_ELLIPSIS: return "ellipsis";
    case CR_AST_COMPARE: return "comparison";
    case CR_AST_IFEXP: return "conditional expression";
    case CR_AST_SLICE: return "slice";
    default: return "expression";
    }
}

const CrAstNode *
cr_parser_invalid_target (const CrAstNode *e,
                          CrTargetsType    type)
{
  if (e == NULL)
    return NULL;
  switch (e->kind)
    {
    case CR_AST_LIST:
    case CR_AST_TUPLE:
      for (guint i = 0; i < e->u.seq.n_elts; i++)
        {
          const CrAstNode *bad = cr_parser_invalid_target (e->u.seq.elts[i], type);
          if (bad != NULL)
            return bad;
        }
      return NULL;
    case CR_AST_STARRED:
      if (type == CR_TARGETS_DEL)
        return e;
      return cr_parser_invalid_target (e->u.starred.value, type);
    case CR_AST_COMPARE:
      /* `for a in b` parses as a comparison: look at its left side. */
      if (type == CR_TARGETS_FOR)
        {
          if (e->u.compare.ops[0] == CR_CMP_IN)
            return cr_parser_invalid_target (e->u.compare.left, type);
          return NULL;
        }
      return e;
    case CR_AST_NAME:
    case CR_AST_SUBSCRIPT:
    case CR_AST_ATTRIBUTE:
      return NULL;
    default:
      return e;
    }
}

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

/* ---- statements ---- */

static void statement    (CrParser *p);
static void simple_stmts (CrParser *p);

static void
push (CrParser  *p,
      CrAstNode *node)
{
  g_ptr_array_add (p->stack, node);
}

/* The end of a compound statement is the end of its last statement. */
static CrSpan
span_to_last (CrSpan      start,
              CrAstNode **body,
              guint       n)
{
  if (n == 0)
    return start;
  return cr_span_join (start, body[n - 1]->span);
}

/* block: NEWLINE INDENT statements DEDENT | simple_stmts */
static gboolean
block (CrParser    *p,
       const char  *what,
       int          line,
       CrAstNode   *owner,
       guint       *n_body,
       CrAstNode ***body)
{
  guint base = p->stack->len;

  if (CUR_KIND (p) == CR_TOK_NEWLINE)
    {
      p->pos++;
      if (CUR_KIND (p) != CR_TOK_INDENT)
        {
          if (p->invalid_rules)
            raise_indentation_here (p, "expected an indented block after %s on line %d",
                                    what, line);
          return cr_parser_fail (p) != NULL;
        }
      p->pos++;
      while (!p->failed && CUR_KIND (p) != CR_TOK_DEDENT)
        statement (p);
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
static gboolean
expect_colon (CrParser *p,
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
  if (!expect_colon (p, TRUE))
    return FALSE;
  return block (p, "'else' statement", line, owner, n, body);
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
  if (test == NULL || !expect_colon (p, FALSE))
    return NULL;
  node->u.if_stmt.test = test;
  cr_parser_child (p, node, test);
  if (!block (p, is_elif ? "'elif' statement" : "'if' statement", start.line, node,
              &node->u.if_stmt.n_body, &node->u.if_stmt.body))
    return NULL;
  node->span = span_to_last (start, node->u.if_stmt.body, node->u.if_stmt.n_body);
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
    node->span = span_to_last (start, node->u.if_stmt.orelse, node->u.if_stmt.n_orelse);
  return node;
}

static CrAstNode *
while_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_WHILE, start);
  gboolean in_loop = p->in_loop;
  gboolean ok;

  p->pos++;
  node->u.while_stmt.test = cr_parser_named_expression (p);
  if (node->u.while_stmt.test == NULL || !expect_colon (p, FALSE))
    return NULL;
  cr_parser_child (p, node, node->u.while_stmt.test);
  p->in_loop = TRUE;
  ok = block (p, "'while' statement", start.line, node,
              &node->u.while_stmt.n_body, &node->u.while_stmt.body);
  p->in_loop = in_loop;
  if (!ok)
    return NULL;
  node->span = span_to_last (start, node->u.while_stmt.body, node->u.while_stmt.n_body);
  if (CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, node, &node->u.while_stmt.n_orelse, &node->u.while_stmt.orelse))
        return NULL;
      node->span = span_to_last (start, node->u.while_stmt.orelse, node->u.while_stmt.n_orelse);
    }
  return node;
}

/* A for-target (also in comprehensions): invalid ones fail, or in the
 * second pass raise "cannot assign to ...". */
static CrAstNode *
for_target (CrParser *p)
{
  CrAstNode *target = cr_parser_star_targets (p);
  const CrAstNode *bad;

  if (target == NULL)
    return NULL;
  bad = cr_parser_invalid_target (target, CR_TARGETS_FOR);
  if (bad != NULL)
    {
      if (p->invalid_rules)
        return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, bad->span, "cannot assign to %s",
                                cr_parser_expr_name (bad));
      return cr_parser_fail (p);
    }
  check_starred_targets (p, target, TRUE);
  return target;
}

static CrAstNode *
for_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node = cr_parser_node (p, CR_AST_FOR, start);
  gboolean in_loop = p->in_loop;
  gboolean ok;

  p->pos++;
  node->u.for_stmt.target = for_target (p);
  if (node->u.for_stmt.target == NULL)
    return NULL;
  if (!cr_parser_accept (p, CR_TOK_KW_IN))
    return cr_parser_fail (p);
  node->u.for_stmt.iter = cr_parser_star_expressions (p);
  if (node->u.for_stmt.iter == NULL || !expect_colon (p, FALSE))
    return NULL;
  check_value (p, node->u.for_stmt.iter);
  cr_parser_child (p, node, node->u.for_stmt.target);
  cr_parser_child (p, node, node->u.for_stmt.iter);
  p->in_loop = TRUE;
  ok = block (p, "'for' statement", start.line, node,
              &node->u.for_stmt.n_body, &node->u.for_stmt.body);
  p->in_loop = in_loop;
  if (!ok)
    return NULL;
  node->span = span_to_last (start, node->u.for_stmt.body, node->u.for_stmt.n_body);
  if (CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, node, &node->u.for_stmt.n_orelse, &node->u.for_stmt.orelse))
        return NULL;
      node->span = span_to_last (start, node->u.for_stmt.orelse, node->u.for_stmt.n_orelse);
    }
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
  if (!expect_colon (p, FALSE))
    return NULL;
  node->u.with_stmt.items = cr_parser_take_array (p, p->withitems, base,
                                                  &node->u.with_stmt.n_items);
  for (guint i = 0; i < node->u.with_stmt.n_items; i++)
    {
      cr_parser_child (p, node, node->u.with_stmt.items[i].context_expr);
      cr_parser_child (p, node, node->u.with_stmt.items[i].optional_vars);
    }
  if (!block (p, "'with' statement", start.line, node,
              &node->u.with_stmt.n_body, &node->u.with_stmt.body))
    return NULL;
  node->span = span_to_last (start, node->u.with_stmt.body, node->u.with_stmt.n_body);
  return node;
}

static CrAstNode *
funcdef (CrParser  *p,
         guint      decorators_base)
{
  CrSpan start = CUR (p)->span;   /* Python's span starts at 'def', not at a decorator */
  CrAstNode *node;
  int line = CUR (p)->span.line;
  gboolean in_func = p->in_func, in_loop = p->in_loop, at_module = p->at_module;
  gboolean ok;

  node = cr_parser_node (p, CR_AST_FUNCTIONDEF, start);
  node->u.func.decorators = cr_parser_take (p, decorators_base, &node->u.func.n_decorators, node);
  p->pos++;   /* def */
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p);
  node->u.func.name = cr_parser_intern (p, CUR (p));
  p->pos++;
  if (!cr_parser_accept (p, CR_TOK_LPAR))
    return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span, "expected '('");
  if (!cr_parser_parameters (p, FALSE, &node->u.func.n_params, &node->u.func.params))
    return NULL;
  if (!cr_parser_accept (p, CR_TOK_RPAR))
    return cr_parser_fail (p);
  for (guint i = 0; i < node->u.func.n_params; i++)
    cr_parser_child (p, node, node->u.func.params[i].default_value);
  if (CUR_KIND (p) == CR_TOK_RARROW)
    {
      /* The return annotation is parsed and dropped. Python's parser drops
       * an unparsable one too and then insists on the ':' (&&':'). */
      guint arrow = p->pos;

      p->pos++;
      if (cr_parser_expression (p) == NULL)
        {
          if (p->raised)
            return NULL;
          p->failed = FALSE;
          p->pos = arrow;
        }
    }
  if (!expect_colon (p, TRUE))
    return NULL;
  p->in_func = TRUE;
  p->in_loop = FALSE;
  p->at_module = FALSE;
  ok = block (p, "function definition", line, node, &node->u.func.n_body, &node->u.func.body);
  p->in_func = in_func;
  p->in_loop = in_loop;
  p->at_module = at_module;
  if (!ok)
    return NULL;
  node->span = span_to_last (start, node->u.func.body, node->u.func.n_body);
  return node;
}

static CrAstNode *
classdef (CrParser *p,
          guint     decorators_base)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node;
  int line = CUR (p)->span.line;
  gboolean in_func = p->in_func, in_loop = p->in_loop, at_module = p->at_module;
  gboolean ok;

  node = cr_parser_node (p, CR_AST_CLASSDEF, start);
  node->u.cls.decorators = cr_parser_take (p, decorators_base, &node->u.cls.n_decorators, node);
  p->pos++;   /* class */
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p);
  node->u.cls.name = cr_parser_intern (p, CUR (p));
  p->pos++;
  if (CUR_KIND (p) == CR_TOK_LPAR)
    {
      /* The bases are parsed as a call's arguments. */
      CrAstNode *call = cr_parser_arguments_call (p, NULL, CUR (p)->span);

      if (call == NULL)
        return NULL;
      node->u.cls.bases = call->u.call.args;
      node->u.cls.n_bases = call->u.call.n_args;
      cr_parser_child (p, node, call);
      if (call->u.call.n_keywords > 0)
        cr_parser_unsupported (p, call->span, "class keyword arguments are");
      for (guint i = 0; i < node->u.cls.n_bases; i++)
        if (node->u.cls.bases[i]->kind == CR_AST_STARRED)
          cr_parser_unsupported (p, node->u.cls.bases[i]->span, "starred base classes are");
    }
  if (!expect_colon (p, FALSE))
    return NULL;
  p->in_func = FALSE;
  p->in_loop = FALSE;
  p->at_module = FALSE;
  ok = block (p, "class definition", line, node, &node->u.cls.n_body, &node->u.cls.body);
  p->in_func = in_func;
  p->in_loop = in_loop;
  p->at_module = at_module;
  if (!ok)
    return NULL;
  node->span = span_to_last (start, node->u.cls.body, node->u.cls.n_body);
  return node;
}

/* '@' named_expression NEWLINE ... then def or class. */
static CrAstNode *
decorated (CrParser *p)
{
  guint base = p->stack->len;

  while (cr_parser_accept (p, CR_TOK_AT))
    {
      CrAstNode *d = cr_parser_named_expression (p);

      if (d == NULL)
        return NULL;
      push (p, d);
      if (!cr_parser_accept (p, CR_TOK_NEWLINE))
        return cr_parser_fail (p);
    }
  if (CUR_KIND (p) == CR_TOK_KW_DEF)
    return funcdef (p, base);
  if (CUR_KIND (p) == CR_TOK_KW_CLASS)
    return classdef (p, base);
  if (CUR_KIND (p) == CR_TOK_KW_ASYNC && PEEK_KIND (p, 1) == CR_TOK_KW_DEF)
    {
      cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
      p->pos++;
      return funcdef (p, base);
    }
  return cr_parser_fail (p);
}

/* try is not part of the language, but is parsed, so that its error comes
 * only when the rest is valid (and Python's own errors in it come first). */
static CrAstNode *
try_stmt (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *holder = cr_parser_node (p, CR_AST_PASS, start);
  guint n;
  CrAstNode **body;
  gboolean handlers = FALSE;

  p->pos++;
  if (!expect_colon (p, TRUE) ||
      !block (p, "'try' statement", start.line, holder, &n, &body))
    return NULL;
  while (CUR_KIND (p) == CR_TOK_KW_EXCEPT)
    {
      int line = CUR (p)->span.line;

      handlers = TRUE;
      p->pos++;
      if (CUR_KIND (p) != CR_TOK_COLON)
        {
          if (cr_parser_accept (p, CR_TOK_STAR))
            cr_parser_unsupported (p, start, "'except*' clauses are");
          if (CUR_KIND (p) == CR_TOK_NEWLINE && p->invalid_rules)
            return cr_parser_raise_here (p, "expected ':'");
          if (cr_parser_expression (p) == NULL)
            return NULL;
          if (CUR_KIND (p) == CR_TOK_COMMA && p->invalid_rules)
            return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span,
                                    "multiple exception types must be parenthesized");
          if (cr_parser_accept (p, CR_TOK_KW_AS))
            {
              if (!cr_parser_accept (p, CR_TOK_NAME))
                return cr_parser_fail (p);
            }
        }
      if (!expect_colon (p, FALSE) ||
          !block (p, "'except' statement", line, holder, &n, &body))
        return NULL;
    }
  if (handlers && CUR_KIND (p) == CR_TOK_KW_ELSE)
    {
      if (!else_block (p, holder, &n, &body))
        return NULL;
    }
  if (CUR_KIND (p) == CR_TOK_KW_FINALLY)
    {
      int line = CUR (p)->span.line;

      handlers = TRUE;
      p->pos++;
      if (!expect_colon (p, TRUE) ||
          !block (p, "'finally' statement", line, holder, &n, &body))
        return NULL;
    }
  if (!handlers)
    {
      if (p->invalid_rules)
        return cr_parser_raise_here (p, "expected 'except' or 'finally' block");
      return cr_parser_fail (p);
    }
  cr_parser_unsupported (p, start, "'try' statements are");
  holder->span = cr_parser_span_from (p, start);
  return holder;
}

static void
compound (CrParser *p)
{
  CrAstNode *node = NULL;

  switch (CUR_KIND (p))
    {
    case CR_TOK_KW_DEF:
    case CR_TOK_AT:
      node = decorated (p);
      break;
    case CR_TOK_KW_CLASS:
      node = classdef (p, p->stack->len);
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
        node = next == CR_TOK_KW_DEF ? decorated (p)
             : next == CR_TOK_KW_FOR ? for_stmt (p)
             : with_stmt (p);
      }
      break;
    default:
      g_assert_not_reached ();
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

static void
statement (CrParser *p)
{
  if (is_compound_start (CUR_KIND (p)))
    compound (p);
  else
    simple_stmts (p);
}

/* ---- simple statements ---- */

static CrBinOp
augassign_op (CrTokKind kind,
              gboolean *ok)
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
      value = rhs (p);
      if (value == NULL)
        return;
      if (CUR_KIND (p) != CR_TOK_EQUAL)
        break;
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
  p->pos++;
  node->u.augassign.value = rhs (p);
  if (node->u.augassign.value == NULL)
    return;
  if (!is_single_target (target))
    {
      if (p->invalid_rules)
        cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, target->span,
                         "'%s' is an illegal expression for augmented assignment",
                         cr_parser_expr_name (target));
      cr_parser_fail (p);
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
          node->u.raise.exc = cr_parser_expression (p);
          if (node->u.raise.exc == NULL)
            return;
          cr_parser_child (p, node, node->u.raise.exc);
          if (cr_parser_accept (p, CR_TOK_KW_FROM))
            {
              node->u.raise.cause = cr_parser_expression (p);
              if (node->u.raise.cause == NULL)
                return;
              cr_parser_child (p, node, node->u.raise.cause);
            }
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
      node->u.assert_stmt.test = cr_parser_expression (p);
      if (node->u.assert_stmt.test == NULL)
        return;
      cr_parser_child (p, node, node->u.assert_stmt.test);
      if (cr_parser_accept (p, CR_TOK_COMMA))
        {
          node->u.assert_stmt.msg = cr_parser_expression (p);
          if (node->u.assert_stmt.msg == NULL)
            return;
          cr_parser_child (p, node, node->u.assert_stmt.msg);
        }
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

/* ---- the module ---- */

/* Python tokenizes the rest of the input after an error from the parser: a
 * tokenizer error there wins, and so does a bracket left open on an earlier
 * line than the error. */
static void
check_rest_of_input (CrParser *p)
{
  int err_line = furthest_span (p).line;

  for (;;)
    {
      CrToken t;

      cr_lexer_next (p->lexer, &t);
      if (t.kind == CR_TOK_ENDMARKER)
        return;
      if (t.kind == CR_TOK_ERROR)
        {
          const char *message;
          CrSpan span;
          int code = cr_lexer_get_error (p->lexer, &message, &span);
          char bracket;

          if (code != -1)
            {
              g_free (p->err_msg);
              p->err_msg = g_strdup (message);
              p->err_code = code;
              p->err_span = span;
            }
          else if (cr_lexer_unclosed (p->lexer, &bracket, &span) && span.line < err_line)
            {
              g_free (p->err_msg);
              p->err_msg = g_strdup_printf ("'%c' was never closed", bracket);
              p->err_code = CR_EXC_SYNTAX_ERROR;
              p->err_span = span;
            }
          return;
        }
    }
}

/* A statement failed without a message: parse it again with the invalid_*
 * rules on; without a match, the error is at the furthest token of the
 * first pass. */
static void
second_pass (CrParser *p,
             guint     stmt_start)
{
  CrToken last = g_array_index (p->tokens, CrToken, p->tokens->len - 1);

  p->failed = FALSE;
  p->pos = stmt_start;
  p->invalid_rules = TRUE;
  p->depth = 0;
  p->in_func = FALSE;
  p->in_loop = FALSE;
  p->at_module = TRUE;
  statement (p);
  if (p->raised)
    {
      if (!p->raised_by_lexer)
        check_rest_of_input (p);
      return;
    }

  if (last.kind == CR_TOK_INDENT || last.kind == CR_TOK_DEDENT)
    {
      CrSpan span = last.span;

      /* Python points after the indentation. */
      span.column = MAX (span.column - 1, 1);
      span.end_column = span.column + 1;
      cr_parser_raise (p, CR_EXC_INDENTATION_ERROR, span,
                       last.kind == CR_TOK_INDENT ? "unexpected indent" : "unexpected unindent");
      return;
    }
  cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, last.span, "invalid syntax");
  check_rest_of_input (p);
}

static void
parse_module (CrParser    *p,
              CrAstModule *module)
{
  while (CUR_KIND (p) != CR_TOK_ENDMARKER)
    {
      guint stmt_start;

      /* Nothing before a top-level statement is read again. */
      if (p->pos >= 256)
        {
          g_array_remove_range (p->tokens, 0, p->pos);
          p->pos = 0;
        }
      stmt_start = p->pos;
      statement (p);
      if (p->failed)
        {
          if (!p->raised)
            second_pass (p, stmt_start);
          else if (!p->raised_by_lexer)
            check_rest_of_input (p);
          return;
        }
    }
  if (p->failed)
    {
      /* The ENDMARKER check itself met a tokenizer error. */
      return;
    }
  module->body = cr_parser_take (p, 0, &module->n_body, NULL);
}

/* Python reads the file as UTF-8: a BOM is dropped, line ends become "\n",
 * and a last line without its newline gets one. NUL bytes and invalid UTF-8
 * are errors, as in `python3 script.py`. */
static char *
prepare_source (const char  *source,
                gsize        length,
                const char  *filename,
                gsize       *out_len,
                CrSpan      *error_span,
                GError     **error)
{
  const char *end;
  const char *nul;
  GString *out;
  int line;

  if (length >= 3 && memcmp (source, "\xEF\xBB\xBF", 3) == 0)
    {
      source += 3;
      length -= 3;
    }

  nul = memchr (source, '\0', length);
  if (!g_utf8_validate_len (source, nul ? (gsize) (nul - source) : length, &end))
    {
      const char *ls = source;

      line = 1;
      for (const char *q = source; q < end; q++)
        if (*q == '\n')
          line++, ls = q + 1;
      if (error_span)
        {
          error_span->line = error_span->end_line = line;
          error_span->column = cr_lexer_column (source, 0, end - source) -
                               cr_lexer_column (source, 0, ls - source) + 1;
          error_span->end_column = error_span->column + 1;
        }
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "Non-UTF-8 code starting with '\\x%02x' in file %s on line %d, "
                   "but no encoding declared; see https://peps.python.org/pep-0263/ "
                   "for details", (guchar) *end, filename, line);
      return NULL;
    }
  if (nul != NULL)
    {
      line = 1;
      for (const char *q = source; q < nul; q++)
        if (*q == '\n')
          line++;
      if (error_span)
        {
          error_span->line = error_span->end_line = line;
          error_span->column = 0;
          error_span->end_column = 0;
        }
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                           "source code cannot contain null bytes");
      return NULL;
    }

  out = g_string_sized_new (length + 2);
  if (memchr (source, '\r', length) == NULL)
    g_string_append_len (out, source, length);
  else
    for (gsize i = 0; i < length; i++)
      {
        if (source[i] == '\r')
          {
            g_string_append_c (out, '\n');
            if (i + 1 < length && source[i + 1] == '\n')
              i++;
          }
        else
          g_string_append_c (out, source[i]);
      }
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  *out_len = out->len;
  return g_string_free (out, FALSE);
}

CrAstModule *
cr_parse (const char  *source,
          gssize       length,
          const char  *filename,
          CrSpan      *error_span,
          GError     **error)
{
  CrParser parser = { 0 };
  CrParser *p = &parser;
  CrAstModule *module;
  char *text;
  gsize text_len = 0;
  int code = -1;
  const char *message = NULL;
  CrSpan span = { 0 };

  g_return_val_if_fail (source != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (filename == NULL)
    filename = "<string>";
  if (length < 0)
    length = (gssize) strlen (source);
  if (error_span)
    memset (error_span, 0, sizeof *error_span);

  text = prepare_source (source ? source : "", (gsize) length, filename, &text_len,
                         error_span, error);
  if (text == NULL)
    return NULL;

  module = g_new0 (CrAstModule, 1);
  module->filename = g_strdup (filename);
  module->source = text;
  module->arena = cr_arena_new ();

  p->src = text;
  p->arena = module->arena;
  p->lexer = cr_lexer_new (text, 0, text_len, 1, 0, FALSE);
  p->tokens = g_array_sized_new (FALSE, FALSE, sizeof (CrToken), 256);
  p->stack = g_ptr_array_new ();
  p->params = g_array_new (FALSE, FALSE, sizeof (CrAstParam));
  p->keywords = g_array_new (FALSE, FALSE, sizeof (CrAstKeyword));
  p->aliases = g_array_new (FALSE, FALSE, sizeof (CrAstAlias));
  p->withitems = g_array_new (FALSE, FALSE, sizeof (CrAstWithItem));
  p->cmpops = g_array_new (FALSE, FALSE, sizeof (CrCmpOp));
  p->at_module = TRUE;
  p->lc_line = 1;

  parse_module (p, module);

  if (p->failed)
    {
      code = p->raised ? p->err_code : CR_EXC_SYNTAX_ERROR;
      message = p->err_msg ? p->err_msg : "invalid syntax";
      span = p->err_span;
    }
  else
    for (int tier = CR_LATE_SYMTABLE; tier <= CR_LATE_COMPILER; tier++)
      if (p->late_msg[tier] != NULL)
        {
          code = p->late_code[tier];
          message = p->late_msg[tier];
          span = p->late_span[tier];
          break;
        }

  if (message != NULL)
    {
      g_set_error_literal (error, CR_LANG_ERROR, code, message);
      if (error_span)
        *error_span = span;
      cr_ast_module_free (module);
      module = NULL;
    }

  cr_lexer_free (p->lexer);
  g_array_unref (p->tokens);
  g_ptr_array_unref (p->stack);
  g_array_unref (p->params);
  g_array_unref (p->keywords);
  g_array_unref (p->aliases);
  g_array_unref (p->withitems);
  g_array_unref (p->cmpops);
  g_free (p->err_msg);
  for (int tier = 0; tier < 3; tier++)
    g_free (p->late_msg[tier]);
  return module;
}
