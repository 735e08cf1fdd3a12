/* cr-parser.c — the script language's parser: the entry point, the token
 * buffer, errors and their priorities, nodes and targets (statements are in
 * cr-parser-stmt.c and cr-parser-def.c, expressions in cr-parser-expr.c and
 * cr-parser-display.c).
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
#include "cr-stack-guard.h"

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
  CrToken *t;

  if (p->ntokens == p->tokens->len)
    g_array_set_size (p->tokens, MAX (64, 2 * p->tokens->len));
  t = &g_array_index (p->tokens, CrToken, p->ntokens++);
  cr_lexer_next (p->lexer, t);
  if (t->kind == CR_TOK_ERROR)
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
              va_list     args) G_GNUC_PRINTF (4, 0);

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
  CrSpan span = LAST (p)->span;

  /* Python's INDENT and DEDENT have no position of their own: it reports
   * them at the end of the indentation (offset 0 for a line that starts at
   * its first column). */
  if (LAST (p)->kind == CR_TOK_INDENT || LAST (p)->kind == CR_TOK_DEDENT)
    {
      span.column -= 1;
      span.end_column = span.column + 1;
    }
  return span;
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

gpointer
cr_parser_raise_indentation_here (CrParser   *p,
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

/* The syntax tree, the tokens of the current statement and the memo. */
static gsize
memory_in_use (CrParser *p)
{
  return cr_arena_size (p->arena) + p->tokens->len * sizeof (CrToken) +
         (p->memo ? g_hash_table_size (p->memo) * 64 : 0);
}

/* A cancelled run stops while it parses too (a big text takes a while even
 * in linear time), and the parse is held to the run's memory budget. */
static gboolean
check_budgets (CrParser *p)
{
  gint value;

  if (--p->poll_countdown > 0)
    return TRUE;
  p->poll_countdown = 1024;
  if (p->max_memory > 0 && memory_in_use (p) > p->max_memory)
    {
      cr_parser_raise (p, CR_EXC_MEMORY_ERROR, CUR (p)->span, "%s", "");
      return FALSE;
    }
  if (p->cancel_flag == NULL)
    return TRUE;
  value = g_atomic_int_get (p->cancel_flag);
  if (G_LIKELY (value == 0))
    return TRUE;
  if (value == 2)
    cr_parser_raise (p, CR_EXC_TIMEOUT_ERROR, CUR (p)->span,
                     "the script did not finish within the time limit (--timeout)");
  else
    cr_parser_raise (p, CR_EXC_KEYBOARD_INTERRUPT, CUR (p)->span, "%s", "");
  return FALSE;
}

gboolean
cr_parser_enter (CrParser *p)
{
  if (p->depth >= CR_PARSER_MAX_DEPTH || cr_stack_guard_exhausted ())
    {
      cr_parser_raise (p, CR_EXC_RECURSION_ERROR, CUR (p)->span,
                       "maximum recursion depth exceeded during compilation");
      return FALSE;
    }
  if (!check_budgets (p))
    return FALSE;
  p->depth++;
  return TRUE;
}

/* ---- memoisation (second pass) ---- */

typedef struct {
  CrAstNode *result;
  guint      end_pos;
  gboolean   failed;
} MemoEntry;

GHashTable *
cr_parser_memo_new (void)
{
  return g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
}

CrMemoKey
cr_parser_memo_key (CrParser   *p,
                    CrMemoRule  rule)
{
  guint64 key = ((guint64) p->pos << 4) | ((guint64) rule << 2) |
                (p->invalid_rules ? 2u : 0u) | (p->without_invalid ? 1u : 0u);

  /* Never NULL; a token position fits in a pointer's 60 bits. */
  return GSIZE_TO_POINTER ((gsize) key + 1);
}

gboolean
cr_parser_memo_lookup (CrParser   *p,
                       CrMemoKey   key,
                       CrAstNode **out)
{
  MemoEntry *entry;

  if (p->memo == NULL || (entry = g_hash_table_lookup (p->memo, key)) == NULL)
    return FALSE;
  *out = entry->result;
  p->pos = entry->end_pos;
  if (entry->failed)
    p->failed = TRUE;
  /* The rule would have taken the flag (expression_inner clears it). */
  p->without_invalid = FALSE;
  return TRUE;
}

void
cr_parser_memo_store (CrParser   *p,
                      CrMemoKey   key,
                      CrAstNode  *result)
{
  MemoEntry *entry;

  if (p->memo == NULL || p->raised)
    return;
  entry = g_new (MemoEntry, 1);
  entry->result = result;
  entry->end_pos = p->pos;
  entry->failed = p->failed;
  g_hash_table_replace (p->memo, key, entry);
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
                  gsize    *line_start,
                  int      *column)
{
  if (offset < p->lc_offset && offset >= p->lc_line_start)
    {
      /* A step back on the same line. */
      for (gsize i = offset; i < p->lc_offset; i++)
        if (((guchar) p->src[i] & 0xC0) != 0x80)
          p->lc_column--;
      p->lc_offset = offset;
    }
  else if (offset < p->lc_offset)
    {
      p->lc_offset = 0;
      p->lc_line = 1;
      p->lc_line_start = 0;
      p->lc_column = 1;
    }
  for (gsize i = p->lc_offset; i < offset; i++)
    {
      if (p->src[i] == '\n')
        {
          p->lc_line++;
          p->lc_line_start = i + 1;
          p->lc_column = 1;
        }
      else if (((guchar) p->src[i] & 0xC0) != 0x80)
        p->lc_column++;
    }
  p->lc_offset = offset;
  *line = p->lc_line;
  *line_start = p->lc_line_start;
  *column = p->lc_column;
}

CrSpan
cr_parser_offsets_span (CrParser *p,
                        gsize     start,
                        gsize     end)
{
  CrSpan span;
  gsize ls;

  cr_parser_locate (p, start, &span.line, &ls, &span.column);
  cr_parser_locate (p, end, &span.end_line, &ls, &span.end_column);
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
  /* Python counts expressions; a statement adds no level of its own. */
  if (node->depth == CR_AST_MAX_DEPTH + 1 && node->kind < CR_AST_EXPR)
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
  guint32 hash = 2166136261u;
  guint slot;
  const char *result;

  for (gsize i = 0; i < len; i++)
    hash = (hash ^ (guchar) s[i]) * 16777619u;
  slot = hash & (G_N_ELEMENTS (p->names) - 1);
  if (p->names[slot].hash == hash && p->names[slot].len == len &&
      memcmp (p->names[slot].str, s, len) == 0)
    return p->names[slot].str;

  result = NULL;
  for (gsize i = 0; i < len; i++)
    if ((guchar) s[i] >= 0x80)
      {
        /* Python compares identifiers after NFKC normalization. */
        char *norm = g_utf8_normalize (s, len, G_NORMALIZE_NFKC);
        if (norm == NULL)
          break;
        /* Not cached: the interned text differs from the source. */
        result = cr_arena_intern (p->arena, norm, strlen (norm));
        g_free (norm);
        return result;
      }
  result = cr_arena_intern (p->arena, s, len);
  p->names[slot].str = result;
  p->names[slot].len = (guint32) len;
  p->names[slot].hash = hash;
  return result;
}

/* ---- trial parses (second pass only) ----
 *
 * Some of Python's invalid_* rules look ahead: "is there an expression
 * after this one?" A trial parses, then puts everything back, except an
 * error with a message (a tokenizer error there stops everything, as in
 * Python). */

void
cr_parser_trial_begin (CrParser      *p,
                       CrParserTrial *t,
                       gboolean       invalid_rules)
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
gboolean
cr_parser_trial_end (CrParser      *p,
                     CrParserTrial *t,
                     gboolean       keep)
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
 * (the right operand of `a + (c d)`, the arguments of `f(c d)`, the 'else'
 * of `a if b`), keeps what it had. That decides which invalid_* rule matches
 * next ("expected 'else' after 'if' expression" for `a if f(c d) else b`),
 * and the furthest token read, where "invalid syntax" points, stays where it
 * is. A shorter parse never makes an invalid text valid: what follows (an
 * operator, '(', 'if') cannot follow a complete expression. */
gboolean
cr_parser_backtrack (CrParser      *p,
                     CrParserTrial *t)
{
  if (p->raised || !p->failed)
    return FALSE;
  p->failed = FALSE;
  cr_parser_trial_end (p, t, FALSE);
  return TRUE;
}

/* ---- starred ---- */

CrAstNode *
cr_parser_starred (CrParser  *p,
                   CrAstNode *value,
                   CrSpan     start)
{
  CrAstNode *node = cr_parser_node (p, CR_AST_STARRED, cr_parser_span_from (p, start));

  node->u.starred.value = value;
  cr_parser_child (p, node, value);
  return node;
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
      return e->u.comp.key ? "dict comprehension"
           : e->u.comp.is_set ? "set comprehension"
           : e->u.comp.is_generator ? "generator expression" : "list comprehension";
    case CR_AST_DICT: return "dict literal";
    case CR_AST_SET: return "set display";
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
    case CR_AST_YIELD:
    case CR_AST_YIELD_FROM: return "yield expression";
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

          if (code != -1 && !cr_lexer_error_is_quiet (p->lexer))
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
  CrToken last = *LAST (p);

  p->failed = FALSE;
  p->pos = stmt_start;
  p->invalid_rules = TRUE;
  p->memo = cr_parser_memo_new ();
  p->depth = 0;
  p->in_func = FALSE;
  p->in_loop = FALSE;
  p->at_module = TRUE;
  cr_parser_statement (p);
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
  /* Python's ENDMARKER has no position: "invalid syntax" at offset 0. */
  if (last.kind == CR_TOK_ENDMARKER)
    last.span.column = 0;
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
          /* Only the tokens read move (the array is grown ahead). */
          memmove (p->tokens->data, &g_array_index (p->tokens, CrToken, p->pos),
                   (p->ntokens - p->pos) * sizeof (CrToken));
          p->ntokens -= p->pos;
          p->pos = 0;
        }
      if (!check_budgets (p))
        return;
      stmt_start = p->pos;
      cr_parser_statement (p);
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
  if (!cr_lexer_is_ascii (source, nul ? (gsize) (nul - source) : length) &&
      !g_utf8_validate_len (source, nul ? (gsize) (nul - source) : length, &end))
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
  return cr_parse_with_options (source, length, filename, NULL, error_span, error);
}

