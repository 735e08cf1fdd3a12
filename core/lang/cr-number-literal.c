/* cr-number-literal.c — number literals found by the tokenizer and written
 * again with a new value (cr-number-literal.h). */
#include "cr-number-literal.h"
#include "cr-lexer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mantissas of up to this many digits are counted exactly in a gint64. */
#define MAX_MANTISSA_DIGITS 17

/* Reads text[0, n), a number token without its sign, into literal's
 * format fields and value. FALSE for what does not qualify (hex, octal,
 * binary, underscores, imaginary, too many digits). */
static gboolean
read_digits (const char      *text,
             gsize            n,
             gboolean         negative,
             CrNumberLiteral *literal)
{
  gsize i = 0;
  int digits = 0;
  gint64 units = 0;
  literal->decimals = 0;
  literal->has_point = FALSE;
  literal->bare_point = FALSE;
  literal->exponent[0] = '\0';
  if (n == 0)
    return FALSE;
  /* "0x1f", "0o7", "0b1": not decimal. */
  if (n > 1 && text[0] == '0' && g_ascii_isalpha (text[1]) && text[1] != 'e' && text[1] != 'E')
    return FALSE;
  literal->bare_point = text[0] == '.';
  for (; i < n; i++)
    {
      char c = text[i];
      if (g_ascii_isdigit (c))
        {
          /* Leading zeros count for nothing and take no room. */
          if (units > 0 || c != '0')
            digits++;
          if (digits > MAX_MANTISSA_DIGITS)
            return FALSE;
          units = units * 10 + (c - '0');
          if (literal->has_point)
            literal->decimals++;
        }
      else if (c == '.' && !literal->has_point)
        literal->has_point = TRUE;
      else
        break;
    }
  if (i < n && (text[i] == 'e' || text[i] == 'E'))
    {
      gsize exp_start = i++;
      if (i < n && (text[i] == '+' || text[i] == '-'))
        i++;
      gsize exp_digits = i;
      while (i < n && g_ascii_isdigit (text[i]))
        i++;
      if (i == exp_digits || i - exp_start >= sizeof literal->exponent)
        return FALSE;
      memcpy (literal->exponent, text + exp_start, i - exp_start);
      literal->exponent[i - exp_start] = '\0';
    }
  if (i != n)
    return FALSE;   /* "1_000", "2j", ... */
  literal->is_float = literal->has_point || literal->exponent[0] != '\0';
  literal->units = negative ? -units : units;
  g_autofree char *copy = g_strndup (text, n);
  literal->value = g_ascii_strtod (copy, NULL);
  if (negative)
    literal->value = -literal->value;
  return TRUE;
}

