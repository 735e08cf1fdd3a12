/* cr-card-style.h — what the step card, the inspector and the tensor view
 * share (private to them): their style sheet and the small pieces they build
 * text from — a stacked ∂ fraction, a section heading, a key cap.
 *
 * Colours tie the chain rule together everywhere: the incoming gradient
 * ∂L/∂out is blue, a local gradient ∂out/∂in purple (like op nodes on the
 * canvas), what is sent on (and a leaf's .grad) green. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The colour roles, as CSS classes. */
#define CR_ROLE_IN    "cr-in"
#define CR_ROLE_LOCAL "cr-local"
#define CR_ROLE_OUT   "cr-out"

/* Installs the style sheet on the default display (once). Sizes in it are
 * in em, so a larger font on the window (presentation mode) scales it all. */
void       cr_card_style_ensure      (void);

/* A label: wrapping, left-aligned, selectable when asked. */
GtkWidget *cr_card_label_new         (const char *text,
                                      const char *css_class);
/* "∂L/∂b" drawn as a stacked fraction ∂L over ∂b in role's colour (NULL:
 * plain); any other name as a plain label. The full name is kept as the
 * object data "cr-text" (for tests and the accessible label). */
GtkWidget *cr_card_fraction_new      (const char *name,
                                      const char *role);
/* A section heading with a dot in role's colour (NULL: no dot). */
GtkWidget *cr_card_heading_new       (const char *text,
                                      const char *role);
/* A keyboard key drawn as a key cap: "Space", "→". */
GtkWidget *cr_card_key_new           (const char *key);
/* Splits "∂num/∂den" at its top-level "/∂"; FALSE for other names. */
gboolean   cr_card_split_fraction    (const char *name,
                                      char      **numerator,
                                      char      **denominator);

G_END_DECLS
