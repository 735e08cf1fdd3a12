/* cr-step-card-forward.c — the step card at a step of the forward pass: the
 * op computing, what it computed in words, its result with the numbers
 * ("c = a * b = 2 × (-3) = -6", a tensor's values) and one element worked
 * out, as core tells it (cr_step_text_new_forward(), from the sentences
 * `--trace-forward` prints), laid out by cr-step-card-layout.c. After the
 * last forward op the card says what comes next: the backward pass from
 * the root. Practice asks the same step with its inputs instead. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-step-text.h"

GtkWidget *
cr_step_card_build_forward_ask (const CrRunRecord *record,
                                int                op_index,
                                guint              index,
                                guint              n)
{
  g_autoptr (CrStepText) given = cr_step_text_new_forward_given (record, op_index, index, n);
  if (!given)
    return cr_step_card_build_no_graph ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), cr_step_card_layout_header (given));
  cr_step_card_layout_sections (box, given);
  return box;
}

GtkWidget *
cr_step_card_build_forward_step (const CrRunRecord *record,
                                 int                op_index,
                                 guint              index,
                                 guint              n,
                                 gboolean           has_backward)
{
  g_autoptr (CrStepText) text = cr_step_text_new_forward (record, op_index, index, n, has_backward);
  if (!text)
    return cr_step_card_build_no_graph ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), cr_step_card_layout_header (text));
  cr_step_card_layout_sections (box, text);
  return box;
}
