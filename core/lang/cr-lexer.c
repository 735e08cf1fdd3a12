/* cr-lexer.c — the tokenizer of the script language.
 *
 * The structure follows CPython 3.11's Parser/tokenizer.c (tok_get): the same
 * order of checks, the same "current position" when an error is raised, so
 * that messages and columns match what `python3 script.py` prints. Where that
 * position is odd (a tab error at column 1, an unindent error at the end of
 * the line), the oddity is Python's and is kept on purpose.
 */
#include "cr-lexer.h"
#include "cr-error.h"

#include <string.h>

#define EOF_CHAR  (-1)
#define TABSIZE   8

struct _CrLexer {
  const char *src;
  gsize       end;              /* end of the range being lexed */
  gsize       pos;              /* CPython's tok->cur */
  gsize       start;            /* CPython's tok->start */
  int         start_line;       /* the line of start, and where it begins */
  gsize       start_line_start;
  int         lineno;           /* the line of the last character read */
  gsize       line_start;
  gsize       pending_line;     /* offset just after the last '\n' read */

  /* Column cache: the column of cache_pos on the line at cache_line. */
  gsize       cache_line;
  gsize       cache_pos;
  int         cache_col;

  gboolean    atbol;
  gboolean    fstring_expr;
  int         pendin;
  int         indent;
  int         indstack[CR_LEXER_MAX_INDENT + 1];
  int         altindstack[CR_LEXER_MAX_INDENT + 1];
  int         level;
  char        parenstack[CR_LEXER_MAX_LEVEL];
  int         parenline[CR_LEXER_MAX_LEVEL];
  int         parencol[CR_LEXER_MAX_LEVEL];   /* 1-based, code points */

  /* A finished lexer repeats its last token (ENDMARKER or ERROR). */
  gboolean    done;
  CrToken     last;

  int         err_code;
  char       *err_msg;
  CrSpan      err_span;
};

/* ---- columns ---- */

int
cr_lexer_column (const char *source,
                 gsize       line_start,
                 gsize       pos)
{
  int col = 1;

  for (gsize i = line_start; i < pos; i++)
    if (((guchar) source[i] & 0xC0) != 0x80)
      col++;
  return col;
}

/* Columns are asked for in increasing order on a line (token after token),
 * so counting from the last answer keeps a 10 MB line linear. */
static int
column_of (CrLexer *self,
           gsize    line_start,
           gsize    pos)
{
  if (self->cache_line != line_start || pos < self->cache_pos)
    {
      self->cache_line = line_start;
      self->cache_pos = line_start;
      self->cache_col = 1;
    }
  for (gsize i = self->cache_pos; i < pos; i++)
    if (((guchar) self->src[i] & 0xC0) != 0x80)
      self->cache_col++;
  self->cache_pos = pos;
  return self->cache_col;
}

/* ---- characters ---- */

static int
nextc (CrLexer *self)
{
  guchar c;

  if (self->pos >= self->end)
    return EOF_CHAR;
  if (self->pos == self->pending_line && self->pos != self->line_start)
    {
      self->lineno++;
      self->line_start = self->pos;
    }
  c = (guchar) self->src[self->pos++];
  if (c == '\n')
    self->pending_line = self->pos;
  return c;
}

static void
backup (CrLexer *self,
        int      c)
{
  if (c != EOF_CHAR)
    self->pos--;
}

static gboolean
is_identifier_start (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 128;
}

static gboolean
is_identifier_char (int c)
{
  return is_identifier_start (c) || (c >= '0' && c <= '9');
}

static gboolean
is_digit (int c)
{
  return c >= '0' && c <= '9';
}

static gboolean
is_xdigit (int c)
{
  return g_ascii_isxdigit (c) && c != EOF_CHAR;
}

/* ---- errors ---- */

static void
set_error (CrLexer    *self,
           int         code,
           int         line,
           int         column,
           int         end_column,
           const char *format,
           ...) G_GNUC_PRINTF (6, 7);

static void
set_error (CrLexer    *self,
           int         code,
           int         line,
           int         column,
           int         end_column,
           const char *format,
           ...)
{
  va_list args;

  if (self->err_msg != NULL)
    return;
  va_start (args, format);
  self->err_msg = g_strdup_vprintf (format, args);
  va_end (args);
  self->err_code = code;
  self->err_span.line = line;
  self->err_span.column = MAX (column, 1);
  self->err_span.end_line = line;
  self->err_span.end_column = MAX (end_column, self->err_span.column + 1);
}

/* CPython's syntaxerror (): the offset is the number of characters before
 * the current position, i.e. the column of the last character read. */
static CrTokKind
error_at_cur (CrLexer    *self,
              const char *format,
              ...) G_GNUC_PRINTF (2, 3);

static CrTokKind
error_at_cur (CrLexer    *self,
              const char *format,
              ...)
{
  va_list args;
  int col;
  char *msg;

  col = cr_lexer_column (self->src, self->line_start, self->pos) - 1;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  set_error (self, CR_EXC_SYNTAX_ERROR, self->lineno, col, col + 1, "%s", msg);
  g_free (msg);
  return CR_TOK_ERROR;
}

/* The column CPython reports for errors raised "at the end of the line":
 * the length of the current line, newline included. */
static int
end_of_line_column (CrLexer *self)
{
  gsize p = self->line_start;

  while (p < self->end && self->src[p] != '\n')
    p++;
  if (p < self->end)
    p++;
  return cr_lexer_column (self->src, self->line_start, p) - 1;
}

/* ---- keywords ---- */

static const struct { const char *name; CrTokKind kind; } keywords[] = {
  { "False", CR_TOK_KW_FALSE }, { "None", CR_TOK_KW_NONE }, { "True", CR_TOK_KW_TRUE },
  { "and", CR_TOK_KW_AND }, { "as", CR_TOK_KW_AS }, { "assert", CR_TOK_KW_ASSERT },
  { "async", CR_TOK_KW_ASYNC }, { "await", CR_TOK_KW_AWAIT }, { "break", CR_TOK_KW_BREAK },
  { "class", CR_TOK_KW_CLASS }, { "continue", CR_TOK_KW_CONTINUE }, { "def", CR_TOK_KW_DEF },
  { "del", CR_TOK_KW_DEL }, { "elif", CR_TOK_KW_ELIF }, { "else", CR_TOK_KW_ELSE },
  { "except", CR_TOK_KW_EXCEPT }, { "finally", CR_TOK_KW_FINALLY }, { "for", CR_TOK_KW_FOR },
  { "from", CR_TOK_KW_FROM }, { "global", CR_TOK_KW_GLOBAL }, { "if", CR_TOK_KW_IF },
  { "import", CR_TOK_KW_IMPORT }, { "in", CR_TOK_KW_IN }, { "is", CR_TOK_KW_IS },
  { "lambda", CR_TOK_KW_LAMBDA }, { "nonlocal", CR_TOK_KW_NONLOCAL }, { "not", CR_TOK_KW_NOT },
  { "or", CR_TOK_KW_OR }, { "pass", CR_TOK_KW_PASS }, { "raise", CR_TOK_KW_RAISE },
  { "return", CR_TOK_KW_RETURN }, { "try", CR_TOK_KW_TRY }, { "while", CR_TOK_KW_WHILE },
  { "with", CR_TOK_KW_WITH }, { "yield", CR_TOK_KW_YIELD },
};

