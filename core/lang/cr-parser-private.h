/* cr-parser-private.h — the parser's state, shared by cr-parser.c (the
 * entry point, tokens, errors, nodes), cr-parser-stmt.c (statements),
 * cr-parser-def.c (def, class, parameters), cr-parser-expr.c (operators,
 * calls, subscripts) and cr-parser-display.c (tuples, lists, dicts, comprehensions, strings,
 * f-strings).
 *
 * The parser is recursive descent over a token stream, and it reports errors
 * the way CPython 3.11's PEG parser does: a first pass that only knows
 * "this does not parse" (the error is "invalid syntax" at the furthest token
 * read), then, on failure, a second pass over the failing statement in which
 * the "invalid_*" rules of Python's grammar are active and raise the specific
 * messages ("Perhaps you forgot a comma?", "cannot assign to function call
 * here...", "expected ':'"). Errors Python's tokenizer or its compiler would
 * raise keep their own priorities (see cr-parser.c).
 */
#pragma once

#include "cr-ast-private.h"
#include "cr-lexer.h"
#include "cr-error.h"

G_BEGIN_DECLS

/* Python's parser gives up (MemoryError) somewhere past this many nested
 * rules; Chainrule gives the compiler's RecursionError instead. */
#define CR_PARSER_MAX_DEPTH 3000

typedef enum {
  CR_LATE_NONE,
  CR_LATE_SYMTABLE,   /* Python's symtable: before the compiler's errors */
  CR_LATE_COMPILER,
} CrLateTier;

typedef struct {
  const char  *src;
  CrArena     *arena;

  /* Tokens: every token read since the start of the current top-level
   * statement (the second pass and a few lookaheads go back to them). */
  CrLexer     *lexer;
  GArray      *tokens;          /* of CrToken, grown ahead: ntokens are read */
  guint        ntokens;
  guint        pos;

  /* Errors. failed: unwinding; raised: err_* hold a message (otherwise the
   * failure is a plain "invalid syntax", decided at the end). */
  gboolean     failed;
  gboolean     raised;
  gboolean     raised_by_lexer;
  int          err_code;
  char        *err_msg;
  CrSpan       err_span;
  gboolean     invalid_rules;   /* the second pass */
  gboolean     without_invalid; /* the next expression is Python's
                                 * expression_without_invalid: no invalid_*
                                 * alternatives of its own (nested rules keep
                                 * theirs) */
  GHashTable  *memo;            /* second pass only: see cr_parser_memo_lookup () */

  /* Stop when *cancel_flag turns non-zero, or past max_memory bytes (0: no
   * limit); both are polled every so many rules. */
  const gint  *cancel_flag;
  gsize        max_memory;
  guint        poll_countdown;

  /* The first compile-time error of each tier, reported when the text
   * parses: Python's compiler runs only then. */
  int          late_code[3];
  char        *late_msg[3];
  CrSpan       late_span[3];

  /* Context. */
  int          depth;
  gboolean     in_func;
  gboolean     in_loop;
  gboolean     at_module;       /* not inside a def or class */
  int          fstring_level;

  /* Line, line start and column of offsets inside f-strings, moving
   * forward (so that a long line of f-strings stays linear). */
  gsize        lc_offset;
  int          lc_line;
  gsize        lc_line_start;
  int          lc_column;

  /* Recently interned identifiers, by hash (most names repeat). */
  struct {
    const char *str;
    guint32     len;
    guint32     hash;
  } names[256];

  /* Scratch stacks: a list under construction is pushed here, then copied
   * into the arena when complete. */
  GPtrArray   *stack;           /* of CrAstNode* */
  GArray      *params;          /* of CrAstParam */
  GArray      *keywords;        /* of CrAstKeyword */
  GArray      *aliases;         /* of CrAstAlias */
  GArray      *withitems;       /* of CrAstWithItem */
  GArray      *cmpops;          /* of CrCmpOp */
} CrParser;

/* ---- tokens ---- */

void         cr_parser_fetch         (CrParser    *p);

static inline const CrToken *
cr_parser_tok (CrParser *p,
               guint     i)
{
  while (i >= p->ntokens)
    cr_parser_fetch (p);
  return &g_array_index (p->tokens, CrToken, i);
}

/* The current token; the pointer is valid until the next token is read. */
#define CUR(p)         (cr_parser_tok ((p), (p)->pos))
#define CUR_KIND(p)    (CUR (p)->kind)
#define PEEK_KIND(p,k) (cr_parser_tok ((p), (p)->pos + (k))->kind)
#define PREV(p)        (&g_array_index ((p)->tokens, CrToken, (p)->pos - 1))
/* The furthest token read (Python's p->tokens[p->fill - 1]). */
#define LAST(p)        (&g_array_index ((p)->tokens, CrToken, (p)->ntokens - 1))

