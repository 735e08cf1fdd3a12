/* cr-pyformat.c — Python's number and string formatting, to the character.
 *
 * The float path follows CPython's own structure (Python/pystrtod.c and
 * Python/formatter_unicode.c): a digit generator gives a digit string and the
 * position of the decimal point, format_float_short() lays those digits out
 * for the 'e', 'f', 'g' and 'r' (repr) codes, and the format-spec machinery
 * adds sign, prefix, grouping and padding.  CPython's digit generator is
 * David Gay's dtoa; here glibc's printf supplies the same digits, because it
 * rounds exactly (round-half-even on the binary value), and the shortest
 * round-trip repr is found by trying 1..17 significant digits. */
#include "cr-pyformat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr-error.h"
#include "cr-value.h"

/* ---- digit generation ----------------------------------------------------- */

typedef enum {
  DIGITS_SHORTEST,     /* dtoa mode 0: the shortest string that round-trips */
  DIGITS_SIGNIFICANT,  /* dtoa mode 2: ndigits significant digits */
  DIGITS_FIXED,        /* dtoa mode 3: ndigits digits after the point */
} DigitMode;

/* Strips trailing zeros the way dtoa does; keeps an empty string empty. */
static void
strip_trailing_zeros (GString *digits)
{
  while (digits->len > 0 && digits->str[digits->len - 1] == '0')
    g_string_truncate (digits, digits->len - 1);
}

/* Parses printf's "%.Ne" output ("d.ddde+XX") into digits and decpt. */
static void
parse_exponent_form (const char *s,
                     GString    *digits,
                     int        *decpt)
{
  const char *p;

  g_string_truncate (digits, 0);
  for (p = s; *p != '\0' && *p != 'e'; p++)
    if (g_ascii_isdigit (*p))
      g_string_append_c (digits, *p);
  *decpt = (*p == 'e' ? atoi (p + 1) : 0) + 1;
  strip_trailing_zeros (digits);
  if (digits->len == 0)
    {
      g_string_assign (digits, "0");
      *decpt = 1;
    }
}

/* The digits of a finite, non-negative value: the digit string (no leading or
 * trailing zeros, except "0" itself) and decpt, the position of the decimal
 * point (value = 0.DIGITS * 10^decpt). */
static void
float_digits (double     value,
              DigitMode  mode,
              int        ndigits,
              GString   *digits,
              int       *decpt)
{
  char buf[64];

  if (value == 0.0)
    {
      g_string_assign (digits, "0");
      *decpt = 1;
      return;
    }

  switch (mode)
    {
    case DIGITS_SHORTEST:
      for (int precision = 1; precision <= 17; precision++)
        {
          g_snprintf (buf, sizeof buf, "%.*e", precision - 1, value);
          if (g_ascii_strtod (buf, NULL) == value)
            break;
        }
      parse_exponent_form (buf, digits, decpt);
      return;

    case DIGITS_SIGNIFICANT:
      {
        g_autofree char *s = g_strdup_printf ("%.*e", MAX (ndigits, 1) - 1, value);
        parse_exponent_form (s, digits, decpt);
      }
      return;

    case DIGITS_FIXED:
    default:
      {
        g_autofree char *s = g_strdup_printf ("%.*f", ndigits, value);
        const char *p;
        int int_len = 0;
        gsize lead = 0;

        g_string_truncate (digits, 0);
        for (p = s; *p != '\0' && *p != '.'; p++)
          {
            g_string_append_c (digits, *p);
            int_len++;
          }
        if (*p == '.')
          g_string_append (digits, p + 1);
        while (lead < digits->len && digits->str[lead] == '0')
          lead++;
        if (lead == digits->len)
          {
            /* Rounded to zero: dtoa's "no digits" answer. */
            g_string_truncate (digits, 0);
            *decpt = -ndigits;
            return;
          }
        g_string_erase (digits, 0, lead);
        *decpt = int_len - (int) lead;
        strip_trailing_zeros (digits);
      }
      return;
    }
}

