/* cr-step-card-layout.c — a step told by core (CrStepText,
 * core/record/cr-step-text.h) laid out with widgets: the header with the
 * op's disc, each section under a heading with its role's dot, formulas
 * as terms that flow and wrap (a gradient's name as a stacked fraction, a
 * value as a grid of numbers), rules, footnotes. What a step says is
 * decided in core, which the handout prints too; this file decides only
 * how it looks. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-formula-flow.h"
#include "cr-soft-breaks.h"
#include "cr-tensor-view.h"

#include <string.h>

const char *
cr_step_card_role_class (CrStepTextRole role)
{
  switch (role)
    {
    case CR_STEP_TEXT_IN:    return CR_ROLE_IN;
    case CR_STEP_TEXT_LOCAL: return CR_ROLE_LOCAL;
    case CR_STEP_TEXT_OUT:   return CR_ROLE_OUT;
    case CR_STEP_TEXT_ERROR:
    case CR_STEP_TEXT_PLAIN:
    default:                 return NULL;
    }
}

GtkWidget *
cr_step_card_layout_header (const CrStepText *text)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  if (text->symbol)
    {
      GtkWidget *disc = gtk_label_new (text->symbol);
      gtk_widget_add_css_class (disc, "cr-step-symbol");
      if (text->accumulate)
        gtk_widget_add_css_class (disc, "cr-accumulate");
      if (g_utf8_strlen (text->symbol, -1) > 2)
        gtk_widget_add_css_class (disc, "cr-long");
      gtk_widget_set_valign (disc, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (header), disc);
    }

  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *count = cr_card_label_new (text->count, "caption-heading");
  gtk_widget_add_css_class (count, "dim-label");
  gtk_box_append (GTK_BOX (titles), count);
  /* A backward step is titled by its node, a forward one by what it
   * computed; either wraps between its words, never inside one (H8). */
  gboolean forward = text->pass == CR_STEP_TEXT_FORWARD;
  GtkWidget *title = cr_card_label_new (NULL, forward ? "title-4" : "title-3");
  if (forward)
    gtk_widget_add_css_class (title, "monospace");
  cr_soft_breaks_set_name (GTK_LABEL (title), text->title);
  g_object_set_data_full (G_OBJECT (title), "cr-text", g_strdup (text->title), g_free);
  gtk_box_append (GTK_BOX (titles), title);
  if (text->caption)
    {
      GtkWidget *caption = cr_card_label_new (text->caption, forward ? NULL : "monospace");
      /* torch.nn.functional.binary_cross_entropy_with_logits wraps between
       * its names, not anywhere (H8). */
      cr_soft_breaks_set_name (GTK_LABEL (caption), text->caption);
      g_object_set_data_full (G_OBJECT (caption), "cr-text", g_strdup (text->caption), g_free);
      gtk_widget_add_css_class (caption, "dim-label");
      gtk_box_append (GTK_BOX (titles), caption);
    }
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (header), titles);
  return header;
}

/* ---- formulas ------------------------------------------------------------ */

static GtkWidget *
mono_label (const char *text)
{
  GtkWidget *label = cr_card_label_new (text, "monospace");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

/* An operator with its operand: the unit a formula wraps by, so a line
 * never ends in a dangling "×". */
static GtkWidget *
with_op (const char *op,
         GtkWidget  *operand)
{
  if (!op)
    return operand;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *label = gtk_label_new (op);
  gtk_widget_add_css_class (label, "cr-op");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), operand);
  return box;
}

static GtkWidget *
term_widget (const CrStepTextTerm *t)
{
  const char *role = cr_step_card_role_class (t->role);
  switch (t->kind)
    {
    case CR_STEP_TEXT_NAME:
      return cr_card_fraction_new (t->text, role);
    case CR_STEP_TEXT_HOW:
      {
        GtkWidget *how = cr_card_label_new (t->text, "cr-reduction-text");
        gtk_widget_set_valign (how, GTK_ALIGN_CENTER);
        return how;
      }
    case CR_STEP_TEXT_VALUE:
      {
        GtkWidget *view = cr_tensor_view_new (t->value);
        if (role)
          gtk_widget_add_css_class (view, role);
        /* The value as the text tells it, for the test that holds the card
         * to cr_step_text_plain(). */
        g_object_set_data_full (G_OBJECT (view), "cr-value-text", g_strdup (t->text), g_free);
        if (!t->caption)
          return view;
        /* "sum so far" over the sum. */
        GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
        gtk_box_append (GTK_BOX (box), cr_card_label_new (t->caption, "cr-footnote"));
        gtk_box_append (GTK_BOX (box), view);
        return box;
      }
    case CR_STEP_TEXT_WORDS:
    default:
      return mono_label (t->text);
    }
}

/* A formula's terms in flows: a term that starts a line without an
 * operator ("c =" over its matrix) goes under the flow, at the left edge,
 * not indented as a continuation would be. The first widget added is
 * returned (for its spacing). */
