/* cr-training-step.c — one optimizer step laid out as aligned rows
 * (cr-training-step.h).
 *
 * A grid of two columns: the left holds each rule's name and arrow
 * ("m ←"), or the "=" of the lines under it, right-aligned; the right holds
 * the expression, its arithmetic and its result. A line too long for the
 * sidebar breaks inside its own cell, so it stays under its first term:
 * arithmetic into balanced lines (cr-training-arithmetic.h), a list of
 * values after its commas. */
#include "cr-training-step.h"

#include "cr-training-arithmetic.h"
#include "cr-training.h"
#include "cr-training-rules.h"

#include <string.h>

/* ---- where a list breaks ------------------------------------------------------ */

/* A list ("before: 0.5, -1.2, 0.33") breaks after each comma or colon, a
 * heading ("W · Adam step 18, line 16 · shape [2, 2]") after its dots too:
 * never inside a number or a shape. */
static GArray *
list_breaks (const char *text)
{
  GArray *breaks = g_array_new (FALSE, FALSE, sizeof (guint));
  int depth = 0;
  for (const char *c = text; c && *c; c++)
    {
      depth += c[0] == '[' || c[0] == '(' ? 1 : (c[0] == ']' || c[0] == ')') && depth > 0 ? -1 : 0;
      gsize mark = (c[0] == ',' || c[0] == ':') ? 1 : g_str_has_prefix (c, "·") ? strlen ("·") : 0;
      if (mark && depth == 0 && c[mark] == ' ' && c[mark + 1])
        {
          guint offset = (guint) (c + mark + 1 - text);
          g_array_append_val (breaks, offset);
        }
    }
  return breaks;
}

/* Lets label's text break only at breaks (byte offsets, ascending): each
 * run between two is kept whole. */
static void
label_set_breaks (GtkLabel *label,
                  GArray   *breaks)
{
  const char *text = gtk_label_get_text (label);
  gsize length = strlen (text);
  PangoAttrList *attrs = pango_attr_list_new ();
  guint from = 0;
  for (guint i = 0; i <= breaks->len; i++)
    {
      guint to = i < breaks->len ? g_array_index (breaks, guint, i) : (guint) length;
      if (to <= from || to > length)
        continue;
      /* From the run's second character, so that neither of its ends loses
       * its break, however Pango counts a range's ends. */
      guint start = (guint) (g_utf8_next_char (text + from) - text);
      if (start < to)
        {
          PangoAttribute *keep = pango_attr_allow_breaks_new (FALSE);
          keep->start_index = start;
          keep->end_index = to;
          pango_attr_list_insert (attrs, keep);
        }
      from = to;
    }
  gtk_label_set_attributes (label, attrs);
  pango_attr_list_unref (attrs);
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD);
}

/* ---- the rows ----------------------------------------------------------------------- */

static GtkWidget *
text_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css_class)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* A list ("before: 0.5, -1.2, …"), breaking after its commas: a label
 * filled line by line, as running text is. */
static GtkWidget *
list_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = text_label (text, css_class);
  /* The class says where it may break (a test reads it back). */
  gtk_widget_add_css_class (label, "cr-training-list");
  g_autoptr (GArray) breaks = list_breaks (text);
  label_set_breaks (GTK_LABEL (label), breaks);
  gtk_widget_set_hexpand (label, TRUE);
  return label;
}

/* Arithmetic, broken into balanced lines between its terms. */
static GtkWidget *
arithmetic_label (const char *text,
                  const char *css_class)
{
  GtkWidget *label = cr_training_arithmetic_new (text);
  gtk_widget_add_css_class (label, "cr-training-arithmetic");
  if (css_class)
    gtk_widget_add_css_class (label, css_class);
  gtk_widget_set_hexpand (label, TRUE);
  return label;
}

/* The left column: a rule's name and arrow, or an "=", right-aligned. */
static GtkWidget *
left_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_set_valign (label, GTK_ALIGN_START);
  gtk_widget_add_css_class (label, "cr-training-left");
  return label;
}

/* Splits "m ← β₁·m + (1−β₁)·g" at its first arrow or "=": "m ←" and the
 * rest; FALSE for a rule that is a name alone ("t (this step)"). */
static gboolean
split_rule (const char  *rule,
            char       **left,
            char       **right)
{
  const char *arrow = strstr (rule, " ← ");
  const char *equals = strstr (rule, " = ");
  const char *at = arrow && (!equals || arrow < equals) ? arrow : equals;
  if (!at || at == rule)
    return FALSE;
  gsize sign = at == arrow ? strlen (" ← ") : strlen (" = ");
  *left = g_strndup (rule, at - rule + sign - 1);
  *right = g_strdup (at + sign);
  return TRUE;
}