/* ---- PyOS_double_to_string ------------------------------------------------ */

enum {
  DTSF_SIGN     = 1 << 0,   /* always add a sign */
  DTSF_ADD_DOT_0 = 1 << 1,  /* "2.0", not "2" */
  DTSF_ALT      = 1 << 2,   /* '#': keep the point and trailing zeros */
  DTSF_NO_NEG_0 = 1 << 3,   /* 'z': "-0.0" becomes "0.0" */
};

/* format_float_short(): lays out digits for code 'e', 'f', 'g' or 'r'. */
static char *
double_to_string (double value,
                  char   code,
                  int    precision,
                  int    flags)
{
  g_autoptr(GString) digits = g_string_new (NULL);
  GString *out = g_string_new (NULL);
  gboolean upper = FALSE;
  gboolean negative = signbit (value) != 0;
  gboolean use_exp = FALSE;
  DigitMode mode = DIGITS_SHORTEST;
  int decpt, exp = 0;
  int digits_len, vdigits_start, vdigits_end;

  switch (code)
    {
    case 'E':
      upper = TRUE;
      code = 'e';
      G_GNUC_FALLTHROUGH;
    case 'e':
      mode = DIGITS_SIGNIFICANT;
      precision++;
      break;
    case 'F':
      upper = TRUE;
      code = 'f';
      G_GNUC_FALLTHROUGH;
    case 'f':
      mode = DIGITS_FIXED;
      break;
    case 'G':
      upper = TRUE;
      code = 'g';
      G_GNUC_FALLTHROUGH;
    case 'g':
      mode = DIGITS_SIGNIFICANT;
      if (precision == 0)
        precision = 1;
      break;
    default:
      code = 'r';
      mode = DIGITS_SHORTEST;
      precision = 0;
      break;
    }

  if (isnan (value) || isinf (value))
    {
      /* A NaN never shows its sign bit. */
      if (isinf (value) && negative)
        g_string_append_c (out, '-');
      else if (flags & DTSF_SIGN)
        g_string_append_c (out, '+');
      if (isinf (value))
        g_string_append (out, upper ? "INF" : "inf");
      else
        g_string_append (out, upper ? "NAN" : "nan");
      return g_string_free (out, FALSE);
    }

  float_digits (fabs (value), mode, precision, digits, &decpt);
  digits_len = (int) digits->len;

  /* 'z' drops the sign of a value that prints as zero. */
  if ((flags & DTSF_NO_NEG_0) && negative)
    {
      gboolean all_zero = TRUE;
      for (int i = 0; i < digits_len; i++)
        if (digits->str[i] != '0')
          all_zero = FALSE;
      if (all_zero)
        negative = FALSE;
    }

  vdigits_end = digits_len;
  switch (code)
    {
    case 'e':
      use_exp = TRUE;
      vdigits_end = precision;
      break;
    case 'f':
      vdigits_end = decpt + precision;
      break;
    case 'g':
      if (decpt <= -4
          || decpt > ((flags & DTSF_ADD_DOT_0) ? precision - 1 : precision))
        use_exp = TRUE;
      if (flags & DTSF_ALT)
        vdigits_end = precision;
      break;
    default:
      /* repr switches to an exponent at 1e16 and below 1e-4. */
      if (decpt <= -4 || decpt > 16)
        use_exp = TRUE;
      break;
    }

  if (use_exp)
    {
      exp = decpt - 1;
      decpt = 1;
    }
  vdigits_start = decpt <= 0 ? decpt - 1 : 0;
  if (!use_exp && (flags & DTSF_ADD_DOT_0))
    vdigits_end = MAX (vdigits_end, decpt + 1);
  else
    vdigits_end = MAX (vdigits_end, decpt);

  if (negative)
    g_string_append_c (out, '-');
  else if (flags & DTSF_SIGN)
    g_string_append_c (out, '+');

  /* Zeros on the left of the digits. */
  if (decpt <= 0)
    {
      for (int i = 0; i < decpt - vdigits_start; i++)
        g_string_append_c (out, '0');
      g_string_append_c (out, '.');
      for (int i = 0; i < -decpt; i++)
        g_string_append_c (out, '0');
    }
  else
    {
      for (int i = 0; i < -vdigits_start; i++)
        g_string_append_c (out, '0');
    }

  /* The digits, with the point inside them when it falls there. */
  if (0 < decpt && decpt <= digits_len)
    {
      g_string_append_len (out, digits->str, decpt);
      g_string_append_c (out, '.');
      g_string_append_len (out, digits->str + decpt, digits_len - decpt);
    }
  else
    {
      g_string_append_len (out, digits->str, digits_len);
    }

  /* Zeros on the right. */
  if (digits_len < decpt)
    {
      for (int i = 0; i < decpt - digits_len; i++)
        g_string_append_c (out, '0');
      g_string_append_c (out, '.');
      for (int i = 0; i < vdigits_end - decpt; i++)
        g_string_append_c (out, '0');
    }
  else
    {
      for (int i = 0; i < vdigits_end - digits_len; i++)
        g_string_append_c (out, '0');
    }

  if (out->len > 0 && out->str[out->len - 1] == '.' && !(flags & DTSF_ALT))
    g_string_truncate (out, out->len - 1);

  if (use_exp)
    g_string_append_printf (out, "%c%+.02d", upper ? 'E' : 'e', exp);

  return g_string_free (out, FALSE);
}