static GtkWidget *
layout_formula (GtkWidget            *section,
                const CrStepTextItem *item)
{
  const CrStepTextTerm *only = item->terms->len == 1 ? g_ptr_array_index (item->terms, 0) : NULL;
  if (only && only->kind == CR_STEP_TEXT_WORDS && !only->op)
    {
      /* Words alone wrap as a label does ("RuntimeError: ...", an equation). */
      GtkWidget *label = cr_card_label_new (only->text, "monospace");
      gtk_box_append (GTK_BOX (section), label);
      return label;
    }
  GtkWidget *first = NULL, *flow = NULL;
  for (guint i = 0; i < item->terms->len; i++)
    {
      const CrStepTextTerm *t = g_ptr_array_index (item->terms, i);
      GtkWidget *w = with_op (t->op, term_widget (t));
      if (t->break_before && !t->op)
        {
          gtk_box_append (GTK_BOX (section), w);
          flow = NULL;
          first = first ? first : w;
          continue;
        }
      if (!flow)
        {
          flow = cr_formula_flow_new ();
          if (item->reduction && t->kind == CR_STEP_TEXT_HOW)
            gtk_widget_add_css_class (flow, "cr-reduction");
          gtk_box_append (GTK_BOX (section), flow);
          first = first ? first : flow;
        }
      cr_formula_flow_append (CR_FORMULA_FLOW (flow), w, t->break_before);
    }
  return first;
}

/* ---- sections -------------------------------------------------------------- */

static gboolean
spaces_formulas (CrStepTextSectionKind kind)
{
  /* One formula for each hook, input or contribution: set apart. */
  return kind == CR_STEP_TEXT_SECTION_HOOKS || kind == CR_STEP_TEXT_SECTION_SENT
         || kind == CR_STEP_TEXT_SECTION_ACCUMULATED;
}

static void
layout_items (GtkWidget               *section,
              const CrStepTextSection *s)
{
  GtkWidget *rules = NULL;
  gboolean had_formula = FALSE;
  for (guint i = 0; i < s->items->len; i++)
    {
      const CrStepTextItem *item = g_ptr_array_index (s->items, i);
      if (item->kind != CR_STEP_TEXT_RULE)
        rules = NULL;
      switch (item->kind)
        {
        case CR_STEP_TEXT_FORMULA:
          {
            GtkWidget *first = layout_formula (section, item);
            /* A broadcast sum's line belongs to the product above it. */
            if (had_formula && first && spaces_formulas (s->kind) && !item->reduction)
              gtk_widget_set_margin_top (first, 8);
            had_formula = TRUE;
          }
          break;
        case CR_STEP_TEXT_RULE:
          /* One rule a line, in the section's colour, close together. */
          if (!rules)
            {
              rules = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
              gtk_box_append (GTK_BOX (section), rules);
            }
          gtk_box_append (GTK_BOX (rules), cr_card_label_new (item->text, cr_step_card_role_class (s->role)));
          break;
        case CR_STEP_TEXT_NOTE:
          {
            GtkWidget *note = cr_card_label_new (item->text, "cr-footnote");
            if (item->reduction)
              gtk_widget_add_css_class (note, "cr-reduction-text");
            gtk_box_append (GTK_BOX (section), note);
          }
          break;
        case CR_STEP_TEXT_SENTENCE:
        default:
          gtk_box_append (GTK_BOX (section), cr_card_label_new (item->text, NULL));
          break;
        }
    }
}

void
cr_step_card_layout_section (GtkWidget               *box,
                             const CrStepTextSection *s)
{
  if (s->kind == CR_STEP_TEXT_SECTION_ERROR)
    {
      /* An error reads as one: its lead in red, PyTorch's message, why. */
      GtkWidget *section = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      gtk_widget_add_css_class (section, "cr-section");
      gtk_widget_add_css_class (section, "cr-error-section");
      if (s->heading)
        gtk_box_append (GTK_BOX (section), cr_card_label_new (s->heading, "error"));
      layout_items (section, s);
      gtk_box_append (GTK_BOX (box), section);
      return;
    }
  if (!s->heading)
    {
      layout_items (box, s);
      return;
    }
  GtkWidget *section = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (section, "cr-section");
  if (s->kind == CR_STEP_TEXT_SECTION_HOOKS)
    gtk_widget_add_css_class (section, "cr-hooks");
  else if (s->kind == CR_STEP_TEXT_SECTION_CUSTOM)
    gtk_widget_add_css_class (section, "cr-custom");
  gtk_box_append (GTK_BOX (section), cr_card_heading_new (s->heading, cr_step_card_role_class (s->role)));
  layout_items (section, s);
  gtk_box_append (GTK_BOX (box), section);
}

void
cr_step_card_layout_sections (GtkWidget        *box,
                              const CrStepText *text)
{
  for (guint i = 0; i < text->sections->len; i++)
    cr_step_card_layout_section (box, g_ptr_array_index (text->sections, i));
}

const CrStepTextSection *
cr_step_card_text_section (const CrStepText      *text,
                           CrStepTextSectionKind  kind)
{
  for (guint i = 0; text && i < text->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (s->kind == kind)
        return s;
    }
  return NULL;
}