static CrTokKind
keyword_kind (const char *s,
              gsize       len)
{
  /* Every keyword is 2 to 8 ASCII letters. */
  if (len < 2 || len > 8)
    return CR_TOK_NAME;
  for (guint i = 0; i < G_N_ELEMENTS (keywords); i++)
    if (keywords[i].name[0] == s[0] && strlen (keywords[i].name) == len &&
        memcmp (keywords[i].name, s, len) == 0)
      return keywords[i].kind;
  return CR_TOK_NAME;
}

/* ---- identifiers ---- */

/* XID_Start / XID_Continue, approximated with GLib's general categories plus
 * the few Other_ID_Start / Other_ID_Continue characters. */
static gboolean
unichar_is_id_start (gunichar ch)
{
  switch (g_unichar_type (ch))
    {
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_LETTER_NUMBER:
      return TRUE;
    default:
      return ch == '_' || ch == 0x1885 || ch == 0x1886 || ch == 0x2118 ||
             ch == 0x212E || ch == 0x309B || ch == 0x309C;
    }
}

static gboolean
unichar_is_id_continue (gunichar ch)
{
  if (unichar_is_id_start (ch))
    return TRUE;
  switch (g_unichar_type (ch))
    {
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_CONNECT_PUNCTUATION:
      return TRUE;
    default:
      return ch == 0x00B7 || ch == 0x0387 || (ch >= 0x1369 && ch <= 0x1371) ||
             ch == 0x19DA;
    }
}

/* Python's str.isprintable () for one character. */
static gboolean
unichar_is_printable (gunichar ch)
{
  if (ch == ' ')
    return TRUE;
  switch (g_unichar_type (ch))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_SURROGATE:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SPACE_SEPARATOR:
      return FALSE;
    default:
      return TRUE;
    }
}

/* CPython's verify_identifier (): on a bad character, the error points just
 * after it. */
static gboolean
verify_identifier (CrLexer *self)
{
  const char *p = self->src + self->start;
  const char *end = self->src + self->pos;
  gboolean first = TRUE;

  while (p < end)
    {
      gunichar ch = g_utf8_get_char (p);
      const char *next = g_utf8_next_char (p);
      gboolean ok = first ? unichar_is_id_start (ch) : unichar_is_id_continue (ch);

      if (!ok)
        {
          self->pos = next - self->src;
          if (unichar_is_printable (ch))
            {
              char buf[8];
              buf[g_unichar_to_utf8 (ch, buf)] = '\0';
              error_at_cur (self, "invalid character '%s' (U+%04X)", buf, ch);
            }
          else
            error_at_cur (self, "invalid non-printable character U+%04X", ch);
          return FALSE;
        }
      first = FALSE;
      p = next;
    }
  return TRUE;
}

/* ---- numbers ---- */

/* CPython's lookahead (): are the next characters the rest of a keyword,
 * `test`? Consumes nothing. */
static gboolean
lookahead (CrLexer    *self,
           const char *test)
{
  gsize p = self->pos;

  for (; *test; test++, p++)
    if (p >= self->end || self->src[p] != *test)
      return FALSE;
  /* The keyword must end there. */
  return p >= self->end || !is_identifier_char ((guchar) self->src[p]);
}

/* CPython's verify_end_of_number (): "1if x else y" is allowed (with a
 * SyntaxWarning in Python, which Chainrule does not print); "1abc" is not. */
static gboolean
verify_end_of_number (CrLexer    *self,
                      int         c,
                      const char *kind)
{
  gboolean r = FALSE;

  if (c == 'a')
    r = lookahead (self, "nd");
  else if (c == 'e')
    r = lookahead (self, "lse");
  else if (c == 'f')
    r = lookahead (self, "or");
  else if (c == 'i')
    r = self->pos < self->end &&
        (self->src[self->pos] == 'f' || self->src[self->pos] == 'n' ||
         self->src[self->pos] == 's');
  else if (c == 'o')
    r = lookahead (self, "r");
  else if (c == 'n')
    r = lookahead (self, "ot");
  if (r)
    return TRUE;
  if (c != EOF_CHAR && c < 128 && is_identifier_char (c))
    {
      backup (self, c);
      error_at_cur (self, "invalid %s literal", kind);
      return FALSE;
    }
  return TRUE;
}

/* Digits with single underscores between them; returns the first character
 * after, or 0 after an error. */
static int
decimal_tail (CrLexer *self)
{
  int c;

  for (;;)
    {
      do
        c = nextc (self);
      while (is_digit (c));
      if (c != '_')
        break;
      c = nextc (self);
      if (!is_digit (c))
        {
          backup (self, c);
          error_at_cur (self, "invalid decimal literal");
          return 0;
        }
    }
  return c;
}