/* Whether a token ends an operand, after which a minus subtracts. */
static gboolean
ends_operand (CrTokKind kind)
{
  switch (kind)
    {
    case CR_TOK_NAME:
    case CR_TOK_NUMBER:
    case CR_TOK_STRING:
    case CR_TOK_RPAR:
    case CR_TOK_RSQB:
    case CR_TOK_RBRACE:
    case CR_TOK_KW_TRUE:
    case CR_TOK_KW_FALSE:
    case CR_TOK_KW_NONE:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Walks source's number tokens, calling visit with each that qualifies
 * (its minus included) until visit returns FALSE or a token starts at or
 * after stop. FALSE when the text did not tokenize up to where the walk
 * ended. */
typedef gboolean (*LiteralVisit) (const CrNumberLiteral *literal,
                                  gpointer               data);

static gboolean
walk_literals (const char  *source,
               gssize       length,
               gsize        stop,
               LiteralVisit visit,
               gpointer     data)
{
  gsize n = length < 0 ? strlen (source) : (gsize) length;
  /* The tokenizer wants a whole file's last newline. */
  g_autofree char *owned = NULL;
  const char *text = source;
  if (n == 0 || source[n - 1] != '\n')
    {
      owned = g_malloc (n + 2);
      memcpy (owned, source, n);
      owned[n] = '\n';
      owned[n + 1] = '\0';
      text = owned;
      n++;
    }
  CrLexer *lexer = cr_lexer_new (text, 0, n, 1, 0, 1, FALSE);
  CrToken before = { .kind = CR_TOK_NEWLINE }, last = { .kind = CR_TOK_NEWLINE };
  gboolean whole = TRUE;
  for (;;)
    {
      CrToken token;
      cr_lexer_next (lexer, &token);
      if (token.kind == CR_TOK_ERROR)
        {
          whole = FALSE;
          break;
        }
      if (token.kind == CR_TOK_ENDMARKER || token.start >= stop)
        break;
      if (token.kind == CR_TOK_NUMBER && token.num_kind != CR_NUM_IMAG)
        {
          /* A minus right against the number, not after an operand, is its sign. */
          gboolean negative = last.kind == CR_TOK_MINUS && last.end == token.start
                              && !ends_operand (before.kind);
          CrNumberLiteral literal = { 0 };
          if (read_digits (text + token.start, token.end - token.start, negative, &literal))
            {
              literal.start = negative ? last.start : token.start;
              literal.end = token.end;
              if (!visit (&literal, data))
                break;
            }
        }
      before = last;
      last = token;
    }
  cr_lexer_free (lexer);
  return whole;
}

typedef struct {
  gsize            offset;
  gboolean         found;
  CrNumberLiteral *literal;
} AtSearch;

static gboolean
visit_at (const CrNumberLiteral *literal,
          gpointer               data)
{
  AtSearch *search = data;
  if (search->offset >= literal->start && search->offset < literal->end)
    {
      *search->literal = *literal;
      search->found = TRUE;
      return FALSE;
    }
  return TRUE;
}

gboolean
cr_number_literal_at (const char      *source,
                      gssize           length,
                      gsize            offset,
                      CrNumberLiteral *literal)
{
  g_return_val_if_fail (source != NULL && literal != NULL, FALSE);
  AtSearch search = { offset, FALSE, literal };
  /* The token that holds offset starts at or before it, or just after it
   * when offset is on its minus. */
  walk_literals (source, length, offset + 2, visit_at, &search);
  return search.found;
}

typedef struct {
  gsize            start, end;
  double           value;
  guint            matches;
  CrNumberLiteral *literal;
} ValueSearch;

static gboolean
visit_value (const CrNumberLiteral *literal,
             gpointer               data)
{
  ValueSearch *search = data;
  if (literal->start < search->start || literal->end > search->end)
    return TRUE;
  /* To float32's precision: a leaf's 0.05 is 0.0500000007. */
  double scale = MAX (1e-30, fabs (search->value));
  if (fabs (literal->value - search->value) <= 1e-6 * scale)
    {
      if (search->matches++ == 0)
        *search->literal = *literal;
    }
  return TRUE;
}

gboolean
cr_number_literal_find (const char      *source,
                        gssize           length,
                        gsize            start,
                        gsize            end,
                        double           value,
                        CrNumberLiteral *literal)
{
  g_return_val_if_fail (source != NULL && literal != NULL, FALSE);
  CrNumberLiteral found = { 0 };
  ValueSearch search = { start, end, value, 0, &found };
  if (!walk_literals (source, length, end, visit_value, &search) || search.matches != 1)
    return FALSE;
  *literal = found;
  return TRUE;
}

gboolean
cr_number_literal_parse (const char      *text,
                         CrNumberLiteral *literal)
{
  g_return_val_if_fail (text != NULL && literal != NULL, FALSE);
  const char *start = text;
  while (g_ascii_isspace (*start))
    start++;
  const char *end = start + strlen (start);
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  gboolean negative = start < end && *start == '-';
  const char *digits = negative ? start + 1 : start;
  /* "+", "-" alone, or a sign with a space: not a literal. */
  if (digits >= end || !(g_ascii_isdigit (*digits) || *digits == '.'))
    return FALSE;
  CrNumberLiteral parsed = { 0 };
  if (!read_digits (digits, (gsize) (end - digits), negative, &parsed)
      || (parsed.bare_point && parsed.decimals == 0))
    return FALSE;
  parsed.start = (gsize) (start - text);
  parsed.end = (gsize) (end - text);
  *literal = parsed;
  return TRUE;
}

double
cr_number_literal_step (const CrNumberLiteral *literal)
{
  g_return_val_if_fail (literal != NULL, 1.0);
  int exponent = literal->exponent[0] ? atoi (literal->exponent + 1) : 0;
  return pow (10.0, exponent - literal->decimals);
}

/* units written with decimals digits after the point, in literal's format. */
static char *
write_units (const CrNumberLiteral *literal,
             gint64                 units)
{
  GString *text = g_string_new (units < 0 ? "-" : NULL);
  guint64 magnitude = units < 0 ? (guint64) (-(units + 1)) + 1 : (guint64) units;
  if (literal->decimals == 0)
    {
      g_string_append_printf (text, "%" G_GUINT64_FORMAT, magnitude);
      if (literal->has_point)
        g_string_append_c (text, '.');
    }
  else
    {
      guint64 scale = 1;
      for (int i = 0; i < literal->decimals; i++)
        scale *= 10;
      guint64 whole = magnitude / scale, fraction = magnitude % scale;
      if (whole > 0 || !literal->bare_point)
        g_string_append_printf (text, "%" G_GUINT64_FORMAT, whole);
      g_string_append_printf (text, ".%0*" G_GUINT64_FORMAT, literal->decimals, fraction);
    }
  g_string_append (text, literal->exponent);
  return g_string_free (text, FALSE);
}

char *
cr_number_literal_stepped (const CrNumberLiteral *literal,
                           gint64                 steps)
{
  g_return_val_if_fail (literal != NULL, NULL);
  gint64 limit = 99999999999999999;   /* MAX_MANTISSA_DIGITS nines */
  if ((steps > 0 && literal->units > limit - steps) || (steps < 0 && literal->units < -limit - steps))
    return NULL;
  return write_units (literal, literal->units + steps);
}

char *
cr_number_literal_replacement (const CrNumberLiteral *literal,
                               const char            *typed)
{
  g_return_val_if_fail (literal != NULL && typed != NULL, NULL);
  CrNumberLiteral parsed;
  if (!cr_number_literal_parse (typed, &parsed))
    return NULL;
  g_autofree char *text = g_strndup (typed + parsed.start, parsed.end - parsed.start);
  if (literal->is_float && !parsed.is_float)
    return g_strconcat (text, ".0", NULL);
  return g_steal_pointer (&text);
}
