/* cr-step-card-error.c — the step card's error section: a backward call
 * (or the script) that stopped with an error, in words: PyTorch's message,
 * the node it failed at, the call that freed its saved tensors, the
 * statement that modified one in place. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-record-text.h"
#include "cr-step-text.h"

const CrRecordError *
cr_step_card_step_error (const CrStepCardCtx *c)
{
  if (!c->backward || c->backward->succeeded)
    return NULL;
  if (c->backward->error >= 0 && (guint) c->backward->error < c->record->errors->len)
    return g_ptr_array_index (c->record->errors, c->backward->error);
  return cr_record_backward_error (c->record, c->backward_index);
}

/* The error in words: "RuntimeError: …", and for an in-place error the
 * statement that changed the saved tensor. */
void
cr_step_card_add_error (GtkWidget           *box,
                        const CrStepCardCtx *c,
                        const CrRecordError *error,
                        const char          *lead)
{
  GtkWidget *section = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (section, "cr-section");
  gtk_widget_add_css_class (section, "cr-error-section");
  gtk_box_append (GTK_BOX (section), cr_card_label_new (lead, "error"));
  if (error)
    {
      g_autofree char *text = g_strdup_printf ("%s: %s", error->type ? error->type : "Error",
                                               error->message ? error->message : "");
      gtk_box_append (GTK_BOX (section), cr_card_label_new (text, "monospace"));
      /* The footnotes are core's, as the handout prints them. */
      g_autoptr (GPtrArray) notes = cr_step_text_error_notes (c->record, error);
      for (guint i = 0; i < notes->len; i++)
        gtk_box_append (GTK_BOX (section), cr_card_label_new (g_ptr_array_index (notes, i),
                                                              "cr-footnote"));
    }
  gtk_box_append (GTK_BOX (box), section);
}
