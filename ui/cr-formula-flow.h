/* cr-formula-flow.h — a formula laid out like written maths (private to the
 * step card): terms flow left to right and wrap to the next line when the
 * sidebar is too narrow, each continuation line indented under the first
 * term, so "∂L/∂w1 = ∂L/∂b × ∂b/∂w1 = [..] × [..] = [..]" stacks its "="s. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CR_TYPE_FORMULA_FLOW (cr_formula_flow_get_type ())
G_DECLARE_FINAL_TYPE (CrFormulaFlow, cr_formula_flow, CR, FORMULA_FLOW, GtkWidget)

GtkWidget *cr_formula_flow_new    (void);
/* Adds child (a term, usually an operator with its operand) at the end;
 * break_before starts a new line for it. */
void       cr_formula_flow_append (CrFormulaFlow *self,
                                   GtkWidget     *child,
                                   gboolean       break_before);

G_END_DECLS