/* The number starting at character c (already read). */
static CrTokKind
lex_number (CrLexer *self,
            int      c,
            guint8  *num_kind,
            gboolean after_dot)
{
  *num_kind = CR_NUM_INT;

  if (after_dot)
    goto fraction;

  if (c == '0')
    {
      c = nextc (self);
      if (c == 'x' || c == 'X')
        {
          c = nextc (self);
          do
            {
              if (c == '_')
                c = nextc (self);
              if (!is_xdigit (c))
                {
                  backup (self, c);
                  return error_at_cur (self, "invalid hexadecimal literal");
                }
              do
                c = nextc (self);
              while (is_xdigit (c));
            }
          while (c == '_');
          if (!verify_end_of_number (self, c, "hexadecimal"))
            return CR_TOK_ERROR;
        }
      else if (c == 'o' || c == 'O' || c == 'b' || c == 'B')
        {
          gboolean octal = (c == 'o' || c == 'O');
          int top = octal ? '8' : '2';
          const char *kind = octal ? "octal" : "binary";

          c = nextc (self);
          do
            {
              if (c == '_')
                c = nextc (self);
              if (c < '0' || c >= top)
                {
                  if (is_digit (c))
                    return error_at_cur (self, "invalid digit '%c' in %s literal", c, kind);
                  backup (self, c);
                  return error_at_cur (self, "invalid %s literal", kind);
                }
              do
                c = nextc (self);
              while (c >= '0' && c < top);
            }
          while (c == '_');
          if (is_digit (c))
            return error_at_cur (self, "invalid digit '%c' in %s literal", c, kind);
          if (!verify_end_of_number (self, c, kind))
            return CR_TOK_ERROR;
        }
      else
        {
          gboolean nonzero = FALSE;
          gsize zeros_end;

          /* Maybe an old-style octal; "0", "00", "0_0" are fine. */
          for (;;)
            {
              if (c == '_')
                {
                  c = nextc (self);
                  if (!is_digit (c))
                    {
                      backup (self, c);
                      return error_at_cur (self, "invalid decimal literal");
                    }
                }
              if (c != '0')
                break;
              c = nextc (self);
            }
          zeros_end = self->pos;
          if (is_digit (c))
            {
              nonzero = TRUE;
              c = decimal_tail (self);
              if (c == 0)
                return CR_TOK_ERROR;
            }
          if (c == '.')
            {
              c = nextc (self);
              goto fraction;
            }
          else if (c == 'e' || c == 'E')
            goto exponent;
          else if (c == 'j' || c == 'J')
            goto imaginary;
          else if (nonzero)
            {
              int col = cr_lexer_column (self->src, self->line_start, self->start);
              int end_col = cr_lexer_column (self->src, self->line_start, zeros_end - 1);
              backup (self, c);
              set_error (self, CR_EXC_SYNTAX_ERROR, self->lineno, col, end_col,
                         "leading zeros in decimal integer literals are not permitted; "
                         "use an 0o prefix for octal integers");
              return CR_TOK_ERROR;
            }
          if (!verify_end_of_number (self, c, "decimal"))
            return CR_TOK_ERROR;
        }
    }
  else
    {
      c = decimal_tail (self);
      if (c == 0)
        return CR_TOK_ERROR;
      if (c == '.')
        {
          c = nextc (self);
fraction:
          *num_kind = CR_NUM_FLOAT;
          if (is_digit (c))
            {
              c = decimal_tail (self);
              if (c == 0)
                return CR_TOK_ERROR;
            }
        }
      if (c == 'e' || c == 'E')
        {
          int e;
exponent:
          e = c;
          c = nextc (self);
          if (c == '+' || c == '-')
            {
              c = nextc (self);
              if (!is_digit (c))
                {
                  backup (self, c);
                  return error_at_cur (self, "invalid decimal literal");
                }
            }
          else if (!is_digit (c))
            {
              /* "1else": the number is "1" and "else" follows. */
              backup (self, c);
              if (!verify_end_of_number (self, e, "decimal"))
                return CR_TOK_ERROR;
              backup (self, e);
              return CR_TOK_NUMBER;
            }
          *num_kind = CR_NUM_FLOAT;
          c = decimal_tail (self);
          if (c == 0)
            return CR_TOK_ERROR;
        }
      if (c == 'j' || c == 'J')
        {
imaginary:
          *num_kind = CR_NUM_IMAG;
          c = nextc (self);
          if (!verify_end_of_number (self, c, "imaginary"))
            return CR_TOK_ERROR;
        }
      else if (!verify_end_of_number (self, c, "decimal"))
        return CR_TOK_ERROR;
    }
  backup (self, c);
  return CR_TOK_NUMBER;
}

/* ---- strings ---- */

static CrTokKind
lex_string (CrLexer *self,
            int      quote,
            guint8  *quote_len)
{
  int quote_size = 1;
  int end_quote_size = 0;
  int first_line = self->lineno;
  gsize first_line_start = self->line_start;
  int c;

  c = nextc (self);
  if (c == quote)
    {
      c = nextc (self);
      if (c == quote)
        quote_size = 3;
      else
        end_quote_size = 1;   /* the empty string */
    }
  if (c != quote)
    backup (self, c);

  while (end_quote_size != quote_size)
    {
      c = nextc (self);
      if (c == EOF_CHAR || (quote_size == 1 && c == '\n'))
        {
          /* Python reports it at the opening quote, detected where it is. */
          int detected = self->lineno;
          int col;

          col = cr_lexer_column (self->src, first_line_start, self->start + 1) - 1;
          set_error (self, CR_EXC_SYNTAX_ERROR, first_line, col, col + 1,
                     quote_size == 3
                     ? "unterminated triple-quoted string literal (detected at line %d)"
                     : "unterminated string literal (detected at line %d)",
                     detected);
          return CR_TOK_ERROR;
        }
      if (c == quote)
        end_quote_size++;
      else
        {
          end_quote_size = 0;
          if (c == '\\')
            nextc (self);
        }
    }
  *quote_len = quote_size;
  return CR_TOK_STRING;
}

/* ---- operators ---- */

static CrTokKind
one_char (int c)
{
  switch (c)
    {
    case '(': return CR_TOK_LPAR;
    case ')': return CR_TOK_RPAR;
    case '[': return CR_TOK_LSQB;
    case ']': return CR_TOK_RSQB;
    case '{': return CR_TOK_LBRACE;
    case '}': return CR_TOK_RBRACE;
    case ':': return CR_TOK_COLON;
    case ',': return CR_TOK_COMMA;
    case ';': return CR_TOK_SEMI;
    case '+': return CR_TOK_PLUS;
    case '-': return CR_TOK_MINUS;
    case '*': return CR_TOK_STAR;
    case '/': return CR_TOK_SLASH;
    case '|': return CR_TOK_VBAR;
    case '&': return CR_TOK_AMPER;
    case '<': return CR_TOK_LESS;
    case '>': return CR_TOK_GREATER;
    case '=': return CR_TOK_EQUAL;
    case '.': return CR_TOK_DOT;
    case '%': return CR_TOK_PERCENT;
    case '~': return CR_TOK_TILDE;
    case '^': return CR_TOK_CIRCUMFLEX;
    case '@': return CR_TOK_AT;
    default:  return CR_TOK_OP;
    }
}