char *
cr_py_float_repr (double value)
{
  return double_to_string (value, 'r', 0, DTSF_ADD_DOT_0);
}

/* ---- the format-spec mini-language ---------------------------------------- */

typedef enum {
  GROUP_NONE,
  GROUP_COMMA,
  GROUP_UNDERSCORE,
  GROUP_UNDERSCORE_HEX,  /* '_' with b/o/x/X: every four digits */
} Grouping;

typedef struct {
  gunichar fill;
  gunichar align;
  gunichar sign;
  gboolean no_neg_0;
  gboolean alternate;
  gint64   width;        /* -1: not given */
  Grouping grouping;
  gint64   precision;    /* -1: not given */
  gunichar type;
} FormatSpec;

static gboolean
is_alignment (gunichar c)
{
  return c == '<' || c == '>' || c == '=' || c == '^';
}

static gboolean
set_value_error (GError    **error,
                 const char *format,
                 ...) G_GNUC_PRINTF (2, 3);

static gboolean
set_value_error (GError    **error,
                 const char *format,
                 ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR, message);
  return FALSE;
}

/* A code point as Python's %c shows it in an error message. */
static char *
code_point_text (gunichar c)
{
  char buf[8] = { 0 };

  if (c > 32 && c < 128)
    {
      buf[0] = (char) c;
      return g_strdup (buf);
    }
  return g_strdup_printf ("\\x%x", c);
}

/* Reads a run of decimal digits; FALSE on overflow (Python's ValueError). */
static gboolean
read_integer (const gunichar *spec,
              glong          *pos,
              glong           end,
              gint64         *out,
              int            *consumed,
              GError        **error)
{
  gint64 value = 0;

  *consumed = 0;
  while (*pos < end && spec[*pos] >= '0' && spec[*pos] <= '9')
    {
      int digit = (int) (spec[*pos] - '0');
      if (value > (G_MAXINT64 - digit) / 10)
        return set_value_error (error, "Too many decimal digits in format string");
      value = value * 10 + digit;
      (*pos)++;
      (*consumed)++;
    }
  *out = value;
  return TRUE;
}

/* A width and a precision are sizes to allocate: f"{1:>{10**12}}" is a
 * MemoryError before anything is allocated, as in Python, and within the
 * run's memory budget. The estimate counts the fill's bytes, a separator
 * per three zeros of a grouped zero fill, and the digits of the largest
 * float. */
