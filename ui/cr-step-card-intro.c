/* cr-step-card-intro.c — the step card before the first step: how to step
 * through a backward call (the three roles of the chain rule, the keys),
 * and what to say when there is nothing to step (no graph, no backward
 * call, a script that stopped before one). Every word is core's
 * (cr_step_text_new_intro and its kin, core/record/cr-step-text-intro.c);
 * here they get their look: a status icon over the title, the roles in
 * their colours, keycaps. */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"

static GtkWidget *
status_box (const char *icon,
            const char *title,
            const char *subtitle)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  GtkWidget *image = gtk_image_new_from_icon_name (icon);
  gtk_widget_add_css_class (image, "cr-big-icon");
  gtk_widget_set_margin_top (image, 12);
  gtk_box_append (GTK_BOX (box), image);
  GtkWidget *t = cr_card_label_new (title, "title-3");
  gtk_label_set_xalign (GTK_LABEL (t), 0.5);
  gtk_label_set_justify (GTK_LABEL (t), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (box), t);
  if (subtitle)
    {
      GtkWidget *s = cr_card_label_new (subtitle, "dim-label");
      gtk_widget_add_css_class (s, "monospace");
      gtk_label_set_xalign (GTK_LABEL (s), 0.5);
      gtk_label_set_justify (GTK_LABEL (s), GTK_JUSTIFY_CENTER);
      gtk_box_append (GTK_BOX (box), s);
    }
  return box;
}

static const CrStepTextTerm *
term_at (const CrStepTextItem *item,
         guint                 i)
{
  return i < item->terms->len ? g_ptr_array_index (item->terms, i) : NULL;
}

/* The roles, one a line: what it is, in its colour, then its gradient. */
static GtkWidget *
roles_box (const CrStepTextSection *s)
{
  GtkWidget *roles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  for (guint i = 0; i < s->items->len; i++)
    {
      const CrStepTextItem *item = g_ptr_array_index (s->items, i);
      const CrStepTextTerm *what = term_at (item, 0), *gradient = term_at (item, 1);
      if (!what || !gradient)
        continue;
      const char *role = cr_step_card_role_class (what->role);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *heading = cr_card_heading_new (what->text, role);
      GtkWidget *label = gtk_widget_get_last_child (heading);
      gtk_widget_remove_css_class (label, "heading");
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_hexpand (heading, TRUE);
      gtk_box_append (GTK_BOX (row), heading);
      gtk_box_append (GTK_BOX (row), cr_card_fraction_new (gradient->text, role));
      gtk_box_append (GTK_BOX (roles), row);
    }
  gtk_widget_add_css_class (roles, "card");
  gtk_widget_add_css_class (roles, "cr-section");
  return roles;
}

/* The keys, a row each: keycaps, then what they do. */
static GtkWidget *
keys_grid (const CrStepTextSection *s)
{
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  for (guint i = 0; i < s->items->len; i++)
    {
      const CrStepTextItem *item = g_ptr_array_index (s->items, i);
      GtkWidget *keys = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      gtk_grid_attach (GTK_GRID (grid), keys, 0, (int) i, 1, 1);
      for (guint k = 0; k < item->terms->len; k++)
        {
          const CrStepTextTerm *t = g_ptr_array_index (item->terms, k);
          if (t->kind == CR_STEP_TEXT_KEY)
            {
              gtk_box_append (GTK_BOX (keys), cr_card_key_new (t->text));
              continue;
            }
          GtkWidget *label = cr_card_label_new (t->text, NULL);
          gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
          gtk_grid_attach (GTK_GRID (grid), label, 1, (int) i, 1, 1);
        }
    }
  return grid;
}

/* text laid out under a status icon. */
static GtkWidget *
build (const char *icon,
       CrStepText *text)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);
  gtk_box_append (GTK_BOX (box), status_box (icon, text->title, text->caption));
  for (guint i = 0; i < text->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      switch (s->kind)
        {
        case CR_STEP_TEXT_SECTION_ROLES:
          gtk_box_append (GTK_BOX (box), roles_box (s));
          break;
        case CR_STEP_TEXT_SECTION_KEYS:
          gtk_box_append (GTK_BOX (box), cr_card_heading_new (s->heading, NULL));
          gtk_box_append (GTK_BOX (box), keys_grid (s));
          break;
        default:
          cr_step_card_layout_section (box, s);
          break;
        }
    }
  cr_step_text_free (text);
  return box;
}

GtkWidget *
cr_step_card_build_no_graph (void)
{
  return build ("system-run-symbolic", cr_step_text_new_no_graph ());
}

/* The run stopped before any backward call: what it built so far is drawn,
 * and the card says why there is nothing to step. */
GtkWidget *
cr_step_card_build_forward_error (const CrRunRecord   *record,
                                  const CrRecordError *error,
                                  const char          *title)
{
  return build ("dialog-error-symbolic", cr_step_text_new_forward_error (record, error, title));
}

GtkWidget *
cr_step_card_build_forward_intro (const char *title)
{
  return build ("media-playback-start-symbolic", cr_step_text_new_no_backward (title));
}

GtkWidget *
cr_step_card_build_intro (const CrStepCardCtx *c)
{
  return build ("go-next-symbolic", cr_step_text_new_intro (c->record, c->backward_index));
}
