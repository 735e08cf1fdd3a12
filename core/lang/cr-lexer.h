/* cr-lexer.h — the tokenizer of the script language (private to core/lang).
 *
 * It follows CPython 3.11's tokenizer closely, because the positions and the
 * texts of its errors ("unterminated string literal (detected at line 3)",
 * "unindent does not match any outer indentation level", "invalid decimal
 * literal") are what a user sees, and they must match Python's.
 *
 * The lexer streams: the parser pulls one token at a time. Every token keeps
 * its span (1-based lines and columns, columns in code points, end exclusive)
 * and its byte range in the source. Keywords are their own token kinds.
 * f-strings are one STRING token, split later by CrFStringScanner, as in 3.11.
 */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* CPython's limits: the tokenizer refuses deeper nesting with an error. */
#define CR_LEXER_MAX_LEVEL  200   /* "too many nested parentheses" */
#define CR_LEXER_MAX_INDENT 100   /* "too many levels of indentation" */

typedef enum {
  CR_TOK_ENDMARKER,
  CR_TOK_NAME,
  CR_TOK_NUMBER,
  CR_TOK_STRING,
  CR_TOK_NEWLINE,
  CR_TOK_INDENT,
  CR_TOK_DEDENT,
  CR_TOK_ERROR,          /* see cr_lexer_get_error () */

  /* Operators and delimiters. */
  CR_TOK_LPAR,           /* ( */
  CR_TOK_RPAR,           /* ) */
  CR_TOK_LSQB,           /* [ */
  CR_TOK_RSQB,           /* ] */
  CR_TOK_LBRACE,         /* { */
  CR_TOK_RBRACE,         /* } */
  CR_TOK_COLON,          /* : */
  CR_TOK_COMMA,          /* , */
  CR_TOK_SEMI,           /* ; */
  CR_TOK_PLUS,           /* + */
  CR_TOK_MINUS,          /* - */
  CR_TOK_STAR,           /* * */
  CR_TOK_SLASH,          /* / */
  CR_TOK_VBAR,           /* | */
  CR_TOK_AMPER,          /* & */
  CR_TOK_LESS,           /* < */
  CR_TOK_GREATER,        /* > */
  CR_TOK_EQUAL,          /* = */
  CR_TOK_DOT,            /* . */
  CR_TOK_PERCENT,        /* % */
  CR_TOK_EQEQUAL,        /* == */
  CR_TOK_NOTEQUAL,       /* != */
  CR_TOK_LESSEQUAL,      /* <= */
  CR_TOK_GREATEREQUAL,   /* >= */
  CR_TOK_TILDE,          /* ~ */
  CR_TOK_CIRCUMFLEX,     /* ^ */
  CR_TOK_LEFTSHIFT,      /* << */
  CR_TOK_RIGHTSHIFT,     /* >> */
  CR_TOK_DOUBLESTAR,     /* ** */
  CR_TOK_PLUSEQUAL,      /* += */
  CR_TOK_MINEQUAL,       /* -= */
  CR_TOK_STAREQUAL,      /* *= */
  CR_TOK_SLASHEQUAL,     /* /= */
  CR_TOK_PERCENTEQUAL,   /* %= */
  CR_TOK_AMPEREQUAL,     /* &= */
  CR_TOK_VBAREQUAL,      /* |= */
  CR_TOK_CIRCUMFLEXEQUAL,/* ^= */
  CR_TOK_LEFTSHIFTEQUAL, /* <<= */
  CR_TOK_RIGHTSHIFTEQUAL,/* >>= */
  CR_TOK_DOUBLESTAREQUAL,/* **= */
  CR_TOK_DOUBLESLASH,    /* // */
  CR_TOK_DOUBLESLASHEQUAL,/* //= */
  CR_TOK_AT,             /* @ */
  CR_TOK_ATEQUAL,        /* @= */
  CR_TOK_RARROW,         /* -> */
  CR_TOK_ELLIPSIS,       /* ... */
  CR_TOK_COLONEQUAL,     /* := */
  CR_TOK_OP,             /* any other character: ! $ ? ` (Python's generic OP) */

  /* Keywords (Python's hard keywords). */
  CR_TOK_KW_FALSE,
  CR_TOK_KW_NONE,
  CR_TOK_KW_TRUE,
  CR_TOK_KW_AND,
  CR_TOK_KW_AS,
  CR_TOK_KW_ASSERT,
  CR_TOK_KW_ASYNC,
  CR_TOK_KW_AWAIT,
  CR_TOK_KW_BREAK,
  CR_TOK_KW_CLASS,
  CR_TOK_KW_CONTINUE,
  CR_TOK_KW_DEF,
  CR_TOK_KW_DEL,
  CR_TOK_KW_ELIF,
  CR_TOK_KW_ELSE,
  CR_TOK_KW_EXCEPT,
  CR_TOK_KW_FINALLY,
  CR_TOK_KW_FOR,
  CR_TOK_KW_FROM,
  CR_TOK_KW_GLOBAL,
  CR_TOK_KW_IF,
  CR_TOK_KW_IMPORT,
  CR_TOK_KW_IN,
  CR_TOK_KW_IS,
  CR_TOK_KW_LAMBDA,
  CR_TOK_KW_NONLOCAL,
  CR_TOK_KW_NOT,
  CR_TOK_KW_OR,
  CR_TOK_KW_PASS,
  CR_TOK_KW_RAISE,
  CR_TOK_KW_RETURN,
  CR_TOK_KW_TRY,
  CR_TOK_KW_WHILE,
  CR_TOK_KW_WITH,
  CR_TOK_KW_YIELD,
  CR_TOK_COUNT
} CrTokKind;

