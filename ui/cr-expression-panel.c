/* cr-expression-panel.c — expression mode: a formula, its variables, live.
 *
 * The formula is parsed on every keystroke (it is one short line); while it
 * parses, the panel keeps one row per free variable, each with a spin button
 * and a slider that stay in step. Any change makes a new script with
 * cr_expression_to_script() and emits "script-changed"; the window runs it
 * like an edit in the script editor, so the graph and gradients follow a
 * slider while it moves. While the formula does not parse the rows stay (so
 * a typo does not lose the values) but are insensitive, and the reason shows
 * in red under the entry. A value the person set is remembered by name, so a
 * variable that leaves the formula and comes back gets it again. */
#include "cr-expression-panel.h"
#include "cr-expression.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

/* The quick picks: the classic blackboard formulas. */
static const struct {
  const char *formula;
  const char *description;
} examples[] = {
  { "a*b + c*log(d)",          "Products, a sum and a logarithm" },
  { "tanh(w1*x1 + w2*x2 + b)", "A neuron, as in micrograd" },
  { "sigmoid(w*x + b)",        "Logistic regression on one input" },
  { "(x - y)**2",              "A squared error" },
  { NULL, NULL }
};

/* A value's spin button reaches this far; the slider covers a range around
 * the value and moves with it when the spin button goes beyond. */
#define VALUE_LIMIT 1e6

/* While the person types, a formula is often unfinished ("a*b +"): its error
 * shows only after a pause, so the text under the entry does not flicker. */
#define ERROR_DELAY_MS 600

typedef struct _Row Row;

struct _CrExpressionPanel
{
  GtkWidget             parent_instance;

  /* Children */
  GtkWidget            *scroller;
  AdwEntryRow          *entry;
  GtkLabel             *message;
  AdwPreferencesGroup  *variables_group;
  GtkWidget            *open_button;

  /* Owned */
  GPtrArray            *rows;         /* of Row*, in the formula's order */
  GHashTable           *remembered;   /* name → double*: values the person set */
  char                 *formula;
  char                 *script;
  char                 *pending_error;
  guint                 error_timeout_id;
  gboolean              has_script;   /* script-changed was emitted at least once */
  gboolean              syncing;      /* a value is being copied between widgets */
};

G_DEFINE_FINAL_TYPE (CrExpressionPanel, cr_expression_panel, GTK_TYPE_WIDGET)

enum {
  SIGNAL_SCRIPT_CHANGED,
  SIGNAL_OPEN_AS_SCRIPT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

struct _Row
{
  CrExpressionPanel *panel;    /* borrowed */
  char              *name;
  double             value;
  GtkWidget         *widget;   /* borrowed: the group owns it */
  GtkSpinButton     *spin;
  GtkScale          *scale;
};

static void
row_free (gpointer data)
{
  Row *row = data;
  g_free (row->name);
  g_free (row);
}

static Row *
find_row (CrExpressionPanel *self,
          const char        *name)
{
  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);
      if (strcmp (row->name, name) == 0)
        return row;
    }
  return NULL;
}

/* ---- the script ------------------------------------------------------ */

static void
set_script (CrExpressionPanel *self,
            char              *script)   /* taken */
{
  if (self->has_script && g_strcmp0 (self->script, script) == 0)
    {
      g_free (script);
      return;
    }
  g_free (self->script);
  self->script = script;
  self->has_script = TRUE;
  gtk_widget_set_sensitive (self->open_button, script != NULL);
  g_signal_emit (self, signals[SIGNAL_SCRIPT_CHANGED], 0, script);
}

static void
update_script (CrExpressionPanel *self)
{
  guint n = self->rows->len;
  g_autofree const char **names = g_new0 (const char *, n + 1);
  g_autofree double *values = g_new0 (double, n + 1);
  for (guint i = 0; i < n; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);
      names[i] = row->name;
      values[i] = row->value;
    }
  set_script (self, cr_expression_to_script (self->formula, names, values, n));
}

/* ---- a variable's row ------------------------------------------------ */

/* The slider's range: the value ± max(2, 2|value|), widened to whole numbers
 * so that the ends read well. */
static void
center_scale (Row    *row,
              double  value)
{
  double half = MAX (2.0, fabs (value) * 2.0);
  double lower = floor (value - half), upper = ceil (value + half);
  GtkAdjustment *adjustment = gtk_range_get_adjustment (GTK_RANGE (row->scale));
  gtk_adjustment_configure (adjustment, value, lower, upper, 0.1, 1.0, 0.0);
}

