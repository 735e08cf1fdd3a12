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

  gboolean    ascii;            /* no byte >= 0x80 in the range: a column is an offset */
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
  gboolean    err_quiet;        /* see cr_lexer_error_is_quiet () */
  CrSpan      err_span;
};

/* ---- columns ---- */

gboolean
cr_lexer_is_ascii (const char *s,
                   gsize       len)
{
  gsize i = 0;

  /* Eight bytes at a time. */
  for (; i + 8 <= len; i += 8)
    {
      guint64 w;

      memcpy (&w, s + i, 8);
      if (w & G_GUINT64_CONSTANT (0x8080808080808080))
        return FALSE;
    }
  for (; i < len; i++)
    if ((guchar) s[i] >= 0x80)
      return FALSE;
  return TRUE;
}

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
  if (self->ascii && self->cache_line == line_start)
    return self->cache_col + (int) (pos - self->cache_pos);
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

/* [A-Za-z0-9_] and every byte of a non-ASCII character. */
static const gboolean identifier_chars[256] = {
  ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
  ['8'] = 1, ['9'] = 1, ['_'] = 1,
  ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
  ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
  ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
  ['Y'] = 1, ['Z'] = 1,
  ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
  ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
  ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
  ['y'] = 1, ['z'] = 1,
  [128 ... 255] = 1,
};

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

/* Sorted by first letter (keyword_first indexes it). */
static const struct { const char *name; guint8 len; CrTokKind kind; } keywords[] = {
  { "False", 5, CR_TOK_KW_FALSE }, { "None", 4, CR_TOK_KW_NONE }, { "True", 4, CR_TOK_KW_TRUE },
  { "and", 3, CR_TOK_KW_AND }, { "as", 2, CR_TOK_KW_AS }, { "assert", 6, CR_TOK_KW_ASSERT },
  { "async", 5, CR_TOK_KW_ASYNC }, { "await", 5, CR_TOK_KW_AWAIT },
  { "break", 5, CR_TOK_KW_BREAK },
  { "class", 5, CR_TOK_KW_CLASS }, { "continue", 8, CR_TOK_KW_CONTINUE },
  { "def", 3, CR_TOK_KW_DEF }, { "del", 3, CR_TOK_KW_DEL },
  { "elif", 4, CR_TOK_KW_ELIF }, { "else", 4, CR_TOK_KW_ELSE }, { "except", 6, CR_TOK_KW_EXCEPT },
  { "finally", 7, CR_TOK_KW_FINALLY }, { "for", 3, CR_TOK_KW_FOR }, { "from", 4, CR_TOK_KW_FROM },
  { "global", 6, CR_TOK_KW_GLOBAL },
  { "if", 2, CR_TOK_KW_IF }, { "import", 6, CR_TOK_KW_IMPORT }, { "in", 2, CR_TOK_KW_IN },
  { "is", 2, CR_TOK_KW_IS },
  { "lambda", 6, CR_TOK_KW_LAMBDA },
  { "nonlocal", 8, CR_TOK_KW_NONLOCAL }, { "not", 3, CR_TOK_KW_NOT },
  { "or", 2, CR_TOK_KW_OR },
  { "pass", 4, CR_TOK_KW_PASS },
  { "raise", 5, CR_TOK_KW_RAISE }, { "return", 6, CR_TOK_KW_RETURN },
  { "try", 3, CR_TOK_KW_TRY },
  { "while", 5, CR_TOK_KW_WHILE }, { "with", 4, CR_TOK_KW_WITH },
  { "yield", 5, CR_TOK_KW_YIELD },
};

/* The first entry of keywords[] for each first letter; past the end when none. */
static const guint8 keyword_first[256] = {
  ['F'] = 0, ['N'] = 1, ['T'] = 2, ['a'] = 3, ['b'] = 8, ['c'] = 9, ['d'] = 11, ['e'] = 13,
  ['f'] = 16, ['g'] = 19, ['i'] = 20, ['l'] = 24, ['n'] = 25, ['o'] = 27, ['p'] = 28,
  ['r'] = 29, ['t'] = 31, ['w'] = 32, ['y'] = 34,
};

static CrTokKind
keyword_kind (const char *s,
              gsize       len)
{
  /* Every keyword is 2 to 8 ASCII letters; most names are not keywords, so
   * look only at the few that share the first letter. */
  if (len < 2 || len > 8)
    return CR_TOK_NAME;
  for (guint i = keyword_first[(guchar) s[0]]; i < G_N_ELEMENTS (keywords) &&
       keywords[i].name[0] == s[0]; i++)
    if (keywords[i].len == len && memcmp (keywords[i].name, s, len) == 0)
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
lex_number (CrLexer  *self,
            int       c,
            guint8   *num_kind,
            gboolean  after_dot)
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
      self->err_quiet = TRUE;
      return -1;
    }
  c = nextc (self);
  if (c == EOF_CHAR)
    {
      int col = end_of_line_column (self);
      set_error (self, CR_EXC_SYNTAX_ERROR, self->lineno, col, col + 1,
                 "unexpected EOF while parsing");
      self->err_quiet = TRUE;
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
                  self->err_quiet = TRUE;
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
                  self->err_quiet = TRUE;
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
      if (is_identifier_char (c))
        {
          /* The rest of the name, straight from the buffer: a name holds no
           * newline, so nextc ()'s line bookkeeping has nothing to do. */
          gsize q = self->pos;

          nonascii = c >= 128;
          while (q < self->end && identifier_chars[(guchar) self->src[q]])
            {
              if ((guchar) self->src[q] >= 128)
                nonascii = TRUE;
              q++;
            }
          self->pos = q;
        }
      else
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
  set_error (self, CR_EXC_TAB_ERROR, self->lineno, 1, 1,
             "inconsistent use of tabs and spaces in indentation");
  self->err_quiet = TRUE;
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
           * last line, newline included; the end of an f-string's expression
           * part is where the part ends (its '}', '!', ':' or '='). */
          token->span.column = column_of (self, self->line_start, self->pos);
          if (!self->fstring_expr)
            token->span.column = MAX (token->span.column - 1, 1);
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
              int         column,
              gboolean    fstring_expr)
{
  CrLexer *self = g_new0 (CrLexer, 1);

  self->src = source;
  self->pos = start;
  self->end = end;
  self->lineno = line;
  self->line_start = line_start;
  self->pending_line = G_MAXSIZE;
  /* Columns are counted on from here. */
  self->cache_line = line_start;
  self->cache_pos = start;
  self->cache_col = column;
  self->fstring_expr = fstring_expr;
  self->atbol = !fstring_expr;
  self->ascii = cr_lexer_is_ascii (source + start, end - start);
  if (fstring_expr)
    {
      /* The implicit parenthesis around the expression. */
      self->parenstack[0] = '(';
      self->parenline[0] = line;
      self->parencol[0] = column;
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
cr_lexer_error_is_quiet (CrLexer *self)
{
  return self->err_quiet;
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