#define CR_TOK_IS_KEYWORD(k) ((k) >= CR_TOK_KW_FALSE && (k) <= CR_TOK_KW_YIELD)

/* STRING token prefix flags. */
enum {
  CR_STR_RAW   = 1 << 0,
  CR_STR_BYTES = 1 << 1,
  CR_STR_FMT   = 1 << 2,   /* f-string */
};

/* NUMBER token kinds. */
typedef enum {
  CR_NUM_INT,
  CR_NUM_FLOAT,
  CR_NUM_IMAG,
} CrNumKind;

typedef struct {
  CrTokKind  kind;
  int        level;        /* bracket nesting after this token */
  CrSpan     span;
  gsize      start;        /* byte range in the source */
  gsize      end;
  guint8     str_flags;    /* STRING: CR_STR_* */
  guint8     prefix_len;   /* STRING: bytes before the opening quote */
  guint8     quote_len;    /* STRING: 1 or 3 */
  guint8     num_kind;     /* NUMBER: CrNumKind */
} CrToken;

typedef struct _CrLexer CrLexer;

/* Lex source[start, end): source must stay alive (the module owns it) and
 * source[end - 1] should be '\n' for whole files (cr_parse makes sure).
 * line, line_start and column give the position of source[start]
 * (line_start is the byte offset where that line begins), so that the spans
 * of an f-string's expressions point into the file. fstring_expr: lex an
 * f-string expression part, as CPython 3.11 does, as if inside parentheses. */
CrLexer    *cr_lexer_new          (const char     *source,
                                   gsize           start,
                                   gsize           end,
                                   int             line,
                                   gsize           line_start,
                                   int             column,
                                   gboolean        fstring_expr);
void        cr_lexer_free         (CrLexer        *self);   /* NULL-safe */

/* The next token; after ENDMARKER or ERROR, the same again. */
void        cr_lexer_next         (CrLexer        *self,
                                   CrToken        *token);

/* After an ERROR token: the Python exception (CR_EXC_SYNTAX_ERROR,
 * CR_EXC_INDENTATION_ERROR), message and span. An ERROR with code -1 is
 * the end of the input inside brackets (Python reports "'(' was never
 * closed" or keeps the parser's own error, see cr_lexer_unclosed ()). */
int         cr_lexer_get_error    (CrLexer        *self,
                                   const char    **message,
                                   CrSpan         *span);

