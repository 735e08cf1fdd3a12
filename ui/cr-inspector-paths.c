/* cr-inspector-paths.c — "Paths to the loss" in the inspector
 * (cr-inspector-paths.h): the multivariate chain rule written out for a
 * scalar leaf, one row per path. */
#include "cr-config.h"
#include "cr-inspector-paths.h"

#include "cr-error.h"
#include "cr-paths.h"

#include <adwaita.h>
#include <math.h>

/* Rows past these are summed up in one line. */
#define SHOWN_PATHS 12
#define COUNTED_PATHS 500

static GtkWidget *
path_row (const CrRunRecord *record,
          const CrPath      *path)
{
  g_autoptr (GString) title = g_string_new (NULL);
  g_autoptr (GString) product = g_string_new (NULL);
  for (guint h = 0; h < path->hops->len; h++)
    {
      const CrPathHop *hop = &g_array_index (path->hops, CrPathHop, h);
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, hop->tensor);
      g_autofree char *index = cr_record_element_text (t, hop->element);
      g_string_append_printf (title, "%s%s%s", h ? " → " : "", t->label ? t->label : "?", index);
      if (hop->op >= 0 || hop->factor != 1.0)
        g_string_append_printf (product, "%s%.4g", product->len ? " × " : "", hop->factor);
    }
  g_string_append_printf (product, " = %.6g", path->product);
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title->str);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), product->str);
  return row;
}

/* The group's state: the leaf, the element chosen and the rows shown for it. */
typedef struct {
  CrRunRecord *record;      /* a reference */
  int          backward;
  int          leaf;
  GtkWidget   *group;       /* borrowed: it owns this */
  GPtrArray   *spins;       /* GtkSpinButton*, one per dimension (borrowed) */
  GPtrArray   *rows;        /* the element's rows (borrowed from the group) */
  GtkWidget   *walk_button;
} Paths;

static void
paths_free (gpointer data)
{
  Paths *p = data;
  cr_run_record_unref (p->record);
  g_ptr_array_unref (p->spins);
  g_ptr_array_unref (p->rows);
  g_free (p);
}

static gint64
chosen_element (const Paths *p)
{
  const CrRecordTensor *t = g_ptr_array_index (p->record->tensors, p->leaf);
  gint64 element = 0;
  for (guint d = 0; d < p->spins->len && (int) d < t->ndim; d++)
    element = element * t->shape[d]
              + gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (p->spins->pdata[d]));
  return element;
}

static void
add_row (Paths     *p,
         GtkWidget *row)
{
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (p->group), row);
  g_ptr_array_add (p->rows, row);
}

/* The chosen element's paths, each a row, and their sum. */
static void
show_element (Paths *p)
{
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (p->group);
  for (guint i = 0; i < p->rows->len; i++)
    adw_preferences_group_remove (g, p->rows->pdata[i]);
  g_ptr_array_set_size (p->rows, 0);
  const CrRecordTensor *t = g_ptr_array_index (p->record->tensors, p->leaf);
  gint64 element = chosen_element (p);
  g_autofree char *index = cr_record_element_text (t, element);
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) sum = cr_path_sum_new_in_call (p->record, p->backward, p->leaf, element,
                                                       COUNTED_PATHS, &error);
  gtk_widget_set_sensitive (p->walk_button, sum != NULL);
  if (!sum)
    {
      /* Why not, in the record's words: "a path goes through ... (line 3)". */
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "These paths cannot be listed");
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), error->message);
      add_row (p, row);
      return;
    }
  for (guint i = 0; i < sum->paths->len && i < SHOWN_PATHS; i++)
    add_row (p, path_row (p->record, sum->paths->pdata[i]));
  if (sum->paths->len > SHOWN_PATHS)
    {
      g_autofree char *more = g_strdup_printf ("and %s%u more paths", sum->truncated ? "over " : "",
                                               sum->paths->len - SHOWN_PATHS);
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), more);
      add_row (p, row);
    }
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  g_autofree char *title = g_strdup_printf ("Sum of the %u path%s", sum->paths->len,
                                            sum->paths->len == 1 ? "" : "s");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  g_autofree char *value = NULL;
  if (sum->truncated)
    value = g_strdup_printf ("%.6g (only some of the paths)", sum->sum);
  else if (isnan (sum->grad))
    value = g_strdup_printf ("%.6g", sum->sum);
  else if (fabs (sum->sum - sum->grad) <= 1e-5 + 1e-4 * fabs (sum->grad))
    value = g_strdup_printf ("%.6g = %s.grad%s once this backward ran", sum->sum, t->label, index);
  else
    value = g_strdup_printf ("%.6g, but %s.grad%s is %.6g (a hook changed it)", sum->sum, t->label,
                             index, sum->grad);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), value);
  add_row (p, row);
}

