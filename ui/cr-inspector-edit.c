/* cr-inspector-edit.c — the popover that edits a scalar leaf's value, and
 * the inspector's row that opens it (cr-inspector-edit.h). */
#include "cr-config.h"
#include "cr-inspector-edit.h"

#include <adwaita.h>
#include <string.h>

typedef struct {
  guint                   tensor;
  CrInspectorLeafEditFunc func;
  gpointer                user_data;
  GtkWidget              *popover;   /* borrowed */
  GtkWidget              *message;   /* borrowed */
} LeafEdit;

static void
on_entry_activate (GtkEntry *entry,
                   LeafEdit *edit)
{
  g_autoptr (GError) error = NULL;
  const char *typed = gtk_editable_get_text (GTK_EDITABLE (entry));
  if (edit->func (edit->tensor, typed, edit->user_data, &error))
    {
      gtk_widget_set_visible (edit->message, FALSE);
      gtk_popover_popdown (GTK_POPOVER (edit->popover));
      return;
    }
  gtk_label_set_text (GTK_LABEL (edit->message), error ? error->message : "It cannot be written");
  gtk_widget_set_visible (edit->message, TRUE);
}

GtkWidget *
cr_leaf_edit_popover_new (const CrRecordTensor    *tensor,
                          CrInspectorLeafEditFunc  func,
                          gpointer                 user_data)
{
  g_return_val_if_fail (tensor != NULL && func != NULL, NULL);
  LeafEdit *edit = g_new0 (LeafEdit, 1);
  edit->tensor = tensor->id;
  edit->func = func;
  edit->user_data = user_data;

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *title = gtk_label_new (NULL);
  g_autofree char *heading = g_strdup_printf ("%s =", tensor->name ? tensor->name : "its value");
  gtk_label_set_text (GTK_LABEL (title), heading);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_box_append (GTK_BOX (box), title);
  GtkWidget *entry = gtk_entry_new ();
  gtk_widget_set_name (entry, "cr-leaf-edit-entry");
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 12);
  if (tensor->value && tensor->value->n_values > 0)
    {
      char text[G_ASCII_DTOSTR_BUF_SIZE + 2];
      g_ascii_formatd (text, G_ASCII_DTOSTR_BUF_SIZE, "%.6g", tensor->value->values[0]);
      /* A float leaf's 2 reads as Python writes it, 2.0. */
      gboolean is_float = tensor->dtype && (strstr (tensor->dtype, "float") || strstr (tensor->dtype, "half"));
      if (is_float && !strpbrk (text, ".eEni"))
        g_strlcat (text, ".0", sizeof text);
      gtk_editable_set_text (GTK_EDITABLE (entry), text);
    }
  gtk_widget_set_tooltip_text (entry, "A number; Enter writes it into the script, Escape leaves it");
  gtk_box_append (GTK_BOX (box), entry);
  GtkWidget *note = gtk_label_new ("Enter writes it into the script, which runs again");
  gtk_label_set_xalign (GTK_LABEL (note), 0);
  gtk_widget_add_css_class (note, "dim-label");
  gtk_widget_add_css_class (note, "caption");
  gtk_box_append (GTK_BOX (box), note);
  edit->message = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (edit->message), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (edit->message), 30);
  gtk_label_set_xalign (GTK_LABEL (edit->message), 0);
  gtk_widget_add_css_class (edit->message, "error");
  gtk_widget_set_visible (edit->message, FALSE);
  gtk_box_append (GTK_BOX (box), edit->message);
  edit->popover = gtk_popover_new ();
  gtk_widget_add_css_class (edit->popover, "cr-leaf-edit");
  if (!gdk_display_is_composited (gdk_display_get_default ()))
    {
      gtk_popover_set_has_arrow (GTK_POPOVER (edit->popover), FALSE);
      gtk_widget_add_css_class (edit->popover, "cr-solid");
    }
  gtk_popover_set_child (GTK_POPOVER (edit->popover), box);
  g_signal_connect_data (entry, "activate", G_CALLBACK (on_entry_activate), edit,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  return edit->popover;
}

GtkWidget *
cr_inspector_leaf_edit_row_new (const CrRecordTensor    *tensor,
                                CrInspectorLeafEditFunc  func,
                                gpointer                 user_data)
{
  g_return_val_if_fail (tensor != NULL && func != NULL, NULL);
  GtkWidget *row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "Edit its value");
  /* Where else it is found: on the graph itself. */
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               "written into the script, which runs again; on the graph, "
                               "double-click the leaf or press Enter on it");

  GtkWidget *button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "document-edit-symbolic");
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button), cr_leaf_edit_popover_new (tensor, func, user_data));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, "Edit this leaf's value in the script");
  gtk_widget_set_name (button, "cr-leaf-edit");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
  return row;
}
