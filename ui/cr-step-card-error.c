/* cr-step-card-error.c — the step card's error section: a backward call
 * (or the script) that stopped with an error, in words: PyTorch's message,
 * the node it failed at, the call that freed its saved tensors, the
 * statement that modified one in place. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-record-text.h"

const CrRecordError *
cr_step_card_step_error (const CrStepCardCtx *c)
{
  if (!c->backward || c->backward->succeeded)
    return NULL;
  if (c->backward->error >= 0 && (guint) c->backward->error < c->record->errors->len)
    return g_ptr_array_index (c->record->errors, c->backward->error);
  return cr_record_backward_error (c->record, c->backward_index);
}

/* The error in words: "RuntimeError: …", and the footnotes core gives it
 * (cr_step_text_error_section, as the handout prints them). */
void
cr_step_card_add_error (GtkWidget           *box,
                        const CrStepCardCtx *c,
                        const CrRecordError *error,
                        const char          *lead)
{
  CrStepTextSection *section = cr_step_text_error_section (c->record, error, lead);
  cr_step_card_layout_section (box, section);
  cr_step_text_section_free (section);
}
