/* cr-inspector-paths.c — "Paths to the loss" in the inspector
 * (cr-inspector-paths.h): the multivariate chain rule written out for a
 * scalar leaf, one row per path. */
#include "cr-config.h"
#include "cr-inspector-paths.h"

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
  gint64 numel = 1;
  for (int d = 0; d < t->ndim; d++)
    numel *= t->shape[d];
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Paths to the loss");
  if (numel != 1)
    {
      g_autofree char *text = g_strdup_printf ("Each element of %s has paths of its own: "
                                               "chainrule paths FILE.py --leaf '%s[%s]' "
                                               "lists them.", t->label, t->label,
                                               t->ndim == 1 ? "0" : "0, 0");
      adw_preferences_group_set_description (g, text);
      return group;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CrPathSum) sum = cr_path_sum_new_in_call (record, backward, leaf, 0, COUNTED_PATHS,
                                                       &error);
  if (!sum)
    {
      g_object_ref_sink (group);
      g_object_unref (group);
      return NULL;
    }
  adw_preferences_group_set_description (g, "Every way a change of this leaf reaches the "
                                            "loss; each arrow multiplies by a local "
                                            "derivative, and the paths' products add up to "
                                            "its gradient.");
  for (guint p = 0; p < sum->paths->len && p < SHOWN_PATHS; p++)
    adw_preferences_group_add (g, path_row (record, sum->paths->pdata[p]));
  if (sum->paths->len > SHOWN_PATHS)
    {
      g_autofree char *more = g_strdup_printf ("and %s%u more paths", sum->truncated ? "over " : "",
                                               sum->paths->len - SHOWN_PATHS);
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), more);
      adw_preferences_group_add (g, row);
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
    value = g_strdup_printf ("%.6g = %s.grad once this backward ran", sum->sum, t->label);
  else
    value = g_strdup_printf ("%.6g, but %s.grad is %.6g (a hook changed it)", sum->sum, t->label,
                             sum->grad);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), value);
  adw_preferences_group_add (g, row);
  return group;
}