static void
add_rule_rows (GtkGrid                  *grid,
               int                      *row,
               const CrTrainingRuleLine *line)
{
  g_autofree char *result = cr_training_number_text (line->result);
  g_autofree char *left = NULL, *right = NULL;
  gboolean arrow_result = line->arithmetic && g_str_has_suffix (line->arithmetic, "→");
  if (split_rule (line->rule, &left, &right))
    {
      gtk_grid_attach (grid, left_label (left), 0, *row, 1, 1);
      /* "g = p.grad = 0.028629": a rule without arithmetic is its result. */
      g_autofree char *shown = line->arithmetic ? g_strdup (right)
                                                : g_strdup_printf ("%s = %s", right, result);
      gtk_grid_attach (grid, arithmetic_label (shown, line->arithmetic ? NULL : "cr-training-result"),
                       1, (*row)++, 1, 1);
    }
  else
    {
      g_autofree char *shown = line->arithmetic ? g_strdup (line->rule)
                                                : g_strdup_printf ("%s = %s", line->rule, result);
      gtk_grid_attach (grid, text_label (shown, NULL), 0, (*row)++, 2, 1);
    }
  if (!line->arithmetic)
    return;
  if (arrow_result)
    {
      /* A rule not told: the state before → after. */
      g_autofree char *shown = g_strdup_printf ("%s %s", line->arithmetic, result);
      gtk_grid_attach (grid, arithmetic_label (shown, "cr-training-result"), 1, (*row)++, 1, 1);
      return;
    }
  gtk_grid_attach (grid, left_label ("="), 0, *row, 1, 1);
  gtk_grid_attach (grid, arithmetic_label (line->arithmetic, NULL), 1, (*row)++, 1, 1);
  gtk_grid_attach (grid, left_label ("="), 0, *row, 1, 1);
  gtk_grid_attach (grid, arithmetic_label (result, "cr-training-result"), 1, (*row)++, 1, 1);
}

static GtkWidget *
new_grid (void)
{
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 1);
  gtk_widget_set_margin_start (grid, 8);
  return grid;
}

/* "before: 0.5, -1.2, …", breaking after its commas: a name as long as
 * max_exp_avg_sq leaves its numbers the sidebar's width. */
static void
add_values_row (GtkBox                 *box,
                const char             *name,
                const CrTensorSnapshot *values)
{
  g_autofree char *list = cr_training_values_list (values);
  g_autofree char *text = g_strdup_printf ("%s: %s", name, list);
  GtkWidget *label = list_label (text, NULL);
  gtk_widget_set_margin_start (label, 8);
  gtk_box_append (box, label);
}

GtkWidget *
cr_training_step_new (const CrRunRecord    *record,
                      const CrRecordUpdate *u,
                      gint64                element)
{
  g_return_val_if_fail (record != NULL && u != NULL, NULL);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 3);
  gtk_widget_add_css_class (box, "cr-training-step");
  gtk_widget_add_css_class (box, "numeric");
  const char *name = u->name ? u->name : "?";

  g_autofree char *heading = cr_training_update_heading (record, u);
  GtkWidget *title = text_label (heading, "cr-training-step-title");
  g_autoptr (GArray) title_breaks = list_breaks (heading);
  label_set_breaks (GTK_LABEL (title), title_breaks);
  gtk_box_append (GTK_BOX (box), title);
  g_autofree char *options = cr_training_update_options (u);
  if (options)
    gtk_box_append (GTK_BOX (box), list_label (options, "dim-label"));

  const CrTensorSnapshot *shape = u->after ? u->after : u->before;
  gint64 numel = shape ? shape->numel : 1;
  element = CLAMP (element, 0, MAX (numel - 1, 0));
  g_autofree char *index = cr_training_index_text (shape, element);
  g_autofree char *which = g_strdup_printf ("%s%s:", name, index);
  gtk_box_append (GTK_BOX (box), text_label (which, "cr-training-element-name"));
  g_autoptr (CrTrainingWorked) worked = cr_training_work (u, element);
  if (u->kind == CR_RECORD_UPDATE_OPTIMIZER && !worked->told)
    {
      g_autofree char *untold = g_strdup_printf ("%s: this optimizer's rule is not told; what it "
                                                 "had and left:", u->optimizer ? u->optimizer : "?");
      GtkWidget *note = text_label (untold, "dim-label");
      gtk_widget_set_margin_start (note, 8);
      gtk_box_append (GTK_BOX (box), note);
    }
  GtkWidget *rules = new_grid ();
  int row = 0;
  for (guint i = 0; i < worked->lines->len; i++)
    add_rule_rows (GTK_GRID (rules), &row, g_ptr_array_index (worked->lines, i));
  gtk_box_append (GTK_BOX (box), rules);
  if (shape && element >= shape->n_values && shape->numel > 1)
    {
      g_autofree char *kept = g_strdup_printf ("The record keeps %" G_GINT64_FORMAT " of its %"
                                               G_GINT64_FORMAT " values: pick one of the first %"
                                               G_GINT64_FORMAT ".", shape->n_values, shape->numel,
                                               shape->n_values);
      GtkWidget *note = text_label (kept, "dim-label");
      gtk_widget_set_margin_start (note, 8);
      gtk_box_append (GTK_BOX (box), note);
    }

  g_autofree char *every = g_strdup_printf ("%s, every element:", name);
  gtk_box_append (GTK_BOX (box), text_label (every, "cr-training-element-name"));
  add_values_row (GTK_BOX (box), "before", u->before);
  add_values_row (GTK_BOX (box), "grad", u->grad);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      /* SGD without momentum keeps a momentum_buffer of None: nothing to say. */
      if (state->before || state->after)
        add_values_row (GTK_BOX (box), state->name, state->after);
    }
  add_values_row (GTK_BOX (box), "after", u->after);
  return box;
}
