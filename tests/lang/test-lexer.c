/* test-lexer.c — the script language's tokenizer.
 *
 * Expected error texts and positions are what Python 3.11.7 reports for the
 * same source (SyntaxError.msg, .lineno, .offset from compile ()); where the
 * lexer's own conventions are checked (token spans), the values follow the
 * ast module's (1-based columns, end exclusive).
 */
#include "cr-lexer.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

/* Every token of src up to ENDMARKER or ERROR (the lexer is left in *out). */
static GArray *
lex_all (const char *src,
         CrLexer   **out)
{
  GArray *tokens = g_array_new (FALSE, FALSE, sizeof (CrToken));
  CrLexer *lexer = cr_lexer_new (src, 0, strlen (src), 1, 0, 1, FALSE);

  for (;;)
    {
      CrToken t;

      cr_lexer_next (lexer, &t);
      g_array_append_val (tokens, t);
      if (t.kind == CR_TOK_ENDMARKER || t.kind == CR_TOK_ERROR)
        break;
      g_assert_cmpuint (tokens->len, <, 100000);
    }
  if (out)
    *out = lexer;
  else
    cr_lexer_free (lexer);
  return tokens;
}

#define TOK(a, i) (&g_array_index ((a), CrToken, (i)))

static void
assert_kinds (const char      *src,
              const CrTokKind *kinds,
              guint            n)
{
  g_autoptr(GArray) tokens = lex_all (src, NULL);

  for (guint i = 0; i < MIN (n, tokens->len); i++)
    if (TOK (tokens, i)->kind != kinds[i])
      g_error ("%s: token %u is %s, expected %s", src, i,
               cr_tok_kind_name (TOK (tokens, i)->kind), cr_tok_kind_name (kinds[i]));
  g_assert_cmpuint (tokens->len, ==, n);
}

static void
assert_span (const CrToken *t,
             int            line,
             int            column,
             int            end_line,
             int            end_column)
{
  g_assert_cmpint (t->span.line, ==, line);
  g_assert_cmpint (t->span.column, ==, column);
  g_assert_cmpint (t->span.end_line, ==, end_line);
  g_assert_cmpint (t->span.end_column, ==, end_column);
}

/* The lexer's error for src: code, message, line, column. */
static void
assert_lex_error (const char *src,
                  int         code,
                  const char *message,
                  int         line,
                  int         column)
{
  CrLexer *lexer;
  g_autoptr(GArray) tokens = lex_all (src, &lexer);
  const char *got;
  CrSpan span;
  int got_code;

  g_assert_cmpint (TOK (tokens, tokens->len - 1)->kind, ==, CR_TOK_ERROR);
  got_code = cr_lexer_get_error (lexer, &got, &span);
  g_assert_cmpstr (got, ==, message);
  g_assert_cmpint (got_code, ==, code);
  g_assert_cmpint (span.line, ==, line);
  g_assert_cmpint (span.column, ==, column);
  cr_lexer_free (lexer);
}

static void
test_tokens (void)
{
  const char *src = "x = foo(1, 2)  # note\nif x:\n    y\n";
  static const CrTokKind kinds[] = {
    CR_TOK_NAME, CR_TOK_EQUAL, CR_TOK_NAME, CR_TOK_LPAR, CR_TOK_NUMBER, CR_TOK_COMMA,
    CR_TOK_NUMBER, CR_TOK_RPAR, CR_TOK_NEWLINE,
    CR_TOK_KW_IF, CR_TOK_NAME, CR_TOK_COLON, CR_TOK_NEWLINE,
    CR_TOK_INDENT, CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_DEDENT, CR_TOK_ENDMARKER,
  };
  g_autoptr(GArray) tokens = lex_all (src, NULL);

  assert_kinds (src, kinds, G_N_ELEMENTS (kinds));
  assert_span (TOK (tokens, 0), 1, 1, 1, 2);     /* x */
  assert_span (TOK (tokens, 2), 1, 5, 1, 8);     /* foo */
  assert_span (TOK (tokens, 7), 1, 13, 1, 14);   /* ) */
  /* A NEWLINE after a comment starts at the '#' (where Python reports
   * "invalid syntax" at the end of such a line) and ends at the '\n'. */
  assert_span (TOK (tokens, 8), 1, 16, 1, 22);
  assert_span (TOK (tokens, 9), 2, 1, 2, 3);     /* if */
  assert_span (TOK (tokens, 14), 3, 5, 3, 6);    /* y */
  g_assert_cmpint (TOK (tokens, 3)->level, ==, 1);
  g_assert_cmpint (TOK (tokens, 7)->level, ==, 0);
  g_assert_cmpuint (TOK (tokens, 2)->start, ==, 4);
  g_assert_cmpuint (TOK (tokens, 2)->end, ==, 7);
}

