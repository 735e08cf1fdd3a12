/* cr-expression-panel.h — expression mode: an entry for a formula and a
 * panel with one row per free variable (value field and slider). Every change
 * makes a new script, which the window runs like the editor's. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CR_TYPE_EXPRESSION_PANEL (cr_expression_panel_get_type ())
G_DECLARE_FINAL_TYPE (CrExpressionPanel, cr_expression_panel, CR, EXPRESSION_PANEL, GtkWidget)

/* Signals:
 *   "script-changed" (const char *script): the formula or a value changed;
 *       script is NULL while the formula does not parse (the panel shows why).
 *   "open-as-script" (const char *script): the person asked to edit it as a script. */
GtkWidget  *cr_expression_panel_new         (void);
void        cr_expression_panel_set_formula (CrExpressionPanel *self,
                                             const char        *formula);
const char *cr_expression_panel_get_formula (CrExpressionPanel *self);
/* The current script (NULL when the formula does not parse). Borrowed. */
const char *cr_expression_panel_get_script  (CrExpressionPanel *self);
/* Sets a variable's value as if its slider moved (FALSE: no such variable). */
gboolean    cr_expression_panel_set_value   (CrExpressionPanel *self,
                                             const char        *name,
                                             double             value);

G_END_DECLS
