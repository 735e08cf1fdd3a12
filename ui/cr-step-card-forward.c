/* cr-step-card-forward.c — the step card at a step of the forward pass: the
 * op computing, what it computed in words, its result with the numbers
 * ("c = a * b = 2 × (-3) = -6", a tensor's values) and one element worked
 * out, as core tells it (cr_step_text_new_forward(), from the sentences
 * `--trace-forward` prints), laid out by cr-step-card-layout.c. After the
 * last forward op the card says what comes next: the backward pass from
 * the root. Practice asks the same step with its inputs instead. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-record-text.h"
#include "cr-step-text.h"
#include "cr-tensor-view.h"

static GtkWidget *
section (GtkWidget  *parent,
         const char *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (box, "cr-section");
  gtk_box_append (GTK_BOX (box), cr_card_heading_new (title, CR_ROLE_OUT));
  gtk_box_append (GTK_BOX (parent), box);
  return box;
}

GtkWidget *
cr_step_card_build_forward_ask (const CrRunRecord *record,
                                int                op_index,
                                guint              index,
                                guint              n)
{
  g_autoptr (CrStepText) text = cr_step_text_new_forward (record, op_index, index, n, FALSE);
  if (!text)
    return cr_step_card_build_no_graph ();
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), cr_step_card_layout_header (text));
  const CrStepTextSection *what = cr_step_card_text_section (text, CR_STEP_TEXT_SECTION_FORWARD_WHAT);
  if (what)
    cr_step_card_layout_section (box, what);

  /* What the learner computes from: each input's values, by its name. */
  GtkWidget *inputs = section (box, op->inputs && op->inputs->len == 1 ? "Its input"
                                                                       : "Its inputs");
  for (guint i = 0; op->inputs && i < op->inputs->len; i++)
    {
      int t = g_array_index (op->inputs, int, i);
      const CrRecordTensor *tensor = t >= 0 && (guint) t < record->tensors->len
                                     ? g_ptr_array_index (record->tensors, t) : NULL;
      if (!tensor || !tensor->value)
        continue;
      const char *name = cr_record_tensor_label (record, t, "an input");
      if (tensor->value->numel == 1 && tensor->value->n_values >= 1)
        {
          g_autofree char *number = cr_record_value_brief (tensor->value, 1);
          g_autofree char *line = g_strdup_printf ("%s = %s", name, number);
          gtk_box_append (GTK_BOX (inputs), cr_card_label_new (line, "monospace"));
          continue;
        }
      g_autofree char *named = g_strdup_printf ("%s =", name);
      gtk_box_append (GTK_BOX (inputs), cr_card_label_new (named, "monospace"));
      gtk_box_append (GTK_BOX (inputs), cr_tensor_view_new (tensor->value));
    }
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