static inline gboolean
cr_parser_accept (CrParser  *p,
                  CrTokKind  kind)
{
  if (CUR_KIND (p) == kind)
    {
      p->pos++;
      return TRUE;
    }
  return FALSE;
}

/* Is the current token NAME with this text? */
gboolean     cr_parser_at_name       (CrParser    *p,
                                      const char  *name);

/* ---- errors ---- */

/* A plain failure: "invalid syntax" (or what the second pass finds). */
gpointer     cr_parser_fail          (CrParser    *p);
/* An error with its message (the first one wins). */
gpointer     cr_parser_raise         (CrParser    *p,
                                      int          code,
                                      CrSpan       span,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (4, 5);
/* At the furthest token read (Python's RAISE_SYNTAX_ERROR without location). */
gpointer     cr_parser_raise_here    (CrParser    *p,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (2, 3);
gpointer     cr_parser_raise_indentation_here (CrParser   *p,
                                               const char *format,
                                               ...) G_GNUC_PRINTF (2, 3);
void         cr_parser_late_error    (CrParser    *p,
                                      CrLateTier   tier,
                                      int          code,
                                      CrSpan       span,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (5, 6);
/* "... are not supported in Chainrule scripts" (a late error). */
void         cr_parser_unsupported   (CrParser    *p,
                                      CrSpan       span,
                                      const char  *what);
gboolean     cr_parser_enter         (CrParser    *p);
#define      cr_parser_leave(p)      ((p)->depth--)

/* ---- memoisation (second pass) ----
 *
 * In the second pass an invalid_* alternative may parse the rest of a nested
 * expression again (`(a-(a-(a-` is parsed once as an operand, once more after
 * the operand fails to find "Perhaps you forgot a comma?"): each level would
 * double the work. As CPython's PEG parser memoises its rules, the second pass
 * keeps each result by (token position, rule, flags), so that a text is
 * parsed in linear time. The first pass never parses a rule twice at the same
 * place with the same flags. */
typedef enum {
  CR_MEMO_EXPRESSION,
  CR_MEMO_BRACKET_ATOM,
} CrMemoRule;

/* Where and how a rule starts: the current position and flags. Taken on
 * entering the rule, before it changes them. */
typedef gpointer CrMemoKey;

CrMemoKey    cr_parser_memo_key      (CrParser    *p,
                                      CrMemoRule   rule);
/* TRUE when the rule of key was parsed there before: then *out is what it
 * returned, p->failed is set as it set it, and the position is where it
 * ended. FALSE when not known, or not in the second pass. */
gboolean     cr_parser_memo_lookup   (CrParser    *p,
                                      CrMemoKey    key,
                                      CrAstNode  **out);
/* Keeps what the rule of key returned (result, p->failed, the position); an
 * error with a message is not kept: it ends the parse. */
void         cr_parser_memo_store    (CrParser    *p,
                                      CrMemoKey    key,
                                      CrAstNode   *result);
/* A new, empty memo for the second pass over the current token array. */
GHashTable  *cr_parser_memo_new      (void);

/* ---- spans and nodes ---- */

static inline CrSpan
cr_span_join (CrSpan a,
              CrSpan b)
{
  CrSpan s = { a.line, a.column, b.end_line, b.end_column };
  return s;
}

/* From the start of `start` to the end of the last token consumed. */
CrSpan       cr_parser_span_from     (CrParser    *p,
                                      CrSpan       start);
/* The span of bytes [start, end) of the source. */
CrSpan       cr_parser_offsets_span  (CrParser    *p,
                                      gsize        start,
                                      gsize        end);
/* Line, line start and column of byte offset. */
void         cr_parser_locate        (CrParser    *p,
                                      gsize        offset,
                                      int         *line,
                                      gsize       *line_start,
                                      int         *column);

CrAstNode   *cr_parser_node          (CrParser    *p,
                                      CrAstKind    kind,
                                      CrSpan       span);
/* Account for a child in node's depth. */
void         cr_parser_child         (CrParser    *p,
                                      CrAstNode   *node,
                                      CrAstNode   *child);
/* Copy stack[base..] into the arena (children of node) and pop them. */
CrAstNode  **cr_parser_take          (CrParser    *p,
                                      guint        base,
                                      guint       *n,
                                      CrAstNode   *node);
gpointer     cr_parser_take_array    (CrParser    *p,
                                      GArray      *array,
                                      guint        base,
                                      guint       *n);
const char  *cr_parser_intern        (CrParser    *p,
                                      const CrToken *token);

/* ---- targets ---- */

typedef enum {
  CR_TARGETS_STAR,    /* assignment */
  CR_TARGETS_FOR,
  CR_TARGETS_DEL,
} CrTargetsType;

/* Python's _PyPegen_get_expr_name (): "function call", "literal", ... */
const char  *cr_parser_expr_name     (const CrAstNode *e);
/* Python's _PyPegen_get_invalid_target (): NULL when e is a valid target. */
const CrAstNode *cr_parser_invalid_target (const CrAstNode *e,
                                           CrTargetsType    type);

/* ---- trial parses and backtracking (second pass) ----
 *
 * Some of Python's invalid_* rules look ahead ("is there an expression after
 * this one?"), and its PEG parser backtracks over a failed optional part. A
 * trial records the position and the scratch stacks; ending it puts them
 * back, except after an error with a message (a tokenizer error there stops
 * everything, as in Python). */
typedef struct {
  guint    pos;
  guint    stack_len;
  guint    params_len;
  guint    keywords_len;
  guint    cmpops_len;
  gboolean invalid_rules;
} CrParserTrial;

void         cr_parser_trial_begin   (CrParser      *p,
                                      CrParserTrial *t,
                                      gboolean       invalid_rules);
/* TRUE when the trial parsed; the position is put back unless keep. */
gboolean     cr_parser_trial_end     (CrParser      *p,
                                      CrParserTrial *t,
                                      gboolean       keep);
/* After a failure without a message in the second pass: back to t, TRUE. */
gboolean     cr_parser_backtrack     (CrParser      *p,
                                      CrParserTrial *t);

CrAstNode   *cr_parser_starred       (CrParser    *p,
                                      CrAstNode   *value,
                                      CrSpan       start);
CrAstNode   *cr_parser_constant      (CrParser    *p,
                                      CrConstKind  kind,
                                      CrSpan       span);

/* ---- statements (cr-parser-stmt.c) ---- */

/* One statement (a compound one, or a line of simple ones) onto the stack. */
void         cr_parser_statement     (CrParser    *p);
/* `targets in` after 'for' (statements and comprehensions). */
CrAstNode   *cr_parser_for_targets   (CrParser    *p);
/* block: NEWLINE INDENT statements DEDENT | simple_stmts, into *body (owned
 * by owner); `what` and line name the statement in the error for a missing
 * indented block. */
gboolean     cr_parser_block         (CrParser     *p,
                                      const char   *what,
                                      int           line,
                                      CrAstNode    *owner,
                                      guint        *n_body,
                                      CrAstNode  ***body);
/* ':' before a block; `forced` is Python's &&':' (an error right away). */
gboolean     cr_parser_expect_colon  (CrParser    *p,
                                      gboolean     forced);
/* The end of a compound statement: the end of its last statement. */
CrSpan       cr_parser_span_to_last  (CrSpan       start,
                                      CrAstNode  **body,
                                      guint        n);

/* ---- definitions (cr-parser-def.c) ---- */

/* Decorators, then a def or class (at 'def', '@', 'class', or 'def' after a
 * consumed 'async'). */
CrAstNode   *cr_parser_definition    (CrParser    *p);

/* ---- expressions (cr-parser-expr.c, cr-parser-display.c) ---- */

CrAstNode   *cr_parser_expression          (CrParser *p);
CrAstNode   *cr_parser_named_expression    (CrParser *p);
CrAstNode   *cr_parser_star_expressions    (CrParser *p);
CrAstNode   *cr_parser_disjunction         (CrParser *p);
CrAstNode   *cr_parser_bitwise_or          (CrParser *p);
CrAstNode   *cr_parser_primary             (CrParser *p);
CrAstNode   *cr_parser_star_targets        (CrParser *p);
CrAstNode   *cr_parser_star_named_expression (CrParser *p);
CrAstNode   *cr_parser_star_target         (CrParser *p);
CrAstNode   *cr_parser_yield_expr          (CrParser *p);
/* '(' arguments ')' after func (NULL for a class's bases), which began at
 * start. */
CrAstNode   *cr_parser_arguments_call      (CrParser *p,
                                            CrAstNode *func,
                                            CrSpan     start);
/* def and lambda parameters, up to (not including) the closing token
 * (cr-parser-def.c). */
gboolean     cr_parser_parameters          (CrParser *p,
                                            gboolean  is_lambda,
                                            guint    *out_n,
                                            CrAstParam **out_params);
/* Second-pass check after `a =` in named-expression position. */
void         cr_parser_invalid_named       (CrParser *p,
                                            CrAstNode *a,
                                            guint      a_start);
gboolean     cr_parser_can_start_expression (CrTokKind kind);
CrAstNode   *cr_parser_comprehension       (CrParser  *p,
                                            CrAstNode *elt,
                                            gboolean   is_generator,
                                            CrSpan     start);
void         cr_parser_starred_comprehension (CrParser  *p,
                                              CrAstNode *starred);
CrAstNode   *cr_parser_paren_atom          (CrParser *p);
CrAstNode   *cr_parser_list_atom           (CrParser *p);
CrAstNode   *cr_parser_brace_atom          (CrParser *p);
CrAstNode   *cr_parser_number              (CrParser *p);
CrAstNode   *cr_parser_strings             (CrParser *p);

G_END_DECLS
