/* cr-training-arithmetic.h — a line of an optimizer step's arithmetic
 * ("-1.0959 − 0.01 × -0.24439 / (0.24495 + 1e-08)") broken into lines the
 * way a person writes it on a narrow page: at as few lines as the width
 * allows; between terms first, at another operator only where a term is
 * too long, inside brackets only where a bracket is; never with the first
 * number alone on the first line; and balanced, the lines as even as those
 * breaks allow, rather than the first ones full and the last a stub. A new
 * line starts with its operator. Never inside a number. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* How a person ranks a place to break, best first. */
typedef enum {
  CR_TRAINING_BREAK_TERM,       /* before a + or − between terms */
  CR_TRAINING_BREAK_OPERATOR,   /* before another operator, or after a comma, outside brackets */
  CR_TRAINING_BREAK_BRACKET,    /* any of those inside brackets */
} CrTrainingBreakLevel;

typedef struct {
  guint                offset;  /* the byte at which a new line may start */
  CrTrainingBreakLevel level;
} CrTrainingBreak;

/* Where text may break: a GArray of CrTrainingBreak by offset (new). An
 * operator counts only with a space either side ("0.9 × 0.006", not the
 * "-" of "1e-05"), or a '/' (which no number holds: "lr·m̂/(√v̂ + ε)");
 * after a comma followed by a space too. */
GArray    *cr_training_text_breaks (const char *text);

/* The width of text's bytes [from, to) set as one line, in any unit. */
typedef double (*CrTrainingMeasure) (const char *text,
                                     guint       from,
                                     guint       to,
                                     gpointer    data);

/* Where the lines of text start after its first, chosen among breaks
 * (cr_training_text_breaks') so that each line fits width as measure
 * measures it (spaces at a line's end not counted): a GArray of guint
 * offsets, ascending (new; empty: one line). Where nothing fits, the
 * choice that overflows least. */
GArray    *cr_training_text_lines  (const char        *text,
                                    GArray            *breaks,
                                    double             width,
                                    CrTrainingMeasure  measure,
                                    gpointer           data);

#define CR_TYPE_TRAINING_ARITHMETIC (cr_training_arithmetic_get_type ())
G_DECLARE_FINAL_TYPE (CrTrainingArithmetic, cr_training_arithmetic, CR, TRAINING_ARITHMETIC, GtkWidget)

/* A widget that shows text (copied) so broken at the width it is given:
 * its minimum width is its widest piece between two breaks. */
GtkWidget  *cr_training_arithmetic_new       (const char           *text);
const char *cr_training_arithmetic_get_text  (CrTrainingArithmetic *self);
/* The lines as shown at its width now, without the spaces between them
 * (new, NULL-terminated). */
char      **cr_training_arithmetic_get_lines (CrTrainingArithmetic *self);

G_END_DECLS
