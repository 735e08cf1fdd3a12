/* cr-inspector-scalars.c — "Inside this op" in the inspector
 * (cr-inspector-scalars.h). */
#include "cr-config.h"
#include "cr-inspector-scalars.h"

#include "cr-op-scalars.h"

#include <adwaita.h>

GtkWidget *
cr_inspector_scalars_new (const CrRunRecord *record,
                          int                op)
{
  if (!record || !cr_op_scalars_can_open (record, op, NULL))
    return NULL;
  GtkWidget *group = adw_preferences_group_new ();
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (g, "Inside this op");
  adw_preferences_group_set_description (
    g, "Small enough to see as scalars: each element of its output computed from single "
       "elements, and its backward step element by element.");
  GtkWidget *button = gtk_button_new_with_mnemonic ("Open as _Scalars");
  gtk_widget_set_tooltip_text (button, "Its scalar graph over the graph (S)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open-scalars");
  gtk_widget_set_halign (button, GTK_ALIGN_START);
  gtk_widget_add_css_class (button, "pill");
  adw_preferences_group_add (g, button);
  return group;
}
