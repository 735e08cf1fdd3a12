/* cr-inspector-group.c — what a closed group (a module call, a loop
 * iteration, a fold of repeats) holds, read from the run record through
 * the collapsed model's lookups: a hidden op or parameter is found at the
 * group node standing for it (cr-graph-groups.h), so the ops, steps and
 * parameters of the group are those the model maps to its node. */
#include "cr-config.h"
#include "cr-inspector-group.h"

#include "cr-card-style.h"
#include "cr-graph-groups.h"
#include "cr-tensor-view.h"

#include <adwaita.h>

/* More parameters than this are summed up in a line: the list stays short. */
#define CR_INSPECTOR_GROUP_PARAMS 12

static GtkWidget *
count_row (const char *title,
           guint       count)
{
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  g_autofree char *text = g_strdup_printf ("× %u", count);
  GtkWidget *label = gtk_label_new (text);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  return row;
}

/* What the closed group is, as the section's title. */
static const char *
closed_title (const CrGraphNode *node)
{
  switch (cr_graph_group_node_kind (node))
    {
    case CR_GRAPH_GROUP_CALL:      return "Call, closed";
    case CR_GRAPH_GROUP_ITERATION: return "Loop iteration, closed";
    case CR_GRAPH_GROUP_REPEAT:    return "Repeated blocks, closed";
    case CR_GRAPH_GROUP_MODULE:
    default:                       return "Module call, closed";
    }
}

static GtkWidget *
build_ops (const CrGraphModel *model,
           const CrGraphNode  *node)
{
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, closed_title (node));

  GtkWidget *open = gtk_button_new_with_label ("Open");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.group-open");
  gtk_widget_set_tooltip_text (open, "Show the ops inside it (O, or a click on it in the graph)");
  gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
  adw_preferences_group_set_header_suffix (g, open);

  const CrRunRecord *record = model->record;
  guint n_ops = 0;
  /* grad_fn → count, in the order the ops ran. */
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  for (guint i = 0; record && i < record->ops->len; i++)
    {
      if (cr_graph_model_find_op (model, (int) i) != node)
        continue;
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      const char *name = op->grad_fn;
      if (!name)
        continue;
      n_ops++;
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, name));
      if (count == 0)
        g_ptr_array_add (order, (gpointer) name);
      g_hash_table_insert (counts, (gpointer) name, GUINT_TO_POINTER (count + 1));
    }

  /* The steps it stands for, as one unit. */
  int first = -1, last = -1;
  for (guint k = 0; k < model->n_steps; k++)
    if (cr_graph_model_find_step_node (model, (int) k) == node)
      {
        if (first < 0)
          first = (int) k;
        last = (int) k;
      }
  GString *what = g_string_new (NULL);
  if (n_ops > 0)
    g_string_append_printf (what, "%u op%s inside", n_ops, n_ops == 1 ? "" : "s");
  else if (node->caption)
    g_string_append_printf (what, "%s inside", node->caption);
  if (first >= 0)
    {
      g_string_append_printf (what, "%sbackward runs %s %d", what->len ? "; " : "",
                              first == last ? "it at step" : "them at steps", first + 1);
      if (last > first)
        g_string_append_printf (what, "–%d", last + 1);
    }
  g_string_append (what, ". Open it to step through them one by one.");
  adw_preferences_group_set_description (g, what->str);
  g_string_free (what, TRUE);

  for (guint i = 0; i < order->len; i++)
    {
      const char *name = g_ptr_array_index (order, i);
      adw_preferences_group_add (g, count_row (name, GPOINTER_TO_UINT (g_hash_table_lookup (counts, name))));
    }
  return group;
}

/* A parameter's row: its path and shape over its .grad as of step. */
static GtkWidget *
param_row (const CrRunRecord    *record,
           const CrRecordTensor *t,
           int                   backward,
           int                   step)
{
  const CrTensorSnapshot *grad = backward >= 0
    ? cr_run_record_grad_at (record, (int) t->id, backward, step) : NULL;
  GtkWidget *row = adw_preferences_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), t->module_path);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 10);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  gtk_box_append (GTK_BOX (box), cr_card_label_new (t->module_path, "monospace"));
  g_autofree char *when = step >= 0 ? g_strdup_printf ("as of step %d", step + 1)
                                    : g_strdup ("before backward");
  g_autofree char *sub = grad ? g_strdup_printf (".grad %s", when)
                              : g_strdup_printf (".grad is None %s", when);
  GtkWidget *caption = cr_card_label_new (sub, "dim-label");
  gtk_widget_add_css_class (caption, "caption");
  gtk_box_append (GTK_BOX (box), caption);
  if (grad)
    {
      GtkWidget *view = cr_tensor_view_new (grad);
      gtk_widget_add_css_class (view, CR_ROLE_OUT);
      gtk_box_append (GTK_BOX (box), view);
    }
  return row;
}

static GtkWidget *
build_params (const CrGraphModel *model,
              const CrGraphNode  *node,
              int                 step)
{
  const CrRunRecord *record = model->record;
  GtkWidget *group = NULL;
  guint shown = 0, more = 0;
  for (guint i = 0; record && i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (!t->module_path
          || (cr_graph_model_find_tensor (model, (int) i) != node
              && cr_graph_model_find_accumulate (model, (int) i) != node))
        continue;
      if (!group)
        {
          group = adw_preferences_group_new ();
          adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Parameters");
        }
      if (shown == CR_INSPECTOR_GROUP_PARAMS)
        {
          more++;
          continue;
        }
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                                 param_row (record, t, model->backward, step));
      shown++;
    }
  if (more > 0)
    {
      g_autofree char *text = g_strdup_printf ("and %u more: open it to see them", more);
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), text);
    }
  return group;
}

GtkWidget *
cr_inspector_group_new (const CrGraphModel *model,
                        const CrGraphNode  *node,
                        int                 step)
{
  g_return_val_if_fail (model != NULL && node != NULL, NULL);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_box_append (GTK_BOX (box), build_ops (model, node));
  GtkWidget *params = build_params (model, node, step);
  if (params)
    gtk_box_append (GTK_BOX (box), params);
  return box;
}