static CrTokKind
two_chars (int c1,
           int c2)
{
  switch (c1)
    {
    case '!': if (c2 == '=') return CR_TOK_NOTEQUAL; break;
    case '%': if (c2 == '=') return CR_TOK_PERCENTEQUAL; break;
    case '&': if (c2 == '=') return CR_TOK_AMPEREQUAL; break;
    case '*':
      if (c2 == '*') return CR_TOK_DOUBLESTAR;
      if (c2 == '=') return CR_TOK_STAREQUAL;
      break;
    case '+': if (c2 == '=') return CR_TOK_PLUSEQUAL; break;
    case '-':
      if (c2 == '=') return CR_TOK_MINEQUAL;
      if (c2 == '>') return CR_TOK_RARROW;
      break;
    case '/':
      if (c2 == '/') return CR_TOK_DOUBLESLASH;
      if (c2 == '=') return CR_TOK_SLASHEQUAL;
      break;
    case ':': if (c2 == '=') return CR_TOK_COLONEQUAL; break;
    case '<':
      if (c2 == '<') return CR_TOK_LEFTSHIFT;
      if (c2 == '=') return CR_TOK_LESSEQUAL;
      if (c2 == '>') return CR_TOK_NOTEQUAL;   /* "<>" (Barry as FLUFL): Python rejects it later */
      break;
    case '=': if (c2 == '=') return CR_TOK_EQEQUAL; break;
    case '>':
      if (c2 == '=') return CR_TOK_GREATEREQUAL;
      if (c2 == '>') return CR_TOK_RIGHTSHIFT;
      break;
    case '@': if (c2 == '=') return CR_TOK_ATEQUAL; break;
    case '^': if (c2 == '=') return CR_TOK_CIRCUMFLEXEQUAL; break;
    case '|': if (c2 == '=') return CR_TOK_VBAREQUAL; break;
    default: break;
    }
  return CR_TOK_OP;
}

static CrTokKind
three_chars (int c1,
             int c2,
             int c3)
{
  if (c3 != '=' && !(c1 == '.' && c2 == '.' && c3 == '.'))
    return CR_TOK_OP;
  if (c1 == '*' && c2 == '*') return CR_TOK_DOUBLESTAREQUAL;
  if (c1 == '/' && c2 == '/') return CR_TOK_DOUBLESLASHEQUAL;
  if (c1 == '<' && c2 == '<') return CR_TOK_LEFTSHIFTEQUAL;
  if (c1 == '>' && c2 == '>') return CR_TOK_RIGHTSHIFTEQUAL;
  if (c1 == '.' && c2 == '.') return CR_TOK_ELLIPSIS;
  return CR_TOK_OP;
}

/* ---- the tokenizer ---- */

/* A backslash-newline; -1 after an error. */
static int
continuation_line (CrLexer *self)
{
  int c = nextc (self);

  if (c != '\n')
    {
      int col = cr_lexer_column (self->src, self->line_start, self->pos) - 1;
      set_error (self, CR_EXC_SYNTAX_ERROR, self->lineno, col, col + 1,
                 "unexpected character after line continuation character");
      return -1;
    }
  c = nextc (self);
  if (c == EOF_CHAR)
    {
      int col = end_of_line_column (self);
      set_error (self, CR_EXC_SYNTAX_ERROR, self->lineno, col, col + 1,
                 "unexpected EOF while parsing");
      return -1;
    }
  backup (self, c);
  return c;
}