static void
remember (CrExpressionPanel *self,
          const char        *name,
          double             value)
{
  g_hash_table_insert (self->remembered, g_strdup (name), g_memdup2 (&value, sizeof value));
}

/* Puts value in both widgets of row, the script follows. */
static void
row_set_value (Row    *row,
               double  value)
{
  CrExpressionPanel *self = row->panel;
  value = CLAMP (value, -VALUE_LIMIT, VALUE_LIMIT);
  row->value = value;
  remember (self, row->name, value);

  self->syncing = TRUE;
  gtk_spin_button_set_value (row->spin, value);
  GtkAdjustment *adjustment = gtk_range_get_adjustment (GTK_RANGE (row->scale));
  if (value < gtk_adjustment_get_lower (adjustment) || value > gtk_adjustment_get_upper (adjustment))
    center_scale (row, value);
  else
    gtk_adjustment_set_value (adjustment, value);
  self->syncing = FALSE;

  update_script (self);
}

static void
spin_value_changed_cb (GtkSpinButton *spin,
                       Row           *row)
{
  if (row->panel->syncing)
    return;
  row_set_value (row, gtk_spin_button_get_value (spin));
}

static void
scale_value_changed_cb (GtkRange *range,
                        Row      *row)
{
  if (row->panel->syncing)
    return;
  row_set_value (row, gtk_range_get_value (range));
}

static Row *
row_new (CrExpressionPanel *self,
         const char        *name,
         double             value)
{
  Row *row = g_new0 (Row, 1);
  row->panel = self;
  row->name = g_strdup (name);
  row->value = value;

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 4);

  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (top), label);

  GtkAdjustment *spin_adjustment = gtk_adjustment_new (value, -VALUE_LIMIT, VALUE_LIMIT, 0.1, 1.0, 0.0);
  row->spin = GTK_SPIN_BUTTON (gtk_spin_button_new (spin_adjustment, 0.1, 3));
  gtk_spin_button_set_numeric (row->spin, TRUE);
  gtk_widget_set_valign (GTK_WIDGET (row->spin), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (row->spin), "numeric");
  gtk_editable_set_width_chars (GTK_EDITABLE (row->spin), 7);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (row->spin),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (row->spin));
  gtk_box_append (GTK_BOX (box), top);

  row->scale = GTK_SCALE (gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, NULL));
  gtk_scale_set_draw_value (row->scale, FALSE);
  /* A drag lands on hundredths: values that read well on a blackboard. */
  gtk_range_set_round_digits (GTK_RANGE (row->scale), 2);
  gtk_widget_set_hexpand (GTK_WIDGET (row->scale), TRUE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (row->scale),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);
  center_scale (row, value);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->scale));

  row->widget = g_object_new (ADW_TYPE_PREFERENCES_ROW,
                              "title", name,
                              "activatable", FALSE,
                              "selectable", FALSE,
                              NULL);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row->widget), box);

  g_signal_connect (row->spin, "value-changed", G_CALLBACK (spin_value_changed_cb), row);
  g_signal_connect (row->scale, "value-changed", G_CALLBACK (scale_value_changed_cb), row);
  return row;
}

/* Makes the rows those of names (keeping the value of a variable that
 * stays); nothing is rebuilt when the names did not change. */
static void
update_rows (CrExpressionPanel *self,
             GPtrArray         *names)
{
  gboolean same = names->len == self->rows->len;
  for (guint i = 0; i < names->len && same; i++)
    same = strcmp (g_ptr_array_index (names, i),
                   ((Row *) g_ptr_array_index (self->rows, i))->name) == 0;
  if (same)
    return;

  g_autoptr (GHashTable) kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);
      g_hash_table_insert (kept, g_strdup (row->name), g_memdup2 (&row->value, sizeof row->value));
      adw_preferences_group_remove (self->variables_group, row->widget);
    }
  g_ptr_array_set_size (self->rows, 0);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      const double *value = g_hash_table_lookup (kept, name);
      if (value == NULL)
        value = g_hash_table_lookup (self->remembered, name);
      double start = value ? *value : cr_expression_default_value (self->formula, name);
      Row *row = row_new (self, name, start);
      g_ptr_array_add (self->rows, row);
      adw_preferences_group_add (self->variables_group, row->widget);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->variables_group), names->len > 0);
}

/* ---- the formula ----------------------------------------------------- */

