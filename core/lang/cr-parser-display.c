/* cr-parser-display.c — displays and literals: tuples, lists, dicts, list
 * comprehensions and generator expressions (and sets and dict
 * comprehensions, parsed to be refused), comma-separated lists, numbers,
 * strings and f-strings.
 */
#include "cr-parser-private.h"

#include <string.h>

CrAstNode *
cr_parser_constant (CrParser    *p,
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
  CrAstNode *node = cr_parser_constant (p, CR_CONST_STR, span);

  node->u.constant.s = cr_arena_strndup (p->arena, s, len);
  node->u.constant.s_len = len;
  return node;
}

/* ---- comma lists and displays ---- */

/* '*' bitwise_or | otherwise: a starred element, or what else may stand there. */
static CrAstNode *
starred_or (CrParser   *p,
            CrAstNode *(*otherwise) (CrParser *p))
{
  if (CUR_KIND (p) != CR_TOK_STAR)
    return otherwise (p);
  CrSpan start = CUR (p)->span;
  p->pos++;
  CrAstNode *value = cr_parser_bitwise_or (p);
  return value ? cr_parser_starred (p, value, start) : NULL;
}

/* '*' bitwise_or | named_expression */
CrAstNode *
cr_parser_star_named_expression (CrParser *p)
{
  return starred_or (p, cr_parser_named_expression);
}