static gboolean
check_spec_size (const FormatSpec *format,
                 const char       *type_name,
                 GError          **error)
{
  gsize width = (gsize) MAX (format->width, 0), precision = 0;

  /* Only a float's precision is output (a str's cuts it; an int has none);
   * past INT_MAX it is a ValueError of its own (format_float). */
  if (strcmp (type_name, "float") == 0 && format->precision <= G_MAXINT)
    precision = (gsize) MAX (format->precision, 0);
  gsize fill_bytes = (gsize) g_unichar_to_utf8 (format->fill, NULL);
  gsize bytes;

  if (!g_size_checked_mul (&bytes, width, fill_bytes + (format->grouping != GROUP_NONE))
      || !g_size_checked_add (&bytes, bytes, precision)
      || !g_size_checked_add (&bytes, bytes, 512))
    bytes = G_MAXSIZE;
  return cr_value_check_alloc (bytes, error);
}

/* parse_internal_render_format_spec() of CPython 3.11. */
static gboolean
parse_spec (const char *spec_utf8,
            gunichar    default_type,
            gunichar    default_align,
            const char *type_name,
            FormatSpec *format,
            GError    **error)
{
  g_autofree gunichar *spec = NULL;
  glong end = 0, pos = 0;
  gboolean fill_specified = FALSE, align_specified = FALSE;
  int consumed;

  format->fill = ' ';
  format->align = default_align;
  format->sign = '\0';
  format->no_neg_0 = FALSE;
  format->alternate = FALSE;
  format->width = -1;
  format->grouping = GROUP_NONE;
  format->precision = -1;
  format->type = default_type;

  spec = g_utf8_to_ucs4 (spec_utf8, -1, NULL, &end, NULL);
  if (spec == NULL)
    return set_value_error (error, "Invalid format specifier");

  if (end - pos >= 2 && is_alignment (spec[pos + 1]))
    {
      format->align = spec[pos + 1];
      format->fill = spec[pos];
      fill_specified = align_specified = TRUE;
      pos += 2;
    }
  else if (end - pos >= 1 && is_alignment (spec[pos]))
    {
      format->align = spec[pos];
      align_specified = TRUE;
      pos++;
    }

  if (end - pos >= 1 && (spec[pos] == '+' || spec[pos] == '-' || spec[pos] == ' '))
    format->sign = spec[pos++];

  if (end - pos >= 1 && spec[pos] == 'z')
    {
      format->no_neg_0 = TRUE;
      pos++;
    }

  if (end - pos >= 1 && spec[pos] == '#')
    {
      format->alternate = TRUE;
      pos++;
    }

  /* The special case for zero-padding (backwards compatibility). */
  if (!fill_specified && end - pos >= 1 && spec[pos] == '0')
    {
      format->fill = '0';
      if (!align_specified && default_align == '>')
        format->align = '=';
      pos++;
    }

  if (!read_integer (spec, &pos, end, &format->width, &consumed, error))
    return FALSE;
  if (consumed == 0)
    format->width = -1;

  if (end - pos >= 1 && spec[pos] == ',')
    {
      format->grouping = GROUP_COMMA;
      pos++;
    }
  if (end - pos >= 1 && spec[pos] == '_')
    {
      if (format->grouping != GROUP_NONE)
        return set_value_error (error, "Cannot specify both ',' and '_'.");
      format->grouping = GROUP_UNDERSCORE;
      pos++;
    }
  if (end - pos >= 1 && spec[pos] == ',' && format->grouping == GROUP_UNDERSCORE)
    return set_value_error (error, "Cannot specify both ',' and '_'.");

  if (end - pos >= 1 && spec[pos] == '.')
    {
      pos++;
      if (!read_integer (spec, &pos, end, &format->precision, &consumed, error))
        return FALSE;
      if (consumed == 0)
        return set_value_error (error, "Format specifier missing precision");
    }

  if (end - pos > 1)
    return set_value_error (error,
                            "Invalid format specifier '%s' for object of type '%s'",
                            spec_utf8, type_name);
  if (end - pos == 1)
    format->type = spec[pos++];

  if (format->grouping != GROUP_NONE)
    {
      switch (format->type)
        {
        case 'd': case 'e': case 'f': case 'g': case 'E': case 'G':
        case '%': case 'F': case '\0':
          break;
        case 'b': case 'o': case 'x': case 'X':
          if (format->grouping == GROUP_UNDERSCORE)
            {
              format->grouping = GROUP_UNDERSCORE_HEX;
              break;
            }
          G_GNUC_FALLTHROUGH;
        default:
          {
            g_autofree char *code = code_point_text (format->type);
            return set_value_error (error, "Cannot specify '%c' with '%s'.",
                                    format->grouping == GROUP_COMMA ? ',' : '_',
                                    code);
          }
        }
    }
  return check_spec_size (format, type_name, error);
}