static void
show_message (CrExpressionPanel *self,
              const char        *text,
              gboolean           is_error)
{
  gtk_label_set_text (self->message, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->message), text != NULL);
  /* The rows stay, with their values, but do nothing while it does not parse. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->variables_group), !is_error);
  if (is_error)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->message), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->message), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->entry), "error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->message), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->message), "dim-label");
      gtk_widget_remove_css_class (GTK_WIDGET (self->entry), "error");
    }
}

static gboolean
show_pending_error_cb (gpointer user_data)
{
  CrExpressionPanel *self = user_data;
  self->error_timeout_id = 0;
  show_message (self, self->pending_error, TRUE);
  return G_SOURCE_REMOVE;
}

/* Shows message as an error: at once, or after a pause while the person types. */
static void
show_error (CrExpressionPanel *self,
            const char        *message)
{
  g_clear_handle_id (&self->error_timeout_id, g_source_remove);
  g_free (self->pending_error);
  self->pending_error = g_strdup (message);
  gboolean typing = (gtk_widget_get_state_flags (GTK_WIDGET (self->entry))
                     & GTK_STATE_FLAG_FOCUS_WITHIN) != 0;
  if (typing && !gtk_widget_get_visible (GTK_WIDGET (self->message)))
    self->error_timeout_id = g_timeout_add (ERROR_DELAY_MS, show_pending_error_cb, self);
  else
    show_message (self, message, TRUE);
}

static void
update_formula (CrExpressionPanel *self)
{
  g_clear_handle_id (&self->error_timeout_id, g_source_remove);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = cr_expression_variables (self->formula, &error);
  const char *trimmed = self->formula;
  while (g_ascii_isspace (*trimmed))
    trimmed++;

  if (names == NULL)
    {
      /* An empty entry is a hint, not a mistake. */
      if (*trimmed == '\0')
        {
          show_message (self, "Type a formula, or pick one of the examples below.", FALSE);
          gtk_widget_set_sensitive (GTK_WIDGET (self->variables_group), FALSE);
        }
      else
        show_error (self, error->message);
      set_script (self, NULL);
      return;
    }

  update_rows (self, names);
  if (names->len == 0)
    {
      show_error (self, "The formula needs a variable to differentiate, such as x.");
      set_script (self, NULL);
      return;
    }
  show_message (self, NULL, FALSE);
  update_script (self);
}

static void
entry_changed_cb (GtkEditable       *editable,
                  CrExpressionPanel *self)
{
  const char *text = gtk_editable_get_text (editable);
  if (self->has_script && g_strcmp0 (text, self->formula) == 0)
    return;
  g_free (self->formula);
  self->formula = g_strdup (text);
  update_formula (self);
}

/* An example starts afresh, with its own values: picking it again resets
 * them (the neuron's values are the point of the neuron). */
static void
example_activated_cb (AdwActionRow      *row,
                      CrExpressionPanel *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->variables_group,
                                  ((Row *) g_ptr_array_index (self->rows, i))->widget);
  g_ptr_array_set_size (self->rows, 0);
  g_hash_table_remove_all (self->remembered);
  g_free (self->formula);
  self->formula = g_strdup ("");
  cr_expression_panel_set_formula (self, g_object_get_data (G_OBJECT (row), "formula"));
}

static void
open_clicked_cb (GtkButton         *button,
                 CrExpressionPanel *self)
{
  if (self->script != NULL)
    g_signal_emit (self, signals[SIGNAL_OPEN_AS_SCRIPT], 0, self->script);
}

/* ---- the widget ------------------------------------------------------ */

static GtkWidget *
build_examples (CrExpressionPanel *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Examples");
  for (guint i = 0; examples[i].formula; i++)
    {
      g_autofree char *escaped = g_markup_escape_text (examples[i].formula, -1);
      g_autofree char *title = g_strdup_printf ("<tt>%s</tt>", escaped);
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), examples[i].description);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      gtk_widget_set_tooltip_text (row, "Use this formula");
      GtkWidget *icon = gtk_image_new_from_icon_name ("go-next-symbolic");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon);
      g_object_set_data (G_OBJECT (row), "formula", (gpointer) examples[i].formula);
      g_signal_connect (row, "activated", G_CALLBACK (example_activated_cb), self);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  return group;
}

static void
cr_expression_panel_dispose (GObject *object)
{
  CrExpressionPanel *self = CR_EXPRESSION_PANEL (object);
  g_clear_handle_id (&self->error_timeout_id, g_source_remove);
  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  G_OBJECT_CLASS (cr_expression_panel_parent_class)->dispose (object);
}