static CrTokKind
tok_get (CrLexer *self,
         CrToken *token)
{
  int c;
  gboolean blankline;
  gboolean nonascii;

nextline:
  blankline = FALSE;

  /* The indentation of a new line. */
  if (self->atbol)
    {
      int col = 0;
      int altcol = 0;
      int cont_line_col = 0;

      self->atbol = FALSE;
      for (;;)
        {
          c = nextc (self);
          if (c == ' ')
            col++, altcol++;
          else if (c == '\t')
            {
              col = (col / TABSIZE + 1) * TABSIZE;
              altcol = altcol + 1;
            }
          else if (c == '\014')
            col = altcol = 0;
          else if (c == '\\')
            {
              /* The first backslash decides the indentation. */
              cont_line_col = cont_line_col ? cont_line_col : col;
              if (continuation_line (self) == -1)
                return CR_TOK_ERROR;
            }
          else
            break;
        }
      backup (self, c);
      /* Lines with only blanks and a comment change no indentation. */
      if (c == '#' || c == '\n')
        blankline = TRUE;
      if (!blankline && self->level == 0)
        {
          if (cont_line_col)
            col = altcol = cont_line_col;
          if (col == self->indstack[self->indent])
            {
              if (altcol != self->altindstack[self->indent])
                goto tab_error;
            }
          else if (col > self->indstack[self->indent])
            {
              if (self->indent + 1 >= CR_LEXER_MAX_INDENT)
                {
                  set_error (self, CR_EXC_INDENTATION_ERROR, self->lineno, 1, 1,
                             "too many levels of indentation");
                  return CR_TOK_ERROR;
                }
              if (altcol <= self->altindstack[self->indent])
                goto tab_error;
              self->pendin++;
              self->indent++;
              self->indstack[self->indent] = col;
              self->altindstack[self->indent] = altcol;
            }
          else
            {
              while (self->indent > 0 && col < self->indstack[self->indent])
                {
                  self->pendin--;
                  self->indent--;
                }
              if (col != self->indstack[self->indent])
                {
                  int ecol = end_of_line_column (self);
                  set_error (self, CR_EXC_INDENTATION_ERROR, self->lineno, ecol, ecol + 1,
                             "unindent does not match any outer indentation level");
                  return CR_TOK_ERROR;
                }
              if (altcol != self->altindstack[self->indent])
                goto tab_error;
            }
        }
    }

  self->start = self->pos;

  /* Pending INDENT / DEDENT tokens. */
  if (self->pendin != 0)
    {
      if (self->pendin < 0)
        {
          self->pendin++;
          return CR_TOK_DEDENT;
        }
      self->pendin--;
      return CR_TOK_INDENT;
    }

again:
  do
    c = nextc (self);
  while (c == ' ' || c == '\t' || c == '\014');

  self->start = c == EOF_CHAR ? self->pos : self->pos - 1;
  self->start_line = self->lineno;
  self->start_line_start = self->line_start;

  if (c == '#')
    {
      while (c != EOF_CHAR && c != '\n')
        c = nextc (self);
    }

  if (c == EOF_CHAR)
    {
      if (self->level > (self->fstring_expr ? 1 : 0))
        {
          set_error (self, -1, self->lineno, 1, 1, "unexpected EOF");
          return CR_TOK_ERROR;
        }
      return CR_TOK_ENDMARKER;
    }

  /* Identifiers, keywords, and string prefixes. */
  nonascii = FALSE;
  if (is_identifier_start (c))
    {
      gboolean saw_b = FALSE, saw_r = FALSE, saw_u = FALSE, saw_f = FALSE;

      for (;;)
        {
          if (!(saw_b || saw_u || saw_f) && (c == 'b' || c == 'B'))
            saw_b = TRUE;
          else if (!(saw_b || saw_u || saw_r || saw_f) && (c == 'u' || c == 'U'))
            saw_u = TRUE;
          else if (!(saw_r || saw_u) && (c == 'r' || c == 'R'))
            saw_r = TRUE;
          else if (!(saw_f || saw_b || saw_u) && (c == 'f' || c == 'F'))
            saw_f = TRUE;
          else
            break;
          c = nextc (self);
          if (c == '"' || c == '\'')
            {
              token->str_flags = (saw_r ? CR_STR_RAW : 0) | (saw_b ? CR_STR_BYTES : 0) |
                                 (saw_f ? CR_STR_FMT : 0);
              token->prefix_len = (guint8) (self->pos - 1 - self->start);
              return lex_string (self, c, &token->quote_len);
            }
        }
      while (is_identifier_char (c))
        {
          if (c >= 128)
            nonascii = TRUE;
          c = nextc (self);
        }
      backup (self, c);
      if (nonascii && !verify_identifier (self))
        return CR_TOK_ERROR;
      return nonascii ? CR_TOK_NAME
                      : keyword_kind (self->src + self->start, self->pos - self->start);
    }

  if (c == '\n')
    {
      self->atbol = TRUE;
      if (blankline || self->level > 0)
        goto nextline;
      return CR_TOK_NEWLINE;
    }

  if (c == '.')
    {
      c = nextc (self);
      if (is_digit (c))
        return lex_number (self, c, &token->num_kind, TRUE);
      if (c == '.')
        {
          c = nextc (self);
          if (c == '.')
            return CR_TOK_ELLIPSIS;
          backup (self, c);
          backup (self, '.');
        }
      else
        backup (self, c);
      return CR_TOK_DOT;
    }

  if (is_digit (c))
    return lex_number (self, c, &token->num_kind, FALSE);

  if (c == '\'' || c == '"')
    {
      token->str_flags = 0;
      token->prefix_len = 0;
      return lex_string (self, c, &token->quote_len);
    }

  if (c == '\\')
    {
      if (continuation_line (self) == -1)
        return CR_TOK_ERROR;
      goto again;
    }

  {
    int c2 = nextc (self);
    CrTokKind kind = two_chars (c, c2);

    if (kind != CR_TOK_OP)
      {
        int c3 = nextc (self);
        CrTokKind kind3 = three_chars (c, c2, c3);

        if (kind3 != CR_TOK_OP)
          kind = kind3;
        else
          backup (self, c3);
        return kind;
      }
    backup (self, c2);
  }

  switch (c)
    {
    case '(':
    case '[':
    case '{':
      if (self->level >= CR_LEXER_MAX_LEVEL)
        return error_at_cur (self, "too many nested parentheses");
      self->parenstack[self->level] = (char) c;
      self->parenline[self->level] = self->lineno;
      self->parencol[self->level] = column_of (self, self->line_start, self->start);
      self->level++;
      break;
    case ')':
    case ']':
    case '}':
      if (self->level <= (self->fstring_expr ? 1 : 0))
        return error_at_cur (self, "unmatched '%c'", c);
      self->level--;
      {
        int opening = self->parenstack[self->level];

        if (!((opening == '(' && c == ')') || (opening == '[' && c == ']') ||
              (opening == '{' && c == '}')))
          {
            if (self->parenline[self->level] != self->lineno)
              return error_at_cur (self, "closing parenthesis '%c' does not match "
                                   "opening parenthesis '%c' on line %d",
                                   c, opening, self->parenline[self->level]);
            return error_at_cur (self, "closing parenthesis '%c' does not match "
                                 "opening parenthesis '%c'", c, opening);
          }
      }
      break;
    default:
      break;
    }

  if (c < 32 || c == 127)
    return error_at_cur (self, "invalid non-printable character U+%04X", (guint) c);

  return one_char (c);

tab_error:
  /* TabError in Python; Chainrule has no such code, IndentationError is its base. */
  set_error (self, CR_EXC_INDENTATION_ERROR, self->lineno, 1, 1,
             "inconsistent use of tabs and spaces in indentation");
  return CR_TOK_ERROR;
}

void
cr_lexer_next (CrLexer *self,
               CrToken *token)
{
  CrTokKind kind;

  if (self->done)
    {
      *token = self->last;
      return;
    }

  memset (token, 0, sizeof *token);
  kind = tok_get (self, token);
  token->kind = kind;

  if (kind == CR_TOK_ERROR)
    {
      token->start = token->end = self->pos;
      token->span = self->err_span;
      self->done = TRUE;
      self->last = *token;
      return;
    }

  if (kind == CR_TOK_INDENT || kind == CR_TOK_DEDENT || kind == CR_TOK_ENDMARKER)
    {
      /* No text: the position where the next token starts (or the end). */
      token->start = token->end = self->pos;
      token->span.line = token->span.end_line = self->lineno;
      if (kind == CR_TOK_ENDMARKER)
        {
          /* CPython reports errors at the end of input at the length of the
           * last line, newline included. */
          token->span.column = MAX (column_of (self, self->line_start, self->pos) - 1, 1);
        }
      else
        {
          gsize p = self->pos;

          while (p < self->end && (self->src[p] == ' ' || self->src[p] == '\t' ||
                                   self->src[p] == '\014'))
            p++;
          token->span.column = column_of (self, self->line_start, p);
        }
      token->span.end_column = token->span.column;
      if (kind == CR_TOK_ENDMARKER)
        {
          self->done = TRUE;
          self->last = *token;
        }
      token->level = self->level;
      return;
    }

  token->start = self->start;
  token->end = self->pos;
  if (kind == CR_TOK_NEWLINE)
    token->end = self->pos - 1;   /* the '\n' is not part of it */
  token->level = self->level;

  /* The start may be on an earlier line than the end (triple-quoted strings). */
  token->span.line = self->start_line;
  token->span.column = self->start_line == self->lineno
                       ? column_of (self, self->line_start, self->start)
                       : cr_lexer_column (self->src, self->start_line_start, self->start);
  token->span.end_line = self->lineno;
  token->span.end_column = column_of (self, self->line_start, token->end);
}

CrLexer *
cr_lexer_new (const char *source,
              gsize       start,
              gsize       end,
              int         line,
              gsize       line_start,
              gboolean    fstring_expr)
{
  CrLexer *self = g_new0 (CrLexer, 1);

  self->src = source;
  self->pos = start;
  self->end = end;
  self->lineno = line;
  self->line_start = line_start;
  self->pending_line = G_MAXSIZE;
  self->cache_line = G_MAXSIZE;
  self->fstring_expr = fstring_expr;
  self->atbol = !fstring_expr;
  if (fstring_expr)
    {
      /* The implicit parenthesis around the expression. */
      self->parenstack[0] = '(';
      self->parenline[0] = line;
      self->parencol[0] = cr_lexer_column (source, line_start, start);
      self->level = 1;
    }
  return self;
}