static gboolean
unknown_presentation_type (gunichar    type,
                           const char *type_name,
                           GError    **error)
{
  if (type > 32 && type < 128)
    return set_value_error (error, "Unknown format code '%c' for object of type '%s'",
                            (char) type, type_name);
  return set_value_error (error, "Unknown format code '\\x%x' for object of type '%s'",
                          type, type_name);
}

static void
append_fill (GString  *out,
             gunichar  fill,
             gint64    count)
{
  char buf[8];
  int len = g_unichar_to_utf8 (fill, buf);

  if (count <= 0)
    return;
  if (len == 1)
    {
      /* One memset: a width of a billion is a second's work, not a minute's. */
      gsize at = out->len;
      g_string_set_size (out, at + (gsize) count);
      memset (out->str + at, buf[0], (gsize) count);
      return;
    }
  for (gint64 i = 0; i < count; i++)
    g_string_append_len (out, buf, len);
}

/* _PyUnicode_InsertThousandsGrouping(): the integer digits with separators,
 * zero-extended (zeros grouped too) up to min_width characters. */
static void
group_digits (GString    *out,
              const char *digits,
              gint64      n_digits,
              gint64      min_width,
              int         group,      /* 0: no grouping */
              char        separator)
{
  g_autoptr(GString) rev = g_string_new (NULL);
  gint64 remaining = n_digits;
  gboolean use_separator = FALSE;
  gboolean loop_broken = FALSE;
  const char *src = digits + n_digits;   /* walks leftwards */

  /* Python builds the result from the right; so does this, reversed. */
  if (group > 0)
    {
      for (;;)
        {
          gint64 l = MIN ((gint64) group, MAX (MAX (remaining, min_width), 1));
          gint64 n_zeros = MAX (0, l - remaining);
          gint64 n_chars = MAX (0, MIN (remaining, l));

          if (use_separator)
            g_string_append_c (rev, separator);
          for (gint64 i = 0; i < n_chars; i++)
            g_string_append_c (rev, *--src);
          for (gint64 i = 0; i < n_zeros; i++)
            g_string_append_c (rev, '0');
          use_separator = TRUE;
          remaining -= n_chars;
          min_width -= l;
          if (remaining <= 0 && min_width <= 0)
            {
              loop_broken = TRUE;
              break;
            }
          min_width -= 1;
        }
    }
  if (!loop_broken)
    {
      gint64 l = MAX (MAX (remaining, min_width), 1);
      gint64 n_zeros = MAX (0, l - remaining);
      gint64 n_chars = MAX (0, MIN (remaining, l));

      if (use_separator)
        g_string_append_c (rev, separator);
      for (gint64 i = 0; i < n_chars; i++)
        g_string_append_c (rev, *--src);
      for (gint64 i = 0; i < n_zeros; i++)
        g_string_append_c (rev, '0');
    }

  for (gint64 i = (gint64) rev->len - 1; i >= 0; i--)
    g_string_append_c (out, rev->str[i]);
}