static void
test_operators (void)
{
  const char *src = "a **= b // c //= d -> e := f @= g != h ... . <= >= << >>= ~ ^ | & % @ !\n";
  static const CrTokKind kinds[] = {
    CR_TOK_NAME, CR_TOK_DOUBLESTAREQUAL, CR_TOK_NAME, CR_TOK_DOUBLESLASH, CR_TOK_NAME,
    CR_TOK_DOUBLESLASHEQUAL, CR_TOK_NAME, CR_TOK_RARROW, CR_TOK_NAME, CR_TOK_COLONEQUAL,
    CR_TOK_NAME, CR_TOK_ATEQUAL, CR_TOK_NAME, CR_TOK_NOTEQUAL, CR_TOK_NAME, CR_TOK_ELLIPSIS,
    CR_TOK_DOT, CR_TOK_LESSEQUAL, CR_TOK_GREATEREQUAL, CR_TOK_LEFTSHIFT,
    CR_TOK_RIGHTSHIFTEQUAL, CR_TOK_TILDE, CR_TOK_CIRCUMFLEX, CR_TOK_VBAR, CR_TOK_AMPER,
    CR_TOK_PERCENT, CR_TOK_AT, CR_TOK_OP, CR_TOK_NEWLINE, CR_TOK_ENDMARKER,
  };

  assert_kinds (src, kinds, G_N_ELEMENTS (kinds));
}

static void
test_keywords (void)
{
  /* Soft keywords (match, case, _) are names; async/await are keywords. */
  const char *src = "True False None and not match case _ async await lambda elif yieldx\n";
  static const CrTokKind kinds[] = {
    CR_TOK_KW_TRUE, CR_TOK_KW_FALSE, CR_TOK_KW_NONE, CR_TOK_KW_AND, CR_TOK_KW_NOT,
    CR_TOK_NAME, CR_TOK_NAME, CR_TOK_NAME, CR_TOK_KW_ASYNC, CR_TOK_KW_AWAIT,
    CR_TOK_KW_LAMBDA, CR_TOK_KW_ELIF, CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_ENDMARKER,
  };

  assert_kinds (src, kinds, G_N_ELEMENTS (kinds));
}

static void
check_number (const char *text,
              CrNumKind   kind,
              gint64      i,
              double      f)
{
  g_autofree char *src = g_strdup_printf ("%s\n", text);
  g_autoptr(GArray) tokens = lex_all (src, NULL);
  char *message = NULL;
  gint64 gi;
  double gf;

  g_assert_cmpint (TOK (tokens, 0)->kind, ==, CR_TOK_NUMBER);
  g_assert_cmpint (TOK (tokens, 0)->num_kind, ==, kind);
  g_assert_cmpuint (TOK (tokens, 0)->end, ==, strlen (text));
  g_assert_true (cr_lexer_number_value (src, TOK (tokens, 0), &gi, &gf, &message));
  if (kind == CR_NUM_INT)
    g_assert_cmpint (gi, ==, i);
  else
    g_assert_cmpfloat (gf, ==, f);
}

