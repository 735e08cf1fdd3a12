/* cr-number-literal.h — the number literals of a script's text, found with
 * the script language's own tokenizer (so never inside a name, a string or
 * a comment), and written again with a new value in the same format: what
 * the window's scrubbing (Ctrl+drag a number in the editor) and a leaf's
 * value edited on the graph change in the script.
 *
 * Only decimal ints and floats qualify ("3", "-0.5", ".25", "2.", "1e-3",
 * "-2.5E+4"); a unary minus written against the number is part of it. Hex,
 * octal and binary ints, underscores, imaginary numbers and mantissas of
 * more than 17 digits are left alone. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gsize    start;        /* its bytes in the source, [start, end), the minus included */
  gsize    end;
  gboolean is_float;     /* written with a point or an exponent */
  double   value;        /* what it stands for, with its sign */
  /* How it is written, to write it again: the value as a count of its last
   * digit (units × 10^(exponent − decimals)). */
  gint64   units;
  int      decimals;     /* digits after the point */
  gboolean has_point;
  gboolean bare_point;   /* ".5": no digit before the point */
  char     exponent[12]; /* "e-3" as written, "" when none */
} CrNumberLiteral;

/* The literal of source (length bytes, -1: NUL-terminated) that byte offset
 * falls in. FALSE when it falls in none, in one that does not qualify, or
 * the text does not tokenize up to there. */
gboolean cr_number_literal_at      (const char      *source,
                                    gssize           length,
                                    gsize            offset,
                                    CrNumberLiteral *literal);

/* The one literal in source's bytes [start, end) whose value is value (to
 * float32's precision, 1e-6 relative): where a tensor made by `torch.tensor(2.0)` got its 2.0.
 * FALSE when none, or more than one, does. */
gboolean cr_number_literal_find    (const char      *source,
                                    gssize           length,
                                    gsize            start,
                                    gsize            end,
                                    double           value,
                                    CrNumberLiteral *literal);

/* text, all of it but surrounding spaces, read as one literal (offsets in
 * text). FALSE when it is not one. */
gboolean cr_number_literal_parse   (const char      *text,
                                    CrNumberLiteral *literal);

/* What one step of a scrub adds: a unit of the literal's last digit (1 for
 * "3", 0.1 for "0.5", 0.01 for "1.25", 0.001 for "1e-3"). */
double   cr_number_literal_step    (const CrNumberLiteral *literal);

/* The literal's text after steps steps (negative: down), in its format:
 * as many decimals, the same exponent, ".5" written bare if it was. New
 * string; NULL when the value would overflow. */
char    *cr_number_literal_stepped (const CrNumberLiteral *literal,
                                    gint64                 steps);

/* typed, a literal (cr_number_literal_parse()), written to replace
 * literal: a float stays a float ("3" for 2.0 is written "3.0", so that
 * `torch.tensor(2.0, requires_grad=True)` does not become an integer
 * tensor). New string; NULL when typed is not a literal. */
char    *cr_number_literal_replacement (const CrNumberLiteral *literal,
                                        const char            *typed);

G_END_DECLS