/* calc_number_widths() + fill_number(): number is the ASCII text of the
 * value without its sign; it starts with n_digits integer digits (after a
 * prefix of n_prefix characters such as "0x"), the rest (point, fraction,
 * exponent, '%') is copied as is. */
static char *
fill_number (const FormatSpec *format,
             gboolean          negative,
             const char       *prefix,
             const char       *number,
             gint64            n_digits,
             gboolean          uppercase)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GString) body = g_string_new (NULL);
  gint64 n_prefix = (gint64) strlen (prefix);
  gint64 n_sign = 0;
  gint64 min_width = 0, n_padding, n_lead;
  char sign = '\0';
  int group = 0;
  char separator = ',';
  const char *remainder = number + n_digits;

  switch (format->sign)
    {
    case '+':
      n_sign = 1;
      sign = negative ? '-' : '+';
      break;
    case ' ':
      n_sign = 1;
      sign = negative ? '-' : ' ';
      break;
    default:
      if (negative)
        {
          n_sign = 1;
          sign = '-';
        }
      break;
    }

  switch (format->grouping)
    {
    case GROUP_COMMA:          group = 3; separator = ','; break;
    case GROUP_UNDERSCORE:     group = 3; separator = '_'; break;
    case GROUP_UNDERSCORE_HEX: group = 4; separator = '_'; break;
    case GROUP_NONE:
    default:                   group = 0; break;
    }
  /* 'n' uses the C locale here, which groups nothing. */

  n_lead = n_sign + n_prefix;
  if (format->fill == '0' && format->align == '=')
    min_width = format->width - n_lead - (gint64) strlen (remainder);

  if (n_digits > 0)
    group_digits (body, number, n_digits, min_width, group, separator);
  g_string_append (body, remainder);
  if (uppercase)
    for (gsize i = 0; i < body->len; i++)
      body->str[i] = g_ascii_toupper (body->str[i]);

  n_padding = format->width - (n_lead + (gint64) body->len);
  if (n_padding < 0)
    n_padding = 0;

  if (format->align == '>' || format->align == '^')
    append_fill (out, format->fill,
                 format->align == '^' ? n_padding / 2 : n_padding);
  if (sign != '\0')
    g_string_append_c (out, sign);
  if (n_prefix > 0)
    {
      for (const char *p = prefix; *p != '\0'; p++)
        g_string_append_c (out, uppercase ? g_ascii_toupper (*p) : *p);
    }
  if (format->align == '=')
    append_fill (out, format->fill, n_padding);
  g_string_append_len (out, body->str, body->len);
  if (format->align == '<' || format->align == '^')
    append_fill (out, format->fill,
                 format->align == '^' ? n_padding - n_padding / 2 : n_padding);
  return g_string_free (out, FALSE);
}

/* format_float_internal(). */
static char *
format_float_spec (double            value,
                   const FormatSpec *format)
{
  g_autofree char *text = NULL;
  g_autofree char *number = NULL;
  gunichar type = format->type;
  int precision;
  int default_precision = 6;
  int flags = 0;
  gboolean add_pct = FALSE;
  gboolean negative = FALSE;
  const char *p;
  gint64 n_digits = 0;

  if (format->alternate)
    flags |= DTSF_ALT;
  if (format->no_neg_0)
    flags |= DTSF_NO_NEG_0;

  if (type == '\0')
    {
      /* Like repr() without a precision, like 'g' (with at least one digit
       * after the point) with one. */
      flags |= DTSF_ADD_DOT_0;
      type = 'r';
      default_precision = 0;
    }
  if (type == 'n')
    type = 'g';
  if (type == '%')
    {
      type = 'f';
      value *= 100;
      add_pct = TRUE;
    }

  precision = (int) MIN (format->precision, (gint64) G_MAXINT);
  if (format->precision < 0)
    precision = default_precision;
  else if (type == 'r')
    type = 'g';

  text = double_to_string (value, (char) type, precision, flags);
  if (add_pct)
    {
      char *with_pct = g_strconcat (text, "%", NULL);
      g_free (text);
      text = with_pct;
    }

  p = text;
  if (*p == '-')
    {
      negative = TRUE;
      p++;
    }
  number = g_strdup (p);
  /* The integer digits are the leading run of digits (parse_number()). */
  while (g_ascii_isdigit (number[n_digits]))
    n_digits++;

  return fill_number (format, negative, "", number, n_digits, FALSE);
}