static void
test_numbers (void)
{
  check_number ("0x1F", CR_NUM_INT, 31, 0);
  check_number ("0o17", CR_NUM_INT, 15, 0);
  check_number ("0b101", CR_NUM_INT, 5, 0);
  check_number ("0B1_0", CR_NUM_INT, 2, 0);
  check_number ("1_000", CR_NUM_INT, 1000, 0);
  check_number ("0_0", CR_NUM_INT, 0, 0);
  check_number ("00", CR_NUM_INT, 0, 0);
  check_number ("9223372036854775807", CR_NUM_INT, G_MAXINT64, 0);
  check_number ("1.", CR_NUM_FLOAT, 0, 1.0);
  check_number (".5", CR_NUM_FLOAT, 0, 0.5);
  check_number ("1e-3", CR_NUM_FLOAT, 0, 0.001);
  check_number ("1_0.5", CR_NUM_FLOAT, 0, 10.5);
  check_number ("1E+10", CR_NUM_FLOAT, 0, 1e10);
  check_number ("0.1", CR_NUM_FLOAT, 0, 0.1);
  check_number ("3.14159", CR_NUM_FLOAT, 0, 3.14159);
  check_number ("00.5", CR_NUM_FLOAT, 0, 0.5);
  /* Beyond the fast path: strtod, correctly rounded like Python's float (). */
  check_number ("1.7976931348623157e308", CR_NUM_FLOAT, 0, 1.7976931348623157e308);
  check_number ("2.2250738585072014e-308", CR_NUM_FLOAT, 0, 2.2250738585072014e-308);
  check_number ("123456789012345678.9", CR_NUM_FLOAT, 0, 123456789012345678.9);
  check_number ("1e400", CR_NUM_FLOAT, 0, HUGE_VAL);
  check_number ("1j", CR_NUM_IMAG, 0, 1.0);   /* the imaginary part */
  check_number ("1.5J", CR_NUM_IMAG, 0, 1.5);

  /* "1if x else y" is a number followed by a keyword (a SyntaxWarning in
   * Python); "1in" too. */
  {
    static const CrTokKind kinds[] = {
      CR_TOK_NUMBER, CR_TOK_KW_IF, CR_TOK_NAME, CR_TOK_KW_ELSE, CR_TOK_NAME, CR_TOK_NEWLINE,
      CR_TOK_ENDMARKER,
    };
    assert_kinds ("1if x else y\n", kinds, G_N_ELEMENTS (kinds));
  }

  /* Too big for 64 bits: a message, no wrap-around. */
  {
    const char *src = "9223372036854775808\n";
    g_autoptr(GArray) tokens = lex_all (src, NULL);
    g_autofree char *message = NULL;
    gint64 i;
    double f;

    g_assert_false (cr_lexer_number_value (src, TOK (tokens, 0), &i, &f, &message));
    g_assert_cmpstr (message, ==, "integer literal 9223372036854775808 is too large "
                                  "(Chainrule integers are 64-bit)");
  }
}