void
cr_lexer_free (CrLexer *self)
{
  if (self == NULL)
    return;
  g_free (self->err_msg);
  g_free (self);
}

int
cr_lexer_get_error (CrLexer     *self,
                    const char **message,
                    CrSpan      *span)
{
  if (message)
    *message = self->err_msg;
  if (span)
    *span = self->err_span;
  return self->err_msg ? self->err_code : CR_EXC_SYNTAX_ERROR;
}

gboolean
cr_lexer_unclosed (CrLexer *self,
                   char    *bracket,
                   CrSpan  *span)
{
  int i = self->level - 1;

  if (i < (self->fstring_expr ? 1 : 0))
    return FALSE;
  *bracket = self->parenstack[i];
  span->line = span->end_line = self->parenline[i];
  span->column = self->parencol[i];
  span->end_column = span->column + 1;
  return TRUE;
}

const char *
cr_tok_kind_name (CrTokKind kind)
{
  static const char *const names[CR_TOK_COUNT] = {
    "ENDMARKER", "NAME", "NUMBER", "STRING", "NEWLINE", "INDENT", "DEDENT", "ERROR",
    "(", ")", "[", "]", "{", "}", ":", ",", ";", "+", "-", "*", "/", "|", "&", "<", ">",
    "=", ".", "%", "==", "!=", "<=", ">=", "~", "^", "<<", ">>", "**", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "**=", "//", "//=", "@", "@=", "->", "...",
    ":=", "OP",
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield",
  };

  if ((guint) kind >= CR_TOK_COUNT)
    return "?";
  return names[kind];
}

/* ---- token values ---- */