char *
cr_py_format_float (double       value,
                    const char  *spec,
                    GError     **error)
{
  FormatSpec format;

  g_return_val_if_fail (spec != NULL, NULL);

  if (spec[0] == '\0')
    return cr_py_float_repr (value);
  if (!parse_spec (spec, '\0', '>', "float", &format, error))
    return NULL;
  /* CPython's limit is INT_MAX; this one leaves room for the integer digits
   * (the layout counts in int). */
  if (format.precision > G_MAXINT - 1024)
    {
      set_value_error (error, "precision too big");
      return NULL;
    }

  switch (format.type)
    {
    case '\0': case 'e': case 'E': case 'f': case 'F':
    case 'g': case 'G': case 'n': case '%':
      return format_float_spec (value, &format);
    default:
      unknown_presentation_type (format.type, "float", error);
      return NULL;
    }
}

/* Digits of |value| in base 2, 8, 10 or 16, lower case. */
static char *
int_digits (gint64 value,
            int    base)
{
  guint64 magnitude = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;
  char buf[72];
  int pos = (int) sizeof buf - 1;

  buf[pos] = '\0';
  do
    {
      buf[--pos] = "0123456789abcdef"[magnitude % (guint64) base];
      magnitude /= (guint64) base;
    }
  while (magnitude > 0);
  return g_strdup (buf + pos);
}

char *
cr_py_format_int (gint64       value,
                  const char  *spec,
                  GError     **error)
{
  FormatSpec format;
  g_autofree char *digits = NULL;
  const char *prefix = "";
  int base = 10;

  g_return_val_if_fail (spec != NULL, NULL);

  if (spec[0] == '\0')
    return g_strdup_printf ("%" G_GINT64_FORMAT, value);
  if (!parse_spec (spec, 'd', '>', "int", &format, error))
    return NULL;

  switch (format.type)
    {
    case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
      break;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
      return format_float_spec ((double) value, &format);
    default:
      unknown_presentation_type (format.type, "int", error);
      return NULL;
    }

  if (format.precision != -1)
    {
      set_value_error (error, "Precision not allowed in integer format specifier");
      return NULL;
    }
  if (format.no_neg_0)
    {
      set_value_error (error, "Negative zero coercion (z) not allowed in integer format specifier");
      return NULL;
    }

  if (format.type == 'c')
    {
      char buf[8] = { 0 };
      g_autoptr(GString) out = g_string_new (NULL);
      gint64 n_padding;

      if (format.sign != '\0')
        {
          set_value_error (error, "Sign not allowed with integer format specifier 'c'");
          return NULL;
        }
      if (format.alternate)
        {
          set_value_error (error, "Alternate form (#) not allowed with integer format specifier 'c'");
          return NULL;
        }
      if (value < 0 || value > 0x10ffff)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_OVERFLOW_ERROR,
                               "%c arg not in range(0x110000)");
          return NULL;
        }
      g_unichar_to_utf8 ((gunichar) value, buf);
      /* The character is a "remainder": padded, never grouped or zero-filled. */
      n_padding = MAX (0, format.width - 1);
      if (format.align == '>' || format.align == '^')
        append_fill (out, format.fill, format.align == '^' ? n_padding / 2 : n_padding);
      if (format.align == '=')
        append_fill (out, format.fill, n_padding);
      g_string_append (out, buf);
      if (format.align == '<' || format.align == '^')
        append_fill (out, format.fill,
                     format.align == '^' ? n_padding - n_padding / 2 : n_padding);
      return g_string_free (g_steal_pointer (&out), FALSE);
    }

  switch (format.type)
    {
    case 'b': base = 2;  prefix = "0b"; break;
    case 'o': base = 8;  prefix = "0o"; break;
    case 'x':
    case 'X': base = 16; prefix = "0x"; break;
    default:  base = 10; prefix = "";   break;
    }
  if (!format.alternate)
    prefix = "";

  digits = int_digits (value, base);
  return fill_number (&format, value < 0, prefix, digits,
                      (gint64) strlen (digits), format.type == 'X');
}

