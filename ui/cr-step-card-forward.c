/* cr-step-card-forward.c — the step card at a step of the forward pass: the
 * op computing, what it computed in words, its result with the numbers
 * ("c = a * b = 2 × (-3) = -6", a tensor's values) and one element worked
 * out, all from core/record/cr-record-forward.h, the sentences
 * `--trace-forward` prints. After the last forward op the card says what
 * comes next: the backward pass from the root. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-record-forward.h"
#include "cr-record-text.h"
#include "cr-soft-breaks.h"
#include "cr-step-text.h"
#include "cr-tensor-view.h"

#include <string.h>

static GtkWidget *
header (const CrRunRecord   *record,
        const CrRecordOp    *op,
        const CrForwardText *text,
        guint                index,
        guint                n)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  if (op->symbol)
    {
      GtkWidget *disc = gtk_label_new (op->symbol);
      gtk_widget_add_css_class (disc, "cr-step-symbol");
      if (g_utf8_strlen (op->symbol, -1) > 2)
        gtk_widget_add_css_class (disc, "cr-long");
      gtk_widget_set_valign (disc, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (box), disc);
    }
  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *count = cr_step_text_story_count (CR_STEP_TEXT_FORWARD, index, n);
  GtkWidget *count_label = cr_card_label_new (count, "caption-heading");
  gtk_widget_add_css_class (count_label, "dim-label");
  gtk_box_append (GTK_BOX (titles), count_label);
  GtkWidget *title = cr_card_label_new (text->expression, "title-4");
  gtk_widget_add_css_class (title, "monospace");
  cr_soft_breaks_set_name (GTK_LABEL (title), text->expression);
  g_object_set_data_full (G_OBJECT (title), "cr-text", g_strdup (text->expression), g_free);
  gtk_box_append (GTK_BOX (titles), title);
  /* Where, and the node that will run its backward. */
  GString *where = g_string_new (NULL);
  if (op->span.line > 0)
    {
      g_autofree char *line = cr_run_record_line_text (record, op->span.line, FALSE);
      g_string_append_printf (where, "%s · ", line);
    }
  g_autofree char *iteration = cr_record_iteration_text (op->loop_path, op->loop_depth);
  if (iteration)
    g_string_append_printf (where, "%s · ", iteration);
  g_string_append_printf (where, "grad_fn %s", op->grad_fn ? op->grad_fn : "?");
  GtkWidget *caption = cr_card_label_new (where->str, "dim-label");
  g_string_free (where, TRUE);
  gtk_box_append (GTK_BOX (titles), caption);
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (box), titles);
  return box;
}

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

static const CrTensorSnapshot *
result_value (const CrRunRecord *record,
              const CrRecordOp  *op)
{
  int t = op->outputs && op->outputs->len > 0 ? g_array_index (op->outputs, int, 0) : -1;
  if (t < 0 || (guint) t >= record->tensors->len)
    return NULL;
  const CrRecordTensor *tensor = g_ptr_array_index (record->tensors, t);
  return tensor->value;
}

GtkWidget *
cr_step_card_build_forward_ask (const CrRunRecord *record,
                                int                op_index,
                                guint              index,
                                guint              n)
{
  g_autoptr (CrForwardText) text = cr_forward_text_new (record, op_index);
  if (!text)
    return cr_step_card_build_no_graph ();
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), header (record, op, text, index, n));
  g_autofree char *said = g_strdup_printf ("It %s.", text->sentence);
  GtkWidget *what = section (box, "What it computes");
  gtk_box_append (GTK_BOX (what), cr_card_label_new (said, NULL));

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
  g_autoptr (CrForwardText) text = cr_forward_text_new (record, op_index);
  if (!text)
    return cr_step_card_build_no_graph ();
  const CrRecordOp *op = g_ptr_array_index (record->ops, op_index);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (box), header (record, op, text, index, n));

  g_autofree char *said = g_strdup_printf ("It %s.", text->sentence);
  GtkWidget *what = section (box, "What it computes");
  gtk_box_append (GTK_BOX (what), cr_card_label_new (said, NULL));

  GtkWidget *result = section (box, "With the numbers");
  /* A tensor's values show as a matrix under its name. */
  const CrTensorSnapshot *value = result_value (record, op);
  gboolean matrix = value && value->numel > 1 && value->n_values >= value->numel
                    && value->numel <= 64;
  g_autofree char *named = g_strdup_printf ("%s =", text->result);
  GtkWidget *equation = cr_card_label_new (matrix ? named : text->equation, "monospace");
  gtk_widget_set_name (equation, "forward-equation");
  gtk_box_append (GTK_BOX (result), equation);
  if (matrix)
    {
      GtkWidget *view = cr_tensor_view_new (value);
      gtk_widget_add_css_class (view, CR_ROLE_OUT);
      gtk_box_append (GTK_BOX (result), view);
    }
  if (text->example)
    {
      /* An element of a tensor result, or how a sum came about. */
      gboolean element = g_str_has_prefix (text->example, text->result)
                         && text->example[strlen (text->result)] == '[';
      GtkWidget *one = section (box, element ? "One element of it" : "Worked out");
      gtk_box_append (GTK_BOX (one), cr_card_label_new (text->example, "monospace"));
    }

  /* What comes next, so that the story reads on. */
  const char *next = index + 1 < n
    ? "Each op waits for its inputs: the faint nodes are not computed yet."
    : has_backward
    ? "The forward pass is done. Next, backward goes through the same graph the other way, "
      "from the result to the leaves, one node at a time."
    : "The forward pass is done; this script calls no backward.";
  gtk_box_append (GTK_BOX (box), cr_card_label_new (next, "cr-footnote"));
  return box;
}