/* CPython's tokenizer raises most errors itself, but for an unindent that
 * matches no level, inconsistent tabs, too deep an indentation, a character
 * after a line continuation and the end of input after one, it only marks
 * its state, and the parser raises them when it reads that token. The
 * difference shows after a parser error: Python tokenizes the rest of the
 * input, and only an error the tokenizer raised itself replaces the
 * parser's. TRUE for the second kind. */
gboolean    cr_lexer_error_is_quiet (CrLexer      *self);

/* The innermost unclosed bracket: its character and position. FALSE when
 * none is open. */
gboolean    cr_lexer_unclosed     (CrLexer        *self,
                                   char           *bracket,
                                   CrSpan         *span);

/* The column (1-based, in code points) of byte offset pos on the line that
 * begins at byte line_start. */
int         cr_lexer_column       (const char     *source,
                                   gsize           line_start,
                                   gsize           pos);

const char *cr_tok_kind_name      (CrTokKind       kind);

/* Is s[0, len) plain ASCII? (Fast: eight bytes at a time.) */
gboolean    cr_lexer_is_ascii     (const char     *s,
                                   gsize           len);

/* ---- token values ---- */

/* Value of a NUMBER token. FALSE with *message (static or owned by the
 * caller: see cr_lexer_number_value) when an int does not fit in 64 bits. */
gboolean    cr_lexer_number_value (const char     *source,
                                   const CrToken  *token,
                                   gint64         *out_int,
                                   double         *out_float,
                                   char          **out_message);

/* Decode a string literal body (escapes unless raw) and append it to out
 * (UTF-8). FALSE with a Python-style message (owned by the caller) on a bad
 * escape, e.g. "(unicode error) 'unicodeescape' codec can't decode bytes in
 * position 0-2: truncated \xXX escape". */
gboolean    cr_lexer_decode_string (const char    *body,
                                    gsize          len,
                                    gboolean       raw,
                                    GString       *out,
                                    char         **out_message);

/* ---- f-strings ----
 *
 * An f-string body is split the way CPython 3.11's string_parser.c does it,
 * one event at a time, so that the parser compiles each expression before
 * the scanner looks at its conversion and format spec (the order in which
 * Python reports errors). */
typedef enum {
  CR_FSTR_END,        /* the end of the body */
  CR_FSTR_TEXT,       /* literal text: text, text_len (decoded) */
  CR_FSTR_EXPR,       /* a replacement field starts: expression source range */
  CR_FSTR_SPEC,       /* the field has a format spec; its events follow */
  CR_FSTR_FIELD_END,  /* conversion, debug text range, has_spec */
  CR_FSTR_ERROR,      /* message */
} CrFStrEvent;

typedef struct {
  CrFStrEvent  event;
  int          depth;          /* 0: the f-string, 1: a format spec, ... */
  const char  *text;           /* TEXT; valid until the next call */
  gsize        text_len;
  gsize        expr_start;     /* EXPR: byte offsets in the source */
  gsize        expr_end;
  int          conversion;     /* FIELD_END: 0, 'r', 's', 'a' */
  gboolean     has_debug;      /* FIELD_END: {x=}: debug_start..end is "x=" */
  gsize        debug_start;
  gsize        debug_end;
  gboolean     has_spec;       /* FIELD_END */
  gsize        end;            /* FIELD_END: just after the '}' */
  const char  *message;        /* ERROR: Python's text */
} CrFStrPiece;

typedef struct _CrFStringScanner CrFStringScanner;

/* Scan source[start, end), the body of one f-string token (without prefix
 * and quotes). */
CrFStringScanner *cr_fstring_scanner_new  (const char       *source,
                                           gsize             start,
                                           gsize             end,
                                           gboolean          raw);
void              cr_fstring_scanner_free (CrFStringScanner *self);  /* NULL-safe */
CrFStrEvent       cr_fstring_scanner_next (CrFStringScanner *self,
                                           CrFStrPiece      *piece);

G_END_DECLS