/* '*' bitwise_or | expression */
static CrAstNode *
star_expression (CrParser *p)
{
  return starred_or (p, cr_parser_expression);
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

/* A target of `for` or `with ... as`: Python's star_target reads a primary
 * (a name, attribute, subscript, or a bracketed list of targets), so
 * `for x + 1 in y` stops at the '+'. */
CrAstNode *
cr_parser_star_target (CrParser *p)
{
  if (CUR_KIND (p) == CR_TOK_STAR)
    {
      CrSpan start = CUR (p)->span;
      CrAstNode *value;

      p->pos++;
      value = cr_parser_primary (p);
      return value ? cr_parser_starred (p, value, start) : NULL;
    }
  return cr_parser_primary (p);
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
  CrAstNode *node, *value = NULL;
  gboolean from;

  p->pos++;
  from = cr_parser_accept (p, CR_TOK_KW_FROM);
  if (from)
    {
      value = cr_parser_expression (p);
      if (value == NULL)
        return NULL;
    }
  else if (cr_parser_can_start_expression (CUR_KIND (p)) || CUR_KIND (p) == CR_TOK_STAR)
    {
      value = cr_parser_star_expressions (p);
      if (value == NULL)
        return NULL;
      if (value->kind == CR_AST_STARRED)
        cr_parser_late_error (p, CR_LATE_COMPILER, CR_EXC_SYNTAX_ERROR, value->span,
                              "can't use starred expression here");
    }
  /* Where a yield may stand ('yield' outside function, inside a
   * comprehension) is the resolver's check, as it is Python's compiler's. */
  node = cr_parser_node (p, from ? CR_AST_YIELD_FROM : CR_AST_YIELD, start);
  node->u.yield_expr.value = value;
  cr_parser_child (p, node, value);
  node->span = cr_parser_span_from (p, start);
  return node;
}

/* for_if_clauses after elt: ('for' star_targets 'in' disjunction ('if' disjunction)*)+ */
CrAstNode *
cr_parser_comprehension (CrParser  *p,
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
      target = cr_parser_for_targets (p);
      if (target == NULL)
        return NULL;
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

/* A display's comprehension, from its element (at 'for') to the closing
 * bracket; a starred element is an error once the clauses parse. */
static CrAstNode *
display_comprehension (CrParser  *p,
                       CrAstNode *elt,
                       gboolean   is_generator,
                       CrTokKind  close,
                       CrSpan     start)
{
  CrAstNode *node;

  if (elt->kind == CR_AST_STARRED)
    {
      cr_parser_starred_comprehension (p, elt);
      return cr_parser_fail (p);
    }
  node = cr_parser_comprehension (p, elt, is_generator, start);
  if (node == NULL)
    return NULL;
  if (!cr_parser_accept (p, close))
    return cr_parser_fail (p);
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
  first = cr_parser_star_named_expression (p);
  if (first == NULL)
    return NULL;
  if (CUR_KIND (p) == CR_TOK_KW_FOR || CUR_KIND (p) == CR_TOK_KW_ASYNC)
    return display_comprehension (p, first, TRUE, close, start);
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
      e = cr_parser_star_named_expression (p);
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

CrAstNode *
cr_parser_paren_atom (CrParser *p)
{
  CrSpan start = CUR (p)->span;

  p->pos++;
  return paren_contents (p, start, CR_TOK_RPAR);
}

/* Python's invalid_comprehension for `[*a for a in b]` (also in
 * parentheses, braces and a call's): when the clauses parse, the starred
 * element is the error. */
void
cr_parser_starred_comprehension (CrParser  *p,
                                 CrAstNode *starred)
{
  CrParserTrial t;
  CrSpan start = { 0 };

  if (!p->invalid_rules || p->raised)
    return;
  p->failed = FALSE;
  cr_parser_trial_begin (p, &t, TRUE);
  cr_parser_comprehension (p, starred, FALSE, start);
  if (cr_parser_trial_end (p, &t, FALSE))
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, starred->span,
                     "iterable unpacking cannot be used in comprehension");
}

/* Python's invalid_comprehension for [a, b for ...] and {a, b for ...}. */
static void
comprehension_target_hint (CrParser  *p,
                           CrAstNode *first,
                           CrSpan     last)
{
  CrParserTrial t;
  CrSpan start = { 0 };

  if (!p->invalid_rules || CUR_KIND (p) != CR_TOK_KW_FOR)
    return;
  cr_parser_trial_begin (p, &t, TRUE);
  cr_parser_comprehension (p, first, FALSE, start);
  if (cr_parser_trial_end (p, &t, FALSE))
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, cr_span_join (first->span, last),
                     "did you forget parentheses around the comprehension target?");
}

CrAstNode *
cr_parser_list_atom (CrParser *p)
{
  CrSpan start = CUR (p)->span;
  guint base = p->stack->len;
  CrAstNode *first, *node;

  p->pos++;
  if (cr_parser_accept (p, CR_TOK_RSQB))
    return cr_parser_node (p, CR_AST_LIST, cr_parser_span_from (p, start));
  first = cr_parser_star_named_expression (p);
  if (first == NULL)
    return NULL;
  if (CUR_KIND (p) == CR_TOK_KW_FOR || CUR_KIND (p) == CR_TOK_KW_ASYNC)
    return display_comprehension (p, first, FALSE, CR_TOK_RSQB, start);
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
      e = cr_parser_star_named_expression (p);
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

CrAstNode *
cr_parser_brace_atom (CrParser *p)
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
      first = cr_parser_star_named_expression (p);
      if (first == NULL)
        return NULL;
      if (CUR_KIND (p) != CR_TOK_COLON || first->kind == CR_AST_STARRED)
        {
          /* A set display or a set comprehension. */
          if (CUR_KIND (p) == CR_TOK_KW_FOR)
            {
              node = display_comprehension (p, first, FALSE, CR_TOK_RBRACE, start);
              if (node != NULL)
                node->u.comp.is_set = TRUE;
              return node;
            }
          g_ptr_array_add (p->stack, first);
          while (cr_parser_accept (p, CR_TOK_COMMA))
            {
              CrAstNode *e;

              if (CUR_KIND (p) == CR_TOK_RBRACE)
                break;
              e = cr_parser_star_named_expression (p);
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
          node = cr_parser_node (p, CR_AST_SET, start);
          node->u.seq.elts = cr_parser_take (p, base, &node->u.seq.n_elts, node);
          if (!cr_parser_accept (p, CR_TOK_RBRACE))
            return cr_parser_fail (p);
          node->span = cr_parser_span_from (p, start);
          return node;
        }
      value = dict_value (p);
      if (value == NULL)
        return NULL;
      if (CUR_KIND (p) == CR_TOK_KW_FOR)
        {
          node = cr_parser_comprehension (p, value, FALSE, start);
          if (node == NULL)
            return NULL;
          if (!cr_parser_accept (p, CR_TOK_RBRACE))
            return cr_parser_fail (p);
          node->span = cr_parser_span_from (p, start);
          node->u.comp.key = first;
          cr_parser_child (p, node, first);
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

CrAstNode *
cr_parser_number (CrParser *p)
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
  node = cr_parser_constant (p, t.num_kind == CR_NUM_INT ? CR_CONST_INT : CR_CONST_FLOAT, t.span);
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
  guint outer_ntokens = p->ntokens;
  guint outer_pos = p->pos;
  gboolean outer_invalid = p->invalid_rules;
  gboolean outer_raised = p->raised;
  GHashTable *outer_memo = p->memo;
  CrAstNode *value;
  int line, column;
  gsize line_start;

  cr_parser_locate (p, start, &line, &line_start, &column);
  p->lexer = cr_lexer_new (p->src, start, end, line, line_start, column, TRUE);
  p->tokens = g_array_new (FALSE, FALSE, sizeof (CrToken));
  p->ntokens = 0;
  p->pos = 0;
  p->invalid_rules = FALSE;
  /* Positions here are in the expression's own tokens. */
  p->memo = NULL;
  p->fstring_level++;

  value = paren_contents (p, CUR (p)->span, CR_TOK_ENDMARKER);
  if (value == NULL && !p->raised)
    {
      CrToken last = *LAST (p);

      p->failed = FALSE;
      p->pos = 0;
      p->invalid_rules = TRUE;
      p->memo = cr_parser_memo_new ();
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
  g_clear_pointer (&p->memo, g_hash_table_unref);
  p->memo = outer_memo;
  cr_lexer_free (p->lexer);
  g_array_unref (p->tokens);
  p->lexer = outer_lexer;
  p->tokens = outer_tokens;
  p->ntokens = outer_ntokens;
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
          /* The scanner gives nothing else after an expression. */
          cr_parser_raise_here (p, "f-string: expecting '}'");
          return FALSE;
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
CrAstNode *
cr_parser_strings (CrParser *p)
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
