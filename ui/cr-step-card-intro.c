/* cr-step-card-intro.c — the step card before the first step: how to step
 * through a backward call (the three roles of the chain rule, the keys),
 * and what to say when there is nothing to step (no graph, no backward
 * call, a script that stopped before one). */
#include "cr-config.h"
#include "cr-step-card-private.h"

#include "cr-card-style.h"
#include "cr-record-forward.h"
#include "cr-record-text.h"
#include "cr-run-record.h"

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

static void
add_role_line (GtkWidget  *box,
               const char *role,
               const char *what,
               const char *symbol)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *heading = cr_card_heading_new (what, role);
  GtkWidget *label = gtk_widget_get_last_child (heading);
  gtk_widget_remove_css_class (label, "heading");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_hexpand (heading, TRUE);
  gtk_box_append (GTK_BOX (row), heading);
  gtk_box_append (GTK_BOX (row), cr_card_fraction_new (symbol, role));
  gtk_box_append (GTK_BOX (box), row);
}

static void
add_key_row (GtkGrid     *grid,
             int          row,
             const char  *const *keys,
             const char  *what)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  for (int i = 0; keys[i]; i++)
    gtk_box_append (GTK_BOX (box), cr_card_key_new (keys[i]));
  gtk_grid_attach (grid, box, 0, row, 1, 1);
  GtkWidget *label = cr_card_label_new (what, NULL);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  gtk_grid_attach (grid, label, 1, row, 1, 1);
}

GtkWidget *
cr_step_card_build_no_graph (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);
  gtk_box_append (GTK_BOX (box), status_box ("system-run-symbolic", "No graph yet", NULL));
  gtk_box_append (GTK_BOX (box), cr_card_label_new (
    "Run a script that makes a tensor with requires_grad=True and computes with it: "
    "its graph appears on the canvas, and after a .backward() call you can step "
    "through the chain rule here.", NULL));
  return box;
}

/* The run stopped before any backward call: what it built so far is drawn,
 * and the card says why there is nothing to step. */
GtkWidget *
cr_step_card_build_forward_error (const CrRunRecord   *record,
                                  const CrRecordError *error,
                                  const char          *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);
  gtk_box_append (GTK_BOX (box), status_box ("dialog-error-symbolic",
                                             "Stopped before backward", title));
  /* A notebook's line by its cell, as its traceback says it. */
  g_autofree char *where = error->span.line > 0
                           ? cr_run_record_line_text (record, error->span.line, FALSE) : NULL;
  g_autofree char *lead = where
    ? g_strdup_printf ("The script stopped with an error at %s, before any backward "
                       "call. The canvas shows the graph it had built until then.", where)
    : g_strdup ("The script stopped with an error before any backward call. The canvas "
                "shows the graph it had built until then.");
  CrStepCardCtx c = { .record = record, .backward_index = -1 };
  cr_step_card_add_error (box, &c, error, lead);
  return box;
}

GtkWidget *
cr_step_card_build_forward_intro (const char *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);
  gtk_box_append (GTK_BOX (box), status_box ("media-playback-start-symbolic",
                                             "No backward pass", title));
  gtk_box_append (GTK_BOX (box), cr_card_label_new (
    "This script builds a graph but never calls .backward(), so there are no steps "
    "to go through. The canvas shows the forward graph: every op that will take part "
    "in the chain rule.", NULL));
  gtk_box_append (GTK_BOX (box), cr_card_label_new (
    "Add a call such as L.backward() on a scalar result to follow its gradient back "
    "to the leaves, one node at a time.", "dim-label"));
  return box;
}

GtkWidget *
cr_step_card_build_intro (const CrStepCardCtx *c)
{
  const CrRecordBackward *bw = c->backward;
  guint n = bw->steps->len;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 14);
  const char *root = cr_step_card_root_name (c);
  g_autofree char *title = cr_record_backward_picker_title (c->record, (guint) c->backward_index);
  /* One call: its number says nothing. */
  const char *shown = c->record->backwards->len > 1 ? title
                      : bw->title ? bw->title : title;
  gtk_box_append (GTK_BOX (box), status_box ("go-next-symbolic", "Step through backward", shown));

  /* The story starts with the forward pass that built the graph. */
  g_autoptr (GArray) forward = cr_record_forward_ops (c->record, c->backward_index);
  if (forward->len > 0)
    {
      g_autofree char *first = g_strdup_printf (
        "First the forward pass: %u op%s, each computed from its inputs with the numbers, "
        "in the order the script ran them.", forward->len, forward->len == 1 ? "" : "s");
      gtk_box_append (GTK_BOX (box), cr_card_label_new (first, NULL));
    }
  g_autofree char *intro = g_strdup_printf (
    "%s backward pass takes %u step%s. Each step is one node of the graph applying "
    "the chain rule:", forward->len > 0 ? "Then the" : "The", n, n == 1 ? "" : "s");
  gtk_box_append (GTK_BOX (box), cr_card_label_new (intro, NULL));

  GtkWidget *roles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  g_autofree char *in = g_strdup_printf ("∂%s/∂out", root);
  g_autofree char *out = g_strdup_printf ("∂%s/∂in", root);
  add_role_line (roles, CR_ROLE_IN, "the gradient that arrives", in);
  add_role_line (roles, CR_ROLE_LOCAL, "times the node's local gradient", "∂out/∂in");
  add_role_line (roles, CR_ROLE_OUT, "is sent on to each input", out);
  gtk_widget_add_css_class (roles, "card");
  gtk_widget_add_css_class (roles, "cr-section");
  gtk_box_append (GTK_BOX (box), roles);

  GtkWidget *keys = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (keys), 8);
  gtk_grid_set_column_spacing (GTK_GRID (keys), 12);
  static const char *const next[] = { "Space", "→", "PgDn", NULL };
  static const char *const back[] = { "←", "PgUp", NULL };
  static const char *const ends[] = { "Home", "End", NULL };
  add_key_row (GTK_GRID (keys), 0, next, "next step");
  add_key_row (GTK_GRID (keys), 1, back, "previous step");
  add_key_row (GTK_GRID (keys), 2, ends, "first op / last step");
  /* Module code: a closed module call steps as one unit until opened. */
  static const char *const groups[] = { "O", "C", NULL };
  static const char *const depth[] = { "[", "]", NULL };
  add_key_row (GTK_GRID (keys), 3, groups, "open / close a module call");
  add_key_row (GTK_GRID (keys), 4, depth, "fewer / more module levels");
  gtk_box_append (GTK_BOX (box), cr_card_heading_new ("Keys", NULL));
  gtk_box_append (GTK_BOX (box), keys);

  if (!bw->succeeded)
    {
      g_autofree char *note = g_strdup_printf (
        "The backward call stopped with an error after %u step%s.", n, n == 1 ? "" : "s");
      cr_step_card_add_error (box, c, cr_step_card_step_error (c), note);
    }
  return box;
}