static void
element_changed (GtkSpinButton *spin,
                 Paths         *p)
{
  show_element (p);
}

static void
walk_clicked (GtkButton *button,
              Paths     *p)
{
  gtk_widget_activate_action (GTK_WIDGET (button), "win.paths-walk", "(ix)", p->leaf,
                              (gint64) chosen_element (p));
}

/* "Element" with an index spin button per dimension: a tensor leaf's
 * element whose paths are listed and walked. */
static GtkWidget *
element_row (Paths                *p,
             const CrRecordTensor *t)
{
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "Element");
  g_autofree char *subtitle = g_strdup_printf ("%s has paths of its own for each element",
                                               t->label);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  for (int d = 0; d < t->ndim; d++)
    {
      GtkWidget *spin = gtk_spin_button_new_with_range (0, (double) MAX (t->shape[d] - 1, 0), 1);
      gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
      g_autofree char *tip = g_strdup_printf ("Index in dimension %d", d);
      gtk_widget_set_tooltip_text (spin, tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
      g_signal_connect (spin, "value-changed", G_CALLBACK (element_changed), p);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
      g_ptr_array_add (p->spins, spin);
    }
  return row;
}

GtkWidget *
cr_inspector_paths_new (const CrRunRecord *record,
                        int                backward,
                        int                leaf)
{
  if (!record || leaf < 0 || (guint) leaf >= record->tensors->len)
    return NULL;
  const CrRecordTensor *t = g_ptr_array_index (record->tensors, leaf);
  if (t->origin != CR_RECORD_TENSOR_LEAF)
    return NULL;
  /* Not reached by this call: no paths, no group. */
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) probe = cr_path_sum_new_in_call (record, backward, leaf, 0, 1, &error);
  if (!probe && !g_error_matches (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR))
    return NULL;
  gint64 numel = 1;
  for (int d = 0; d < t->ndim; d++)
    numel *= t->shape[d];
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Paths to the loss");
  adw_preferences_group_set_description (g, "Every way a change of this leaf reaches the "
                                            "loss; each arrow multiplies by a local "
                                            "derivative, and the paths' products add up to "
                                            "its gradient.");
  Paths *p = g_new0 (Paths, 1);
  p->record = cr_run_record_ref ((CrRunRecord *) record);
  p->backward = backward;
  p->leaf = leaf;
  p->group = group;
  p->spins = g_ptr_array_new ();
  p->rows = g_ptr_array_new ();
  g_object_set_data_full (G_OBJECT (group), "cr-paths", p, paths_free);

  /* Walk them on the graph: each path lit in turn, then their sum. */
  GtkWidget *walk = gtk_button_new_with_mnemonic ("_Walk");
  gtk_widget_set_valign (walk, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (walk, "Light each path on the graph in turn, then all of them "
                                     "with their sum (Right or Page Down goes on, Esc leaves)");
  g_signal_connect (walk, "clicked", G_CALLBACK (walk_clicked), p);
  p->walk_button = walk;
  adw_preferences_group_set_header_suffix (g, walk);
  if (numel != 1)
    adw_preferences_group_add (g, element_row (p, t));
  show_element (p);
  return group;
}
