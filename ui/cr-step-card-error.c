/* cr-step-card-error.c — the step card's error section: a backward call
 * (or the script) that stopped with an error, in words: PyTorch's message,
 * the node it failed at, the call that freed its saved tensors, the
 * statement that modified one in place. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
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
      const CrRecordOp *op = cr_step_card_record_op (c, error->op);
      if (op)
        {
          g_autofree char *where = op->span.line > 0
            ? g_strdup_printf ("It failed at %s (line %d); the node is marked on the graph.",
                               op->grad_fn, op->span.line)
            : g_strdup_printf ("It failed at %s; the node is marked on the graph.", op->grad_fn);
          gtk_box_append (GTK_BOX (section), cr_card_label_new (where, "cr-footnote"));
        }
      /* A second backward through a freed graph: which call freed it. */
      for (guint i = 0; op && error->backward >= 0 && i < op->saved->len; i++)
        {
          const CrRecordSaved *saved = g_ptr_array_index (op->saved, i);
          if (saved->freed_backward < 0 || saved->freed_backward >= error->backward
              || (guint) saved->freed_backward >= c->record->backwards->len
              || saved->modified_span.line > 0)
            continue;
          const CrRecordBackward *freer = g_ptr_array_index (c->record->backwards,
                                                             saved->freed_backward);
          g_autofree char *why = freer->span.line > 0
            ? g_strdup_printf ("Its saved tensors were freed by backward call #%d (line %d): "
                               "pass retain_graph=True to that call to keep them.",
                               saved->freed_backward + 1, freer->span.line)
            : g_strdup_printf ("Its saved tensors were freed by backward call #%d: pass "
                               "retain_graph=True to that call to keep them.",
                               saved->freed_backward + 1);
          gtk_box_append (GTK_BOX (section), cr_card_label_new (why, "cr-footnote"));
          break;
        }
      if (error->culprit_span.line > 0)
        {
          g_autofree char *culprit = g_strdup_printf (
            "A tensor it saved for backward was modified in place at line %d, after it was "
            "saved.", error->culprit_span.line);
          gtk_box_append (GTK_BOX (section), cr_card_label_new (culprit, "cr-footnote"));
        }
    }
  gtk_box_append (GTK_BOX (box), section);
}