CrAstModule *
cr_parse_with_options (const char           *source,
                       gssize                length,
                       const char           *filename,
                       const CrParseOptions *options,
                       CrSpan               *error_span,
                       GError              **error)
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
  p->lexer = cr_lexer_new (text, 0, text_len, 1, 0, 1, FALSE);
  p->tokens = g_array_sized_new (FALSE, FALSE, sizeof (CrToken), 256);
  p->stack = g_ptr_array_new ();
  p->params = g_array_new (FALSE, FALSE, sizeof (CrAstParam));
  p->keywords = g_array_new (FALSE, FALSE, sizeof (CrAstKeyword));
  p->aliases = g_array_new (FALSE, FALSE, sizeof (CrAstAlias));
  p->withitems = g_array_new (FALSE, FALSE, sizeof (CrAstWithItem));
  p->cmpops = g_array_new (FALSE, FALSE, sizeof (CrCmpOp));
  p->at_module = TRUE;
  p->cancel_flag = options ? options->cancel_flag : NULL;
  p->max_memory = options ? options->max_memory : 0;
  p->poll_countdown = 1;
  p->lc_line = 1;
  p->lc_column = 1;

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
  g_clear_pointer (&p->memo, g_hash_table_unref);
  g_free (p->err_msg);
  for (int tier = 0; tier < 3; tier++)
    g_free (p->late_msg[tier]);
  return module;
}
