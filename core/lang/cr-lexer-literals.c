/* cr-lexer-literals.c — the values of literal tokens: numbers, string
 * escapes, and the pieces of f-strings (CPython 3.11's string_parser.c:
 * literal text, replacement fields, conversions and format specs).
 */
#include "cr-lexer.h"

#include <string.h>

/* ---- token values ---- */

/* Clinger's fast path: a decimal with at most 15 significant digits and a
 * small power of ten is one exactly rounded multiplication or division
 * (both operands are exact doubles), the same double strtod () gives. */
static gboolean
simple_float (const char *s,
              double     *out)
{
  static const double powers[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  guint64 mantissa = 0;
  int digits = 0;
  int exp10 = 0;
  gboolean seen_dot = FALSE;

  for (; *s; s++)
    {
      if (*s == '.')
        seen_dot = TRUE;
      else if (*s >= '0' && *s <= '9')
        {
          if (mantissa == 0 && *s == '0')
            {
              if (seen_dot)
                exp10--;
              continue;
            }
          if (++digits > 15)
            return FALSE;
          mantissa = mantissa * 10 + (guint64) (*s - '0');
          if (seen_dot)
            exp10--;
        }
      else
        break;
    }
  if (*s == 'e' || *s == 'E')
    {
      int sign = 1, e = 0;

      s++;
      if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
      for (; *s >= '0' && *s <= '9'; s++)
        {
          e = e * 10 + (*s - '0');
          if (e > 1000)
            return FALSE;
        }
      exp10 += sign * e;
    }
  if (*s != '\0')
    return FALSE;
  if (mantissa == 0)
    {
      *out = 0.0;
      return TRUE;
    }
  if (exp10 < -22 || exp10 > 22)
    return FALSE;
  *out = exp10 >= 0 ? (double) mantissa * powers[exp10] : (double) mantissa / powers[-exp10];
  return TRUE;
}

gboolean
cr_lexer_number_value (const char     *source,
                       const CrToken  *token,
                       gint64         *out_int,
                       double         *out_float,
                       char          **out_message)
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
  else if (!simple_float (buf, out_float))
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
cr_lexer_decode_string (const char  *body,
                        gsize        len,
                        gboolean     raw,
                        GString     *out,
                        char       **out_message)
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