char *
cr_py_format_str (const char  *value,
                  const char  *spec,
                  GError     **error)
{
  FormatSpec format;
  GString *out;
  const char *end;
  gint64 len, n_padding;

  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (spec != NULL, NULL);

  if (spec[0] == '\0')
    return g_strdup (value);
  if (!parse_spec (spec, 's', '<', "str", &format, error))
    return NULL;

  if (format.type != 's')
    {
      unknown_presentation_type (format.type, "str", error);
      return NULL;
    }
  if (format.sign != '\0')
    {
      set_value_error (error, "Sign not allowed in string format specifier");
      return NULL;
    }
  if (format.no_neg_0)
    {
      set_value_error (error, "Negative zero coercion (z) not allowed in string format specifier");
      return NULL;
    }
  if (format.alternate)
    {
      set_value_error (error, "Alternate form (#) not allowed in string format specifier");
      return NULL;
    }
  if (format.align == '=')
    {
      set_value_error (error, "'=' alignment not allowed in string format specifier");
      return NULL;
    }

  len = g_utf8_strlen (value, -1);
  if (format.precision >= 0 && len > format.precision)
    len = format.precision;
  end = g_utf8_offset_to_pointer (value, (glong) len);

  out = g_string_new (NULL);
  n_padding = MAX (0, format.width - len);
  if (format.align == '>' || format.align == '^')
    append_fill (out, format.fill, format.align == '^' ? n_padding / 2 : n_padding);
  g_string_append_len (out, value, end - value);
  if (format.align == '<' || format.align == '^')
    append_fill (out, format.fill,
                 format.align == '^' ? n_padding - n_padding / 2 : n_padding);
  return g_string_free (out, FALSE);
}

/* ---- repr(str) ------------------------------------------------------------ */

/* str.isprintable() for one character: Python escapes the categories Cc,
 * Cf, Cs, Co, Cn, Zl, Zp and Zs (except the ASCII space). */
static gboolean
is_printable (gunichar c)
{
  switch (g_unichar_type (c))
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

char *
cr_py_str_repr (const char *value,
                gsize       length)
{
  GString *out;
  const char *p, *end;
  gboolean has_single = FALSE, has_double = FALSE;
  char quote;

  g_return_val_if_fail (value != NULL || length == 0, NULL);

  if (length == (gsize) -1)
    length = strlen (value);
  end = value + length;

  for (p = value; p < end; p++)
    {
      if (*p == '\'')
        has_single = TRUE;
      else if (*p == '"')
        has_double = TRUE;
    }
  quote = (has_single && !has_double) ? '"' : '\'';

  out = g_string_sized_new (length + 2);
  g_string_append_c (out, quote);
  p = value;
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      const char *next;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8: show the byte (Python would have failed earlier). */
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      next = g_utf8_next_char (p);

      if (c == (gunichar) quote || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c < 0x7f)
        g_string_append_c (out, (char) c);
      else if (is_printable (c))
        g_string_append_len (out, p, next - p);
      else if (c <= 0xff)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c <= 0xffff)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_printf (out, "\\U%08x", c);
      p = next;
    }
  g_string_append_c (out, quote);
  return g_string_free (out, FALSE);
}
