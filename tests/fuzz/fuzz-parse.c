/* fuzz-parse.c — libFuzzer target for the lexer and the parser: the input is
 * script text; it is tokenized (as a file, and as an f-string's expression
 * part), parsed, and a syntax error is formatted as `chainrule run` prints it.
 * Errors are values here: only a sanitizer report, a GLib critical, a lexer
 * that never ends or a time-out (libFuzzer's -timeout) is a finding. */
#include "cr-fuzz.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr-ast.h"
#include "cr-interp.h"
#include "cr-lexer.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  cr_fuzz_init ();
  return 0;
}

/* Pulls every token of text[0, length) (text ends with '\n', as cr_parse
 * makes sure for whole files) and reads the error the lexer ends with. */
static void
lex_all (const char *text,
         gsize       length,
         gboolean    fstring_expr)
{
  CrLexer *lexer = cr_lexer_new (text, 0, length, 1, 0, 0, fstring_expr);
  /* A token takes at least one byte, except the DEDENTs at the end of a
   * line (at most CR_LEXER_MAX_INDENT) and the final NEWLINE/ENDMARKER. */
  gsize budget = (length + 4) * (CR_LEXER_MAX_INDENT + 4);
  CrToken token;
  for (;;)
    {
      cr_lexer_next (lexer, &token);
      if (token.kind == CR_TOK_ENDMARKER || token.kind == CR_TOK_ERROR)
        break;
      g_assert (token.start <= token.end && token.end <= length);
      if (budget-- == 0)
        {
          fprintf (stderr, "fuzz-parse: the lexer does not reach the end of %" G_GSIZE_FORMAT
                   " bytes\n", length);
          abort ();
        }
    }
  if (token.kind == CR_TOK_ERROR)
    {
      const char *message = NULL;
      CrSpan span = { 0 };
      cr_lexer_get_error (lexer, &message, &span);
      (void) cr_lexer_error_is_quiet (lexer);
    }
  char bracket = 0;
  CrSpan unclosed = { 0 };
  (void) cr_lexer_unclosed (lexer, &bracket, &unclosed);
  cr_lexer_free (lexer);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* The lexer's contract, which cr_parse keeps for it: valid UTF-8 without
   * NUL bytes, a newline at the end (and a NUL after, as every text the app
   * holds). */
  char *file = g_malloc (size + 2);
  memcpy (file, data, size);
  file[size] = '\n';
  file[size + 1] = '\0';
  if (g_utf8_validate_len (file, size, NULL))
    {
      lex_all (file, size + 1, FALSE);
      lex_all (file, size + 1, TRUE);
    }

  /* cr_parse gets the bytes exactly as given: it must not read past length. */
  CrSpan span = { 0 };
  GError *error = NULL;
  CrAstModule *module = cr_parse ((const char *) data, (gssize) size, "<fuzz>", &span, &error);
  g_assert ((module == NULL) == (error != NULL));
  if (!module)
    {
      /* The runner formats the error with the source it read (NUL-terminated). */
      file[size] = '\0';
      char *text = cr_format_syntax_error ("<fuzz>", file, &span, "SyntaxError", error->message);
      g_free (text);
      g_error_free (error);
    }
  cr_ast_module_free (module);
  g_free (file);
  return 0;
}