static void
test_number_errors (void)
{
  /* Python 3.11: compile (src) -> SyntaxError(msg, lineno, offset). */
  assert_lex_error ("1abc\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 1);
  assert_lex_error ("x = 0b12\n", CR_EXC_SYNTAX_ERROR, "invalid digit '2' in binary literal", 1, 8);
  assert_lex_error ("x = 0o19\n", CR_EXC_SYNTAX_ERROR, "invalid digit '9' in octal literal", 1, 8);
  assert_lex_error ("x = 1__0\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 6);
  assert_lex_error ("x = 0x_\n", CR_EXC_SYNTAX_ERROR, "invalid hexadecimal literal", 1, 7);
  assert_lex_error ("x = 1e+\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 7);
  assert_lex_error ("x = 1.e5x\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 8);
  assert_lex_error ("x = 1andy\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 5);
  assert_lex_error ("x = 012\n", CR_EXC_SYNTAX_ERROR,
                    "leading zeros in decimal integer literals are not permitted; "
                    "use an 0o prefix for octal integers", 1, 5);
}

static void
check_decode (const char *body,
              gboolean    raw,
              const char *expected,
              gsize       expected_len)
{
  g_autoptr(GString) out = g_string_new (NULL);
  char *message = NULL;

  g_assert_true (cr_lexer_decode_string (body, strlen (body), raw, out, &message));
  g_assert_null (message);
  g_assert_cmpmem (out->str, out->len, expected, expected_len);
}

static void
check_decode_error (const char *body,
                    const char *expected)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *message = NULL;

  g_assert_false (cr_lexer_decode_string (body, strlen (body), FALSE, out, &message));
  g_assert_cmpstr (message, ==, expected);
}

static void
test_strings (void)
{
  const char *src = "r'a' b\"b\" f'c' Rb'd' rF\"e\" U'f' '''g\nh''' x\n";
  g_autoptr(GArray) tokens = lex_all (src, NULL);

  g_assert_cmpint (TOK (tokens, 0)->str_flags, ==, CR_STR_RAW);
  g_assert_cmpint (TOK (tokens, 0)->prefix_len, ==, 1);
  g_assert_cmpint (TOK (tokens, 0)->quote_len, ==, 1);
  g_assert_cmpint (TOK (tokens, 1)->str_flags, ==, CR_STR_BYTES);
  g_assert_cmpint (TOK (tokens, 2)->str_flags, ==, CR_STR_FMT);
  g_assert_cmpint (TOK (tokens, 3)->str_flags, ==, CR_STR_RAW | CR_STR_BYTES);
  g_assert_cmpint (TOK (tokens, 3)->prefix_len, ==, 2);
  g_assert_cmpint (TOK (tokens, 4)->str_flags, ==, CR_STR_RAW | CR_STR_FMT);
  g_assert_cmpint (TOK (tokens, 5)->str_flags, ==, 0);
  g_assert_cmpint (TOK (tokens, 6)->quote_len, ==, 3);
  assert_span (TOK (tokens, 6), 1, 33, 2, 5);   /* a triple-quoted string over two lines */
  g_assert_cmpint (TOK (tokens, 7)->kind, ==, CR_TOK_NAME);
  assert_span (TOK (tokens, 7), 2, 6, 2, 7);

  /* Python: '\x41\u00e9\U0001F600\101\0\d'.encode () */
  check_decode ("\\x41\\u00e9\\U0001F600\\101\\0\\d", FALSE,
                "A\xc3\xa9\xf0\x9f\x98\x80" "A\0\\d", 11);
  check_decode ("\\n\\t\\\\\\'\\\"\\a\\b\\f\\v\\r", FALSE, "\n\t\\'\"\a\b\f\v\r", 10);
  check_decode ("a\\\nb", FALSE, "ab", 2);
  check_decode ("\\777", FALSE, "\xc7\xbf", 2);   /* chr (0o777) */
  check_decode ("\\n\\x41", TRUE, "\\n\\x41", 6);
  check_decode_error ("\\x4", "(unicode error) 'unicodeescape' codec can't decode bytes in "
                              "position 0-2: truncated \\xXX escape");
  check_decode_error ("\\u12", "(unicode error) 'unicodeescape' codec can't decode bytes in "
                               "position 0-3: truncated \\uXXXX escape");
  check_decode_error ("\\U0011ffff", "(unicode error) 'unicodeescape' codec can't decode bytes "
                                     "in position 0-9: illegal Unicode character");
}

static void
test_unterminated (void)
{
  assert_lex_error ("x = \"abc\ny = 2\n", CR_EXC_SYNTAX_ERROR,
                    "unterminated string literal (detected at line 1)", 1, 5);
  assert_lex_error ("x = f\"\"\"abc\ny\n", CR_EXC_SYNTAX_ERROR,
                    "unterminated triple-quoted string literal (detected at line 2)", 1, 5);
  assert_lex_error ("x = 1 \\ y\n", CR_EXC_SYNTAX_ERROR,
                    "unexpected character after line continuation character", 1, 8);
  assert_lex_error ("x = 1 \\\n", CR_EXC_SYNTAX_ERROR, "unexpected EOF while parsing", 1, 8);
}

/* One f-string body's events, as a compact string: T(text) E(expr) S
 * F(conversion, debug, spec) END / ERR(message). */
static char *
fstring_events (const char *body)
{
  CrFStringScanner *scanner = cr_fstring_scanner_new (body, 0, strlen (body), FALSE);
  GString *out = g_string_new (NULL);

  for (;;)
    {
      CrFStrPiece piece;
      CrFStrEvent ev = cr_fstring_scanner_next (scanner, &piece);

      switch (ev)
        {
        case CR_FSTR_TEXT:
          g_string_append_printf (out, "T(%.*s)", (int) piece.text_len, piece.text);
          break;
        case CR_FSTR_EXPR:
          g_string_append_printf (out, "E(%.*s)", (int) (piece.expr_end - piece.expr_start),
                                  body + piece.expr_start);
          break;
        case CR_FSTR_SPEC:
          g_string_append (out, "S");
          break;
        case CR_FSTR_FIELD_END:
          g_string_append_printf (out, "F(%c,%.*s,%d)", piece.conversion ? piece.conversion : '-',
                                  piece.has_debug ? (int) (piece.debug_end - piece.debug_start) : 0,
                                  body + piece.debug_start, piece.has_spec);
          break;
        case CR_FSTR_END:
          g_string_append (out, "END");
          cr_fstring_scanner_free (scanner);
          return g_string_free (out, FALSE);
        case CR_FSTR_ERROR:
        default:
          g_string_append_printf (out, "ERR(%s)", piece.message);
          cr_fstring_scanner_free (scanner);
          return g_string_free (out, FALSE);
        }
    }
}

static void
check_fstring (const char *body,
               const char *expected)
{
  g_autofree char *got = fstring_events (body);

  g_assert_cmpstr (got, ==, expected);
}

static void
test_fstring_pieces (void)
{
  check_fstring ("a{x!r:>{w}}b{{c}}{y=}",
                 "T(a)E(x)ST(>)E(w)F(-,,0)F(r,,1)T(b{)T(c})E(y)F(r,y=,0)END");
  check_fstring ("{x = }", "E(x )F(r,x = ,0)END");
  check_fstring ("{x=:.2f}", "E(x)ST(.2f)F(-,x=,1)END");
  check_fstring ("{x=!s}", "E(x)F(s,x=,0)END");
  check_fstring ("{x:}", "E(x)SF(-,,1)END");
  check_fstring ("{a[1] != b}", "E(a[1] != b)F(-,,0)END");
  check_fstring ("{'}' + \"{\"}", "E('}' + \"{\")F(-,,0)END");
  check_fstring ("\\n{x}\\t", "T(\n)E(x)F(-,,0)T(\t)END");
  check_fstring ("", "END");
  /* The messages of Python 3.11's string_parser.c. */
  check_fstring ("{}", "ERR(f-string: empty expression not allowed)");
  check_fstring ("{:}", "ERR(f-string: expression required before ':')");
  check_fstring ("{x!z}", "E(x)ERR(f-string: invalid conversion character: expected 's', 'r', or 'a')");
  check_fstring ("{x!}", "E(x)ERR(f-string: invalid conversion character: expected 's', 'r', or 'a')");
  check_fstring ("}", "ERR(f-string: single '}' is not allowed)");
  check_fstring ("{x#}", "ERR(f-string expression part cannot include '#')");
  check_fstring ("{\\n}", "ERR(f-string expression part cannot include a backslash)");
  check_fstring ("{x:{y:{z}}}", "E(x)SE(y)SERR(f-string: expressions nested too deeply)");
  check_fstring ("{(}", "ERR(f-string: closing parenthesis '}' does not match opening parenthesis '(')");
  check_fstring ("{)}", "ERR(f-string: unmatched ')')");
  check_fstring ("{x", "ERR(f-string: expecting '}')");
  check_fstring ("{x:", "E(x)ERR(f-string: expecting '}')");
  check_fstring ("{'a}", "ERR(f-string: unterminated string)");
}

static void
test_indentation (void)
{
  static const CrTokKind tabs[] = {
    CR_TOK_KW_IF, CR_TOK_NAME, CR_TOK_COLON, CR_TOK_NEWLINE, CR_TOK_INDENT,
    CR_TOK_KW_IF, CR_TOK_NAME, CR_TOK_COLON, CR_TOK_NEWLINE, CR_TOK_INDENT,
    CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_DEDENT, CR_TOK_DEDENT, CR_TOK_ENDMARKER,
  };
  static const CrTokKind blank_lines[] = {
    CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_ENDMARKER,
  };

  /* A tab goes to the next multiple of 8: "\t\t" is deeper than "\t". */
  assert_kinds ("if x:\n\tif y:\n\t\tz\n", tabs, G_N_ELEMENTS (tabs));
  /* Blank and comment-only lines (at any indentation) change nothing. */
  assert_kinds ("a\n\n   # c\n\t\nb\n", blank_lines, G_N_ELEMENTS (blank_lines));

  assert_lex_error ("if x:\n    a\n  b\n", CR_EXC_INDENTATION_ERROR,
                    "unindent does not match any outer indentation level", 3, 4);
  /* Python raises TabError (a subclass of IndentationError). */
  assert_lex_error ("if x:\n\ta\n        b\n", CR_EXC_TAB_ERROR,
                    "inconsistent use of tabs and spaces in indentation", 3, 1);
  {
    GString *deep = g_string_new (NULL);

    for (int i = 0; i < 1000; i++)
      {
        for (int j = 0; j < i; j++)
          g_string_append_c (deep, ' ');
        g_string_append (deep, "if x:\n");
      }
    assert_lex_error (deep->str, CR_EXC_INDENTATION_ERROR, "too many levels of indentation",
                      101, 1);
    g_string_free (deep, TRUE);
  }
}

static void
test_brackets (void)
{
  static const CrTokKind kinds[] = {
    CR_TOK_NAME, CR_TOK_EQUAL, CR_TOK_LSQB, CR_TOK_NUMBER, CR_TOK_COMMA, CR_TOK_NUMBER,
    CR_TOK_RSQB, CR_TOK_NEWLINE, CR_TOK_NAME, CR_TOK_NEWLINE, CR_TOK_ENDMARKER,
  };

  /* No NEWLINE or INDENT inside brackets. */
  assert_kinds ("x = [\n    1,\n        2\n]\ny\n", kinds, G_N_ELEMENTS (kinds));

  assert_lex_error ("x = )\n", CR_EXC_SYNTAX_ERROR, "unmatched ')'", 1, 5);
  assert_lex_error ("x = (]\n", CR_EXC_SYNTAX_ERROR,
                    "closing parenthesis ']' does not match opening parenthesis '('", 1, 6);
  assert_lex_error ("x = (1,\n]\n", CR_EXC_SYNTAX_ERROR,
                    "closing parenthesis ']' does not match opening parenthesis '(' on line 1",
                    2, 1);
  {
    g_autofree char *deep = g_strnfill (10000, '(');
    g_autofree char *src = g_strconcat ("x = ", deep, "\n", NULL);

    assert_lex_error (src, CR_EXC_SYNTAX_ERROR, "too many nested parentheses", 1, 205);
  }

  /* The end of the input inside brackets: an ERROR without a message of its
   * own (code -1); the parser reports the unclosed bracket. */
  {
    CrLexer *lexer;
    g_autoptr(GArray) tokens = lex_all ("x = (1,\n  [2\n", &lexer);
    char bracket = 0;
    CrSpan span;

    g_assert_cmpint (TOK (tokens, tokens->len - 1)->kind, ==, CR_TOK_ERROR);
    g_assert_cmpint (cr_lexer_get_error (lexer, NULL, NULL), ==, -1);
    g_assert_true (cr_lexer_unclosed (lexer, &bracket, &span));
    g_assert_cmpint (bracket, ==, '[');
    g_assert_cmpint (span.line, ==, 2);
    g_assert_cmpint (span.column, ==, 3);
    cr_lexer_free (lexer);
  }
}

static void
test_columns (void)
{
  /* Columns count code points, as Python 3.11's error offsets do. */
  const char *src = "\xc3\xa9 = '\xc3\xbc' + ab\n";   /* é = 'ü' + ab */
  g_autoptr(GArray) tokens = lex_all (src, NULL);

  assert_span (TOK (tokens, 0), 1, 1, 1, 2);   /* é */
  assert_span (TOK (tokens, 1), 1, 3, 1, 4);   /* = */
  assert_span (TOK (tokens, 2), 1, 5, 1, 8);   /* 'ü' */
  assert_span (TOK (tokens, 4), 1, 11, 1, 13); /* ab */

  /* Python: invalid character '€' (U+20AC) at offset 14. */
  assert_lex_error ("\xc3\xa9 = '\xc3\xbc' + ab \xe2\x82\xac\n", CR_EXC_SYNTAX_ERROR,
                    "invalid character '\xe2\x82\xac' (U+20AC)", 1, 14);
  assert_lex_error ("a = 1\xc2\xa0" "2\n", CR_EXC_SYNTAX_ERROR,
                    "invalid non-printable character U+00A0", 1, 6);
  assert_lex_error ("x = \x01\n", CR_EXC_SYNTAX_ERROR,
                    "invalid non-printable character U+0001", 1, 5);
}

static void
test_continuation (void)
{
  static const CrTokKind kinds[] = {
    CR_TOK_NAME, CR_TOK_EQUAL, CR_TOK_NUMBER, CR_TOK_PLUS, CR_TOK_NUMBER, CR_TOK_NEWLINE,
    CR_TOK_ENDMARKER,
  };
  g_autoptr(GArray) tokens = lex_all ("x = 1 + \\\n    2\n", NULL);

  assert_kinds ("x = 1 + \\\n    2\n", kinds, G_N_ELEMENTS (kinds));
  assert_span (TOK (tokens, 4), 2, 5, 2, 6);
}

static void
test_fstring_mode (void)
{
  /* An f-string's expression part, lexed in place: as inside parentheses
   * (newlines are not tokens), ending with ENDMARKER at the part's end, with
   * positions in the file. */
  const char *src = "y = f'''{a +\n   b}'''\n";
  gsize start = strchr (src, '{') - src + 1;
  gsize end = strchr (src, '}') - src;
  CrLexer *lexer = cr_lexer_new (src, start, end, 1, 0, 10, TRUE);
  CrToken t;

  cr_lexer_next (lexer, &t);
  g_assert_cmpint (t.kind, ==, CR_TOK_NAME);
  assert_span (&t, 1, 10, 1, 11);
  cr_lexer_next (lexer, &t);
  g_assert_cmpint (t.kind, ==, CR_TOK_PLUS);
  cr_lexer_next (lexer, &t);
  g_assert_cmpint (t.kind, ==, CR_TOK_NAME);
  assert_span (&t, 2, 4, 2, 5);
  cr_lexer_next (lexer, &t);
  g_assert_cmpint (t.kind, ==, CR_TOK_ENDMARKER);
  assert_span (&t, 2, 5, 2, 5);
  cr_lexer_free (lexer);
}

static void
test_long_line (void)
{
  /* A 10 MB line: linear time, no recursion. */
  gsize n = 10 * 1000 * 1000;
  char *src = g_malloc (n + 8);
  g_autoptr(GArray) tokens = NULL;

  memcpy (src, "x = '", 5);
  memset (src + 5, 'a', n);
  memcpy (src + 5 + n, "'\n", 3);
  tokens = lex_all (src, NULL);
  g_assert_cmpuint (tokens->len, ==, 5);
  assert_span (TOK (tokens, 2), 1, 5, 1, (int) n + 7);
  g_free (src);

  g_assert_true (cr_lexer_is_ascii ("abcdefghijklmnop", 16));
  g_assert_false (cr_lexer_is_ascii ("abcdefgh\xc3\xa9", 10));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/lexer/tokens", test_tokens);
  g_test_add_func ("/lang/lexer/operators", test_operators);
  g_test_add_func ("/lang/lexer/keywords", test_keywords);
  g_test_add_func ("/lang/lexer/numbers", test_numbers);
  g_test_add_func ("/lang/lexer/number-errors", test_number_errors);
  g_test_add_func ("/lang/lexer/strings", test_strings);
  g_test_add_func ("/lang/lexer/unterminated", test_unterminated);
  g_test_add_func ("/lang/lexer/fstring-pieces", test_fstring_pieces);
  g_test_add_func ("/lang/lexer/indentation", test_indentation);
  g_test_add_func ("/lang/lexer/brackets", test_brackets);
  g_test_add_func ("/lang/lexer/columns", test_columns);
  g_test_add_func ("/lang/lexer/continuation", test_continuation);
  g_test_add_func ("/lang/lexer/fstring-mode", test_fstring_mode);
  g_test_add_func ("/lang/lexer/long-line", test_long_line);
  return g_test_run ();
}