static void
cr_expression_panel_finalize (GObject *object)
{
  CrExpressionPanel *self = CR_EXPRESSION_PANEL (object);
  g_ptr_array_unref (self->rows);
  g_hash_table_unref (self->remembered);
  g_free (self->formula);
  g_free (self->script);
  g_free (self->pending_error);
  G_OBJECT_CLASS (cr_expression_panel_parent_class)->finalize (object);
}

static void
cr_expression_panel_class_init (CrExpressionPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_expression_panel_dispose;
  object_class->finalize = cr_expression_panel_finalize;

  signals[SIGNAL_SCRIPT_CHANGED] =
    g_signal_new ("script-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_OPEN_AS_SCRIPT] =
    g_signal_new ("open-as-script", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "expressionpanel");
}

static void
cr_expression_panel_init (CrExpressionPanel *self)
{
  self->rows = g_ptr_array_new_with_free_func (row_free);
  self->remembered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->formula = g_strdup ("");

  /* A vertical scrollbar that never comes and goes: one that appears while
   * GTK 4.8 allocates the editor column queues a resize that GTK loses, and
   * the column is drawn without a size (cr-window.ui says more). Overlaid,
   * it looks the same. */
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller),
                                  GTK_POLICY_NEVER, GTK_POLICY_ALWAYS);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 18);

  /* The formula. */
  GtkWidget *formula_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *formula_group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (formula_group), "Formula");
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (formula_group),
                                         "Each free name becomes a scalar leaf with requires_grad=True; "
                                         "backward() is called on the result.");
  self->entry = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->entry), "out =");
  gtk_widget_add_css_class (GTK_WIDGET (self->entry), "monospace");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (formula_group), GTK_WIDGET (self->entry));
  gtk_box_append (GTK_BOX (formula_box), formula_group);

  self->message = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->message, 0.0);
  gtk_label_set_wrap (self->message, TRUE);
  gtk_label_set_wrap_mode (self->message, PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_margin_start (GTK_WIDGET (self->message), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self->message), 6);
  gtk_widget_add_css_class (GTK_WIDGET (self->message), "caption");
  gtk_widget_set_visible (GTK_WIDGET (self->message), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->message),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, "Formula error", -1);
  gtk_box_append (GTK_BOX (formula_box), GTK_WIDGET (self->message));
  gtk_box_append (GTK_BOX (box), formula_box);

  /* The variables. */
  self->variables_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->variables_group, "Variables");
  adw_preferences_group_set_description (self->variables_group,
                                         "Type a value or drag its slider: the graph, values and "
                                         "gradients follow.");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->variables_group));

  self->open_button = gtk_button_new_with_mnemonic ("_Open as Script");
  gtk_widget_set_halign (self->open_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->open_button, "pill");
  gtk_widget_set_tooltip_text (self->open_button, "Edit the equivalent PyTorch script in the editor");
  g_signal_connect (self->open_button, "clicked", G_CALLBACK (open_clicked_cb), self);
  gtk_box_append (GTK_BOX (box), self->open_button);

  gtk_box_append (GTK_BOX (box), build_examples (self));

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), box);

  g_signal_connect (self->entry, "changed", G_CALLBACK (entry_changed_cb), self);
  cr_expression_panel_set_formula (self, examples[0].formula);
}

GtkWidget *
cr_expression_panel_new (void)
{
  return g_object_new (CR_TYPE_EXPRESSION_PANEL, NULL);
}

void
cr_expression_panel_set_formula (CrExpressionPanel *self,
                                 const char        *formula)
{
  g_return_if_fail (CR_IS_EXPRESSION_PANEL (self));
  if (formula == NULL)
    formula = "";
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->entry)), formula) != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->entry), formula);
  else
    entry_changed_cb (GTK_EDITABLE (self->entry), self);
}

const char *
cr_expression_panel_get_formula (CrExpressionPanel *self)
{
  g_return_val_if_fail (CR_IS_EXPRESSION_PANEL (self), NULL);
  return self->formula;
}

const char *
cr_expression_panel_get_script (CrExpressionPanel *self)
{
  g_return_val_if_fail (CR_IS_EXPRESSION_PANEL (self), NULL);
  return self->script;
}

gboolean
cr_expression_panel_set_value (CrExpressionPanel *self,
                               const char        *name,
                               double             value)
{
  g_return_val_if_fail (CR_IS_EXPRESSION_PANEL (self), FALSE);
  Row *row = name ? find_row (self, name) : NULL;
  if (row == NULL || !isfinite (value))
    return FALSE;
  row_set_value (row, value);
  return TRUE;
}