gboolean
cr_lexer_number_value (const char    *source,
                       const CrToken *token,
                       gint64        *out_int,
                       double        *out_float,
                       char         **out_message)
{
  const char *s = source + token->start;
  gsize len = token->end - token->start;
  char stack_buf[64];
  char *buf = len < sizeof stack_buf ? stack_buf : g_malloc (len + 1);
  gsize n = 0;
  gboolean ok = TRUE;

  /* Without the underscores. */
  for (gsize i = 0; i < len; i++)
    if (s[i] != '_')
      buf[n++] = s[i];
  buf[n] = '\0';

  *out_int = 0;
  *out_float = 0.0;
  if (token->num_kind == CR_NUM_INT)
    {
      int base = 10;
      const char *digits = buf;
      guint64 v = 0;

      if (n > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        base = 16, digits += 2;
      else if (n > 1 && buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O'))
        base = 8, digits += 2;
      else if (n > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        base = 2, digits += 2;
      for (const char *p = digits; *p; p++)
        {
          int d = g_ascii_xdigit_value (*p);

          if (v > (G_MAXUINT64 - (guint64) d) / (guint64) base)
            {
              ok = FALSE;
              break;
            }
          v = v * (guint64) base + (guint64) d;
        }
      if (ok && v > (guint64) G_MAXINT64)
        ok = FALSE;
      if (!ok)
        *out_message = g_strdup_printf ("integer literal %.40s%s is too large "
                                        "(Chainrule integers are 64-bit)",
                                        buf, n > 40 ? "..." : "");
      else
        *out_int = (gint64) v;
    }
  else
    *out_float = g_ascii_strtod (buf, NULL);

  if (buf != stack_buf)
    g_free (buf);
  return ok;
}

/* The escape error Python's 'unicodeescape' codec gives. */
static char *
escape_error (gsize       start,
              gsize       end,
              const char *what)
{
  if (end > start)
    return g_strdup_printf ("(unicode error) 'unicodeescape' codec can't decode bytes in "
                            "position %" G_GSIZE_FORMAT "-%" G_GSIZE_FORMAT ": %s",
                            start, end, what);
  return g_strdup_printf ("(unicode error) 'unicodeescape' codec can't decode byte 0x5c in "
                          "position %" G_GSIZE_FORMAT ": %s", start, what);
}

static void
append_unichar (GString  *out,
                gunichar  ch)
{
  /* Lone surrogates have no UTF-8 form; Chainrule strings are UTF-8. */
  if (ch >= 0xD800 && ch <= 0xDFFF)
    ch = 0xFFFD;
  g_string_append_unichar (out, ch);
}

gboolean
cr_lexer_decode_string (const char *body,
                        gsize       len,
                        gboolean    raw,
                        GString    *out,
                        char      **out_message)
{
  const char *p = body;
  const char *end = body + len;

  if (raw || memchr (body, '\\', len) == NULL)
    {
      g_string_append_len (out, body, len);
      return TRUE;
    }

  while (p < end)
    {
      const char *bs = memchr (p, '\\', end - p);
      gsize at;

      if (bs == NULL)
        {
          g_string_append_len (out, p, end - p);
          break;
        }
      g_string_append_len (out, p, bs - p);
      at = bs - body;
      p = bs + 1;
      if (p >= end)
        {
          *out_message = escape_error (at, at, "\\ at end of string");
          return FALSE;
        }
      switch (*p)
        {
        case '\n': p++; break;
        case '\\': g_string_append_c (out, '\\'); p++; break;
        case '\'': g_string_append_c (out, '\''); p++; break;
        case '"':  g_string_append_c (out, '"'); p++; break;
        case 'a':  g_string_append_c (out, '\a'); p++; break;
        case 'b':  g_string_append_c (out, '\b'); p++; break;
        case 'f':  g_string_append_c (out, '\f'); p++; break;
        case 'n':  g_string_append_c (out, '\n'); p++; break;
        case 'r':  g_string_append_c (out, '\r'); p++; break;
        case 't':  g_string_append_c (out, '\t'); p++; break;
        case 'v':  g_string_append_c (out, '\v'); p++; break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          {
            gunichar v = 0;

            for (int i = 0; i < 3 && p < end && *p >= '0' && *p <= '7'; i++, p++)
              v = v * 8 + (gunichar) (*p - '0');
            append_unichar (out, v);
          }
          break;
        case 'x':
        case 'u':
        case 'U':
          {
            int ndigits = *p == 'x' ? 2 : *p == 'u' ? 4 : 8;
            const char *what = *p == 'x' ? "truncated \\xXX escape"
                             : *p == 'u' ? "truncated \\uXXXX escape"
                             : "truncated \\UXXXXXXXX escape";
            gunichar v = 0;
            int i;

            p++;
            for (i = 0; i < ndigits && p < end && g_ascii_isxdigit (*p); i++, p++)
              v = v * 16 + (gunichar) g_ascii_xdigit_value (*p);
            if (i < ndigits)
              {
                /* Python's range ends at the last byte it looked at. */
                gsize last = (p < end ? (gsize) (p - body) : len) - 1;
                *out_message = escape_error (at, MAX (last, at + 1), what);
                return FALSE;
              }
            if (v > 0x10FFFF)
              {
                *out_message = escape_error (at, (gsize) (p - body) - 1,
                                             "illegal Unicode character");
                return FALSE;
              }
            append_unichar (out, v);
          }
          break;
        case 'N':
          {
            /* Unicode names are not in Chainrule's tables. */
            const char *q = p + 1;
            gsize last;

            if (q < end && *q == '{')
              {
                while (q < end && *q != '}')
                  q++;
                if (q < end)
                  {
                    last = q - body;
                    *out_message = escape_error (at, last, "unknown Unicode character name");
                    return FALSE;
                  }
              }
            last = (q < end ? (gsize) (q - body) : len) - 1;
            *out_message = escape_error (at, MAX (last, at + 1), "malformed \\N character escape");
            return FALSE;
          }
        default:
          /* An unknown escape keeps its backslash (a DeprecationWarning in Python). */
          g_string_append_c (out, '\\');
          break;
        }
    }
  return TRUE;
}

/* ---- f-strings ---- */

#define FSTRING_MAX_DEPTH 2

typedef enum {
  FSTATE_LITERAL,    /* looking for literal text or a '{' */
  FSTATE_AFTER_EXPR, /* the parser has the expression: '=', '!', ':' next */
  FSTATE_AFTER_SPEC, /* a format spec ended: expect '}' */
} FState;

struct _CrFStringScanner {
  const char *src;
  gsize       pos;
  gsize       end;
  gboolean    raw;
  int         depth;
  FState      state[FSTRING_MAX_DEPTH + 1];
  gsize       expr_start[FSTRING_MAX_DEPTH + 1];
  gboolean    has_debug[FSTRING_MAX_DEPTH + 1];
  gsize       debug_end[FSTRING_MAX_DEPTH + 1];
  int         conversion[FSTRING_MAX_DEPTH + 1];
  GString    *text;
  char       *message;
  gboolean    failed;
};

CrFStringScanner *
cr_fstring_scanner_new (const char *source,
                        gsize       start,
                        gsize       end,
                        gboolean    raw)
{
  CrFStringScanner *self = g_new0 (CrFStringScanner, 1);

  self->src = source;
  self->pos = start;
  self->end = end;
  self->raw = raw;
  self->text = g_string_new (NULL);
  return self;
}

void
cr_fstring_scanner_free (CrFStringScanner *self)
{
  if (self == NULL)
    return;
  g_string_free (self->text, TRUE);
  g_free (self->message);
  g_free (self);
}

static CrFStrEvent
fstring_fail (CrFStringScanner *self,
              CrFStrPiece      *piece,
              char             *message)
{
  g_free (self->message);
  self->message = message;
  self->failed = TRUE;
  piece->event = CR_FSTR_ERROR;
  piece->message = message;
  return CR_FSTR_ERROR;
}

/* CPython's fstring_find_literal (): the text up to an undoubled brace.
 * Returns TRUE when it produced text. */
static gboolean
fstring_literal (CrFStringScanner *self,
                 CrFStrPiece      *piece,
                 gboolean         *failed)
{
  const char *s = self->src + self->pos;
  const char *end = self->src + self->end;
  const char *literal_start = s;
  gboolean doubled = FALSE;

  *failed = FALSE;
  while (s < end)
    {
      char ch = *s++;

      if (!self->raw && ch == '\\' && s < end)
        {
          ch = *s++;
          if (ch == 'N')
            {
              if (s < end && *s++ == '{')
                while (s < end && *s++ != '}')
                  ;
              continue;
            }
        }
      if (ch == '{' || ch == '}')
        {
          if (self->depth == 0)
            {
              if (s < end && *s == ch)
                {
                  doubled = TRUE;
                  break;
                }
              if (ch == '}')
                {
                  self->pos = (s - 1) - self->src;
                  fstring_fail (self, piece, g_strdup ("f-string: single '}' is not allowed"));
                  *failed = TRUE;
                  return FALSE;
                }
            }
          s--;
          break;
        }
    }

  g_string_truncate (self->text, 0);
  if (s > literal_start)
    {
      char *message = NULL;

      if (!cr_lexer_decode_string (literal_start, s - literal_start, self->raw,
                                   self->text, &message))
        {
          fstring_fail (self, piece, message);
          *failed = TRUE;
          return FALSE;
        }
    }
  /* After a doubled brace, skip the second one: one brace is in the text. */
  self->pos = (s - self->src) + (doubled ? 1 : 0);
  if (s == literal_start && !doubled)
    return FALSE;
  piece->event = CR_FSTR_TEXT;
  piece->text = self->text->str;
  piece->text_len = self->text->len;
  return TRUE;
}

/* CPython's fstring_find_expr (), up to the end of the expression. */
static CrFStrEvent
fstring_expr (CrFStringScanner *self,
              CrFStrPiece      *piece)
{
  const char *s;
  const char *end = self->src + self->end;
  const char *expr_start;
  char quote_char = 0;
  int string_type = 0;
  int nested = 0;
  char parenstack[CR_LEXER_MAX_LEVEL];

  if (self->depth >= FSTRING_MAX_DEPTH)
    return fstring_fail (self, piece, g_strdup ("f-string: expressions nested too deeply"));

  s = self->src + self->pos + 1;   /* after the '{' */
  expr_start = s;
  for (; s < end; s++)
    {
      char ch = *s;

      if (ch == '\\')
        return fstring_fail (self, piece,
                             g_strdup ("f-string expression part cannot include a backslash"));
      if (quote_char)
        {
          if (ch == quote_char)
            {
              if (string_type == 3)
                {
                  if (s + 2 < end && s[1] == ch && s[2] == ch)
                    {
                      s += 2;
                      string_type = 0;
                      quote_char = 0;
                    }
                }
              else
                {
                  string_type = 0;
                  quote_char = 0;
                }
            }
          continue;
        }
      if (ch == '\'' || ch == '"')
        {
          if (s + 2 < end && s[1] == ch && s[2] == ch)
            {
              string_type = 3;
              s += 2;
            }
          else
            string_type = 1;
          quote_char = ch;
        }
      else if (ch == '[' || ch == '{' || ch == '(')
        {
          if (nested >= CR_LEXER_MAX_LEVEL)
            return fstring_fail (self, piece,
                                 g_strdup ("f-string: too many nested parenthesis"));
          parenstack[nested++] = ch;
        }
      else if (ch == '#')
        return fstring_fail (self, piece,
                             g_strdup ("f-string expression part cannot include '#'"));
      else if (nested == 0 &&
               (ch == '!' || ch == ':' || ch == '}' || ch == '=' || ch == '>' || ch == '<'))
        {
          if (s + 1 < end)
            {
              char next = s[1];

              if ((ch == '!' && next == '=') || (ch == '=' && next == '=') ||
                  (ch == '<' && next == '=') || (ch == '>' && next == '='))
                {
                  s++;
                  continue;
                }
            }
          if (ch == '>' || ch == '<')
            continue;
          break;
        }
      else if (ch == ']' || ch == '}' || ch == ')')
        {
          int opening;

          if (nested == 0)
            return fstring_fail (self, piece, g_strdup_printf ("f-string: unmatched '%c'", ch));
          opening = parenstack[--nested];
          if (!((opening == '(' && ch == ')') || (opening == '[' && ch == ']') ||
                (opening == '{' && ch == '}')))
            return fstring_fail (self, piece,
                                 g_strdup_printf ("f-string: closing parenthesis '%c' does not "
                                                  "match opening parenthesis '%c'",
                                                  ch, opening));
        }
    }
  if (quote_char)
    return fstring_fail (self, piece, g_strdup ("f-string: unterminated string"));
  if (nested)
    return fstring_fail (self, piece,
                         g_strdup_printf ("f-string: unmatched '%c'", parenstack[nested - 1]));
  if (s >= end)
    return fstring_fail (self, piece, g_strdup ("f-string: expecting '}'"));

  /* An expression of only whitespace. */
  {
    const char *q = expr_start;

    while (q < s && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\f'))
      q++;
    if (q == s)
      {
        if (*s == '!' || *s == ':' || *s == '=')
          return fstring_fail (self, piece,
                               g_strdup_printf ("f-string: expression required before '%c'", *s));
        return fstring_fail (self, piece, g_strdup ("f-string: empty expression not allowed"));
      }
  }

  self->expr_start[self->depth] = expr_start - self->src;
  self->state[self->depth] = FSTATE_AFTER_EXPR;
  self->pos = s - self->src;
  piece->event = CR_FSTR_EXPR;
  piece->expr_start = expr_start - self->src;
  piece->expr_end = s - self->src;
  return CR_FSTR_EXPR;
}

/* After the expression: '=', '!x', ':spec'. */
static CrFStrEvent
fstring_after_expr (CrFStringScanner *self,
                    CrFStrPiece      *piece)
{
  const char *s = self->src + self->pos;
  const char *end = self->src + self->end;
  int d = self->depth;

  self->has_debug[d] = FALSE;
  self->conversion[d] = 0;

  if (*s == '=')
    {
      s++;
      while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\f' ||
                         *s == '\r' || *s == '\v'))
        s++;
      if (s >= end)
        goto expecting;
      self->has_debug[d] = TRUE;
      self->debug_end[d] = s - self->src;
    }
  if (*s == '!')
    {
      s++;
      if (s >= end)
        goto expecting;
      self->conversion[d] = (guchar) *s;
      s++;
      if (!(self->conversion[d] == 's' || self->conversion[d] == 'r' ||
            self->conversion[d] == 'a'))
        return fstring_fail (self, piece,
                             g_strdup ("f-string: invalid conversion character: "
                                       "expected 's', 'r', or 'a'"));
    }
  if (s >= end)
    goto expecting;
  if (*s == ':')
    {
      s++;
      if (s >= end)
        goto expecting;
      self->pos = s - self->src;
      self->state[d] = FSTATE_AFTER_SPEC;
      self->depth++;
      self->state[self->depth] = FSTATE_LITERAL;
      piece->event = CR_FSTR_SPEC;
      piece->depth = d;
      return CR_FSTR_SPEC;
    }
  self->pos = s - self->src;
  self->state[d] = FSTATE_AFTER_SPEC;
  piece->depth = d;
  return CR_FSTR_END;   /* not an event: the caller goes on to the '}' */

expecting:
  return fstring_fail (self, piece, g_strdup ("f-string: expecting '}'"));
}

static CrFStrEvent
fstring_field_end (CrFStringScanner *self,
                   CrFStrPiece      *piece,
                   gboolean          has_spec)
{
  int d = self->depth;

  if (self->pos >= self->end || self->src[self->pos] != '}')
    return fstring_fail (self, piece, g_strdup ("f-string: expecting '}'"));
  self->pos++;
  self->state[d] = FSTATE_LITERAL;
  piece->event = CR_FSTR_FIELD_END;
  piece->depth = d;
  piece->conversion = self->conversion[d];
  piece->has_debug = self->has_debug[d];
  piece->debug_start = self->expr_start[d];
  piece->debug_end = self->debug_end[d];
  piece->has_spec = has_spec;
  piece->end = self->pos;
  /* With "=" and neither a conversion nor a spec, Python shows the repr. */
  if (piece->has_debug && !has_spec && piece->conversion == 0)
    piece->conversion = 'r';
  return CR_FSTR_FIELD_END;
}

CrFStrEvent
cr_fstring_scanner_next (CrFStringScanner *self,
                         CrFStrPiece      *piece)
{
  memset (piece, 0, sizeof *piece);
  piece->depth = self->depth;

  if (self->failed)
    {
      piece->event = CR_FSTR_ERROR;
      piece->message = self->message;
      return CR_FSTR_ERROR;
    }

  for (;;)
    {
      int d = self->depth;

      switch (self->state[d])
        {
        case FSTATE_AFTER_EXPR:
          {
            CrFStrEvent ev = fstring_after_expr (self, piece);

            if (ev != CR_FSTR_END)
              return ev;
            return fstring_field_end (self, piece, FALSE);
          }

        case FSTATE_AFTER_SPEC:
          /* Only reached from a nested level's end, see below. */
          return fstring_field_end (self, piece, TRUE);

        case FSTATE_LITERAL:
        default:
          {
            gboolean failed;

            if (fstring_literal (self, piece, &failed))
              return CR_FSTR_TEXT;
            if (failed)
              return CR_FSTR_ERROR;
            if (self->pos >= self->end)
              {
                if (d > 0)
                  return fstring_fail (self, piece, g_strdup ("f-string: expecting '}'"));
                piece->event = CR_FSTR_END;
                return CR_FSTR_END;
              }
            if (self->src[self->pos] == '}')
              {
                /* The end of a format spec (at depth 0 the literal scan has
                 * already refused a single '}'). */
                self->depth--;
                return fstring_field_end (self, piece, TRUE);
              }
            /* A '{'. */
            piece->depth = d;
            return fstring_expr (self, piece);
          }
        }
    }
}
